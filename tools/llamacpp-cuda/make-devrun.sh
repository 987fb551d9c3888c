#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Fills DEVRUN_DIR with what run.sh and run-2gpu.sh need on the device
# machine (under 64 MiB: about 38 MiB):
#
#   make-devrun.sh LLAMA_GIT_DIR FIXTURES_DIR DEVRUN_DIR
#
# LLAMA_GIT_DIR  a llama.cpp git directory at the commit of
#                tests/data/llamacpp-runs/README.md (the device gets a
#                `git archive` of HEAD without models/, docs/, the web UI)
# FIXTURES_DIR   build/fixtures/out/fit
#
# Each model travels as its header only (add_vocab.py's output up to the
# data offset); run.sh truncates it back to its full, sparse size there.
set -eu
[ $# -eq 3 ] || { echo "usage: $0 LLAMA_GIT_DIR FIXTURES_DIR DEVRUN_DIR" >&2; exit 2; }
G=$1 FIX=$2 D=$3
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=${TMPDIR:-/tmp}/qa-devrun.$$
mkdir -p "$D/models" "$TMP"
git -C "$G" archive --format=tar --prefix=llama.cpp/ HEAD -- . ':!models' \
	':!docs' ':!media' ':!app' ':!.github' ':!tools/ui' \
	':!tools/server/public*' ':!examples' ':!benches' ':!.devops' \
	':!pocs' | xz -T2 -6 >"$D/llama.cpp.tar.xz"
cp "$HERE/run.sh" "$HERE/run-2gpu.sh" "$HERE/trim.awk" "$D/"
: >"$D/models/sizes.tsv"
for m in llama-3.1-8b gemma-3-12b qwen3-30b-a3b deepseek-v2-lite lfm2-1.2b \
	nemotron-nano-9b-v2 qwen3.6-27b-like-mtp; do
	x=
	[ "$m" = qwen3.6-27b-like-mtp ] &&
		x="--set qwen35.rope.dimension_sections=i32[]:11,11,10,0"
	# shellcheck disable=SC2086
	python3 "$HERE/../llamacpp-runs/add_vocab.py" $x \
		"$FIX/$m-Q4_K_M.gguf" "$TMP/$m-Q4_K_M.gguf" >/dev/null
	python3 - "$TMP/$m-Q4_K_M.gguf" "$D/models" <<'PY' >>"$D/models/sizes.tsv"
import os, sys
import gguf
p, d = sys.argv[1], sys.argv[2]
name = os.path.basename(p)[:-5]
off = gguf.GGUFReader(p).data_offset
with open(p, 'rb') as i, open(os.path.join(d, name + '.hdr'), 'wb') as o:
    o.write(i.read(off))
print(f"{name}\t{off}\t{os.path.getsize(p)}")
PY
	rm -f "$TMP/$m-Q4_K_M.gguf"
done
rmdir "$TMP"
du -sh "$D"
