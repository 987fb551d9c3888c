# SPDX-License-Identifier: MIT
"""MLX folders written by mlx-lm itself (tests/cli/st_producers.py):
affine 4-bit g64, the mixed_3_6 recipe (per-module entries in the
quantization dict), the mxfp4 / nvfp4 / mxfp8 modes without biases, one
model mixing all four modes per module, and that model's config edited
to claim another mode than its tensors hold (QA3017).

Expected values come from the producers, not from quantaudit: the
parameter count from the torch model before quantization, bits per
weight from mlx_lm.utils.compute_bits_per_weight, each module's bits and
group size from the config dict mlx-lm wrote (its own entry, else the
global one), bytes from the safetensors headers' data_offsets, and the
KV cache of `fit --engine mlx-lm` from mlx_lm/models/cache.py KVCache by
hand: layers * 2 (K, V) * kv_heads * head_dim * 2 bytes * ceil(ctx/256)*256.
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import st_producers as sp  # noqa: E402

RECIPES = {
    "affine4": ("affine", 4, 64),
    "mixed": ("mixed_3_6",),
    "mxfp4": ("mxfp4",),
    "nvfp4": ("nvfp4",),
    "mxfp8": ("mxfp8",),
    # one model, four modes: each module's own {bits, group_size, mode}
    "modes": ("per_module", {
        "down_proj": {"group_size": 32, "bits": 4, "mode": "mxfp4"},
        "q_proj": {"group_size": 16, "bits": 4, "mode": "nvfp4"},
        "lm_head": {"group_size": 32, "bits": 8, "mode": "mxfp8"}}),
}
SCHEME = {"affine": "MLX-affine", "mxfp4": "MLX-mxfp4",
          "nvfp4": "MLX-nvfp4", "mxfp8": "MLX-mxfp8"}


def module_truth(config, tensors):
    """{module: (bits, group, mode, bytes)} for every quantized module:
    those with a .scales tensor, as mlx-lm's loader decides."""
    q = config["quantization"]
    out = {}
    for name in tensors:
        if not name.endswith(".scales"):
            continue
        mod = name[:-len(".scales")]
        own = q.get(mod) if isinstance(q.get(mod), dict) else {}
        bits = own.get("bits", q["bits"])
        group = own.get("group_size", q["group_size"])
        mode = own.get("mode", q.get("mode", "affine"))
        size = sum(b for k, (_, _, b) in tensors.items()
                   if k.startswith(mod + "."))
        out[mod] = (bits, group, mode, size)
    return out


def check_folder(binary, path, recipe, config, bpw, params, c):
    tensors = sp.folder_tensors(path)
    code, doc, err = run_json(binary, ["check", path])
    inp = doc["inputs"][0]
    m = inp["model"]
    what = os.path.basename(path)
    c.check(code == 0 and inp["verdict"] == "pass",
            f"{what}: check passes ({code}, {inp['verdict']}, "
            f"{[f['code'] for f in inp['findings']]})")
    c.check(m["format"] == "mlx", f"{what}: format {m['format']}")
    c.check(m["kind"] == "model", f"{what}: kind {m['kind']}")
    c.check(m["engines"] == ["mlx-lm"], f"{what}: engines {m['engines']}")
    q = m["quantization"]
    mode = config["quantization"].get("mode", "affine")
    c.check(q["method"] == "mlx" and q.get("format") == mode,
            f"{what}: method {q['method']} / {q.get('format')}, want mlx / "
            f"{mode}")
    c.check(q.get("bits") == config["quantization"]["bits"] and
            q.get("group_size") == config["quantization"]["group_size"],
            f"{what}: bits/group {q.get('bits')}/{q.get('group_size')}")
    c.check(m["params"] == params,
            f"{what}: params {m['params']}, torch counts {params}")
    c.check(abs(m["bits_per_weight"] - bpw) < 5e-4,
            f"{what}: bpw {m['bits_per_weight']}, mlx-lm says {bpw:.4f}")
    c.check(len(inp.get("tensors", tensors)) == len(tensors) or
            "tensors" not in inp, f"{what}: tensor count")
    code, tdoc, _ = run_json(binary, ["inspect", path])
    mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
    truth = module_truth(config, tensors)
    for name, (bits, group, mmode, size) in sorted(truth.items()):
        x = mods.get(name)
        if not c.check(x is not None, f"{what}: module {name} present"):
            continue
        c.check(x["scheme"] == SCHEME[mmode] and x["bits"] == bits and
                x["group_size"] == group and x["bytes"] == size,
                f"{what}: {name} {x['scheme']} {x['bits']}b "
                f"g{x['group_size']} {x['bytes']}B, want {SCHEME[mmode]} "
                f"{bits}b g{group} {size}B")
    c.check(not any("GPTQ" in (x["scheme"] or "") or
                    x["scheme"] == "unknown" for x in mods.values()),
            f"{what}: no GPTQ or unknown module")


