/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: one archive (formats/archive*.c, then every loader on its
 * members). The input is named model.llamafile, so a tar (ustar magic, or
 * a gzip/zstd/xz/bzip2/lz4 stream) goes through libarchive's tar reader
 * and anything else through the zip central directory walk; both may
 * turn it away as no archive (exit 3).
 */
#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	qa_fuzz_reset();
	qa_fuzz_add("model.llamafile", data, size);
	qa_fuzz_inspect("model.llamafile", true);
	return 0;
}
