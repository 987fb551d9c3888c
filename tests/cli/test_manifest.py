# SPDX-License-Identifier: MIT
"""Runs quantaudit on every generated fixture listed in the fixture
manifest and checks the exit code and the finding codes each fixture
declares it must produce (fixtures/gen/*.c).

The codes are the exact set: a code reported beyond them fails as surely
as a missing one, so a spurious finding on a clean file is caught. The
manifest's match column is kept for its other readers and must say
"exact" on every row; there is no looser mode."""
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
    for row in rows:
        if not c.check(len(row) == 5, f"manifest row {row}: 5 columns "
                       "(path, exit, codes, match, description)"):
            continue
        rel, exit_code, codes, match, desc = row
        c.check(match == "exact",
                f"{rel}: match column {match!r}, must be 'exact'")
        path = os.path.join(fixtures, rel)
        code, doc, err = run_json(binary, ["--summary", path])
        want = sorted([] if codes == "-" else codes.split(","))
        got = sorted({f["code"] for i in doc.get("inputs", [])
                      for f in i.get("findings", [])})
        c.check(code == int(exit_code),
                f"{rel}: exit {code}, expected {exit_code} ({desc}) "
                f"findings={got} stderr={err.strip()[:200]}")
        c.check(got == want,
                f"{rel}: findings {got}, expected exactly {want} "
                f"(unexpected {[g for g in got if g not in want]}, "
                f"missing {[w for w in want if w not in got]}) ({desc})")
        if int(exit_code) in (0, 1):
            c.check(len(doc.get("inputs", [])) == 1,
                    f"{rel}: one input in the report")
        else:
            # Exit 3 (not recognized): no audit, so no input and no
            # finding at all.
            c.check(not doc.get("inputs"),
                    f"{rel}: no input in the report for exit {exit_code}")
    c.finish()


main()
