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

#include "fit/gpuspec.h"

struct qa_inventory;

/*
 * Most blocks a model may have for either fit: llama.cpp refuses more
 * than LLAMA_MAX_LAYERS = 512 (src/llama-hparams.h); the largest real
 * models have under 200. The bound keeps a hostile block_count (the
 * fuzzer found 50 million) from driving per-layer loops and the context
 * search for seconds.
 */
#define QA_FIT_MAX_LAYERS 512

enum qa_engine {
	QA_ENGINE_LLAMACPP,
	QA_ENGINE_VLLM,
	QA_ENGINE_SGLANG,
	QA_ENGINE_TRTLLM,	/* knowledge only: no memory model */
	QA_ENGINE_MLX_LM,	/* weights + KV only (src/fit/fit_mlx.c) */
	QA_ENGINE_EXLLAMA,	/* ExLlamaV2 / V3 by the folder's format:
				 * weights + KV only (fit_exllama.c) */
};

/* vLLM --model-impl (vllm/config/model.py ModelImpl): which
 * implementation serves the architecture. */
enum qa_model_impl {
	QA_MODEL_IMPL_AUTO = 0,		/* native if registered, else the
					 * Transformers backend */
	QA_MODEL_IMPL_NATIVE,		/* "vllm" */
	QA_MODEL_IMPL_TRANSFORMERS,	/* "transformers" */
};

/* Bits of qa_fit_options.given: what the user set explicitly, so the
 * engine-dependent checks and defaults know what was chosen. */
/* --lora given at most this many times (llama.cpp takes any number) */
#define QA_FIT_MAX_LORA 8

