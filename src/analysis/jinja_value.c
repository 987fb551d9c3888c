/* SPDX-License-Identifier: MIT */
/*
 * The Jinja interpreter's ground floor (see jinja.h): characters and
 * Python attribute names, the folding pool (bump allocation with a
 * ceiling: failing means "could not be folded"), the abstract values and
 * their joins, the bindings the walks accumulate, and the hook calls
 * through which the last walk reports.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QA_JINJA_INTERNAL
#include "analysis/jinja_int.h"
#include "core/hash.h"

/* Attributes Jinja's sandbox calls internal besides the '_' ones
 * (jinja2/sandbox.py is_internal_attribute and UNSAFE_*_ATTRIBUTES), and
 * the frame and code walks they guard. */
static const char *const internal_attrs[] = {
	"mro", "func_globals", "func_code", "func_closure", "gi_frame",
	"gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await",
	"ag_frame", "ag_code", "f_globals", "f_locals", "f_builtins",
	"f_back", "f_code", "tb_frame", "tb_next", "co_code", "im_func",
	"im_self", "im_class",
};

bool
qa_jinja_is_internal_attr(const char *s, size_t n)
{
	return QA_JINJA_IN_LIST(s, n, internal_attrs);
}

/* ---- characters and names -------------------------------------------- */

bool
qa_jinja_is_ident_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool
qa_jinja_is_ident_char(char c)
{
	return qa_jinja_is_ident_start(c) || (c >= '0' && c <= '9');
}

bool
qa_jinja_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

/* memmem() is a GNU extension. */
const char *
qa_jinja_find_bytes(const char *h, size_t hn, const char *nd, size_t nn)
{
	size_t i;

	if (nn == 0 || hn < nn)
		return NULL;
	for (i = 0; i + nn <= hn; i++) {
		const char *p = memchr(h + i, nd[0], hn - nn + 1 - i);

		if (!p)
			return NULL;
		i = (size_t)(p - h);
		if (memcmp(p, nd, nn) == 0)
			return p;
	}
	return NULL;
}

/* "__x__" with at least one identifier character in the middle. */
bool
qa_jinja_is_dunder(const char *s, size_t n)
{
	size_t i;

	if (n < 5 || s[0] != '_' || s[1] != '_' || s[n - 1] != '_' ||
	    s[n - 2] != '_')
		return false;
	for (i = 0; i < n; i++)
		if (!qa_jinja_is_ident_char(s[i]))
			return false;
	for (i = 2; i < n - 2; i++)
		if (s[i] != '_')
			return true;
	return false;
}

/* "_Class__attr": a name-mangled private attribute. */
bool
qa_jinja_is_mangled(const char *s, size_t n)
{
	size_t i = 1;

	if (n < 4 || s[0] != '_' || !qa_jinja_is_ident_start(s[1]) || s[1] == '_')
		return false;
	while (i < n && qa_jinja_is_ident_char(s[i]) && s[i] != '_')
		i++;
	return i + 2 < n && s[i] == '_' && s[i + 1] == '_';
}


bool
qa_jinja_in_list(const char *s, size_t n, const char *const *list, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
			return true;
	return false;
}


/* ---- the folding pool ------------------------------------------------- */

void *
qa_jinja_pool_alloc(struct pool *p, size_t n)
{
	struct chunk *c = p->head;
	size_t cap;

	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (p->used + n > p->limit) {
		p->hit = true;
		return NULL;
	}
	if (!c || c->cap - c->used < n) {
		cap = n > ((size_t)64 << 10) ? n : ((size_t)64 << 10);
		c = malloc(sizeof(*c) + cap);
		if (!c) {
			p->hit = true;
			return NULL;
		}
		c->next = p->head;
		c->used = 0;
		c->cap = cap;
		p->head = c;
	}
	c->used += n;
	p->used += n;
	assert(c->used <= c->cap && p->used <= p->limit);
	return c->data + c->used - n;
}

/* Gives back the unused end of the last allocation (p, cap bytes asked,
 * used bytes kept): strings are built in a VAL_MAX buffer first. */
