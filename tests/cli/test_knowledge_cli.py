# SPDX-License-Identifier: MIT
"""Runs `quantaudit check` with --engine/--gpus on the knowledge fixtures
(fixtures/gen/gen_knowledge.c, out/knowledge/) and checks the exact set of
QA50xx codes each combination must give, that none appear without the
options, that every knowledge message ends with "(source, as of
YYYY-MM)", and that a bad --gpus is a usage error (exit 2).

The expected codes follow from the rows of rules/engines.def worked by
hand: rtx-5060-ti, rtx-5090 and rtx-pro-6000 are compute capability 12.0,
rtx-4090 is 8.9; a GGUF input without --engine runs on llama.cpp."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run, run_json  # noqa: E402

# (fixture, options, expected QA50xx codes per model)
CASES = [
    # GDN hybrid on llama.cpp: the GDN fact; qwen35 is a llama.cpp
    # architecture. Setup advisories are once per run, not per model
    # (ADVISORIES below).
    ("qwen35-gdn.gguf", ["--engine", "llama.cpp", "--gpus", "rtx-5060-ti:2"],
     ["QA5001"]),
    ("llama.gguf", ["--engine", "llama.cpp", "--gpus", "rtx-5060-ti:2"], []),
    ("foonet.gguf", ["--engine", "llama.cpp", "--gpus", "rtx-5060-ti:2"],
     ["QA5050"]),
    # qwen35 maps to Qwen3_5ForConditionalGeneration, which vLLM has.
    ("qwen35-gdn.gguf", ["--engine", "vllm", "--gpus", "rtx-5060-ti:2"], []),
    ("llama.gguf", ["--engine", "vllm", "--gpus", "rtx-5060-ti"], []),
    ("foonet.gguf", ["--engine", "vllm"], ["QA5051"]),
    # GGUF without --engine implies llama.cpp; an Ada card adds nothing.
    ("qwen35-gdn.gguf", ["--gpus", "rtx-4090"], ["QA5001"]),
    ("qwen35-gdn.gguf", ["--engine", "llama.cpp"], ["QA5001"]),
    ("llama.gguf", ["--gpus", "2x16G"], []),
    # IQ2_S tensors and llama.cpp: the CUDA 13.2 miscompile, unless the
    # declared build is another CUDA version or no CUDA at all.
    ("iq2s.gguf", ["--engine", "llama.cpp"], ["QA5009"]),
    ("iq2s.gguf", ["--engine", "llama.cpp@cuda13.2"], ["QA5009"]),
    ("iq2s.gguf", ["--engine", "llama.cpp@b6543"], ["QA5009"]),
    ("iq2s.gguf", ["--engine", "llama.cpp@cuda12.8"], []),
    ("iq2s.gguf", ["--engine", "llama.cpp@cuda13.3"], []),
    ("iq2s.gguf", ["--engine", "llama.cpp@vulkan"], []),
    ("iq2s.gguf", ["--engine", "vllm"], []),
    # Quantization facts need an SM_120 device in the spec.
    ("hf-nvfp4a16", ["--gpus", "rtx-5060-ti"], ["QA5002"]),
    ("hf-nvfp4a16", ["--gpus", "rtx-4090"], []),
    ("hf-nvfp4-w4a4", ["--gpus", "rtx-5060-ti"], []),
    # AWQ on SM_120: vLLM converts it to awq_marlin (retired QA5004).
    ("hf-awq", ["--gpus", "rtx-5090"], []),
    ("hf-awq", ["--gpus", "rtx-4090"], []),
    ("hf-gptq", ["--gpus", "rtx-5090"], []),
    # NVFP4 with Mamba layers on two devices (retired QA5003).
    ("hf-nemotron-nvfp4", ["--engine", "vllm", "--gpus", "rtx-5090:2"],
     ["QA5002"]),
    ("hf-nemotron-nvfp4", ["--gpus", "rtx-5090"], ["QA5002"]),
    ("hf-nemotron-nvfp4", ["--gpus", "2x16G"], []),
    ("hf-nemotron-bf16", ["--gpus", "rtx-pro-6000:2"], []),
    # Architecture support for Hugging Face folders.
    ("hf-smollm3", ["--engine", "vllm"], ["QA5008"]),
    ("hf-smollm3", ["--engine", "llama.cpp"], []),
    ("hf-foonet", ["--engine", "vllm"], ["QA5051"]),
    ("hf-foonet", ["--engine", "llama.cpp"], ["QA5050"]),
    ("hf-qwen35", ["--engine", "llama.cpp"], ["QA5001"]),
    ("hf-qwen35", ["--engine", "vllm"], []),
]

# (fixtures, options, expected top-level advisories): once per run.
ADVISORIES = [
    (["qwen35-gdn.gguf", "llama.gguf"],
     ["--engine", "vllm", "--gpus", "rtx-5060-ti:2"], ["QA5010"]),
    (["qwen35-gdn.gguf"], ["--engine", "vllm", "--gpus", "rtx-5060-ti"], []),
    (["qwen35-gdn.gguf"], ["--engine", "vllm", "--gpus", "rtx-4090:2"], []),
    (["qwen35-gdn.gguf", "llama.gguf"],
     ["--engine", "llama.cpp", "--gpus", "rtx-5060-ti:2"], []),
    (["qwen35-gdn.gguf"], ["--engine", "vllm", "--gpus", "rtx-5060-ti:2",
                           "--disable", "QA5010"], []),
]

FIXTURES = ["qwen35-gdn.gguf", "llama.gguf", "foonet.gguf", "iq2s.gguf",
            "hf-nvfp4a16",
            "hf-nvfp4-w4a4", "hf-awq", "hf-gptq", "hf-nemotron-nvfp4",
            "hf-nemotron-bf16", "hf-smollm3", "hf-foonet", "hf-qwen35"]

SOURCE_TAIL = re.compile(r"\(.+, as of \d{4}-\d{2}\)$")


def knowledge(doc):
    return [f for i in doc.get("inputs", []) for f in i.get("findings", [])
            if f["code"].startswith("QA50")]


def main():
    binary = sys.argv[1]
    root = os.path.join(env_path("QA_FIXTURES"), "knowledge")
    c = Checker()
    for rel, opts, want in CASES:
        code, doc, err = run_json(binary, ["check"] + opts +
                                  [os.path.join(root, rel)])
        got = sorted({f["code"] for f in knowledge(doc)})
        c.check(code in (0, 1), f"{rel} {opts}: exit {code} {err.strip()}")
        c.check(got == sorted(want),
                f"{rel} {opts}: codes {got}, expected {sorted(want)}")
        for f in knowledge(doc):
            c.check(SOURCE_TAIL.search(f["message"]) is not None,
                    f"{rel}: message lacks '(source, as of YYYY-MM)': "
                    f"{f['message']}")
    for rels, opts, want in ADVISORIES:
        code, doc, err = run_json(binary, ["check"] + opts +
                                  [os.path.join(root, r) for r in rels])
        got = [a["code"] for a in doc.get("advisories", [])]
        c.check(got == want, f"advisories {rels} {opts}: {got}, "
                f"expected {want}")
        c.check(all(a["severity"] == "info" and
                    SOURCE_TAIL.search(a["message"])
                    for a in doc.get("advisories", [])),
                f"advisories {rels}: info with a source")
        c.check(not any(f["code"] in want for i in doc["inputs"]
                        for f in i["findings"]),
                f"advisories {rels}: also reported per model")
        code, out, err = run(binary, ["check"] + opts +
                             [os.path.join(root, r) for r in rels])
        for w in want:
            c.check(out.count(w) == 1, f"advisories {rels} text: {w} "
                    f"printed {out.count(w)} times")
    # Advice never contradicts itself across engines: a model llama.cpp
    # advice sends to vLLM (QA5001) is one vLLM has (no QA5051).
    for rel in FIXTURES:
        _, d1, _ = run_json(binary, ["check", "--engine", "llama.cpp",
                                     os.path.join(root, rel)])
        _, d2, _ = run_json(binary, ["check", "--engine", "vllm",
                                     os.path.join(root, rel)])
        if "QA5001" in {f["code"] for f in knowledge(d1)}:
            c.check("QA5051" not in {f["code"] for f in knowledge(d2)},
                    f"{rel}: llama.cpp advice says vLLM, vLLM says no "
                    f"implementation")
    for rel in FIXTURES:
        code, doc, err = run_json(binary, ["check",
                                           os.path.join(root, rel)])
        c.check(knowledge(doc) == [],
                f"{rel}: knowledge findings without --engine/--gpus: "
                f"{[f['code'] for f in knowledge(doc)]}")
    # A spec the parser refuses is a usage error with its message.
    code, out, err = run(binary, ["check", "--gpus", "rtx-9999",
                                  os.path.join(root, "llama.gguf")])
    c.check(code == 2, f"--gpus rtx-9999: exit {code}, expected 2")
    c.check("--gpus: unknown GPU 'rtx-9999'" in err,
            f"--gpus rtx-9999: stderr {err.strip()}")
    code, out, err = run(binary, ["check", "--gpus", "17x16G",
                                  os.path.join(root, "llama.gguf")])
    c.check(code == 2 and "out of range" in err,
            f"--gpus 17x16G: exit {code}, stderr {err.strip()}")
    c.finish()


if __name__ == "__main__":
    main()
