/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include "policy.h"
#include <stdio.h>
struct qa_policy *qa_policy_load(const char *path, char *err, size_t errlen) { snprintf(err, errlen, "%s: rule files are not supported yet", path); return NULL; }
void qa_policy_destroy(struct qa_policy *p) { (void)p; }
const struct qa_rule *qa_policy_rules(const struct qa_policy *p, size_t *n) { (void)p; *n = 0; return NULL; }
int qa_policy_overrides(const struct qa_policy *p, struct qa_overrides *ov, char *err, size_t errlen) { (void)p; (void)ov; (void)err; (void)errlen; return 0; }
void qa_policy_run(const struct qa_policy *p, struct qa_inventory *inv) { (void)p; (void)inv; }
