/* SPDX-License-Identifier: MIT */
/*
 * Escaping of model-controlled text (see escape.h): the classifier and
 * the four spellings (text, JSON, XML, Markdown).
 */
#include "core/escape.h"

#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

size_t
qa_utf8_decode(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	uint32_t v;
	size_t len, k;

	*cp = c;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* > U+10FFFF */
	} else {
		return 0;
	}
	/* A NUL ends the loop early: it is below every allowed range. */
	for (k = 1; k < len; k++) {
		if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xbf))
			return 0;
		v = v << 6 | (s[k] & 0x3f);
	}
	*cp = v;
	return len;
}

/* Code points that reorder or break what a reader sees, or that some
 * terminals take as controls. */
static bool
unicode_hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||	/* C1 controls */
	       cp == 0x061c ||			/* ARABIC LETTER MARK */
	       cp == 0x200e || cp == 0x200f ||	/* LRM, RLM */
	       (cp >= 0x202a && cp <= 0x202e) ||	/* LRE..RLO */
	       (cp >= 0x2066 && cp <= 0x2069) ||	/* LRI..PDI */
	       cp == 0x2028 || cp == 0x2029;	/* line, paragraph sep. */
}

void
qa_esc_next(const char *s, struct qa_esc_char *c)
{
	unsigned char b = (unsigned char)s[0];

	c->len = 1;
	c->cp = b;
	if (b < 0x20 || b == 0x7f) {
		c->kind = QA_ESC_CONTROL;
		return;
	}
	if (b < 0x80) {
		c->kind = (b == ':' || b == '#') && s[1] == s[0] ?
			  QA_ESC_MARKER : QA_ESC_KEEP;
		return;
	}
	c->len = qa_utf8_decode(s, &c->cp);
	if (c->len == 0) {
		c->len = 1;
		c->cp = b;
		c->kind = QA_ESC_INVALID;
		return;
	}
	c->kind = unicode_hidden(c->cp) ? QA_ESC_UNICODE : QA_ESC_KEEP;
}

bool
qa_esc_clean(const char *s)
{
	struct qa_esc_char c;

	if (!s)
		return true;
	for (; *s; s += c.len) {
		qa_esc_next(s, &c);
		if (c.kind != QA_ESC_KEEP)
			return false;
	}
	return true;
}

/* The text spelling of one character qa_esc_next did not keep, in out
 * (at least 7 bytes); its length. */
static size_t
text_spelling(const struct qa_esc_char *c, char *out)
{
	static const char hex[] = "0123456789abcdef";

	if (c->kind == QA_ESC_UNICODE) {
		out[0] = '\\';
		out[1] = 'u';
		out[2] = hex[(c->cp >> 12) & 0xf];
		out[3] = hex[(c->cp >> 8) & 0xf];
		out[4] = hex[(c->cp >> 4) & 0xf];
		out[5] = hex[c->cp & 0xf];
		return 6;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[(c->cp >> 4) & 0xf];
	out[3] = hex[c->cp & 0xf];
	return 4;
}

char *
qa_esc_text_dup(const char *str)
{
	size_t n = strlen(str), o = 0;
	struct qa_esc_char c;
	const char *s;
	char *d;

	/* Each input byte becomes at most 4 output bytes (\xNN), and a
	 * 2-byte C1 or 3-byte bidi control 6 (\uNNNN). */
	if (n > (SIZE_MAX - 1) / 4)
		return NULL;
	d = malloc(4 * n + 1);
	if (!d)
		return NULL;
	for (s = str; *s; s += c.len) {
		qa_esc_next(s, &c);
		if (c.kind == QA_ESC_KEEP) {
			memcpy(d + o, s, c.len);
			o += c.len;
		} else {
			o += text_spelling(&c, d + o);
		}
	}
	d[o] = '\0';
	return d;
}

void
qa_esc_text(FILE *f, const char *str)
{
	const char *s, *run;
	struct qa_esc_char c;
	char esc[8];

	if (!str)
		return;
	for (s = run = str; *s; s += c.len) {
		qa_esc_next(s, &c);
		if (c.kind == QA_ESC_KEEP)
			continue;
		fwrite(run, 1, (size_t)(s - run), f);
		fwrite(esc, 1, text_spelling(&c, esc), f);
		run = s + c.len;
	}
	fwrite(run, 1, (size_t)(s - run), f);
}

void
qa_esc_json(FILE *f, const char *str)
{
	const char *s, *run;
	struct qa_esc_char c;

	for (s = run = str; *s; s += c.len) {
		qa_esc_next(s, &c);
		if (c.kind == QA_ESC_KEEP && *s != '"' && *s != '\\')
			continue;
		/* Flush the clean run before s, then escape s. */
		fwrite(run, 1, (size_t)(s - run), f);
		run = s + c.len;
		switch (c.kind) {
		case QA_ESC_KEEP:
			putc('\\', f);
			putc(*s, f);
			break;
		case QA_ESC_CONTROL:
			if (*s == '\n')
				fputs("\\n", f);
			else if (*s == '\r')
				fputs("\\r", f);
			else if (*s == '\t')
				fputs("\\t", f);
			else
				fprintf(f, "\\u%04x", (unsigned)c.cp);
			break;
		case QA_ESC_INVALID:
			fputs(REPLACEMENT, f);
			break;
		case QA_ESC_UNICODE:
		case QA_ESC_MARKER:
			fprintf(f, "\\u%04x", (unsigned)c.cp);
			break;
		}
	}
	fwrite(run, 1, (size_t)(s - run), f);
}

void
qa_esc_xml(FILE *f, const char *str, bool attr)
{
	const unsigned char *s;
	struct qa_esc_char c;

	if (!str)
		return;
	for (s = (const unsigned char *)str; *s; s += c.len) {
		qa_esc_next((const char *)s, &c);
		switch (c.kind) {
		case QA_ESC_CONTROL:
			/* XML 1.0 allows only these three controls. */
			if (*s == '\t' || *s == '\n' || *s == '\r')
				fprintf(f, "&#%u;", (unsigned)*s);
			else
				fputs(REPLACEMENT, f);
			continue;
		case QA_ESC_INVALID:
			fputs(REPLACEMENT, f);
			continue;
		case QA_ESC_UNICODE:
			fprintf(f, "&#x%x;", (unsigned)c.cp);
			continue;
		case QA_ESC_MARKER:
			fprintf(f, "&#%u;", (unsigned)c.cp);
			continue;
		case QA_ESC_KEEP:
			break;
		}
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs(attr ? "&quot;" : "\"", f);
			break;
		case '\'':
			fputs(attr ? "&apos;" : "'", f);
			break;
		default:
			/* U+FFFE and U+FFFF are not XML characters. */
			if (c.cp == 0xfffe || c.cp == 0xffff)
				fputs(REPLACEMENT, f);
			else
				fwrite(s, 1, c.len, f);
			break;
		}
	}
}

void
qa_esc_markdown(FILE *f, const char *str)
{
	char *t;
	const char *s;

	if (!str)
		return;
	t = qa_esc_text_dup(str);
	if (!t)
		return;
	for (s = t; *s; s++) {
		if (*s == '&') {
			fputs("&amp;", f);	/* no entity from the file */
			continue;
		}
		if (strchr("\\`*_[]<>|~", *s) || (*s == '#' && s == t))
			putc('\\', f);
		putc(*s, f);
	}
	free(t);
}
