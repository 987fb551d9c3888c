/* SPDX-License-Identifier: MIT */
/*
 * Text reports for people: `inspect` (the model in a few lines, the
 * quantization the files declare and, when component groups differ, a
 * one-line precision summary; the component table with each component's
 * precision; the per-layer precision map; findings by severity, the
 * verdict) and `tensors` (one aligned line per tensor).
 *
 * The precision map (issue 4) is printed by default when merged runs of
 * identical layers leave at most MAP_DEFAULT_ROWS rows and the cells are
 * not all the same; otherwise one line says how long it is and
 * `inspect --layers` (opt->layers) prints it whole.
 *
 * Everything `inspect` prints fits an 80-column terminal: lines are built
 * in a buffer, made safe for a terminal (control characters and invalid
 * UTF-8 from the file are replaced), measured in display columns (code
 * points; our own text uses "·" and "…") and cut with "…" when a value is
 * too long; paths lose their beginning rather than their file name;
 * findings wrap with a hanging indent. Colour (opt->color) is added only around words whose
 * width is known, so it never disturbs the alignment.
 */
#include "analysis/analysis.h"
#include "core/escape.h"
#include "core/jsonw.h"
#include "report/report.h"
#include "core/units.h"
#include "report/report_fit.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 80
#define LINE_MAX_BYTES 1024
#define ELLIPSIS "\xe2\x80\xa6"	/* U+2026, one column */
#define DOT " \xc2\xb7 "		/* " · ", three columns */

#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_CYAN "\033[36m"
#define C_GREEN "\033[32m"
#define C_RESET "\033[0m"

/* ---- line buffers and widths ------------------------------------------ */

struct lb {
	char s[LINE_MAX_BYTES];
	size_t len;
};

static void put_wrapped(FILE *out, const char *raw, size_t indent,
			size_t hang, const char *color, size_t color_bytes);

static void
lb_reset(struct lb *b)
{
	b->s[0] = '\0';
	b->len = 0;
}

/* Appends formatted text; output past the buffer is dropped (the line is
 * cut to 80 columns anyway). */
