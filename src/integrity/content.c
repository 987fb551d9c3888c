/* SPDX-License-Identifier: MIT */
/*
 * Content hashing (see content.h): a list of jobs — each file's header,
 * each tensor, each file's remaining bytes, each file's SHA-256 — sorted
 * by file and offset, taken in turn by worker threads.
 */
#define _POSIX_C_SOURCE 200809L
#include "integrity/content.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ckd.h"
#include "core/sha256.h"
#include "core/source.h"
#include "integrity/libs.h"
#include "core/units.h"

/* 256 KiB: large enough that the syscall costs nothing next to the
 * hashing, small enough to stay in the L2 cache between the copy out of
 * the page cache and the hash (bench/hash.sh). */
#define BLOCK_DEFAULT ((size_t)256 * 1024)

enum job_kind { JOB_HEADER, JOB_TENSOR, JOB_OTHER, JOB_SHA256 };

struct range {
	uint64_t off, len;
};

struct job {
	enum job_kind kind;
	uint32_t file;
	uint32_t tensor;	/* JOB_TENSOR */
	uint64_t offset;	/* for the order */
	struct range *ranges;	/* JOB_OTHER: the gaps; others one range */
	uint32_t n_ranges;
	struct range one;
};

struct run {
	struct qa_content *out;
	struct qa_source *srcs;
	struct qa_source_span *spans;
	struct job *jobs;
	size_t n_jobs;
	size_t block;
	atomic_size_t next;
	atomic_uint_fast64_t done_bytes;
	uint64_t total_bytes;
	pthread_mutex_t lock;
	pthread_cond_t all_done;
	unsigned running;
	bool failed_alloc;
	const struct qa_xxh *xxh;
	qa_content_visit visit;
	void *visit_ctx;
	const uint32_t *unit;
};


const struct qa_fs *
qa_content_fs(const struct qa_inventory *inv)
{
	return inv->member_fs ? inv->member_fs : inv->fs;
}

void
qa_digest_hex(const struct qa_digest *d, char out[33])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++) {
		out[i] = hex[(d->hi >> (60 - 4 * i)) & 15];
		out[16 + i] = hex[(d->lo >> (60 - 4 * i)) & 15];
	}
	out[32] = '\0';
}

bool
qa_digest_parse(const char *s, struct qa_digest *d)
{
	int i;

	d->hi = d->lo = 0;
	for (i = 0; i < 32; i++) {
		int v = qa_hex_digit(s[i]);

		if (v < 0)
			return false;
		if (i < 16)
			d->hi = d->hi << 4 | (uint64_t)v;
		else
			d->lo = d->lo << 4 | (uint64_t)v;
	}
	return s[32] == '\0';
}

const char *
qa_region_state_text(enum qa_region_state s)
{
	switch (s) {
	case QA_REGION_HASHED:
		return "hashed";
	case QA_REGION_PAST_END:
		return "past the end of the file";
	case QA_REGION_READ_ERROR:
		return "read error";
	case QA_REGION_NOT_STORED:
		return "in a compressed archive member, not kept";
	case QA_REGION_NO_FILE:
		return "the file cannot be opened";
	case QA_REGION_SKIPPED:
		return "not read";
	}
	return "?";
}

void
qa_region_why(const struct qa_region_hash *h, char *out, size_t n)
{
	switch (h->state) {
	case QA_REGION_PAST_END:
		snprintf(out, n, "past the end of the file (it ends at offset "
			 "%" PRIu64 ")", h->error_offset);
		break;
	case QA_REGION_READ_ERROR:
		snprintf(out, n, "read error at offset %" PRIu64 ": %s",
			 h->error_offset, strerror(h->error_errno));
		break;
	case QA_REGION_NO_FILE:
		snprintf(out, n, "the file cannot be opened: %s",
			 strerror(h->error_errno ? h->error_errno : ENOENT));
		break;
	default:
		snprintf(out, n, "%s", qa_region_state_text(h->state));
		break;
	}
}

/* ---- one job ------------------------------------------------------------ */

/* Reads exactly len bytes at off of the span into buf; false with h
 * set on an error or the end of the file. */
