#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# quantaudit against the other model-file readers, in one run, on this
# machine: CPU-time ratios, peak RSS and bytes read per workload (one GGUF
# per process, many GGUFs in one process, sharded safetensors folders,
# 1k/10k/100k tensors). See docs/performance.md "Comparing with other
# readers" for what each number means and the latest table.
#
#   bench/compare.sh [QUANTAUDIT]            e.g. bench/compare.sh
#
#   QUANTAUDIT  a quantaudit binary; default: a release build made here in
#               $BUILD (default /tmp/build-bench, `meson setup
#               --buildtype=release`), rebuilt with ninja each run
#
# Environment:
#   OUT=DIR            results and generated inputs (default /tmp/quantaudit-compare);
#                      the table is OUT/results.md
#   CORPUS=DIR         real files (default ../shared/corpus beside the checkout; optional)
#   GGUF_TOOLS_SRC=DIR antirez/gguf-tools sources (default ../gguf-tools; skipped if absent)
#   LLAMA_CPP_SRC=DIR  ggml-org/llama.cpp sources (default ../llama.cpp; its
#                      build/bin/libggml-base.so is used, or the ggml-base target
#                      is built into OUT/llama.cpp-build with cmake; skipped if absent)
#   GGUF_PARSER=BIN    a built gguf-parser-go CLI (gguf-parser); else it is built
#                      with Go from GGUF_PARSER_SRC (default ../gguf-parser-go,
#                      bench/peers/gguf-parser.sh); skipped if neither
#   QUICK=1            3 runs per command, 20 interleaved rounds (a smoke test)
#   ONLY=one,many,st,scale   a subset of the workloads
#
# Installs (as root, with apt-get) what is missing of: hyperfine, strace,
# time, util-linux (fincore); runs `npm ci` in bench/ for @huggingface/gguf
# and @huggingface/hub when node and npm are present (skipped otherwise).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
OUT=${OUT:-/tmp/quantaudit-compare}
BUILD=${BUILD:-/tmp/build-bench}
CORPUS=${CORPUS:-$repo/../shared/corpus}
GGUF_TOOLS_SRC=${GGUF_TOOLS_SRC:-$repo/../gguf-tools}
LLAMA_CPP_SRC=${LLAMA_CPP_SRC:-$repo/../llama.cpp}
mkdir -p "$OUT/peers"
peers=$OUT/peers
: >"$peers/versions.txt"
log=$OUT/build.log
: >"$log"

need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v strace >/dev/null || need+=(strace)
[ -x /usr/bin/time ] || need+=(time)
command -v fincore >/dev/null || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
	echo "compare.sh: installing ${need[*]}" >&2
	apt-get install -y --no-install-recommends "${need[@]}" >>"$log" 2>&1 ||
		{ apt-get update >>"$log" 2>&1 && apt-get install -y --no-install-recommends "${need[@]}" >>"$log" 2>&1; } ||
		echo "compare.sh: apt-get could not install ${need[*]} (see $log)" >&2
fi
for tool in hyperfine strace /usr/bin/time fincore python3; do
	command -v "$tool" >/dev/null || { echo "compare.sh: $tool is required" >&2; exit 2; }
done

