# SPDX-License-Identifier: MIT
"""Known pickle-scanner bypasses (tests/cli/bypass_corpus.py, each with
the advisory it comes from) must fail `check` with QA1601 (a dangerous
global) as an error; the benign checkpoints torch.save and safetensors
write must pass with no security finding. The same corpus runs beside
picklescan, fickling, modelscan and ModelAudit in bench/scanners.py."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker  # noqa: E402
import bypass_corpus  # noqa: E402

QA = sys.argv[1]
c = Checker()
tmp = tempfile.mkdtemp(prefix="qa-bypass-")
try:
    bad, good = bypass_corpus.write_corpus(tmp)
    for name, p in bad.items():
        r = subprocess.run([QA, "check", "--format", "json", p],
                           capture_output=True, text=True, timeout=60)
        doc = json.loads(r.stdout)
        errs = {f["code"] for i in doc["inputs"]
                for f in i.get("findings", []) if f["severity"] == "error"}
        c.check(r.returncode == 1 and "QA1601" in errs,
                f"bypass {name}: exit {r.returncode}, errors {sorted(errs)}")
    if not good:
        print("torch or safetensors missing: benign cases skipped")
        c.skipped += 1
    for name, p in good.items():
        r = subprocess.run([QA, "check", "--format", "json", p],
                           capture_output=True, text=True, timeout=60)
        doc = json.loads(r.stdout)
        sec = [f["code"] for i in doc["inputs"]
               for f in i.get("findings", []) if f["category"] == "security"]
        c.check(r.returncode == 0 and not sec,
                f"benign {name}: exit {r.returncode}, security {sec}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()
