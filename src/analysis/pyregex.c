/* SPDX-License-Identifier: MIT */
/*
 * Python re -> POSIX ERE (analysis/pyregex.h).
 */
#include "analysis/pyregex.h"

#include <stdio.h>
#include <string.h>

/* Python re → POSIX ERE, anchored at the start as re.match is. Returns
 * false for what ERE cannot express: lookarounds, named groups, inline
 * flags, lazy or possessive quantifiers, \b, backreferences. */
bool
qa_py_regex_to_ere(const char *py, char *out, size_t cap)
{
	size_t n = 0;
	const char *p = py;

#define PUT(str) do { size_t l_ = strlen(str); \
	if (n + l_ >= cap) return false; \
	memcpy(out + n, (str), l_); n += l_; } while (0)
#define PUTC(ch) do { char b_[2] = { (ch), '\0' }; PUT(b_); } while (0)
	PUT("^(");
	while (*p) {
		char ch = *p;

		if (ch == '\\') {
			char e = p[1];

			if (!e)
				return false;
			p += 2;
			switch (e) {
			case 'd': PUT("[0-9]"); break;
			case 'D': PUT("[^0-9]"); break;
			case 'w': PUT("[A-Za-z0-9_]"); break;
			case 'W': PUT("[^A-Za-z0-9_]"); break;
			case 's': PUT("[[:space:]]"); break;
			case 'S': PUT("[^[:space:]]"); break;
			case 't': PUTC('\t'); break;
			case 'n': PUTC('\n'); break;
			default:
				if (strchr(".^$*+?()[]{}|\\", e)) {
					PUTC('\\');
					PUTC(e);
				} else if (strchr("/-_:\"'<>=!,#&~@% ;`", e)) {
					PUTC(e);
				} else {
					return false;
				}
			}
			continue;
		}
		if (ch == '(') {
			if (p[1] == '?') {
				if (p[2] != ':')
					return false;
				p += 3;
			} else {
				p++;
			}
			PUTC('(');
			continue;
		}
		if (ch == '*' || ch == '+' || ch == '?') {
			if (p[1] == '?' || p[1] == '+')
				return false;
			PUTC(ch);
			p++;
			continue;
		}
		if (ch == '{') {
			/* {m} {m,} {m,n} {,n} are quantifiers; Python reads
			 * any other '{' literally. */
			const char *q = p + 1;
			bool lo = false, comma = false;

			while (*q >= '0' && *q <= '9') {
				q++;
				lo = true;
			}
			if (*q == ',') {
				comma = true;
				q++;
				while (*q >= '0' && *q <= '9')
					q++;
			}
			if (*q == '}' && (lo || (comma && q[-1] != ','))) {
				if (q[1] == '?' || q[1] == '+')
					return false;
				PUTC('{');
				if (!lo)
					PUTC('0');
				p++;
				while (p <= q)
					PUTC(*p++);
			} else {
				PUT("\\{");
				p++;
			}
			continue;
		}
		if (ch == '[') {
			p++;
			PUTC('[');
			if (*p == '^')
				PUTC(*p++);
			if (*p == ']')
				PUTC(*p++);
			while (*p && *p != ']') {
				if (*p == '\\') {
					char e = p[1];

					if (e == 'd')
						PUT("0-9");
					else if (e == 'w')
						PUT("A-Za-z0-9_");
					else if (e == 's')
						PUT("[:space:]");
					else if (e && !strchr("]\\^-", e) &&
						 !((e >= 'a' && e <= 'z') ||
						   (e >= 'A' && e <= 'Z') ||
						   (e >= '0' && e <= '9')))
						PUTC(e);
					else
						return false;
					p += 2;
					continue;
				}
				if (*p == '[')
					return false;
				PUTC(*p++);
			}
			if (*p != ']')
				return false;
			PUTC(*p++);
			continue;
		}
		PUTC(ch);
		p++;
	}
	PUT(")");
#undef PUTC
#undef PUT
	out[n] = '\0';
	return true;
}


/* ---- complexity, before compiling ------------------------------------- */

/* Saturating arithmetic on sizes (the bound is tiny next to the cap). */
#define SIZE_CAP ((uint64_t)1 << 40)

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a + b > SIZE_CAP ? SIZE_CAP : a + b;
}

static uint64_t
sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > SIZE_CAP / a)
		return SIZE_CAP;
	return a * b > SIZE_CAP ? SIZE_CAP : a * b;
}

