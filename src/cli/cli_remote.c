/* SPDX-License-Identifier: MIT */
/*
 * Remote inputs in the CLI (cli_remote.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli_remote.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/units.h"
#include "remote/remote.h"

/* The first line of the token file, without blanks around it. */
static int
read_token(const char *path, char *tok, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n, i = 0;

	if (!f) {
		qa_cli_say("--token-file '%s': %s", path, strerror(errno));
		return QA_EXIT_USAGE;
	}
	if (!fgets(tok, (int)cap, f)) {
		tok[0] = '\0';
	}
	fclose(f);
	n = strcspn(tok, "\r\n");
	tok[n] = '\0';
	while (n > 0 && (tok[n - 1] == ' ' || tok[n - 1] == '\t'))
		tok[--n] = '\0';
	while (tok[i] == ' ' || tok[i] == '\t')
		i++;
	memmove(tok, tok + i, n - i + 1);
	if (!tok[0]) {
		qa_cli_say("--token-file '%s': no token on its first line",
			   path);
		return QA_EXIT_USAGE;
	}
	return -1;
}

static int open_session(const struct qa_cli_remote_args *a,
			struct qa_remote **out);

int
qa_cli_remote_open(const struct qa_cli_remote_args *a, char *const *paths,
		   int n_paths, struct qa_remote **out)
{
	bool any = false;
	int i;

	*out = NULL;
	for (i = 0; i < n_paths; i++)
		any |= qa_remote_is_url(paths[i]);
	/* the session's 9 KB of buffers only when an input is a URL: a
	 * local run does not touch them (stack-clash probes would) */
	return any ? open_session(a, out) : -1;
}

__attribute__((noinline)) static int
open_session(const struct qa_cli_remote_args *a, struct qa_remote **out)
{
	struct qa_remote_options o;
	char tok[4096], cache[4096], err[1024];
	const char *env;
	int rc;

	if (a->data_command) {
		qa_cli_say("%s reads every byte of a model; remote inputs are "
			   "read for their headers only (inspect, tensors, "
			   "check, fit, diff): download the model first",
			   a->data_command);
		return QA_EXIT_USAGE;
	}
	memset(&o, 0, sizeof(o));
	o.endpoint = getenv("HF_ENDPOINT");
	o.timeout_s = a->timeout_s;
	o.deadline_s = a->deadline_s;
	o.max_fetch = a->max_fetch;
	o.retries = 2;
	o.full_download = a->full_download;
	if (a->token_file) {
		rc = read_token(a->token_file, tok, sizeof(tok));
		if (rc >= 0)
			return rc;
		o.token = tok;
	} else if ((env = getenv("HF_TOKEN")) != NULL && *env) {
		o.token = env;
	}
	if (a->no_cache) {
		o.cache_dir = NULL;
	} else if (a->cache_dir) {
		o.cache_dir = a->cache_dir;
	} else if ((env = getenv("XDG_CACHE_HOME")) != NULL && env[0] == '/') {
		snprintf(cache, sizeof(cache), "%s/quantaudit/http", env);
		o.cache_dir = cache;
	} else if ((env = getenv("HOME")) != NULL && env[0] == '/') {
		snprintf(cache, sizeof(cache), "%s/.cache/quantaudit/http",
			 env);
		o.cache_dir = cache;
	}
	rc = qa_remote_create(&o, out, err, sizeof(err));
	memset(tok, 0, sizeof(tok));
	if (rc != QA_OK) {
		qa_cli_say("%s", err);
		return QA_EXIT_SYSTEM;
	}
	return -1;
}

int
qa_cli_remote_close(struct qa_remote *r, bool quiet, int rc)
{
	struct qa_remote_stats s;
	char fetched[32], cached[32];

	if (!r)
		return rc;
	qa_remote_stats(r, &s);
	if (!quiet) {
		qa_fmt_bytes(fetched, sizeof(fetched), s.bytes_fetched);
		qa_fmt_bytes(cached, sizeof(cached), s.bytes_cached);
		qa_cli_say("remote: %" PRIu64 " file%s read, %s fetched in %"
			   PRIu64 " request%s, %s from the cache "
			   "(fetched bytes: %" PRIu64 ")", s.files,
			   s.files == 1 ? "" : "s", fetched, s.requests,
			   s.requests == 1 ? "" : "s", cached,
			   s.bytes_fetched);
	}
	/* a damaged cache entry is no error (it is fetched again), but it
	 * is said: a cache someone else writes can be tampered with */
	if (s.cache_note)
		qa_cli_say("remote: %s%s", s.cache_note, s.cache_discarded > 1 ?
			   " (and other entries)" : "");
	if (qa_remote_deadline_passed(r)) {
		/* always said, quiet or not: the report above is partial */
		qa_cli_say("error: the run's deadline of %u s passed "
			   "(--deadline): the requests still to make were not "
			   "made, so what they would have read was not checked; "
			   "the report is incomplete", qa_remote_deadline(r));
		rc = QA_EXIT_SYSTEM;
	}
	qa_remote_free(r);
	return rc;
}
