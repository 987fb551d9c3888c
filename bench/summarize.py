#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn the files bench/run.sh leaves in OUT into one Markdown report."""
import json
import os
import re
import statistics
import sys

out = sys.argv[1]


def load(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def ms(s):
    return f"{s * 1000:.2f}"


def kib(n):
    return f"{int(n) / 1024:.1f} MiB"


def nbytes(n):
    n = int(n)
    if n >= 1 << 20:
        return f"{n / (1 << 20):.2f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KiB"
    return f"{n} B"


env = load(os.path.join(out, "env.txt")) or ""
print("## Environment\n\n```\n" + env.strip() + "\n```\n")

names = sorted({f[: -len(".hf.json")] for f in os.listdir(out)
                if f.endswith(".hf.json") and not f.endswith(".batch.hf.json")},
               key=lambda n: os.path.getmtime(os.path.join(out, n + ".hf.json")))

base = load(os.path.join(out, "startup.base.json"))
if base:
    print("## Start-up baseline (no input)\n")
    print("| command | mean ± σ (ms) | min (ms) | user + sys (ms) |")
    print("|---|---:|---:|---:|")
    for r in json.loads(base)["results"]:
        print(f"| {r['command']} | {ms(r['mean'])} ± {ms(r['stddev'] or 0)} | {ms(r['min'])} | "
              f"{ms(r['user'])} + {ms(r['system'])} |")
    print()

rss_key = {"quantaudit --summary": "qa-summary", "quantaudit": "qa-full"}
print("## Wall time, max RSS, bytes read (one process per run)\n")
print("| input | tool | mean ± σ (ms) | min (ms) | user + sys (ms) | runs | max RSS | bytes read from input (calls) | bytes read, all files |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for name in names:
    d = json.loads(load(os.path.join(out, name + ".hf.json")))
    for r in d["results"]:
        cmd = r["command"]
        key = rss_key.get(cmd, "peer")
        rss = (load(os.path.join(out, f"{name}.{key}.rss")) or "").split()
        rss_s = kib(rss[0]) if rss else "?"
        inp = f"{nbytes(rss[1])} ({rss[2]})" if len(rss) > 2 else "?"
        tot = nbytes(rss[3]) if len(rss) > 3 else "?"
        print(f"| {name} | {cmd} | {ms(r['mean'])} ± {ms(r['stddev'] or 0)} | {ms(r['min'])} | "
              f"{ms(r['user'])} + {ms(r['system'])} | {len(r['times'])} | {rss_s} | {inp} | {tot} |")

print("\n## Per-parse time without process start-up\n")
print("quantaudit: mean wall time of one `quantaudit --format json --summary P P … P` "
      "run over the same path N times, divided by N (still includes one start-up, "
      "amortized). Peer: `performance.now()` around N in-process parses + "
      "JSON.stringify of the summary after 3 warm-up parses, median of 3 runs "
      "(N for both in the environment block above).\n")
print("| input | quantaudit per input (ms) | N | quantaudit user+sys per input (ms) | peer in-process per parse (ms) | ratio peer/quantaudit |")
print("|---|---:|---:|---:|---:|---:|")
for name in names:
    b = load(os.path.join(out, name + ".batch.hf.json"))
    if not b:
        continue
    r = json.loads(b)["results"][0]
    n = int(re.search(r"x(\d+)$", r["command"]).group(1))
    qa = r["mean"] / n * 1000
    cpu = (r["user"] + r["system"]) / n * 1000
    inproc = load(os.path.join(out, name + ".inproc"))
    if inproc:
        peer = statistics.median(float(x) for x in inproc.split())
        print(f"| {name} | {qa:.3f} | {n} | {cpu:.3f} | {peer:.3f} | {peer / qa:.1f}× |")
    else:
        print(f"| {name} | {qa:.3f} | {n} | {cpu:.3f} | — | — |")

print("\n## Correctness cross-check (peer vs quantaudit full JSON)\n")
for name in names:
    c = load(os.path.join(out, name + ".check"))
    if c is None:
        continue
    try:
        j = json.loads(c)
    except ValueError:
        print(f"- {name}: peer failed: {c.strip()[:200]}")
        continue
    chk = j.get("check", {})
    ft, lt = j.get("first_tensor"), j.get("last_tensor")
    span = ""
    if ft:
        span = f"; first tensor {ft['name']} @ {ft['offset']}, last {lt['name']} @ {lt['offset']}"
    status = "ok" if chk.get("ok") else "MISMATCH: " + "; ".join(chk.get("mismatches", []))
    print(f"- {name}: {j.get('tensors')} tensors{span} — {status}")

for mode in ("summary", "full"):
    f = load(os.path.join(out, f"callgrind.sample.{mode}.out"))
    if f:
        m = re.search(r"^summary:\s+(\d+)", f, re.M)
        if m:
            if mode == "summary":
                print("\n## callgrind (sample-llama-3.2-1b-Q4_K_M.gguf)\n")
            print(f"- `--format json{' --summary' if mode == 'summary' else ''}`: {int(m.group(1)):,} instructions")

v = load(os.path.join(out, "callgrind.version.out"))
if v:
    m = re.search(r"^summary:\s+(\d+)", v, re.M)
    if m:
        print(f"- `quantaudit --version` (process start-up and exit only): {int(m.group(1)):,} instructions")
