/* SPDX-License-Identifier: MIT */
/*
 * Quantization claim versus truth (QA3001-QA3014): what the quantization
 * config says (inv->quant, formats/quant_config.c, and its per-module
 * verdict qa_quant_claim()) against what the tensors hold (inv->modules,
 * src/analysis/quant_modules.c). Modules the config claims quantized but stored
 * dense and the reverse, fused layers (qkv, gate_up, the experts of a MoE
 * layer) whose parts disagree, MTP heads kept in another precision than
 * the trunk with or without the config saying so, per-module rules that
 * match nothing, packed modules outside block_name_to_quantize, scale and
 * packed shapes that the declared bits and group size do not produce, the
 * method against the packing evidence, a config without quantized tensors
 * and quantized tensors without a config; on the GGUF side the importance
 * matrix metadata and very low-bit types without it; each MLX module's
 * tensors against the mode its config entry gives it (QA3017).
 *
 * Conventions: ../shared/knowledge/quant-formats.md §1.2-1.4, §A1-A10,
 * §B3-B4 (section given at each use). Findings are aggregated per module
 * pattern (layer and expert indices replaced by '*') so a 64-layer model
 * with one systematic mistake gives one line, not 448; each rule is
 * capped at MAX_REPORTS lines with a summary line for the rest.
 */
#define _POSIX_C_SOURCE 200809L
#include <fnmatch.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/check.h"
#include "core/ckd.h"
#include "core/gguf_keys.h"

/* Distinct lines per rule before the rest is summarised. */
#define MAX_REPORTS 16
/* Module names longer than this are not matched against patterns. */
#define MAX_NAME 512
/* First and last code of the family. */
#define CODE_FIRST 3001
#define CODE_LAST 3019

/* One aggregated finding: modules sharing a name pattern. */
struct agg_item {
	char key[MAX_NAME + 128];	/* pattern plus discriminator */
	char pattern[MAX_NAME];	/* e.g. model.layers.*.self_attn.q_proj */
	char example[MAX_NAME];	/* first module of the pattern */
	char detail[512];	/* message tail, from the first module */
	const char *file;	/* file of the first module's tensor */
	const char *tensor;	/* tensor of the first module, or NULL */
	unsigned n;
};

struct agg {
	struct agg_item *v;
	size_t n, cap;
};

/* A span of a tensor or module name: a module or one of its parents. */
struct span {
	const char *s;
	size_t n;
};

struct ctx {
	struct qa_inventory *inv;
	const struct qa_quant_config *qc;
	const char *qfile;		/* config file for config findings */
	unsigned reports[CODE_LAST - CODE_FIRST + 1];
	uint8_t *reported_3007;		/* per module: already in QA3007 */
	uint8_t *reported_3009;		/* per module: packed shape error */
};

/* ---- small helpers -------------------------------------------------- */

static bool
quantized(enum qa_scheme s)
{
	return s != QA_SCHEME_UNKNOWN && s != QA_SCHEME_DENSE &&
	       s != QA_SCHEME_GGML;
}

/* Weight matrices of the model proper: the roles a quantizer targets.
 * Embeddings, norms, routers, convolutions and towers are left out
 * (every quantizer of §A keeps them in high precision by default). */
static bool
linear_role(enum qa_role r)
{
	switch (r) {
	case QA_ROLE_ATTN_Q: case QA_ROLE_ATTN_K: case QA_ROLE_ATTN_V:
	case QA_ROLE_ATTN_O: case QA_ROLE_ATTN_QKV: case QA_ROLE_ATTN_GATE:
	case QA_ROLE_MLA_Q_A: case QA_ROLE_MLA_Q_B: case QA_ROLE_MLA_KV_A:
	case QA_ROLE_MLA_KV_B: case QA_ROLE_MLA_K_B: case QA_ROLE_MLA_V_B:
	case QA_ROLE_FFN_GATE: case QA_ROLE_FFN_UP: case QA_ROLE_FFN_DOWN:
	case QA_ROLE_FFN_GATE_UP: case QA_ROLE_EXPERT_GATE:
	case QA_ROLE_EXPERT_UP: case QA_ROLE_EXPERT_DOWN:
	case QA_ROLE_EXPERT_GATE_UP: case QA_ROLE_SHARED_EXPERT_GATE:
	case QA_ROLE_SHARED_EXPERT_UP: case QA_ROLE_SHARED_EXPERT_DOWN:
	case QA_ROLE_SSM_IN: case QA_ROLE_SSM_OUT: case QA_ROLE_GDN_QKV:
	case QA_ROLE_GDN_GATE: case QA_ROLE_GDN_BA: case QA_ROLE_MTP_EH_PROJ:
		return true;
	default:
		return false;
	}
}

/* Roles a config can meaningfully claim: linears and the LM head. */
static bool
claimable_role(enum qa_role r)
{
	return linear_role(r) || r == QA_ROLE_LM_HEAD ||
	       r == QA_ROLE_MTP_SHARED_HEAD || r == QA_ROLE_DSA_INDEXER;
}

static bool
may_report(struct ctx *c, unsigned code)
{
	return c->reports[code - CODE_FIRST]++ < MAX_REPORTS;
}

static void
report_overflow(struct ctx *c, unsigned code, const char *what)
{
	unsigned n = c->reports[code - CODE_FIRST];

	if (n > MAX_REPORTS)
		qa_inv_finding(c->inv, code, NULL, -1, NULL,
			       "%u more %s not listed", n - MAX_REPORTS, what);
}

/* Copies at most cap-1 bytes of s[0..n) and terminates. */
static void
copy_span(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* "model.layers.12.mlp.experts.7.up_proj" -> "model.layers.*.mlp.experts.
 * *.up_proj": every all-digit name component becomes '*'. */
static void
name_pattern(char *dst, size_t cap, const char *name)
{
	size_t n = 0;
	const char *p = name;

	while (*p && n + 2 < cap) {
		const char *e = p;

		while (*e >= '0' && *e <= '9')
			e++;
		if (e > p && (*e == '.' || *e == '\0') &&
		    (p == name || p[-1] == '.')) {
			dst[n++] = '*';
			p = e;
			continue;
		}
		dst[n++] = *p++;
	}
	dst[n] = '\0';
}

static const char *
tensor_file(const struct qa_inventory *inv, const struct qa_tensor *t)
{
	return t && t->file < inv->n_files ? inv->files[t->file].path : NULL;
}

static const struct qa_tensor *
payload(const struct qa_inventory *inv, const struct qa_module *m)
{
	if (m->n_tensors == 0 || !m->tensors ||
	    m->tensors[0] >= inv->n_tensors)
		return NULL;
	return &inv->tensors[m->tensors[0]];
}

/* The tensor of module m whose name is m->name + "." + suffix (or
 * m->name + suffix for gpt-oss "_blocks"/"_scales", §A6). */
static const struct qa_tensor *
sibling(const struct qa_inventory *inv, const struct qa_module *m,
	const char *suffix)
{
	size_t len = strlen(m->name);
	uint32_t i;

	for (i = 0; i < m->n_tensors; i++) {
		const struct qa_tensor *t;
		const char *rest;

		if (m->tensors[i] >= inv->n_tensors)
			continue;
		t = &inv->tensors[m->tensors[i]];
		if (strncmp(t->name, m->name, len) != 0)
			continue;
		rest = t->name + len;
		if (*rest == '.' || *rest == '_')
			rest++;
		if (strcmp(rest, suffix) == 0)
			return t;
	}
	return NULL;
}

/* Dimension k counted from the last (0 = last); 1 when absent, so a 1-D
 * tensor reads as [1, n]. Safetensors shapes are in PyTorch order. */
static uint64_t
dim(const struct qa_tensor *t, unsigned k)
{
	return t && k < t->n_dims ? t->shape[t->n_dims - 1 - k] : 1;
}

/* ceil(a / b) for b > 0; no overflow possible. */
static uint64_t
cdiv(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* ceil(a * b / d), false on overflow. */
static bool
mul_cdiv(uint64_t *r, uint64_t a, uint64_t b, uint64_t d)
{
	uint64_t p;

	if (qa_ckd_mul(&p, a, b) || d == 0)
		return false;
	*r = cdiv(p, d);
	return true;
}

/* "GPTQ 4-bit", or the precision/dtype of a dense module. */
static void
module_label(const struct qa_inventory *inv, const struct qa_module *m,
	     char *buf, size_t cap)
{
	const struct qa_tensor *t = payload(inv, m);

	if (m->scheme == QA_SCHEME_DENSE || m->scheme == QA_SCHEME_GGML ||
	    m->scheme == QA_SCHEME_UNKNOWN) {
		snprintf(buf, cap, "%s", m->precision ? m->precision :
			 t && t->dtype ? t->dtype : qa_scheme_name(m->scheme));
		return;
	}
	if (m->bits > 0)
		snprintf(buf, cap, "%s %d-bit", qa_scheme_name(m->scheme),
			 m->bits);
	else
		snprintf(buf, cap, "%s", qa_scheme_name(m->scheme));
}

/* ---- aggregation ---------------------------------------------------- */

/* Counts module m under key (pattern + disc); the first module of a key
 * gives the example and the detail text. */
static void
agg_add(struct ctx *c, struct agg *a, const struct qa_module *m,
	const char *disc, const char *detail, const struct qa_tensor *t)
{
	char pat[MAX_NAME], key[MAX_NAME + 128];
	struct agg_item *it;
	size_t i;

	name_pattern(pat, sizeof(pat), m->name);
	snprintf(key, sizeof(key), "%s|%.100s", pat, disc ? disc : "");
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0) {
			a->v[i].n++;
			return;
		}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct agg_item *v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			c->inv->out_of_memory = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	it = &a->v[a->n++];
	memset(it, 0, sizeof(*it));
	snprintf(it->key, sizeof(it->key), "%s", key);
	snprintf(it->pattern, sizeof(it->pattern), "%s", pat);
	snprintf(it->example, sizeof(it->example), "%s", m->name);
	snprintf(it->detail, sizeof(it->detail), "%s", detail);
	if (!t)
		t = payload(c->inv, m);
	it->file = tensor_file(c->inv, t);
	it->tensor = t ? t->name : NULL;
	it->n = 1;
}

/* One finding per item: "48 modules (pattern, e.g. first): detail". */
static void
agg_emit(struct ctx *c, struct agg *a, unsigned code, const char *file,
	 const char *what)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		const struct agg_item *it = &a->v[i];
		const char *f = file ? file : it->file;

		if (!may_report(c, code))
			continue;
		if (it->n == 1)
			qa_inv_finding(c->inv, code, f, -1, it->tensor,
				       "%s: %s", it->example, it->detail);
		else
			qa_inv_finding(c->inv, code, f, -1, it->tensor,
				       "%u modules (%s, e.g. %s): %s", it->n,
				       it->pattern, it->example, it->detail);
	}
	report_overflow(c, code, what);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* ---- pattern matching (§A10: each method's own matching rule) ------- */

/* ---- QA3001 / QA3002 / QA3011: claim versus tensors ------------------ */

static bool
config_declared(const struct qa_quant_config *qc)
{
	return qc->method != QA_QM_NONE && qc->method != QA_QM_OTHER;
}

/* compressed-tensors format "dense" / status "decompressed": dense
 * tensors are what the config means (§A4 CompressionFormat). */
static bool
config_dense_ok(const struct qa_quant_config *qc)
{
	return qc->method == QA_QM_COMPRESSED_TENSORS && qc->format &&
	       strcasecmp(qc->format, "dense") == 0;
}

static void
check_nothing_quantized(struct ctx *c, unsigned *n_quant)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_quant_config *qc = c->qc;
	unsigned nq = 0, nd = 0, nu = 0, claimed_q = 0, claimed_any = 0;
	const struct qa_module *first = NULL;
	uint32_t i;

	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];
		int cl;

		if (quantized(m->scheme))
			nq++;
		/* a scheme the classifier cannot name may be the method's */
		if (m->scheme == QA_SCHEME_UNKNOWN)
			nu++;
		if (m->scheme != QA_SCHEME_DENSE || !claimable_role(m->role))
			continue;
		nd++;
		if (!first)
			first = m;
		cl = m->claimed;
		claimed_q += cl == 1;
		claimed_any += cl >= 0;
	}
	*n_quant = nq;
	if (!config_declared(qc) || config_dense_ok(qc) || nq > 0 || nu > 0 ||
	    nd == 0)
		return;
	/* The config may legitimately quantize nothing but the KV cache:
	 * only when it claims no module at all is silence right. */
	if (claimed_any > 0 && claimed_q == 0)
		return;
	qa_inv_finding(inv, QA3011, c->qfile, -1, NULL,
		       "the config declares quant_method '%s'%s%s%s but all %u "
		       "weight modules are stored dense (e.g. %s): engines "
		       "follow the config and fail to find the packed tensors",
		       qc->method_raw ? qc->method_raw :
		       qa_quant_method_name(qc->method),
		       qc->format ? " (" : "", qc->format ? qc->format : "",
		       qc->format ? ")" : "", nd, first->name);
}

