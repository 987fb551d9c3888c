/* SPDX-License-Identifier: MIT */
/*
 * HTTP requests through libcurl, loaded on first use (http.h says why).
 * The headers of <curl/curl.h> give the types and constants; the
 * functions are looked up by name in libcurl.so.4.
 */
#define _POSIX_C_SOURCE 200809L
#include "remote/http.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "remote/parse.h"

/* libcurl 7.x and 8.x keep soname libcurl.so.4 (its lib/Makefile.am
 * VERSIONINFO); the Debian package names it libcurl.so.4. */
static const char *const sonames[] = { "libcurl.so.4", "libcurl.so" };

#define HTTP_SYMBOLS(X) \
	X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) \
	X(curl_easy_perform) X(curl_easy_getinfo) X(curl_easy_cleanup) \
	X(curl_easy_reset) X(curl_easy_strerror) X(curl_slist_append) \
	X(curl_slist_free_all) X(curl_multi_init) X(curl_multi_add_handle) \
	X(curl_multi_remove_handle) X(curl_multi_perform) X(curl_multi_poll) \
	X(curl_multi_info_read) X(curl_multi_cleanup)

#define HTTP_DEFINE(name) static __typeof__(name) *sym_##name;
HTTP_SYMBOLS(HTTP_DEFINE)
#undef HTTP_DEFINE

static void *curl_lib;

static bool
load_curl(char *err, size_t errlen)
{
	void *h = NULL, *p;
	size_t i;

	if (curl_lib)
		return true;
	for (i = 0; !h && i < sizeof(sonames) / sizeof(sonames[0]); i++)
		h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "libcurl (%s) cannot be loaded: remote "
			 "inputs cannot be read (Debian: apt-get install "
			 "libcurl4)", sonames[0]);
		return false;
	}
#define HTTP_RESOLVE(name)						\
	p = dlsym(h, #name);						\
	if (!p) {							\
		snprintf(err, errlen, "libcurl has no %s", #name);	\
		dlclose(h);						\
		return false;						\
	}								\
	/* POSIX dlsym: a function pointer round-trips through void *. */ \
	*(void **)&sym_##name = p;
	HTTP_SYMBOLS(HTTP_RESOLVE)
#undef HTTP_RESOLVE
	if (sym_curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errlen, "libcurl failed to start");
		dlclose(h);
		return false;
	}
	curl_lib = h;
	return true;
}

struct qa_http {
	CURL *curl;
	struct qa_http_limits lim;
	char *auth;		/* "Authorization: Bearer ..." or NULL */
	uint64_t requests, bytes;
	bool deadline_hit;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Milliseconds left before the run's deadline; INT64_MAX without one,
 * 0 once it has passed. */
static int64_t
left_ms(const struct qa_http *h)
{
	uint64_t t;

	if (!h->lim.deadline_ms)
		return INT64_MAX;
	t = now_ms();
	return t >= h->lim.deadline_ms ? 0 :
	       (int64_t)(h->lim.deadline_ms - t);
}

static void
deadline_error(struct qa_http *h, char *err, size_t errlen)
{
	h->deadline_hit = true;
	snprintf(err, errlen, "the run's deadline of %u s passed "
		 "(--deadline): not fetched", h->lim.deadline_s);
}

bool
qa_http_deadline_passed(const struct qa_http *h)
{
	return h && h->deadline_hit;
}

struct qa_http *
qa_http_open(const struct qa_http_limits *lim, char *err, size_t errlen)
{
	struct qa_http *h;

	if (!load_curl(err, errlen))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->curl = sym_curl_easy_init())) {
		free(h);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->lim = *lim;
	h->lim.bearer = NULL;
	if (lim->bearer) {
		size_t n = strlen(lim->bearer) + 32;

		h->auth = malloc(n);
		if (!h->auth) {
			qa_http_close(h);
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		snprintf(h->auth, n, "Authorization: Bearer %s", lim->bearer);
	}
	return h;
}

void
qa_http_close(struct qa_http *h)
{
	if (!h)
		return;
	if (h->curl)
		sym_curl_easy_cleanup(h->curl);
	if (h->auth) {
		/* the token does not outlive the session in freed memory */
		memset(h->auth, 0, strlen(h->auth));
		free(h->auth);
	}
	free(h);
}

void
qa_http_counts(const struct qa_http *h, uint64_t *requests, uint64_t *bytes)
{
	*requests = h ? h->requests : 0;
	*bytes = h ? h->bytes : 0;
}

void
qa_http_resp_free(struct qa_http_resp *resp)
{
	free(resp->body);
	resp->body = NULL;
	resp->body_len = 0;
}

/* ---- one transfer --------------------------------------------------------- */

struct transfer {
	struct qa_http_resp *resp;
	size_t cap, max_body;
	uint64_t *bytes;
};

static size_t
on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	struct qa_http_resp *r = t->resp;
	size_t n = size * nmemb, want;

	*t->bytes += n;
	if (n > t->max_body - r->body_len) {
		/* past the bound: keep what fits, then stop the transfer
		 * (returning less than n makes libcurl fail it) */
		r->body_cut = true;
		n = t->max_body - r->body_len;
		want = 0;
	} else {
		want = n;
	}
	if (r->body_len + n > t->cap) {
		size_t cap = t->cap ? t->cap : 65536;
		unsigned char *p;

		while (cap < r->body_len + n)
			cap = cap > t->max_body / 2 ? t->max_body : cap * 2;
		p = realloc(r->body, cap);
		if (!p)
			return 0;
		r->body = p;
		t->cap = cap;
	}
	if (n)
		memcpy(r->body + r->body_len, data, n);
	r->body_len += n;
	return r->body_cut ? 0 : want;
}

