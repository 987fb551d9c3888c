/* SPDX-License-Identifier: MIT */
/*
 * The fit result (src/fit.h) as JSON, text and Markdown.
 *
 * JSON follows the "fit" object of DESIGN.md field for field and adds
 * what a user needs to trust the numbers: usable_bytes and the layers
 * placed per device, host_bytes (weights llama.cpp keeps in host RAM),
 * the formula line and the notes. max_context values of -1 ("not even
 * the minimum fits") are written as 0 so the field stays a count.
 *
 * The text block draws one stacked bar per GPU over its usable memory
 * (or over what is asked of it when that is more): weights █, KV ▓,
 * recurrent state ▒, compute ░, overhead ·, free space blank. Every line
 * stays within 80 columns; the bar is exactly 80. Numbers are MiB (2^20)
 * with two decimals, as llama.cpp prints its buffers, so a user can
 * compare them with the engine's log line for line.
 */
#include "report/report_fit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"

#define WIDTH 80
#define BAR_CELLS (WIDTH - 2)	/* between the two '|' */
#define MIB ((double)(1u << 20))

#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_GREEN "\033[32m"
#define C_BOLD "\033[1m"
#define C_RESET "\033[0m"

/* Bar glyphs in segment order; free space is a blank. */
static const char *const glyph[] = {
	"\xe2\x96\x88",	/* █ weights */
	"\xe2\x96\x93",	/* ▓ KV */
	"\xe2\x96\x92",	/* ▒ recurrent */
	"\xe2\x96\x91",	/* ░ compute */
	"\xc2\xb7",	/* · overhead */
};

static const char *
str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* ---- JSON ------------------------------------------------------------- */

static void
jw_ctx(struct qa_jw *w, const char *key, int64_t v)
{
	qa_jw_i64(w, key, v < 0 ? 0 : v);
}

