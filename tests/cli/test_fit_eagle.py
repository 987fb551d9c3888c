# SPDX-License-Identifier: MIT
"""fit TARGET --draft HEAD --engine vllm: an EAGLE-3 head beside its target.

The head is the one vllm-project/speculators writes (Eagle3DraftModel
.save_pretrained): written by speculators itself when it imports here
(QA_SPECULATORS_PATH or an installed package), else rebuilt from the
producer's own config.json and tensor layout kept in
tests/data/eagle3-speculators (zeros of the recorded dtypes and shapes).
The target is a transformers LlamaForCausalLM written by save_pretrained.

Expected values are worked by hand from vLLM 0.34.0's loader (the facts in
docs/fit.md "vLLM with an EAGLE-3 head"): the head loads in the target's
dtype (bf16 here, its checkpoint is F32), sharded on the target's TP group
(q/k/v/o/MLP and the vocab-parallel embedding and lm_head split, fc, norms
and d2t whole on every rank), d2t kept as int64 because draft_vocab_size
64 differs from the target's 512, t2d dropped; its one layer adds KV pages
of its own shape to the pool; the proposer keeps max_num_batched_tokens x
hidden in the target's dtype.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, env_path, run  # noqa: E402
import st_producers as sp  # noqa: E402

H, V, DV, I, NH, KV, HD = 128, 512, 64, 256, 4, 2, 32
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                    "eagle3-speculators")


def write_with_speculators(path):
    """The producer itself; False when it does not import here."""
    extra = os.environ.get("QA_SPECULATORS_PATH")
    if extra:
        sys.path[:0] = extra.split(os.pathsep)
    try:
        from transformers import LlamaConfig
        from speculators import SpeculatorsConfig, VerifierConfig
        from speculators.proposals import GreedyTokenProposalConfig
        from speculators.models.eagle3 import (Eagle3SpeculatorConfig,
                                               Eagle3DraftModel)
    except Exception as e:  # noqa: BLE001 - any import failure: fall back
        print(f"speculators not importable ({type(e).__name__}: {e}); "
              "the head is rebuilt from tests/data/eagle3-speculators")
        return False
    tl = LlamaConfig(vocab_size=V, hidden_size=H, intermediate_size=I,
                     num_hidden_layers=1, num_attention_heads=NH,
                     num_key_value_heads=KV, max_position_embeddings=2048)
    cfg = Eagle3SpeculatorConfig(
        transformer_layer_config=tl, draft_vocab_size=DV,
        speculators_config=SpeculatorsConfig(
            algorithm="eagle3",
            proposal_methods=[GreedyTokenProposalConfig(speculative_tokens=3)],
            default_proposal_method="greedy",
            verifier=VerifierConfig(name_or_path="target",
                                    architectures=["LlamaForCausalLM"])))
    Eagle3DraftModel(cfg).save_pretrained(path)
    return True


def write_from_record(path):
    """The recorded producer output: its config.json as written and a
    model.safetensors of zeros in its layout."""
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(DATA, "config.json")) as f:
        cfg = f.read()
    with open(os.path.join(path, "config.json"), "w") as f:
        f.write(cfg)
    layout = json.load(open(os.path.join(DATA, "tensors.json")))
    size = {"F32": 4, "BF16": 2, "F16": 2, "I64": 8, "BOOL": 1}
    header, off = {"__metadata__": layout.pop("__metadata__")}, 0
    for name in sorted(layout):
        t = layout[name]
        n = size[t["dtype"]]
        for d in t["shape"]:
            n *= d
        header[name] = {"dtype": t["dtype"], "shape": t["shape"],
                        "data_offsets": [off, off + n]}
        off += n
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with open(os.path.join(path, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw + bytes(off))


def write_target(path, hidden=H, arch="llama"):
    import torch
    if arch == "llama":
        from transformers import LlamaConfig as C, LlamaForCausalLM as M
        cfg = C(vocab_size=V, hidden_size=hidden, intermediate_size=I,
                num_hidden_layers=4, num_attention_heads=NH,
                num_key_value_heads=KV, max_position_embeddings=4096)
    else:
        from transformers import Gemma2Config as C, Gemma2ForCausalLM as M
        cfg = C(vocab_size=V, hidden_size=hidden, intermediate_size=I,
                num_hidden_layers=4, num_attention_heads=NH,
                num_key_value_heads=KV, head_dim=HD,
                max_position_embeddings=4096, bos_token_id=0,
                eos_token_id=1, pad_token_id=0)
    torch.manual_seed(0)
    M(cfg).to(torch.bfloat16).save_pretrained(path)


def st_bytes(folder):
    """Sum of the tensors' stored bytes, from the safetensors headers."""
    total = 0
    for name in os.listdir(folder):
        if not name.endswith(".safetensors"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            h = json.loads(f.read(n))
        total += sum(v["data_offsets"][1] - v["data_offsets"][0]
                     for k, v in h.items() if k != "__metadata__")
    return total


def fit(binary, *args):
    p = subprocess.run([binary, "fit", "--format", "json", *args],
                       capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout) if p.stdout.strip() else {}
    inp = (doc.get("inputs") or [{}])[0]
    return p.returncode, inp.get("fit") or {}, p.stderr


def main():
    binary = sys.argv[1]
    absent = sp.missing("torch", "safetensors", "transformers")
    if absent:
        print(f"SKIP: Python package '{absent}' is not installed")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        head = os.path.join(tmp, "head")
        target = os.path.join(tmp, "target")
        if not write_with_speculators(head):
            write_from_record(head)
        write_target(target)
        base = ["--engine", "vllm", "--ctx", "2048"]

        # 1. one GPU: the head's share, worked by hand
        # bf16 elements: embed V*H, fc H*3H, 4 norms of H, MLP 3*I*H,
        # q NH*HD*2H, k and v KV*HD*2H, o H*NH*HD, lm_head DV*H; d2t DV
        # int64 (DV != V); t2d dropped
        el = (V * H + H * 3 * H + 4 * H + 3 * I * H + NH * HD * 2 * H
              + 2 * KV * HD * 2 * H + H * NH * HD + DV * H)
        head_w = el * 2 + DV * 8
        tok = 2 * KV * HD * 2           # K and V, bf16, per layer
        rc_a, alone, _ = fit(binary, target, *base, "--gpus", "16G")
        rc, pair, err = fit(binary, target, *base, "--gpus", "16G",
                            "--draft", head)
        dr = pair.get("draft") or {}
        c.check(rc == 0 and dr.get("method") == "eagle3",
                f"EAGLE-3 pair sized (rc {rc}, {err.strip()[:200]})")
        c.check(dr.get("draft_tokens") == 3,
                f"num_speculative_tokens from speculators_config: "
                f"{dr.get('draft_tokens')}")
        c.check(dr.get("compatible") is True, f"compatible: {dr}")
        d0 = (dr.get("devices") or [{}])[0]
        c.check(d0.get("weights_bytes") == head_w,
                f"head weights {d0.get('weights_bytes')} == {head_w}")
        c.check(d0.get("kv_bytes") == 2048 * tok,
                f"head KV {d0.get('kv_bytes')} == {2048 * tok}")
        # max_num_batched_tokens 2048 (below 70 GiB) x hidden x bf16
        c.check(d0.get("compute_bytes") == 2048 * H * 2,
                f"proposer buffer {d0.get('compute_bytes')}")
        t0, a0 = pair["devices"][0], alone["devices"][0]
        c.check(a0["weights_bytes"] == st_bytes(target),
                f"target weights {a0['weights_bytes']} == the files' "
                f"{st_bytes(target)}")
        c.check(t0["weights_bytes"] == a0["weights_bytes"] + head_w,
                "the head's weights are in the device's")
        c.check(a0["kv_bytes"] == 4 * 2048 * tok and
                t0["kv_bytes"] == 5 * 2048 * tok,
                f"KV: 4 target layers alone, 5 with the head "
                f"({a0['kv_bytes']}, {t0['kv_bytes']})")
        # decode with the draft: E = (1 - 0.7^4) / 0.3 for 3 tokens
        c.check(abs(dr.get("tokens_per_pass", 0) - (1 - 0.7 ** 4) / 0.3)
                < 1e-4, f"tokens per pass {dr.get('tokens_per_pass')}")
        c.check("0.7" in dr.get("acceptance_source", ""),
                "the assumed acceptance is stated")

        # 1b. a head whose embedding is the target's very tensor (bf16,
        # the same bytes): vLLM's _should_share torch.equal's the two and
        # keeps the target's (vllm/v1/worker/gpu/spec_decode/eagle/
        # utils.py), so the head's copy is not counted; one element
        # changed and it is counted again
        import shutil
        from safetensors.torch import load_file, save_file
        tgt = {}
        for name in os.listdir(target):
            if name.endswith(".safetensors"):
                tgt.update(load_file(os.path.join(target, name)))
        for tag, flip in (("same", False), ("changed", True)):
            h2 = os.path.join(tmp, "head-" + tag)
            shutil.copytree(head, h2)
            st = os.path.join(h2, "model.safetensors")
            ws = load_file(st)
            key = next(k for k in ws if "embed_tokens" in k)
            emb = tgt["model.embed_tokens.weight"].clone()
            if flip:
                emb[3, 5] += 1.0
            ws[key] = emb
            save_file(ws, st, metadata={"format": "pt"})
            rc, pr, err = fit(binary, target, *base, "--gpus", "16G",
                              "--draft", h2)
            dd = ((pr.get("draft") or {}).get("devices") or [{}])[0]
            want = head_w - (0 if flip else V * H * 2)
            notes = " ".join(pr.get("notes") or [])
            c.check(rc == 0 and dd.get("weights_bytes") == want,
                    f"embedding {tag} as the target's: head weights "
                    f"{dd.get('weights_bytes')} == {want}")
            c.check(("not counted" in notes) != flip and
                    ("_should_share" in notes),
                    f"embedding {tag}: the note says so ({notes[:300]})")

        # 2. --num-speculative-tokens overrides the head's own
        _, five, _ = fit(binary, target, *base, "--gpus", "16G",
                         "--draft", head, "--num-speculative-tokens", "5")
        c.check((five.get("draft") or {}).get("draft_tokens") == 5,
                "--num-speculative-tokens 5")

        # 3. TP=2: halves of the split tensors, fc, norms and d2t whole
        rc, tp2, err = fit(binary, target, *base, "--gpus", "2x16G",
                           "--draft", head)
        el2 = (V * H // 2 + H * 3 * H + 4 * H + 3 * I * H // 2
               + NH * HD * 2 * H // 2 + 2 * KV * HD * 2 * H // 2
               + H * NH * HD // 2 + DV * H // 2)
        devs = (tp2.get("draft") or {}).get("devices") or [{}, {}]
        c.check(len(devs) == 2 and all(
            d.get("weights_bytes") == el2 * 2 + DV * 8 and
            d.get("kv_bytes") == 2048 * tok // 2 for d in devs),
            f"TP=2 per rank: {devs} vs weights {el2 * 2 + DV * 8}, "
            f"KV {2048 * tok // 2}")

        # 4. a target of another hidden size: vLLM fails at the first
        # step; does-not-fit, and the reason
        wide = os.path.join(tmp, "wide")
        write_target(wide, hidden=2 * H)
        rc, bad, _ = fit(binary, wide, *base, "--gpus", "16G",
                         "--draft", head)
        bd = bad.get("draft") or {}
        c.check(bad.get("verdict") == "does-not-fit" and
                bd.get("compatible") is False and
                "hidden size is 256" in bd.get("incompatible", ""),
                f"hidden mismatch: {bad.get('verdict')} {bd}")

        # 5. a target class without SupportsEagle3 (Gemma 2)
        gpt2 = os.path.join(tmp, "gemma")
        write_target(gpt2, arch="gemma")
        rc, g2, _ = fit(binary, gpt2, *base, "--gpus", "16G",
                        "--draft", head)
        gd = g2.get("draft") or {}
        c.check(g2.get("verdict") == "does-not-fit" and
                "Gemma2ForCausalLM does not implement SupportsEagle3" in
                gd.get("incompatible", ""), f"Gemma target: {gd}")

        # 6. what is not an EAGLE-3 head, and engines without a model
        code, out, err = run(binary, ["fit", target, *base, "--gpus", "16G",
                                      "--draft", gpt2])
        said = " ".join((out + err).split())
        c.check(code == 3 and "sizes an EAGLE-3 head" in said and
                "method draft_model" in said,
                f"a model as a vLLM draft: {code} {said[:200]}")
        code, out, err = run(binary, ["fit", target, "--engine", "sglang",
                                      "--gpus", "16G", "--draft", head])
        said = " ".join((out + err).split())
        c.check(code == 3 and "sglang drafts are not modelled" in
                said.lower(), f"SGLang: {code} {said[:200]}")

        # 7. a SafeAILab-layout head (no speculators_config) needs the
        # token count, as vLLM does
        plain = os.path.join(tmp, "plain")
        os.makedirs(plain)
        cfg = json.load(open(os.path.join(head, "config.json")))
        flat = dict(cfg["transformer_layer_config"])
        flat.update(architectures=["LlamaForCausalLMEagle3"],
                    draft_vocab_size=DV)
        json.dump(flat, open(os.path.join(plain, "config.json"), "w"))
        os.link(os.path.join(head, "model.safetensors"),
                os.path.join(plain, "model.safetensors"))
        code, out, err = run(binary, ["fit", target, *base, "--gpus", "16G",
                                      "--draft", plain])
        said = " ".join((out + err).split())
        c.check(code == 3 and "num_speculative_tokens" in said,
                f"no token count: {code} {said[:200]}")
        rc, ok, _ = fit(binary, target, *base, "--gpus", "16G", "--draft",
                        plain, "--num-speculative-tokens", "2")
        c.check((ok.get("draft") or {}).get("draft_tokens") == 2 and
                ok["draft"]["devices"][0]["weights_bytes"] == head_w,
                f"SafeAILab layout with -n 2: {ok.get('draft')}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
