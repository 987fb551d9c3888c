/* SPDX-License-Identifier: MIT */
/*
 * The index of a sharded checkpoint: model.safetensors.index.json and
 * pytorch_model.bin.index.json, which transformers writes alike
 * ({"metadata": {"total_size": N}, "weight_map": {tensor: shard}}), read
 * once for formats/st_set.c and formats/pytorch.c, which both add it to
 * the inventory through qa_weight_index_load.
 *
 * The file is read as Python's json.load reads it (core/json_file.h:
 * NaN and Infinity allowed; an escaped NUL is a finding, QA1306, because
 * loaders cut the name there differently); a weight_map key listed twice
 * is a finding (QA1301), as is every value that is not a string.
 */
#ifndef QA_FORMATS_WEIGHT_INDEX_H
#define QA_FORMATS_WEIGHT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"
#include "core/source.h"

/* Bytes of an index read at most (100 MB; DeepSeek-V3's is 9 MB). */
#define QA_WEIGHT_INDEX_MAX ((uint64_t)100000000)

struct qa_weight_entry {
	const char *tensor;	/* arena */
	const char *shard;	/* arena; entries of one run share it */
};

struct qa_weight_index {
	bool valid;		/* a weight_map object was read */
	struct qa_weight_entry *e;	/* arena, sorted by tensor; equal
					 * names keep their file order */
	size_t n;
	const char **shards;	/* arena, the distinct shard names, sorted */
	size_t n_shards;
	bool have_total, total_bad;	/* metadata.total_size present / not
					 * a non-negative integer */
	uint64_t total;
	const char *path;	/* display path, set by the caller */
};

/*
 * Reads the index at src into ix (ix->path set by the caller; the rest
 * zeroed). Findings go to inv; metadata.total_size also sets
 * inv->weights.declared_bytes. QA_OK (an unreadable index is findings
 * and ix->valid false), QA_E_IO or QA_E_NOMEM.
 */
int qa_weight_index_read(struct qa_inventory *inv, struct qa_source *src,
			 struct qa_weight_index *ix);

/*
 * The index step of a sharded set (formats/st_set.c, formats/pytorch.c):
 * opens dir/name, adds it to inv as a QA_FILE_INDEX "json" file and reads
 * it into ix (zeroed by the caller; ix->path is set here). *path gets the
 * joined path (arena) once it is made. QA_OK (an unreadable index is
 * findings and ix->valid false), QA_E_NOMEM, or QA_E_IO: a read error,
 * or the index could not be opened, and then *not_regular says what the
 * path is when it is not a regular file (NULL otherwise; the caller
 * decides whether the set is read without it).
 */
int qa_weight_index_load(struct qa_inventory *inv, const char *dir,
			 const char *name, struct qa_weight_index *ix,
			 const char **path, const char **not_regular);

/* Whether the index lists name as a shard. */
bool qa_weight_index_names_shard(const struct qa_weight_index *ix,
				 const char *name);

/* The entry of tensor (one of them when listed twice), or NULL. */
const struct qa_weight_entry *
qa_weight_index_find(const struct qa_weight_index *ix, const char *tensor);

/*
 * A weight_map value a loader could be tricked into resolving outside the
 * folder: empty, absolute, a drive letter, "..", a backslash, a URL, a
 * control character.
 */
bool qa_unsafe_shard_name(const char *s);

/* qsort, skipped when base is in cmp's order already (one pass): the
 * lists read here usually are (see weight_index.c). */
void qa_sort_unless_sorted(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *));

#endif /* QA_FORMATS_WEIGHT_INDEX_H */
