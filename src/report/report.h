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

#include "analysis/analysis.h"
#include "core/inventory.h"
#include "fit/fit.h"

/* What a command shows of the same audit. */
enum qa_report_view {
	QA_VIEW_INSPECT,	/* the model, components, findings (inspect,
				 * check) */
	QA_VIEW_TENSORS,	/* one line per tensor (tensors) */
	QA_VIEW_FIT,		/* the memory fit first (fit) */
};

/* An input that could not be audited (a read error, a path that is no
 * model): what the reports written all at once list beside the audited
 * inputs (JUnit an error case, SARIF a notification, Markdown a line). */
struct qa_failed_input {
	const char *path;
	int exit_code;		/* 3 or 4 */
	const char *message;	/* the line printed on stderr */
};

struct qa_report_options {
	enum qa_report_view view;
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
	const struct qa_advisory *advisories;	/* setup advisories of the
						 * run, printed once */
	size_t n_advisories;
	const struct qa_failed_input *failed;	/* write only: inputs not
						 * audited, in order */
	size_t n_failed;
};

/*
 * A report written one input at a time, so a run over many models holds
 * one at a time (engine/audit.h qa_audit_run_each): the caller fills
 * out and opt (advisories may be set any time before the end) and zeroes
 * the rest; state is the reporter's.
 */
struct qa_report_stream {
	FILE *out;
	const struct qa_report_options *opt;
	void *state;
};

/*
 * A reporter: one output format. write renders n audited inputs in the
 * view opt->view; returns 0 or -1 on a write error. views is the set of
 * views it renders (bit 1 << view).
 */
struct qa_reporter {
	const char *name;		/* --format value */
	unsigned views;
	int (*write)(FILE *out, struct qa_inventory *const *invs, size_t n,
		     const struct qa_report_options *opt);
	/*
	 * The same report in pieces, or NULL when it needs every input
	 * before writing (counts in a head, SARIF's rule list): begin, then
	 * input for each model in order (index counts the models written
	 * before it; several says whether the report has more than one, as
	 * write's n > 1), then end with the number of models and the worst
	 * verdict of all, which also frees the state. Each returns 0 or -1
	 * on a write error; end is called after a failure too.
	 */
	int (*begin)(struct qa_report_stream *st);
	int (*input)(struct qa_report_stream *st,
		     const struct qa_inventory *inv, const bool *mask,
		     size_t index, bool several);
	int (*end)(struct qa_report_stream *st, size_t n,
		   const char *verdict);
	/* input reads several: the CLI then holds each model until the
	 * next one arrives (or the run ends), two inventories at a time.
	 * A reporter that does not look at it gets each model written and
	 * released as soon as it is audited. */
	bool input_needs_several;
	/* An input that could not be audited (NULL: it is left out, said
	 * on stderr only): its path, exit code and reason. */
	int (*failed)(struct qa_report_stream *st, const char *path,
		      int exit_code, const char *error);
};

/* Every reporter, NULL-terminated (src/report/reporters.c). */
extern const struct qa_reporter *const qa_reporters[];
/* The reporter named name, or NULL. */
const struct qa_reporter *qa_reporter_find(const char *name);

/* The setup advisories of opt, once, as text (nothing without any). */
void qa_report_text_advisories(FILE *out,
			       const struct qa_report_options *opt);

/* Text of the fit view: per input its name, the fit block, the notes of
 * resolution and the findings. */
int qa_report_text_fit(FILE *out, struct qa_inventory *const *invs, size_t n,
		       const struct qa_report_options *opt);
/* Markdown of the fit view: per input the fit table and verdict. */
int qa_report_markdown_fit(FILE *out, struct qa_inventory *const *invs,
			   size_t n, const struct qa_report_options *opt);

/* The calibration table of `fit --calibrate LOG`
 * (src/report/report_calibration.c): the estimate r/det made under opt
 * for inv, beside the log lg. Returns 0 or -1 on a write error. */
int qa_report_calibration(FILE *out, const struct qa_inventory *inv,
			  const char *log_path,
			  const struct qa_llamacpp_log *lg,
			  const struct qa_fit_options *opt,
			  const struct qa_fit_result *r,
			  const struct qa_fit_llamacpp_detail *det);

/* The quantaudit/1 JSON document for n inputs. Returns 0 or -1 on a
 * write error. */
int qa_report_json(FILE *out, struct qa_inventory *const *invs, size_t n,
		   const struct qa_report_options *opt);
/* The same in pieces (struct qa_reporter begin, input, end). */
int qa_report_json_begin(struct qa_report_stream *st);
int qa_report_json_input(struct qa_report_stream *st,
			 const struct qa_inventory *inv, const bool *mask,
			 size_t index, bool several);
int qa_report_json_end(struct qa_report_stream *st, size_t n,
		       const char *verdict);
/* An input that could not be audited: kept for the document's "errors"
 * (path, exit, message), written after "inputs"; the verdict is then
 * "fail" whatever the audited inputs say. */
int qa_report_json_failed(struct qa_report_stream *st, const char *path,
			  int exit_code, const char *error);
/* JSON Lines: per model a whole quantaudit/1 document with one input on
 * one line (no setup advisories: they belong to a run); an input that
 * could not be audited is a line with no inputs and an "error" object
 * (path, exit, message). */
int qa_report_jsonl(FILE *out, struct qa_inventory *const *invs, size_t n,
		    const struct qa_report_options *opt);
int qa_report_jsonl_begin(struct qa_report_stream *st);
int qa_report_jsonl_input(struct qa_report_stream *st,
			  const struct qa_inventory *inv, const bool *mask,
			  size_t index, bool several);
int qa_report_jsonl_failed(struct qa_report_stream *st, const char *path,
			   int exit_code, const char *error);
int qa_report_jsonl_end(struct qa_report_stream *st, size_t n,
			const char *verdict);
/* Text in pieces, every view (struct qa_reporter begin, input, end). */
int qa_report_text_begin(struct qa_report_stream *st);
int qa_report_text_input(struct qa_report_stream *st,
			 const struct qa_inventory *inv, const bool *mask,
			 size_t index, bool several);
int qa_report_text_end(struct qa_report_stream *st, size_t n,
		       const char *verdict);

/* Text report of `inspect`: per input the model in a few lines, the
 * component table, then findings. */
int qa_report_text(FILE *out, struct qa_inventory *const *invs, size_t n,
		   const struct qa_report_options *opt);

/* Text report of `tensors`: one line per (selected) tensor. */
int qa_report_text_tensors(FILE *out, struct qa_inventory *const *invs,
			   size_t n, const struct qa_report_options *opt);

/* The HTML report (src/report/report_html.c): one self-contained page;
 * several inputs are compared side by side first. 0 or -1 on a write
 * error. */
int qa_report_html(FILE *out, struct qa_inventory *const *invs, size_t n,
		   const struct qa_report_options *opt);

/* CI reporters (src/report/report_ci.c). Markdown: a pull-request comment.
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

/* GitLab Code Quality (src/report/report_codequality.c): a JSON array,
 * one issue per finding (and per input that could not be audited).
 * CycloneDX 1.6 ML-BOM (src/report/report_cyclonedx.c): each model a
 * machine-learning-model component with its model card, its files as
 * file components, findings as properties. 0 or -1 on a write error. */
int qa_report_codequality(FILE *out, struct qa_inventory *const *invs,
			  size_t n, const struct qa_report_options *opt);
int qa_report_cyclonedx(FILE *out, struct qa_inventory *const *invs,
			size_t n, const struct qa_report_options *opt);

#endif /* QA_SRC_REPORT_H */
