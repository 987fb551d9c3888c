/* SPDX-License-Identifier: MIT */
/*
 * The Jinja interpreter's statements and walk (see jinja.h): set, for,
 * macro, with, set blocks and their captures; the walk over a
 * template's text and blocks; the passes repeated until no binding
 * changes; and the interpreter's public entry points.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QA_JINJA_INTERNAL
#include "analysis/jinja_int.h"

/* ---- statements --------------------------------------------------------------- */

#define MAX_TARGETS 8

struct targets {
	unsigned n;
	char name[MAX_TARGETS][128];
};

/* name, name.attr, (a, b): what set / for / with bind. */
static void
p_targets(struct qa_jinja *sc, struct targets *t)
{
	bool paren = qa_jinja_accept_op(sc, "(");

	t->n = 0;
	for (;;) {
		const struct etok *k = qa_jinja_peek(sc, 0);
		char buf[128];

		if (k->kind != QA_JT_NAME || qa_jinja_is_keyword(k)) {
			qa_jinja_parse_fail(sc);
			return;
		}
		qa_jinja_advance(sc);
		if (k->n >= sizeof(buf))
			return;
		memcpy(buf, k->s, k->n);
		buf[k->n] = '\0';
		if (qa_jinja_at_op(sc, ".") && qa_jinja_peek(sc, 1)->kind == QA_JT_NAME) {
			const struct etok *a = qa_jinja_peek(sc, 1);

			qa_jinja_advance(sc);
			qa_jinja_advance(sc);
			if (!qa_jinja_dotted(buf, sizeof(buf), k->s, k->n, a->s, a->n))
				return;
		}
		if (t->n < MAX_TARGETS)
			memcpy(t->name[t->n++], buf, sizeof(buf));
		if (!qa_jinja_accept_op(sc, ","))
			break;
	}
	if (paren)
		qa_jinja_expect_op(sc, ")");
}

/* Binds targets to v; several targets unpack it (each may be any
 * element). */
static void
bind_targets(struct qa_jinja *sc, const struct targets *t, const struct qa_jinja_val *v)
{
	unsigned i;

	if (t->n == 1) {
		qa_jinja_env_bind_str(sc, t->name[0], v);
		return;
	}
	{
		struct qa_jinja_val el;

		qa_jinja_items_of(sc, v, &el);
		for (i = 0; i < t->n; i++)
			qa_jinja_env_bind_str(sc, t->name[i], &el);
	}
}

/* namespace(k=v) bound to a name: the name's attributes. */
static void
bind_namespace(struct qa_jinja *sc, const struct targets *t, struct nskw *ns)
{
	unsigned i, k;
	char key[160];

	for (k = 0; k < t->n; k++)
		for (i = 0; i < ns->n; i++)
			if (qa_jinja_dotted(key, sizeof(key), t->name[k],
				   strlen(t->name[k]), ns->name[i],
				   strlen(ns->name[i])))
				qa_jinja_env_bind_str(sc, key, &ns->v[i]);
}

static void
capture_push(struct qa_jinja *sc, const struct targets *t, bool filtered)
{
	struct capture *c;
	unsigned i;

	/* a set-block inside another is a statement in the outer one */
	for (i = 0; i < sc->n_cap; i++)
		sc->cap[i].ctrl = true;
	if (sc->n_cap >= MAX_CAPTURE) {
		sc->cap_overflow = true;
		return;
	}
	c = &sc->cap[sc->n_cap++];
	memset(c, 0, sizeof(*c));
	c->target = NULL;
	if (t->n == 1) {
		c->target = qa_jinja_pool_alloc(&sc->pool, strlen(t->name[0]) + 1);
		if (c->target)
			memcpy(c->target, t->name[0], strlen(t->name[0]) + 1);
	}
	qa_jinja_v_str(&c->v, "", 0, true);
	qa_jinja_v_str(&c->stripped, "", 0, true);
	c->filtered = filtered;
}

