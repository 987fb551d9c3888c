/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the SGLang memory model (src/fit/fit_sglang.c): hand-built
 * inventories with the real shapes of Llama-3.1-8B, Qwen3-30B-A3B (AWQ),
 * DeepSeek-V2-Lite (MLA), Gemma-3-12B, a gpt-oss-like sliding-window
 * hybrid and Nemotron-Nano-9B-v2 (Mamba-2 hybrid) on 2 x 16 GiB at TP=2.
 * Every expected value is worked out by hand from the formulas of
 * docs/fit.md "## SGLang" (SGLang 8905cbd42f4a), not read back from the
 * code:
 *
 *   devices  2x16G: 16,384 MiB each, usable 16,384 - 560 = 15,824 MiB;
 *            pre_model_load_memory F = 15,824 - 256 (NCCL) = 15,568 MiB
 *            = 16,324,231,168 B.
 *   fraction gpu_mem 16,384 MiB < 20 GiB: chunk 2048, decode max_bs 8;
 *            prefill graph sizes up to 2048: 8 + 14 + 8 + 8 + 4 = 42;
 *            reserved = 512 + 2048 x 1.5 + 2/8 x 1024 + (8 x 2 + 42 x 8)
 *            = 4,192 MiB; f = round(12,192 / 16,384, 3) = 0.744. MLA
 *            (1.5 GiB for prefill graphs): 5,392 MiB, f = 0.671.
 *   budget   rest = (F - W) - F x (1 - f); F x 0.256 = 4,179,003,179 B.
 *   pool     tokens = floor(rest / cell).
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
#define F_PRE 16324231168ull
#define SLACK_0744 4179003179ull	/* (uint64) F x 0.256 */
#define LLAMA_W 8030527488ull

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

		k[i] = c == 'M' ? QA_LAYER_MAMBA : c == '-' ?
		       QA_LAYER_MLP_ONLY : c == 'S' ?
		       QA_LAYER_SLIDING_ATTENTION : QA_LAYER_FULL_ATTENTION;
	}
	inv->hp.layer_kind = k;
	inv->hp.n_layer_all = n;
}

static void
opts(struct qa_fit_options *o)
{
	char err[128];

	memset(o, 0, sizeof(*o));
	o->engine = QA_ENGINE_SGLANG;
	if (qa_gpuspec_parse("2x16G", &o->gpus, err, sizeof(err)) != 0)
		printf("gpuspec: %s\n", err);
}

static int
run(struct qa_inventory *inv, struct qa_fit_options *o,
    struct qa_fit_result *r)
{
	char err[160];
	int rc = qa_fit_sglang(inv, o, r, err, sizeof(err));

	CHECKF(rc == 0, "qa_fit_sglang: %s", err);
	return rc;
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

static struct qa_inventory *
llama_inv(void)
{
	struct qa_inventory *inv = qa_inventory_create("llama");
	struct qa_hparams *hp = &inv->hp;
	uint64_t emb = 128256ull * 4096 * 2;
	int l;

	inv->kind = QA_KIND_HF_DIR;
	hp->arch = "llama";
	hp->arch_raw = "LlamaForCausalLM";
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

/*
 * Llama-3.1-8B bf16 on 2 x 16 GiB, TP=2. W = 8,030,527,488 B per rank
 * (the vLLM rules: embedding and head halved, linears halved, norms
 * replicated). rest = 16,324,231,168 - 8,030,527,488 - 4,179,003,179.008
 * = 4,114,700,500 B; cell 4 KV heads x 256 x 32 layers x 2 = 65,536 B:
 * 62,785 tokens (fp8: 32,768 B, 125,570).
 * At context 32,768: requests clip(62,785 / 32,768 x 512, 2048, 4096) =
 * 2048, table 2,049 x 32,772 x 4 = 268,599,312 B; it leaves
 * 4,179,003,179 - 268,599,312 = 3,910,403,867 B (3,729 MiB) for
 * activations and graphs, above SGLang's 3,072 + 352 = 3,424 MiB; the
 * pool keeps (62,785 - 32,768) x 65,536 B, above 5 % of F: fits.
 * At the trained 131,072 the pool is too small: does-not-fit. At 60,000
 * only 2,785 tokens (183 MB < 5 % of F) are left: tight.
 */
static void
test_llama(void)
{
	struct qa_inventory *inv = llama_inv();
	struct qa_fit_options o;
	struct qa_fit_result r;

	opts(&o);
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.n_devices == 2, "devices %zu", r.n_devices);
		CHECKF(r.devices[0].usable_bytes == F_PRE, "F %" PRIu64,
		       r.devices[0].usable_bytes);
		CHECKF(r.devices[0].weights_bytes == LLAMA_W, "W %" PRIu64,
		       r.devices[0].weights_bytes);
		CHECKF(r.devices[0].kv_bytes == 32768ull * 65536, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.devices[0].overhead_bytes == 268599312ull,
		       "table %" PRIu64, r.devices[0].overhead_bytes);
		CHECKF(r.devices[0].compute_bytes == SLACK_0744 - 268599312ull,
		       "compute %" PRIu64, r.devices[0].compute_bytes);
		CHECKF(r.max_context_f16 == 62785, "max f16 %lld",
		       (long long)r.max_context_f16);
		CHECKF(r.max_context_q8_0 == 125570, "max fp8 %lld",
		       (long long)r.max_context_q8_0);
		CHECKF(r.formula && strstr(r.formula, "0.744") &&
		       strstr(r.formula, "reserved 4192 MiB"), "formula %s",
		       r.formula ? r.formula : "(null)");
		CHECKF(strcmp(r.verdict, "fits") == 0, "verdict %s", r.verdict);
	}
	o.ctx = 0;
	if (run(inv, &o, &r) == 0) {
		CHECKF(strcmp(r.verdict, "does-not-fit") == 0, "131072: %s",
		       r.verdict);
		CHECK(has_note(&r, "holds 62785 tokens"));
	}
	o.ctx = 60000;
	if (run(inv, &o, &r) == 0)
		CHECKF(strcmp(r.verdict, "tight") == 0, "60000: %s", r.verdict);
	qa_inventory_destroy(inv);
}

