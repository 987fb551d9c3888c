/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), for `hash --sha256`: the Hugging Face hub lists
 * every LFS file by the SHA-256 of its bytes (the pointer's `oid
 * sha256:`), so a download can be checked against the hub's listing
 * without another tool. Portable C, streaming.
 */
#ifndef QA_SRC_SHA256_H
#define QA_SRC_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct qa_sha256 {
	uint32_t h[8];
	uint64_t bytes;		/* message length so far */
	unsigned char block[64];
	size_t used;		/* bytes waiting in block */
};

void qa_sha256_init(struct qa_sha256 *s);
void qa_sha256_update(struct qa_sha256 *s, const void *p, size_t n);
/* The 32-byte digest; s must be initialized again before reuse. */
void qa_sha256_final(struct qa_sha256 *s, unsigned char out[32]);

#endif /* QA_SRC_SHA256_H */
