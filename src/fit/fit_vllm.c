/* SPDX-License-Identifier: MIT */
/*
 * The vLLM (V1 engine) memory model: per tensor-parallel rank, the budget
 * vLLM gives itself (ceil(u*T)), the weights each rank holds, the KV page
 * of every layer kind (full, sliding window, MLA latent, Mamba/GDN state
 * with the hybrid block-size alignment), the KV-cache groups of the hybrid
 * allocator, the memory one request of length L needs, and the largest
 * max_model_len by the binary search vLLM itself runs.
 *
 * Source: ../shared/knowledge/memory-models.md §2 (vLLM upstream 9aaf83ef,
 * 2026-05-19) and §4/§6.3; each formula below names the vLLM file and
 * function it restates. The parts vLLM measures at start-up (activation
 * peak P, non-torch growth N, CUDA graphs G) are estimates here and the
 * result says so; everything downstream of M_avail (pages, groups,
 * M_req, the search) is deterministic and reproduced exactly.
 * docs/fit.md "## vLLM" documents the model.
 */
#include "fit/fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/arena.h"
#include "core/ckd.h"
#include "core/inventory.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* CacheConfig.DEFAULT_BLOCK_SIZE (vllm/config/cache.py). */
#define VLLM_BLOCK 16
/* DEFAULT_VOCAB_PADDING_SIZE (vocab_parallel_embedding.py l.32). */
#define VLLM_VOCAB_PAD 64
/* gpu_memory_utilization default since PR #38284 (vllm/config/cache.py). */
#define VLLM_UTIL 0.92
/* §4 calibration table: N 0.16-0.33 GiB, G 0.17-0.36 GiB logged. */
#define VLLM_N_DEFAULT (GIB / 4)
#define VLLM_G_DEFAULT ((uint64_t)(0.35 * (double)GIB))
/* Floor for the activation estimate: §5 assumes 0.5 GiB for dense
 * models; logged P runs 0.37-1.77 GiB (§2.6), so the closed form alone
 * would under-estimate small models. */
#define VLLM_P_FLOOR (GIB / 2)
/* NCCL buffers created before the snapshot (outside the budget, §2.1,
 * §4: "context and NCCL about 0.5-0.8 GiB"); the CUDA context part is
 * the device's reservation (vram - usable). */
#define VLLM_NCCL_EST (GIB / 4)
/* Sampler logits copies in _dummy_sampler_run (§2.6: 2-4 for top-k/
 * top-p sorting); the upper end so P is not under-estimated. */
#define VLLM_SAMPLER_COPIES 4
/* A fit with less headroom than this share of the budget is "tight". */
#define TIGHT_SHARE 0.05

enum spec {
	SPEC_FULL,
	SPEC_SWA,
	SPEC_MLA,
	SPEC_MAMBA,
	SPEC_COUNT,
};

static const char *const spec_name[SPEC_COUNT] = {
	"full", "sliding", "mla", "mamba",
};

/* Per-rank KV layout of the model for one KV dtype. */
struct layout {
	uint64_t n[SPEC_COUNT];		/* layers of each spec */
	uint64_t tok_sum[SPEC_COUNT];	/* sum over layers of bytes/token */
	uint64_t tok_max[SPEC_COUNT];	/* largest per-layer bytes/token */
	bool tok_differ;		/* per-layer sizes differ in a type */
	uint64_t mamba_state;		/* unpadded state bytes per layer */
	uint64_t block[SPEC_COUNT];	/* block size in tokens */
	uint64_t page[SPEC_COUNT];	/* page bytes per layer */
	uint64_t g;			/* group size (layers per group) */
	int n_types;
	bool hybrid;
	bool unify_failed;		/* pages not integer multiples */
	int64_t window;
	uint64_t n_mbt;
};

struct notes {
	struct qa_fit_result *out;
	struct qa_arena *arena;
};

static void
note(struct notes *nb, const char *s)
{
	struct qa_fit_result *o = nb->out;

	if (!s || o->n_notes >= sizeof(o->notes) / sizeof(o->notes[0]))
		return;
	o->notes[o->n_notes++] = s;
}

/* Saturating helpers: sizes here come from hyperparameters and are small,
 * but a hostile header must not wrap them around (src/ckd.h). */
static uint64_t
mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return qa_ckd_mul(&r, a, b) ? UINT64_MAX : r;
}

static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return qa_ckd_add(&r, a, b) ? UINT64_MAX : r;
}

static uint64_t
cdiv(uint64_t a, uint64_t b)
{
	return b ? a / b + (a % b != 0) : 0;
}

static uint64_t
sub_floor(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int
ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a, y = *b;

		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return 0;
	}
	return *a == *b;
}

static bool
has_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (; s && *s; s++) {
		size_t i;

		for (i = 0; i < n && s[i]; i++) {
			char x = s[i];

			if (x >= 'A' && x <= 'Z')
				x = (char)(x - 'A' + 'a');
			if (x == '-')
				x = '_';
			if (x != w[i])
				break;
		}
		if (i == n)
			return true;
	}
	return false;
}

