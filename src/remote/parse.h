/* SPDX-License-Identifier: MIT */
/*
 * What a server or the disk cache sends, parsed: HTTP header lines, the
 * Link header of a paged listing, an entry of the hub's tree listing, the
 * extents of a cache file. Pure functions, apart from the transfers of
 * http.c and remote.c, so that the fuzz target tests/fuzz/fuzz_remote.c
 * reaches every one with any bytes. Internal to src/remote/.
 */
#ifndef QA_REMOTE_PARSE_H
#define QA_REMOTE_PARSE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the header line (n bytes, not NUL-terminated) is name (case
 * insensitive) and a colon; *value then points past the colon and the
 * blanks, *vlen stops before trailing blanks and the line end. */
bool qa_http_header_is(const char *line, size_t n, const char *name,
		       const char **value, size_t *vlen);

/* A decimal of 1 to 19 digits and nothing else. */
bool qa_http_parse_u64(const char *s, size_t n, uint64_t *out);

/*
 * A Content-Range value of a single range, "bytes FIRST-LAST/TOTAL"
 * (RFC 9110 14.4), spaces around it allowed: true with the three numbers
 * when it is exactly that with FIRST <= LAST < TOTAL. Everything else is
 * false: an unknown total ("/" then "*": the size cannot be checked), an
 * unsatisfied range ("bytes * /TOTAL"), another unit, digits that do not
 * fit in 64 bits, trailing bytes.
 */
bool qa_http_parse_content_range(const char *v, size_t n, uint64_t *first,
				 uint64_t *last, uint64_t *total);

/* The target of the rel="next" link of a Link header value (RFC 8288:
 * '<URL>; rel="next"', links separated by commas, the relation quoted or
 * not). out gets "" when there is none, when it holds a blank, a control
 * byte or a NUL (no URL does), or when it does not fit in cap. */
void qa_http_link_next(const char *v, size_t n, char *out, size_t cap);

/* One entry of the hub's tree listing (`GET /api/models/REPO/tree/REV`),
 * pointing into the cJSON item. */
struct qa_listing_entry {
	const char *name;	/* the last part of "path" */
	bool is_dir;		/* "type": "directory" */
	bool have_size;		/* an integer in [0, 2^53]: the LFS size of
				 * a weights file, else "size" */
	uint64_t size;
	const char *oid;	/* the LFS oid, else "oid"; NULL when none */
};

/* Fills e from item; false when it is no entry to list: no string "type"
 * and "path", or a last part that is empty, "." or "..". A size that is
 * not an integer in [0, 2^53] (1e30, -5, 1.5, 1e400 read as infinity) is
 * no size: converting such a double to uint64_t is undefined. */
bool qa_listing_entry(const cJSON *item, struct qa_listing_entry *e);

/* The extents of a cache file (docs/remote.md "Cache"): after head_len
 * bytes of head, records "@OFF LEN SHA256\n" (SHA256 in 64 lowercase hex
 * digits) and LEN bytes, each inside a file of file_size bytes and inside
 * buf. Calls take for each in order with the record's digest (the caller
 * checks it) and stops at the first malformed record, or when take returns
 * false (it did not take that one). Returns the number taken; *end (when
 * not NULL) is where reading stopped: len when every record was whole and
 * taken. */
size_t qa_cache_extents(const char *buf, size_t len, size_t head_len,
			uint64_t file_size,
			bool (*take)(void *ctx, uint64_t off,
				     const char *data, uint64_t n,
				     const unsigned char digest[32]),
			void *ctx, size_t *end);

#endif
