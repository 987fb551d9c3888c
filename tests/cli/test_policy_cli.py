# SPDX-License-Identifier: MIT
"""`quantaudit check --rules FILE` end to end: the policy examples of
docs/examples/ on the generated sample model (exit codes and finding codes
worked out by hand from fixtures/gen/gen_sample.c), a broken rule file
(exit 2 with the JSON path on stderr), overrides from the file and from
the command line, and QA8001 for a selector that matches nothing. Also
checks that every example file appears verbatim in docs/policy.md, so the
documentation and the tested files cannot drift apart."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run, run_json  # noqa: E402

SCHEMA = '"schema": "quantaudit-policy/1"'

# (example file, exit code, user finding codes) on the sample: a dense
# Llama 3.2 1B in Q4_K_M (Q4_K/Q6_K/F32, general.license set, no MTP in
# its family, so mtp-present passes; about 0.8 GB on disk).
EXAMPLES = [
    ("attention-bf16.json", 1, ["QA9001"]),
    ("mtp-present.json", 0, []),
    ("no-type-below-q4_k.json", 0, []),
    ("file-size-30gb.json", 0, []),
    ("license-required.json", 0, []),
    ("team-policy.json", 0, []),
]


def policy_codes(doc):
    return sorted({f["code"] for i in doc.get("inputs", [])
                   for f in i.get("findings", [])
                   if f["code"] >= "QA8000"})


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    binary = sys.argv[1]
    fixtures = env_path("QA_FIXTURES")
    root = env_path("QA_SOURCE_ROOT")
    sample = os.path.join(fixtures, "sample",
                          "sample-llama-3.2-1b-Q4_K_M.gguf")
    examples = os.path.join(root, "docs", "examples")
    c = Checker()

    # Built-in rules may have findings on the sample as other rule
    # families evolve; disable those so the exit codes below depend on
    # the policy alone.
    code, doc, err = run_json(binary, ["check", "--summary", sample])
    iso = []
    for f in sorted({f["code"] for i in doc.get("inputs", [])
                     for f in i.get("findings", [])}):
        iso += ["--disable", f]

    def check(*args):
        return run(binary, ["check"] + iso + list(args))

    def check_json(*args):
        return run_json(binary, ["check", "--summary"] + iso + list(args))

    with open(os.path.join(root, "docs", "policy.md")) as f:
        doc_text = f.read()
    for name in sorted(os.listdir(examples)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(examples, name)) as f:
            text = f.read().strip()
        c.check(text in doc_text,
                f"docs/examples/{name} is not quoted verbatim in "
                "docs/policy.md")

    for name, want_exit, want_codes in EXAMPLES:
        path = os.path.join(examples, name)
        code, out, err = check("--rules", path, sample)
        c.check(code == want_exit,
                f"{name}: exit {code}, expected {want_exit}: {err.strip()}")
        code, doc, err = check_json("--rules", path, sample)
        c.check(code == want_exit, f"{name} (json): exit {code}")
        got = policy_codes(doc)
        c.check(got == want_codes,
                f"{name}: findings {got}, expected {want_codes}")

    # mtp-present means "MTP must be present where the family has it":
    # (fixture, MTP status, QA9002 expected). Families that never shipped
    # MTP and models declaring 0 MTP layers pass; a family that ships
    # MTP with the head dropped, missing, cut short, half outside the
    # index or undeclared (so engines skip it) fails. Built-in findings are disabled so the exit code is the
    # policy's alone.
    mtp_cases = [
        ("fit/llama-3.1-8b-Q4_K_M.gguf", "not-applicable", False),
        ("fit/lfm2-1.2b-Q4_K_M.gguf", "not-applicable", False),
        ("fit/gemma-3-12b-Q4_K_M.gguf", "not-applicable", False),
        ("hub/lfm2-1.2b", "not-applicable", False),
        ("sample/sample-llama-3.2-1b-Q4_K_M.gguf", "not-applicable", False),
        ("hub/kimi-k2-like", "not-applicable", False),
        ("mtp/kimi-k2.gguf", "not-applicable", False),
        ("mtp/deepseek-v3-declared-zero.gguf", "not-applicable", False),
        ("mtp/qwen35-present", "present", False),
        ("gguf/mtp-present.gguf", "present", False),
        ("fit/qwen3.6-27b-like-mtp-Q4_K_M.gguf", "present", False),
        ("gguf/mtp-missing.gguf", "missing", True),
        ("mtp/qwen35-missing", "missing", True),
        ("mtp/qwen35-absent", "absent", True),
        ("mtp/deepseek-v3-absent.gguf", "absent", True),
        ("mtp/qwen35-partial", "partial", True),
        ("mtp/qwen35-partial.gguf", "partial", True),
        ("mtp/glm-side-file", "partial", True),
        ("mtp/glm-partly-unlisted", "partial", True),
        # present in the files but undeclared: engines skip it
        # (mtp_loadable)
        ("mtp/qwen35-undeclared", "present", True),
    ]
    mtp_rules = os.path.join(examples, "mtp-present.json")
    for rel, status, fails in mtp_cases:
        path = os.path.join(fixtures, rel)
        code, doc, err = run_json(binary, ["check", "--summary", path])
        builtin = sorted({f["code"] for i in doc.get("inputs", [])
                          for f in i.get("findings", [])})
        got = [i["model"]["mtp"]["status"] for i in doc.get("inputs", [])]
        c.check(got == [status], f"{rel}: MTP status {got}, expected "
                f"{status}")
        off = []
        for f in builtin:
            off += ["--disable", f]
        code, doc, err = run_json(binary, ["check", "--summary"] + off +
                                  ["--rules", mtp_rules, path])
        c.check(code == (1 if fails else 0) and
                policy_codes(doc) == (["QA9002"] if fails else []),
                f"mtp-present on {rel} ({status}): exit {code}, "
                f"{policy_codes(doc)}, expected "
                f"{'QA9002' if fails else 'a pass'}")

    # The attention finding names its first tensor and the count.
    code, doc, err = check_json(
        "--rules", os.path.join(examples, "attention-bf16.json"), sample)
    fs = [f for i in doc["inputs"] for f in i["findings"]
          if f["code"] == "QA9001"]
    c.check(len(fs) == 1 and fs[0].get("tensor") == "blk.0.attn_k.weight"
            and fs[0]["detail"].startswith("64 of 64 selected tensors")
            and fs[0]["severity"] == "error"
            and fs[0]["id"] == "attention-bf16",
            f"attention finding: {fs}")

    with tempfile.TemporaryDirectory() as tmp:
        # A broken file is a usage error naming the file and JSON path.
        bad = write(tmp, "bad.json", "{" + SCHEMA + ', "rules": [{"id": '
                    '"a", "select": {"role": "atention"}, "require": '
                    '{"dtype_in": ["BF16"]}}]}')
        code, out, err = check("--rules", bad, sample)
        c.check(code == 2, f"bad rule file: exit {code}, expected 2")
        c.check(f"quantaudit: {bad}: $.rules[0].select.role: unknown role "
                "'atention'" in err, f"bad rule file stderr: {err!r}")

        # Overrides in the file: the attention rule as a warning passes
        # the default gate; the command line wins over the file.
        soft = write(tmp, "soft.json", "{" + SCHEMA + ', "overrides": '
                     '{"attention-bf16": "warning"}, "rules": [{"id": '
                     '"attention-bf16", "select": {"role": "attention"}, '
                     '"require": {"dtype_in": ["BF16", "F16"]}}]}')
        code, doc, err = check_json("--rules", soft, sample)
        sev = [f["severity"] for i in doc["inputs"] for f in i["findings"]
               if f["code"] == "QA9000"]
        c.check(code == 0 and sev == ["warning"],
                f"file override to warning: exit {code}, {sev}")
        code, out, err = check("--rules", soft, "--severity",
                               "QA9000=error", sample)
        c.check(code == 1, f"--severity over the file: exit {code}")
        code, out, err = check("--rules", soft, "--disable",
                               "attention-bf16", sample)
        c.check(code == 0, f"--disable of a user rule: exit {code}")
        code, out, err = check("--rules", soft, "--fail-on", "warning", sample)
        c.check(code == 1, f"--fail-on warning: exit {code}")

        # A selector that matches nothing: QA8001 (info, exit 0); the
        # same rule with a selector that matches does not raise it.
        empty = write(tmp, "empty.json", "{" + SCHEMA + ', "rules": [{"id": '
                      '"experts-bf16", "select": {"role": "experts"}, '
                      '"require": {"dtype_in": ["BF16"]}}]}')
        code, doc, err = check_json("--rules", empty, sample)
        c.check(code == 0 and policy_codes(doc) == ["QA8001"],
                f"empty selection: exit {code}, {policy_codes(doc)}")
        some = write(tmp, "some.json", "{" + SCHEMA + ', "rules": [{"id": '
                     '"embed-q6", "select": {"role": "embeddings"}, '
                     '"require": {"dtype_in": ["Q6_K"]}}]}')
        code, doc, err = check_json("--rules", some, sample)
        c.check(code == 0 and policy_codes(doc) == [],
                f"matching selection: exit {code}, {policy_codes(doc)}")

        # The file's rules are listed by `rules` and explained.
        code, out, err = run(binary, ["rules", "--rules", soft,
                                      "--explain", "attention-bf16"])
        c.check(code == 0 and "QA9000" in out,
                f"rules --explain of a user rule: exit {code}: {out!r}")
    c.finish()


main()
