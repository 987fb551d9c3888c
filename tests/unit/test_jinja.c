/* SPDX-License-Identifier: MIT */
/*
 * The Jinja abstract interpreter alone (src/analysis/jinja.h), without
 * the template rule: what reaches each hook for small templates whose
 * answer is worked out by hand from Jinja's semantics (jinja2/lexer.py,
 * parser.py, the |attr and subscript fallbacks of environment.py
 * getattr/getitem).
 *
 * 1. Sinks: a written key, a key folded from ~, a name carried by
 *    {% set %} into a later subscript (the second walk), |attr of a
 *    concatenation, map('attr', ...), a str.format field; each with its
 *    kind, its exact string, built or written, and its character offset.
 * 2. Tokens of the first walk, in order, and the end-of-block call.
 * 3. Text and {{ }} values of the last walk, in template order.
 * 4. Events: unparsable code, a computed str.format string.
 * 5. qa_jinja_bind: a caller's binding flows to a sink.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/jinja.h"
#include "harness.h"

#define MAX_SEEN 32

struct seen {
	char line[MAX_SEEN][96];	/* one per hook call */
	unsigned n;
};

#define ADD(ctx, ...) do { \
	struct seen *s_ = (ctx); \
	if (s_->n < MAX_SEEN) \
		snprintf(s_->line[s_->n++], sizeof(s_->line[0]), __VA_ARGS__); \
} while (0)

static void
on_token(void *ctx, const struct qa_jinja_token *k)
{
	static const char *const kinds[] = { "end", "name", "str", "num",
					     "op" };

	if (!k) {
		ADD(ctx, "tok /");
		return;
	}
	ADD(ctx, "tok %.*s@%zu %s", (int)k->n, k->s, k->pos,
	    kinds[k->kind]);
}

static void
on_value(void *ctx, enum qa_jinja_sink where, const struct qa_jinja_val *v,
	 size_t pos, const char *what)
{
	static const char *const sinks[] = { "attr", "key", "built" };
	char buf[64];
	unsigned i;

	for (i = 0; i < v->n; i++) {
		const struct qa_jinja_cand *c = &v->c[i];

		if (c->kind != QA_JV_STR)
			continue;
		snprintf(buf, sizeof(buf), "%s %s%s", sinks[where],
			 c->built ? "built " : "", what ? what : "-");
		ADD(ctx, "%.*s@%zu %s", (int)c->s.n, c->s.p, pos, buf);
	}
	if (v->opq)
		ADD(ctx, "opaque@%zu %s", pos, sinks[where]);
}

static void
on_name(void *ctx, const char *s, size_t n, bool built, size_t pos,
	const char *what)
{
	ADD(ctx, "name %.*s@%zu%s %s", (int)n, s, pos, built ? " built" : "",
	    what);
}

static void
on_event(void *ctx, enum qa_jinja_event ev, size_t pos)
{
	ADD(ctx, "event %d@%zu", (int)ev, pos);
}

static void
on_text(void *ctx, const char *s, size_t n, size_t pos)
{
	ADD(ctx, "text '%.*s'@%zu", (int)n, s, pos);
}

static void
on_print(void *ctx, const struct qa_jinja_val *v, size_t pos)
{
	if (v->n == 1 && v->c[0].kind == QA_JV_STR)
		ADD(ctx, "print '%.*s'@%zu", (int)v->c[0].s.n, v->c[0].s.p,
		    pos);
	else
		ADD(ctx, "print ?@%zu", pos);
}

/* Runs text with the hooks of mask ('k' token, 'v' value, 'n' name, 'e'
 * event, 't' text, 'p' print), optionally a binding first. */
static void
run(struct seen *s, const char *text, const char *mask, const char *bind,
    const char *bind_to)
{
	struct qa_jinja_hooks h = { .ctx = s };
	struct qa_jinja *j;

	memset(s, 0, sizeof(*s));
	if (strchr(mask, 'k'))
		h.token = on_token;
	if (strchr(mask, 'v'))
		h.value = on_value;
	if (strchr(mask, 'n'))
		h.name = on_name;
	if (strchr(mask, 'e'))
		h.event = on_event;
	if (strchr(mask, 't'))
		h.text = on_text;
	if (strchr(mask, 'p'))
		h.print = on_print;
	j = qa_jinja_create(text, strlen(text), &h);
	CHECK(j != NULL);
	if (!j)
		return;
	if (bind) {
		struct qa_jinja_val v = { .n = 1 };

		v.c[0].kind = QA_JV_STR;
		v.c[0].s.p = bind_to;
		v.c[0].s.n = strlen(bind_to);
		CHECK(qa_jinja_bind(j, bind, &v));
	}
	qa_jinja_run(j);
	qa_jinja_destroy(j);
}

