/* SPDX-License-Identifier: MIT */
/*
 * Chunked bump allocator behind struct qa_arena (see arena.h). Small
 * requests share chunks of 4 KiB at first, doubling with the bytes handed
 * out up to 64 KiB (every model of a folder keeps its arena until the
 * report, so a 100-byte model must not cost a 64 KiB chunk); a request
 * larger than a quarter of 64 KiB gets a chunk of its own so big token
 * tables do not waste the tail of a chunk. Chunks of 1 MiB or more are
 * mapped with transparent huge pages advised (big_map), and past 4 MiB
 * handed out the shared chunks are one huge page each.
 */
#define _GNU_SOURCE	/* MAP_ANONYMOUS, mremap */
#include "core/arena.h"

#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_SIZE ((size_t)64 * 1024)
#define FIRST_CHUNK_SIZE ((size_t)4 * 1024)
#define ALIGNMENT ((size_t)16)
#define MAP_MIN ((size_t)1 << 20)
#define BIG_CHUNK_AFTER ((size_t)4 << 20)

struct qa_arena_chunk {
	struct qa_arena_chunk *next;
	size_t cap;	/* usable bytes in data[] */
	size_t off;	/* next free byte */
	size_t mapped;	/* bytes mmap'd for it, 0 when malloc'd */
	bool zeroed;	/* data[] was zero when made (mapped or calloc'd) */
	_Alignas(16) unsigned char data[];
};

#define HUGE_PAGE ((size_t)2 << 20)

/* The bytes a big mapping of n bytes really spans: whole huge pages, so
 * the tail of a table is a huge page too (a 5.3 MB table whose last
 * 1.3 MB were 4 KiB pages took 330 faults for them); 0 when n is too
 * large to round. */
