/* SPDX-License-Identifier: MIT */
/*
 * PyTorch checkpoints (formats/pytorch.h): the format row, the names the
 * loaders read as weights, a path given by the user, sharded
 * pytorch_model-0000k-of-0000n.bin sets with their index (read by
 * formats/weight_index.c) and the pickles beside safetensors weights.
 * One checkpoint is formats/pytorch_ckpt.c (torch/serialization.py's
 * _load and _legacy_load); the files are listed in formats/pytorch_int.h.
 */
#define _POSIX_C_SOURCE 200809L
#define QA_PYTORCH_INTERNAL
#include "formats/pytorch_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/ckd.h"
#include "formats/format.h"
#include "formats/weight_index.h"

/* ---- names ------------------------------------------------------------------ */

bool
qa_pt_weight_name(const char *name)
{
	return (strncmp(name, "pytorch_model", 13) == 0 &&
		ends_with(name, ".bin")) ||
	       ends_with(name, ".pt") || ends_with(name, ".pth") ||
	       ends_with(name, ".ckpt") || ends_with(name, ".bin.index.json");
}

bool
qa_pt_pickle_name(const char *name)
{
	static const char *const ext[] = {
		".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib",
		".mar", ".dat", ".data",
	};
	size_t i;

	for (i = 0; i < N_ELEMS(ext); i++)
		if (ends_with(name, ext[i]))
			return true;
	return false;
}

/* X-0000k-of-0000n.bin (5 or 6 digits, '-' or '_' before k), as
 * transformers names shards. */
static bool
shard_name(const char *name, size_t *prefix_len, uint32_t *k, uint32_t *n)
{
	size_t len = strlen(name), e, s, i;
	uint32_t vk = 0, vn = 0;

	if (!ends_with(name, ".bin"))
		return false;
	e = len - 4;
	for (s = e; s > 0 && e - s < 7 && name[s - 1] >= '0' &&
	     name[s - 1] <= '9'; s--)
		;
	if (e - s < 5 || e - s > 6 || s < 4 || memcmp(name + s - 4, "-of-", 4))
		return false;
	for (i = s; i < e; i++)
		vn = vn * 10 + (uint32_t)(name[i] - '0');
	e = s - 4;
	for (s = e; s > 0 && e - s < 7 && name[s - 1] >= '0' &&
	     name[s - 1] <= '9'; s--)
		;
	if (e - s < 5 || e - s > 6 || s < 2 ||
	    (name[s - 1] != '-' && name[s - 1] != '_'))
		return false;
	for (i = s; i < e; i++)
		vk = vk * 10 + (uint32_t)(name[i] - '0');
	*prefix_len = s - 1;
	*k = vk;
	*n = vn;
	return true;
}


/* Adds path as a file of the given role and loads it. */
static int
load_one(struct qa_inventory *inv, const char *path, enum qa_file_role role,
	 uint32_t part, uint32_t parts)
{
	struct qa_source src;
	struct qa_file *f;
	int rc;

	memset(&src, 0, sizeof(src));
	if (qa_inv_open(inv, path, &src) != QA_OK) {
		const char *base = strrchr(path, '/');

		/* a shard that is a FIFO, a folder, a link out of the folder
		 * or unreadable (tar and unzip restore permission bits) is a
		 * finding and a missing shard, as in the safetensors and GGUF
		 * sets; the path the user named is refused by the resolver */
		if (role != QA_FILE_SHARD || !src.not_regular)
			return QA_E_IO;
		base = base ? base + 1 : path;
		if (!qa_inv_not_read(inv, path, src.not_regular))
			qa_inv_finding(inv, QA1410, path, -1, NULL, "%s is %s, "
				       "not a regular file; it was not read",
				       base, src.not_regular);
		if (!inv->weights.missing_files++)
			inv->weights.first_missing =
				qa_arena_strdup(&inv->arena, base);
		return QA_OK;
	}
	f = qa_inv_add_file(inv, path);
	if (!f) {
		qa_source_close(&src);
		return QA_E_NOMEM;
	}
	f->role = role;
	f->part = part;
	f->parts = parts;
	f->bytes = src.size;
	f->format = "pytorch";
	rc = qa_pt_load_file(inv, inv->n_files - 1, &src);
	qa_source_close(&src);
	return rc;
}

