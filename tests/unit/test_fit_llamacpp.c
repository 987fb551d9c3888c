/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the llama.cpp fit model (src/fit/fit_llamacpp.c).
 *
 * Part 1 replays every llama.cpp log of the corpus ($QA_CORPUS/llama-logs,
 * the engine's own numbers on the CPU backend): the log's GGUF is loaded,
 * the model runs with the log's -c/-ctk/-ctv/-fa/-np/-ub on a host-only
 * "CPU" device, and the KV cache (total and K/V, per base/SWA cache) and
 * the recurrent state must equal the log to its 2-decimal MiB rounding,
 * the compute buffer must be within 10 %, and a failed run must be a
 * predicted refusal (and a refusal a failed run).
 *
 * Part 2 checks the worked examples of memory-models.md section 5 on
 * hand-built inventories with the real shapes; every expected value is
 * the document's (measured by the engine) or worked out by hand in the
 * comments here, never the code's output.
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "fit/gpuspec.h"
#include "engine/audit.h"
#include "analysis/analysis.h"
#include "core/inventory.h"
#include "harness.h"

#define MIB 1048576.0

/* The log prints %.2f of MiB: equal to that rounding. */
static bool
mib_eq(uint64_t bytes, double logged)
{
	return fabs((double)bytes / MIB - logged) <= 0.005 + 1e-9;
}

static void
cpu_device(struct qa_fit_options *o)
{
	memset(&o->gpus, 0, sizeof(o->gpus));
	o->gpus.n = 1;
	snprintf(o->gpus.dev[0].name, sizeof(o->gpus.dev[0].name), "CPU");
	o->gpus.dev[0].vram_bytes = (uint64_t)64 << 30;
	o->gpus.dev[0].usable_bytes = (uint64_t)64 << 30;
}

/*
 * The log's -m path to the corpus file (SOURCES.md): "gguf-tiny/X" are
 * the converted models in gguf/; the llama-completion logs ran in the
 * tiny-llama folder ("tiny-llama-*.gguf", "split/...").
 */
static void
corpus_model(const char *corpus, const char *m, char *out, size_t n)
{
	const char *base = strrchr(m, '/');

	if (!strncmp(m, "gguf-tiny/", 10))
		snprintf(out, n, "%s/gguf/%s", corpus, m + 10);
	else if (!strncmp(m, "split/", 6))
		snprintf(out, n, "%s/tiny-llama/%s", corpus, m);
	else
		snprintf(out, n, "%s/tiny-llama/%s", corpus,
			 base ? base + 1 : m);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void
check_log(const char *corpus, const char *name)
{
	char path[4096], model[4096], err[256] = "";
	struct qa_llamacpp_log lg;
	struct qa_inventory *inv = NULL;
	struct qa_fit_options o;
	struct qa_fit_result r;
	struct qa_fit_llamacpp_detail d;
	size_t i;
	bool refused;

	/* names are at most 255 bytes (corpus_logs) */
	snprintf(path, sizeof(path), "%s/llama-logs/%.255s", corpus, name);
	if (qa_fit_parse_llamacpp_log(path, &lg, err, sizeof(err)) != 0) {
		FAIL("%s: %s", name, err);
		return;
	}
	corpus_model(corpus, lg.model, model, sizeof(model));
	if (qa_input_inspect(model, &inv, err, sizeof(err)) != 0) {
		FAIL("%s: cannot load %s: %s", name, model, err);
		return;
	}
	memset(&o, 0, sizeof(o));
	o.engine = QA_ENGINE_LLAMACPP;
	cpu_device(&o);
	o.ctx = lg.ctx > 0 ? lg.ctx : 0;
	o.kv_k = lg.ctk[0] ? lg.ctk : NULL;
	o.kv_v = lg.ctv[0] ? lg.ctv : NULL;
	o.flash_attn = lg.fa;
	o.parallel = lg.np;
	o.ubatch = lg.ub;
	if (qa_fit_llamacpp_ex(inv, &o, &r, &d, err, sizeof(err)) != 0) {
		FAIL("%s: fit failed: %s", name, err);
		qa_inventory_destroy(inv);
		return;
	}
	refused = d.refusal[0] != '\0';
	CHECKF(refused == (lg.rc != 0), "%s: rc=%d but refusal '%s'", name,
	       lg.rc, d.refusal);
	if (refused) {
		CHECKF(!strcmp(r.verdict, "does-not-fit"), "%s: verdict %s",
		       name, r.verdict);
		/* Where the log kept llama.cpp's message, it is ours. */
		if (lg.failure[0] && (strstr(lg.failure, "does not divide") ||
				      strstr(lg.failure, "requires")))
			CHECKF(strstr(lg.failure, d.refusal) != NULL,
			       "%s: log says '%s', model '%s'", name,
			       lg.failure, d.refusal);
		printf("ok %s: refused (%s)\n", name, d.refusal);
		qa_inventory_destroy(inv);
		return;
	}
	CHECKF(lg.n_kv > 0, "%s: no KV line", name);
	for (i = 0; i < lg.n_kv; i++) {
		const struct qa_llamacpp_log_kv *k = &lg.kv[i];
		bool swa = d.layers_swa && k->cells == d.cells_swa &&
			   k->layers == (int)d.layers_swa;
		uint64_t kb = swa ? d.k_swa : d.k_base;
		uint64_t vb = swa ? d.v_swa : d.v_base;

		CHECKF(k->cells == (swa ? d.cells_swa : d.cells_base) &&
		       k->layers == (int)(swa ? d.layers_swa : d.layers_base),
		       "%s: cache %zu: %" PRId64 " cells %d layers, model %"
		       PRId64 "/%u", name, i, k->cells, k->layers,
		       swa ? d.cells_swa : d.cells_base,
		       swa ? d.layers_swa : d.layers_base);
		CHECKF(mib_eq(kb + vb, k->mib) && mib_eq(kb, k->k_mib) &&
		       mib_eq(vb, k->v_mib),
		       "%s: cache %zu: log %.2f (K %.2f V %.2f) MiB, model "
		       "%.4f (K %.4f V %.4f)", name, i, k->mib, k->k_mib,
		       k->v_mib, (double)(kb + vb) / MIB, (double)kb / MIB,
		       (double)vb / MIB);
	}
	CHECKF(lg.n_kv == (d.layers_swa ? 2u : 1u) || !d.layers_base,
	       "%s: %zu KV lines, model has %s", name, lg.n_kv,
	       d.layers_swa ? "base + SWA" : "one cache");
	{
		double sum = 0;

		for (i = 0; i < lg.n_kv; i++)
			sum += lg.kv[i].mib;
		CHECKF(fabs(r.totals_kv / MIB - sum) <=
		       0.005 * (double)lg.n_kv + 1e-9,
		       "%s: total KV %.4f MiB, log %.2f", name,
		       r.totals_kv / MIB, sum);
	}
	if (lg.has_rs)
		CHECKF(mib_eq(d.r_bytes, lg.r_mib) &&
		       mib_eq(d.s_bytes, lg.s_mib),
		       "%s: recurrent R %.2f S %.2f, model %.4f %.4f", name,
		       lg.r_mib, lg.s_mib, (double)d.r_bytes / MIB,
		       (double)d.s_bytes / MIB);
	else
		CHECKF(r.totals_recurrent == 0, "%s: unexpected state", name);
	/* The CPU backend puts the graph inputs (the n_ub x E f32 token
	 * embedding rows that become "CUDA_Host compute buffer" on CUDA)
	 * in the same CPU compute buffer, so the log's figure is the
	 * device part the model reports plus that host input part. */
	CHECKF(lg.n_compute > 0, "%s: no compute buffer line", name);
	if (lg.n_compute > 0) {
		double want = lg.compute[lg.n_compute - 1].mib;
		double got = (double)(r.devices[0].compute_bytes +
				      d.compute_host_input) / MIB;

		CHECKF(fabs(got - want) <= 0.10 * want,
		       "%s: compute %.2f MiB, model %.2f (>10 %%)", name, want,
		       got);
		printf("ok %s: KV %.2f MiB, compute log %.2f model %.2f "
		       "(%+.1f %%)\n", name, (double)r.totals_kv / MIB, want,
		       got, 100.0 * (got - want) / want);
	}
	qa_inventory_destroy(inv);
}

static int
corpus_logs(void)
{
	const char *corpus = getenv("QA_CORPUS");
	char dir[4096];
	static char names[256][256];
	size_t n = 0, i;
	struct dirent *de;
	DIR *dp;

	if (!corpus)
		return 77;
	snprintf(dir, sizeof(dir), "%s/llama-logs", corpus);
	dp = opendir(dir);
	if (!dp)
		return 77;
	while ((de = readdir(dp)) != NULL && n < 256) {
		size_t len = strlen(de->d_name);

		if (len > 4 && len < sizeof(names[0]) &&
		    !strcmp(de->d_name + len - 4, ".log"))
			memcpy(names[n++], de->d_name, len + 1);
	}
	closedir(dp);
	qsort(names, n, sizeof(names[0]), cmp_name);
	CHECKF(n >= 40, "only %zu logs in %s", n, dir);
	for (i = 0; i < n; i++)
		check_log(corpus, names[i]);
	return 0;
}

/* ---- section 5: hand-built inventories ---- */

static void
kv_u32(struct qa_inventory *inv, const char *key, uint64_t v)
{
	struct qa_kv *kv = qa_inv_add_kv(inv);

	kv->key = key;
	kv->value.type = QA_V_U32;
	kv->value.v.u = v;
}

static struct qa_inventory *
model(const char *arch, int64_t L, int64_t E, int64_t H, int64_t Hkv,
      int64_t d, int64_t F, int64_t V, int64_t train)
{
	struct qa_inventory *inv = qa_inventory_create("x.gguf");
	struct qa_hparams *hp = &inv->hp;
	int64_t i;

	inv->kind = QA_KIND_GGUF;
	qa_hparams_init(hp);
	hp->arch = hp->arch_raw = arch;
	hp->n_layer = hp->n_layer_all = L;
	hp->n_embd = E;
	hp->n_head = H;
	hp->n_head_kv = Hkv;
	hp->head_dim_k = hp->head_dim_v = d;
	hp->n_ff = F;
	hp->n_vocab = V;
	hp->n_ctx_train = train;
	hp->n_mtp = 0;
	hp->layer_kind = qa_arena_array(&inv->arena, (size_t)L, 1);
	for (i = 0; i < L; i++)
		hp->layer_kind[i] = QA_LAYER_FULL_ATTENTION;
	return inv;
}

static void
tensor(struct qa_inventory *inv, enum qa_role role, int32_t layer,
       int type, uint64_t ne0, uint64_t ne1, uint64_t bytes)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);

	t->name = "t";
	t->role = role;
	t->layer = layer;
	t->ggml_type = type;
	t->n_dims = 2;
	t->shape[0] = ne0;
	t->shape[1] = ne1;
	t->elements = ne0 * ne1;
	t->bytes = bytes;
	t->module = -1;
}

