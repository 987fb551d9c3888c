/* SPDX-License-Identifier: MIT */
/*
 * Python re -> POSIX ERE (analysis/pyregex.h).
 */
#include "analysis/pyregex.h"

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

