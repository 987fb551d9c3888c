/* SPDX-License-Identifier: MIT */
/*
 * The HTML report (--format html, docs/html.md): one self-contained
 * page, no external assets, readable without JavaScript and when
 * printed. Per model: the verdict and findings grouped by severity, the
 * model card, the size by component (an inline SVG stacked bar), the
 * per-layer precision map coloured by bits per weight, the MTP status,
 * the fit per GPU (SVG bars with the usable-memory line), and the tensor
 * table with an optional filter. Several models also get a comparison
 * table first: the view for choosing one of several quants.
 *
 * Every string from a model goes through qa_esc_html (text and
 * attributes alike). The page's Content-Security-Policy allows no
 * script but the report's own (by its SHA-256), no network, no frames:
 * markup smuggled past the escaping still could not run.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtypes.h"
#include "core/escape.h"
#include "core/roles.h"
#include "core/sha256.h"
#include "core/units.h"
#include "report/report.h"
#include "report/report_diff.h"

#define MIB (1024.0 * 1024.0)
/* Rows of the tensor table per model: beyond this the JSON report has
 * them (a page of 100k rows is no page). */
#define HTML_MAX_TENSOR_ROWS 5000

#define h qa_esc_html

/* The report's one script: shows the filter boxes and filters the
 * tensor tables. Without it the page is complete. */
static const char script[] =
	"document.documentElement.setAttribute('data-js','on');"
	"document.querySelectorAll('input.filter').forEach(function(i){"
	"i.hidden=false;i.addEventListener('input',function(){"
	"var q=i.value.toLowerCase(),n=0,"
	"t=document.getElementById(i.getAttribute('data-table'));"
	"t.querySelectorAll('tbody tr').forEach(function(r){"
	"var s=r.textContent.toLowerCase().indexOf(q)>=0;"
	"r.hidden=!s;if(s)n++;});"
	"i.nextElementSibling.textContent=n+' shown';});});";

