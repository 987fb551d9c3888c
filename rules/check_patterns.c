/* SPDX-License-Identifier: MIT */
/*
 * Hostile patterns in quantization configs (QA6101-QA6102): the facts
 * src/analysis/claims.c leaves on the config when it resolves the
 * claims. A regular expression beyond the bounds it is compiled within
 * (analysis/pyregex.h: length, expanded repeat size, repeat nesting,
 * alternatives, group depth) is never compiled and reported (QA6101):
 * POSIX regcomp expands bounded repeats and never returns on a 300-byte
 * config.json with ((a{0,1000}){0,1000}). Matching patterns against the
 * module names is bounded too; a config that needs more than that is
 * reported (QA6102) and its unevaluated pairs count as unknown.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/pyregex.h"
#include "rules/check.h"

/* Patterns reported one by one; the rest are counted. */
#define MAX_REPORTED 8

static void
one(struct qa_inventory *inv, const struct qa_quant_pattern *p,
    unsigned *reported, unsigned *more)
{
	struct qa_regex_cost cost;
	char why[96], shown[72];
	size_t i, n;

	if (!p->too_complex)
		return;
	if (*reported >= MAX_REPORTED) {
		(*more)++;
		return;
	}
	(*reported)++;
	why[0] = '\0';
	qa_py_regex_cost(p->text, &cost, why, sizeof(why));
	/* the pattern is the model's text: printable, bounded */
	n = strlen(p->text);
	for (i = 0; i < n && i < sizeof(shown) - 4; i++)
		shown[i] = p->text[i] >= 0x20 && p->text[i] < 0x7f ?
			   p->text[i] : '?';
	if (i < n)
		memcpy(shown + i, "...", 4);
	else
		shown[i] = '\0';
	qa_inv_finding(inv, QA6101, inv->quant.file, -1, NULL,
		       "%s entry '%s': %s; not compiled, so the modules it "
		       "names are not judged", p->source ? p->source :
		       "pattern", shown, why);
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	const struct qa_quant_config *qc = &inv->quant;
	unsigned reported = 0, more = 0;
	uint32_t i;

	(void)opt;
	for (i = 0; i < qc->n_exclude; i++)
		one(inv, &qc->exclude[i], &reported, &more);
	for (i = 0; i < qc->n_overrides; i++)
		one(inv, &qc->overrides[i].pattern, &reported, &more);
	for (i = 0; i < qc->n_targets; i++)
		one(inv, &qc->targets[i], &reported, &more);
	if (more)
		qa_inv_finding(inv, QA6101, qc->file, -1, NULL,
			       "%u more patterns are too complex to compile",
			       more);
	if (qc->patterns_capped)
		qa_inv_finding(inv, QA6102, qc->file, -1, NULL,
			       "matching the %u patterns of the quantization "
			       "config against the checkpoint's module names "
			       "stopped after %llu evaluations (the bound on "
			       "matching work per model); the rest count as "
			       "unknown", qc->n_exclude + qc->n_overrides +
			       qc->n_targets,
			       (unsigned long long)qc->pattern_evals);
}

const struct qa_check qa_check_patterns = { "patterns", run, true };
