/* SPDX-License-Identifier: MIT */
/*
 * compressed-tensors' pack-quantized integers to float32: x.weight_packed
 * (I32, [rows, cols x bits / 32]) beside x.weight_scale ([rows, cols / G]
 * for the group strategy, [rows, 1] for channel) and, when asymmetric,
 * x.weight_zero_point (I32, packed down the rows). Codes are stored as
 * value + 2^(bits-1), one little-endian bit stream per row
 * (compressors/pack_quantized/helpers.py pack_to_int32), and dequantize
 * as (value - zero point) x scale (quantization/lifecycle/
 * forward_helpers.py _dequantize), here in float32.
 *
 * Only 2, 4 and 8 bits: there the dense packing of compressed-tensors
 * 0.20 and the word-aligned packing of its earlier releases (32 / bits
 * codes a word) are the same bytes; for 3, 5, 6 or 7 bits they differ,
 * and a file does not say which release wrote it.
 */
#ifndef QA_DEQUANT_CT_PACKED_H
#define QA_DEQUANT_CT_PACKED_H

#include <stdbool.h>
#include <stdint.h>

/* Whether bits is a width read here (2, 4 or 8). */
bool qa_ct_packed_ok(unsigned bits);

/* Code r of a bit stream of bits-wide codes held in 32-bit words, the
 * k-th word at words[k x stride] (little-endian words). */
uint32_t qa_ct_code_at(const uint8_t *words, uint64_t stride, unsigned bits,
		       uint64_t r);

/*
 * Rows r0 .. r0+nr of a weight of cols columns in groups of group: src
 * holds them (nr rows of cols x bits / 8 bytes); scales the whole
 * tensor's (rows x cols / group float32, row-major); zero the zero points
 * as signed values of the same shape, or NULL (symmetric). Writes nr x
 * cols floats to dst.
 */
void qa_ct_packed_rows(unsigned bits, uint64_t group, uint64_t cols,
		       const uint8_t *src, uint64_t r0, uint64_t nr,
		       const float *scales, const int32_t *zero, float *dst);

#endif