static const char style[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:0 auto;max-width:1440px;padding:0 16px 40px;color:#1a1a1a;"
	"background:#fff}"
	"h1{font-size:1.5em;margin:.8em 0 .2em}h2{font-size:1.25em;"
	"border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:1.6em;"
	"overflow-wrap:anywhere}h3{font-size:1.05em;margin:1.2em 0 .4em}"
	"table{border-collapse:collapse;margin:.4em 0}"
	"th,td{border:1px solid #bbb;padding:2px 6px;text-align:left;"
	"vertical-align:top}td.n,th.n{text-align:right;"
	"font-variant-numeric:tabular-nums}"
	"code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;"
	"font-size:.92em;overflow-wrap:anywhere}"
	".badge{display:inline-block;padding:1px 8px;border-radius:4px;"
	"font-weight:700;font-size:.9em;border:1px solid #000}"
	".pass{background:#d9f2d9}.warn{background:#fff0c2}"
	".fail{background:#f8d0d0}"
	".error{background:#f8d0d0}.warning{background:#fff0c2}"
	".info{background:#e3ecf8}"
	"dl.card{display:grid;grid-template-columns:max-content 1fr;"
	"gap:2px 14px;margin:.4em 0}dl.card dt{font-weight:600}"
	"dl.card dd{margin:0;overflow-wrap:anywhere}"
	"table.map td{text-align:center;min-width:2.5em;font-size:.85em}"
	"table.map td.l{text-align:left;white-space:nowrap}"
	".legend span{display:inline-block;padding:0 6px;margin:2px;"
	"border:1px solid #888;font-size:.85em}"
	"svg{max-width:100%;height:auto}svg text{font:12px sans-serif}"
	".muted{color:#555}.scroll{overflow-x:auto}.nw{white-space:nowrap}"
	"input.filter{margin:.3em 0;padding:3px 6px;width:20em}"
	"details>summary{cursor:pointer}"
	"@media print{details{display:block}details>summary{display:none}"
	"input.filter{display:none}section{break-inside:avoid-page}"
	"h2{break-before:page}body{max-width:none}}";

/* Okabe-Ito colours (readable with every common colour vision
 * deficiency) for the component and fit segments. */
static const char *const palette[] = {
	"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
	"#F0E442", "#999999", "#332288", "#88CCEE", "#117733", "#AA4499",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

/* ---- bits per weight of a precision label ---------------------------------- */

/* The bits per weight a layer-map cell's label stands for: a ggml type
 * (block bytes over block elements), a safetensors dtype, a scheme
 * ("NVFP4", "int-packed 4-bit"), or -1 when it says no number ("mix"). */
static double
label_bpw(const char *label)
{
	const struct qa_ggml_type *g;
	const struct qa_st_dtype *st;
	const char *p;

	if (!label || strcmp(label, "mix") == 0)
		return -1;
	g = qa_ggml_type_by_name(label);
	if (g && g->block)
		return 8.0 * g->block_bytes / g->block;
	st = qa_st_dtype(label);
	if (st)
		return st->bits;
	/* the scale of one block counted in: NVFP4 (16 FP4 + one FP8
	 * scale), MXFP4 (32 FP4 + one E8M0 scale) */
	if (strstr(label, "NVFP4"))
		return 4.5;
	if (strstr(label, "MXFP4"))
		return 4.25;
	if (strstr(label, "FP8") || strstr(label, "F8"))
		return 8;
	p = strstr(label, "-bit");
	if (p && p > label && p[-1] >= '0' && p[-1] <= '9') {
		const char *q = p - 1;

		while (q > label && q[-1] >= '0' && q[-1] <= '9')
			q--;
		return atof(q);
	}
	return -1;
}

struct shade {
	double upto;
	const char *bg, *fg, *name;
};

/* Bits-per-weight bands: a diverging scale from the fewest bits (red)
 * to full precision (blue); text colour chosen for contrast. */
static const struct shade shades[] = {
	{ 2.75, "#d73027", "#fff", "< 2.75" },
	{ 3.75, "#fc8d59", "#000", "2.75-3.75" },
	{ 4.75, "#fee08b", "#000", "3.75-4.75" },
	{ 5.75, "#d9ef8b", "#000", "4.75-5.75" },
	{ 6.75, "#91cf60", "#000", "5.75-6.75" },
	{ 8.75, "#1a9850", "#fff", "6.75-8.75" },
	{ 16.5, "#4575b4", "#fff", "8.75-16" },
	{ 1e9, "#313695", "#fff", "> 16" },
};
#define N_SHADES (sizeof(shades) / sizeof(shades[0]))

static const struct shade *
shade_of(double bpw)
{
	static const struct shade unknown = { 0, "#e0e0e0", "#000", "?" };
	size_t i;

	if (bpw < 0)
		return &unknown;
	for (i = 0; i < N_SHADES; i++)
		if (bpw <= shades[i].upto)
			return &shades[i];
	return &shades[N_SHADES - 1];
}

/* ---- small pieces ------------------------------------------------------------- */

static const char *
verdict_class(const char *v)
{
	return v && strcmp(v, "fail") == 0 ? "fail" :
	       v && strcmp(v, "warn") == 0 ? "warn" : "pass";
}

static void
badge(FILE *out, const char *verdict)
{
	fprintf(out, "<span class=\"badge %s\">%s</span>",
		verdict_class(verdict), verdict ? verdict : "pass");
}

static const char *
arch_of(const struct qa_inventory *inv)
{
	return inv->hp.arch ? inv->hp.arch : inv->hp.arch_raw ?
	       inv->hp.arch_raw : "unknown";
}

/* The method line: what the files declare (as the text report's
 * "quant" line, shorter). */
static void
method(FILE *out, const struct qa_inventory *inv)
{
	const struct qa_quant_config *q = &inv->quant;

	if (inv->kind == QA_KIND_GGUF) {
		const char *ft = inv->file_type_declared ?
			inv->file_type_declared : inv->file_type_guessed;

		fputs("GGUF ", out);
		h(out, ft ? ft : inv->dominant_matrix_type ?
		  inv->dominant_matrix_type : "");
		return;
	}
	if (q->method != QA_QM_NONE) {
		h(out, q->method == QA_QM_OTHER && q->method_raw ?
		  q->method_raw : qa_quant_method_name(q->method));
		if (q->format && *q->format) {
			putc(' ', out);
			h(out, q->format);
		}
		if (q->bits > 0)
			fprintf(out, " %d-bit", q->bits);
		if (q->group_size > 0)
			fprintf(out, " g%d", q->group_size);
		return;
	}
	fputs("none (dense", out);
	{
		/* the dtype holding the most bytes */
		const char *best = inv->dominant_matrix_type;
		uint64_t most = 0;
		uint32_t i, k;

		for (i = 0; !best && i < inv->n_components; i++)
			for (k = 0; k < inv->components[i].n_dtypes; k++)
				if (inv->components[i].dtypes[k].bytes > most) {
					most = inv->components[i].dtypes[k].bytes;
					best = inv->components[i].dtypes[k].dtype;
				}
		if (best) {
			putc(' ', out);
			h(out, best);
		}
	}
	putc(')', out);
}

static const struct qa_component *
component(const struct qa_inventory *inv, const char *name)
{
	uint32_t i;

	for (i = 0; i < inv->n_components; i++)
		if (strcmp(inv->components[i].name, name) == 0)
			return &inv->components[i];
	return NULL;
}

static void
bpw_text(FILE *out, uint64_t bytes, uint64_t params)
{
	char b[32];

	qa_fmt_bpw(b, sizeof(b), bytes, params);
	fputs(b, out);
}

/* A largest context: -1 means not even the smallest fits, or the
 * engine refuses that KV type ("none", as the text report says). */
static void
ctx(FILE *out, int64_t v)
{
	if (v < 0)
		fputs("none", out);
	else
		fprintf(out, "%" PRId64, v);
}

/* ---- findings ------------------------------------------------------------------ */

static void
findings(FILE *out, const struct qa_inventory *inv)
{
	static const enum qa_severity order[] = {
		QA_SEV_ERROR, QA_SEV_WARNING, QA_SEV_INFO,
	};
	char dropped[1024];
	size_t k;
	uint32_t i;

	fputs("<h3>Findings</h3>\n", out);
	if (inv->n_findings == 0)
		fputs("<p>No findings.</p>\n", out);
	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		uint32_t n = 0;

		for (i = 0; i < inv->n_findings; i++)
			n += inv->findings[i].severity == order[k];
		if (n == 0)
			continue;
		fprintf(out, "<details%s><summary><span class=\"badge %s\">%s"
			"</span> %" PRIu32 " finding%s</summary>\n<div class="
			"\"scroll\"><table><thead><tr><th>code</th><th>rule"
			"</th><th>message</th><th>where</th></tr></thead>"
			"<tbody>\n", order[k] == QA_SEV_INFO ? "" : " open",
			qa_severity_name(order[k]), qa_severity_name(order[k]),
			n, n == 1 ? "" : "s");
		for (i = 0; i < inv->n_findings; i++) {
			const struct qa_finding *f = &inv->findings[i];

			if (f->severity != order[k])
				continue;
			fprintf(out, "<tr><td class=\"mono nw\">QA%04u</td><td>",
				(unsigned)f->rule->code);
			h(out, f->rule->id);
			fputs("</td><td>", out);
			h(out, f->rule->summary && *f->rule->summary ?
			  f->rule->summary : f->rule->id);
			if (f->message && *f->message) {
				fputs(": ", out);
				h(out, f->message);
			}
			fputs("</td><td class=\"mono\">", out);
			h(out, f->file ? f->file : inv->path);
			if (f->offset >= 0)
				fprintf(out, ":0x%" PRIx64, (uint64_t)f->offset);
			if (f->tensor) {
				fputs(", tensor ", out);
				h(out, f->tensor);
			}
			fputs("</td></tr>\n", out);
		}
		fputs("</tbody></table></div></details>\n", out);
	}
	if (qa_inventory_dropped(inv, NULL)) {
		fputs("<p><strong>Findings truncated:</strong> ", out);
		h(out, qa_inventory_dropped_text(inv, dropped,
						 sizeof(dropped)));
		fputs("</p>\n", out);
	}
}

/* ---- the model card ---------------------------------------------------------------- */

static void
card(FILE *out, const struct qa_inventory *inv)
{
	const struct qa_hparams *hp = &inv->hp;
	const struct qa_component *mtp = component(inv, "mtp");
	char p[32], sz[32];

	qa_fmt_params(p, sizeof(p), inv->params);
	qa_fmt_bytes(sz, sizeof(sz), inv->bytes);
	fputs("<h3>Model</h3>\n<dl class=\"card\">\n<dt>architecture</dt>"
	      "<dd>", out);
	h(out, arch_of(inv));
	if (hp->arch && hp->arch_raw && strcmp(hp->arch, hp->arch_raw) != 0) {
		fputs(" (", out);
		h(out, hp->arch_raw);
		putc(')', out);
	}
	fputs("</dd>\n", out);
	if (hp->name && *hp->name) {
		fputs("<dt>name</dt><dd>", out);
		h(out, hp->name);
		fputs("</dd>\n", out);
	}
	if (hp->n_layer > 0)
		fprintf(out, "<dt>layers</dt><dd>%" PRId64 "%s</dd>\n",
			hp->n_layer, hp->n_mtp > 0 ? " + MTP" : "");
	fprintf(out, "<dt>parameters</dt><dd>%s", p);
	if (mtp && inv->params > 0)
		fprintf(out, " (MTP head %.1f %%)",
			100.0 * (double)mtp->params / (double)inv->params);
	fprintf(out, "</dd>\n<dt>size</dt><dd>%s (%" PRIu64 " bytes), ", sz,
		inv->bytes);
	bpw_text(out, inv->bytes, inv->params);
	fputs(" bits per weight</dd>\n<dt>method</dt><dd>", out);
	method(out, inv);
	fprintf(out, "</dd>\n<dt>files</dt><dd>%" PRIu32 "</dd>\n",
		inv->n_files);
	if (inv->mmproj.file) {
		char mp[32], mb[32];

		qa_fmt_params(mp, sizeof(mp), inv->mmproj.params);
		qa_fmt_bytes(mb, sizeof(mb), inv->mmproj.bytes);
		fputs("<dt>vision projector</dt><dd><span class=\"mono\">",
		      out);
		h(out, qa_path_base(inv->mmproj.file));
		fprintf(out, "</span>: %" PRIu32 " tensors, %s parameters, %s "
			"(counted in the fit)</dd>\n", inv->mmproj.tensors, mp,
			mb);
	}
	fputs("</dl>\n", out);
}

/* ---- size by component ---------------------------------------------------------- */

/* The palette's grey (#999999): past the twelfth component, the colour
 * of the one "other" segment. */
#define GREY 7

/*
 * Component i's index in the palette. Up to 12 components, one colour
 * each, in order. More (DeepSeek-V3's MLA, experts and MTP head make
 * 19) and colours would repeat, a segment reading as another: the 11
 * largest by bytes take the palette's 11 colours other than grey, and the
 * rest are grey (*other set), drawn as one "other" segment.
 */
static size_t
component_colour(const struct qa_inventory *inv, uint32_t i, bool *other)
{
	const struct qa_component *c = inv->components;
	uint32_t j, rank = 0;

	*other = false;
	if (inv->n_components <= N_PALETTE)
		return i;
	for (j = 0; j < inv->n_components; j++)
		if (c[j].bytes > c[i].bytes ||
		    (c[j].bytes == c[i].bytes && j < i))
			rank++;
	if (rank >= N_PALETTE - 1) {
		*other = true;
		return GREY;
	}
	return rank < GREY ? rank : rank + 1;
}

static void
components(FILE *out, const struct qa_inventory *inv, size_t idx)
{
	uint64_t other_bytes = 0;
	uint32_t i, n_other = 0;
	double x = 0;
	bool other;
	size_t shade;

	fputs("<h3>Size by component</h3>\n", out);
	if (inv->n_components == 0 || inv->bytes == 0) {
		fputs("<p>No tensors.</p>\n", out);
		return;
	}
	fprintf(out, "<svg viewBox=\"0 0 1000 44\" role=\"img\" "
		"aria-labelledby=\"sz%zu\"><title id=\"sz%zu\">Bytes by "
		"component, as a stacked bar; the table below gives the "
		"numbers</title>\n", idx, idx);
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];
		double w = 1000.0 * (double)c->bytes / (double)inv->bytes;
		char sz[32];

		if (w <= 0)
			continue;
		shade = component_colour(inv, i, &other);
		if (other) {
			other_bytes += c->bytes;
			n_other++;
			continue;
		}
		qa_fmt_bytes(sz, sizeof(sz), c->bytes);
		fprintf(out, "<rect x=\"%.2f\" y=\"4\" width=\"%.2f\" "
			"height=\"36\" fill=\"%s\"><title>", x, w,
			palette[shade]);
		h(out, c->name);
		fprintf(out, ": %s (%.1f %%)</title></rect>\n", sz,
			100.0 * (double)c->bytes / (double)inv->bytes);
		x += w;
	}
	if (n_other) {
		char sz[32];

		qa_fmt_bytes(sz, sizeof(sz), other_bytes);
		fprintf(out, "<rect x=\"%.2f\" y=\"4\" width=\"%.2f\" "
			"height=\"36\" fill=\"%s\"><title>%" PRIu32 " other "
			"components: %s (%.1f %%)</title></rect>\n", x,
			1000.0 * (double)other_bytes / (double)inv->bytes,
			palette[GREY], n_other, sz,
			100.0 * (double)other_bytes / (double)inv->bytes);
	}
	fputs("</svg>\n<div class=\"scroll\"><table><thead><tr><th>"
	      "component</th><th class=\"n\">tensors</th><th class=\"n\">"
	      "params</th><th class=\"n\">size</th><th class=\"n\">share"
	      "</th><th class=\"n\">bpw</th><th>precision</th></tr></thead>"
	      "<tbody>\n", out);
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];
		char p[32], sz[32];
		uint32_t k;

		qa_fmt_params(p, sizeof(p), c->params);
		qa_fmt_bytes(sz, sizeof(sz), c->bytes);
		fprintf(out, "<tr><td><span style=\"color:%s\" "
			"aria-hidden=\"true\">&#9632;</span> ",
			palette[component_colour(inv, i, &other)]);
		h(out, c->name);
		fprintf(out, "</td><td class=\"n\">%" PRIu32 "</td><td "
			"class=\"n\">%s</td><td class=\"n\">%s</td><td "
			"class=\"n\">%.1f %%</td><td class=\"n\">", c->tensors,
			p, sz, 100.0 * (double)c->bytes / (double)inv->bytes);
		bpw_text(out, c->bytes, c->params);
		fputs("</td><td>", out);
		for (k = 0; k < c->n_dtypes; k++) {
			if (k)
				fputs(", ", out);
			h(out, c->dtypes[k].dtype);
			fprintf(out, " %" PRIu32, c->dtypes[k].tensors);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
}

