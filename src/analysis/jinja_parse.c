/* SPDX-License-Identifier: MIT */
/*
 * The Jinja interpreter's expression parser and evaluator (see jinja.h):
 * the token cursor, call arguments, names, globals, methods and
 * attributes, subscripts, filters and tests, and the precedence ladder
 * of Jinja's expression grammar (jinja2/parser.py parse_or ...
 * parse_primary), each evaluated as it is parsed. Sinks are reported
 * through jinja_value.c's hook calls.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QA_JINJA_INTERNAL
#include "analysis/jinja_int.h"

/* ---- tokens --------------------------------------------------------------- */

static const struct etok end_tok = { .kind = QA_JT_END };

const struct etok *
qa_jinja_peek(const struct qa_jinja *sc, size_t k)
{
	return sc->at + k < sc->n_toks ? &sc->toks[sc->at + k] : &end_tok;
}

bool
qa_jinja_etok_is(const struct etok *k, enum qa_jinja_tok_kind kind, const char *s)
{
	size_t n = strlen(s);

	return k->kind == kind && k->n == n && memcmp(k->s, s, n) == 0;
}

bool
qa_jinja_at_op(const struct qa_jinja *sc, const char *op)
{
	return qa_jinja_etok_is(qa_jinja_peek(sc, 0), QA_JT_OP, op);
}

bool
qa_jinja_at_name(const struct qa_jinja *sc, const char *name)
{
	return qa_jinja_etok_is(qa_jinja_peek(sc, 0), QA_JT_NAME, name);
}

void
qa_jinja_advance(struct qa_jinja *sc)
{
	if (sc->at < sc->n_toks)
		sc->at++;
}

bool
qa_jinja_accept_op(struct qa_jinja *sc, const char *op)
{
	if (!qa_jinja_at_op(sc, op))
		return false;
	qa_jinja_advance(sc);
	return true;
}

void
qa_jinja_parse_fail(struct qa_jinja *sc)
{
	if (!sc->parse_failed) {
		sc->parse_failed = true;
		sc->fail_pos = qa_jinja_peek(sc, 0)->kind == QA_JT_END ?
			       (sc->n_toks ? sc->toks[sc->n_toks - 1].pos : 0) :
			       qa_jinja_peek(sc, 0)->pos;
	}
}

bool
qa_jinja_expect_op(struct qa_jinja *sc, const char *op)
{
	if (qa_jinja_accept_op(sc, op))
		return true;
	qa_jinja_parse_fail(sc);
	return false;
}

bool
qa_jinja_is_keyword(const struct etok *k)
{
	static const char *const kw[] = {
		"and", "or", "not", "in", "is", "if", "else",
	};

	return k->kind == QA_JT_NAME && QA_JINJA_IN_LIST(k->s, k->n, kw);
}

/* ---- calls ------------------------------------------------------------------ */

static void p_unary(struct qa_jinja *sc, struct qa_jinja_val *out, bool with_filter);

static const struct qa_jinja_val *
kwarg(const struct call *cl, const char *name)
{
	unsigned i;

	for (i = 0; i < cl->n_kw; i++)
		if (strcmp(cl->kwname[i], name) == 0)
			return &cl->kw[i];
	return NULL;
}

/* Arguments after '(' up to and including ')'. */
static void
p_call_args(struct qa_jinja *sc, struct call *cl)
{
	memset(cl, 0, sizeof(*cl));
	qa_jinja_v_clear(&cl->rest);
	while (!qa_jinja_at_op(sc, ")") && qa_jinja_peek(sc, 0)->kind != QA_JT_END &&
	       !sc->parse_failed) {
		struct qa_jinja_val v;

		if (qa_jinja_accept_op(sc, "*")) {
			qa_jinja_accept_op(sc, "*");
			qa_jinja_p_expr(sc, &v);
			cl->extra = true;
			qa_jinja_v_join(&cl->rest, &v);
		} else if (qa_jinja_peek(sc, 0)->kind == QA_JT_NAME &&
			   qa_jinja_etok_is(qa_jinja_peek(sc, 1), QA_JT_OP, "=")) {
			const struct etok *k = qa_jinja_peek(sc, 0);

			qa_jinja_advance(sc);
			qa_jinja_advance(sc);
			qa_jinja_p_expr(sc, &v);
			if (cl->n_kw < MAX_ARGS && k->n < sizeof(cl->kwname[0])) {
				memcpy(cl->kwname[cl->n_kw], k->s, k->n);
				cl->kwname[cl->n_kw][k->n] = '\0';
				cl->kw[cl->n_kw++] = v;
			} else {
				cl->extra = true;
				qa_jinja_v_join(&cl->rest, &v);
			}
		} else {
			qa_jinja_p_expr(sc, &v);
			if (cl->n_pos < MAX_ARGS)
				cl->pos[cl->n_pos++] = v;
			else {
				cl->extra = true;
				qa_jinja_v_join(&cl->rest, &v);
			}
		}
		if (!qa_jinja_accept_op(sc, ","))
			break;
	}
	qa_jinja_expect_op(sc, ")");
}


/* ---- expressions ------------------------------------------------------------ */

/* The plain name an expression starts with ("ns" in ns.x, "l" in
 * l.append(...)): namespace attributes and mutations bind through it. */
struct base {
	const char *name;
	size_t n;
};

/* A value as one list item: a single constant, or an unknown. */
static void
make_item(const struct qa_jinja_val *v, struct qa_jinja_cand *it)
{
	if (v->n == 1 && !v->data && !v->opq && !v->lossy) {
		*it = v->c[0];
		return;
	}
	memset(it, 0, sizeof(*it));
	it->kind = QA_JV_UNK;
	it->opq = qa_jinja_has_str(v);
	it->data = !it->opq;
}

static void
v_obj(struct qa_jinja_val *v, int64_t what, const char *s, size_t n)
{
	qa_jinja_v_clear(v);
	v->n = 1;
	memset(&v->c[0], 0, sizeof(v->c[0]));
	v->c[0].kind = QA_JV_OBJ;
	v->c[0].num = what;
	v->c[0].s.p = s;
	v->c[0].s.n = n;
}

