/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the vLLM memory model (src/fit/fit_vllm.c) against the worked
 * examples of ../shared/knowledge/memory-models.md §5 (vLLM paragraphs)
 * and §2.4: hand-built inventories with the real shapes of Llama-3.1-8B,
 * Qwen3-30B-A3B, Gemma-3-12B, DeepSeek-V2-Lite and Nemotron-Nano-9B-v2 on
 * 2 x 15888 MiB (the RTX 5060 Ti total as CUDA reports it, §2.1), TP=2,
 * u = 0.92, N = 0.2 GiB, G = 0.35 GiB, P as §5 assumes it.
 *
 * Integers (page bytes, block sizes, bytes per token, M_req) are asserted
 * exactly as §5 works them out; GiB and context figures to the precision
 * the notes give them. Where §5 quotes an "about" weight figure, the test
 * computes the per-rank weights by hand from the shapes under the §2.5
 * rules, asserts them, and injects P so that M_avail equals the note's
 * figure; the largest context then checks the §2.3 search.
 *
 * The serving knobs (docs/fit.md "vLLM knobs") each get an example worked
 * by hand from the formulas of docs/fit.md, not read back from the code:
 * --gpu-memory-utilization, --max-num-batched-tokens, --max-num-seqs,
 * --enforce-eager, --pp, MTP --num-speculative-tokens, the per-token-head
 * and nvfp4 KV dtypes, and the Transformers modeling backend.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "fit/gpuspec.h"
#include "analysis/analysis.h"
#include "core/inventory.h"
#include "harness.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)
#define T5060 ((uint64_t)15888 * MIB)

static void
add(struct qa_inventory *inv, enum qa_role role, int32_t layer,
    uint64_t bytes, uint32_t n_dims)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);

	if (!t)
		return;
	t->name = "t";
	t->role = role;
	t->layer = layer;
	t->bytes = bytes;
	t->n_dims = n_dims;
	t->ggml_type = -1;
	t->dtype = "BF16";
}

static void
set_kinds(struct qa_inventory *inv, const char *pattern)
{
	int64_t n = inv->hp.n_layer, i;
	uint8_t *k = qa_arena_array(&inv->arena, (size_t)n, 1);

	for (i = 0; i < n && k; i++) {
		char c = pattern ? pattern[i] : 'F';

		k[i] = c == 'M' ? QA_LAYER_MAMBA : c == '*' ?
		       QA_LAYER_FULL_ATTENTION : c == '-' ? QA_LAYER_MLP_ONLY :
		       c == 'S' ? QA_LAYER_SLIDING_ATTENTION :
		       QA_LAYER_FULL_ATTENTION;
	}
	inv->hp.layer_kind = k;
	inv->hp.n_layer_all = n;
}

static void
opts(struct qa_fit_options *o, uint64_t P)
{
	char err[128];

	memset(o, 0, sizeof(*o));
	o->engine = QA_ENGINE_VLLM;
	if (qa_gpuspec_parse("2x15888M", &o->gpus, err, sizeof(err)) != 0)
		printf("gpuspec: %s\n", err);
	o->vllm_activation_bytes = P;
	o->vllm_nontorch_bytes = (uint64_t)(0.2 * (double)GIB);
	o->vllm_cudagraph_bytes = (uint64_t)(0.35 * (double)GIB);
}

/* R = ceil(0.92 T) (§2.1) */
static uint64_t
budget(void)
{
	return (uint64_t)ceil(0.92 * (double)T5060);
}

/* P that makes M_avail = target exactly, for a hand-computed W. */
static uint64_t
p_for(uint64_t w, uint64_t target)
{
	return budget() - w - (uint64_t)(0.2 * (double)GIB) -
	       (uint64_t)(0.35 * (double)GIB) - target;
}

static double
gib(uint64_t b)
{
	return (double)b / (double)GIB;
}

static int
run(struct qa_inventory *inv, struct qa_fit_options *o,
    struct qa_fit_result *r)
{
	char err[160];
	int rc = qa_fit_vllm(inv, o, r, err, sizeof(err));

	CHECKF(rc == 0, "qa_fit_vllm: %s", err);
	return rc;
}

/* Llama-3.1-8B bf16 shapes (§5.1): 32 layers, E 4096, 32/8 heads of 128,
 * F 14336, V 128256, untied. */
static struct qa_inventory *
llama_inv(void)
{
	struct qa_inventory *inv = qa_inventory_create("llama");
	struct qa_hparams *hp = &inv->hp;
	uint64_t emb = 128256ull * 4096 * 2;
	int l;

	hp->arch = "llama";
	hp->n_layer = 32;
	hp->n_embd = 4096;
	hp->n_head = 32;
	hp->n_head_kv = 8;
	hp->head_dim_k = hp->head_dim_v = 128;
	hp->n_ff = 14336;
	hp->n_vocab = 128256;
	hp->n_ctx_train = 131072;
	set_kinds(inv, NULL);
	add(inv, QA_ROLE_EMBED, -1, emb, 2);
	add(inv, QA_ROLE_LM_HEAD, -1, emb, 2);
	add(inv, QA_ROLE_NORM, -1, 8192, 1);
	for (l = 0; l < 32; l++) {
		add(inv, QA_ROLE_ATTN_Q, l, 4096ull * 4096 * 2, 2);
		add(inv, QA_ROLE_ATTN_K, l, 1024ull * 4096 * 2, 2);
		add(inv, QA_ROLE_ATTN_V, l, 1024ull * 4096 * 2, 2);
		add(inv, QA_ROLE_ATTN_O, l, 4096ull * 4096 * 2, 2);
		add(inv, QA_ROLE_FFN_GATE, l, 14336ull * 4096 * 2, 2);
		add(inv, QA_ROLE_FFN_UP, l, 14336ull * 4096 * 2, 2);
		add(inv, QA_ROLE_FFN_DOWN, l, 14336ull * 4096 * 2, 2);
		add(inv, QA_ROLE_NORM, l, 8192, 1);
		add(inv, QA_ROLE_NORM, l, 8192, 1);
	}
	return inv;
}

