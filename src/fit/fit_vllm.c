/* SPDX-License-Identifier: MIT */
/*
 * The vLLM (V1 engine) memory model: per tensor-parallel rank and
 * pipeline stage, the budget vLLM gives itself (ceil(u*T)), the weights
 * each rank holds, the KV page of every layer kind (full, sliding window,
 * MLA latent, Mamba/GDN state with the hybrid block-size alignment), the
 * KV-cache groups of the hybrid allocator projected onto each stage, the
 * memory one request of length L needs, and the largest max_model_len by
 * the binary search vLLM itself runs. The serving knobs people tune
 * (--gpu-memory-utilization, --max-num-batched-tokens, --max-num-seqs,
 * --enforce-eager, -pp, MTP speculative tokens, the fp8 and per-token-head
 * KV dtypes, the Transformers modeling backend) change the numbers the
 * way the source does.
 *
 * Source: vllm-project/vllm at upstream 9aaf83ef502f (2026-05-19); each
 * formula below names the vLLM file, function and line it restates. The
 * parts vLLM measures at start-up (activation peak P, non-torch growth N,
 * CUDA graphs G) are estimates here and the result says so; everything
 * downstream of M_avail (pages, groups, M_req, the search) is
 * deterministic and reproduced exactly. docs/fit.md "## vLLM" documents
 * the model.
 */
#include "fit/fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/arena.h"
#include "core/ckd.h"
#include "core/engines.h"
#include "core/inventory.h"
#include "core/tensor_bytes.h"
#include "core/model_kind.h"
#include "fit/decode.h"
#include "fit/fit_serve.h"

/* One tensor-parallel all-reduce of a decode step's hidden state over
 * PCIe: an assumption (small-message latency of NCCL or vLLM's custom
 * all-reduce, not measured here), printed in the fit's notes. */
#define AR_SECONDS 15e-6
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* CacheConfig.DEFAULT_BLOCK_SIZE (vllm/config/cache.py l.45). */
#define VLLM_BLOCK 16
/* gpu_memory_utilization default 0.92 (vllm/config/cache.py l.66,
 * PR #38284). */
#define VLLM_UTIL 0.92
/* Logged non-torch growth N 0.16-0.33 GiB (PRs #12126, #14447, issue
 * #14452) and CUDA-graph capture G 0.17-0.36 GiB (club-3090 #127,
 * gpustack/runner #251). */
#define VLLM_N_DEFAULT (GIB / 4)
#define VLLM_G_DEFAULT ((uint64_t)(0.35 * (double)GIB))
/* Floor for the activation estimate: logged P runs 0.37-1.77 GiB (PRs
 * #10511, #14447, issue #14452), so the closed form alone would
 * under-estimate small models. */
#define VLLM_P_FLOOR (GIB / 2)
/* NCCL buffers created before vLLM's memory snapshot, outside its
 * budget (gpu_worker.py init_device runs before the snapshot); the CUDA
 * context part is the device's reservation (vram - usable). */
#define VLLM_NCCL_EST (GIB / 4)
/* Sampler logits copies in _dummy_sampler_run (2-4 for top-k/top-p
 * sorting); the upper end so P is not under-estimated. */
#define VLLM_SAMPLER_COPIES 4
/* A fit with less headroom than this share of the budget is "tight". */
#define TIGHT_SHARE 0.05
/* Draft layers the MTP of one model may add (n_predict); real heads
 * have 1-3. Bounds the per-layer table below. */
#define MAX_DRAFT 16

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

/* --kv-cache-dtype as vLLM lays it out (vllm/v1/kv_cache_interface.py). */
struct kvfmt {
	unsigned s;		/* element bytes (get_dtype_size) */
	bool per_token_head;	/* fp8/int8_per_token_head: + 2 fp32 scales
				 * per token per KV head (AttentionSpec.
				 * page_size_bytes l.152-164) */
	bool nvfp4;		/* packed fp4 + fp8 block scales per head:
				 * d/2 + d/16 bytes (nvfp4_kv_cache_full_dim,
				 * vllm/utils/torch_utils.py l.415) */
};

/* One KV-cache layer of the model as vLLM registers it. */
struct lentry {
	uint8_t type;		/* enum spec */
	uint8_t stage;		/* pipeline stage that holds it */
	uint64_t tok;		/* bytes per token (attention types) */
};

#define MAX_ENTRIES (2 * QA_FIT_MAX_LAYERS + MAX_DRAFT)

/* The model's KV layout for one KV dtype, and its projection on each
 * pipeline stage. */
struct layout {
	struct lentry e[MAX_ENTRIES];
	size_t n_e;
	uint64_t n[SPEC_COUNT];		/* layers of each spec, all stages */
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
	uint64_t n_spec;		/* num_speculative_blocks of MambaSpec */
	uint64_t n_stage;
	/* per stage: the uniform case sums per-layer sizes
	 * (UniformTypeKVCacheSpecs); the hybrid case keeps the group size
	 * of the projected groups (_project_kv_cache_groups_to_worker). */
	uint64_t st_n[QA_GPU_MAX][SPEC_COUNT];
	uint64_t st_tok[QA_GPU_MAX][SPEC_COUNT];
	uint64_t st_g[QA_GPU_MAX];
};

/* Sizes here come from hyperparameters and are small, but a hostile
 * header must not wrap them around: sums and products saturate
 * (qa_sat_add, qa_sat_mul in core/ckd.h). */
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
 * --kv-cache-dtype, CacheDType (vllm/config/cache.py l.18-33) with
 * get_dtype_size: auto/bf16/fp16 2 bytes, fp8* 1 (per-tensor scales: the
 * scalar k_scale/v_scale of each attention layer, no page bytes),
 * fp8/int8_per_token_head 1 plus scales, nvfp4 packed. The ggml block
 * types have no vLLM counterpart; they are mapped to fp8, vLLM's
 * smallest per-tensor type, and a note says so.
 */
static struct kvfmt
kv_format(const char *t, struct qa_fit_notes *nb)
{
	struct kvfmt f = { 2, false, false };

	if (!t || qa_ascii_ieq(t, "f16") || qa_ascii_ieq(t, "bf16") || qa_ascii_ieq(t, "fp16") ||
	    qa_ascii_ieq(t, "auto") || qa_ascii_ieq(t, "float16") || qa_ascii_ieq(t, "bfloat16"))
		return f;
	f.s = 1;
	if (qa_ascii_ieq(t, "fp8") || qa_ascii_ieq(t, "fp8_e4m3") || qa_ascii_ieq(t, "fp8_e5m2") ||
	    qa_ascii_ieq(t, "fp8_inc") || qa_ascii_ieq(t, "int8"))
		return f;
	if (qa_ascii_ieq(t, "fp8_per_token_head") || qa_ascii_ieq(t, "int8_per_token_head")) {
		f.per_token_head = true;
		return f;
	}
	if (qa_ascii_ieq(t, "nvfp4")) {
		f.nvfp4 = true;
		return f;
	}
	if (qa_ascii_ieq(t, "f32") || qa_ascii_ieq(t, "float32")) {
		f.s = 4;
		return f;
	}
	if (nb)
		qa_fit_note(nb, qa_arena_printf(nb->arena,
			"vLLM has no %s KV cache; computed as "
			"--kv-cache-dtype fp8 (1 byte/element)", t));
	return f;
}

/* Bytes per token of one attention layer with h KV heads on a rank:
 * real_page_size_bytes / block_size of FullAttentionSpec
 * (kv_cache_interface.py l.279-298) plus the per-token-head scales. */
static uint64_t
attn_tok(uint64_t h, uint64_t dk, uint64_t dv, const struct kvfmt *f)
{
	uint64_t t;

	if (f->nvfp4)
		t = qa_sat_mul(h, dk / 2 + dk / 16 + dv / 2 + dv / 16);
	else
		t = qa_sat_mul(qa_sat_mul(h, dk + dv), f->s);
	if (f->per_token_head)
		t = qa_sat_add(t, qa_sat_mul(2 * 4, h));
	return t;
}

/* MLAAttentionSpec.real_page_size_bytes (l.354-369): one latent head of
 * kv_lora_rank + qk_rope_head_dim elements, whatever the TP; the nvfp4
 * packing is not applied to MLA (uint8 elements), per-token-head scales
 * are (AttentionSpec.page_size_bytes). */
static uint64_t
mla_tok(const struct qa_hparams *hp, const struct kvfmt *f)
{
	uint64_t d = (uint64_t)hp->kv_lora_rank +
		     (hp->qk_rope_dim > 0 ? (uint64_t)hp->qk_rope_dim : 0);
	uint64_t t = qa_sat_mul(d, f->nvfp4 ? 1 : f->s);

	return f->per_token_head ? qa_sat_add(t, 2 * 4) : t;
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
 * (vllm/model_executor/layers/mamba/mamba_utils.py l.128-256), conv
 * layout "SD". With speculative decoding the Mamba-2 and GDN conv states
 * keep num_spec more positions (conv_kernel - 1 + num_spec, l.180 and
 * l.226; mamba_mixer2.py l.1066, gdn_linear_attn.py l.259); Mamba-1 does
 * not. Conv state in the model dtype; SSM state fp32 for Nemotron-H
 * (NemotronHForCausalLMConfig, models/config.py l.398-425), model dtype
 * otherwise.
 */
static uint64_t
mamba_state_bytes(const struct qa_hparams *hp, bool gdn, uint64_t tp,
		  unsigned s_model, uint64_t n_spec)
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

		conv = qa_sat_mul(dconv + n_spec, qa_sat_add(qa_sat_mul(2 * ng, nstate),
						       inner) / tp);
		ssm = qa_sat_mul(qa_sat_mul(heads / tp, dv), nstate);
	} else if (ng > 0 && heads > 0) {
		/* Mamba-2: extra_groups_for_head_shards (mamba_utils.py
		 * l.200-211) adds tp - n_g groups when tp does not divide
		 * n_g (the groups are replicated): n_g + tp - n_g = tp. */
		uint64_t ngp = ng % tp == 0 ? ng : tp;
		uint64_t dh = inner / heads;

		conv = qa_sat_mul(dconv + n_spec, qa_sat_add(inner,
				qa_sat_mul(2 * ngp, nstate)) / tp);
		ssm = qa_sat_mul(qa_sat_mul(heads / tp, dh), nstate);
	} else {
		/* Mamba-1 */
		conv = qa_sat_mul(dconv, inner / tp);
		ssm = qa_sat_mul(inner / tp, nstate);
	}
	return qa_sat_add(qa_sat_mul(conv, s_model), qa_sat_mul(ssm, s_ssm));
}

