#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of fuzz_pipeline (tests/fuzz/corpus/pipeline/):
small model folders in the framing tests/fuzz/fuzz_pipeline.c reads,

    ==> NAME\\n CONTENT \\n==> NAME\\n CONTENT ...

where a NAME starting with '>' is the path audited (else the folder), '@'
names a folder to audit instead (no file), '!' makes a FIFO and '!!' a
FIFO that the listing calls a regular file.

The folders are the input forms the resolver accepts (a Hugging Face
checkpoint, a sharded set with its index, a folder of GGUFs, a split
GGUF, a Hugging Face cache repo, archives, a PyTorch checkpoint) and the
hostile inputs of issue 11 that live in a folder: duplicate chat_template
keys, a NUL in chat_template.jinja and \\u0000 in JSON, chat_template.json
and additional_chat_templates/, a ReDoS ignore pattern, FIFOs as shards
and side files, terminal and CI-log injection in tensor names,
general.name and file names, and the findings flood. Binary files are
built here (GGUF and safetensors writers below) or taken from the other
targets' committed seeds. Run it from anywhere; it rewrites the folder.
"""
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
OUT = os.path.join(CORPUS, "pipeline")


def frame(files):
    """files: list of (header, bytes)."""
    out = b""
    for i, (name, data) in enumerate(files):
        out += (b"" if i == 0 else b"\n") + b"==> " + name.encode() + b"\n"
        assert b"\n==> " not in data, name
        out += data
    return out


def seed(name):
    with open(os.path.join(CORPUS, name), "rb") as f:
        return f.read()


def safetensors(tensors, metadata=None):
    """tensors: list of (name, dtype, shape, nbytes); data is zeros."""
    header, off = {}, 0
    for name, dtype, shape, nbytes in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [off, off + nbytes]}
        off += nbytes
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(h)) + h + bytes(off)


LLAMA_TENSORS = [
    ("model.embed_tokens.weight", "BF16", [16, 8], 256),
    ("model.layers.0.input_layernorm.weight", "BF16", [8], 16),
    ("model.layers.0.self_attn.q_proj.weight", "BF16", [8, 8], 128),
    ("model.layers.0.self_attn.k_proj.weight", "BF16", [4, 8], 64),
    ("model.layers.0.self_attn.v_proj.weight", "BF16", [4, 8], 64),
    ("model.layers.0.self_attn.o_proj.weight", "BF16", [8, 8], 128),
    ("model.layers.0.post_attention_layernorm.weight", "BF16", [8], 16),
    ("model.layers.0.mlp.gate_proj.weight", "BF16", [16, 8], 256),
    ("model.layers.0.mlp.up_proj.weight", "BF16", [16, 8], 256),
    ("model.layers.0.mlp.down_proj.weight", "BF16", [8, 16], 256),
    ("model.norm.weight", "BF16", [8], 16),
]

LLAMA_CONFIG = json.dumps({
    "architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 1,
    "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
    "vocab_size": 16, "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
    "tie_word_embeddings": True, "torch_dtype": "bfloat16"},
    indent=2).encode()

LLAMA3_TEMPLATE = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + "
    "'<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}"
    "{% if loop.index0 == 0 %}{% set content = bos_token + content %}"
    "{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}")


def tokenizer_config(template, extra=""):
    return ('{"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",'
            ' "chat_template": ' + json.dumps(template) + extra +
            ', "model_max_length": 131072}').encode()


# ---- GGUF ---------------------------------------------------------------

GGUF_U32, GGUF_BOOL, GGUF_STRING, GGUF_ARRAY = 4, 7, 8, 9


def gstr(s):
    b = s if isinstance(s, bytes) else s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf(kvs, tensors, data_bytes=None, version=3):
    """kvs: list of (key, type, value); tensors: (name, ggml type, shape,
    nbytes). Data is zeros, aligned to 32 bytes, cut to data_bytes."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, t, v in kvs:
        out += gstr(key) + struct.pack("<I", t)
        if t == GGUF_STRING:
            out += gstr(v)
        elif t == GGUF_U32:
            out += struct.pack("<I", v)
        elif t == GGUF_ARRAY:
            et, items = v
            out += struct.pack("<IQ", et, len(items))
            for it in items:
                out += (gstr(it) if et == GGUF_STRING else
                        struct.pack("<B", it) if et == GGUF_BOOL else
                        struct.pack("<I", it))
        else:
            raise ValueError(t)
    off, total = 0, 0
    for name, gt, shape, nbytes in tensors:
        out += gstr(name) + struct.pack("<I", len(shape))
        out += b"".join(struct.pack("<Q", d) for d in shape)
        out += struct.pack("<IQ", gt, off)
        off += (nbytes + 31) // 32 * 32
        total = off
    out += bytes(-len(out) % 32)
    return out + bytes(total if data_bytes is None else data_bytes)


