/* SPDX-License-Identifier: MIT */
/*
 * Remote inputs: model files and folders read over HTTP range requests,
 * as a qa_fs (core/source.h) that every loader reads through unchanged.
 *
 * An input is remote when it starts with http://, https:// or hf://.
 * hf://org/repo[@revision][/path] is the Hugging Face hub: files are read
 * at ENDPOINT/org/repo/resolve/REVISION/path and folders listed with the
 * hub's tree API (ENDPOINT/api/models/org/repo/tree/REVISION/path), where
 * ENDPOINT is $HF_ENDPOINT or https://huggingface.co. An https:// URL
 * ending in '/' is a checkpoint folder: its side files are looked up by
 * name, then the index, then every shard the index names (plain HTTP
 * cannot list a folder).
 *
 * Only the bytes a loader asks for are fetched: a read that is not in
 * memory fetches a range from its offset, growing (256 KiB, doubling up
 * to 2 MiB) while the reads go on where the last one ended, as a GGUF
 * header's do. Fetched ranges are kept on disk (--cache-dir), keyed by
 * URL and validated by the file's ETag (or the hub's object id), so a
 * second run fetches no body bytes. Every request is bounded in time,
 * retried with backoff when the error may pass, and the run in bytes
 * (--max-fetch).
 */
#ifndef QA_REMOTE_REMOTE_H
#define QA_REMOTE_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/source.h"

struct qa_remote;

struct qa_remote_options {
	const char *endpoint;	/* hub endpoint; NULL: https://huggingface.co */
	const char *token;	/* bearer token for the hub, or NULL */
	const char *cache_dir;	/* NULL: no disk cache */
	uint64_t max_fetch;	/* body bytes the run may fetch; 0: 1 GiB */
	unsigned timeout_s;	/* per request; 0: 60 */
	/* The whole run, from qa_remote_create: every request, retry and
	 * wait; 0: QA_REMOTE_DEADLINE_DEFAULT; UINT_MAX: none. */
	unsigned deadline_s;
	unsigned retries;	/* after the first attempt */
	bool full_download;	/* a server without Range support: read the
				 * whole file (within max_fetch) */
};

/* Ten minutes: a Hugging Face repository's headers (a 4,096-shard index
 * included) arrive in seconds to a minute on a working connection; a
 * server answering each request slowly must not hold a CI job for
 * hours. */
#define QA_REMOTE_DEADLINE_DEFAULT 600u

struct qa_remote_stats {
	uint64_t requests;	/* HTTP requests sent (HEAD included) */
	uint64_t bytes_fetched;	/* body bytes received */
	uint64_t bytes_cached;	/* bytes served from the disk cache */
	uint64_t files;		/* remote files read */
	uint64_t cache_discarded;	/* cache entries found damaged or
					 * another URL's, not used */
	const char *cache_note;	/* why the first was (owned by the
				 * session), NULL when none */
};

/* True when path names a remote input (http://, https://, hf://). */
bool qa_remote_is_url(const char *path);

/* A session for a run; libcurl is loaded here. QA_OK, or QA_E_IO /
 * QA_E_NOMEM with err set. */
int qa_remote_create(const struct qa_remote_options *opt,
		     struct qa_remote **out, char *err, size_t errlen);
void qa_remote_free(struct qa_remote *r);

/*
 * The path the remote file system reads for input (malloc'd): the URL a
 * hf:// reference resolves to, without the trailing '/' of a folder
 * (which it registers as one). QA_OK, QA_E_USAGE (a malformed
 * reference, err says why) or QA_E_NOMEM.
 */
int qa_remote_locate(struct qa_remote *r, const char *input, char **path,
		     char *err, size_t errlen);

const struct qa_fs *qa_remote_fs(struct qa_remote *r);

/* Why the last remote operation failed ("URL: reason"), or NULL. */
const char *qa_remote_last_error(const struct qa_remote *r);
void qa_remote_clear_error(struct qa_remote *r);

void qa_remote_stats(const struct qa_remote *r, struct qa_remote_stats *s);

/* The deadline of the run in seconds (0: none), and whether it passed:
 * then what was not fetched by then was not read, and the run is a
 * system error (exit 4), whatever the report says. */
unsigned qa_remote_deadline(const struct qa_remote *r);
bool qa_remote_deadline_passed(const struct qa_remote *r);

#endif /* QA_REMOTE_REMOTE_H */
