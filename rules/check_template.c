/* SPDX-License-Identifier: MIT */
/*
 * Chat-template safety (QA6001-QA6004): Jinja chat templates that reach
 * Python internals, the server-side template injection class behind
 * CVE-2024-34359 ("Llama Drama", llama-cpp-python rendering GGUF
 * tokenizer.chat_template outside a sandbox), CVE-2026-5760 (SGLang) and
 * GHSA-46cm-pfwv-cgf8 (LiteLLM, tokenizer_config.json).
 *
 * Templates come from GGUF metadata (tokenizer.chat_template and the named
 * tokenizer.chat_template.<name>), and in Hugging Face folders from every
 * file transformers reads one from (formats/hf_side.c). Each is scanned
 * whole, NULs included, up to QA_TEMPLATE_SCAN_MAX bytes for all the
 * templates of a model together; what is left over is QA6004.
 *
 * Only template code is looked at ({{ }} and {% %} blocks, strings and
 * brace nesting as Jinja's lexer sees them; comments and raw blocks
 * skipped): text outside the tags is printed verbatim and can never
 * execute. Two layers:
 *
 * 1. Lexical: dunder and private identifiers, escape hatches (os.,
 *    popen, getattr, eval(...)), the |attr filter, dunder strings and
 *    fragments of them, \x5f-style escapes, %c formats.
 * 2. Evaluation: each block is parsed as Jinja parses it (its expression
 *    grammar and the statements that bind names: set, for, macro, with,
 *    set blocks) and evaluated over an abstract domain: every expression
 *    is a small set of constants it may take (strings, numbers, lists),
 *    plus "may be caller data" (messages, tools: not the model author's
 *    to choose) and "may be a value built from the template's own strings
 *    that could not be folded". The string operations Jinja offers are
 *    folded (~, +, *, %, slicing, join, replace, format, str.format,
 *    lower/upper/title, reverse, trim, tojson, list, first/last, map of a
 *    filter, dict() keys...); variables are followed through {% set %},
 *    namespaces, loops and macro parameters, by repeating the walk until
 *    no binding changes (flow- and scope-insensitive: a superset of what
 *    any run can see). Every place that turns a string into an attribute
 *    access is a sink: x[key], |attr(name), the attribute= and name
 *    arguments of map / select / selectattr / sort / groupby / sum /
 *    unique / min / max, and the fields of a str.format string. A dunder,
 *    a mangled private name or an internal attribute (mro, f_globals...)
 *    reaching a sink is reported, and so is a sink whose name the
 *    template computes from its own strings in a way the scanner cannot
 *    resolve: what cannot be scanned is flagged, not assumed harmless.
 *
 * Real templates (Llama 3.x, Qwen, Mistral, Gemma, DeepSeek, gpt-oss,
 * Phi) index with constant keys or caller data only, so they raise
 * nothing. One finding per template and rule lists the first few
 * indicators with their character positions.
 *
 * Bounds (the scan is linear in the template): at most MAX_PASSES walks;
 * a block of more than MAX_BLOCK_TOKENS tokens is checked lexically past
 * that point and reported (QA6004); folded strings longer than VAL_MAX,
 * and folding beyond the per-template memory budget, become "could not
 * be folded"; parser nesting deeper than MAX_DEPTH is reported as code
 * that cannot be scanned.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"
#include "analysis/jinja.h"
#include "core/hash.h"
#include "core/gguf_keys.h"

/* Templates larger than this are a denial-of-service risk for engines
 * that render the template on every request (the longest real ones are
 * about 20 KB). */
#define TEMPLATE_WARN_BYTES ((uint64_t)1 << 20)
/* Indicators quoted per finding; the rest are counted. */
#define MAX_NOTES 4

/* Python dunders used to walk from any object to os / builtins; a string
 * fragment of one of these is an obfuscation marker. */
static const char *const dunders[] = {
	"__class__", "__mro__", "__base__", "__bases__", "__subclasses__",
	"__globals__", "__builtins__", "__import__", "__init__",
	"__getattribute__", "__dict__", "__code__", "__func__", "__self__",
	"__module__", "__reduce__", "__reduce_ex__", "__loader__",
	"__spec__", "__getitem__", "__closure__", "__subclasshook__",
};

