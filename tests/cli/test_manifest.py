# SPDX-License-Identifier: MIT
"""Runs quantaudit on every generated fixture listed in the fixture
manifest and checks the exit code and the finding codes each fixture
declares it must produce (fixtures/gen/*.c)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run_json  # noqa: E402


def main():
    binary = sys.argv[1]
    fixtures = env_path("QA_FIXTURES")
    c = Checker()
    with open(os.path.join(fixtures, "manifest.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f
                if line.strip() and not line.startswith("#")]
    c.check(len(rows) > 0, "manifest lists fixtures")
    for rel, exit_code, codes, match, desc in rows:
        path = os.path.join(fixtures, rel)
        code, doc, err = run_json(binary, ["--summary", path])
        want = [] if codes == "-" else codes.split(",")
        got = sorted({f["code"] for i in doc.get("inputs", [])
                      for f in i.get("findings", [])})
        c.check(code == int(exit_code),
                f"{rel}: exit {code}, expected {exit_code} ({desc}) "
                f"findings={got} stderr={err.strip()[:200]}")
        if match == "exact":
            c.check(got == sorted(want),
                    f"{rel}: findings {got}, expected exactly {want} ({desc})")
        else:
            missing = [w for w in want if w not in got]
            c.check(not missing,
                    f"{rel}: missing {missing}, got {got} ({desc})")
        if int(exit_code) in (0, 1):
            c.check(len(doc.get("inputs", [])) == 1,
                    f"{rel}: one input in the report")
    c.finish()


main()
