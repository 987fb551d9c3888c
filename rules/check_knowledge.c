/* SPDX-License-Identifier: MIT */
/*
 * Engine and GPU compatibility knowledge (QA5001-QA5099).
 *
 * Runs only when --engine and/or --gpus is given. The facts are data in
 * rules/engines.def (each with its source and "as of" month); this file
 * only works out what they are matched against:
 *
 *   engine    --engine, else llama.cpp for a GGUF input, else none;
 *   arch      the GGUF architecture or config.json model_type, plus its
 *             twin under the other naming (qwen35 <-> qwen3_5);
 *   layers    the layer kinds the formats derived (hparams.layer_kind);
 *   quant     NVFP4 / NVFP4A16 / AWQ recognized from tensor names and
 *             shapes (quant-formats.md: weight_global_scale or
 *             weight_scale_2 mark NVFP4, input scales mark W4A4; AWQ packs
 *             qweight along the output, so scales has more columns than
 *             qweight, where GPTQ has as many);
 *   GPUs      the parsed --gpus spec (compute capability per device).
 *
 * Then architecture support: the name is looked up in the engine's list
 * (llama.cpp LLM_ARCH names, vLLM registry classes, SGLang EntryClass
 * names).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"
#include "core/engines.h"
#include "fit/gpuspec.h"

struct fact {
	unsigned code;
	const char *engine, *arch;
	int layer;
	const char *quant;
	int cc_min, cc_max, min_gpus;
	const char *build;
	enum qa_severity severity;
	const char *message, *source, *as_of;
};

#define QA_ENGINE_ARCH(e, n, how, src, asof)
#define QA_ARCH_NAME(g, m, c)
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof) \
	{ code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof },
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof)
static const struct fact facts[] = {
#include "engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

struct advisory {
	unsigned code;
	const char *engine;
	int cc_min, cc_max, min_gpus;
	const char *build;
	enum qa_severity severity;
	const char *message, *source, *as_of;
};

#define QA_ENGINE_ARCH(e, n, how, src, asof)
#define QA_ARCH_NAME(g, m, c)
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof)
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof) \
	{ code, e, lo, hi, g, b, sev, msg, src, asof },
static const struct advisory advisories[] = {
#include "engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Where the architecture lists come from, for the messages. */
static const char *const llama_src = QA_SRC_LLAMA_ARCHS;
static const char *const vllm_src = QA_SRC_VLLM_ARCHS;
static const char *const sglang_src = QA_SRC_SGLANG_ARCHS;

enum {
	Q_NVFP4 = 1 << 0,
	Q_NVFP4A16 = 1 << 1,
	Q_AWQ = 1 << 2,
	Q_IQ_S = 1 << 3,
};

struct ctx {
	const char *engine;		/* effective engine or NULL */
	const char *build;		/* --engine ENGINE@BUILD, or NULL */
	const char *names[4];		/* arch names to match, NULL-padded */
	unsigned quant;			/* Q_* */
	const struct qa_gpu_set *gpus;	/* never NULL: no_gpus when none */
	bool have_gpus;
};

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const struct qa_tensor *
find_tensor(const struct qa_inventory *inv, const char *prefix, size_t plen,
	    const char *suffix)
{
	size_t k = strlen(suffix);
	uint32_t i;

	for (i = 0; i < inv->n_tensors; i++) {
		const char *nm = inv->tensors[i].name;

		if (nm && strlen(nm) == plen + k &&
		    strncmp(nm, prefix, plen) == 0 &&
		    strcmp(nm + plen, suffix) == 0)
			return &inv->tensors[i];
	}
	return NULL;
}

/* Quantization methods recognized from safetensors tensor names. */
static unsigned
detect_quant(const struct qa_inventory *inv)
{
	bool nvfp4 = false, act_scale = false, awq = false, awq_seen = false;
	bool iq_s = false;
	uint32_t i;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (t->ggml_type >= 0 && t->dtype &&
		    (strcmp(t->dtype, "IQ1_S") == 0 ||
		     strcmp(t->dtype, "IQ2_S") == 0 ||
		     strcmp(t->dtype, "IQ3_S") == 0))
			iq_s = true;
		if (!t->name || t->ggml_type >= 0)
			continue;	/* GGUF tensors have their own types */
		/* compressed-tensors nvfp4-pack-quantized and ModelOpt
		 * NVFP4 (quant-formats.md A4, A5). */
		if (ends_with(t->name, ".weight_global_scale") ||
		    ends_with(t->name, ".weight_scale_2"))
			nvfp4 = true;
		if (ends_with(t->name, ".input_global_scale") ||
		    ends_with(t->name, ".input_scale"))
			act_scale = true;
		if (!awq_seen && ends_with(t->name, ".qweight") &&
		    t->n_dims == 2) {
			size_t plen = strlen(t->name) - strlen("qweight");
			const struct qa_tensor *sc =
				find_tensor(inv, t->name, plen, "scales");

			/* The first quantized module decides (A2, A3). */
			if (sc && sc->n_dims == 2) {
				awq_seen = true;
				awq = sc->shape[1] > t->shape[1];
			}
		}
	}
	return (nvfp4 ? Q_NVFP4 : 0u) | (nvfp4 && !act_scale ? Q_NVFP4A16 : 0u) |
	       (awq ? Q_AWQ : 0u) | (iq_s ? Q_IQ_S : 0u);
}

