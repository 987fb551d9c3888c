/* SPDX-License-Identifier: MIT */
/*
 * CI reporters: Markdown for a pull-request comment, SARIF 2.1.0 for
 * code-scanning uploads and JUnit XML for test-report views (docs/ci.md).
 *
 * All three are deterministic: inputs in command-line order, rules in
 * registry order (then the policy's rules), findings in the order found
 * (Markdown: errors first). Text from model files (names, paths, tensor
 * names, metadata) may be hostile or not UTF-8, so every string goes
 * through the escaper of its format: JSON strings via src/core/jsonw.c, XML
 * text and attributes with entities and control characters replaced,
 * Markdown cells with the characters that would start markup escaped.
 * Bytes that are not valid UTF-8 become U+FFFD everywhere.
 */
#include "report/report.h"
#include "core/units.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/escape.h"
#include "core/jsonw.h"
#include "report/report_fit.h"

/*
 * Where the documentation lives, for SARIF informationUri and the rules'
 * helpUri (docs/rules.md#qa1234-id is GitHub's anchor for the heading
 * "QA1234 `id`"). One place to change when the project moves.
 */
#define QA_HOME_URI "https://github.com/quantaudit/quantaudit"
#define QA_RULES_DOC_URI QA_HOME_URI "/blob/main/docs/rules.md"

#define SARIF_SCHEMA_URI "https://json.schemastore.org/sarif-2.1.0.json"

/* Markdown rows of findings per input; a PR comment has a size limit
 * (65536 characters on GitHub) and the full list is in the other
 * formats. */
#define MD_MAX_FINDING_ROWS 200

/* ---- the rule list shared by SARIF and JUnit -------------------------- */

/*
 * Registry rules, then the policy's rules (opt->extra_rules), then any
 * other rule a finding points at (a policy whose rules were not passed
 * in): every finding has its rule in the list.
 */
struct rule_list {
	const struct qa_rule *reg;
	size_t n_reg;
	const struct qa_rule *extra;
	size_t n_extra;
	const struct qa_rule **other;
	size_t n_other;
};

static size_t
rl_count(const struct rule_list *rl)
{
	return rl->n_reg + rl->n_extra + rl->n_other;
}

static const struct qa_rule *
rl_get(const struct rule_list *rl, size_t i)
{
	if (i < rl->n_reg)
		return &rl->reg[i];
	i -= rl->n_reg;
	if (i < rl->n_extra)
		return &rl->extra[i];
	return rl->other[i - rl->n_extra];
}

/* Index of rule in the list, or -1. Pointers first (findings point into
 * the tables), codes as a fallback. */
static long
rl_index(const struct rule_list *rl, const struct qa_rule *rule)
{
	size_t i;

	if (rule >= rl->reg && rule < rl->reg + rl->n_reg)
		return (long)(rule - rl->reg);
	if (rl->extra && rule >= rl->extra && rule < rl->extra + rl->n_extra)
		return (long)(rl->n_reg + (size_t)(rule - rl->extra));
	for (i = 0; i < rl_count(rl); i++)
		if (rl_get(rl, i)->code == rule->code)
			return (long)i;
	return -1;
}

/* Returns 0, or -1 when out of memory (the list is then still usable,
 * missing the stray rules). */
static int
rl_init(struct rule_list *rl, struct qa_inventory *const *invs, size_t n,
	const struct qa_report_options *opt)
{
	size_t i, cap = 0;
	uint32_t k;

	memset(rl, 0, sizeof(*rl));
	rl->reg = qa_rules(&rl->n_reg);
	rl->extra = opt->extra_rules;
	rl->n_extra = opt->extra_rules ? opt->n_extra_rules : 0;
	for (i = 0; i < n; i++) {
		for (k = 0; k < invs[i]->n_findings; k++) {
			const struct qa_rule *r = invs[i]->findings[k].rule;

			if (rl_index(rl, r) >= 0)
				continue;
			if (rl->n_other == cap) {
				size_t nc = cap ? 2 * cap : 8;
				const struct qa_rule **p = realloc(rl->other,
					nc * sizeof(*p));

				if (!p)
					return -1;
				rl->other = p;
				cap = nc;
			}
			rl->other[rl->n_other++] = r;
		}
	}
	return 0;
}

static void
rl_free(struct rule_list *rl)
{
	free(rl->other);
}

/* ---- small text helpers ----------------------------------------------- */

static void
code_text(char *dst, size_t size, const struct qa_rule *r)
{
	snprintf(dst, size, "QA%04u", (unsigned)r->code);
}

static const char *
rule_summary(const struct qa_rule *r)
{
	return r->summary && *r->summary ? r->summary : r->id;
}

/* "summary: detail", or the summary alone; malloc'd, NULL when out of
 * memory. The same message the JSON report gives. */
static char *
finding_message(const struct qa_finding *f)
{
	const char *summary = rule_summary(f->rule);
	const char *detail = f->message ? f->message : "";
	size_t n = strlen(summary) + strlen(detail) + 3;
	char *m = malloc(n);

	if (!m)
		return NULL;
	if (*detail)
		snprintf(m, n, "%s: %s", summary, detail);
	else
		snprintf(m, n, "%s", summary);
	return m;
}

/* "file:0x1f40, tensor 'blk.0.attn_q.weight'" (the parts that are known),
 * malloc'd; NULL when out of memory. */
static char *
finding_location(const struct qa_finding *f, const char *input)
{
	const char *file = f->file ? f->file : input;
	size_t n = strlen(file) + (f->tensor ? strlen(f->tensor) : 0) + 64;
	char *s = malloc(n);
	size_t len;

	if (!s)
		return NULL;
	snprintf(s, n, "%s", file);
	if (f->offset >= 0) {
		len = strlen(s);
		snprintf(s + len, n - len, ":0x%" PRIx64, (uint64_t)f->offset);
	}
	if (f->tensor) {
		len = strlen(s);
		snprintf(s + len, n - len, ", tensor '%s'", f->tensor);
	}
	return s;
}

