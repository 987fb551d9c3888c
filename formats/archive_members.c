/* SPDX-License-Identifier: MIT */
/*
 * The member table of an archive (formats/archive_int.h): the checks on
 * member names and links, the archive's findings, what is kept of a
 * member streamed out of a compressed archive, and libarchive reading the
 * archive through its qa_source.
 *
 * Names: an extractor joins the member name to its target folder. A name
 * that is absolute, climbs with "..", carries a drive letter or a
 * backslash (a separator to Windows tools), a NUL byte (C readers stop
 * there, Python's zipfile does not) or control characters would be
 * written elsewhere than where it claims, or read differently by two
 * tools: such a member is reported (QA1504) and left out of the members'
 * file system. "./" and empty components are dropped, as tar does.
 *
 * Streaming: the loaders read a GGUF header (up to the end of its tensor
 * infos), a safetensors header (8 bytes and the JSON), side files whole
 * (config.json, tokenizer_config.json, chat_template.jinja...) and the
 * first bytes of anything else. The keeper keeps that much of each
 * streamed member, and 128 KiB beyond a GGUF or safetensors header for
 * the loaders' read-ahead (core/source.h QA_READER_BUF), within
 * QA_ARCHIVE_KEEP_MEMBER per member and QA_ARCHIVE_KEEP_TOTAL per archive.
 */
#define _POSIX_C_SOURCE 200809L
#define QA_ARCHIVE_INTERNAL
#include "formats/archive_int.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ckd.h"

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ---- findings ---------------------------------------------------------- */

bool
ar_finding(struct qa_archive *ar, unsigned code, const char *file,
	   int64_t offset, const char *fmt, ...)
{
	struct ar_finding *f;
	char msg[1024];
	va_list ap;

	if (ar->nf == ar->capf) {
		size_t ncap = ar->capf ? ar->capf * 2 : 16;
		struct ar_finding *nv = realloc(ar->f, ncap * sizeof(*nv));

		if (!nv)
			return false;
		ar->f = nv;
		ar->capf = ncap;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	f = &ar->f[ar->nf];
	f->code = code;
	f->offset = offset;
	f->file = strdup(file ? file : ar->path);
	f->message = strdup(msg);
	if (!f->file || !f->message) {
		free(f->file);
		free(f->message);
		return false;
	}
	ar->nf++;
	return true;
}

void
ar_escape(char *out, size_t cap, const char *raw, size_t len)
{
	size_t i, k = 0;

	if (cap == 0)
		return;
	for (i = 0; i < len && k + 5 < cap; i++) {
		unsigned char c = (unsigned char)raw[i];

		if (c < 0x20 || c == 0x7f || c == '\\') {
			k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
		} else {
			out[k++] = (char)c;
		}
	}
	if (i < len && k + 4 < cap) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = '\0';
}

/* ---- members ------------------------------------------------------------- */

/* Why a raw name is unsafe, or NULL; *norm gets the normalized name
 * (malloc'd) when it is safe. */
static const char *
name_problem(const char *raw, size_t len, char **norm)
{
	const char *p = raw, *end = raw + len;
	char *out;
	size_t k = 0, i;

	*norm = NULL;
	if (len == 0)
		return "an empty name";
	if (len > QA_ARCHIVE_NAME_MAX)
		return "a name longer than 4096 bytes";
	if (memchr(raw, '\0', len))
		return "a NUL byte in its name (tools that stop at it read "
		       "another name than tools that do not)";
	if (raw[0] == '/')
		return "an absolute path";
	if (len >= 2 && isalpha((unsigned char)raw[0]) && raw[1] == ':')
		return "a drive letter";
	if (memchr(raw, '\\', len))
		return "a backslash (a folder separator to Windows "
		       "extractors)";
	for (i = 0; i < len; i++)
		if ((unsigned char)raw[i] < 0x20 || raw[i] == 0x7f)
			return "control characters in its name";
	out = malloc(len + 1);
	if (!out)
		return NULL;
	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			free(out);
			return "a '..' component";
		}
		if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (k)
				out[k++] = '/';
			memcpy(out + k, p, n);
			k += n;
		}
		p += n + (slash ? 1 : 0);
	}
	out[k] = '\0';
	*norm = out;
	return NULL;
}