static size_t
on_header(char *line, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	struct qa_http_resp *r = t->resp;
	size_t n = size * nmemb, vlen;
	const char *v;

	if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
		/* a new response (after a redirect): forget the last one's
		 * headers */
		r->etag[0] = '\0';
		r->next_url[0] = '\0';
		r->have_total = r->have_length = false;
		r->have_range = r->range_ok = false;
		return n;
	}
	if (qa_http_header_is(line, n, "link", &v, &vlen)) {
		qa_http_link_next(v, vlen, r->next_url, sizeof(r->next_url));
		return n;
	}
	if (qa_http_header_is(line, n, "etag", &v, &vlen)) {
		if (vlen < sizeof(r->etag)) {
			memcpy(r->etag, v, vlen);
			r->etag[vlen] = '\0';
		}
	} else if (qa_http_header_is(line, n, "content-length", &v, &vlen)) {
		r->have_length = qa_http_parse_u64(v, vlen, &r->length);
	} else if (qa_http_header_is(line, n, "content-range", &v, &vlen)) {
		/* "bytes FIRST-LAST/TOTAL"; anything else (a total of
		 * '*', garbage) is kept as a range that did not parse,
		 * for the caller to refuse: the size is not checked */
		r->have_range = true;
		r->range_ok = qa_http_parse_content_range(v, vlen,
							  &r->range_first,
							  &r->range_last,
							  &r->total);
		r->have_total = r->range_ok;
	}
	return n;
}

static int
errno_of(CURLcode c)
{
	switch (c) {
	case CURLE_OPERATION_TIMEDOUT:
		return ETIMEDOUT;
	case CURLE_TOO_MANY_REDIRECTS:
		return ELOOP;
	case CURLE_COULDNT_CONNECT:
		return ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return EHOSTUNREACH;
	case CURLE_UNSUPPORTED_PROTOCOL:
		return EPROTONOSUPPORT;
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_WEIRD_SERVER_REPLY:
		return EPROTO;
	default:
		return EIO;
	}
}

static bool
transient(int e, long status)
{
	if (e)
		return e == ETIMEDOUT || e == EPROTO || e == ECONNREFUSED ||
		       e == EIO;
	return status == 429 || status == 500 || status == 502 ||
	       status == 503 || status == 504;
}

/* Sets the options of one request on c; the header list (the token)
 * is returned in *hdrs for the caller to free after the transfer. */
