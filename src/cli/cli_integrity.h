/* SPDX-License-Identifier: MIT */
/*
 * `quantaudit hash`, `verify` (src/integrity/) and `diff` (src/compare/):
 * the command-line side,
 * called by cli.c once the options are parsed. Return an exit code.
 */
#ifndef QA_CLI_INTEGRITY_H
#define QA_CLI_INTEGRITY_H

#include <stdbool.h>

#include "engine/audit.h"

struct qa_cli_integrity {
	const char *output;	/* -o: the manifest (hash) or report */
	bool json;		/* verify --format json */
	bool sha256;		/* hash --sha256 */
	bool content;		/* diff --content */
	double max_rel_error;	/* compare --max-rel-error; 0: none */
	const char *format;	/* diff: text, json, markdown */
	bool quiet;
	unsigned jobs;		/* 0: one per CPU */
	const struct qa_audit_options *audit;	/* how models are read */
};

int qa_cli_hash(const struct qa_cli_integrity *o, char **paths, int n_paths);
int qa_cli_verify(const struct qa_cli_integrity *o, const char *path,
		  const char *manifest);
int qa_cli_diff(const struct qa_cli_integrity *o, const char *a,
		const char *b);
/* `compare QUANT SOURCE` (src/compare/compare.h). */
int qa_cli_compare(const struct qa_cli_integrity *o, const char *quant,
		   const char *source);
/* The data step of `scan` (struct qa_audit_options.data_step); ctx is
 * a struct qa_cli_integrity (jobs, quiet). */
int qa_cli_scan_step(void *ctx, struct qa_inventory *inv, char *err,
		     size_t errlen);

#endif /* QA_CLI_INTEGRITY_H */