static const char *
sarif_level(enum qa_severity s)
{
	return s == QA_SEV_ERROR ? "error" :
		s == QA_SEV_WARNING ? "warning" : "note";
}

static const char *
verdict_word(const char *v)
{
	return strcmp(v, "fail") == 0 ? "FAIL" :
		strcmp(v, "warn") == 0 ? "WARN" : "PASS";
}

static const char *
fail_on_name(enum qa_severity s)
{
	return s == QA_SEV_NONE ? "never" : qa_severity_name(s);
}

static int
finish(FILE *out)
{
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

/* ---- Markdown --------------------------------------------------------- */

/*
 * Writes s as the content of a table cell (or of any inline text):
 * core/escape.h qa_esc_markdown — control, C1 and bidi characters and
 * the halves of "::" and "##" in the text spelling, then a backslash
 * before \ ` * _ [ ] < > | ~ and a leading #, & as &amp;, invalid UTF-8
 * as \xNN. Text from a model file cannot add HTML, images, [links](...)
 * or table columns, nor drive a terminal or a CI log.
 */
static void
md_text(FILE *out, const char *str)
{
	qa_esc_markdown(out, str);
}

static void
md_model_line(FILE *out, const struct qa_inventory *inv)
{
	const struct qa_hparams *hp = &inv->hp;
	const char *arch = hp->arch ? hp->arch :
		hp->arch_raw ? hp->arch_raw : "unknown";
	char p[32], sz[32], bpw[32];

	qa_fmt_params(p, sizeof(p), inv->params);
	qa_fmt_bytes(sz, sizeof(sz), inv->bytes);
	qa_fmt_bpw(bpw, sizeof(bpw), inv->bytes, inv->params);

	fputs("Model: ", out);
	md_text(out, arch);
	if (hp->arch && hp->arch_raw && strcmp(hp->arch, hp->arch_raw) != 0) {
		fputs(" (", out);
		md_text(out, hp->arch_raw);
		putc(')', out);
	}
	if (hp->name && *hp->name) {
		fputs(", ", out);
		md_text(out, hp->name);
	}
	fprintf(out, " · %s params · %s · %s bpw", p, sz, bpw);
	if (inv->file_type_declared) {
		const char *guess = inv->file_type_guessed;

		fputs(" · file type ", out);
		md_text(out, inv->file_type_declared);
		if (guess && strcmp(guess, inv->file_type_declared) != 0) {
			fputs(" (tensors look like ", out);
			md_text(out, guess);
			putc(')', out);
		}
	} else if (inv->file_type_guessed) {
		fputs(" · file type ", out);
		md_text(out, inv->file_type_guessed);
		fputs(" (guessed)", out);
	}
	/* The verdict of the summary and the MTP check; "absent" names the
	 * family that normally ships an MTP head. */
	fputs(" · MTP ", out);
	md_text(out, qa_mtp_status_name(inv->mtp.status));
	if (inv->mtp.status == QA_MTP_ABSENT && inv->mtp.family) {
		fputs(" (", out);
		md_text(out, inv->mtp.family);
		fputs(" normally ships one)", out);
	} else if (inv->mtp.declared > 0 || inv->mtp.present > 0) {
		fprintf(out, " (%" PRId64 " declared, %" PRId64 " present, %"
			PRIu32 " tensors)", inv->mtp.declared > 0 ?
			inv->mtp.declared : 0, inv->mtp.present > 0 ?
			inv->mtp.present : 0, inv->mtp.tensors);
	}
	if (inv->mtp.draft_only)
		fputs(", MTP-only draft file", out);
	fputs("\n\n", out);
}

static void
md_component_row(FILE *out, const char *name, uint64_t tensors,
		 uint64_t params, uint64_t bytes,
		 const struct qa_component *c)
{
	char p[32], sz[32], bpw[32];
	uint32_t k;

	qa_fmt_params(p, sizeof(p), params);
	qa_fmt_bytes(sz, sizeof(sz), bytes);
	qa_fmt_bpw(bpw, sizeof(bpw), bytes, params);
	fputs("| ", out);
	md_text(out, name);
	fprintf(out, " | %" PRIu64 " | %s | %s | %s | ", tensors, p, sz, bpw);
	/* Precision by module ("NVFP4 48"); empty when no tensor of the
	 * component belongs to a module (norms). */
	for (k = 0; c && k < c->n_precisions; k++) {
		if (k)
			fputs(", ", out);
		md_text(out, c->precisions[k].precision);
		fprintf(out, " %" PRIu32, c->precisions[k].modules);
	}
	fputs(" | ", out);
	for (k = 0; c && k < c->n_dtypes; k++) {
		if (k)
			fputs(", ", out);
		md_text(out, c->dtypes[k].dtype);
		fprintf(out, " %" PRIu32, c->dtypes[k].tensors);
	}
	fputs(" |\n", out);
}

static void
md_components(FILE *out, const struct qa_inventory *inv)
{
	uint32_t i;

	if (inv->n_components == 0) {
		fputs("No tensors.\n\n", out);
		return;
	}
	fputs("| component | tensors | params | size | bpw | precision | "
	      "dtypes |\n"
	      "|---|--:|--:|--:|--:|---|---|\n", out);
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];

		md_component_row(out, c->name, c->tensors, c->params,
				 c->bytes, c);
	}
	md_component_row(out, "total", inv->n_tensors, inv->params,
			 inv->bytes, NULL);
	putc('\n', out);
}

