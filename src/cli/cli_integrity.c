/* SPDX-License-Identifier: MIT */
/*
 * `hash` and `verify` on the command line (cli_integrity.h): models read
 * through the audit pipeline (every input kind inspect reads), hashed by
 * src/integrity/, the manifest written (gzip when its name ends in .gz)
 * or the verify report; a progress line on stderr when it is a terminal
 * and the run passes a second.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli_integrity.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/escape.h"
#include "core/units.h"
#include "integrity/content.h"
#include "integrity/libs.h"
#include "integrity/manifest.h"
#include "integrity/verify.h"
#include "integrity/scan.h"
#include "compare/diff.h"
#include "compare/compare.h"
#include "core/json_file.h"
#include "report/report_compare.h"
#include "report/report_diff.h"
#include "report/report_integrity.h"

#define say qa_cli_say

/* ---- progress ----------------------------------------------------------- */

struct progress {
	const char *what;	/* escaped */
	struct timespec start;
	bool tty, shown;
};

static double
seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void
progress_start(struct progress *p, const char *what, bool quiet)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->tty = !quiet && isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void
on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	double s = seconds_since(&p->start);
	char d[32], t[32];

	if (!p->tty || s < 1.0 || total == 0)
		return;
	qa_fmt_bytes(d, sizeof(d), done);
	qa_fmt_bytes(t, sizeof(t), total);
	fprintf(stderr, "\r%s: %3u%%  %s of %s  %.0f MB/s ", p->what,
		(unsigned)(done * 100 / total), d, t, (double)done / s / 1e6);
	p->shown = true;
}

static void
progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

/* ---- hash --------------------------------------------------------------- */

struct hash_run {
	const struct qa_cli_integrity *o;
	struct qa_jw *w;
	int worst;
	size_t models;
	uint64_t bytes;
};

/* Says, for at most ten regions, why they have no hash. */
static void
say_unhashed(const char *path, const struct qa_content *c)
{
	unsigned shown = 0, more = 0;
	uint32_t i;

	for (i = 0; i < c->n_files; i++) {
		const struct qa_file_hash *f = &c->files[i];

		if (f->open_errno) {
			if (shown++ < 10)
				say("%s: %s cannot be opened: %s", path,
				    f->path, strerror(f->open_errno));
			else
				more++;
		}
	}
	for (i = 0; i < c->n_tensors; i++) {
		const struct qa_tensor_hash *t = &c->tensors[i];

		if (t->h.state == QA_REGION_HASHED ||
		    t->h.state == QA_REGION_NO_FILE)
			continue;
		if (shown++ >= 10) {
			more++;
			continue;
		}
		if (t->h.state == QA_REGION_READ_ERROR)
			say("%s: tensor %s not hashed: read error at offset %"
			    PRIu64 " of %s: %s", path, t->name,
			    t->h.error_offset, c->files[t->file].path,
			    strerror(t->h.error_errno));
		else
			say("%s: tensor %s not hashed: %s (%s ends at offset %"
			    PRIu64 ")", path, t->name,
			    qa_region_state_text(t->h.state),
			    c->files[t->file].path, t->h.error_offset);
	}
	if (more)
		say("%s: %u more regions not hashed (the manifest lists "
		    "them)", path, more);
}

