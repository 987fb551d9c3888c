/* SPDX-License-Identifier: MIT */
/*
 * `quantaudit verify PATH MANIFEST`: every region the manifest hashed
 * (each file's header, each tensor, each file's other bytes, and the
 * SHA-256 of each file when it has one) hashed again where the manifest
 * says it is, and compared; then, when the model at PATH can be read,
 * its files and tensors compared with the manifest's lists, for what was
 * added or removed. A truncated file, a read error or a file that cannot
 * be opened is reported with its offset, and the rest is still checked.
 */
#ifndef QA_INTEGRITY_VERIFY_H
#define QA_INTEGRITY_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "integrity/content.h"
#include "integrity/manifest.h"

enum qa_verify_kind {
	QA_V_FILE_MISSING,	/* in the manifest, not at PATH */
	QA_V_FILE_UNREADABLE,	/* there, but cannot be opened (err) */
	QA_V_FILE_TRUNCATED,	/* shorter: bytes from offset `at` missing */
	QA_V_FILE_GROWN,	/* longer than the manifest says */
	QA_V_HEADER_CHANGED,
	QA_V_OTHER_CHANGED,	/* padding or trailing bytes */
	QA_V_SHA256_CHANGED,
	QA_V_TENSOR_CHANGED,
	QA_V_UNREADABLE,	/* a region past the end or with a read
				 * error (at, err) */
	QA_V_TENSOR_MISSING,	/* the model no longer has it */
	QA_V_TENSOR_EXTRA,	/* the model has it, the manifest does not */
	QA_V_FILE_EXTRA,
	QA_V_UNVERIFIED,	/* the manifest recorded no hash for it */
};

struct qa_verify_item {
	enum qa_verify_kind kind;
	const char *file;	/* relative path */
	const char *tensor;	/* NULL for file regions */
	const char *region;	/* "header", "other bytes", "sha256",
				 * "tensor" */
	uint64_t offset, bytes;	/* the region in the file */
	uint64_t at;		/* truncation point or error offset */
	uint64_t expected_bytes, actual_bytes;	/* file sizes */
	int err;		/* errno of an open or read error */
};

struct qa_verify {
	struct qa_arena arena;	/* owns the items and their strings */
	struct qa_verify_item *items;
	size_t n, cap;
	uint64_t files, tensors;	/* checked */
	uint64_t bytes;			/* read and hashed */
	size_t n_differences;		/* items but QA_V_UNVERIFIED */
	bool model_read;		/* the lists were compared too */
	char model_note[512];		/* why not, when not */
};

/*
 * Verifies the model at path against m. invs are the models read at path
 * (NULL entries and n_invs 0 allowed; why_not says why none could be
 * read): they say where each file is and which files and tensors the
 * model has now; files they do not name are looked for under path (a
 * folder) or beside it (a file). Returns QA_OK with out filled
 * (out->n_differences > 0: it differs), or QA_E_NOMEM / QA_E_IO (err).
 * Free out with qa_verify_free.
 */
int qa_verify_run(const char *path, struct qa_inventory *const *invs,
		  size_t n_invs, const char *why_not,
		  const struct qa_manifest *m,
		  const struct qa_content_options *opt, struct qa_verify *out,
		  char *err, size_t errlen);
void qa_verify_free(struct qa_verify *v);

/* A short name of the kind: "missing", "changed"... */
const char *qa_verify_kind_name(enum qa_verify_kind k);

#endif /* QA_INTEGRITY_VERIFY_H */
