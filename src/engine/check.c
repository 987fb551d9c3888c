/* SPDX-License-Identifier: MIT */
/*
 * Rule engine core: runs the built-in check families and the user policy,
 * resolves rule names, and applies severity overrides.
 */
#include "engine/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/policy.h"

static const struct qa_check *const checks[] = {
	&qa_check_mtp,
	&qa_check_consistency,
	&qa_check_tokenizer,
	&qa_check_template,
	&qa_check_knowledge,
	&qa_check_fit,
	&qa_check_quant,
};

void
qa_checks_run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	size_t i;

	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		checks[i]->run(inv, opt);
	if (opt && opt->policy)
		qa_policy_run(opt->policy, inv);
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

const struct qa_rule *
qa_rule_lookup(const char *name, const struct qa_policy *policy)
{
	const struct qa_rule *r;
	long code = parse_code(name);
	size_t n, i;

	r = qa_rules(&n);
	for (i = 0; i < n; i++)
		if ((code >= 0 && r[i].code == code) ||
		    strcmp(r[i].id, name) == 0)
			return &r[i];
	if (policy) {
		r = qa_policy_rules(policy, &n);
		for (i = 0; i < n; i++)
			if ((code >= 0 && r[i].code == code) ||
			    strcmp(r[i].id, name) == 0)
				return &r[i];
	}
	return NULL;
}

static struct qa_override *
slot(struct qa_overrides *ov, uint16_t code)
{
	size_t i;

	for (i = 0; i < ov->n; i++)
		if (ov->items[i].code == code)
			return &ov->items[i];
	if (ov->n == sizeof(ov->items) / sizeof(ov->items[0]))
		return NULL;
	memset(&ov->items[ov->n], 0, sizeof(ov->items[0]));
	ov->items[ov->n].code = code;
	return &ov->items[ov->n++];
}

int
qa_overrides_add(struct qa_overrides *ov, const char *spec,
		 const struct qa_policy *policy, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	const struct qa_rule *rule;
	struct qa_override *o;
	char name[128];
	const char *sev;
	size_t k;

	if (!eq || eq == spec || (k = (size_t)(eq - spec)) >= sizeof(name)) {
		snprintf(err, errlen, "'%s' is not RULE=SEVERITY", spec);
		return -1;
	}
	memcpy(name, spec, k);
	name[k] = '\0';
	sev = eq + 1;
	rule = qa_rule_lookup(name, policy);
	if (!rule) {
		snprintf(err, errlen, "unknown rule '%s' (see 'quantaudit "
			 "rules')", name);
		return -1;
	}
	o = slot(ov, rule->code);
	if (!o) {
		snprintf(err, errlen, "too many overrides");
		return -1;
	}
	o->disabled = false;
	if (strcmp(sev, "error") == 0)
		o->severity = QA_SEV_ERROR;
	else if (strcmp(sev, "warning") == 0)
		o->severity = QA_SEV_WARNING;
	else if (strcmp(sev, "info") == 0)
		o->severity = QA_SEV_INFO;
	else if (strcmp(sev, "off") == 0)
		o->disabled = true;
	else {
		ov->n--;
		snprintf(err, errlen, "unknown severity '%s' in '%s' (error, "
			 "warning, info or off)", sev, spec);
		return -1;
	}
	return 0;
}

int
qa_overrides_disable(struct qa_overrides *ov, const char *name,
		     const struct qa_policy *policy, char *err,
		     size_t errlen)
{
	const struct qa_rule *rule = qa_rule_lookup(name, policy);
	struct qa_override *o;

	if (!rule) {
		snprintf(err, errlen, "unknown rule '%s' (see 'quantaudit "
			 "rules')", name);
		return -1;
	}
	o = slot(ov, rule->code);
	if (!o) {
		snprintf(err, errlen, "too many overrides");
		return -1;
	}
	o->disabled = true;
	return 0;
}

void
qa_overrides_apply(struct qa_inventory *inv, const struct qa_overrides *ov)
{
	uint32_t i, k = 0;
	size_t j;

	if (!ov || ov->n == 0)
		return;
	for (i = 0; i < inv->n_findings; i++) {
		struct qa_finding f = inv->findings[i];
		bool drop = false;

		for (j = 0; j < ov->n; j++) {
			if (ov->items[j].code != f.rule->code)
				continue;
			if (ov->items[j].disabled)
				drop = true;
			else
				f.severity = ov->items[j].severity;
		}
		if (!drop)
			inv->findings[k++] = f;
	}
	inv->n_findings = k;
}
