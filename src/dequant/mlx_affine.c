/* SPDX-License-Identifier: MIT */
/*
 * MLX affine quantization to float32 (mlx_affine.h).
 */
#include "dequant/mlx_affine.h"

bool
qa_mlx_affine_ok(unsigned bits, uint64_t group, uint64_t cols)
{
	if (bits < 2 || bits > 8 || bits == 7)
		return false;
	if (group != 32 && group != 64 && group != 128)
		return false;
	return cols > 0 && cols % group == 0;
}

void
qa_mlx_affine_rows(unsigned bits, uint64_t group, uint64_t cols,
		   const uint8_t *src, uint64_t r0, uint64_t nr,
		   const float *scales, const float *biases, float *dst)
{
	uint64_t row_bytes = cols * bits / 8, groups = cols / group;
	uint32_t mask = (1u << bits) - 1;

	for (uint64_t r = 0; r < nr; r++) {
		const uint8_t *row = src + r * row_bytes;
		const float *s = scales + (r0 + r) * groups;
		const float *b = biases + (r0 + r) * groups;
		float *out = dst + r * cols;
		uint64_t acc = 0;	/* bits not yet used, lowest first */
		unsigned have = 0;
		uint64_t next = 0;	/* next byte of the row to take in */

		for (uint64_t j = 0; j < cols; j++) {
			uint32_t code;

			/* the row is a little-endian bit stream: a byte at
			 * a time keeps the word order out of the way */
			while (have < bits) {
				acc |= (uint64_t)row[next++] << have;
				have += 8;
			}
			code = (uint32_t)acc & mask;
			acc >>= bits;
			have -= bits;
			out[j] = s[j / group] * (float)code + b[j / group];
		}
	}
}