static void lb_add(struct lb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Appends n bytes of s, as lb_add(b, "%.*s", n, s) would. */
static void
lb_put(struct lb *b, const char *s, size_t n)
{
	size_t room;

	if (b->len + 1 >= sizeof(b->s))
		return;
	room = sizeof(b->s) - 1 - b->len;
	if (n > room)
		n = room;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Appends n spaces. */
static void
lb_pad(struct lb *b, size_t n)
{
	static const char spaces[] = "                                ";
	size_t k;

	for (; n; n -= k) {
		k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		lb_put(b, spaces, k);
	}
}

/* Appends " " and s right-aligned in width bytes, as lb_add(b, " %*s",
 * width, s) would (s is never cut). */
static void
lb_col(struct lb *b, const char *s, size_t width)
{
	size_t n = strlen(s);

	lb_put(b, " ", 1);
	lb_pad(b, n < width ? width - n : 0);
	lb_put(b, s, n);
}

static void
lb_add(struct lb *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (b->len + 1 >= sizeof(b->s))
		return;
	/* Most pieces are plain text: no need to parse a format. */
	if (!strchr(fmt, '%')) {
		lb_put(b, fmt, strlen(fmt));
		return;
	}
	va_start(ap, fmt);
	r = vsnprintf(b->s + b->len, sizeof(b->s) - b->len, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	b->len += (size_t)r;
	if (b->len >= sizeof(b->s))
		b->len = sizeof(b->s) - 1;
}

/*
 * Copy of s safe for a terminal: names and metadata come from the file,
 * and a hostile one could carry escape sequences, bidi overrides or CI
 * log commands. The escapes of core/escape.h (\x1b, \u202e, \x3a for
 * the first ':' of "::"...). NULL when out of memory.
 */
static char *
clean_dup(const char *str)
{
	return qa_esc_text_dup(str);
}

/* Display columns of s as clean_dup() would print it: one per code point
 * or replaced byte (no wide-char table; model names are almost always
 * ASCII). */
static size_t
width_of(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t w = 0, len;

	while (*s) {
		/* ASCII, nearly every byte of a report, without the decoder */
		if (*s < 0x80) {
			s++;
			w++;
			continue;
		}
		len = qa_utf8_seq_len((const char *)s);
		s += len ? len : 1;
		w++;
	}
	return w;
}

/* Display columns of raw once cleaned: what width_of(clean_dup(raw))
 * gives, counted in place (kept spans one column per code point, an
 * escape one per character of its ASCII spelling), with no copy. */
static size_t
clean_width(const char *raw)
{
	char esc[QA_ESC_SPELL_MAX];
	size_t w = 0, run, len, i;
	const char *s;

	for (s = raw;; s += len) {
		run = qa_esc_text_run(s);
		for (i = 0; i < run; i++)
			w += ((unsigned char)s[i] & 0xc0) != 0x80;
		s += run;
		if (!*s)
			break;
		w += qa_esc_text_spell(s, esc, &len);
	}
	return w;
}

/* Byte length of the first `cols` columns of s. */
static size_t
bytes_for(const char *s, size_t cols)
{
	size_t i = 0, w = 0;

	while (s[i]) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (w == cols)
				break;
			w++;
		}
		i++;
	}
	return i;
}

/* Writes s (cleaned) cut to `cols` columns, ending in "…" when cut. */
static void
put_fit(FILE *out, const char *raw, size_t cols)
{
	char *s = clean_dup(raw);

	if (!s)
		return;
	if (width_of(s) <= cols) {
		fputs(s, out);
	} else {
		fwrite(s, 1, bytes_for(s, cols - 1), out);
		fputs(ELLIPSIS, out);
	}
	free(s);
}

static void
put_line(FILE *out, const struct lb *b)
{
	put_fit(out, b->s, WIDTH);
	putc('\n', out);
}

/* Writes s in at most `cols` columns, dropping its beginning ("…" then
 * the tail) so a path keeps its file name. */
static void
put_fit_left(FILE *out, const char *raw, size_t cols)
{
	char *s = clean_dup(raw);
	size_t w;

	if (!s)
		return;
	w = width_of(s);
	if (w <= cols) {
		fputs(s, out);
	} else {
		fputs(ELLIPSIS, out);
		fputs(s + bytes_for(s, w - (cols - 1)), out);
	}
	free(s);
}

/* Copies s into dst cut to `cols` columns (with "…"). */
static void
fit_copy(char *dst, size_t size, const char *s, size_t cols)
{
	if (width_of(s) <= cols) {
		snprintf(dst, size, "%s", s);
		return;
	}
	snprintf(dst, size, "%.*s" ELLIPSIS, (int)bytes_for(s, cols - 1), s);
}

/* Appends s left-aligned in a field of `cols` columns (printf's %-*s
 * counts bytes, not columns). */
static void
lb_field(struct lb *b, const char *s, size_t cols)
{
	size_t w = width_of(s);

	lb_put(b, s, strlen(s));
	lb_pad(b, w < cols ? cols - w : 0);
}

/* ---- the model block -------------------------------------------------- */

#define LABEL_COLS 12

static void
label(struct lb *b, const char *name)
{
	lb_reset(b);
	lb_add(b, "  ");
	lb_field(b, name, LABEL_COLS);
}

/* Separator between items of one line: nothing before the first. */
static void
sep(struct lb *b, bool *first)
{
	if (!*first)
		lb_add(b, DOT);
	*first = false;
}

static void
model_line(FILE *out, const struct qa_inventory *inv)
{
	const struct qa_hparams *hp = &inv->hp;
	const char *arch = hp->arch ? hp->arch :
		hp->arch_raw ? hp->arch_raw : "unknown";
	struct lb b;

	label(&b, "model");
	lb_add(&b, "%s", arch);
	if (hp->arch && hp->arch_raw && strcmp(hp->arch, hp->arch_raw) != 0)
		lb_add(&b, " (%s)", hp->arch_raw);
	if (hp->name && *hp->name)
		lb_add(&b, DOT "%s", hp->name);
	put_line(out, &b);
	/* a file that is not a model says what it is, and what to do */
	if (inv->kind_info.summary) {
		label(&b, "kind");
		lb_add(&b, "%s", inv->kind_info.summary);
		if (inv->kind_info.advice)
			lb_add(&b, DOT "%s", inv->kind_info.advice);
		put_line(out, &b);
	}
}

static void
shape_line(FILE *out, const struct qa_hparams *hp)
{
	int64_t layers = hp->n_layer >= 0 ? hp->n_layer : hp->n_layer_all;
	bool first = true;
	struct lb b;

	label(&b, "layers");
	if (layers >= 0) {
		sep(&b, &first);
		lb_add(&b, "%" PRId64, layers);
		if (hp->n_mtp > 0)
			lb_add(&b, " + %" PRId64 " MTP", hp->n_mtp);
	}
	if (hp->n_embd >= 0) {
		sep(&b, &first);
		lb_add(&b, "embd %" PRId64, hp->n_embd);
	}
	if (hp->n_ff >= 0) {
		sep(&b, &first);
		lb_add(&b, "ff %" PRId64, hp->n_ff);
	}
	if (!first)
		put_line(out, &b);

	first = true;
	label(&b, "heads");
	if (hp->n_head >= 0) {
		sep(&b, &first);
		lb_add(&b, "%" PRId64, hp->n_head);
		if (hp->n_head_kv >= 0) {
			bool varies = false;
			int64_t i;

			for (i = 1; hp->head_kv_per_layer &&
			     i < hp->n_layer_all; i++)
				if (hp->head_kv_per_layer[i] !=
				    hp->head_kv_per_layer[0])
					varies = true;
			lb_add(&b, " / %" PRId64 " kv%s", hp->n_head_kv,
			       varies ? " (max; varies by layer)" : "");
		}
	}
	if (hp->head_dim_k >= 0) {
		sep(&b, &first);
		lb_add(&b, "head dim %" PRId64, hp->head_dim_k);
		if (hp->head_dim_v >= 0 && hp->head_dim_v != hp->head_dim_k)
			lb_add(&b, "/%" PRId64, hp->head_dim_v);
	}
	if (!first)
		put_line(out, &b);

	first = true;
	label(&b, "context");
	if (hp->n_ctx_train >= 0) {
		sep(&b, &first);
		lb_add(&b, "%" PRId64 " trained", hp->n_ctx_train);
	}
	if (hp->n_vocab >= 0) {
		sep(&b, &first);
		lb_add(&b, "vocab %" PRId64, hp->n_vocab);
	}
	if (hp->tie_embeddings) {
		sep(&b, &first);
		lb_add(&b, "tied embeddings");
	}
	if (!first)
		put_line(out, &b);
}

static void
experts_line(FILE *out, const struct qa_hparams *hp)
{
	struct lb b;

	if (hp->n_expert <= 0)
		return;
	label(&b, "experts");
	if (hp->n_expert_used >= 0)
		lb_add(&b, "%" PRId64 " of %" PRId64 " used", hp->n_expert_used,
		       hp->n_expert);
	else
		lb_add(&b, "%" PRId64, hp->n_expert);
	if (hp->n_expert_shared > 0)
		lb_add(&b, DOT "%" PRId64 " shared", hp->n_expert_shared);
	if (hp->n_ff_expert >= 0)
		lb_add(&b, DOT "ff %" PRId64, hp->n_ff_expert);
	if (hp->n_leading_dense > 0)
		lb_add(&b, DOT "%" PRId64 " dense first", hp->n_leading_dense);
	put_line(out, &b);
}

static const char *
layer_kind_text(uint8_t k)
{
	switch (k) {
	case QA_LAYER_FULL_ATTENTION:
		return "full attention";
	case QA_LAYER_SLIDING_ATTENTION:
		return "sliding window";
	case QA_LAYER_LINEAR_ATTENTION:
		return "linear (GDN)";
	case QA_LAYER_MAMBA:
		return "Mamba";
	case QA_LAYER_MLP_ONLY:
		return "MLP only";
	case QA_LAYER_MTP:
		return "MTP";
	case QA_LAYER_SHORT_CONV:
		return "short conv";
	case QA_LAYER_PARALLEL_HYBRID:
		return "attention + Mamba";
	default:
		return "unknown";
	}
}

/* "48 layers: 36 linear (GDN) + 12 full attention", kinds in order of
 * first appearance; then the sliding window and full-attention period. */
static void
attention_line(FILE *out, const struct qa_inventory *inv)
{
	const struct qa_hparams *hp = &inv->hp;
	uint32_t counts[256] = { 0 };
	uint8_t order[256];
	int n_kinds = 0, i;
	bool first = true;
	struct lb b;

	label(&b, "attention");
	if (hp->layer_kind && hp->n_layer_all > 0) {
		int64_t l;

		for (l = 0; l < hp->n_layer_all; l++) {
			uint8_t k = hp->layer_kind[l];

			if (counts[k]++ == 0)
				order[n_kinds++] = k;
		}
		if (n_kinds > 1 || order[0] != QA_LAYER_UNKNOWN) {
			sep(&b, &first);
			lb_add(&b, "%" PRId64 " layer%s:", hp->n_layer_all,
			       hp->n_layer_all == 1 ? "" : "s");
			if (n_kinds == 1)
				lb_add(&b, " %s%s", hp->n_layer_all == 1 ?
				       "" : "all ", layer_kind_text(order[0]));
			for (i = 0; n_kinds > 1 && i < n_kinds; i++)
				lb_add(&b, "%s %" PRIu32 " %s",
				       i ? " +" : "", counts[order[i]],
				       layer_kind_text(order[i]));
		}
	}
	if (hp->full_attention_interval > 0) {
		sep(&b, &first);
		lb_add(&b, "full every %" PRId64, hp->full_attention_interval);
	}
	if (!first)
		put_line(out, &b);
	/* Kinds come from the per-layer arrays; say so when the tensors
	 * disagree rather than print two stories. */
	if (inv->kind_mismatch.n) {
		char line[256];

		snprintf(line, sizeof(line), "%*sper the metadata; the tensors "
			 "of %u block%s (first %d) say %s (QA2110)",
			 2 + LABEL_COLS, "", inv->kind_mismatch.n,
			 inv->kind_mismatch.n == 1 ? "" : "s",
			 inv->kind_mismatch.first,
			 inv->kind_mismatch.first_has_attention ? "attention" :
			 "recurrent");
		put_wrapped(out, line, 0, 2 + LABEL_COLS, NULL, 0);
	}

	/* The window gets its own line: the layout above can fill one. */
	if (hp->sliding_window > 0) {
		label(&b, "window");
		lb_add(&b, "%" PRId64 " tokens", hp->sliding_window);
		if (hp->swa_pattern > 0)
			lb_add(&b, DOT "pattern %" PRId64, hp->swa_pattern);
		put_line(out, &b);
	}
}

static void
mla_ssm_lines(FILE *out, const struct qa_hparams *hp)
{
	bool first = true;
	struct lb b;

	label(&b, "MLA");
	if (hp->q_lora_rank > 0) {
		sep(&b, &first);
		lb_add(&b, "q rank %" PRId64, hp->q_lora_rank);
	}
	if (hp->kv_lora_rank > 0) {
		sep(&b, &first);
		lb_add(&b, "kv rank %" PRId64, hp->kv_lora_rank);
	}
	if (!first) {
		if (hp->qk_rope_dim >= 0)
			lb_add(&b, DOT "rope %" PRId64, hp->qk_rope_dim);
		if (hp->qk_nope_dim >= 0)
			lb_add(&b, DOT "nope %" PRId64, hp->qk_nope_dim);
		if (hp->v_head_dim_mla >= 0)
			lb_add(&b, DOT "v %" PRId64, hp->v_head_dim_mla);
		put_line(out, &b);
	}

	first = true;
	label(&b, "SSM");
	if (hp->ssm_d_inner > 0) {
		sep(&b, &first);
		lb_add(&b, "inner %" PRId64, hp->ssm_d_inner);
	}
	if (hp->ssm_d_state > 0) {
		sep(&b, &first);
		lb_add(&b, "state %" PRId64, hp->ssm_d_state);
	}
	if (hp->ssm_d_conv > 0) {
		sep(&b, &first);
		lb_add(&b, "conv %" PRId64, hp->ssm_d_conv);
	}
	if (hp->ssm_n_group > 0) {
		sep(&b, &first);
		lb_add(&b, "groups %" PRId64, hp->ssm_n_group);
	}
	if (hp->ssm_dt_rank > 0) {
		sep(&b, &first);
		lb_add(&b, "dt rank %" PRId64, hp->ssm_dt_rank);
	}
	if (!first)
		put_line(out, &b);
}

static void
size_lines(FILE *out, const struct qa_inventory *inv)
{
	char p[32], sz[32], bpw[32];
	struct lb b;

	qa_fmt_params(p, sizeof(p), inv->params);
	qa_fmt_bytes(sz, sizeof(sz), inv->bytes);
	qa_fmt_bpw(bpw, sizeof(bpw), inv->bytes, inv->params);
	label(&b, "size");
	lb_add(&b, "%s params" DOT "%s (%" PRIu64 " bytes)" DOT "%s bpw",
	       p, sz, inv->bytes, bpw);
	put_line(out, &b);

	if (inv->file_type_declared || inv->file_type_guessed ||
	    inv->hp.file_type >= 0) {
		bool first = true;

		label(&b, "file type");
		if (inv->file_type_declared) {
			sep(&b, &first);
			lb_add(&b, "%s (declared)", inv->file_type_declared);
		} else if (inv->hp.file_type >= 0) {
			sep(&b, &first);
			lb_add(&b, "%" PRId64 " (declared, unknown)",
			       inv->hp.file_type);
		}
		if (inv->file_type_guessed) {
			sep(&b, &first);
			lb_add(&b, "%s (guessed by tensor count)",
			       inv->file_type_guessed);
		}
		put_line(out, &b);
	}
}


static void
files_line(FILE *out, const struct qa_inventory *inv)
{
	uint32_t i, shards = 0, parts = 0;
	struct lb b;

	for (i = 0; i < inv->n_files; i++) {
		if (inv->files[i].role == QA_FILE_SHARD)
			shards++;
		if (inv->files[i].parts > parts)
			parts = inv->files[i].parts;
	}
	label(&b, "files");
	lb_add(&b, "%" PRIu32 " file%s", inv->n_files,
	       inv->n_files == 1 ? "" : "s");
	if (shards && parts && shards != parts)
		lb_add(&b, DOT "%" PRIu32 " of %" PRIu32 " parts", shards,
		       parts);
	else if (shards)
		lb_add(&b, DOT "%" PRIu32 " part%s", shards,
		       shards == 1 ? "" : "s");
	if (inv->n_files == 1) {
		lb_add(&b, " (");
		lb_add(&b, "%s", inv->files[0].name);
		lb_add(&b, ")");
	}
	put_line(out, &b);
	if (inv->mmproj.file) {
		char sz[32], par[32], line[512];

		qa_fmt_bytes(sz, sizeof(sz), inv->mmproj.bytes);
		qa_fmt_params(par, sizeof(par), inv->mmproj.params);
		snprintf(line, sizeof(line), "  %-*s%s: %s params, %s, counted "
			 "in the fit", LABEL_COLS, "projector",
			 qa_path_base(inv->mmproj.file), par, sz);
		put_wrapped(out, line, 0, 2 + LABEL_COLS, NULL, 0);
	}
	if (inv->input_note) {
		char line[600];

		snprintf(line, sizeof(line), "  %-*s%s", LABEL_COLS, "source",
			 inv->input_note);
		put_wrapped(out, line, 0, 2 + LABEL_COLS, NULL, 0);
	}
}

/*
 * One line with the MTP verdict whenever MTP is declared, present or
 * expected for the family: "MTP  ABSENT · DeepSeek-V3/R1 ships one; none
 * here". Bad states are upper-case so they stand out.
 */
static void
mtp_line(FILE *out, const struct qa_inventory *inv)
{
	char sz[32];
	struct lb b;

	if (inv->mtp.status == QA_MTP_NOT_APPLICABLE && inv->mtp.not_expected) {
		label(&b, "MTP");
		lb_add(&b, "none" DOT "not expected: %s", inv->mtp.family_note);
		put_line(out, &b);
		return;
	}
	if (inv->mtp.status == QA_MTP_NOT_APPLICABLE)
		return;
	label(&b, "MTP");
	switch (inv->mtp.status) {
	case QA_MTP_ABSENT:
		lb_add(&b, "ABSENT" DOT "stripped: %s ships an MTP head",
		       inv->mtp.family ? inv->mtp.family : "the family");
		break;
	case QA_MTP_MISSING:
		lb_add(&b, "MISSING" DOT "%" PRId64 " declared, no MTP tensor",
		       inv->mtp.declared);
		break;
	default:
		qa_fmt_bytes(sz, sizeof(sz), inv->mtp.bytes);
		lb_add(&b, "%s" DOT "%" PRId64 " declared, %" PRId64
		       " present" DOT "%" PRIu32 " tensor%s" DOT "%s",
		       inv->mtp.status == QA_MTP_PARTIAL ? "PARTIAL" :
		       inv->mtp.draft_only ? "draft-only" : "present",
		       inv->mtp.declared, inv->mtp.present, inv->mtp.tensors,
		       inv->mtp.tensors == 1 ? "" : "s", sz);
		break;
	}
	put_line(out, &b);
	if (inv->mtp.not_loaded) {
		char why[512];

		snprintf(why, sizeof(why), "NOT LOADED: %s",
			 inv->mtp.not_loaded);
		put_wrapped(out, why, 2 + LABEL_COLS, 0, NULL, 0);
	}
}

/* ---- quantization and precision lines --------------------------------- */

#define ITEM_MAX 192
#define MAX_ITEMS 8

struct items {
	char s[MAX_ITEMS][ITEM_MAX];
	size_t n;
};

static void items_add(struct items *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
items_add(struct items *it, const char *fmt, ...)
{
	va_list ap;

	if (it->n == MAX_ITEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(it->s[it->n], ITEM_MAX, fmt, ap);
	va_end(ap);
	it->n++;
}

/* Appends to the last item (e.g. "(from config.json)"). */
static void
items_append(struct items *it, const char *s)
{
	size_t len;

	if (it->n == 0)
		return;
	len = strlen(it->s[it->n - 1]);
	snprintf(it->s[it->n - 1] + len, ITEM_MAX - len, "%s", s);
}

/* "  label       item · item · item", wrapped at item boundaries with
 * the value column as hanging indent so no item is cut in the middle. */
static void
put_items(FILE *out, const char *name, const struct items *it)
{
	struct lb b;
	size_t i, k;

	if (it->n == 0)
		return;
	label(&b, name);
	for (i = 0; i < it->n; i++) {
		char *c = clean_dup(it->s[i]);
		size_t w = c ? width_of(c) : 0;

		free(c);
		if (i && width_of(b.s) + 3 + w > WIDTH) {
			put_line(out, &b);
			lb_reset(&b);
			for (k = 0; k < 2 + LABEL_COLS; k++)
				lb_add(&b, " ");
		} else if (i) {
			lb_add(&b, DOT);
		}
		lb_add(&b, "%s", it->s[i]);
	}
	put_line(out, &b);
}

/* Parameters held by one precision label over every component:
 * precisions (by module) when use_prec, dtypes otherwise. */
static uint64_t
label_params(const struct qa_inventory *inv, const char *label, bool use_prec)
{
	uint64_t sum = 0;
	uint32_t a, b;

	for (a = 0; a < inv->n_components; a++) {
		const struct qa_component *c = &inv->components[a];

		if (use_prec) {
			for (b = 0; b < c->n_precisions; b++)
				if (strcmp(c->precisions[b].precision,
					   label) == 0)
					sum += c->precisions[b].params;
		} else {
			for (b = 0; b < c->n_dtypes; b++)
				if (strcmp(c->dtypes[b].dtype, label) == 0)
					sum += c->dtypes[b].params;
		}
	}
	return sum;
}

/* The precision (module labels when the components have them, dtypes
 * otherwise) holding the most parameters over the whole model; sets
 * *quantized when a module of that label has a quantized scheme. */
static const char *
dominant_precision(const struct qa_inventory *inv, bool *quantized)
{
	const char *best = NULL;
	uint64_t best_params = 0;
	bool use_prec = false;
	uint32_t i, k;

	*quantized = false;
	for (i = 0; i < inv->n_components; i++)
		if (inv->components[i].n_precisions)
			use_prec = true;
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];
		uint32_t n = use_prec ? c->n_precisions : c->n_dtypes;

		for (k = 0; k < n; k++) {
			const char *l = use_prec ? c->precisions[k].precision :
				c->dtypes[k].dtype;
			uint64_t sum = label_params(inv, l, use_prec);

			if (!best || sum > best_params) {
				best = l;
				best_params = sum;
			}
		}
	}
	for (i = 0; best && use_prec && i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];

		if (m->precision && strcmp(m->precision, best) == 0 &&
		    m->scheme != QA_SCHEME_DENSE &&
		    m->scheme != QA_SCHEME_UNKNOWN) {
			*quantized = true;
			break;
		}
	}
	return best;
}