/* §5.1: Llama-3.1-8B bf16, TP=2. */
static void
test_llama(void)
{
	struct qa_inventory *inv = qa_inventory_create("llama");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	uint64_t emb = 128256ull * 4096 * 2, avail;
	int l;

	hp->arch = "llama";
	hp->n_layer = 32;
	hp->n_embd = 4096;
	hp->n_head = 32;
	hp->n_head_kv = 8;
	hp->head_dim_k = hp->head_dim_v = 128;
	hp->n_ff = 14336;
	hp->n_vocab = 128256;
	hp->n_ctx_train = 131072;
	set_kinds(inv, NULL);
	add(inv, QA_ROLE_EMBED, -1, emb, 2);
	add(inv, QA_ROLE_LM_HEAD, -1, emb, 2);
	add(inv, QA_ROLE_NORM, -1, 8192, 1);
	for (l = 0; l < 32; l++) {
		add(inv, QA_ROLE_ATTN_Q, l, 4096ull * 4096 * 2, 2);
		add(inv, QA_ROLE_ATTN_K, l, 1024ull * 4096 * 2, 2);
		add(inv, QA_ROLE_ATTN_V, l, 1024ull * 4096 * 2, 2);
		add(inv, QA_ROLE_ATTN_O, l, 4096ull * 4096 * 2, 2);
		add(inv, QA_ROLE_FFN_GATE, l, 14336ull * 4096 * 2, 2);
		add(inv, QA_ROLE_FFN_UP, l, 14336ull * 4096 * 2, 2);
		add(inv, QA_ROLE_FFN_DOWN, l, 14336ull * 4096 * 2, 2);
		add(inv, QA_ROLE_NORM, l, 8192, 1);
		add(inv, QA_ROLE_NORM, l, 8192, 1);
	}
	opts(&o, GIB / 2);
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.n_devices == 2, "devices %zu", r.n_devices);
		/* W = 7.48 GiB per GPU */
		CHECK_NEAR(gib(r.devices[0].weights_bytes), 7.48, 0.005);
		/* 65,536 B/token per GPU */
		CHECKF(r.devices[0].kv_bytes == 32768ull * 65536,
		       "kv %" PRIu64, r.devices[0].kv_bytes);
		CHECKF(r.devices[1].kv_bytes == 32768ull * 65536, "kv gpu1");
		CHECKF(r.devices[0].recurrent_bytes == 0, "rec");
		CHECKF(r.devices[0].usable_bytes == budget(), "R");
		/* M_avail = 14.27 - 7.48 - 0.5 - 0.2 - 0.35 = 5.74 GiB */
		avail = (uint64_t)r.devices[0].free_bytes +
			r.devices[0].kv_bytes;
		CHECK_NEAR(gib(avail), 5.74, 0.01);
		/* largest context ≈ 94,100; fp8 ≈ 188K so 131072 fits */
		CHECKF(llabs(r.max_context_f16 - 94100) <= 100, "max f16 %lld",
		       (long long)r.max_context_f16);
		CHECKF(r.max_context_f16 % 16 == 0, "block multiple");
		CHECKF(r.max_context_q8_0 == 131072, "max fp8 %lld",
		       (long long)r.max_context_q8_0);
		CHECKF(strcmp(r.verdict, "fits") == 0, "verdict %s", r.verdict);
	}
	/* memory-limited fp8 figure (trained context lifted) */
	hp->n_ctx_train = 1 << 20;
	if (run(inv, &o, &r) == 0)
		CHECKF(llabs(r.max_context_q8_0 - 188200) <= 300,
		       "max fp8 uncapped %lld", (long long)r.max_context_q8_0);
	/* the trained context in bf16 does not fit (needs 8 GiB) */
	hp->n_ctx_train = 131072;
	o.ctx = 0;
	if (run(inv, &o, &r) == 0)
		CHECKF(strcmp(r.verdict, "does-not-fit") == 0, "verdict %s",
		       r.verdict);
	o.kv_k = o.kv_v = "fp8";
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].kv_bytes == 131072ull * 32768, "fp8 kv");
		CHECKF(strcmp(r.verdict, "fits") == 0, "fp8 verdict %s",
		       r.verdict);
	}
	o.kv_k = o.kv_v = "q8_0";
	if (run(inv, &o, &r) == 0) {
		size_t i;
		bool seen = false;

		CHECKF(r.devices[0].kv_bytes == 131072ull * 32768,
		       "q8_0 as fp8");

		for (i = 0; i < r.n_notes; i++)
			if (strstr(r.notes[i], "no q8_0") != NULL)
				seen = true;
		CHECKF(seen, "q8_0 note");
	}
	/*
	 * Decode ceiling on 2x RTX 5060 Ti (448 GB/s, rules/gpus.def) at
	 * 32K, bf16 KV: each rank reads its half of every layer linear,
	 * the replicated norms, its half of lm_head (the untied embedding
	 * is a lookup, not read whole) and its 32768 x 65,536 B of KV; the
	 * ranks run in parallel, so the time per token is bytes per rank
	 * over 448e9, plus two all-reduces for each of the 32 layers at the
	 * assumed 15 us (src/fit/fit_vllm.c AR_SECONDS).
	 */
	{
		char err[128];
		uint64_t layer = (2 * 4096ull * 4096 + 2 * 1024ull * 4096 +
				  3 * 14336ull * 4096) * 2 / 2;
		uint64_t rank = 32 * layer + (32 * 2 + 1) * 8192ull +
				emb / 2 + 32768ull * 65536;

		o.kv_k = o.kv_v = NULL;
		o.ctx = 32768;
		if (qa_gpuspec_parse("rtx-5060-ti:2", &o.gpus, err,
				     sizeof(err)) != 0)
			printf("gpuspec: %s\n", err);
		if (run(inv, &o, &r) == 0)
			CHECK_NEAR(r.decode_tokens_per_s_max,
				   1.0 / ((double)rank / 448e9 +
					  2 * 32 * 15e-6), 1e-6);
	}
	qa_inventory_destroy(inv);
}

