/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for PyTorch checkpoints and the pickle walker
 * (formats/pytorch.c, formats/pickle.c): the input is placed as one .pt
 * file and run through the pipeline, then the inventory invariants of
 * fuzz_common.c are checked. Zips, legacy stacked pickles, 0.1-era tars
 * and plain pickles all reach the walker this way.
 *
 * An input the PyTorch probe accepts must be audited, never refused as
 * unrecognized; anything else may be (or may go to another reader: a
 * zip without data.pkl is an archive).
 */
#include "fuzz_common.h"
#include "formats/pytorch.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t head = size < 512 ? size : 512;
	bool torch = size > 0 && qa_pt_probe(data, head, size) > 0;

	qa_fuzz_reset();
	qa_fuzz_add("input.pt", data, size);
	qa_fuzz_inspect("input.pt", !torch);
	return 0;
}
