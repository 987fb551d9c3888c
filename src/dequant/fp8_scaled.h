/* SPDX-License-Identifier: MIT */
/*
 * FP8 weights of a safetensors checkpoint with their scale tensor, to
 * float32: x.weight (F8_E4M3 or F8_E5M2, [rows, cols]) beside
 * x.weight_scale (compressed-tensors' and ModelOpt's FP8: one scale for
 * the tensor, one per output row, or one per group of a row) or
 * x.weight_scale_inv (transformers' fine-grained FP8 and DeepSeek-V3:
 * one per 128x128 block). Every one of them dequantizes as value x scale
 * (compressed_tensors/quantization/lifecycle/forward.py dequantize;
 * transformers/integrations/finegrained_fp8.py; DeepSeek-V3
 * inference/kernel.py weight_dequant, whose "_inv" scale is multiplied
 * too). The FP8 values decode as torch's float8_e4m3fn and float8_e5m2.
 */
#ifndef QA_DEQUANT_FP8_SCALED_H
#define QA_DEQUANT_FP8_SCALED_H

#include <stdbool.h>
#include <stdint.h>

/* An FP8 byte as float32: E4M3FN (no infinity, S.1111.111 NaN) or E5M2
 * (IEEE-like: infinities and NaN at exponent 31). Exact. */
float qa_fp8_to_fp32(uint8_t v, bool e5m2);

/* Which FP8 a safetensors dtype is: 0 E4M3FN, 1 E5M2, -1 neither. */
int qa_fp8_kind(const char *dtype);

/* The scale grid of a weight: one scale per block_rows x block_cols. */
struct qa_fp8_grid {
	uint64_t rows, cols;		/* the weight */
	uint64_t grid_rows, grid_cols;	/* the scale tensor */
	uint64_t block_rows, block_cols;
};

/*
 * The grid of a weight of rows x cols whose scale tensor has the shape
 * shape[0..n_dims) (slowest first): one element (per tensor), rows or
 * rows x 1 (per row), ceil(rows / 128) x ceil(cols / 128) (128 x 128
 * blocks, the last ones cut) or rows x cols/G (groups of G along a row).
 * False, with why, for any other shape: no producer writes it, and a
 * guessed grid would give a made-up error.
 */
bool qa_fp8_grid_of(uint64_t rows, uint64_t cols, const uint64_t *shape,
		    uint32_t n_dims, struct qa_fp8_grid *g, const char **why);

/*
 * Rows r0 .. r0+nr of the weight: src holds them (nr x cols bytes),
 * scales the whole grid (grid_rows x grid_cols float32, row-major);
 * writes nr x cols floats to dst.
 */
void qa_fp8_scaled_rows(const struct qa_fp8_grid *g, bool e5m2,
			const uint8_t *src, uint64_t r0, uint64_t nr,
			const float *scales, float *dst);

#endif
