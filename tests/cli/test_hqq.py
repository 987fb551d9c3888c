# SPDX-License-Identifier: MIT
"""HQQ models written by hqq itself (mobiusml/hqq 0.2.8: AutoHQQHFModel.
quantize_model, then save_to_safetensors, which writes config.json without
a quantization config), from the tiny random Llama of st_producers: 4-bit
g64 (the layout vLLM loads), 3-bit g32 (3bit_32 packing, I32 words), 8-bit
g128, 2-bit g64 on axis 0, and one model with its own config per linear
tag (q_proj 8-bit, down_proj 2-bit, v_proj left dense). Each is read as hqq
writes it (QA3018: named from the tensors), then with the
quantization_config transformers' own HqqConfig.to_dict writes beside it,
then with lies.

Expected values come from the producers, not from quantaudit: the
parameter count from the torch model before quantization, each layer's
bits, group size, axis and shape from the HQQLinear's own meta (what
hqq's dequantize reads), bytes from the safetensors headers.
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import st_producers as sp  # noqa: E402

# name: (quant_config kwargs, or {linear tag: kwargs or None})
RECIPES = {
    "q4g64": dict(nbits=4, group_size=64, axis=1),
    "q3g32": dict(nbits=3, group_size=32, axis=1),
    "q8g128": dict(nbits=8, group_size=128, axis=1),
    "q2g64ax0": dict(nbits=2, group_size=64, axis=0),
    "tags": {"self_attn.q_proj": dict(nbits=8, group_size=64, axis=1),
             "self_attn.k_proj": dict(nbits=4, group_size=64, axis=1),
             "self_attn.v_proj": None,
             "self_attn.o_proj": dict(nbits=4, group_size=64, axis=1),
             "mlp.gate_proj": dict(nbits=4, group_size=64, axis=1),
             "mlp.up_proj": dict(nbits=4, group_size=64, axis=1),
             "mlp.down_proj": dict(nbits=2, group_size=32, axis=1)},
}


def hqq_quantize(src, dst, recipe):
    """hqq's own path; returns {module: (nbits, group, axis, (out, in))}
    from each HQQLinear's meta."""
    import torch
    from hqq.core.quantize import BaseQuantizeConfig, HQQLinear
    from hqq.models.hf.base import AutoHQQHFModel
    from transformers import AutoModelForCausalLM
    model = AutoModelForCausalLM.from_pretrained(src, dtype=torch.bfloat16)
    if "nbits" in recipe:
        qc = BaseQuantizeConfig(**recipe)
    else:
        qc = {k: (BaseQuantizeConfig(**v) if v else None)
              for k, v in recipe.items()}
    AutoHQQHFModel.quantize_model(model, quant_config=qc,
                                  compute_dtype=torch.bfloat16, device="cpu")
    AutoHQQHFModel.save_to_safetensors(model, dst)
    truth = {}
    for name, mod in model.named_modules():
        if isinstance(mod, HQQLinear):
            meta = mod.meta
            truth[name] = (int(meta["nbits"]), int(meta["group_size"]),
                           int(meta["axis"]), tuple(int(x) for x in
                                                    meta["shape"]))
    return truth


def with_config(tmp, good, name, recipe, edit=None):
    """A copy of good with transformers' HqqConfig.to_dict in config.json."""
    from transformers import HqqConfig
    d = os.path.join(tmp, name)
    shutil.copytree(good, d)
    if "nbits" in recipe:
        q = HqqConfig(**recipe).to_dict()
    else:
        q = HqqConfig(dynamic_config={k: v for k, v in recipe.items() if v},
                      skip_modules=["lm_head"] +
                      [k for k, v in recipe.items() if not v]).to_dict()
    if edit:
        edit(q)
    path = os.path.join(d, "config.json")
    cfg = json.load(open(path))
    cfg["quantization_config"] = q
    json.dump(cfg, open(path, "w"), indent=2)
    return d