static void
check_claims(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_quant_config *qc = c->qc;
	struct agg dense = { 0 }, packed = { 0 };
	char label[96], detail[512];
	uint32_t i;

	if (!config_declared(qc))
		return;
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];
		int bits = -1, cl;

		if (m->mtp || !claimable_role(m->role))
			continue;
		if (m->scheme != QA_SCHEME_DENSE && !quantized(m->scheme))
			continue;
		cl = m->claimed;
		bits = m->claimed_bits;
		module_label(inv, m, label, sizeof(label));
		if (cl == 1 && m->scheme == QA_SCHEME_DENSE &&
		    !config_dense_ok(qc)) {
			char b[32] = "";

			if (bits > 0)
				snprintf(b, sizeof(b), " (%d-bit)", bits);
			snprintf(detail, sizeof(detail),
				 "stored %s (dense) but the config claims them "
				 "quantized%s: engines build a quantized layer "
				 "and fail to load the plain weight", label, b);
			agg_add(c, &dense, m, label, detail, NULL);
		} else if (cl == 0 && quantized(m->scheme) &&
			   !(c->reported_3007 && c->reported_3007[i])) {
			snprintf(detail, sizeof(detail),
				 "stored %s but the config leaves them "
				 "unquantized: engines build a plain layer "
				 "and fail on the packed tensors", label);
			agg_add(c, &packed, m, label, detail, NULL);
		}
	}
	agg_emit(c, &dense, QA3001, NULL, "dense-but-claimed patterns");
	agg_emit(c, &packed, QA3002, NULL, "packed-but-unclaimed patterns");
}

/* ---- QA3003: fused layers ------------------------------------------ */

enum fuse_kind { F_NONE, F_QKV, F_GATE_UP, F_SHARED_GATE_UP, F_EXPERTS };

static const char *const fuse_name[] = {
	"", "q/k/v (fused qkv_proj)", "gate/up (fused gate_up_proj)",
	"shared-expert gate/up (fused gate_up_proj)",
	"experts (one FusedMoE layer)",
};

static enum fuse_kind
fuse_kind(enum qa_role r)
{
	switch (r) {
	case QA_ROLE_ATTN_Q: case QA_ROLE_ATTN_K: case QA_ROLE_ATTN_V:
		return F_QKV;
	case QA_ROLE_FFN_GATE: case QA_ROLE_FFN_UP:
		return F_GATE_UP;
	case QA_ROLE_SHARED_EXPERT_GATE: case QA_ROLE_SHARED_EXPERT_UP:
		return F_SHARED_GATE_UP;
	case QA_ROLE_EXPERT_GATE: case QA_ROLE_EXPERT_UP:
	case QA_ROLE_EXPERT_DOWN: case QA_ROLE_EXPERT_GATE_UP:
		return F_EXPERTS;
	default:
		return F_NONE;
	}
}

/* Length of the fused layer's prefix: the parent module, or for experts
 * everything before ".experts" (all experts of the layer). */
static size_t
fuse_parent(const char *name, enum fuse_kind k)
{
	const char *dot = strrchr(name, '.');

	if (k == F_EXPERTS) {
		const char *e = strstr(name, ".experts");

		if (e)
			return (size_t)(e - name);
	}
	return dot ? (size_t)(dot - name) : strlen(name);
}

struct fmember {
	uint32_t module;
	const char *name;
	enum fuse_kind kind;
	size_t plen;
};

static int
cmp_fmember(const void *pa, const void *pb)
{
	const struct fmember *a = pa, *b = pb;
	const char *na = a->name, *nb = b->name;
	size_t n = a->plen < b->plen ? a->plen : b->plen;
	int r;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	r = memcmp(na, nb, n);
	if (r)
		return r;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	return strcmp(na, nb);
}

/* "q_proj GPTQ 4-bit, k_proj BF16" or for experts per-label counts. */
static void
describe_group(const struct qa_inventory *inv, const struct fmember *g,
	       size_t n, char *buf, size_t cap)
{
	char labels[8][96];
	unsigned counts[8];
	size_t nl = 0, i, j, len = 0;

	buf[0] = '\0';
	if (g[0].kind != F_EXPERTS) {
		for (i = 0; i < n && len + 2 < cap; i++) {
			const struct qa_module *m = &inv->modules[g[i].module];
			const char *leaf = strrchr(m->name, '.');
			char l[96];

			module_label(inv, m, l, sizeof(l));
			len += (size_t)snprintf(buf + len, cap - len, "%s%s %s",
						i ? ", " : "",
						leaf ? leaf + 1 : m->name, l);
		}
		return;
	}
	for (i = 0; i < n; i++) {
		char l[96];

		module_label(inv, &inv->modules[g[i].module], l, sizeof(l));
		for (j = 0; j < nl && strcmp(labels[j], l) != 0; j++)
			;
		if (j == nl && nl < 8) {
			snprintf(labels[nl], sizeof(labels[nl]), "%s", l);
			counts[nl++] = 0;
		}
		if (j < nl)
			counts[j]++;
	}
	for (j = 0; j < nl && len + 2 < cap; j++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%u %s",
					j ? ", " : "", counts[j], labels[j]);
}

static void
check_fused(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	struct fmember *f;
	struct agg a = { 0 };
	size_t n = 0, i, j;
	uint32_t k;

	if (inv->n_modules == 0)
		return;
	f = malloc(inv->n_modules * sizeof(*f));
	if (!f) {
		inv->out_of_memory = true;
		return;
	}
	for (k = 0; k < inv->n_modules; k++) {
		const struct qa_module *m = &inv->modules[k];
		enum fuse_kind fk = fuse_kind(m->role);

		/* GGUF tensors are never fused by llama.cpp's loader */
		if (fk == F_NONE || m->scheme == QA_SCHEME_GGML || !m->name)
			continue;
		f[n].module = k;
		f[n].name = m->name;
		f[n].kind = fk;
		f[n].plen = fuse_parent(m->name, fk);
		n++;
	}
	qsort(f, n, sizeof(*f), cmp_fmember);
	for (i = 0; i < n; i = j) {
		const struct qa_module *m0 = &inv->modules[f[i].module];
		bool mixed = false;
		char desc[400], detail[512], disc[64];

		for (j = i + 1; j < n && f[j].kind == f[i].kind &&
		     f[j].plen == f[i].plen &&
		     memcmp(f[j].name, m0->name,
			    f[i].plen) == 0; j++) {
			const struct qa_module *m = &inv->modules[f[j].module];

			if (m->scheme != m0->scheme || m->bits != m0->bits)
				mixed = true;
		}
		if (!mixed)
			continue;
		describe_group(inv, &f[i], j - i, desc, sizeof(desc));
		snprintf(detail, sizeof(detail),
			 "%s of one layer are stored %s: vLLM builds the fused "
			 "layer with one quantization method and cannot load "
			 "mixed parts", fuse_name[f[i].kind], desc);
		snprintf(disc, sizeof(disc), "%d", (int)f[i].kind);
		{
			/* aggregate on the layer prefix, not the member */
			struct qa_module parent = *m0;
			char pname[MAX_NAME];

			copy_span(pname, sizeof(pname), m0->name, f[i].plen);
			parent.name = pname;
			agg_add(c, &a, &parent, disc, detail, NULL);
		}
	}
	free(f);
	agg_emit(c, &a, QA3003, NULL, "mixed fused layers");
}

