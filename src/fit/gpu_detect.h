/* SPDX-License-Identifier: MIT */
/*
 * --gpus auto: this machine's GPUs and their free memory, read without
 * linking any vendor library. The first source that answers wins:
 *
 *   1. NVML (libnvidia-ml.so.1), loaded with dlopen when the driver has
 *      installed it: total and free memory, name, compute capability;
 *   2. nvidia-smi --query-gpu=... --format=csv,noheader,nounits, run
 *      without a shell (found on PATH), bounded in time and output;
 *   3. the kernel's sysfs for AMD GPUs: /sys/class/drm/cardN/device with
 *      vendor 0x1002, mem_info_vram_total and mem_info_vram_used.
 *
 * Each device's usable memory is what its source reports free now, less
 * the CUDA context the engine will create (QA_GPU_CONTEXT_RESERVE): the
 * free figure is read before that context exists. A device whose name
 * matches a profile of rules/gpus.def takes that profile's bandwidth (and
 * its compute capability where the source gives none).
 *
 * This is the one place of the fit layer that reads the host rather than
 * a model; it is reached only through qa_gpuspec_parse("auto").
 */
#ifndef QA_SRC_GPU_DETECT_H
#define QA_SRC_GPU_DETECT_H

#include <stddef.h>

#include "fit/gpuspec.h"

/* A CUDA context as created since CUDA 11.7's lazy loading: about
 * 300 MiB (pytorch/pytorch#107667 measures it; InvokeAI#9413 saw 256 MiB
 * on two RTX 3090). llama.cpp's --fit reads the free memory after its
 * context exists, so a free figure read before must lose it. */
#define QA_GPU_CONTEXT_RESERVE ((uint64_t)300 << 20)

struct qa_gpu_detected {
	struct qa_gpu_set set;
	const char *source;		/* "NVML", "nvidia-smi", "sysfs" */
	char names[QA_GPU_MAX][64];	/* as the source names each device */
	uint64_t free_bytes[QA_GPU_MAX];	/* as reported, before the
						 * context reserve */
};

/*
 * Fills out from the first source that finds a device. Returns 0, or -1
 * with a one-line message in why naming every source tried. The answer
 * is kept for the process: a run that parses "auto" more than once sees
 * one machine.
 *
 * Test hooks (documented in docs/fit.md): QA_NVIDIA_SMI names the
 * nvidia-smi program, QA_SYSFS_ROOT the folder that stands for /sys,
 * QA_NVML_LIB the NVML library file; each source can be left out with
 * the value "off".
 */
int qa_gpu_detect(const struct qa_gpu_detected **out, char *why,
		  size_t whylen);

/* Parses nvidia-smi's CSV lines (index, name, memory.total, memory.free,
 * compute_cap; MiB, no units) into d. Returns the device count, or -1
 * with why. Exposed for the unit test. */
int qa_gpu_parse_smi(const char *text, size_t len,
		     struct qa_gpu_detected *d, char *why, size_t whylen);

#endif /* QA_SRC_GPU_DETECT_H */
