/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer shared by the reporters (the quantaudit/1
 * report in report_json.c, SARIF in report_ci.c).
 *
 * Nothing is built in a tree, so a 100k-tensor list costs no memory:
 * the writer appends to a fixed buffer inside struct qa_jw and hands it
 * to stdio with one fwrite when it is full and in qa_jw_finish(). (One
 * stdio call per indentation level, key and number made the writer most
 * of the cost of a large report.) The writer pretty-prints with
 * two-space indentation; a container opened "one line" (and everything
 * inside it) is written on a single line. Strings are always valid JSON:
 * control characters, C1 and bidi controls and the halves of "::" and
 * "##" are escaped (core/escape.h) and bytes that are not valid UTF-8
 * become U+FFFD, whatever the model file contained.
 */
#ifndef QA_SRC_JSONW_H
#define QA_SRC_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Containers deeper than this are not expected; the writer stays sane. */
#define QA_JW_MAX_DEPTH 32

/* Bytes gathered before each fwrite. */
#define QA_JW_BUF_SIZE 65536

/* Set up with qa_jw_init(); nothing reaches f before qa_jw_finish() but
 * whole buffers. Write nothing to f directly in between. */
struct qa_jw {
	FILE *f;
	int depth;
	bool has_items[QA_JW_MAX_DEPTH];	/* container has items */
	bool inline_[QA_JW_MAX_DEPTH];		/* written on one line */
	bool failed;				/* an fwrite fell short */
	bool compact;				/* every container on one
						 * line (JSON Lines) */
	size_t len;				/* bytes in buf */
	char buf[QA_JW_BUF_SIZE];
};

/* Number formats of qa_jw_double(). */
enum qa_jw_dbl {
	QA_JW_F32,	/* %.9g: round-trips any float32 */
	QA_JW_F64,	/* %.17g: round-trips any double */
	QA_JW_BPW,	/* %.4f: bits per weight */
};

/*
 * Length of the valid UTF-8 sequence that starts at s (1 for ASCII,
 * including NUL), or 0 when the byte at s does not start one: overlong
 * forms, surrogates, code points past U+10FFFF, stray continuation bytes
 * and sequences cut short.
 */
size_t qa_utf8_seq_len(const char *s);

void qa_jw_init(struct qa_jw *w, FILE *f);
/* Writes out what is buffered; 0, or -1 when a write to f failed (now or
 * earlier). Does not flush f itself. */
int qa_jw_finish(struct qa_jw *w);

/* Writes s as a JSON string literal (quotes included) to f, unbuffered. */
void qa_jw_string(FILE *f, const char *s);
/* The same into w: the value after qa_jw_key(). */
void qa_jw_literal(struct qa_jw *w, const char *s);
/* Appends n raw bytes (already valid JSON, or the final newline). */
void qa_jw_raw(struct qa_jw *w, const char *s, size_t n);

/* Starts a new item of the open container: separator, indentation and,
 * inside an object, "key": (key NULL inside an array). */
void qa_jw_key(struct qa_jw *w, const char *key);

void qa_jw_obj(struct qa_jw *w, const char *key);
/* An object written on one line (a row of a long list). */
void qa_jw_obj_line(struct qa_jw *w, const char *key);
void qa_jw_arr(struct qa_jw *w, const char *key, bool one_line);
/* Closes the innermost container; brace is '}' or ']'. */
void qa_jw_close(struct qa_jw *w, char brace);

/* Scalars; key is NULL inside an array. A NULL string is written as
 * null. NaN and infinities have no JSON spelling: they become null. */
void qa_jw_str(struct qa_jw *w, const char *key, const char *s);
void qa_jw_u64(struct qa_jw *w, const char *key, uint64_t v);
void qa_jw_i64(struct qa_jw *w, const char *key, int64_t v);
void qa_jw_bool(struct qa_jw *w, const char *key, bool v);
void qa_jw_null(struct qa_jw *w, const char *key);
void qa_jw_double(struct qa_jw *w, const char *key, double v,
		  enum qa_jw_dbl fmt);

/*
 * For the rows written thousands of times (one per tensor): keys that are
 * literals of this program, passed with their length (QA_JW_K("name")),
 * are copied without being scanned for escapes, and a string that is
 * written again and again (a tensor's file path) can be checked once with
 * qa_jw_plain_len and then copied as it is.
 */
#define QA_JW_K(lit) (lit), (sizeof(lit) - 1)

/* strlen(s) when s needs no escape in JSON (printable ASCII without '"',
 * '\\', and the ':' and '#' escape.c looks at), else SIZE_MAX. */
size_t qa_jw_plain_len(const char *s);
void qa_jw_key_k(struct qa_jw *w, const char *key, size_t key_len);
void qa_jw_str_k(struct qa_jw *w, const char *key, size_t key_len,
		 const char *s);
