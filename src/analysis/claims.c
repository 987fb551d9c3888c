/* SPDX-License-Identifier: MIT */
/*
 * What the quantization config claims, per module: the one pattern
 * matcher (analysis/analysis.h qa_pattern_match, documented in
 * docs/quantization.md "Patterns") and each method's consumer semantics
 * (which modules its loader builds quantized). The config is read by
 * formats/quant_config.c; the tensors, the truth, by quant_modules.c;
 * the checks compare the two from the facts resolved here.
 *
 * Where the config lives and every method's keys and matching rules:
 * quant-formats.md §1.2, §A1-A8 and the summary table §A10, with the
 * upstream source at each rule below.
 *
 * Cost. A config may list thousands of patterns and a checkpoint hold
 * tens of thousands of modules; trying every pattern on every name is
 * O(patterns x names) regexec calls (minutes for 0.6 MB of config). The
 * matcher instead:
 *  - measures every regex before compiling it (pyregex.h bounds: an
 *    over-complex one is never compiled, QA6101) and compiles each
 *    distinct pattern once;
 *  - indexes the patterns by what a name must hold for them to match:
 *    the fixed-width start of the pattern (a trie of literal characters
 *    and single-character wildcards, since re.match, fnmatch, prefixes
 *    and exact names are all anchored at the start) or, for patterns
 *    that start with a wildcard, a literal that must occur somewhere (a
 *    trigram index, verified with a substring search); only the
 *    patterns the index returns are evaluated on a name, identical
 *    patterns once;
 *  - answers every question about one name (first exclusion, first
 *    override, any target...) from one pass over its candidates, kept
 *    per distinct name and role;
 *  - spends at most QA_PATTERN_WORK_MAX units of work per config
 *    (docs/performance.md): past it, the pairs not yet evaluated count
 *    as "cannot say" and qc->patterns_capped is set (QA6102).
 * Class-name patterns ("Linear") depend on the role only and are decided
 * once per role.
 */
#define _POSIX_C_SOURCE 200809L
#include "analysis/analysis.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pyregex.h"
#include "core/hash.h"

/* Module and parent names longer than this are not counted. */
#define MAX_NAME 1024
/* Characters of a pattern's fixed-width start kept in the trie. */
#define MAX_SKEL 64

/* ---- one pattern, read once --------------------------------------------- */

enum slot_how {
	HOW_NEVER,	/* matches nothing (empty pattern) */
	HOW_UNSURE,	/* cannot say for any name (untranslatable, too
			 * complex, does not compile) */
	HOW_CLASS,	/* a class name: by role */
	HOW_EVAL,	/* evaluated on the names the index gives */
};

struct slot {
	const struct qa_quant_pattern *p;
	enum slot_how how;
	uint32_t canon;		/* first slot with the same kind and text */
	regex_t re;
	bool compiled;
	const char *lit;	/* a literal the name must contain, or NULL */
	size_t lit_n;
	size_t cost;		/* evaluation cost beyond the name */
};

/* A trie node of pattern starts: literal edges, one edge for any
 * character, and the slots whose start ends here. */
struct tnode {
	uint32_t first_child;	/* index, 0 = none */
	uint32_t next_sibling;
	uint32_t any_child;
	uint32_t first_slot;	/* index into slot_next chain + 1, 0 none */
	unsigned char ch;	/* the edge from the parent */
	bool any;		/* the parent's any-character edge */
};

/* What one name (and role) gives for every question the claims ask. */
struct hits {
	int32_t ex_hit;		/* first exclusion matching, -1 none */
	bool ex_unsure;		/* an exclusion cannot say */
	int32_t ov_hit;		/* first override matching */
	int32_t ov_unsure;	/* first override that cannot say */
	int32_t ov_keep;	/* first skip / 16-bit override matching */
	int32_t ov_name;	/* first quantizing override matching */
	int32_t ov_decl;	/* first non-skip override matching */
	int32_t tg_hit;		/* first target matching */
};

struct memo {
	const char *name;	/* owned copy */
	size_t n;
	int role;
	struct hits h;
	struct memo *next;
};

/* Buckets of the per-name results at first; doubled as names come so
 * that chains stay short (a lookup is O(1) for any number of names). */
#define MEMO_BUCKETS_MIN 1024

/*
 * The patterns of one config, indexed. Slots: exclude entries, then
 * overrides, then targets.
 */
struct matcher {
	const struct qa_quant_config *qc;
	size_t n;
	struct slot *slots;
	bool ready;		/* index built */
	bool broken;		/* out of memory: evaluate directly */
	/* trie */
	struct tnode *nodes;
	uint32_t n_nodes, cap_nodes;
	uint32_t *slot_next;	/* per slot: next slot at the same node + 1 */
	/* trigram index: open addressing on the 24-bit key */
	uint32_t *tri_key;	/* key + 1, 0 = empty */
	uint32_t *tri_head;	/* first slot + 1 */
	uint32_t *tri_len;	/* slots in the list */
	uint32_t *tri_next;	/* per slot: next slot + 1 */
	size_t tri_cap;
	uint32_t *always;	/* slots with no index key */
	size_t n_always;
	/* per query */
	uint32_t stamp;
	uint32_t *seen;		/* per slot: stamp when taken */
	uint32_t *done;		/* per canon slot: stamp when evaluated */
	signed char *result;	/* per canon slot */
	uint32_t *active, *next_active;
	char *buf;		/* the name, NUL-terminated */
	size_t buf_cap;
	/* per role, the class-name and cannot-say slots */
	struct hits role_hits[QA_ROLE_COUNT];
	bool role_done[QA_ROLE_COUNT];
	/* results kept per name */
	struct memo **memo;
	size_t memo_buckets, memo_n;
	/* counting (qa_claims_resolve) */
	int32_t *hits;		/* per slot */
	bool *unsure;		/* per slot */
	uint64_t role_names[QA_ROLE_COUNT];	/* names counted per role */
	/* cost */
	uint64_t work, evals;
	bool capped;
};

static const struct qa_quant_pattern *
pattern_at(const struct qa_quant_config *qc, size_t s)
{
	if (s < qc->n_exclude)
		return &qc->exclude[s];
	s -= qc->n_exclude;
	if (s < qc->n_overrides)
		return &qc->overrides[s].pattern;
	return &qc->targets[s - qc->n_overrides];
}

/* Whether a regex is within the bounds it may be compiled in, and what
 * it measures. */
static bool
regex_measure(const struct qa_quant_pattern *p, struct qa_regex_cost *cost)
{
	char why[96];

	return qa_py_regex_cost(p->text, cost, why, sizeof(why));
}

static bool
regex_ok(const struct qa_quant_pattern *p)
{
	struct qa_regex_cost cost;

	return regex_measure(p, &cost);
}

/*
 * Work units (about 10 ns each, measured on glibc 2.36) that compiling a
 * regex within the pyregex.h bounds costs: linear in the expanded size
 * for the short patterns real configs hold (10 us), quadratic in what
 * bounded repeats add (a{0,1000}: 20 ms, [a-z]{0,999}: 45 ms, some
 * shapes of 600 positions 100 ms or more: charged 40 units a square),
 * and steep in the copies of an empty-matching part (bounded at 4 by
 * pyregex.h: (.*){0,20} takes 0.15 ms, ((.{0,5}|)*){1,10} a second).
 * Generous, so that the bound holds on a slower machine too.
 */
static uint64_t
compile_cost(const struct qa_regex_cost *c)
{
	uint64_t n = c->nullable_copies;
	/* the positions bounded repeats add to the pattern's own */
	uint64_t grown = c->size > c->len ? c->size - c->len : 0;

	return 300 + 4 * (uint64_t)c->len + 20 * c->size +
	       40 * grown * grown + (n > 1 ? 20000 * n * n : 0);
}

/* Evaluation cost beyond the name's length: the automaton's size. */
static size_t
exec_cost(const struct qa_regex_cost *c)
{
	return c->len + 2 * (size_t)c->size;
}

static bool
compile(const struct qa_quant_pattern *p, regex_t *re)
{
	char src[QA_PYREGEX_MAX];

	return regex_ok(p) &&
	       qa_py_regex_to_ere(p->text, src, sizeof(src)) &&
	       regcomp(re, src, REG_EXTENDED | REG_NOSUB) == 0;
}

/* A class-name target ("Linear", "Embedding"): no dot, upper-case first. */
static bool
is_class_name(const char *s)
{
	return s[0] >= 'A' && s[0] <= 'Z' && !strchr(s, '.');
}

/* compressed-tensors utils/match.py _match_class; vLLM's LinearBase
 * counts as Linear. 1 match, 0 no match, -1 cannot tell. */