static bool
ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* A name read by the template. */
static void
name_value(struct qa_jinja *sc, const char *s, size_t n, struct qa_jinja_val *out)
{
	static const char *const globals[] = {
		"range", "dict", "lipsum", "cycler", "joiner", "namespace",
		"raise_exception", "strftime_now", "self", "caller",
		"varargs", "kwargs",
	};
	struct binding *b;
	struct macro *m;

	if ((n == 4 && (memcmp(s, "true", 4) == 0 ||
			memcmp(s, "True", 4) == 0))) {
		qa_jinja_v_kind(out, QA_JV_BOOL, 1);
		return;
	}
	if ((n == 5 && (memcmp(s, "false", 5) == 0 ||
			memcmp(s, "False", 5) == 0))) {
		qa_jinja_v_kind(out, QA_JV_BOOL, 0);
		return;
	}
	if (n == 4 && (memcmp(s, "none", 4) == 0 ||
		       memcmp(s, "None", 4) == 0)) {
		qa_jinja_v_kind(out, QA_JV_NONE, 0);
		return;
	}
	b = qa_jinja_env_find(sc, s, n);
	if (b) {
		*out = b->v;
		return;
	}
	m = qa_jinja_macro_find(sc, s, n);
	if (m) {
		v_obj(out, OBJ_MACRO, s, n);
		return;
	}
	if (n == 4 && memcmp(s, "loop", 4) == 0) {
		v_obj(out, OBJ_LOOP, NULL, 0);
		return;
	}
	/* the template's own objects, and the special tokens transformers
	 * passes from the model's tokenizer files (bos_token...): both
	 * the model author's to choose */
	if (QA_JINJA_IN_LIST(s, n, globals) || ends_with(s, n, "_token") ||
	    ends_with(s, n, "_tokens")) {
		qa_jinja_v_opq(out);
		return;
	}
	qa_jinja_v_data(out);
}

static void
macro_call(struct qa_jinja *sc, struct macro *m, const struct call *cl,
	   struct qa_jinja_val *out)
{
	unsigned i, k;

	for (i = 0; i < cl->n_pos && i < m->n_params; i++)
		qa_jinja_env_bind_str(sc, m->params[i], &cl->pos[i]);
	for (i = 0; i < cl->n_kw; i++)
		for (k = 0; k < m->n_params; k++)
			if (strcmp(m->params[k], cl->kwname[i]) == 0)
				qa_jinja_env_bind_str(sc, m->params[k], &cl->kw[i]);
	/* what a macro returns is the text it renders */
	qa_jinja_v_opq(out);
}

/* A global called by name: range, dict, cycler, joiner, namespace... */
static bool
global_call(struct qa_jinja *sc, const char *s, size_t n, const struct call *cl,
	    struct qa_jinja_val *out)
{
	struct qa_jinja_cand items[MAXL];
	unsigned i;

#define IS(str) (n == strlen(str) && memcmp(s, str, n) == 0)
	if (IS("range")) {
		int64_t a = 0, b, st = 1, x;
		uint32_t k = 0;
		const struct qa_jinja_val *v[3] = { NULL, NULL, NULL };

		qa_jinja_v_data(out);
		if (cl->extra || cl->n_kw || cl->n_pos == 0 || cl->n_pos > 3)
			return true;
		for (i = 0; i < cl->n_pos; i++) {
			v[i] = &cl->pos[i];
			if (v[i]->n != 1 || v[i]->data || v[i]->opq ||
			    v[i]->c[0].kind != QA_JV_NUM)
				return true;
		}
		if (cl->n_pos == 1) {
			b = v[0]->c[0].num;
		} else {
			a = v[0]->c[0].num;
			b = v[1]->c[0].num;
			if (cl->n_pos == 3)
				st = v[2]->c[0].num;
		}
		if (st == 0)
			return true;
		for (x = a; (st > 0 ? x < b : x > b) && k < MAXL; x += st)
			qa_jinja_num_cand(x, QA_JV_NUM, &items[k++]);
		if ((st > 0 ? x < b : x > b))
			return true;
		qa_jinja_v_clear(out);
		out->n = 1;
		qa_jinja_cand_list(sc, items, k, false, &out->c[0]);
		return true;
	}
	if (IS("dict")) {
		/* a dict lists, joins and iterates as its keys: dict(_=1)
		 * gives '_' without writing a string */
		if (cl->extra || cl->n_pos) {
			qa_jinja_v_unknown(out, NULL, cl);
			out->opq = true;
			return true;
		}
		for (i = 0; i < cl->n_kw; i++) {
			size_t kn = strlen(cl->kwname[i]);
			char *p = qa_jinja_new_str(sc, kn);

			if (!p) {
				qa_jinja_v_opq(out);
				return true;
			}
			memcpy(p, cl->kwname[i], kn);
			qa_jinja_cand_string(sc, p, kn, &items[i]);
		}
		qa_jinja_v_clear(out);
		out->n = 1;
		qa_jinja_cand_list(sc, items, cl->n_kw, true, &out->c[0]);
		out->c[0].built = true;
		for (i = 0; i < cl->n_kw; i++) {
			if (qa_jinja_has_str(&cl->kw[i]))
				out->c[0].opq = true;
			else
				out->c[0].data = true;
		}
		for (i = 0; i < cl->n_kw; i++) {
			struct qa_jinja_val kv;

			qa_jinja_v_str(&kv, items[i].s.p, items[i].s.n, true);
			qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, &kv, 0, NULL);
		}
		return true;
	}
	if (IS("cycler") || IS("joiner")) {
		uint32_t k = 0;

		if (IS("joiner")) {
			const struct qa_jinja_val *sep = cl->n_pos ? &cl->pos[0] :
						kwarg(cl, "sep");

			qa_jinja_cand_string(sc, "", 0, &items[k++]);
			if (sep)
				make_item(sep, &items[k++]);
			else
				qa_jinja_cand_string(sc, ", ", 2, &items[k++]);
		} else {
			for (i = 0; i < cl->n_pos && k < MAXL; i++)
				make_item(&cl->pos[i], &items[k++]);
		}
		v_obj(out, IS("joiner") ? OBJ_JOINER : OBJ_CYCLER, NULL, 0);
		{
			struct qa_jinja_cand lc;

			if (!qa_jinja_cand_list(sc, items, k, false, &lc)) {
				qa_jinja_v_opq(out);
			} else {
				out->c[0].items = lc.items;
				out->c[0].n_items = lc.n_items;
			}
		}
		if (cl->extra)
			out->opq = true;
		return true;
	}
	if (IS("namespace")) {
		struct nskw *ns = sc->nskw;

		for (i = 0; ns && i < cl->n_kw && ns->n < MAX_NSKW; i++) {
			memcpy(ns->name[ns->n], cl->kwname[i],
			       sizeof(ns->name[0]));
			ns->v[ns->n++] = cl->kw[i];
		}
		v_obj(out, OBJ_NS, NULL, 0);
		return true;
	}
	if (IS("lipsum") || IS("caller")) {
		qa_jinja_v_opq(out);
		return true;
	}
	if (IS("raise_exception")) {
		qa_jinja_v_data(out);
		return true;
	}
	if (IS("strftime_now")) {
		/* strftime passes text without '%' through */
		qa_jinja_v_unknown(out, NULL, cl);
		return true;
	}
#undef IS
	return false;
}

static void
value_call(struct qa_jinja *sc, const struct qa_jinja_val *callee, const struct call *cl,
	   struct qa_jinja_val *out)
{
	unsigned i;
	struct qa_jinja_val r;