/* Bare names that build a dunder once wrapped in "__" strings. */
static const char *const core_names[] = {
	"class", "mro", "base", "bases", "subclasses", "globals",
	"builtins", "import", "init", "getattribute",
};

/* ---- notes ----------------------------------------------------------- */

struct notes {
	unsigned count;
	char text[MAX_NOTES][64];
	size_t pos[MAX_NOTES];
	unsigned kept;
};

static void note(struct notes *ns, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
note(struct notes *ns, size_t pos, const char *fmt, ...)
{
	va_list ap;
	unsigned i;
	char buf[64];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* the same indicator at the same place once (several walks) */
	for (i = 0; i < ns->kept; i++)
		if (ns->pos[i] == pos && strcmp(ns->text[i], buf) == 0)
			return;
	ns->count++;
	if (ns->kept < MAX_NOTES) {
		memcpy(ns->text[ns->kept], buf, sizeof(buf));
		ns->pos[ns->kept] = pos;
		ns->kept++;
	}
}

/* A proper prefix or suffix (3+ chars, with "__") of a known dunder. */
static bool
is_dunder_fragment(const char *s, size_t n)
{
	size_t i, k;

	if (n < 3 || !qa_jinja_find_bytes(s, n, "__", 2))
		return false;
	for (i = 0; i < sizeof(dunders) / sizeof(dunders[0]); i++) {
		k = strlen(dunders[i]);
		if (n >= k)
			continue;
		if (memcmp(dunders[i], s, n) == 0 ||
		    memcmp(dunders[i] + k - n, s, n) == 0)
			return true;
	}
	return false;
}

/* A printable, bounded copy of s for a note. */
static const char *
shown(const char *s, size_t n, char *buf, size_t cap)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 4 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (i < n && o + 4 <= cap) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

#define IN_LIST(s, n, list) qa_jinja_in_list((s), (n), (list), \
				    sizeof(list) / sizeof((list)[0]))

/* ---- the scan: what the interpreter's hooks collect ------------------- */

struct scan {
	struct notes internals;		/* QA6001 */
	struct notes obfuscation;	/* QA6002 */
	struct notes unscanned;		/* QA6004 */
	bool saw_dunder_marker;		/* a "__" string */
	size_t marker_pos;
	bool saw_core_name;		/* a 'class' / 'globals'... string */
	/* lexical state of the current block */
	struct qa_jinja_token prev1, prev2;
	const char *pending_call;	/* flagged if the next token is '(' */
	size_t pending_pos;
};

/* ---- lexical checks (every token, first walk) ------------------------ */


static void
check_value(struct scan *sc, const char *v, size_t n, bool built, size_t pos)
{
	char buf[QA_JINJA_MAX_LIT + 1];

	if (n > QA_JINJA_MAX_LIT)
		return;
	if (qa_jinja_is_dunder(v, n)) {
		memcpy(buf, v, n);
		buf[n] = '\0';
		if (built)
			note(&sc->obfuscation, pos, "'%s' built at run time",
			     buf);
		else
			note(&sc->internals, pos, "'%s' as an attribute name",
			     buf);
		return;
	}
	if (n == 2 && v[0] == '_' && v[1] == '_' && !sc->saw_dunder_marker) {
		sc->saw_dunder_marker = true;
		sc->marker_pos = pos;
	}
}