def check_folder(binary, path, truth, params, c, configured):
    tensors = sp.folder_tensors(path)
    what = os.path.basename(path)
    code, doc, _ = run_json(binary, ["check", path])
    inp = doc["inputs"][0]
    m = inp["model"]
    codes = [f["code"] for f in inp["findings"]]
    c.check(m["format"] == "hqq" and m["kind"] == "model",
            f"{what}: format {m['format']} kind {m['kind']}")
    c.check(m["params"] == params,
            f"{what}: params {m['params']}, torch counts {params}")
    c.check(m["bytes"] == sum(b for _, _, b in tensors.values()),
            f"{what}: bytes {m['bytes']}")
    vllm_ok = all(t[0] == 4 and t[1] == 64 and t[2] == 1
                  for t in truth.values())
    # q, k, v at three precisions: vLLM's fused QKVParallelLinear takes
    # one scheme (QA3003), the only finding the "tags" model earns
    fused = ["QA3003"] if what.startswith("tags") else []
    c.check([x for x in codes if x not in ("QA3018",)] == fused,
            f"{what}: findings {codes}, want {fused}")
    if configured:
        c.check(code == (1 if fused else 0),
                f"{what}: check exit {code} ({codes})")
        c.check(m["quantization"]["method"] == "hqq",
                f"{what}: method {m['quantization']['method']}")
        c.check(m["engines"] == (["vllm"] if vllm_ok else []),
                f"{what}: engines {m['engines']} (vLLM: 4-bit g64 only)")
    else:
        c.check("QA3018" in codes,
                f"{what}: QA3018 without a config ({codes})")
        c.check(m["engines"] == [], f"{what}: engines {m['engines']}")
    _, tdoc, _ = run_json(binary, ["inspect", path])
    mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
    for name, (nbits, group, axis, shape) in sorted(truth.items()):
        x = mods.get(name)
        if not c.check(x is not None, f"{what}: module {name} present"):
            continue
        size = sum(b for k, (_, _, b) in tensors.items()
                   if k.startswith(name + "."))
        label = f"HQQ int{nbits} g{group}" + (" axis 0" if axis == 0 else "")
        c.check(x["scheme"] == "HQQ" and x["bits"] == nbits and
                x["group_size"] == group and x["bytes"] == size and
                x["params"] == shape[0] * shape[1] and
                x["precision"] == label,
                f"{what}: {name} {x['scheme']} {x['precision']} "
                f"{x['bits']}b g{x['group_size']} {x['bytes']}B "
                f"{x['params']}p, want {label} {size}B "
                f"{shape[0] * shape[1]}p")
    dense = [n for n, x in mods.items() if n not in truth and
             x["scheme"] != "dense"]
    c.check(not dense, f"{what}: the rest dense ({dense})")


def test_lies(binary, tmp, good4, good8, c):
    # the config claims 4-bit over 8-bit layers: QA3009, tensors win
    d = with_config(tmp, good8, "lie8", RECIPES["q4g64"])
    code, doc, _ = run_json(binary, ["check", d])
    inp = doc["inputs"][0]
    codes = [f["code"] for f in inp["findings"]]
    c.check(code == 1 and "QA3009" in codes,
            f"8-bit layers under a 4-bit hqq config: QA3009 ({codes})")
    # one layer's nbits tensor rewritten to 4 over 8-bit W_q bytes: the
    # layer is no HQQ layout quantaudit can read, and says so
    from safetensors.torch import load_file, save_file
    import torch
    d = os.path.join(tmp, "badnbits")
    shutil.copytree(good8, d)
    st = os.path.join(d, "model.safetensors")
    t = load_file(st)
    t["model.layers.0.mlp.up_proj.nbits"] = torch.tensor(4,
                                                         dtype=torch.int32)
    save_file(t, st)
    code, doc, _ = run_json(binary, ["check", d])
    inp = doc["inputs"][0]
    mods = {x["name"]: x for x in run_json(binary, ["inspect", d])[1]
            ["inputs"][0]["modules"]}
    x = mods.get("model.layers.0.mlp.up_proj", {})
    c.check(x.get("scheme") == "unknown" and code != 0 and
            any("up_proj" in f["message"] for f in inp["findings"]),
            f"nbits 4 over 8-bit bytes: unknown and named "
            f"({x.get('scheme')}, {[f['code'] for f in inp['findings']]})")
    # fit: vLLM sizes the configured 4-bit g64 model; an unconfigured
    # folder loads nowhere
    code, out, err = run(binary, ["fit", good4, "--gpus", "1x16GiB",
                                  "--engine", "vllm"])
    c.check("cannot be loaded by vLLM" in out + err,
            f"fit --engine vllm refuses hqq without its config "
            f"({(out + err)[:200]})")


