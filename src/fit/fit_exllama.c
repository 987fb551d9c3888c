/* SPDX-License-Identifier: MIT */
/*
 * The ExLlama memory model (--engine exllama), deliberately small: the
 * weights as stored, less the token embedding both engines keep in
 * system RAM, plus the KV cache, on one GPU. An EXL2 folder is sized as
 * ExLlamaV2 runs it, an EXL3 folder as ExLlamaV3 (and TabbyAPI, which
 * serves through it) does. Nothing else is estimated; the notes say so.
 *
 * Weights: the tensors as stored. ExLlamaV2 turns q_invperm (I32) into
 * q_perm + q_invperm (two I16) at load (exllamav2/module.py l.119-120,
 * exllamav2/ext.py l.337-338): the same bytes. The embedding stays on
 * the CPU (exllamav2/model.py l.179 embed_cpu = True, l.211-213;
 * exllamav3/modules/embedding.py l.37-39 "prefer_cpu").
 *
 * KV cache, ExLlamaV2 (turboderp-org/exllamav2 exllamav2/cache.py,
 * commit da07facd): per layer [B, S, H_kv, D / w] for K and V
 * (l.66-69, l.87-95), B * S tokens; w = 1 in FP16 (ExLlamaV2Cache
 * l.245-254, F16), and in the Q caches uint8 with weights per byte
 * (K, V) = Q4 (2, 2) l.596-606, Q6 (1, 2) l.621-631, Q8 (1, 1)
 * l.646-656, plus F16 scales [B, S, H_kv, D / 32] for each of K and V
 * (l.93-95), plus one F16 K/V pair of one layer's shape per device to
 * dequantize into (touch_device l.464-469). The dynamic generator needs
 * S a multiple of 256 pages (exllamav2/generator/dynamic.py l.33,
 * l.389-390).
 *
 * KV cache, ExLlamaV3 (turboderp-org/exllamav3, commit 4f8ad012):
 * max_num_tokens a multiple of PAGE_SIZE 256 (exllamav3/constants.py
 * l.2; cache/fp16.py l.24-25; TabbyAPI rounds cache_size up to it,
 * backends/exllamav3/model.py adjust_cache_size l.504-515). FP16:
 * per layer K and V [T, H_kv, D] F16 (cache/fp16.py l.27-40). Quantized
 * (CacheLayer_quant, k_bits and v_bits 2..8, cache/quant.py l.30-57):
 * per layer qk [T, td / 32 * k_bits] and qv [T, td / 32 * v_bits] int32,
 * sk and sv [T, td / 32] F16, td = H_kv * D; reading a layer dequantizes
 * it whole into a K/V pair of F16 [T, H_kv, D] (get_kv l.95-97).
 * TabbyAPI's cache_mode Q4 / Q6 / Q8 are k_bits = v_bits = 4 / 6 / 8
 * (backends/exllamav3/model.py create_cache l.536-571).
 *
 * Only full-attention layers are modelled; sliding-window, recurrent
 * and MLA caches are refused rather than sized wrongly. docs/fit.md
 * "## exllama".
 */
#include "fit/fit.h"

#include <stdio.h>
#include <string.h>

#include "core/arena.h"
#include "core/ckd.h"
#include "core/inventory.h"
#include "core/model_kind.h"
#include "fit/fit_serve.h"

#define EXL_PAGE 256		/* both engines' cache page */

/* Bits of K and V of a cache mode; 16 for FP16. EXL2 accepts only its
 * cache classes (fp16, q4, q6, q8); EXL3 any k, v in 2..8. */
static int
kv_bits_of(const char *t)
{
	if (!t || strcmp(t, "f16") == 0 || strcmp(t, "fp16") == 0 ||
	    strcmp(t, "auto") == 0)
		return 16;
	if ((t[0] == 'q' || t[0] == 'Q') && t[1] >= '2' && t[1] <= '8' &&
	    t[2] == '\0')
		return t[1] - '0';
	return -1;
}

struct kv_parts {
	uint64_t cache;		/* the persistent cache, every layer */
	uint64_t scratch;	/* one layer's F16 K/V to dequantize into */
};

/* Bytes for ctx tokens of n_seq sequences; false on overflow. */
static bool
kv_size(const struct qa_hparams *hp, bool exl3, int64_t ctx, int n_seq,
	int kb, int vb, struct kv_parts *o)
{
	uint64_t t, d = (uint64_t)hp->head_dim_k, h = (uint64_t)hp->n_head_kv;
	uint64_t per_tok, layer_f16;

	if (qa_ckd_mul(&t, (uint64_t)ctx, (uint64_t)(n_seq > 0 ? n_seq : 1)))
		return false;
	t = (t + EXL_PAGE - 1) / EXL_PAGE * EXL_PAGE;
	if (kb >= 16) {
		per_tok = 2 * h * d * 2;
	} else if (exl3) {
		uint64_t td32 = h * d / 32;

		per_tok = td32 * (uint64_t)kb * 4 + td32 * (uint64_t)vb * 4 +
			  2 * td32 * 2;
	} else {
		/* weights per byte of K and V (cache.py Q4 / Q6 / Q8) */
		uint64_t wk = kb == 4 ? 2 : 1, wv = kb == 8 ? 1 : 2;

		per_tok = h * (d / wk + d / wv) + 2 * h * (d / 32) * 2;
	}
	layer_f16 = 2 * h * d * 2;
	if (qa_ckd_mul(&o->cache, per_tok, (uint64_t)hp->n_layer) ||
	    qa_ckd_mul(&o->cache, o->cache, t) ||
	    qa_ckd_mul(&o->scratch, layer_f16, t))
		return false;
	if (kb >= 16)
		o->scratch = 0;
	return true;
}

