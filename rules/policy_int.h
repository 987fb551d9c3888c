/* SPDX-License-Identifier: MIT */
/*
 * The compiled policy, shared by the two halves of the policy engine:
 * rules/policy_load.c builds it from the JSON file, rules/policy_eval.c
 * runs it over an inventory. Clients include rules/policy.h.
 */
#ifndef QA_RULES_POLICY_INT_H
#define QA_RULES_POLICY_INT_H
#ifndef QA_POLICY_INTERNAL
#error "policy_int.h is the policy engine's own: include rules/policy.h"
#endif

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"

/* ---- the compiled policy ------------------------------------------------ */

/* A size or count limit; text keeps the spelling for messages. */
struct limit {
	bool set;
	uint64_t value;
	const char *text;
};

/* A bits-per-weight bound; text is the dtype name when given as one. */
struct bits_limit {
	bool set;
	double value;
	const char *text;
};

struct name_list {
	const char **items;
	size_t n;
};

struct selector {
	bool roles_set;
	bool role[QA_ROLE_COUNT];
	bool role_mtp;			/* the "mtp" group: t->mtp */
	bool name_set;			/* re is compiled */
	regex_t name_re;
	bool layers_set;
	int64_t layer_from, layer_to;
	struct name_list dtypes;	/* empty: any dtype */
	int mtp;			/* -1 any, 0 not MTP, 1 MTP only */
};

enum pv_type { PV_STRING, PV_NUMBER, PV_BOOL };

struct pol_value {
	enum pv_type type;
	const char *s;
	double num;
	bool b;
};

struct meta_pred {
	const char *key;
	int exists;			/* -1 not given, else 0/1 */
	bool equals_set;
	struct pol_value equals;
	bool matches_set;		/* re is compiled */
	regex_t re;
	const char *matches_text;
	struct pol_value *in;
	size_t n_in;
	bool min_set, max_set;
	double min, max;
};

struct pol_rule {
	struct selector sel;
	/* tensor predicates */
	bool tensor_preds;		/* any of the below is set */
	struct name_list dtype_in, dtype_not_in;
	struct bits_limit min_bits, max_bits;
	int64_t count_min, count_max;	/* -1 unset */
	int exists;			/* -1 unset */
	struct limit bytes_min, bytes_max, params_min, params_max;
	/* model predicates */
	unsigned mtp_status_mask;	/* bit per enum qa_mtp_status; 0 unset */
	int mtp_loadable;		/* -1 unset */
	struct limit file_bytes_min, file_bytes_max;
	struct name_list arch_in, file_type_in;
	struct bits_limit min_model_bits, max_model_bits;
	struct meta_pred *meta;
	size_t n_meta;
};

struct override_entry {
	const char *name;
	const char *severity;		/* error|warning|info|off */
};

struct qa_policy {
	struct qa_arena arena;
	struct qa_rule *rules;
	struct pol_rule *prs;
	size_t n_rules;
	struct override_entry *overrides;
	size_t n_overrides;
};

/* The MTP statuses a policy may name, in enum order. */
#define QA_POLICY_N_MTP_STATUSES 5
extern const enum qa_mtp_status qa_policy_mtp_statuses[QA_POLICY_N_MTP_STATUSES];

/* A printable copy of s for a message: control bytes as '?', cut to 60
 * bytes with "..."; returns buf. */
const char *qa_policy_shown(const char *s, char buf[72]);

#endif /* QA_RULES_POLICY_INT_H */
