/* SPDX-License-Identifier: MIT */
/*
 * Text reports for people: `inspect` (the model in a few lines, the
 * component table, findings by severity, the verdict) and `tensors` (one
 * aligned line per tensor).
 *
 * Everything `inspect` prints fits an 80-column terminal: lines are built
 * in a buffer, made safe for a terminal (control characters and invalid
 * UTF-8 from the file are replaced), measured in display columns (code
 * points; our own text uses "·" and "…") and cut with "…" when a value is
 * too long; paths lose their beginning rather than their file name;
 * findings wrap with a hanging indent. Colour (opt->color) is added only around words whose
 * width is known, so it never disturbs the alignment.
 */
#include "report.h"
#include "units.h"

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

static void
lb_add(struct lb *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (b->len + 1 >= sizeof(b->s))
		return;
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
 * Length of the valid UTF-8 sequence at s (1 for ASCII), or 0 when the
 * byte at s does not start one (overlong, surrogate, past U+10FFFF,
 * stray continuation, truncated).
 */
static size_t
utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, k;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	for (k = 1; k < len; k++)
		if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xbf))
			return 0;
	return len;
}

/*
 * Copy of s safe for a terminal: names and metadata come from the file,
 * and a hostile one could carry escape sequences. Control characters
 * become '?', bytes outside valid UTF-8 become U+FFFD. NULL when out of
 * memory.
 */
static char *
clean_dup(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, o = 0;
	char *d = malloc(3 * n + 1);

	if (!d)
		return NULL;
	while (s[i]) {
		size_t len = utf8_len(s + i);

		if (s[i] < 0x20 || s[i] == 0x7f) {
			d[o++] = '?';
			i++;
		} else if (len == 0) {
			memcpy(d + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(d + o, s + i, len);
			o += len;
			i += len;
		}
	}
	d[o] = '\0';
	return d;
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
		len = utf8_len(s);
		s += len ? len : 1;
		w++;
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

	lb_add(b, "%s", s);
	for (; w < cols; w++)
		lb_add(b, " ");
}

/* ---- names ------------------------------------------------------------ */

static const char *
kind_name(enum qa_input_kind k)
{
	switch (k) {
	case QA_KIND_GGUF:
		return "gguf";
	case QA_KIND_SAFETENSORS:
		return "safetensors";
	case QA_KIND_HF_DIR:
		return "hf-dir";
	}
	return "unknown";
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
	default:
		return "unknown";
	}
}

/* "48 layers: 36 linear (GDN) + 12 full attention", kinds in order of
 * first appearance; then the sliding window and full-attention period. */
static void
attention_line(FILE *out, const struct qa_hparams *hp)
{
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
	if (inv->quant_config_file) {
		label(&b, "quant config");
		lb_add(&b, "%s", inv->quant_config_file);
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
	snprintf(tn, sizeof(tn), "%" PRIu64, tensors);
	lb_reset(&b);
	lb_add(&b, "  ");
	lb_field(&b, name, name_cols);
	lb_add(&b, " %7s %9s %10s %5s", tn, p, sz, bpw);
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
	       "bpw", "dtypes");
	put_line(out, &b);
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];
		char name[128];
		struct lb d;

		lb_reset(&d);
		for (k = 0; k < c->n_dtypes; k++)
			lb_add(&d, "%s%s %" PRIu32, k ? ", " : "",
			       c->dtypes[k].dtype, c->dtypes[k].tensors);
		fit_copy(name, sizeof(name), c->name, name_cols);
		component_row(out, name_cols, name, c->tensors, c->params,
			      c->bytes, d.s);
	}
	component_row(out, name_cols, "total", inv->n_tensors, inv->params,
		      inv->bytes, NULL);
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

static void
findings_block(FILE *out, const struct qa_inventory *inv, bool color)
{
	int s;
	uint32_t i;

	if (inv->n_findings == 0)
		return;
	putc('\n', out);
	/* Errors first; within a severity, in the order found. */
	for (s = QA_SEV_NONE; s >= QA_SEV_INFO; s--)
		for (i = 0; i < inv->n_findings; i++)
			if ((int)inv->findings[i].severity == s)
				put_finding(out, &inv->findings[i], color);
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
	if (inv->n_findings == 0)
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
	putc('\n', out);
	fputs("verdict: ", out);
	put_verdict_word(out, qa_verdict(inv, opt->fail_on), opt->color);
	fprintf(out, " (%s)\n", b.s);
}

static void
title_line(FILE *out, const struct qa_inventory *inv, bool color)
{
	const char *kind = kind_name(inv->kind);
	size_t room = WIDTH - width_of(kind) - 3;

	if (color)
		fputs(C_BOLD, out);
	put_fit_left(out, inv->path, room);
	if (color)
		fputs(C_RESET, out);
	fprintf(out, " (%s)\n", kind);
}

