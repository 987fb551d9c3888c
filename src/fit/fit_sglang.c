/* SPDX-License-Identifier: MIT */
/*
 * The SGLang memory model: per tensor-parallel rank, the static share
 * SGLang gives weights and KV pool (--mem-fraction-static, by default a
 * heuristic of the GPU's size, the prefill chunk, the CUDA-graph batch
 * sizes and TP), the token-to-KV pool that fills it (MHA cells per
 * attention-TP rank, MLA latent cells replicated, the hybrid sliding-
 * window split, Mamba/GDN state pools taken first), the request-to-token
 * table beside it, and the largest context a request can use.
 *
 * Source: sgl-project/sglang at 8905cbd42f4a (2026-07-20, read from the
 * history of a fork that carries upstream's commits). Each formula below
 * names the SGLang file, function and line it restates:
 *   python/sglang/srt/server_args.py          mem_fraction_static default
 *   python/sglang/srt/distributed/bootstrap.py  pre_model_load_memory
 *   python/sglang/srt/mem_cache/kv_cache_configurator.py  the budget,
 *       Mamba pool, max_running_requests
 *   python/sglang/srt/model_executor/pool_configurator.py  the cells
 *   python/sglang/srt/mem_cache/memory_pool.py  the pools' shapes
 * Unlike vLLM, SGLang measures nothing before sizing the pool: the budget
 * is free memory times a fraction, so everything here is deterministic
 * except the activations and CUDA graphs that must fit in what the
 * fraction leaves, which SGLang estimates and quantaudit compares with.
 * docs/fit.md "## SGLang" documents the model.
 */
#include "fit/fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "core/arena.h"
#include "core/ckd.h"
#include "core/inventory.h"
#include "fit/fit_serve.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* NCCL buffers created before pre_model_load_memory is read (bootstrap.py
 * l.60-116 initializes the groups first), so outside what SGLang sizes
 * from; the CUDA context is the device's reservation (vram - usable). */
#define SGL_NCCL_EST (GIB / 4)
/* swa_full_tokens_ratio and mamba_full_memory_ratio defaults
 * (server_args.py l.795-806, l.2098-2104). */
#define SGL_SWA_RATIO 0.8
#define SGL_MAMBA_RATIO 0.9
/* MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO and the extra-buffer
 * addition with the overlap scheduler (kv_cache_configurator.py l.101-102,
 * _calculate_mamba_ratio l.1572-1592). */
#define SGL_MAMBA_REQ_RATIO 3
#define SGL_MAMBA_EXTRA_OVERLAP 2
/* get_req_to_token_extra_context_len (allocation_sizing.py l.46-53): 4
 * rows of headroom beyond the context without speculation. */
#define SGL_REQ_EXTRA 4
#define TIGHT_SHARE 0.05

static uint8_t
kind_of(const struct qa_hparams *hp, int64_t l)
{
	if (hp->layer_kind && l < hp->n_layer_all)
		return hp->layer_kind[l];
	return QA_LAYER_FULL_ATTENTION;
}

static bool
in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* is_hybrid_swa_model (configs/model_config.py l.1903-1940): only these
 * classes get the split full/sliding pools; other sliding-window models
 * (Gemma 2/3, Cohere2, ...) give every layer a full-length cache. */
static const char *const hybrid_swa_archs[] = {
	"Llama4ForConditionalGeneration", "DeepseekV4ForCausalLM",
	"GptOssForCausalLM", "MiMoV2FlashForCausalLM", "MiMoV2ForCausalLM",
	"Step3p5ForCausalLM", "Step3p7ForConditionalGeneration",
	"Gemma4ForCausalLM", "Gemma4ForConditionalGeneration",
	"Gemma4UnifiedForConditionalGeneration", "LagunaForCausalLM",
	"MellumForCausalLM", "InklingForConditionalGeneration",
	"UnlimitedOCRForCausalLM", NULL,
};

/* _MAMBA_EXTRA_BUFFER_ARCHS (arg_groups/overrides.py l.1131-1146): with
 * the default triton linear-attention backend and the overlap scheduler
 * the "auto" radix strategy becomes extra_buffer (l.1190-1199). */
static const char *const mamba_extra_buffer_archs[] = {
	"KimiLinearForCausalLM", "Qwen3_5ForConditionalGeneration",
	"Qwen3_5MoeForConditionalGeneration", "Qwen3NextForCausalLM",
	"InternS2PreviewForConditionalGeneration",
	"MiniCPMV4_6ForConditionalGeneration", "BailingMoeV2_5ForCausalLM",
	"FalconH1ForCausalLM", "GraniteMoeHybridForCausalLM",
	"NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", NULL,
};

/* KV element layout of --kv-cache-dtype (server_args.py l.604-628). */
enum kvk { KV_16, KV_FP8, KV_MXFP8, KV_FP4 };

static enum kvk
kv_kind(const char *t)
{
	if (!t || qa_ascii_ieq(t, "auto") || qa_ascii_ieq(t, "bf16") || qa_ascii_ieq(t, "bfloat16") ||
	    qa_ascii_ieq(t, "f16") || qa_ascii_ieq(t, "float16"))
		return KV_16;
	if (qa_ascii_ieq(t, "mxfp8"))
		return KV_MXFP8;
	if (qa_ascii_ieq(t, "fp4_e2m1") || qa_ascii_ieq(t, "nvfp4"))
		return KV_FP4;
	return KV_FP8;
}

