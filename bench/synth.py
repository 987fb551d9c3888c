#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Synthetic model files for the benchmark (bench/compare.py) and the
instruction-count guard (tests/cli/test_instr_counts.py).

Every file has a real header and the size the header implies; the tensor
data is a hole (os.truncate), so a 700 GB folder takes a few MB of disk.
Nothing here is copied from a real model: the layouts follow the public
config.json and tensor naming of each family (Hugging Face transformers'
modeling files, llama.cpp's src/models/*.cpp for GGUF names), and the
output is deterministic, byte for byte, for a given call.

    bench/synth.py OUTDIR            write every benchmark input below OUTDIR

GGUF layout per ggml's docs/gguf.md (version 3, little-endian, alignment
32); safetensors per the safetensors README (8-byte little-endian header
length, JSON header padded with spaces to a multiple of 8, data offsets
from the end of the header).
"""
import json
import os
import struct
import sys

# ggml type: (id, elements per block, bytes per block), ggml/src/ggml.c type_traits
GGML = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q8_0": (8, 32, 34),
    "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210),
    "BF16": (30, 1, 2),
}
ST_BYTES = {"F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "I64": 8, "I32": 4, "U8": 1}

# GGUF value types (docs/gguf.md gguf_metadata_value_type)
U32, I32, F32, BOOL, STR, ARR, U64 = 4, 5, 6, 7, 8, 9, 10


def _gstr(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def _gval(vtype, value):
    if vtype == U32:
        return struct.pack("<I", value)
    if vtype == I32:
        return struct.pack("<i", value)
    if vtype == F32:
        return struct.pack("<f", value)
    if vtype == BOOL:
        return struct.pack("<B", 1 if value else 0)
    if vtype == U64:
        return struct.pack("<Q", value)
    if vtype == STR:
        return _gstr(value)
    raise ValueError(vtype)


def gguf_header(kvs, tensors, alignment=32):
    """kvs: [(key, type, value)] with type ARR given as (ARR, elem_type,
    values); tensors: [(name, [ne0, ne1, ...], ggml type)]. Returns
    (header bytes padded to the alignment, total file size)."""
    out = [b"GGUF", struct.pack("<IQQ", 3, len(tensors), len(kvs))]
    for key, vtype, value in kvs:
        out.append(_gstr(key))
        if vtype == ARR:
            etype, values = value
            out.append(struct.pack("<IIQ", ARR, etype, len(values)))
            if etype == STR:
                out.append(b"".join(_gstr(v) for v in values))
            elif etype == I32:
                out.append(struct.pack(f"<{len(values)}i", *values))
            elif etype == F32:
                out.append(struct.pack(f"<{len(values)}f", *values))
            else:
                out.append(b"".join(_gval(etype, v) for v in values))
        else:
            out.append(struct.pack("<I", vtype) + _gval(vtype, value))
    offset = 0
    for name, dims, gtype in tensors:
        tid, block, size = GGML[gtype]
        n = 1
        for d in dims:
            n *= d
        if dims[0] % block:
            raise ValueError(f"{name}: ne0 {dims[0]} not a multiple of {block}")
        out.append(_gstr(name) + struct.pack("<I", len(dims))
                   + struct.pack(f"<{len(dims)}Q", *dims) + struct.pack("<IQ", tid, offset))
        offset += n // block * size
        offset += -offset % alignment
    head = b"".join(out)
    head += b"\0" * (-len(head) % alignment)
    return head, len(head) + offset


def write_gguf(path, kvs, tensors):
    head, total = gguf_header(kvs, tensors)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(head)
    os.truncate(path, total)
    return path


def vocab(n_tokens, n_merges):
    """Deterministic byte-level-BPE-looking tokens and merges."""
    alpha = "etaoinshrdlucmfwypvbgkjqxz"
    toks = []
    for i in range(n_tokens):
        s, k = "", i
        while True:
            s += alpha[k % 26]
            k //= 26
            if not k:
                break
        toks.append(("\u0120" if i % 3 == 0 else "") + s)
    merges = [f"{toks[i % n_tokens]} {toks[(i * 7 + 1) % n_tokens]}" for i in range(n_merges)]
    return toks, merges


def tokenizer_kvs(n_tokens, n_merges, pre="qwen2"):
    """A BPE (gpt2) vocabulary with merges, or an SPM (llama) one without."""
    toks, merges = vocab(n_tokens, n_merges)
    model = "gpt2" if n_merges else "llama"
    kvs = [("tokenizer.ggml.model", STR, model), ("tokenizer.ggml.pre", STR, pre),
           ("tokenizer.ggml.tokens", ARR, (STR, toks)),
           ("tokenizer.ggml.token_type", ARR, (I32, [1] * n_tokens))]
    if n_merges:
        kvs.append(("tokenizer.ggml.merges", ARR, (STR, merges)))
    kvs += [("tokenizer.ggml.eos_token_id", U32, 1), ("tokenizer.ggml.bos_token_id", U32, 0)]
    return kvs


# --- GGUF layouts -----------------------------------------------------------

def gguf_llama(n_layer=2, n_embd=256, n_ff=512, n_head=4, n_kv=2, n_vocab=512,
               n_merges=0, wtype="Q8_0", name="synthetic llama"):
    """llama.cpp's llama tensors (src/models/llama.cpp) at any size."""
    kvs = [("general.architecture", STR, "llama"), ("general.name", STR, name),
           ("general.file_type", U32, 7 if wtype == "Q8_0" else 15),
           ("general.quantization_version", U32, 2),
           ("llama.block_count", U32, n_layer), ("llama.context_length", U32, 4096),
           ("llama.embedding_length", U32, n_embd), ("llama.feed_forward_length", U32, n_ff),
           ("llama.attention.head_count", U32, n_head), ("llama.attention.head_count_kv", U32, n_kv),
           ("llama.rope.freq_base", F32, 500000.0),
           ("llama.attention.layer_norm_rms_epsilon", F32, 1e-5),
           ("llama.vocab_size", U32, n_vocab)]
    kvs += tokenizer_kvs(n_vocab, n_merges, pre="llama-bpe")
    hd = n_embd // n_head
    t = [("token_embd.weight", [n_embd, n_vocab], wtype)]
    for i in range(n_layer):
        b = f"blk.{i}."
        t += [(b + "attn_norm.weight", [n_embd], "F32"),
              (b + "attn_q.weight", [n_embd, n_embd], wtype),
              (b + "attn_k.weight", [n_embd, hd * n_kv], wtype),
              (b + "attn_v.weight", [n_embd, hd * n_kv], wtype),
              (b + "attn_output.weight", [n_embd, n_embd], wtype),
              (b + "ffn_norm.weight", [n_embd], "F32"),
              (b + "ffn_gate.weight", [n_embd, n_ff], wtype),
              (b + "ffn_up.weight", [n_embd, n_ff], wtype),
              (b + "ffn_down.weight", [n_ff, n_embd], wtype)]
    t += [("output_norm.weight", [n_embd], "F32"), ("output.weight", [n_embd, n_vocab], wtype)]
    return kvs, t


