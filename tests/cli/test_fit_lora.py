# SPDX-License-Identifier: MIT
"""fit --lora: a LoRA adapter placed with the layers it adapts, as
llama.cpp does it (src/llama-adapter.cpp llama_adapter_lora_init_impl:
each lora_a / lora_b pair in the buffer type of its base tensor, one
buffer per type, tensors padded to its alignment).

The model and adapter are written by gguf-py exactly as for the recorded
llama.cpp run (tests/data/llamacpp-runs/lora/README.md); the adapter's
bytes are worked by hand (pairs x 2 x rank x embd x 2 bytes of F16) and
compared with the "LoRA buffer size" llama.cpp printed, and the compute
buffer is the same with and without the adapter, as llama.cpp's was.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import gguf_fixtures as gf  # noqa: E402

LAYERS, EMBD, RANK = 2, 256, 256
TARGETS = ("attn_q", "attn_v", "attn_k", "attn_output")
HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = os.path.join(HERE, "..", "data", "llamacpp-runs", "lora")


def log_mib(name, pattern):
    with open(os.path.join(LOGS, name)) as f:
        for line in f:
            m = re.search(pattern + r"\s*=\s*([0-9.]+) MiB", line)
            if m:
                return float(m.group(1))
    return None


def fit(binary, args):
    code, doc, err = run_json(binary, ["fit"] + args)
    return code, doc["inputs"][0].get("fit") or {}, doc


def main():
    binary = sys.argv[1]
    if not gf.have_gguf():
        print("SKIP: gguf-py is not installed (requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.gguf")
        lora = os.path.join(tmp, "lora.gguf")
        gf.tiny_llama(base, gf.T.F16, layers=LAYERS, embd=EMBD, vocab=512)
        gf.lora_adapter(lora, rank=RANK, layers=LAYERS, targets=TARGETS,
                        embd=EMBD)
        pairs = LAYERS * len(TARGETS)
        want = pairs * 2 * RANK * EMBD * 2
        gpus = ["--gpus", "1x8G", "--ctx", "512"]
        _, f0, _ = fit(binary, [base] + gpus)
        _, f1, _ = fit(binary, [base, "--lora", lora] + gpus)
        lo = f1.get("lora", {})
        c.check(lo.get("pairs") == pairs and lo.get("device_bytes") ==
                [want] and lo.get("host_bytes") == 0,
                f"lora: {lo}, want {pairs} pairs, {want} B on GPU0")
        logged = log_mib("base-lora-r256-c512.log", "LoRA buffer size")
        c.check(logged is not None and abs(want / 2**20 - logged) < 0.01,
                f"llama.cpp's LoRA buffer {logged} MiB, ours "
                f"{want / 2**20:.2f}")
        d0, d1 = f0["devices"][0], f1["devices"][0]
        c.check(d1["weights_bytes"] - d0["weights_bytes"] == want and
                d0["free_bytes"] - d1["free_bytes"] == want,
                f"GPU0 weights +{d1['weights_bytes'] - d0['weights_bytes']}"
                f", free -{d0['free_bytes'] - d1['free_bytes']}")
        c.check(d1["compute_bytes"] == d0["compute_bytes"] and
                log_mib("base-c512.log", "CPU compute buffer size") ==
                log_mib("base-lora-r256-c512.log",
                        "CPU compute buffer size"),
                "compute buffer unchanged by the adapter, as llama.cpp's")
        # two adapters: each its own buffer (llama.cpp logs one line per
        # adapter), the compute buffer still unchanged
        lora64 = os.path.join(tmp, "lora64.gguf")
        gf.lora_adapter(lora64, rank=64, layers=LAYERS,
                        targets=("attn_q", "attn_output"), embd=EMBD)
        want64 = LAYERS * 2 * 2 * 64 * EMBD * 2
        _, f2, _ = fit(binary, [base, "--lora", lora, "--lora", lora64] +
                       gpus)
        l2 = f2.get("lora", {})
        ad = l2.get("adapters", [])
        c.check(len(ad) == 2 and ad[0]["device_bytes"] == [want] and
                ad[1]["device_bytes"] == [want64] and
                ad[1]["pairs"] == LAYERS * 2 and
                l2.get("device_bytes") == [want + want64] and
                l2.get("pairs") == pairs + LAYERS * 2,
                f"two adapters: {l2}")
        with open(os.path.join(LOGS, "base-lora-r256-r64-c512.log")) as f:
            bufs = [float(m.group(1)) for m in re.finditer(
                r"LoRA buffer size\s*=\s*([0-9.]+) MiB", f.read())]
        c.check(bufs == [round(want / 2**20, 2), round(want64 / 2**20, 2)],
                f"llama.cpp's two LoRA buffers {bufs} MiB")
        c.check(f2["devices"][0]["compute_bytes"] == d0["compute_bytes"] and
                log_mib("base-lora-r256-r64-c512.log",
                        "CPU compute buffer size") ==
                log_mib("base-c512.log", "CPU compute buffer size"),
                "compute unchanged by two adapters, as llama.cpp's")
        c.check(f2["devices"][0]["weights_bytes"] - d0["weights_bytes"] ==
                want + want64, "both adapters in GPU0's weights")
        # a GPU the adapter pushes over: the verdict says so
        def verdict(mib, extra):
            _, g, _ = fit(binary, [base, "--gpus", f"1x{mib}M", "--ctx",
                                   "512", "--margin", "0"] + extra)
            return g

        lo_mib, hi_mib = 1, 8192     # the smallest GPU the model fits
        while lo_mib < hi_mib:
            mid = (lo_mib + hi_mib) // 2
            if verdict(mid, []).get("verdict") == "does-not-fit":
                lo_mib = mid + 1
            else:
                hi_mib = mid
        small = lo_mib
        g0 = verdict(small, [])
        g1 = verdict(small, ["--lora", lora])
        c.check(g0.get("verdict") != "does-not-fit" and
                g1.get("verdict") == "does-not-fit",
                f"{small} MiB: {g0.get('verdict')} without, "
                f"{g1.get('verdict')} with the adapter")
        # an adapter for another model: llama.cpp's own refusal, for the
        # same tensor (its std::map meets ffn_down before ffn_up); the
        # log is llama.cpp's run of this very adapter
        wrong = os.path.join(tmp, "wrong.gguf")
        gf.lora_adapter(wrong, rank=64, layers=LAYERS,
                        targets=("ffn_up", "ffn_down", "attn_q"), embd=EMBD)
        code, out, err = run(binary, ["fit", base, "--lora", wrong] + gpus)
        said = " ".join((out + err).split())
        with open(os.path.join(LOGS, "base-lora-wrong-shape-c512.log")) as f:
            m = re.search(r"failed to apply lora adapter: (.*)$", f.read(),
                          re.M)
        c.check(code == 3 and m is not None and
                f'"{m.group(1).strip()}"' in said,
                f"wrong shape: {code} {said[:300]} vs llama.cpp's "
                f"{m.group(1) if m else None}")
        # not an adapter, or not llama.cpp: refused, not sized
        code, out, err = run(binary, ["fit", base, "--lora", base] + gpus)
        c.check("not a LoRA adapter" in " ".join((out + err).split()),
                f"--lora MODEL refused ({(out + err)[:200]})")
        code, out, err = run(binary, ["fit", base, "--lora", lora,
                                      "--engine", "vllm"] + gpus)
        c.check("a PEFT LoRA adapter folder" in " ".join((out + err).split()),
                f"a GGUF adapter with vllm refused ({(out + err)[:200]})")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