/* ---- the precision map ----------------------------------------------------------- */

static void
legend(FILE *out)
{
	size_t i;

	fputs("<p class=\"legend\">bits per weight: ", out);
	for (i = 0; i < N_SHADES; i++)
		fprintf(out, "<span style=\"background:%s;color:%s\">%s"
			"</span>", shades[i].bg, shades[i].fg, shades[i].name);
	fputs("<span style=\"background:#e0e0e0;color:#000\">mixed or "
	      "unknown</span></p>\n", out);
}

static void
layer_map(FILE *out, const struct qa_inventory *inv)
{
	struct qa_layer_map m;
	uint32_t row, run, c;

	if (qa_layer_map_build(inv, &m) != 0 || m.n_rows == 0) {
		qa_layer_map_free(&m);
		return;
	}
	fprintf(out, "<h3>Precision by layer</h3>\n<p class=\"muted\">A row "
		"per layer (runs of identical layers merged), a cell per role: "
		"the type its tensors are stored in; MTP and recurrent layers "
		"are marked. %" PRIu32 " layer%s.</p>\n",
		m.n_rows, m.n_rows == 1 ? "" : "s");
	legend(out);
	fputs("<div class=\"scroll\"><table class=\"map\"><thead><tr><th>"
	      "layers</th>", out);
	for (c = 0; c < m.n_cols; c++) {
		fputs("<th>", out);
		h(out, qa_role_name(m.roles[c]));
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (row = 0; row < m.n_rows; row += run) {
		run = qa_layer_map_run(&m, row);
		fprintf(out, "<tr><td class=\"l\">%" PRId32, m.layer[row]);
		if (run > 1)
			fprintf(out, "-%" PRId32, m.layer[row + run - 1]);
		if (m.mtp[row]) {
			fputs(" <strong>MTP</strong>", out);
		} else {
			/* a recurrent (SSM) layer of a hybrid model */
			for (c = 0; c < m.n_cols; c++)
				if (m.cells[(size_t)row * m.n_cols + c] &&
				    qa_layer_map_group(m.roles[c]) ==
				    QA_GROUP_SSM)
					break;
			if (c < m.n_cols)
				fputs(" <em>recurrent</em>", out);
		}
		fputs("</td>", out);
		for (c = 0; c < m.n_cols; c++) {
			const char *cell = m.cells[(size_t)row * m.n_cols + c];
			const struct shade *s;

			if (!cell) {
				fputs("<td>-</td>", out);
				continue;
			}
			s = shade_of(label_bpw(cell));
			fprintf(out, "<td style=\"background:%s;color:%s\">",
				s->bg, s->fg);
			h(out, cell);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
	qa_layer_map_free(&m);
}

/* ---- MTP ------------------------------------------------------------------------ */

static void
mtp_status(FILE *out, const struct qa_inventory *inv)
{
	fputs("<h3>MTP (multi-token prediction) head</h3>\n<p>", out);
	h(out, qa_mtp_status_name(inv->mtp.status));
	if (inv->mtp.declared > 0 || inv->mtp.present > 0)
		fprintf(out, ": %" PRId64 " declared, %" PRId64 " present, %"
			PRIu32 " tensors", inv->mtp.declared > 0 ?
			inv->mtp.declared : 0, inv->mtp.present > 0 ?
			inv->mtp.present : 0, inv->mtp.tensors);
	if (inv->mtp.status == QA_MTP_ABSENT && inv->mtp.family) {
		fputs(" (", out);
		h(out, inv->mtp.family);
		fputs(" normally ships one)", out);
	}
	if (inv->mtp.missing) {
		fputs(". ", out);
		h(out, inv->mtp.missing);
	}
	if (inv->mtp.not_loaded) {
		fputs(". ", out);
		h(out, inv->mtp.not_loaded);
	}
	fputs("</p>\n", out);
}

/* ---- fit ----------------------------------------------------------------------- */

struct seg {
	const char *name;
	uint64_t bytes;
};

static void
fit(FILE *out, const struct qa_inventory *inv, size_t idx)
{
	const struct qa_fit_result *f = inv->fit;
	double scale = 0;
	size_t i, k;

	if (!f && !inv->fit_error)
		return;
	fputs("<h3>Memory fit</h3>\n", out);
	if (!f) {
		fputs("<p>No fit: ", out);
		h(out, inv->fit_error);
		fputs("</p>\n", out);
		return;
	}
	fprintf(out, "<p><span class=\"badge %s\">", strcmp(f->verdict ?
		f->verdict : "", "fits") == 0 ? "pass" : strcmp(f->verdict ?
		f->verdict : "", "tight") == 0 ? "warn" : "fail");
	h(out, f->verdict ? f->verdict : "does-not-fit");
	fprintf(out, "</span> %s, context %" PRId64 ", KV cache ",
		qa_fit_engine_name(f->engine), f->context);
	h(out, f->kv_type_k ? f->kv_type_k : "f16");
	putc('/', out);
	h(out, f->kv_type_v ? f->kv_type_v : "f16");
	fputs(".</p>\n", out);
	for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++)
		if ((double)f->devices[i].vram_bytes > scale)
			scale = (double)f->devices[i].vram_bytes;
	if (scale > 0 && f->n_devices > 0) {
		double row_h = 46;

		fprintf(out, "<svg viewBox=\"0 0 1000 %.0f\" role=\"img\" "
			"aria-labelledby=\"fit%zu\"><title id=\"fit%zu\">Memory "
			"per GPU as stacked bars (weights, KV cache, recurrent "
			"state, compute, overhead, free), with the usable "
			"memory marked; the table below gives the numbers"
			"</title>\n", row_h * (double)f->n_devices + 4, idx,
			idx);
		for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++) {
			const struct qa_fit_device *d = &f->devices[i];
			struct seg segs[] = {
				{ "weights", d->weights_bytes },
				{ "KV cache", d->kv_bytes },
				{ "recurrent state", d->recurrent_bytes },
				{ "compute", d->compute_bytes },
				{ "overhead", d->overhead_bytes },
			};
			double x = 160, y = 4 + row_h * (double)i;
			double w_total = 830;

			fprintf(out, "<text x=\"0\" y=\"%.0f\">GPU%zu ", y + 22,
				i);
			h(out, d->name);
			fputs("</text>\n", out);
			fprintf(out, "<rect x=\"160\" y=\"%.0f\" width=\"%.2f\" "
				"height=\"30\" fill=\"#f4f4f4\" stroke=\"#888\">"
				"<title>%.0f MiB total</title></rect>\n", y,
				w_total * (double)d->vram_bytes / scale,
				(double)d->vram_bytes / MIB);
			for (k = 0; k < sizeof(segs) / sizeof(segs[0]); k++) {
				double w = w_total * (double)segs[k].bytes /
					   scale;

				if (w <= 0)
					continue;
				if (x + w > 160 + w_total)
					w = 160 + w_total - x;
				fprintf(out, "<rect x=\"%.2f\" y=\"%.0f\" "
					"width=\"%.2f\" height=\"30\" fill=\"%s\">"
					"<title>%s: %.2f MiB</title></rect>\n", x,
					y, w, palette[k], segs[k].name,
					(double)segs[k].bytes / MIB);
				x += w;
			}
			/* the usable line: what the engine may use */
			fprintf(out, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.0f\" "
				"y2=\"%.0f\" stroke=\"#000\" stroke-width=\"3\" "
				"stroke-dasharray=\"4 2\"><title>usable: %.0f MiB"
				"</title></line>\n", 160 + w_total *
				(double)d->usable_bytes / scale, 160 + w_total *
				(double)d->usable_bytes / scale, y - 2, y + 32,
				(double)d->usable_bytes / MIB);
		}
		fputs("</svg>\n<p class=\"legend\">", out);
		{
			static const char *const names[] = {
				"weights", "KV cache", "recurrent state",
				"compute", "overhead",
			};

			for (k = 0; k < 5; k++)
				fprintf(out, "<span style=\"background:%s;"
					"color:%s\">%s</span>", palette[k],
					k == 1 || k == 4 ? "#000" : "#fff",
					names[k]);
		}
		fputs("<span style=\"background:#f4f4f4\">free</span> dashed "
		      "line: usable memory</p>\n", out);
	}
	fputs("<div class=\"scroll\"><table><thead><tr><th>device</th><th>"
	      "layers</th><th class=\"n\">usable MiB</th><th class=\"n\">"
	      "weights</th><th class=\"n\">KV</th><th class=\"n\">recurrent"
	      "</th><th class=\"n\">compute</th><th class=\"n\">overhead"
	      "</th><th class=\"n\">free</th></tr></thead><tbody>\n", out);
	for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++) {
		const struct qa_fit_device *d = &f->devices[i];

		fprintf(out, "<tr><td>GPU%zu ", i);
		h(out, d->name);
		fputs("</td><td>", out);
		if (d->first_layer >= 0 && d->last_layer >= d->first_layer)
			fprintf(out, "%" PRId32 "-%" PRId32 "%s", d->first_layer,
				d->last_layer, d->has_output ? " + output" : "");
		else
			fputs(d->has_output ? "output" : "-", out);
		fprintf(out, "</td><td class=\"n\">%.2f</td><td class=\"n\">"
			"%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f"
			"</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td>"
			"<td class=\"n\">%.2f</td></tr>\n",
			(double)d->usable_bytes / MIB,
			(double)d->weights_bytes / MIB,
			(double)d->kv_bytes / MIB,
			(double)d->recurrent_bytes / MIB,
			(double)d->compute_bytes / MIB,
			(double)d->overhead_bytes / MIB,
			(double)d->free_bytes / MIB);
	}
	fputs("</tbody></table></div>\n<p>Largest context: f16 ", out);
	ctx(out, f->max_context_f16);
	fputs(", q8_0 ", out);
	ctx(out, f->max_context_q8_0);
	fputs(", q4_0 ", out);
	ctx(out, f->max_context_q4_0);
	putc('.', out);
	if (f->placement.chosen) {
		fputs(" Split used (-ts):", out);
		for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++)
			fprintf(out, "%s%.0f", i ? "," : " ",
				f->placement.tensor_split[i]);
		fputs(".", out);
	}
	if (f->decode_tokens_per_s_max > 0)
		fprintf(out, " Decode ceiling %.1f tokens/s.",
			f->decode_tokens_per_s_max);
	fputs("</p>\n", out);
	if (f->formula && *f->formula) {
		fputs("<p class=\"muted\">Formula: ", out);
		h(out, f->formula);
		fputs("</p>\n", out);
	}
	if (f->n_notes) {
		fputs("<ul class=\"muted\">", out);
		for (i = 0; i < f->n_notes &&
		     i < sizeof(f->notes) / sizeof(f->notes[0]); i++)
			if (f->notes[i]) {
				fputs("<li>", out);
				h(out, f->notes[i]);
				fputs("</li>", out);
			}
		fputs("</ul>\n", out);
	}
}

