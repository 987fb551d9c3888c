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
	 * ranks run in parallel, so tokens/s = 448e9 / bytes per rank.
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
				   448e9 / (double)rank, 1e-6);
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

int
main(void)
{
	test_llama();
	test_qwen3_moe();
	test_gemma3();
	test_deepseek_mla();
	test_nemotron_h();
	return th_done("fit-vllm");
}
