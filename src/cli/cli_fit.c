/* SPDX-License-Identifier: MIT */
/*
 * `quantaudit fit PATH --gpus SPEC [options]` and the fit step of
 * `check --gpus`.
 *
 * The options map one to one onto struct qa_fit_options (src/fit.h) and
 * onto the engine flags they imitate (llama.cpp -c, -ctk/-ctv, -np, -ub,
 * -fa, -ts; vLLM --max-model-len, --kv-cache-dtype, --max-num-seqs), so
 * a user can carry the numbers over to the engine's command line. The
 * result is copied into the inventory's arena (inv->fit) where the
 * reporters (src/report_fit.c) and the fit check (rules/check_fit.c) find
 * it. `fit` runs only the fit check: its exit code says whether the model
 * fits (1 on does-not-fit or an engine refusal), not whether the file is
 * otherwise clean; `check --gpus` adds the fit findings to every other.
 *
 * --calibrate LOG reads a llama.cpp verbose log (qa_fit_parse_llamacpp_log),
 * takes the context, KV types, flash attention, -np and -ub from its
 * command line unless given here, and prints the estimate next to what
 * the engine reported, buffer by buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli_fit.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fit/fit.h"
#include "fit/gpuspec.h"
#include "formats/input.h"
#include "report/report.h"
#include "report/report_fit.h"
#include "core/source.h"

#define MIB ((double)(1u << 20))
/* llama.cpp --fit keeps 1024 MiB free per device (common/common.h
 * fit_params_target; memory-models.md section 4). */
#define DEFAULT_MARGIN_MIB 1024

enum fit_format { FIT_TEXT, FIT_JSON, FIT_MARKDOWN };

struct fit_cli {
	struct qa_fit_options opt;
	bool engine_set;
	bool kv_set, kv_k_set, kv_v_set;
	bool ts_set, ubatch_set, fa_set;
	const char *gpus;
	const char *calibrate;
	const char *output;
	enum fit_format format;
	enum qa_severity fail_on;
	bool quiet, no_color, summary;
};

static const char fit_usage[] =
"Usage: quantaudit fit PATH --gpus SPEC [OPTIONS]\n"
"\n"
"Per-GPU memory of PATH under llama.cpp or vLLM: weights, KV cache,\n"
"recurrent state, compute, overhead; the verdict (fits, tight,\n"
"does-not-fit), the largest context per KV-cache type and a decode\n"
"speed ceiling. Formulas and sources: docs/fit.md.\n"
"\n"
"  --gpus SPEC            2x16G, 16G,24G, rtx-5060-ti:2, rtx-4090+rtx-3090,\n"
"                         unified:128G, none (host only)\n"
"  --engine ENGINE        llama.cpp (default for GGUF) or vllm (default\n"
"                         for safetensors and model folders)\n"
"  --ctx N|max            context (256-padded like llama.cpp; 32k = 32768);\n"
"                         default: the trained context; max: the largest\n"
"                         that fits\n"
"  --kv TYPE              KV-cache type for K and V: f16 (default), q8_0,\n"
"                         q4_0, bf16, f32, q4_1, q5_0, q5_1, iq4_nl;\n"
"                         vllm: auto, fp8, fp8_e4m3, fp8_e5m2\n"
"  --kv-k TYPE, --kv-v TYPE  llama.cpp: K and V types separately\n"
"  --parallel N           sequences (-np; vLLM --max-num-seqs)\n"
"  --ubatch N             llama.cpp micro-batch (-ub, default 512)\n"
"  --flash-attn on|off|auto  llama.cpp -fa (default auto)\n"
"  --tensor-split a,b,... llama.cpp -ts (default: by free memory)\n"
"  --margin MiB           memory kept free per device (default 1024)\n"
"  --mtp on|off           also load the MTP/nextn layers (default off)\n"
"  --calibrate LOG        compare with a llama.cpp -v log, buffer by buffer\n"
"  -f, --format FMT       text (default), json or markdown\n"
"  -o, --output FILE      write the report to FILE\n"
"      --fail-on SEV      error (default), warning, info or never\n"
"  -q, --quiet            no diagnostics on stderr\n"
"      --no-color         no ANSI colour\n"
"\n"
"Exit status: 0 fits, 1 does not fit (or a finding at or above --fail-on),\n"
"2 usage error, 3 input not recognized or not sizeable, 4 system error.\n";