static void
capture_pop(struct qa_jinja *sc, size_t pos)
{
	struct capture *c;
	struct qa_jinja_val v;

	if (sc->n_cap == 0) {
		if (sc->cap_overflow)
			sc->cap_overflow = false;
		return;
	}
	c = &sc->cap[--sc->n_cap];
	v = c->v;
	qa_jinja_v_join(&v, &c->stripped);
	if (c->ctrl || c->filtered)
		qa_jinja_v_opq(&v);
	qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, &v, pos, NULL);
	if (c->target)
		qa_jinja_env_bind_str(sc, c->target, &v);
}

/* Text (or a printed value) inside set-blocks. */
static void
capture_value(struct qa_jinja *sc, const struct qa_jinja_val *exact,
	      const struct qa_jinja_val *stripped)
{
	unsigned i;

	for (i = 0; i < sc->n_cap; i++) {
		struct capture *c = &sc->cap[i];
		struct qa_jinja_val r;

		qa_jinja_v_binop(sc, B_CONCAT, &c->v, exact, &r);
		c->v = r;
		qa_jinja_v_binop(sc, B_CONCAT, &c->stripped, stripped, &r);
		c->stripped = r;
	}
}

static void
capture_text(struct qa_jinja *sc, size_t from, size_t to)
{
	struct qa_jinja_val exact, stripped;
	size_t a = from, b = to;

	if (sc->final && sc->hooks.text && to > from)
		sc->hooks.text(sc->hooks.ctx, sc->t + from, to - from, from);
	if (sc->n_cap == 0 || to <= from)
		return;
	while (a < b && qa_jinja_py_space((unsigned char)sc->t[a]))
		a++;
	while (b > a && qa_jinja_py_space((unsigned char)sc->t[b - 1]))
		b--;
	qa_jinja_v_str(&exact, sc->t + from, to - from, true);
	qa_jinja_v_str(&stripped, sc->t + a, b - a, true);
	capture_value(sc, &exact, &stripped);
}

static void
p_macro(struct qa_jinja *sc)
{
	const struct etok *k = qa_jinja_peek(sc, 0);
	struct macro *m;
	size_t n;

	if (k->kind != QA_JT_NAME) {
		qa_jinja_parse_fail(sc);
		return;
	}
	qa_jinja_advance(sc);
	m = qa_jinja_macro_find(sc, k->s, k->n);
	if (!m) {
		m = qa_jinja_pool_alloc(&sc->envp, sizeof(*m));
		if (m)
			m->name = qa_jinja_pool_alloc(&sc->envp, k->n + 1);
		if (!m || !m->name)
			return;
		memcpy(m->name, k->s, k->n);
		m->name[k->n] = '\0';
		m->n_params = 0;
		m->next = sc->macros[qa_jinja_hash_name(k->s, k->n)];
		sc->macros[qa_jinja_hash_name(k->s, k->n)] = m;
		sc->env_changed = true;
	}
	if (!qa_jinja_expect_op(sc, "("))
		return;
	while (!qa_jinja_at_op(sc, ")") && qa_jinja_peek(sc, 0)->kind == QA_JT_NAME &&
	       !sc->parse_failed) {
		const struct etok *p = qa_jinja_peek(sc, 0);
		unsigned i;
		bool known = false;

		qa_jinja_advance(sc);
		for (i = 0; i < m->n_params && !known; i++)
			known = strlen(m->params[i]) == p->n &&
				memcmp(m->params[i], p->s, p->n) == 0;
		if (!known && m->n_params < MAX_PARAMS) {
			n = p->n;
			m->params[m->n_params] = qa_jinja_pool_alloc(&sc->envp, n + 1);
			if (m->params[m->n_params]) {
				memcpy(m->params[m->n_params], p->s, n);
				m->params[m->n_params][n] = '\0';
				m->n_params++;
			}
		}
		if (qa_jinja_accept_op(sc, "=")) {
			struct qa_jinja_val d;

			qa_jinja_p_expr(sc, &d);
			qa_jinja_env_bind(sc, p->s, p->n, &d);
		}
		if (!qa_jinja_accept_op(sc, ","))
			break;
	}
	qa_jinja_expect_op(sc, ")");
}

/* Skips the rest of a block that holds no code worth folding. */
static void
skip_rest(struct qa_jinja *sc)
{
	sc->at = sc->n_toks;
}