/*
 * State bytes of one LFM2 short-convolution layer per rank:
 * MambaStateShapeCalculator.short_conv_state_shape (mamba_utils.py
 * l.196-204): a conv state of (L_cache - 1) x hidden/tp in the model
 * dtype, no SSM state.
 */
static uint64_t
short_conv_state_bytes(const struct qa_hparams *hp, uint64_t tp,
		       unsigned s_model)
{
	uint64_t lc = hp->ssm_d_conv > 1 ? (uint64_t)hp->ssm_d_conv - 1 : 2;
	uint64_t dim = hp->n_embd > 0 ? (uint64_t)hp->n_embd : 0;

	return qa_sat_mul(qa_sat_mul(lc, dim / tp), s_model);
}

/*
 * The layers [start, end) of pipeline stage r of pp: get_pp_indices
 * (vllm/distributed/utils.py l.95-140): L // pp each, the remainder one
 * more each on the stages before the last (partitions[-2], [-3], ...).
 */
static void
pp_range(uint64_t L, uint64_t pp, uint64_t r, uint64_t *start, uint64_t *end)
{
	uint64_t base = L / pp, rem = L % pp, s = 0, i;

	for (i = 0; i <= r; i++) {
		/* partitions[-i'] += 1 for i' in 2..rem+1: stages
		 * pp-2 down to pp-1-rem get the extra layer */
		uint64_t n = base + (rem && i + 1 < pp && i + 1 + rem >= pp ?
				     1 : 0);

		if (i == r) {
			*start = s;
			*end = s + n;
			return;
		}
		s += n;
	}
	*start = *end = s;
}

static uint8_t
stage_of(uint64_t L, uint64_t pp, uint64_t l)
{
	uint64_t r, a, b;

	for (r = 0; r < pp; r++) {
		pp_range(L, pp, r, &a, &b);
		if (l >= a && l < b)
			return (uint8_t)r;
	}
	return (uint8_t)(pp - 1);
}

/* How the layout is built: the knobs that change it. */
struct lay_opt {
	uint64_t tp, pp;
	unsigned s_model;
	uint64_t n_mbt;
	uint64_t n_spec;	/* speculative tokens (Mamba spec blocks) */
	uint64_t n_draft;	/* MTP draft attention layers, last stage */
	/* An EAGLE-3 head's layers: its own KV heads and head size (the
	 * draft config's, llama.py l.156-161); 0: the target's */
	uint64_t draft_hkv, draft_dk;
	bool tf_backend;	/* Transformers modeling backend */
};

static void
add_entry(struct layout *lay, uint8_t type, uint64_t tok, uint8_t stage)
{
	struct lentry *e;

	if (lay->n_e >= MAX_ENTRIES)
		return;
	e = &lay->e[lay->n_e++];
	e->type = type;
	e->tok = tok;
	e->stage = stage;
	if (type != SPEC_MAMBA) {
		if (lay->n[type] && tok != lay->tok_max[type])
			lay->tok_differ = true;
		if (tok > lay->tok_max[type])
			lay->tok_max[type] = tok;
	}
	lay->n[type]++;
}

/*
 * The page sizes of a hybrid layout: the attention block raised for the
 * Mamba state, then every page scaled to the largest (build_layout).
 */
static void
align_pages(struct layout *lay, uint64_t attn_tok_max)
{
	int t;

	/*
	 * Platform._align_hybrid_block_size (vllm/platforms/interface.py
	 * l.508-676): with Mamba layers the attention block becomes
	 * beta * ceil(page_mamba / (beta * page_attn(1 token))), beta =
	 * max(min kernel block, 16) = 16, and the Mamba page is padded up to
	 * the attention page (prefix caching off, mode "none").
	 */
	if (lay->n[SPEC_MAMBA] && attn_tok_max) {
		uint64_t ba = VLLM_BLOCK * qa_ceil_div(lay->mamba_state,
						qa_sat_mul(VLLM_BLOCK,
							attn_tok_max));

		for (t = 0; t < SPEC_MAMBA; t++) {
			if (!lay->n[t])
				continue;
			lay->block[t] = ba;
			lay->page[t] = qa_sat_mul(ba, lay->tok_max[t]);
		}
		lay->page[SPEC_MAMBA] = qa_sat_mul(ba, attn_tok_max);
		lay->block[SPEC_MAMBA] = ba;
	}
	/*
	 * unify_kv_cache_spec_page_size (kv_cache_utils.py l.1012-1050): a
	 * smaller page is scaled to the largest by raising its block size
	 * by the integer ratio; a non-integer ratio is NotImplementedError.
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
}

/* Fills the layout for KV format f. */
static void
build_layout(const struct qa_hparams *hp, const struct lay_opt *lo,
	     const struct kvfmt *f, struct layout *lay)
{
	uint64_t tp = lo->tp;
	uint64_t dk = hp->head_dim_k > 0 ? (uint64_t)hp->head_dim_k :
		      hp->n_head > 0 && hp->n_embd > 0 ?
		      (uint64_t)(hp->n_embd / hp->n_head) : 0;
	uint64_t dv = hp->head_dim_v > 0 ? (uint64_t)hp->head_dim_v : dk;
	bool mla = hp->kv_lora_rank > 0 && !lo->tf_backend;
	int64_t l, nl = hp->n_layer > 0 ? hp->n_layer : 0;
	uint64_t attn_tok_max = 0, max_n = 0, min_n = UINT64_MAX, full_tok;
	uint64_t i, s;
	int t;

	memset(lay, 0, sizeof(*lay));
	lay->window = hp->sliding_window;
	lay->n_mbt = lo->n_mbt;
	lay->n_spec = lo->n_spec;
	lay->n_stage = lo->pp;
	{
		/* get_num_kv_heads: max(1, H_kv / tp) (vllm/config/model.py
		 * l.1250); the scalar H_kv for the draft and the
		 * Transformers backend, which read the config's one value */
		int64_t h = hp->n_head_kv > 0 ? hp->n_head_kv : hp->n_head;
		uint64_t hr = h > 0 ? (uint64_t)h / tp : 0;

		full_tok = attn_tok(hr ? hr : 1, dk, dv, f);
	}
	for (l = 0; l < nl; l++) {
		uint8_t k = kind_of(hp, l);
		uint8_t st = stage_of((uint64_t)nl, lo->pp, (uint64_t)l);
		uint64_t tok;

		if (lo->tf_backend) {
			/* create_attention_instances (transformers/base.py
			 * l.539-594): an Attention for every decoder layer of
			 * the stage, sliding where config.layer_types says
			 * so; no Mamba or MLA specs. */
			add_entry(lay, k == QA_LAYER_SLIDING_ATTENTION &&
				  hp->sliding_window > 0 ? SPEC_SWA :
				  SPEC_FULL, full_tok, st);
			continue;
		}
		if (k == QA_LAYER_MAMBA || k == QA_LAYER_LINEAR_ATTENTION ||
		    k == QA_LAYER_SHORT_CONV ||
		    k == QA_LAYER_PARALLEL_HYBRID) {
			uint64_t sb = k == QA_LAYER_SHORT_CONV ?
				short_conv_state_bytes(hp, tp, lo->s_model) :
				mamba_state_bytes(hp,
					k == QA_LAYER_LINEAR_ATTENTION, tp,
					lo->s_model, lo->n_spec);

			add_entry(lay, SPEC_MAMBA, 0, st);
			if (sb > lay->mamba_state)
				lay->mamba_state = sb;
			/* Falcon-H1 layers also hold attention (below). */
			if (k != QA_LAYER_PARALLEL_HYBRID)
				continue;
		}
		if (k == QA_LAYER_MLP_ONLY || k == QA_LAYER_MTP)
			continue;
		if (mla) {
			add_entry(lay, SPEC_MLA, mla_tok(hp, f), st);
			continue;
		}
		{
			int64_t h = head_kv(hp, l);
			uint64_t hr;

			if (h <= 0)
				continue;	/* no cache of its own */
			hr = (uint64_t)h / tp;
			tok = attn_tok(hr ? hr : 1, dk, dv, f);
		}
		add_entry(lay, k == QA_LAYER_SLIDING_ATTENTION &&
			  hp->sliding_window > 0 ? SPEC_SWA : SPEC_FULL, tok,
			  st);
	}
	/* The MTP drafter's attention layers join the KV spec of the last
	 * stage, where the drafter lives (gpu_model_runner.py l.539), after
	 * the target's: one per MTP layer (deepseek_mtp.py l.128-139,
	 * qwen3_next_mtp.py l.78-83 "full_attention"). */
	for (i = 0; i < lo->n_draft && i < MAX_DRAFT; i++) {
		if (lo->draft_dk > 0) {
			/* an EAGLE-3 head: full attention of its own shape
			 * (kv_cache_interface.py FullAttentionSpec) */
			uint64_t hr = lo->draft_hkv / tp;

			add_entry(lay, SPEC_FULL, attn_tok(hr ? hr : 1,
				  lo->draft_dk, lo->draft_dk, f),
				  (uint8_t)(lo->pp - 1));
			continue;
		}
		add_entry(lay, mla ? SPEC_MLA : SPEC_FULL,
			  mla ? mla_tok(hp, f) : full_tok,
			  (uint8_t)(lo->pp - 1));
	}

	for (t = 0; t < SPEC_COUNT; t++) {
		if (!lay->n[t])
			continue;
		lay->n_types++;
		if (lay->n[t] > max_n)
			max_n = lay->n[t];
		if (lay->n[t] < min_n)
			min_n = lay->n[t];
		if (t != SPEC_MAMBA && lay->tok_max[t] > attn_tok_max)
			attn_tok_max = lay->tok_max[t];
		lay->block[t] = VLLM_BLOCK;
		lay->page[t] = t == SPEC_MAMBA ? lay->mamba_state :
			       qa_sat_mul(VLLM_BLOCK, lay->tok_max[t]);
	}
	for (i = 0; i < lay->n_e; i++) {
		const struct lentry *e = &lay->e[i];

		lay->st_n[e->stage][e->type]++;
		lay->st_tok[e->stage][e->type] =
			qa_sat_add(lay->st_tok[e->stage][e->type], e->tok);
	}
	lay->hybrid = lay->n_types > 1;
	if (!lay->hybrid) {
		lay->g = max_n;
		for (s = 0; s < lo->pp; s++) {
			uint64_t m = 0;

			for (t = 0; t < SPEC_COUNT; t++)
				if (lay->st_n[s][t] > m)
					m = lay->st_n[s][t];
			lay->st_g[s] = m;
		}
		return;
	}
	align_pages(lay, attn_tok_max);
	/* _get_kv_cache_groups_uniform_page_size (kv_cache_utils.py
	 * l.1057-1177): g = min layers per type, or max if max < 1.5 min,
	 * from the merged specs of all stages. */
	lay->g = (double)max_n < 1.5 * (double)min_n ? max_n : min_n;
	/*
	 * Each type's layers are dealt round-robin to its qa_ceil_div(n, g) groups
	 * (layers[i::num_groups], l.1160-1175), so that every PP stage holds
	 * a share of each group; the group size on a stage is the largest
	 * share (_max_memory_usage_bytes_from_groups l.1791: max over the
	 * projected groups).
	 */
	for (s = 0; s < lo->pp; s++) {
		uint32_t cnt[MAX_ENTRIES];
		uint64_t gw = 0;

		for (t = 0; t < SPEC_COUNT; t++) {
			uint64_t ng = qa_ceil_div(lay->n[t], lay->g), j = 0, q;

			if (ng > MAX_ENTRIES)
				ng = MAX_ENTRIES;
			memset(cnt, 0, sizeof(cnt[0]) * ng);
			for (i = 0; ng && i < lay->n_e; i++) {
				const struct lentry *e = &lay->e[i];

				if (e->type != (uint8_t)t)
					continue;
				if (e->stage == s)
					cnt[j % ng]++;
				j++;
			}
			for (q = 0; q < ng; q++)
				if (cnt[q] > gw)
					gw = cnt[q];
		}
		lay->st_g[s] = gw;
	}
}

/* Blocks one layer of spec t holds for a request of length L
 * (max_memory_usage_bytes of each spec, kv_cache_interface.py). */
static uint64_t
spec_blocks(const struct layout *lay, int t, uint64_t L)
{
	uint64_t b = lay->block[t];

	switch (t) {
	case SPEC_SWA: {
		/* SlidingWindowSpec.max_admission_blocks_per_request
		 * (l.463-494): min(W - 1 + max_num_batched_tokens, L) tokens
		 * plus one block for the window's misalignment */
		uint64_t w = lay->window > 0 ? (uint64_t)lay->window : 0;
		uint64_t n = qa_sat_add(w ? w - 1 : 0, lay->n_mbt);

		if (n > L)
			n = L;
		return qa_ceil_div(n, b) + 1;
	}
	case SPEC_MAMBA:
		/* MambaSpec.max_memory_usage_bytes (l.578-589), cache mode
		 * "none": 1 + num_speculative_blocks pages per request */
		return 1 + lay->n_spec;
	default:
		return qa_ceil_div(L, b);
	}
}

/*
 * Memory one request of length L needs on a rank of stage st, split in
 * attention KV and recurrent state: _max_memory_usage_bytes_from_groups
 * (kv_cache_utils.py l.1741-1801) over the groups projected onto the
 * stage (_project_kv_cache_groups_to_worker l.1903-1943). Uniform models:
 * the sum over the stage's layers of blocks x page; hybrid: g_stage x
 * page x the blocks of every group, empty ones included.
 */
static uint64_t
m_req(const struct layout *lay, uint64_t st, uint64_t L, uint64_t *kv,
      uint64_t *rec)
{
	uint64_t k = 0, r = 0;
	int t;

	for (t = 0; t < SPEC_COUNT; t++) {
		uint64_t bytes;

		if (!lay->n[t])
			continue;
		if (!lay->hybrid) {
			if (t == SPEC_MAMBA)
				bytes = qa_sat_mul(qa_sat_mul(lay->st_n[st][t],
						lay->page[t]),
						spec_blocks(lay, t, L));
			else
				bytes = qa_sat_mul(qa_sat_mul(spec_blocks(lay, t, L),
						lay->block[t]),
						lay->st_tok[st][t]);
		} else {
			uint64_t groups = qa_ceil_div(lay->n[t], lay->g);

			bytes = qa_sat_mul(qa_sat_mul(lay->st_g[st], lay->page[t]),
					qa_sat_mul(groups, spec_blocks(lay, t, L)));
		}
		if (t == SPEC_MAMBA)
			r = qa_sat_add(r, bytes);
		else
			k = qa_sat_add(k, bytes);
	}
	if (kv)
		*kv = k;
	if (rec)
		*rec = r;
	return qa_sat_add(k, r);
}

/* Does a request of length L fit every rank? ndev devices, device i on
 * stage stage[i] with avail[i] bytes for the KV cache. */
static bool
fits_all(const struct layout *lay, uint64_t L, const uint64_t *avail,
	 const uint8_t *stage, size_t ndev)
{
	size_t i;

	for (i = 0; i < ndev; i++)
		if (m_req(lay, stage[i], L, NULL, NULL) > avail[i])
			return false;
	return true;
}

/* _auto_fit_max_model_len (kv_cache_utils.py l.1839-1901) with
 * _estimate_max_model_len_from_groups (l.1804-1836) per worker: the
 * largest L in [1, max] that fits every worker, or -1. */
static int64_t
search_max_len(const struct layout *lay, const uint64_t *avail,
	       const uint8_t *stage, size_t ndev, uint64_t max)
{
	uint64_t lo = 1, hi = max, best = 0;

	if (max == 0 || !fits_all(lay, 1, avail, stage, ndev))
		return -1;
	while (lo <= hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (fits_all(lay, mid, avail, stage, ndev)) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best > INT64_MAX ? INT64_MAX : (int64_t)best;
}

static bool
is_expert(enum qa_role r)
{
	return r == QA_ROLE_EXPERT_GATE || r == QA_ROLE_EXPERT_UP ||
	       r == QA_ROLE_EXPERT_DOWN || r == QA_ROLE_EXPERT_GATE_UP;
}

/*
 * Activation peak P of profile_run (gpu_model_runner.py l.6065-6140), an
 * estimate: _dummy_run of max_num_batched_tokens tokens,
 * n_mbt*(3F/tp + (H_q+2H_kv)d/tp + 2E)*s for dense FFNs, the fused-MoE
 * workspace n_mbt*k*(3F_exp/tp + E)*s, and on the last stage the
 * sampler's fp32 logits min(n_seq, n_mbt) * V_pad/tp * 4 * copies
 * (_dummy_sampler_run l.5871, only on the last PP rank l.6128); floored
 * at 0.5 GiB.
 */
static uint64_t
estimate_p(const struct qa_hparams *hp, uint64_t tp, uint64_t n_mbt,
	   uint64_t n_seq, uint64_t vpad, unsigned s, bool last_stage)
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

		moe = qa_sat_mul(qa_sat_mul(n_mbt, k),
			      3 * (uint64_t)hp->n_ff_expert / tp + E);
		if (hp->n_leading_dense <= 0)
			F = hp->n_expert_shared > 0 ?
			    (uint64_t)hp->n_expert_shared *
			    (uint64_t)hp->n_ff_expert : 0;
	}
	ffn = qa_sat_mul(n_mbt, 3 * F / tp);
	if (moe > ffn)
		ffn = moe;
	attn = qa_sat_mul(n_mbt, (hq + 2 * hkv) * d / tp + 2 * E);
	fwd = qa_sat_mul(qa_sat_add(ffn, attn), s);
	if (last_stage) {
		samp = qa_sat_mul(qa_sat_mul(n_seq < n_mbt ? n_seq : n_mbt,
				       vpad / tp), 4 * VLLM_SAMPLER_COPIES);
		fwd = qa_sat_add(fwd, samp);
	}
	return fwd < VLLM_P_FLOOR ? VLLM_P_FLOOR : fwd;
}

