/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the safetensors reader (formats/safetensors.c and the
 * single-file path of st_set.c): the input is written as one .safetensors
 * file and inspected, then the inventory invariants of fuzz_common.c are
 * checked.
 *
 * The input driver hands any file named *.safetensors to the safetensors
 * module even when its header is unreadable (src/input.c: a damaged
 * safetensors file is still one), and bytes starting with "GGUF" go to the
 * GGUF reader, so no input here may come back unrecognized.
 */
#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];

	qa_fuzz_write("input.safetensors", data, size, path, sizeof(path));
	qa_fuzz_inspect(path, false);
	return 0;
}