/* Identifier rules (QA6001 internals, QA6002 |attr and %c formats). */
static void
check_ident(struct scan *sc, const struct qa_jinja_token *k)
{
	static const char *const anywhere[] = {
		"getattr", "setattr", "delattr", "popen", "subprocess",
		"importlib",
	};
	static const char *const roots[] = {
		"os", "sys", "config", "request",
	};
	static const char *const calls[] = {
		"eval", "exec", "compile", "globals", "locals", "vars",
		"breakpoint",
	};
	char name[48], ctx[48];
	size_t n = k->n < sizeof(name) - 1 ? k->n : sizeof(name) - 1;
	bool after_dot = qa_jinja_tok_is(&sc->prev1, QA_JT_OP, ".");

	memcpy(name, k->s, n);
	name[n] = '\0';
	ctx[0] = '\0';
	if (after_dot && sc->prev2.kind == QA_JT_NAME) {
		size_t m = sc->prev2.n < sizeof(ctx) - 2 ? sc->prev2.n :
			   sizeof(ctx) - 2;

		memcpy(ctx, sc->prev2.s, m);
		ctx[m] = '.';
		ctx[m + 1] = '\0';
	}
	if (qa_jinja_is_dunder(k->s, k->n)) {
		note(&sc->internals, k->pos, "%s%s", ctx, name);
		return;
	}
	if (after_dot && k->s[0] == '_') {
		note(&sc->internals, k->pos, "private attribute %s%s", ctx,
		     name);
		return;
	}
	if (qa_jinja_tok_is(&sc->prev1, QA_JT_OP, "|") && qa_jinja_tok_is(k, QA_JT_NAME, "attr")) {
		note(&sc->obfuscation, k->pos, "|attr filter");
		return;
	}
	if (qa_jinja_tok_is(&sc->prev1, QA_JT_OP, "|") && qa_jinja_tok_is(k, QA_JT_NAME, "format") &&
	    sc->prev2.kind == QA_JT_STR && sc->prev2.pct_c) {
		note(&sc->obfuscation, k->pos, "%%c |format building a name");
		return;
	}
	if (IN_LIST(k->s, k->n, anywhere)) {
		note(&sc->internals, k->pos, "%s%s", ctx, name);
		return;
	}
	if (!after_dot && IN_LIST(k->s, k->n, roots)) {
		sc->pending_call = "root";
		sc->pending_pos = k->pos;
		return;
	}
	if ((!after_dot && IN_LIST(k->s, k->n, calls)) ||
	    (after_dot && (qa_jinja_tok_is(k, QA_JT_NAME, "mro") ||
			   qa_jinja_tok_is(k, QA_JT_NAME, "system")))) {
		sc->pending_call = "call";
		sc->pending_pos = k->pos;
	}
}

/* Resolves a pending "os." or "eval(" check against the next token. */
static void
check_pending(struct scan *sc, const struct qa_jinja_token *k)
{
	const char *what = sc->pending_call;
	const struct qa_jinja_token *id = &sc->prev1;
	char name[48];
	size_t n;

	sc->pending_call = NULL;
	if (!what || id->kind != QA_JT_NAME)
		return;
	n = id->n < sizeof(name) - 1 ? id->n : sizeof(name) - 1;
	memcpy(name, id->s, n);
	name[n] = '\0';
	if (strcmp(what, "root") == 0 && k && qa_jinja_tok_is(k, QA_JT_OP, "."))
		note(&sc->internals, sc->pending_pos, "%s.", name);
	else if (strcmp(what, "call") == 0 && k && qa_jinja_tok_is(k, QA_JT_OP, "("))
		note(&sc->internals, sc->pending_pos, "%s()", name);
}

static void
lexical(struct scan *sc, const struct qa_jinja_token *k)
{
	check_pending(sc, k);
	if (k->kind == QA_JT_NAME)
		check_ident(sc, k);
	if (k->kind == QA_JT_STR) {
		if (k->esc_underscore)
			note(&sc->obfuscation, k->pos,
			     "escape spelling '_' in a string");
		if (!k->lit_long)
			check_value(sc, k->lit, k->lit_len, k->esc_underscore,
				    k->pos);
		if (!k->lit_long && !qa_jinja_is_dunder(k->lit, k->lit_len) &&
		    is_dunder_fragment(k->lit, k->lit_len)) {
			char buf[QA_JINJA_MAX_LIT + 1];

			memcpy(buf, k->lit, k->lit_len);
			buf[k->lit_len] = '\0';
			note(&sc->obfuscation, k->pos,
			     "dunder fragment '%s'", buf);
		}
		if (!k->lit_long && IN_LIST(k->lit, k->lit_len, core_names))
			sc->saw_core_name = true;
	}
	sc->prev2 = sc->prev1;
	sc->prev1 = *k;
}

/* ---- sinks -------------------------------------------------------------- */

