/* SPDX-License-Identifier: MIT */
/*
 * The remote file system (remote.h): URL mapping, stat through HEAD or
 * the hub's tree listing, range reads into kept extents, the disk cache.
 */
#define _POSIX_C_SOURCE 200809L
#include "remote/remote.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/json_file.h"
#include "core/sha256.h"
#include "remote/http.h"
#include "remote/parse.h"

#define FIRST_FETCH ((uint64_t)64 * 1024)
#define MAX_GROW ((uint64_t)2 * 1024 * 1024)
/* A listing, an index or a side file read whole answers a range
 * request with 200 when the server ignores ranges: up to this much is
 * taken as the whole file. */
#define SMALL_WHOLE ((uint64_t)1024 * 1024)
#define MAX_LISTING ((size_t)16 * 1024 * 1024)
#define MAX_SHARDS 4096
#define MAX_PAGES 100	/* of a tree listing: 100,000 entries */

struct extent {
	uint64_t off, len;
	unsigned char *data;
};

enum rstate { R_UNKNOWN, R_FILE, R_DIR, R_MISSING, R_ERROR };

struct rfile {
	char *path;		/* the file system's path */
	char *url;		/* what is requested */
	enum rstate state;
	int err;		/* R_ERROR: errno-style */
	char *why;		/* R_ERROR: the failure as fail() said it */
	long head_status;	/* what the HEAD request got (0: none) */
	char *next_url;		/* a listing page: the next page, or NULL */
	uint64_t size;
	char etag[160];		/* validator: ETag, or "oid:..." from the hub */
	bool bearer;		/* send the token (the hub's own URL) */
	bool cache_checked;
	bool cache_valid;	/* the cache file's head is this file's */
	struct extent *ext;
	size_t n_ext, cap_ext;
	uint64_t last_end, grow;
	bool counted;
	bool split_asked;	/* a split part: its set's prefetch was made */
};

struct rdir {
	char *path;		/* no trailing '/' */
	char *base_url;		/* children: base_url + '/' + name */
	char *api_url;		/* hub: its tree listing; NULL: probe */
};

struct qa_remote {
	struct qa_remote_options opt;
	char *endpoint;
	struct qa_http *http;
	struct rfile **files;
	size_t n_files, cap_files;
	struct rdir *dirs;
	size_t n_dirs, cap_dirs;
	struct qa_fs fs;
	char last_err[768];
	uint64_t cached_bytes, n_counted;
	uint64_t cache_discarded;	/* cache files found damaged */
	char cache_note[768];	/* why the first one was */
};

bool
qa_remote_is_url(const char *path)
{
	return strncmp(path, "https://", 8) == 0 ||
	       strncmp(path, "http://", 7) == 0 ||
	       strncmp(path, "hf://", 5) == 0;
}

static void
fail(struct qa_remote *r, const char *url, const char *why)
{
	snprintf(r->last_err, sizeof(r->last_err), "%s: %s", url, why);
}

const char *
qa_remote_last_error(const struct qa_remote *r)
{
	return r && r->last_err[0] ? r->last_err : NULL;
}

void
qa_remote_clear_error(struct qa_remote *r)
{
	if (r)
		r->last_err[0] = '\0';
}

void
qa_remote_stats(const struct qa_remote *r, struct qa_remote_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (!r)
		return;
	qa_http_counts(r->http, &s->requests, &s->bytes_fetched);
	s->bytes_cached = r->cached_bytes;
	s->files = r->n_counted;
	s->cache_discarded = r->cache_discarded;
	s->cache_note = r->cache_discarded ? r->cache_note : NULL;
}

/* ---- paths and URLs --------------------------------------------------------- */

static char *
cat3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *p = malloc(la + lb + lc + 1);

	if (!p)
		return NULL;
	memcpy(p, a, la);
	memcpy(p + la, b, lb);
	memcpy(p + la + lb, c, lc + 1);
	return p;
}

/* Percent-encodes what is neither an unreserved character nor one of
 * keep: a name from a listing or an index keeps its '/' (a space, '#',
 * '?' and non-ASCII are encoded); a revision keeps the '%' of an escape
 * already there ("refs%2Fpr%2F1", as huggingface_hub writes it) and has
 * its '/' encoded, as the hub expects. */
static char *
encode(const char *s, const char *keep)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s), i, k = 0;
	char *p = malloc(3 * n + 1);

	if (!p)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    c == '.' || c == '~' || (c && strchr(keep, c))) {
			p[k++] = (char)c;
		} else {
			p[k++] = '%';
			p[k++] = hex[c >> 4];
			p[k++] = hex[c & 15];
		}
	}
	p[k] = '\0';
	return p;
}

/* A copy of path without trailing '/' (keeping "scheme://"). */
static char *
strip_slashes(const char *path)
{
	size_t n = strlen(path);

	while (n > 0 && path[n - 1] == '/' &&
	       !(n >= 3 && path[n - 2] == '/' && path[n - 3] == ':'))
		n--;
	return strndup(path, n);
}

/* The registered folder whose path is path's longest proper prefix
 * (at a '/'), or NULL. */
static struct rdir *
dir_of(struct qa_remote *r, const char *path, const char **rest)
{
	struct rdir *best = NULL;
	size_t i, best_len = 0;

	for (i = 0; i < r->n_dirs; i++) {
		size_t n = strlen(r->dirs[i].path);

		if (n > best_len && strncmp(path, r->dirs[i].path, n) == 0 &&
		    path[n] == '/') {
			best = &r->dirs[i];
			best_len = n;
		}
	}
	if (best) {
		*rest = path + best_len;
		while (**rest == '/')
			(*rest)++;
	}
	return best;
}

static struct rdir *
dir_find(struct qa_remote *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->n_dirs; i++)
		if (strcmp(r->dirs[i].path, path) == 0)
			return &r->dirs[i];
	return NULL;
}

