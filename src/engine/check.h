/* SPDX-License-Identifier: MIT */
/*
 * The rule engine: built-in checks that look at a whole inventory after
 * the formats have filled it (MTP completeness, config-versus-tensor
 * consistency, tokenizer sanity, chat-template safety, engine/GPU
 * knowledge), user policy rules, and the severity overrides that a command
 * line or a rule file applies to every finding.
 *
 * Checks only add findings (qa_inv_finding / qa_inv_finding_rule); they
 * never print or exit. Each check family lives in rules/check_*.c and is
 * listed in src/check.c.
 */
#ifndef QA_SRC_CHECK_H
#define QA_SRC_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"

struct qa_policy;	/* user rule file, rules/policy.c */
struct qa_fit_options;	/* src/fit.h */

struct qa_check_options {
	const char *engine;		/* "llama.cpp", "vllm", or NULL */
	const char *gpus;		/* GPU spec as given, or NULL */
	const struct qa_policy *policy;	/* user rules, or NULL */
	const struct qa_fit_options *fit;	/* options of inv->fit (the fit
						 * check), or NULL */
};

struct qa_check {
	const char *name;	/* family name, e.g. "mtp" */
	void (*run)(struct qa_inventory *inv,
		    const struct qa_check_options *opt);
};

/* The built-in check families, in the order they run. */
extern const struct qa_check qa_check_mtp;		/* rules/check_mtp.c */
extern const struct qa_check qa_check_consistency;	/* rules/check_consistency.c */
extern const struct qa_check qa_check_tokenizer;	/* rules/check_tokenizer.c */
extern const struct qa_check qa_check_template;		/* rules/check_template.c */
extern const struct qa_check qa_check_knowledge;	/* rules/check_knowledge.c */
extern const struct qa_check qa_check_fit;		/* rules/check_fit.c */
extern const struct qa_check qa_check_quant;		/* rules/check_quant.c */

/* Runs every built-in check, then the user policy if any. */
void qa_checks_run(struct qa_inventory *inv,
		   const struct qa_check_options *opt);

/*
 * Severity overrides and disabled rules, from --severity CODE=SEV,
 * --disable CODE and a rule file's "overrides" section. A rule is named by
 * its code ("QA1305") or its id ("index-extra-shard").
 */
struct qa_override {
	uint16_t code;
	bool disabled;
	enum qa_severity severity;	/* when not disabled */
};

struct qa_overrides {
	struct qa_override items[256];
	size_t n;
};

/* Resolves a rule name (code "QA1305", "1305" or id) to its registry
 * entry, also searching the policy's user rules when policy != NULL. */
const struct qa_rule *qa_rule_lookup(const char *name,
				     const struct qa_policy *policy);

/*
 * Parses "NAME=SEVERITY" (severity error|warning|info|off) and adds it.
 * Returns 0, or -1 with a one-line message in err.
 */
int qa_overrides_add(struct qa_overrides *ov, const char *spec,
		     const struct qa_policy *policy, char *err,
		     size_t errlen);
/* Adds "disable NAME". Returns 0 or -1 with a message in err. */
int qa_overrides_disable(struct qa_overrides *ov, const char *name,
			 const struct qa_policy *policy, char *err,
			 size_t errlen);
/* Rewrites the severity of every finding and removes disabled ones. */
void qa_overrides_apply(struct qa_inventory *inv,
			const struct qa_overrides *ov);

#endif /* QA_SRC_CHECK_H */