	qa_jinja_v_clear(out);
	for (i = 0; i < callee->n; i++) {
		const struct qa_jinja_cand *c = &callee->c[i];
		struct macro *m;

		if (c->kind == QA_JV_OBJ && c->num == OBJ_JOINER) {
			struct qa_jinja_val it;
			struct qa_jinja_val self;

			qa_jinja_v_clear(&self);
			self.n = 1;
			self.c[0] = *c;
			self.c[0].kind = QA_JV_LIST;
			qa_jinja_items_of(sc, &self, &it);
			qa_jinja_v_join(out, &it);
			continue;
		}
		if (c->kind == QA_JV_OBJ && c->num == OBJ_MACRO &&
		    (m = qa_jinja_macro_find(sc, c->s.p, c->s.n)) != NULL) {
			macro_call(sc, m, cl, &r);
			qa_jinja_v_join(out, &r);
			continue;
		}
		qa_jinja_v_unknown(&r, NULL, cl);
		if (qa_jinja_cand_has_str(c))
			r.opq = true;
		qa_jinja_v_join(out, &r);
	}
	if (callee->data || callee->opq || callee->lossy) {
		qa_jinja_v_unknown(&r, NULL, cl);
		if (callee->opq || callee->lossy)
			r.opq = true;
		qa_jinja_v_join(out, &r);
	}
}

/* The fields of a str.format string that walk attributes or items
 * ({0.__class__}, {x[__globals__]}): each name is a sink, whatever the
 * arguments are. */
static void
format_sinks(struct qa_jinja *sc, const struct qa_jinja_val *self, size_t pos)
{
	unsigned i;
	size_t k;

	for (i = 0; i < self->n; i++) {
		const struct qa_jinja_cand *c = &self->c[i];

		if (c->kind != QA_JV_STR)
			continue;
		for (k = 0; k < c->s.n; k++) {
			size_t b;

			if (c->s.p[k] != '{')
				continue;
			if (k + 1 < c->s.n && c->s.p[k + 1] == '{') {
				k++;
				continue;
			}
			while (k < c->s.n && c->s.p[k] != '}' &&
			       c->s.p[k] != '!' && c->s.p[k] != ':') {
				if (c->s.p[k] != '.' && c->s.p[k] != '[') {
					k++;
					continue;
				}
				b = ++k;
				while (k < c->s.n && !strchr(".[]}!:",
							     c->s.p[k]))
					k++;
				if (k > b)
					qa_jinja_sink_name(sc, c->s.p + b, k - b,
							c->built, pos,
							"a str.format field");
			}
		}
	}
}

/* A method: self.name(args). */
static void
method_call(struct qa_jinja *sc, const struct qa_jinja_val *self, const char *name,
	    const struct base *b, const struct call *cl, size_t pos,
	    struct qa_jinja_val *out)
{
	static const char *const mutators[] = {
		"append", "extend", "insert", "pop", "remove", "clear",
		"update", "setdefault", "popitem", "sort", "reverse",
		"add", "discard",
	};
	struct qa_jinja_val r;
	unsigned i;
	bool done_obj = false;

	qa_jinja_v_clear(out);
	if (qa_jinja_is_name(name, "format") || qa_jinja_is_name(name, "format_map")) {
		if (sc->final && (self->opq || self->lossy))
			qa_jinja_event(sc, QA_JINJA_EV_FORMAT_COMPUTED, pos);
		format_sinks(sc, self, pos);
	}
	if (QA_JINJA_IN_LIST(name, strlen(name), mutators) && b->name) {
		/* l.append('__cla'): the list now holds what was passed */
		qa_jinja_v_unknown(&r, self, cl);
		if (qa_jinja_has_str(self))
			r.opq = true;
		qa_jinja_env_bind(sc, b->name, b->n, &r);
	}
	for (i = 0; i < self->n; i++) {
		const struct qa_jinja_cand *c = &self->c[i];

		if (c->kind != QA_JV_OBJ)
			continue;
		done_obj = true;
		if (c->num == OBJ_LOOP && qa_jinja_is_name(name, "cycle")) {
			unsigned k;

			for (k = 0; k < cl->n_pos; k++)
				qa_jinja_v_join(out, &cl->pos[k]);
			qa_jinja_v_join(out, &cl->rest);
		} else if (c->num == OBJ_CYCLER && (qa_jinja_is_name(name, "next") ||
						    qa_jinja_is_name(name, "current"))) {
			struct qa_jinja_val self1, it;

			qa_jinja_v_clear(&self1);
			self1.n = 1;
			self1.c[0] = *c;
			self1.c[0].kind = QA_JV_LIST;
			qa_jinja_items_of(sc, &self1, &it);
			qa_jinja_v_join(out, &it);
		} else if (c->num == OBJ_LOOP) {
			out->data = true;
		} else {
			out->opq = true;
		}
	}
	if (done_obj && self->n == 1 && !self->data && !self->opq)
		return;
	if (QA_JINJA_IN_LIST(name, strlen(name), mutators)) {
		qa_jinja_v_unknown(&r, self, cl);
		qa_jinja_v_join(out, &r);
		return;
	}
	qa_jinja_fold_call(sc, F_METHOD, name, self, cl, pos, &r);
	qa_jinja_v_join(out, &r);
}

static const char *const str_methods[] = {
	"capitalize", "casefold", "center", "count", "encode", "endswith",
	"expandtabs", "find", "format", "format_map", "index", "isalnum",
	"isalpha", "isascii", "isdecimal", "isdigit", "isidentifier",
	"islower", "isnumeric", "isprintable", "isspace", "istitle",
	"isupper", "join", "ljust", "lower", "lstrip", "maketrans",
	"partition", "removeprefix", "removesuffix", "replace", "rfind",
	"rindex", "rjust", "rpartition", "rsplit", "rstrip", "split",
	"splitlines", "startswith", "strip", "swapcase", "title",
	"translate", "upper", "zfill",
};

static const char *const list_methods[] = {
	"append", "clear", "copy", "count", "extend", "index", "insert",
	"pop", "remove", "reverse", "sort",
};

static const char *const dict_methods[] = {
	"clear", "copy", "fromkeys", "get", "items", "keys", "pop",
	"popitem", "setdefault", "update", "values",
};

