#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fit TARGET --draft DRAFT (llama.cpp -md, src/fit/fit_extras.c).

The GGUFs are written here by gguf-py (llama.cpp's writer). The expected
values are worked by hand from llama.cpp's source (docs/fit.md
"Speculative pair"), not read back from quantaudit:

* draft KV, F16 by default (common/common.h l.340-341):
  cells * layers * (2 * E_kv + 2 * E_kv) bytes, cells = -c, or the
  draft's own trained context when -c is 0 (llama-context.cpp l.285);
* draft weights on the GPU: every tensor but token_embd (host,
  llama-model.cpp l.1334), F32 so no CUDA row padding, sizes multiples
  of 128;
* compatibility (common/speculative.cpp l.65-128): vocab type, BOS/EOS,
  |n_vocab difference| <= 128, token texts equal from id 5;
* tokens per pass (1 - 0.7^(n+1)) / (1 - 0.7) for n = 3 drafts.
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import gguf
    import gguf_fixtures as gf
except ImportError:
    sys.exit(77)

QA = sys.argv[1]


def model(path, layers, embd, ff, heads, vocab, ctx, tokens=None,
          bos=1, eos=2):
    w = gguf.GGUFWriter(path, "llama")
    gf.llama_keys(w, layers, embd, ff, heads, vocab, ctx)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens or [f"t{i}" for i in range(vocab)])
    w.add_bos_token_id(bos)
    w.add_eos_token_id(eos)
    z = lambda r, c: np.zeros((r, c), np.float32)
    w.add_tensor("token_embd.weight", z(vocab, embd))
    for b in range(layers):
        p = f"blk.{b}."
        w.add_tensor(p + "attn_norm.weight", np.ones(embd, np.float32))
        for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(p + n + ".weight", z(embd, embd))
        w.add_tensor(p + "ffn_norm.weight", np.ones(embd, np.float32))
        w.add_tensor(p + "ffn_gate.weight", z(ff, embd))
        w.add_tensor(p + "ffn_up.weight", z(ff, embd))
        w.add_tensor(p + "ffn_down.weight", z(embd, ff))
    w.add_tensor("output_norm.weight", np.ones(embd, np.float32))
    w.add_tensor("output.weight", z(vocab, embd))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def fit(*args):
    p = subprocess.run([QA, "fit", "--format", "json", *args],
                       capture_output=True, text=True)
    if not p.stdout.strip():
        raise SystemExit(f"no output ({p.returncode}): {p.stderr}")
    doc = json.loads(p.stdout)
    m = doc["inputs"][0]
    return p.returncode, m["fit"]


fails = []


def eq(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got!r}, want {want!r}")


d = tempfile.mkdtemp()
T = os.path.join(d, "target.gguf")
D = os.path.join(d, "draft.gguf")
# target: 4 layers, E 512, F 1024, 8 heads, vocab 256, trained ctx 8192
model(T, 4, 512, 1024, 8, 256, 8192)
# draft: 2 layers, E 256, F 512, 4 heads, same vocab, trained ctx 2048
model(D, 2, 256, 512, 4, 256, 2048)

# draft weights: per layer 2*256*4 + 4*256*256*4 + 3*512*256*4, output
# norm 256*4, output 256*256*4; token_embd (256*256*4) in host RAM
layer = 2 * 256 * 4 + 4 * 256 * 256 * 4 + 3 * 512 * 256 * 4
DRAFT_W = 2 * layer + 256 * 4 + 256 * 256 * 4
DRAFT_HOST = 256 * 256 * 4

rc_t, alone = fit(T, "--gpus", "16G", "--ctx", "4096")
rc, pair = fit(T, "--gpus", "16G", "--ctx", "4096", "--draft", D)
dr = pair.get("draft") or {}
eq("draft context (-c 4096)", dr.get("context"), 4096)
eq("draft kv type", dr.get("kv_type"), "f16")
# KV: 4096 cells * 2 layers * (256 * 2 + 256 * 2)
eq("draft kv bytes", dr["devices"][0]["kv_bytes"], 4096 * 2 * 1024)
eq("draft weights bytes", dr["devices"][0]["weights_bytes"], DRAFT_W)
eq("draft host bytes", dr.get("host_bytes"), DRAFT_HOST)
eq("draft outputs (-np 1)", dr.get("n_outputs_max"), 1)
# llama-server's target: -np (1 + 3) outputs, V * 4 * 4 bytes
eq("target outputs", dr.get("target_n_outputs_max"), 4)
eq("target output host", dr.get("target_output_host_bytes"), 256 * 4 * 4)
eq("compatible", dr.get("compatible"), True)
eq("tokens per pass", round(dr.get("tokens_per_pass", 0), 4),
   round((1 - 0.7 ** 4) / 0.3, 4))
