# SPDX-License-Identifier: MIT
"""Ollama's safetensors models (`ollama create` of a safetensors folder,
x/create; ollama/ollama at fb307609), in a store laid out as Ollama writes
it: one application/vnd.ollama.image.tensor layer per tensor, "name" the
tensor's (x/create/writer.go l.12, l.79; x/create/plan.go planFloat), each
blob a safetensors file; a quantized tensor's blob holds the MLX-packed
weight, "<name>.scale" and "<name>.bias" with __metadata__ quant_type and
group_size (x/create/quantize.go quantizeBlobLocked, arraysForItem,
loadAndQuantizeArray: mlx.Quantize, then mlx.SaveSafetensorsWithMetadata);
every .json of the source folder but the shard index an
application/vnd.ollama.image.json layer named by its file name
(x/create/pipeline.go importConfigBlobs); the config blob a ConfigV2 with
model_format "safetensors" (x/create/client/create.go newManifestWriter).

The quantized blobs are written by MLX itself (mlx.core.quantize and
save_safetensors, the functions Ollama's cgo wrapper calls); which tensors
are quantized, and at which type, follows x/create/create.go
GetTensorQuantization for `--quantize int4` (2-D ".weight" tensors of at
least 1024 values, not embeddings or norms; lm_head, k_proj, v_proj and
down_proj promoted to int8; the last dimension a multiple of 64). The
expected values come from the source model (torch's parameter count) and
from the blob headers, never from quantaudit.
"""
import hashlib
import json
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import st_producers as sp  # noqa: E402

MT = "application/vnd.ollama.image."
LIB = "registry.ollama.ai/library/"
# x/quant/quant.go byType
QTYPES = {"int4": (64, 4, "affine"), "int8": (64, 8, "affine"),
          "mxfp8": (32, 8, "mxfp8"), "nvfp4": (16, 4, "nvfp4")}


def quant_type(name, shape, quantize):
    """x/create/create.go GetTensorQuantization (isStackedExpertWeight,
    ShouldQuantize, isRoutingGate, isAligned, the 8-bit promotions)."""
    stacked = ".experts." in name and not name.endswith(
        (".bias", ".scale", ".qbias"))
    if not stacked and ("embed" in name or "norm" in name or
                        not name.endswith(".weight")):
        return ""
    if len(shape) != 2 and not (len(shape) == 3 and stacked):
        return ""
    n = 1
    for d in shape:
        n *= d
    if n < 1024 or name.endswith(".mlp.gate.weight"):
        return ""
    eight = {"int4": "int8", "nvfp4": "mxfp8", "mxfp4": "mxfp8"}.get(
        quantize, quantize)
    if name.endswith("lm_head.weight"):
        return eight if shape[-1] % QTYPES[eight][0] == 0 else ""
    if shape[-1] % QTYPES[quantize][0]:
        return ""
    if (quantize == "int4" or (quantize in ("nvfp4", "mxfp4") and
                               not stacked)) and \
            any(p in name for p in (".v_proj", ".k_proj", "down_proj")):
        if shape[-1] % QTYPES[eight][0] == 0:
            return eight
    return quantize


def expert_group(name):
    """x/create/plan.go perExpertGroup: "<prefix>.experts.<i>.<proj>.weight"
    -> ("<prefix>.experts", i, proj), else None."""
    parts = name.split(".")
    for k in range(len(parts) - 3):
        if parts[k] == "experts" and parts[k + 1].isdigit() and \
                parts[-1] == "weight" and k + 3 == len(parts) - 1:
            return ".".join(parts[:k + 1]), int(parts[k + 1]), parts[k + 2]
    return None