/* One {% %} statement. */
static void
stmt(struct qa_jinja *sc)
{
	static const char *const ends[] = {
		"else", "endif", "endfor", "endmacro", "endcall",
		"endfilter", "endwith", "endblock", "break", "continue",
		"endautoescape", "generation", "endgeneration", "endtrans",
		"pluralize", "trans", "endraw", "raw",
	};
	const struct etok *k = qa_jinja_peek(sc, 0);
	struct targets tg;
	struct qa_jinja_val v, d;
	struct nskw *ns;
	unsigned i;

	if (k->kind != QA_JT_NAME) {
		qa_jinja_parse_fail(sc);
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "endset")) {
		qa_jinja_advance(sc);
		capture_pop(sc, k->pos);
		return;
	}
	/* any other statement inside a set-block: the text is not folded */
	for (i = 0; i < sc->n_cap; i++)
		sc->cap[i].ctrl = true;
	if (QA_JINJA_IN_LIST(k->s, k->n, ends)) {
		skip_rest(sc);
		return;
	}
	qa_jinja_advance(sc);
	if (qa_jinja_etok_is(k, QA_JT_NAME, "set")) {
		p_targets(sc, &tg);
		if (sc->parse_failed)
			return;
		if (!qa_jinja_accept_op(sc, "=")) {
			/* {% set x %}...{% endset %}, maybe | filters */
			bool filtered = qa_jinja_at_op(sc, "|");

			qa_jinja_v_data(&v);
			qa_jinja_p_filters(sc, &v);
			capture_push(sc, &tg, filtered);
			return;
		}
		ns = calloc(1, sizeof(*ns));
		sc->nskw = ns;
		qa_jinja_p_tuple_expr(sc, &v);
		sc->nskw = NULL;
		bind_targets(sc, &tg, &v);
		if (ns && ns->n)
			bind_namespace(sc, &tg, ns);
		free(ns);
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "for")) {
		p_targets(sc, &tg);
		if (sc->parse_failed || !qa_jinja_at_name(sc, "in")) {
			qa_jinja_parse_fail(sc);
			return;
		}
		qa_jinja_advance(sc);
		qa_jinja_p_or(sc, &v);
		if (qa_jinja_at_op(sc, ",")) {
			/* for x in a, b */
			struct qa_jinja_val more;

			while (qa_jinja_accept_op(sc, ",") && !sc->parse_failed) {
				qa_jinja_p_or(sc, &more);
				qa_jinja_v_join(&v, &more);
			}
			qa_jinja_items_of(sc, &v, &d);
		} else {
			qa_jinja_items_of(sc, &v, &d);
		}
		bind_targets(sc, &tg, &d);
		if (qa_jinja_at_name(sc, "if")) {
			qa_jinja_advance(sc);
			qa_jinja_p_expr(sc, &v);
		}
		if (qa_jinja_at_name(sc, "recursive"))
			qa_jinja_advance(sc);
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "if") || qa_jinja_etok_is(k, QA_JT_NAME, "elif") ||
	    qa_jinja_etok_is(k, QA_JT_NAME, "do") || qa_jinja_etok_is(k, QA_JT_NAME, "autoescape")) {
		qa_jinja_p_tuple_expr(sc, &v);
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "macro")) {
		p_macro(sc);
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "call")) {
		if (qa_jinja_accept_op(sc, "(")) {
			while (qa_jinja_peek(sc, 0)->kind == QA_JT_NAME && !sc->parse_failed) {
				const struct etok *p = qa_jinja_peek(sc, 0);

				qa_jinja_advance(sc);
				qa_jinja_v_data(&d);
				if (qa_jinja_accept_op(sc, "="))
					qa_jinja_p_expr(sc, &d);
				qa_jinja_env_bind(sc, p->s, p->n, &d);
				if (!qa_jinja_accept_op(sc, ","))
					break;
			}
			qa_jinja_expect_op(sc, ")");
		}
		qa_jinja_p_expr(sc, &v);
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "filter")) {
		/* {% filter upper | replace('a', 'b') %} */
		qa_jinja_v_data(&v);
		sc->at--;
		sc->toks[sc->at].kind = QA_JT_OP;
		sc->toks[sc->at].s = "|";
		sc->toks[sc->at].n = 1;
		qa_jinja_p_filters(sc, &v);
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "with")) {
		while (qa_jinja_peek(sc, 0)->kind == QA_JT_NAME && !sc->parse_failed) {
			const struct etok *p = qa_jinja_peek(sc, 0);

			qa_jinja_advance(sc);
			if (!qa_jinja_expect_op(sc, "="))
				return;
			qa_jinja_p_expr(sc, &d);
			qa_jinja_env_bind(sc, p->s, p->n, &d);
			if (!qa_jinja_accept_op(sc, ","))
				break;
		}
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "include") || qa_jinja_etok_is(k, QA_JT_NAME, "extends") ||
	    qa_jinja_etok_is(k, QA_JT_NAME, "import") || qa_jinja_etok_is(k, QA_JT_NAME, "from")) {
		/* another template by name: no loader in the engines that
		 * render chat templates; the name is only evaluated */
		qa_jinja_p_expr(sc, &v);
		skip_rest(sc);
		return;
	}
	if (qa_jinja_etok_is(k, QA_JT_NAME, "block")) {
		skip_rest(sc);
		return;
	}
	/* an unknown statement: its arguments as expressions */
	if (qa_jinja_peek(sc, 0)->kind != QA_JT_END)
		qa_jinja_p_tuple_expr(sc, &v);
}

