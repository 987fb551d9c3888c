/* SPDX-License-Identifier: MIT */
/*
 * The report of `quantaudit compare` (src/compare/compare.h): text,
 * JSON (schema quantaudit-compare/1, docs/compare.md) and Markdown for a
 * pull-request comment. Names from the files are escaped on every path
 * out.
 */
#include "report/report_compare.h"

#include <math.h>

#include "config.h"
#include "core/escape.h"
#include "core/jsonw.h"

static void
text_tensor(FILE *f, const struct qa_cmp_tensor *t, double max_rel)
{
	qa_esc_text(f, t->q->name);
	fprintf(f, "  %s", t->q->dtype ? t->q->dtype : "?");
	if (t->state != QA_CMP_COMPARED) {
		fprintf(f, "  not compared (QA2203): %s\n",
			t->why ? t->why : "");
		return;
	}
	fprintf(f, "  rel %.3e  max %.3e  cos %.6f  outliers %.3f%%",
		t->rel_rms, t->max_abs, t->cosine, 100.0 * t->outlier_share);
	if (t->permuted)
		fputs("  (Q/K order undone)", f);
	if (t->flagged)
		fprintf(f, "  FLAGGED (QA2202): %s (worst block %llu, %.1fx the "
			"tensor's RMS error)", t->flag_why,
			(unsigned long long)t->worst_block,
			t->worst_block_ratio);
	if (max_rel > 0 && t->rel_rms > max_rel)
		fprintf(f, "  OVER --max-rel-error %.3g (QA2201)", max_rel);
	fputc('\n', f);
}

int
qa_report_compare_text(FILE *f, const struct qa_compare *c, double max_rel)
{
	uint32_t i;

	fputs("quant:  ", f);
	qa_esc_text(f, c->q->path);
	fputs("\nsource: ", f);
	qa_esc_text(f, c->s->path);
	fprintf(f, "\npaired by %s; %u compared, %u not compared, %u flagged;"
		" whole-model relative RMS error %.3e\n\n",
		c->by_role ? "role and layer" : "name", c->compared,
		c->not_compared, c->flagged, c->rel_rms);
	if (c->fingerprinted)
		fprintf(f, "content fingerprints: quant %016llx, source %016llx:"
			" %s\n\n", (unsigned long long)c->fingerprint_q,
			(unsigned long long)c->fingerprint_s,
			c->same_content ? "the same model in other bytes" :
			"different values");
	else
		fputs("content fingerprints: not made (not every tensor of "
		      "both was compared)\n\n", f);
	for (i = 0; i < c->n_tensors; i++)
		text_tensor(f, &c->tensors[i], max_rel);
	fputs("\nper component (relative RMS error, worst tensor):\n", f);
	for (i = 0; i < c->n_roles; i++)
		fprintf(f, "  %-12s %3u tensors  %.3e  %.3e\n", c->roles[i].name,
			c->roles[i].tensors, c->roles[i].rel_rms,
			c->roles[i].max_rel_rms);
	fputs("per layer:\n", f);
	for (i = 0; i < c->n_layers; i++)
		fprintf(f, "  layer %-4d %3u tensors  %.3e  %.3e\n",
			c->layers[i].layer, c->layers[i].tensors,
			c->layers[i].rel_rms, c->layers[i].max_rel_rms);
	return ferror(f) ? -1 : 0;
}

/* JSON has no infinity: a relative error over a zero source is null. */
static void
json_num(struct qa_jw *w, const char *key, double v)
{
	if (isfinite(v))
		qa_jw_double(w, key, v, QA_JW_F64);
	else
		qa_jw_null(w, key);
}

