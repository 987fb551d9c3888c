/* SPDX-License-Identifier: MIT */
/*
 * The fixed-point formatter of core/units.c (qa_fmt_fixed and the unit
 * formatters built on it) against glibc's printf, which rounds a
 * double's exact binary value to the nearest with ties to even: printf
 * is the independent reference, and every value below is compared byte
 * for byte. The values are the ones reports write (parameter counts over
 * 1e3/1e6/1e9, byte counts over powers of 1024, bits per weight), exact
 * ties in binary (0.125, 2.5), the edges (0, the smallest subnormal,
 * just below 2^63, 2^63 itself, negative, infinite, NaN) and 2 million
 * random doubles over the whole range the formatter handles itself.
 */
#include "harness.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"


static uint64_t wrong;

static void
same(double d, unsigned decimals)
{
	char got[64], want[64];

	qa_fmt_fixed(got, sizeof(got), d, decimals);
	snprintf(want, sizeof(want), "%.*f", (int)decimals, d);
	if (strcmp(got, want) != 0) {
		if (wrong < 5)
			fprintf(stderr, "  %.17g with %u decimals: %s, printf "
				"%s\n", d, decimals, got, want);
		wrong++;
	}
}

static void
test_fixed(void)
{
	static const double edges[] = {
		0.0, -0.0, 0.125, 0.375, 2.5, 3.5, 0.05, 0.15, 0.25, 0.35,
		1.005, 2.675, 4.4999999999999991, 4.5, 9.995, 99.995,
		4.9406564584124654e-324, 2.2250738585072014e-308,
		9223372036854774784.0, 9223372036854775808.0, 1e300,
		-1.5, -0.001,
	};
	char big[8], got[64];
	unsigned dec;
	uint64_t i, n;

	th_case = "fixed";
	wrong = 0;
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		for (dec = 0; dec <= 6; dec++)
			same(edges[i], dec);
	same(INFINITY, 2);
	same(-INFINITY, 1);
	same(NAN, 2);
	/* what the reporters divide */
	for (n = 1000; n < 2000000; n += 7) {
		same((double)n / 1e3, 1);
		same((double)n / 1e6, 1);
		same((double)n * 1000 / 1e9, 2);
		same((double)n / 1024.0, 1);
		same((double)n * 1024 / 1048576.0, 1);
		same((double)n * 3 / 1073741824.0 * 1024, 2);
		same(8.0 * (double)n / (double)(n + 7), 2);
	}
	/* random doubles: a random mantissa at every exponent from 2^-40
	 * to 2^62, and uniform ones below 100 */
	for (i = 0; i < 1000000; i++) {
		uint64_t r = th_rand();
		double d = ldexp((double)(r >> 11) / 9007199254740992.0,
				 (int)(th_rand() % 103) - 40);

		same(d, (unsigned)(r % 5));
		same((double)(r >> 11) / 9007199254740992.0 * 100.0,
		     (unsigned)(r >> 3) % 5);
	}
	CHECK_EQ(wrong, 0);
	/* a short buffer gets what snprintf writes into it */
	qa_fmt_fixed(big, sizeof(big), 123456.789, 2);
	CHECK_STR(big, "123456.");
	qa_fmt_fixed(got, sizeof(got), 0.5, 0);
	CHECK_STR(got, "0");
	qa_fmt_fixed(got, sizeof(got), 1.5, 0);
	CHECK_STR(got, "2");
}

/* The unit formatters: each branch once, written out by hand. */
static void
test_units(void)
{
	char b[64];

	th_case = "units";
	qa_fmt_params(b, sizeof(b), 999);
	CHECK_STR(b, "999");
	qa_fmt_params(b, sizeof(b), 1250);
	CHECK_STR(b, "1.2 K");	/* 1.25 is exact: ties to even */
	qa_fmt_params(b, sizeof(b), 1350);
	CHECK_STR(b, "1.4 K");	/* 1.35 is 1.350000000000000088... */
	qa_fmt_params(b, sizeof(b), 8030261248u);
	CHECK_STR(b, "8.03 B");
	qa_fmt_params(b, sizeof(b), 671026419200u);
	CHECK_STR(b, "671.03 B");
	qa_fmt_params(b, sizeof(b), 1000000000000u);
	CHECK_STR(b, "1.00 T");
	qa_fmt_bytes(b, sizeof(b), 1023);
	CHECK_STR(b, "1023 B");
	qa_fmt_bytes(b, sizeof(b), 1536);
	CHECK_STR(b, "1.5 KiB");
	qa_fmt_bytes(b, sizeof(b), 16060522496u);
	CHECK_STR(b, "14.96 GiB");
	qa_fmt_bytes(b, sizeof(b), (uint64_t)3 << 40);
	CHECK_STR(b, "3.00 TiB");
	qa_fmt_bpw(b, sizeof(b), 4920000000u, 8030261248u);
	CHECK_STR(b, "4.90");
	qa_fmt_bpw(b, sizeof(b), 1, 0);
	CHECK_STR(b, "-");
}

int
main(void)
{
	test_fixed();
	test_units();
	th_case = NULL;
	return th_done("units");
}
