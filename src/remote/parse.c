/* SPDX-License-Identifier: MIT */
/*
 * The parsers of what a server or the disk cache sends (parse.h).
 */
#include "remote/parse.h"

#include <string.h>

#include "core/json_file.h"

static char
ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The n bytes at s are lit (lower case ASCII), in any case. */
static bool
same_ci(const char *s, const char *lit, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ascii_lower(s[i]) != lit[i])
			return false;
	return true;
}

bool
qa_http_header_is(const char *line, size_t n, const char *name,
		  const char **value, size_t *vlen)
{
	size_t k = strlen(name);

	if (n <= k || !same_ci(line, name, k) || line[k] != ':')
		return false;
	line += k + 1;
	n -= k + 1;
	while (n && (*line == ' ' || *line == '\t')) {
		line++;
		n--;
	}
	while (n && (line[n - 1] == '\r' || line[n - 1] == '\n' ||
		     line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	*value = line;
	*vlen = n;
	return true;
}

bool
qa_http_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 19)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

bool
qa_http_parse_content_range(const char *v, size_t n, uint64_t *first,
			    uint64_t *last, uint64_t *total)
{
	const char *dash, *slash;
	size_t a, b;

	while (n > 0 && (v[0] == ' ' || v[0] == '\t')) {
		v++;
		n--;
	}
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' ||
			 v[n - 1] == '\r' || v[n - 1] == '\n'))
		n--;
	if (n < 6 || memcmp(v, "bytes ", 6) != 0)
		return false;
	v += 6;
	n -= 6;
	dash = memchr(v, '-', n);
	slash = memchr(v, '/', n);
	if (!dash || !slash || dash > slash)
		return false;
	a = (size_t)(dash - v);
	b = (size_t)(slash - dash - 1);
	return qa_http_parse_u64(v, a, first) &&
	       qa_http_parse_u64(dash + 1, b, last) &&
	       qa_http_parse_u64(slash + 1, n - a - b - 2, total) &&
	       *first <= *last && *last < *total;
}

/* Whether the parameters p (n bytes: what follows a link's '>' up to the
 * next ',') hold rel="next" or rel=next as a whole parameter value. */
static bool
rel_next(const char *p, size_t n)
{
	size_t k, m;

	for (k = 0; k + 4 <= n; k++) {
		if (!same_ci(p + k, "rel=", 4))
			continue;
		m = n - k - 4;
		if (m >= 6 && same_ci(p + k + 4, "\"next\"", 6))
			return true;
		if (m >= 4 && same_ci(p + k + 4, "next", 4) &&
		    (m == 4 || p[k + 8] == ';' || p[k + 8] == ' ' ||
		     p[k + 8] == '\t'))
			return true;
	}
	return false;
}

void
qa_http_link_next(const char *v, size_t n, char *out, size_t cap)
{
	const char *end = v + n;

	if (cap)
		out[0] = '\0';
	while (v < end) {
		const char *lt = memchr(v, '<', (size_t)(end - v)), *gt, *next;

		if (!lt)
			return;
		gt = memchr(lt, '>', (size_t)(end - lt));
		if (!gt)
			return;
		next = memchr(gt, ',', (size_t)(end - gt));
		if (!next)
			next = end;
		if (rel_next(gt + 1, (size_t)(next - gt - 1))) {
			size_t ulen = (size_t)(gt - lt - 1), i;

			/* a URL has no blank, control byte or NUL (RFC
			 * 3986): one that does is no target */
			for (i = 0; i < ulen; i++)
				if ((unsigned char)lt[1 + i] <= ' ' ||
				    (unsigned char)lt[1 + i] == 0x7f)
					return;
			if (ulen < cap) {
				memcpy(out, lt + 1, ulen);
				out[ulen] = '\0';
			}
			return;
		}
		if (next == end)
			return;
		v = next + 1;
	}
}

bool
qa_listing_entry(const cJSON *it, struct qa_listing_entry *e)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(it, "type");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "path");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(it, "size");
	const cJSON *oid = cJSON_GetObjectItemCaseSensitive(it, "oid");
	const cJSON *lfs = cJSON_GetObjectItemCaseSensitive(it, "lfs");
	const char *slash;

	if (!cJSON_IsString(type) || !cJSON_IsString(p))
		return false;
	slash = strrchr(p->valuestring, '/');
	e->name = slash ? slash + 1 : p->valuestring;
	if (!*e->name || strcmp(e->name, ".") == 0 ||
	    strcmp(e->name, "..") == 0)
		return false;
	e->is_dir = strcmp(type->valuestring, "directory") == 0;
	if (cJSON_IsObject(lfs)) {
		/* a weights file: "size" is its pointer's, 134 bytes */
		const cJSON *ls = cJSON_GetObjectItemCaseSensitive(lfs, "size");
		const cJSON *lo = cJSON_GetObjectItemCaseSensitive(lfs, "oid");

		if (cJSON_IsNumber(ls))
			size = ls;
		if (cJSON_IsString(lo))
			oid = lo;
	}
	e->size = 0;
	e->have_size = qa_json_u53(size, &e->size);
	e->oid = cJSON_IsString(oid) ? oid->valuestring : NULL;
	return true;
}

static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	       c - 'a' + 10 : -1;
}

size_t
qa_cache_extents(const char *buf, size_t len, size_t head_len,
		 uint64_t file_size,
		 bool (*take)(void *ctx, uint64_t off, const char *data,
			      uint64_t n, const unsigned char digest[32]),
		 void *ctx, size_t *end)
{
	size_t k = head_len, taken = 0;

	while (k < len) {
		const char *rec = buf + k, *nl, *sp, *sp2;
		unsigned char digest[32];
		uint64_t off, n;
		size_t data_at, i;

		nl = memchr(rec, '\n', len - k);
		if (!nl || rec[0] != '@')
			break;
		sp = memchr(rec, ' ', (size_t)(nl - rec));
		sp2 = sp ? memchr(sp + 1, ' ', (size_t)(nl - sp - 1)) : NULL;
		if (!sp2 || nl - sp2 - 1 != 64 ||
		    !qa_http_parse_u64(rec + 1, (size_t)(sp - rec - 1), &off) ||
		    !qa_http_parse_u64(sp + 1, (size_t)(sp2 - sp - 1), &n))
			break;
		for (i = 0; i < 32; i++) {
			int hi = hexval(sp2[1 + 2 * i]), lo = hexval(sp2[2 + 2 * i]);

			if (hi < 0 || lo < 0)
				break;
			digest[i] = (unsigned char)(hi << 4 | lo);
		}
		if (i < 32)
			break;
		data_at = (size_t)(nl + 1 - buf);
		if (n == 0 || off > file_size || n > file_size - off ||
		    n > (uint64_t)(len - data_at))
			break;
		if (!take(ctx, off, buf + data_at, n, digest))
			break;
		taken++;
		k = data_at + (size_t)n;
	}
	if (end)
		*end = k < len ? k : len;
	return taken;
}
