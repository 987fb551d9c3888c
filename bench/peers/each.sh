#!/bin/sh
# SPDX-License-Identifier: MIT
#
# One process per file, for a peer that reads one file per run
# (gguf-parser): `each.sh CMD... -- FILE...` runs `CMD... FILE` for every
# FILE, one after the other, output discarded. The shell's own cost (one
# sh, no subshells) is included once.
set -eu
cmd=""
while [ "$1" != "--" ]; do cmd="$cmd $1"; shift; done
shift
for f in "$@"; do
	# shellcheck disable=SC2086
	$cmd "$f" >/dev/null
done
