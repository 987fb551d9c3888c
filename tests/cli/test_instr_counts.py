#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The instruction-count guard (suite 'perf'): runs the fixed cases of
bench/instr_counts.py under valgrind's cachegrind and fails when one
executes more than 10 % more instructions than tests/data/instr-counts.json
records for this build's configuration (compiler, major version,
buildtype). Instruction counts, unlike wall time, do not depend on the
machine's load.

Skipped (exit 77) without valgrind, in sanitized builds, and when no
counts are recorded for this configuration. After a change that moves the
counts on purpose, re-record: bench/record-counts.py BUILD_DIR.

    test_instr_counts.py QUANTAUDIT [CASE...]
"""
import os
import shutil
import sys

ROOT = os.environ.get("QA_SOURCE_ROOT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import instr_counts as ic  # noqa: E402

SKIP = 77


def main(argv):
    binary = os.path.abspath(argv[1])
    build = os.path.dirname(binary)
    names = argv[2:]
    if shutil.which("valgrind") is None:
        print("SKIP: valgrind is not installed (apt-get install valgrind)")
        return SKIP
    key, opts = ic.build_key(build)
    if ic.sanitized(opts):
        print(f"SKIP: sanitized build (b_sanitize={opts['b_sanitize']}): instruction counts measure the sanitizer")
        return SKIP
    try:
        recorded = ic.load()["builds"].get(key)
    except FileNotFoundError:
        recorded = None
    if not recorded:
        print(f"SKIP: no instruction counts recorded for {key} in tests/data/instr-counts.json "
              f"(record them with bench/record-counts.py {build})")
        return SKIP
    print(f"{key}: recorded {recorded['recorded']}")
    got = ic.measure(binary, build, names or None, log=lambda s: None)
    failed, lower = [], []
    print(f"{'case':<24} {'recorded':>15} {'now':>15} {'change':>8}")
    for name, now in got.items():
        was = recorded["counts"].get(name)
        if was is None:
            print(f"{name:<24} {'-':>15} {now:>15,}   not recorded")
            continue
        change = (now - was) / was
        mark = ""
        if change > ic.THRESHOLD:
            failed.append(name)
            mark = "  FAIL: more than +10 %"
        elif change < -ic.THRESHOLD:
            lower.append(name)
            mark = "  faster: re-record to keep the guard tight"
        print(f"{name:<24} {was:>15,} {now:>15,} {change * 100:>+7.1f}%{mark}")
    if lower:
        print(f"\n{len(lower)} case(s) now run more than 10 % fewer instructions: record the new counts with "
              f"bench/record-counts.py {build} so that the guard holds the gain")
    if failed:
        print(f"\nFAIL: {', '.join(failed)} grew by more than 10 %. If the growth is intended "
              f"(more analysis, not a slowdown), re-record with bench/record-counts.py {build} and say why in the commit")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
