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

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/diag.h"
#include "core/inventory.h"
#include "core/source.h"
#include "engine/audit.h"
#include "fit/fit.h"
#include "fit/gpuspec.h"

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
		if (!v->v.arr.items) {
			if (v->v.arr.kept != 0)
				fail(in, "key '%s': %llu kept elements but no "
				     "items", key,
				     (unsigned long long)v->v.arr.kept);
			return sum;
		}
		if (v->v.arr.kept > v->v.arr.count ||
		    v->v.arr.kept > QA_KV_KEEP_ELEMENTS)
			fail(in, "key '%s': %llu kept of %llu elements", key,
			     (unsigned long long)v->v.arr.kept,
			     (unsigned long long)v->v.arr.count);
		for (i = 0; i < v->v.arr.kept; i++) {
			if (v->v.arr.items[i].type != v->v.arr.elem)
				fail(in, "key '%s': element %llu has type %d "
				     "in an array of %d", key,
				     (unsigned long long)i,
				     (int)v->v.arr.items[i].type,
				     (int)v->v.arr.elem);
			sum += touch_value(in, key, &v->v.arr.items[i],
					   depth + 1);
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

	sizes = calloc(inv->n_files ? inv->n_files : 1, sizeof(*sizes));
	has_past = calloc(inv->n_files ? inv->n_files : 1, sizeof(*has_past));
	if (!sizes || !has_past)
		abort();
	for (i = 0; i < inv->n_files; i++) {
		enum qa_node_kind kind;
		uint64_t size;

		if (qa_inv_stat(inv, inv->files[i].path, &kind, &size) ==
		    QA_OK && kind == QA_NODE_FILE)
			sizes[i] = size;
	}
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
qa_fuzz_inspect(const char *name, bool unrecognized_ok)
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
	(void)sink;
	qa_audit_free(&audit);
}
