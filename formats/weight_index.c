/* SPDX-License-Identifier: MIT */
/*
 * The index of a sharded checkpoint, for safetensors and PyTorch sets
 * alike (formats/weight_index.h).
 */
#include "formats/weight_index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/swar.h"
#include "core/units.h"
#include "core/escape.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool
qa_unsafe_shard_name(const char *s)
{
	const unsigned char *p;

	if (!*s || s[0] == '/' || strstr(s, "..") || strchr(s, '\\') ||
	    strstr(s, "://"))
		return true;
	if (((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) &&
	    s[1] == ':')
		return true;
	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7F)
			return true;
	return false;
}


/* Offset of the first escaped NUL (\u0000) inside a JSON string, or -1. */
static int64_t
find_escaped_nul(const char *j, size_t n)
{
	const char *p = j, *end = j + n;

	/* from backslash to backslash (memchr: the bytes between are not
	 * looked at one by one) */
	while (p < end && (p = memchr(p, '\\', (size_t)(end - p))) != NULL) {
		size_t i = (size_t)(p - j);

		if (i + 1 >= n)
			break;
		if (j[i + 1] == 'u' && i + 6 <= n &&
		    memcmp(j + i + 2, "0000", 4) == 0)
			return (int64_t)i;
		p += 2;	/* past the escaped character */
	}
	return -1;
}

static int
cmp_entry_tensor(const void *a, const void *b)
{
	return strcmp(((const struct qa_weight_entry *)a)->tensor,
		      ((const struct qa_weight_entry *)b)->tensor);
}

bool
qa_weight_index_names_shard(const struct qa_weight_index *ix,
			    const char *name)
{
	return ix->valid && ix->n_shards &&
	       bsearch(&name, ix->shards, ix->n_shards, sizeof(*ix->shards),
		       cmp_str) != NULL;
}

const struct qa_weight_entry *
qa_weight_index_find(const struct qa_weight_index *ix, const char *tensor)
{
	struct qa_weight_entry key = { .tensor = tensor, .shard = NULL };

	if (!ix->valid || !ix->n)
		return NULL;
	return bsearch(&key, ix->e, ix->n, sizeof(*ix->e), cmp_entry_tensor);
}

/* Whether base[0..n) is in cmp's order already: writers emit the
 * weight_map with its keys sorted (transformers' save_pretrained dumps
 * the index with sort_keys=True), and a check of n - 1 pairs is cheaper
 * than a merge sort that does not notice. */
static bool
in_order(const void *base, size_t n, size_t size,
	 int (*cmp)(const void *, const void *))
{
	const char *p = base;
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0)
			return false;
	return true;
}

void
qa_sort_unless_sorted(void *base, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	if (!in_order(base, n, size, cmp))
		qsort(base, n, size, cmp);
}

/*
 * ---- the one-pass reader ---------------------------------------------------
 *
 * The index used to be read as every JSON side file is (core/json_file.c:
 * Python's tokens rewritten, then cJSON's tree), at about 3,500
 * instructions per entry. This reader walks the text once and keeps only
 * what is used, and it accepts and decodes exactly what that path did, so
 * that no finding changes (tests/unit/test_weight_index.c compares the
 * two on every corner below and on mutated indexes):
 *
 * - whitespace is every byte up to 0x20, a UTF-8 BOM may lead;
 * - NaN, Infinity and -Infinity are values (null, +inf, -inf) where a
 *   word character does not follow them;
 * - a number is cJSON's: the whole run of [0-9+-eE.] given to strtod,
 *   which must take at least one byte; it may start with '-' or a digit
 *   only;
 * - a string is cJSON's: raw bytes as they are, the JSON escapes, \uXXXX
 *   with an invalid hex digit read as U+0000, surrogates only in pairs;
 *   \u0000 written exactly so reads as U+2400 (json_file.c's rewrite);
 *   names end at the first NUL, as C strings do;
 * - containers nest at most 1,000 deep (CJSON_NESTING_LIMIT);
 * - what follows the top-level value is not looked at.
 */

#define NESTING_MAX 1000

struct rd {
	const unsigned char *p, *end;
	struct qa_arena *arena;
	int depth;
	bool nomem;
};

static void
rd_ws(struct rd *r)
{
	while (r->p < r->end && *r->p <= 0x20)
		r->p++;
}

