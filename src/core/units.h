/* SPDX-License-Identifier: MIT */
/*
 * Human units shared by the reporters: parameter counts (1.24 B), byte
 * sizes in binary units (762.8 MiB) and bits per weight.
 */
#ifndef QA_SRC_UNITS_H
#define QA_SRC_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* printf's "%.<decimals>f" of d, byte for byte, mostly without printf
 * (exact for 0 <= d < 2^63 and decimals <= 4; snprintf otherwise). */
void qa_fmt_fixed(char *dst, size_t size, double d, unsigned decimals);
/* "512", "67.6 K", "268.4 M", "1.24 B", "1.02 T" */
void qa_fmt_params(char *dst, size_t size, uint64_t n);
/* "128 B", "264.0 KiB", "762.8 MiB", "20.00 GiB" */
void qa_fmt_bytes(char *dst, size_t size, uint64_t n);
/* 8 * bytes / params with 2 decimals, or "-" when params is 0 */
void qa_fmt_bpw(char *dst, size_t size, uint64_t bytes, uint64_t params);

/*
 * floor and an integer power without libm: they are the only two libm
 * functions the tool needs, and not loading libm saves every run about
 * 0.1 ms of start-up (docs/performance.md). qa_floor(x) is floor(x) for
 * every double (integral values, infinities and NaN come back as they
 * are); qa_powu(b, e) is b to the power e by repeated squaring, within a
 * few ulps of pow(b, e).
 */
static inline double
qa_floor(double x)
{
	double t;

	/* |x| >= 2^52 (and NaN, which fails the test) is integral already;
	 * so are both zeros, whose sign floor keeps */
	if (!(x > -4503599627370496.0 && x < 4503599627370496.0) || x == 0.0)
		return x;
	t = (double)(int64_t)x;	/* rounds toward zero */
	if (t > x)
		t -= 1.0;
	return t;
}

static inline double
qa_powu(double b, uint64_t e)
{
	double r = 1.0;

	for (; e; e >>= 1) {
		if (e & 1)
			r *= b;
		b *= b;
	}
	return r;
}

/* The value of one hexadecimal digit (either case), or -1. */
static inline int
qa_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif /* QA_SRC_UNITS_H */
