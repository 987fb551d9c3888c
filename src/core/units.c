/* SPDX-License-Identifier: MIT */
/*
 * Human units for the reporters (see units.h). Parameters use decimal
 * prefixes as model cards do (8.03 B); sizes use binary ones as GPU
 * memory is counted.
 */
#include "core/units.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/*
 * printf's "%.<decimals>f" of d, with the suffix after it, without
 * printf: the reporters write a few of these per row, and printf's
 * floating-point path is most of a small report's cost.
 *
 * printf rounds the double's exact binary value to the nearest decimal
 * with ties to even (glibc, in the default rounding mode). The exact
 * value is mant * 2^exp with mant < 2^53; times 10^decimals (at most
 * 10^4) it is below 2^67, so a 128-bit integer holds it and one shift
 * with the bits shifted out tells the rounding exactly. Values this does
 * not cover (negative, not finite, 2^63 or more, more than 4 decimals,
 * or a compiler without a 128-bit integer) go to snprintf.
 */
static void
fmt_fixed(char *dst, size_t size, double d, unsigned decimals,
	  const char *suffix)
{
#ifdef __SIZEOF_INT128__
	__extension__ typedef unsigned __int128 u128;
	static const uint32_t pow10[] = { 1, 10, 100, 1000, 10000 };
	uint64_t bits, mant, q, ip, fp;
	int exp;
	u128 num;
	char tmp[48], *p = tmp + sizeof(tmp);
	unsigned k;
	size_t len;

	memcpy(&bits, &d, sizeof(bits));
	if (decimals > 4 || !(d >= 0.0) || d >= 9223372036854775808.0 ||
	    (bits >> 63))
		goto slow;
	exp = (int)(bits >> 52 & 0x7FF);
	mant = bits & (((uint64_t)1 << 52) - 1);
	if (exp == 0) {
		exp = -1074;	/* subnormal (and zero) */
	} else {
		mant |= (uint64_t)1 << 52;
		exp -= 1075;
	}
	num = (u128)mant * pow10[decimals];
	if (exp >= 0) {
		/* d < 2^63 keeps exp <= 10; the product may still pass
		 * 2^64 */
		if (exp > 10 || (num << exp) >> 64)
			goto slow;
		q = (uint64_t)(num << exp);
	} else if (-exp >= 128) {
		q = 0;		/* below half a unit of the last place */
	} else {
		unsigned sh = (unsigned)-exp;
		u128 rem = num & (((u128)1 << sh) - 1);
		u128 half = (u128)1 << (sh - 1);

		if ((num >> sh) >> 64)
			goto slow;
		q = (uint64_t)(num >> sh);
		if (rem > half || (rem == half && (q & 1)))
			q++;
	}
	ip = q / pow10[decimals];
	fp = q % pow10[decimals];
	*--p = '\0';
	for (k = 0; k < decimals; k++) {
		*--p = (char)('0' + fp % 10);
		fp /= 10;
	}
	if (decimals)
		*--p = '.';
	do {
		*--p = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	len = (size_t)(tmp + sizeof(tmp) - 1 - p);
	if (len + strlen(suffix) < size) {
		memcpy(dst, p, len);
		memcpy(dst + len, suffix, strlen(suffix) + 1);
		return;
	}
slow:
#endif
	snprintf(dst, size, "%.*f%s", (int)decimals, d, suffix);
}

void
qa_fmt_fixed(char *dst, size_t size, double d, unsigned decimals)
{
	fmt_fixed(dst, size, d, decimals, "");
}

void
qa_fmt_params(char *dst, size_t size, uint64_t n)
{
	double d = (double)n;

	if (n < 1000)
		snprintf(dst, size, "%" PRIu64, n);
	else if (d < 1e6)
		fmt_fixed(dst, size, d / 1e3, 1, " K");
	else if (d < 1e9)
		fmt_fixed(dst, size, d / 1e6, 1, " M");
	else if (d < 1e12)
		fmt_fixed(dst, size, d / 1e9, 2, " B");
	else
		fmt_fixed(dst, size, d / 1e12, 2, " T");
}

void
qa_fmt_bytes(char *dst, size_t size, uint64_t n)
{
	double d = (double)n;

	if (n < 1024)
		snprintf(dst, size, "%" PRIu64 " B", n);
	else if (n < (uint64_t)1 << 20)
		fmt_fixed(dst, size, d / 1024.0, 1, " KiB");
	else if (n < (uint64_t)1 << 30)
		fmt_fixed(dst, size, d / 1048576.0, 1, " MiB");
	else if (n < (uint64_t)1 << 40)
		fmt_fixed(dst, size, d / 1073741824.0, 2, " GiB");
	else
		fmt_fixed(dst, size, d / 1099511627776.0, 2, " TiB");
}

void
qa_fmt_bpw(char *dst, size_t size, uint64_t bytes, uint64_t params)
{
	if (params == 0)
		snprintf(dst, size, "-");
	else
		fmt_fixed(dst, size, 8.0 * (double)bytes / (double)params, 2,
			  "");
}
