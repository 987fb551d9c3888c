/* SPDX-License-Identifier: MIT */
/*
 * The rule engine: the table of check families (rules/check.h) and the
 * runner that applies them to an inventory, in table order.
 */
#ifndef QA_ENGINE_ENGINE_H
#define QA_ENGINE_ENGINE_H

#include "core/inventory.h"
#include "rules/check.h"

/* Runs every check family of the table on inv (the policy check only
 * when opt->policy is set). Checks only add findings. */
void qa_checks_run(struct qa_inventory *inv,
		   const struct qa_check_options *opt);

/* The table, NULL-terminated, for listings and tests. */
extern const struct qa_check *const qa_check_table[];

#endif /* QA_ENGINE_ENGINE_H */
