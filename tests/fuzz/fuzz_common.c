/* SPDX-License-Identifier: MIT */
/*
 * Shared harness for the fuzz targets: the in-memory folder the inputs
 * are placed in (no temporary files: the loaders read through the
 * inventory's qa_fs, here a qa_memfs), and the invariant checks run on
 * every inventory (see fuzz_common.h and docs/testing.md "Fuzzing").
 *
 * The checks are the contract the reporters rely on, stated so a fuzzer
 * can test it on any input: every finding names a registered rule, every
 * tensor has a name and a dtype, every returned string is readable to its
 * terminating NUL (each byte is summed into a volatile so AddressSanitizer
 * sees a dangling or short allocation), and a tensor is reported past the
 * end of its file exactly when it is.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_common.h"

#include "integrity/scan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/diag.h"
#include "core/escape.h"
#include "core/inventory.h"
#include "core/source.h"
#include "engine/audit.h"
#include "formats/archive.h"
#include "fit/fit.h"
#include "fit/gpuspec.h"
#include "report/report.h"

#include <cjson/cJSON.h>

/* inventory.c stores at most this many findings (MAX_FINDINGS); past it
 * a missing finding proves nothing. */
#define FINDINGS_CAP 10000

/* The folder the inputs are placed in, rebuilt for every input. */
static struct qa_memfs mfs;
static char names[64][128];

void
qa_fuzz_reset(void)
{
	qa_memfs_init(&mfs);
}

void
qa_fuzz_add(const char *name, const void *data, size_t size)
{
	size_t i = mfs.n;

	if (i >= sizeof(names) / sizeof(names[0]) ||
	    snprintf(names[i], sizeof(names[i]), "%s/%s", QA_FUZZ_DIR, name) >=
	    (int)sizeof(names[i]) || !qa_memfs_add(&mfs, names[i], data, size)) {
		fprintf(stderr, "fuzz: cannot add %s\n", name);
		abort();
	}
}

void
qa_fuzz_add_special(const char *name, const char *what, bool swapped)
{
	size_t i = mfs.n;

	if (i >= sizeof(names) / sizeof(names[0]) ||
	    snprintf(names[i], sizeof(names[i]), "%s/%s", QA_FUZZ_DIR, name) >=
	    (int)sizeof(names[i]) ||
	    !qa_memfs_add_special(&mfs, names[i], what, swapped)) {
		fprintf(stderr, "fuzz: cannot add %s\n", name);
		abort();
	}
}

const void *
qa_fuzz_safetensors(const char *header, size_t data_bytes, size_t *size)
{
	size_t hlen = strlen(header), total = 8 + hlen + data_bytes, i;
	unsigned char *buf = calloc(total, 1);

	if (!buf)
		abort();
	for (i = 0; i < 8; i++)
		buf[i] = (unsigned char)((uint64_t)hlen >> (8 * i));
	memcpy(buf + 8, header, hlen);
	*size = total;
	return buf;
}