/* §5.2: Qwen3-30B-A3B AWQ int4 (group 128), TP=2. */
static void
test_qwen3_moe(void)
{
	struct qa_inventory *inv = qa_inventory_create("qwen3moe");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	/* AWQ linear in -> out: qweight in*out/2, scales in/128*out*2,
	 * qzeros in/128*out/8*4 */
#define AWQ(in, out) ((uint64_t)(in) * (out) / 2 +                          \
		      (uint64_t)(in) / 128 * (out) * 2 +                     \
		      (uint64_t)(in) / 128 * (out) / 8 * 4)
	uint64_t emb = 151936ull * 2048 * 2, w_hand;
	int l;

	hp->arch = "qwen3moe";
	hp->n_layer = 48;
	hp->n_embd = 2048;
	hp->n_head = 32;
	hp->n_head_kv = 4;
	hp->head_dim_k = hp->head_dim_v = 128;
	hp->n_ff = 6144;
	hp->n_vocab = 151936;
	hp->n_ctx_train = 40960;
	hp->n_expert = 128;
	hp->n_expert_used = 8;
	hp->n_ff_expert = 768;
	set_kinds(inv, NULL);
	add(inv, QA_ROLE_EMBED, -1, emb, 2);
	add(inv, QA_ROLE_LM_HEAD, -1, emb, 2);
	add(inv, QA_ROLE_NORM, -1, 4096, 1);
	for (l = 0; l < 48; l++) {
		add(inv, QA_ROLE_ATTN_Q, l, AWQ(2048, 4096), 2);
		add(inv, QA_ROLE_ATTN_K, l, AWQ(2048, 512), 2);
		add(inv, QA_ROLE_ATTN_V, l, AWQ(2048, 512), 2);
		add(inv, QA_ROLE_ATTN_O, l, AWQ(4096, 2048), 2);
		add(inv, QA_ROLE_EXPERT_GATE, l, 128 * AWQ(2048, 768), 3);
		add(inv, QA_ROLE_EXPERT_UP, l, 128 * AWQ(2048, 768), 3);
		add(inv, QA_ROLE_EXPERT_DOWN, l, 128 * AWQ(768, 2048), 3);
		add(inv, QA_ROLE_ROUTER, l, 128ull * 2048 * 2, 2);
		add(inv, QA_ROLE_NORM, l, 4096, 1);
		add(inv, QA_ROLE_NORM, l, 4096, 1);
		add(inv, QA_ROLE_NORM, l, 256, 1);
		add(inv, QA_ROLE_NORM, l, 256, 1);
	}
	/* §2.5 by hand: linears and vocab (151936 = 2374*64) halve;
	 * router and norms replicate. */
	w_hand = emb + 48 * ((AWQ(2048, 4096) + 2 * AWQ(2048, 512) +
			      AWQ(4096, 2048)) / 2 +
			     128 * (2 * AWQ(2048, 768) + AWQ(768, 2048)) / 2 +
			     128ull * 2048 * 2 + 2 * 4096 + 2 * 256) + 4096;
	/* §5.2: available 5.12 GiB */
	opts(&o, p_for(w_hand, (uint64_t)(5.12 * (double)GIB)));
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].weights_bytes == w_hand, "W %" PRIu64
		       " want %" PRIu64, r.devices[0].weights_bytes, w_hand);
		/* 49,152 B/token per GPU */
		CHECKF(r.devices[0].kv_bytes == 32768ull * 49152, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		/* the full 40960 fits */
		CHECKF(r.max_context_f16 == 40960, "max %lld",
		       (long long)r.max_context_f16);
	}
	/* memory-limited: about 112K tokens */
	hp->n_ctx_train = 1 << 20;
	if (run(inv, &o, &r) == 0)
		CHECKF(llabs(r.max_context_f16 - 112000) <= 500,
		       "uncapped %lld", (long long)r.max_context_f16);
