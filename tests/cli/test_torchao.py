# SPDX-License-Identifier: MIT
"""torchao models written by transformers with torchao itself
(TorchAoConfig(quant_type=...), from_pretrained quantizing on CPU, then
save_pretrained to safetensors, which flattens each tensor subclass into
<module>._weight_qdata / _weight_scale / _weight_zero_point): int8
weight-only, int8 dynamic, float8 weight-only, int4 in int8 (Intx,
PerGroup 32), and one FqnToConfig mixing three configs, a regex and a
module left dense.

Expected values come from the producers, not from quantaudit: the
parameter count from the torch model before quantization, each module's
subclass, bits (Intx: its target_dtype) and group (its block_size) from
the quantized torch model itself, bytes from the safetensors headers.
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run_json  # noqa: E402
import st_producers as sp  # noqa: E402

RECIPES = ["int8wo", "int8dyn", "fp8wo", "intx4g32", "fqn"]


def config_of(name):
    import torch
    import torchao.quantization as q
    intx = dict(weight_dtype=torch.int4, granularity=q.PerGroup(32))
    if name == "int8wo":
        return q.Int8WeightOnlyConfig()
    if name == "int8dyn":
        return q.Int8DynamicActivationInt8WeightConfig()
    if name == "fp8wo":
        return q.Float8WeightOnlyConfig()
    if name == "intx4g32":
        return q.IntxWeightOnlyConfig(**intx)
    return q.FqnToConfig({
        "_default": q.Int8WeightOnlyConfig(),
        "model.layers.0.self_attn.q_proj": q.Float8WeightOnlyConfig(),
        "re:.*down_proj": q.IntxWeightOnlyConfig(**intx),
        "model.layers.1.self_attn.v_proj": None})


def torchao_quantize(src, dst, name):
    """Returns {module: (subclass, bits, group, (out, in))}."""
    import torch
    from transformers import AutoModelForCausalLM, TorchAoConfig
    model = AutoModelForCausalLM.from_pretrained(
        src, dtype=torch.bfloat16, device_map="cpu",
        quantization_config=TorchAoConfig(quant_type=config_of(name)))
    model.save_pretrained(dst, safe_serialization=True)
    truth = {}
    for mname, mod in model.named_modules():
        w = getattr(mod, "weight", None)
        if w is None or type(w).__name__ in ("Parameter", "Tensor"):
            continue
        kind = type(w).__name__
        bits = 8
        if kind == "IntxUnpackedToInt8Tensor":
            bits = int(str(w.target_dtype).replace("torch.int", ""))
        block = list(w.block_size)
        group = 0 if block[-1] >= w.shape[-1] else block[-1]
        truth[mname] = (kind, bits, group, tuple(w.shape))
    return truth


def label(kind, bits, group):
    g = f"g{group}" if group else "channel"
    if kind == "Float8Tensor":
        return f"torchao FP8 {g}"
    if bits == 8:
        return f"torchao int8 {g}"
    return f"torchao int{bits} {g} (int8-stored)"


def check_folder(binary, path, truth, params, c):
    tensors = sp.folder_tensors(path)
    what = os.path.basename(path)
    code, doc, _ = run_json(binary, ["check", path])
    inp = doc["inputs"][0]
    m = inp["model"]
    codes = [f["code"] for f in inp["findings"]]
    # FqnToConfig leaves layer 1's v_proj dense beside a quantized q/k,
    # and puts layer 0's q_proj in FP8 beside int8 k/v: vLLM's fused
    # qkv_proj takes one method (QA3003, one finding for both layers)
    want = ["QA3003"] if what == "fqn" else []
    c.check(codes == want and (not want or "2 modules" in
                               inp["findings"][0]["message"]),
            f"{what}: findings {codes}, want {want}")
    c.check(m["format"] == "hf" and m["kind"] == "model" and
            m["quantization"]["method"] == "torchao",
            f"{what}: {m['format']} {m['kind']} "
            f"{m['quantization']['method']}")
    c.check(m["engines"] == ["vllm"], f"{what}: engines {m['engines']}")
    c.check(m["params"] == params,
            f"{what}: params {m['params']}, torch counts {params}")
    c.check(m["bytes"] == sum(b for _, _, b in tensors.values()),
            f"{what}: bytes {m['bytes']}")
    _, tdoc, _ = run_json(binary, ["inspect", path])
    mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
    for name, (kind, bits, group, shape) in sorted(truth.items()):
        x = mods.get(name)
        if not c.check(x is not None, f"{what}: module {name} present"):
            continue
        size = sum(b for k, (_, _, b) in tensors.items()
                   if k.startswith(name + "."))
        want = label(kind, bits, group)
        scheme = "torchao-FP8" if kind == "Float8Tensor" else "torchao"
        c.check(x["scheme"] == scheme and x["precision"] == want and
                x["bits"] == bits and x["group_size"] == group and
                x["bytes"] == size and x["params"] == shape[0] * shape[1],
                f"{what}: {name} {x['precision']} {x['bits']}b "
                f"g{x['group_size']} {x['bytes']}B {x['params']}p, want "
                f"{want} {size}B {shape[0] * shape[1]}p")
    rest = [n for n, x in mods.items() if n not in truth and
            x["scheme"] != "dense"]
    c.check(not rest, f"{what}: the rest dense ({rest})")


def test_broken(binary, tmp, good, c):
    """One module's scale dropped: it is no layout quantaudit can read,
    and the report names it rather than passing."""
    from safetensors.torch import load_file, save_file
    d = os.path.join(tmp, "noscale")
    shutil.copytree(good, d)
    st = os.path.join(d, "model.safetensors")
    t = load_file(st)
    del t["model.layers.0.mlp.up_proj._weight_scale"]
    save_file(t, st, metadata={"format": "pt"})
    code, doc, _ = run_json(binary, ["check", d])
    inp = doc["inputs"][0]
    c.check(code == 1 and any("up_proj" in f["message"]
                              for f in inp["findings"]),
            f"dropped scale: named ({code}, "
            f"{[(f['code'], f['message'][:100]) for f in inp['findings']]})")
    # the config edited to say float8 over int8 tensors: another scheme
    d = os.path.join(tmp, "lie")
    shutil.copytree(good, d)
    path = os.path.join(d, "config.json")
    cfg = json.load(open(path))
    cfg["quantization_config"]["quant_type"]["default"]["_type"] = \
        "Float8WeightOnlyConfig"
    json.dump(cfg, open(path, "w"))
    code, doc, _ = run_json(binary, ["inspect", d])
    q = doc["inputs"][0]["model"]["quantization"]
    c.check(q.get("format") == "Float8WeightOnlyConfig",
            f"edited config read as written ({q.get('format')})")


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "transformers", "torchao")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed "
              "(requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        hf = os.path.join(tmp, "hf")
        params = sp.tiny_llama(hf)
        made = {}
        for name in RECIPES:
            out = os.path.join(tmp, name)
            truth = torchao_quantize(hf, out, name)
            c.check(len(truth) >= 13, f"{name}: torchao quantized "
                    f"{len(truth)} modules")
            made[name] = out
            check_folder(binary, out, truth, params, c)
        test_broken(binary, tmp, made["int8wo"], c)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
