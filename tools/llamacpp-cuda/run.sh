#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Ground truth for fit's per-device memory on llama.cpp's CUDA backend:
# build llama.cpp with CUDA on the device machine, load the real-shape fit
# fixtures fully offloaded (-ngl 99) over a grid of context, KV type, -fa,
# -np and -ub, and keep per configuration the verbose log (every buffer
# line and llama.cpp's own memory breakdown) plus nvidia-smi's used memory
# before the run and sampled every 100 ms during it; llama-bench gives
# prompt and decode speed at a few depths.
#
#   run.sh DEVRUN_DIR OUT_DIR
#
# DEVRUN_DIR  what travels with the call (tests/data/llamacpp-cuda-runs/
#             README.md says how it is made):
#               llama.cpp.tar.xz   `git archive` of the commit the CPU runs
#                                  used (tests/data/llamacpp-runs/README.md),
#                                  without models/, docs/ and the web UI
#               models/NAME.hdr    the header of add_vocab.py's output for
#                                  each fit fixture (all metadata and tensor
#                                  infos, up to the data offset)
#               models/sizes.tsv   NAME, data offset, file size
#               trim.awk           this folder's trim.awk (what of each
#                                  verbose log is kept)
# OUT_DIR     gets one file, cuda-runs.tar.xz (the device returns at most 8)
#
# The device machine keeps its disk only while it is held (it goes back
# 30 s after a call), and one call may run 10 minutes; a CUDA build takes
# about as long. So every call runs this same script: state lives in
# $QA_CUDA_STATE (default /root/qa-cuda); the build runs detached (setsid)
# so it outlives a call that ends first; configurations already logged are
# skipped; the script stops starting runs $QA_CUDA_DEADLINE seconds
# (default 520) after it began and packs whatever logs exist. Call it again
# at once while the machine is warm to go on.
#
# A model file is the header followed by a sparse hole up to the file's
# size: llama.cpp reads zeros for every weight, which changes no buffer
# size. Zero weights can make kernels faster than real data would, so
# llama-bench also runs on a copy of llama-3.1-8b whose data section is
# filled with random bytes (the "sparse-free real-size stand-in").
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 DEVRUN_DIR OUT_DIR" >&2
	exit 2
fi
DEV=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && OUT=$(cd "$2" && pwd) || exit 2
ST=${QA_CUDA_STATE:-/root/qa-cuda}
DEADLINE=${QA_CUDA_DEADLINE:-520}
JOBS=${QA_CUDA_JOBS:-16}
T0=$(date +%s)
mkdir -p "$ST/logs" "$ST/models" "$ST/raw" || exit 2
LOGS=$ST/logs
BIN=$ST/llama.cpp/build/bin

elapsed() { echo $(($(date +%s) - T0)); }
over() { [ "$(elapsed)" -ge "$DEADLINE" ]; }

pack() {
	cp "$ST"/build.log "$LOGS/build.log" 2>/dev/null
	(cd "$ST" && tar cf - logs | xz -T4 -6 >"$OUT/cuda-runs.tar.xz")
	echo "packed $(ls "$LOGS" | wc -l) files after $(elapsed) s"
}

# --- the machine, once per fresh machine
if [ ! -f "$LOGS/machine.txt" ]; then
	{
		echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		uname -a
		nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,memory.free,compute_cap,clocks.max.sm,clocks.max.mem --format=csv
		nvidia-smi
		nvcc --version
		cmake --version | head -n 1
		gcc --version | head -n 1
		nproc
		free -m
	} >"$LOGS/machine.txt" 2>&1
fi