/*
 * The SGLang knobs on the same Llama:
 *   --mem-fraction-static 0.8: rest = 8,293,703,680 - F x 0.2 =
 *     5,028,857,446 B: 76,734 tokens;
 *   --enforce-eager (--disable-cuda-graph): no graph reserve, reserved
 *     3,840 MiB, f = round(12,544 / 16,384, 3) = 0.766: rest
 *     4,473,833,586 B, 68,265 tokens;
 *   --chunked-prefill-size 4096: prefill graph sizes up to 4096 are 50,
 *     reserved = 512 + 6,144 + 256 + 16 + 400 = 7,328 MiB, f = 0.553:
 *     rest 996,772,347 B, 15,209 tokens;
 *   --max-running-requests 16 at 32,768: table 17 x 32,772 x 4 =
 *     2,228,496 B.
 */
static void
test_knobs(void)
{
	struct qa_inventory *inv = llama_inv();
	struct qa_fit_options o;
	struct qa_fit_result r;

	opts(&o);
	o.ctx = 32768;
	o.mem_fraction_static = 0.8;
	if (run(inv, &o, &r) == 0)
		CHECKF(r.max_context_f16 == 76734, "mfs 0.8: %lld",
		       (long long)r.max_context_f16);
	o.mem_fraction_static = 0;
	o.enforce_eager = true;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.max_context_f16 == 68265, "eager: %lld",
		       (long long)r.max_context_f16);
		CHECKF(r.formula && strstr(r.formula, "0.766"), "eager f %s",
		       r.formula ? r.formula : "(null)");
	}
	o.enforce_eager = false;
	o.chunked_prefill_size = 4096;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.max_context_f16 == 15209, "chunk 4096: %lld",
		       (long long)r.max_context_f16);
		CHECKF(r.formula && strstr(r.formula, "reserved 7328 MiB"),
		       "chunk f %s", r.formula ? r.formula : "(null)");
	}
	o.chunked_prefill_size = 0;
	o.parallel = 16;
	if (run(inv, &o, &r) == 0)
		CHECKF(r.devices[0].overhead_bytes == 2228496ull,
		       "16 requests: %" PRIu64, r.devices[0].overhead_bytes);
	qa_inventory_destroy(inv);
}

/*
 * Qwen3-30B-A3B AWQ int4 (group 128), TP=2: the AWQ weights of the vLLM
 * test, 8,414,130,176 B per rank; cell 2 KV heads x 256 x 48 x 2 =
 * 49,152 B; rest = 16,324,231,168 - 8,414,130,176 - 4,179,003,179.008 =
 * 3,731,097,812 B: 75,909 tokens, so the trained 40,960 fits.
 */
static void
test_qwen3_moe(void)
{
#define AWQ(in, out) ((uint64_t)(in) * (out) / 2 +                          \
		      (uint64_t)(in) / 128 * (out) * 2 +                     \
		      (uint64_t)(in) / 128 * (out) / 8 * 4)
	struct qa_inventory *inv = qa_inventory_create("qwen3moe");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	uint64_t emb = 151936ull * 2048 * 2;
	int l;

	inv->kind = QA_KIND_HF_DIR;
	hp->arch = "qwen3_moe";
	hp->arch_raw = "Qwen3MoeForCausalLM";
	hp->n_layer = 48;
	hp->n_embd = 2048;
	hp->n_head = 32;
	hp->n_head_kv = 4;
	hp->head_dim_k = hp->head_dim_v = 128;
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
	opts(&o);
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].weights_bytes == 8414130176ull, "W %" PRIu64,
		       r.devices[0].weights_bytes);
		CHECKF(r.devices[0].kv_bytes == 40960ull * 49152, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.formula && strstr(r.formula, "-> 75909 tokens"),
		       "formula %s", r.formula ? r.formula : "(null)");
		CHECKF(r.max_context_f16 == 40960, "max %lld",
		       (long long)r.max_context_f16);
		CHECKF(strcmp(r.verdict, "does-not-fit") != 0, "verdict %s",
		       r.verdict);
	}
