/* SPDX-License-Identifier: MIT */
/*
 * Quantization-config patterns at scale and under attack (issue 11):
 * src/analysis/claims.c (the indexed matcher), src/analysis/pyregex.c
 * (the complexity bounds) and rules/check_patterns.c (QA6101/QA6102).
 *
 * 1. Differential: random configs (exact names, class names, prefixes,
 *    substrings, Python globs, regexes with classes, groups,
 *    alternations, quantifiers, lookaheads POSIX cannot express, and
 *    over-complex ones) against random checkpoints (dense layers,
 *    experts, MTP, vision, a non-ASCII name, a name past the counting
 *    limit). Every per-pattern match count and every module's claim,
 *    keeping entry, naming entry and declared bits must equal what a
 *    brute-force loop over qa_pattern_match gives.
 * 2. Scale: a 0.6 MB compressed-tensors config (the size the issue timed
 *    at 160 s: eleven thousand ignore entries, exact per-expert names,
 *    per-layer regexes, globs, its JSON text measured byte for byte)
 *    over a 52,000-tensor MoE checkpoint. Asserted by operation count, not
 *    time: the pattern-name pairs evaluated stay near the number of
 *    names (the naive matcher evaluates every pair, hundreds of
 *    millions), and the match counts are right.
 * 3. ReDoS: ((a{0,1000}){0,1000}) and its variants are measured, never
 *    compiled (QA6101), and so are patterns within the size bound that
 *    repeat a part matching the empty string ((.*){0,300} and
 *    (a{0,3}){0,333}: five and seven seconds of glibc regcomp each); a
 *    whole audit of a config holding them finishes; (a|aa)* and
 *    backreferences are handled as the translator decides (linear, or
 *    "cannot say").
 * 4. The work bound: a config built so that every pattern is a candidate
 *    for every name, and one of thousands of distinct large patterns
 *    (each compiled pattern costs its share), stop at QA_PATTERN_WORK_MAX
 *    and say so (QA6102).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/pyregex.h"
#include "core/inventory.h"
#include "rules/check.h"
#include "harness.h"

/* ---- building inventories --------------------------------------------- */

struct builder {
	struct qa_inventory *inv;
	uint32_t cap_modules;
};

static void
b_init(struct builder *b, uint32_t cap_modules)
{
	b->inv = qa_inventory_create("scale");
	if (!b->inv)
		abort();
	b->inv->kind = QA_KIND_HF_DIR;
	b->cap_modules = cap_modules;
	b->inv->modules = qa_arena_array(&b->inv->arena, cap_modules,
					 sizeof(struct qa_module));
	if (!b->inv->modules)
		abort();
	memset(&b->inv->quant, 0, sizeof(b->inv->quant));
	b->inv->quant.file = "scale/config.json";
	b->inv->quant.method = QA_QM_COMPRESSED_TENSORS;
	b->inv->quant.bits = 4;
	b->inv->quant.group_size = 128;
	b->inv->quant.lm_head = -1;
}

/* A module and its tensors (name.suffix for each suffix). */
static void
b_module(struct builder *b, const char *name, enum qa_role role,
	 const char *const *suffixes)
{
	struct qa_inventory *inv = b->inv;
	struct qa_module *m;
	char buf[2048];
	size_t i;

	if (inv->n_modules >= b->cap_modules)
		abort();
	m = &inv->modules[inv->n_modules++];
	memset(m, 0, sizeof(*m));
	m->name = qa_arena_strdup(&inv->arena, name);
	m->role = role;
	m->claimed = -1;
	for (i = 0; suffixes[i]; i++) {
		struct qa_tensor *t = qa_inv_add_tensor(inv);

		if (!t)
			abort();
		snprintf(buf, sizeof(buf), "%s.%s", name, suffixes[i]);
		t->name = qa_arena_strdup(&inv->arena, buf);
		t->dtype = "I32";
		t->ggml_type = -1;
		t->module = -1;
	}
}

struct pats {
	struct qa_quant_pattern *v;
	uint32_t n, cap;
};

