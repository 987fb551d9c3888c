/* SPDX-License-Identifier: MIT */
/*
 * FP8 with a scale tensor to float32 (fp8_scaled.h).
 */
#include "dequant/fp8_scaled.h"

#include <math.h>
#include <string.h>

float
qa_fp8_to_fp32(uint8_t v, bool e5m2)
{
	int sign = v >> 7;
	float x;

	if (e5m2) {
		int e = (v >> 2) & 31, m = v & 3;

		if (e == 31)
			x = m ? NAN : INFINITY;
		else if (e == 0)
			x = ldexpf((float)m, -16);	/* m/4 x 2^-14 */
		else
			x = ldexpf((float)(4 + m), e - 17);
	} else {
		int e = (v >> 3) & 15, m = v & 7;

		if (e == 15 && m == 7)
			x = NAN;
		else if (e == 0)
			x = ldexpf((float)m, -9);	/* m/8 x 2^-6 */
		else
			x = ldexpf((float)(8 + m), e - 10);
	}
	return sign ? -x : x;
}

int
qa_fp8_kind(const char *dtype)
{
	if (!dtype)
		return -1;
	if (strcmp(dtype, "F8_E4M3") == 0)
		return 0;
	if (strcmp(dtype, "F8_E5M2") == 0)
		return 1;
	return -1;
}

static uint64_t
ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

bool
qa_fp8_grid_of(uint64_t rows, uint64_t cols, const uint64_t *shape,
	       uint32_t n_dims, struct qa_fp8_grid *g, const char **why)
{
	uint64_t n = 1;
	uint32_t i;

	memset(g, 0, sizeof(*g));
	g->rows = rows;
	g->cols = cols;
	*why = "its scale tensor's shape fits no grid over the weight";
	if (rows == 0 || cols == 0)
		return false;
	for (i = 0; i < n_dims; i++)
		n *= shape[i];
	if (n == 1) {
		g->grid_rows = g->grid_cols = 1;
		g->block_rows = rows;
		g->block_cols = cols;
		return true;
	}
	if ((n_dims == 1 && shape[0] == rows) ||
	    (n_dims == 2 && shape[0] == rows && shape[1] == 1)) {
		g->grid_rows = rows;
		g->grid_cols = 1;
		g->block_rows = 1;
		g->block_cols = cols;
		return true;
	}
	if (n_dims != 2 || shape[0] == 0 || shape[1] == 0)
		return false;
	g->grid_rows = shape[0];
	g->grid_cols = shape[1];
	if (shape[0] == ceil_div(rows, 128) && shape[1] == ceil_div(cols, 128)) {
		/* 128 x 128 blocks, the last ones cut (fine-grained FP8) */
		g->block_rows = g->block_cols = 128;
		return true;
	}
	if (shape[0] == rows && cols % shape[1] == 0) {
		/* groups of a row (compressed-tensors' group strategy) */
		g->block_rows = 1;
		g->block_cols = cols / shape[1];
		return true;
	}
	return false;
}

void
qa_fp8_scaled_rows(const struct qa_fp8_grid *g, bool e5m2,
		   const uint8_t *src, uint64_t r0, uint64_t nr,
		   const float *scales, float *dst)
{
	float lut[256];
	uint64_t r, c;
	unsigned v;

	for (v = 0; v < 256; v++)
		lut[v] = qa_fp8_to_fp32((uint8_t)v, e5m2);
	for (r = 0; r < nr; r++) {
		const float *srow = scales +
			(r0 + r) / g->block_rows * g->grid_cols;
		const uint8_t *in = src + r * g->cols;
		float *out = dst + r * g->cols;

		for (c = 0; c < g->cols; c++)
			out[c] = lut[in[c]] * srow[c / g->block_cols];
	}
}