#undef AWQ
	qa_inventory_destroy(inv);
}

/* §5.3: Gemma-3-12B bf16, 40 SWA (window 1024) + 8 full, TP=2. */
static void
test_gemma3(void)
{
	struct qa_inventory *inv = qa_inventory_create("gemma3");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	char pat[49];
	int l;

	hp->arch = "gemma3";
	hp->n_layer = 48;
	hp->n_embd = 3840;
	hp->n_head = 16;
	hp->n_head_kv = 8;
	hp->head_dim_k = hp->head_dim_v = 256;
	hp->n_ff = 15360;
	hp->n_vocab = 262208;
	hp->n_ctx_train = 131072;
	hp->sliding_window = 1024;
	hp->swa_pattern = 6;
	hp->tie_embeddings = true;
	for (l = 0; l < 48; l++)
		pat[l] = l % 6 < 5 ? 'S' : 'F';
	pat[48] = '\0';
	set_kinds(inv, pat);
	/* weights: one replicated block of 11.4 GiB per GPU is enough here;
	 * the KV layout is what this example checks */
	add(inv, QA_ROLE_OTHER, -1, (uint64_t)(11.4 * (double)GIB), 2);
	opts(&o, (uint64_t)(0.8 * (double)GIB));
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		/* page 16*4*512*2 = 65,536 B; g = 8; M_req(L) =
		 * 8*65536*(ceil(L/16) + 5*(ceil(3071/16)+1)) */
		CHECKF(r.devices[0].kv_bytes ==
		       8ull * 65536 * (32768 / 16 + 5 * 193),
		       "M_req(32768) %" PRIu64, r.devices[0].kv_bytes);
		/* available ≈1.52 GiB gives ≈34.5K */
		CHECKF(llabs(r.max_context_f16 - 34500) <= 250, "max %lld",
		       (long long)r.max_context_f16);
	}
	o.ctx = 1000;
	if (run(inv, &o, &r) == 0)	/* window capped by L: ceil(1000/16)+1 */
		CHECKF(r.devices[0].kv_bytes == 8ull * 65536 * (63 + 5 * 64),
		       "M_req(1000) %" PRIu64, r.devices[0].kv_bytes);
	/* --max-num-batched-tokens 8192 widens what a sliding layer holds:
	 * ceil((1023 + 8192) / 16) + 1 = 577 blocks, so M_req(32768) =
	 * 8 x 65,536 x (2048 + 5 x 577) = 2,586,312,704 B. */
	o.ctx = 32768;
	o.max_num_batched_tokens = 8192;
	if (run(inv, &o, &r) == 0)
		CHECKF(r.devices[0].kv_bytes == 2586312704ull,
		       "M_req(32768), n_mbt 8192: %" PRIu64,
		       r.devices[0].kv_bytes);
	qa_inventory_destroy(inv);
}

/* §5.4: DeepSeek-V2-Lite int4, MLA, TP=2. */
static void
test_deepseek_mla(void)
{
	struct qa_inventory *inv = qa_inventory_create("dsv2lite");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	uint64_t kva = 2048ull * 576 * 2, w_hand;
	int l;

	hp->arch = "deepseek2";
	hp->n_layer = 27;
	hp->n_embd = 2048;
	hp->n_head = 16;
	hp->n_head_kv = 16;
	hp->head_dim_k = 192;
	hp->head_dim_v = 128;
	hp->kv_lora_rank = 512;
	hp->qk_rope_dim = 64;
	hp->qk_nope_dim = 128;
	hp->v_head_dim_mla = 128;
	hp->n_vocab = 102400;
	hp->n_ctx_train = 163840;
	hp->n_expert = 64;
	hp->n_expert_used = 6;
	hp->n_ff_expert = 1408;
	set_kinds(inv, NULL);
	for (l = 0; l < 27; l++) {
		/* kv_a_proj_with_mqa is ReplicatedLinear; kv_b is split */
		add(inv, QA_ROLE_MLA_KV_A, l, kva, 2);
		add(inv, QA_ROLE_MLA_KV_B, l, 512ull * 16 * 256 * 2, 2);
	}
	w_hand = 27 * (kva + 512ull * 16 * 256);
	/* §5.4: available ≈8.6 GiB gives ≈298K */
	opts(&o, p_for(w_hand, (uint64_t)(8.6 * (double)GIB)));
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].weights_bytes == w_hand, "W %" PRIu64,
		       r.devices[0].weights_bytes);
		/* 27*(512+64)*2 = 31,104 B/token, replicated per rank */
		CHECKF(r.devices[0].kv_bytes == 32768ull * 31104, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.devices[1].kv_bytes == 32768ull * 31104, "kv gpu1");
		/* the full 163840 fits */
		CHECKF(r.max_context_f16 == 163840, "max %lld",
		       (long long)r.max_context_f16);
	}
	hp->n_ctx_train = 1 << 20;
	if (run(inv, &o, &r) == 0)
		CHECKF(fabs((double)r.max_context_f16 / 298000.0 - 1) < 0.01,
		       "uncapped %lld", (long long)r.max_context_f16);
	qa_inventory_destroy(inv);
}