# quantaudit
if [ $# -ge 1 ]; then
	QA=$1
else
	[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" "$repo" --buildtype=release >>"$log"
	ninja -C "$BUILD" quantaudit >>"$log"
	QA=$BUILD/quantaudit
fi
[ -x "$QA" ] || { echo "compare.sh: $QA is not an executable quantaudit" >&2; exit 2; }

# @huggingface/gguf and @huggingface/hub (versions pinned in package-lock.json)
if command -v node >/dev/null && command -v npm >/dev/null; then
	[ -d "$here/node_modules/@huggingface/gguf" ] ||
		(cd "$here" && npm ci --no-audit --no-fund >>"$log" 2>&1) ||
		echo "compare.sh: npm ci failed: node peers skipped" >&2
else
	echo "compare.sh: node or npm absent: @huggingface peers skipped" >&2
fi

# gguf-tools: `show` as its Makefile builds it, and the loop driver
if [ -f "$GGUF_TOOLS_SRC/gguflib.c" ]; then
	flags=(-march=native -ffast-math -g -O3 -I"$GGUF_TOOLS_SRC")
	src=("$GGUF_TOOLS_SRC"/gguflib.c "$GGUF_TOOLS_SRC"/sds.c "$GGUF_TOOLS_SRC"/fp16.c)
	cc "${flags[@]}" -o "$peers/gguf-tools" "$GGUF_TOOLS_SRC/gguf-tools.c" "${src[@]}" -lm >>"$log" 2>&1 &&
		cc "${flags[@]}" -o "$peers/gguf_tools_many" "$here/peers/gguf_tools_many.c" "${src[@]}" -lm >>"$log" 2>&1 ||
		echo "compare.sh: gguf-tools did not build (see $log): skipped" >&2
	echo "gguf-tools: $(git -C "$GGUF_TOOLS_SRC" rev-parse --short HEAD 2>/dev/null ||
		echo "sources with gguflib.c sha256 $(sha256sum "$GGUF_TOOLS_SRC/gguflib.c" | cut -c1-12)")" >>"$peers/versions.txt"
else
	rm -f "$peers/gguf-tools" "$peers/gguf_tools_many"
	echo "compare.sh: no gguf-tools sources at $GGUF_TOOLS_SRC: skipped" >&2
fi

# llama.cpp's gguf reader (ggml/src/gguf.cpp in libggml-base)
if [ -f "$LLAMA_CPP_SRC/ggml/include/gguf.h" ]; then
	libdir=$LLAMA_CPP_SRC/build/bin
	if [ ! -e "$libdir/libggml-base.so" ] && command -v cmake >/dev/null; then
		libdir=$OUT/llama.cpp-build/bin
		[ -e "$libdir/libggml-base.so" ] ||
			{ cmake -S "$LLAMA_CPP_SRC" -B "$OUT/llama.cpp-build" -DCMAKE_BUILD_TYPE=Release >>"$log" 2>&1 &&
			  cmake --build "$OUT/llama.cpp-build" --target ggml-base -j2 >>"$log" 2>&1; } || true
	fi
	if [ -e "$libdir/libggml-base.so" ]; then
		cc -O2 -I"$LLAMA_CPP_SRC/ggml/include" -o "$peers/ggml_gguf_many" "$here/peers/ggml_gguf_many.c" \
			-L"$libdir" -lggml-base -Wl,-rpath,"$libdir" >>"$log" 2>&1 ||
			echo "compare.sh: the ggml gguf driver did not build (see $log): skipped" >&2
		echo "llama.cpp: $(git -C "$LLAMA_CPP_SRC" rev-parse --short HEAD 2>/dev/null || echo '?') ($libdir)" >>"$peers/versions.txt"
	else
		echo "compare.sh: no libggml-base.so for $LLAMA_CPP_SRC: llama.cpp's reader skipped" >&2
	fi
else
	rm -f "$peers/ggml_gguf_many"
	echo "compare.sh: no llama.cpp sources at $LLAMA_CPP_SRC: skipped" >&2
fi

# gguf-parser-go's CLI (one file per process; bench/peers/each.sh loops it)
GGUF_PARSER_SRC=${GGUF_PARSER_SRC:-$repo/../gguf-parser-go}
if [ -n "${GGUF_PARSER:-}" ] && [ -x "$GGUF_PARSER" ]; then
	ln -sf "$(cd "$(dirname "$GGUF_PARSER")" && pwd)/$(basename "$GGUF_PARSER")" "$peers/gguf-parser"
	echo "gguf-parser: $GGUF_PARSER ($("$GGUF_PARSER" --version 2>/dev/null | tail -1))" >>"$peers/versions.txt"
elif [ -d "$GGUF_PARSER_SRC/cmd/gguf-parser" ]; then
	[ -x "$peers/gguf-parser" ] || sh "$here/peers/gguf-parser.sh" "$GGUF_PARSER_SRC" "$peers/gguf-parser" >>"$log" 2>&1 ||
		echo "compare.sh: gguf-parser did not build (see $log): skipped" >&2
	echo "gguf-parser: $(git -C "$GGUF_PARSER_SRC" describe --tags 2>/dev/null || echo '?') ($GGUF_PARSER_SRC)" >>"$peers/versions.txt"
else
	rm -f "$peers/gguf-parser"
	echo "compare.sh: no GGUF_PARSER binary and no gguf-parser-go sources at $GGUF_PARSER_SRC: skipped" >&2
fi

# the Python peers: gguf-py (PyPI gguf) and safetensors (safe_open)
for mod in gguf safetensors; do
	if v=$(python3 -c "import importlib.metadata as m; print(m.version('$mod'))" 2>/dev/null); then
		echo "python $mod: $v" >>"$peers/versions.txt"
	else
		echo "compare.sh: python3 has no $mod package: its peer is skipped" >&2
	fi
done

exec python3 "$here/compare.py" --qa "$QA" --out "$OUT" --corpus "$CORPUS" --peers "$peers" \
	${QUICK:+--quick} ${ONLY:+--only "$ONLY"}