/*
 * The per-layer precision map as a collapsible table: one row per run of
 * layers with identical types, one column per role (full role names; a
 * pull-request comment has no 80-column limit).
 */
static void
md_layer_map(FILE *out, const struct qa_inventory *inv)
{
	struct qa_layer_map m;
	uint32_t row, run, c;

	if (qa_layer_map_build(inv, &m) != 0 || m.n_rows == 0) {
		qa_layer_map_free(&m);
		return;
	}
	fprintf(out, "<details><summary>Precision by layer (%" PRIu32
		" layer%s)</summary>\n\n| layers |", m.n_rows,
		m.n_rows == 1 ? "" : "s");
	for (c = 0; c < m.n_cols; c++) {
		putc(' ', out);
		md_text(out, qa_role_name(m.roles[c]));
		fputs(" |", out);
	}
	fputs("\n|---|", out);
	for (c = 0; c < m.n_cols; c++)
		fputs("---|", out);
	putc('\n', out);
	for (row = 0; row < m.n_rows; row += run) {
		run = qa_layer_map_run(&m, row);
		fprintf(out, "| %" PRId32, m.layer[row]);
		if (run > 1)
			fprintf(out, "-%" PRId32, m.layer[row + run - 1]);
		fputs(m.mtp[row] ? " MTP |" : " |", out);
		for (c = 0; c < m.n_cols; c++) {
			const char *cell = m.cells[(size_t)row * m.n_cols + c];

			putc(' ', out);
			md_text(out, cell ? cell : "-");
			fputs(" |", out);
		}
		putc('\n', out);
	}
	fputs("\n</details>\n\n", out);
	qa_layer_map_free(&m);
}

/* The findings counted past the caps of qa_inv_finding, when any: in
 * no report, so said in every one. */
static void
md_dropped(FILE *out, const struct qa_inventory *inv)
{
	char text[1024];

	if (!qa_inventory_dropped(inv, NULL))
		return;
	fputs("**Findings truncated:** ", out);
	md_text(out, qa_inventory_dropped_text(inv, text, sizeof(text)));
	fputs("\n\n", out);
}

static void
md_findings(FILE *out, const struct qa_inventory *inv)
{
	uint32_t i, rows = 0;
	int s;

	if (inv->n_findings == 0) {
		fputs("No findings.\n\n", out);
		md_dropped(out, inv);
		return;
	}
	fputs("| severity | code | id | message | location |\n"
	      "|---|---|---|---|---|\n", out);
	/* Errors first; within a severity, in the order found. */
	for (s = QA_SEV_NONE; s >= QA_SEV_INFO; s--) {
		for (i = 0; i < inv->n_findings; i++) {
			const struct qa_finding *f = &inv->findings[i];
			char code[16], *msg, *loc;

			if ((int)f->severity != s ||
			    rows == MD_MAX_FINDING_ROWS)
				continue;
			rows++;
			code_text(code, sizeof(code), f->rule);
			msg = finding_message(f);
			loc = finding_location(f, inv->path);
			fprintf(out, "| %s | %s | ",
				qa_severity_name(f->severity), code);
			md_text(out, f->rule->id);
			fputs(" | ", out);
			md_text(out, msg ? msg : rule_summary(f->rule));
			fputs(" | ", out);
			md_text(out, loc ? loc : "");
			fputs(" |\n", out);
			free(msg);
			free(loc);
		}
	}
	putc('\n', out);
	if (rows < inv->n_findings) {
		uint32_t left[QA_SEV_NONE] = { 0 }, seen = 0;

		/* the rows left out: the last ones of the severities
		 * listed in the order above */
		for (s = QA_SEV_NONE - 1; s >= QA_SEV_INFO; s--)
			for (i = 0; i < inv->n_findings; i++)
				if ((int)inv->findings[i].severity == s &&
				    seen++ >= rows)
					left[s]++;
		fprintf(out, "%" PRIu32 " more findings (%" PRIu32 " error%s, %"
			PRIu32 " warning%s, %" PRIu32 " info) are not listed "
			"here; the JSON, SARIF and JUnit reports have all of "
			"them.\n\n", inv->n_findings - rows,
			left[QA_SEV_ERROR], left[QA_SEV_ERROR] == 1 ? "" : "s",
			left[QA_SEV_WARNING],
			left[QA_SEV_WARNING] == 1 ? "" : "s",
			left[QA_SEV_INFO]);
	}
	md_dropped(out, inv);
}

/* "2 errors, 1 warning, 0 info" over the given inventories. */
static void
md_counts(FILE *out, struct qa_inventory *const *invs, size_t n)
{
	uint32_t counts[QA_SEV_NONE + 1] = { 0 };
	uint64_t dropped = 0;
	size_t i;
	uint32_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < invs[i]->n_findings; k++)
			if ((unsigned)invs[i]->findings[k].severity <=
			    QA_SEV_NONE)
				counts[invs[i]->findings[k].severity]++;
	fprintf(out, "%" PRIu32 " error%s, %" PRIu32 " warning%s, %" PRIu32
		" info", counts[QA_SEV_ERROR],
		counts[QA_SEV_ERROR] == 1 ? "" : "s", counts[QA_SEV_WARNING],
		counts[QA_SEV_WARNING] == 1 ? "" : "s", counts[QA_SEV_INFO]);
	for (i = 0; i < n; i++)
		dropped += qa_inventory_dropped(invs[i], NULL);
	if (dropped)
		fprintf(out, " (and %" PRIu64 " more not listed)", dropped);
}

