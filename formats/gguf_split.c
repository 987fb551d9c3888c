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

/* Opens, probes and parses one file already added as files[fi]. */
static int
load_one(struct qa_inventory *inv, uint32_t fi)
{
	struct qa_source src;
	int rc;

	rc = qa_inv_open(inv, inv->files[fi].path, &src);
	if (rc != QA_OK)
		return rc;
	inv->files[fi].bytes = src.size;
	rc = qa_gguf_load_file(inv, fi, &src);
	qa_source_close(&src);
	return rc;
}

/* First KV named key among the KVs of file fi, or NULL. */
static const struct qa_kv *
file_kv(const struct qa_inventory *inv, uint32_t fi, const char *key)
{
	uint32_t i;

	for (i = 0; i < inv->n_kvs; i++)
		if (inv->kvs[i].file == fi && strcmp(inv->kvs[i].key, key) == 0)
			return &inv->kvs[i];
	return NULL;
}

static bool
kv_int(const struct qa_kv *kv, int64_t *v)
{
	return kv && qa_value_as_int(&kv->value, v);
}

/* A single file: warn when its keys say it belongs to a set we cannot
 * locate (the name lacks the -0000k-of-0000n suffix). */
static int
load_single(struct qa_inventory *inv, const char *path)
{
	struct qa_file *f;
	const struct qa_kv *kv;
	int64_t count;
	int rc;

	f = qa_inv_add_file(inv, path);
	if (!f)
		return QA_E_NOMEM;
	f->role = QA_FILE_MODEL;
	rc = load_one(inv, inv->n_files - 1);
	if (rc != QA_OK)
		return rc;
	kv = file_kv(inv, inv->n_files - 1, "split.count");
	if (kv_int(kv, &count) && count > 1)
		qa_inv_finding(inv, QA1101, inv->files[inv->n_files - 1].path,
			       (int64_t)kv->offset, NULL,
			       "split.count is %" PRId64 " but the file name "
			       "does not end in -0000k-of-%05" PRId64 ".gguf, "
			       "so the other parts cannot be located", count,
			       count);
	qa_gguf_fill_hparams(inv);
	return QA_OK;
}

static bool
part_exists(const struct qa_inventory *inv, const char *path)
{
	enum qa_node_kind kind;
	uint64_t size;

	return qa_inv_stat(inv, path, &kind, &size) == QA_OK &&
	       kind != QA_NODE_MISSING;
}

/* Files beside the set with the same prefix but another part count, or a
 * part number beyond it. */
static void
find_extra_parts(struct qa_inventory *inv, const char *dir, size_t dir_len,
		 const char *prefix, size_t prefix_len, uint32_t count)
{
	const char *dpath;
	const char **names = NULL;
	size_t n = 0, cap = 0, i, n_ents = 0, e;
	struct qa_dirent *ents = NULL;

	dpath = dir_len ? qa_arena_strndup(&inv->arena, dir, dir_len) : ".";
	if (!dpath || qa_inv_list(inv, dpath, &ents, &n_ents) != QA_OK)
		return;
	for (e = 0; e < n_ents; e++) {
		struct split_name sn;
		const char *copy;

		if (!parse_split_name(ents[e].name, &sn) ||
		    sn.prefix_len != prefix_len ||
		    memcmp(ents[e].name, prefix, prefix_len) != 0)
			continue;
		if (sn.count == count && sn.part >= 1 && sn.part <= count)
			continue;
		copy = qa_arena_strdup(&inv->arena, ents[e].name);
		if (!copy)
			break;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			const char **nn = qa_arena_grow(&inv->arena,
							(void *)names, n,
							ncap, sizeof(*nn));
			if (!nn)
				break;
			names = nn;
			cap = ncap;
		}
		names[n++] = copy;
	}
	qa_dirents_free(ents, n_ents);
	for (i = 0; i < n; i++) {
		struct split_name sn;

		parse_split_name(names[i], &sn);
		qa_inv_finding(inv, QA1102, NULL, -1, NULL,
			       "'%.*s%s' has the prefix of this %" PRIu32
			       "-part set but claims part %" PRIu32 " of %"
			       PRIu32, (int)dir_len, dir, names[i], count,
			       sn.part, sn.count);
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
	return strncmp(key, "split.", 6) == 0 ||
	       strcmp(key, "general.alignment") == 0;
}

