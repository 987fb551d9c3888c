/* SPDX-License-Identifier: MIT */
/*
 * Small JSON side files (config.json, tokenizer_config.json, quantization
 * configs) read whole and parsed with cJSON, and the case-sensitive member
 * lookup every reader of them uses.
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

/*
 * Member key of object obj, compared case-sensitively (cJSON's own
 * cJSON_GetObjectItem ignores case, which would let "Bits" stand for
 * "bits"); NULL when obj is not an object or has no such member.
 */
const cJSON *qa_json_child(const cJSON *obj, const char *key);

#endif /* QA_SRC_JSON_FILE_H */
