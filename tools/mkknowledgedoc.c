/* SPDX-License-Identifier: MIT */
/*
 * Writes docs/knowledge.md from the knowledge tables (rules/gpus.def and
 * rules/engines.def), so the page never drifts from what quantaudit
 * checks. The test suite compares the committed file with this program's
 * output; to refresh it: build/tools/mkknowledgedoc > docs/knowledge.md
 *
 * It also refuses (exit 1, message on stderr) a fact whose severity
 * differs from its rule's default severity in the registry, and a GPU
 * name or alias that two profiles share.
 */
#include <stdio.h>
#include <string.h>

#include "core/diag.h"
#include "fit/gpuspec.h"
#include "analysis/analysis.h"
#include "core/inventory.h"

enum { QA_ARCH_NATIVE, QA_ARCH_TRANSFORMERS };

struct engine_arch {
	const char *engine, *name;
	int how;
	const char *source, *as_of;
};

struct arch_name {
	const char *gguf, *model_type, *hf_class;
};

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

struct advisory {
	unsigned code;
	const char *engine;
	int cc_min, cc_max, min_gpus;
	const char *build;
	enum qa_severity severity;
	const char *message, *source, *as_of;
};

#define QA_ENGINE_ARCH(e, n, how, src, asof) { e, n, how, src, asof },
#define QA_ARCH_NAME(g, m, c)
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof)
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof)
static const struct engine_arch engine_archs[] = {
#include "rules/engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

#define QA_ENGINE_ARCH(e, n, how, src, asof)
#define QA_ARCH_NAME(g, m, c) { g, m, c },
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof)
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof)
static const struct arch_name arch_names[] = {
#include "rules/engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

#define QA_ENGINE_ARCH(e, n, how, src, asof)
#define QA_ARCH_NAME(g, m, c)
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof) \
	{ code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof },
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof)
static const struct fact facts[] = {
#include "rules/engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

#define QA_ENGINE_ARCH(e, n, how, src, asof)
#define QA_ARCH_NAME(g, m, c)
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof)
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof) \
	{ code, e, lo, hi, g, b, sev, msg, src, asof },
