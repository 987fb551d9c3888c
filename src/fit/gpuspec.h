/* SPDX-License-Identifier: MIT */
/*
 * GPU profiles and the --gpus SPEC parser.
 *
 * The profiles are data (rules/gpus.def). A SPEC names the devices a model
 * is meant to run on, in the forms DESIGN.md gives:
 *
 *   2x16G               two devices of 16 GiB
 *   16G,24G             a 16 GiB and a 24 GiB device ("+" works as well)
 *   24GiB, 15888M       sizes: G/GB/GiB = 2^30 bytes, M/MB/MiB = 2^20,
 *                       T/TB/TiB = 2^40; whole numbers only
 *   rtx-5060-ti:2       two devices of a profile (also 2xrtx-5060-ti)
 *   rtx-4090+rtx-3090   profiles mixed, and with sizes
 *   none                host memory only: no device
 *   unified:128G        one unified-memory device (Apple-style)
 *   2x16G+rpc:24G       llama.cpp --rpc: a device of another host behind an
 *                       rpc-server, as any item above after "rpc:"
 *                       (rpc:rtx-3090, rpc:2x24G); such devices come
 *                       first in the device order, as llama.cpp puts
 *                       them (src/llama.cpp: "add RPC servers at the
 *                       front of the list to minimize network
 *                       transfers"; PR #9296), so -ts and the layer
 *                       split index them first and the output layer
 *                       stays on a local device
 *   auto                this machine's GPUs and their free memory now
 *                       (gpu_detect.h: NVML, nvidia-smi, AMD sysfs)
 *
 * Bare G is GiB on purpose: GPU memory is sold in binary units, so a
 * "16 GB" card has 16 GiB of VRAM; reading "16G" as 16e9 bytes would lose
 * 1.1 GB per device. Profile names are case-insensitive and ignore '-',
 * '_', '.' and spaces ("RTX5060Ti" = "rtx-5060-ti"); aliases such as
 * "5060ti" are listed in rules/gpus.def.
 */
#ifndef QA_SRC_GPUSPEC_H
#define QA_SRC_GPUSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QA_GPU_MAX 16

/* Profile flags. */
#define QA_GPU_FP8 0x1u		/* FP8 tensor cores */
#define QA_GPU_FP4 0x2u		/* FP4 tensor cores (Blackwell) */
#define QA_GPU_UNIFIED 0x4u	/* memory shared with the CPU */
#define QA_GPU_RPC 0x8u		/* a device of another host, llama.cpp
				 * --rpc (set by the spec, not a profile) */

/*
 * Memory a CUDA device loses before any model loads when its profile has
 * no measured usable figure (and for plain sizes): 560 MiB, the gap
 * between the total and the idle free memory measured on an RTX 5060 Ti
 * (16311 - 15751 MiB, memory-models.md section 4: CUDA context, driver
 * and display). Ollama reserves 457 MiB for the same reason; llama.cpp's
 * --fit keeps a further 1024 MiB free, which is the fit model's margin,
 * not part of this reservation.
 */
#define QA_GPU_DEFAULT_RESERVE ((uint64_t)560 << 20)
/* Unified memory: Ollama's Metal reserve (ml/device.go MinimumMemory). */
#define QA_GPU_UNIFIED_RESERVE ((uint64_t)512 << 20)

struct qa_gpu_profile {
	const char *id;			/* "rtx-5060-ti" */
	const char *aliases;		/* space-separated */
	const char *name;		/* display name */
	uint64_t vram_bytes;		/* total as CUDA reports it */
	uint64_t usable_bytes;		/* measured idle free, 0 if unknown */
	uint32_t bandwidth_gbs;		/* GB/s */
	int cc_major, cc_minor;		/* compute capability */
	unsigned flags;			/* QA_GPU_* */
	const char *source;		/* URL */
	const char *as_of;		/* "YYYY-MM" */
	const char *note;		/* how the numbers were checked */
};

struct qa_gpu_device {
	char name[40];			/* profile id, or "16GiB", "unified" */
	const struct qa_gpu_profile *profile;	/* NULL for plain sizes */
	uint64_t vram_bytes;
	uint64_t usable_bytes;		/* after the reservation */
	uint32_t bandwidth_gbs;		/* 0 when unknown */
	int cc_major, cc_minor;		/* -1 when unknown */
	unsigned flags;			/* QA_GPU_* */
};

struct qa_gpu_set {
	struct qa_gpu_device dev[QA_GPU_MAX];
	size_t n;			/* 0 with host_only for "none" */
	bool host_only;
};

/* All profiles in table order; *n receives the count. */
const struct qa_gpu_profile *qa_gpu_profiles(size_t *n);
/* Profile by id or alias (case- and punctuation-insensitive), or NULL. */
const struct qa_gpu_profile *qa_gpu_profile_find(const char *name);
/* The same for name[0..len), which need not be NUL-terminated. */
const struct qa_gpu_profile *qa_gpu_profile_find_n(const char *name,
						   size_t len);

/*
 * Parses a SPEC into out. Returns 0, or -1 with a one-line message in err
 * (out is then unspecified).
 */
int qa_gpuspec_parse(const char *spec, struct qa_gpu_set *out, char *err,
		     size_t errlen);

#endif /* QA_SRC_GPUSPEC_H */
