#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Issue 34: llama.cpp's layer and row split on two GPUs of one host, the
# two-device counterpart of run.sh (same DEVRUN_DIR, same state folder,
# same trim; written and parse-checked, not yet run: no kind with two GPUs
# was lent when it was written).
#
#   run-2gpu.sh DEVRUN_DIR OUT_DIR
#
# Builds llama.cpp exactly as run.sh does (it calls run.sh with
# QA_CUDA_ONLY_BUILD=1, so one build serves both), then, with -ngl 99 on
# both devices, runs llama-completion over
#   -sm layer with -ts 1,1 / 3,1 / 1,3 (the split by layer fractions,
#       llama-model.cpp: each device gets whole layers, the output layer
#       the last device),
#   -sm row with -ts 1,1 (ggml-cuda split buffer type: matrices split by
#       rows over both devices, the KV and compute buffers on the main one),
#   contexts 4096 and 32768, KV f16 and q8_0 (flash attention on), FA off
#       with f16,
# and records every per-device buffer line, llama.cpp's memory breakdown
# (one row per CUDA device) and nvidia-smi's used memory of each device
# (before and peak, sampled every 100 ms). Log names:
#   2gpu-<model>-sm<layer|row>-ts<a>_<b>-c<ctx>-fa<on|off>-kv<type>.log
#
# vLLM -tp 2 is not here: vLLM and its CUDA wheels (vllm, xformers or
# flashinfer, their torch pin) are several hundred MiB, over the 64 MiB a
# call carries, and the device machine reaches no registry. What would be
# needed: a vLLM wheel matching the device's torch 2.11 + CUDA 13, carried
# in parts over several calls of one warm lease, or an image with vLLM.
#
# NVLink multicast stays off (the device machines' rule): NCCL is not
# built in (-DGGML_CUDA_NCCL=OFF) and NCCL_NVLS_ENABLE=0 is exported anyway.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 DEVRUN_DIR OUT_DIR" >&2
	exit 2
fi
DEV=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && OUT=$(cd "$2" && pwd) || exit 2
ST=${QA_CUDA_STATE:-/root/qa-cuda}
DEADLINE=${QA_CUDA_DEADLINE:-520}
T0=$(date +%s)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
BIN=$ST/llama.cpp/build/bin
LOGS=$ST/logs2gpu

n_gpu=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
if [ "$n_gpu" -lt 2 ]; then
	echo "$0: $n_gpu GPU(s); this needs two" >&2
	exit 2
fi
# The build and the models: run.sh's first part.
QA_CUDA_ONLY_BUILD=1 QA_CUDA_DEADLINE=$DEADLINE sh "$DEV/run.sh" "$DEV" "$OUT" ||
	exit 1
[ -f "$ST/build.done" ] || { echo "build not finished; call again"; exit 0; }
mkdir -p "$LOGS" "$ST/raw"
nvidia-smi topo -m >"$LOGS/topology.txt" 2>&1
nvidia-smi >"$LOGS/machine.txt" 2>&1

over() { [ $(($(date +%s) - T0)) -ge "$DEADLINE" ]; }

# run2 MODEL SHORT SM TS CTX FA KV
run2() {
	m=$1 s=$2 sm=$3 ts=$4 ctx=$5 fa=$6 kv=$7
	name="2gpu-$s-sm$sm-ts$(echo "$ts" | tr , _)-c$ctx-fa$fa-kv$kv"
	log=$LOGS/$name.log
	[ -f "$log" ] && return 0
	over && return 1
	args="-m models/$m.gguf -c $ctx -fa $fa -ctk $kv -ctv $kv -ngl 99"
	args="$args -sm $sm -ts $ts -fit off -no-cnv -n 16 -p hello -s 1 --temp 0 -v"
	before=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | tr '\n' ' ')
	nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits \
		-lms 100 >"$ST/raw/$name.smi" 2>&1 &
	smi=$!
	# shellcheck disable=SC2086
	(cd "$ST" && timeout 90 "$BIN/llama-completion" $args \
		>"raw/$name.out" 2>"raw/$name.err" </dev/null)
	rc=$?
	kill "$smi" 2>/dev/null
	wait "$smi" 2>/dev/null
	{
		echo "# cmd: llama-completion $args"
		echo "# nvidia-smi before: used MiB per device = $before"
		for g in 0 1; do
			p=$(awk -F', *' -v g=$g '$1 == g && $2 > m { m = $2 } END { print m + 0 }' \
				"$ST/raw/$name.smi")
			echo "# nvidia-smi peak during run: device $g used MiB = $p"
		done
		awk -f "$DEV/trim.awk" "$ST/raw/$name.err"
		echo "# rc=$rc"
	} >"$log"
	echo "$name: rc=$rc"
}

grid2() {
	m=$1 s=$2
	for ctx in 4096 32768; do
		for ts in 1,1 3,1 1,3; do
			run2 "$m" "$s" layer $ts $ctx on f16 || return 1
			run2 "$m" "$s" layer $ts $ctx on q8_0 || return 1
			run2 "$m" "$s" layer $ts $ctx off f16 || return 1
		done
		run2 "$m" "$s" row 1,1 $ctx on f16 || return 1
		run2 "$m" "$s" row 1,1 $ctx off f16 || return 1
	done
}

{
	grid2 llama-3.1-8b-Q4_K_M llama-3.1-8b &&
	grid2 gemma-3-12b-Q4_K_M gemma-3-12b &&
	grid2 qwen3-30b-a3b-Q4_K_M qwen3-30b-a3b &&
	grid2 deepseek-v2-lite-Q4_K_M deepseek-v2-lite &&
	echo "ALL DONE"
} || echo "stopped at the deadline; call again"
(cd "$ST" && tar cf - logs2gpu | xz -T4 -6 >"$OUT/cuda-2gpu-runs.tar.xz")