/* §5.5 and §2.4: Nemotron-Nano-9B-v2 bf16 (fp32 SSM state), TP=2. */
static void
test_nemotron_h(void)
{
	static const char pat[] =
		"M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
	struct qa_inventory *inv = qa_inventory_create("nemotronh");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	uint64_t page = 2686976;

	hp->arch = "nemotron_h";
	hp->n_layer = 56;
	hp->n_embd = 4480;
	hp->n_head = 40;
	hp->n_head_kv = 8;
	hp->head_dim_k = hp->head_dim_v = 128;
	hp->n_vocab = 131072;
	hp->n_ctx_train = 131072;
	hp->ssm_d_conv = 4;
	hp->ssm_d_inner = 10240;
	hp->ssm_dt_rank = 128;
	hp->ssm_d_state = 128;
	hp->ssm_n_group = 8;
	CHECKF(strlen(pat) == 56, "pattern length");
	set_kinds(inv, pat);
	add(inv, QA_ROLE_OTHER, -1, (uint64_t)(8.3 * (double)GIB), 2);
	opts(&o, GIB / 2);
	o.ctx = 131072;
	if (run(inv, &o, &r) == 0) {
		/* mamba page 2,658,304 B -> attention block 1312 tokens,
		 * page 1312*2048 = 2,686,976 B; g = 4; 1 attention group,
		 * 7 Mamba groups: M_req = 4*page*(ceil(131072/1312) + 7) */
		CHECKF(r.devices[0].kv_bytes == 4 * page * 100, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.devices[0].recurrent_bytes == 4 * page * 7,
		       "rec %" PRIu64, r.devices[0].recurrent_bytes);
		CHECK_NEAR(gib(r.devices[0].kv_bytes +
			       r.devices[0].recurrent_bytes), 1.07, 0.005);
		CHECKF(r.formula && strstr(r.formula, "1312 tok") != NULL,
		       "formula %s", r.formula ? r.formula : "(null)");
		CHECKF(r.formula && strstr(r.formula, "2686976 B") != NULL,
		       "page in formula");
		CHECKF(strcmp(r.verdict, "fits") == 0, "verdict %s", r.verdict);
	}
	qa_inventory_destroy(inv);
}


static bool
has_note(const struct qa_fit_result *r, const char *needle)
{
	size_t i;

	for (i = 0; i < r->n_notes; i++)
		if (r->notes[i] && strstr(r->notes[i], needle))
			return true;
	return false;
}

/*
 * Worked numbers shared by the Llama knob examples (2 x 15,888 MiB, TP=2):
 * T = 15888 MiB = 16,659,775,488 B; W per rank = 8,030,527,488 B (embed
 * and lm_head 1,050,673,152 / 2 each, 32 layers x 218,103,808, 65 norms
 * x 8192); N = 214,748,364 and G = 375,809,638 (0.2 and 0.35 GiB
 * truncated); one 16-token block of all 32 layers is 32 x 16 x 4 heads x
 * 256 x 2 = 1,048,576 B.
 */
#define LLAMA_W 8030527488ull
#define N_02 214748364ull
#define G_035 375809638ull
#define LLAMA_BLOCK_ALL 1048576ull

/* --gpu-memory-utilization 0.85: R = ceil(0.85 T) = 14,160,809,165;
 * M_avail = R - W - P - N - G = 5,002,852,763 with P = 0.5 GiB, which
 * holds floor(M_avail / 1,048,576) = 4771 blocks: 76,336 tokens. */
static void
test_knob_gmu(void)
{
	struct qa_inventory *inv = llama_inv();
	struct qa_fit_options o;
	struct qa_fit_result r;

	opts(&o, GIB / 2);
	o.gpu_memory_utilization = 0.85;
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].usable_bytes == 14160809165ull,
		       "R %" PRIu64, r.devices[0].usable_bytes);
		CHECKF(r.devices[0].weights_bytes == LLAMA_W, "W %" PRIu64,
		       r.devices[0].weights_bytes);
		/* free = M_avail - KV of 32768 tokens (2048 blocks) */
		CHECKF(r.devices[0].free_bytes ==
		       (int64_t)(5002852763ull - 2048 * LLAMA_BLOCK_ALL),
		       "free %" PRId64, r.devices[0].free_bytes);
		CHECKF(r.max_context_f16 == 76336, "max %lld",
		       (long long)r.max_context_f16);
	}
	qa_inventory_destroy(inv);
}

/* --enforce-eager: no CUDA graphs, G = 0. M_avail = ceil(0.92 T) -
 * W - P - N = 15,326,993,449 - 8,030,527,488 - 536,870,912 -
 * 214,748,364 = 6,544,846,685: 6241 blocks, 99,856 tokens (94,128 with
 * G); compute = P alone. */
static void
test_knob_eager(void)
{
	struct qa_inventory *inv = llama_inv();
	struct qa_fit_options o;
	struct qa_fit_result r;

	opts(&o, GIB / 2);
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0)
		CHECKF(r.max_context_f16 == 94128, "max with graphs %lld",
		       (long long)r.max_context_f16);
	o.enforce_eager = true;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].compute_bytes == GIB / 2, "compute %"
		       PRIu64, r.devices[0].compute_bytes);
		CHECKF(r.max_context_f16 == 99856, "max eager %lld",
		       (long long)r.max_context_f16);
	}
	qa_inventory_destroy(inv);
}