/* The attention geometry of the model on one attention-TP rank. */
struct geom {
	bool mla;
	uint64_t heads;		/* get_num_kv_heads(tp): max(1, H_kv/tp) */
	uint64_t dk, dv;	/* head_dim, v_head_dim */
	uint64_t n_full, n_swa;	/* attention layers with KV */
	uint64_t n_layers;	/* layers the default configurator counts */
	bool hybrid_swa;
	uint64_t n_draft;	/* EAGLE/NextN draft layers */
};

/*
 * Bytes per token of `layers` layers: DefaultPoolConfigurator.
 * _compute_cell_size (pool_configurator.py l.171-285). MHA: H/tp x
 * (head_dim + v_head_dim) x layers x kv_size; MLA: (kv_lora_rank +
 * qk_rope_head_dim) x layers x kv_size, whatever the TP; FP4 halves the
 * cell and adds a scale per 16 elements (and, for MHA, one shared FP8
 * dequant workspace row); mxfp8 adds a scale byte per 32 elements.
 */
static uint64_t
cell_size(const struct qa_hparams *hp, const struct geom *g, uint64_t layers,
	  enum kvk k)
{
	uint64_t kv_size = k == KV_16 ? 2 : 1;

	if (g->mla) {
		uint64_t d = (uint64_t)hp->kv_lora_rank +
			     (hp->qk_rope_dim > 0 ? (uint64_t)hp->qk_rope_dim : 0);
		uint64_t c = qa_sat_mul(qa_sat_mul(d, layers), kv_size);

		if (k == KV_FP4)
			c = qa_sat_add(c / 2, qa_sat_mul(qa_sat_mul(d / 16, layers),
						   kv_size));
		return c;
	}
	{
		uint64_t c = qa_sat_mul(qa_sat_mul(qa_sat_mul(g->heads, g->dk + g->dv),
					     layers), kv_size);

		if (k == KV_FP4) {
			uint64_t nk = qa_sat_mul(g->heads, g->dk);

			c = qa_sat_add(c / 2, qa_sat_mul(qa_sat_mul(nk, layers),
						   2 * kv_size) / 16);
			c = qa_sat_add(c, qa_sat_mul(nk, 2 * kv_size));
		} else if (k == KV_MXFP8) {
			c = qa_sat_add(c, qa_sat_mul(qa_sat_mul(g->heads, g->dk + g->dv),
					       layers) / 32);
		}
		return c;
	}
}

/* Per-layer Mamba/GDN/short-conv state of one request on a rank
 * (configs/mamba_utils.py Mamba2StateShape.create l.163-212,
 * mamba_cache_per_req l.116-126): conv (d_conv - 1) x (I + 2 n_g' N)/tp
 * in bf16 (SGLANG_MAMBA_CONV_DTYPE default, l.68), SSM (H/tp) x head_dim
 * x N in float32 (l.71, unless the config's mamba_ssm_dtype says
 * otherwise). GDN maps n_v -> heads, n_k -> groups, d_k -> N
 * (configs/qwen3_next.py l.288-313); LFM2 keeps the conv state only
 * (configs/lfm2.py l.60-90). */
static uint64_t
state_bytes(const struct qa_hparams *hp, uint8_t kind, uint64_t tp)
{
	uint64_t dconv = hp->ssm_d_conv > 1 ? (uint64_t)hp->ssm_d_conv - 1 : 3;
	uint64_t inner = hp->ssm_d_inner > 0 ? (uint64_t)hp->ssm_d_inner : 0;
	uint64_t nstate = hp->ssm_d_state > 0 ? (uint64_t)hp->ssm_d_state : 0;
	uint64_t heads = hp->ssm_dt_rank > 0 ? (uint64_t)hp->ssm_dt_rank : 0;
	uint64_t ng = hp->ssm_n_group > 0 ? (uint64_t)hp->ssm_n_group : 0;
	uint64_t conv, ssm = 0;

	if (kind == QA_LAYER_SHORT_CONV) {
		uint64_t dim = hp->n_embd > 0 ? (uint64_t)hp->n_embd : 0;
		uint64_t lc = hp->ssm_d_conv > 1 ?
			      (uint64_t)hp->ssm_d_conv - 1 : 2;

		return qa_sat_mul(qa_sat_mul(lc, dim / tp), 2);
	}
	if (ng && heads) {
		/* extra_groups_for_head_shards (mamba_utils.py l.29-39) adds
		 * tp - n_g groups when tp does not divide n_g */
		uint64_t ngp = ng % tp == 0 ? ng : tp;

		conv = qa_sat_mul(dconv, qa_sat_add(inner, qa_sat_mul(2 * ngp,
							      nstate)) / tp);
		ssm = qa_sat_mul(qa_sat_mul(heads / tp, inner / heads), nstate);
	} else {
		/* Mamba-1 shapes: conv (d_conv-1) x I/tp, SSM I/tp x N */
		conv = qa_sat_mul(dconv, inner / tp);
		ssm = qa_sat_mul(inner / tp, nstate);
	}
	return qa_sat_add(qa_sat_mul(conv, 2), qa_sat_mul(ssm, 4));
}

/* Capture sizes of the prefill CUDA graph up to max_bs
 * (_generate_prefill_cuda_graph_batch_sizes, server_args.py l.4232-4250):
 * 4..32 step 4, 48..256 step 16, 288..512 step 32, 576..1024 step 64,
 * 1280..4096 step 256, 4608.. step 512. */