/* ---- QA3004 / QA3005: MTP precision ------------------------------------ */

static void
check_mtp(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_module *tq = NULL, *td = NULL, *und = NULL, *doc = NULL;
	const struct qa_quant_pattern *why = NULL;
	unsigned n_und = 0, n_doc = 0;
	bool trunk_quant;
	char tl[96], ml[96];
	uint32_t i;

	/* the trunk: quantized as soon as one of its linears is */
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];

		if (m->mtp || !linear_role(m->role))
			continue;
		if (quantized(m->scheme) && !tq)
			tq = m;
		else if (m->scheme == QA_SCHEME_DENSE && !td)
			td = m;
	}
	if (!tq && !td)
		return;
	trunk_quant = tq != NULL;
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];
		const struct qa_quant_pattern *p;
		int cl;

		if (!m->mtp || !linear_role(m->role))
			continue;
		if (trunk_quant ? m->scheme != QA_SCHEME_DENSE :
		    !quantized(m->scheme))
			continue;
		/* §B4: quantizers document the MTP exception in the
		 * exclude list or a dynamic/extra_config entry, or leave it
		 * outside what the config targets (the claim says so). */
		p = trunk_quant ? m->kept_by : m->named_by;
		cl = m->claimed;
		if (p || cl == (trunk_quant ? 0 : 1)) {
			if (!doc) {
				doc = m;
				why = p;
			}
			n_doc++;
		} else {
			if (!und)
				und = m;
			n_und++;
		}
	}
	module_label(inv, trunk_quant ? tq : td, tl, sizeof(tl));
	if (und) {
		const struct qa_tensor *t = payload(inv, und);

		module_label(inv, und, ml, sizeof(ml));
		qa_inv_finding(inv, QA3004, c->qfile ? c->qfile :
			       tensor_file(inv, t), -1, t ? t->name : NULL,
			       "%u MTP module%s (e.g. %s) %s stored %s while "
			       "the trunk is %s, and no exclude/ignore/dynamic/"
			       "extra_config entry of the quantization config "
			       "covers %s: vLLM builds the MTP draft with the "
			       "trunk's quantization and fails to load it",
			       n_und, n_und == 1 ? "" : "s", und->name,
			       n_und == 1 ? "is" : "are", ml, tl,
			       n_und == 1 ? "it" : "them");
	}
	if (doc) {
		module_label(inv, doc, ml, sizeof(ml));
		qa_inv_finding(inv, QA3005, c->qfile, -1, NULL,
			       "%u MTP module%s (e.g. %s) kept %s beside a %s "
			       "trunk, as the config says (%s%s%s%s)",
			       n_doc, n_doc == 1 ? "" : "s", doc->name, ml, tl,
			       why && why->source ? why->source :
			       why ? "pattern" : "outside its targets",
			       why ? " '" : "", why && why->text ? why->text : "",
			       why ? "'" : "");
	}
}

/* ---- QA3006: per-module rules that match nothing ---------------------- */

/* Sources QA2109 (rules/check_consistency.c) already checks. */
static bool
qa2109_source(const char *src)
{
	static const char *const s[] = {
		"ignore", "exclude_modules", "modules_to_not_convert",
		"llm_int8_skip_modules", "quantization.exclude_modules",
	};
	size_t i;

	for (i = 0; src && i < sizeof(s) / sizeof(s[0]); i++)
		if (strcmp(src, s[i]) == 0)
			return true;
	return false;
}

/* compressed-tensors targets may be class names ("Linear"), §A4. */
static bool
class_name(const struct qa_quant_pattern *p)
{
	return p->kind == QA_PAT_EXACT && p->text && !strchr(p->text, '.') &&
	       p->text[0] >= 'A' && p->text[0] <= 'Z';
}

static void
unmatched_one(struct ctx *c, const struct qa_quant_pattern *p,
	      const char *what)
{
	/* p->matches: counted by the analysis with the one matcher
	 * (src/analysis/claims.c); -1 cannot tell */
	if (!p->text || !*p->text || qa2109_source(p->source) ||
	    class_name(p) || p->matches != 0)
		return;
	if (!may_report(c, QA3006))
		return;
	qa_inv_finding(c->inv, QA3006, c->qfile, -1, NULL,
		       "%s entry '%.200s' (%s) matches no module of the "
		       "checkpoint: the rule is dead and the module it meant "
		       "keeps the default treatment",
		       p->source ? p->source : what, p->text, what);
}

static void
check_unmatched(struct ctx *c)
{
	const struct qa_quant_config *qc = c->qc;
	uint32_t i;

	if (!config_declared(qc) || c->inv->n_tensors == 0)
		return;
	for (i = 0; i < qc->n_overrides; i++) {
		const struct qa_quant_override *o = &qc->overrides[i];

		unmatched_one(c, &o->pattern, o->skip ? "skip rule" :
			      "override");
	}
	for (i = 0; i < qc->n_targets; i++)
		unmatched_one(c, &qc->targets[i], "target");
	report_overflow(c, QA3006, "unmatched per-module rules");
}

/* ---- QA3007: block_name_to_quantize ------------------------------------ */

static bool
under_block(const struct qa_quant_config *qc, const char *name)
{
	uint32_t i;

	for (i = 0; i < qc->n_blocks; i++) {
		const char *b = qc->blocks[i];
		size_t n = b ? strlen(b) : 0;

		if (n && strncmp(name, b, n) == 0 &&
		    (name[n] == '.' || name[n] == '\0'))
			return true;
	}
	return false;
}

static void
check_blocks(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_quant_config *qc = c->qc;
	struct agg a = { 0 };
	char label[96], detail[512];
	uint32_t i;

	if (qc->n_blocks == 0)
		return;
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];
		if (!quantized(m->scheme) || under_block(qc, m->name))
			continue;
		/* an extra_config entry with bits <= 8 records a quantized
		 * module outside the blocks (lm_head), §A1 */
		if (m->named_by)
			continue;
		if (c->reported_3007)
			c->reported_3007[i] = 1;
		module_label(inv, m, label, sizeof(label));
		snprintf(detail, sizeof(detail),
			 "stored %s but outside every block_name_to_quantize "
			 "prefix (%s%s) and named by no extra_config entry: "
			 "vLLM and the AutoRound loader build them unquantized "
			 "and fail on the packed tensors", label,
			 qc->blocks[0] ? qc->blocks[0] : "",
			 qc->n_blocks > 1 ? ", ..." : "");
		agg_add(c, &a, m, label, detail, NULL);
	}
	agg_emit(c, &a, QA3007, NULL, "uncovered packed patterns");
}

/* ---- QA3008 / QA3009: scale and packed shapes ------------------------- */

/* The bits and group size the config declares for module m (resolved
 * by the analysis: the first matching override's, else the global
 * values), else what the tensors say; -1 when unknown. */
static void
declared(const struct ctx *c, const struct qa_module *m, int *bits,
	 int *group)
{
	(void)c;
	*bits = m->decl_bits;
	*group = m->decl_group;
	if (*bits <= 0)
		*bits = m->bits;
	if (*group < 0)
		*group = m->group_size;
}

struct shape_ctx {
	struct ctx *c;
	struct agg *scale, *packed;
	const struct qa_module *m;
	uint32_t index;
	enum qa_scheme scheme;	/* the module's, or guessed from names */
};

static bool
dtype_is(const struct qa_tensor *t, const char *d)
{
	return t && t->dtype && strcmp(t->dtype, d) == 0;
}

/* The classifier leaves a module "unknown" when its shapes do not agree
 * (exactly the modules these rules are about), so the scheme is guessed
 * here from the sibling names and dtypes alone (§1.3 table). */
static enum qa_scheme
guess_scheme(const struct qa_inventory *inv, const struct qa_module *m)
{
	const struct qa_tensor *qw = sibling(inv, m, "qweight");
	const struct qa_tensor *sc = sibling(inv, m, "scales");
	const struct qa_tensor *wp = sibling(inv, m, "weight_packed");
	const struct qa_tensor *w = sibling(inv, m, "weight");
	const struct qa_tensor *ws = sibling(inv, m, "weight_scale");

	if (qw && sc && dtype_is(qw, "I32"))
		return dim(qw, 0) == dim(sc, 0) ? QA_SCHEME_GPTQ :
		       QA_SCHEME_AWQ_GEMM;
	if (sibling(inv, m, "blocks") && sibling(inv, m, "scales"))
		return QA_SCHEME_MXFP4;
	if (wp && dtype_is(wp, "I32"))
		return QA_SCHEME_CT_PACK;
	if ((wp || dtype_is(w, "U8")) && dtype_is(ws, "F8_E4M3"))
		return QA_SCHEME_NVFP4;
	if (wp && dtype_is(wp, "U8") && dtype_is(ws, "U8"))
		return QA_SCHEME_MXFP4;
	if (dtype_is(w, "F8_E4M3") && sibling(inv, m, "weight_scale_inv"))
		return QA_SCHEME_FP8_BLOCK;
	/* MLX: U32 weight beside its scales (mlx/nn/layers/quantized.py) */
	if (dtype_is(w, "U32") && sc)
		return dtype_is(sc, "U8") ? QA_SCHEME_MLX_MXFP4 :
					    QA_SCHEME_MLX_AFFINE;
	return QA_SCHEME_UNKNOWN;
}

static void
bad_scale(struct shape_ctx *s, const struct qa_tensor *t, const char *fmt,
	  ...) __attribute__((format(printf, 3, 4)));

