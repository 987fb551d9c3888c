/* SPDX-License-Identifier: MIT */
/*
 * libquantaudit's public API (include/quantaudit.h) over the command
 * line's own pipeline: each call runs qa_cli_main with --format json into
 * an anonymous file and returns what it wrote. Going through the CLI
 * rather than beside it keeps one meaning for every option and one
 * report: the library cannot drift from `quantaudit COMMAND --format
 * json`, and the Python module (python/quantaudit) gets the same dicts.
 *
 * The report goes to a memfd (an anonymous file, Linux 3.17, glibc
 * 2.27) named to the CLI as /proc/self/fd/N; where that is missing, to
 * a file made with mkstemp in $TMPDIR and unlinked at once. -q keeps the
 * CLI's diagnostics off the caller's stderr: what they say is in the
 * report (its findings and "errors").
 */
#define _GNU_SOURCE
#include "quantaudit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"

struct quantaudit_model {
	char *path;
	char *json;
};

/* getopt keeps its state in globals, and so does the CLI's parser. */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

const char *
quantaudit_version(void)
{
	return QA_VERSION;
}

void
quantaudit_free(void *p)
{
	free(p);
}

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
quantaudit_report(const char *command, const char *const *paths,
		  size_t n_paths, const char *const *options, int *exit_code,
		  char **error)
{
	char name[4096], **argv = NULL, *doc = NULL;
	size_t n_opt = 0, argc = 0, i;
	int fd, rc;

	if (exit_code)
		*exit_code = QUANTAUDIT_USAGE;
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
			*exit_code = QUANTAUDIT_SYSTEM;
		return NULL;
	}
	argv = calloc(n_opt + n_paths + 10, sizeof(*argv));
	if (!argv) {
		close(fd);
		set_error(error, "out of memory");
		if (exit_code)
			*exit_code = QUANTAUDIT_SYSTEM;
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
	rc = qa_cli_main((int)argc, argv);
	pthread_mutex_unlock(&run_lock);

	if (strncmp(name, "/proc/", 6) != 0)
		unlink(name);
	doc = slurp(fd);
	close(fd);
	free(argv);
	if (exit_code)
		*exit_code = rc;
	if (!doc) {
		if (rc == QUANTAUDIT_USAGE)
			set_error(error, "quantaudit %s: the options or inputs "
				  "were refused (exit %d; the same words on "
				  "the command line say why)", command, rc);
		else
			set_error(error, "quantaudit %s wrote no report "
				  "(exit %d)", command, rc);
	}
	return doc;
}

/* The first "message" of the report's "errors", as written (JSON
 * escapes kept), malloc'd; NULL when there is none. */
static char *
first_error(const char *doc)
{
	const char *e = strstr(doc, "\"errors\"");
	const char *m, *p;
	char *s;

	if (!e || !(m = strstr(e, "\"message\": \"")))
		return NULL;
	m += strlen("\"message\": \"");
	for (p = m; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	s = malloc((size_t)(p - m) + 1);
	if (s) {
		memcpy(s, m, (size_t)(p - m));
		s[p - m] = '\0';
	}
	return s;
}

quantaudit_model *
quantaudit_open(const char *path, int *exit_code, char **error)
{
	quantaudit_model *m;
	char *doc;
	int rc;

	if (error)
		*error = NULL;
	if (!path) {
		set_error(error, "no path");
		if (exit_code)
			*exit_code = QUANTAUDIT_USAGE;
		return NULL;
	}
	doc = quantaudit_report("inspect", &path, 1, NULL, &rc, error);
	if (exit_code)
		*exit_code = rc;
	if (!doc)
		return NULL;
	if (rc == QUANTAUDIT_UNRECOGNIZED || rc == QUANTAUDIT_SYSTEM) {
		char *why = first_error(doc);

		set_error(error, "%s: not audited (exit %d)", path, rc);
		if (why && error) {
			free(*error);
			*error = why;
		} else {
			free(why);
		}
		free(doc);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		free(doc);
		set_error(error, "out of memory");
		if (exit_code)
			*exit_code = QUANTAUDIT_SYSTEM;
		return NULL;
	}
	m->json = doc;
	return m;
}

const char *
quantaudit_model_path(const quantaudit_model *m)
{
	return m ? m->path : NULL;
}

const char *
quantaudit_model_json(const quantaudit_model *m)
{
	return m ? m->json : NULL;
}

void
quantaudit_close(quantaudit_model *m)
{
	if (!m)
		return;
	free(m->path);
	free(m->json);
	free(m);
}

char *
quantaudit_model_report(const quantaudit_model *m, const char *command,
			const char *const *options, int *exit_code,
			char **error)
{
	const char *path;

	if (!m) {
		if (exit_code)
			*exit_code = QUANTAUDIT_USAGE;
		set_error(error, "no model");
		return NULL;
	}
	path = m->path;
	return quantaudit_report(command, &path, 1, options, exit_code,
				 error);
}
