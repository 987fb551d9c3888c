/* SPDX-License-Identifier: MIT */
/*
 * compressed-tensors pack-quantized integers to float32 (ct_packed.h).
 */
#include "dequant/ct_packed.h"
#include <stddef.h>

bool
qa_ct_packed_ok(unsigned bits)
{
	return bits == 2 || bits == 4 || bits == 8;
}

uint32_t
qa_ct_code_at(const uint8_t *words, uint64_t stride, unsigned bits,
	      uint64_t r)
{
	uint64_t bit = r * bits, k = bit / 32;
	const uint8_t *w = words + k * stride * 4;
	uint32_t v = (uint32_t)w[0] | (uint32_t)w[1] << 8 |
		     (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;

	/* 2, 4 and 8 bits never straddle a word */
	return v >> (bit % 32) & ((1u << bits) - 1);
}

void
qa_ct_packed_rows(unsigned bits, uint64_t group, uint64_t cols,
		  const uint8_t *src, uint64_t r0, uint64_t nr,
		  const float *scales, const int32_t *zero, float *dst)
{
	uint64_t row_bytes = cols * bits / 8, groups = cols / group;
	int32_t offset = 1 << (bits - 1);
	unsigned per_byte = 8 / bits;
	uint32_t mask = (1u << bits) - 1;

	for (uint64_t r = 0; r < nr; r++) {
		const uint8_t *row = src + r * row_bytes;
		const float *s = scales + (r0 + r) * groups;
		const int32_t *z = zero ? zero + (r0 + r) * groups : NULL;
		float *out = dst + r * cols;

		/* a little-endian bit stream: code j in byte j / per_byte */
		for (uint64_t j = 0; j < cols; j++) {
			uint32_t code = (uint32_t)row[j / per_byte] >>
					(j % per_byte * bits) & mask;
			int32_t v = (int32_t)code - offset -
				    (z ? z[j / group] : 0);

			out[j] = (float)v * s[j / group];
		}
	}
}
