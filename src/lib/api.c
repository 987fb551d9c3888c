/* SPDX-License-Identifier: MIT */
/*
 * libquantaudit's public API (include/quantaudit.h) over the command
 * line's own pipeline: each call runs qa_cli_main with --format json into
 * an anonymous file and returns what it wrote. Going through the CLI
 * rather than beside it keeps one meaning for every option and one
 * report: the library cannot drift from `quantaudit COMMAND --format
 * json`, and the Python module (python/quantaudit) gets the same dicts.
 *
 * The run itself is src/cli/cli_capture.c (qa_cli_report). --quiet
 * keeps the CLI's diagnostics off the caller's stderr: what they say is
 * in the report (its findings and "errors").
 */
#define _GNU_SOURCE
#include "quantaudit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"

struct quantaudit_model {
	char *path;
	char *json;
};

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

char *
quantaudit_report(const char *command, const char *const *paths,
		  size_t n_paths, const char *const *options, int *exit_code,
		  char **error)
{
	return qa_cli_report(qa_cli_main, command, paths, n_paths, options,
			     exit_code, error);
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
