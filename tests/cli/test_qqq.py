# SPDX-License-Identifier: MIT
"""GPTQModel's QQQ (W4A8) checkpoints, written from the source: GPTQModel
quantizes QQQ on CUDA only, so the layout is taken from its QuantLinear
(ModelCloud/GPTQModel gptqmodel/nn_modules/qlinear/qqq.py, commit
f4c327a1, QQQQuantLinear.__init__ l.138-164: B I32 [in/16, out*16/8],
s_channel F32 [1, out], s_group F16 [in/g, out] or an empty tensor for
per-channel; SUPPORTS_BITS [4], SUPPORTS_GROUP_SIZE [-1, 128]) and its
config (gptqmodel/quantization/config.py QQQConfig l.3531: a GPTQConfig
whose quant_method and checkpoint_format are "qqq").

Expected values are worked by hand from those shapes: a Linear of out x
in holds out * in parameters at 4 bits, group 128 or per-channel.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run_json  # noqa: E402
import st_producers as sp  # noqa: E402

HIDDEN, FF, LAYERS, HEADS, KV, VOCAB = 256, 512, 2, 4, 2, 512
HEAD_DIM = HIDDEN // HEADS
LINEARS = {"self_attn.q_proj": (HIDDEN, HIDDEN),
           "self_attn.k_proj": (KV * HEAD_DIM, HIDDEN),
           "self_attn.v_proj": (KV * HEAD_DIM, HIDDEN),
           "self_attn.o_proj": (HIDDEN, HIDDEN),
           "mlp.gate_proj": (FF, HIDDEN), "mlp.up_proj": (FF, HIDDEN),
           "mlp.down_proj": (HIDDEN, FF)}


def write_model(path, group, lie_rows=False):
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
            rows = inp // 16 + (1 if lie_rows and i == 0 and
                                name == "mlp.up_proj" else 0)
            cols = out * 16 // 8
            if lie_rows and i == 0 and name == "mlp.down_proj":
                cols += 1
            t[p + name + ".B"] = np.zeros((rows, cols), np.int32)
            t[p + name + ".s_channel"] = np.zeros((1, out), np.float32)
            t[p + name + ".s_group"] = (
                np.zeros((inp // group, out), np.float16) if group > 0
                else np.zeros(0, np.float16))
    save_file(t, os.path.join(path, "model.safetensors"))
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
           "hidden_size": HIDDEN, "intermediate_size": FF,
           "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
           "num_key_value_heads": KV, "vocab_size": VOCAB,
           "max_position_embeddings": 2048, "rms_norm_eps": 1e-6,
           "torch_dtype": "float16",
           "quantization_config": {
               "quant_method": "qqq", "checkpoint_format": "qqq", "bits": 4,
               "group_size": group if group > 0 else -1, "desc_act": False,
               "sym": True, "lm_head": False}}
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
    with tempfile.TemporaryDirectory() as tmp:
        for group in (128, 0):
            path = os.path.join(tmp, f"qqq-g{group}")
            tensors = write_model(path, group)
            code, doc, _ = run_json(binary, ["check", path])
            inp = doc["inputs"][0]
            codes = [f["code"] for f in inp["findings"]]
            m = inp["model"]
            c.check(code == 0 and codes == [], f"g{group}: passes {codes}")
            c.check(m["quantization"]["method"] == "qqq" and
                    m["params"] == params,
                    f"g{group}: {m['quantization']['method']} params "
                    f"{m['params']}, want {params}")
            _, tdoc, _ = run_json(binary, ["inspect", path])
            mods = {x["name"]: x for x in tdoc["inputs"][0]["modules"]}
            want = "QQQ int4 " + (f"g{group}" if group else "channel")
            for i in range(LAYERS):
                for name, (out, inn) in LINEARS.items():
                    full = f"model.layers.{i}.{name}"
                    x = mods.get(full, {})
                    size = sum(v.nbytes for k, v in tensors.items()
                               if k.startswith(full + "."))
                    c.check(x.get("precision") == want and
                            x.get("params") == out * inn and
                            x.get("bits") == 4 and
                            x.get("group_size") == group and
                            x.get("bytes") == size,
                            f"g{group}: {full} {x.get('precision')} "
                            f"{x.get('params')}p {x.get('bytes')}B, want "
                            f"{want} {out * inn}p {size}B")
        # a B of one row too many, and one of a column too many: not
        # QQQ as its QuantLinear allocates it, named (QA3019)
        path = os.path.join(tmp, "qqq-bad")
        write_model(path, 128, lie_rows=True)
        code, doc, _ = run_json(binary, ["check", path])
        fs = doc["inputs"][0]["findings"]
        bad = [f for f in fs if f["code"] == "QA3019"]
        c.check(len(bad) == 2 and
                any("up_proj" in f["message"] for f in bad) and
                any("down_proj" in f["message"] for f in bad),
                f"bad B shapes named: {[(f['code'], f['message'][:80]) for f in fs]}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
