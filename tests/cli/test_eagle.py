# SPDX-License-Identifier: MIT
"""EAGLE-3 draft heads. The producers (SafeAILab/EAGLE, SpecForge) need
GPUs, so the layout is written here from the loader's own source,
vllm-project/vllm vllm/model_executor/models/llama_eagle3.py:
  Eagle3LlamaForCausalLM: lm_head = ParallelLMHead(draft_vocab_size,
    hidden_size); draft_id_to_target_id [draft_vocab_size] ("d2t");
  LlamaModel.fc = ReplicatedLinear(3 * target_hidden_size, hidden_size);
  LlamaDecoderLayer 0: qkv input 2 * hidden_size; hidden_norm;
  load_weights renames "midlayer." to "layers.0." (SafeAILab's name);
and t2d [vocab_size] bool as SafeAILab/EAGLE's training writes it.
The expected values are the sizes the fixture was built with."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import st_producers as sp  # noqa: E402

H, V, DV, I, NH, KV, HD = 128, 256, 64, 256, 4, 2, 32


def write_head(path, d2t_len=DV, lm_rows=DV, fc_in=3 * H, aux=None):
    import torch
    from safetensors.torch import save_file
    bf = torch.bfloat16
    t = {
        "d2t": torch.zeros(d2t_len, dtype=torch.int64),
        "t2d": torch.zeros(V, dtype=torch.bool),
        "fc.weight": torch.zeros(H, fc_in, dtype=bf),
        "midlayer.input_layernorm.weight": torch.ones(H, dtype=bf),
        "midlayer.hidden_norm.weight": torch.ones(H, dtype=bf),
        "midlayer.post_attention_layernorm.weight": torch.ones(H, dtype=bf),
        "midlayer.self_attn.q_proj.weight": torch.zeros(NH * HD, 2 * H, dtype=bf),
        "midlayer.self_attn.k_proj.weight": torch.zeros(KV * HD, 2 * H, dtype=bf),
        "midlayer.self_attn.v_proj.weight": torch.zeros(KV * HD, 2 * H, dtype=bf),
        "midlayer.self_attn.o_proj.weight": torch.zeros(H, NH * HD, dtype=bf),
        "midlayer.mlp.gate_proj.weight": torch.zeros(I, H, dtype=bf),
        "midlayer.mlp.up_proj.weight": torch.zeros(I, H, dtype=bf),
        "midlayer.mlp.down_proj.weight": torch.zeros(H, I, dtype=bf),
        "norm.weight": torch.ones(H, dtype=bf),
        "lm_head.weight": torch.zeros(lm_rows, H, dtype=bf),
    }
    os.makedirs(path)
    save_file(t, os.path.join(path, "model.safetensors"))
    cfg = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama",
           "hidden_size": H, "intermediate_size": I,
           "num_attention_heads": NH, "num_key_value_heads": KV,
           "num_hidden_layers": 1, "vocab_size": V, "draft_vocab_size": DV,
           "max_position_embeddings": 2048, "rms_norm_eps": 1e-5,
           "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    if aux:
        cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": aux}
    json.dump(cfg, open(os.path.join(path, "config.json"), "w"))


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "safetensors")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good")
        write_head(good, aux=[1, 13, 24])
        code, doc, _ = run_json(binary, ["check", good])
        inp = doc["inputs"][0]
        m = inp["model"]
        c.check(m["format"] == "eagle3" and m["kind"] == "draft",
                f"format/kind {m['format']}/{m['kind']}")
        c.check(m["engines"] == ["vllm", "sglang"], f"engines {m['engines']}")
        codes = [f["code"] for f in inp["findings"]]
        c.check(codes == ["QA2126"], f"only the notice (no QA2104): {codes}")
        msg = inp["findings"][0]["message"] if codes else ""
        c.check(f"drafts {DV} tokens" in msg and f"vocabulary of {V}" in msg
                and f"hidden size {H}" in msg and "layers 1, 13, 24" in msg,
                f"notice: {msg}")
        code, out, err = run(binary, ["fit", good, "--gpus", "1x16GiB"])
        c.check("draft head, not a model" in out + err, "fit refuses it")
        bad = os.path.join(tmp, "bad")
        write_head(bad, d2t_len=DV + 1, lm_rows=V, fc_in=2 * H)
        code, doc, _ = run_json(binary, ["check", bad])
        fs = doc["inputs"][0]["findings"]
        got = sorted(f["code"] for f in fs)
        c.check(got == ["QA2104", "QA2126", "QA2127", "QA2127"],
                f"bad head: {got}")
        c.check(any(f["code"] == "QA2104" and "draft_vocab_size is 64" in
                    f["message"] for f in fs), "QA2104 against draft vocab")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
