/* SPDX-License-Identifier: MIT */
/*
 * Small JSON side files (config.json, tokenizer_config.json, quantization
 * configs) read whole and parsed with cJSON, for checks that need them
 * again after the formats have loaded the folder.
 */
#ifndef QA_SRC_JSON_FILE_H
#define QA_SRC_JSON_FILE_H

#include <stdint.h>

#include <cjson/cJSON.h>

/* Side files larger than this are not read (the folder loader has
 * already reported them): real configs are a few KB to a few MB. */
#define QA_JSON_SIDE_MAX ((uint64_t)16 << 20)

/*
 * Parses the file at path when it is at most max_bytes; NULL when path is
 * NULL, the file is absent, larger, unreadable or not JSON. The caller
 * owns the tree (cJSON_Delete).
 */
cJSON *qa_json_read_file(const char *path, uint64_t max_bytes);

#endif /* QA_SRC_JSON_FILE_H */