/* Which pipeline stage holds tensor t (weights of the stage's layers;
 * embeddings on the first stage, final norm and lm_head on the last,
 * llama.py l.368-386 and l.533-548; the MTP drafter on the last,
 * gpu_model_runner.py l.539). Returns -1 for "first and last" (a tied
 * embedding under PP, which the last stage loads again as its lm_head,
 * llama.py l.368-370). */
static int
tensor_stage(const struct qa_tensor *t, uint64_t L, uint64_t pp, bool tied)
{
	if (t->mtp)
		return (int)pp - 1;
	if (t->layer >= 0 && (uint64_t)t->layer < L)
		return stage_of(L, pp, (uint64_t)t->layer);
	switch (t->role) {
	case QA_ROLE_LM_HEAD:
	case QA_ROLE_NORM:
		return (int)pp - 1;
	case QA_ROLE_EMBED:
		return tied && pp > 1 ? -1 : 0;
	default:
		return 0;
	}
}

/*
 * One vLLM fit, threaded through the stages below in the order
 * qa_fit_vllm calls them; each stage reads what the earlier ones set.
 * Lifecycle: on qa_fit_vllm's stack; inv, opt and out are the caller's,
 * the layouts live in the inventory's arena.
 */
struct vllm_plan {
	struct qa_serve_call c;		/* the call and its notes */
	double u;			/* gpu_memory_utilization */
	size_t ndev;			/* GPUs used: tp x pp after layout */
	uint64_t tp, pp;		/* tensor and pipeline parallel */
	uint64_t n_mbt, n_seq;		/* max_num_batched_tokens, max_num_seqs */
	uint64_t vpad;			/* vocabulary padded to 64 */
	uint64_t N, G;			/* non-torch memory, CUDA graphs */
	uint64_t n_spec, n_draft;	/* MTP speculative tokens, draft layers */
	/* --draft: an EAGLE-3 head (vllm_eagle) */
	const struct qa_inventory *eagle;
	uint64_t eagle_hkv, eagle_dk;	/* its layers' KV heads, head size */
	uint64_t lora_W[QA_GPU_MAX];	/* --max-loras slots per stage */
	uint64_t eagle_W, eagle_buf;	/* its weights, proposer buffer per
					 * rank of the last stage */
	const char *eagle_incompatible;
	/* per stage: weights, weights a decode step reads, activations */
	uint64_t W[QA_GPU_MAX], W_act[QA_GPU_MAX], P[QA_GPU_MAX];
	/* With MTP drafts: a verification pass reads the experts n + 1
	 * tokens route to; a draft step the MTP layers and the head. */
	uint64_t W_pass[QA_GPU_MAX], W_draft[QA_GPU_MAX];
	double pass_share;
	/* per rank: KV budget, the context's KV and state, its stage */
	uint64_t avail[QA_GPU_MAX], kv_req[QA_GPU_MAX], rec_req[QA_GPU_MAX];
	uint8_t dstage[QA_GPU_MAX];
	uint64_t max_len, ctx, min_avail;
	unsigned s_model;		/* bytes of an activation element */
	struct layout *lay, *lay_f16, *lay_fp8;
	struct lay_opt lo;
	struct kvfmt fmt, f16, fp8;
	struct qa_serve_tp wc;
	enum qa_serve_arch how;
	const char *cls;		/* the architecture class, or NULL */
	bool big;			/* a GPU with the large batch defaults */
	bool heads_ok, outside_over, tied, refused;
	bool tf;			/* the Transformers backend serves it */
	int64_t fit_len;
	const char *verdict;
};