# --- the build (detached, so that it survives the end of this call)
if [ ! -f "$ST/build.done" ]; then
	if [ ! -f "$ST/build.started" ]; then
		touch "$ST/build.started"
		(cd "$ST" && xz -dc "$DEV/llama.cpp.tar.xz" | tar xf -) || exit 1
		setsid sh -c "
			cd '$ST/llama.cpp' &&
			cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
				-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
				-DGGML_CUDA_FA_ALL_QUANTS=OFF -DGGML_CUDA_NCCL=OFF \
				-DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
				-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
				-DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_UI=OFF \
				-DLLAMA_BUILD_APP=OFF &&
			cmake --build build -j $JOBS --target llama-completion \
				llama-fit-params llama-batched-bench llama-bench &&
			touch '$ST/build.done'
		" >"$ST/build.log" 2>&1 </dev/null &
	fi
fi

# --- the models, while the build runs
while IFS='	' read -r name off size; do
	f=$ST/models/$name.gguf
	[ -f "$f" ] && continue
	cp "$DEV/models/$name.hdr" "$f.tmp" && truncate -s "$size" "$f.tmp" &&
		mv "$f.tmp" "$f"
done <"$DEV/models/sizes.tsv"
# The stand-in: llama-3.1-8b with random bytes in its data section.
RND=$ST/models/llama-3.1-8b-random.gguf
if [ ! -f "$RND" ]; then
	python3 - "$DEV/models/sizes.tsv" "$ST/models" "$RND" <<'PY' || rm -f "$RND"
import os, sys
import numpy as np
rows = {l.split('\t')[0]: l.split() for l in open(sys.argv[1])}
name, off, size = rows['llama-3.1-8b-Q4_K_M']
off, size = int(off), int(size)
src = os.path.join(sys.argv[2], name + '.gguf')
rng = np.random.default_rng(33)
with open(src, 'rb') as i, open(sys.argv[3] + '.tmp', 'wb') as o:
    o.write(i.read(off))
    left = size - off
    while left:
        n = min(left, 256 << 20)
        b = rng.integers(0, 256, n, dtype=np.uint8)
        # f16 block scales with random bits can be Inf/NaN; clear the top
        # exponent bit of every byte pair so no weight is non-finite.
        b[1::2] &= 0x3f
        o.write(b.tobytes())
        left -= n
os.rename(sys.argv[3] + '.tmp', sys.argv[3])
PY
fi

while [ ! -f "$ST/build.done" ]; do
	if over; then
		echo "build not finished after $(elapsed) s; call again"
		tail -n 3 "$ST/build.log"
		pack
		exit 0
	fi
	if ! pgrep -f "cmake --build build" >/dev/null &&
		! pgrep -f "cmake -S . -B build" >/dev/null; then
		sleep 2
		[ -f "$ST/build.done" ] && break
		echo "build failed"
		tail -n 40 "$ST/build.log"
		pack
		exit 1
	fi
	sleep 5
done
[ -f "$LOGS/build-time.txt" ] ||
	echo "build done at $(elapsed) s into the call" >"$LOGS/build-time.txt"

# run-2gpu.sh: the build and the models only.
[ -n "${QA_CUDA_ONLY_BUILD:-}" ] && exit 0

# --- one configuration: llama-completion, real load, 16 tokens decoded
# run NAME MODEL CTX NP FA KV UB
n_runs=0
run() {
	name=$1 model=$2 ctx=$3 np=$4 fa=$5 kv=$6 ub=$7
	log=$LOGS/$name.log
	[ -f "$log" ] && return 0
	over && return 1
	args="-m models/$model.gguf -c $ctx -np $np -fa $fa -ctk $kv -ctv $kv"
	args="$args -ub $ub -ngl 99 -fit off -no-cnv -n 16 -p hello -s 1 --temp 0 -v"
	before=$(nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader,nounits)
	nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader,nounits \
		-lms 100 >"$ST/raw/$name.smi" 2>&1 &
	smi=$!
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	(cd "$ST" && timeout 60 "$BIN/llama-completion" $args \
		>"raw/$name.out" 2>"raw/$name.err" </dev/null)
	rc=$?
	t1=$(date +%s.%N)
	kill "$smi" 2>/dev/null
	wait "$smi" 2>/dev/null
	secs=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
	peak=$(awk -F', *' '$2 ~ /^[0-9]+$/ && $2 > m { m = $2 } END { print m + 0 }' \
		"$ST/raw/$name.smi")
	{
		echo "# cmd: llama-completion $args"
		echo "# nvidia-smi before: used, total MiB = $before"
		echo "# nvidia-smi peak during run: used MiB = $peak"
		echo "# nvidia-smi samples (100 ms): $(awk -F', *' '{ printf "%s ", $2 }' "$ST/raw/$name.smi")"
		awk -f "$DEV/trim.awk" "$ST/raw/$name.err"
		echo "# rc=$rc"
		echo "# runtime: $secs s (llama-completion, CUDA backend, -ngl 99)"
	} >"$log"
	n_runs=$((n_runs + 1))
	echo "$name: rc=$rc ${secs}s peak=${peak} MiB"
}