void
qa_report_fit_json(struct qa_jw *w, const struct qa_inventory *inv)
{
	const struct qa_fit_result *f = inv ? inv->fit : NULL;
	size_t i;
	unsigned k;

	if (!f)
		return;
	qa_jw_obj(w, "fit");
	qa_jw_str(w, "engine", qa_fit_engine_name(f->engine));
	jw_ctx(w, "context", f->context);
	qa_jw_str(w, "kv_type_k", str_or(f->kv_type_k, "f16"));
	qa_jw_str(w, "kv_type_v", str_or(f->kv_type_v, "f16"));
	qa_jw_arr(w, "devices", false);
	for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++) {
		const struct qa_fit_device *d = &f->devices[i];

		qa_jw_obj(w, NULL);
		qa_jw_str(w, "name", d->name);
		qa_jw_u64(w, "vram_bytes", d->vram_bytes);
		qa_jw_u64(w, "usable_bytes", d->usable_bytes);
		qa_jw_u64(w, "weights_bytes", d->weights_bytes);
		qa_jw_u64(w, "kv_bytes", d->kv_bytes);
		qa_jw_u64(w, "recurrent_bytes", d->recurrent_bytes);
		qa_jw_u64(w, "compute_bytes", d->compute_bytes);
		if (d->compute_tight_bytes)
			qa_jw_u64(w, "compute_tight_bytes",
				  d->compute_tight_bytes);
		qa_jw_u64(w, "overhead_bytes", d->overhead_bytes);
		if (d->runtime_bytes)
			qa_jw_u64(w, "cuda_runtime_bytes", d->runtime_bytes);
		qa_jw_i64(w, "free_bytes", d->free_bytes);
		if (d->first_layer >= 0 && d->last_layer >= d->first_layer) {
			qa_jw_arr(w, "layers", true);
			qa_jw_i64(w, NULL, d->first_layer);
			qa_jw_i64(w, NULL, d->last_layer);
			qa_jw_close(w, ']');
		} else {
			qa_jw_null(w, "layers");
		}
		qa_jw_bool(w, "has_output", d->has_output);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
	qa_jw_obj(w, "totals");
	qa_jw_u64(w, "weights_bytes", f->totals_weights);
	qa_jw_u64(w, "kv_bytes", f->totals_kv);
	qa_jw_u64(w, "recurrent_bytes", f->totals_recurrent);
	qa_jw_u64(w, "compute_bytes", f->totals_compute);
	qa_jw_close(w, '}');
	qa_jw_u64(w, "host_bytes", f->host_bytes);
	qa_jw_obj(w, "max_context");
	jw_ctx(w, "f16", f->max_context_f16);
	jw_ctx(w, "q8_0", f->max_context_q8_0);
	jw_ctx(w, "q4_0", f->max_context_q4_0);
	qa_jw_close(w, '}');
	/* no ceiling for a configuration that does not fit */
	if (f->decode_tokens_per_s_max > 0 &&
	    strcmp(str_or(f->verdict, "does-not-fit"), "does-not-fit") != 0)
		qa_jw_double(w, "decode_tokens_per_s_max",
			     f->decode_tokens_per_s_max, QA_JW_F32);
	else
		qa_jw_null(w, "decode_tokens_per_s_max");
	if (f->mtp_draft_tokens > 0) {
		qa_jw_obj(w, "speculative");
		qa_jw_i64(w, "draft_tokens", f->mtp_draft_tokens);
		qa_jw_double(w, "tokens_per_pass", f->mtp_tokens_per_pass,
			     QA_JW_F32);
		if (f->decode_tokens_per_s_mtp > 0 &&
		    strcmp(str_or(f->verdict, "does-not-fit"),
			   "does-not-fit") != 0)
			qa_jw_double(w, "decode_tokens_per_s_max",
				     f->decode_tokens_per_s_mtp, QA_JW_F32);
		else
			qa_jw_null(w, "decode_tokens_per_s_max");
		if (f->mtp_acceptance_source)
			qa_jw_str(w, "acceptance_source",
				  f->mtp_acceptance_source);
		qa_jw_close(w, '}');
	}
	if (f->lora.present) {
		qa_jw_obj(w, "lora");
		qa_jw_str(w, "path", str_or(f->lora.path, ""));
		qa_jw_u64(w, "pairs", f->lora.pairs);
		qa_jw_arr(w, "device_bytes", true);
		for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++)
			qa_jw_u64(w, NULL, f->lora.device_bytes[i]);
		qa_jw_close(w, ']');
		qa_jw_u64(w, "host_bytes", f->lora.host_bytes);
		qa_jw_arr(w, "adapters", false);
		for (k = 0; k < f->lora.n_adapters && k < QA_FIT_MAX_LORA; k++) {
			const struct qa_fit_lora_one *a = &f->lora.adapters[k];

			qa_jw_obj(w, NULL);
			qa_jw_str(w, "path", str_or(a->path, ""));
			qa_jw_u64(w, "pairs", a->pairs);
			qa_jw_arr(w, "device_bytes", true);
			for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++)
				qa_jw_u64(w, NULL, a->device_bytes[i]);
			qa_jw_close(w, ']');
			qa_jw_u64(w, "host_bytes", a->host_bytes);
			qa_jw_close(w, '}');
		}
		qa_jw_close(w, ']');
		qa_jw_close(w, '}');
	}
	if (f->draft.present) {
		const struct qa_fit_pair *p = &f->draft;

		qa_jw_obj(w, "draft");
		qa_jw_str(w, "method", str_or(p->method, "draft_model"));
		qa_jw_str(w, "path", str_or(p->path, ""));
		jw_ctx(w, "context", p->context);
		qa_jw_str(w, "kv_type", str_or(p->kv_type, "f16"));
		qa_jw_i64(w, "draft_tokens", p->n_draft);
		qa_jw_i64(w, "n_outputs_max", p->n_outputs_max);
		qa_jw_i64(w, "target_n_outputs_max", p->target_n_outputs_max);
		qa_jw_u64(w, "target_output_host_bytes",
			  p->target_output_host_bytes);
		qa_jw_arr(w, "devices", false);
		for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++) {
			qa_jw_obj(w, NULL);
			qa_jw_str(w, "name", f->devices[i].name);
			qa_jw_u64(w, "weights_bytes",
				  p->devices[i].weights_bytes);
			qa_jw_u64(w, "kv_bytes", p->devices[i].kv_bytes);
			qa_jw_u64(w, "recurrent_bytes",
				  p->devices[i].recurrent_bytes);
			qa_jw_u64(w, "compute_bytes",
				  p->devices[i].compute_bytes);
			qa_jw_close(w, '}');
		}
		qa_jw_close(w, ']');
		qa_jw_u64(w, "host_bytes", p->host_bytes);
		qa_jw_bool(w, "compatible", p->compatible);
		if (p->incompatible)
			qa_jw_str(w, "incompatible", p->incompatible);
		qa_jw_double(w, "tokens_per_pass", p->tokens_per_pass,
			     QA_JW_F32);
		if (p->decode_tokens_per_s_max > 0 &&
		    strcmp(str_or(f->verdict, "does-not-fit"),
			   "does-not-fit") != 0)
			qa_jw_double(w, "decode_tokens_per_s_max",
				     p->decode_tokens_per_s_max, QA_JW_F32);
		else
			qa_jw_null(w, "decode_tokens_per_s_max");
		qa_jw_str(w, "acceptance_source",
			  str_or(p->acceptance_source, ""));
		qa_jw_close(w, '}');
	}
	if (f->placement.chosen) {
		const struct qa_fit_placement *pl = &f->placement;

		qa_jw_obj(w, "placement");
		qa_jw_arr(w, "tensor_split", true);
		for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++)
			qa_jw_i64(w, NULL, (int64_t)pl->tensor_split[i]);
		qa_jw_close(w, ']');
		qa_jw_i64(w, "n_gpu_layers", pl->n_gpu_layers);
		qa_jw_i64(w, "n_cpu_moe", pl->n_cpu_moe);
		qa_jw_bool(w, "partial_offload", pl->partial);
		qa_jw_u64(w, "host_cache_bytes", pl->host_cache_bytes);
		if (pl->partial)
			qa_jw_u64(w, "gpu_shortfall_bytes",
				  pl->gpu_shortfall_bytes);
		qa_jw_close(w, '}');
	}
	qa_jw_str(w, "verdict", str_or(f->verdict, "does-not-fit"));
	if (f->n_advice) {
		qa_jw_arr(w, "advice", true);
		for (i = 0; i < f->n_advice; i++) {
			const struct qa_fit_advice *a = &f->advice[i];

			qa_jw_obj(w, NULL);
			qa_jw_str(w, "flags", a->flags);
			qa_jw_str(w, "change", a->what);
			qa_jw_str(w, "verdict", a->verdict);
			qa_jw_i64(w, "context", a->context);
			qa_jw_str(w, "kv_type_k", str_or(a->kv_type_k, "f16"));
			qa_jw_str(w, "kv_type_v", str_or(a->kv_type_v, "f16"));
			qa_jw_u64(w, "kv_bytes", a->kv_bytes);
			qa_jw_i64(w, "min_free_bytes", a->min_free_bytes);
			qa_jw_close(w, '}');
		}
		qa_jw_close(w, ']');
	}
	qa_jw_str(w, "formula", str_or(f->formula, ""));
	qa_jw_arr(w, "notes", false);
	for (i = 0; i < f->n_notes && i < sizeof(f->notes) / sizeof(f->notes[0]);
	     i++)
		if (f->notes[i])
			qa_jw_str(w, NULL, f->notes[i]);
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
}