static bool
word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' ||
	       c == '-';
}

/* A Python token at r->p (not followed by a word character): advances. */
static bool
rd_token(struct rd *r, const char *tok)
{
	size_t n = strlen(tok);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, tok, n) != 0 ||
	    ((size_t)(r->end - r->p) > n && word_char(r->p[n])))
		return false;
	r->p += n;
	return true;
}

static unsigned
hex4(const unsigned char *h)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		int d = qa_hex_digit((char)h[i]);

		if (d < 0)
			return 0;	/* cJSON's parse_hex4 */
		v = v << 4 | (unsigned)d;
	}
	return v;
}

/*
 * The string at r->p (on its opening quote), its escapes checked whether
 * or not it is kept. *out (when out is not NULL) gets it decoded and
 * NUL-terminated in the arena; a string without escapes costs one copy.
 */
static bool
rd_string(struct rd *r, const char **out)
{
	const unsigned char *s = r->p + 1, *q = s;
	char *o = NULL, *w = NULL;
	bool esc = false;

	/* the closing quote: a backslash takes the byte after it along */
	for (;;) {
		q += qa_swar_json_plain(q, (size_t)(r->end - q));
		while (q < r->end && *q != '"' && *q != '\\')
			q++;
		if (q >= r->end)
			return false;
		if (*q == '"')
			break;
		if (q + 1 >= r->end)
			return false;
		esc = true;
		q += 2;
	}
	r->p = q + 1;
	if (out) {
		o = qa_arena_alloc(r->arena, (size_t)(q - s) + 1);
		if (!o) {
			r->nomem = true;
			return false;
		}
		*out = o;
	}
	if (!esc) {
		if (o) {
			memcpy(o, s, (size_t)(q - s));
			o[q - s] = '\0';
		}
		return true;
	}
	for (w = o; s < q;) {
		unsigned long cp;
		char c;

		if (*s != '\\') {
			if (w)
				*w++ = (char)*s;
			s++;
			continue;
		}
		switch (s[1]) {
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case '"': case '\\': case '/': c = (char)s[1]; break;
		case 'u': c = 0; break;
		default:
			return false;
		}
		if (s[1] != 'u') {
			if (w)
				*w++ = c;
			s += 2;
			continue;
		}
		if (q - s < 6)
			return false;
		if (memcmp(s + 2, "0000", 4) == 0) {
			cp = 0x2400;	/* json_file.c's stand-in for NUL */
			s += 6;
		} else {
			cp = hex4(s + 2);
			if (cp >= 0xDC00 && cp <= 0xDFFF)
				return false;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				unsigned lo;

				if (q - s < 12 || s[6] != '\\' || s[7] != 'u')
					return false;
				lo = memcmp(s + 8, "0000", 4) == 0 ? 0x2400 :
				     hex4(s + 8);
				if (lo < 0xDC00 || lo > 0xDFFF)
					return false;
				cp = 0x10000 + ((cp & 0x3FF) << 10 | (lo & 0x3FF));
				s += 12;
			} else {
				s += 6;
			}
		}
		if (w)
			w += qa_utf8_encode(w, cp);
	}
	if (w)
		*w = '\0';
	return true;
}

/* A number as cJSON reads one (see above); *v its value. */
static bool
rd_number(struct rd *r, double *v)
{
	char small[64], *tmp = small, *after;
	size_t n = 0;
	bool ok;

	while (r->p + n < r->end &&
	       ((r->p[n] >= '0' && r->p[n] <= '9') || r->p[n] == '+' ||
		r->p[n] == '-' || r->p[n] == 'e' || r->p[n] == 'E' ||
		r->p[n] == '.'))
		n++;
	if (n >= sizeof(small)) {
		tmp = malloc(n + 1);
		if (!tmp) {
			r->nomem = true;
			return false;
		}
	}
	memcpy(tmp, r->p, n);
	tmp[n] = '\0';
	*v = strtod(tmp, &after);
	ok = after != tmp;
	if (ok)
		r->p += after - tmp;
	if (tmp != small)
		free(tmp);
	return ok;
}

enum rd_kind { RD_NULL, RD_BOOL, RD_NUMBER, RD_STRING, RD_ARRAY, RD_OBJECT };

static bool rd_value(struct rd *r, enum rd_kind *kind, double *num,
		     const char **str);