a, p = alone["devices"][0], pair["devices"][0]
dd = dr["devices"][0]
for k in ("weights_bytes", "kv_bytes", "compute_bytes"):
    eq("pair " + k, p[k], a[k] + dd[k])
eq("pair free", p["free_bytes"], a["free_bytes"] - dd["weights_bytes"] -
   dd["kv_bytes"] - dd["recurrent_bytes"] - dd["compute_bytes"])
eq("pair host", pair["host_bytes"], alone["host_bytes"] + DRAFT_HOST)
eq("16G: no bandwidth, no bound", dr.get("decode_tokens_per_s_max"), None)
# On a GPU of known bandwidth: one pass = 3 draft steps + 1 target pass,
# each at its own batch-1 bound (the models fitted alone).
G = ("--gpus", "rtx-4090", "--ctx", "4096")
_, ta = fit(T, *G)
_, da = fit(D, *G)
_, pr = fit(T, *G, "--draft", D)
want = ((1 - 0.7 ** 4) / 0.3) / (1 / ta["decode_tokens_per_s_max"] +
                                 3 / da["decode_tokens_per_s_max"])
got = pr["draft"]["decode_tokens_per_s_max"]
if got is None or abs(got - want) > 1e-3 * want:
    fails.append(f"decode with draft: got {got}, want {want}")

# -c unset: the draft context is the draft's trained 2048
rc, pair = fit(T, "--gpus", "16G", "--draft", D)
eq("draft context (-c 0)", pair["draft"]["context"], 2048)
eq("draft kv (-c 0)", pair["draft"]["devices"][0]["kv_bytes"],
   2048 * 2 * 1024)
# --ctx-draft and --kv-draft q8_0: 1024 cells, q8_0 34 bytes per 32
rc, pair = fit(T, "--gpus", "16G", "--ctx", "4096", "--draft", D,
               "--ctx-draft", "1024", "--kv-draft", "q8_0")
