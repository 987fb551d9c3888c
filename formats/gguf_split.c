/* SPDX-License-Identifier: MIT */
/*
 * GGUF split sets: given any part of a set written by llama-gguf-split
 * (<prefix>-0000k-of-0000n.gguf, 1-based k; llama.cpp src/llama.cpp
 * llama_split_path), every part is loaded into one inventory, in part
 * order, and the cross-part rules of llama.cpp's model loader
 * (src/llama-model-loader.cpp) are checked: every part present, split.no
 * equal to the part's position, split.count agreeing, the total number of
 * tensors equal to split.tensors.count, no tensor name in two parts, and
 * model metadata only in the first part (the loader reads no other).
 *
 * A file that does not follow the naming pattern is loaded alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/confine.h"
#include "core/gguf_keys.h"

#define SPLIT_DIGITS 5
/* "-" 5 digits "-of-" 5 digits ".gguf" */
#define SPLIT_SUFFIX_LEN (1 + SPLIT_DIGITS + 4 + SPLIT_DIGITS + 5)

struct split_name {
	size_t prefix_len;	/* bytes of the basename before the suffix */
	uint32_t part;		/* 1-based, as written in the name */
	uint32_t count;
};

static bool
parse_digits(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < SPLIT_DIGITS; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* Matches ^(.*)-(\d{5})-of-(\d{5})\.gguf$ (huggingface.js gguf.ts). */
static bool
parse_split_name(const char *base, struct split_name *sn)
{
	size_t n = strlen(base);
	const char *s;

	if (n < SPLIT_SUFFIX_LEN)
		return false;
	s = base + n - SPLIT_SUFFIX_LEN;
	if (s[0] != '-' || memcmp(s + 1 + SPLIT_DIGITS, "-of-", 4) != 0 ||
	    memcmp(s + 1 + 2 * SPLIT_DIGITS + 4, ".gguf", 5) != 0)
		return false;
	if (!parse_digits(s + 1, &sn->part) ||
	    !parse_digits(s + 1 + SPLIT_DIGITS + 4, &sn->count))
		return false;
	sn->prefix_len = n - SPLIT_SUFFIX_LEN;
	return true;
}

bool
qa_gguf_split_name(const char *base, size_t *prefix_len, uint32_t *part,
		   uint32_t *count)
{
	struct split_name sn;

	if (!parse_split_name(base, &sn))
		return false;
	*prefix_len = sn.prefix_len;
	*part = sn.part;
	*count = sn.count;
	return true;
}

/* ---- the split names of a folder --------------------------------- */

static int
cmp_prefix(const struct qa_split_entry *a, const struct qa_split_entry *b)
{
	size_t n = a->prefix_len < b->prefix_len ? a->prefix_len :
		   b->prefix_len;
	int c = memcmp(a->name, b->name, n);

	if (c)
		return c;
	return a->prefix_len < b->prefix_len ? -1 :
	       a->prefix_len > b->prefix_len;
}

/* Set order: prefix, part count, part number. */
static int
cmp_set_order(const void *x, const void *y)
{
	const struct qa_split_entry *a = x, *b = y;
	int c = cmp_prefix(a, b);

	if (c)
		return c;
	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	return a->part < b->part ? -1 : a->part > b->part;
}

/* Name order inside a prefix: the names differ only in the fixed-width
 * -kkkkk-of-nnnnn, so part number, then part count. */
static const struct qa_split_entry *sort_entries;

static int
cmp_name_order(const void *x, const void *y)
{
	const struct qa_split_entry *a = &sort_entries[*(const uint32_t *)x];
	const struct qa_split_entry *b = &sort_entries[*(const uint32_t *)y];
	int c = cmp_prefix(a, b);

	if (c)
		return c;
	if (a->part != b->part)
		return a->part < b->part ? -1 : 1;
	return a->count < b->count ? -1 : a->count > b->count;
}

void
qa_gguf_split_index_destroy(struct qa_split_index *ix)
{
	if (!ix)
		return;
	free(ix->names);
	free(ix->v);
	free(ix->by_name);
	free(ix);
}

int
qa_gguf_split_index_create(const struct qa_dirent *e, size_t n,
			   struct qa_split_index **out)
{
	struct qa_split_index *ix;
	size_t i, k, bytes = 0, at = 0;

	*out = NULL;
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return QA_E_NOMEM;
	for (i = 0; i < n; i++) {
		struct split_name sn;

		if (parse_split_name(e[i].name, &sn)) {
			ix->n++;
			bytes += strlen(e[i].name) + 1;
		}
	}
	if (ix->n > UINT32_MAX) {
		free(ix);
		return QA_E_NOMEM;
	}
	ix->v = calloc(ix->n ? ix->n : 1, sizeof(*ix->v));
	ix->by_name = calloc(ix->n ? ix->n : 1, sizeof(*ix->by_name));
	ix->names = malloc(bytes ? bytes : 1);
	if (!ix->v || !ix->by_name || !ix->names) {
		qa_gguf_split_index_destroy(ix);
		return QA_E_NOMEM;
	}
	for (i = 0, k = 0; i < n; i++) {
		struct qa_split_entry *v = &ix->v[k];
		struct split_name sn;
		size_t len;

		if (!parse_split_name(e[i].name, &sn))
			continue;
		len = strlen(e[i].name);
		memcpy(ix->names + at, e[i].name, len + 1);
		v->name = ix->names + at;
		at += len + 1;
		v->prefix_len = sn.prefix_len;
		v->part = sn.part;
		v->count = sn.count;
		v->kind = e[i].kind;
		v->pos = i;
		k++;
	}
	qsort(ix->v, ix->n, sizeof(*ix->v), cmp_set_order);
	/* Each set's first part present as a file stands for the set. */
	for (i = 0; i < ix->n; i++) {
		struct qa_split_entry *v = &ix->v[i];

		v->later = i > 0 && (ix->v[i - 1].later ||
				     ix->v[i - 1].kind == QA_NODE_FILE) &&
			   ix->v[i - 1].count == v->count &&
			   cmp_prefix(&ix->v[i - 1], v) == 0;
		ix->by_name[i] = (uint32_t)i;
	}
	sort_entries = ix->v;
	qsort(ix->by_name, ix->n, sizeof(*ix->by_name), cmp_name_order);
	sort_entries = NULL;
	*out = ix;
	return QA_OK;
}

/* First entry not before (prefix of name, count, part) in set order. */
static size_t
index_lower(const struct qa_split_index *ix, const char *name,
	    size_t prefix_len, uint32_t count, uint32_t part)
{
	struct qa_split_entry key;
	size_t lo = 0, hi = ix->n;

	memset(&key, 0, sizeof(key));
	key.name = name;
	key.prefix_len = prefix_len;
	key.count = count;
	key.part = part;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_set_order(&ix->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- loading a set --------------------------------------------------- */

/* Findings for missing parts beyond this are summarised: a name can
 * claim 99999 parts. */
#define MAX_PART_FINDINGS 32

/* One part of the set being loaded. */
struct part {
	uint32_t part;			/* 1-based */
	enum qa_node_kind kind;		/* as the folder listing saw it */
	uint32_t fi;			/* its file, once added */
	uint32_t kv_first, kv_end;	/* its keys in inv->kvs */
};

struct set_load {
	struct qa_inventory *inv;
	const char *path;		/* the part given */
	const char *base;		/* its basename */
	size_t dir_len;			/* bytes of path before base */
	struct split_name sn;
	uint32_t n_missing;		/* parts absent or special */
	uint32_t reported;		/* missing-part findings written */
};

/*
 * Opens, probes and parses one file already added as files[fi]. A path
 * that turns out not to be a regular file when opened sets *special to
 * what it is (and returns QA_E_IO).
 */
static int
load_one(struct qa_inventory *inv, uint32_t fi, const char **special)
{
	struct qa_source src;
	int rc;

	*special = NULL;
	rc = qa_inv_open(inv, inv->files[fi].path, &src);
	if (rc != QA_OK) {
		*special = src.not_regular;
		return rc;
	}
	inv->files[fi].bytes = src.size;
	rc = qa_gguf_load_file(inv, fi, &src);
	qa_source_close(&src);
	return rc;
}

/* First KV named key among the keys [first, end), or NULL: the keys of
 * one file are contiguous, so a lookup never scans other parts. */
static const struct qa_kv *
file_kv(const struct qa_inventory *inv, uint32_t first, uint32_t end,
	const char *key)
{
	uint32_t i;

	for (i = first; i < end && i < inv->n_kvs; i++)
		if (strcmp(inv->kvs[i].key, key) == 0)
			return &inv->kvs[i];
	return NULL;
}

static bool
kv_int(const struct qa_kv *kv, int64_t *v)
{
	return kv && qa_value_as_int(&kv->value, v);
}

/* A file that is not a regular file where the set needs one: never
 * opened (or refused when opened), and counted as missing. */
static void
special_finding(struct qa_inventory *inv, const char *path, uint32_t part,
		uint32_t count, const char *what)
{
	/* a link out of the folder is not followed (core/confine.h), a
	 * file its permissions forbid reading is not read */
	if (!qa_inv_not_read(inv, path, what))
		qa_inv_finding(inv, QA1410, path, -1, NULL, "part %" PRIu32
			       " of %" PRIu32 " is %s, not a regular file; it "
			       "was not read", part, count, what);
	if (!inv->weights.missing_files++)
		inv->weights.first_missing = path;
}

/* A single file: warn when its keys say it belongs to a set we cannot
 * locate (the name lacks the -0000k-of-0000n suffix). */
static int
load_single(struct qa_inventory *inv, const char *path)
{
	struct qa_file *f;
	const struct qa_kv *kv;
	const char *special;
	uint32_t kv_first = inv->n_kvs;
	int64_t count;
	int rc;

	f = qa_inv_add_file(inv, path);
	if (!f)
		return QA_E_NOMEM;
	f->role = QA_FILE_MODEL;
	rc = load_one(inv, inv->n_files - 1, &special);
	if (rc != QA_OK)
		return rc;
	kv = file_kv(inv, kv_first, inv->n_kvs, QA_GGUF_SPLIT_COUNT);
	if (kv_int(kv, &count) && count > 1)
		qa_inv_finding(inv, QA1101, inv->files[inv->n_files - 1].path,
			       (int64_t)kv->offset, NULL,
			       "split.count is %" PRId64 " but the file name "
			       "does not end in -0000k-of-%05" PRId64 ".gguf, "
			       "so the other parts cannot be located", count,
			       count);
	qa_gguf_fill_hparams(inv);
	qa_gguf_file_kind(inv);
	return QA_OK;
}

/* The path of part k of the set. */
static const char *
part_path(struct set_load *s, uint32_t k)
{
	const char *p;

	p = qa_arena_printf(&s->inv->arena, "%.*s%.*s-%05" PRIu32 "-of-%05"
			    PRIu32 ".gguf", (int)s->dir_len, s->path,
			    (int)s->sn.prefix_len, s->base, k, s->sn.count);
	if (!p)
		s->inv->out_of_memory = true;
	return p;
}

/* Parts lo..hi (inclusive) are absent: one finding each up to
 * MAX_PART_FINDINGS, then only counted. Never loops over the gap. */
static int
report_missing(struct set_load *s, uint32_t lo, uint32_t hi)
{
	struct qa_inventory *inv = s->inv;
	uint32_t k;

	if (lo > hi)
		return QA_OK;
	if (!inv->weights.missing_files) {
		inv->weights.first_missing = part_path(s, lo);
		if (!inv->weights.first_missing)
			return QA_E_NOMEM;
	}
	inv->weights.missing_files += hi - lo + 1;
	s->n_missing += hi - lo + 1;
	for (k = lo; k <= hi && s->reported < MAX_PART_FINDINGS; k++) {
		const char *p = part_path(s, k);

		if (!p)
			return QA_E_NOMEM;
		s->reported++;
		qa_inv_finding(inv, QA1101, p, -1, NULL, "part %" PRIu32
			       " of %" PRIu32 " is missing", k, s->sn.count);
	}
	return QA_OK;
}

/* Files beside the set with the same prefix but another part count, or a
 * part number outside it, in name order. */
static void
report_extra_parts(struct set_load *s, const struct qa_split_index *ix)
{
	struct qa_inventory *inv = s->inv;
	uint32_t count = s->sn.count, n_extra = 0;
	bool more = false;
	size_t lo, hi, i;

	if (!ix)
		return;
	/* Part counts and numbers have five digits: (prefix, UINT32_MAX,
	 * UINT32_MAX) bounds the prefix's names. */
	lo = index_lower(ix, s->base, s->sn.prefix_len, 0, 0);
	hi = index_lower(ix, s->base, s->sn.prefix_len, UINT32_MAX,
			 UINT32_MAX);
	/* A prefix's names are the same range in both orders; the walk
	 * stops at the last finding, so it passes at most the set's own
	 * parts besides. */
	for (i = lo; i < hi; i++) {
		const struct qa_split_entry *v = &ix->v[ix->by_name[i]];

		if (v->count == count && v->part >= 1 && v->part <= count)
			continue;
		if (n_extra == MAX_PART_FINDINGS) {
			more = true;
			break;
		}
		n_extra++;
		qa_inv_finding(inv, QA1102, NULL, -1, NULL,
			       "'%.*s%s' has the prefix of this %" PRIu32
			       "-part set but claims part %" PRIu32 " of %"
			       PRIu32, (int)s->dir_len, s->path, v->name,
			       count, v->part, v->count);
	}
	if (more) {
		size_t own = index_lower(ix, s->base, s->sn.prefix_len, count,
					 count + 1) -
			     index_lower(ix, s->base, s->sn.prefix_len, count,
					 1);

		qa_inv_finding(inv, QA1102, NULL, -1, NULL, "%zu files in all "
			       "have the prefix of this %" PRIu32 "-part set "
			       "but are not its parts", (hi - lo) - own, count);
	}
}

struct name_ref {
	const char *name;
	uint32_t file;
	uint32_t idx;
};

static int
cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A tensor name in two parts: llama.cpp "tensor '%s' is duplicated".
 * Duplicates inside one part were reported by the file parser. */
static void
check_cross_part_duplicates(struct qa_inventory *inv)
{
	struct name_ref *refs;
	uint32_t i;

	if (inv->n_tensors < 2)
		return;
	refs = qa_arena_array(&inv->arena, inv->n_tensors, sizeof(*refs));
	if (!refs)
		return;
	for (i = 0; i < inv->n_tensors; i++) {
		refs[i].name = inv->tensors[i].name;
		refs[i].file = inv->tensors[i].file;
		refs[i].idx = i;
	}
	qsort(refs, inv->n_tensors, sizeof(*refs), cmp_name_ref);
	for (i = 1; i < inv->n_tensors; i++) {
		if (strcmp(refs[i].name, refs[i - 1].name) != 0 ||
		    refs[i].file == refs[i - 1].file)
			continue;
		qa_inv_finding(inv, QA1021, inv->files[refs[i].file].path, -1,
			       refs[i].name, "tensor '%s' is in %s and in %s",
			       refs[i].name, inv->files[refs[i - 1].file].name,
			       inv->files[refs[i].file].name);
	}
}

/* Keys gguf-split writes into every part (and GGUF housekeeping). */
static bool
is_part_key(const char *key)
{
	return strncmp(key, QA_GGUF_SPLIT_PREFIX,
		       sizeof(QA_GGUF_SPLIT_PREFIX) - 1) == 0 ||
	       strcmp(key, QA_GGUF_GENERAL_ALIGNMENT) == 0;
}

/* split.no / split.count / model keys of part number `part` (1-based). */
static void
check_part(struct qa_inventory *inv, const struct part *pt, uint32_t count)
{
	const struct qa_file *f = &inv->files[pt->fi];
	const struct qa_kv *kv, *first_model = NULL;
	uint32_t i, n_model = 0, part = pt->part;
	int64_t v;

	kv = file_kv(inv, pt->kv_first, pt->kv_end, QA_GGUF_SPLIT_NO);
	if (!kv)
		qa_inv_finding(inv, QA1103, f->path, -1, NULL,
			       "part %" PRIu32 " of %" PRIu32 " has no split.no "
			       "key", part, count);
	else if (!kv_int(kv, &v) || v != (int64_t)part - 1)
		qa_inv_finding(inv, QA1103, f->path, (int64_t)kv->offset, NULL,
			       "split.no is %s but the file is part %" PRIu32
			       " (split.no %" PRIu32 ")",
			       kv_int(kv, &v) ? qa_arena_printf(&inv->arena,
					"%" PRId64, v) : "not an integer",
			       part, part - 1);
	kv = file_kv(inv, pt->kv_first, pt->kv_end, QA_GGUF_SPLIT_COUNT);
	if (!kv)
		qa_inv_finding(inv, QA1103, f->path, -1, NULL,
			       "part %" PRIu32 " of %" PRIu32 " has no "
			       "split.count key", part, count);
	else if (!kv_int(kv, &v) || v != (int64_t)count)
		qa_inv_finding(inv, QA1103, f->path, (int64_t)kv->offset, NULL,
			       "split.count is %s but the set has %" PRIu32
			       " parts", kv_int(kv, &v) ?
			       qa_arena_printf(&inv->arena, "%" PRId64, v) :
			       "not an integer", count);
	if (part == 1)
		return;
	for (i = pt->kv_first; i < pt->kv_end && i < inv->n_kvs; i++) {
		if (is_part_key(inv->kvs[i].key))
			continue;
		if (!first_model)
			first_model = &inv->kvs[i];
		n_model++;
	}
	if (first_model)
		qa_inv_finding(inv, QA1104, f->path,
			       (int64_t)first_model->offset, NULL,
			       "part %" PRIu32 " carries %" PRIu32 " model "
			       "key(s), starting with '%s'; llama.cpp reads "
			       "metadata from the first part only", part,
			       n_model, first_model->key);
}

/*
 * The parts of the set present in the folder, in part order: from the
 * folder's split names, or (no listing, or a hidden prefix the listing
 * leaves out) by looking each part up. The part given is always there.
 * Returns the count in *n, or -1 when out of memory.
 */
static struct part *
present_parts(struct set_load *s, const struct qa_split_index *ix,
	      uint32_t *n)
{
	struct qa_inventory *inv = s->inv;
	const uint32_t count = s->sn.count;
	struct part *v;
	size_t lo = 0, hi = 0, i;
	uint32_t k = 0;
	bool given = false;

	*n = 0;
	if (ix && s->base[0] != '.') {
		lo = index_lower(ix, s->base, s->sn.prefix_len, count, 1);
		hi = index_lower(ix, s->base, s->sn.prefix_len, count,
				 count + 1);
		v = qa_arena_array(&inv->arena, hi - lo + 1, sizeof(*v));
		if (!v)
			return NULL;
		for (i = lo; i < hi; i++) {
			if (ix->v[i].part == s->sn.part)
				given = true;
			v[k].part = ix->v[i].part;
			v[k].kind = ix->v[i].part == s->sn.part ?
				    QA_NODE_FILE : ix->v[i].kind;
			k++;
		}
		if (!given) {
			/* The listing did not show the part given: keep
			 * part order. */
			for (i = k; i > 0 && v[i - 1].part > s->sn.part; i--)
				v[i] = v[i - 1];
			v[i].part = s->sn.part;
			v[i].kind = QA_NODE_FILE;
			k++;
		}
		*n = k;
		return v;
	}
	/* Looked up one by one: at most 99999 (five digits). */
	v = qa_arena_array(&inv->arena, count, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 1; i <= count; i++) {
		enum qa_node_kind kind = QA_NODE_FILE;
		uint64_t size;

		if (i != s->sn.part) {
			const char *p = part_path(s, (uint32_t)i);

			if (!p)
				return NULL;
			if (qa_inv_stat(inv, p, &kind, &size) != QA_OK)
				kind = QA_NODE_MISSING;
		}
		if (kind == QA_NODE_MISSING)
			continue;
		v[k].part = (uint32_t)i;
		v[k].kind = kind;
		k++;
	}
	*n = k;
	return v;
}

/*
 * Loads the split set of path, a part name. ix: the split names of its
 * folder (NULL: look each part up, and no extra-part check). Work is
 * linear in the parts present plus the folder's names with this prefix,
 * never in the part count a name claims.
 */
static int
load_set(struct qa_inventory *inv, const char *path,
	 const struct qa_split_index *ix)
{
	struct set_load s;
	struct part *parts;
	const struct qa_kv *kv;
	uint32_t i, n_parts, n_loaded = 0, next = 1;
	uint64_t total;
	int64_t want;
	int rc;

	memset(&s, 0, sizeof(s));
	s.inv = inv;
	s.path = path;
	s.base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	s.dir_len = (size_t)(s.base - path);
	parse_split_name(s.base, &s.sn);
	parts = present_parts(&s, ix, &n_parts);
	if (!parts)
		return QA_E_NOMEM;
	for (i = 0; i < n_parts; i++) {
		struct part *pt = &parts[i];
		const char *p, *special = NULL;
		struct qa_file *f;

		rc = report_missing(&s, next, pt->part - 1);
		if (rc != QA_OK)
			return rc;
		next = pt->part + 1;
		p = pt->part == s.sn.part ? path : part_path(&s, pt->part);
		if (!p)
			return QA_E_NOMEM;
		if (pt->kind != QA_NODE_FILE) {
			s.n_missing++;
			special_finding(inv, p, pt->part, s.sn.count,
					pt->kind == QA_NODE_DIR ? "a folder" :
					pt->kind == QA_NODE_OTHER ?
					"a FIFO, device or socket" :
					pt->kind == QA_NODE_OUTSIDE ?
					QA_LINK_OUT_WHAT : "unreadable");
			continue;
		}
		f = qa_inv_add_file(inv, p);
		if (!f)
			return QA_E_NOMEM;
		pt->fi = inv->n_files - 1;
		f->role = QA_FILE_SHARD;
		f->part = pt->part;
		f->parts = s.sn.count;
		pt->kv_first = inv->n_kvs;
		rc = load_one(inv, pt->fi, &special);
		pt->kv_end = inv->n_kvs;
		if (rc == QA_E_IO && special) {
			/* Listed as a file, something else when opened: it
			 * leaves the file list, as one never read. */
			inv->n_files--;
			s.n_missing++;
			special_finding(inv, p, pt->part, s.sn.count, special);
			pt->kind = QA_NODE_OTHER;
			continue;
		}
		if (rc == QA_E_UNRECOGNIZED && pt->part != s.sn.part) {
			/* A sibling that is not GGUF: a broken set, not an
			 * unrecognized input. */
			qa_inv_finding(inv, QA1103, inv->files[pt->fi].path, 0,
				       NULL, "part %" PRIu32 " is not a GGUF "
				       "file", pt->part);
			pt->kind = QA_NODE_MISSING;
			continue;
		}
		if (rc != QA_OK)
			return rc;
		n_loaded++;
		if (s.sn.count > 1)
			check_part(inv, pt, s.sn.count);
	}
	rc = report_missing(&s, next, s.sn.count);
	if (rc != QA_OK)
		return rc;
	if (s.reported < s.n_missing && s.n_missing > MAX_PART_FINDINGS)
		qa_inv_finding(inv, QA1101, NULL, -1, NULL, "%" PRIu32 " of "
			       "the %" PRIu32 " parts of %.*s%.*s are missing "
			       "in all", s.n_missing, s.sn.count,
			       (int)s.dir_len, path, (int)s.sn.prefix_len,
			       s.base);
	report_extra_parts(&s, ix);
	if (n_loaded > 1)
		check_cross_part_duplicates(inv);

	/* Every part carries split.tensors.count; the first part's value
	 * is the one llama.cpp compares with the tensors it found. */
	kv = NULL;
	total = 0;
	for (i = 0; i < n_parts; i++) {
		if (parts[i].kind != QA_NODE_FILE)
			continue;
		if (!kv)
			kv = file_kv(inv, parts[i].kv_first, parts[i].kv_end,
				     QA_GGUF_SPLIT_TENSORS_COUNT);
		total += inv->files[parts[i].fi].tensor_count;
	}
	if (s.n_missing == 0 && kv && kv_int(kv, &want) &&
	    (want < 0 || (uint64_t)want != total))
		qa_inv_finding(inv, QA1103, inv->files[kv->file].path,
			       (int64_t)kv->offset, NULL,
			       "split.tensors.count is %" PRId64 " but the %"
			       PRIu32 " parts hold %" PRIu64 " tensors", want,
			       s.sn.count, total);
	qa_gguf_fill_hparams(inv);
	qa_gguf_file_kind(inv);
	return QA_OK;
}

int
qa_gguf_load_split(struct qa_inventory *inv, const char *path,
		   const struct qa_split_index *ix)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	struct qa_split_index *own = NULL;
	struct qa_dirent *ents = NULL;
	size_t n_ents = 0;
	struct split_name sn;
	int rc;

	inv->kind = QA_KIND_GGUF;
	if (!parse_split_name(base, &sn))
		return load_single(inv, path);
	if (sn.count == 0 || sn.part == 0 || sn.part > sn.count) {
		rc = load_single(inv, path);
		if (rc == QA_OK)
			qa_inv_finding(inv, QA1102, path, -1, NULL,
				       "the name claims part %" PRIu32 " of %"
				       PRIu32, sn.part, sn.count);
		return rc;
	}
	if (!ix) {
		/* The folder's names, listed once: which parts are there,
		 * and which files share the prefix. */
		const char *dir = slash ? qa_arena_strndup(&inv->arena, path,
					  (size_t)(base - path)) : ".";

		if (!dir)
			return QA_E_NOMEM;
		if (qa_inv_list(inv, dir, &ents, &n_ents) == QA_OK) {
			rc = qa_gguf_split_index_create(ents, n_ents, &own);
			qa_dirents_free(ents, n_ents);
			if (rc != QA_OK)
				return rc;
		}
		ix = own;
	}
	rc = load_set(inv, path, ix);
	qa_gguf_split_index_destroy(own);
	return rc;
}

int
qa_gguf_load_path(struct qa_inventory *inv, const char *path)
{
	return qa_gguf_load_split(inv, path, NULL);
}

/* The format table row (formats/format.h): the file module's probe and
 * reader, and this set loader. */
const struct qa_format qa_format_gguf = {
	.name = "gguf",
	.extension = NULL,
	.kind = QA_KIND_GGUF,
	.probe_size = 4,
	.probe = qa_gguf_probe,
	.load = qa_gguf_load_file,
	.load_path = qa_gguf_load_path,
};
