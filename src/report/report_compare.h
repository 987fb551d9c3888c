/* SPDX-License-Identifier: MIT */
/*
 * The report of `quantaudit compare` (src/compare/compare.h): text,
 * JSON (schema quantaudit-compare/1, docs/compare.md) or Markdown (a
 * pull-request comment). max_rel: the
 * --max-rel-error threshold, 0 for none. 0, or -1 on a write error.
 */
#ifndef QA_REPORT_COMPARE_H
#define QA_REPORT_COMPARE_H

#include <stdio.h>

#include "compare/compare.h"

int qa_report_compare_text(FILE *f, const struct qa_compare *c,
			   double max_rel);
int qa_report_compare_json(FILE *f, const struct qa_compare *c,
			   double max_rel);
int qa_report_compare_markdown(FILE *f, const struct qa_compare *c,
			       double max_rel);

#endif /* QA_REPORT_COMPARE_H */
