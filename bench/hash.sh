#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `quantaudit hash` against xxh128sum (Debian xxhash) and sha256sum on the
# same page-cached file, in one hyperfine run: single-thread XXH3-128
# throughput (the issue 13 goal: at least 90 % of xxh128sum), the scaling
# with --jobs, and --sha256. Results: docs/performance.md "Hashing".
#
#   bench/hash.sh [QUANTAUDIT]
#
#   QUANTAUDIT  a quantaudit binary; default: a release build made here in
#               $BUILD (default /tmp/build-bench), rebuilt with ninja
#
# Environment:
#   OUT=DIR     the input and the results (default /tmp/quantaudit-hash);
#               the table is OUT/results.md
#   SIZE_MIB=N  size of the model (default 2048): one safetensors file of
#               eight U8 tensors of random bytes (not a sparse file: holes
#               would hash zero pages)
#   RUNS=N      hyperfine runs per command (default 10)
#
# Installs (as root, with apt-get) what is missing of: hyperfine, xxhash.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
OUT=${OUT:-/tmp/quantaudit-hash}
BUILD=${BUILD:-/tmp/build-bench}
SIZE_MIB=${SIZE_MIB:-2048}
RUNS=${RUNS:-10}
mkdir -p "$OUT"

need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v xxh128sum >/dev/null || need+=(xxhash)
if [ ${#need[@]} -gt 0 ]; then
	echo "hash.sh: installing ${need[*]}" >&2
	apt-get install -y --no-install-recommends "${need[@]}" >/dev/null ||
		{ apt-get update >/dev/null && apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; }
fi

if [ $# -ge 1 ]; then
	qa=$1
else
	[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" "$repo" --buildtype=release >/dev/null
	ninja -C "$BUILD" quantaudit >/dev/null
	qa=$BUILD/quantaudit
fi

model=$OUT/random-${SIZE_MIB}m.safetensors
if [ ! -f "$model" ]; then
	python3 - "$model" "$SIZE_MIB" <<'PY'
import json, os, struct, sys
path, mib = sys.argv[1], int(sys.argv[2])
n = 8
each = mib * 1024 * 1024 // n
header = {f"layers.{i}.weight": {"dtype": "U8", "shape": [each],
          "data_offsets": [i * each, (i + 1) * each]} for i in range(n)}
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    for i in range(n):
        f.write(os.urandom(each))
PY
fi
# page-cached: every command reads the same cached bytes
cat "$model" >/dev/null

cpus=$(nproc)
cmds=(-n "xxh128sum" "xxh128sum $model"
      -n "quantaudit hash --jobs 1" "$qa hash -q --jobs 1 $model -o /dev/null")
[ "$cpus" -ge 2 ] && cmds+=(-n "quantaudit hash --jobs $cpus" "$qa hash -q --jobs $cpus $model -o /dev/null")
cmds+=(-n "sha256sum" "sha256sum $model"
       -n "quantaudit hash --sha256 --jobs 1" "$qa hash -q --sha256 --jobs 1 $model -o /dev/null")

hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$OUT/hyperfine.json" "${cmds[@]}" >"$OUT/hyperfine.txt"

# Cold cache (as root, where the page cache can be dropped): the same
# file read from the disk, against dd's sequential read of it.
cold=""
if [ -w /proc/sys/vm/drop_caches ]; then
	cold=$OUT/cold.json
	hyperfine --runs 3 --prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' \
		--export-json "$cold" \
		-n "dd bs=4M (sequential read)" "dd if=$model of=/dev/null bs=4M" \
		-n "xxh128sum" "xxh128sum $model" \
		-n "quantaudit hash --jobs 1" "$qa hash -q --jobs 1 $model -o /dev/null" \
		-n "quantaudit hash --jobs $cpus" "$qa hash -q --jobs $cpus $model -o /dev/null" \
		>"$OUT/cold.txt"
	cat "$model" >/dev/null
fi

python3 - "$OUT/hyperfine.json" "$model" "$OUT/results.md" "$qa" "$cold" <<'PY'
import json, os, platform, subprocess, sys
res = json.load(open(sys.argv[1]))["results"]
size = os.path.getsize(sys.argv[2])
by = {r["command"]: r for r in res}
base = by["xxh128sum"]["mean"]
lines = [f"{size / 2**30:.2f} GiB page-cached safetensors file, {len(res[0]['times'])} runs each "
         f"(hyperfine -N, wall time; `{os.path.basename(sys.argv[4])}` "
         f"{subprocess.run([sys.argv[4], '--version'], capture_output=True, text=True).stdout.strip()}):",
         "",
         "| command | wall s (mean ± sd) | GB/s | CPU s (user+sys) | ÷ xxh128sum wall |",
         "|---|---:|---:|---:|---:|"]
for r in res:
    lines.append(f"| {r['command']} | {r['mean']:.3f} ± {r['stddev']:.3f} | "
                 f"{size / r['mean'] / 1e9:.2f} | {r['user'] + r['system']:.3f} | "
                 f"{base / r['mean']:.2f}× |")
if len(sys.argv) > 5 and sys.argv[5]:
    cold = json.load(open(sys.argv[5]))["results"]
    dd = cold[0]["mean"]
    lines += ["", "Cold cache (page cache dropped before each run, 3 runs):", "",
              "| command | wall s (mean ± sd) | GB/s | ÷ dd wall |", "|---|---:|---:|---:|"]
    for r in cold:
        lines.append(f"| {r['command']} | {r['mean']:.3f} ± {r['stddev']:.3f} | "
                     f"{size / r['mean'] / 1e9:.2f} | {dd / r['mean']:.2f}× |")
cpu = open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": \t")
lines += ["", f"Machine: {cpu}, {os.cpu_count()} CPUs, kernel {platform.release()}; "
          f"load average at the end {os.getloadavg()[0]:.2f}."]
open(sys.argv[3], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