def gguf_qwen3next(n_layer=48, n_vocab=151936, n_merges=151387):
    """Qwen3-Next-80B-A3B as llama.cpp's convert_hf_to_gguf.py writes it
    (src/models/qwen3next.cpp: 48 blocks, every 4th full attention, the
    others gated delta net; 512 experts of 512, one shared expert), Q4_K."""
    E, FF, EMB, NH, NKV, HD = 512, 512, 2048, 16, 2, 256
    D_CONV, D_STATE, DT_RANK, N_GROUP = 4, 128, 32, 16
    key_dim, value_dim = D_STATE * N_GROUP, D_STATE * DT_RANK
    a = "qwen3next."
    kvs = [("general.architecture", STR, "qwen3next"), ("general.type", STR, "model"),
           ("general.name", STR, "Qwen3 Next 80B A3B Instruct"), ("general.basename", STR, "Qwen3-Next"),
           ("general.size_label", STR, "80B-A3B"), ("general.license", STR, "apache-2.0"),
           ("general.file_type", U32, 15), ("general.quantization_version", U32, 2),
           (a + "block_count", U32, n_layer), (a + "context_length", U32, 262144),
           (a + "embedding_length", U32, EMB), (a + "feed_forward_length", U32, 5120),
           (a + "attention.head_count", U32, NH), (a + "attention.head_count_kv", U32, NKV),
           (a + "rope.freq_base", F32, 10000000.0), (a + "attention.layer_norm_rms_epsilon", F32, 1e-6),
           (a + "expert_used_count", U32, 10), (a + "attention.key_length", U32, HD),
           (a + "attention.value_length", U32, HD), (a + "expert_count", U32, E),
           (a + "expert_feed_forward_length", U32, FF), (a + "expert_shared_feed_forward_length", U32, FF),
           (a + "ssm.conv_kernel", U32, D_CONV), (a + "ssm.state_size", U32, D_STATE),
           (a + "ssm.group_count", U32, N_GROUP), (a + "ssm.time_step_rank", U32, DT_RANK),
           (a + "ssm.inner_size", U32, value_dim), (a + "rope.dimension_count", U32, 64),
           (a + "full_attention_interval", U32, 4)]
    kvs += tokenizer_kvs(n_vocab, n_merges)
    kvs += [("tokenizer.ggml.padding_token_id", U32, 151643),
            ("tokenizer.chat_template", STR, "{% for m in messages %}<|im_start|>{{ m.role }}\n"
             "{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")]
    q = "Q4_K"
    t = [("token_embd.weight", [EMB, n_vocab], q), ("output_norm.weight", [EMB], "F32"),
         ("output.weight", [EMB, n_vocab], "Q6_K")]
    for i in range(n_layer):
        b = f"blk.{i}."
        t += [(b + "attn_norm.weight", [EMB], "F32"), (b + "post_attention_norm.weight", [EMB], "F32")]
        if (i + 1) % 4 == 0:
            t += [(b + "attn_q.weight", [EMB, HD * NH * 2], q), (b + "attn_k.weight", [EMB, HD * NKV], q),
                  (b + "attn_v.weight", [EMB, HD * NKV], "Q6_K"), (b + "attn_output.weight", [HD * NH, EMB], q),
                  (b + "attn_q_norm.weight", [HD], "F32"), (b + "attn_k_norm.weight", [HD], "F32")]
        else:
            t += [(b + "attn_qkv.weight", [EMB, key_dim * 2 + value_dim], q),
                  (b + "attn_gate.weight", [EMB, value_dim], q),
                  (b + "ssm_conv1d.weight", [D_CONV, key_dim * 2 + value_dim], "F32"),
                  (b + "ssm_dt.bias", [DT_RANK], "F32"), (b + "ssm_a", [DT_RANK], "F32"),
                  (b + "ssm_ba.weight", [EMB, DT_RANK * 2], q), (b + "ssm_norm.weight", [D_STATE], "F32"),
                  (b + "ssm_out.weight", [value_dim, EMB], q)]
        t += [(b + "ffn_gate_inp.weight", [EMB, E], "F32"),
              (b + "ffn_down_exps.weight", [FF, EMB, E], "Q6_K"),
              (b + "ffn_gate_exps.weight", [EMB, FF, E], q), (b + "ffn_up_exps.weight", [EMB, FF, E], q),
              (b + "ffn_gate_inp_shexp.weight", [EMB], "F32"),
              (b + "ffn_gate_shexp.weight", [EMB, FF], q), (b + "ffn_up_shexp.weight", [EMB, FF], q),
              (b + "ffn_down_shexp.weight", [FF, EMB], "Q6_K")]
    return kvs, t