static int
run(struct qa_inventory *inv, const char *gpus, int64_t ctx,
    const char *kv, int np, struct qa_fit_result *r,
    struct qa_fit_llamacpp_detail *d)
{
	struct qa_fit_options o;
	char err[256] = "";

	qa_fit_options_init(&o);	/* --fit's 1024 MiB margin */
	o.engine = QA_ENGINE_LLAMACPP;
	o.ctx = ctx;
	o.kv_k = o.kv_v = kv;
	o.parallel = np;
	if (qa_gpuspec_parse(gpus, &o.gpus, err, sizeof(err)) != 0) {
		FAIL("gpus %s: %s", gpus, err);
		return -1;
	}
	if (qa_fit_llamacpp_ex(inv, &o, r, d, err, sizeof(err)) != 0) {
		FAIL("fit: %s", err);
		return -1;
	}
	return 0;
}

#define Q4_K 12
#define Q6_K 14
#define F32 0

/*
 * Llama-3.1-8B Q4_K_M (section 5.1), shape-exact: Q4_K is 144 B per 256
 * elements, Q6_K 210 B. Per block: attn_q/attn_output 4096x4096 Q4_K
 * (9437184 B each), attn_k 4096x1024 Q4_K (2359296), ffn_gate/ffn_up
 * 4096x14336 Q4_K (33030144 each), two f32 norms (16384 each); attn_v
 * and ffn_down are Q6_K (3440640 + 48168960) on llama-quantize's
 * use_more_bits layers (i < 4, i >= 28, (i - 4) % 3 == 2) and Q4_K
 * (2359296 + 33030144) elsewhere. token_embd Q4_K 295501824 B (281.8
 * MiB), output Q6_K 430940160 B, output_norm 16384: 4912898048 B total,
 * the document's figure.
 */
