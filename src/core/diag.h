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

/*
 * Rule lookup by name: a code ("QA1305", "qa1305", "1305") or an id
 * ("index-extra-shard"), in the registry and then in extra (user policy
 * rules, n_extra of them, may be NULL). NULL when nothing has that name.
 */
const struct qa_rule *qa_rule_lookup(const char *name,
				     const struct qa_rule *extra,
				     size_t n_extra);

const char *qa_severity_name(enum qa_severity s);
const char *qa_category_name(enum qa_category c);

/*
 * The one severity parser: "error", "warning", "info", and the word
 * none_word (NULL for none) as QA_SEV_NONE — "never" for --fail-on, "off"
 * for a severity override. False on anything else.
 */
bool qa_severity_parse(const char *s, const char *none_word,
		       enum qa_severity *out);

struct qa_finding {
	const struct qa_rule *rule;
	enum qa_severity severity;	/* effective severity */
	const char *message;		/* detail, arena-owned */
	const char *file;		/* display path or NULL */
	int64_t offset;			/* byte offset in file, -1 if none */
	const char *tensor;		/* tensor name or NULL */
	uint32_t count;			/* >1: this many grouped into one */
};

/*
 * Severity overrides and disabled rules, from --severity RULE=SEV,
 * --disable RULE and a policy file's "overrides". The last word on a rule
 * wins; qa_inventory_apply_overrides() (core/inventory.h) rewrites the
 * findings.
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

/*
 * Sets the override of the rule named name (see qa_rule_lookup) to
 * severity sev, or disables it when sev is QA_SEV_NONE. Returns 0, or -1
 * with a one-line message in err (unknown rule, too many overrides).
 */
int qa_overrides_set(struct qa_overrides *ov, const char *name,
		     enum qa_severity sev, const struct qa_rule *extra,
		     size_t n_extra, char *err, size_t errlen);
/* "NAME=SEVERITY" (error, warning, info or off); 0 or -1 with err. */
int qa_overrides_parse(struct qa_overrides *ov, const char *spec,
		       const struct qa_rule *extra, size_t n_extra, char *err,
		       size_t errlen);

/* A finding about the setup (engine build, GPUs) rather than a model:
 * reported once per run, not per input. */
struct qa_advisory {
	const struct qa_rule *rule;
	enum qa_severity severity;	/* effective, after overrides */
	char message[640];
};

#endif /* QA_SRC_DIAG_H */