static struct rdir *
dir_add(struct qa_remote *r, const char *path, const char *base_url,
	const char *api_url)
{
	struct rdir *d = dir_find(r, path);

	if (d)
		return d;
	if (r->n_dirs == r->cap_dirs) {
		size_t cap = r->cap_dirs ? 2 * r->cap_dirs : 8;
		struct rdir *v = realloc(r->dirs, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->dirs = v;
		r->cap_dirs = cap;
	}
	d = &r->dirs[r->n_dirs];
	d->path = strdup(path);
	d->base_url = strdup(base_url);
	d->api_url = api_url ? strdup(api_url) : NULL;
	if (!d->path || !d->base_url || (api_url && !d->api_url)) {
		free(d->path);
		free(d->base_url);
		free(d->api_url);
		return NULL;
	}
	r->n_dirs++;
	return d;
}

/* The URL of a path: a name under a registered folder is encoded onto
 * the folder's base; any other path is the URL the user gave. */
static char *
url_of(struct qa_remote *r, const char *path)
{
	const char *rest;
	struct rdir *d = dir_of(r, path, &rest);
	char *enc, *url;

	if (!d)
		return strdup(path);
	enc = encode(rest, "/");
	if (!enc)
		return NULL;
	url = cat3(d->base_url, "/", enc);
	free(enc);
	return url;
}

static bool
bearer_for(const struct qa_remote *r, const char *url)
{
	size_t n = strlen(r->endpoint);

	return r->opt.token && strncmp(url, r->endpoint, n) == 0 &&
	       (url[n] == '/' || url[n] == '\0');
}

static bool
is_http(const char *path)
{
	return strncmp(path, "https://", 8) == 0 ||
	       strncmp(path, "http://", 7) == 0;
}

/* The file of the session at path, or NULL when none was asked of yet. */
static struct rfile *
file_find(const struct qa_remote *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->n_files; i++)
		if (strcmp(r->files[i]->path, path) == 0)
			return r->files[i];
	return NULL;
}