static int
class_match(const char *cls, enum qa_role role)
{
	enum qa_quant_class rc = qa_role_quant_class(role);

	if (strcmp(cls, "Linear") == 0 || strcmp(cls, "LinearBase") == 0) {
		if (rc == QA_QCLASS_UNSURE)
			return -1;
		return rc == QA_QCLASS_LINEAR || rc == QA_QCLASS_EXPERT ||
		       rc == QA_QCLASS_ROUTER || rc == QA_QCLASS_LM_HEAD;
	}
	if (strcmp(cls, "Embedding") == 0) {
		if (rc == QA_QCLASS_UNSURE)
			return -1;
		return rc == QA_QCLASS_EMBED;
	}
	return rc == QA_QCLASS_NEVER ? 0 : -1;
}

/* ---- globs, as Python's fnmatch.fnmatchcase reads them ------------------ */

/* The code point at s (UTF-8; a stray byte is one character). */
static size_t
cp_len(const unsigned char *s, size_t n)
{
	size_t w = s[0] < 0x80 ? 1 : s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 :
		   s[0] >= 0xc0 ? 2 : 1, i;

	for (i = 1; i < w; i++)
		if (i >= n || (s[i] & 0xc0) != 0x80)
			return 1;
	return w;
}

static uint32_t
cp_at(const unsigned char *s, size_t w)
{
	uint32_t v;
	size_t i;

	if (w == 1)
		return s[0];
	v = s[0] & (0x7f >> w);
	for (i = 1; i < w; i++)
		v = (v << 6) | (s[i] & 0x3f);
	return v;
}

/*
 * A [...] set at pat (after '['): whether code point c is in it, and the
 * set's length through ']' in *len. Python's rules: '!' negates, a ']'
 * first is a member, 'a-z' ranges (a reversed one matches nothing), a
 * backslash is itself. Returns -1 when there is no closing ']' (the '['
 * is then a literal).
 */
static int
glob_set(const unsigned char *pat, size_t pn, uint32_t c, size_t *len)
{
	size_t j = 0, k;
	bool neg = false, in = false;

	if (j < pn && pat[j] == '!') {
		neg = true;
		j++;
	}
	k = j;
	if (k < pn && pat[k] == ']')
		k++;
	while (k < pn && pat[k] != ']')
		k++;
	if (k >= pn)
		return -1;
	*len = k + 1;
	/* [!] matches any character */
	if (neg && k == j)
		return 1;
	while (j < k) {
		size_t w = cp_len(pat + j, k - j);
		uint32_t lo = cp_at(pat + j, w), hi = lo;

		j += w;
		if (j + 1 < k && pat[j] == '-') {
			size_t w2 = cp_len(pat + j + 1, k - j - 1);

			hi = cp_at(pat + j + 1, w2);
			j += 1 + w2;
		}
		if (lo <= c && c <= hi)
			in = true;
	}
	return in != neg;
}

/*
 * fnmatchcase(name, pat): '*' any run (dots and newlines too), '?' one
 * character, [...] sets; the whole name. Greedy with one backtrack point
 * (the last '*'), so O(len(name) x len(pat)) at worst; *steps counts
 * the work.
 */
static bool
glob_whole(const char *pat_s, const char *name_s, size_t nn, uint64_t *steps)
{
	const unsigned char *pat = (const unsigned char *)pat_s;
	const unsigned char *s = (const unsigned char *)name_s;
	size_t pn = strlen(pat_s), pi = 0, si = 0;
	size_t star_p = (size_t)-1, star_s = 0;

	while (si < nn) {
		size_t w = cp_len(s + si, nn - si), len = 0;
		uint32_t c = cp_at(s + si, w);
		int in;

		(*steps)++;
		if (pi < pn && pat[pi] == '*') {
			star_p = pi++;
			star_s = si;
			continue;
		}
		if (pi < pn && pat[pi] == '?') {
			pi++;
			si += w;
			continue;
		}
		if (pi < pn && pat[pi] == '[' &&
		    (in = glob_set(pat + pi + 1, pn - pi - 1, c, &len)) >= 0) {
			if (in) {
				pi += 1 + len;
				si += w;
				continue;
			}
		} else if (pi < pn) {
			size_t pw = cp_len(pat + pi, pn - pi);

			if (pw == w && memcmp(pat + pi, s + si, w) == 0) {
				pi += pw;
				si += w;
				continue;
			}
		}
		if (star_p == (size_t)-1)
			return false;
		pi = star_p + 1;
		star_s += cp_len(s + star_s, nn - star_s);
		si = star_s;
	}
	while (pi < pn && pat[pi] == '*')
		pi++;
	return pi == pn;
}

/* fnmatch the module or one of its parents: "model.layers.*.self_attn"
 * (gpt-oss modules_to_not_convert) names the attention module whose
 * Linears are its children. Python fnmatch's '*' crosses dots. */
static int
glob_match(const char *pat, const char *name, uint64_t *steps)
{
	size_t n = strlen(name), i;

	if (glob_whole(pat, name, n, steps))
		return 1;
	if (n >= MAX_NAME)
		return 0;
	for (i = n; i > 0; i--)
		if (name[i - 1] == '.' && glob_whole(pat, name, i - 1, steps))
			return 1;
	return 0;
}

/* The pattern on one name, directly: 1, 0, or -1 (cannot say). */
static int
match_direct(const struct qa_quant_pattern *p, const char *name,
	     enum qa_role role, regex_t *re, bool compiled, uint64_t *steps)
{
	regex_t own;
	int hit;

	if (!p->text || !*p->text)
		return 0;
	switch (p->kind) {
	case QA_PAT_EXACT:
		if (is_class_name(p->text))
			return class_match(p->text, role);
		return strcmp(p->text, name) == 0;
	case QA_PAT_REGEX:
		if (compiled)
			return regexec(re, name, 0, NULL, 0) == 0;
		if (!compile(p, &own))
			return -1;
		hit = regexec(&own, name, 0, NULL, 0) == 0;
		regfree(&own);
		return hit;
	case QA_PAT_GLOB:
		return glob_match(p->text, name, steps);
	case QA_PAT_SUBSTRING:
		return strstr(name, p->text) != NULL;
	case QA_PAT_PREFIX:
		return strncmp(name, p->text, strlen(p->text)) == 0;
	}
	return -1;
}

int
qa_pattern_match(const struct qa_quant_pattern *p, const char *module,
		 enum qa_role role)
{
	uint64_t steps = 0;

	return match_direct(p, module, role, NULL, false, &steps);
}

/* ---- what a name must hold for a pattern to match ------------------------ */

#define ANY 256

/* Whether a Python regex has a '|' outside every group and class (its
 * start is then not fixed). */
static bool
top_level_alt(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p += p[0] == '\\' && p[1] ? 2 : 1;
			if (!*p)
				return true;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			depth--;
		} else if (*p == '|' && depth <= 0) {
			return true;
		}
	}
	return false;
}

/* The translator's rule for '{': a quantifier, or a literal. */
static bool
is_brace_quant(const char *p, bool *min_zero)
{
	const char *q = p + 1;
	bool lo = false, comma = false, zero = true;

	while (*q >= '0' && *q <= '9') {
		if (*q != '0')
			zero = false;
		q++;
		lo = true;
	}
	if (*q == ',') {
		comma = true;
		q++;
		while (*q >= '0' && *q <= '9')
			q++;
	}
	*min_zero = !lo || zero;
	return *q == '}' && (lo || (comma && q[-1] != ','));
}

/*
 * Reads the Python regex at p atom by atom, as re.match anchors it: the
 * fixed-width start (literal characters, ANY for '.', classes and \d
 * style escapes) into sk (when sk is not NULL), and the longest run of
 * literal characters that every match contains into lit. Stops at the
 * first group, alternation or variable repeat for the start; skips them
 * for the literal runs.
 */
