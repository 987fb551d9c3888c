#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The long fuzz campaign (docs/security.md "Fuzzing", docs/testing.md):
# every target for CPU_MINUTES of CPU time each (30 for the documented
# campaign), QA_CAMPAIGN_JOBS targets at a time (default 2), under
# nice -n 19, with -use_value_profile=1 and the target's dictionary,
# through tests/fuzz/campaign_target.py (CPU time measured, not wall
# time; crashes kept and the target restarted).
#
#   tests/fuzz/campaign.sh 30
#   setsid nohup tests/fuzz/campaign.sh 30 > ../fuzz-campaign/log 2>&1 &
#
# Working corpora, artifacts and logs go to $QA_CAMPAIGN_DIR (default
# fuzz-campaign beside the source tree: never inside it), one folder per
# target, seeded from tests/fuzz/corpus/<target>/ the first time and kept,
# so a second campaign continues where the first stopped. The results go
# to $QA_CAMPAIGN_DIR/results.md (a table: CPU minutes, executions,
# exec/s, cov and ft at the end, corpus size, crashes) and results.json.
#
# The libFuzzer build is $QA_FUZZ_BUILD (default build-campaign beside the
# source tree), configured as run-fuzzers.sh configures its own when
# missing and built once at the start (not at all with QA_FUZZ_NO_BUILD=1),
# so edits made while the campaign runs do not change what it fuzzes.
# QA_FUZZ_TARGETS picks a subset.
set -eu

usage() {
	echo "Usage: $0 CPU_MINUTES_PER_TARGET" >&2
	exit 2
}

[ $# -eq 1 ] || usage
case $1 in
''|*[!0-9]*) usage ;;
esac
minutes=$1

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${QA_FUZZ_BUILD:-$(dirname "$src")/build-campaign}
out=${QA_CAMPAIGN_DIR:-$(dirname "$src")/fuzz-campaign}
jobs=${QA_CAMPAIGN_JOBS:-2}
targets=${QA_FUZZ_TARGETS:-"gguf safetensors index config archive pytorch template pipeline manifest remote pycode secrets"}

case $out in
"$src"|"$src"/*)
	echo "$0: QA_CAMPAIGN_DIR must be outside the source tree" >&2
	exit 2 ;;
esac
mkdir -p "$out"

if [ ! -f "$build/build.ninja" ]; then
	CC=${CC:-clang} meson setup "$build" "$src" \
		-Dfuzzing_engine=libfuzzer \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all
fi
if [ "${QA_FUZZ_NO_BUILD:-0}" != 1 ]; then
	bins=""
	for t in $targets; do
		bins="$bins tests/fuzz/fuzz_$t"
	done
	# shellcheck disable=SC2086
	nice -n 19 ninja -C "$build" $bins
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# The harnesses keep their inputs in memory; this is for anything else.
export TMPDIR=${TMPDIR:-/tmp}

echo "campaign: $minutes CPU minutes per target, $jobs at a time," \
     "build $build, results in $out (started $(date -Iseconds), pid $$)"

# What the campaign runs is fixed at its start, like the build: the runner,
# the dictionaries and the seed corpora are copied out of the source tree
# now, so edits made while it runs do not reach targets started later.
tools=$out/.tools
rm -rf "$tools"
mkdir -p "$tools"
cp "$src/tests/fuzz/campaign_target.py" "$src/tests/fuzz/fuzz-dict.sh" \
   "$src"/tests/fuzz/*.dict "$tools/"
for t in $targets; do
	if [ ! -d "$out/$t/corpus" ]; then
		mkdir -p "$out/$t"
		cp -R "$src/tests/fuzz/corpus/$t" "$out/$t/corpus"
	fi
done

run_target() {
	t=$1
	dict=$(sh "$tools/fuzz-dict.sh" "$t")
	echo "campaign: fuzz_$t started $(date -Iseconds)"
	rc=0
	nice -n 19 python3 "$tools/campaign_target.py" \
		"$build/tests/fuzz/fuzz_$t" "$tools/$dict" \
		"$src/tests/fuzz/corpus/$t" "$out/$t" "$minutes" \
		>"$out/$t/summary" 2>&1 || rc=$?
	echo "campaign: fuzz_$t finished $(date -Iseconds) (exit $rc):" \
	     "$(tail -n 1 "$out/$t/summary")"
}

# QA_CAMPAIGN_JOBS targets at a time: start one as soon as one ends.
running=0
pids=""
for t in $targets; do
	if [ "$running" -ge "$jobs" ]; then
		# POSIX sh has no "wait -n": wait for the oldest.
		first=${pids%% *}
		wait "$first" || :
		pids=${pids#"$first"}
		pids=${pids# }
		running=$((running - 1))
	fi
	run_target "$t" &
	pids="$pids${pids:+ }$!"
	running=$((running + 1))
done
for p in $pids; do
	wait "$p" || :
done

python3 - "$out" $targets <<'PY'
import json, os, sys
out, targets = sys.argv[1], sys.argv[2:]
rows, docs = [], []
for t in targets:
    try:
        with open(os.path.join(out, t, "result.json")) as f:
            r = json.load(f)
    except (OSError, ValueError):
        rows.append(f"| fuzz_{t} | no result | | | | | | | |")
        continue
    docs.append(r)
    rows.append(
        f"| fuzz_{t} | {r['cpu_minutes']:.1f} | {r['executions']:,} | "
        f"{r['exec_per_cpu_s']:,.0f} | {r['cov']} | {r['ft']} | "
        f"{r['seed_files']} → {r['corpus_files']} "
        f"({r['corpus_bytes'] / 1024:.0f} KiB) | {r['crashes']} | "
        f"{r['stopped']} |")
table = ("| target | CPU min | executions | exec/CPU s | cov | ft | "
         "corpus files (seeds → end) | crashes | stopped |\n"
         "|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
with open(os.path.join(out, "results.md"), "w") as f:
    f.write(table)
with open(os.path.join(out, "results.json"), "w") as f:
    json.dump(docs, f, indent=1)
print(table, end="")
PY
echo "campaign: done $(date -Iseconds)"
if grep -l '"crashes": [1-9]' "$out"/*/result.json 2>/dev/null; then
	echo "campaign: crashes found (artifacts in $out/*/artifacts)"
	exit 1
fi