static struct rfile *
file_get(struct qa_remote *r, const char *path)
{
	struct rfile *f = file_find(r, path);

	if (f)
		return f;
	if (r->n_files == r->cap_files) {
		size_t cap = r->cap_files ? 2 * r->cap_files : 16;
		struct rfile **v = realloc(r->files, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->files = v;
		r->cap_files = cap;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	f->url = url_of(r, path);
	if (!f->path || !f->url) {
		free(f->path);
		free(f->url);
		free(f);
		return NULL;
	}
	f->bearer = bearer_for(r, f->url);
	f->grow = FIRST_FETCH;
	r->files[r->n_files++] = f;
	return f;
}

static void
file_free(struct rfile *f)
{
	size_t i;

	for (i = 0; i < f->n_ext; i++)
		free(f->ext[i].data);
	free(f->ext);
	free(f->path);
	free(f->url);
	free(f->next_url);
	free(f->why);
	free(f);
}

/* ---- the disk cache --------------------------------------------------------- */

/*
 * One cache file per URL, named by the SHA-256 of the URL: a text head
 * ("quantaudit-http-cache 2", the URL, the validator, the size, one per
 * line), then records "@OFFSET LENGTH SHA256\n" followed by the bytes,
 * SHA256 the digest of the head, "OFFSET LENGTH\n" and the bytes: a
 * record is bound to its URL, validator, size and place, so a flipped
 * byte, a record moved to another offset and a file copied to another
 * URL's name (or its head edited) all fail it. Records are appended in
 * one write each; a reader stops at the first one that is cut, malformed
 * or fails its digest, uses those before it (each checked), counts the
 * file as damaged (a note on stderr) and starts it over at the next
 * write. A different validator or size starts it over silently: the
 * file changed on the server. The digest guards against damage and
 * mix-ups, not against whoever can write the cache folder, who can
 * write a consistent file (docs/security.md "The HTTP cache").
 */
#define CACHE_MAGIC "quantaudit-http-cache 2\n"

/* The digest of a record: head, "OFF LEN\n", data. */
static void
record_digest(const char *head, size_t head_len, uint64_t off,
	      const void *data, uint64_t len, unsigned char d[32])
{
	struct qa_sha256 s;
	char rec[48];
	int n = snprintf(rec, sizeof(rec), "%" PRIu64 " %" PRIu64 "\n", off,
			 len);

	qa_sha256_init(&s);
	qa_sha256_update(&s, head, head_len);
	qa_sha256_update(&s, rec, (size_t)n);
	qa_sha256_update(&s, data, (size_t)len);
	qa_sha256_final(&s, d);
}
static char *
cache_path(const struct qa_remote *r, const char *url)
{
	static const char hex[] = "0123456789abcdef";
	struct qa_sha256 s;
	unsigned char d[32];
	char name[65];
	size_t i;

	qa_sha256_init(&s);
	qa_sha256_update(&s, url, strlen(url));
	qa_sha256_final(&s, d);
	for (i = 0; i < 32; i++) {
		name[2 * i] = hex[d[i] >> 4];
		name[2 * i + 1] = hex[d[i] & 15];
	}
	name[64] = '\0';
	return cat3(r->opt.cache_dir, "/", name);
}

static int
mkdirs(const char *dir)
{
	char *p = strdup(dir), *s;
	int rc = 0;

	if (!p)
		return -1;
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (mkdir(p, 0700) != 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

static bool add_extent(struct rfile *f, uint64_t off, unsigned char *data,
		       uint64_t len);

static char *
cache_head(const struct rfile *f, size_t *n)
{
	size_t cap = strlen(f->url) + strlen(f->etag) + 64;
	char *h = malloc(cap);

	if (!h)
		return NULL;
	*n = (size_t)snprintf(h, cap, CACHE_MAGIC "%s\n%s\n%" PRIu64 "\n",
			      f->url, f->etag, f->size);
	return h;
}

struct take_ctx {
	struct qa_remote *r;
	struct rfile *f;
	const char *head;
	size_t head_len;
	bool bad_digest;
};

/* One extent of a cache file whose digest holds, copied into f's kept
 * extents. */
static bool
take_extent(void *ctx, uint64_t off, const char *data, uint64_t len,
	    const unsigned char digest[32])
{
	struct take_ctx *t = ctx;
	unsigned char d[32], *copy;

	record_digest(t->head, t->head_len, off, data, len, d);
	if (memcmp(d, digest, sizeof(d)) != 0) {
		t->bad_digest = true;
		return false;
	}
	copy = malloc((size_t)len);
	if (!copy)
		return false;
	memcpy(copy, data, (size_t)len);
	if (!add_extent(t->f, off, copy, len)) {
		free(copy);
		return false;
	}
	t->r->cached_bytes += len;
	return true;
}

/* Counts a damaged cache file of f, keeping the first reason. */
static void
cache_damaged(struct qa_remote *r, const struct rfile *f, const char *why)
{
	if (r->cache_discarded++ == 0)
		snprintf(r->cache_note, sizeof(r->cache_note), "the cache entry "
			 "of %s %s; it is not used and is fetched again",
			 f->url, why);
}

/* Loads the extents kept for f when the cache has its validator. */
static void
cache_load(struct qa_remote *r, struct rfile *f)
{
	char *path, *head, *buf = NULL;
	size_t head_len, end = 0;
	struct stat st;
	FILE *in;
	struct take_ctx t;

	f->cache_checked = true;
	if (!r->opt.cache_dir || !f->etag[0])
		return;
	path = cache_path(r, f->url);
	head = cache_head(f, &head_len);
	in = path && head ? fopen(path, "rb") : NULL;
	if (!in || fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > r->opt.max_fetch + head_len + 65536)
		goto out;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, in) !=
	    (size_t)st.st_size)
		goto out;
	if ((size_t)st.st_size < head_len || memcmp(buf, head, head_len) != 0) {
		/* another URL's entry under this one's name (a copied or
		 * edited file); another validator or size is the file
		 * changing on the server, and an older format is no entry */
		size_t m = sizeof(CACHE_MAGIC) - 1, u = strlen(f->url);

		if ((size_t)st.st_size > m + u &&
		    memcmp(buf, CACHE_MAGIC, m) == 0 &&
		    (memcmp(buf + m, f->url, u) != 0 || buf[m + u] != '\n'))
			cache_damaged(r, f, "holds another URL's entry");
		goto out;
	}
	f->cache_valid = true;
	memset(&t, 0, sizeof(t));
	t.r = r;
	t.f = f;
	t.head = head;
	t.head_len = head_len;
	qa_cache_extents(buf, (size_t)st.st_size, head_len, f->size,
			 take_extent, &t, &end);
	if (end < (size_t)st.st_size) {
		char why[96];

		snprintf(why, sizeof(why), "is damaged at byte %zu (%s)", end,
			 t.bad_digest ? "a record whose checksum fails" :
			 "a record cut short or malformed");
		cache_damaged(r, f, why);
		/* the records before it are checked and kept; the next
		 * write starts the file over */
		f->cache_valid = false;
	}
out:
	if (in)
		fclose(in);
	free(buf);
	free(head);
	free(path);
}

/* Appends a fetched range (starting the file over when it is new). A
 * cache that cannot be written is no error: the run goes on without. */
static void
cache_store(struct qa_remote *r, struct rfile *f, uint64_t off,
	    const unsigned char *data, uint64_t len)
{
	char *path, *head, rec[160];
	size_t head_len, n, i;
	int fd, flags;
	char *all;
	unsigned char d[32];

	if (!r->opt.cache_dir || !f->etag[0] || mkdirs(r->opt.cache_dir) != 0)
		return;
	path = cache_path(r, f->url);
	head = cache_head(f, &head_len);
	if (!path || !head)
		goto out;
	/* a file the cache did not hold (or held at another ETag):
	 * start its cache file over */
	flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
	if (!f->cache_valid)
		flags |= O_TRUNC;
	fd = open(path, flags, 0600);
	if (fd < 0)
		goto out;
	record_digest(head, head_len, off, data, len, d);
	n = (size_t)snprintf(rec, sizeof(rec), "@%" PRIu64 " %" PRIu64 " ",
			     off, len);
	for (i = 0; i < 32; i++)
		n += (size_t)snprintf(rec + n, sizeof(rec) - n, "%02x", d[i]);
	rec[n++] = '\n';
	all = malloc(head_len + n + (size_t)len);
	if (all) {
		size_t k = 0;

		if (!f->cache_valid) {
			memcpy(all, head, head_len);
			k = head_len;
		}
		memcpy(all + k, rec, n);
		memcpy(all + k + n, data, (size_t)len);
		if (write(fd, all, k + n + (size_t)len) ==
		    (ssize_t)(k + n + (size_t)len))
			f->cache_valid = true;
		free(all);
	}
	close(fd);
out:
	free(head);
	free(path);
}

/* ---- stat and reads ------------------------------------------------------------ */

static bool
add_extent(struct rfile *f, uint64_t off, unsigned char *data, uint64_t len)
{
	if (f->n_ext == f->cap_ext) {
		size_t cap = f->cap_ext ? 2 * f->cap_ext : 4;
		struct extent *v = realloc(f->ext, cap * sizeof(*v));

		if (!v)
			return false;
		f->ext = v;
		f->cap_ext = cap;
	}
	f->ext[f->n_ext].off = off;
	f->ext[f->n_ext].len = len;
	f->ext[f->n_ext].data = data;
	f->n_ext++;
	return true;
}

static int
status_errno(long status)
{
	if (status == 404 || status == 410)
		return ENOENT;
	if (status == 401 || status == 403)
		return EACCES;
	return EIO;
}

static void
fail_status(struct qa_remote *r, const char *url, long status)
{
	char why[256];

	if (status == 401 || status == 403)
		snprintf(why, sizeof(why), "HTTP %ld: access denied (a "
			 "gated or private model: a token with access, from "
			 "HF_TOKEN or --token-file)", status);
	else if (status == 404 || status == 410)
		snprintf(why, sizeof(why), "HTTP %ld: no such file on the "
			 "server", status);
	else
		snprintf(why, sizeof(why), "HTTP %ld from the server", status);
	fail(r, url, why);
}

/*
 * f's HEAD failed: what fail() said is kept with it, so that asking again
 * names f's own failure, not whichever request failed last.
 */
static int
file_failed(struct qa_remote *r, struct rfile *f, int err)
{
	f->state = R_ERROR;
	f->err = err;
	free(f->why);
	f->why = strdup(r->last_err);
	return err;
}

/* What f is: HEAD, once. */
static int
file_head(struct qa_remote *r, struct rfile *f)
{
	struct qa_http_resp resp;
	char why[512];
	int e;

	if (f->state == R_ERROR) {
		if (f->why)
			snprintf(r->last_err, sizeof(r->last_err), "%s",
				 f->why);
		return f->err;
	}
	if (f->state != R_UNKNOWN)
		return 0;
	if (!is_http(f->url)) {
		/* a local path asked of the remote file system */
		f->state = R_MISSING;
		return 0;
	}
	e = qa_http_request(r->http, f->url, true, 0, 0, 0, f->bearer, &resp,
			    why, sizeof(why));
	if (e) {
		fail(r, f->url, why);
		return file_failed(r, f, e);
	}
	qa_http_resp_free(&resp);
	f->head_status = resp.status;
	if (resp.status == 404 || resp.status == 410) {
		f->state = R_MISSING;
		return 0;
	}
	if (resp.status < 200 || resp.status > 299) {
		fail_status(r, f->url, resp.status);
		return file_failed(r, f, status_errno(resp.status));
	}
	if (!resp.have_length) {
		fail(r, f->url, "the server gives no size (no "
		     "Content-Length)");
		return file_failed(r, f, EPROTO);
	}
	f->state = R_FILE;
	f->size = resp.length;
	snprintf(f->etag, sizeof(f->etag), "%s", resp.etag);
	if (resp.next_url[0] && !(f->next_url = strdup(resp.next_url))) {
		f->state = R_ERROR;
		f->err = ENOMEM;
		return ENOMEM;
	}
	return 0;
}

static uint64_t
budget_left(const struct qa_remote *r)
{
	uint64_t req, got;

	qa_http_counts(r->http, &req, &got);
	return got >= r->opt.max_fetch ? 0 : r->opt.max_fetch - got;
}

/* Fetches [off, off+len) of f (or the whole file when the server ignores
 * ranges and that is allowed) into a new extent. */
/* A 206 answer to a range request for [off, off+len) of a file of size
 * bytes: its Content-Range must be there, parse, and say that range of
 * that size (RFC 9110 15.3.7: a single-part 206 carries it). */
static bool
range_answer_ok(const struct qa_http_resp *resp, uint64_t off, uint64_t len,
		uint64_t size)
{
	return len > 0 && resp->have_range && resp->range_ok &&
	       resp->range_first == off && resp->range_last == off + len - 1 &&
	       resp->total == size;
}

static int
fetch(struct qa_remote *r, struct rfile *f, uint64_t off, uint64_t len)
{
	struct qa_http_resp resp;
	char why[512];
	uint64_t max_body = len < SMALL_WHOLE ? SMALL_WHOLE : len;
	int e;

	if (len > budget_left(r)) {
		snprintf(why, sizeof(why), "reading %" PRIu64 " more bytes "
			 "would pass the bound of %" PRIu64 " fetched bytes "
			 "(--max-fetch)", len, r->opt.max_fetch);
		fail(r, f->url, why);
		return EFBIG;
	}
	e = qa_http_request(r->http, f->url, false, off, len,
			    (size_t)max_body, f->bearer, &resp, why,
			    sizeof(why));
	if (e) {
		fail(r, f->url, why);
		return e;
	}
	if (resp.status == 200 && !resp.body_cut &&
	    resp.body_len == f->size) {
		/* the whole file (a server that ignores ranges, or a small
		 * file): keep it all */
		off = 0;
		len = f->size;
	} else if (resp.status == 200 && r->opt.full_download &&
		   f->size <= budget_left(r)) {
		qa_http_resp_free(&resp);
		e = qa_http_request(r->http, f->url, false, 0, 0,
				    (size_t)f->size, f->bearer, &resp, why,
				    sizeof(why));
		if (e) {
			fail(r, f->url, why);
			return e;
		}
		if (resp.status != 200 || resp.body_len != f->size) {
			qa_http_resp_free(&resp);
			fail(r, f->url, "the whole-file download did not "
			     "give the size the server announced");
			return EPROTO;
		}
		off = 0;
		len = f->size;
	} else if (resp.status == 200) {
		qa_http_resp_free(&resp);
		snprintf(why, sizeof(why), "the server ignores Range requests "
			 "(it answered 200 with the whole %" PRIu64 "-byte "
			 "file); --allow-full-download reads it whole "
			 "(within --max-fetch)", f->size);
		fail(r, f->url, why);
		return ENOTSUP;
	} else if (resp.status != 206) {
		qa_http_resp_free(&resp);
		fail_status(r, f->url, resp.status);
		return status_errno(resp.status);
	} else if (resp.body_len != len || !range_answer_ok(&resp, off, len,
							    f->size)) {
		qa_http_resp_free(&resp);
		fail(r, f->url, !resp.have_range ?
		     "the server's range answer has no Content-Range" :
		     !resp.range_ok ?
		     "the server's Content-Range cannot be read (a total of "
		     "'*' or malformed): the file's size cannot be checked" :
		     "the server's range answer does not match the range "
		     "asked for or the file's size");
		return EPROTO;
	}
	if (resp.etag[0] && f->etag[0] && strncmp(f->etag, "oid:", 4) != 0 &&
	    strcmp(resp.etag, f->etag) != 0) {
		qa_http_resp_free(&resp);
		fail(r, f->url, "the file changed on the server while it was "
		     "read (its ETag differs)");
		return ESTALE;
	}
	if (!add_extent(f, off, resp.body, len)) {
		qa_http_resp_free(&resp);
		return ENOMEM;
	}
	cache_store(r, f, off, resp.body, len);
	return 0;
}

/* The extent holding byte off, or NULL; *next_off is where the first
 * extent after off starts (UINT64_MAX when none). */
static const struct extent *
holding(const struct rfile *f, uint64_t off, uint64_t *next_off)
{
	size_t i;

	*next_off = UINT64_MAX;
	for (i = 0; i < f->n_ext; i++) {
		if (off >= f->ext[i].off && off - f->ext[i].off < f->ext[i].len)
			return &f->ext[i];
		if (f->ext[i].off > off && f->ext[i].off < *next_off)
			*next_off = f->ext[i].off;
	}
	return NULL;
}

/* Copies [off, off+len) from the extents, fetching what none holds: a
 * read that goes on where the last fetch ended fetches twice as much
 * as that one did (a GGUF header, a vocabulary), never past the next
 * extent already held. */
static int
file_read(struct qa_remote *r, struct rfile *f, uint64_t off, void *buf,
	  size_t len)
{
	unsigned char *out = buf;
	int e;

	if (!f->cache_checked)
		cache_load(r, f);
	if (!f->counted) {
		f->counted = true;
		r->n_counted++;
	}
	while (len > 0) {
		uint64_t next, want, end, n;
		const struct extent *x = holding(f, off, &next);

		if (x) {
			n = x->len - (off - x->off);
			if (n > len)
				n = len;
			memcpy(out, x->data + (off - x->off), (size_t)n);
			out += n;
			off += n;
			len -= (size_t)n;
			continue;
		}
		if (off == f->last_end && off > 0)
			f->grow = f->grow * 2 > MAX_GROW ? MAX_GROW :
				  f->grow * 2;
		want = len > f->grow ? len : f->grow;
		end = f->size - off < want ? f->size : off + want;
		if (next < end && next - off >= len)
			end = next;
		e = fetch(r, f, off, end - off);
		if (e)
			return e;
		f->last_end = end;
		if (!holding(f, off, &next)) {
			fail(r, f->url, "the fetched bytes do not cover the "
			     "read");
			return EPROTO;
		}
	}
	return 0;
}

/* ---- sources ----------------------------------------------------------------- */

struct rsource {
	struct qa_remote *r;
	struct rfile *f;
};

static int
src_read(struct qa_source *src, uint64_t off, void *buf, size_t len)
{
	struct rsource *s = src->ctx;
	int e = file_read(s->r, s->f, off, buf, len);

	if (e) {
		src->err = e;
		return QA_E_IO;
	}
	return QA_OK;
}

static void
src_close(struct qa_source *src)
{
	free(src->ctx);
	src->ctx = NULL;
}

static const struct qa_source_ops remote_ops = { src_read, src_close };

/* ---- listings ----------------------------------------------------------------- */

/* Reads f whole (a listing, an index), NUL-terminated; malloc'd. */
/*
 * A listing from a server that answers HEAD with 405 or 501, or with no
 * Content-Length (an API response streamed in chunks): one plain GET,
 * bounded, kept as the file's only extent.
 */
static char *
get_whole(struct qa_remote *r, struct rfile *f, size_t max, int *e)
{
	struct qa_http_resp resp;
	char why[512], *p;

	qa_remote_clear_error(r);
	*e = qa_http_request(r->http, f->url, false, 0, 0, max + 1, f->bearer,
			     &resp, why, sizeof(why));
	if (*e) {
		fail(r, f->url, why);
		return NULL;
	}
	if (resp.status != 200 || resp.body_cut) {
		qa_http_resp_free(&resp);
		if (resp.body_cut) {
			fail(r, f->url, "too large for a listing or an index");
			*e = EFBIG;
		} else {
			fail_status(r, f->url, resp.status);
			*e = status_errno(resp.status);
		}
		return NULL;
	}
	p = malloc(resp.body_len + 1);
	if (!p) {
		qa_http_resp_free(&resp);
		*e = ENOMEM;
		return NULL;
	}
	if (resp.body_len)
		memcpy(p, resp.body, resp.body_len);
	p[resp.body_len] = '\0';
	f->state = R_FILE;
	f->err = 0;
	f->size = resp.body_len;
	snprintf(f->etag, sizeof(f->etag), "%s", resp.etag);
	if (resp.next_url[0] && !f->next_url)
		f->next_url = strdup(resp.next_url);
	f->cache_checked = true;
	if (resp.body_len && add_extent(f, 0, resp.body, resp.body_len))
		resp.body = NULL;
	qa_http_resp_free(&resp);
	return p;
}

static char *
read_whole(struct qa_remote *r, struct rfile *f, size_t max, int *e)
{
	char *p;

	*e = file_head(r, f);
	if (*e && (*e == EPROTO || f->head_status == 405 ||
		   f->head_status == 501))
		return get_whole(r, f, max, e);
	if (!*e && f->state != R_FILE)
		*e = ENOENT;
	if (*e)
		return NULL;
	if (f->size > max) {
		fail(r, f->url, "too large for a listing or an index");
		*e = EFBIG;
		return NULL;
	}
	p = malloc((size_t)f->size + 1);
	if (!p) {
		*e = ENOMEM;
		return NULL;
	}
	if (f->size && (*e = file_read(r, f, 0, p, (size_t)f->size)) != 0) {
		free(p);
		return NULL;
	}
	p[f->size] = '\0';
	return p;
}

static int
add_dirent(struct qa_dirent **v, size_t *n, size_t *cap, const char *name,
	   enum qa_node_kind kind, uint64_t size)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*v)[i].name, name) == 0)
			return 0;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct qa_dirent *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[*n].name = strdup(name);
	if (!(*v)[*n].name)
		return ENOMEM;
	(*v)[*n].kind = kind;
	(*v)[*n].size = size;
	(*n)++;
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct qa_dirent *)a)->name,
		      ((const struct qa_dirent *)b)->name);
}