def gguf_n_tensors(n):
    """A llama-named GGUF with exactly n tensors of 256x64 Q8_0 (cost per
    tensor): n // 9 blocks of llama.cpp's nine per-block tensors, the rest
    as extra norms."""
    kvs = [("general.architecture", STR, "llama"), ("general.name", STR, f"{n} tensors"),
           ("llama.block_count", U32, -(-n // 9)), ("llama.embedding_length", U32, 256),
           ("llama.attention.head_count", U32, 4), ("llama.context_length", U32, 4096)]
    kvs += tokenizer_kvs(64, 0, pre="llama-bpe")
    names = ["attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down"]
    t = [(f"blk.{i // 9}.{names[i % 9]}.weight", [256, 64], "Q8_0") for i in range(n)]
    return kvs, t


# --- safetensors ------------------------------------------------------------

def st_header(tensors, metadata=None):
    """tensors: [(name, dtype, shape)] packed from 0 in the given order.
    Returns (8-byte length + JSON header, data size)."""
    h = {}
    if metadata is not None:
        h["__metadata__"] = metadata
    off = 0
    for name, dtype, shape in tensors:
        n = ST_BYTES[dtype]
        for d in shape:
            n *= d
        h[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + n]}
        off += n
    js = json.dumps(h, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 8)
    return struct.pack("<Q", len(js)) + js, off


def write_st(path, tensors, metadata=None):
    head, data = st_header(tensors, metadata if metadata is not None else {"format": "pt"})
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(head)
    os.truncate(path, len(head) + data)
    return path


def nbytes(dtype, shape):
    n = ST_BYTES[dtype]
    for d in shape:
        n *= d
    return n


def write_st_folder(folder, config, tensors, n_shards):
    """A sharded Hugging Face folder: config.json, model.safetensors.index.json
    and n_shards model-XXXXX-of-YYYYY.safetensors cut at equal byte counts,
    as transformers' save_pretrained(max_shard_size=...) does."""
    os.makedirs(folder, exist_ok=True)
    total = sum(nbytes(d, s) for _, d, s in tensors)
    target = -(-total // n_shards)
    shards, cur, size = [], [], 0
    for t in tensors:
        if cur and size + nbytes(t[1], t[2]) > target and len(shards) < n_shards - 1:
            shards.append(cur)
            cur, size = [], 0
        cur.append(t)
        size += nbytes(t[1], t[2])
    shards.append(cur)
    weight_map = {}
    for i, part in enumerate(shards):
        name = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        write_st(os.path.join(folder, name), part)
        for t in part:
            weight_map[t[0]] = name
    # As huggingface_hub's save_torch_state_dict and transformers'
    # save_pretrained write it: json.dumps(index, indent=2, sort_keys=True)
    # plus a newline (huggingface_hub src/huggingface_hub/serialization/_torch.py).
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        f.write(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map},
                           indent=2, sort_keys=True) + "\n")
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    return folder