static void
regex_parts(const char *p, uint16_t *sk, size_t *skn, char *lit,
	    size_t *litn)
{
	char run[MAX_SKEL + 1];
	size_t rn = 0;
	bool start = sk != NULL, alt = top_level_alt(p);

	*skn = 0;
	*litn = 0;
	if (alt)
		return;
	if (*p == '^')
		p++;
	while (*p) {
		int atom = -1;		/* a literal byte, ANY, or -1: none */
		const char *q;
		bool zero = false, fixed = true;

		if (*p == '\\') {
			char e = p[1];

			if (!e)
				break;
			if (strchr("dDwWsS", e))
				atom = ANY;
			else if (e == 'n')
				atom = '\n';
			else if (e == 't')
				atom = '\t';
			else if (!((e >= 'a' && e <= 'z') ||
				   (e >= 'A' && e <= 'Z') ||
				   (e >= '0' && e <= '9')))
				atom = (unsigned char)e;
			else
				break;	/* \b, \A, backreferences... */
			q = p + 2;
		} else if (*p == '.') {
			atom = ANY;
			q = p + 1;
		} else if (*p == '[') {
			q = p + 1;
			if (*q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']')
				q += q[0] == '\\' && q[1] ? 2 : 1;
			if (!*q)
				break;
			q++;
			atom = ANY;
		} else if (*p == '(' || *p == '$' || *p == ')' || *p == '|' ||
			   *p == '*' || *p == '+' || *p == '?') {
			/* a group: the start ends; literal runs resume after
			 * it and its quantifier */
			int depth = 0;

			if (*p != '(')
				break;
			start = false;
			if (rn > *litn) {
				memcpy(lit, run, rn);
				*litn = rn;
			}
			rn = 0;
			for (q = p; *q; q++) {
				if (*q == '\\' && q[1])
					q++;
				else if (*q == '(')
					depth++;
				else if (*q == ')' && --depth == 0)
					break;
			}
			if (!*q)
				break;
			p = q + 1;
			if (*p == '*' || *p == '+' || *p == '?')
				p++;
			else if (*p == '{' && is_brace_quant(p, &zero))
				p = strchr(p, '}') + 1;
			if (*p == '?' || *p == '+')
				p++;
			continue;
		} else if (*p == '{' && is_brace_quant(p, &zero)) {
			break;
		} else {
			atom = (unsigned char)*p;
			q = p + 1;
		}
		/* its quantifier */
		if (*q == '*' || *q == '?') {
			fixed = false;
			zero = true;
			q++;
		} else if (*q == '+') {
			fixed = false;
			q++;
		} else if (*q == '{' && is_brace_quant(q, &zero)) {
			fixed = false;
			q = strchr(q, '}') + 1;
		}
		if (!fixed && (*q == '?' || *q == '+'))
			q++;
		if (start && !zero && *skn < MAX_SKEL)
			sk[(*skn)++] = (uint16_t)atom;
		if (!fixed || zero)
			start = false;
		if (atom != ANY && !zero && rn < MAX_SKEL)
			run[rn++] = (char)atom;
		if (atom == ANY || !fixed || zero) {
			if (rn > *litn) {
				memcpy(lit, run, rn);
				*litn = rn;
			}
			rn = 0;
		}
		p = q;
	}
	if (rn > *litn) {
		memcpy(lit, run, rn);
		*litn = rn;
	}
}

/* A glob's start before its first '*' ('?' and sets are ANY), and its
 * longest literal run. */
static void
glob_parts(const char *p, uint16_t *sk, size_t *skn, char *lit, size_t *litn)
{
	size_t rn = 0, len;
	const char *run = p;
	bool start = true;

	*skn = 0;
	*litn = 0;
	while (*p) {
		bool wild = *p == '*' || *p == '?';

		if (*p == '[' && glob_set((const unsigned char *)p + 1,
					  strlen(p + 1), 0, &len) >= 0) {
			/* a set (like '?') is one character, which may be
			 * several bytes: the start ends here */
			start = false;
			if (rn > *litn) {
				*litn = rn < MAX_SKEL ? rn : MAX_SKEL;
				memcpy(lit, run, *litn);
			}
			rn = 0;
			p += 1 + len;
			run = p;
			continue;
		}
		if (wild) {
			start = false;
			if (rn > *litn) {
				*litn = rn < MAX_SKEL ? rn : MAX_SKEL;
				memcpy(lit, run, *litn);
			}
			rn = 0;
			p++;
			run = p;
			continue;
		}
		if (start && *skn < MAX_SKEL)
			sk[(*skn)++] = (unsigned char)*p;
		rn++;
		p++;
	}
	if (rn > *litn) {
		*litn = rn < MAX_SKEL ? rn : MAX_SKEL;
		memcpy(lit, run, *litn);
	}
}

/* ---- the index --------------------------------------------------------- */

static uint32_t
new_node(struct matcher *mx, unsigned char ch, bool any)
{
	struct tnode *t;

	if (mx->n_nodes == mx->cap_nodes) {
		uint32_t cap = mx->cap_nodes ? mx->cap_nodes * 2 : 64;

		t = realloc(mx->nodes, cap * sizeof(*t));
		if (!t)
			return 0;
		mx->nodes = t;
		mx->cap_nodes = cap;
	}
	t = &mx->nodes[mx->n_nodes];
	memset(t, 0, sizeof(*t));
	t->ch = ch;
	t->any = any;
	return mx->n_nodes++;
}

static bool
trie_insert(struct matcher *mx, const uint16_t *sk, size_t n, uint32_t s)
{
	uint32_t at = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t c, nx = 0;

		if (sk[i] == ANY) {
			nx = mx->nodes[at].any_child;
			if (!nx) {
				nx = new_node(mx, 0, true);
				if (!nx)
					return false;
				mx->nodes[at].any_child = nx;
			}
		} else {
			for (c = mx->nodes[at].first_child; c;
			     c = mx->nodes[c].next_sibling)
				if (mx->nodes[c].ch == sk[i]) {
					nx = c;
					break;
				}
			if (!nx) {
				nx = new_node(mx, (unsigned char)sk[i], false);
				if (!nx)
					return false;
				mx->nodes[nx].next_sibling =
					mx->nodes[at].first_child;
				mx->nodes[at].first_child = nx;
			}
		}
		at = nx;
	}
	mx->slot_next[s] = mx->nodes[at].first_slot;
	mx->nodes[at].first_slot = s + 1;
	return true;
}

static uint32_t
tri_of(const char *s)
{
	return ((uint32_t)(unsigned char)s[0] << 16) |
	       ((uint32_t)(unsigned char)s[1] << 8) | (unsigned char)s[2];
}

/* The trigram index slot of key (inserting it when add). */
static size_t
tri_find(struct matcher *mx, uint32_t key, bool add, bool *found)
{
	size_t i = (key * 2654435761u) & (mx->tri_cap - 1);

	*found = false;
	while (mx->tri_key[i]) {
		if (mx->tri_key[i] == key + 1) {
			*found = true;
			return i;
		}
		i = (i + 1) & (mx->tri_cap - 1);
	}
	if (add) {
		mx->tri_key[i] = key + 1;
		mx->tri_head[i] = 0;
		mx->tri_len[i] = 0;
		*found = true;
	}
	return i;
}

/* Files slot s under the trigram of its literal that the fewest other
 * patterns use (so that patterns sharing a common part still spread
 * over their distinctive trigrams). */
static void
tri_insert(struct matcher *mx, const char *lit, size_t n, uint32_t s)
{
	size_t best = 0, i, at;
	uint32_t best_len = UINT32_MAX;
	bool found;

	for (i = 0; i + 3 <= n; i++) {
		uint32_t len;

		at = tri_find(mx, tri_of(lit + i), false, &found);
		len = found ? mx->tri_len[at] : 0;
		if (len < best_len) {
			best_len = len;
			best = i;
		}
	}
	at = tri_find(mx, tri_of(lit + best), true, &found);
	mx->tri_next[s] = mx->tri_head[at];
	mx->tri_head[at] = s + 1;
	mx->tri_len[at]++;
}

struct ckey {
	uint32_t i;
	int kind;
	const char *t;
};

