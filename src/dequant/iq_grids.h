/* SPDX-License-Identifier: MIT */
/*
 * The I-quant codebooks (ggml/src/ggml-common.h iq2xxs_grid, iq2xs_grid,
 * iq2s_grid, iq3xxs_grid, iq3s_grid, iq1s_grid, ksigns_iq2xs), one
 * element a byte, generated into iq_grids.c by tools/gen_iq_grids.py.
 */
#ifndef QA_DEQUANT_IQ_GRIDS_H
#define QA_DEQUANT_IQ_GRIDS_H

#include <stdint.h>

extern const uint8_t qa_iq2xxs_grid[256][8];
extern const uint8_t qa_iq2xs_grid[512][8];
extern const uint8_t qa_iq2s_grid[1024][8];
extern const uint8_t qa_iq3xxs_grid[256][4];
extern const uint8_t qa_iq3s_grid[512][4];
extern const int8_t qa_iq1s_grid[2048][8];
extern const uint8_t qa_ksigns_iq2xs[128];

#endif /* QA_DEQUANT_IQ_GRIDS_H */