static bool
read_full(const struct qa_source_span *span, uint64_t off, unsigned char *buf,
	  size_t len, struct qa_region_hash *h)
{
	while (len > 0) {
		ssize_t got = pread(span->fd, buf, len,
				    (off_t)(span->base + off));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			h->state = QA_REGION_READ_ERROR;
			h->error_offset = off;
			h->error_errno = got < 0 ? errno : EIO;
			return false;
		}
		buf += got;
		off += (uint64_t)got;
		len -= (size_t)got;
	}
	return true;
}

/*
 * Feeds the bytes of ranges to the hash (XXH3-128, or SHA-256 when sha is
 * set) or, for a visit job (tensor t, unit bytes per piece), to the
 * visitor. False with h set when a range cannot be read.
 */
static bool
feed(struct run *run, const struct qa_source_span *span,
     const struct range *r, uint32_t n, XXH3_state_t *xs,
     struct qa_sha256 *sha, unsigned char *buf, struct qa_region_hash *h,
     uint32_t t, uint32_t unit)
{
	size_t piece = run->block;
	uint32_t i;

	if (unit > 0 && piece >= unit)
		piece -= piece % unit;
	for (i = 0; i < n; i++) {
		uint64_t off = r[i].off, left = r[i].len, done = 0;

		if (off > span->avail || left > span->avail - off) {
			h->state = span->fd < 0 && span->mem ?
				   QA_REGION_NOT_STORED : QA_REGION_PAST_END;
			h->error_offset = span->avail;
			return false;
		}
		while (left > 0) {
			size_t take = left < piece ? (size_t)left : piece;
			const unsigned char *p;

			if (span->fd >= 0) {
				if (!read_full(span, off, buf, take, h))
					return false;
				p = buf;
			} else {
				p = span->mem + off;
			}
			if (run->visit)
				run->visit(run->visit_ctx, t, done, p, take);
			else if (sha)
				qa_sha256_update(sha, p, take);
			else
				run->xxh->update(xs, p, take);
			off += take;
			done += take;
			left -= take;
			atomic_fetch_add_explicit(&run->done_bytes, take,
						  memory_order_relaxed);
		}
	}
	return true;
}

static void
run_job(struct run *run, const struct job *j, XXH3_state_t *xs,
	unsigned char *buf)
{
	struct qa_content *out = run->out;
	struct qa_file_hash *f = &out->files[j->file];
	const struct qa_source_span *span = &run->spans[j->file];
	struct qa_region_hash *h;
	const struct range *r = j->n_ranges > 1 || j->kind == JOB_OTHER ?
				j->ranges : &j->one;
	struct qa_sha256 sha;

	switch (j->kind) {
	case JOB_HEADER:
		h = &f->header;
		break;
	case JOB_OTHER:
		h = &f->other;
		break;
	case JOB_SHA256:
		h = &f->sha_state;
		break;
	default:
		h = &out->tensors[j->tensor].h;
		break;
	}
	if (f->open_errno) {
		h->state = QA_REGION_NO_FILE;
		h->error_errno = f->open_errno;
		return;
	}
	if (run->visit) {
		if (feed(run, span, r, j->n_ranges, NULL, NULL, buf, h,
			 j->tensor, run->unit[j->tensor]))
			h->state = QA_REGION_HASHED;
		return;
	}
	if (j->kind == JOB_SHA256) {
		qa_sha256_init(&sha);
		if (feed(run, span, r, j->n_ranges, NULL, &sha, buf, h, 0, 0)) {
			qa_sha256_final(&sha, f->sha256);
			h->state = QA_REGION_HASHED;
		}
		return;
	}
	run->xxh->reset(xs);
	if (feed(run, span, r, j->n_ranges, xs, NULL, buf, h, 0, 0)) {
		XXH128_hash_t v = run->xxh->digest(xs);

		h->digest.hi = v.high64;
		h->digest.lo = v.low64;
		h->state = QA_REGION_HASHED;
	}
}

