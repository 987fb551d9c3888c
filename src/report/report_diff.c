/* SPDX-License-Identifier: MIT */
/*
 * The diff report (report_diff.h): text for people, Markdown for a pull
 * request comment ("this requant changes attention from Q6_K to Q4_K"),
 * JSON (quantaudit-diff/1) for machines. Names and values from the models
 * are escaped on every path out.
 */
#include "report/report_diff.h"

#include <inttypes.h>
#include <string.h>

#include "config.h"
#include "core/diag.h"
#include "core/escape.h"
#include "core/jsonw.h"
#include "core/units.h"
#include "fit/fit.h"

/* At most this many tensor lines in text and Markdown (JSON has all). */
#define LIST_MAX 40

static void
shape_text(const struct qa_tensor *t, char *buf, size_t n)
{
	size_t at = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; t && i < t->n_dims && at < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%" PRIu64,
				       i ? "x" : "", t->shape[i]);
}

static void
bpw_text(const struct qa_component *c, char *buf, size_t n)
{
	if (!c)
		snprintf(buf, n, "-");
	else
		qa_fmt_bpw(buf, n, c->bytes, c->params);
}

/* The signed difference b - a of two byte counts, as "+1.2 GiB". */
static void
delta_bytes(uint64_t a, uint64_t b, char *buf, size_t n)
{
	if (a == b) {
		snprintf(buf, n, "0");
		return;
	}
	buf[0] = b > a ? '+' : '-';
	qa_fmt_bytes(buf + 1, n - 1, b > a ? b - a : a - b);
}

static const char *
model_line(const struct qa_inventory *inv, char *buf, size_t n)
{
	char p[32], b[32], bpw[32];

	qa_fmt_params(p, sizeof(p), inv->params);
	qa_fmt_bytes(b, sizeof(b), inv->bytes);
	qa_fmt_bpw(bpw, sizeof(bpw), inv->bytes, inv->params);
	snprintf(buf, n, "%s, %s params, %s, %s bpw, %u tensors, MTP %s",
		 qa_inv_kind_name(inv->kind), p, b, bpw, inv->n_tensors,
		 qa_mtp_status_name(inv->mtp.status));
	return buf;
}

static void
fit_line(FILE *f, const char *side, const struct qa_inventory *inv)
{
	const struct qa_fit_result *r = inv->fit;

	if (!r) {
		if (inv->fit_error) {
			fprintf(f, "  %s: not sized: ", side);
			qa_esc_text(f, inv->fit_error);
			fputc('\n', f);
		}
		return;
	}
	fprintf(f, "  %s: %s at context %" PRId64 "; largest context f16 %"
		PRId64 ", q8_0 %" PRId64 ", q4_0 %" PRId64 "\n", side,
		r->verdict, r->context, r->max_context_f16,
		r->max_context_q8_0, r->max_context_q4_0);
}

/* "attn_q Q6_K -> Q4_K" lines: components whose main type changed. */
static size_t
precision_changes(const struct qa_diff *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->n_components; i++) {
		const struct qa_diff_component *c = &d->components[i];

		if (c->type_a && c->type_b && strcmp(c->type_a, c->type_b) != 0)
			n++;
	}
	return n;
}

