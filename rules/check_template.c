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
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"
#include "core/hash.h"
#include "core/units.h"
#include "core/escape.h"

/* Templates larger than this are a denial-of-service risk for engines
 * that render the template on every request (the longest real ones are
 * about 20 KB). */
#define TEMPLATE_WARN_BYTES ((uint64_t)1 << 20)
/* Decoded string prefix kept per token for the lexical checks. */
#define MAX_LIT 64
/* Indicators quoted per finding; the rest are counted. */
#define MAX_NOTES 4
/* Constants one expression may take before the rest are summarized. */
#define MAXC 8
/* Items of a constant list or tuple. */
#define MAXL 64
/* Longest string the folding builds (an attribute name is short; a
 * longer result can only matter sliced, and is then "not folded"). */
#define VAL_MAX 4096
/* Parser recursion (Python's own recursion limit stops Jinja earlier). */
#define MAX_DEPTH 100
/* Walks over the template until the bindings stop changing. */
#define MAX_PASSES 4
/* Tokens of one block evaluated (real blocks have a few hundred). */
#define MAX_BLOCK_TOKENS ((size_t)1 << 18)
/* Bytes the folding may allocate per walk, beyond the template's size. */
#define POOL_EXTRA ((size_t)16 << 20)
/* Bytes kept for the bindings' strings. */
#define ENV_BYTES_MAX ((size_t)8 << 20)
/* set-block captures nested. */
#define MAX_CAPTURE 16
/* Parameters remembered per macro. */
#define MAX_PARAMS 16

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

/* ---- characters and names -------------------------------------------- */

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

/* memmem() is a GNU extension. */
static const char *
find_bytes(const char *h, size_t hn, const char *nd, size_t nn)
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

/* "_Class__attr": a name-mangled private attribute. */
static bool
is_mangled(const char *s, size_t n)
{
	size_t i = 1;

	if (n < 4 || s[0] != '_' || !is_ident_start(s[1]) || s[1] == '_')
		return false;
	while (i < n && is_ident_char(s[i]) && s[i] != '_')
		i++;
	return i + 2 < n && s[i] == '_' && s[i + 1] == '_';
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

#define IN_LIST(s, n, list) in_list((s), (n), (list), \
				    sizeof(list) / sizeof((list)[0]))

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

/* ---- the folding pool ------------------------------------------------- */

struct chunk {
	struct chunk *next;
	size_t used, cap;
	unsigned char data[];
};

/* Bump allocation with a ceiling: failing means "could not be folded". */
struct pool {
	struct chunk *head;
	size_t used, limit;
	bool hit;		/* an allocation was refused */
};

static void *
pool_alloc(struct pool *p, size_t n)
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
	return c->data + c->used - n;
}

/* Gives back the unused end of the last allocation (p, cap bytes asked,
 * used bytes kept): strings are built in a VAL_MAX buffer first. */
static void
pool_trim(struct pool *p, const void *ptr, size_t cap, size_t used)
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

static void
pool_free(struct pool *p)
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

/* ---- abstract values -------------------------------------------------- */

enum ckind { C_STR, C_NUM, C_BOOL, C_NONE, C_UNDEF, C_LIST, C_UNK, C_OBJ };

/* C_OBJ: objects of the template's own (num says which). */
enum { OBJ_LOOP, OBJ_NS, OBJ_CYCLER, OBJ_JOINER, OBJ_MACRO, OBJ_METHOD };

struct sv {
	const char *p;
	size_t n;
};

/* One constant an expression may take. */
struct cand {
	uint8_t kind;
	bool built;		/* C_STR: made by an operation, not written */
	bool dict;		/* C_LIST: a dict, listed by its keys */
	bool data, opq;		/* C_UNK: what the unknown may be; a
				 * dict: what its values may be */
	int64_t num;		/* C_NUM, C_BOOL; C_OBJ: which */
	struct sv s;		/* C_STR; C_OBJ_MACRO: its name */
	struct cand *items;	/* C_LIST, cycler and joiner C_OBJ (pool) */
	uint32_t n_items;
};

/* What an expression may be: any of c[0..n), and, when data, a value of
 * the caller's (messages, tools); when opq, a value the template builds
 * from its own strings that could not be folded. lossy: candidates were
 * dropped (each checked safe as a name on the way). */
struct val {
	uint8_t n;
	bool data, opq, lossy;
	struct cand c[MAXC];
};

struct scan;

static void
v_clear(struct val *v)
{
	v->n = 0;
	v->data = v->opq = v->lossy = false;
}

static void
v_data(struct val *v)
{
	v_clear(v);
	v->data = true;
}

static void
v_opq(struct val *v)
{
	v_clear(v);
	v->opq = true;
}

static bool
cand_has_str(const struct cand *c)
{
	uint32_t i;

	if (c->kind == C_STR || c->kind == C_OBJ)
		return true;
	if (c->kind == C_UNK)
		return c->opq;
	if (c->kind != C_LIST)
		return false;
	for (i = 0; i < c->n_items; i++)
		if (cand_has_str(&c->items[i]))
			return true;
	return false;
}

/* Whether any part of v comes from the template's strings. */
static bool
has_str(const struct val *v)
{
	unsigned i;

	if (v->opq || v->lossy)
		return true;
	for (i = 0; i < v->n; i++)
		if (cand_has_str(&v->c[i]))
			return true;
	return false;
}

static bool
cand_eq(const struct cand *a, const struct cand *b)
{
	uint32_t i;

	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case C_LIST:
		if (a->dict != b->dict || a->n_items != b->n_items ||
		    a->data != b->data || a->opq != b->opq)
			return false;
		for (i = 0; i < a->n_items; i++)
			if (!cand_eq(&a->items[i], &b->items[i]))
				return false;
		return true;
	case C_UNK:
		return a->data == b->data && a->opq == b->opq;
	case C_STR:
		return a->s.n == b->s.n && memcmp(a->s.p, b->s.p, a->s.n) == 0;
	case C_NUM:
	case C_BOOL:
		return a->num == b->num;
	case C_NONE:
	case C_UNDEF:
		return true;
	case C_OBJ:
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
	if (s[0] == '_' || find_bytes(s, n, "__", 2))
		return false;
	while (i <= n) {
		for (j = i; j < n && s[j] != '.'; j++)
			;
		if (j > i && (s[i] == '_' || IN_LIST(s + i, j - i,
						     internal_attrs)))
			return false;
		i = j + 1;
	}
	return true;
}

static bool
cand_name_safe(const struct cand *c)
{
	uint32_t i;

	if (c->kind == C_STR)
		return name_safe(c->s.p, c->s.n);
	if (c->kind == C_UNK)
		return !c->opq;
	if (c->kind == C_OBJ)
		return false;
	if (c->kind == C_LIST) {
		for (i = 0; i < c->n_items; i++)
			if (!cand_name_safe(&c->items[i]))
				return false;
	}
	return true;
}

/* Adds a candidate to v (unless already there); when v is full the
 * candidate is dropped: lossy if it is safe as a name, else v may be
 * anything the template built. */
static void
v_add(struct val *v, const struct cand *c)
{
	unsigned i;

	if (c->kind == C_UNK) {
		v->data |= c->data;
		v->opq |= c->opq;
		return;
	}
	for (i = 0; i < v->n; i++)
		if (cand_eq(&v->c[i], c)) {
			v->c[i].built |= c->built;
			return;
		}
	if (v->n < MAXC) {
		v->c[v->n++] = *c;
		return;
	}
	if (cand_name_safe(c))
		v->lossy = true;
	else
		v->opq = true;
}

static void
v_join(struct val *a, const struct val *b)
{
	unsigned i;

	a->data |= b->data;
	a->opq |= b->opq;
	a->lossy |= b->lossy;
	for (i = 0; i < b->n; i++)
		v_add(a, &b->c[i]);
}

static void
v_str(struct val *v, const char *p, size_t n, bool built)
{
	v_clear(v);
	v->n = 1;
	memset(&v->c[0], 0, sizeof(v->c[0]));
	v->c[0].kind = C_STR;
	v->c[0].s.p = p;
	v->c[0].s.n = n;
	v->c[0].built = built;
}

static void
v_num(struct val *v, int64_t x)
{
	v_clear(v);
	v->n = 1;
	memset(&v->c[0], 0, sizeof(v->c[0]));
	v->c[0].kind = C_NUM;
	v->c[0].num = x;
}

static void
v_kind(struct val *v, enum ckind k, int64_t x)
{
	v_num(v, x);
	v->c[0].kind = (uint8_t)k;
}

/* The result of an operation on unknowns: caller data stays data unless
 * the template's strings are mixed in (then the template chose part of
 * the result: not folded). */
