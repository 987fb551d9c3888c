/* SPDX-License-Identifier: MIT */
/*
 * One HTTP request through libcurl, loaded on first use (dlopen, as
 * libarchive is: its dependencies cost milliseconds per process, and a
 * local run never needs them). Internal to src/remote/.
 *
 * A request follows redirects (the Hugging Face hub answers a resolve
 * URL with a redirect to its CDN), is bounded in time (connect, total,
 * and a floor on the transfer rate, so a stalled server is an error, not
 * a hang) and in body bytes, and is retried with backoff when the error
 * may pass (a timeout, a dropped or truncated transfer, 429, 5xx).
 */
#ifndef QA_REMOTE_HTTP_H
#define QA_REMOTE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qa_http;

struct qa_http_limits {
	unsigned timeout_s;	/* whole request, each attempt */
	unsigned retries;	/* attempts after the first */
	/* The run's deadline (--deadline): CLOCK_MONOTONIC milliseconds
	 * past which no request is sent, no transfer goes on and no retry
	 * waits; 0: none. deadline_s is what the messages say. */
	uint64_t deadline_ms;
	unsigned deadline_s;
	const char *bearer;	/* Authorization: Bearer, or NULL */
};

struct qa_http_resp {
	long status;		/* of the last response (after redirects) */
	char etag[160];		/* ETag, or "" */
	bool have_total;	/* Content-Range gave the full size */
	uint64_t total;
	bool have_range;	/* a Content-Range header came... */
	bool range_ok;		/* ...and parsed: range_first-range_last */
	uint64_t range_first, range_last;
	bool have_length;	/* Content-Length of the last response */
	uint64_t length;
	unsigned char *body;	/* malloc'd, body_len bytes (NULL if none) */
	size_t body_len;
	bool body_cut;		/* the body went past the bound: stopped */
	char final_url[512];	/* where the redirects ended ("" if none) */
	char next_url[1024];	/* Link: <URL>; rel="next" (a paginated
				 * API), or "" */
};

/* Creates a session (one connection reused); NULL with err set when
 * libcurl cannot be loaded or out of memory. */
struct qa_http *qa_http_open(const struct qa_http_limits *lim, char *err,
			     size_t errlen);
void qa_http_close(struct qa_http *h);

/*
 * HEAD (head) or GET of url; with len > 0 a GET asks for bytes
 * [off, off+len) with a Range header. The body is kept up to max_body
 * bytes; a longer one stops the transfer (body_cut). bearer: send the
 * token (only for the hub's own URLs). Returns 0 with resp filled (any
 * HTTP status), or an errno-style code (ETIME when the run's deadline
 * passed, ETIMEDOUT, ELOOP for too many
 * redirects, EPROTO for a truncated or malformed response, ECONNREFUSED,
 * EIO) with a one-line reason in err. resp->body is freed by
 * qa_http_resp_free.
 */
int qa_http_request(struct qa_http *h, const char *url, bool head,
		    uint64_t off, uint64_t len, size_t max_body, bool bearer,
		    struct qa_http_resp *resp, char *err, size_t errlen);
void qa_http_resp_free(struct qa_http_resp *resp);

/*
 * Several range GETs at once (at most max_parallel in flight, on their
 * own connections): each item asks for [off, off+len) of url. Best
 * effort, not retried: an item whose transfer fails has err set and no
 * body, for the caller to fetch again one by one (with retries and a
 * reason). Returns 0, or ENOMEM.
 */
struct qa_http_item {
	const char *url;
	uint64_t off, len;
	bool bearer;
	struct qa_http_resp resp;
	int err;		/* 0, or why the transfer failed */
};
int qa_http_fetch_many(struct qa_http *h, struct qa_http_item *items,
		       size_t n, unsigned max_parallel);

/* Whether the run's deadline has passed (a request refused or a
 * transfer stopped by it: ETIME). */
bool qa_http_deadline_passed(const struct qa_http *h);

/* Requests sent and body bytes received so far. */
void qa_http_counts(const struct qa_http *h, uint64_t *requests,
		    uint64_t *bytes);

#endif /* QA_REMOTE_HTTP_H */
