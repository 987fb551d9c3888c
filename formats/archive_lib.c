/* SPDX-License-Identifier: MIT */
/*
 * libarchive loaded on first use (formats/archive_int.h says why): one
 * dlopen of the library's soname and one dlsym per function archive*.c
 * calls, all of them or none.
 */
#define QA_ARCHIVE_INTERNAL
#include "formats/archive_int.h"

#include <dlfcn.h>
#include <stdio.h>

/* libarchive 3.x has had soname libarchive.so.13 since 3.0 (its
 * CMakeLists.txt INTERFACE_VERSION); "libarchive.so" is the development
 * link, for a build against another major version. */
#if ARCHIVE_VERSION_NUMBER < 3000000 || ARCHIVE_VERSION_NUMBER >= 4000000
#error "formats/archive_lib.c knows the soname of libarchive 3 only"
#endif
static const char *const sonames[] = { "libarchive.so.13", "libarchive.so" };

#define AR_LA_DEFINE(name) __typeof__(name) *sym_##name;
AR_LA_SYMBOLS(AR_LA_DEFINE)
#undef AR_LA_DEFINE

static void *handle;

/* Resolves every function, or none (a NULL pointer is never left
 * behind a true return). */
static bool
resolve(void *h, char *err, size_t errlen)
{
	void *p;

#define AR_LA_RESOLVE(name)						\
	p = dlsym(h, #name);						\
	if (!p) {							\
		snprintf(err, errlen, "libarchive has no %s", #name);	\
		return false;						\
	}								\
	/* POSIX dlsym: a function pointer round-trips through void *. */ \
	*(void **)&sym_##name = p;
	AR_LA_SYMBOLS(AR_LA_RESOLVE)
#undef AR_LA_RESOLVE
	return true;
}

bool
ar_la_load(char *err, size_t errlen)
{
	void *h = NULL;
	size_t i;

	if (handle)
		return true;
	for (i = 0; !h && i < sizeof(sonames) / sizeof(sonames[0]); i++)
		h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "libarchive (%s) cannot be loaded: "
			 "archives cannot be read", sonames[0]);
		return false;
	}
	if (!resolve(h, err, errlen)) {
		dlclose(h);
		return false;
	}
	handle = h;
	return true;
}
