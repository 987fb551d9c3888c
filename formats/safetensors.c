/* SPDX-License-Identifier: MIT */
/*
 * safetensors file reader: the 8-byte little-endian header length N, the
 * N-byte JSON header, and a byte buffer that is not read (but for the
 * few HQQ metadata scalars of formats/st_values.c).
 *
 * It enforces every rule of the reference Rust reader
 * (huggingface/safetensors `SafeTensors::read_metadata` and
 * `Metadata::validate`, see shared/knowledge/formats-and-security.md §2.3)
 * and reports each violation as a QA12xx finding instead of stopping, so
 * one run lists everything wrong with a file. Where the reference is laxer
 * than the README (leading whitespace, duplicate keys) we flag rather than
 * silently accept.
 *
 * The header is read by one pass of a strict JSON scanner (scan_header)
 * that builds no tree: it checks the syntax, UTF-8 and escapes as it goes
 * and keeps, per top-level key, only what the checks need (the key's
 * offset, its name, the first dtype, shape and data_offsets, the first
 * number that is not a plain non-negative integer). Nothing reaches the
 * inventory until the whole header has scanned, because a syntax error
 * anywhere means the file holds no tensors. The scanner accepts exactly
 * the headers the earlier reader (a lexical pass, then cJSON 1.7.15)
 * accepted and reports the same findings for them; when it refuses a
 * header, that lexical pass (lex_header) runs to name the first error
 * with its offset, as before.
 */
#include "formats/format.h"

#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"
#include "core/hash.h"
#include "core/dtypes.h"
#include "core/units.h"
#include "core/escape.h"

/* MAX_HEADER_SIZE of the reference reader (safetensors/src/tensor.rs). */
#define ST_MAX_HEADER ((uint64_t)100000000)

/*
 * Shapes and offsets above 2^53 are refused: the JSON schema
 * (docs/safetensors.schema.json) caps them at 2^48 - 1, and 2^53 is the
 * largest integer JSON readers that use doubles (Python's json does not,
 * JavaScript does) all read exactly.
 */
#define ST_MAX_INT ((uint64_t)1 << 53)

/*
 * JSON values in one header. The scanner keeps no node per value, but a
 * header with more values than this (a 100 MB header of "[0,0,0,...")
 * is still refused as before (QA1901): no real header comes near it (a
 * 100k-tensor header has about 1M values).
 */
#define ST_MAX_NODES ((uint64_t)16 << 20)

/* Nesting depth of the earlier reader (cJSON's CJSON_NESTING_LIMIT). */
#define ST_MAX_DEPTH 1000

/*
 * cJSON 1.7.15 copies at most 63 characters of a number before strtod:
 * a longer number does not parse there, so it does not here.
 */
#define ST_MAX_NUMBER_CHARS 63

/* ---- the lexical pass: names the first error of a refused header ---- */

struct st_lex {
	uint64_t nodes;
	uint64_t err_off;	/* offset of the first error */
	const char *err;	/* NULL when the header is lexically fine */
	bool utf8_err;		/* the error is invalid UTF-8 */
};

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or 0 when invalid. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;	/* overlong 3-byte */
	else if (c == 0xED)
		hi = 0x9F;	/* UTF-16 surrogates */
	else if (c == 0xF0)
		lo = 0x90;	/* overlong 4-byte */
	else if (c == 0xF4)
		hi = 0x8F;	/* above U+10FFFF */
	if (n < len)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

static bool
is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static void
lex_fail(struct st_lex *lx, uint64_t off, const char *why)
{
	if (!lx->err) {
		lx->err = why;
		lx->err_off = off;
	}
}

/*
 * The lexical pass of the earlier reader, kept to describe a header the
 * scanner refused: invalid UTF-8 anywhere first, then the first lexical
 * error in order, and the count of JSON values (keys of nested objects
 * included) the QA1901 bound is on. Grammar errors it does not see (a
 * missing ':' or ',', a key that is not a string, a bad literal or
 * number, a lone surrogate) leave lx->err NULL.
 */
static void
lex_header(const unsigned char *p, size_t n, struct st_lex *lx)
{
	size_t i;
	unsigned depth = 0;
	bool in_str = false, esc = false;
	bool expect_key = false, root_done = false;

	for (i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);

		if (k == 0) {
			lx->utf8_err = true;
			lex_fail(lx, i, "invalid UTF-8");
			return;
		}
		i += k;
	}
	for (i = 0; i < n && !lx->err; i++) {
		unsigned char c = p[i];

		if (in_str) {
			if (esc) {
				esc = false;
				if (c == 'u') {
					if (n - i < 5 || !is_hex(p[i + 1]) ||
					    !is_hex(p[i + 2]) ||
					    !is_hex(p[i + 3]) ||
					    !is_hex(p[i + 4])) {
						lex_fail(lx, i, "bad \\u escape");
						break;
					}
					i += 4;
				} else if (!strchr("\"\\/bfnrt", c) || c == 0) {
					lex_fail(lx, i, "bad escape");
				}
				continue;
			}
			if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
			else if (c < 0x20)
				lex_fail(lx, i, "control character in a string");
			continue;
		}
		if (is_ws(c))
			continue;
		if (root_done) {
			lex_fail(lx, i, "content after the JSON object");
			break;
		}
		if (depth == 0 && c != '{') {
			lex_fail(lx, i, "header is not a JSON object");
			break;
		}
		lx->nodes++;
		switch (c) {
		case '"':
			in_str = true;
			if (depth == 1 && expect_key)
				lx->nodes--;	/* keys live in their value's node */
			break;
		case '{':
		case '[':
			if (depth >= ST_MAX_DEPTH) {
				lex_fail(lx, i, "nesting too deep");
				break;
			}
			depth++;
			if (depth == 1)
				expect_key = true;
			break;
		case '}':
		case ']':
			lx->nodes--;
			if (depth == 0) {
				lex_fail(lx, i, "unbalanced bracket");
				break;
			}
			depth--;
			if (depth == 0)
				root_done = true;
			break;
		case ',':
			lx->nodes--;
			if (depth == 1)
				expect_key = true;
			break;
		case ':':
			lx->nodes--;
			if (depth == 1)
				expect_key = false;
			break;
		case 't':
		case 'f':
		case 'n':
			while (i + 1 < n && p[i + 1] >= 'a' && p[i + 1] <= 'z')
				i++;
			break;
		default:
			if (c == '-' || (c >= '0' && c <= '9')) {
				while (i + 1 < n && p[i + 1] != 0 &&
				       (strchr("+-.eE", p[i + 1]) ||
					(p[i + 1] >= '0' && p[i + 1] <= '9')))
					i++;
				break;
			}
			lex_fail(lx, i, "unexpected character");
			break;
		}
	}
	if (!lx->err && (in_str || depth != 0 || !root_done))
		lex_fail(lx, n, "header ends inside the JSON object");
}