class Store:
    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "blobs"), exist_ok=True)

    def blob(self, data):
        d = hashlib.sha256(data).hexdigest()
        path = os.path.join(self.root, "blobs", "sha256-" + d)
        with open(path, "wb") as f:
            f.write(data)
        return {"digest": "sha256:" + d, "size": len(data), "path": path}

    def layer(self, kind, data, name=None):
        b = self.blob(data)
        layer = {"mediaType": MT + kind, "digest": b["digest"],
                 "size": b["size"]}
        if name is not None:
            layer["name"] = name
        return layer

    def manifest(self, name, layers, file_type):
        config = self.blob(json.dumps({
            "model_format": "safetensors", "file_type": file_type,
            "capabilities": ["completion"], "requires": "0.19.0"}).encode())
        doc = {"schemaVersion": 2,
               "mediaType":
               "application/vnd.docker.distribution.manifest.v2+json",
               "config": {"mediaType":
                          "application/vnd.docker.container.image.v1+json",
                          "digest": config["digest"],
                          "size": config["size"]},
               "layers": layers}
        model, tag = name.split(":")
        path = os.path.join(self.root, "manifests", LIB + model, tag)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(json.dumps(doc) + "\n")
        return path


def st_bytes_header(data):
    n = struct.unpack("<Q", data[:8])[0]
    h = json.loads(data[8:8 + n])
    meta = h.pop("__metadata__", {})
    return {k: (v["dtype"], v["shape"],
                v["data_offsets"][1] - v["data_offsets"][0])
            for k, v in h.items()}, meta


def blob_bytes(mx, items, tmp, keep_meta):
    """One tensor blob: items [(name, array, quant type)], quantized ones
    by mlx.core.quantize and all saved by mlx.core.save_safetensors with
    quantizeBlobLocked's metadata (quant_type and group_size once for a
    uniform blob), or a plain safetensors file of source-dtype tensors
    (safetensors.BuildPackedSafetensorsReader) when nothing is quantized."""
    import numpy as np
    from safetensors.numpy import save as st_save
    if not any(q for _, _, q in items):
        out = {}
        bf16 = []
        for name, a, _ in items:
            if a.dtype == mx.bfloat16:
                out[name] = np.array(a.view(mx.uint16))
                bf16.append(name)
            else:
                out[name] = np.array(a)
        data = st_save(out)
        n = struct.unpack("<Q", data[:8])[0]
        h = json.loads(data[8:8 + n])
        for name in bf16:     # the bytes are the source's bf16
            h[name]["dtype"] = "BF16"
        hb = json.dumps(h, separators=(",", ":")).encode()
        hb += b" " * (-len(hb) % 8)
        return struct.pack("<Q", len(hb)) + hb + data[8 + n:]
    d = {}
    for name, a, q in items:
        gs, bits, mode = QTYPES[q]
        o = mx.quantize(a, group_size=gs, bits=bits, mode=mode)
        d[name] = o[0]
        d[name + ".scale"] = o[1]
        if len(o) > 2 and o[2] is not None:
            d[name + ".bias"] = o[2]
    q = items[0][2]
    meta = {"quant_type": q, "group_size": str(QTYPES[q][0])}
    path = os.path.join(tmp, "blob.safetensors")
    mx.save_safetensors(path, d, metadata=meta if keep_meta else None)
    return open(path, "rb").read()


def ollama_create(src, store, name, quantize, tmp, keep_meta=True,
                  extra_layers=()):
    """The manifest `ollama create` writes: ollama_layers, then extra
    layers (a draft's), under name."""
    layers, tensors, modules = ollama_layers(src, store, quantize, tmp,
                                             keep_meta)
    path = store.manifest(name, layers + list(extra_layers), quantize or "")
    return path, tensors, modules