/* Evaluates the tokens of one block (sc->toks) as a print or a
 * statement. start/closer: offsets of the block's code and its closing
 * delimiter, to tell whitespace control (-%}) from a minus. */
static void
eval_block(struct qa_jinja *sc, bool print, size_t start, size_t closer)
{
	struct qa_jinja_val v;

	sc->at = 0;
	sc->depth = 0;
	sc->parse_failed = false;
	if (sc->n_toks && sc->toks[0].kind == QA_JT_OP &&
	    (qa_jinja_etok_is(&sc->toks[0], QA_JT_OP, "-") ||
	     qa_jinja_etok_is(&sc->toks[0], QA_JT_OP, "+")) && sc->toks[0].pos == start)
		sc->at = 1;
	if (sc->n_toks > sc->at &&
	    (qa_jinja_etok_is(&sc->toks[sc->n_toks - 1], QA_JT_OP, "-") ||
	     qa_jinja_etok_is(&sc->toks[sc->n_toks - 1], QA_JT_OP, "+")) &&
	    sc->toks[sc->n_toks - 1].pos + 1 == closer)
		sc->n_toks--;
	if (sc->at >= sc->n_toks)
		return;
	if (print) {
		qa_jinja_p_tuple_expr(sc, &v);
		if (sc->final && sc->hooks.print && !sc->parse_failed)
			sc->hooks.print(sc->hooks.ctx, &v, start);
		if (sc->n_cap) {
			struct qa_jinja_val s;

			qa_jinja_v_clear(&s);
			for (unsigned i = 0; i < v.n; i++) {
				struct qa_jinja_sv x;
				struct qa_jinja_cand c;

				if (qa_jinja_to_str(sc, &v.c[i], &x, 0) &&
				    qa_jinja_cand_string(sc, x.p, x.n, &c))
					qa_jinja_v_add(&s, &c);
				else
					s.opq = true;
			}
			s.data |= v.data;
			s.opq |= v.opq || v.lossy;
			capture_value(sc, &s, &s);
		}
	} else {
		stmt(sc);
	}
	if (!sc->parse_failed && sc->at < sc->n_toks)
		qa_jinja_parse_fail(sc);
	if (sc->parse_failed && sc->final)
		qa_jinja_event(sc, QA_JINJA_EV_UNPARSED, sc->fail_pos);
}

/* ---- the walk over a template -------------------------------------------- */

static const char *
find2(const char *t, size_t len, size_t from, const char *needle)
{
	size_t n = strlen(needle);

	if (from >= len)
		return NULL;
	return qa_jinja_find_bytes(t + from, len - from, needle, n);
}

/* Lexes and evaluates one block opened at t[i] ('{{' or '{%'); returns
 * the offset after it. */