static int
cmp_ckey(const void *pa, const void *pb)
{
	const struct ckey *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = strcmp(a->t, b->t);
	if (c)
		return c;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Identical patterns (kind and text) share one evaluation: canon is the
 * first slot of each group. */
static bool
canon_init(struct matcher *mx)
{
	struct ckey *k = malloc((mx->n ? mx->n : 1) * sizeof(*k));
	size_t i;

	if (!k)
		return false;
	for (i = 0; i < mx->n; i++) {
		k[i].i = (uint32_t)i;
		k[i].kind = mx->slots[i].p->kind;
		k[i].t = mx->slots[i].p->text ? mx->slots[i].p->text : "";
	}
	qsort(k, mx->n, sizeof(*k), cmp_ckey);
	for (i = 0; i < mx->n; i++)
		mx->slots[k[i].i].canon = i > 0 &&
			k[i].kind == k[i - 1].kind &&
			strcmp(k[i].t, k[i - 1].t) == 0 ?
			mx->slots[k[i - 1].i].canon : k[i].i;
	free(k);
	return true;
}

static void
index_free(struct matcher *mx)
{
	size_t i;

	for (i = 0; mx->slots && i < mx->n; i++) {
		if (mx->slots[i].compiled)
			regfree(&mx->slots[i].re);
		free((char *)mx->slots[i].lit);
	}
	free(mx->slots);
	free(mx->nodes);
	free(mx->slot_next);
	free(mx->tri_key);
	free(mx->tri_head);
	free(mx->tri_len);
	free(mx->tri_next);
	free(mx->always);
	free(mx->seen);
	free(mx->done);
	free(mx->result);
	free(mx->active);
	free(mx->next_active);
	free(mx->buf);
	free(mx->hits);
	free(mx->unsure);
	for (i = 0; mx->memo && i < mx->memo_buckets; i++) {
		struct memo *m = mx->memo[i], *next;

		for (; m; m = next) {
			next = m->next;
			free(m);
		}
	}
	free(mx->memo);
	mx->memo = NULL;
	mx->memo_buckets = mx->memo_n = 0;
}

/*
 * Reads every pattern once: how it is decided, its compiled regex, and
 * its place in the index. false when out of memory (the matcher then
 * evaluates every pattern on every name, within the same work bound).
 */
static bool
build_index(struct matcher *mx)
{
	size_t i, n = mx->n;

	mx->ready = true;
	mx->slots = calloc(n ? n : 1, sizeof(*mx->slots));
	mx->slot_next = calloc(n ? n : 1, sizeof(*mx->slot_next));
	mx->tri_next = calloc(n ? n : 1, sizeof(*mx->tri_next));
	mx->always = calloc(n ? n : 1, sizeof(*mx->always));
	mx->seen = calloc(n ? n : 1, sizeof(*mx->seen));
	mx->done = calloc(n ? n : 1, sizeof(*mx->done));
	mx->result = calloc(n ? n : 1, sizeof(*mx->result));
	mx->tri_cap = 16;
	while (mx->tri_cap < 2 * n)
		mx->tri_cap *= 2;
	mx->tri_key = calloc(mx->tri_cap, sizeof(*mx->tri_key));
	mx->tri_head = calloc(mx->tri_cap, sizeof(*mx->tri_head));
	mx->tri_len = calloc(mx->tri_cap, sizeof(*mx->tri_len));
	if (!mx->slots || !mx->slot_next || !mx->tri_next || !mx->always ||
	    !mx->seen || !mx->done || !mx->result || !mx->tri_key ||
	    !mx->tri_head || !mx->tri_len)
		goto broken;
	/* the root is node 0 (so 0 can mean "no child" elsewhere) */
	new_node(mx, 0, false);
	if (mx->n_nodes != 1)
		goto broken;
	for (i = 0; i < n; i++)
		mx->slots[i].p = pattern_at(mx->qc, i);
	if (!canon_init(mx))
		goto broken;
	for (i = 0; i < n; i++) {
		struct slot *s = &mx->slots[i];
		const struct qa_quant_pattern *p = s->p;
		const struct slot *c = &mx->slots[s->canon];
		uint16_t sk[MAX_SKEL];
		char lit[MAX_SKEL + 1];
		size_t skn = 0, litn = 0, k, n_lit = 0;
		char src[QA_PYREGEX_MAX];
		struct qa_regex_cost rc;

		if (!p->text || !*p->text) {
			s->how = HOW_NEVER;
			continue;
		}
		if (p->kind == QA_PAT_EXACT && is_class_name(p->text)) {
			s->how = HOW_CLASS;
			continue;
		}
		s->how = HOW_EVAL;
		s->cost = strlen(p->text);
		switch (p->kind) {
		case QA_PAT_REGEX:
			if (s->canon != i) {
				s->how = c->how;
				if (s->how == HOW_UNSURE)
					continue;
			} else if (!regex_measure(p, &rc) ||
				   !qa_py_regex_to_ere(p->text, src,
						       sizeof(src))) {
				s->how = HOW_UNSURE;
				continue;
			} else if (mx->work + compile_cost(&rc) >
				   QA_PATTERN_WORK_MAX) {
				/* compiling it would pass the bound: the
				 * pairs it decides count as unknown */
				mx->capped = true;
				s->how = HOW_UNSURE;
				continue;
			} else {
				mx->work += compile_cost(&rc);
				if (regcomp(&s->re, src,
					    REG_EXTENDED | REG_NOSUB) != 0) {
					s->how = HOW_UNSURE;
					continue;
				}
				s->compiled = true;
				s->cost = exec_cost(&rc);
			}
			regex_parts(p->text, sk, &skn, lit, &litn);
			break;
		case QA_PAT_GLOB:
			glob_parts(p->text, sk, &skn, lit, &litn);
			break;
		case QA_PAT_SUBSTRING:
			/* any part of it must be in the name too */
			litn = strlen(p->text) < MAX_SKEL ? strlen(p->text) :
			       MAX_SKEL;
			memcpy(lit, p->text, litn);
			break;
		case QA_PAT_EXACT:
		case QA_PAT_PREFIX:
			for (k = 0; p->text[k] && k < MAX_SKEL; k++)
				sk[k] = (unsigned char)p->text[k];
			skn = k;
			break;
		}
		for (k = 0; k < skn; k++)
			n_lit += sk[k] != ANY;
		if (n_lit >= 2 || (skn && (p->kind == QA_PAT_EXACT ||
					   p->kind == QA_PAT_PREFIX))) {
			if (!trie_insert(mx, sk, skn, (uint32_t)i))
				goto broken;
		} else if (litn >= 3) {
			char *copy = malloc(litn + 1);

			if (!copy)
				goto broken;
			memcpy(copy, lit, litn);
			copy[litn] = '\0';
			s->lit = copy;
			s->lit_n = litn;
			tri_insert(mx, lit, litn, (uint32_t)i);
		} else {
			mx->always[mx->n_always++] = (uint32_t)i;
		}
	}
	mx->active = malloc(mx->n_nodes * sizeof(*mx->active));
	mx->next_active = malloc(mx->n_nodes * sizeof(*mx->next_active));
	if (!mx->active || !mx->next_active)
		goto broken;
	return true;
broken:
	mx->broken = true;
	return false;
}

static void
hits_init(struct hits *h)
{
	h->ex_hit = h->ov_hit = h->ov_unsure = h->ov_keep = -1;
	h->ov_name = h->ov_decl = h->tg_hit = -1;
	h->ex_unsure = false;
}

static void
min_to(int32_t *at, int32_t v)
{
	if (*at < 0 || v < *at)
		*at = v;
}

/* What result r of slot s means for the questions. */
static void
record(const struct matcher *mx, struct hits *h, size_t s, int r)
{
	const struct qa_quant_config *qc = mx->qc;
	size_t ne = qc->n_exclude, no = qc->n_overrides;

	if (r == 0)
		return;
	if (s < ne) {
		if (r > 0)
			min_to(&h->ex_hit, (int32_t)s);
		else
			h->ex_unsure = true;
	} else if (s < ne + no) {
		const struct qa_quant_override *o = &qc->overrides[s - ne];
		int32_t i = (int32_t)(s - ne);

		if (r < 0) {
			min_to(&h->ov_unsure, i);
			return;
		}
		min_to(&h->ov_hit, i);
		if (o->skip || o->bits >= 16)
			min_to(&h->ov_keep, i);
		if (!o->skip && o->bits < 16)
			min_to(&h->ov_name, i);
		if (!o->skip)
			min_to(&h->ov_decl, i);
	} else if (r > 0) {
		min_to(&h->tg_hit, (int32_t)(s - ne - no));
	}
}

/* The slots decided without the name: class names (by role) and the
 * patterns that cannot say. */
static const struct hits *
role_hits(struct matcher *mx, enum qa_role role)
{
	struct hits *h;
	size_t i;

	if ((unsigned)role >= QA_ROLE_COUNT)
		role = QA_ROLE_OTHER;
	h = &mx->role_hits[role];
	if (mx->role_done[role])
		return h;
	hits_init(h);
	for (i = 0; i < mx->n; i++) {
		const struct slot *s = &mx->slots[i];

		if (s->how == HOW_UNSURE)
			record(mx, h, i, -1);
		else if (s->how == HOW_CLASS)
			record(mx, h, i, class_match(s->p->text, role));
	}
	mx->role_done[role] = true;
	return h;
}

/* One candidate slot on the current name (mx->buf, n bytes). */
static void
evaluate(struct matcher *mx, size_t s, size_t n, enum qa_role role,
	 struct hits *h, bool count)
{
	const struct slot *sl = &mx->slots[s];
	uint32_t c = sl->canon;
	int r;

	if (mx->seen[s] == mx->stamp)
		return;
	mx->seen[s] = mx->stamp;
	mx->work++;
	if (mx->done[c] == mx->stamp) {
		r = mx->result[c];
	} else {
		const struct slot *cs = &mx->slots[c];
		uint64_t steps = 0, cost = n + cs->cost;

		if (cs->lit && !strstr(mx->buf, cs->lit)) {
			r = 0;
		} else if (mx->work + cost > QA_PATTERN_WORK_MAX) {
			mx->capped = true;
			r = -1;
		} else {
			r = match_direct(cs->p, mx->buf, role,
					 (regex_t *)&cs->re, cs->compiled,
					 &steps);
			mx->work += cost + steps;
			mx->evals++;
		}
		mx->done[c] = mx->stamp;
		mx->result[c] = (signed char)r;
	}
	record(mx, h, s, r);
	if (count && mx->hits) {
		if (r > 0 && mx->hits[s] < INT32_MAX)
			mx->hits[s]++;
		else if (r < 0)
			mx->unsure[s] = true;
	}
}

/* What a name is told once the work bound is passed: the results found
 * stand, and every exclusion and override it was not yet evaluated
 * against may match. */
static void
capped_hits(const struct matcher *mx, struct hits *h)
{
	if (mx->qc->n_exclude && h->ex_hit < 0)
		h->ex_unsure = true;
	if (mx->qc->n_overrides)
		min_to(&h->ov_unsure, 0);
}

/* Every question about one name: its candidates from the index. */
static void
query(struct matcher *mx, const char *name, size_t n, enum qa_role role,
      struct hits *h, bool count)
{
	size_t i, n_active = 1, d;

	*h = *role_hits(mx, role);
	if (mx->capped) {
		capped_hits(mx, h);
		return;
	}
	if (++mx->stamp == 0) {
		memset(mx->seen, 0, mx->n * sizeof(*mx->seen));
		memset(mx->done, 0, mx->n * sizeof(*mx->done));
		mx->stamp = 1;
	}
	/* the trie: every pattern start the name begins with */
	mx->active[0] = 0;
	for (d = 0; n_active; d++) {
		size_t n_next = 0;

		if (mx->work > QA_PATTERN_WORK_MAX)
			goto capped;

		for (i = 0; i < n_active; i++) {
			const struct tnode *t = &mx->nodes[mx->active[i]];
			uint32_t c, s;

			mx->work++;
			for (s = t->first_slot; s; s = mx->slot_next[s - 1])
				evaluate(mx, s - 1, n, role, h, count);
			if (d >= n)
				continue;
			for (c = t->first_child; c; c = mx->nodes[c].next_sibling) {
				mx->work++;
				if (mx->nodes[c].ch == (unsigned char)name[d]) {
					mx->next_active[n_next++] = c;
					break;
				}
			}
			if (t->any_child)
				mx->next_active[n_next++] = t->any_child;
		}
		memcpy(mx->active, mx->next_active, n_next * sizeof(*mx->active));
		n_active = n_next;
	}
	/* the trigrams: patterns with a literal the name may contain */
	for (i = 0; i + 3 <= n; i++) {
		bool found;
		size_t at = tri_find(mx, tri_of(name + i), false, &found);
		uint32_t s;

		mx->work++;
		if (mx->work > QA_PATTERN_WORK_MAX)
			goto capped;
		if (!found)
			continue;
		for (s = mx->tri_head[at]; s; s = mx->tri_next[s - 1])
			evaluate(mx, s - 1, n, role, h, count);
	}
	for (i = 0; i < mx->n_always; i++) {
		if (mx->capped)
			goto capped;
		evaluate(mx, mx->always[i], n, role, h, count);
	}
	if (!mx->capped)
		return;
capped:
	mx->capped = true;
	capped_hits(mx, h);
}

/* Without an index (out of memory): every pattern, in order. */
static void
query_direct(struct matcher *mx, const char *name, enum qa_role role,
	     struct hits *h, bool count)
{
	size_t i;

	hits_init(h);
	for (i = 0; i < mx->n; i++) {
		const struct qa_quant_pattern *p = pattern_at(mx->qc, i);
		uint64_t steps = 0, cost = strlen(name) +
					   (p->text ? strlen(p->text) : 0);
		int r;

		if (mx->work + cost > QA_PATTERN_WORK_MAX) {
			mx->capped = true;
			r = -1;
		} else {
			r = match_direct(p, name, role, NULL, false, &steps);
			mx->work += cost + steps;
			mx->evals++;
		}
		record(mx, h, i, r);
		if (count && mx->hits) {
			if (r > 0 && mx->hits[i] < INT32_MAX)
				mx->hits[i]++;
			else if (r < 0)
				mx->unsure[i] = true;
		}
	}
}

/* The keyed hash of core/hash.h: names come from the file. */
static uint32_t
memo_hash(const char *s, size_t n, int role)
{
	return (uint32_t)(qa_hash(s, n) ^ (uint64_t)role * 0x9E3779B97F4A7C15u);
}

/* Room for one more result: the table is created, or doubled when it
 * holds two names per bucket. false when out of memory (the result is
 * then not kept, only recomputed). */
static bool
memo_room(struct matcher *mx)
{
	size_t nb, i;
	struct memo **t;

	if (mx->memo && mx->memo_n < 2 * mx->memo_buckets)
		return true;
	nb = mx->memo ? mx->memo_buckets * 2 : MEMO_BUCKETS_MIN;
	t = calloc(nb, sizeof(*t));
	if (!t)
		return mx->memo != NULL;
	for (i = 0; mx->memo && i < mx->memo_buckets; i++) {
		struct memo *m = mx->memo[i], *next;

		for (; m; m = next) {
			size_t b = memo_hash(m->name, m->n, m->role) &
				   (nb - 1);

			next = m->next;
			m->next = t[b];
			t[b] = m;
		}
	}
	free(mx->memo);
	mx->memo = t;
	mx->memo_buckets = nb;
	return true;
}


/*
 * The answers for one name (n bytes, not necessarily NUL-terminated) and
 * role, kept per distinct pair; count: also add its results to the
 * per-pattern counts (each name is counted once).
 */
static struct hits
lookup(struct matcher *mx, const char *name, size_t n, enum qa_role role,
       bool count)
{
	uint32_t hash;
	struct memo *m;
	struct hits h;
	size_t b;

	/* No pattern in the config (most configs: no ignore list, no
	 * per-module override): nothing can match, nothing is unsure. */
	if (mx->n == 0) {
		hits_init(&h);
		return h;
	}
	hash = memo_hash(name, n, (int)role);
	for (m = mx->memo ? mx->memo[hash & (mx->memo_buckets - 1)] : NULL;
	     m && !count; m = m->next)
		if (m->n == n && m->role == (int)role &&
		    memcmp(m->name, name, n) == 0)
			return m->h;
	if (!mx->ready)
		build_index(mx);
	if (n + 1 > mx->buf_cap) {
		char *nb = realloc(mx->buf, n + 1);

		if (!nb) {
			hits_init(&h);
			h.ex_unsure = true;
			h.ov_unsure = 0;
			return h;
		}
		mx->buf = nb;
		mx->buf_cap = n + 1;
	}
	memcpy(mx->buf, name, n);
	mx->buf[n] = '\0';
	if (mx->broken)
		query_direct(mx, mx->buf, role, &h, count);
	else
		query(mx, mx->buf, n, role, &h, count);
	m = memo_room(mx) ? malloc(sizeof(*m) + n + 1) : NULL;
	if (m) {
		b = hash & (mx->memo_buckets - 1);
		mx->memo_n++;
		memcpy((char *)(m + 1), name, n);
		((char *)(m + 1))[n] = '\0';
		m->name = (const char *)(m + 1);
		m->n = n;
		m->role = (int)role;
		m->h = h;
		m->next = mx->memo[b];
		mx->memo[b] = m;
	}
	return h;
}

/* ---- the questions the claims ask ----------------------------------------- */

/* Any exclusion matches: 1; none: 0; none but one could not be
 * evaluated: -1. The matching entry goes to *which when which != NULL. */
static int
excluded_by(struct matcher *mx, const char *name, enum qa_role role,
	    const struct qa_quant_pattern **which)
{
	struct hits h = lookup(mx, name, strlen(name), role, false);

	if (h.ex_hit >= 0) {
		if (which)
			*which = &mx->qc->exclude[h.ex_hit];
		return 1;
	}
	return h.ex_unsure ? -1 : 0;
}

static int
excluded(struct matcher *mx, const char *name, enum qa_role role)
{
	return excluded_by(mx, name, role, NULL);
}

/* First override matching, in order. *unsure is set when a pattern
 * before the hit could not be evaluated. */
static const struct qa_quant_override *
first_override(struct matcher *mx, const char *name, enum qa_role role,
	       bool *unsure)
{
	struct hits h = lookup(mx, name, strlen(name), role, false);

	*unsure = h.ov_unsure >= 0 && (h.ov_hit < 0 || h.ov_unsure < h.ov_hit);
	return h.ov_hit >= 0 ? &mx->qc->overrides[h.ov_hit] : NULL;
}

/* Whether some target matches. */
static bool
targeted(struct matcher *mx, const char *name, enum qa_role role)
{
	return lookup(mx, name, strlen(name), role, false).tg_hit >= 0;
}

static void matcher_init(struct matcher *mx, const struct qa_quant_config *qc);
static void matcher_finish(struct matcher *mx);

/* ---- each method's consumer semantics -------------------------------- */

/* Does name start with a segment "<x>.<digits>." for a block list x? */
static bool
has_block_segment(const char *name)
{
	static const char *const lists[] = { "layers", "h", "blocks",
					     "block", "layer" };
	const char *p = name;
	size_t i;

	while (p) {
		for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
			size_t n = strlen(lists[i]);

			if (strncmp(p, lists[i], n) == 0 && p[n] == '.' &&
			    p[n + 1] >= '0' && p[n + 1] <= '9')
				return true;
		}
		p = strchr(p, '.');
		if (p)
			p++;
	}
	return false;
}

