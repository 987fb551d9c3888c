/* SPDX-License-Identifier: MIT */
/*
 * VRAM fit findings (QA4001-QA4099, rules/registry_fit.def).
 *
 * Runs only when a fit was computed (inv->fit, set by the pipeline's fit
 * step for `quantaudit fit` and `check --gpus`) and turns the result into
 * findings: the verdict (does not fit, tight), a context that had to be
 * reduced below the trained one or below llama.cpp's own floor of 4096
 * (common/common.h fit_params_min_ctx), and configurations the engine
 * refuses before any memory question: a quantized K or V cache whose
 * block size does not divide the head dimension, and a quantized V cache
 * without flash attention (both checks of the llama_context constructor,
 * src/llama-context.cpp; memory-models.md section 1.2). The refusals are
 * decided here from the hyperparameters, independently of the model code,
 * so they fire whatever the memory numbers say.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/dtypes.h"
#include "rules/check.h"
#include "fit/fit.h"

#define MIB ((double)(1u << 20))
/* llama.cpp's --fit floor (common/common.h fit_params_min_ctx). */
#define MIN_CTX 4096

/* The ggml type of a llama.cpp cache type name ("q4_0" -> Q4_0). */
static const struct qa_ggml_type *
kv_type(const char *name)
{
	char up[16];
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; name[i] && i + 1 < sizeof(up); i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[i] = '\0';
	return qa_ggml_type_by_name(up);
}

static bool
quantized(const struct qa_ggml_type *t)
{
	return t && t->block > 1;
}

/* The largest context of the result for the K cache type, or -2 when
 * the result has no figure for that type. */
static int64_t
max_ctx_for(const struct qa_fit_result *f, const char *type)
{
	if (!type || strcmp(type, "f16") == 0 || strcmp(type, "bf16") == 0 ||
	    strcmp(type, "auto") == 0)
		return f->max_context_f16;
	if (strcmp(type, "q8_0") == 0)
		return f->max_context_q8_0;
	if (strcmp(type, "q4_0") == 0)
		return f->max_context_q4_0;
	return -2;
}

/* Index of the device with the least free memory. */
static size_t
worst_device(const struct qa_fit_result *f)
{
	size_t i, w = 0;

	for (i = 1; i < f->n_devices && i < QA_GPU_MAX; i++)
		if (f->devices[i].free_bytes < f->devices[w].free_bytes)
			w = i;
	return w;
}

static void
fmt_ctx(char *dst, size_t n, int64_t v)
{
	if (v < 0)
		snprintf(dst, n, "none");
	else
		snprintf(dst, n, "%" PRId64, v);
}

/* Adds the refusal findings; returns how many. */
static int
refusals(struct qa_inventory *inv, const struct qa_fit_result *f,
	 const struct qa_fit_options *fo)
{
	const struct qa_hparams *hp = &inv->hp;
	const struct qa_ggml_type *tk = kv_type(f->kv_type_k);
	const struct qa_ggml_type *tv = kv_type(f->kv_type_v);
	bool mla = hp->kv_lora_rank > 0;
	int n = 0;

	if (f->engine != QA_ENGINE_LLAMACPP)
		return 0;
	if (quantized(tk) && hp->head_dim_k > 0 &&
	    hp->head_dim_k % (int64_t)tk->block != 0 && ++n)
		qa_inv_finding(inv, QA4003, NULL, -1, NULL,
			       "K cache type %s with block size %" PRIu32
			       " does not divide n_embd_head_k=%" PRId64
			       "; use f16 or a type whose block divides it",
			       f->kv_type_k, tk->block, hp->head_dim_k);
	/* MLA caches only K (V is a view into it since llama.cpp PR
	 * #19067), so the V type is never used. */
	if (mla)
		return n;
	if (quantized(tv) && hp->head_dim_v > 0 &&
	    hp->head_dim_v % (int64_t)tv->block != 0 && ++n)
		qa_inv_finding(inv, QA4003, NULL, -1, NULL,
			       "V cache type %s with block size %" PRIu32
			       " does not divide n_embd_head_v=%" PRId64,
			       f->kv_type_v, tv->block, hp->head_dim_v);
	if (quantized(tv) && fo && fo->flash_attn == 0 && ++n)
		qa_inv_finding(inv, QA4003, NULL, -1, NULL,
			       "quantized V cache (%s) requires flash "
			       "attention, which --flash-attn off disables",
			       f->kv_type_v);
	return n;
}

/*
 * llama.cpp's default CUDA build has FlashAttention kernels only for K
 * and V of the same type among f16, bf16, q8_0 and q4_0
 * (ggml/src/ggml-cuda/fattn.cu; other pairs need
 * -DGGML_CUDA_FA_ALL_QUANTS=ON, iq4_nl has none): other choices run
 * attention on the CPU (ggml-org/llama.cpp#28455, #28524).
 */
