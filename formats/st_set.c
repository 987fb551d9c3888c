/* SPDX-License-Identifier: MIT */
/*
 * safetensors sets: a single file, a numbered shard set
 * (X-0000k-of-0000n.safetensors, '-' or '_' before k, 5 or 6 digits, the
 * huggingface.js shard pattern), and a sharded checkpoint described by
 * X.safetensors.index.json (shared/knowledge/formats-and-security.md §2.6).
 *
 * Every file of a set is found by listing the folder, never by joining an
 * index's shard name to it: a weight_map value such as "../x" or
 * "/etc/passwd" is reported (QA1306) and can never be opened. Extra
 * safetensors files that the index does not name (model-mtp.safetensors,
 * model_extra_tensors.safetensors, mtp.safetensors written by quantizers,
 * quant-formats.md §1.1) are loaded too and reported (QA1305), because
 * loaders that follow the index silently drop them.
 *
 * Files are added in a deterministic order: the index first, then the
 * shards sorted by name.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/format.h"
#include "formats/weight_index.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/ckd.h"
#include "core/confine.h"

/* An index is a few hundred bytes per tensor; 100 MB (the safetensors
 * header cap) is ~10^6 tensors, far beyond any published model. */
/* Findings for missing numbered parts beyond this are summarised. */
#define MAX_PART_FINDINGS 32

static const char ST_EXT[] = ".safetensors";
static const char IDX_EXT[] = ".safetensors.index.json";

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* ---- names ---------------------------------------------------------- */

struct shard_name {
	size_t prefix_len;	/* bytes of X */
	uint32_t k, n;
};

