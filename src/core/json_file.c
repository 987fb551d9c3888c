/* SPDX-License-Identifier: MIT */
/*
 * qa_json_read_file: one bounded read of a small JSON file through the
 * byte source, then cJSON. See json_file.h.
 */
#include "core/json_file.h"

#include <stdlib.h>
#include <string.h>

#include "core/source.h"

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

const cJSON *
qa_json_child(const cJSON *obj, const char *key)
{
	const cJSON *c;

	if (!cJSON_IsObject(obj))
		return NULL;
	for (c = obj->child; c; c = c->next)
		if (c->string && strcmp(c->string, key) == 0)
			return c;
	return NULL;
}
