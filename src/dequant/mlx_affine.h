/* SPDX-License-Identifier: MIT */
/*
 * MLX affine quantization to float32: x.weight (U32, [rows, cols x bits
 * / 32]) beside x.scales and x.biases ([rows, cols / group], the
 * model's float type), as mlx.core.quantize writes it and mlx-lm saves
 * it. Each row's codes are one little-endian bit stream, code j in bits
 * [j x bits, (j + 1) x bits) of the row's words (so a 3-, 5- or 6-bit
 * code may straddle two words), and dequantizes as scale x code + bias
 * with the scale and bias of its group (mlx/backend/cpu/quantized.cpp;
 * mlx/ops.cpp dequantize; checked against mx.dequantize for 2 to 8
 * bits in tests/unit/test_dequant.py).
 */
#ifndef QA_DEQUANT_MLX_AFFINE_H
#define QA_DEQUANT_MLX_AFFINE_H

#include <stdbool.h>
#include <stdint.h>

/* Whether bits and group are a layout mx.quantize writes in affine mode:
 * 2, 3, 4, 5, 6 or 8 bits, a group of 32, 64 or 128 (mlx/ops.cpp
 * quantize's checks), cols a whole number of groups. */
bool qa_mlx_affine_ok(unsigned bits, uint64_t group, uint64_t cols);

/*
 * Rows r0 .. r0+nr of a weight of cols columns: src holds them (nr rows
 * of cols x bits / 8 bytes), scales and biases the whole tensor's
 * (rows x cols / group float32 each, row-major); writes nr x cols floats
 * to dst.
 */
void qa_mlx_affine_rows(unsigned bits, uint64_t group, uint64_t cols,
			const uint8_t *src, uint64_t r0, uint64_t nr,
			const float *scales, const float *biases, float *dst);

#endif
