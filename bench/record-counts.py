#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Record the instruction counts the test instr-counts (suite perf) guards.

    bench/record-counts.py [--markdown] BUILD_DIR...

For each meson build folder (e.g. `build`, made by `meson setup build`:
buildtype debug, the configuration CI tests), runs every case of
bench/instr_counts.py under valgrind's cachegrind and stores the counts in
tests/data/instr-counts.json under the build's key (e.g. gcc-12/debug),
replacing what was there for that key. Commit the file with the change
that moved the counts. --markdown also prints the table for
docs/performance.md. Needs valgrind; refuses sanitized builds (their counts
measure the sanitizer).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import instr_counts as ic  # noqa: E402


def main(argv):
    md = "--markdown" in argv
    dirs = [a for a in argv if a != "--markdown"]
    if not dirs:
        sys.exit(__doc__)
    for d in dirs:
        key, opts = ic.build_key(d)
        if ic.sanitized(opts):
            sys.exit(f"{d}: built with b_sanitize={opts['b_sanitize']}: not recorded")
        binary = os.path.join(d, "quantaudit")
        print(f"{d} ({key}):")
        key, got = ic.record(binary, d)
        print(f"recorded in {os.path.relpath(ic.COUNTS)} under {key}")
        if md:
            print(f"\n| case | what | instructions ({key}) |\n|---|---|---:|")
            for name, n in got.items():
                print(f"| `{name}` | {ic.CASES[name][0]} | {n:,} |")


if __name__ == "__main__":
    main(sys.argv[1:])