/* Digits ending at s[end) going backwards: 5 or 6 of them. */
static bool
back_digits(const char *s, size_t end, size_t *start, uint32_t *val)
{
	size_t i = end;
	uint32_t v = 0, mul = 1;

	while (i > 0 && end - i < 7 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (end - i < 5 || end - i > 6)
		return false;
	for (size_t j = end; j > i; j--) {
		v += (uint32_t)(s[j - 1] - '0') * mul;
		mul *= 10;
	}
	*start = i;
	*val = v;
	return true;
}

/* Parses X[-_]kkkkk-of-nnnnn.safetensors. */
static bool
parse_shard_name(const char *name, struct shard_name *out)
{
	size_t len = strlen(name), end, s;

	if (!ends_with(name, ST_EXT))
		return false;
	end = len - (sizeof(ST_EXT) - 1);
	if (!back_digits(name, end, &s, &out->n) || s < 4 ||
	    memcmp(name + s - 4, "-of-", 4) != 0)
		return false;
	end = s - 4;
	if (!back_digits(name, end, &s, &out->k) || s < 2 ||
	    (name[s - 1] != '-' && name[s - 1] != '_'))
		return false;
	out->prefix_len = s - 1;
	return true;
}

/* ---- folder listing --------------------------------------------------- */

struct listing {
	char **names;	/* sorted, regular non-hidden files */
	size_t n;
	char **special;	/* sorted, non-hidden entries that are neither
			 * regular files nor reachable (FIFOs, devices,
			 * sockets, folders) */
	enum qa_node_kind *special_kind;	/* of each special entry */
	size_t n_special;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	for (size_t i = 0; i < l->n_special; i++)
		free(l->special[i]);
	free(l->names);
	free(l->special);
	free(l->special_kind);
	memset(l, 0, sizeof(*l));
}

/* The regular, non-hidden files of dir, sorted, and apart from them the
 * entries that are FIFOs, devices, sockets or folders. */
static int
list_dir(struct qa_inventory *inv, const char *dir, struct listing *l)
{
	struct qa_dirent *ents = NULL;
	size_t n = 0, i;
	int rc;

	memset(l, 0, sizeof(*l));
	rc = qa_inv_list(inv, *dir ? dir : ".", &ents, &n);
	if (rc != QA_OK)
		return rc;
	l->names = calloc(n ? n : 1, sizeof(*l->names));
	l->special = calloc(n ? n : 1, sizeof(*l->special));
	l->special_kind = calloc(n ? n : 1, sizeof(*l->special_kind));
	if (!l->names || !l->special || !l->special_kind) {
		qa_dirents_free(ents, n);
		listing_free(l);
		return QA_E_NOMEM;
	}
	for (i = 0; i < n; i++) {
		if (ents[i].kind == QA_NODE_FILE) {
			l->names[l->n++] = ents[i].name;
		} else if (ents[i].kind == QA_NODE_OTHER ||
			   ents[i].kind == QA_NODE_DIR ||
			   ents[i].kind == QA_NODE_OUTSIDE) {
			l->special_kind[l->n_special] = ents[i].kind;
			l->special[l->n_special++] = ents[i].name;
		} else {
			continue;
		}
		ents[i].name = NULL;
	}
	qa_dirents_free(ents, n);
	return QA_OK;
}

static bool
listing_has(const struct listing *l, const char *name)
{
	return l->n && bsearch(&name, l->names, l->n, sizeof(*l->names),
			       cmp_str) != NULL;
}

/* What name is when the listing shows it as special, else NULL. */
static const char *
listing_special(const struct listing *l, const char *name)
{
	char **hit;

	if (!l->n_special)
		return NULL;
	hit = bsearch(&name, l->special, l->n_special, sizeof(*l->special),
		      cmp_str);
	if (!hit)
		return NULL;
	if (l->special_kind[hit - l->special] == QA_NODE_OUTSIDE)
		return QA_LINK_OUT_WHAT;
	return l->special_kind[hit - l->special] == QA_NODE_DIR ?
	       "a folder" : "a FIFO, device or socket";
}

/* A file the set needs that is not a regular file: not read; a weight
 * file (not the index) counts as missing. */
static void
special_finding(struct qa_inventory *inv, const char *path, const char *name,
		const char *what, bool weights)
{
	/* a link out of the folder is not followed (core/confine.h), a
	 * file its permissions forbid reading is not read */
	if (!qa_inv_not_read(inv, path, what))
		qa_inv_finding(inv, QA1410, path, -1, NULL, "%s is %s, not a "
			       "regular file; it was not read", name, what);
	if (weights && !inv->weights.missing_files++)
		inv->weights.first_missing = qa_arena_strdup(&inv->arena, name);
}

/* ---- loading ---------------------------------------------------------- */

/*
 * Adds path as a file of the given role and parses it as safetensors. A
 * path listed as a file that is something else when opened (a FIFO put
 * in its place) is a finding, not added: *skipped is set.
 */
static int
load_one(struct qa_inventory *inv, const char *path, enum qa_file_role role,
	 uint32_t part, uint32_t parts, bool *skipped)
{
	struct qa_source src;
	struct qa_file *f;
	uint32_t fi;
	int rc;

	*skipped = false;
	if (qa_inv_open(inv, path, &src) != QA_OK) {
		const char *base = strrchr(path, '/');

		if (!src.not_regular)
			return QA_E_IO;
		special_finding(inv, path, base ? base + 1 : path,
				src.not_regular, true);
		*skipped = true;
		return QA_OK;
	}
	f = qa_inv_add_file(inv, path);
	if (!f) {
		qa_source_close(&src);
		return QA_E_NOMEM;
	}
	fi = inv->n_files - 1;
	f->role = role;
	f->part = part;
	f->parts = parts;
	f->bytes = src.size;
	f->format = "safetensors";
	rc = qa_st_load_file(inv, fi, &src);
	qa_source_close(&src);
	return rc;
}

/* qsort has no context argument in C11: the tensor array being sorted is
 * passed through this file-local pointer (single-threaded use only). */
static const struct qa_tensor *sort_tensors;

static int
cmp_tidx(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = strcmp(sort_tensors[x].name, sort_tensors[y].name);

	if (r == 0)
		r = (x > y) - (x < y);
	return r;
}

struct set_files {
	uint32_t first_file, end_file;		/* files loaded by this set */
	uint32_t first_tensor, end_tensor;
	bool *extra;				/* per file, from first_file */
};

/* A numbered file of the set: its (X, n) group and part number. */
struct numbered {
	const char *name;	/* basename (X is its first prefix_len bytes) */
	size_t prefix_len;
	uint32_t k, n;
	uint32_t fi;		/* its file */
};

static int
cmp_group(const struct numbered *a, const struct numbered *b)
{
	size_t m = a->prefix_len < b->prefix_len ? a->prefix_len :
		   b->prefix_len;
	int c = memcmp(a->name, b->name, m);

	if (c)
		return c;
	if (a->prefix_len != b->prefix_len)
		return a->prefix_len < b->prefix_len ? -1 : 1;
	return a->n < b->n ? -1 : a->n > b->n;
}

/* Group (X, n), then part number, then file. */
static int
cmp_numbered(const void *x, const void *y)
{
	const struct numbered *a = x, *b = y;
	int c = cmp_group(a, b);

	if (c)
		return c;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	return a->fi < b->fi ? -1 : a->fi > b->fi;
}

struct group {
	size_t lo, hi;		/* its members in the sorted array */
	uint32_t first_fi;	/* its first file in load order */
};

static int
cmp_group_first(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	return a->first_fi < b->first_fi ? -1 : a->first_fi > b->first_fi;
}

static int
cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* One (X, n) group: part numbers outside 1..n (in load order), then the
 * missing parts: found between the sorted part numbers present, never by
 * walking 1..n (a name can claim 999999 parts). */
static void
check_group(struct qa_inventory *inv, const struct numbered *v,
	    const struct group *g, uint32_t *scratch)
{
	const struct numbered *a = &v[g->lo];
	uint32_t n_bad = 0, reported = 0, missing = 0, next = 1, j;
	size_t i;

	for (i = g->lo; i < g->hi; i++)
		if (v[i].k == 0 || v[i].k > v[i].n)
			scratch[n_bad++] = v[i].fi;
	qsort(scratch, n_bad, sizeof(*scratch), cmp_u32);
	for (j = 0; j < n_bad; j++) {
		struct shard_name b;

		parse_shard_name(inv->files[scratch[j]].name, &b);
		qa_inv_finding(inv, QA1309, inv->files[scratch[j]].path, -1,
			       NULL, "part number %u is outside 1..%u", b.k,
			       b.n);
	}
	for (i = g->lo; i <= g->hi; i++) {
		uint32_t k = i < g->hi ? v[i].k : a->n + 1;

		if (k == 0 || (i < g->hi && k > a->n) || k < next)
			continue;
		/* next..k-1 are missing */
		if (k > next && !inv->weights.missing_files)
			inv->weights.first_missing = qa_arena_printf(
				&inv->arena, "part %u of %u of %.*s", next,
				a->n, (int)a->prefix_len, a->name);
		inv->weights.missing_files += k - next;
		missing += k - next;
		for (j = next; j < k && reported < MAX_PART_FINDINGS; j++) {
			reported++;
			qa_inv_finding(inv, QA1309, NULL, -1, NULL,
				       "part %u of %u of %.*s is missing", j,
				       a->n, (int)a->prefix_len, a->name);
		}
		next = k + 1;
	}
	if (missing > MAX_PART_FINDINGS)
		qa_inv_finding(inv, QA1309, NULL, -1, NULL,
			       "%u parts of %.*s are missing in all", missing,
			       (int)a->prefix_len, a->name);
}

/*
 * Numbered sets without an index: every part 1..n of each (X, n) group
 * present. Sorted once, so a folder of many numbered files costs
 * O(f log f) whatever the groups and the part counts the names claim.
 */
static void
check_numbered(struct qa_inventory *inv, const struct set_files *sf)
{
	struct numbered *v;
	struct group *g;
	uint32_t *scratch;
	size_t nf = sf->end_file - sf->first_file, n = 0, n_g = 0, i;

	v = calloc(nf ? nf : 1, sizeof(*v));
	g = calloc(nf ? nf : 1, sizeof(*g));
	scratch = calloc(nf ? nf : 1, sizeof(*scratch));
	if (!v || !g || !scratch) {
		inv->out_of_memory = true;
		goto out;
	}
	for (i = sf->first_file; i < sf->end_file; i++) {
		struct shard_name a;

		if (!parse_shard_name(inv->files[i].name, &a) || a.n == 0)
			continue;
		v[n].name = inv->files[i].name;
		v[n].prefix_len = a.prefix_len;
		v[n].k = a.k;
		v[n].n = a.n;
		v[n].fi = (uint32_t)i;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_numbered);
	for (i = 0; i < n; i++) {
		if (i == 0 || cmp_group(&v[i - 1], &v[i]) != 0) {
			g[n_g].lo = i;
			g[n_g].first_fi = v[i].fi;
			n_g++;
		}
		g[n_g - 1].hi = i + 1;
		if (v[i].fi < g[n_g - 1].first_fi)
			g[n_g - 1].first_fi = v[i].fi;
	}
	/* Each group at its first file, as the files were loaded. */
	qsort(g, n_g, sizeof(*g), cmp_group_first);
	for (i = 0; i < n_g; i++)
		check_group(inv, v, &g[i], scratch);
out:
	free(v);
	free(g);
	free(scratch);
}

/* A loaded file of the set by name: sorted (name, file) pairs. */
struct file_ref {
	const char *name;
	uint32_t fi;
};

static int
cmp_file_ref(const void *x, const void *y)
{
	const struct file_ref *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->fi < b->fi ? -1 : a->fi > b->fi;
}

/* The first loaded file named name, or UINT32_MAX. */
static uint32_t
find_file(const struct file_ref *f, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(f[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(f[lo].name, name) == 0 ? f[lo].fi :
	       UINT32_MAX;
}

/* Cross-file checks: duplicates across shards and the index agreement. */
static int
check_set(struct qa_inventory *inv, const struct set_files *sf,
	  const struct qa_weight_index *ix)
{
	size_t nt = sf->end_tensor - sf->first_tensor, i;
	size_t nf = sf->end_file - sf->first_file;
	struct file_ref *files = NULL;
	const struct qa_weight_entry **match = NULL;
	uint32_t *ti = NULL, fi = UINT32_MAX;
	size_t kk;
	const char *last_shard = NULL;
	uint64_t sum = 0;
	bool shard_missing = false, unsafe = false;

	ti = malloc((nt ? nt : 1) * sizeof(*ti));
	files = malloc((nf ? nf : 1) * sizeof(*files));
	if (!ti || !files) {
		free(ti);
		free(files);
		return QA_E_NOMEM;
	}
	for (i = 0; i < nf; i++) {
		files[i].name = inv->files[sf->first_file + i].name;
		files[i].fi = sf->first_file + (uint32_t)i;
	}
	qsort(files, nf, sizeof(*files), cmp_file_ref);
	for (i = 0; i < nt; i++)
		ti[i] = sf->first_tensor + (uint32_t)i;
	sort_tensors = inv->tensors;
	qa_sort_unless_sorted(ti, nt, sizeof(*ti), cmp_tidx);
	sort_tensors = NULL;
	for (i = 1; i < nt; i++) {
		const struct qa_tensor *a = &inv->tensors[ti[i - 1]];
		const struct qa_tensor *b = &inv->tensors[ti[i]];

		if (strcmp(a->name, b->name) == 0 && a->file != b->file)
			qa_inv_finding(inv, QA1308, inv->files[b->file].path,
				       (int64_t)b->offset, b->name,
				       "also in %s", inv->files[a->file].name);
	}
	if (!ix || !ix->valid)
		goto out;
	/* Ghost keys: mapped to a present shard that lacks the tensor. Files
	 * and tensors are found by binary search: O(entries log n). */
	/* Both lists are sorted by name: one merged walk pairs every entry
	 * with the tensors of its name (k only moves forward), and every
	 * tensor with its entry (the last of equal entries, as Python's
	 * dict keeps the last). */
	match = calloc(nt ? nt : 1, sizeof(*match));
	if (!match) {
		free(ti);
		free(files);
		return QA_E_NOMEM;
	}
	for (i = 0, kk = 0; i < ix->n; i++) {
		const struct qa_weight_entry *e = &ix->e[i];
		size_t k;
		bool found = false;

		while (kk < nt &&
		       strcmp(inv->tensors[ti[kk]].name, e->tensor) < 0)
			kk++;
		for (k = kk; k < nt &&
			     strcmp(inv->tensors[ti[k]].name, e->tensor) == 0;
		     k++)
			match[ti[k] - sf->first_tensor] = e;

		/* entries of one shard share its name: looked up once */
		if (e->shard != last_shard) {
			last_shard = e->shard;
			fi = find_file(files, nf, e->shard);
			unsafe = qa_unsafe_shard_name(e->shard);
		}
		if (fi == UINT32_MAX || unsafe) {
			/* missing or unsafe: reported already, and the
			 * headers cannot add up to total_size */
			shard_missing = true;
			continue;
		}
		for (k = kk; k < nt &&
			     strcmp(inv->tensors[ti[k]].name, e->tensor) == 0;
		     k++)
			if (inv->tensors[ti[k]].file == fi)
				found = true;
		if (!found)
			qa_inv_finding(inv, QA1302, ix->path, -1, e->tensor,
				       "weight_map puts the tensor in %s, whose header does not have it",
				       e->shard);
	}
	/* Unlisted tensors, and total_size, over the shards the index names. */
	for (i = sf->first_tensor; i < sf->end_tensor; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		const struct qa_file *f = &inv->files[t->file];
		const struct qa_weight_entry *e;

		if (sf->extra[t->file - sf->first_file])
			continue;	/* whole file reported as QA1305 */
		if (qa_ckd_add(&sum, sum, t->bytes))
			sum = UINT64_MAX;
		e = match[i - sf->first_tensor];
		if (!e)
			qa_inv_finding(inv, QA1303, f->path, (int64_t)t->offset,
				       t->name,
				       "%s holds the tensor but weight_map does not list it",
				       f->name);
		else if (strcmp(e->shard, f->name) != 0)
			qa_inv_finding(inv, QA1303, f->path, (int64_t)t->offset,
				       t->name,
				       "%s holds the tensor but weight_map lists it under %s",
				       f->name, e->shard);
	}
	if (ix->have_total && ix->total_bad)
		qa_inv_finding(inv, QA1307, ix->path, -1, NULL,
			       "metadata.total_size is not a non-negative integer");
	else if (ix->have_total && ix->total != sum && !shard_missing)
		qa_inv_finding(inv, QA1307, ix->path, -1, NULL,
			       "metadata.total_size is %llu, the shard headers hold %llu tensor bytes",
			       (unsigned long long)ix->total,
			       (unsigned long long)sum);
out:
	free(match);
	free(ti);
	free(files);
	return QA_OK;
}

/* Does name belong to the numbered set `filter` (same X, same n)? */
static bool
matches_filter(const char *name, const char *fname,
	       const struct shard_name *filter)
{
	struct shard_name s;

	return parse_shard_name(name, &s) && s.n == filter->n &&
	       s.prefix_len == filter->prefix_len &&
	       memcmp(name, fname, s.prefix_len) == 0;
}

/*
 * Loads a set from dir: the index (if any), the shards it names, and the
 * candidate files (every *.safetensors, or only the numbered set of
 * filter_name when given).
 */
static int
load_set(struct qa_inventory *inv, const char *dir, const char *index_name,
	 const char *filter_name)
{
	struct qa_weight_index ix;
	struct listing l;
	struct set_files sf;
	struct shard_name filter;
	bool *take = NULL;
	size_t i, n_take = 0;
	int rc;

	memset(&ix, 0, sizeof(ix));
	memset(&sf, 0, sizeof(sf));
	if (filter_name && !parse_shard_name(filter_name, &filter))
		filter_name = NULL;
	rc = list_dir(inv, dir, &l);
	if (rc != QA_OK)
		return rc;
	if (index_name) {
		const char *path, *special;

		rc = qa_weight_index_load(inv, dir, index_name, &ix, &path,
					  &special);
		if (rc == QA_E_IO && special) {
			/* Listed as a file, something else when opened:
			 * the set is read without its index. */
			special_finding(inv, path, index_name, special, false);
			rc = QA_OK;
		} else if (rc != QA_OK) {
			goto out;
		}
	}
	take = calloc(l.n ? l.n : 1, sizeof(*take));
	if (!take) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		const char *nm = l.names[i];

		if (!ends_with(nm, ST_EXT))
			continue;
		if (qa_weight_index_names_shard(&ix, nm) ||
		    !filter_name || matches_filter(nm, filter_name, &filter)) {
			take[i] = true;
			n_take++;
		}
	}
	/* Shards the index names that are unsafe or absent. */
	for (i = 0; ix.valid && i < ix.n_shards; i++) {
		const char *s = ix.shards[i];

		const char *what;

		if (qa_unsafe_shard_name(s))
			qa_inv_finding(inv, QA1306, ix.path, -1, NULL,
				       "weight_map names \"%s\", which is not a plain file name in the model folder; it was not opened",
				       s);
		else if ((what = listing_special(&l, s)) != NULL)
			special_finding(inv, qa_inv_join(inv, dir, s), s, what,
					true);
		else if (!listing_has(&l, s)) {
			if (!inv->weights.missing_files++)
				inv->weights.first_missing =
					qa_arena_strdup(&inv->arena, s);
			qa_inv_finding(inv, QA1304, ix.path, -1, NULL,
				       "weight_map names %s, which is not in the folder",
				       s);
		}
	}
	/* Shards that are FIFOs, devices, sockets or folders, named by no
	 * index: never opened, but said (a loader globbing *.safetensors
	 * would open them). */
	for (i = 0; i < l.n_special; i++) {
		const char *nm = l.special[i];

		if (!ends_with(nm, ST_EXT) || qa_weight_index_names_shard(&ix, nm) ||
		    (filter_name && !matches_filter(nm, filter_name, &filter)))
			continue;
		special_finding(inv, qa_inv_join(inv, dir, nm), nm,
				listing_special(&l, nm), true);
	}
	sf.first_file = inv->n_files;
	sf.first_tensor = inv->n_tensors;
	sf.extra = calloc(n_take ? n_take : 1, sizeof(*sf.extra));
	if (!sf.extra) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		struct shard_name sn;
		bool numbered, skipped;
		char *path;

		if (!take[i])
			continue;
		numbered = parse_shard_name(l.names[i], &sn);
		path = qa_inv_join(inv, dir, l.names[i]);
		if (!path) {
			rc = QA_E_NOMEM;
			goto out;
		}
		rc = load_one(inv, path,
			      index_name || n_take > 1 ? QA_FILE_SHARD :
			      QA_FILE_MODEL,
			      numbered ? sn.k : 0, numbered ? sn.n : 0,
			      &skipped);
		if (rc != QA_OK)
			goto out;
		if (skipped)
			continue;
		if (ix.valid && !qa_weight_index_names_shard(&ix, l.names[i])) {
			sf.extra[inv->n_files - 1 - sf.first_file] = true;
			inv->files[inv->n_files - 1].unlisted = true;
			qa_inv_finding(inv, QA1305, path, -1, NULL,
				       "%s is not named by the index; its %u tensors are included here but index-following loaders skip them",
				       l.names[i],
				       inv->files[inv->n_files - 1].tensor_count);
		}
	}
	sf.end_file = inv->n_files;
	sf.end_tensor = inv->n_tensors;
	if (!ix.valid)
		check_numbered(inv, &sf);
	rc = check_set(inv, &sf, &ix);
out:
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	free(sf.extra);
	free(take);
	listing_free(&l);
	return rc;
}

int
qa_st_load_set_in_dir(struct qa_inventory *inv, const char *dir,
		      const char *index_name)
{
	return load_set(inv, dir, index_name, NULL);
}

/* A name loaders open as a file (config.json, tokenizer_config.json,
 * chat_template.jinja, weights): a folder so named is not skipped in
 * silence. Folders without these endings (additional_chat_templates/,
 * original/, onnx/) are ordinary parts of a model repository. */
static bool
named_as_file(const char *name)
{
	static const char *const ext[] = { ".json", ".jinja", ".gguf", ".bin",
					   ".pt", ".pth", ".model" };
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (ends_with(name, ext[i]))
			return true;
	return false;
}

void
qa_st_report_special(struct qa_inventory *inv, const char *dir,
		     const struct qa_dirent *e, size_t n)
{
	size_t i, k = strlen(dir);

	for (i = 0; i < n; i++) {
		const char *p;

		if (ends_with(e[i].name, ".safetensors") ||
		    (e[i].kind != QA_NODE_OTHER &&
		     (e[i].kind != QA_NODE_DIR ||
		      !named_as_file(e[i].name))))
			continue;
		p = qa_arena_printf(&inv->arena, "%s%s%s", dir,
				    k && dir[k - 1] != '/' ? "/" : "",
				    e[i].name);
		qa_inv_finding(inv, QA1410, p, -1, NULL, "%s in the model "
			       "folder is %s, not a regular file; it was not "
			       "read", e[i].name, e[i].kind == QA_NODE_DIR ?
			       "a folder" : "a FIFO, device or socket");
	}
}

/*
 * A file, shard or index named directly inside a checkpoint folder: the
 * folder's config.json and other side files describe it, so they are
 * read as for the folder (without config.json nothing is).
 */
static int
load_side_beside(struct qa_inventory *inv, const char *dir)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i;
	bool have_config = false;
	int rc;

	if (qa_inv_list(inv, *dir ? dir : ".", &e, &n) != QA_OK)
		return QA_OK;
	qa_st_report_special(inv, dir, e, n);
	for (i = 0; i < n; i++)
		if (e[i].kind == QA_NODE_FILE &&
		    strcmp(e[i].name, "config.json") == 0)
			have_config = true;
	rc = have_config ? qa_hf_load_side_files(inv, dir, e, n) : QA_OK;
	qa_dirents_free(e, n);
	return rc;
}