static bool
quant_matches(const char *q, unsigned have)
{
	if (!q[0])
		return true;
	if (strcmp(q, "nvfp4") == 0)
		return have & Q_NVFP4;
	if (strcmp(q, "nvfp4a16") == 0)
		return have & Q_NVFP4A16;
	if (strcmp(q, "awq") == 0)
		return have & Q_AWQ;
	if (strcmp(q, "iq_s") == 0)
		return have & Q_IQ_S;
	return false;
}

/* Does name match one of the space-separated patterns ('*' suffix)? */
static bool
pattern_matches(const char *list, const char *name)
{
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, " ");

		if (k && p[k - 1] == '*') {
			if (strncmp(name, p, k - 1) == 0)
				return true;
		} else if (k && strlen(name) == k && strncmp(name, p, k) == 0) {
			return true;
		}
		p += k;
		while (*p == ' ')
			p++;
	}
	return false;
}

static bool
arch_matches(const struct ctx *c, const char *list)
{
	size_t i;

	for (i = 0; i < N_OF(c->names) && c->names[i]; i++)
		if (pattern_matches(list, c->names[i]))
			return true;
	return false;
}

static bool
has_layer(const struct qa_inventory *inv, int kind)
{
	int64_t i;

	if (!inv->hp.layer_kind)
		return false;
	for (i = 0; i < inv->hp.n_layer_all; i++)
		if (inv->hp.layer_kind[i] == kind)
			return true;
	return false;
}

/* Devices whose compute capability is in [lo, hi] (×10); *first gets one. */
static size_t
gpus_in_range(const struct ctx *c, int lo, int hi,
	      const struct qa_gpu_device **first)
{
	size_t i, n = 0;

	*first = NULL;
	for (i = 0; i < c->gpus->n; i++) {
		const struct qa_gpu_device *d = &c->gpus->dev[i];
		int cc = d->cc_major * 10 + d->cc_minor;

		if (d->cc_major < 0 || cc < lo || cc > hi)
			continue;
		if (!*first)
			*first = d;
		n++;
	}
	return n;
}

static void
add_name(struct ctx *c, const char *name)
{
	size_t i;

	if (!name || !name[0])
		return;
	for (i = 0; i < N_OF(c->names); i++) {
		if (!c->names[i]) {
			c->names[i] = name;
			return;
		}
		if (strcmp(c->names[i], name) == 0)
			return;
	}
}

/* The arch names of the input, with their twins under the other naming. */
static void
collect_names(struct ctx *c, const struct qa_inventory *inv)
{
	const char *a = inv->hp.arch;
	size_t i;

	add_name(c, a);
	if (!a)
		return;
	for (i = 0; i < qa_n_arch_names; i++) {
		if (strcmp(qa_arch_names[i].gguf, a) == 0)
			add_name(c, qa_arch_names[i].model_type);
		else if (strcmp(qa_arch_names[i].model_type, a) == 0)
			add_name(c, qa_arch_names[i].gguf);
	}
	/* Engines pick their implementation by the config's class
	 * (convert_hf_to_gguf.py's ModelBase.register, vLLM's registry),
	 * not by model_type: Kimi-K2 is model_type kimi_k2 with class
	 * DeepseekV3ForCausalLM. */
	if (inv->kind == QA_KIND_GGUF || !inv->hp.arch_raw)
		return;
	for (i = 0; i < qa_n_arch_names; i++)
		if (strcmp(qa_arch_names[i].hf_class, inv->hp.arch_raw) == 0) {
			add_name(c, qa_arch_names[i].gguf);
			add_name(c, qa_arch_names[i].model_type);
		}
}

static bool
engine_has(const char *engine, const char *name, int *how)
{
	*how = (int)qa_engine_arch(engine, name);
	return *how != QA_ARCH_ABSENT;
}

/* "cuda12.8" -> 12 and 8 (minor -1 when absent); false when build names
 * no CUDA version. */
static bool
cuda_version(const char *build, int *major, int *minor)
{
	const char *p = build ? strstr(build, "cuda") : NULL;
	const char *dot;

	if (!p || p[4] < '0' || p[4] > '9')
		return false;
	*major = atoi(p + 4);
	dot = strchr(p + 4, '.');
	*minor = dot && dot[1] >= '0' && dot[1] <= '9' ? atoi(dot + 1) : -1;
	return true;
}