/* One open group: the size of its finished alternatives, of the branch
 * being read, and of the last item of that branch (what a quantifier
 * repeats), with the quantifier nesting inside them. */
struct rframe {
	uint64_t alts, branch, last;
	unsigned nest, last_nest;
	/* whether some finished alternative, the branch so far and its
	 * last item can match the empty string */
	bool alts_nullable, branch_nullable, last_nullable;
	bool before_nullable;	/* the branch before its last item */
	/* copies of empty-matching operands the branch's items and its
	 * last item repeat (1: none) */
	uint64_t nrep, last_nrep;
};

/* An open group: nothing read yet (the empty branch matches empty). */
static void
frame_open(struct rframe *f)
{
	memset(f, 0, sizeof(*f));
	f->branch_nullable = true;
	f->nrep = f->last_nrep = 1;
}

/* An item that always consumes a character was read. */
static void
item_atom(struct rframe *f)
{
	f->before_nullable = f->branch_nullable;
	f->branch = sat_add(f->branch, 1);
	f->last = 1;
	f->last_nest = 0;
	f->branch_nullable = false;
	f->last_nullable = false;
	f->last_nrep = 1;
}

/*
 * A {m}, {m,}, {m,n} or {,n} quantifier at p (Python reads any other
 * '{' literally, as qa_py_regex_to_ere does): its length and the most
 * copies of the operand it asks for, or 0 when it is not one.
 */
static size_t
brace_quant(const char *p, uint64_t *copies, uint64_t *min)
{
	const char *q = p + 1;
	uint64_t lo = 0, hi = 0;
	bool have_lo = false, comma = false, have_hi = false;

	while (*q >= '0' && *q <= '9') {
		lo = sat_add(sat_mul(lo, 10), (uint64_t)(*q - '0'));
		have_lo = true;
		q++;
	}
	if (*q == ',') {
		comma = true;
		q++;
		while (*q >= '0' && *q <= '9') {
			hi = sat_add(sat_mul(hi, 10), (uint64_t)(*q - '0'));
			have_hi = true;
			q++;
		}
	}
	if (*q != '}' || !(have_lo || (comma && have_hi)))
		return 0;
	/* {m}: m copies; {m,}: m and a star; {m,n}: n */
	*copies = !comma ? lo : have_hi ? (hi > lo ? hi : lo) : lo + 1;
	*min = lo;
	if (*copies == 0)
		*copies = 1;
	return (size_t)(q - p) + 1;
}