static void
bad_scale(struct shape_ctx *s, const struct qa_tensor *t, const char *fmt,
	  ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	agg_add(s->c, s->scale, s->m, t ? t->name + strlen(s->m->name) : "",
		detail, t);
}

static void
bad_packed(struct shape_ctx *s, const struct qa_tensor *t, const char *fmt,
	   ...) __attribute__((format(printf, 3, 4)));

static void
bad_packed(struct shape_ctx *s, const struct qa_tensor *t, const char *fmt,
	   ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (s->c->reported_3009)
		s->c->reported_3009[s->index] = 1;
	agg_add(s->c, s->packed, s->m, t ? t->name + strlen(s->m->name) : "",
		detail, t);
}

#define U(x) ((unsigned long long)(x))

/* GPTQ (§A2): qweight [ceil(in*b/32), out], qzeros [ceil(in/g),
 * ceil(out*b/32)], scales [ceil(in/g), out], g_idx [in]. AutoRound's
 * auto_gptq packing is the same (§A1). */
static void
shape_gptq(struct shape_ctx *s, int bits, int group)
{
	const struct qa_inventory *inv = s->c->inv;
	const struct qa_tensor *qw = sibling(inv, s->m, "qweight");
	const struct qa_tensor *sc = sibling(inv, s->m, "scales");
	const struct qa_tensor *qz = sibling(inv, s->m, "qzeros");
	const struct qa_tensor *gi = sibling(inv, s->m, "g_idx");
	uint64_t out, in, want;
	bool bad = false;

	if (!qw || bits <= 0 || bits > 8)
		return;
	out = dim(qw, 0);
	if (!mul_cdiv(&in, dim(qw, 1), 32, (uint64_t)bits))
		return;
	if (gi) {
		if (!mul_cdiv(&want, gi->elements, (uint64_t)bits, 32))
			return;
		if (want != dim(qw, 1)) {
			bad_packed(s, qw, "qweight has %llu rows, which hold "
				   "%llu inputs at %d bits, but g_idx has %llu "
				   "(qweight rows = ceil(in*bits/32) = %llu)",
				   U(dim(qw, 1)), U(in), bits,
				   U(gi->elements), U(want));
			bad = true;
		}
		in = gi->elements;
	}
	if (qz && mul_cdiv(&want, out, (uint64_t)bits, 32) &&
	    dim(qz, 0) != want) {
		bad_packed(s, qz, "qzeros is %llu words wide; %llu outputs at "
			   "%d bits need ceil(out*bits/32) = %llu",
			   U(dim(qz, 0)), U(out), bits, U(want));
		bad = true;
	}
	if (!sc)
		return;
	if (dim(sc, 0) != out)
		bad_scale(s, sc, "scales has %llu columns, qweight %llu outputs",
			  U(dim(sc, 0)), U(out));
	if (qz && dim(qz, 1) != dim(sc, 1))
		bad_scale(s, qz, "qzeros has %llu rows, scales %llu (one row "
			  "per group each)", U(dim(qz, 1)), U(dim(sc, 1)));
	if (bad || group < 0)
		return;
	want = group > 0 ? cdiv(in, (uint64_t)group) : 1;
	if (dim(sc, 1) != want)
		bad_scale(s, sc, "scales has %llu rows; %llu inputs in groups of "
			  "%d need ceil(in/group) = %llu (declared group_size "
			  "or bits %d wrong)", U(dim(sc, 1)), U(in),
			  group ? group : -1, U(want), bits);
}

/* AWQ GEMM (§A3; AutoRound auto_awq §A1): qweight [in, out*b/32],
 * qzeros [ceil(in/g), out*b/32], scales [ceil(in/g), out]. */
static void
shape_awq(struct shape_ctx *s, int bits, int group)
{
	const struct qa_inventory *inv = s->c->inv;
	const struct qa_tensor *qw = sibling(inv, s->m, "qweight");
	const struct qa_tensor *sc = sibling(inv, s->m, "scales");
	const struct qa_tensor *qz = sibling(inv, s->m, "qzeros");
	uint64_t out, in, want;
	bool bad = false;

	if (!qw || !sc || bits <= 0 || bits > 8)
		return;
	out = dim(sc, 0);
	in = dim(qw, 1);
	if (!mul_cdiv(&want, out, (uint64_t)bits, 32))
		return;
	if (dim(qw, 0) != want) {
		bad_packed(s, qw, "qweight is %llu words wide; %llu outputs "
			   "(scales columns) at %d bits need out*bits/32 = "
			   "%llu", U(dim(qw, 0)), U(out), bits, U(want));
		bad = true;
	}
	if (qz && dim(qz, 0) != want) {
		bad_packed(s, qz, "qzeros is %llu words wide; %llu outputs at "
			   "%d bits need out*bits/32 = %llu", U(dim(qz, 0)),
			   U(out), bits, U(want));
		bad = true;
	}
	if (bad || group < 0)
		return;
	want = group > 0 ? cdiv(in, (uint64_t)group) : 1;
	if (dim(sc, 1) != want)
		bad_scale(s, sc, "scales has %llu rows; %llu inputs in groups of "
			  "%d need ceil(in/group) = %llu", U(dim(sc, 1)),
			  U(in), group, U(want));
	if (qz && dim(qz, 1) != dim(sc, 1))
		bad_scale(s, qz, "qzeros has %llu rows, scales %llu",
			  U(dim(qz, 1)), U(dim(sc, 1)));
}

/* compressed-tensors pack-quantized (§A4): weight_packed [out,
 * ceil(in*b/32)], weight_scale [out, ceil(in/g)] or [out, 1],
 * weight_zero_point [ceil(out*b/32), groups], weight_g_idx [in]. */
static void
shape_ct_pack(struct shape_ctx *s, int bits, int group)
{
	const struct qa_inventory *inv = s->c->inv;
	const struct qa_tensor *wp = sibling(inv, s->m, "weight_packed");
	const struct qa_tensor *sc = sibling(inv, s->m, "weight_scale");
	const struct qa_tensor *zp = sibling(inv, s->m, "weight_zero_point");
	const struct qa_tensor *gi = sibling(inv, s->m, "weight_g_idx");
	uint64_t out, in, want;
	bool bad = false;

	if (!wp || bits <= 0 || bits > 8)
		return;
	out = dim(wp, 1);
	if (s->m->in > 0 && s->m->out == out)
		in = s->m->in;
	else if (!mul_cdiv(&in, dim(wp, 0), 32, (uint64_t)bits))
		return;
	if (gi) {
		if (!mul_cdiv(&want, gi->elements, (uint64_t)bits, 32))
			return;
		if (want != dim(wp, 0)) {
			bad_packed(s, wp, "weight_packed is %llu words wide; "
				   "weight_g_idx has %llu inputs, which at %d "
				   "bits need ceil(in*bits/32) = %llu",
				   U(dim(wp, 0)), U(gi->elements), bits,
				   U(want));
			bad = true;
		}
		in = gi->elements;
	}
	if (zp && mul_cdiv(&want, out, (uint64_t)bits, 32) &&
	    dim(zp, 1) != want) {
		bad_packed(s, zp, "weight_zero_point has %llu rows; %llu outputs "
			   "at %d bits need ceil(out*bits/32) = %llu",
			   U(dim(zp, 1)), U(out), bits, U(want));
		bad = true;
	}
	if (!sc || bad)
		return;
	if (dim(sc, 1) != out)
		bad_scale(s, sc, "weight_scale has %llu rows, weight_packed "
			  "%llu outputs", U(dim(sc, 1)), U(out));
	if (group < 0)
		return;
	want = group > 0 ? cdiv(in, (uint64_t)group) : 1;
	if (dim(sc, 0) != want)
		bad_scale(s, sc, "weight_scale has %llu columns; %llu inputs in "
			  "groups of %d need ceil(in/group) = %llu",
			  U(dim(sc, 0)), U(in), group, U(want));
}

/* Micro-scaled 4-bit (§A1, §A4, §A5): payload [out, in/2] U8, scale
 * [out, in/g] with g = 16 (NVFP4) or 32 (MXFP4). */
static void
shape_fp4(struct shape_ctx *s, unsigned g)
{
	const struct qa_inventory *inv = s->c->inv;
	const struct qa_tensor *wp = sibling(inv, s->m, "weight_packed");
	const struct qa_tensor *sc = sibling(inv, s->m, "weight_scale");
	const struct qa_tensor *bl = sibling(inv, s->m, "blocks");
	uint64_t out, in, want;

	if (bl) {
		/* gpt-oss (§A6): _blocks [E, R, K, 16], _scales [E, R, K] */
		const struct qa_tensor *bs = sibling(inv, s->m, "scales");
		uint32_t k;

		if (dim(bl, 0) != 16) {
			bad_packed(s, bl, "_blocks rows end in %llu bytes; MXFP4 "
				   "blocks of 32 4-bit values are 16 bytes",
				   U(dim(bl, 0)));
			return;
		}
		if (!bs || bs->n_dims + 1 != bl->n_dims)
			return;
		for (k = 0; k < bs->n_dims; k++)
			if (bs->shape[k] != bl->shape[k]) {
				bad_scale(s, bs, "_scales dimension %u is %llu, "
					  "_blocks %llu: one E8M0 scale per "
					  "32-value block", k, U(bs->shape[k]),
					  U(bl->shape[k]));
				return;
			}
		return;
	}
	if (!wp)
		wp = sibling(inv, s->m, "weight");
	if (!wp || !sc)
		return;
	out = dim(wp, 1);
	if (qa_ckd_mul(&in, dim(wp, 0), 2))
		return;
	want = cdiv(in, g);
	if (dim(sc, 1) != out || dim(sc, 0) != want)
		bad_scale(s, sc, "weight_scale is [%llu, %llu]; %s of [%llu, "
			  "%llu] needs [out, in/%u] = [%llu, %llu]",
			  U(dim(sc, 1)), U(dim(sc, 0)),
			  g == 16 ? "NVFP4" : "MXFP4", U(out), U(in), g,
			  U(out), U(want));
}