static uint64_t
prefill_graph_sizes(uint64_t max_bs)
{
	static const uint64_t lo[] = { 4, 48, 288, 576, 1280, 4608 };
	static const uint64_t hi[] = { 32, 256, 512, 1024, 4096, UINT64_MAX };
	static const uint64_t step[] = { 4, 16, 32, 64, 256, 512 };
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < sizeof(lo) / sizeof(lo[0]); i++) {
		uint64_t top = hi[i] < max_bs ? hi[i] : max_bs;

		if (top >= lo[i])
			n += (top - lo[i]) / step[i] + 1;
	}
	return n;
}

/* What the default mem_fraction_static depends on
 * (_handle_gpu_memory_settings, server_args.py l.3867-4070). */
struct msf {
	double gpu_mem;		/* MiB, nvidia-smi total (min over GPUs) */
	uint64_t chunk;		/* chunked_prefill_size */
	uint64_t decode_bs;	/* cuda_graph_config[decode].max_bs */
	uint64_t prefill_bs;	/* cuda_graph_config[prefill].max_bs */
	uint64_t n_prefill;	/* prefill capture sizes */
	double graph_mib;	/* reserve_for_graph_mb */
	double reserved_mib;	/* reserved_mem */
	double fraction;	/* mem_fraction_static */
};

static void
default_fraction(struct msf *m, uint64_t tp, bool mla, bool eager,
		 uint64_t ctx_given, int chunk_given)
{
	double g = m->gpu_mem;
	double act;

	/* GPU-size table, l.3895-3952 */
	if (g < 20 * 1024) {
		m->chunk = 2048;
		m->decode_bs = 8;
	} else if (g < 35 * 1024) {
		m->chunk = 2048;
		m->decode_bs = tp < 4 ? 24 : 80;
	} else if (g < 60 * 1024) {
		m->chunk = 4096;
		m->decode_bs = tp < 4 ? 32 : 160;
	} else if (g < 160 * 1024) {
		m->chunk = 8192;
		m->decode_bs = tp < 4 ? 256 : 512;
	} else {
		m->chunk = 16384;
		m->decode_bs = 512;
	}
	if (chunk_given > 0)
		m->chunk = (uint64_t)chunk_given;
	/* prefill graph max_bs: the chunk, 2048 for MLA backends (l.3984-
	 * 3991), clamped to an explicit context_length (l.4006-4012) */
	m->prefill_bs = mla ? 2048 : m->chunk;
	if (ctx_given && ctx_given < m->prefill_bs)
		m->prefill_bs = ctx_given;
	m->n_prefill = prefill_graph_sizes(m->prefill_bs);
	/* reserve_for_graph_mb (l.4131-4163): decode max_bs x 2, prefill
	 * 8 MiB per capture size (1.5 GiB for MLA); none with
	 * --disable-cuda-graph (both phases DISABLED, l.3575-3577) */
	m->graph_mib = eager ? 0 :
		       (double)m->decode_bs * 2 +
		       (mla ? 1.5 * 1024 : (double)m->n_prefill * 8);
	/* l.4040-4050: 512 + 1.5 MiB per activation token (at least 2048)
	 * + TP x PP / 8 GiB + graphs; at least 10 GiB above 60 GiB */
	act = (double)(m->chunk > 2048 ? m->chunk : 2048);
	m->reserved_mib = 512 + act * 1.5 + (double)tp / 8 * 1024 +
			  m->graph_mib;
	if (g > 60 * 1024 && m->reserved_mib < 10 * 1024)
		m->reserved_mib = 10 * 1024;
	/* round((gpu_mem - reserved_mem) / gpu_mem, 3), l.4052-4056 */
	m->fraction = qa_floor((g - m->reserved_mib) / g * 1000 + 0.5) / 1000;
}

static bool
has_role(const struct qa_inventory *inv, enum qa_role r1, enum qa_role r2)
{
	size_t i;

	for (i = 0; i < inv->n_tensors; i++)
		if (inv->tensors[i].role == r1 || inv->tensors[i].role == r2)
			return true;
	return false;
}

static bool
is_expert(enum qa_role r)
{
	return r == QA_ROLE_EXPERT_GATE || r == QA_ROLE_EXPERT_UP ||
	       r == QA_ROLE_EXPERT_DOWN || r == QA_ROLE_EXPERT_GATE_UP;
}

/* Pool tokens for KV kind k out of `rest` bytes (DefaultPoolConfigurator
 * / HybridSWAPoolConfigurator.calculate_pool_sizes, pool_configurator.py
 * l.287-298, l.449-454), page size 1. */
static uint64_t
pool_tokens(const struct qa_hparams *hp, const struct geom *g, enum kvk k,
	    uint64_t rest, uint64_t *cell_out)
{
	double cell;
	uint64_t c;

	if (g->hybrid_swa) {
		/* F x (n_full + drafts) + ratio x S x n_swa (l.385-409);
		 * all-SWA models size the SWA pool directly */
		double F = (double)cell_size(hp, g, 1, k);

		cell = g->n_full ?
		       F * (double)(g->n_full + g->n_draft) +
		       SGL_SWA_RATIO * F * (double)g->n_swa :
		       F * (double)(g->n_swa + g->n_draft);
		c = (uint64_t)cell;
	} else {
		c = cell_size(hp, g, g->n_layers, k);
		/* EAGLE/MTP: cell x (1 + draft / layers), truncated
		 * (l.134-151) */
		if (g->n_draft && g->n_layers)
			c = (uint64_t)((double)c * (1.0 + (double)g->n_draft /
						    (double)g->n_layers));
		cell = (double)c;
	}
	if (cell_out)
		*cell_out = c;
	return cell > 0 ? (uint64_t)((double)rest / cell) : 0;
}