/* The prompt section (compare/prompt.h): a GGUF against its folder. */
static void
prompt_text(FILE *f, const struct qa_diff *d)
{
	const struct qa_prompt_diff *p = &d->prompt;
	const char *q = p->quant_is_a ? "A" : "B", *s = p->quant_is_a ? "B" :
			"A";
	size_t i;

	if (!p->compared)
		return;
	fprintf(f, "\nprompt (quant %s against source %s; templates compared "
		"as text, not rendered):\n", q, s);
	fputs("  template  ", f);
	if (!p->quant_template && !p->source_template)
		fputs("none on either side\n", f);
	else if (p->template_same)
		fprintf(f, "same (%" PRIu64 " bytes)\n", p->quant_template_len);
	else {
		fputs(p->quant_template ? "" : "quant: none, ", f);
		if (p->quant_template) {
			qa_esc_text(f, p->quant_template);
			fprintf(f, " (%" PRIu64 " bytes)", p->quant_template_len);
		}
		fputs(" vs ", f);
		if (p->source_template) {
			qa_esc_text(f, p->source_template);
			fprintf(f, " (%" PRIu64 " bytes)\n",
				p->source_template_len);
		} else {
			fputs("source: none\n", f);
		}
	}
	if (p->n_lines) {
		fprintf(f, "    --- quant %s\n    +++ source %s\n", q, s);
		for (i = 0; i < p->n_lines && i < LIST_MAX; i++) {
			if (p->lines[i].op == '~') {
				fputs("    ...\n", f);
				continue;
			}
			fprintf(f, "    %c", p->lines[i].op);
			qa_esc_text(f, p->lines[i].text);
			fputc('\n', f);
		}
		if (p->n_lines + p->lines_dropped > LIST_MAX)
			fprintf(f, "    ... %zu more lines (--format json lists "
				"%d)\n", p->n_lines + p->lines_dropped -
				LIST_MAX, QA_PROMPT_MAX_LINES);
	}
	for (i = 0; i < p->n_items; i++) {
		fprintf(f, "  %-22s %s: %s, source: %s%s\n", p->items[i].name,
			"quant", p->items[i].quant ? p->items[i].quant :
			"(none)", p->items[i].source ? p->items[i].source :
			"(none)", p->items[i].same ? "" :
			p->items[i].quant && p->items[i].source ? "  DIFFERS" :
			"");
	}
	if (p->specials_checked || p->specials_unchecked)
		fprintf(f, "  special tokens: %" PRIu32 " compared with the "
			"GGUF vocabulary, %" PRIu32 " past what was kept\n",
			p->specials_checked, p->specials_unchecked);
	for (i = 0; i < p->n_findings; i++) {
		const struct qa_rule *r = qa_rule_find(p->findings[i].code);

		fprintf(f, "  %s QA%u %s: ", r ?
			qa_severity_name(r->severity) : "warning",
			p->findings[i].code, r ? r->id : "");
		qa_esc_text(f, p->findings[i].message);
		fputc('\n', f);
	}
}

