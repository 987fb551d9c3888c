/* SPDX-License-Identifier: MIT */
/*
 * Checked integer arithmetic for every size that comes from a file.
 *
 * Each helper stores the exact result in *r and returns true when the
 * operation overflowed (C23 <stdckdint.h> semantics), so a caller writes
 *	if (qa_ckd_mul(&bytes, n, elem)) return overflow finding;
 * GCC and clang provide the builtins; both are the only compilers we build
 * with (see meson.build).
 */
#ifndef QA_SRC_CKD_H
#define QA_SRC_CKD_H

#include <stdbool.h>
#include <stdint.h>

static inline bool
qa_ckd_add(uint64_t *r, uint64_t a, uint64_t b)
{
	return __builtin_add_overflow(a, b, r);
}

static inline bool
qa_ckd_mul(uint64_t *r, uint64_t a, uint64_t b)
{
	return __builtin_mul_overflow(a, b, r);
}

/*
 * Round v up to a multiple of align (a power of two, non-zero). Returns
 * true on overflow.
 */
static inline bool
qa_ckd_align_up(uint64_t *r, uint64_t v, uint64_t align)
{
	uint64_t t;

	if (__builtin_add_overflow(v, align - 1, &t))
		return true;
	*r = t & ~(align - 1);
	return false;
}

/* Saturating forms, for sums of sizes that only feed a comparison with
 * a memory budget: an overflow reads as "more than any device has". */
static inline uint64_t
qa_sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return qa_ckd_add(&r, a, b) ? UINT64_MAX : r;
}

static inline uint64_t
qa_sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return qa_ckd_mul(&r, a, b) ? UINT64_MAX : r;
}

/* a / b rounded up; 0 when b is 0. */
static inline uint64_t
qa_ceil_div(uint64_t a, uint64_t b)
{
	return b ? a / b + (a % b != 0) : 0;
}

/* a - b, or 0 when b is larger. */
static inline uint64_t
qa_sub_floor(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

#endif /* QA_SRC_CKD_H */