static int fit_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int
fit_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("quantaudit fit: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'quantaudit fit --help'.\n", stderr);
	return QA_EXIT_USAGE;
}

/* A whole number in [lo, hi]; false on anything else. */
static bool
parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* --ctx: "max", N, or N with a k/K suffix (x1024, as "32k" is meant). */
static bool
parse_ctx(const char *s, int64_t *out)
{
	char buf[32];
	size_t n = strlen(s);
	int64_t v;

	if (strcmp(s, "max") == 0) {
		*out = -1;
		return true;
	}
	if (n > 1 && n < sizeof(buf) && (s[n - 1] == 'k' || s[n - 1] == 'K')) {
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		if (!parse_int(buf, 1, (int64_t)1 << 24, &v))
			return false;
		*out = v * 1024;
		return true;
	}
	return parse_int(s, 1, (int64_t)1 << 34, out);
}

/* Cache types llama.cpp accepts (common/arg.cpp kv_cache_types). */
static const char *const llama_kv_types[] = {
	"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0",
	"q5_1", NULL,
};
/* vLLM --kv-cache-dtype (vllm/config/cache.py CacheDType), plus the
 * 16-bit spellings a user may carry over from llama.cpp. */
static const char *const vllm_kv_types[] = {
	"auto", "fp8", "fp8_e4m3", "fp8_e5m2", "f16", "bf16", "float16",
	"bfloat16", NULL,
};

static bool
in_set(const char *const *set, const char *s)
{
	for (; *set; set++)
		if (strcmp(*set, s) == 0)
			return true;
	return false;
}

static bool
parse_onoff(const char *s, bool *out)
{
	if (strcmp(s, "on") == 0)
		*out = true;
	else if (strcmp(s, "off") == 0)
		*out = false;
	else
		return false;
	return true;
}

/* "3,1" or "0.6,0.4": non-negative numbers, at least one positive. */
static bool
parse_split(const char *s, double *ts, size_t *n_out)
{
	size_t n = 0;
	double sum = 0;
	const char *p = s;

	memset(ts, 0, sizeof(double) * QA_GPU_MAX);
	for (;;) {
		char *end;
		double v;

		if (*p == '\0' || *p == ',' || *p == '-' || *p == ' ' ||
		    n == QA_GPU_MAX)
			return false;
		errno = 0;
		v = strtod(p, &end);
		if (errno || end == p || !(v >= 0) || v > 1e9)
			return false;
		ts[n++] = v;
		sum += v;
		if (*end == '\0')
			break;
		if (*end != ',')
			return false;
		p = end + 1;
	}
	*n_out = n;
	return sum > 0;
}

/* Copies a model result into the inventory's arena (strings included:
 * a model may hand back static or scratch strings). */
static struct qa_fit_result *
store_result(struct qa_inventory *inv, const struct qa_fit_result *r)
{
	struct qa_fit_result *c = qa_arena_alloc(&inv->arena, sizeof(*c));
	size_t i;

	if (!c)
		return NULL;
	*c = *r;
	c->kv_type_k = r->kv_type_k ?
		       qa_arena_strdup(&inv->arena, r->kv_type_k) : NULL;
	c->kv_type_v = r->kv_type_v ?
		       qa_arena_strdup(&inv->arena, r->kv_type_v) : NULL;
	c->verdict = r->verdict ?
		     qa_arena_strdup(&inv->arena, r->verdict) : NULL;
	c->formula = r->formula ?
		     qa_arena_strdup(&inv->arena, r->formula) : NULL;
	if (c->n_notes > sizeof(c->notes) / sizeof(c->notes[0]))
		c->n_notes = sizeof(c->notes) / sizeof(c->notes[0]);
	for (i = 0; i < c->n_notes; i++)
		c->notes[i] = r->notes[i] ?
			      qa_arena_strdup(&inv->arena, r->notes[i]) : NULL;
	inv->fit = c;
	return c;
}

static enum qa_engine
default_engine(const struct qa_inventory *inv)
{
	return inv->kind == QA_KIND_GGUF ? QA_ENGINE_LLAMACPP : QA_ENGINE_VLLM;
}