# --- Hugging Face layouts (transformers' modeling_*.py state_dict names) ---

def _attn(p, hid, nh, nkv, hd, dt, bias=False, qk_norm=False, q_mult=1):
    t = [(p + "self_attn.q_proj.weight", dt, [nh * hd * q_mult, hid]),
         (p + "self_attn.k_proj.weight", dt, [nkv * hd, hid]),
         (p + "self_attn.v_proj.weight", dt, [nkv * hd, hid]),
         (p + "self_attn.o_proj.weight", dt, [hid, nh * hd])]
    if bias:
        t += [(p + "self_attn.q_proj.bias", dt, [nh * hd]), (p + "self_attn.k_proj.bias", dt, [nkv * hd]),
              (p + "self_attn.v_proj.bias", dt, [nkv * hd])]
    if qk_norm:
        t += [(p + "self_attn.q_norm.weight", dt, [hd]), (p + "self_attn.k_norm.weight", dt, [hd])]
    return t


def _mlp(p, hid, inter, dt, names=("gate_proj", "up_proj", "down_proj")):
    g, u, d = names
    return [(p + g + ".weight", dt, [inter, hid]), (p + u + ".weight", dt, [inter, hid]),
            (p + d + ".weight", dt, [hid, inter])]


def _cfg(model_type, arch, **kw):
    c = {"architectures": [arch], "model_type": model_type, "torch_dtype": "bfloat16",
         "tie_word_embeddings": False, "rms_norm_eps": 1e-6, "max_position_embeddings": 32768}
    c.update(kw)
    return c


