/* SPDX-License-Identifier: MIT */
/*
 * The manifest `quantaudit hash` writes and `verify` checks against
 * (schema quantaudit-manifest/1, docs/integrity.md): per model, its
 * files (path relative to the model's folder, size, header size and the
 * XXH3-128 of the header and of every byte in neither header nor a
 * tensor, and the SHA-256 of the whole file when asked) and its tensors
 * (name, file, offset, bytes, dtype, XXH3-128). JSON, gzip-compressed
 * when the name ends in .gz (read either way). No timestamps: the same
 * model gives the same manifest, byte for byte.
 */
#ifndef QA_INTEGRITY_MANIFEST_H
#define QA_INTEGRITY_MANIFEST_H

#include <stdbool.h>
#include <stdio.h>

#include "core/arena.h"
#include "core/jsonw.h"
#include "integrity/content.h"

#define QA_MANIFEST_SCHEMA "quantaudit-manifest/1"

/* Manifests larger than this (uncompressed) are not read: 100k tensors
 * take about 25 MB. */
#define QA_MANIFEST_MAX ((uint64_t)1 << 30)

/* Writing: begin, one model per hashed model, end. */
void qa_manifest_begin(struct qa_jw *w, bool sha256);
void qa_manifest_model(struct qa_jw *w, const char *path, const char *kind,
		       const struct qa_content *c);
void qa_manifest_end(struct qa_jw *w);

/* One model of a manifest read back: what it holds as a content list
 * (paths relative, digests and states as recorded). */
struct qa_manifest_model {
	const char *path;	/* as hash was given it */
	const char *kind;
	struct qa_content c;
};

struct qa_manifest {
	struct qa_arena arena;	/* owns everything below */
	bool sha256;		/* files carry SHA-256 */
	struct qa_manifest_model *models;
	size_t n_models;
};

/*
 * Reads the manifest at path (plain or gzip JSON). Returns QA_OK, or
 * QA_E_UNRECOGNIZED (not a quantaudit manifest, or damaged: err names the
 * offset or member), QA_E_IO, QA_E_NOMEM. Free with qa_manifest_free.
 */
int qa_manifest_read(const char *path, struct qa_manifest *m, char *err,
		     size_t errlen);
/* The same on len bytes of JSON text already read; path names it in
 * messages. */
int qa_manifest_parse(const char *text, size_t len, const char *path,
		      struct qa_manifest *m, char *err, size_t errlen);
void qa_manifest_free(struct qa_manifest *m);

#endif /* QA_INTEGRITY_MANIFEST_H */