static void
pat_add(struct qa_inventory *inv, struct pats *p, enum qa_pattern_kind k,
	const char *text, const char *source)
{
	if (p->n == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 64;
		struct qa_quant_pattern *v = qa_arena_grow(&inv->arena, p->v,
							   p->n, cap,
							   sizeof(*v));

		if (!v)
			abort();
		p->v = v;
		p->cap = cap;
	}
	memset(&p->v[p->n], 0, sizeof(p->v[0]));
	p->v[p->n].kind = k;
	p->v[p->n].text = qa_arena_strdup(&inv->arena, text);
	p->v[p->n].source = source;
	p->n++;
}

/* ---- brute force ------------------------------------------------------- */

struct bname {
	char *s;
	enum qa_role role;
};

static int
cmp_bname(const void *a, const void *b)
{
	return strcmp(((const struct bname *)a)->s,
		      ((const struct bname *)b)->s);
}

/* Every module and every parent of a module or tensor name, distinct,
 * a module keeping its role (claims.c all_names, written plainly). */
static struct bname *
brute_names(const struct qa_inventory *inv, size_t *out)
{
	size_t cap = 16, n = 0, i, k = 0;
	struct bname *v = malloc(cap * sizeof(*v));
	uint32_t j;

#define PUSH(str, len, r) do { \
	if (n == cap) { cap *= 2; v = realloc(v, cap * sizeof(*v)); \
		if (!v) abort(); } \
	v[n].s = strndup((str), (len)); v[n].role = (r); n++; } while (0)
	if (!v)
		abort();
	for (j = 0; j < inv->n_modules; j++) {
		const char *s = inv->modules[j].name, *p;

		PUSH(s, strlen(s), inv->modules[j].role);
		for (p = s; *p; p++)
			if (*p == '.')
				PUSH(s, (size_t)(p - s), QA_ROLE_OTHER);
	}
	for (j = 0; j < inv->n_tensors; j++) {
		const char *s = inv->tensors[j].name, *p;

		for (p = s; *p; p++)
			if (*p == '.')
				PUSH(s, (size_t)(p - s), QA_ROLE_OTHER);
	}
#undef PUSH
	qsort(v, n, sizeof(*v), cmp_bname);
	for (i = 0; i < n; i++) {
		if (k > 0 && strcmp(v[k - 1].s, v[i].s) == 0) {
			if (v[k - 1].role == QA_ROLE_OTHER)
				v[k - 1].role = v[i].role;
			free(v[i].s);
			continue;
		}
		v[k++] = v[i];
	}
	*out = k;
	return v;
}

static int32_t
brute_count(const struct qa_quant_pattern *p, const struct bname *names,
	    size_t n)
{
	int32_t hits = 0;
	bool unsure = false;
	size_t i;

	for (i = 0; i < n; i++) {
		int m;

		if (strlen(names[i].s) >= 1024)
			continue;
		m = qa_pattern_match(p, names[i].s, names[i].role);
		if (m == 1)
			hits++;
		else if (m < 0)
			unsure = true;
	}
	return hits == 0 && unsure ? -1 : hits;
}

/* compressed-tensors, as claims.c claim_ct decides it, plainly. */
static void
brute_claim(const struct qa_quant_config *qc, const struct qa_module *m,
	    int *claimed, const struct qa_quant_pattern **kept,
	    const struct qa_quant_pattern **named, int *decl_bits)
{
	int ex = 0, r;
	bool unsure = false;
	const struct qa_quant_override *o = NULL;
	uint32_t i;

	*kept = NULL;
	*named = NULL;
	*decl_bits = qc->bits;
	for (i = 0; i < qc->n_exclude; i++) {
		r = qa_pattern_match(&qc->exclude[i], m->name, m->role);
		if (r == 1) {
			ex = 1;
			*kept = &qc->exclude[i];
			break;
		}
		if (r < 0)
			ex = -1;
	}
	for (i = 0; i < qc->n_overrides; i++) {
		r = qa_pattern_match(&qc->overrides[i].pattern, m->name,
				     m->role);
		if (r == 1) {
			o = &qc->overrides[i];
			break;
		}
		if (r < 0)
			unsure = true;
	}
	if (qa_role_quant_class(m->role) == QA_QCLASS_NEVER)
		*claimed = 0;
	else if (ex == 1)
		*claimed = 0;
	else if (!o)
		*claimed = unsure ? -1 : 0;
	else if (ex < 0 || unsure)
		*claimed = -1;
	else
		*claimed = 1;
	for (i = 0; i < qc->n_overrides; i++) {
		const struct qa_quant_override *x = &qc->overrides[i];

		if (qa_pattern_match(&x->pattern, m->name, m->role) != 1)
			continue;
		if (!*kept && (x->skip || x->bits >= 16))
			*kept = &x->pattern;
		if (!*named && !x->skip && x->bits < 16)
			*named = &x->pattern;
	}
	for (i = 0; i < qc->n_overrides; i++) {
		const struct qa_quant_override *x = &qc->overrides[i];

		if (x->skip ||
		    qa_pattern_match(&x->pattern, m->name, m->role) != 1)
			continue;
		if (x->bits > 0)
			*decl_bits = x->bits;
		break;
	}
}

