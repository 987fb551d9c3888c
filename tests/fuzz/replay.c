/* SPDX-License-Identifier: MIT */
/*
 * Replay driver for the fuzz targets, linked in place of libFuzzer when
 * the build has fuzzing_engine=none (dav1d, git and zstd do the same): it
 * feeds every file named on the command line, and every file below every
 * folder named there (recursively, in byte order of the names, hidden
 * files skipped), to LLVMFuzzerTestOneInput once. The committed corpus and
 * the generated fixtures so run as ordinary tests, under the sanitizers
 * when the build has them; a broken invariant aborts.
 *
 * Files larger than 1 MiB are skipped, not read: the generated fixtures
 * include sparse multi-gigabyte models whose headers the unit tests cover,
 * and fuzz inputs are small by construction.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

#define REPLAY_MAX_BYTES ((off_t)1 << 20)

struct tally {
	unsigned long ran, skipped;
};

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path, struct tally *t);

static int
replay_file(const char *path, const struct stat *st, struct tally *t)
{
	uint8_t *buf;
	size_t n;
	FILE *f;

	if (st->st_size > REPLAY_MAX_BYTES) {
		printf("skip %s (%lld bytes)\n", path,
		       (long long)st->st_size);
		t->skipped++;
		return 0;
	}
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	/* One spare byte so a zero-length input still has a buffer. */
	buf = malloc((size_t)st->st_size + 1);
	if (!buf) {
		fclose(f);
		fprintf(stderr, "replay: out of memory for %s\n", path);
		return -1;
	}
	n = fread(buf, 1, (size_t)st->st_size, f);
	if (ferror(f) || n != (size_t)st->st_size) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* Named before it runs, so an abort's log says which input. */
	printf("run  %s\n", path);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	t->ran++;
	return 0;
}

static int
replay_dir(const char *path, struct tally *t)
{
	char **names = NULL, **nn, *child;
	size_t n = 0, cap = 0, i, len;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				fprintf(stderr, "replay: out of memory\n");
				rc = -1;
				break;
			}
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			fprintf(stderr, "replay: out of memory\n");
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc == 0)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n && rc == 0; i++) {
		len = strlen(path) + strlen(names[i]) + 2;
		child = malloc(len);
		if (!child) {
			fprintf(stderr, "replay: out of memory\n");
			rc = -1;
			break;
		}
		snprintf(child, len, "%s/%s", path, names[i]);
		rc = replay_path(child, t);
		free(child);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int
replay_path(const char *path, struct tally *t)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return replay_dir(path, t);
	if (S_ISREG(st.st_mode))
		return replay_file(path, &st, t);
	return 0;	/* sockets, devices: not inputs */
}

int
main(int argc, char **argv)
{
	struct tally t = { 0, 0 };
	int i;

	if (argc < 2) {
		fprintf(stderr, "Usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		/* A missing corpus must fail the test, not pass it empty. */
		if (replay_path(argv[i], &t) != 0)
			return 1;
	printf("%lu inputs ran, %lu skipped (over 1 MiB)\n", t.ran,
	       t.skipped);
	return 0;
}