static bool
more_bits(int i)
{
	return i < 4 || i >= 28 || (i - 4) % 3 == 2;
}

static struct qa_inventory *
llama8b(void)
{
	struct qa_inventory *inv = model("llama", 32, 4096, 32, 8, 128,
					 14336, 128256, 131072);
	int i;

	tensor(inv, QA_ROLE_EMBED, -1, Q4_K, 4096, 128256, 295501824u);
	tensor(inv, QA_ROLE_LM_HEAD, -1, Q6_K, 4096, 128256, 430940160u);
	tensor(inv, QA_ROLE_NORM, -1, F32, 4096, 1, 16384);
	for (i = 0; i < 32; i++) {
		bool mb = more_bits(i);

		tensor(inv, QA_ROLE_ATTN_Q, i, Q4_K, 4096, 4096, 9437184);
		tensor(inv, QA_ROLE_ATTN_K, i, Q4_K, 4096, 1024, 2359296);
		tensor(inv, QA_ROLE_ATTN_V, i, mb ? Q6_K : Q4_K, 4096, 1024,
		       mb ? 3440640 : 2359296);
		tensor(inv, QA_ROLE_ATTN_O, i, Q4_K, 4096, 4096, 9437184);
		tensor(inv, QA_ROLE_FFN_GATE, i, Q4_K, 4096, 14336, 33030144);
		tensor(inv, QA_ROLE_FFN_UP, i, Q4_K, 4096, 14336, 33030144);
		tensor(inv, QA_ROLE_FFN_DOWN, i, mb ? Q6_K : Q4_K, 14336, 4096,
		       mb ? 48168960 : 33030144);
		tensor(inv, QA_ROLE_NORM, i, F32, 4096, 1, 16384);
		tensor(inv, QA_ROLE_NORM, i, F32, 4096, 1, 16384);
	}
	return inv;
}

