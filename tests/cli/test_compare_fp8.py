# SPDX-License-Identifier: MIT
"""compare QUANT SOURCE on FP8 safetensors checkpoints (issue 28):
x.weight in F8_E4M3 or F8_E5M2 beside its scale tensor, against the
BF16 checkpoint it was made from.

    test_compare_fp8.py QUANTAUDIT

The source is a LlamaForCausalLM written by transformers'
save_pretrained (random weights, BF16). Each quant keeps the source's
tensors and replaces every 2-D linear weight by its FP8 cast (torch's
own float8_e4m3fn / float8_e5m2 conversion, round to nearest) with the
scale layout of one producer:
- per tensor, x.weight_scale of one element (compressed-tensors'
  "FP8" preset and ModelOpt FP8);
- per output row, x.weight_scale [rows, 1] (compressed-tensors'
  FP8_DYNAMIC / channel strategy);
- per group of 64 along a row, x.weight_scale [rows, cols / 64]
  (compressed-tensors' group strategy);
- per 128x128 block, x.weight_scale_inv (transformers' fine-grained FP8,
  DeepSeek-V3), in E4M3 and in E5M2 (the latter as no producer writes
  it by default, to cover the second decoder).
Expected per tensor, worked in torch independently of the tool: deq =
fp8.float() * scale broadcast over its block; rel_rms = ||deq - src|| /
||src||, max_abs, cosine in float64. Also: a weight whose scale tensor
is missing is named as not compared, with the reason; a scale of the
wrong shape the same.
Skipped without torch, transformers or safetensors.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, compare_json as compare  # noqa: E402
import st_producers as sp  # noqa: E402


def write_source(path):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(vocab_size=320, hidden_size=256, intermediate_size=384,
                      num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, max_position_embeddings=512)
    torch.manual_seed(7)
    LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(path)


def load(path):
    from safetensors.torch import load_file
    out = {}
    for n in os.listdir(path):
        if n.endswith(".safetensors"):
            out.update(load_file(os.path.join(path, n)))
    return out


def quantize(src, dst, layout, f8):
    """dst: src's folder with every linear weight FP8 + scales; returns
    {name: dequantized float64 tensor}."""
    import shutil
    import torch
    from safetensors.torch import save_file
    shutil.copytree(src, dst)
    for n in os.listdir(dst):
        if n.endswith(".safetensors"):
            os.unlink(os.path.join(dst, n))
    ws = load(src)
    out, deq = {}, {}
    fmax = torch.finfo(f8).max
    for name, w in ws.items():
        if w.dim() != 2 or "embed" in name or "lm_head" in name:
            out[name] = w
            continue
        x = w.float()
        rows, cols = x.shape
        if layout == "tensor":
            s = (x.abs().max() / fmax).reshape(1)
            full = s.expand(rows, cols)
            key = name + "_scale"
        elif layout == "row":
            s = (x.abs().amax(dim=1, keepdim=True) / fmax)
            full = s.expand(rows, cols)
            key = name + "_scale"
        elif layout == "group":
            g = 64
            s = x.reshape(rows, cols // g, g).abs().amax(dim=2) / fmax
            full = s.repeat_interleave(g, 1)
            key = name + "_scale"
        else:
            gr, gc = -(-rows // 128), -(-cols // 128)
            s = torch.empty(gr, gc)
            for i in range(gr):
                for j in range(gc):
                    blk = x[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128]
                    s[i, j] = blk.abs().max() / fmax
            full = s.repeat_interleave(128, 0)[:rows].repeat_interleave(
                128, 1)[:, :cols]
            key = name + "_scale_inv"
        q = (x / full).to(f8)
        out[name] = q
        out[key] = s.float().contiguous()
        deq[name] = q.double() * full.double()
    save_file(out, os.path.join(dst, "model.safetensors"),
              metadata={"format": "pt"})
    return deq, ws


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "safetensors", "transformers")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed")
        return SKIP
    import torch
    if not hasattr(torch, "float8_e5m2"):
        print("SKIP: this torch has no float8 dtypes")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        write_source(src)
        cases = (("tensor", torch.float8_e4m3fn, "F8_E4M3"),
                 ("row", torch.float8_e4m3fn, "F8_E4M3"),
                 ("group", torch.float8_e4m3fn, "F8_E4M3"),
                 ("block", torch.float8_e4m3fn, "F8_E4M3"),
                 ("block", torch.float8_e5m2, "F8_E5M2"))
        for layout, f8, dtype in cases:
            label = f"{layout} {dtype}"
            qd = os.path.join(tmp, f"q-{layout}-{dtype}")
            deq, ws = quantize(src, qd, layout, f8)
            rc, rep, err = compare(binary, qd, src)
            tens = {t["name"]: t for t in rep.get("tensors", [])}
            c.check(rc in (0, 1) and tens, f"{label}: ran ({rc} {err[:200]})")
            for name, d in deq.items():
                t = tens.get(name, {})
                s = ws[name].double()
                diff = d - s
                rel = (diff.norm() / s.norm()).item()
                mx = diff.abs().max().item()
                cos = ((d * s).sum() / (d.norm() * s.norm())).item()
                ok = (t.get("state") == "compared" and
                      abs(t.get("rel_rms", -1) - rel) <= 1e-5 * rel + 1e-9
                      and abs(t.get("max_abs", -1) - mx) <= 1e-6 * mx + 1e-9
                      and abs(t.get("cosine", -1) - cos) <= 1e-6)
                if not c.check(ok, f"{label} {name}: tool {t.get('state')} "
                               f"rel {t.get('rel_rms')} max "
                               f"{t.get('max_abs')} cos {t.get('cosine')}; "
                               f"torch rel {rel} max {mx} cos {cos} "
                               f"({t.get('why')})"):
                    break
            # the scales themselves have no partner: named, not compared
            scales = [n for n in tens if n.endswith(("_scale", "_scale_inv"))]
            c.check(len(scales) == len(deq) and all(
                tens[n]["state"] != "compared" for n in scales),
                f"{label}: scale tensors listed, not compared: {scales[:3]}")
        # E4M3 per tensor is finer than E5M2 per block? Both near their
        # mantissa's step: E4M3 (3 bits) below E5M2 (2 bits)
        _, r4, _ = compare(binary, os.path.join(tmp, "q-block-F8_E4M3"), src)
        _, r5, _ = compare(binary, os.path.join(tmp, "q-block-F8_E5M2"), src)
        c.check(0 < r4.get("rel_rms", 0) < r5.get("rel_rms", 0),
                f"E4M3 below E5M2: {r4.get('rel_rms')} {r5.get('rel_rms')}")

        # a weight without its scale: not compared, and why
        from safetensors.torch import load_file, save_file
        qd = os.path.join(tmp, "q-block-F8_E4M3")
        st = os.path.join(qd, "model.safetensors")
        ws = load_file(st)
        gone = next(k for k in ws if k.endswith("_scale_inv"))
        del ws[gone]
        wrong = next(k for k in ws if k.endswith("_scale_inv"))
        ws[wrong] = torch.ones(3, 5)
        save_file(ws, st, metadata={"format": "pt"})
        rc, rep, err = compare(binary, qd, src)
        tens = {t["name"]: t for t in rep.get("tensors", [])}
        a = tens.get(gone[:-len("_scale_inv")], {})
        b = tens.get(wrong[:-len("_scale_inv")], {})
        c.check(a.get("state") == "no-dequantizer" and
                "without a scale tensor" in a.get("why", ""),
                f"missing scale: {a.get('state')} {a.get('why')}")
        c.check(b.get("state") == "no-dequantizer" and
                "fits no grid" in b.get("why", ""),
                f"wrong scale: {b.get('state')} {b.get('why')}")
    c.finish()


if __name__ == "__main__":
    sys.exit(main())