/*
 * --max-num-batched-tokens and --max-num-seqs through the P estimate
 * (profile run of n_mbt tokens, sampler on min(n_seq, n_mbt) rows):
 * per token 3F/tp + (H_q + 2 H_kv) d / tp + 2E = 21504 + 3072 + 8192 =
 * 32,768 elements of 2 bytes; the sampler 64,128 padded vocabulary rows
 * per rank x 4 bytes x 4 copies = 1,026,048 B per sequence.
 *   n_mbt 8192, n_seq 256: 536,870,912 + 262,668,288 = 799,539,200
 *   n_mbt 8192, n_seq 1:   536,870,912 + 1,026,048 = 537,896,960
 *   defaults (2048, 256):  134,217,728 + 262,668,288 < 0.5 GiB floor
 * compute = P + G.
 */
static void
test_knob_batch(void)
{
	struct qa_inventory *inv = llama_inv();
	struct qa_fit_options o;
	struct qa_fit_result r;

	opts(&o, 0);
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0)
		CHECKF(r.devices[0].compute_bytes == GIB / 2 + G_035,
		       "default compute %" PRIu64, r.devices[0].compute_bytes);
	o.max_num_batched_tokens = 8192;
	if (run(inv, &o, &r) == 0)
		CHECKF(r.devices[0].compute_bytes == 799539200ull + G_035,
		       "n_mbt 8192 compute %" PRIu64,
		       r.devices[0].compute_bytes);
	o.parallel = 1;
	if (run(inv, &o, &r) == 0)
		CHECKF(r.devices[0].compute_bytes == 537896960ull + G_035,
		       "n_seq 1 compute %" PRIu64, r.devices[0].compute_bytes);
	qa_inventory_destroy(inv);
}

/*
 * --pp 2 --tp 1, DeepSeek-V2-Lite shapes (27 MLA layers): get_pp_indices
 * gives 27 // 2 = 13 each and the remainder to the stage before the
 * last: layers 0-13 and 14-26. KV per token: 14 x 576 x 2 = 16,128 B
 * and 13 x 1152 = 14,976 B. Weights per layer (TP=1): kv_a 2,359,296 +
 * kv_b 4,194,304 = 6,553,600 B, so 91,750,400 and 85,196,800. With
 * P = 0.5 GiB each stage keeps M_avail = 15,326,993,449 - W - P - N - G:
 * 14,107,814,135 (54,671 blocks of 258,048 B: 874,736 tokens) and
 * 14,114,367,735 (58,904 blocks of 239,616 B: 942,464); vLLM takes the
 * smaller, 874,736.
 */
static void
test_knob_pp(void)
{
	struct qa_inventory *inv = qa_inventory_create("dsv2lite-pp");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	uint64_t kva = 2048ull * 576 * 2, kvb = 512ull * 16 * 256 * 2;
	int l;

	hp->arch = "deepseek2";
	hp->n_layer = 27;
	hp->n_embd = 2048;
	hp->n_head = 16;
	hp->n_head_kv = 16;
	hp->head_dim_k = 192;
	hp->head_dim_v = 128;
	hp->kv_lora_rank = 512;
	hp->qk_rope_dim = 64;
	hp->n_vocab = 102400;
	hp->n_ctx_train = 1 << 20;
	set_kinds(inv, NULL);
	for (l = 0; l < 27; l++) {
		add(inv, QA_ROLE_MLA_KV_A, l, kva, 2);
		add(inv, QA_ROLE_MLA_KV_B, l, kvb, 2);
	}
	opts(&o, GIB / 2);
	o.tp = 1;
	o.pp = 2;
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.n_devices == 2, "devices %zu", r.n_devices);
		CHECKF(r.devices[0].first_layer == 0 &&
		       r.devices[0].last_layer == 13, "stage 0 layers %d-%d",
		       r.devices[0].first_layer, r.devices[0].last_layer);
		CHECKF(r.devices[1].first_layer == 14 &&
		       r.devices[1].last_layer == 26, "stage 1 layers %d-%d",
		       r.devices[1].first_layer, r.devices[1].last_layer);
		CHECKF(r.devices[0].weights_bytes == 14 * (kva + kvb),
		       "W0 %" PRIu64, r.devices[0].weights_bytes);
		CHECKF(r.devices[1].weights_bytes == 13 * (kva + kvb),
		       "W1 %" PRIu64, r.devices[1].weights_bytes);
		CHECKF(r.devices[0].kv_bytes == 32768ull * 16128, "kv0 %"
		       PRIu64, r.devices[0].kv_bytes);
		CHECKF(r.devices[1].kv_bytes == 32768ull * 14976, "kv1 %"
		       PRIu64, r.devices[1].kv_bytes);
		CHECKF(r.max_context_f16 == 874736, "max %lld",
		       (long long)r.max_context_f16);
	}
	qa_inventory_destroy(inv);
}

/*
 * --pp 2 --tp 1 on the Nemotron-H hybrid: at TP=1 the Mamba page is
 * 3 x 12,288 x 2 + 128 x 80 x 128 x 4 = 5,316,608 B and an attention
 * token 8 x 256 x 2 = 4,096 B, so the block is 16 x ceil(5,316,608 /
 * 65,536) = 1312 tokens and the page 5,373,952 B. Groups come from the
 * whole model (g = 4: 1 attention group, 7 Mamba groups, layers dealt
 * round-robin); stage 0 (layers 0-27) holds attention layers 14 and 21
 * and stage 1 30 and 39, and no Mamba group has more than 2 layers on a
 * stage, so g_stage = 2 and M_req(131072) = 2 x 5,373,952 x
 * (ceil(131072/1312) + 7) = 2 x 5,373,952 x 107 = 1,150,025,728 B.
 */
