/* SPDX-License-Identifier: MIT */
/*
 * Streaming JSON writer (see jsonw.h): separators and indentation from a
 * small per-depth state, strings escaped so that any input yields valid
 * JSON, deterministic number formats.
 */
#include "core/jsonw.h"

#include <inttypes.h>
#include <math.h>

size_t
qa_utf8_seq_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, k;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* > U+10FFFF */
	} else {
		return 0;
	}
	/* A NUL ends the loop early: it is below every allowed range. */
	for (k = 1; k < len; k++)
		if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xbf))
			return 0;
	return len;
}

static void
jw_indent(struct qa_jw *w)
{
	int i;

	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* Separator and indentation before a new item of the open container. */
static void
jw_item(struct qa_jw *w)
{
	int d = w->depth;

	if (d == 0)
		return;
	if (w->inline_[d]) {
		if (w->has_items[d])
			fputs(", ", w->f);
	} else {
		fputs(w->has_items[d] ? ",\n" : "\n", w->f);
		jw_indent(w);
	}
	w->has_items[d] = true;
}

/*
 * Control characters are escaped (\n, \r, \t by name, the others as
 * \u00XX); bytes that are not part of a valid UTF-8 sequence each become
 * U+FFFD. Clean runs are written with one fwrite.
 */
void
qa_jw_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	putc('"', f);
	while (s[i]) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			size_t len = qa_utf8_seq_len(str + i);

			if (len) {
				i += len;
				continue;
			}
		}
		/* Flush the clean run before s[i], then escape s[i]. */
		fwrite(s + run, 1, i - run, f);
		if (c == '"')
			fputs("\\\"", f);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", (unsigned)c);
		else
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
		i++;
		run = i;
	}
	fwrite(s + run, 1, i - run, f);
	putc('"', f);
}

void
qa_jw_key(struct qa_jw *w, const char *key)
{
	jw_item(w);
	if (key) {
		qa_jw_string(w->f, key);
		fputs(": ", w->f);
	}
}

static void
jw_open(struct qa_jw *w, const char *key, char brace, bool one_line)
{
	qa_jw_key(w, key);
	putc(brace, w->f);
	if (w->depth + 1 < QA_JW_MAX_DEPTH) {
		w->depth++;
		w->has_items[w->depth] = false;
		w->inline_[w->depth] = one_line ||
			(w->depth > 1 && w->inline_[w->depth - 1]);
	}
}

void
qa_jw_obj(struct qa_jw *w, const char *key)
{
	jw_open(w, key, '{', false);
}

void
qa_jw_arr(struct qa_jw *w, const char *key, bool one_line)
{
	jw_open(w, key, '[', one_line);
}

void
qa_jw_close(struct qa_jw *w, char brace)
{
	int d = w->depth;

	if (d > 0) {
		bool items = w->has_items[d], one_line = w->inline_[d];

		w->depth--;
		if (items && !one_line) {
			putc('\n', w->f);
			jw_indent(w);
		}
	}
	putc(brace, w->f);
}

void
qa_jw_str(struct qa_jw *w, const char *key, const char *s)
{
	qa_jw_key(w, key);
	if (s)
		qa_jw_string(w->f, s);
	else
		fputs("null", w->f);
}

void
qa_jw_u64(struct qa_jw *w, const char *key, uint64_t v)
{
	qa_jw_key(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void
qa_jw_i64(struct qa_jw *w, const char *key, int64_t v)
{
	qa_jw_key(w, key);
	fprintf(w->f, "%" PRId64, v);
}

void
qa_jw_bool(struct qa_jw *w, const char *key, bool v)
{
	qa_jw_key(w, key);
	fputs(v ? "true" : "false", w->f);
}

void
qa_jw_null(struct qa_jw *w, const char *key)
{
	qa_jw_key(w, key);
	fputs("null", w->f);
}

void
qa_jw_double(struct qa_jw *w, const char *key, double v, enum qa_jw_dbl fmt)
{
	qa_jw_key(w, key);
	if (!isfinite(v))
		fputs("null", w->f);
	else if (fmt == QA_JW_F32)
		fprintf(w->f, "%.9g", v);
	else if (fmt == QA_JW_F64)
		fprintf(w->f, "%.17g", v);
	else
		fprintf(w->f, "%.4f", v);
}