eq("--ctx-draft", pair["draft"]["context"], 1024)
eq("--kv-draft q8_0 kv", pair["draft"]["devices"][0]["kv_bytes"],
   1024 * 2 * 2 * (256 // 32 * 34))

# Against a real llama-server -md run (llama.cpp d32676d7, CPU backend,
# tests/data/llamacpp-runs/md-pair): these two shapes, -c 2048, n_parallel
# auto = 4 with kv_unified. The log's buffer lines, in MiB.
import re  # noqa: E402
LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                   "llamacpp-runs", "md-pair", "server-md-c2048.log")
text = open(LOG).read().split("loading draft model", 1)
tgt_real = text[0].rsplit("loaded meta data", 1)[1]
drf_real = text[1]


def mib(part, what):
    m = re.search(r"CPU(?:_Mapped)? " + what + r" buffer size =\s*([0-9.]+)"
                  r" MiB", part)
    return float(m.group(1)) if m else None


TR = os.path.join(d, "target-real.gguf")
DR = os.path.join(d, "draft-real.gguf")
model(TR, 4, 512, 1024, 8, 512, 8192)
model(DR, 2, 256, 512, 4, 512, 2048)
rc, real = fit(TR, "--gpus", "none", "--ctx", "2048", "--parallel", "4",
               "--kv-unified", "--draft", DR)
M = 2 ** 20
dd = real["draft"]["devices"][0]
cpu = real["devices"][0]
eq("md-pair: draft weights (model buffer, token_embd included)",
   round((dd["weights_bytes"] + real["draft"]["host_bytes"]) / M, 2),
   mib(drf_real, "model"))
eq("md-pair: draft KV", round(dd["kv_bytes"] / M, 2), mib(drf_real, "KV"))
eq("md-pair: target KV", round((cpu["kv_bytes"] - dd["kv_bytes"]) / M, 2),
   mib(tgt_real, "KV"))
eq("md-pair: target weights",
   round((cpu["weights_bytes"] - dd["weights_bytes"] +
          real.get("host_bytes", 0) - real["draft"]["host_bytes"]) / M, 2),
   mib(tgt_real, "model"))
eq("md-pair: target compute",
   round((cpu["compute_bytes"] - dd["compute_bytes"]) / M, 2),
   mib(tgt_real, "compute"))
# the draft context's compute: 6.01 MiB logged, the closed form counts
# its inp_embd (0.50 MiB) too: within 10 %, over, never under
got = dd["compute_bytes"] / M
want = mib(drf_real, "compute")
if not (want <= got <= want * 1.10):
    fails.append(f"md-pair: draft compute {got:.2f} vs logged {want}")

# an MTP sidecar (the nextn block only) is named, not sized as a model
# (its caches would be counted for trunk blocks it lacks)
TS = os.path.join(d, "trunk.gguf")
SC = os.path.join(d, "mtp-trunk.gguf")
gf.qwen35_mtp(TS, trunk=4, nextn=0, embd=256, vocab=512, with_trunk=True,
              tokens=True)
gf.qwen35_mtp(SC, trunk=4, nextn=1, embd=256, vocab=512, tokens=True)
p = subprocess.run([QA, "fit", TS, "--gpus", "8G", "--ctx", "1024",
                    "--draft", SC], capture_output=True, text=True)
said = " ".join((p.stdout + p.stderr).split())
if p.returncode != 3 or "is an MTP sidecar" not in said:
    fails.append(f"MTP sidecar as --draft: rc {p.returncode}: {said[:300]}")

# incompatible pairs
D2 = os.path.join(d, "draft-vocab.gguf")
model(D2, 2, 256, 512, 4, 256 + 129, 2048)
rc, pair = fit(T, "--gpus", "16G", "--ctx", "4096", "--draft", D2)
eq("vocab diff 129 compatible", pair["draft"]["compatible"], False)
eq("vocab diff verdict", pair["verdict"], "does-not-fit")
if "difference 129" not in pair["draft"].get("incompatible", ""):
    fails.append("vocab diff message: " + pair["draft"].get("incompatible",
                                                             ""))
D3 = os.path.join(d, "draft-vocab128.gguf")
toks = [f"t{i}" for i in range(256)] + [f"x{i}" for i in range(128)]
model(D3, 2, 256, 512, 4, 384, 2048, tokens=toks)
rc, pair = fit(T, "--gpus", "16G", "--ctx", "4096", "--draft", D3)
eq("vocab diff 128 compatible", pair["draft"]["compatible"], True)
D4 = os.path.join(d, "draft-tok7.gguf")
toks = [f"t{i}" for i in range(256)]
toks[7] = "other"
model(D4, 2, 256, 512, 4, 256, 2048, tokens=toks)
rc, pair = fit(T, "--gpus", "16G", "--ctx", "4096", "--draft", D4)
eq("token 7 differs", pair["draft"].get("incompatible"),
   "token 7 content differs between target and draft")
D5 = os.path.join(d, "draft-tok3.gguf")
toks = [f"t{i}" for i in range(256)]
toks[3] = "other"		# below SPEC_VOCAB_CHECK_START_TOKEN_ID
model(D5, 2, 256, 512, 4, 256, 2048, tokens=toks)
rc, pair = fit(T, "--gpus", "16G", "--ctx", "4096", "--draft", D5)
eq("token 3 differs: compatible", pair["draft"]["compatible"], True)
D6 = os.path.join(d, "draft-bos.gguf")
model(D6, 2, 256, 512, 4, 256, 2048, bos=0)
rc, pair = fit(T, "--gpus", "16G", "--ctx", "4096", "--draft", D6)
if "bos tokens must match" not in pair["draft"].get("incompatible", ""):
    fails.append("bos mismatch not found")

# text output names the draft
p = subprocess.run([QA, "fit", T, "--gpus", "16G", "--ctx", "4096",
                    "--draft", D], capture_output=True, text=True)
if "draft (llama.cpp -md" not in p.stdout:
    fails.append("text: no draft line\n" + p.stdout)

if fails:
    print("\n".join(fails))
    sys.exit(1)
print("ok")
