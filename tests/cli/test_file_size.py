# SPDX-License-Identifier: MIT
"""No source file over 2,500 lines (issue 30: "no source file over 2,500
lines"; docs/style.md: a file past about 2,000 lines is two modules cut
at a seam). Counts every C source and header and every Python file git
tracks or would add under src/, formats/, rules/, tests/, fixtures/,
tools/ and bench/.

Usage: test_file_size.py SOURCE_ROOT."""
import glob
import os
import sys

LIMIT = 2500
ROOT = sys.argv[1] if len(sys.argv) > 1 else "."

over = []
n = 0
for d in ("src", "formats", "rules", "tests", "fixtures", "tools", "bench"):
    for ext in ("c", "h", "py"):
        for p in glob.glob(os.path.join(ROOT, d, "**", "*." + ext),
                           recursive=True):
            with open(p, "rb") as f:
                lines = f.read().count(b"\n")
            n += 1
            if lines > LIMIT:
                over.append((lines, os.path.relpath(p, ROOT)))
for lines, p in sorted(over, reverse=True):
    print("FAIL: %s has %d lines (limit %d): cut it at a seam" %
          (p, lines, LIMIT))
print("file-size: %d files, %d over %d lines" % (n, len(over), LIMIT))
sys.exit(1 if over else 0)
