/* SPDX-License-Identifier: MIT */
/*
 * src/remote/parse.c against what servers send: the Link header as the
 * Hugging Face API pages a tree listing (RFC 8288 examples, the relation
 * quoted or bare, last or not), header lines as curl hands them over
 * (with "\r\n"), the hub's listing entries as `HfApi.list_repo_tree`
 * receives them (an LFS weights file's size is under "lfs"), sizes no
 * file has, and cache files as remote.c writes them, whole, cut and
 * edited.
 */
#include "harness.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "remote/parse.h"

static void
link_next(const char *value, size_t cap, const char *want)
{
	char out[512];

	memset(out, 'x', sizeof(out));
	qa_http_link_next(value, strlen(value), out, cap);
	th_case = value;
	CHECK_STR(out, want);
	th_case = NULL;
}

static void
test_link(void)
{
	/* the hub's paging, one link */
	link_next("<https://huggingface.co/api/models/org/r/tree/main?"
		  "cursor=ZXlK>; rel=\"next\"", 512,
		  "https://huggingface.co/api/models/org/r/tree/main?"
		  "cursor=ZXlK");
	/* RFC 8288 section 3.5's form: several links, the next one second */
	link_next("<https://x/p1>; rel=\"prev\", <https://x/p3>; rel=\"next\"",
		  512, "https://x/p3");
	/* the relation unquoted, last in the value (was missed: the search
	 * for the 8 bytes of rel=next stopped 10 bytes from the end) */
	link_next("<https://x/p3>; rel=next", 512, "https://x/p3");
	link_next("<https://x/p3>;rel=next;title=\"3\"", 512, "https://x/p3");
	/* any case */
	link_next("<https://x/p3>; REL=\"Next\"", 512, "https://x/p3");
	/* not next */
	link_next("<https://x/p1>; rel=\"prev\"", 512, "");
	link_next("<https://x/p1>; rel=nextpage", 512, "");
	link_next("<https://x/p1>; rel=", 512, "");
	link_next("<https://x/p1", 512, "");
	link_next("", 512, "");
	/* a URL has no blank or control byte: such a target is none */
	link_next("<https://x/p 3>; rel=\"next\"", 512, "");
	link_next("<https://x/\tp3>; rel=\"next\"", 512, "");
	/* a target that does not fit is none */
	link_next("<https://x/p3>; rel=\"next\"", 12, "");
	link_next("<https://x/p3>; rel=\"next\"", 13, "https://x/p3");
}

static void
test_headers(void)
{
	const char *v;
	size_t n;
	uint64_t x = 7;

	CHECK(qa_http_header_is("Content-Length: 123\r\n", 21,
				"content-length", &v, &n));
	CHECK_EQ(n, 3);
	CHECK(memcmp(v, "123", 3) == 0);
	CHECK(qa_http_parse_u64(v, n, &x));
	CHECK_EQ(x, 123);
	/* no blanks before the colon, the whole name */
	CHECK(!qa_http_header_is("Content-Length : 1\r\n", 20,
				 "content-length", &v, &n));
	CHECK(!qa_http_header_is("Content-Lengthy: 1\r\n", 20,
				 "content-length", &v, &n));
	CHECK(!qa_http_header_is("ETag", 4, "etag", &v, &n));
	CHECK(qa_http_header_is("etag:\t\"a b\" \r\n", 14, "etag", &v, &n));
	CHECK_EQ(n, 5);
	CHECK(memcmp(v, "\"a b\"", 5) == 0);
	/* a value of blanks only is empty */
	CHECK(qa_http_header_is("ETag:   \r\n", 10, "etag", &v, &n));
	CHECK_EQ(n, 0);
	/* 19 digits, the most that cannot overflow; 20 refused */
	CHECK(qa_http_parse_u64("9999999999999999999", 19, &x));
	CHECK_EQ(x, 9999999999999999999ULL);
	CHECK(!qa_http_parse_u64("18446744073709551615", 20, &x));
	CHECK(!qa_http_parse_u64("", 0, &x));
	CHECK(!qa_http_parse_u64("12a", 3, &x));
	CHECK(!qa_http_parse_u64("-1", 2, &x));
}

/* Content-Range of a single range (RFC 9110 14.4): every number must
 * parse and agree, or the size the file is checked against is unknown. */