/* A build that runs no CUDA at all. */
static bool
other_backend(const char *build)
{
	static const char *const names[] = {
		"cpu", "vulkan", "rocm", "hip", "metal", "sycl", NULL,
	};
	size_t i;

	for (i = 0; names[i]; i++)
		if (strcmp(build, names[i]) == 0)
			return true;
	return false;
}

/* Does the declared build (NULL: not declared) fall under cond? An
 * undeclared build, or one that does not say, keeps the advisory. */
static bool
build_applies(const char *cond, const char *build)
{
	if (!cond[0] || !build || !build[0])
		return true;
	if (strncmp(cond, "cuda=", 5) == 0) {
		int maj, min, want_maj = atoi(cond + 5), want_min = -1;
		const char *dot = strchr(cond + 5, '.');

		if (dot)
			want_min = atoi(dot + 1);
		/* another backend entirely: no CUDA, no CUDA problem */
		if (other_backend(build))
			return false;
		if (!cuda_version(build, &maj, &min))
			return true;	/* a release number says nothing */
		return maj == want_maj &&
		       (want_min < 0 || min < 0 || min == want_min);
	}
	if (strncmp(cond, "version=", 8) == 0) {
		const char *v = cond + 8;
		size_t n = strlen(v);

		if (build[0] < '0' || build[0] > '9')
			return true;
		return strncmp(build, v, n) == 0 &&
		       (build[n] == '\0' || build[n] == '.');
	}
	return true;
}

static void
check_facts(struct qa_inventory *inv, const struct ctx *c)
{
	size_t i;

	for (i = 0; i < N_OF(facts); i++) {
		const struct fact *f = &facts[i];
		const struct qa_gpu_device *d = NULL;
		char where[160] = "";
		bool model;

		if (strcmp(f->engine, "*") != 0 &&
		    (!c->engine || strcmp(f->engine, c->engine) != 0))
			continue;
		/* arch and layer are alternatives; absent ones are ignored. */
		if (!f->arch[0] && !f->layer)
			model = true;
		else
			model = (f->arch[0] && arch_matches(c, f->arch)) ||
				(f->layer && has_layer(inv, f->layer));
		if (!model || !quant_matches(f->quant, c->quant) ||
		    !build_applies(f->build, c->build))
			continue;
		if (f->cc_min || f->cc_max) {
			size_t n = gpus_in_range(c, f->cc_min, f->cc_max, &d);

			if (n == 0 || n < (size_t)f->min_gpus)
				continue;
			if (n > 1)
				snprintf(where, sizeof(where), "on %zu devices "
					 "such as %s (compute capability "
					 "%d.%d): ", n, d->name, d->cc_major,
					 d->cc_minor);
			else
				snprintf(where, sizeof(where), "on %s (compute "
					 "capability %d.%d): ", d->name,
					 d->cc_major, d->cc_minor);
		} else if (f->min_gpus && c->gpus->n < (size_t)f->min_gpus) {
			continue;
		}
		qa_inv_finding(inv, f->code, NULL, -1, NULL,
			       "%s%s (%s, as of %s)", where, f->message,
			       f->source, f->as_of);
	}
}

/* The class vLLM and SGLang pick an implementation by: config.json
 * architectures, or the class the GGUF architecture maps to. */
static const char *
vllm_class(const struct qa_inventory *inv, const struct ctx *c)
{
	size_t i, k;

	if (inv->kind != QA_KIND_GGUF && inv->hp.arch_raw &&
	    inv->hp.arch_raw[0])
		return inv->hp.arch_raw;
	for (k = 0; k < N_OF(c->names) && c->names[k]; k++)
		for (i = 0; i < qa_n_arch_names; i++)
			if (strcmp(qa_arch_names[i].gguf, c->names[k]) == 0 ||
			    strcmp(qa_arch_names[i].model_type, c->names[k]) == 0)
				return qa_arch_names[i].hf_class;
	return NULL;
}