/* "4096×151936", as stored (GGUF ne order) */
static void
shape(FILE *out, const struct qa_tensor *t)
{
	uint32_t d;

	for (d = 0; d < t->n_dims && d < QA_MAX_DIMS; d++)
		fprintf(out, "%s%" PRIu64, d ? "&#215;" : "", t->shape[d]);
}

/* ---- tensors --------------------------------------------------------------------- */

static void
tensors(FILE *out, const struct qa_inventory *inv, size_t idx)
{
	uint32_t i, n = inv->n_tensors;

	if (n == 0)
		return;
	if (n > HTML_MAX_TENSOR_ROWS)
		n = HTML_MAX_TENSOR_ROWS;
	fprintf(out, "<h3>Tensors</h3>\n<details><summary>%" PRIu32
		" tensor%s</summary>\n<input class=\"filter\" hidden "
		"type=\"search\" placeholder=\"filter by name, type, role\" "
		"aria-label=\"filter the tensors\" data-table=\"t%zu\"> "
		"<span class=\"muted\"></span>\n", inv->n_tensors,
		inv->n_tensors == 1 ? "" : "s", idx);
	if (n < inv->n_tensors)
		fprintf(out, "<p>The first %" PRIu32 " are listed; the JSON "
			"report has all of them.</p>\n", n);
	fprintf(out, "<div class=\"scroll\"><table id=\"t%zu\"><thead><tr>"
		"<th>name</th><th>type</th><th>shape</th><th class=\"n\">size"
		"</th><th>role</th><th class=\"n\">layer</th></tr></thead>"
		"<tbody>\n", idx);
	for (i = 0; i < n; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		char sz[32];

		qa_fmt_bytes(sz, sizeof(sz), t->bytes);
		fputs("<tr><td class=\"mono\">", out);
		h(out, t->name);
		fputs("</td><td>", out);
		h(out, t->dtype);
		fputs("</td><td class=\"mono\">", out);
		shape(out, t);
		fprintf(out, "</td><td class=\"n\">%s</td><td>%s%s</td><td "
			"class=\"n\">", sz, qa_role_name(t->role),
			t->mtp ? " (MTP)" : "");
		if (t->layer >= 0)
			fprintf(out, "%" PRId32, t->layer);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table></div></details>\n", out);
}

/* ---- the comparison ------------------------------------------------------------- */

/* The bits per weight of a component, or "-" when the model has none. */
static void
cmp_bpw(FILE *out, const struct qa_inventory *inv, const char *name)
{
	const struct qa_component *c = component(inv, name);

	fputs("<td class=\"n\">", out);
	if (c)
		bpw_text(out, c->bytes, c->params);
	else
		fputs("-", out);
	fputs("</td>", out);
}

static void
comparison(FILE *out, struct qa_inventory *const *invs, size_t n,
	   const struct qa_report_options *opt)
{
	static const char *const comps[] = {
		"embed", "attn_q", "attn_k", "attn_v", "attn_o", "ffn_down",
		"expert_down", "lm_head", "mtp",
	};
	bool shown[sizeof(comps) / sizeof(comps[0])] = { false };
	uint64_t most = 0;
	size_t i, k;
	bool any_fit = false;

	for (i = 0; i < n; i++) {
		if (invs[i]->bytes > most)
			most = invs[i]->bytes;
		any_fit |= invs[i]->fit != NULL;
	}
	fprintf(out, "<section id=\"compare\"><h2>Comparison of %zu models"
		"</h2>\n<svg viewBox=\"0 0 1000 %zu\" role=\"img\" "
		"aria-labelledby=\"cmp\"><title id=\"cmp\">Size of each model "
		"as a bar; the table below gives the numbers</title>\n", n,
		28 * n + 4);
	for (i = 0; i < n; i++) {
		char sz[32];
		double w = most ? 600.0 * (double)invs[i]->bytes /
			   (double)most : 0;

		qa_fmt_bytes(sz, sizeof(sz), invs[i]->bytes);
		fprintf(out, "<rect x=\"300\" y=\"%zu\" width=\"%.2f\" "
			"height=\"22\" fill=\"%s\"></rect><text x=\"0\" "
			"y=\"%zu\">", 4 + 28 * i, w, palette[i % N_PALETTE],
			20 + 28 * i);
		h(out, qa_path_base(invs[i]->path));
		fprintf(out, "</text><text x=\"%.2f\" y=\"%zu\">%s</text>\n",
			306 + w, 20 + 28 * i, sz);
	}
	/* a component none of the models has is no column */
	for (k = 0; k < sizeof(comps) / sizeof(comps[0]); k++)
		for (i = 0; i < n && !shown[k]; i++)
			shown[k] = component(invs[i], comps[k]) != NULL;
	fputs("</svg>\n<div class=\"scroll\"><table><thead><tr><th>model</th>"
	      "<th>verdict</th><th class=\"n\">size</th><th class=\"n\">bpw"
	      "</th>", out);
	for (k = 0; k < sizeof(comps) / sizeof(comps[0]); k++)
		if (shown[k])
			fprintf(out, "<th class=\"n\">%s bpw</th>", comps[k]);
	fputs("<th>MTP</th>", out);
	if (any_fit)
		fputs("<th>fit</th><th class=\"n\">max ctx f16</th><th "
		      "class=\"n\">q8_0</th><th class=\"n\">q4_0</th>", out);
	fputs("</tr></thead><tbody>\n", out);
	for (i = 0; i < n; i++) {
		const struct qa_inventory *inv = invs[i];
		char sz[32];

		qa_fmt_bytes(sz, sizeof(sz), inv->bytes);
		fprintf(out, "<tr><td class=\"mono nw\"><a href=\"#model-%zu\" "
			"title=\"", i);
		h(out, inv->path);
		fputs("\">", out);
		h(out, qa_path_base(inv->path));
		fputs("</a></td><td>", out);
		badge(out, qa_verdict(inv, opt->fail_on));
		fprintf(out, "</td><td class=\"n nw\">%s</td><td class=\"n\">",
			sz);
		bpw_text(out, inv->bytes, inv->params);
		fputs("</td>", out);
		for (k = 0; k < sizeof(comps) / sizeof(comps[0]); k++)
			if (shown[k])
				cmp_bpw(out, inv, comps[k]);
		fputs("<td>", out);
		h(out, qa_mtp_status_name(inv->mtp.status));
		fputs("</td>", out);
		if (any_fit && inv->fit) {
			const struct qa_fit_result *f = inv->fit;

			fputs("<td>", out);
			h(out, f->verdict ? f->verdict : "does-not-fit");
			fputs("</td><td class=\"n\">", out);
			ctx(out, f->max_context_f16);
			fputs("</td><td class=\"n\">", out);
			ctx(out, f->max_context_q8_0);
			fputs("</td><td class=\"n\">", out);
			ctx(out, f->max_context_q4_0);
			fputs("</td>", out);
		} else if (any_fit) {
			fputs("<td>-</td><td class=\"n\">-</td><td class=\"n\">"
			      "-</td><td class=\"n\">-</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n<p class=\"muted\">bpw: stored bits "
	      "per parameter of each component (scales and zero points "
	      "counted in); \"-\": the model has no such tensors.</p>\n"
	      "</section>\n", out);
}

/* ---- the page ------------------------------------------------------------------ */

static void
csp_hash(char out[64])
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789+/";
	struct qa_sha256 s;
	unsigned char d[33];
	size_t i, k = 0;

	qa_sha256_init(&s);
	qa_sha256_update(&s, script, sizeof(script) - 1);
	qa_sha256_final(&s, d);
	d[32] = 0;
	for (i = 0; i < 33; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 |
			     (uint32_t)(i + 1 < 33 ? d[i + 1] : 0) << 8 |
			     (uint32_t)(i + 2 < 33 ? d[i + 2] : 0);

		out[k++] = b64[v >> 18 & 63];
		out[k++] = b64[v >> 12 & 63];
		out[k++] = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
		out[k++] = i + 2 < 32 ? b64[v & 63] : '=';
	}
	out[k] = '\0';
}

static void
advisories(FILE *out, const struct qa_report_options *opt)
{
	size_t i;

	if (!opt->n_advisories)
		return;
	fputs("<section id=\"setup\"><h2>Setup advisories</h2><ul>\n", out);
	for (i = 0; i < opt->n_advisories; i++) {
		const struct qa_advisory *a = &opt->advisories[i];

		fputs("<li>", out);
		h(out, a->message);
		fputs("</li>\n", out);
	}
	fputs("</ul></section>\n", out);
}

/* The inputs that could not be audited, each with the line that says
 * why (a read error's file and offset, a path that is no model). */
static void
not_audited(FILE *out, const struct qa_report_options *opt)
{
	size_t i;

	if (!opt->n_failed)
		return;
	fputs("<section id=\"not-audited\"><h2>Not audited</h2><ul>\n", out);
	for (i = 0; i < opt->n_failed; i++) {
		fputs("<li><span class=\"badge fail\">not audited</span> "
		      "<span class=\"mono\">", out);
		h(out, opt->failed[i].message);
		fprintf(out, "</span> (exit %d)</li>\n",
			opt->failed[i].exit_code);
	}
	fputs("</ul></section>\n", out);
}

/* The page up to <main>: head, policy, style, the report's header. */
static void
page_begin(FILE *out, const char *title_verdict, const char *title_what,
	   const char *heading)
{
	char hash[64];

	csp_hash(hash);
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
		"charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width="
		"device-width, initial-scale=1\">\n<meta http-equiv=\"Content-"
		"Security-Policy\" content=\"default-src 'none'; style-src "
		"'unsafe-inline'; img-src data:; script-src 'sha256-%s'; "
		"base-uri 'none'; form-action 'none'\">\n<meta name=\""
		"generator\" content=\"quantaudit %s\">\n<title>quantaudit: ",
		hash, QA_VERSION);
	fputs(title_verdict, out);
	if (title_what) {
		fputs(" \xc2\xb7 ", out);
		h(out, title_what);
	}
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n"
		"<header><h1>%s</h1>\n<p>", style, heading);
}