static void
example_llama8b(void)
{
	struct qa_inventory *inv = llama8b();
	struct qa_fit_result r;
	struct qa_fit_llamacpp_detail d;
	uint64_t total = 0;
	uint32_t i;
	double secs;

	for (i = 0; i < inv->n_tensors; i++)
		total += inv->tensors[i].bytes;
	CHECKF(total == 4912898048u, "llama8b inventory %" PRIu64, total);
	/* KV at 32K: 32 layers x 2 x 1024 x 2 B = 128 KiB per token. */
	if (run(inv, "none", 32768, "f16", 0, &r, &d) == 0)
		CHECKF(r.totals_kv == (uint64_t)4096 << 20,
		       "llama8b f16 KV %.2f MiB", r.totals_kv / MIB);
	if (run(inv, "none", 32768, "q8_0", 0, &r, &d) == 0)
		CHECKF(r.totals_kv == (uint64_t)2176 << 20,
		       "llama8b q8_0 KV %.2f MiB", r.totals_kv / MIB);
	if (run(inv, "none", 32768, "q4_0", 0, &r, &d) == 0)
		CHECKF(r.totals_kv == (uint64_t)1152 << 20,
		       "llama8b q4_0 KV %.2f MiB", r.totals_kv / MIB);
	/* np=4 non-unified: 4 streams x 8192 cells, still 4096 MiB. */
	if (run(inv, "none", 32768, "f16", 4, &r, &d) == 0)
		CHECKF(r.totals_kv == (uint64_t)4096 << 20 &&
		       d.n_ctx_seq == 8192 && d.n_stream == 4,
		       "llama8b np=4 KV %.2f MiB, %" PRId64 " cells",
		       r.totals_kv / MIB, d.n_ctx_seq);
	/* Compute, FA on, one device, head phase: logits 4 x 512 x 128256
	 * + result_norm 4 x 512 x 4096 = 258.5 MiB, the CUDA log's "CUDA0
	 * compute buffer size = 258.50 MiB" (inp_embd is in CUDA_Host),
	 * plus the small inputs at 128 B: tokens, positions, out_ids 2048
	 * each, the k/v indices 2 x 4096: 14336 B. The conservative value
	 * adds the dense placement term 4 x 512 x 2 x 4096 = 16 MiB. */
	if (run(inv, "rtx-5060-ti", 32768, "f16", 0, &r, &d) == 0) {
		CHECKF(r.devices[0].compute_tight_bytes == 271056896u + 14336u,
		       "llama8b 1 GPU compute (tight) %.4f MiB",
		       r.devices[0].compute_tight_bytes / MIB);
		CHECKF(r.devices[0].compute_bytes ==
		       271056896u + 14336u + 16777216u,
		       "llama8b 1 GPU compute %.4f MiB",
		       r.devices[0].compute_bytes / MIB);
		/* One 16 GB GPU: about 80K (section 5.1). */
		CHECKF(r.max_context_f16 >= 76000 && r.max_context_f16 <= 84000,
		       "llama8b 1 GPU max ctx %" PRId64, r.max_context_f16);
	}
	/* Section 5.1 split on 2x RTX 5060 Ti: equal free memory, units
	 * l / 33: layers 0-16 on GPU0, 17-31 + output on GPU1. GPU0 holds 8
	 * use_more_bits blocks (0-3, 6, 9, 12, 15) and 9 others:
	 * 8 x 138936320 + 9 x 122716160 = 2215936000 B (2113 MiB); GPU1 8
	 * (18, 21, 24, 27, 28-31) and 7: 1970503680 + output 430940160 +
	 * norm 16384 = 2401460224 B (2290 MiB). KV 17 x 128 MiB = 2176 and
	 * 15 x 128 = 1920 MiB; token_embd stays on the host. */
	if (run(inv, "rtx-5060-ti:2", 32768, "f16", 0, &r, &d) == 0) {
		CHECKF(r.n_devices == 2, "2 devices: %zu", r.n_devices);
		CHECKF(r.devices[0].first_layer == 0 &&
		       r.devices[0].last_layer == 16 &&
		       !r.devices[0].has_output,
		       "GPU0 layers %d-%d", r.devices[0].first_layer,
		       r.devices[0].last_layer);
		CHECKF(r.devices[1].first_layer == 17 &&
		       r.devices[1].last_layer == 31 && r.devices[1].has_output,
		       "GPU1 layers %d-%d", r.devices[1].first_layer,
		       r.devices[1].last_layer);
		CHECKF(r.devices[0].weights_bytes == 2215936000u,
		       "GPU0 weights %" PRIu64, r.devices[0].weights_bytes);
		CHECKF(r.devices[1].weights_bytes == 2401460224u,
		       "GPU1 weights %" PRIu64, r.devices[1].weights_bytes);
		CHECKF(r.devices[0].kv_bytes == (uint64_t)2176 << 20 &&
		       r.devices[1].kv_bytes == (uint64_t)1920 << 20,
		       "KV split %.2f / %.2f MiB", r.devices[0].kv_bytes / MIB,
		       r.devices[1].kv_bytes / MIB);
		CHECKF(r.host_bytes == 295501824u, "host %" PRIu64,
		       r.host_bytes);
		CHECKF(!strcmp(r.verdict, "fits"), "verdict %s", r.verdict);
		/* ~177K memory-limited, capped at the trained 131072. */
		CHECKF(r.max_context_f16 == 131072, "max ctx %" PRId64,
		       r.max_context_f16);
		/* Decode bound: both GPUs' weights and KV at 448 GB/s,
		 * stages in series. */
		secs = (2215936000.0 + 2176 * MIB + 2401460224.0 +
			1920 * MIB) / 448e9;
		CHECK_NEAR(r.decode_tokens_per_s_max, 1 / secs, 0.01);
	}
	qa_inventory_destroy(inv);
}