/* Reports a broken invariant and aborts so both engines see a crash. */
_Noreturn static void fail(const char *input, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

_Noreturn static void
fail(const char *input, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: invariant violated on %s: ", input);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Sums n bytes so that every one of them is read. */
static unsigned
touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += b[i];
	return sum;
}

/* Every byte of a NUL-terminated string, terminator included. */
static unsigned
touch_str(const char *s)
{
	return s ? touch(s, strlen(s) + 1) : 0;
}

static unsigned
touch_value(const char *in, const char *key, const struct qa_value *v,
	    int depth)
{
	unsigned sum = 0;
	uint64_t keep, i;

	if ((unsigned)v->type >= QA_V_COUNT)
		fail(in, "key '%s' has value type %d", key, (int)v->type);
	if (v->type == QA_V_STRING) {
		/* The contract: the first min(len, keep limit) bytes are
		 * held, then a NUL. Embedded NULs are allowed, so this
		 * reads by the stated length, not by strlen. */
		if (!v->v.str.s)
			fail(in, "key '%s' has a NULL string", key);
		keep = v->v.str.len < QA_KV_KEEP_STRING ? v->v.str.len :
		       QA_KV_KEEP_STRING;
		sum += touch(v->v.str.s, (size_t)keep + 1);
		if (v->v.str.s[keep] != '\0')
			fail(in, "key '%s': string of length %llu is not "
			     "NUL-terminated there", key,
			     (unsigned long long)v->v.str.len);
	} else if (v->type == QA_V_ARRAY) {
		if (depth > 16)
			fail(in, "key '%s': arrays nested %d deep", key,
			     depth);
		if (v->v.arr.kept > v->v.arr.count ||
		    v->v.arr.kept > QA_KV_KEEP_ELEMENTS)
			fail(in, "key '%s': %llu kept of %llu elements", key,
			     (unsigned long long)v->v.arr.kept,
			     (unsigned long long)v->v.arr.count);
		if (v->v.arr.kept && !v->v.arr.packed && !v->v.arr.items)
			fail(in, "key '%s': %llu kept elements but no "
			     "storage", key,
			     (unsigned long long)v->v.arr.kept);
		/* The contract of arr.items beside arr.packed
		 * (core/inventory.h): all of a short array, the first of
		 * a long string array, or none. */
		if (v->v.arr.packed && v->v.arr.items &&
		    v->v.arr.count > QA_KV_EXPAND_ELEMENTS &&
		    v->v.arr.elem != QA_V_STRING)
			fail(in, "key '%s': a long array has items", key);
		for (i = 0; i < v->v.arr.kept; i++) {
			struct qa_value e;
			uint64_t n_items = !v->v.arr.items ? 0 :
					   !v->v.arr.packed ||
					   v->v.arr.count <=
					   QA_KV_EXPAND_ELEMENTS ?
					   v->v.arr.kept : 1;

			if (!qa_value_item(v, i, &e))
				fail(in, "key '%s': element %llu of %llu "
				     "kept cannot be read", key,
				     (unsigned long long)i,
				     (unsigned long long)v->v.arr.kept);
			if (e.type != v->v.arr.elem)
				fail(in, "key '%s': element %llu has type %d "
				     "in an array of %d", key,
				     (unsigned long long)i, (int)e.type,
				     (int)v->v.arr.elem);
			if (i < n_items &&
			    memcmp(&e.v, &v->v.arr.items[i].v,
				   sizeof(e.v)) != 0 &&
			    e.type != QA_V_ARRAY)
				fail(in, "key '%s': element %llu differs "
				     "between items and the packed form", key,
				     (unsigned long long)i);
			sum += touch_value(in, key, &e, depth + 1);
		}
	}
	return sum;
}

static bool
past_eof(const struct qa_tensor *t, const uint64_t *sizes)
{
	if (t->offset > UINT64_MAX - t->bytes)
		return true;
	return t->offset + t->bytes > sizes[t->file];
}

static bool
is_past_eof_code(const struct qa_finding *f)
{
	return f->rule->code == QA1028 || f->rule->code == QA1212;
}

/*
 * A tensor is reported past the end of its file exactly when it is: no
 * QA1028/QA1212 names a tensor that lies inside its file, and a file with
 * a tensor past its end has such a finding. The file sizes come from
 * stat(), not from the parser.
 */
static void
check_past_eof(const char *in, const struct qa_inventory *inv)
{
	uint64_t *sizes;
	bool *has_past;
	uint32_t i, j, k;
	struct qa_archive *ar = NULL;

	sizes = calloc(inv->n_files ? inv->n_files : 1, sizeof(*sizes));
	has_past = calloc(inv->n_files ? inv->n_files : 1, sizeof(*has_past));
	if (!sizes || !has_past)
		abort();
	/* A model read from an archive: its files are members, sized by
	 * the archive's own listing (formats/archive.h). */
	if (inv->archive.file) {
		char err[256];

		if (qa_archive_open(qa_memfs_fs(&mfs), inv->archive.file, &ar,
				    err, sizeof(err)) != QA_OK)
			fail(in, "the archive cannot be opened again: %s", err);
	}
	for (i = 0; i < inv->n_files; i++) {
		enum qa_node_kind kind;
		uint64_t size;
		int e;

		if (ar) {
			const struct qa_fs *afs = qa_archive_fs(ar);

			if (afs->stat(afs, inv->files[i].path, &kind, &size,
				      &e) == QA_OK && kind == QA_NODE_FILE)
				sizes[i] = size;
		} else if (qa_inv_stat(inv, inv->files[i].path, &kind,
				       &size) == QA_OK &&
			   kind == QA_NODE_FILE) {
			sizes[i] = size;
		}
	}
	qa_archive_release(ar);
	for (i = 0; i < inv->n_tensors; i++)
		if (past_eof(&inv->tensors[i], sizes))
			has_past[inv->tensors[i].file] = true;

	for (k = 0; k < inv->n_findings; k++) {
		const struct qa_finding *f = &inv->findings[k];
		bool named = false, named_past = false;

		if (!is_past_eof_code(f) || !f->tensor || !f->file)
			continue;
		/* Names may repeat (a finding of its own): the finding is
		 * wrong only if no tensor of that name is past the end. */
		for (i = 0; i < inv->n_tensors; i++) {
			const struct qa_tensor *t = &inv->tensors[i];

			if (strcmp(t->name, f->tensor) != 0 ||
			    strcmp(inv->files[t->file].path, f->file) != 0)
				continue;
			named = true;
			if (past_eof(t, sizes))
				named_past = true;
		}
		if (named && !named_past)
			fail(in, "QA%u says tensor '%s' of %s ends past the "
			     "end of the file, but it does not",
			     (unsigned)f->rule->code, f->tensor, f->file);
	}
	for (j = 0; j < inv->n_files && inv->n_findings < FINDINGS_CAP; j++) {
		bool reported = false;

		if (!has_past[j])
			continue;
		for (k = 0; k < inv->n_findings; k++)
			if (is_past_eof_code(&inv->findings[k]) &&
			    inv->findings[k].file &&
			    strcmp(inv->findings[k].file,
				   inv->files[j].path) == 0)
				reported = true;
		if (!reported) {
			for (i = 0; i < inv->n_tensors; i++)
				if (inv->tensors[i].file == j &&
				    past_eof(&inv->tensors[i], sizes))
					break;
			fail(in, "tensor '%s' of %s ends at %llu + %llu, past "
			     "the end of the file (%llu bytes), without a "
			     "QA1028 or QA1212 finding",
			     inv->tensors[i].name, inv->files[j].path,
			     (unsigned long long)inv->tensors[i].offset,
			     (unsigned long long)inv->tensors[i].bytes,
			     (unsigned long long)sizes[j]);
		}
	}
	free(sizes);
	free(has_past);
}

static void
check_inventory(const char *in, const struct qa_inventory *inv)
{
	const struct qa_hparams *hp = &inv->hp;
	volatile unsigned sink = 0;
	uint32_t i, j;

	sink += touch_str(inv->path);
	for (i = 0; i < inv->n_files; i++) {
		const struct qa_file *f = &inv->files[i];

		if (!f->path || !f->name)
			fail(in, "file %u has no path or name", i);
		sink += touch_str(f->path) + touch_str(f->name) +
			touch_str(f->format);
	}
	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];

		if (!f->rule || qa_rule_find(f->rule->code) != f->rule)
			fail(in, "finding %u has a rule outside the registry",
			     i);
		if ((unsigned)f->severity > QA_SEV_ERROR)
			fail(in, "finding %u (QA%u) has severity %d", i,
			     (unsigned)f->rule->code, (int)f->severity);
		if (!f->message)
			fail(in, "finding %u (QA%u) has no message", i,
			     (unsigned)f->rule->code);
		sink += touch_str(f->message) + touch_str(f->file) +
			touch_str(f->tensor) + touch_str(f->rule->id);
	}
	for (i = 0; i < inv->n_kvs; i++) {
		const struct qa_kv *kv = &inv->kvs[i];

		if (!kv->key)
			fail(in, "key %u is NULL", i);
		if (kv->file >= inv->n_files)
			fail(in, "key '%s' is in file %u of %u", kv->key,
			     kv->file, inv->n_files);
		sink += touch_str(kv->key) +
			touch_value(in, kv->key, &kv->value, 0);
	}
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (!t->name || !t->dtype)
			fail(in, "tensor %u has a NULL %s", i,
			     t->name ? "dtype" : "name");
		if (t->file >= inv->n_files)
			fail(in, "tensor '%s' is in file %u of %u", t->name,
			     t->file, inv->n_files);
		if (t->n_dims > QA_MAX_DIMS)
			fail(in, "tensor '%s' has %u dimensions", t->name,
			     t->n_dims);
		sink += touch_str(t->name) + touch_str(t->dtype) +
			touch(t->shape, t->n_dims * sizeof(t->shape[0]));
	}
	sink += touch_str(hp->arch) + touch_str(hp->arch_raw) +
		touch_str(hp->name);
	if ((hp->layer_kind || hp->head_kv_per_layer) &&
	    (hp->n_layer_all <= 0 || hp->n_layer_all > ((int64_t)1 << 24)))
		fail(in, "per-layer arrays with n_layer_all = %lld",
		     (long long)hp->n_layer_all);
	if (hp->layer_kind)
		sink += touch(hp->layer_kind, (size_t)hp->n_layer_all);
	if (hp->head_kv_per_layer)
		sink += touch(hp->head_kv_per_layer,
			      (size_t)hp->n_layer_all *
			      sizeof(hp->head_kv_per_layer[0]));
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];

		if (!c->name || (c->n_dtypes && !c->dtypes))
			fail(in, "component %u is incomplete", i);
		sink += touch_str(c->name);
		for (j = 0; j < c->n_dtypes; j++)
			sink += touch_str(c->dtypes[j].dtype);
	}
	sink += touch_str(inv->quant_config_file) +
		touch_str(inv->chat_template) +
		touch_str(inv->file_type_declared) +
		touch_str(inv->file_type_guessed) +
		touch_str(inv->dominant_type);
	(void)sink;
	check_past_eof(in, inv);
}