/* The hub's tree listing of d: files (size, object id) and folders. */
static int
list_hub(struct qa_remote *r, struct rdir *d, struct qa_dirent **v,
	 size_t *n, size_t *cap)
{
	char *lpath = cat3(d->api_url, "", ""), *text;
	struct rfile *lf;
	cJSON *doc, *it;
	unsigned pages = 0;
	int e;

	if (!lpath)
		return ENOMEM;
	lf = file_get(r, lpath);
	free(lpath);
	if (!lf)
		return ENOMEM;
next_page:
	text = read_whole(r, lf, MAX_LISTING, &e);
	if (!text) {
		if (e == ENOENT)
			fail(r, lf->url, "the hub has no such repository, "
			     "revision or folder (HTTP 404)");
		return e;
	}
	doc = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsArray(doc)) {
		cJSON_Delete(doc);
		fail(r, lf->url, qa_cjson_missing() ? qa_cjson_missing() :
		     "the hub's tree listing is not a JSON array");
		return EPROTO;
	}
	e = 0;
	cJSON_ArrayForEach(it, doc) {
		struct qa_listing_entry le;
		uint64_t fsize;
		char *child;
		struct rfile *cf;

		if (!qa_listing_entry(it, &le))
			continue;
		fsize = le.size;
		child = cat3(d->path, "/", le.name);
		if (!child) {
			e = ENOMEM;
			break;
		}
		if (le.is_dir) {
			char *base = cat3(d->base_url, "/", le.name);
			char *api = cat3(d->api_url, "/", le.name);

			if (!base || !api || !dir_add(r, child, base, api))
				e = ENOMEM;
			free(base);
			free(api);
		} else if ((cf = file_get(r, child)) != NULL) {
			if (cf->state == R_UNKNOWN && le.have_size) {
				/* the listing says what a HEAD would: no
				 * request */
				cf->state = R_FILE;
				cf->size = le.size;
				if (le.oid)
					snprintf(cf->etag, sizeof(cf->etag),
						 "oid:%s", le.oid);
			} else if (!le.have_size) {
				/* a size the listing cannot vouch for: the
				 * file's HEAD gives it (an error stays with
				 * the file, for its first read to report) */
				if (file_head(r, cf))
					/* kept with the file (file_failed);
					 * the listing itself succeeded */
					qa_remote_clear_error(r);
				if (cf->state == R_FILE)
					fsize = cf->size;
			}
		} else {
			e = ENOMEM;
		}
		free(child);
		if (!e)
			e = add_dirent(v, n, cap, le.name, le.is_dir ?
				       QA_NODE_DIR : QA_NODE_FILE, fsize);
		if (e)
			break;
	}
	cJSON_Delete(doc);
	/* a folder of more entries than a page: the API's Link header
	 * names the next page (at most MAX_PAGES of them) */
	if (!e && lf->next_url && ++pages < MAX_PAGES) {
		if (!(lf = file_get(r, lf->next_url)))
			return ENOMEM;
		goto next_page;
	}
	return e;
}

