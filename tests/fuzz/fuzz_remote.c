/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: what a server or the disk cache sends to the remote layer
 * (src/remote/parse.c). A server is hostile input as much as a model
 * file, and the cache is a file anyone with the folder can edit. The first
 * byte picks the parser, the rest is its input:
 *
 *   0  a Link header value: the rel="next" target
 *   1  a header line: Content-Range, Content-Length, ETag
 *   2  a cache file: its extents after a head of the length bytes 1-2 give,
 *      in a file of the size bytes 3-10 give
 *   3  the hub's tree listing: every entry of a JSON array
 *
 * Each must parse or refuse without reading outside its input, and what it
 * returns must keep the invariants remote.c relies on.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "fuzz_common.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/parse.h"

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_remote: invariant violated: %s\n", what);
	abort();
}

static void
link_header(const char *v, size_t n, size_t cap)
{
	char out[257];
	size_t len;

	memset(out, 'x', sizeof(out));
	qa_http_link_next(v, n, out, cap);
	len = strnlen(out, cap);
	if (len == cap)
		fail("the link target is not terminated inside its buffer");
	/* a target is the bytes between a '<' and the next '>', none of
	 * them a blank or a control byte */
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)out[i] <= ' ' || out[i] == 0x7f)
			fail("a link target with a blank or control byte");
	if (len) {
		const char *at = v;
		bool found = false;

		while ((at = memchr(at, '<', n - (size_t)(at - v))) != NULL) {
			if ((size_t)(at + 1 - v) + len < n &&
			    memcmp(at + 1, out, len) == 0 && at[1 + len] == '>') {
				found = true;
				break;
			}
			at++;
		}
		if (!found)
			fail("a link target that is not between '<' and '>'");
	}
}

static void
header_line(const char *line, size_t n)
{
	static const char *const names[] = {
		"link", "etag", "content-length", "content-range",
	};
	size_t i, vlen;
	const char *v;
	uint64_t x;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!qa_http_header_is(line, n, names[i], &v, &vlen))
			continue;
		if (v < line || vlen > n || v + vlen > line + n)
			fail("a header value outside its line");
		if (qa_http_parse_u64(v, vlen, &x) && (vlen == 0 || vlen > 19))
			fail("a number of no digits or more than 19");
	}
}

struct extents {
	const char *buf;
	size_t len;
	uint64_t file_size, last_end;
	size_t n;
};

static bool
take(void *ctx, uint64_t off, const char *data, uint64_t n,
     const unsigned char digest[32])
{
	struct extents *x = ctx;

	if (n == 0 || off > x->file_size || n > x->file_size - off)
		fail("an extent outside its file");
	if (data < x->buf || n > x->len ||
	    (size_t)(data - x->buf) > x->len - (size_t)n)
		fail("an extent's bytes outside the cache file");
	if (data <= x->buf + x->last_end && x->n)
		fail("extents out of order in the cache file");
	x->last_end = (uint64_t)(data - x->buf) + n - 1;
	x->n++;
	return true;
}

static void
cache_file(const char *data, size_t size)
{
	struct extents x = { 0 };
	size_t head_len, taken, end = 0;
	uint64_t file_size = 0;
	size_t i;

	if (size < 10)
		return;
	head_len = ((size_t)(unsigned char)data[0] << 8 |
		    (unsigned char)data[1]) % (size - 10 + 1);
	for (i = 0; i < 8; i++)
		file_size = file_size << 8 | (unsigned char)data[2 + i];
	data += 10;
	size -= 10;
	x.buf = data;
	x.len = size;
	x.file_size = file_size;
	taken = qa_cache_extents(data, size, head_len, file_size, take, &x,
				 &end);
	if (taken != x.n)
		fail("a count of extents other than those taken");
	if (end > size || (end < size && end < head_len))
		fail("reading stopped outside the records");
}

static void
listing(const char *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength(data, size), *it;
	struct qa_listing_entry e;

	if (!doc)
		return;
	cJSON_ArrayForEach(it, doc) {
		if (!qa_listing_entry(it, &e))
			continue;
		if (!e.name || !*e.name || strchr(e.name, '/') ||
		    strcmp(e.name, ".") == 0 || strcmp(e.name, "..") == 0)
			fail("a listed name that is no single path part");
		if (e.have_size && e.size > ((uint64_t)1 << 53))
			fail("a listed size beyond 2^53");
		if (!e.have_size && e.size != 0)
			fail("a size kept that the listing cannot vouch for");
	}
	cJSON_Delete(doc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;

	if (size < 1)
		return 0;
	size--;
	switch (data[0] % 4) {
	case 0:
		link_header(s, size, size ? 1 + (unsigned char)s[0] % 256 : 1);
		break;
	case 1:
		header_line(s, size);
		break;
	case 2:
		cache_file(s, size);
		break;
	default:
		listing(s, size);
		break;
	}
	return 0;
}