/* self.name (not called). */
static void
attribute(struct qa_jinja *sc, const struct qa_jinja_val *self, const char *name,
	  size_t nn, const struct base *b, struct qa_jinja_val *out)
{
	static const char *const loop_attrs[] = {
		"index", "index0", "revindex", "revindex0", "first", "last",
		"length", "depth", "depth0", "previtem", "nextitem",
	};
	char key[128];
	struct binding *bind;
	unsigned i;

	if (b->name && qa_jinja_dotted(key, sizeof(key), b->name, b->n, name, nn)) {
		bind = qa_jinja_env_find(sc, key, strlen(key));
		if (bind) {
			*out = bind->v;
			return;
		}
	}
	qa_jinja_v_clear(out);
	out->data = self->data;
	out->opq = self->opq || self->lossy;
	for (i = 0; i < self->n; i++) {
		const struct qa_jinja_cand *c = &self->c[i];

		if (c->kind == QA_JV_OBJ && c->num == OBJ_LOOP &&
		    qa_jinja_in_list(name, nn, loop_attrs, sizeof(loop_attrs) /
			    sizeof(loop_attrs[0])))
			out->data = true;
		else if (c->kind == QA_JV_OBJ && c->num == OBJ_NS)
			out->data = true;
		else if (c->kind == QA_JV_OBJ && c->num == OBJ_CYCLER &&
			 nn == 7 && memcmp(name, "current", 7) == 0) {
			struct qa_jinja_val self1, it;

			qa_jinja_v_clear(&self1);
			self1.n = 1;
			self1.c[0] = *c;
			self1.c[0].kind = QA_JV_LIST;
			qa_jinja_items_of(sc, &self1, &it);
			qa_jinja_v_join(out, &it);
		} else if (c->kind == QA_JV_LIST && c->dict &&
			   !QA_JINJA_IN_LIST(name, nn, dict_methods) && name[0] != '_') {
			/* {"type": t}.type is the value of "type" */
			out->opq |= c->opq;
			out->data |= c->data;
		} else if ((c->kind == QA_JV_STR && !QA_JINJA_IN_LIST(name, nn, str_methods) &&
			    name[0] != '_') ||
			   (c->kind == QA_JV_LIST && !c->dict &&
			    !QA_JINJA_IN_LIST(name, nn, list_methods) && name[0] != '_') ||
			   c->kind == QA_JV_NUM || c->kind == QA_JV_BOOL ||
			   c->kind == QA_JV_NONE || c->kind == QA_JV_UNDEF) {
			/* no such attribute: undefined */
			struct qa_jinja_cand u;

			memset(&u, 0, sizeof(u));
			u.kind = QA_JV_UNDEF;
			qa_jinja_v_add(out, &u);
		} else if (c->kind == QA_JV_OBJ && c->num == OBJ_METHOD &&
			   name[0] != '_') {
			/* a bound method has no public attributes */
			struct qa_jinja_cand u;

			memset(&u, 0, sizeof(u));
			u.kind = QA_JV_UNDEF;
			qa_jinja_v_add(out, &u);
		} else if ((c->kind == QA_JV_STR || c->kind == QA_JV_LIST) &&
			   name[0] != '_') {
			/* 'abc'.upper, {}.items: a bound method */
			struct qa_jinja_cand m;

			memset(&m, 0, sizeof(m));
			m.kind = QA_JV_OBJ;
			m.num = OBJ_METHOD;
			qa_jinja_v_add(out, &m);
		} else if (c->kind == QA_JV_STR || c->kind == QA_JV_LIST ||
			   c->kind == QA_JV_OBJ)
			out->opq = true;
		else
			out->data = true;
	}
}

/* x[...]: an index (a sink) or a slice. */
static void
p_subscript(struct qa_jinja *sc, struct qa_jinja_val *self, struct qa_jinja_val *out)
{
	struct qa_jinja_val part[3];
	bool have[3] = { false, false, false };
	bool is_slice = false;
	size_t pos = qa_jinja_peek(sc, 0)->pos;
	unsigned i, j, k, l;
	int w = 0;

	qa_jinja_advance(sc);	/* '[' */
	for (i = 0; i < 3; i++)
		qa_jinja_v_clear(&part[i]);
	for (;;) {
		if (!qa_jinja_at_op(sc, ":") && !qa_jinja_at_op(sc, "]") && !qa_jinja_at_op(sc, ",")) {
			qa_jinja_p_expr(sc, &part[w]);
			have[w] = true;
		}
		if (qa_jinja_accept_op(sc, ":")) {
			is_slice = true;
			if (++w > 2) {
				qa_jinja_parse_fail(sc);
				break;
			}
			continue;
		}
		if (qa_jinja_accept_op(sc, ",")) {
			/* a tuple key: no attribute fallback */
			struct qa_jinja_val more;

			while (!qa_jinja_at_op(sc, "]") && qa_jinja_peek(sc, 0)->kind != QA_JT_END &&
			       !sc->parse_failed) {
				qa_jinja_p_expr(sc, &more);
				if (!qa_jinja_accept_op(sc, ","))
					break;
			}
			qa_jinja_expect_op(sc, "]");
			qa_jinja_v_unknown(out, self, NULL);
			return;
		}
		break;
	}
	qa_jinja_expect_op(sc, "]");
	qa_jinja_v_clear(out);
	if (!is_slice) {
		bool key_unknown = part[0].data || part[0].opq ||
				   part[0].lossy;

		qa_jinja_sink(sc, QA_JINJA_SINK_KEY, &part[0], pos, NULL);
		/* caller data indexed by anything is caller data */
		out->data = self->data;
		out->opq = self->opq || self->lossy;
		for (i = 0; i < self->n; i++) {
			bool s = qa_jinja_cand_has_str(&self->c[i]);

			if (self->c[i].kind == QA_JV_LIST && self->c[i].dict) {
				/* a dict's values: only what they may be */
				out->opq |= self->c[i].opq;
				out->data |= self->c[i].data;
				continue;
			}
			for (j = 0; j < part[0].n; j++) {
				struct qa_jinja_cand c;
				int got = qa_jinja_const_index(sc, &self->c[i],
						      &part[0].c[j], &c);

				if (got > 0)
					qa_jinja_v_add(out, &c);
				else if (got == 0 && s)
					out->opq = true;
				else if (got == 0)
					out->data = true;
			}
			if (key_unknown && s)
				out->opq = true;
			else if (key_unknown)
				out->data = true;
		}
		qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, out, pos, NULL);
		return;
	}
	/* slices: every choice of bounds (absent ones as None) */
	for (w = 0; w < 3; w++)
		if (!have[w])
			qa_jinja_v_kind(&part[w], QA_JV_NONE, 0);
	if (self->data)
		out->data = true;
	if (self->opq || self->lossy)
		out->opq = true;
	for (w = 0; w < 3; w++)
		if (part[w].data || part[w].opq || part[w].lossy)
			out->opq |= qa_jinja_has_str(self), out->data |= !qa_jinja_has_str(self);
	for (i = 0; i < self->n; i++)
		for (j = 0; j < part[0].n; j++)
			for (k = 0; k < part[1].n; k++)
				for (l = 0; l < part[2].n; l++) {
					struct qa_jinja_cand c;
					int got = qa_jinja_const_slice(sc, &self->c[i],
							      &part[0].c[j],
							      &part[1].c[k],
							      &part[2].c[l], &c);

					if (got > 0)
						qa_jinja_v_add(out, &c);
					else if (got == 0) {
						out->opq |= qa_jinja_cand_has_str(&self->c[i]);
						out->data |= !qa_jinja_cand_has_str(&self->c[i]);
					}
				}
	qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, out, pos, NULL);
}

