#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Ground truth for the llama.cpp fit model: run llama.cpp itself (CPU
# backend) on the real-shape fit fixtures over a matrix of settings and
# keep, per configuration, a trimmed verbose log that
# `quantaudit fit --calibrate LOG MODEL` reads.
#
#   run.sh LLAMA_BIN_DIR FIXTURES_DIR OUT_DIR
#
# LLAMA_BIN_DIR  llama.cpp build/bin with llama-fit-params and
#                llama-batched-bench (tests/data/llamacpp-runs/README.md
#                has the commit and the build flags)
# FIXTURES_DIR   build/fixtures/out/fit (the *.gguf of fixtures/gen/gen_fit.c)
# OUT_DIR        where the logs go, one per configuration:
#                <model>-c<ctx>-np<N>[-kvu]-fa<on|off>-kv<type>-ub<ub>.log
#
# The fixtures carry no tokenizer, so each is first copied (header only,
# data left a sparse hole) with a minimal SPM vocabulary by add_vocab.py into
# $QA_LLAMACPP_WORK (default ${TMPDIR:-/tmp}/qa-llamacpp-runs), and the runs
# are made from there so the logged model path is models/<fixture>.gguf.
#
# Programs:
#  * llama-fit-params -fitp on -v: the dry run --fit makes
#    (common/fit.cpp common_fit_print: model loaded with no_alloc and
#    load_mode none, llama_init_from_model with the given cparams), in
#    print mode: no fitting against this machine's host RAM (the fit mode
#    exits 1 after the dry run when a configuration would not fit in it).
#    No weight is read and no token computed, yet the context logs every
#    llama_kv_cache / llama_memory_recurrent size and sched_reserve's
#    compute buffer size exactly as a real run does (the same
#    graph_reserve; checked against llama-completion and
#    llama-batched-bench, README.md). Print mode shows llama.cpp's
#    messages below error level as debug ("D"); errors stay "E", and a
#    context llama.cpp refuses ends in an uncaught exception (rc 134).
#    The model buffer lines read 0.00 MiB in a dry run.
#  * llama-batched-bench -v for -kvu: llama-completion and llama-fit-params
#    do not accept -kvu (common/arg.cpp: server, perplexity, batched,
#    bench, parallel only). batched-bench really loads the model (mmap of
#    the sparse file) and decodes a 16-token warm-up and one
#    -npp 1 -ntg 1 round: n_seq_max is its -npl, so -npl N is given with
#    -np N (which it ignores, but quantaudit reads -np from the command).
# Both get -nr (no CPU_REPACK copy of the weights: it changes no KV or
# compute figure and would copy gigabytes in a real load) and -t 2.
#
# Each log: the "# cmd:" line, the memory-relevant lines of the (first)
# model load, "# rc=N" and "# runtime: S s". OUT_DIR/runtimes.tsv lists
# every run with its exit code and time; OUT_DIR/refused.tsv the models
# llama.cpp would not load at all (no log is kept for those).
#
# glm-4.5-air (72 GB of weights, more than this machine's host RAM) gets a
# smaller matrix of llama-fit-params runs only (see below), and, when a
# llama-server binary is at hand ($QA_LLAMACPP_SERVER, default
# LLAMA_BIN_DIR/llama-server; the same commit built with
# -DLLAMA_BUILD_SERVER=ON), one MTP draft run: llama-server is the only
# program that creates the draft context of --spec-type draft-mtp
# (common/speculative.cpp common_speculative_init_result, used by
# tools/server), so it is started, left to load both contexts, and
# stopped. Its log goes to OUT_DIR/mtp-draft/, apart from the one-context
# logs that `quantaudit fit --calibrate` reads.
#
# QA_LLAMACPP_ONLY=NAME[,NAME...] (fixture names without .gguf) runs only
# those fixtures, e.g. to add one model's logs to an existing set without
# redoing the others (runtimes.tsv and refused.tsv then list those runs
# only).
set -u