bool
qa_py_regex_cost(const char *py, struct qa_regex_cost *cost, char *why,
		 size_t why_cap)
{
	struct rframe st[QA_PYREGEX_MAX_DEPTH + 1];
	unsigned top = 0;
	const char *p = py;
	struct rframe *f;
	uint64_t total;

	memset(cost, 0, sizeof(*cost));
	frame_open(&st[0]);
	cost->alts = 1;
	cost->nullable_copies = 1;
	cost->len = strlen(py);
	if (cost->len > QA_PYREGEX_MAX_LEN) {
		snprintf(why, why_cap, "%zu characters (at most %d)",
			 cost->len, QA_PYREGEX_MAX_LEN);
		return false;
	}
	while (*p) {
		uint64_t copies = 0, min = 0;
		size_t qn;

		f = &st[top];
		switch (*p) {
		case '\\':
			p += p[1] ? 2 : 1;
			item_atom(f);
			continue;
		case '[':
			/* a class is one position: skip to its ']' */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p += p[0] == '\\' && p[1] ? 2 : 1;
			if (*p)
				p++;
			item_atom(f);
			continue;
		case '^':
		case '$':
			/* anchors match the empty string */
			f->before_nullable = f->branch_nullable;
			f->last = 0;
			f->last_nest = 0;
			f->last_nullable = true;
			f->last_nrep = 1;
			p++;
			continue;
		case '(':
			if (top + 1 > QA_PYREGEX_MAX_DEPTH) {
				snprintf(why, why_cap, "groups nested more "
					 "than %d deep", QA_PYREGEX_MAX_DEPTH);
				return false;
			}
			top++;
			frame_open(&st[top]);
			if (top > cost->depth)
				cost->depth = top;
			p++;
			/* (?:, (?P<name>, (?=...: the group's own syntax
			 * is not a position */
			if (*p == '?') {
				p++;
				if (*p == 'P' && p[1] == '<') {
					while (*p && *p != '>')
						p++;
					if (*p)
						p++;
				} else if (*p == '<' && (p[1] == '=' ||
							 p[1] == '!')) {
					p += 2;
				} else if (*p) {
					p++;
				}
			}
			continue;
		case ')':
			if (top > 0) {
				struct rframe *in = &st[top];
				uint64_t size = sat_add(in->alts, in->branch);
				unsigned nest = in->nest > in->last_nest ?
						in->nest : in->last_nest;
				bool nullable = in->alts_nullable ||
						in->branch_nullable;
				uint64_t nrep = in->nrep;

				top--;
				f = &st[top];
				f->branch = sat_add(f->branch, size);
				f->last = size;
				f->last_nest = nest;
				f->before_nullable = f->branch_nullable;
				f->branch_nullable = f->branch_nullable &&
						     nullable;
				f->last_nullable = nullable;
				f->last_nrep = nrep;
				if (nrep > f->nrep)
					f->nrep = nrep;
			}
			p++;
			continue;
		case '|':
			cost->alts++;
			f->alts = sat_add(f->alts, f->branch);
			f->nest = f->nest > f->last_nest ? f->nest :
				  f->last_nest;
			f->alts_nullable = f->alts_nullable ||
					   f->branch_nullable;
			f->branch = 0;
			f->last = 0;
			f->last_nest = 0;
			f->branch_nullable = true;
			f->before_nullable = true;
			f->last_nullable = false;
			f->last_nrep = 1;
			p++;
			continue;
		case '*':
		case '+':
		case '?':
			copies = 2;
			min = *p == '+';
			qn = 1;
			break;
		case '{':
			qn = brace_quant(p, &copies, &min);
			if (qn == 0) {
				item_atom(f);
				p++;
				continue;
			}
			break;
		default:
			item_atom(f);
			p++;
			continue;
		}
		/* a quantifier: its operand is the branch's last item */
		p += qn;
		if (*p == '?' || *p == '+')
			p++;	/* lazy or possessive */
		f->branch = sat_add(f->branch - f->last,
				    sat_mul(f->last, copies));
		f->last = sat_mul(f->last, copies);
		f->last_nest++;
		if (f->last_nest > cost->nest)
			cost->nest = f->last_nest;
		/* copies of an operand that can match nothing: what makes
		 * glibc's regcomp slow even within the size bound */
		if (f->last_nullable) {
			f->last_nrep = sat_mul(f->last_nrep, copies);
			if (f->last_nrep > f->nrep)
				f->nrep = f->last_nrep;
		}
		if (min == 0)
			f->last_nullable = true;
		f->branch_nullable = f->before_nullable && f->last_nullable;
	}
	while (top > 0) {
		/* unclosed groups (Python rejects them; measured anyway) */
		uint64_t size = sat_add(st[top].alts, st[top].branch);

		if (st[top].nrep > st[top - 1].nrep)
			st[top - 1].nrep = st[top].nrep;
		top--;
		st[top].branch = sat_add(st[top].branch, size);
	}
	total = sat_add(st[0].alts, st[0].branch);
	cost->size = total;
	cost->nullable_copies = st[0].nrep;
	if (cost->alts > QA_PYREGEX_MAX_ALT) {
		snprintf(why, why_cap, "%u alternatives (at most %d)",
			 cost->alts, QA_PYREGEX_MAX_ALT);
		return false;
	}
	if (cost->nest > QA_PYREGEX_MAX_NEST) {
		snprintf(why, why_cap, "repeats nested %u deep (at most %d)",
			 cost->nest, QA_PYREGEX_MAX_NEST);
		return false;
	}
	if (total > QA_PYREGEX_MAX_SIZE) {
		snprintf(why, why_cap, "repeats expand to %s%llu positions "
			 "(at most %d)", total >= SIZE_CAP ? "over " : "",
			 (unsigned long long)total, QA_PYREGEX_MAX_SIZE);
		return false;
	}
	if (cost->nullable_copies > QA_PYREGEX_MAX_NULLABLE) {
		snprintf(why, why_cap, "%s%llu copies of a part that can "
			 "match nothing (at most %d)",
			 cost->nullable_copies >= SIZE_CAP ? "over " : "",
			 (unsigned long long)cost->nullable_copies,
			 QA_PYREGEX_MAX_NULLABLE);
		return false;
	}
	return true;
}
