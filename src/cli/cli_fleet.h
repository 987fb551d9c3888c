/* SPDX-License-Identifier: MIT */
/*
 * Fleet audits on the command line: `scan-dir DIR...` (every model under
 * the folders, then the check every model gets) and `summarize
 * FILE.jsonl...` (counts by verdict and rule, the worst models, total
 * bytes). docs/fleet.md.
 */
#ifndef QA_CLI_FLEET_H
#define QA_CLI_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/input.h"

/*
 * The models under dirs, as paths the audit reads (a model folder, a
 * Hugging Face cache repo, a folder of GGUFs, an Ollama manifest), in
 * walk order (names sorted). Returns an exit code: QA_EXIT_PASS with
 * *out set (free with qa_cli_free_paths), or the reason said on stderr.
 */
int qa_cli_expand_dirs(char **dirs, int n_dirs,
		       const struct qa_resolve_options *ro, char ***out,
		       size_t *n_out);
void qa_cli_free_paths(char **paths, size_t n);

/*
 * scan-dir --jobs N: audits paths in n_jobs worker processes (forked:
 * the audit keeps no state worth sharing, and a model that crashes a
 * worker takes only that worker's model down). Each worker claims the
 * next path, and run_one(ctx, path, file) writes that model's report to
 * a file of its own; the reports are then written to output (stdout
 * when NULL) in the order of paths, so the result equals the
 * single-process run's for JSON Lines. Returns the worst exit code.
 */
int qa_cli_run_jobs(char **paths, size_t n, unsigned n_jobs,
		    int (*run_one)(void *ctx, char *path, const char *file),
		    void *ctx, const char *output);

/* Summarizes quantaudit/1 reports (JSON Lines, or whole JSON reports).
 * Exit code: 0, 1 when a model failed or was unreadable, 3 when a line
 * is not a report, 4 on a system error. */
int qa_cli_summarize(char **files, int n_files, bool json, const char *output);

#endif /* QA_CLI_FLEET_H */