/* ---- text ------------------------------------------------------------- */

/* Display columns of our own text: one per code point. */
static size_t
cols_of(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/*
 * Writes text wrapped at WIDTH: the first line after `lead` (already
 * printed, lead_cols wide), continuation lines indented by `hang`.
 * Breaks at spaces; a word longer than a line is cut. The text may hold
 * names from the model (a path, general.name, a missing part's name):
 * it is escaped for a terminal first (core/escape.h).
 */
static void
put_wrapped(FILE *out, const char *raw, size_t lead_cols, size_t hang)
{
	size_t col = lead_cols;
	bool line_empty = true;	/* no word yet on this line */
	char *text = qa_esc_text_dup(raw);
	const char *p = text;

	if (!text)
		return;

	for (;;) {
		const char *e;
		size_t wcols = 0, i, c, keep;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		for (e = p; *e && *e != ' '; e++)
			if (((unsigned char)*e & 0xc0) != 0x80)
				wcols++;
		if (!line_empty && col + 1 + wcols > WIDTH) {
			fprintf(out, "\n%*s", (int)hang, "");
			col = hang;
			line_empty = true;
		}
		if (!line_empty) {
			putc(' ', out);
			col++;
		}
		/* a word longer than the line is cut */
		keep = WIDTH > col ? WIDTH - col : 0;
		for (i = 0, c = 0; p + i < e; i++) {
			if (((unsigned char)p[i] & 0xc0) != 0x80) {
				if (c == keep)
					break;
				c++;
			}
		}
		fwrite(p, 1, i, out);
		col += c;
		line_empty = false;
		p = e;
	}
	putc('\n', out);
	free(text);
}

void
qa_report_fit_wrap(FILE *out, const char *text, size_t hang)
{
	put_wrapped(out, text, 0, hang);
}

static const char *
verdict_color(const char *v)
{
	if (strcmp(v, "fits") == 0)
		return C_GREEN;
	if (strcmp(v, "tight") == 0)
		return C_YELLOW;
	return C_RED;
}

/* One device: the bar, exactly WIDTH columns. */
static void
put_bar(FILE *out, const struct qa_fit_device *d)
{
	uint64_t seg[5];
	uint64_t used = 0, scale, cum = 0;
	size_t cell = 0, k, target;

	seg[0] = d->weights_bytes;
	seg[1] = d->kv_bytes;
	seg[2] = d->recurrent_bytes;
	seg[3] = d->compute_bytes;
	seg[4] = d->overhead_bytes;
	for (k = 0; k < 5; k++)
		used += seg[k] > UINT64_MAX - used ? 0 : seg[k];
	scale = used > d->usable_bytes ? used : d->usable_bytes;
	putc('|', out);
	for (k = 0; k < 5 && scale > 0; k++) {
		cum += seg[k];
		/* cumulative rounding: the cells always sum to the bar */
		target = (size_t)((double)cum / (double)scale * BAR_CELLS + 0.5);
		if (target > BAR_CELLS)
			target = BAR_CELLS;
		for (; cell < target; cell++)
			fputs(glyph[k], out);
	}
	for (; cell < BAR_CELLS; cell++)
		putc(' ', out);
	fputs("|\n", out);
}

static void
put_device(FILE *out, const struct qa_fit_result *f, size_t i)
{
	const struct qa_fit_device *d = &f->devices[i];
	char head[160];
	int n;

	if (d->vram_bytes == 0) {
		/* host only (--gpus none): no device memory to draw */
		fprintf(out, "%s (host only, memory not checked):\n", d->name);
		fprintf(out, "  weights %.2f \xc2\xb7 KV %.2f \xc2\xb7 recurrent "
			"%.2f \xc2\xb7 compute %.2f MiB\n",
			(double)d->weights_bytes / MIB,
			(double)d->kv_bytes / MIB,
			(double)d->recurrent_bytes / MIB,
			(double)d->compute_bytes / MIB);
		return;
	}
	n = snprintf(head, sizeof(head), "GPU%zu %s: %.2f MiB total, "
		     "%.2f usable", i, d->name,
		     (double)d->vram_bytes / MIB,
		     (double)d->usable_bytes / MIB);
	if (n > 0 && (size_t)n < sizeof(head) && d->first_layer >= 0 &&
	    d->last_layer >= d->first_layer)
		snprintf(head + n, sizeof(head) - (size_t)n,
			 ", layers %" PRId32 "-%" PRId32 "%s", d->first_layer,
			 d->last_layer, d->has_output ? " + output" : "");
	else if (n > 0 && (size_t)n < sizeof(head) && d->has_output)
		snprintf(head + n, sizeof(head) - (size_t)n, ", output");
	put_wrapped(out, head, 0, 2);
	put_bar(out, d);
	fprintf(out, "  %s weights %.2f  %s KV %.2f  %s recurrent %.2f MiB\n",
		glyph[0], (double)d->weights_bytes / MIB, glyph[1],
		(double)d->kv_bytes / MIB, glyph[2],
		(double)d->recurrent_bytes / MIB);
	fprintf(out, "  %s compute %.2f  %s overhead %.2f  ", glyph[3],
		(double)d->compute_bytes / MIB, glyph[4],
		(double)d->overhead_bytes / MIB);
	if (d->free_bytes >= 0)
		fprintf(out, "free %.2f MiB\n", (double)d->free_bytes / MIB);
	else
		fprintf(out, "over by %.2f MiB\n",
			-(double)d->free_bytes / MIB);
}

static void
put_ctx(FILE *out, const char *name, int64_t v, bool last)
{
	if (v < 0)
		fprintf(out, "%s none", name);
	else
		fprintf(out, "%s %" PRId64, name, v);
	fputs(last ? "\n" : " \xc2\xb7 ", out);
}

/* What to change so it fits: each change alone, with what it gives. */
static void
put_advice(FILE *out, const struct qa_fit_result *f)
{
	char line[512];
	size_t i;

	if (!f->n_advice)
		return;
	fprintf(out, "to make it %s (each alone, %s's flags):\n",
		strcmp(str_or(f->verdict, ""), "tight") == 0 ? "fit with room" :
		"fit", qa_fit_engine_name(f->engine));
	for (i = 0; i < f->n_advice; i++) {
		const struct qa_fit_advice *a = &f->advice[i];

		snprintf(line, sizeof(line), "%s: %s, context %" PRId64
			 ", KV %s/%s %.2f MiB, %.2f MiB free on the fullest "
			 "device (%s)", a->flags, a->verdict, a->context,
			 str_or(a->kv_type_k, "f16"),
			 str_or(a->kv_type_v, "f16"),
			 (double)a->kv_bytes / MIB,
			 (double)a->min_free_bytes / MIB, a->what);
		fputs("  ", out);
		put_wrapped(out, line, 2, 4);
	}
}

/* The -ts the numbers are for, or the partial offload, when the fit
 * chose them as llama.cpp's --fit would. */
static void
put_placement(FILE *out, const struct qa_fit_result *f)
{
	const struct qa_fit_placement *pl = &f->placement;
	char line[512];
	size_t i, n;
	int k;

	if (!pl->chosen)
		return;
	k = snprintf(line, sizeof(line), "placement (as llama.cpp --fit "
		     "chooses): -c %" PRId64, f->context);
	n = k > 0 ? (size_t)k : 0;
	/* -ts counts the output layer with the device that holds it, as
	 * common/fit.cpp writes it: llama.cpp splits the L+1 units by
	 * these proportions (llama-model.cpp load_tensors), so the block
	 * counts alone would move a block to the first device. One device
	 * takes no -ts. */
	for (i = 0; f->n_devices > 1 && i < f->n_devices && i < QA_GPU_MAX &&
	     n < sizeof(line); i++) {
		k = snprintf(line + n, sizeof(line) - n, "%s%.0f",
			     i ? "," : " -ts ", pl->tensor_split[i] +
			     (f->devices[i].has_output ? 1.0 : 0.0));
		n += k > 0 ? (size_t)k : 0;
	}
	if (pl->n_cpu_moe > 0 && n < sizeof(line)) {
		k = snprintf(line + n, sizeof(line) - n, " --n-cpu-moe %" PRId64,
			     pl->n_cpu_moe);
		n += k > 0 ? (size_t)k : 0;
	}
	if (pl->n_gpu_layers >= 0 && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " -ngl %" PRId64,
			 pl->n_gpu_layers);
	/* eight devices and an offload do not fit one line */
	put_wrapped(out, line, 0, 2);
}

/* The draft model's share of each device (already in the bars). */
static void
put_draft(FILE *out, const struct qa_fit_result *f)
{
	const struct qa_fit_pair *p = &f->draft;
	bool eagle = p->method && strcmp(p->method, "eagle3") == 0;
	char line[400];
	size_t i;

	if (eagle)
		snprintf(line, sizeof(line), "draft (vLLM EAGLE-3 head, in the "
			 "figures above): context %" PRId64 ", KV %s, %d "
			 "speculative tokens; %s", p->context,
			 str_or(p->kv_type, "auto"), p->n_draft,
			 p->compatible ? "compatible" :
			 "INCOMPATIBLE with the target");
	else
		snprintf(line, sizeof(line), "draft (llama.cpp -md, in the "
			 "figures above): context %" PRId64 ", KV %s, %" PRId64
			 " outputs; %s", p->context, str_or(p->kv_type, "f16"),
			 p->n_outputs_max, p->compatible ?
			 "vocabulary compatible" :
			 "INCOMPATIBLE with the target");
	put_wrapped(out, line, 0, 2);
	for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++) {
		const struct qa_fit_pair_dev *d = &p->devices[i];

		snprintf(line, sizeof(line), "%s: weights %.2f \xc2\xb7 KV "
			 "%.2f \xc2\xb7 recurrent %.2f \xc2\xb7 compute %.2f "
			 "MiB", f->devices[i].name,
			 (double)d->weights_bytes / MIB,
			 (double)d->kv_bytes / MIB,
			 (double)d->recurrent_bytes / MIB,
			 (double)d->compute_bytes / MIB);
		fputs("  ", out);
		put_wrapped(out, line, 2, 4);
	}
	if (p->incompatible) {
		snprintf(line, sizeof(line), "%s refuses the pair: %s",
			 eagle ? "vLLM" : "llama.cpp", p->incompatible);
		fputs("  ", out);
		put_wrapped(out, line, 2, 4);
	}
}

