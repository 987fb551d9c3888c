/* SPDX-License-Identifier: MIT */
/*
 * ggml tensor data to float32, block by block: the dequantizers of every
 * ggml type that gguf-py's quants.py can dequantize, written from the
 * block layouts of ggml/src/ggml-common.h and giving gguf-py 0.19.0's
 * `gguf.quants.dequantize` bit for bit (tests/unit/test_dequant.py).
 * Pure functions of the bytes given: the caller reads a row range at a
 * time and hands it here, so memory stays one row range.
 */
#ifndef QA_DEQUANT_GGML_DEQUANT_H
#define QA_DEQUANT_GGML_DEQUANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether ggml type `id` has a dequantizer here. */
bool qa_dequant_supported(int id);

/*
 * Dequantize n_blocks whole blocks of ggml type id from src (n_blocks *
 * block_bytes bytes, no alignment required) into dst (n_blocks * block
 * floats, core/dtypes.h). Returns false, writing nothing, when the type
 * has no dequantizer.
 */
bool qa_dequant_blocks(int id, const uint8_t *src, uint64_t n_blocks,
		       float *dst);

/*
 * The same over a row range of a 2-D view: rows of ne0 elements (a
 * multiple of the type's block), row_bytes apart in src, which starts at
 * the first row of the range. Returns false when the type has no
 * dequantizer or ne0 is not a multiple of its block.
 */
bool qa_dequant_rows(int id, const uint8_t *src, uint64_t ne0,
		     uint64_t n_rows, float *dst);

/* IEEE binary16 bits to float32, every value exact, NaN payload kept. */
float qa_fp16_to_fp32(uint16_t h);

#endif /* QA_DEQUANT_GGML_DEQUANT_H */