static void
test_content_range(void)
{
	uint64_t a = 0, b = 0, t = 0;

	CHECK(qa_http_parse_content_range("bytes 0-99/1000", 15, &a, &b, &t));
	CHECK_EQ(a, 0);
	CHECK_EQ(b, 99);
	CHECK_EQ(t, 1000);
	CHECK(qa_http_parse_content_range(" bytes 5-5/6\r\n", 14, &a, &b,
					  &t));
	CHECK_EQ(a, 5);
	CHECK_EQ(t, 6);
	CHECK(!qa_http_parse_content_range("bytes 0-99/*", 12, &a, &b, &t));
	CHECK(!qa_http_parse_content_range("bytes 0-99/abc", 14, &a, &b, &t));
	CHECK(!qa_http_parse_content_range("bytes */1000", 12, &a, &b, &t));
	CHECK(!qa_http_parse_content_range("bytes 0-99/", 11, &a, &b, &t));
	CHECK(!qa_http_parse_content_range("bytes 0-99/1000x", 16, &a, &b,
					   &t));
	CHECK(!qa_http_parse_content_range("items 0-99/1000", 15, &a, &b,
					   &t));
	/* last before first, last past the total */
	CHECK(!qa_http_parse_content_range("bytes 9-1/1000", 14, &a, &b, &t));
	CHECK(!qa_http_parse_content_range("bytes 0-1000/1000", 17, &a, &b,
					   &t));
	CHECK(!qa_http_parse_content_range("bytes 0-1/18446744073709551616",
					   30, &a, &b, &t));
}

static void
test_listing(void)
{
	static const char text[] =
		"[{\"type\":\"directory\",\"oid\":\"d0\",\"size\":0,"
		"\"path\":\"sub\"},"
		"{\"type\":\"file\",\"oid\":\"c1\",\"size\":436,"
		"\"path\":\"sub/config.json\"},"
		"{\"type\":\"file\",\"oid\":\"p2\",\"size\":134,"
		"\"path\":\"model.safetensors\",\"lfs\":{\"oid\":\"sha3\","
		"\"size\":16777216,\"pointerSize\":134}},"
		"{\"type\":\"file\",\"path\":\"a\",\"size\":1e30},"
		"{\"type\":\"file\",\"path\":\"b\",\"size\":-5},"
		"{\"type\":\"file\",\"path\":\"c\",\"size\":1.5},"
		"{\"type\":\"file\",\"path\":\"d\",\"size\":\"7\"},"
		"{\"type\":\"file\",\"path\":\"e\",\"lfs\":{\"size\":1e400},"
		"\"size\":134},"
		"{\"type\":\"file\",\"path\":\"f\",\"size\":9007199254740992},"
		"{\"type\":\"file\",\"path\":\"g\",\"size\":9007199254740994},"
		"{\"type\":\"file\",\"path\":\"sub/..\",\"size\":1},"
		"{\"type\":\"file\",\"path\":\"h/\",\"size\":1},"
		"{\"path\":\"i\",\"size\":1},"
		"{\"type\":\"file\",\"path\":7}]";
	static const struct {
		const char *name;
		bool is_dir, have_size;
		uint64_t size;
		const char *oid;
	} want[] = {
		{ "sub", true, true, 0, "d0" },
		{ "config.json", false, true, 436, "c1" },
		/* the LFS size and oid, not the pointer's */
		{ "model.safetensors", false, true, 16777216, "sha3" },
		{ "a", false, false, 0, NULL },
		{ "b", false, false, 0, NULL },
		{ "c", false, false, 0, NULL },
		{ "d", false, false, 0, NULL },
		/* an LFS size that is no size: unknown, not the pointer's */
		{ "e", false, false, 0, NULL },
		{ "f", false, true, 9007199254740992ULL, NULL },
		/* past 2^53 a double no longer holds every integer */
		{ "g", false, false, 0, NULL },
	};
	cJSON *doc = cJSON_Parse(text), *it;
	struct qa_listing_entry e;
	size_t k = 0;

	if (!doc) {
		th_skip("libcjson is not installed");
		return;
	}
	cJSON_ArrayForEach(it, doc) {
		if (!qa_listing_entry(it, &e))
			continue;
		if (k == sizeof(want) / sizeof(want[0])) {
			FAIL("an entry too many: %s", e.name);
			break;
		}
		th_case = want[k].name;
		CHECK_STR(e.name, want[k].name);
		CHECK_EQ(e.is_dir, want[k].is_dir);
		CHECK_EQ(e.have_size, want[k].have_size);
		CHECK_EQ(e.size, want[k].size);
		CHECK_STR(e.oid ? e.oid : "(none)",
			  want[k].oid ? want[k].oid : "(none)");
		k++;
	}
	th_case = NULL;
	CHECK_EQ(k, sizeof(want) / sizeof(want[0]));
	cJSON_Delete(doc);
}

struct got {
	uint64_t off[8], n[8];
	unsigned char digest0[32];
	size_t end;
	char data[8][16];
	size_t count, stop_after;	/* refuse the stop_after-th (0: none) */
};

