/* SPDX-License-Identifier: MIT */
/*
 * Whether two tensors of two inventories hold the same bytes
 * (tensor_bytes.h): read through each inventory's own file system, a
 * chunk at a time, stopping at the first difference.
 */
#include "core/tensor_bytes.h"

#include <stdlib.h>
#include <string.h>

#include "core/inventory.h"

/* Bytes compared per read of each side. */
#define CHUNK ((size_t)1 << 20)

static const struct qa_fs *
data_fs(const struct qa_inventory *inv)
{
	return inv->member_fs ? inv->member_fs : inv->fs;
}

static const char *
tensor_path(const struct qa_inventory *inv, const struct qa_tensor *t)
{
	return t->file < inv->n_files ? inv->files[t->file].path : NULL;
}

int
qa_tensor_bytes_equal(const struct qa_inventory *a, const struct qa_tensor *ta,
		      const struct qa_inventory *b, const struct qa_tensor *tb,
		      bool *equal)
{
	const char *pa = tensor_path(a, ta), *pb = tensor_path(b, tb);
	struct qa_source sa, sb;
	unsigned char *buf;
	uint64_t done = 0;
	uint32_t d;
	int rc;

	*equal = false;
	if (!pa || !pb || strstr(pa, "://") || strstr(pb, "://"))
		return QA_E_IO;	/* read locally only: no remote bulk read */
	if (ta->bytes != tb->bytes || ta->n_dims != tb->n_dims ||
	    ta->ggml_type != tb->ggml_type || !ta->dtype || !tb->dtype ||
	    strcmp(ta->dtype, tb->dtype) != 0)
		return QA_OK;
	for (d = 0; d < ta->n_dims && d < QA_MAX_DIMS; d++)
		if (ta->shape[d] != tb->shape[d])
			return QA_OK;
	buf = malloc(2 * CHUNK);
	if (!buf)
		return QA_E_NOMEM;
	rc = data_fs(a)->open(data_fs(a), pa, &sa);
	if (rc != QA_OK) {
		free(buf);
		return rc;
	}
	rc = data_fs(b)->open(data_fs(b), pb, &sb);
	if (rc != QA_OK) {
		qa_source_close(&sa);
		free(buf);
		return rc;
	}
	*equal = true;
	while (rc == QA_OK && done < ta->bytes) {
		size_t n = ta->bytes - done < CHUNK ? (size_t)(ta->bytes - done)
						    : CHUNK;

		rc = qa_source_read(&sa, ta->offset + done, buf, n);
		if (rc == QA_OK)
			rc = qa_source_read(&sb, tb->offset + done, buf + CHUNK,
					    n);
		if (rc == QA_OK && memcmp(buf, buf + CHUNK, n) != 0) {
			*equal = false;
			break;
		}
		done += n;
	}
	if (rc != QA_OK)
		*equal = false;
	qa_source_close(&sb);
	qa_source_close(&sa);
	free(buf);
	return rc == QA_OK ? QA_OK : QA_E_IO;
}
