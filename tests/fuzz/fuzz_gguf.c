/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the GGUF reader (formats/gguf.c, gguf_split.c,
 * gguf_hparams.c): the input is written as a single .gguf file and
 * inspected like `quantaudit inspect FILE`, then the inventory invariants
 * of fuzz_common.c are checked. The name carries no split number, so the
 * set loader reads this one file and never looks for siblings.
 */
#include <string.h>

#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];
	/* Only a file that does not start with the GGUF magic may be
	 * turned away as unrecognized (exit 3); everything else is a
	 * GGUF file, damaged or not. */
	bool wrong_magic = size < 4 || memcmp(data, "GGUF", 4) != 0;

	qa_fuzz_write("input.gguf", data, size, path, sizeof(path));
	qa_fuzz_inspect(path, wrong_magic);
	return 0;
}
