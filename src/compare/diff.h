/* SPDX-License-Identifier: MIT */
/*
 * `quantaudit diff A B`: what changed between two models — two quant
 * levels of one model, a GGUF and its split form, two shard layouts, or
 * a GGUF and the Hugging Face checkpoint it was converted from.
 *
 * Tensors are paired by name; when fewer than half of the smaller
 * model's names have a partner (a GGUF against safetensors: blk.7.attn_q
 * against model.layers.7.self_attn.q_proj), they are paired by what they
 * are instead — role, layer and the tensor's place among that role's
 * tensors in the layer — which the role table (src/analysis/roles.c)
 * gives both naming schemes. With content hashes (diff --content) a
 * tensor removed under one name and added under another with the same
 * bytes is a rename, and a tensor whose type and shape are unchanged
 * but whose bytes are not is "changed".
 *
 * Components (per role: tensors, parameters, bytes, bits per weight and
 * the types holding them, most bytes first), normalized hyperparameters, GGUF
 * metadata keys, MTP status and the fit (when asked) are compared side
 * by side; a GGUF against a folder also compares how each prompts the
 * model (compare/prompt.h).
 */
#ifndef QA_COMPARE_DIFF_H
#define QA_COMPARE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/inventory.h"
#include "compare/prompt.h"
#include "integrity/content.h"

enum qa_diff_kind {
	QA_D_ADDED,		/* in B only */
	QA_D_REMOVED,		/* in A only */
	QA_D_RETYPED,		/* another dtype (maybe shape and bytes) */
	QA_D_RESHAPED,		/* same dtype, another shape */
	QA_D_CHANGED,		/* same dtype and shape, other bytes
				 * (with content hashes) */
	QA_D_RENAMED,		/* same bytes under another name */
};

struct qa_diff_tensor {
	enum qa_diff_kind kind;
	const struct qa_tensor *a, *b;	/* NULL on the side without it */
};

struct qa_diff_component {
	const char *name;
	const struct qa_component *a, *b;	/* NULL when absent there */
	const char *type_a, *type_b;	/* its types by bytes, most
					 * first: "Q4_K+Q6_K" */
};

/* One differing field or key: text of each side (NULL: absent). */
struct qa_diff_field {
	const char *name;
	const char *a, *b;
};

struct qa_diff {
	struct qa_arena arena;		/* owns the lists */
	const struct qa_inventory *a, *b;
	bool by_role;			/* paired by role and layer */
	bool content;			/* content hashes compared */
	uint32_t paired;		/* tensors with a partner */
	uint32_t same;			/* paired and unchanged */
	uint32_t count[QA_D_RENAMED + 1];
	struct qa_diff_tensor *tensors;	/* the differences, A's order
					 * then B's additions */
	size_t n_tensors;
	struct qa_diff_component *components;
	size_t n_components;
	struct qa_diff_field *hparams;	/* normalized hyperparameters
					 * that differ */
	size_t n_hparams;
	struct qa_diff_field *metadata;	/* GGUF keys that differ (both
					 * GGUF), split.* left out */
	size_t n_metadata;
	bool metadata_compared;
	struct qa_diff_field *config;	/* config.json keys that differ
					 * (both have one): dotted paths,
					 * values as compact JSON */
	size_t n_config;
	bool config_compared;
	/* a GGUF against a folder: templates, special token ids,
	 * base_model (compare/prompt.h) */
	struct qa_prompt_diff prompt;
};

/*
 * Compares a with b. ca, cb: their content hashes (qa_content_hash over
 * qa_content_plan), or both NULL for a header-only diff. Returns QA_OK or
 * QA_E_NOMEM. Free with qa_diff_free (a and b stay the caller's).
 */
int qa_diff_run(const struct qa_inventory *a, const struct qa_inventory *b,
		const struct qa_content *ca, const struct qa_content *cb,
		struct qa_diff *out);
void qa_diff_free(struct qa_diff *d);

struct cJSON;
/*
 * Adds the keys of two config.json documents that differ (every leaf and
 * array by its dotted path, values compared as compact JSON), for models
 * that both have one. QA_OK or QA_E_NOMEM.
 */
int qa_diff_config(struct qa_diff *d, const struct cJSON *a,
		   const struct cJSON *b);

/* Whether anything differs (tensors, hyperparameters, metadata,
 * config keys, a prompt finding). */
bool qa_diff_differs(const struct qa_diff *d);

const char *qa_diff_kind_name(enum qa_diff_kind k);

/*
 * The pairing diff uses, for compare (compare.h): pa[i] the index in b
 * of a's tensor i (or -1), pb the other way; by name, or by role and
 * layer when fewer than half of the smaller model's names pair.
 * Returns the tensors paired; *rc QA_OK or QA_E_NOMEM.
 */
uint32_t qa_diff_pair(const struct qa_inventory *a,
		      const struct qa_inventory *b, int64_t *pa, int64_t *pb,
		      bool *by_role, int *rc);

#endif /* QA_COMPARE_DIFF_H */
