/* SPDX-License-Identifier: MIT */
/*
 * SipHash-1-3 (see hash.h), written from the algorithm's description in
 * the SipHash paper: four 64-bit words of state initialised from the key
 * and the constants "somepseudorandomlygeneratedbytes", one SipRound per
 * 8-byte little-endian message word, the length in the top byte of the
 * last word, then 0xff folded in and three SipRounds.
 */
#define _GNU_SOURCE	/* getrandom */
#include "core/hash.h"

#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static uint64_t key0, key1;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void
make_key(void)
{
	uint64_t k[2];
	struct timespec ts;

	if (getrandom(k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k)) {
		/* No entropy this early in boot: the clock and the pid
		 * still keep a key from being known in advance. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		k[0] = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15u ^
		       (uint64_t)getpid();
		k[1] = (uint64_t)ts.tv_sec * 0xC2B2AE3D27D4EB4Fu ^
		       (uint64_t)(uintptr_t)&ts;
	}
	key0 = k[0];
	key1 = k[1];
}

static inline uint64_t
rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND(v0, v1, v2, v3) do {					\
	v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);	\
	v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);	\
} while (0)

static inline uint64_t
le64(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

uint64_t
qa_siphash13(uint64_t k0, uint64_t k1, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t v0, v1, v2, v3, m = 0;
	size_t i, tail = n & 7;

	v0 = k0 ^ 0x736f6d6570736575u;
	v1 = k1 ^ 0x646f72616e646f6du;
	v2 = k0 ^ 0x6c7967656e657261u;
	v3 = k1 ^ 0x7465646279746573u;
	for (i = 0; i + 8 <= n; i += 8) {
		m = le64(s + i);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	m = (uint64_t)n << 56;
	for (i = 0; i < tail; i++)
		m |= (uint64_t)s[n - tail + i] << (8 * i);
	v3 ^= m;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t
qa_hash(const void *p, size_t n)
{
	pthread_once(&key_once, make_key);
	return qa_siphash13(key0, key1, p, n);
}
