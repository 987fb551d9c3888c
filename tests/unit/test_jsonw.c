/* SPDX-License-Identifier: MIT */
/*
 * The buffered JSON writer (core/jsonw.c) and the run scanners it copies
 * text with (core/escape.c), issue 12:
 *
 *   runs      qa_esc_json_run / qa_esc_text_run stop exactly where the
 *             classifier (qa_esc_next) wants an escape, and never read
 *             past the NUL (checked under ASan with exact-size copies);
 *   numbers   integers written by hand and doubles keep printf's
 *             spelling: each expected string below is what C's printf
 *             gives for that format (IEEE 754 double facts: 0.1 is
 *             0.1000000000000000055511151231257827, the float 0.1f is
 *             0.100000001490116119384765625);
 *   layout    two-space indentation, one-line containers, separators;
 *   buffer    a document many times the buffer, with escapes on every
 *             buffer boundary, comes out byte for byte as built here
 *             independently; a string longer than the buffer too;
 *   errors    a write that fails (/dev/full) is reported by
 *             qa_jw_finish;
 *   spans     the XML and Markdown spellings, which copy plain spans.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/jsonw.h"

/* The run of s copied to the heap at its exact size, so that ASan
 * catches a read past the NUL. */
static size_t
run_of(const char *s, bool json)
{
	size_t n = strlen(s) + 1, r;
	char *copy = malloc(n);

	if (!copy)
		return (size_t)-1;
	memcpy(copy, s, n);
	r = json ? qa_esc_json_run(copy) : qa_esc_text_run(copy);
	free(copy);
	return r;
}

static void
test_runs(void)
{
	char esc[QA_ESC_SPELL_MAX];
	size_t len, n;

	th_case = "runs";
	CHECK_EQ(run_of("", true), 0);
	CHECK_EQ(run_of("blk.0.attn_q.weight", true), 19);
	CHECK_EQ(run_of("abc\"d", true), 3);		/* JSON escapes " */
	CHECK_EQ(run_of("abc\"d", false), 5);		/* text keeps it */
	CHECK_EQ(run_of("ab\\c", true), 2);
	CHECK_EQ(run_of("ab\\c", false), 4);
	CHECK_EQ(run_of("a:b#c", true), 5);		/* lone : and # */
	CHECK_EQ(run_of("a::b", true), 1);		/* first half of :: */
	CHECK_EQ(run_of("abcdefg::", false), 7);
	CHECK_EQ(run_of("abcdefgh:", false), 9);	/* : before the NUL */
	CHECK_EQ(run_of("abcdefgh#", true), 9);
	CHECK_EQ(run_of("x##[", false), 1);
	CHECK_EQ(run_of("tab\there", false), 3);
	CHECK_EQ(run_of("del\x7f", true), 3);
	/* é (2 bytes) kept, U+202E (3 bytes) escaped */
	CHECK_EQ(run_of("\xc3\xa9\xe2\x80\xaex", true), 2);
	CHECK_EQ(run_of("\xc3\xa9\xe2\x80\xa6", true), 5);	/* … kept */
	CHECK_EQ(run_of("x\xff", false), 1);		/* invalid byte */
	CHECK_EQ(run_of("\xc2\x9b", false), 0);		/* C1 CSI */

	n = qa_esc_json_spell("\xe2\x80\xaex", esc, &len);
	CHECK(n == 6 && len == 3 && memcmp(esc, "\\u202e", 6) == 0);
	n = qa_esc_json_spell("\"", esc, &len);
	CHECK(n == 2 && len == 1 && memcmp(esc, "\\\"", 2) == 0);
	n = qa_esc_json_spell("\n", esc, &len);
	CHECK(n == 2 && len == 1 && memcmp(esc, "\\n", 2) == 0);
	n = qa_esc_json_spell("\x1b", esc, &len);
	CHECK(n == 6 && len == 1 && memcmp(esc, "\\u001b", 6) == 0);
	n = qa_esc_json_spell("\xff", esc, &len);
	CHECK(n == 3 && len == 1 && memcmp(esc, "\xef\xbf\xbd", 3) == 0);
	n = qa_esc_json_spell("::", esc, &len);
	CHECK(n == 6 && len == 1 && memcmp(esc, "\\u003a", 6) == 0);
	n = qa_esc_text_spell("##", esc, &len);
	CHECK(n == 4 && len == 1 && memcmp(esc, "\\x23", 4) == 0);
	n = qa_esc_text_spell("\xc2\x85", esc, &len);
	CHECK(n == 6 && len == 2 && memcmp(esc, "\\u0085", 6) == 0);

	CHECK(qa_esc_clean("a:b #1 \xc3\xa9"));
	CHECK(!qa_esc_clean("a:b ##1"));
	CHECK(!qa_esc_clean("ok\xe2\x81\xa9"));	/* PDI */
}