/*
 * One SGLang fit, threaded through the stages below in the order
 * qa_fit_sglang calls them; each stage reads what the earlier ones set.
 * Lifecycle: on qa_fit_sglang's stack; inv, opt and out are the caller's.
 */
struct sglang_plan {
	struct qa_serve_call c;		/* the call and its notes */
	size_t ndev;			/* GPUs used: tp after layout */
	uint64_t tp;
	uint64_t W, W_act;		/* weights per rank; read per token */
	uint64_t F_pre, after_load;	/* free memory before / after load */
	uint64_t max_len, ctx, n_tok, cell;
	uint64_t per_req, mamba_slots, n_state, req_rows, req_pool;
	uint64_t kv_ctx, slack, ctx_len, n_tok16, n_tok8;
	uint64_t dk, dv;		/* K and V head sizes */
	double f, rest_d;		/* mem_fraction_static; what it leaves */
	int64_t rest;
	struct msf m;
	struct geom geo;
	struct qa_serve_tp wc;
	const char *cls;		/* the architecture class, or NULL */
	enum qa_serve_arch how;
	enum kvk kk;
	bool mla, heads_ok, refused, mamba_extra;
	bool tied, vlm;
	const char *verdict;
};

/* Tensor parallelism: TP defaults to every GPU given. */
static int
sglang_layout(struct sglang_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_arena *arena = p->c.arena;

	p->tp = opt->tp > 0 ? (uint64_t)opt->tp : p->ndev;
	if (p->tp > p->ndev) {
		snprintf(p->c.err, p->c.errlen, "tensor parallel %llu needs %llu GPUs, "
			 "--gpus gives %zu", (unsigned long long)p->tp,
			 (unsigned long long)p->tp, p->ndev);
		return -1;
	}
	if (p->tp < p->ndev)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "TP=%llu: only the first "
			"%llu of %zu GPUs are used", (unsigned long long)p->tp,
			(unsigned long long)p->tp, p->ndev));
	p->ndev = (size_t)p->tp;
	return 0;
}

/* Tensor-parallel head checks (SGLang refuses otherwise). */
static void
sglang_head_checks(struct sglang_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	struct qa_arena *arena = p->c.arena;

	p->mla = hp->kv_lora_rank > 0;
	if (hp->n_head > 0 && (uint64_t)hp->n_head % p->tp != 0)
		p->heads_ok = false;
	if (!p->mla && hp->n_head_kv > 0 && (uint64_t)hp->n_head_kv % p->tp != 0 &&
	    p->tp % (uint64_t)hp->n_head_kv != 0)
		p->heads_ok = false;
	if (!p->heads_ok)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "SGLang refuses TP=%llu: "
			"%lld attention heads / %lld KV heads do not divide "
			"evenly", (unsigned long long)p->tp,
			(long long)hp->n_head, (long long)hp->n_head_kv));
}

/* Which implementation serves the class (models/registry.py). */
static void
sglang_implementation(struct sglang_plan *p)
{
	const struct qa_inventory *inv = p->c.inv;
	struct qa_arena *arena = p->c.arena;

	p->how = qa_serve_arch_support("sglang", inv, &p->cls);
	if (p->how == QA_SERVE_ARCH_ABSENT)
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "SGLang has no class %s: it "
			"would fall back to its Transformers backend "
			"(TransformersForCausalLM, models/registry.py "
			"_normalize_archs l.61-78); sized as a native model",
			p->cls));
}

/* The model's geometry (pool_configurator.py, model_config.py). */
static int
sglang_geometry(struct sglang_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	int64_t l;

	memset(&p->geo, 0, sizeof(p->geo));
	p->geo.mla = p->mla;
	p->dk = hp->head_dim_k > 0 ? (uint64_t)hp->head_dim_k :
	     hp->n_head > 0 ? (uint64_t)(hp->n_embd / hp->n_head) : 0;
	p->dv = hp->head_dim_v > 0 ? (uint64_t)hp->head_dim_v : p->dk;
	p->geo.dk = p->dk;
	p->geo.dv = p->dv;
	{
		int64_t h = hp->n_head_kv > 0 ? hp->n_head_kv : hp->n_head;

		p->geo.heads = h > 0 && (uint64_t)h >= p->tp ? (uint64_t)h / p->tp : 1;
	}
	p->geo.hybrid_swa = p->cls && in_list(p->cls, hybrid_swa_archs) &&
			 hp->sliding_window > 0;
	for (l = 0; l < hp->n_layer; l++) {
		uint8_t k = kind_of(hp, l);

		if (k == QA_LAYER_MAMBA || k == QA_LAYER_LINEAR_ATTENTION ||
		    k == QA_LAYER_SHORT_CONV ||
		    k == QA_LAYER_PARALLEL_HYBRID) {
			p->per_req = qa_sat_add(p->per_req, state_bytes(hp, k, p->tp));
			p->n_state++;
			if (k != QA_LAYER_PARALLEL_HYBRID)
				continue;
		}
		if (k == QA_LAYER_MLP_ONLY || k == QA_LAYER_MTP)
			continue;
		if (!p->mla && hp->head_kv_per_layer &&
		    hp->head_kv_per_layer[l] <= 0)
			continue;
		if (k == QA_LAYER_SLIDING_ATTENTION && p->geo.hybrid_swa)
			p->geo.n_swa++;
		else
			p->geo.n_full++;
	}
	/* Mamba-ish models count only their full-attention layers
	 * (DefaultPoolConfigurator l.120-128); the others every layer the
	 * runner owns (num_effective_layers). */
	p->geo.n_layers = p->n_state ? p->geo.n_full : (uint64_t)hp->n_layer;
	if (p->geo.hybrid_swa)
		p->geo.n_layers = p->geo.n_full + p->geo.n_swa;
	if (p->geo.n_layers == 0 && p->n_state == 0) {
		snprintf(p->c.err, p->c.errlen, "no attention or state layers to size "
			 "the SGLang KV pool from");
		return -1;
	}
	p->mamba_extra = p->cls && in_list(p->cls, mamba_extra_buffer_archs);
	return 0;
}

