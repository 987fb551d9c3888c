/* SPDX-License-Identifier: MIT */
/*
 * Chat-template safety (QA6001-QA6003): Jinja chat templates that reach
 * Python internals, the server-side template injection class behind
 * CVE-2024-34359 ("Llama Drama", llama-cpp-python rendering GGUF
 * tokenizer.chat_template outside a sandbox), CVE-2026-5760 (SGLang) and
 * GHSA-46cm-pfwv-cgf8 (LiteLLM, tokenizer_config.json).
 *
 * Templates come from GGUF metadata (tokenizer.chat_template and the named
 * tokenizer.chat_template.<name>), and in Hugging Face folders from
 * chat_template.jinja or tokenizer_config.json (a string, or a list of
 * named templates, every one of them scanned). The scanner lexes only the
 * code of a template ({{ }} and {% %} blocks, strings and brace nesting as
 * Jinja's lexer sees them; comments and raw blocks skipped): text outside
 * the tags is printed verbatim and can never execute. Within code it flags
 * dunder attributes, private attributes, the |attr filter, known escape
 * hatches (os., popen, getattr, eval(...)), and names built at run time
 * (string concatenation with ~ or +, "_" * 2, list |join, \x5f escapes,
 * %c formats). Real templates (Llama 3.x, Qwen, Mistral, Gemma, DeepSeek,
 * Phi) use none of these; `namespace(...)`, `cycler` or `loop.cycle` alone
 * are not flagged. One finding per template and rule lists the first few
 * indicators with their character positions.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"

/* Templates larger than this are a denial-of-service risk for engines
 * that render the template on every request (the longest real ones are
 * about 20 KB). */
#define TEMPLATE_WARN_BYTES ((uint64_t)1 << 20)
/* Folded strings longer than this cannot be an attribute name we know. */
#define MAX_LIT 64
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

enum tok_kind { T_IDENT, T_STR, T_NUM, T_OP, T_NONE };

struct tok {
	enum tok_kind kind;
	size_t pos;		/* offset in the template */
	const char *s;		/* identifier / number / operator text */
	size_t n;
	char lit[MAX_LIT + 1];	/* decoded string literal (T_STR) */
	size_t lit_len;
	bool lit_long;		/* decoded string longer than MAX_LIT */
	bool esc_underscore;	/* an escape decoding to '_' */
	bool pct_c;		/* contains %c */
};

struct notes {
	unsigned count;
	size_t first;
	char text[MAX_NOTES][48];
	size_t pos[MAX_NOTES];
	unsigned kept;
};

/* String folding: 'a' ~ 'b', 'a' + 'b', '_' * 2, and ['a','b']|join. */
struct fold {
	bool active;		/* a chain is being built */
	bool want_operand;	/* after ~ or + */
	bool want_count;	/* after * */
	bool built;		/* more than one piece, repeat or escape */
	bool too_long;
	size_t pos;
	char acc[MAX_LIT + 1];
	size_t len;
};

struct listjoin {
	int state;		/* 0 none, 1 in [ after elem-or-[, 2 want , or ], 3 after ], 4 after | */
	bool any_escape;
	size_t pos;
	char acc[MAX_LIT + 1];
	size_t len;
	bool too_long;
};

struct scan {
	const char *t;
	size_t len;
	struct notes internals;		/* QA6001 */
	struct notes obfuscation;	/* QA6002 */
	bool saw_dunder_marker;		/* a "__" string */
	size_t marker_pos;
	bool saw_core_name;		/* a 'class' / 'globals'... string */
	struct tok prev1, prev2;	/* previous tokens of the block */
	struct fold fold;
	struct listjoin lj;
	const char *pending_call;	/* flagged if the next token is '(' */
	size_t pending_pos;
};

