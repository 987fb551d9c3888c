/* SPDX-License-Identifier: MIT */
/*
 * A Jinja abstract interpreter: the chat templates of GGUF metadata and
 * Hugging Face folders read as Jinja reads them (its lexer, its
 * expression grammar, the statements that bind names) and evaluated
 * over an abstract domain instead of a context. Every expression is a
 * small set of constants it may take (strings, numbers, lists), plus
 * "may be caller data" (messages, tools) and "may be a value built from
 * the template's own strings that could not be folded". Bindings are
 * followed through {% set %}, namespaces, loops and macro parameters by
 * repeating the walk until no binding changes (flow- and
 * scope-insensitive: a superset of what any run can see).
 *
 * The interpreter knows where a string becomes an attribute access (the
 * sinks: x[key], |attr(name), the attribute= and name arguments of map /
 * select / sort / groupby ..., the fields of a str.format string) but
 * not what is dangerous there: it reports each value reaching a sink,
 * each token lexed and each place it could not follow through the hook
 * table below, and the client (rules/check_template.c) decides. The
 * split follows jq's lexer / parser / execute and SQLite's tokenizer:
 *
 *   jinja_value.c   characters, the folding pool, abstract values, bindings
 *   jinja_lex.c     {{ }} / {% %} blocks into tokens
 *   jinja_fold.c    constant folding: operators, % and str.format,
 *                   slicing, string methods and filters
 *   jinja_parse.c   tokens, calls and the expression grammar
 *   jinja_stmt.c    statements, the walk over a template, the passes
 *
 * Lifecycle: qa_jinja_create borrows the template text and copies the
 * hook table; it must outlive the interpreter. Values handed to a hook
 * (their strings and items) live until the hook returns. Nothing here
 * prints, opens a file or exits.
 *
 * Bounds (linear in the template): at most QA_JINJA_MAX_PASSES walks; a
 * block of more than 2^18 tokens is lexed but evaluated only that far;
 * folded strings longer than 4096 bytes, and folding beyond the
 * template's size plus 16 MiB, become "could not be folded"; nesting
 * deeper than 100 is code that cannot be parsed (each is an event).
 */
#ifndef QA_ANALYSIS_JINJA_H
#define QA_ANALYSIS_JINJA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decoded string prefix kept per token for lexical checks. */
#define QA_JINJA_MAX_LIT 64
/* Constants one expression may take before the rest are summarized. */
#define QA_JINJA_MAXC 8
/* Walks over the template until the bindings stop changing. */
#define QA_JINJA_MAX_PASSES 4

/* ---- tokens ------------------------------------------------------------- */

enum qa_jinja_tok_kind { QA_JT_END, QA_JT_NAME, QA_JT_STR, QA_JT_NUM,
			 QA_JT_OP };

/* One token of a block, as lexed (with the lexical scratch). */
struct qa_jinja_sv {
	const char *p;
	size_t n;
};

struct qa_jinja_token {
	uint8_t kind;		/* enum qa_jinja_tok_kind */
	bool esc_underscore;	/* an escape decoding to '_' */
	bool pct_c;		/* contains %c */
	bool lit_long;		/* decoded longer than QA_JINJA_MAX_LIT */
	bool no_value;		/* QA_JT_STR not decoded (pool full) */
	bool num_known;		/* QA_JT_NUM: an integer that fits */
	size_t pos;		/* offset in the template */
	size_t n;		/* source bytes (name, number, operator) */
	const char *s;		/* source text */
	struct qa_jinja_sv val;	/* QA_JT_STR: the decoded value */
	int64_t num;		/* QA_JT_NUM */
	char lit[QA_JINJA_MAX_LIT + 1];	/* QA_JT_STR: decoded prefix */
	size_t lit_len;		/* bytes of lit */
};

/* ---- abstract values ------------------------------------------------------ */

enum qa_jinja_kind { QA_JV_STR, QA_JV_NUM, QA_JV_BOOL, QA_JV_NONE,
		     QA_JV_UNDEF, QA_JV_LIST, QA_JV_UNK, QA_JV_OBJ };

/* One constant an expression may take. */
struct qa_jinja_cand {
	uint8_t kind;		/* enum qa_jinja_kind */
	bool built;		/* QA_JV_STR: made by an operation, not written */
	bool dict;		/* QA_JV_LIST: a dict, listed by its keys */
	bool data, opq;		/* QA_JV_UNK: what the unknown may be; a
				 * dict: what its values may be */
	int64_t num;		/* QA_JV_NUM, QA_JV_BOOL; QA_JV_OBJ: which */
	struct qa_jinja_sv s;	/* QA_JV_STR; a macro object: its name */
	struct qa_jinja_cand *items;	/* QA_JV_LIST, cycler and joiner */
	uint32_t n_items;	/* entries of items */
};

