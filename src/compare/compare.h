/* SPDX-License-Identifier: MIT */
/*
 * `quantaudit compare QUANT SOURCE`: how far each tensor of a quant is
 * from the model it was made from, from the files alone.
 *
 * Tensors are paired as diff pairs them (by name, else by role and
 * layer: a GGUF against its Hugging Face checkpoint). Both sides are
 * dequantized to float32 (src/dequant/) a row range at a time, their
 * shapes reconciled (GGUF's reversed dimensions; the rows of attn_q and
 * attn_k that llama.cpp's converter permutes for the llama family,
 * convert_hf_to_gguf.py LlamaModel.permute), and per tensor: relative
 * RMS error ||q - s|| / ||s||, maximum absolute error and where, cosine
 * similarity, the share of outliers (elements whose error exceeds the RMS
 * of their source row) and the worst quantization block. Totals per
 * component (role) and per layer. A tensor whose error is out of line
 * with its type (several times the median of the tensors of its type, or
 * one block far worse than the rest of its tensor: a broken block, a
 * scale that saturated) is flagged.
 *
 * --jobs threads take the next tensor pair; each holds one row range of
 * both tensors at a time, so memory is bounded by jobs x chunk whatever
 * the model's size.
 */
#ifndef QA_COMPARE_COMPARE_H
#define QA_COMPARE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"

enum qa_cmp_state {
	QA_CMP_COMPARED,
	QA_CMP_UNPAIRED,	/* no partner in the other model */
	QA_CMP_NO_DEQUANT,	/* a type or scheme without a dequantizer */
	QA_CMP_SHAPE,		/* shapes that do not reconcile */
	QA_CMP_READ_ERROR,	/* a read failed or fell short */
};

struct qa_cmp_tensor {
	const struct qa_tensor *q, *s;	/* s NULL when unpaired */
	enum qa_cmp_state state;
	const char *why;		/* static text for a state other than
					 * compared */
	bool permuted;			/* llama.cpp's Q/K row order undone */
	uint64_t n;			/* elements compared (finite) */
	uint64_t nonfinite;		/* elements NaN or infinite on a side */
	double rel_rms;			/* ||q - s|| / ||s|| */
	double rms_err;			/* RMS of q - s */
	double max_abs;			/* largest |q - s| */
	uint64_t max_at;		/* its element (flat, GGUF order) */
	double cosine;
	double outlier_share;
	uint64_t worst_block;		/* the block (flat index, quant's
					 * type) with the largest error */
	double worst_block_ratio;	/* its RMS error / the tensor's */
	bool flagged;
	const char *flag_why;		/* static text */
	uint64_t content_q, content_s;	/* the tensor's fingerprints */
	/* sums, for the totals */
	double sse, sss, sqq, dot;
	uint64_t outliers;
};

struct qa_cmp_total {
	const char *name;		/* role name or "layer N" */
	int32_t layer;			/* -1 for a role total */
	uint32_t tensors;
	double sse, sss, rel_rms;
	double max_rel_rms;		/* worst tensor */
};

struct qa_compare_options {
	unsigned jobs;			/* threads; 0: one per online CPU */
	double flag_factor;		/* x median of its type; 0: 4 */
	double block_factor;		/* worst block x tensor; 0: 32 */
};

struct qa_compare {
	const struct qa_inventory *q, *s;
	bool by_role;
	struct qa_cmp_tensor *tensors;	/* one per tensor of q */
	uint32_t n_tensors;
	uint32_t compared, flagged, not_compared;
	uint64_t bytes_read;		/* of both models */
	struct qa_cmp_total *roles, *layers;
	uint32_t n_roles, n_layers;
	double rel_rms;			/* whole model */
	/*
	 * Identity: each model's content fingerprint, from the dequantized
	 * values in the source's order and the shapes (names, file order,
	 * sharding and container left out), when every tensor of both was
	 * compared; same_content: equal, "the same model in other bytes".
	 */
	bool fingerprinted, same_content;
	uint64_t fingerprint_q, fingerprint_s;
};

/*
 * Compares quant q with source s. Returns QA_OK (per-tensor problems are
 * states) or QA_E_NOMEM. Free with qa_compare_free.
 */
int qa_compare_run(const struct qa_inventory *q, const struct qa_inventory *s,
		   const struct qa_compare_options *opt,
		   struct qa_compare *out);
void qa_compare_free(struct qa_compare *c);

const char *qa_cmp_state_name(enum qa_cmp_state s);

#endif /* QA_COMPARE_COMPARE_H */
