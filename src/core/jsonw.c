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
	w->compact = false;
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

/* Separator and indentation before a new item of the open container.
 * The indentation is copied with a fixed length (inlined as a few
 * vector moves, no call) and the length kept is the depth's. */
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
		p = jw_room(w, sizeof(newline_indent) + 1);
		*p = ',';
		p += w->has_items[d];
		memcpy(p, newline_indent, sizeof(newline_indent));
		w->len = (size_t)(p + n - w->buf);
	}
	w->has_items[d] = true;
}

/*
 * Bytes a JSON string can hold as they are, and that no escape rule of
 * core/escape.c looks at: printable ASCII but '"', '\\', ':' and '#'
 * (escape.c escapes the second of "::" and "##"). A string made of them
 * only (names, keys, paths, almost every value) is copied after one
 * table look-up per byte; any other goes through qa_esc_json_run.
 */
static const unsigned char json_plain[256] = {
	[0x20] = 1, [0x21] = 1, [0x23] = 0, [0x24] = 1, [0x25] = 1,
	[0x26] = 1, [0x27] = 1, [0x28] = 1, [0x29] = 1, [0x2a] = 1,
	[0x2b] = 1, [0x2c] = 1, [0x2d] = 1, [0x2e] = 1, [0x2f] = 1,
	[0x30] = 1, [0x31] = 1, [0x32] = 1, [0x33] = 1, [0x34] = 1,
	[0x35] = 1, [0x36] = 1, [0x37] = 1, [0x38] = 1, [0x39] = 1,
	[0x3b] = 1, [0x3c] = 1, [0x3d] = 1, [0x3e] = 1, [0x3f] = 1,
	[0x40] = 1, [0x41] = 1, [0x42] = 1, [0x43] = 1, [0x44] = 1,
	[0x45] = 1, [0x46] = 1, [0x47] = 1, [0x48] = 1, [0x49] = 1,
	[0x4a] = 1, [0x4b] = 1, [0x4c] = 1, [0x4d] = 1, [0x4e] = 1,
	[0x4f] = 1, [0x50] = 1, [0x51] = 1, [0x52] = 1, [0x53] = 1,
	[0x54] = 1, [0x55] = 1, [0x56] = 1, [0x57] = 1, [0x58] = 1,
	[0x59] = 1, [0x5a] = 1, [0x5b] = 1, [0x5d] = 1, [0x5e] = 1,
	[0x5f] = 1, [0x60] = 1, [0x61] = 1, [0x62] = 1, [0x63] = 1,
	[0x64] = 1, [0x65] = 1, [0x66] = 1, [0x67] = 1, [0x68] = 1,
	[0x69] = 1, [0x6a] = 1, [0x6b] = 1, [0x6c] = 1, [0x6d] = 1,
	[0x6e] = 1, [0x6f] = 1, [0x70] = 1, [0x71] = 1, [0x72] = 1,
	[0x73] = 1, [0x74] = 1, [0x75] = 1, [0x76] = 1, [0x77] = 1,
	[0x78] = 1, [0x79] = 1, [0x7a] = 1, [0x7b] = 1, [0x7c] = 1,
	[0x7d] = 1, [0x7e] = 1,
};

/* The escapes of core/escape.c (qa_esc_json): control characters (\n,
 * \r, \t by name, the others as \u00XX), C1 and bidi controls and the
 * halves of "::" and "##" as \uXXXX; bytes that are not part of a valid
 * UTF-8 sequence each become U+FFFD. Clean spans are copied at once. */