#define QA_FIT_GIVEN_ENGINE	0x001u
#define QA_FIT_GIVEN_KV		0x002u	/* --kv: K and V */
#define QA_FIT_GIVEN_KV_K	0x004u
#define QA_FIT_GIVEN_KV_V	0x008u
#define QA_FIT_GIVEN_TS		0x010u
#define QA_FIT_GIVEN_UBATCH	0x020u
#define QA_FIT_GIVEN_FA		0x040u
#define QA_FIT_GIVEN_GPUS	0x080u
#define QA_FIT_GIVEN_MARGIN	0x100u
#define QA_FIT_GIVEN_CTX	0x200u
/* Serving knobs of vLLM and SGLang (added with the SGLang model). */
#define QA_FIT_GIVEN_GMU	0x400u	/* --gpu-memory-utilization */
#define QA_FIT_GIVEN_MNBT	0x800u	/* --max-num-batched-tokens */
#define QA_FIT_GIVEN_PP		0x1000u	/* --pp */
#define QA_FIT_GIVEN_EAGER	0x2000u	/* --enforce-eager */
#define QA_FIT_GIVEN_SPEC	0x4000u	/* --num-speculative-tokens */
#define QA_FIT_GIVEN_IMPL	0x8000u	/* --model-impl */
#define QA_FIT_GIVEN_MFS	0x10000u	/* --mem-fraction-static */
#define QA_FIT_GIVEN_CPS	0x20000u	/* --chunked-prefill-size */
#define QA_FIT_GIVEN_TP		0x40000u	/* --tp */
#define QA_FIT_GIVEN_MTP	0x80000u	/* --mtp */

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
	bool mtp;			/* MTP speculative decoding: llama.cpp
					 * --spec-type mtp (nextn weights, a
					 * draft context), vLLM's MTP draft */
	bool kv_unified;		/* llama.cpp --kv-unified */
	double gpu_memory_utilization;	/* vLLM; 0 = 0.92 */
	int tp;				/* vLLM tensor parallel; 0 = #GPUs */
	/* vLLM profiled quantities (memory-models.md §2.1, §2.6-2.7),
	 * per GPU; 0 = the built-in estimate. Tests and users who measured
	 * their own setup set them so the budget reproduces exactly.
	 * (Added for the vLLM model; additive.) */
	uint64_t vllm_activation_bytes;	/* P: torch peak of profile_run */
	uint64_t vllm_nontorch_bytes;	/* N: non-torch growth */
	uint64_t vllm_cudagraph_bytes;	/* G: CUDA graph capture */
	/* Serving knobs of vLLM and SGLang (added with the SGLang model;
	 * additive): 0 / false = the engine's default. docs/fit.md. */
	int max_num_batched_tokens;	/* vLLM --max-num-batched-tokens:
					 * the profile run's token count */
	int pp;				/* vLLM -pp: pipeline stages */
	bool enforce_eager;		/* vLLM --enforce-eager, SGLang
					 * --disable-cuda-graph: no graphs */
	int num_speculative_tokens;	/* MTP draft tokens per step
					 * (implies mtp); 0 = none, or the
					 * model's MTP layers with mtp */
	enum qa_model_impl model_impl;	/* vLLM --model-impl */
	double mem_fraction_static;	/* SGLang; 0 = by GPU size and TP */
	int chunked_prefill_size;	/* SGLang; 0 = by GPU size */
	int max_loras, max_lora_rank;	/* vLLM LoRA slots; 0 = no LoRA
					 * (either given enables it) */
	unsigned given;			/* QA_FIT_GIVEN_* */
	size_t n_tensor_split;		/* values given to --tensor-split */
	/* A speculative draft model beside the target (llama.cpp -md;
	 * added with the pair fit, src/fit/fit_extras.c; additive). */
	const char *draft_path;		/* --draft FILE; NULL none */
	const struct qa_inventory *draft;	/* loaded by the pipeline */
	int64_t ctx_draft;		/* --ctx-draft; 0 = as llama.cpp:
					 * the -c value, or the draft's
					 * trained context when -c is 0 */
	const char *kv_draft;		/* --kv-draft (-ctkd/-ctvd); NULL
					 * f16 (common/common.h l.340) */
	/* LoRA adapters on the target (llama.cpp --lora, repeatable;
	 * added with the target's placement, src/fit/fit_extras.c) */
	const char *lora_paths[QA_FIT_MAX_LORA];	/* --lora FILE */
	unsigned n_lora;
	const struct qa_inventory *loras[QA_FIT_MAX_LORA];	/* loaded by
								 * the pipeline */
	int n_outputs_max;		/* llama.cpp cparams.n_outputs_max;
					 * 0 = n_batch (the draft context
					 * uses -np: speculative.cpp
					 * l.2294) */
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
	uint64_t compute_tight_bytes;	/* llama.cpp: the closed form without
					 * the placement term G; 0 when not
					 * computed */
	uint64_t overhead_bytes;	/* margin, CUDA pool, non-torch */
	uint64_t runtime_bytes;		/* llama.cpp on a GPU: the CUDA
					 * runtime beyond the reservation
					 * (fit_cuda.h), inside the margin;
					 * 0 otherwise */
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
	/* With speculative decoding through the MTP head (--mtp on): the
	 * same bound for n draft tokens per step at the expected accepted
	 * tokens per verification pass (src/fit/decode.h); 0 when not
	 * computed. */
	double decode_tokens_per_s_mtp;
	double mtp_tokens_per_pass;
	int mtp_draft_tokens;
	const char *mtp_acceptance_source;
	const char *verdict;		/* "fits", "tight", "does-not-fit" */
	const char *formula;		/* one line naming the model used */
	const char *notes[12];		/* caveats: non-deterministic parts,
					 * engine refusals (e.g. q4_0 K with
					 * head dim 16) */
	size_t n_notes;
	struct qa_fit_options options;	/* what the numbers were computed
					 * for (set by qa_fit_run) */
	/* llama.cpp: the placement the fit chose when the default split
	 * did not fit (chosen false otherwise), as --fit would: layers per
	 * device (-ts), and when nothing fits on the GPUs alone, layers
	 * (-ngl) or experts (--n-cpu-moe) kept in host RAM. */
	struct qa_fit_placement {
		bool chosen;
		bool partial;		/* part of the model on the host */
		double tensor_split[QA_GPU_MAX];	/* layers per device */
		int64_t n_gpu_layers;	/* -ngl; -1 all */
		int64_t n_cpu_moe;	/* --n-cpu-moe; 0 none */
		uint64_t host_cache_bytes;	/* KV and state of host layers */
		/* With partial: how much more the default all-GPU split
		 * needs than the GPUs' usable memory together, or, when
		 * that is enough but no split of whole layers fits, how
		 * much more shortfall_device needs in the split --fit
		 * tries first. */
		uint64_t gpu_shortfall_bytes;
		int32_t shortfall_device;	/* -1: the GPUs together */
	} placement;
	/* With --draft (llama.cpp -md): the draft model's share per
	 * device, already counted in devices[] above, its compatibility
	 * with the target (common/speculative.cpp
	 * common_speculative_are_compatible) and the decode bound with it.
	 * src/fit/fit_extras.c. */
	struct qa_fit_pair {
		bool present;
		const char *method;		/* "draft_model" (llama.cpp
						 * -md), "eagle3" (vLLM) */
		const char *path;		/* arena copy */
		int64_t context;		/* the draft context's n_ctx */
		const char *kv_type;		/* its K = V type */
		int n_draft;			/* --spec-draft-n-max */
		int64_t n_outputs_max;		/* the draft context's */
		int64_t target_n_outputs_max;	/* llama-server's target */
		uint64_t target_output_host_bytes;	/* verification
							 * logits, host */
		struct qa_fit_pair_dev {
			uint64_t weights_bytes, kv_bytes, recurrent_bytes,
				 compute_bytes;
		} devices[QA_GPU_MAX];
		uint64_t host_bytes;		/* draft token_embd */
		bool compatible;
		const char *incompatible;	/* llama.cpp's reason */
		double tokens_per_pass;		/* 1 + sum a_i */
		const char *acceptance_source;
		double decode_tokens_per_s_max;	/* 0 unknown */
	} draft;
	/* With --lora (llama.cpp --lora): the adapter's tensors on the
	 * device of the base tensor each one adapts (src/llama-adapter.cpp
	 * llama_adapter_lora_init_impl), already counted in devices[]. */
	struct qa_fit_lora {
		bool present;
		const char *path;		/* the first adapter's */
		uint64_t device_bytes[QA_GPU_MAX];	/* all adapters */
		uint64_t host_bytes;		/* beside host-held bases */
		uint32_t pairs;			/* lora_a/lora_b pairs */
		unsigned n_adapters;		/* each --lora, in order */
		struct qa_fit_lora_one {
			const char *path;	/* arena copy */
			uint32_t pairs;
			uint64_t device_bytes[QA_GPU_MAX];
			uint64_t host_bytes;
		} adapters[QA_FIT_MAX_LORA];
	} lora;
	/* What to change so it fits (src/fit/fit_advice.c): with a
	 * does-not-fit or tight verdict, each change of the engine's own
	 * flags that alone makes it fit, with the numbers it gives, the
	 * smallest change first. */
	struct qa_fit_advice {
		const char *flags;	/* the engine's flags: "-c 65536" */
		const char *what;	/* what it gives up, in words */
		const char *verdict;	/* "fits" or "tight" */
		int64_t context;
		const char *kv_type_k, *kv_type_v;
		uint64_t kv_bytes;	/* totals of that fit */
		int64_t min_free_bytes;	/* on the fullest device */
		/* the options of that fit, as quantaudit's own: */
		int64_t opt_ctx;	/* --ctx, 0 unchanged */
		const char *opt_kv;	/* --kv, NULL unchanged */
		int opt_parallel;	/* --parallel, 0 unchanged */
		bool opt_eager;		/* --enforce-eager */
	} advice[6];
	size_t n_advice;
};

