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

#endif /* QA_SRC_JSONW_H */
