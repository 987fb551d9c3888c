#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`quantaudit diff` (src/compare/diff.c, docs/diff.md).

Independent truth:
- two quant levels of one model (the corpus's tiny-llama written by
  llama-quantize): which tensors changed type comes from the corpus's
  expected/gguf.json (llama.cpp's gguf-py), and so does general.file_type;
- a Hugging Face checkpoint against the GGUF llama.cpp's converter made of
  it: tensors are paired through roles, checked against the converter's
  own name map written out here (convert_hf_to_gguf.py / gguf-py
  tensor_mapping.py for llama), and with --content the tensors whose bytes
  differ must be exactly those whose bytes Python finds different at the
  offsets of expected/*.json (the converter permutes q_proj and k_proj
  for rotary embeddings, LlamaModel.permute, and stores norms as F32);
- the same checkpoint re-sharded into one file by a Python safetensors
  writer here: no difference with --content; one tensor renamed in it: a
  rename.
Fixtures always (self-diff, usage); the corpus when present.
"""
import json
import os
import re
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, env_path, run  # noqa: E402

QA = None


def diff_json(a, b, *extra):
    code, out, err = run(QA, ["diff", "--format", "json", a, b] + list(extra))
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        return code, None, err + out[:300]


# llama.cpp's names for a llama checkpoint's tensors (gguf-py
# tensor_mapping.py, MODEL_ARCH.LLAMA)
LLAMA_MAP = [
    (r"model\.embed_tokens\.weight", "token_embd.weight"),
    (r"lm_head\.weight", "output.weight"),
    (r"model\.norm\.weight", "output_norm.weight"),
    (r"model\.layers\.(\d+)\.input_layernorm\.weight", "blk.{}.attn_norm.weight"),
    (r"model\.layers\.(\d+)\.post_attention_layernorm\.weight", "blk.{}.ffn_norm.weight"),
    (r"model\.layers\.(\d+)\.self_attn\.q_proj\.weight", "blk.{}.attn_q.weight"),
    (r"model\.layers\.(\d+)\.self_attn\.k_proj\.weight", "blk.{}.attn_k.weight"),
    (r"model\.layers\.(\d+)\.self_attn\.v_proj\.weight", "blk.{}.attn_v.weight"),
    (r"model\.layers\.(\d+)\.self_attn\.o_proj\.weight", "blk.{}.attn_output.weight"),
    (r"model\.layers\.(\d+)\.mlp\.gate_proj\.weight", "blk.{}.ffn_gate.weight"),
    (r"model\.layers\.(\d+)\.mlp\.up_proj\.weight", "blk.{}.ffn_up.weight"),
    (r"model\.layers\.(\d+)\.mlp\.down_proj\.weight", "blk.{}.ffn_down.weight"),
]


def gguf_name(hf):
    for pat, out in LLAMA_MAP:
        m = re.fullmatch(pat, hf)
        if m:
            return out.format(*m.groups())
    return None


def quant_levels(c, root):
    exp = json.load(open(os.path.join(root, "expected", "gguf.json")))
    names = ["tiny-llama-e64-Q8_0", "tiny-llama-e64-Q4_K_M",
             "tiny-llama-e64-Q2_K", "tiny-llama-e64-IQ4_NL"]
    for x, y in zip(names, names[1:]):
        ea, eb = (exp[f"tiny-llama/{n}.gguf"] for n in (x, y))
        ta = {t["name"]: t for t in ea["tensors"]}
        tb = {t["name"]: t for t in eb["tensors"]}
        want = {n for n in ta if n in tb and ta[n]["type"] != tb[n]["type"]}
        a, b = (os.path.join(root, "tiny-llama", f"{n}.gguf") for n in (x, y))
        code, doc, err = diff_json(a, b)
        if not c.check(doc is not None, f"{x} vs {y}: {err[:200]}"):
            continue
        got = {t["a"]["name"] for t in doc["tensors"] if t["kind"] == "retyped"}
        types_ok = all(t["a"]["dtype"] == ta[t["a"]["name"]]["type"] and
                       t["b"]["dtype"] == tb[t["a"]["name"]]["type"]
                       for t in doc["tensors"] if t["kind"] == "retyped")
        c.check(code == 1 and got == want and types_ok and
                doc["paired_by"] == "name" and
                doc["counts"]["unchanged"] == len(ta) - len(want) and
                doc["counts"]["added"] == doc["counts"]["removed"] == 0,
                f"{x} vs {y}: retyped {sorted(got ^ want)[:4]} differ from "
                f"gguf-py, counts {doc['counts']}")
        kv = {m["name"]: (m["a"], m["b"]) for m in doc["metadata"]}
        fa = ea["kv"]["general.file_type"]
        fb = eb["kv"]["general.file_type"]
        fa = fa["value"] if isinstance(fa, dict) else fa
        fb = fb["value"] if isinstance(fb, dict) else fb
        c.check(kv.get("general.file_type") == (str(fa), str(fb)),
                f"{x} vs {y}: general.file_type {kv.get('general.file_type')}"
                f", gguf-py {fa} {fb}")
        # Markdown names the precision change of the token embedding
        code, out, err = run(QA, ["diff", "--format", "markdown", a, b])
        emb_a = ta["token_embd.weight"]["type"]
        emb_b = tb["token_embd.weight"]["type"]
        if emb_a != emb_b:
            c.check(f"`embed` {emb_a} → {emb_b}" in out,
                    f"{x} vs {y}: markdown lacks the embed change:\n{out[:400]}")


def checkpoint_vs_gguf(c, root):
    exp_g = json.load(open(os.path.join(root, "expected", "gguf.json")))
    exp_s = json.load(open(os.path.join(root, "expected", "safetensors.json")))
    hf_dir = os.path.join(root, "hf", "llama")
    gg = os.path.join(root, "gguf", "llama-bf16.gguf")
    code, doc, err = diff_json(hf_dir, gg, "--content")
    if not c.check(doc is not None, f"hf/llama vs gguf: {err[:200]}"):
        return
    st = {t["name"]: t for t in exp_s["hf/llama/model.safetensors"]["tensors"]}
    gt = {t["name"]: t for t in exp_g["gguf/llama-bf16.gguf"]["tensors"]}
    st_bytes = open(os.path.join(hf_dir, "model.safetensors"), "rb").read()
    gg_bytes = open(gg, "rb").read()
    # every pair the diff names follows the converter's map
    wrong = [(t["a"]["name"], t["b"]["name"]) for t in doc["tensors"]
             if t["a"] and t["b"] and gguf_name(t["a"]["name"]) != t["b"]["name"]]
    c.check(doc["paired_by"] == "role" and not wrong and
            doc["counts"]["added"] == doc["counts"]["removed"] == 0 and
            doc["counts"]["paired"] == len(st) == len(gt),
            f"hf vs gguf: pairs off the converter's map {wrong[:3]}, "
            f"counts {doc['counts']}")
    # changed and retyped exactly where the bytes and types say
    want_retyped, want_changed = set(), set()
    for hn, t in st.items():
        gn = gguf_name(hn)
        g = gt[gn]
        if g["type"] != t["dtype"]:
            want_retyped.add(hn)
            continue
        a = st_bytes[t["offset"]:t["offset"] + t["bytes"]]
        b = gg_bytes[g["offset"]:g["offset"] + g["bytes"]]
        if a != b:
            want_changed.add(hn)
    got_retyped = {t["a"]["name"] for t in doc["tensors"]
                   if t["kind"] == "retyped"}
    got_changed = {t["a"]["name"] for t in doc["tensors"]
                   if t["kind"] == "changed"}
    c.check(got_retyped == want_retyped and got_changed == want_changed and
            want_changed and
            all(re.search(r"(q|k)_proj", n) for n in want_changed),
            f"hf vs gguf --content: retyped {sorted(got_retyped ^ want_retyped)[:3]}"
            f", changed {sorted(got_changed ^ want_changed)[:3]}")
    c.check(code == 1 and doc["differ"] is True, f"hf vs gguf: exit {code}")


def write_safetensors(path, tensors, meta=None):
    """A safetensors file by the published format: 8-byte little-endian
    header length, the JSON header padded with spaces, the data."""
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if meta:
        header["__metadata__"] = meta
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)


def read_safetensors(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        s, e = t["data_offsets"]
        out[name] = (t["dtype"], t["shape"], raw[8 + n + s:8 + n + e])
    return out


def resharded(c, root, tmp):
    src = os.path.join(root, "hf", "qwen3_moe")
    tensors = {}
    for f in sorted(os.listdir(src)):
        if f.endswith(".safetensors"):
            tensors.update(read_safetensors(os.path.join(src, f)))
    one = os.path.join(tmp, "qwen3_moe-one")
    os.makedirs(one)
    for f in ("config.json", "generation_config.json", "tokenizer.model"):
        open(os.path.join(one, f), "wb").write(
            open(os.path.join(src, f), "rb").read())
    # written in reverse order: other offsets, same tensors
    write_safetensors(os.path.join(one, "model.safetensors"),
                      dict(reversed(list(tensors.items()))), {"format": "pt"})
    code, doc, err = diff_json(src, one, "--content")
    c.check(code == 0 and doc and doc["tensors"] == [] and
            doc["counts"]["unchanged"] == len(tensors),
            f"qwen3_moe re-sharded: exit {code}, "
            f"{doc and doc['tensors'][:3]} {err[:200]}")
    c.check(doc and doc["config"] == [], f"re-sharded: config {doc and doc['config']}")
    # config.json edited: exactly the keys Python's own comparison finds
    cfg = json.load(open(os.path.join(src, "config.json")))
    cfg2 = json.loads(json.dumps(cfg))
    cfg2["max_position_embeddings"] = 131072
    cfg2.pop("tie_word_embeddings", None)
    cfg2["added_key"] = {"nested": [1, 2]}
    json.dump(cfg2, open(os.path.join(one, "config.json"), "w"), indent=2)

    def flat(x, pre=""):
        if isinstance(x, dict) and x:
            out = {}
            for k, v in x.items():
                out.update(flat(v, f"{pre}.{k}" if pre else k))
            return out
        return {pre: json.dumps(x, separators=(",", ":"))}
    fa, fb = flat(cfg), flat(cfg2)
    want = sorted(k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k))
    code, doc, err = diff_json(src, one)
    got = sorted(f["name"] for f in (doc or {}).get("config") or [])
    c.check(code == 1 and got == want, f"config.json keys: {got} != {want}")
    open(os.path.join(one, "config.json"), "wb").write(
        open(os.path.join(src, "config.json"), "rb").read())
    # one tensor renamed, one changed in place
    names = list(tensors)
    renamed = dict(tensors)
    dt, shape, raw = renamed.pop(names[0])
    renamed["model.renamed.weight"] = (dt, shape, raw)
    dt, shape, raw = renamed[names[1]]
    renamed[names[1]] = (dt, shape, bytes([raw[0] ^ 1]) + raw[1:])
    write_safetensors(os.path.join(one, "model.safetensors"), renamed,
                      {"format": "pt"})
    code, doc, err = diff_json(src, one, "--content")
    kinds = sorted((t["kind"], (t["a"] or t["b"])["name"])
                   for t in (doc or {}).get("tensors", []))
    c.check(code == 1 and kinds == sorted([("renamed", names[0]),
                                           ("changed", names[1])]),
            f"renamed and changed: exit {code}, {kinds}")
    # without --content neither is visible as such: a rename is a
    # removal and an addition, the changed bytes are unchanged
    code, doc, err = diff_json(src, one)
    kinds = sorted(t["kind"] for t in (doc or {}).get("tensors", []))
    c.check(code == 1 and kinds == ["added", "removed"],
            f"header-only diff of the rename: {kinds}")


GGUF_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8,
               12: 8}


def gguf_value_end(raw, at, vtype):
    """Offset after a GGUF value of vtype at `at` (docs/gguf.md)."""
    if vtype in GGUF_SCALAR:
        return at + GGUF_SCALAR[vtype]
    if vtype == 8:
        n = struct.unpack_from("<Q", raw, at)[0]
        return at + 8 + n
    if vtype == 9:
        etype, count = struct.unpack_from("<IQ", raw, at)
        at += 12
        if etype in GGUF_SCALAR:
            return at + count * GGUF_SCALAR[etype]
        for _ in range(count):
            at = gguf_value_end(raw, at, etype)
        return at
    raise ValueError(f"GGUF value type {vtype}")


def gguf_parse(raw):
    """(kvs as (key, raw bytes of the whole entry), tensor infos as
    (name, ne, type, offset), alignment, data start)."""
    n_t, n_kv = struct.unpack_from("<QQ", raw, 8)
    at, kvs, align = 24, [], 32
    for _ in range(n_kv):
        start = at
        n = struct.unpack_from("<Q", raw, at)[0]
        key = raw[at + 8:at + 8 + n].decode()
        vtype = struct.unpack_from("<I", raw, at + 8 + n)[0]
        at = gguf_value_end(raw, at + 12 + n, vtype)
        if key == "general.alignment":
            align = struct.unpack_from("<I", raw, at - 4)[0]
        kvs.append((key, raw[start:at]))
    infos = []
    for _ in range(n_t):
        n = struct.unpack_from("<Q", raw, at)[0]
        name = raw[at + 8:at + 8 + n].decode()
        at += 8 + n
        nd = struct.unpack_from("<I", raw, at)[0]
        ne = list(struct.unpack_from(f"<{nd}Q", raw, at + 4))
        at += 4 + 8 * nd
        ttype, off = struct.unpack_from("<IQ", raw, at)
        at += 12
        infos.append((name, ne, ttype, off))
    return kvs, infos, align, at + (-at % align)


def merge_split(parts, sizes, out):
    """One GGUF from a split set, as llama-gguf-split --merge would
    write it: part 1's keys but split.*, every part's tensors in order,
    data realigned. sizes: tensor name -> bytes (gguf-py's)."""
    kvs, infos, data = [], [], b""
    for i, p in enumerate(parts):
        raw = open(p, "rb").read()
        k, t, align, start = gguf_parse(raw)
        if i == 0:
            kvs = [(key, b) for key, b in k if not key.startswith("split.")]
        for name, ne, ttype, off in t:
            data += b"\0" * (-len(data) % 32)
            infos.append((name, ne, ttype, len(data)))
            data += raw[start + off:start + off + sizes[name]]
    head = b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(kvs))
    head += b"".join(b for _, b in kvs)
    for name, ne, ttype, off in infos:
        nb = name.encode()
        head += struct.pack("<Q", len(nb)) + nb + struct.pack("<I", len(ne))
        head += b"".join(struct.pack("<Q", n) for n in ne)
        head += struct.pack("<IQ", ttype, off)
    head += b"\0" * (-len(head) % 32)
    open(out, "wb").write(head + data)


def split_form(c, root, tmp):
    """A split set against the same model merged into one file."""
    exp = json.load(open(os.path.join(root, "expected", "gguf.json")))
    d = os.path.join(root, "tiny-llama", "split")
    parts = sorted(os.path.join(d, f) for f in os.listdir(d))
    sizes = {t["name"]: t["bytes"] for rel, e in exp.items()
             if "split/" in rel for t in e["tensors"]}
    merged = os.path.join(tmp, "tiny-llama-Q4_0.gguf")
    merge_split(parts, sizes, merged)
    code, doc, err = diff_json(parts[1], merged, "--content")
    c.check(code == 0 and doc and doc["tensors"] == [] and
            doc["metadata"] == [] and doc["paired_by"] == "name" and
            doc["counts"]["unchanged"] == len(sizes),
            f"split set against its merged form: exit {code}, "
            f"{doc and (doc['tensors'][:2], doc['metadata'][:3])} {err[:200]}")
    # one tensor's bytes changed in the merged file: named
    e1 = [t for t in gguf_parse(open(merged, "rb").read())[1]]
    name, _, _, off = e1[len(e1) // 2]
    start = gguf_parse(open(merged, "rb").read())[3]
    with open(merged, "r+b") as f:
        f.seek(start + off + 3)
        b = f.read(1)
        f.seek(start + off + 3)
        f.write(bytes([b[0] ^ 0x10]))
    code, doc, err = diff_json(parts[0], merged, "--content")
    got = [(t["kind"], t["a"]["name"]) for t in (doc or {}).get("tensors", [])]
    c.check(code == 1 and got == [("changed", name)],
            f"split set against a merged form with {name} changed: {got}")


def fixtures(c, fix):
    gg = os.path.join(fix, "gguf", "valid-llama-q8_0.gguf")
    code, doc, err = diff_json(gg, gg, "--content")
    c.check(code == 0 and doc and doc["differ"] is False and
            doc["tensors"] == [] and doc["metadata"] == [],
            f"self-diff: exit {code} {err[:200]}")
    code, out, err = run(QA, ["diff", gg])
    c.check(code == 2, f"diff with one model: exit {code}")
    code, out, err = run(QA, ["diff", "--format", "sarif", gg, gg])
    c.check(code == 2, f"diff --format sarif: exit {code}")
    code, out, err = run(QA, ["diff", gg, os.path.join(fix, "gguf",
                                                       "bad-magic.gguf")])
    c.check(code == 3, f"diff against an unreadable model: exit {code}")
    # both sized with --gpus
    code, doc, err = diff_json(gg, gg, "--gpus", "2x16G")
    c.check(doc and doc["a"].get("fit", {}).get("verdict") ==
            doc["b"].get("fit", {}).get("verdict") is not None,
            f"diff --gpus: {doc and doc['a']}")


def bias_vs_scales(c, tmp):
    """Role pairing keeps a bias with a bias: a GGUF with q/k/v biases (as
    llama.cpp's converter writes a Qwen2: F32 attn_q.bias) against a GPTQ
    checkpoint of the same layer (qweight, qzeros, scales, g_idx, bias;
    the AutoGPTQ layout). The scales are larger than the bias, and were
    paired with the GGUF's bias by size; the expected pairs are named
    here, by what each tensor is."""
    sys.path.insert(0, os.path.join(env_path("QA_SOURCE_ROOT"), "bench"))
    import synth
    e, ff, g = 256, 512, 128
    kvs, tens = synth.gguf_llama(n_layer=1, n_embd=e, n_ff=ff, n_head=4, n_kv=4,
                                 n_vocab=512, wtype="F16")
    tens += [(f"blk.0.attn_{x}.bias", [e], "F32") for x in "qkv"]
    gguf = synth.write_gguf(os.path.join(tmp, "qwen-bias.gguf"), kvs, tens)
    st = {}
    for p in ("q_proj", "k_proj", "v_proj", "o_proj"):
        base = f"model.layers.0.self_attn.{p}."
        st[base + "qweight"] = ("I32", [e // 8, e], bytes(e // 8 * e * 4))
        st[base + "qzeros"] = ("I32", [e // g, e // 8], bytes(e // g * e // 8 * 4))
        st[base + "scales"] = ("F16", [e // g, e], bytes(e // g * e * 2))
        st[base + "g_idx"] = ("I32", [e], bytes(e * 4))
        if p != "o_proj":
            st[base + "bias"] = ("F16", [e], bytes(e * 2))
    folder = os.path.join(tmp, "gptq")
    os.makedirs(folder)
    write_safetensors(os.path.join(folder, "model.safetensors"), st)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "llama", "architectures": ["LlamaForCausalLM"],
                   "hidden_size": e, "num_hidden_layers": 1, "num_attention_heads": 4,
                   "num_key_value_heads": 4, "intermediate_size": ff, "vocab_size": 512,
                   "quantization_config": {"quant_method": "gptq", "bits": 4,
                                           "group_size": g, "desc_act": True}}, f)
    code, doc, err = diff_json(gguf, folder)
    if not c.check(doc is not None and doc.get("paired_by") == "role",
                   f"bias vs scales: paired by role: {err[:300]}"):
        return
    pairs = {(t.get("a") or {}).get("name"): (t.get("b") or {}).get("name")
             for t in doc["tensors"] if t.get("a") and t.get("b")}
    added = {t["b"]["name"] for t in doc["tensors"] if t["kind"] == "added"}
    for x, p in (("q", "q_proj"), ("k", "k_proj"), ("v", "v_proj")):
        hf = f"model.layers.0.self_attn.{p}."
        c.check(pairs.get(f"blk.0.attn_{x}.bias") == hf + "bias",
                f"bias vs scales: blk.0.attn_{x}.bias paired with "
                f"{pairs.get(f'blk.0.attn_{x}.bias')}, not {hf}bias")
        c.check(pairs.get(f"blk.0.attn_{x}.weight") == hf + "qweight",
                f"bias vs scales: blk.0.attn_{x}.weight paired with "
                f"{pairs.get(f'blk.0.attn_{x}.weight')}")
        c.check({hf + "scales", hf + "qzeros", hf + "g_idx"} <= added,
                f"bias vs scales: {p}'s scales, zeros and g_idx added")


def main():
    global QA
    QA = sys.argv[1]
    fix = env_path("QA_FIXTURES")
    c = Checker()
    fixtures(c, fix)
    with tempfile.TemporaryDirectory() as tmp:
        bias_vs_scales(c, tmp)
    root = os.environ.get("QA_CORPUS", "")
    if os.path.isdir(os.path.join(root, "expected")):
        quant_levels(c, root)
        checkpoint_vs_gguf(c, root)
        with tempfile.TemporaryDirectory() as tmp:
            resharded(c, root, tmp)
            split_form(c, root, tmp)
    else:
        print(f"SKIP corpus: {root} absent")
        c.skipped += 1
    c.finish()


if __name__ == "__main__":
    main()