int
qa_report_text(FILE *out, struct qa_inventory *const *invs, size_t n,
	       const struct qa_report_options *opt)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct qa_inventory *inv = invs[i];

		if (i)
			fputs("\n\n", out);
		title_line(out, inv, opt->color);
		model_line(out, inv);
		shape_line(out, &inv->hp);
		experts_line(out, &inv->hp);
		attention_line(out, &inv->hp);
		mla_ssm_lines(out, &inv->hp);
		size_lines(out, inv);
		files_line(out, inv);
		mtp_line(out, inv);
		putc('\n', out);
		component_table(out, inv);
		findings_block(out, inv, opt->color);
		verdict_line(out, inv, opt);
	}
	if (n > 1) {
		fputs("\noverall verdict: ", out);
		put_verdict_word(out, qa_verdict_all(invs, n, opt->fail_on),
				 opt->color);
		putc('\n', out);
	}
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

/* ---- tensors ---------------------------------------------------------- */

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
	size_t len = 0;
	uint32_t d;

	c->shape[0] = '\0';
	for (d = 0; d < t->n_dims && d < QA_MAX_DIMS; d++)
		len += (size_t)snprintf(c->shape + len, sizeof(c->shape) - len,
					"%s%" PRIu64, d ? "x" : "",
					t->shape[d]);
	if (t->n_dims == 0)
		snprintf(c->shape, sizeof(c->shape), "-");
	qa_fmt_bytes(c->size, sizeof(c->size), t->bytes);
	snprintf(c->offset, sizeof(c->offset), "0x%" PRIx64, t->offset);
	/* MTP blocks reuse trunk roles (attn_q...); say so. */
	if (t->mtp && strncmp(role, "mtp", 3) != 0)
		snprintf(c->role, sizeof(c->role), "mtp:%s", role);
	else
		snprintf(c->role, sizeof(c->role), "%s", role);
	if (t->layer >= 0)
		snprintf(c->layer, sizeof(c->layer), "%" PRId32, t->layer);
	else
		snprintf(c->layer, sizeof(c->layer), "-");
}

enum { COL_NAME, COL_DTYPE, COL_SHAPE, COL_SIZE, COL_OFFSET, COL_ROLE,
       COL_LAYER, N_COLS };

static void
put_cell(FILE *out, const char *s, size_t cols, bool right, bool last)
{
	size_t w = width_of(s);
	char *c = clean_dup(s);

	if (right)
		for (; w < cols; w++)
			putc(' ', out);
	fputs(c ? c : "?", out);
	if (!right && !last)
		for (; w < cols; w++)
			putc(' ', out);
	free(c);
}

static void
put_row(FILE *out, const char *const cells[N_COLS],
	const size_t cols[N_COLS], const char *gap)
{
	/* Numbers right-aligned, words left-aligned. */
	static const bool right[N_COLS] = {
		false, false, true, true, true, false, true,
	};
	int k;

	for (k = 0; k < N_COLS; k++) {
		if (k)
			fputs(gap, out);
		put_cell(out, cells[k], cols[k], right[k], k == N_COLS - 1);
	}
	putc('\n', out);
}

int
qa_report_text_tensors(FILE *out, struct qa_inventory *const *invs,
		       size_t n, const struct qa_report_options *opt)
{
	static const char *const heads[N_COLS] = {
		"name", "dtype", "shape", "size", "offset", "role", "layer",
	};
	size_t i;

	for (i = 0; i < n; i++) {
		const struct qa_inventory *inv = invs[i];
		const bool *mask = opt->tensor_mask ? opt->tensor_mask[i] :
			NULL;
		size_t cols[N_COLS], total = 0;
		uint32_t k, shown = 0;
		const char *gap = "  ";
		int c;

		if (i)
			putc('\n', out);
		if (n > 1)
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
				if (width_of(cells[c]) > cols[c])
					cols[c] = width_of(cells[c]);
			shown++;
		}
		for (c = 0; c < N_COLS; c++)
			total += cols[c];
		/* Two-space gaps read better; fall back to one space when
		 * that keeps the table within 80 columns. */
		if (total + 2 * (N_COLS - 1) > WIDTH)
			gap = " ";
		if (shown)
			put_row(out, heads, cols, gap);
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
			put_row(out, cells, cols, gap);
		}
		if (shown == inv->n_tensors)
			fprintf(out, "%" PRIu32 " tensor%s\n", shown,
				shown == 1 ? "" : "s");
		else
			fprintf(out, "%" PRIu32 " of %" PRIu32 " tensors\n",
				shown, inv->n_tensors);
	}
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}