/*
 * KV element size, get_dtype_size of --kv-cache-dtype
 * (vllm/config/cache.py CacheDType): auto/bf16/fp16 2, fp8* 1. The
 * ggml block types have no vLLM counterpart; they are mapped to fp8,
 * vLLM's only smaller cache type, and a note says so.
 */
static unsigned
kv_elem_bytes(const char *t, struct notes *nb)
{
	if (!t || ieq(t, "f16") || ieq(t, "bf16") || ieq(t, "fp16") ||
	    ieq(t, "auto") || ieq(t, "float16") || ieq(t, "bfloat16"))
		return 2;
	if (ieq(t, "fp8") || ieq(t, "fp8_e4m3") || ieq(t, "fp8_e5m2") ||
	    ieq(t, "fp8_inc") || ieq(t, "int8"))
		return 1;
	if (ieq(t, "f32") || ieq(t, "float32"))
		return 4;
	if (nb)
		note(nb, qa_arena_printf(nb->arena,
			"vLLM has no %s KV cache; computed as "
			"--kv-cache-dtype fp8 (1 byte/element)", t));
	return 1;
}

static int64_t
head_kv(const struct qa_hparams *hp, int64_t l)
{
	if (hp->head_kv_per_layer && l < hp->n_layer_all)
		return hp->head_kv_per_layer[l];
	return hp->n_head_kv > 0 ? hp->n_head_kv : hp->n_head;
}

static uint8_t
kind_of(const struct qa_hparams *hp, int64_t l)
{
	if (hp->layer_kind && l < hp->n_layer_all)
		return hp->layer_kind[l];
	return QA_LAYER_FULL_ATTENTION;
}

static bool
is_nemotron_h(const struct qa_hparams *hp)
{
	return has_word(hp->arch, "nemotron_h") ||
	       has_word(hp->arch_raw, "nemotronh") ||
	       has_word(hp->arch_raw, "nemotron_h");
}

/*
 * State bytes of one Mamba/GDN layer per rank, MambaStateShapeCalculator
 * (vllm/model_executor/layers/mamba/mamba_utils.py), conv layout "SD",
 * no speculative slots (memory-models.md §2.4). Conv state in the model
 * dtype; SSM state fp32 for Nemotron-H (NemotronHForCausalLMConfig,
 * models/config.py l.398-425), model dtype otherwise.
 */
static uint64_t
mamba_state_bytes(const struct qa_hparams *hp, bool gdn, uint64_t tp,
		  unsigned s_model)
{
	uint64_t dconv = hp->ssm_d_conv > 1 ? (uint64_t)hp->ssm_d_conv - 1 : 3;
	uint64_t inner = hp->ssm_d_inner > 0 ? (uint64_t)hp->ssm_d_inner : 0;
	uint64_t nstate = hp->ssm_d_state > 0 ? (uint64_t)hp->ssm_d_state : 0;
	uint64_t heads = hp->ssm_dt_rank > 0 ? (uint64_t)hp->ssm_dt_rank : 0;
	uint64_t ng = hp->ssm_n_group > 0 ? (uint64_t)hp->ssm_n_group : 0;
	unsigned s_ssm = is_nemotron_h(hp) ? 4 : s_model;
	uint64_t conv, ssm;

	if (gdn) {
		/* GDN: n_v = heads, n_k = ng, d_k = nstate, n_v*d_v = inner */
		uint64_t dv = heads ? inner / heads : 0;

		conv = mul_sat(dconv, (2 * ng * nstate + inner) / tp);
		ssm = mul_sat(mul_sat(heads / tp, dv), nstate);
	} else if (ng > 0 && heads > 0) {
		/* Mamba-2: extra_groups_for_head_shards adds tp - n_g groups
		 * when tp does not divide n_g (the groups are replicated). */
		uint64_t ngp = ng % tp == 0 ? ng : tp > ng ? tp : ng;
		uint64_t dh = inner / heads;

		conv = mul_sat(dconv, (inner + 2 * ngp * nstate) / tp);
		ssm = mul_sat(mul_sat(heads / tp, dh), nstate);
	} else {
		/* Mamba-1 */
		conv = mul_sat(dconv, inner / tp);
		ssm = mul_sat(inner / tp, nstate);
	}
	return add_sat(mul_sat(conv, s_model), mul_sat(ssm, s_ssm));
}

/*
 * State bytes of one LFM2 short-convolution layer per rank:
 * MambaStateShapeCalculator.short_conv_state_shape
 * (vllm/model_executor/layers/mamba/mamba_utils.py): a conv state of
 * (L_cache - 1) x hidden/tp in the model dtype, no SSM state.
 */
static uint64_t
short_conv_state_bytes(const struct qa_hparams *hp, uint64_t tp,
		       unsigned s_model)
{
	uint64_t lc = hp->ssm_d_conv > 1 ? (uint64_t)hp->ssm_d_conv - 1 : 2;
	uint64_t dim = hp->n_embd > 0 ? (uint64_t)hp->n_embd : 0;

	return mul_sat(mul_sat(lc, dim / tp), s_model);
}

