/* SPDX-License-Identifier: MIT */
/*
 * The check interface. A check is a function of the inventory that only
 * adds findings (qa_inv_finding / qa_inv_finding_rule): it reads the
 * facts the loaders and the analysis put there — tensors, hparams, the
 * side-file facts, the MTP summary, the quantization claim and truth, the
 * fit result — and never opens a file, prints, exits or rewrites a fact.
 *
 * Each check family lives in rules/check_*.c; the rule engine
 * (src/engine/engine.c) runs them in table order.
 */
#ifndef QA_RULES_CHECK_H
#define QA_RULES_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"

struct qa_gpu_set;	/* fit/gpuspec.h */
struct qa_policy;	/* user rule file, rules/policy_load.c, rules/policy_eval.c */

/* What the command line adds to the files for the checks. */
struct qa_check_options {
	const char *engine;		/* "llama.cpp", "vllm", "sglang", or NULL */
	const char *engine_build;	/* what followed '@' in --engine
					 * ("cuda12.8", "0.21.0"), or NULL */
	const char *gpus;		/* GPU spec as given, or NULL */
	/* The spec parsed, or NULL: the one the checks read. The CLI
	 * passes the set it parsed; qa_audit_run parses gpus once when a
	 * caller gives only the string (a spec that does not parse leaves
	 * it NULL: no GPU conditions). */
	const struct qa_gpu_set *gpu_set;
	const struct qa_policy *policy;	/* user rules, or NULL */
};

struct qa_check {
	const char *name;	/* family name, e.g. "mtp" */
	void (*run)(struct qa_inventory *inv,
		    const struct qa_check_options *opt);
	/* Also runs on files that are not models (an adapter, a
	 * projector, an importance matrix: inv->model_kind): checks of
	 * what any file may carry (templates, patterns, policy), not of a
	 * model's shape. */
	bool any_kind;
};

/* The built-in check families. */
extern const struct qa_check qa_check_mtp;		/* rules/check_mtp.c */
extern const struct qa_check qa_check_adapter;		/* rules/check_adapter.c */
extern const struct qa_check qa_check_consistency;	/* rules/check_consistency.c */
extern const struct qa_check qa_check_tokenizer;	/* rules/check_tokenizer.c */
extern const struct qa_check qa_check_template;		/* rules/check_template.c */
extern const struct qa_check qa_check_patterns;		/* rules/check_patterns.c */
extern const struct qa_check qa_check_knowledge;	/* rules/check_knowledge.c */
extern const struct qa_check qa_check_fit;		/* rules/check_fit.c */
extern const struct qa_check qa_check_quant;		/* rules/check_quant.c */
extern const struct qa_check qa_check_policy;		/* rules/policy_load.c, rules/policy_eval.c */

/*
 * The setup advisories (rules/engines.def QA_ADVISORY rows) that hold for
 * engine (a name) with opt's build and GPUs: at most cap into out;
 * returns how many. rules/check_knowledge.c
 */
size_t qa_knowledge_advisories(const char *engine,
			       const struct qa_check_options *opt,
			       struct qa_advisory *out, size_t cap);

#endif /* QA_RULES_CHECK_H */
