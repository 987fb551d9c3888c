# SPDX-License-Identifier: MIT
"""The `fit` command and `check --gpus` through the binary: option
parsing and its errors (exit 2 with a clear message), the JSON "fit"
object against docs/quantaudit-1.schema.json, the text report's 80-column
bars, and the numbers on the real-shape fixtures of fixtures/gen/gen_fit.c
against independent values:

- the KV cache and recurrent state of the worked examples of
  ../shared/knowledge/memory-models.md section 5 (exact MiB: Llama-3.1-8B
  at 32K f16 4096, q8_0 2176, q4_0 1152; Qwen3-30B-A3B 3072;
  DeepSeek-V2-Lite 972; Nemotron-Nano-9B-v2 KV 512 plus recurrent 138.80;
  Gemma-3-12B SWA 480 plus base 2048), recomputed below from the
  published shapes, not read from quantaudit;
- the verdicts section 5 gives for 2x RTX 5060 Ti 16 GB (and one card);
- with the corpus present, --calibrate against llama.cpp's own log lines.

Assertions that depend on an engine model say which one is missing
(src/fit/fit_llamacpp.c, src/fit/fit_vllm.c) when it fails."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run  # noqa: E402

MIB = 1 << 20
LLAMA_MODEL = "llama.cpp model (src/fit/fit_llamacpp.c)"


def fixture(name):
    return os.path.join(env_path("QA_FIXTURES"), "fit", name)


def fit_json(binary, args):
    code, out, err = run(binary, ["fit", "--format", "json"] + args)
    try:
        doc = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        doc = None
    return code, doc, err


def usage_errors(c, binary):
    llama = fixture("llama-3.1-8b-Q4_K_M.gguf")
    cases = [
        ([llama], "--gpus SPEC is required"),
        ([llama, "--gpus", "2x16Q"], "--gpus"),
        ([llama, "--gpus", "2x16G", "--ctx", "lots"], "--ctx 'lots'"),
        ([llama, "--gpus", "2x16G", "--ctx", "0"], "--ctx '0'"),
        ([llama, "--gpus", "2x16G", "--kv", "q3_k"],
         "unknown KV-cache type 'q3_k'"),
        ([llama, "--gpus", "2x16G", "--kv", "q8_0", "--kv-k", "q4_0"],
         "--kv sets both"),
        ([llama, "--gpus", "2x16G", "--parallel", "0"], "--parallel '0'"),
        ([llama, "--gpus", "2x16G", "--ubatch", "x"], "--ubatch 'x'"),
        ([llama, "--gpus", "2x16G", "--flash-attn", "maybe"],
         "--flash-attn 'maybe'"),
        ([llama, "--gpus", "2x16G", "--tensor-split", "1,2,3"],
         "--tensor-split has 3 values for 2 devices"),
        ([llama, "--gpus", "2x16G", "--tensor-split", "0,0"],
         "--tensor-split '0,0'"),
        ([llama, "--gpus", "2x16G", "--margin", "-5"], "--margin '-5'"),
        ([llama, "--gpus", "2x16G", "--mtp", "yes"], "--mtp 'yes'"),
        ([llama, "--gpus", "2x16G", "--engine", "mlc-llm"],
         "unknown --engine 'mlc-llm'"),
        ([llama, "--gpus", "2x16G", "--engine", "sglang", "--ubatch", "256"],
         "--ubatch is a llama.cpp option"),
        ([llama, "--gpus", "2x16G", "--engine", "sglang",
          "--gpu-memory-utilization", "0.8"],
         "are vllm options (sglang: --mem-fraction-static"),
        ([llama, "--gpus", "2x16G", "--engine", "vllm",
          "--mem-fraction-static", "0.8"],
         "are sglang options"),
        ([llama, "--gpus", "2x16G", "--tp", "2"],
         "are vllm/sglang options"),
        ([llama, "--gpus", "2x16G", "--engine", "vllm",
          "--gpu-memory-utilization", "1.5"],
         "--gpu-memory-utilization '1.5': a fraction"),
        ([llama, "--gpus", "2x16G", "--engine", "vllm", "--model-impl", "x"],
         "--model-impl 'x': auto, vllm or transformers"),
        ([llama, "--gpus", "2x16G", "--engine", "vllm", "--kv-k", "fp8"],
         "vllm has one KV-cache dtype"),
        ([llama, "--gpus", "2x16G", "--engine", "vllm", "--ubatch", "256"],
         "--ubatch is a llama.cpp option"),
        ([llama, "--gpus", "2x16G", "--format", "sarif"],
         "fit writes text, json or markdown"),
        ([llama, llama, "--gpus", "2x16G", "--calibrate", "x.log"],
         "--calibrate compares one model with one log"),
        ([llama, "--gpus", "2x16G", "--bogus"], "unknown option '--bogus'"),
        (["--gpus", "2x16G"], "no input given"),
        ([llama, "--gpus"], "needs a value"),
    ]
    for args, msg in cases:
        code, out, err = run(binary, ["fit"] + args)
        c.check(code == 2, f"fit {' '.join(args[1:])}: exit {code}, "
                f"want 2 ({err.strip()[:120]})")
        c.check(msg in err, f"fit {' '.join(args[1:])}: stderr lacks "
                f"'{msg}': {err.strip()[:200]}")
    code, out, _ = run(binary, ["fit", "--help"])
    c.check(code == 0 and "--tensor-split" in out, "fit --help")
    code, out, _ = run(binary, ["--help"])
    c.check(re.search(r"^  fit +VRAM fit", out, re.M) is not None,
            "main --help lists fit")
    # Every command's help comes from the one option table: each lists
    # its own options and only those.
    for cmd, has, lacks in (("inspect", "--layers", "--calibrate"),
                            ("tensors", "--match", "--gpus"),
                            ("check", "--rules", "--match"),
                            ("fit", "--calibrate", "--match"),
                            ("rules", "--explain", "--gpus")):
        code, out, err = run(binary, [cmd, "--help"])
        c.check(code == 0 and not err and
                out.startswith(f"Usage: quantaudit {cmd}") and
                has in out and lacks not in out,
                f"{cmd} --help: exit {code}, lists {has} and not {lacks}")
    # Two models in one fit run: one report, two inputs.
    code, doc, err = fit_json(binary, [llama, fixture("qwen3-30b-a3b-Q4_K_M.gguf"),
                                       "--gpus", "2x16G"])
    c.check(doc is not None and len(doc["inputs"]) == 2 and
            all("fit" in i for i in doc["inputs"]),
            f"fit with two inputs: exit {code}, {err.strip()[:200]}")


def model_available(binary):
    code, _, err = run(binary, ["fit", fixture("llama-3.1-8b-Q4_K_M.gguf"),
                                "--gpus", "2x16G", "--ctx", "4096"])
    return code in (0, 1), err.strip()


def schema_checks(c, binary, root):
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    schema = json.load(open(os.path.join(root, "docs",
                                         "quantaudit-1.schema.json")))
    code, doc, err = fit_json(binary, [fixture("llama-3.1-8b-Q4_K_M.gguf"),
                                       "--gpus", "rtx-5060-ti:2",
                                       "--ctx", "32768"])
    if not c.check(doc is not None, f"fit JSON parses ({LLAMA_MODEL}): "
                   f"{err.strip()[:200]}"):
        return
    if jsonschema:
        errors = list(jsonschema.Draft202012Validator(schema)
                      .iter_errors(doc))
        c.check(not errors, "fit JSON matches the schema: " +
                "; ".join(e.message for e in errors[:3]))
    fit = doc["inputs"][0].get("fit")
    if not c.check(isinstance(fit, dict), "inputs[0].fit present"):
        return
    for k in ("engine", "context", "kv_type_k", "kv_type_v", "devices",
              "totals", "max_context", "decode_tokens_per_s_max",
              "verdict", "host_bytes",
              "formula", "notes"):
        c.check(k in fit, f"fit.{k} present")
    c.check(fit["engine"] == "llama.cpp", "engine defaults to llama.cpp "
            "for GGUF")
    c.check(fit["verdict"] in ("fits", "tight", "does-not-fit"),
            "verdict value")
    c.check(set(fit["max_context"]) == {"f16", "q8_0", "q4_0"},
            "max_context keys f16, q8_0, q4_0")
    c.check(len(fit["devices"]) == 2, "two devices for rtx-5060-ti:2")
    for d in fit["devices"]:
        for k in ("name", "vram_bytes", "usable_bytes", "weights_bytes",
                  "kv_bytes", "recurrent_bytes", "compute_bytes",
                  "overhead_bytes", "free_bytes", "layers"):
            c.check(k in d, f"fit.devices[].{k} present")
        used = (d["weights_bytes"] + d["kv_bytes"] + d["recurrent_bytes"] +
                d["compute_bytes"] + d["overhead_bytes"])
        c.check(d["free_bytes"] == d["usable_bytes"] - used,
                f"free = usable - parts on {d['name']}")
    for k in ("weights", "kv", "recurrent", "compute"):
        c.check(fit["totals"][k + "_bytes"] ==
                sum(d[k + "_bytes"] for d in fit["devices"]),
                f"totals.{k}_bytes is the sum over devices")
    # rtx-5060-ti as CUDA reports it (memory-models.md section 4)
    c.check(fit["devices"][0]["usable_bytes"] == 15751 * MIB,
            "rtx-5060-ti usable 15751 MiB")


def text_checks(c, binary):
    for name, gpus, n_dev in (("llama-3.1-8b-Q4_K_M.gguf", "2x16G", 2),
                              ("qwen3-30b-a3b-Q4_K_M.gguf", "rtx-5060-ti", 1),
                              ("nemotron-nano-9b-v2-Q4_K_M.gguf",
                               "rtx-5060-ti:2", 2)):
        code, out, err = run(binary, ["fit", fixture(name), "--gpus", gpus,
                                      "--no-color"])
        if not c.check(code in (0, 1), f"fit {name} text: exit {code} "
                       f"({LLAMA_MODEL}): {err.strip()[:200]}"):
            continue
        lines = out.splitlines()
        bars = [ln for ln in lines if ln.startswith("|") and
                ln.endswith("|")]
        c.check(len(bars) == n_dev, f"{name}: one bar per GPU "
                f"({len(bars)})")
        for ln in bars:
            c.check(len(ln) == 80, f"{name}: bar is 80 columns "
                    f"({len(ln)})")
        for ln in lines:
            c.check(len(ln) <= 80, f"{name}: line over 80 columns: "
                    f"{ln!r}")
        c.check(any(ln.startswith("max context: f16 ") for ln in lines),
                f"{name}: max context line")
        c.check(any(ln.startswith("formula: ") for ln in lines),
                f"{name}: formula line")
    code, out, _ = run(binary, ["fit", fixture("llama-3.1-8b-Q4_K_M.gguf"),
                                "--gpus", "2x16G", "--format", "markdown"])
    c.check("| device | layers |" in out and "| GPU1 `16GiB` |" in out,
            "markdown table")


def kv_per_token(layers, hkv, dk, dv, elt_k=2.0, elt_v=2.0):
    """Bytes per cell for standard attention (memory-models.md 1.2)."""
    return layers * hkv * (dk * elt_k + dv * elt_v)


def worked_examples(c, binary):
    """memory-models.md section 5, KV and recurrent sizes, exact."""
    q8, q4 = 34 / 32, 18 / 32
    ctx = 32768
    # (fixture, kv type, expected KV MiB, expected recurrent MiB)
    expect = [
        ("llama-3.1-8b", "f16", kv_per_token(32, 8, 128, 128) * ctx / MIB,
         0),
        ("llama-3.1-8b", "q8_0",
         kv_per_token(32, 8, 128, 128, q8, q8) * ctx / MIB, 0),
        ("llama-3.1-8b", "q4_0",
         kv_per_token(32, 8, 128, 128, q4, q4) * ctx / MIB, 0),
        ("qwen3-30b-a3b", "f16", kv_per_token(48, 4, 128, 128) * ctx / MIB,
         0),
        # MLA: K only, r_kv + d_rope = 576 per layer (section 1.4)
        ("deepseek-v2-lite", "f16", 27 * 576 * 2 * ctx / MIB, 0),
        # 4 attention layers; 27 Mamba-2 layers of (r + s) f32 (1.5)
        ("nemotron-nano-9b-v2", "f16",
         kv_per_token(4, 8, 128, 128) * ctx / MIB,
         27 * 4 * (3 * (10240 + 2 * 8 * 128) + 128 * 10240) / MIB),
        # 8 full layers x ctx + 40 SWA layers x pad256(1024 + 512) (1.3)
        ("gemma-3-12b", "f16",
         (8 * ctx + 40 * 1536) * 8 * 256 * 2 * 2 / MIB, 0),
    ]
    literal = {("llama-3.1-8b", "f16"): 4096, ("llama-3.1-8b", "q8_0"): 2176,
               ("llama-3.1-8b", "q4_0"): 1152,
               ("qwen3-30b-a3b", "f16"): 3072,
               ("deepseek-v2-lite", "f16"): 972,
               ("nemotron-nano-9b-v2", "f16"): 512,
               ("gemma-3-12b", "f16"): 2048 + 480}
    for name, kv, kv_mib, rs_mib in expect:
        # the formulas above reproduce the document's numbers
        c.check(abs(kv_mib - literal[(name, kv)]) < 1e-9,
                f"worked example {name} {kv}: {kv_mib} MiB")
        code, doc, err = fit_json(binary, [fixture(f"{name}-Q4_K_M.gguf"),
                                           "--gpus", "rtx-5060-ti:2",
                                           "--ctx", str(ctx), "--kv", kv])
        if not c.check(doc is not None and "fit" in doc["inputs"][0],
                       f"{name} {kv}: no fit ({LLAMA_MODEL} missing?): "
                       f"{err.strip()[:200]}"):
            continue
        fit = doc["inputs"][0]["fit"]
        c.check(fit["context"] == ctx, f"{name}: context {fit['context']}")
        got = fit["totals"]["kv_bytes"] / MIB
        c.check(abs(got - kv_mib) < 1e-9,
                f"{name} {kv}: KV {got} MiB, want {kv_mib} ({LLAMA_MODEL})")
        got = fit["totals"]["recurrent_bytes"] / MIB
        # the log prints 138.80: compare at its 2-decimal rounding too
        c.check(abs(got - rs_mib) < 1e-9 and
                f"{got:.2f}" == f"{rs_mib:.2f}",
                f"{name}: recurrent {got} MiB, want {rs_mib} "
                f"({LLAMA_MODEL})")
    c.check(f"{expect[5][3]:.2f}" == "138.80", "Nemotron state 138.80 MiB")


def hybrid_mtp(c, binary):
    """The Qwen3.6-27B-like GDN hybrid with an MTP block (issue 5): 64
    trunk layers, full attention every 4th (16 layers), 4 KV heads of 256
    (qwen35.attention.head_count_kv/key_length), GDN state per linear
    layer (memory-models.md 1.5 GDN mapping, f32): conv (4-1)*(6144 +
    2*16*128) = 30720 and SSM 128*6144 = 786432 elements, for 48 linear
    layers. qwen35 filters its nextn block out of the main caches
    (llama-model.cpp create_memory); with --mtp on (--spec-type mtp) the
    draft context holds that one block's cache, in F16 (the draft's
    -ctkd/-ctvd default), and the recurrent state gets 1 + 3 rows per
    sequence for rollback (llama-memory-recurrent.cpp, n_rs_seq = the
    draft's n_max, 3 by default, common/common.h)."""
    ctx = 32768
    kv_layer = 2 * 4 * 256 * 2 * ctx          # K + V, f16
    rs = 48 * 4 * (3 * (6144 + 2 * 16 * 128) + 128 * 6144)
    for mtp, layers, rows in (("off", 16, 1), ("on", 17, 4)):
        code, doc, err = fit_json(binary, [
            fixture("qwen3.6-27b-like-mtp-Q4_K_M.gguf"), "--gpus",
            "2x16G", "--ctx", str(ctx), "--mtp", mtp])
        if not c.check(doc is not None and "fit" in doc["inputs"][0],
                       f"qwen3.6 hybrid mtp {mtp}: no fit: {err[:200]}"):
            continue
        t = doc["inputs"][0]["fit"]["totals"]
        c.check(t["kv_bytes"] == layers * kv_layer,
                f"qwen3.6 hybrid mtp {mtp}: KV {t['kv_bytes']}, want "
                f"{layers * kv_layer}")
        c.check(t["recurrent_bytes"] == rs * rows,
                f"qwen3.6 hybrid mtp {mtp}: recurrent "
                f"{t['recurrent_bytes']}, want {rs * rows} ({rows} x "
                f"149.625 MiB)")


def sglang_checks(c, binary):
    """--engine sglang on the Llama fixture at 32K: the JSON fit object
    of the SGLang model (src/fit/fit_sglang.c), free = usable - parts,
    and the cell 4 KV heads x (128 + 128) x 32 layers x 2 B = 65,536 B per
    token per rank of docs/fit.md "## SGLang" (32,768 tokens: 2 GiB)."""
    code, doc, err = fit_json(binary, [fixture("llama-3.1-8b-Q4_K_M.gguf"),
                                       "--gpus", "2x16G", "--engine",
                                       "sglang", "--ctx", "32k"])
    if not c.check(doc is not None and code in (0, 1),
                   f"fit --engine sglang: exit {code}, "
                   f"{err.strip()[:200]} (src/fit/fit_sglang.c)"):
        return
    fit = doc["inputs"][0].get("fit") or {}
    c.check(fit.get("engine") == "sglang", f"engine {fit.get('engine')}")
    c.check(len(fit.get("devices", [])) == 2, "two ranks at TP=2")
    for d in fit.get("devices", []):
        c.check(d["kv_bytes"] == 32768 * 65536,
                f"sglang kv {d['kv_bytes']} (src/fit/fit_sglang.c)")
        used = (d["weights_bytes"] + d["kv_bytes"] + d["recurrent_bytes"] +
                d["compute_bytes"] + d["overhead_bytes"])
        c.check(d["free_bytes"] == d["usable_bytes"] - used,
                f"sglang free = usable - parts on {d['name']}")
    c.check("MHA cell 65536" in fit.get("formula", ""),
            f"sglang formula: {fit.get('formula', '')[:120]}")


def verdicts(c, binary):
    """Section 5: 2x RTX 5060 Ti at the trained context; one card."""
    cases = [
        ("llama-3.1-8b", "rtx-5060-ti:2", "fits"),        # 5.1
        ("qwen3-30b-a3b", "rtx-5060-ti:2", "fits"),       # 5.2
        ("qwen3-30b-a3b", "rtx-5060-ti", "does-not-fit"),  # 5.2 one GPU
        ("gemma-3-12b", "rtx-5060-ti:2", "fits"),         # 5.3
        ("deepseek-v2-lite", "rtx-5060-ti:2", "fits"),    # 5.4
        ("deepseek-v2-lite", "rtx-5060-ti", "does-not-fit"),  # 14887 > 14727
        ("nemotron-nano-9b-v2", "rtx-5060-ti:2", "fits"),  # 5.5
        ("nemotron-nano-9b-v2", "rtx-5060-ti", "fits"),   # 5.5 one GPU
    ]
    for name, gpus, want in cases:
        code, doc, err = fit_json(binary, [fixture(f"{name}-Q4_K_M.gguf"),
                                           "--gpus", gpus])
        if not c.check(doc is not None and "fit" in doc["inputs"][0],
                       f"{name} on {gpus}: no fit ({LLAMA_MODEL})"):
            continue
        fit = doc["inputs"][0]["fit"]
        codes = [f["code"] for f in doc["inputs"][0]["findings"]]
        c.check(fit["verdict"] in ((want, "tight") if want == "fits"
                                   else (want,)),
                f"{name} on {gpus}: verdict {fit['verdict']}, want {want} "
                f"({LLAMA_MODEL})")
        if want == "does-not-fit":
            c.check(code == 1 and "QA4001" in codes,
                    f"{name} on {gpus}: exit {code}, findings {codes}")
        else:
            c.check(code == 0 and "QA4001" not in codes,
                    f"{name} on {gpus}: exit {code}, findings {codes}")
    # 5.1: the largest context on one 16 GB card is about 80K (FA on)
    code, doc, _ = fit_json(binary, [fixture("llama-3.1-8b-Q4_K_M.gguf"),
                                     "--gpus", "rtx-5060-ti"])
    if doc and "fit" in doc["inputs"][0]:
        m = doc["inputs"][0]["fit"]["max_context"]["f16"]
        c.check(72000 <= m <= 88000, f"Llama-3.1-8B one card max ctx {m} "
                f"(about 80K, section 5.1; {LLAMA_MODEL})")


def refusal_and_check(c, binary):
    llama = fixture("llama-3.1-8b-Q4_K_M.gguf")
    code, doc, err = fit_json(binary, [llama, "--gpus", "2x16G", "--kv",
                                       "q8_0", "--flash-attn", "off"])
    if doc:
        codes = [f["code"] for f in doc["inputs"][0]["findings"]]
        c.check(code == 1 and "QA4003" in codes and "QA4001" not in codes,
                f"quantized V without flash attention: QA4003 ({codes})")
    # check --gpus: the fit object and fit findings join the others
    code, out, err = run(binary, ["check", "--format", "json", "--summary",
                                  fixture("qwen3-30b-a3b-Q4_K_M.gguf"),
                                  "--gpus", "rtx-5060-ti"])
    try:
        doc = json.loads(out)
    except json.JSONDecodeError:
        doc = None
    if c.check(doc is not None, "check --gpus JSON"):
        inp = doc["inputs"][0]
        codes = [f["code"] for f in inp["findings"]]
        c.check("fit" in inp and "QA4001" in codes and code == 1,
                f"check --gpus one card: fit + QA4001, exit 1 ({codes}, "
                f"exit {code}; {LLAMA_MODEL})")
    code, out, err = run(binary, ["check", "--no-color",
                                  fixture("llama-3.1-8b-Q4_K_M.gguf"),
                                  "--gpus", "rtx-5060-ti:2"])
    c.check("VRAM fit (llama.cpp" in out, "check --gpus text has the fit "
            "block")
    code, out, err = run(binary, ["check", "--no-color",
                                  fixture("llama-3.1-8b-Q4_K_M.gguf")])
    c.check("VRAM fit" not in out, "no fit block without --gpus")


def calibrate(c, binary):
    corpus = os.environ.get("QA_CORPUS", "")
    logs = os.path.join(corpus, "llama-logs")
    if not os.path.isdir(logs):
        c.skipped += 1
        return
    # head dim 16: q8_0 K is refused by the engine (the log fails with
    # "does not divide n_embd_head_k=16"); the estimate must say so
    lp = os.path.join(logs, "llama-q8_0-c32768-kvq8_0.log")
    mp = os.path.join(corpus, "gguf", "llama-q8_0.gguf")
    if os.path.exists(lp) and os.path.exists(mp):
        code, out, err = run(binary, ["fit", mp, "--calibrate", lp])
        c.check(code == 0 and "engine refusal: log:" in out and
                "estimate: K cache type q8_0 with block size 32 does not "
                "divide n_embd_head_k=16" in out,
                f"--calibrate refusal predicted ({LLAMA_MODEL}): {out}")
    for model, log in (("llama-q8_0.gguf", "llama-q8_0-c4096-kvf16.log"),
                       ("llama-q8_0.gguf", "llama-q8_0-c32768-kvf16.log")):
        lp = os.path.join(logs, log)
        mp = os.path.join(corpus, "gguf", model)
        if not (os.path.exists(lp) and os.path.exists(mp)):
            c.skipped += 1
            continue
        text = open(lp, encoding="utf-8", errors="replace").read()
        sizes = re.findall(r"llama_kv_cache: size = +([0-9.]+) MiB", text)
        code, out, err = run(binary, ["fit", mp, "--calibrate", lp])
        if not c.check(code == 0, f"--calibrate {log}: exit {code} "
                       f"{err.strip()[:200]}"):
            continue
        row = re.search(r"KV cache \(all\) +([0-9.]+) +([0-9.]+)", out)
        c.check(row is not None and sizes and
                float(row.group(2)) == float(sizes[-1]),
                f"--calibrate {log}: engine column is the log's KV size")
        c.check(row is not None and sizes and
                f"{float(row.group(1)):.2f}" == f"{float(sizes[-1]):.2f}",
                f"--calibrate {log}: estimate equals the log's KV size "
                f"({LLAMA_MODEL})")


def glm_nextn(c, binary):
    """GLM-4.5-Air-like glm4moe: 46 trunk blocks + 1 nextn block, 8 KV
    heads of 128. create_memory passes no layer filter for glm4moe, so
    the nextn block has main-context cells: 47 layers x 4096 cells x
    (8 x 128 x 2 B) x 2 (K, V) = 752 MiB at 4096, as llama.cpp logs it
    (tests/data/llamacpp-runs/glm-4.5-air-c4096-np1-faon-kvf16-ub512.log:
    "752.00 MiB (4096 cells, 47 layers"). With --mtp on llama-server
    makes a draft context with every block's cells too (no MTP graph for
    glm4moe): 1504 MiB in all (mtp-draft/ log: two 752.00 MiB caches)."""
    per_layer = 4096 * 8 * 128 * 2 * 2
    for mtp, want in (("off", 47 * per_layer), ("on", 2 * 47 * per_layer)):
        code, doc, err = fit_json(binary, [
            fixture("glm-4.5-air-Q4_K_M.gguf"), "--gpus", "none",
            "--ctx", "4096", "--mtp", mtp])
        if not c.check(doc is not None and "fit" in doc["inputs"][0],
                       f"glm nextn mtp {mtp}: no fit: {err[:200]}"):
            continue
        got = doc["inputs"][0]["fit"]["totals"]["kv_bytes"]
        c.check(got == want, f"glm4moe nextn KV with --mtp {mtp}: {got}, "
                f"want {want} (src/fit/fit_llamacpp.c nextn_filtered)")


def rpc_devices(c, binary):
    """--gpus 16G+rpc:24G: llama.cpp puts --rpc devices first in its
    device list (src/llama.cpp, "add RPC servers at the front of the list
    to minimize network transfers"), so the remote device gets the first
    layers and the output layer stays on the local one, whatever order
    the spec gives."""
    for spec in ("16G+rpc:24G", "rpc:24G+16G"):
        code, doc, _ = fit_json(binary, [fixture("llama-3.1-8b-Q4_K_M.gguf"),
                                      "--gpus", spec, "--ctx", "8192"])
        inp = (doc or {}).get("inputs", [doc or {}])[0]
        devs = inp["fit"]["devices"] if "fit" in inp else []
        c.check(code == 0 and [d["name"] for d in devs] ==
                ["rpc:24GiB", "16GiB"], f"{spec}: devices "
                f"{[d['name'] for d in devs]}, want rpc:24GiB first")
        if len(devs) == 2:
            c.check(devs[0]["layers"][0] == 0 and not devs[0]["has_output"]
                    and devs[1]["has_output"] and
                    devs[1]["layers"][0] == devs[0]["layers"][1] + 1,
                    f"{spec}: the RPC device holds the first layers, the "
                    f"local one the rest and the output: {devs}")


def main():
    binary = sys.argv[1]
    root = env_path("QA_SOURCE_ROOT")
    c = Checker()
    usage_errors(c, binary)
    ok, why = model_available(binary)
    if not ok:
        print(f"FAIL {LLAMA_MODEL} is missing or failing: {why}")
        c.failed += 1
        c.finish()
        return
    schema_checks(c, binary, root)
    text_checks(c, binary)
    worked_examples(c, binary)
    hybrid_mtp(c, binary)
    glm_nextn(c, binary)
    sglang_checks(c, binary)
    verdicts(c, binary)
    refusal_and_check(c, binary)
    calibrate(c, binary)
    rpc_devices(c, binary)
    c.finish()


if __name__ == "__main__":
    main()
