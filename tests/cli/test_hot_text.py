#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The hot-text guard (suite 'perf'): the code an everyday run executes
must lie in the gathered region at the front of .text (build-aux/hot-text.ld,
between the symbols qa_hot_text_start and qa_hot_text_end), so that a
process faults in a few 64 KiB windows of code rather than most of them.

Runs the workloads of bench/hot_order.py under callgrind, maps every
function of ours that executed to its address with nm, and fails when the
functions outside the region touch more than SLACK 64 KiB windows that the
region does not already cover: the list has gone stale, and
bench/hot_order.py regenerates it. A few functions outside are tolerated
so that another gcc version, which inlines differently, does not fail the
build; each is listed.

Skipped (exit 77) without valgrind or nm, in sanitized builds, and when the
build was made without the hot-text link (-Dhot_text=disabled, or a linker
other than GNU ld).

    test_hot_text.py QUANTAUDIT
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("QA_SOURCE_ROOT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import hot_order  # noqa: E402
import instr_counts  # noqa: E402

SKIP = 77
WINDOW = 64 * 1024  # the kernel's default fault_around_bytes
SLACK = 2


def symbols(binary):
    """{name: [(address, size)]} of the binary's function symbols."""
    out = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True,
                         check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            syms.setdefault(parts[3], []).append((int(parts[0], 16), int(parts[1], 16)))
        elif len(parts) == 3 and parts[1] in "tT":
            syms.setdefault(parts[2], []).append((int(parts[0], 16), 0))
    return syms


def windows(addr, size):
    return set(range(addr // WINDOW, (addr + max(size, 1) - 1) // WINDOW + 1))


def main(argv):
    binary = os.path.abspath(argv[1])
    build = os.path.dirname(binary)
    for tool in ("valgrind", "nm"):
        if shutil.which(tool) is None:
            print(f"SKIP: {tool} is not installed")
            return SKIP
    _, opts = instr_counts.build_key(build)
    if instr_counts.sanitized(opts):
        print("SKIP: sanitized build: valgrind cannot run it")
        return SKIP
    syms = symbols(binary)
    if "qa_hot_text_start" not in syms or "qa_hot_text_end" not in syms:
        print("SKIP: built without the hot-text link (-Dhot_text, GNU ld)")
        return SKIP
    start, end = syms["qa_hot_text_start"][0][0], syms["qa_hot_text_end"][0][0]
    region = windows(start, end - start)
    print(f"hot region: {start:#x}-{end:#x}, {(end - start) / 1024:.0f} KiB, {len(region)} windows of 64 KiB")

    ran = set()
    with tempfile.TemporaryDirectory() as tmp:
        for argv_ in hot_order.workloads(tmp):
            ran |= hot_order.executed(binary, argv_)
    ours = sorted(f for f in ran if hot_order.ours(f))
    if len(ours) < 50:
        print(f"FAIL: callgrind named only {len(ours)} functions of the binary; is it stripped?")
        return 1
    outside, extra = [], set()
    for fn in ours:
        places = syms.get(fn, [])
        if not places:
            continue  # a local alias callgrind names differently; nm has no such symbol
        if any(start <= a < end for a, _ in places):
            continue
        a, size = places[0]
        outside.append(f"{fn} ({size} bytes at {a:#x})")
        extra |= windows(a, size) - region
    print(f"{len(ours)} functions ran; {len(outside)} outside the region, touching {len(extra)} more windows")
    for o in outside:
        print("  outside:", o)
    if len(extra) > SLACK:
        print(f"\nFAIL: the code a small inspect runs spreads over {len(extra)} windows beyond the hot region "
              f"(at most {SLACK}): regenerate the list with bench/hot_order.py BUILD RELEASE_BUILD "
              f"(build-aux/hot-text.ld) and commit it")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