/* ---- sharded sets ---------------------------------------------------------------- */

static const struct qa_inventory *sort_inv;

static int
cmp_tensor_ix(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = strcmp(sort_inv->tensors[x].name, sort_inv->tensors[y].name);

	return r ? r : (x > y) - (x < y);
}

/*
 * Loads a set from dir: the index (if any), the shards it names, and the
 * other weight files of its family (every pytorch_model*.bin, or the
 * numbered set of filter), with the cross-file checks.
 */
static int
load_set(struct qa_inventory *inv, const char *dir, const char *index_name,
	 const char *filter, bool *found)
{
	struct qa_dirent *ents = NULL;
	size_t n = 0, i, fpl = 0, nt;
	uint32_t fk, fn, first_file, first_tensor, *ti = NULL;
	struct qa_weight_index ix;
	bool *take = NULL, *extra = NULL, shard_missing = false;
	uint64_t sum = 0;
	int rc;

	memset(&ix, 0, sizeof(ix));
	if (filter && !shard_name(filter, &fpl, &fk, &fn))
		filter = NULL;
	if (found)
		*found = false;
	rc = qa_inv_list(inv, *dir ? dir : ".", &ents, &n);
	if (rc != QA_OK)
		return rc;
	if (index_name) {
		const char *path, *special;

		rc = qa_weight_index_load(inv, dir, index_name, &ix, &path,
					  &special);
		if (rc != QA_OK)
			goto out;
		if (found)
			*found = true;
	}
	take = calloc(n ? n : 1, sizeof(*take));
	extra = calloc(n ? n : 1, sizeof(*extra));
	if (!take || !extra) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t pl;
		uint32_t k, m;
		const char *nm = ents[i].name;

		if (ents[i].kind != QA_NODE_FILE)
			continue;
		if (qa_weight_index_names_shard(&ix, nm))
			take[i] = true;
		else if (filter)
			take[i] = shard_name(nm, &pl, &k, &m) && m == fn &&
				  pl == fpl && strncmp(nm, filter, pl) == 0;
		else
			take[i] = strncmp(nm, "pytorch_model", 13) == 0 &&
				  ends_with(nm, ".bin");
		if (take[i] && ix.valid && !qa_weight_index_names_shard(&ix, nm))
			extra[i] = true;
	}
	for (i = 0; ix.valid && i < ix.n_shards; i++) {
		const char *s = ix.shards[i];
		size_t j;
		bool there = false;

		if (qa_unsafe_shard_name(s)) {
			qa_inv_finding(inv, QA1306, ix.path, -1, NULL,
				       "weight_map names \"%s\", which is not a "
				       "plain file name in the model folder; it "
				       "was not opened", s);
			continue;
		}
		for (j = 0; j < n; j++)
			if (ents[j].kind == QA_NODE_FILE &&
			    strcmp(ents[j].name, s) == 0)
				there = true;
		if (!there) {
			shard_missing = true;
			if (!inv->weights.missing_files++)
				inv->weights.first_missing =
					qa_arena_strdup(&inv->arena, s);
			qa_inv_finding(inv, QA1304, ix.path, -1, NULL,
				       "weight_map names %s, which is not in "
				       "the folder", s);
		}
	}
	first_file = inv->n_files;
	first_tensor = inv->n_tensors;
	{
		size_t n_take = 0;

		for (i = 0; i < n; i++)
			n_take += take[i];
		for (i = 0; i < n; i++) {
			size_t pl;
			uint32_t k = 0, m = 0;
			bool numbered;
			char *path;

			if (!take[i])
				continue;
			if (found)
				*found = true;
			numbered = shard_name(ents[i].name, &pl, &k, &m);
			path = qa_inv_join(inv, dir, ents[i].name);
			if (!path) {
				rc = QA_E_NOMEM;
				goto out;
			}
			rc = load_one(inv, path, index_name || n_take > 1 ?
				      QA_FILE_SHARD : QA_FILE_MODEL,
				      numbered ? k : 0, numbered ? m : 0);
			if (rc != QA_OK)
				goto out;
			if (extra[i]) {
				inv->files[inv->n_files - 1].unlisted = true;
				qa_inv_finding(inv, QA1305, path, -1, NULL,
					       "%s is not named by the index; "
					       "its %u tensors are included here "
					       "but index-following loaders skip "
					       "them", ents[i].name,
					       inv->files[inv->n_files - 1]
						       .tensor_count);
			}
		}
	}
	/* numbered parts missing, when there is no index to say */
	if (!ix.valid) {
		uint32_t f;

		for (f = first_file; f < inv->n_files; f++) {
			size_t pl;
			uint32_t k, m, j, g;
			bool first = true;

			if (!shard_name(inv->files[f].name, &pl, &k, &m) ||
			    m == 0 || m > 100000)
				continue;
			for (g = first_file; g < f; g++) {
				size_t pl2;
				uint32_t k2, m2;

				if (shard_name(inv->files[g].name, &pl2, &k2,
					       &m2) && m2 == m && pl2 == pl &&
				    strncmp(inv->files[g].name,
					    inv->files[f].name, pl) == 0)
					first = false;
			}
			if (!first)
				continue;
			for (j = 1; j <= m; j++) {
				bool have = false;

				for (g = first_file; g < inv->n_files && !have;
				     g++) {
					size_t pl2;
					uint32_t k2, m2;

					have = shard_name(inv->files[g].name,
							  &pl2, &k2, &m2) &&
					       m2 == m && k2 == j && pl2 == pl &&
					       strncmp(inv->files[g].name,
						       inv->files[f].name,
						       pl) == 0;
				}
				if (have)
					continue;
				if (!inv->weights.missing_files++)
					inv->weights.first_missing =
						qa_arena_printf(&inv->arena,
								"part %u of %u "
								"of %.*s", j, m,
								(int)pl,
								inv->files[f]
									.name);
				qa_inv_finding(inv, QA1309, NULL, -1, NULL,
					       "part %u of %u of %.*s is "
					       "missing", j, m, (int)pl,
					       inv->files[f].name);
				if (inv->weights.missing_files > 32)
					break;
			}
		}
	}
	/* duplicates across shards, ghosts, unlisted tensors, total */
	nt = inv->n_tensors - first_tensor;
	ti = malloc((nt ? nt : 1) * sizeof(*ti));
	if (!ti) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (i = 0; i < nt; i++)
		ti[i] = first_tensor + (uint32_t)i;
	sort_inv = inv;
	qsort(ti, nt, sizeof(*ti), cmp_tensor_ix);
	sort_inv = NULL;
	for (i = 1; i < nt; i++) {
		const struct qa_tensor *a = &inv->tensors[ti[i - 1]];
		const struct qa_tensor *b = &inv->tensors[ti[i]];

		if (strcmp(a->name, b->name) == 0 && a->file != b->file)
			qa_inv_finding(inv, QA1308, inv->files[b->file].path,
				       (int64_t)b->offset, b->name, "also in %s",
				       inv->files[a->file].name);
	}
	if (ix.valid) {
		for (i = 0; i < ix.n; i++) {
			const struct qa_weight_entry *e = &ix.e[i];
			uint32_t f;
			size_t lo = 0, hi = nt;
			bool loaded = false, there = false;

			for (f = first_file; f < inv->n_files; f++)
				if (strcmp(inv->files[f].name, e->shard) == 0 &&
				    !qa_unsafe_shard_name(e->shard)) {
					loaded = true;
					break;
				}
			if (!loaded)
				continue;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (strcmp(inv->tensors[ti[mid]].name,
					   e->tensor) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < nt && strcmp(inv->tensors[ti[lo]].name,
						 e->tensor) == 0; lo++)
				if (inv->tensors[ti[lo]].file == f)
					there = true;
			if (!there)
				qa_inv_finding(inv, QA1302, ix.path, -1,
					       e->tensor, "weight_map puts the "
					       "tensor in %s, which does not "
					       "hold it", e->shard);
		}
		for (i = first_tensor; i < inv->n_tensors; i++) {
			const struct qa_tensor *t = &inv->tensors[i];
			const struct qa_file *f = &inv->files[t->file];
			const struct qa_weight_entry *e;

			if (f->unlisted)
				continue;
			if (qa_ckd_add(&sum, sum, t->bytes))
				sum = UINT64_MAX;
			e = qa_weight_index_find(&ix, t->name);
			if (!e)
				qa_inv_finding(inv, QA1303, f->path,
					       (int64_t)t->offset, t->name,
					       "%s holds the tensor but "
					       "weight_map does not list it",
					       f->name);
			else if (strcmp(e->shard, f->name) != 0)
				qa_inv_finding(inv, QA1303, f->path,
					       (int64_t)t->offset, t->name,
					       "%s holds the tensor but "
					       "weight_map lists it under %s",
					       f->name, e->shard);
		}
		if (ix.have_total && ix.total_bad)
			qa_inv_finding(inv, QA1307, ix.path, -1, NULL,
				       "metadata.total_size is not a "
				       "non-negative integer");
		else if (ix.have_total && ix.total != sum && !shard_missing)
			qa_inv_finding(inv, QA1307, ix.path, -1, NULL,
				       "metadata.total_size is %llu, the shards "
				       "hold %llu tensor bytes",
				       (unsigned long long)ix.total,
				       (unsigned long long)sum);
	}
