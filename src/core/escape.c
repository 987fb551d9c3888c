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

size_t
qa_utf8_encode(char *out, uint64_t cp)
{
	if (cp > 0x10FFFF)
		cp = 0xFFFD;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
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

/*
 * What the run scanners need to know of one byte, so that the common
 * case (printable ASCII) costs one table load: B_PLAIN is always kept as
 * it is; B_PAIR (':' and '#') is kept unless the next byte is the same;
 * B_QUOTE (" and \) is kept in text but escaped in JSON; B_HIGH starts
 * a multi-byte sequence that qa_esc_next classifies; B_STOP (NUL, C0
 * controls, DEL) always ends a run.
 */
enum { B_PLAIN, B_PAIR, B_QUOTE, B_HIGH, B_STOP };

#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
static const unsigned char byte_class[256] = {
	R16(B_STOP), R16(B_STOP),				/* 00-1f */
	B_PLAIN, B_PLAIN, B_QUOTE, B_PAIR, B_PLAIN, B_PLAIN, B_PLAIN,
	B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN,
	B_PLAIN, B_PLAIN,					/* 20-2f */
	B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN,
	B_PLAIN, B_PLAIN, B_PLAIN, B_PAIR, B_PLAIN, B_PLAIN, B_PLAIN,
	B_PLAIN, B_PLAIN,					/* 30-3f */
	R16(B_PLAIN),						/* 40-4f */
	B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN,
	B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_QUOTE, B_PLAIN,
	B_PLAIN, B_PLAIN,					/* 50-5f */
	R16(B_PLAIN),						/* 60-6f */
	B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN,
	B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN, B_PLAIN,
	B_PLAIN, B_STOP,					/* 70-7f */
	R16(B_HIGH), R16(B_HIGH), R16(B_HIGH), R16(B_HIGH),	/* 80-bf */
	R16(B_HIGH), R16(B_HIGH), R16(B_HIGH), R16(B_HIGH),	/* c0-ff */
};
#undef R16

/* Length of the prefix of str made of characters qa_esc_next keeps
 * (and, when json, that are not " or \): the bytes a writer can copy
 * at once. It ends at the NUL or at the first character to escape. */
static size_t
keep_run(const char *str, bool json)
{
	const unsigned char *s = (const unsigned char *)str;
	struct qa_esc_char c;

	for (;;) {
		/* Four plain bytes a step (each read only when the one
		 * before it was plain, so never past the NUL). */
		while (byte_class[s[0]] == B_PLAIN &&
		       byte_class[s[1]] == B_PLAIN &&
		       byte_class[s[2]] == B_PLAIN &&
		       byte_class[s[3]] == B_PLAIN)
			s += 4;
		switch (byte_class[*s]) {
		case B_PLAIN:
			s++;
			continue;
		case B_QUOTE:
			if (json)
				break;
			s++;
			continue;
		case B_PAIR:
			if (s[1] == s[0])
				break;
			s++;
			continue;
		case B_HIGH:
			qa_esc_next((const char *)s, &c);
			if (c.kind != QA_ESC_KEEP)
				break;
			s += c.len;
			continue;
		default:
			break;
		}
		return (size_t)(s - (const unsigned char *)str);
	}
}

size_t
qa_esc_text_run(const char *s)
{
	return keep_run(s, false);
}

size_t
qa_esc_json_run(const char *s)
{
	return keep_run(s, true);
}

bool
qa_esc_clean(const char *s)
{
	return !s || s[keep_run(s, false)] == '\0';
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

size_t
qa_esc_text_spell(const char *s, char out[QA_ESC_SPELL_MAX], size_t *len)
{
	struct qa_esc_char c;

	qa_esc_next(s, &c);
	*len = c.len;
	return text_spelling(&c, out);
}

char *
qa_esc_text_dup(const char *str)
{
	size_t n = strlen(str), o = 0, run, len;
	const char *s;
	char *d;

	/* Each input byte becomes at most 4 output bytes (\xNN), and a
	 * 2-byte C1 or 3-byte bidi control 6 (\uNNNN). */
	if (n > (SIZE_MAX - 1) / 4)
		return NULL;
	d = malloc(4 * n + 1);
	if (!d)
		return NULL;
	for (s = str;; s += len) {
		run = keep_run(s, false);
		memcpy(d + o, s, run);
		o += run;
		s += run;
		if (!*s)
			break;
		o += qa_esc_text_spell(s, d + o, &len);
	}
	d[o] = '\0';
	return d;
}

void
qa_esc_text(FILE *f, const char *str)
{
	char esc[QA_ESC_SPELL_MAX];
	size_t run, len;
	const char *s;

	if (!str)
		return;
	for (s = str;; s += len) {
		run = keep_run(s, false);
		fwrite(s, 1, run, f);
		s += run;
		if (!*s)
			break;
		fwrite(esc, 1, qa_esc_text_spell(s, esc, &len), f);
	}
}

size_t
qa_esc_json_spell(const char *s, char out[QA_ESC_SPELL_MAX], size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	struct qa_esc_char c;

	qa_esc_next(s, &c);
	*len = c.len;
	switch (c.kind) {
	case QA_ESC_KEEP:		/* " and \ */
		out[0] = '\\';
		out[1] = *s;
		return 2;
	case QA_ESC_CONTROL:
		out[0] = '\\';
		if (*s == '\n' || *s == '\r' || *s == '\t') {
			out[1] = *s == '\n' ? 'n' : *s == '\r' ? 'r' : 't';
			return 2;
		}
		break;
	case QA_ESC_INVALID:
		memcpy(out, REPLACEMENT, 3);
		return 3;
	case QA_ESC_UNICODE:
	case QA_ESC_MARKER:
		break;
	}
	/* \uXXXX: every code point escaped here is below U+10000. */
	out[0] = '\\';
	out[1] = 'u';
	out[2] = hex[(c.cp >> 12) & 0xf];
	out[3] = hex[(c.cp >> 8) & 0xf];
	out[4] = hex[(c.cp >> 4) & 0xf];
	out[5] = hex[c.cp & 0xf];
	return 6;
}

void
qa_esc_json(FILE *f, const char *str)
{
	char esc[QA_ESC_SPELL_MAX];
	size_t run, len;
	const char *s;

	for (s = str;; s += len) {
		run = keep_run(s, true);
		fwrite(s, 1, run, f);
		s += run;
		if (!*s)
			break;
		fwrite(esc, 1, qa_esc_json_spell(s, esc, &len), f);
	}
}

/* The markup spellings: XML character data, an XML attribute, HTML
 * (text and attributes alike). */
enum markup { XML_TEXT, XML_ATTR, HTML };

static void
esc_markup(FILE *f, const char *str, enum markup m)
{
	const unsigned char *s;
	struct qa_esc_char c;

	if (!str)
		return;
	for (s = (const unsigned char *)str; *s; s += c.len) {
		/* Printable ASCII that is neither markup nor half of a CI
		 * marker is written as it is: copy such spans at once. */
		const unsigned char *run = s;
		char spell[QA_ESC_SPELL_MAX];
		size_t used, n;

		while (byte_class[*s] == B_PLAIN && *s != '&' && *s != '<' &&
		       *s != '>' && *s != '\'' && *s != '"')
			s++;
		if (s != run)
			fwrite(run, 1, (size_t)(s - run), f);
		if (!*s)
			break;
		qa_esc_next((const char *)s, &c);
		if (c.kind == QA_ESC_MARKER) {
			/* a reference: shown as the character, not obeyed
			 * by a CI log the file is printed to */
			fprintf(f, "&#%u;", (unsigned)c.cp);
			continue;
		}
		if (c.kind != QA_ESC_KEEP && m == HTML) {
			/* visibly: a reference would give the browser the
			 * very character (a bidi override reorders the page) */
			n = qa_esc_text_spell((const char *)s, spell, &used);
			fwrite(spell, 1, n, f);
			c.len = used ? used : 1;
			continue;
		}
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
			fputs(m == XML_TEXT ? "\"" : "&quot;", f);
			break;
		case '\'':
			fputs(m == XML_TEXT ? "'" : m == XML_ATTR ? "&apos;" :
			      "&#39;", f);
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
qa_esc_xml(FILE *f, const char *str, bool attr)
{
	esc_markup(f, str, attr ? XML_ATTR : XML_TEXT);
}

void
qa_esc_html(FILE *f, const char *str)
{
	esc_markup(f, str, HTML);
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
	s = t;
	if (*s == '#') {		/* a heading only at the start */
		fputs("\\#", f);
		s++;
	}
	while (*s) {
		size_t n = strcspn(s, "&\\`*_[]<>|~");

		fwrite(s, 1, n, f);
		s += n;
		if (!*s)
			break;
		if (*s == '&') {
			fputs("&amp;", f);	/* no entity from the file */
		} else {
			putc('\\', f);
			putc(*s, f);
		}
		s++;
	}
	free(t);
}