static int64_t
max_context(const struct qa_hparams *hp, bool exl3, int n_seq, int kb,
	    int vb, uint64_t room, int64_t cap)
{
	struct kv_parts p;
	int64_t lo = 0, hi = cap;

	if (!kv_size(hp, exl3, 1, n_seq, kb, vb, &p) ||
	    p.cache + p.scratch > room)
		return -1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;

		if (kv_size(hp, exl3, mid, n_seq, kb, vb, &p) &&
		    p.cache + p.scratch <= room)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int
qa_fit_exllama(const struct qa_inventory *inv,
	       const struct qa_fit_options *opt, struct qa_fit_result *out,
	       char *err, size_t errlen)
{
	const struct qa_hparams *hp = &inv->hp;
	struct qa_arena *arena = (struct qa_arena *)&inv->arena;
	struct qa_fit_notes nb = { out, arena };
	bool exl3 = inv->format == QA_FORMAT_EXL3;
	uint64_t w = 0, host = 0, room;
	struct kv_parts kv;
	int kb, vb;
	int64_t ctx, cap;
	uint32_t i;

	if (inv->format != QA_FORMAT_EXL2 && inv->format != QA_FORMAT_EXL3) {
		snprintf(err, errlen, "quantaudit's exllama model sizes EXL2 "
			 "and EXL3 folders (this is %s)",
			 qa_model_format_name(inv->format));
		return -1;
	}
	if (opt->gpus.n != 1) {
		snprintf(err, errlen, "quantaudit's exllama model sizes one "
			 "GPU (the engines' gpu_split over several is not "
			 "modelled): give one with --gpus (e.g. --gpus "
			 "1x24GiB)");
		return -1;
	}
	kb = kv_bits_of(opt->kv_k);
	vb = kv_bits_of(opt->kv_v);
	if (kb < 0 || vb < 0 || (kb >= 16) != (vb >= 16) ||
	    (!exl3 && (kb != vb || (kb != 16 && kb != 4 && kb != 6 &&
				    kb != 8)))) {
		snprintf(err, errlen, "%s", exl3 ?
			 "ExLlamaV3's cache is fp16, or K and V quantized to "
			 "2-8 bits each (q2..q8, e.g. --kv q4 or --kv-k q8 "
			 "--kv-v q4)" :
			 "ExLlamaV2's caches are fp16, q4, q6 and q8 (one "
			 "mode for K and V: --kv q4)");
		return -1;
	}
	if (hp->n_layer <= 0 || hp->n_head_kv <= 0 || hp->head_dim_k <= 0 ||
	    hp->head_dim_v != hp->head_dim_k) {
		snprintf(err, errlen, "no layer count, KV heads or one head "
			 "size for K and V in the config: the exllama KV cache "
			 "cannot be sized");
		return -1;
	}
	if (qa_fit_require_full_attention(hp, "exllama", "standard K/V cache", err, errlen))
		return -1;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (qa_role_quant_class(t->role) == QA_QCLASS_EMBED) {
			if (qa_ckd_add(&host, host, t->bytes))
				host = UINT64_MAX;
		} else if (qa_ckd_add(&w, w, t->bytes)) {
			w = UINT64_MAX;
		}
	}
	cap = hp->n_ctx_train > 0 ? hp->n_ctx_train : 0;
	ctx = opt->ctx > 0 ? opt->ctx : cap;
	if (ctx <= 0) {
		snprintf(err, errlen, "no trained context in the config: give "
			 "--ctx");
		return -1;
	}
	if (!kv_size(hp, exl3, ctx, opt->parallel, kb, vb, &kv)) {
		snprintf(err, errlen, "the KV cache size overflows");
		return -1;
	}
	qa_fit_single_device(out, QA_ENGINE_EXLLAMA, opt, hp->n_layer, w,
				 kv.cache, kv.scratch, &room);
	out->context = ctx;
	out->kv_type_k = kb >= 16 ? "f16" :
			 qa_arena_printf(arena, "q%d", kb);
	out->kv_type_v = vb >= 16 ? "f16" :
			 qa_arena_printf(arena, "q%d", vb);
	out->host_bytes = host;
	if (cap <= 0)
		cap = ctx;
	out->max_context_f16 = max_context(hp, exl3, opt->parallel, 16, 16,
					   room, cap);
	out->max_context_q8_0 = max_context(hp, exl3, opt->parallel, 8, 8,
					    room, cap);
	out->max_context_q4_0 = max_context(hp, exl3, opt->parallel, 4, 4,
					    room, cap);
	out->formula = exl3 ?
		"exllamav3: W (tensor bytes as stored, less the token "
		"embedding kept in RAM) + KV (exllamav3/cache/fp16.py or "
		"quant.py, pages of 256 tokens) + one layer's F16 dequant "
		"buffer for a quantized cache + margin; docs/fit.md" :
		"exllamav2: W (tensor bytes as stored, less the token "
		"embedding kept in RAM) + KV (exllamav2/cache.py, 256-token "
		"pages) + one layer's F16 K/V for a Q cache + margin; "
		"docs/fit.md";
	qa_fit_note(&nb, "exllama: activations, the dequant scratch of "
		    "large matrices (max_dq_size), the prefill chunk's "
		    "buffers and the CUDA context are not modelled: the "
		    "verdict is weights + KV + margin against the memory "
		    "given");
	qa_fit_note(&nb, "max_context q8_0 and q4_0 are the Q8 and Q4 cache "
		    "modes (8 and 4 bits per K and V value, an F16 scale per "
		    "32 values)");
	if (exl3)
		qa_fit_note(&nb, "the same files run in TabbyAPI (exllamav3 "
			    "backend): cache_size is its token count, "
			    "cache_mode Q4/Q6/Q8 or 'k,v' bits");
	return 0;
}