def test_hostile(binary, tmp, c):
    """Hand-written headers (no producer): the values quantaudit reads
    are data a crafted file controls, so each one is bounded."""
    import struct

    def write(path, tensors):
        hdr, data = {}, b""
        for name, dtype, shape, raw in tensors:
            hdr[name] = {"dtype": dtype, "shape": shape,
                         "data_offsets": [len(data), len(data) + len(raw)]}
            data += raw
        h = json.dumps(hdr).encode()
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h + data)

    def layer(p, nbits, shape):
        return [(p + ".W_q", "U8", [64, 64], bytes(64 * 64)),
                (p + ".scale", "BF16", [128, 1], bytes(256)),
                (p + ".zero", "BF16", [128, 1], bytes(256)),
                (p + ".nbits", "I32", [], struct.pack("<i", nbits)),
                (p + ".shape", "I64", [2], struct.pack("<qq", *shape))]
    cases = {
        # nbits far out of range, negative, a shape whose product wraps
        "nbits-huge": layer("m.a", 2**31 - 1, (64, 128)),
        "nbits-neg": layer("m.a", -4, (64, 128)),
        "shape-wrap": layer("m.a", 4, (2**62, 4)),
        # the right bits, a shape of another size: not this layer's
        "shape-lie": layer("m.a", 4, (128, 128)),
    }
    for name, tensors in cases.items():
        path = os.path.join(tmp, name + ".safetensors")
        write(path, tensors)
        code, doc, err = run_json(binary, ["check", path])
        inp = doc["inputs"][0]
        mods = {x["name"]: x for x in inp.get("modules", [])}
        if not mods:
            _, tdoc, _ = run_json(binary, ["inspect", path])
            mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
        x = mods.get("m.a", {})
        named = [f for f in inp["findings"] if f["code"] == "QA3019" and
                 "m.a" in f["message"] and ".W_q U8" in f["message"]]
        c.check(code == 0 and x.get("scheme") == "unknown" and named and
                inp["verdict"] == "warn",
                f"hostile {name}: unknown, named by QA3019, no crash "
                f"({code}, {x.get('scheme')}, "
                f"{[f['code'] for f in inp['findings']]}, {err[:200]})")
    # the same layer told right: 4-bit g64, 64 x 128
    path = os.path.join(tmp, "right.safetensors")
    write(path, layer("m.a", 4, (64, 128)))
    code, doc, _ = run_json(binary, ["inspect", path])
    mods = {x["name"]: x for x in doc["inputs"][0]["modules"]}
    x = mods.get("m.a", {})
    c.check(x.get("precision") == "HQQ int4 g64" and
            x.get("params") == 64 * 128,
            f"hand-written 4-bit layer: {x.get('precision')} "
            f"{x.get('params')}")


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "transformers", "hqq")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed "
              "(requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        test_hostile(binary, tmp, c)
        hf = os.path.join(tmp, "hf")
        params = sp.tiny_llama(hf)
        made = {}
        for name, recipe in RECIPES.items():
            out = os.path.join(tmp, name)
            truth = hqq_quantize(hf, out, recipe)
            made[name] = out
            check_folder(binary, out, truth, params, c, False)
            check_folder(binary, with_config(tmp, out, name + "-cfg",
                                             recipe), truth, params, c,
                         True)
        test_lies(binary, tmp, made["q4g64"], made["q8g128"], c)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