static void
json_totals(struct qa_jw *w, const char *key, const struct qa_cmp_total *t,
	    uint32_t n)
{
	uint32_t i;

	qa_jw_arr(w, key, false);
	for (i = 0; i < n; i++) {
		qa_jw_obj(w, NULL);
		if (t[i].layer >= 0)
			qa_jw_i64(w, "layer", t[i].layer);
		else
			qa_jw_str(w, "role", t[i].name);
		qa_jw_u64(w, "tensors", t[i].tensors);
		json_num(w, "rel_rms", t[i].rel_rms);
		json_num(w, "max_tensor_rel_rms", t[i].max_rel_rms);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
}

int
qa_report_compare_json(FILE *f, const struct qa_compare *c, double max_rel)
{
	struct qa_jw w;
	uint32_t i, over = 0;

	qa_jw_init(&w, f);
	qa_jw_obj(&w, NULL);
	qa_jw_str(&w, "schema", "quantaudit-compare/1");
	qa_jw_obj(&w, "tool");
	qa_jw_str(&w, "name", "quantaudit");
	qa_jw_str(&w, "version", QA_VERSION);
	qa_jw_close(&w, '}');
	qa_jw_str(&w, "quant", c->q->path);
	qa_jw_str(&w, "source", c->s->path);
	qa_jw_str(&w, "paired_by", c->by_role ? "role" : "name");
	qa_jw_u64(&w, "compared", c->compared);
	qa_jw_u64(&w, "not_compared", c->not_compared);
	qa_jw_u64(&w, "flagged", c->flagged);
	qa_jw_u64(&w, "bytes_read", c->bytes_read);
	json_num(&w, "rel_rms", c->rel_rms);
	qa_jw_obj(&w, "identity");
	if (c->fingerprinted) {
		char hex[17];

		snprintf(hex, sizeof(hex), "%016llx",
			 (unsigned long long)c->fingerprint_q);
		qa_jw_str(&w, "quant", hex);
		snprintf(hex, sizeof(hex), "%016llx",
			 (unsigned long long)c->fingerprint_s);
		qa_jw_str(&w, "source", hex);
		qa_jw_bool(&w, "same_content", c->same_content);
	} else {
		qa_jw_null(&w, "quant");
		qa_jw_null(&w, "source");
		qa_jw_null(&w, "same_content");
	}
	qa_jw_close(&w, '}');
	if (max_rel > 0)
		qa_jw_double(&w, "max_rel_error", max_rel, QA_JW_F64);
	else
		qa_jw_null(&w, "max_rel_error");
	qa_jw_arr(&w, "tensors", false);
	for (i = 0; i < c->n_tensors; i++) {
		const struct qa_cmp_tensor *t = &c->tensors[i];

		qa_jw_obj(&w, NULL);
		qa_jw_str(&w, "name", t->q->name);
		qa_jw_str(&w, "type", t->q->dtype ? t->q->dtype : "");
		if (t->s) {
			qa_jw_str(&w, "source_name", t->s->name);
			qa_jw_str(&w, "source_type",
				  t->s->dtype ? t->s->dtype : "");
		} else {
			qa_jw_null(&w, "source_name");
			qa_jw_null(&w, "source_type");
		}
		qa_jw_str(&w, "state", qa_cmp_state_name(t->state));
		if (t->state != QA_CMP_COMPARED) {
			qa_jw_str(&w, "why", t->why ? t->why : "");
			qa_jw_arr(&w, "rules", true);
			qa_jw_str(&w, NULL, "QA2203");
			qa_jw_close(&w, ']');
			qa_jw_close(&w, '}');
			continue;
		}
		qa_jw_bool(&w, "qk_permutation_undone", t->permuted);
		qa_jw_u64(&w, "elements", t->n);
		qa_jw_u64(&w, "nonfinite", t->nonfinite);
		json_num(&w, "rel_rms", t->rel_rms);
		json_num(&w, "max_abs", t->max_abs);
		qa_jw_u64(&w, "max_abs_at", t->max_at);
		json_num(&w, "cosine", t->cosine);
		json_num(&w, "outlier_share", t->outlier_share);
		qa_jw_u64(&w, "worst_block", t->worst_block);
		json_num(&w, "worst_block_ratio", t->worst_block_ratio);
		qa_jw_bool(&w, "flagged", t->flagged);
		if (t->flagged)
			qa_jw_str(&w, "flag", t->flag_why);
		if (max_rel > 0 && t->rel_rms > max_rel)
			over++;
		qa_jw_bool(&w, "over_threshold",
			   max_rel > 0 && t->rel_rms > max_rel);
		qa_jw_arr(&w, "rules", true);
		if (max_rel > 0 && t->rel_rms > max_rel)
			qa_jw_str(&w, NULL, "QA2201");
		if (t->flagged)
			qa_jw_str(&w, NULL, "QA2202");
		qa_jw_close(&w, ']');
		qa_jw_close(&w, '}');
	}
	qa_jw_close(&w, ']');
	qa_jw_u64(&w, "over_threshold", over);
	json_totals(&w, "components", c->roles, c->n_roles);
	json_totals(&w, "layers", c->layers, c->n_layers);
	qa_jw_close(&w, '}');
	qa_jw_raw(&w, "\n", 1);
	return qa_jw_finish(&w) != 0 || ferror(f) ? -1 : 0;
}

/* ---- Markdown ------------------------------------------------------- */

/* A relative error as a cell: "-" where there is none (a zero source). */
static void
md_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.3e", v);
	else
		fputs("-", f);
}

