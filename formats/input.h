/* SPDX-License-Identifier: MIT */
/*
 * The input driver: what a path holds and how to load it.
 *
 * Resolution turns a path into the models it holds: a file is one model
 * (a GGUF split part or a numbered shard stands for its whole set); a
 * Hugging Face checkpoint folder is one model; a folder of GGUF files
 * holds one model per GGUF file or split set, with the mmproj projector
 * beside them counted with each; a folder may hold both. Loading fills
 * one inventory per model through the format table (formats/format.h).
 * Neither step derives summaries or runs checks: that is the pipeline's
 * (src/engine/audit.c).
 */
#ifndef QA_FORMATS_INPUT_H
#define QA_FORMATS_INPUT_H

#include <stddef.h>

#include "core/inventory.h"
#include "core/source.h"

enum qa_ref_kind {
	QA_REF_FILE,		/* a GGUF or safetensors file, part or index */
	QA_REF_HF_DIR,		/* a Hugging Face checkpoint folder */
};

/* One model found at a path. Strings are malloc'd (qa_model_refs_free). */
struct qa_model_ref {
	enum qa_ref_kind kind;
	char *path;		/* what to load */
	char *display;		/* the input as reports name it */
	char *mmproj;		/* projector GGUF counted with it, or NULL */
	char *note;		/* what resolution decided, shown to the
				 * user (e.g. the projector chosen among
				 * several), or NULL */
};

struct qa_model_refs {
	struct qa_model_ref *v;
	size_t n;
};

/* Where names that are not paths are looked up, and which revision. */
struct qa_resolve_options {
	/* Hugging Face cache repo folders (models--org--name): the branch,
	 * tag or commit to read; NULL for "main". */
	const char *revision;
	/* Ollama model stores to look "name[:tag]" up in, in order (the
	 * CLI passes $OLLAMA_MODELS, ~/.ollama/models and the Linux
	 * service's /usr/share/ollama/.ollama/models). */
	const char *const *ollama_roots;
	size_t n_ollama_roots;
};

/*
 * Resolves path on fs into the models it holds (in a stable order).
 * Besides files and folders, path may be a Hugging Face cache repo folder
 * (the snapshot refs/<revision> names), an Ollama manifest file, or an
 * Ollama model name found in one of opt's stores (opt may be NULL).
 * Returns QA_OK with out->n >= 1, or QA_E_UNRECOGNIZED (nothing to audit,
 * including an Ollama name no store holds: exit 3), QA_E_IO (exit 4),
 * QA_E_USAGE ("-": exit 2) or QA_E_NOMEM, with a one-line diagnostic in
 * err naming the path and what it is.
 */
int qa_input_resolve(const struct qa_fs *fs, const char *path,
		     const struct qa_resolve_options *opt,
		     struct qa_model_refs *out, char *err, size_t errlen);
void qa_model_refs_free(struct qa_model_refs *refs);

/*
 * Loads the model ref into inv (created for ref->display, inv->fs set).
 * On QA_OK the inventory holds the files, tensors, metadata, hparams, side
 * facts and findings of the model; otherwise err says why. A weight file
 * of the model that is a Git LFS pointer, an HTML page or empty is
 * QA_E_UNRECOGNIZED (exit 3), not a damaged header.
 */
int qa_input_load(struct qa_inventory *inv, const struct qa_model_ref *ref,
		  char *err, size_t errlen);

#endif /* QA_FORMATS_INPUT_H */
