/* SPDX-License-Identifier: MIT */
/*
 * The Jinja interpreter's own header (src/analysis/jinja_*.c): the
 * limits, the interpreter state and the functions its five files share.
 * Clients include jinja.h.
 */
#ifndef QA_ANALYSIS_JINJA_INT_H
#define QA_ANALYSIS_JINJA_INT_H
#ifndef QA_JINJA_INTERNAL
#error "jinja_int.h is the interpreter's own: include src/analysis/jinja.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/jinja.h"

/* Items of a constant list or tuple. */
#define MAXL 64
/* Longest string the folding builds (an attribute name is short; a
 * longer result can only matter sliced, and is then "not folded"). */
#define VAL_MAX 4096
/* Parser recursion (Python's own recursion limit stops Jinja earlier). */
#define MAX_DEPTH 100
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

#define QA_JINJA_IN_LIST(s, n, list) qa_jinja_in_list((s), (n), (list), \
				    sizeof(list) / sizeof((list)[0]))

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

/* ---- interpreter state ------------------------------------------------ */

/* QA_JV_OBJ: objects of the template's own (num says which). */
enum { OBJ_LOOP, OBJ_NS, OBJ_CYCLER, OBJ_JOINER, OBJ_MACRO, OBJ_METHOD };

/* A token kept for the evaluation (no lexical scratch). */
struct etok {
	uint8_t kind;
	bool no_value;		/* QA_JT_STR not decoded (pool full) */
	bool num_known;		/* QA_JT_NUM: an integer that fits */
	size_t pos, n;
	const char *s;
	struct qa_jinja_sv val;		/* QA_JT_STR */
	int64_t num;		/* QA_JT_NUM */
};

/* A binding: a variable set by the template ({% set %}, a loop, a macro
 * parameter, a namespace attribute "ns.x"). */
struct binding {
	char *name;
	struct qa_jinja_val v;		/* strings in env storage */
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
	struct qa_jinja_val v;		/* text and prints so far, exactly */
	struct qa_jinja_val stripped;	/* the same with each piece stripped */
	bool ctrl;		/* a statement inside: not folded */
	bool filtered;		/* {% set x | filter %} */
};

