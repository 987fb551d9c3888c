#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How quantaudit's work and memory grow with hostile input sizes: the
documented way to regenerate the tables of docs/performance.md "Scaling"
and the bound of docs/security.md "Limits and why".

    bench/scaling.py [--only memory|work] [--memory-sizes MB,MB]
                     [--scale S] [--no-count] BINARY

Use a release build (meson setup -Dbuildtype=release). The shapes are
tests/cli/test_bounds.py's (MEMORY_SHAPES, SCALING_SHAPES), generated in
$OUT (default /tmp/quantaudit-scaling) and removed after each row.

Memory: each memory shape at two sizes (default 1 and 8 MB), run once
under GNU time (/usr/bin/time %M, the run's own peak RSS). The slope
between the two sizes is the shape's bytes of memory per input byte; the
table ends with K (the largest slope, rounded up) and C (the largest
peak RSS - K x N), the measured form of "an input of N bytes uses at most
K x N + C bytes"; the test asserts a documented K and C above them.

Work: each scaling shape at n/8, n and 8n (times --scale), counting the
instructions executed with valgrind's cachegrind (unless --no-count) and
the wall time of a plain run. The growth ratio (I(8n) - I(n)) /
(I(n) - I(n/8)) is 8 for linear work, about 10 for n log n and 64 for
quadratic.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "cli"))
import test_bounds as tb  # noqa: E402


def wall(binary, path):
    start = time.monotonic()
    subprocess.run([binary, "--format", "json", "--summary", path],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=tb.RUN_LIMIT)
    return time.monotonic() - start


def memory(binary, out, sizes):
    base = os.path.join(out, "empty")
    p = tb.one_file("x.gguf", tb.gguf())(base)
    c0 = tb.peak_rss(binary, ["--format", "json", p])
    shutil.rmtree(base)
    print(f"\n### Peak RSS per input byte\n\nEmpty GGUF: "
          f"{c0 / 2**20:.1f} MiB.\n")
    print("| shape | " + " | ".join(f"N at {s} MB | peak RSS" for s in sizes)
          + " | slope (bytes per input byte) |")
    print("|---|" + "---:|---:|" * len(sizes) + "---:|")
    k_max, rows = 0.0, []
    for i, (what, make) in enumerate(tb.MEMORY_SHAPES):
        pts = []
        for s in sizes:
            d = os.path.join(out, f"mem-{i}-{s}")
            path = make(d, int(s * 1_000_000))
            n = tb.input_bytes(path)
            rss = tb.peak_rss(binary, ["--format", "json", path])
            pts.append((n, rss))
            shutil.rmtree(d, ignore_errors=True)
        (n1, r1), (n2, r2) = pts[0], pts[-1]
        slope = (r2 - r1) / (n2 - n1) if n2 != n1 else 0.0
        k_max = max(k_max, slope)
        rows.extend(pts)
        print(f"| {what} | " + " | ".join(
            f"{n:,} | {r / 2**20:.1f} MiB" for n, r in pts) +
            f" | {slope:.1f} |", flush=True)
    k = math.ceil(k_max)
    c = max(r - k * n for n, r in rows)
    print(f"\nMeasured: K = {k} (largest slope {k_max:.1f}), C = "
          f"{c / 2**20:.1f} MiB; tests/cli/test_bounds.py asserts "
          f"K = {tb.PEAK_K}, C = {tb.PEAK_C >> 20} MiB.")


def scaling(binary, out, scale, count):
    print("\n### Work at n/8, n and 8n\n")
    print("| shape | n | instructions n/8 | n | 8n | growth ratio | "
          "time at 8n |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for i, (what, make, n) in enumerate(tb.SCALING_SHAPES):
        n = int(n * scale)
        counts, secs = [], 0.0
        for j, size in enumerate((max(1, n // 8), n, 8 * n)):
            d = os.path.join(out, f"scale-{i}-{j}")
            os.makedirs(d)
            path = make(d, size)
            if count:
                counts.append(tb.instructions(
                    binary, ["--format", "json", "--summary", path], out))
            if j == 2:
                secs = wall(binary, path)
            shutil.rmtree(d, ignore_errors=True)
        if count:
            a, b, c = counts
            # What is not kept is skipped (a vocabulary past 4096
            # tokens): the work barely grows and the ratio means nothing.
            ratio = (f"{(c - b) / max(1, b - a):.1f}" if c > 2 * b else
                     f"flat (8n: {c / b:.1f} x n)")
            cells = f"{a:,} | {b:,} | {c:,}"
        else:
            ratio, cells = "-", "- | - | -"
        print(f"| {what} | {n:,} | {cells} | {ratio} | {secs:.2f} s |",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--memory-sizes", default="1,8",
                    help="input sizes in MB for the memory table")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiplies every scaling shape's n")
    ap.add_argument("--no-count", action="store_true",
                    help="no cachegrind instruction counts")
    ap.add_argument("--only", choices=["memory", "work"],
                    help="one of the two tables")
    ap.add_argument("binary")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    out = os.environ.get("OUT") or tempfile.mkdtemp(
        prefix="quantaudit-scaling-")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    sizes = [float(s) for s in args.memory_sizes.split(",")]
    if args.only != "work":
        memory(binary, out, sizes)
    if args.only != "memory":
        scaling(binary, out, args.scale,
                not args.no_count and tb.have_valgrind())
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