int
qa_report_markdown(FILE *out, struct qa_inventory *const *invs, size_t n,
		   const struct qa_report_options *opt)
{
	size_t i;

	/* No input could be read (exit 3 or 4): there is no verdict. An
	 * input not audited is no pass: with one, the verdict is FAIL. */
	fprintf(out, "## quantaudit: %s\n\n", n == 0 ? "NO INPUT" :
		opt->n_failed ? "FAIL" :
		verdict_word(qa_verdict_all(invs, n, opt->fail_on)));
	fprintf(out, "%zu input%s · ", n, n == 1 ? "" : "s");
	md_counts(out, invs, n);
	if (opt->n_failed)
		fprintf(out, " · %zu not audited", opt->n_failed);
	fprintf(out, " · fails on %s · quantaudit %s\n\n",
		fail_on_name(opt->fail_on), QA_VERSION);
	if (n == 0)
		fputs("No input could be read.\n", out);
	if (opt->n_failed) {
		fputs("\n### Not audited\n\n", out);
		for (i = 0; i < opt->n_failed; i++) {
			fputs("- ", out);
			md_text(out, opt->failed[i].message);
			fprintf(out, " (exit %d)\n", opt->failed[i].exit_code);
		}
		fputs("\n", out);
	}
	for (i = 0; i < n; i++) {
		const struct qa_inventory *inv = invs[i];

		fprintf(out, "### %s: ",
			verdict_word(qa_verdict(inv, opt->fail_on)));
		md_text(out, inv->path);
		fputs("\n\n", out);
		md_model_line(out, inv);
		md_components(out, inv);
		md_layer_map(out, inv);
		md_findings(out, inv);
		qa_report_fit_markdown(out, inv);
	}
	return finish(out);
}

/* ---- SARIF 2.1.0 ------------------------------------------------------ */

/*
 * A path as a URI reference: unreserved characters and sub-delimiters
 * stay, '/' stays, everything else (spaces, '%', ':', '#', '?', '\',
 * non-ASCII bytes) is percent-encoded, so "a b:c.gguf" cannot read as a
 * scheme or a fragment. Relative paths stay relative. malloc'd; NULL
 * when out of memory.
 */
static char *
path_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = (const unsigned char *)path;
	size_t n = strlen(path), o = 0, i;
	char *d = malloc(3 * n + 1);

	if (!d)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~!$&'()*+,;=@/", c)) {
			d[o++] = (char)c;
		} else {
			d[o++] = '%';
			d[o++] = hex[c >> 4];
			d[o++] = hex[c & 15];
		}
	}
	d[o] = '\0';
	return d;
}

/* run.artifacts: every file of every input, then any other path a
 * finding names (an input folder), each once. */
struct artifact {
	const char *path;
	uint64_t bytes;
	bool has_bytes;
};

struct artifacts {
	struct artifact *items;
	size_t n, cap;
	bool failed;	/* out of memory: no artifacts, no indexes */
};

static long
art_find(const struct artifacts *a, const char *path)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->items[i].path, path) == 0)
			return (long)i;
	return -1;
}

static void
art_add(struct artifacts *a, const char *path, const uint64_t *bytes)
{
	if (a->failed || art_find(a, path) >= 0)
		return;
	if (a->n == a->cap) {
		size_t nc = a->cap ? 2 * a->cap : 16;
		struct artifact *p = realloc(a->items, nc * sizeof(*p));

		if (!p) {
			a->failed = true;
			return;
		}
		a->items = p;
		a->cap = nc;
	}
	a->items[a->n].path = path;
	a->items[a->n].bytes = bytes ? *bytes : 0;
	a->items[a->n].has_bytes = bytes != NULL;
	a->n++;
}

static void
art_collect(struct artifacts *a, struct qa_inventory *const *invs, size_t n)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < invs[i]->n_files; k++)
			art_add(a, invs[i]->files[k].path,
				&invs[i]->files[k].bytes);
	for (i = 0; i < n; i++)
		for (k = 0; k < invs[i]->n_findings; k++) {
			const struct qa_finding *f = &invs[i]->findings[k];

			art_add(a, f->file ? f->file : invs[i]->path, NULL);
		}
}

static void
sarif_uri(struct qa_jw *w, const char *key, const char *path)
{
	char *uri = path_uri(path);

	/* Out of memory: "" is still a valid (empty) URI reference. */
	qa_jw_str(w, key, uri ? uri : "");
	free(uri);
}

static void
sarif_text(struct qa_jw *w, const char *key, const char *text)
{
	qa_jw_obj(w, key);
	qa_jw_str(w, "text", text);
	qa_jw_close(w, '}');
}

static void
sarif_rule(struct qa_jw *w, const struct qa_rule *r, bool registry)
{
	char code[16], uri[256];

	code_text(code, sizeof(code), r);
	qa_jw_obj(w, NULL);
	qa_jw_str(w, "id", code);
	qa_jw_str(w, "name", r->id);
	sarif_text(w, "shortDescription", rule_summary(r));
	if (r->doc && *r->doc)
		sarif_text(w, "fullDescription", r->doc);
	qa_jw_obj(w, "defaultConfiguration");
	qa_jw_str(w, "level", sarif_level(r->severity));
	qa_jw_close(w, '}');
	/* Only the built-in rules are documented in docs/rules.md. */
	if (registry) {
		snprintf(uri, sizeof(uri), "%s#qa%04u-%s", QA_RULES_DOC_URI,
			 (unsigned)r->code, r->id);
		qa_jw_str(w, "helpUri", uri);
	}
	qa_jw_obj(w, "properties");
	qa_jw_str(w, "category", qa_category_name(r->category));
	qa_jw_arr(w, "tags", true);
	qa_jw_str(w, NULL, qa_category_name(r->category));
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
	qa_jw_close(w, '}');
}