static void *
worker(void *arg)
{
	struct run *run = arg;
	unsigned char *buf = malloc(run->block);
	XXH3_state_t *xs = run->xxh ? run->xxh->create_state() : NULL;

	if (!buf || (run->xxh && !xs)) {
		pthread_mutex_lock(&run->lock);
		run->failed_alloc = true;
		pthread_mutex_unlock(&run->lock);
	} else {
		for (;;) {
			size_t i = atomic_fetch_add(&run->next, 1);

			if (i >= run->n_jobs)
				break;
			run_job(run, &run->jobs[i], xs, buf);
		}
	}
	free(buf);
	if (xs)
		run->xxh->free_state(xs);
	pthread_mutex_lock(&run->lock);
	run->running--;
	pthread_cond_signal(&run->all_done);
	pthread_mutex_unlock(&run->lock);
	return NULL;
}

/* ---- the plan ----------------------------------------------------------- */

/* The folder part of path (up to and including the last '/'). */
static size_t
dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Length of the folder prefix every file's path shares. */
static size_t
common_dir(const struct qa_inventory *inv)
{
	size_t n, i, k;

	if (inv->n_files == 0)
		return 0;
	n = dir_len(inv->files[0].path);
	for (i = 1; i < inv->n_files; i++) {
		const char *p = inv->files[i].path;

		for (k = 0; k < n && p[k] == inv->files[0].path[k]; k++)
			;
		n = k;
	}
	while (n > 0 && inv->files[0].path[n - 1] != '/')
		n--;
	return n;
}

static int
cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int
cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

/* The bytes of file fi in neither its header nor a tensor hashed in
 * place, as ranges in offset order; *n_out of them. */
static struct range *
gaps_of(struct qa_arena *arena, struct qa_content *c, uint32_t fi,
	uint32_t *n_out, uint64_t *bytes)
{
	const struct qa_file_hash *f = &c->files[fi];
	struct range *cover, *gaps;
	size_t n = 0, i, g = 0;
	uint64_t at = f->header_bytes;

	*n_out = 0;
	*bytes = 0;
	cover = malloc(((size_t)c->n_tensors + 1) * sizeof(*cover));
	if (!cover)
		return NULL;
	for (i = 0; i < c->n_tensors; i++) {
		const struct qa_tensor_hash *t = &c->tensors[i];

		if (t->file == fi && t->h.state == QA_REGION_HASHED &&
		    t->bytes > 0) {
			cover[n].off = t->offset;
			cover[n].len = t->bytes;
			n++;
		}
	}
	qsort(cover, n, sizeof(*cover), cmp_range);
	gaps = qa_arena_array(arena, n + 1, sizeof(*gaps));
	if (!gaps) {
		free(cover);
		return NULL;
	}
	for (i = 0; i <= n; i++) {
		uint64_t start = i < n ? cover[i].off : f->bytes;

		if (start > at) {
			gaps[g].off = at;
			gaps[g].len = start - at;
			*bytes += gaps[g].len;
			g++;
		}
		if (i < n && cover[i].off + cover[i].len > at)
			at = cover[i].off + cover[i].len;
	}
	free(cover);
	*n_out = (uint32_t)g;
	return gaps;
}

int
qa_content_plan(struct qa_inventory *inv, struct qa_content *out)
{
	size_t root = common_dir(inv);
	uint32_t i;

	memset(out, 0, sizeof(*out));
	out->files = qa_arena_array(&inv->arena, inv->n_files ? inv->n_files :
				    1, sizeof(*out->files));
	out->tensors = qa_arena_array(&inv->arena,
				      inv->n_tensors ? inv->n_tensors : 1,
				      sizeof(*out->tensors));
	if (!out->files || !out->tensors)
		return QA_E_NOMEM;
	out->n_files = inv->n_files;
	out->n_tensors = inv->n_tensors;
	for (i = 0; i < inv->n_files; i++) {
		const struct qa_file *src = &inv->files[i];
		struct qa_file_hash *f = &out->files[i];

		f->display = src->path;
		f->path = src->path + root;
		f->bytes = src->bytes;
		f->header_bytes = src->header_bytes ? src->header_bytes :
				  src->tensor_count ? src->data_offset :
				  QA_HEADER_WHOLE_FILE;
	}
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		struct qa_tensor_hash *th = &out->tensors[i];

		th->name = t->name;
		th->file = t->file;
		th->offset = t->offset;
		th->bytes = t->bytes;
		th->dtype = t->dtype;
	}
	return QA_OK;
}