def test_fit(binary, path, c):
    code, out, err = run(binary, ["fit", path, "--gpus", "1x16GiB",
                                  "--engine", "vllm"])
    c.check("cannot be loaded by vLLM" in out + err and
            "QuantizationMethods" in out + err,
            f"fit --engine vllm refuses MLX ({(out + err)[:300]})")
    code, doc, err = run_json(binary, ["fit", path, "--gpus", "1x16GiB",
                                       "--engine", "mlx-lm", "--ctx",
                                       "1000"])
    f = doc["inputs"][0].get("fit") or {}
    tensors = sp.folder_tensors(path)
    w = sum(b for _, _, b in tensors.values())
    t = sp.TINY
    head_dim = t["hidden_size"] // t["num_attention_heads"]
    kv = (t["num_hidden_layers"] * 2 * t["num_key_value_heads"] * head_dim *
          2 * ((1000 + 255) // 256 * 256))
    tot = f.get("totals", {})
    c.check(f.get("engine") == "mlx-lm" and tot.get("weights_bytes") == w
            and tot.get("kv_bytes") == kv,
            f"fit mlx-lm: {f.get('engine')} W {tot.get('weights_bytes')} "
            f"(want {w}) KV {tot.get('kv_bytes')} (want {kv})")
    code, doc, err = run_json(binary, ["fit", path, "--gpus", "1x16GiB"])
    f = doc["inputs"][0].get("fit") or {}
    c.check(f.get("engine") == "mlx-lm",
            f"fit picks mlx-lm for an MLX folder ({f.get('engine')})")


def test_corrupt(binary, tmp, good8, good4, c):
    # config claims 4 bits for tensors written at 8: QA3009
    lie = os.path.join(tmp, "lie")
    shutil.copytree(good8, lie)
    cfg_path = os.path.join(lie, "config.json")
    cfg = json.load(open(cfg_path))
    for k in ("quantization", "quantization_config"):
        cfg[k]["bits"] = 4
    json.dump(cfg, open(cfg_path, "w"))
    code, doc, _ = run_json(binary, ["check", lie])
    codes = [f["code"] for f in doc["inputs"][0]["findings"]]
    c.check("QA3009" in codes and doc["inputs"][0]["verdict"] == "fail",
            f"8-bit tensors under a 4-bit claim: QA3009 ({codes})")
    mods = {x["name"]: x for x in doc["inputs"][0].get("modules", [])}
    # the tensors' truth is still read: 8 bits at the declared group
    code, tdoc, _ = run_json(binary, ["inspect", lie])
    mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
    x = mods.get("model.layers.0.mlp.down_proj", {})
    c.check(x.get("bits") == 8 and x.get("group_size") == 64,
            f"lie: down_proj read as {x.get('bits')}b g{x.get('group_size')}")
    # biases dropped from one module: QA3008 names it
    from safetensors.torch import load_file, save_file
    nob = os.path.join(tmp, "nobias")
    shutil.copytree(good4, nob)
    st = os.path.join(nob, "model.safetensors")
    t = load_file(st)
    del t["model.layers.0.self_attn.q_proj.biases"]
    save_file(t, st, metadata={"format": "mlx"})
    os.remove(os.path.join(nob, "model.safetensors.index.json"))
    code, doc, _ = run_json(binary, ["check", nob])
    fs = doc["inputs"][0]["findings"]
    c.check(any(f["code"] == "QA3008" and "q_proj" in f["message"] and
                "biases" in f["message"] for f in fs),
            f"missing biases: QA3008 ({[f['code'] for f in fs]})")


def test_mode_lies(binary, tmp, good, c):
    """The config's per-module mode against the tensors (QA3017): each
    lie edits the dict mlx-lm wrote for the "modes" recipe, tensors kept;
    mlx-lm's loader would build the layer in the claimed mode and fail."""
    lies = [
        # own entry says affine over mxfp4 tensors (U8 scales, no biases)
        ("own-affine", "model.layers.0.mlp.down_proj",
         lambda q: q["model.layers.0.mlp.down_proj"].update(mode="affine"),
         ["'affine' (its own entry)", "mxfp4"]),
        # own entry says mxfp4 over nvfp4 tensors (2 words per scale)
        ("own-mxfp4", "model.layers.1.self_attn.q_proj",
         lambda q: q["model.layers.1.self_attn.q_proj"].update(
             mode="mxfp4", group_size=32),
         ["'mxfp4' (its own entry)", "nvfp4"]),
        # the global mode says mxfp4 over the affine modules (biases)
        ("global-mxfp4", "model.layers.0.mlp.up_proj",
         lambda q: q.update(mode="mxfp4"),
         ["'mxfp4' (the global entry)", "affine (scales BF16 with biases)"]),
        # mxfp8 is 8 bits only (mx.quantize refuses 4)
        ("fp-bits", "lm_head", lambda q: q["lm_head"].update(bits=4),
         ["'mxfp8'", "only 8 bits in groups of 32"]),
        ("unknown-mode", "lm_head",
         lambda q: q["lm_head"].update(mode="fp6"),
         ["'fp6'", "which mlx does not know"]),
    ]
    for name, module, edit, words in lies:
        d = os.path.join(tmp, "lie-" + name)
        shutil.copytree(good, d)
        cfg_path = os.path.join(d, "config.json")
        cfg = json.load(open(cfg_path))
        for k in ("quantization", "quantization_config"):
            edit(cfg[k])
        json.dump(cfg, open(cfg_path, "w"))
        code, doc, _ = run_json(binary, ["check", d])
        inp = doc["inputs"][0]
        hits = [f for f in inp["findings"] if f["code"] == "QA3017" and
                module in f["message"]]
        c.check(code == 1 and inp["verdict"] == "fail" and hits and
                all(w in hits[0]["message"] for w in words),
                f"{name}: QA3017 on {module} with {words} "
                f"({[(f['code'], f['message'][:160]) for f in inp['findings']]})")
        others = [f["message"] for f in inp["findings"]
                  if f["code"] == "QA3017" and module not in f["message"]
                  and name != "global-mxfp4"]
        c.check(not others, f"{name}: QA3017 names only {module} ({others})")


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "transformers", "mlx.core", "mlx_lm")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed "
              "(requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        hf = os.path.join(tmp, "hf")
        params = sp.tiny_llama(hf)
        made = {}
        for name, recipe in RECIPES.items():
            out = os.path.join(tmp, name)
            config, bpw = sp.mlx_quantize(hf, out, recipe)
            made[name] = out
            check_folder(binary, out, recipe, config, bpw, params, c)
        test_fit(binary, made["affine4"], c)
        q8 = os.path.join(tmp, "affine8")
        sp.mlx_quantize(hf, q8, ("affine", 8, 64))
        test_corrupt(binary, tmp, q8, made["affine4"], c)
        test_mode_lies(binary, tmp, made["modes"], c)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