/* 64-bit FNV-1a over the parts, NUL-separated. */
static uint64_t
fnv1a(uint64_t h, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	for (;; p++) {
		h ^= *p;
		h *= UINT64_C(0x100000001b3);
		if (!*p)
			return h;
	}
}

static void
sarif_result(struct qa_jw *w, const struct qa_inventory *inv,
	     const struct qa_finding *f, const struct rule_list *rl,
	     const struct artifacts *arts)
{
	const char *path = f->file ? f->file : inv->path;
	char code[16], fp[32], off[32];
	long idx = rl_index(rl, f->rule);
	char *msg = finding_message(f);
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	code_text(code, sizeof(code), f->rule);
	qa_jw_obj(w, NULL);
	qa_jw_str(w, "ruleId", code);
	if (idx >= 0)
		qa_jw_i64(w, "ruleIndex", idx);
	qa_jw_str(w, "level", sarif_level(f->severity));
	sarif_text(w, "message", msg ? msg : rule_summary(f->rule));

	qa_jw_arr(w, "locations", false);
	qa_jw_obj(w, NULL);
	qa_jw_obj(w, "physicalLocation");
	qa_jw_obj(w, "artifactLocation");
	sarif_uri(w, "uri", path);
	if (!arts->failed && art_find(arts, path) >= 0)
		qa_jw_i64(w, "index", art_find(arts, path));
	qa_jw_close(w, '}');
	if (f->offset >= 0) {
		qa_jw_obj(w, "region");
		qa_jw_i64(w, "byteOffset", f->offset);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, '}');
	if (f->tensor) {
		qa_jw_arr(w, "logicalLocations", false);
		qa_jw_obj(w, NULL);
		qa_jw_str(w, "name", f->tensor);
		qa_jw_str(w, "kind", "member");
		qa_jw_close(w, '}');
		qa_jw_close(w, ']');
	}
	qa_jw_close(w, '}');
	qa_jw_close(w, ']');

	/* Our own fingerprint, so a code-scanning service does not try to
	 * hash "lines" of a multi-gigabyte binary to make one. */
	snprintf(off, sizeof(off), "%" PRId64, f->offset);
	h = fnv1a(h, code);
	h = fnv1a(h, path);
	h = fnv1a(h, f->tensor);
	h = fnv1a(h, off);
	h = fnv1a(h, f->message);
	snprintf(fp, sizeof(fp), "%016" PRIx64, h);
	qa_jw_obj(w, "partialFingerprints");
	qa_jw_str(w, "quantaudit/v1", fp);
	qa_jw_close(w, '}');
	qa_jw_close(w, '}');
	free(msg);
}

/*
 * The run's invocation, when it has something to say: an error
 * notification for each input that could not be audited (and the run not
 * successful), and, for findings counted past the caps of qa_inv_finding
 * (they have no result), one notification per input and rule saying how
 * many, at the rule's level, so a code-scanning view shows the report is
 * truncated.
 */
static void
sarif_invocation(struct qa_jw *w, struct qa_inventory *const *invs,
		 size_t n, const struct rule_list *rl,
		 const struct qa_report_options *opt)
{
	bool any = opt->n_failed > 0, read_failed = false;
	size_t i;
	uint32_t k;

	for (i = 0; i < n; i++) {
		read_failed |= invs[i]->read_failed;
		any |= invs[i]->read_failed ||
		       qa_inventory_dropped(invs[i], NULL) > 0;
	}
	if (!any)
		return;
	qa_jw_arr(w, "invocations", false);
	qa_jw_obj(w, NULL);
	/* an input that could not be audited: the run did not do its job,
	 * and each such input is an error notification on its path; a side
	 * file the disk or server failed (QA1412, a result) is exit 4 too */
	qa_jw_bool(w, "executionSuccessful", opt->n_failed == 0 &&
		   !read_failed);
	if (opt->n_failed || read_failed) {
		int worst = read_failed ? 4 : 0;	/* docs/ci.md */

		for (i = 0; i < opt->n_failed; i++)
			if (opt->failed[i].exit_code > worst)
				worst = opt->failed[i].exit_code;
		qa_jw_i64(w, "exitCode", worst);
	}
	qa_jw_arr(w, "toolExecutionNotifications", false);
	for (i = 0; i < opt->n_failed; i++) {
		qa_jw_obj(w, NULL);
		qa_jw_str(w, "level", "error");
		sarif_text(w, "message", opt->failed[i].message);
		qa_jw_arr(w, "locations", false);
		qa_jw_obj(w, NULL);
		qa_jw_obj(w, "physicalLocation");
		qa_jw_obj(w, "artifactLocation");
		sarif_uri(w, "uri", opt->failed[i].path);
		qa_jw_close(w, '}');
		qa_jw_close(w, '}');
		qa_jw_close(w, '}');
		qa_jw_close(w, ']');
		qa_jw_obj(w, "properties");
		qa_jw_i64(w, "exitCode", opt->failed[i].exit_code);
		qa_jw_close(w, '}');
		qa_jw_close(w, '}');
	}
	for (i = 0; i < n; i++) {
		const struct qa_inventory *inv = invs[i];

		for (k = 0; k < inv->n_tally; k++) {
			const struct qa_rule_tally *t = &inv->tally[k];
			char code[16], *text;
			size_t tn;
			long idx;

			if (t->disabled || t->dropped == 0 ||
			    (unsigned)t->severity >= QA_SEV_NONE)
				continue;
			code_text(code, sizeof(code), t->rule);
			tn = strlen(inv->path) + 256;
			text = malloc(tn);
			if (text)
				snprintf(text, tn, "%s: %" PRIu64 " more %s "
					 "finding%s of %s were found but not "
					 "listed (at most %d of a rule and %d "
					 "in all are kept)", inv->path,
					 t->dropped,
					 qa_severity_name(t->severity),
					 t->dropped == 1 ? "" : "s", code,
					 QA_FINDINGS_PER_RULE,
					 QA_FINDINGS_MAX);
			qa_jw_obj(w, NULL);
			qa_jw_str(w, "level", sarif_level(t->severity));
			sarif_text(w, "message", text ? text : code);
			qa_jw_obj(w, "associatedRule");
			qa_jw_str(w, "id", code);
			idx = rl_index(rl, t->rule);
			if (idx >= 0)
				qa_jw_i64(w, "index", idx);
			qa_jw_close(w, '}');
			qa_jw_arr(w, "locations", false);
			qa_jw_obj(w, NULL);
			qa_jw_obj(w, "physicalLocation");
			qa_jw_obj(w, "artifactLocation");
			sarif_uri(w, "uri", inv->path);
			qa_jw_close(w, '}');
			qa_jw_close(w, '}');
			qa_jw_close(w, '}');
			qa_jw_close(w, ']');
			qa_jw_obj(w, "properties");
			qa_jw_u64(w, "count", t->dropped);
			qa_jw_close(w, '}');
			qa_jw_close(w, '}');
			free(text);
		}
	}
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
	qa_jw_close(w, ']');
}