/* Parallel layout: world = tp x pp ranks, rank = stage * tp + tp
 * rank (vllm/distributed/parallel_state.py); TP defaults to the
 * GPUs left after the stages. */
static int
vllm_layout(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_arena *arena = p->c.arena;
	size_t i;

	p->pp = opt->pp > 0 ? (uint64_t)opt->pp : 1;
	p->tp = opt->tp > 0 ? (uint64_t)opt->tp : p->ndev / p->pp;
	if (p->tp == 0 || qa_sat_mul(p->tp, p->pp) > p->ndev) {
		snprintf(p->c.err, p->c.errlen, "tensor parallel %llu x pipeline "
			 "parallel %llu needs %llu GPUs, --gpus gives %zu",
			 (unsigned long long)(p->tp ? p->tp : 1),
			 (unsigned long long)p->pp,
			 (unsigned long long)qa_sat_mul(p->tp ? p->tp : 1, p->pp), p->ndev);
		return -1;
	}
	if (p->pp > (uint64_t)hp->n_layer) {
		snprintf(p->c.err, p->c.errlen, "pipeline parallel %llu exceeds the "
			 "model's %lld layers", (unsigned long long)p->pp,
			 (long long)hp->n_layer);
		return -1;
	}
	if (qa_sat_mul(p->tp, p->pp) < p->ndev)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "TP=%llu x PP=%llu: only "
			"the first %llu of %zu GPUs are used",
			(unsigned long long)p->tp, (unsigned long long)p->pp,
			(unsigned long long)(p->tp * p->pp), p->ndev));
	p->ndev = (size_t)(p->tp * p->pp);
	for (i = 0; i < p->ndev; i++)
		p->dstage[i] = (uint8_t)(i / p->tp);
	return 0;
}

/* Tensor-parallel head checks (vLLM refuses otherwise). */
static void
vllm_head_checks(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	struct qa_arena *arena = p->c.arena;

	if (hp->n_head > 0 && (uint64_t)hp->n_head % p->tp != 0)
		p->heads_ok = false;
	if (hp->kv_lora_rank <= 0 && hp->n_head_kv > 0 &&
	    (uint64_t)hp->n_head_kv % p->tp != 0 &&
	    p->tp % (uint64_t)hp->n_head_kv != 0)
		p->heads_ok = false;
	if (!p->heads_ok)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "vLLM refuses TP=%llu: "
			"%lld attention heads / %lld KV heads do not divide "
			"evenly", (unsigned long long)p->tp,
			(long long)hp->n_head, (long long)hp->n_head_kv));
}

/* Which implementation serves the class (registry.py
 * _try_resolve_transformers l.1053-1120; --model-impl). */
static void
vllm_implementation(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	const struct qa_inventory *inv = p->c.inv;
	struct qa_arena *arena = p->c.arena;

	p->how = qa_serve_arch_support("vllm", inv, &p->cls);
	p->tf = opt->model_impl == QA_MODEL_IMPL_TRANSFORMERS ||
	     (opt->model_impl == QA_MODEL_IMPL_AUTO &&
	      (p->how == QA_SERVE_ARCH_TRANSFORMERS ||
	       p->how == QA_SERVE_ARCH_ABSENT));
	if (p->tf) {
		bool state = false;
		int64_t l;

		for (l = 0; l < hp->n_layer; l++) {
			uint8_t k = kind_of(hp, l);

			if (k == QA_LAYER_MAMBA ||
			    k == QA_LAYER_LINEAR_ATTENTION ||
			    k == QA_LAYER_SHORT_CONV ||
			    k == QA_LAYER_PARALLEL_HYBRID)
				state = true;
		}
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "%s through vLLM's "
			"Transformers modeling backend%s: every decoder "
			"layer gets an attention KV cache "
			"(transformers/base.py create_attention_instances); "
			"linears its Transformers tp_plan does not name are "
			"replicated on every rank (ReplicatedLinear, base.py "
			"l.515-523), so with TP > 1 the weights may exceed "
			"this count, and a model without a tp_plan is refused "
			"at TP > 1%s", p->cls ? p->cls : "the model",
			p->how == QA_SERVE_ARCH_ABSENT &&
			opt->model_impl == QA_MODEL_IMPL_AUTO ?
			" (no native vLLM class; fallback if Transformers "
			"knows the model)" : "",
			state ? "; upstream documents full and sliding "
			"attention only (docs/models/supported_models.md), "
			"so its recurrent layers are not served" : ""));
	}
}

/* Batch defaults, EngineArgs.get_batch_defaults (arg_utils.py
 * l.2259-2340): 2048/256 below 70 GiB or on A100, else 8192/1024
 * (OpenAI server; PRs #10382, #12369, #17073, #17885). With the
 * defaults, _set_default_max_num_seqs_and_batched_tokens_args
 * (l.2419-2495) clamps max_num_batched_tokens to max_num_seqs x
 * max_model_len and max_num_seqs to max_num_batched_tokens. */
static void
vllm_batch_defaults(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;

	p->big = opt->gpus.dev[0].vram_bytes >= 70 * GIB &&
	      !(opt->gpus.dev[0].cc_major == 8 &&
		opt->gpus.dev[0].cc_minor == 0);
	p->max_len = hp->n_ctx_train > 0 ? (uint64_t)hp->n_ctx_train : 131072;
	p->n_seq = opt->parallel > 0 ? (uint64_t)opt->parallel : p->big ? 1024 : 256;
	if (opt->max_num_batched_tokens > 0)
		p->n_mbt = (uint64_t)opt->max_num_batched_tokens;
	else if (opt->batch > 0)
		p->n_mbt = (uint64_t)opt->batch;
	else {
		uint64_t mml = opt->ctx > 0 ? (uint64_t)opt->ctx : p->max_len;

		p->n_mbt = p->big ? 8192 : 2048;
		if (qa_sat_mul(p->n_seq, mml) < p->n_mbt)
			p->n_mbt = qa_sat_mul(p->n_seq, mml);
	}
	if (opt->parallel <= 0 && p->n_seq > p->n_mbt)
		p->n_seq = p->n_mbt;
}

/* MTP speculative decoding (vllm/config/speculative.py): method
 * "mtp" drafts with the model's own n_predict MTP layers;
 * num_speculative_tokens defaults to n_predict and must be a
 * multiple of it when larger (l.768-777). */
static void
vllm_mtp(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	const struct qa_inventory *inv = p->c.inv;
	struct qa_arena *arena = p->c.arena;

	/* with --draft the tokens are the draft's (vllm_eagle) */
	if (opt->draft)
		return;
	if (opt->num_speculative_tokens > 0 || opt->mtp) {
		uint64_t n_pred = hp->n_mtp > 0 ? (uint64_t)hp->n_mtp :
				  inv->mtp.present > 0 ?
				  (uint64_t)inv->mtp.present : 0;

		if (n_pred == 0) {
			qa_fit_note(&p->c.nb, "MTP speculative decoding asked for, but the "
			     "model has no MTP layers: sized without a draft");
		} else if (p->tf) {
			qa_fit_note(&p->c.nb, "the Transformers backend skips the MTP "
			     "layers (base.py ignore_unexpected_prefixes): "
			     "sized without a draft");
		} else {
			p->n_draft = n_pred > MAX_DRAFT ? MAX_DRAFT : n_pred;
			p->n_spec = opt->num_speculative_tokens > 0 ?
				 (uint64_t)opt->num_speculative_tokens : n_pred;
			if (p->n_spec > n_pred && p->n_spec % n_pred != 0) {
				p->refused = true;
				qa_fit_note(&p->c.nb, qa_arena_printf(arena, "vLLM refuses "
					"num_speculative_tokens %llu: it must "
					"be divisible by the %llu MTP layers "
					"(speculative.py l.768-777)",
					(unsigned long long)p->n_spec,
					(unsigned long long)n_pred));
			}
			qa_fit_note(&p->c.nb, qa_arena_printf(arena, "MTP draft: %llu "
				"layer%s of weights and KV pages on the last "
				"stage, embedding and head shared with the "
				"target%s (llm_base_proposer.py l.1267-1400), "
				"%llu speculative token%s (Mamba states keep "
				"%llu more conv positions and pages)",
				(unsigned long long)p->n_draft,
				p->n_draft == 1 ? "" : "s",
				p->pp > 1 ? " except the embedding under PP" : "",
				(unsigned long long)p->n_spec,
				p->n_spec == 1 ? "" : "s",
				(unsigned long long)p->n_spec));
		}
	}
}

/*
 * An EAGLE-3 head beside the target: `fit TARGET --draft HEAD` for vLLM
 * --speculative-config '{"method": "eagle3", "model": HEAD,
 * "num_speculative_tokens": N}'. From the vllm 0.34.0 wheel (PyPI,
 * 2026-11-16; docs/fit.md "vLLM with an EAGLE-3 head"):
 *  - the draft loads in the target's dtype (spec_decode/
 *    speculator_config.py l.199), sharded on the target's TP group
 *    (eagle/utils.py l.124-133 builds it with the target's config);
 *  - its layers' KV pages join the target's pool, with its own KV heads
 *    and head size (spec_decode/speculator.py l.286-305, attn_utils.py
 *    l.140-157), in --kv-cache-dtype;
 *  - the embedding is the target's unless the head ships one of its
 *    own that differs (eagle/utils.py _should_share l.20-42,
 *    maybe_share_target_embed l.83-115), its lm_head its own when the
 *    checkpoint has one (share_target_lm_head l.45-72); d2t stays on
 *    the GPU as int64 when draft_vocab_size differs from the target's
 *    (llama_eagle3.py l.338-345), t2d is dropped (l.416-417);
 *  - a proposer buffer of max_num_batched_tokens x hidden
 *    (target_dependent_ar/speculator.py l.33-35) exists before the
 *    profile, which also runs the drafter (model_runner.py l.993-1031).
 */
