/* SPDX-License-Identifier: MIT */
/*
 * The CLI's side of remote inputs (src/remote/): the session of a run,
 * its options, the token, and the closing line on bytes fetched.
 */
#ifndef QA_CLI_CLI_REMOTE_H
#define QA_CLI_CLI_REMOTE_H

#include <stdbool.h>
#include <stdint.h>

struct qa_remote;

struct qa_cli_remote_args {
	const char *cache_dir;	/* --cache-dir; NULL: the XDG cache */
	bool no_cache;		/* --no-cache */
	const char *token_file;	/* --token-file; else $HF_TOKEN */
	unsigned timeout_s;	/* --timeout; 0: 60 */
	unsigned deadline_s;	/* --deadline; 0: the default, UINT_MAX:
				 * none (--deadline 0) */
	uint64_t max_fetch;	/* --max-fetch; 0: 1 GiB */
	bool full_download;	/* --allow-full-download */
	/* The command reads every byte (hash, verify, scan, scan-dir,
	 * diff --content): its name, which refuses remote inputs; NULL
	 * for the commands that read headers. */
	const char *data_command;
};

/*
 * Opens the session when one of paths is remote (*out NULL otherwise).
 * Returns -1 to go on, or an exit code after saying why.
 */
int qa_cli_remote_open(const struct qa_cli_remote_args *a,
		       char *const *paths, int n_paths,
		       struct qa_remote **out);
/* Says what was fetched (unless quiet), then frees the session. When
 * the run's deadline passed it says so and returns QA_EXIT_SYSTEM (what
 * was not fetched by then was not checked), else rc. */
int qa_cli_remote_close(struct qa_remote *r, bool quiet, int rc);

#endif /* QA_CLI_CLI_REMOTE_H */