int
qa_report_sarif(FILE *out, struct qa_inventory *const *invs, size_t n,
		const struct qa_report_options *opt)
{
	struct qa_jw w;
	struct artifacts arts = { 0 };
	struct rule_list rl;
	size_t i;
	uint32_t k;

	qa_jw_init(&w, out);

	/* Out of memory here only drops stray rules or the artifact
	 * table; the log stays valid. */
	(void)rl_init(&rl, invs, n, opt);
	art_collect(&arts, invs, n);

	qa_jw_obj(&w, NULL);
	qa_jw_str(&w, "$schema", SARIF_SCHEMA_URI);
	qa_jw_str(&w, "version", "2.1.0");
	qa_jw_arr(&w, "runs", false);
	qa_jw_obj(&w, NULL);

	qa_jw_obj(&w, "tool");
	qa_jw_obj(&w, "driver");
	qa_jw_str(&w, "name", "quantaudit");
	qa_jw_str(&w, "version", QA_VERSION);
	qa_jw_str(&w, "semanticVersion", QA_VERSION);
	qa_jw_str(&w, "informationUri", QA_HOME_URI);
	qa_jw_arr(&w, "rules", false);
	for (i = 0; i < rl_count(&rl); i++)
		sarif_rule(&w, rl_get(&rl, i), i < rl.n_reg);
	qa_jw_close(&w, ']');
	qa_jw_close(&w, '}');
	qa_jw_close(&w, '}');

	if (!arts.failed) {
		qa_jw_arr(&w, "artifacts", false);
		for (i = 0; i < arts.n; i++) {
			qa_jw_obj(&w, NULL);
			qa_jw_obj(&w, "location");
			sarif_uri(&w, "uri", arts.items[i].path);
			qa_jw_close(&w, '}');
			if (arts.items[i].has_bytes)
				qa_jw_u64(&w, "length", arts.items[i].bytes);
			qa_jw_arr(&w, "roles", true);
			qa_jw_str(&w, NULL, "analysisTarget");
			qa_jw_close(&w, ']');
			qa_jw_close(&w, '}');
		}
		qa_jw_close(&w, ']');
	}

	qa_jw_arr(&w, "results", false);
	for (i = 0; i < n; i++)
		for (k = 0; k < invs[i]->n_findings; k++)
			sarif_result(&w, invs[i], &invs[i]->findings[k], &rl,
				     &arts);
	qa_jw_close(&w, ']');

	sarif_invocation(&w, invs, n, &rl, opt);

	qa_jw_obj(&w, "properties");
	qa_jw_str(&w, "verdict", opt->n_failed ? "fail" :
		  qa_verdict_all(invs, n, opt->fail_on));
	qa_jw_str(&w, "failOn", fail_on_name(opt->fail_on));
	{
		uint64_t by[QA_SEV_NONE], all[QA_SEV_NONE] = { 0 }, total = 0;
		int sv;

		for (i = 0; i < n; i++) {
			total += qa_inventory_dropped(invs[i], by);
			for (sv = 0; sv < QA_SEV_NONE; sv++)
				all[sv] += by[sv];
		}
		if (total) {
			qa_jw_obj(&w, "findingsDropped");
			qa_jw_u64(&w, "total", total);
			qa_jw_u64(&w, "error", all[QA_SEV_ERROR]);
			qa_jw_u64(&w, "warning", all[QA_SEV_WARNING]);
			qa_jw_u64(&w, "info", all[QA_SEV_INFO]);
			qa_jw_close(&w, '}');
		}
	}
	qa_jw_close(&w, '}');

	qa_jw_close(&w, '}');
	qa_jw_close(&w, ']');
	qa_jw_close(&w, '}');
	qa_jw_raw(&w, "\n", 1);

	free(arts.items);
	rl_free(&rl);
	if (qa_jw_finish(&w) != 0)
		return -1;
	return finish(out);
}

/* ---- JUnit XML -------------------------------------------------------- */

/*
 * Writes s as XML character data (attr false) or an attribute value
 * (attr true, in double quotes): core/escape.h qa_esc_xml. & < > (and in
 * attributes " ') become entities; the control characters XML 1.0
 * forbids, U+FFFE/U+FFFF and invalid UTF-8 become U+FFFD; tab, line feed
 * and carriage return are character references (a name from the model
 * cannot start a line of the file); C1 and bidi controls and the halves
 * of "::" and "##" are character references too.
 */