static void
example_qwen3_moe(void)
{
	struct qa_inventory *inv = model("qwen3moe", 48, 2048, 32, 4, 128,
					 6144, 151936, 40960);
	struct qa_fit_result r;
	struct qa_fit_llamacpp_detail d;

	/* 48 x 2 x 512 x 2 B = 96 KiB per token: 3072 MiB at 32K, 3840
	 * at 40960 (section 5.2, measured). */
	if (run(inv, "none", 32768, NULL, 0, &r, &d) == 0)
		CHECKF(r.totals_kv == (uint64_t)3072 << 20,
		       "qwen3moe KV %.2f MiB", r.totals_kv / MIB);
	if (run(inv, "none", 40960, NULL, 0, &r, &d) == 0)
		CHECKF(r.totals_kv == (uint64_t)3840 << 20,
		       "qwen3moe 40960 KV %.2f MiB", r.totals_kv / MIB);
	qa_inventory_destroy(inv);
}

static void
example_gemma3(void)
{
	struct qa_inventory *inv = model("gemma3", 48, 3840, 16, 8, 256,
					 15360, 262208, 131072);
	struct qa_fit_result r;
	struct qa_fit_llamacpp_detail d;
	int i;

	inv->hp.sliding_window = 1024;
	inv->hp.swa_pattern = 6;
	for (i = 0; i < 48; i++)
		if (i % 6 < 5)
			inv->hp.layer_kind[i] = QA_LAYER_SLIDING_ATTENTION;
	/* 40 SWA layers x 8192 B x pad256(1024 + 512) = 480 MiB in 1536
	 * cells; base 8 x 8192 x 32768 = 2048 MiB (section 1.3, measured). */
	if (run(inv, "none", 32768, NULL, 1, &r, &d) == 0) {
		CHECKF(d.cells_swa == 1536 && d.layers_swa == 40,
		       "gemma3 SWA %" PRId64 " cells %u layers", d.cells_swa,
		       d.layers_swa);
		CHECKF(d.k_swa + d.v_swa == (uint64_t)480 << 20,
		       "gemma3 SWA %.2f MiB", (d.k_swa + d.v_swa) / MIB);
		CHECKF(d.k_base + d.v_base == (uint64_t)2048 << 20 &&
		       d.layers_base == 8,
		       "gemma3 base %.2f MiB", (d.k_base + d.v_base) / MIB);
	}
	/* np=4 non-unified: 1536 cells x 4 streams = 1920 MiB. */
	if (run(inv, "none", 32768, NULL, 4, &r, &d) == 0)
		CHECKF(d.k_swa + d.v_swa == (uint64_t)1920 << 20,
		       "gemma3 np=4 SWA %.2f MiB", (d.k_swa + d.v_swa) / MIB);
	/* Head dim 256 is a multiple of 32: q4_0 is allowed. */
	if (run(inv, "none", 32768, "q4_0", 1, &r, &d) == 0)
		CHECKF(!d.refusal[0], "gemma3 q4_0 refused: %s", d.refusal);
	qa_inventory_destroy(inv);
}

