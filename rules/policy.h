/* SPDX-License-Identifier: MIT */
/*
 * User policy files: declarative rules in JSON (docs/policy.md) that a
 * team writes without C code — "every attention tensor must be BF16 or
 * F16", "MTP must be present", "no tensor type below Q4_K", "file size
 * <= 30 GB", "metadata key general.license must exist" — plus severity
 * overrides and disabled built-in rules.
 *
 * Ownership: a struct qa_policy owns its rules (struct qa_rule entries
 * with codes in QA9000..QA9999) and must outlive every inventory it was
 * run on, since findings point at those rules.
 */
#ifndef QA_RULES_POLICY_H
#define QA_RULES_POLICY_H

#include <stddef.h>

#include "rules/check.h"
#include "core/diag.h"
#include "core/inventory.h"

struct qa_policy;

/*
 * Loads a rule file. On error returns NULL and writes one line to err
 * naming the file and the JSON path of the problem, e.g.
 *   "team.json: $.rules[2].select.role: unknown role 'atention'".
 */
struct qa_policy *qa_policy_load(const char *path, char *err, size_t errlen);
void qa_policy_destroy(struct qa_policy *p);	/* accepts NULL */

/* The file's rules as registry entries (stable for the policy's life). */
const struct qa_rule *qa_policy_rules(const struct qa_policy *p, size_t *n);

/* Adds the file's "overrides" (severity changes, disabled rules) to ov.
 * Returns 0, or -1 with a message in err. */
int qa_policy_overrides(const struct qa_policy *p, struct qa_overrides *ov,
			char *err, size_t errlen);

/* Rule lookup (see qa_rule_lookup) in the registry and p's own rules. */
const struct qa_rule *qa_policy_rule_lookup(const struct qa_policy *p,
					    const char *name);

/* Evaluates every rule of the policy on inv, adding findings. */
void qa_policy_run(const struct qa_policy *p, struct qa_inventory *inv);

#endif /* QA_RULES_POLICY_H */