static void
xml_text(FILE *out, const char *str, bool attr)
{
	qa_esc_xml(out, str, attr);
}

/* One finding as a line of a failure or system-out body. */
static void
junit_finding_line(FILE *out, const struct qa_inventory *inv,
		   const struct qa_finding *f)
{
	char code[16], *msg = finding_message(f);
	char *loc = finding_location(f, inv->path);

	code_text(code, sizeof(code), f->rule);
	fprintf(out, "%s %s %s: ", qa_severity_name(f->severity), code,
		f->rule->id);
	xml_text(out, msg ? msg : rule_summary(f->rule), false);
	if (loc) {
		fputs(" [", out);
		xml_text(out, loc, false);
		putc(']', out);
	}
	putc('\n', out);
	free(msg);
	free(loc);
}

static bool
fails(enum qa_severity s, enum qa_severity fail_on)
{
	return fail_on != QA_SEV_NONE && s >= fail_on;
}

/* Per input: the rule-list index of each finding, and per rule the
 * findings at or above fail_on, those below, and the worst failing
 * severity. */
struct junit_input {
	long *rule_of;		/* n_findings entries */
	uint32_t *n_fail;	/* rl_count() entries each */
	uint32_t *n_pass;
	enum qa_severity *worst;
	uint64_t *drop_fail;	/* rl_count() entries each: findings counted */
	uint64_t *drop_pass;	/* past the caps, not stored */
	uint32_t failures;	/* rules with a failing finding */
};

static void
junit_input_free(struct junit_input *ji)
{
	free(ji->rule_of);
	free(ji->n_fail);
	free(ji->n_pass);
	free(ji->worst);
	free(ji->drop_fail);
	free(ji->drop_pass);
}

static int
junit_input_init(struct junit_input *ji, const struct qa_inventory *inv,
		 const struct rule_list *rl, enum qa_severity fail_on)
{
	size_t nr = rl_count(rl), r;
	uint32_t k;

	memset(ji, 0, sizeof(*ji));
	ji->rule_of = calloc(inv->n_findings + 1, sizeof(*ji->rule_of));
	ji->n_fail = calloc(nr + 1, sizeof(*ji->n_fail));
	ji->n_pass = calloc(nr + 1, sizeof(*ji->n_pass));
	ji->worst = calloc(nr + 1, sizeof(*ji->worst));
	ji->drop_fail = calloc(nr + 1, sizeof(*ji->drop_fail));
	ji->drop_pass = calloc(nr + 1, sizeof(*ji->drop_pass));
	if (!ji->rule_of || !ji->n_fail || !ji->n_pass || !ji->worst ||
	    !ji->drop_fail || !ji->drop_pass) {
		junit_input_free(ji);
		return -1;
	}
	for (k = 0; k < inv->n_findings; k++) {
		const struct qa_finding *f = &inv->findings[k];
		long i = rl_index(rl, f->rule);
		/* a group of findings counts as many as it stands for */
		uint32_t w = f->count > 1 ? f->count : 1;

		ji->rule_of[k] = i;
		if (i < 0)
			continue;
		if (fails(f->severity, fail_on)) {
			ji->n_fail[i] += w;
			if (f->severity > ji->worst[i])
				ji->worst[i] = f->severity;
		} else {
			ji->n_pass[i] += w;
		}
	}
	for (k = 0; k < inv->n_tally; k++) {
		const struct qa_rule_tally *t = &inv->tally[k];
		long i;

		if (t->disabled || t->dropped == 0 ||
		    (i = rl_index(rl, t->rule)) < 0)
			continue;
		if (fails(t->severity, fail_on)) {
			ji->drop_fail[i] += t->dropped;
			if (t->severity > ji->worst[i])
				ji->worst[i] = t->severity;
		} else {
			ji->drop_pass[i] += t->dropped;
		}
	}
	for (r = 0; r < nr; r++)
		if (ji->n_fail[r] || ji->drop_fail[r])
			ji->failures++;
	return 0;
}

/* The line closing a body whose rule had findings past the caps. */
static void
junit_dropped_line(FILE *out, const struct qa_rule *rule, uint64_t n)
{
	char code[16];

	if (!n)
		return;
	code_text(code, sizeof(code), rule);
	fprintf(out, "%" PRIu64 " more %s finding%s %s found but not listed "
		"(at most %d of a rule and %d in all are kept)\n", n, code,
		n == 1 ? "" : "s", n == 1 ? "was" : "were",
		QA_FINDINGS_PER_RULE, QA_FINDINGS_MAX);
}

/* The findings of rule r that fail (failing true) or not, one a line. */
static void
junit_list(FILE *out, const struct qa_inventory *inv,
	   const struct junit_input *ji, size_t r, enum qa_severity fail_on,
	   bool failing)
{
	uint32_t k;

	for (k = 0; k < inv->n_findings; k++)
		if (ji->rule_of[k] == (long)r &&
		    fails(inv->findings[k].severity, fail_on) == failing)
			junit_finding_line(out, inv, &inv->findings[k]);
}