struct ar_member *
ar_add_member(struct qa_archive *ar, const char *raw, size_t len,
	      enum ar_type type, uint64_t size, int64_t header_offset)
{
	struct ar_member *m;
	const char *problem;
	char *norm = NULL;

	if (ar->n == ar->cap) {
		size_t ncap = ar->cap ? ar->cap * 2 : 32;
		struct ar_member *nv = realloc(ar->m, ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		ar->m = nv;
		ar->cap = ncap;
	}
	problem = name_problem(raw, len, &norm);
	if (!problem && !norm)
		return NULL;
	m = &ar->m[ar->n];
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->size = size;
	m->header_offset = header_offset;
	if (problem) {
		char esc[512];

		ar_escape(esc, sizeof(esc), raw, len);
		m->name = strdup(esc);
		m->hidden = true;
		if (!m->name)
			return NULL;
		if (!ar_finding(ar, QA1504, ar->path, header_offset,
				"member '%s' has %s: extracting it writes "
				"outside the target folder or under another "
				"name; it is not inspected", esc, problem)) {
			free(m->name);
			return NULL;
		}
	} else {
		m->name = norm;
		/* "./" itself: the root folder, no member of its own */
		if (!*norm)
			m->hidden = true;
	}
	m->path = malloc(strlen(ar->root) + strlen(m->name) + 2);
	if (!m->path) {
		free(m->name);
		return NULL;
	}
	sprintf(m->path, "%s/%s", ar->root, m->name);
	ar->n++;
	return m;
}

void
ar_check_link(struct qa_archive *ar, const struct ar_member *m,
	      const char *target, size_t len, bool hard)
{
	const char *p = target, *end = target + len;
	const char *kind = hard ? "hard link" : "symbolic link";
	long depth = 0;
	bool escapes = false;
	char esc[512];
	size_t i;

	ar_escape(esc, sizeof(esc), target, len);
	if (len == 0 || target[0] == '/' ||
	    (len >= 2 && isalpha((unsigned char)target[0]) &&
	     target[1] == ':') || memchr(target, '\\', len))
		escapes = len > 0;
	/* A symbolic link resolves from its own folder, a hard link's
	 * target is a member name. */
	if (!hard)
		for (i = 0; m->name[i]; i++)
			if (m->name[i] == '/')
				depth++;
	while (!escapes && p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				escapes = true;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n + (slash ? 1 : 0);
	}
	if (escapes)
		ar_finding(ar, QA1507, ar->path, (int64_t)m->header_offset,
			   "%s '%s' points to '%s', outside the archive's "
			   "folder", kind, m->name, esc);
	else
		ar_finding(ar, QA1506, ar->path, (int64_t)m->header_offset,
			   "'%s' is a %s to '%s'; quantaudit does not follow "
			   "it", m->name, kind, esc);
}

void
ar_not_inspected(struct qa_archive *ar, struct ar_member *m, enum ar_why why,
		 const char *detail)
{
	if (m->why != AR_OK)
		return;
	m->why = why;
	m->in_place = false;
	free(m->kept);
	m->kept = NULL;
	m->kept_len = 0;
	m->kept_set = false;
	ar->n_not_inspected++;
	ar_finding(ar, QA1509, ar->path, (int64_t)m->header_offset,
		   "'%s' is not inspected: %s", m->name, detail);
}

/* ---- after listing ------------------------------------------------------- */

static int
cmp_name(const void *a, const void *b)
{
	const struct ar_member *x = *(const struct ar_member *const *)a;
	const struct ar_member *y = *(const struct ar_member *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

static int
cmp_case(const void *a, const void *b)
{
	const struct ar_member *x = *(const struct ar_member *const *)a;
	const struct ar_member *y = *(const struct ar_member *const *)b;
	int c = strcasecmp(x->name, y->name);

	if (c)
		return c;
	return strcmp(x->name, y->name);
}

bool
ar_finalize(struct qa_archive *ar)
{
	struct ar_member **v;
	size_t i, j, n = 0, k;

	v = malloc((ar->n ? ar->n : 1) * sizeof(*v));
	if (!v)
		return false;
	for (i = 0; i < ar->n; i++)
		if (!ar->m[i].hidden && ar->m[i].type != AR_DIR)
			v[n++] = &ar->m[i];
	qsort(v, n, sizeof(*v), cmp_name);
	/* Runs of one name: the last member (in archive order) wins. */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(v[i]->name, v[j]->name) == 0;
		     j++)
			;
		if (j - i < 2)
			continue;
		ar_finding(ar, QA1505, ar->path,
			   (int64_t)v[j - 1]->header_offset,
			   "'%s' is in the archive %zu times; extractors "
			   "disagree on which copy wins, quantaudit inspects "
			   "the last", v[i]->name, j - i);
		for (k = i; k + 1 < j; k++)
			v[k]->hidden = true;
	}
	for (i = k = 0; i < n; i++)
		if (!v[i]->hidden)
			v[k++] = v[i];
	n = k;
	/* Names one case-insensitive file system cannot hold together. */
	{
		struct ar_member **c = malloc((n ? n : 1) * sizeof(*c));
		size_t reported = 0;

		if (!c) {
			free(v);
			return false;
		}
		memcpy(c, v, n * sizeof(*c));
		qsort(c, n, sizeof(*c), cmp_case);
		for (i = 0; i + 1 < n && reported < 16; i++)
			if (strcasecmp(c[i]->name, c[i + 1]->name) == 0) {
				ar_finding(ar, QA1505, ar->path,
					   (int64_t)c[i + 1]->header_offset,
					   "'%s' and '%s' differ only in case: "
					   "on a case-insensitive file system "
					   "one overwrites the other",
					   c[i]->name, c[i + 1]->name);
				reported++;
			}
		free(c);
	}
	if (ar->declared_total > QA_ARCHIVE_MAX_TOTAL && !ar->bomb) {
		ar->bomb = true;
		ar_finding(ar, QA1502, ar->path, -1, "the members declare %"
			   PRIu64 " bytes in all, more than the 16 TiB "
			   "quantaudit accepts for one archive",
			   ar->declared_total);
	}
	/* Directory members stay in the table for the file system's
	 * folders; they are looked up by name prefix like any other. */
	for (i = 0; i < ar->n; i++)
		if (!ar->m[i].hidden && ar->m[i].type == AR_DIR) {
			struct ar_member **nv = realloc(v, (n + 1) *
							sizeof(*v));

			if (!nv) {
				free(v);
				return false;
			}
			v = nv;
			v[n++] = &ar->m[i];
		}
	qsort(v, n, sizeof(*v), cmp_name);
	ar->sorted = v;
	ar->n_sorted = n;
	return true;
}

/* ---- archives inside the archive --------------------------------------------- */

static bool
inner_archive_name(const char *name)
{
	/* Model formats that are zips (PyTorch's .bin/.pt/.pth/.ckpt) are
	 * not here: they are read as checkpoints. */
	static const char *const ext[] = {
		".tar", ".tgz", ".tbz2", ".txz", ".tzst", ".gz", ".zst",
		".xz", ".bz2", ".lz4", ".lzma", ".zip", ".llamafile", ".nemo",
		".7z", ".rar", ".cpio", ".iso",
	};
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (ends_with(name, ext[i]))
			return true;
	return false;
}

/* Names whose loaders read a zip as what it is (PyTorch's checkpoint
 * archive, numpy's .npz, Keras): a zip under them is no nested archive. */
static bool
zip_format_name(const char *name)
{
	static const char *const ext[] = {
		".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".npz",
		".keras", ".mar", ".nemo",
	};
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (ends_with(name, ext[i]))
			return true;
	return false;
}

/*
 * The container a member's first bytes (n of them) start, or NULL: zip,
 * tar (ustar magic at 257, POSIX.1-1988), and the compressed streams
 * libarchive opens as archives (gzip RFC 1952, zstd RFC 8878, xz, bzip2
 * with its block magic, 7z, rar).
 */
static const char *
container_magic(const unsigned char *b, size_t n, const char *name)
{
	if (n >= 4 && (memcmp(b, "PK\003\004", 4) == 0 ||
		       memcmp(b, "PK\005\006", 4) == 0))
		return zip_format_name(name) ? NULL : "a zip archive";
	if (n >= 263 && memcmp(b + 257, "ustar", 5) == 0)
		return "a tar archive";
	if (n >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8)
		return "a gzip stream";
	if (n >= 4 && memcmp(b, "\x28\xb5\x2f\xfd", 4) == 0)
		return "a zstd stream";
	if (n >= 6 && memcmp(b, "\xfd" "7zXZ\0", 6) == 0)
		return "an xz stream";
	if (n >= 10 && memcmp(b, "BZh", 3) == 0 && b[3] >= '1' &&
	    b[3] <= '9' && memcmp(b + 4, "1AY&SY", 6) == 0)
		return "a bzip2 stream";
	if (n >= 6 && memcmp(b, "7z\xbc\xaf\x27\x1c", 6) == 0)
		return "a 7z archive";
	if (n >= 6 && memcmp(b, "Rar!\x1a\x07", 6) == 0)
		return "a rar archive";
	return NULL;
}

/* Bytes of a member looked at for a container's magic. */
#define AR_SNIFF 512

void
ar_inner_archives(struct qa_archive *ar)
{
	size_t i;

	for (i = 0; i < ar->n_sorted; i++) {
		struct ar_member *m = ar->sorted[i];
		unsigned char b[AR_SNIFF];
		const unsigned char *head = NULL;
		size_t n = 0;
		const char *what;
		char detail[320];

		if (m->type != AR_FILE || m->why != AR_OK)
			continue;
		if (inner_archive_name(m->name)) {
			ar_not_inspected(ar, m, AR_NESTED, "it is an archive "
					 "inside the archive, which quantaudit "
					 "does not open (extract the outer one, "
					 "or give the inner one as its own "
					 "input)");
			continue;
		}
		/* Whatever its name says: the bytes at hand (stored in
		 * place, or kept while streaming). A compressed member no
		 * loader wants is not decompressed to look. */
		n = m->size < AR_SNIFF ? (size_t)m->size : AR_SNIFF;
		if (m->in_place && n &&
		    qa_source_read(&ar->src, m->offset, b, n) == QA_OK) {
			head = b;
		} else if (m->kept_set && m->kept) {
			head = m->kept;
			n = m->kept_len < AR_SNIFF ? (size_t)m->kept_len :
			    AR_SNIFF;
		}
		what = head ? container_magic(head, n, m->name) : NULL;
		if (!what)
			continue;
		snprintf(detail, sizeof(detail), "its bytes are %s (an archive "
			 "inside the archive under another name), which "
			 "quantaudit does not open", what);
		ar_not_inspected(ar, m, AR_NESTED, detail);
	}
}

/* ---- what a streamed member keeps ------------------------------------------ */

/* Bytes kept past a header for the loaders' read-ahead. */
#define AR_SLACK ((uint64_t)2 * QA_READER_BUF)
/* safetensors' own header bound (formats/safetensors.c ST_MAX_HEADER). */
#define AR_ST_MAX_HEADER ((uint64_t)100000000)

struct gcur {
	const uint8_t *p;
	size_t n, pos;
	uint64_t size;		/* the member's size: lengths beyond it stop */
	bool be;
};

static bool
g_have(const struct gcur *c, uint64_t k)
{
	return c->n - c->pos >= k;
}

static uint64_t
g_int(struct gcur *c, size_t k)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < k; i++) {
		uint64_t b = c->p[c->pos + (c->be ? i : k - 1 - i)];

		v = v << 8 | b;
	}
	c->pos += k;
	return v;
}