/* The hook calls must be exactly want[0..n), in order. */
static void
expect(const char *name, const struct seen *s, const char *const *want,
       unsigned n)
{
	unsigned i;

	th_case = name;
	CHECK_EQ(s->n, n);
	for (i = 0; i < n && i < s->n; i++)
		CHECK_STR(s->line[i], want[i]);
	th_case = NULL;
}

#define EXPECT(name, s, ...) do { \
	static const char *const w_[] = { __VA_ARGS__ }; \
	expect(name, s, w_, sizeof(w_) / sizeof(w_[0])); \
} while (0)

int
main(void)
{
	struct seen s;

	/* 1. sinks. x['__class__']: the key is the written string, reported
	 * at the '[' (offset 4). */
	run(&s, "{{ x['__class__'] }}", "v", NULL, NULL);
	EXPECT("written key", &s, "__class__@4 key -");

	/* '__cl' ~ 'ass__' folds to one built string */
	run(&s, "{{ x['__cl' ~ 'ass__'] }}", "v", NULL, NULL);
	EXPECT("folded key", &s, "__class__@12 built built -", "__class__@4 key built -");

	/* a {% set %} name read later: the walk is repeated until the
	 * binding is known, and the sink sees its value */
	run(&s, "{% set n = 'mr' ~ 'o' %}{{ y[n] }}", "v", NULL, NULL);
	EXPECT("set then key", &s, "mro@16 built built -", "mro@28 key built -");

	/* |attr: the argument is an attribute name */
	run(&s, "{{ x|attr('a' ~ 'b') }}", "v", NULL, NULL);
	EXPECT("attr filter", &s, "ab@14 built built -", "ab@5 attr built |attr");

	/* map('attr', name): the attr filter by name */
	run(&s, "{{ xs|map('attr', 'f') }}", "ve", NULL, NULL);
	EXPECT("map attr", &s, "event 1@6", "f@6 attr map('attr')");

	/* a str.format field walks attributes of its argument */
	run(&s, "{{ '{0.__class__}'.format(x) }}", "n", NULL, NULL);
	EXPECT("format field", &s, "name __class__@19 a str.format field");

	/* 2. tokens of the first walk, and the end of each block */
	run(&s, "{{ a.b }}x{% if c %}", "k", NULL, NULL);
	EXPECT("tokens", &s, "tok a@3 name", "tok .@4 op", "tok b@5 name",
	       "tok /", "tok if@13 name", "tok c@16 name", "tok /");

	/* 3. text and values of the last walk */
	run(&s, "Hi {{ 'x' ~ 'y' }}!", "tp", NULL, NULL);
	EXPECT("text and print", &s, "text 'Hi '@0", "print 'xy'@5",
	       "text '!'@18");

	/* 4. events: code that does not parse; a computed format string */
	run(&s, "{{ ( }}", "e", NULL, NULL);
	EXPECT("unparsed", &s, "event 3@5");
	run(&s, "{{ (a ~ 'b').format(1) }}", "e", NULL, NULL);
	EXPECT("computed format", &s, "event 0@13");

	/* 5. a caller's binding reaches the sink as written */
	run(&s, "{{ o[k] }}", "v", "k", "__globals__");
	EXPECT("bound key", &s, "__globals__@4 key -");

	/* the Python attribute classes the sinks are judged by */
	CHECK(qa_jinja_is_dunder("__init__", 8));
	CHECK(!qa_jinja_is_dunder("____", 4));
	CHECK(qa_jinja_is_mangled("_Foo__bar", 9));
	CHECK(!qa_jinja_is_mangled("_foo", 4));
	CHECK(qa_jinja_is_internal_attr("f_globals", 9));
	CHECK(!qa_jinja_is_internal_attr("content", 7));
	return th_done("jinja");
}
