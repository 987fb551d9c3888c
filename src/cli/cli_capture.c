/* SPDX-License-Identifier: MIT */
/*
 * A command's JSON report as a string (cli.h qa_cli_report), for
 * libquantaudit (src/lib/api.c) and `quantaudit serve` (cli_serve.c):
 * qa_cli_main runs with --format json --quiet into an anonymous file and
 * what it wrote is returned. Going through the CLI rather than beside it
 * keeps one meaning for every option and one report.
 *
 * The report goes to a memfd (an anonymous file, Linux 3.17, glibc
 * 2.27) named to the CLI as /proc/self/fd/N; where that is missing, to
 * a file made with mkstemp in $TMPDIR and unlinked after the run.
 */
#define _GNU_SOURCE
#include "cli/cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* getopt keeps its state in globals, and so does the CLI's parser. */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_error(char **error, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
set_error(char **error, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	if (!error)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	*error = strdup(buf);
}

/* An anonymous file for the report and the path that names it; -1 when
 * neither kind can be made. */
static int
report_file(char *name, size_t size)
{
	int fd = -1;

#ifdef MFD_CLOEXEC
	fd = memfd_create("quantaudit-report", MFD_CLOEXEC);
	if (fd >= 0) {
		snprintf(name, size, "/proc/self/fd/%d", fd);
		if (access(name, W_OK) == 0)
			return fd;
		close(fd);
	}
#endif
	{
		const char *tmp = getenv("TMPDIR");

		snprintf(name, size, "%s/quantaudit-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		fd = mkstemp(name);
		if (fd < 0)
			return -1;
		/* The CLI opens it by name once; the name is not needed
		 * after that, but must exist until then: unlinked by the
		 * caller after the run. */
		return fd;
	}
}

/* Everything in fd from its start, NUL-terminated; NULL when empty or
 * out of memory. */
static char *
slurp(int fd)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	ssize_t r;

	if (!buf || lseek(fd, 0, SEEK_SET) < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (len == 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static bool
known_command(const char *c)
{
	static const char *const ok[] = {
		"inspect", "tensors", "check", "fit", "scan", "diff",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(c, ok[i]) == 0)
			return true;
	return false;
}

char *
qa_cli_report(qa_cli_entry entry, const char *command,
	      const char *const *paths, size_t n_paths,
	      const char *const *options, int *exit_code, char **error)
{
	char name[4096], **argv = NULL, *doc = NULL;
	size_t n_opt = 0, argc = 0, i;
	int fd, rc;

	if (exit_code)
		*exit_code = QA_EXIT_USAGE;
	if (error)
		*error = NULL;
	if (!command || !known_command(command)) {
		set_error(error, "unknown command '%s' (inspect, tensors, "
			  "check, fit, scan or diff)", command ? command : "");
		return NULL;
	}
	for (i = 0; i < n_paths; i++)
		if (!paths[i]) {
			set_error(error, "path %zu is NULL", i);
			return NULL;
		}
	while (options && options[n_opt])
		n_opt++;
	fd = report_file(name, sizeof(name));
	if (fd < 0) {
		set_error(error, "no file for the report: %s",
			  strerror(errno));
		if (exit_code)
			*exit_code = QA_EXIT_SYSTEM;
		return NULL;
	}
	argv = calloc(n_opt + n_paths + 10, sizeof(*argv));
	if (!argv) {
		close(fd);
		set_error(error, "out of memory");
		if (exit_code)
			*exit_code = QA_EXIT_SYSTEM;
		return NULL;
	}
	argv[argc++] = (char *)"quantaudit";
	argv[argc++] = (char *)command;
	argv[argc++] = (char *)"--format";
	argv[argc++] = (char *)"json";
	argv[argc++] = (char *)"--quiet";
	argv[argc++] = (char *)"--output";
	argv[argc++] = name;
	for (i = 0; i < n_opt; i++)
		argv[argc++] = (char *)options[i];
	argv[argc++] = (char *)"--";
	for (i = 0; i < n_paths; i++)
		argv[argc++] = (char *)paths[i];

	pthread_mutex_lock(&run_lock);
	fflush(stdout);
	rc = entry((int)argc, argv);
	pthread_mutex_unlock(&run_lock);

	if (strncmp(name, "/proc/", 6) != 0)
		unlink(name);
	doc = slurp(fd);
	close(fd);
	free(argv);
	if (exit_code)
		*exit_code = rc;
	if (!doc) {
		if (rc == QA_EXIT_USAGE)
			set_error(error, "quantaudit %s: the options or inputs "
				  "were refused (exit %d; the same words on "
				  "the command line say why)", command, rc);
		else
			set_error(error, "quantaudit %s wrote no report "
				  "(exit %d)", command, rc);
	}
	return doc;
}