/* A length that the member cannot hold: the loader stops there too. */
static bool
g_absurd(const struct gcur *c, uint64_t len)
{
	return len > c->size || c->pos > c->size ||
	       len > c->size - c->pos;
}

enum { G_NEED = 0, G_DONE = 1, G_STOP = -1 };

static int
g_skip(struct gcur *c, uint64_t len)
{
	if (g_absurd(c, len))
		return G_STOP;
	if (!g_have(c, len))
		return G_NEED;
	c->pos += (size_t)len;
	return G_DONE;
}

/* Size of a fixed-size GGUF value type, 0 for string and array, -1 for
 * an unknown type. */
static int
g_type_size(uint32_t t)
{
	static const int8_t sz[] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };

	return t < sizeof(sz) ? sz[t] : -1;
}

static int
g_value(struct gcur *c, uint32_t type, int depth)
{
	int s = g_type_size(type), rc;
	uint64_t len, count, i, bytes;
	uint32_t elem;

	if (s < 0 || depth > 8)
		return G_STOP;
	if (s > 0)
		return g_skip(c, (uint64_t)s);
	if (type == 8) {
		if (!g_have(c, 8))
			return G_NEED;
		len = g_int(c, 8);
		return g_skip(c, len);
	}
	if (!g_have(c, 12))
		return G_NEED;
	elem = (uint32_t)g_int(c, 4);
	count = g_int(c, 8);
	s = g_type_size(elem);
	if (s < 0)
		return G_STOP;
	if (s > 0) {
		if (qa_ckd_mul(&bytes, count, (uint64_t)s))
			return G_STOP;
		return g_skip(c, bytes);
	}
	/* strings or arrays: each at least 8 bytes */
	if (g_absurd(c, count) || count > (c->size - c->pos) / 8)
		return G_STOP;
	for (i = 0; i < count; i++) {
		rc = g_value(c, elem, depth + 1);
		if (rc != G_DONE)
			return rc;
	}
	return G_DONE;
}