/*
 * Everything after parsing also reads values a hostile file chose: the
 * built-in checks (every rule family) and the fit models sizing KV
 * caches, recurrent state and layer splits from its hyperparameters. The
 * pipeline runs the checks and the llama.cpp fit at the largest context
 * that fits; the vLLM model (default, and with pipeline stages, an MTP
 * draft and the Transformers backend) and the SGLang model are run here
 * on the same inventory.
 */
static void
run_vllm(const char *path, struct qa_inventory *inv)
{
	struct qa_fit_options fopt;
	struct qa_fit_result res;
	char err[256];
	volatile unsigned sink = 0;
	size_t i;
	int pass, rc;

	for (pass = 0; pass < 3; pass++) {
		qa_fit_options_init(&fopt);
		fopt.engine = pass == 2 ? QA_ENGINE_SGLANG : QA_ENGINE_VLLM;
		if (qa_gpuspec_parse("2x16G", &fopt.gpus, err,
				     sizeof(err)) != 0)
			fail(path, "gpu spec: %s", err);
		if (pass == 1) {
			fopt.tp = 1;
			fopt.pp = 2;
			fopt.num_speculative_tokens = 2;
			fopt.mtp = true;
			fopt.model_impl = QA_MODEL_IMPL_TRANSFORMERS;
			fopt.kv_k = fopt.kv_v = "fp8_per_token_head";
		}
		memset(&res, 0, sizeof(res));
		rc = pass == 2 ? qa_fit_sglang(inv, &fopt, &res, err,
					       sizeof(err)) :
			qa_fit_vllm(inv, &fopt, &res, err, sizeof(err));
		if (rc != 0) {
			if (!memchr(err, '\0', sizeof(err)))
				fail(path, "fit error without a message");
			continue;
		}
		if (res.n_devices > QA_GPU_MAX)
			fail(path, "fit: %zu devices", res.n_devices);
		for (i = 0; i < res.n_notes &&
		     i < sizeof(res.notes) / sizeof(res.notes[0]); i++)
			if (res.notes[i])
				sink += touch_str(res.notes[i]);
		if (res.verdict)
			sink += touch_str(res.verdict);
		if (res.formula)
			sink += touch_str(res.formula);
	}
	(void)sink;
}