/*
 * The "quant" line: the method the files declare. GGUF: the file type as
 * a mix label, plus the importance matrix llama-quantize records as
 * quantize.imatrix.{file,dataset,entries_count,chunks_count}
 * (ggml-org/llama.cpp tools/quantize/quantize.cpp, LLM_KV_QUANTIZE_IMATRIX_*).
 * Others: the quantization config read by formats/quant_config.c.
 */
static void
quant_line(FILE *out, const struct qa_inventory *inv)
{
	const struct qa_quant_config *q = &inv->quant;
	struct items it = { .n = 0 };
	struct lb b;

	if (inv->kind == QA_KIND_GGUF) {
		const char *ft = inv->file_type_declared ?
			inv->file_type_declared : inv->file_type_guessed;
		struct qa_imatrix im;

		if (ft)
			items_add(&it, "GGUF %s mix", ft);
		else if (inv->dominant_matrix_type)
			items_add(&it, "GGUF, mostly %s",
				  inv->dominant_matrix_type);
		else
			items_add(&it, "GGUF");
		(void)qa_imatrix_of(inv, &im);
		/* entries alone is no provenance worth the line */
		if (im.file || im.dataset || im.chunks >= 0) {
			items_add(&it, "imatrix: %s", im.file ?
				  qa_path_base(im.file) : im.dataset ?
				  qa_path_base(im.dataset) : "yes");
			if (im.chunks >= 0) {
				char n[48];

				snprintf(n, sizeof(n), " (%" PRId64 " chunk%s)",
					 im.chunks, im.chunks == 1 ? "" : "s");
				items_append(&it, n);
			}
		}
		put_items(out, "quant", &it);
		return;
	}
	if (q->method != QA_QM_NONE) {
		char from[160];

		if (q->format && *q->format)
			items_add(&it, "%s %s", qa_quant_method_name(q->method),
				  q->format);
		else
			items_add(&it, "%s", q->method == QA_QM_OTHER &&
				  q->method_raw ? q->method_raw :
				  qa_quant_method_name(q->method));
		if (q->bits > 0 && q->group_size > 0)
			items_add(&it, "%d-bit g%d", q->bits, q->group_size);
		else if (q->bits > 0 && q->group_size == 0)
			items_add(&it, "%d-bit per-%s", q->bits,
				  q->per_tensor ? "tensor" : "channel");
		else if (q->bits > 0)
			items_add(&it, "%d-bit", q->bits);
		if (q->block[0] > 0)
			items_add(&it, "block %dx%d", q->block[0],
				  q->block[1]);
		if (q->file) {
			snprintf(from, sizeof(from), " (from %s)",
				 qa_path_base(q->file));
			items_append(&it, from);
		}
		if (q->kv_cache && *q->kv_cache)
			items_add(&it, "KV cache %s", q->kv_cache);
		put_items(out, "quant", &it);
		return;
	}
	{
		bool quantized;
		const char *dom = dominant_precision(inv, &quantized);

		if (quantized)
			items_add(&it, "no config" DOT "tensors hold %s", dom);
		else if (dom)
			items_add(&it, "none (dense %s)", dom);
		else
			items_add(&it, "none");
		put_items(out, "quant", &it);
	}
	/* A config file was found but no method came out of it. */
	if (inv->quant_config_file) {
		label(&b, "quant config");
		lb_add(&b, "%s", inv->quant_config_file);
		put_line(out, &b);
	}
}