static int
hash_input(void *ctx, struct qa_audit_input *in)
{
	struct hash_run *h = ctx;
	struct qa_content c;
	struct qa_content_options copt;
	struct progress prog;
	char err[512], *what;
	uint32_t i;
	int rc;

	if (!in->inv) {
		say("%s", in->error);
		if (qa_cli_exit_of(in->status) > h->worst)
			h->worst = qa_cli_exit_of(in->status);
		return 0;
	}
	if (qa_content_plan(in->inv, &c) != QA_OK) {
		say("%s: out of memory", in->path);
		h->worst = QA_EXIT_SYSTEM;
		return -1;
	}
	memset(&copt, 0, sizeof(copt));
	copt.jobs = h->o->jobs;
	copt.sha256 = h->o->sha256;
	what = qa_esc_text_dup(in->path);
	progress_start(&prog, what ? what : "hashing", h->o->quiet);
	copt.progress = on_progress;
	copt.progress_ctx = &prog;
	rc = qa_content_hash(qa_content_fs(in->inv), &in->inv->arena, &copt,
			     &c, err, sizeof(err));
	progress_end(&prog);
	free(what);
	if (rc != QA_OK) {
		say("%s: %s", in->path, err);
		h->worst = QA_EXIT_SYSTEM;
		return -1;
	}
	qa_manifest_model(h->w, in->path, qa_inv_kind_name(in->inv->kind), &c);
	h->models++;
	h->bytes += c.bytes_hashed;
	if (c.n_unhashed) {
		if (!h->o->quiet)
			say_unhashed(in->path, &c);
		for (i = 0; i < c.n_tensors; i++)
			if (c.tensors[i].h.state == QA_REGION_READ_ERROR)
				h->worst = QA_EXIT_SYSTEM;
		for (i = 0; i < c.n_files; i++)
			if (c.files[i].header.state == QA_REGION_READ_ERROR ||
			    c.files[i].other.state == QA_REGION_READ_ERROR ||
			    c.files[i].open_errno)
				h->worst = QA_EXIT_SYSTEM;
		if (h->worst < QA_EXIT_FAIL)
			h->worst = QA_EXIT_FAIL;
	}
	return h->w->failed ? -1 : 0;
}

/* Writes the manifest text to path, through gzip when it ends in .gz
 * (zlib loaded for it). */
static int
put_file(const char *path, const char *text, size_t len, char *err,
	 size_t errlen)
{
	size_t n = strlen(path);

	if (n > 3 && strcmp(path + n - 3, ".gz") == 0) {
		const struct qa_zlib *z = qa_zlib_load(err, errlen);
		gzFile gz;
		size_t at = 0;

		if (!z)
			return -1;
		/* gzopen writes no file name and no time into the gzip
		 * header: the same manifest compresses to the same bytes. */
		gz = z->open(path, "wb9");
		if (!gz)
			goto sys;
		while (at < len) {
			unsigned chunk = len - at > (1u << 30) ? 1u << 30 :
					 (unsigned)(len - at);

			if (z->write(gz, text + at, chunk) != (int)chunk) {
				z->close(gz);
				goto sys;
			}
			at += chunk;
		}
		if (z->close(gz) != Z_OK)
			goto sys;
		return 0;
	} else {
		FILE *f = fopen(path, "w");
		int rc = 0;

		if (!f)
			goto sys;
		if (fwrite(text, 1, len, f) != len)
			rc = -1;
		if (fclose(f) != 0)
			rc = -1;
		if (rc == 0)
			return 0;
	}
sys:
	snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
	return -1;
}

