/* SPDX-License-Identifier: MIT */
/*
 * The CLI's voice: every diagnostic line on stderr and the exit code of a
 * failed input, in one file of their own (curl's tool_msgs.c), so the
 * commands in cli_*.c speak without calling back into the dispatcher.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/escape.h"
#include "core/source.h"

void
qa_cli_say(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("quantaudit: ", stderr);
	qa_esc_text(stderr, buf);
	fputc('\n', stderr);
}

int
qa_cli_exit_of(int status)
{
	switch (status) {
	case QA_E_UNRECOGNIZED:
		return QA_EXIT_UNRECOGNIZED;
	case QA_E_USAGE:
		return QA_EXIT_USAGE;
	default:
		return QA_EXIT_SYSTEM;
	}
}