/* One attribute name (or dotted attribute path) that a sink turns into
 * getattr: dunders, private and internal attributes are reported. */
static void
check_attr_name(struct scan *sc, const char *s, size_t n, bool built,
		size_t pos, const char *what)
{
	char buf[48];
	size_t i = 0, j;
	bool whole = qa_jinja_is_dunder(s, n);

	while (i <= n) {
		for (j = i; j < n && s[j] != '.'; j++)
			;
		if (j > i) {
			const char *part = s + i;
			size_t pn = j - i;

			shown(part, pn, buf, sizeof(buf));
			if (qa_jinja_is_dunder(part, pn)) {
				/* a written dunder string was reported by
				 * the lexical checks already; one inside a
				 * str.format field is hidden in its string */
				if (built)
					note(&sc->obfuscation, pos,
					     "'%s' built at run time, for %s",
					     buf, what);
				else if (strstr(what, "str.format"))
					note(&sc->obfuscation, pos,
					     "'%s' reached by %s", buf, what);
				else if (!whole)
					note(&sc->internals, pos,
					     "'%s' in a name for %s", buf, what);
			} else if (part[0] == '_') {
				note(&sc->internals, pos,
				     "private attribute '%s' for %s", buf, what);
			} else if (qa_jinja_is_internal_attr(part, pn)) {
				note(&sc->internals, pos,
				     "internal attribute '%s' for %s", buf,
				     what);
			}
		}
		i = j + 1;
	}
}

/* A value used as an attribute name (|attr, attribute=, selectattr...). */
static void
sink_attr(struct scan *sc, const struct qa_jinja_val *v, size_t pos, const char *what)
{
	unsigned i;

	for (i = 0; i < v->n; i++) {
		const struct qa_jinja_cand *c = &v->c[i];

		if (c->kind == QA_JV_STR)
			check_attr_name(sc, c->s.p, c->s.n, c->built, pos, what);
		else if (c->kind == QA_JV_OBJ || c->kind == QA_JV_LIST)
			note(&sc->obfuscation, pos,
			     "an object as the name for %s", what);
	}
	if (v->opq)
		note(&sc->obfuscation, pos,
		     "name for %s computed at run time, not resolvable", what);
}

/* A subscript key: x[key] falls back to getattr(x, key) in Jinja. */
static void
sink_key(struct scan *sc, const struct qa_jinja_val *v, size_t pos)
{
	char buf[48];
	unsigned i;

	for (i = 0; i < v->n; i++) {
		const struct qa_jinja_cand *c = &v->c[i];

		if (c->kind == QA_JV_OBJ) {
			note(&sc->obfuscation, pos, "an object as a key");
			continue;
		}
		if (c->kind != QA_JV_STR)
			continue;
		shown(c->s.p, c->s.n, buf, sizeof(buf));
		if (qa_jinja_is_dunder(c->s.p, c->s.n)) {
			if (c->built)
				note(&sc->obfuscation, pos,
				     "'%s' built at run time, as a key", buf);
		} else if (qa_jinja_is_mangled(c->s.p, c->s.n)) {
			note(&sc->internals, pos, "private attribute '%s' as "
			     "a key", buf);
		} else if (qa_jinja_is_internal_attr(c->s.p, c->s.n)) {
			note(&sc->internals, pos, "internal attribute '%s' "
			     "as a key", buf);
		}
	}
	if (v->opq)
		note(&sc->obfuscation, pos,
		     "key computed at run time, not resolvable");
}

/* Folded strings that spell a dunder are obfuscation wherever they
 * appear; "__" alone is a marker. */
static void
note_built(struct scan *sc, const struct qa_jinja_val *v, size_t pos)
{
	unsigned i;

	for (i = 0; i < v->n; i++)
		if (v->c[i].kind == QA_JV_STR && v->c[i].built)
			check_value(sc, v->c[i].s.p, v->c[i].s.n, true, pos);
}

/* ---- findings ---------------------------------------------------------------- */

