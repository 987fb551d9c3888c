/* SPDX-License-Identifier: MIT */
/*
 * Human units for the reporters (see units.h). Parameters use decimal
 * prefixes as model cards do (8.03 B); sizes use binary ones as GPU
 * memory is counted.
 */
#include "core/units.h"

#include <inttypes.h>
#include <stdio.h>

void
qa_fmt_params(char *dst, size_t size, uint64_t n)
{
	double d = (double)n;

	if (n < 1000)
		snprintf(dst, size, "%" PRIu64, n);
	else if (d < 1e6)
		snprintf(dst, size, "%.1f K", d / 1e3);
	else if (d < 1e9)
		snprintf(dst, size, "%.1f M", d / 1e6);
	else if (d < 1e12)
		snprintf(dst, size, "%.2f B", d / 1e9);
	else
		snprintf(dst, size, "%.2f T", d / 1e12);
}

void
qa_fmt_bytes(char *dst, size_t size, uint64_t n)
{
	double d = (double)n;

	if (n < 1024)
		snprintf(dst, size, "%" PRIu64 " B", n);
	else if (n < (uint64_t)1 << 20)
		snprintf(dst, size, "%.1f KiB", d / 1024.0);
	else if (n < (uint64_t)1 << 30)
		snprintf(dst, size, "%.1f MiB", d / 1048576.0);
	else if (n < (uint64_t)1 << 40)
		snprintf(dst, size, "%.2f GiB", d / 1073741824.0);
	else
		snprintf(dst, size, "%.2f TiB", d / 1099511627776.0);
}

void
qa_fmt_bpw(char *dst, size_t size, uint64_t bytes, uint64_t params)
{
	if (params == 0)
		snprintf(dst, size, "-");
	else
		snprintf(dst, size, "%.2f", 8.0 * (double)bytes / (double)params);
}