static void
check_arch_support(struct qa_inventory *inv, const struct ctx *c)
{
	const char *a = inv->hp.arch;
	int how = QA_ARCH_NATIVE;
	size_t k;

	if (!c->engine || !a || !a[0])
		return;
	if (strcmp(c->engine, "llama.cpp") == 0) {
		for (k = 0; k < N_OF(c->names) && c->names[k]; k++)
			if (engine_has("llama.cpp", c->names[k], &how))
				return;
		qa_inv_finding(inv, QA5050, NULL, -1, NULL,
			       "architecture '%s' is not supported by llama.cpp"
			       "%s (%s, as of %s)", a,
			       inv->kind == QA_KIND_GGUF ? "" :
			       ": no llama.cpp architecture is known for this "
			       "model_type", llama_src, "2026-09");
	} else if (strcmp(c->engine, "vllm") == 0) {
		const char *cls = vllm_class(inv, c);

		if (cls && engine_has("vllm", cls, &how)) {
			if (how == QA_ARCH_TRANSFORMERS)
				qa_inv_finding(inv, QA5008, NULL, -1, NULL,
					       "vLLM runs %s through its "
					       "Transformers modeling backend, "
					       "not a native implementation "
					       "(%s, as of %s)", cls, vllm_src,
					       "2026-09");
			return;
		}
		if (cls)
			qa_inv_finding(inv, QA5051, NULL, -1, NULL,
				       "vLLM has no implementation of %s "
				       "(architecture '%s'); it would fall "
				       "back to its slower Transformers "
				       "backend if Transformers knows the "
				       "model (%s, as of %s)", cls, a,
				       vllm_src, "2026-09");
		else
			qa_inv_finding(inv, QA5051, NULL, -1, NULL,
				       "no vLLM class is known for "
				       "architecture '%s'; vLLM would fall "
				       "back to its slower Transformers "
				       "backend if Transformers knows the "
				       "model (%s, as of %s)", a, vllm_src,
				       "2026-09");
	} else if (strcmp(c->engine, "sglang") == 0) {
		const char *cls = vllm_class(inv, c);

		if (cls && engine_has("sglang", cls, &how))
			return;
		if (cls)
			qa_inv_finding(inv, QA5052, NULL, -1, NULL,
				       "SGLang has no implementation of %s "
				       "(architecture '%s'); it would fall "
				       "back to its Transformers backend "
				       "(TransformersForCausalLM) if "
				       "Transformers knows the model (%s, as "
				       "of %s)", cls, a, sglang_src,
				       "2026-07");
		else
			qa_inv_finding(inv, QA5052, NULL, -1, NULL,
				       "no SGLang class is known for "
				       "architecture '%s'; SGLang would fall "
				       "back to its Transformers backend if "
				       "Transformers knows the model (%s, as "
				       "of %s)", a, sglang_src, "2026-07");
	}
}

/* The GPU set of a run without --gpus. */
static const struct qa_gpu_set no_gpus;

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	struct ctx c;

	if (!opt || (!opt->engine && !opt->gpus && !opt->gpu_set))
		return;
	memset(&c, 0, sizeof(c));
	c.engine = opt->engine;
	c.build = opt->engine_build;
	if (!c.engine && inv->kind == QA_KIND_GGUF)
		c.engine = "llama.cpp";	/* GGUF files are llama.cpp's */
	/* Parsed once, by the CLI or qa_audit_run; a spec that did not
	 * parse (a library caller) means no GPU conditions. */
	c.have_gpus = opt->gpu_set != NULL;
	c.gpus = opt->gpu_set ? opt->gpu_set : &no_gpus;
	collect_names(&c, inv);
	c.quant = detect_quant(inv);
	check_facts(inv, &c);
	check_arch_support(inv, &c);
}

const struct qa_check qa_check_knowledge = { "knowledge", run, false };

/* ---- setup advisories ---------------------------------------------------- */

size_t
qa_knowledge_advisories(const char *engine, const struct qa_check_options *opt,
			struct qa_advisory *out, size_t cap)
{
	struct ctx c;
	size_t i, n = 0;

	if (!engine || !opt || !opt->gpu_set)
		return 0;
	memset(&c, 0, sizeof(c));
	c.gpus = opt->gpu_set;
	for (i = 0; i < N_OF(advisories) && n < cap; i++) {
		const struct advisory *a = &advisories[i];
		const struct qa_gpu_device *d = NULL;
		size_t k;
		char where[160] = "";

		if (strcmp(a->engine, engine) != 0 ||
		    !build_applies(a->build, opt->engine_build))
			continue;
		k = gpus_in_range(&c, a->cc_min, a->cc_max, &d);
		if (k == 0 || k < (size_t)a->min_gpus)
			continue;
		if (k > 1)
			snprintf(where, sizeof(where), "%zu devices such as %s "
				 "(compute capability %d.%d): ", k, d->name,
				 d->cc_major, d->cc_minor);
		else
			snprintf(where, sizeof(where), "%s (compute "
				 "capability %d.%d): ", d->name, d->cc_major,
				 d->cc_minor);
		out[n].rule = qa_rule_find(a->code);
		out[n].severity = a->severity;
		snprintf(out[n].message, sizeof(out[n].message),
			 "%s%s (%s, as of %s)", where, a->message, a->source,
			 a->as_of);
		if (out[n].rule)
			n++;
	}
	return n;
}
