/* SPDX-License-Identifier: MIT */
/*
 * The rule registry compiled from rules/registry.def.
 */
#include "core/diag.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The registry is stored without pointers, so that it stays in read-only
 * pages shared with the page cache: a position-independent executable
 * relocates every pointer of a const table at start-up, which writes (and
 * so copies) each page of it, in every run, whether the run reports a
 * finding or not (issue 31: 7.5 KiB of the 40 KiB of .data.rel.ro were
 * this table's four strings per rule). The strings are one pool, a struct
 * with one char array per string, and each row holds offsets into it.
 *
 * The public struct qa_rule keeps its pointers: a row becomes a struct
 * qa_rule in `made` the first time a caller asks for it, so a run writes
 * only the rows of the rules it reports. Rows are made under a per-row
 * state (free -> making -> made) because findings are raised from the
 * hashing threads too.
 */
static const struct rule_pool {
#define QA_RULE(c, i, cat, sev, s, d) \
	char id_##c[sizeof(i)]; char summary_##c[sizeof(s)]; char doc_##c[sizeof(d)];
#include "rules/registry_all.def"
#undef QA_RULE
	char end;
} pool = {
#define QA_RULE(c, i, cat, sev, s, d) i, s, d,
#include "rules/registry_all.def"
#undef QA_RULE
	0
};

struct rule_row {
	uint16_t code;
	uint8_t category;	/* enum qa_category */
	uint8_t severity;	/* enum qa_severity */
	uint32_t id, summary, doc;	/* offsets into pool */
};

static const struct rule_row rows[] = {
#define QA_RULE(c, i, cat, sev, s, d) \
	{ .code = c, .category = QA_CAT_##cat, .severity = QA_SEV_##sev, \
	  .id = offsetof(struct rule_pool, id_##c), \
	  .summary = offsetof(struct rule_pool, summary_##c), \
	  .doc = offsetof(struct rule_pool, doc_##c) },
#include "rules/registry_all.def"
#undef QA_RULE
};

#define N_RULES (sizeof(rows) / sizeof(rows[0]))

enum { ROW_FREE, ROW_MAKING, ROW_MADE };

static struct qa_rule made[N_RULES];
static atomic_uchar row_state[N_RULES];

static const struct qa_rule *
rule_at(size_t i)
{
	unsigned char st = atomic_load_explicit(&row_state[i], memory_order_acquire);
	unsigned char expect = ROW_FREE;
	const char *base = (const char *)&pool;

	if (st == ROW_MADE)
		return &made[i];
	if (atomic_compare_exchange_strong_explicit(&row_state[i], &expect, ROW_MAKING,
						    memory_order_acquire, memory_order_acquire)) {
		made[i].code = rows[i].code;
		made[i].id = base + rows[i].id;
		made[i].category = (enum qa_category)rows[i].category;
		made[i].severity = (enum qa_severity)rows[i].severity;
		made[i].summary = base + rows[i].summary;
		made[i].doc = base + rows[i].doc;
		atomic_store_explicit(&row_state[i], ROW_MADE, memory_order_release);
		return &made[i];
	}
	/* another thread is making it: a few stores away */
	while (atomic_load_explicit(&row_state[i], memory_order_acquire) != ROW_MADE)
		;
	return &made[i];
}

const struct qa_rule *
qa_rule_find(unsigned code)
{
	size_t i;

	for (i = 0; i < N_RULES; i++)
		if (rows[i].code == code)
			return rule_at(i);
	return NULL;
}

const struct qa_rule *
qa_rules(size_t *n)
{
	size_t i;

	for (i = 0; i < N_RULES; i++)
		(void)rule_at(i);
	*n = N_RULES;
	return made;
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

bool
qa_severity_parse(const char *s, const char *none_word, enum qa_severity *out)
{
	if (strcmp(s, "error") == 0)
		*out = QA_SEV_ERROR;
	else if (strcmp(s, "warning") == 0)
		*out = QA_SEV_WARNING;
	else if (strcmp(s, "info") == 0)
		*out = QA_SEV_INFO;
	else if (none_word && strcmp(s, none_word) == 0)
		*out = QA_SEV_NONE;
	else
		return false;
	return true;
}

/* "QA1305", "qa1305" or "1305" -> 1305; -1 if not of that form. */
static long
parse_code(const char *s)
{
	char *end;
	long v;

	if ((s[0] == 'Q' || s[0] == 'q') && (s[1] == 'A' || s[1] == 'a'))
		s += 2;
	if (*s < '0' || *s > '9')
		return -1;
	v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 9999)
		return -1;
	return v;
}

static const struct qa_rule *
lookup_in(const struct qa_rule *r, size_t n, long code, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((code >= 0 && r[i].code == code) ||
		    strcmp(r[i].id, name) == 0)
			return &r[i];
	return NULL;
}

const struct qa_rule *
qa_rule_lookup(const char *name, const struct qa_rule *extra, size_t n_extra)
{
	long code = parse_code(name);
	size_t n_rules;
	const struct qa_rule *all = qa_rules(&n_rules);
	const struct qa_rule *r;

	r = lookup_in(all, n_rules, code, name);
	if (!r && extra)
		r = lookup_in(extra, n_extra, code, name);
	return r;
}

int
qa_overrides_set(struct qa_overrides *ov, const char *name,
		 enum qa_severity sev, const struct qa_rule *extra,
		 size_t n_extra, char *err, size_t errlen)
{
	const struct qa_rule *rule = qa_rule_lookup(name, extra, n_extra);
	struct qa_override *o = NULL;
	size_t i;

	if (!rule) {
		snprintf(err, errlen, "unknown rule '%s' (see 'quantaudit "
			 "rules')", name);
		return -1;
	}
	for (i = 0; i < ov->n && !o; i++)
		if (ov->items[i].code == rule->code)
			o = &ov->items[i];
	if (!o) {
		if (ov->n == sizeof(ov->items) / sizeof(ov->items[0])) {
			snprintf(err, errlen, "too many overrides");
			return -1;
		}
		o = &ov->items[ov->n++];
		o->code = rule->code;
	}
	o->disabled = sev == QA_SEV_NONE;
	o->severity = sev;
	return 0;
}

int
qa_overrides_parse(struct qa_overrides *ov, const char *spec,
		   const struct qa_rule *extra, size_t n_extra, char *err,
		   size_t errlen)
{
	const char *eq = strchr(spec, '=');
	enum qa_severity sev;
	char name[128];
	size_t k;

	if (!eq || eq == spec || (k = (size_t)(eq - spec)) >= sizeof(name)) {
		snprintf(err, errlen, "'%s' is not RULE=SEVERITY", spec);
		return -1;
	}
	memcpy(name, spec, k);
	name[k] = '\0';
	if (!qa_rule_lookup(name, extra, n_extra)) {
		snprintf(err, errlen, "unknown rule '%s' (see 'quantaudit "
			 "rules')", name);
		return -1;
	}
	if (!qa_severity_parse(eq + 1, "off", &sev)) {
		snprintf(err, errlen, "unknown severity '%s' in '%s' (error, "
			 "warning, info or off)", eq + 1, spec);
		return -1;
	}
	return qa_overrides_set(ov, name, sev, extra, n_extra, err, errlen);
}