static int
setup(struct qa_http *h, CURL *c, const char *url, bool head, uint64_t off,
      uint64_t len, bool bearer, struct transfer *t, char *range,
      size_t range_cap, struct curl_slist **hdrs)
{
	long connect_ms = h->lim.timeout_s < 10 ?
			  (long)h->lim.timeout_s * 1000L : 10000L;
	long total_ms = (long)h->lim.timeout_s * 1000L;
	int64_t left = left_ms(h);

	*hdrs = NULL;
	if (left == 0)
		return ETIME;
	/* the deadline bounds each request too: none outlives it */
	if (left < total_ms)
		total_ms = (long)left;
	if (left < connect_ms)
		connect_ms = (long)left;
	sym_curl_easy_setopt(c, CURLOPT_URL, url);
	sym_curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	sym_curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	sym_curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	sym_curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
	sym_curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	sym_curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	sym_curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, total_ms);
	/* under 1 KiB/s for a third of the time bound: stalled */
	sym_curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	sym_curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
			     (long)(h->lim.timeout_s / 3 ?
				    h->lim.timeout_s / 3 : 1));
	sym_curl_easy_setopt(c, CURLOPT_USERAGENT, "quantaudit/" QA_VERSION);
	sym_curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	sym_curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
	sym_curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	sym_curl_easy_setopt(c, CURLOPT_HEADERDATA, t);
	if (head)
		sym_curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	if (!head && len > 0) {
		snprintf(range, range_cap, "%" PRIu64 "-%" PRIu64, off,
			 off + len - 1);
		sym_curl_easy_setopt(c, CURLOPT_RANGE, range);
	}
	/* libcurl sends a custom Authorization header only to the host
	 * first asked, not after a redirect to another one (CVE-2018-1000007,
	 * curl 7.58); the caller asks for it only on the hub's own URLs */
	if (bearer && h->auth) {
		*hdrs = sym_curl_slist_append(NULL, h->auth);
		if (!*hdrs)
			return ENOMEM;
		sym_curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
	}
	h->requests++;
	return 0;
}

/* The errno-style code and reason of a finished transfer. */
static int
outcome(struct qa_http *h, CURL *c, CURLcode rc, const char *url,
	struct qa_http_resp *resp, char *err, size_t errlen)
{
	char *eff = NULL;
	int e;

	sym_curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	if (sym_curl_easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &eff) ==
	    CURLE_OK && eff && strcmp(eff, url) != 0)
		snprintf(resp->final_url, sizeof(resp->final_url), "%s", eff);
	if (rc == CURLE_WRITE_ERROR && resp->body_cut)
		return 0;	/* the bound stopped it: the caller decides */
	if (rc == CURLE_OK)
		return 0;
	e = errno_of(rc);
	if (rc == CURLE_OPERATION_TIMEDOUT && left_ms(h) == 0) {
		deadline_error(h, err, errlen);
		e = ETIME;
	} else if (rc == CURLE_PARTIAL_FILE)
		snprintf(err, errlen, "the response was cut short (%zu bytes "
			 "of the body arrived)", resp->body_len);
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		snprintf(err, errlen, "no complete answer within %u s (a "
			 "stalled or very slow server; --timeout)",
			 h->lim.timeout_s);
	else if (rc == CURLE_TOO_MANY_REDIRECTS)
		snprintf(err, errlen, "more than 10 redirects (a redirect "
			 "loop)");
	else
		snprintf(err, errlen, "%s", sym_curl_easy_strerror(rc));
	qa_http_resp_free(resp);
	return e;
}

static int
attempt(struct qa_http *h, const char *url, bool head, uint64_t off,
	uint64_t len, size_t max_body, bool bearer,
	struct qa_http_resp *resp, char *err, size_t errlen)
{
	CURL *c = h->curl;
	struct curl_slist *hdrs;
	struct transfer t;
	char range[64];
	CURLcode rc;
	int se;

	memset(resp, 0, sizeof(*resp));
	memset(&t, 0, sizeof(t));
	t.resp = resp;
	t.max_body = max_body;
	t.bytes = &h->bytes;
	sym_curl_easy_reset(c);
	se = setup(h, c, url, head, off, len, bearer, &t, range,
		   sizeof(range), &hdrs);
	if (se == ETIME) {
		deadline_error(h, err, errlen);
		return ETIME;
	}
	if (se != 0) {
		snprintf(err, errlen, "out of memory");
		return ENOMEM;
	}
	rc = sym_curl_easy_perform(c);
	if (hdrs) {
		sym_curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
		sym_curl_slist_free_all(hdrs);
	}
	return outcome(h, c, rc, url, resp, err, errlen);
}

int
qa_http_request(struct qa_http *h, const char *url, bool head, uint64_t off,
		uint64_t len, size_t max_body, bool bearer,
		struct qa_http_resp *resp, char *err, size_t errlen)
{
	unsigned k;
	int e = 0;

