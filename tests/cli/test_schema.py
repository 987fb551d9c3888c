# SPDX-License-Identifier: MIT
"""Validates quantaudit's JSON report against the published schema
(docs/quantaudit-1.schema.json) for every generated fixture, the bundled
sample and, when present, every real corpus input. Uses the system
python3-jsonschema (Debian package); skips (77) when it is missing."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import SKIP, Checker, env_path, run  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: skipped")
    sys.exit(SKIP)


def main():
    binary = sys.argv[1]
    root = env_path("QA_SOURCE_ROOT")
    fixtures = env_path("QA_FIXTURES")
    schema = json.load(open(os.path.join(root, "docs",
                                         "quantaudit-1.schema.json")))
    validator = jsonschema.Draft202012Validator(schema)
    c = Checker()
    paths = []
    with open(os.path.join(fixtures, "manifest.tsv")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rel, code = line.split("\t")[:2]
                if int(code) in (0, 1):
                    paths.append(os.path.join(fixtures, rel))
    corpus = os.environ.get("QA_CORPUS", "")
    if os.path.isdir(corpus):
        for sub in ("gguf", "tiny-llama", "tiny-llama/split", "hf",
                    "gguf-vocab"):
            d = os.path.join(corpus, sub)
            if os.path.isdir(d):
                paths += [os.path.join(d, n) for n in sorted(os.listdir(d))
                          if n.endswith(".gguf") or sub == "hf"]
    c.check(len(paths) > 10, "enough inputs to validate")
    for p in paths:
        code, out, err = run(binary, ["--format", "json", p])
        try:
            doc = json.loads(out)
        except json.JSONDecodeError as e:
            c.check(False, f"{p}: invalid JSON: {e}")
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: e.path)
        c.check(not errors, f"{p}: " + "; ".join(
            f"{list(e.path)}: {e.message[:150]}" for e in errors[:3]))
    # The fields only some runs write: a fit with a placement and with a
    # partial offload, a refused fit (fit_error), setup advisories, a
    # folder of GGUFs (several inputs, a projector when there is one).
    fit = os.path.join(fixtures, "fit")
    extra = [
        ["check", "--gpus", "8G,8G", "--ctx", "64k",
         os.path.join(fit, "gemma-3-12b-Q4_K_M.gguf")],
        ["check", "--gpus", "rtx-5060-ti",
         os.path.join(fit, "qwen3-30b-a3b-Q4_K_M.gguf")],
        ["check", "--gpus", "rtx-5060-ti:2", "--engine", "vllm",
         os.path.join(fixtures, "hub", "nemotron-nano-9b-v2")],
        ["check", "--gpus", "2x16G",
         os.path.join(fixtures, "gguf", "split-missing")],
        ["fit", "--gpus", "2x16G", fit],
    ]
    seen = set()
    for args in extra:
        code, out, err = run(binary, [args[0], "--format", "json"] +
                             args[1:])
        try:
            doc = json.loads(out)
        except json.JSONDecodeError as e:
            c.check(False, f"{args}: invalid JSON: {e}")
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: e.path)
        c.check(not errors, f"{args}: " + "; ".join(
            f"{list(e.path)}: {e.message[:150]}" for e in errors[:3]))
        seen.update(k for k in doc if doc.get("advisories"))
        for i in doc.get("inputs", []):
            seen.update(k for k in ("fit_error", "source", "projector")
                        if k in i)
            if "placement" in (i.get("fit") or {}):
                seen.add("placement")
    for k in ("advisories", "fit_error", "placement"):
        c.check(k in seen, f"no run wrote '{k}' to validate")
    c.finish()


main()