/* What an expression may be: any of c[0..n), and, when data, a value of
 * the caller's (messages, tools); when opq, a value the template builds
 * from its own strings that could not be folded. lossy: candidates were
 * dropped (each checked safe as a name on the way). */
struct qa_jinja_val {
	uint8_t n;		/* candidates in c */
	bool data, opq, lossy;
	struct qa_jinja_cand c[QA_JINJA_MAXC];
};

/* ---- what the interpreter reports ----------------------------------------- */

/* Where a value was used (QA_JINJA_SINK_BUILT: a value the template
 * built, wherever it appears: its folded strings). */
enum qa_jinja_sink {
	QA_JINJA_SINK_ATTR,	/* as an attribute name; what says where */
	QA_JINJA_SINK_KEY,	/* as a subscript key (getattr fallback) */
	QA_JINJA_SINK_BUILT,	/* a folded value */
};

/* Places the interpreter could not follow, and sinks it could not name. */
enum qa_jinja_event {
	QA_JINJA_EV_FORMAT_COMPUTED,	/* str.format on a computed string */
	QA_JINJA_EV_ATTR_BY_MAP,	/* map('attr', ...) */
	QA_JINJA_EV_MAP_FILTER_COMPUTED,	/* map(<computed name>) */
	QA_JINJA_EV_UNPARSED,		/* a block that does not parse */
	QA_JINJA_EV_BLOCK_TOO_LONG,	/* tokens past the evaluated bound */
	QA_JINJA_EV_FOLD_BOUND,		/* folding hit its memory bound */
	QA_JINJA_EV_COUNT
};

/*
 * The hook table (every member may be NULL). token is called on the
 * first walk only, for each token as lexed and with NULL at the end of
 * each block; value, name and event on the last walk only, so each
 * place is reported once. text and print are the last walk's literal
 * text and {{ }} values in template order (the walk is
 * flow-insensitive: both branches of an if, a loop body once).
 */
struct qa_jinja_hooks {
	void *ctx;
	void (*token)(void *ctx, const struct qa_jinja_token *k);
	void (*value)(void *ctx, enum qa_jinja_sink where,
		      const struct qa_jinja_val *v, size_t pos,
		      const char *what);
	/* one attribute name (or dotted path) inside a string that a sink
	 * walks: a str.format field, a |format name */
	void (*name)(void *ctx, const char *s, size_t n, bool built,
		     size_t pos, const char *what);
	void (*event)(void *ctx, enum qa_jinja_event ev, size_t pos);
	void (*text)(void *ctx, const char *s, size_t n, size_t pos);
	void (*print)(void *ctx, const struct qa_jinja_val *v, size_t pos);
};

struct qa_jinja;

/*
 * An interpreter for len bytes of text (NULs included), reporting to
 * hooks. Returns NULL when out of memory.
 */
struct qa_jinja *qa_jinja_create(const char *text, size_t len,
				 const struct qa_jinja_hooks *hooks);

/*
 * Binds name to v before qa_jinja_run (the caller's context: a fixed
 * conversation as messages, add_generation_prompt...); the template's
 * own bindings of the name are joined to it. Returns false when the
 * binding storage is full. Strings of v are copied.
 */
bool qa_jinja_bind(struct qa_jinja *j, const char *name,
		   const struct qa_jinja_val *v);

/* Runs the walks and reports through the hooks. Call once. */
void qa_jinja_run(struct qa_jinja *j);

/* Frees j (NULL is accepted). */
void qa_jinja_destroy(struct qa_jinja *j);

/* ---- Python attribute names, as a getattr sink sees them ------------------- */

/* "__x__" with at least one identifier character in the middle. */
bool qa_jinja_is_dunder(const char *s, size_t n);
/* "_Class__attr": a name-mangled private attribute. */
bool qa_jinja_is_mangled(const char *s, size_t n);
/* One of the attributes Jinja's sandbox calls internal besides the '_'
 * ones (jinja2/sandbox.py is_internal_attribute, UNSAFE_*_ATTRIBUTES). */
bool qa_jinja_is_internal_attr(const char *s, size_t n);
/* memmem(): the first nn bytes of nd in h, or NULL. */
const char *qa_jinja_find_bytes(const char *h, size_t hn, const char *nd,
				size_t nn);
/* Whether s (n bytes) is one of list[0..count). */
bool qa_jinja_in_list(const char *s, size_t n, const char *const *list,
		      size_t count);
/* Whether token k is of kind and spells s. */
bool qa_jinja_tok_is(const struct qa_jinja_token *k,
		     enum qa_jinja_tok_kind kind, const char *s);

#endif /* QA_ANALYSIS_JINJA_H */