static int
vllm_eagle(struct vllm_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_inventory *d = opt->draft;
	const struct qa_hparams *dh;
	struct qa_arena *arena = p->c.arena;
	int64_t th, dk;

	if (!d)
		return 0;
	dh = &d->hp;
	if (!d->draft_head.kind) {
		snprintf(p->c.err, p->c.errlen, "--draft with vLLM sizes an "
			 "EAGLE-3 head (--speculative-config method eagle3); "
			 "%s is a %s, and a separate draft model (method "
			 "draft_model) is not modelled yet", opt->draft_path,
			 qa_model_kind_name(d->model_kind));
		return -1;
	}
	if (strcmp(d->draft_head.kind, "eagle3") != 0) {
		snprintf(p->c.err, p->c.errlen, "%s is a Medusa head: vLLM "
			 "0.33 and later have no Medusa method (its proposer "
			 "and model are gone from the package), so there is "
			 "nothing to size it for", opt->draft_path);
		return -1;
	}
	if (opt->mtp) {
		snprintf(p->c.err, p->c.errlen, "--mtp on and --draft: vLLM "
			 "runs one speculative method at a time");
		return -1;
	}
	if (p->pp > 1 || p->tf) {
		snprintf(p->c.err, p->c.errlen, "an EAGLE-3 head is sized "
			 "with pipeline parallel 1 and a native vLLM class "
			 "only (with PP vLLM also needs the target's "
			 "supports_aux_hidden_states_over_pp, eagle3_utils.py "
			 "l.47-53)");
		return -1;
	}
	p->n_spec = opt->num_speculative_tokens > 0 ?
		    (uint64_t)opt->num_speculative_tokens :
		    d->draft_head.spec_tokens > 0 ?
		    (uint64_t)d->draft_head.spec_tokens : 0;
	if (p->n_spec == 0) {
		snprintf(p->c.err, p->c.errlen, "vLLM needs "
			 "num_speculative_tokens for an EAGLE-3 head "
			 "(config/speculative.py l.1653-1658: \"must be "
			 "provided\"); give --num-speculative-tokens N");
		return -1;
	}
	p->eagle = d;
	p->n_draft = dh->n_layer > 0 ? (uint64_t)dh->n_layer : 1;
	if (p->n_draft > MAX_DRAFT)
		p->n_draft = MAX_DRAFT;
	dk = dh->head_dim_k > 0 ? dh->head_dim_k :
	     dh->n_head > 0 && dh->n_embd > 0 ? dh->n_embd / dh->n_head : 0;
	p->eagle_dk = dk > 0 ? (uint64_t)dk : 0;
	p->eagle_hkv = dh->n_head_kv > 0 ? (uint64_t)dh->n_head_kv :
		       dh->n_head > 0 ? (uint64_t)dh->n_head : 0;
	if (!p->eagle_dk || !p->eagle_hkv) {
		snprintf(p->c.err, p->c.errlen, "the EAGLE-3 head's config "
			 "has no attention shape (num_attention_heads, "
			 "num_key_value_heads, hidden_size or head_dim) to "
			 "size its KV pages from");
		return -1;
	}
	/* What vLLM checks, or fails on at the first step. */
	th = d->draft_head.target_hidden > 0 ? d->draft_head.target_hidden :
	     dh->n_embd;
	if (!qa_engine_spec_target("vllm", "eagle3", p->cls))
		p->eagle_incompatible = qa_arena_printf(arena, "%s does not "
			"implement SupportsEagle3: vLLM raises \"Model does "
			"not support EAGLE3 interface\" when it loads the "
			"head (eagle3_utils.py l.15-19)",
			p->cls ? p->cls : "the target's class (unknown)");
	else if (th > 0 && hp->n_embd > 0 && th != hp->n_embd)
		p->eagle_incompatible = qa_arena_printf(arena, "the head "
			"fuses target hidden states of %lld (fc.weight, "
			"target_hidden_size), the target's hidden size is "
			"%lld: vLLM loads it and fails at the first step "
			"(llama_eagle3.py l.270-273)", (long long)th,
			(long long)hp->n_embd);
	else if (dh->n_vocab > 0 && hp->n_vocab > 0 &&
		 dh->n_vocab != hp->n_vocab)
		p->eagle_incompatible = qa_arena_printf(arena, "the head "
			"maps its tokens into a target vocabulary of %lld "
			"(vocab_size, t2d), the target's is %lld",
			(long long)dh->n_vocab, (long long)hp->n_vocab);
	else if (d->draft_head.speculators && dh->arch &&
		 strcmp(dh->arch, "llama") != 0 &&
		 strcmp(dh->arch, "qwen3") != 0)
		p->eagle_incompatible = qa_arena_printf(arena, "a "
			"speculators head of model_type %s: vLLM reads "
			"llama and qwen3 ones only (transformers_utils/"
			"configs/speculators/algos.py l.40-46)", dh->arch);
	if (p->eagle_incompatible) {
		p->refused = true;
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "vLLM refuses "
			"the pair: %s", p->eagle_incompatible));
	}
	return 0;
}

/* Bytes of t on a rank in the target's dtype (the head loads in it,
 * whatever its checkpoint's dtype): float tensors scaled by element
 * size, others as stored. */
static uint64_t
eagle_rank_bytes(const struct vllm_plan *p, const struct qa_serve_tp *w,
		 const struct qa_tensor *t)
{
	uint64_t b = qa_serve_rank_bytes(w, t);
	unsigned stored = t->elements ? (unsigned)(t->bytes / t->elements) :
			  0;
	bool fl = t->dtype && (qa_ascii_ieq(t->dtype, "F32") ||
			       qa_ascii_ieq(t->dtype, "F16") ||
			       qa_ascii_ieq(t->dtype, "BF16"));

	if (!fl || !stored || stored == p->s_model)
		return b;
	return qa_ceil_div(qa_sat_mul(b, p->s_model), stored);
}

/* The head's weights and proposer buffer on the last stage's ranks,
 * after vllm_weights; the bytes a draft step reads. */
/*
 * Whether the head's embedding or lm_head t is the target's own (the one
 * tensor of that role in the target, same type, shape and bytes): vLLM
 * then shares the target's and frees the head's copy
 * (vllm/v1/worker/gpu/spec_decode/eagle/utils.py, _should_share, which
 * torch.equal's the two after a load into one dtype). 1 the same, 0 not,
 * -1 not known (unreadable, remote, or no single target tensor).
 */
static int
eagle_same_as_target(const struct vllm_plan *p, const struct qa_tensor *t)
{
	const struct qa_inventory *inv = p->c.inv;
	const struct qa_tensor *mine = NULL;
	bool equal;
	size_t i;

	for (i = 0; i < inv->n_tensors; i++)
		if (inv->tensors[i].role == t->role && !inv->tensors[i].mtp) {
			if (mine)
				return -1;
			mine = &inv->tensors[i];
		}
	if (!mine)
		return -1;
	if (qa_tensor_bytes_equal(p->eagle, t, inv, mine, &equal) != QA_OK)
		return -1;
	return equal ? 1 : 0;
}

static void
vllm_eagle_weights(struct vllm_plan *p)
{
	const struct qa_inventory *d = p->eagle;
	const struct qa_hparams *hp = p->c.hp;
	struct qa_arena *arena = p->c.arena;
	struct qa_serve_tp w;
	uint64_t last = p->pp - 1, embed = 0, read = 0, head = 0;
	uint64_t shared = 0, unread = 0;
	bool own_head = false;
	size_t i;

	if (!d)
		return;
	qa_serve_tp_init(&w, &d->hp, p->tp);
	for (i = 0; i < d->n_tensors; i++) {
		const struct qa_tensor *t = &d->tensors[i];
		uint64_t b;

		if (strcmp(t->name, "t2d") == 0)
			continue;	/* dropped on load */
		if (strcmp(t->name, "d2t") == 0) {
			/* int64 on every rank, only for a reduced vocab */
			if (d->draft_head.draft_vocab > 0 && hp->n_vocab > 0 &&
			    d->draft_head.draft_vocab != hp->n_vocab)
				p->eagle_W = qa_sat_add(p->eagle_W, qa_sat_mul(
					(uint64_t)d->draft_head.draft_vocab, 8));
			continue;
		}
		b = eagle_rank_bytes(p, &w, t);
		if (t->role == QA_ROLE_EMBED || t->role == QA_ROLE_LM_HEAD) {
			int same = eagle_same_as_target(p, t);

			if (same > 0) {
				shared = qa_sat_add(shared, b);
				continue;	/* vLLM keeps the target's */
			}
			if (same < 0 && t->role == QA_ROLE_EMBED)
				unread = qa_sat_add(unread, b);
		}
		if (t->role == QA_ROLE_EMBED)
			embed = qa_sat_add(embed, b);
		else if (t->role == QA_ROLE_LM_HEAD)
			own_head = true;
		if (t->role != QA_ROLE_EMBED)
			read = qa_sat_add(read, b);
		p->eagle_W = qa_sat_add(p->eagle_W, b);
	}
	if (!own_head)
		/* the target's head, already on the last stage, is read
		 * by every draft step */
		for (i = 0; i < p->c.inv->n_tensors; i++) {
			const struct qa_tensor *t = &p->c.inv->tensors[i];

			if (t->role == QA_ROLE_LM_HEAD ||
			    (p->tied && t->role == QA_ROLE_EMBED))
				head = qa_sat_add(head,
					qa_serve_rank_bytes(&p->wc, t));
		}
	p->W[last] = qa_sat_add(p->W[last], p->eagle_W);
	p->W_draft[last] = qa_sat_add(read, head);
	p->eagle_buf = qa_sat_mul(qa_sat_mul(p->n_mbt, d->hp.n_embd > 0 ?
		(uint64_t)d->hp.n_embd : 0), p->s_model);
	if (shared > 0)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "the EAGLE-3 "
			"head's own copy of the target's embedding or head "
			"(%.2f MiB a rank) holds the target's very bytes, so "
			"vLLM keeps the target's and frees it (torch.equal, "
			"vllm/v1/worker/gpu/spec_decode/eagle/utils.py "
			"_should_share): not counted",
			(double)shared / (1024.0 * 1024.0)));
	if (unread > 0)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "the EAGLE-3 "
			"head ships its own embedding (%.2f MiB a rank), "
			"counted: vLLM drops it for the target's when the two "
			"are equal (torch.equal, eagle/utils.py "
			"_should_share), and their bytes could not be read "
			"here to compare", (double)unread / (1024.0 * 1024.0)));
	else if (embed > 0)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "the EAGLE-3 "
			"head ships its own embedding (%.2f MiB a rank), "
			"counted: it differs from the target's (type, shape "
			"or bytes), so vLLM keeps both (eagle/utils.py "
			"_should_share)", (double)embed / (1024.0 * 1024.0)));
}

