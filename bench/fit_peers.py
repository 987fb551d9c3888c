#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fit beside gguf-parser-go on llama.cpp's own numbers (issue 27).

For every llama.cpp run kept in tests/data/llamacpp-runs that prints its
memory breakdown (`llama-fit-params -fitp on`, CPU backend, the real-shape
fit fixtures), three totals of the memory the model needs, in MiB:

  llama.cpp    the breakdown's model + context + compute (what it allocates)
  quantaudit   `fit --calibrate LOG MODEL`: weights + KV + recurrent + compute
  gguf-parser  gguf-parser-go's estimate for the same settings, as its
               users read it: every layer offloaded (its default), the
               host RAM and every device's VRAM ("nonuma") added up

and each one's error against llama.cpp's. Writes a Markdown table (one row
per run and a summary) to stdout; docs/fit.md keeps the one of the last
run with the date, commit and gguf-parser version.

    bench/fit_peers.py BUILD_DIR GGUF_PARSER [LOG_DIR] [> table.md]

LOG_DIR defaults to tests/data/llamacpp-runs (CPU backend); give the CUDA
runs' folder to compare on GPU logs.

GGUF_PARSER: a gguf-parser binary (bench/peers/gguf-parser.sh builds it
from github.com/gpustack/gguf-parser-go with Go modules from the proxy).
"""
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, "tests", "data", "llamacpp-runs")
MIB = 1 << 20


def settings(log):
    with open(log) as f:
        first = f.readline()
    m = re.match(r"# cmd: (\S+) (.*)", first)
    argv = m.group(2).split()
    opt = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("-") and i + 1 < len(argv) and \
                not argv[i + 1].startswith("-"):
            opt[a] = argv[i + 1]
            i += 2
        else:
            opt[a] = True
            i += 1
    return m.group(1), opt


def breakdown(log):
    """model + context + compute of the Host row of the breakdown."""
    with open(log) as f:
        for ln in f:
            if "common_memory_breakdown_print: |   - Host" in ln:
                nums = [int(x) for x in re.findall(r"\d+", ln.split("|")[2])]
                # "self = model + context + compute"
                return nums[0], nums[1:4]
    return None, None


def ours(qa, log, model):
    p = subprocess.run([qa, "fit", "--calibrate", log, model],
                       capture_output=True, text=True, timeout=60)
    total = 0.0
    for ln in p.stdout.splitlines():
        m = re.match(r"\s+(KV cache \(all\)|recurrent state|compute \S+|"
                     r"weights \S+)\s+([\d.]+)", ln)
        if m:
            total += float(m.group(2))
    return total if total else None


def theirs(gp, opt, model):
    fa = opt.get("-fa", "off") == "on"
    args = [gp, "--path", model, "--json", "--estimate", "--skip-tokenizer",
            "--ctx-size", opt["-c"],
            "--parallel-size", opt.get("-np", "1"),
            "--ubatch-size", opt.get("-ub", "512"),
            "--cache-type-k", opt.get("-ctk", "f16"),
            "--cache-type-v", opt.get("-ctv", "f16")]
    if fa:
        args.append("--flash-attention")
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    try:
        item = json.loads(p.stdout)["estimate"]["items"][0]
    except (ValueError, KeyError, IndexError):
        return None
    return (item["ram"]["nonuma"] +
            sum(v["nonuma"] for v in item["vrams"])) / MIB


def pct(x, ref):
    return None if x is None else 100.0 * (x - ref) / ref


def main():
    global LOGS
    build, gp = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        LOGS = sys.argv[3]
    qa = os.path.join(build, "quantaudit")
    fixtures = os.path.join(build, "fixtures", "out", "fit")
    rows = []
    for name in sorted(os.listdir(LOGS)):
        if not name.endswith(".log"):
            continue
        log = os.path.join(LOGS, name)
        prog, opt = settings(log)
        self_mib, parts = breakdown(log)
        if self_mib is None:
            continue
        model = os.path.join(fixtures, os.path.basename(opt["-m"]))
        if not os.path.exists(model):
            continue
        ref = float(sum(parts))
        q = ours(qa, log, model)
        g = theirs(gp, opt, model)
        rows.append((name[:-4], ref, q, pct(q, ref), g, pct(g, ref)))
    print("| run | llama.cpp MiB | quantaudit MiB | error | gguf-parser "
          "MiB | error |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        def f(v, d=0):
            return "—" if v is None else f"{v:.{d}f}"

        print(f"| {r[0]} | {r[1]:.0f} | {f(r[2])} | {f(r[3], 1)} % | "
              f"{f(r[4])} | {f(r[5], 1)} % |")
    print()
    for label, k in (("quantaudit", 3), ("gguf-parser", 5)):
        errs = [abs(r[k]) for r in rows if r[k] is not None]
        if not errs:
            continue
        within = sum(1 for e in errs if e <= 5.0)
        print(f"- {label}: {len(errs)} runs; median |error| "
              f"{statistics.median(errs):.1f} %, worst {max(errs):.1f} %; "
              f"within 5 %: {within} of {len(errs)}")


if __name__ == "__main__":
    main()
