/* SPDX-License-Identifier: MIT */
/*
 * What the quantization config claims, per module: the one pattern
 * matcher (analysis/analysis.h qa_pattern_match, documented in
 * docs/quantization.md "Patterns") and each method's consumer semantics
 * (which modules its loader builds quantized). The config is read by
 * formats/quant_config.c; the tensors, the truth, by quant_modules.c;
 * the checks compare the two from the facts resolved here.
 *
 * Where the config lives and every method's keys and matching rules:
 * quant-formats.md §1.2, §A1-A8 and the summary table §A10, with the
 * upstream source at each rule below.
 */
#define _POSIX_C_SOURCE 200809L
#include "analysis/analysis.h"

#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pyregex.h"

/* Module and parent names longer than this are not matched. */
#define MAX_NAME 1024

/*
 * Compiled regexes of one config, one slot per pattern (exclude entries,
 * then overrides, then targets), compiled on first use. Without a
 * matcher (qa_pattern_match on a lone pattern) a regex is compiled for
 * the call.
 */
struct matcher {
	const struct qa_quant_config *qc;
	regex_t *re;
	signed char *state;	/* 0 not tried, 1 compiled, -1 cannot */
	size_t n;
};

static long
slot_of(const struct matcher *mx, const struct qa_quant_pattern *p)
{
	const struct qa_quant_config *qc = mx ? mx->qc : NULL;
	uint32_t i;

	if (!qc || !mx->state)
		return -1;
	if (qc->n_exclude && p >= qc->exclude && p < qc->exclude + qc->n_exclude)
		return p - qc->exclude;
	for (i = 0; i < qc->n_overrides; i++)
		if (p == &qc->overrides[i].pattern)
			return (long)qc->n_exclude + i;
	if (qc->n_targets && p >= qc->targets && p < qc->targets + qc->n_targets)
		return (long)qc->n_exclude + qc->n_overrides +
		       (p - qc->targets);
	return -1;
}

static bool
compile(const struct qa_quant_pattern *p, regex_t *re)
{
	char src[QA_PYREGEX_MAX];

	return qa_py_regex_to_ere(p->text, src, sizeof(src)) &&
	       regcomp(re, src, REG_EXTENDED | REG_NOSUB) == 0;
}

static int
regex_match(struct matcher *mx, const struct qa_quant_pattern *p,
	    const char *name)
{
	long slot = slot_of(mx, p);
	regex_t re;
	int hit;

	if (slot >= 0 && (size_t)slot < mx->n) {
		if (mx->state[slot] == 0)
			mx->state[slot] = compile(p, &mx->re[slot]) ? 1 : -1;
		if (mx->state[slot] < 0)
			return -1;
		return regexec(&mx->re[slot], name, 0, NULL, 0) == 0;
	}
	if (!compile(p, &re))
		return -1;
	hit = regexec(&re, name, 0, NULL, 0) == 0;
	regfree(&re);
	return hit;
}

/* A class-name target ("Linear", "Embedding"): no dot, upper-case first. */
static bool
is_class_name(const char *s)
{
	return s[0] >= 'A' && s[0] <= 'Z' && !strchr(s, '.');
}

/* compressed-tensors utils/match.py _match_class; vLLM's LinearBase
 * counts as Linear. 1 match, 0 no match, -1 cannot tell. */
static int
class_match(const char *cls, enum qa_role role)
{
	enum qa_quant_class rc = qa_role_quant_class(role);

	if (strcmp(cls, "Linear") == 0 || strcmp(cls, "LinearBase") == 0) {
		if (rc == QA_QCLASS_UNSURE)
			return -1;
		return rc == QA_QCLASS_LINEAR || rc == QA_QCLASS_EXPERT ||
		       rc == QA_QCLASS_ROUTER || rc == QA_QCLASS_LM_HEAD;
	}
	if (strcmp(cls, "Embedding") == 0) {
		if (rc == QA_QCLASS_UNSURE)
			return -1;
		return rc == QA_QCLASS_EMBED;
	}
	return rc == QA_QCLASS_NEVER ? 0 : -1;
}

/* fnmatch the module or one of its parents: "model.layers.*.self_attn"
 * (gpt-oss modules_to_not_convert) names the attention module whose
 * Linears are its children. Python fnmatch's '*' crosses dots. */
