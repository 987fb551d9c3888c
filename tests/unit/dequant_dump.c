/* SPDX-License-Identifier: MIT */
/*
 * dequant_dump: the C dequantizer (src/dequant/ggml_dequant.c) as a
 * filter, for tests/unit/test_dequant.py to compare with gguf-py.
 * Usage: dequant_dump TYPE_ID < raw blocks > float32 (native order).
 * TYPE_ID fp8-e4m3 or fp8-e5m2: each input byte as that FP8
 * (src/dequant/fp8_scaled.c, qa_fp8_to_fp32).
 * mlx-affine BITS GROUP ROWS COLS: the input is ROWS x COLS x BITS / 8
 * bytes of packed codes, then ROWS x COLS / GROUP float32 scales, then
 * as many biases (src/dequant/mlx_affine.c).
 * Exit 2 when the type has no dequantizer, 1 on a short or bad input.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/dtypes.h"
#include "dequant/fp8_scaled.h"
#include "dequant/ggml_dequant.h"
#include "dequant/mlx_affine.h"

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

static int
mlx_dump(char **argv)
{
	unsigned bits = (unsigned)atoi(argv[2]);
	uint64_t group = strtoull(argv[3], NULL, 10);
	uint64_t rows = strtoull(argv[4], NULL, 10);
	uint64_t cols = strtoull(argv[5], NULL, 10);
	size_t code_bytes, n_groups;
	unsigned char *codes;
	float *scales, *biases, *out;
	int rc = 1;

	if (!qa_mlx_affine_ok(bits, group, cols) || rows == 0 ||
	    rows > 4096 || cols > 65536)
		return 2;
	code_bytes = (size_t)(rows * cols * bits / 8);
	n_groups = (size_t)(rows * cols / group);
	codes = malloc(code_bytes);
	scales = malloc(n_groups * sizeof(float));
	biases = malloc(n_groups * sizeof(float));
	out = malloc((size_t)(rows * cols) * sizeof(float));
	if (codes && scales && biases && out &&
	    fread(codes, 1, code_bytes, stdin) == code_bytes &&
	    fread(scales, sizeof(float), n_groups, stdin) == n_groups &&
	    fread(biases, sizeof(float), n_groups, stdin) == n_groups) {
		qa_mlx_affine_rows(bits, group, cols, codes, 0, rows, scales,
				   biases, out);
		fwrite(out, sizeof(float), (size_t)(rows * cols), stdout);
		rc = 0;
	}
	free(codes);
	free(scales);
	free(biases);
	free(out);
	return rc;
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

	if (argc == 6 && strcmp(argv[1], "mlx-affine") == 0)
		return mlx_dump(argv);
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