/*
 * Inside the decoder blocks the quantizer walks: block_name_to_quantize
 * when given (AutoRound, optimum GPTQ: prefix match), else the trunk's
 * numbered block list. MTP heads ("mtp.*") and vision / audio towers are
 * outside: GPTQModel, AutoAWQ and optimum only walk the text model's
 * layers (quant-formats.md §B4, §A2, §A3).
 */
static bool
in_blocks(const struct qa_quant_config *qc, const char *name,
	  enum qa_role role)
{
	uint32_t i;

	if (qc->n_blocks) {
		for (i = 0; i < qc->n_blocks; i++) {
			size_t n = strlen(qc->blocks[i]);

			if (strncmp(name, qc->blocks[i], n) == 0 &&
			    (name[n] == '.' || name[n] == '\0'))
				return true;
		}
		return false;
	}
	if (role == QA_ROLE_VISION || role == QA_ROLE_PROJECTOR ||
	    role == QA_ROLE_AUDIO)
		return false;
	if (strncmp(name, "mtp", 3) == 0 || strstr(name, ".mtp.") ||
	    strstr(name, "visual") || strstr(name, "vision") ||
	    strstr(name, "audio"))
		return false;
	return has_block_segment(name);
}

static int
claim_bits(int v, int *bits, int b)
{
	*bits = v == 1 ? b : -1;
	return v;
}