def llama_gguf(name="tiny", extra_kvs=(), tensor_names=None, **kw):
    kvs = [("general.architecture", GGUF_STRING, "llama"),
           ("general.name", GGUF_STRING, name),
           ("llama.block_count", GGUF_U32, 1),
           ("llama.context_length", GGUF_U32, 4096),
           ("llama.embedding_length", GGUF_U32, 8),
           ("llama.feed_forward_length", GGUF_U32, 16),
           ("llama.attention.head_count", GGUF_U32, 2),
           ("llama.attention.head_count_kv", GGUF_U32, 1)]
    kvs += list(extra_kvs)
    names = tensor_names or ["token_embd.weight", "blk.0.attn_q.weight",
                             "blk.0.attn_k.weight", "output_norm.weight"]
    shapes = [[8, 16], [8, 8], [8, 4], [8]]
    tensors = [(n, 0, shapes[i % 4], 4 * math.prod(shapes[i % 4]))
               for i, n in enumerate(names)]
    return gguf(kvs, tensors, **kw)


# ---- the seeds ------------------------------------------------------------

def hf(extra=(), config=LLAMA_CONFIG, weights=None, target=False):
    files = [("config.json", config),
             ((">" if target else "") + "model.safetensors",
              weights or safetensors(LLAMA_TENSORS, {"format": "pt"}))]
    return files + list(extra)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    seeds = {}

    # Input forms.
    seeds["hf-llama"] = hf([
        ("tokenizer_config.json", tokenizer_config(LLAMA3_TEMPLATE)),
        ("generation_config.json", b'{"bos_token_id": 1, "eos_token_id": 2}'),
        ("special_tokens_map.json", b'{"bos_token": "<|begin_of_text|>"}')])
    seeds["hf-llama-file-given"] = hf(target=True)
    half = len(LLAMA_TENSORS) // 2
    s1 = safetensors(LLAMA_TENSORS[:half])
    s2 = safetensors(LLAMA_TENSORS[half:])
    index = {"metadata": {"total_size": sum(t[3] for t in LLAMA_TENSORS)},
             "weight_map": {t[0]: ("model-00001-of-00002.safetensors"
                                   if i < half else
                                   "model-00002-of-00002.safetensors")
                            for i, t in enumerate(LLAMA_TENSORS)}}
    sharded = [("config.json", LLAMA_CONFIG),
               ("model.safetensors.index.json",
                json.dumps(index, indent=1).encode()),
               ("model-00001-of-00002.safetensors", s1),
               ("model-00002-of-00002.safetensors", s2)]
    seeds["hf-sharded"] = sharded
    seeds["hf-sharded-missing-shard"] = sharded[:3]
    seeds["gguf-folder"] = [("tiny-Q8_0.gguf", llama_gguf()),
                            ("tiny-F32.gguf", llama_gguf("tiny f32")),
                            ("mmproj-tiny-f16.gguf", seed("gguf/header-only.gguf"))]
    seeds["gguf-corpus-moe"] = [(">model.gguf", seed("gguf/moe-mtp-kquants.gguf"))]
    seeds["gguf-split"] = [
        ("tiny-00001-of-00002.gguf", llama_gguf(extra_kvs=[
            ("split.no", GGUF_U32, 0), ("split.count", GGUF_U32, 2),
            ("split.tensors.count", GGUF_U32, 4)])),
        ("tiny-00002-of-00002.gguf", seed("gguf/split-part.gguf"))]
    snap = "models--org--tiny/snapshots/0123456789abcdef0123456789abcdef01234567/"
    seeds["hf-cache-repo"] = [
        ("@models--org--tiny", b""),
        ("models--org--tiny/refs/main",
         b"0123456789abcdef0123456789abcdef01234567"),
        (snap + "config.json", LLAMA_CONFIG),
        (snap + "model.safetensors", safetensors(LLAMA_TENSORS))]
    seeds["archive-tar"] = [(">model.tar", seed("archive/sharded.tar"))]
    seeds["archive-tar-gz"] = [(">model.tar.gz", seed("archive/sharded.tar.gz"))]
    seeds["archive-zip"] = [(">model.zip", seed("archive/sharded.zip"))]
    seeds["archive-llamafile"] = [(">model.llamafile",
                                   seed("archive/clean.llamafile"))]
    seeds["archive-hostile-tar"] = [(">model.tar", seed("archive/hostile.tar"))]
    seeds["pytorch-legacy"] = [(">pytorch_model.bin", seed("pytorch/legacy-head.pt"))]
    seeds["pytorch-pickle-global"] = [
        ("config.json", LLAMA_CONFIG),
        ("pytorch_model.bin", seed("pytorch/global-proto0.pkl"))]

    # Hostile folders (issue 11).
    seeds["hostile-duplicate-chat-template"] = hf([
        ("tokenizer_config.json",
         b'{"chat_template": "{{ messages[0][\'content\'] }}",'
         b' "bos_token": "<s>",'
         b' "chat_template": "{{ cycler.__init__.__globals__ }}"}')])
    seeds["hostile-nul-in-jinja"] = hf([
        ("chat_template.jinja", b"{{ 'a' }}\x00{{ x.__class__ }}")])
    seeds["hostile-escaped-nul-in-json"] = hf([
        ("tokenizer_config.json",
         b'{"chat_template": "{{ \'a\' }}\\u0000{{ x.__class__ }}"}')])
    seeds["hostile-template-files"] = hf([
        ("chat_template.json",
         b'{"chat_template": "{{ x|attr(\'__cla\' ~ \'ss__\') }}"}'),
        ("processor_config.json",
         b'{"processor_class": "P", "chat_template":'
         b' "{{ x[\'__glo\' ~ \'bals__\'] }}"}'),
        ("additional_chat_templates/tool_use.jinja",
         b"{{ lipsum.__globals__ }}"),
        ("additional_chat_templates/default.jinja", b"{{ messages }}")])
    redos = json.loads(LLAMA_CONFIG)
    redos["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "float-quantized",
        "ignore": ["lm_head", "re:((a{0,1000}){0,1000})"],
        "config_groups": {"group_0": {"targets": ["Linear"],
                                      "weights": {"num_bits": 8,
                                                  "type": "float"}}}}
    seeds["hostile-redos-ignore"] = hf(config=json.dumps(redos).encode())
    seeds["hostile-fifo-shard"] = sharded[:3] + [
        ("!model-00002-of-00002.safetensors", b"")]
    seeds["hostile-swapped-side-file"] = hf([("!!tokenizer_config.json", b"")])
    seeds["hostile-fifo-config"] = [("!config.json", b""),
                                    ("model.safetensors",
                                     safetensors(LLAMA_TENSORS))]
    seeds["hostile-fifo-split-part"] = [
        ("tiny-00001-of-00002.gguf", llama_gguf(extra_kvs=[
            ("split.no", GGUF_U32, 0), ("split.count", GGUF_U32, 2)])),
        ("!tiny-00002-of-00002.gguf", b"")]
    inj = [t for t in LLAMA_TENSORS]
    inj[1] = ("\x1b]52;c;aGVsbG8=\x07\x1b[2J", "BF16", [8], 16)
    inj[6] = ("::error file=x::pwned\u202e\u0085##[command]", "BF16", [8], 16)
    seeds["hostile-terminal-injection"] = hf(
        weights=safetensors(inj, {"format": "pt",
                                  "note": "\x1b]0;title\x07::add-mask::x"}))
    seeds["hostile-gguf-injection"] = [
        ("\x1b[31m::warning::evil.gguf",
         llama_gguf("\x1b]52;c;aGk=\x07\n::error::x\u202egnp.exe",
                    tensor_names=["token_embd.weight", "\x9b2J\x1b[H",
                                  "##vso[task.setvariable]x",
                                  "output_norm.weight"]))]
    seeds["hostile-findings-flood"] = [(">flood.gguf", llama_gguf(
        extra_kvs=[("tokenizer.ggml.flags", GGUF_ARRAY,
                    (GGUF_BOOL, [2] * 10000)),
                   ("tokenizer.chat_template", GGUF_STRING,
                    "{{ cycler.__init__.__globals__.os.popen('id') }}")],
        data_bytes=64))]
    seeds["hostile-gguf-template-payload"] = [(">model.gguf", llama_gguf(
        extra_kvs=[("tokenizer.chat_template", GGUF_STRING,
                    "{{ ()['XXclassXX'|replace('X','_')] }}"),
                   ("tokenizer.chat_template.tool_use", GGUF_STRING,
                    "{{ x['%c%cclass%c%c' % (95,95,95,95)] }}")]))]
    seeds["hostile-index-traversal"] = [
        ("config.json", LLAMA_CONFIG),
        ("model.safetensors.index.json",
         b'{"weight_map": {"a": "../../etc/passwd", '
         b'"b": "/abs.safetensors", "c": "sub/x.safetensors"}}'),
        ("sub/x.safetensors", safetensors(LLAMA_TENSORS[:2]))]
    seeds["hostile-empty-and-lfs"] = [
        ("model.safetensors",
         b"version https://git-lfs.github.com/spec/v1\n"
         b"oid sha256:" + b"0" * 64 + b"\nsize 123456\n"),
        ("config.json", b"")]
    seeds["junk-before-first-mark"] = [("config.json", LLAMA_CONFIG)]

    for name, files in sorted(seeds.items()):
        data = frame(files)
        if name == "junk-before-first-mark":
            data = b"not a mark\x00\xff\n" + data
        assert len(data) <= 16384, (name, len(data))
        with open(os.path.join(OUT, name + ".qaf"), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} seeds in {OUT}")


if __name__ == "__main__":
    main()