/* ---- the scanner ------------------------------------------------------ */

/* The three fields of a tensor entry the reference reads. */
enum st_field { F_NONE = -1, F_DTYPE, F_SHAPE, F_OFFSETS };

static const char *const field_name[] = { "dtype", "shape", "data_offsets" };

/* What was wrong with a shape or data_offsets array, first in order. */
enum st_array_err {
	A_OK,
	A_NOT_ARRAY,
	A_TOO_MANY,	/* more elements than the field takes */
	A_NOT_UINT,	/* an element that is not an integer <= 2^53 */
};

/* A string of the header as C code sees it: decoded, cut at the first
 * NUL (what cJSON gave the earlier reader). */
struct st_str {
	const char *s;		/* into the header or the scanner's buffer */
	uint32_t len;
	bool nul;		/* the decoded string held a NUL */
};

/* One top-level key and what its value holds. */
struct st_item {
	struct st_str name;
	uint32_t key_off;	/* header offset of the key's '"' */
	uint32_t value_off;	/* header offset of its value */
	uint32_t bad_num_off;	/* first number in the value that is not a
				 * plain non-negative integer */
	uint32_t dims;		/* its shape in st_scan.dims */
	struct st_str dtype;
	uint64_t off[2];	/* data_offsets */
	uint8_t rank;		/* shape elements kept */
	uint8_t n_off;		/* data_offsets elements kept */
	uint8_t have;		/* 1 << field: seen */
	int8_t dup_field;	/* first field seen twice, or F_NONE */
	uint8_t shape_err, off_err;	/* enum st_array_err */
	bool metadata;		/* the name is "__metadata__" */
	bool bad_num;
	bool object;		/* the value is a JSON object */
	bool dtype_string;	/* the first dtype is a string */
};

struct st_scan {
	const unsigned char *p;
	size_t n, i;
	uint64_t nodes;		/* JSON values, keys of nested objects too */
	unsigned depth;		/* open objects and arrays */
	/* decoded strings that held escapes; item names point into it, so
	 * it is sized once (no string decodes longer than its escapes) */
	char *buf;
	size_t buf_len;
	struct st_item *items;
	size_t n_items, cap_items;
	uint64_t *dims;
	size_t n_dims, cap_dims;
	bool decode;		/* keep decoded strings (see scan_header) */
	bool no_memory;
};

/* What a scanned value was, for the few places that look at it. */
enum st_kind { K_OTHER, K_STRING, K_NUMBER, K_OBJECT, K_ARRAY };

struct st_value {
	enum st_kind kind;
	bool plain;		/* a number of digits only, no leading zero */
	bool uint_ok;		/* plain and <= 2^53: u holds it */
	uint64_t u;
	struct st_str str;	/* K_STRING */
};

static void
skip_ws(struct st_scan *s)
{
	while (s->i < s->n && is_ws(s->p[s->i]))
		s->i++;
}