static void
test_knob_pp_hybrid(void)
{
	static const char pat[] =
		"M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
	struct qa_inventory *inv = qa_inventory_create("nemotronh-pp");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	uint64_t page = 5373952;

	hp->arch = "nemotron_h";
	hp->n_layer = 56;
	hp->n_embd = 4480;
	hp->n_head = 40;
	hp->n_head_kv = 8;
	hp->head_dim_k = hp->head_dim_v = 128;
	hp->n_vocab = 131072;
	hp->n_ctx_train = 131072;
	hp->ssm_d_conv = 4;
	hp->ssm_d_inner = 10240;
	hp->ssm_dt_rank = 128;
	hp->ssm_d_state = 128;
	hp->ssm_n_group = 8;
	set_kinds(inv, pat);
	add(inv, QA_ROLE_OTHER, -1, (uint64_t)(4.0 * (double)GIB), 2);
	opts(&o, GIB / 2);
	o.tp = 1;
	o.pp = 2;
	o.ctx = 131072;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].kv_bytes == 2 * page * 100, "kv0 %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.devices[1].kv_bytes == 2 * page * 100, "kv1 %" PRIu64,
		       r.devices[1].kv_bytes);
		CHECKF(r.devices[0].recurrent_bytes == 2 * page * 7,
		       "rec %" PRIu64, r.devices[0].recurrent_bytes);
		CHECKF(r.formula && strstr(r.formula, "5373952 B/1312 tok"),
		       "formula %s", r.formula ? r.formula : "(null)");
	}
	qa_inventory_destroy(inv);
}

/*
 * MTP with --num-speculative-tokens 2 on a Qwen3-Next-like GDN hybrid at
 * TP=2 (48 layers, every 4th full attention: 12 full + 36 GDN; GDN n_v
 * 32, n_k 16, d_k = d_v = 128, conv 4; attention 2 KV heads of 256; one
 * MTP layer):
 *   attention token per rank 1 x (256 + 256) x 2 = 1,024 B;
 *   GDN conv (3 + 2) x (2 x 16 x 128 + 32 x 128) / 2 x 2 = 40,960 B,
 *   SSM 16 x 128 x 128 x 2 = 524,288 B: state 565,248 B;
 *   block 16 x ceil(565,248 / 16,384) = 560, page 573,440 B;
 *   full layers 12 + 1 draft = 13, GDN 36: g = 13, 1 + 3 groups;
 *   Mamba pages per request 1 + 2 = 3;
 *   M_req(32768) = 13 x 573,440 x (ceil(32768/560) + 3 x 3)
 *                = 13 x 573,440 x (59 + 9) = 506,920,960 B
 *     (KV 13 x 573,440 x 59 = 439,828,480, state 67,092,480).
 * Without MTP: state 548,864 B, block 544, page 557,056, g = 12:
 *   12 x 557,056 x (ceil(32768/544) + 3) = 12 x 557,056 x 64 =
 *   427,819,008 B.
 * Weights: the MTP layer's attention (q 2 MiB, /2) counts; its own
 * embedding and shared head do not (shared with the target, PP = 1).
 * 3 speculative tokens with 2 MTP layers: vLLM refuses (3 % 2 != 0).
 */
static void
test_knob_mtp(void)
{
	struct qa_inventory *inv = qa_inventory_create("qwen3next-mtp");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	struct qa_tensor *t;
	uint8_t *k;
	int l;

	hp->arch = "qwen3next";
	hp->n_layer = 48;
	hp->n_layer_all = 49;
	hp->n_embd = 2048;
	hp->n_head = 16;
	hp->n_head_kv = 2;
	hp->head_dim_k = hp->head_dim_v = 256;
	hp->n_vocab = 151936;
	hp->n_ctx_train = 262144;
	hp->ssm_d_conv = 4;
	hp->ssm_d_inner = 4096;
	hp->ssm_d_state = 128;
	hp->ssm_dt_rank = 32;
	hp->ssm_n_group = 16;
	hp->n_mtp = 1;
	k = qa_arena_array(&inv->arena, 49, 1);
	for (l = 0; l < 49 && k; l++)
		k[l] = l == 48 ? QA_LAYER_MTP : (l + 1) % 4 == 0 ?
		       QA_LAYER_FULL_ATTENTION : QA_LAYER_LINEAR_ATTENTION;
	hp->layer_kind = k;
	add(inv, QA_ROLE_OTHER, -1, 4 * GIB, 2);
	add(inv, QA_ROLE_ATTN_Q, 48, 2 * MIB, 2);
	add(inv, QA_ROLE_MTP_EMBED, 48, 151936ull * 2048 * 2, 2);
	add(inv, QA_ROLE_MTP_SHARED_HEAD, 48, 151936ull * 2048 * 2, 2);
	for (l = (int)inv->n_tensors - 3; l < (int)inv->n_tensors; l++) {
		t = &inv->tensors[l];
		t->mtp = true;
	}
	opts(&o, GIB / 2);
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].kv_bytes + r.devices[0].recurrent_bytes ==
		       427819008ull, "no MTP %" PRIu64,
		       r.devices[0].kv_bytes + r.devices[0].recurrent_bytes);
		CHECKF(r.devices[0].weights_bytes == 4 * GIB, "no MTP W");
	}
	o.num_speculative_tokens = 2;
	o.mtp = true;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].kv_bytes == 439828480ull, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.devices[0].recurrent_bytes == 67092480ull, "rec %"
		       PRIu64, r.devices[0].recurrent_bytes);
		CHECKF(r.devices[0].weights_bytes == 4 * GIB + MIB,
		       "W %" PRIu64, r.devices[0].weights_bytes);
		CHECKF(r.formula && strstr(r.formula, "573440 B/560 tok"),
		       "formula %s", r.formula ? r.formula : "(null)");
		CHECKF(strcmp(r.verdict, "fits") == 0, "verdict %s",
		       r.verdict);
	}
	hp->n_mtp = 2;
	o.num_speculative_tokens = 3;
	if (run(inv, &o, &r) == 0) {
		CHECKF(strcmp(r.verdict, "does-not-fit") == 0, "3 of 2: %s",
		       r.verdict);
		CHECK(has_note(&r, "refuses num_speculative_tokens 3"));
	}
	qa_inventory_destroy(inv);
}

