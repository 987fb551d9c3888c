/* SPDX-License-Identifier: MIT */
/*
 * The fit step of the pipeline: picks the engine model, checks the
 * options that depend on the engine, runs the model and keeps its result
 * (with the options it was computed for) in the inventory's arena, where
 * the fit check and the reporters read it.
 */
#include "fit/fit.h"

#include <stdio.h>
#include <string.h>

#include "core/inventory.h"

void
qa_fit_options_init(struct qa_fit_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->flash_attn = -1;
	opt->margin_bytes = QA_FIT_DEFAULT_MARGIN;
}

enum qa_engine
qa_fit_default_engine(const struct qa_inventory *inv)
{
	return inv->kind == QA_KIND_GGUF ? QA_ENGINE_LLAMACPP : QA_ENGINE_VLLM;
}

const char *
qa_fit_engine_name(enum qa_engine e)
{
	return e == QA_ENGINE_VLLM ? "vllm" : "llama.cpp";
}

/* Cache types llama.cpp accepts (common/arg.cpp kv_cache_types). */
static const char *const llama_kv_types[] = {
	"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0",
	"q5_1", NULL,
};
/* vLLM --kv-cache-dtype (vllm/config/cache.py CacheDType), plus the
 * 16-bit spellings a user may carry over from llama.cpp. */
static const char *const vllm_kv_types[] = {
	"auto", "fp8", "fp8_e4m3", "fp8_e5m2", "f16", "bf16", "float16",
	"bfloat16", NULL,
};

static bool
in_set(const char *const *set, const char *s)
{
	for (; *set; set++)
		if (strcmp(*set, s) == 0)
			return true;
	return false;
}

int
qa_fit_validate(const struct qa_fit_options *o, char *err, size_t errlen)
{
	bool vllm = o->engine == QA_ENGINE_VLLM;
	const char *const *set = vllm ? vllm_kv_types : llama_kv_types;
	const char *eng = qa_fit_engine_name(o->engine);

	if (o->kv_k && !in_set(set, o->kv_k)) {
		snprintf(err, errlen, "unknown KV-cache type '%s' for %s (%s)",
			 o->kv_k, eng, vllm ? "auto, fp8, fp8_e4m3, fp8_e5m2, "
			 "f16, bf16" : "f16, bf16, f32, q8_0, q4_0, q4_1, "
			 "iq4_nl, q5_0, q5_1");
		return -1;
	}
	if (o->kv_v && !in_set(set, o->kv_v)) {
		snprintf(err, errlen, "unknown KV-cache type '%s' for %s",
			 o->kv_v, eng);
		return -1;
	}
	if (!vllm)
		return 0;
	if (o->given & (QA_FIT_GIVEN_KV_K | QA_FIT_GIVEN_KV_V)) {
		snprintf(err, errlen, "vllm has one KV-cache dtype: use --kv");
		return -1;
	}
	if (o->given & QA_FIT_GIVEN_TS) {
		snprintf(err, errlen, "--tensor-split is a llama.cpp option "
			 "(vllm splits by tensor parallelism)");
		return -1;
	}
	if (o->given & QA_FIT_GIVEN_UBATCH) {
		snprintf(err, errlen, "--ubatch is a llama.cpp option");
		return -1;
	}
	if (o->given & QA_FIT_GIVEN_FA) {
		snprintf(err, errlen, "--flash-attn is a llama.cpp option");
		return -1;
	}
	return 0;
}

static const char *
dup_or_null(struct qa_arena *a, const char *s, bool *oom)
{
	char *c;

	if (!s)
		return NULL;
	c = qa_arena_strdup(a, s);
	if (!c)
		*oom = true;
	return c;
}

/* Copies a model result into the inventory's arena (strings included:
 * a model may hand back static or scratch strings). */
static struct qa_fit_result *
store_result(struct qa_inventory *inv, const struct qa_fit_result *r,
	     const struct qa_fit_options *opt)
{
	struct qa_fit_result *c = qa_arena_alloc(&inv->arena, sizeof(*c));
	struct qa_arena *a = &inv->arena;
	bool oom = false;
	size_t i;

	if (!c)
		return NULL;
	*c = *r;
	c->kv_type_k = dup_or_null(a, r->kv_type_k, &oom);
	c->kv_type_v = dup_or_null(a, r->kv_type_v, &oom);
	c->verdict = dup_or_null(a, r->verdict, &oom);
	c->formula = dup_or_null(a, r->formula, &oom);
	if (c->n_notes > sizeof(c->notes) / sizeof(c->notes[0]))
		c->n_notes = sizeof(c->notes) / sizeof(c->notes[0]);
	for (i = 0; i < c->n_notes; i++)
		c->notes[i] = dup_or_null(a, r->notes[i], &oom);
	c->options = *opt;
	c->options.kv_k = dup_or_null(a, opt->kv_k, &oom);
	c->options.kv_v = dup_or_null(a, opt->kv_v, &oom);
	if (oom)
		return NULL;
	inv->fit = c;
	return c;
}