/* The four hex digits at p as a code unit, or -1. */
static long
hex4(const unsigned char *p)
{
	long v = 0;
	int k;

	for (k = 0; k < 4; k++) {
		int h = qa_hex_digit((char)p[k]);

		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* Bytes a JSON string holds as they are: 0x20-0x7f but '"' and '\\'
 * (0x7f, DEL, is allowed unescaped by RFC 8259). */
static const unsigned char str_plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 00 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 10 */
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 20 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 30 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 40 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,	/* 50 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 60 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 70 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 80 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 90 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* a0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* b0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* c0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* d0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* e0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* f0 */
};

/*
 * A string at s->i (its '"'). Strict JSON: no raw control character,
 * valid UTF-8, only the escapes JSON has, \u surrogates in pairs (cJSON
 * refused a lone one). A string with escapes is decoded into s->buf;
 * out->len stops at the first NUL, out->nul tells there was one.
 */

static bool
scan_string(struct st_scan *s, struct st_str *out)
{
	const unsigned char *p = s->p;
	size_t i = s->i + 1, start = i, n = s->n;
	char *o = NULL, e = 0;
	size_t olen = 0;
	bool escaped = false;

	for (;;) {
		unsigned char c;

		/* A run of bytes that need no decision (printable ASCII but
		 * '"' and '\\'): one look-up each, while nothing is being
		 * decoded into s->buf. */
		if (!o)
			while (i < n && str_plain[p[i]])
				i++;
		if (i >= n)
			return false;
		c = p[i];
		if (c == '"')
			break;
		if (c < 0x20)
			return false;
		if (c >= 0x80) {
			size_t k = utf8_seq(p + i, n - i);

			if (k == 0)
				return false;
			if (o) {
				memcpy(o + olen, p + i, k);
				olen += k;
			}
			i += k;
			continue;
		}
		if (c != '\\') {
			if (o)
				o[olen++] = (char)c;
			i++;
			continue;
		}
		if (!o && s->decode) {
			/* first escape: copy what came before it */
			o = s->buf + s->buf_len;
			olen = i - start;
			memcpy(o, p + start, olen);
		}
		escaped = true;
		if (i + 1 >= n)
			return false;
		switch (p[i + 1]) {
		case '"': e = '"'; break;
		case '\\': e = '\\'; break;
		case '/': e = '/'; break;
		case 'b': e = '\b'; break;
		case 'f': e = '\f'; break;
		case 'n': e = '\n'; break;
		case 'r': e = '\r'; break;
		case 't': e = '\t'; break;
		case 'u': {
			long hi, lo;
			unsigned long cp;

			if (n - i < 6 || (hi = hex4(p + i + 2)) < 0)
				return false;
			if (hi >= 0xDC00 && hi <= 0xDFFF)
				return false;	/* a lone low surrogate */
			if (hi >= 0xD800 && hi <= 0xDBFF) {
				if (n - i < 12 || p[i + 6] != '\\' ||
				    p[i + 7] != 'u' ||
				    (lo = hex4(p + i + 8)) < 0xDC00 ||
				    lo > 0xDFFF)
					return false;
				cp = 0x10000 + (((unsigned long)hi & 0x3FF) << 10 |
						((unsigned long)lo & 0x3FF));
				i += 6;
			} else {
				cp = (unsigned long)hi;
			}
			if (o)
				olen += qa_utf8_encode(o + olen, cp);
			i += 6;
			continue;
		}
		default:
			return false;
		}
		if (o)
			o[olen++] = e;
		i += 2;
	}
	if (o) {
		char *z = memchr(o, '\0', olen);

		s->buf_len += olen;
		out->s = o;
		out->nul = z != NULL;
		out->len = (uint32_t)(z ? (size_t)(z - o) : olen);
	} else if (escaped) {
		/* not kept (s->decode off): nobody reads it */
		out->s = NULL;
		out->len = 0;
		out->nul = false;
	} else {
		out->s = (const char *)p + start;
		out->len = (uint32_t)(i - start);
		out->nul = false;
	}
	s->i = i + 1;
	return true;
}

/*
 * A number at s->i: the run of [0-9+-.eE] the earlier reader's lexer
 * took, which cJSON accepted only when strtod read all of it (at most 63
 * characters): [-] digits [. digits] [(e|E) [+-] digits], where either
 * digit group may be empty but not both.
 */
static bool
scan_number(struct st_scan *s, struct st_value *v)
{
	const unsigned char *p = s->p;
	size_t i = s->i, end = i, j, d1 = 0, d2 = 0;
	uint64_t u = 0;
	bool big = false;

	/* Shapes and offsets: digits and then a ',' or ']'. One pass, the
	 * same answers as the general path below. */
	for (j = i; j < s->n && p[j] >= '0' && p[j] <= '9'; j++) {
		if (u > ST_MAX_INT / 10)
			big = true;
		u = u * 10 + (uint64_t)(p[j] - '0');
	}
	if (j > i && j - i <= ST_MAX_NUMBER_CHARS &&
	    (j == s->n || !(p[j] == '+' || p[j] == '-' || p[j] == '.' ||
			    p[j] == 'e' || p[j] == 'E'))) {
		v->kind = K_NUMBER;
		v->plain = j - i == 1 || p[i] != '0';
		v->uint_ok = v->plain && !big && u <= ST_MAX_INT;
		v->u = u;
		s->i = j;
		return true;
	}
	u = 0;
	big = false;
	while (end < s->n && ((p[end] >= '0' && p[end] <= '9') ||
			      p[end] == '+' || p[end] == '-' ||
			      p[end] == '.' || p[end] == 'e' || p[end] == 'E'))
		end++;
	if (end - i > ST_MAX_NUMBER_CHARS)
		return false;
	j = i;
	if (p[j] == '-')
		j++;
	for (; j < end && p[j] >= '0' && p[j] <= '9'; j++, d1++) {
		if (u > ST_MAX_INT / 10)
			big = true;
		u = u * 10 + (uint64_t)(p[j] - '0');
	}
	if (j < end && p[j] == '.')
		for (j++; j < end && p[j] >= '0' && p[j] <= '9'; j++)
			d2++;
	if (d1 + d2 == 0)
		return false;
	if (j < end && (p[j] == 'e' || p[j] == 'E')) {
		size_t k = j + 1;

		if (k < end && (p[k] == '+' || p[k] == '-'))
			k++;
		if (k >= end || p[k] < '0' || p[k] > '9')
			return false;	/* strtod stops before the 'e' */
		while (k < end && p[k] >= '0' && p[k] <= '9')
			k++;
		j = k;
	}
	if (j != end)
		return false;
	v->kind = K_NUMBER;
	v->plain = p[i] != '-' && d1 == end - i && (d1 == 1 || p[i] != '0');
	v->uint_ok = v->plain && !big && u <= ST_MAX_INT;
	v->u = u;
	s->i = end;
	return true;
}

static bool scan_value(struct st_scan *s, struct st_value *v,
		       struct st_item *it);

/* Enters an object or array: the earlier reader's nesting bound. */
static bool
open_container(struct st_scan *s)
{
	if (s->depth >= ST_MAX_DEPTH)
		return false;
	s->depth++;
	s->nodes++;
	s->i++;
	skip_ws(s);
	return true;
}

/* After a member or element: true with *more when a ',' follows, true
 * without it at the closing bracket. */
static bool
next_member(struct st_scan *s, unsigned char close, bool *more)
{
	skip_ws(s);
	if (s->i >= s->n)
		return false;
	if (s->p[s->i] == ',') {
		s->i++;
		skip_ws(s);
		*more = true;
		return true;
	}
	if (s->p[s->i] != close)
		return false;
	s->i++;
	s->depth--;
	*more = false;
	return true;
}

/*
 * An array at s->i. With out, its elements are checked as a shape or
 * data_offsets (at most max plain integers <= 2^53): the first problem
 * in order goes to *err, the elements kept to out and *n_out.
 */
static bool
scan_array(struct st_scan *s, struct st_item *it, uint64_t *out, size_t max,
	   uint8_t *n_out, uint8_t *err)
{
	size_t k = 0;
	bool more = true;

	if (!open_container(s))
		return false;
	if (s->i < s->n && s->p[s->i] == ']') {
		s->i++;
		s->depth--;
		return true;
	}
	while (more) {
		struct st_value v;

		if (!scan_value(s, &v, it))
			return false;
		if (out && *err == A_OK) {
			if (k >= max)
				*err = A_TOO_MANY;
			else if (v.kind != K_NUMBER || !v.uint_ok)
				*err = A_NOT_UINT;
			else
				out[k++] = v.u;
			*n_out = (uint8_t)k;
		}
		if (!next_member(s, ']', &more))
			return false;
	}
	return true;
}

/* Which entry field a key names, as C code sees the key. */
static enum st_field
field_of(const struct st_str *k)
{
	if (k->len == 5 && memcmp(k->s, "dtype", 5) == 0)
		return F_DTYPE;
	if (k->len == 5 && memcmp(k->s, "shape", 5) == 0)
		return F_SHAPE;
	if (k->len == 12 && memcmp(k->s, "data_offsets", 12) == 0)
		return F_OFFSETS;
	return F_NONE;
}

static bool
push_dims(struct st_scan *s, struct st_item *e, const uint64_t *dims,
	  size_t rank)
{
	if (s->cap_dims - s->n_dims < rank) {
		size_t ncap = s->cap_dims ? s->cap_dims * 2 :
			      s->n / 32 > 1024 ? s->n / 32 : 1024;
		uint64_t *nd;

		if (ncap > SIZE_MAX / sizeof(*nd)) {
			s->no_memory = true;
			return false;
		}
		nd = qa_big_realloc(s->dims, s->cap_dims * sizeof(*nd),
				    ncap * sizeof(*nd));
		if (!nd) {
			s->no_memory = true;
			return false;
		}
		s->dims = nd;
		s->cap_dims = ncap;
	}
	e->dims = (uint32_t)s->n_dims;
	if (rank)
		memcpy(s->dims + s->n_dims, dims, rank * sizeof(*dims));
	s->n_dims += rank;
	return true;
}

/* One member value of a tensor entry, keeping the fields it reads. */
static bool
scan_entry_field(struct st_scan *s, struct st_item *e, const struct st_str *key)
{
	enum st_field f = e->dup_field == F_NONE ? field_of(key) : F_NONE;
	struct st_value v;

	if (f != F_NONE && (e->have & 1u << f)) {
		e->dup_field = (int8_t)f;
		f = F_NONE;
	}
	if (f != F_NONE)
		e->have |= (uint8_t)(1u << f);
	if ((f == F_SHAPE || f == F_OFFSETS) && s->i < s->n &&
	    s->p[s->i] == '[') {
		uint64_t vals[QA_MAX_DIMS];
		uint8_t n = 0, err = A_OK;

		if (f == F_SHAPE) {
			if (!scan_array(s, e, vals, QA_MAX_DIMS, &n, &err))
				return false;
			e->shape_err = err;
			e->rank = n;
			return err != A_OK || push_dims(s, e, vals, n);
		}
		if (!scan_array(s, e, vals, 3, &n, &err))
			return false;
		e->off_err = err;
		e->n_off = n;
		e->off[0] = n > 0 ? vals[0] : 0;
		e->off[1] = n > 1 ? vals[1] : 0;
		return true;
	}
	if (!scan_value(s, &v, e))
		return false;
	if (f == F_SHAPE)
		e->shape_err = A_NOT_ARRAY;
	else if (f == F_OFFSETS)
		e->off_err = A_NOT_ARRAY;
	else if (f == F_DTYPE) {
		e->dtype_string = v.kind == K_STRING;
		e->dtype = v.str;
	}
	return true;
}

/*
 * An object at s->i. With entry (the value of a top-level key other than
 * __metadata__), the first dtype, shape and data_offsets are kept in it,
 * and the first of them seen twice.
 */
static bool
scan_object(struct st_scan *s, struct st_item *it, struct st_item *entry)
{
	bool more = true;

	if (!open_container(s))
		return false;
	if (s->i < s->n && s->p[s->i] == '}') {
		s->i++;
		s->depth--;
		return true;
	}
	while (more) {
		struct st_str key;
		struct st_value v;

		if (s->i >= s->n || s->p[s->i] != '"' || !scan_string(s, &key))
			return false;
		s->nodes++;	/* a nested key counts as a value, as before */
		skip_ws(s);
		if (s->i >= s->n || s->p[s->i] != ':')
			return false;
		s->i++;
		skip_ws(s);
		if (entry) {
			if (!scan_entry_field(s, entry, &key))
				return false;
		} else if (!scan_value(s, &v, it)) {
			return false;
		}
		if (!next_member(s, '}', &more))
			return false;
	}
	return true;
}

/*
 * The fast path. The safetensors library (serde_json, used by the Python
 * package and by transformers' save_pretrained) writes every entry the
 * same way: {"dtype":"BF16","shape":[4096,4096],"data_offsets":[0,33554432]},
 * no whitespace, the three fields in that order, every number a plain
 * integer. scan_entry_canonical reads an entry of exactly that form with
 * memcmp and a digit loop and leaves the scanner and the item as
 * scan_object would have left them (the same offsets, value count, dims
 * and fields); anything else (whitespace, another order, a fourth key, an
 * escape, a number that is not a plain integer <= 2^53, a shape longer
 * than QA_MAX_DIMS) returns ST_FAST_NO with nothing changed, and the
 * general scanner reads the entry. The fuzz target for safetensors runs
 * every input both ways and compares the reports (qa_st_fast_entries).
 */
enum { ST_FAST_NO, ST_FAST_OK, ST_FAST_FAIL };

static bool st_fast_entries = true;

void
qa_st_fast_entries(bool on)
{
	st_fast_entries = on;
}

/* A plain integer <= 2^53 at p[*i] followed by one of the bytes a shape
 * or data_offsets array continues with; false (nothing read) otherwise. */
static bool
canonical_uint(const unsigned char *p, size_t n, size_t *i, uint64_t *out)
{
	size_t j = *i, end;
	uint64_t u = 0;

	if (j >= n || p[j] < '0' || p[j] > '9')
		return false;
	/* 2^53 has 16 digits: with at most 16 the sum cannot wrap */
	end = n - j > 17 ? j + 17 : n;
	for (; j < end && p[j] >= '0' && p[j] <= '9'; j++)
		u = u * 10 + (uint64_t)(p[j] - '0');
	if (j >= n || (p[j] != ',' && p[j] != ']') || j - *i > 16 ||
	    (p[*i] == '0' && j - *i > 1) || u > ST_MAX_INT)
		return false;
	*i = j;
	*out = u;
	return true;
}

static int
scan_entry_canonical(struct st_scan *s, struct st_item *e)
{
	static const char open_dtype[] = "{\"dtype\":\"";
	static const char to_shape[] = "\",\"shape\":[";
	static const char to_offsets[] = ",\"data_offsets\":[";
	const unsigned char *p = s->p;
	size_t n = s->n, i = s->i, dtype_at, dtype_len, rank = 0;
	uint64_t dims[QA_MAX_DIMS], off[2];

	/* the object at this depth, its arrays one deeper (open_container) */
	if (s->depth + 1 >= ST_MAX_DEPTH ||
	    n - i < sizeof(open_dtype) - 1 ||
	    memcmp(p + i, open_dtype, sizeof(open_dtype) - 1) != 0)
		return ST_FAST_NO;
	i += sizeof(open_dtype) - 1;
	dtype_at = i;
	while (i < n && str_plain[p[i]])
		i++;
	if (n - i < sizeof(to_shape) - 1 ||
	    memcmp(p + i, to_shape, sizeof(to_shape) - 1) != 0)
		return ST_FAST_NO;
	dtype_len = i - dtype_at;
	i += sizeof(to_shape) - 1;
	if (i < n && p[i] == ']') {
		i++;
	} else {
		for (;;) {
			if (rank == QA_MAX_DIMS ||
			    !canonical_uint(p, n, &i, &dims[rank]))
				return ST_FAST_NO;
			rank++;
			if (p[i++] == ']')
				break;
		}
	}
	if (n - i < sizeof(to_offsets) - 1 ||
	    memcmp(p + i, to_offsets, sizeof(to_offsets) - 1) != 0)
		return ST_FAST_NO;
	i += sizeof(to_offsets) - 1;
	if (!canonical_uint(p, n, &i, &off[0]) || p[i++] != ',' ||
	    !canonical_uint(p, n, &i, &off[1]) || p[i++] != ']' ||
	    i >= n || p[i++] != '}')
		return ST_FAST_NO;
	if (!push_dims(s, e, dims, rank))
		return ST_FAST_FAIL;
	e->dtype.s = (const char *)p + dtype_at;
	e->dtype.len = (uint32_t)dtype_len;
	e->dtype.nul = false;
	e->dtype_string = true;
	e->have = 1u << F_DTYPE | 1u << F_SHAPE | 1u << F_OFFSETS;
	e->rank = (uint8_t)rank;
	e->n_off = 2;
	e->off[0] = off[0];
	e->off[1] = off[1];
	/* the object, its three keys, the dtype, two arrays and their
	 * elements: what scan_object counts */
	s->nodes += 9 + rank;
	s->i = i;
	return ST_FAST_OK;
}

/* true, false and null: the lexer took the run of [a-z], cJSON wanted
 * exactly the literal. */
static bool
scan_literal(struct st_scan *s)
{
	size_t i = s->i, end = i;

	while (end < s->n && s->p[end] >= 'a' && s->p[end] <= 'z')
		end++;
	if (!((end - i == 4 && (memcmp(s->p + i, "true", 4) == 0 ||
				memcmp(s->p + i, "null", 4) == 0)) ||
	      (end - i == 5 && memcmp(s->p + i, "false", 5) == 0)))
		return false;
	s->i = end;
	return true;
}

/*
 * Any value at s->i. it (may be NULL) collects the first number that is
 * not a plain non-negative integer.
 */
static bool
scan_value(struct st_scan *s, struct st_value *v, struct st_item *it)
{
	unsigned char c;
	size_t at = s->i;

	v->kind = K_OTHER;
	v->plain = v->uint_ok = false;
	v->str.s = NULL;
	v->str.len = 0;
	v->str.nul = false;
	if (s->i >= s->n)
		return false;
	c = s->p[s->i];
	switch (c) {
	case '{':
		v->kind = K_OBJECT;
		return scan_object(s, it, NULL);
	case '[':
		v->kind = K_ARRAY;
		return scan_array(s, it, NULL, 0, NULL, NULL);
	case '"':
		s->nodes++;
		v->kind = K_STRING;
		return scan_string(s, &v->str);
	case 't':
	case 'f':
	case 'n':
		s->nodes++;
		return scan_literal(s);
	default:
		if (c != '-' && (c < '0' || c > '9'))
			return false;
		s->nodes++;
		if (!scan_number(s, v))
			return false;
		if (!v->plain && it && !it->bad_num) {
			it->bad_num = true;
			it->bad_num_off = (uint32_t)at;
		}
		return true;
	}
}

static struct st_item *
add_item(struct st_scan *s)
{
	struct st_item *it;

	if (s->n_items == s->cap_items) {
		/* an entry takes 64 bytes of header or more in practice
		 * (the name, three keys, a dtype, four numbers): sized for
		 * that first, the table is not regrown for a real header */
		size_t ncap = s->cap_items ? s->cap_items * 2 :
			      s->n / 64 > 256 ? s->n / 64 : 256;
		struct st_item *ni;

		if (ncap > SIZE_MAX / sizeof(*ni)) {
			s->no_memory = true;
			return NULL;
		}
		ni = qa_big_realloc(s->items, s->cap_items * sizeof(*ni),
				    ncap * sizeof(*ni));
		if (!ni) {
			s->no_memory = true;
			return NULL;
		}
		s->items = ni;
		s->cap_items = ncap;
	}
	it = &s->items[s->n_items++];
	memset(it, 0, sizeof(*it));
	it->dup_field = F_NONE;
	return it;
}

/*
 * The whole header: one JSON object, nothing after it but whitespace.
 * False when it is not valid (or memory ran out: s->no_memory).
 */
static bool
scan_header(struct st_scan *s)
{
	bool more = true;

	s->decode = true;
	skip_ws(s);
	if (s->i >= s->n || s->p[s->i] != '{' || !open_container(s))
		return false;
	if (s->i < s->n && s->p[s->i] == '}') {
		s->i++;
		s->depth--;
		more = false;
	}
	while (more) {
		struct st_item *it = add_item(s);
		struct st_value v;

		if (!it || s->i >= s->n || s->p[s->i] != '"')
			return false;
		it->key_off = (uint32_t)s->i;
		if (!scan_string(s, &it->name))
			return false;
		it->metadata = it->name.len == 12 &&
			       memcmp(it->name.s, "__metadata__", 12) == 0;
		skip_ws(s);
		if (s->i >= s->n || s->p[s->i] != ':')
			return false;
		s->i++;
		skip_ws(s);
		it->value_off = (uint32_t)s->i;
		it->object = s->i < s->n && s->p[s->i] == '{';
		if (it->metadata) {
			/* read again, decoded, when loaded: decoding each
			 * byte once keeps s->buf within the header's size */
			s->decode = false;
			if (!scan_value(s, &v, NULL))
				return false;
			s->decode = true;
		} else if (it->object) {
			int fast = st_fast_entries ?
				   scan_entry_canonical(s, it) : ST_FAST_NO;

			if (fast == ST_FAST_FAIL ||
			    (fast == ST_FAST_NO && !scan_object(s, it, it)))
				return false;
		} else if (!scan_value(s, &v, it)) {
			return false;
		}
		if (!next_member(s, '}', &more))
			return false;
	}
	skip_ws(s);
	return s->i == s->n;
}

/* ---- from the scan to the inventory ----------------------------------- */

/*
 * Names seen so far, for duplicate keys: the first copy is read, every
 * later one is a finding. An open-addressing set of indices into the
 * caller's strings, sized once for n names.
 */
struct name_set {
	uint32_t *slot;		/* index + 1, 0 when empty */
	size_t mask;
};

/* Keyed (core/hash.h): a header of names crafted to collide costs what
 * any other header of that size costs. */
static uint64_t
name_hash(const char *s, size_t n)
{
	return qa_hash(s, n);
}

static bool
name_set_init(struct name_set *ns, size_t n)
{
	size_t cap = 16;

	while (cap < n * 2) {
		if (cap > SIZE_MAX / 4 / sizeof(*ns->slot))
			return false;
		cap *= 2;
	}
	ns->slot = qa_big_alloc(cap * sizeof(*ns->slot));
	ns->mask = cap - 1;
	return ns->slot != NULL;
}

/* Adds strs[idx]; false when an equal name was added before. */
static bool
name_set_add(struct name_set *ns, const struct st_str *strs, size_t stride,
	     uint32_t idx)
{
	const struct st_str *k = (const struct st_str *)
		((const char *)strs + (size_t)idx * stride);
	size_t h = (size_t)name_hash(k->s, k->len) & ns->mask;

	while (ns->slot[h]) {
		const struct st_str *o = (const struct st_str *)
			((const char *)strs + (size_t)(ns->slot[h] - 1) * stride);

		if (o->len == k->len && memcmp(o->s, k->s, k->len) == 0)
			return false;
		h = (h + 1) & ns->mask;
	}
	ns->slot[h] = idx + 1;
	return true;
}

struct st_entry {
	const char *name;
	uint64_t begin, end;
	uint64_t key_off;	/* absolute file offset of the key */
	uint32_t seq;		/* order in the header: equal ranges keep it */
};

static int
cmp_entry(const void *a, const void *b)
{
	const struct st_entry *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

struct st_ctx {
	struct qa_inventory *inv;
	uint32_t file_index;
	const char *path;
	uint64_t data_start;	/* 8 + N */
	uint64_t file_size;
	struct st_scan *s;
	/* the last dtype looked up: headers repeat one or two */
	const char *last_dtype;
	uint32_t last_dtype_len;
	const struct qa_st_dtype *last_dt;
	char *tmp;		/* a name NUL-terminated for a finding */
	size_t tmp_cap;
};

/* k as a C string in c->tmp (valid until the next call), or NULL when
 * out of memory. */
static const char *
cstr(struct st_ctx *c, const struct st_str *k)
{
	if ((size_t)k->len + 1 > c->tmp_cap) {
		size_t ncap = (size_t)k->len + 1 < 256 ? 256 : (size_t)k->len + 1;
		char *nt = realloc(c->tmp, ncap);

		if (!nt)
			return NULL;
		c->tmp = nt;
		c->tmp_cap = ncap;
	}
	memcpy(c->tmp, k->s, k->len);
	c->tmp[k->len] = '\0';
	return c->tmp;
}

static char *
arena_str(struct qa_inventory *inv, const struct st_str *k)
{
	return qa_arena_strndup(&inv->arena, k->s, k->len);
}

/* A member of __metadata__, as the scan saw it. */
struct md_member {
	struct st_str key;
	struct st_value v;
};

/*
 * __metadata__ (its first copy): string values only, its own keys
 * unique. It is scanned a second time from its offset; a header that got
 * here is valid, so the scan cannot fail but for memory.
 */
static int
load_metadata(struct st_ctx *c, const struct st_item *it)
{
	struct qa_inventory *inv = c->inv;
	struct st_scan *s = c->s;
	int64_t koff = (int64_t)(8 + (uint64_t)it->key_off);
	struct md_member *m = NULL;
	size_t n = 0, cap = 0, i;
	struct name_set ns = { 0 };
	bool more = true;
	int rc = QA_OK;

	if (!it->object) {
		qa_inv_finding(inv, QA1216, c->path, koff, NULL,
			       "__metadata__ is not a JSON object");
		return QA_OK;
	}
	s->i = it->value_off;
	s->depth = 0;
	if (!open_container(s))
		return QA_E_NOMEM;	/* cannot happen: scanned before */
	if (s->p[s->i] == '}')
		more = false;
	while (more) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct md_member *nm;

			if (ncap > SIZE_MAX / sizeof(*nm)) {
				free(m);
				return QA_E_NOMEM;
			}
			nm = realloc(m, ncap * sizeof(*nm));
			if (!nm) {
				free(m);
				return QA_E_NOMEM;
			}
			m = nm;
			cap = ncap;
		}
		if (!scan_string(s, &m[n].key))
			break;
		skip_ws(s);
		s->i++;		/* ':' */
		skip_ws(s);
		if (!scan_value(s, &m[n].v, NULL))
			break;
		n++;
		if (!next_member(s, '}', &more))
			break;
	}
	if (n && !name_set_init(&ns, n)) {
		free(m);
		return QA_E_NOMEM;
	}
	for (i = 0; i < n; i++) {
		struct qa_kv *kv;
		uint64_t len;

		if (!name_set_add(&ns, &m[0].key, sizeof(*m), (uint32_t)i)) {
			qa_inv_finding(inv, QA1208, c->path, koff, NULL,
				       "__metadata__ key \"%.*s\" appears twice",
				       (int)m[i].key.len, m[i].key.s);
			continue;
		}
		if (m[i].v.kind != K_STRING) {
			qa_inv_finding(inv, QA1216, c->path, koff, NULL,
				       "__metadata__ value of \"%.*s\" is not a string",
				       (int)m[i].key.len, m[i].key.s);
			continue;
		}
		kv = qa_inv_add_kv(inv);
		if (!kv) {
			rc = QA_E_NOMEM;
			break;
		}
		len = m[i].v.str.len;
		kv->key = arena_str(inv, &m[i].key);
		kv->value.type = QA_V_STRING;
		kv->value.v.str.s = qa_arena_strndup(
			&inv->arena, m[i].v.str.s,
			len > QA_KV_KEEP_STRING ? (size_t)QA_KV_KEEP_STRING :
						  (size_t)len);
		kv->value.v.str.len = len;
		kv->file = c->file_index;
		kv->offset = (uint64_t)koff;
		if (!kv->key || !kv->value.v.str.s) {
			inv->out_of_memory = true;
			rc = QA_E_NOMEM;
			break;
		}
	}
	qa_big_free(ns.slot, (ns.mask + 1) * sizeof(*ns.slot));
	free(m);
	return rc;
}

