/* SPDX-License-Identifier: MIT */
/*
 * Reporters: render inventories (and their findings) for people and
 * machines. Reporters only read inventories; they never exit.
 */
#ifndef QA_SRC_REPORT_H
#define QA_SRC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/inventory.h"

struct qa_report_options {
	bool summary;			/* omit the tensor list (--summary) */
	bool color;			/* ANSI colour in text output */
	enum qa_severity fail_on;	/* threshold for the verdict */
	const bool *const *tensor_mask;	/* per input: tensors to list, or
					 * NULL = all (tensors --match) */
	const struct qa_rule *extra_rules;	/* user policy rules (SARIF
						 * rule list, JUnit cases) */
	size_t n_extra_rules;
	bool layers;			/* text: always print the per-layer
					 * precision map (inspect --layers) */
};

/*
 * The per-layer precision map (src/report_text.c): one row per block that
 * holds weight matrices, one column per role present, each cell the
 * precision label of that role in that layer ("Q4_K", "NVFP4", "BF16"),
 * "mix" when the layer holds several, NULL when the role is absent. Built
 * from modules when the inventory has them, otherwise from the 2-D tensors
 * (GGUF: the ggml type). Owned by the caller: qa_layer_map_free().
 */
struct qa_layer_map {
	uint32_t n_rows, n_cols;
	int32_t *layer;		/* per row, ascending */
	bool *mtp;		/* per row: an MTP block */
	enum qa_role *roles;	/* per column, in role order */
	const char **cells;	/* n_rows * n_cols, row-major */
};

/* Fills m (zeroed first); returns 0, or -1 when out of memory. A map with
 * no rows is valid (no block holds a weight matrix). */
int qa_layer_map_build(const struct qa_inventory *inv, struct qa_layer_map *m);
void qa_layer_map_free(struct qa_layer_map *m);
/* Rows in the run starting at row: consecutive layers, same MTP flag,
 * identical cells. */
uint32_t qa_layer_map_run(const struct qa_layer_map *m, uint32_t row);
/* Short column heading of a role in the map ("q", "down", "xup"...). */
const char *qa_layer_map_heading(enum qa_role r);

/* "pass", "warn" or "fail" for one inventory under fail_on: fail when a
 * finding is at or above fail_on, warn when any warning or error remains,
 * pass otherwise. */
const char *qa_verdict(const struct qa_inventory *inv,
		       enum qa_severity fail_on);
/* Worst verdict over several inputs. */
const char *qa_verdict_all(struct qa_inventory *const *invs, size_t n,
			   enum qa_severity fail_on);

/* The quantaudit/1 JSON document for n inputs. Returns 0 or -1 on a
 * write error. */
int qa_report_json(FILE *out, struct qa_inventory *const *invs, size_t n,
		   const struct qa_report_options *opt);

/* Text report of `inspect`: per input the model in a few lines, the
 * component table, then findings. */
int qa_report_text(FILE *out, struct qa_inventory *const *invs, size_t n,
		   const struct qa_report_options *opt);

/* Text report of `tensors`: one line per (selected) tensor. */
int qa_report_text_tensors(FILE *out, struct qa_inventory *const *invs,
			   size_t n, const struct qa_report_options *opt);

/* CI reporters (src/report_ci.c). Markdown: a pull-request comment.
 * SARIF 2.1.0: one run, every registry (and policy) rule in
 * tool.driver.rules, one result per finding. JUnit XML: one testsuite per
 * input, one testcase per rule, failing when the rule has a finding at or
 * above fail_on. Each returns 0 or -1 on a write error. */
int qa_report_markdown(FILE *out, struct qa_inventory *const *invs, size_t n,
		       const struct qa_report_options *opt);
int qa_report_sarif(FILE *out, struct qa_inventory *const *invs, size_t n,
		    const struct qa_report_options *opt);
int qa_report_junit(FILE *out, struct qa_inventory *const *invs, size_t n,
		    const struct qa_report_options *opt);

#endif /* QA_SRC_REPORT_H */
