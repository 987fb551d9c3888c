/* SPDX-License-Identifier: MIT */
/*
 * libxxhash through dlopen (libs.h says why): one dlopen of the
 * soname, one dlsym per function, all of them or none.
 */
#include "integrity/libs.h"

#include <dlfcn.h>
#include <stdio.h>

/* libxxhash has had soname libxxhash.so.0 since 0.6 (its Makefile's
 * LIBVER_MAJOR); "libxxhash.so" is the development link. */
static const char *const sonames[] = { "libxxhash.so.0", "libxxhash.so" };

static struct qa_xxh fns;
static bool loaded;

static bool
sym(void *h, const char *name, void **out, char *err, size_t errlen)
{
	*out = dlsym(h, name);
	if (!*out)
		snprintf(err, errlen, "no %s in the library loaded", name);
	return *out != NULL;
}

const struct qa_xxh *
qa_xxh_load(char *err, size_t errlen)
{
	struct qa_xxh f;
	void *h = NULL;
	size_t i;

	if (loaded)
		return &fns;
	for (i = 0; !h && i < sizeof(sonames) / sizeof(sonames[0]); i++)
		h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "libxxhash (%s) cannot be loaded: "
			 "nothing can be hashed", sonames[0]);
		return NULL;
	}
	/* POSIX dlsym: a function pointer round-trips through void *. */
	if (!sym(h, "XXH3_createState", (void **)&f.create_state, err,
		 errlen) ||
	    !sym(h, "XXH3_freeState", (void **)&f.free_state, err, errlen) ||
	    !sym(h, "XXH3_128bits_reset", (void **)&f.reset, err, errlen) ||
	    !sym(h, "XXH3_128bits_digest", (void **)&f.digest, err, errlen)) {
		dlclose(h);
		return NULL;
	}
	/* The dispatching update where the library has one (x86 builds
	 * of libxxhash 0.8), else the plain one. */
	if (!sym(h, "XXH3_128bits_update_dispatch", (void **)&f.update, err,
		 errlen) &&
	    !sym(h, "XXH3_128bits_update", (void **)&f.update, err, errlen)) {
		dlclose(h);
		return NULL;
	}
	fns = f;
	loaded = true;
	return &fns;
}

static const char *const zlib_sonames[] = { "libz.so.1", "libz.so" };
static struct qa_zlib zfns;
static bool zloaded;

const struct qa_zlib *
qa_zlib_load(char *err, size_t errlen)
{
	struct qa_zlib f;
	void *h = NULL;
	size_t i;

	if (zloaded)
		return &zfns;
	for (i = 0; !h && i < sizeof(zlib_sonames) / sizeof(zlib_sonames[0]);
	     i++)
		h = dlopen(zlib_sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "zlib (%s) cannot be loaded: .gz "
			 "manifests cannot be read or written",
			 zlib_sonames[0]);
		return NULL;
	}
	if (!sym(h, "gzopen", (void **)&f.open, err, errlen) ||
	    !sym(h, "gzread", (void **)&f.read, err, errlen) ||
	    !sym(h, "gzwrite", (void **)&f.write, err, errlen) ||
	    !sym(h, "gzclose", (void **)&f.close, err, errlen) ||
	    !sym(h, "gzerror", (void **)&f.error, err, errlen)) {
		dlclose(h);
		return NULL;
	}
	zfns = f;
	zloaded = true;
	return &zfns;
}