static const struct qa_st_dtype *
dtype_of(struct st_ctx *c, const struct st_str *d)
{
	char name[16];

	if (c->last_dtype && d->len == c->last_dtype_len &&
	    memcmp(d->s, c->last_dtype, d->len) == 0)
		return c->last_dt;
	if (d->len >= sizeof(name))
		return NULL;	/* longer than any dtype name */
	memcpy(name, d->s, d->len);
	name[d->len] = '\0';
	c->last_dtype = d->s;
	c->last_dtype_len = d->len;
	c->last_dt = qa_st_dtype(name);
	return c->last_dt;
}

static const char *
array_why(uint8_t err)
{
	switch (err) {
	case A_NOT_ARRAY:
		return "is not an array";
	case A_TOO_MANY:
		return "has too many elements";
	default:
		return "holds a value that is not a non-negative integer <= 2^53";
	}
}

/*
 * Validates one tensor entry, in the order the checks have always run,
 * and adds it to the inventory. Entries with usable offsets are appended
 * to ents for the buffer checks.
 */
static int
load_entry(struct st_ctx *c, const struct st_item *it, struct st_entry *ents,
	   size_t *n_ents)
{
	struct qa_inventory *inv = c->inv;
	int64_t koff = (int64_t)(8 + (uint64_t)it->key_off);
	const char *name;
	const struct qa_st_dtype *dt;
	const uint64_t *dims = c->s->dims ? c->s->dims + it->dims : NULL;
	uint64_t elements = 1, bits = 0, abs_off;
	size_t i;
	bool size_ok = true;
	struct qa_tensor *t;

	name = cstr(c, &it->name);
	if (!name)
		return QA_E_NOMEM;
	if (it->name.nul) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "tensor name contains an escaped NUL (\\u0000): C readers see a truncated name");
		return QA_OK;
	}
	if (it->bad_num) {
		qa_inv_finding(inv, QA1206, c->path,
			       (int64_t)(8 + (uint64_t)it->bad_num_off), name,
			       "number is not a plain non-negative integer (sign, fraction, exponent or leading zero)");
		return QA_OK;
	}
	if (!it->object) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "tensor entry is not a JSON object");
		return QA_OK;
	}
	if (it->dup_field != F_NONE) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "field \"%s\" appears twice",
			       field_name[it->dup_field]);
		return QA_OK;
	}
	if (it->have != 7) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "tensor entry lacks %s",
			       !(it->have & 1u << F_DTYPE) ? "dtype" :
			       !(it->have & 1u << F_SHAPE) ? "shape" :
			       "data_offsets");
		return QA_OK;
	}
	if (!it->dtype_string) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "dtype is not a string");
		return QA_OK;
	}
	if (it->shape_err != A_OK) {
		qa_inv_finding(inv, QA1206, c->path, koff, name, "shape %s%s",
			       array_why(it->shape_err),
			       it->shape_err == A_TOO_MANY ? " (rank above 8)" :
			       "");
		return QA_OK;
	}
	if (it->off_err != A_OK || it->n_off != 2) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "data_offsets %s", it->off_err != A_OK ?
			       array_why(it->off_err) :
			       "does not hold exactly two integers");
		return QA_OK;
	}
	if (it->off[1] < it->off[0]) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "data_offsets END %llu is below BEGIN %llu",
			       (unsigned long long)it->off[1],
			       (unsigned long long)it->off[0]);
		return QA_OK;
	}
	dt = dtype_of(c, &it->dtype);
	if (!dt) {
		qa_inv_finding(inv, QA1207, c->path, koff, name,
			       "unknown dtype \"%.*s\"", (int)it->dtype.len,
			       it->dtype.s);
		size_ok = false;
	}
	/* Left fold with a checked multiply, like the reference: a product
	 * that wraps (even to 0) is caught at the step that overflows. */
	for (i = 0; i < it->rank; i++) {
		if (qa_ckd_mul(&elements, elements, dims[i])) {
			qa_inv_finding(inv, QA1217, c->path, koff, name,
				       "shape product overflows 64 bits");
			size_ok = false;
			elements = 0;
			break;
		}
	}
	if (size_ok && qa_ckd_mul(&bits, elements, dt->bits)) {
		qa_inv_finding(inv, QA1217, c->path, koff, name,
			       "%llu elements of %s overflow 64 bits",
			       (unsigned long long)elements, dt->name);
		size_ok = false;
	}
	if (size_ok && bits % 8 != 0) {
		qa_inv_finding(inv, QA1214, c->path, koff, name,
			       "%llu elements of %u-bit %s do not fill whole bytes",
			       (unsigned long long)elements, dt->bits, dt->name);
		size_ok = false;
	}
	if (size_ok && it->off[1] - it->off[0] != bits / 8)
		qa_inv_finding(inv, QA1209, c->path, koff, name,
			       "data_offsets span %llu bytes, shape and %s need %llu",
			       (unsigned long long)(it->off[1] - it->off[0]),
			       dt->name, (unsigned long long)(bits / 8));

	if (qa_ckd_add(&abs_off, c->data_start, it->off[0]))
		abs_off = UINT64_MAX;
	t = qa_inv_add_tensor(inv);
	if (!t)
		return QA_E_NOMEM;
	t->name = arena_str(inv, &it->name);
	t->dtype = dt ? dt->name : arena_str(inv, &it->dtype);
	if (!t->name || !t->dtype) {
		inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	t->file = c->file_index;
	t->offset = abs_off;
	t->bytes = it->off[1] - it->off[0];
	t->ggml_type = -1;
	t->n_dims = it->rank;
	for (i = 0; i < it->rank; i++)
		t->shape[i] = dims[i];
	t->elements = elements;
	inv->files[c->file_index].tensor_count++;

	ents[*n_ents].name = t->name;
	ents[*n_ents].begin = it->off[0];
	ents[*n_ents].end = it->off[1];
	ents[*n_ents].key_off = (uint64_t)koff;
	ents[*n_ents].seq = (uint32_t)*n_ents;
	(*n_ents)++;
	return QA_OK;
}

