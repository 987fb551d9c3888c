/* SPDX-License-Identifier: MIT */
/*
 * libcjson loaded on first use, as libarchive, libxxhash and libcurl
 * are: the functions of <cjson/cJSON.h> the project calls are defined
 * here and forward to the library, opened with dlopen the first time one
 * of them runs. A GGUF run never calls one, so it no longer pays for
 * mapping and relocating the library at every start
 * (docs/performance.md "Start-up").
 *
 * Without the library every function answers as for no input (NULL,
 * false, 0): parsing fails, and qa_cjson_missing() says why, for the
 * readers to name it instead of calling the file malformed.
 */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/json_file.h"

/* libcjson 1.x has had soname libcjson.so.1 since 1.0 (its
 * CMakeLists.txt CJSON_VERSION_SO); "libcjson.so" is the development
 * link, for another major version. */
#if CJSON_VERSION_MAJOR != 1
#error "src/core/cjson_lib.c knows the soname of libcjson 1 only"
#endif
static const char *const sonames[] = { "libcjson.so.1", "libcjson.so" };

#define CJ_SYMBOLS(X) \
	X(cJSON_Delete) X(cJSON_DetachItemViaPointer) X(cJSON_GetArrayItem) \
	X(cJSON_GetArraySize) X(cJSON_GetObjectItem) \
	X(cJSON_GetObjectItemCaseSensitive) X(cJSON_IsArray) X(cJSON_IsBool) \
	X(cJSON_IsFalse) X(cJSON_IsNull) X(cJSON_IsNumber) X(cJSON_IsObject) \
	X(cJSON_IsString) X(cJSON_IsTrue) X(cJSON_Parse) \
	X(cJSON_ParseWithLength) X(cJSON_ParseWithLengthOpts) \
	X(cJSON_PrintUnformatted) X(cJSON_ReplaceItemViaPointer)

#define CJ_DEFINE(name) static __typeof__(name) *sym_##name;
CJ_SYMBOLS(CJ_DEFINE)
#undef CJ_DEFINE

static int state;	/* 0 not tried, 1 loaded, -1 not loadable */
static char why[160];

static bool
load(void)
{
	void *h = NULL, *p;
	size_t i;

	if (state)
		return state > 0;
	state = -1;
	for (i = 0; !h && i < sizeof(sonames) / sizeof(sonames[0]); i++)
		h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, sizeof(why), "%s cannot be loaded (Debian "
			 "package libcjson1)", sonames[0]);
		return false;
	}
#define CJ_RESOLVE(name)						\
	p = dlsym(h, #name);						\
	if (!p) {							\
		snprintf(why, sizeof(why), "libcjson has no %s", #name);	\
		dlclose(h);						\
		return false;						\
	}								\
	/* POSIX dlsym: a function pointer round-trips through void *. */ \
	*(void **)&sym_##name = p;
	CJ_SYMBOLS(CJ_RESOLVE)
#undef CJ_RESOLVE
	state = 1;
	return true;
}

const char *
qa_cjson_missing(void)
{
	return load() ? NULL : why;
}

void
cJSON_Delete(cJSON *item)
{
	if (item && load())
		sym_cJSON_Delete(item);
}

cJSON *
cJSON_DetachItemViaPointer(cJSON *parent, cJSON *const item)
{
	return load() ? sym_cJSON_DetachItemViaPointer(parent, item) : NULL;
}

cJSON *
cJSON_GetArrayItem(const cJSON *array, int index)
{
	return load() ? sym_cJSON_GetArrayItem(array, index) : NULL;
}

int
cJSON_GetArraySize(const cJSON *array)
{
	return load() ? sym_cJSON_GetArraySize(array) : 0;
}

cJSON *
cJSON_GetObjectItem(const cJSON *const object, const char *const string)
{
	return load() ? sym_cJSON_GetObjectItem(object, string) : NULL;
}

cJSON *
cJSON_GetObjectItemCaseSensitive(const cJSON *const object,
				 const char *const string)
{
	return load() ? sym_cJSON_GetObjectItemCaseSensitive(object, string) :
	       NULL;
}

#define CJ_IS(name)							\
	cJSON_bool							\
	name(const cJSON *const item)					\
	{								\
		return load() ? sym_##name(item) : 0;			\
	}
CJ_IS(cJSON_IsArray)
CJ_IS(cJSON_IsBool)
CJ_IS(cJSON_IsFalse)
CJ_IS(cJSON_IsNull)
CJ_IS(cJSON_IsNumber)
CJ_IS(cJSON_IsObject)
CJ_IS(cJSON_IsString)
CJ_IS(cJSON_IsTrue)
#undef CJ_IS

cJSON *
cJSON_Parse(const char *value)
{
	return load() ? sym_cJSON_Parse(value) : NULL;
}

cJSON *
cJSON_ParseWithLength(const char *value, size_t buffer_length)
{
	return load() ? sym_cJSON_ParseWithLength(value, buffer_length) : NULL;
}

cJSON *
cJSON_ParseWithLengthOpts(const char *value, size_t buffer_length,
			  const char **return_parse_end,
			  cJSON_bool require_null_terminated)
{
	return load() ? sym_cJSON_ParseWithLengthOpts(value, buffer_length,
		return_parse_end, require_null_terminated) : NULL;
}

char *
cJSON_PrintUnformatted(const cJSON *item)
{
	return load() ? sym_cJSON_PrintUnformatted(item) : NULL;
}

cJSON_bool
cJSON_ReplaceItemViaPointer(cJSON *const parent, cJSON *const item,
			    cJSON *replacement)
{
	return load() ? sym_cJSON_ReplaceItemViaPointer(parent, item,
							replacement) : 0;
}
