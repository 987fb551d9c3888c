/* SPDX-License-Identifier: MIT */
/*
 * The calibration report of `fit --calibrate LOG`: the llama.cpp
 * estimate next to what the engine's own verbose log reported, buffer by
 * buffer (KV cache, recurrent state, compute and model buffers per
 * device, the memory breakdown rows).
 */
#include "report/report.h"

#include "core/escape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((double)(1u << 20))

static void
cal_row(FILE *out, const char *what, double est_mib, double act_mib)
{
	if (act_mib < 0) {
		fprintf(out, "  %-22s %12.2f %12s\n", what, est_mib, "-");
		return;
	}
	fprintf(out, "  %-22s %12.2f %12.2f", what, est_mib, act_mib);
	if (act_mib > 0)
		fprintf(out, " %+8.2f%%", (est_mib - act_mib) / act_mib * 100);
	putc('\n', out);
}

/* Device index of a log buffer name: "CUDA1" -> 1, "CPU" -> 0 when the
 * estimate has a single (CPU) device; -1 for host buffers. */
static long
log_dev(const char *name, size_t n_devices)
{
	char *end;
	long v;

	if (strncmp(name, "CUDA", 4) == 0 && name[4] >= '0' && name[4] <= '9') {
		v = strtol(name + 4, &end, 10);
		return *end == '\0' && (size_t)v < n_devices ? v : -1;
	}
	if ((strcmp(name, "CPU") == 0 || strcmp(name, "CPU_Mapped") == 0) &&
	    n_devices == 1)
		return 0;
	return -1;
}

/*
 * A GPU device against its CUDA memory-breakdown row ("CUDA0 (H100 ...)",
 * total = free + self + unaccounted): the runtime (the reservation plus
 * fit_cuda.h's runtime bytes) against "unaccounted", the device's
 * expected use against total - free after the decode, and the same with
 * the margin in place of the runtime (what fit plans for; never below
 * the engine's use when the margin is the default).
 */
static void
cuda_rows(FILE *out, const struct qa_fit_device *d, size_t j,
	  const struct qa_llamacpp_log *lg)
{
	char want[16], what[64];
	const struct qa_llamacpp_log_row *row = NULL;
	double reserve, bufs, used;
	size_t i, n;

	if (!d->runtime_bytes || d->vram_bytes < d->usable_bytes)
		return;
	n = (size_t)snprintf(want, sizeof(want), "CUDA%zu ", j);
	for (i = 0; i < lg->n_breakdown && i < QA_LLAMACPP_LOG_ROWS; i++)
		if (strncmp(lg->breakdown[i].dev, want, n) == 0)
			row = &lg->breakdown[i];
	if (!row || row->total < 0 || row->free < 0 || row->unaccounted < 0)
		return;
	reserve = (double)(d->vram_bytes - d->usable_bytes) / MIB;
	bufs = ((double)d->weights_bytes + (double)d->kv_bytes +
		(double)d->recurrent_bytes + (double)d->compute_bytes) / MIB;
	used = row->total - row->free;
	snprintf(what, sizeof(what), "CUDA runtime %s", d->name);
	cal_row(out, what, reserve + (double)d->runtime_bytes / MIB,
		row->unaccounted);
	snprintf(what, sizeof(what), "device used %s", d->name);
	cal_row(out, what, reserve + bufs + (double)d->runtime_bytes / MIB,
		used);
	snprintf(what, sizeof(what), "  with the margin");
	cal_row(out, what, reserve + bufs + (double)d->overhead_bytes / MIB,
		used);
}