int
qa_st_load_path(struct qa_inventory *inv, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	struct shard_name sn;
	char *dir;
	int rc;

	inv->kind = QA_KIND_SAFETENSORS;
	dir = qa_arena_strndup(&inv->arena, path,
			       slash ? (size_t)(slash - path + 1) : 0);
	if (!dir) {
		inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	rc = load_side_beside(inv, dir);
	if (rc != QA_OK)
		return rc;
	if (ends_with(base, IDX_EXT))
		return load_set(inv, dir, base, NULL);
	if (parse_shard_name(base, &sn)) {
		struct listing l;
		char *idx = qa_arena_printf(&inv->arena, "%.*s%s",
					    (int)sn.prefix_len, base, IDX_EXT);

		if (!idx) {
			inv->out_of_memory = true;
			return QA_E_NOMEM;
		}
		rc = list_dir(inv, dir, &l);
		if (rc != QA_OK)
			return rc;
		if (!listing_has(&l, idx))
			idx = NULL;
		listing_free(&l);
		return load_set(inv, dir, idx, base);
	}
	/* An unnumbered file of an indexed checkpoint (transformers names
	 * the index model.safetensors.index.json; DeepSeek-style extra
	 * files such as model-mtp.safetensors sit beside it): the set the
	 * index describes, as the folder would be read. */
	{
		struct listing l;
		bool indexed;

		rc = list_dir(inv, dir, &l);
		if (rc != QA_OK)
			return rc;
		indexed = listing_has(&l, "model.safetensors.index.json");
		listing_free(&l);
		if (indexed)
			return load_set(inv, dir, "model.safetensors.index.json",
					NULL);
	}
	{
		bool skipped;

		return load_one(inv, path, QA_FILE_MODEL, 0, 0, &skipped);
	}
}

/* The format table row (formats/format.h): the file module's probe and
 * reader, and this set loader. */
const struct qa_format qa_format_safetensors = {
	.name = "safetensors",
	.extension = ".safetensors",
	.kind = QA_KIND_SAFETENSORS,
	.probe_size = 256,
	.probe = qa_st_probe,
	.load = qa_st_load_file,
	.load_path = qa_st_load_path,
};