static int
glob_match(const char *pat, const char *name)
{
	char buf[MAX_NAME];
	size_t n = strlen(name), i;

	if (fnmatch(pat, name, 0) == 0)
		return 1;
	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, name, n + 1);
	for (i = n; i > 0; i--) {
		if (buf[i - 1] != '.')
			continue;
		buf[i - 1] = '\0';
		if (fnmatch(pat, buf, 0) == 0)
			return 1;
	}
	return 0;
}

static int
match(struct matcher *mx, const struct qa_quant_pattern *p, const char *name,
      enum qa_role role)
{
	if (!p->text || !*p->text)
		return 0;
	switch (p->kind) {
	case QA_PAT_EXACT:
		if (is_class_name(p->text))
			return class_match(p->text, role);
		return strcmp(p->text, name) == 0;
	case QA_PAT_REGEX:
		return regex_match(mx, p, name);
	case QA_PAT_GLOB:
		return glob_match(p->text, name);
	case QA_PAT_SUBSTRING:
		return strstr(name, p->text) != NULL;
	case QA_PAT_PREFIX:
		return strncmp(name, p->text, strlen(p->text)) == 0;
	}
	return -1;
}

int
qa_pattern_match(const struct qa_quant_pattern *p, const char *module,
		 enum qa_role role)
{
	return match(NULL, p, module, role);
}

/* Any exclusion matches: 1; none: 0; none but one could not be
 * evaluated: -1. The matching entry goes to *which when which != NULL. */
static int
excluded_by(struct matcher *mx, const char *name, enum qa_role role,
	    const struct qa_quant_pattern **which)
{
	const struct qa_quant_config *qc = mx->qc;
	int unsure = 0;
	uint32_t i;

	for (i = 0; i < qc->n_exclude; i++) {
		int m = match(mx, &qc->exclude[i], name, role);

		if (m == 1) {
			if (which)
				*which = &qc->exclude[i];
			return 1;
		}
		if (m < 0)
			unsure = 1;
	}
	return unsure ? -1 : 0;
}

static int
excluded(struct matcher *mx, const char *name, enum qa_role role)
{
	return excluded_by(mx, name, role, NULL);
}

/* First override matching, in order. *unsure is set when a pattern
 * before the hit could not be evaluated. */
static const struct qa_quant_override *
first_override(struct matcher *mx, const char *name, enum qa_role role,
	       bool *unsure)
{
	const struct qa_quant_config *qc = mx->qc;
	uint32_t i;

	*unsure = false;
	for (i = 0; i < qc->n_overrides; i++) {
		int m = match(mx, &qc->overrides[i].pattern, name, role);

		if (m == 1)
			return &qc->overrides[i];
		if (m < 0)
			*unsure = true;
	}
	return NULL;
}

/* ---- each method's consumer semantics -------------------------------- */

/* Does name start with a segment "<x>.<digits>." for a block list x? */
static bool
has_block_segment(const char *name)
{
	static const char *const lists[] = { "layers", "h", "blocks",
					     "block", "layer" };
	const char *p = name;
	size_t i;

	while (p) {
		for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
			size_t n = strlen(lists[i]);

			if (strncmp(p, lists[i], n) == 0 && p[n] == '.' &&
			    p[n + 1] >= '0' && p[n + 1] <= '9')
				return true;
		}
		p = strchr(p, '.');
		if (p)
			p++;
	}
	return false;
}

/*
 * Inside the decoder blocks the quantizer walks: block_name_to_quantize
 * when given (AutoRound, optimum GPTQ: prefix match), else the trunk's
 * numbered block list. MTP heads ("mtp.*") and vision / audio towers are
 * outside: GPTQModel, AutoAWQ and optimum only walk the text model's
 * layers (quant-formats.md §B4, §A2, §A3).
 */
static bool
in_blocks(const struct qa_quant_config *qc, const char *name,
	  enum qa_role role)
{
	uint32_t i;

	if (qc->n_blocks) {
		for (i = 0; i < qc->n_blocks; i++) {
			size_t n = strlen(qc->blocks[i]);

			if (strncmp(name, qc->blocks[i], n) == 0 &&
			    (name[n] == '.' || name[n] == '\0'))
				return true;
		}
		return false;
	}
	if (role == QA_ROLE_VISION || role == QA_ROLE_PROJECTOR ||
	    role == QA_ROLE_AUDIO)
		return false;
	if (strncmp(name, "mtp", 3) == 0 || strstr(name, ".mtp.") ||
	    strstr(name, "visual") || strstr(name, "vision") ||
	    strstr(name, "audio"))
		return false;
	return has_block_segment(name);
}