/* MTP as EAGLE/NextN: the draft's layers inflate the cell
 * (spec_aux_hidden_state.py l.57-78 eagle_draft_num_layers =
 * num_nextn_predict_layers). */
static void
sglang_mtp(struct sglang_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	const struct qa_inventory *inv = p->c.inv;

	if (opt->num_speculative_tokens > 0 || opt->mtp) {
		uint64_t n_pred = hp->n_mtp > 0 ? (uint64_t)hp->n_mtp :
				  inv->mtp.present > 0 ?
				  (uint64_t)inv->mtp.present : 0;

		if (n_pred == 0)
			qa_fit_note(&p->c.nb, "MTP speculative decoding asked for, but the "
			     "model has no MTP layers: sized without a draft");
		else if (p->n_state)
			qa_fit_note(&p->c.nb, "SGLang MTP on a Mamba/GDN hybrid also "
			     "reserves intermediate states per draft token "
			     "and needs --max-running-requests "
			     "(_handle_max_mamba_cache): not modelled, sized "
			     "without a draft");
		else
			p->geo.n_draft = n_pred;
	}
}

/* Weights per rank: the same parallel layers as vLLM
 * (fit_serve.c); the NextN draft shares the target's embedding and
 * head (eagle_worker set_embed_and_head). */
static void
sglang_weights(struct sglang_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_inventory *inv = p->c.inv;
	size_t i;

	qa_serve_tp_init(&p->wc, hp, p->tp);
	for (i = 0; i < inv->n_tensors; i++)
		if (inv->tensors[i].role == QA_ROLE_LM_HEAD)
			p->tied = false;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		uint64_t b;

		if (t->mtp && (p->geo.n_draft == 0 ||
			       t->role == QA_ROLE_MTP_EMBED ||
			       t->role == QA_ROLE_MTP_SHARED_HEAD))
			continue;
		b = qa_serve_rank_bytes(&p->wc, t);
		p->W = qa_sat_add(p->W, b);
		if (t->mtp || (t->role == QA_ROLE_EMBED && !p->tied))
			continue;
		if (is_expert(t->role) && hp->n_expert > 0 &&
		    hp->n_expert_used > 0)
			b = qa_ceil_div(qa_sat_mul(b, (uint64_t)hp->n_expert_used),
				 (uint64_t)hp->n_expert);
		p->W_act = qa_sat_add(p->W_act, b);
	}
	if (inv->kind == QA_KIND_GGUF)
		qa_fit_note(&p->c.nb, "GGUF in SGLang: weights counted as stored; SGLang "
		     "loads GGUF through its GGUF loader (--load-format "
		     "gguf), an experimental path");
}

/* Context: --context-length or the model's (context_len). */
static void
sglang_context(struct sglang_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;

	p->max_len = hp->n_ctx_train > 0 ? (uint64_t)hp->n_ctx_train : 131072;
	p->ctx = opt->ctx > 0 ? (uint64_t)opt->ctx : p->max_len;
	p->ctx_len = opt->ctx > 0 ? p->ctx : p->max_len;
}

/* mem_fraction_static: the default heuristic unless given. */
static void
sglang_fraction(struct sglang_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;
	const struct qa_inventory *inv = p->c.inv;
	size_t i;

	memset(&p->m, 0, sizeof(p->m));
	p->m.gpu_mem = 0;
	for (i = 0; i < p->ndev; i++) {
		double mib = (double)opt->gpus.dev[i].vram_bytes / (double)MIB;

		if (i == 0 || mib < p->m.gpu_mem)
			p->m.gpu_mem = mib;	/* get_nvgpu_memory_capacity: min */
	}
	default_fraction(&p->m, p->tp, p->mla, opt->enforce_eager,
			 opt->ctx > 0 ? (uint64_t)opt->ctx : 0,
			 opt->chunked_prefill_size);
	p->vlm = has_role(inv, QA_ROLE_VISION, QA_ROLE_PROJECTOR);
	if (opt->mem_fraction_static > 0) {
		p->f = opt->mem_fraction_static;
	} else {
		p->f = p->m.fraction;
		/* adjust_mem_fraction_for_vlm (l.7921-7958): x 0.95 x a
		 * ViT-size factor in [0.8, 1.05] (1 for a ViT-L/14) */
		if (p->vlm) {
			p->f *= 0.95;
			qa_fit_note(&p->c.nb, "vision model: SGLang lowers "
			     "mem_fraction_static by 0.95 x a ViT-size factor "
			     "(0.8-1.05, from vision_config); the factor is "
			     "taken as 1");
		}
	}
}

/* pre_model_load_memory: free memory after the CUDA context and
 * NCCL, the minimum over ranks (bootstrap.py l.116-121); the
 * budget after loading, also the minimum (kv_cache_configurator.py
 * _profile_available_bytes l.1527-1570): rest = free_after_load -
 * pre_model_load_memory x (1 - f). */
