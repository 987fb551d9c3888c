/* SPDX-License-Identifier: MIT */
/*
 * dequant_dump: the C dequantizer (src/dequant/ggml_dequant.c) as a
 * filter, for tests/unit/test_dequant.py to compare with gguf-py.
 * Usage: dequant_dump TYPE_ID < raw blocks > float32 (native order).
 * TYPE_ID fp8-e4m3 or fp8-e5m2: each input byte as that FP8
 * (src/dequant/fp8_scaled.c, qa_fp8_to_fp32).
 * Exit 2 when the type has no dequantizer, 1 on a short or bad input.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/dtypes.h"
#include "dequant/fp8_scaled.h"
#include "dequant/ggml_dequant.h"

#include <string.h>

static int
fp8_dump(bool e5m2)
{
	int c;

	while ((c = getchar()) != EOF) {
		float f = qa_fp8_to_fp32((uint8_t)c, e5m2);

		fwrite(&f, sizeof(f), 1, stdout);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct qa_ggml_type *t;
	size_t cap = 1 << 20, len = 0, n;
	unsigned char *buf;
	float *out;
	uint64_t n_blocks;
	int id;

	if (argc != 2)
		return 1;
	if (strcmp(argv[1], "fp8-e4m3") == 0 || strcmp(argv[1], "fp8-e5m2") == 0)
		return fp8_dump(argv[1][5] == '5');
	id = atoi(argv[1]);
	t = qa_ggml_type(id);
	if (!t || !qa_dequant_supported(id))
		return 2;
	buf = malloc(cap);
	if (!buf)
		return 1;
	while ((n = fread(buf + len, 1, cap - len, stdin)) > 0) {
		len += n;
		if (len == cap) {
			unsigned char *grown = realloc(buf, cap * 2);

			if (!grown)
				return 1;
			buf = grown;
			cap *= 2;
		}
	}
	if (len % t->block_bytes != 0)
		return 1;
	n_blocks = len / t->block_bytes;
	out = malloc(n_blocks * t->block * sizeof(float) + 1);
	if (!out || !qa_dequant_blocks(id, buf, n_blocks, out))
		return 1;
	fwrite(out, sizeof(float), n_blocks * t->block, stdout);
	free(out);
	free(buf);
	return 0;
}
