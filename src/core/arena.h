/* SPDX-License-Identifier: MIT */
/*
 * Arena allocator: one arena per inspected input owns every inventory
 * record and every copied string, and is freed once with
 * qa_arena_destroy(). Parsers never free piece by piece.
 *
 * Every arena has a hard ceiling (bytes handed out) so a hostile file
 * cannot make the tool allocate without bound; exceeding it makes the
 * allocation fail like out-of-memory, and qa_arena_exhausted() tells the
 * caller that the limit, not the system, said no.
 */
#ifndef QA_SRC_ARENA_H
#define QA_SRC_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qa_arena_chunk;

struct qa_arena {
	struct qa_arena_chunk *head;	/* newest chunk first */
	size_t used;			/* bytes handed out so far */
	size_t limit;			/* ceiling on used; 0 = default */
	bool hit_limit;			/* an allocation was refused by limit */
};

/* Default ceiling: far above any real header (a 256k-token vocabulary
 * with a 1 MB chat template needs a few MB), far below the machine. */
#define QA_ARENA_DEFAULT_LIMIT ((size_t)1 << 30)

void qa_arena_init(struct qa_arena *a, size_t limit);
/* Frees every chunk; the arena can be reused after qa_arena_init(). */
void qa_arena_finish(struct qa_arena *a);

/* Zeroed, 16-byte aligned memory, or NULL (out of memory or limit). */
void *qa_arena_alloc(struct qa_arena *a, size_t n);
/* n elements of size sz, overflow-checked; NULL on failure. */
void *qa_arena_array(struct qa_arena *a, size_t n, size_t sz);
/* The same, not cleared: for arrays whose every element the caller
 * writes before reading it (the zeroing of a large array costs as much
 * as filling it). */
void *qa_arena_array_uninit(struct qa_arena *a, size_t n, size_t sz);
/* Copy of s[0..len) with a terminating NUL; NULL on failure. */
char *qa_arena_strndup(struct qa_arena *a, const char *s, size_t len);
char *qa_arena_strdup(struct qa_arena *a, const char *s);
/* printf into the arena; NULL on failure. */
char *qa_arena_printf(struct qa_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Grow an arena-backed array: returns a new array of new_cap elements
 * holding the first old_n elements of old (old is abandoned to the arena).
 */
/* Takes back the block of n bytes at p when it is the newest one of
 * the current chunk (a string read and then found to be a copy of one
 * already kept); otherwise nothing happens. */
void qa_arena_give_back(struct qa_arena *a, void *p, size_t n);
void *qa_arena_grow(struct qa_arena *a, void *old, size_t old_n,
		    size_t new_cap, size_t sz);

/*
 * Large tables that live outside an arena for a while (a header's bytes,
 * a scanner's arrays, a hash table of every tensor). Up to QA_BIG_MIN
 * bytes they are malloc'd; above, they are mapped from the kernel with
 * transparent huge pages advised (madvise MADV_HUGEPAGE, which Debian's
 * kernels honour by default), so a 20 MB table costs ten page faults
 * instead of five thousand: on a virtual machine a 4 KiB fault costs
 * microseconds, more than the parsing of a tensor. The caller passes
 * the size back on realloc and free, as it always knows it.
 */
#define QA_BIG_MIN ((size_t)1 << 20)
void *qa_big_alloc(size_t n);		/* zeroed; NULL when out of memory */
void *qa_big_realloc(void *p, size_t old_n, size_t new_n);	/* new
					 * bytes not zeroed; NULL leaves p */
void qa_big_free(void *p, size_t n);

#endif /* QA_SRC_ARENA_H */
