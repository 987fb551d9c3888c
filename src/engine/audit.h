/* SPDX-License-Identifier: MIT */
/*
 * The audit pipeline every command runs:
 *
 *   resolve the path into models -> load each (formats) -> summarize
 *   (analysis) -> fit when asked (fit) -> checks (rules, through the
 *   engine) -> severity overrides -> verdict
 *
 * then a reporter renders the result. `inspect`, `tensors`, `check` and
 * `fit` differ only in the options they pass and the reporter view they
 * pick, so they report the same model facts for the same input.
 */
#ifndef QA_ENGINE_AUDIT_H
#define QA_ENGINE_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "core/inventory.h"
#include "formats/input.h"
#include "fit/fit.h"
#include "rules/check.h"

struct qa_remote;

struct qa_audit_options {
	const struct qa_fs *fs;			/* NULL: the real files */
	/* The HTTP session remote inputs (http://, https://, hf://) are
	 * read through (src/remote/); NULL: they are refused. */
	struct qa_remote *remote;
	struct qa_check_options checks;		/* engine advice, GPUs,
						 * policy */
	const struct qa_overrides *overrides;	/* NULL: none */
	enum qa_severity fail_on;
	const struct qa_fit_options *fit;	/* NULL: no fit step; the
						 * engine is chosen per model
						 * unless QA_FIT_GIVEN_ENGINE */
	const struct qa_resolve_options *resolve;	/* revision, Ollama
							 * stores; NULL none */
	/* A step that reads the tensor data (scan), after loading and
	 * before the fit and the checks, so its findings count in the
	 * verdict; NULL none. QA_OK, or a QA_E_* with err set. */
	int (*data_step)(void *ctx, struct qa_inventory *inv, char *err,
			 size_t errlen);
	void *data_ctx;
	/* --base MODEL: loaded beside each PEFT adapter input while its
	 * checks run (rules/check_adapter.c); NULL none. */
	const char *base_path;
	/* check and fit: an input that is not a model (a LoRA adapter, a
	 * projector, an importance matrix: inv->model_kind) is refused
	 * (QA_E_UNRECOGNIZED, exit 3) with one line saying what it is and
	 * what to do with it, rather than audited as a model. */
	bool models_only;
};

/* One model audited (or not). */
struct qa_audit_input {
	char *path;			/* the input as reports name it */
	struct qa_inventory *inv;	/* NULL when it could not be loaded */
	int status;			/* QA_OK or QA_E_* (load failure, or
					 * QA_E_USAGE: options that do not
					 * suit this model's engine) */
	char error[1024];		/* why, when status != QA_OK */
};

/* A model audited in the run, by the files it was read from: the same
 * model named twice (split parts, shards given one by one) is audited
 * once, even after its inventory is released. */
struct qa_audit_seen {
	char *first_file, *last_file;	/* malloc'd */
	uint32_t n_files;
};

#define QA_AUDIT_MAX_ADVISORIES 16

struct qa_audit {
	struct qa_audit_input *inputs;	/* without a sink: every input */
	size_t n, cap;
	struct qa_audit_seen *seen;
	size_t n_seen, cap_seen;
	/* Setup advisories (engine build on these GPUs), once per run:
	 * for --engine, or llama.cpp when an input is GGUF. Up to
	 * QA_AUDIT_MAX_ADVISORIES, malloc'd (10 KB that would otherwise
	 * sit in every caller's stack frame). */
	struct qa_advisory *advisories;
	size_t n_advisories;
	bool any_gguf;		/* an input was a GGUF model */
};

/*
 * Receives each audited input as soon as it is done, in order: a model
 * (in->inv set) or an input that failed (in->inv NULL, in->status and
 * in->error say why). The sink may take the inventory (set in->inv to
 * NULL and destroy it later); otherwise it is destroyed when the sink
 * returns, so a run over many models holds one at a time. Returns 0, or
 * -1 to stop the run (a write error).
 */
typedef int (*qa_audit_sink)(void *ctx, struct qa_audit_input *in);

/*
 * Audits every path (a path may hold several models: every one is an
 * input). Returns QA_OK, or QA_E_NOMEM when the result list itself could
 * not be built; failures of single inputs are in their status.
 */
int qa_audit_run(const char *const *paths, size_t n_paths,
		 const struct qa_audit_options *opt, struct qa_audit *out);
/*
 * The same, handing each input to sink, then forgetting it: out keeps
 * no inputs (out->n is 0), only the setup advisories, and memory stays
 * flat in the number of inputs. With sink NULL, the same as
 * qa_audit_run. Returns QA_OK, QA_E_NOMEM, or QA_E_IO when the sink
 * stopped the run.
 */
int qa_audit_run_each(const char *const *paths, size_t n_paths,
		      const struct qa_audit_options *opt, qa_audit_sink sink,
		      void *ctx, struct qa_audit *out);
void qa_audit_free(struct qa_audit *a);

/*
 * Loads and summarizes the first model at path, without fit or checks
 * (the loaders' own findings only). For tests and tools. Returns QA_OK
 * with *out set, or a QA_E_* code with a one-line reason in err.
 */
int qa_input_inspect(const char *path, struct qa_inventory **out, char *err,
		     size_t errlen);

#endif /* QA_ENGINE_AUDIT_H */