/* The rows a reviewer acts on first: flagged tensors, those over the
 * threshold, and those not compared; at most max of them. */
static uint32_t
md_attention(FILE *f, const struct qa_compare *c, double max_rel,
	     uint32_t max)
{
	uint32_t i, shown = 0, more = 0;

	for (i = 0; i < c->n_tensors; i++) {
		const struct qa_cmp_tensor *t = &c->tensors[i];
		bool over = t->state == QA_CMP_COMPARED && max_rel > 0 &&
			    t->rel_rms > max_rel;

		if (!t->flagged && !over && t->state == QA_CMP_COMPARED)
			continue;
		if (shown == max) {
			more++;
			continue;
		}
		if (shown == 0)
			fputs("| tensor | type | relative RMS error | why |\n"
			      "|---|---|---|---|\n", f);
		/* escaped text, not a code span: Markdown does not undo
		 * escapes inside one */
		fputs("| ", f);
		qa_esc_markdown(f, t->q->name);
		fputs(" | ", f);
		qa_esc_markdown(f, t->q->dtype ? t->q->dtype : "?");
		fputs(" | ", f);
		if (t->state == QA_CMP_COMPARED)
			md_num(f, t->rel_rms);
		else
			fputs("-", f);
		fputs(" | ", f);
		if (t->state != QA_CMP_COMPARED) {
			fputs("not compared (QA2203): ", f);
			qa_esc_markdown(f, t->why ? t->why : "");
		} else {
			if (t->flagged) {
				fputs("flagged (QA2202): ", f);
				qa_esc_markdown(f, t->flag_why ? t->flag_why :
						"");
				fprintf(f, ", worst block %llu at %.1fx",
					(unsigned long long)t->worst_block,
					t->worst_block_ratio);
			}
			if (over)
				fprintf(f, "%sover --max-rel-error %.3g "
					"(QA2201)", t->flagged ? "; " : "",
					max_rel);
		}
		fputs(" |\n", f);
		shown++;
	}
	if (more)
		fprintf(f, "\n%u more; the JSON report has every tensor.\n",
			more);
	return shown + more;
}

int
qa_report_compare_markdown(FILE *f, const struct qa_compare *c,
			   double max_rel)
{
	uint32_t i, n;

	fputs("### quantaudit compare\n\n| | |\n|---|---|\n| quant | ", f);
	qa_esc_markdown(f, c->q->path);
	fputs(" |\n| source | ", f);
	qa_esc_markdown(f, c->s->path);
	fprintf(f, " |\n| paired by | %s |\n| tensors | %u compared, %u not "
		"compared, %u flagged |\n| whole-model relative RMS error | ",
		c->by_role ? "role and layer" : "name", c->compared,
		c->not_compared, c->flagged);
	md_num(f, c->rel_rms);
	fputs(" |\n| content | ", f);
	if (c->fingerprinted)
		fputs(c->same_content ? "the same model in other bytes" :
		      "different values", f);
	else
		fputs("not fingerprinted (not every tensor was compared)", f);
	fputs(" |\n\n", f);
	n = md_attention(f, c, max_rel, 20);
	if (n == 0)
		fprintf(f, "No tensor flagged%s.\n", max_rel > 0 ?
			" or over --max-rel-error" : "");
	fputs("\n| component | tensors | relative RMS error | worst tensor |\n"
	      "|---|---|---|---|\n", f);
	for (i = 0; i < c->n_roles; i++) {
		fputs("| ", f);
		qa_esc_markdown(f, c->roles[i].name);
		fprintf(f, " | %u | ", c->roles[i].tensors);
		md_num(f, c->roles[i].rel_rms);
		fputs(" | ", f);
		md_num(f, c->roles[i].max_rel_rms);
		fputs(" |\n", f);
	}
	if (c->n_layers) {
		fputs("\n<details><summary>per layer</summary>\n\n"
		      "| layer | tensors | relative RMS error | worst tensor |\n"
		      "|---|---|---|---|\n", f);
		for (i = 0; i < c->n_layers; i++) {
			fprintf(f, "| %d | %u | ", c->layers[i].layer,
				c->layers[i].tensors);
			md_num(f, c->layers[i].rel_rms);
			fputs(" | ", f);
			md_num(f, c->layers[i].max_rel_rms);
			fputs(" |\n", f);
		}
		fputs("\n</details>\n", f);
	}
	return ferror(f) ? -1 : 0;
}
