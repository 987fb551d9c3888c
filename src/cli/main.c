/* SPDX-License-Identifier: MIT */
/*
 * quantaudit entry point: everything happens in qa_cli_main(), but for
 * the hidden generators of the man pages and completions
 * (src/cli/cli_docs.c), which read the option tables through cli.h and so
 * are reached from here, not from the dispatcher they describe.
 */
#include <string.h>

#include "cli/cli.h"

int
main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--help-man") == 0 ||
			 strcmp(argv[1], "--completions") == 0))
		return qa_cli_docs(argc, argv);
	return qa_cli_main(argc, argv);
}