/* The names a checkpoint folder may hold, looked up one by one where
 * the server cannot list: side files the loaders read, the index, and
 * a single-file checkpoint. */
static const char *const probe_names[] = {
	"config.json", "generation_config.json", "tokenizer_config.json",
	"tokenizer.json", "special_tokens_map.json", "chat_template.jinja",
	"chat_template.json", "processor_config.json",
	"preprocessor_config.json", "quantization_config.json",
	"quantize_config.json", "quant_config.json", "hf_quant_config.json",
	"tokenizer.model", "vocab.json", "merges.txt",
	"model.safetensors.index.json", "model.safetensors",
};

static int
probe_one(struct qa_remote *r, struct rdir *d, const char *name,
	  struct qa_dirent **v, size_t *n, size_t *cap)
{
	char *child = cat3(d->path, "/", name);
	struct rfile *f = child ? file_get(r, child) : NULL;
	int e;

	free(child);
	if (!f)
		return ENOMEM;
	e = file_head(r, f);
	if (e)
		return e;
	if (f->state != R_FILE)
		return 0;
	return add_dirent(v, n, cap, name, QA_NODE_FILE, f->size);
}

/* The parts of a split GGUF set named like name ("PREFIX-00001-of-
 * 00003.gguf", llama.cpp's split naming), looked up one by one. */