int
qa_report_calibration(FILE *out, const struct qa_inventory *inv,
		      const char *log_path, const struct qa_llamacpp_log *lg,
		      const struct qa_fit_options *opt,
		      const struct qa_fit_result *res,
		      const struct qa_fit_llamacpp_detail *det)
{
	const struct qa_fit_result *r = res;
	double kv_act = 0, est_host = 0;
	size_t i, j;

	/* the path can be a model's own file name, the log a llama.cpp
	 * run's output on it: both escaped (core/escape.h) */
	fputs("calibration: ", out);
	qa_esc_text(out, inv->path);
	fputs(" against ", out);
	qa_esc_text(out, log_path);
	putc('\n', out);
	fprintf(out, "settings: context %" PRId64 ", KV %s/%s, flash "
		"attention %s, -np %d, -ub %d\n", r->context,
		r->kv_type_k ? r->kv_type_k : "f16",
		r->kv_type_v ? r->kv_type_v : "f16",
		det->flash_attn ? "on" : "off",
		opt->parallel > 0 ? opt->parallel : 1,
		opt->ubatch > 0 ? opt->ubatch : 512);
	if (lg->failure[0] || det->refusal[0] || lg->rc > 0) {
		if (lg->failure[0]) {
			fputs("engine refusal: log: ", out);
			qa_esc_text(out, lg->failure);
			putc('\n', out);
		}
		else if (lg->rc > 0)
			fprintf(out, "engine refusal: log: exit code %d\n",
				lg->rc);
		else
			fputs("engine refusal: log: (none)\n", out);
		fprintf(out, "                estimate: %s\n",
			det->refusal[0] ? det->refusal : "(none)");
	}
	fprintf(out, "  %-22s %12s %12s %9s\n", "MiB", "estimate", "engine",
		"diff");
	for (i = 0; i < lg->n_kv && i < QA_LLAMACPP_LOG_ROWS; i++)
		kv_act += lg->kv[i].mib;
	cal_row(out, "KV cache (all)", (double)r->totals_kv / MIB,
		lg->n_kv ? kv_act : -1);
	if (lg->n_kv >= 1)
		cal_row(out, lg->n_kv > 1 ? "  KV base" : "  KV",
			(double)(det->k_base + det->v_base) / MIB, lg->kv[0].mib);
	if (lg->n_kv >= 2)
		cal_row(out, "  KV sliding window",
			(double)(det->k_swa + det->v_swa) / MIB, lg->kv[1].mib);
	cal_row(out, "recurrent state", (double)r->totals_recurrent / MIB,
		lg->has_rs ? lg->rs_mib : -1);
	for (j = 0; j < r->n_devices; j++) {
		char what[64];
		double act = -1, mod = -1;

		for (i = 0; i < lg->n_compute && i < QA_LLAMACPP_LOG_ROWS; i++)
			if (log_dev(lg->compute[i].dev, r->n_devices) == (long)j)
				act = lg->compute[i].mib;
		for (i = 0; i < lg->n_model && i < QA_LLAMACPP_LOG_ROWS; i++)
			if (log_dev(lg->model_buf[i].dev, r->n_devices) ==
			    (long)j)
				mod = lg->model_buf[i].mib;
		snprintf(what, sizeof(what), "compute %s",
			 r->devices[j].name);
		/* The device compute includes the permanent inp_embd (the
		 * CPU backend holds it in the same buffer). */
		cal_row(out, what, (double)r->devices[j].compute_bytes / MIB,
			act);
		if (r->devices[j].compute_tight_bytes &&
		    r->devices[j].compute_tight_bytes !=
		    r->devices[j].compute_bytes) {
			snprintf(what, sizeof(what), "  tight (no placement "
				 "term)");
			cal_row(out, what,
				(double)r->devices[j].compute_tight_bytes /
				MIB, act);
		}
		snprintf(what, sizeof(what), "weights %s", r->devices[j].name);
		cal_row(out, what, ((double)r->devices[j].weights_bytes +
				    (strcmp(r->devices[j].name, "CPU") == 0 ?
				     (double)r->host_bytes : 0)) / MIB, mod);
	}
	for (i = 0; i < lg->n_compute && i < QA_LLAMACPP_LOG_ROWS; i++)
		if (strcmp(lg->compute[i].dev, "CUDA_Host") == 0) {
			est_host = (double)(det->compute_host_cuda ?
					    det->compute_host_cuda :
					    det->compute_host_input) / MIB;
			cal_row(out, "compute CUDA_Host", est_host,
				lg->compute[i].mib);
		}
	for (j = 0; j < r->n_devices; j++)
		cuda_rows(out, &r->devices[j], j, lg);
	if (lg->eval_tps > 0 && r->decode_tokens_per_s_max > 0)
		cal_row(out, "decode tok/s ceiling", r->decode_tokens_per_s_max,
			lg->eval_tps);
	for (i = 0; i < lg->n_breakdown && i < QA_LLAMACPP_LOG_ROWS; i++)
		fprintf(out, "log breakdown %s: model %.2f, context %.2f, "
			"compute %.2f, unaccounted %.2f MiB\n",
			lg->breakdown[i].dev, lg->breakdown[i].model,
			lg->breakdown[i].context, lg->breakdown[i].compute,
			lg->breakdown[i].unaccounted);
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}