def ollama_layers(src, store, quantize, tmp, keep_meta=True, prefix="",
                  cfg_prefix=""):
    """The layers `ollama create --quantize <quantize>` writes for the
    safetensors folder src (x/create/plan.go planFloat: a blob per tensor;
    per-expert weights stacked [E, out, in] per projection, one blob for
    the group when its projections share a type, else one each,
    homogeneousExpertBlobs); returns (manifest path, {tensor: (dtype,
    shape, bytes)} of every blob, {module: (qtype, bytes)}). A draft's
    (x/create/draft.go CreateDraftLayers): prefixSpecs puts prefix
    ("draft.") before every blob and tensor name, its configs under
    cfg_prefix ("draft/")."""
    import mlx.core as mx
    arrs = {}
    for fn in sorted(os.listdir(src)):
        if fn.endswith(".safetensors"):
            arrs.update(mx.load(os.path.join(src, fn)))
    plain, groups = [], {}
    arrs = {prefix + k: v for k, v in arrs.items()}
    for tn in sorted(arrs):
        g = expert_group(tn)
        if g:
            groups.setdefault(g[0], {}).setdefault(g[2], {})[g[1]] = arrs[tn]
        else:
            plain.append(tn)
    blobs = []
    for tn in plain:
        a = arrs[tn]
        q = quant_type(tn, list(a.shape), quantize) if quantize else ""
        blobs.append((tn, [(tn, a, q)]))
    for gp in sorted(groups):
        specs = []
        for proj in sorted(groups[gp]):
            ex = groups[gp][proj]
            a = mx.stack([ex[i] for i in sorted(ex)])
            sn = f"{gp}.{proj}.weight"
            q = quant_type(sn, list(a.shape), quantize) if quantize else ""
            specs.append((sn, a, q))
        if len({q for _, _, q in specs}) == 1:
            blobs.append((gp, specs))
        else:
            blobs.extend((sn, [(sn, a, q)]) for sn, a, q in specs)
    layers, tensors, modules = [], {}, {}
    for bname, items in blobs:
        data = blob_bytes(mx, items, tmp, keep_meta)
        hdr, _ = st_bytes_header(data)
        tensors.update(hdr)
        for tn, _, q in items:
            if q:
                modules[tn[:-len(".weight")]] = (q, sum(
                    b for k, (_, _, b) in hdr.items()
                    if k == tn or k.startswith(tn + ".")))
        layers.append(store.layer("tensor", data, bname))
    for fn in sorted(os.listdir(src)):
        if fn.endswith(".json") and fn != "model.safetensors.index.json":
            layers.append(store.layer(
                "json", open(os.path.join(src, fn), "rb").read(),
                cfg_prefix + fn))
    return layers, tensors, modules


def tiny_qwen3_moe(path):
    """save_pretrained of a random bf16 Qwen3MoeForCausalLM (per-expert
    weights, as transformers saves them); returns torch's count."""
    import torch
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM
    torch.manual_seed(0)
    cfg = Qwen3MoeConfig(
        vocab_size=256, hidden_size=128, intermediate_size=256,
        moe_intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, num_experts=4,
        num_experts_per_tok=2, max_position_embeddings=256,
        tie_word_embeddings=False, decoder_sparse_step=1, mlp_only_layers=[])
    model = Qwen3MoeForCausalLM(cfg).to(torch.bfloat16)
    model.save_pretrained(path)
    return sum(p.numel() for p in model.parameters())


def codes(inp):
    return [f["code"] for f in inp.get("findings", [])]


