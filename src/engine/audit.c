/* SPDX-License-Identifier: MIT */
/*
 * The audit pipeline (engine/audit.h). Each step reads and adds facts on
 * the inventory; only the checks add findings (besides the loaders'
 * integrity findings), and only after the fit, so the fit check sees the
 * fit.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/audit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "engine/engine.h"
#include "fit/gpuspec.h"
#include "formats/input.h"
#include "remote/remote.h"

static struct qa_audit_input *
add_input(struct qa_audit *a, const char *path)
{
	struct qa_audit_input *v = a->inputs;

	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 8;

		if (cap > SIZE_MAX / sizeof(*v))
			return NULL;
		v = realloc(a->inputs, cap * sizeof(*v));
		if (!v)
			return NULL;
		a->inputs = v;
		a->cap = cap;
	}
	memset(&v[a->n], 0, sizeof(v[a->n]));
	v[a->n].path = strdup(path);
	if (!v[a->n].path)
		return NULL;
	return &v[a->n++];
}

/*
 * Whether inv is a model already audited: the parts of a split set or
 * the shards of a set named one by one (a shell glob) load the same
 * files, and are one model. Otherwise it joins the models seen. Returns
 * 1 for a repeat, 0, or -1 when out of memory.
 */
static int
seen_before(struct qa_audit *a, const struct qa_inventory *inv)
{
	struct qa_audit_seen *m;
	const char *first, *last;
	size_t i;

	if (!inv || inv->n_files == 0)
		return 0;
	first = inv->files[0].path;
	last = inv->files[inv->n_files - 1].path;
	for (i = 0; i < a->n_seen; i++) {
		m = &a->seen[i];
		if (m->n_files == inv->n_files &&
		    strcmp(m->first_file, first) == 0 &&
		    strcmp(m->last_file, last) == 0)
			return 1;
	}
	if (a->n_seen == a->cap_seen) {
		size_t cap = a->cap_seen ? 2 * a->cap_seen : 8;

		if (cap > SIZE_MAX / sizeof(*m))
			return -1;
		m = realloc(a->seen, cap * sizeof(*m));
		if (!m)
			return -1;
		a->seen = m;
		a->cap_seen = cap;
	}
	m = &a->seen[a->n_seen];
	m->first_file = strdup(first);
	m->last_file = strdup(last);
	m->n_files = inv->n_files;
	if (!m->first_file || !m->last_file) {
		free(m->first_file);
		free(m->last_file);
		return -1;
	}
	a->n_seen++;
	return 0;
}

static void
input_release(struct qa_audit_input *in)
{
	free(in->path);
	qa_inventory_destroy(in->inv);
	in->path = NULL;
	in->inv = NULL;
}

/* The fit step: the engine per model unless given, the options that
 * depend on it, then the model. A model that cannot be sized keeps its
 * reason in inv->fit_error for the reporters and the fit check. */
static struct qa_inventory *load_model(const char *path, const char *what,
					const struct qa_audit_options *opt,
					const struct qa_fs *fs, char *err,
					size_t errlen);

static int
fit_step(struct qa_inventory *inv, const struct qa_fit_options *given,
	 const struct qa_audit_options *aopt, char *err, size_t errlen)
{
	struct qa_fit_options opt = *given;
	struct qa_inventory *draft = NULL, *lora[QA_FIT_MAX_LORA] = { 0 };
	unsigned i;
	char why[512];
	int rc;

	if (!(opt.given & QA_FIT_GIVEN_ENGINE))
		opt.engine = qa_fit_default_engine(inv);
	if (qa_fit_validate(&opt, err, errlen) != 0)
		return QA_E_USAGE;
	/* With a draft model --num-speculative-tokens is its -n-max, not
	 * the target's MTP head (unless --mtp says so). */
	if (opt.draft_path && !(opt.given & QA_FIT_GIVEN_MTP))
		opt.mtp = false;
	if (opt.draft_path && !opt.draft) {
		/* --draft: the pair's second model, loaded like an input,
		 * sized beside this one, then let go (the result keeps only
		 * numbers and arena copies). */
		draft = load_model(opt.draft_path, "--draft", aopt, inv->fs,
				   err, errlen);
		if (!draft)
			return QA_E_UNRECOGNIZED;
		opt.draft = draft;
	}
	for (i = 0; i < opt.n_lora && !opt.loras[i]; i++) {
		/* --lora: each adapter, loaded like an input, placed on the
		 * target's devices, then let go */
		lora[i] = load_model(opt.lora_paths[i], "--lora", aopt, inv->fs,
				     err, errlen);
		if (!lora[i]) {
			qa_inventory_destroy(draft);
			while (i > 0)
				qa_inventory_destroy(lora[--i]);
			return QA_E_UNRECOGNIZED;
		}
		opt.loras[i] = lora[i];
	}
	rc = qa_fit_run(inv, &opt, why, sizeof(why));
	qa_inventory_destroy(draft);
	for (i = 0; i < QA_FIT_MAX_LORA; i++)
		qa_inventory_destroy(lora[i]);
	if (rc != 0) {
		if (inv->out_of_memory &&
		    !qa_inventory_limit_finding(inv, "sizing the fit"))
			return QA_E_NOMEM;
		inv->fit_error = qa_arena_strdup(&inv->arena, why);
		inv->fit_engine = opt.engine;
	}
	return QA_OK;
}

