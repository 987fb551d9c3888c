/* SPDX-License-Identifier: MIT */
/*
 * The fit model: per-device memory for an engine (llama.cpp, vLLM) on
 * given GPUs — weights, KV cache, recurrent state, compute or activation
 * buffers, overhead — the verdict, the largest context that fits per KV
 * type, and a bandwidth bound on decode speed. Formulas and their sources:
 * ../shared/knowledge/memory-models.md, documented in docs/fit.md.
 *
 * The result is stored in the inventory's arena (inv->fit) and rendered
 * by the reporters (JSON "fit" object of DESIGN.md).
 */
#ifndef QA_SRC_FIT_H
#define QA_SRC_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuspec.h"

struct qa_inventory;

enum qa_engine {
	QA_ENGINE_LLAMACPP,
	QA_ENGINE_VLLM,
};

struct qa_fit_options {
	enum qa_engine engine;
	struct qa_gpu_set gpus;		/* parsed --gpus */
	int64_t ctx;			/* requested context; 0 = the model's
					 * trained context; -1 = "max": the
					 * largest that fits */
	const char *kv_k;		/* "f16", "q8_0", "q4_0", ...; NULL f16 */
	const char *kv_v;
	int parallel;			/* -np / max_num_seqs; 0 = default */
	int ubatch;			/* -ub; 0 = 512 */
	int batch;			/* -b; 0 = 2048 */
	int flash_attn;			/* -1 auto, 0 off, 1 on */
	double tensor_split[QA_GPU_MAX];	/* -ts; all 0 = by free memory */
	uint64_t margin_bytes;		/* per device; default 1024 MiB
					 * (llama.cpp --fit target) */
	bool mtp;			/* also load the MTP/nextn layers */
	double gpu_memory_utilization;	/* vLLM; 0 = 0.92 */
	int tp;				/* vLLM tensor parallel; 0 = #GPUs */
};

struct qa_fit_device {
	char name[48];
	uint64_t vram_bytes;		/* total as CUDA reports it */
	uint64_t usable_bytes;		/* after driver/context reservation */
	uint64_t weights_bytes;
	uint64_t kv_bytes;
	uint64_t recurrent_bytes;
	uint64_t compute_bytes;		/* llama.cpp compute buffer / vLLM
					 * activation peak + CUDA graphs */
	uint64_t overhead_bytes;	/* margin, CUDA pool, non-torch */
	int64_t free_bytes;		/* usable - everything; may be < 0 */
	int32_t first_layer, last_layer;	/* layers placed here, -1 none */
	bool has_output;		/* output layer on this device */
};

struct qa_fit_result {
	enum qa_engine engine;
	int64_t context;		/* the context the numbers are for */
	const char *kv_type_k, *kv_type_v;
	struct qa_fit_device devices[QA_GPU_MAX];
	size_t n_devices;
	uint64_t host_bytes;		/* weights kept in host RAM
					 * (llama.cpp token_embd) */
	uint64_t totals_weights, totals_kv, totals_recurrent,
		 totals_compute;
	int64_t max_context_f16;	/* largest context that fits per KV
					 * type (capped at the trained one),
					 * -1 when not even the minimum fits */
	int64_t max_context_q8_0;
	int64_t max_context_q4_0;
	double decode_tokens_per_s_max;	/* 0 when bandwidth unknown */
	const char *verdict;		/* "fits", "tight", "does-not-fit" */
	const char *formula;		/* one line naming the model used */
	const char *notes[8];		/* caveats: non-deterministic parts,
					 * engine refusals (e.g. q4_0 K with
					 * head dim 16) */
	size_t n_notes;
};

/*
 * Computes the fit of inv under opt. Returns 0 with *out filled
 * (arena-owned strings), or -1 with a one-line reason in err (e.g. no
 * hyperparameters to size the KV cache from).
 */
int qa_fit_llamacpp(const struct qa_inventory *inv,
		    const struct qa_fit_options *opt,
		    struct qa_fit_result *out, char *err, size_t errlen);
int qa_fit_vllm(const struct qa_inventory *inv,
		const struct qa_fit_options *opt,
		struct qa_fit_result *out, char *err, size_t errlen);

#endif /* QA_SRC_FIT_H */