def check_model(binary, path, tensors, modules, params, c, what):
    code, doc, err = run_json(binary, ["check", path])
    if not c.check(doc is not None, f"{what}: JSON report ({err[:300]})"):
        return
    inp = doc["inputs"][0]
    m = inp["model"]
    c.check(code == 0 and inp["verdict"] == "pass",
            f"{what}: check passes ({code}, {inp['verdict']}, "
            f"{[(f['code'], f['message'][:80]) for f in inp['findings'] if f['severity'] != 'info']})")
    c.check(m["format"] == "ollama-safetensors",
            f"{what}: format {m['format']}")
    c.check(m["kind"] == "model", f"{what}: kind {m['kind']}")
    c.check(m["engines"] == ["ollama"], f"{what}: engines {m['engines']}")
    c.check(m["params"] == params,
            f"{what}: params {m['params']}, torch counts {params}")
    c.check(m.get("tensor_count", len(tensors)) == len(tensors),
            f"{what}: {m.get('tensor_count')} tensors, the blobs hold "
            f"{len(tensors)}")
    c.check("QA1801" in codes(inp) and any(
        "safetensors tensor layers" in f["message"]
        for f in inp["findings"] if f["code"] == "QA1801"),
        f"{what}: QA1801 names the safetensors layout")
    q = m["quantization"]
    if modules:
        c.check(q["method"] == "mlx", f"{what}: method {q['method']}")
    code, tdoc, _ = run_json(binary, ["inspect", path])
    mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
    for name, (qt, size) in sorted(modules.items()):
        gs, bits, mode = QTYPES[qt]
        scheme = "MLX-" + mode
        x = mods.get(name)
        if not c.check(x is not None, f"{what}: module {name} present"):
            continue
        c.check(x["scheme"] == scheme and x["bits"] == bits and
                x["group_size"] == gs and x["bytes"] == size,
                f"{what}: {name} {x['scheme']} {x['bits']}b "
                f"g{x['group_size']} {x['bytes']}B, want {scheme} {bits}b "
                f"g{gs} {size}B")
    c.check(not any(x["scheme"] == "unknown" or "GPTQ" in (x["scheme"] or "")
                    for x in mods.values()),
            f"{what}: no unknown or GPTQ module")
    return inp


