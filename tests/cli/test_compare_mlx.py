# SPDX-License-Identifier: MIT
"""compare QUANT SOURCE on MLX affine quants (issue 28): x.weight (U32,
packed codes) beside x.scales and x.biases, against the BF16 checkpoint
mlx-lm quantized.

    test_compare_mlx.py QUANTAUDIT

The source is a random LlamaForCausalLM written by transformers'
save_pretrained (BF16); each quant is mlx-lm 0.32's own convert path
(load_model, quantize_model, save_model, save_config:
st_producers.mlx_quantize) at 4 bits g64, 3 bits g32 (codes that
straddle two words), 8 bits g128, and mlx-lm's mixed_3_6 recipe (3- and
6-bit modules side by side, each named in the config). Expected per
tensor, worked with MLX's own dequantizer, independently of the tool:
mx.dequantize(weight, scales, biases) with the scales and biases in
float32, then rel_rms = ||deq - src|| / ||src||, max_abs and cosine in
float64 against the BF16 source. Then: the bits the config declares
changed so they disagree with the shapes -- named, not compared; an
mxfp4 quant (scales, no biases) named, not compared; lower bits rank
worse.
Skipped without mlx, mlx-lm, torch, transformers or safetensors.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, compare_json as compare  # noqa: E402
import st_producers as sp  # noqa: E402


def load_mx(folder):
    """{name: mx.array} of every shard (mx.load reads BF16, which numpy
    cannot hold)."""
    import mlx.core as mx
    out = {}
    for n in sorted(os.listdir(folder)):
        if n.endswith(".safetensors"):
            for k, v in mx.load(os.path.join(folder, n)).items():
                out[k] = v
    return out


def truth(quant, config):
    """{weight name: float64 numpy array} by mx.dequantize."""
    import numpy as np
    import mlx.core as mx
    ts = load_mx(quant)
    q = config.get("quantization", {})
    out = {}
    for name, w in ts.items():
        if not name.endswith(".weight") or w.dtype != mx.uint32:
            continue
        mod = name[:-len(".weight")]
        own = q.get(mod, {}) if isinstance(q.get(mod), dict) else {}
        bits = own.get("bits", q.get("bits"))
        group = own.get("group_size", q.get("group_size"))
        s = ts[mod + ".scales"].astype(mx.float32)
        b = ts[mod + ".biases"].astype(mx.float32)
        d = mx.dequantize(w, s, b, group_size=group, bits=bits)
        out[name] = np.array(d.astype(mx.float32)).astype(np.float64)
    return out


def source(hf):
    import numpy as np
    import mlx.core as mx
    return {k: np.array(v.astype(mx.float32)).astype(np.float64)
            for k, v in load_mx(hf).items()}


def main():
    binary = sys.argv[1]
    absent = sp.missing("mlx.core", "mlx_lm", "torch", "safetensors",
                        "transformers", "numpy")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed")
        return SKIP
    import numpy as np
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        hf = os.path.join(tmp, "hf")
        sp.tiny_llama(hf)
        src = source(hf)
        ranks = {}
        for recipe in (("affine", 4, 64), ("affine", 3, 32),
                       ("affine", 8, 128), ("mixed_3_6",)):
            label = "-".join(str(x) for x in recipe)
            qd = os.path.join(tmp, "q-" + label)
            config, _ = sp.mlx_quantize(hf, qd, recipe)
            want = truth(qd, config)
            rc, rep, err = compare(binary, qd, hf)
            tens = {t["name"]: t for t in rep.get("tensors", [])}
            c.check(rc in (0, 1) and want and tens,
                    f"{label}: ran ({rc} {err[:200]}), {len(want)} packed")
            for name, d in sorted(want.items()):
                t = tens.get(name, {})
                s = src[name]
                diff = d - s
                rel = float(np.linalg.norm(diff) / np.linalg.norm(s))
                mx_ = float(np.abs(diff).max())
                cos = float((d * s).sum() / (np.linalg.norm(d) * np.linalg.norm(s)))
                ok = (t.get("state") == "compared" and
                      abs(t.get("rel_rms", -1) - rel) <= 1e-6 * rel + 1e-12
                      and t.get("max_abs", -1) == mx_
                      and abs(t.get("cosine", -1) - cos) <= 1e-6)
                if not c.check(ok, f"{label} {name}: tool {t.get('state')} "
                               f"rel {t.get('rel_rms')} max {t.get('max_abs')} "
                               f"cos {t.get('cosine')}; mlx rel {rel} max {mx_} "
                               f"cos {cos} ({t.get('why')})"):
                    break
            side = [n for n in tens if n.endswith((".scales", ".biases"))]
            c.check(len(side) == 2 * len(want) and all(
                tens[n]["state"] != "compared" for n in side),
                f"{label}: scales and biases listed, not compared")
            ranks[label] = rep.get("rel_rms", 0)
        c.check(0 < ranks["affine-8-128"] < ranks["affine-4-64"] < ranks["affine-3-32"],
                f"8 < 4 < 3 bits: {ranks}")

        # the config's bits changed so they disagree with the shapes
        qd = os.path.join(tmp, "q-affine-4-64")
        cfg_path = os.path.join(qd, "config.json")
        with open(cfg_path) as f:
            cfg = json.load(f)
        cfg["quantization"]["bits"] = 8
        cfg["quantization_config"] = cfg["quantization"]
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        rc, rep, err = compare(binary, qd, hf)
        t = next((t for t in rep.get("tensors", [])
                  if t["name"] == "model.layers.0.mlp.up_proj.weight"), {})
        c.check(t.get("state") == "no-dequantizer" and "disagree" in t.get("why", ""),
                f"bits that disagree: {t.get('state')} {t.get('why')}")

        # mxfp4: scales but no biases, not affine
        qd = os.path.join(tmp, "q-mxfp4")
        sp.mlx_quantize(hf, qd, ("mxfp4",))
        rc, rep, err = compare(binary, qd, hf)
        t = next((t for t in rep.get("tensors", [])
                  if t["name"] == "model.layers.0.mlp.up_proj.weight"), {})
        c.check(t.get("state") == "no-dequantizer" and t.get("why"),
                f"mxfp4: {t.get('state')} {t.get('why')}")
    c.finish()


if __name__ == "__main__":
    sys.exit(main())
