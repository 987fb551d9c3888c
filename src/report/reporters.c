/* SPDX-License-Identifier: MIT */
/*
 * The reporter table: one row per output format, with the views it
 * renders. The CLI picks a row by --format; a new format is a new row.
 */
#include "report/report.h"

#include <stddef.h>
#include <string.h>

#include "report/report_fit.h"

#define VIEW(v) (1u << (v))

/* Text: each view has its own layout. */
static int
write_text(FILE *out, struct qa_inventory *const *invs, size_t n,
	   const struct qa_report_options *opt)
{
	switch (opt->view) {
	case QA_VIEW_TENSORS:
		return qa_report_text_tensors(out, invs, n, opt);
	case QA_VIEW_FIT:
		return qa_report_text_fit(out, invs, n, opt);
	case QA_VIEW_INSPECT:
		break;
	}
	return qa_report_text(out, invs, n, opt);
}

static int
write_markdown(FILE *out, struct qa_inventory *const *invs, size_t n,
	       const struct qa_report_options *opt)
{
	if (opt->view == QA_VIEW_FIT)
		return qa_report_markdown_fit(out, invs, n, opt);
	return qa_report_markdown(out, invs, n, opt);
}

static const struct qa_reporter text = {
	"text", VIEW(QA_VIEW_INSPECT) | VIEW(QA_VIEW_TENSORS) |
	VIEW(QA_VIEW_FIT), write_text, qa_report_text_begin,
	qa_report_text_input, qa_report_text_end, true, NULL,
};
static const struct qa_reporter json = {
	"json", VIEW(QA_VIEW_INSPECT) | VIEW(QA_VIEW_TENSORS) |
	VIEW(QA_VIEW_FIT), qa_report_json, qa_report_json_begin,
	qa_report_json_input, qa_report_json_end, false,
	qa_report_json_failed,
};
static const struct qa_reporter jsonl = {
	"jsonl", VIEW(QA_VIEW_INSPECT) | VIEW(QA_VIEW_TENSORS) |
	VIEW(QA_VIEW_FIT), qa_report_jsonl, qa_report_jsonl_begin,
	qa_report_jsonl_input, qa_report_jsonl_end, false,
	qa_report_jsonl_failed,
};
static const struct qa_reporter markdown = {
	"markdown", VIEW(QA_VIEW_INSPECT) | VIEW(QA_VIEW_FIT), write_markdown,
	NULL, NULL, NULL, false, NULL,
};
static const struct qa_reporter sarif = {
	"sarif", VIEW(QA_VIEW_INSPECT), qa_report_sarif, NULL, NULL, NULL,
	false, NULL,
};
static const struct qa_reporter junit = {
	"junit", VIEW(QA_VIEW_INSPECT), qa_report_junit, NULL, NULL, NULL,
	false, NULL,
};

static const struct qa_reporter html = {
	"html", VIEW(QA_VIEW_INSPECT) | VIEW(QA_VIEW_FIT), qa_report_html,
	NULL, NULL, NULL, false, NULL,
};

static const struct qa_reporter codequality = {
	"codequality", VIEW(QA_VIEW_INSPECT), qa_report_codequality, NULL,
	NULL, NULL, false, NULL,
};
static const struct qa_reporter cyclonedx = {
	"cyclonedx", VIEW(QA_VIEW_INSPECT), qa_report_cyclonedx, NULL, NULL,
	NULL, false, NULL,
};

const struct qa_reporter *const qa_reporters[] = {
	&text, &json, &jsonl, &markdown, &sarif, &junit, &html, &codequality,
	&cyclonedx, NULL,
};

const struct qa_reporter *
qa_reporter_find(const char *name)
{
	size_t i;

	for (i = 0; qa_reporters[i]; i++)
		if (strcmp(qa_reporters[i]->name, name) == 0)
			return qa_reporters[i];
	return NULL;
}
