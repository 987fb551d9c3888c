# SPDX-License-Identifier: MIT
"""What to change so it fits (src/fit/fit_advice.c; docs/fit.md).

A llama written by gguf-py with a long trained context (131072) whose KV
cache, not its weights, is what does not fit: 16 layers x 2 KV heads x
128 dims, so K and V take 16 * 2 * 2 * 128 * 2 = 16384 bytes a token in
f16 (2 GiB at 131072), 34/64 of that in q8_0 and 18/64 in q4_0 (ggml's
block sizes: 32 values in 34 and 18 bytes). Each piece of advice is then
applied through fit's own options, and that fit must give exactly the
verdict and the free memory the advice promised; a shorter context must
be the longest one: 256 tokens more (llama.cpp's step) do not fit.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run_json  # noqa: E402
import gguf_fixtures as gf  # noqa: E402

LAYERS, EMBD, FF, HEADS, HEAD_DIM, CTX = 16, 256, 512, 2, 128, 131072
KV_F16_PER_TOKEN = LAYERS * 2 * HEADS * HEAD_DIM * 2


def write_model(path):
    np, gguf = gf.np, gf.gguf
    T = gguf.GGMLQuantizationType
    w = gguf.GGUFWriter(path, "llama")
    gf.llama_keys(w, layers=LAYERS, embd=EMBD, ff=FF, heads=HEADS, vocab=64,
                  ctx=CTX)
    w.add_key_length(HEAD_DIM)
    w.add_value_length(HEAD_DIM)
    gf.add_matrix(w, "token_embd.weight", 64, EMBD, T.F16)
    for b in range(LAYERS):
        p = f"blk.{b}."
        w.add_tensor(p + "attn_norm.weight", np.ones(EMBD, np.float32))
        for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
            gf.add_matrix(w, p + n + ".weight", EMBD, EMBD, T.F16)
        w.add_tensor(p + "ffn_norm.weight", np.ones(EMBD, np.float32))
        gf.add_matrix(w, p + "ffn_gate.weight", FF, EMBD, T.F16)
        gf.add_matrix(w, p + "ffn_up.weight", FF, EMBD, T.F16)
        gf.add_matrix(w, p + "ffn_down.weight", EMBD, FF, T.F16)
    w.add_tensor("output_norm.weight", np.ones(EMBD, np.float32))
    gf.add_matrix(w, "output.weight", 64, EMBD, T.F16)
    gf.finish(w)


def kv_bytes(ctx, kv):
    per = {"f16": 64, "bf16": 64, "q8_0": 34, "q4_0": 18, "fp8": 32}[kv]
    return KV_F16_PER_TOKEN * ctx * per // 64


# the engines' flags as quantaudit's own options
FLAG_OPTIONS = {
    "-ctk q8_0 -ctv q8_0": ["--kv", "q8_0"],
    "-ctk q4_0 -ctv q4_0": ["--kv", "q4_0"],
    "--kv-cache-dtype fp8": ["--kv", "fp8"],
    "--enforce-eager": ["--enforce-eager"],
    "-np 1": ["--parallel", "1"],
}


def as_options(flags):
    for prefix in ("-c ", "--max-model-len "):
        if flags.startswith(prefix):
            return ["--ctx", flags[len(prefix):]]
    for known, opts in FLAG_OPTIONS.items():
        if flags.startswith(known + " "):
            return opts + as_options(flags[len(known) + 1:])
    return FLAG_OPTIONS.get(flags)


def fit(binary, path, args):
    code, doc, err = run_json(binary, ["fit", path] + args)
    return doc["inputs"][0].get("fit") or {}


def main():
    binary = sys.argv[1]
    if not gf.have_gguf():
        print("SKIP: gguf-py is not installed (requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "long.gguf")
        write_model(path)
        # fits: no advice
        f = fit(binary, path, ["--gpus", "1x8G", "--ctx", str(CTX)])
        c.check(f.get("verdict") == "fits" and "advice" not in f,
                f"fits: no advice ({f.get('verdict')}, {f.get('advice')})")
        for engine, gpus in (("llama.cpp", "1x3G"), ("vllm", "1x3G"),
                             ("llama.cpp", "1x4G")):
            base = ["--gpus", gpus, "--ctx", str(CTX), "--engine", engine]
            f = fit(binary, path, base)
            what = f"{engine} {gpus}"
            adv = f.get("advice", [])
            c.check(f.get("verdict") in ("does-not-fit", "tight") and adv,
                    f"{what}: {f.get('verdict')} with advice {adv}")
            kv = {"f16": "f16", "bf16": "bf16"}.get(f.get("kv_type_k"))
            for a in adv:
                opts = as_options(a["flags"])
                if not c.check(opts is not None,
                               f"{what}: flags {a['flags']} known"):
                    continue
                g = fit(binary, path, base + opts)
                free = min(d["free_bytes"] for d in g.get("devices", [{}]))
                c.check(g.get("verdict") == a["verdict"] and
                        free == a["min_free_bytes"] and
                        g.get("context") == a["context"],
                        f"{what}: {a['flags']} applied gives "
                        f"{g.get('verdict')} {free} ctx {g.get('context')}, "
                        f"advice said {a['verdict']} {a['min_free_bytes']}")
                want_kv = kv_bytes(a["context"], a["kv_type_k"])
                c.check(a["kv_bytes"] == want_kv,
                        f"{what}: {a['flags']} KV {a['kv_bytes']}, worked "
                        f"by hand {want_kv}")
                if opts[0] == "--ctx" and engine == "llama.cpp":
                    longer = int(opts[1]) + 256
                    h = fit(binary, path, base[:2] + ["--ctx", str(longer),
                                                      "--engine", engine])
                    # the advice was the longest that fits: 256 more
                    # tokens give the verdict it set out to change
                    c.check(h.get("verdict") == "does-not-fit" or
                            (f.get("verdict") == "tight" and
                             h.get("verdict") == "tight"),
                            f"{what}: -c {longer} is past the longest "
                            f"({h.get('verdict')})")
            # the KV of the layers on the host counts too (placement)
            kv_all = f.get("totals", {}).get("kv_bytes", 0) + \
                f.get("placement", {}).get("host_cache_bytes", 0)
            c.check(kv is None or kv_all == kv_bytes(CTX, kv),
                    f"{what}: KV {kv_all}, by hand "
                    f"{kv_bytes(CTX, kv) if kv else '-'}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