int
qa_report_diff_text(FILE *f, const struct qa_diff *d)
{
	char la[256], lb[256], x[32], y[32], z[32], u[32], v[32];
	size_t i, shown = 0;

	fputs("diff A ", f);
	qa_esc_text(f, d->a->path);
	fputs("\n     B ", f);
	qa_esc_text(f, d->b->path);
	fprintf(f, "\n  A: %s\n  B: %s\n\n", model_line(d->a, la, sizeof(la)),
		model_line(d->b, lb, sizeof(lb)));
	fprintf(f, "%-20s %10s %10s %11s  %6s %6s  %-10s %s\n", "component",
		"A bytes", "B bytes", "delta", "A bpw", "B bpw", "A type",
		"B type");
	for (i = 0; i < d->n_components; i++) {
		const struct qa_diff_component *c = &d->components[i];

		qa_fmt_bytes(x, sizeof(x), c->a ? c->a->bytes : 0);
		qa_fmt_bytes(y, sizeof(y), c->b ? c->b->bytes : 0);
		delta_bytes(c->a ? c->a->bytes : 0, c->b ? c->b->bytes : 0, z,
			    sizeof(z));
		bpw_text(c->a, u, sizeof(u));
		bpw_text(c->b, v, sizeof(v));
		fprintf(f, "%-20s %10s %10s %11s  %6s %6s  %-10s %s\n",
			c->name, c->a ? x : "-", c->b ? y : "-", z, u, v,
			c->type_a ? c->type_a : "-",
			c->type_b ? c->type_b : "-");
	}
	qa_fmt_bytes(x, sizeof(x), d->a->bytes);
	qa_fmt_bytes(y, sizeof(y), d->b->bytes);
	delta_bytes(d->a->bytes, d->b->bytes, z, sizeof(z));
	qa_fmt_bpw(u, sizeof(u), d->a->bytes, d->a->params);
	qa_fmt_bpw(v, sizeof(v), d->b->bytes, d->b->params);
	fprintf(f, "%-20s %10s %10s %11s  %6s %6s\n", "total", x, y, z, u, v);
	if (precision_changes(d)) {
		fputs("\nprecision:", f);
		for (i = 0; i < d->n_components; i++) {
			const struct qa_diff_component *c = &d->components[i];

			if (c->type_a && c->type_b &&
			    strcmp(c->type_a, c->type_b) != 0)
				fprintf(f, "\n  %s %s -> %s", c->name,
					c->type_a, c->type_b);
		}
		fputc('\n', f);
	}
	if (d->n_hparams) {
		fputs("\nhyperparameters:\n", f);
		for (i = 0; i < d->n_hparams; i++) {
			fprintf(f, "  %s: ", d->hparams[i].name);
			qa_esc_text(f, d->hparams[i].a ? d->hparams[i].a : "-");
			fputs(" -> ", f);
			qa_esc_text(f, d->hparams[i].b ? d->hparams[i].b : "-");
			fputc('\n', f);
		}
	}
	if (d->n_metadata) {
		fprintf(f, "\nmetadata: %zu key%s\n", d->n_metadata,
			d->n_metadata == 1 ? " differs" : "s differ");
		for (i = 0; i < d->n_metadata && i < LIST_MAX; i++) {
			fputs("  ", f);
			qa_esc_text(f, d->metadata[i].name);
			fputs(": ", f);
			qa_esc_text(f, d->metadata[i].a ? d->metadata[i].a :
				    "(absent)");
			fputs(" -> ", f);
			qa_esc_text(f, d->metadata[i].b ? d->metadata[i].b :
				    "(absent)");
			fputc('\n', f);
		}
		if (d->n_metadata > LIST_MAX)
			fprintf(f, "  ... %zu more (--format json lists all)\n",
				d->n_metadata - LIST_MAX);
	}
	if (d->n_config) {
		fprintf(f, "\nconfig.json: %zu key%s\n", d->n_config,
			d->n_config == 1 ? " differs" : "s differ");
		for (i = 0; i < d->n_config && i < LIST_MAX; i++) {
			fputs("  ", f);
			qa_esc_text(f, d->config[i].name);
			fputs(": ", f);
			qa_esc_text(f, d->config[i].a ? d->config[i].a :
				    "(absent)");
			fputs(" -> ", f);
			qa_esc_text(f, d->config[i].b ? d->config[i].b :
				    "(absent)");
			fputc('\n', f);
		}
		if (d->n_config > LIST_MAX)
			fprintf(f, "  ... %zu more (--format json lists all)\n",
				d->n_config - LIST_MAX);
	}
	fprintf(f, "\ntensors: %u paired by %s%s, %u unchanged; %u added, %u "
		"removed, %u retyped, %u reshaped", d->paired,
		d->by_role ? "role and layer" : "name",
		d->content ? " (contents compared)" : "", d->same,
		d->count[QA_D_ADDED], d->count[QA_D_REMOVED],
		d->count[QA_D_RETYPED], d->count[QA_D_RESHAPED]);
	if (d->content)
		fprintf(f, ", %u changed, %u renamed", d->count[QA_D_CHANGED],
			d->count[QA_D_RENAMED]);
	fputc('\n', f);
	for (i = 0; i < d->n_tensors && shown < LIST_MAX; i++, shown++) {
		const struct qa_diff_tensor *t = &d->tensors[i];

		shape_text(t->a, x, sizeof(x));
		shape_text(t->b, y, sizeof(y));
		fprintf(f, "  %-9s ", qa_diff_kind_name(t->kind));
		qa_esc_text(f, t->a ? t->a->name : t->b->name);
		if (t->a && t->b && strcmp(t->a->name, t->b->name) != 0) {
			fputs(" -> ", f);
			qa_esc_text(f, t->b->name);
		}
		if (t->a && t->b)
			fprintf(f, ": %s [%s] -> %s [%s]\n", t->a->dtype, x,
				t->b->dtype, y);
		else
			fprintf(f, ": %s [%s]\n", t->a ? t->a->dtype :
				t->b->dtype, t->a ? x : y);
	}
	if (d->n_tensors > LIST_MAX)
		fprintf(f, "  ... %zu more (--format json lists all)\n",
			d->n_tensors - LIST_MAX);
	prompt_text(f, d);
	if (d->a->fit || d->b->fit || d->a->fit_error || d->b->fit_error) {
		fputs("\nfit:\n", f);
		fit_line(f, "A", d->a);
		fit_line(f, "B", d->b);
	}
	fprintf(f, "\n%s\n", qa_diff_differs(d) ? "the models differ" :
		"no difference in tensors, hyperparameters or metadata");
	return ferror(f) ? -1 : 0;
}