/* Sorted by offset the entries must tile [0, buffer) exactly. */
static void
check_buffer(struct st_ctx *c, struct st_entry *ents, size_t n)
{
	struct qa_inventory *inv = c->inv;
	uint64_t cursor = 0, buffer = c->file_size - c->data_start;
	bool past_eof = false, sorted = true;
	size_t i;

	for (i = 1; i < n && sorted; i++)
		sorted = cmp_entry(&ents[i - 1], &ents[i]) < 0;
	if (!sorted)
		qsort(ents, n, sizeof(*ents), cmp_entry);
	for (i = 0; i < n; i++) {
		const struct st_entry *e = &ents[i];

		if (e->begin > cursor)
			qa_inv_finding(inv, QA1210, c->path,
				       (int64_t)e->key_off, e->name,
				       "%llu unindexed bytes before this tensor (buffer offset %llu, expected %llu)",
				       (unsigned long long)(e->begin - cursor),
				       (unsigned long long)e->begin,
				       (unsigned long long)cursor);
		else if (e->begin < cursor && e->end > e->begin)
			qa_inv_finding(inv, QA1211, c->path,
				       (int64_t)e->key_off, e->name,
				       "tensor starts at buffer offset %llu, inside the previous tensor (which ends at %llu)",
				       (unsigned long long)e->begin,
				       (unsigned long long)cursor);
		if (e->end > cursor)
			cursor = e->end;
		if (e->end > buffer) {
			past_eof = true;
			qa_inv_finding(inv, QA1212, c->path,
				       (int64_t)e->key_off, e->name,
				       "tensor ends at buffer offset %llu, the buffer holds %llu bytes",
				       (unsigned long long)e->end,
				       (unsigned long long)buffer);
		}
	}
	if (!past_eof && cursor < buffer)
		qa_inv_finding(inv, QA1213, c->path,
			       (int64_t)(c->data_start + cursor), NULL,
			       "%llu bytes follow the last tensor",
			       (unsigned long long)(buffer - cursor));
}