/* Component groups of the precision summary line. */
enum { G_ATTN, G_MLP, G_EXPERTS, G_SSM, G_EMBED, G_LM_HEAD, G_MTP, G_COUNT };

static const char *const summary_group_names[G_COUNT] = {
	"attention", "MLP", "experts", "SSM", "embed", "lm_head", "MTP",
};

static int
summary_group(const char *name)
{
	if (strncmp(name, "attn_", 5) == 0 || strncmp(name, "mla_", 4) == 0 ||
	    strncmp(name, "gdn_", 4) == 0 || strncmp(name, "dsa_", 4) == 0)
		return G_ATTN;
	if (strncmp(name, "ffn_", 4) == 0)
		return G_MLP;
	if (strncmp(name, "expert_", 7) == 0 ||
	    strncmp(name, "shared_expert_", 14) == 0)
		return G_EXPERTS;
	if (strncmp(name, "ssm_", 4) == 0)
		return G_SSM;
	if (strcmp(name, "embed") == 0)
		return G_EMBED;
	if (strcmp(name, "lm_head") == 0)
		return G_LM_HEAD;
	if (strcmp(name, "mtp") == 0)
		return G_MTP;
	return -1;
}

#define GROUP_LABELS 16

struct pgroup {
	bool present;
	uint64_t params, bytes;
	struct {
		const char *label;
		uint64_t params;
	} h[GROUP_LABELS];
	uint32_t n;
};

static void
pgroup_add(struct pgroup *g, const char *label, uint64_t params)
{
	uint32_t i;

	for (i = 0; i < g->n; i++)
		if (strcmp(g->h[i].label, label) == 0)
			break;
	if (i == g->n) {
		if (g->n == GROUP_LABELS)
			return;
		g->h[i].label = label;
		g->h[i].params = 0;
		g->n++;
	}
	g->h[i].params += params;
}

/*
 * A group's precision label: its precisions by parameters, largest first,
 * "+"-joined; labels under 1% of the group's parameters (norms and
 * biases when only dtypes are known) are left out, at most three shown.
 */
static void
pgroup_label(char *dst, size_t size, struct pgroup *g)
{
	uint64_t total = 0;
	uint32_t i, k, shown = 0;
	size_t len = 0;

	/* Stable insertion sort by parameters, descending. */
	for (i = 1; i < g->n; i++)
		for (k = i; k > 0 && g->h[k].params > g->h[k - 1].params;
		     k--) {
			const char *l = g->h[k].label;
			uint64_t p = g->h[k].params;

			g->h[k] = g->h[k - 1];
			g->h[k - 1].label = l;
			g->h[k - 1].params = p;
		}
	for (i = 0; i < g->n; i++)
		total += g->h[i].params;
	dst[0] = '\0';
	for (i = 0; i < g->n && len + 1 < size; i++) {
		if (i && g->h[i].params < total / 100)
			break;
		if (shown == 3) {
			snprintf(dst + len, size - len, "+" ELLIPSIS);
			break;
		}
		len += (size_t)snprintf(dst + len, size - len, "%s%s",
					 shown ? "+" : "", g->h[i].label);
		shown++;
	}
	if (len >= size)
		dst[size - 1] = '\0';
}

/*
 * "precision   attention BF16 (16.00 bpw) · MLP NVFP4 (4.50) · …" when
 * major component groups differ in precision: the issue-4 case of an
 * NVFP4 checkpoint that keeps attention in BF16 must be one glance.
 */
static void
precision_line(FILE *out, const struct qa_inventory *inv)
{
	struct pgroup g[G_COUNT];
	char labels[G_COUNT][96];
	struct items it = { .n = 0 };
	int n_present = 0, first = -1, k;
	bool differ = false;
	uint32_t i, j;

	memset(g, 0, sizeof(g));
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];
		int gi = summary_group(c->name);

		if (gi < 0 || c->params == 0)
			continue;
		g[gi].present = true;
		g[gi].params += c->params;
		g[gi].bytes += c->bytes;
		if (c->n_precisions)
			for (j = 0; j < c->n_precisions; j++)
				pgroup_add(&g[gi], c->precisions[j].precision,
					   c->precisions[j].params);
		else
			for (j = 0; j < c->n_dtypes; j++)
				pgroup_add(&g[gi], c->dtypes[j].dtype,
					   c->dtypes[j].params);
	}
	for (k = 0; k < G_COUNT; k++) {
		if (!g[k].present)
			continue;
		pgroup_label(labels[k], sizeof(labels[k]), &g[k]);
		if (first < 0)
			first = k;
		else if (strcmp(labels[k], labels[first]) != 0)
			differ = true;
		n_present++;
	}
	if (n_present < 2 || !differ)
		return;
	for (k = 0; k < G_COUNT; k++) {
		char bpw[32];

		if (!g[k].present)
			continue;
		qa_fmt_bpw(bpw, sizeof(bpw), g[k].bytes, g[k].params);
		items_add(&it, "%s %s (%s%s)", summary_group_names[k],
			  labels[k], bpw, k == first ? " bpw" : "");
	}
	put_items(out, "precision", &it);
}

/* ---- component table -------------------------------------------------- */

static void
component_row(FILE *out, size_t name_cols, const char *name, uint64_t tensors,
	      uint64_t params, uint64_t bytes, const char *dtypes)
{
	char p[32], sz[32], bpw[32], tn[32];
	struct lb b;
	size_t used;

	qa_fmt_params(p, sizeof(p), params);
	qa_fmt_bytes(sz, sizeof(sz), bytes);
	qa_fmt_bpw(bpw, sizeof(bpw), bytes, params);
	*qa_jw_put_u64(tn, tensors) = '\0';
	lb_reset(&b);
	lb_add(&b, "  ");
	lb_field(&b, name, name_cols);
	/* the columns of " %7s %9s %10s %5s", without a format */
	lb_col(&b, tn, 7);
	lb_col(&b, p, 9);
	lb_col(&b, sz, 10);
	lb_col(&b, bpw, 5);
	used = width_of(b.s);
	if (dtypes && *dtypes && used + 2 < WIDTH) {
		char cut[LINE_MAX_BYTES];

		fit_copy(cut, sizeof(cut), dtypes, WIDTH - used - 2);
		lb_add(&b, "  %s", cut);
	}
	put_line(out, &b);
}

