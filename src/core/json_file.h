/* SPDX-License-Identifier: MIT */
/*
 * Small JSON side files (config.json, tokenizer_config.json,
 * quantization configs, indexes) read whole and parsed with cJSON, the
 * way their writers mean them, and the case-sensitive member lookup every
 * reader of them uses.
 *
 * Python's json module writes float('inf') as Infinity, -inf as -Infinity
 * and nan as NaN (CPython Lib/json/encoder.py floatstr; allow_nan is on by
 * default), and transformers writes config.json with
 * json.dumps(..., indent=2, sort_keys=True) (configuration_utils.py
 * to_json_string): Mamba-family configs carry
 * "time_step_limit": [0.0, Infinity]. cJSON rejects those tokens, so they
 * are rewritten outside strings before parsing: Infinity and -Infinity
 * become numbers too large for a double (cJSON's strtod gives +/-inf),
 * NaN becomes null. Nothing else is relaxed.
 *
 * An escaped NUL (\u0000) inside a string is read as U+2400 (SYMBOL FOR
 * NULL): cJSON's strings are C strings, and a NUL would end the value
 * there for every reader of it (a chat template would be scanned only up
 * to it while Python renders all of it).
 */
#ifndef QA_CORE_JSON_FILE_H
#define QA_CORE_JSON_FILE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/source.h"

/* Side files larger than this are not read (the folder loader reports
 * them): real configs are a few KB to a few MB. */
#define QA_JSON_SIDE_MAX ((uint64_t)16 << 20)

/* Where and why a document did not parse. */
struct qa_json_error {
	uint64_t offset;	/* byte offset in the text */
	unsigned line, column;	/* 1-based */
	char what[96];		/* "unexpected '}'", "unexpected end" */
};

/* Why JSON cannot be parsed at all (libcjson, loaded on first use by
 * src/core/cjson_lib.c, is not there), or NULL. */
const char *qa_cjson_missing(void);

/*
 * Parses len bytes of text as Python's json.loads does (see above).
 * Returns the tree (the caller owns it: cJSON_Delete), or NULL with *err
 * filled when err is not NULL (what is "out of memory" when that failed).
 */
cJSON *qa_json_parse_python(const char *text, size_t len,
			    struct qa_json_error *err);

/*
 * Reads the whole source (at most max_bytes; larger gives NULL with
 * what = "too large") and parses it with qa_json_parse_python.
 */
cJSON *qa_json_read_source(struct qa_source *src, uint64_t max_bytes,
			   struct qa_json_error *err);

/*
 * Member key of object obj, compared case-sensitively (cJSON's own
 * cJSON_GetObjectItem ignores case, which would let "Bits" stand for
 * "bits"); NULL when obj is not an object or has no such member.
 */
const cJSON *qa_json_child(const cJSON *obj, const char *key);

/* A size or offset: a JSON number that is an integer in [0, 2^53] (what
 * a double holds exactly); false for anything else (1e30, -1, 1.5, the
 * infinity cJSON makes of 1e400, a string), whose conversion to uint64_t
 * would be wrong or undefined. */
bool qa_json_u53(const cJSON *x, uint64_t *out);

/* Longest key path qa_json_collapse_duplicates reports (longer ones are
 * cut). */
#define QA_JSON_PATH_MAX 256

/* Told about one duplicated key: its path ("chat_template",
 * "quantization_config.ignore"), the key, and how many times it
 * appears in its object. */
typedef void (*qa_json_dup_fn)(void *ctx, const char *path, const char *key,
			       size_t copies);

/*
 * Gives every object of the tree the members Python's json.loads gives
 * its dict: a key that appears more than once keeps its first position
 * and its LAST value (transformers, vLLM and every Python reader see
 * that one; cJSON keeps all copies, and a first-match lookup would see
 * another value than they do). The other copies are deleted. fn (may be
 * NULL) is called once per duplicated key, before the copies go.
 * Returns the number of duplicated keys, -1 when out of memory (the tree
 * is then only partly collapsed). O(n log n) in the members.
 */
long qa_json_collapse_duplicates(cJSON *root, qa_json_dup_fn fn, void *ctx);

#endif /* QA_CORE_JSON_FILE_H */