static const struct advisory advisories[] = {
#include "rules/engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *
layer_name(int kind)
{
	switch (kind) {
	case QA_LAYER_LINEAR_ATTENTION: return "linear attention (GDN)";
	case QA_LAYER_MAMBA: return "Mamba";
	case QA_LAYER_SLIDING_ATTENTION: return "sliding-window attention";
	case QA_LAYER_FULL_ATTENTION: return "full attention";
	default: return "?";
	}
}

static void
mib(uint64_t bytes)
{
	if (bytes)
		printf("%llu", (unsigned long long)(bytes >> 20));
	else
		printf("-");
}

static void
gpus(void)
{
	size_t n, i;
	const struct qa_gpu_profile *p = qa_gpu_profiles(&n);

	puts("## GPU profiles\n");
	printf("Used by `--gpus`. VRAM is the total CUDA reports on Linux; "
	       "usable is the\nmeasured idle free memory where known, else "
	       "VRAM minus %llu MiB\n(`QA_GPU_DEFAULT_RESERVE`, measured on "
	       "an RTX 5060 Ti). Sizes in MiB,\nbandwidth in GB/s.\n\n",
	       (unsigned long long)(QA_GPU_DEFAULT_RESERVE >> 20));
	puts("| id | GPU | VRAM | usable | GB/s | cc | FP8 | FP4 | "
	     "aliases |");
	puts("|---|---|---:|---:|---:|---|---|---|---|");
	for (i = 0; i < n; i++) {
		printf("| `%s` | %s | ", p[i].id, p[i].name);
		mib(p[i].vram_bytes);
		printf(" | ");
		mib(p[i].usable_bytes);
		printf(" | %u | %d.%d | %s | %s | %s |\n", p[i].bandwidth_gbs,
		       p[i].cc_major, p[i].cc_minor,
		       p[i].flags & QA_GPU_FP8 ? "yes" : "no",
		       p[i].flags & QA_GPU_FP4 ? "yes" : "no", p[i].aliases);
	}
	puts("\nSources and notes:\n");
	for (i = 0; i < n; i++)
		printf("- `%s` (as of %s): %s. %s.\n", p[i].id, p[i].as_of,
		       p[i].source, p[i].note);
	puts("\nSPEC forms: `2x16G`, `16G,24G`, `24GiB`, `15888M`, "
	     "`rtx-5060-ti:2`,\n`2xrtx-4090`, `rtx-4090+rtx-3090`, `none` "
	     "(host memory only), `unified:128G`\n(Apple-style unified "
	     "memory; usable = size minus "
	     "512 MiB). G, GB and GiB all\nmean 2^30 bytes: GPU memory is "
	     "sold in binary units. Plain sizes have\nunknown bandwidth and "
	     "compute capability. At most 16 devices.\n");
}

static void
facts_doc(void)
{
	size_t i;

	puts("## Engine and GPU facts\n");
	puts("Shown by `check` (and `inspect`) only with `--engine` and/or "
	     "`--gpus`.\nWithout `--engine`, a GGUF input is taken to run "
	     "on llama.cpp. Each\nfinding ends with its source and the month "
	     "it was last checked.\n");
	for (i = 0; i < N_OF(facts); i++) {
		const struct fact *f = &facts[i];
		const struct qa_rule *r = qa_rule_find(f->code);

		printf("### QA%04u `%s` (%s)\n\n", f->code, r ? r->id : "?",
		       qa_severity_name(f->severity));
		printf("- engine: %s\n", strcmp(f->engine, "*") == 0 ?
		       "any" : f->engine);
		if (f->arch[0] || f->layer) {
			printf("- model: ");
			if (f->arch[0])
				printf("architecture %s", f->arch);
			if (f->arch[0] && f->layer)
				printf(", or ");
			if (f->layer)
				printf("has %s layers", layer_name(f->layer));
			printf("\n");
		}
		if (f->quant[0])
			printf("- quantization: %s\n", f->quant);
		if (f->cc_min || f->cc_max)
			printf("- GPU: compute capability %d.%d to %d.%d\n",
			       f->cc_min / 10, f->cc_min % 10, f->cc_max / 10,
			       f->cc_max % 10);
		if (f->min_gpus)
			printf("- devices: at least %d\n", f->min_gpus);
		if (f->build[0])
			printf("- engine build: %s (left out when --engine "
			       "declares another)\n", f->build);
		printf("- says: %s.\n- source: %s (as of %s)\n\n",
		       f->message, f->source, f->as_of);
	}
}

static void
arch_list(const char *engine, int how)
{
	size_t i, col = 0;
	const char *src = NULL, *asof = NULL;

	for (i = 0; i < N_OF(engine_archs); i++) {
		const struct engine_arch *a = &engine_archs[i];
		size_t w;

		if (strcmp(a->engine, engine) != 0 || a->how != how)
			continue;
		src = a->source;
		asof = a->as_of;
		w = strlen(a->name) + 3;
		if (col && col + w > 76) {
			printf(",\n");
			col = 0;
		} else if (col) {
			printf(", ");
		}
		printf("`%s`", a->name);
		col += w;
	}
	if (src)
		printf("\n\nSource: %s (as of %s).\n\n", src, asof);
}

static void
archs(void)
{
	size_t i;

	puts("## Architecture support\n");
	puts("`architecture not supported by <engine>` (QA5050, QA5051, QA5052) is "
	     "reported when\nthe input's architecture is not in these "
	     "lists.\n");
	puts("### llama.cpp (GGUF `general.architecture`)\n");
	arch_list("llama.cpp", QA_ARCH_NATIVE);
	puts("### vLLM (config.json `architectures`)\n");
	arch_list("vllm", QA_ARCH_NATIVE);
	puts("### vLLM through its Transformers backend (QA5008)\n");
	arch_list("vllm", QA_ARCH_TRANSFORMERS);
	puts("### SGLang (config.json `architectures`)\n");
	arch_list("sglang", QA_ARCH_NATIVE);
	puts("### Name correspondence\n");
	puts("| GGUF | config.json model_type | vLLM / SGLang class |");
	puts("|---|---|---|");
	for (i = 0; i < N_OF(arch_names); i++)
		printf("| `%s` | `%s` | `%s` |\n", arch_names[i].gguf,
		       arch_names[i].model_type, arch_names[i].hf_class);
}

/* A GPU name must lead back to its own profile (no two share one). */
static void
ok_name(const struct qa_gpu_profile *p, size_t i, const char *name,
	int *bad)
{
	if (qa_gpu_profile_find(name) != &p[i]) {
		fprintf(stderr, "mkknowledgedoc: GPU name '%s' of %s is "
			"ambiguous\n", name, p[i].id);
		*bad = 1;
	}
}

static void
advisories_doc(void)
{
	size_t i;

	puts("## Setup advisories\n");
	puts("Facts about an engine build on a GPU generation rather than a "
	     "model: a run\nprints each once (\"setup\" in text, "
	     "\"advisories\" in JSON), for `--engine`\n(or llama.cpp when "
	     "an input is GGUF) and `--gpus`. Declaring the build\n"
	     "(`--engine llama.cpp@cuda12.8`, `--engine vllm@0.21.0`) leaves "
	     "out those that\ndo not concern it.\n");
	for (i = 0; i < N_OF(advisories); i++) {
		const struct advisory *a = &advisories[i];
		const struct qa_rule *r = qa_rule_find(a->code);

		printf("### QA%04u `%s` (%s)\n\n", a->code, r ? r->id : "?",
		       qa_severity_name(a->severity));
		printf("- engine: %s\n", a->engine);
		printf("- GPU: compute capability %d.%d to %d.%d\n",
		       a->cc_min / 10, a->cc_min % 10, a->cc_max / 10,
		       a->cc_max % 10);
		if (a->min_gpus)
			printf("- devices: at least %d\n", a->min_gpus);
		if (a->build[0])
			printf("- engine build: %s\n", a->build);
		printf("\n%s.\n\nSource: %s (as of %s).\n\n", a->message,
		       a->source, a->as_of);
	}
}

/* Consistency the tables cannot express themselves. */
static int
validate(void)
{
	size_t n, i;
	const struct qa_gpu_profile *p = qa_gpu_profiles(&n);
	int bad = 0;

	for (i = 0; i < N_OF(facts); i++) {
		const struct qa_rule *r = qa_rule_find(facts[i].code);

		if (!r || r->severity != facts[i].severity) {
			fprintf(stderr, "mkknowledgedoc: QA%04u: %s\n",
				facts[i].code, r ? "severity differs from "
				"the registry" : "not in the registry");
			bad = 1;
		}
	}
	for (i = 0; i < N_OF(advisories); i++) {
		const struct qa_rule *r = qa_rule_find(advisories[i].code);

		if (!r || r->severity != advisories[i].severity) {
			fprintf(stderr, "mkknowledgedoc: QA%04u: %s\n",
				advisories[i].code, r ? "severity differs from "
				"the registry" : "not in the registry");
			bad = 1;
		}
	}
	for (i = 0; i < n; i++) {
		const char *a = p[i].aliases;
		char name[64];

		ok_name(p, i, p[i].id, &bad);
		while (*a) {
			size_t k = strcspn(a, " ");

			snprintf(name, sizeof(name), "%.*s", (int)k, a);
			ok_name(p, i, name, &bad);
			a += k;
			while (*a == ' ')
				a++;
		}
	}
	return bad;
}

int
main(void)
{
	if (validate())
		return 1;
	puts("# quantaudit knowledge\n");
	puts("GPU profiles and engine facts quantaudit uses with `--gpus` "
	     "and `--engine`.\nThis file is generated from `rules/gpus.def` "
	     "and `rules/engines.def` by\n`tools/mkknowledgedoc`; do not "
	     "edit it by hand.\n");
	gpus();
	facts_doc();
	advisories_doc();
	archs();
	return 0;
}