static void
report(struct qa_inventory *inv, unsigned code, const struct notes *ns,
       const char *what, const char *file, int64_t offset)
{
	char list[512];
	size_t n = 0;
	unsigned i;

	if (ns->count == 0)
		return;
	list[0] = '\0';
	for (i = 0; i < ns->kept; i++) {
		int w = snprintf(list + n, sizeof(list) - n, "%s%s at char %zu",
				 i ? ", " : "", ns->text[i], ns->pos[i]);

		if (w < 0 || (size_t)w >= sizeof(list) - n)
			break;
		n += (size_t)w;
	}
	if (ns->count > ns->kept)
		qa_inv_finding(inv, code, file, offset, NULL,
			       "%s: %s (and %u more)", what, list,
			       ns->count - ns->kept);
	else
		qa_inv_finding(inv, code, file, offset, NULL, "%s: %s", what,
			       list);
}

/* ---- hooks ---------------------------------------------------------------- */

/* Each token of the first walk; NULL ends a block (a pending "os." or
 * "eval(" check is resolved against nothing). */
static void
on_token(void *ctx, const struct qa_jinja_token *k)
{
	struct scan *sc = ctx;

	if (k) {
		lexical(sc, k);
		return;
	}
	if (sc->pending_call)
		check_pending(sc, NULL);
	memset(&sc->prev1, 0, sizeof(sc->prev1));
	memset(&sc->prev2, 0, sizeof(sc->prev2));
	sc->prev1.kind = sc->prev2.kind = QA_JT_END;
	sc->pending_call = NULL;
}

static void
on_value(void *ctx, enum qa_jinja_sink where, const struct qa_jinja_val *v,
	 size_t pos, const char *what)
{
	struct scan *sc = ctx;

	switch (where) {
	case QA_JINJA_SINK_ATTR:
		sink_attr(sc, v, pos, what);
		break;
	case QA_JINJA_SINK_KEY:
		sink_key(sc, v, pos);
		break;
	case QA_JINJA_SINK_BUILT:
		note_built(sc, v, pos);
		break;
	}
}

static void
on_name(void *ctx, const char *s, size_t n, bool built, size_t pos,
	const char *what)
{
	check_attr_name(ctx, s, n, built, pos, what);
}

/* The interpreter's events as indicators, in the words of the findings. */
static const struct {
	bool unscanned;		/* QA6004, else QA6002 */
	const char *text;
} event_notes[] = {
	[QA_JINJA_EV_FORMAT_COMPUTED] =
		{ false, "str.format string computed at run time" },
	[QA_JINJA_EV_ATTR_BY_MAP] = { false, "|attr through map()" },
	[QA_JINJA_EV_MAP_FILTER_COMPUTED] =
		{ false, "filter name for map() computed at run time" },
	[QA_JINJA_EV_UNPARSED] = { true, "code quantaudit cannot parse" },
	[QA_JINJA_EV_BLOCK_TOO_LONG] =
		{ true, "a block too long to evaluate" },
	[QA_JINJA_EV_FOLD_BOUND] =
		{ true, "folding stopped at its memory bound" },
};
_Static_assert(sizeof(event_notes) / sizeof(event_notes[0]) ==
	       QA_JINJA_EV_COUNT, "one note per interpreter event");

static void
on_event(void *ctx, enum qa_jinja_event ev, size_t pos)
{
	struct scan *sc = ctx;

	assert(ev < QA_JINJA_EV_COUNT && event_notes[ev].text);
	note(event_notes[ev].unscanned ? &sc->unscanned : &sc->obfuscation,
	     pos, "%s", event_notes[ev].text);
}

/*
 * Scans len bytes of one template and reports QA6001/QA6002/QA6004.
 * what names it in the message (QA_GGUF_TOKENIZER_CHAT_TEMPLATE), file/offset
 * locate it.
 */
