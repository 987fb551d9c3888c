/* SPDX-License-Identifier: MIT */
/*
 * A keyed hash for the hash tables that hold names from model files.
 *
 * A table keyed by names a stranger wrote is only O(1) a look-up if the
 * stranger cannot choose names that collide: with a fixed hash function
 * (FNV, a multiply-xor mix) a header of n crafted names costs O(n^2)
 * probes, the "hash flooding" of Crosby and Wallach (USENIX Security
 * 2003). qa_hash is SipHash-1-3 (Aumasson and Bernstein, "SipHash: a fast
 * short-input PRF", 2012; the variant Python and Rust use for their
 * dictionaries) under a 128-bit key drawn from getrandom(2) once per
 * process: what collides cannot be computed without the key, which is
 * never shown. Values differ from run to run, so nothing that is printed
 * or compared across runs may depend on them (iteration order included).
 */
#ifndef QA_SRC_HASH_H
#define QA_SRC_HASH_H

#include <stddef.h>
#include <stdint.h>

/* SipHash-1-3 of the n bytes at p under the process key. */
uint64_t qa_hash(const void *p, size_t n);

/* SipHash-1-3 under the key (k0, k1), the two little-endian halves of
 * the 16 key bytes: what qa_hash computes, exposed for its tests. */
uint64_t qa_siphash13(uint64_t k0, uint64_t k1, const void *p, size_t n);

#endif /* QA_SRC_HASH_H */