/* Filters that walk attributes by name: their name arguments are sinks. */
static void
filter_sinks(struct qa_jinja *sc, const char *name, const struct call *cl,
	     size_t pos)
{
	static const char *const by_name[] = {
		"selectattr", "rejectattr", "sort", "groupby", "sum",
		"unique", "min", "max", "map", "join", "attr",
	};
	const struct qa_jinja_val *at = kwarg(cl, "attribute");
	char what[72];
	unsigned i;

	if (!sc->final)
		return;
	snprintf(what, sizeof(what), "|%s", name);
	if (at)
		qa_jinja_sink(sc, QA_JINJA_SINK_ATTR, at, pos, what);
	if (!QA_JINJA_IN_LIST(name, strlen(name), by_name))
		return;
	if (qa_jinja_is_name(name, "map")) {
		/* map('attr', name): the attr filter by name */
		if (cl->n_pos) {
			const struct qa_jinja_val *f = &cl->pos[0];

			for (i = 0; i < f->n; i++)
				if (f->c[i].kind == QA_JV_STR && f->c[i].s.n == 4 &&
				    memcmp(f->c[i].s.p, "attr", 4) == 0) {
					qa_jinja_event(sc, QA_JINJA_EV_ATTR_BY_MAP,
						       pos);
					if (cl->n_pos > 1)
						qa_jinja_sink(sc, QA_JINJA_SINK_ATTR, &cl->pos[1], pos,
							  "map('attr')");
				}
			if (f->opq)
				qa_jinja_event(sc,
					       QA_JINJA_EV_MAP_FILTER_COMPUTED,
					       pos);
		}
		return;
	}
	if (qa_jinja_is_name(name, "join"))
		return;
	for (i = 0; i < cl->n_pos; i++) {
		const struct qa_jinja_val *v = &cl->pos[i];
		unsigned k;
		bool strs = v->opq;

		for (k = 0; k < v->n; k++)
			strs |= v->c[k].kind == QA_JV_STR;
		/* selectattr('role', 'equalto', 'user'): only the first
		 * names an attribute */
		if ((qa_jinja_is_name(name, "selectattr") ||
		     qa_jinja_is_name(name, "rejectattr")) && i > 0)
			break;
		if (strs)
			qa_jinja_sink(sc, QA_JINJA_SINK_ATTR, v, pos, what);
	}
}

static void
p_filter(struct qa_jinja *sc, struct qa_jinja_val *v)
{
	static const char *const opaque[] = {
		"select", "reject", "selectattr", "rejectattr", "groupby",
		"batch", "slice", "sum", "dictsort", "indent",
		"truncate", "wordwrap", "urlize", "urlencode", "striptags",
		"xmlattr", "filesizeformat", "float", "round",
	};
	char name[64];
	size_t n = 0, pos;
	struct call *cl;
	struct qa_jinja_val r;

	qa_jinja_advance(sc);	/* '|' */
	if (qa_jinja_peek(sc, 0)->kind != QA_JT_NAME) {
		qa_jinja_parse_fail(sc);
		return;
	}
	pos = qa_jinja_peek(sc, 0)->pos;
	for (;;) {
		const struct etok *k = qa_jinja_peek(sc, 0);

		if (k->kind != QA_JT_NAME)
			break;
		if (n + k->n + 1 < sizeof(name)) {
			memcpy(name + n, k->s, k->n);
			n += k->n;
		}
		qa_jinja_advance(sc);
		if (!qa_jinja_at_op(sc, ".") || qa_jinja_peek(sc, 1)->kind != QA_JT_NAME)
			break;
		qa_jinja_advance(sc);
		if (n + 1 < sizeof(name))
			name[n++] = '.';
	}
	name[n] = '\0';
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		qa_jinja_v_opq(v);
		return;
	}
	if (qa_jinja_at_op(sc, "(")) {
		qa_jinja_advance(sc);
		p_call_args(sc, cl);
	}
	filter_sinks(sc, name, cl, pos);
	if (qa_jinja_is_name(name, "default") || qa_jinja_is_name(name, "d")) {
		if (cl->n_pos)
			qa_jinja_v_join(v, &cl->pos[0]);
		else {
			struct qa_jinja_val empty;

			qa_jinja_v_str(&empty, "", 0, false);
			qa_jinja_v_join(v, &empty);
		}
	} else if (qa_jinja_is_name(name, "attr")) {
		qa_jinja_v_opq(v);
	} else if (qa_jinja_is_name(name, "items")) {
		/* a dict's (key, value) pairs; of the values only what
		 * they may be */
		unsigned i;
		uint32_t k;

		qa_jinja_v_clear(&r);
		r.data = v->data;
		r.opq = v->opq || v->lossy;
		for (i = 0; i < v->n; i++) {
			const struct qa_jinja_cand *c = &v->c[i];
			struct qa_jinja_cand pairs[MAXL], two[2], lc;
			bool ok = c->kind == QA_JV_LIST && c->dict;

			for (k = 0; ok && k < c->n_items; k++) {
				two[0] = c->items[k];
				memset(&two[1], 0, sizeof(two[1]));
				two[1].kind = QA_JV_UNK;
				two[1].opq = c->opq;
				two[1].data = c->data || !c->opq;
				ok = qa_jinja_cand_list(sc, two, 2, false, &pairs[k]);
			}
			if (c->kind != QA_JV_UNK && !(c->kind == QA_JV_LIST && c->dict))
				continue;	/* not a mapping: an error */
			if (ok && qa_jinja_cand_list(sc, pairs, c->n_items, false, &lc))
				qa_jinja_v_add(&r, &lc);
			else if (qa_jinja_cand_has_str(c))
				r.opq = true;
			else
				r.data = true;
		}
		*v = r;
	} else if (qa_jinja_is_name(name, "min") || qa_jinja_is_name(name, "max") ||
		   qa_jinja_is_name(name, "random")) {
		if (cl->n_pos || cl->n_kw)
			qa_jinja_v_unknown(&r, v, cl);
		else
			qa_jinja_items_of(sc, v, &r);
		*v = r;
	} else if (qa_jinja_is_name(name, "map")) {
		/* map('lower'): the filter on every item */
		struct qa_jinja_val out;
		unsigned i;
		uint32_t k;

		qa_jinja_v_clear(&out);
		if (kwarg(cl, "attribute") || cl->n_pos == 0 || cl->extra ||
		    cl->pos[0].n != 1 || cl->pos[0].c[0].kind != QA_JV_STR ||
		    cl->pos[0].data || cl->pos[0].opq ||
		    cl->pos[0].c[0].s.n >= 32) {
			qa_jinja_v_unknown(&out, v, cl);
		} else {
			char fname[32];
			struct call *rest = calloc(1, sizeof(*rest));

			memcpy(fname, cl->pos[0].c[0].s.p, cl->pos[0].c[0].s.n);
			fname[cl->pos[0].c[0].s.n] = '\0';
			if (!rest) {
				qa_jinja_v_opq(&out);
			} else {
				memcpy(rest, cl, sizeof(*rest));
				rest->n_pos = cl->n_pos - 1;
				memmove(rest->pos, cl->pos + 1,
					rest->n_pos * sizeof(rest->pos[0]));
				out.data = v->data;
				out.opq = v->opq || v->lossy;
				for (i = 0; i < v->n; i++) {
					struct qa_jinja_cand tmp, items[MAXL], lc;
					const struct qa_jinja_cand *l;
					bool ok = qa_jinja_as_list(sc, &v->c[i], &tmp,
							  &l);

					for (k = 0; ok && k < l->n_items; k++) {
						struct qa_jinja_val one, got;

						qa_jinja_v_clear(&one);
						one.n = 1;
						one.c[0] = l->items[k];
						if (l->items[k].kind == QA_JV_UNK) {
							ok = false;
							break;
						}
						qa_jinja_fold_call(sc, F_FILTER, fname,
							  &one, rest, pos,
							  &got);
						make_item(&got, &items[k]);
					}
					if (ok && qa_jinja_cand_list(sc, items,
							    l->n_items, false,
							    &lc))
						qa_jinja_v_add(&out, &lc);
					else
						out.opq |= qa_jinja_cand_has_str(&v->c[i]),
						out.data |= !qa_jinja_cand_has_str(&v->c[i]);
				}
				free(rest);
			}
		}
		*v = out;
	} else if (QA_JINJA_IN_LIST(name, n, opaque)) {
		qa_jinja_v_unknown(&r, v, cl);
		*v = r;
	} else {
		qa_jinja_fold_call(sc, F_FILTER, name, v, cl, pos, &r);
		*v = r;
	}
	free(cl);
}

