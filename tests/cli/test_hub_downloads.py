# SPDX-License-Identifier: MIT
"""Hugging Face downloads as users have them (fixtures/gen/gen_hub.c,
out/hub/): config.json written by transformers (json.dumps(indent=2,
sort_keys=True), float("inf") as a bare Infinity, or as
{"__float__": "Infinity"} since transformers 5) beside real-name,
real-shape sparse safetensors shards. For each folder this checks, with
values worked out here from the published config numbers (never read back
from quantaudit):

- the architecture (config.json model_type) and, from model.hparams
  .layer_kinds (docs/json-schema.md), the kind of every block: "mamba"
  for Nemotron-H and Granite Mamba-2 mixers, "hybrid" for Falcon-H1
  (attention and Mamba-2 side by side), "short_conv" for LFM2 convolution
  blocks, "linear" only for Qwen3.5/3.6 Gated DeltaNet layers;
- the Mamba-2 state dimensions in model.hparams (ssm_d_inner = heads x
  head dim, or Falcon-H1's mamba_d_ssm; ssm_d_state; ssm_n_group;
  ssm_dt_rank = Mamba heads; ssm_d_conv) and tie_embeddings;
- no QA1401: Infinity and {"__float__": ...} are what transformers writes;
- `check --engine llama.cpp` / `--engine vllm` (with and without --gpus)
  never call a Mamba-2 model GDN or DeltaNet, and never both point the
  user to vLLM and say vLLM lacks the architecture (QA5051) for one input;
  the Qwen GDN model is the positive control (QA5001 on llama.cpp);
- the Kimi-K2/Moonlight-like DeepSeek-V3 that declares
  num_nextn_predict_layers 0 has MTP status "not-applicable" and no
  QA2004; as Kimi-K2 itself writes it (model_type kimi_k2, class
  DeepseekV3ForCausalLM) neither engine says it lacks the architecture,
  since both pick the implementation by class;
- `fit --gpus 2x16G --engine vllm` gives a "fit" object (exit 0 or 1),
  and the recurrent state vLLM allocates for one sequence on each rank
  (TP = 2) equals the Mamba-2 / short-conv state worked out by hand and
  placed the way docs/fit.md says vLLM places it.
"""
import json
import math
import os
import re
import shutil
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run, run_json  # noqa: E402

TP = 2                     # --gpus 2x16G: one tensor-parallel rank per GPU
BF16, FP32 = 2, 4

# ---- the published numbers -------------------------------------------------

# nvidia/NVIDIA-Nemotron-Nano-9B-v2 config.json: M Mamba-2, * attention,
# - MLP (vllm/model_executor/models/nemotron_h.py ALL_DECODER_LAYER_TYPES).
NEMOTRON_PATTERN = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-"
NEMOTRON = dict(hidden=4480, heads=40, kv_heads=8, head_dim=128,
                mamba_heads=128, mamba_head_dim=80, n_groups=8,
                d_state=128, d_conv=4, tied=False,
                # NemotronHForCausalLM keeps the SSM state in fp32
                # (mamba_ssm_cache_dtype "float32"; vLLM's
                # NemotronHForCausalLMConfig), the conv state in the
                # model dtype.
                conv_bytes=BF16, ssm_bytes=FP32)

# ibm-granite/granite-4.0-h-micro: 40 layers, 4 attention (model card),
# at 5, 15, 25, 35 in layer_types; mamba_n_heads 64 x mamba_d_head 64 =
# mamba_expand 2 x hidden 2048; tied embeddings.
GRANITE_TYPES = ["attention" if i % 10 == 5 else "mamba" for i in range(40)]
GRANITE = dict(hidden=2048, heads=32, kv_heads=8, head_dim=2048 // 32,
               mamba_heads=64, mamba_head_dim=64, n_groups=1, d_state=128,
               d_conv=4, tied=True, conv_bytes=BF16, ssm_bytes=BF16)

# tiiuae/Falcon-H1-0.5B: every one of the 36 layers runs attention and a
# Mamba-2 mixer in parallel (modeling_falcon_h1.py FalconH1DecoderLayer);
# the mixer is mamba_d_ssm = 1536 = 24 x 64 wide (not mamba_expand x
# hidden = 2048: FalconH1Mixer uses mamba_d_ssm when it is set).
FALCON = dict(layers=36, hidden=1024, heads=8, kv_heads=2, head_dim=64,
              mamba_heads=24, mamba_head_dim=64, d_ssm=1536, n_groups=1,
              d_state=128, d_conv=4, tied=False, conv_bytes=BF16,
              ssm_bytes=BF16)