static int
page_end(FILE *out)
{
	fprintf(out, "</main>\n<footer><p class=\"muted\">Written by "
		"quantaudit %s from the models' headers. Every name and value "
		"from a model is escaped; this page loads nothing and runs "
		"only its own filter script.</p></footer>\n<script>%s</script>"
		"\n</body>\n</html>\n", QA_VERSION, script);
	fflush(out);
	return ferror(out) ? -1 : 0;
}

int
qa_report_html(FILE *out, struct qa_inventory *const *invs, size_t n,
	       const struct qa_report_options *opt)
{
	/* a model that was not audited did not pass */
	const char *verdict = !n ? NULL : opt->n_failed ? "fail" :
			      qa_verdict_all(invs, n, opt->fail_on);
	char what[32];
	size_t i;

	snprintf(what, sizeof(what), "%zu models", n);
	page_begin(out, n == 0 ? "no input" : verdict, n == 1 ? invs[0]->path :
		   n > 1 ? what : NULL, "quantaudit report");
	if (n)
		badge(out, verdict);
	else
		fputs("<span class=\"badge fail\">no input</span>", out);
	fprintf(out, " %zu model%s \xc2\xb7 fails on %s \xc2\xb7 quantaudit "
		"%s</p></header>\n<main>\n", n, n == 1 ? "" : "s",
		qa_severity_name(opt->fail_on), QA_VERSION);
	advisories(out, opt);
	not_audited(out, opt);
	if (n > 1)
		comparison(out, invs, n, opt);
	for (i = 0; i < n; i++) {
		const struct qa_inventory *inv = invs[i];

		fprintf(out, "<section class=\"model\" id=\"model-%zu\">\n"
			"<h2>", i);
		badge(out, qa_verdict(inv, opt->fail_on));
		fputs(" <span class=\"mono\">", out);
		h(out, inv->path);
		fputs("</span></h2>\n", out);
		findings(out, inv);
		if (opt->view == QA_VIEW_FIT)
			fit(out, inv, i);
		card(out, inv);
		mtp_status(out, inv);
		components(out, inv, i);
		layer_map(out, inv);
		if (opt->view != QA_VIEW_FIT)
			fit(out, inv, i);
		if (!opt->summary)
			tensors(out, inv, i);
		fputs("</section>\n", out);
	}
	return page_end(out);
}

