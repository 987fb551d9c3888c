# SPDX-License-Identifier: MIT
"""GPTQModel's GPTQ checkpoint formats, written from its source (GPTQModel
quantizes on CUDA only): the buffers of its GPTQ QuantLinear
(ModelCloud/GPTQModel gptqmodel/nn_modules/qlinear/__init__.py
_register_gptq_buffers, commit f4c327a1: qweight I32 [ceil(in*b/32), out],
qzeros I32 [ceil(in/g), ceil(out*b/32)], scales F16 [ceil(in/g), out], g_idx
I32 [in]) and the config its QuantizeConfig.to_dict writes
(gptqmodel/quantization/config.py: bits, group_size, desc_act, lm_head,
quant_method, format and checkpoint_format). The planar layout (format
gptq_p, always for 5-7 bits: gptqmodel/utils/planar_packing.py
PLANAR_BITS, nn_modules/qlinear/__init__.py l.766-773) keeps those shapes
but not the continuous bit order that vLLM's GPTQ kernels unpack, and
vLLM takes 2/3/4/8 bits only (vllm/model_executor/layers/quantization/
gptq.py GPTQConfig).

Expected values are worked by hand from the shapes: a Linear of out x in
holds out * in parameters; which engines load it follows the sources above.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import st_producers as sp  # noqa: E402

HIDDEN, FF, LAYERS, HEADS, KV, VOCAB, GROUP = 256, 512, 2, 4, 2, 512, 128
HEAD_DIM = HIDDEN // HEADS
LINEARS = {"self_attn.q_proj": (HIDDEN, HIDDEN),
           "self_attn.k_proj": (KV * HEAD_DIM, HIDDEN),
           "self_attn.v_proj": (KV * HEAD_DIM, HIDDEN),
           "self_attn.o_proj": (HIDDEN, HIDDEN),
           "mlp.gate_proj": (FF, HIDDEN), "mlp.up_proj": (FF, HIDDEN),
           "mlp.down_proj": (HIDDEN, FF)}


# config.py FORMAT -> METHOD (l.1486-1496)
METHOD = {"gptq": "gptq", "gptq_v2": "gptq", "gptq_p": "gptq",
          "paroquant": "paroquant", "gguf": "gguf"}
LABEL = {"paroquant": "ParoQuant int4 g128", "gguf": "GGUF Q4_K"}


def ceil_div(a, b):
    return -(-a // b)


def linear_buffers(m, out, inp, bits, fmt):
    """The buffers one Linear holds in format fmt."""
    import numpy as np
    t = {}
    if fmt == "gguf":
        # nn_modules/qlinear/gguf.py _allocate_buffers: Q4_K blocks of
        # 256 values in 144 bytes (_GGUF_TYPE_INFO)
        t[m + "qweight"] = np.zeros((out, ceil_div(inp, 256) * 144),
                                    np.uint8)
        return t
    if fmt == "paroquant":
        # ParoLinear is an AWQ Linear (qlinear/__init__.py AWQuantLinear:
        # qweight [in, out*b/32], qzeros [in/g, out*b/32], scales [in/g,
        # out]) plus its rotation (utils/paroquant.py
        # build_identity_rotation_buffers, krot 8)
        t[m + "qweight"] = np.zeros((inp, out * bits // 32), np.int32)
        t[m + "qzeros"] = np.zeros((inp // GROUP, out * bits // 32),
                                   np.int32)
        t[m + "scales"] = np.zeros((inp // GROUP, out), np.float16)
        t[m + "theta"] = np.zeros((8, inp // 2), np.float16)
        t[m + "pairs"] = np.zeros((8, inp), np.int16)
        t[m + "channel_scales"] = np.ones((1, inp), np.float16)
        return t
    t[m + "qweight"] = np.zeros((ceil_div(inp * bits, 32), out), np.int32)
    t[m + "qzeros"] = np.zeros((ceil_div(inp, GROUP),
                                ceil_div(out * bits, 32)), np.int32)
    t[m + "scales"] = np.zeros((ceil_div(inp, GROUP), out), np.float16)
    t[m + "g_idx"] = np.array([k // GROUP for k in range(inp)], np.int32)
    return t


def write_model(path, bits, fmt):
    import numpy as np
    from safetensors.numpy import save_file
    os.makedirs(path)
    t = {"model.embed_tokens.weight": np.zeros((VOCAB, HIDDEN), np.float16),
         "lm_head.weight": np.zeros((VOCAB, HIDDEN), np.float16),
         "model.norm.weight": np.zeros(HIDDEN, np.float16)}
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        t[p + "input_layernorm.weight"] = np.zeros(HIDDEN, np.float16)
        t[p + "post_attention_layernorm.weight"] = np.zeros(HIDDEN,
                                                           np.float16)
        for name, (out, inp) in LINEARS.items():
            t.update(linear_buffers(p + name + ".", out, inp, bits, fmt))
    save_file(t, os.path.join(path, "model.safetensors"))
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
           "hidden_size": HIDDEN, "intermediate_size": FF,
           "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
           "num_key_value_heads": KV, "vocab_size": VOCAB,
           "max_position_embeddings": 2048, "rms_norm_eps": 1e-6,
           "torch_dtype": "float16",
           "quantization_config": {
               "bits": "q4_k_m" if fmt == "gguf" else bits,
               "dynamic": None, "group_size": GROUP,
               "desc_act": False, "lm_head": False, "method": METHOD[fmt],
               "quant_method": METHOD[fmt], "format": fmt,
               "checkpoint_format": fmt, "pack_dtype": "int32",
               "meta": {"quantizer": ["gptqmodel:6.0.0"]}}}
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(cfg, f)
    return t


def main():
    binary = sys.argv[1]
    absent = sp.missing("numpy", "safetensors")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed "
              "(requirements-test.txt)")
        return SKIP
    c = Checker()
    linear_params = sum(o * i for o, i in LINEARS.values()) * LAYERS
    params = linear_params + 2 * VOCAB * HIDDEN + (2 * LAYERS + 1) * HIDDEN
    # (bits, format, engines that load it as it is)
    cases = [(4, "gptq", ["vllm", "sglang"]), (8, "gptq", ["vllm", "sglang"]),
             (4, "gptq_p", []), (5, "gptq_p", []), (6, "gptq_p", []),
             (4, "paroquant", []), (4, "gguf", [])]
    with tempfile.TemporaryDirectory() as tmp:
        for bits, fmt, engines in cases:
            what = f"{fmt} {bits}-bit"
            path = os.path.join(tmp, f"{fmt}-{bits}")
            tensors = write_model(path, bits, fmt)
            code, doc, _ = run_json(binary, ["check", path])
            inp = doc["inputs"][0]
            m = inp["model"]
            q = m["quantization"]
            c.check(q["method"] == METHOD[fmt] and q.get("format") == fmt and
                    q.get("bits") == bits and m["params"] == params,
                    f"{what}: {q['method']} {q.get('format')} "
                    f"{q.get('bits')}b, params {m['params']} want {params}")
            c.check(m["engines"] == engines,
                    f"{what}: engines {m['engines']}, want {engines}")
            codes = [f["code"] for f in inp["findings"]]
            c.check("QA3019" not in codes and "QA3009" not in codes,
                    f"{what}: every layer read as claimed ({codes})")
            _, tdoc, _ = run_json(binary, ["inspect", path])
            mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
            want = LABEL.get(fmt, f"GPTQ int{bits} g{GROUP}")
            for name, (out, inn) in LINEARS.items():
                full = f"model.layers.0.{name}"
                x = mods.get(full, {})
                size = sum(v.nbytes for k, v in tensors.items()
                           if k.startswith(full + "."))
                c.check(x.get("precision") == want and
                        x.get("params") == out * inn and
                        x.get("bits") == bits and x.get("bytes") == size,
                        f"{what}: {full} {x.get('precision')} "
                        f"{x.get('params')}p {x.get('bytes')}B, want {want} "
                        f"{out * inn}p {size}B")
            # fit sizes it for vLLM only where vLLM loads it
            code, out, err = run(binary, ["fit", path, "--gpus", "1x16GiB",
                                          "--engine", "vllm"])
            if "vllm" in engines:
                c.check(code == 0 and ": fits" in out,
                        f"{what}: fit vllm sized ({code} {out[:200]})")
            else:
                c.check(code != 0 and ": fits" not in out and
                        "cannot be loaded by vLLM" in out and fmt in out,
                        f"{what}: fit vllm refused ({code} {out[:300]})")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
