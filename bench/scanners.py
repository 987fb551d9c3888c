#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""quantaudit beside picklescan, fickling, modelscan and ModelAudit on one
corpus (tests/cli/bypass_corpus.py: known bypasses and benign checkpoints).

  python3 -m venv /tmp/scan && /tmp/scan/bin/pip install -r bench/requirements-scanners.txt
  python3 bench/scanners.py build/quantaudit /tmp/scan/bin

A tool "flags" a file when it exits non-zero (each documents a non-zero
exit for a finding or an error). Prints a Markdown table and the wall time
of each tool over the whole corpus, one process per file."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "cli"))
import bypass_corpus  # noqa: E402


# ModelAudit posts telemetry (modelaudit/telemetry.py): on a machine
# without internet each run then waits on its retries, which would be
# counted as scan time. Its documented switch turns that off.
ENV = dict(os.environ, PROMPTFOO_DISABLE_TELEMETRY="1", NO_ANALYTICS="1")


def tools(qa, bindir):
    return {
        "quantaudit": lambda p: [qa, "check", "-q", p],
        "picklescan": lambda p: [os.path.join(bindir, "picklescan"), "-p", p],
        "fickling": lambda p: [os.path.join(bindir, "fickling"), "--check-safety", p],
        "modelscan": lambda p: [os.path.join(bindir, "modelscan"), "-p", p],
        "modelaudit": lambda p: [os.path.join(bindir, "modelaudit"), "scan", p],
    }


def main():
    qa, bindir = sys.argv[1], sys.argv[2]
    out = tempfile.mkdtemp(prefix="qa-scanners-")
    bad, good = bypass_corpus.write_corpus(out)
    files = [(n, p, True) for n, p in bad.items()] + \
            [(n, p, False) for n, p in good.items()]
    t = tools(qa, bindir)
    res = {k: {} for k in t}
    took = {k: 0.0 for k in t}
    for k, cmd in t.items():
        for n, p, _ in files:
            t0 = time.monotonic()
            try:
                r = subprocess.run(cmd(p), capture_output=True, timeout=120,
                                   env=ENV)
                res[k][n] = r.returncode != 0
            except (OSError, subprocess.TimeoutExpired):
                res[k][n] = None
            took[k] += time.monotonic() - t0
    print("| file | kind | " + " | ".join(t) + " |")
    print("|---|---|" + "---|" * len(t))
    for n, _, evil in files:
        cells = []
        for k in t:
            v = res[k][n]
            cells.append("?" if v is None else
                         ("**flagged**" if v else "missed") if evil else
                         ("false positive" if v else "clean"))
        print(f"| {n} | {'bypass' if evil else 'benign'} | " +
              " | ".join(cells) + " |")
    print("| wall time, whole corpus | | " +
          " | ".join(f"{took[k]:.2f} s" for k in t) + " |")


main()