/* What the writer produced: the document in a memory stream. */
struct doc {
	FILE *f;
	char *buf;
	size_t len;
	struct qa_jw *w;
};

static bool
doc_open(struct doc *d)
{
	memset(d, 0, sizeof(*d));
	d->w = malloc(sizeof(*d->w));
	d->f = open_memstream(&d->buf, &d->len);
	if (!d->w || !d->f)
		return false;
	qa_jw_init(d->w, d->f);
	return true;
}

/* Finishes the document; its text (the caller frees it). */
static char *
doc_close(struct doc *d)
{
	CHECK_EQ(qa_jw_finish(d->w), 0);
	fclose(d->f);
	free(d->w);
	return d->buf;
}

static void
test_numbers(void)
{
	static const struct {
		double v;
		enum qa_jw_dbl fmt;
		const char *want;
	} dbl[] = {
		{ 0.0, QA_JW_F64, "0" },
		{ -0.0, QA_JW_F64, "-0" },
		{ -0.0, QA_JW_F32, "-0" },
		{ -0.0, QA_JW_BPW, "-0.0000" },
		{ 5.0, QA_JW_BPW, "5.0000" },
		{ 4.5, QA_JW_BPW, "4.5000" },
		{ 4.85, QA_JW_BPW, "4.8500" },
		{ -3.0, QA_JW_BPW, "-3.0000" },
		{ 0.1, QA_JW_F64, "0.10000000000000001" },
		{ (double)0.1f, QA_JW_F32, "0.100000001" },
		{ (double)1e-6f, QA_JW_F32, "9.99999997e-07" },
		{ 1e-6, QA_JW_F32, "1e-06" },
		{ 10000000.0, QA_JW_F32, "10000000" },
		{ 999999999.0, QA_JW_F32, "999999999" },
		{ 1e9, QA_JW_F32, "1e+09" },	/* %.9g switches to e */
		{ -1e9, QA_JW_F32, "-1e+09" },
		{ 1e16, QA_JW_F64, "10000000000000000" },
		{ 99999999999999984.0, QA_JW_F64, "99999999999999984" },
		{ 1e17, QA_JW_F64, "1e+17" },
		{ 262144.0, QA_JW_F64, "262144" },
		{ 1e300, QA_JW_F64, "1.0000000000000001e+300" },
		{ NAN, QA_JW_F64, "null" },
		{ INFINITY, QA_JW_F32, "null" },
		{ -INFINITY, QA_JW_BPW, "null" },
	};
	struct doc d;
	char *got, want[2048];
	size_t i, o = 0;

	th_case = "numbers";
	if (!doc_open(&d)) {
		FAIL("no memory stream");
		return;
	}
	qa_jw_arr(d.w, NULL, true);
	qa_jw_u64(d.w, NULL, 0);
	qa_jw_u64(d.w, NULL, 18446744073709551615u);
	qa_jw_i64(d.w, NULL, INT64_MIN);
	qa_jw_i64(d.w, NULL, INT64_MAX);
	qa_jw_i64(d.w, NULL, -1);
	qa_jw_u64(d.w, NULL, 1000000);
	for (i = 0; i < sizeof(dbl) / sizeof(dbl[0]); i++)
		qa_jw_double(d.w, NULL, dbl[i].v, dbl[i].fmt);
	qa_jw_close(d.w, ']');
	got = doc_close(&d);

	o += (size_t)snprintf(want + o, sizeof(want) - o, "[0, "
			      "18446744073709551615, -9223372036854775808, "
			      "9223372036854775807, -1, 1000000");
	for (i = 0; i < sizeof(dbl) / sizeof(dbl[0]); i++)
		o += (size_t)snprintf(want + o, sizeof(want) - o, ", %s",
				      dbl[i].want);
	snprintf(want + o, sizeof(want) - o, "]");
	CHECK_STR(got, want);
	free(got);
}