/* Fills the per-rank KV layout for a KV element size s. */
static void
build_layout(const struct qa_hparams *hp, uint64_t tp, unsigned s,
	     unsigned s_model, uint64_t n_mbt, struct layout *lay)
{
	uint64_t dk = hp->head_dim_k > 0 ? (uint64_t)hp->head_dim_k :
		      hp->n_head > 0 && hp->n_embd > 0 ?
		      (uint64_t)(hp->n_embd / hp->n_head) : 0;
	uint64_t dv = hp->head_dim_v > 0 ? (uint64_t)hp->head_dim_v : dk;
	bool mla = hp->kv_lora_rank > 0;
	uint64_t mla_tok = mla ? ((uint64_t)hp->kv_lora_rank +
		(hp->qk_rope_dim > 0 ? (uint64_t)hp->qk_rope_dim : 0)) * s : 0;
	int64_t l, nl = hp->n_layer > 0 ? hp->n_layer : 0;
	uint64_t attn_tok = 0, max_n = 0, min_n = UINT64_MAX;
	int t;

	memset(lay, 0, sizeof(*lay));
	lay->window = hp->sliding_window;
	lay->n_mbt = n_mbt;
	for (l = 0; l < nl; l++) {
		uint8_t k = kind_of(hp, l);
		enum spec sp;
		uint64_t tok;

		if (k == QA_LAYER_MAMBA || k == QA_LAYER_LINEAR_ATTENTION ||
		    k == QA_LAYER_SHORT_CONV ||
		    k == QA_LAYER_PARALLEL_HYBRID) {
			uint64_t st = k == QA_LAYER_SHORT_CONV ?
				short_conv_state_bytes(hp, tp, s_model) :
				mamba_state_bytes(hp,
					k == QA_LAYER_LINEAR_ATTENTION, tp,
					s_model);

			lay->n[SPEC_MAMBA]++;
			if (st > lay->mamba_state)
				lay->mamba_state = st;
			/* Falcon-H1 layers also hold attention (below). */
			if (k != QA_LAYER_PARALLEL_HYBRID)
				continue;
		}
		if (k == QA_LAYER_MLP_ONLY || k == QA_LAYER_MTP)
			continue;
		if (mla) {
			sp = SPEC_MLA;
			/* ModelConfig.get_num_kv_heads = 1 for MLA, head size
			 * kv_lora_rank + qk_rope_head_dim: replicated per
			 * rank (§2.2). */
			tok = mla_tok;
		} else {
			int64_t h = head_kv(hp, l);
			uint64_t hr;

			if (h <= 0)
				continue;	/* no cache of its own */
			/* get_num_kv_heads: max(1, H_kv / tp) (§2.2) */
			hr = (uint64_t)h / tp;
			if (hr < 1)
				hr = 1;
			tok = mul_sat(mul_sat(hr, dk + dv), s);
			sp = k == QA_LAYER_SLIDING_ATTENTION &&
			     hp->sliding_window > 0 ? SPEC_SWA : SPEC_FULL;
		}
		if (lay->n[sp] && tok != lay->tok_max[sp])
			lay->tok_differ = true;
		lay->n[sp]++;
		lay->tok_sum[sp] = add_sat(lay->tok_sum[sp], tok);
		if (tok > lay->tok_max[sp])
			lay->tok_max[sp] = tok;
	}
	for (t = 0; t < SPEC_COUNT; t++) {
		if (!lay->n[t])
			continue;
		lay->n_types++;
		if (lay->n[t] > max_n)
			max_n = lay->n[t];
		if (lay->n[t] < min_n)
			min_n = lay->n[t];
		if (t != SPEC_MAMBA && lay->tok_max[t] > attn_tok)
			attn_tok = lay->tok_max[t];
		lay->block[t] = VLLM_BLOCK;
		lay->page[t] = t == SPEC_MAMBA ? lay->mamba_state :
			       mul_sat(VLLM_BLOCK, lay->tok_max[t]);
	}
	lay->hybrid = lay->n_types > 1;
	if (!lay->hybrid) {
		lay->g = max_n;
		return;
	}
	/*
	 * Platform._align_hybrid_block_size (vllm/platforms/interface.py
	 * l.508-676): with Mamba layers the attention block becomes
	 * beta * ceil(page_mamba / (beta * page_attn(1 token))), beta =
	 * max(min kernel block, 16) = 16, and the Mamba page is padded up to
	 * the attention page (prefix caching off, mode "none").
	 */
	if (lay->n[SPEC_MAMBA] && attn_tok) {
		uint64_t ba = VLLM_BLOCK * cdiv(lay->mamba_state,
						mul_sat(VLLM_BLOCK, attn_tok));

		for (t = 0; t < SPEC_MAMBA; t++) {
			if (!lay->n[t])
				continue;
			lay->block[t] = ba;
			lay->page[t] = mul_sat(ba, lay->tok_max[t]);
		}
		lay->page[SPEC_MAMBA] = mul_sat(ba, attn_tok);
		lay->block[SPEC_MAMBA] = ba;
	}
	/*
	 * unify_kv_cache_spec_page_size (kv_cache_utils.py): a smaller page
	 * is scaled to the largest by raising its block size by the integer
	 * ratio; a non-integer ratio is NotImplementedError in vLLM.
	 */
	{
		uint64_t pmax = 0;

		for (t = 0; t < SPEC_COUNT; t++)
			if (lay->n[t] && lay->page[t] > pmax)
				pmax = lay->page[t];
		for (t = 0; t < SPEC_COUNT; t++) {
			if (!lay->n[t] || lay->page[t] == pmax)
				continue;
			if (t == SPEC_MAMBA || !lay->page[t] ||
			    pmax % lay->page[t] != 0) {
				lay->unify_failed = true;
				lay->page[t] = pmax;
				continue;
			}
			lay->block[t] *= pmax / lay->page[t];
			lay->page[t] = pmax;
		}
	}
	/* _get_kv_cache_groups_uniform_page_size (kv_cache_utils.py
	 * l.1057-1177): g = min layers per type, or max if max < 1.5 min. */
	lay->g = (double)max_n < 1.5 * (double)min_n ? max_n : min_n;
}