/* FP8 and INT8 with a plain weight (§A4 float/int-quantized, §A5, §A7):
 * block scales [ceil(out/b0), ceil(in/b1)] (weight_scale_inv, DeepSeek),
 * MXFP8 [out, in/32], else per-tensor 1, per-channel out, group
 * [out, ceil(in/g)], ModelOpt FP8_PB_WO [out/128, 1, in/128, 1]. */
static void
shape_plain(struct shape_ctx *s, int group)
{
	const struct qa_inventory *inv = s->c->inv;
	const struct qa_quant_config *qc = s->c->qc;
	const struct qa_tensor *w = sibling(inv, s->m, "weight");
	const struct qa_tensor *si = sibling(inv, s->m, "weight_scale_inv");
	const struct qa_tensor *sc = si ? si :
				     sibling(inv, s->m, "weight_scale");
	uint64_t out, in, b0, b1, e, grp;

	if (!w || !sc)
		return;
	out = dim(w, 1);
	in = dim(w, 0);
	if (s->scheme == QA_SCHEME_MXFP8) {
		if (dim(sc, 1) != out || dim(sc, 0) != cdiv(in, 32))
			bad_scale(s, sc, "weight_scale is [%llu, %llu]; MXFP8 "
				  "of [%llu, %llu] needs [out, in/32] = "
				  "[%llu, %llu]", U(dim(sc, 1)), U(dim(sc, 0)),
				  U(out), U(in), U(out), U(cdiv(in, 32)));
		return;
	}
	b0 = qc->block[0] > 0 ? (uint64_t)qc->block[0] : 128;
	b1 = qc->block[1] > 0 ? (uint64_t)qc->block[1] : 128;
	if (s->scheme == QA_SCHEME_FP8_BLOCK || si) {
		if (sc->n_dims == 2 && dim(sc, 1) == cdiv(out, b0) &&
		    dim(sc, 0) == cdiv(in, b1))
			return;
		bad_scale(s, sc, "%s has %llu elements (%s); weight [%llu, "
			  "%llu] in %llux%llu blocks needs [%llu, %llu]",
			  si ? "weight_scale_inv" : "weight_scale",
			  U(sc->elements), sc->n_dims == 2 ? "2-D" : "not 2-D",
			  U(out), U(in), U(b0), U(b1), U(cdiv(out, b0)),
			  U(cdiv(in, b1)));
		return;
	}
	e = sc->elements;
	if (e == 1 || e == out)
		return;
	if (qa_ckd_mul(&grp, cdiv(out, 128), cdiv(in, 128)) == false &&
	    e == grp)
		return;
	if (group > 0 && dim(sc, 1) == out &&
	    dim(sc, 0) == cdiv(in, (uint64_t)group))
		return;
	bad_scale(s, sc, "weight_scale has %llu elements; weight [%llu, %llu] "
		  "takes 1 (per tensor), %llu (per channel)%s", U(e), U(out),
		  U(in), U(out), group > 0 ? " or [out, ceil(in/group)]" : "");
}

/* ModelOpt W4A16_AWQ (§A5): weight U8 [out/2, in], weight_scale
 * [out, in/g]. */
static void
shape_int4_modelopt(struct shape_ctx *s, int group)
{
	const struct qa_inventory *inv = s->c->inv;
	const struct qa_tensor *w = sibling(inv, s->m, "weight");
	const struct qa_tensor *sc = sibling(inv, s->m, "weight_scale");
	uint64_t out, in;

	if (!w || !sc || group <= 0 || qa_ckd_mul(&out, dim(w, 1), 2))
		return;
	in = dim(w, 0);
	if (dim(sc, 1) != out || dim(sc, 0) != cdiv(in, (uint64_t)group))
		bad_scale(s, sc, "weight_scale is [%llu, %llu]; INT4-AWQ of "
			  "[%llu, %llu] in groups of %d needs [%llu, %llu]",
			  U(dim(sc, 1)), U(dim(sc, 0)), U(out), U(in), group,
			  U(out), U(cdiv(in, (uint64_t)group)));
}

/* bitsandbytes int8 (§A8): SCB [out]. */
static void
shape_bnb8(struct shape_ctx *s)
{
	const struct qa_inventory *inv = s->c->inv;
	const struct qa_tensor *w = sibling(inv, s->m, "weight");
	const struct qa_tensor *scb = sibling(inv, s->m, "SCB");

	if (w && scb && scb->elements != dim(w, 1))
		bad_scale(s, scb, "SCB has %llu elements; int8 weight has %llu "
			  "rows (one scale per output)", U(scb->elements),
			  U(dim(w, 1)));
}

/*
 * MLX (mlx/ops.cpp affine_quantize, fp_quantize): weight U32 [out,
 * in * bits / 32], scales [out, in / g], and for affine biases of the
 * scales' shape and dtype. mlx-lm's loader builds each layer from the
 * config's bits and group size (mlx_lm/utils.py load_model) and
 * load_weights refuses tensors of another shape, so the two must agree.
 */
static void
shape_mlx(struct shape_ctx *s, int bits, int group)
{
	const struct qa_inventory *inv = s->c->inv;
	const struct qa_tensor *w = sibling(inv, s->m, "weight");
	const struct qa_tensor *sc = sibling(inv, s->m, "scales");
	const struct qa_tensor *bi = sibling(inv, s->m, "biases");
	uint64_t in_w, in_s;

	if (!w || !sc)
		return;
	if (s->scheme == QA_SCHEME_MLX_AFFINE) {
		if (!bi) {
			bad_scale(s, sc, "no biases beside the scales: MLX "
				  "affine stores a scale and a bias per group "
				  "(mlx/nn/layers/quantized.py "
				  "QuantizedLinear)");
			return;
		}
		if (bi->n_dims != sc->n_dims || dim(bi, 0) != dim(sc, 0) ||
		    dim(bi, 1) != dim(sc, 1) || !dtype_is(bi, sc->dtype)) {
			bad_scale(s, bi, "biases [%llu x %llu] %s differ from "
				  "the scales [%llu x %llu] %s",
				  U(dim(bi, 1)), U(dim(bi, 0)), bi->dtype,
				  U(dim(sc, 1)), U(dim(sc, 0)), sc->dtype);
			return;
		}
	}
	if (bits <= 0 || bits > 8 || group <= 0)
		return;
	if (dim(w, 1) != dim(sc, 1)) {
		bad_scale(s, sc, "scales have %llu rows, the weight %llu",
			  U(dim(sc, 1)), U(dim(w, 1)));
		return;
	}
	if (!mul_cdiv(&in_w, dim(w, 0), 32, (uint64_t)bits) ||
	    !mul_cdiv(&in_s, dim(sc, 0), (uint64_t)group, 1))
		return;
	if (in_w != in_s)
		bad_packed(s, w, "weight is %llu words wide, %llu inputs at the "
			   "declared %d bits, but the scales give %llu inputs "
			   "at the declared group %d: the tensors were not "
			   "written with these bits and group size",
			   U(dim(w, 0)), U(in_w), bits, U(in_s), group);
}

/*
 * HQQ: each layer stores its own nbits and group_size (hqq/core/
 * quantize.py HQQLinear.state_dict), read into m->bits / m->group_size;
 * transformers and vLLM build the layer from the config instead
 * (transformers integrations/hqq.py prepare_for_hqq_linear; vLLM
 * hqq_marlin.py HQQMarlinConfig.from_config), so the two must agree.
 */
static void
shape_hqq(struct shape_ctx *s, int bits, int group)
{
	const struct qa_tensor *w = sibling(s->c->inv, s->m, "W_q");

	if (s->m->bits > 0 && bits > 0 && bits != s->m->bits)
		bad_packed(s, w, "W_q holds %d-bit values (its nbits tensor, "
			   "and the packed size agrees) but the config "
			   "declares %d bits: loaders build the layer from "
			   "the config", s->m->bits, bits);
	else if (s->m->group_size > 0 && group > 0 &&
		 group != s->m->group_size)
		bad_packed(s, w, "W_q is grouped by %d (its group_size "
			   "tensor) but the config declares group %d",
			   s->m->group_size, group);
}

static void
check_shapes(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	struct agg scale = { 0 }, packed = { 0 };
	uint32_t i;

	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];
		struct shape_ctx s = { c, &scale, &packed, m, i, m->scheme };
		int bits, group;

		if (!m->name)
			continue;
		if (s.scheme == QA_SCHEME_UNKNOWN)
			s.scheme = guess_scheme(inv, m);
		if (!quantized(s.scheme))
			continue;
		declared(c, m, &bits, &group);
		switch (s.scheme) {
		case QA_SCHEME_GPTQ:
			shape_gptq(&s, bits, group);
			break;
		case QA_SCHEME_AWQ_GEMM:
			shape_awq(&s, bits, group);
			break;
		case QA_SCHEME_CT_PACK:
			shape_ct_pack(&s, bits, group);
			break;
		case QA_SCHEME_NVFP4:
			shape_fp4(&s, 16);
			break;
		case QA_SCHEME_MXFP4:
			shape_fp4(&s, 32);
			break;
		case QA_SCHEME_MXFP8: case QA_SCHEME_FP8_BLOCK:
		case QA_SCHEME_FP8: case QA_SCHEME_INT8:
			shape_plain(&s, group);
			break;
		case QA_SCHEME_INT4_MODELOPT:
			shape_int4_modelopt(&s, group);
			break;
		case QA_SCHEME_BNB_8BIT:
			shape_bnb8(&s);
			break;
		case QA_SCHEME_MLX_AFFINE: case QA_SCHEME_MLX_MXFP4:
		case QA_SCHEME_MLX_NVFP4: case QA_SCHEME_MLX_MXFP8:
			shape_mlx(&s, bits, group);
			break;
		case QA_SCHEME_HQQ:
			if (m->decl_bits > 0 || m->decl_group > 0)
				shape_hqq(&s, m->decl_bits, m->decl_group);
			break;
		default:
			break;
		}
	}
	agg_emit(c, &packed, QA3009, NULL, "packed-shape patterns");
	agg_emit(c, &scale, QA3008, NULL, "scale-shape patterns");
}