/* Sizes from the files as they are now, the regions past their end, and
 * the jobs that hash the rest. */
static int
make_jobs(struct qa_arena *arena, const struct qa_content_options *opt,
	  struct run *run)
{
	struct qa_content *c = run->out;
	size_t n_jobs = 0, cap;
	uint32_t i;

	cap = (size_t)c->n_tensors + 3 * (size_t)c->n_files;
	run->jobs = calloc(cap ? cap : 1, sizeof(*run->jobs));
	if (!run->jobs)
		return QA_E_NOMEM;
	for (i = 0; i < c->n_files; i++) {
		struct qa_file_hash *f = &c->files[i];

		memset(&f->header, 0, sizeof(f->header));
		memset(&f->other, 0, sizeof(f->other));
		memset(&f->sha_state, 0, sizeof(f->sha_state));
		if (run->spans[i].fd < 0 && !run->spans[i].mem) {
			f->open_errno = run->srcs[i].err ? run->srcs[i].err :
					ENOENT;
		} else {
			f->open_errno = 0;
			f->bytes = run->srcs[i].size;
		}
		if (f->header_bytes == QA_HEADER_WHOLE_FILE)
			f->header_bytes = f->bytes;
		f->has_sha256 = opt->sha256;
	}
	for (i = 0; i < c->n_tensors; i++) {
		struct qa_tensor_hash *th = &c->tensors[i];
		struct job *j;
		uint64_t end;

		memset(&th->h, 0, sizeof(th->h));
		if (opt->visit && !opt->unit[i]) {
			th->h.state = QA_REGION_SKIPPED;
			continue;
		}
		if (th->file >= c->n_files) {
			th->h.state = QA_REGION_NO_FILE;
			continue;
		}
		if (qa_ckd_add(&end, th->offset, th->bytes) ||
		    end > c->files[th->file].bytes) {
			th->h.state = QA_REGION_PAST_END;
			th->h.error_offset = c->files[th->file].bytes;
			continue;
		}
		/* Provisionally hashed: the gaps leave it out; a read
		 * error later sets its real state. */
		th->h.state = QA_REGION_HASHED;
		j = &run->jobs[n_jobs++];
		j->kind = JOB_TENSOR;
		j->file = th->file;
		j->tensor = i;
		j->offset = th->offset;
		j->one.off = th->offset;
		j->one.len = th->bytes;
		j->n_ranges = 1;
	}
	for (i = 0; i < c->n_files && !opt->visit; i++) {
		struct qa_file_hash *f = &c->files[i];
		struct job *j;

		if (f->header_bytes > f->bytes) {
			/* A header past the end (a truncated file): the
			 * bytes there are still hashed, so the digest
			 * differs and the offset says where it ends. */
			f->header.state = QA_REGION_PAST_END;
			f->header.error_offset = f->bytes;
		} else {
			j = &run->jobs[n_jobs++];
			j->kind = JOB_HEADER;
			j->file = i;
			j->one.len = f->header_bytes;
			j->n_ranges = 1;
		}
		j = &run->jobs[n_jobs++];
		j->kind = JOB_OTHER;
		j->file = i;
		j->offset = f->header_bytes;
		j->ranges = gaps_of(arena, c, i, &j->n_ranges, &f->other_bytes);
		if (!j->ranges)
			return QA_E_NOMEM;
		if (opt->sha256) {
			j = &run->jobs[n_jobs++];
			j->kind = JOB_SHA256;
			j->file = i;
			j->one.len = f->bytes;
			j->n_ranges = 1;
		}
	}
	qsort(run->jobs, n_jobs, sizeof(*run->jobs), cmp_job);
	run->n_jobs = n_jobs;
	for (i = 0; i < n_jobs; i++) {
		const struct job *j = &run->jobs[i];
		uint32_t k;

		if (j->kind == JOB_OTHER)
			for (k = 0; k < j->n_ranges; k++)
				run->total_bytes += j->ranges[k].len;
		else
			run->total_bytes += j->one.len;
	}
	return QA_OK;
}