static int
claim_bits(int v, int *bits, int b)
{
	*bits = v == 1 ? b : -1;
	return v;
}

static int
claim_gptq(struct matcher *mx, const char *name, enum qa_role role,
	          int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure, scope = false;
	int b = qc->bits;
	uint32_t i;

	/* Embeddings never (transformers GPTQConfig, vLLM
	 * VocabParallelEmbedding); lm_head only with "lm_head": true. */
	if (rc == QA_QCLASS_EMBED)
		return 0;
	if (rc == QA_QCLASS_LM_HEAD && qc->lm_head != 1)
		return 0;
	/* dynamic: first match in order, re.match (gptq_utils.py
	 * get_dynamic_override). */
	o = first_override(mx, name, role, &unsure);
	if (unsure)
		return -1;
	if (o && o->skip)
		return 0;
	if (o && o->bits >= 0)
		b = o->bits;
	if (rc == QA_QCLASS_LM_HEAD)
		return claim_bits(1, bits, b);
	/* MoE routers: GPTQModel module trees mark them "gate:!" and vLLM
	 * builds them with quant_config=None. */
	if (rc == QA_QCLASS_ROUTER)
		return 0;
	if (qc->n_targets) {
		for (i = 0; i < qc->n_targets && !scope; i++)
			scope = match(mx, &qc->targets[i], name, role) == 1;
	} else {
		scope = in_blocks(qc, name, role);
	}
	if (!scope)
		return 0;
	if (rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, b);
}