if [ $# -ne 3 ]; then
	echo "usage: $0 LLAMA_BIN_DIR FIXTURES_DIR OUT_DIR" >&2
	exit 2
fi
BIN=$(cd "$1" && pwd) || exit 2
FIX=$(cd "$2" && pwd) || exit 2
mkdir -p "$3" && OUT=$(cd "$3" && pwd) || exit 2
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${QA_LLAMACPP_WORK:-${TMPDIR:-/tmp}/qa-llamacpp-runs}
# Seconds one run may take before it is killed (the -kvu runs compute).
TIMEOUT=${QA_LLAMACPP_TIMEOUT:-600}
ONLY=${QA_LLAMACPP_ONLY:-}
SERVER=${QA_LLAMACPP_SERVER:-$BIN/llama-server}
mkdir -p "$WORK/models" "$WORK/raw" || exit 2

for p in llama-fit-params llama-batched-bench; do
	if [ ! -x "$BIN/$p" ]; then
		echo "$0: $BIN/$p not found" >&2
		exit 2
	fi
done

# Metadata a fixture leaves out (quantaudit does not read it) that
# llama.cpp requires; none changes a buffer size.
extra_keys() {
	case $1 in
	qwen3.6-*) echo "--set qwen35.rope.dimension_sections=i32[]:11,11,10,0" ;;
	esac
}

# The lines that matter for memory, from the first model load only
# (a --fit that shrinks the context would load again).
trim() {
	awk '
	/llama_model_loader: loaded meta data/ { if (++loads > 1) exit }
	{
		lvl = $2
		line = $0
		sub(/^[0-9.]+ [A-Z] /, "", line)
	}
	line ~ /^llama_model_loader: loaded meta data/ { print; next }
	line ~ /^print_info: (file type|file size|arch|no_alloc|n_ctx_train|n_embd_inp|n_embd|n_layer|n_layer_all|n_head|n_head_kv|n_swa|swa_period|n_embd_head_k|n_embd_head_v|n_ff|n_expert|n_expert_used|n_expert_shared|n_ff_exp|n_ff_shexp|n_lora_q|n_lora_kv|n_embd_head_k_mla|n_embd_head_v_mla|ssm_[a-z_]+|n_layer_nextn|nextn_[a-z_]+|n_vocab|model type|model params) +=/ { print; next }
	line ~ /^load_tensors: .*model buffer size/ { print; next }
	line ~ /^load_tensors: loading model tensors/ { print; next }
	line ~ /^llama_context: / && line !~ /enumerating backends|backend_ptrs|set_abort_callback/ { print; next }
	line ~ /^llama_kv_cache(_iswa)?: / && line !~ /layer +[0-9]+: / { print; next }
	line ~ /^llama_memory_(recurrent|hybrid)[a-z_]*: / && line !~ /layer +[0-9]+: / { print; next }
	line ~ /^sched_reserve: / && line !~ /max_nodes|reserving full memory/ { print; next }
	line ~ /^resolve_fused_ops: .*([Ff]lash|FA)/ { print; next }
	line ~ /memory_breakdown_print: / { print; next }
	line ~ /^llama_batched_bench: n_kv_max/ { print; next }
	line ~ /^common_speculative_init_result: |^common_speculative_impl_draft_mtp|^(srv|slot) +(load_model|init|common_speculative)/ { print; next }
	line ~ /^terminate called|^  what\(\): / { print; next }
	lvl == "W" || lvl == "E" { print; next }
	'
}

# run MODEL CTX NP KVU FA KV UB
n_runs=0
run() {
	model=$1 ctx=$2 np=$3 kvu=$4 fa=$5 kv=$6 ub=$7
	short=${model%-Q4_K_M}
	name="$short-c$ctx-np$np"
	[ "$kvu" = 1 ] && name="$name-kvu"
	name="$name-fa$fa-kv$kv-ub$ub"
	common="-m models/$model.gguf -c $ctx -np $np"
	tail_args="-fa $fa -ctk $kv -ctv $kv -ub $ub -t 2 -nr -v"
	if [ "$kvu" = 1 ]; then
		prog=llama-batched-bench
		args="$common -kvu -npl $np -npp 1 -ntg 1 $tail_args"
	else
		prog=llama-fit-params
		args="$common $tail_args -fitp on"
	fi
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	(cd "$WORK" && timeout "$TIMEOUT" "$BIN/$prog" $args \
		>"raw/$name.out" 2>"raw/$name.err")
	rc=$?
	t1=$(date +%s.%N)
	secs=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
	{
		echo "# cmd: $prog $args"
		trim <"$WORK/raw/$name.err"
		echo "# rc=$rc"
		echo "# runtime: $secs s ($prog, llama.cpp CPU backend, 2 threads)"
	} >"$OUT/$name.log"
	printf '%s\t%s\t%s\t%s\n' "$name" "$prog" "$rc" "$secs" \
		>>"$OUT/runtimes.tsv"
	n_runs=$((n_runs + 1))
	echo "$name: rc=$rc ${secs}s"
}

