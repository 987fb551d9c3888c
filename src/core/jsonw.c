/* SPDX-License-Identifier: MIT */
/*
 * Streaming JSON writer (see jsonw.h): separators and indentation from a
 * small per-depth state, strings escaped so that any input yields valid
 * JSON, deterministic number formats.
 */
#include "core/jsonw.h"

#include "core/escape.h"

#include <inttypes.h>
#include <math.h>

size_t
qa_utf8_seq_len(const char *str)
{
	uint32_t cp;

	return qa_utf8_decode(str, &cp);
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

/* The escapes of core/escape.c (qa_esc_json): control characters (\n,
 * \r, \t by name, the others as \u00XX), C1 and bidi controls and the
 * halves of "::" and "##" as \uXXXX; bytes that are not part of a valid
 * UTF-8 sequence each become U+FFFD. */
void
qa_jw_string(FILE *f, const char *str)
{
	putc('"', f);
	qa_esc_json(f, str);
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
