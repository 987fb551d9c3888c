#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# quantaudit benchmarks against @huggingface/gguf and @huggingface/hub, with
# a tensor-by-tensor cross-check of their output. For the side-by-side
# comparison with gguf-tools, llama.cpp's reader and a Python safetensors
# reader on every workload, run bench/compare.sh instead.
# See docs/performance.md for what is measured and the latest results.
#
#   bench/run.sh [QUANTAUDIT [CORPUS]]
#
#   QUANTAUDIT  quantaudit binary (default /tmp/build-bench/quantaudit, built
#               with `meson setup /tmp/build-bench --buildtype=release`); the
#               generated fixtures are taken from its build directory
#               (`fixtures/out` next to the binary)
#   CORPUS      the real-file corpus (default ../shared/corpus beside the
#               checkout)
#
# Environment: OUT (results folder, default /tmp/quantaudit-bench), BATCH
# (files per quantaudit batch run, default 100), PEER_ITER (in-process parses
# per peer run, default 20), QUICK=1 (fewer hyperfine runs, for a
# smoke test), NO_CALLGRIND=1.
#
# Needs hyperfine, strace and GNU time (/usr/bin/time); valgrind for the
# callgrind baseline; node + npm for the peers (`npm ci` is run in bench/ when
# node_modules is missing). Installs nothing else. Peers that are absent are
# skipped. Exit status 1 if a correctness cross-check found a mismatch.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
QA=${1:-/tmp/build-bench/quantaudit}
CORPUS=${2:-$repo/../shared/corpus}
OUT=${OUT:-/tmp/quantaudit-bench}
BATCH=${BATCH:-100}
PEER_ITER=${PEER_ITER:-20}
FIX=$(cd "$(dirname "$QA")" && pwd)/fixtures/out

