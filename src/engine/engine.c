/* SPDX-License-Identifier: MIT */
/*
 * The rule engine: one table of check families, run in order. The order
 * matters only for the order of findings in reports: integrity findings
 * come from the loaders first, then completeness (MTP), consistency,
 * tokenizer, template, config patterns, engine/GPU knowledge, fit,
 * quantization, and the user's policy last.
 */
#include "engine/engine.h"

#include <stddef.h>

const struct qa_check *const qa_check_table[] = {
	&qa_check_mtp,
	&qa_check_adapter,
	&qa_check_consistency,
	&qa_check_tokenizer,
	&qa_check_template,
	&qa_check_patterns,
	&qa_check_knowledge,
	&qa_check_fit,
	&qa_check_quant,
	&qa_check_policy,
	NULL,
};

void
qa_checks_run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	size_t i;

	/* A file that is not a model (a LoRA adapter, a projector...) has
	 * none of a model's shape to check: its kind's finding says so. */
	for (i = 0; qa_check_table[i]; i++)
		if (inv->model_kind == QA_MKIND_MODEL ||
		    inv->model_kind == QA_MKIND_DRAFT ||
		    qa_check_table[i]->any_kind)
			qa_check_table[i]->run(inv, opt);
}