/* ---- 1. differential ----------------------------------------------------- */

static uint64_t rng = 88172645463325252ULL;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static const char *const proj[] = { "q_proj", "k_proj", "v_proj", "o_proj" };
static const char *const mlp[] = { "gate_proj", "up_proj", "down_proj" };
static const char *const weight_only[] = { "weight", NULL };
static const char *const packed[] = { "weight_packed", "weight_scale",
				      "weight_shape", NULL };

static const char *const regex_pool[] = {
	".*mlp.gate$", "model\\.layers\\.\\d+\\.mlp\\..*", ".*(gate|up)_proj",
	"model.layers.1\\.", "model.layers.1[0-9]\\..*", "mtp.*", "^mtp.*",
	".*experts\\.(1|2|3)\\..*", ".*\\.experts\\.\\d+\\.down_proj$",
	"(?!.*mlp).*proj", "lm_head", ".*visual.*", "model.layers.2?.mlp",
	"[a-z]+\\.layers\\.3\\.self_attn\\.[qk]_proj", "model\\.embed_tokens",
	"((a{0,1000}){0,1000})", "(a|aa)*b", "(((a+)+)+)+x", "(a)\\1",
	".*_proj", "model.layers.(0|2).self_attn.o_proj", "x{2,3}",
	".*layers\\.4\\.mlp\\.experts\\.1\\d?\\.gate_proj",
};

static const char *const glob_pool[] = {
	"model.layers.*.self_attn", "*mlp.gate*", "*.experts.?.*",
	"*[0-9].q_proj", "lm_head*", "model.layers.[12]*", "model.*.q_proj",
	"*experts.1[!0-9]*", "mtp*", "*", "model.layers.1?.*", "[", "*[]",
	"*\xc3\xa9*", "model.layers.?.mlp.down_proj",
};

static void
random_config(struct qa_inventory *inv, struct pats *ex, struct pats *ov)
{
	uint32_t i, n = 20 + rnd(60);

	for (i = 0; i < n; i++) {
		struct pats *into = rnd(3) ? ex : ov;
		char buf[160];
		uint32_t k = rnd(8);

		switch (k) {
		case 0:
			snprintf(buf, sizeof(buf), "model.layers.%u.mlp.%s",
				 rnd(6), mlp[rnd(3)]);
			pat_add(inv, into, QA_PAT_EXACT, buf, "ignore");
			break;
		case 1:
			pat_add(inv, into, QA_PAT_EXACT,
				rnd(2) ? "Linear" : rnd(2) ? "Embedding" :
				"Conv1d", "targets");
			break;
		case 2:
			snprintf(buf, sizeof(buf), "model.layers.%u", rnd(12));
			pat_add(inv, into, QA_PAT_PREFIX, buf, "prefix");
			break;
		case 3:
			pat_add(inv, into, QA_PAT_SUBSTRING,
				rnd(2) ? "gate" : rnd(2) ? "experts.1" : "mtp",
				"modules_to_not_convert");
			break;
		case 4:
		case 5:
			pat_add(inv, into, QA_PAT_GLOB,
				glob_pool[rnd(sizeof(glob_pool) /
					      sizeof(glob_pool[0]))],
				"exclude_modules");
			break;
		default:
			pat_add(inv, into, QA_PAT_REGEX,
				regex_pool[rnd(sizeof(regex_pool) /
					       sizeof(regex_pool[0]))],
				"ignore");
			break;
		}
	}
}