static int
claim_gptq(struct matcher *mx, const char *name, enum qa_role role,
	          int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure, scope = false;
	int b = qc->bits;
	/* Embeddings never (transformers GPTQConfig, vLLM
	 * VocabParallelEmbedding); lm_head only with "lm_head": true. */
	if (rc == QA_QCLASS_EMBED)
		return 0;
	if (rc == QA_QCLASS_LM_HEAD && qc->lm_head != 1)
		return 0;
	/* dynamic: first match in order, re.match (gptq_utils.py
	 * get_dynamic_override). */
	o = first_override(mx, name, role, &unsure);
	if (unsure)
		return -1;
	if (o && o->skip)
		return 0;
	if (o && o->bits >= 0)
		b = o->bits;
	if (rc == QA_QCLASS_LM_HEAD)
		return claim_bits(1, bits, b);
	/* MoE routers: GPTQModel module trees mark them "gate:!" and vLLM
	 * builds them with quant_config=None. */
	if (rc == QA_QCLASS_ROUTER)
		return 0;
	if (qc->n_targets) {
		scope = targeted(mx, name, role);
	} else {
		scope = in_blocks(qc, name, role);
	}
	if (!scope)
		return 0;
	if (rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, b);
}

static int
claim_awq(struct matcher *mx, const char *name, enum qa_role role,
	         int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	int ex;

	/* Only Linears inside the decoder blocks (AutoAWQ get_model_layers);
	 * modules_to_not_convert by substring (awq/utils/module.py
	 * exclude_layers_to_not_quantize). */
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD || rc == QA_QCLASS_ROUTER)
		return 0;
	ex = excluded(mx, name, role);
	if (ex == 1)
		return 0;
	if (!in_blocks(qc, name, role))
		return 0;
	if (ex < 0 || rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim_autoround(struct matcher *mx, const char *name, enum qa_role role,
	               int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure;

	/* extra_config: exact names are stored before regexes, so the first
	 * match in order is vLLM's exact-then-regex rule. */
	o = first_override(mx, name, role, &unsure);
	if (o && o->pattern.kind == QA_PAT_EXACT)
		unsure = false;
	if (unsure)
		return -1;
	if (o && o->skip)
		return 0;
	if (o)
		return claim_bits(1, bits, o->bits >= 0 ? o->bits : qc->bits);
	/* Otherwise quantized iff under block_name_to_quantize and not the
	 * LM head (vllm quantization/auto_round.py@04aa528e); embeddings are
	 * outside the blocks; routers are kept 16-bit by the AutoRound MTP
	 * heuristic (".mlp.gate.", ".shared_expert_gate.") and built with
	 * quant_config=None by vLLM. */
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD || rc == QA_QCLASS_ROUTER)
		return 0;
	if (!in_blocks(qc, name, role))
		return 0;
	if (rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim_ct(struct matcher *mx, const char *name, enum qa_role role,
	        int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	const struct qa_quant_override *o;
	bool unsure;
	int ex;

	/* Quantized iff some group's targets match and no ignore entry does
	 * (compressed-tensors utils/match.py; quant-formats.md §A4). */
	ex = excluded(mx, name, role);
	if (ex == 1)
		return 0;
	o = first_override(mx, name, role, &unsure);
	if (!o)
		return unsure ? -1 : 0;
	if (ex < 0 || unsure)
		return -1;
	return claim_bits(1, bits, o->bits >= 0 ? o->bits : qc->bits);
}

static int
claim_modelopt(struct matcher *mx, const char *name, enum qa_role role,
	              int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure;
	int ex;

	/* exclude_modules / ignore are fnmatch wildcards; vision modules are
	 * always unquantized (vllm modelopt.py@00155cde is_layer_excluded). */
	ex = excluded(mx, name, role);
	if (ex == 1 || role == QA_ROLE_VISION || role == QA_ROLE_PROJECTOR ||
	    role == QA_ROLE_AUDIO)
		return 0;
	/* MIXED_PRECISION: a layer absent from quantized_layers is
	 * unquantized (ModelOptMixedPrecisionConfig.get_quant_method). */
	if (qc->mixed) {
		o = first_override(mx, name, role, &unsure);
		if (o)
			return claim_bits(1, bits, o->bits);
		return unsure ? -1 : 0;
	}
	/* Embeddings only with the opt-in nvfp4_embed, which the config
	 * does not record per module. Every other Linear, routers and the
	 * LM head included, is quantized unless excluded: ModelOpt writes
	 * every disabled quantizer into exclude_modules (get_quant_config,
	 * _get_unquantized_moe_router_names). */
	if (rc == QA_QCLASS_EMBED)
		return 0;
	if (rc == QA_QCLASS_UNSURE || ex < 0)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim_fp8(struct matcher *mx, const char *name, enum qa_role role,
	         int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	int ex;

	/* Every Linear of the blocks except modules_to_not_convert /
	 * ignored_layers (substring); embeddings, lm_head and the router
	 * stay BF16 (DeepSeek-V3 README_WEIGHTS.md; vLLM fp8.py). */
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD || rc == QA_QCLASS_ROUTER)
		return 0;
	ex = excluded(mx, name, role);
	if (ex == 1 || !in_blocks(qc, name, role))
		return 0;
	if (ex < 0 || rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

static int
claim_mxfp4(struct matcher *mx, const char *name, enum qa_role role,
	           int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	int ex = excluded(mx, name, role);

	/* gpt-oss: only the experts are Mxfp4GptOssExperts; attention,
	 * router, embeddings, lm_head are in modules_to_not_convert
	 * (transformers convert_gpt_oss_weights_to_hf.py). */
	if (ex == 1)
		return 0;
	if (rc == QA_QCLASS_EXPERT)
		return claim_bits(ex < 0 ? -1 : 1, bits, qc->bits);
	if (rc == QA_QCLASS_UNSURE && strstr(name, ".experts"))
		return -1;
	return 0;
}

static int
claim_bnb(struct matcher *mx, const char *name, enum qa_role role,
	         int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	int ex;

	/* Every nn.Linear is replaced except llm_int8_skip_modules
	 * (substring) and the output embedding, which transformers keeps
	 * (get_keys_to_not_convert); embeddings are not Linears. */
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD)
		return 0;
	ex = excluded(mx, name, role);
	if (ex == 1)
		return 0;
	if (ex < 0 || rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

/*
 * mlx-lm: nn.quantize replaces every layer that has to_quantized
 * (Linear, Embedding, SwitchLinear: lm_head and the embeddings too) whose
 * input size is a multiple of the group size; a per-path entry of the
 * quantization dict gives that module's own bits, or false (mlx-lm
 * mlx_lm/utils.py quantize_model wrapped_predicate). A model's own
 * quant_predicate may leave a layer out without writing anything (the
 * loader then finds no .scales and keeps it dense, load_model
 * class_predicate), so an unnamed router or tower is "cannot say".
 */
static int
claim_mlx(struct matcher *mx, const char *name, enum qa_role role,
	      int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure;

	o = first_override(mx, name, role, &unsure);
	if (unsure)
		return -1;
	if (o && o->skip)
		return 0;
	if (o)
		return claim_bits(1, bits, o->bits > 0 ? o->bits : qc->bits);
	if (rc == QA_QCLASS_ROUTER || rc == QA_QCLASS_UNSURE ||
	    qc->modules_listed)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

/*
 * ExLlamaV2 / V3 claim no per-module precision a loader relies on: both
 * find each layer's storage by its tensor names and load an FP16 Linear
 * as readily as a quantized one (exllamav2/module.py load_weight;
 * exllamav3/modules/linear.py load_exl3, load_fp16). The converters keep
 * the embeddings unquantized (exllamav2/conversion/compile.py
 * get_f_module for ExLlamaV2Embedding; exllamav3 Embedding has no quant
 * scheme, modules/embedding.py). bits and head_bits are checked against
 * the tensors by QA3015 (rules/check_quant.c check_exl), not here: a
 * dense layer is no load failure for these engines.
 */
static int
claim_exl(struct matcher *mx, enum qa_role role, int *bits)
{
	enum qa_quant_class rc = qa_role_quant_class(role);

	(void)mx;
	(void)bits;
	return rc == QA_QCLASS_EMBED ? 0 : -1;
}

/*
 * Methods that replace every nn.Linear (never an embedding) unless an
 * exclude list names it, each at the first per-module entry that matches,
 * else the global config; with unlisted_dense, a config of per-module
 * entries quantizes only the modules it lists.
 */
static int
claim_linear_entries(struct matcher *mx, const char *name, enum qa_role role,
		     int *bits, bool unlisted_dense)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure;
	int ex;

	if (rc == QA_QCLASS_EMBED)
		return 0;
	ex = excluded(mx, name, role);
	if (ex == 1)
		return 0;
	o = first_override(mx, name, role, &unsure);
	if (unsure || ex < 0 || rc == QA_QCLASS_UNSURE)
		return -1;
	if (o)
		return o->skip ? 0 : claim_bits(1, bits, o->bits);
	if (unlisted_dense && qc->n_overrides > 0)
		return 0;
	return claim_bits(1, bits, qc->bits);
}

/*
 * HQQ through transformers: prepare_for_hqq_linear (transformers
 * integrations/hqq.py) quantizes every nn.Linear whose linear tag is not
 * in skip_modules (lm_head by default); with a per-tag quant_config only
 * the tags it lists, each at its own bits (a tag it leaves out gets None:
 * kept dense). Embeddings are no Linears.
 */
static int
claim_hqq(struct matcher *mx, const char *name, enum qa_role role,
	  int *bits)
{
	return claim_linear_entries(mx, name, role, bits, true);
}

/*
 * torchao through transformers: every nn.Linear is quantized except
 * modules_to_not_convert, which defaults to the output embedding and
 * its tied input (TorchAoHfQuantizer, transformers quantizers/
 * quantizer_torchao.py get_modules_to_not_convert), unless
 * include_input_output_embeddings; an FqnToConfig gives a module its
 * own config or None (torchao quant_api.py FqnToConfig; "_default" for
 * the rest).
 */
static int
claim_torchao(struct matcher *mx, const char *name, enum qa_role role,
	      int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	enum qa_quant_class rc = qa_role_quant_class(role);
	const struct qa_quant_override *o;
	bool unsure;
	int ex;

	ex = excluded(mx, name, role);
	if (ex == 1)
		return 0;
	o = first_override(mx, name, role, &unsure);
	if (unsure || ex < 0)
		return -1;
	if (o)
		return o->skip ? 0 : claim_bits(1, bits, o->bits);
	if (rc == QA_QCLASS_EMBED || rc == QA_QCLASS_LM_HEAD)
		return qc->embeddings_quantized ? claim_bits(1, bits,
							     qc->bits) : 0;
	if (rc == QA_QCLASS_UNSURE)
		return -1;
	return claim_bits(1, bits, qc->bits);
}

/*
 * AMD Quark: every Linear takes layer_quant_config's first matching
 * entry, else the global config, unless exclude names it (vLLM
 * quark.py get_quant_method, _find_matched_config; Quark's own
 * ModelQuantizer the same); Quark quantizes nn.Linear only.
 */
static int
claim_quark(struct matcher *mx, const char *name, enum qa_role role,
	    int *bits)
{
	return claim_linear_entries(mx, name, role, bits, false);
}

static int
claim(struct matcher *mx, const char *module, enum qa_role role, int *bits)
{
	const struct qa_quant_config *qc = mx->qc;
	int dummy;

	if (!bits)
		bits = &dummy;
	*bits = -1;
	if (!qc || !module || qc->method == QA_QM_NONE ||
	    qc->method == QA_QM_OTHER)
		return -1;
	if (qa_role_quant_class(role) == QA_QCLASS_NEVER)
		return 0;
	switch (qc->method) {
	case QA_QM_GPTQ:
	case QA_QM_QQQ:		/* QQQConfig is a GPTQConfig */
	case QA_QM_PAROQUANT:	/* GPTQModel configs: the same keys */
	case QA_QM_GPTQM_GGUF:
		return claim_gptq(mx, module, role, bits);
	case QA_QM_AWQ:
		return claim_awq(mx, module, role, bits);
	case QA_QM_AUTOROUND:
		return claim_autoround(mx, module, role, bits);
	case QA_QM_COMPRESSED_TENSORS:
		return claim_ct(mx, module, role, bits);
	case QA_QM_MODELOPT:
		return claim_modelopt(mx, module, role, bits);
	case QA_QM_FP8:
		return claim_fp8(mx, module, role, bits);
	case QA_QM_MXFP4:
		return claim_mxfp4(mx, module, role, bits);
	case QA_QM_BITSANDBYTES:
		return claim_bnb(mx, module, role, bits);
	case QA_QM_MLX:
		return claim_mlx(mx, module, role, bits);
	case QA_QM_EXL2:
	case QA_QM_EXL3:
		return claim_exl(mx, role, bits);
	case QA_QM_HQQ:
		return claim_hqq(mx, module, role, bits);
	case QA_QM_TORCHAO:
		return claim_torchao(mx, module, role, bits);
	case QA_QM_QUARK:
		return claim_quark(mx, module, role, bits);
	case QA_QM_NONE:
	case QA_QM_OTHER:
		break;
	}
	return -1;
}


int
qa_quant_claim(const struct qa_quant_config *qc, const char *module,
	       enum qa_role role, int *bits)
{
	struct matcher mx;
	int r;

	matcher_init(&mx, qc);
	r = claim(&mx, module, role, bits);
	matcher_finish(&mx);
	return r;
}

/* ---- resolving a whole inventory ------------------------------------- */

struct qa_claims {
	struct matcher mx;
};

static void
matcher_init(struct matcher *mx, const struct qa_quant_config *qc)
{
	memset(mx, 0, sizeof(*mx));
	mx->qc = qc;
	if (qc)
		mx->n = (size_t)qc->n_exclude + qc->n_overrides +
			qc->n_targets;
}

static void
matcher_finish(struct matcher *mx)
{
	index_free(mx);
	memset(mx, 0, sizeof(*mx));
}

struct qa_claims *
qa_claims_open(const struct qa_quant_config *qc)
{
	struct qa_claims *c = malloc(sizeof(*c));

	if (c)
		matcher_init(&c->mx, qc);
	return c;
}

int
qa_claims_module(struct qa_claims *c, const char *module, enum qa_role role,
		 int *bits)
{
	return claim(&c->mx, module, role, bits);
}

int
qa_claims_group(struct qa_claims *c, const char *module, enum qa_role role)
{
	const struct qa_quant_config *qc = c->mx.qc;
	struct hits h;

	if (!qc || !module)
		return -1;
	h = lookup(&c->mx, module, strlen(module), role, false);
	if (h.ov_decl >= 0 && qc->overrides[h.ov_decl].group_size >= 0)
		return qc->overrides[h.ov_decl].group_size;
	return qc->group_size;
}

void
qa_claims_close(struct qa_claims *c)
{
	if (!c)
		return;
	matcher_finish(&c->mx);
	free(c);
}

/* Which entry keeps module m in high precision: an exclude entry, or an
 * override that skips it or gives it 16+ bits (AutoRound extra_config
 * {"bits": 16, "data_type": "fp"}, §A1). */
static const struct qa_quant_pattern *
kept_by(struct matcher *mx, const struct qa_module *m)
{
	const struct qa_quant_pattern *p = NULL;
	struct hits h;

	if (excluded_by(mx, m->name, m->role, &p) == 1)
		return p;
	h = lookup(mx, m->name, strlen(m->name), m->role, false);
	return h.ov_keep >= 0 ? &mx->qc->overrides[h.ov_keep].pattern : NULL;
}

/* Which override or target names module m as quantized: an override
 * that does not skip it and keeps it below 16 bits (its own bits or the
 * global ones it inherits), else a target. */
static const struct qa_quant_pattern *
named_by(struct matcher *mx, const struct qa_module *m)
{
	struct hits h = lookup(mx, m->name, strlen(m->name), m->role, false);

	if (h.ov_name >= 0)
		return &mx->qc->overrides[h.ov_name].pattern;
	if (h.tg_hit >= 0)
		return &mx->qc->targets[h.tg_hit];
	return NULL;
}

/* The bits and group size the config declares for m: the global values,
 * replaced by the first matching override that does not skip it (GPTQ
 * dynamic is first-match, §A2). */
static void
declared(struct matcher *mx, struct qa_module *m)
{
	const struct qa_quant_config *qc = mx->qc;
	struct hits h = lookup(mx, m->name, strlen(m->name), m->role, false);

	m->decl_bits = qc->bits;
	m->decl_group = qc->group_size;
	m->decl_mode = qc->format;
	if (h.ov_decl >= 0) {
		const struct qa_quant_override *o = &qc->overrides[h.ov_decl];

		if (o->bits > 0)
			m->decl_bits = o->bits;
		if (o->group_size >= 0)
			m->decl_group = o->group_size;
		if (o->scheme)
			m->decl_mode = o->scheme;
	}
}

/* A name a pattern may mean: a module (with its role) or a parent of
 * one (role OTHER: a class name never matches a parent). */
struct name {
	const char *s;
	size_t n;
	enum qa_role role;
};

static int
cmp_name(const void *pa, const void *pb)
{
	const struct name *a = pa, *b = pb;
	size_t n = a->n < b->n ? a->n : b->n;
	int r = memcmp(a->s, b->s, n);

	if (r)
		return r;
	return a->n < b->n ? -1 : a->n > b->n;
}

/*
 * The distinct names all_names collects: an open-addressing set of
 * indices into its array, so a name met again (every tensor of a module
 * repeats its parents) costs a hash, not a place in a sort of them all.
 */
struct name_set {
	uint32_t *slot;		/* index + 1, 0 when empty */
	size_t mask;
	struct name *v;
	size_t n;
};

static size_t
name_hash(const char *s, size_t n)
{
	return (size_t)qa_hash(s, n);	/* keyed: names from the file */
}

/* Adds s[0..n) with role; a name already there keeps the first role
 * that is not QA_ROLE_OTHER (a module's own over its parent form). */
static void
name_set_add(struct name_set *ns, const char *s, size_t n, enum qa_role role)
{
	size_t h = name_hash(s, n) & ns->mask;

	while (ns->slot[h]) {
		struct name *o = &ns->v[ns->slot[h] - 1];

		if (o->n == n && memcmp(o->s, s, n) == 0) {
			if (o->role == QA_ROLE_OTHER)
				o->role = role;
			return;
		}
		h = (h + 1) & ns->mask;
	}
	ns->v[ns->n] = (struct name){ s, n, role };
	ns->slot[h] = (uint32_t)++ns->n;
}

/*
 * Every module name (the modules and the tensor names minus their last
 * part) and every parent of one, sorted and distinct; a module keeps its
 * role. NULL when out of memory or nothing to list. Only a config with
 * per-module rules needs it (qa_claims_resolve).
 */
static struct name *
all_names(struct qa_inventory *inv, size_t *out_n)
{
	size_t cap = inv->n_modules, slots = 16;
	struct name_set ns = { 0 };
	uint32_t j;

	*out_n = 0;
	for (j = 0; j < inv->n_tensors; j++) {
		const char *p;

		for (p = inv->tensors[j].name; *p; p++)
			cap += *p == '.';
	}
	for (j = 0; j < inv->n_modules; j++) {
		const char *p;

		for (p = inv->modules[j].name ? inv->modules[j].name : "";
		     *p; p++)
			cap += *p == '.';
	}
	if (cap == 0)
		return NULL;
	while (slots < cap * 2 && slots <= SIZE_MAX / 4 / sizeof(*ns.slot))
		slots *= 2;
	if (cap >= UINT32_MAX || slots < cap * 2) {
		inv->out_of_memory = true;
		return NULL;
	}
	ns.v = malloc(cap * sizeof(*ns.v));
	ns.slot = calloc(slots, sizeof(*ns.slot));
	ns.mask = slots - 1;
	if (!ns.v || !ns.slot) {
		free(ns.v);
		free(ns.slot);
		inv->out_of_memory = true;
		return NULL;
	}
	/* modules first, so a module's own entry (with its role) is met
	 * before the same name seen as a parent */
	for (j = 0; j < inv->n_modules && ns.n < cap; j++) {
		const char *s = inv->modules[j].name, *p;

		if (!s)
			continue;
		name_set_add(&ns, s, strlen(s), inv->modules[j].role);
		for (p = s; *p && ns.n < cap; p++)
			if (*p == '.')
				name_set_add(&ns, s, (size_t)(p - s),
					     QA_ROLE_OTHER);
	}
	for (j = 0; j < inv->n_tensors; j++) {
		const char *s = inv->tensors[j].name, *p;

		for (p = s; *p && ns.n < cap; p++)
			if (*p == '.')
				name_set_add(&ns, s, (size_t)(p - s),
					     QA_ROLE_OTHER);
	}
	free(ns.slot);
	/* the distinct names only, in the order count_all has always
	 * queried them (its work bound makes the order matter) */
	qsort(ns.v, ns.n, sizeof(*ns.v), cmp_name);
	*out_n = ns.n;
	return ns.v;
}

/* How many names each pattern matches (-1 when none does and one could
 * not be evaluated): every name queried once through the index. */
static void
count_all(struct matcher *mx, struct qa_quant_config *qc,
	  const struct name *names, size_t n)
{
	size_t i, counted = 0;

	mx->hits = calloc(mx->n ? mx->n : 1, sizeof(*mx->hits));
	mx->unsure = calloc(mx->n ? mx->n : 1, sizeof(*mx->unsure));
	if (!mx->hits || !mx->unsure) {
		free(mx->hits);
		free(mx->unsure);
		mx->hits = NULL;
		mx->unsure = NULL;
	}
	for (i = 0; i < n; i++) {
		enum qa_role r = names[i].role;

		if (names[i].n >= MAX_NAME)
			continue;
		counted++;
		if ((unsigned)r < QA_ROLE_COUNT)
			mx->role_names[r]++;
		lookup(mx, names[i].s, names[i].n, r, true);
	}
	/* past the work bound, names were not all evaluated against every
	 * pattern: none of the counts is known to be complete */
	for (i = 0; mx->capped && mx->unsure && mx->slots && i < mx->n; i++)
		if (mx->slots[i].how == HOW_EVAL)
			mx->unsure[i] = true;
	for (i = 0; i < mx->n; i++) {
		struct qa_quant_pattern *p =
			(struct qa_quant_pattern *)pattern_at(qc, i);
		const struct slot *s = mx->slots ? &mx->slots[i] : NULL;
		char src[QA_PYREGEX_MAX];
		int32_t hits = mx->hits ? mx->hits[i] : 0;
		bool unsure = mx->unsure ? mx->unsure[i] : true;
		unsigned role;

		p->too_complex = p->kind == QA_PAT_REGEX && p->text &&
				 !regex_ok(p);
		p->untranslatable = p->kind == QA_PAT_REGEX && p->text &&
				    !p->too_complex &&
				    !qa_py_regex_to_ere(p->text, src,
							sizeof(src));
		if (p->untranslatable || p->too_complex) {
			p->matches = -1;
			continue;
		}
		if (s && s->how == HOW_UNSURE) {
			p->matches = counted ? -1 : 0;
			continue;
		}
		if (s && s->how == HOW_CLASS) {
			hits = 0;
			unsure = false;
			for (role = 0; role < QA_ROLE_COUNT; role++) {
				int m;

				if (!mx->role_names[role])
					continue;
				m = class_match(p->text, (enum qa_role)role);
				if (m > 0)
					hits += (int32_t)mx->role_names[role];
				else if (m < 0)
					unsure = true;
			}
		}
		p->matches = hits == 0 && unsure ? -1 : hits;
	}
}

void
qa_claims_resolve(struct qa_inventory *inv)
{
	struct qa_quant_config *qc = &inv->quant;
	struct matcher mx;
	struct name *names;
	size_t n_names = 0;
	uint32_t i;

	matcher_init(&mx, qc);
	/* The sorted name list, for counting what patterns match; its
	 * answers are kept for the modules' claims below. */
	if (qc->n_exclude || qc->n_overrides || qc->n_targets) {
		names = all_names(inv, &n_names);
		count_all(&mx, qc, names, n_names);
		free(names);
	}
	for (i = 0; i < inv->n_modules; i++) {
		struct qa_module *m = &inv->modules[i];
		int bits = -1;

		m->claimed = (int8_t)claim(&mx, m->name, m->role, &bits);
		m->claimed_bits = m->claimed == 1 ? bits : -1;
		m->kept_by = NULL;
		m->named_by = NULL;
		m->decl_bits = m->decl_group = -1;
		m->decl_mode = NULL;
		if (qc->method == QA_QM_NONE || qc->method == QA_QM_OTHER)
			continue;
		m->kept_by = kept_by(&mx, m);
		m->named_by = named_by(&mx, m);
		declared(&mx, m);
	}
	qc->patterns_capped = mx.capped;
	qc->pattern_work = mx.work;
	qc->pattern_evals = mx.evals;
	matcher_finish(&mx);
}