static void
test_layout(void)
{
	struct doc d;
	char *got;

	th_case = "layout";
	if (!doc_open(&d)) {
		FAIL("no memory stream");
		return;
	}
	qa_jw_obj(d.w, NULL);
	qa_jw_str(d.w, "name", "blk.0::x");
	qa_jw_str(d.w, "none", NULL);
	qa_jw_arr(d.w, "shape", true);
	qa_jw_u64(d.w, NULL, 4096);
	qa_jw_u64(d.w, NULL, 11008);
	qa_jw_close(d.w, ']');
	qa_jw_arr(d.w, "empty", false);
	qa_jw_close(d.w, ']');
	qa_jw_obj(d.w, "k\"ey\n");
	qa_jw_bool(d.w, "mtp", true);
	qa_jw_arr(d.w, "list", false);
	qa_jw_obj(d.w, NULL);
	qa_jw_null(d.w, "layer");
	qa_jw_close(d.w, '}');
	qa_jw_close(d.w, ']');
	qa_jw_close(d.w, '}');
	qa_jw_close(d.w, '}');
	qa_jw_raw(d.w, "\n", 1);
	got = doc_close(&d);
	CHECK_STR(got,
		  "{\n"
		  "  \"name\": \"blk.0\\u003a:x\",\n"
		  "  \"none\": null,\n"
		  "  \"shape\": [4096, 11008],\n"
		  "  \"empty\": [],\n"
		  "  \"k\\\"ey\\n\": {\n"
		  "    \"mtp\": true,\n"
		  "    \"list\": [\n"
		  "      {\n"
		  "        \"layer\": null\n"
		  "      }\n"
		  "    ]\n"
		  "  }\n"
		  "}\n");
	free(got);
}

/* 'a' * n with "::" at every position p where p % 997 == 3 and an ESC
 * where p % 4093 == 7; want gets its JSON spelling (quotes included). */
static void
hostile_text(char *s, size_t n, char *want, size_t *want_len)
{
	size_t i, o = 0;

	want[o++] = '"';
	for (i = 0; i < n; i++) {
		if (i % 997 == 3 && i + 1 < n) {
			s[i] = s[i + 1] = ':';
			memcpy(want + o, "\\u003a:", 7);
			o += 7;
			i++;
		} else if (i % 4093 == 7) {
			s[i] = '\x1b';
			memcpy(want + o, "\\u001b", 6);
			o += 6;
		} else {
			s[i] = 'a';
			want[o++] = 'a';
		}
	}
	s[n] = '\0';
	want[o++] = '"';
	want[o] = '\0';
	*want_len = o;
}

/* The row writers with literal keys (issue 12) write what the generic
 * ones write; a string is only copied unscanned when qa_jw_plain_len
 * says it may be. */
/*
 * The plain test a word at a time (qa_jw_plain_len) against the rule it
 * implements, stated byte by byte: printable ASCII but '"', '#', ':' and
 * '\\'. Every byte value at every position of strings of 1 to 24 bytes,
 * so each lane of each word and the byte-wise tail are covered.
 */