/* A Markdown cell: model text escaped for Markdown, pipes included. */
static void
md_cell(FILE *f, const char *s)
{
	qa_esc_markdown(f, s ? s : "-");
}

int
qa_report_diff_markdown(FILE *f, const struct qa_diff *d)
{
	char x[32], y[32], z[32], u[32], v[32];
	size_t i;

	fputs("### quantaudit diff\n\n| | A | B |\n|---|---|---|\n| model | ", f);
	md_cell(f, d->a->path);
	fputs(" | ", f);
	md_cell(f, d->b->path);
	qa_fmt_bytes(x, sizeof(x), d->a->bytes);
	qa_fmt_bytes(y, sizeof(y), d->b->bytes);
	qa_fmt_bpw(u, sizeof(u), d->a->bytes, d->a->params);
	qa_fmt_bpw(v, sizeof(v), d->b->bytes, d->b->params);
	fprintf(f, " |\n| size | %s | %s |\n| bits per weight | %s | %s |\n"
		"| MTP | %s | %s |\n", x, y, u, v,
		qa_mtp_status_name(d->a->mtp.status),
		qa_mtp_status_name(d->b->mtp.status));
	if (d->a->fit && d->b->fit)
		fprintf(f, "| fit | %s | %s |\n", d->a->fit->verdict,
			d->b->fit->verdict);
	if (precision_changes(d)) {
		size_t shown = 0;

		fputs("\n**Precision changes:** ", f);
		for (i = 0; i < d->n_components; i++) {
			const struct qa_diff_component *c = &d->components[i];

			if (c->type_a && c->type_b &&
			    strcmp(c->type_a, c->type_b) != 0)
				fprintf(f, "%s`%s` %s → %s",
					shown++ ? "; " : "", c->name,
					c->type_a, c->type_b);
		}
		fputs("\n", f);
	}
	fputs("\n| component | A | B | A params | B params | Δ bytes | A bpw | "
	      "B bpw |\n|---|---|---|---:|---:|---:|---:|---:|\n", f);
	for (i = 0; i < d->n_components; i++) {
		const struct qa_diff_component *c = &d->components[i];

		delta_bytes(c->a ? c->a->bytes : 0, c->b ? c->b->bytes : 0, z,
			    sizeof(z));
		bpw_text(c->a, u, sizeof(u));
		bpw_text(c->b, v, sizeof(v));
		qa_fmt_params(x, sizeof(x), c->a ? c->a->params : 0);
		qa_fmt_params(y, sizeof(y), c->b ? c->b->params : 0);
		fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			c->name, c->type_a ? c->type_a : "-",
			c->type_b ? c->type_b : "-", c->a ? x : "-",
			c->b ? y : "-", z, u, v);
	}
	fprintf(f, "\nTensors: %u paired by %s, %u unchanged, %u added, %u "
		"removed, %u retyped, %u reshaped", d->paired,
		d->by_role ? "role and layer" : "name", d->same,
		d->count[QA_D_ADDED], d->count[QA_D_REMOVED],
		d->count[QA_D_RETYPED], d->count[QA_D_RESHAPED]);
	if (d->content)
		fprintf(f, ", %u changed, %u renamed", d->count[QA_D_CHANGED],
			d->count[QA_D_RENAMED]);
	fputs(".\n", f);
	if (d->n_config)
		fprintf(f, "\n%zu `config.json` key%s.\n", d->n_config,
			d->n_config == 1 ? " differs" : "s differ");
	if (d->n_hparams) {
		fputs("\nHyperparameters that differ: ", f);
		for (i = 0; i < d->n_hparams; i++) {
			fprintf(f, "%s`%s` ", i ? "; " : "", d->hparams[i].name);
			md_cell(f, d->hparams[i].a);
			fputs(" → ", f);
			md_cell(f, d->hparams[i].b);
		}
		fputs("\n", f);
	}
	return ferror(f) ? -1 : 0;
}