#undef AWQ
	qa_inventory_destroy(inv);
}

/*
 * DeepSeek-V2-Lite (MLA), TP=2: the MLA backend reserves 1.5 GiB for
 * prefill graphs, so reserved = 512 + 3,072 + 256 + 16 + 1,536 = 5,392
 * MiB and f = round(10,992 / 16,384, 3) = 0.671. W = 27 x (kv_a
 * 2,359,296 replicated + kv_b 4,194,304 / 2) = 120,324,096 B. The latent
 * cell (512 + 64) x 27 x 2 = 31,104 B is not divided by TP: rest =
 * 16,324,231,168 - 120,324,096 - F x 0.329 = 10,833,235,017 B, 348,290
 * tokens; the trained 163,840 fits.
 */
static void
test_deepseek_mla(void)
{
	struct qa_inventory *inv = qa_inventory_create("dsv2lite");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	uint64_t kva = 2048ull * 576 * 2;
	int l;

	inv->kind = QA_KIND_HF_DIR;
	hp->arch = "deepseek_v2";
	hp->arch_raw = "DeepseekV2ForCausalLM";
	hp->n_layer = 27;
	hp->n_embd = 2048;
	hp->n_head = 16;
	hp->n_head_kv = 16;
	hp->head_dim_k = 192;
	hp->head_dim_v = 128;
	hp->kv_lora_rank = 512;
	hp->qk_rope_dim = 64;
	hp->n_vocab = 102400;
	hp->n_ctx_train = 163840;
	set_kinds(inv, NULL);
	for (l = 0; l < 27; l++) {
		add(inv, QA_ROLE_MLA_KV_A, l, kva, 2);
		add(inv, QA_ROLE_MLA_KV_B, l, 512ull * 16 * 256 * 2, 2);
	}
	opts(&o);
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].weights_bytes == 120324096ull, "W %" PRIu64,
		       r.devices[0].weights_bytes);
		CHECKF(r.devices[0].kv_bytes == 32768ull * 31104, "kv %" PRIu64,
		       r.devices[1].kv_bytes);
		CHECKF(r.formula && strstr(r.formula, "0.671") &&
		       strstr(r.formula, "MLA cell 31104") &&
		       strstr(r.formula, "-> 348290 tokens"), "formula %s",
		       r.formula ? r.formula : "(null)");
		CHECKF(r.max_context_f16 == 163840, "max %lld",
		       (long long)r.max_context_f16);
	}
	qa_inventory_destroy(inv);
}

/*
 * Gemma-3-12B bf16 (11.4 GiB per rank, as in the vLLM test). SGLang's
 * hybrid sliding-window pools are for a list of classes that does not
 * include Gemma 3, so all 48 layers get full cells: 4 x 512 x 48 x 2 =
 * 196,608 B/token. At the default f the weights leave nothing: (F - W) -
 * F x 0.256 = -95,428,804 B, SGLang refuses. With --mem-fraction-static
 * 0.9: 4,083,574,375 - 1,632,423,116.8 = 2,451,151,258 B, 12,467 tokens.
 */
static void
test_gemma3(void)
{
	struct qa_inventory *inv = qa_inventory_create("gemma3");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	char pat[49];
	int l;

	inv->kind = QA_KIND_HF_DIR;
	hp->arch = "gemma3";
	hp->arch_raw = "Gemma3ForConditionalGeneration";
	hp->n_layer = 48;
	hp->n_embd = 3840;
	hp->n_head = 16;
	hp->n_head_kv = 8;
	hp->head_dim_k = hp->head_dim_v = 256;
	hp->n_vocab = 262208;
	hp->n_ctx_train = 131072;
	hp->sliding_window = 1024;
	for (l = 0; l < 48; l++)
		pat[l] = l % 6 < 5 ? 'S' : 'F';
	pat[48] = '\0';
	set_kinds(inv, pat);
	add(inv, QA_ROLE_OTHER, -1, (uint64_t)(11.4 * (double)GIB), 2);
	opts(&o);
	o.ctx = 8192;
	if (run(inv, &o, &r) == 0) {
		CHECKF(strcmp(r.verdict, "does-not-fit") == 0, "verdict %s",
		       r.verdict);
		CHECK(has_note(&r, "SGLang refuses: loaded weights"));
	}
	o.mem_fraction_static = 0.9;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].kv_bytes == 8192ull * 196608, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.max_context_f16 == 12467, "max %lld",
		       (long long)r.max_context_f16);
	}
	qa_inventory_destroy(inv);
}