def main():
    binary = sys.argv[1]
    gone = sp.missing("torch", "transformers", "mlx.core", "safetensors")
    if gone:
        print(f"SKIP: {gone} is not installed (pip install -r "
              "requirements-test.txt)")
        sys.exit(SKIP)
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        params = sp.tiny_llama(src)
        store = Store(os.path.join(tmp, "models"))

        # int4 with its int8 promotions, as `ollama create -q int4`
        path, tensors, modules = ollama_create(src, store, "tiny:int4",
                                               "int4", tmp)
        c.check({q for q, _ in modules.values()} == {"int4", "int8"},
                f"fixture: int4 and int8 modules ({modules})")
        inp = check_model(binary, path, tensors, modules, params, c,
                          "int4")
        # the same by name in the store, as `ollama run tiny:int4`
        os.environ["OLLAMA_MODELS"] = store.root
        os.environ["HOME"] = tmp
        code, doc, err = run_json(binary, ["check", "tiny:int4"])
        c.check(doc is not None and
                doc["inputs"][0]["model"]["format"] == "ollama-safetensors",
                f"by name: {err[:200]}")

        # no engine quantaudit models loads it: fit says so, sizes nothing
        for eng in ([], ["--engine", "llama.cpp"], ["--engine", "mlx-lm"]):
            code, out, err = run(binary, ["fit", path, "--gpus", "1x16GiB"]
                                 + eng)
            c.check(code != 0 and ": fits" not in out and
                    "x/mlxrunner" in out and "nothing was sized" in out,
                    f"fit {eng}: refused, not sized ({code}: "
                    f"{(out + err)[-300:]})")

        # unquantized (bf16) import
        store16 = Store(os.path.join(tmp, "models16"))
        path16, t16, m16 = ollama_create(src, store16, "tiny:bf16", "",
                                         tmp)
        inp = check_model(binary, path16, t16, m16, params, c, "bf16")

        # a MoE: per-expert weights stacked [E, out, in] per projection
        # (int4: gate/up int4 and down int8, a blob each; nvfp4: one blob
        # for the group, k/v/lm_head promoted to mxfp8)
        moe = os.path.join(tmp, "moe")
        moe_params = tiny_qwen3_moe(moe)
        for q in ("int4", "nvfp4"):
            sq = Store(os.path.join(tmp, "models-moe-" + q))
            pq, tq, mq = ollama_create(moe, sq, "moe:" + q, q, tmp)
            stacked = [n for n in mq if ".experts." in n]
            c.check(len(stacked) == 6, f"fixture moe {q}: {stacked}")
            check_model(binary, pq, tq, mq, moe_params, c, "moe " + q)

        # no quant metadata: int4 g64 and int8 g32 (and 2-bit g128) fit
        # the same shapes, so the layers are named, never guessed
        storen = Store(os.path.join(tmp, "models-nometa"))
        pathn, tn, mn = ollama_create(src, storen, "tiny:nometa", "int4",
                                      tmp, keep_meta=False)
        code, doc, err = run_json(binary, ["inspect", pathn])
        mods = {x["name"]: x for x in doc["inputs"][0]["modules"]}
        q4 = [n for n, (q, _) in mn.items() if q == "int4"]
        c.check(q4 and all(mods[n]["scheme"] == "unknown" for n in q4),
                f"no metadata: int4 modules unknown "
                f"({[(n, mods[n]['scheme']) for n in q4]})")
        code, doc, err = run_json(binary, ["check", pathn])
        inp = doc["inputs"][0]
        c.check("QA3019" in codes(inp) and inp["verdict"] != "pass",
                f"no metadata: QA3019, verdict {inp['verdict']}")

        # a draft beside the model (x/create/draft.go): audited as the
        # model it is, beside the target, not placed by fit
        stored = Store(os.path.join(tmp, "models-draft"))
        dlayers, dt, dm = ollama_layers(src, stored, "int8", tmp,
                                        prefix="draft.",
                                        cfg_prefix="draft/")
        pathd, td, md = ollama_create(src, stored, "tiny:spec", "int4",
                                      tmp, extra_layers=dlayers)
        code, doc, err = run_json(binary, ["check", pathd])
        ins = doc["inputs"]
        c.check(len(ins) == 2 and ins[1]["path"].endswith("(draft)"),
                f"draft: two inputs {[i['path'] for i in ins]}")
        if len(ins) == 2:
            dmod = ins[1]["model"]
            c.check(dmod["params"] == params and
                    dmod["format"] == "ollama-safetensors" and
                    ins[1]["verdict"] == "pass",
                    f"draft: params {dmod['params']} want {params}, "
                    f"{dmod['format']}, {ins[1]['verdict']}")
            c.check(ins[0]["model"]["params"] == params and
                    ins[0]["verdict"] == "pass",
                    f"draft: the target alone ({ins[0]['model']['params']})")
            _, tdoc, _ = run_json(binary, ["inspect", pathd])
            dmods = {x["name"]: x for x in tdoc["inputs"][1]["modules"]}
            x = dmods.get("draft.model.layers.0.self_attn.q_proj", {})
            c.check(x.get("scheme") == "MLX-affine" and x.get("bits") == 8,
                    f"draft: q_proj int8 ({x.get('scheme')} {x.get('bits')})")

        # a store that lost a tensor blob, a hostile name
        storeb = Store(os.path.join(tmp, "models-bad"))
        bad = [storeb.layer("tensor", b"x" * 16, "../../etc/passwd")]
        pathb, tb, mb = ollama_create(src, storeb, "tiny:bad", "int4", tmp,
                                      extra_layers=bad)
        doc_m = json.load(open(pathb))
        gone_layer = next(x for x in doc_m["layers"]
                          if x.get("name") ==
                          "model.layers.1.mlp.up_proj.weight")
        os.unlink(os.path.join(storeb.root, "blobs",
                               gone_layer["digest"].replace(":", "-")))
        code, doc, err = run_json(binary, ["check", pathb])
        inp = doc["inputs"][0]
        cs = codes(inp)
        c.check("QA1809" in cs and any("../../etc/passwd" in f["message"]
                                       for f in inp["findings"]),
                f"hostile name: QA1809 ({cs})")
        c.check(any(f["code"] == "QA1802" and "up_proj" in f["message"]
                    for f in inp["findings"]) and
                inp["model"]["engines"] == [] and inp["verdict"] == "fail",
                f"missing blob: QA1802, no engine, fail "
                f"({inp['model']['engines']}, {inp['verdict']})")
        code, out, err = run(binary, ["fit", pathb, "--gpus", "1x16GiB"])
        c.check(code != 0 and ": fits" not in out,
                f"fit of an incomplete model is no 'fits' ({code}: "
                f"{(out + err)[:200]})")
    sys.exit(c.finish())


if __name__ == "__main__":
    main()
