/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: one GGUF file (formats/gguf.c and everything after it).
 */
#include <string.h>

#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Only a file that does not start with the GGUF magic may be
	 * turned away as unrecognized (exit 3); everything else is a
	 * GGUF file, damaged or not. */
	bool wrong_magic = size < 4 || memcmp(data, "GGUF", 4) != 0;

	qa_fuzz_reset();
	qa_fuzz_add("input.gguf", data, size);
	qa_fuzz_inspect("input.gguf", wrong_magic);
	return 0;
}
