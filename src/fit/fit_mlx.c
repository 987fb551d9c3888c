/* SPDX-License-Identifier: MIT */
/*
 * The mlx-lm memory model, deliberately small: the weights as stored
 * (mlx-lm loads the safetensors files as they are, packed weights,
 * scales and biases included: mlx_lm/utils.py load_model) plus the KV
 * cache of one sequence, on one device of unified memory. Nothing else
 * is estimated, and the notes say so.
 *
 * KV cache: mlx_lm/models/cache.py (ml-explore/mlx-lm d78bf58e)
 *   KVCache (l.325-353): per layer, keys [B, H_kv, S, D_k] and values
 *   [B, H_kv, S, D_v] in the dtype of the activations, S grown in steps
 *   of 256 tokens (step = 256, l.326; n_steps l.338).
 *   QuantizedKVCache (l.232-262, --kv-bits with --kv-group-size 64):
 *   per row D * bits / 32 uint32 words plus a scale and a bias per group
 *   of 64 in the activations' dtype.
 * Only full-attention layers with a standard KVCache are modelled;
 * sliding-window (RotatingKVCache), recurrent and MLA caches are refused
 * rather than sized wrongly. docs/fit.md "## mlx-lm".
 */
#include "fit/fit.h"

#include <stdio.h>
#include <string.h>

#include "core/arena.h"
#include "core/ckd.h"
#include "core/inventory.h"
#include "fit/fit_serve.h"

#define MLX_KV_STEP 256		/* cache.py KVCache.step */
#define MLX_KV_GROUP 64		/* generate.py kv_group_size default */
#define MLX_ACT_BYTES 2		/* 16-bit activations (bf16/f16) */

/* Bytes of the KV cache for ctx tokens of n_seq sequences: kv_bits 16
 * is the plain KVCache, 8 or 4 the QuantizedKVCache. UINT64_MAX on
 * overflow. */
static uint64_t
kv_bytes(const struct qa_hparams *hp, int64_t ctx, int n_seq, int kv_bits)
{
	uint64_t steps, row_k, row_v, per_tok, b;

	steps = ((uint64_t)ctx + MLX_KV_STEP - 1) / MLX_KV_STEP * MLX_KV_STEP;
	if (kv_bits >= 16) {
		row_k = (uint64_t)hp->head_dim_k * MLX_ACT_BYTES;
		row_v = (uint64_t)hp->head_dim_v * MLX_ACT_BYTES;
	} else {
		/* uint32 words, then scale + bias per group (cache.py
		 * init_quant) */
		row_k = (uint64_t)hp->head_dim_k * (uint64_t)kv_bits / 8 +
			2 * MLX_ACT_BYTES * ((uint64_t)hp->head_dim_k /
					     MLX_KV_GROUP);
		row_v = (uint64_t)hp->head_dim_v * (uint64_t)kv_bits / 8 +
			2 * MLX_ACT_BYTES * ((uint64_t)hp->head_dim_v /
					     MLX_KV_GROUP);
	}
	if (qa_ckd_mul(&per_tok, row_k + row_v, (uint64_t)hp->n_head_kv) ||
	    qa_ckd_mul(&per_tok, per_tok, (uint64_t)hp->n_layer) ||
	    qa_ckd_mul(&b, per_tok, steps) ||
	    qa_ckd_mul(&b, b, (uint64_t)(n_seq > 0 ? n_seq : 1)))
		return UINT64_MAX;
	return b;
}

/* Largest context (multiple of nothing: any token count) whose cache
 * fits in room bytes, capped at cap; -1 when not even one token fits. */
static int64_t
max_context(const struct qa_hparams *hp, int n_seq, int kv_bits,
	    uint64_t room, int64_t cap)
{
	int64_t lo = 0, hi = cap;

	if (kv_bytes(hp, 1, n_seq, kv_bits) > room)
		return -1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;

		if (kv_bytes(hp, mid, n_seq, kv_bits) <= room)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int
qa_fit_mlx(const struct qa_inventory *inv, const struct qa_fit_options *opt,
	   struct qa_fit_result *out, char *err, size_t errlen)
{
	const struct qa_hparams *hp = &inv->hp;
	struct qa_arena *arena = (struct qa_arena *)&inv->arena;
	struct qa_fit_notes nb = { out, arena };
	uint64_t w = 0, kv, room;
	int64_t ctx, cap;
	uint32_t i;

	if (opt->gpus.n != 1) {
		snprintf(err, errlen, "mlx-lm runs a model on one device of "
			 "unified memory: give one with --gpus (e.g. "
			 "--gpus 1x64GiB)");
		return -1;
	}
	if (hp->n_layer <= 0 || hp->n_head_kv <= 0 || hp->head_dim_k <= 0 ||
	    hp->head_dim_v <= 0) {
		snprintf(err, errlen, "no layer count, KV heads or head size "
			 "in the config: the mlx-lm KV cache cannot be sized");
		return -1;
	}
	if (qa_fit_require_full_attention(hp, "mlx-lm", "standard KVCache", err, errlen))
		return -1;
	for (i = 0; i < inv->n_tensors; i++)
		if (qa_ckd_add(&w, w, inv->tensors[i].bytes))
			w = UINT64_MAX;
	cap = hp->n_ctx_train > 0 ? hp->n_ctx_train : 0;
	ctx = opt->ctx > 0 ? opt->ctx : cap;
	if (ctx <= 0) {
		snprintf(err, errlen, "no trained context in the config: give "
			 "--ctx");
		return -1;
	}
	kv = kv_bytes(hp, ctx, opt->parallel, 16);
	qa_fit_single_device(out, QA_ENGINE_MLX_LM, opt, hp->n_layer, w, kv,
				 0, &room);
	out->context = ctx;
	out->kv_type_k = out->kv_type_v = "f16";
	if (cap <= 0)
		cap = ctx;
	out->max_context_f16 = max_context(hp, opt->parallel, 16, room, cap);
	out->max_context_q8_0 = max_context(hp, opt->parallel, 8, room, cap);
	out->max_context_q4_0 = max_context(hp, opt->parallel, 4, room, cap);
	out->formula = "mlx-lm: W (tensor bytes as stored: packed weights, "
		       "scales, biases) + KV (mlx_lm/models/cache.py KVCache, "
		       "16-bit, steps of 256 tokens) + margin; docs/fit.md";
	qa_fit_note(&nb, "mlx-lm: activations, the Metal allocator's cache "
		    "and macOS's GPU working-set limit (mx.device_info() "
		    "max_recommended_working_set_size, mlx_lm/generate.py "
		    "wired_limit) are not modelled: the verdict is weights + "
		    "KV + margin against the memory given");
	qa_fit_note(&nb, "max_context q8_0 and q4_0 are mlx-lm's "
		    "QuantizedKVCache with --kv-bits 8 / 4 (group 64, a "
		    "16-bit scale and bias per group)");
	return 0;
}
