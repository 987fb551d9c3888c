/* SPDX-License-Identifier: MIT */
/*
 * Eight bytes at a time over JSON string bodies ("SIMD within a
 * register"): the length of the run of bytes that need no decision in a
 * JSON string, tested a 64-bit word at a time, for the scanner of index
 * files (formats/weight_index.c), whose long tensor and shard names are
 * most of their bytes (a safetensors header's strings are mostly short
 * keys, where a word test gains nothing). The tests are the exact ones of "Bit Twiddling Hacks" (Sean
 * Eron Anderson, "Determine if a word has a zero byte" and "has a byte
 * less than n"): as a yes/no over the word they have no false answers.
 */
#ifndef QA_CORE_SWAR_H
#define QA_CORE_SWAR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define QA_SWAR_ONES ((uint64_t)0x0101010101010101ULL)
#define QA_SWAR_HIGH ((uint64_t)0x8080808080808080ULL)

/* Non-zero when a byte of x is below n (n <= 128). */
static inline uint64_t
qa_swar_has_less(uint64_t x, unsigned n)
{
	return (x - QA_SWAR_ONES * n) & ~x & QA_SWAR_HIGH;
}

/* Non-zero when a byte of x equals c. */
static inline uint64_t
qa_swar_has_byte(uint64_t x, unsigned char c)
{
	return qa_swar_has_less(x ^ (QA_SWAR_ONES * c), 1);
}

/*
 * How many of the n bytes at p, from the first, are printable ASCII
 * (0x20-0x7f) other than '"' and '\\': the bytes a JSON string scanner
 * copies without a decision. Only whole words are tested here; the
 * caller goes on byte by byte from where this stops (it may stop up to
 * 7 bytes before the first byte that needs a decision).
 */
static inline size_t
qa_swar_json_plain(const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (n - i >= 8) {
		uint64_t x;

		memcpy(&x, p + i, 8);
		if ((x & QA_SWAR_HIGH) || qa_swar_has_less(x, 0x20) ||
		    qa_swar_has_byte(x, '"') || qa_swar_has_byte(x, '\\'))
			break;
		i += 8;
	}
	return i;
}

#endif /* QA_CORE_SWAR_H */