static void
random_checkpoint(struct builder *b)
{
	uint32_t layers = 2 + rnd(12), experts = rnd(2) ? 4 + rnd(20) : 0;
	uint32_t l, e, i;
	char buf[160];

	b_module(b, "model.embed_tokens", QA_ROLE_EMBED, weight_only);
	b_module(b, "lm_head", QA_ROLE_LM_HEAD, weight_only);
	for (l = 0; l < layers; l++) {
		for (i = 0; i < 4; i++) {
			snprintf(buf, sizeof(buf),
				 "model.layers.%u.self_attn.%s", l, proj[i]);
			b_module(b, buf, QA_ROLE_ATTN_Q, packed);
		}
		snprintf(buf, sizeof(buf), "model.layers.%u.mlp.gate", l);
		b_module(b, buf, QA_ROLE_ROUTER, weight_only);
		for (e = 0; e < experts; e++)
			for (i = 0; i < 3; i++) {
				snprintf(buf, sizeof(buf),
					 "model.layers.%u.mlp.experts.%u.%s",
					 l, e, mlp[i]);
				b_module(b, buf, QA_ROLE_EXPERT_UP, packed);
			}
		if (!experts)
			for (i = 0; i < 3; i++) {
				snprintf(buf, sizeof(buf),
					 "model.layers.%u.mlp.%s", l, mlp[i]);
				b_module(b, buf, QA_ROLE_FFN_UP, packed);
			}
	}
	b_module(b, "mtp.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, packed);
	b_module(b, "model.visual.blocks.0.attn.qkv", QA_ROLE_VISION, packed);
	b_module(b, "model.layers.0.mlp.\xc3\xa9xperts.0.gate_proj",
		 QA_ROLE_EXPERT_GATE, packed);
	{
		char *longname = malloc(1300);

		if (!longname)
			abort();
		memset(longname, 'x', 1299);
		memcpy(longname, "model.layers.1.", 15);
		longname[1299] = '\0';
		b_module(b, longname, QA_ROLE_OTHER, weight_only);
		free(longname);
	}
}

static void
test_differential(void)
{
	int round;

	for (round = 0; round < 30; round++) {
		struct builder b;
		struct pats ex = { NULL, 0, 0 }, ov = { NULL, 0, 0 };
		struct qa_quant_config *qc;
		struct bname *names;
		size_t n_names, i;
		uint32_t k;
		char what[64];

		b_init(&b, 4096);
		random_checkpoint(&b);
		random_config(b.inv, &ex, &ov);
		qc = &b.inv->quant;
		qc->exclude = ex.v;
		qc->n_exclude = ex.n;
		qc->overrides = qa_arena_array(&b.inv->arena, ov.n ? ov.n : 1,
					       sizeof(*qc->overrides));
		if (!qc->overrides)
			abort();
		for (k = 0; k < ov.n; k++) {
			memset(&qc->overrides[k], 0, sizeof(qc->overrides[k]));
			qc->overrides[k].pattern = ov.v[k];
			qc->overrides[k].skip = rnd(4) == 0;
			qc->overrides[k].bits = rnd(3) == 0 ? 16 :
						rnd(2) ? 8 : -1;
			qc->overrides[k].group_size = -1;
		}
		qc->n_overrides = ov.n;
		qa_claims_resolve(b.inv);
		names = brute_names(b.inv, &n_names);
		snprintf(what, sizeof(what), "round %d", round);
		th_case = what;
		for (k = 0; k < qc->n_exclude; k++)
			CHECKF(qc->exclude[k].matches ==
			       brute_count(&qc->exclude[k], names, n_names),
			       "exclude '%s' (kind %d): %d matches",
			       qc->exclude[k].text, (int)qc->exclude[k].kind,
			       qc->exclude[k].matches);
		for (k = 0; k < qc->n_overrides; k++)
			CHECKF(qc->overrides[k].pattern.matches ==
			       brute_count(&qc->overrides[k].pattern, names,
					   n_names),
			       "override '%s' (kind %d): %d matches",
			       qc->overrides[k].pattern.text,
			       (int)qc->overrides[k].pattern.kind,
			       qc->overrides[k].pattern.matches);
		for (k = 0; k < b.inv->n_modules; k++) {
			const struct qa_module *m = &b.inv->modules[k];
			const struct qa_quant_pattern *kept, *named;
			int claimed, bits;

			brute_claim(qc, m, &claimed, &kept, &named, &bits);
			CHECKF(m->claimed == claimed && m->kept_by == kept &&
			       m->named_by == named && m->decl_bits == bits,
			       "module %.60s: claimed %d/%d kept %s/%s "
			       "named %s/%s bits %d/%d", m->name, m->claimed,
			       claimed, m->kept_by ? m->kept_by->text : "-",
			       kept ? kept->text : "-",
			       m->named_by ? m->named_by->text : "-",
			       named ? named->text : "-", m->decl_bits, bits);
		}
		CHECK(!qc->patterns_capped);
		th_case = NULL;
		for (i = 0; i < n_names; i++)
			free(names[i].s);
		free(names);
		qa_inventory_destroy(b.inv);
	}
}

/* ---- 2. scale ------------------------------------------------------------ */

/* Bytes of one entry of a JSON list as json.dumps writes it: the string
 * quoted, '\\' and '"' escaped, and the ", " separator. */
static size_t
json_entry_bytes(const char *prefix, const char *s)
{
	size_t n = strlen(prefix) + 2 + 2;

	for (; *s; s++)
		n += *s == '\\' || *s == '"' ? 2 : 1;
	return n;
}

static void
test_scale(void)
{
	enum { LAYERS = 48, EXPERTS = 128 };
	struct builder b;
	struct pats ex = { NULL, 0, 0 };
	struct qa_quant_config *qc;
	size_t text_bytes = 0, naive;
	uint32_t l, e, i, k;
	char buf[256];

	b_init(&b, LAYERS * (EXPERTS * 3 + 6) + 8);
	b_module(&b, "model.embed_tokens", QA_ROLE_EMBED, weight_only);
	b_module(&b, "lm_head", QA_ROLE_LM_HEAD, weight_only);
	for (l = 0; l < LAYERS; l++) {
		for (i = 0; i < 4; i++) {
			snprintf(buf, sizeof(buf),
				 "model.layers.%u.self_attn.%s", l, proj[i]);
			b_module(&b, buf, QA_ROLE_ATTN_Q, packed);
		}
		snprintf(buf, sizeof(buf), "model.layers.%u.mlp.gate", l);
		b_module(&b, buf, QA_ROLE_ROUTER, weight_only);
		for (e = 0; e < EXPERTS; e++)
			for (i = 0; i < 3; i++) {
				snprintf(buf, sizeof(buf),
					 "model.layers.%u.mlp.experts.%u.%s",
					 l, e, mlp[i]);
				b_module(&b, buf, QA_ROLE_EXPERT_UP, packed);
			}
	}
	CHECK(b.inv->n_tensors > 52000);
	/* ignore: every down_proj of the even experts by name (the way
	 * llm-compressor recipes list them), a regex per layer, a glob
	 * per layer, the router and lm_head */
	for (l = 0; l < LAYERS; l++) {
		for (e = 0; e < EXPERTS; e += 2) {
			snprintf(buf, sizeof(buf),
				 "model.layers.%u.mlp.experts.%u.down_proj", l,
				 e);
			pat_add(b.inv, &ex, QA_PAT_EXACT, buf, "ignore");
		}
		snprintf(buf, sizeof(buf),
			 "model\\.layers\\.%u\\.mlp\\.experts\\.\\d+\\.gate_proj$",
			 l);
		pat_add(b.inv, &ex, QA_PAT_REGEX, buf, "ignore");
		snprintf(buf, sizeof(buf), "model.layers.%u.self_attn.*", l);
		pat_add(b.inv, &ex, QA_PAT_GLOB, buf, "ignore");
		snprintf(buf, sizeof(buf), ".*layers\\.%u\\.mlp\\.gate$", l);
		pat_add(b.inv, &ex, QA_PAT_REGEX, buf, "ignore");
	}
	/* ... and thousands of entries for a bigger sibling model (layers
	 * this checkpoint does not have), as shared recipes carry */
	for (l = LAYERS; l < 128; l++)
		for (e = 0; e < 100; e++) {
			snprintf(buf, sizeof(buf),
				 "re:model\\.layers\\.%u\\.mlp\\.experts\\.%u\\.(gate|up)_proj",
				 l, e);
			pat_add(b.inv, &ex, QA_PAT_REGEX, buf + 3, "ignore");
		}
	pat_add(b.inv, &ex, QA_PAT_EXACT, "lm_head", "ignore");
	pat_add(b.inv, &ex, QA_PAT_EXACT, "Linear", "targets");
	for (k = 0; k < ex.n; k++)
		text_bytes += json_entry_bytes(ex.v[k].kind == QA_PAT_REGEX ?
					       "re:" : "", ex.v[k].text);
	CHECKF(text_bytes > 600000, "config text %zu bytes", text_bytes);
	qc = &b.inv->quant;
	qc->exclude = ex.v;
	qc->n_exclude = ex.n;
	qa_claims_resolve(b.inv);
	/* the naive matcher evaluates every pattern on every name */
	naive = (size_t)ex.n * (b.inv->n_modules + LAYERS * 4);
	printf("scale: %u patterns, %u modules, %u tensors: %llu "
	       "evaluations (naive: about %zu), %llu work units\n", ex.n,
	       b.inv->n_modules, b.inv->n_tensors,
	       (unsigned long long)qc->pattern_evals, naive,
	       (unsigned long long)qc->pattern_work);
	CHECK(!qc->patterns_capped);
	CHECKF(qc->pattern_work < QA_PATTERN_WORK_MAX / 5, "%llu work units",
	       (unsigned long long)qc->pattern_work);
	CHECKF(qc->pattern_evals < 4 * (uint64_t)(b.inv->n_modules + ex.n),
	       "%llu evaluations for %u names",
	       (unsigned long long)qc->pattern_evals, b.inv->n_modules);
	/* correctness: an exact entry, a per-layer regex (128 gate_proj),
	 * a glob (the four attention projections), the
	 * router, the entries for missing layers, lm_head, the class
	 * (every Linear module: projections, routers, experts, lm_head;
	 * compressed-tensors matches an ignore entry against the module's
	 * class names too, utils/match.py is_match) */
	CHECK_EQ(ex.v[0].matches, 1);
	CHECK_EQ(ex.v[EXPERTS / 2].matches, EXPERTS);
	CHECK_EQ(ex.v[EXPERTS / 2 + 1].matches, 4);
	CHECK_EQ(ex.v[EXPERTS / 2 + 2].matches, 1);
	CHECK_EQ(ex.v[ex.n - 3].matches, 0);
	CHECK_EQ(ex.v[ex.n - 2].matches, 1);
	CHECK_EQ(ex.v[ex.n - 1].matches, LAYERS * (4 + 1 + EXPERTS * 3) + 1);
	for (k = 0; k < b.inv->n_modules; k++) {
		const struct qa_module *m = &b.inv->modules[k];

		/* an even expert's down_proj: its exact entry, the first
		 * that matches; an odd one has no entry of its own, so the
		 * "Linear" class entry (last) keeps it */
		if (strcmp(m->name, "model.layers.7.mlp.experts.4.down_proj") == 0)
			CHECK(m->kept_by == &ex.v[7 * (EXPERTS / 2 + 3) + 2]);
		if (strcmp(m->name, "model.layers.7.mlp.experts.5.down_proj") == 0)
			CHECK(m->kept_by == &ex.v[ex.n - 1]);
	}
	qa_inventory_destroy(b.inv);
}

/* ---- 3. ReDoS --------------------------------------------------------------- */

static void
test_redos(void)
{
	static const struct {
		const char *re;
		bool ok;
	} cases[] = {
		{ "((a{0,1000}){0,1000})", false },
		{ "(a{0,1000}){0,1000}", false },
		{ "((a{0,100}){0,100})", false },
		{ "(((a{0,10}){0,10}){0,10}){0,10}", false },
		{ "a{0,5000}", false },
		{ "a{0,99999999999999999999}", false },
		{ "(((a+)+)+)+", false },
		{ "((((x*)*)*)*)*", false },
		/* within the size bound, but repeating a part that matches
		 * the empty string: glibc regcomp takes 5 s and 7 s */
		{ "(.*){0,300}", false },
		{ "(a{0,3}){0,333}", false },
		{ "((.*){0,10}){0,10}", false },
		{ "(|a){0,30}", false },
		{ "(a?){0,40}", false },
		{ "((.{0,5}|)*){1,10}", false },
		{ "(.*){0,20}", false },
		{ "(.*){0,4}", true },
		{ "((a*)*)*", true },
		{ "(a|b){0,500}", true },
		{ "(.*a){0,300}", true },
		{ "(a|aa)*", true },
		{ "(a|aa)*b", true },
		{ "(a)\\1", true },
		{ "(?P<x>a)(?P=x)", true },
		{ "a{0,1000}", true },
		/* 100 positions, but 10 copies of a part that can match
		 * nothing: refused as (a{0,3}){0,333} is */
		{ "(a{0,10}){0,10}", false },
		{ "(a{0,10}){0,4}", true },
		{ "(a{1,10}){0,10}", true },
		{ ".*mlp.gate$", true },
		{ "model\\.layers\\.\\d+\\.mlp\\.experts\\.\\d+\\..*", true },
	};
	char long_alt[4096], why[96];
	struct qa_regex_cost cost;
	size_t i, o = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct qa_quant_pattern p;

		th_case = cases[i].re;
		CHECK_EQ(qa_py_regex_cost(cases[i].re, &cost, why, sizeof(why)),
			 cases[i].ok);
		/* matching never hangs: over-complex is "cannot say";
		 * backreferences are untranslatable, so "cannot say" too */
		memset(&p, 0, sizeof(p));
		p.kind = QA_PAT_REGEX;
		p.text = cases[i].re;
		if (!cases[i].ok)
			CHECK_EQ(qa_pattern_match(&p, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", QA_ROLE_OTHER), -1);
		else
			(void)qa_pattern_match(&p, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", QA_ROLE_OTHER);
	}
	th_case = NULL;
	/* 300 alternatives, 601 characters: within every other bound */
	o += (size_t)snprintf(long_alt + o, sizeof(long_alt) - o, "(");
	for (i = 0; i < 300; i++)
		o += (size_t)snprintf(long_alt + o, sizeof(long_alt) - o,
				      "%s%c", i ? "|" : "", 'a' + (int)(i % 26));
	snprintf(long_alt + o, sizeof(long_alt) - o, ")");
	CHECK_EQ(strlen(long_alt), 601);
	CHECK(!qa_py_regex_cost(long_alt, &cost, why, sizeof(why)));
	CHECK_EQ(cost.alts, 300);
	CHECK(strstr(why, "300 alternatives") != NULL);
	/* 300 longer alternatives pass 1024 characters first */
	o = 0;
	o += (size_t)snprintf(long_alt + o, sizeof(long_alt) - o, "(");
	for (i = 0; i < 300; i++)
		o += (size_t)snprintf(long_alt + o, sizeof(long_alt) - o,
				      "%sx%zu", i ? "|" : "", i);
	snprintf(long_alt + o, sizeof(long_alt) - o, ")");
	CHECK(!qa_py_regex_cost(long_alt, &cost, why, sizeof(why)));
	CHECK(strstr(why, "1391 characters") != NULL);
	/* (.*){0,300}: 300 copies of a part that matches nothing */
	CHECK(!qa_py_regex_cost("(.*){0,300}", &cost, why, sizeof(why)));
	CHECK_EQ(cost.size, 600);
	CHECK_EQ(cost.nullable_copies, 300);
	CHECK(strstr(why, "300 copies of a part that can match nothing") !=
	      NULL);
	memset(long_alt, 'a', 2000);
	long_alt[2000] = '\0';
	CHECK(!qa_py_regex_cost(long_alt, &cost, why, sizeof(why)));

	/* the whole pipeline on the 300-byte config.json */
	th_write_text("redos/config.json",
		      "{\"architectures\": [\"Qwen3ForCausalLM\"], "
		      "\"model_type\": \"qwen3\", \"num_hidden_layers\": 1, "
		      "\"quantization_config\": {\"quant_method\": "
		      "\"compressed-tensors\", \"config_groups\": {\"g\": "
		      "{\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": "
		      "4}}}, \"ignore\": [\"lm_head\", "
		      "\"re:((a{0,1000}){0,1000})\", \"re:(a|aa)*\", "
		      "\"re:(a)\\\\1\", \"re:(((a+)+)+)+x\", "
		      "\"re:(.*){0,300}\"]}}");
	{
		struct qa_inventory *inv = th_inspect(NULL, th_path("redos"));

		if (inv) {
			qa_check_patterns.run(inv, NULL);
			CHECK_EQ(th_count_code(inv, QA6101), 3);
			CHECK(th_finding(inv, QA6101, "1000000 positions") !=
			      NULL);
			CHECK(th_finding(inv, QA6101, "nested 4 deep") != NULL);
			CHECK(th_finding(inv, QA6101, "match nothing") != NULL);
			CHECK(inv->quant.pattern_work < 100000);
			qa_inventory_destroy(inv);
		}
	}
}

/* ---- 4. the work bound ------------------------------------------------------ */

static void
test_work_bound(void)
{
	struct builder b;
	struct pats ex = { NULL, 0, 0 };
	uint32_t i;
	char buf[128];

	/* 20,000 distinct regexes that start with a wildcard and share no
	 * literal: every one is a candidate for every one of 2,000 names */
	b_init(&b, 2100);
	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "model.layers.%u.mlp.up_proj", i);
		b_module(&b, buf, QA_ROLE_FFN_UP, weight_only);
	}
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), ".*%c%c.*[0-9]{2}", 'a' + i % 26,
			 'a' + (i / 26) % 26);
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "%u", i / 676);
		pat_add(b.inv, &ex, QA_PAT_REGEX, buf, "ignore");
	}
	b.inv->quant.exclude = ex.v;
	b.inv->quant.n_exclude = ex.n;
	qa_claims_resolve(b.inv);
	CHECK(b.inv->quant.patterns_capped);
	qa_check_patterns.run(b.inv, NULL);
	CHECK_EQ(th_count_code(b.inv, QA6102), 1);
	/* the bound holds: what was spent past it is at most one
	 * evaluation and the candidates of one name */
	CHECKF(b.inv->quant.pattern_work < QA_PATTERN_WORK_MAX + 1000000,
	       "%llu work units",
	       (unsigned long long)b.inv->quant.pattern_work);
	qa_inventory_destroy(b.inv);

	/* 5,000 distinct patterns within every bound, each of 1,000
	 * positions ([a-z]{0,995} and a number: 20-50 ms of regcomp
	 * each, minutes for all): compiling stops at the bound */
	b_init(&b, 16);
	b_module(&b, "model.layers.0.mlp.up_proj", QA_ROLE_FFN_UP,
		 weight_only);
	ex.v = NULL;
	ex.n = ex.cap = 0;
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "[a-z]{0,995}%04u", i);
		pat_add(b.inv, &ex, QA_PAT_REGEX, buf, "ignore");
	}
	b.inv->quant.exclude = ex.v;
	b.inv->quant.n_exclude = ex.n;
	qa_claims_resolve(b.inv);
	CHECK(b.inv->quant.patterns_capped);
	CHECKF(b.inv->quant.pattern_work <= QA_PATTERN_WORK_MAX,
	       "%llu work units",
	       (unsigned long long)b.inv->quant.pattern_work);
	/* the patterns left uncompiled cannot say what they match */
	CHECK_EQ(ex.v[ex.n - 1].matches, -1);
	CHECK(b.inv->modules[0].kept_by == NULL);
	qa_check_patterns.run(b.inv, NULL);
	CHECK_EQ(th_count_code(b.inv, QA6101), 0);
	CHECK_EQ(th_count_code(b.inv, QA6102), 1);
	qa_inventory_destroy(b.inv);
}

int
main(void)
{
	th_scratch("claims-scale");
	test_differential();
	test_scale();
	test_redos();
	test_work_bound();
	return th_done("claims-scale");
}