void
qa_jinja_pool_trim(struct pool *p, const void *ptr, size_t cap, size_t used)
{
	struct chunk *c = p->head;
	size_t a = (cap + 15) & ~(size_t)15, b = (used + 15) & ~(size_t)15;

	if (!c || !ptr || b >= a || c->used < a ||
	    (const unsigned char *)ptr != c->data + c->used - a)
		return;
	if (b == 0)
		b = 16;
	c->used -= a - b;
	p->used -= a - b;
}

void
qa_jinja_pool_free(struct pool *p)
{
	struct chunk *c = p->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	p->head = NULL;
	p->used = 0;
	p->hit = false;
}

struct qa_jinja;

void
qa_jinja_v_clear(struct qa_jinja_val *v)
{
	v->n = 0;
	v->data = v->opq = v->lossy = false;
}

void
qa_jinja_v_data(struct qa_jinja_val *v)
{
	qa_jinja_v_clear(v);
	v->data = true;
}

void
qa_jinja_v_opq(struct qa_jinja_val *v)
{
	qa_jinja_v_clear(v);
	v->opq = true;
}

bool
qa_jinja_cand_has_str(const struct qa_jinja_cand *c)
{
	uint32_t i;

	if (c->kind == QA_JV_STR || c->kind == QA_JV_OBJ)
		return true;
	if (c->kind == QA_JV_UNK)
		return c->opq;
	if (c->kind != QA_JV_LIST)
		return false;
	for (i = 0; i < c->n_items; i++)
		if (qa_jinja_cand_has_str(&c->items[i]))
			return true;
	return false;
}

/* Whether any part of v comes from the template's strings. */
bool
qa_jinja_has_str(const struct qa_jinja_val *v)
{
	unsigned i;

	if (v->opq || v->lossy)
		return true;
	for (i = 0; i < v->n; i++)
		if (qa_jinja_cand_has_str(&v->c[i]))
			return true;
	return false;
}

static bool
cand_eq(const struct qa_jinja_cand *a, const struct qa_jinja_cand *b)
{
	uint32_t i;

	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case QA_JV_LIST:
		if (a->dict != b->dict || a->n_items != b->n_items ||
		    a->data != b->data || a->opq != b->opq)
			return false;
		for (i = 0; i < a->n_items; i++)
			if (!cand_eq(&a->items[i], &b->items[i]))
				return false;
		return true;
	case QA_JV_UNK:
		return a->data == b->data && a->opq == b->opq;
	case QA_JV_STR:
		return a->s.n == b->s.n && memcmp(a->s.p, b->s.p, a->s.n) == 0;
	case QA_JV_NUM:
	case QA_JV_BOOL:
		return a->num == b->num;
	case QA_JV_NONE:
	case QA_JV_UNDEF:
		return true;
	case QA_JV_OBJ:
		if (a->num != b->num || a->s.n != b->s.n ||
		    (a->s.n && memcmp(a->s.p, b->s.p, a->s.n) != 0) ||
		    a->n_items != b->n_items)
			return false;
		for (i = 0; i < a->n_items; i++)
			if (!cand_eq(&a->items[i], &b->items[i]))
				return false;
		return true;
	default:
		return false;
	}
}

/* A string is safe as an attribute name: no dunder, no private or
 * internal attribute, whichever way it is split at dots. */
static bool
name_safe(const char *s, size_t n)
{
	size_t i = 0, j;

	if (n == 0)
		return true;
	if (s[0] == '_' || qa_jinja_find_bytes(s, n, "__", 2))
		return false;
	while (i <= n) {
		for (j = i; j < n && s[j] != '.'; j++)
			;
		if (j > i && (s[i] == '_' || QA_JINJA_IN_LIST(s + i, j - i,
						     internal_attrs)))
			return false;
		i = j + 1;
	}
	return true;
}

static bool
cand_name_safe(const struct qa_jinja_cand *c)
{
	uint32_t i;

	if (c->kind == QA_JV_STR)
		return name_safe(c->s.p, c->s.n);
	if (c->kind == QA_JV_UNK)
		return !c->opq;
	if (c->kind == QA_JV_OBJ)
		return false;
	if (c->kind == QA_JV_LIST) {
		for (i = 0; i < c->n_items; i++)
			if (!cand_name_safe(&c->items[i]))
				return false;
	}
	return true;
}

