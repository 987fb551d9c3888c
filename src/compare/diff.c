/* SPDX-License-Identifier: MIT */
/*
 * diff (diff.h): tensors paired by name or by role, components side by
 * side, hyperparameters and GGUF metadata compared.
 */
#define _POSIX_C_SOURCE 200809L
#include "compare/diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/roles.h"
#include "core/gguf_keys.h"

#include <cjson/cJSON.h>

const char *
qa_diff_kind_name(enum qa_diff_kind k)
{
	static const char *const names[] = {
		[QA_D_ADDED] = "added", [QA_D_REMOVED] = "removed",
		[QA_D_RETYPED] = "retyped", [QA_D_RESHAPED] = "reshaped",
		[QA_D_CHANGED] = "changed", [QA_D_RENAMED] = "renamed",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static int
add_tensor(struct qa_diff *d, size_t *cap, enum qa_diff_kind kind,
	   const struct qa_tensor *a, const struct qa_tensor *b)
{
	if (d->n_tensors == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct qa_diff_tensor *n = qa_arena_grow(&d->arena, d->tensors,
							 *cap, nc, sizeof(*n));

		if (!n)
			return QA_E_NOMEM;
		d->tensors = n;
		*cap = nc;
	}
	d->tensors[d->n_tensors].kind = kind;
	d->tensors[d->n_tensors].a = a;
	d->tensors[d->n_tensors].b = b;
	d->n_tensors++;
	d->count[kind]++;
	return QA_OK;
}

/* ---- pairing ------------------------------------------------------------ */

struct key {
	const struct qa_tensor *t;
	uint32_t index;		/* in its inventory */
	uint32_t rank;		/* role mode: place among its (role, layer,
				 * part) */
	uint8_t part;		/* role mode: enum part */
};

static int
cmp_name(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = strcmp(a->t->name, b->t->name);

	return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* What a tensor is within its role: the weights (plain, or a packed
 * payload), a bias, or the scales, zeros and indexes of a quantized
 * module (no parameters of their own). A GGUF's attn_q.bias must meet a
 * GPTQ checkpoint's q_proj.bias, not its scales, which are larger. */
enum part { PART_WEIGHT, PART_BIAS, PART_AUX };

static enum part
part_of(const struct qa_tensor *t)
{
	size_t n = strlen(t->name);

	if (n >= 5 && strcmp(t->name + n - 5, ".bias") == 0)
		return PART_BIAS;
	return t->params == 0 && t->elements > 0 ? PART_AUX : PART_WEIGHT;
}

/* Role mode: role, layer, part, then the larger tensor first, then the
 * name. */
static int
cmp_role(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c;

	if (a->t->role != b->t->role)
		return a->t->role < b->t->role ? -1 : 1;
	if (a->t->layer != b->t->layer)
		return a->t->layer < b->t->layer ? -1 : 1;
	if (a->t->mtp != b->t->mtp)
		return a->t->mtp ? 1 : -1;
	if (a->part != b->part)
		return a->part < b->part ? -1 : 1;
	if (a->t->elements != b->t->elements)
		return a->t->elements > b->t->elements ? -1 : 1;
	c = strcmp(a->t->name, b->t->name);
	return c ? c : (a->index > b->index) - (a->index < b->index);
}

static int
cmp_role_rank(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	if (a->t->role != b->t->role)
		return a->t->role < b->t->role ? -1 : 1;
	if (a->t->layer != b->t->layer)
		return a->t->layer < b->t->layer ? -1 : 1;
	if (a->t->mtp != b->t->mtp)
		return a->t->mtp ? 1 : -1;
	if (a->part != b->part)
		return a->part < b->part ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

static struct key *
keys_of(const struct qa_inventory *inv, bool by_role)
{
	struct key *k = malloc((inv->n_tensors ? inv->n_tensors : 1) *
			       sizeof(*k));
	uint32_t i;

	if (!k)
		return NULL;
	for (i = 0; i < inv->n_tensors; i++) {
		k[i].t = &inv->tensors[i];
		k[i].index = i;
		k[i].rank = 0;
		k[i].part = by_role ? (uint8_t)part_of(k[i].t) : 0;
	}
	qsort(k, inv->n_tensors, sizeof(*k), by_role ? cmp_role : cmp_name);
	if (by_role)
		for (i = 1; i < inv->n_tensors; i++)
			if (k[i].t->role == k[i - 1].t->role &&
			    k[i].t->layer == k[i - 1].t->layer &&
			    k[i].t->mtp == k[i - 1].t->mtp &&
			    k[i].part == k[i - 1].part)
				k[i].rank = k[i - 1].rank + 1;
	return k;
}

/* partner[i] of each tensor of A: the index in B, or -1. Two sorted key
 * lists walked together. */
static uint32_t
pair(const struct qa_inventory *a, const struct qa_inventory *b,
     bool by_role, int64_t *pa, int64_t *pb, int *rc)
{
	struct key *ka = keys_of(a, by_role), *kb = keys_of(b, by_role);
	int (*cmp)(const void *, const void *) = by_role ? cmp_role_rank : NULL;
	uint32_t i = 0, j = 0, n = 0;

	*rc = QA_OK;
	if (!ka || !kb) {
		free(ka);
		free(kb);
		*rc = QA_E_NOMEM;
		return 0;
	}
	for (i = 0; i < a->n_tensors; i++)
		pa[i] = -1;
	for (j = 0; j < b->n_tensors; j++)
		pb[j] = -1;
	i = j = 0;
	while (i < a->n_tensors && j < b->n_tensors) {
		int c = cmp ? cmp(&ka[i], &kb[j]) :
			strcmp(ka[i].t->name, kb[j].t->name);

		if (c == 0) {
			pa[ka[i].index] = kb[j].index;
			pb[kb[j].index] = ka[i].index;
			n++;
			i++;
			j++;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	free(ka);
	free(kb);
	return n;
}

uint32_t
qa_diff_pair(const struct qa_inventory *a, const struct qa_inventory *b,
	     int64_t *pa, int64_t *pb, bool *by_role, int *rc)
{
	uint32_t paired = pair(a, b, false, pa, pb, rc);
	uint32_t smaller = a->n_tensors < b->n_tensors ? a->n_tensors :
			   b->n_tensors;

	*by_role = false;
	if (*rc == QA_OK && smaller > 0 && paired * 2 < smaller) {
		*by_role = true;
		paired = pair(a, b, true, pa, pb, rc);
	}
	return paired;
}

static bool
same_shape(const struct qa_tensor *a, const struct qa_tensor *b, bool flip)
{
	uint32_t i;

	if (a->n_dims != b->n_dims)
		return false;
	for (i = 0; i < a->n_dims; i++)
		if (a->shape[i] != b->shape[flip ? b->n_dims - 1 - i : i])
			return false;
	return true;
}

static bool
digest_of(const struct qa_content *c, uint32_t i, struct qa_digest *d)
{
	if (!c || i >= c->n_tensors ||
	    c->tensors[i].h.state != QA_REGION_HASHED)
		return false;
	*d = c->tensors[i].h.digest;
	return true;
}

struct unpaired {
	struct qa_digest d;
	uint32_t index;
	bool used;
};

static int
cmp_digest_only(const void *x, const void *y)
{
	const struct unpaired *a = x, *b = y;

	if (a->d.hi != b->d.hi)
		return a->d.hi < b->d.hi ? -1 : 1;
	return (a->d.lo > b->d.lo) - (a->d.lo < b->d.lo);
}

/* By digest, then B's order: equal bytes pair in file order. */
static int
cmp_digest(const void *x, const void *y)
{
	const struct unpaired *a = x, *b = y;
	int c = cmp_digest_only(x, y);

	return c ? c : (a->index > b->index) - (a->index < b->index);
}

static int
compare_tensors(struct qa_diff *d, const struct qa_content *ca,
		const struct qa_content *cb)
{
	const struct qa_inventory *a = d->a, *b = d->b;
	int64_t *pa = malloc((a->n_tensors + 1) * sizeof(*pa));
	int64_t *pb = malloc((b->n_tensors + 1) * sizeof(*pb));
	struct unpaired *ub = NULL;
	size_t cap = 0, n_ub = 0;
	uint32_t i;
	bool flip;
	int rc;

	if (!pa || !pb)
		goto nomem;
	d->paired = qa_diff_pair(a, b, pa, pb, &d->by_role, &rc);
	if (rc != QA_OK)
		goto nomem;
	/* GGUF stores shapes fastest dimension first, safetensors and
	 * PyTorch slowest first. */
	flip = (a->kind == QA_KIND_GGUF) != (b->kind == QA_KIND_GGUF);
	/* Renames: B's unpaired tensors by digest. */
	if (ca && cb) {
		ub = malloc((b->n_tensors + 1) * sizeof(*ub));
		if (!ub)
			goto nomem;
		for (i = 0; i < b->n_tensors; i++)
			if (pb[i] < 0 && digest_of(cb, i, &ub[n_ub].d)) {
				ub[n_ub].index = i;
				ub[n_ub].used = false;
				n_ub++;
			}
		qsort(ub, n_ub, sizeof(*ub), cmp_digest);
	}
	for (i = 0; i < a->n_tensors; i++) {
		const struct qa_tensor *ta = &a->tensors[i];
		struct qa_digest da, db;

		if (pa[i] < 0) {
			struct unpaired key, *hit = NULL;

			if (ub && digest_of(ca, i, &key.d)) {
				key.index = 0;
				hit = bsearch(&key, ub, n_ub, sizeof(*ub),
					      cmp_digest_only);
				/* bsearch may land on any equal digest: the
				 * first unused one of the run */
				if (hit) {
					while (hit > ub && hit[-1].d.hi ==
					       key.d.hi && hit[-1].d.lo ==
					       key.d.lo)
						hit--;
					while (hit < ub + n_ub && hit->used &&
					       hit->d.hi == key.d.hi &&
					       hit->d.lo == key.d.lo)
						hit++;
					if (hit == ub + n_ub || hit->used ||
					    hit->d.hi != key.d.hi ||
					    hit->d.lo != key.d.lo)
						hit = NULL;
				}
			}
			if (hit) {
				hit->used = true;
				pb[hit->index] = i;
				rc = add_tensor(d, &cap, QA_D_RENAMED, ta,
						&b->tensors[hit->index]);
			} else {
				rc = add_tensor(d, &cap, QA_D_REMOVED, ta, NULL);
			}
		} else {
			const struct qa_tensor *tb = &b->tensors[pa[i]];

			if (strcmp(ta->dtype, tb->dtype) != 0)
				rc = add_tensor(d, &cap, QA_D_RETYPED, ta, tb);
			else if (!same_shape(ta, tb, flip))
				rc = add_tensor(d, &cap, QA_D_RESHAPED, ta, tb);
			else if (digest_of(ca, i, &da) &&
				 digest_of(cb, (uint32_t)pa[i], &db) &&
				 (da.hi != db.hi || da.lo != db.lo))
				rc = add_tensor(d, &cap, QA_D_CHANGED, ta, tb);
			else
				d->same++;
		}
		if (rc != QA_OK)
			goto nomem;
	}
	for (i = 0; i < b->n_tensors; i++)
		if (pb[i] < 0 &&
		    add_tensor(d, &cap, QA_D_ADDED, NULL, &b->tensors[i]) !=
		    QA_OK)
			goto nomem;
	d->content = ca && cb;
	free(pa);
	free(pb);
	free(ub);
	return QA_OK;
nomem:
	free(pa);
	free(pb);
	free(ub);
	return QA_E_NOMEM;
}

/* ---- components, hyperparameters, metadata ----------------------------- */

/* The types of c by bytes, most first, joined with '+' ("Q4_K+Q6_K"):
 * a component that mixes types says so. */
static const char *
types_of(struct qa_arena *ar, const struct qa_component *c)
{
	bool used[64] = { false };
	char buf[256];
	size_t at = 0;
	uint32_t k, n;

	if (!c || c->n_dtypes == 0)
		return NULL;
	buf[0] = '\0';
	for (n = 0; n < c->n_dtypes && n < 64; n++) {
		uint32_t best = UINT32_MAX;

		for (k = 0; k < c->n_dtypes && k < 64; k++)
			if (!used[k] && (best == UINT32_MAX ||
					 c->dtypes[k].bytes >
					 c->dtypes[best].bytes))
				best = k;
		used[best] = true;
		if (at < sizeof(buf))
			at += (size_t)snprintf(buf + at, sizeof(buf) - at,
					       "%s%s", n ? "+" : "",
					       c->dtypes[best].dtype);
	}
	return qa_arena_strdup(ar, buf);
}

static int
compare_components(struct qa_diff *d)
{
	const struct qa_inventory *a = d->a, *b = d->b;
	size_t cap = (size_t)a->n_components + b->n_components + 1;
	uint32_t i, k;

	d->components = qa_arena_array(&d->arena, cap, sizeof(*d->components));
	if (!d->components)
		return QA_E_NOMEM;
	for (i = 0; i < a->n_components; i++) {
		struct qa_diff_component *c = &d->components[d->n_components++];

		c->name = a->components[i].name;
		c->a = &a->components[i];
		for (k = 0; k < b->n_components; k++)
			if (strcmp(b->components[k].name, c->name) == 0)
				c->b = &b->components[k];
	}
	for (k = 0; k < b->n_components; k++) {
		struct qa_diff_component *c;

		for (i = 0; i < a->n_components; i++)
			if (strcmp(a->components[i].name,
				   b->components[k].name) == 0)
				break;
		if (i < a->n_components)
			continue;
		c = &d->components[d->n_components++];
		c->name = b->components[k].name;
		c->b = &b->components[k];
	}
	for (i = 0; i < d->n_components; i++) {
		d->components[i].type_a = types_of(&d->arena,
						   d->components[i].a);
		d->components[i].type_b = types_of(&d->arena,
						   d->components[i].b);
	}
	return QA_OK;
}

static int
add_field(struct qa_diff *d, struct qa_diff_field **v, size_t *n, size_t *cap,
	  const char *name, const char *x, const char *y)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct qa_diff_field *nv = qa_arena_grow(&d->arena, *v, *cap,
							 nc, sizeof(*nv));

		if (!nv)
			return QA_E_NOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[*n].name = name;
	(*v)[*n].a = x;
	(*v)[*n].b = y;
	(*n)++;
	return QA_OK;
}

static int
compare_hparams(struct qa_diff *d)
{
	const struct qa_hparams *a = &d->a->hp, *b = &d->b->hp;
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
#define F(x) { #x, offsetof(struct qa_hparams, x) }
		F(n_layer), F(n_embd), F(n_head), F(n_head_kv),
		F(head_dim_k), F(head_dim_v), F(n_ff), F(n_vocab),
		F(n_ctx_train), F(n_expert), F(n_expert_used),
		F(n_expert_shared), F(n_ff_expert), F(n_leading_dense),
		F(sliding_window), F(q_lora_rank), F(kv_lora_rank),
		F(ssm_d_inner), F(ssm_d_state), F(n_mtp),
#undef F
	};
	size_t cap = 0, i;

	if ((a->arch || b->arch) &&
	    (!a->arch || !b->arch || strcmp(a->arch, b->arch) != 0) &&
	    add_field(d, &d->hparams, &d->n_hparams, &cap, "architecture",
		      a->arch, b->arch) != QA_OK)
		return QA_E_NOMEM;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		int64_t x, y;

		memcpy(&x, (const char *)a + fields[i].off, sizeof(x));
		memcpy(&y, (const char *)b + fields[i].off, sizeof(y));
		/* Only values both sides state: a GGUF and its checkpoint
		 * state different subsets. */
		if (x < 0 || y < 0 || x == y)
			continue;
		if (add_field(d, &d->hparams, &d->n_hparams, &cap,
			      fields[i].name,
			      qa_arena_printf(&d->arena, "%" PRId64, x),
			      qa_arena_printf(&d->arena, "%" PRId64, y)) !=
		    QA_OK)
			return QA_E_NOMEM;
	}
	return QA_OK;
}

/* Bytes per element of the packed form of an array of t. */
static size_t
elem_width(enum qa_value_type t)
{
	switch (t) {
	case QA_V_U8: case QA_V_I8: case QA_V_BOOL:
		return 1;
	case QA_V_U16: case QA_V_I16:
		return 2;
	case QA_V_U32: case QA_V_I32: case QA_V_F32:
		return 4;
	case QA_V_U64: case QA_V_I64: case QA_V_F64:
		return 8;
	default:
		return 0;
	}
}

static bool
same_value(const struct qa_value *x, const struct qa_value *y)
{
	uint64_t i;

	if (x->type != y->type)
		return false;
	switch (x->type) {
	case QA_V_STRING:
		return x->v.str.len == y->v.str.len &&
		       strcmp(x->v.str.s, y->v.str.s) == 0;
	case QA_V_F32:
	case QA_V_F64:
		return memcmp(&x->v.f, &y->v.f, sizeof(double)) == 0;
	case QA_V_ARRAY:
		if (x->v.arr.elem != y->v.arr.elem ||
		    x->v.arr.count != y->v.arr.count ||
		    x->v.arr.kept != y->v.arr.kept)
			return false;
		for (i = 0; i < x->v.arr.kept; i++) {
			struct qa_value a, b;

			if (elem_width(x->v.arr.elem) && x->v.arr.packed &&
			    y->v.arr.packed)
				return memcmp(x->v.arr.packed, y->v.arr.packed,
					      x->v.arr.kept *
					      elem_width(x->v.arr.elem)) == 0;
			if (!qa_value_item(x, i, &a) ||
			    !qa_value_item(y, i, &b))
				return true;	/* not kept: unknown */
			if (!same_value(&a, &b))
				return false;
		}
		return true;
	case QA_V_I8: case QA_V_I16: case QA_V_I32: case QA_V_I64:
		return x->v.i == y->v.i;
	default:
		return x->v.u == y->v.u;
	}
}

static const char *
value_text(struct qa_arena *ar, const struct qa_value *v)
{
	switch (v->type) {
	case QA_V_STRING:
		if (v->v.str.len > 60)
			return qa_arena_printf(ar, "\"%.57s...\" (%" PRIu64
					       " bytes)", v->v.str.s,
					       v->v.str.len);
		return qa_arena_printf(ar, "\"%s\"", v->v.str.s);
	case QA_V_F32:
	case QA_V_F64:
		return qa_arena_printf(ar, "%.9g", v->v.f);
	case QA_V_BOOL:
		return v->v.u ? "true" : "false";
	case QA_V_ARRAY:
		return qa_arena_printf(ar, "[%" PRIu64 " x %s]",
				       v->v.arr.count,
				       qa_value_type_name(v->v.arr.elem));
	case QA_V_I8: case QA_V_I16: case QA_V_I32: case QA_V_I64:
		return qa_arena_printf(ar, "%" PRId64, v->v.i);
	default:
		return qa_arena_printf(ar, "%" PRIu64, v->v.u);
	}
}

static bool
skipped_key(const char *k)
{
	/* Where a split set was cut says nothing about the model. */
	return strncmp(k, QA_GGUF_SPLIT_PREFIX,
		       sizeof(QA_GGUF_SPLIT_PREFIX) - 1) == 0;
}

static int
compare_metadata(struct qa_diff *d)
{
	const struct qa_inventory *a = d->a, *b = d->b;
	size_t cap = 0;
	uint32_t i;

	if (a->kind != QA_KIND_GGUF || b->kind != QA_KIND_GGUF)
		return QA_OK;
	d->metadata_compared = true;
	for (i = 0; i < a->n_kvs; i++) {
		const struct qa_kv *x = &a->kvs[i], *y;
		const char *tx, *ty;

		if (skipped_key(x->key) || qa_inv_kv(a, x->key) != x)
			continue;
		y = qa_inv_kv(b, x->key);
		if (y && same_value(&x->value, &y->value))
			continue;
		tx = value_text(&d->arena, &x->value);
		ty = y ? value_text(&d->arena, &y->value) : NULL;
		if (y && tx && ty && strcmp(tx, ty) == 0)
			ty = qa_arena_printf(&d->arena, "%s (other values)",
					     ty);
		if (add_field(d, &d->metadata, &d->n_metadata, &cap, x->key,
			      tx, ty) != QA_OK)
			return QA_E_NOMEM;
	}
	for (i = 0; i < b->n_kvs; i++) {
		const struct qa_kv *y = &b->kvs[i];

		if (skipped_key(y->key) || qa_inv_kv(b, y->key) != y ||
		    qa_inv_kv(a, y->key))
			continue;
		if (add_field(d, &d->metadata, &d->n_metadata, &cap, y->key,
			      NULL, value_text(&d->arena, &y->value)) !=
		    QA_OK)
			return QA_E_NOMEM;
	}
	return QA_OK;
}

int
qa_diff_run(const struct qa_inventory *a, const struct qa_inventory *b,
	    const struct qa_content *ca, const struct qa_content *cb,
	    struct qa_diff *out)
{
	memset(out, 0, sizeof(*out));
	qa_arena_init(&out->arena, 0);
	out->a = a;
	out->b = b;
	if (compare_tensors(out, ca, cb) != QA_OK ||
	    compare_components(out) != QA_OK ||
	    compare_hparams(out) != QA_OK ||
	    compare_metadata(out) != QA_OK ||
	    qa_prompt_compare(&out->arena, a, b, &out->prompt) != QA_OK)
		return QA_E_NOMEM;
	return QA_OK;
}

bool
qa_diff_differs(const struct qa_diff *d)
{
	return d->n_tensors > 0 || d->n_hparams > 0 || d->n_metadata > 0 ||
	       d->n_config > 0 || d->prompt.n_findings > 0;
}

/* ---- config.json -------------------------------------------------------- */

struct leaf {
	char *path;
	char *json;	/* compact JSON text of the value */
};

struct leaves {
	struct leaf *v;
	size_t n, cap;
	bool nomem;
};

static void
collect(struct leaves *l, const cJSON *x, const char *prefix)
{
	const cJSON *c;

	if (cJSON_IsObject(x) && x->child) {
		cJSON_ArrayForEach(c, x) {
			size_t n = strlen(prefix) + strlen(c->string ? c->string :
							   "") + 2;
			char *p = malloc(n);

			if (!p) {
				l->nomem = true;
				return;
			}
			snprintf(p, n, "%s%s%s", prefix, *prefix ? "." : "",
				 c->string ? c->string : "");
			collect(l, c, p);
			free(p);
		}
		return;
	}
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		struct leaf *nv = realloc(l->v, nc * sizeof(*nv));

		if (!nv) {
			l->nomem = true;
			return;
		}
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n].path = strdup(prefix);
	l->v[l->n].json = cJSON_PrintUnformatted(x);
	if (!l->v[l->n].path || !l->v[l->n].json) {
		free(l->v[l->n].path);
		free(l->v[l->n].json);
		l->nomem = true;
		return;
	}
	l->n++;
}

static int
cmp_leaf(const void *x, const void *y)
{
	return strcmp(((const struct leaf *)x)->path,
		      ((const struct leaf *)y)->path);
}

static void
leaves_free(struct leaves *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].json);
	}
	free(l->v);
}

