/* SPDX-License-Identifier: MIT */
/*
 * The command-line front end. Only the CLI knows argv, stdout, stderr and
 * exit codes.
 */
#ifndef QA_SRC_CLI_H
#define QA_SRC_CLI_H

/* Exit codes (DESIGN.md "CLI"). */
enum qa_exit {
	QA_EXIT_PASS = 0,	/* nothing at or above --fail-on */
	QA_EXIT_FAIL = 1,	/* findings at or above --fail-on */
	QA_EXIT_USAGE = 2,	/* bad arguments, nothing read */
	QA_EXIT_UNRECOGNIZED = 3,	/* input not recognized: no audit */
	QA_EXIT_SYSTEM = 4,	/* I/O error, out of memory */
};

/* Writes "quantaudit: " and the formatted line to stderr, everything in
 * it escaped for a terminal and a CI log (core/escape.h): every
 * diagnostic of the CLI goes through here. */
void qa_cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The exit code of a failed input's status (QA_E_*). */
int qa_cli_exit_of(int status);

/* Runs quantaudit with argv; returns the process exit code. */
int qa_cli_main(int argc, char **argv);

#endif /* QA_SRC_CLI_H */
