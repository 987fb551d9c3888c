/* SPDX-License-Identifier: MIT */
/*
 * quantaudit entry point: everything happens in qa_cli_main().
 */
#include "cli/cli.h"

int
main(int argc, char **argv)
{
	return qa_cli_main(argc, argv);
}