static int
probe_split(struct qa_remote *r, struct rdir *d, const char *name,
	    struct qa_dirent **v, size_t *n, size_t *cap)
{
	size_t len = strlen(name);
	unsigned part, count, k;
	char buf[4096];
	int e;

	if (len < 20 || len >= sizeof(buf) - 1 ||
	    strcmp(name + len - 5, ".gguf") != 0 ||
	    sscanf(name + len - 20, "-%5u-of-%5u.gguf", &part, &count) != 2 ||
	    name[len - 20] != '-' || count == 0 || count > 1000)
		return 0;
	for (k = 1; k <= count; k++) {
		memcpy(buf, name, len - 20);
		snprintf(buf + len - 20, sizeof(buf) - (len - 20),
			 "-%05u-of-%05u.gguf", k, count);
		e = probe_one(r, d, buf, v, n, cap);
		if (e)
			return e;
	}
	return 0;
}

static int
list_probe(struct qa_remote *r, struct rdir *d, struct qa_dirent **v,
	   size_t *n, size_t *cap)
{
	size_t i, n_shards = 0, dl = strlen(d->path);
	char *child, *text;
	struct rfile *ix;
	cJSON *doc, *map, *it;
	int e;

	/* the files of the folder already read (the input given by URL),
	 * and the other parts of a split set among them */
	for (i = 0; i < r->n_files; i++) {
		const struct rfile *f = r->files[i];
		const char *name = f->path + dl + 1;

		if (f->state != R_FILE || strncmp(f->path, d->path, dl) != 0 ||
		    f->path[dl] != '/' || !*name || strchr(name, '/'))
			continue;
		e = add_dirent(v, n, cap, name, QA_NODE_FILE, f->size);
		if (!e)
			e = probe_split(r, d, name, v, n, cap);
		if (e)
			return e;
	}
	for (i = 0; i < sizeof(probe_names) / sizeof(probe_names[0]); i++) {
		e = probe_one(r, d, probe_names[i], v, n, cap);
		if (e)
			return e;
	}
	child = cat3(d->path, "/", "model.safetensors.index.json");
	ix = child ? file_get(r, child) : NULL;
	free(child);
	if (!ix)
		return ENOMEM;
	if (ix->state != R_FILE)
		return 0;
	text = read_whole(r, ix, MAX_LISTING, &e);
	if (!text)
		return e;
	doc = cJSON_Parse(text);
	free(text);
	/* the shards the index names; a malformed index is the loader's
	 * finding, not a listing error */
	map = cJSON_GetObjectItemCaseSensitive(doc, "weight_map");
	if (!cJSON_IsObject(map))
		map = NULL;
	e = 0;
	cJSON_ArrayForEach(it, map) {
		if (!cJSON_IsString(it) || strchr(it->valuestring, '/') ||
		    strcmp(it->valuestring, "..") == 0 || !it->valuestring[0])
			continue;
		if (++n_shards > MAX_SHARDS)
			break;
		e = probe_one(r, d, it->valuestring, v, n, cap);
		if (e)
			break;
	}
	cJSON_Delete(doc);
	return e;
}

/* ---- prefetch ----------------------------------------------------------------- */

#define PREFETCH_PARALLEL 8
#define PREFETCH_MAX 1024

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/*
 * The first range of each of the n files, fetched at once
 * (PREFETCH_PARALLEL transfers), except those already held (in memory or
 * the cache) and those past the --max-fetch budget. Best effort: what
 * fails here is fetched again, with retries and a reason, when a loader
 * reads it.
 */
static void
prefetch_files(struct qa_remote *r, struct rfile *const *cand, size_t n)
{
	struct qa_http_item *items;
	struct rfile **files;
	size_t i, k = 0;
	uint64_t budget = budget_left(r);

	items = calloc(n ? n : 1, sizeof(*items));
	files = calloc(n ? n : 1, sizeof(*files));
	if (!items || !files)
		goto out;
	for (i = 0; i < n && k < PREFETCH_MAX; i++) {
		struct rfile *f = cand[i];
		uint64_t next, len;

		if (f->state != R_FILE || f->size == 0)
			continue;
		if (!f->cache_checked)
			cache_load(r, f);
		if (holding(f, 0, &next))
			continue;
		len = f->size < FIRST_FETCH ? f->size : FIRST_FETCH;
		if (len > budget)
			break;
		budget -= len;
		items[k].url = f->url;
		items[k].off = 0;
		items[k].len = len;
		items[k].bearer = f->bearer;
		files[k++] = f;
	}
	if (k < 2 || qa_http_fetch_many(r->http, items, k,
					 PREFETCH_PARALLEL) != 0)
		k = 0;	/* one file gains nothing: read as usual */
	for (i = 0; i < k; i++) {
		struct qa_http_resp *resp = &items[i].resp;
		struct rfile *f = files[i];
		bool ok = !items[i].err && !resp->body_cut &&
			  resp->body_len == items[i].len &&
			  ((resp->status == 206 &&
			    range_answer_ok(resp, 0, items[i].len, f->size)) ||
			   (resp->status == 200 && resp->body_len == f->size)) &&
			  !(resp->etag[0] && f->etag[0] &&
			    strncmp(f->etag, "oid:", 4) != 0 &&
			    strcmp(resp->etag, f->etag) != 0);

		if (ok && add_extent(f, 0, resp->body, items[i].len)) {
			cache_store(r, f, 0, resp->body, items[i].len);
			f->last_end = items[i].len;
			resp->body = NULL;
		}
		qa_http_resp_free(resp);
	}
out:
	free(items);
	free(files);
}

/*
 * The first range of every safetensors file just listed in d, fetched
 * at once: a sharded checkpoint's headers cost one round trip's worth of
 * waiting instead of one per shard.
 */
static void
prefetch(struct qa_remote *r, const struct rdir *d,
	 const struct qa_dirent *v, size_t n)
{
	struct rfile **cand = calloc(n ? n : 1, sizeof(*cand));
	size_t i, k = 0;

	if (!cand)
		return;
	for (i = 0; i < n && k < PREFETCH_MAX; i++) {
		char *child;
		struct rfile *f;

		if (v[i].kind != QA_NODE_FILE ||
		    !ends_with(v[i].name, ".safetensors"))
			continue;
		child = cat3(d->path, "/", v[i].name);
		f = child ? file_get(r, child) : NULL;
		free(child);
		if (f)
			cand[k++] = f;
	}
	prefetch_files(r, cand, k);
	free(cand);
}

