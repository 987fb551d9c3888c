/* SPDX-License-Identifier: MIT */
/*
 * libquantaudit: the quantaudit audit as a C library.
 *
 * One call runs what `quantaudit COMMAND --format json` runs and returns
 * the same quantaudit/1 JSON document (docs/quantaudit-1.schema.json) as
 * a string, byte for byte what the command line writes: a program gets
 * the report every other consumer reads, and its schema version with it.
 *
 * Stability: every symbol here carries the version node QUANTAUDIT_1
 * (build-aux/libquantaudit.map); new functions get a new node, existing
 * ones never change signature. Options are passed as the command line's
 * own words ("--gpus", "24G"), so a new option needs no new function.
 *
 * Threads: calls are serialised inside the library (the option parser
 * is getopt's); any thread may call, one audit runs at a time.
 * Memory: every string returned is freed with quantaudit_free().
 */
#ifndef QUANTAUDIT_H
#define QUANTAUDIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "0.1.0". */
const char *quantaudit_version(void);

/* Exit codes of an audit (the command line's): */
#define QUANTAUDIT_PASS 0		/* nothing at or above --fail-on */
#define QUANTAUDIT_FAIL 1		/* findings at or above it (fit: does
					 * not fit; diff: the models differ) */
#define QUANTAUDIT_USAGE 2		/* bad command or options */
#define QUANTAUDIT_UNRECOGNIZED 3	/* input is no model it reads */
#define QUANTAUDIT_SYSTEM 4		/* I/O error, out of memory */

/* A model found at a path: a file, a model folder, a Hugging Face cache
 * folder (models--org--name or its snapshots/REV), a URL. */
typedef struct quantaudit_model quantaudit_model;

/*
 * Opens the model at path: reads its headers once (as `inspect` does)
 * and keeps that report. NULL when it is not a model or cannot be read,
 * with *error (when error is not NULL) set to the reason, to be freed
 * with quantaudit_free; *exit_code (when not NULL) is 3 or 4 then.
 */
quantaudit_model *quantaudit_open(const char *path, int *exit_code,
				  char **error);
/* The path it was opened with. */
const char *quantaudit_model_path(const quantaudit_model *m);
/* The inspect report the open read (owned by m). */
const char *quantaudit_model_json(const quantaudit_model *m);
void quantaudit_close(quantaudit_model *m);

/*
 * The JSON report of command over the n_paths inputs, with options, a
 * NULL-terminated list of command-line words ({"--gpus", "2x16G", NULL})
 * or NULL. command is "inspect", "check", "fit", "scan" or "diff" (two
 * paths). Returns the document (malloc'd, NUL-terminated) and sets
 * *exit_code; NULL on a usage error or when nothing was written, with
 * *error set. A report is returned for exit codes 0, 1, 3 and 4 when
 * the command wrote one (an input not audited is in its "errors").
 */
char *quantaudit_report(const char *command, const char *const *paths,
			size_t n_paths, const char *const *options,
			int *exit_code, char **error);

/* quantaudit_report over an opened model (diff: use quantaudit_report
 * with both paths). */
char *quantaudit_model_report(const quantaudit_model *m, const char *command,
			      const char *const *options, int *exit_code,
			      char **error);

void quantaudit_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* QUANTAUDIT_H */