/* A second model (the base of a PEFT adapter, --base; a speculative
 * draft, --draft), loaded and summarized like an input; NULL with err
 * set when it cannot be. */
static struct qa_inventory *
load_model(const char *path, const char *what,
	   const struct qa_audit_options *opt, const struct qa_fs *fs,
	   char *err, size_t errlen)
{
	struct qa_model_refs refs = { 0 };
	struct qa_resolve_options ropt;
	struct qa_inventory *base;
	char why[512];

	/* --mmproj is the inputs' projector, not this model's */
	if (opt->resolve)
		ropt = *opt->resolve;
	else
		memset(&ropt, 0, sizeof(ropt));
	ropt.mmproj = NULL;
	if (qa_input_resolve(fs, path, &ropt, &refs, why,
			     sizeof(why)) != QA_OK) {
		snprintf(err, errlen, "%s %s: %s", what, path, why);
		return NULL;
	}
	base = qa_inventory_create(refs.v[0].display);
	if (!base) {
		qa_model_refs_free(&refs);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	base->fs = fs;
	if (qa_input_load(base, &refs.v[0], why, sizeof(why)) != QA_OK) {
		snprintf(err, errlen, "%s %s: %s", what, path, why);
		qa_inventory_destroy(base);
		qa_model_refs_free(&refs);
		return NULL;
	}
	qa_model_refs_free(&refs);
	qa_inventory_summarize(base);
	return base;
}

static void
audit_one(struct qa_audit_input *in, const struct qa_model_ref *ref,
	  const struct qa_audit_options *opt, const struct qa_fs *fs)
{
	struct qa_inventory *inv = qa_inventory_create(ref->display);
	struct qa_inventory *base = NULL;
	int rc;

	if (!inv) {
		in->status = QA_E_NOMEM;
		snprintf(in->error, sizeof(in->error), "out of memory");
		return;
	}
	inv->fs = fs;
	/* Disabled rules are known before anything is found: their
	 * findings must not fill the caps and crowd out the others. */
	inv->overrides = opt->overrides;
	rc = qa_input_load(inv, ref, in->error, sizeof(in->error));
	if (rc == QA_OK) {
		qa_inventory_summarize(inv);
		if (inv->out_of_memory)
			(void)qa_inventory_limit_finding(inv, "summarizing");
		/* A kind that says what it is (GGUF adapters, projectors,
		 * imatrix files) is refused here in its words; others (a PEFT
		 * adapter folder) are refused by the fit step in its own. */
		if (opt->models_only && inv->model_kind != QA_MKIND_MODEL &&
		    inv->model_kind != QA_MKIND_DRAFT &&
		    inv->kind_info.summary) {
			snprintf(in->error, sizeof(in->error),
				 "'%s' is %s, not a model: %s", ref->display,
				 inv->kind_info.summary,
				 inv->kind_info.advice ?
				 inv->kind_info.advice :
				 "quantaudit inspect shows what it holds");
			rc = QA_E_UNRECOGNIZED;
		}
		if (rc == QA_OK && opt->data_step)
			rc = opt->data_step(opt->data_ctx, inv, in->error,
					    sizeof(in->error));
	}
	if (rc == QA_OK) {
		if (opt->fit)
			rc = fit_step(inv, opt->fit, opt, in->error,
				      sizeof(in->error));
	}
	if (rc == QA_OK && opt->base_path && inv->adapter.file) {
		base = load_model(opt->base_path, "--base", opt, fs,
				  in->error,
				 sizeof(in->error));
		if (!base)
			rc = QA_E_UNRECOGNIZED;
		inv->adapter.base = base;
		inv->adapter.base_path = opt->base_path;
	} else if (rc == QA_OK && ref->base &&
		   inv->model_kind == QA_MKIND_ADAPTER) {
		/* an Ollama adapter layer: its model layer is the base */
		base = load_model(ref->base, "the Ollama model layer", opt,
				  fs, in->error, sizeof(in->error));
		if (!base)
			rc = QA_E_UNRECOGNIZED;
		inv->adapter.base = base;
		inv->adapter.base_path = qa_arena_strdup(&inv->arena,
							 ref->base);
	}
	if (rc == QA_OK) {
		qa_checks_run(inv, &opt->checks);
		if (inv->out_of_memory)
			(void)qa_inventory_limit_finding(inv, "checking");
		qa_inventory_apply_overrides(inv, opt->overrides);
		qa_inventory_group_findings(inv);
		inv->verdict = qa_verdict(inv, opt->fail_on);
		if (inv->out_of_memory) {
			rc = QA_E_NOMEM;
			snprintf(in->error, sizeof(in->error),
				 "%s: out of memory", ref->display);
		}
	}
	/* the base was needed by the checks only */
	if (inv->adapter.base) {
		inv->adapter.base = NULL;
		qa_inventory_destroy(base);
	}
	in->status = rc;
	if (rc != QA_OK && rc != QA_E_NOMEM &&
	    qa_remote_last_error(opt->remote)) {
		/* what the server said, not a generic read error */
		snprintf(in->error, sizeof(in->error), "%s",
			 qa_remote_last_error(opt->remote));
		rc = QA_E_IO;
	}
	if (rc != QA_OK) {
		qa_inventory_destroy(inv);
		return;
	}
	in->inv = inv;
}

/* The setup advisories of the run, after the overrides. */
static void
advise(const struct qa_audit_options *opt, struct qa_audit *out)
{
	const char *engine = opt->checks.engine;
	size_t i, j, n;

	if (!engine && out->any_gguf)
		engine = "llama.cpp";
	out->n_advisories = 0;
	if (!out->advisories)
		out->advisories = malloc(QA_AUDIT_MAX_ADVISORIES *
					 sizeof(*out->advisories));
	if (!out->advisories)
		return;		/* out of memory: no advisory */
	n = qa_knowledge_advisories(engine, &opt->checks, out->advisories,
				    QA_AUDIT_MAX_ADVISORIES);
	for (i = 0; i < n; i++) {
		struct qa_advisory a = out->advisories[i];
		bool drop = false;

		for (j = 0; opt->overrides && j < opt->overrides->n; j++) {
			const struct qa_override *o = &opt->overrides->items[j];

			if (o->code != a.rule->code)
				continue;
			drop = o->disabled;
			if (!drop)
				a.severity = o->severity;
		}
		if (!drop)
			out->advisories[out->n_advisories++] = a;
	}
}

/* Hands the input just added to the sink, then forgets it (its
 * inventory too, unless the sink took it). */
static int
deliver(struct qa_audit *out, qa_audit_sink sink, void *ctx)
{
	struct qa_audit_input *in = &out->inputs[out->n - 1];
	int rc;
	if (in->inv && in->inv->kind == QA_KIND_GGUF)
		out->any_gguf = true;
	if (!sink)
		return QA_OK;
	rc = sink(ctx, in);
	input_release(in);
	out->n--;
	return rc == 0 ? QA_OK : QA_E_IO;
}

/*
 * The options with --gpus parsed: opt itself when the caller passed the
 * parsed set (the CLI) or no spec, else a copy in *copy whose gpu_set is
 * *set, parsed here once for the whole run.
 */
static const struct qa_audit_options *
gpus_parsed_once(const struct qa_audit_options *opt,
		 struct qa_audit_options *copy, struct qa_gpu_set *set)
{
	char err[256];

	if (opt->checks.gpu_set || !opt->checks.gpus)
		return opt;
	*copy = *opt;
	if (qa_gpuspec_parse(opt->checks.gpus, set, err, sizeof(err)) == 0)
		copy->checks.gpu_set = set;
	return copy;
}

int
qa_audit_run_each(const char *const *paths, size_t n_paths,
		  const struct qa_audit_options *opt, qa_audit_sink sink,
		  void *ctx, struct qa_audit *out)
{
	struct qa_audit_options with_set;
	struct qa_gpu_set set;
	const struct qa_fs *fs = opt->fs ? opt->fs : qa_fs_default();
	size_t i, k;
	int rc;

	opt = gpus_parsed_once(opt, &with_set, &set);

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n_paths; i++) {
		const struct qa_fs *pfs = fs;
		struct qa_model_refs refs;
		char *url = NULL;
		char err[1024];

		qa_remote_clear_error(opt->remote);
		if (qa_remote_is_url(paths[i])) {
			/* read over HTTP through the run's session */
			if (!opt->remote) {
				snprintf(err, sizeof(err), "'%s': remote "
					 "inputs are not available in this "
					 "run", paths[i]);
				rc = QA_E_USAGE;
			} else {
				rc = qa_remote_locate(opt->remote, paths[i],
						      &url, err, sizeof(err));
				pfs = qa_remote_fs(opt->remote);
			}
		} else {
			rc = QA_OK;
		}
		if (rc == QA_OK)
			/* a URL is no Ollama name nor cache repo: no
			 * lookups beyond it */
			rc = qa_input_resolve(pfs, url ? url : paths[i],
					      url ? NULL : opt->resolve,
					      &refs, err, sizeof(err));
		free(url);
		if (rc != QA_OK && rc != QA_E_NOMEM &&
		    qa_remote_last_error(opt->remote)) {
			/* what the server said; a read error (exit 4) */
			snprintf(err, sizeof(err), "%s",
				 qa_remote_last_error(opt->remote));
			rc = QA_E_IO;
		}
		if (rc != QA_OK) {
			struct qa_audit_input *in = add_input(out, paths[i]);

			if (!in)
				return QA_E_NOMEM;
			in->status = rc;
			snprintf(in->error, sizeof(in->error), "%s", err);
			rc = deliver(out, sink, ctx);
			if (rc != QA_OK)
				return rc;
			continue;
		}
		for (k = 0; k < refs.n; k++) {
			struct qa_audit_input *in;
			int seen;

			/* fit places the model; an Ollama model's adapter
			 * and draft layers are audited by check and
			 * inspect, named by the model's QA1801 */
			if (opt->models_only && refs.v[k].companion)
				continue;
			in = add_input(out, refs.v[k].display);
			rc = QA_OK;
			if (!in) {
				rc = QA_E_NOMEM;
				break;
			}
			qa_remote_clear_error(opt->remote);
			audit_one(in, &refs.v[k], opt, pfs);
			seen = seen_before(out, in->inv);
			if (seen != 0) {
				input_release(in);
				out->n--;
				if (seen < 0) {
					rc = QA_E_NOMEM;
					break;
				}
				continue;
			}
			rc = deliver(out, sink, ctx);
			if (rc != QA_OK)
				break;
		}
		qa_model_refs_free(&refs);
		if (rc != QA_OK)
			return rc;
	}
	advise(opt, out);
	return QA_OK;
}