# grid MODEL SHORT: the core grid
grid() {
	m=$1 s=$2
	for ctx in 4096 32768; do
		for np in 1 4; do
			run "$s-c$ctx-np$np-faon-kvf16-ub512" "$m" $ctx $np on f16 512 || return 1
			run "$s-c$ctx-np$np-faon-kvq8_0-ub512" "$m" $ctx $np on q8_0 512 || return 1
			run "$s-c$ctx-np$np-faoff-kvf16-ub512" "$m" $ctx $np off f16 512 || return 1
		done
	done
	run "$s-c32768-np1-faon-kvf16-ub2048" "$m" 32768 1 on f16 2048 || return 1
	run "$s-c32768-np1-faoff-kvf16-ub2048" "$m" 32768 1 off f16 2048 || return 1
}
# small MODEL SHORT: the one-sequence grid
small() {
	m=$1 s=$2
	for ctx in 4096 32768; do
		run "$s-c$ctx-np1-faon-kvf16-ub512" "$m" $ctx 1 on f16 512 || return 1
		run "$s-c$ctx-np1-faon-kvq8_0-ub512" "$m" $ctx 1 on q8_0 512 || return 1
		run "$s-c$ctx-np1-faoff-kvf16-ub512" "$m" $ctx 1 off f16 512 || return 1
	done
}

bench() {
	name=$1 model=$2
	log=$LOGS/bench-$name.log
	[ -f "$log" ] && return 0
	over && return 1
	args="-m models/$model.gguf -ngl 99 -fa 1 -p 512 -n 64 -d 0,4096,16384 -r 3 -o md"
	(cd "$ST" && timeout 60 "$BIN/llama-bench" $args >"raw/bench-$name.out" \
		2>"raw/bench-$name.err" </dev/null)
	rc=$?
	{
		echo "# cmd: llama-bench $args"
		cat "$ST/raw/bench-$name.out"
		grep -a -v -E 'llama_model_loader: - (kv|tensor)' "$ST/raw/bench-$name.err" | tail -n 20
		echo "# rc=$rc"
	} >"$log"
	echo "bench $name: rc=$rc"
	cat "$ST/raw/bench-$name.out"
}

{
	grid llama-3.1-8b-Q4_K_M llama-3.1-8b &&
	bench llama-3.1-8b-random llama-3.1-8b-random &&
	bench llama-3.1-8b-zeros llama-3.1-8b-Q4_K_M &&
	grid gemma-3-12b-Q4_K_M gemma-3-12b &&
	grid qwen3-30b-a3b-Q4_K_M qwen3-30b-a3b &&
	grid deepseek-v2-lite-Q4_K_M deepseek-v2-lite &&
	small nemotron-nano-9b-v2-Q4_K_M nemotron-nano-9b-v2 &&
	small lfm2-1.2b-Q4_K_M lfm2-1.2b &&
	small qwen3.6-27b-like-mtp-Q4_K_M qwen3.6-27b-like-mtp &&
	bench qwen3-30b-a3b-zeros qwen3-30b-a3b-Q4_K_M &&
	echo "ALL DONE"
} || echo "stopped at the deadline; call again"
echo "$n_runs runs this call"
pack