static void
sglang_budget(struct sglang_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_arena *arena = p->c.arena;
	size_t i;

	for (i = 0; i < p->ndev; i++) {
		const struct qa_gpu_device *g = &opt->gpus.dev[i];
		uint64_t fr = g->usable_bytes;

		if (p->tp > 1)
			fr = qa_sub_floor(fr, SGL_NCCL_EST);
		if (fr < p->F_pre)
			p->F_pre = fr;
		if (qa_sub_floor(fr, p->W) < p->after_load)
			p->after_load = qa_sub_floor(fr, p->W);
	}
	p->rest_d = (double)p->after_load - (double)p->F_pre * (1.0 - p->f);
	p->rest = p->rest_d >= 9.2e18 ? INT64_MAX : (int64_t)p->rest_d;
	if (p->rest <= 0) {
		p->refused = true;
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "SGLang refuses: loaded "
			"weights leave no GPU memory for the KV cache under "
			"--mem-fraction-static=%.3f; it needs above %.3f "
			"(_profile_available_bytes)", p->f,
			1.0 - (double)p->after_load / (double)p->F_pre));
	}
}

/* Mamba/GDN pools first (_handle_max_mamba_cache l.1703-1800): the
 * default ratio split gives them rest x r / (1 + r). */
static void
sglang_pools(struct sglang_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_arena *arena = p->c.arena;

	if (p->n_state && p->rest > 0 && p->per_req) {
		double budget = (double)p->rest * SGL_MAMBA_RATIO /
				(1.0 + SGL_MAMBA_RATIO);

		p->mamba_slots = (uint64_t)(budget / (double)p->per_req);
		p->rest -= (int64_t)qa_sat_mul(p->mamba_slots, p->per_req);
		if (p->mamba_slots == 0) {
			p->refused = true;
			qa_fit_note(&p->c.nb, "SGLang refuses: not enough GPU memory for "
			     "the hybrid state cache (max_mamba_cache_size "
			     "0)");
		}
	}

	p->kk = kv_kind(opt->kv_k);
	if (opt->kv_v && opt->kv_k && !qa_ascii_ieq(opt->kv_v, opt->kv_k))
		qa_fit_note(&p->c.nb, "SGLang has one --kv-cache-dtype for K and V; the K "
		     "type was used");
	p->n_tok = p->rest > 0 ? pool_tokens(hp, &p->geo, p->kk, (uint64_t)p->rest, &p->cell) :
		0;
	if (p->rest <= 0)
		pool_tokens(hp, &p->geo, p->kk, 0, &p->cell);
	p->n_tok16 = p->rest > 0 ? pool_tokens(hp, &p->geo, KV_16, (uint64_t)p->rest,
					 NULL) : 0;
	p->n_tok8 = p->rest > 0 ? pool_tokens(hp, &p->geo, KV_FP8, (uint64_t)p->rest,
					NULL) : 0;
	if (!p->refused && p->n_tok == 0 && p->geo.n_layers) {
		p->refused = true;
		qa_fit_note(&p->c.nb, "SGLang refuses: Not enough memory (the KV pool "
		     "holds no token)");
	}
	if (p->geo.hybrid_swa && p->geo.n_full && !p->refused &&
	    (uint64_t)hp->sliding_window + 1 >=
	    (uint64_t)((double)p->n_tok * SGL_SWA_RATIO)) {
		p->refused = true;
		qa_fit_note(&p->c.nb, qa_arena_printf(arena, "SGLang refuses: the SWA "
			"pool (%llu tokens) cannot hold one request's window "
			"of %lld (pool_configurator.py l.425-436)",
			(unsigned long long)(p->n_tok * 4 / 5),
			(long long)hp->sliding_window));
	}
}

/* max_running_requests (resolve_max_num_reqs l.1622-1660):
 * clip(tokens / context_len x 512, 2048, 4096), or the given value,
 * at most tokens / 2; hybrids also at most the Mamba slots / ratio.
 * The request-to-token table holds (requests + 1) x (context_len +
 * 4) int32 (ReqToTokenPool, memory_pool.py l.244-270), allocated
 * after the pool from what the fraction leaves. */
static void
sglang_requests(struct sglang_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;

	uint64_t est = (uint64_t)((double)p->n_tok / (double)p->ctx_len *
				  512.0);

	if (est < 2048)
		est = 2048;
	if (est > 4096)
		est = 4096;
	p->req_rows = opt->parallel > 0 ? (uint64_t)opt->parallel : est;
	if (p->req_rows > p->n_tok / 2)
		p->req_rows = p->n_tok / 2;
	if (p->n_state) {
		uint64_t ratio = SGL_MAMBA_REQ_RATIO +
				 (p->mamba_extra ?
				  SGL_MAMBA_EXTRA_OVERLAP : 0);

		if (p->req_rows > p->mamba_slots / ratio)
			p->req_rows = p->mamba_slots / ratio;
	}
	p->req_pool = qa_sat_mul(qa_sat_mul(p->req_rows + 1, p->ctx_len +
				   SGL_REQ_EXTRA), 4);
}

/* --ctx max (check's default): the largest context a request can
 * use, min(context_len, pool tokens). */
static void
sglang_max_context(struct sglang_plan *p)
{
	const struct qa_fit_options *opt = p->c.opt;

	if (opt->ctx < 0)
		p->ctx = p->n_tok == 0 ? 1 : p->n_tok < p->max_len ? p->n_tok : p->max_len;
}

/* One request of the context: its cells (the sliding layers hold
 * the window), its state. */
