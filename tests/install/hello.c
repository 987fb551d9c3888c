/* SPDX-License-Identifier: MIT */
/* The smallest program of libquantaudit (include/quantaudit.h): opens the
 * model named by argv[1], prints the library version on stderr and the
 * `check` report on stdout; exits with the audit's exit code. Built by
 * tests/install/test_install.py against the installed library through
 * pkg-config. */
#include <quantaudit.h>
#include <stdio.h>

int
main(int argc, char **argv)
{
	const char *opts[] = { "--fail-on", "warning", NULL };
	quantaudit_model *m;
	char *err = NULL, *doc;
	int rc;

	if (argc != 2)
		return 2;
	fprintf(stderr, "libquantaudit %s\n", quantaudit_version());
	m = quantaudit_open(argv[1], &rc, &err);
	if (!m) {
		fprintf(stderr, "open: %s (exit %d)\n", err ? err : "?", rc);
		quantaudit_free(err);
		return rc;
	}
	doc = quantaudit_model_report(m, "check", opts, &rc, &err);
	if (!doc) {
		fprintf(stderr, "check: %s\n", err ? err : "?");
		quantaudit_free(err);
		quantaudit_close(m);
		return 2;
	}
	fputs(doc, stdout);
	quantaudit_free(doc);
	quantaudit_close(m);
	return rc;
}