/* x is [not] test [arg]: a bool. */
static void
p_test(struct qa_jinja *sc, struct qa_jinja_val *v)
{
	struct qa_jinja_val arg;
	const struct etok *k;

	qa_jinja_advance(sc);	/* 'is' */
	if (qa_jinja_at_name(sc, "not"))
		qa_jinja_advance(sc);
	if (qa_jinja_peek(sc, 0)->kind != QA_JT_NAME) {
		qa_jinja_parse_fail(sc);
		return;
	}
	qa_jinja_advance(sc);
	while (qa_jinja_at_op(sc, ".") && qa_jinja_peek(sc, 1)->kind == QA_JT_NAME) {
		qa_jinja_advance(sc);
		qa_jinja_advance(sc);
	}
	k = qa_jinja_peek(sc, 0);
	if (qa_jinja_etok_is(k, QA_JT_OP, "(")) {
		struct call *cl = calloc(1, sizeof(*cl));

		qa_jinja_advance(sc);
		if (cl)
			p_call_args(sc, cl);
		else
			qa_jinja_parse_fail(sc);
		free(cl);
	} else if ((k->kind == QA_JT_NAME && !qa_jinja_is_keyword(k)) ||
		   k->kind == QA_JT_STR || k->kind == QA_JT_NUM ||
		   qa_jinja_etok_is(k, QA_JT_OP, "[") || qa_jinja_etok_is(k, QA_JT_OP, "{")) {
		/* divisibleby 3: one argument without parentheses */
		p_unary(sc, &arg, false);
	}
	qa_jinja_v_data(v);
}

/* '.', '[' and '(' after a primary. */
static void
p_postfix(struct qa_jinja *sc, struct qa_jinja_val *v, struct base *b)
{
	while (!sc->parse_failed) {
		if (qa_jinja_at_op(sc, ".")) {
			const struct etok *k = qa_jinja_peek(sc, 1);

			qa_jinja_advance(sc);
			qa_jinja_advance(sc);
			if (k->kind == QA_JT_NUM) {
				struct qa_jinja_val idx, r;

				if (k->num_known)
					qa_jinja_v_num(&idx, k->num);
				else
					qa_jinja_v_data(&idx);
				qa_jinja_v_clear(&r);
				for (unsigned i = 0; i < v->n; i++)
					for (unsigned j = 0; j < idx.n; j++) {
						struct qa_jinja_cand c;

						if (qa_jinja_const_index(sc, &v->c[i],
								&idx.c[j], &c) > 0)
							qa_jinja_v_add(&r, &c);
						else
							r.opq |= qa_jinja_cand_has_str(&v->c[i]);
					}
				r.data |= v->data;
				r.opq |= v->opq;
				*v = r;
				b->name = NULL;
				continue;
			}
			if (k->kind != QA_JT_NAME) {
				qa_jinja_parse_fail(sc);
				return;
			}
			if (qa_jinja_at_op(sc, "(")) {
				struct call *cl = calloc(1, sizeof(*cl));
				char name[48];
				struct qa_jinja_val r;
				size_t nn = k->n < sizeof(name) - 1 ? k->n :
					    sizeof(name) - 1;

				if (!cl) {
					qa_jinja_v_opq(v);
					return;
				}
				memcpy(name, k->s, nn);
				name[nn] = '\0';
				qa_jinja_advance(sc);
				p_call_args(sc, cl);
				method_call(sc, v, name, b, cl, k->pos, &r);
				*v = r;
				free(cl);
			} else {
				struct qa_jinja_val r;

				attribute(sc, v, k->s, k->n, b, &r);
				*v = r;
			}
			b->name = NULL;
			continue;
		}
		if (qa_jinja_at_op(sc, "[")) {
			struct qa_jinja_val r;

			p_subscript(sc, v, &r);
			*v = r;
			b->name = NULL;
			continue;
		}
		if (qa_jinja_at_op(sc, "(")) {
			struct call *cl = calloc(1, sizeof(*cl));
			struct qa_jinja_val r;

			if (!cl) {
				qa_jinja_v_opq(v);
				return;
			}
			qa_jinja_advance(sc);
			p_call_args(sc, cl);
			value_call(sc, v, cl, &r);
			*v = r;
			free(cl);
			b->name = NULL;
			continue;
		}
		break;
	}
}

/* '|' filters, 'is' tests and calls after them. */
void
qa_jinja_p_filters(struct qa_jinja *sc, struct qa_jinja_val *v)
{
	while (!sc->parse_failed) {
		if (qa_jinja_at_op(sc, "|"))
			p_filter(sc, v);
		else if (qa_jinja_at_name(sc, "is"))
			p_test(sc, v);
		else if (qa_jinja_at_op(sc, "(")) {
			struct call *cl = calloc(1, sizeof(*cl));
			struct qa_jinja_val r;

			if (!cl)
				return;
			qa_jinja_advance(sc);
			p_call_args(sc, cl);
			value_call(sc, v, cl, &r);
			*v = r;
			free(cl);
		} else {
			break;
		}
	}
}