/* Adds a candidate to v (unless already there); when v is full the
 * candidate is dropped: lossy if it is safe as a name, else v may be
 * anything the template built. */
void
qa_jinja_v_add(struct qa_jinja_val *v, const struct qa_jinja_cand *c)
{
	unsigned i;

	if (c->kind == QA_JV_UNK) {
		v->data |= c->data;
		v->opq |= c->opq;
		return;
	}
	for (i = 0; i < v->n; i++)
		if (cand_eq(&v->c[i], c)) {
			v->c[i].built |= c->built;
			return;
		}
	if (v->n < QA_JINJA_MAXC) {
		v->c[v->n++] = *c;
		return;
	}
	if (cand_name_safe(c))
		v->lossy = true;
	else
		v->opq = true;
}

void
qa_jinja_v_join(struct qa_jinja_val *a, const struct qa_jinja_val *b)
{
	unsigned i;

	a->data |= b->data;
	a->opq |= b->opq;
	a->lossy |= b->lossy;
	for (i = 0; i < b->n; i++)
		qa_jinja_v_add(a, &b->c[i]);
}

void
qa_jinja_v_str(struct qa_jinja_val *v, const char *p, size_t n, bool built)
{
	qa_jinja_v_clear(v);
	v->n = 1;
	memset(&v->c[0], 0, sizeof(v->c[0]));
	v->c[0].kind = QA_JV_STR;
	v->c[0].s.p = p;
	v->c[0].s.n = n;
	v->c[0].built = built;
}

void
qa_jinja_v_num(struct qa_jinja_val *v, int64_t x)
{
	qa_jinja_v_clear(v);
	v->n = 1;
	memset(&v->c[0], 0, sizeof(v->c[0]));
	v->c[0].kind = QA_JV_NUM;
	v->c[0].num = x;
}

void
qa_jinja_v_kind(struct qa_jinja_val *v, enum qa_jinja_kind k, int64_t x)
{
	qa_jinja_v_num(v, x);
	v->c[0].kind = (uint8_t)k;
}

/* The result of an operation on unknowns: caller data stays data unless
 * the template's strings are mixed in (then the template chose part of
 * the result: not folded). */
void
qa_jinja_v_mix(struct qa_jinja_val *out, const struct qa_jinja_val *a, const struct qa_jinja_val *b)
{
	bool s = qa_jinja_has_str(a) || (b && qa_jinja_has_str(b));
	bool d = a->data || (b && b->data);

	if (a->opq || (b && b->opq) || a->lossy || (b && b->lossy))
		out->opq = true;
	if (d) {
		if (s)
			out->opq = true;
		else
			out->data = true;
	}
}

/* ---- bindings ----------------------------------------------------------- */

/* Keyed (core/hash.h): the names are the template's. */
unsigned
qa_jinja_hash_name(const char *s, size_t n)
{
	return (unsigned)(qa_hash(s, n) % ENV_BUCKETS);
}

struct binding *
qa_jinja_env_find(struct qa_jinja *sc, const char *name, size_t n)
{
	struct binding *b;

	for (b = sc->env[qa_jinja_hash_name(name, n)]; b; b = b->next)
		if (strlen(b->name) == n && memcmp(b->name, name, n) == 0)
			return b;
	return NULL;
}

/* A copy of c whose strings and items live in env storage; false when
 * that storage is full. */
static bool
cand_keep(struct qa_jinja *sc, const struct qa_jinja_cand *c, struct qa_jinja_cand *out, int depth)
{
	uint32_t i;

	*out = *c;
	if (c->kind == QA_JV_STR && c->s.n) {
		char *p = qa_jinja_pool_alloc(&sc->envp, c->s.n);

		if (!p)
			return false;
		memcpy(p, c->s.p, c->s.n);
		out->s.p = p;
	}
	if ((c->kind == QA_JV_LIST || c->kind == QA_JV_OBJ) && c->n_items) {
		if (depth > 4)
			return false;
		out->items = qa_jinja_pool_alloc(&sc->envp,
					c->n_items * sizeof(*out->items));
		if (!out->items)
			return false;
		for (i = 0; i < c->n_items; i++)
			if (!cand_keep(sc, &c->items[i], &out->items[i],
				       depth + 1))
				return false;
	}
	return true;
}