# run_mtp MODEL CTX NP FA KV UB: llama-server with --spec-type draft-mtp,
# stopped (SIGTERM) once it listens, or after $TIMEOUT s. Both contexts'
# KV, recurrent and compute lines are kept: the target's first, then the
# draft's after "common_speculative_init_result: creating MTP draft
# context". Real load (mmap of the sparse file), no warm-up decode, no
# web UI; rc is the server's exit code after the SIGTERM (0 on a clean
# shutdown), or 124 when it never came up.
run_mtp() {
	model=$1 ctx=$2 np=$3 fa=$4 kv=$5 ub=$6
	short=${model%-Q4_K_M}
	name="$short-c$ctx-np$np-mtp-fa$fa-kv$kv-ub$ub"
	port=$((18000 + n_runs))
	args="-m models/$model.gguf -c $ctx -np $np --spec-type draft-mtp"
	args="$args -fa $fa -ctk $kv -ctv $kv -ub $ub -t 2 -nr -v"
	args="$args -fit off --no-warmup --no-webui --host 127.0.0.1 --port $port"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	(cd "$WORK" && exec "$SERVER" $args \
		>"raw/$name.out" 2>"raw/$name.err") &
	spid=$!
	waited=0
	rc=124
	while [ "$waited" -lt "$TIMEOUT" ]; do
		if ! kill -0 "$spid" 2>/dev/null; then
			wait "$spid"
			rc=$?
			break
		fi
		if grep -q "srv  *llama_server: model loaded" \
			"$WORK/raw/$name.err" 2>/dev/null; then
			kill -TERM "$spid" 2>/dev/null
			wait "$spid"
			rc=$?
			break
		fi
		sleep 1
		waited=$((waited + 1))
	done
	if [ "$rc" = 124 ]; then
		kill -TERM "$spid" 2>/dev/null
		wait "$spid"
	fi
	t1=$(date +%s.%N)
	secs=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
	{
		echo "# cmd: llama-server $args"
		trim_server <"$WORK/raw/$name.err"
		echo "# rc=$rc"
		echo "# runtime: $secs s (llama-server, llama.cpp CPU backend, 2 threads, stopped once listening)"
	} >"$OUT/mtp-draft/$name.log"
	printf '%s\t%s\t%s\t%s\n' "mtp-draft/$name" llama-server "$rc" "$secs" \
		>>"$OUT/runtimes.tsv"
	n_runs=$((n_runs + 1))
	echo "$name: rc=$rc ${secs}s"
}

# trim for llama-server: its one model load creates two contexts (target,
# then the MTP draft), so keep the whole log's memory lines, not only
# the first load's. Server messages arrive at info level, so the I lines
# are matched the same way.
trim_server() {
	awk '
	{
		lvl = $2
		line = $0
		sub(/^[0-9.]+ [A-Z] /, "", line)
	}
	line ~ /^llama_model_loader: loaded meta data/ { print; next }
	line ~ /^print_info: (file type|file size|arch|no_alloc|n_ctx_train|n_embd|n_layer|n_layer_all|n_head|n_head_kv|n_embd_head_k|n_embd_head_v|n_ff|n_expert|n_expert_used|n_expert_shared|n_ff_exp|n_layer_nextn|nextn_[a-z_]+|n_vocab|model type|model params) +=/ { print; next }
	line ~ /^load_tensors: .*model buffer size/ { print; next }
	line ~ /^llama_context: / && line !~ /enumerating backends|backend_ptrs|set_abort_callback/ { print; next }
	line ~ /^llama_kv_cache(_iswa)?: / && line !~ /layer +[0-9]+: / { print; next }
	line ~ /^llama_memory_(recurrent|hybrid)[a-z_]*: / && line !~ /layer +[0-9]+: / { print; next }
	line ~ /^sched_reserve: / && line !~ /max_nodes|reserving full memory/ { print; next }
	line ~ /memory_breakdown_print: / { print; next }
	line ~ /speculative|draft|nextn|MTP/ && line !~ /^print_info|^create_tensor/ { print; next }
	line ~ /^terminate called|^  what\(\): / { print; next }
	lvl == "W" || lvl == "E" { print; next }
	'
}