/* What an object's member is handed to: its key (decoded, NULL when the
 * object is only skipped) with r->p on its value, which it must read. */
typedef bool (*rd_member_fn)(struct rd *r, const char *key, void *ctx);

/*
 * The object whose '{' r->p is on, one member at a time: to member when
 * given, else skipped. Every object of the index is read through here,
 * so nesting, separators and keys are checked in one place.
 */
static bool
rd_object(struct rd *r, rd_member_fn member, void *ctx)
{
	if (r->depth >= NESTING_MAX)
		return false;
	r->depth++;
	r->p++;
	rd_ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		r->depth--;
		return true;
	}
	for (;;) {
		const char *key = NULL;
		enum rd_kind k;
		double d;

		rd_ws(r);
		if (r->p >= r->end || *r->p != '"' ||
		    !rd_string(r, member ? &key : NULL))
			return false;
		rd_ws(r);
		if (r->p >= r->end || *r->p != ':')
			return false;
		r->p++;
		rd_ws(r);
		if (!(member ? member(r, key, ctx) :
		      rd_value(r, &k, &d, NULL)))
			return false;
		rd_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			r->depth--;
			return true;
		}
		return false;
	}
}

/* Skips the rest of the array whose '[' r->p is on. */
static bool
rd_array(struct rd *r)
{
	enum rd_kind k;
	double d;

	if (r->depth >= NESTING_MAX)
		return false;
	r->depth++;
	r->p++;
	rd_ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		r->depth--;
		return true;
	}
	for (;;) {
		rd_ws(r);
		if (!rd_value(r, &k, &d, NULL))
			return false;
		rd_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			r->depth--;
			return true;
		}
		return false;
	}
}

/* Any value at r->p; a string is decoded into *str when str is given. */
static bool
rd_value(struct rd *r, enum rd_kind *kind, double *num, const char **str)
{
	if (r->p >= r->end)
		return false;
	switch (*r->p) {
	case '"':
		*kind = RD_STRING;
		return rd_string(r, str);
	case '{':
		*kind = RD_OBJECT;
		return rd_object(r, NULL, NULL);
	case '[':
		*kind = RD_ARRAY;
		return rd_array(r);
	case 'n':
		*kind = RD_NULL;
		break;
	case 't':
	case 'f':
		*kind = RD_BOOL;
		break;
	case 'N':
		*kind = RD_NULL;
		return rd_token(r, "NaN");
	case 'I':
		*kind = RD_NUMBER;
		*num = HUGE_VAL;
		return rd_token(r, "Infinity");
	default:
		*kind = RD_NUMBER;
		if (*r->p == '-' && rd_token(r, "-Infinity")) {
			*num = -HUGE_VAL;
			return true;
		}
		if (*r->p != '-' && (*r->p < '0' || *r->p > '9'))
			return false;
		return rd_number(r, num);
	}
	{
		static const char *const lit[] = { "null", "true", "false" };
		size_t i;

		for (i = 0; i < 3; i++) {
			size_t n = strlen(lit[i]);

			if ((size_t)(r->end - r->p) >= n &&
			    memcmp(r->p, lit[i], n) == 0) {
				r->p += n;
				return true;
			}
		}
	}
	return false;
}

/* What the reader keeps of an index before any finding is written. */
struct wm_entry {
	const char *tensor, *shard;	/* shard NULL: not a string */
};

struct parsed {
	bool root_object;
	bool have_wm, wm_object;
	size_t n_wm_dup;		/* later "weight_map" keys */
	struct wm_entry *v;
	size_t n, cap;
	bool have_md, have_total, total_number;
	double total;
};

static bool
keep_entry(struct rd *r, struct parsed *pz, const char *tensor,
	   const char *shard)
{
	/* The entries live only until the index is built from them:
	 * outside the arena, so the sizes they outgrow are not kept. */
	if (pz->n == pz->cap) {
		size_t ncap = pz->cap ? pz->cap * 2 : 1024;
		struct wm_entry *nv = ncap <= SIZE_MAX / sizeof(*nv) ?
			qa_big_realloc(pz->v, pz->cap * sizeof(*nv),
				       ncap * sizeof(*nv)) : NULL;

		if (!nv) {
			r->nomem = true;
			return false;
		}
		pz->v = nv;
		pz->cap = ncap;
	}
	pz->v[pz->n].tensor = tensor;
	pz->v[pz->n].shard = shard;
	pz->n++;
	return true;
}