static void __attribute__((noinline))
jw_literal_escaped(struct qa_jw *w, const char *s, const char *after,
		   size_t after_len)
{
	char esc[QA_ESC_SPELL_MAX];
	size_t run, len;

	run = qa_esc_json_run(s);
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

/* s as a JSON string, then after (at most 2 bytes: ": " or nothing). */
static inline void
jw_literal(struct qa_jw *w, const char *s, const char *after,
	   size_t after_len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0;
	char *p;

	while (json_plain[u[run]])
		run++;
	if (u[run] || run + 4 > QA_JW_BUF_SIZE) {
		jw_literal_escaped(w, s, after, after_len);
		return;
	}
	p = jw_room(w, run + 4);
	*p++ = '"';
	memcpy(p, s, run);
	p += run;
	*p++ = '"';
	/* after is "" or ": ": both bytes copied, the length kept */
	p[0] = after_len ? after[0] : 0;
	p[1] = after_len > 1 ? after[1] : 0;
	w->len = (size_t)(p + after_len - w->buf);
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

/* The opening brace of a container, after its key. */
static void
jw_push(struct qa_jw *w, char brace, bool one_line)
{
	jw_byte(w, brace);
	if (w->depth + 1 < QA_JW_MAX_DEPTH) {
		w->depth++;
		w->has_items[w->depth] = false;
		w->inline_[w->depth] = one_line || w->compact ||
			(w->depth > 1 && w->inline_[w->depth - 1]);
	}
}

static void
jw_open(struct qa_jw *w, const char *key, char brace, bool one_line)
{
	qa_jw_key(w, key);
	jw_push(w, brace, one_line);
}

void
qa_jw_obj(struct qa_jw *w, const char *key)
{
	jw_open(w, key, '{', false);
}

void
qa_jw_obj_line(struct qa_jw *w, const char *key)
{
	jw_open(w, key, '{', true);
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

/* The decimal digits of v, as printf's %llu writes them (with a minus
 * sign before them when minus), in place: qa_jw_put_u64. */
static void
jw_digits(struct qa_jw *w, bool minus, uint64_t v)
{
	char *p = jw_room(w, 21);

	if (minus)
		*p++ = '-';
	w->len = (size_t)(qa_jw_put_u64(p, v) - w->buf);
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

/* ---- rows with literal keys ------------------------------------------- */

size_t
qa_jw_plain_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0;

	/* one look-up a byte: a word-at-a-time test of the six excluded
	 * ranges costs more than this on names of 20 to 60 bytes */
	while (json_plain[u[n]])
		n++;
	return u[n] ? SIZE_MAX : n;
}

/* Separator, indentation and "key": with a key known plain. */
void
qa_jw_key_k(struct qa_jw *w, const char *key, size_t key_len)
{
	char *p;

	jw_item(w);
	if (key_len + 4 > QA_JW_BUF_SIZE) {
		jw_literal(w, key, ": ", 2);
		return;
	}
	p = jw_room(w, key_len + 4);
	*p++ = '"';
	memcpy(p, key, key_len);
	p += key_len;
	memcpy(p, "\": ", 3);
	w->len = (size_t)(p + 3 - w->buf);
}

void
qa_jw_str_k(struct qa_jw *w, const char *key, size_t key_len, const char *s)
{
	qa_jw_key_k(w, key, key_len);
	if (s)
		jw_literal(w, s, "", 0);
	else
		qa_jw_raw(w, "null", 4);
}

void
qa_jw_str_plain_k(struct qa_jw *w, const char *key, size_t key_len,
		  const char *s, size_t len)
{
	char *p;

	qa_jw_key_k(w, key, key_len);
	if (len + 2 > QA_JW_BUF_SIZE) {
		jw_literal(w, s, "", 0);
		return;
	}
	p = jw_room(w, len + 2);
	*p++ = '"';
	memcpy(p, s, len);
	p[len] = '"';
	w->len = (size_t)(p + len + 1 - w->buf);
}

void
qa_jw_u64_k(struct qa_jw *w, const char *key, size_t key_len, uint64_t v)
{
	qa_jw_key_k(w, key, key_len);
	jw_digits(w, false, v);
}

void
qa_jw_i64_k(struct qa_jw *w, const char *key, size_t key_len, int64_t v)
{
	qa_jw_key_k(w, key, key_len);
	jw_digits(w, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

void
qa_jw_arr_k(struct qa_jw *w, const char *key, size_t key_len, bool one_line)
{
	qa_jw_key_k(w, key, key_len);
	jw_push(w, '[', one_line);
}

void
qa_jw_bool_k(struct qa_jw *w, const char *key, size_t key_len, bool v)
{
	qa_jw_key_k(w, key, key_len);
	if (v)
		qa_jw_raw(w, "true", 4);
	else
		qa_jw_raw(w, "false", 5);
}

void
qa_jw_null_k(struct qa_jw *w, const char *key, size_t key_len)
{
	qa_jw_key_k(w, key, key_len);
	qa_jw_raw(w, "null", 4);
}

/* ---- rows written in one piece ---------------------------------------- */

const char qa_jw_newline_indent[1 + 2 * QA_JW_MAX_DEPTH + 64] = "\n"
	"                                                                "
	"                                                                ";

char *
qa_jw_put_u64(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	uint64_t t = v;
	size_t n = 1;
	char *e;

	/* most values of a report (shapes, layers, bits) are short: four
	 * compares each round, one division per four digits */
	for (;;) {
		if (t < 10)
			break;
		if (t < 100) {
			n += 1;
			break;
		}
		if (t < 1000) {
			n += 2;
			break;
		}
		if (t < 10000) {
			n += 3;
			break;
		}
		t /= 10000;
		n += 4;
	}
	e = p + n;
	while (v >= 100) {
		unsigned k = (unsigned)(v % 100) * 2;

		v /= 100;
		*--e = pairs[k + 1];
		*--e = pairs[k];
	}
	if (v >= 10) {
		*--e = pairs[v * 2 + 1];
		*--e = pairs[v * 2];
	} else {
		*--e = (char)('0' + v);
	}
	return p + n;
}

bool
qa_jw_row_begin(struct qa_jw *w, struct qa_jw_row *r, size_t max)
{
	size_t need = max + sizeof(newline_indent) + 8;

	if (max > QA_JW_ROW_MAX || w->depth + 2 >= QA_JW_MAX_DEPTH ||
	    w->inline_[w->depth])
		return false;
	jw_item(w);
	jw_room(w, need);
	r->w = w;
	r->p = w->buf + w->len;
	*r->p++ = '{';
	r->indent = 1 + 2 * (size_t)(w->depth + 1);
	r->first = true;
	return true;
}

void
qa_jw_row_end(struct qa_jw_row *r)
{
	struct qa_jw *w = r->w;

	if (!r->first) {
		memcpy(r->p, newline_indent, 1 + 2 * (size_t)w->depth);
		r->p += 1 + 2 * (size_t)w->depth;
	}
	*r->p++ = '}';
	w->len = (size_t)(r->p - w->buf);
}