/* The decode ceiling: for the context of the numbers, only for a
 * configuration that fits, and not a bound on speculative decoding. */
static void
put_decode(FILE *out, const struct qa_inventory *inv,
	   const struct qa_fit_result *f)
{
	const char *v = str_or(f->verdict, "does-not-fit");
	char line[200];

	if (strcmp(v, "does-not-fit") == 0) {
		fputs("decode ceiling: none (it does not fit)\n", out);
		return;
	}
	if (f->decode_tokens_per_s_max <= 0) {
		fputs("decode ceiling: unknown (no bandwidth for these "
		      "devices)\n", out);
		return;
	}
	snprintf(line, sizeof(line), "decode ceiling: %.1f tokens/s at "
		 "context %" PRId64 " without speculative decoding (memory "
		 "bandwidth bound)", f->decode_tokens_per_s_max, f->context);
	put_wrapped(out, line, 0, 2);
	if (f->mtp_draft_tokens > 0 && f->decode_tokens_per_s_mtp > 0) {
		snprintf(line, sizeof(line), "with MTP drafts (%d per step, "
			 "%.2f tokens per verification pass expected): %.1f "
			 "tokens/s", f->mtp_draft_tokens,
			 f->mtp_tokens_per_pass, f->decode_tokens_per_s_mtp);
		fputs("  ", out);
		put_wrapped(out, line, 2, 2);
	} else if (f->draft.present && f->draft.decode_tokens_per_s_max > 0) {
		snprintf(line, sizeof(line), "with the draft model (%d per "
			 "step, %.2f tokens per verification pass expected): "
			 "%.1f tokens/s", f->draft.n_draft,
			 f->draft.tokens_per_pass,
			 f->draft.decode_tokens_per_s_max);
		fputs("  ", out);
		put_wrapped(out, line, 2, 2);
	} else if (inv->mtp.tensors > 0 && !inv->mtp.not_loaded) {
		fputs("  ", out);
		put_wrapped(out, "with its MTP head as a draft, speculative "
			    "decoding accepts several tokens per weight pass "
			    "and can exceed this ceiling (--mtp on sizes the "
			    "draft and gives that ceiling)", 2, 2);
	}
}