static void
fa_kernels(struct qa_inventory *inv, const struct qa_fit_result *f)
{
	static const char *const fast[] = { "F16", "BF16", "Q8_0", "Q4_0" };
	const char *k = f->kv_type_k ? f->kv_type_k : "F16";
	const char *v = f->kv_type_v ? f->kv_type_v : "F16";
	bool k_fast = false;
	size_t i;

	if (f->engine != QA_ENGINE_LLAMACPP || f->options.gpus.n == 0 ||
	    f->options.flash_attn == 0)
		return;
	for (i = 0; i < sizeof(fast) / sizeof(fast[0]); i++)
		if (strcasecmp(k, fast[i]) == 0)
			k_fast = true;
	if (k_fast && strcasecmp(k, v) == 0)
		return;
	qa_inv_finding(inv, QA4006, NULL, -1, NULL,
		       "KV cache %s/%s: llama.cpp's default CUDA build has "
		       "FlashAttention kernels only for matching K/V types "
		       "f16, bf16, q8_0 and q4_0, so attention runs on the CPU "
		       "(prefill several times slower) unless llama.cpp was "
		       "built with -DGGML_CUDA_FA_ALL_QUANTS=ON%s "
		       "(ggml/src/ggml-cuda/fattn.cu; ggml-org/llama.cpp#28455, "
		       "#28524)", k, v, strcasecmp(k, "IQ4_NL") == 0 ||
		       strcasecmp(v, "IQ4_NL") == 0 ? "; iq4_nl has no CUDA "
		       "kernel at all" : "");
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	const struct qa_fit_result *f = inv->fit;
	const struct qa_fit_options *fo = f ? &f->options : NULL;
	const char *verdict;
	char a[24], b[24], c[24];
	int64_t requested, chosen, floor_ctx;
	int refused;

	(void)opt;
	if (!f)
		return;
	verdict = f->verdict ? f->verdict : "does-not-fit";
	refused = refusals(inv, f, fo);
	fa_kernels(inv, f);
	fmt_ctx(a, sizeof(a), f->max_context_f16);
	fmt_ctx(b, sizeof(b), f->max_context_q8_0);
	fmt_ctx(c, sizeof(c), f->max_context_q4_0);

	/* A refusal makes the model's verdict does-not-fit without any
	 * device overflowing: QA4003 says it better. */
	if (strcmp(verdict, "does-not-fit") == 0 && f->placement.partial) {
		/* Not on the GPUs alone; the devices hold --fit's offload. */
		char who[96];
		int32_t sd = f->placement.shortfall_device;
		const char *split = "";

		if (f->n_devices == 1) {
			snprintf(who, sizeof(who), "GPU0 (%s) needs",
				 f->devices[0].name);
		} else if (sd >= 0 && (size_t)sd < f->n_devices &&
			   sd < QA_GPU_MAX) {
			/* together they have room; whole layers do not fit */
			snprintf(who, sizeof(who), "GPU%" PRId32 " (%s) needs",
				 sd, f->devices[sd].name);
			split = " with whole layers split as --fit moves "
				"them, though the GPUs together have room";
		} else {
			snprintf(who, sizeof(who), "the %zu GPUs together "
				 "need", f->n_devices);
		}
		qa_inv_finding(inv, QA4001, NULL, -1, NULL,
			       "%s %.2f MiB more than the usable memory "
			       "(margin included)%s at context %" PRId64
			       " (KV %s/%s); llama.cpp's --fit would run it "
			       "with %s in host RAM (%s %" PRId64 "), decode "
			       "bound by host memory bandwidth; largest "
			       "context on the GPUs alone: f16 %s, q8_0 %s, "
			       "q4_0 %s", who,
			       (double)f->placement.gpu_shortfall_bytes / MIB,
			       split, f->context,
			       f->kv_type_k ? f->kv_type_k : "f16",
			       f->kv_type_v ? f->kv_type_v : "f16",
			       f->placement.n_cpu_moe ?
			       "the experts of the first layers" :
			       "the first layers",
			       f->placement.n_cpu_moe ? "--n-cpu-moe" : "-ngl",
			       f->placement.n_cpu_moe ?
			       f->placement.n_cpu_moe :
			       f->placement.n_gpu_layers, a, b, c);
	} else if (strcmp(verdict, "does-not-fit") == 0 && f->n_devices > 0 &&
	    f->devices[worst_device(f)].free_bytes >= 0) {
		size_t i;

		/* The model refused for a reason of its own: its note. */
		for (i = 0; !refused && i < f->n_notes &&
		     i < sizeof(f->notes) / sizeof(f->notes[0]); i++)
			if (f->notes[i] && strstr(f->notes[i], "refuse") &&
			    ++refused)
				qa_inv_finding(inv, QA4003, NULL, -1, NULL,
					       "%s", f->notes[i]);
		if (!refused)
			qa_inv_finding(inv, QA4003, NULL, -1, NULL,
				       "the %s model rejects these settings "
				       "although the memory fits",
				       f->engine == QA_ENGINE_VLLM ? "vLLM" :
				       f->engine == QA_ENGINE_SGLANG ? "SGLang" :
				       "llama.cpp");
	} else if (strcmp(verdict, "does-not-fit") == 0) {
		if (f->n_devices > 0) {
			const struct qa_fit_device *d =
				&f->devices[worst_device(f)];

			size_t w = worst_device(f);
			double over = d->free_bytes < 0 ?
				      -(double)d->free_bytes / MIB : 0.0;
			double margin = (double)d->overhead_bytes / MIB;
			char mg[128];

			/* Whether the shortfall includes the margin, and
			 * what is left without it: "0.00 MiB more" would
			 * hide that it fits without the margin. */
			if (d->overhead_bytes == 0)
				snprintf(mg, sizeof(mg), "with no margin "
					 "kept free");
			else if (over > margin)
				snprintf(mg, sizeof(mg), "keeping the %.0f MiB "
					 "margin free (%.2f MiB more without "
					 "it)", margin, over - margin);
			else
				snprintf(mg, sizeof(mg), "keeping the %.0f MiB "
					 "margin free (without it %.2f MiB "
					 "would stay free)", margin,
					 margin - over);
			qa_inv_finding(inv, QA4001, NULL, -1, NULL,
				       "GPU%zu (%s) needs %.2f MiB more than its "
				       "%.2f usable MiB at context %" PRId64
				       " (KV %s/%s), %s; largest context that "
				       "fits: f16 %s, q8_0 %s, q4_0 %s",
				       w, d->name, over,
				       (double)d->usable_bytes / MIB,
				       f->context,
				       f->kv_type_k ? f->kv_type_k : "f16",
				       f->kv_type_v ? f->kv_type_v : "f16",
				       mg, a, b, c);
		} else {
			qa_inv_finding(inv, QA4001, NULL, -1, NULL,
				       "no device to place the model on");
		}
	} else if (strcmp(verdict, "tight") == 0 && f->n_devices > 0) {
		const struct qa_fit_device *d = &f->devices[worst_device(f)];

		if (d->overhead_bytes == 0)	/* --margin 0 */
			qa_inv_finding(inv, QA4002, NULL, -1, NULL,
				       "GPU%zu (%s) keeps only %.2f MiB free at "
				       "context %" PRId64 ", with no margin kept "
				       "free", worst_device(f), d->name,
				       (double)d->free_bytes / MIB, f->context);
		else
			qa_inv_finding(inv, QA4002, NULL, -1, NULL,
				       "GPU%zu (%s) keeps only %.2f MiB free at "
				       "context %" PRId64 " beyond the %.0f MiB "
				       "margin", worst_device(f), d->name,
				       (double)d->free_bytes / MIB, f->context,
				       (double)d->overhead_bytes / MIB);
	}

	/* Without --ctx the fit searches the largest context (llama.cpp
	 * --fit, vLLM --max-model-len auto); an explicit one that does not
	 * fit is QA4001's business. */
	requested = fo ? fo->ctx : -1;
	if (requested < 0 && strcmp(verdict, "does-not-fit") != 0 &&
	    inv->hp.n_ctx_train > 0 && f->context >= 0 &&
	    f->context < inv->hp.n_ctx_train)
		qa_inv_finding(inv, QA4004, NULL, -1, NULL,
			       "%" PRId64 " of the trained %" PRId64
			       " tokens fit with KV %s/%s; largest context "
			       "per KV type: f16 %s, q8_0 %s, q4_0 %s",
			       f->context, inv->hp.n_ctx_train,
			       f->kv_type_k ? f->kv_type_k : "f16",
			       f->kv_type_v ? f->kv_type_v : "f16", a, b, c);

	chosen = max_ctx_for(f, f->kv_type_k);
	if (chosen == -2)
		chosen = requested < 0 ? f->context : -2;
	floor_ctx = MIN_CTX;
	if (inv->hp.n_ctx_train > 0 && inv->hp.n_ctx_train < floor_ctx)
		floor_ctx = inv->hp.n_ctx_train;
	if (chosen >= -1 && chosen < floor_ctx &&
	    (chosen >= 0 || strcmp(verdict, "does-not-fit") != 0))
		qa_inv_finding(inv, QA4005, NULL, -1, NULL,
			       "the largest context that fits with a %s K "
			       "cache is %" PRId64 " tokens (llama.cpp's "
			       "--fit floor is %d)",
			       f->kv_type_k ? f->kv_type_k : "f16",
			       chosen < 0 ? 0 : chosen, MIN_CTX);
}

const struct qa_check qa_check_fit = { "fit", run, false };