int
qa_fit_run(struct qa_inventory *inv, const struct qa_fit_options *opt,
	   char *err, size_t errlen)
{
	struct qa_fit_result r;
	char gb[32];
	int rc;

	/* A fit over part of the weights is not a fit: say what is missing
	 * instead of placing what is there. */
	if (inv->n_tensors == 0) {
		snprintf(err, errlen, "no weights: %s holds only its "
			 "configuration (no .safetensors or .gguf files), so "
			 "there is nothing to place", inv->path);
		return -1;
	}
	if (inv->weights.missing_files > 0) {
		gb[0] = '\0';
		if (inv->weights.declared_bytes)
			snprintf(gb, sizeof(gb), "%.2f GiB",
				 (double)inv->weights.declared_bytes /
				 (double)((uint64_t)1 << 30));
		snprintf(err, errlen, "%u weight file%s of the set %s missing "
			 "(%s%s), so the weights cannot be placed%s%s%s",
			 inv->weights.missing_files,
			 inv->weights.missing_files == 1 ? "" : "s",
			 inv->weights.missing_files == 1 ? "is" : "are",
			 inv->weights.first_missing ?
			 inv->weights.first_missing : "see the findings",
			 inv->weights.missing_files > 1 &&
			 inv->weights.first_missing ? " first" : "",
			 gb[0] ? " (the index declares " : "", gb,
			 gb[0] ? " of weights for the whole set; no estimate "
			 "is given as a fit)" : "");
		return -1;
	}
	memset(&r, 0, sizeof(r));
	if (opt->engine == QA_ENGINE_VLLM)
		rc = qa_fit_vllm(inv, opt, &r, err, errlen);
	else
		rc = qa_fit_llamacpp(inv, opt, &r, err, errlen);
	if (rc != 0)
		return -1;
	if (!store_result(inv, &r, opt)) {
		inv->out_of_memory = true;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int
qa_fit_calibrate(const struct qa_inventory *inv, struct qa_fit_options *opt,
		 const struct qa_llamacpp_log *lg, struct qa_fit_result *r,
		 struct qa_fit_llamacpp_detail *det, char *err, size_t errlen)
{
	/* The log's own settings unless given here. */
	if (opt->ctx == 0 && lg->ctx > 0)
		opt->ctx = lg->ctx;
	if (!(opt->given & (QA_FIT_GIVEN_KV | QA_FIT_GIVEN_KV_K)) && lg->ctk[0])
		opt->kv_k = lg->ctk;
	if (!(opt->given & (QA_FIT_GIVEN_KV | QA_FIT_GIVEN_KV_V)) && lg->ctv[0])
		opt->kv_v = lg->ctv;
	if (!(opt->given & QA_FIT_GIVEN_FA))
		opt->flash_attn = lg->fa;
	if (opt->parallel == 0 && lg->np > 0)
		opt->parallel = lg->np;
	if (!(opt->given & QA_FIT_GIVEN_UBATCH) && lg->ub > 0)
		opt->ubatch = lg->ub;
	if (lg->kvu == 1)
		opt->kv_unified = true;
	if (!(opt->given & QA_FIT_GIVEN_GPUS)) {
		/* No --gpus: the log is a CPU run, one CPU backend device
		 * whose memory is not the question. */
		memset(&opt->gpus, 0, sizeof(opt->gpus));
		opt->gpus.n = 1;
		snprintf(opt->gpus.dev[0].name, sizeof(opt->gpus.dev[0].name),
			 "CPU");
		opt->gpus.dev[0].vram_bytes = (uint64_t)1 << 40;
		opt->gpus.dev[0].usable_bytes = (uint64_t)1 << 40;
		opt->gpus.dev[0].cc_major = opt->gpus.dev[0].cc_minor = -1;
		opt->margin_bytes = 0;
	}
	memset(r, 0, sizeof(*r));
	memset(det, 0, sizeof(*det));
	return qa_fit_llamacpp_ex(inv, opt, r, det, err, errlen);
}