[ -x "$QA" ] || { echo "run.sh: $QA is not an executable quantaudit" >&2; exit 2; }
for tool in hyperfine strace /usr/bin/time python3; do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 2; }
done
QA=$(cd "$(dirname "$QA")" && pwd)/$(basename "$QA")
mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.hf.json "$OUT"/callgrind.* "$OUT"/*.md "$OUT"/*.rss "$OUT"/*.bytes "$OUT"/*.check "$OUT"/*.inproc "$OUT"/mismatches.txt

if [ -n "${QUICK:-}" ]; then HF_OPTS=(--warmup 3 --runs 10); else HF_OPTS=(--warmup 3 --min-runs 30); fi

# --- environment -----------------------------------------------------------
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host: $(uname -srm)"
	echo "os: $(. /etc/os-release && echo "$PRETTY_NAME") (debian_version $(cat /etc/debian_version 2>/dev/null || echo ?))"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "nproc: $(nproc)"
	echo "loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "mem: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "quantaudit: $("$QA" --version) ($QA)"
	echo "source: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo ?)$(git -C "$repo" diff --quiet HEAD -- src formats 2>/dev/null || echo ' + uncommitted changes in src/ or formats/') (binary built $(date -u -r "$QA" +%Y-%m-%dT%H:%M:%SZ))"
	echo "batch: quantaudit N=$BATCH paths per run; peers $PEER_ITER in-process parses per run"
	echo "hyperfine: $(hyperfine --version)"
	echo "valgrind: $(valgrind --version 2>/dev/null || echo absent)"
	echo "node: $(node --version 2>/dev/null || echo absent)"
} >"$OUT/env.txt"

# --- peers -----------------------------------------------------------------
have_node=0
if command -v node >/dev/null && command -v npm >/dev/null; then
	if [ ! -d "$here/node_modules/@huggingface/gguf" ]; then
		(cd "$here" && npm ci --no-audit --no-fund) || echo "run.sh: npm ci failed; peers skipped" >&2
	fi
	[ -d "$here/node_modules/@huggingface/gguf" ] && have_node=1
fi
if [ "$have_node" = 1 ]; then
	for p in gguf hub; do
		echo "@huggingface/$p: $(node -p "require('$here/node_modules/@huggingface/$p/package.json').version")" >>"$OUT/env.txt"
	done
else
	echo "run.sh: node/npm or @huggingface packages absent: peers skipped" >&2
	echo "peers: absent" >>"$OUT/env.txt"
fi
cat "$OUT/env.txt"

# --- start-up baseline: process start, no input ----------------------------
base=(-n "quantaudit --version" "$QA --version")
if [ "$have_node" = 1 ]; then
	base+=(-n "node -e 0" "node -e 0"
		-n "hf-gguf.mjs --import-only" "node $here/hf-gguf.mjs --import-only"
		-n "hf-safetensors.mjs --import-only" "node $here/hf-safetensors.mjs --import-only")
fi
hyperfine -N "${HF_OPTS[@]}" --export-json "$OUT/startup.base.json" "${base[@]}"

# --- inputs: name | path | peer script -------------------------------------
INPUTS=(
	"vocab-gpt-2|$CORPUS/gguf-vocab/ggml-vocab-gpt-2.gguf|hf-gguf.mjs"
	"vocab-deepseek-llm|$CORPUS/gguf-vocab/ggml-vocab-deepseek-llm.gguf|hf-gguf.mjs"
	"qwen3_moe-q8_0|$CORPUS/gguf/qwen3_moe-q8_0.gguf|hf-gguf.mjs"
	"tiny-llama-Q4_K_M|$CORPUS/tiny-llama/tiny-llama-Q4_K_M.gguf|hf-gguf.mjs"
	"sample-1b-Q4_K_M|$FIX/sample/sample-llama-3.2-1b-Q4_K_M.gguf|hf-gguf.mjs"
	"sparse-20g.gguf|$FIX/gguf/sparse-20g.gguf|hf-gguf.mjs"
	"sparse-20g.safetensors|$FIX/st/sparse-20g.safetensors|hf-safetensors.mjs"
	"hf-qwen3_moe|$CORPUS/hf/qwen3_moe|hf-safetensors.mjs"
	"hf-deepseek_v3_mtp|$CORPUS/hf/deepseek_v3_mtp|hf-safetensors.mjs"
)

# Bytes read from the input (file, or files under the folder) and from any
# file, summed over read/pread64/readv/preadv/preadv2 return values in an
# `strace -f -y` log (-y prints the path behind each descriptor).
bytes_read() { # PATH CMD...
	local path=$1 log
	shift
	log=$(mktemp)
	strace -f -y -e trace=read,pread64,readv,preadv,preadv2 -o "$log" "$@" >/dev/null 2>&1 || true
	python3 - "$log" "$path" <<'EOF'
import re, sys
log, path = sys.argv[1], sys.argv[2]
inp = tot = calls = 0
pat = re.compile(r'^\d+\s+(?:read|pread64|readv|preadv2?)\((\d+)<([^>]*)>.*\)\s+=\s+(\d+)')
for line in open(log, errors="replace"):
    m = pat.match(line)
    if not m:
        continue
    n = int(m.group(3))
    tot += n
    if m.group(2) == path or m.group(2).startswith(path.rstrip("/") + "/"):
        inp += n
        calls += 1
print(inp, calls, tot)
EOF
	rm -f "$log"
}

max_rss() { # CMD...  -> median of 5 max-RSS samples, KiB
	local i f
	f=$(mktemp)
	for i in 1 2 3 4 5; do
		/usr/bin/time -f %M -o "$f" -a "$@" >/dev/null 2>&1 || true
	done
	sort -n "$f" | sed -n 3p
	rm -f "$f"
}

mismatch=0
for entry in "${INPUTS[@]}"; do
	IFS='|' read -r name path peer <<<"$entry"
	if [ ! -e "$path" ]; then
		echo "== $name: $path absent, skipped"
		continue
	fi
	path=$(realpath "$path")
	echo "== $name ($path)"
	cmds=(-n "quantaudit --summary" "$QA --format json --summary $path"
		-n "quantaudit" "$QA --format json $path")
	if [ "$have_node" = 1 ]; then
		cmds+=(-n "$peer" "node $here/$peer $path")
	fi
	hyperfine -N "${HF_OPTS[@]}" --export-json "$OUT/$name.hf.json" \
		--export-markdown "$OUT/$name.md" "${cmds[@]}"

	# max RSS and bytes read, per tool
	echo "$(max_rss "$QA" --format json --summary "$path") $(bytes_read "$path" "$QA" --format json --summary "$path")" >"$OUT/$name.qa-summary.rss"
	echo "$(max_rss "$QA" --format json "$path") $(bytes_read "$path" "$QA" --format json "$path")" >"$OUT/$name.qa-full.rss"

	# per-file cost without process start-up: quantaudit over a batch of the
	# same path BATCH times, the peer timing BATCH parses in-process
	batch=()
	for _ in $(seq "$BATCH"); do batch+=("$path"); done
	hyperfine -N --warmup 2 --runs 10 --export-json "$OUT/$name.batch.hf.json" \
		-n "quantaudit --summary x$BATCH" "$QA --format json --summary ${batch[*]}" >/dev/null

	if [ "$have_node" = 1 ]; then
		echo "$(max_rss node "$here/$peer" "$path") $(bytes_read "$path" node "$here/$peer" "$path")" >"$OUT/$name.peer.rss"
		for _ in 1 2 3; do
			node "$here/$peer" --iterations "$PEER_ITER" "$path" | python3 -c 'import json,sys; print(json.load(sys.stdin)["inprocess_ms_per_parse"])'
		done >"$OUT/$name.inproc"

		# correctness cross-check against quantaudit's full JSON report
		"$QA" --format json "$path" >"$OUT/$name.qa.json" || true
		if node "$here/$peer" --check "$OUT/$name.qa.json" "$path" >"$OUT/$name.check"; then
			echo "   cross-check: ok"
		else
			echo "   cross-check: MISMATCH (see $OUT/$name.check)"
			echo "$name: $(cat "$OUT/$name.check")" >>"$OUT/mismatches.txt"
			mismatch=1
		fi
	fi
done

# --- callgrind baseline on the 128k-vocab sample ---------------------------
sample=$FIX/sample/sample-llama-3.2-1b-Q4_K_M.gguf
if [ -z "${NO_CALLGRIND:-}" ] && command -v valgrind >/dev/null && [ -e "$sample" ]; then
	for mode in summary full; do
		args=(--format json)
		[ "$mode" = summary ] && args+=(--summary)
		valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.sample.$mode.out" \
			"$QA" "${args[@]}" "$sample" >/dev/null 2>"$OUT/callgrind.sample.$mode.log"
		callgrind_annotate "$OUT/callgrind.sample.$mode.out" 2>/dev/null | head -40 >"$OUT/callgrind.sample.$mode.txt"
		echo "callgrind $mode: $(awk '/^summary:/ {print $2}' "$OUT/callgrind.sample.$mode.out") instructions"
	done
	valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.version.out" "$QA" --version >/dev/null 2>&1
	echo "callgrind --version: $(awk '/^summary:/ {print $2}' "$OUT/callgrind.version.out") instructions"
fi

echo "loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/env.txt"
python3 "$here/summarize.py" "$OUT" | tee "$OUT/results.md"
if [ "$mismatch" = 1 ]; then
	echo "run.sh: cross-check mismatches:" >&2
	cat "$OUT/mismatches.txt" >&2
	exit 1
fi
