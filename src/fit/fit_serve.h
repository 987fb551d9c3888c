/* SPDX-License-Identifier: MIT */
/*
 * What the vLLM and SGLang memory models share (src/fit/fit_vllm.c,
 * src/fit/fit_sglang.c): the bytes of one tensor on one tensor-parallel
 * rank — both engines build their models from the same parallel layer
 * classes (QKVParallelLinear replicates KV heads when TP exceeds them,
 * VocabParallelEmbedding pads the vocabulary to 64 rows) — and the
 * lookup of the input's architecture class in an engine's model
 * registry (rules/engines.def). docs/fit.md describes both.
 */
#ifndef QA_SRC_FIT_SERVE_H
#define QA_SRC_FIT_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qa_inventory;
struct qa_tensor;
struct qa_hparams;
struct qa_gpu_set;
struct qa_fit_options;

/* DEFAULT_VOCAB_PADDING_SIZE: vllm/model_executor/layers/
 * vocab_parallel_embedding.py l.32, sglang/srt/layers/
 * vocab_parallel_embedding.py l.48. */
#define QA_SERVE_VOCAB_PAD 64

/* Tensor-parallel shape of a model, for qa_serve_rank_bytes(). */
struct qa_serve_tp {
	uint64_t tp;
	uint64_t hq, hkv;		/* attention heads, KV heads */
	uint64_t vocab;			/* rows as stored */
	uint64_t vocab_rank;		/* padded rows per rank */
};

/* Fills *w for tp ranks from the hyperparameters. */
void qa_serve_tp_init(struct qa_serve_tp *w, const struct qa_hparams *hp,
		      uint64_t tp);

/*
 * Bytes of tensor t on one rank: column/row-parallel linears and experts
 * split by tp, K/V by min(tp, H_kv), vocabulary rows padded and split,
 * norms, routers and MLA latent projections replicated (docs/fit.md
 * "Weights under tensor parallelism"). Saturates instead of wrapping.
 */
uint64_t qa_serve_rank_bytes(const struct qa_serve_tp *w,
			     const struct qa_tensor *t);

/* How an engine's registry (rules/engines.def) serves an architecture. */
enum qa_serve_arch {
	QA_SERVE_ARCH_UNKNOWN = 0,	/* no class to look up (an unmapped
					 * GGUF architecture) */
	QA_SERVE_ARCH_NATIVE,		/* a class of the engine's own */
	QA_SERVE_ARCH_TRANSFORMERS,	/* listed for its Transformers
					 * modeling backend */
	QA_SERVE_ARCH_ABSENT,		/* not registered: the engine falls
					 * back to Transformers if it can */
};

/*
 * Looks the input's config.json class (or, for GGUF, the class its
 * architecture maps to in rules/engines.def QA_ARCH_NAME) up among the
 * engine's QA_ENGINE_ARCH rows ("vllm", "sglang"). *cls gets the class
 * name looked up, or NULL.
 */
enum qa_serve_arch qa_serve_arch_support(const char *engine,
					 const struct qa_inventory *inv,
					 const char **cls);

/* ---- shared by the serving models (fit_vllm.c, fit_sglang.c) ------- */

struct qa_fit_result;
struct qa_arena;

/* Where a model's notes go (the result), and its arena for the text. */
struct qa_fit_notes {
	struct qa_fit_result *out;
	struct qa_arena *arena;
};

/* Adds note s to the result (dropped when NULL or the list is full). */
void qa_fit_note(struct qa_fit_notes *nb, const char *s);

/*
 * What a serving engine's fit was called with, and where its notes go:
 * the first member of each engine's plan (fit_vllm.c, fit_sglang.c).
 * Lifecycle: borrows the caller's inventory, options, result and message
 * buffer for the call; arena is the inventory's.
 */
struct qa_serve_call {
	const struct qa_inventory *inv;
	const struct qa_fit_options *opt;
	struct qa_fit_result *out;
	char *err;			/* the caller's message buffer */
	size_t errlen;
	struct qa_arena *arena;		/* the inventory's */
	const struct qa_hparams *hp;
	struct qa_fit_notes nb;
};

/* Fills *c, and clears out for engine (enum qa_engine). */
void qa_serve_call_init(struct qa_serve_call *c,
			const struct qa_inventory *inv,
			const struct qa_fit_options *opt,
			struct qa_fit_result *out, int engine, char *err,
			size_t errlen);

/*
 * The one device of a weights-and-KV model (mlx-lm, exllama): out reset
 * for engine, its device from opt's first GPU holding all n_layer layers
 * and the output, with weights w, KV kv, compute compute and opt's
 * margin; its free bytes, the totals and the verdict ("tight" under 5 %
 * of the usable memory free). *room gets what is left for KV once the
 * weights and the margin are in.
 */
void qa_fit_single_device(struct qa_fit_result *out, int engine,
			  const struct qa_fit_options *opt, int64_t n_layer,
			  uint64_t w, uint64_t kv, uint64_t compute,
			  uint64_t *room);

/*
 * For the models that size only the standard K/V cache (mlx-lm,
 * exllama): -1 with err saying so when hp has MLA attention or any layer
 * that is not full attention (sliding-window, recurrent); 0 otherwise.
 * engine names the model in the message, cache what it sizes.
 */
int qa_fit_require_full_attention(const struct qa_hparams *hp,
				  const char *engine, const char *cache,
				  char *err, size_t errlen);

/*
 * The preamble every serving engine's fit shares: at least one GPU,
 * the hyperparameters the KV sizing needs (layers, hidden size), and no
 * more blocks than QA_FIT_MAX_LAYERS. engine names the engine in the
 * message ("vLLM"), pool what is sized ("KV cache"). Returns 0, or -1
 * with the reason in err.
 */
int qa_serve_check_inputs(const struct qa_hparams *hp,
			  const struct qa_gpu_set *gpus, const char *engine,
			  const char *pool, char *err, size_t errlen);

/* ASCII case-insensitive equality (config values such as "auto"). */
bool qa_ascii_ieq(const char *a, const char *b);

#endif /* QA_SRC_FIT_SERVE_H */