/* Blocks one layer of spec t holds for a request of length L
 * (max_memory_usage_bytes of each spec, kv_cache_interface.py, §2.2). */
static uint64_t
spec_blocks(const struct layout *lay, int t, uint64_t L)
{
	uint64_t b = lay->block[t];

	switch (t) {
	case SPEC_SWA: {
		uint64_t w = lay->window > 0 ? (uint64_t)lay->window : 0;
		uint64_t n = add_sat(w ? w - 1 : 0, lay->n_mbt);

		if (n > L)
			n = L;
		return cdiv(n, b) + 1;
	}
	case SPEC_MAMBA:
		return 1;	/* cache mode "none": one block per request */
	default:
		return cdiv(L, b);
	}
}

/*
 * Memory one request of length L needs on a rank, split in attention KV
 * and recurrent state: _max_memory_usage_bytes_from_groups
 * (kv_cache_utils.py l.1741-1801). Uniform models: sum over layers of
 * blocks x page; hybrid: g x page x sum over groups of blocks.
 */
static uint64_t
m_req(const struct layout *lay, uint64_t L, uint64_t *kv, uint64_t *rec)
{
	uint64_t k = 0, r = 0;
	int t;

	for (t = 0; t < SPEC_COUNT; t++) {
		uint64_t bytes;

		if (!lay->n[t])
			continue;
		if (!lay->hybrid) {
			if (t == SPEC_MAMBA)
				bytes = mul_sat(lay->n[t], lay->page[t]);
			else
				bytes = mul_sat(mul_sat(spec_blocks(lay, t, L),
						lay->block[t]), lay->tok_sum[t]);
		} else {
			uint64_t groups = cdiv(lay->n[t], lay->g);

			bytes = mul_sat(mul_sat(lay->g, lay->page[t]),
					mul_sat(groups, spec_blocks(lay, t, L)));
		}
		if (t == SPEC_MAMBA)
			r = add_sat(r, bytes);
		else
			k = add_sat(k, bytes);
	}
	if (kv)
		*kv = k;
	if (rec)
		*rec = r;
	return add_sat(k, r);
}

/* _auto_fit_max_model_len (kv_cache_utils.py l.1839-1901): the largest
 * L in [1, max] with M_req(L) <= avail, or -1. */