/* Runs the engine model; on success inv->fit is set. */
static int
compute(struct qa_inventory *inv, const struct qa_fit_options *opt,
	char *err, size_t errlen)
{
	struct qa_fit_result r;
	int rc;

	memset(&r, 0, sizeof(r));
	if (opt->engine == QA_ENGINE_VLLM)
		rc = qa_fit_vllm(inv, opt, &r, err, errlen);
	else
		rc = qa_fit_llamacpp(inv, opt, &r, err, errlen);
	if (rc != 0)
		return -1;
	if (!store_result(inv, &r)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void
qa_cli_fit_for_check(struct qa_inventory *inv, struct qa_check_options *copt,
		     bool quiet)
{
	struct qa_fit_options *opt;
	char err[256];

	if (!inv || !copt || !copt->gpus)
		return;
	copt->fit = NULL;
	opt = qa_arena_alloc(&inv->arena, sizeof(*opt));
	if (!opt)
		return;
	memset(opt, 0, sizeof(*opt));
	if (qa_gpuspec_parse(copt->gpus, &opt->gpus, err, sizeof(err)) != 0)
		return;	/* the CLI refused the spec already */
	if (copt->engine)
		opt->engine = strcmp(copt->engine, "vllm") == 0 ?
			      QA_ENGINE_VLLM : QA_ENGINE_LLAMACPP;
	else
		opt->engine = default_engine(inv);
	/* No --ctx on check: the largest context that fits, as llama.cpp's
	 * --fit and vLLM's --max-model-len auto choose it. */
	opt->ctx = -1;
	opt->flash_attn = -1;
	opt->margin_bytes = (uint64_t)DEFAULT_MARGIN_MIB << 20;
	if (compute(inv, opt, err, sizeof(err)) != 0) {
		if (!quiet)
			fprintf(stderr, "quantaudit: %s: no VRAM fit: %s\n",
				inv->path, err);
		return;
	}
	copt->fit = opt;
}

/* ---- calibration ------------------------------------------------------ */

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

static int
calibrate(struct fit_cli *fc, struct qa_inventory *inv, FILE *out)
{
	struct qa_llamacpp_log lg;
	struct qa_fit_llamacpp_detail det;
	struct qa_fit_result r;
	struct qa_fit_options *opt = &fc->opt;
	char err[512];
	double kv_act = 0, est_host = 0;
	size_t i, j;

	if (qa_fit_parse_llamacpp_log(fc->calibrate, &lg, err,
				      sizeof(err)) != 0) {
		fprintf(stderr, "quantaudit fit: --calibrate %s: %s\n",
			fc->calibrate, err);
		return QA_EXIT_UNRECOGNIZED;
	}
	if (opt->engine != QA_ENGINE_LLAMACPP)
		return fit_usage_error("--calibrate reads llama.cpp logs: use "
				       "--engine llama.cpp");
	/* The log's own settings unless given here. */
	if (opt->ctx == 0 && lg.ctx > 0)
		opt->ctx = lg.ctx;
	if (!fc->kv_set && !fc->kv_k_set && lg.ctk[0])
		opt->kv_k = lg.ctk;
	if (!fc->kv_set && !fc->kv_v_set && lg.ctv[0])
		opt->kv_v = lg.ctv;
	if (!fc->fa_set)
		opt->flash_attn = lg.fa;
	if (opt->parallel == 0 && lg.np > 0)
		opt->parallel = lg.np;
	if (!fc->ubatch_set && lg.ub > 0)
		opt->ubatch = lg.ub;
	if (!fc->gpus) {
		/* No --gpus: the log is a CPU run, one CPU backend device
		 * whose memory is not the question. */
		memset(&opt->gpus, 0, sizeof(opt->gpus));
		opt->gpus.n = 1;
		snprintf(opt->gpus.dev[0].name, sizeof(opt->gpus.dev[0].name),
			 "CPU");
		opt->gpus.dev[0].vram_bytes = (uint64_t)1 << 40;
		opt->gpus.dev[0].usable_bytes = (uint64_t)1 << 40;
		opt->gpus.dev[0].cc_major = opt->gpus.dev[0].cc_minor = -1;
		opt->margin_bytes = 0;
	}
	memset(&r, 0, sizeof(r));
	memset(&det, 0, sizeof(det));
	if (qa_fit_llamacpp_ex(inv, opt, &r, &det, err, sizeof(err)) != 0) {
		fprintf(stderr, "quantaudit fit: %s: %s\n", inv->path, err);
		return QA_EXIT_UNRECOGNIZED;
	}
	fprintf(out, "calibration: %s against %s\n", inv->path,
		fc->calibrate);
	fprintf(out, "settings: context %" PRId64 ", KV %s/%s, flash "
		"attention %s, -np %d, -ub %d\n", r.context,
		r.kv_type_k ? r.kv_type_k : "f16",
		r.kv_type_v ? r.kv_type_v : "f16",
		det.flash_attn ? "on" : "off",
		opt->parallel > 0 ? opt->parallel : 1,
		opt->ubatch > 0 ? opt->ubatch : 512);
	if (lg.failure[0] || det.refusal[0] || lg.rc > 0) {
		if (lg.failure[0])
			fprintf(out, "engine refusal: log: %s\n", lg.failure);
		else if (lg.rc > 0)
			fprintf(out, "engine refusal: log: exit code %d\n",
				lg.rc);
		else
			fputs("engine refusal: log: (none)\n", out);
		fprintf(out, "                estimate: %s\n",
			det.refusal[0] ? det.refusal : "(none)");
	}
	fprintf(out, "  %-22s %12s %12s %9s\n", "MiB", "estimate", "engine",
		"diff");
	for (i = 0; i < lg.n_kv && i < QA_LLAMACPP_LOG_ROWS; i++)
		kv_act += lg.kv[i].mib;
	cal_row(out, "KV cache (all)", (double)r.totals_kv / MIB,
		lg.n_kv ? kv_act : -1);
	if (lg.n_kv >= 1)
		cal_row(out, lg.n_kv > 1 ? "  KV base" : "  KV",
			(double)(det.k_base + det.v_base) / MIB, lg.kv[0].mib);
	if (lg.n_kv >= 2)
		cal_row(out, "  KV sliding window",
			(double)(det.k_swa + det.v_swa) / MIB, lg.kv[1].mib);
	cal_row(out, "recurrent state", (double)r.totals_recurrent / MIB,
		lg.has_rs ? lg.rs_mib : -1);
	for (j = 0; j < r.n_devices; j++) {
		char what[64];
		double act = -1, mod = -1;

		for (i = 0; i < lg.n_compute && i < QA_LLAMACPP_LOG_ROWS; i++)
			if (log_dev(lg.compute[i].dev, r.n_devices) == (long)j)
				act = lg.compute[i].mib;
		for (i = 0; i < lg.n_model && i < QA_LLAMACPP_LOG_ROWS; i++)
			if (log_dev(lg.model_buf[i].dev, r.n_devices) ==
			    (long)j)
				mod = lg.model_buf[i].mib;
		snprintf(what, sizeof(what), "compute %s",
			 r.devices[j].name);
		/* The CPU backend holds the host input in the same buffer
		 * (memory-models.md section 1.8.1). */
		cal_row(out, what, ((double)r.devices[j].compute_bytes +
				    (strcmp(r.devices[j].name, "CPU") == 0 ?
				     (double)det.compute_host_input : 0)) /
			MIB, act);
		snprintf(what, sizeof(what), "weights %s", r.devices[j].name);
		cal_row(out, what, ((double)r.devices[j].weights_bytes +
				    (strcmp(r.devices[j].name, "CPU") == 0 ?
				     (double)r.host_bytes : 0)) / MIB, mod);
	}
	for (i = 0; i < lg.n_compute && i < QA_LLAMACPP_LOG_ROWS; i++)
		if (strcmp(lg.compute[i].dev, "CUDA_Host") == 0) {
			est_host = (double)det.compute_host_input / MIB;
			cal_row(out, "compute CUDA_Host", est_host,
				lg.compute[i].mib);
		}
	for (i = 0; i < lg.n_breakdown && i < QA_LLAMACPP_LOG_ROWS; i++)
		fprintf(out, "log breakdown %s: model %.2f, context %.2f, "
			"compute %.2f, unaccounted %.2f MiB\n",
			lg.breakdown[i].dev, lg.breakdown[i].model,
			lg.breakdown[i].context, lg.breakdown[i].compute,
			lg.breakdown[i].unaccounted);
	if (fflush(out) != 0 || ferror(out))
		return QA_EXIT_SYSTEM;
	return QA_EXIT_PASS;
}

/* ---- the command ------------------------------------------------------ */

/* Text of the fit command: the input in one line, the fit block, the fit
 * findings. */
static void
fit_text(FILE *out, struct qa_inventory *inv, bool color)
{
	char *line;
	uint32_t i;

	line = qa_arena_printf(&inv->arena, "%s: %s%s%s%s",
			       inv->path, inv->hp.arch ? inv->hp.arch :
			       "unknown architecture",
			       inv->hp.name ? " \"" : "",
			       inv->hp.name ? inv->hp.name : "",
			       inv->hp.name ? "\"" : "");
	if (line)
		qa_report_fit_wrap(out, line, 2);
	qa_report_fit_text(out, inv, color);
	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];

		line = qa_arena_printf(&inv->arena,
				       "%s [QA%04u %s] %s",
				       qa_severity_name(f->severity),
				       (unsigned)f->rule->code, f->rule->id,
				       f->message ? f->message : "");
		if (line)
			qa_report_fit_wrap(out, line, 2);
	}
}

