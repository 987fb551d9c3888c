#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs every fuzz target under libFuzzer for DURATION_SECONDS each and
# exits non-zero if any of them crashed, printing where the crashing
# input was saved (docs/testing.md "Fuzzing").
#
# The libFuzzer build (clang, -Dfuzzing_engine=libfuzzer, ASan+UBSan with
# UBSan made fatal) is configured in $QA_FUZZ_BUILD (default build-fuzz in
# the source tree) when it does not exist yet, and rebuilt every run. Each
# target starts from a scratch copy of its committed seed corpus
# (tests/fuzz/corpus/<target>/), so the committed corpus is never
# modified; the scratch folder is removed afterwards unless a target
# crashed or QA_FUZZ_KEEP=1.
#
# CI runs it with 20 (12 targets, two at a time on its two CPUs: about
# 120 seconds of fuzzing); the long campaign is campaign.sh.
#
# Environment: CC (default clang), QA_FUZZ_BUILD, QA_FUZZ_TARGETS (default
# all twelve: "gguf safetensors index config archive pytorch template
# pipeline manifest remote pycode secrets"), QA_FUZZ_PARALLEL (targets run at once;
# default one per CPU), QA_FUZZ_KEEP, TMPDIR.
set -eu

usage() {
	echo "Usage: $0 DURATION_SECONDS" >&2
	exit 2
}

[ $# -eq 1 ] || usage
case $1 in
''|*[!0-9]*) usage ;;
esac
duration=$1

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${QA_FUZZ_BUILD:-$src/build-fuzz}
targets=${QA_FUZZ_TARGETS:-"gguf safetensors index config archive pytorch template pipeline manifest remote pycode secrets"}

if [ ! -f "$build/build.ninja" ]; then
	# -fno-sanitize-recover: a UBSan report must stop the run like an
	# ASan one, or libFuzzer never saves the input.
	CC=${CC:-clang} meson setup "$build" "$src" \
		-Dfuzzing_engine=libfuzzer \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all
fi
engine=$(meson introspect --buildoptions "$build" | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin)
           if o["name"] == "fuzzing_engine"))')
if [ "$engine" != libfuzzer ]; then
	echo "$0: $build is configured with fuzzing_engine=$engine;" \
	     "use another QA_FUZZ_BUILD or reconfigure it" >&2
	exit 2
fi
ninja -C "$build"

work=$(mktemp -d "${TMPDIR:-/tmp}/quantaudit-fuzz-run.XXXXXX")
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# The harnesses keep every input in memory (a qa_memfs): no scratch
# files to clean up.

# Each target's dictionary first: an unknown target stops the run before
# any fuzzing.
for t in $targets; do
	sh "$src/tests/fuzz/fuzz-dict.sh" "$t" >/dev/null || exit 2
done

# One target: its output in $work/<t>/summary, "failed" in
# $work/<t>/failed when it crashed.
fuzz_one() {
	t=$1
	dict=$(sh "$src/tests/fuzz/fuzz-dict.sh" "$t")
	dir=$work/$t
	mkdir -p "$dir/corpus" "$dir/artifacts"
	cp -R "$src/tests/fuzz/corpus/$t/." "$dir/corpus/"
	rc=0
	"$build/tests/fuzz/fuzz_$t" \
		-max_total_time="$duration" -rss_limit_mb=2048 -timeout=10 \
		-max_len=16384 -print_final_stats=1 \
		-dict="$src/tests/fuzz/$dict" \
		-artifact_prefix="$dir/artifacts/" \
		"$dir/corpus" >"$dir/log" 2>&1 || rc=$?
	{
		echo "== fuzz_$t: ${duration}s, log in $dir/log"
		grep -E '^stat::(number_of_executed_units|peak_rss_mb)' \
			"$dir/log" || :
		grep -E '#[0-9]+.*(DONE|cov:)' "$dir/log" | tail -n 1 || :
		if [ "$rc" -ne 0 ] || [ -n "$(ls "$dir/artifacts")" ]; then
			: >"$dir/failed"
			echo "fuzz_$t FAILED (exit $rc):"
			grep -E -A 30 '^==[0-9]+==ERROR|invariant violated|runtime error|Test unit written' \
				"$dir/log" | head -n 60 || :
			for a in "$dir/artifacts"/*; do
				[ -e "$a" ] || continue
				echo "crash input: $a"
				echo "  reproduce: $build/tests/fuzz/fuzz_$t $a"
				echo "  minimize:  $build/tests/fuzz/fuzz_$t" \
				     "-minimize_crash=1 -runs=100000" \
				     "-exact_artifact_path=$a.min $a"
			done
		else
			echo "fuzz_$t: no crash"
		fi
	} >"$dir/summary"
}

# QA_FUZZ_PARALLEL targets at a time (default: one per CPU; each libFuzzer
# process is one thread), their summaries printed in order afterwards.
par=${QA_FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 1)}
case $par in
''|*[!0-9]*|0) par=1 ;;
esac
running=0
for t in $targets; do
	fuzz_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$par" ]; then
		wait
		running=0
	fi
done
wait

failed=""
for t in $targets; do
	cat "$work/$t/summary"
	[ -e "$work/$t/failed" ] && failed="$failed $t"
done

if [ -n "$failed" ]; then
	echo "crashed:$failed (inputs and logs kept in $work)"
	exit 1
fi
if [ "${QA_FUZZ_KEEP:-0}" = 1 ]; then
	echo "grown corpora kept in $work"
else
	rm -rf "$work"
fi
echo "all targets ran ${duration}s without a crash"