int
qa_audit_run(const char *const *paths, size_t n_paths,
	     const struct qa_audit_options *opt, struct qa_audit *out)
{
	return qa_audit_run_each(paths, n_paths, opt, NULL, NULL, out);
}

void
qa_audit_free(struct qa_audit *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++)
		input_release(&a->inputs[i]);
	for (i = 0; i < a->n_seen; i++) {
		free(a->seen[i].first_file);
		free(a->seen[i].last_file);
	}
	free(a->inputs);
	free(a->seen);
	free(a->advisories);
	a->inputs = NULL;
	a->seen = NULL;
	a->advisories = NULL;
	a->n_advisories = 0;
	a->n = a->cap = a->n_seen = a->cap_seen = 0;
}

int
qa_input_inspect(const char *path, struct qa_inventory **out, char *err,
		 size_t errlen)
{
	struct qa_model_refs refs;
	struct qa_inventory *inv;
	int rc;

	*out = NULL;
	rc = qa_input_resolve(qa_fs_default(), path, NULL, &refs, err,
			      errlen);
	if (rc != QA_OK)
		return rc;
	inv = qa_inventory_create(refs.v[0].display);
	if (!inv) {
		qa_model_refs_free(&refs);
		snprintf(err, errlen, "out of memory");
		return QA_E_NOMEM;
	}
	rc = qa_input_load(inv, &refs.v[0], err, errlen);
	qa_model_refs_free(&refs);
	if (rc == QA_OK) {
		qa_inventory_summarize(inv);
		if (inv->out_of_memory) {
			rc = QA_E_NOMEM;
			snprintf(err, errlen, "%s: out of memory", path);
		}
	}
	if (rc != QA_OK) {
		qa_inventory_destroy(inv);
		return rc;
	}
	*out = inv;
	return QA_OK;
}