out:
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	free(ti);
	free(take);
	free(extra);
	qa_dirents_free(ents, n);
	return rc;
}

int
qa_pt_load_set_in_dir(struct qa_inventory *inv, const char *dir,
		      const char *index_name, bool *found)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i;
	const char *single = NULL;
	int rc;

	if (index_name)
		return load_set(inv, dir, index_name, NULL, found);
	rc = load_set(inv, dir, NULL, NULL, found);
	if (rc != QA_OK || (found && *found))
		return rc;
	/* no pytorch_model*.bin: a single *.pt / *.pth / *.ckpt */
	rc = qa_inv_list(inv, *dir ? dir : ".", &e, &n);
	if (rc != QA_OK)
		return rc;
	for (i = 0; i < n && !single; i++)
		if (e[i].kind == QA_NODE_FILE &&
		    (ends_with(e[i].name, ".pt") || ends_with(e[i].name, ".pth") ||
		     ends_with(e[i].name, ".ckpt")))
			single = e[i].name;
	if (single) {
		char *path = qa_inv_join(inv, dir, single);

		if (found)
			*found = true;
		rc = path ? load_one(inv, path, QA_FILE_MODEL, 0, 0) :
		     QA_E_NOMEM;
	}
	qa_dirents_free(e, n);
	return rc;
}

