/* SPDX-License-Identifier: MIT */
/*
 * Rule registry and findings.
 *
 * The registry (rules/registry.def) gives every rule a stable QA code, a
 * kebab-case id, a category, a default severity and its texts. Parsers add
 * findings by code with a formatted detail message; the file, offset and
 * tensor are attached when known. Findings live in the inventory's arena.
 */
#ifndef QA_SRC_DIAG_H
#define QA_SRC_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum qa_severity {
	QA_SEV_INFO = 0,
	QA_SEV_WARNING = 1,
	QA_SEV_ERROR = 2,
	QA_SEV_NONE = 3,	/* --fail-on never */
};

enum qa_category {
	QA_CAT_INTEGRITY,
	QA_CAT_COMPLETENESS,
	QA_CAT_PRECISION,
	QA_CAT_FIT,
	QA_CAT_COMPATIBILITY,
	QA_CAT_SECURITY,
	QA_CAT_METADATA,
};

struct qa_rule {
	uint16_t code;			/* QA<code>, never reused */
	const char *id;			/* kebab-case */
	enum qa_category category;
	enum qa_severity severity;	/* default */
	const char *summary;		/* one line */
	const char *doc;		/* paragraph */
};

/* Rule codes as an enum, generated from the registry. */
enum qa_rule_code {
#define QA_RULE(code, id, cat, sev, summary, doc) QA##code = code,
#include "rules/registry_all.def"
#undef QA_RULE
};

/* Registry lookup; NULL when the code is not registered. */
const struct qa_rule *qa_rule_find(unsigned code);
/* All rules in code order; *n receives the count. */
const struct qa_rule *qa_rules(size_t *n);

const char *qa_severity_name(enum qa_severity s);
const char *qa_category_name(enum qa_category c);

struct qa_finding {
	const struct qa_rule *rule;
	enum qa_severity severity;	/* effective severity */
	const char *message;		/* detail, arena-owned */
	const char *file;		/* display path or NULL */
	int64_t offset;			/* byte offset in file, -1 if none */
	const char *tensor;		/* tensor name or NULL */
};

#endif /* QA_SRC_DIAG_H */