static void
check_one(struct qa_inventory *inv, const char *text, size_t len,
	  const char *what, const char *file, int64_t offset)
{
	struct scan *sc = calloc(1, sizeof(*sc));
	struct qa_jinja_hooks hooks = {
		.ctx = sc, .token = on_token, .value = on_value,
		.name = on_name, .event = on_event,
	};
	struct qa_jinja *j = sc ? qa_jinja_create(text, len, &hooks) : NULL;

	if (!j) {
		free(sc);
		inv->out_of_memory = true;
		return;
	}
	qa_jinja_run(j);
	qa_jinja_destroy(j);
	if (sc->saw_dunder_marker && sc->saw_core_name)
		note(&sc->obfuscation, sc->marker_pos,
		     "'__' string joined to a bare dunder name");
	report(inv, QA6001, &sc->internals, what, file, offset);
	report(inv, QA6002, &sc->obfuscation, what, file, offset);
	if (sc->unscanned.count)
		report(inv, QA6004, &sc->unscanned, what, file, offset);
	free(sc);
}

/* Templates already scanned, by content (a tokenizer_config.json entry
 * that repeats chat_template.jinja is scanned once). */
struct seen {
	uint64_t *hash;
	uint32_t *index;
	size_t cap;
};

static uint64_t
hash_text(const char *s, uint64_t n)
{
	uint64_t h = qa_hash(s, (size_t)n);	/* keyed: core/hash.h */

	return h ? h : 1;
}

/* Whether template i has the text of an earlier one; remembers it. */
static bool
seen_before(const struct qa_inventory *inv, struct seen *st, uint32_t i)
{
	const struct qa_template *t = &inv->templates[i];
	uint64_t h = hash_text(t->text, t->len);
	size_t k;

	if (!st->hash)
		return false;
	for (k = h & (st->cap - 1); st->hash[k]; k = (k + 1) & (st->cap - 1)) {
		const struct qa_template *o = &inv->templates[st->index[k]];

		if (st->hash[k] == h && o->len == t->len &&
		    memcmp(o->text, t->text, t->len) == 0)
			return true;
	}
	st->hash[k] = h;
	st->index[k] = i;
	return false;
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	uint64_t budget = QA_TEMPLATE_SCAN_MAX;
	struct seen st = { NULL, NULL, 0 };
	uint32_t i;

	(void)opt;
	st.cap = 16;
	while (st.cap < (size_t)inv->n_templates * 2)
		st.cap *= 2;
	st.hash = calloc(st.cap, sizeof(*st.hash));
	st.index = calloc(st.cap, sizeof(*st.index));
	if (!st.hash || !st.index) {
		free(st.hash);
		free(st.index);
		st.hash = NULL;
		st.index = NULL;
	}
	for (i = 0; i < inv->n_templates; i++) {
		const struct qa_template *t = &inv->templates[i];
		uint64_t n;

		if (t->full_len > TEMPLATE_WARN_BYTES)
			qa_inv_finding(inv, QA6003, t->file, t->offset, NULL,
				       "%s is %llu bytes (more than 1 MiB)",
				       t->label,
				       (unsigned long long)t->full_len);
		if (!t->text) {
			qa_inv_finding(inv, QA6004, t->file, t->offset, NULL,
				       "%s (%llu bytes) could not be read, so "
				       "it is not scanned", t->label,
				       (unsigned long long)t->full_len);
			continue;
		}
		if (seen_before(inv, &st, i))
			continue;
		n = t->len < budget ? t->len : budget;
		/* a Go template (an Ollama template layer) is no Jinja:
		 * no Python object is reachable from it, and its own
		 * structure is formats/ollama.c's to check (QA1805) */
		if (t->go)
			continue;
		if (n)
			check_one(inv, t->text, (size_t)n, t->label, t->file,
				  t->offset);
		budget -= n;
		if (n < t->full_len)
			qa_inv_finding(inv, QA6004, t->file, t->offset, NULL,
				       "%s: only the first %llu of its %llu "
				       "bytes are scanned (templates are "
				       "scanned up to %llu bytes per model)",
				       t->label, (unsigned long long)n,
				       (unsigned long long)t->full_len,
				       (unsigned long long)QA_TEMPLATE_SCAN_MAX);
	}
	free(st.hash);
	free(st.index);
	/* A hand-built inventory may carry only the primary template. */
	if (inv->n_templates == 0 && inv->chat_template)
		check_one(inv, inv->chat_template, strlen(inv->chat_template),
			  "chat_template", NULL, -1);
}

const struct qa_check qa_check_template = { "template", run, true };