/* The length of "-00001-of-00009.gguf", the tail llama.cpp's
 * llama_split_path gives every part of a GGUF split set. */
#define SPLIT_TAIL 20

/* The part number and count of a GGUF split part's path; false when its
 * name does not end as a part's does. */
static bool
split_part(const char *path, unsigned *no, unsigned *count)
{
	size_t n = strlen(path), i;
	const char *t;

	if (n < SPLIT_TAIL)
		return false;
	t = path + n - SPLIT_TAIL;
	if (t[0] != '-' || memcmp(t + 6, "-of-", 4) != 0 ||
	    strcmp(t + 15, ".gguf") != 0)
		return false;
	*no = *count = 0;
	for (i = 1; i < 6; i++) {
		if (!isdigit((unsigned char)t[i]) ||
		    !isdigit((unsigned char)t[i + 9]))
			return false;
		*no = *no * 10 + (unsigned)(t[i] - '0');
		*count = *count * 10 + (unsigned)(t[i + 9] - '0');
	}
	return *no >= 1 && *no <= *count;
}

/*
 * f is a part of a GGUF split set: the first range of every part whose
 * size is already known (a hub listing, or the HEADs the split set's
 * resolution asked) is fetched at once, as a sharded safetensors
 * folder's are: a set of nine parts waits for one round trip, not nine.
 */
static void
prefetch_split(struct qa_remote *r, struct rfile *f)
{
	struct rfile **cand;
	unsigned no, count, k;
	size_t n = 0, len;
	char *sib;

	if (f->split_asked || !split_part(f->path, &no, &count) ||
	    count < 2 || count > PREFETCH_MAX)
		return;
	len = strlen(f->path);
	sib = strdup(f->path);
	cand = calloc(count, sizeof(*cand));
	for (k = 1; sib && cand && k <= count; k++) {
		struct rfile *g;

		snprintf(sib + len - SPLIT_TAIL + 1, 6, "%05u", k);
		sib[len - SPLIT_TAIL + 6] = '-';
		g = file_find(r, sib);
		if (g && g->state == R_FILE)
			cand[n++] = g;
	}
	if (sib && cand && n >= 2) {
		/* once per set: each part's own open finds it asked */
		for (k = 0; k < n; k++)
			cand[k]->split_asked = true;
		prefetch_files(r, cand, n);
	}
	free(cand);
	free(sib);
}

/* ---- the file system ------------------------------------------------------ */

/* What the last failed request said (core/source.h, qa_fs.why). */
static const char *
rfs_why(const struct qa_fs *fs)
{
	return qa_remote_last_error(fs->ctx);
}

static int
rfs_stat(const struct qa_fs *fs, const char *path, enum qa_node_kind *kind,
	 uint64_t *size, int *err)
{
	struct qa_remote *r = fs->ctx;
	char *p = strip_slashes(path);
	bool listed = false;
	struct rfile *f;
	const char *rest;
	struct rdir *d;
	int e;

	/* what this stat says, not an earlier failure another file's
	 * reader did without (rfs_why) */
	qa_remote_clear_error(r);
	*kind = QA_NODE_MISSING;
	*size = 0;
	if (!p) {
		*err = ENOMEM;
		return QA_E_IO;
	}
	while (!dir_find(r, p) && (d = dir_of(r, p, &rest)) != NULL &&
	       d->api_url) {
		const char *last = strrchr(p, '/');
		enum qa_node_kind pk;
		uint64_t ps;
		char *parent;
		int rc;

		if (!strchr(rest, '/')) {
			/* the hub: the parent's listing says what it is */
			struct qa_dirent *v = NULL;
			size_t n = 0, cap = 0;

			e = list_hub(r, d, &v, &n, &cap);
			qa_dirents_free(v, n);
			if (e) {
				free(p);
				*err = e;
				return QA_E_IO;
			}
			listed = true;
			break;
		}
		/* a deeper path: its folders are listed first */
		parent = strndup(p, (size_t)(last - p));
		if (!parent) {
			free(p);
			*err = ENOMEM;
			return QA_E_IO;
		}
		rc = rfs_stat(fs, parent, &pk, &ps, err);
		free(parent);
		if (rc != QA_OK || pk != QA_NODE_DIR) {
			free(p);
			if (rc == QA_OK)
				*err = ENOENT;
			return QA_E_IO;
		}
	}
	if (dir_find(r, p)) {
		free(p);
		*kind = QA_NODE_DIR;
		return QA_OK;
	}
	f = file_get(r, p);
	free(p);
	if (!f) {
		*err = ENOMEM;
		return QA_E_IO;
	}
	if (listed && f->state == R_UNKNOWN)
		f->state = R_MISSING;	/* not in its folder's listing */
	e = file_head(r, f);
	if (e) {
		*err = e;
		return QA_E_IO;
	}
	if (f->state == R_MISSING) {
		*err = ENOENT;
		return QA_E_IO;
	}
	*kind = QA_NODE_FILE;
	*size = f->size;
	return QA_OK;
}

static int
rfs_open(const struct qa_fs *fs, const char *path, struct qa_source *src)
{
	struct qa_remote *r = fs->ctx;
	struct rsource *s;
	struct rfile *f;
	char *p;
	int e;

	qa_remote_clear_error(r);
	memset(src, 0, sizeof(*src));
	src->fd = -1;
	src->path = path;
	p = strip_slashes(path);
	if (!p) {
		src->err = ENOMEM;
		return QA_E_IO;
	}
	if (dir_find(r, p)) {
		free(p);
		src->err = EISDIR;
		src->not_regular = "a folder";
		return QA_E_IO;
	}
	f = file_get(r, p);
	free(p);
	s = malloc(sizeof(*s));
	if (!f || !s) {
		free(s);
		src->err = ENOMEM;
		return QA_E_IO;
	}
	e = file_head(r, f);
	if (!e && f->state == R_MISSING)
		e = ENOENT;
	if (e) {
		free(s);
		src->err = e;
		return QA_E_IO;
	}
	prefetch_split(r, f);
	s->r = r;
	s->f = f;
	src->ops = &remote_ops;
	src->ctx = s;
	src->size = f->size;
	return QA_OK;
}