static size_t
block(struct qa_jinja *sc, size_t i, bool print, bool *raw)
{
	size_t start = i + 2, end;
	bool truncated;

	end = qa_jinja_lex_block(sc, start, print ? '}' : '%', raw, &truncated);
	if (truncated && sc->final)
		qa_jinja_event(sc, QA_JINJA_EV_BLOCK_TOO_LONG, i);
	eval_block(sc, print, start, end >= 2 ? end - 2 : end);
	return end;
}

static void
walk(struct qa_jinja *sc)
{
	const char *t = sc->t;
	size_t len = sc->len, i = 0, text_from = 0;

	while (i + 1 < len) {
		const char *o = memchr(t + i, '{', len - i);
		bool raw = false;
		size_t j;

		if (!o || (size_t)(o - t) + 1 >= len)
			break;
		j = (size_t)(o - t);
		if (t[j + 1] != '#' && t[j + 1] != '{' && t[j + 1] != '%') {
			i = j + 1;
			continue;
		}
		capture_text(sc, text_from, j);
		switch (t[j + 1]) {
		case '#': {
			const char *e = find2(t, len, j + 2, "#}");

			i = e ? (size_t)(e - t) + 2 : len;
			break;
		}
		case '{':
			i = block(sc, j, true, &raw);
			break;
		default:
			i = block(sc, j, false, &raw);
			if (raw) {
				/* {% raw %}...{% endraw %} is literal text */
				const char *e = find2(t, len, i, "endraw");
				size_t k;

				if (!e) {
					capture_text(sc, i, len);
					i = len;
					break;
				}
				k = (size_t)(e - t);
				while (k > i && !(t[k] == '{' && k + 1 < len &&
						  t[k + 1] == '%'))
					k--;
				capture_text(sc, i, k > i ? k : (size_t)(e - t));
				i = k > i ? k : (size_t)(e - t) + 6;
			}
			break;
		}
		text_from = i;
	}
	capture_text(sc, text_from, len);
	while (sc->n_cap)
		capture_pop(sc, len);
}

/* Bindings still changing after the last walk may be anything. */
static void
widen(struct qa_jinja *sc)
{
	unsigned h;
	struct binding *b;

	for (h = 0; h < ENV_BUCKETS; h++)
		for (b = sc->env[h]; b; b = b->next)
			if (b->changed) {
				if (qa_jinja_has_str(&b->v))
					b->v.opq = true;
				else
					b->v.data = true;
			}
}

void
qa_jinja_run(struct qa_jinja *sc)
{
	unsigned pass, h;
	struct binding *b;

	for (pass = 0;; pass++) {
		sc->pass = pass;
		sc->lexical = pass == 0;
		sc->final = false;
		sc->env_changed = false;
		for (h = 0; h < ENV_BUCKETS; h++)
			for (b = sc->env[h]; b; b = b->next)
				b->changed = false;
		qa_jinja_pool_free(&sc->pool);
		sc->n_cap = 0;
		sc->cap_overflow = false;
		walk(sc);
		if (!sc->env_changed)
			break;
		if (pass + 1 >= QA_JINJA_MAX_PASSES) {
			widen(sc);
			break;
		}
	}
	sc->lexical = false;
	sc->final = true;
	qa_jinja_pool_free(&sc->pool);
	sc->n_cap = 0;
	sc->cap_overflow = false;
	walk(sc);
	if (sc->pool.hit)
		qa_jinja_event(sc, QA_JINJA_EV_FOLD_BOUND, 0);
}

struct qa_jinja *
qa_jinja_create(const char *text, size_t len,
		const struct qa_jinja_hooks *hooks)
{
	struct qa_jinja *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->t = text;
	sc->len = len;
	sc->pool.limit = len + POOL_EXTRA;
	sc->envp.limit = ENV_BYTES_MAX;
	if (hooks)
		sc->hooks = *hooks;
	return sc;
}

bool
qa_jinja_bind(struct qa_jinja *sc, const char *name,
	      const struct qa_jinja_val *v)
{
	qa_jinja_env_bind(sc, name, strlen(name), v);
	return qa_jinja_env_find(sc, name, strlen(name)) != NULL;
}

void
qa_jinja_destroy(struct qa_jinja *sc)
{
	if (!sc)
		return;
	qa_jinja_pool_free(&sc->pool);
	qa_jinja_pool_free(&sc->envp);
	free(sc->toks);
	free(sc);
}