void
qa_report_fit_text(FILE *out, const struct qa_inventory *inv, bool color)
{
	const struct qa_fit_result *f = inv ? inv->fit : NULL;
	const char *verdict;
	char line[640];
	size_t i;

	if (!f && inv && inv->fit_error) {
		/* asked, but the model cannot be sized: why, first */
		snprintf(line, sizeof(line), "VRAM fit (%s): not computed: %s",
			 qa_fit_engine_name((enum qa_engine)inv->fit_engine),
			 inv->fit_error);
		fputc('\n', out);
		put_wrapped(out, line, 0, 2);
		return;
	}
	if (!f)
		return;
	verdict = str_or(f->verdict, "does-not-fit");
	fputc('\n', out);
	snprintf(line, sizeof(line), "VRAM fit (%s, context %" PRId64
		 ", KV %s/%s, %zu device%s):", qa_fit_engine_name(f->engine),
		 f->context, str_or(f->kv_type_k, "f16"),
		 str_or(f->kv_type_v, "f16"), f->n_devices,
		 f->n_devices == 1 ? "" : "s");
	fputs(line, out);
	if (cols_of(line) + 1 + strlen(verdict) > WIDTH)
		fputs("\n ", out);
	putc(' ', out);
	if (color)
		fputs(verdict_color(verdict), out);
	fputs(verdict, out);
	if (color)
		fputs(C_RESET, out);
	putc('\n', out);
	for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++)
		put_device(out, f, i);
	put_placement(out, f);
	put_advice(out, f);
	if (f->draft.present)
		put_draft(out, f);
	if (f->host_bytes > 0)
		fprintf(out, "host RAM: %.2f MiB of weights (not VRAM)\n",
			(double)f->host_bytes / MIB);
	fprintf(out, "totals: weights %.2f \xc2\xb7 KV %.2f \xc2\xb7 recurrent "
		"%.2f \xc2\xb7 compute %.2f MiB\n",
		(double)f->totals_weights / MIB, (double)f->totals_kv / MIB,
		(double)f->totals_recurrent / MIB,
		(double)f->totals_compute / MIB);
	fputs("max context: ", out);
	put_ctx(out, "f16", f->max_context_f16, false);
	put_ctx(out, "q8_0", f->max_context_q8_0, false);
	put_ctx(out, "q4_0", f->max_context_q4_0, true);
	put_decode(out, inv, f);
	if (f->formula && *f->formula) {
		fputs("formula: ", out);
		put_wrapped(out, f->formula, 9, 2);
	}
	for (i = 0; i < f->n_notes && i < sizeof(f->notes) / sizeof(f->notes[0]);
	     i++) {
		if (!f->notes[i])
			continue;
		fputs("note: ", out);
		put_wrapped(out, f->notes[i], 6, 2);
	}
}