# LiquidAI/LFM2-1.2B: full_attn_idxs [2, 5, 8, 10, 12, 14], the other ten
# blocks gated short convolutions with conv_L_cache 3 over conv_dim 2048;
# tie_embedding true (the original LFM2 spelling Lfm2Config reads).
LFM2_ATTN = [2, 5, 8, 10, 12, 14]
LFM2 = dict(layers=16, hidden=2048, conv_dim=2048, heads=32, kv_heads=8,
            head_dim=2048 // 32, l_cache=3, tied=True)

# Qwen3.6-27B text: 64 layers, full attention every 4th, one MTP layer.
QWEN_LAYERS, QWEN_INTERVAL, QWEN_MTP = 64, 4, 1

MAMBA2_MODELS = ("nemotron-nano-9b-v2", "transformers-float",
                 "granite-4.0-h-micro", "falcon-h1-0.5b")


def expected_kinds(name):
    """Per-block kinds from the published layout (docs/json-schema.md
    words; "hybrid" and "short_conv" as the JSON reporter writes them)."""
    if name in ("nemotron-nano-9b-v2", "transformers-float"):
        return [{"M": "mamba", "*": "full", "-": "mlp"}[ch]
                for ch in NEMOTRON_PATTERN]
    if name == "granite-4.0-h-micro":
        return ["full" if t == "attention" else "mamba"
                for t in GRANITE_TYPES]
    if name == "falcon-h1-0.5b":
        return ["hybrid"] * FALCON["layers"]
    if name == "lfm2-1.2b":
        return ["full" if i in LFM2_ATTN else "short_conv"
                for i in range(LFM2["layers"])]
    if name == "kimi-k2-like":
        return ["full"] * 3          # MLA is full attention
    if name == "qwen3.6-27b-text":
        return (["full" if (i + 1) % QWEN_INTERVAL == 0 else "linear"
                 for i in range(QWEN_LAYERS)] + ["mtp"] * QWEN_MTP)
    raise KeyError(name)


ARCH = {
    "nemotron-nano-9b-v2": "nemotron_h",
    "transformers-float": "nemotron_h",
    "granite-4.0-h-micro": "granitemoehybrid",
    "falcon-h1-0.5b": "falcon_h1",
    "lfm2-1.2b": "lfm2",
    "kimi-k2-like": "deepseek_v3",
    "qwen3.6-27b-text": "qwen3_5_text",
}

# Mamba-2 state dimensions as model.hparams names them (llama.cpp's
# mapping, quant-formats.md C2: ssm.inner_size = heads x head dim,
# ssm.state_size, ssm.group_count, ssm.time_step_rank = Mamba heads,
# ssm.conv_kernel).
SSM_HPARAMS = {
    "nemotron-nano-9b-v2": NEMOTRON, "transformers-float": NEMOTRON,
    "granite-4.0-h-micro": GRANITE, "falcon-h1-0.5b": FALCON,
}

TIED = {"nemotron-nano-9b-v2": False, "transformers-float": False,
        "granite-4.0-h-micro": True, "falcon-h1-0.5b": False,
        "lfm2-1.2b": True, "kimi-k2-like": False,
        "qwen3.6-27b-text": False}


def d_inner(m):
    return m.get("d_ssm", m["mamba_heads"] * m["mamba_head_dim"])


# ---- vLLM's recurrent state, by hand ---------------------------------------

def mamba2_layer_state(m, tp):
    """Bytes of one Mamba-2 layer's state on one rank:
    MambaStateShapeCalculator.mamba2_state_shape (vllm/model_executor/
    layers/mamba/mamba_utils.py): n_groups grows to tp when tp does not
    divide it (extra_groups_for_head_shards), conv state
    (d_conv - 1) x (d_inner + 2 n_groups d_state) / tp, SSM state
    (heads / tp) x head_dim x d_state."""
    ng = m["n_groups"]
    if ng % tp:
        ng += tp - ng
    conv = (m["d_conv"] - 1) * ((d_inner(m) + 2 * ng * m["d_state"]) // tp)
    ssm = (m["mamba_heads"] // tp) * m["mamba_head_dim"] * m["d_state"]
    return conv * m["conv_bytes"] + ssm * m["ssm_bytes"]


def short_conv_layer_state(m, tp):
    """MambaStateShapeCalculator.short_conv_state_shape: (L_cache - 1) x
    conv_dim / tp in the model dtype, no SSM state."""
    return (m["l_cache"] - 1) * (m["conv_dim"] // tp) * BF16


def attn_token_bytes(m, tp):
    """FullAttentionSpec page of one token on one rank: max(1, H_kv / tp)
    heads x (d_k + d_v) x 2 bytes (auto KV dtype of a BF16 model)."""
    return max(1, m["kv_heads"] // tp) * 2 * m["head_dim"] * BF16


def vllm_recurrent_per_rank(n_state, n_attn, state, attn_tok):
    """What one sequence's state takes in vLLM's KV pool on one rank
    (docs/fit.md): the attention block grows to 16 x ceil(state / (16 x
    attention bytes per token)) (Platform._align_hybrid_block_size) and
    the state page is padded to that attention page; layers are grouped
    g at a time, g = min layers per type, or the max when max < 1.5 min
    (_get_kv_cache_groups_uniform_page_size); a state group holds one
    block per sequence."""
    block = 16 * math.ceil(state / (16 * attn_tok))
    page = block * attn_tok
    hi, lo = max(n_state, n_attn), min(n_state, n_attn)
    g = hi if hi < 1.5 * lo else lo
    return g * page * math.ceil(n_state / g)


def expected_recurrent(name):
    kinds = expected_kinds(name)
    if name in ("nemotron-nano-9b-v2", "transformers-float",
                "granite-4.0-h-micro"):
        m = SSM_HPARAMS[name]
        n_state, n_attn = kinds.count("mamba"), kinds.count("full")
        return n_state, vllm_recurrent_per_rank(
            n_state, n_attn, mamba2_layer_state(m, TP),
            attn_token_bytes(m, TP)), mamba2_layer_state(m, TP)
    if name == "falcon-h1-0.5b":
        # each layer is one Mamba-2 state and one attention KV cache
        n = kinds.count("hybrid")
        return n, vllm_recurrent_per_rank(
            n, n, mamba2_layer_state(FALCON, TP),
            attn_token_bytes(FALCON, TP)), mamba2_layer_state(FALCON, TP)
    if name == "lfm2-1.2b":
        n_state, n_attn = kinds.count("short_conv"), kinds.count("full")
        return n_state, vllm_recurrent_per_rank(
            n_state, n_attn, short_conv_layer_state(LFM2, TP),
            attn_token_bytes(LFM2, TP)), short_conv_layer_state(LFM2, TP)
    return None


# ---- helpers -----------------------------------------------------------------

def folder(name):
    return os.path.join(env_path("QA_FIXTURES"), "hub", name)


def inputs(doc):
    return doc.get("inputs", []) if doc else []


def findings(doc):
    return [f for i in inputs(doc) for f in i.get("findings", [])]


def codes(doc):
    return sorted({f["code"] for f in findings(doc)})


GDN_WORDS = re.compile(r"GDN|delta\s*net|gated\s*delta", re.IGNORECASE)


def points_to_vllm(fs):
    """Findings that send the user to vLLM (QA5001 "slower than vLLM",
    QA5003 "use vLLM", ...): any finding naming vLLM other than the ones
    about vLLM's own support (QA5051, QA5008)."""
    return [f["code"] for f in fs if "vLLM" in f["message"] and
            f["code"] not in ("QA5051", "QA5008")]


# ---- checks --------------------------------------------------------------------

def check_config_files(c, name):
    """The generator and this test agree on the published layout, and the
    file is what transformers writes (json.dumps round trip)."""
    path = os.path.join(folder(name), "config.json")
    raw = open(path, encoding="utf-8").read()
    cfg = json.loads(raw)       # Python's json reads Infinity like NaN
    c.check(json.dumps(cfg, indent=2, sort_keys=True) + "\n" == raw,
            f"{name}: config.json is not json.dumps(indent=2, "
            f"sort_keys=True) + newline")
    c.check(cfg.get("model_type") == ARCH[name],
            f"{name}: config model_type {cfg.get('model_type')}")
    if name == "nemotron-nano-9b-v2":
        c.check(cfg["hybrid_override_pattern"] == NEMOTRON_PATTERN,
                f"{name}: pattern")
        c.check('"time_step_limit": [\n    0.0,\n    Infinity\n  ]' in raw,
                f"{name}: time_step_limit not written as json.dumps "
                f"writes (0.0, inf)")
    if name == "transformers-float":
        c.check(cfg["time_step_limit"] == [0.0, {"__float__": "Infinity"}],
                f"{name}: time_step_limit {cfg.get('time_step_limit')}")
        c.check("".join({"linear_attention": "M", "full_attention": "*",
                         "mlp": "-"}[t] for t in cfg["layers_block_type"])
                == NEMOTRON_PATTERN, f"{name}: layers_block_type")
    if name == "falcon-h1-0.5b":
        c.check(cfg["time_step_limit"] == [0.0, math.inf],
                f"{name}: time_step_limit {cfg.get('time_step_limit')}")
        c.check(cfg["mamba_d_ssm"] == d_inner(FALCON), f"{name}: d_ssm")
    if name == "granite-4.0-h-micro":
        c.check(cfg["layer_types"] == GRANITE_TYPES, f"{name}: layer_types")
    if name == "lfm2-1.2b":
        c.check(cfg["full_attn_idxs"] == LFM2_ATTN and
                [i for i, t in enumerate(cfg["layer_types"])
                 if t == "full_attention"] == LFM2_ATTN,
                f"{name}: attention layers")
    if name == "kimi-k2-like":
        c.check(cfg["num_nextn_predict_layers"] == 0,
                f"{name}: num_nextn_predict_layers")


def check_inspect(c, binary, name):
    code, doc, err = run_json(binary, ["inspect", folder(name)])
    if not c.check(code == 0 and len(inputs(doc)) == 1,
                   f"{name}: inspect exit {code}, {err.strip()[:200]}"):
        return
    model = inputs(doc)[0].get("model", {})
    hp = model.get("hparams", {})
    c.check(model.get("architecture") == ARCH[name],
            f"{name}: architecture {model.get('architecture')}, "
            f"want {ARCH[name]}")
    want = expected_kinds(name)
    got = hp.get("layer_kinds")
    c.check(got == want,
            f"{name}: layer_kinds {dict(Counter(got or []))}, want "
            f"{dict(Counter(want))} in the published order")
    if name not in ("qwen3.6-27b-text",):
        c.check("linear" not in (got or []),
                f"{name}: a non-GDN model has 'linear' blocks")
    c.check("QA1401" not in codes(doc),
            f"{name}: QA1401 (config-invalid) on a config.json "
            f"transformers wrote")
    c.check(hp.get("tie_embeddings") is TIED[name],
            f"{name}: tie_embeddings {hp.get('tie_embeddings')}, the "
            f"config says {TIED[name]}" +
            (" (LFM2 writes tie_embedding, which Lfm2Config reads; "
             "formats/hf_config.c reads only tie_word_embeddings)"
             if name == "lfm2-1.2b" else ""))
    if name in SSM_HPARAMS:
        m = SSM_HPARAMS[name]
        want_ssm = {"ssm_d_inner": d_inner(m), "ssm_d_state": m["d_state"],
                    "ssm_n_group": m["n_groups"],
                    "ssm_dt_rank": m["mamba_heads"],
                    "ssm_d_conv": m["d_conv"]}
        got_ssm = {k: hp.get(k) for k in want_ssm}
        c.check(got_ssm == want_ssm,
                f"{name}: SSM hparams {got_ssm}, want {want_ssm} (the "
                f"config's mamba_* keys; formats/hf_config.c)")
    if name == "kimi-k2-like":
        mtp = model.get("mtp", {})
        c.check(mtp.get("status") == "not-applicable" and
                mtp.get("declared") == 0 and mtp.get("present") == 0,
                f"{name}: MTP {mtp}, want not-applicable (declares 0)")
        c.check("QA2004" not in codes(doc),
                f"{name}: QA2004 on a model that declares no MTP layer")
    if name == "qwen3.6-27b-text":
        mtp = model.get("mtp", {})
        c.check(mtp.get("status") == "present" and
                mtp.get("declared") == QWEN_MTP,
                f"{name}: MTP {mtp}, want present")


def check_engines(c, binary, name):
    runs = {}
    for engine in ("llama.cpp", "vllm"):
        for gpus in ([], ["--gpus", "2x16G"]):
            args = ["check", "--engine", engine] + gpus + [folder(name)]
            code, doc, err = run_json(binary, args)
            what = f"{name}: check --engine {engine} {' '.join(gpus)}"
            if not c.check(code in (0, 1) and len(inputs(doc)) == 1,
                           f"{what}: exit {code}, {err.strip()[:200]}"):
                continue
            fs = findings(doc)
            runs.setdefault(engine, []).extend(fs)
            c.check("QA1401" not in codes(doc), f"{what}: QA1401")
            if name in MAMBA2_MODELS:
                gdn = [f["code"] + " " + f["message"] for f in fs
                       if GDN_WORDS.search(f["message"]) or
                       GDN_WORDS.search(f.get("detail", "") or "")]
                fit = inputs(doc)[0].get("fit") or {}
                gdn += [n for n in fit.get("notes", [])
                        if GDN_WORDS.search(n)]
                c.check(not gdn, f"{what}: calls a Mamba-2 model GDN: "
                        f"{gdn[:2]}")
                # the text report says the same
                code_t, out, _ = run(binary, args)
                c.check(not GDN_WORDS.search(out),
                        f"{what}: text report mentions GDN/DeltaNet")
            if name == "kimi-k2-like":
                c.check("QA2004" not in codes(doc), f"{what}: QA2004")
            lacks = [f for f in fs if f["code"] == "QA5051"]
            c.check(not (lacks and points_to_vllm(fs)),
                    f"{what}: recommends vLLM ({points_to_vllm(fs)}) and "
                    f"says vLLM lacks the architecture (QA5051)")
    # Across the two engines for the same input: a llama.cpp run that
    # points to vLLM and a vLLM run that says vLLM cannot run it.
    lacks = [f for f in runs.get("vllm", []) if f["code"] == "QA5051"]
    c.check(not (lacks and points_to_vllm(runs.get("llama.cpp", []))),
            f"{name}: --engine llama.cpp points to vLLM "
            f"({points_to_vllm(runs.get('llama.cpp', []))}) while "
            f"--engine vllm says QA5051")
    for engine in ("llama.cpp", "vllm"):
        bad = [f["code"] for f in runs.get(engine, [])
               if f["code"] in ("QA5050", "QA5051")]
        c.check(not bad, f"{name}: {engine} said it lacks the "
                f"architecture ({bad}); both engines run {ARCH[name]}")
    if name == "qwen3.6-27b-text":
        # positive control: the GDN fact is there for real GDN layers
        c.check("QA5001" in [f["code"] for f in runs.get("llama.cpp", [])],
                f"{name}: no QA5001 on llama.cpp for a GDN hybrid")


def check_fit(c, binary, name):
    code, out, err = run(binary, ["fit", "--format", "json", "--gpus",
                                  "2x16G", "--engine", "vllm",
                                  folder(name)])
    try:
        doc = json.loads(out)
    except json.JSONDecodeError:
        doc = None
    fit = inputs(doc)[0].get("fit") if inputs(doc) else None
    if not c.check(code in (0, 1) and isinstance(fit, dict),
                   f"{name}: fit --engine vllm exit {code}, no fit object: "
                   f"{err.strip()[:200]}"):
        return None
    c.check(fit.get("engine") == "vllm" and len(fit.get("devices", [])) == 2,
            f"{name}: fit engine {fit.get('engine')}, "
            f"{len(fit.get('devices', []))} devices")
    exp = expected_recurrent(name)
    if exp is not None:
        n_state, per_rank, layer = exp
        got = [d["recurrent_bytes"] for d in fit["devices"]]
        c.check(got == [per_rank] * TP,
                f"{name}: recurrent {got} B per sequence on the {TP} "
                f"ranks, want {per_rank} on each ({n_state} state layers "
                f"of {layer} B per rank, placed as vLLM places them; "
                f"src/fit/fit_vllm.c)")
        c.check(min(got) >= n_state * layer,
                f"{name}: recurrent {min(got)} B is less than the raw "
                f"state alone, {n_state} x {layer} = {n_state * layer} B")
    elif name == "kimi-k2-like":
        c.check(fit["totals"]["recurrent_bytes"] == 0,
                f"{name}: recurrent state on a model without one")
    return fit


def check_falcon_kv(c, binary):
    code, out, err = run(binary, ["fit", "--format", "json", "--gpus",
                                  "2x16G", "--engine", "vllm", "--ctx",
                                  "16384", folder("falcon-h1-0.5b")])
    try:
        fit = json.loads(out)["inputs"][0]["fit"]
    except (json.JSONDecodeError, KeyError, IndexError):
        c.check(False, f"falcon-h1-0.5b: fit --ctx 16384: {err[:200]}")
        return
    tok = attn_token_bytes(FALCON, TP)
    block = 16 * math.ceil(mamba2_layer_state(FALCON, TP) / (16 * tok))
    want = math.ceil(16384 / block) * block * 36 * tok
    c.check(block == 800 and want == 154828800,
            f"falcon-h1-0.5b: hand count block {block}, KV {want}")
    got = [d["kv_bytes"] for d in fit["devices"]]
    c.check(got == [want] * TP,
            f"falcon-h1-0.5b: KV at 16K {got} B per rank, want {want} "
            f"(attention blocks of {block} tokens; src/fit/fit_vllm.c)")


def write_mamba2_130m(dst):
    """A pure Mamba-2 checkpoint as save_pretrained writes it: the shapes
    of state-spaces/mamba2-130m converted to transformers
    (Mamba2ForCausalLM, modeling_mamba2.py: backbone.layers.N.mixer
    in_proj [2*d_inner + 2*n_groups*d_state + heads, hidden], conv1d
    [d_inner + 2*n_groups*d_state, 1, d_conv], dt_bias/A_log/D [heads],
    norm [d_inner], out_proj [hidden, d_inner]), BF16, data a hole."""
    import struct
    hid, n_layer, heads, head_dim, d_state, ng, d_conv = \
        768, 24, 24, 64, 128, 1, 4
    d_in, vocab = 2 * hid, 50288
    conv_dim = d_in + 2 * ng * d_state
    shapes = {"backbone.embeddings.weight": [vocab, hid],
              "backbone.norm_f.weight": [hid]}
    for i in range(n_layer):
        p = f"backbone.layers.{i}."
        shapes.update({
            p + "norm.weight": [hid],
            p + "mixer.in_proj.weight": [2 * d_in + 2 * ng * d_state + heads,
                                         hid],
            p + "mixer.conv1d.weight": [conv_dim, 1, d_conv],
            p + "mixer.conv1d.bias": [conv_dim],
            p + "mixer.dt_bias": [heads], p + "mixer.A_log": [heads],
            p + "mixer.D": [heads], p + "mixer.norm.weight": [d_in],
            p + "mixer.out_proj.weight": [hid, d_in]})
    header, off = {}, 0
    for name, shape in shapes.items():
        n = 2 * math.prod(shape)
        header[name] = {"dtype": "BF16", "shape": shape,
                        "data_offsets": [off, off + n]}
        off += n
    header["__metadata__"] = {"format": "pt"}
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    os.makedirs(dst)
    with open(os.path.join(dst, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        f.truncate(8 + len(raw) + off)
    cfg = {"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2",
           "hidden_size": hid, "num_hidden_layers": n_layer,
           "num_heads": heads, "head_dim": head_dim, "state_size": d_state,
           "n_groups": ng, "conv_kernel": d_conv, "expand": 2,
           "vocab_size": vocab, "time_step_limit": [0.0, math.inf],
           "tie_word_embeddings": True, "torch_dtype": "bfloat16"}
    with open(os.path.join(dst, "config.json"), "w") as f:
        f.write(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    # vLLM's state of one layer (mamba2_state_shape, conv and SSM in the
    # model dtype BF16, TP 1): conv 3 x (1536 + 256), SSM 24 x 64 x 128
    return 2 * ((d_conv - 1) * conv_dim + heads * head_dim * d_state)


def check_pure_mamba2(c, binary):
    """No attention anywhere: every block is Mamba, nothing contradicts
    the tensors, and vLLM's recurrent state is 24 layers of one state."""
    with tempfile.TemporaryDirectory() as tmp:
        dst = os.path.join(tmp, "mamba2-130m")
        layer = write_mamba2_130m(dst)
        c.check(layer == 403968, f"mamba2 hand count {layer}")
        code, doc, err = run_json(binary, ["check", dst])
        model = inputs(doc)[0].get("model", {}) if inputs(doc) else {}
        hp = model.get("hparams", {})
        c.check(hp.get("layer_kinds") == ["mamba"] * 24,
                f"mamba2: layer kinds {hp.get('layer_kinds')} "
                f"(formats/hf_config.c)")
        c.check(hp.get("ssm_dt_rank") == 24 and hp.get("ssm_d_inner") ==
                1536 and hp.get("ssm_n_group") == 1,
                f"mamba2: SSM hparams {hp}")
        c.check(code == 0 and not codes(doc),
                f"mamba2: exit {code}, findings {codes(doc)}")
        code, out, err = run(binary, ["fit", "--format", "json", "--gpus",
                                      "16G", "--engine", "vllm", dst])
        try:
            fit = json.loads(out)["inputs"][0]["fit"]
        except (json.JSONDecodeError, KeyError, IndexError):
            c.check(False, f"mamba2: fit: {err[:200]}")
            return
        c.check(fit["devices"][0]["recurrent_bytes"] == 24 * layer,
                f"mamba2: recurrent {fit['devices'][0]['recurrent_bytes']}"
                f", want 24 x {layer} (src/fit/fit_vllm.c)")


def check_kimi_k2_model_type(c, binary):
    """Kimi-K2 publishes model_type "kimi_k2" with the DeepseekV3 class
    (and auto_map to its own configuration_deepseek.py); llama.cpp's
    converter registers DeepseekV3ForCausalLM as deepseek2 and vLLM's
    registry has the class, so neither engine lacks it."""
    with tempfile.TemporaryDirectory() as tmp:
        dst = os.path.join(tmp, "Kimi-K2-Instruct")
        shutil.copytree(folder("kimi-k2-like"), dst)
        path = os.path.join(dst, "config.json")
        cfg = json.load(open(path, encoding="utf-8"))
        cfg["model_type"] = "kimi_k2"
        cfg["auto_map"] = {
            "AutoConfig": "configuration_deepseek.DeepseekV3Config",
            "AutoModel": "modeling_deepseek.DeepseekV3Model",
            "AutoModelForCausalLM":
                "modeling_deepseek.DeepseekV3ForCausalLM"}
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
        for engine in ("llama.cpp", "vllm"):
            code, doc, err = run_json(binary, ["check", "--engine", engine,
                                               dst])
            got = [f["code"] for f in findings(doc)
                   if f["code"] in ("QA5050", "QA5051")]
            c.check(code in (0, 1) and not got,
                    f"kimi_k2 model_type on {engine}: exit {code}, "
                    f"{got} {err.strip()[:160]} (engines pick by class; "
                    f"rules/check_knowledge.c)")


def main():
    binary = sys.argv[1]
    c = Checker()
    if not os.path.isdir(os.path.join(env_path("QA_FIXTURES"), "hub")):
        c.check(False, "out/hub missing: fixtures/gen/gen_hub.c not built")
        c.finish()
    names = list(ARCH)
    fits = {}
    for name in names:
        check_config_files(c, name)
        check_inspect(c, binary, name)
        check_engines(c, binary, name)
        fits[name] = check_fit(c, binary, name)

    # The hand count for Nemotron-Nano-9B-v2 at TP = 2, spelled out:
    # conv (4-1) x (10240 + 2 x 8 x 128) / 2 = 18432 BF16 = 36864 B,
    # SSM 128/2 x 80 x 128 = 655360 fp32 = 2621440 B; 2658304 B a layer;
    # attention page 16 x 82 = 1312 tokens x 2048 B = 2686976 B
    # (docs/fit.md worked example), g = 4, 7 state groups.
    c.check(mamba2_layer_state(NEMOTRON, TP) == 36864 + 2621440,
            "Nemotron hand count of one layer's state")
    c.check(expected_recurrent("nemotron-nano-9b-v2")[1] ==
            4 * 2686976 * 7, "Nemotron hand count of the placed state")
    # Falcon-H1's attention KV at 16K: every layer has a cache, in
    # blocks grown to hold one Mamba-2 state (16 x ceil(202752 / (16 x
    # 256)) = 800 tokens), so 21 blocks of 800 tokens x 36 layers x 256 B.
    check_falcon_kv(c, binary)
    check_kimi_k2_model_type(c, binary)
    check_pure_mamba2(c, binary)
    # Re-saving config.json with transformers 5 changes nothing the
    # model is.
    a, b = fits.get("nemotron-nano-9b-v2"), fits.get("transformers-float")
    if a and b:
        c.check(a["totals"] == b["totals"] and
                a["max_context"] == b["max_context"],
                "transformers-float: fit differs from the original "
                "download")
    c.finish()


if __name__ == "__main__":
    main()
