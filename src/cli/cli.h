/* SPDX-License-Identifier: MIT */
/*
 * The command-line front end. Only the CLI knows argv, stdout, stderr and
 * exit codes.
 */
#ifndef QA_SRC_CLI_H
#define QA_SRC_CLI_H

#include <stddef.h>

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

/* The command and option tables of cli.c, row by row (for cli_docs.c). */
size_t qa_cli_n_commands(void);
const char *qa_cli_command(size_t i, const char **synopsis,
			   const char **summary, const char **description);
size_t qa_cli_n_options(void);
/* command_mask: bit i set when the option belongs to command i. */
const char *qa_cli_option(size_t i, char *short_name, const char **arg,
			  const char **help, unsigned *command_mask);
/* The option's help group: its title, and *order its place among the
 * groups (--help's order). */
const char *qa_cli_option_group(size_t i, size_t *order);
size_t qa_cli_n_option_groups(void);
/* The grammar of the option's value from its kind ("a number from 1 to
 * 256"), the words of its usage error; empty when the help says it. */
void qa_cli_option_grammar(size_t i, char *buf, size_t size);
/* The --engine names, i from 0 until NULL. */
const char *qa_cli_engine(size_t i);
const char *qa_cli_paths_text(void);
const char *qa_cli_exit_text(void);

/*
 * The JSON report of `quantaudit COMMAND --format json --quiet OPTIONS
 * -- PATHS` as a string (malloc'd; src/cli/cli_capture.c), and the exit
 * code; NULL when nothing was written, with *error (malloc'd) saying
 * why. Calls are serialised (getopt's state is global).
 */
/* The entry a capture runs: qa_cli_main, given by the caller (the
 * library, the MCP server) so that cli_capture.c does not call back into
 * the dispatcher that reaches it. */
typedef int (*qa_cli_entry)(int argc, char **argv);

char *qa_cli_report(qa_cli_entry entry, const char *command,
		    const char *const *paths, size_t n_paths,
		    const char *const *options, int *exit_code,
		    char **error);

/* `quantaudit serve --stdio`: a Model Context Protocol server on stdin
 * and stdout (src/cli/cli_serve.c). Returns the exit code. */
int qa_cli_serve(qa_cli_entry entry);

/* `quantaudit --help-man [COMMAND]` (a man page on stdout) and
 * `quantaudit --completions bash|zsh|fish` (src/cli/cli_docs.c). */
int qa_cli_docs(int argc, char **argv);

#endif /* QA_SRC_CLI_H */