static void
json_component(struct qa_jw *w, const char *key, const struct qa_component *c,
	       const char *type)
{
	if (!c) {
		qa_jw_null(w, key);
		return;
	}
	qa_jw_obj_line(w, key);
	qa_jw_u64(w, "tensors", c->tensors);
	qa_jw_u64(w, "params", c->params);
	qa_jw_u64(w, "bytes", c->bytes);
	if (c->params)
		qa_jw_double(w, "bits_per_weight", (double)c->bytes * 8.0 /
			     (double)c->params, QA_JW_BPW);
	else
		qa_jw_null(w, "bits_per_weight");
	qa_jw_str(w, "type", type);
	qa_jw_close(w, '}');
}

static void
json_tensor(struct qa_jw *w, const char *key, const struct qa_tensor *t)
{
	uint32_t i;

	if (!t) {
		qa_jw_null(w, key);
		return;
	}
	qa_jw_obj_line(w, key);
	qa_jw_str(w, "name", t->name);
	qa_jw_str(w, "dtype", t->dtype);
	qa_jw_arr(w, "shape", true);
	for (i = 0; i < t->n_dims; i++)
		qa_jw_u64(w, NULL, t->shape[i]);
	qa_jw_close(w, ']');
	qa_jw_u64(w, "bytes", t->bytes);
	qa_jw_str(w, "role", qa_role_name(t->role));
	if (t->layer >= 0)
		qa_jw_i64(w, "layer", t->layer);
	else
		qa_jw_null(w, "layer");
	qa_jw_close(w, '}');
}

static void
json_model(struct qa_jw *w, const char *key, const struct qa_inventory *inv)
{
	qa_jw_obj(w, key);
	qa_jw_str(w, "path", inv->path);
	qa_jw_str(w, "kind", qa_inv_kind_name(inv->kind));
	qa_jw_str(w, "architecture", inv->hp.arch);
	qa_jw_u64(w, "params", inv->params);
	qa_jw_u64(w, "bytes", inv->bytes);
	qa_jw_u64(w, "tensors", inv->n_tensors);
	qa_jw_str(w, "mtp", qa_mtp_status_name(inv->mtp.status));
	if (inv->fit) {
		qa_jw_obj(w, "fit");
		qa_jw_str(w, "verdict", inv->fit->verdict);
		qa_jw_i64(w, "context", inv->fit->context);
		qa_jw_obj_line(w, "max_context");
		qa_jw_i64(w, "f16", inv->fit->max_context_f16);
		qa_jw_i64(w, "q8_0", inv->fit->max_context_q8_0);
		qa_jw_i64(w, "q4_0", inv->fit->max_context_q4_0);
		qa_jw_close(w, '}');
		qa_jw_close(w, '}');
	} else if (inv->fit_error) {
		qa_jw_str(w, "fit_error", inv->fit_error);
	}
	qa_jw_close(w, '}');
}

