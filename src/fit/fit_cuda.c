/* SPDX-License-Identifier: MIT */
/*
 * The CUDA runtime memory of llama.cpp's CUDA backend per device, from
 * the 74 runs of tests/data/llamacpp-cuda-runs (H100 80GB HBM3, driver
 * 580.159.04, CUDA 13.0, llama.cpp d32676d7, -ngl 99, 16 tokens decoded).
 *
 * llama.cpp's memory breakdown (common/fit.cpp
 * common_memory_breakdown_print) prints per device total = free + self +
 * unaccounted, self being the model, context (KV, recurrent) and compute
 * buffers; "unaccounted" is everything the CUDA runtime holds besides.
 * On those runs it was 597..605 MiB for every architecture but the
 * gated-delta-net one (qwen35: 669..673 MiB), whatever the context,
 * -np, K/V type, -fa or -ub: the parts that grow with the batch (MMQ's
 * quantized activations, ggml-cuda/mmq.cu; flash attention's F16 copy
 * of a quantized K/V, ggml-cuda/fattn-common.cuh) come from the pool
 * (ggml-cuda.cu ggml_cuda_pool_vmm, 2 MiB granules kept for reuse) and
 * stayed within 8 MiB over the grid. Of that, 527 MiB is the CUDA
 * context (nvidia-smi right after ggml_cuda_init, before any buffer;
 * llama_prepare_model_devices' free figure 80552 of 81079 MiB), which
 * the device reservation (560 MiB, gpuspec.h) covers. The rest: the
 * cuBLAS handle and its workspace (ggml-cuda.cu cublas_handle, created
 * per device on the first matrix product), the kernels loaded on first
 * use (CUDA_MODULE_LOADING lazy by default), the pool and the CUDA
 * graph of the decode step (ggml_backend_cuda_graph_compute).
 *
 * The constant below is the largest measured unaccounted minus the
 * measured context, rounded up to whole MiB (605 - 527 = 78 -> 80;
 * 673 - 527 = 146 -> 150): deterministic on that device and build to
 * 8 MiB. Another GPU, driver or CUDA version has another context size;
 * the reservation, not this constant, carries that difference.
 */
#include "fit/fit_cuda.h"

#include <string.h>

#define MIB ((uint64_t)1 << 20)

/* Architectures whose recurrent layers run llama.cpp's gated delta net
 * (ggml-cuda gated_delta_net / ssm kernels with their own pool
 * scratch): 146 MiB measured over the context (qwen35). */
static int
gated_delta_net(const char *arch)
{
	static const char *const names[] = { "qwen35", "qwen35moe",
					     "qwen3next" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(arch, names[i]) == 0)
			return 1;
	return 0;
}

uint64_t
qa_fit_cuda_runtime_bytes(const char *arch_raw)
{
	if (arch_raw && gated_delta_net(arch_raw))
		return 150 * MIB;
	return 80 * MIB;
}
