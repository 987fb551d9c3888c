/* SPDX-License-Identifier: MIT */
/*
 * What llama.cpp's CUDA backend takes on each device beyond the buffers
 * it names (model, KV, recurrent state, compute): the runtime memory
 * that its memory breakdown prints as "unaccounted", less the CUDA
 * context that the device profile's reservation already covers.
 * Measured on an H100 (tests/data/llamacpp-cuda-runs), code in
 * docs/fit.md ("CUDA backend").
 */
#ifndef QA_SRC_FIT_CUDA_H
#define QA_SRC_FIT_CUDA_H

#include <stdint.h>

/*
 * CUDA runtime bytes per device of a fully offloaded llama.cpp model of
 * architecture arch_raw (general.architecture; NULL allowed) beyond the
 * device reservation (gpuspec.h QA_GPU_DEFAULT_RESERVE): cuBLAS handle
 * and workspace, the lazily loaded kernel modules, the CUDA memory pool
 * (MMQ and flash-attention scratch, the F16 copy of a quantized K/V) and
 * CUDA graphs, all at the sizes a short decode reaches.
 */
uint64_t qa_fit_cuda_runtime_bytes(const char *arch_raw);

#endif /* QA_SRC_FIT_CUDA_H */