struct qa_jinja {
	struct nskw *nskw;		/* namespace() kwargs of the statement */
	const char *t;
	size_t len;
	struct qa_jinja_hooks hooks;	/* the client's, copied */
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


#define MAX_ARGS 8

struct call {
	unsigned n_pos, n_kw;
	bool extra;		/* *args, **kwargs or more than MAX_ARGS */
	struct qa_jinja_val pos[MAX_ARGS];
	struct qa_jinja_val kw[MAX_ARGS];
	char kwname[MAX_ARGS][24];
	struct qa_jinja_val rest;	/* join of what did not fit */
};

#define MAX_NSKW 32

/* namespace(k=v, ...) of the statement being evaluated: {% set ns = %}
 * binds "ns.k". */
struct nskw {
	unsigned n;
	char name[MAX_NSKW][24];
	struct qa_jinja_val v[MAX_NSKW];
};


enum binop { B_CONCAT, B_ADD, B_SUB, B_MUL, B_DIV, B_FDIV, B_MOD, B_POW };

enum fkind { F_FILTER, F_METHOD };

/* ---- hooks (jinja_value.c): the last walk's sinks and events --------- */

void qa_jinja_sink(struct qa_jinja *sc, enum qa_jinja_sink where,
		   const struct qa_jinja_val *v, size_t pos, const char *what);
void qa_jinja_sink_name(struct qa_jinja *sc, const char *s, size_t n,
			bool built, size_t pos, const char *what);
void qa_jinja_event(struct qa_jinja *sc, enum qa_jinja_event ev, size_t pos);

/* jinja_value.c */
bool qa_jinja_is_ident_start(char c);
bool qa_jinja_is_ident_char(char c);
bool qa_jinja_is_space(char c);
void * qa_jinja_pool_alloc(struct pool *p, size_t n);
void qa_jinja_pool_trim(struct pool *p, const void *ptr, size_t cap, size_t used);
void qa_jinja_pool_free(struct pool *p);
void qa_jinja_v_clear(struct qa_jinja_val *v);
void qa_jinja_v_data(struct qa_jinja_val *v);
void qa_jinja_v_opq(struct qa_jinja_val *v);
bool qa_jinja_cand_has_str(const struct qa_jinja_cand *c);
bool qa_jinja_has_str(const struct qa_jinja_val *v);
void qa_jinja_v_add(struct qa_jinja_val *v, const struct qa_jinja_cand *c);
void qa_jinja_v_join(struct qa_jinja_val *a, const struct qa_jinja_val *b);
void qa_jinja_v_str(struct qa_jinja_val *v, const char *p, size_t n, bool built);
void qa_jinja_v_num(struct qa_jinja_val *v, int64_t x);
void qa_jinja_v_kind(struct qa_jinja_val *v, enum qa_jinja_kind k, int64_t x);
void qa_jinja_v_mix(struct qa_jinja_val *out, const struct qa_jinja_val *a, const struct qa_jinja_val *b);
unsigned qa_jinja_hash_name(const char *s, size_t n);
struct binding * qa_jinja_env_find(struct qa_jinja *sc, const char *name, size_t n);
void qa_jinja_env_bind(struct qa_jinja *sc, const char *name, size_t n, const struct qa_jinja_val *v);
void qa_jinja_env_bind_str(struct qa_jinja *sc, const char *name, const struct qa_jinja_val *v);
bool qa_jinja_dotted(char *buf, size_t cap, const char *a, size_t an, const char *b,
       size_t bn);
struct macro * qa_jinja_macro_find(struct qa_jinja *sc, const char *name, size_t n);

/* jinja_lex.c */
size_t qa_jinja_lex_block(struct qa_jinja *sc, size_t i, char closer, bool *is_raw,
	  bool *truncated);

/* jinja_fold.c */
char * qa_jinja_new_str(struct qa_jinja *sc, size_t n);
bool qa_jinja_cand_string(struct qa_jinja *sc, const char *p, size_t n, struct qa_jinja_cand *out);
bool qa_jinja_py_space(unsigned char c);
bool qa_jinja_to_str(struct qa_jinja *sc, const struct qa_jinja_cand *c, struct qa_jinja_sv *out, int depth);
bool qa_jinja_cand_list(struct qa_jinja *sc, const struct qa_jinja_cand *items, uint32_t n, bool dict,
	  struct qa_jinja_cand *out);
void qa_jinja_v_binop(struct qa_jinja *sc, enum binop op, const struct qa_jinja_val *a,
	const struct qa_jinja_val *b, struct qa_jinja_val *out);
int qa_jinja_const_slice(struct qa_jinja *sc, const struct qa_jinja_cand *x, const struct qa_jinja_cand *lo,
	    const struct qa_jinja_cand *hi, const struct qa_jinja_cand *st, struct qa_jinja_cand *out);
int qa_jinja_const_index(struct qa_jinja *sc, const struct qa_jinja_cand *x, const struct qa_jinja_cand *i,
	    struct qa_jinja_cand *out);
void qa_jinja_v_unknown(struct qa_jinja_val *out, const struct qa_jinja_val *self, const struct call *cl);
bool qa_jinja_is_name(const char *a, const char *b);
int qa_jinja_num_cand(int64_t x, enum qa_jinja_kind k, struct qa_jinja_cand *out);
bool qa_jinja_as_list(struct qa_jinja *sc, const struct qa_jinja_cand *c, struct qa_jinja_cand *tmp,
	const struct qa_jinja_cand **out);
void qa_jinja_fold_call(struct qa_jinja *sc, enum fkind fk, const char *name,
	  const struct qa_jinja_val *self, const struct call *cl, size_t at,
	  struct qa_jinja_val *out);
void qa_jinja_items_of(struct qa_jinja *sc, const struct qa_jinja_val *self, struct qa_jinja_val *out);

/* jinja_parse.c */
const struct etok * qa_jinja_peek(const struct qa_jinja *sc, size_t k);
bool qa_jinja_etok_is(const struct etok *k, enum qa_jinja_tok_kind kind, const char *s);
bool qa_jinja_at_op(const struct qa_jinja *sc, const char *op);
bool qa_jinja_at_name(const struct qa_jinja *sc, const char *name);
void qa_jinja_advance(struct qa_jinja *sc);
bool qa_jinja_accept_op(struct qa_jinja *sc, const char *op);
void qa_jinja_parse_fail(struct qa_jinja *sc);
bool qa_jinja_expect_op(struct qa_jinja *sc, const char *op);
bool qa_jinja_is_keyword(const struct etok *k);
void qa_jinja_p_filters(struct qa_jinja *sc, struct qa_jinja_val *v);
void qa_jinja_p_or(struct qa_jinja *sc, struct qa_jinja_val *out);
void qa_jinja_p_expr(struct qa_jinja *sc, struct qa_jinja_val *out);
void qa_jinja_p_tuple_expr(struct qa_jinja *sc, struct qa_jinja_val *out);

#endif /* QA_ANALYSIS_JINJA_INT_H */
