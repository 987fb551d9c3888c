#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Builds gguf-parser-go's CLI (github.com/gpustack/gguf-parser-go,
# cmd/gguf-parser) for bench/compare.sh and bench/fit_peers.py.
#
#   bench/peers/gguf-parser.sh SRC_DIR OUT_BINARY
#
# SRC_DIR is a checkout of gguf-parser-go: the CLI is a nested Go module
# (cmd/gguf-parser/go.mod) that replaces the library with ../../, so it is
# built from the checkout; its other modules come from the Go module proxy.
# Exit 77 without Go.
set -eu
src=$(cd "$1" && pwd)
out=$2
command -v go >/dev/null || { echo "gguf-parser.sh: needs Go" >&2; exit 77; }
(cd "$src/cmd/gguf-parser" && go build -trimpath -o "$out" .)
echo "gguf-parser built from $src ($(git -C "$src" describe --tags 2>/dev/null || echo 'no git'))"