/*
 * How far the GGUF header in p[0..n) runs (a member of size bytes):
 * G_DONE with *end at the end of the tensor infos, G_NEED when more bytes
 * are needed, G_STOP when the header cannot be walked further (*end where
 * it stopped: the loader stops there too, so nothing past it is read).
 */
static int
gguf_scan(const uint8_t *p, size_t n, uint64_t size, uint64_t *end)
{
	struct gcur c = { p, n, 0, size, false };
	uint64_t n_tensors, n_kv, i, len, dims;
	uint32_t version;
	int rc;

	*end = 0;
	if (!g_have(&c, 24))
		return n >= size ? G_STOP : G_NEED;
	c.pos = 4;
	version = (uint32_t)g_int(&c, 4);
	if (version != 0 && (version & 0xFFFF) == 0) {
		c.be = true;
		version = __builtin_bswap32(version);
	}
	if (version < 2 || version > 3) {
		*end = c.pos;
		return G_STOP;
	}
	n_tensors = g_int(&c, 8);
	n_kv = g_int(&c, 8);
	for (i = 0; i < n_kv; i++) {
		if (!g_have(&c, 8))
			goto need;
		len = g_int(&c, 8);
		rc = g_skip(&c, len);
		if (rc == G_DONE) {
			if (!g_have(&c, 4))
				goto need;
			rc = g_value(&c, (uint32_t)g_int(&c, 4), 0);
		}
		if (rc == G_NEED)
			goto need;
		if (rc == G_STOP)
			goto stop;
	}
	for (i = 0; i < n_tensors; i++) {
		if (!g_have(&c, 8))
			goto need;
		len = g_int(&c, 8);
		rc = g_skip(&c, len);
		if (rc == G_STOP)
			goto stop;
		if (rc == G_NEED || !g_have(&c, 4))
			goto need;
		dims = g_int(&c, 4);
		if (qa_ckd_mul(&len, dims, 8) || qa_ckd_add(&len, len, 12))
			goto stop;
		rc = g_skip(&c, len);
		if (rc == G_STOP)
			goto stop;
		if (rc == G_NEED)
			goto need;
	}
	*end = c.pos;
	return G_DONE;
need:
	return G_NEED;
stop:
	*end = c.pos;
	return G_STOP;
}