/* A header the scanner refused: the first error the lexical pass names,
 * else the value bound, else a grammar error. */
static void
refused_header(struct st_ctx *c, const char *hdr, size_t n)
{
	struct qa_inventory *inv = c->inv;
	struct st_lex lx;

	memset(&lx, 0, sizeof(lx));
	lex_header((const unsigned char *)hdr, n, &lx);
	if (lx.err) {
		qa_inv_finding(inv, lx.utf8_err ? QA1204 : QA1205, c->path,
			       (int64_t)(8 + lx.err_off), NULL,
			       "%s at header byte %llu", lx.err,
			       (unsigned long long)lx.err_off);
		return;
	}
	if (lx.nodes > ST_MAX_NODES) {
		qa_inv_finding(inv, QA1901, c->path, 8, NULL,
			       "header has %llu JSON values, more than the %llu quantaudit parses",
			       (unsigned long long)lx.nodes,
			       (unsigned long long)ST_MAX_NODES);
		return;
	}
	if (n > 0 && hdr[0] != '{')
		qa_inv_finding(inv, QA1215, c->path, 8, NULL,
			       "header starts with whitespace before '{'");
	qa_inv_finding(inv, QA1205, c->path, 8, NULL,
		       "header does not parse as a JSON object (invalid JSON or string escape)");
}