/* The side files beside a checkpoint named directly. */
static int
load_side_beside(struct qa_inventory *inv, const char *dir)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i;
	bool have_config = false;
	int rc;

	if (qa_inv_list(inv, *dir ? dir : ".", &e, &n) != QA_OK)
		return QA_OK;
	for (i = 0; i < n; i++)
		if (e[i].kind == QA_NODE_FILE &&
		    strcmp(e[i].name, "config.json") == 0)
			have_config = true;
	rc = have_config ? qa_hf_load_side_files(inv, dir, e, n) : QA_OK;
	qa_dirents_free(e, n);
	return rc;
}

int
qa_pt_load_path(struct qa_inventory *inv, const char *path)
{
	const char *base = qa_path_base(path);
	size_t pl;
	uint32_t k, m;
	char *dir;
	int rc;

	inv->kind = QA_KIND_PYTORCH;
	dir = qa_arena_strndup(&inv->arena, path, (size_t)(base - path));
	if (!dir) {
		inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	rc = load_side_beside(inv, dir);
	if (rc != QA_OK)
		return rc;
	if (ends_with(base, ".index.json"))
		return load_set(inv, dir, base, NULL, NULL);
	if (shard_name(base, &pl, &k, &m)) {
		struct qa_dirent *e = NULL;
		size_t n = 0, i;
		char *idx = qa_arena_printf(&inv->arena, "%.*s.bin.index.json",
					    (int)pl, base);
		bool have = false;

		if (!idx) {
			inv->out_of_memory = true;
			return QA_E_NOMEM;
		}
		if (qa_inv_list(inv, *dir ? dir : ".", &e, &n) == QA_OK)
			for (i = 0; i < n; i++)
				if (strcmp(e[i].name, idx) == 0)
					have = true;
		qa_dirents_free(e, n);
		return load_set(inv, dir, have ? idx : NULL, base, NULL);
	}
	return load_one(inv, path, QA_FILE_MODEL, 0, 0);
}

/* ---- pickles beside the weights --------------------------------------------------- */

/* Whether path is a file directly in dir (a subfolder's pickles are not
 * "beside" the top folder's safetensors: formats/hf_tree.c). */
static bool
in_dir(const char *path, const char *dir)
{
	size_t k = strlen(dir);
	const char *rest;

	while (k > 1 && dir[k - 1] == '/')
		k--;
	if (strncmp(path, dir, k) != 0)
		return !*dir && !strchr(path, '/');
	rest = path + k;
	if (*rest == '/')
		rest++;
	else if (k && dir[k - 1] != '/')
		return false;
	return !strchr(rest, '/');
}

int
qa_pt_scan_side_pickles(struct qa_inventory *inv, const char *dir,
			const struct qa_dirent *ents, size_t n)
{
	size_t i, n_beside = 0;
	uint32_t f;
	bool have_st = false;
	const char *first_beside = NULL;

	/* transformers loads safetensors before pytorch_model*.bin
	 * (modeling_utils.py _get_resolved_checkpoint_files): when the
	 * folder's weights were safetensors, the PyTorch weights beside
	 * them are only scanned, and the report says which were audited */
	for (f = 0; f < inv->n_files; f++)
		if (inv->files[f].format &&
		    strcmp(inv->files[f].format, "safetensors") == 0 &&
		    (inv->files[f].role == QA_FILE_MODEL ||
		     inv->files[f].role == QA_FILE_SHARD) &&
		    in_dir(inv->files[f].path, dir))
			have_st = true;
	for (i = 0; i < n; i++) {
		struct qa_source src;
		uint8_t head[512];
		size_t hn;
		char *path;
		bool loaded = false;
		uint32_t fi;

		if (ents[i].kind != QA_NODE_FILE ||
		    !qa_pt_pickle_name(ents[i].name))
			continue;
		path = qa_inv_join(inv, dir, ents[i].name);
		if (!path)
			return QA_E_NOMEM;
		for (f = 0; f < inv->n_files; f++)
			if (strcmp(inv->files[f].path, path) == 0)
				loaded = true;
		if (loaded || qa_inv_open(inv, path, &src) != QA_OK)
			continue;
		hn = src.size < sizeof(head) ? (size_t)src.size : sizeof(head);
		if (qa_source_read(&src, 0, head, hn) != QA_OK ||
		    !qa_pt_probe(head, hn, src.size)) {
			qa_source_close(&src);
			continue;
		}
		if (!qa_inv_add_file(inv, path)) {
			qa_source_close(&src);
			return QA_E_NOMEM;
		}
		fi = inv->n_files - 1;
		inv->files[fi].role = QA_FILE_OTHER;
		if (have_st && qa_pt_weight_name(ents[i].name) &&
		    n_beside++ == 0)
			first_beside = inv->files[fi].path;
		/* findings only: its tensors (optimizer moments, a second
		 * copy of the weights) are not the model's */
		if (qa_pt_load_checkpoint(inv, fi, &src, true) == QA_E_NOMEM) {
			qa_source_close(&src);
			return QA_E_NOMEM;
		}
		qa_source_close(&src);
	}
	if (n_beside)
		qa_inv_finding(inv, QA1638, first_beside, -1, NULL,
			       "transformers loads the safetensors here (unless "
			       "use_safetensors=False); the %zu PyTorch weight "
			       "file%s beside them %s scanned for pickle threats "
			       "only", n_beside, n_beside > 1 ? "s" : "",
			       n_beside > 1 ? "are" : "is");
	return QA_OK;
}

/* ---- the format row ------------------------------------------------------------- */

const struct qa_format qa_format_pytorch = {
	.name = "pytorch",
	.extension = NULL,
	.kind = QA_KIND_PYTORCH,
	.probe_size = 512,
	.probe = qa_pt_probe,
	.load = qa_pt_load_file,
	.load_path = qa_pt_load_path,
};