/*
 * Computes the fit of inv under opt. Returns 0 with *out filled
 * (arena-owned strings), or -1 with a one-line reason in err (e.g. no
 * hyperparameters to size the KV cache from).
 */
/* Runs the model of opt->engine (fit_run.c); 0, or -1 with err. */
int qa_fit_engine_run(const struct qa_inventory *inv,
		      const struct qa_fit_options *opt,
		      struct qa_fit_result *out, char *err, size_t errlen);

/* Fills r->advice for a result that does not fit or is tight, by
 * running the engine's model (run: qa_fit_engine_run) on changed
 * options (fit_advice.c). */
typedef int (*qa_fit_engine_fn)(const struct qa_inventory *inv,
				const struct qa_fit_options *opt,
				struct qa_fit_result *out, char *err,
				size_t errlen);
void qa_fit_advise(struct qa_inventory *inv, const struct qa_fit_options *opt,
		   struct qa_fit_result *r, qa_fit_engine_fn run);

int qa_fit_llamacpp(const struct qa_inventory *inv,
		    const struct qa_fit_options *opt,
		    struct qa_fit_result *out, char *err, size_t errlen);
/* vLLM's --max-lora-rank values: the smallest at or above r, 0 above
 * the largest (src/fit/fit_vllm.c). */
