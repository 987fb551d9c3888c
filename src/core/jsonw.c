/* SPDX-License-Identifier: MIT */
/*
 * Streaming JSON writer (see jsonw.h): separators and indentation from a
 * small per-depth state, strings escaped so that any input yields valid
 * JSON, deterministic number formats. Everything is appended to w->buf
 * and leaves in whole buffers: the cost of a report is then the bytes it
 * holds, not the number of stdio calls.
 */
#include "core/jsonw.h"

#include "core/escape.h"

#include <math.h>
#include <string.h>

size_t
qa_utf8_seq_len(const char *str)
{
	uint32_t cp;

	return qa_utf8_decode(str, &cp);
}

void
qa_jw_init(struct qa_jw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->has_items[0] = false;
	w->inline_[0] = false;
	w->failed = false;
	w->len = 0;
}

static void
jw_drain(struct qa_jw *w)
{
	if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
		w->failed = true;
	w->len = 0;
}

int
qa_jw_finish(struct qa_jw *w)
{
	jw_drain(w);
	return w->failed ? -1 : 0;
}

/* Room for n more bytes (n at most QA_JW_BUF_SIZE); where they go. */
static char *
jw_room(struct qa_jw *w, size_t n)
{
	if (n > QA_JW_BUF_SIZE - w->len)
		jw_drain(w);
	return w->buf + w->len;
}

void
qa_jw_raw(struct qa_jw *w, const char *s, size_t n)
{
	if (n > QA_JW_BUF_SIZE - w->len) {
		jw_drain(w);
		if (n > QA_JW_BUF_SIZE) {
			if (fwrite(s, 1, n, w->f) != n)
				w->failed = true;
			return;
		}
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void
jw_byte(struct qa_jw *w, char c)
{
	*jw_room(w, 1) = c;
	w->len++;
}

/* A newline then two spaces per open container, from one static run
 * (depth never passes QA_JW_MAX_DEPTH). */
static const char newline_indent[] = "\n"
	"                                                                ";
_Static_assert(sizeof(newline_indent) >= 1 + 2 * QA_JW_MAX_DEPTH,
	       "indentation for every depth");

/* Separator and indentation before a new item of the open container. */
static void
jw_item(struct qa_jw *w)
{
	int d = w->depth;
	size_t n;
	char *p;

	if (d == 0)
		return;
	if (w->inline_[d]) {
		if (w->has_items[d])
			qa_jw_raw(w, ", ", 2);
	} else {
		n = 1 + 2 * (size_t)d;
		p = jw_room(w, n + 1);
		if (w->has_items[d])
			*p++ = ',';
		memcpy(p, newline_indent, n);
		w->len = (size_t)(p + n - w->buf);
	}
	w->has_items[d] = true;
}

/* The escapes of core/escape.c (qa_esc_json): control characters (\n,
 * \r, \t by name, the others as \u00XX), C1 and bidi controls and the
 * halves of "::" and "##" as \uXXXX; bytes that are not part of a valid
 * UTF-8 sequence each become U+FFFD. Clean spans are copied at once. */
static void
jw_literal(struct qa_jw *w, const char *s, const char *after,
	   size_t after_len)
{
	char esc[QA_ESC_SPELL_MAX], *p;
	size_t run, len;

	run = qa_esc_json_run(s);
	if (!s[run] && run + 2 + after_len <= QA_JW_BUF_SIZE) {
		/* Nothing to escape (names, keys, almost every value):
		 * quotes, text and what follows in one copy. */
		p = jw_room(w, run + 2 + after_len);
		*p++ = '"';
		memcpy(p, s, run);
		p += run;
		*p++ = '"';
		memcpy(p, after, after_len);
		w->len = (size_t)(p + after_len - w->buf);
		return;
	}
	jw_byte(w, '"');
	for (;; s += len) {
		qa_jw_raw(w, s, run);
		s += run;
		if (!*s)
			break;
		qa_jw_raw(w, esc, qa_esc_json_spell(s, esc, &len));
		run = qa_esc_json_run(s + len);
	}
	jw_byte(w, '"');
	qa_jw_raw(w, after, after_len);
}

void
qa_jw_literal(struct qa_jw *w, const char *s)
{
	jw_literal(w, s, "", 0);
}

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
	if (key)
		jw_literal(w, key, ": ", 2);
}

static void
jw_open(struct qa_jw *w, const char *key, char brace, bool one_line)
{
	qa_jw_key(w, key);
	jw_byte(w, brace);
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
		if (items && !one_line)
			qa_jw_raw(w, newline_indent, 1 + 2 * (size_t)w->depth);
	}
	jw_byte(w, brace);
}

void
qa_jw_str(struct qa_jw *w, const char *key, const char *s)
{
	qa_jw_key(w, key);
	if (s)
		qa_jw_literal(w, s);
	else
		qa_jw_raw(w, "null", 4);
}

/* The decimal digits of v, as printf's %llu writes them. */
static void
jw_digits(struct qa_jw *w, bool minus, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (minus)
		*--p = '-';
	qa_jw_raw(w, p, (size_t)(tmp + sizeof(tmp) - p));
}

void
qa_jw_u64(struct qa_jw *w, const char *key, uint64_t v)
{
	qa_jw_key(w, key);
	jw_digits(w, false, v);
}

void
qa_jw_i64(struct qa_jw *w, const char *key, int64_t v)
{
	qa_jw_key(w, key);
	/* The magnitude in unsigned arithmetic: INT64_MIN has no positive
	 * int64_t. */
	jw_digits(w, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

void
qa_jw_bool(struct qa_jw *w, const char *key, bool v)
{
	qa_jw_key(w, key);
	if (v)
		qa_jw_raw(w, "true", 4);
	else
		qa_jw_raw(w, "false", 5);
}

void
qa_jw_null(struct qa_jw *w, const char *key)
{
	qa_jw_key(w, key);
	qa_jw_raw(w, "null", 4);
}

/*
 * Numbers keep printf's spelling: %.9g, %.17g or %.4f. An integral value
 * below the point where %g switches to an exponent (1e9 with 9 digits,
 * 1e17 with 17) is written by %g as its plain digits, and by %.4f as the
 * digits and ".0000": those (most sizes and counts) are written here
 * without printf. -0 keeps its sign, as printf writes it.
 */
void
qa_jw_double(struct qa_jw *w, const char *key, double v, enum qa_jw_dbl fmt)
{
	static const double plain_below[] = {
		[QA_JW_F32] = 1e9, [QA_JW_F64] = 1e17, [QA_JW_BPW] = 1e17,
	};
	char tmp[400];	/* %.4f of DBL_MAX is 316 bytes */
	int n;

	qa_jw_key(w, key);
	if (!isfinite(v)) {
		qa_jw_raw(w, "null", 4);
		return;
	}
	if (fabs(v) < plain_below[fmt] && v == trunc(v)) {
		double mag = fabs(v);

		jw_digits(w, signbit(v) != 0, (uint64_t)mag);
		if (fmt == QA_JW_BPW)
			qa_jw_raw(w, ".0000", 5);
		return;
	}
	if (fmt == QA_JW_F32)
		n = snprintf(tmp, sizeof(tmp), "%.9g", v);
	else if (fmt == QA_JW_F64)
		n = snprintf(tmp, sizeof(tmp), "%.17g", v);
	else
		n = snprintf(tmp, sizeof(tmp), "%.4f", v);
	if (n > 0)
		qa_jw_raw(w, tmp, (size_t)n < sizeof(tmp) ? (size_t)n :
			  sizeof(tmp) - 1);
}