static unsigned
default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

int
qa_content_hash(const struct qa_fs *fs, struct qa_arena *arena,
		const struct qa_content_options *opt, struct qa_content *c,
		char *err, size_t errlen)
{
	struct run run;
	pthread_t threads[256];
	unsigned jobs = opt->jobs ? opt->jobs : default_jobs(), started = 0;
	uint32_t i;
	int rc;

	if (jobs > 256)
		jobs = 256;
	memset(&run, 0, sizeof(run));
	if (!opt->visit) {
		run.xxh = qa_xxh_load(err, errlen);
		if (!run.xxh)
			return QA_E_IO;
	}
	run.out = c;
	c->bytes_hashed = 0;
	c->n_unhashed = 0;
	run.block = opt->block ? opt->block : BLOCK_DEFAULT;
	run.visit = opt->visit;
	run.visit_ctx = opt->visit_ctx;
	run.unit = opt->unit;
	atomic_init(&run.next, 0);
	atomic_init(&run.done_bytes, 0);
	run.srcs = calloc(c->n_files ? c->n_files : 1, sizeof(*run.srcs));
	run.spans = calloc(c->n_files ? c->n_files : 1, sizeof(*run.spans));
	if (!run.srcs || !run.spans) {
		rc = QA_E_NOMEM;
		goto out;
	}
	/* Opened here, before any thread: the file systems are not
	 * thread-safe, spans are. */
	for (i = 0; i < c->n_files; i++) {
		run.spans[i].fd = -1;
		if (fs->open(fs, c->files[i].display, &run.srcs[i]) == QA_OK)
			qa_source_span(&run.srcs[i], &run.spans[i]);
	}
	rc = make_jobs(arena, opt, &run);
	if (rc != QA_OK)
		goto out;
	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.all_done, NULL);
	if (jobs > run.n_jobs)
		jobs = run.n_jobs ? (unsigned)run.n_jobs : 1;
	pthread_mutex_lock(&run.lock);
	for (started = 0; started < jobs; started++) {
		if (pthread_create(&threads[started], NULL, worker, &run) != 0)
			break;
		run.running++;
	}
	if (started == 0) {
		/* No thread: this one does the work. */
		pthread_mutex_unlock(&run.lock);
		run.running = 1;
		worker(&run);
		pthread_mutex_lock(&run.lock);
	}
	while (run.running > 0) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&run.all_done, &run.lock, &until);
		if (opt->progress && run.running > 0) {
			pthread_mutex_unlock(&run.lock);
			opt->progress(opt->progress_ctx,
				      atomic_load(&run.done_bytes),
				      run.total_bytes);
			pthread_mutex_lock(&run.lock);
		}
	}
	pthread_mutex_unlock(&run.lock);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_cond_destroy(&run.all_done);
	pthread_mutex_destroy(&run.lock);
	if (run.failed_alloc) {
		snprintf(err, errlen, "out of memory");
		rc = QA_E_NOMEM;
		goto out;
	}
	c->bytes_hashed = atomic_load(&run.done_bytes);
	for (i = 0; i < c->n_tensors; i++)
		c->n_unhashed += c->tensors[i].h.state != QA_REGION_HASHED &&
				 c->tensors[i].h.state != QA_REGION_SKIPPED;
	for (i = 0; i < c->n_files && !opt->visit; i++) {
		const struct qa_file_hash *f = &c->files[i];

		c->n_unhashed += (f->header.state != QA_REGION_HASHED) +
				   (f->other.state != QA_REGION_HASHED) +
				   (f->has_sha256 &&
				    f->sha_state.state != QA_REGION_HASHED);
	}
out:
	for (i = 0; run.srcs && i < c->n_files; i++)
		qa_source_close(&run.srcs[i]);
	free(run.srcs);
	free(run.spans);
	free(run.jobs);
	return rc;
}
