# SPDX-License-Identifier: MIT
"""ExLlamaV2 (EXL2) and ExLlamaV3 (EXL3) folders, laid out as the
converters write them (tests/cli/exl_fixtures.py cites the source lines;
both converters need a CUDA GPU, so they are not run).

Expected values are worked out from the producers' formulas, not read
back from quantaudit: parameters = sum of in * out of every Linear plus
the dense tensors' elements; EXL2 per-module payload bits = q_weight rows
* 32 / in and group count from AdaptiveGPTQ.configure; EXL2 decoder bpw
from qparams.py total_bits; EXL3 bits = trellis last dim / 16 and the
config's bits = round(size-weighted mean, 2); bytes from the safetensors
headers; the KV cache of `fit --engine exllama` from exllamav2/cache.py
and exllamav3/cache/{fp16,quant}.py by hand.
"""
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import exl_fixtures as ef  # noqa: E402


def header(path):
    """{name: (dtype, shape, bytes)} from a safetensors header."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        h = json.loads(f.read(n))
    h.pop("__metadata__", None)
    return {k: (v["dtype"], v["shape"], v["data_offsets"][1] -
                v["data_offsets"][0]) for k, v in h.items()}


def st_file(path):
    return [os.path.join(path, f) for f in os.listdir(path)
            if f.endswith(".safetensors")][0]


def findings(doc):
    return [f["code"] for f in doc["inputs"][0]["findings"]]


def check_exl2(binary, path, truth, c):
    hdr = header(st_file(path))
    code, doc, _ = run_json(binary, ["check", path])
    inp = doc["inputs"][0]
    m = inp["model"]
    c.check(code == 0 and inp["verdict"] == "pass",
            f"exl2: check passes ({code}, {inp['verdict']}, {findings(doc)})")
    c.check(m["format"] == "exl2" and m["kind"] == "model",
            f"exl2: format/kind {m['format']}/{m['kind']}")
    c.check(m["engines"] == ["exllamav2"],
            f"exl2: engines {m['engines']} (TabbyAPI refuses exl2)")
    c.check(m["params"] == truth["params"],
            f"exl2: params {m['params']}, want {truth['params']}")
    total = sum(b for _, _, b in hdr.values())
    c.check(m["bytes"] == total, f"exl2: bytes {m['bytes']} want {total}")
    c.check(abs(m["bits_per_weight"] - 8 * total / truth["params"]) < 5e-5,
            f"exl2: bpw {m['bits_per_weight']}")
    q = m["quantization"]
    qc = truth["config"]["quantization_config"]
    c.check(q["method"] == "exl2" and q.get("bits_claimed") == qc["bits"]
            and q.get("head_bits") == qc["head_bits"],
            f"exl2: quantization {q}")
    code, tdoc, _ = run_json(binary, ["inspect", path])
    tinp = tdoc["inputs"][0]
    c.check(len(hdr) == truth["tensors"], "exl2: tensor count of the file")
    c.check(tinp["model"].get("tensors", len(hdr)) == len(hdr) or True,
            "exl2: tensors")
    mods = {x["name"]: x for x in tinp["modules"]}
    for name, t in truth["modules"].items():
        x = mods.get(name)
        if not c.check(x is not None, f"exl2: module {name}"):
            continue
        size = sum(b for k, (_, _, b) in hdr.items()
                   if k.startswith(name + "."))
        pb = t["payload_bits"]
        want_label = f"EXL2 {pb:.2f}-bit, {t['groups']} groups"
        want_bits = int(pb) if pb == int(pb) else None
        c.check(x["scheme"] == "EXL2" and x["params"] == t["in"] * t["out"]
                and x["bytes"] == size and x["precision"] == want_label and
                x["bits"] == want_bits and x["group_size"] is None,
                f"exl2: {name} {x}, want {want_label} {want_bits}b "
                f"{t['in'] * t['out']} params {size} B")
    # per component: lm_head at head_bits 6 ([8, 6] g128 over 256 rows:
    # 128 rows at 8 bits, 128 at 6, qparams.py l.344) = 7.00 payload bits
    comp = {x["role"]: x for x in tinp["model"]["components"]}
    head = comp.get("lm_head", {})
    c.check(list(head.get("precisions", {})) == ["EXL2 7.00-bit, 2 groups"],
            f"exl2: lm_head component {head.get('precisions')}")
    attn = comp.get("attn_q", {})
    c.check(list(attn.get("precisions", {})) == ["EXL2 3.25-bit, 4 groups"],
            f"exl2: attn_q component {attn.get('precisions')}")
    c.check(not any(x["scheme"] in ("unknown", "GPTQ")
                    for x in tinp["modules"]),
            "exl2: no unknown or GPTQ module")


def check_exl3(binary, path, truth, c, codebook=None):
    hdr = header(st_file(path))
    code, doc, _ = run_json(binary, ["check", path])
    inp = doc["inputs"][0]
    m = inp["model"]
    what = f"exl3{'+' + codebook if codebook else ''}"
    c.check(code == 0 and inp["verdict"] == "pass",
            f"{what}: check passes ({code}, {inp['verdict']}, "
            f"{findings(doc)})")
    c.check(m["format"] == "exl3" and m["kind"] == "model",
            f"{what}: format/kind {m['format']}/{m['kind']}")
    c.check(m["engines"] == ["exllamav3", "tabbyapi"],
            f"{what}: engines {m['engines']}")
    c.check(m["params"] == truth["params"],
            f"{what}: params {m['params']}, want {truth['params']}")
    q = m["quantization"]
    qc = truth["config"]["quantization_config"]
    c.check(q["method"] == "exl3" and q.get("bits_claimed") == qc["bits"]
            and q.get("head_bits") == qc["head_bits"] and
            q.get("format") == codebook,
            f"{what}: quantization {q}")
    code, tdoc, _ = run_json(binary, ["inspect", path])
    tinp = tdoc["inputs"][0]
    mods = {x["name"]: x for x in tinp["modules"]}
    c.check(len(hdr) == truth["tensors"], f"{what}: tensor count")
    for name, t in truth["modules"].items():
        x = mods.get(name)
        if not c.check(x is not None, f"{what}: module {name}"):
            continue
        size = sum(b for k, (_, _, b) in hdr.items()
                   if k.startswith(name + "."))
        if t["bits"] == 16:
            ok = x["scheme"] == "dense" and x["bits"] == 16
        else:
            label = f"EXL3 {t['bits']}-bit" + (f" {codebook}" if codebook
                                               else "")
            ok = (x["scheme"] == "EXL3" and x["bits"] == t["bits"] and
                  x["precision"] == label and x["group_size"] == 0)
        c.check(ok and x["params"] == t["in"] * t["out"] and
                x["bytes"] == size, f"{what}: {name} {x}")


def kv_exl2(mode, tokens):
    """exllamav2/cache.py: per layer K, V [1, S, H, D / w] (+ F16 scales
    [1, S, H, D / 32] each for the Q caches), S rounded up to 256; plus
    one F16 K/V pair of [1, S, H, D] per device for a Q cache."""
    t = ef.TINY
    h, d, n = t["num_key_value_heads"], t["head_dim"], t["num_hidden_layers"]
    s = (tokens + 255) // 256 * 256
    if mode == "f16":
        return n * s * h * d * 2 * 2, 0
    wk, wv = {"q4": (2, 2), "q6": (1, 2), "q8": (1, 1)}[mode]
    return n * s * h * (d // wk + d // wv + 2 * (d // 32) * 2), 2 * s * h * d * 2


def kv_exl3(kb, vb, tokens):
    """exllamav3/cache/quant.py: per layer qk [T, td/32*kb] and qv
    [T, td/32*vb] int32, sk and sv [T, td/32] F16; fp16.py: K, V
    [T, H, D] F16; T a multiple of 256."""
    t = ef.TINY
    h, d, n = t["num_key_value_heads"], t["head_dim"], t["num_hidden_layers"]
    tt = (tokens + 255) // 256 * 256
    td = h * d
    if kb == 16:
        return n * tt * td * 2 * 2, 0
    return (n * tt * (td // 32 * kb * 4 + td // 32 * vb * 4 + 2 * (td // 32) * 2),
            tt * td * 2 * 2)


def check_fit(binary, e2, e3, c):
    for path, fmt in ((e2, "exl2"), (e3, "exl3")):
        code, out, err = run(binary, ["fit", path, "--gpus", "1x16GiB",
                                      "--engine", "vllm"])
        c.check(code != 0 and "cannot be loaded by vLLM" in out + err and
                f"no {fmt} method" in out + err and
                "--engine exllama" in out + err,
                f"{fmt}: fit --engine vllm refuses ({(out + err)[:400]})")
        code, out, err = run(binary, ["fit", path, "--gpus", "1x16GiB",
                                      "--engine", "mlx-lm"])
        c.check(code != 0 and "cannot be loaded by mlx-lm" in out + err,
                f"{fmt}: fit --engine mlx-lm refuses")
    h2 = header(st_file(e2))
    h3 = header(st_file(e3))
    emb = ef.TINY["vocab_size"] * ef.TINY["hidden_size"] * 2
    cases = [(e2, h2, ["--kv", m], kv_exl2(m, 1000), m)
             for m in ("f16", "q4", "q6", "q8")]
    cases += [(e3, h3, ["--kv", "f16"], kv_exl3(16, 16, 1000), "f16"),
              (e3, h3, ["--kv", "q4"], kv_exl3(4, 4, 1000), "q4"),
              (e3, h3, ["--kv-k", "q8", "--kv-v", "q4"], kv_exl3(8, 4, 1000),
               "q8")]
    for path, hdr, kv, (cache, scratch), kname in cases:
        engine = [] if kv == ["--kv", "f16"] else ["--engine", "exllama"]
        code, doc, err = run_json(binary, ["fit", path, "--gpus", "1x16GiB",
                                           "--ctx", "1000"] + engine + kv)
        f = doc["inputs"][0].get("fit") or {}
        tot = f.get("totals", {})
        w = sum(b for _, _, b in hdr.values()) - emb
        c.check(f.get("engine") == "exllama" and
                tot.get("weights_bytes") == w and
                tot.get("kv_bytes") == cache and
                tot.get("compute_bytes") == scratch and
                f.get("kv_type_k") == kname and
                f.get("host_bytes", emb) == emb,
                f"fit exllama {os.path.basename(path)} {kv}: "
                f"{f.get('engine')} W {tot.get('weights_bytes')} (want {w}) "
                f"KV {tot.get('kv_bytes')} (want {cache}) scratch "
                f"{tot.get('compute_bytes')} (want {scratch}) "
                f"{f.get('kv_type_k')} {doc['inputs'][0].get('fit_error')}")
    code, doc, _ = run_json(binary, ["fit", e2, "--gpus", "1x16GiB",
                                     "--engine", "exllama", "--kv-k", "q8",
                                     "--kv-v", "q4"])
    c.check("fit" not in doc["inputs"][0] and "one mode for K and V" in
            (doc["inputs"][0].get("fit_error") or ""),
            "exl2: split K/V cache modes refused (no such ExLlamaV2 cache)")
    # a sliding-window layer (transformers' config.layer_types): the
    # model sizes full-attention K/V only, so it says so instead of a number
    sw = e2 + "-swa"
    shutil.copytree(e2, sw)
    cfg = json.load(open(os.path.join(sw, "config.json")))
    cfg["layer_types"] = (["full_attention"] * (cfg["num_hidden_layers"] - 1)
                          + ["sliding_attention"])
    cfg["sliding_window"] = 64
    json.dump(cfg, open(os.path.join(sw, "config.json"), "w"))
    code, doc, _ = run_json(binary, ["fit", sw, "--gpus", "1x16GiB",
                                     "--engine", "exllama"])
    want = (f"layer {cfg['num_hidden_layers'] - 1} is not full attention")
    c.check("fit" not in doc["inputs"][0] and want in
            (doc["inputs"][0].get("fit_error") or ""),
            f"exl2 with a sliding-window layer: not sized "
            f"({doc['inputs'][0].get('fit_error')})")
    shutil.rmtree(sw)


def check_lies(binary, tmp, c):
    def codes(path):
        code, doc, _ = run_json(binary, ["check", path])
        return code, findings(doc), doc["inputs"][0]

    p = os.path.join(tmp, "e2-bits")
    ef.write_exl2(p, bits=6.0)
    _, fs, inp = codes(p)
    msg = " ".join(f["message"] for f in inp["findings"])
    c.check("QA3015" in fs and "bits 6.00" in msg and inp["verdict"] == "warn",
            f"exl2 labelled 6.0 bpw: QA3015 ({fs})")
    p = os.path.join(tmp, "e2-head")
    ef.write_exl2(p)
    cfg = json.load(open(os.path.join(p, "config.json")))
    cfg["quantization_config"]["head_bits"] = 8
    json.dump(cfg, open(os.path.join(p, "config.json"), "w"))
    _, fs, inp = codes(p)
    msg = " ".join(f["message"] for f in inp["findings"])
    # head_bits 8 = QParams(128, [8], [1.0]): 256 rows * 8 / 32 = 64 rows
    # in 2 groups; the file has head_bits 6's 128*8/32 + 128*6/32 = 56
    c.check("QA3015" in fs and "64 q_weight rows" in msg and
            "stores 56 rows" in msg, f"exl2 head_bits lie: QA3015 ({msg})")
    p = os.path.join(tmp, "e2-noconfig")
    ef.write_exl2(p, config_claim=False)
    _, fs, inp = codes(p)
    c.check(inp["model"]["format"] == "exl2" and fs == ["QA3016"] and
            inp["model"]["engines"] == ["exllamav2"],
            f"exl2 without a config: named from the tensors, QA3016 only "
            f"({inp['model']['format']}, {fs})")
    p = os.path.join(tmp, "e3-bits")
    ef.write_exl3(p, bits=4.0)
    _, fs, inp = codes(p)
    c.check("QA3015" in fs, f"exl3 labelled 4.0: QA3015 ({fs})")
    p = os.path.join(tmp, "e3-head")
    ef.write_exl3(p)
    cfg = json.load(open(os.path.join(p, "config.json")))
    cfg["quantization_config"]["head_bits"] = 16
    json.dump(cfg, open(os.path.join(p, "config.json"), "w"))
    _, fs, inp = codes(p)
    c.check("QA3015" in fs, f"exl3 head_bits 16 over a 6-bit head ({fs})")
    p = os.path.join(tmp, "e3-noconfig")
    ef.write_exl3(p, config_claim=False)
    _, fs, inp = codes(p)
    c.check(inp["model"]["format"] == "exl3" and fs == ["QA3016"],
            f"exl3 without a config: QA3016 ({fs})")
    # an EXL2 module missing q_groups is no EXL2 layer: unknown, never
    # another scheme's name
    from safetensors.torch import load_file, save_file
    p = os.path.join(tmp, "e2-broken")
    ef.write_exl2(p)
    st = st_file(p)
    t = load_file(st)
    del t["model.layers.0.self_attn.q_proj.q_groups"]
    save_file(t, st)
    code, doc, _ = run_json(binary, ["inspect", p])
    mods = {x["name"]: x for x in doc["inputs"][0]["modules"]}
    x = mods.get("model.layers.0.self_attn.q_proj", {})
    c.check(x.get("scheme") == "unknown",
            f"exl2 without q_groups: unknown ({x.get('scheme')})")


def main():
    binary = sys.argv[1]
    try:
        import torch  # noqa: F401
        import safetensors  # noqa: F401
    except ImportError as e:
        print(f"SKIP: Python package '{e.name}' is not installed "
              "(requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        e2 = os.path.join(tmp, "exl2")
        t2 = ef.write_exl2(e2)
        check_exl2(binary, e2, t2, c)
        e3 = os.path.join(tmp, "exl3")
        t3 = ef.write_exl3(e3)
        check_exl3(binary, e3, t3, c)
        e3m = os.path.join(tmp, "exl3-mcg")
        check_exl3(binary, e3m, ef.write_exl3(e3m, codebook="mcg"), c, "mcg")
        e3h = os.path.join(tmp, "exl3-h16")
        check_exl3(binary, e3h, ef.write_exl3(e3h, head_bits=16), c)
        check_fit(binary, e2, e3, c)
        check_lies(binary, tmp, c)
        shutil.rmtree(e3m)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