/* ( ... ), [ ... ] and { ... } literals. */
static void
p_collection(struct qa_jinja *sc, struct qa_jinja_val *out, const char *close, bool dict)
{
	struct qa_jinja_cand items[MAXL];
	uint32_t n = 0;
	bool overflow = false, any_str = false, any_unk = false;
	bool vals_str = false, vals_data = false;
	struct qa_jinja_val v, value;

	qa_jinja_v_clear(out);
	while (!qa_jinja_at_op(sc, close) && qa_jinja_peek(sc, 0)->kind != QA_JT_END &&
	       !sc->parse_failed) {
		qa_jinja_p_expr(sc, &v);
		if (dict) {
			/* a dict is kept as its keys; of its values only
			 * what they may be */
			qa_jinja_expect_op(sc, ":");
			qa_jinja_p_expr(sc, &value);
			if (qa_jinja_has_str(&value))
				vals_str = true;
			else if (value.data || value.n)
				vals_data = true;
		}
		any_str |= qa_jinja_has_str(&v);
		if (n < MAXL)
			make_item(&v, &items[n++]);
		else
			overflow = true;
		any_unk |= items[n - 1].kind == QA_JV_UNK;
		if (!qa_jinja_accept_op(sc, ","))
			break;
	}
	qa_jinja_expect_op(sc, close);
	(void)any_unk;
	if (overflow || !qa_jinja_cand_list(sc, items, n, dict, &out->c[0])) {
		if (any_str || vals_str)
			out->opq = true;
		else
			out->data = true;
		return;
	}
	out->c[0].opq = vals_str;
	out->c[0].data = vals_data;
	out->n = 1;
}

static void
p_primary(struct qa_jinja *sc, struct qa_jinja_val *out, struct base *b)
{
	const struct etok *k = qa_jinja_peek(sc, 0);

	b->name = NULL;
	if (++sc->depth > MAX_DEPTH) {
		qa_jinja_parse_fail(sc);
		qa_jinja_v_opq(out);
		sc->depth--;
		return;
	}
	if (k->kind == QA_JT_STR) {
		/* adjacent literals are one string ('__cla' 'ss__') */
		struct qa_jinja_val piece;
		bool first = true;

		while (qa_jinja_peek(sc, 0)->kind == QA_JT_STR) {
			k = qa_jinja_peek(sc, 0);
			if (k->no_value)
				qa_jinja_v_opq(&piece);
			else
				qa_jinja_v_str(&piece, k->val.p, k->val.n, false);
			if (first)
				*out = piece;
			else {
				struct qa_jinja_val r;

				qa_jinja_v_binop(sc, B_CONCAT, out, &piece, &r);
				*out = r;
				qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, out, k->pos, NULL);
			}
			first = false;
			qa_jinja_advance(sc);
		}
	} else if (k->kind == QA_JT_NUM) {
		if (k->num_known)
			qa_jinja_v_num(out, k->num);
		else
			qa_jinja_v_data(out);
		qa_jinja_advance(sc);
	} else if (k->kind == QA_JT_NAME && !qa_jinja_is_keyword(k)) {
		qa_jinja_advance(sc);
		if (qa_jinja_at_op(sc, "(")) {
			struct call *cl = calloc(1, sizeof(*cl));
			struct macro *m;

			if (!cl) {
				qa_jinja_v_opq(out);
			} else {
				qa_jinja_advance(sc);
				p_call_args(sc, cl);
				if ((m = qa_jinja_macro_find(sc, k->s, k->n)) != NULL)
					macro_call(sc, m, cl, out);
				else if (!qa_jinja_env_find(sc, k->s, k->n) &&
					 global_call(sc, k->s, k->n, cl, out))
					;
				else {
					struct qa_jinja_val callee;

					name_value(sc, k->s, k->n, &callee);
					value_call(sc, &callee, cl, out);
				}
				free(cl);
			}
		} else {
			name_value(sc, k->s, k->n, out);
			b->name = k->s;
			b->n = k->n;
		}
	} else if (qa_jinja_etok_is(k, QA_JT_OP, "(")) {
		qa_jinja_advance(sc);
		if (qa_jinja_accept_op(sc, ")")) {
			qa_jinja_v_clear(out);
			out->n = 1;
			qa_jinja_cand_list(sc, NULL, 0, false, &out->c[0]);
		} else {
			struct qa_jinja_val first;

			qa_jinja_p_expr(sc, &first);
			if (qa_jinja_at_op(sc, ",")) {
				/* a tuple */
				struct qa_jinja_cand items[MAXL];
				uint32_t n = 0;
				bool s = qa_jinja_has_str(&first), over = false;

				make_item(&first, &items[n++]);
				while (qa_jinja_accept_op(sc, ",") && !qa_jinja_at_op(sc, ")") &&
				       !sc->parse_failed) {
					struct qa_jinja_val e;

					qa_jinja_p_expr(sc, &e);
					s |= qa_jinja_has_str(&e);
					if (n < MAXL)
						make_item(&e, &items[n++]);
					else
						over = true;
				}
				qa_jinja_expect_op(sc, ")");
				qa_jinja_v_clear(out);
				if (over || !qa_jinja_cand_list(sc, items, n, false,
						       &out->c[0])) {
					out->opq = s;
					out->data = !s;
				} else {
					out->n = 1;
				}
			} else {
				qa_jinja_expect_op(sc, ")");
				*out = first;
			}
		}
	} else if (qa_jinja_etok_is(k, QA_JT_OP, "[")) {
		qa_jinja_advance(sc);
		p_collection(sc, out, "]", false);
	} else if (qa_jinja_etok_is(k, QA_JT_OP, "{")) {
		qa_jinja_advance(sc);
		p_collection(sc, out, "}", true);
	} else {
		qa_jinja_parse_fail(sc);
		qa_jinja_v_opq(out);
	}
	sc->depth--;
}

static void
p_unary(struct qa_jinja *sc, struct qa_jinja_val *out, bool with_filter)
{
	struct base b = { NULL, 0 };

	if (++sc->depth > MAX_DEPTH) {
		qa_jinja_parse_fail(sc);
		qa_jinja_v_opq(out);
		sc->depth--;
		return;
	}
	if (qa_jinja_at_op(sc, "-") || qa_jinja_at_op(sc, "+")) {
		bool neg = qa_jinja_at_op(sc, "-");
		struct qa_jinja_val r;
		unsigned i;

		qa_jinja_advance(sc);
		p_unary(sc, out, false);
		qa_jinja_v_clear(&r);
		r.data = out->data;
		r.opq = out->opq || out->lossy;
		for (i = 0; i < out->n; i++) {
			struct qa_jinja_cand c = out->c[i];

			if ((c.kind == QA_JV_NUM || c.kind == QA_JV_BOOL) &&
			    c.num != INT64_MIN) {
				c.kind = QA_JV_NUM;
				c.num = neg ? -c.num : c.num;
				qa_jinja_v_add(&r, &c);
			} else if (qa_jinja_cand_has_str(&c)) {
				r.opq = true;
			}
		}
		*out = r;
	} else {
		p_primary(sc, out, &b);
		p_postfix(sc, out, &b);
	}
	if (with_filter)
		qa_jinja_p_filters(sc, out);
	sc->depth--;
}

