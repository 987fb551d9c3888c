/* SPDX-License-Identifier: MIT */
/*
 * The index of a sharded checkpoint, for safetensors and PyTorch sets
 * alike (formats/weight_index.h).
 */
#include "formats/weight_index.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/json_file.h"

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

int
qa_weight_index_read(struct qa_inventory *inv, struct qa_source *src,
		     struct qa_weight_index *ix)
{
	cJSON *root = NULL, *wm = NULL, *md = NULL, *ch;
	const char *last_shard = NULL;
	char *buf;
	int64_t nul;
	size_t i, n_wm = 0, n_runs = 0;
	int rc = QA_OK;

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
	rc = qa_source_read(src, 0, buf, (size_t)src->size);
	if (rc != QA_OK) {
		free(buf);
		return QA_E_IO;
	}
	buf[src->size] = '\0';
	nul = find_escaped_nul(buf, (size_t)src->size);
	if (nul >= 0)
		qa_inv_finding(inv, QA1306, ix->path, nul, NULL,
			       "the index contains an escaped NUL (\\u0000): a name is truncated differently by different loaders");
	root = qa_json_parse_python(buf, (size_t)src->size, NULL);
	free(buf);
	if (!root || !cJSON_IsObject(root)) {
		qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
			       "index is not a JSON object");
		goto out;
	}
	for (ch = root->child; ch; ch = ch->next) {
		if (strcmp(ch->string, "weight_map") == 0) {
			if (wm)
				qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
					       "\"weight_map\" appears twice");
			else
				wm = ch;
		} else if (strcmp(ch->string, "metadata") == 0 && !md) {
			md = ch;
		}
	}
	if (!wm || !cJSON_IsObject(wm)) {
		qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
			       "index has no \"weight_map\" object");
		goto out;
	}
	ix->valid = true;
	for (ch = wm->child; ch; ch = ch->next)
		n_wm++;
	ix->e = qa_arena_array(&inv->arena, n_wm ? n_wm : 1, sizeof(*ix->e));
	ix->shards = qa_arena_array(&inv->arena, n_wm ? n_wm : 1,
				    sizeof(*ix->shards));
	if (!ix->e || !ix->shards) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (ch = wm->child; ch; ch = ch->next) {
		if (!cJSON_IsString(ch)) {
			qa_inv_finding(inv, QA1301, ix->path, -1, ch->string,
				       "weight_map value is not a file name string");
			continue;
		}
		ix->e[ix->n].tensor = qa_arena_strdup(&inv->arena, ch->string);
		/* A run of tensors in one shard shares one copy of its
		 * name (and only the first of the run is a new shard). */
		if (last_shard && strcmp(last_shard, ch->valuestring) == 0) {
			ix->e[ix->n].shard = last_shard;
		} else {
			ix->e[ix->n].shard = last_shard =
				qa_arena_strdup(&inv->arena, ch->valuestring);
			if (last_shard)
				ix->shards[n_runs++] = last_shard;
		}
		if (!ix->e[ix->n].tensor || !ix->e[ix->n].shard) {
			rc = QA_E_NOMEM;
			goto out;
		}
		ix->n++;
	}
	/* Distinct shard names. */
	qa_sort_unless_sorted(ix->shards, n_runs, sizeof(*ix->shards), cmp_str);
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
	if (md && cJSON_IsObject(md)) {
		for (ch = md->child; ch; ch = ch->next) {
			double d;

			if (strcmp(ch->string, "total_size") != 0)
				continue;
			ix->have_total = true;
			d = ch->valuedouble;
			if (!cJSON_IsNumber(ch) || !(d >= 0.0) ||
			    d > 9007199254740992.0 ||
			    d != (double)(uint64_t)d)
				ix->total_bad = true;
			else
				inv->weights.declared_bytes = ix->total =
					(uint64_t)d;
			break;
		}
	}
out:
	cJSON_Delete(root);
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	return rc;
}