static int
parse_args(struct fit_cli *fc, int argc, char **argv, const char **path)
{
	enum { O_GPUS = 256, O_ENGINE, O_CTX, O_KV, O_KV_K, O_KV_V,
	       O_PARALLEL, O_UBATCH, O_FA, O_TS, O_MARGIN, O_MTP, O_CAL,
	       O_FAIL_ON, O_NO_COLOR, O_SUMMARY };
	static const struct option longopts[] = {
		{ "gpus", required_argument, NULL, O_GPUS },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "ctx", required_argument, NULL, O_CTX },
		{ "kv", required_argument, NULL, O_KV },
		{ "kv-k", required_argument, NULL, O_KV_K },
		{ "kv-v", required_argument, NULL, O_KV_V },
		{ "parallel", required_argument, NULL, O_PARALLEL },
		{ "ubatch", required_argument, NULL, O_UBATCH },
		{ "flash-attn", required_argument, NULL, O_FA },
		{ "tensor-split", required_argument, NULL, O_TS },
		{ "margin", required_argument, NULL, O_MARGIN },
		{ "mtp", required_argument, NULL, O_MTP },
		{ "calibrate", required_argument, NULL, O_CAL },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "fail-on", required_argument, NULL, O_FAIL_ON },
		{ "summary", no_argument, NULL, O_SUMMARY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-color", no_argument, NULL, O_NO_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct qa_fit_options *o = &fc->opt;
	size_t n_ts = 0;
	int64_t v;
	int c;
	char gerr[256];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case O_GPUS:
			if (qa_gpuspec_parse(optarg, &o->gpus, gerr,
					     sizeof(gerr)) != 0)
				return fit_usage_error("--gpus: %s", gerr);
			fc->gpus = optarg;
			break;
		case O_ENGINE:
			if (strcmp(optarg, "llama.cpp") == 0 ||
			    strcmp(optarg, "llamacpp") == 0)
				o->engine = QA_ENGINE_LLAMACPP;
			else if (strcmp(optarg, "vllm") == 0)
				o->engine = QA_ENGINE_VLLM;
			else
				return fit_usage_error("unknown --engine '%s' "
						       "(llama.cpp or vllm)",
						       optarg);
			fc->engine_set = true;
			break;
		case O_CTX:
			if (!parse_ctx(optarg, &o->ctx))
				return fit_usage_error("--ctx '%s': a positive "
						       "number of tokens (e.g. "
						       "32768 or 32k) or max",
						       optarg);
			break;
		case O_KV:
			o->kv_k = o->kv_v = optarg;
			fc->kv_set = true;
			break;
		case O_KV_K:
			o->kv_k = optarg;
			fc->kv_k_set = true;
			break;
		case O_KV_V:
			o->kv_v = optarg;
			fc->kv_v_set = true;
			break;
		case O_PARALLEL:
			if (!parse_int(optarg, 1, 4096, &v))
				return fit_usage_error("--parallel '%s': a "
						       "number from 1 to 4096",
						       optarg);
			o->parallel = (int)v;
			break;
		case O_UBATCH:
			if (!parse_int(optarg, 1, 65536, &v))
				return fit_usage_error("--ubatch '%s': a "
						       "number from 1 to 65536",
						       optarg);
			o->ubatch = (int)v;
			fc->ubatch_set = true;
			break;
		case O_FA:
			if (strcmp(optarg, "on") == 0)
				o->flash_attn = 1;
			else if (strcmp(optarg, "off") == 0)
				o->flash_attn = 0;
			else if (strcmp(optarg, "auto") == 0)
				o->flash_attn = -1;
			else
				return fit_usage_error("--flash-attn '%s': on, "
						       "off or auto", optarg);
			fc->fa_set = true;
			break;
		case O_TS:
			if (!parse_split(optarg, o->tensor_split, &n_ts))
				return fit_usage_error("--tensor-split '%s': "
						       "comma-separated "
						       "non-negative numbers, "
						       "not all 0 (e.g. 3,1)",
						       optarg);
			fc->ts_set = true;
			break;
		case O_MARGIN:
			if (!parse_int(optarg, 0, (int64_t)1 << 24, &v))
				return fit_usage_error("--margin '%s': MiB, a "
						       "whole number >= 0",
						       optarg);
			o->margin_bytes = (uint64_t)v << 20;
			break;
		case O_MTP:
			if (!parse_onoff(optarg, &o->mtp))
				return fit_usage_error("--mtp '%s': on or off",
						       optarg);
			break;
		case O_CAL:
			fc->calibrate = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") == 0)
				fc->format = FIT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				fc->format = FIT_JSON;
			else if (strcmp(optarg, "markdown") == 0)
				fc->format = FIT_MARKDOWN;
			else
				return fit_usage_error("--format '%s': fit "
						       "writes text, json or "
						       "markdown", optarg);
			break;
		case 'o':
			fc->output = optarg;
			break;
		case O_FAIL_ON:
			if (strcmp(optarg, "error") == 0)
				fc->fail_on = QA_SEV_ERROR;
			else if (strcmp(optarg, "warning") == 0)
				fc->fail_on = QA_SEV_WARNING;
			else if (strcmp(optarg, "info") == 0)
				fc->fail_on = QA_SEV_INFO;
			else if (strcmp(optarg, "never") == 0)
				fc->fail_on = QA_SEV_NONE;
			else
				return fit_usage_error("unknown --fail-on '%s' "
						       "(error, warning, info "
						       "or never)", optarg);
			break;
		case O_SUMMARY:
			fc->summary = true;
			break;
		case 'q':
			fc->quiet = true;
			break;
		case O_NO_COLOR:
			fc->no_color = true;
			break;
		case 'h':
			fputs(fit_usage, stdout);
			return QA_EXIT_PASS;
		case ':':
			return fit_usage_error("option '%s' needs a value",
					       argv[optind - 1]);
		default:
			return fit_usage_error("unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return fit_usage_error("no input given");
	if (optind + 1 < argc)
		return fit_usage_error("one input at a time (got '%s' and "
				       "'%s')", argv[optind], argv[optind + 1]);
	*path = argv[optind];
	if (!fc->gpus && !fc->calibrate)
		return fit_usage_error("--gpus SPEC is required (e.g. 2x16G, "
				       "rtx-5060-ti:2, none)");
	if (fc->kv_set && (fc->kv_k_set || fc->kv_v_set))
		return fit_usage_error("--kv sets both K and V: use either "
				       "--kv or --kv-k/--kv-v");
	if (fc->ts_set && fc->gpus && n_ts > o->gpus.n)
		return fit_usage_error("--tensor-split has %zu values for %zu "
				       "device%s", n_ts, o->gpus.n,
				       o->gpus.n == 1 ? "" : "s");
	return -1;
}

/* Checks the options that depend on the engine (known once the input's
 * kind decides the default). */
static int
check_engine_options(struct fit_cli *fc)
{
	const struct qa_fit_options *o = &fc->opt;
	const char *const *set = o->engine == QA_ENGINE_VLLM ? vllm_kv_types :
				 llama_kv_types;
	const char *eng = qa_report_fit_engine(o->engine);

	if (o->kv_k && !in_set(set, o->kv_k))
		return fit_usage_error("unknown KV-cache type '%s' for %s (%s)",
				       o->kv_k, eng,
				       o->engine == QA_ENGINE_VLLM ?
				       "auto, fp8, fp8_e4m3, fp8_e5m2, f16, "
				       "bf16" : "f16, bf16, f32, q8_0, q4_0, "
				       "q4_1, iq4_nl, q5_0, q5_1");
	if (o->kv_v && !in_set(set, o->kv_v))
		return fit_usage_error("unknown KV-cache type '%s' for %s",
				       o->kv_v, eng);
	if (o->engine == QA_ENGINE_VLLM) {
		if (fc->kv_k_set || fc->kv_v_set)
			return fit_usage_error("vllm has one KV-cache dtype: "
					       "use --kv");
		if (fc->ts_set)
			return fit_usage_error("--tensor-split is a llama.cpp "
					       "option (vllm splits by "
					       "tensor parallelism)");
		if (fc->ubatch_set)
			return fit_usage_error("--ubatch is a llama.cpp "
					       "option");
		if (fc->fa_set)
			return fit_usage_error("--flash-attn is a llama.cpp "
					       "option");
	}
	return -1;
}

int
qa_cli_fit(int argc, char **argv)
{
	struct fit_cli *fc;
	struct qa_inventory *inv = NULL;
	struct qa_check_options copt;
	const char *path = NULL;
	char err[1024];
	FILE *out = stdout;
	int rc;

	fc = calloc(1, sizeof(*fc));
	if (!fc) {
		fputs("quantaudit: out of memory\n", stderr);
		return QA_EXIT_SYSTEM;
	}
	fc->opt.flash_attn = -1;
	fc->opt.margin_bytes = (uint64_t)DEFAULT_MARGIN_MIB << 20;
	fc->fail_on = QA_SEV_ERROR;
	fc->summary = true;
	rc = parse_args(fc, argc, argv, &path);
	if (rc >= 0)
		goto done;

	rc = qa_input_inspect(path, &inv, err, sizeof(err));
	if (rc != QA_OK) {
		fprintf(stderr, "quantaudit: %s\n", err);
		rc = rc == QA_E_UNRECOGNIZED ? QA_EXIT_UNRECOGNIZED :
		     QA_EXIT_SYSTEM;
		inv = NULL;
		goto done;
	}
	if (!fc->engine_set)
		fc->opt.engine = default_engine(inv);
	rc = check_engine_options(fc);
	if (rc >= 0)
		goto done;
	if (fc->output) {
		out = fopen(fc->output, "w");
		if (!out) {
			fprintf(stderr, "quantaudit: cannot write '%s': %s\n",
				fc->output, strerror(errno));
			out = stdout;
			rc = QA_EXIT_SYSTEM;
			goto done;
		}
	}
	if (fc->calibrate) {
		rc = calibrate(fc, inv, out);
		goto close;
	}
	if (compute(inv, &fc->opt, err, sizeof(err)) != 0) {
		fprintf(stderr, "quantaudit fit: %s: %s\n", path, err);
		rc = QA_EXIT_UNRECOGNIZED;
		goto close;
	}
	memset(&copt, 0, sizeof(copt));
	copt.engine = qa_report_fit_engine(fc->opt.engine);
	copt.gpus = fc->gpus;
	copt.fit = &fc->opt;
	qa_check_fit.run(inv, &copt);

	if (fc->format == FIT_JSON) {
		struct qa_report_options ropt;

		memset(&ropt, 0, sizeof(ropt));
		ropt.summary = fc->summary;
		ropt.fail_on = fc->fail_on;
		rc = qa_report_json(out, &inv, 1, &ropt);
	} else if (fc->format == FIT_MARKDOWN) {
		qa_report_fit_markdown(out, inv);
		rc = 0;
	} else {
		fit_text(out, inv, !fc->no_color && !fc->output &&
			 !getenv("NO_COLOR") && isatty(fileno(out)));
		rc = 0;
	}
	if (rc != 0 || fflush(out) != 0 || ferror(out)) {
		fprintf(stderr, "quantaudit: error writing the report\n");
		rc = QA_EXIT_SYSTEM;
		goto close;
	}
	rc = strcmp(qa_verdict(inv, fc->fail_on), "fail") == 0 ?
	     QA_EXIT_FAIL : QA_EXIT_PASS;
close:
	if (out != stdout && fclose(out) != 0 && rc == QA_EXIT_PASS)
		rc = QA_EXIT_SYSTEM;
done:
	qa_inventory_destroy(inv);
	free(fc);
	return rc;
}
