/* SPDX-License-Identifier: MIT */
/*
 * The report of `quantaudit verify` (src/integrity/verify.h): text, a
 * line per difference then the verdict; or JSON, schema
 * quantaudit-verify/1 (docs/integrity.md). 0, or -1 on a write error.
 */
#ifndef QA_REPORT_INTEGRITY_H
#define QA_REPORT_INTEGRITY_H

#include <stdio.h>

#include "integrity/verify.h"

int qa_report_verify_text(FILE *f, const char *path, const char *manifest,
			  const struct qa_verify *v);
int qa_report_verify_json(FILE *f, const char *path, const char *manifest,
			  const struct qa_verify *v);

#endif /* QA_REPORT_INTEGRITY_H */