static int
rfs_list(const struct qa_fs *fs, const char *dir, struct qa_dirent **out,
	 size_t *n_out)
{
	struct qa_remote *r = fs->ctx;
	struct qa_dirent *v = NULL;
	size_t n = 0, cap = 0;
	char *p = strip_slashes(dir);
	struct rdir *d = p ? dir_find(r, p) : NULL;
	int e;

	qa_remote_clear_error(r);
	*out = NULL;
	*n_out = 0;
	if (!d && p && is_http(p))
		/* the folder of a file given by URL: plain HTTP cannot
		 * list it, its names are looked up one by one */
		d = dir_add(r, p, p, NULL);
	free(p);
	if (!d) {
		errno = ENOENT;
		return QA_E_IO;
	}
	e = d->api_url ? list_hub(r, d, &v, &n, &cap) :
	    list_probe(r, d, &v, &n, &cap);
	if (e) {
		qa_dirents_free(v, n);
		errno = e;
		return e == ENOMEM ? QA_E_NOMEM : QA_E_IO;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_name);
	prefetch(r, d, v, n);
	*out = v;
	*n_out = n;
	return QA_OK;
}

/* ---- the session ---------------------------------------------------------- */

int
qa_remote_create(const struct qa_remote_options *opt, struct qa_remote **out,
		 char *err, size_t errlen)
{
	struct qa_http_limits lim;
	struct qa_remote *r;
	const char *ep;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return QA_E_NOMEM;
	}
	r->opt = *opt;
	if (!r->opt.max_fetch)
		r->opt.max_fetch = (uint64_t)1 << 30;
	if (!r->opt.timeout_s)
		r->opt.timeout_s = 60;
	ep = opt->endpoint && *opt->endpoint ? opt->endpoint :
	     "https://huggingface.co";
	r->endpoint = strip_slashes(ep);
	if (!r->endpoint) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return QA_E_NOMEM;
	}
	memset(&lim, 0, sizeof(lim));
	lim.timeout_s = r->opt.timeout_s;
	lim.retries = r->opt.retries;
	lim.bearer = opt->token;
	if (!r->opt.deadline_s)
		r->opt.deadline_s = QA_REMOTE_DEADLINE_DEFAULT;
	if (r->opt.deadline_s != UINT_MAX) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		lim.deadline_s = r->opt.deadline_s;
		lim.deadline_ms = (uint64_t)ts.tv_sec * 1000u +
				  (uint64_t)ts.tv_nsec / 1000000u +
				  (uint64_t)r->opt.deadline_s * 1000u;
	}
	r->http = qa_http_open(&lim, err, errlen);
	if (!r->http) {
		free(r->endpoint);
		free(r);
		return QA_E_IO;
	}
	r->opt.token = opt->token ? "" : NULL;	/* only whether there is one */
	r->fs.stat = rfs_stat;
	r->fs.open = rfs_open;
	r->fs.list = rfs_list;
	r->fs.ctx = r;
	r->fs.why = rfs_why;
	*out = r;
	return QA_OK;
}

void
qa_remote_free(struct qa_remote *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_files; i++)
		file_free(r->files[i]);
	for (i = 0; i < r->n_dirs; i++) {
		free(r->dirs[i].path);
		free(r->dirs[i].base_url);
		free(r->dirs[i].api_url);
	}
	free(r->files);
	free(r->dirs);
	qa_http_close(r->http);
	free(r->endpoint);
	free(r);
}

const struct qa_fs *
qa_remote_fs(struct qa_remote *r)
{
	return &r->fs;
}

/* hf://org/repo[@rev][/path]: the hub folder of the repo registered,
 * and the path of what is named. */
static int
locate_hub(struct qa_remote *r, const char *ref, char **path, char *err,
	   size_t errlen)
{
	const char *s = ref + 5, *slash1, *end, *at, *sub;
	char *org_repo = NULL, *rev = NULL, *base = NULL, *api = NULL;
	char *tmp;
	int rc = QA_E_NOMEM;

	slash1 = strchr(s, '/');
	if (!slash1 || slash1 == s || slash1[1] == '\0' || slash1[1] == '/') {
		snprintf(err, errlen, "'%s': a Hugging Face reference is "
			 "hf://org/repo[@revision][/path]", ref);
		return QA_E_USAGE;
	}
	end = strchr(slash1 + 1, '/');
	sub = end ? end + 1 : "";
	if (!end)
		end = slash1 + strlen(slash1);
	at = memchr(slash1 + 1, '@', (size_t)(end - slash1 - 1));
	org_repo = strndup(s, (size_t)((at ? at : end) - s));
	rev = at ? strndup(at + 1, (size_t)(end - at - 1)) : strdup("main");
	if (!org_repo || !rev)
		goto out;
	if (!*rev || strstr(org_repo, "..") || strchr(rev, '?') ||
	    strchr(rev, '#')) {
		snprintf(err, errlen, "'%s': a Hugging Face reference is "
			 "hf://org/repo[@revision][/path]", ref);
		rc = QA_E_USAGE;
		goto out;
	}
	tmp = encode(rev, "%");
	if (!tmp)
		goto out;
	free(rev);
	rev = tmp;
	{
		size_t n = strlen(r->endpoint) + strlen(org_repo) +
			   strlen(rev) + 32;

		base = malloc(n);
		api = malloc(n);
		if (!base || !api)
			goto out;
		snprintf(base, n, "%s/%s/resolve/%s", r->endpoint, org_repo,
			 rev);
		snprintf(api, n, "%s/api/models/%s/tree/%s", r->endpoint,
			 org_repo, rev);
	}
	if (!dir_add(r, base, base, api))
		goto out;
	tmp = strip_slashes(sub);
	if (!tmp)
		goto out;
	*path = *tmp ? cat3(base, "/", tmp) : strdup(base);
	free(tmp);
	rc = *path ? QA_OK : QA_E_NOMEM;
out:
	if (rc == QA_E_NOMEM)
		snprintf(err, errlen, "out of memory");
	free(org_repo);
	free(rev);
	free(base);
	free(api);
	return rc;
}

int
qa_remote_locate(struct qa_remote *r, const char *input, char **path,
		 char *err, size_t errlen)
{
	size_t n = strlen(input);

	*path = NULL;
	if (strncmp(input, "hf://", 5) == 0)
		return locate_hub(r, input, path, err, errlen);
	if (strchr(input, ' ') || strchr(input, '\n')) {
		snprintf(err, errlen, "'%s': a URL has no spaces (encode them "
			 "as %%20)", input);
		return QA_E_USAGE;
	}
	*path = strip_slashes(input);
	if (!*path) {
		snprintf(err, errlen, "out of memory");
		return QA_E_NOMEM;
	}
	if (n > 0 && input[n - 1] == '/' && !dir_add(r, *path, *path, NULL)) {
		free(*path);
		*path = NULL;
		snprintf(err, errlen, "out of memory");
		return QA_E_NOMEM;
	}
	return QA_OK;
}

unsigned
qa_remote_deadline(const struct qa_remote *r)
{
	return r && r->opt.deadline_s != UINT_MAX ? r->opt.deadline_s : 0;
}

bool
qa_remote_deadline_passed(const struct qa_remote *r)
{
	return r && qa_http_deadline_passed(r->http);
}