def hf_dense(model_type, arch, layers, hid, inter, nh, nkv, vocab, bias=False, qk_norm=False,
             gemma_norms=False, hd=None):
    hd = hd or hid // nh
    dt = "BF16"
    t = [("model.embed_tokens.weight", dt, [vocab, hid])]
    for i in range(layers):
        p = f"model.layers.{i}."
        t += [(p + "input_layernorm.weight", dt, [hid]), (p + "post_attention_layernorm.weight", dt, [hid])]
        if gemma_norms:
            t += [(p + "pre_feedforward_layernorm.weight", dt, [hid]),
                  (p + "post_feedforward_layernorm.weight", dt, [hid])]
        t += _attn(p, hid, nh, nkv, hd, dt, bias, qk_norm) + _mlp(p + "mlp.", hid, inter, dt)
    t.append(("model.norm.weight", dt, [hid]))
    if not gemma_norms:
        t.append(("lm_head.weight", dt, [vocab, hid]))
    cfg = _cfg(model_type, arch, hidden_size=hid, intermediate_size=inter, num_hidden_layers=layers,
               num_attention_heads=nh, num_key_value_heads=nkv, head_dim=hd, vocab_size=vocab,
               tie_word_embeddings=gemma_norms)
    return cfg, t


def hf_mixtral():
    hid, inter, E, dt = 4096, 14336, 8, "BF16"
    t = [("model.embed_tokens.weight", dt, [32000, hid])]
    for i in range(32):
        p = f"model.layers.{i}."
        t += [(p + "input_layernorm.weight", dt, [hid]), (p + "post_attention_layernorm.weight", dt, [hid])]
        t += _attn(p, hid, 32, 8, 128, dt) + [(p + "block_sparse_moe.gate.weight", dt, [E, hid])]
        for e in range(E):
            t += _mlp(p + f"block_sparse_moe.experts.{e}.", hid, inter, dt, ("w1", "w3", "w2"))
    t += [("model.norm.weight", dt, [hid]), ("lm_head.weight", dt, [32000, hid])]
    cfg = _cfg("mixtral", "MixtralForCausalLM", hidden_size=hid, intermediate_size=inter,
               num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
               num_local_experts=E, num_experts_per_tok=2)
    return cfg, t


def hf_qwen3_moe(layers=48, E=128):
    hid, inter, dt = 2048, 768, "BF16"
    t = [("model.embed_tokens.weight", dt, [151936, hid])]
    for i in range(layers):
        p = f"model.layers.{i}."
        t += [(p + "input_layernorm.weight", dt, [hid]), (p + "post_attention_layernorm.weight", dt, [hid])]
        t += _attn(p, hid, 32, 4, 128, dt, qk_norm=True) + [(p + "mlp.gate.weight", dt, [E, hid])]
        for e in range(E):
            t += _mlp(p + f"mlp.experts.{e}.", hid, inter, dt)
    t += [("model.norm.weight", dt, [hid]), ("lm_head.weight", dt, [151936, hid])]
    cfg = _cfg("qwen3_moe", "Qwen3MoeForCausalLM", hidden_size=hid, intermediate_size=6144,
               moe_intermediate_size=inter, num_hidden_layers=layers, num_attention_heads=32,
               num_key_value_heads=4, head_dim=128, vocab_size=151936, num_experts=E,
               num_experts_per_tok=8, decoder_sparse_step=1, mlp_only_layers=[])
    return cfg, t