/* Weights per rank (tensor parallelism) and per stage. */
static void
vllm_weights(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_inventory *inv = p->c.inv;
	size_t i;

	p->vpad = hp->n_vocab > 0 ? qa_ceil_div((uint64_t)hp->n_vocab,
				      QA_SERVE_VOCAB_PAD) *
				 QA_SERVE_VOCAB_PAD : 0;
	qa_serve_tp_init(&p->wc, hp, p->tp);
	memset(p->W, 0, sizeof(p->W));
	memset(p->W_act, 0, sizeof(p->W_act));
	memset(p->W_pass, 0, sizeof(p->W_pass));
	memset(p->W_draft, 0, sizeof(p->W_draft));
	if (p->n_spec > 0 && hp->n_expert > 0 && hp->n_expert_used > 0)
		p->pass_share = qa_moe_touched_share(
			(uint32_t)hp->n_expert_used, (uint32_t)hp->n_expert,
			(uint32_t)(p->n_spec > QA_MTP_MAX_DRAFT ?
				   QA_MTP_MAX_DRAFT : p->n_spec) + 1);
	for (i = 0; i < inv->n_tensors; i++)
		if (inv->tensors[i].role == QA_ROLE_LM_HEAD)
			p->tied = false;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		uint64_t b, ba, st;
		int where;

		if (t->mtp) {
			/* The drafter's own embedding and shared head are
			 * replaced by the target's (llm_base_proposer.py
			 * _maybe_share_embeddings, only with PP = 1,
			 * l.1267-1334; _maybe_share_lm_head l.1336-1400). */
			if (p->n_draft == 0 || p->eagle ||
			    t->role == QA_ROLE_MTP_SHARED_HEAD ||
			    (t->role == QA_ROLE_MTP_EMBED && p->pp == 1))
				continue;
		}
		b = qa_serve_rank_bytes(&p->wc, t);
		/* Bytes a decode step reads: only the active experts, and
		 * the embedding only when it is also the (tied) output. */
		ba = b;
		if (is_expert(t->role) && hp->n_expert > 0 &&
		    hp->n_expert_used > 0)
			ba = qa_ceil_div(qa_sat_mul(b, (uint64_t)hp->n_expert_used),
				  (uint64_t)hp->n_expert);
		if ((t->role == QA_ROLE_EMBED && !p->tied) ||
		    t->role == QA_ROLE_MTP_EMBED || t->mtp)
			ba = 0;
		where = tensor_stage(t, (uint64_t)hp->n_layer, p->pp, p->tied);
		for (st = 0; st < p->pp; st++) {
			uint64_t bp = ba, bd = 0;

			if (!(where == (int)st ||
			      (where < 0 && (st == 0 || st == p->pp - 1))))
				continue;
			p->W[st] = qa_sat_add(p->W[st], b);
			/* the tied duplicate on the last stage is the head */
			p->W_act[st] = qa_sat_add(p->W_act[st], where < 0 &&
					    st == 0 ? 0 : ba);
			if (t->mtp) {
				/* a draft token reads its MTP layer, k of
				 * the experts of it */
				bd = is_expert(t->role) && hp->n_expert > 0 &&
				     hp->n_expert_used > 0 ?
				     qa_ceil_div(qa_sat_mul(b, (uint64_t)
						  hp->n_expert_used),
					  (uint64_t)hp->n_expert) : b;
				if (t->role == QA_ROLE_MTP_EMBED)
					bd = 0;
			} else if (is_expert(t->role) && p->pass_share > 0) {
				bp = (uint64_t)((double)b * p->pass_share);
			}
			/* and the shared head on the last stage */
			if ((t->role == QA_ROLE_LM_HEAD ||
			     (t->role == QA_ROLE_EMBED && p->tied)) &&
			    st == p->pp - 1)
				bd = b;
			p->W_pass[st] = qa_sat_add(p->W_pass[st], where < 0 &&
					     st == 0 ? 0 : bp);
			p->W_draft[st] = qa_sat_add(p->W_draft[st], bd);
		}
	}
	if (inv->n_tensors == 0)
		qa_fit_note(&p->c.nb, "no tensors in the input: weights counted as 0");
	if (inv->kind == QA_KIND_GGUF)
		qa_fit_note(&p->c.nb, "GGUF in vLLM: weights counted as stored (vLLM's "
		     "GGUF loader keeps supported quantized types packed); "
		     "vLLM's GGUF support is experimental");
	if (inv->dominant_type && (qa_ascii_ieq(inv->dominant_type, "F32")))
		p->s_model = 4;
}

/* vLLM's --max-lora-rank values (config/lora.py MaxLoRARanks, a
 * Literal): the smallest at or above r, 0 above the largest. */
int
qa_vllm_lora_rank_at_least(int64_t r)
{
	static const int ranks[] = { 1, 8, 16, 32, 64, 128, 256, 320, 512 };
	size_t i;

	for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++)
		if (ranks[i] >= r)
			return ranks[i];
	return 0;
}

/*
 * LoRA slots (--max-loras M, --max-lora-rank R; vLLM --enable-lora):
 * at load, every LoRA-capable module gets stacked A and B weights for M
 * adapters of rank R in the model's dtype (lora_dtype "auto",
 * config/lora.py l.45), zeros allocated whether or not an adapter ever
 * fills them, inside the load's memory profile, so they come out of the
 * KV budget. From the vllm 0.34.0 wheel (lora/layers/), per rank of a
 * Llama-style decoder layer (qkv_proj, o_proj, gate_up_proj, down_proj;
 * llama.py packed_modules_mapping, embedding_modules):
 *  - column-parallel (QKV, 3 slices; gate_up, 2): A [M, 1, R, E] per
 *    slice, B [M, 1, out/TP, R] per slice (base_linear.py l.104-154,
 *    column_parallel_linear.py l.466-499);
 *  - row-parallel (o, down): A [M, 1, R, in/TP], B [M, 1, E, R]
 *    (row_parallel_linear.py l.26-28);
 *  - embed_tokens: A [M, V, R], B [M, 1, E, R], whole on every rank
 *    (vocab_parallel_embedding.py l.25-49); lm_head: A [M, 1, R, E],
 *    B [M, 1, V, R], whole (logits_processor.py l.84-111), and vLLM
 *    refuses a vocabulary above 258048 (l.91-92).
 */
static int
vllm_lora(struct vllm_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_inventory *inv = p->c.inv;
	struct qa_arena *arena = p->c.arena;
	uint64_t M, R, E, V, F, d, tok, st;
	bool gated = false;
	int64_t l;
	size_t i;

	if (opt->max_loras <= 0 && opt->max_lora_rank <= 0)
		return 0;
	M = opt->max_loras > 0 ? (uint64_t)opt->max_loras : 1;
	R = opt->max_lora_rank > 0 ? (uint64_t)opt->max_lora_rank : 16;
	if ((uint64_t)qa_vllm_lora_rank_at_least((int64_t)R) != R) {
		snprintf(p->c.err, p->c.errlen, "vLLM takes --max-lora-rank 1, "
			 "8, 16, 32, 64, 128, 256, 320 or 512 (config/lora.py "
			 "MaxLoRARanks), not %llu", (unsigned long long)R);
		return -1;
	}
	for (i = 0; i < inv->n_tensors; i++)
		if (inv->tensors[i].role == QA_ROLE_FFN_GATE ||
		    inv->tensors[i].role == QA_ROLE_FFN_GATE_UP)
			gated = true;
	for (l = 0; l < hp->n_layer; l++) {
		uint8_t k = kind_of(hp, l);

		if (k != QA_LAYER_FULL_ATTENTION &&
		    k != QA_LAYER_SLIDING_ATTENTION)
			gated = false;
	}
	if (!gated || hp->n_expert > 0 || hp->kv_lora_rank > 0 || p->tf ||
	    hp->n_embd <= 0 || hp->n_head <= 0 || hp->n_ff <= 0 ||
	    hp->n_vocab <= 0) {
		snprintf(p->c.err, p->c.errlen, "vLLM's LoRA slots are sized "
			 "for dense attention models with a gated MLP (qkv_proj, "
			 "o_proj, gate_up_proj, down_proj); this one (experts, "
			 "MLA, recurrent layers or another MLP) is not modelled");
		return -1;
	}
	E = (uint64_t)hp->n_embd;
	V = (uint64_t)hp->n_vocab;
	F = qa_ceil_div((uint64_t)hp->n_ff, p->tp);
	d = hp->head_dim_k > 0 ? (uint64_t)hp->head_dim_k :
	    E / (uint64_t)hp->n_head;
	if (V > 258048) {
		p->refused = true;
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "vLLM refuses "
			"LoRA for a vocabulary of %llu: \"When using LoRA, "
			"vocab size must be <= 258048\" (lora/layers/"
			"logits_processor.py l.91-92)", (unsigned long long)V));
	}
	for (l = 0; l < hp->n_layer; l++) {
		int64_t h = head_kv(hp, l);
		uint64_t hq = (uint64_t)hp->n_head / p->tp;
		uint64_t hk = h > 0 ? (uint64_t)h / p->tp : 0;

		if (hk == 0)
			hk = 1;
		/* elements: qkv A 3RE + B R d (hq + 2 hk); o A R hq d + B E R;
		 * gate_up A 2RE + B 2 F R; down A R F + B E R */
		tok = qa_sat_mul(R, qa_sat_add(qa_sat_add(qa_sat_mul(7, E),
			qa_sat_mul(d, qa_sat_mul(2, qa_sat_add(hq, hk)))),
			qa_sat_mul(3, F)));
		st = stage_of((uint64_t)hp->n_layer, p->pp, (uint64_t)l);
		p->lora_W[st] = qa_sat_add(p->lora_W[st],
			qa_sat_mul(qa_sat_mul(tok, M), p->s_model));
	}
	/* embed_tokens on the first stage, lm_head on the last */
	tok = qa_sat_mul(qa_sat_mul(R, qa_sat_add(V, E)),
			 qa_sat_mul(M, p->s_model));
	p->lora_W[0] = qa_sat_add(p->lora_W[0], tok);
	p->lora_W[p->pp - 1] = qa_sat_add(p->lora_W[p->pp - 1], tok);
	for (st = 0; st < p->pp; st++)
		p->W[st] = qa_sat_add(p->W[st], p->lora_W[st]);
	qa_fit_note(&p->c.nb, qa_arena_printf(arena, "LoRA slots: %llu "
		"adapter%s of rank %llu on every LoRA-capable module, %.2f MiB "
		"a rank of the %s stage, in the weights above (allocated at "
		"load, vllm 0.34.0 lora/layers/)", (unsigned long long)M,
		M == 1 ? "" : "s", (unsigned long long)R,
		(double)p->lora_W[p->pp - 1] / (1024.0 * 1024.0),
		p->pp > 1 ? "last" : "one"));
	return 0;
}