/*
 * KV dtypes on Llama TP=2 (4 KV heads of 128 per rank, 32 layers):
 *   fp8                 4 x 256 x 1                 = 1,024 B/layer
 *   fp8_per_token_head  1,024 + 2 x 4 heads x 4 B   = 1,056 B/layer
 *   nvfp4               4 x (64 + 8 + 64 + 8)       =   576 B/layer
 * times 32 layers and 32,768 tokens.
 */
static void
test_knob_kv_dtypes(void)
{
	struct qa_inventory *inv = llama_inv();
	struct qa_fit_options o;
	struct qa_fit_result r;

	opts(&o, GIB / 2);
	o.ctx = 32768;
	o.kv_k = o.kv_v = "fp8";
	if (run(inv, &o, &r) == 0)
		CHECKF(r.devices[0].kv_bytes == 32768ull * 32 * 1024,
		       "fp8 %" PRIu64, r.devices[0].kv_bytes);
	o.kv_k = o.kv_v = "fp8_per_token_head";
	if (run(inv, &o, &r) == 0)
		CHECKF(r.devices[0].kv_bytes == 32768ull * 32 * 1056,
		       "per-token-head %" PRIu64, r.devices[0].kv_bytes);
	o.kv_k = o.kv_v = "nvfp4";
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].kv_bytes == 32768ull * 32 * 576,
		       "nvfp4 %" PRIu64, r.devices[0].kv_bytes);
		CHECK(has_note(&r, "FP4 tensor cores"));
	}
	qa_inventory_destroy(inv);
}

/*
 * Transformers modeling backend: an architecture class vLLM does not
 * register ("FooHybridForCausalLM", 8 layers "MMM*MMM*", 8 KV heads of
 * 128) is served by create_attention_instances, which gives every layer
 * an attention cache: 8 x 4 x 256 x 2 = 16,384 B per token at TP=2,
 * ceil(1000/16) = 63 blocks of 16 tokens at context 1000: 16,515,072 B,
 * no recurrent state. --model-impl vllm keeps the native hybrid layout
 * (2 attention layers and Mamba state).
 */
static void
test_knob_transformers(void)
{
	struct qa_inventory *inv = qa_inventory_create("foohybrid");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;

	inv->kind = QA_KIND_HF_DIR;
	hp->arch = "foohybrid";
	hp->arch_raw = "FooHybridForCausalLM";
	hp->n_layer = 8;
	hp->n_embd = 1024;
	hp->n_head = 8;
	hp->n_head_kv = 8;
	hp->head_dim_k = hp->head_dim_v = 128;
	hp->n_vocab = 32000;
	hp->n_ctx_train = 8192;
	hp->ssm_d_conv = 4;
	hp->ssm_d_inner = 2048;
	hp->ssm_dt_rank = 32;
	hp->ssm_d_state = 64;
	hp->ssm_n_group = 2;
	set_kinds(inv, "MMM*MMM*");
	add(inv, QA_ROLE_OTHER, -1, GIB, 2);
	opts(&o, GIB / 2);
	o.ctx = 1000;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].kv_bytes == 63ull * 16 * 16384,
		       "kv %" PRIu64, r.devices[0].kv_bytes);
		CHECKF(r.devices[0].recurrent_bytes == 0, "rec");
		CHECK(has_note(&r, "Transformers modeling backend"));
		CHECK(has_note(&r, "full and sliding attention only"));
	}
	o.model_impl = QA_MODEL_IMPL_NATIVE;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].recurrent_bytes > 0, "native hybrid");
		CHECK(!has_note(&r, "Transformers modeling backend"));
	}
	qa_inventory_destroy(inv);
}

int
main(void)
{
	test_llama();
	test_qwen3_moe();
	test_gemma3();
	test_deepseek_mla();
	test_nemotron_h();
	test_knob_gmu();
	test_knob_eager();
	test_knob_batch();
	test_knob_pp();
	test_knob_pp_hybrid();
	test_knob_mtp();
	test_knob_kv_dtypes();
	test_knob_transformers();
	return th_done("fit-vllm");
}