static void
component_table(FILE *out, const struct qa_inventory *inv)
{
	size_t name_cols = strlen("component");
	struct lb b;
	uint32_t i, k;

	if (inv->n_components == 0) {
		fputs("  no tensors\n", out);
		return;
	}
	for (i = 0; i < inv->n_components; i++)
		if (width_of(inv->components[i].name) > name_cols)
			name_cols = width_of(inv->components[i].name);
	if (name_cols > 24)
		name_cols = 24;
	lb_reset(&b);
	lb_add(&b, "  ");
	lb_field(&b, "component", name_cols);
	lb_add(&b, " %7s %9s %10s %5s  %s", "tensors", "params", "size",
	       "bpw", "precision");
	put_line(out, &b);
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];
		char name[128];
		struct lb d;

		/* Precision by module ("NVFP4 48": 48 modules) when the
		 * classifier grouped the tensors, else the dtypes by tensor
		 * ("Q6_K 8, Q4_K 8", norms "F32 33"); for GGUF the two are
		 * the same ggml type names. */
		lb_reset(&d);
		for (k = 0; k < c->n_precisions; k++)
			lb_add(&d, "%s%s %" PRIu32, k ? ", " : "",
			       c->precisions[k].precision,
			       c->precisions[k].modules);
		for (k = 0; !c->n_precisions && k < c->n_dtypes; k++)
			lb_add(&d, "%s%s %" PRIu32, k ? ", " : "",
			       c->dtypes[k].dtype, c->dtypes[k].tensors);
		fit_copy(name, sizeof(name), c->name, name_cols);
		component_row(out, name_cols, name, c->tensors, c->params,
			      c->bytes, d.s);
	}
	component_row(out, name_cols, "total", inv->n_tensors, inv->params,
		      inv->bytes, NULL);
}

/* ---- per-layer precision map ------------------------------------------ */

