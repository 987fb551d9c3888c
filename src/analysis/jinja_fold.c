/* SPDX-License-Identifier: MIT */
/*
 * The Jinja interpreter's constant folding (see jinja.h): string
 * building, the operators, printf-style % and str.format, indexing and
 * slicing, the string methods and filters Jinja offers, folded over
 * candidate constants. Each returns 1 folded, 0 not known (the result is
 * then an unknown), or -1 an error at run time, as the callers say.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QA_JINJA_INTERNAL
#include "analysis/jinja_int.h"
#include "core/escape.h"
#include "core/units.h"

/* ---- string building ---------------------------------------------------- */

/* A new pool string of n bytes (NULL: too long or pool full). */
char *
qa_jinja_new_str(struct qa_jinja *sc, size_t n)
{
	if (n > VAL_MAX)
		return NULL;
	return qa_jinja_pool_alloc(&sc->pool, n ? n : 1);
}

bool
qa_jinja_cand_string(struct qa_jinja *sc, const char *p, size_t n, struct qa_jinja_cand *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = QA_JV_STR;
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
bool
qa_jinja_py_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Code point starts of s (UTF-8; a stray byte counts as one character):
 * *out gets n_chars + 1 offsets. False when the pool is full. */
static bool
char_index(struct qa_jinja *sc, const char *s, size_t n, size_t **out,
	   size_t *n_chars)
{
	size_t *idx, i = 0, k = 0;

	idx = qa_jinja_pool_alloc(&sc->pool, (n + 1) * sizeof(*idx));
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
bool
qa_jinja_to_str(struct qa_jinja *sc, const struct qa_jinja_cand *c, struct qa_jinja_sv *out, int depth)
{
	char num[32];
	size_t n;
	char *p;
	uint32_t i;

	switch (c->kind) {
	case QA_JV_STR:
		*out = c->s;
		return true;
	case QA_JV_NUM:
		n = fmt_int(num, sizeof(num), c->num);
		p = qa_jinja_new_str(sc, n);
		if (!p)
			return false;
		memcpy(p, num, n);
		out->p = p;
		out->n = n;
		return true;
	case QA_JV_BOOL:
		out->p = c->num ? "True" : "False";
		out->n = c->num ? 4 : 5;
		return true;
	case QA_JV_NONE:
		out->p = "None";
		out->n = 4;
		return true;
	case QA_JV_UNDEF:
		out->p = "";
		out->n = 0;
		return true;
	case QA_JV_LIST:
		if (c->dict || depth > 3)
			return false;
		p = qa_jinja_new_str(sc, VAL_MAX);
		if (!p)
			return false;
		n = 0;
		p[n++] = '[';
		for (i = 0; i < c->n_items; i++) {
			struct qa_jinja_sv e;
			size_t w;

			if (i) {
				if (n + 2 > VAL_MAX)
					return false;
				p[n++] = ',';
				p[n++] = ' ';
			}
			if (c->items[i].kind == QA_JV_STR) {
				w = py_repr(c->items[i].s.p, c->items[i].s.n,
					    p + n, VAL_MAX - n);
				if (w > VAL_MAX - n)
					return false;
				n += w;
				continue;
			}
			if (!qa_jinja_to_str(sc, &c->items[i], &e, depth + 1) ||
			    n + e.n > VAL_MAX)
				return false;
			memcpy(p + n, e.p, e.n);
			n += e.n;
		}
		if (n + 1 > VAL_MAX)
			return false;
		p[n++] = ']';
		qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, n);
		out->p = p;
		out->n = n;
		return true;
	default:
		return false;
	}
}

static bool
concat2(struct qa_jinja *sc, struct qa_jinja_sv a, struct qa_jinja_sv b, struct qa_jinja_cand *out)
{
	char *p = qa_jinja_new_str(sc, a.n + b.n);

	if (!p)
		return false;
	if (a.n)
		memcpy(p, a.p, a.n);
	if (b.n)
		memcpy(p + a.n, b.p, b.n);
	return qa_jinja_cand_string(sc, p, a.n + b.n, out);
}

/* A list candidate of n items (copied into the pool). */
bool
qa_jinja_cand_list(struct qa_jinja *sc, const struct qa_jinja_cand *items, uint32_t n, bool dict,
	  struct qa_jinja_cand *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = QA_JV_LIST;
	out->dict = dict;
	if (n > MAXL)
		return false;
	if (n) {
		out->items = qa_jinja_pool_alloc(&sc->pool, n * sizeof(*items));
		if (!out->items)
			return false;
		memcpy(out->items, items, n * sizeof(*items));
	}
	out->n_items = n;
	return true;
}

/* The characters of a string as a list. */
static bool
chars_of(struct qa_jinja *sc, struct qa_jinja_sv s, struct qa_jinja_cand *out)
{
	struct qa_jinja_cand items[MAXL];
	size_t *idx, nc, i;

	if (!char_index(sc, s.p, s.n, &idx, &nc) || nc > MAXL)
		return false;
	for (i = 0; i < nc; i++)
		qa_jinja_cand_string(sc, s.p + idx[i], idx[i + 1] - idx[i], &items[i]);
	return qa_jinja_cand_list(sc, items, (uint32_t)nc, false, out);
}

/* ---- operators ---------------------------------------------------------- */

static int py_percent(struct qa_jinja *sc, struct qa_jinja_sv fmt, const struct qa_jinja_cand *args,
		      uint32_t n_args, struct qa_jinja_cand *out);

/* Folds one pair: 1 folded, 0 not known, -1 an error at run time (no
 * value: rendering stops). */
static int
const_binop(struct qa_jinja *sc, enum binop op, const struct qa_jinja_cand *a,
	    const struct qa_jinja_cand *b, struct qa_jinja_cand *out)
{
	struct qa_jinja_sv x, y;
	int64_t r;

	if (a->kind == QA_JV_UNK || b->kind == QA_JV_UNK)
		return 0;
	if (op == B_MOD && a->kind == QA_JV_STR) {
		if (b->kind == QA_JV_LIST && !b->dict)
			return py_percent(sc, a->s, b->items, b->n_items, out);
		return py_percent(sc, a->s, b, 1, out);
	}
	switch (op) {
	case B_CONCAT:
		if (!qa_jinja_to_str(sc, a, &x, 0) || !qa_jinja_to_str(sc, b, &y, 0))
			return 0;
		return concat2(sc, x, y, out) ? 1 : 0;
	case B_ADD:
		if (a->kind == QA_JV_STR && b->kind == QA_JV_STR)
			return concat2(sc, a->s, b->s, out) ? 1 : 0;
		if ((a->kind == QA_JV_NUM || a->kind == QA_JV_BOOL) &&
		    (b->kind == QA_JV_NUM || b->kind == QA_JV_BOOL)) {
			if (__builtin_add_overflow(a->num, b->num, &r))
				return 0;
			memset(out, 0, sizeof(*out));
			out->kind = QA_JV_NUM;
			out->num = r;
			return 1;
		}
		if (a->kind == QA_JV_LIST && b->kind == QA_JV_LIST && !a->dict &&
		    !b->dict) {
			struct qa_jinja_cand items[MAXL];

			if (a->n_items + b->n_items > MAXL)
				return 0;
			/* An empty list literal has no item array. */
			if (a->n_items)
				memcpy(items, a->items,
				       a->n_items * sizeof(*items));
			if (b->n_items)
				memcpy(items + a->n_items, b->items,
				       b->n_items * sizeof(*items));
			return qa_jinja_cand_list(sc, items, a->n_items + b->n_items,
					 false, out) ? 1 : 0;
		}
		return -1;
	case B_MUL: {
		const struct qa_jinja_cand *seq = a, *cnt = b;
		int64_t k;

		if (a->kind == QA_JV_NUM || a->kind == QA_JV_BOOL) {
			seq = b;
			cnt = a;
		}
		if (cnt->kind != QA_JV_NUM && cnt->kind != QA_JV_BOOL)
			return -1;
		k = cnt->num < 0 ? 0 : cnt->num;
		if (seq->kind == QA_JV_NUM || seq->kind == QA_JV_BOOL) {
			if (__builtin_mul_overflow(seq->num, cnt->num, &r))
				return 0;
			memset(out, 0, sizeof(*out));
			out->kind = QA_JV_NUM;
			out->num = r;
			return 1;
		}
		if (seq->kind == QA_JV_STR) {
			char *p;
			int64_t i;

			if (seq->s.n && k > (int64_t)(VAL_MAX / seq->s.n))
				return 0;
			p = qa_jinja_new_str(sc, seq->s.n * (size_t)k);
			if (!p)
				return 0;
			for (i = 0; seq->s.n && i < k; i++)
				memcpy(p + (size_t)i * seq->s.n, seq->s.p,
				       seq->s.n);
			return qa_jinja_cand_string(sc, p, seq->s.n * (size_t)k, out) ?
			       1 : 0;
		}
		if (seq->kind == QA_JV_LIST && !seq->dict) {
			struct qa_jinja_cand items[MAXL];
			int64_t i;

			if (seq->n_items && k > (int64_t)(MAXL / seq->n_items))
				return 0;
			/* an empty list (items NULL) repeats to nothing */
			for (i = 0; seq->n_items && i < k; i++)
				memcpy(items + (size_t)i * seq->n_items,
				       seq->items,
				       seq->n_items * sizeof(*items));
			return qa_jinja_cand_list(sc, items,
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
		if ((a->kind != QA_JV_NUM && a->kind != QA_JV_BOOL) ||
		    (b->kind != QA_JV_NUM && b->kind != QA_JV_BOOL))
			return a->kind == QA_JV_STR || b->kind == QA_JV_STR ? -1 : 0;
		memset(out, 0, sizeof(*out));
		out->kind = QA_JV_NUM;
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
void
qa_jinja_v_binop(struct qa_jinja *sc, enum binop op, const struct qa_jinja_val *a,
	const struct qa_jinja_val *b, struct qa_jinja_val *out)
{
	struct qa_jinja_val r;
	unsigned i, j;

	qa_jinja_v_clear(&r);
	for (i = 0; i < a->n; i++)
		for (j = 0; j < b->n; j++) {
			struct qa_jinja_cand c;
			int k = const_binop(sc, op, &a->c[i], &b->c[j], &c);

			if (k > 0)
				qa_jinja_v_add(&r, &c);
			else if (k == 0) {
				if (qa_jinja_cand_has_str(&a->c[i]) ||
				    qa_jinja_cand_has_str(&b->c[j]))
					r.opq = true;
				else
					r.data = true;
			}
		}
	qa_jinja_v_mix(&r, a, b);
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
pct_char(const struct qa_jinja_cand *c, char *u, size_t *un)
{
	if ((c->kind == QA_JV_NUM || c->kind == QA_JV_BOOL) && c->num >= 0 &&
	    c->num <= 0x10ffff) {
		*un = qa_utf8_encode(u, (uint64_t)c->num);
		return true;
	}
	if (c->kind == QA_JV_STR && c->s.n >= 1 && c->s.n <= 4) {
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
py_percent(struct qa_jinja *sc, struct qa_jinja_sv fmt, const struct qa_jinja_cand *args,
	   uint32_t n_args, struct qa_jinja_cand *out)
{
	char *p = qa_jinja_new_str(sc, VAL_MAX);
	size_t o = 0, i = 0;
	uint32_t a = 0;

	if (!p)
		return 0;
	while (i < fmt.n) {
		char c = fmt.p[i++], conv;
		bool left = false, zero = false;
		long width = -1, prec = -1;
		char buf[32], u[4];
		struct qa_jinja_sv s;
		size_t un;
		const struct qa_jinja_cand *arg;

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
		if (arg->kind == QA_JV_UNK)
			return 0;
		switch (conv) {
		case 's':
			if (!qa_jinja_to_str(sc, arg, &s, 0))
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
			if (arg->kind != QA_JV_STR || prec >= 0)
				return 0;
			un = py_repr(arg->s.p, arg->s.n, buf, sizeof(buf));
			if (un > sizeof(buf) ||
			    !put_padded(p, &o, buf, un, width, left, ' '))
				return 0;
			break;
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
			if (arg->kind != QA_JV_NUM && arg->kind != QA_JV_BOOL)
				return arg->kind == QA_JV_STR ? -1 : 0;
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
	qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
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
int
qa_jinja_const_slice(struct qa_jinja *sc, const struct qa_jinja_cand *x, const struct qa_jinja_cand *lo,
	    const struct qa_jinja_cand *hi, const struct qa_jinja_cand *st, struct qa_jinja_cand *out)
{
	int64_t len, a, b, step = 1, k, count;
	size_t *idx = NULL, nc = 0;
	const struct qa_jinja_cand *parts[3] = { lo, hi, st };
	int i;

	for (i = 0; i < 3; i++)
		if (parts[i] && parts[i]->kind != QA_JV_NUM &&
		    parts[i]->kind != QA_JV_BOOL && parts[i]->kind != QA_JV_NONE)
			return parts[i]->kind == QA_JV_UNK ? 0 : -1;
	if (st && st->kind != QA_JV_NONE) {
		step = st->num;
		if (step == 0)
			return -1;
	}
	if (x->kind == QA_JV_STR) {
		if (!char_index(sc, x->s.p, x->s.n, &idx, &nc))
			return 0;
		len = (int64_t)nc;
	} else if (x->kind == QA_JV_LIST && !x->dict) {
		len = x->n_items;
	} else {
		return 0;
	}
	if (step == INT64_MIN)
		return 0;
	a = lo && lo->kind != QA_JV_NONE ? clamp_index(lo->num, len, step < 0) :
	    step < 0 ? len - 1 : 0;
	b = hi && hi->kind != QA_JV_NONE ? clamp_index(hi->num, len, step < 0) :
	    step < 0 ? -1 : len;
	if (step > 0)
		count = b > a ? (b - a - 1) / step + 1 : 0;
	else
		count = a > b ? (a - b - 1) / (-step) + 1 : 0;
	if (x->kind == QA_JV_STR) {
		char *p = qa_jinja_new_str(sc, x->s.n);
		size_t o = 0;

		if (!p)
			return 0;
		for (k = 0; k < count; k++) {
			int64_t c = a + k * step;
			size_t w = idx[c + 1] - idx[c];

			memcpy(p + o, x->s.p + idx[c], w);
			o += w;
		}
		qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
	} else {
		struct qa_jinja_cand items[MAXL];

		for (k = 0; k < count; k++)
			items[k] = x->items[a + k * step];
		return qa_jinja_cand_list(sc, items, (uint32_t)count, false, out) ? 1 : 0;
	}
}

/* x[i] of a string or list; a dict's values are not known. */
int
qa_jinja_const_index(struct qa_jinja *sc, const struct qa_jinja_cand *x, const struct qa_jinja_cand *i,
	    struct qa_jinja_cand *out)
{
	int64_t k, len;
	size_t *idx, nc;

	if (i->kind != QA_JV_NUM && i->kind != QA_JV_BOOL)
		return 0;
	k = i->num;
	if (x->kind == QA_JV_STR) {
		if (!char_index(sc, x->s.p, x->s.n, &idx, &nc))
			return 0;
		len = (int64_t)nc;
		if (k < 0)
			k += len;
		if (k < 0 || k >= len)
			return -1;
		return qa_jinja_cand_string(sc, x->s.p + idx[k], idx[k + 1] - idx[k],
				   out) ? 1 : 0;
	}
	if (x->kind == QA_JV_LIST && !x->dict) {
		len = x->n_items;
		if (k < 0)
			k += len;
		if (k < 0 || k >= len)
			return -1;
		*out = x->items[k];
		return out->kind == QA_JV_UNK ? 0 : 1;
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
change_case(struct qa_jinja *sc, struct qa_jinja_sv s, enum casing how, struct qa_jinja_cand *out)
{
	char *p;
	size_t i;
	bool word = false;

	if (!is_ascii(s.p, s.n))
		return 0;
	p = qa_jinja_new_str(sc, s.n);
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
	return qa_jinja_cand_string(sc, p, s.n, out) ? 1 : 0;
}

/* strip / lstrip / rstrip with Python's whitespace or a set of chars. */
static int
strip_str(struct qa_jinja *sc, struct qa_jinja_sv s, const struct qa_jinja_cand *chars, bool left,
	  bool right, struct qa_jinja_cand *out)
{
	size_t a = 0, b = s.n;

	(void)sc;
	if (chars && chars->kind != QA_JV_NONE && chars->kind != QA_JV_STR)
		return chars->kind == QA_JV_UNK ? 0 : -1;
	if (chars && chars->kind == QA_JV_STR) {
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
		while (left && a < b && qa_jinja_py_space((unsigned char)s.p[a]))
			a++;
		while (right && b > a && qa_jinja_py_space((unsigned char)s.p[b - 1]))
			b--;
	}
	return qa_jinja_cand_string(sc, s.p + a, b - a, out) ? 1 : 0;
}

static int
replace_str(struct qa_jinja *sc, struct qa_jinja_sv s, const struct qa_jinja_cand *old,
	    const struct qa_jinja_cand *new, const struct qa_jinja_cand *count,
	    struct qa_jinja_cand *out)
{
	int64_t max = -1, done = 0;
	size_t i = 0, o = 0;
	char *p;

	if (old->kind != QA_JV_STR || new->kind != QA_JV_STR)
		return old->kind == QA_JV_UNK || new->kind == QA_JV_UNK ? 0 : -1;
	if (count && count->kind != QA_JV_NONE) {
		if (count->kind != QA_JV_NUM)
			return 0;
		max = count->num;
	}
	p = qa_jinja_new_str(sc, VAL_MAX);
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
		qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
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
	qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
}

/* sep.join(items); with conv, str() of each item (Jinja's |join). */
static int
join_items(struct qa_jinja *sc, const struct qa_jinja_cand *list, struct qa_jinja_sv sep, bool conv,
	   struct qa_jinja_cand *out)
{
	struct qa_jinja_cand chars;
	const struct qa_jinja_cand *items;
	uint32_t n, i;
	char *p;
	size_t o = 0;

	if (list->kind == QA_JV_STR) {
		if (!chars_of(sc, list->s, &chars))
			return 0;
		list = &chars;
	}
	if (list->kind != QA_JV_LIST)
		return list->kind == QA_JV_UNK ? 0 : -1;
	items = list->items;
	n = list->n_items;
	p = qa_jinja_new_str(sc, VAL_MAX);
	if (!p)
		return 0;
	for (i = 0; i < n; i++) {
		struct qa_jinja_sv e;

		if (items[i].kind == QA_JV_UNK)
			return 0;
		if (!conv && items[i].kind != QA_JV_STR)
			return -1;
		if (!qa_jinja_to_str(sc, &items[i], &e, 0))
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
	qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
}

/* str.split(sep=None, maxsplit=-1). */
static int
split_str(struct qa_jinja *sc, struct qa_jinja_sv s, const struct qa_jinja_cand *sep,
	  const struct qa_jinja_cand *maxsplit, struct qa_jinja_cand *out)
{
	struct qa_jinja_cand items[MAXL];
	uint32_t n = 0;
	int64_t max = -1;
	size_t i = 0, start;

	if (maxsplit && maxsplit->kind != QA_JV_NONE) {
		if (maxsplit->kind != QA_JV_NUM)
			return 0;
		max = maxsplit->num;
	}
	if (sep && sep->kind != QA_JV_NONE) {
		if (sep->kind != QA_JV_STR)
			return sep->kind == QA_JV_UNK ? 0 : -1;
		if (sep->s.n == 0)
			return -1;
		start = 0;
		while (i + sep->s.n <= s.n) {
			if ((max < 0 || (int64_t)n < max) &&
			    memcmp(s.p + i, sep->s.p, sep->s.n) == 0) {
				if (n + 1 >= MAXL)
					return 0;
				qa_jinja_cand_string(sc, s.p + start, i - start,
					    &items[n++]);
				i += sep->s.n;
				start = i;
				continue;
			}
			i++;
		}
		qa_jinja_cand_string(sc, s.p + start, s.n - start, &items[n++]);
		return qa_jinja_cand_list(sc, items, n, false, out) ? 1 : 0;
	}
	if (!is_ascii(s.p, s.n))
		return 0;
	while (i < s.n) {
		while (i < s.n && qa_jinja_py_space((unsigned char)s.p[i]))
			i++;
		if (i >= s.n)
			break;
		start = i;
		if (max >= 0 && (int64_t)n >= max) {
			size_t e = s.n;

			while (e > start && qa_jinja_py_space((unsigned char)s.p[e - 1]))
				e--;
			if (n >= MAXL)
				return 0;
			qa_jinja_cand_string(sc, s.p + start, e - start, &items[n++]);
			break;
		}
		while (i < s.n && !qa_jinja_py_space((unsigned char)s.p[i]))
			i++;
		if (n >= MAXL)
			return 0;
		qa_jinja_cand_string(sc, s.p + start, i - start, &items[n++]);
	}
	return qa_jinja_cand_list(sc, items, n, false, out) ? 1 : 0;
}

/* center / ljust / rjust / zfill. */
static int
pad_str(struct qa_jinja *sc, struct qa_jinja_sv s, const char *how, const struct qa_jinja_cand *w,
	const struct qa_jinja_cand *fill, struct qa_jinja_cand *out)
{
	int64_t width, len, marg, left;
	size_t *idx, nc;
	char f = how[0] == 'z' ? '0' : ' ';
	char *p;
	size_t o = 0;

	if (!w)
		return 0;
	if (w->kind != QA_JV_NUM)
		return w->kind == QA_JV_UNK ? 0 : -1;
	if (fill && fill->kind != QA_JV_NONE) {
		if (fill->kind == QA_JV_UNK)
			return 0;
		if (fill->kind != QA_JV_STR)
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
		return qa_jinja_cand_string(sc, s.p, s.n, out) ? 1 : 0;
	if (width - len > VAL_MAX)
		return 0;
	marg = width - len;
	if (how[0] == 'c')
		left = marg / 2 + (marg & width & 1);
	else if (how[0] == 'l')
		left = 0;
	else
		left = marg;
	p = qa_jinja_new_str(sc, s.n + (size_t)marg);
	if (!p)
		return 0;
	if (how[0] == 'z' && s.n && (s.p[0] == '-' || s.p[0] == '+')) {
		p[o++] = s.p[0];
		memset(p + o, '0', (size_t)marg);
		o += (size_t)marg;
		memcpy(p + o, s.p + 1, s.n - 1);
		o += s.n - 1;
		qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
	}
	memset(p, f, (size_t)left);
	o = (size_t)left;
	memcpy(p + o, s.p, s.n);
	o += s.n;
	memset(p + o, f, (size_t)(marg - left));
	o += (size_t)(marg - left);
	qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
}

static int
reverse_cand(struct qa_jinja *sc, const struct qa_jinja_cand *x, struct qa_jinja_cand *out)
{
	if (x->kind == QA_JV_STR) {
		size_t *idx, nc, k, o = 0;
		char *p = qa_jinja_new_str(sc, x->s.n);

		if (!p || !char_index(sc, x->s.p, x->s.n, &idx, &nc))
			return 0;
		for (k = nc; k > 0; k--) {
			size_t w = idx[k] - idx[k - 1];

			memcpy(p + o, x->s.p + idx[k - 1], w);
			o += w;
		}
		qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
	}
	if (x->kind == QA_JV_LIST && !x->dict) {
		struct qa_jinja_cand items[MAXL];
		uint32_t i;

		for (i = 0; i < x->n_items; i++)
			items[i] = x->items[x->n_items - 1 - i];
		return qa_jinja_cand_list(sc, items, x->n_items, false, out) ? 1 : 0;
	}
	return 0;
}

/* Markup escaping (|e, |escape, |forceescape). */
static int
escape_str(struct qa_jinja *sc, struct qa_jinja_sv s, struct qa_jinja_cand *out)
{
	char *p = qa_jinja_new_str(sc, VAL_MAX);
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
	qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
}

/* json.dumps of a constant (strings with ASCII escapes as Python's json
 * writes them; non-ASCII kept, as transformers' tojson does). */
static bool
json_of(struct qa_jinja *sc, const struct qa_jinja_cand *c, char *p, size_t *o, int depth)
{
	char num[32];
	size_t n, i;
	uint32_t k;

#define PUTS(str, len) do { if (*o + (len) > VAL_MAX) return false; \
	memcpy(p + *o, (str), (len)); *o += (len); } while (0)
	switch (c->kind) {
	case QA_JV_STR:
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
	case QA_JV_NUM:
		n = fmt_int(num, sizeof(num), c->num);
		PUTS(num, n);
		return true;
	case QA_JV_BOOL:
		if (c->num)
			PUTS("true", 4);
		else
			PUTS("false", 5);
		return true;
	case QA_JV_NONE:
		PUTS("null", 4);
		return true;
	case QA_JV_LIST:
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
tojson_cand(struct qa_jinja *sc, const struct qa_jinja_cand *c, struct qa_jinja_cand *out)
{
	char *p = qa_jinja_new_str(sc, VAL_MAX);
	size_t o = 0;

	if (!p || !json_of(sc, c, p, &o, 0))
		return 0;
	qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
}


/*
 * str.format: {} / {N} / {name} fields with !s / !r and a simple spec
 * ([[fill]align][width][.precision][s|d|c]). A field that walks
 * attributes or items ({0.__class__}, {0[x]}) is a sink; it and anything
 * else unusual make the result unknown.
 */
static int
str_format(struct qa_jinja *sc, struct qa_jinja_sv f, const struct qa_jinja_cand *const *pos,
	   unsigned n_pos, const char *const *kwn, const struct qa_jinja_cand *const *kw,
	   unsigned n_kw, size_t at, struct qa_jinja_cand *out)
{
	char *p = qa_jinja_new_str(sc, VAL_MAX);
	size_t i = 0, o = 0;
	unsigned auto_i = 0;
	bool unknown = false;

	if (!p)
		return 0;
	while (i < f.n) {
		char c = f.p[i];
		size_t start, fe;
		const struct qa_jinja_cand *arg = NULL;
		struct qa_jinja_sv s;
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
					qa_jinja_sink_name(sc, f.p + b, i - b, true,
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
		if (arg->kind == QA_JV_UNK) {
			unknown = true;
			continue;
		}
		if (type == 'c') {
			if (!pct_char(arg, u, &un) || arg->kind == QA_JV_STR) {
				unknown = true;
				continue;
			}
			s.p = u;
			s.n = un;
		} else if (conv == 'r') {
			char rb[VAL_MAX];

			if (arg->kind != QA_JV_STR) {
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
		} else if (!qa_jinja_to_str(sc, arg, &s, 0)) {
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
			bool num = arg->kind == QA_JV_NUM || arg->kind == QA_JV_BOOL;

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
	qa_jinja_pool_trim(&sc->pool, p, VAL_MAX, o);
	return qa_jinja_cand_string(sc, p, o, out) ? 1 : 0;
}

/* An unknown result from self and the arguments. */
void
qa_jinja_v_unknown(struct qa_jinja_val *out, const struct qa_jinja_val *self, const struct call *cl)
{
	bool s = self ? qa_jinja_has_str(self) : false;
	unsigned i;

	qa_jinja_v_clear(out);
	for (i = 0; cl && i < cl->n_pos; i++)
		s |= qa_jinja_has_str(&cl->pos[i]);
	for (i = 0; cl && i < cl->n_kw; i++)
		s |= qa_jinja_has_str(&cl->kw[i]);
	if (cl)
		s |= qa_jinja_has_str(&cl->rest);
	if (s)
		out->opq = true;
	else
		out->data = true;
}

/* ---- folding filters and methods ---------------------------------------- */

bool
qa_jinja_is_name(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

int
qa_jinja_num_cand(int64_t x, enum qa_jinja_kind k, struct qa_jinja_cand *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = (uint8_t)k;
	out->num = x;
	return 1;
}

/* Case-insensitive (ASCII) comparison, as Jinja's sort and unique do by
 * default; 2 when a side is not ASCII text. */
static int
cmp_fold(const struct qa_jinja_cand *a, const struct qa_jinja_cand *b)
{
	size_t i, n;

	if (a->kind != QA_JV_STR || b->kind != QA_JV_STR ||
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

static const struct qa_jinja_cand *
arg_or(const struct qa_jinja_cand *const *a, unsigned na, unsigned i,
       const char *const *kwn, const struct qa_jinja_cand *const *kw, unsigned nk,
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
bool
qa_jinja_as_list(struct qa_jinja *sc, const struct qa_jinja_cand *c, struct qa_jinja_cand *tmp,
	const struct qa_jinja_cand **out)
{
	if (c->kind == QA_JV_LIST) {
		*out = c;
		return true;
	}
	if (c->kind == QA_JV_STR && chars_of(sc, c->s, tmp)) {
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
fold_one(struct qa_jinja *sc, enum fkind fk, const char *name,
	 const struct qa_jinja_cand *self, const struct qa_jinja_cand *const *a, unsigned na,
	 const char *const *kwn, const struct qa_jinja_cand *const *kw, unsigned nk,
	 size_t at, struct qa_jinja_cand *out)
{
	struct qa_jinja_sv s;
	struct qa_jinja_cand tmp;
	const struct qa_jinja_cand *l, *x;
	bool filter = fk == F_FILTER;

	if (self->kind == QA_JV_UNK)
		return 0;
	/* filters convert to text first; methods need a str */
	if (self->kind == QA_JV_STR)
		s = self->s;
	else if (filter && qa_jinja_to_str(sc, self, &s, 0))
		;
	else
		s.p = NULL, s.n = 0;
#define NEED_STR() do { if (!s.p) return 0; } while (0)
	if (qa_jinja_is_name(name, "lower") || qa_jinja_is_name(name, "casefold")) {
		NEED_STR();
		return change_case(sc, s, CASE_LOWER, out);
	}
	if (qa_jinja_is_name(name, "upper")) {
		NEED_STR();
		return change_case(sc, s, CASE_UPPER, out);
	}
	if (qa_jinja_is_name(name, "title")) {
		NEED_STR();
		return change_case(sc, s, CASE_TITLE, out);
	}
	if (qa_jinja_is_name(name, "capitalize")) {
		NEED_STR();
		return change_case(sc, s, CASE_CAP, out);
	}
	if (!filter && qa_jinja_is_name(name, "swapcase")) {
		NEED_STR();
		return change_case(sc, s, CASE_SWAP, out);
	}
	if ((filter && qa_jinja_is_name(name, "trim")) ||
	    (!filter && qa_jinja_is_name(name, "strip"))) {
		NEED_STR();
		return strip_str(sc, s, arg_or(a, na, 0, kwn, kw, nk, "chars"),
				 true, true, out);
	}
	if (!filter && (qa_jinja_is_name(name, "lstrip") || qa_jinja_is_name(name, "rstrip"))) {
		NEED_STR();
		return strip_str(sc, s, na ? a[0] : NULL, name[0] == 'l',
				 name[0] == 'r', out);
	}
	if (qa_jinja_is_name(name, "replace")) {
		NEED_STR();
		if (na < 2)
			return na + nk >= 2 ? 0 : -1;
		return replace_str(sc, s, a[0], a[1],
				   arg_or(a, na, 2, kwn, kw, nk, "count"), out);
	}
	if (qa_jinja_is_name(name, "join")) {
		struct qa_jinja_sv sep = { "", 0 };

		if (filter) {
			x = arg_or(a, na, 0, kwn, kw, nk, "d");
			if (arg_or(NULL, 0, 0, kwn, kw, nk, "attribute"))
				return 0;
			if (x && !qa_jinja_to_str(sc, x, &sep, 0))
				return 0;
			return join_items(sc, self, sep, true, out);
		}
		NEED_STR();
		if (na != 1)
			return -1;
		return join_items(sc, a[0], s, false, out);
	}
	if (qa_jinja_is_name(name, "format")) {
		NEED_STR();
		if (filter) {
			struct qa_jinja_cand args[MAX_ARGS];
			unsigned i;

			if (nk)
				return 0;
			for (i = 0; i < na; i++)
				args[i] = *a[i];
			return py_percent(sc, s, args, na, out);
		}
		return str_format(sc, s, a, na, kwn, kw, nk, at, out);
	}
	if (!filter && qa_jinja_is_name(name, "format_map")) {
		NEED_STR();
		str_format(sc, s, NULL, 0, NULL, NULL, 0, at, out);
		return 0;
	}
	if (filter && (qa_jinja_is_name(name, "string") || qa_jinja_is_name(name, "safe"))) {
		NEED_STR();
		return qa_jinja_cand_string(sc, s.p, s.n, out) ? 1 : 0;
	}
	if (filter && (qa_jinja_is_name(name, "e") || qa_jinja_is_name(name, "escape") ||
		       qa_jinja_is_name(name, "forceescape"))) {
		NEED_STR();
		return escape_str(sc, s, out);
	}
	if (filter && qa_jinja_is_name(name, "list")) {
		if (self->kind == QA_JV_LIST) {
			*out = *self;
			out->dict = false;
			return 1;
		}
		if (self->kind == QA_JV_STR)
			return chars_of(sc, self->s, out) ? 1 : 0;
		return 0;
	}
	if (filter && (qa_jinja_is_name(name, "first") || qa_jinja_is_name(name, "last"))) {
		if (!qa_jinja_as_list(sc, self, &tmp, &l))
			return 0;
		if (l->n_items == 0)
			return qa_jinja_num_cand(0, QA_JV_UNDEF, out);
		*out = l->items[name[0] == 'f' ? 0 : l->n_items - 1];
		return out->kind == QA_JV_UNK ? 0 : 1;
	}
	if (filter && qa_jinja_is_name(name, "reverse"))
		return reverse_cand(sc, self->kind == QA_JV_LIST ? self :
				    (s.p ? &(struct qa_jinja_cand){ .kind = QA_JV_STR,
							   .s = s } : self),
				    out);
	if (qa_jinja_is_name(name, "center") || (!filter && (qa_jinja_is_name(name, "ljust") ||
						    qa_jinja_is_name(name, "rjust") ||
						    qa_jinja_is_name(name, "zfill")))) {
		struct qa_jinja_cand w80;

		NEED_STR();
		x = arg_or(a, na, 0, kwn, kw, nk, "width");
		if (!x && filter) {
			qa_jinja_num_cand(80, QA_JV_NUM, &w80);
			x = &w80;
		}
		return pad_str(sc, s, name, x,
			       name[0] == 'z' ? NULL : (na > 1 ? a[1] : NULL),
			       out);
	}
	if (!filter && (qa_jinja_is_name(name, "removeprefix") ||
			qa_jinja_is_name(name, "removesuffix"))) {
		NEED_STR();
		if (na != 1 || a[0]->kind != QA_JV_STR)
			return na == 1 && a[0]->kind == QA_JV_UNK ? 0 : -1;
		if (a[0]->s.n <= s.n && name[6] == 'p' &&
		    memcmp(s.p, a[0]->s.p, a[0]->s.n) == 0)
			return qa_jinja_cand_string(sc, s.p + a[0]->s.n,
					   s.n - a[0]->s.n, out) ? 1 : 0;
		if (a[0]->s.n <= s.n && name[6] == 's' &&
		    memcmp(s.p + s.n - a[0]->s.n, a[0]->s.p, a[0]->s.n) == 0)
			return qa_jinja_cand_string(sc, s.p, s.n - a[0]->s.n, out) ?
			       1 : 0;
		return qa_jinja_cand_string(sc, s.p, s.n, out) ? 1 : 0;
	}
	if (!filter && (qa_jinja_is_name(name, "split") ||
			(qa_jinja_is_name(name, "rsplit") &&
			 !arg_or(a, na, 1, kwn, kw, nk, "maxsplit")))) {
		NEED_STR();
		return split_str(sc, s, arg_or(a, na, 0, kwn, kw, nk, "sep"),
				 arg_or(a, na, 1, kwn, kw, nk, "maxsplit"),
				 out);
	}
	if (!filter && qa_jinja_is_name(name, "partition")) {
		struct qa_jinja_cand items[3];
		const char *f;

		NEED_STR();
		if (na != 1 || a[0]->kind != QA_JV_STR || a[0]->s.n == 0)
			return na == 1 && a[0]->kind == QA_JV_UNK ? 0 : -1;
		f = qa_jinja_find_bytes(s.p, s.n, a[0]->s.p, a[0]->s.n);
		if (!f) {
			qa_jinja_cand_string(sc, s.p, s.n, &items[0]);
			qa_jinja_cand_string(sc, "", 0, &items[1]);
			qa_jinja_cand_string(sc, "", 0, &items[2]);
		} else {
			qa_jinja_cand_string(sc, s.p, (size_t)(f - s.p), &items[0]);
			qa_jinja_cand_string(sc, f, a[0]->s.n, &items[1]);
			qa_jinja_cand_string(sc, f + a[0]->s.n,
				    s.n - (size_t)(f - s.p) - a[0]->s.n,
				    &items[2]);
		}
		return qa_jinja_cand_list(sc, items, 3, false, out) ? 1 : 0;
	}
	if (!filter && (qa_jinja_is_name(name, "startswith") ||
			qa_jinja_is_name(name, "endswith"))) {
		NEED_STR();
		if (na < 1 || a[0]->kind != QA_JV_STR)
			return 0;
		if (a[0]->s.n > s.n)
			return qa_jinja_num_cand(0, QA_JV_BOOL, out);
		return qa_jinja_num_cand(memcmp(name[0] == 's' ? s.p :
				       s.p + s.n - a[0]->s.n, a[0]->s.p,
				       a[0]->s.n) == 0, QA_JV_BOOL, out);
	}
	if (qa_jinja_is_name(name, "length") || qa_jinja_is_name(name, "count") ||
	    (filter && qa_jinja_is_name(name, "wordcount"))) {
		size_t *idx, nc;

		if (!filter || na || qa_jinja_is_name(name, "wordcount"))
			return 0;
		if (self->kind == QA_JV_LIST)
			return qa_jinja_num_cand(self->n_items, QA_JV_NUM, out);
		if (self->kind == QA_JV_STR &&
		    char_index(sc, self->s.p, self->s.n, &idx, &nc))
			return qa_jinja_num_cand((int64_t)nc, QA_JV_NUM, out);
		return 0;
	}
	if (filter && qa_jinja_is_name(name, "int")) {
		int64_t v = 0;
		size_t i;

		if (self->kind == QA_JV_NUM || self->kind == QA_JV_BOOL)
			return qa_jinja_num_cand(self->num, QA_JV_NUM, out);
		if (self->kind != QA_JV_STR || na || nk || self->s.n == 0 ||
		    self->s.n > 18)
			return 0;
		for (i = 0; i < self->s.n; i++) {
			if (self->s.p[i] < '0' || self->s.p[i] > '9')
				return 0;
			v = v * 10 + (self->s.p[i] - '0');
		}
		return qa_jinja_num_cand(v, QA_JV_NUM, out);
	}
	if (filter && qa_jinja_is_name(name, "abs") &&
	    (self->kind == QA_JV_NUM || self->kind == QA_JV_BOOL) &&
	    self->num != INT64_MIN)
		return qa_jinja_num_cand(self->num < 0 ? -self->num : self->num, QA_JV_NUM,
				out);
	if (filter && qa_jinja_is_name(name, "tojson"))
		return nk || na > 1 ? 0 : tojson_cand(sc, self, out);
	if (filter && qa_jinja_is_name(name, "pprint") && self->kind == QA_JV_STR) {
		char *p = qa_jinja_new_str(sc, VAL_MAX);
		size_t n;

		if (!p)
			return 0;
		n = py_repr(self->s.p, self->s.n, p, VAL_MAX);
		return n <= VAL_MAX && qa_jinja_cand_string(sc, p, n, out) ? 1 : 0;
	}
	if (filter && (qa_jinja_is_name(name, "sort") || qa_jinja_is_name(name, "unique"))) {
		struct qa_jinja_cand items[MAXL];
		uint32_t n = 0, i, j;
		bool rev = false;

		if (!qa_jinja_as_list(sc, self, &tmp, &l) || l->dict ||
		    arg_or(a, na, 2, kwn, kw, nk, "attribute") ||
		    arg_or(a, na, 1, kwn, kw, nk, "case_sensitive") ||
		    (qa_jinja_is_name(name, "unique") && na))
			return 0;
		x = qa_jinja_is_name(name, "sort") ? arg_or(a, na, 0, kwn, kw, nk,
						   "reverse") : NULL;
		if (x) {
			if (x->kind != QA_JV_BOOL && x->kind != QA_JV_NUM)
				return 0;
			rev = x->num != 0;
		}
		for (i = 0; i < l->n_items; i++) {
			bool dup = false;

			if (l->items[i].kind != QA_JV_STR)
				return 0;
			for (j = 0; qa_jinja_is_name(name, "unique") && j < n && !dup;
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
		for (i = 1; qa_jinja_is_name(name, "sort") && i < n; i++) {
			struct qa_jinja_cand k = items[i];

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
		return qa_jinja_cand_list(sc, items, n, false, out) ? 1 : 0;
	}
	if (!filter && qa_jinja_is_name(name, "keys") && self->kind == QA_JV_LIST &&
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
void
qa_jinja_fold_call(struct qa_jinja *sc, enum fkind fk, const char *name,
	  const struct qa_jinja_val *self, const struct call *cl, size_t at,
	  struct qa_jinja_val *out)
{
	const struct qa_jinja_val *vals[1 + 2 * MAX_ARGS];
	unsigned nv = 0, i, idx[1 + 2 * MAX_ARGS];
	unsigned long total = 1, k;
	bool any_str = false, any_data = false, any_opq = false;

	qa_jinja_v_clear(out);
	vals[nv++] = self;
	for (i = 0; i < cl->n_pos; i++)
		vals[nv++] = &cl->pos[i];
	for (i = 0; i < cl->n_kw; i++)
		vals[nv++] = &cl->kw[i];
	for (i = 0; i < nv; i++) {
		any_str |= qa_jinja_has_str(vals[i]);
		any_data |= vals[i]->data;
		any_opq |= vals[i]->opq || vals[i]->lossy;
		total *= vals[i]->n;
		if (total > 64)
			break;
	}
	any_str |= qa_jinja_has_str(&cl->rest);
	any_data |= cl->rest.data;
	if (cl->extra || total > 64) {
		qa_jinja_v_unknown(out, self, cl);
		return;
	}
	for (k = 0; k < total; k++) {
		const struct qa_jinja_cand *a[MAX_ARGS], *kw[MAX_ARGS];
		const char *kwn[MAX_ARGS];
		unsigned long r = k;
		struct qa_jinja_cand c;
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
			qa_jinja_v_add(out, &c);
		} else if (got == 0) {
			bool s = qa_jinja_cand_has_str(&self->c[idx[0]]);

			for (i = 0; i < cl->n_pos; i++)
				s |= qa_jinja_cand_has_str(a[i]);
			for (i = 0; i < cl->n_kw; i++)
				s |= qa_jinja_cand_has_str(kw[i]);
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
	qa_jinja_sink(sc, QA_JINJA_SINK_BUILT, out, at, NULL);
}

/* Every item of self's lists as a candidate (|first of unknown order:
 * min, max, random; a cycler's next()). */
void
qa_jinja_items_of(struct qa_jinja *sc, const struct qa_jinja_val *self, struct qa_jinja_val *out)
{
	struct qa_jinja_cand tmp;
	const struct qa_jinja_cand *l;
	unsigned i;
	uint32_t k;

	qa_jinja_v_clear(out);
	out->data = self->data;
	out->opq = self->opq || self->lossy;
	for (i = 0; i < self->n; i++) {
		if (!qa_jinja_as_list(sc, &self->c[i], &tmp, &l)) {
			if (qa_jinja_cand_has_str(&self->c[i]))
				out->opq = true;
			else
				out->data = true;
			continue;
		}
		for (k = 0; k < l->n_items; k++)
			qa_jinja_v_add(out, &l->items[k]);
	}
}

