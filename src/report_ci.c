/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include "report.h"
int qa_report_markdown(FILE *out, struct qa_inventory *const *invs, size_t n, const struct qa_report_options *opt) { (void)out; (void)invs; (void)n; (void)opt; return -1; }
int qa_report_sarif(FILE *out, struct qa_inventory *const *invs, size_t n, const struct qa_report_options *opt) { (void)out; (void)invs; (void)n; (void)opt; return -1; }
int qa_report_junit(FILE *out, struct qa_inventory *const *invs, size_t n, const struct qa_report_options *opt) { (void)out; (void)invs; (void)n; (void)opt; return -1; }