static bool
same_cell(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Rows the map prints once runs are merged. */
static uint32_t
map_printed_rows(const struct qa_layer_map *m)
{
	uint32_t row = 0, rows = 0;

	while (row < m->n_rows) {
		row += qa_layer_map_run(m, row);
		rows++;
	}
	return rows;
}

/* True when every cell holds the same label (a dense model): the map
 * says nothing the component table does not. */
static bool
map_uniform(const struct qa_layer_map *m)
{
	size_t i, n = (size_t)m->n_rows * m->n_cols;

	for (i = 1; i < n; i++)
		if (!same_cell(m->cells[i], m->cells[0]))
			return false;
	return true;
}

/* The map is printed by default when merged runs leave at most this many
 * rows; inspect --layers prints it whatever its length. */
#define MAP_DEFAULT_ROWS 24
/* Legend codes when full labels do not fit: A-Z then a-z. */
#define MAP_CODES 52

struct map_view {
	const struct qa_layer_map *m;
	const char *labels[MAP_CODES];	/* code k stands for labels[k] */
	char codes[MAP_CODES][2];
	size_t n_labels;
	bool use_codes;
	size_t layer_cols;
	size_t *cols;			/* per column */
};

static const char *
map_cell(const struct map_view *v, uint32_t row, uint32_t col)
{
	const char *s = v->m->cells[(size_t)row * v->m->n_cols + col];
	size_t k;

	if (!s)
		return "-";
	if (!v->use_codes)
		return s;
	for (k = 0; k < v->n_labels; k++)
		if (strcmp(v->labels[k], s) == 0)
			return v->codes[k];
	return "?";
}

static void
map_row_label(char *dst, size_t size, const struct qa_layer_map *m,
	      uint32_t row, uint32_t run)
{
	if (run == 1)
		snprintf(dst, size, "%" PRId32 "%s", m->layer[row],
			 m->mtp[row] ? " MTP" : "");
	else
		snprintf(dst, size, "%" PRId32 "-%" PRId32 "%s", m->layer[row],
			 m->layer[row + run - 1], m->mtp[row] ? " MTP" : "");
}

/* Sets column widths; returns the width of a row with every column. */
static size_t
map_widths(struct map_view *v)
{
	const struct qa_layer_map *m = v->m;
	uint32_t row, c, run;
	size_t total;
	char lab[48];

	v->layer_cols = strlen("layer");
	for (row = 0; row < m->n_rows; row += run) {
		run = qa_layer_map_run(m, row);
		map_row_label(lab, sizeof(lab), m, row, run);
		if (strlen(lab) > v->layer_cols)
			v->layer_cols = strlen(lab);
	}
	total = 2 + v->layer_cols;
	for (c = 0; c < m->n_cols; c++) {
		v->cols[c] = width_of(qa_role_heading(m->roles[c]));
		for (row = 0; row < m->n_rows; row++) {
			size_t w = clean_width(map_cell(v, row, c));

			if (w > v->cols[c])
				v->cols[c] = w;
		}
		total += 1 + v->cols[c];
		if (c && qa_layer_map_group(m->roles[c]) != qa_layer_map_group(m->roles[c - 1]))
			total += 2;
	}
	return total;
}

static void
map_cells_line(FILE *out, const struct map_view *v, const char *first,
	       uint32_t a, uint32_t b, const char *const *cells)
{
	struct lb line;
	uint32_t c;

	lb_reset(&line);
	lb_add(&line, "  ");
	lb_field(&line, first, v->layer_cols);
	for (c = a; c < b; c++) {
		char *s = clean_dup(cells[c - a]);

		if (c > a && qa_layer_map_group(v->m->roles[c]) !=
		    qa_layer_map_group(v->m->roles[c - 1]))
			lb_add(&line, " |");
		lb_add(&line, " ");
		lb_field(&line, s ? s : "?", c + 1 < b ? v->cols[c] : 0);
		free(s);
	}
	put_line(out, &line);
}

/* Columns [a, b) of the map, one line per run of identical layers. */
static void
map_block(FILE *out, const struct map_view *v, uint32_t a, uint32_t b)
{
	const struct qa_layer_map *m = v->m;
	const char **cells = malloc(sizeof(*cells) * (b - a));
	uint32_t row, run, c;
	char lab[48];

	if (!cells)
		return;
	for (c = a; c < b; c++)
		cells[c - a] = qa_role_heading(m->roles[c]);
	map_cells_line(out, v, "layer", a, b, cells);
	for (row = 0; row < m->n_rows; row += run) {
		run = qa_layer_map_run(m, row);
		map_row_label(lab, sizeof(lab), m, row, run);
		for (c = a; c < b; c++)
			cells[c - a] = map_cell(v, row, c);
		map_cells_line(out, v, lab, a, b, cells);
	}
	free(cells);
}

/*
 * The per-layer precision map: one row per run of layers whose roles hold
 * the same types ("0-1", "2-3"...), a column per role, "|" between role
 * groups. Full labels when they fit in 80 columns, else one-letter codes
 * with a legend; columns that still do not fit go to a second block.
 */
static void
layer_map_text(FILE *out, const struct qa_inventory *inv, bool force)
{
	struct qa_layer_map m;
	struct map_view v;
	struct lb b;
	uint32_t rows, a, c, r;
	int gi, last = -1;

	if (qa_layer_map_build(inv, &m) != 0 || m.n_rows == 0) {
		qa_layer_map_free(&m);
		return;
	}
	rows = map_printed_rows(&m);
	if (!force && (map_uniform(&m) || rows > MAP_DEFAULT_ROWS)) {
		if (!map_uniform(&m)) {
			lb_reset(&b);
			lb_add(&b, "  precision by layer: %" PRIu32 " rows over "
			       "%" PRIu32 " layers; inspect --layers prints "
			       "them", rows, m.n_rows);
			putc('\n', out);
			put_line(out, &b);
		}
		qa_layer_map_free(&m);
		return;
	}
	memset(&v, 0, sizeof(v));
	v.m = &m;
	v.cols = calloc(m.n_cols, sizeof(*v.cols));
	if (!v.cols) {
		qa_layer_map_free(&m);
		return;
	}
	if (map_widths(&v) > WIDTH) {
		/* Codes in order of first appearance, row by row. */
		v.use_codes = true;
		for (r = 0; r < m.n_rows && v.use_codes; r++)
			for (c = 0; c < m.n_cols; c++) {
				const char *s = m.cells[(size_t)r * m.n_cols +
							 c];
				size_t k;

				if (!s)
					continue;
				for (k = 0; k < v.n_labels; k++)
					if (strcmp(v.labels[k], s) == 0)
						break;
				if (k < v.n_labels)
					continue;
				if (v.n_labels == MAP_CODES) {
					v.use_codes = false;
					break;
				}
				v.labels[k] = s;
				v.codes[k][0] = (char)(k < 26 ? 'A' + k :
						       'a' + (k - 26));
				v.codes[k][1] = '\0';
				v.n_labels++;
			}
		map_widths(&v);
	}

	putc('\n', out);
	lb_reset(&b);
	lb_add(&b, "  precision by layer (");
	for (c = 0; c < m.n_cols; c++) {
		gi = qa_layer_map_group(m.roles[c]);
		if (gi != last)
			lb_add(&b, "%s%s", last >= 0 ? " | " : "",
			       qa_role_group_name((enum qa_role_group)gi));
		last = gi;
	}
	lb_add(&b, ")");
	put_line(out, &b);
	for (a = 0; a < m.n_cols; a = c) {
		size_t w = 2 + v.layer_cols;

		/* As many columns as fit, at least one. */
		for (c = a; c < m.n_cols; c++) {
			size_t add = 1 + v.cols[c] + (c > a &&
				qa_layer_map_group(m.roles[c]) !=
				qa_layer_map_group(m.roles[c - 1]) ? 2 : 0);

			if (c > a && w + add > WIDTH)
				break;
			w += add;
		}
		if (a)
			putc('\n', out);
		map_block(out, &v, a, c);
	}
	if (v.use_codes) {
		struct items it = { .n = 0 };
		size_t k;

		for (k = 0; k < v.n_labels; k += MAX_ITEMS) {
			size_t j;

			it.n = 0;
			for (j = k; j < v.n_labels && j < k + MAX_ITEMS; j++)
				items_add(&it, "%s = %s", v.codes[j],
					  v.labels[j]);
			put_items(out, "legend", &it);
		}
	}
	free(v.cols);
	qa_layer_map_free(&m);
}

/* ---- findings --------------------------------------------------------- */

static const char *
severity_color(enum qa_severity s)
{
	return s == QA_SEV_ERROR ? C_RED : s == QA_SEV_WARNING ? C_YELLOW :
		C_CYAN;
}

/*
 * Writes text wrapped at WIDTH columns: the first line after `indent`
 * spaces, the others after `indent + hang`. Breaks at spaces, or inside a
 * word (at a code point boundary) that is longer than a line. The first
 * `color_bytes` bytes of text are wrapped in `color` when it is set.
 */
static void
put_wrapped(FILE *out, const char *raw, size_t indent, size_t hang,
	    const char *color, size_t color_bytes)
{
	char *text = clean_dup(raw);
	const char *s = text;
	bool first = true;

	if (!text)
		return;

	while (*s) {
		size_t lead = first ? indent : indent + hang;
		size_t room = WIDTH - lead, n, i;

		if (width_of(s) <= room) {
			n = strlen(s);
		} else {
			n = bytes_for(s, room);
			/* Prefer the last space within room (or right at
			 * its end) as the break. */
			for (i = n; i > 0 && s[i] != ' '; i--)
				;
			if (i > 0)
				n = i;
		}
		for (i = 0; i < lead; i++)
			putc(' ', out);
		if (first && color && color_bytes <= n) {
			fputs(color, out);
			fwrite(s, 1, color_bytes, out);
			fputs(C_RESET, out);
			fwrite(s + color_bytes, 1, n - color_bytes, out);
		} else {
			fwrite(s, 1, n, out);
		}
		putc('\n', out);
		s += n;
		while (*s == ' ')
			s++;
		first = false;
	}
	free(text);
}

static void
put_finding(FILE *out, const struct qa_finding *f, bool color)
{
	const char *sev = qa_severity_name(f->severity);
	const char *detail = f->message ? f->message : "";
	size_t n;
	char *text;
	int r;
	char loc[64];

	/* Location: [file:0xOFFSET, tensor 'x'] */
	n = strlen(sev) + strlen(f->rule->id) + strlen(f->rule->summary) +
		strlen(detail) + (f->file ? strlen(f->file) : 0) +
		(f->tensor ? strlen(f->tensor) : 0) + 128;
	text = malloc(n);
	if (!text)
		return;
	r = snprintf(text, n, "%s QA%04u %s: %s%s%s", sev,
		     (unsigned)f->rule->code, f->rule->id, f->rule->summary,
		     *detail ? ": " : "", detail);
	if (r < 0) {
		free(text);
		return;
	}
	if (f->file || f->offset >= 0 || f->tensor) {
		size_t len = strlen(text);
		const char *comma = "";

		snprintf(text + len, n - len, " [");
		if (f->file) {
			len = strlen(text);
			snprintf(text + len, n - len, "%s", f->file);
			comma = ", ";
		}
		if (f->offset >= 0) {
			snprintf(loc, sizeof(loc), "%s0x%" PRIx64,
				 f->file ? ":" : "offset ",
				 (uint64_t)f->offset);
			len = strlen(text);
			snprintf(text + len, n - len, "%s", loc);
			comma = ", ";
		}
		if (f->tensor) {
			len = strlen(text);
			snprintf(text + len, n - len, "%stensor '%s'", comma,
				 f->tensor);
		}
		len = strlen(text);
		snprintf(text + len, n - len, "]");
	}
	put_wrapped(out, text, 2, 4, color ? severity_color(f->severity) :
		    NULL, strlen(sev));
	free(text);
}

/* The findings counted past the caps of qa_inv_finding, when any. */
static void
put_dropped(FILE *out, const struct qa_inventory *inv)
{
	char text[1024], line[1100];

	if (!qa_inventory_dropped(inv, NULL))
		return;
	qa_inventory_dropped_text(inv, text, sizeof(text));
	snprintf(line, sizeof(line), "truncated: %s", text);
	put_wrapped(out, line, 2, 4, NULL, 0);
}

static void
findings_block(FILE *out, const struct qa_inventory *inv, bool color)
{
	int s;
	uint32_t i;

	if (inv->n_findings == 0 && !qa_inventory_dropped(inv, NULL))
		return;
	putc('\n', out);
	/* Errors first; within a severity, in the order found. */
	for (s = QA_SEV_NONE; s >= QA_SEV_INFO; s--)
		for (i = 0; i < inv->n_findings; i++)
			if ((int)inv->findings[i].severity == s)
				put_finding(out, &inv->findings[i], color);
	put_dropped(out, inv);
}

static const char *
verdict_color(const char *v)
{
	return strcmp(v, "fail") == 0 ? C_RED :
		strcmp(v, "warn") == 0 ? C_YELLOW : C_GREEN;
}

static void
put_verdict_word(FILE *out, const char *v, bool color)
{
	if (color)
		fputs(verdict_color(v), out);
	fputs(strcmp(v, "fail") == 0 ? "FAIL" :
	      strcmp(v, "warn") == 0 ? "WARN" : "PASS", out);
	if (color)
		fputs(C_RESET, out);
}

static void
verdict_line(FILE *out, const struct qa_inventory *inv,
	     const struct qa_report_options *opt)
{
	uint32_t counts[QA_SEV_NONE + 1] = { 0 };
	struct lb b;
	uint32_t i;

	for (i = 0; i < inv->n_findings; i++)
		if ((unsigned)inv->findings[i].severity <= QA_SEV_NONE)
			counts[inv->findings[i].severity]++;
	lb_reset(&b);
	if (inv->n_findings == 0 && !qa_inventory_dropped(inv, NULL))
		lb_add(&b, "no findings");
	if (counts[QA_SEV_ERROR])
		lb_add(&b, "%" PRIu32 " error%s", counts[QA_SEV_ERROR],
		       counts[QA_SEV_ERROR] == 1 ? "" : "s");
	if (counts[QA_SEV_WARNING])
		lb_add(&b, "%s%" PRIu32 " warning%s", b.len ? ", " : "",
		       counts[QA_SEV_WARNING],
		       counts[QA_SEV_WARNING] == 1 ? "" : "s");
	if (counts[QA_SEV_INFO])
		lb_add(&b, "%s%" PRIu32 " info", b.len ? ", " : "",
		       counts[QA_SEV_INFO]);
	if (qa_inventory_dropped(inv, NULL))
		lb_add(&b, "%s%" PRIu64 " more not listed",
		       b.len ? "; " : "", qa_inventory_dropped(inv, NULL));
	putc('\n', out);
	fputs("verdict: ", out);
	put_verdict_word(out, qa_verdict(inv, opt->fail_on), opt->color);
	fprintf(out, " (%s)\n", b.s);
}

/* The producer's format is not the container's own name (an MLX folder
 * is an hf-dir, an Ollama blob a gguf). */
static bool
format_differs(const struct qa_inventory *inv)
{
	const char *f = qa_model_format_name(inv->format);

	if (inv->format == QA_FORMAT_UNKNOWN ||
	    (inv->format == QA_FORMAT_HF && inv->kind == QA_KIND_HF_DIR))
		return false;
	return strcmp(f, qa_inv_kind_name(inv->kind)) != 0;
}

static void
title_line(FILE *out, const struct qa_inventory *inv, bool color)
{
	const char *kind = qa_inv_kind_name(inv->kind);
	char label[64], named[160];
	size_t room;

	/* "(tar.gz archive, hf-dir)": a model read from an archive */
	if (inv->archive.file) {
		snprintf(label, sizeof(label), "%s archive%s%s",
			 inv->archive.format,
			 strcmp(inv->archive.kind, "none") ? ", " : "",
			 strcmp(inv->archive.kind, "none") ?
			 inv->archive.kind : "");
		kind = label;
	}
	/* "(gguf, adapter)", "(hf-dir, mlx)": the producer's format where
	 * the container does not say it, the file kind where it is not a
	 * model */
	if (!inv->archive.file && (format_differs(inv) ||
				   inv->model_kind != QA_MKIND_MODEL)) {
		snprintf(named, sizeof(named), "%s%s%s%s%s", kind,
			 format_differs(inv) ? ", " : "",
			 format_differs(inv) ?
			 qa_model_format_name(inv->format) : "",
			 inv->model_kind != QA_MKIND_MODEL ? ", " : "",
			 inv->model_kind != QA_MKIND_MODEL ?
			 qa_model_kind_name(inv->model_kind) : "");
		kind = named;
	}
	room = WIDTH - width_of(kind) - 3;
	if (color)
		fputs(C_BOLD, out);
	put_fit_left(out, inv->path, room);
	if (color)
		fputs(C_RESET, out);
	fprintf(out, " (%s)\n", kind);
}

/* One input of the inspect view; index counts the inputs before it. */
static void
inspect_one(FILE *out, const struct qa_inventory *inv, size_t index,
	    const struct qa_report_options *opt)
{
	if (index)
		fputs("\n\n", out);
	title_line(out, inv, opt->color);
	model_line(out, inv);
	shape_line(out, &inv->hp);
	experts_line(out, &inv->hp);
	attention_line(out, inv);
	mla_ssm_lines(out, &inv->hp);
	size_lines(out, inv);
	quant_line(out, inv);
	precision_line(out, inv);
	files_line(out, inv);
	mtp_line(out, inv);
	putc('\n', out);
	component_table(out, inv);
	layer_map_text(out, inv, opt->layers);
	findings_block(out, inv, opt->color);
	qa_report_fit_text(out, inv, opt->color);
	verdict_line(out, inv, opt);
}

/* After the last input of the inspect view. */
static void
inspect_end(FILE *out, size_t n, const char *verdict,
	    const struct qa_report_options *opt)
{
	qa_report_text_advisories(out, opt);
	if (n > 1) {
		fputs("\noverall verdict: ", out);
		put_verdict_word(out, verdict, opt->color);
		putc('\n', out);
	}
}

int
qa_report_text(FILE *out, struct qa_inventory *const *invs, size_t n,
	       const struct qa_report_options *opt)
{
	size_t i;

	for (i = 0; i < n; i++)
		inspect_one(out, invs[i], i, opt);
	inspect_end(out, n, qa_verdict_all(invs, n, opt->fail_on), opt);
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

/* ---- tensors ---------------------------------------------------------- */

/*
 * The tensors view writes one row per tensor, 18,867 rows for a sharded
 * 30B MoE: each cell went through a copy, an allocation and a stdio call
 * per padding space. Rows now go through a write buffer, cells are
 * escaped in spans straight into it and their numbers formatted by hand.
 */
struct tbuf {
	FILE *out;
	size_t len;
	char buf[16384];
};

static void
tb_flush(struct tbuf *b)
{
	/* A short write sets the error indicator of out, which the
	 * reporter checks at the end. */
	if (b->len)
		(void)fwrite(b->buf, 1, b->len, b->out);
	b->len = 0;
}

static void
tb_put(struct tbuf *b, const char *s, size_t n)
{
	if (n > sizeof(b->buf) - b->len) {
		tb_flush(b);
		if (n > sizeof(b->buf)) {
			(void)fwrite(s, 1, n, b->out);
			return;
		}
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
}

static void
tb_pad(struct tbuf *b, size_t n)
{
	static const char spaces[] = "                                ";
	size_t k;

	for (; n; n -= k) {
		k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		tb_put(b, spaces, k);
	}
}

/* s in the text spelling (clean_dup's), without the copy; its display
 * columns (clean_width's). */
static size_t
tb_clean(struct tbuf *b, const char *s)
{
	char esc[QA_ESC_SPELL_MAX];
	size_t run, len, w = 0, i, n;

	for (;; s += len) {
		run = qa_esc_text_run(s);
		tb_put(b, s, run);
		for (i = 0; i < run; i++)
			w += ((unsigned char)s[i] & 0xc0) != 0x80;
		s += run;
		if (!*s)
			break;
		n = qa_esc_text_spell(s, esc, &len);
		tb_put(b, esc, n);
		w += n;
	}
	return w;
}

/* dst = the n bytes at s, then a, then b, cut to size (snprintf's
 * "%.*s%s%s" without the format parsing). */
static void
cat_cell(char *dst, size_t size, const char *s, size_t n, const char *a,
	 const char *b)
{
	size_t la = strlen(a), lb = strlen(b), o = 0;

	if (size == 0)
		return;
	size--;
	n = n < size ? n : size;
	memcpy(dst, s, n);
	o = n;
	la = la < size - o ? la : size - o;
	memcpy(dst + o, a, la);
	o += la;
	lb = lb < size - o ? lb : size - o;
	memcpy(dst + o, b, lb);
	o += lb;
	dst[o] = '\0';
}

/* Writes v in decimal (or hexadecimal) ending at end; the start. */
static char *
fmt_digits(char *end, uint64_t v, unsigned base)
{
	static const char digit[] = "0123456789abcdef";

	do {
		*--end = digit[v % base];
		v /= base;
	} while (v);
	return end;
}

/*
 * n / 2^shift with `decimals` (1 or 2) decimals then unit, exactly as
 * qa_fmt_bytes's "%.1f"/"%.2f" write it: the quotient is exact in a
 * double (n < 2^53 here), and printf rounds its exact value to nearest,
 * ties to even. n * 100 fits in 64 bits.
 */
static void
fmt_scaled(char *dst, size_t size, uint64_t n, unsigned shift,
	   unsigned decimals, const char *unit)
{
	uint64_t scale = decimals == 1 ? 10 : 100;
	uint64_t x = n * scale, q = x >> shift;
	uint64_t r = x & (((uint64_t)1 << shift) - 1), half = (uint64_t)1 << (shift - 1);
	char tmp[32], *p = tmp + sizeof(tmp);
	unsigned i;

	if (r > half || (r == half && (q & 1)))
		q++;
	for (i = 0; i < decimals; i++) {
		*--p = (char)('0' + q % 10);
		q /= 10;
	}
	*--p = '.';
	p = fmt_digits(p, q, 10);
	cat_cell(dst, size, p, (size_t)(tmp + sizeof(tmp) - p), " ", unit);
}

/* qa_fmt_bytes (core/units.c), without printf for sizes below 2^53
 * (exact as a double). */
static void
fmt_size(char *dst, size_t size, uint64_t n)
{
	char tmp[24], *p;

	if (n < 1024) {
		p = fmt_digits(tmp + sizeof(tmp), n, 10);
		cat_cell(dst, size, p, (size_t)(tmp + sizeof(tmp) - p), " B",
			 "");
	} else if (n < (uint64_t)1 << 20) {
		fmt_scaled(dst, size, n, 10, 1, "KiB");
	} else if (n < (uint64_t)1 << 30) {
		fmt_scaled(dst, size, n, 20, 1, "MiB");
	} else if (n < (uint64_t)1 << 40) {
		fmt_scaled(dst, size, n, 30, 2, "GiB");
	} else if (n < (uint64_t)1 << 53) {
		fmt_scaled(dst, size, n, 40, 2, "TiB");
	} else {
		qa_fmt_bytes(dst, size, n);
	}
}

struct tensor_cells {
	char shape[QA_MAX_DIMS * 21 + 8];
	char size[32];
	char offset[24];
	char role[64];
	char layer[16];
};

static void
tensor_cells(struct tensor_cells *c, const struct qa_tensor *t)
{
	const char *role = qa_role_name(t->role);
	char tmp[24], *end = tmp + sizeof(tmp), *p;
	size_t len = 0, n;
	uint32_t d;

	for (d = 0; d < t->n_dims && d < QA_MAX_DIMS; d++) {
		if (d)
			c->shape[len++] = 'x';
		p = fmt_digits(end, t->shape[d], 10);
		n = (size_t)(end - p);
		memcpy(c->shape + len, p, n);
		len += n;
	}
	if (t->n_dims == 0)
		c->shape[len++] = '-';
	c->shape[len] = '\0';
	fmt_size(c->size, sizeof(c->size), t->bytes);
	p = fmt_digits(end, t->offset, 16);
	c->offset[0] = '0';
	c->offset[1] = 'x';
	memcpy(c->offset + 2, p, (size_t)(end - p));
	c->offset[2 + (end - p)] = '\0';
	/* MTP blocks reuse trunk roles (attn_q...); say so. */
	if (t->mtp && strncmp(role, "mtp", 3) != 0)
		cat_cell(c->role, sizeof(c->role), "mtp:", 4, role, "");
	else
		cat_cell(c->role, sizeof(c->role), role, strlen(role), "", "");
	if (t->layer >= 0) {
		p = fmt_digits(end, (uint64_t)t->layer, 10);
		memcpy(c->layer, p, (size_t)(end - p));
		c->layer[end - p] = '\0';
	} else {
		c->layer[0] = '-';
		c->layer[1] = '\0';
	}
}

enum { COL_NAME, COL_DTYPE, COL_SHAPE, COL_SIZE, COL_OFFSET, COL_ROLE,
       COL_LAYER, N_COLS };

/* Numbers right-aligned, words left-aligned. The numbers (and the
 * headings) are written by tensor_cells in plain ASCII: one column a
 * byte, nothing to escape. Words come from the model and are cleaned. */
static const bool right_aligned[N_COLS] = {
	false, false, true, true, true, false, true,
};

/* Display columns of cell k. */
static size_t
cell_width(const char *s, int k)
{
	return right_aligned[k] ? strlen(s) : clean_width(s);
}

static void
put_cell(struct tbuf *b, const char *s, size_t cols, int k, bool last)
{
	size_t w;

	if (right_aligned[k]) {
		w = strlen(s);
		if (w < cols)
			tb_pad(b, cols - w);
		tb_put(b, s, w);
		return;
	}
	w = tb_clean(b, s);
	if (!last && w < cols)
		tb_pad(b, cols - w);
}

static void
put_row(struct tbuf *b, const char *const cells[N_COLS],
	const size_t cols[N_COLS], const char *gap)
{
	size_t gap_len = strlen(gap);
	int k;

	for (k = 0; k < N_COLS; k++) {
		if (k)
			tb_put(b, gap, gap_len);
		put_cell(b, cells[k], cols[k], k, k == N_COLS - 1);
	}
	tb_put(b, "\n", 1);
}

/* One input of the tensors view: a table sized to its own cells. */
static void
tensors_one(FILE *out, const struct qa_inventory *inv, const bool *mask,
	    size_t index, bool several, const struct qa_report_options *opt)
{
	static const char *const heads[N_COLS] = {
		"name", "dtype", "shape", "size", "offset", "role", "layer",
	};
	size_t cols[N_COLS], total = 0, w;
	uint32_t k, shown = 0;
	const char *gap = "  ";
	struct tbuf b;
	int c;

	if (index)
		putc('\n', out);
	if (several)
		title_line(out, inv, opt->color);
	for (c = 0; c < N_COLS; c++)
		cols[c] = strlen(heads[c]);
	for (k = 0; k < inv->n_tensors; k++) {
		const struct qa_tensor *t = &inv->tensors[k];
		struct tensor_cells tc;
		const char *cells[N_COLS];

		if (mask && !mask[k])
			continue;
		tensor_cells(&tc, t);
		cells[COL_NAME] = t->name;
		cells[COL_DTYPE] = t->dtype ? t->dtype : "?";
		cells[COL_SHAPE] = tc.shape;
		cells[COL_SIZE] = tc.size;
		cells[COL_OFFSET] = tc.offset;
		cells[COL_ROLE] = tc.role;
		cells[COL_LAYER] = tc.layer;
		for (c = 0; c < N_COLS; c++)
			if ((w = cell_width(cells[c], c)) > cols[c])
				cols[c] = w;
		shown++;
	}
	for (c = 0; c < N_COLS; c++)
		total += cols[c];
	/* Two-space gaps read better; fall back to one space when
	 * that keeps the table within 80 columns. */
	if (total + 2 * (N_COLS - 1) > WIDTH)
		gap = " ";
	b.out = out;
	b.len = 0;
	if (shown)
		put_row(&b, heads, cols, gap);
	for (k = 0; k < inv->n_tensors; k++) {
		const struct qa_tensor *t = &inv->tensors[k];
		struct tensor_cells tc;
		const char *cells[N_COLS];

		if (mask && !mask[k])
			continue;
		tensor_cells(&tc, t);
		cells[COL_NAME] = t->name;
		cells[COL_DTYPE] = t->dtype ? t->dtype : "?";
		cells[COL_SHAPE] = tc.shape;
		cells[COL_SIZE] = tc.size;
		cells[COL_OFFSET] = tc.offset;
		cells[COL_ROLE] = tc.role;
		cells[COL_LAYER] = tc.layer;
		put_row(&b, cells, cols, gap);
	}
	tb_flush(&b);
	if (shown == inv->n_tensors)
		fprintf(out, "%" PRIu32 " tensor%s\n", shown,
			shown == 1 ? "" : "s");
	else
		fprintf(out, "%" PRIu32 " of %" PRIu32 " tensors\n",
			shown, inv->n_tensors);
}

int
qa_report_text_tensors(FILE *out, struct qa_inventory *const *invs,
		       size_t n, const struct qa_report_options *opt)
{
	size_t i;

	for (i = 0; i < n; i++)
		tensors_one(out, invs[i], opt->tensor_mask ?
			    opt->tensor_mask[i] : NULL, i, n > 1, opt);
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

void
qa_report_text_advisories(FILE *out, const struct qa_report_options *opt)
{
	size_t i;

	if (!opt->n_advisories)
		return;
	fputs("\nsetup (for every model of this run):\n", out);
	for (i = 0; i < opt->n_advisories; i++) {
		struct qa_finding f;

		memset(&f, 0, sizeof(f));
		f.rule = opt->advisories[i].rule;
		f.severity = opt->advisories[i].severity;
		f.message = opt->advisories[i].message;
		f.offset = -1;
		put_finding(out, &f, opt->color);
	}
}

/* ---- the fit view ------------------------------------------------------ */

/* One input of the fit view: its name, the fit block (or why there is
 * none), what input resolution decided, the findings. */
static void
fit_view_one(FILE *out, const struct qa_inventory *inv,
	     const struct qa_report_options *opt)
{
	bool color = opt->color;
	char line[1200];
	uint32_t i;

	snprintf(line, sizeof(line), "%s: %s%s%s%s", inv->path,
		 inv->hp.arch ? inv->hp.arch : "unknown architecture",
		 inv->hp.name ? " \"" : "", inv->hp.name ? inv->hp.name : "",
		 inv->hp.name ? "\"" : "");
	qa_report_fit_wrap(out, line, 2);
	if (inv->input_note) {
		snprintf(line, sizeof(line), "note: %s", inv->input_note);
		qa_report_fit_wrap(out, line, 2);
	}
	qa_report_fit_text(out, inv, color);
	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];

		snprintf(line, sizeof(line), "%s [QA%04u %s] %s",
			 qa_severity_name(f->severity),
			 (unsigned)f->rule->code, f->rule->id,
			 f->message ? f->message : "");
		qa_report_fit_wrap(out, line, 2);
	}
	if (qa_inventory_dropped(inv, NULL)) {
		char text[1024];

		qa_inventory_dropped_text(inv, text, sizeof(text));
		snprintf(line, sizeof(line), "truncated: %s", text);
		qa_report_fit_wrap(out, line, 2);
	}
	/* "fits" at the top is the memory's answer; when the findings below
	 * fail the audit (and the exit is 1), the view ends by saying so, so
	 * its header never stands alone against them. */
	if (strcmp(qa_verdict(inv, opt->fail_on), "fail") == 0)
		verdict_line(out, inv, opt);
}

int
qa_report_text_fit(FILE *out, struct qa_inventory *const *invs, size_t n,
		   const struct qa_report_options *opt)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			fputs("\n\n", out);
		fit_view_one(out, invs[i], opt);
	}
	qa_report_text_advisories(out, opt);
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

/* ---- one input at a time (struct qa_reporter begin, input, end) ------- */

int
qa_report_text_begin(struct qa_report_stream *st)
{
	(void)st;
	return 0;
}

int
qa_report_text_input(struct qa_report_stream *st,
		     const struct qa_inventory *inv, const bool *mask,
		     size_t index, bool several)
{
	const struct qa_report_options *opt = st->opt;

	switch (opt->view) {
	case QA_VIEW_TENSORS:
		tensors_one(st->out, inv, mask, index, several, opt);
		break;
	case QA_VIEW_FIT:
		if (index)
			fputs("\n\n", st->out);
		fit_view_one(st->out, inv, opt);
		break;
	case QA_VIEW_INSPECT:
		inspect_one(st->out, inv, index, opt);
		break;
	}
	return ferror(st->out) ? -1 : 0;
}

int
qa_report_text_end(struct qa_report_stream *st, size_t n, const char *verdict)
{
	const struct qa_report_options *opt = st->opt;

	if (opt->view == QA_VIEW_INSPECT)
		inspect_end(st->out, n, verdict, opt);
	else if (opt->view == QA_VIEW_FIT)
		qa_report_text_advisories(st->out, opt);
	if (fflush(st->out) != 0 || ferror(st->out))
		return -1;
	return 0;
}