int qa_vllm_lora_rank_at_least(int64_t r);
int qa_fit_vllm(const struct qa_inventory *inv,
		const struct qa_fit_options *opt,
		struct qa_fit_result *out, char *err, size_t errlen);
int qa_fit_sglang(const struct qa_inventory *inv,
		  const struct qa_fit_options *opt,
		  struct qa_fit_result *out, char *err, size_t errlen);
int qa_fit_mlx(const struct qa_inventory *inv,
	       const struct qa_fit_options *opt,
	       struct qa_fit_result *out, char *err, size_t errlen);
int qa_fit_exllama(const struct qa_inventory *inv,
		   const struct qa_fit_options *opt,
		   struct qa_fit_result *out, char *err, size_t errlen);

/* llama.cpp margin per device: --fit keeps 1024 MiB free
 * (common/common.h fit_params_target; memory-models.md section 4). */
#define QA_FIT_DEFAULT_MARGIN ((uint64_t)1024 << 20)

/* Options with the defaults of both engines (auto flash attention, the
 * default margin, the trained context). */
void qa_fit_options_init(struct qa_fit_options *opt);

/* The engine a model is served with when the user names none: llama.cpp
 * for GGUF (a file, a split set, a folder of GGUFs), vLLM for
 * safetensors checkpoints (SGLang only when named). */
enum qa_engine qa_fit_default_engine(const struct qa_inventory *inv);

/* "llama.cpp", "vllm", "sglang", "tensorrt-llm", "mlx-lm" or
 * "exllama". */
const char *qa_fit_engine_name(enum qa_engine e);

/*
 * Checks the options that depend on the engine (KV-cache types each
 * engine accepts, llama.cpp-only flags under vLLM). Returns 0, or -1 with
 * a one-line message in err: a usage error.
 */
int qa_fit_validate(const struct qa_fit_options *opt, char *err,
		    size_t errlen);

/*
 * Runs the engine model of opt->engine on inv and stores the result, with
 * a copy of the options, in inv->fit (arena-owned). Returns 0, or -1 with
 * a one-line reason in err (the model cannot be sized).
 */
int qa_fit_run(struct qa_inventory *inv, const struct qa_fit_options *opt,
	       char *err, size_t errlen);

/*
 * llama.cpp details behind a qa_fit_llamacpp() result (added for the
 * llama.cpp model and its tests; additive to the contract above): the
 * KV cache split by K/V and by base/SWA cache, the recurrent R/S state,
 * the compute buffer parts, and an engine refusal if any.
 */
struct qa_fit_llamacpp_detail {
	int64_t n_ctx, n_ctx_seq, n_stream;	/* after section 1.1 */
	int64_t cells_base, cells_swa;		/* per stream; 0 = no cache */
	uint32_t layers_base, layers_swa, layers_recurrent;
	uint64_t k_base, v_base, k_swa, v_swa;	/* bytes, all devices */
	uint64_t r_bytes, s_bytes;		/* recurrent state */
	uint64_t rs_rows;			/* N of section 1.5 */
	uint64_t compute_host_input;		/* inp_embd, 4 n_tok E_inp: in the
						 * device compute (CPU), maybe
						 * CUDA_Host on CUDA */
	uint64_t compute_host_cuda;		/* with a GPU backend, the
						 * CUDA_Host compute buffer:
						 * inp_embd, the small inputs
						 * and the masks, built on the
						 * host and copied over */
	uint64_t output_host;			/* output buffer, host */
	int64_t n_tok, n_out;			/* worst-case reserve tokens and
						 * outputs (graph_reserve) */
	uint32_t layers_nextn;			/* nextn blocks with main KV */
	uint32_t layers_draft;			/* MTP draft context KV layers */
	uint64_t k_draft, v_draft;		/* its KV bytes */
	uint64_t compute_draft;			/* its compute buffer */
	uint32_t n_rs_seq;			/* recurrent rollback rows */
	bool unified;				/* kv_unified */
	bool flash_attn;			/* after auto */
	char refusal[160];			/* "" or the engine's message */
};

/* qa_fit_llamacpp() that also fills *detail (may be NULL). */
int qa_fit_llamacpp_ex(const struct qa_inventory *inv,
		       const struct qa_fit_options *opt,
		       struct qa_fit_result *out,
		       struct qa_fit_llamacpp_detail *detail, char *err,
		       size_t errlen);

