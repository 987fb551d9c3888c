/* SPDX-License-Identifier: MIT */
/*
 * Headers only: inspecting a multi-GB model must read its header and not
 * its data. The fixture generator writes a 20 GiB GGUF and a 20 GiB
 * safetensors file whose data sections are holes (sparse files); this test
 * inspects them and measures the bytes the process actually read with the
 * kernel's own counter (/proc/self/io rchar), independent of quantaudit's
 * bookkeeping. The bound is the header size plus 1 MiB.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/audit.h"
#include "harness.h"

static long long
rchar(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void
check(const char *dir, const char *rel, unsigned long long expect_size)
{
	char path[4096], err[512];
	struct qa_inventory *inv = NULL;
	struct stat st;
	long long before, after;
	unsigned long long header, limit;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (stat(path, &st) != 0) {
		FAIL("%s: missing fixture", rel);
		return;
	}
	CHECKF((unsigned long long)st.st_size >= expect_size,
	       "%s: size %lld, expected >= %llu", rel, (long long)st.st_size,
	       expect_size);
	before = rchar();
	rc = qa_input_inspect(path, &inv, err, sizeof(err));
	after = rchar();
	if (rc != 0 || !inv) {
		FAIL("%s: inspect failed: %s", rel, err);
		return;
	}
	header = inv->files[0].header_bytes;
	limit = header + (1u << 20);
	printf("%s: file %lld bytes, header %llu bytes, read %lld bytes, "
	       "%u findings\n", rel, (long long)st.st_size, header,
	       after - before, inv->n_findings);
	if (before < 0 || after < 0)
		FAIL("/proc/self/io unavailable");
	else
		CHECKF((unsigned long long)(after - before) <= limit,
		       "%s: read %lld bytes > header + 1 MiB (%llu)", rel,
		       after - before, limit);
	CHECKF(header != 0 && header <= (1u << 20),
	       "%s: implausible header size %llu", rel, header);
	if (!CHECKF(inv->n_findings == 0,
		    "%s: %u findings on a valid sparse file:", rel,
		    inv->n_findings))
		th_dump_findings(inv, NULL);
	CHECKF(inv->bytes + header >= expect_size,
	       "%s: tensors cover %llu bytes, expected ~%llu", rel,
	       (unsigned long long)inv->bytes, expect_size);
	qa_inventory_destroy(inv);
}

int
main(void)
{
	const char *dir = getenv("QA_FIXTURES");
	const unsigned long long gib20 = 20ULL << 30;

	if (!dir) {
		printf("QA_FIXTURES not set\n");
		return 1;
	}
	check(dir, "gguf/sparse-20g.gguf", gib20);
	check(dir, "st/sparse-20g.safetensors", gib20);
	return th_done("headers-only");
}