/* A member of the first weight_map object: tensor name and shard. */
static bool
weight_map_member(struct rd *r, const char *tensor, void *ctx)
{
	struct parsed *pz = ctx;
	const char *shard = NULL;
	enum rd_kind k;
	double d;

	if (!rd_value(r, &k, &d, &shard))
		return false;
	/* A run of tensors in one shard keeps one copy of its name: the
	 * copy just read goes back to the arena (100k tensors: 4 MB). */
	if (k == RD_STRING && shard && pz->n > 0 && pz->v[pz->n - 1].shard &&
	    strcmp(pz->v[pz->n - 1].shard, shard) == 0) {
		qa_arena_give_back(r->arena, (void *)shard, strlen(shard) + 1);
		shard = pz->v[pz->n - 1].shard;
	}
	return keep_entry(r, pz, tensor, k == RD_STRING ? shard : NULL);
}

/* A member of the first metadata object: the first total_size counts. */
static bool
metadata_member(struct rd *r, const char *key, void *ctx)
{
	struct parsed *pz = ctx;
	enum rd_kind k;
	double d = 0;

	if (!rd_value(r, &k, &d, NULL))
		return false;
	if (!pz->have_total && strcmp(key, "total_size") == 0) {
		pz->have_total = true;
		pz->total_number = k == RD_NUMBER;
		pz->total = d;
	}
	return true;
}

/* A member of the top-level object. */
static bool
root_member(struct rd *r, const char *key, void *ctx)
{
	struct parsed *pz = ctx;
	enum rd_kind k;
	double d;

	if (r->p >= r->end)
		return false;
	if (strcmp(key, "weight_map") == 0 && !pz->have_wm) {
		pz->have_wm = true;
		pz->wm_object = *r->p == '{';
		return pz->wm_object ? rd_object(r, weight_map_member, pz) :
		       rd_value(r, &k, &d, NULL);
	}
	if (strcmp(key, "metadata") == 0 && !pz->have_md) {
		pz->have_md = true;
		return *r->p == '{' ? rd_object(r, metadata_member, pz) :
		       rd_value(r, &k, &d, NULL);
	}
	if (strcmp(key, "weight_map") == 0)
		pz->n_wm_dup++;
	return rd_value(r, &k, &d, NULL);
}

/* The whole document; false when it is not JSON as read here. */
static bool
rd_index(struct rd *r, struct parsed *pz)
{
	if (r->end - r->p > 4 && memcmp(r->p, "\xEF\xBB\xBF", 3) == 0)
		r->p += 3;
	rd_ws(r);
	if (r->p >= r->end)
		return false;
	if (*r->p != '{') {
		enum rd_kind k;
		double d;

		/* valid JSON, but no object: the same finding */
		return rd_value(r, &k, &d, NULL);
	}
	pz->root_object = true;
	return rd_object(r, root_member, pz);
}