static void
sglang_devices(struct sglang_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_fit_result *out = p->c.out;
	size_t i;

	if (p->geo.hybrid_swa) {
		uint64_t F = cell_size(hp, &p->geo, 1, p->kk);
		uint64_t w = (uint64_t)hp->sliding_window;

		p->kv_ctx = qa_sat_add(qa_sat_mul(qa_sat_mul(p->ctx, F),
					 p->geo.n_full + p->geo.n_draft),
				 qa_sat_mul(qa_sat_mul(p->ctx < w ? p->ctx : w, F),
					 p->geo.n_swa));
	} else {
		p->kv_ctx = qa_sat_mul(p->ctx, p->cell);
	}
	p->slack = (uint64_t)((double)p->F_pre * (1.0 - p->f));

	out->n_devices = p->ndev;
	out->context = (int64_t)(p->ctx > INT64_MAX ? INT64_MAX : p->ctx);
	out->kv_type_k = opt->kv_k ? opt->kv_k : "bf16";
	out->kv_type_v = opt->kv_v ? opt->kv_v : out->kv_type_k;
	out->max_context_f16 = p->n_tok16 == 0 ? -1 :
			       (int64_t)(p->n_tok16 < p->max_len ? p->n_tok16 : p->max_len);
	out->max_context_q8_0 = p->n_tok8 == 0 ? -1 :
				(int64_t)(p->n_tok8 < p->max_len ? p->n_tok8 : p->max_len);
	out->max_context_q4_0 = out->max_context_q8_0;
	if (p->refused || !p->heads_ok)
		out->max_context_f16 = out->max_context_q8_0 =
			out->max_context_q4_0 = -1;

	p->verdict = "fits";
	for (i = 0; i < p->ndev; i++) {
		const struct qa_gpu_device *g = &opt->gpus.dev[i];
		struct qa_fit_device *d = &out->devices[i];
		uint64_t fr = p->tp > 1 ? qa_sub_floor(g->usable_bytes, SGL_NCCL_EST) :
			      g->usable_bytes;
		uint64_t inside;

		snprintf(d->name, sizeof(d->name), "%s", g->name);
		d->vram_bytes = g->vram_bytes;
		d->usable_bytes = fr;
		d->weights_bytes = p->W;
		d->kv_bytes = p->kv_ctx;
		d->recurrent_bytes = p->n_state ? p->per_req : 0;
		d->overhead_bytes = p->req_pool;
		d->compute_bytes = qa_sub_floor(p->slack, p->req_pool);
		d->first_layer = 0;
		d->last_layer = (int32_t)(hp->n_layer - 1);
		d->has_output = true;
		inside = qa_sat_add(qa_sat_add(p->W, p->kv_ctx), qa_sat_add(d->recurrent_bytes,
			 qa_sat_add(d->compute_bytes, d->overhead_bytes)));
		d->free_bytes = fr >= inside ? (int64_t)(fr - inside) :
			-(int64_t)(inside - fr > INT64_MAX ? INT64_MAX :
				   inside - fr);
		out->totals_weights = qa_sat_add(out->totals_weights, p->W);
		out->totals_kv = qa_sat_add(out->totals_kv, p->kv_ctx);
		out->totals_recurrent = qa_sat_add(out->totals_recurrent,
						d->recurrent_bytes);
		out->totals_compute = qa_sat_add(out->totals_compute,
					      d->compute_bytes);
	}
}

/* Verdict. SGLang caps a request at min(context_len, pool tokens)
 * - 1 (tp_worker.py l.382-385): a context above the pool does not
 * fit. The request table and the activations share the slack: a
 * table larger than it fails at start-up; less left than SGLang's
 * own activation and graph estimate is tight. */
static void
sglang_verdict(struct sglang_plan *p)
{
	struct qa_fit_result *out = p->c.out;
	struct qa_arena *arena = p->c.arena;

	{
		double est_mib = p->m.graph_mib +
				 1.5 * (double)(p->m.chunk > 2048 ? p->m.chunk : 2048);

		if (!p->heads_ok || p->refused || p->n_tok < p->ctx || p->req_pool > p->slack)
			p->verdict = "does-not-fit";
		else if ((double)(p->slack - p->req_pool) < est_mib * (double)MIB ||
			 (double)((p->n_tok - p->ctx) * (p->cell ? p->cell : 1)) <
			 TIGHT_SHARE * (double)p->F_pre)
			p->verdict = "tight";
		if (!p->refused && p->n_tok < p->ctx)
			qa_fit_note(&p->c.nb, qa_arena_printf(arena, "the KV pool holds "
				"%llu tokens: SGLang caps a request at %llu "
				"(min(context_len, pool) - 1, tp_worker.py "
				"l.382-385)", (unsigned long long)p->n_tok,
				(unsigned long long)(p->n_tok ? p->n_tok - 1 : 0)));
		if (p->req_pool > p->slack)
			qa_fit_note(&p->c.nb, qa_arena_printf(arena, "the request-to-token "
				"table (%llu rows x %llu tokens x 4 B = %.2f "
				"GiB) does not fit the %.2f GiB the fraction "
				"leaves: lower --max-running-requests or "
				"--mem-fraction-static",
				(unsigned long long)(p->req_rows + 1),
				(unsigned long long)(p->ctx_len + SGL_REQ_EXTRA),
				(double)p->req_pool / (double)GIB,
				(double)p->slack / (double)GIB));
		else if ((double)(p->slack - p->req_pool) < est_mib * (double)MIB)
			qa_fit_note(&p->c.nb, qa_arena_printf(arena, "after the "
				"request-to-token table (%.2f GiB for %llu "
				"requests) %.0f MiB are left for activations "
				"and CUDA graphs, less than SGLang's own "
				"estimate of %.0f MiB (1.5 MiB per prefill "
				"token + graphs): lower --max-running-requests",
				(double)p->req_pool / (double)GIB,
				(unsigned long long)p->req_rows,
				(double)(p->slack - p->req_pool) / (double)MIB,
				est_mib));
	}
	out->verdict = p->verdict;
	qa_fit_note(&p->c.nb, qa_arena_printf(arena, "SGLang preallocates a pool of %llu "
		"tokens%s%s; kv_bytes is what the context needs, compute "
		"what mem_fraction_static %.3f leaves for activations and "
		"CUDA graphs (not measured by SGLang), overhead the "
		"request-to-token table for %llu requests",
		(unsigned long long)p->n_tok,
		p->n_state ? qa_arena_printf(arena, " and %llu hybrid state "
			"slots", (unsigned long long)p->mamba_slots) : "",
		p->geo.hybrid_swa ? qa_arena_printf(arena, " (sliding layers "
			"%llu)", (unsigned long long)(uint64_t)
			((double)p->n_tok * SGL_SWA_RATIO)) : "", p->f,
		(unsigned long long)p->req_rows));
	qa_fit_note(&p->c.nb, "max_context q8_0 and q4_0 are SGLang's fp8_e4m3 KV cache "
	     "(its fp4_e2m1 needs Blackwell; --kv fp4_e2m1 sizes it)");
}

