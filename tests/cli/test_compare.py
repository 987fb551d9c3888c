# SPDX-License-Identifier: MIT
"""`quantaudit compare QUANT SOURCE` on real files, against numbers
computed here independently (gguf-py's GGUFReader and dequantizer, the
safetensors library, numpy in float64).

1. llama-bf16.gguf (llama.cpp's converter) against hf/llama, the
   checkpoint it was converted from: every tensor equal, 0 error, and
   attn_q / attn_k only because the converter's row permutation
   (convert_hf_to_gguf.py LlamaModel.permute) is undone.
2. llama-q8_0.gguf against hf/llama: each tensor's relative RMS error,
   max abs error and cosine equal to numpy's on gguf-py's dequantization
   of the same bytes, permuted back as the converter's code says.
3. Ranking: llama-bf16 requantized by gguf-py to Q8_0, Q5_0 and Q4_0,
   each compared with hf/llama: Q8_0 < Q5_0 < Q4_0 for the model and for
   every 2-D tensor; and llama-quantize's tiny-llama e64 quants against
   its Q8_0: Q4_K_M < Q2_K.
4. A planted bad block (one Q8_0 block's fp16 scale multiplied by 64 in
   a copy of llama-q8_0.gguf) is flagged, on that tensor only, and the
   block named; --max-rel-error fails a run above it and passes below.

Usage: test_compare.py QUANTAUDIT
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from gguf import GGMLQuantizationType as T, GGUFReader, GGUFWriter, quants
    from gguf.constants import GGUFValueType
    from safetensors.numpy import load_file
except ImportError as e:  # pragma: no cover
    print("SKIP: gguf-py, numpy and safetensors are needed: %s" % e)
    sys.exit(77)

QA = sys.argv[1]
CORPUS = os.environ.get("QA_CORPUS", "")
if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "hf", "llama")):
    print("SKIP: the corpus is not here (QA_CORPUS)")
    sys.exit(77)
HF = os.path.join(CORPUS, "hf", "llama")
BF16 = os.path.join(CORPUS, "gguf", "llama-bf16.gguf")
Q8 = os.path.join(CORPUS, "gguf", "llama-q8_0.gguf")
TINY = os.path.join(CORPUS, "tiny-llama")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def compare(quant, source, *extra):
    r = subprocess.run([QA, "compare", quant, source, "-f", "json", "-j", "2",
                        *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, check=False)
    if r.returncode not in (0, 1):
        raise SystemExit("compare exited %d: %s" % (r.returncode, r.stderr))
    rep = json.loads(r.stdout)
    validate(rep)
    return r.returncode, rep


def validate(report):
    """Against docs/quantaudit-1.schema.json $defs.compareReport."""
    try:
        import jsonschema
    except ImportError:
        return
    root = os.environ.get("QA_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
    with open(os.path.join(root, "docs", "quantaudit-1.schema.json")) as f:
        schema = json.load(f)
    sub = dict(schema["$defs"]["compareReport"])
    sub["$defs"] = schema["$defs"]
    errors = list(jsonschema.Draft202012Validator(sub).iter_errors(report))
    check(not errors, "schema: %s" % (errors[0].message if errors else ""))


def by_name(report):
    return {t["name"]: t for t in report["tensors"]}


# --- independent truth -------------------------------------------------

def config():
    with open(os.path.join(HF, "config.json")) as f:
        return json.load(f)


def hf_name(gguf_name):
    """The checkpoint tensor a GGUF llama tensor was converted from
    (llama.cpp gguf-py/gguf/tensor_mapping.py, the llama rows)."""
    fixed = {"token_embd.weight": "model.embed_tokens.weight",
             "output_norm.weight": "model.norm.weight",
             "output.weight": "lm_head.weight"}
    if gguf_name in fixed:
        return fixed[gguf_name]
    _, layer, part, _ = gguf_name.split(".")
    hf = {"attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
          "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj",
          "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
          "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm",
          "ffn_norm": "post_attention_layernorm"}[part]
    return "model.layers.%s.%s.weight" % (layer, hf)


def permute(w, n_head, n_head_kv=None):
    # convert_hf_to_gguf.py LlamaModel.permute
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def source_tensors():
    import torch  # bf16 safetensors: numpy has no bfloat16
    from safetensors.torch import load_file as load_torch
    cfg = config()
    st = load_torch(os.path.join(HF, "model.safetensors"))
    out = {}
    for name, t in st.items():
        w = t.to(torch.float32).numpy()
        if name.endswith("q_proj.weight"):
            w = permute(w, cfg["num_attention_heads"], cfg["num_attention_heads"])
        elif name.endswith("k_proj.weight"):
            w = permute(w, cfg["num_attention_heads"], cfg["num_key_value_heads"])
        out[name] = w
    if "lm_head.weight" not in out:
        out["lm_head.weight"] = out["model.embed_tokens.weight"]
    return out


def gguf_tensors(path):
    r = GGUFReader(path)
    out = {}
    for t in r.tensors:
        out[t.name] = quants.dequantize(t.data, t.tensor_type).reshape(
            [int(x) for x in reversed(t.shape)])
    return out


def metrics(q, s):
    q = q.astype(np.float64).ravel()
    s = s.astype(np.float64).ravel()
    e = q - s
    rel = np.sqrt((e * e).sum() / (s * s).sum()) if (s * s).sum() > 0 else 0.0
    cos = (q @ s) / np.sqrt((q @ q) * (s @ s)) if (q @ q) > 0 else 1.0
    return rel, np.abs(e).max(), cos


def close(a, b, tol=1e-5):  # float32 sums within a block (docs/compare.md)
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-30)


# --- 1. bf16: zero error, Q/K order undone -----------------------------

rc, rep = compare(BF16, HF)
check(rc == 0, "bf16 vs source: exit %d" % rc)
check(rep["not_compared"] == 0 and rep["compared"] == len(rep["tensors"]),
      "bf16: every tensor compared")
for t in rep["tensors"]:
    check(t["rel_rms"] == 0 and t["max_abs"] == 0, "bf16 %s: zero error (%s)" % (t["name"], t.get("rel_rms")))
    is_qk = ".attn_q." in t["name"] or ".attn_k." in t["name"]
    check(t["qk_permutation_undone"] == is_qk, "bf16 %s: permutation flag" % t["name"])

# --- 2. q8_0: the numbers, independently -------------------------------

src = source_tensors()
rc, rep = compare(Q8, HF)
check(rc == 0, "q8_0 vs source: exit %d (flagged %d)" % (rc, rep["flagged"]))
mine = gguf_tensors(Q8)
for name, t in by_name(rep).items():
    rel, mx, cos = metrics(mine[name], src[hf_name(name)])
    check(close(t["rel_rms"], rel), "q8_0 %s rel_rms %r, numpy %r" % (name, t["rel_rms"], rel))
    check(close(t["max_abs"], mx), "q8_0 %s max_abs %r, numpy %r" % (name, t["max_abs"], mx))
    check(close(t["cosine"], cos), "q8_0 %s cosine %r, numpy %r" % (name, t["cosine"], cos))
    check(t["source_name"] == hf_name(name) or name == "output.weight",
          "q8_0 %s paired with %s" % (name, t["source_name"]))

# --- 3. ranking ----------------------------------------------------------

tmp = tempfile.mkdtemp(prefix="qa-compare-")


def requantize(path, qtype, out):
    r = GGUFReader(path)
    w = GGUFWriter(out, arch=str(r.fields["general.architecture"].contents()))
    for f in r.fields.values():
        if f.name.startswith("GGUF.") or f.name in ("general.architecture",
                                                    "general.alignment"):
            continue
        sub = f.types[-1] if f.types[0] == GGUFValueType.ARRAY else None
        w.add_key_value(f.name, f.contents(), f.types[0], sub_type=sub)
    for t in r.tensors:
        data = quants.dequantize(t.data, t.tensor_type)
        if len(t.shape) >= 2:
            w.add_tensor(t.name, quants.quantize(data, qtype), raw_dtype=qtype)
        else:
            w.add_tensor(t.name, data.astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


results = {}
for qtype in (T.Q8_0, T.Q5_0, T.Q4_0):
    out = os.path.join(tmp, "llama-%s.gguf" % qtype.name)
    requantize(BF16, qtype, out)
    rc, rep = compare(out, HF)
    check(rep["not_compared"] == 0, "%s: every tensor compared" % qtype.name)
    results[qtype.name] = rep
print("model rel_rms: " + ", ".join("%s %.4g" % (k, v["rel_rms"]) for k, v in results.items()))
check(results["Q8_0"]["rel_rms"] < results["Q5_0"]["rel_rms"] < results["Q4_0"]["rel_rms"],
      "model error ranks Q8_0 < Q5_0 < Q4_0")
t8, t5, t4 = (by_name(results[k]) for k in ("Q8_0", "Q5_0", "Q4_0"))
for name, t in t8.items():
    if t["type"] == "Q8_0":
        check(t["rel_rms"] < t5[name]["rel_rms"] < t4[name]["rel_rms"],
              "%s ranks Q8_0 < Q5_0 < Q4_0" % name)
tiny = {}
for label in ("Q4_K_M", "Q2_K"):
    rc, rep = compare(os.path.join(TINY, "tiny-llama-e64-%s.gguf" % label),
                      os.path.join(TINY, "tiny-llama-e64-Q8_0.gguf"))
    check(rep["not_compared"] == 0, "tiny %s: every tensor compared" % label)
    tiny[label] = rep["rel_rms"]
print("tiny-llama against its Q8_0: %r" % tiny)
check(tiny["Q4_K_M"] < tiny["Q2_K"], "tiny-llama ranks Q4_K_M < Q2_K")

# --- 4. a planted bad block, and the threshold ---------------------------

bad = os.path.join(tmp, "llama-q8_0-bad-block.gguf")
shutil.copyfile(Q8, bad)
os.chmod(bad, 0o644)
target, block = "blk.1.ffn_up.weight", 37
r = GGUFReader(Q8)
t = next(x for x in r.tensors if x.name == target)
assert t.tensor_type == T.Q8_0
off = int(t.data_offset) + block * 34
with open(bad, "r+b") as f:
    f.seek(off)
    d = np.frombuffer(f.read(2), dtype=np.float16)[0]
    f.seek(off)
    f.write(np.float16(float(d) * 64).tobytes())
rc, rep = compare(bad, HF)
flagged = [x["name"] for x in rep["tensors"] if x["flagged"]]
check(rc == 1, "bad block: exit %d" % rc)
check(flagged == [target], "bad block: flagged %r" % flagged)
check(by_name(rep)[target]["rules"] == ["QA2202"], "bad block: QA2202")
check(by_name(rep)[target]["worst_block"] == block,
      "bad block: block %r named" % by_name(rep)[target]["worst_block"])
text = subprocess.run([QA, "compare", bad, HF], stdout=subprocess.PIPE,
                      text=True, check=False).stdout
check(any(line.startswith(target) and "FLAGGED" in line and "block %d" % block in line
          for line in text.splitlines()), "text report names the bad block")

# A whole tensor out of line: every Q8_0 block scale of one tensor times 8,
# so each of its blocks is as bad as the others (no block stands out) but
# its error, about 7 x |x| / |x| = 7, is far above 4 x the median of the
# other Q8_0 tensors (each about 5e-3): flagged by the type's median, the
# only tensor so flagged.
whole = os.path.join(tmp, "llama-q8_0-scaled-tensor.gguf")
shutil.copyfile(Q8, whole)
os.chmod(whole, 0o644)
wt = next(x for x in r.tensors if x.name == "blk.0.attn_output.weight")
assert wt.tensor_type == T.Q8_0
with open(whole, "r+b") as f:
    for b in range(int(wt.n_elements) // 32):
        f.seek(int(wt.data_offset) + b * 34)
        d = np.frombuffer(f.read(2), dtype=np.float16)[0]
        f.seek(int(wt.data_offset) + b * 34)
        f.write(np.float16(float(d) * 8).tobytes())
rc, rep = compare(whole, HF)
got = [(x["name"], x.get("flag_why")) for x in rep["tensors"] if x["flagged"]]
check(rc == 1 and [g[0] for g in got] == ["blk.0.attn_output.weight"],
      "scaled tensor: exit %d, flagged %r" % (rc, got))
wrow = by_name(rep)["blk.0.attn_output.weight"]
check(6.5 < wrow["rel_rms"] < 7.5, "scaled tensor: rel_rms %r is about 7" % wrow["rel_rms"])
others = sorted(x["rel_rms"] for x in rep["tensors"]
                if x["name"] != "blk.0.attn_output.weight" and x["type"] == "Q8_0"
                and x["rel_rms"] > 0)
check(len(others) >= 3 and wrow["rel_rms"] > 4 * others[len(others) // 2],
      "scaled tensor: above 4 x the median of the other Q8_0 tensors")

# the Markdown report (a PR comment) says the same as the JSON one
md = subprocess.run([QA, "compare", bad, HF, "-f", "markdown"],
                    stdout=subprocess.PIPE, text=True, check=False).stdout
rc, rep = compare(bad, HF)
row = [l for l in md.splitlines()
       if l.startswith("| %s |" % target.replace("_", "\\_"))]
check(len(row) == 1 and "flagged (QA2202)" in row[0] and
      "worst block %d" % block in row[0], "markdown names the bad block: %r" % row)
check("| whole-model relative RMS error | %.3e |" % rep["rel_rms"] in md,
      "markdown's whole-model error is the JSON's")
check("| tensors | %d compared, %d not compared, %d flagged |" %
      (rep["compared"], rep["not_compared"], len(flagged)) in md,
      "markdown's counts are the JSON's")
md = subprocess.run([QA, "compare", Q8, HF, "-f", "markdown", "--max-rel-error",
                     "0.001"], stdout=subprocess.PIPE, text=True,
                    check=False).stdout
rc, rep = compare(Q8, HF, "--max-rel-error", "0.001")
over_rows = sum("over --max-rel-error" in l for l in md.splitlines())
more = [int(l.split()[0]) for l in md.splitlines() if l.endswith("more; the JSON report has every tensor.")]
check(over_rows + (more[0] if more else 0) == rep["over_threshold"] and over_rows <= 20,
      "markdown lists %d over the threshold (+%r more), JSON %d" %
      (over_rows, more, rep["over_threshold"]))

rc, rep = compare(Q8, HF, "--max-rel-error", "0.001")
check(rc == 1 and rep["over_threshold"] > 0, "--max-rel-error 0.001: exit %d" % rc)
check(all(("QA2201" in t["rules"]) == (t["rel_rms"] > 0.001) for t in rep["tensors"]),
      "--max-rel-error 0.001: QA2201 on exactly the tensors above it")
rc, rep = compare(Q8, HF, "--max-rel-error", "0.05")
check(rc == 0 and rep["over_threshold"] == 0, "--max-rel-error 0.05: exit %d" % rc)

# --- 5. identity: same model, other bytes -------------------------------

rc, a = compare(BF16, HF)
rc, b = compare(HF, BF16)
check(a["identity"]["same_content"] is True, "bf16 GGUF and its checkpoint: same content")
check(a["identity"]["quant"] == a["identity"]["source"] == b["identity"]["quant"],
      "the checkpoint's fingerprint is the same from either side")
rc, q8 = compare(Q8, HF)
check(q8["identity"]["same_content"] is False, "q8_0 and the checkpoint: other content")
check(q8["identity"]["source"] == a["identity"]["source"], "the checkpoint's fingerprint again")

# The split Q4_0 set (llama-gguf-split) merged back by gguf-py into one
# file, tensors in reverse order: other bytes, the same model.
parts = sorted(os.path.join(TINY, "split", p) for p in os.listdir(os.path.join(TINY, "split")))
merged = os.path.join(tmp, "tiny-llama-Q4_0-merged.gguf")
first = GGUFReader(parts[0])
w = GGUFWriter(merged, arch=str(first.fields["general.architecture"].contents()))
for f in first.fields.values():
    if f.name.startswith(("GGUF.", "split.")) or f.name in ("general.architecture", "general.alignment"):
        continue
    sub = f.types[-1] if f.types[0] == GGUFValueType.ARRAY else None
    w.add_key_value(f.name, f.contents(), f.types[0], sub_type=sub)
tensors = [t for p in parts for t in GGUFReader(p).tensors]
for t in reversed(tensors):
    w.add_tensor(t.name, np.array(t.data), raw_dtype=t.tensor_type)
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
rc, m = compare(merged, parts[0])
check(rc == 0 and m["rel_rms"] == 0 and m["identity"]["same_content"] is True,
      "split set and its merge: same content (exit %d, rel %r)" % (rc, m["rel_rms"]))
rc, other = compare(os.path.join(TINY, "tiny-llama-Q4_K_M.gguf"), parts[0])
check(other["identity"]["same_content"] is False and
      other["identity"]["source"] == m["identity"]["source"],
      "Q4_K_M against the Q4_0 set: other content, the set's fingerprint unchanged")

shutil.rmtree(tmp)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