static void
test_plain_every_byte(void)
{
	char buf[32];
	size_t len, at, wrong = 0;
	unsigned b;

	th_case = "plain, every byte";
	for (len = 1; len <= 24; len++)
		for (at = 0; at < len; at++)
			for (b = 1; b < 256; b++) {
				bool plain = b >= 0x20 && b < 0x7f && b != '"' &&
					     b != '#' && b != ':' && b != '\\';
				size_t want = plain ? len : SIZE_MAX;

				memset(buf, 'a', len);
				buf[len] = '\0';
				buf[at] = (char)b;
				if (qa_jw_plain_len(buf) != want)
					wrong++;
			}
	CHECK_EQ(wrong, 0);
}

/* Integers at every power of ten and either side of it, against
 * printf's %llu (the digit count is worked four digits at a time). */
static void
test_u64_digits(void)
{
	char got[32], want[32];
	uint64_t p = 1;
	size_t wrong = 0;
	int k, d;

	th_case = "u64 digits";
	for (k = 0; k < 20; k++, p *= 10)
		for (d = -1; d <= 1; d++) {
			uint64_t v = p + (uint64_t)(int64_t)d;

			*qa_jw_put_u64(got, v) = '\0';
			snprintf(want, sizeof(want), "%llu",
				 (unsigned long long)v);
			if (strcmp(got, want) != 0)
				wrong++;
		}
	*qa_jw_put_u64(got, UINT64_MAX) = '\0';
	CHECK_STR(got, "18446744073709551615");
	CHECK_EQ(wrong, 0);
}

static void
test_literal_keys(void)
{
	struct doc d;
	const char *path = "/m/model-00001-of-00002.safetensors";
	char *got;

	th_case = "literal keys";
	CHECK_EQ(qa_jw_plain_len("blk.0.attn_q.weight"), 19);
	CHECK_EQ(qa_jw_plain_len(""), 0);
	CHECK_EQ(qa_jw_plain_len(path), strlen(path));
	CHECK_EQ(qa_jw_plain_len("a\"b"), SIZE_MAX);
	CHECK_EQ(qa_jw_plain_len("a\\b"), SIZE_MAX);
	CHECK_EQ(qa_jw_plain_len("gguf:Q4_K"), SIZE_MAX);	/* ':' */
	CHECK_EQ(qa_jw_plain_len("##x"), SIZE_MAX);
	CHECK_EQ(qa_jw_plain_len("tab\tx"), SIZE_MAX);
	CHECK_EQ(qa_jw_plain_len("del\x7f"), SIZE_MAX);
	CHECK_EQ(qa_jw_plain_len("caf\xc3\xa9"), SIZE_MAX);
	if (!doc_open(&d)) {
		FAIL("no memory stream");
		return;
	}
	qa_jw_arr(d.w, "tensors", false);
	qa_jw_obj(d.w, NULL);
	qa_jw_str_k(d.w, QA_JW_K("name"), "blk.0::x");
	qa_jw_str_plain_k(d.w, QA_JW_K("file"), path, strlen(path));
	qa_jw_u64_k(d.w, QA_JW_K("offset"), 18446744073709551615u);
	qa_jw_i64_k(d.w, QA_JW_K("layer"), -9223372036854775807 - 1);
	qa_jw_arr_k(d.w, QA_JW_K("shape"), true);
	qa_jw_u64(d.w, NULL, 0);
	qa_jw_u64(d.w, NULL, 10);
	qa_jw_close(d.w, ']');
	qa_jw_str_k(d.w, QA_JW_K("dtype"), NULL);
	qa_jw_close(d.w, '}');
	qa_jw_close(d.w, ']');
	got = doc_close(&d);
	CHECK_STR(got,
		  "\"tensors\": [\n"
		  "  {\n"
		  "    \"name\": \"blk.0\\u003a:x\",\n"
		  "    \"file\": \"/m/model-00001-of-00002.safetensors\",\n"
		  "    \"offset\": 18446744073709551615,\n"
		  "    \"layer\": -9223372036854775808,\n"
		  "    \"shape\": [0, 10],\n"
		  "    \"dtype\": null\n"
		  "  }\n"
		  "]");
	free(got);
}