static void
p_pow(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	struct qa_jinja_val r, t;

	p_unary(sc, out, true);
	while (qa_jinja_accept_op(sc, "**") && !sc->parse_failed) {
		p_unary(sc, &r, true);
		qa_jinja_v_binop(sc, B_POW, out, &r, &t);
		*out = t;
	}
}

static void
p_math2(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	struct qa_jinja_val r, t;
	size_t pos;

	p_pow(sc, out);
	for (;;) {
		enum binop op;

		pos = qa_jinja_peek(sc, 0)->pos;
		if (qa_jinja_at_op(sc, "*"))
			op = B_MUL;
		else if (qa_jinja_at_op(sc, "/"))
			op = B_DIV;
		else if (qa_jinja_at_op(sc, "//"))
			op = B_FDIV;
		else if (qa_jinja_at_op(sc, "%"))
			op = B_MOD;
		else
			break;
		qa_jinja_advance(sc);
		p_pow(sc, &r);
		qa_jinja_v_binop(sc, op, out, &r, &t);
		*out = t;
		qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, out, pos, NULL);
		if (sc->parse_failed)
			break;
	}
}

static void
p_concat(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	struct qa_jinja_val r, t;
	size_t pos;

	p_math2(sc, out);
	while (qa_jinja_at_op(sc, "~") && !sc->parse_failed) {
		pos = qa_jinja_peek(sc, 0)->pos;
		qa_jinja_advance(sc);
		p_math2(sc, &r);
		qa_jinja_v_binop(sc, B_CONCAT, out, &r, &t);
		*out = t;
		qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, out, pos, NULL);
	}
}

static void
p_math1(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	struct qa_jinja_val r, t;
	size_t pos;

	p_concat(sc, out);
	while ((qa_jinja_at_op(sc, "+") || qa_jinja_at_op(sc, "-")) && !sc->parse_failed) {
		enum binop op = qa_jinja_at_op(sc, "+") ? B_ADD : B_SUB;

		pos = qa_jinja_peek(sc, 0)->pos;
		qa_jinja_advance(sc);
		p_concat(sc, &r);
		qa_jinja_v_binop(sc, op, out, &r, &t);
		*out = t;
		qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, out, pos, NULL);
	}
}

static void
p_compare(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	static const char *const cmp[] = {
		"==", "!=", "<", "<=", ">", ">=",
	};
	struct qa_jinja_val r;
	bool any = false;

	p_math1(sc, out);
	for (;;) {
		const struct etok *k = qa_jinja_peek(sc, 0);

		if (k->kind == QA_JT_OP && QA_JINJA_IN_LIST(k->s, k->n, cmp)) {
			qa_jinja_advance(sc);
		} else if (qa_jinja_etok_is(k, QA_JT_NAME, "in")) {
			qa_jinja_advance(sc);
		} else if (qa_jinja_etok_is(k, QA_JT_NAME, "not") &&
			   qa_jinja_etok_is(qa_jinja_peek(sc, 1), QA_JT_NAME, "in")) {
			qa_jinja_advance(sc);
			qa_jinja_advance(sc);
		} else {
			break;
		}
		p_math1(sc, &r);
		any = true;
		if (sc->parse_failed)
			break;
	}
	if (any)
		qa_jinja_v_data(out);
}

static void
p_not(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	if (qa_jinja_at_name(sc, "not")) {
		if (++sc->depth > MAX_DEPTH) {
			qa_jinja_parse_fail(sc);
			qa_jinja_v_opq(out);
			sc->depth--;
			return;
		}
		qa_jinja_advance(sc);
		p_not(sc, out);
		qa_jinja_v_data(out);
		sc->depth--;
		return;
	}
	p_compare(sc, out);
}

static void
p_and(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	struct qa_jinja_val r;

	p_not(sc, out);
	while (qa_jinja_at_name(sc, "and") && !sc->parse_failed) {
		qa_jinja_advance(sc);
		p_not(sc, &r);
		qa_jinja_v_join(out, &r);
	}
}

void
qa_jinja_p_or(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	struct qa_jinja_val r;

	p_and(sc, out);
	while (qa_jinja_at_name(sc, "or") && !sc->parse_failed) {
		qa_jinja_advance(sc);
		p_and(sc, &r);
		qa_jinja_v_join(out, &r);
	}
}

/* An expression: a if c else b over the rest. */
void
qa_jinja_p_expr(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	struct qa_jinja_val c, e;

	if (++sc->depth > MAX_DEPTH) {
		qa_jinja_parse_fail(sc);
		qa_jinja_v_opq(out);
		sc->depth--;
		return;
	}
	qa_jinja_p_or(sc, out);
	while (qa_jinja_at_name(sc, "if") && !sc->parse_failed) {
		qa_jinja_advance(sc);
		qa_jinja_p_or(sc, &c);
		if (qa_jinja_at_name(sc, "else")) {
			qa_jinja_advance(sc);
			qa_jinja_p_or(sc, &e);
		} else {
			qa_jinja_v_kind(&e, QA_JV_UNDEF, 0);
		}
		qa_jinja_v_join(out, &e);
	}
	sc->depth--;
}

/* a, b, c (a tuple without parentheses, as set and for allow). */
void
qa_jinja_p_tuple_expr(struct qa_jinja *sc, struct qa_jinja_val *out)
{
	struct qa_jinja_cand items[MAXL];
	uint32_t n = 0;
	bool s, over = false;

	qa_jinja_p_expr(sc, out);
	if (!qa_jinja_at_op(sc, ","))
		return;
	s = qa_jinja_has_str(out);
	make_item(out, &items[n++]);
	while (qa_jinja_accept_op(sc, ",") && qa_jinja_peek(sc, 0)->kind != QA_JT_END &&
	       !sc->parse_failed) {
		struct qa_jinja_val e;

		qa_jinja_p_expr(sc, &e);
		s |= qa_jinja_has_str(&e);
		if (n < MAXL)
			make_item(&e, &items[n++]);
		else
			over = true;
	}
	qa_jinja_v_clear(out);
	if (over || !qa_jinja_cand_list(sc, items, n, false, &out->c[0])) {
		out->opq = s;
		out->data = !s;
	} else {
		out->n = 1;
	}
}