static void
json_fields(struct qa_jw *w, const char *key, const struct qa_diff_field *v,
	    size_t n)
{
	size_t i;

	qa_jw_arr(w, key, false);
	for (i = 0; i < n; i++) {
		qa_jw_obj_line(w, NULL);
		qa_jw_str(w, "name", v[i].name);
		qa_jw_str(w, "a", v[i].a);
		qa_jw_str(w, "b", v[i].b);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
}

/* "prompt": null unless a GGUF is compared with a folder. */
static void
json_prompt(struct qa_jw *w, const struct qa_diff *d)
{
	const struct qa_prompt_diff *p = &d->prompt;
	size_t i;
	char code[16], op[2] = { 0, 0 };

	if (!p->compared) {
		qa_jw_null(w, "prompt");
		return;
	}
	qa_jw_obj(w, "prompt");
	qa_jw_str(w, "quant", p->quant_is_a ? "a" : "b");
	qa_jw_bool(w, "rendered", p->rendered);
	qa_jw_obj(w, "template");
	qa_jw_str(w, "quant", p->quant_template);
	qa_jw_str(w, "source", p->source_template);
	qa_jw_u64(w, "quant_bytes", p->quant_template_len);
	qa_jw_u64(w, "source_bytes", p->source_template_len);
	qa_jw_bool(w, "same", p->template_same);
	qa_jw_bool(w, "diff_too_long", p->diff_too_long);
	qa_jw_u64(w, "diff_lines_dropped", p->lines_dropped);
	qa_jw_arr(w, "diff", false);
	for (i = 0; i < p->n_lines; i++) {
		op[0] = p->lines[i].op;
		qa_jw_obj_line(w, NULL);
		qa_jw_str(w, "op", op);
		qa_jw_str(w, "text", p->lines[i].text);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
	qa_jw_arr(w, "tokens", false);
	for (i = 0; i < p->n_items; i++) {
		qa_jw_obj_line(w, NULL);
		qa_jw_str(w, "name", p->items[i].name);
		qa_jw_str(w, "quant", p->items[i].quant);
		qa_jw_str(w, "source", p->items[i].source);
		qa_jw_bool(w, "same", p->items[i].same);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
	qa_jw_obj(w, "special_tokens");
	qa_jw_u64(w, "compared", p->specials_checked);
	qa_jw_u64(w, "unchecked", p->specials_unchecked);
	qa_jw_close(w, '}');
	qa_jw_arr(w, "findings", false);
	for (i = 0; i < p->n_findings; i++) {
		const struct qa_rule *r = qa_rule_find(p->findings[i].code);

		snprintf(code, sizeof(code), "QA%04u", p->findings[i].code);
		qa_jw_obj_line(w, NULL);
		qa_jw_str(w, "code", code);
		qa_jw_str(w, "id", r ? r->id : "unknown");
		qa_jw_str(w, "category", r ? qa_category_name(r->category) :
			  "compatibility");
		qa_jw_str(w, "severity", r ? qa_severity_name(r->severity) :
			  "warning");
		qa_jw_str(w, "message", p->findings[i].message);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
}

int
qa_report_diff_json(FILE *f, const struct qa_diff *d)
{
	struct qa_jw w;
	size_t i;
	int k;

	qa_jw_init(&w, f);
	qa_jw_obj(&w, NULL);
	qa_jw_str(&w, "schema", "quantaudit-diff/1");
	qa_jw_obj(&w, "tool");
	qa_jw_str(&w, "name", "quantaudit");
	qa_jw_str(&w, "version", QA_VERSION);
	qa_jw_close(&w, '}');
	json_model(&w, "a", d->a);
	json_model(&w, "b", d->b);
	qa_jw_str(&w, "paired_by", d->by_role ? "role" : "name");
	qa_jw_bool(&w, "content_compared", d->content);
	qa_jw_obj(&w, "counts");
	qa_jw_u64(&w, "paired", d->paired);
	qa_jw_u64(&w, "unchanged", d->same);
	for (k = 0; k <= QA_D_RENAMED; k++)
		qa_jw_u64(&w, qa_diff_kind_name((enum qa_diff_kind)k),
			  d->count[k]);
	qa_jw_close(&w, '}');
	qa_jw_arr(&w, "components", false);
	for (i = 0; i < d->n_components; i++) {
		const struct qa_diff_component *c = &d->components[i];

		qa_jw_obj(&w, NULL);
		qa_jw_str(&w, "role", c->name);
		json_component(&w, "a", c->a, c->type_a);
		json_component(&w, "b", c->b, c->type_b);
		qa_jw_close(&w, '}');
	}
	qa_jw_close(&w, ']');
	json_fields(&w, "hparams", d->hparams, d->n_hparams);
	if (d->metadata_compared)
		json_fields(&w, "metadata", d->metadata, d->n_metadata);
	else
		qa_jw_null(&w, "metadata");
	if (d->config_compared)
		json_fields(&w, "config", d->config, d->n_config);
	else
		qa_jw_null(&w, "config");
	qa_jw_arr(&w, "tensors", false);
	for (i = 0; i < d->n_tensors; i++) {
		const struct qa_diff_tensor *t = &d->tensors[i];

		qa_jw_obj(&w, NULL);
		qa_jw_str(&w, "kind", qa_diff_kind_name(t->kind));
		json_tensor(&w, "a", t->a);
		json_tensor(&w, "b", t->b);
		qa_jw_close(&w, '}');
	}
	qa_jw_close(&w, ']');
	json_prompt(&w, d);
	qa_jw_bool(&w, "differ", qa_diff_differs(d));
	qa_jw_close(&w, '}');
	qa_jw_raw(&w, "\n", 1);
	return qa_jw_finish(&w) != 0 || ferror(f) ? -1 : 0;
}