static int
claim_awq(struct matcher *mx, const char *name, enum qa_role role,
	         int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	int ex;

	/* Only Linears inside the decoder blocks (AutoAWQ get_model_layers);
	 * modules_to_not_convert by substring (awq/utils/module.py
	 * exclude_layers_to_not_quantize). */
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD || rc == QA_QCLASS_ROUTER)
		return 0;
	ex = excluded(mx, name, role);
	if (ex == 1)
		return 0;
	if (!in_blocks(qc, name, role))
		return 0;
	if (ex < 0 || rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim_autoround(struct matcher *mx, const char *name, enum qa_role role,
	               int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure;

	/* extra_config: exact names are stored before regexes, so the first
	 * match in order is vLLM's exact-then-regex rule. */
	o = first_override(mx, name, role, &unsure);
	if (o && o->pattern.kind == QA_PAT_EXACT)
		unsure = false;
	if (unsure)
		return -1;
	if (o && o->skip)
		return 0;
	if (o)
		return claim_bits(1, bits, o->bits >= 0 ? o->bits : qc->bits);
	/* Otherwise quantized iff under block_name_to_quantize and not the
	 * LM head (vllm quantization/auto_round.py@04aa528e); embeddings are
	 * outside the blocks; routers are kept 16-bit by the AutoRound MTP
	 * heuristic (".mlp.gate.", ".shared_expert_gate.") and built with
	 * quant_config=None by vLLM. */
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD || rc == QA_QCLASS_ROUTER)
		return 0;
	if (!in_blocks(qc, name, role))
		return 0;
	if (rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim_ct(struct matcher *mx, const char *name, enum qa_role role,
	        int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	const struct qa_quant_override *o;
	bool unsure;
	int ex;

	/* Quantized iff some group's targets match and no ignore entry does
	 * (compressed-tensors utils/match.py; quant-formats.md §A4). */
	ex = excluded(mx, name, role);
	if (ex == 1)
		return 0;
	o = first_override(mx, name, role, &unsure);
	if (!o)
		return unsure ? -1 : 0;
	if (ex < 0 || unsure)
		return -1;
	return claim_bits(1, bits, o->bits >= 0 ? o->bits : qc->bits);
}

static int
claim_modelopt(struct matcher *mx, const char *name, enum qa_role role,
	              int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure;
	int ex;

	/* exclude_modules / ignore are fnmatch wildcards; vision modules are
	 * always unquantized (vllm modelopt.py@00155cde is_layer_excluded). */
	ex = excluded(mx, name, role);
	if (ex == 1 || role == QA_ROLE_VISION || role == QA_ROLE_PROJECTOR ||
	    role == QA_ROLE_AUDIO)
		return 0;
	/* MIXED_PRECISION: a layer absent from quantized_layers is
	 * unquantized (ModelOptMixedPrecisionConfig.get_quant_method). */
	if (qc->mixed) {
		o = first_override(mx, name, role, &unsure);
		if (o)
			return claim_bits(1, bits, o->bits);
		return unsure ? -1 : 0;
	}
	/* Embeddings only with the opt-in nvfp4_embed, which the config
	 * does not record per module. Every other Linear, routers and the
	 * LM head included, is quantized unless excluded: ModelOpt writes
	 * every disabled quantizer into exclude_modules (get_quant_config,
	 * _get_unquantized_moe_router_names). */
	if (rc == QA_QCLASS_EMBED)
		return 0;
	if (rc == QA_QCLASS_UNSURE || ex < 0)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim_fp8(struct matcher *mx, const char *name, enum qa_role role,
	         int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	int ex;

	/* Every Linear of the blocks except modules_to_not_convert /
	 * ignored_layers (substring); embeddings, lm_head and the router
	 * stay BF16 (DeepSeek-V3 README_WEIGHTS.md; vLLM fp8.py). */
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD || rc == QA_QCLASS_ROUTER)
		return 0;
	ex = excluded(mx, name, role);
	if (ex == 1 || !in_blocks(qc, name, role))
		return 0;
	if (ex < 0 || rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim_mxfp4(struct matcher *mx, const char *name, enum qa_role role,
	           int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	int ex = excluded(mx, name, role);

	/* gpt-oss: only the experts are Mxfp4GptOssExperts; attention,
	 * router, embeddings, lm_head are in modules_to_not_convert
	 * (transformers convert_gpt_oss_weights_to_hf.py). */
	if (ex == 1)
		return 0;
	if (rc == QA_QCLASS_EXPERT)
		return claim_bits(ex < 0 ? -1 : 1, bits, qc->bits);
	if (rc == QA_QCLASS_UNSURE && strstr(name, ".experts"))
		return -1;
	return 0;
}

static int
claim_bnb(struct matcher *mx, const char *name, enum qa_role role,
	         int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	int ex;

	/* Every nn.Linear is replaced except llm_int8_skip_modules
	 * (substring) and the output embedding, which transformers keeps
	 * (get_keys_to_not_convert); embeddings are not Linears. */
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD)
		return 0;
	ex = excluded(mx, name, role);
	if (ex == 1)
		return 0;
	if (ex < 0 || rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim(struct matcher *mx, const char *module, enum qa_role role, int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	int dummy;

	if (!bits)
		bits = &dummy;
	*bits = -1;
	if (!qc || !module || qc->method == QA_QM_NONE ||
	    qc->method == QA_QM_OTHER)
		return -1;
	if (qa_role_quant_class(role) == QA_QCLASS_NEVER)
		return 0;
	switch (qc->method) {
	case QA_QM_GPTQ:
		return claim_gptq(mx, module, role, bits);
	case QA_QM_AWQ:
		return claim_awq(mx, module, role, bits);
	case QA_QM_AUTOROUND:
		return claim_autoround(mx, module, role, bits);
	case QA_QM_COMPRESSED_TENSORS:
		return claim_ct(mx, module, role, bits);
	case QA_QM_MODELOPT:
		return claim_modelopt(mx, module, role, bits);
	case QA_QM_FP8:
		return claim_fp8(mx, module, role, bits);
	case QA_QM_MXFP4:
		return claim_mxfp4(mx, module, role, bits);
	case QA_QM_BITSANDBYTES:
		return claim_bnb(mx, module, role, bits);
	case QA_QM_NONE:
	case QA_QM_OTHER:
		break;
	}
	return -1;
}

int
qa_quant_claim(const struct qa_quant_config *qc, const char *module,
	       enum qa_role role, int *bits)
{
	struct matcher mx = { .qc = qc };

	return claim(&mx, module, role, bits);
}

/* ---- resolving a whole inventory ------------------------------------- */

static void matcher_init(struct matcher *mx, const struct qa_quant_config *qc);
static void matcher_finish(struct matcher *mx);

struct qa_claims {
	struct matcher mx;
};

struct qa_claims *
qa_claims_open(const struct qa_quant_config *qc)
{
	struct qa_claims *c = malloc(sizeof(*c));

	if (c)
		matcher_init(&c->mx, qc);
	return c;
}

int
qa_claims_module(struct qa_claims *c, const char *module, enum qa_role role,
		 int *bits)
{
	return claim(&c->mx, module, role, bits);
}

void
qa_claims_close(struct qa_claims *c)
{
	if (!c)
		return;
	matcher_finish(&c->mx);
	free(c);
}

static void
matcher_init(struct matcher *mx, const struct qa_quant_config *qc)
{
	memset(mx, 0, sizeof(*mx));
	mx->qc = qc;
	mx->n = (size_t)qc->n_exclude + qc->n_overrides + qc->n_targets;
	if (mx->n == 0)
		return;
	mx->re = calloc(mx->n, sizeof(*mx->re));
	mx->state = calloc(mx->n, sizeof(*mx->state));
	if (!mx->re || !mx->state) {
		/* Without the cache every regex is compiled per call:
		 * slower, same answers. */
		free(mx->re);
		free(mx->state);
		mx->re = NULL;
		mx->state = NULL;
		mx->n = 0;
	}
}

static void
matcher_finish(struct matcher *mx)
{
	size_t i;

	for (i = 0; i < mx->n; i++)
		if (mx->state[i] == 1)
			regfree(&mx->re[i]);
	free(mx->re);
	free(mx->state);
	memset(mx, 0, sizeof(*mx));
}

/* Which entry keeps module m in high precision: an exclude entry, or an
 * override that skips it or gives it 16+ bits (AutoRound extra_config
 * {"bits": 16, "data_type": "fp"}, §A1). */
static const struct qa_quant_pattern *
kept_by(struct matcher *mx, const struct qa_module *m)
{
	const struct qa_quant_config *qc = mx->qc;
	const struct qa_quant_pattern *p = NULL;
	uint32_t i;

	if (excluded_by(mx, m->name, m->role, &p) == 1)
		return p;
	for (i = 0; i < qc->n_overrides; i++) {
		const struct qa_quant_override *o = &qc->overrides[i];

		if ((o->skip || o->bits >= 16) &&
		    match(mx, &o->pattern, m->name, m->role) == 1)
			return &o->pattern;
	}
	return NULL;
}

/* Which override or target names module m as quantized: an override
 * that does not skip it and keeps it below 16 bits (its own bits or the
 * global ones it inherits), else a target. */
static const struct qa_quant_pattern *
named_by(struct matcher *mx, const struct qa_module *m)
{
	const struct qa_quant_config *qc = mx->qc;
	uint32_t i;

	for (i = 0; i < qc->n_overrides; i++) {
		const struct qa_quant_override *o = &qc->overrides[i];

		if (!o->skip && o->bits < 16 &&
		    match(mx, &o->pattern, m->name, m->role) == 1)
			return &o->pattern;
	}
	for (i = 0; i < qc->n_targets; i++)
		if (match(mx, &qc->targets[i], m->name, m->role) == 1)
			return &qc->targets[i];
	return NULL;
}

/* The bits and group size the config declares for m: the global values,
 * replaced by the first matching override that does not skip it (GPTQ
 * dynamic is first-match, §A2). */
static void
declared(struct matcher *mx, struct qa_module *m)
{
	const struct qa_quant_config *qc = mx->qc;
	uint32_t i;

	m->decl_bits = qc->bits;
	m->decl_group = qc->group_size;
	for (i = 0; i < qc->n_overrides; i++) {
		const struct qa_quant_override *o = &qc->overrides[i];

		if (o->skip || match(mx, &o->pattern, m->name, m->role) != 1)
			continue;
		if (o->bits > 0)
			m->decl_bits = o->bits;
		if (o->group_size >= 0)
			m->decl_group = o->group_size;
		break;
	}
}

/* A name a pattern may mean: a module (with its role) or a parent of
 * one (role OTHER: a class name never matches a parent). */
struct name {
	const char *s;
	size_t n;
	enum qa_role role;
};

static int
cmp_name(const void *pa, const void *pb)
{
	const struct name *a = pa, *b = pb;
	size_t n = a->n < b->n ? a->n : b->n;
	int r = memcmp(a->s, b->s, n);

	if (r)
		return r;
	return a->n < b->n ? -1 : a->n > b->n;
}

/*
 * Every module name (the modules and the tensor names minus their last
 * part) and every parent of one, sorted and distinct; a module keeps its
 * role. NULL when out of memory or nothing to list.
 */
static struct name *
all_names(struct qa_inventory *inv, size_t *out_n)
{
	size_t cap = inv->n_modules, n = 0, i, k = 0;
	struct name *v;
	uint32_t j;

	*out_n = 0;
	for (j = 0; j < inv->n_tensors; j++) {
		const char *p;

		for (p = inv->tensors[j].name; *p; p++)
			cap += *p == '.';
	}
	for (j = 0; j < inv->n_modules; j++) {
		const char *p;

		for (p = inv->modules[j].name ? inv->modules[j].name : "";
		     *p; p++)
			cap += *p == '.';
	}
	if (cap == 0)
		return NULL;
	v = malloc(cap * sizeof(*v));
	if (!v) {
		inv->out_of_memory = true;
		return NULL;
	}
	/* modules first, so after sorting a module's own entry (with its
	 * role) comes before the same name seen as a parent */
	for (j = 0; j < inv->n_modules && n < cap; j++) {
		const char *s = inv->modules[j].name, *p;

		if (!s)
			continue;
		v[n++] = (struct name){ s, strlen(s), inv->modules[j].role };
		for (p = s; *p && n < cap; p++)
			if (*p == '.')
				v[n++] = (struct name){ s, (size_t)(p - s),
							QA_ROLE_OTHER };
	}
	for (j = 0; j < inv->n_tensors; j++) {
		const char *s = inv->tensors[j].name, *p;

		for (p = s; *p && n < cap; p++)
			if (*p == '.')
				v[n++] = (struct name){ s, (size_t)(p - s),
							QA_ROLE_OTHER };
	}
	/* stable for equal names: module entries first (qsort is not
	 * stable, so order by role too: OTHER, the parent form, last) */
	qsort(v, n, sizeof(*v), cmp_name);
	for (i = 0; i < n; i++) {
		if (k > 0 && cmp_name(&v[k - 1], &v[i]) == 0) {
			if (v[k - 1].role == QA_ROLE_OTHER)
				v[k - 1].role = v[i].role;
			continue;
		}
		v[k++] = v[i];
	}
	*out_n = k;
	return v;
}

/* How many names the pattern matches; -1 when none does and one could
 * not be evaluated. */
static int32_t
count_matches(struct matcher *mx, const struct qa_quant_pattern *p,
	      const struct name *names, size_t n)
{
	char buf[MAX_NAME];
	int32_t hits = 0;
	bool unsure = false;
	size_t i;

	for (i = 0; i < n; i++) {
		int m;

		if (names[i].n >= sizeof(buf))
			continue;
		memcpy(buf, names[i].s, names[i].n);
		buf[names[i].n] = '\0';
		m = match(mx, p, buf, names[i].role);
		if (m == 1 && hits < INT32_MAX)
			hits++;
		else if (m < 0)
			unsure = true;
	}
	return hits == 0 && unsure ? -1 : hits;
}

static void
count_one(struct matcher *mx, struct qa_quant_pattern *p,
	  const struct name *names, size_t n)
{
	char src[QA_PYREGEX_MAX];

	p->untranslatable = p->kind == QA_PAT_REGEX && p->text &&
			    !qa_py_regex_to_ere(p->text, src, sizeof(src));
	p->matches = p->untranslatable ? -1 : count_matches(mx, p, names, n);
}

static void
count_all(struct matcher *mx, struct qa_quant_config *qc,
	  const struct name *names, size_t n)
{
	uint32_t i;

	for (i = 0; i < qc->n_exclude; i++)
		count_one(mx, &qc->exclude[i], names, n);
	for (i = 0; i < qc->n_overrides; i++)
		count_one(mx, &qc->overrides[i].pattern, names, n);
	for (i = 0; i < qc->n_targets; i++)
		count_one(mx, &qc->targets[i], names, n);
}

void
qa_claims_resolve(struct qa_inventory *inv)
{
	struct qa_quant_config *qc = &inv->quant;
	struct matcher mx;
	struct name *names;
	size_t n_names = 0;
	uint32_t i;

	matcher_init(&mx, qc);
	for (i = 0; i < inv->n_modules; i++) {
		struct qa_module *m = &inv->modules[i];
		int bits = -1;

		m->claimed = (int8_t)claim(&mx, m->name, m->role, &bits);
		m->claimed_bits = m->claimed == 1 ? bits : -1;
		m->kept_by = NULL;
		m->named_by = NULL;
		m->decl_bits = m->decl_group = -1;
		if (qc->method == QA_QM_NONE || qc->method == QA_QM_OTHER)
			continue;
		m->kept_by = kept_by(&mx, m);
		m->named_by = named_by(&mx, m);
		declared(&mx, m);
	}
	/* The sorted name list is only for counting what patterns match. */
	if (qc->n_exclude || qc->n_overrides || qc->n_targets) {
		names = all_names(inv, &n_names);
		count_all(&mx, qc, names, n_names);
		free(names);
	}
	matcher_finish(&mx);
}
