/* SPDX-License-Identifier: MIT */
/*
 * The rule registry compiled from rules/registry.def.
 */
#include "core/diag.h"

static const struct qa_rule rules[] = {
#define QA_RULE(c, i, cat, sev, s, d) \
	{ .code = c, .id = i, .category = QA_CAT_##cat, \
	  .severity = QA_SEV_##sev, .summary = s, .doc = d },
#include "rules/registry_all.def"
#undef QA_RULE
};

const struct qa_rule *
qa_rule_find(unsigned code)
{
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].code == code)
			return &rules[i];
	return NULL;
}

const struct qa_rule *
qa_rules(size_t *n)
{
	*n = sizeof(rules) / sizeof(rules[0]);
	return rules;
}

const char *
qa_severity_name(enum qa_severity s)
{
	switch (s) {
	case QA_SEV_INFO:
		return "info";
	case QA_SEV_WARNING:
		return "warning";
	case QA_SEV_ERROR:
		return "error";
	case QA_SEV_NONE:
		return "never";
	}
	return "?";
}

const char *
qa_category_name(enum qa_category c)
{
	switch (c) {
	case QA_CAT_INTEGRITY:
		return "integrity";
	case QA_CAT_COMPLETENESS:
		return "completeness";
	case QA_CAT_PRECISION:
		return "precision";
	case QA_CAT_FIT:
		return "fit";
	case QA_CAT_COMPATIBILITY:
		return "compatibility";
	case QA_CAT_SECURITY:
		return "security";
	case QA_CAT_METADATA:
		return "metadata";
	}
	return "?";
}