/* One row both ways: field by field, and in one piece. */
static void
row_both(struct doc *fields, struct doc *rows, uint64_t n, int64_t layer,
	 const uint64_t *shape, size_t dims, bool mtp)
{
	struct qa_jw_row r;
	char name[64];
	size_t d;

	snprintf(name, sizeof(name), "blk.%llu.attn_q.weight",
		 (unsigned long long)n);
	qa_jw_obj(fields->w, NULL);
	qa_jw_str_k(fields->w, QA_JW_K("name"), name);
	qa_jw_u64_k(fields->w, QA_JW_K("offset"), n * 1000003u);
	qa_jw_arr_k(fields->w, QA_JW_K("shape"), true);
	for (d = 0; d < dims; d++)
		qa_jw_u64(fields->w, NULL, shape[d]);
	qa_jw_close(fields->w, ']');
	qa_jw_i64_k(fields->w, QA_JW_K("layer"), layer);
	if (mtp)
		qa_jw_bool_k(fields->w, QA_JW_K("mtp"), true);
	else
		qa_jw_null_k(fields->w, QA_JW_K("claimed"));
	qa_jw_close(fields->w, '}');

	CHECK(qa_jw_row_begin(rows->w, &r, 4096));
	qa_jw_row_str(&r, QA_JW_K("name"), name, strlen(name));
	qa_jw_row_u64(&r, QA_JW_K("offset"), n * 1000003u);
	qa_jw_row_u64s(&r, QA_JW_K("shape"), shape, dims);
	qa_jw_row_i64(&r, QA_JW_K("layer"), layer);
	if (mtp)
		qa_jw_row_raw(&r, QA_JW_K("mtp"), "true", 4);
	else
		qa_jw_row_raw(&r, QA_JW_K("claimed"), "null", 4);
	qa_jw_row_end(&r);
}

/* The row writer (one piece) against the field writer, byte for byte:
 * numbers of every length (0, 9, 10, 99, 100, ..., 2^64-1), negative
 * layers, no dims and eight, nested depths, and 40,000 rows so that
 * rows straddle the buffer's flushes. */
static void
test_rows(void)
{
	static const uint64_t shapes[][8] = {
		{ 0 }, { 9, 10 }, { 99, 100, 101 },
		{ 18446744073709551615u, 1, 2, 3, 4, 5, 6, 7 },
	};
	static const size_t dims[] = { 0, 2, 3, 8 };
	struct doc a, b;
	char *ga, *gb;
	uint64_t i;
	int depth;

	th_case = "rows";
	for (depth = 0; depth < 3; depth++) {
		int k;

		if (!doc_open(&a) || !doc_open(&b)) {
			FAIL("no memory stream");
			return;
		}
		for (k = 0; k < depth; k++) {
			qa_jw_obj(a.w, NULL);
			qa_jw_obj(b.w, NULL);
		}
		qa_jw_arr(a.w, k ? "rows" : NULL, false);
		qa_jw_arr(b.w, k ? "rows" : NULL, false);
		for (i = 0; i < 40000; i++)
			row_both(&a, &b, i * 7919 % 100000000000u,
				 i % 5 == 0 ? -1 : (int64_t)(i % 97),
				 shapes[i % 4], dims[i % 4], i % 3 == 0);
		for (k = 0; k <= depth; k++) {
			qa_jw_close(a.w, k ? '}' : ']');
			qa_jw_close(b.w, k ? '}' : ']');
		}
		ga = doc_close(&a);
		gb = doc_close(&b);
		CHECKF(ga && gb && strcmp(ga, gb) == 0,
		       "depth %d: the row writer differs from the field writer",
		       depth);
		free(ga);
		free(gb);
	}
	/* too large for one piece: refused, nothing written */
	if (doc_open(&a)) {
		struct qa_jw_row r;

		qa_jw_arr(a.w, NULL, false);
		CHECK(!qa_jw_row_begin(a.w, &r, QA_JW_ROW_MAX + 1));
		qa_jw_close(a.w, ']');
		ga = doc_close(&a);
		CHECK_STR(ga, "[]");
		free(ga);
	}
}