static size_t
big_span(size_t n)
{
	return n > SIZE_MAX - 2 * HUGE_PAGE ? 0 :
	       (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

/*
 * A mapping of n bytes (n > QA_BIG_MIN), zeroed, huge pages advised. A
 * huge page backs only a 2 MiB-aligned range: the mapping spans whole
 * huge pages (big_span) and is placed on that boundary, mapped with
 * 2 MiB to spare and the slack unmapped. big_unmap frees it. Pages never
 * touched cost nothing.
 */
static void *
big_map(size_t n)
{
	size_t span = big_span(n), head;
	unsigned char *m;

	if (!span)
		return NULL;
	m = mmap(NULL, span + HUGE_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	head = (HUGE_PAGE - (uintptr_t)m % HUGE_PAGE) % HUGE_PAGE;
	if (head)
		munmap(m, head);
	if (HUGE_PAGE - head)
		munmap(m + head + span, HUGE_PAGE - head);
	m += head;
#ifdef MADV_HUGEPAGE
	/* advice only: without transparent huge pages it is 4 KiB pages */
	(void)madvise(m, span, MADV_HUGEPAGE);
#endif
	return m;
}

static void
big_unmap(void *p, size_t n)
{
	munmap(p, big_span(n));
}

void
qa_arena_init(struct qa_arena *a, size_t limit)
{
	a->head = NULL;
	a->used = 0;
	a->limit = limit ? limit : QA_ARENA_DEFAULT_LIMIT;
	a->hit_limit = false;
}

void
qa_arena_finish(struct qa_arena *a)
{
	struct qa_arena_chunk *c = a->head;

	while (c) {
		struct qa_arena_chunk *next = c->next;

		if (c->mapped)
			big_unmap(c, c->mapped);
		else
			free(c);
		c = next;
	}
	a->head = NULL;
	a->used = 0;
}

static struct qa_arena_chunk *
new_chunk(size_t cap, bool zero)
{
	struct qa_arena_chunk *c;

	if (cap > SIZE_MAX - sizeof(*c))
		return NULL;
	if (cap >= MAP_MIN) {
		/* A large array (a table of 100k tensors is 17 MB) is
		 * mapped with huge pages advised (big_map): a few faults
		 * of 2 MiB instead of one per 4 KiB as it fills. */
		void *m = big_map(sizeof(*c) + cap);

		if (m) {
			c = m;
			c->mapped = sizeof(*c) + cap;
			c->zeroed = true;
			c->next = NULL;
			c->cap = cap;
			c->off = 0;
			return c;
		}
	}
	/* A block with a chunk of its own is asked zeroed from calloc,
	 * which takes a large one straight from mmap, already zero (no
	 * memset at all); the shared chunks of small blocks are not, so a
	 * small model does not pay for zeroing the tail of a chunk it
	 * never uses. */
	c = zero ? calloc(1, sizeof(*c) + cap) : malloc(sizeof(*c) + cap);
	if (!c)
		return NULL;
	c->zeroed = zero;
	c->mapped = 0;
	c->next = NULL;
	c->cap = cap;
	c->off = 0;
	return c;
}

/* n bytes, never handed out before; *zero says whether they are known
 * to be zero (a chunk of their own, made zeroed), for qa_arena_alloc. */
static void *
alloc_raw(struct qa_arena *a, size_t n, bool *zero)
{
	struct qa_arena_chunk *c;
	size_t need;
	void *p;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - ALIGNMENT)
		return NULL;
	need = (n + ALIGNMENT - 1) & ~(ALIGNMENT - 1);
	if (need > a->limit || a->used > a->limit - need) {
		a->hit_limit = true;
		return NULL;
	}
	if (need > CHUNK_SIZE / 4) {
		/* A big block gets its own chunk, linked behind the head so
		 * the head's free tail stays usable. */
		c = new_chunk(need, zero != NULL);
		if (!c)
			return NULL;
		if (zero)
			*zero = c->zeroed;
		if (a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			a->head = c;
		}
		c->off = need;
		a->used += need;
		assert(c->off <= c->cap && a->used <= a->limit);
		return c->data;
	}
	c = a->head;
	if (!c || c->cap - c->off < need) {
		size_t cap = FIRST_CHUNK_SIZE;

		while (cap < CHUNK_SIZE && cap <= a->used)
			cap *= 2;
		/* A large model (tens of thousands of names) gets chunks
		 * of one huge page once 4 MiB are handed out (the unused
		 * tail of the last one is never touched). */
		if (a->used >= BIG_CHUNK_AFTER)
			cap = HUGE_PAGE - sizeof(*c);
		c = new_chunk(cap < need ? need : cap, false);
		if (!c)
			return NULL;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->off;
	c->off += need;
	a->used += need;
	/* the block lies inside its chunk, and used stays under limit */
	assert(c->off <= c->cap && a->used <= a->limit);
	return p;
}

void *
qa_arena_alloc(struct qa_arena *a, size_t n)
{
	bool zero = false;
	void *p = alloc_raw(a, n, &zero);

	/* a block in a chunk made zeroed is still zero: no byte of an
	 * arena is handed out twice */
	if (p && !zero)
		memset(p, 0, n);
	return p;
}

void
qa_arena_give_back(struct qa_arena *a, void *p, size_t n)
{
	struct qa_arena_chunk *c = a->head;
	size_t need;

	if (n == 0)
		n = 1;
	if (!c || !p || n > SIZE_MAX - ALIGNMENT)
		return;
	need = (n + ALIGNMENT - 1) & ~(ALIGNMENT - 1);
	/* Only the head chunk's newest block: its bytes are handed out
	 * again by alloc_raw's small path, which never reports them zeroed
	 * (qa_arena_alloc clears them), so no stale byte is seen as zero. */
	if (c->off < need || (unsigned char *)p != c->data + c->off - need)
		return;
	c->off -= need;
	a->used -= need;
}

void *
qa_arena_array(struct qa_arena *a, size_t n, size_t sz)
{
	size_t total;

	if (__builtin_mul_overflow(n, sz, &total))
		return NULL;
	return qa_arena_alloc(a, total);
}

void *
qa_arena_array_uninit(struct qa_arena *a, size_t n, size_t sz)
{
	size_t total;

	if (__builtin_mul_overflow(n, sz, &total))
		return NULL;
	return alloc_raw(a, total, NULL);
}

char *
qa_arena_strndup(struct qa_arena *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = alloc_raw(a, len + 1, NULL);
	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
qa_arena_strdup(struct qa_arena *a, const char *s)
{
	return qa_arena_strndup(a, s, strlen(s));
}

char *
qa_arena_printf(struct qa_arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = alloc_raw(a, (size_t)n + 1, NULL);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void *
qa_arena_grow(struct qa_arena *a, void *old, size_t old_n, size_t new_cap,
	      size_t sz)
{
	void *p = qa_arena_array(a, new_cap, sz);

	if (p && old && old_n)
		memcpy(p, old, old_n * sz);
	return p;
}

/* ---- large tables outside arenas -------------------------------------- */

void *
qa_big_alloc(size_t n)
{
	if (n <= QA_BIG_MIN)
		return calloc(1, n ? n : 1);
	return big_map(n);
}

void *
qa_big_realloc(void *p, size_t old_n, size_t new_n)
{
	void *m;

	if (!p)
		return qa_big_alloc(new_n);
	if (new_n <= QA_BIG_MIN && old_n <= QA_BIG_MIN)
		return realloc(p, new_n ? new_n : 1);
	if (old_n > QA_BIG_MIN && new_n > QA_BIG_MIN) {
		size_t old_span = big_span(old_n), new_span = big_span(new_n);

		if (!new_span)
			return NULL;
		if (new_span == old_span)
			return p;
		/* the pages move, nothing is copied or faulted again (the
		 * new place may not be on a huge-page boundary: only the
		 * aligned whole huge pages inside it are huge) */
		m = mremap(p, old_span, new_span, MREMAP_MAYMOVE);
		if (m == MAP_FAILED)
			return NULL;
#ifdef MADV_HUGEPAGE
		(void)madvise(m, new_span, MADV_HUGEPAGE);
#endif
		return m;
	}
	m = qa_big_alloc(new_n);
	if (!m)
		return NULL;
	memcpy(m, p, old_n < new_n ? old_n : new_n);
	qa_big_free(p, old_n);
	return m;
}

void
qa_big_free(void *p, size_t n)
{
	if (!p)
		return;
	if (n <= QA_BIG_MIN)
		free(p);
	else
		big_unmap(p, n);
}