static int
parse_header(struct st_ctx *c, const char *hdr, size_t n)
{
	struct qa_inventory *inv = c->inv;
	struct st_scan *s = c->s;
	struct st_entry *ents = NULL;
	struct name_set ns = { 0 };
	size_t n_ents = 0, i, ents_bytes = 0;
	int rc = QA_OK;

	s->p = (const unsigned char *)hdr;
	s->n = n;
	/* decoded strings never outgrow their escapes: one buffer the size
	 * of the header holds them all */
	if (memchr(hdr, '\\', n)) {
		s->buf = malloc(n);
		if (!s->buf)
			return QA_E_NOMEM;
	}
	if (!scan_header(s)) {
		if (s->no_memory)
			return QA_E_NOMEM;
		refused_header(c, hdr, n);
		return QA_OK;
	}
	if (s->nodes > ST_MAX_NODES) {
		qa_inv_finding(inv, QA1901, c->path, 8, NULL,
			       "header has %llu JSON values, more than the %llu quantaudit parses",
			       (unsigned long long)s->nodes,
			       (unsigned long long)ST_MAX_NODES);
		return QA_OK;
	}
	if (n > 0 && hdr[0] != '{')
		qa_inv_finding(inv, QA1215, c->path, 8, NULL,
			       "header starts with whitespace before '{'");
	ents_bytes = (s->n_items ? s->n_items : 1) * sizeof(*ents);
	ents = qa_big_alloc(ents_bytes);
	if (!ents || (s->n_items && !name_set_init(&ns, s->n_items))) {
		rc = QA_E_NOMEM;
		goto out;
	}
	/* Room for every entry at once: the tensor table is not regrown
	 * (and copied) log n times. A failure is met again, and reported,
	 * where the tensors are added. */
	if (!qa_inv_reserve(inv, s->n_items, 0))
		inv->out_of_memory = false;
	for (i = 0; i < s->n_items; i++) {
		const struct st_item *it = &s->items[i];

		if (!name_set_add(&ns, &s->items[0].name, sizeof(*it),
				  (uint32_t)i)) {
			const char *name = it->metadata ? NULL :
					   cstr(c, &it->name);

			if (!it->metadata && !name) {
				rc = QA_E_NOMEM;
				goto out;
			}
			qa_inv_finding(inv, QA1208, c->path,
				       (int64_t)(8 + (uint64_t)it->key_off),
				       name,
				       "key \"%.*s\" appears more than once; the reference reader keeps the last, others the first",
				       (int)it->name.len, it->name.s);
			continue;
		}
		if (it->metadata)
			rc = load_metadata(c, it);
		else
			rc = load_entry(c, it, ents, &n_ents);
		if (rc != QA_OK)
			goto out;
	}
	check_buffer(c, ents, n_ents);
out:
	qa_big_free(ns.slot, (ns.mask + 1) * sizeof(*ns.slot));
	qa_big_free(ents, ents_bytes);
	return rc;
}