/* KV dtype (one for K and V in vLLM). */
static int
vllm_kv_layouts(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_arena *arena = p->c.arena;
	size_t i;

	p->fmt = kv_format(opt->kv_k, &p->c.nb);
	if (opt->kv_v && opt->kv_k && !qa_ascii_ieq(opt->kv_v, opt->kv_k))
		qa_fit_note(&p->c.nb, "vLLM has one --kv-cache-dtype for K and V; the K "
		     "type was used");
	if (p->fmt.nvfp4) {
		bool fp4 = true;

		for (i = 0; i < p->ndev; i++)
			if (!(opt->gpus.dev[i].flags & QA_GPU_FP4))
				fp4 = false;
		if (!fp4)
			qa_fit_note(&p->c.nb, "--kv-cache-dtype nvfp4 needs FP4 tensor "
			     "cores (Blackwell); not every GPU here has them "
			     "or their type is unknown");
	}
	p->lo.tp = p->tp;
	p->lo.pp = p->pp;
	p->lo.s_model = p->s_model;
	p->lo.n_mbt = p->n_mbt;
	p->lo.n_spec = p->n_spec;
	p->lo.n_draft = p->n_draft;
	p->lo.draft_hkv = p->eagle_hkv;
	p->lo.draft_dk = p->eagle_dk;
	p->lo.tf_backend = p->tf;
	/* About 20 KiB each: from the inventory's arena, not the stack. */
	p->lay = qa_arena_alloc(arena, sizeof(*p->lay));
	p->lay_f16 = qa_arena_alloc(arena, sizeof(*p->lay_f16));
	p->lay_fp8 = qa_arena_alloc(arena, sizeof(*p->lay_fp8));
	if (!p->lay || !p->lay_f16 || !p->lay_fp8) {
		snprintf(p->c.err, p->c.errlen, "out of memory");
		return -1;
	}
	build_layout(hp, &p->lo, &p->fmt, p->lay);
	build_layout(hp, &p->lo, &p->f16, p->lay_f16);
	build_layout(hp, &p->lo, &p->fp8, p->lay_fp8);
	if (p->lay->n_types == 0) {
		snprintf(p->c.err, p->c.errlen, "no attention or state layers to size "
			 "the vLLM KV cache from");
		return -1;
	}
	if (p->lay->unify_failed)
		qa_fit_note(&p->c.nb, "KV page sizes of the layer kinds are not integer "
		     "multiples: vLLM raises NotImplementedError "
		     "(unify_kv_cache_spec_page_size); sized with the "
		     "largest page");
	if (p->lay->hybrid && p->lay->tok_differ)
		qa_fit_note(&p->c.nb, "per-layer KV sizes differ within a hybrid group; "
		     "sized with the largest");
	return 0;
}

/* Budget per rank (determine_available_memory, gpu_worker.py
 * l.354-450): M_avail = ceil(u T) - (W + P + N) - G, G only when
 * CUDA graphs are captured (cudagraph_mode != NONE, l.399-407;
 * --enforce-eager sets NONE, vllm/config/vllm.py l.1019-1025). */
static void
vllm_budget(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_fit_result *out = p->c.out;
	struct qa_arena *arena = p->c.arena;
	size_t i;

	for (i = 0; i < p->pp; i++)
		p->P[i] = opt->vllm_activation_bytes ? opt->vllm_activation_bytes :
		       estimate_p(hp, p->tp, p->n_mbt, p->n_seq, p->vpad, p->s_model,
				  i == p->pp - 1);
	if (p->eagle && !opt->vllm_activation_bytes) {
		/* the profile runs the drafter after the target
		 * (model_runner.py l.993-1031): the larger peak of the two,
		 * the drafter's over the fused target states [T, 3 x H]
		 * (speculator.py l.148-152) */
		const struct qa_hparams *dh = &p->eagle->hp;
		uint64_t dv = dh->n_vocab > 0 ? (uint64_t)dh->n_vocab : 0;
		uint64_t pd = estimate_p(dh, p->tp, p->n_mbt, p->n_seq,
					 qa_ceil_div(dv, QA_SERVE_VOCAB_PAD) *
					 QA_SERVE_VOCAB_PAD, p->s_model, true);
		uint64_t nf = p->eagle->draft_head.n_aux > 0 ?
			      p->eagle->draft_head.n_aux : 3;

		pd = qa_sat_add(pd, qa_sat_mul(qa_sat_mul(p->n_mbt, nf),
			qa_sat_mul(hp->n_embd > 0 ? (uint64_t)hp->n_embd : 0,
				   p->s_model)));
		if (pd > p->P[p->pp - 1])
			p->P[p->pp - 1] = pd;
	}
	if (p->eagle)
		p->P[p->pp - 1] = qa_sat_add(p->P[p->pp - 1], p->eagle_buf);
	p->N = opt->vllm_nontorch_bytes ? opt->vllm_nontorch_bytes :
	    VLLM_N_DEFAULT;
	p->G = opt->enforce_eager ? 0 : opt->vllm_cudagraph_bytes ?
	    opt->vllm_cudagraph_bytes : VLLM_G_DEFAULT;
	if (!opt->vllm_activation_bytes || !opt->vllm_nontorch_bytes ||
	    (!opt->vllm_cudagraph_bytes && !opt->enforce_eager))
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "vLLM measures activations "
			"(P, a profile run of %llu tokens), non-torch memory "
			"(N) and CUDA graphs (G) at start-up; estimated here "
			"(P closed form of docs/fit.md, N 0.25 GiB, %s): "
			"non-deterministic", (unsigned long long)p->n_mbt,
			opt->enforce_eager ? "G 0 with --enforce-eager" :
			"G 0.35 GiB"));
	else if (opt->enforce_eager)
		qa_fit_note(&p->c.nb, "--enforce-eager: no CUDA graphs, G = 0");

	if (opt->ctx > 0)
		p->ctx = (uint64_t)opt->ctx;
	else
		p->ctx = p->max_len;
	if (opt->ctx > 0 && p->ctx > p->max_len)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "vLLM refuses "
			"max_model_len %llu above the derived %llu unless "
			"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
			(unsigned long long)p->ctx,
			(unsigned long long)p->max_len));

	out->n_devices = p->ndev;
	for (i = 0; i < p->ndev; i++) {
		const struct qa_gpu_device *g = &opt->gpus.dev[i];
		struct qa_fit_device *d = &out->devices[i];
		uint64_t st = p->dstage[i];
		double rr = ceil(p->u * (double)g->vram_bytes);
		uint64_t R = rr >= 1.8e19 ? UINT64_MAX : (uint64_t)rr;
		uint64_t a = qa_sub_floor(R, qa_sat_add(qa_sat_add(p->W[st], p->P[st]),
						  qa_sat_add(p->N, p->G)));
		uint64_t outside = qa_sub_floor(g->vram_bytes, g->usable_bytes);
		uint64_t a0, b0;

		if (p->tp > 1 || p->pp > 1)
			outside = qa_sat_add(outside, VLLM_NCCL_EST);
		snprintf(d->name, sizeof(d->name), "%s", g->name);
		d->vram_bytes = g->vram_bytes;
		d->usable_bytes = R;
		d->weights_bytes = p->W[st];
		d->compute_bytes = qa_sat_add(p->P[st], p->G);
		d->overhead_bytes = qa_sat_add(p->N, outside);
		pp_range((uint64_t)hp->n_layer, p->pp, st, &a0, &b0);
		d->first_layer = (int32_t)a0;
		d->last_layer = (int32_t)b0 - 1;
		d->has_output = st == p->pp - 1;
		if (outside > qa_sub_floor(g->vram_bytes, R)) {
			p->outside_over = true;
			/* what overflows (1-u)T is taken from the budget */
			a = qa_sub_floor(a, outside - qa_sub_floor(g->vram_bytes, R));
		}
		p->avail[i] = a;
		if (a < p->min_avail)
			p->min_avail = a;
	}
	if (p->outside_over)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "CUDA context + NCCL (est.) "
			"exceed (1-u)T outside vLLM's budget: lower "
			"--gpu-memory-utilization below %.2f", p->u));
	if (p->pp > 1)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "PP=%llu: stage r holds "
			"layers get_pp_indices(%lld, r, %llu) "
			"(vllm/distributed/utils.py l.95-140) and their KV "
			"pages; max_model_len is the smallest over the "
			"workers (_auto_fit_max_model_len)",
			(unsigned long long)p->pp, (long long)hp->n_layer,
			(unsigned long long)p->pp));
}

/* The requested context's KV and state (one request), and the
 * largest context per KV type over all workers. */
static void
vllm_context(struct vllm_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_fit_result *out = p->c.out;

	if (opt->ctx < 0) {
		p->fit_len = search_max_len(p->lay, p->avail, p->dstage, p->ndev, p->max_len);
		p->ctx = p->fit_len > 0 ? (uint64_t)p->fit_len : 1;
	}
	out->context = (int64_t)(p->ctx > INT64_MAX ? INT64_MAX : p->ctx);
	out->kv_type_k = opt->kv_k ? opt->kv_k : "bf16";
	out->kv_type_v = opt->kv_v ? opt->kv_v : out->kv_type_k;
	out->max_context_f16 = search_max_len(p->lay_f16, p->avail, p->dstage, p->ndev,
					      p->max_len);
	out->max_context_q8_0 = search_max_len(p->lay_fp8, p->avail, p->dstage, p->ndev,
					       p->max_len);
	out->max_context_q4_0 = out->max_context_q8_0;
	qa_fit_note(&p->c.nb, "max_context q8_0 and q4_0 are vLLM's fp8 KV cache "
	     "(vLLM has no block-quantized KV types); vLLM preallocates "
	     "all of M_avail as KV pool, kv_bytes is what the context needs");
}

/* Each worker's KV and state for the context against its budget
 * (_check_enough_kv_cache_memory), the totals and the verdict. */