static void
test_buffer(void)
{
	const size_t n_items = 50000, big = 3 * QA_JW_BUF_SIZE + 17;
	char *s = malloc(big + 1), *want = malloc(7 * big + 64), *got;
	char *list = malloc(n_items * 24 + 16);
	size_t i, o = 0, want_len;
	struct doc d;

	th_case = "buffer";
	if (!s || !want || !list || !doc_open(&d)) {
		FAIL("out of memory");
		free(s);
		free(want);
		free(list);
		return;
	}
	/* 50,000 numbers on one line: about 6 buffers of output. */
	qa_jw_arr(d.w, NULL, true);
	for (i = 0; i < n_items; i++)
		qa_jw_u64(d.w, NULL, (uint64_t)i * 1000003u);
	qa_jw_close(d.w, ']');
	got = doc_close(&d);
	o = (size_t)sprintf(list, "[");
	for (i = 0; i < n_items; i++)
		o += (size_t)sprintf(list + o, "%s%llu", i ? ", " : "",
				     (unsigned long long)i * 1000003u);
	sprintf(list + o, "]");
	CHECK_STR(got, list);
	free(got);

	/* One string three buffers long, escapes on every boundary. */
	hostile_text(s, big, want, &want_len);
	if (!doc_open(&d)) {
		FAIL("no memory stream");
	} else {
		qa_jw_u64(d.w, NULL, 7);	/* not at the buffer start */
		qa_jw_str(d.w, NULL, s);
		got = doc_close(&d);
		CHECK(got && d.len == want_len + 1 && got[0] == '7' &&
		      memcmp(got + 1, want, want_len) == 0);
		free(got);
	}
	free(s);
	free(want);
	free(list);
}

static void
test_errors(void)
{
	FILE *f = fopen("/dev/full", "w");
	struct qa_jw *w = malloc(sizeof(*w));
	size_t i;

	th_case = "errors";
	if (!f || !w) {
		if (f)
			fclose(f);
		free(w);
		return;		/* no /dev/full here: nothing to check */
	}
	qa_jw_init(w, f);
	qa_jw_arr(w, NULL, false);
	for (i = 0; i < 40000; i++)
		qa_jw_str(w, NULL, "a string that fills the buffer");
	qa_jw_close(w, ']');
	CHECK(w->failed);
	CHECK_EQ(qa_jw_finish(w), -1);
	fclose(f);
	free(w);
}

/* The XML and Markdown spellings, which now copy plain spans at once:
 * each character class once, against the spelling worked by hand from
 * core/escape.h's table. */
static void
test_other_spellings(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	th_case = "xml, markdown";
	f = open_memstream(&buf, &len);
	if (!f) {
		FAIL("no memory stream");
		return;
	}
	qa_esc_xml(f, "a<b>&c'd\"e::f##g\\h\x1bi\tj\xef\xbf\xbek", true);
	fputc('|', f);
	qa_esc_xml(f, "a<b>&c'd\"e::f", false);
	fputc('|', f);
	qa_esc_markdown(f, "#a&b|c*d::e#f");
	fputc('|', f);
	qa_esc_markdown(f, "plain text, no markup");
	fclose(f);
	CHECK_STR(buf, "a&lt;b&gt;&amp;c&apos;d&quot;e&#58;:f&#35;#g\\h"
		  "\xef\xbf\xbdi&#9;j\xef\xbf\xbdk"
		  "|a&lt;b&gt;&amp;c'd\"e&#58;:f"
		  "|\\#a&amp;b\\|c\\*d\\\\x3a:e#f"
		  "|plain text, no markup");
	free(buf);
}

int
main(void)
{
	test_runs();
	test_other_spellings();
	test_numbers();
	test_layout();
	test_literal_keys();
	test_plain_every_byte();
	test_u64_digits();
	test_rows();
	test_buffer();
	test_errors();
	return th_done("jsonw");
}
