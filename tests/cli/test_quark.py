# SPDX-License-Identifier: MIT
"""AMD Quark models written by amd-quark itself (0.13, CPU):
ModelQuantizer(QConfig(...)).quantize_model, freeze, then
export_safetensors, from the tiny random Llama of st_producers (float32,
as Quark quantizes): int4 per-group 32 asymmetric weight-only (packed I32
in AWQ's layout under Quark's names), int8 per-channel weight-only, FP8
per-tensor weight-only, and FP8 W8A8 (weights and inputs, the one vLLM's
Quark loader takes). lm_head excluded as Quark's LLM templates do.

Expected values come from the producers, not from quantaudit: the
parameter count from the torch model before quantization, bits and group
size from the spec handed to Quark, bytes from the safetensors headers,
and which engine loads each from vLLM's quark.py _get_scheme_from_config
(W8A8 and OCP MX only).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import st_producers as sp  # noqa: E402

# name: (weight spec, input spec or None, label, bits, group, vLLM loads)
RECIPES = {
    "w4g32": ("int4g32", None, "Quark int4 g32", 4, 32, False),
    "w8ch": ("int8ch", None, "INT8 channel", 8, 0, False),
    "fp8": ("fp8t", None, "FP8", 8, 0, False),
    "fp8a8": ("fp8t", "fp8t", "FP8", 8, 0, True),
    # per-channel packs rows untransposed: weight [out, in/8], scale
    # [out], zero point [out/8] (quark/torch/utils/pack.py)
    "w4ch": ("int4ch", None, "Quark int4 channel", 4, 0, False),
    "u4g64": ("uint4g64", None, "Quark int4 g64", 4, 64, False),
}


def spec(name):
    from quark.torch.quantization.config.config import (
        FP8E4M3PerTensorSpec, Int4PerChannelSpec, Int4PerGroupSpec,
        Int8PerChannelSpec, Uint4PerGroupSpec)
    s = {"int4g32": lambda: Int4PerGroupSpec(ch_axis=-1, group_size=32,
                                             symmetric=False),
         "int4ch": lambda: Int4PerChannelSpec(ch_axis=0, symmetric=True),
         "uint4g64": lambda: Uint4PerGroupSpec(ch_axis=-1, group_size=64,
                                               symmetric=False),
         "int8ch": lambda: Int8PerChannelSpec(ch_axis=0, symmetric=True),
         "fp8t": lambda: FP8E4M3PerTensorSpec()}[name]()
    return s.to_quantization_spec() if hasattr(s, "to_quantization_spec") \
        else s


def quark_quantize(src, dst, wspec, ispec, layers=None):
    import torch
    from quark.torch import ModelQuantizer, export_safetensors
    from quark.torch.quantization.config.config import QConfig, QLayerConfig
    from transformers import AutoModelForCausalLM
    model = AutoModelForCausalLM.from_pretrained(src, dtype=torch.float32)
    layer = QLayerConfig(weight=spec(wspec),
                         input_tensors=spec(ispec) if ispec else None)
    per_layer = {pat: QLayerConfig(weight=spec(w)) for pat, w in
                 (layers or {}).items()}
    q = ModelQuantizer(QConfig(global_quant_config=layer,
                               layer_quant_config=per_layer,
                               exclude=["lm_head"]))
    # static input scales need calibration: a few random token batches
    torch.manual_seed(0)
    calib = [torch.randint(0, sp.TINY["vocab_size"], (1, 16))
             for _ in range(2)] if ispec else None
    model = q.freeze(q.quantize_model(model, calib))
    export_safetensors(model, dst)


def check_folder(binary, path, recipe, params, c):
    _, _, label, bits, group, vllm = recipe
    tensors = sp.folder_tensors(path)
    what = os.path.basename(path)
    code, doc, _ = run_json(binary, ["check", path])
    inp = doc["inputs"][0]
    m = inp["model"]
    codes = [f["code"] for f in inp["findings"]]
    c.check(code == 0 and codes == [], f"{what}: check passes ({codes})")
    q = m["quantization"]
    c.check(q["method"] == "quark" and q.get("bits") == bits and
            q.get("group_size") == group,
            f"{what}: {q['method']} {q.get('bits')}b g{q.get('group_size')}")
    c.check(m["engines"] == (["vllm"] if vllm else []),
            f"{what}: engines {m['engines']}")
    c.check(m["params"] == params,
            f"{what}: params {m['params']}, torch counts {params}")
    c.check(m["bytes"] == sum(b for _, _, b in tensors.values()),
            f"{what}: bytes {m['bytes']}")
    _, tdoc, _ = run_json(binary, ["inspect", path])
    mods = tdoc["inputs"][0]["modules"]
    linears = [x for x in mods if x["name"].startswith("model.layers.") and
               x["name"].endswith("_proj")]
    c.check(len(linears) == 14, f"{what}: {len(linears)} Linears")
    for x in linears:
        size = sum(b for k, (_, _, b) in tensors.items()
                   if k.startswith(x["name"] + "."))
        c.check(x["precision"] == label and x["bits"] == bits and
                x["group_size"] == group and x["bytes"] == size,
                f"{what}: {x['name']} {x['precision']} {x['bits']}b "
                f"g{x['group_size']} {x['bytes']}B, want {label} {size}B")
    # the summary names the scale's extent as the config gives it
    # (qscheme per_tensor: one scale; per_channel: one per row)
    extent = {"fp8t": "8-bit per-tensor", "int8ch": "8-bit per-channel",
              "int4g32": "4-bit g32", "int4ch": "4-bit per-channel",
              "uint4g64": "4-bit g64"}[recipe[0]]
    _, out, _ = run(binary, ["inspect", path])
    quant = [ln for ln in out.splitlines() if ln.strip().startswith("quant ")]
    c.check(quant and extent in quant[0], f"{what}: summary {quant}")
    # fit sizes it for vLLM only where vLLM's Quark loader builds it
    code, out, _ = run(binary, ["fit", path, "--gpus", "1x16GiB",
                                "--engine", "vllm"])
    c.check((code == 0 and ": fits" in out) if vllm else
            (code != 0 and "cannot be loaded by vLLM" in out),
            f"{what}: fit vllm ({code} {out[:200]})")
    rest = [x["name"] for x in mods if x not in linears and
            x["scheme"] != "dense"]
    c.check(not rest, f"{what}: the rest dense ({rest})")


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "transformers", "quark.torch")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed "
              "(requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        hf = os.path.join(tmp, "hf")
        params = sp.tiny_llama(hf)
        for name, recipe in RECIPES.items():
            out = os.path.join(tmp, name)
            quark_quantize(hf, out, recipe[0], recipe[1])
            check_folder(binary, out, recipe, params, c)
        # W8A8 FP8 everywhere but the down_proj layers, weight-only int4
        # there: vLLM builds no scheme for those layers, so it does not
        # load the model (quark.py _get_scheme_from_config per layer)
        out = os.path.join(tmp, "fp8a8-w4down")
        quark_quantize(hf, out, "fp8t", "fp8t", {"*down_proj": "int4g32"})
        _, doc, _ = run_json(binary, ["check", out])
        m = doc["inputs"][0]["model"]
        _, tdoc, _ = run_json(binary, ["inspect", out])
        mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
        down = mods.get("model.layers.0.mlp.down_proj", {})
        c.check(m["engines"] == [] and down.get("precision") ==
                "Quark int4 g32" and m["params"] == params,
                f"fp8a8 with int4 down_proj: engines {m['engines']}, "
                f"down_proj {down.get('precision')}, params {m['params']}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