/* ---- QA3010 / QA3012: method against evidence ------------------------ */

static bool
fmt_is(const char *f, const char *v)
{
	return f && strcasecmp(f, v) == 0;
}

static bool
fmt_starts(const char *f, const char *v)
{
	return f && strncasecmp(f, v, strlen(v)) == 0;
}

/* Is scheme s what the config's method and format write? (§A1-A8) */
static bool
scheme_fits(const struct qa_quant_config *qc, enum qa_scheme s)
{
	const char *f = qc->format;

	switch (qc->method) {
	case QA_QM_GPTQ:
		return s == QA_SCHEME_GPTQ;
	case QA_QM_AWQ:
		if (fmt_is(f, "gemm"))
			return s == QA_SCHEME_AWQ_GEMM;
		if (fmt_starts(f, "gemv"))
			return s == QA_SCHEME_AWQ_GEMV;
		return s == QA_SCHEME_AWQ_GEMM || s == QA_SCHEME_AWQ_GEMV;
	case QA_QM_AUTOROUND:
		/* export/formats/backends/autoround.py packing formats */
		if (fmt_is(f, "auto_round:auto_awq"))
			return s == QA_SCHEME_AWQ_GEMM;
		if (fmt_is(f, "auto_round:auto_gptq") ||
		    fmt_is(f, "auto_round:gptqmodel") || fmt_is(f, "auto_round"))
			return s == QA_SCHEME_GPTQ;
		if (fmt_starts(f, "auto_round:llm_compressor"))
			return s == QA_SCHEME_NVFP4 || s == QA_SCHEME_MXFP4 ||
			       s == QA_SCHEME_MXFP8 || s == QA_SCHEME_CT_PACK ||
			       s == QA_SCHEME_FP8 || s == QA_SCHEME_FP8_BLOCK;
		if (fmt_starts(f, "auto_round:fp8"))
			return s == QA_SCHEME_FP8 || s == QA_SCHEME_FP8_BLOCK;
		return true;
	case QA_QM_COMPRESSED_TENSORS:
		if (fmt_is(f, "pack-quantized"))
			return s == QA_SCHEME_CT_PACK;
		if (fmt_is(f, "nvfp4-pack-quantized"))
			return s == QA_SCHEME_NVFP4;
		if (fmt_is(f, "mxfp4-pack-quantized"))
			return s == QA_SCHEME_MXFP4;
		if (fmt_is(f, "mxfp8-quantized"))
			return s == QA_SCHEME_MXFP8;
		if (fmt_is(f, "float-quantized"))
			return s == QA_SCHEME_FP8 || s == QA_SCHEME_FP8_BLOCK;
		if (fmt_is(f, "int-quantized"))
			return s == QA_SCHEME_INT8;
		return true;	/* mixed-precision, naive, unknown */
	case QA_QM_MODELOPT:
		if (fmt_starts(f, "NVFP4") || fmt_is(f, "W4A16_NVFP4"))
			return s == QA_SCHEME_NVFP4;
		if (fmt_is(f, "FP8_PB_WO"))
			return s == QA_SCHEME_FP8 || s == QA_SCHEME_FP8_BLOCK;
		if (fmt_starts(f, "FP8"))
			return s == QA_SCHEME_FP8;
		if (fmt_is(f, "W4A16_AWQ") || fmt_is(f, "W4A8_AWQ"))
			return s == QA_SCHEME_INT4_MODELOPT;
		if (fmt_is(f, "MXFP8"))
			return s == QA_SCHEME_MXFP8;
		return true;	/* MIXED_PRECISION and others */
	case QA_QM_FP8:
		return s == QA_SCHEME_FP8_BLOCK || s == QA_SCHEME_FP8;
	case QA_QM_MXFP4:
		return s == QA_SCHEME_MXFP4;
	case QA_QM_BITSANDBYTES:
		return s == QA_SCHEME_BNB_4BIT || s == QA_SCHEME_BNB_8BIT;
	case QA_QM_MLX:
		/* a module's own entry may name another mode (mlx-lm
		 * utils.py quantize_model): any MLX layout fits */
		return s == QA_SCHEME_MLX_AFFINE || s == QA_SCHEME_MLX_MXFP4 ||
		       s == QA_SCHEME_MLX_NVFP4 || s == QA_SCHEME_MLX_MXFP8;
	case QA_QM_EXL2:
		return s == QA_SCHEME_EXL2;
	case QA_QM_EXL3:
		return s == QA_SCHEME_EXL3;
	case QA_QM_HQQ:
		return s == QA_SCHEME_HQQ;
	case QA_QM_TORCHAO:
		return s == QA_SCHEME_TORCHAO || s == QA_SCHEME_TORCHAO_FP8;
	case QA_QM_QQQ:
		return s == QA_SCHEME_QQQ;
	case QA_QM_PAROQUANT:
		return s == QA_SCHEME_PAROQUANT;
	case QA_QM_GPTQM_GGUF:
		return s == QA_SCHEME_GPTQM_GGUF;
	case QA_QM_QUARK:
		/* quark/torch/export: packed ints, or FP8 / INT8 / MX
		 * weights with scales as compressed-tensors writes them */
		return s == QA_SCHEME_QUARK_INT || s == QA_SCHEME_INT8 ||
		       s == QA_SCHEME_FP8 || s == QA_SCHEME_MXFP4 ||
		       s == QA_SCHEME_MXFP8;
	case QA_QM_NONE:
	case QA_QM_OTHER:
		return true;
	}
	return true;
}

static void
check_method(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_quant_config *qc = c->qc;
	unsigned count[QA_SCHEME_COUNT] = { 0 };
	const struct qa_module *first[QA_SCHEME_COUNT] = { 0 };
	unsigned total = 0;
	char schemes[256];
	size_t len = 0;
	uint32_t i;
	int s;

	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];

		if (!quantized(m->scheme) || m->scheme >= QA_SCHEME_COUNT)
			continue;
		if (!first[m->scheme])
			first[m->scheme] = m;
		count[m->scheme]++;
		total++;
	}
	if (total == 0)
		return;
	if (qc->method == QA_QM_NONE) {
		/* EXL2/EXL3 load by tensor names: QA3016 says so */
		if (inv->kind == QA_KIND_GGUF || inv->format_from_tensors)
			return;
		schemes[0] = '\0';
		for (s = 0; s < QA_SCHEME_COUNT && len + 2 < sizeof(schemes);
		     s++)
			if (count[s])
				len += (size_t)snprintf(schemes + len,
							sizeof(schemes) - len,
							"%s%u %s", len ? ", " :
							"", count[s],
							qa_scheme_name(
							(enum qa_scheme)s));
		qa_inv_finding(inv, QA3012, NULL, -1, NULL,
			       "%u modules are quantized (%s) but no "
			       "quantization config was found: engines choose "
			       "the method from the config and will load this "
			       "as a dense model", total, schemes);
		return;
	}
	for (s = 0; s < QA_SCHEME_COUNT; s++) {
		if (!count[s] || scheme_fits(qc, (enum qa_scheme)s))
			continue;
		if (!may_report(c, QA3010))
			continue;
		qa_inv_finding(inv, QA3010, c->qfile, -1, NULL,
			       "the config declares '%s'%s%s%s but %u module%s "
			       "%s packed as %s (e.g. %s): engines pick "
			       "kernels and layouts from the config and "
			       "misread them",
			       qc->method_raw ? qc->method_raw :
			       qa_quant_method_name(qc->method),
			       qc->format ? " (" : "",
			       qc->format ? qc->format : "",
			       qc->format ? ")" : "", count[s],
			       count[s] == 1 ? "" : "s",
			       count[s] == 1 ? "is" : "are",
			       qa_scheme_name((enum qa_scheme)s),
			       first[s]->name);
	}
	report_overflow(c, QA3010, "mismatching schemes");
}

/* ---- QA3017: MLX per-module mode ------------------------------------- */

/* The (bits, group) the fp modes allow (mlx/ops.cpp fp_quantize;
 * mlx/nn/layers/quantized.py _defaults_for_mode), 0 for affine, -1 for a
 * mode mlx does not know. */
static int
mlx_mode_pair(const char *mode, int *bits, int *group)
{
	static const struct { const char *m; int b, g; } v[] = {
		{ "mxfp4", 4, 32 }, { "nvfp4", 4, 16 }, { "mxfp8", 8, 32 },
	};
	size_t i;

	*bits = *group = -1;
	if (strcmp(mode, "affine") == 0)
		return 0;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (strcmp(mode, v[i].m) == 0) {
			*bits = v[i].b;
			*group = v[i].g;
			return 1;
		}
	return -1;
}

static bool
float_dtype(const struct qa_tensor *t)
{
	return dtype_is(t, "F16") || dtype_is(t, "BF16") || dtype_is(t, "F32");
}

/*
 * What the tensors of an MLX module say its mode is, in buf: "affine"
 * (float scales with biases), an fp mode (U8 scales, no biases, the
 * weight columns per scale column bits * g / 32), or a description of a
 * layout that is neither. Returns the mode name or NULL for neither.
 */