static void
example_deepseek_v2_lite(void)
{
	struct qa_inventory *inv = model("deepseek2", 27, 2048, 16, 1, 576,
					 10944, 102400, 163840);
	struct qa_fit_result r;
	struct qa_fit_llamacpp_detail d;

	inv->hp.head_dim_v = 512;
	inv->hp.kv_lora_rank = 512;
	inv->hp.qk_rope_dim = 64;
	inv->hp.qk_nope_dim = 128;
	inv->hp.v_head_dim_mla = 128;
	kv_u32(inv, "deepseek2.attention.key_length_mla", 192);
	kv_u32(inv, "deepseek2.attention.value_length_mla", 128);
	/* V-less: 27 x 576 x 2 = 31104 B per token: 972 MiB at 32K, 4860
	 * MiB at 163840, q8_0 27 x 18 x 34 x 32768 B = 516.375 MiB
	 * (section 1.4, measured). */
	if (run(inv, "none", 32768, NULL, 0, &r, &d) == 0)
		CHECKF(r.totals_kv == (uint64_t)972 << 20 && d.v_base == 0,
		       "V2-Lite KV %.2f MiB, V %" PRIu64, r.totals_kv / MIB,
		       d.v_base);
	if (run(inv, "none", 163840, NULL, 0, &r, &d) == 0)
		CHECKF(r.totals_kv == (uint64_t)4860 << 20,
		       "V2-Lite 163840 KV %.2f MiB", r.totals_kv / MIB);
	if (run(inv, "none", 32768, "q8_0", 0, &r, &d) == 0)
		CHECKF(r.totals_kv == 541458432u,
		       "V2-Lite q8_0 KV %.3f MiB", r.totals_kv / MIB);
	qa_inventory_destroy(inv);
}

