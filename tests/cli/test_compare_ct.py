# SPDX-License-Identifier: MIT
"""compare QUANT SOURCE on compressed-tensors pack-quantized checkpoints
(issue 28): x.weight_packed (I32) beside x.weight_scale, x.weight_shape
and, when asymmetric, x.weight_zero_point, against the BF16 checkpoint
they were made from.

    test_compare_ct.py QUANTAUDIT

The source is a random LlamaForCausalLM written by transformers'
save_pretrained (BF16). Each quant is compressed-tensors' own path:
apply_quantization_config with a QuantizationScheme on every Linear but
lm_head, each weight's scale and zero point from its min and max by the
library's calculate_qparams, ModelCompressor.compress_model, then
save_pretrained and update_config (the files and config vLLM reads):
4 bits g32 asymmetric, 4 bits per channel symmetric, 8 bits g128
symmetric, 2 bits g32 asymmetric. Expected per tensor, worked with the
library's own PackedQuantizationCompressor.decompress (scales in
float32), independently of the tool: rel_rms, max_abs and cosine in
float64 against the BF16 source. Then: a weight_g_idx beside one packed
weight (activation order, as earlier releases wrote it) and a 3-bit
quant (whose packing changed between releases) named, not compared;
lower bits rank worse.
Skipped without compressed-tensors, torch, transformers or safetensors.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, compare_json as compare  # noqa: E402
import st_producers as sp  # noqa: E402


def make(src, dst, bits, group, symmetric):
    import torch
    from transformers import LlamaForCausalLM
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import (
        QuantizationArgs, QuantizationConfig, QuantizationScheme,
        apply_quantization_config)
    from compressed_tensors.quantization.utils import calculate_qparams
    model = LlamaForCausalLM.from_pretrained(src, dtype=torch.bfloat16)
    args = QuantizationArgs(num_bits=bits, type="int", symmetric=symmetric,
                            strategy="group" if group else "channel",
                            group_size=group or None)
    apply_quantization_config(model, QuantizationConfig(
        config_groups={"group_0": QuantizationScheme(targets=["Linear"],
                                                     weights=args)},
        ignore=["lm_head"], format="pack-quantized"))
    for _, mod in model.named_modules():
        if (isinstance(mod, torch.nn.Linear) and
                getattr(mod, "quantization_scheme", None) is not None):
            w = mod.weight.data.float()
            rows, cols = w.shape
            g = w.reshape(rows, cols // (group or cols), group or cols)
            scale, zp = calculate_qparams(g.amin(dim=2), g.amax(dim=2),
                                          mod.quantization_scheme.weights)
            mod.weight_scale.data.copy_(scale.reshape(mod.weight_scale.shape))
            if hasattr(mod, "weight_zero_point"):
                mod.weight_zero_point.data.copy_(
                    zp.reshape(mod.weight_zero_point.shape))
    comp = ModelCompressor.from_pretrained_model(
        model, quantization_format="pack-quantized")
    comp.compress_model(model)
    model.save_pretrained(dst)
    comp.update_config(dst)


def truth(quant):
    """{x.weight_packed: float64 tensor} by the library's decompress."""
    import torch
    from safetensors.torch import load_file
    from compressed_tensors.compressors.pack_quantized.base import (
        PackedQuantizationCompressor)
    from compressed_tensors.quantization import QuantizationScheme
    with open(os.path.join(quant, "config.json")) as f:
        qc = json.load(f)["quantization_config"]
    scheme = QuantizationScheme(**qc["config_groups"]["group_0"])
    ts = {}
    for n in os.listdir(quant):
        if n.endswith(".safetensors"):
            ts.update(load_file(os.path.join(quant, n)))
    out = {}
    for name in ts:
        if not name.endswith(".weight_packed"):
            continue
        mod = name[:-len(".weight_packed")]
        sd = {k[len(mod) + 1:]: v for k, v in ts.items()
              if k.startswith(mod + ".")}
        sd["weight_scale"] = sd["weight_scale"].float()
        out[name] = PackedQuantizationCompressor.decompress(
            sd, scheme)["weight"].double()
    return out