static const char *
mlx_tensor_mode(const struct qa_inventory *inv, const struct qa_module *m,
		char *buf, size_t cap)
{
	const struct qa_tensor *w = sibling(inv, m, "weight");
	const struct qa_tensor *sc = sibling(inv, m, "scales");
	const struct qa_tensor *bi = sibling(inv, m, "biases");

	if (float_dtype(sc) && bi) {
		snprintf(buf, cap, "affine (scales %s with biases)", sc->dtype);
		return "affine";
	}
	if (dtype_is(sc, "U8") && !bi) {
		uint64_t wc = dim(w, 0), scc = dim(sc, 0);
		const char *mode = wc == 2 * scc ? "nvfp4" :
				   wc == 4 * scc ? "mxfp4" :
				   wc == 8 * scc ? "mxfp8" : NULL;

		if (mode)
			snprintf(buf, cap, "%s (U8 scales, no biases, %llu "
				 "weight words per scale)", mode,
				 U(wc / scc));
		else
			snprintf(buf, cap, "U8 scales without biases but "
				 "%llu weight words for %llu scales, which no "
				 "mode writes", U(wc), U(scc));
		return mode;
	}
	snprintf(buf, cap, "scales %s %s biases, which no mode writes",
		 sc && sc->dtype ? sc->dtype : "?", bi ? "with" : "without");
	return NULL;
}

static void
check_mlx_modes(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_quant_config *qc = c->qc;
	struct agg a = { 0 };
	uint32_t i;

	if (qc->method != QA_QM_MLX)
		return;
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];
		const struct qa_tensor *w, *sc;
		const char *mode, *has, *where;
		char held[160], detail[512];
		int pb, pg, kind;

		if (!m->name || m->claimed == 0)
			continue;
		w = sibling(inv, m, "weight");
		sc = sibling(inv, m, "scales");
		if (!w || !sc)
			continue;
		mode = m->decl_mode ? m->decl_mode : "affine";
		where = m->decl_mode && m->decl_mode != qc->format ?
			"its own entry" : "the global entry";
		kind = mlx_mode_pair(mode, &pb, &pg);
		has = mlx_tensor_mode(inv, m, held, sizeof(held));
		detail[0] = '\0';
		if (kind < 0)
			snprintf(detail, sizeof(detail), "the config gives mode '%s' "
				 "(%s), which mlx does not know (affine, mxfp4, "
				 "nvfp4, mxfp8); the tensors are %s", mode,
				 where, held);
		else if (!dtype_is(w, "U32"))
			snprintf(detail, sizeof(detail), "the config gives mode '%s' "
				 "(%s) but the weight beside the scales is %s, not "
				 "the U32 words MLX packs", mode, where,
				 w->dtype ? w->dtype : "?");
		else if (!has || strcmp(has, mode) != 0)
			snprintf(detail, sizeof(detail), "the config gives mode '%s' "
				 "(%s) but the tensors are %s: mlx-lm builds the "
				 "layer in the config's mode and its weights "
				 "do not load", mode, where, held);
		else if (kind == 1 &&
			 ((m->decl_bits > 0 && m->decl_bits != pb) ||
			  (m->decl_group > 0 && m->decl_group != pg)))
			snprintf(detail, sizeof(detail), "the config gives mode '%s' "
				 "(%s) with bits %d and group size %d, but %s allows "
				 "only %d bits in groups of %d (mx.quantize "
				 "refuses others)", mode, where,
				 m->decl_bits, m->decl_group, mode, pb, pg);
		if (detail[0])
			agg_add(c, &a, m, detail, detail, sc);
	}
	agg_emit(c, &a, QA3017, NULL, "MLX mode mismatches");
}

/* ---- QA3013 / QA3014: GGUF importance matrix ------------------------- */

static void
kv_text(const struct qa_kv *kv, char *buf, size_t cap)
{
	int64_t v;

	buf[0] = '\0';
	if (!kv)
		return;
	if (kv->value.type == QA_V_STRING && kv->value.v.str.s)
		snprintf(buf, cap, "%.*s", cap > 161 ? 160 : (int)cap - 1,
			 kv->value.v.str.s);	/* at most 160 bytes */
	else if (qa_value_as_int(&kv->value, &v))
		snprintf(buf, cap, "%lld", (long long)v);
}

/* llama.cpp src/llama-quant.cpp refuses these types without an imatrix
 * (IQ1_M only outside token_embd.weight and output.weight); ids from
 * ggml include/ggml.h (§A9). */
static bool
needs_imatrix(const struct qa_tensor *t)
{
	switch (t->ggml_type) {
	case 16:	/* IQ2_XXS */
	case 17:	/* IQ2_XS */
	case 19:	/* IQ1_S */
	case 22:	/* IQ2_S */
		return true;
	case 29:	/* IQ1_M */
		return strcmp(t->name, "token_embd.weight") != 0 &&
		       strcmp(t->name, "output.weight") != 0;
	default:
		return false;
	}
}

static void
check_imatrix(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_kv *file, *ds, *ent, *chk, *any;
	char f[176], d[176], e[32], k[32];
	const struct qa_tensor *first = NULL;
	unsigned n = 0;
	uint32_t i;

	if (inv->kind != QA_KIND_GGUF)
		return;
	/* tools/quantize/quantize.cpp LLM_KV_QUANTIZE_IMATRIX_* */
	file = qa_inv_kv(inv, QA_GGUF_QUANTIZE_IMATRIX_FILE);
	ds = qa_inv_kv(inv, QA_GGUF_QUANTIZE_IMATRIX_DATASET);
	ent = qa_inv_kv(inv, QA_GGUF_QUANTIZE_IMATRIX_ENTRIES_COUNT);
	chk = qa_inv_kv(inv, QA_GGUF_QUANTIZE_IMATRIX_CHUNKS_COUNT);
	any = file ? file : ds ? ds : ent ? ent : chk;
	if (any) {
		kv_text(file, f, sizeof(f));
		kv_text(ds, d, sizeof(d));
		kv_text(ent, e, sizeof(e));
		kv_text(chk, k, sizeof(k));
		qa_inv_finding(inv, QA3013, any->file < inv->n_files ?
			       inv->files[any->file].path : NULL,
			       (int64_t)any->offset, NULL,
			       "quantized with an importance matrix: file %s, "
			       "dataset %s, %s entries, %s chunks",
			       *f ? f : "(not recorded)",
			       *d ? d : "(not recorded)", *e ? e : "?",
			       *k ? k : "?");
		return;
	}
	for (i = 0; i < inv->n_tensors; i++)
		if (needs_imatrix(&inv->tensors[i])) {
			if (!first)
				first = &inv->tensors[i];
			n++;
		}
	if (!first)
		return;
	qa_inv_finding(inv, QA3014, tensor_file(inv, first), -1, first->name,
		       "%u tensor%s of IQ1/IQ2 types (e.g. %s %s) but no "
		       "quantize.imatrix.* metadata: llama-quantize refuses "
		       "these types without an importance matrix and records "
		       "it when used, so an old or patched quantizer made this "
		       "file", n, n == 1 ? "" : "s", first->name,
		       first->dtype ? first->dtype : "?");
}

/* ---- driver ----------------------------------------------------------- */

/* ---- QA3015 / QA3016: ExLlamaV2 / V3 claims ------------------------- */

/*
 * exllamav2/conversion/qparams.py qparams_headoptions (commit da07facd,
 * l.258-267): head_bits -> QParams(group size, bits, proportions); 16 is
 * an unquantized head.
 */
static const struct {
	int head_bits, group, n;
	int bits[2];
	double prop[2];
} exl2_head[] = {
	{ 2, 32, 2, { 4, 2 }, { 0.3, 0.7 } },
	{ 3, 32, 2, { 4, 3 }, { 0.15, 0.85 } },
	{ 4, 32, 2, { 6, 4 }, { 0.15, 0.85 } },
	{ 5, 128, 2, { 6, 5 }, { 0.15, 0.85 } },
	{ 6, 128, 2, { 8, 6 }, { 0.15, 0.85 } },
	{ 8, 128, 1, { 8, 0 }, { 1.0, 0 } },
};

/*
 * The q_weight rows and group count exllamav2 writes for a Linear of in
 * rows under head option k: AdaptiveGPTQ.configure (adaptivegptq.py
 * l.181-192: ceil(min(rows * p, remaining) / gsz) groups per bits) and
 * pack (l.644-668: ceil(rows / (32 / bits)) words per group), in the
 * same double arithmetic as Python's. false for a shape too large.
 */
static bool
exl2_head_layout(size_t k, uint64_t in, uint64_t *rows_out,
		 uint64_t *groups_out)
{
	int64_t remaining = (int64_t)in, rem_rows = (int64_t)in;
	uint64_t groups = 0, r = 0;
	int i;

	if (in > ((uint64_t)1 << 40))
		return false;
	for (i = 0; i < exl2_head[k].n; i++) {
		int gsz = exl2_head[k].group, bits = exl2_head[k].bits[i];
		double want = (double)in * exl2_head[k].prop[i];
		double m = want < (double)remaining ? want : (double)remaining;
		double gd = m / gsz;
		int64_t g = (int64_t)gd, j;

		if ((double)g < gd)
			g++;		/* math.ceil */
		remaining -= g * gsz;
		for (j = 0; j < g; j++) {
			int64_t rows = rem_rows < gsz ? rem_rows : gsz;
			double q = (double)rows / (32.0 / bits);
			uint64_t qr = (uint64_t)q;

			if ((double)qr < q)
				qr++;
			r += qr;
			rem_rows -= rows;
			groups++;
		}
	}
	*rows_out = r;
	*groups_out = groups;
	return true;
}

static bool
exl_head(const struct qa_module *m)
{
	return qa_role_quant_class(m->role) == QA_QCLASS_LM_HEAD;
}