/* The index from what the reader kept of it. */
static int
index_from_parsed(struct qa_inventory *inv, struct qa_weight_index *ix,
		  const struct parsed *pz, bool ok, bool nomem)
{
	const char *last_shard = NULL;
	size_t i, n_runs = 0;

	if (nomem) {
		inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	if (!ok || !pz->root_object) {
		qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
			       "index is not a JSON object");
		return QA_OK;
	}
	for (i = 0; i < pz->n_wm_dup; i++)
		qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
			       "\"weight_map\" appears twice");
	if (!pz->have_wm || !pz->wm_object) {
		qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
			       "index has no \"weight_map\" object");
		return QA_OK;
	}
	ix->valid = true;
	ix->e = qa_arena_array(&inv->arena, pz->n ? pz->n : 1, sizeof(*ix->e));
	ix->shards = qa_arena_array(&inv->arena, pz->n ? pz->n : 1,
				    sizeof(*ix->shards));
	if (!ix->e || !ix->shards) {
		inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	for (i = 0; i < pz->n; i++) {
		const struct wm_entry *w = &pz->v[i];

		if (!w->shard) {
			qa_inv_finding(inv, QA1301, ix->path, -1, w->tensor,
				       "weight_map value is not a file name string");
			continue;
		}
		ix->e[ix->n].tensor = w->tensor;
		/* A run of tensors in one shard shares one copy of its name
		 * (and only the first of the run is a new shard). */
		if (last_shard && strcmp(last_shard, w->shard) == 0) {
			ix->e[ix->n].shard = last_shard;
		} else {
			ix->e[ix->n].shard = last_shard = w->shard;
			ix->shards[n_runs++] = last_shard;
		}
		ix->n++;
	}
	/* Distinct shard names. */
	qa_sort_unless_sorted(ix->shards, n_runs, sizeof(*ix->shards),
			      cmp_str);
	for (i = 0; i < n_runs; i++)
		if (ix->n_shards == 0 ||
		    strcmp(ix->shards[ix->n_shards - 1], ix->shards[i]) != 0)
			ix->shards[ix->n_shards++] = ix->shards[i];
	/* Tensors listed twice: serde and Python keep the last mapping. */
	qa_sort_unless_sorted(ix->e, ix->n, sizeof(*ix->e), cmp_entry_tensor);
	for (i = 1; i < ix->n; i++)
		if (strcmp(ix->e[i].tensor, ix->e[i - 1].tensor) == 0)
			qa_inv_finding(inv, QA1301, ix->path, -1,
				       ix->e[i].tensor,
				       "weight_map lists the tensor twice");
	if (pz->have_total) {
		double d = pz->total;

		ix->have_total = true;
		if (!pz->total_number || !(d >= 0.0) ||
		    d > 9007199254740992.0 || d != (double)(uint64_t)d)
			ix->total_bad = true;
		else
			inv->weights.declared_bytes = ix->total = (uint64_t)d;
	}
	return QA_OK;
}

int
qa_weight_index_read(struct qa_inventory *inv, struct qa_source *src,
		     struct qa_weight_index *ix)
{
	struct parsed pz;
	struct rd r;
	char *buf;
	int64_t nul;
	bool ok;
	int rc;

	if (src->size > QA_WEIGHT_INDEX_MAX) {
		qa_inv_finding(inv, QA1901, ix->path, -1, NULL,
			       "index is %llu bytes, more than the %llu quantaudit reads",
			       (unsigned long long)src->size,
			       (unsigned long long)QA_WEIGHT_INDEX_MAX);
		return QA_OK;
	}
	buf = malloc((size_t)src->size + 1);
	if (!buf)
		return QA_E_NOMEM;
	if (qa_source_read(src, 0, buf, (size_t)src->size) != QA_OK) {
		free(buf);
		return QA_E_IO;
	}
	buf[src->size] = '\0';
	nul = find_escaped_nul(buf, (size_t)src->size);
	if (nul >= 0)
		qa_inv_finding(inv, QA1306, ix->path, nul, NULL,
			       "the index contains an escaped NUL (\\u0000): a name is truncated differently by different loaders");
	memset(&pz, 0, sizeof(pz));
	memset(&r, 0, sizeof(r));
	r.p = (const unsigned char *)buf;
	r.end = r.p + src->size;
	r.arena = &inv->arena;
	ok = src->size > 0 && rd_index(&r, &pz);
	free(buf);
	rc = index_from_parsed(inv, ix, &pz, ok, r.nomem);
	qa_big_free(pz.v, pz.cap * sizeof(*pz.v));
	return rc;
}

int
qa_weight_index_load(struct qa_inventory *inv, const char *dir,
		     const char *name, struct qa_weight_index *ix,
		     const char **path, const char **not_regular)
{
	struct qa_source src;
	struct qa_file *f;
	char *p = qa_inv_join(inv, dir, name);
	int rc;

	*path = p;
	*not_regular = NULL;
	if (!p)
		return QA_E_NOMEM;
	memset(&src, 0, sizeof(src));
	if (qa_inv_open(inv, p, &src) != QA_OK) {
		*not_regular = src.not_regular;
		return QA_E_IO;
	}
	f = qa_inv_add_file(inv, p);
	if (!f) {
		qa_source_close(&src);
		return QA_E_NOMEM;
	}
	f->role = QA_FILE_INDEX;
	f->format = "json";
	f->bytes = src.size;
	ix->path = f->path;
	rc = qa_weight_index_read(inv, &src, ix);
	qa_source_close(&src);
	return rc;
}
