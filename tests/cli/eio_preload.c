/* SPDX-License-Identifier: MIT */
/*
 * A disk that fails: preloaded (LD_PRELOAD) by tests/cli/test_io_errors.py,
 * it makes reads of one file fail from one offset on, as a bad sector or a
 * network file system that drops out does. Reads of other files pass
 * through.
 *
 *   QA_FAIL_FILE  the file's real path (as /proc/self/fd/N names it)
 *   QA_FAIL_AT    the offset of the first byte that cannot be read
 *   QA_FAIL_MODE  "eio" (default): pread fails with EIO there; "eof": the
 *                 file ends there (pread returns 0), as a file cut short
 *                 by another process while it is read
 *
 * A read that spans the offset returns the bytes before it (a short read,
 * as the kernel gives), so the next read starts exactly there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t pread64(int fd, void *buf, size_t n, off_t off);

/* 1: the read starts at or past the failing offset; 0: it may go on
 * (*n cut to stop there) */
static int
fails(int fd, off_t off, size_t *n)
{
	const char *file = getenv("QA_FAIL_FILE");
	const char *at_s = getenv("QA_FAIL_AT");
	char link[64], path[4096];
	unsigned long long at;
	ssize_t k;

	if (!file || !at_s)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	k = readlink(link, path, sizeof(path) - 1);
	if (k <= 0)
		return 0;
	path[k] = '\0';
	if (strcmp(path, file) != 0)
		return 0;
	at = strtoull(at_s, NULL, 10);
	if ((unsigned long long)off >= at)
		return 1;
	if ((unsigned long long)off + *n > at)
		*n = (size_t)(at - (unsigned long long)off);
	return 0;
}

ssize_t
pread64(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	const char *mode = getenv("QA_FAIL_MODE");

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pread64");
	if (fails(fd, off, &n)) {
		if (mode && strcmp(mode, "eof") == 0)
			return 0;
		errno = EIO;
		return -1;
	}
	return real(fd, buf, n, off);
}