/* Decode ceiling: every rank reads its weights (active experts)
 * and the context's cells; ranks run in parallel, and tensor
 * parallelism adds two all-reduces per layer at the 15 us assumed
 * for vLLM (src/fit/fit_vllm.c AR_SECONDS). */
static void
sglang_decode_ceiling(struct sglang_plan *p)
{
	const struct qa_hparams *hp = p->c.hp;
	const struct qa_fit_options *opt = p->c.opt;
	struct qa_fit_result *out = p->c.out;
	struct qa_arena *arena = p->c.arena;
	size_t i;

	{
		double best = 0, ar = p->tp > 1 && hp->n_layer > 0 ?
			2.0 * (double)hp->n_layer * 15e-6 : 0;
		uint64_t touched = qa_sat_add(p->W_act, qa_sat_add(p->kv_ctx,
				   p->n_state ? p->per_req : 0));

		for (i = 0; i < p->ndev; i++) {
			double r;

			if (!opt->gpus.dev[i].bandwidth_gbs || !touched) {
				best = 0;
				break;
			}
			r = 1.0 / ((double)touched /
				   ((double)opt->gpus.dev[i].bandwidth_gbs *
				    1e9) + ar);
			if (i == 0 || r < best)
				best = r;
		}
		out->decode_tokens_per_s_max = best;
	}

	out->formula = qa_arena_printf(arena,
		"SGLang 8905cbd4 TP=%llu: mem_fraction_static %.3f%s; rest = "
		"free after load - %.2f GiB x (1 - f) = %.2f GiB; %s cell "
		"%llu B/token x %llu layers%s -> %llu tokens "
		"(python/sglang/srt/mem_cache/kv_cache_configurator.py, "
		"model_executor/pool_configurator.py; docs/fit.md)",
		(unsigned long long)p->tp, p->f, opt->mem_fraction_static > 0 ?
		" (given)" : qa_arena_printf(arena, " (reserved %.0f MiB of "
			"%.0f: chunk %llu, graphs %.0f MiB)", p->m.reserved_mib,
			p->m.gpu_mem, (unsigned long long)p->m.chunk, p->m.graph_mib),
		(double)p->F_pre / (double)GIB,
		p->rest > 0 ? (double)p->rest / (double)GIB : 0.0,
		p->mla ? "MLA" : p->geo.hybrid_swa ? "full+SWA" : "MHA",
		(unsigned long long)p->cell,
		(unsigned long long)(p->geo.hybrid_swa ? p->geo.n_full + p->geo.n_swa :
				     p->geo.n_layers),
		p->n_state ? qa_arena_printf(arena, ", %llu state layers of "
			"%llu B/request", (unsigned long long)p->n_state,
			(unsigned long long)(p->per_req / p->n_state)) : "",
		(unsigned long long)p->n_tok);
	if (!out->formula)
		out->formula = "SGLang (docs/fit.md)";
}

int
qa_fit_sglang(const struct qa_inventory *inv,
	      const struct qa_fit_options *opt,
	      struct qa_fit_result *out, char *err, size_t errlen)
{
	struct sglang_plan plan = { 0 }, *p = &plan;

	qa_serve_call_init(&p->c, inv, opt, out, QA_ENGINE_SGLANG, err, errlen);
	p->ndev = opt->gpus.n;
	p->F_pre = UINT64_MAX;
	p->after_load = UINT64_MAX;
	p->heads_ok = true;
	p->tied = true;
	if (qa_serve_check_inputs(&inv->hp, &opt->gpus, "SGLang", "KV pool",
				  err, errlen) < 0)
		return -1;
	if (sglang_layout(p) < 0)
		return -1;
	sglang_head_checks(p);
	sglang_implementation(p);
	if (sglang_geometry(p) < 0)
		return -1;
	sglang_mtp(p);
	sglang_weights(p);
	sglang_context(p);
	sglang_fraction(p);
	sglang_budget(p);
	sglang_pools(p);
	sglang_requests(p);
	sglang_max_context(p);
	sglang_devices(p);
	sglang_verdict(p);
	sglang_decode_ceiling(p);
	return 0;
}
