/* SPDX-License-Identifier: MIT */
/*
 * Rendering of a fit result (src/fit.h, inv->fit) for the reporters: the
 * JSON "fit" object of DESIGN.md (plus the added fields usable_bytes,
 * layers, has_output, host_bytes, formula, notes), the text block with a
 * stacked bar per GPU, and a Markdown table. Each function writes nothing
 * when the inventory has no fit, so the reporters call them
 * unconditionally. Reporters only: no exit, no stderr.
 */
#ifndef QA_SRC_REPORT_FIT_H
#define QA_SRC_REPORT_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fit/fit.h"
#include "core/inventory.h"
#include "core/jsonw.h"

/* Writes "fit": {...} into the open input object of w. */
void qa_report_fit_json(struct qa_jw *w, const struct qa_inventory *inv);

/* The text block: a heading, per device a bar (80 columns at most) and
 * the MiB numbers, the verdict, the largest context per KV type, the
 * decode ceiling, the formula and the notes. */
void qa_report_fit_text(FILE *out, const struct qa_inventory *inv,
			bool color);

/* A Markdown section: one table row per device, then the verdict line. */
void qa_report_fit_markdown(FILE *out, const struct qa_inventory *inv);

/* Writes text wrapped at 80 columns, continuation lines indented by
 * hang, then a newline (for the fit command's own lines). */
void qa_report_fit_wrap(FILE *out, const char *text, size_t hang);

#endif /* QA_SRC_REPORT_FIT_H */
