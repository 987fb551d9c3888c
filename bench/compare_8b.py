#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Throughput of `quantaudit compare` at 8B size, on sparse stand-ins.

Writes, in a scratch folder, a Llama-3-8B-shaped GGUF (32 layers, n_embd
4096, n_ff 14336, 32 heads, 8 KV heads, vocab 128256; the weights in
--type, default Q4_K; norms F32) and the matching Hugging Face folder
(config.json and one BF16 model.safetensors). Only the headers are
written: the data are holes (sparse files), which read as zeros at
memory speed, so the run measures quantaudit's dequantization and
statistics, not the disk; the values do not change the work done per
element (no branch depends on them but the NaN tests). Then runs
`quantaudit compare GGUF FOLDER -j J` for each J given and prints the
input bytes (both models' tensor data), the time, and GB/s per thread.

Usage: bench/compare_8b.py QUANTAUDIT [--jobs 1,2] [--layers 32]
                           [--type Q4_K] [--dir DIR]
"""
import argparse
import json
import os
import struct
import subprocess
import tempfile
import time

TYPES = {"Q4_K": (12, 256, 144), "Q8_0": (8, 32, 34), "Q6_K": (14, 256, 210),
         "Q2_K": (10, 256, 84), "IQ4_XS": (23, 256, 136), "BF16": (30, 1, 2)}


def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv_u32(k, v):
    return gguf_str(k) + struct.pack("<II", 4, v)


def kv_str(k, v):
    return gguf_str(k) + struct.pack("<I", 8) + gguf_str(v)


def model(layers):
    e, ff, heads, kv, vocab, hd = 4096, 14336, 32, 8, 128256, 128
    t = [("token_embd.weight", "model.embed_tokens.weight", [e, vocab], True),
         ("output_norm.weight", "model.norm.weight", [e], False),
         ("output.weight", "lm_head.weight", [e, vocab], True)]
    for i in range(layers):
        p, h = "blk.%d." % i, "model.layers.%d." % i
        t += [(p + "attn_norm.weight", h + "input_layernorm.weight", [e], False),
              (p + "attn_q.weight", h + "self_attn.q_proj.weight", [e, heads * hd], True),
              (p + "attn_k.weight", h + "self_attn.k_proj.weight", [e, kv * hd], True),
              (p + "attn_v.weight", h + "self_attn.v_proj.weight", [e, kv * hd], True),
              (p + "attn_output.weight", h + "self_attn.o_proj.weight", [heads * hd, e], True),
              (p + "ffn_norm.weight", h + "post_attention_layernorm.weight", [e], False),
              (p + "ffn_gate.weight", h + "mlp.gate_proj.weight", [e, ff], True),
              (p + "ffn_up.weight", h + "mlp.up_proj.weight", [e, ff], True),
              (p + "ffn_down.weight", h + "mlp.down_proj.weight", [ff, e], True)]
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
           "hidden_size": e, "intermediate_size": ff, "num_attention_heads": heads,
           "num_key_value_heads": kv, "num_hidden_layers": layers, "vocab_size": vocab,
           "max_position_embeddings": 8192, "rms_norm_eps": 1e-5,
           "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    return t, cfg


def write_gguf(path, tensors, cfg, qtype):
    tid, blk, bb = TYPES[qtype]
    kvs = [kv_str("general.architecture", "llama"),
           kv_u32("llama.block_count", cfg["num_hidden_layers"]),
           kv_u32("llama.embedding_length", cfg["hidden_size"]),
           kv_u32("llama.feed_forward_length", cfg["intermediate_size"]),
           kv_u32("llama.attention.head_count", cfg["num_attention_heads"]),
           kv_u32("llama.attention.head_count_kv", cfg["num_key_value_heads"]),
           kv_u32("llama.context_length", 8192)]
    infos, off = b"", 0
    for name, _, ne, quant in tensors:
        t, b, n = (tid, blk, bb) if quant else (0, 1, 4)
        elems = 1
        for d in ne:
            elems *= d
        infos += gguf_str(name) + struct.pack("<I", len(ne)) + b"".join(
            struct.pack("<Q", d) for d in ne) + struct.pack("<IQ", t, off)
        off += (elems // b * n + 31) // 32 * 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs) + infos
    head += b"\0" * (-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(len(head) + off)
    return off


def write_st(folder, tensors, cfg):
    hdr, off = {}, 0
    for _, name, ne, quant in tensors:
        shape = list(reversed(ne))
        elems = 1
        for d in shape:
            elems *= d
        dt, sz = ("BF16", 2) if quant else ("F32", 4)
        hdr[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + elems * sz]}
        off += elems * sz
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        f.truncate(8 + len(h) + off)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f)
    return off


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("quantaudit")
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--type", default="Q4_K", choices=sorted(TYPES))
    ap.add_argument("--dir")
    a = ap.parse_args()
    d = a.dir or tempfile.mkdtemp(prefix="qa-compare-8b-")
    tensors, cfg = model(a.layers)
    src = os.path.join(d, "source")
    os.makedirs(src, exist_ok=True)
    qbytes = write_gguf(os.path.join(d, "quant.gguf"), tensors, cfg, a.type)
    sbytes = write_st(src, tensors, cfg)
    total = qbytes + sbytes
    print("8B stand-in, %d layers, %s: quant %.2f GB, source %.2f GB (sparse)"
          % (a.layers, a.type, qbytes / 1e9, sbytes / 1e9))
    for j in [int(x) for x in a.jobs.split(",")]:
        t0 = time.monotonic()
        r = subprocess.run([a.quantaudit, "compare", os.path.join(d, "quant.gguf"), src,
                            "-f", "json", "-j", str(j)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, check=False)
        dt = time.monotonic() - t0
        rep = json.loads(r.stdout) if r.stdout else {}
        print("jobs %d: %.2f s, %.2f GB/s, %.2f GB/s per thread (exit %d, %s tensors "
              "compared, %s bytes read)" % (j, dt, total / dt / 1e9, total / dt / 1e9 / j,
                                            r.returncode, rep.get("compared"),
                                            rep.get("bytes_read")))


if __name__ == "__main__":
    main()