/* s of len bytes, known plain (qa_jw_plain_len). */
void qa_jw_str_plain_k(struct qa_jw *w, const char *key, size_t key_len,
		       const char *s, size_t len);
void qa_jw_u64_k(struct qa_jw *w, const char *key, size_t key_len,
		 uint64_t v);
void qa_jw_i64_k(struct qa_jw *w, const char *key, size_t key_len,
		 int64_t v);
void qa_jw_arr_k(struct qa_jw *w, const char *key, size_t key_len,
		 bool one_line);
void qa_jw_bool_k(struct qa_jw *w, const char *key, size_t key_len, bool v);
void qa_jw_null_k(struct qa_jw *w, const char *key, size_t key_len);

/*
 * A whole row (an object of scalars, one per tensor or module) written
 * in one piece: qa_jw_row_begin reserves room for at most `max` bytes
 * and writes the separator, indentation and '{'; each field appends
 * ",\n<indent>\"key\": value" by pointer; qa_jw_row_end closes it. The
 * output is byte for byte what the qa_jw_*_k calls write. Strings must
 * be plain (qa_jw_plain_len) and the caller's `max` must cover every
 * field (keys, values, 6 bytes of quotes and separators plus the
 * indentation per field); begin returns false, writing nothing, when
 * max is over QA_JW_ROW_MAX, and the caller writes the row the long
 * way.
 */
#define QA_JW_ROW_MAX ((size_t)QA_JW_BUF_SIZE / 4)

struct qa_jw_row {
	struct qa_jw *w;
	char *p;		/* next byte */
	size_t indent;		/* bytes of "\n" + indentation of a field */
	bool first;
};

bool qa_jw_row_begin(struct qa_jw *w, struct qa_jw_row *r, size_t max);
void qa_jw_row_end(struct qa_jw_row *r);

/* A newline and spaces enough for any depth and 64 bytes more, so that
 * a fixed-size copy of 64 (inlined) covers any indentation. */
extern const char qa_jw_newline_indent[1 + 2 * QA_JW_MAX_DEPTH + 64];
/* The digits of v at p, as printf's %llu writes them; the end. */
char *qa_jw_put_u64(char *p, uint64_t v);

/* The fields are inline: with literal keys every copy but the values'
 * is a fixed-size move. */

/* Bytes one field of key_len and value_len takes at most: ",\n", the
 * indentation (copied 64 bytes at a time), quotes, colon and space. */
static inline size_t
qa_jw_row_field_max(const struct qa_jw *w, size_t key_len, size_t value_len)
{
	return 2 + 64 + 2 * (size_t)(w->depth + 1) + key_len + 4 + value_len;
}

static inline void
qa_jw_row_key(struct qa_jw_row *r, const char *key, size_t key_len)
{
	char *p = r->p;

	*p = ',';
	p += !r->first;
	r->first = false;
	memcpy(p, qa_jw_newline_indent, 64);
	if (r->indent > 64)
		memcpy(p, qa_jw_newline_indent, r->indent);
	p += r->indent;
	*p++ = '"';
	memcpy(p, key, key_len);
	p += key_len;
	memcpy(p, "\": ", 3);
	r->p = p + 3;
}

static inline void
qa_jw_row_str(struct qa_jw_row *r, const char *key, size_t key_len,
	      const char *s, size_t len)
{
	qa_jw_row_key(r, key, key_len);
	*r->p++ = '"';
	memcpy(r->p, s, len);
	r->p += len;
	*r->p++ = '"';
}

static inline void
qa_jw_row_u64(struct qa_jw_row *r, const char *key, size_t key_len,
	      uint64_t v)
{
	qa_jw_row_key(r, key, key_len);
	r->p = qa_jw_put_u64(r->p, v);
}

static inline void
qa_jw_row_i64(struct qa_jw_row *r, const char *key, size_t key_len,
	      int64_t v)
{
	qa_jw_row_key(r, key, key_len);
	if (v < 0)
		*r->p++ = '-';
	r->p = qa_jw_put_u64(r->p, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* A value already spelled as JSON ("null", "true"). */
static inline void
qa_jw_row_raw(struct qa_jw_row *r, const char *key, size_t key_len,
	      const char *v, size_t len)
{
	qa_jw_row_key(r, key, key_len);
	memcpy(r->p, v, len);
	r->p += len;
}

/* A one-line array of unsigned integers ("[256, 64]"). */
static inline void
qa_jw_row_u64s(struct qa_jw_row *r, const char *key, size_t key_len,
	       const uint64_t *v, size_t n)
{
	size_t i;

	qa_jw_row_key(r, key, key_len);
	*r->p++ = '[';
	for (i = 0; i < n; i++) {
		if (i) {
			*r->p++ = ',';
			*r->p++ = ' ';
		}
		r->p = qa_jw_put_u64(r->p, v[i]);
	}
	*r->p++ = ']';
}

#endif /* QA_SRC_JSONW_H */
