# SPDX-License-Identifier: MIT
"""PEFT LoRA adapter folders written by peft itself on a tiny random
transformers Llama (tests/cli/st_producers.py). Expected values come from
the producer: rank, alpha and targets from the LoraConfig given to peft,
the adapted modules and their shapes from the saved safetensors header,
the base model's shapes from the torch model. Corruptions: a lora_B
removed (QA2122), a config rank that the tensors do not have (QA2121),
a target naming nothing (QA2123), a base model of another size (QA2124)
and of other module names (QA2125)."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import st_producers as sp  # noqa: E402


def make_adapter(base_dir, out, r, alpha, targets):
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM
    torch.manual_seed(0)
    base = AutoModelForCausalLM.from_pretrained(base_dir)
    cfg = LoraConfig(r=r, lora_alpha=alpha, target_modules=targets,
                     lora_dropout=0.0, task_type="CAUSAL_LM")
    get_peft_model(base, cfg).save_pretrained(out)


def findings(binary, args):
    code, doc, err = run_json(binary, ["check"] + args)
    inp = doc["inputs"][0] if doc.get("inputs") else {}
    return code, inp, err


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "transformers", "peft")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed "
              "(requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        hf = os.path.join(tmp, "base")
        sp.tiny_llama(hf)
        lora = os.path.join(tmp, "lora")
        make_adapter(hf, lora, 8, 16, ["q_proj", "v_proj"])
        hdr = sp.st_header(os.path.join(lora, "adapter_model.safetensors"))
        n_mod = sum(1 for k in hdr if k.endswith(".lora_A.weight"))
        code, inp, err = findings(binary, [lora])
        m = inp.get("model", {})
        c.check(m.get("format") == "peft-lora" and m.get("kind") == "adapter",
                f"format/kind {m.get('format')}/{m.get('kind')}")
        c.check(m.get("engines") == ["vllm", "sglang"],
                f"engines {m.get('engines')}")
        fs = inp.get("findings", [])
        codes = [f["code"] for f in fs]
        c.check(codes == ["QA2120"], f"one notice, nothing else: {codes}")
        msg = fs[0]["message"] if fs else ""
        # peft keeps target_modules as a set: the order is the file's
        written = json.load(open(os.path.join(lora, "adapter_config.json")))
        c.check(sorted(written["target_modules"]) == ["q_proj", "v_proj"],
                f"peft wrote targets {written['target_modules']}")
        tg = ", ".join(written["target_modules"])
        c.check("rank 8" in msg and "alpha 16" in msg and
                f"targets {tg}" in msg and
                f"{n_mod} adapted modules" in msg and "not audited" in msg,
                f"notice names rank, alpha, targets: {msg}")
        c.check(inp.get("verdict") == "warn", f"verdict {inp.get('verdict')}")
        code, out, err = run(binary, ["fit", lora, "--gpus", "1x16GiB"])
        c.check("a PEFT LoRA adapter, not a model" in out + err,
                f"fit refuses the adapter ({(out + err)[:200]})")
        # against its own base: no shape finding
        code, inp, _ = findings(binary, [lora, "--base", hf])
        codes = [f["code"] for f in inp.get("findings", [])]
        c.check(codes == ["QA2120"], f"--base own base: {codes}")
        # against a base of another hidden size: QA2124
        import torch
        from transformers import LlamaConfig, LlamaForCausalLM
        big = dict(sp.TINY, hidden_size=256, num_attention_heads=8)
        other = os.path.join(tmp, "base256")
        LlamaForCausalLM(LlamaConfig(**big)).save_pretrained(other)
        code, inp, _ = findings(binary, [lora, "--base", other])
        fs = inp.get("findings", [])
        c.check(any(f["code"] == "QA2124" and "[out 128, in 128]" in
                    f["message"] and "[out 256, in 256]" in f["message"]
                    for f in fs), f"--base bigger: {[f['code'] for f in fs]}")
        # a base whose modules have other names: QA2125
        from transformers import GPT2Config, GPT2LMHeadModel
        gpt = os.path.join(tmp, "gpt2")
        GPT2LMHeadModel(GPT2Config(n_embd=128, n_layer=2, n_head=4,
                                   vocab_size=256)).save_pretrained(gpt)
        code, inp, _ = findings(binary, [lora, "--base", gpt])
        codes = [f["code"] for f in inp.get("findings", [])]
        c.check("QA2125" in codes, f"--base gpt2: {codes}")
        # corruptions of the adapter itself
        bad = os.path.join(tmp, "bad")
        shutil.copytree(lora, bad)
        cfg_path = os.path.join(bad, "adapter_config.json")
        cfg = json.load(open(cfg_path))
        cfg["r"] = 4
        cfg["target_modules"] = ["q_proj", "v_proj", "o_proj"]
        json.dump(cfg, open(cfg_path, "w"))
        from safetensors.torch import load_file, save_file
        st = os.path.join(bad, "adapter_model.safetensors")
        t = load_file(st)
        del t["base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight"]
        save_file(t, st)
        code, inp, _ = findings(binary, [bad])
        fs = inp.get("findings", [])
        codes = sorted(set(f["code"] for f in fs))
        c.check(codes == ["QA2120", "QA2121", "QA2122", "QA2123"],
                f"corrupt adapter: {codes}")
        c.check(any(f["code"] == "QA2123" and "o_proj" in f["message"]
                    for f in fs), "QA2123 names o_proj")
        c.check(inp.get("verdict") == "fail", f"verdict {inp.get('verdict')}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