def hf_qwen3_next():
    hid, E, FF, dt = 2048, 512, 512, "BF16"
    k_heads, v_heads, kd, vd = 16, 32, 128, 128
    t = [("model.embed_tokens.weight", dt, [151936, hid])]

    def block(p, full):
        b = [(p + "input_layernorm.weight", dt, [hid]), (p + "post_attention_layernorm.weight", dt, [hid])]
        if full:
            b += _attn(p, hid, 16, 2, 256, dt, qk_norm=True, q_mult=2)
        else:
            la = p + "linear_attn."
            conv = k_heads * kd * 2 + v_heads * vd
            b += [(la + "in_proj_qkvz.weight", dt, [conv + v_heads * vd, hid]),
                  (la + "in_proj_ba.weight", dt, [v_heads * 2, hid]),
                  (la + "conv1d.weight", dt, [conv, 1, 4]), (la + "dt_bias", dt, [v_heads]),
                  (la + "A_log", "F32", [v_heads]), (la + "norm.weight", "F32", [vd]),
                  (la + "out_proj.weight", dt, [hid, v_heads * vd])]
        b += [(p + "mlp.gate.weight", dt, [E, hid]), (p + "mlp.shared_expert_gate.weight", dt, [1, hid])]
        b += _mlp(p + "mlp.shared_expert.", hid, FF, dt)
        for e in range(E):
            b += _mlp(p + f"mlp.experts.{e}.", hid, FF, dt)
        return b

    for i in range(48):
        t += block(f"model.layers.{i}.", (i + 1) % 4 == 0)
    t += block("mtp.layers.0.", True)
    t += [("mtp.fc.weight", dt, [hid, 2 * hid]), ("mtp.pre_fc_norm_embedding.weight", dt, [hid]),
          ("mtp.pre_fc_norm_hidden.weight", dt, [hid]), ("mtp.norm.weight", dt, [hid])]
    t += [("model.norm.weight", dt, [hid]), ("lm_head.weight", dt, [151936, hid])]
    cfg = _cfg("qwen3_next", "Qwen3NextForCausalLM", hidden_size=hid, intermediate_size=5120,
               moe_intermediate_size=FF, shared_expert_intermediate_size=FF, num_hidden_layers=48,
               num_attention_heads=16, num_key_value_heads=2, head_dim=256, vocab_size=151936,
               num_experts=E, num_experts_per_tok=10, full_attention_interval=4,
               linear_num_key_heads=k_heads, linear_num_value_heads=v_heads, linear_key_head_dim=kd,
               linear_value_head_dim=vd, linear_conv_kernel_dim=4, decoder_sparse_step=1,
               mlp_only_layers=[], num_nextn_predict_layers=1)
    return cfg, t


