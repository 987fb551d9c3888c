/* SPDX-License-Identifier: MIT */
/*
 * libxxhash (and zlib, below) loaded on first use, as libarchive is (formats/archive_lib.c):
 * a run that hashes nothing (every inspect, check and fit) must not pay
 * for loading it at start-up (docs/performance.md "Start-up"). The
 * streaming XXH3-128 functions only; the update is libxxhash's
 * dispatching one on x86 (the vector width chosen at run time, AVX2
 * where there is one, as xxh128sum does).
 */
#ifndef QA_INTEGRITY_LIBS_H
#define QA_INTEGRITY_LIBS_H

#include <stdbool.h>
#include <stddef.h>

#include <xxhash.h>

struct qa_xxh {
	XXH3_state_t *(*create_state)(void);
	XXH_errorcode (*free_state)(XXH3_state_t *);
	XXH_errorcode (*reset)(XXH3_state_t *);
	XXH_errorcode (*update)(XXH3_state_t *, const void *, size_t);
	XXH128_hash_t (*digest)(const XXH3_state_t *);
};

/* The functions, loaded once (call from one thread before sharing
 * them); NULL with err set when the library cannot be loaded. */
const struct qa_xxh *qa_xxh_load(char *err, size_t errlen);

/* zlib's gzip file functions, for manifests ending in .gz, loaded the
 * same way (libz.so.1) on the first .gz manifest. */
#include <zlib.h>

struct qa_zlib {
	gzFile (*open)(const char *, const char *);
	int (*read)(gzFile, voidp, unsigned);
	int (*write)(gzFile, voidpc, unsigned);
	int (*close)(gzFile);
	const char *(*error)(gzFile, int *);
};

const struct qa_zlib *qa_zlib_load(char *err, size_t errlen);

#endif /* QA_INTEGRITY_LIBS_H */