/* Files the loaders read whole (formats/hf_side.c, st_set.c, input.c). */
static bool
side_file(const char *name)
{
	static const char *const ext[] = { ".json", ".jinja", ".txt", ".yaml",
					   ".yml", ".args", NULL };
	size_t i;

	for (i = 0; ext[i]; i++)
		if (ends_with(name, ext[i]))
			return true;
	return false;
}

static uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void
ar_keeper_start(struct ar_keeper *k, struct qa_archive *ar,
		struct ar_member *m)
{
	memset(k, 0, sizeof(*k));
	k->ar = ar;
	k->m = m;
	k->target = UINT64_MAX;
	if (side_file(m->name)) {
		k->kind = 2;
		k->target = m->size <= QA_ARCHIVE_KEEP_MEMBER ? m->size :
			    QA_ARCHIVE_KEEP_HEAD;
	}
	if (m->size == 0) {
		k->kind = 2;
		k->target = 0;
		k->full = true;
	}
}

/* Decides what to keep once the first bytes are there. */
static void
decide(struct ar_keeper *k)
{
	const unsigned char *b = k->buf;
	uint64_t size = k->m->size, hlen = 0;
	size_t i;

	if (k->len >= 4 && memcmp(b, "GGUF", 4) == 0) {
		k->kind = 1;
		k->next_scan = 0;
		return;
	}
	k->kind = 2;
	k->target = QA_ARCHIVE_KEEP_HEAD;
	if (k->len >= 8) {
		for (i = 8; i > 0; i--)
			hlen = hlen << 8 | b[i - 1];
		if (hlen <= AR_ST_MAX_HEADER && hlen > 0 &&
		    (ends_with(k->m->name, ".safetensors") ||
		     (k->len > 8 && b[8] == '{')))
			k->target = 8 + hlen + AR_SLACK;
	}
	k->target = min64(k->target, size);
}