def hf_deepseek_v3():
    """DeepSeek-V3 as published: FP8 e4m3 weights with a 128x128-block
    F32 weight_scale_inv beside every linear, 3 dense layers, 58 MoE layers
    of 256 experts, and the MTP layer 61."""
    hid, inter, moe, E, fp8, dt = 7168, 18432, 2048, 256, "F8_E4M3", "BF16"
    t = [("model.embed_tokens.weight", dt, [129280, hid])]

    def lin(name, out, inp):
        return [(name + ".weight", fp8, [out, inp]),
                (name + ".weight_scale_inv", "F32", [-(-out // 128), -(-inp // 128)])]

    def layer(i):
        p = f"model.layers.{i}."
        a = p + "self_attn."
        b = [(p + "input_layernorm.weight", dt, [hid]), (p + "post_attention_layernorm.weight", dt, [hid]),
             (a + "q_a_layernorm.weight", dt, [1536]), (a + "kv_a_layernorm.weight", dt, [512])]
        b += lin(a + "q_a_proj", 1536, hid) + lin(a + "q_b_proj", 128 * 192, 1536)
        b += lin(a + "kv_a_proj_with_mqa", 576, hid) + lin(a + "kv_b_proj", 128 * 256, 512)
        b += lin(a + "o_proj", hid, 128 * 128)
        if i < 3:
            for n, (o, k) in (("gate_proj", (inter, hid)), ("up_proj", (inter, hid)), ("down_proj", (hid, inter))):
                b += lin(p + "mlp." + n, o, k)
        else:
            b += [(p + "mlp.gate.weight", dt, [E, hid]), (p + "mlp.gate.e_score_correction_bias", "F32", [E])]
            for n, (o, k) in (("gate_proj", (moe, hid)), ("up_proj", (moe, hid)), ("down_proj", (hid, moe))):
                b += lin(p + "mlp.shared_experts." + n, o, k)
            for e in range(E):
                for n, (o, k) in (("gate_proj", (moe, hid)), ("up_proj", (moe, hid)), ("down_proj", (hid, moe))):
                    b += lin(p + f"mlp.experts.{e}." + n, o, k)
        return b

    for i in range(61):
        t += layer(i)
    t += layer(61)
    p = "model.layers.61."
    t += [(p + "enorm.weight", dt, [hid]), (p + "hnorm.weight", dt, [hid]), (p + "eh_proj.weight", dt, [hid, 2 * hid]),
          (p + "shared_head.norm.weight", dt, [hid]), (p + "shared_head.head.weight", dt, [129280, hid]),
          (p + "embed_tokens.weight", dt, [129280, hid])]
    t += [("model.norm.weight", dt, [hid]), ("lm_head.weight", dt, [129280, hid])]
    cfg = _cfg("deepseek_v3", "DeepseekV3ForCausalLM", hidden_size=hid, intermediate_size=inter,
               moe_intermediate_size=moe, num_hidden_layers=61, num_attention_heads=128,
               num_key_value_heads=128, vocab_size=129280, n_routed_experts=E, n_shared_experts=1,
               num_experts_per_tok=8, first_k_dense_replace=3, moe_layer_freq=1, q_lora_rank=1536,
               kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
               num_nextn_predict_layers=1, max_position_embeddings=163840,
               quantization_config={"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                    "weight_block_size": [128, 128]})
    return cfg, t


def hf_glm45_air():
    hid, inter, moe, E, dt = 4096, 10944, 1408, 128, "BF16"
    t = [("model.embed_tokens.weight", dt, [151552, hid])]

    def layer(i):
        p = f"model.layers.{i}."
        b = [(p + "input_layernorm.weight", dt, [hid]), (p + "post_attention_layernorm.weight", dt, [hid])]
        b += _attn(p, hid, 96, 8, 128, dt, bias=True)
        if i == 0:
            return b + _mlp(p + "mlp.", hid, inter, dt)
        b += [(p + "mlp.gate.weight", dt, [E, hid]), (p + "mlp.gate.e_score_correction_bias", "F32", [E])]
        b += _mlp(p + "mlp.shared_experts.", hid, moe, dt)
        for e in range(E):
            b += _mlp(p + f"mlp.experts.{e}.", hid, moe, dt)
        return b

    for i in range(47):
        t += layer(i)
    p = "model.layers.46."
    t += [(p + "enorm.weight", dt, [hid]), (p + "hnorm.weight", dt, [hid]), (p + "eh_proj.weight", dt, [hid, 2 * hid]),
          (p + "shared_head.norm.weight", dt, [hid])]
    t += [("model.norm.weight", dt, [hid]), ("lm_head.weight", dt, [151552, hid])]
    cfg = _cfg("glm4_moe", "Glm4MoeForCausalLM", hidden_size=hid, intermediate_size=inter,
               moe_intermediate_size=moe, num_hidden_layers=46, num_attention_heads=96,
               num_key_value_heads=8, head_dim=128, vocab_size=151552, n_routed_experts=E,
               n_shared_experts=1, num_experts_per_tok=8, first_k_dense_replace=1,
               attention_bias=True, num_nextn_predict_layers=1, partial_rotary_factor=0.5)
    return cfg, t


def hf_n_tensors(n):
    """One safetensors file of exactly n BF16 [64, 64] tensors named as
    Llama layers (nine per layer)."""
    names = ["input_layernorm", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
             "post_attention_layernorm", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"]
    return [(f"model.layers.{i // 9}.{names[i % 9]}.weight", "BF16", [64, 64]) for i in range(n)]


def hf_n_tensors_config(n):
    """config.json for hf_n_tensors(n) written as a sharded folder."""
    return _cfg("llama", "LlamaForCausalLM", hidden_size=64, intermediate_size=64, num_hidden_layers=-(-n // 9),
                num_attention_heads=1, num_key_value_heads=1, vocab_size=64)


# The nine real-scale sharded folders: (name, layout, shard count as published)
HF_FOLDERS = [
    ("llama-3.1-8b", lambda: hf_dense("llama", "LlamaForCausalLM", 32, 4096, 14336, 32, 8, 128256), 4),
    ("llama-3.1-70b", lambda: hf_dense("llama", "LlamaForCausalLM", 80, 8192, 28672, 64, 8, 128256), 30),
    ("qwen2.5-72b", lambda: hf_dense("qwen2", "Qwen2ForCausalLM", 80, 8192, 29568, 64, 8, 152064, bias=True), 37),
    ("gemma-3-27b", lambda: hf_dense("gemma3_text", "Gemma3ForCausalLM", 62, 5376, 21504, 32, 16, 262208,
                                     qk_norm=True, gemma_norms=True, hd=128), 12),
    ("mixtral-8x7b", hf_mixtral, 19),
    ("qwen3-30b-a3b", hf_qwen3_moe, 16),
    ("glm-4.5-air", hf_glm45_air, 47),
    ("qwen3-next-80b-a3b", hf_qwen3_next, 41),
    ("deepseek-v3", hf_deepseek_v3, 163),
]


def write_all(out):
    """Every input compare.py uses; returns {name: path}."""
    made = {}
    kvs, t = gguf_llama()
    made["small.gguf"] = write_gguf(os.path.join(out, "gguf", "small.gguf"), kvs, t)
    many = os.path.join(out, "many")
    for i in range(100):
        kvs, t = gguf_llama(n_layer=1 + i % 4, name=f"synthetic llama {i}")
        write_gguf(os.path.join(many, f"m{i:03d}.gguf"), kvs, t)
    made["many"] = many
    kvs, t = gguf_llama(n_layer=16, n_embd=2048, n_ff=8192, n_head=32, n_kv=8, n_vocab=128256,
                        n_merges=280147, wtype="Q4_K", name="Llama 3.2 1B shaped")
    made["vocab.gguf"] = write_gguf(os.path.join(out, "gguf", "vocab-128k.gguf"), kvs, t)
    kvs, t = gguf_qwen3next()
    made["qwen3next.gguf"] = write_gguf(os.path.join(out, "gguf", "qwen3next-80b-a3b-Q4_K_M.gguf"), kvs, t)
    for n in (1000, 10000, 100000):
        kvs, t = gguf_n_tensors(n)
        made[f"n{n}.gguf"] = write_gguf(os.path.join(out, "scale", f"t{n}.gguf"), kvs, t)
        made[f"n{n}.safetensors"] = write_st(os.path.join(out, "scale", f"t{n}.safetensors"), hf_n_tensors(n))
    for name, layout, shards in HF_FOLDERS:
        cfg, t = layout()
        made["hf/" + name] = write_st_folder(os.path.join(out, "hf", name), cfg, t, shards)
    return made


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for k, v in write_all(sys.argv[1]).items():
        print(k, v)
