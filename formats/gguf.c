/* SPDX-License-Identifier: MIT */
/*
 * GGUF reader: parses the header of one GGUF file (magic, version, the
 * key/value metadata and the tensor infos) into the inventory and checks
 * it against every rule llama.cpp's reader applies (ggml src/gguf.cpp at
 * d99724f2) plus the gaps it leaves (padded-size wrap, polyglot trailing
 * bytes, tensors outside the file). Tensor data is never read: only the
 * header bytes pass through the reader, so a 20 GB file costs kilobytes.
 *
 * Hostile input is the normal case here. Every count and length from the
 * file is bounded by the bytes that remain before anything is looped over
 * or allocated, all arithmetic on file values goes through src/ckd.h, and
 * a problem becomes a finding (QA10xx) rather than an error code; only
 * I/O and real out-of-memory fail the load.
 *
 * Cost is bounded by the header's bytes, whatever they hold: time is
 * O(n log n) (duplicate keys and names are found by sorting, never by a
 * hash an attacker can flood or a scan per key), and memory a small
 * multiple of the header (kept arrays are stored at their own width, not
 * as one struct per element; short strings share pool blocks; the 64 KiB
 * read buffer and the sort tables are freed when the file is parsed).
 * docs/security.md "Limits" gives the bound.
 */
#include "formats/format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"
#include "core/hash.h"
#include "core/dtypes.h"
#include "core/gguf_keys.h"

#define GGUF_DEFAULT_ALIGNMENT 32
/* llama.cpp GGUF_MAX_STRING_LENGTH / GGUF_MAX_ARRAY_ELEMENTS (228be52c). */
#define GGUF_MAX_STRING ((uint64_t)1 << 30)
#define GGUF_MAX_ARRAY ((uint64_t)1 << 30)
/* Spec limit on keys (docs/gguf.md "Standardized key-value pairs"). */
#define GGUF_MAX_KEY 65535
/* GGML_MAX_NAME: names must be shorter than this. */
#define GGUF_MAX_NAME 64
#define GGUF_MAX_DIMS 4
/* huggingface.js MAX_ARRAY_RECURSION_DEPTH: arrays within arrays. */
#define GGUF_MAX_DEPTH 4
/* Smallest encodings: key length 8 + type 4 + 1-byte value; tensor info
 * name length 8 + n_dims 4 + type 4 + offset 8. */
#define KV_MIN_BYTES 13
#define TI_MIN_BYTES 24
/* Kept bytes of a tensor name; longer names are already a finding. */
#define NAME_KEEP 4096

/* Strings up to this many bytes are copied into shared pool blocks
 * (no 16-byte rounding per string: a key of 3 bytes costs 4). Blocks
 * start small and double, so a tiny file does not cost a full block. */
#define POOL_DIRECT 1024
#define POOL_FIRST_BLOCK ((size_t)1024)
#define POOL_MAX_BLOCK ((size_t)16 * 1024)

/*
 * A key or tensor name as read, for duplicate detection after the loop:
 * one pass through a set under a secret hash, O(n) expected whatever the
 * names (llama.cpp's linear scans are O(n^2); a set under a fixed hash
 * is O(n^2) on names crafted to collide).
 */
struct nameref {
	const char *s;
	uint32_t len;		/* bytes compared (names: the kept bytes) */
	uint64_t off;		/* file offset, for the finding */
};

struct namelist {
	struct nameref *v;	/* malloc'd; freed when the file is parsed */
	size_t n, cap;
};

/* Ids a fork may plausibly use: ik_llama.cpp's run to 399; GGML_TYPE_COUNT
 * of every fork read is far below. An unknown id past this is not a
 * fork's type but damage (QA1023). */
#define FORK_ID_MAX 1024

struct gg {
	struct qa_inventory *inv;
	uint32_t fi;
	const char *path;
	struct qa_reader *r;
	uint64_t size;
	uint64_t alignment;
	int rc;			/* QA_OK, QA_E_IO or QA_E_NOMEM */
	bool stop;		/* parsing ended (finding or error) */
	bool nested_seen;	/* QA1007 already reported for this key */
	bool align_seen;	/* general.alignment already checked */
	uint64_t n_sized;	/* tensors whose byte size is known */
	/* fork type ids (below FORK_ID_MAX) already named in a finding */
	uint64_t fork_named[FORK_ID_MAX / 64];
	const char *key;	/* key being read, for messages */
	uint64_t key_off;
	struct namelist keys, names;
	char *pool;		/* free bytes of the current pool block */
	size_t pool_left;
	size_t pool_block;	/* size of the next pool block */
};

static const uint8_t scalar_size[QA_V_COUNT] = {
	1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8,
};

/* Returns false when out of memory. */
static bool
namelist_add(struct namelist *l, const char *s, uint64_t len, uint64_t off)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		struct nameref *nv;

		if (ncap > SIZE_MAX / sizeof(*nv))
			return false;
		nv = realloc(l->v, ncap * sizeof(*nv));
		if (!nv)
			return false;
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n].s = s;
	l->v[l->n].len = (uint32_t)len;
	l->v[l->n].off = off;
	l->n++;
	return true;
}