static bool
take(void *ctx, uint64_t off, const char *data, uint64_t n,
     const unsigned char digest[32])
{
	struct got *g = ctx;

	if (g->count == 8 || n >= 16)
		return false;
	if (g->count == 0)
		memcpy(g->digest0, digest, 32);
	g->off[g->count] = off;
	g->n[g->count] = n;
	memcpy(g->data[g->count], data, (size_t)n);
	g->data[g->count][n] = '\0';
	g->count++;
	return g->count != g->stop_after;
}

static size_t
extents(const char *file, size_t head_len, uint64_t size, struct got *g,
	size_t stop_after)
{
	memset(g, 0, sizeof(*g));
	g->stop_after = stop_after;
	return qa_cache_extents(file, strlen(file), head_len, size, take, g,
				&g->end);
}

/* A digest as a record line gives it: 0x01 0x23 ... in lowercase hex. */
#define D "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void
test_cache(void)
{
	/* as cache_store writes it: the head, then "@OFF LEN SHA256\n" and
	 * bytes (the digest is checked by its caller, remote.c) */
	static const char head[] = "quantaudit-http-cache 2\nhttps://h/m\n"
				   "\"e\"\n100\n";
	char file[512];
	struct got g;
	size_t h = strlen(head);

	snprintf(file, sizeof(file), "%s@0 4 " D "\nGGUF@50 3 " D "\nabc"
		 "@99 1 " D "\nz", head);
	CHECK_EQ(extents(file, h, 100, &g, 0), 3);
	CHECK_EQ(g.off[0], 0);
	CHECK_STR(g.data[0], "GGUF");
	CHECK_EQ(g.off[1], 50);
	CHECK_STR(g.data[1], "abc");
	CHECK_EQ(g.off[2], 99);
	CHECK_STR(g.data[2], "z");
	CHECK_EQ(g.digest0[0], 0x01);
	CHECK_EQ(g.digest0[31], 0xef);
	CHECK_EQ(g.end, strlen(file));
	/* a refused extent (out of memory in remote.c) is not counted, and
	 * nothing after it is offered */
	CHECK_EQ(extents(file, h, 100, &g, 2), 1);
	CHECK_EQ(g.count, 2);
	/* records after the head, the file's size, the extents taken */
	static const struct {
		const char *records;
		uint64_t size;
		size_t want;
		const char *why;
	} cases[] = {
		{ "@0 4 " D "\nGGUF@98 3 " D "\nabc@1 1 " D "\nz", 100, 1,
		  "an extent past the file's end ends the list there" },
		{ "@0 4 " D "\nGGUF@50 3 " D "\nab", 100, 1,
		  "bytes cut short: the last extent is not taken" },
		{ "0 4 " D "\nGGUF", 100, 0, "no '@'" },
		{ "@0 4\nGGUF", 100, 0, "no digest (the format of version 1)" },
		{ "@0 4 " D "0\nGGUF", 100, 0, "a digest of 65 digits" },
		{ "@0 4 0123456789ABCDEF0123456789abcdef0123456789abcdef"
		  "0123456789abcdef\nGGUF", 100, 0, "upper-case hex" },
		{ "@0 4 0123456789abcdef0123456789abcdef0123456789abcdef"
		  "0123456789abcdeg\nGGUF", 100, 0, "a digit that is no hex" },
		{ "@04\nGGUF", 100, 0, "no blank" },
		{ "@-0 4 " D "\nGGUF", 100, 0, "a sign" },
		{ "@0 \nGGUF", 100, 0, "no length" },
		{ "@0 0 " D "\n@0 4 " D "\nGGUF", 100, 0, "length 0" },
		{ "@18446744073709551616 1 " D "\nz", UINT64_MAX, 0,
		  "an offset of 20 digits (more than uint64_t holds)" },
		{ "@18446744073709551614 1 " D "\nz", UINT64_MAX, 0,
		  "20 digits, even when they fit: 19 at most" },
		{ "@9999999999999999998 1 " D "\nz", 9999999999999999999ULL, 1,
		  "the largest offset of 19 digits" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		th_case = cases[i].why;
		snprintf(file, sizeof(file), "%s%s", head, cases[i].records);
		CHECK_EQ(extents(file, h, cases[i].size, &g, 0),
			 cases[i].want);
	}
	th_case = NULL;
	CHECK_EQ(g.off[0], 9999999999999999998ULL);
	/* a head alone holds nothing */
	CHECK_EQ(extents(head, h, 100, &g, 0), 0);
}

int
main(void)
{
	test_link();
	test_headers();
	test_content_range();
	test_listing();
	test_cache();
	return th_done("remote_parse");
}