/* ---- diff ------------------------------------------------------------------------ */

static void
diff_fields(FILE *out, const char *title, const struct qa_diff_field *v,
	    size_t n)
{
	size_t i;

	if (n == 0)
		return;
	fprintf(out, "<h3>%s (%zu)</h3>\n<div class=\"scroll\"><table><thead>"
		"<tr><th>key</th><th>A</th><th>B</th></tr></thead><tbody>\n",
		title, n);
	for (i = 0; i < n; i++) {
		fputs("<tr><td class=\"mono\">", out);
		h(out, v[i].name);
		fputs("</td><td class=\"mono\">", out);
		h(out, v[i].a ? v[i].a : "-");
		fputs("</td><td class=\"mono\">", out);
		h(out, v[i].b ? v[i].b : "-");
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
}

static void
diff_tensor_cell(FILE *out, const struct qa_tensor *t)
{
	fputs("<td>", out);
	if (!t) {
		fputs("-</td>", out);
		return;
	}
	h(out, t->dtype);
	fputs(" <span class=\"mono\">", out);
	shape(out, t);
	fputs("</span></td>", out);
}

int
qa_report_diff_html(FILE *out, const struct qa_diff *d)
{
	struct qa_inventory *pair[2];
	uint64_t most = 1;
	size_t i, n;
	bool differs = qa_diff_differs(d);

	pair[0] = (struct qa_inventory *)(uintptr_t)d->a;
	pair[1] = (struct qa_inventory *)(uintptr_t)d->b;
	page_begin(out, differs ? "differ" : "same", NULL, "quantaudit diff");
	fprintf(out, "<span class=\"badge %s\">%s</span> A: <span class="
		"\"mono\">", differs ? "warn" : "pass",
		differs ? "they differ" : "no difference");
	h(out, d->a->path);
	fputs("</span> \xc2\xb7 B: <span class=\"mono\">", out);
	h(out, d->b->path);
	fputs("</span></p></header>\n<main>\n", out);
	{
		struct qa_report_options opt;

		memset(&opt, 0, sizeof(opt));
		opt.fail_on = QA_SEV_ERROR;
		comparison(out, pair, 2, &opt);
	}
	fputs("<section id=\"components\"><h2>Components</h2>\n", out);
	for (i = 0; i < d->n_components; i++) {
		const struct qa_diff_component *c = &d->components[i];

		if (c->a && c->a->bytes > most)
			most = c->a->bytes;
		if (c->b && c->b->bytes > most)
			most = c->b->bytes;
	}
	fprintf(out, "<svg viewBox=\"0 0 1000 %zu\" role=\"img\" "
		"aria-labelledby=\"dc\"><title id=\"dc\">Bytes of each "
		"component in A (upper bar) and B (lower bar); the table below "
		"gives the numbers</title>\n", 34 * d->n_components + 4);
	for (i = 0; i < d->n_components; i++) {
		const struct qa_diff_component *c = &d->components[i];
		double wa = c->a ? 700.0 * (double)c->a->bytes / (double)most : 0;
		double wb = c->b ? 700.0 * (double)c->b->bytes / (double)most : 0;

		fprintf(out, "<text x=\"0\" y=\"%zu\">", 22 + 34 * i);
		h(out, c->name);
		fprintf(out, "</text><rect x=\"200\" y=\"%zu\" width=\"%.2f\" "
			"height=\"13\" fill=\"%s\"><title>A: ", 6 + 34 * i, wa,
			palette[0]);
		h(out, c->type_a ? c->type_a : "-");
		fprintf(out, "</title></rect><rect x=\"200\" y=\"%zu\" "
			"width=\"%.2f\" height=\"13\" fill=\"%s\"><title>B: ",
			20 + 34 * i, wb, palette[1]);
		h(out, c->type_b ? c->type_b : "-");
		fputs("</title></rect>\n", out);
	}
	fprintf(out, "</svg>\n<p class=\"legend\"><span style=\"background:"
		"%s;color:#fff\">A</span><span style=\"background:%s\">B"
		"</span></p>\n<div class=\"scroll\"><table><thead><tr><th>"
		"component</th><th>A type</th><th>B type</th><th class=\"n\">"
		"A bytes</th><th class=\"n\">B bytes</th><th class=\"n\">A bpw"
		"</th><th class=\"n\">B bpw</th></tr></thead><tbody>\n",
		palette[0], palette[1]);
	for (i = 0; i < d->n_components; i++) {
		const struct qa_diff_component *c = &d->components[i];
		bool changed = c->type_a && c->type_b &&
			       strcmp(c->type_a, c->type_b) != 0;

		fprintf(out, "<tr%s><td>", changed ?
			" style=\"font-weight:700\"" : "");
		h(out, c->name);
		fputs("</td><td>", out);
		h(out, c->type_a ? c->type_a : "-");
		fputs("</td><td>", out);
		h(out, c->type_b ? c->type_b : "-");
		fputs("</td>", out);
		if (c->a)
			fprintf(out, "<td class=\"n\">%" PRIu64 "</td>",
				c->a->bytes);
		else
			fputs("<td class=\"n\">-</td>", out);
		if (c->b)
			fprintf(out, "<td class=\"n\">%" PRIu64 "</td>",
				c->b->bytes);
		else
			fputs("<td class=\"n\">-</td>", out);
		fputs("<td class=\"n\">", out);
		if (c->a)
			bpw_text(out, c->a->bytes, c->a->params);
		fputs("</td><td class=\"n\">", out);
		if (c->b)
			bpw_text(out, c->b->bytes, c->b->params);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table></div></section>\n", out);
	fprintf(out, "<section id=\"tensors\"><h2>Tensors</h2>\n<p>%" PRIu32
		" paired by %s, %" PRIu32 " unchanged, %" PRIu32 " added, %"
		PRIu32 " removed, %" PRIu32 " retyped, %" PRIu32 " reshaped",
		d->paired, d->by_role ? "role and layer" : "name", d->same,
		d->count[QA_D_ADDED], d->count[QA_D_REMOVED],
		d->count[QA_D_RETYPED], d->count[QA_D_RESHAPED]);
	if (d->content)
		fprintf(out, ", %" PRIu32 " changed, %" PRIu32 " renamed",
			d->count[QA_D_CHANGED], d->count[QA_D_RENAMED]);
	fputs(".</p>\n", out);
	n = d->n_tensors < HTML_MAX_TENSOR_ROWS ? d->n_tensors :
	    HTML_MAX_TENSOR_ROWS;
	if (n) {
		fputs("<input class=\"filter\" hidden type=\"search\" "
		      "placeholder=\"filter\" aria-label=\"filter the tensor "
		      "differences\" data-table=\"td\"> <span class=\"muted\">"
		      "</span>\n<div class=\"scroll\"><table id=\"td\"><thead>"
		      "<tr><th>change</th><th>A</th><th>B</th><th>A type</th>"
		      "<th>B type</th></tr></thead><tbody>\n", out);
		for (i = 0; i < n; i++) {
			const struct qa_diff_tensor *t = &d->tensors[i];

			fprintf(out, "<tr><td>%s</td><td class=\"mono\">",
				qa_diff_kind_name(t->kind));
			h(out, t->a ? t->a->name : "-");
			fputs("</td><td class=\"mono\">", out);
			h(out, t->b ? t->b->name : "-");
			fputs("</td>", out);
			diff_tensor_cell(out, t->a);
			diff_tensor_cell(out, t->b);
			fputs("</tr>\n", out);
		}
		fputs("</tbody></table></div>\n", out);
		if (n < d->n_tensors)
			fprintf(out, "<p>The first %zu of %zu differences are "
				"listed; the JSON report has all of them.</p>\n",
				n, d->n_tensors);
	}
	fputs("</section>\n", out);
	diff_fields(out, "Hyperparameters that differ", d->hparams,
		    d->n_hparams);
	diff_fields(out, "GGUF metadata that differs", d->metadata,
		    d->n_metadata);
	diff_fields(out, "config.json keys that differ", d->config,
		    d->n_config);
	return page_end(out);
}