/*
 * What a llama.cpp verbose log (llama-completion/-cli -v) says about
 * memory: the command line of its first line ("# cmd: ..."), and of the
 * last load in the log (the --fit dry run loads twice) the KV cache
 * lines, the recurrent state, compute and model buffers, the memory
 * breakdown rows, and the failure message. Sizes are MiB as printed.
 */
#define QA_LLAMACPP_LOG_ROWS 8
struct qa_llamacpp_log {
	char model[512];		/* -m argument */
	int64_t ctx;			/* -c; -1 absent */
	char ctk[16], ctv[16];		/* -ctk / -ctv; "" absent (f16) */
	int fa;				/* -fa: -1 auto or absent, 0, 1 */
	int np;				/* -np; 0 absent */
	int ub;				/* -ub; 0 absent */
	int kvu;			/* -kvu or the log's kv_unified; -1
					 * absent */
	int rc;				/* "# rc=N"; -1 absent */
	size_t n_kv;			/* llama_kv_cache size lines */
	struct qa_llamacpp_log_kv {
		double mib, k_mib, v_mib;
		int64_t cells;
		int layers, seqs;
		char k_type[16], v_type[16];
	} kv[QA_LLAMACPP_LOG_ROWS];
	bool has_rs;			/* llama_memory_recurrent line */
	double rs_mib, r_mib, s_mib;
	size_t n_compute, n_model;
	struct qa_llamacpp_log_buf {
		char dev[32];		/* "CPU", "CUDA0", "CUDA_Host" */
		double mib;
	} compute[QA_LLAMACPP_LOG_ROWS], model_buf[QA_LLAMACPP_LOG_ROWS];
	size_t n_breakdown;
	struct qa_llamacpp_log_row {
		char dev[48];		/* "Host", "CUDA0 (RTX ...)" */
		double total, free, self, model, context, compute,
		       unaccounted;	/* -1 where the row has no value */
	} breakdown[QA_LLAMACPP_LOG_ROWS];
	char failure[256];		/* first error line, "" if none */
	double eval_tps;		/* common_perf_print "eval time" tokens
					 * per second; -1 absent */
	double smi_peak_mib;		/* "# nvidia-smi peak" (CUDA runs of
					 * tools/llamacpp-cuda); -1 absent */
};

/*
 * Parses the llama.cpp log at path into *out. Returns 0, or -1 with a
 * one-line reason in err (unreadable file, no "# cmd:" line).
 */
int qa_fit_parse_llamacpp_log(const char *path, struct qa_llamacpp_log *out,
			      char *err, size_t errlen);

/*
 * The estimate of inv under the settings of a llama.cpp log (--calibrate
 * LOG): the log's context, KV types, flash attention, -np and -ub unless
 * opt already gives them (opt->given), one CPU device when no GPUs were
 * given. Fills *r and *det; returns 0 or -1 with err.
 * src/fit/fit_run.c
 */
int qa_fit_calibrate(const struct qa_inventory *inv,
		     struct qa_fit_options *opt,
		     const struct qa_llamacpp_log *lg, struct qa_fit_result *r,
		     struct qa_fit_llamacpp_detail *det, char *err,
		     size_t errlen);

/*
 * The draft of a speculative pair (opt->draft, llama.cpp -md) sized as
 * llama.cpp makes its context (common/speculative.cpp
 * common_base_params_to_speculative) on the devices left after the
 * target in *r, added to r's devices, verdict and notes (arena strings
 * from target->arena). Returns 0, or -1 with err. src/fit/fit_extras.c
 */
int qa_fit_pair_llamacpp(struct qa_inventory *target,
			 const struct qa_fit_options *opt,
			 struct qa_fit_result *r, char *err, size_t errlen);

/*
 * A LoRA adapter (opt->lora, llama.cpp --lora) on the target's placement
 * in *r: each lora_a / lora_b tensor in the buffer of the base tensor it
 * adapts (the device holding that layer, the host for token_embd and
 * host-offloaded layers), padded to the buffer's alignment, added to r's
 * devices and verdict. Returns 0, or -1 with err. src/fit/fit_extras.c
 */
int qa_fit_lora_llamacpp(struct qa_inventory *target,
			 const struct qa_fit_options *opt,
			 struct qa_fit_result *r, char *err, size_t errlen);

#endif /* QA_SRC_FIT_H */