/* ---- Markdown --------------------------------------------------------- */

void
qa_report_fit_markdown(FILE *out, const struct qa_inventory *inv)
{
	const struct qa_fit_result *f = inv ? inv->fit : NULL;
	size_t i;

	if (!f)
		return;
	fprintf(out, "#### VRAM fit: %s\n\n", str_or(f->verdict,
						     "does-not-fit"));
	fprintf(out, "%s, context %" PRId64 ", KV %s/%s. MiB per device.\n\n",
		qa_fit_engine_name(f->engine), f->context,
		str_or(f->kv_type_k, "f16"), str_or(f->kv_type_v, "f16"));
	fputs("| device | layers | usable | weights | KV | recurrent | "
	      "compute | overhead | free |\n"
	      "|---|---|---:|---:|---:|---:|---:|---:|---:|\n", out);
	for (i = 0; i < f->n_devices && i < QA_GPU_MAX; i++) {
		const struct qa_fit_device *d = &f->devices[i];

		fprintf(out, "| GPU%zu `%s` | ", i, d->name);
		if (d->first_layer >= 0 && d->last_layer >= d->first_layer)
			fprintf(out, "%" PRId32 "-%" PRId32 "%s", d->first_layer,
				d->last_layer, d->has_output ? " + output" : "");
		else
			fputs(d->has_output ? "output" : "-", out);
		fprintf(out, " | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
			"%.2f |\n", (double)d->usable_bytes / MIB,
			(double)d->weights_bytes / MIB,
			(double)d->kv_bytes / MIB,
			(double)d->recurrent_bytes / MIB,
			(double)d->compute_bytes / MIB,
			(double)d->overhead_bytes / MIB,
			(double)d->free_bytes / MIB);
	}
	fputs("\nLargest context: ", out);
	fprintf(out, "f16 %" PRId64 ", q8_0 %" PRId64 ", q4_0 %" PRId64 ".",
		f->max_context_f16 < 0 ? 0 : f->max_context_f16,
		f->max_context_q8_0 < 0 ? 0 : f->max_context_q8_0,
		f->max_context_q4_0 < 0 ? 0 : f->max_context_q4_0);
	if (f->decode_tokens_per_s_max > 0)
		fprintf(out, " Decode ceiling %.1f tokens/s.",
			f->decode_tokens_per_s_max);
	fputs("\n", out);
	if (f->formula && *f->formula) {
		fputs("\nFormula: ", out);
		qa_esc_markdown(out, f->formula);
		putc('\n', out);
	}
	for (i = 0; i < f->n_notes && i < sizeof(f->notes) / sizeof(f->notes[0]);
	     i++)
		if (f->notes[i]) {
			fputs("\n- ", out);
			qa_esc_markdown(out, f->notes[i]);
		}
	fputs(f->n_notes ? "\n\n" : "\n", out);
}