void
qa_fuzz_check_inventory(const char *in, const struct qa_inventory *inv)
{
	check_inventory(in, inv);
}

/* ---- the reports ------------------------------------------------------ */

/* Whether the code point at s[i] is one escape.h never lets through raw:
 * C1 controls, bidi controls, line and paragraph separators. */
static bool
forbidden_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
	       cp == 0x2029;
}

/*
 * A report holds no model text unescaped (src/core/escape.h): whatever
 * the model holds, the bytes written are valid UTF-8 with no control
 * but tab and newline, no C1 or bidi control, no line that starts (after
 * blanks) with "::", and no "##[" or "##vso[".
 */
static void
check_report(const char *in, const char *format, const char *buf,
	     size_t len)
{
	size_t i = 0, line = 0;

	while (i < len) {
		unsigned char c = (unsigned char)buf[i];
		uint32_t cp;
		size_t n;

		if (c == '\n') {
			line = i + 1;
			i++;
			continue;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			fail(in, "%s report: raw control byte 0x%02x at %zu",
			     format, c, i);
		n = qa_utf8_decode(buf + i, &cp);
		if (n == 0 || i + n > len)
			fail(in, "%s report: invalid UTF-8 at byte %zu",
			     format, i);
		if (forbidden_cp(cp))
			fail(in, "%s report: raw U+%04X at byte %zu", format,
			     (unsigned)cp, i);
		if (c == ':' && i + 1 < len && buf[i + 1] == ':') {
			size_t k = line;

			while (k < i && (buf[k] == ' ' || buf[k] == '\t'))
				k++;
			if (k == i)
				fail(in, "%s report: a line starts with '::' "
				     "at byte %zu", format, i);
		}
		if (c == '#' && i + 2 < len && buf[i + 1] == '#' &&
		    (buf[i + 2] == '[' ||
		     (len - i >= 6 && memcmp(buf + i + 2, "vso[", 4) == 0)))
			fail(in, "%s report: a CI log command at byte %zu",
			     format, i);
		i += n;
	}
}

/* Every reporter in every view it draws, as the CLI calls it. */
static void
run_reporters(const char *in, const struct qa_audit *audit,
	      struct qa_inventory *const *invs, size_t n)
{
	size_t r;
	unsigned view;

	for (r = 0; qa_reporters[r]; r++) {
		const struct qa_reporter *rep = qa_reporters[r];

		for (view = QA_VIEW_INSPECT; view <= QA_VIEW_FIT; view++) {
			struct qa_report_options ropt;
			char *buf = NULL;
			size_t len = 0;
			FILE *f;
			int rc;

			if (!(rep->views & (1u << view)))
				continue;
			memset(&ropt, 0, sizeof(ropt));
			ropt.view = (enum qa_report_view)view;
			ropt.fail_on = QA_SEV_ERROR;
			ropt.layers = view == QA_VIEW_INSPECT;
			ropt.summary = view == QA_VIEW_FIT;
			ropt.advisories = audit->advisories;
			ropt.n_advisories = audit->n_advisories;
			f = open_memstream(&buf, &len);
			if (!f)
				abort();
			rc = rep->write(f, invs, n, &ropt);
			if (fclose(f) != 0 || !buf)
				abort();
			if (rc != 0)
				fail(in, "%s reporter (view %u) failed",
				     rep->name, view);
			check_report(in, rep->name, buf, len);
			if (strcmp(rep->name, "html") == 0) {
				/* the page's one script is its own: a
				 * model's "<script" is escaped */
				const char *p = buf;
				size_t scripts = 0;

				while ((p = strstr(p, "<script")) != NULL) {
					scripts++;
					p++;
				}
				if (scripts != 1)
					fail(in, "html report (view %u) has %zu "
					     "script elements", view, scripts);
			}
			if (strcmp(rep->name, "json") == 0 ||
			    strcmp(rep->name, "sarif") == 0) {
				cJSON *doc = cJSON_ParseWithLength(buf, len);

				if (!doc)
					fail(in, "%s report (view %u) is not "
					     "JSON", rep->name, view);
				cJSON_Delete(doc);
			}
			free(buf);
		}
	}
}

/* ---- the pipeline ----------------------------------------------------- */

/* The data step of `scan` on the in-memory model, on one thread. */
static int
scan_step(void *ctx, struct qa_inventory *inv, char *err, size_t errlen)
{
	struct qa_content_options copt;
	struct qa_scan_totals tot;

	(void)ctx;
	memset(&copt, 0, sizeof(copt));
	copt.jobs = 1;
	return qa_scan_run(inv, &copt, &tot, err, errlen);
}

static void
audit_input(const char *name, bool unrecognized_ok, bool reports)
{
	struct qa_audit_options opt;
	struct qa_fit_options fopt;
	struct qa_audit audit;
	char path[160], err[256];
	const char *p = path;
	volatile unsigned sink = 0;
	size_t i;

	if (name)
		snprintf(path, sizeof(path), "%s/%s", QA_FUZZ_DIR, name);
	else
		p = QA_FUZZ_DIR;
	qa_fit_options_init(&fopt);
	fopt.engine = QA_ENGINE_LLAMACPP;
	fopt.given = QA_FIT_GIVEN_ENGINE;
	fopt.ctx = -1;
	if (qa_gpuspec_parse("2x16G", &fopt.gpus, err, sizeof(err)) != 0)
		fail(p, "gpu spec: %s", err);
	memset(&opt, 0, sizeof(opt));
	opt.fs = qa_memfs_fs(&mfs);
	opt.fail_on = QA_SEV_ERROR;
	opt.fit = &fopt;
	if (reports) {
		opt.checks.engine = "llama.cpp";
		opt.checks.gpus = "2x16G";
		/* scan's data step too: the tensor bytes of a hostile
		 * model through src/integrity/scan.c */
		opt.data_step = scan_step;
	}
	if (qa_audit_run(&p, 1, &opt, &audit) != QA_OK || audit.n == 0)
		fail(p, "the pipeline gave no input");
	for (i = 0; i < audit.n; i++) {
		struct qa_audit_input *in = &audit.inputs[i];

		switch (in->status) {
		case QA_OK:
			if (!in->inv)
				fail(p, "QA_OK without an inventory");
			check_inventory(p, in->inv);
			sink += touch_str(in->inv->verdict) +
				touch_str(in->inv->fit_error);
			run_vllm(p, in->inv);
			check_inventory(p, in->inv);
			break;
		case QA_E_UNRECOGNIZED:
			if (!unrecognized_ok)
				fail(p, "input not recognized: %s", in->error);
			break;
		case QA_E_NOMEM:
			/* Inputs are far below the 1 GiB arena ceiling:
			 * running out of memory here means an allocation
			 * sized by the file. */
			fail(p, "out of memory on a small input: %s",
			     in->error);
		case QA_E_IO:
			fail(p, "I/O error on a readable file: %s", in->error);
		default:
			fail(p, "unexpected status %d: %s", in->status,
			     in->error);
		}
		if (in->status != QA_OK && (!in->error[0] || in->inv))
			fail(p, "status %d without a message, or with an "
			     "inventory", in->status);
	}
	/* QA_FUZZ_VERBOSE=1: what each input gave, to check that seeds
	 * reach what they were written for. */
	if (getenv("QA_FUZZ_VERBOSE"))
		for (i = 0; i < audit.n; i++) {
			const struct qa_audit_input *in = &audit.inputs[i];
			uint32_t k;

			fprintf(stderr, "  input %s: status %d%s%s\n",
				in->path ? in->path : "?", in->status,
				in->error[0] ? ": " : "", in->error);
			for (k = 0; in->inv && k < in->inv->n_findings; k++)
				fprintf(stderr, "    QA%04u\n",
					(unsigned)in->inv->findings[k].rule->code);
		}
	if (reports) {
		struct qa_inventory **invs = calloc(audit.n, sizeof(*invs));
		size_t n = 0;

		if (!invs)
			abort();
		for (i = 0; i < audit.n; i++)
			if (audit.inputs[i].inv)
				invs[n++] = audit.inputs[i].inv;
		if (n)
			sink += touch_str(qa_verdict_all(invs, n,
							 QA_SEV_ERROR));
		run_reporters(p, &audit, invs, n);
		free(invs);
	}
	(void)sink;
	qa_audit_free(&audit);
}

void
qa_fuzz_inspect(const char *name, bool unrecognized_ok)
{
	audit_input(name, unrecognized_ok, false);
}

void
qa_fuzz_pipeline(const char *name)
{
	audit_input(name, true, true);
}

char *
qa_fuzz_json_report(const char *name, size_t *len)
{
	struct qa_audit_options opt;
	struct qa_report_options ropt;
	struct qa_audit audit;
	struct qa_inventory **invs;
	char path[160], *buf = NULL;
	const char *p = path;
	size_t i, n = 0, r;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", QA_FUZZ_DIR, name);
	memset(&opt, 0, sizeof(opt));
	opt.fs = qa_memfs_fs(&mfs);
	opt.fail_on = QA_SEV_ERROR;
	if (qa_audit_run(&p, 1, &opt, &audit) != QA_OK)
		fail(p, "the pipeline gave no input");
	invs = calloc(audit.n ? audit.n : 1, sizeof(*invs));
	if (!invs)
		abort();
	for (i = 0; i < audit.n; i++)
		if (audit.inputs[i].inv)
			invs[n++] = audit.inputs[i].inv;
	*len = 0;
	f = open_memstream(&buf, len);
	if (!f)
		abort();
	/* an input that did not load writes its status line instead */
	for (i = 0; i < audit.n; i++)
		fprintf(f, "status %d %s\n", audit.inputs[i].status,
			audit.inputs[i].error);
	memset(&ropt, 0, sizeof(ropt));
	ropt.view = QA_VIEW_INSPECT;
	ropt.fail_on = QA_SEV_ERROR;
	ropt.layers = true;
	for (r = 0; qa_reporters[r]; r++)
		if (strcmp(qa_reporters[r]->name, "json") == 0 && n &&
		    qa_reporters[r]->write(f, invs, n, &ropt) != 0)
			fail(p, "json reporter failed");
	if (fclose(f) != 0 || !buf)
		abort();
	free(invs);
	qa_audit_free(&audit);
	return buf;
}
