# SPDX-License-Identifier: MIT
"""One set of facts for every command (docs/architecture.md: every command
runs the one audit pipeline, src/engine/audit.c, and differs only in the
options it passes and the view it draws).

For every generated fixture of the fit, hub, mtp and sample families,
`inspect --format json`, `check --format json`, `check --format json
--gpus 2x16G` and `fit --format json --gpus 2x16G` must report:

- the same inputs, and for each the same `model` object (architecture,
  hparams with the layer kinds, quantization, components, layers, MTP
  summary): the facts do not depend on the command or on --gpus;
- the same findings about the model (every code outside the fit family,
  QA4xxx, and the engine/GPU knowledge family, QA5xxx), message for
  message, in the same order;
- with the same --gpus, the same knowledge findings (QA5xxx): they
  depend on the GPUs and the engine, not on the command. The fit
  findings (QA4xxx) differ by design: `check` sizes the largest context
  that fits, `fit` the trained context (src/cli/cli.c run()).

Then grouping (qa_inventory_group_findings, run by the pipeline before
any reporter): rules/expert-count-layers.gguf has the same QA2106 fault in
each of its 6 blocks, and every command and report format shows one
finding "... (6 times, for 0-5)": inspect and check in JSON and text,
SARIF (one result), JUnit (one failure in the QA2106 test case) and
Markdown (one row)."""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run  # noqa: E402

GPUS = "2x16G"
COMMANDS = [
    ("inspect", ["inspect"]),
    ("check", ["check"]),
    ("check --gpus", ["check", "--gpus", GPUS]),
    ("fit --gpus", ["fit", "--gpus", GPUS]),
]


def report(binary, args):
    """quantaudit COMMAND --format json ARGS...: (exit, document, stderr)."""
    code, out, err = run(binary, args[:1] + ["--format", "json"] + args[1:])
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError as e:
        raise AssertionError(f"invalid JSON from {args}: {e}\n{out[:500]}")


def finding_key(f):
    return (f["code"], f["severity"], f["message"], f.get("file"),
            f.get("offset"), f.get("tensor"))


def model_findings(doc):
    """Per input, the findings that are about the model."""
    return [[finding_key(f) for f in i.get("findings", [])
             if not f["code"].startswith(("QA4", "QA5"))]
            for i in doc.get("inputs", [])]


def knowledge_findings(doc):
    return [[finding_key(f) for f in i.get("findings", [])
             if f["code"].startswith("QA5")]
            for i in doc.get("inputs", [])]


def first_difference(a, b, where=""):
    """Where two JSON values first differ, for the failure message."""
    if type(a) is not type(b):
        return f"{where}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}: only in one"
            d = first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} items"
        for n, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{n}]")
            if d:
                return d
        return None
    return None if a == b else f"{where}: {a!r} vs {b!r}"


def agree(c, binary, path, rel):
    docs = {}
    for name, args in COMMANDS:
        code, doc, err = report(binary, args + [path])
        if not c.check(doc.get("inputs"), f"{rel}: {name} reported no "
                       f"input (exit {code}): {err.strip()[:200]}"):
            return
        docs[name] = doc
    base = docs["inspect"]
    base_paths = [i["path"] for i in base["inputs"]]
    for name, doc in docs.items():
        if name == "inspect":
            continue
        paths = [i["path"] for i in doc["inputs"]]
        if not c.check(paths == base_paths, f"{rel}: {name} inputs "
                       f"{paths}, inspect {base_paths}"):
            continue
        for a, b in zip(base["inputs"], doc["inputs"]):
            c.check("model" in a and a.get("model") == b.get("model"),
                    f"{rel}: {name} model differs from inspect's: "
                    f"{first_difference(a.get('model'), b.get('model'))}")
        c.check(model_findings(doc) == model_findings(base),
                f"{rel}: {name} model findings "
                f"{model_findings(doc)} differ from inspect's "
                f"{model_findings(base)}")
    c.check(knowledge_findings(docs["check --gpus"]) ==
            knowledge_findings(docs["fit --gpus"]),
            f"{rel}: knowledge findings with --gpus differ: check "
            f"{knowledge_findings(docs['check --gpus'])}, fit "
            f"{knowledge_findings(docs['fit --gpus'])}")
    # inspect and check without --gpus run the same checks: identical
    # findings, fit and knowledge included.
    c.check([[finding_key(f) for f in i.get("findings", [])]
             for i in docs["inspect"]["inputs"]] ==
            [[finding_key(f) for f in i.get("findings", [])]
             for i in docs["check"]["inputs"]],
            f"{rel}: inspect and check findings differ")


GROUPED = "(6 times, for 0-5)"


def grouping(c, binary, fixtures):
    rel = "rules/expert-count-layers.gguf"
    path = os.path.join(fixtures, rel)
    for cmd in ("inspect", "check"):
        code, doc, err = report(binary, [cmd, path])
        fs = [f for i in doc.get("inputs", []) for f in i["findings"]
              if f["code"] == "QA2106"]
        c.check(len(fs) == 1 and GROUPED in fs[0]["message"] and
                fs[0].get("tensor") == "blk.0.ffn_up_exps.weight",
                f"{cmd} --format json: QA2106 {fs}, expected one finding "
                f"with {GROUPED}")
        c.check(code == 1, f"{cmd}: exit {code}, expected 1 (error)")
        code, out, err = run(binary, [cmd, path])
        c.check(out.count("QA2106") == 1 and
                GROUPED in " ".join(out.split()),
                f"{cmd} text: QA2106 {out.count('QA2106')} times, "
                f"grouped text missing")
    code, out, err = run(binary, ["check", "--format", "sarif", path])
    results = [r for run_ in json.loads(out)["runs"]
               for r in run_.get("results", []) if r["ruleId"] == "QA2106"]
    c.check(len(results) == 1 and GROUPED in results[0]["message"]["text"],
            f"sarif: QA2106 results {results}")
    code, out, err = run(binary, ["check", "--format", "junit", path])
    cases = [tc for tc in ET.fromstring(out).iter("testcase")
             if tc.get("name", "").startswith("QA2106 ")]
    fails = [f for tc in cases for f in tc.findall("failure")]
    c.check(len(cases) == 1 and len(fails) == 1 and
            GROUPED in (fails[0].text or "") and
            (fails[0].text or "").count("QA2106") == 1,
            f"junit: {len(cases)} QA2106 test cases, "
            f"{len(fails)} failures: "
            f"{[(f.text or '')[:200] for f in fails]}")
    code, out, err = run(binary, ["check", "--format", "markdown", path])
    rows = [ln for ln in out.splitlines() if "| QA2106 |" in ln]
    c.check(len(rows) == 1 and GROUPED in rows[0],
            f"markdown: QA2106 rows {rows}")


def main():
    binary = sys.argv[1]
    fixtures = env_path("QA_FIXTURES")
    c = Checker()
    rels = []
    for pattern in ("fit/*.gguf", "hub/*", "mtp/*", "sample/*"):
        found = sorted(glob.glob(os.path.join(fixtures, pattern)))
        c.check(found, f"no fixture matches {pattern}")
        rels += [os.path.relpath(p, fixtures) for p in found]
    for rel in rels:
        agree(c, binary, os.path.join(fixtures, rel), rel)
    grouping(c, binary, fixtures)
    c.finish()


main()