static int64_t
search_max_len(const struct layout *lay, uint64_t avail, uint64_t max)
{
	uint64_t lo = 1, hi = max, best = 0;

	if (max == 0 || m_req(lay, 1, NULL, NULL) > avail)
		return -1;
	while (lo <= hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (m_req(lay, mid, NULL, NULL) <= avail) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best > INT64_MAX ? INT64_MAX : (int64_t)best;
}

/* Weights bytes of one tensor on one TP rank (§2.5). */
struct wctx {
	uint64_t tp;
	uint64_t hq, hkv;
	uint64_t vocab, vocab_rank;	/* padded vocab rows per rank */
};

static uint64_t
per_rank(const struct wctx *w, const struct qa_tensor *t)
{
	uint64_t b = t->bytes, kvdiv;
	bool vec = t->n_dims <= 1;

	kvdiv = w->hkv ? (w->hkv < w->tp ? w->hkv : w->tp) : w->tp;
	switch (t->role) {
	case QA_ROLE_EMBED:
	case QA_ROLE_LM_HEAD:
	case QA_ROLE_MTP_EMBED:
	case QA_ROLE_MTP_SHARED_HEAD:
		/* VocabParallelEmbedding / ParallelLMHead: vocab padded to a
		 * multiple of 64, then split by tp. */
		if (vec || !w->vocab)
			return vec ? b : cdiv(b, w->tp);
		return cdiv(mul_sat(b, w->vocab_rank), w->vocab);
	case QA_ROLE_ATTN_K:
	case QA_ROLE_ATTN_V:
		/* QKVParallelLinear: KV heads replicated when tp > H_kv */
		return cdiv(b, kvdiv);
	case QA_ROLE_ATTN_QKV:
		if (w->hq && w->hkv) {
			uint64_t tot = w->hq + 2 * w->hkv;
			uint64_t q = mul_sat(b, w->hq) / tot;

			return add_sat(cdiv(q, w->tp), cdiv(b - q, kvdiv));
		}
		return cdiv(b, w->tp);
	case QA_ROLE_ATTN_O:
	case QA_ROLE_FFN_DOWN:
	case QA_ROLE_EXPERT_DOWN:
	case QA_ROLE_SHARED_EXPERT_DOWN:
	case QA_ROLE_SSM_OUT:
		/* RowParallelLinear: weight split, bias replicated */
		return vec ? b : cdiv(b, w->tp);
	case QA_ROLE_ATTN_Q:
	case QA_ROLE_ATTN_GATE:
	case QA_ROLE_ATTN_SINKS:
	case QA_ROLE_MLA_Q_B:
	case QA_ROLE_MLA_KV_B:
	case QA_ROLE_MLA_K_B:
	case QA_ROLE_MLA_V_B:
	case QA_ROLE_FFN_GATE:
	case QA_ROLE_FFN_UP:
	case QA_ROLE_FFN_GATE_UP:
	case QA_ROLE_EXPERT_GATE:
	case QA_ROLE_EXPERT_UP:
	case QA_ROLE_EXPERT_GATE_UP:
	case QA_ROLE_SHARED_EXPERT_GATE:
	case QA_ROLE_SHARED_EXPERT_UP:
	case QA_ROLE_SSM_IN:
	case QA_ROLE_SSM_CONV:
	case QA_ROLE_SSM_PARAM:
	case QA_ROLE_GDN_QKV:
	case QA_ROLE_GDN_GATE:
	case QA_ROLE_GDN_BA:
	case QA_ROLE_VISION:
	case QA_ROLE_PROJECTOR:
	case QA_ROLE_AUDIO:
		/* Column-parallel (with their biases) and per-head params;
		 * SSM A/D/dt and norms shard by heads (mamba_mixer2.py);
		 * vision towers are TP-sharded in vLLM's encoders. */
		return cdiv(b, w->tp);
	case QA_ROLE_MLA_Q_A:
	case QA_ROLE_MLA_KV_A:
		/* q_a_proj / kv_a_proj_with_mqa are ReplicatedLinear in
		 * vLLM's deepseek_v2.py (fused_qkv_a_proj, disable_tp). */
	case QA_ROLE_ROUTER:
	case QA_ROLE_NORM:
	case QA_ROLE_POS_EMBED:
	case QA_ROLE_DSA_INDEXER:
	case QA_ROLE_MTP_EH_PROJ:
	case QA_ROLE_MTP_ENORM:
	case QA_ROLE_MTP_HNORM:
	case QA_ROLE_MTP_NORM:
	case QA_ROLE_OTHER:
	default:
		return b;	/* replicated (conservative for unknowns) */
	}
}

static bool
is_expert(enum qa_role r)
{
	return r == QA_ROLE_EXPERT_GATE || r == QA_ROLE_EXPERT_UP ||
	       r == QA_ROLE_EXPERT_DOWN || r == QA_ROLE_EXPERT_GATE_UP;
}

/*
 * Activation peak P of profile_run (§2.6), an estimate: prefill of n_mbt
 * tokens n_mbt*(3F/tp + (H_q+2H_kv)d/tp + 2E)*s for dense FFNs, the
 * fused-MoE workspace n_mbt*k*(3F_exp/tp + E)*s (intermediate caches of
 * fused_moe), plus the sampler's fp32 logits min(n_seq, n_mbt) *
 * V_pad/tp * 4 * copies (_dummy_sampler_run), floored at 0.5 GiB.
 */
static uint64_t
estimate_p(const struct qa_hparams *hp, uint64_t tp, uint64_t n_mbt,
	   uint64_t n_seq, uint64_t vpad, unsigned s)
{
	uint64_t E = hp->n_embd > 0 ? (uint64_t)hp->n_embd : 0;
	uint64_t hq = hp->n_head > 0 ? (uint64_t)hp->n_head : 0;
	uint64_t hkv = hp->n_head_kv > 0 ? (uint64_t)hp->n_head_kv : hq;
	uint64_t d = hp->head_dim_k > 0 ? (uint64_t)hp->head_dim_k :
		     hq ? E / hq : 0;
	uint64_t F = hp->n_ff > 0 ? (uint64_t)hp->n_ff : 0;
	uint64_t ffn, attn, moe = 0, fwd, samp;

	if (hp->n_expert > 1 && hp->n_ff_expert > 0) {
		uint64_t k = hp->n_expert_used > 0 ?
			     (uint64_t)hp->n_expert_used : 1;

		moe = mul_sat(mul_sat(n_mbt, k),
			      3 * (uint64_t)hp->n_ff_expert / tp + E);
		if (hp->n_leading_dense <= 0)
			F = hp->n_expert_shared > 0 ?
			    (uint64_t)hp->n_expert_shared *
			    (uint64_t)hp->n_ff_expert : 0;
	}
	ffn = mul_sat(n_mbt, 3 * F / tp);
	if (moe > ffn)
		ffn = moe;
	attn = mul_sat(n_mbt, (hq + 2 * hkv) * d / tp + 2 * E);
	fwd = mul_sat(add_sat(ffn, attn), s);
	samp = mul_sat(mul_sat(n_seq < n_mbt ? n_seq : n_mbt, vpad / tp),
		       4 * VLLM_SAMPLER_COPIES);
	fwd = add_sat(fwd, samp);
	return fwd < VLLM_P_FLOOR ? VLLM_P_FLOOR : fwd;
}

int
qa_fit_vllm(const struct qa_inventory *inv,
	    const struct qa_fit_options *opt,
	    struct qa_fit_result *out, char *err, size_t errlen)
{
	/* The inventory owns the arena the result's strings live in; the
	 * inventory object itself is never const (qa_inventory_create). */
	struct qa_arena *arena = (struct qa_arena *)&inv->arena;
	const struct qa_hparams *hp = &inv->hp;
	struct notes nb = { out, arena };
	double u = opt->gpu_memory_utilization > 0 &&
		   opt->gpu_memory_utilization <= 1 ?
		   opt->gpu_memory_utilization : VLLM_UTIL;
	size_t ndev = opt->gpus.n, i;
	uint64_t tp, n_mbt, n_seq, vpad, W = 0, W_active = 0, P, N, G;
	uint64_t max_len, ctx, min_avail = UINT64_MAX, kv_req, rec_req;
	unsigned s_kv, s_model = 2;
	struct layout lay, lay_f16, lay_fp8;
	struct wctx wc;
	bool big, heads_ok = true, outside_over = false;
	int64_t fit_len;
	const char *verdict;

	memset(out, 0, sizeof(*out));
	out->engine = QA_ENGINE_VLLM;
	if (opt->gpus.host_only || ndev == 0) {
		snprintf(err, errlen, "vLLM needs at least one GPU "
			 "(--gpus none is llama.cpp only)");
		return -1;
	}
	if (hp->n_layer <= 0 || hp->n_embd <= 0) {
		snprintf(err, errlen, "no hyperparameters (layers, hidden "
			 "size) to size the vLLM KV cache from");
		return -1;
	}
	if (hp->n_layer_all > QA_FIT_MAX_LAYERS) {
		snprintf(err, errlen, "%lld blocks: more than any real model "
			 "(%d); not sized", (long long)hp->n_layer_all,
			 QA_FIT_MAX_LAYERS);
		return -1;
	}
	tp = opt->tp > 0 ? (uint64_t)opt->tp : ndev;
	if (tp > ndev) {
		snprintf(err, errlen, "tensor parallel %llu needs %llu GPUs, "
			 "--gpus gives %zu", (unsigned long long)tp,
			 (unsigned long long)tp, ndev);
		return -1;
	}
	if (tp < ndev)
		note(&nb, qa_arena_printf(arena, "TP=%llu: only the first "
			"%llu of %zu GPUs are used (no pipeline parallelism "
			"modelled)", (unsigned long long)tp,
			(unsigned long long)tp, ndev));
	ndev = (size_t)tp;

	/* Batch defaults, EngineArgs.get_batch_defaults (arg_utils.py
	 * l.2258-2340): 2048/256 below 70 GiB or on A100, else 8192/1024
	 * (OpenAI server). */
	big = opt->gpus.dev[0].vram_bytes >= 70 * GIB &&
	      !(opt->gpus.dev[0].cc_major == 8 &&
		opt->gpus.dev[0].cc_minor == 0);
	n_mbt = opt->batch > 0 ? (uint64_t)opt->batch : big ? 8192 : 2048;
	n_seq = opt->parallel > 0 ? (uint64_t)opt->parallel : big ? 1024 : 256;

	/* Tensor-parallel head checks (vLLM refuses otherwise). */
	if (hp->n_head > 0 && (uint64_t)hp->n_head % tp != 0)
		heads_ok = false;
	if (hp->kv_lora_rank <= 0 && hp->n_head_kv > 0 &&
	    (uint64_t)hp->n_head_kv % tp != 0 &&
	    tp % (uint64_t)hp->n_head_kv != 0)
		heads_ok = false;
	if (!heads_ok)
		note(&nb, qa_arena_printf(arena, "vLLM refuses TP=%llu: "
			"%lld attention heads / %lld KV heads do not divide "
			"evenly", (unsigned long long)tp,
			(long long)hp->n_head, (long long)hp->n_head_kv));

	/* Weights per rank (§2.5). */
	vpad = hp->n_vocab > 0 ? cdiv((uint64_t)hp->n_vocab, VLLM_VOCAB_PAD) *
				 VLLM_VOCAB_PAD : 0;
	wc.tp = tp;
	wc.hq = hp->n_head > 0 ? (uint64_t)hp->n_head : 0;
	wc.hkv = hp->n_head_kv > 0 ? (uint64_t)hp->n_head_kv : wc.hq;
	wc.vocab = hp->n_vocab > 0 ? (uint64_t)hp->n_vocab : 0;
	wc.vocab_rank = cdiv(vpad, tp);
	{
		bool tied = true;

		for (i = 0; i < inv->n_tensors; i++)
			if (inv->tensors[i].role == QA_ROLE_LM_HEAD)
				tied = false;
		for (i = 0; i < inv->n_tensors; i++) {
			const struct qa_tensor *t = &inv->tensors[i];
			uint64_t b;

			if (t->mtp && !opt->mtp)
				continue;
			b = per_rank(&wc, t);
			W = add_sat(W, b);
			/* Bytes a decode step reads: only the active
			 * experts, and the embedding only when it is also
			 * the (tied) output. */
			if (is_expert(t->role) && hp->n_expert > 0 &&
			    hp->n_expert_used > 0)
				b = cdiv(mul_sat(b, (uint64_t)hp->n_expert_used),
					 (uint64_t)hp->n_expert);
			if (t->role == QA_ROLE_EMBED && !tied)
				b = 0;
			W_active = add_sat(W_active, b);
		}
		if (inv->n_tensors == 0)
			note(&nb, "no tensors in the input: weights counted "
			     "as 0");
	}
	if (inv->kind == QA_KIND_GGUF)
		note(&nb, "GGUF in vLLM: weights counted as stored (vLLM's "
		     "GGUF loader keeps supported quantized types packed); "
		     "vLLM's GGUF support is experimental");
	if (inv->dominant_type && (ieq(inv->dominant_type, "F32")))
		s_model = 4;

	/* KV dtype (one for K and V in vLLM). */
	s_kv = kv_elem_bytes(opt->kv_k, &nb);
	if (opt->kv_v && opt->kv_k && !ieq(opt->kv_v, opt->kv_k))
		note(&nb, "vLLM has one --kv-cache-dtype for K and V; the K "
		     "type was used");
	build_layout(hp, tp, s_kv, s_model, n_mbt, &lay);
	build_layout(hp, tp, 2, s_model, n_mbt, &lay_f16);
	build_layout(hp, tp, 1, s_model, n_mbt, &lay_fp8);
	if (lay.n_types == 0) {
		snprintf(err, errlen, "no attention or state layers to size "
			 "the vLLM KV cache from");
		return -1;
	}
	if (lay.unify_failed)
		note(&nb, "KV page sizes of the layer kinds are not integer "
		     "multiples: vLLM raises NotImplementedError "
		     "(unify_kv_cache_spec_page_size); sized with the "
		     "largest page");
	if (lay.hybrid && lay.tok_differ)
		note(&nb, "per-layer KV sizes differ within a hybrid group; "
		     "sized with the largest");

	/* Budget per rank (§2.1), P/N/G (§2.6-2.7). */
	P = opt->vllm_activation_bytes ? opt->vllm_activation_bytes :
	    estimate_p(hp, tp, n_mbt, n_seq, vpad, s_model);
	N = opt->vllm_nontorch_bytes ? opt->vllm_nontorch_bytes :
	    VLLM_N_DEFAULT;
	G = opt->vllm_cudagraph_bytes ? opt->vllm_cudagraph_bytes :
	    VLLM_G_DEFAULT;
	if (!opt->vllm_activation_bytes || !opt->vllm_nontorch_bytes ||
	    !opt->vllm_cudagraph_bytes)
		note(&nb, "vLLM measures activations (P), non-torch memory "
		     "(N) and CUDA graphs (G) at start-up; estimated here "
		     "(P closed form of docs/fit.md, N 0.25 GiB, "
		     "G 0.35 GiB): non-deterministic");

	max_len = hp->n_ctx_train > 0 ? (uint64_t)hp->n_ctx_train : 131072;
	if (opt->ctx > 0)
		ctx = (uint64_t)opt->ctx;
	else
		ctx = max_len;
	if (opt->ctx > 0 && ctx > max_len)
		note(&nb, qa_arena_printf(arena, "vLLM refuses "
			"max_model_len %llu above the derived %llu unless "
			"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
			(unsigned long long)ctx,
			(unsigned long long)max_len));

	out->n_devices = ndev;
	for (i = 0; i < ndev; i++) {
		const struct qa_gpu_device *g = &opt->gpus.dev[i];
		struct qa_fit_device *d = &out->devices[i];
		double rr = ceil(u * (double)g->vram_bytes);
		uint64_t R = rr >= 1.8e19 ? UINT64_MAX : (uint64_t)rr;
		uint64_t avail = sub_floor(R, add_sat(add_sat(W, P),
						      add_sat(N, G)));
		uint64_t outside = sub_floor(g->vram_bytes, g->usable_bytes);

		if (tp > 1)
			outside = add_sat(outside, VLLM_NCCL_EST);
		snprintf(d->name, sizeof(d->name), "%s", g->name);
		d->vram_bytes = g->vram_bytes;
		d->usable_bytes = R;
		d->weights_bytes = W;
		d->compute_bytes = add_sat(P, G);
		d->overhead_bytes = add_sat(N, outside);
		d->first_layer = 0;
		d->last_layer = (int32_t)(hp->n_layer - 1);
		d->has_output = true;
		if (outside > sub_floor(g->vram_bytes, R)) {
			outside_over = true;
			/* what overflows (1-u)T is taken from the budget */
			avail = sub_floor(avail, outside -
					  sub_floor(g->vram_bytes, R));
		}
		if (avail < min_avail)
			min_avail = avail;
	}
	if (outside_over)
		note(&nb, qa_arena_printf(arena, "CUDA context + NCCL (est.) "
			"exceed (1-u)T outside vLLM's budget: lower "
			"--gpu-memory-utilization below %.2f", u));

	/* The requested context's KV and state (one request), and the
	 * largest context per KV type on the worst rank. */
	if (opt->ctx < 0) {
		fit_len = search_max_len(&lay, min_avail, max_len);
		ctx = fit_len > 0 ? (uint64_t)fit_len : 1;
	}
	m_req(&lay, ctx, &kv_req, &rec_req);
	out->context = (int64_t)(ctx > INT64_MAX ? INT64_MAX : ctx);
	out->kv_type_k = opt->kv_k ? opt->kv_k : "bf16";
	out->kv_type_v = opt->kv_v ? opt->kv_v : out->kv_type_k;
	out->max_context_f16 = search_max_len(&lay_f16, min_avail, max_len);
	out->max_context_q8_0 = search_max_len(&lay_fp8, min_avail, max_len);
	out->max_context_q4_0 = out->max_context_q8_0;
	note(&nb, "max_context q8_0 and q4_0 are vLLM's fp8 KV cache "
	     "(vLLM has no block-quantized KV types); vLLM preallocates "
	     "all of M_avail as KV pool, kv_bytes is what the context needs");

	for (i = 0; i < ndev; i++) {
		struct qa_fit_device *d = &out->devices[i];
		uint64_t inside = add_sat(add_sat(d->weights_bytes, kv_req),
			add_sat(rec_req, add_sat(d->compute_bytes, N)));
		uint64_t over = sub_floor(sub_floor(d->overhead_bytes, N),
					  sub_floor(d->vram_bytes,
						    d->usable_bytes));

		d->kv_bytes = kv_req;
		d->recurrent_bytes = rec_req;
		inside = add_sat(inside, over);
		d->free_bytes = d->usable_bytes >= inside ?
			(int64_t)(d->usable_bytes - inside) :
			-(int64_t)(inside - d->usable_bytes > INT64_MAX ?
				   INT64_MAX : inside - d->usable_bytes);
		out->totals_weights = add_sat(out->totals_weights,
					      d->weights_bytes);
		out->totals_kv = add_sat(out->totals_kv, kv_req);
		out->totals_recurrent = add_sat(out->totals_recurrent,
						rec_req);
		out->totals_compute = add_sat(out->totals_compute,
					      d->compute_bytes);
	}

	/* Verdict: _check_enough_kv_cache_memory on the worst rank. */
	if (!heads_ok || min_avail == 0 || add_sat(kv_req, rec_req) > min_avail)
		verdict = "does-not-fit";
	else if (outside_over ||
		 (double)(min_avail - kv_req - rec_req) <
		 TIGHT_SHARE * (double)out->devices[0].usable_bytes)
		verdict = "tight";
	else
		verdict = "fits";
	out->verdict = verdict;

	/* Decode ceiling: each rank reads its weights (active experts only)
	 * plus the context's KV and state per token; ranks work in
	 * parallel, so the slowest rank bounds the rate. */
	{
		double best = 0;
		uint64_t touched = add_sat(W_active, add_sat(kv_req, rec_req));

		for (i = 0; i < ndev; i++) {
			double r;

			if (!opt->gpus.dev[i].bandwidth_gbs || !touched) {
				best = 0;
				break;
			}
			r = (double)opt->gpus.dev[i].bandwidth_gbs * 1e9 /
			    (double)touched;
			if (i == 0 || r < best)
				best = r;
		}
		out->decode_tokens_per_s_max = best;
	}

	{
		int t;
		char kinds[96];
		size_t off = 0;

		kinds[0] = '\0';
		for (t = 0; t < SPEC_COUNT; t++) {
			int n;

			if (!lay.n[t])
				continue;
			n = snprintf(kinds + off, sizeof(kinds) - off,
				     "%s%s %llux page %llu B/%llu tok",
				     off ? ", " : "", spec_name[t],
				     (unsigned long long)lay.n[t],
				     (unsigned long long)lay.page[t],
				     (unsigned long long)lay.block[t]);
			if (n < 0 || (size_t)n >= sizeof(kinds) - off)
				break;
			off += (size_t)n;
		}
		out->formula = qa_arena_printf(arena,
			"vLLM V1 TP=%llu: M_avail = ceil(%.2f*T) - (W + P + N) "
			"- G = %.2f GiB on the worst rank; %s; %s %llu "
			"layers; max_model_len by _auto_fit_max_model_len "
			"(vllm/v1/worker/gpu_worker.py, "
			"vllm/v1/core/kv_cache_utils.py; docs/fit.md)",
			(unsigned long long)tp, u,
			(double)min_avail / (double)GIB, kinds,
			lay.hybrid ? "hybrid groups of" : "one KV group of",
			(unsigned long long)lay.g);
		if (!out->formula)
			out->formula = "vLLM V1 (docs/fit.md)";
	}
	return 0;
}
