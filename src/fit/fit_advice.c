/* SPDX-License-Identifier: MIT */
/*
 * What to change so it fits. A fit that does not fit (or is tight) is
 * run again with one change of the engine's own flags at a time, in a
 * fixed order: what keeps the requested context first (an 8-bit KV
 * cache, one sequence, no CUDA graphs), then the largest context that
 * fits, then a 4-bit KV cache and the two together. Each change that
 * fits is kept with the numbers its own fit gives, so applying it is
 * exactly the fit that was shown (tests/cli/test_fit_advice.py runs the
 * advice back through fit). Host offload is not advice here: the
 * placement line already says what llama.cpp's --fit does
 * (docs/fit.md "Placement").
 */
#include "fit/fit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/inventory.h"

/* One change: the engine's flags for it, what it costs, and the
 * options of quantaudit that make it. */
struct change {
	const char *flags;
	const char *what;
	int64_t ctx;		/* -1: the largest that fits; 0 unchanged */
	const char *kv;		/* NULL unchanged */
	int parallel;		/* 0 unchanged */
	bool eager;
};

static bool
kv_is(const char *t, const char *a, const char *b)
{
	return t && (strcmp(t, a) == 0 || (b && strcmp(t, b) == 0));
}

static int64_t
min_free(const struct qa_fit_result *t)
{
	int64_t m = INT64_MAX;
	size_t i;

	for (i = 0; i < t->n_devices; i++)
		if (t->devices[i].free_bytes < m)
			m = t->devices[i].free_bytes;
	return t->n_devices ? m : 0;
}

/* The changes this engine has flags for, given what was asked. */
static size_t
changes_of(const struct qa_fit_options *opt, const struct qa_fit_result *r,
	   struct change *c)
{
	bool llama = opt->engine == QA_ENGINE_LLAMACPP;
	bool vllm = opt->engine == QA_ENGINE_VLLM;
	bool sglang = opt->engine == QA_ENGINE_SGLANG;
	bool q8 = kv_is(r->kv_type_k, "q8_0", "fp8") ||
		  kv_is(r->kv_type_k, "fp8_e4m3", "fp8_e5m2");
	bool q4 = kv_is(r->kv_type_k, "q4_0", NULL);
	size_t n = 0;

	if (!llama && !vllm && !sglang)
		return 0;
	if (!q8 && !q4) {
		c[n].flags = llama ? "-ctk q8_0 -ctv q8_0" :
			     vllm ? "--kv-cache-dtype fp8" :
			     "--kv-cache-dtype fp8_e4m3";
		c[n].what = llama ? "an 8-bit KV cache (q8_0, with flash "
			    "attention)" : "an FP8 KV cache";
		c[n].kv = llama ? "q8_0" : vllm ? "fp8" : "fp8_e4m3";
		n++;
	}
	if (llama && opt->parallel > 1) {
		c[n].flags = "-np 1";
		c[n].what = "one sequence at a time";
		c[n].parallel = 1;
		n++;
	}
	if ((vllm || sglang) && !opt->enforce_eager) {
		c[n].flags = vllm ? "--enforce-eager" : "--disable-cuda-graph";
		c[n].what = "no CUDA graphs (slower decode)";
		c[n].eager = true;
		n++;
	}
	c[n].flags = llama ? "-c" : vllm ? "--max-model-len" :
		     "--context-length";
	c[n].what = "a shorter context";
	c[n].ctx = -1;
	n++;
	if (llama && !q4) {
		c[n].flags = "-ctk q4_0 -ctv q4_0";
		c[n].what = "a 4-bit KV cache (q4_0, with flash attention)";
		c[n].kv = "q4_0";
		n++;
	}
	if (!q8 && !q4) {
		c[n].flags = llama ? "-ctk q8_0 -ctv q8_0 -c" :
			     vllm ? "--kv-cache-dtype fp8 --max-model-len" :
			     "--kv-cache-dtype fp8_e4m3 --context-length";
		c[n].what = "an 8-bit KV cache and a shorter context";
		c[n].kv = llama ? "q8_0" : vllm ? "fp8" : "fp8_e4m3";
		c[n].ctx = -1;
		n++;
	}
	return n;
}

void
qa_fit_advise(struct qa_inventory *inv, const struct qa_fit_options *opt,
	      struct qa_fit_result *r, qa_fit_engine_fn run)
{
	struct change c[8];
	bool tight;
	size_t n, i;

	if (!r->verdict || strcmp(r->verdict, "fits") == 0)
		return;
	tight = strcmp(r->verdict, "tight") == 0;
	memset(c, 0, sizeof(c));
	n = changes_of(opt, r, c);
	for (i = 0; i < n && r->n_advice < sizeof(r->advice) /
	     sizeof(r->advice[0]); i++) {
		struct qa_fit_options o = *opt;
		struct qa_fit_result t;
		struct qa_fit_advice *a;
		char err[256];

		if (c[i].kv) {
			o.kv_k = o.kv_v = c[i].kv;
			o.given |= QA_FIT_GIVEN_KV;
		}
		if (c[i].parallel)
			o.parallel = c[i].parallel;
		if (c[i].eager) {
			o.enforce_eager = true;
			o.given |= QA_FIT_GIVEN_EAGER;
		}
		if (c[i].ctx) {
			o.ctx = c[i].ctx;
			o.given |= QA_FIT_GIVEN_CTX;
		}
		if (run(inv, &o, &t, err, sizeof(err)) != 0 ||
		    !t.verdict || strcmp(t.verdict, "does-not-fit") == 0 ||
		    (tight && strcmp(t.verdict, "fits") != 0))
			continue;
		/* a shorter context is advice only when it is shorter */
		if (c[i].ctx && (t.context <= 0 || t.context >= r->context))
			continue;
		a = &r->advice[r->n_advice++];
		a->flags = c[i].ctx ?
			qa_arena_printf(&inv->arena, "%s %" PRId64, c[i].flags,
					t.context) : c[i].flags;
		a->what = c[i].what;
		a->verdict = t.verdict;
		a->context = t.context;
		a->kv_type_k = t.kv_type_k;
		a->kv_type_v = t.kv_type_v;
		a->kv_bytes = t.totals_kv;
		a->min_free_bytes = min_free(&t);
		a->opt_ctx = c[i].ctx ? t.context : 0;
		a->opt_kv = c[i].kv;
		a->opt_parallel = c[i].parallel;
		a->opt_eager = c[i].eager;
		if (!a->flags)
			r->n_advice--;
	}
}