static void
check_exl_head(struct ctx *c, const struct qa_module *h)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_quant_config *qc = c->qc;
	int hb = qc->head_bits;
	size_t k;

	if (qc->method == QA_QM_EXL3) {
		bool ok = hb == 16 ? h->scheme == QA_SCHEME_DENSE :
			  h->scheme == QA_SCHEME_EXL3 && h->bits == hb;

		if (!ok)
			qa_inv_finding(inv, QA3015, c->qfile, -1, h->name,
				       "head_bits %d, but %s is stored as %s: "
				       "ExLlamaV3 quantizes lm_head at exactly "
				       "head_bits (16: kept FP16; "
				       "exllamav3/conversion/allocation.py)",
				       hb, h->name, h->precision);
		return;
	}
	for (k = 0; k < sizeof(exl2_head) / sizeof(exl2_head[0]); k++)
		if (exl2_head[k].head_bits == hb)
			break;
	if (k == sizeof(exl2_head) / sizeof(exl2_head[0])) {
		if (h->scheme != QA_SCHEME_DENSE)
			qa_inv_finding(inv, QA3015, c->qfile, -1, h->name,
				       "head_bits %d is none of exllamav2's "
				       "head options (2, 3, 4, 5, 6, 8; "
				       "conversion/qparams.py "
				       "qparams_headoptions), and %s is stored "
				       "as %s", hb, h->name, h->precision);
		return;
	}
	if (h->scheme != QA_SCHEME_EXL2) {
		qa_inv_finding(inv, QA3015, c->qfile, -1, h->name,
			       "head_bits %d, but %s is stored as %s, not as "
			       "an EXL2 layer", hb, h->name, h->precision);
		return;
	}
	{
		const struct qa_tensor *qw = sibling(inv, h, "q_weight");
		const struct qa_tensor *sm = sibling(inv, h, "q_scale_max");
		uint64_t rows, groups;

		if (!qw || !sm || !exl2_head_layout(k, h->in, &rows, &groups))
			return;
		if (dim(qw, 1) != rows || dim(sm, 0) != groups)
			qa_inv_finding(inv, QA3015, c->qfile, -1, h->name,
				       "head_bits %d gives lm_head of %llu "
				       "inputs %llu q_weight rows in %llu "
				       "groups (exllamav2 qparams_headoptions, "
				       "adaptivegptq.py configure and pack), "
				       "but %s stores %llu rows in %llu groups "
				       "(%s)", hb, U(h->in), U(rows), U(groups),
				       h->name, U(dim(qw, 1)), U(dim(sm, 0)),
				       h->precision);
	}
}

static void
check_exl(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_quant_config *qc = c->qc;
	enum qa_scheme want = inv->format == QA_FORMAT_EXL2 ? QA_SCHEME_EXL2 :
			      QA_SCHEME_EXL3;
	const struct qa_module *head = NULL;
	double num = 0, den = 0, measured;
	unsigned n = 0;
	uint32_t i;

	if (inv->format != QA_FORMAT_EXL2 && inv->format != QA_FORMAT_EXL3)
		return;
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];
		const struct qa_tensor *b;
		double w;

		if (exl_head(m) && !head && m->scheme != QA_SCHEME_UNKNOWN)
			head = m;
		if (m->scheme != want || m->mtp || exl_head(m))
			continue;
		w = (double)m->in * (double)m->out * (double)m->experts;
		if (want == QA_SCHEME_EXL3) {
			num += w * m->bits;
		} else {
			b = sibling(inv, m, "bias");
			num += 8.0 * (double)(m->bytes - (b ? b->bytes : 0));
		}
		den += w;
		n++;
	}
	if (inv->format_from_tensors) {
		qa_inv_finding(inv, QA3016, NULL, -1, NULL,
			       "%u %s layers (%s tensors) and no "
			       "quantization_config naming %s: named %s from "
			       "the tensors, as %s finds its layers by name; "
			       "the bits the converter aimed at are not known "
			       "and not checked", n,
			       want == QA_SCHEME_EXL2 ? "EXL2" : "EXL3",
			       want == QA_SCHEME_EXL2 ?
			       "q_weight, q_scale, q_invperm" :
			       "trellis, suh, svh",
			       want == QA_SCHEME_EXL2 ? "exl2" : "exl3",
			       want == QA_SCHEME_EXL2 ? "exl2" : "exl3",
			       want == QA_SCHEME_EXL2 ? "exllamav2" :
			       "exllamav3");
		return;
	}
	if (n > 0 && den > 0 && qc->bpw > 0) {
		measured = num / den;
		/* final_bits = round(final_bpw, 2) (convert_model.py
		 * l.966): the measured average rounds to the claim */
		if (want == QA_SCHEME_EXL3 &&
		    fabs((double)(int64_t)(measured * 100 + 0.5) / 100 -
			 qc->bpw) > 0.0051)
			qa_inv_finding(inv, QA3015, c->qfile, -1, NULL,
				       "the config says bits %.2f, but the %u "
				       "EXL3 decoder layers hold %.4f trellis "
				       "bits per weight (size-weighted, as "
				       "exllamav3's allocation.py computes "
				       "final_bits)", qc->bpw, n, measured);
		else if (want == QA_SCHEME_EXL2 &&
			 (measured > qc->bpw + 0.01 || measured < qc->bpw - 0.1))
			qa_inv_finding(inv, QA3015, c->qfile, -1, NULL,
				       "the config says bits %.2f, but the %u "
				       "EXL2 decoder layers hold %.4f bits per "
				       "weight with their scales, groups and "
				       "permutation (exllamav2 qparams.py "
				       "total_bits; the optimizer keeps them at "
				       "most at the target, optimize.py)",
				       qc->bpw, n, measured);
	}
	if (head && qc->head_bits > 0)
		check_exl_head(c, head);
}

/* ---- QA3019: a layout not read ------------------------------------- */

/*
 * A module whose scheme stayed unknown and that is a weight: a Linear or
 * head by role, or a payload with siblings. A lone integer buffer
 * (position_ids) is no weight and says nothing about precision.
 */
static void
check_unread(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	struct agg a = { 0 };
	uint32_t i, k;

	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];
		const struct qa_tensor *p = payload(inv, m);
		char detail[384];
		size_t len = 0, nl;

		/* a known layout with a bad sibling is QA3008 / QA3009's */
		if (m->scheme != QA_SCHEME_UNKNOWN || !m->name || !p ||
		    (m->n_tensors < 2 && !claimable_role(m->role)) ||
		    guess_scheme(inv, m) != QA_SCHEME_UNKNOWN)
			continue;
		nl = strlen(m->name);
		len = (size_t)snprintf(detail, sizeof(detail),
				       "tensors ");
		for (k = 0; k < m->n_tensors && k < 6 &&
		     len + 64 < sizeof(detail); k++) {
			const struct qa_tensor *t = &inv->tensors[m->tensors[k]];
			const char *sfx = strlen(t->name) > nl &&
					  strncmp(t->name, m->name, nl) == 0 ?
					  t->name + nl : t->name;

			len += (size_t)snprintf(detail + len,
						sizeof(detail) - len,
						"%s%s %s", k ? ", " : "", sfx,
						t->dtype ? t->dtype : "?");
		}
		if (k < m->n_tensors && len + 16 < sizeof(detail))
			len += (size_t)snprintf(detail + len,
						sizeof(detail) - len,
						" and %u more", m->n_tensors - k);
		snprintf(detail + len, sizeof(detail) - len,
			 ": no layout quantaudit reads; precision, bits per "
			 "weight and parameters not audited");
		agg_add(c, &a, m, detail, detail, p);
	}
	agg_emit(c, &a, QA3019, NULL, "unread layouts");
}

/* ---- QA3018: HQQ named from its tensors ------------------------------ */

static void
check_hqq(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	unsigned n = 0, nbits[9] = { 0 }, other = 0;
	char mix[128];
	size_t len = 0;
	uint32_t i;
	int b;

	if (inv->format != QA_FORMAT_HQQ || !inv->format_from_tensors)
		return;
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];

		if (m->scheme != QA_SCHEME_HQQ)
			continue;
		n++;
		if (m->bits >= 1 && m->bits <= 8)
			nbits[m->bits]++;
		else
			other++;
	}
	mix[0] = '\0';
	for (b = 8; b >= 1; b--)
		if (nbits[b] && len + 24 < sizeof(mix))
			len += (size_t)snprintf(mix + len, sizeof(mix) - len,
						"%s%u at %d-bit", len ? ", " : "",
						nbits[b], b);
	if (other && len + 32 < sizeof(mix))
		snprintf(mix + len, sizeof(mix) - len,
			 "%s%u in 8bit_u8 of unread bits", len ? ", " : "",
			 other);
	qa_inv_finding(inv, QA3018, NULL, -1, NULL,
		       "%u HQQ layers (%s; W_q, scale, zero tensors) and no "
		       "quantization_config naming hqq: named hqq from the "
		       "tensors, as hqq's own save_to_safetensors writes it; "
		       "it loads with hqq's from_quantized, and vLLM or "
		       "transformers need quant_method hqq in the config",
		       n, mix);
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	struct ctx c;
	unsigned nq = 0;

	(void)opt;
	memset(&c, 0, sizeof(c));
	c.inv = inv;
	c.qc = &inv->quant;
	c.qfile = inv->quant.file ? inv->quant.file : inv->quant_config_file;
	check_imatrix(&c);
	if (inv->n_modules == 0)
		return;
	c.reported_3007 = calloc(inv->n_modules, 1);
	c.reported_3009 = calloc(inv->n_modules, 1);
	if (!c.reported_3007 || !c.reported_3009) {
		inv->out_of_memory = true;
		free(c.reported_3007);
		free(c.reported_3009);
		return;
	}
	check_nothing_quantized(&c, &nq);
	check_method(&c);
	check_exl(&c);
	check_hqq(&c);
	check_unread(&c);
	if (nq > 0) {
		check_blocks(&c);
		check_claims(&c);
		/* QA3003 is about vLLM's fused layers; mlx-lm builds
		 * q/k/v and gate/up as separate Linears (mlx_lm/models/
		 * llama.py Attention, MLP) and its mixed recipes give them
		 * different bits on purpose (convert.py
		 * mixed_quant_predicate_builder). */
		if (c.qc->method != QA_QM_MLX &&
		    inv->format != QA_FORMAT_EXL2 &&
		    inv->format != QA_FORMAT_EXL3)
			check_fused(&c);
	}
	/* also when every module is "unknown": bad shapes are why */
	check_shapes(&c);
	check_mlx_modes(&c);
	check_mtp(&c);
	check_unmatched(&c);
	free(c.reported_3007);
	free(c.reported_3009);
}

const struct qa_check qa_check_quant = { "quant", run, false };