def main():
    binary = sys.argv[1]
    absent = sp.missing("compressed_tensors", "torch", "safetensors",
                        "transformers")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed")
        return SKIP
    from safetensors.torch import load_file
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        hf = os.path.join(tmp, "hf")
        sp.tiny_llama(hf)
        src = {k: v.double() for k, v in
               load_file(os.path.join(hf, "model.safetensors")).items()}
        ranks = {}
        for bits, group, sym in ((4, 32, False), (4, 0, True),
                                 (8, 128, True), (2, 32, False)):
            label = f"{bits}b-g{group or 'channel'}-{'sym' if sym else 'asym'}"
            qd = os.path.join(tmp, label)
            make(hf, qd, bits, group, sym)
            want = truth(qd)
            rc, rep, err = compare(binary, qd, hf)
            tens = {t["name"]: t for t in rep.get("tensors", [])}
            c.check(rc in (0, 1) and len(want) == 14 and tens,
                    f"{label}: ran ({rc} {err[:200]}), {len(want)} packed")
            for name, d in sorted(want.items()):
                t = tens.get(name, {})
                s = src[name[:-len("_packed")]]
                diff = d - s
                rel = (diff.norm() / s.norm()).item()
                mx = diff.abs().max().item()
                cos = ((d * s).sum() / (d.norm() * s.norm())).item()
                ok = (t.get("state") == "compared" and
                      t.get("source_name") == name[:-len("_packed")] and
                      abs(t.get("rel_rms", -1) - rel) <= 1e-6 * rel + 1e-12
                      and t.get("max_abs", -1) == mx
                      and abs(t.get("cosine", -1) - cos) <= 1e-6)
                if not c.check(ok, f"{label} {name}: tool {t.get('state')} "
                               f"rel {t.get('rel_rms')} max {t.get('max_abs')} "
                               f"cos {t.get('cosine')}; library rel {rel} max "
                               f"{mx} cos {cos} ({t.get('why')})"):
                    break
            ranks[label] = rep.get("rel_rms", 0)
        c.check(0 < ranks["8b-g128-sym"] < ranks["4b-g32-asym"] < ranks["2b-g32-asym"],
                f"8 < 4 < 2 bits: {ranks}")

        # weight_g_idx beside a packed weight, as releases before 0.20
        # wrote it for actorder "group" (0.20 refuses that actorder):
        # the columns' groups are then g_idx[j], not j / G, so that
        # tensor is named, not dequantized as if in order
        import torch
        from safetensors.torch import save_file
        qd = os.path.join(tmp, "4b-g32-asym")
        st = os.path.join(qd, "model.safetensors")
        ts = load_file(st)
        mod = "model.layers.0.mlp.up_proj"
        cols = int(ts[mod + ".weight_shape"][1])
        ts[mod + ".weight_g_idx"] = (torch.arange(cols, dtype=torch.int32) // 32)
        save_file(ts, st, metadata={"format": "pt"})
        rc, rep, err = compare(binary, qd, hf)
        tens = {t["name"]: t for t in rep.get("tensors", [])}
        t = tens.get(mod + ".weight_packed", {})
        c.check(t.get("state") == "no-dequantizer" and "weight_g_idx" in t.get("why", ""),
                f"g_idx: {t.get('state')} {t.get('why')}")
        c.check(tens.get("model.layers.0.mlp.down_proj.weight_packed", {}).get("state")
                == "compared", "g_idx: the other modules still compared")

        # 3 bits: packed densely by 0.20, word-aligned before; not guessed
        qd = os.path.join(tmp, "3b")
        make(hf, qd, 3, 32, True)
        rc, rep, err = compare(binary, qd, hf)
        t = next((t for t in rep.get("tensors", [])
                  if t["name"] == "model.layers.0.mlp.up_proj.weight_packed"), {})
        c.check(t.get("state") == "no-dequantizer" and "releases" in t.get("why", ""),
                f"3 bits: {t.get('state')} {t.get('why')}")
    c.finish()


if __name__ == "__main__":
    sys.exit(main())