/*
 * A gpt-oss-like sliding-window hybrid (GptOssForCausalLM is in SGLang's
 * hybrid-SWA list): 24 layers alternating sliding (window 128) and full,
 * 8 KV heads of 64, W 1 GiB. Per layer 4 x 128 x 2 = 1,024 B/token; cell
 * = 1,024 x 12 + 0.8 x 1,024 x 12 = 22,118.4 B per full token; rest =
 * 15,250,489,344 - 4,179,003,179.008 = 11,071,486,164 B: 500,555 full
 * tokens (400,444 sliding). One request of 32,768: 32,768 x 12,288 +
 * 128 x 12,288 = 404,226,048 B.
 */
static void
test_hybrid_swa(void)
{
	struct qa_inventory *inv = qa_inventory_create("gptoss");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;
	char pat[25];
	int l;

	inv->kind = QA_KIND_HF_DIR;
	hp->arch = "gpt_oss";
	hp->arch_raw = "GptOssForCausalLM";
	hp->n_layer = 24;
	hp->n_embd = 2880;
	hp->n_head = 64;
	hp->n_head_kv = 8;
	hp->head_dim_k = hp->head_dim_v = 64;
	hp->n_vocab = 201088;
	hp->n_ctx_train = 131072;
	hp->sliding_window = 128;
	for (l = 0; l < 24; l++)
		pat[l] = l % 2 == 0 ? 'S' : 'F';
	pat[24] = '\0';
	set_kinds(inv, pat);
	add(inv, QA_ROLE_OTHER, -1, GIB, 2);
	opts(&o);
	o.ctx = 32768;
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].kv_bytes == 404226048ull, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.formula && strstr(r.formula, "-> 500555 tokens"),
		       "formula %s", r.formula ? r.formula : "(null)");
		CHECK(has_note(&r, "sliding layers 400444"));
	}
	qa_inventory_destroy(inv);
}

/*
 * Nemotron-Nano-9B-v2 bf16 (8.3 GiB per rank), TP=2: 27 Mamba-2 layers
 * of conv 3 x (10,240 + 2 x 8 x 128) / 2 x 2 B (bf16) = 36,864 B and SSM
 * 64 x 80 x 128 x 4 B (float32) = 2,621,440 B: 71,774,208 B per
 * request. rest = 16,324,231,168 - 8,912,057,139 - 4,179,003,179.008 =
 * 3,233,170,849 B; the Mamba pool takes 0.9 / 1.9 of it: 21 slots
 * (1,507,258,368 B), leaving 1,725,912,481 B for 4 attention layers x
 * 2,048 B = 8,192 B/token: 210,682 tokens. Requests: min(2048, 210,682
 * / 2, 21 / (3 + 2)) = 4 (NemotronH uses the extra-buffer strategy), so
 * the table is 5 x 131,076 x 4 = 2,621,520 B.
 */
static void
test_nemotron_h(void)
{
	static const char pat[] =
		"M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
	struct qa_inventory *inv = qa_inventory_create("nemotronh");
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_options o;
	struct qa_fit_result r;

	inv->kind = QA_KIND_HF_DIR;
	hp->arch = "nemotron_h";
	hp->arch_raw = "NemotronHForCausalLM";
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
	add(inv, QA_ROLE_OTHER, -1, (uint64_t)(8.3 * (double)GIB), 2);
	opts(&o);
	if (run(inv, &o, &r) == 0) {
		CHECKF(r.devices[0].recurrent_bytes == 71774208ull,
		       "state %" PRIu64, r.devices[0].recurrent_bytes);
		CHECKF(r.devices[0].kv_bytes == 131072ull * 8192, "kv %" PRIu64,
		       r.devices[0].kv_bytes);
		CHECKF(r.devices[0].overhead_bytes == 2621520ull,
		       "table %" PRIu64, r.devices[0].overhead_bytes);
		CHECKF(r.formula && strstr(r.formula, "-> 210682 tokens"),
		       "formula %s", r.formula ? r.formula : "(null)");
		CHECK(has_note(&r, "21 hybrid state slots"));
		CHECKF(strcmp(r.verdict, "does-not-fit") != 0, "verdict %s",
		       r.verdict);
	}
	qa_inventory_destroy(inv);
}

int
main(void)
{
	test_llama();
	test_knobs();
	test_qwen3_moe();
	test_deepseek_mla();
	test_gemma3();
	test_hybrid_swa();
	test_nemotron_h();
	return th_done("fit-sglang");
}
