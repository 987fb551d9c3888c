# SPDX-License-Identifier: MIT
"""fit --engine vllm --max-loras M --max-lora-rank R: vLLM's LoRA slots.

The models are transformers' own (LlamaForCausalLM, MixtralForCausalLM
.save_pretrained, random weights). The expected bytes are worked by hand
from vLLM 0.34.0's LoRA layers (lora/layers/base_linear.py,
column_parallel_linear.py, row_parallel_linear.py,
vocab_parallel_embedding.py, logits_processor.py): per rank, in the
model's dtype, for M adapters of rank R,
  qkv_proj  A 3 x [R, E]            B [R, d (Hq + 2 Hkv) / TP]
  o_proj    A [R, Hq d / TP]        B [E, R]
  gate_up   A 2 x [R, E]            B [2 F / TP, R]
  down      A [R, F / TP]           B [E, R]
per decoder layer, and embed_tokens A [V, R] + B [E, R] and lm_head
A [R, E] + B [V, R] whole on every rank.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run  # noqa: E402
import st_producers as sp  # noqa: E402

E, V, F, L, HQ, HKV = 128, 512, 256, 4, 4, 2
D = E // HQ


def write_llama(path, vocab=V, hidden=E):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=hidden,
                      intermediate_size=F, num_hidden_layers=L,
                      num_attention_heads=HQ, num_key_value_heads=HKV,
                      max_position_embeddings=4096)
    torch.manual_seed(0)
    LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(path)


def write_mixtral(path):
    import torch
    from transformers import MixtralConfig, MixtralForCausalLM
    cfg = MixtralConfig(vocab_size=V, hidden_size=E, intermediate_size=F,
                        num_hidden_layers=2, num_attention_heads=HQ,
                        num_key_value_heads=HKV, num_local_experts=4,
                        num_experts_per_tok=2, max_position_embeddings=4096)
    MixtralForCausalLM(cfg).to(torch.bfloat16).save_pretrained(path)


def slots(m, r, tp=1):
    """The hand-worked bytes per rank (one stage)."""
    hq, hkv, f = HQ // tp, max(1, HKV // tp), F // tp
    qkv = 3 * r * E + r * D * (hq + 2 * hkv)
    o = r * hq * D + E * r
    gate_up = 2 * r * E + 2 * f * r
    down = r * f + E * r
    layer = qkv + o + gate_up + down
    embed = V * r + E * r
    head = r * E + V * r
    return m * 2 * (L * layer + embed + head)


def fit(binary, *args):
    p = subprocess.run([binary, "fit", "--format", "json", *args],
                       capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout) if p.stdout.strip() else {}
    return p.returncode, ((doc.get("inputs") or [{}])[0].get("fit") or {})


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "transformers")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        llama = os.path.join(tmp, "llama")
        write_llama(llama)
        base = ["--engine", "vllm", "--ctx", "2048"]
        _, alone = fit(binary, llama, *base, "--gpus", "16G")
        w0 = alone["devices"][0]["weights_bytes"]
        for m, r in ((1, 16), (4, 64), (2, 8)):
            args = ["--max-loras", str(m), "--max-lora-rank", str(r)]
            _, f = fit(binary, llama, *base, "--gpus", "16G", *args)
            got = f["devices"][0]["weights_bytes"] - w0
            c.check(got == slots(m, r), f"M={m} R={r}: {got} == "
                    f"{slots(m, r)}")
        # vLLM's defaults: --max-loras alone is rank 16, --max-lora-rank
        # alone one adapter
        _, f = fit(binary, llama, *base, "--gpus", "16G", "--max-loras", "3")
        c.check(f["devices"][0]["weights_bytes"] - w0 == slots(3, 16),
                "--max-loras 3: rank 16")
        _, f = fit(binary, llama, *base, "--gpus", "16G", "--max-lora-rank",
                   "32")
        c.check(f["devices"][0]["weights_bytes"] - w0 == slots(1, 32),
                "--max-lora-rank 32: one adapter")
        # TP=2: the split halves of each rank
        _, a2 = fit(binary, llama, *base, "--gpus", "2x16G")
        _, f2 = fit(binary, llama, *base, "--gpus", "2x16G", "--max-loras",
                    "4", "--max-lora-rank", "64")
        for j in (0, 1):
            got = (f2["devices"][j]["weights_bytes"] -
                   a2["devices"][j]["weights_bytes"])
            c.check(got == slots(4, 64, tp=2), f"TP=2 rank {j}: {got} == "
                    f"{slots(4, 64, tp=2)}")
        # the slots come out of the KV budget: the largest context shrinks
        # or stays, never grows
        c.check(f2.get("max_context_f16", 0) <= a2.get("max_context_f16", 0),
                "the slots do not add context")
        # a rank vLLM does not take; an engine not modelled; MoE
        code, out, err = run(binary, ["fit", llama, *base, "--gpus", "16G",
                                      "--max-lora-rank", "24"])
        said = " ".join((out + err).split())
        c.check(code == 3 and "MaxLoRARanks" in said, f"rank 24: {said}")
        code, out, err = run(binary, ["fit", llama, "--engine", "sglang",
                                      "--gpus", "16G", "--max-loras", "2"])
        said = " ".join((out + err).split())
        c.check(code == 3 and "vLLM's LoRA slots" in said,
                f"SGLang: {code} {said[:160]}")
        moe = os.path.join(tmp, "moe")
        write_mixtral(moe)
        code, out, err = run(binary, ["fit", moe, *base, "--gpus", "16G",
                                      "--max-loras", "2"])
        said = " ".join((out + err).split())
        c.check(code == 3 and "not modelled" in said, f"MoE: {said[:200]}")
        # --lora PEFT_DIR (peft's own save_pretrained): its rank, 24,
        # sets the slots to vLLM's next allowed rank, 32; a smaller
        # --max-lora-rank is vLLM's refusal
        if not sp.missing("peft"):
            from peft import LoraConfig, get_peft_model
            from transformers import AutoModelForCausalLM
            adapter = os.path.join(tmp, "adapter")
            base_m = AutoModelForCausalLM.from_pretrained(llama)
            get_peft_model(base_m, LoraConfig(
                r=24, target_modules=["q_proj", "v_proj"])).save_pretrained(
                adapter)
            _, f = fit(binary, llama, *base, "--gpus", "16G", "--lora",
                       adapter)
            c.check(f.get("devices") and
                    f["devices"][0]["weights_bytes"] - w0 == slots(1, 32)
                    and any("--max-lora-rank 32" in n
                            for n in f.get("notes", [])),
                    f"--lora r=24: slots of rank 32 ({f.get('notes')})")
            code, out, err = run(binary, ["fit", llama, *base, "--gpus",
                                          "16G", "--lora", adapter,
                                          "--max-lora-rank", "16"])
            said = " ".join((out + err).split())
            c.check(code == 3 and "LoRA rank 24 is greater than "
                    "max_lora_rank 16" in said, f"r=24 > 16: {said[:200]}")
        else:
            print("peft not installed: --lora PEFT_DIR not checked")
            c.skipped += 1
        # a vocabulary above 258048: vLLM refuses LoRA
        big = os.path.join(tmp, "bigvocab")
        write_llama(big, vocab=262144, hidden=64)
        code, f = fit(binary, big, *base, "--gpus", "16G", "--max-loras", "1")
        c.check(f.get("verdict") == "does-not-fit" and any(
            "258048" in n for n in f.get("notes", [])),
            f"vocab 262144: {f.get('verdict')} {f.get('notes')}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
