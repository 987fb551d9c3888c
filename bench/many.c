/* SPDX-License-Identifier: MIT */
/*
 * Many models in one process through the library, as a fuzz loop or a
 * service would call it and as the programs in bench/peers/ drive
 * llama.cpp's and gguf-tools' readers: every path goes through the whole
 * pipeline of `quantaudit inspect` (load, summarize, checks, verdict)
 * with no report, and each inventory is released as soon as it is
 * summarized (engine/audit.h qa_audit_run_each). One line per model on
 * stdout; the CPU time per model on stderr. For profiling:
 *
 *   valgrind --tool=callgrind BUILD/many -r 10 FILE...
 *
 *   many [-r ROUNDS] [-q] PATH...
 *     -r ROUNDS  go over the paths ROUNDS times (default 1)
 *     -q         no line per model
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/audit.h"

struct totals {
	bool quiet;
	uint64_t models, failed, tensors, keys;
};

static int
one_model(void *ctx, struct qa_audit_input *in)
{
	struct totals *t = ctx;
	const struct qa_inventory *inv = in->inv;

	if (!inv) {
		t->failed++;
		if (!t->quiet)
			printf("%s: %s\n", in->path, in->error);
		return 0;
	}
	t->models++;
	t->tensors += inv->n_tensors;
	t->keys += inv->n_kvs;
	if (!t->quiet)
		printf("%s: %" PRIu32 " tensors, %" PRIu32 " keys, %" PRIu32
		       " findings, %s\n", in->path, inv->n_tensors, inv->n_kvs,
		       inv->n_findings, inv->verdict ? inv->verdict : "?");
	return 0;
}

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct qa_audit_options opt;
	struct totals t;
	long rounds = 1, r;
	double start;
	int c;

	memset(&t, 0, sizeof(t));
	while ((c = getopt(argc, argv, "r:q")) != -1) {
		switch (c) {
		case 'r':
			rounds = strtol(optarg, NULL, 10);
			break;
		case 'q':
			t.quiet = true;
			break;
		default:
			fputs("usage: many [-r ROUNDS] [-q] PATH...\n", stderr);
			return 2;
		}
	}
	if (optind >= argc || rounds < 1) {
		fputs("usage: many [-r ROUNDS] [-q] PATH...\n", stderr);
		return 2;
	}
	/* As `quantaudit inspect` runs it: every check, no fit, errors
	 * fail. */
	memset(&opt, 0, sizeof(opt));
	opt.fail_on = QA_SEV_ERROR;
	start = cpu_seconds();
	for (r = 0; r < rounds; r++) {
		struct qa_audit audit;
		int rc = qa_audit_run_each((const char *const *)argv + optind,
					   (size_t)(argc - optind), &opt,
					   one_model, &t, &audit);

		qa_audit_free(&audit);
		if (rc != QA_OK) {
			fputs("many: out of memory\n", stderr);
			return 4;
		}
	}
	fprintf(stderr, "many: %" PRIu64 " models (%" PRIu64 " failed), %"
		PRIu64 " tensors, %" PRIu64 " keys: %.1f us CPU per model\n",
		t.models, t.failed, t.tensors, t.keys,
		(cpu_seconds() - start) * 1e6 /
		(double)(t.models + t.failed ? t.models + t.failed : 1));
	return t.failed ? 1 : 0;
}