/* split.no / split.count / model keys of part number `part` (1-based). */
static void
check_part(struct qa_inventory *inv, uint32_t fi, uint32_t part,
	   uint32_t count)
{
	const struct qa_file *f = &inv->files[fi];
	const struct qa_kv *kv, *first_model = NULL;
	uint32_t i, n_model = 0;
	int64_t v;

	kv = file_kv(inv, fi, "split.no");
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
	kv = file_kv(inv, fi, "split.count");
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
	for (i = 0; i < inv->n_kvs; i++) {
		if (inv->kvs[i].file != fi || is_part_key(inv->kvs[i].key))
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

int
qa_gguf_load_path(struct qa_inventory *inv, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dir_len = (size_t)(base - path);
	uint32_t i, first_fi = inv->n_files, n_loaded = 0;
	bool missing = false;
	const struct qa_kv *kv;
	struct split_name sn;
	uint64_t total;
	int64_t want;
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

	for (i = 1; i <= sn.count; i++) {
		const char *p;
		struct qa_file *f;
		uint32_t fi;

		p = qa_arena_printf(&inv->arena, "%.*s%.*s-%05" PRIu32 "-of-%05"
				    PRIu32 ".gguf", (int)dir_len, path,
				    (int)sn.prefix_len, base, i, sn.count);
		if (!p)
			return QA_E_NOMEM;
		if (i != sn.part && !part_exists(inv, p)) {
			missing = true;
			if (!inv->weights.missing_files++)
				inv->weights.first_missing = p;
			qa_inv_finding(inv, QA1101, p, -1, NULL,
				       "part %" PRIu32 " of %" PRIu32 " is "
				       "missing", i, sn.count);
			continue;
		}
		f = qa_inv_add_file(inv, i == sn.part ? path : p);
		if (!f)
			return QA_E_NOMEM;
		fi = inv->n_files - 1;
		f->role = QA_FILE_SHARD;
		f->part = i;
		f->parts = sn.count;
		rc = load_one(inv, fi);
		if (rc == QA_E_UNRECOGNIZED && i != sn.part) {
			/* A sibling that is not GGUF: a broken set, not an
			 * unrecognized input. */
			qa_inv_finding(inv, QA1103, inv->files[fi].path, 0,
				       NULL, "part %" PRIu32 " is not a GGUF "
				       "file", i);
			continue;
		}
		if (rc != QA_OK)
			return rc;
		n_loaded++;
		if (sn.count > 1)
			check_part(inv, fi, i, sn.count);
	}
	find_extra_parts(inv, path, dir_len, base, sn.prefix_len, sn.count);
	if (n_loaded > 1)
		check_cross_part_duplicates(inv);

	/* Every part carries split.tensors.count; the first part's value
	 * is the one llama.cpp compares with the tensors it found. */
	kv = NULL;
	for (i = first_fi; i < inv->n_files && !kv; i++)
		kv = file_kv(inv, i, "split.tensors.count");
	total = 0;
	for (i = first_fi; i < inv->n_files; i++)
		total += inv->files[i].tensor_count;
	if (!missing && kv && kv_int(kv, &want) &&
	    (want < 0 || (uint64_t)want != total))
		qa_inv_finding(inv, QA1103, inv->files[kv->file].path,
			       (int64_t)kv->offset, NULL,
			       "split.tensors.count is %" PRId64 " but the %"
			       PRIu32 " parts hold %" PRIu64 " tensors", want,
			       sn.count, total);
	qa_gguf_fill_hparams(inv);
	return QA_OK;
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
