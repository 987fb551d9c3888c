/* SPDX-License-Identifier: MIT */
/*
 * Every compute-capability range of the knowledge table, edge by edge
 * (rules/engines.def through rules/check_knowledge.c), in the manner of
 * dav1d's checkasm walking each row of a table: for each QA_KNOWLEDGE
 * fact and QA_ADVISORY row with a range [cc_min, cc_max], a model that
 * meets the row's other conditions (engine, architecture or layer kind,
 * quantization recognized from its tensor names) and GPUs at
 * cc_min - 1, cc_min, cc_max and cc_max + 1 (as many as the row's
 * min_gpus). The rule must fire exactly at the two inner points: the
 * range is inclusive at both ends (engines.def's header: "cc_min ..
 * cc_max, x10, inclusive").
 *
 * The rows are read from engines.def here with this test's own X-macro
 * expansion, so a new row is covered without editing the test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/inventory.h"
#include "fit/gpuspec.h"
#include "rules/check.h"
#include "harness.h"

struct row {
	unsigned code;
	const char *engine, *arch;
	int layer;
	const char *quant;
	int lo, hi, min_gpus;
	const char *build;
	bool advisory;
};

#define QA_ENGINE_ARCH(e, n, how, src, asof)
#define QA_ARCH_NAME(g, m, c)
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof) \
	{ code, e, a, l, q, lo, hi, g, b, false },
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof) \
	{ code, e, "", 0, "", lo, hi, g, b, true },
static const struct row rows[] = {
#include "rules/engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

static void
add_tensor(struct qa_inventory *inv, const char *name, uint64_t rows_,
	   uint64_t cols)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);

	if (!CHECK(t != NULL))
		return;
	t->name = qa_arena_strdup(&inv->arena, name);
	t->ggml_type = -1;	/* a safetensors tensor */
	t->dtype = "I32";
	t->n_dims = 2;
	t->shape[0] = rows_;
	t->shape[1] = cols;
	t->elements = rows_ * cols;
}

/* A model meeting every condition of r but the GPUs. */
static struct qa_inventory *
model_for(const struct row *r)
{
	struct qa_inventory *inv = qa_inventory_create("m");
	char arch[64] = "";

	if (!CHECK(inv != NULL))
		return NULL;
	inv->kind = QA_KIND_HF_DIR;
	if (r->arch[0]) {
		/* the list's first name, a trailing '*' as its prefix */
		size_t n = strcspn(r->arch, " ");

		snprintf(arch, sizeof(arch), "%.*s", (int)n, r->arch);
		if (n && arch[n - 1] == '*')
			arch[n - 1] = '\0';
		inv->hp.arch = qa_arena_strdup(&inv->arena, arch);
	}
	if (r->layer) {
		inv->hp.n_layer = inv->hp.n_layer_all = 1;
		inv->hp.layer_kind = qa_arena_alloc(&inv->arena, 1);
		if (inv->hp.layer_kind)
			inv->hp.layer_kind[0] = (uint8_t)r->layer;
	}
	/* the tensor names check_knowledge.c recognizes (quant-formats:
	 * ModelOpt / compressed-tensors NVFP4, AutoAWQ's packed qweight) */
	if (strcmp(r->quant, "nvfp4") == 0 || strcmp(r->quant, "nvfp4a16") == 0) {
		add_tensor(inv, "model.layers.0.mlp.down_proj.weight_scale_2", 1, 1);
		if (strcmp(r->quant, "nvfp4") == 0)
			add_tensor(inv, "model.layers.0.mlp.down_proj.input_scale", 1, 1);
	} else if (strcmp(r->quant, "awq") == 0) {
		add_tensor(inv, "model.layers.0.mlp.down_proj.qweight", 64, 8);
		add_tensor(inv, "model.layers.0.mlp.down_proj.scales", 1, 64);
	} else if (r->quant[0]) {
		FAIL("row QA%u: quantization '%s' has no generator here",
		     r->code, r->quant);
	}
	return inv;
}

/* n devices at compute capability cc (x10). */
static void
gpus_at(struct qa_gpu_set *s, int cc, int n)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n && i < QA_GPU_MAX; i++) {
		snprintf(s->dev[i].name, sizeof(s->dev[i].name), "sm%d", cc);
		s->dev[i].vram_bytes = s->dev[i].usable_bytes =
			(uint64_t)80 << 30;
		s->dev[i].cc_major = cc / 10;
		s->dev[i].cc_minor = cc % 10;
	}
	s->n = (size_t)(n < QA_GPU_MAX ? n : QA_GPU_MAX);
}

/* Whether row r fires with n_gpus devices at cc. */
static bool
fires(const struct row *r, int cc, int n_gpus)
{
	const char *engine = strcmp(r->engine, "*") == 0 ? "vllm" : r->engine;
	struct qa_check_options opt;
	struct qa_gpu_set set;
	bool hit = false;
	uint32_t k;

	memset(&opt, 0, sizeof(opt));
	gpus_at(&set, cc, n_gpus);
	opt.engine = engine;
	opt.gpus = "set";	/* as the CLI: the spec and its parse */
	opt.gpu_set = &set;
	if (r->advisory) {
		struct qa_advisory adv[16];
		size_t n = qa_knowledge_advisories(engine, &opt, adv, 16);

		for (k = 0; k < n; k++)
			hit |= adv[k].rule && adv[k].rule->code == r->code;
		return hit;
	} else {
		struct qa_inventory *inv = model_for(r);

		if (!inv)
			return false;
		qa_check_knowledge.run(inv, &opt);
		for (k = 0; k < inv->n_findings; k++)
			hit |= inv->findings[k].rule &&
			       inv->findings[k].rule->code == r->code;
		qa_inventory_destroy(inv);
		return hit;
	}
}

int
main(void)
{
	size_t i, walked = 0;
	char name[64];
	int n;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		if (!r->lo && !r->hi)
			continue;
		snprintf(name, sizeof(name), "QA%u [%d, %d]", r->code, r->lo,
			 r->hi);
		th_case = name;
		CHECKF(r->lo <= r->hi, "cc_min <= cc_max");
		/* x10 with a one-digit minor: 8.9 + 1 is 9.0 */
		n = r->min_gpus > 1 ? r->min_gpus : 1;
		CHECKF(fires(r, r->lo, n), "fires at cc_min");
		CHECKF(fires(r, r->hi, n), "fires at cc_max");
		CHECKF(!fires(r, r->hi + 1, n), "silent at cc_max + 1");
		if (r->lo > 0)
			CHECKF(!fires(r, r->lo - 1, n), "silent at cc_min - 1");
		if (n > 1)
			CHECKF(!fires(r, r->hi, n - 1), "silent with %d GPU(s)",
			       n - 1);
		walked++;
		th_case = NULL;
	}
	/* the table has ranged rows (5002, 5010, 5011, 5012 as of 2026-12) */
	CHECKF(walked >= 4, "%zu ranged rows walked", walked);
	return th_done("knowledge-cc");
}