/* Joins v into the binding name (created when new). */
void
qa_jinja_env_bind(struct qa_jinja *sc, const char *name, size_t n, const struct qa_jinja_val *v)
{
	struct binding *b = qa_jinja_env_find(sc, name, n);
	unsigned i, before_n;
	bool before_d, before_o, before_l;

	if (!b) {
		b = qa_jinja_pool_alloc(&sc->envp, sizeof(*b));
		if (b)
			b->name = qa_jinja_pool_alloc(&sc->envp, n + 1);
		if (!b || !b->name) {
			/* storage full: the name reads as unknown */
			return;
		}
		memcpy(b->name, name, n);
		b->name[n] = '\0';
		qa_jinja_v_clear(&b->v);
		b->changed = false;
		b->next = sc->env[qa_jinja_hash_name(name, n)];
		sc->env[qa_jinja_hash_name(name, n)] = b;
		sc->env_changed = true;
		b->changed = true;
	}
	before_n = b->v.n;
	before_d = b->v.data;
	before_o = b->v.opq;
	before_l = b->v.lossy;
	b->v.data |= v->data;
	b->v.opq |= v->opq;
	b->v.lossy |= v->lossy;
	for (i = 0; i < v->n; i++) {
		struct qa_jinja_cand kept;
		unsigned j;
		bool dup = false;

		for (j = 0; j < b->v.n && !dup; j++)
			dup = cand_eq(&b->v.c[j], &v->c[i]);
		if (dup)
			continue;
		if (b->v.n < QA_JINJA_MAXC && cand_keep(sc, &v->c[i], &kept, 0))
			qa_jinja_v_add(&b->v, &kept);
		else if (cand_name_safe(&v->c[i]) && b->v.n >= QA_JINJA_MAXC)
			b->v.lossy = true;
		else
			b->v.opq = true;
	}
	if (b->v.n != before_n || b->v.data != before_d ||
	    b->v.opq != before_o || b->v.lossy != before_l) {
		sc->env_changed = true;
		b->changed = true;
	}
}

void
qa_jinja_env_bind_str(struct qa_jinja *sc, const char *name, const struct qa_jinja_val *v)
{
	qa_jinja_env_bind(sc, name, strlen(name), v);
}

/* "base.attr" for namespace attributes; false when too long. */
bool
qa_jinja_dotted(char *buf, size_t cap, const char *a, size_t an, const char *b,
       size_t bn)
{
	if (an + bn + 2 > cap)
		return false;
	memcpy(buf, a, an);
	buf[an] = '.';
	memcpy(buf + an + 1, b, bn);
	buf[an + bn + 1] = '\0';
	return true;
}

struct macro *
qa_jinja_macro_find(struct qa_jinja *sc, const char *name, size_t n)
{
	struct macro *m;

	for (m = sc->macros[qa_jinja_hash_name(name, n)]; m; m = m->next)
		if (strlen(m->name) == n && memcmp(m->name, name, n) == 0)
			return m;
	return NULL;
}

/* ---- hooks: what the last walk reports ---------------------------------- */

void
qa_jinja_sink(struct qa_jinja *sc, enum qa_jinja_sink where,
	      const struct qa_jinja_val *v, size_t pos, const char *what)
{
	if (sc->final && sc->hooks.value)
		sc->hooks.value(sc->hooks.ctx, where, v, pos, what);
}

void
qa_jinja_sink_name(struct qa_jinja *sc, const char *s, size_t n, bool built,
		   size_t pos, const char *what)
{
	if (sc->final && sc->hooks.name)
		sc->hooks.name(sc->hooks.ctx, s, n, built, pos, what);
}

void
qa_jinja_event(struct qa_jinja *sc, enum qa_jinja_event ev, size_t pos)
{
	assert(ev < QA_JINJA_EV_COUNT);
	if (sc->hooks.event)
		sc->hooks.event(sc->hooks.ctx, ev, pos);
}