	for (k = 0;; k++) {
		struct timespec pause;
		long ms;

		e = attempt(h, url, head, off, len, max_body, bearer, resp,
			    err, errlen);
		if (e == ENOMEM || !transient(e, e ? 0 : resp->status) ||
		    k >= h->lim.retries)
			break;
		if (!e)
			qa_http_resp_free(resp);
		/* 0.25 s, 0.5 s, 1 s...: a server that is briefly
		 * overloaded gets time; a dead one fails in seconds */
		ms = 250L << (k < 4 ? k : 4);
		if (left_ms(h) <= ms) {
			/* no time for another try: the deadline ends it */
			if (!e)
				memset(resp, 0, sizeof(*resp));
			deadline_error(h, err, errlen);
			return ETIME;
		}
		pause.tv_sec = ms / 1000;
		pause.tv_nsec = (ms % 1000) * 1000000L;
		nanosleep(&pause, NULL);
	}
	return e;
}

/* ---- several at once ------------------------------------------------------ */

struct slot {
	CURL *c;
	struct transfer t;
	struct curl_slist *hdrs;
	char range[64];
	size_t item;
};

int
qa_http_fetch_many(struct qa_http *h, struct qa_http_item *items, size_t n,
		   unsigned max_parallel)
{
	struct slot *slots;
	CURLM *m;
	size_t next = 0, i;
	unsigned k, active = 0;
	int running = 0, e = 0, se;

	if (n == 0)
		return 0;
	if (max_parallel == 0)
		max_parallel = 1;
	if (max_parallel > n)
		max_parallel = (unsigned)n;
	m = sym_curl_multi_init();
	slots = calloc(max_parallel, sizeof(*slots));
	if (!m || !slots) {
		if (m)
			sym_curl_multi_cleanup(m);
		free(slots);
		return ENOMEM;
	}
	for (i = 0; i < n; i++) {
		memset(&items[i].resp, 0, sizeof(items[i].resp));
		items[i].err = EIO;
	}
	for (k = 0; k < max_parallel; k++)
		if (!(slots[k].c = sym_curl_easy_init()))
			e = ENOMEM;
	for (;;) {
		CURLMsg *msg;
		int left;

		/* fill the free slots */
		for (k = 0; !e && k < max_parallel && next < n; k++) {
			struct slot *s = &slots[k];
			struct qa_http_item *it = &items[next];

			if (s->t.resp)
				continue;
			sym_curl_easy_reset(s->c);
			memset(&s->t, 0, sizeof(s->t));
			s->t.resp = &it->resp;
			s->t.max_body = (size_t)it->len;
			s->t.bytes = &h->bytes;
			s->item = next++;
			se = setup(h, s->c, it->url, false, it->off, it->len,
				   it->bearer, &s->t, s->range,
				   sizeof(s->range), &s->hdrs);
			if (se == ETIME) {
				/* past the deadline: the item stays failed */
				h->deadline_hit = true;
				it->err = ETIME;
				s->t.resp = NULL;
				continue;
			}
			if (se != 0 ||
			    sym_curl_multi_add_handle(m, s->c) != CURLM_OK) {
				e = ENOMEM;
				break;
			}
			active++;
		}
		if (active == 0)
			break;
		if (sym_curl_multi_perform(m, &running) != CURLM_OK)
			break;
		while ((msg = sym_curl_multi_info_read(m, &left)) != NULL) {
			struct slot *s = NULL;
			char why[256];

			if (msg->msg != CURLMSG_DONE)
				continue;
			for (k = 0; k < max_parallel; k++)
				if (slots[k].c == msg->easy_handle &&
				    slots[k].t.resp)
					s = &slots[k];
			if (!s)
				continue;
			items[s->item].err = outcome(h, s->c,
						     msg->data.result,
						     items[s->item].url,
						     &items[s->item].resp, why,
						     sizeof(why));
			sym_curl_multi_remove_handle(m, s->c);
			if (s->hdrs) {
				sym_curl_slist_free_all(s->hdrs);
				s->hdrs = NULL;
			}
			s->t.resp = NULL;
			active--;
		}
		if (running > 0 &&
		    sym_curl_multi_poll(m, NULL, 0, 1000, NULL) != CURLM_OK)
			break;
	}
	for (k = 0; k < max_parallel; k++) {
		if (slots[k].t.resp) {
			/* stopped early: the item stays failed */
			sym_curl_multi_remove_handle(m, slots[k].c);
			qa_http_resp_free(slots[k].t.resp);
		}
		if (slots[k].hdrs)
			sym_curl_slist_free_all(slots[k].hdrs);
		if (slots[k].c)
			sym_curl_easy_cleanup(slots[k].c);
	}
	free(slots);
	sym_curl_multi_cleanup(m);
	return e;
}