static void
scan(struct ar_keeper *k)
{
	uint64_t end;
	int rc = gguf_scan(k->buf, k->len, k->m->size, &end);

	if (rc == G_NEED) {
		k->next_scan = k->len * 2;
		return;
	}
	k->kind = 2;
	if (qa_ckd_add(&end, end, AR_SLACK))
		end = UINT64_MAX;
	k->target = min64(end, k->m->size);
}

bool
ar_keeper_wants(const struct ar_keeper *k)
{
	return !k->full && !k->over;
}

bool
ar_keeper_feed(struct ar_keeper *k, const void *data, size_t n)
{
	uint64_t room, take;

	if (!ar_keeper_wants(k) || n == 0)
		return true;
	room = k->target == UINT64_MAX ? QA_ARCHIVE_KEEP_MEMBER :
	       k->target;
	if (room > QA_ARCHIVE_KEEP_MEMBER) {
		k->over = true;
		return true;
	}
	room -= min64(room, k->len);
	take = min64(room, n);
	if (k->len + take > k->cap) {
		size_t ncap = k->cap ? k->cap : 64 * 1024;
		unsigned char *nb;

		while (ncap < k->len + take)
			ncap *= 2;
		if (k->target != UINT64_MAX && ncap > k->target)
			ncap = (size_t)k->target;
		nb = realloc(k->buf, ncap);
		if (!nb)
			return false;
		k->buf = nb;
		k->cap = ncap;
	}
	memcpy(k->buf + k->len, data, (size_t)take);
	k->len += (size_t)take;
	if (k->ar->kept_total + k->len > QA_ARCHIVE_KEEP_TOTAL) {
		k->over = true;
		return true;
	}
	if (k->kind == 0 && (k->len >= 9 || k->len >= k->m->size))
		decide(k);
	if (k->kind == 1 && (k->len >= k->next_scan ||
			     k->len >= k->m->size))
		scan(k);
	if (k->target != UINT64_MAX && k->len >= k->target) {
		k->len = (size_t)k->target;
		k->full = true;
	} else if (k->target == UINT64_MAX &&
		   k->len >= QA_ARCHIVE_KEEP_MEMBER) {
		/* a GGUF header that does not end within the bound */
		k->over = true;
	}
	return true;
}