static void note(struct notes *ns, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
note(struct notes *ns, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (ns->count == 0)
		ns->first = pos;
	ns->count++;
	if (ns->kept < MAX_NOTES) {
		va_start(ap, fmt);
		vsnprintf(ns->text[ns->kept], sizeof(ns->text[0]), fmt, ap);
		va_end(ap);
		ns->pos[ns->kept] = pos;
		ns->kept++;
	}
}

static bool
is_ident_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool
is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static bool
tok_is(const struct tok *k, enum tok_kind kind, const char *s)
{
	return k->kind == kind && k->n == strlen(s) &&
	       memcmp(k->s, s, k->n) == 0;
}

/* memmem() is a GNU extension; templates are small enough for this. */
static const char *
find_bytes(const char *h, size_t hn, const char *nd, size_t nn)
{
	size_t i;

	if (nn == 0 || hn < nn)
		return NULL;
	for (i = 0; i + nn <= hn; i++)
		if (h[i] == nd[0] && memcmp(h + i, nd, nn) == 0)
			return h + i;
	return NULL;
}

/* "__x__" with at least one identifier character in the middle. */
static bool
is_dunder(const char *s, size_t n)
{
	size_t i;

	if (n < 5 || s[0] != '_' || s[1] != '_' || s[n - 1] != '_' ||
	    s[n - 2] != '_')
		return false;
	for (i = 0; i < n; i++)
		if (!is_ident_char(s[i]))
			return false;
	for (i = 2; i < n - 2; i++)
		if (s[i] != '_')
			return true;
	return false;
}

/* A proper prefix or suffix (3+ chars, with "__") of a known dunder. */
static bool
is_dunder_fragment(const char *s, size_t n)
{
	size_t i, k;

	if (n < 3 || !find_bytes(s, n, "__", 2))
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

static bool
in_list(const char *s, size_t n, const char *const *list, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
			return true;
	return false;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void
lit_put(struct tok *k, char c)
{
	if (k->lit_len < MAX_LIT)
		k->lit[k->lit_len++] = c;
	else
		k->lit_long = true;
}

/*
 * Lexes a string literal at t[*i] (the opening quote) with Python's
 * escapes, as Jinja decodes them. Returns false when it is unterminated.
 */
static bool
lex_string(const char *t, size_t len, size_t *i, struct tok *k)
{
	char q = t[*i];
	size_t p = *i + 1;

	k->kind = T_STR;
	k->lit_len = 0;
	k->lit_long = false;
	k->esc_underscore = false;
	k->pct_c = false;
	while (p < len && t[p] != q) {
		char c = t[p];

		if (c == '%' && p + 1 < len && t[p + 1] == 'c')
			k->pct_c = true;
		if (c != '\\' || p + 1 >= len) {
			lit_put(k, c);
			p++;
			continue;
		}
		c = t[p + 1];
		if (c == 'x' || c == 'u' || c == 'U') {
			size_t nd = c == 'x' ? 2 : c == 'u' ? 4 : 8, d;
			unsigned long v = 0;

			for (d = 0; d < nd && p + 2 + d < len &&
			     hexval(t[p + 2 + d]) >= 0; d++)
				v = v * 16 + (unsigned long)hexval(t[p + 2 + d]);
			p += 2 + d;
			if (v == '_')
				k->esc_underscore = true;
			lit_put(k, v < 128 ? (char)v : '?');
		} else if (c >= '0' && c <= '7') {
			unsigned v = 0, d;

			for (d = 0; d < 3 && p + 1 + d < len &&
			     t[p + 1 + d] >= '0' && t[p + 1 + d] <= '7'; d++)
				v = v * 8 + (unsigned)(t[p + 1 + d] - '0');
			p += 1 + d;
			if (v == '_')
				k->esc_underscore = true;
			lit_put(k, v < 128 ? (char)v : '?');
		} else if (c == 'N' && p + 2 < len && t[p + 2] == '{') {
			const char *end = memchr(t + p, '}', len - p);
			size_t nlen = end ? (size_t)(end - (t + p + 3)) : 0;

			if (end && nlen == 8 && memcmp(t + p + 3, "LOW LINE", 8) == 0) {
				k->esc_underscore = true;
				lit_put(k, '_');
			} else {
				lit_put(k, '?');
			}
			p = end ? (size_t)(end - t) + 1 : len;
		} else {
			switch (c) {
			case 'n': lit_put(k, '\n'); break;
			case 't': lit_put(k, '\t'); break;
			case 'r': lit_put(k, '\r'); break;
			case '\\': case '\'': case '"': lit_put(k, c); break;
			default: lit_put(k, '\\'); lit_put(k, c); break;
			}
			p += 2;
		}
	}
	if (p >= len)
		return false;
	*i = p + 1;
	return true;
}

/* Checks a finished string value (a literal or a folded chain). */
static void
check_value(struct scan *sc, const char *v, size_t n, bool too_long,
	    bool built, size_t pos)
{
	if (too_long)
		return;
	if (is_dunder(v, n)) {
		char buf[MAX_LIT + 1];

		memcpy(buf, v, n);
		buf[n] = '\0';
		if (built)
			note(&sc->obfuscation, pos, "'%s' built from pieces", buf);
		else
			note(&sc->internals, pos, "'%s' as an attribute name", buf);
		return;
	}
	if (n == 2 && v[0] == '_' && v[1] == '_' && !sc->saw_dunder_marker) {
		sc->saw_dunder_marker = true;
		sc->marker_pos = pos;
	}
}

static void
fold_flush(struct scan *sc)
{
	struct fold *f = &sc->fold;

	if (f->active)
		check_value(sc, f->acc, f->len, f->too_long, f->built, f->pos);
	memset(f, 0, sizeof(*f));
}

static void
fold_append(struct fold *f, const char *s, size_t n, bool too_long)
{
	if (too_long || f->len + n > MAX_LIT) {
		f->too_long = true;
		return;
	}
	memcpy(f->acc + f->len, s, n);
	f->len += n;
	f->acc[f->len] = '\0';
}

/* Feeds a token to the folding state machines. */
static void
fold_token(struct scan *sc, const struct tok *k)
{
	struct fold *f = &sc->fold;
	struct listjoin *lj = &sc->lj;

	/* ['__cla', 'ss__'] | join */
	switch (lj->state) {
	case 1:
		if (k->kind == T_STR) {
			if (k->lit_long || lj->len + k->lit_len > MAX_LIT)
				lj->too_long = true;
			else {
				memcpy(lj->acc + lj->len, k->lit, k->lit_len);
				lj->len += k->lit_len;
			}
			lj->state = 2;
		} else {
			lj->state = 0;
		}
		break;
	case 2:
		lj->state = tok_is(k, T_OP, ",") ? 1 :
			    tok_is(k, T_OP, "]") ? 3 : 0;
		break;
	case 3:
		lj->state = tok_is(k, T_OP, "|") ? 4 : 0;
		break;
	case 4:
		if (tok_is(k, T_IDENT, "join"))
			check_value(sc, lj->acc, lj->len, lj->too_long, true,
				    lj->pos);
		lj->state = 0;
		break;
	default:
		break;
	}
	if (lj->state == 0 && tok_is(k, T_OP, "[")) {
		memset(lj, 0, sizeof(*lj));
		lj->state = 1;
		lj->pos = k->pos;
	}

	if (f->active && f->want_count) {
		long c = 0;
		size_t i;

		if (k->kind == T_NUM) {
			char one[MAX_LIT + 1];
			size_t n = f->len;

			for (i = 0; i < k->n && k->s[i] >= '0' && k->s[i] <= '9' &&
			     c <= MAX_LIT; i++)
				c = c * 10 + (k->s[i] - '0');
			memcpy(one, f->acc, n);
			f->len = 0;
			for (i = 0; i < (size_t)c && !f->too_long; i++)
				fold_append(f, one, n, false);
			f->built = true;
			f->want_count = false;
			return;
		}
		fold_flush(sc);
	}
	if (f->active && f->want_operand) {
		if (k->kind == T_STR) {
			fold_append(f, k->lit, k->lit_len, k->lit_long);
			f->built = true;
			f->want_operand = false;
			return;
		}
		fold_flush(sc);
	}
	if (f->active) {
		if (tok_is(k, T_OP, "~") || tok_is(k, T_OP, "+")) {
			f->want_operand = true;
			return;
		}
		if (tok_is(k, T_OP, "*")) {
			f->want_count = true;
			return;
		}
		fold_flush(sc);
	}
	if (k->kind == T_STR) {
		f->active = true;
		f->pos = k->pos;
		f->built = k->esc_underscore;
		fold_append(f, k->lit, k->lit_len, k->lit_long);
	}
}

/* Identifier rules (QA6001 internals, QA6002 |attr and %c formats). */
static void
check_ident(struct scan *sc, const struct tok *k)
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
	bool after_dot = tok_is(&sc->prev1, T_OP, ".");

	memcpy(name, k->s, n);
	name[n] = '\0';
	ctx[0] = '\0';
	if (after_dot && sc->prev2.kind == T_IDENT) {
		size_t m = sc->prev2.n < sizeof(ctx) - 2 ? sc->prev2.n :
			   sizeof(ctx) - 2;

		memcpy(ctx, sc->prev2.s, m);
		ctx[m] = '.';
		ctx[m + 1] = '\0';
	}
	if (is_dunder(k->s, k->n)) {
		note(&sc->internals, k->pos, "%s%s", ctx, name);
		return;
	}
	if (after_dot && k->s[0] == '_') {
		note(&sc->internals, k->pos, "private attribute %s%s", ctx,
		     name);
		return;
	}
	if (tok_is(&sc->prev1, T_OP, "|") && tok_is(k, T_IDENT, "attr")) {
		note(&sc->obfuscation, k->pos, "|attr filter");
		return;
	}
	if (tok_is(&sc->prev1, T_OP, "|") && tok_is(k, T_IDENT, "format") &&
	    sc->prev2.kind == T_STR && sc->prev2.pct_c) {
		note(&sc->obfuscation, k->pos, "%%c |format building a name");
		return;
	}
	if (in_list(k->s, k->n, anywhere, sizeof(anywhere) / sizeof(anywhere[0]))) {
		note(&sc->internals, k->pos, "%s%s", ctx, name);
		return;
	}
	if (!after_dot && in_list(k->s, k->n, roots,
				  sizeof(roots) / sizeof(roots[0]))) {
		sc->pending_call = "root";
		sc->pending_pos = k->pos;
		return;
	}
	if ((!after_dot && in_list(k->s, k->n, calls,
				   sizeof(calls) / sizeof(calls[0]))) ||
	    (after_dot && (tok_is(k, T_IDENT, "mro") ||
			   tok_is(k, T_IDENT, "system")))) {
		sc->pending_call = "call";
		sc->pending_pos = k->pos;
	}
}

/* Resolves a pending "os." or "eval(" check against the next token. */
static void
check_pending(struct scan *sc, const struct tok *k)
{
	const char *what = sc->pending_call;
	const struct tok *id = &sc->prev1;
	char name[48];
	size_t n;

	sc->pending_call = NULL;
	if (!what || id->kind != T_IDENT)
		return;
	n = id->n < sizeof(name) - 1 ? id->n : sizeof(name) - 1;
	memcpy(name, id->s, n);
	name[n] = '\0';
	if (strcmp(what, "root") == 0 && tok_is(k, T_OP, "."))
		note(&sc->internals, sc->pending_pos, "%s.", name);
	else if (strcmp(what, "call") == 0 && tok_is(k, T_OP, "("))
		note(&sc->internals, sc->pending_pos, "%s()", name);
}

static void
feed(struct scan *sc, const struct tok *k)
{
	check_pending(sc, k);
	fold_token(sc, k);
	if (k->kind == T_IDENT)
		check_ident(sc, k);
	if (k->kind == T_STR) {
		if (k->esc_underscore)
			note(&sc->obfuscation, k->pos,
			     "escape spelling '_' in a string");
		if (!k->lit_long && !is_dunder(k->lit, k->lit_len) &&
		    is_dunder_fragment(k->lit, k->lit_len)) {
			char buf[MAX_LIT + 1];

			memcpy(buf, k->lit, k->lit_len);
			buf[k->lit_len] = '\0';
			note(&sc->obfuscation, k->pos,
			     "dunder fragment '%s'", buf);
		}
		if (!k->lit_long && in_list(k->lit, k->lit_len, core_names,
					    sizeof(core_names) /
					    sizeof(core_names[0])))
			sc->saw_core_name = true;
	}
	sc->prev2 = sc->prev1;
	sc->prev1 = *k;
}

/* Lexes one {{ }} or {% %} block starting at t[i] (after the opener);
 * returns the offset after the closer. *is_raw is set for {% raw %}. */
static size_t
lex_block(struct scan *sc, size_t i, char closer, bool *is_raw)
{
	const char *t = sc->t;
	size_t len = sc->len;
	int depth = 0;
	bool first = true;
	struct tok k;

	memset(&sc->prev1, 0, sizeof(sc->prev1));
	memset(&sc->prev2, 0, sizeof(sc->prev2));
	sc->prev1.kind = sc->prev2.kind = T_NONE;
	memset(&sc->fold, 0, sizeof(sc->fold));
	memset(&sc->lj, 0, sizeof(sc->lj));
	sc->pending_call = NULL;
	*is_raw = false;
	while (i < len) {
		char c = t[i];

		if (is_space(c)) {
			i++;
			continue;
		}
		if (depth == 0 && c == closer && i + 1 < len && t[i + 1] == '}') {
			i += 2;
			break;
		}
		memset(&k, 0, sizeof(k));
		k.pos = i;
		if (c == '\'' || c == '"') {
			if (!lex_string(t, len, &i, &k)) {
				i = len;
				break;
			}
		} else if (c >= '0' && c <= '9') {
			k.kind = T_NUM;
			k.s = t + i;
			while (i < len && (is_ident_char(t[i]) || t[i] == '.'))
				i++;
			k.n = (size_t)(t + i - k.s);
		} else if (is_ident_start(c)) {
			k.kind = T_IDENT;
			k.s = t + i;
			while (i < len && is_ident_char(t[i]))
				i++;
			k.n = (size_t)(t + i - k.s);
			if (first && closer == '%' && tok_is(&k, T_IDENT, "raw"))
				*is_raw = true;
			first = false;
		} else {
			k.kind = T_OP;
			k.s = t + i;
			k.n = 1;
			/* whitespace control ({%- raw %}) is not the
			 * block's first word */
			if (c != '-' && c != '+')
				first = false;
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if ((c == ')' || c == ']' || c == '}') && depth > 0)
				depth--;
			i++;
		}
		if (k.kind != T_OP)
			first = false;
		feed(sc, &k);
	}
	fold_flush(sc);
	if (sc->pending_call) {
		struct tok none;

		memset(&none, 0, sizeof(none));
		none.kind = T_NONE;
		check_pending(sc, &none);
	}
	return i;
}

static const char *
find2(const char *t, size_t len, size_t from, const char *needle)
{
	size_t n = strlen(needle);

	if (from >= len)
		return NULL;
	return find_bytes(t + from, len - from, needle, n);
}

static void
scan_template(struct scan *sc)
{
	const char *t = sc->t;
	size_t len = sc->len, i = 0;

	while (i + 1 < len) {
		const char *o = memchr(t + i, '{', len - i);
		bool raw;

		if (!o || (size_t)(o - t) + 1 >= len)
			break;
		i = (size_t)(o - t);
		switch (t[i + 1]) {
		case '#': {
			const char *e = find2(t, len, i + 2, "#}");

			i = e ? (size_t)(e - t) + 2 : len;
			break;
		}
		case '{':
			i = lex_block(sc, i + 2, '}', &raw);
			break;
		case '%':
			i = lex_block(sc, i + 2, '%', &raw);
			if (raw) {
				/* {% raw %}...{% endraw %} is literal text */
				const char *e = find2(t, len, i, "endraw");
				size_t j;

				if (!e) {
					i = len;
					break;
				}
				j = (size_t)(e - t);
				while (j > i && !(t[j] == '{' && j + 1 < len &&
						  t[j + 1] == '%'))
					j--;
				i = j > i ? j : (size_t)(e - t) + 6;
			}
			break;
		default:
			i++;
			break;
		}
	}
	if (sc->saw_dunder_marker && sc->saw_core_name)
		note(&sc->obfuscation, sc->marker_pos,
		     "'__' string joined to a bare dunder name");
}

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

/*
 * Scans one template and reports QA6001/QA6002. what names it in the
 * message ("tokenizer.chat_template"), file/offset locate it.
 */
static void
check_one(struct qa_inventory *inv, const char *text, size_t len,
	  uint64_t true_len, const char *what, const char *file,
	  int64_t offset)
{
	struct scan *sc = calloc(1, sizeof(*sc));
	char desc[160];

	if (true_len > TEMPLATE_WARN_BYTES)
		qa_inv_finding(inv, QA6003, file, offset, NULL,
			       "%s is %llu bytes (more than 1 MiB)", what,
			       (unsigned long long)true_len);
	if (!sc) {
		inv->out_of_memory = true;
		return;
	}
	sc->t = text;
	sc->len = len;
	scan_template(sc);
	snprintf(desc, sizeof(desc), "%s", what);
	report(inv, QA6001, &sc->internals, desc, file, offset);
	report(inv, QA6002, &sc->obfuscation, desc, file, offset);
	free(sc);
}

/* Is the text of template i the same as an earlier one's? (A
 * tokenizer_config.json entry that repeats chat_template.jinja is
 * scanned once.) */
static bool
seen_before(const struct qa_inventory *inv, uint32_t i)
{
	const struct qa_template *t = &inv->templates[i];
	uint32_t j;

	for (j = 0; j < i; j++)
		if (inv->templates[j].text && inv->templates[j].len == t->len &&
		    memcmp(inv->templates[j].text, t->text, t->len) == 0)
			return true;
	return false;
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	uint32_t i;

	(void)opt;
	for (i = 0; i < inv->n_templates; i++) {
		const struct qa_template *t = &inv->templates[i];

		if (!t->text) {
			/* Too large to have been read (QA1901); still a
			 * DoS risk. */
			if (t->full_len > TEMPLATE_WARN_BYTES)
				qa_inv_finding(inv, QA6003, t->file, t->offset,
					       NULL, "%s is %llu bytes (more "
					       "than 1 MiB)", t->label,
					       (unsigned long long)t->full_len);
			continue;
		}
		if (seen_before(inv, i))
			continue;
		check_one(inv, t->text, (size_t)t->len, t->full_len, t->label,
			  t->file, t->offset);
	}
	/* A hand-built inventory may carry only the primary template. */
	if (inv->n_templates == 0 && inv->chat_template)
		check_one(inv, inv->chat_template, strlen(inv->chat_template),
			  strlen(inv->chat_template), "chat_template", NULL,
			  -1);
}

const struct qa_check qa_check_template = { "template", run };