int
qa_cli_hash(const struct qa_cli_integrity *o, char **paths, int n_paths)
{
	struct hash_run h;
	struct qa_audit audit;
	struct timespec start;
	struct qa_jw *w;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int rc;

	w = malloc(sizeof(*w));
	mem = o->output ? open_memstream(&text, &len) : stdout;
	if (!w || !mem) {
		free(w);
		say("out of memory");
		return QA_EXIT_SYSTEM;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	memset(&h, 0, sizeof(h));
	h.o = o;
	h.w = w;
	qa_jw_init(w, mem);
	qa_manifest_begin(w, o->sha256);
	rc = qa_audit_run_each((const char *const *)paths, (size_t)n_paths,
			       o->audit, hash_input, &h, &audit);
	qa_audit_free(&audit);
	qa_manifest_end(w);
	if (qa_jw_finish(w) != 0 || fflush(mem) != 0 || ferror(mem))
		rc = QA_E_IO;
	free(w);
	if (o->output) {
		fclose(mem);
		char err[256];

		if (rc == QA_OK &&
		    put_file(o->output, text, len, err, sizeof(err)) != 0) {
			say("cannot write the manifest '%s': %s", o->output,
			    err);
			h.worst = QA_EXIT_SYSTEM;
			rc = QA_E_IO;
		}
		free(text);
	}
	if (rc != QA_OK) {
		if (rc == QA_E_NOMEM)
			say("out of memory");
		else if (h.worst < QA_EXIT_SYSTEM)
			say("error writing the manifest");
		return QA_EXIT_SYSTEM;
	}
	if (!o->quiet && o->output) {
		double s = seconds_since(&start);
		char b[32];

		qa_fmt_bytes(b, sizeof(b), h.bytes);
		fprintf(stderr, "quantaudit: %zu model%s, %s hashed in %.2f s "
			"(%.0f MB/s) -> ", h.models, h.models == 1 ? "" : "s",
			b, s, s > 0 ? (double)h.bytes / s / 1e6 : 0.0);
		qa_esc_text(stderr, o->output);
		fputc('\n', stderr);
	}
	return h.models == 0 && h.worst == QA_EXIT_PASS ?
	       QA_EXIT_UNRECOGNIZED : h.worst;
}

/* ---- verify ------------------------------------------------------------- */

struct verify_models {
	struct qa_inventory **invs;
	size_t n, cap;
	char why[1024];
	int status;		/* of the first input that failed */
};

static int
keep_model(void *ctx, struct qa_audit_input *in)
{
	struct verify_models *vm = ctx;

	if (!in->inv) {
		if (!vm->why[0]) {
			snprintf(vm->why, sizeof(vm->why), "%s", in->error);
			vm->status = in->status;
		}
		return 0;
	}
	if (vm->n == vm->cap) {
		size_t cap = vm->cap ? vm->cap * 2 : 4;
		struct qa_inventory **n = realloc(vm->invs,
						  cap * sizeof(*n));

		if (!n)
			return -1;
		vm->invs = n;
		vm->cap = cap;
	}
	vm->invs[vm->n++] = in->inv;
	in->inv = NULL;		/* kept: destroyed by the caller */
	return 0;
}

int
qa_cli_verify(const struct qa_cli_integrity *o, const char *path,
	      const char *manifest)
{
	struct qa_manifest m;
	struct verify_models vm;
	struct qa_audit audit;
	struct qa_verify v;
	struct qa_content_options copt;
	struct progress prog;
	const char *paths[1] = { path };
	char err[1024], *what;
	FILE *out = stdout;
	size_t i;
	int rc, exit_code;

	rc = qa_manifest_read(manifest, &m, err, sizeof(err));
	if (rc != QA_OK) {
		say("%s", err);
		qa_manifest_free(&m);
		return rc == QA_E_UNRECOGNIZED ? QA_EXIT_UNRECOGNIZED :
		       QA_EXIT_SYSTEM;
	}
	memset(&vm, 0, sizeof(vm));
	if (qa_audit_run_each(paths, 1, o->audit, keep_model, &vm, &audit) !=
	    QA_OK) {
		qa_audit_free(&audit);
		say("out of memory");
		exit_code = QA_EXIT_SYSTEM;
		goto out;
	}
	qa_audit_free(&audit);
	memset(&copt, 0, sizeof(copt));
	copt.jobs = o->jobs;
	what = qa_esc_text_dup(path);
	progress_start(&prog, what ? what : "verifying", o->quiet);
	copt.progress = on_progress;
	copt.progress_ctx = &prog;
	rc = qa_verify_run(path, vm.invs, vm.n, vm.why, &m, &copt, &v, err,
			   sizeof(err));
	progress_end(&prog);
	free(what);
	if (rc != QA_OK) {
		say("%s", err);
		qa_verify_free(&v);
		exit_code = QA_EXIT_SYSTEM;
		goto out;
	}
	if (o->output && !(out = fopen(o->output, "w"))) {
		say("cannot write '%s': %s", o->output, strerror(errno));
		qa_verify_free(&v);
		exit_code = QA_EXIT_SYSTEM;
		goto out;
	}
	rc = o->json ? qa_report_verify_json(out, path, manifest, &v) :
	     qa_report_verify_text(out, path, manifest, &v);
	if (fflush(out) != 0)
		rc = -1;
	if (out != stdout && fclose(out) != 0)
		rc = -1;
	exit_code = rc != 0 ? QA_EXIT_SYSTEM :
		    v.n_differences ? QA_EXIT_FAIL : QA_EXIT_PASS;
	qa_verify_free(&v);
out:
	for (i = 0; i < vm.n; i++)
		qa_inventory_destroy(vm.invs[i]);
	free(vm.invs);
	qa_manifest_free(&m);
	return exit_code;
}

/* ---- diff --------------------------------------------------------------- */

/* The one model at path; NULL with *exit_code when there is none or
 * more than one. */
static struct qa_inventory *
one_model(const struct qa_cli_integrity *o, const char *path, int *exit_code)
{
	struct verify_models vm;
	struct qa_audit audit;
	const char *paths[1] = { path };
	struct qa_inventory *inv = NULL;
	size_t i;

	memset(&vm, 0, sizeof(vm));
	if (qa_audit_run_each(paths, 1, o->audit, keep_model, &vm, &audit) !=
	    QA_OK) {
		say("out of memory");
		*exit_code = QA_EXIT_SYSTEM;
	} else if (vm.n == 0) {
		say("%s", vm.why[0] ? vm.why : "no model found");
		*exit_code = vm.status ? qa_cli_exit_of(vm.status) :
			     QA_EXIT_UNRECOGNIZED;
	} else if (vm.n > 1) {
		say("%s holds %zu models: diff compares two models, name one "
		    "file or set on each side", path, vm.n);
		*exit_code = QA_EXIT_USAGE;
	} else {
		inv = vm.invs[0];
		vm.invs[0] = NULL;
	}
	qa_audit_free(&audit);
	for (i = 0; i < vm.n; i++)
		qa_inventory_destroy(vm.invs[i]);
	free(vm.invs);
	return inv;
}

static int
content_of(const struct qa_cli_integrity *o, struct qa_inventory *inv,
	   struct qa_content *c)
{
	struct qa_content_options copt;
	struct progress prog;
	char err[512], *what;
	int rc;

	if (qa_content_plan(inv, c) != QA_OK) {
		say("out of memory");
		return QA_EXIT_SYSTEM;
	}
	memset(&copt, 0, sizeof(copt));
	copt.jobs = o->jobs;
	what = qa_esc_text_dup(inv->path);
	progress_start(&prog, what ? what : "hashing", o->quiet);
	copt.progress = on_progress;
	copt.progress_ctx = &prog;
	rc = qa_content_hash(qa_content_fs(inv), &inv->arena, &copt, c, err,
			     sizeof(err));
	progress_end(&prog);
	free(what);
	if (rc != QA_OK) {
		say("%s: %s", inv->path, err);
		return QA_EXIT_SYSTEM;
	}
	if (c->n_unhashed && !o->quiet)
		say_unhashed(inv->path, c);
	return QA_EXIT_PASS;
}

/* config.json of inv, read again through its file system; NULL when it
 * has none or it does not parse (the audit reported that). */
static cJSON *
config_of(const struct qa_inventory *inv)
{
	struct qa_source src;
	cJSON *doc;

	if (!inv->config_file || qa_inv_open(inv, inv->config_file, &src) !=
	    QA_OK)
		return NULL;
	doc = qa_json_read_source(&src, QA_JSON_SIDE_MAX, NULL);
	qa_source_close(&src);
	return doc;
}

/* The config.json keys of both, when both have one. */
static int
diff_configs(const struct qa_inventory *a, const struct qa_inventory *b,
	     struct qa_diff *d)
{
	cJSON *ca = config_of(a), *cb = ca ? config_of(b) : NULL;
	int rc = QA_OK;

	if (ca && cb)
		rc = qa_diff_config(d, ca, cb);
	cJSON_Delete(ca);
	cJSON_Delete(cb);
	return rc;
}

int
qa_cli_diff(const struct qa_cli_integrity *o, const char *a, const char *b)
{
	struct qa_inventory *ia, *ib = NULL;
	struct qa_content ca, cb;
	struct qa_diff d;
	FILE *out = stdout;
	int exit_code = QA_EXIT_PASS, rc;

	ia = one_model(o, a, &exit_code);
	if (ia)
		ib = one_model(o, b, &exit_code);
	if (!ia || !ib)
		goto out;
	if (o->content &&
	    ((exit_code = content_of(o, ia, &ca)) != QA_EXIT_PASS ||
	     (exit_code = content_of(o, ib, &cb)) != QA_EXIT_PASS))
		goto out;
	if (qa_diff_run(ia, ib, o->content ? &ca : NULL,
			o->content ? &cb : NULL, &d) != QA_OK ||
	    diff_configs(ia, ib, &d) != QA_OK) {
		say("out of memory");
		qa_diff_free(&d);
		exit_code = QA_EXIT_SYSTEM;
		goto out;
	}
	if (o->output && !(out = fopen(o->output, "w"))) {
		say("cannot write '%s': %s", o->output, strerror(errno));
		qa_diff_free(&d);
		exit_code = QA_EXIT_SYSTEM;
		goto out;
	}
	rc = strcmp(o->format, "json") == 0 ? qa_report_diff_json(out, &d) :
	     strcmp(o->format, "markdown") == 0 ?
	     qa_report_diff_markdown(out, &d) :
	     strcmp(o->format, "html") == 0 ? qa_report_diff_html(out, &d) :
	     qa_report_diff_text(out, &d);
	if (fflush(out) != 0)
		rc = -1;
	if (out != stdout && fclose(out) != 0)
		rc = -1;
	exit_code = rc != 0 ? QA_EXIT_SYSTEM :
		    qa_diff_differs(&d) ? QA_EXIT_FAIL : QA_EXIT_PASS;
	qa_diff_free(&d);
out:
	qa_inventory_destroy(ia);
	qa_inventory_destroy(ib);
	return exit_code;
}

/* ---- compare ------------------------------------------------------------ */

int
qa_cli_compare(const struct qa_cli_integrity *o, const char *quant,
	       const char *source)
{
	struct qa_inventory *iq, *is = NULL;
	struct qa_compare_options copt;
	struct qa_compare c;
	FILE *out = stdout;
	int exit_code = QA_EXIT_PASS, rc;
	uint32_t i, over = 0;

	iq = one_model(o, quant, &exit_code);
	if (iq)
		is = one_model(o, source, &exit_code);
	if (!iq || !is)
		goto out;
	memset(&copt, 0, sizeof(copt));
	copt.jobs = o->jobs;
	if (qa_compare_run(iq, is, &copt, &c) != QA_OK) {
		say("out of memory");
		exit_code = QA_EXIT_SYSTEM;
		goto out;
	}
	if (o->output && !(out = fopen(o->output, "w"))) {
		say("cannot write '%s': %s", o->output, strerror(errno));
		qa_compare_free(&c);
		exit_code = QA_EXIT_SYSTEM;
		goto out;
	}
	rc = strcmp(o->format, "json") == 0 ?
	     qa_report_compare_json(out, &c, o->max_rel_error) :
	     strcmp(o->format, "markdown") == 0 ?
	     qa_report_compare_markdown(out, &c, o->max_rel_error) :
	     qa_report_compare_text(out, &c, o->max_rel_error);
	if (fflush(out) != 0)
		rc = -1;
	if (out != stdout && fclose(out) != 0)
		rc = -1;
	for (i = 0; i < c.n_tensors; i++)
		if (o->max_rel_error > 0 &&
		    c.tensors[i].state == QA_CMP_COMPARED &&
		    c.tensors[i].rel_rms > o->max_rel_error)
			over++;
	/* Nothing compared is no verdict: it says so (exit 1, not 0). */
	exit_code = rc != 0 ? QA_EXIT_SYSTEM :
		    c.flagged || over || c.compared == 0 ? QA_EXIT_FAIL :
		    QA_EXIT_PASS;
	if (!o->quiet && c.not_compared)
		say("%u tensor%s of %s not compared (see the report)",
		    c.not_compared, c.not_compared == 1 ? "" : "s", quant);
	qa_compare_free(&c);
out:
	qa_inventory_destroy(iq);
	qa_inventory_destroy(is);
	return exit_code;
}

/* ---- scan --------------------------------------------------------------- */

int
qa_cli_scan_step(void *ctx, struct qa_inventory *inv, char *err,
		 size_t errlen)
{
	const struct qa_cli_integrity *o = ctx;
	struct qa_content_options copt;
	struct qa_scan_totals tot;
	struct progress prog;
	char *what, b[32];
	int rc;

	memset(&copt, 0, sizeof(copt));
	copt.jobs = o->jobs;
	what = qa_esc_text_dup(inv->path);
	progress_start(&prog, what ? what : "scanning", o->quiet);
	copt.progress = on_progress;
	copt.progress_ctx = &prog;
	rc = qa_scan_run(inv, &copt, &tot, err, errlen);
	progress_end(&prog);
	free(what);
	if (rc != QA_OK)
		return rc;
	/* What the verdict rests on: which tensors were read, and how. */
	if (!o->quiet) {
		qa_fmt_bytes(b, sizeof(b), tot.bytes);
		say("%s: scanned %u tensor%s (%s): %u by value, %u by block "
		    "scale, %u for constant bytes only; %u not readable",
		    inv->path, tot.tensors, tot.tensors == 1 ? "" : "s", b,
		    tot.by_value, tot.by_scale, tot.bytes_only, tot.unread);
	}
	return QA_OK;
}