void
ar_keeper_finish(struct ar_keeper *k, bool complete)
{
	struct ar_member *m = k->m;
	char why[160];

	if (k->over) {
		free(k->buf);
		if (k->ar->kept_total + QA_ARCHIVE_KEEP_HEAD >
		    QA_ARCHIVE_KEEP_TOTAL)
			snprintf(why, sizeof(why), "the archive is compressed "
				 "and the %u MiB quantaudit keeps of its "
				 "members' headers are used up",
				 (unsigned)(QA_ARCHIVE_KEEP_TOTAL >> 20));
		else
			snprintf(why, sizeof(why), "the archive is compressed "
				 "and its header needs more than the %u MiB "
				 "quantaudit keeps of one member",
				 (unsigned)(QA_ARCHIVE_KEEP_MEMBER >> 20));
		ar_not_inspected(k->ar, m, AR_NOT_KEPT, why);
		return;
	}
	if (!k->full && !complete && k->len < m->size) {
		free(k->buf);
		ar_not_inspected(k->ar, m, AR_NOT_REACHED, "reading the "
				 "archive stopped inside it");
		return;
	}
	if (!k->full && k->len < m->size) {
		/* The member's stream ended before its declared size (a
		 * short deflate stream, or an entry whose mode names no
		 * file type, for which libarchive gives no data): reading
		 * its header from the bytes there are would pass a cut
		 * file off as whole. */
		free(k->buf);
		snprintf(why, sizeof(why), "the archive gives %zu of the %"
			 PRIu64 " bytes it declares for it", k->len, m->size);
		ar_not_inspected(k->ar, m, AR_UNDECODABLE, why);
		return;
	}
	if (k->len < k->cap && k->len > 0) {
		unsigned char *nb = realloc(k->buf, k->len);

		if (nb)
			k->buf = nb;
	}
	m->kept = k->buf;
	m->kept_len = k->len;
	m->kept_set = true;
	k->ar->kept_total += k->len;
	k->buf = NULL;
}

/* ---- libarchive over the archive's source ------------------------------ */

#define AR_BLOCK ((size_t)64 * 1024)

struct ar_la_ctx {
	struct qa_archive *ar;
	uint64_t pos;
	unsigned char buf[AR_BLOCK];
};

static la_ssize_t
la_read(struct archive *a, void *ud, const void **out)
{
	struct ar_la_ctx *c = ud;
	struct qa_source *src = &c->ar->src;
	size_t n;

	if (c->pos >= src->size)
		return 0;
	n = (size_t)min64(src->size - c->pos, AR_BLOCK);
	if (qa_source_read(src, c->pos, c->buf, n) != QA_OK) {
		sym_archive_set_error(a, src->err ? src->err : EIO,
				  "read error at offset %" PRIu64, c->pos);
		return -1;
	}
	c->pos += n;
	*out = c->buf;
	return (la_ssize_t)n;
}