int
qa_diff_config(struct qa_diff *d, const cJSON *a, const cJSON *b)
{
	struct leaves la = { 0 }, lb = { 0 };
	size_t i = 0, j = 0, cap = 0;
	int rc = QA_OK;

	collect(&la, a, "");
	collect(&lb, b, "");
	if (la.nomem || lb.nomem) {
		rc = QA_E_NOMEM;
		goto out;
	}
	if (la.n)
		qsort(la.v, la.n, sizeof(*la.v), cmp_leaf);
	if (lb.n)
		qsort(lb.v, lb.n, sizeof(*lb.v), cmp_leaf);
	d->config_compared = true;
	while (rc == QA_OK && (i < la.n || j < lb.n)) {
		int c = i == la.n ? 1 : j == lb.n ? -1 :
			strcmp(la.v[i].path, lb.v[j].path);
		const char *name, *x = NULL, *y = NULL;

		if (c == 0 && strcmp(la.v[i].json, lb.v[j].json) == 0) {
			i++;
			j++;
			continue;
		}
		name = c <= 0 ? la.v[i].path : lb.v[j].path;
		if (c <= 0)
			x = la.v[i].json;
		if (c >= 0)
			y = lb.v[j].json;
		name = qa_arena_strdup(&d->arena, name);
		x = x ? qa_arena_strdup(&d->arena, x) : NULL;
		y = y ? qa_arena_strdup(&d->arena, y) : NULL;
		if (!name ||
		    add_field(d, &d->config, &d->n_config, &cap, name, x, y) !=
		    QA_OK)
			rc = QA_E_NOMEM;
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
out:
	leaves_free(&la);
	leaves_free(&lb);
	return rc;
}

void
qa_diff_free(struct qa_diff *d)
{
	if (d)
		qa_arena_finish(&d->arena);
}