static void
namelist_free(struct namelist *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * Reports every later copy of a name already seen, in file order: one
 * pass through an open-addressing set of the names, keyed by the
 * process's secret hash (core/hash.h), so names crafted to collide cost
 * no more than any others.
 */
static void nomem(struct gg *g);

static void
report_duplicates(struct gg *g, struct namelist *l, bool tensors)
{
	uint32_t *slot;
	size_t cap = 16, mask, i;

	if (l->n < 2)
		goto out;
	while (cap < l->n * 2)
		cap *= 2;	/* l->n entries were allocated: no overflow */
	slot = qa_big_alloc(cap * sizeof(*slot));
	if (!slot) {
		nomem(g);
		goto out;
	}
	mask = cap - 1;
	for (i = 0; i < l->n; i++) {
		const struct nameref *e = &l->v[i];
		size_t h = (size_t)qa_hash(e->s, e->len) & mask;
		bool dup = false;

		for (; slot[h]; h = (h + 1) & mask) {
			const struct nameref *o = &l->v[slot[h] - 1];

			if (o->len == e->len &&
			    memcmp(o->s, e->s, e->len) == 0) {
				dup = true;
				break;
			}
		}
		if (!dup) {
			slot[h] = (uint32_t)i + 1;
			continue;
		}
		if (tensors)
			qa_inv_finding(g->inv, QA1021, g->path,
				       (int64_t)e->off, e->s, "tensor name '%s' "
				       "appears more than once in this file",
				       e->s);
		else
			qa_inv_finding(g->inv, QA1005, g->path,
				       (int64_t)e->off, NULL, "key '%s' appears "
				       "more than once", e->s);
	}
	qa_big_free(slot, cap * sizeof(*slot));
out:
	l->n = 0;
}

/*
 * An allocation failed: either the arena's safety ceiling said no (a
 * finding; the load itself succeeds with what was read) or the system is
 * out of memory (exit 4).
 */
static void
nomem(struct gg *g)
{
	if (g->stop)
		return;
	g->stop = true;
	if (g->inv->arena.hit_limit) {
		g->inv->out_of_memory = false;
		qa_inv_finding(g->inv, QA1901, g->path, (int64_t)g->r->pos,
			       NULL, "the GGUF header needs more than the "
			       "inventory limit; reading stopped at offset "
			       "%" PRIu64, g->r->pos);
	} else {
		g->rc = QA_E_NOMEM;
	}
}

/* Turns a failed read into the matching finding or error and stops. */
static void
read_failed(struct gg *g, const char *what)
{
	if (g->stop)
		return;
	if (g->r->err == QA_E_IO) {
		g->stop = true;
		g->rc = QA_E_IO;
	} else if (g->r->err == QA_E_NOMEM) {
		nomem(g);
	} else {
		g->stop = true;
		qa_inv_finding(g->inv, QA1001, g->path, (int64_t)g->r->pos,
			       NULL, "the file ends at byte %" PRIu64
			       " while reading %s at offset %" PRIu64,
			       g->size, what, g->r->pos);
	}
}

/*
 * Reads n bytes at the cursor into a NUL-terminated copy: short ones
 * from the pool, long ones (a chat template) from the arena. On failure
 * r->err says why (QA_E_SHORT, QA_E_NOMEM, QA_E_IO).
 */
static char *
pool_take(struct gg *g, uint64_t n)
{
	char *s;

	if (n >= POOL_DIRECT)
		return qa_arena_alloc(&g->inv->arena, (size_t)n + 1);
	if (g->pool_left < n + 1) {
		size_t b = g->pool_block ? g->pool_block : POOL_FIRST_BLOCK;

		g->pool = qa_arena_alloc(&g->inv->arena, b);
		g->pool_left = g->pool ? b : 0;
		g->pool_block = b < POOL_MAX_BLOCK ? 2 * b : b;
	}
	if (g->pool_left < n + 1)
		return NULL;
	s = g->pool;
	g->pool += n + 1;
	g->pool_left -= n + 1;
	return s;
}

static bool
read_copy(struct gg *g, uint64_t n, char **out)
{
	struct qa_reader *r = g->r;
	char *s;

	if (r->err)
		return false;
	if (qa_reader_remaining(r) < n || n >= SIZE_MAX) {
		r->err = QA_E_SHORT;
		return false;
	}
	s = pool_take(g, n);
	if (!s) {
		r->err = QA_E_NOMEM;
		return false;
	}
	if (!qa_reader_bytes(r, s, (size_t)n))
		return false;
	s[n] = '\0';
	*out = s;
	return true;
}

/* Records a finding that ends the parse. */
#define STOP(g, code, off, tensor, ...)					\
	do {								\
		qa_inv_finding((g)->inv, (code), (g)->path,		\
			       (int64_t)(off), (tensor), __VA_ARGS__);	\
		(g)->stop = true;					\
	} while (0)

/* Reads a string whose u64 length is at the cursor. With out == NULL
 * the bytes are skipped (walked by length only, no allocation). */
static bool
read_string(struct gg *g, const char **out, uint64_t *out_len)
{
	uint64_t off = g->r->pos, len, keep;
	char *s;

	if (!qa_reader_u64(g->r, &len)) {
		read_failed(g, "a string length");
		return false;
	}
	if (len > GGUF_MAX_STRING) {
		STOP(g, QA1008, off, NULL, "key '%s': string of %" PRIu64
		     " bytes exceeds the 1 GiB limit", g->key, len);
		return false;
	}
	if (len > qa_reader_remaining(g->r)) {
		/* Within the limits but past the end: the usual sign of a
		 * cut-short download, so say "truncated". */
		STOP(g, QA1001, off, NULL, "key '%s': string of %" PRIu64
		     " bytes but the file ends after %" PRIu64, g->key, len,
		     qa_reader_remaining(g->r));
		return false;
	}
	if (out_len)
		*out_len = len;
	if (!out) {
		if (!qa_reader_skip(g->r, len)) {
			read_failed(g, "a string");
			return false;
		}
		return true;
	}
	keep = len < QA_KV_KEEP_STRING ? len : QA_KV_KEEP_STRING;
	if (!read_copy(g, keep, &s) || !qa_reader_skip(g->r, len - keep)) {
		read_failed(g, "a string");
		return false;
	}
	*out = s;
	return true;
}

static bool read_value(struct gg *g, enum qa_value_type t,
		       struct qa_value *out, int depth);

/*
 * The element structs reporters read (arr.items): all of a short array
 * while the inventory's budget lasts, the first of a long string array.
 */
static void
expand(struct gg *g, struct qa_value *v)
{
	struct qa_inventory *inv = g->inv;
	uint64_t n = v->v.arr.kept, i;
	struct qa_value *items;

	if (v->v.arr.count > QA_KV_EXPAND_ELEMENTS)
		n = v->v.arr.elem == QA_V_STRING ? 1 : 0;
	else if (inv->expanded_values + n > QA_KV_EXPAND_BUDGET)
		n = 0;
	if (n == 0)
		return;
	items = qa_arena_array(&inv->arena, (size_t)n, sizeof(*items));
	if (!items) {
		nomem(g);
		return;
	}
	for (i = 0; i < n; i++)
		qa_value_item(v, i, &items[i]);
	inv->expanded_values += n;
	v->v.arr.items = items;
}

/*
 * As many of the next n strings as are whole in the reader's buffer and
 * short enough for the pool (POOL_DIRECT, far below QA_KV_KEEP_STRING),
 * copied into it; the count taken. Such a string is in the file, so no
 * bound of keep_strings' checked path can fail for it; running out of
 * memory is left to that path to report.
 */
static uint64_t
keep_buffered_strings(struct gg *g, struct qa_packed_str *ps, uint64_t n)
{
	size_t avail, used = 0;
	const unsigned char *p = qa_reader_buffered(g->r, &avail);
	uint64_t i = 0, len;

	/* lengths in host order only: a file of the other byte order
	 * takes the checked path, which swaps */
	if (!p || g->r->big_endian !=
		  (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		return 0;
	while (i < n && avail - used >= 8) {
		char *s;

		memcpy(&len, p + used, 8);
		if (len >= POOL_DIRECT || len > avail - used - 8 ||
		    !(s = pool_take(g, len)))
			break;
		memcpy(s, p + used + 8, (size_t)len);
		s[len] = '\0';
		ps[i].s = s;
		ps[i].len = len;
		used += 8 + (size_t)len;
		i++;
	}
	if (used && !qa_reader_skip(g->r, used))
		read_failed(g, "a string");
	return i;
}

/* Kept string elements: pointer and length each, bytes in the pool. */
static bool
keep_strings(struct gg *g, struct qa_value *out, uint64_t count)
{
	struct qa_packed_str *ps;
	uint64_t i, off, len, keep;
	char *str;

	ps = qa_arena_array(&g->inv->arena, (size_t)count, sizeof(*ps));
	if (!ps) {
		nomem(g);
		return false;
	}
	for (i = 0; i < count; i++) {
		/* Short strings already in the reader's buffer (a token
		 * list): copied from it straight into the pool, without a
		 * call per length and per string. The loop leaves any string
		 * it does not take whole to the checked path below. */
		i += keep_buffered_strings(g, ps + i, count - i);
		if (g->stop || g->r->err)
			return false;
		if (i == count)
			break;
		off = g->r->pos;
		if (!qa_reader_u64(g->r, &len)) {
			read_failed(g, "a string length");
			return false;
		}
		if (len > GGUF_MAX_STRING) {
			STOP(g, QA1008, off, NULL, "key '%s': string of %"
			     PRIu64 " bytes exceeds the 1 GiB limit", g->key,
			     len);
			return false;
		}
		if (len > qa_reader_remaining(g->r)) {
			STOP(g, QA1001, off, NULL, "key '%s': string of %"
			     PRIu64 " bytes but the file ends after %" PRIu64,
			     g->key, len, qa_reader_remaining(g->r));
			return false;
		}
		keep = len < QA_KV_KEEP_STRING ? len : QA_KV_KEEP_STRING;
		if (!read_copy(g, keep, &str) ||
		    !qa_reader_skip(g->r, len - keep)) {
			read_failed(g, "a string");
			return false;
		}
		ps[i].s = str;
		ps[i].len = len;
	}
	out->v.arr.packed = ps;
	return true;
}

/* Kept scalar elements: the file's bytes, in host order (bools 0 or 1;
 * any other byte is a QA1010 finding and reads as true, as llama.cpp
 * reads it). */
static bool
keep_scalars(struct gg *g, struct qa_value *out, uint64_t count)
{
	enum qa_value_type elem = out->v.arr.elem;
	size_t w = scalar_size[elem], n = (size_t)count * w, i;
	uint64_t start = g->r->pos;
	unsigned char *p;
	bool swap;

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	swap = !g->r->big_endian;
#else
	swap = g->r->big_endian;
#endif
	p = qa_arena_alloc(&g->inv->arena, n);
	if (!p) {
		nomem(g);
		return false;
	}
	if (!qa_reader_bytes(g->r, p, n)) {
		read_failed(g, "an array");
		return false;
	}
	if (swap && w > 1)
		for (i = 0; i < n; i += w) {
			size_t a = i, b = i + w - 1;

			for (; a < b; a++, b--) {
				unsigned char t = p[a];

				p[a] = p[b];
				p[b] = t;
			}
		}
	if (elem == QA_V_BOOL)
		for (i = 0; i < n; i++)
			if (p[i] > 1) {
				qa_inv_finding(g->inv, QA1010, g->path,
					       (int64_t)(start + i), NULL,
					       "key '%s': bool byte is %u",
					       g->key, (unsigned)p[i]);
				p[i] = 1;
			}
	out->v.arr.packed = p;
	return true;
}

/* A kept array (1..QA_KV_KEEP_ELEMENTS elements) into out. */
static bool
keep_array(struct gg *g, struct qa_value *out, int depth)
{
	uint64_t count = out->v.arr.count, i;
	struct qa_value *items;
	bool ok;

	if (out->v.arr.elem == QA_V_ARRAY) {
		/* Arrays of arrays (a QA1007 finding): one struct per inner
		 * array, 12 bytes or more each in the file. */
		items = qa_arena_array(&g->inv->arena, (size_t)count,
				       sizeof(*items));
		if (!items) {
			nomem(g);
			return false;
		}
		for (i = 0; i < count; i++)
			if (!read_value(g, QA_V_ARRAY, &items[i], depth + 1))
				return false;
		out->v.arr.items = items;
		out->v.arr.kept = (uint32_t)count;
		return true;
	}
	ok = out->v.arr.elem == QA_V_STRING ? keep_strings(g, out, count) :
	     keep_scalars(g, out, count);
	if (!ok)
		return false;
	out->v.arr.kept = (uint32_t)count;
	expand(g, out);
	return !g->stop;
}

/* Array: u32 element type, u64 count, elements. depth counts the arrays
 * enclosing this one. */
static bool
read_array(struct gg *g, struct qa_value *out, int depth)
{
	uint64_t off = g->r->pos, count, min_bytes, i;
	uint32_t elem;
	int min_size;

	if (!qa_reader_u32(g->r, &elem) || !qa_reader_u64(g->r, &count)) {
		read_failed(g, "an array header");
		return false;
	}
	if (elem >= QA_V_COUNT) {
		STOP(g, QA1006, off, NULL, "key '%s': array element type %"
		     PRIu32 " is not a GGUF type (0..12)", g->key, elem);
		return false;
	}
	if (elem == QA_V_ARRAY) {
		if (depth + 1 >= GGUF_MAX_DEPTH) {
			STOP(g, QA1006, off, NULL, "key '%s': arrays nested "
			     "deeper than %d levels", g->key, GGUF_MAX_DEPTH);
			return false;
		}
		if (!g->nested_seen) {
			g->nested_seen = true;
			qa_inv_finding(g->inv, QA1007, g->path, (int64_t)off,
				       NULL, "key '%s' is an array of arrays",
				       g->key);
		}
	}
	min_size = elem == QA_V_STRING ? 8 : elem == QA_V_ARRAY ? 12 :
		   scalar_size[elem];
	if (count > GGUF_MAX_ARRAY ||
	    qa_ckd_mul(&min_bytes, count, (uint64_t)min_size)) {
		STOP(g, QA1008, off, NULL, "key '%s': array of %" PRIu64
		     " %s elements exceeds the 2^30 element limit", g->key,
		     count, qa_value_type_name(elem));
		return false;
	}
	if (min_bytes > qa_reader_remaining(g->r)) {
		STOP(g, QA1001, off, NULL, "key '%s': array of %" PRIu64
		     " %s elements needs at least %" PRIu64 " bytes but the "
		     "file ends after %" PRIu64, g->key, count,
		     qa_value_type_name(elem), min_bytes,
		     qa_reader_remaining(g->r));
		return false;
	}
	if (out) {
		out->type = QA_V_ARRAY;
		out->v.arr.elem = elem;
		out->v.arr.count = count;
	}
	if (out && count > 0 && count <= QA_KV_KEEP_ELEMENTS)
		return keep_array(g, out, depth);
	if (scalar_size[elem] > 0 && elem != QA_V_BOOL) {
		/* Not kept and fixed size: one skip, already bounded. */
		if (!qa_reader_skip(g->r, min_bytes)) {
			read_failed(g, "an array");
			return false;
		}
		return true;
	}
	if (elem == QA_V_STRING) {
		/* Token and merge arrays: step over the strings in the
		 * reader's buffer (bench/: 95 % of the instructions spent on
		 * large vocabularies went through read_value per string). */
		uint64_t bad = 0;
		int rc = qa_reader_skip_strings(g->r, count, GGUF_MAX_STRING,
						&bad);

		if (rc == 1)
			STOP(g, QA1008, g->r->pos, NULL, "key '%s': string of %"
			     PRIu64 " bytes exceeds the 1 GiB limit", g->key,
			     bad);
		else if (rc == 2)
			STOP(g, QA1001, g->r->pos, NULL, "key '%s': string of %"
			     PRIu64 " bytes but the file ends after %" PRIu64,
			     g->key, bad, qa_reader_remaining(g->r) - 8);
		else if (rc < 0)
			read_failed(g, "a string length");
		return rc == 0;
	}
	for (i = 0; i < count; i++)
		if (!read_value(g, elem, NULL, depth + 1))
			return false;
	return true;
}

static bool
read_value(struct gg *g, enum qa_value_type t, struct qa_value *out,
	   int depth)
{
	struct qa_reader *r = g->r;
	uint64_t off = r->pos;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	struct qa_value tmp;
	float f;
	double d;

	if (!out)
		out = &tmp;
	memset(out, 0, sizeof(*out));
	out->type = t;
	switch (t) {
	case QA_V_U8:
	case QA_V_I8:
	case QA_V_BOOL:
		if (!qa_reader_u8(r, &u8))
			break;
		if (t == QA_V_U8)
			out->v.u = u8;
		else if (t == QA_V_I8)
			out->v.i = (int8_t)u8;
		else {
			if (u8 > 1)
				qa_inv_finding(g->inv, QA1010, g->path,
					       (int64_t)off, NULL,
					       "key '%s': bool byte is %u",
					       g->key, (unsigned)u8);
			/* llama.cpp: any non-zero byte is true. */
			out->v.u = u8 != 0;
		}
		return true;
	case QA_V_U16:
	case QA_V_I16:
		if (!qa_reader_u16(r, &u16))
			break;
		if (t == QA_V_U16)
			out->v.u = u16;
		else
			out->v.i = (int16_t)u16;
		return true;
	case QA_V_U32:
	case QA_V_I32:
	case QA_V_F32:
		if (!qa_reader_u32(r, &u32))
			break;
		if (t == QA_V_U32) {
			out->v.u = u32;
		} else if (t == QA_V_I32) {
			out->v.i = (int32_t)u32;
		} else {
			memcpy(&f, &u32, sizeof(f));
			out->v.f = f;
		}
		return true;
	case QA_V_U64:
	case QA_V_I64:
	case QA_V_F64:
		if (!qa_reader_u64(r, &u64))
			break;
		if (t == QA_V_U64) {
			out->v.u = u64;
		} else if (t == QA_V_I64) {
			out->v.i = (int64_t)u64;
		} else {
			memcpy(&d, &u64, sizeof(d));
			out->v.f = d;
		}
		return true;
	case QA_V_STRING:
		return read_string(g, out == &tmp ? NULL : &out->v.str.s,
				   &out->v.str.len);
	case QA_V_ARRAY:
		return read_array(g, out == &tmp ? NULL : out, depth);
	default:
		STOP(g, QA1006, off, NULL, "key '%s': value type %d is not a "
		     "GGUF type (0..12)", g->key, (int)t);
		return false;
	}
	read_failed(g, "a value");
	return false;
}

/* general.alignment: UINT32, non-zero power of two (llama.cpp gguf.cpp). */
static void
check_alignment(struct gg *g, const struct qa_kv *kv)
{
	const struct qa_value *v = &kv->value;

	if (v->type != QA_V_U32) {
		qa_inv_finding(g->inv, QA1009, g->path, (int64_t)kv->offset,
			       NULL, "general.alignment has type %s, not "
			       "UINT32; using %d", qa_value_type_name(v->type),
			       GGUF_DEFAULT_ALIGNMENT);
		return;
	}
	if (v->v.u == 0 || (v->v.u & (v->v.u - 1)) != 0) {
		qa_inv_finding(g->inv, QA1009, g->path, (int64_t)kv->offset,
			       NULL, "general.alignment is %" PRIu64 ", not a "
			       "non-zero power of two; using %d", v->v.u,
			       GGUF_DEFAULT_ALIGNMENT);
		return;
	}
	g->alignment = v->v.u;
}

static bool
read_kvs(struct gg *g, uint64_t n_kv)
{
	struct qa_reader *r = g->r;
	uint64_t i, off, len;
	uint32_t type;
	struct qa_kv *kv;
	char *key;

	for (i = 0; i < n_kv && !g->stop; i++) {
		off = r->pos;
		if (!qa_reader_u64(r, &len)) {
			read_failed(g, "a key length");
			return false;
		}
		if (len > GGUF_MAX_KEY) {
			STOP(g, QA1004, off, NULL, "key #%" PRIu64 " has "
			     "length %" PRIu64 " (more than 65535)", i, len);
			return false;
		}
		if (len > qa_reader_remaining(r)) {
			STOP(g, QA1001, off, NULL, "key #%" PRIu64 " of %"
			     PRIu64 " bytes but the file ends after %" PRIu64,
			     i, len, qa_reader_remaining(r));
			return false;
		}
		if (!read_copy(g, len, &key)) {
			read_failed(g, "a key");
			return false;
		}
		if (len == 0)
			qa_inv_finding(g->inv, QA1004, g->path, (int64_t)off,
				       NULL, "key #%" PRIu64 " is empty", i);
		/* Duplicates are reported once every key is read. */
		if (!namelist_add(&g->keys, key, len, off)) {
			nomem(g);
			return false;
		}
		g->key = key;
		g->key_off = off;
		g->nested_seen = false;
		if (!qa_reader_u32(r, &type)) {
			read_failed(g, "a value type");
			return false;
		}
		if (type >= QA_V_COUNT) {
			STOP(g, QA1006, r->pos - 4, NULL, "key '%s': value "
			     "type %" PRIu32 " is not a GGUF type (0..12)",
			     key, type);
			return false;
		}
		kv = qa_inv_add_kv(g->inv);
		if (!kv) {
			nomem(g);
			return false;
		}
		kv->key = key;
		kv->file = g->fi;
		kv->offset = off;
		if (!read_value(g, (enum qa_value_type)type, &kv->value, 0)) {
			/* A half-read value (NULL string, partial array)
			 * must not reach the reporters. */
			qa_inv_drop_last_kv(g->inv);
			return false;
		}
		if (!g->align_seen &&
		    strcmp(key, QA_GGUF_GENERAL_ALIGNMENT) == 0) {
			g->align_seen = true;
			check_alignment(g, kv);
		}
	}
	return !g->stop;
}

static bool
fork_once(struct gg *g, uint32_t type)
{
	uint64_t bit = (uint64_t)1 << (type % 64);

	if (type >= FORK_ID_MAX || (g->fork_named[type / 64] & bit))
		return false;
	g->fork_named[type / 64] |= bit;
	return true;
}

/* Why the file is bitnet.cpp's: its general.file_type is 40
 * (bitnet.cpp's LLAMA_FTYPE_MOSTLY_I2_S; upstream's 40 is Q1_0, whose
 * tensors are type 41, never 36), or its architecture is a BitNet one.
 * NULL when nothing says so. */
static const char *
bitnet_evidence(struct gg *g)
{
	const struct qa_kv *kv = qa_inv_kv(g->inv, QA_GGUF_GENERAL_FILE_TYPE);
	const struct qa_kv *arch = qa_inv_kv(g->inv,
					     QA_GGUF_GENERAL_ARCHITECTURE);
	int64_t ft;

	if (kv && qa_value_as_int(&kv->value, &ft) && ft == 40)
		return "general.file_type is 40, bitnet.cpp's "
		       "LLAMA_FTYPE_MOSTLY_I2_S";
	if (arch && arch->value.type == QA_V_STRING &&
	    strncmp(arch->value.v.str.s, "bitnet", 6) == 0)
		return "general.architecture is a BitNet one";
	return NULL;
}

/*
 * A type id upstream's table lacks or has removed, read with a fork's
 * meaning where the fork's table has it and the file's other evidence
 * agrees, with a finding saying which reading was taken and why. Sets
 * t->dtype and t->bytes (0 when not sized) and returns true when it
 * decided the tensor; false leaves it to upstream's QA1023/QA1024.
 */
static bool
fork_tensor(struct gg *g, struct qa_tensor *t, const char *name,
	    uint32_t type, bool bad, uint64_t elements, uint64_t info_off)
{
	const struct qa_ggml_fork_type *fk = NULL;
	const char *why = NULL;
	uint64_t ne0, bytes;

	if (type == 36) {
		why = bitnet_evidence(g);
		if (!why) {
			if (fork_once(g, type))
				qa_inv_finding(g->inv, QA1038, g->path,
					       (int64_t)info_off, name,
					       "ggml type 36 is upstream's "
					       "removed IQ4_NL_4_4 and "
					       "bitnet.cpp's I2_S; nothing "
					       "else in the file says BitNet "
					       "(general.file_type is not 40), "
					       "so it is read as upstream's");
			return false;
		}
		fk = qa_ggml_fork_type(36, "bitnet.cpp");
	} else if (type >= (uint32_t)qa_ggml_type_count() &&
		   type < FORK_ID_MAX) {
		fk = qa_ggml_fork_type((int)type, "ik_llama.cpp");
		why = "upstream llama.cpp has no type of this id";
		if (!fk) {
			t->dtype = qa_arena_printf(&g->inv->arena,
						   "TYPE_%" PRIu32, type);
			if (!t->dtype) {
				nomem(g);
				return true;
			}
			g->inv->ggml_fork.unknown_tensors++;
			if (fork_once(g, type))
				qa_inv_finding(g->inv, QA1039, g->path,
					       (int64_t)info_off, name,
					       "tensor '%s' has ggml type %"
					       PRIu32 ", which neither upstream "
					       "llama.cpp nor ik_llama.cpp nor "
					       "bitnet.cpp defines (a newer "
					       "fork's?): its size, precision "
					       "and placement are not checked; "
					       "the audit is incomplete", name,
					       type);
			return true;
		}
	}
	if (!fk)
		return false;
	t->dtype = fk->t.name;
	if (strcmp(fk->fork, "bitnet.cpp") == 0) {
		g->inv->ggml_fork.bitnet = fk->fork;
		g->inv->ggml_fork.bitnet_ftype =
			strncmp(why, QA_GGUF_GENERAL_FILE_TYPE, 17) == 0;
	} else {
		g->inv->ggml_fork.ik = fk->fork;
	}
	if (fork_once(g, type)) {
		if (fk->i2s)
			qa_inv_finding(g->inv, QA1038, g->path,
				       (int64_t)info_off, name,
				       "ggml type 36 read as bitnet.cpp's "
				       "I2_S (2-bit ternary weights and a "
				       "32-byte scale tail), not upstream's "
				       "removed IQ4_NL_4_4: %s; loaded by "
				       "bitnet.cpp and ik_llama.cpp only",
				       why);
		else
			qa_inv_finding(g->inv, QA1038, g->path,
				       (int64_t)info_off, name,
				       "ggml type %" PRIu32 " read as "
				       "ik_llama.cpp's %s (ggml/include/"
				       "ggml.h:%" PRIu32 "; blocks of %"
				       PRIu32 " weights in %" PRIu32
				       " bytes%s%.0" PRIu32 "%s, ggml/src/"
				       "ggml.c:%" PRIu32 "): %s; loaded by "
				       "ik_llama.cpp only", type, fk->t.name,
				       fk->enum_line, fk->t.block,
				       fk->t.block_bytes,
				       fk->row_meta ? " and " : "",
				       fk->row_meta,
				       fk->row_meta ? " bytes per row" : "",
				       fk->traits_line, why);
	}
	if (bad)
		return true;
	ne0 = t->n_dims > 0 ? t->shape[0] : 1;
	if (!qa_ggml_fork_nbytes(fk, ne0, elements, &bytes)) {
		qa_inv_finding(g->inv, QA1025, g->path, (int64_t)info_off,
			       name, "tensor '%s': ne[0] = %" PRIu64 " is "
			       "not a multiple of the %s block of %" PRIu32,
			       name, ne0, fk->t.name, fk->t.block);
		return true;
	}
	t->bytes = bytes;
	g->n_sized++;
	return true;
}

/* Tensor infos; t->offset holds the relative offset until the data
 * section is known. Returns false when the parse stopped. */
static bool
read_tensor_infos_inner(struct gg *g, uint64_t n_tensors)
{
	struct qa_reader *r = g->r;
	uint64_t i, off, len, keep, ne, elements, bytes, padded, rel;
	uint32_t n_dims, type, d;
	const struct qa_ggml_type *gt;
	struct qa_tensor *t;
	char *name;
	bool bad;

	for (i = 0; i < n_tensors; i++) {
		off = r->pos;
		if (!qa_reader_u64(r, &len)) {
			read_failed(g, "a tensor name length");
			return false;
		}
		if (len > GGUF_MAX_STRING) {
			STOP(g, QA1008, off, NULL, "tensor #%" PRIu64 ": name "
			     "of %" PRIu64 " bytes exceeds the 1 GiB limit",
			     i, len);
			return false;
		}
		if (len > qa_reader_remaining(r)) {
			STOP(g, QA1001, off, NULL, "tensor #%" PRIu64 ": name "
			     "of %" PRIu64 " bytes but the file ends after %"
			     PRIu64, i, len, qa_reader_remaining(r));
			return false;
		}
		keep = len < NAME_KEEP ? len : NAME_KEEP;
		if (!read_copy(g, keep, &name) ||
		    !qa_reader_skip(r, len - keep)) {
			read_failed(g, "a tensor name");
			return false;
		}
		t = qa_inv_add_tensor(g->inv);
		if (!t) {
			nomem(g);
			return false;
		}
		t->name = name;
		t->file = g->fi;
		if (len == 0 || len >= GGUF_MAX_NAME)
			qa_inv_finding(g->inv, QA1020, g->path, (int64_t)off,
				       name, "tensor #%" PRIu64 " name is %"
				       PRIu64 " bytes (must be 1..63)", i,
				       len);
		if (!namelist_add(&g->names, name, keep, off)) {
			nomem(g);
			return false;
		}

		if (!qa_reader_u32(r, &n_dims)) {
			read_failed(g, "tensor dimensions");
			return false;
		}
		if (n_dims > GGUF_MAX_DIMS) {
			STOP(g, QA1022, r->pos - 4, name, "tensor '%s' has %"
			     PRIu32 " dimensions (at most %d)", name, n_dims,
			     GGUF_MAX_DIMS);
			return false;
		}
		t->n_dims = n_dims;
		bad = false;
		elements = 1;
		for (d = 0; d < n_dims; d++) {
			uint64_t doff = r->pos;

			if (!qa_reader_u64(r, &ne)) {
				read_failed(g, "tensor dimensions");
				return false;
			}
			t->shape[d] = ne;
			if (bad)
				continue;
			/* llama.cpp reads ne as int64 and requires the
			 * element count to be representable. */
			if (ne > INT64_MAX) {
				qa_inv_finding(g->inv, QA1022, g->path,
					       (int64_t)doff, name, "tensor "
					       "'%s': ne[%" PRIu32 "] = %"
					       PRIu64 " is negative as int64",
					       name, d, ne);
				bad = true;
			} else if (qa_ckd_mul(&elements, elements, ne) ||
				   elements > INT64_MAX) {
				qa_inv_finding(g->inv, QA1022, g->path,
					       (int64_t)doff, name, "tensor "
					       "'%s': element count overflows "
					       "at ne[%" PRIu32 "]", name, d);
				bad = true;
			}
		}
		if (!qa_reader_u32(r, &type) || !qa_reader_u64(r, &rel)) {
			read_failed(g, "a tensor type and offset");
			return false;
		}
		t->offset = rel;
		t->ggml_type = (int32_t)type;
		t->elements = bad ? 0 : elements;
		gt = type < (uint32_t)qa_ggml_type_count() ?
		     qa_ggml_type((int)type) : NULL;
		if ((!gt || gt->block == 0) &&
		    fork_tensor(g, t, name, type, bad, elements,
				r->pos - 12)) {
			if (g->rc == QA_E_NOMEM)
				return false;
			continue;
		}
		if (!gt) {
			t->dtype = qa_arena_printf(&g->inv->arena,
						   "TYPE_%" PRIu32, type);
			if (!t->dtype) {
				nomem(g);
				return false;
			}
			qa_inv_finding(g->inv, QA1023, g->path,
				       (int64_t)(r->pos - 12), name,
				       "tensor '%s' has unknown ggml type %"
				       PRIu32, name, type);
			continue;
		}
		t->dtype = gt->name;
		if (gt->block == 0) {
			qa_inv_finding(g->inv, QA1024, g->path,
				       (int64_t)(r->pos - 12), name,
				       "tensor '%s' has removed ggml type %s "
				       "(%" PRIu32 ")", name, gt->name, type);
			continue;
		}
		if (bad)
			continue;
		ne = n_dims > 0 ? t->shape[0] : 1;
		if (ne % gt->block != 0) {
			qa_inv_finding(g->inv, QA1025, g->path,
				       (int64_t)(r->pos - 12), name,
				       "tensor '%s': ne[0] = %" PRIu64 " is "
				       "not a multiple of the %s block of %"
				       PRIu32, name, ne, gt->name, gt->block);
			continue;
		}
		if (!qa_ggml_nbytes(gt, ne, elements, &bytes) ||
		    qa_ckd_align_up(&padded, bytes, g->alignment)) {
			qa_inv_finding(g->inv, QA1026, g->path,
				       (int64_t)(r->pos - 12), name,
				       "tensor '%s': byte size of %" PRIu64
				       " %s elements overflows 64 bits", name,
				       elements, gt->name);
			continue;
		}
		t->bytes = bytes;
		g->n_sized++;
	}
	return true;
}

static bool
read_tensor_infos(struct gg *g, uint64_t n_tensors)
{
	struct qa_inventory *inv = g->inv;

	if (read_tensor_infos_inner(g, n_tensors))
		return true;
	/* Every completed tensor has a dtype; a half-read one is dropped
	 * so reporters never see NULL fields (its finding names it). */
	if (inv->n_tensors > 0 && !inv->tensors[inv->n_tensors - 1].dtype)
		inv->n_tensors--;
	return false;
}

struct span {
	uint64_t off, end;
	uint32_t idx;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Places the tensors in the data section and checks the layout. */
static void
check_layout(struct gg *g, uint32_t first, uint32_t n, uint64_t data_start)
{
	struct qa_inventory *inv = g->inv;
	struct span *sp;
	uint64_t expected = 0, max_end = 0, padded, tail, want = 0, got = 0;
	uint64_t reach = 0;
	uint32_t i, ns = 0, offender = UINT32_MAX, who = 0;
	bool overlap = false, past_eof = false;
	uint32_t first_past = 0, n_past = 0;
	uint64_t need_end = 0;
	size_t n_spans;

	for (i = first; i < first + n; i++) {
		struct qa_tensor *t = &inv->tensors[i];
		uint64_t rel = t->offset, abs, end;

		/* llama.cpp: tensor i sits at the sum of the padded sizes
		 * of the tensors declared before it. */
		if (offender == UINT32_MAX) {
			if (rel != expected) {
				offender = i;
				want = expected;
				got = rel;
			} else if (qa_ckd_align_up(&padded, t->bytes,
						   g->alignment) ||
				   qa_ckd_add(&expected, expected, padded)) {
				offender = UINT32_MAX - 1;
			}
		}
		if (rel % g->alignment != 0)
			qa_inv_finding(inv, QA1027, g->path, -1, t->name,
				       "tensor '%s': offset %" PRIu64 " is not "
				       "a multiple of the alignment %" PRIu64,
				       t->name, rel, g->alignment);
		if (qa_ckd_add(&abs, data_start, rel) ||
		    qa_ckd_add(&end, abs, t->bytes) || end > g->size) {
			/* One finding for all of them: a truncated
			 * download puts every later tensor past the end. */
			if (!past_eof)
				first_past = i;
			n_past++;
			t->offset = qa_ckd_add(&abs, data_start, rel) ?
				    UINT64_MAX : abs;
			if (t->offset != UINT64_MAX &&
			    !qa_ckd_add(&end, abs, t->bytes) && end > need_end)
				need_end = end;
			past_eof = true;
			continue;
		}
		t->offset = abs;
		if (end > max_end)
			max_end = end;
		if (t->bytes > 0)
			ns++;
	}

	if (n_past > 0) {
		const struct qa_tensor *t = &inv->tensors[first_past];

		qa_inv_finding(inv, QA1028, g->path,
			       t->offset == UINT64_MAX ? -1 :
			       (int64_t)t->offset, t->name,
			       "tensor '%s' (%" PRIu64 " bytes) ends past the end "
			       "of the file (%" PRIu64 " bytes); %" PRIu32
			       " of %" PRIu32 " tensors do, and the file would "
			       "need %" PRIu64 " bytes: truncated file or lying "
			       "header", t->name, t->bytes, g->size, n_past, n,
			       need_end);
	}
	/* The spans live only for this check: mapped and unmapped here,
	 * not left in the arena (2.4 MB at 100k tensors) for the run. */
	n_spans = ns ? ns : 1;
	sp = n_spans <= SIZE_MAX / sizeof(*sp) ?
	     qa_big_alloc(n_spans * sizeof(*sp)) : NULL;
	if (!sp) {
		nomem(g);
		return;
	}
	ns = 0;
	for (i = first; i < first + n; i++) {
		struct qa_tensor *t = &inv->tensors[i];
		uint64_t end;

		/* Only tensors inside the file; zero-size tensors may share
		 * an offset with anything. */
		if (t->bytes == 0 || qa_ckd_add(&end, t->offset, t->bytes) ||
		    end > g->size)
			continue;
		sp[ns].off = t->offset;
		sp[ns].end = end;
		sp[ns].idx = i;
		ns++;
	}
	/* Writers lay tensors out in table order (llama.cpp's gguf.cpp
	 * and gguf-py both do): then the spans are sorted already and
	 * checking that costs one pass instead of a sort. */
	for (i = 1; i < ns && span_cmp(&sp[i - 1], &sp[i]) <= 0; i++)
		;
	if (i < ns)
		qsort(sp, ns, sizeof(*sp), span_cmp);
	for (i = 0; i < ns; i++) {
		if (i > 0 && sp[i].off < reach) {
			overlap = true;
			qa_inv_finding(inv, QA1029, g->path, (int64_t)sp[i].off,
				       inv->tensors[sp[i].idx].name,
				       "tensor '%s' [%" PRIu64 ", %" PRIu64
				       ") overlaps tensor '%s' ending at %"
				       PRIu64, inv->tensors[sp[i].idx].name,
				       sp[i].off, sp[i].end,
				       inv->tensors[who].name, reach);
		}
		if (sp[i].end > reach) {
			reach = sp[i].end;
			who = sp[i].idx;
		}
	}
	qa_big_free(sp, n_spans * sizeof(*sp));
	if (offender < UINT32_MAX - 1 && !overlap)
		qa_inv_finding(inv, QA1030, g->path, -1,
			       inv->tensors[offender].name,
			       "tensor '%s' is at data offset %" PRIu64 " but "
			       "llama.cpp expects %" PRIu64 " (tensors must "
			       "follow each other in declaration order)",
			       inv->tensors[offender].name, got, want);
	/* Trailing bytes only mean something when every size is known. */
	if (g->n_sized == n && !past_eof && max_end > 0 &&
	    !qa_ckd_align_up(&tail, max_end, g->alignment) &&
	    g->size > tail)
		qa_inv_finding(inv, QA1014, g->path, (int64_t)tail, NULL,
			       "%" PRIu64 " bytes follow the last tensor "
			       "(data ends at %" PRIu64 ")", g->size - tail,
			       max_end);
}

/* Well-known keys engines read with typed getters (llama.cpp
 * gguf_get_val_u16/u32/i32 assert the type). */
static void
check_key_types(struct gg *g, uint32_t first_kv)
{
	static const struct {
		const char *key;
		enum qa_value_type type;
	} known[] = {
		{ QA_GGUF_SPLIT_NO, QA_V_U16 },
		{ QA_GGUF_SPLIT_COUNT, QA_V_U16 },
		{ QA_GGUF_SPLIT_TENSORS_COUNT, QA_V_I32 },
		{ QA_GGUF_GENERAL_FILE_TYPE, QA_V_U32 },
	};
	struct qa_inventory *inv = g->inv;
	const char *arch = NULL;
	size_t arch_len = 0, k;
	uint32_t i;

	for (i = first_kv; i < inv->n_kvs; i++)
		if (strcmp(inv->kvs[i].key,
			   QA_GGUF_GENERAL_ARCHITECTURE) == 0 &&
		    inv->kvs[i].value.type == QA_V_STRING) {
			arch = inv->kvs[i].value.v.str.s;
			arch_len = strlen(arch);
			break;
		}
	for (i = first_kv; i < inv->n_kvs; i++) {
		const struct qa_kv *kv = &inv->kvs[i];
		enum qa_value_type want = QA_V_COUNT;

		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (strcmp(kv->key, known[k].key) == 0)
				want = known[k].type;
		if (arch && strncmp(kv->key, arch, arch_len) == 0 &&
		    strcmp(kv->key + arch_len,
			   "." QA_GGUF_LLM_BLOCK_COUNT) == 0)
			want = QA_V_U32;
		if (want != QA_V_COUNT && kv->value.type != want)
			qa_inv_finding(inv, QA1012, g->path,
				       (int64_t)kv->offset, NULL, "%s has type "
				       "%s; engines read it as %s", kv->key,
				       qa_value_type_name(kv->value.type),
				       qa_value_type_name(want));
	}
}

int
qa_gguf_probe(const uint8_t *buf, size_t len, uint64_t file_size)
{
	(void)file_size;
	if (len >= 4 && memcmp(buf, "GGUF", 4) == 0)
		return 100;
	return 0;
}

/* The parse of one file; the caller owns g's buffers and r. */
static int
parse_file(struct qa_inventory *inv, uint32_t file_index,
	   struct qa_source *src, struct qa_reader *r, struct gg *g)
{
	uint8_t magic[4];
	uint32_t version, first_tensor, first_kv;
	uint64_t n_tensors, n_kv, need_kv, need_ti, need, data_start = 0;
	bool located = false, ok;
	struct qa_file *f;

	qa_reader_init(r, src, 0);
	g->inv = inv;
	g->fi = file_index;
	g->path = inv->files[file_index].path;
	g->r = r;
	g->size = src->size;
	g->alignment = GGUF_DEFAULT_ALIGNMENT;
	g->key = "";

	if (!qa_reader_bytes(r, magic, 4)) {
		if (r->err == QA_E_IO)
			return QA_E_IO;
		return QA_E_UNRECOGNIZED;
	}
	if (memcmp(magic, "GGUF", 4) != 0)
		return QA_E_UNRECOGNIZED;
	f = &inv->files[file_index];
	f->format = "gguf";
	if (!qa_reader_u32(r, &version)) {
		read_failed(g, "the version");
		return g->rc;
	}
	if (version != 0 && (version & 0xFFFF) == 0) {
		/* gguf-py / huggingface.js detection: the low half of a
		 * small version number is never zero. */
		r->big_endian = true;
		version = __builtin_bswap32(version);
		f->big_endian = true;
		qa_inv_finding(inv, QA1011, g->path, 4, NULL,
			       "the file is big-endian (version %" PRIu32
			       " byte-swapped); llama.cpp refuses it",
			       version);
	}
	f->gguf_version = version;
	if (version == 1) {
		qa_inv_finding(inv, QA1002, g->path, 4, NULL,
			       "GGUF v1 (2023) is not supported: it uses "
			       "32-bit counts and no current engine loads it");
		return QA_OK;
	}
	if (version == 0 || version > 3) {
		qa_inv_finding(inv, QA1002, g->path, 4, NULL,
			       "GGUF version %" PRIu32 " is not supported "
			       "(2 and 3 are)", version);
		return QA_OK;
	}
	if (!qa_reader_u64(r, &n_tensors) || !qa_reader_u64(r, &n_kv)) {
		read_failed(g, "the tensor and key counts");
		return g->rc;
	}
	/* Bound both counts by the bytes left before looping. */
	if (qa_ckd_mul(&need_kv, n_kv, KV_MIN_BYTES) ||
	    qa_ckd_mul(&need_ti, n_tensors, TI_MIN_BYTES) ||
	    qa_ckd_add(&need, need_kv, need_ti)) {
		qa_inv_finding(inv, QA1003, g->path, 8, NULL,
			       "%" PRIu64 " tensors and %" PRIu64 " keys "
			       "cannot fit in any file", n_tensors, n_kv);
		return QA_OK;
	}
	if (need > qa_reader_remaining(r)) {
		qa_inv_finding(inv, QA1003, g->path, 8, NULL,
			       "%" PRIu64 " tensors and %" PRIu64 " keys need "
			       "at least %" PRIu64 " bytes but only %" PRIu64
			       " remain", n_tensors, n_kv, need,
			       qa_reader_remaining(r));
		return QA_OK;
	}

	/* Counts bounded above: the arrays are sized once, not doubled
	 * (docs/security.md "Limits and why"). */
	if (!qa_inv_reserve(inv, n_tensors, n_kv)) {
		nomem(g);
		return g->rc;
	}
	first_kv = inv->n_kvs;
	first_tensor = inv->n_tensors;
	ok = read_kvs(g, n_kv);
	report_duplicates(g, &g->keys, false);
	if (!ok)
		goto out;
	check_key_types(g, first_kv);

	ok = read_tensor_infos(g, n_tensors);
	report_duplicates(g, &g->names, true);
	if (!ok)
		goto out;
	f->tensor_count = inv->n_tensors - first_tensor;
	f->header_bytes = r->pos;
	if (n_tensors == 0)
		goto out;
	/* Data section: only padded when there are tensors (llama.cpp
	 * bc988e2b); vocab-only files end right after the last key. */
	if (qa_ckd_align_up(&data_start, r->pos, g->alignment) ||
	    data_start > g->size) {
		qa_inv_finding(inv, QA1013, g->path, (int64_t)r->pos, NULL,
			       "the data section would start at %" PRIu64
			       ", past the end of the file (%" PRIu64
			       " bytes)", data_start, g->size);
		goto out;
	}
	f->data_offset = data_start;
	check_layout(g, first_tensor, f->tensor_count, data_start);
	located = true;
out:
	/* Tensor infos read before the parse stopped have offsets relative
	 * to a data section that was never located: they cannot be placed
	 * in the file, so they leave the inventory (the finding that
	 * stopped the parse says why). */
	if (!located)
		inv->n_tensors = first_tensor;
	f = &inv->files[file_index];
	if (!f->header_bytes)
		f->header_bytes = r->pos;
	f->tensor_count = inv->n_tensors - first_tensor;
	return g->rc;
}

int
qa_gguf_load_file(struct qa_inventory *inv, uint32_t file_index,
		  struct qa_source *src)
{
	/* The 64 KiB read buffer lives as long as the parse, not the
	 * inventory: a folder of many small models would keep one each. */
	struct qa_reader *r = malloc(sizeof(*r));
	struct gg g;
	int rc;

	if (!r)
		return QA_E_NOMEM;
	memset(&g, 0, sizeof(g));
	rc = parse_file(inv, file_index, src, r, &g);
	namelist_free(&g.keys);
	namelist_free(&g.names);
	free(r);
	return rc;
}