static void
v_mix(struct val *out, const struct val *a, const struct val *b)
{
	bool s = has_str(a) || (b && has_str(b));
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

/* ---- the scan --------------------------------------------------------- */

enum tok_kind { T_END, T_NAME, T_STR, T_NUM, T_OP };

struct ltok {
	uint8_t kind;
	bool esc_underscore;	/* an escape decoding to '_' */
	bool pct_c;		/* contains %c */
	bool lit_long;		/* decoded longer than MAX_LIT */
	bool no_value;		/* T_STR not decoded (pool full) */
	bool num_known;		/* T_NUM: an integer that fits */
	size_t pos;		/* offset in the template */
	size_t n;		/* source bytes (name, number, operator) */
	const char *s;		/* source text */
	struct sv val;		/* T_STR: the decoded value */
	int64_t num;		/* T_NUM */
	char lit[MAX_LIT + 1];	/* T_STR: decoded prefix, lexical checks */
	size_t lit_len;
};

/* A token kept for the evaluation (no lexical scratch). */
struct etok {
	uint8_t kind;
	bool no_value;		/* T_STR not decoded (pool full) */
	bool num_known;		/* T_NUM: an integer that fits */
	size_t pos, n;
	const char *s;
	struct sv val;		/* T_STR */
	int64_t num;		/* T_NUM */
};

/* A binding: a variable set by the template ({% set %}, a loop, a macro
 * parameter, a namespace attribute "ns.x"). */
struct binding {
	char *name;
	struct val v;		/* strings in env storage */
	bool changed;		/* joined something new in this walk */
	struct binding *next;
};

struct macro {
	char *name;
	char *params[MAX_PARAMS];
	unsigned n_params;
	struct macro *next;
};

#define ENV_BUCKETS 1024

/* A {% set x %}...{% endset %} being captured. */
struct capture {
	char *target;		/* env name, or NULL */
	struct val v;		/* text and prints so far, exactly */
	struct val stripped;	/* the same with each piece stripped */
	bool ctrl;		/* a statement inside: not folded */
	bool filtered;		/* {% set x | filter %} */
};

struct nskw;

struct scan {
	struct nskw *nskw;		/* namespace() kwargs of the statement */
	const char *t;
	size_t len;
	struct notes internals;		/* QA6001 */
	struct notes obfuscation;	/* QA6002 */
	struct notes unscanned;		/* QA6004 */
	bool saw_dunder_marker;		/* a "__" string */
	size_t marker_pos;
	bool saw_core_name;		/* a 'class' / 'globals'... string */
	/* lexical state of the current block */
	struct ltok prev1, prev2;
	const char *pending_call;	/* flagged if the next token is '(' */
	size_t pending_pos;
	/* walks */
	unsigned pass;
	bool lexical;			/* this walk does the lexical checks */
	bool final;			/* this walk reports the sinks */
	bool env_changed;
	struct pool pool;		/* per walk */
	struct pool envp;		/* bindings, across walks */
	struct binding *env[ENV_BUCKETS];
	struct macro *macros[ENV_BUCKETS];
	struct capture cap[MAX_CAPTURE];
	unsigned n_cap;
	bool cap_overflow;
	/* the block being evaluated */
	struct etok *toks;
	size_t n_toks, cap_toks, at;
	int depth;
	bool parse_failed;
	size_t fail_pos;
};

/* ---- lexical checks (every token, first walk) ------------------------ */

static bool
tok_is(const struct ltok *k, enum tok_kind kind, const char *s)
{
	size_t n = strlen(s);

	return k->kind == kind && k->n == n && memcmp(k->s, s, n) == 0;
}

static void
check_value(struct scan *sc, const char *v, size_t n, bool built, size_t pos)
{
	char buf[MAX_LIT + 1];

	if (n > MAX_LIT)
		return;
	if (is_dunder(v, n)) {
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
check_ident(struct scan *sc, const struct ltok *k)
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
	if (after_dot && sc->prev2.kind == T_NAME) {
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
	if (tok_is(&sc->prev1, T_OP, "|") && tok_is(k, T_NAME, "attr")) {
		note(&sc->obfuscation, k->pos, "|attr filter");
		return;
	}
	if (tok_is(&sc->prev1, T_OP, "|") && tok_is(k, T_NAME, "format") &&
	    sc->prev2.kind == T_STR && sc->prev2.pct_c) {
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
	    (after_dot && (tok_is(k, T_NAME, "mro") ||
			   tok_is(k, T_NAME, "system")))) {
		sc->pending_call = "call";
		sc->pending_pos = k->pos;
	}
}

/* Resolves a pending "os." or "eval(" check against the next token. */
static void
check_pending(struct scan *sc, const struct ltok *k)
{
	const char *what = sc->pending_call;
	const struct ltok *id = &sc->prev1;
	char name[48];
	size_t n;

	sc->pending_call = NULL;
	if (!what || id->kind != T_NAME)
		return;
	n = id->n < sizeof(name) - 1 ? id->n : sizeof(name) - 1;
	memcpy(name, id->s, n);
	name[n] = '\0';
	if (strcmp(what, "root") == 0 && k && tok_is(k, T_OP, "."))
		note(&sc->internals, sc->pending_pos, "%s.", name);
	else if (strcmp(what, "call") == 0 && k && tok_is(k, T_OP, "("))
		note(&sc->internals, sc->pending_pos, "%s()", name);
}

static void
lexical(struct scan *sc, const struct ltok *k)
{
	check_pending(sc, k);
	if (k->kind == T_NAME)
		check_ident(sc, k);
	if (k->kind == T_STR) {
		if (k->esc_underscore)
			note(&sc->obfuscation, k->pos,
			     "escape spelling '_' in a string");
		if (!k->lit_long)
			check_value(sc, k->lit, k->lit_len, k->esc_underscore,
				    k->pos);
		if (!k->lit_long && !is_dunder(k->lit, k->lit_len) &&
		    is_dunder_fragment(k->lit, k->lit_len)) {
			char buf[MAX_LIT + 1];

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

/* ---- lexing ------------------------------------------------------------ */

static void
lit_put(struct ltok *k, char c)
{
	if (k->lit_len < MAX_LIT)
		k->lit[k->lit_len++] = c;
	else
		k->lit_long = true;
}

/*
 * Lexes a string literal at t[*i] (the opening quote) with Python's
 * escapes, as Jinja decodes them (unicode-escape). The value goes to the
 * pool when it has escapes (else it points into the template). Returns
 * false when it is unterminated.
 */
static bool
lex_string(struct scan *sc, size_t *i, struct ltok *k)
{
	const char *t = sc->t;
	size_t len = sc->len, p = *i + 1, end, o = 0;
	char q = t[*i];
	bool esc = false;
	char *out = NULL;

	k->kind = T_STR;
	for (end = p; end < len && t[end] != q; end++)
		if (t[end] == '\\') {
			esc = true;
			end++;
		}
	if (end >= len)
		return false;
	if (esc) {
		/* decoded is never longer than the source, plus UTF-8 */
		out = pool_alloc(&sc->pool, (end - p) * 2 + 4);
		if (!out)
			k->no_value = true;
	}
	while (p < end) {
		char c = t[p];
		char u[4];
		size_t un;

		if (c == '%' && p + 1 < end && t[p + 1] == 'c')
			k->pct_c = true;
		if (c != '\\' || p + 1 >= end) {
			lit_put(k, c);
			if (out)
				out[o++] = c;
			p++;
			continue;
		}
		c = t[p + 1];
		if (c == 'x' || c == 'u' || c == 'U') {
			size_t nd = c == 'x' ? 2 : c == 'u' ? 4 : 8, d;
			unsigned long v = 0;

			for (d = 0; d < nd && p + 2 + d < end &&
			     qa_hex_digit(t[p + 2 + d]) >= 0; d++)
				v = v * 16 + (unsigned long)qa_hex_digit(t[p + 2 + d]);
			p += 2 + d;
			if (v == '_')
				k->esc_underscore = true;
			un = qa_utf8_encode(u, v);
		} else if (c >= '0' && c <= '7') {
			unsigned long v = 0;
			unsigned d;

			for (d = 0; d < 3 && p + 1 + d < end &&
			     t[p + 1 + d] >= '0' && t[p + 1 + d] <= '7'; d++)
				v = v * 8 + (unsigned long)(t[p + 1 + d] - '0');
			p += 1 + d;
			if (v == '_')
				k->esc_underscore = true;
			un = qa_utf8_encode(u, v);
		} else if (c == 'N' && p + 2 < end && t[p + 2] == '{') {
			const char *e = memchr(t + p, '}', end - p);
			size_t nlen = e ? (size_t)(e - (t + p + 3)) : 0;

			if (e && nlen == 8 && memcmp(t + p + 3, "LOW LINE", 8) == 0) {
				k->esc_underscore = true;
				u[0] = '_';
			} else {
				u[0] = '?';
			}
			un = 1;
			p = e ? (size_t)(e - t) + 1 : end;
		} else {
			un = 1;
			switch (c) {
			case 'n': u[0] = '\n'; break;
			case 't': u[0] = '\t'; break;
			case 'r': u[0] = '\r'; break;
			case 'a': u[0] = '\a'; break;
			case 'b': u[0] = '\b'; break;
			case 'f': u[0] = '\f'; break;
			case 'v': u[0] = '\v'; break;
			case '\n': un = 0; break;
			case '\\': case '\'': case '"': u[0] = c; break;
			default: u[0] = '\\'; u[1] = c; un = 2; break;
			}
			p += 2;
		}
		for (size_t x = 0; x < un; x++) {
			lit_put(k, u[x]);
			if (out)
				out[o++] = u[x];
		}
	}
	if (esc) {
		k->val.p = out;
		k->val.n = out ? o : 0;
	} else {
		k->val.p = t + *i + 1;
		k->val.n = end - (*i + 1);
	}
	*i = end + 1;
	return true;
}

static const char *const two_char_ops[] = {
	"**", "//", "==", "!=", "<=", ">=",
};

/*
 * Lexes one {{ }} or {% %} block starting at t[i] (after the opener)
 * into sc->toks (the first MAX_BLOCK_TOKENS), running the lexical checks
 * on the first walk. Returns the offset after the closer; *is_raw is set
 * for {% raw %}, *truncated when tokens were not kept.
 */
static size_t
lex_block(struct scan *sc, size_t i, char closer, bool *is_raw,
	  bool *truncated)
{
	const char *t = sc->t;
	size_t len = sc->len;
	int depth = 0;
	bool first = true;
	struct ltok k;

	memset(&sc->prev1, 0, sizeof(sc->prev1));
	memset(&sc->prev2, 0, sizeof(sc->prev2));
	sc->prev1.kind = sc->prev2.kind = T_END;
	sc->pending_call = NULL;
	sc->n_toks = 0;
	*is_raw = false;
	*truncated = false;
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
			if (!lex_string(sc, &i, &k)) {
				i = len;
				break;
			}
		} else if (c >= '0' && c <= '9') {
			uint64_t v = 0;
			bool ok = true;

			k.kind = T_NUM;
			k.s = t + i;
			while (i < len && (is_ident_char(t[i]) || t[i] == '.')) {
				if (t[i] >= '0' && t[i] <= '9') {
					if (v > (uint64_t)INT64_MAX / 10)
						ok = false;
					else
						v = v * 10 + (uint64_t)(t[i] - '0');
				} else if (t[i] != '_') {
					ok = false;
				}
				i++;
			}
			k.n = (size_t)(t + i - k.s);
			k.num_known = ok && v <= (uint64_t)INT64_MAX;
			k.num = (int64_t)v;
		} else if (is_ident_start(c) || (unsigned char)c >= 0x80) {
			/* Jinja names are Python identifiers, letters
			 * beyond ASCII included */
			k.kind = T_NAME;
			k.s = t + i;
			while (i < len && (is_ident_char(t[i]) ||
					   (unsigned char)t[i] >= 0x80))
				i++;
			k.n = (size_t)(t + i - k.s);
			if (first && closer == '%' && tok_is(&k, T_NAME, "raw"))
				*is_raw = true;
			first = false;
		} else {
			size_t o;

			k.kind = T_OP;
			k.s = t + i;
			k.n = 1;
			for (o = 0; o < sizeof(two_char_ops) /
			     sizeof(two_char_ops[0]); o++)
				if (i + 1 < len &&
				    memcmp(t + i, two_char_ops[o], 2) == 0)
					k.n = 2;
			/* whitespace control ({%- raw %}) is not the
			 * block's first word */
			if (c != '-' && c != '+')
				first = false;
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if ((c == ')' || c == ']' || c == '}') && depth > 0)
				depth--;
			i += k.n;
		}
		if (k.kind != T_OP)
			first = false;
		if (sc->lexical)
			lexical(sc, &k);
		if (sc->n_toks >= MAX_BLOCK_TOKENS) {
			*truncated = true;
			continue;
		}
		if (sc->n_toks == sc->cap_toks) {
			size_t nc = sc->cap_toks ? sc->cap_toks * 2 : 256;
			struct etok *nt = realloc(sc->toks, nc * sizeof(*nt));

			if (!nt) {
				*truncated = true;
				continue;
			}
			sc->toks = nt;
			sc->cap_toks = nc;
		}
		sc->toks[sc->n_toks++] = (struct etok){
			.kind = k.kind, .no_value = k.no_value,
			.num_known = k.num_known, .pos = k.pos, .n = k.n,
			.s = k.s, .val = k.val, .num = k.num,
		};
	}
	if (sc->lexical && sc->pending_call)
		check_pending(sc, NULL);
	return i;
}

/* ---- bindings ----------------------------------------------------------- */

/* Keyed (core/hash.h): the names are the template's. */
static unsigned
hash_name(const char *s, size_t n)
{
	return (unsigned)(qa_hash(s, n) % ENV_BUCKETS);
}

static struct binding *
env_find(struct scan *sc, const char *name, size_t n)
{
	struct binding *b;

	for (b = sc->env[hash_name(name, n)]; b; b = b->next)
		if (strlen(b->name) == n && memcmp(b->name, name, n) == 0)
			return b;
	return NULL;
}

/* A copy of c whose strings and items live in env storage; false when
 * that storage is full. */
static bool
cand_keep(struct scan *sc, const struct cand *c, struct cand *out, int depth)
{
	uint32_t i;

	*out = *c;
	if (c->kind == C_STR && c->s.n) {
		char *p = pool_alloc(&sc->envp, c->s.n);

		if (!p)
			return false;
		memcpy(p, c->s.p, c->s.n);
		out->s.p = p;
	}
	if ((c->kind == C_LIST || c->kind == C_OBJ) && c->n_items) {
		if (depth > 4)
			return false;
		out->items = pool_alloc(&sc->envp,
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
static void
env_bind(struct scan *sc, const char *name, size_t n, const struct val *v)
{
	struct binding *b = env_find(sc, name, n);
	unsigned i, before_n;
	bool before_d, before_o, before_l;

	if (!b) {
		b = pool_alloc(&sc->envp, sizeof(*b));
		if (b)
			b->name = pool_alloc(&sc->envp, n + 1);
		if (!b || !b->name) {
			/* storage full: the name reads as unknown */
			return;
		}
		memcpy(b->name, name, n);
		b->name[n] = '\0';
		v_clear(&b->v);
		b->changed = false;
		b->next = sc->env[hash_name(name, n)];
		sc->env[hash_name(name, n)] = b;
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
		struct cand kept;
		unsigned j;
		bool dup = false;

		for (j = 0; j < b->v.n && !dup; j++)
			dup = cand_eq(&b->v.c[j], &v->c[i]);
		if (dup)
			continue;
		if (b->v.n < MAXC && cand_keep(sc, &v->c[i], &kept, 0))
			v_add(&b->v, &kept);
		else if (cand_name_safe(&v->c[i]) && b->v.n >= MAXC)
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

static void
env_bind_str(struct scan *sc, const char *name, const struct val *v)
{
	env_bind(sc, name, strlen(name), v);
}

/* "base.attr" for namespace attributes; false when too long. */
static bool
dotted(char *buf, size_t cap, const char *a, size_t an, const char *b,
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

static struct macro *
macro_find(struct scan *sc, const char *name, size_t n)
{
	struct macro *m;

	for (m = sc->macros[hash_name(name, n)]; m; m = m->next)
		if (strlen(m->name) == n && memcmp(m->name, name, n) == 0)
			return m;
	return NULL;
}

/* ---- string building ---------------------------------------------------- */

/* A new pool string of n bytes (NULL: too long or pool full). */
static char *
new_str(struct scan *sc, size_t n)
{
	if (n > VAL_MAX)
		return NULL;
	return pool_alloc(&sc->pool, n ? n : 1);
}

static bool
cand_string(struct scan *sc, const char *p, size_t n, struct cand *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = C_STR;
	out->built = true;
	out->s.p = p;
	out->s.n = n;
	(void)sc;
	return true;
}

static bool
is_ascii(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

/* Python's str.isspace for ASCII (0x1c-0x1f are separators too). */
static bool
py_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Code point starts of s (UTF-8; a stray byte counts as one character):
 * *out gets n_chars + 1 offsets. False when the pool is full. */
static bool
char_index(struct scan *sc, const char *s, size_t n, size_t **out,
	   size_t *n_chars)
{
	size_t *idx, i = 0, k = 0;

	idx = pool_alloc(&sc->pool, (n + 1) * sizeof(*idx));
	if (!idx)
		return false;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t w = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 :
			   c >= 0xc0 ? 2 : 1;
		size_t j;

		for (j = 1; j < w; j++)
			if (i + j >= n ||
			    ((unsigned char)s[i + j] & 0xc0) != 0x80)
				break;
		idx[k++] = i;
		i += j;
	}
	idx[k] = n;
	*out = idx;
	*n_chars = k;
	return true;
}

/* Text of a number. */
static size_t
fmt_int(char *buf, size_t cap, int64_t x)
{
	int w = snprintf(buf, cap, "%lld", (long long)x);

	return w < 0 ? 0 : (size_t)w;
}

/* Python's repr of a string, appended to out (cap bytes); the length,
 * or cap + 1 when it does not fit. */
static size_t
py_repr(const char *s, size_t n, char *out, size_t cap)
{
	bool has_sq = memchr(s, '\'', n) != NULL;
	bool has_dq = memchr(s, '"', n) != NULL;
	char q = has_sq && !has_dq ? '"' : '\'';
	size_t i, o = 0;

#define OUT(ch) do { if (o >= cap) return cap + 1; out[o++] = (ch); } while (0)
	OUT(q);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\' || c == (unsigned char)q) {
			OUT('\\');
			OUT((char)c);
		} else if (c == '\n') {
			OUT('\\');
			OUT('n');
		} else if (c == '\r') {
			OUT('\\');
			OUT('r');
		} else if (c == '\t') {
			OUT('\\');
			OUT('t');
		} else if (c < 0x20 || c == 0x7f) {
			OUT('\\');
			OUT('x');
			OUT("0123456789abcdef"[c >> 4]);
			OUT("0123456789abcdef"[c & 15]);
		} else {
			OUT((char)c);
		}
	}
	OUT(q);
#undef OUT
	return o;
}

/*
 * str() of a constant as Python gives it, into the pool. Returns false
 * when it cannot be known (an unknown, a dict's values, too long).
 */
static bool
to_str(struct scan *sc, const struct cand *c, struct sv *out, int depth)
{
	char num[32];
	size_t n;
	char *p;
	uint32_t i;

	switch (c->kind) {
	case C_STR:
		*out = c->s;
		return true;
	case C_NUM:
		n = fmt_int(num, sizeof(num), c->num);
		p = new_str(sc, n);
		if (!p)
			return false;
		memcpy(p, num, n);
		out->p = p;
		out->n = n;
		return true;
	case C_BOOL:
		out->p = c->num ? "True" : "False";
		out->n = c->num ? 4 : 5;
		return true;
	case C_NONE:
		out->p = "None";
		out->n = 4;
		return true;
	case C_UNDEF:
		out->p = "";
		out->n = 0;
		return true;
	case C_LIST:
		if (c->dict || depth > 3)
			return false;
		p = new_str(sc, VAL_MAX);
		if (!p)
			return false;
		n = 0;
		p[n++] = '[';
		for (i = 0; i < c->n_items; i++) {
			struct sv e;
			size_t w;

			if (i) {
				if (n + 2 > VAL_MAX)
					return false;
				p[n++] = ',';
				p[n++] = ' ';
			}
			if (c->items[i].kind == C_STR) {
				w = py_repr(c->items[i].s.p, c->items[i].s.n,
					    p + n, VAL_MAX - n);
				if (w > VAL_MAX - n)
					return false;
				n += w;
				continue;
			}
			if (!to_str(sc, &c->items[i], &e, depth + 1) ||
			    n + e.n > VAL_MAX)
				return false;
			memcpy(p + n, e.p, e.n);
			n += e.n;
		}
		if (n + 1 > VAL_MAX)
			return false;
		p[n++] = ']';
		pool_trim(&sc->pool, p, VAL_MAX, n);
		out->p = p;
		out->n = n;
		return true;
	default:
		return false;
	}
}

static bool
concat2(struct scan *sc, struct sv a, struct sv b, struct cand *out)
{
	char *p = new_str(sc, a.n + b.n);

	if (!p)
		return false;
	if (a.n)
		memcpy(p, a.p, a.n);
	if (b.n)
		memcpy(p + a.n, b.p, b.n);
	return cand_string(sc, p, a.n + b.n, out);
}

/* A list candidate of n items (copied into the pool). */
static bool
cand_list(struct scan *sc, const struct cand *items, uint32_t n, bool dict,
	  struct cand *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = C_LIST;
	out->dict = dict;
	if (n > MAXL)
		return false;
	if (n) {
		out->items = pool_alloc(&sc->pool, n * sizeof(*items));
		if (!out->items)
			return false;
		memcpy(out->items, items, n * sizeof(*items));
	}
	out->n_items = n;
	return true;
}

/* The characters of a string as a list. */
static bool
chars_of(struct scan *sc, struct sv s, struct cand *out)
{
	struct cand items[MAXL];
	size_t *idx, nc, i;

	if (!char_index(sc, s.p, s.n, &idx, &nc) || nc > MAXL)
		return false;
	for (i = 0; i < nc; i++)
		cand_string(sc, s.p + idx[i], idx[i + 1] - idx[i], &items[i]);
	return cand_list(sc, items, (uint32_t)nc, false, out);
}

/* ---- operators ---------------------------------------------------------- */

enum binop { B_CONCAT, B_ADD, B_SUB, B_MUL, B_DIV, B_FDIV, B_MOD, B_POW };

static int py_percent(struct scan *sc, struct sv fmt, const struct cand *args,
		      uint32_t n_args, struct cand *out);

/* Folds one pair: 1 folded, 0 not known, -1 an error at run time (no
 * value: rendering stops). */
static int
const_binop(struct scan *sc, enum binop op, const struct cand *a,
	    const struct cand *b, struct cand *out)
{
	struct sv x, y;
	int64_t r;

	if (a->kind == C_UNK || b->kind == C_UNK)
		return 0;
	if (op == B_MOD && a->kind == C_STR) {
		if (b->kind == C_LIST && !b->dict)
			return py_percent(sc, a->s, b->items, b->n_items, out);
		return py_percent(sc, a->s, b, 1, out);
	}
	switch (op) {
	case B_CONCAT:
		if (!to_str(sc, a, &x, 0) || !to_str(sc, b, &y, 0))
			return 0;
		return concat2(sc, x, y, out) ? 1 : 0;
	case B_ADD:
		if (a->kind == C_STR && b->kind == C_STR)
			return concat2(sc, a->s, b->s, out) ? 1 : 0;
		if ((a->kind == C_NUM || a->kind == C_BOOL) &&
		    (b->kind == C_NUM || b->kind == C_BOOL)) {
			if (__builtin_add_overflow(a->num, b->num, &r))
				return 0;
			memset(out, 0, sizeof(*out));
			out->kind = C_NUM;
			out->num = r;
			return 1;
		}
		if (a->kind == C_LIST && b->kind == C_LIST && !a->dict &&
		    !b->dict) {
			struct cand items[MAXL];

			if (a->n_items + b->n_items > MAXL)
				return 0;
			memcpy(items, a->items, a->n_items * sizeof(*items));
			memcpy(items + a->n_items, b->items,
			       b->n_items * sizeof(*items));
			return cand_list(sc, items, a->n_items + b->n_items,
					 false, out) ? 1 : 0;
		}
		return -1;
	case B_MUL: {
		const struct cand *seq = a, *cnt = b;
		int64_t k;

		if (a->kind == C_NUM || a->kind == C_BOOL) {
			seq = b;
			cnt = a;
		}
		if (cnt->kind != C_NUM && cnt->kind != C_BOOL)
			return -1;
		k = cnt->num < 0 ? 0 : cnt->num;
		if (seq->kind == C_NUM || seq->kind == C_BOOL) {
			if (__builtin_mul_overflow(seq->num, cnt->num, &r))
				return 0;
			memset(out, 0, sizeof(*out));
			out->kind = C_NUM;
			out->num = r;
			return 1;
		}
		if (seq->kind == C_STR) {
			char *p;
			int64_t i;

			if (seq->s.n && k > (int64_t)(VAL_MAX / seq->s.n))
				return 0;
			p = new_str(sc, seq->s.n * (size_t)k);
			if (!p)
				return 0;
			for (i = 0; seq->s.n && i < k; i++)
				memcpy(p + (size_t)i * seq->s.n, seq->s.p,
				       seq->s.n);
			return cand_string(sc, p, seq->s.n * (size_t)k, out) ?
			       1 : 0;
		}
		if (seq->kind == C_LIST && !seq->dict) {
			struct cand items[MAXL];
			int64_t i;

			if (seq->n_items && k > (int64_t)(MAXL / seq->n_items))
				return 0;
			/* an empty list (items NULL) repeats to nothing */
			for (i = 0; seq->n_items && i < k; i++)
				memcpy(items + (size_t)i * seq->n_items,
				       seq->items,
				       seq->n_items * sizeof(*items));
			return cand_list(sc, items,
					 (uint32_t)(seq->n_items * (size_t)k),
					 false, out) ? 1 : 0;
		}
		return -1;
	}
	case B_SUB:
	case B_MOD:
	case B_DIV:
	case B_FDIV:
	case B_POW:
		if ((a->kind != C_NUM && a->kind != C_BOOL) ||
		    (b->kind != C_NUM && b->kind != C_BOOL))
			return a->kind == C_STR || b->kind == C_STR ? -1 : 0;
		memset(out, 0, sizeof(*out));
		out->kind = C_NUM;
		if (op == B_SUB) {
			if (__builtin_sub_overflow(a->num, b->num, &r))
				return 0;
			out->num = r;
			return 1;
		}
		if ((op == B_FDIV || op == B_MOD) && b->num != 0 &&
		    !(a->num == INT64_MIN && b->num == -1)) {
			int64_t q = a->num / b->num, m = a->num % b->num;

			/* Python floors */
			if (m != 0 && ((m < 0) != (b->num < 0))) {
				q--;
				m += b->num;
			}
			out->num = op == B_FDIV ? q : m;
			return 1;
		}
		return 0;
	}
	return 0;
}

/* v = a op b over every pair of candidates. */
static void
v_binop(struct scan *sc, enum binop op, const struct val *a,
	const struct val *b, struct val *out)
{
	struct val r;
	unsigned i, j;

	v_clear(&r);
	for (i = 0; i < a->n; i++)
		for (j = 0; j < b->n; j++) {
			struct cand c;
			int k = const_binop(sc, op, &a->c[i], &b->c[j], &c);

			if (k > 0)
				v_add(&r, &c);
			else if (k == 0) {
				if (cand_has_str(&a->c[i]) ||
				    cand_has_str(&b->c[j]))
					r.opq = true;
				else
					r.data = true;
			}
		}
	v_mix(&r, a, b);
	*out = r;
}

/* ---- printf-style formatting (str % args, |format) ---------------------- */

/* Appends s (n bytes) padded to width (left-aligned when left). */
static bool
put_padded(char *p, size_t *o, const char *s, size_t n, long width,
	   bool left, char fill)
{
	size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;

	if (*o + n + pad > VAL_MAX)
		return false;
	if (!left) {
		memset(p + *o, fill, pad);
		*o += pad;
	}
	memcpy(p + *o, s, n);
	*o += n;
	if (left) {
		memset(p + *o, ' ', pad);
		*o += pad;
	}
	return true;
}

/* %c of a candidate: a code point or a one-character string. */
static bool
pct_char(const struct cand *c, char *u, size_t *un)
{
	if ((c->kind == C_NUM || c->kind == C_BOOL) && c->num >= 0 &&
	    c->num <= 0x10ffff) {
		*un = qa_utf8_encode(u, (uint64_t)c->num);
		return true;
	}
	if (c->kind == C_STR && c->s.n >= 1 && c->s.n <= 4) {
		memcpy(u, c->s.p, c->s.n);
		*un = c->s.n;
		return true;
	}
	return false;
}

/*
 * fmt % args as Python formats it, for the conversions a name could be
 * built with (%s %r %d %i %u %x %X %o %c %%, flags '-', '0', width,
 * precision). 1 folded, 0 not known (mapping keys, '*' widths, floats),
 * -1 an error (wrong argument count).
 */
static int
py_percent(struct scan *sc, struct sv fmt, const struct cand *args,
	   uint32_t n_args, struct cand *out)
{
	char *p = new_str(sc, VAL_MAX);
	size_t o = 0, i = 0;
	uint32_t a = 0;

	if (!p)
		return 0;
	while (i < fmt.n) {
		char c = fmt.p[i++], conv;
		bool left = false, zero = false;
		long width = -1, prec = -1;
		char buf[32], u[4];
		struct sv s;
		size_t un;
		const struct cand *arg;

		if (c != '%') {
			if (o >= VAL_MAX)
				return 0;
			p[o++] = c;
			continue;
		}
		if (i < fmt.n && fmt.p[i] == '(')
			return 0;
		while (i < fmt.n && strchr("-+ #0", fmt.p[i])) {
			left |= fmt.p[i] == '-';
			zero |= fmt.p[i] == '0';
			i++;
		}
		if (i < fmt.n && fmt.p[i] == '*')
			return 0;
		for (; i < fmt.n && fmt.p[i] >= '0' && fmt.p[i] <= '9'; i++) {
			width = (width < 0 ? 0 : width) * 10 + (fmt.p[i] - '0');
			if (width > VAL_MAX)
				return 0;
		}
		if (i < fmt.n && fmt.p[i] == '.') {
			prec = 0;
			for (i++; i < fmt.n && fmt.p[i] >= '0' &&
			     fmt.p[i] <= '9'; i++) {
				prec = prec * 10 + (fmt.p[i] - '0');
				if (prec > VAL_MAX)
					return 0;
			}
		}
		while (i < fmt.n && strchr("hlL", fmt.p[i]))
			i++;
		if (i >= fmt.n)
			return -1;
		conv = fmt.p[i++];
		if (conv == '%') {
			if (o >= VAL_MAX)
				return 0;
			p[o++] = '%';
			continue;
		}
		if (a >= n_args)
			return -1;
		arg = &args[a++];
		if (arg->kind == C_UNK)
			return 0;
		switch (conv) {
		case 's':
			if (!to_str(sc, arg, &s, 0))
				return 0;
			if (prec >= 0 && (size_t)prec < s.n) {
				if (!is_ascii(s.p, s.n))
					return 0;
				s.n = (size_t)prec;
			}
			if (!put_padded(p, &o, s.p, s.n, width, left, ' '))
				return 0;
			break;
		case 'r':
			if (arg->kind != C_STR || prec >= 0)
				return 0;
			un = py_repr(arg->s.p, arg->s.n, buf, sizeof(buf));
			if (un > sizeof(buf) ||
			    !put_padded(p, &o, buf, un, width, left, ' '))
				return 0;
			break;
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
			if (arg->kind != C_NUM && arg->kind != C_BOOL)
				return arg->kind == C_STR ? -1 : 0;
			if (prec >= 0)
				return 0;
			if (conv == 'x' || conv == 'X' || conv == 'o') {
				if (arg->num < 0)
					return 0;
				un = (size_t)snprintf(buf, sizeof(buf),
						      conv == 'x' ? "%llx" :
						      conv == 'X' ? "%llX" : "%llo",
						      (unsigned long long)arg->num);
			} else {
				un = fmt_int(buf, sizeof(buf), arg->num);
			}
			if (!put_padded(p, &o, buf, un, width, left,
					zero && !left && arg->num >= 0 ? '0' :
					' '))
				return 0;
			break;
		case 'c':
			if (!pct_char(arg, u, &un) ||
			    !put_padded(p, &o, u, un, width, left, ' '))
				return 0;
			break;
		default:
			return 0;
		}
	}
	if (a != n_args)
		return -1;
	pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
}

/* ---- sequences: indexing and slicing ------------------------------------ */

static int64_t
clamp_index(int64_t i, int64_t len, bool neg_step)
{
	if (i < 0) {
		i += len;
		if (i < 0)
			i = neg_step ? -1 : 0;
	} else if (i >= len) {
		i = neg_step ? len - 1 : len;
	}
	return i;
}

/* x[lo:hi:step] (absent parts as Python fills them in). */
static int
const_slice(struct scan *sc, const struct cand *x, const struct cand *lo,
	    const struct cand *hi, const struct cand *st, struct cand *out)
{
	int64_t len, a, b, step = 1, k, count;
	size_t *idx = NULL, nc = 0;
	const struct cand *parts[3] = { lo, hi, st };
	int i;

	for (i = 0; i < 3; i++)
		if (parts[i] && parts[i]->kind != C_NUM &&
		    parts[i]->kind != C_BOOL && parts[i]->kind != C_NONE)
			return parts[i]->kind == C_UNK ? 0 : -1;
	if (st && st->kind != C_NONE) {
		step = st->num;
		if (step == 0)
			return -1;
	}
	if (x->kind == C_STR) {
		if (!char_index(sc, x->s.p, x->s.n, &idx, &nc))
			return 0;
		len = (int64_t)nc;
	} else if (x->kind == C_LIST && !x->dict) {
		len = x->n_items;
	} else {
		return 0;
	}
	if (step == INT64_MIN)
		return 0;
	a = lo && lo->kind != C_NONE ? clamp_index(lo->num, len, step < 0) :
	    step < 0 ? len - 1 : 0;
	b = hi && hi->kind != C_NONE ? clamp_index(hi->num, len, step < 0) :
	    step < 0 ? -1 : len;
	if (step > 0)
		count = b > a ? (b - a - 1) / step + 1 : 0;
	else
		count = a > b ? (a - b - 1) / (-step) + 1 : 0;
	if (x->kind == C_STR) {
		char *p = new_str(sc, x->s.n);
		size_t o = 0;

		if (!p)
			return 0;
		for (k = 0; k < count; k++) {
			int64_t c = a + k * step;
			size_t w = idx[c + 1] - idx[c];

			memcpy(p + o, x->s.p + idx[c], w);
			o += w;
		}
		pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
	} else {
		struct cand items[MAXL];

		for (k = 0; k < count; k++)
			items[k] = x->items[a + k * step];
		return cand_list(sc, items, (uint32_t)count, false, out) ? 1 : 0;
	}
}

/* x[i] of a string or list; a dict's values are not known. */
static int
const_index(struct scan *sc, const struct cand *x, const struct cand *i,
	    struct cand *out)
{
	int64_t k, len;
	size_t *idx, nc;

	if (i->kind != C_NUM && i->kind != C_BOOL)
		return 0;
	k = i->num;
	if (x->kind == C_STR) {
		if (!char_index(sc, x->s.p, x->s.n, &idx, &nc))
			return 0;
		len = (int64_t)nc;
		if (k < 0)
			k += len;
		if (k < 0 || k >= len)
			return -1;
		return cand_string(sc, x->s.p + idx[k], idx[k + 1] - idx[k],
				   out) ? 1 : 0;
	}
	if (x->kind == C_LIST && !x->dict) {
		len = x->n_items;
		if (k < 0)
			k += len;
		if (k < 0 || k >= len)
			return -1;
		*out = x->items[k];
		return out->kind == C_UNK ? 0 : 1;
	}
	return 0;
}

/* ---- string methods and filters ----------------------------------------- */

static char
lower_c(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static char
upper_c(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static bool
is_alpha_c(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

enum casing { CASE_LOWER, CASE_UPPER, CASE_TITLE, CASE_CAP, CASE_SWAP };

/* Case changes of ASCII text; other text is not folded (Python maps
 * some non-ASCII letters to ASCII ones: 'ſ'.upper() is 'S'). */
static int
change_case(struct scan *sc, struct sv s, enum casing how, struct cand *out)
{
	char *p;
	size_t i;
	bool word = false;

	if (!is_ascii(s.p, s.n))
		return 0;
	p = new_str(sc, s.n);
	if (!p)
		return 0;
	for (i = 0; i < s.n; i++) {
		char c = s.p[i];

		switch (how) {
		case CASE_LOWER: c = lower_c(c); break;
		case CASE_UPPER: c = upper_c(c); break;
		case CASE_CAP: c = i == 0 ? upper_c(c) : lower_c(c); break;
		case CASE_SWAP:
			c = c >= 'a' && c <= 'z' ? upper_c(c) : lower_c(c);
			break;
		case CASE_TITLE:
			c = word ? lower_c(c) : upper_c(c);
			word = is_alpha_c(c);
			break;
		}
		p[i] = c;
	}
	return cand_string(sc, p, s.n, out) ? 1 : 0;
}

/* strip / lstrip / rstrip with Python's whitespace or a set of chars. */
static int
strip_str(struct scan *sc, struct sv s, const struct cand *chars, bool left,
	  bool right, struct cand *out)
{
	size_t a = 0, b = s.n;

	(void)sc;
	if (chars && chars->kind != C_NONE && chars->kind != C_STR)
		return chars->kind == C_UNK ? 0 : -1;
	if (chars && chars->kind == C_STR) {
		if (!is_ascii(chars->s.p, chars->s.n))
			return 0;
		while (left && a < b && memchr(chars->s.p, s.p[a], chars->s.n))
			a++;
		while (right && b > a &&
		       memchr(chars->s.p, s.p[b - 1], chars->s.n))
			b--;
	} else {
		/* non-ASCII whitespace (U+00A0, U+3000...) is stripped too */
		if (!is_ascii(s.p, s.n))
			return 0;
		while (left && a < b && py_space((unsigned char)s.p[a]))
			a++;
		while (right && b > a && py_space((unsigned char)s.p[b - 1]))
			b--;
	}
	return cand_string(sc, s.p + a, b - a, out) ? 1 : 0;
}

static int
replace_str(struct scan *sc, struct sv s, const struct cand *old,
	    const struct cand *new, const struct cand *count,
	    struct cand *out)
{
	int64_t max = -1, done = 0;
	size_t i = 0, o = 0;
	char *p;

	if (old->kind != C_STR || new->kind != C_STR)
		return old->kind == C_UNK || new->kind == C_UNK ? 0 : -1;
	if (count && count->kind != C_NONE) {
		if (count->kind != C_NUM)
			return 0;
		max = count->num;
	}
	p = new_str(sc, VAL_MAX);
	if (!p)
		return 0;
	if (old->s.n == 0) {
		/* 'ab'.replace('', '_') is '_a_b_' */
		if (!is_ascii(s.p, s.n))
			return 0;
		for (i = 0; i <= s.n; i++) {
			if (max < 0 || done < max) {
				if (o + new->s.n > VAL_MAX)
					return 0;
				memcpy(p + o, new->s.p, new->s.n);
				o += new->s.n;
				done++;
			}
			if (i < s.n) {
				if (o + 1 > VAL_MAX)
					return 0;
				p[o++] = s.p[i];
			}
		}
		pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
	}
	while (i < s.n) {
		if ((max < 0 || done < max) && i + old->s.n <= s.n &&
		    memcmp(s.p + i, old->s.p, old->s.n) == 0) {
			if (o + new->s.n > VAL_MAX)
				return 0;
			memcpy(p + o, new->s.p, new->s.n);
			o += new->s.n;
			i += old->s.n;
			done++;
			continue;
		}
		if (o + 1 > VAL_MAX)
			return 0;
		p[o++] = s.p[i++];
	}
	pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
}

/* sep.join(items); with conv, str() of each item (Jinja's |join). */
static int
join_items(struct scan *sc, const struct cand *list, struct sv sep, bool conv,
	   struct cand *out)
{
	struct cand chars;
	const struct cand *items;
	uint32_t n, i;
	char *p;
	size_t o = 0;

	if (list->kind == C_STR) {
		if (!chars_of(sc, list->s, &chars))
			return 0;
		list = &chars;
	}
	if (list->kind != C_LIST)
		return list->kind == C_UNK ? 0 : -1;
	items = list->items;
	n = list->n_items;
	p = new_str(sc, VAL_MAX);
	if (!p)
		return 0;
	for (i = 0; i < n; i++) {
		struct sv e;

		if (items[i].kind == C_UNK)
			return 0;
		if (!conv && items[i].kind != C_STR)
			return -1;
		if (!to_str(sc, &items[i], &e, 0))
			return 0;
		if (o + (i ? sep.n : 0) + e.n > VAL_MAX)
			return 0;
		if (i) {
			memcpy(p + o, sep.p, sep.n);
			o += sep.n;
		}
		memcpy(p + o, e.p, e.n);
		o += e.n;
	}
	pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
}

/* str.split(sep=None, maxsplit=-1). */
static int
split_str(struct scan *sc, struct sv s, const struct cand *sep,
	  const struct cand *maxsplit, struct cand *out)
{
	struct cand items[MAXL];
	uint32_t n = 0;
	int64_t max = -1;
	size_t i = 0, start;

	if (maxsplit && maxsplit->kind != C_NONE) {
		if (maxsplit->kind != C_NUM)
			return 0;
		max = maxsplit->num;
	}
	if (sep && sep->kind != C_NONE) {
		if (sep->kind != C_STR)
			return sep->kind == C_UNK ? 0 : -1;
		if (sep->s.n == 0)
			return -1;
		start = 0;
		while (i + sep->s.n <= s.n) {
			if ((max < 0 || (int64_t)n < max) &&
			    memcmp(s.p + i, sep->s.p, sep->s.n) == 0) {
				if (n + 1 >= MAXL)
					return 0;
				cand_string(sc, s.p + start, i - start,
					    &items[n++]);
				i += sep->s.n;
				start = i;
				continue;
			}
			i++;
		}
		cand_string(sc, s.p + start, s.n - start, &items[n++]);
		return cand_list(sc, items, n, false, out) ? 1 : 0;
	}
	if (!is_ascii(s.p, s.n))
		return 0;
	while (i < s.n) {
		while (i < s.n && py_space((unsigned char)s.p[i]))
			i++;
		if (i >= s.n)
			break;
		start = i;
		if (max >= 0 && (int64_t)n >= max) {
			size_t e = s.n;

			while (e > start && py_space((unsigned char)s.p[e - 1]))
				e--;
			if (n >= MAXL)
				return 0;
			cand_string(sc, s.p + start, e - start, &items[n++]);
			break;
		}
		while (i < s.n && !py_space((unsigned char)s.p[i]))
			i++;
		if (n >= MAXL)
			return 0;
		cand_string(sc, s.p + start, i - start, &items[n++]);
	}
	return cand_list(sc, items, n, false, out) ? 1 : 0;
}

/* center / ljust / rjust / zfill. */
static int
pad_str(struct scan *sc, struct sv s, const char *how, const struct cand *w,
	const struct cand *fill, struct cand *out)
{
	int64_t width, len, marg, left;
	size_t *idx, nc;
	char f = how[0] == 'z' ? '0' : ' ';
	char *p;
	size_t o = 0;

	if (!w)
		return 0;
	if (w->kind != C_NUM)
		return w->kind == C_UNK ? 0 : -1;
	if (fill && fill->kind != C_NONE) {
		if (fill->kind == C_UNK)
			return 0;
		if (fill->kind != C_STR)
			return -1;
		if (fill->s.n != 1)
			return is_ascii(fill->s.p, fill->s.n) ? -1 : 0;
		f = fill->s.p[0];
	}
	if (!char_index(sc, s.p, s.n, &idx, &nc))
		return 0;
	len = (int64_t)nc;
	width = w->num;
	if (width <= len)
		return cand_string(sc, s.p, s.n, out) ? 1 : 0;
	if (width - len > VAL_MAX)
		return 0;
	marg = width - len;
	if (how[0] == 'c')
		left = marg / 2 + (marg & width & 1);
	else if (how[0] == 'l')
		left = 0;
	else
		left = marg;
	p = new_str(sc, s.n + (size_t)marg);
	if (!p)
		return 0;
	if (how[0] == 'z' && s.n && (s.p[0] == '-' || s.p[0] == '+')) {
		p[o++] = s.p[0];
		memset(p + o, '0', (size_t)marg);
		o += (size_t)marg;
		memcpy(p + o, s.p + 1, s.n - 1);
		o += s.n - 1;
		pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
	}
	memset(p, f, (size_t)left);
	o = (size_t)left;
	memcpy(p + o, s.p, s.n);
	o += s.n;
	memset(p + o, f, (size_t)(marg - left));
	o += (size_t)(marg - left);
	pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
}

static int
reverse_cand(struct scan *sc, const struct cand *x, struct cand *out)
{
	if (x->kind == C_STR) {
		size_t *idx, nc, k, o = 0;
		char *p = new_str(sc, x->s.n);

		if (!p || !char_index(sc, x->s.p, x->s.n, &idx, &nc))
			return 0;
		for (k = nc; k > 0; k--) {
			size_t w = idx[k] - idx[k - 1];

			memcpy(p + o, x->s.p + idx[k - 1], w);
			o += w;
		}
		pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
	}
	if (x->kind == C_LIST && !x->dict) {
		struct cand items[MAXL];
		uint32_t i;

		for (i = 0; i < x->n_items; i++)
			items[i] = x->items[x->n_items - 1 - i];
		return cand_list(sc, items, x->n_items, false, out) ? 1 : 0;
	}
	return 0;
}

/* Markup escaping (|e, |escape, |forceescape). */
static int
escape_str(struct scan *sc, struct sv s, struct cand *out)
{
	char *p = new_str(sc, VAL_MAX);
	size_t i, o = 0;

	if (!p)
		return 0;
	for (i = 0; i < s.n; i++) {
		const char *r = NULL;
		char one[2] = { s.p[i], '\0' };
		size_t k;

		switch (s.p[i]) {
		case '&': r = "&amp;"; break;
		case '<': r = "&lt;"; break;
		case '>': r = "&gt;"; break;
		case '"': r = "&#34;"; break;
		case '\'': r = "&#39;"; break;
		default: r = one; break;
		}
		k = strlen(r);
		if (o + k > VAL_MAX)
			return 0;
		memcpy(p + o, r, k);
		o += k;
	}
	pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
}

/* json.dumps of a constant (strings with ASCII escapes as Python's json
 * writes them; non-ASCII kept, as transformers' tojson does). */
static bool
json_of(struct scan *sc, const struct cand *c, char *p, size_t *o, int depth)
{
	char num[32];
	size_t n, i;
	uint32_t k;

#define PUTS(str, len) do { if (*o + (len) > VAL_MAX) return false; \
	memcpy(p + *o, (str), (len)); *o += (len); } while (0)
	switch (c->kind) {
	case C_STR:
		PUTS("\"", 1);
		for (i = 0; i < c->s.n; i++) {
			unsigned char ch = (unsigned char)c->s.p[i];
			char e[8];

			if (ch == '"' || ch == '\\') {
				e[0] = '\\';
				e[1] = (char)ch;
				PUTS(e, 2);
			} else if (ch == '\n') {
				PUTS("\\n", 2);
			} else if (ch == '\r') {
				PUTS("\\r", 2);
			} else if (ch == '\t') {
				PUTS("\\t", 2);
			} else if (ch < 0x20) {
				snprintf(e, sizeof(e), "\\u%04x", ch);
				PUTS(e, 6);
			} else {
				e[0] = (char)ch;
				PUTS(e, 1);
			}
		}
		PUTS("\"", 1);
		return true;
	case C_NUM:
		n = fmt_int(num, sizeof(num), c->num);
		PUTS(num, n);
		return true;
	case C_BOOL:
		if (c->num)
			PUTS("true", 4);
		else
			PUTS("false", 5);
		return true;
	case C_NONE:
		PUTS("null", 4);
		return true;
	case C_LIST:
		if (c->dict || depth > 3)
			return false;
		PUTS("[", 1);
		for (k = 0; k < c->n_items; k++) {
			if (k)
				PUTS(", ", 2);
			if (!json_of(sc, &c->items[k], p, o, depth + 1))
				return false;
		}
		PUTS("]", 1);
		return true;
	default:
		return false;
	}
#undef PUTS
}

static int
tojson_cand(struct scan *sc, const struct cand *c, struct cand *out)
{
	char *p = new_str(sc, VAL_MAX);
	size_t o = 0;

	if (!p || !json_of(sc, c, p, &o, 0))
		return 0;
	pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
}

static void check_attr_name(struct scan *sc, const char *s, size_t n,
			    bool built, size_t pos, const char *what);

/*
 * str.format: {} / {N} / {name} fields with !s / !r and a simple spec
 * ([[fill]align][width][.precision][s|d|c]). A field that walks
 * attributes or items ({0.__class__}, {0[x]}) is a sink; it and anything
 * else unusual make the result unknown.
 */
static int
str_format(struct scan *sc, struct sv f, const struct cand *const *pos,
	   unsigned n_pos, const char *const *kwn, const struct cand *const *kw,
	   unsigned n_kw, size_t at, struct cand *out)
{
	char *p = new_str(sc, VAL_MAX);
	size_t i = 0, o = 0;
	unsigned auto_i = 0;
	bool unknown = false;

	if (!p)
		return 0;
	while (i < f.n) {
		char c = f.p[i];
		size_t start, fe;
		const struct cand *arg = NULL;
		struct sv s;
		char conv = 0, fill = ' ', align = 0;
		long width = -1, prec = -1;
		char type = 0, u[4];
		size_t k, un;

		if (c == '}' && i + 1 < f.n && f.p[i + 1] == '}') {
			if (o >= VAL_MAX)
				return 0;
			p[o++] = '}';
			i += 2;
			continue;
		}
		if (c != '{') {
			if (o >= VAL_MAX)
				return 0;
			p[o++] = c;
			i++;
			continue;
		}
		if (i + 1 < f.n && f.p[i + 1] == '{') {
			if (o >= VAL_MAX)
				return 0;
			p[o++] = '{';
			i += 2;
			continue;
		}
		start = ++i;
		while (i < f.n && f.p[i] != '}' && f.p[i] != '!' &&
		       f.p[i] != ':' && f.p[i] != '.' && f.p[i] != '[')
			i++;
		fe = i;
		if (i < f.n && (f.p[i] == '.' || f.p[i] == '[')) {
			/* attribute or item walk: each name is a sink */
			while (i < f.n && f.p[i] != '}' && f.p[i] != '!' &&
			       f.p[i] != ':') {
				size_t b = ++i;

				while (i < f.n && f.p[i] != '.' &&
				       f.p[i] != '[' && f.p[i] != ']' &&
				       f.p[i] != '}' && f.p[i] != '!' &&
				       f.p[i] != ':')
					i++;
				if (i > b)
					check_attr_name(sc, f.p + b, i - b, true,
							at, "str.format field");
				if (i < f.n && f.p[i] == ']')
					i++;
			}
			unknown = true;
		}
		if (i < f.n && f.p[i] == '!') {
			conv = i + 1 < f.n ? f.p[i + 1] : 0;
			i += 2;
		}
		if (i < f.n && f.p[i] == ':') {
			size_t sb = ++i;

			while (i < f.n && f.p[i] != '}')
				i++;
			k = sb;
			if (i - k >= 2 && strchr("<>^", f.p[k + 1])) {
				fill = f.p[k];
				align = f.p[k + 1];
				k += 2;
			} else if (k < i && strchr("<>^", f.p[k])) {
				align = f.p[k];
				k++;
			}
			for (; k < i && f.p[k] >= '0' && f.p[k] <= '9'; k++) {
				width = (width < 0 ? 0 : width) * 10 +
					(f.p[k] - '0');
				if (width > VAL_MAX)
					return 0;
			}
			if (k < i && f.p[k] == '.') {
				prec = 0;
				for (k++; k < i && f.p[k] >= '0' &&
				     f.p[k] <= '9'; k++) {
					prec = prec * 10 + (f.p[k] - '0');
					if (prec > VAL_MAX)
						return 0;
				}
			}
			if (k < i && strchr("sdc", f.p[k])) {
				type = f.p[k];
				k++;
			}
			if (k != i)
				unknown = true;
		}
		if (i >= f.n)
			return -1;
		i++;	/* '}' */
		if (unknown)
			continue;
		if (fe == start) {
			if (auto_i < n_pos)
				arg = pos[auto_i];
			auto_i++;
		} else if (f.p[start] >= '0' && f.p[start] <= '9') {
			unsigned long ix = strtoul(f.p + start, NULL, 10);

			if (ix < n_pos)
				arg = pos[ix];
		} else {
			for (k = 0; k < n_kw; k++)
				if (strlen(kwn[k]) == fe - start &&
				    memcmp(kwn[k], f.p + start, fe - start) == 0)
					arg = kw[k];
		}
		if (!arg)
			return -1;
		if (arg->kind == C_UNK) {
			unknown = true;
			continue;
		}
		if (type == 'c') {
			if (!pct_char(arg, u, &un) || arg->kind == C_STR) {
				unknown = true;
				continue;
			}
			s.p = u;
			s.n = un;
		} else if (conv == 'r') {
			char rb[VAL_MAX];

			if (arg->kind != C_STR) {
				unknown = true;
				continue;
			}
			un = py_repr(arg->s.p, arg->s.n, rb, sizeof(rb));
			if (un > sizeof(rb))
				return 0;
			if (o + un > VAL_MAX)
				return 0;
			memcpy(p + o, rb, un);
			o += un;
			continue;
		} else if (!to_str(sc, arg, &s, 0)) {
			unknown = true;
			continue;
		}
		if (prec >= 0 && (size_t)prec < s.n) {
			if (!is_ascii(s.p, s.n)) {
				unknown = true;
				continue;
			}
			s.n = (size_t)prec;
		}
		if (width > 0 && (size_t)width > s.n) {
			size_t pad = (size_t)width - s.n, l;
			bool num = arg->kind == C_NUM || arg->kind == C_BOOL;

			if (!align)
				align = num ? '>' : '<';
			l = align == '<' ? 0 : align == '>' ? pad : pad / 2;
			if (o + s.n + pad > VAL_MAX)
				return 0;
			memset(p + o, fill, l);
			o += l;
			memcpy(p + o, s.p, s.n);
			o += s.n;
			memset(p + o, fill, pad - l);
			o += pad - l;
		} else {
			if (o + s.n > VAL_MAX)
				return 0;
			memcpy(p + o, s.p, s.n);
			o += s.n;
		}
	}
	if (unknown)
		return 0;
	pool_trim(&sc->pool, p, VAL_MAX, o);
	return cand_string(sc, p, o, out) ? 1 : 0;
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
	bool whole = is_dunder(s, n);

	if (!sc->final)
		return;
	while (i <= n) {
		for (j = i; j < n && s[j] != '.'; j++)
			;
		if (j > i) {
			const char *part = s + i;
			size_t pn = j - i;

			shown(part, pn, buf, sizeof(buf));
			if (is_dunder(part, pn)) {
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
			} else if (IN_LIST(part, pn, internal_attrs)) {
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
sink_attr(struct scan *sc, const struct val *v, size_t pos, const char *what)
{
	unsigned i;

	if (!sc->final)
		return;
	for (i = 0; i < v->n; i++) {
		const struct cand *c = &v->c[i];

		if (c->kind == C_STR)
			check_attr_name(sc, c->s.p, c->s.n, c->built, pos, what);
		else if (c->kind == C_OBJ || c->kind == C_LIST)
			note(&sc->obfuscation, pos,
			     "an object as the name for %s", what);
	}
	if (v->opq)
		note(&sc->obfuscation, pos,
		     "name for %s computed at run time, not resolvable", what);
}

/* A subscript key: x[key] falls back to getattr(x, key) in Jinja. */
static void
sink_key(struct scan *sc, const struct val *v, size_t pos)
{
	char buf[48];
	unsigned i;

	if (!sc->final)
		return;
	for (i = 0; i < v->n; i++) {
		const struct cand *c = &v->c[i];

		if (c->kind == C_OBJ) {
			note(&sc->obfuscation, pos, "an object as a key");
			continue;
		}
		if (c->kind != C_STR)
			continue;
		shown(c->s.p, c->s.n, buf, sizeof(buf));
		if (is_dunder(c->s.p, c->s.n)) {
			if (c->built)
				note(&sc->obfuscation, pos,
				     "'%s' built at run time, as a key", buf);
		} else if (is_mangled(c->s.p, c->s.n)) {
			note(&sc->internals, pos, "private attribute '%s' as "
			     "a key", buf);
		} else if (IN_LIST(c->s.p, c->s.n, internal_attrs)) {
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
note_built(struct scan *sc, const struct val *v, size_t pos)
{
	unsigned i;

	if (!sc->final)
		return;
	for (i = 0; i < v->n; i++)
		if (v->c[i].kind == C_STR && v->c[i].built)
			check_value(sc, v->c[i].s.p, v->c[i].s.n, true, pos);
}

/* ---- tokens --------------------------------------------------------------- */

static const struct etok end_tok = { .kind = T_END };

static const struct etok *
peek(const struct scan *sc, size_t k)
{
	return sc->at + k < sc->n_toks ? &sc->toks[sc->at + k] : &end_tok;
}

static bool
etok_is(const struct etok *k, enum tok_kind kind, const char *s)
{
	size_t n = strlen(s);

	return k->kind == kind && k->n == n && memcmp(k->s, s, n) == 0;
}

static bool
at_op(const struct scan *sc, const char *op)
{
	return etok_is(peek(sc, 0), T_OP, op);
}

static bool
at_name(const struct scan *sc, const char *name)
{
	return etok_is(peek(sc, 0), T_NAME, name);
}

static void
advance(struct scan *sc)
{
	if (sc->at < sc->n_toks)
		sc->at++;
}

static bool
accept_op(struct scan *sc, const char *op)
{
	if (!at_op(sc, op))
		return false;
	advance(sc);
	return true;
}

static void
parse_fail(struct scan *sc)
{
	if (!sc->parse_failed) {
		sc->parse_failed = true;
		sc->fail_pos = peek(sc, 0)->kind == T_END ?
			       (sc->n_toks ? sc->toks[sc->n_toks - 1].pos : 0) :
			       peek(sc, 0)->pos;
	}
}

static bool
expect_op(struct scan *sc, const char *op)
{
	if (accept_op(sc, op))
		return true;
	parse_fail(sc);
	return false;
}

static bool
is_keyword(const struct etok *k)
{
	static const char *const kw[] = {
		"and", "or", "not", "in", "is", "if", "else",
	};

	return k->kind == T_NAME && IN_LIST(k->s, k->n, kw);
}

/* ---- calls ------------------------------------------------------------------ */

#define MAX_ARGS 8

struct call {
	unsigned n_pos, n_kw;
	bool extra;		/* *args, **kwargs or more than MAX_ARGS */
	struct val pos[MAX_ARGS];
	struct val kw[MAX_ARGS];
	char kwname[MAX_ARGS][24];
	struct val rest;	/* join of what did not fit */
};

static void p_expr(struct scan *sc, struct val *out);
static void p_unary(struct scan *sc, struct val *out, bool with_filter);

static const struct val *
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
p_call_args(struct scan *sc, struct call *cl)
{
	memset(cl, 0, sizeof(*cl));
	v_clear(&cl->rest);
	while (!at_op(sc, ")") && peek(sc, 0)->kind != T_END &&
	       !sc->parse_failed) {
		struct val v;

		if (accept_op(sc, "*")) {
			accept_op(sc, "*");
			p_expr(sc, &v);
			cl->extra = true;
			v_join(&cl->rest, &v);
		} else if (peek(sc, 0)->kind == T_NAME &&
			   etok_is(peek(sc, 1), T_OP, "=")) {
			const struct etok *k = peek(sc, 0);

			advance(sc);
			advance(sc);
			p_expr(sc, &v);
			if (cl->n_kw < MAX_ARGS && k->n < sizeof(cl->kwname[0])) {
				memcpy(cl->kwname[cl->n_kw], k->s, k->n);
				cl->kwname[cl->n_kw][k->n] = '\0';
				cl->kw[cl->n_kw++] = v;
			} else {
				cl->extra = true;
				v_join(&cl->rest, &v);
			}
		} else {
			p_expr(sc, &v);
			if (cl->n_pos < MAX_ARGS)
				cl->pos[cl->n_pos++] = v;
			else {
				cl->extra = true;
				v_join(&cl->rest, &v);
			}
		}
		if (!accept_op(sc, ","))
			break;
	}
	expect_op(sc, ")");
}

/* An unknown result from self and the arguments. */
static void
v_unknown(struct val *out, const struct val *self, const struct call *cl)
{
	bool s = self ? has_str(self) : false;
	unsigned i;

	v_clear(out);
	for (i = 0; cl && i < cl->n_pos; i++)
		s |= has_str(&cl->pos[i]);
	for (i = 0; cl && i < cl->n_kw; i++)
		s |= has_str(&cl->kw[i]);
	if (cl)
		s |= has_str(&cl->rest);
	if (s)
		out->opq = true;
	else
		out->data = true;
}

/* ---- folding filters and methods ---------------------------------------- */

enum fkind { F_FILTER, F_METHOD };

static bool
is_name(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static int
num_cand(int64_t x, enum ckind k, struct cand *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = (uint8_t)k;
	out->num = x;
	return 1;
}

/* Case-insensitive (ASCII) comparison, as Jinja's sort and unique do by
 * default; 2 when a side is not ASCII text. */
static int
cmp_fold(const struct cand *a, const struct cand *b)
{
	size_t i, n;

	if (a->kind != C_STR || b->kind != C_STR ||
	    !is_ascii(a->s.p, a->s.n) || !is_ascii(b->s.p, b->s.n))
		return 2;
	n = a->s.n < b->s.n ? a->s.n : b->s.n;
	for (i = 0; i < n; i++) {
		char x = lower_c(a->s.p[i]), y = lower_c(b->s.p[i]);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return a->s.n < b->s.n ? -1 : a->s.n > b->s.n;
}

static const struct cand *
arg_or(const struct cand *const *a, unsigned na, unsigned i,
       const char *const *kwn, const struct cand *const *kw, unsigned nk,
       const char *name)
{
	unsigned k;

	if (i < na)
		return a[i];
	for (k = 0; k < nk; k++)
		if (strcmp(kwn[k], name) == 0)
			return kw[k];
	return NULL;
}

/* A list view of a candidate: lists as they are, strings as their
 * characters, dicts as their keys. */
static bool
as_list(struct scan *sc, const struct cand *c, struct cand *tmp,
	const struct cand **out)
{
	if (c->kind == C_LIST) {
		*out = c;
		return true;
	}
	if (c->kind == C_STR && chars_of(sc, c->s, tmp)) {
		*out = tmp;
		return true;
	}
	return false;
}

/*
 * One filter or method applied to one choice of candidates. 1 folded,
 * 0 not known, -1 an error at run time.
 */
static int
fold_one(struct scan *sc, enum fkind fk, const char *name,
	 const struct cand *self, const struct cand *const *a, unsigned na,
	 const char *const *kwn, const struct cand *const *kw, unsigned nk,
	 size_t at, struct cand *out)
{
	struct sv s;
	struct cand tmp;
	const struct cand *l, *x;
	bool filter = fk == F_FILTER;

	if (self->kind == C_UNK)
		return 0;
	/* filters convert to text first; methods need a str */
	if (self->kind == C_STR)
		s = self->s;
	else if (filter && to_str(sc, self, &s, 0))
		;
	else
		s.p = NULL, s.n = 0;
#define NEED_STR() do { if (!s.p) return 0; } while (0)
	if (is_name(name, "lower") || is_name(name, "casefold")) {
		NEED_STR();
		return change_case(sc, s, CASE_LOWER, out);
	}
	if (is_name(name, "upper")) {
		NEED_STR();
		return change_case(sc, s, CASE_UPPER, out);
	}
	if (is_name(name, "title")) {
		NEED_STR();
		return change_case(sc, s, CASE_TITLE, out);
	}
	if (is_name(name, "capitalize")) {
		NEED_STR();
		return change_case(sc, s, CASE_CAP, out);
	}
	if (!filter && is_name(name, "swapcase")) {
		NEED_STR();
		return change_case(sc, s, CASE_SWAP, out);
	}
	if ((filter && is_name(name, "trim")) ||
	    (!filter && is_name(name, "strip"))) {
		NEED_STR();
		return strip_str(sc, s, arg_or(a, na, 0, kwn, kw, nk, "chars"),
				 true, true, out);
	}
	if (!filter && (is_name(name, "lstrip") || is_name(name, "rstrip"))) {
		NEED_STR();
		return strip_str(sc, s, na ? a[0] : NULL, name[0] == 'l',
				 name[0] == 'r', out);
	}
	if (is_name(name, "replace")) {
		NEED_STR();
		if (na < 2)
			return na + nk >= 2 ? 0 : -1;
		return replace_str(sc, s, a[0], a[1],
				   arg_or(a, na, 2, kwn, kw, nk, "count"), out);
	}
	if (is_name(name, "join")) {
		struct sv sep = { "", 0 };

		if (filter) {
			x = arg_or(a, na, 0, kwn, kw, nk, "d");
			if (arg_or(NULL, 0, 0, kwn, kw, nk, "attribute"))
				return 0;
			if (x && !to_str(sc, x, &sep, 0))
				return 0;
			return join_items(sc, self, sep, true, out);
		}
		NEED_STR();
		if (na != 1)
			return -1;
		return join_items(sc, a[0], s, false, out);
	}
	if (is_name(name, "format")) {
		NEED_STR();
		if (filter) {
			struct cand args[MAX_ARGS];
			unsigned i;

			if (nk)
				return 0;
			for (i = 0; i < na; i++)
				args[i] = *a[i];
			return py_percent(sc, s, args, na, out);
		}
		return str_format(sc, s, a, na, kwn, kw, nk, at, out);
	}
	if (!filter && is_name(name, "format_map")) {
		NEED_STR();
		str_format(sc, s, NULL, 0, NULL, NULL, 0, at, out);
		return 0;
	}
	if (filter && (is_name(name, "string") || is_name(name, "safe"))) {
		NEED_STR();
		return cand_string(sc, s.p, s.n, out) ? 1 : 0;
	}
	if (filter && (is_name(name, "e") || is_name(name, "escape") ||
		       is_name(name, "forceescape"))) {
		NEED_STR();
		return escape_str(sc, s, out);
	}
	if (filter && is_name(name, "list")) {
		if (self->kind == C_LIST) {
			*out = *self;
			out->dict = false;
			return 1;
		}
		if (self->kind == C_STR)
			return chars_of(sc, self->s, out) ? 1 : 0;
		return 0;
	}
	if (filter && (is_name(name, "first") || is_name(name, "last"))) {
		if (!as_list(sc, self, &tmp, &l))
			return 0;
		if (l->n_items == 0)
			return num_cand(0, C_UNDEF, out);
		*out = l->items[name[0] == 'f' ? 0 : l->n_items - 1];
		return out->kind == C_UNK ? 0 : 1;
	}
	if (filter && is_name(name, "reverse"))
		return reverse_cand(sc, self->kind == C_LIST ? self :
				    (s.p ? &(struct cand){ .kind = C_STR,
							   .s = s } : self),
				    out);
	if (is_name(name, "center") || (!filter && (is_name(name, "ljust") ||
						    is_name(name, "rjust") ||
						    is_name(name, "zfill")))) {
		struct cand w80;

		NEED_STR();
		x = arg_or(a, na, 0, kwn, kw, nk, "width");
		if (!x && filter) {
			num_cand(80, C_NUM, &w80);
			x = &w80;
		}
		return pad_str(sc, s, name, x,
			       name[0] == 'z' ? NULL : (na > 1 ? a[1] : NULL),
			       out);
	}
	if (!filter && (is_name(name, "removeprefix") ||
			is_name(name, "removesuffix"))) {
		NEED_STR();
		if (na != 1 || a[0]->kind != C_STR)
			return na == 1 && a[0]->kind == C_UNK ? 0 : -1;
		if (a[0]->s.n <= s.n && name[6] == 'p' &&
		    memcmp(s.p, a[0]->s.p, a[0]->s.n) == 0)
			return cand_string(sc, s.p + a[0]->s.n,
					   s.n - a[0]->s.n, out) ? 1 : 0;
		if (a[0]->s.n <= s.n && name[6] == 's' &&
		    memcmp(s.p + s.n - a[0]->s.n, a[0]->s.p, a[0]->s.n) == 0)
			return cand_string(sc, s.p, s.n - a[0]->s.n, out) ?
			       1 : 0;
		return cand_string(sc, s.p, s.n, out) ? 1 : 0;
	}
	if (!filter && (is_name(name, "split") ||
			(is_name(name, "rsplit") &&
			 !arg_or(a, na, 1, kwn, kw, nk, "maxsplit")))) {
		NEED_STR();
		return split_str(sc, s, arg_or(a, na, 0, kwn, kw, nk, "sep"),
				 arg_or(a, na, 1, kwn, kw, nk, "maxsplit"),
				 out);
	}
	if (!filter && is_name(name, "partition")) {
		struct cand items[3];
		const char *f;

		NEED_STR();
		if (na != 1 || a[0]->kind != C_STR || a[0]->s.n == 0)
			return na == 1 && a[0]->kind == C_UNK ? 0 : -1;
		f = find_bytes(s.p, s.n, a[0]->s.p, a[0]->s.n);
		if (!f) {
			cand_string(sc, s.p, s.n, &items[0]);
			cand_string(sc, "", 0, &items[1]);
			cand_string(sc, "", 0, &items[2]);
		} else {
			cand_string(sc, s.p, (size_t)(f - s.p), &items[0]);
			cand_string(sc, f, a[0]->s.n, &items[1]);
			cand_string(sc, f + a[0]->s.n,
				    s.n - (size_t)(f - s.p) - a[0]->s.n,
				    &items[2]);
		}
		return cand_list(sc, items, 3, false, out) ? 1 : 0;
	}
	if (!filter && (is_name(name, "startswith") ||
			is_name(name, "endswith"))) {
		NEED_STR();
		if (na < 1 || a[0]->kind != C_STR)
			return 0;
		if (a[0]->s.n > s.n)
			return num_cand(0, C_BOOL, out);
		return num_cand(memcmp(name[0] == 's' ? s.p :
				       s.p + s.n - a[0]->s.n, a[0]->s.p,
				       a[0]->s.n) == 0, C_BOOL, out);
	}
	if (is_name(name, "length") || is_name(name, "count") ||
	    (filter && is_name(name, "wordcount"))) {
		size_t *idx, nc;

		if (!filter || na || is_name(name, "wordcount"))
			return 0;
		if (self->kind == C_LIST)
			return num_cand(self->n_items, C_NUM, out);
		if (self->kind == C_STR &&
		    char_index(sc, self->s.p, self->s.n, &idx, &nc))
			return num_cand((int64_t)nc, C_NUM, out);
		return 0;
	}
	if (filter && is_name(name, "int")) {
		int64_t v = 0;
		size_t i;

		if (self->kind == C_NUM || self->kind == C_BOOL)
			return num_cand(self->num, C_NUM, out);
		if (self->kind != C_STR || na || nk || self->s.n == 0 ||
		    self->s.n > 18)
			return 0;
		for (i = 0; i < self->s.n; i++) {
			if (self->s.p[i] < '0' || self->s.p[i] > '9')
				return 0;
			v = v * 10 + (self->s.p[i] - '0');
		}
		return num_cand(v, C_NUM, out);
	}
	if (filter && is_name(name, "abs") &&
	    (self->kind == C_NUM || self->kind == C_BOOL) &&
	    self->num != INT64_MIN)
		return num_cand(self->num < 0 ? -self->num : self->num, C_NUM,
				out);
	if (filter && is_name(name, "tojson"))
		return nk || na > 1 ? 0 : tojson_cand(sc, self, out);
	if (filter && is_name(name, "pprint") && self->kind == C_STR) {
		char *p = new_str(sc, VAL_MAX);
		size_t n;

		if (!p)
			return 0;
		n = py_repr(self->s.p, self->s.n, p, VAL_MAX);
		return n <= VAL_MAX && cand_string(sc, p, n, out) ? 1 : 0;
	}
	if (filter && (is_name(name, "sort") || is_name(name, "unique"))) {
		struct cand items[MAXL];
		uint32_t n = 0, i, j;
		bool rev = false;

		if (!as_list(sc, self, &tmp, &l) || l->dict ||
		    arg_or(a, na, 2, kwn, kw, nk, "attribute") ||
		    arg_or(a, na, 1, kwn, kw, nk, "case_sensitive") ||
		    (is_name(name, "unique") && na))
			return 0;
		x = is_name(name, "sort") ? arg_or(a, na, 0, kwn, kw, nk,
						   "reverse") : NULL;
		if (x) {
			if (x->kind != C_BOOL && x->kind != C_NUM)
				return 0;
			rev = x->num != 0;
		}
		for (i = 0; i < l->n_items; i++) {
			bool dup = false;

			if (l->items[i].kind != C_STR)
				return 0;
			for (j = 0; is_name(name, "unique") && j < n && !dup;
			     j++) {
				int c = cmp_fold(&items[j], &l->items[i]);

				if (c == 2)
					return 0;
				dup = c == 0;
			}
			if (!dup)
				items[n++] = l->items[i];
		}
		/* stable insertion sort */
		for (i = 1; is_name(name, "sort") && i < n; i++) {
			struct cand k = items[i];

			for (j = i; j > 0; j--) {
				int c = cmp_fold(&items[j - 1], &k);

				if (c == 2)
					return 0;
				if (rev ? c >= 0 : c <= 0)
					break;
				items[j] = items[j - 1];
			}
			items[j] = k;
		}
		return cand_list(sc, items, n, false, out) ? 1 : 0;
	}
	if (!filter && is_name(name, "keys") && self->kind == C_LIST &&
	    self->dict) {
		*out = *self;
		out->dict = false;
		return 1;
	}
	return 0;
#undef NEED_STR
}

/*
 * name(self, args) over every choice of candidates (at most 64; beyond,
 * not folded), the unknown parts mixed in (v_mix rules).
 */
static void
fold_call(struct scan *sc, enum fkind fk, const char *name,
	  const struct val *self, const struct call *cl, size_t at,
	  struct val *out)
{
	const struct val *vals[1 + 2 * MAX_ARGS];
	unsigned nv = 0, i, idx[1 + 2 * MAX_ARGS];
	unsigned long total = 1, k;
	bool any_str = false, any_data = false, any_opq = false;

	v_clear(out);
	vals[nv++] = self;
	for (i = 0; i < cl->n_pos; i++)
		vals[nv++] = &cl->pos[i];
	for (i = 0; i < cl->n_kw; i++)
		vals[nv++] = &cl->kw[i];
	for (i = 0; i < nv; i++) {
		any_str |= has_str(vals[i]);
		any_data |= vals[i]->data;
		any_opq |= vals[i]->opq || vals[i]->lossy;
		total *= vals[i]->n;
		if (total > 64)
			break;
	}
	any_str |= has_str(&cl->rest);
	any_data |= cl->rest.data;
	if (cl->extra || total > 64) {
		v_unknown(out, self, cl);
		return;
	}
	for (k = 0; k < total; k++) {
		const struct cand *a[MAX_ARGS], *kw[MAX_ARGS];
		const char *kwn[MAX_ARGS];
		unsigned long r = k;
		struct cand c;
		int got;

		for (i = 0; i < nv; i++) {
			idx[i] = (unsigned)(r % vals[i]->n);
			r /= vals[i]->n;
		}
		for (i = 0; i < cl->n_pos; i++)
			a[i] = &cl->pos[i].c[idx[1 + i]];
		for (i = 0; i < cl->n_kw; i++) {
			kw[i] = &cl->kw[i].c[idx[1 + cl->n_pos + i]];
			kwn[i] = cl->kwname[i];
		}
		got = fold_one(sc, fk, name, &self->c[idx[0]], a, cl->n_pos,
			       kwn, kw, cl->n_kw, at, &c);
		if (got > 0) {
			v_add(out, &c);
		} else if (got == 0) {
			bool s = cand_has_str(&self->c[idx[0]]);

			for (i = 0; i < cl->n_pos; i++)
				s |= cand_has_str(a[i]);
			for (i = 0; i < cl->n_kw; i++)
				s |= cand_has_str(kw[i]);
			if (s)
				out->opq = true;
			else
				out->data = true;
		}
	}
	if (any_opq)
		out->opq = true;
	if (any_data) {
		if (any_str)
			out->opq = true;
		else
			out->data = true;
	}
	note_built(sc, out, at);
}

/* Every item of self's lists as a candidate (|first of unknown order:
 * min, max, random; a cycler's next()). */
static void
items_of(struct scan *sc, const struct val *self, struct val *out)
{
	struct cand tmp;
	const struct cand *l;
	unsigned i;
	uint32_t k;

	v_clear(out);
	out->data = self->data;
	out->opq = self->opq || self->lossy;
	for (i = 0; i < self->n; i++) {
		if (!as_list(sc, &self->c[i], &tmp, &l)) {
			if (cand_has_str(&self->c[i]))
				out->opq = true;
			else
				out->data = true;
			continue;
		}
		for (k = 0; k < l->n_items; k++)
			v_add(out, &l->items[k]);
	}
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
make_item(const struct val *v, struct cand *it)
{
	if (v->n == 1 && !v->data && !v->opq && !v->lossy) {
		*it = v->c[0];
		return;
	}
	memset(it, 0, sizeof(*it));
	it->kind = C_UNK;
	it->opq = has_str(v);
	it->data = !it->opq;
}

static void
v_obj(struct val *v, int64_t what, const char *s, size_t n)
{
	v_clear(v);
	v->n = 1;
	memset(&v->c[0], 0, sizeof(v->c[0]));
	v->c[0].kind = C_OBJ;
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
name_value(struct scan *sc, const char *s, size_t n, struct val *out)
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
		v_kind(out, C_BOOL, 1);
		return;
	}
	if ((n == 5 && (memcmp(s, "false", 5) == 0 ||
			memcmp(s, "False", 5) == 0))) {
		v_kind(out, C_BOOL, 0);
		return;
	}
	if (n == 4 && (memcmp(s, "none", 4) == 0 ||
		       memcmp(s, "None", 4) == 0)) {
		v_kind(out, C_NONE, 0);
		return;
	}
	b = env_find(sc, s, n);
	if (b) {
		*out = b->v;
		return;
	}
	m = macro_find(sc, s, n);
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
	if (IN_LIST(s, n, globals) || ends_with(s, n, "_token") ||
	    ends_with(s, n, "_tokens")) {
		v_opq(out);
		return;
	}
	v_data(out);
}

static void
macro_call(struct scan *sc, struct macro *m, const struct call *cl,
	   struct val *out)
{
	unsigned i, k;

	for (i = 0; i < cl->n_pos && i < m->n_params; i++)
		env_bind_str(sc, m->params[i], &cl->pos[i]);
	for (i = 0; i < cl->n_kw; i++)
		for (k = 0; k < m->n_params; k++)
			if (strcmp(m->params[k], cl->kwname[i]) == 0)
				env_bind_str(sc, m->params[k], &cl->kw[i]);
	/* what a macro returns is the text it renders */
	v_opq(out);
}

#define MAX_NSKW 32

/* namespace(k=v, ...) of the statement being evaluated: {% set ns = %}
 * binds "ns.k". */
struct nskw {
	unsigned n;
	char name[MAX_NSKW][24];
	struct val v[MAX_NSKW];
};

/* A global called by name: range, dict, cycler, joiner, namespace... */
static bool
global_call(struct scan *sc, const char *s, size_t n, const struct call *cl,
	    struct val *out)
{
	struct cand items[MAXL];
	unsigned i;

#define IS(str) (n == strlen(str) && memcmp(s, str, n) == 0)
	if (IS("range")) {
		int64_t a = 0, b, st = 1, x;
		uint32_t k = 0;
		const struct val *v[3] = { NULL, NULL, NULL };

		v_data(out);
		if (cl->extra || cl->n_kw || cl->n_pos == 0 || cl->n_pos > 3)
			return true;
		for (i = 0; i < cl->n_pos; i++) {
			v[i] = &cl->pos[i];
			if (v[i]->n != 1 || v[i]->data || v[i]->opq ||
			    v[i]->c[0].kind != C_NUM)
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
			num_cand(x, C_NUM, &items[k++]);
		if ((st > 0 ? x < b : x > b))
			return true;
		v_clear(out);
		out->n = 1;
		cand_list(sc, items, k, false, &out->c[0]);
		return true;
	}
	if (IS("dict")) {
		/* a dict lists, joins and iterates as its keys: dict(_=1)
		 * gives '_' without writing a string */
		if (cl->extra || cl->n_pos) {
			v_unknown(out, NULL, cl);
			out->opq = true;
			return true;
		}
		for (i = 0; i < cl->n_kw; i++) {
			size_t kn = strlen(cl->kwname[i]);
			char *p = new_str(sc, kn);

			if (!p) {
				v_opq(out);
				return true;
			}
			memcpy(p, cl->kwname[i], kn);
			cand_string(sc, p, kn, &items[i]);
		}
		v_clear(out);
		out->n = 1;
		cand_list(sc, items, cl->n_kw, true, &out->c[0]);
		out->c[0].built = true;
		for (i = 0; i < cl->n_kw; i++) {
			if (has_str(&cl->kw[i]))
				out->c[0].opq = true;
			else
				out->c[0].data = true;
		}
		for (i = 0; i < cl->n_kw; i++) {
			struct val kv;

			v_str(&kv, items[i].s.p, items[i].s.n, true);
			note_built(sc, &kv, 0);
		}
		return true;
	}
	if (IS("cycler") || IS("joiner")) {
		uint32_t k = 0;

		if (IS("joiner")) {
			const struct val *sep = cl->n_pos ? &cl->pos[0] :
						kwarg(cl, "sep");

			cand_string(sc, "", 0, &items[k++]);
			if (sep)
				make_item(sep, &items[k++]);
			else
				cand_string(sc, ", ", 2, &items[k++]);
		} else {
			for (i = 0; i < cl->n_pos && k < MAXL; i++)
				make_item(&cl->pos[i], &items[k++]);
		}
		v_obj(out, IS("joiner") ? OBJ_JOINER : OBJ_CYCLER, NULL, 0);
		{
			struct cand lc;

			if (!cand_list(sc, items, k, false, &lc)) {
				v_opq(out);
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
		v_opq(out);
		return true;
	}
	if (IS("raise_exception")) {
		v_data(out);
		return true;
	}
	if (IS("strftime_now")) {
		/* strftime passes text without '%' through */
		v_unknown(out, NULL, cl);
		return true;
	}
#undef IS
	return false;
}

static void
value_call(struct scan *sc, const struct val *callee, const struct call *cl,
	   struct val *out)
{
	unsigned i;
	struct val r;

	v_clear(out);
	for (i = 0; i < callee->n; i++) {
		const struct cand *c = &callee->c[i];
		struct macro *m;

		if (c->kind == C_OBJ && c->num == OBJ_JOINER) {
			struct val it;
			struct val self;

			v_clear(&self);
			self.n = 1;
			self.c[0] = *c;
			self.c[0].kind = C_LIST;
			items_of(sc, &self, &it);
			v_join(out, &it);
			continue;
		}
		if (c->kind == C_OBJ && c->num == OBJ_MACRO &&
		    (m = macro_find(sc, c->s.p, c->s.n)) != NULL) {
			macro_call(sc, m, cl, &r);
			v_join(out, &r);
			continue;
		}
		v_unknown(&r, NULL, cl);
		if (cand_has_str(c))
			r.opq = true;
		v_join(out, &r);
	}
	if (callee->data || callee->opq || callee->lossy) {
		v_unknown(&r, NULL, cl);
		if (callee->opq || callee->lossy)
			r.opq = true;
		v_join(out, &r);
	}
}

/* The fields of a str.format string that walk attributes or items
 * ({0.__class__}, {x[__globals__]}): each name is a sink, whatever the
 * arguments are. */
static void
format_sinks(struct scan *sc, const struct val *self, size_t pos)
{
	unsigned i;
	size_t k;

	for (i = 0; i < self->n; i++) {
		const struct cand *c = &self->c[i];

		if (c->kind != C_STR)
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
					check_attr_name(sc, c->s.p + b, k - b,
							c->built, pos,
							"a str.format field");
			}
		}
	}
}

/* A method: self.name(args). */
static void
method_call(struct scan *sc, const struct val *self, const char *name,
	    const struct base *b, const struct call *cl, size_t pos,
	    struct val *out)
{
	static const char *const mutators[] = {
		"append", "extend", "insert", "pop", "remove", "clear",
		"update", "setdefault", "popitem", "sort", "reverse",
		"add", "discard",
	};
	struct val r;
	unsigned i;
	bool done_obj = false;

	v_clear(out);
	if (is_name(name, "format") || is_name(name, "format_map")) {
		if (sc->final && (self->opq || self->lossy))
			note(&sc->obfuscation, pos,
			     "str.format string computed at run time");
		format_sinks(sc, self, pos);
	}
	if (IN_LIST(name, strlen(name), mutators) && b->name) {
		/* l.append('__cla'): the list now holds what was passed */
		v_unknown(&r, self, cl);
		if (has_str(self))
			r.opq = true;
		env_bind(sc, b->name, b->n, &r);
	}
	for (i = 0; i < self->n; i++) {
		const struct cand *c = &self->c[i];

		if (c->kind != C_OBJ)
			continue;
		done_obj = true;
		if (c->num == OBJ_LOOP && is_name(name, "cycle")) {
			unsigned k;

			for (k = 0; k < cl->n_pos; k++)
				v_join(out, &cl->pos[k]);
			v_join(out, &cl->rest);
		} else if (c->num == OBJ_CYCLER && (is_name(name, "next") ||
						    is_name(name, "current"))) {
			struct val self1, it;

			v_clear(&self1);
			self1.n = 1;
			self1.c[0] = *c;
			self1.c[0].kind = C_LIST;
			items_of(sc, &self1, &it);
			v_join(out, &it);
		} else if (c->num == OBJ_LOOP) {
			out->data = true;
		} else {
			out->opq = true;
		}
	}
	if (done_obj && self->n == 1 && !self->data && !self->opq)
		return;
	if (IN_LIST(name, strlen(name), mutators)) {
		v_unknown(&r, self, cl);
		v_join(out, &r);
		return;
	}
	fold_call(sc, F_METHOD, name, self, cl, pos, &r);
	v_join(out, &r);
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
attribute(struct scan *sc, const struct val *self, const char *name,
	  size_t nn, const struct base *b, struct val *out)
{
	static const char *const loop_attrs[] = {
		"index", "index0", "revindex", "revindex0", "first", "last",
		"length", "depth", "depth0", "previtem", "nextitem",
	};
	char key[128];
	struct binding *bind;
	unsigned i;

	if (b->name && dotted(key, sizeof(key), b->name, b->n, name, nn)) {
		bind = env_find(sc, key, strlen(key));
		if (bind) {
			*out = bind->v;
			return;
		}
	}
	v_clear(out);
	out->data = self->data;
	out->opq = self->opq || self->lossy;
	for (i = 0; i < self->n; i++) {
		const struct cand *c = &self->c[i];

		if (c->kind == C_OBJ && c->num == OBJ_LOOP &&
		    in_list(name, nn, loop_attrs, sizeof(loop_attrs) /
			    sizeof(loop_attrs[0])))
			out->data = true;
		else if (c->kind == C_OBJ && c->num == OBJ_NS)
			out->data = true;
		else if (c->kind == C_OBJ && c->num == OBJ_CYCLER &&
			 nn == 7 && memcmp(name, "current", 7) == 0) {
			struct val self1, it;

			v_clear(&self1);
			self1.n = 1;
			self1.c[0] = *c;
			self1.c[0].kind = C_LIST;
			items_of(sc, &self1, &it);
			v_join(out, &it);
		} else if (c->kind == C_LIST && c->dict &&
			   !IN_LIST(name, nn, dict_methods) && name[0] != '_') {
			/* {"type": t}.type is the value of "type" */
			out->opq |= c->opq;
			out->data |= c->data;
		} else if ((c->kind == C_STR && !IN_LIST(name, nn, str_methods) &&
			    name[0] != '_') ||
			   (c->kind == C_LIST && !c->dict &&
			    !IN_LIST(name, nn, list_methods) && name[0] != '_') ||
			   c->kind == C_NUM || c->kind == C_BOOL ||
			   c->kind == C_NONE || c->kind == C_UNDEF) {
			/* no such attribute: undefined */
			struct cand u;

			memset(&u, 0, sizeof(u));
			u.kind = C_UNDEF;
			v_add(out, &u);
		} else if (c->kind == C_OBJ && c->num == OBJ_METHOD &&
			   name[0] != '_') {
			/* a bound method has no public attributes */
			struct cand u;

			memset(&u, 0, sizeof(u));
			u.kind = C_UNDEF;
			v_add(out, &u);
		} else if ((c->kind == C_STR || c->kind == C_LIST) &&
			   name[0] != '_') {
			/* 'abc'.upper, {}.items: a bound method */
			struct cand m;

			memset(&m, 0, sizeof(m));
			m.kind = C_OBJ;
			m.num = OBJ_METHOD;
			v_add(out, &m);
		} else if (c->kind == C_STR || c->kind == C_LIST ||
			   c->kind == C_OBJ)
			out->opq = true;
		else
			out->data = true;
	}
}

/* x[...]: an index (a sink) or a slice. */
static void
p_subscript(struct scan *sc, struct val *self, struct val *out)
{
	struct val part[3];
	bool have[3] = { false, false, false };
	bool is_slice = false;
	size_t pos = peek(sc, 0)->pos;
	unsigned i, j, k, l;
	int w = 0;

	advance(sc);	/* '[' */
	for (i = 0; i < 3; i++)
		v_clear(&part[i]);
	for (;;) {
		if (!at_op(sc, ":") && !at_op(sc, "]") && !at_op(sc, ",")) {
			p_expr(sc, &part[w]);
			have[w] = true;
		}
		if (accept_op(sc, ":")) {
			is_slice = true;
			if (++w > 2) {
				parse_fail(sc);
				break;
			}
			continue;
		}
		if (accept_op(sc, ",")) {
			/* a tuple key: no attribute fallback */
			struct val more;

			while (!at_op(sc, "]") && peek(sc, 0)->kind != T_END &&
			       !sc->parse_failed) {
				p_expr(sc, &more);
				if (!accept_op(sc, ","))
					break;
			}
			expect_op(sc, "]");
			v_unknown(out, self, NULL);
			return;
		}
		break;
	}
	expect_op(sc, "]");
	v_clear(out);
	if (!is_slice) {
		bool key_unknown = part[0].data || part[0].opq ||
				   part[0].lossy;

		sink_key(sc, &part[0], pos);
		/* caller data indexed by anything is caller data */
		out->data = self->data;
		out->opq = self->opq || self->lossy;
		for (i = 0; i < self->n; i++) {
			bool s = cand_has_str(&self->c[i]);

			if (self->c[i].kind == C_LIST && self->c[i].dict) {
				/* a dict's values: only what they may be */
				out->opq |= self->c[i].opq;
				out->data |= self->c[i].data;
				continue;
			}
			for (j = 0; j < part[0].n; j++) {
				struct cand c;
				int got = const_index(sc, &self->c[i],
						      &part[0].c[j], &c);

				if (got > 0)
					v_add(out, &c);
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
		note_built(sc, out, pos);
		return;
	}
	/* slices: every choice of bounds (absent ones as None) */
	for (w = 0; w < 3; w++)
		if (!have[w])
			v_kind(&part[w], C_NONE, 0);
	if (self->data)
		out->data = true;
	if (self->opq || self->lossy)
		out->opq = true;
	for (w = 0; w < 3; w++)
		if (part[w].data || part[w].opq || part[w].lossy)
			out->opq |= has_str(self), out->data |= !has_str(self);
	for (i = 0; i < self->n; i++)
		for (j = 0; j < part[0].n; j++)
			for (k = 0; k < part[1].n; k++)
				for (l = 0; l < part[2].n; l++) {
					struct cand c;
					int got = const_slice(sc, &self->c[i],
							      &part[0].c[j],
							      &part[1].c[k],
							      &part[2].c[l], &c);

					if (got > 0)
						v_add(out, &c);
					else if (got == 0) {
						out->opq |= cand_has_str(&self->c[i]);
						out->data |= !cand_has_str(&self->c[i]);
					}
				}
	note_built(sc, out, pos);
}

/* Filters that walk attributes by name: their name arguments are sinks. */
static void
filter_sinks(struct scan *sc, const char *name, const struct call *cl,
	     size_t pos)
{
	static const char *const by_name[] = {
		"selectattr", "rejectattr", "sort", "groupby", "sum",
		"unique", "min", "max", "map", "join", "attr",
	};
	const struct val *at = kwarg(cl, "attribute");
	char what[72];
	unsigned i;

	if (!sc->final)
		return;
	snprintf(what, sizeof(what), "|%s", name);
	if (at)
		sink_attr(sc, at, pos, what);
	if (!IN_LIST(name, strlen(name), by_name))
		return;
	if (is_name(name, "map")) {
		/* map('attr', name): the attr filter by name */
		if (cl->n_pos) {
			const struct val *f = &cl->pos[0];

			for (i = 0; i < f->n; i++)
				if (f->c[i].kind == C_STR && f->c[i].s.n == 4 &&
				    memcmp(f->c[i].s.p, "attr", 4) == 0) {
					note(&sc->obfuscation, pos,
					     "|attr through map()");
					if (cl->n_pos > 1)
						sink_attr(sc, &cl->pos[1], pos,
							  "map('attr')");
				}
			if (f->opq)
				note(&sc->obfuscation, pos,
				     "filter name for map() computed at run "
				     "time");
		}
		return;
	}
	if (is_name(name, "join"))
		return;
	for (i = 0; i < cl->n_pos; i++) {
		const struct val *v = &cl->pos[i];
		unsigned k;
		bool strs = v->opq;

		for (k = 0; k < v->n; k++)
			strs |= v->c[k].kind == C_STR;
		/* selectattr('role', 'equalto', 'user'): only the first
		 * names an attribute */
		if ((is_name(name, "selectattr") ||
		     is_name(name, "rejectattr")) && i > 0)
			break;
		if (strs)
			sink_attr(sc, v, pos, what);
	}
}

static void
p_filter(struct scan *sc, struct val *v)
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
	struct val r;

	advance(sc);	/* '|' */
	if (peek(sc, 0)->kind != T_NAME) {
		parse_fail(sc);
		return;
	}
	pos = peek(sc, 0)->pos;
	for (;;) {
		const struct etok *k = peek(sc, 0);

		if (k->kind != T_NAME)
			break;
		if (n + k->n + 1 < sizeof(name)) {
			memcpy(name + n, k->s, k->n);
			n += k->n;
		}
		advance(sc);
		if (!at_op(sc, ".") || peek(sc, 1)->kind != T_NAME)
			break;
		advance(sc);
		if (n + 1 < sizeof(name))
			name[n++] = '.';
	}
	name[n] = '\0';
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		v_opq(v);
		return;
	}
	if (at_op(sc, "(")) {
		advance(sc);
		p_call_args(sc, cl);
	}
	filter_sinks(sc, name, cl, pos);
	if (is_name(name, "default") || is_name(name, "d")) {
		if (cl->n_pos)
			v_join(v, &cl->pos[0]);
		else {
			struct val empty;

			v_str(&empty, "", 0, false);
			v_join(v, &empty);
		}
	} else if (is_name(name, "attr")) {
		v_opq(v);
	} else if (is_name(name, "items")) {
		/* a dict's (key, value) pairs; of the values only what
		 * they may be */
		unsigned i;
		uint32_t k;

		v_clear(&r);
		r.data = v->data;
		r.opq = v->opq || v->lossy;
		for (i = 0; i < v->n; i++) {
			const struct cand *c = &v->c[i];
			struct cand pairs[MAXL], two[2], lc;
			bool ok = c->kind == C_LIST && c->dict;

			for (k = 0; ok && k < c->n_items; k++) {
				two[0] = c->items[k];
				memset(&two[1], 0, sizeof(two[1]));
				two[1].kind = C_UNK;
				two[1].opq = c->opq;
				two[1].data = c->data || !c->opq;
				ok = cand_list(sc, two, 2, false, &pairs[k]);
			}
			if (c->kind != C_UNK && !(c->kind == C_LIST && c->dict))
				continue;	/* not a mapping: an error */
			if (ok && cand_list(sc, pairs, c->n_items, false, &lc))
				v_add(&r, &lc);
			else if (cand_has_str(c))
				r.opq = true;
			else
				r.data = true;
		}
		*v = r;
	} else if (is_name(name, "min") || is_name(name, "max") ||
		   is_name(name, "random")) {
		if (cl->n_pos || cl->n_kw)
			v_unknown(&r, v, cl);
		else
			items_of(sc, v, &r);
		*v = r;
	} else if (is_name(name, "map")) {
		/* map('lower'): the filter on every item */
		struct val out;
		unsigned i;
		uint32_t k;

		v_clear(&out);
		if (kwarg(cl, "attribute") || cl->n_pos == 0 || cl->extra ||
		    cl->pos[0].n != 1 || cl->pos[0].c[0].kind != C_STR ||
		    cl->pos[0].data || cl->pos[0].opq ||
		    cl->pos[0].c[0].s.n >= 32) {
			v_unknown(&out, v, cl);
		} else {
			char fname[32];
			struct call *rest = calloc(1, sizeof(*rest));

			memcpy(fname, cl->pos[0].c[0].s.p, cl->pos[0].c[0].s.n);
			fname[cl->pos[0].c[0].s.n] = '\0';
			if (!rest) {
				v_opq(&out);
			} else {
				memcpy(rest, cl, sizeof(*rest));
				rest->n_pos = cl->n_pos - 1;
				memmove(rest->pos, cl->pos + 1,
					rest->n_pos * sizeof(rest->pos[0]));
				out.data = v->data;
				out.opq = v->opq || v->lossy;
				for (i = 0; i < v->n; i++) {
					struct cand tmp, items[MAXL], lc;
					const struct cand *l;
					bool ok = as_list(sc, &v->c[i], &tmp,
							  &l);

					for (k = 0; ok && k < l->n_items; k++) {
						struct val one, got;

						v_clear(&one);
						one.n = 1;
						one.c[0] = l->items[k];
						if (l->items[k].kind == C_UNK) {
							ok = false;
							break;
						}
						fold_call(sc, F_FILTER, fname,
							  &one, rest, pos,
							  &got);
						make_item(&got, &items[k]);
					}
					if (ok && cand_list(sc, items,
							    l->n_items, false,
							    &lc))
						v_add(&out, &lc);
					else
						out.opq |= cand_has_str(&v->c[i]),
						out.data |= !cand_has_str(&v->c[i]);
				}
				free(rest);
			}
		}
		*v = out;
	} else if (IN_LIST(name, n, opaque)) {
		v_unknown(&r, v, cl);
		*v = r;
	} else {
		fold_call(sc, F_FILTER, name, v, cl, pos, &r);
		*v = r;
	}
	free(cl);
}

/* x is [not] test [arg]: a bool. */
static void
p_test(struct scan *sc, struct val *v)
{
	struct val arg;
	const struct etok *k;

	advance(sc);	/* 'is' */
	if (at_name(sc, "not"))
		advance(sc);
	if (peek(sc, 0)->kind != T_NAME) {
		parse_fail(sc);
		return;
	}
	advance(sc);
	while (at_op(sc, ".") && peek(sc, 1)->kind == T_NAME) {
		advance(sc);
		advance(sc);
	}
	k = peek(sc, 0);
	if (etok_is(k, T_OP, "(")) {
		struct call *cl = calloc(1, sizeof(*cl));

		advance(sc);
		if (cl)
			p_call_args(sc, cl);
		else
			parse_fail(sc);
		free(cl);
	} else if ((k->kind == T_NAME && !is_keyword(k)) ||
		   k->kind == T_STR || k->kind == T_NUM ||
		   etok_is(k, T_OP, "[") || etok_is(k, T_OP, "{")) {
		/* divisibleby 3: one argument without parentheses */
		p_unary(sc, &arg, false);
	}
	v_data(v);
}

/* '.', '[' and '(' after a primary. */
static void
p_postfix(struct scan *sc, struct val *v, struct base *b)
{
	while (!sc->parse_failed) {
		if (at_op(sc, ".")) {
			const struct etok *k = peek(sc, 1);

			advance(sc);
			advance(sc);
			if (k->kind == T_NUM) {
				struct val idx, r;

				if (k->num_known)
					v_num(&idx, k->num);
				else
					v_data(&idx);
				v_clear(&r);
				for (unsigned i = 0; i < v->n; i++)
					for (unsigned j = 0; j < idx.n; j++) {
						struct cand c;

						if (const_index(sc, &v->c[i],
								&idx.c[j], &c) > 0)
							v_add(&r, &c);
						else
							r.opq |= cand_has_str(&v->c[i]);
					}
				r.data |= v->data;
				r.opq |= v->opq;
				*v = r;
				b->name = NULL;
				continue;
			}
			if (k->kind != T_NAME) {
				parse_fail(sc);
				return;
			}
			if (at_op(sc, "(")) {
				struct call *cl = calloc(1, sizeof(*cl));
				char name[48];
				struct val r;
				size_t nn = k->n < sizeof(name) - 1 ? k->n :
					    sizeof(name) - 1;

				if (!cl) {
					v_opq(v);
					return;
				}
				memcpy(name, k->s, nn);
				name[nn] = '\0';
				advance(sc);
				p_call_args(sc, cl);
				method_call(sc, v, name, b, cl, k->pos, &r);
				*v = r;
				free(cl);
			} else {
				struct val r;

				attribute(sc, v, k->s, k->n, b, &r);
				*v = r;
			}
			b->name = NULL;
			continue;
		}
		if (at_op(sc, "[")) {
			struct val r;

			p_subscript(sc, v, &r);
			*v = r;
			b->name = NULL;
			continue;
		}
		if (at_op(sc, "(")) {
			struct call *cl = calloc(1, sizeof(*cl));
			struct val r;

			if (!cl) {
				v_opq(v);
				return;
			}
			advance(sc);
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
static void
p_filters(struct scan *sc, struct val *v)
{
	while (!sc->parse_failed) {
		if (at_op(sc, "|"))
			p_filter(sc, v);
		else if (at_name(sc, "is"))
			p_test(sc, v);
		else if (at_op(sc, "(")) {
			struct call *cl = calloc(1, sizeof(*cl));
			struct val r;

			if (!cl)
				return;
			advance(sc);
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
p_collection(struct scan *sc, struct val *out, const char *close, bool dict)
{
	struct cand items[MAXL];
	uint32_t n = 0;
	bool overflow = false, any_str = false, any_unk = false;
	bool vals_str = false, vals_data = false;
	struct val v, value;

	v_clear(out);
	while (!at_op(sc, close) && peek(sc, 0)->kind != T_END &&
	       !sc->parse_failed) {
		p_expr(sc, &v);
		if (dict) {
			/* a dict is kept as its keys; of its values only
			 * what they may be */
			expect_op(sc, ":");
			p_expr(sc, &value);
			if (has_str(&value))
				vals_str = true;
			else if (value.data || value.n)
				vals_data = true;
		}
		any_str |= has_str(&v);
		if (n < MAXL)
			make_item(&v, &items[n++]);
		else
			overflow = true;
		any_unk |= items[n - 1].kind == C_UNK;
		if (!accept_op(sc, ","))
			break;
	}
	expect_op(sc, close);
	(void)any_unk;
	if (overflow || !cand_list(sc, items, n, dict, &out->c[0])) {
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
p_primary(struct scan *sc, struct val *out, struct base *b)
{
	const struct etok *k = peek(sc, 0);

	b->name = NULL;
	if (++sc->depth > MAX_DEPTH) {
		parse_fail(sc);
		v_opq(out);
		sc->depth--;
		return;
	}
	if (k->kind == T_STR) {
		/* adjacent literals are one string ('__cla' 'ss__') */
		struct val piece;
		bool first = true;

		while (peek(sc, 0)->kind == T_STR) {
			k = peek(sc, 0);
			if (k->no_value)
				v_opq(&piece);
			else
				v_str(&piece, k->val.p, k->val.n, false);
			if (first)
				*out = piece;
			else {
				struct val r;

				v_binop(sc, B_CONCAT, out, &piece, &r);
				*out = r;
				note_built(sc, out, k->pos);
			}
			first = false;
			advance(sc);
		}
	} else if (k->kind == T_NUM) {
		if (k->num_known)
			v_num(out, k->num);
		else
			v_data(out);
		advance(sc);
	} else if (k->kind == T_NAME && !is_keyword(k)) {
		advance(sc);
		if (at_op(sc, "(")) {
			struct call *cl = calloc(1, sizeof(*cl));
			struct macro *m;

			if (!cl) {
				v_opq(out);
			} else {
				advance(sc);
				p_call_args(sc, cl);
				if ((m = macro_find(sc, k->s, k->n)) != NULL)
					macro_call(sc, m, cl, out);
				else if (!env_find(sc, k->s, k->n) &&
					 global_call(sc, k->s, k->n, cl, out))
					;
				else {
					struct val callee;

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
	} else if (etok_is(k, T_OP, "(")) {
		advance(sc);
		if (accept_op(sc, ")")) {
			v_clear(out);
			out->n = 1;
			cand_list(sc, NULL, 0, false, &out->c[0]);
		} else {
			struct val first;

			p_expr(sc, &first);
			if (at_op(sc, ",")) {
				/* a tuple */
				struct cand items[MAXL];
				uint32_t n = 0;
				bool s = has_str(&first), over = false;

				make_item(&first, &items[n++]);
				while (accept_op(sc, ",") && !at_op(sc, ")") &&
				       !sc->parse_failed) {
					struct val e;

					p_expr(sc, &e);
					s |= has_str(&e);
					if (n < MAXL)
						make_item(&e, &items[n++]);
					else
						over = true;
				}
				expect_op(sc, ")");
				v_clear(out);
				if (over || !cand_list(sc, items, n, false,
						       &out->c[0])) {
					out->opq = s;
					out->data = !s;
				} else {
					out->n = 1;
				}
			} else {
				expect_op(sc, ")");
				*out = first;
			}
		}
	} else if (etok_is(k, T_OP, "[")) {
		advance(sc);
		p_collection(sc, out, "]", false);
	} else if (etok_is(k, T_OP, "{")) {
		advance(sc);
		p_collection(sc, out, "}", true);
	} else {
		parse_fail(sc);
		v_opq(out);
	}
	sc->depth--;
}

static void
p_unary(struct scan *sc, struct val *out, bool with_filter)
{
	struct base b = { NULL, 0 };

	if (++sc->depth > MAX_DEPTH) {
		parse_fail(sc);
		v_opq(out);
		sc->depth--;
		return;
	}
	if (at_op(sc, "-") || at_op(sc, "+")) {
		bool neg = at_op(sc, "-");
		struct val r;
		unsigned i;

		advance(sc);
		p_unary(sc, out, false);
		v_clear(&r);
		r.data = out->data;
		r.opq = out->opq || out->lossy;
		for (i = 0; i < out->n; i++) {
			struct cand c = out->c[i];

			if ((c.kind == C_NUM || c.kind == C_BOOL) &&
			    c.num != INT64_MIN) {
				c.kind = C_NUM;
				c.num = neg ? -c.num : c.num;
				v_add(&r, &c);
			} else if (cand_has_str(&c)) {
				r.opq = true;
			}
		}
		*out = r;
	} else {
		p_primary(sc, out, &b);
		p_postfix(sc, out, &b);
	}
	if (with_filter)
		p_filters(sc, out);
	sc->depth--;
}

static void
p_pow(struct scan *sc, struct val *out)
{
	struct val r, t;

	p_unary(sc, out, true);
	while (accept_op(sc, "**") && !sc->parse_failed) {
		p_unary(sc, &r, true);
		v_binop(sc, B_POW, out, &r, &t);
		*out = t;
	}
}

static void
p_math2(struct scan *sc, struct val *out)
{
	struct val r, t;
	size_t pos;

	p_pow(sc, out);
	for (;;) {
		enum binop op;

		pos = peek(sc, 0)->pos;
		if (at_op(sc, "*"))
			op = B_MUL;
		else if (at_op(sc, "/"))
			op = B_DIV;
		else if (at_op(sc, "//"))
			op = B_FDIV;
		else if (at_op(sc, "%"))
			op = B_MOD;
		else
			break;
		advance(sc);
		p_pow(sc, &r);
		v_binop(sc, op, out, &r, &t);
		*out = t;
		note_built(sc, out, pos);
		if (sc->parse_failed)
			break;
	}
}

static void
p_concat(struct scan *sc, struct val *out)
{
	struct val r, t;
	size_t pos;

	p_math2(sc, out);
	while (at_op(sc, "~") && !sc->parse_failed) {
		pos = peek(sc, 0)->pos;
		advance(sc);
		p_math2(sc, &r);
		v_binop(sc, B_CONCAT, out, &r, &t);
		*out = t;
		note_built(sc, out, pos);
	}
}

static void
p_math1(struct scan *sc, struct val *out)
{
	struct val r, t;
	size_t pos;

	p_concat(sc, out);
	while ((at_op(sc, "+") || at_op(sc, "-")) && !sc->parse_failed) {
		enum binop op = at_op(sc, "+") ? B_ADD : B_SUB;

		pos = peek(sc, 0)->pos;
		advance(sc);
		p_concat(sc, &r);
		v_binop(sc, op, out, &r, &t);
		*out = t;
		note_built(sc, out, pos);
	}
}

static void
p_compare(struct scan *sc, struct val *out)
{
	static const char *const cmp[] = {
		"==", "!=", "<", "<=", ">", ">=",
	};
	struct val r;
	bool any = false;

	p_math1(sc, out);
	for (;;) {
		const struct etok *k = peek(sc, 0);

		if (k->kind == T_OP && IN_LIST(k->s, k->n, cmp)) {
			advance(sc);
		} else if (etok_is(k, T_NAME, "in")) {
			advance(sc);
		} else if (etok_is(k, T_NAME, "not") &&
			   etok_is(peek(sc, 1), T_NAME, "in")) {
			advance(sc);
			advance(sc);
		} else {
			break;
		}
		p_math1(sc, &r);
		any = true;
		if (sc->parse_failed)
			break;
	}
	if (any)
		v_data(out);
}

static void
p_not(struct scan *sc, struct val *out)
{
	if (at_name(sc, "not")) {
		if (++sc->depth > MAX_DEPTH) {
			parse_fail(sc);
			v_opq(out);
			sc->depth--;
			return;
		}
		advance(sc);
		p_not(sc, out);
		v_data(out);
		sc->depth--;
		return;
	}
	p_compare(sc, out);
}

static void
p_and(struct scan *sc, struct val *out)
{
	struct val r;

	p_not(sc, out);
	while (at_name(sc, "and") && !sc->parse_failed) {
		advance(sc);
		p_not(sc, &r);
		v_join(out, &r);
	}
}

static void
p_or(struct scan *sc, struct val *out)
{
	struct val r;

	p_and(sc, out);
	while (at_name(sc, "or") && !sc->parse_failed) {
		advance(sc);
		p_and(sc, &r);
		v_join(out, &r);
	}
}

/* An expression: a if c else b over the rest. */
static void
p_expr(struct scan *sc, struct val *out)
{
	struct val c, e;

	if (++sc->depth > MAX_DEPTH) {
		parse_fail(sc);
		v_opq(out);
		sc->depth--;
		return;
	}
	p_or(sc, out);
	while (at_name(sc, "if") && !sc->parse_failed) {
		advance(sc);
		p_or(sc, &c);
		if (at_name(sc, "else")) {
			advance(sc);
			p_or(sc, &e);
		} else {
			v_kind(&e, C_UNDEF, 0);
		}
		v_join(out, &e);
	}
	sc->depth--;
}

/* a, b, c (a tuple without parentheses, as set and for allow). */
static void
p_tuple_expr(struct scan *sc, struct val *out)
{
	struct cand items[MAXL];
	uint32_t n = 0;
	bool s, over = false;

	p_expr(sc, out);
	if (!at_op(sc, ","))
		return;
	s = has_str(out);
	make_item(out, &items[n++]);
	while (accept_op(sc, ",") && peek(sc, 0)->kind != T_END &&
	       !sc->parse_failed) {
		struct val e;

		p_expr(sc, &e);
		s |= has_str(&e);
		if (n < MAXL)
			make_item(&e, &items[n++]);
		else
			over = true;
	}
	v_clear(out);
	if (over || !cand_list(sc, items, n, false, &out->c[0])) {
		out->opq = s;
		out->data = !s;
	} else {
		out->n = 1;
	}
}

/* ---- statements --------------------------------------------------------------- */

#define MAX_TARGETS 8

struct targets {
	unsigned n;
	char name[MAX_TARGETS][128];
};

/* name, name.attr, (a, b): what set / for / with bind. */
static void
p_targets(struct scan *sc, struct targets *t)
{
	bool paren = accept_op(sc, "(");

	t->n = 0;
	for (;;) {
		const struct etok *k = peek(sc, 0);
		char buf[128];

		if (k->kind != T_NAME || is_keyword(k)) {
			parse_fail(sc);
			return;
		}
		advance(sc);
		if (k->n >= sizeof(buf))
			return;
		memcpy(buf, k->s, k->n);
		buf[k->n] = '\0';
		if (at_op(sc, ".") && peek(sc, 1)->kind == T_NAME) {
			const struct etok *a = peek(sc, 1);

			advance(sc);
			advance(sc);
			if (!dotted(buf, sizeof(buf), k->s, k->n, a->s, a->n))
				return;
		}
		if (t->n < MAX_TARGETS)
			memcpy(t->name[t->n++], buf, sizeof(buf));
		if (!accept_op(sc, ","))
			break;
	}
	if (paren)
		expect_op(sc, ")");
}

/* Binds targets to v; several targets unpack it (each may be any
 * element). */
static void
bind_targets(struct scan *sc, const struct targets *t, const struct val *v)
{
	unsigned i;

	if (t->n == 1) {
		env_bind_str(sc, t->name[0], v);
		return;
	}
	{
		struct val el;

		items_of(sc, v, &el);
		for (i = 0; i < t->n; i++)
			env_bind_str(sc, t->name[i], &el);
	}
}

/* namespace(k=v) bound to a name: the name's attributes. */
static void
bind_namespace(struct scan *sc, const struct targets *t, struct nskw *ns)
{
	unsigned i, k;
	char key[160];

	for (k = 0; k < t->n; k++)
		for (i = 0; i < ns->n; i++)
			if (dotted(key, sizeof(key), t->name[k],
				   strlen(t->name[k]), ns->name[i],
				   strlen(ns->name[i])))
				env_bind_str(sc, key, &ns->v[i]);
}

static void
capture_push(struct scan *sc, const struct targets *t, bool filtered)
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
		c->target = pool_alloc(&sc->pool, strlen(t->name[0]) + 1);
		if (c->target)
			memcpy(c->target, t->name[0], strlen(t->name[0]) + 1);
	}
	v_str(&c->v, "", 0, true);
	v_str(&c->stripped, "", 0, true);
	c->filtered = filtered;
}

static void
capture_pop(struct scan *sc, size_t pos)
{
	struct capture *c;
	struct val v;

	if (sc->n_cap == 0) {
		if (sc->cap_overflow)
			sc->cap_overflow = false;
		return;
	}
	c = &sc->cap[--sc->n_cap];
	v = c->v;
	v_join(&v, &c->stripped);
	if (c->ctrl || c->filtered)
		v_opq(&v);
	note_built(sc, &v, pos);
	if (c->target)
		env_bind_str(sc, c->target, &v);
}

/* Text (or a printed value) inside set-blocks. */
static void
capture_value(struct scan *sc, const struct val *exact,
	      const struct val *stripped)
{
	unsigned i;

	for (i = 0; i < sc->n_cap; i++) {
		struct capture *c = &sc->cap[i];
		struct val r;

		v_binop(sc, B_CONCAT, &c->v, exact, &r);
		c->v = r;
		v_binop(sc, B_CONCAT, &c->stripped, stripped, &r);
		c->stripped = r;
	}
}

static void
capture_text(struct scan *sc, size_t from, size_t to)
{
	struct val exact, stripped;
	size_t a = from, b = to;

	if (sc->n_cap == 0 || to <= from)
		return;
	while (a < b && py_space((unsigned char)sc->t[a]))
		a++;
	while (b > a && py_space((unsigned char)sc->t[b - 1]))
		b--;
	v_str(&exact, sc->t + from, to - from, true);
	v_str(&stripped, sc->t + a, b - a, true);
	capture_value(sc, &exact, &stripped);
}

static void
p_macro(struct scan *sc)
{
	const struct etok *k = peek(sc, 0);
	struct macro *m;
	size_t n;

	if (k->kind != T_NAME) {
		parse_fail(sc);
		return;
	}
	advance(sc);
	m = macro_find(sc, k->s, k->n);
	if (!m) {
		m = pool_alloc(&sc->envp, sizeof(*m));
		if (m)
			m->name = pool_alloc(&sc->envp, k->n + 1);
		if (!m || !m->name)
			return;
		memcpy(m->name, k->s, k->n);
		m->name[k->n] = '\0';
		m->n_params = 0;
		m->next = sc->macros[hash_name(k->s, k->n)];
		sc->macros[hash_name(k->s, k->n)] = m;
		sc->env_changed = true;
	}
	if (!expect_op(sc, "("))
		return;
	while (!at_op(sc, ")") && peek(sc, 0)->kind == T_NAME &&
	       !sc->parse_failed) {
		const struct etok *p = peek(sc, 0);
		unsigned i;
		bool known = false;

		advance(sc);
		for (i = 0; i < m->n_params && !known; i++)
			known = strlen(m->params[i]) == p->n &&
				memcmp(m->params[i], p->s, p->n) == 0;
		if (!known && m->n_params < MAX_PARAMS) {
			n = p->n;
			m->params[m->n_params] = pool_alloc(&sc->envp, n + 1);
			if (m->params[m->n_params]) {
				memcpy(m->params[m->n_params], p->s, n);
				m->params[m->n_params][n] = '\0';
				m->n_params++;
			}
		}
		if (accept_op(sc, "=")) {
			struct val d;

			p_expr(sc, &d);
			env_bind(sc, p->s, p->n, &d);
		}
		if (!accept_op(sc, ","))
			break;
	}
	expect_op(sc, ")");
}

/* Skips the rest of a block that holds no code worth folding. */
static void
skip_rest(struct scan *sc)
{
	sc->at = sc->n_toks;
}

/* One {% %} statement. */
static void
stmt(struct scan *sc)
{
	static const char *const ends[] = {
		"else", "endif", "endfor", "endmacro", "endcall",
		"endfilter", "endwith", "endblock", "break", "continue",
		"endautoescape", "generation", "endgeneration", "endtrans",
		"pluralize", "trans", "endraw", "raw",
	};
	const struct etok *k = peek(sc, 0);
	struct targets tg;
	struct val v, d;
	struct nskw *ns;
	unsigned i;

	if (k->kind != T_NAME) {
		parse_fail(sc);
		return;
	}
	if (etok_is(k, T_NAME, "endset")) {
		advance(sc);
		capture_pop(sc, k->pos);
		return;
	}
	/* any other statement inside a set-block: the text is not folded */
	for (i = 0; i < sc->n_cap; i++)
		sc->cap[i].ctrl = true;
	if (IN_LIST(k->s, k->n, ends)) {
		skip_rest(sc);
		return;
	}
	advance(sc);
	if (etok_is(k, T_NAME, "set")) {
		p_targets(sc, &tg);
		if (sc->parse_failed)
			return;
		if (!accept_op(sc, "=")) {
			/* {% set x %}...{% endset %}, maybe | filters */
			bool filtered = at_op(sc, "|");

			v_data(&v);
			p_filters(sc, &v);
			capture_push(sc, &tg, filtered);
			return;
		}
		ns = calloc(1, sizeof(*ns));
		sc->nskw = ns;
		p_tuple_expr(sc, &v);
		sc->nskw = NULL;
		bind_targets(sc, &tg, &v);
		if (ns && ns->n)
			bind_namespace(sc, &tg, ns);
		free(ns);
		return;
	}
	if (etok_is(k, T_NAME, "for")) {
		p_targets(sc, &tg);
		if (sc->parse_failed || !at_name(sc, "in")) {
			parse_fail(sc);
			return;
		}
		advance(sc);
		p_or(sc, &v);
		if (at_op(sc, ",")) {
			/* for x in a, b */
			struct val more;

			while (accept_op(sc, ",") && !sc->parse_failed) {
				p_or(sc, &more);
				v_join(&v, &more);
			}
			items_of(sc, &v, &d);
		} else {
			items_of(sc, &v, &d);
		}
		bind_targets(sc, &tg, &d);
		if (at_name(sc, "if")) {
			advance(sc);
			p_expr(sc, &v);
		}
		if (at_name(sc, "recursive"))
			advance(sc);
		return;
	}
	if (etok_is(k, T_NAME, "if") || etok_is(k, T_NAME, "elif") ||
	    etok_is(k, T_NAME, "do") || etok_is(k, T_NAME, "autoescape")) {
		p_tuple_expr(sc, &v);
		return;
	}
	if (etok_is(k, T_NAME, "macro")) {
		p_macro(sc);
		return;
	}
	if (etok_is(k, T_NAME, "call")) {
		if (accept_op(sc, "(")) {
			while (peek(sc, 0)->kind == T_NAME && !sc->parse_failed) {
				const struct etok *p = peek(sc, 0);

				advance(sc);
				v_data(&d);
				if (accept_op(sc, "="))
					p_expr(sc, &d);
				env_bind(sc, p->s, p->n, &d);
				if (!accept_op(sc, ","))
					break;
			}
			expect_op(sc, ")");
		}
		p_expr(sc, &v);
		return;
	}
	if (etok_is(k, T_NAME, "filter")) {
		/* {% filter upper | replace('a', 'b') %} */
		v_data(&v);
		sc->at--;
		sc->toks[sc->at].kind = T_OP;
		sc->toks[sc->at].s = "|";
		sc->toks[sc->at].n = 1;
		p_filters(sc, &v);
		return;
	}
	if (etok_is(k, T_NAME, "with")) {
		while (peek(sc, 0)->kind == T_NAME && !sc->parse_failed) {
			const struct etok *p = peek(sc, 0);

			advance(sc);
			if (!expect_op(sc, "="))
				return;
			p_expr(sc, &d);
			env_bind(sc, p->s, p->n, &d);
			if (!accept_op(sc, ","))
				break;
		}
		return;
	}
	if (etok_is(k, T_NAME, "include") || etok_is(k, T_NAME, "extends") ||
	    etok_is(k, T_NAME, "import") || etok_is(k, T_NAME, "from")) {
		/* another template by name: no loader in the engines that
		 * render chat templates; the name is only evaluated */
		p_expr(sc, &v);
		skip_rest(sc);
		return;
	}
	if (etok_is(k, T_NAME, "block")) {
		skip_rest(sc);
		return;
	}
	/* an unknown statement: its arguments as expressions */
	if (peek(sc, 0)->kind != T_END)
		p_tuple_expr(sc, &v);
}

/* Evaluates the tokens of one block (sc->toks) as a print or a
 * statement. start/closer: offsets of the block's code and its closing
 * delimiter, to tell whitespace control (-%}) from a minus. */
static void
eval_block(struct scan *sc, bool print, size_t start, size_t closer)
{
	struct val v;

	sc->at = 0;
	sc->depth = 0;
	sc->parse_failed = false;
	if (sc->n_toks && sc->toks[0].kind == T_OP &&
	    (etok_is(&sc->toks[0], T_OP, "-") ||
	     etok_is(&sc->toks[0], T_OP, "+")) && sc->toks[0].pos == start)
		sc->at = 1;
	if (sc->n_toks > sc->at &&
	    (etok_is(&sc->toks[sc->n_toks - 1], T_OP, "-") ||
	     etok_is(&sc->toks[sc->n_toks - 1], T_OP, "+")) &&
	    sc->toks[sc->n_toks - 1].pos + 1 == closer)
		sc->n_toks--;
	if (sc->at >= sc->n_toks)
		return;
	if (print) {
		p_tuple_expr(sc, &v);
		if (sc->n_cap) {
			struct val s;

			v_clear(&s);
			for (unsigned i = 0; i < v.n; i++) {
				struct sv x;
				struct cand c;

				if (to_str(sc, &v.c[i], &x, 0) &&
				    cand_string(sc, x.p, x.n, &c))
					v_add(&s, &c);
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
		parse_fail(sc);
	if (sc->parse_failed && sc->final)
		note(&sc->unscanned, sc->fail_pos,
		     "code quantaudit cannot parse");
}

/* ---- the walk over a template -------------------------------------------- */

static const char *
find2(const char *t, size_t len, size_t from, const char *needle)
{
	size_t n = strlen(needle);

	if (from >= len)
		return NULL;
	return find_bytes(t + from, len - from, needle, n);
}

/* Lexes and evaluates one block opened at t[i] ('{{' or '{%'); returns
 * the offset after it. */
static size_t
block(struct scan *sc, size_t i, bool print, bool *raw)
{
	size_t start = i + 2, end;
	bool truncated;

	end = lex_block(sc, start, print ? '}' : '%', raw, &truncated);
	if (truncated && sc->final)
		note(&sc->unscanned, i, "a block too long to evaluate");
	eval_block(sc, print, start, end >= 2 ? end - 2 : end);
	return end;
}

static void
walk(struct scan *sc)
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
widen(struct scan *sc)
{
	unsigned h;
	struct binding *b;

	for (h = 0; h < ENV_BUCKETS; h++)
		for (b = sc->env[h]; b; b = b->next)
			if (b->changed) {
				if (has_str(&b->v))
					b->v.opq = true;
				else
					b->v.data = true;
			}
}

static void
scan_template(struct scan *sc)
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
		pool_free(&sc->pool);
		sc->n_cap = 0;
		sc->cap_overflow = false;
		walk(sc);
		if (!sc->env_changed)
			break;
		if (pass + 1 >= MAX_PASSES) {
			widen(sc);
			break;
		}
	}
	sc->lexical = false;
	sc->final = true;
	pool_free(&sc->pool);
	sc->n_cap = 0;
	sc->cap_overflow = false;
	walk(sc);
	if (sc->pool.hit)
		note(&sc->unscanned, 0, "folding stopped at its memory bound");
	if (sc->saw_dunder_marker && sc->saw_core_name)
		note(&sc->obfuscation, sc->marker_pos,
		     "'__' string joined to a bare dunder name");
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

static void
scan_free(struct scan *sc)
{
	pool_free(&sc->pool);
	pool_free(&sc->envp);
	free(sc->toks);
	free(sc);
}

/*
 * Scans len bytes of one template and reports QA6001/QA6002/QA6004.
 * what names it in the message ("tokenizer.chat_template"), file/offset
 * locate it.
 */
static void
check_one(struct qa_inventory *inv, const char *text, size_t len,
	  const char *what, const char *file, int64_t offset)
{
	struct scan *sc = calloc(1, sizeof(*sc));

	if (!sc) {
		inv->out_of_memory = true;
		return;
	}
	sc->t = text;
	sc->len = len;
	sc->pool.limit = len + POOL_EXTRA;
	sc->envp.limit = ENV_BYTES_MAX;
	scan_template(sc);
	report(inv, QA6001, &sc->internals, what, file, offset);
	report(inv, QA6002, &sc->obfuscation, what, file, offset);
	if (sc->unscanned.count)
		report(inv, QA6004, &sc->unscanned, what, file, offset);
	scan_free(sc);
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