static la_int64_t
la_skip(struct archive *a, void *ud, la_int64_t request)
{
	struct ar_la_ctx *c = ud;
	uint64_t left = c->ar->src.size - min64(c->pos, c->ar->src.size);
	uint64_t n = request > 0 ? min64((uint64_t)request, left) : 0;

	(void)a;
	c->pos += n;
	return (la_int64_t)n;
}

static la_int64_t
la_seek(struct archive *a, void *ud, la_int64_t offset, int whence)
{
	struct ar_la_ctx *c = ud;
	int64_t base = whence == SEEK_SET ? 0 :
		       whence == SEEK_CUR ? (int64_t)c->pos :
		       (int64_t)c->ar->src.size;
	int64_t to;

	(void)a;
	if (__builtin_add_overflow(base, offset, &to) || to < 0 ||
	    (uint64_t)to > c->ar->src.size)
		return ARCHIVE_FATAL;
	c->pos = (uint64_t)to;
	return to;
}

static int
la_close(struct archive *a, void *ud)
{
	(void)a;
	free(ud);
	return ARCHIVE_OK;
}

struct archive *
ar_la_open(struct qa_archive *ar, enum ar_la_kind kind, char *err,
	   size_t errlen)
{
	struct archive *a;
	struct ar_la_ctx *c;

	if (!ar_la_load(err, errlen))
		return NULL;
	a = sym_archive_read_new();
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		sym_archive_read_free(a);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->ar = ar;
	/* Only the formats quantaudit reads: the tar family under the
	 * compressions models ship with, and zip by its central directory.
	 * libarchive's other readers (7-Zip, RAR, ISO, cpio...) and the
	 * filters that run external programs (lrzip, lzop, grzip) stay
	 * off. */
	if (kind == AR_LA_TAR) {
		sym_archive_read_support_filter_gzip(a);
		sym_archive_read_support_filter_bzip2(a);
		sym_archive_read_support_filter_xz(a);
		sym_archive_read_support_filter_lzma(a);
		sym_archive_read_support_filter_zstd(a);
		sym_archive_read_support_filter_lz4(a);
		sym_archive_read_support_format_tar(a);
	} else {
		sym_archive_read_support_format_zip_seekable(a);
	}
	sym_archive_read_set_callback_data(a, c);
	sym_archive_read_set_read_callback(a, la_read);
	sym_archive_read_set_skip_callback(a, la_skip);
	sym_archive_read_set_seek_callback(a, la_seek);
	sym_archive_read_set_close_callback(a, la_close);
	if (sym_archive_read_open1(a) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s", sym_archive_error_string(a) ?
			 sym_archive_error_string(a) : "cannot be read");
		sym_archive_read_free(a);
		return NULL;
	}
	return a;
}

void
ar_la_close(struct archive *a)
{
	if (a)
		sym_archive_read_free(a);
}

bool
ar_la_bomb(struct qa_archive *ar, struct archive *a)
{
	la_int64_t out = sym_archive_filter_bytes(a, 0);
	la_int64_t raw = sym_archive_filter_bytes(a, -1);

	if (ar->stopped)
		return true;
	if (out < 0 || raw < 0 || (uint64_t)out <= QA_ARCHIVE_BOMB_FLOOR ||
	    (uint64_t)out / QA_ARCHIVE_BOMB_RATIO <= (uint64_t)raw)
		return false;
	ar->bomb = true;
	ar->stopped = true;
	ar_finding(ar, QA1502, ar->path, -1, "%" PRId64 " compressed bytes "
		   "expanded to %" PRId64 " (more than %u:1 past 1 GiB): "
		   "decompression stopped there", (int64_t)raw, (int64_t)out,
		   QA_ARCHIVE_BOMB_RATIO);
	return true;
}
