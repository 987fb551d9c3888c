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
    c.finish()


main()