int
qa_st_load_file(struct qa_inventory *inv, uint32_t file_index, struct qa_source *src)
{
	struct qa_file *f = &inv->files[file_index];
	const char *path = f->path;
	unsigned char len8[8];
	struct st_scan sc;
	struct st_ctx c;
	uint64_t n = 0, hend;
	uint32_t first;
	char *hdr;
	int rc, i;

	f->format = "safetensors";
	f->bytes = src->size;
	if (src->size < 8) {
		qa_inv_finding(inv, QA1201, path, 0, NULL,
			       "file has %llu bytes, fewer than the 8-byte header length",
			       (unsigned long long)src->size);
		return QA_OK;
	}
	rc = qa_source_read(src, 0, len8, sizeof(len8));
	if (rc != QA_OK)
		return rc == QA_E_SHORT ? QA_E_IO : rc;
	for (i = 7; i >= 0; i--)
		n = n << 8 | len8[i];
	if (n > ST_MAX_HEADER) {
		qa_inv_finding(inv, QA1202, path, 0, NULL,
			       "header length %llu exceeds 100,000,000",
			       (unsigned long long)n);
		return QA_OK;
	}
	if (qa_ckd_add(&hend, 8, n) || hend > src->size) {
		qa_inv_finding(inv, QA1203, path, 0, NULL,
			       "header length %llu needs %llu bytes, the file has %llu",
			       (unsigned long long)n,
			       (unsigned long long)(8 + n),
			       (unsigned long long)src->size);
		return QA_OK;
	}
	f->header_bytes = hend;
	f->data_offset = hend;
	hdr = qa_big_alloc((size_t)n + 1);
	if (!hdr)
		return QA_E_NOMEM;
	rc = qa_source_read(src, 8, hdr, (size_t)n);
	if (rc != QA_OK) {
		qa_big_free(hdr, (size_t)n + 1);
		return rc == QA_E_SHORT ? QA_E_IO : rc;
	}
	hdr[n] = '\0';
	memset(&sc, 0, sizeof(sc));
	memset(&c, 0, sizeof(c));
	c.inv = inv;
	c.file_index = file_index;
	c.path = path;
	c.data_start = hend;
	c.file_size = src->size;
	c.s = &sc;
	first = inv->n_tensors;
	rc = parse_header(&c, hdr, (size_t)n);
	if (rc == QA_OK)
		rc = qa_st_read_small_values(inv, first, src);
	qa_big_free(sc.items, sc.cap_items * sizeof(*sc.items));
	qa_big_free(sc.dims, sc.cap_dims * sizeof(*sc.dims));
	free(sc.buf);
	free(c.tmp);
	qa_big_free(hdr, (size_t)n + 1);
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	return rc;
}

/*
 * A safetensors file starts with a little-endian length and a JSON object
 * (possibly after whitespace). A length that does not fit the file still
 * means safetensors (truncated); only the '{' decides.
 */
int
qa_st_probe(const uint8_t *buf, size_t len, uint64_t file_size)
{
	uint64_t n = 0;
	size_t i;
	int k;

	if (len < 9)
		return 0;
	for (k = 7; k >= 0; k--)
		n = n << 8 | buf[k];
	if (n < 2)
		return 0;
	for (i = 8; i < len && is_ws(buf[i]); i++)
		;
	if (i >= len || buf[i] != '{')
		return 0;
	if (file_size >= 8 && n <= ST_MAX_HEADER && n <= file_size - 8)
		return 90;
	return 50;
}
