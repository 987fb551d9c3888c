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
    # SGLang's registry (the EntryClass of each models/*.py): it has
    # Qwen3.5 and Llama but not SmolLM3; a GGUF maps to its HF class.
    ("hf-qwen35", ["--engine", "sglang"], []),
    ("hf-smollm3", ["--engine", "sglang"], ["QA5052"]),
    ("hf-foonet", ["--engine", "sglang"], ["QA5052"]),
    ("llama.gguf", ["--engine", "sglang", "--gpus", "rtx-5060-ti"], []),
    ("qwen35-gdn.gguf", ["--engine", "sglang"], []),
    ("foonet.gguf", ["--engine", "sglang"], ["QA5052"]),
    ("iq2s.gguf", ["--engine", "sglang"], []),
    # TensorRT-LLM (knowledge only): its hardware support matrix has NVFP4
    # on Blackwell only and AWQ on pre-Blackwell only; AutoDeploy's NVFP4
    # Mamba in_proj under TP (two devices). rtx-4090 is 8.9, rtx-5090 12.0.
    ("hf-nvfp4a16", ["--engine", "tensorrt-llm", "--gpus", "rtx-4090"],
     ["QA5011"]),
    ("hf-nvfp4-w4a4", ["--engine", "tensorrt-llm", "--gpus", "rtx-4090"],
     ["QA5011"]),
    ("hf-nvfp4-w4a4", ["--engine", "tensorrt-llm", "--gpus", "rtx-5090"],
     []),
    ("hf-awq", ["--engine", "tensorrt-llm", "--gpus", "rtx-5090"],
     ["QA5012"]),
    ("hf-awq", ["--engine", "trtllm", "--gpus", "rtx-4090"], []),
    ("hf-nemotron-nvfp4", ["--engine", "tensorrt-llm", "--gpus",
                           "rtx-5090:2"], ["QA5002", "QA5013"]),
    ("hf-nemotron-nvfp4", ["--engine", "tensorrt-llm", "--gpus",
                           "rtx-5090"], ["QA5002"]),
    ("hf-nemotron-bf16", ["--engine", "tensorrt-llm", "--gpus",
                          "rtx-5090:2"], []),
    ("hf-nvfp4-w4a4", ["--engine", "vllm", "--gpus", "rtx-4090"], []),
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

ENGINES = ("llama.cpp", "vllm", "sglang")
# The "architecture not supported by <engine>" code of each engine.
UNSUPPORTED = {"llama.cpp": "QA5050", "vllm": "QA5051", "sglang": "QA5052"}
# How findings name an engine they send the user to.
NAMES = {"llama.cpp": "llama.cpp", "vllm": "vLLM", "sglang": "SGLang"}


def points_to(fs, engine):
    """Engines other than `engine` that findings of an `engine` run send
    the user to: a finding naming another engine, other than the
    support statements about the engine itself (QA505x, QA5008)."""
    own = {"QA5008", "QA5050", "QA5051", "QA5052"}
    out = set()
    for f in fs:
        if f["code"] in own:
            continue
        for other, name in NAMES.items():
            if other != engine and name in f["message"]:
                out.add(other)
    return sorted(out)


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
    # Advice never contradicts itself across engines: a model one
    # engine's findings send to another engine (QA5001 "serve ... with
    # vLLM") is one that engine has (no QA5050/QA5051/QA5052 for it).
    for rel in FIXTURES:
        runs = {}
        for engine in ENGINES:
            _, d, _ = run_json(binary, ["check", "--engine", engine,
                                        os.path.join(root, rel)])
            runs[engine] = knowledge(d)
        for engine, fs in runs.items():
            for target in points_to(fs, engine):
                lacks = [f["code"] for f in runs[target]
                         if f["code"] == UNSUPPORTED[target]]
                c.check(not lacks,
                        f"{rel}: --engine {engine} advice points to "
                        f"{target}, --engine {target} says {lacks}")
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