start=$(date +%s)
printf 'config\tprogram\trc\tseconds\n' >"$OUT/runtimes.tsv"
printf 'model\treason\n' >"$OUT/refused.tsv"

for f in "$FIX"/*.gguf; do
	model=$(basename "$f" .gguf)
	if [ -n "$ONLY" ]; then
		case ",$ONLY," in
		*",$model,"*) ;;
		*) continue ;;
		esac
	fi
	# shellcheck disable=SC2046
	python3 "$HERE/add_vocab.py" $(extra_keys "$model") "$f" \
		"$WORK/models/$model.gguf" >/dev/null || exit 1

	# Does llama.cpp load it at all? Print mode (-fitp on): in fit mode
	# a model larger than this machine's host RAM (glm-4.5-air) exits 1
	# after a successful dry run.
	(cd "$WORK" && "$BIN/llama-fit-params" -m "models/$model.gguf" \
		-c 4096 -nr -v -fitp on \
		>"raw/$model-probe.out" 2>"raw/$model-probe.err")
	prc=$?
	if [ $prc -ne 0 ]; then
		why=$(sed -n 's/^[0-9.]* E llama_model_load: error loading model: //p' \
			"$WORK/raw/$model-probe.err" | head -n 1)
		printf '%s\t%s\n' "$model" "${why:-exit code $prc}" \
			>>"$OUT/refused.tsv"
		echo "$model: refused by llama.cpp: $why"
		continue
	fi
	n_ctx_train=$(sed -n 's/.*print_info: n_ctx_train *= *//p' \
		"$WORK/raw/$model-probe.err" | head -n 1)

	# GLM-4.5-Air-like glm4moe with a nextn block: the KV cells of the
	# unfiltered nextn block (create_memory passes no layer filter for
	# glm4moe). llama-fit-params only (a -kvu run would mmap and decode
	# over 72 GB of sparse weights): two contexts, -np 1/4, FA on/off, f16;
	# then the MTP draft context through llama-server.
	case $model in
	glm-4.5-air-*)
		for ctx in 4096 32768; do
			for np in 1 4; do
				run "$model" "$ctx" "$np" 0 on f16 512
				run "$model" "$ctx" "$np" 0 off f16 512
			done
		done
		if [ -x "$SERVER" ]; then
			mkdir -p "$OUT/mtp-draft"
			run_mtp "$model" 4096 1 on f16 512
		fi
		continue
		;;
	esac

	# The core: two contexts, -np 1/2/4 (non-unified), FA on with f16 and
	# q8_0 K/V, FA off with f16 (a quantized V cache needs FA).
	for ctx in 4096 32768; do
		for np in 1 2 4; do
			run "$model" "$ctx" "$np" 0 on f16 512
			run "$model" "$ctx" "$np" 0 on q8_0 512
			run "$model" "$ctx" "$np" 0 off f16 512
		done
	done
	# -ub 2048 (n_ubatch = min(n_batch 2048, -ub)).
	run "$model" 32768 1 0 on f16 2048
	run "$model" 32768 1 0 off f16 2048
	# The trained context, for three models whose context is <= 131072.
	case $model in
	llama-3.1-8b-*|gemma-3-12b-*|qwen3-30b-a3b-*)
		if [ -n "$n_ctx_train" ] && [ "$n_ctx_train" -le 131072 ]; then
			for np in 1 4; do
				run "$model" "$n_ctx_train" "$np" 0 on f16 512
				run "$model" "$n_ctx_train" "$np" 0 off f16 512
			done
			run "$model" "$n_ctx_train" 1 0 on q8_0 512
		fi
		;;
	esac
	# A refusal on record: quantized V without flash attention.
	case $model in
	llama-3.1-8b-*) run "$model" 4096 1 0 off q8_0 512 ;;
	esac
	# -np 4 with a unified KV cache (llama-batched-bench).
	for ctx in 4096 32768; do
		run "$model" "$ctx" 4 1 on f16 512
		run "$model" "$ctx" 4 1 on q8_0 512
		run "$model" "$ctx" 4 1 off f16 512
	done
done

end=$(date +%s)
echo "$n_runs runs in $((end - start)) s"