static void
example_nemotron_h(void)
{
	static const char pat[] =
		"M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
	struct qa_inventory *inv = model("nemotron_h", 56, 4480, 40, 8, 128,
					 15680, 131072, 131072);
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_result r;
	struct qa_fit_llamacpp_detail d;
	int i;

	CHECKF(strlen(pat) == 56, "pattern length %zu", strlen(pat));
	hp->head_kv_per_layer = qa_arena_array(&inv->arena, 56, 4);
	for (i = 0; i < 56; i++) {
		hp->layer_kind[i] = pat[i] == 'M' ? QA_LAYER_MAMBA :
				    pat[i] == '*' ? QA_LAYER_FULL_ATTENTION :
						    QA_LAYER_MLP_ONLY;
		hp->head_kv_per_layer[i] = pat[i] == '*' ? 8 : 0;
	}
	hp->ssm_d_conv = 4;
	hp->ssm_d_inner = 10240;
	hp->ssm_d_state = 128;
	hp->ssm_n_group = 8;
	/* 27 Mamba layers x 4 B x (3 (10240 + 2 x 8 x 128) + 128 x 10240)
	 * = 138.80 MiB per sequence, measured "R 3.80 MiB, S 135.00 MiB";
	 * KV 4 x 2 x 1024 x 2 B per token = 512 MiB at 32K. */
	if (run(inv, "none", 32768, NULL, 1, &r, &d) == 0) {
		CHECKF(d.layers_recurrent == 27 && d.layers_base == 4,
		       "nemotron %u recurrent %u attention",
		       d.layers_recurrent, d.layers_base);
		CHECKF(mib_eq(r.totals_recurrent, 138.80) &&
		       mib_eq(d.r_bytes, 3.80) && mib_eq(d.s_bytes, 135.00),
		       "nemotron state %.4f MiB", r.totals_recurrent / MIB);
		CHECKF(r.totals_kv == (uint64_t)512 << 20,
		       "nemotron KV %.2f MiB", r.totals_kv / MIB);
	}
	/* np=4: 555.19 MiB (section 1.5). */
	if (run(inv, "none", 32768, NULL, 4, &r, &d) == 0)
		CHECKF(mib_eq(r.totals_recurrent, 555.19),
		       "nemotron np=4 state %.4f MiB",
		       r.totals_recurrent / MIB);
	qa_inventory_destroy(inv);
}

static void
example_qwen3_next(void)
{
	struct qa_inventory *inv = model("qwen3next", 48, 2048, 16, 2, 256,
					 5120, 151936, 262144);
	struct qa_hparams *hp = &inv->hp;
	struct qa_fit_result r;
	struct qa_fit_llamacpp_detail d;
	int i;

	for (i = 0; i < 48; i++)
		if ((i + 1) % 4 != 0)
			hp->layer_kind[i] = QA_LAYER_LINEAR_ATTENTION;
	hp->ssm_d_conv = 4;
	hp->ssm_d_inner = 4096;
	hp->ssm_d_state = 128;
	hp->ssm_n_group = 16;
	/* 36 GDN layers x 4 x (3 (4096 + 2 x 16 x 128) + 128 x 4096) =
	 * 79036416 B = 75.4 MiB per sequence (section 1.5). */
	if (run(inv, "none", 32768, NULL, 1, &r, &d) == 0)
		CHECKF(r.totals_recurrent == 79036416u &&
		       d.layers_recurrent == 36 && d.layers_base == 12,
		       "qwen3next state %" PRIu64, r.totals_recurrent);
	qa_inventory_destroy(inv);
}

int
main(void)
{
	example_llama8b();
	example_qwen3_moe();
	example_gemma3();
	example_deepseek_v2_lite();
	example_nemotron_h();
	example_qwen3_next();
	if (corpus_logs() == 77)
		th_skip("corpus part: $QA_CORPUS/llama-logs absent");
	return th_done("fit-llamacpp");
}
