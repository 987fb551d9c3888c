/* SPDX-License-Identifier: MIT */
/*
 * The report of `quantaudit diff` (src/compare/diff.h): text, Markdown
 * (a pull request comment), JSON (schema quantaudit-diff/1,
 * docs/diff.md) or HTML (one page, docs/html.md). 0, or -1 on a write
 * error.
 */
#ifndef QA_REPORT_DIFF_H
#define QA_REPORT_DIFF_H

#include <stdio.h>

#include "compare/diff.h"

int qa_report_diff_text(FILE *f, const struct qa_diff *d);
int qa_report_diff_markdown(FILE *f, const struct qa_diff *d);
int qa_report_diff_json(FILE *f, const struct qa_diff *d);
/* One self-contained page (src/report/report_html.c). */
int qa_report_diff_html(FILE *f, const struct qa_diff *d);

#endif /* QA_REPORT_DIFF_H */