static void
junit_case(FILE *out, const struct qa_inventory *inv,
	   const struct rule_list *rl, const struct junit_input *ji,
	   size_t r, enum qa_severity fail_on)
{
	const struct qa_rule *rule = rl_get(rl, r);
	char code[16];

	code_text(code, sizeof(code), rule);
	/* One case per rule and input: plain fputs, no format to parse. */
	fputs("    <testcase classname=\"quantaudit.", out);
	fputs(qa_category_name(rule->category), out);
	fputs("\" name=\"", out);
	fputs(code, out);
	putc(' ', out);
	xml_text(out, rule->id, true);
	fputs("\" time=\"0\"", out);
	uint64_t n_fail = ji->n_fail[r] + ji->drop_fail[r];

	if (n_fail == 0 && ji->n_pass[r] == 0 && ji->drop_pass[r] == 0) {
		fputs("/>\n", out);
		return;
	}
	fputs(">\n", out);
	if (n_fail) {
		fprintf(out, "      <failure message=\"%" PRIu64 " finding%s "
			"at or above %s: ", n_fail, n_fail == 1 ? "" : "s",
			fail_on_name(fail_on));
		xml_text(out, rule_summary(rule), true);
		fprintf(out, "\" type=\"%s\">",
			qa_severity_name(ji->worst[r]));
		junit_list(out, inv, ji, r, fail_on, true);
		junit_dropped_line(out, rule, ji->drop_fail[r]);
		fputs("</failure>\n", out);
	}
	if (ji->n_pass[r] || ji->drop_pass[r]) {
		fputs("      <system-out>", out);
		junit_list(out, inv, ji, r, fail_on, false);
		junit_dropped_line(out, rule, ji->drop_pass[r]);
		fputs("</system-out>\n", out);
	}
	fputs("    </testcase>\n", out);
}

/* A suite whose findings were truncated says how many of each severity
 * were counted but not listed, as properties a CI view can show. */
static void
junit_suite_dropped(FILE *out, const struct qa_inventory *inv)
{
	uint64_t by[QA_SEV_NONE], total = qa_inventory_dropped(inv, by);

	if (!total)
		return;
	fprintf(out, "    <properties>\n"
		"      <property name=\"quantaudit.findings_dropped\" "
		"value=\"%" PRIu64 "\"/>\n"
		"      <property name=\"quantaudit.findings_dropped.error\" "
		"value=\"%" PRIu64 "\"/>\n"
		"      <property name=\"quantaudit.findings_dropped.warning\" "
		"value=\"%" PRIu64 "\"/>\n"
		"      <property name=\"quantaudit.findings_dropped.info\" "
		"value=\"%" PRIu64 "\"/>\n"
		"    </properties>\n", total, by[QA_SEV_ERROR],
		by[QA_SEV_WARNING], by[QA_SEV_INFO]);
}

int
qa_report_junit(FILE *out, struct qa_inventory *const *invs, size_t n,
		const struct qa_report_options *opt)
{
	struct junit_input *ji;
	struct rule_list rl;
	uint64_t failures = 0;
	size_t i, r;
	int rc = 0;

	(void)rl_init(&rl, invs, n, opt);
	ji = calloc(n ? n : 1, sizeof(*ji));
	if (!ji) {
		rl_free(&rl);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		rc = junit_input_init(&ji[i], invs[i], &rl, opt->fail_on);
		failures += ji[i].failures;
	}
	if (rc == 0) {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
		fprintf(out, "<testsuites name=\"quantaudit\" tests=\"%"
			PRIu64 "\" failures=\"%" PRIu64 "\" errors=\"%zu\" "
			"time=\"0\">\n", (uint64_t)(rl_count(&rl) * n) +
			opt->n_failed, failures, opt->n_failed);
		for (i = 0; i < n; i++) {
			fputs("  <testsuite name=\"", out);
			xml_text(out, invs[i]->path, true);
			fprintf(out, "\" tests=\"%zu\" failures=\"%" PRIu32
				"\" errors=\"0\" skipped=\"0\" time=\"0\">\n",
				rl_count(&rl), ji[i].failures);
			junit_suite_dropped(out, invs[i]);
			for (r = 0; r < rl_count(&rl); r++)
				junit_case(out, invs[i], &rl, &ji[i], r,
					   opt->fail_on);
			if (qa_inventory_dropped(invs[i], NULL)) {
				char text[1024];

				fputs("    <system-err>", out);
				xml_text(out, qa_inventory_dropped_text(invs[i],
					 text, sizeof(text)), false);
				fputs("</system-err>\n", out);
			}
			fputs("  </testsuite>\n", out);
		}
		/* an input that could not be audited: a suite of one case in
		 * error, as a test that could not run */
		for (i = 0; i < opt->n_failed; i++) {
			fputs("  <testsuite name=\"", out);
			xml_text(out, opt->failed[i].path, true);
			fputs("\" tests=\"1\" failures=\"0\" errors=\"1\" "
			      "skipped=\"0\" time=\"0\">\n"
			      "    <testcase classname=\"quantaudit\" "
			      "name=\"audit\" time=\"0\">\n"
			      "      <error message=\"", out);
			xml_text(out, opt->failed[i].message, true);
			fprintf(out, "\" type=\"exit %d\"/>\n"
				"    </testcase>\n  </testsuite>\n",
				opt->failed[i].exit_code);
		}
		fputs("</testsuites>\n", out);
		rc = finish(out);
	}
	for (i = 0; i < n; i++)
		junit_input_free(&ji[i]);
	free(ji);
	rl_free(&rl);
	return rc;
}

/* The fit view in Markdown: per input the fit table and verdict, or why
 * there is none. */
int
qa_report_markdown_fit(FILE *out, struct qa_inventory *const *invs,
		       size_t n, const struct qa_report_options *opt)
{
	size_t i;

	(void)opt;
	for (i = 0; i < n; i++) {
		if (invs[i]->fit_error) {
			fprintf(out, "#### VRAM fit: none\n\n%s: ",
				qa_fit_engine_name(
					(enum qa_engine)invs[i]->fit_engine));
			md_text(out, invs[i]->fit_error);
			fputs("\n\n", out);
		}
		qa_report_fit_markdown(out, invs[i]);
	}
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}
