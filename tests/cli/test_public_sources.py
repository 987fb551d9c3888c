# SPDX-License-Identifier: MIT
"""Text shown to users cites public sources only: upstream files, papers,
issues and pull requests, documentation URLs, or the project's own docs
(docs/fit.md, docs/quantization.md...). The team's private research notes
live outside the repository (../shared/knowledge/) and must never be cited
in user-facing text, since users cannot open them.

Fails when any of these names one of those notes:
  - `quantaudit rules --explain CODE` for every built-in rule;
  - README.md and every docs/*.md;
  - the fit formula and notes (`quantaudit fit --format json`, llama.cpp,
    vLLM and SGLang) on the fit fixtures, when they have been generated.

Usage: test_public_sources.py QUANTAUDIT [SOURCE_ROOT]; the source root
defaults to $QA_SOURCE_ROOT, the fixtures folder is $QA_FIXTURES."""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, run  # noqa: E402

# The notes of ../shared/knowledge/. "prior-art" is also plain English
# when not followed by ".md" or a section sign, so it needs one of them.
PRIVATE = re.compile(
    r"quant-formats(?:\.md)?|memory-models(?:\.md)?|"
    r"formats-and-security(?:\.md)?|llamacpp-memory-2(?:\.md)?|"
    r"prior-art(?:\.md|\s*§)|shared/knowledge",
    re.IGNORECASE)

FIT_CASES = [
    ("llama-3.1-8b-Q4_K_M.gguf", ["--gpus", "2x16G"]),
    ("llama-3.1-8b-Q4_K_M.gguf", ["--gpus", "2x16G", "--engine", "vllm"]),
    ("nemotron-nano-9b-v2-Q4_K_M.gguf", ["--gpus", "rtx-5060-ti:2",
                                         "--engine", "vllm"]),
    ("llama-3.1-8b-Q4_K_M.gguf", ["--gpus", "2x16G", "--engine", "sglang"]),
    ("nemotron-nano-9b-v2-Q4_K_M.gguf", ["--gpus", "rtx-5060-ti:2",
                                         "--engine", "sglang"]),
]


def offending(text):
    """(line number, line) of every line that names a private note."""
    return [(i, ln.strip()) for i, ln in enumerate(text.splitlines(), 1)
            if PRIVATE.search(ln)]


def check_text(c, where, text):
    hits = offending(text)
    for i, ln in hits:
        print(f"  {where}:{i}: {ln[:200]}")
    c.check(not hits, f"{where} cites no private research note")


def rule_codes(c, binary):
    code, out, err = run(binary, ["rules", "--format", "json"])
    if not c.check(code == 0, f"rules --format json: exit {code}: "
                   f"{err.strip()[:200]}"):
        return []
    try:
        rules = json.loads(out)["rules"]
    except (ValueError, KeyError, TypeError) as e:
        c.check(False, f"rules --format json parses: {e}")
        return []
    return [r["code"] for r in rules if isinstance(r, dict) and "code" in r]


def main():
    if len(sys.argv) < 2:
        print("usage: test_public_sources.py QUANTAUDIT [SOURCE_ROOT]")
        sys.exit(2)
    binary = sys.argv[1]
    root = (sys.argv[2] if len(sys.argv) > 2 else
            os.environ.get("QA_SOURCE_ROOT", ""))
    if not root or not os.path.isdir(root):
        print("no source root (argument or QA_SOURCE_ROOT)")
        sys.exit(1)
    c = Checker()

    codes = rule_codes(c, binary)
    c.check(len(codes) > 50, f"the registry lists its rules ({len(codes)})")
    for qa in codes:
        code, out, err = run(binary, ["rules", "--explain", qa])
        if c.check(code == 0, f"rules --explain {qa}: exit {code}"):
            check_text(c, f"rules --explain {qa}", out + err)

    docs = [os.path.join(root, "README.md")]
    docs += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    c.check(len(docs) > 5, f"README.md and docs/*.md found ({len(docs)})")
    for path in docs:
        with open(path, encoding="utf-8", errors="replace") as f:
            check_text(c, os.path.relpath(path, root), f.read())

    fixtures = os.environ.get("QA_FIXTURES", "")
    for name, opts in FIT_CASES:
        path = os.path.join(fixtures, "fit", name)
        if not fixtures or not os.path.exists(path):
            c.skipped += 1
            print(f"SKIP fit {name}: fixture not generated")
            continue
        code, out, err = run(binary, ["fit", path, "--format", "json"] + opts)
        what = f"fit {name} {' '.join(opts)}"
        if not c.check(code in (0, 1), f"{what}: exit {code}: "
                       f"{err.strip()[:200]}"):
            continue
        try:
            fit = json.loads(out)["inputs"][0]["fit"]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            c.check(False, f"{what}: fit JSON: {e}")
            continue
        c.check(bool(fit.get("formula")), f"{what}: formula present")
        text = "\n".join([fit.get("formula") or ""] +
                         list(fit.get("notes") or []))
        check_text(c, f"{what} formula/notes", text + "\n" + err)

    c.finish()


if __name__ == "__main__":
    main()
