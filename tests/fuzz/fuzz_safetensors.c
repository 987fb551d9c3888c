/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the safetensors reader (formats/safetensors.c and the
 * single-file path of st_set.c): the input is placed as one .safetensors
 * file and run through the pipeline, then the inventory invariants of
 * fuzz_common.c are checked.
 *
 * The input driver hands any file named *.safetensors to the safetensors
 * module even when its header is unreadable (a damaged safetensors file
 * is still one), and bytes starting with "GGUF" go to the GGUF reader.
 * Only what people save in place of a model is turned away as
 * unrecognized (formats/input.c): an empty file, a Git LFS pointer, an
 * HTML page.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz_common.h"

#include "formats/format.h"

static bool
not_a_model(const uint8_t *d, size_t n)
{
	static const char lfs[] = "version https://git-lfs.github.com/spec/v1";
	size_t i = 0;

	if (n == 0)
		return true;
	if (n < 1024 && n >= sizeof(lfs) - 1 &&
	    memcmp(d, lfs, sizeof(lfs) - 1) == 0)
		return true;
	while (i < n && i < 512 && isspace(d[i]))
		i++;
	return i + 5 <= n && i + 5 <= 512 &&
	       (strncasecmp((const char *)d + i, "<!doc", 5) == 0 ||
		strncasecmp((const char *)d + i, "<html", 5) == 0);
}

/*
 * The reader's fast path for entries laid out as the safetensors library
 * writes them must leave exactly what its general scanner leaves: the
 * same findings, offsets and tensors, so the same report byte for byte.
 */
static void
same_both_ways(void)
{
	size_t fast_len, general_len;
	char *fast, *general;

	fast = qa_fuzz_json_report("input.safetensors", &fast_len);
	qa_st_fast_entries(false);
	general = qa_fuzz_json_report("input.safetensors", &general_len);
	qa_st_fast_entries(true);
	if (fast_len != general_len || memcmp(fast, general, fast_len) != 0) {
		fprintf(stderr, "input.safetensors: the fast entry path and the "
			"general scanner give different reports\n");
		abort();
	}
	free(fast);
	free(general);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	qa_fuzz_reset();
	qa_fuzz_add("input.safetensors", data, size);
	qa_fuzz_inspect("input.safetensors", not_a_model(data, size));
	same_both_ways();
	return 0;
}
