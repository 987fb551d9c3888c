/* SPDX-License-Identifier: MIT */
/*
 * qa_json_read_file: one bounded read of a small JSON file through the
 * byte source, then cJSON. See json_file.h.
 */
#include "json_file.h"

#include <stdlib.h>

#include "source.h"

cJSON *
qa_json_read_file(const char *path, uint64_t max_bytes)
{
	struct qa_source src;
	cJSON *root = NULL;
	char *buf;

	if (!path || qa_source_open(&src, path) != QA_OK)
		return NULL;
	if (src.size > max_bytes) {
		qa_source_close(&src);
		return NULL;
	}
	buf = malloc((size_t)src.size + 1);
	if (buf && qa_source_read(&src, 0, buf, (size_t)src.size) == QA_OK)
		root = cJSON_ParseWithLength(buf, (size_t)src.size);
	free(buf);
	qa_source_close(&src);
	return root;
}