static void
vllm_verdict(struct vllm_plan *p)
{
	struct qa_fit_result *out = p->c.out;
	size_t i;

	p->verdict = NULL;
	for (i = 0; i < p->ndev; i++) {
		struct qa_fit_device *d = &out->devices[i];
		uint64_t over = qa_sub_floor(qa_sub_floor(d->overhead_bytes, p->N),
					  qa_sub_floor(d->vram_bytes,
						    d->usable_bytes));
		uint64_t inside;

		m_req(p->lay, p->dstage[i], p->ctx, &p->kv_req[i], &p->rec_req[i]);
		inside = qa_sat_add(qa_sat_add(d->weights_bytes, p->kv_req[i]),
			qa_sat_add(p->rec_req[i], qa_sat_add(d->compute_bytes, p->N)));
		d->kv_bytes = p->kv_req[i];
		d->recurrent_bytes = p->rec_req[i];
		inside = qa_sat_add(inside, over);
		d->free_bytes = d->usable_bytes >= inside ?
			(int64_t)(d->usable_bytes - inside) :
			-(int64_t)(inside - d->usable_bytes > INT64_MAX ?
				   INT64_MAX : inside - d->usable_bytes);
		out->totals_weights = qa_sat_add(out->totals_weights,
					      d->weights_bytes);
		out->totals_kv = qa_sat_add(out->totals_kv, p->kv_req[i]);
		out->totals_recurrent = qa_sat_add(out->totals_recurrent,
						p->rec_req[i]);
		out->totals_compute = qa_sat_add(out->totals_compute,
					      d->compute_bytes);
		/* _check_enough_kv_cache_memory on each worker */
		if (p->avail[i] == 0 || qa_sat_add(p->kv_req[i], p->rec_req[i]) > p->avail[i])
			p->verdict = "does-not-fit";
		else if (!p->verdict &&
			 (double)(p->avail[i] - p->kv_req[i] - p->rec_req[i]) <
			 TIGHT_SHARE * (double)d->usable_bytes)
			p->verdict = "tight";
	}
	if (!p->heads_ok || p->refused)
		p->verdict = "does-not-fit";
	else if (!p->verdict)
		p->verdict = p->outside_over ? "tight" : "fits";
	out->verdict = p->verdict;
}

/* fit.draft for an EAGLE-3 head: its share of each rank (already in
 * devices[]) and what vLLM says of the pair. */
static void
vllm_eagle_result(struct vllm_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_fit_result *out = p->c.out;
	struct qa_fit_pair *dp = &out->draft;
	struct qa_arena *arena = p->c.arena;
	uint64_t tok, cells;
	size_t i;

	if (!p->eagle)
		return;
	dp->present = true;
	dp->method = "eagle3";
	dp->path = qa_arena_strdup(arena, opt->draft_path ? opt->draft_path :
				   "");
	dp->context = out->context;
	dp->kv_type = out->kv_type_k;
	dp->n_draft = (int)p->n_spec;
	dp->compatible = p->eagle_incompatible == NULL;
	dp->incompatible = p->eagle_incompatible;
	/* its layers' pages for the context (FullAttentionSpec
	 * max_memory_usage_bytes: whole blocks) */
	{
		uint64_t hr = p->eagle_hkv / p->tp;

		tok = attn_tok(hr ? hr : 1, p->eagle_dk, p->eagle_dk, &p->fmt);
	}
	cells = qa_sat_mul(qa_ceil_div(p->ctx, VLLM_BLOCK), VLLM_BLOCK);
	for (i = 0; i < p->ndev; i++) {
		if (p->dstage[i] != p->pp - 1)
			continue;
		dp->devices[i].weights_bytes = p->eagle_W;
		dp->devices[i].kv_bytes = qa_sat_mul(qa_sat_mul(cells, tok),
						     p->n_draft);
		dp->devices[i].compute_bytes = p->eagle_buf;
	}
	qa_fit_note(&p->c.nb, qa_arena_printf(arena, "EAGLE-3 head %s: "
		"%llu layer%s of KV pages in the target's pool, %llu "
		"speculative token%s%s; each request also holds %llu "
		"lookahead slots (kv_cache_manager.py l.572-574, capped at "
		"max_model_len, so not in the start-up check); every figure "
		"above includes it (vllm 0.34.0)", dp->path,
		(unsigned long long)p->n_draft, p->n_draft == 1 ? "" : "s",
		(unsigned long long)p->n_spec, p->n_spec == 1 ? "" : "s",
		opt->num_speculative_tokens > 0 ? "" :
		" (the head's speculators_config)",
		(unsigned long long)p->n_spec));
}

/* Decode ceiling: each rank reads its weights (active experts only)
 * plus the context's KV and state per token; the ranks of a stage
 * work in parallel, so its slowest rank bounds it, and the stages
 * run in series. Tensor parallelism adds two all-reduces per layer
 * (after attention and after the MLP), each an assumed
 * AR_SECONDS over PCIe. With MTP drafts, a step is one
 * verification pass and n draft steps (src/fit/decode.h). */
static void
vllm_decode_ceiling(struct vllm_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_fit_result *out = p->c.out;
	size_t i;
	double tsum = 0, tpass = 0;
	bool known = true;
	uint64_t st, n_ar = p->tp > 1 ? 2 : 0;

	for (st = 0; st < p->pp && known; st++) {
		double worst = 0, wpass = 0, wdraft = 0;
		uint64_t lo_l, hi_l;

		for (i = 0; i < p->ndev; i++) {
			uint64_t bytes, kvrec;
			double bw, tt;

			if (p->dstage[i] != st)
				continue;
			kvrec = qa_sat_add(p->kv_req[i], p->rec_req[i]);
			bytes = qa_sat_add(p->W_act[st], kvrec);
			if (!opt->gpus.dev[i].bandwidth_gbs || !bytes) {
				known = false;
				break;
			}
			bw = (double)opt->gpus.dev[i].bandwidth_gbs *
			     1e9;
			tt = (double)bytes / bw;
			if (tt > worst)
				worst = tt;
			tt = (double)qa_sat_add(p->W_pass[st], kvrec) / bw;
			if (tt > wpass)
				wpass = tt;
			tt = (double)p->W_draft[st] / bw;
			if (tt > wdraft)
				wdraft = tt;
		}
		pp_range((uint64_t)(hp->n_layer > 0 ? hp->n_layer : 0),
			 p->pp, st, &lo_l, &hi_l);
		tsum += worst + (double)(n_ar * (hi_l - lo_l)) *
			AR_SECONDS;
		tpass += wpass + (double)(n_ar * (hi_l - lo_l)) *
			 AR_SECONDS + (double)p->n_spec * wdraft;
	}
	if (p->n_spec > 0 && st == p->pp)
		tpass += (double)(p->n_spec * n_ar * p->n_draft) *
			 AR_SECONDS;
	out->decode_tokens_per_s_max = known && tsum > 0 ?
				       1.0 / tsum : 0;
	if (p->eagle) {
		struct qa_fit_pair *dp = &out->draft;

		dp->tokens_per_pass = qa_draft_tokens_per_pass(
			(int)p->n_spec);
		dp->acceptance_source = QA_DRAFT_ACCEPTANCE_SOURCE;
		dp->decode_tokens_per_s_max = known && tpass > 0 ?
			dp->tokens_per_pass / tpass : 0;
	} else if (p->n_spec > 0) {
		double acc[QA_MTP_MAX_DRAFT];
		size_t na = qa_mtp_acceptance(hp->arch_raw ?
			hp->arch_raw : hp->arch,
			(int)(p->n_spec > QA_MTP_MAX_DRAFT ?
			      QA_MTP_MAX_DRAFT : p->n_spec), acc,
			&out->mtp_acceptance_source);

		out->mtp_draft_tokens = (int)na;
		out->mtp_tokens_per_pass =
			qa_mtp_tokens_per_pass(acc, na);
		out->decode_tokens_per_s_mtp = known && tpass > 0 ?
			out->mtp_tokens_per_pass / tpass : 0;
	}
	if (p->tp > 1 && known)
		qa_fit_note(&p->c.nb, "decode ceiling: the ranks of a stage read "
		     "in parallel, plus two all-reduces per layer at "
		     "an assumed 15 us each over PCIe (not measured "
		     "here; NVLink is faster)");
}

/* The formula line: the budget of the worst rank and the KV groups. */
static void
vllm_formula(struct vllm_plan *p)
{
	struct qa_fit_result *out = p->c.out;
	struct qa_arena *arena = p->c.arena;
	int t;
	char kinds[96];
	size_t off = 0;

	kinds[0] = '\0';
	for (t = 0; t < SPEC_COUNT; t++) {
		int n;

		if (!p->lay->n[t])
			continue;
		n = snprintf(kinds + off, sizeof(kinds) - off,
			     "%s%s %llux page %llu B/%llu tok",
			     off ? ", " : "", spec_name[t],
			     (unsigned long long)p->lay->n[t],
			     (unsigned long long)p->lay->page[t],
			     (unsigned long long)p->lay->block[t]);
		if (n < 0 || (size_t)n >= sizeof(kinds) - off)
			break;
		off += (size_t)n;
	}
	out->formula = qa_arena_printf(arena,
		"vLLM V1 9aaf83ef TP=%llu PP=%llu: M_avail = "
		"ceil(%.2f*T) - (W + P + N) - G = %.2f GiB on the "
		"worst rank; %s; %s %llu layers; max_model_len by "
		"_auto_fit_max_model_len (vllm/v1/worker/"
		"gpu_worker.py, vllm/v1/core/kv_cache_utils.py; "
		"docs/fit.md)", (unsigned long long)p->tp,
		(unsigned long long)p->pp, p->u,
		(double)p->min_avail / (double)GIB, kinds,
		p->lay->hybrid ? "hybrid groups of" : "one KV group of",
		(unsigned long long)p->lay->g);
	if (!out->formula)
		out->formula = "vLLM V1 (docs/fit.md)";
}

int
qa_fit_vllm(const struct qa_inventory *inv,
	    const struct qa_fit_options *opt,
	    struct qa_fit_result *out, char *err, size_t errlen)
{
	struct vllm_plan plan = { 0 }, *p = &plan;

	qa_serve_call_init(&p->c, inv, opt, out, QA_ENGINE_VLLM, err, errlen);
	p->u = opt->gpu_memory_utilization > 0 &&
	       opt->gpu_memory_utilization <= 1 ?
	       opt->gpu_memory_utilization : VLLM_UTIL;
	p->ndev = opt->gpus.n;
	p->min_avail = UINT64_MAX;
	p->s_model = 2;
	p->f16 = (struct kvfmt){ 2, false, false };
	p->fp8 = (struct kvfmt){ 1, false, false };
	p->heads_ok = true;
	p->tied = true;
	if (qa_serve_check_inputs(&inv->hp, &opt->gpus, "vLLM",
				  "KV cache", err, errlen) < 0 ||
	    vllm_layout(p) < 0)
		return -1;
	vllm_head_checks(p);
	vllm_implementation(p);
	vllm_batch_defaults(p);
	vllm_mtp(p);
	if (vllm_eagle(p) < 0)
		return -1;
	vllm_weights(p);
	vllm_eagle_weights(p);
	if (vllm_lora(p) < 0)
		return -1;
	if (vllm_kv_layouts(p) < 0)
		return -1;
	vllm_budget(p);
	vllm_context(p);
	vllm_verdict(p);
	vllm_eagle_result(p);
	vllm_decode_ceiling(p);
	vllm_formula(p);
	return 0;
}
