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

#include <stdbool.h>
#include <stddef.h>

#include "core/inventory.h"
#include "core/confine.h"
#include "core/source.h"

enum qa_ref_kind {
	QA_REF_FILE,		/* a GGUF or safetensors file, part or index */
	QA_REF_HF_DIR,		/* a Hugging Face checkpoint folder */
	QA_REF_ARCHIVE,		/* an archive holding no model, reported for
				 * its findings (formats/archive.h) */
};

struct qa_split_index;
struct qa_archive;
struct qa_ollama_side;
struct qa_ollama_vfs;

/* One model found at a path. Strings are malloc'd (qa_model_refs_free). */
struct qa_format;

struct qa_model_ref {
	enum qa_ref_kind kind;
	char *path;		/* what to load */
	char *display;		/* the input as reports name it */
	char *mmproj;		/* projector GGUF counted with it, or NULL */
	bool mmproj_given;	/* named by --mmproj: read unconfined */
	/* The format the model is stored in when resolution knows it
	 * better than the file does (an Ollama blob is a GGUF of
	 * Ollama's store); QA_FORMAT_UNKNOWN otherwise. */
	enum qa_model_format container;
	char *note;		/* what resolution decided, shown to the
				 * user (e.g. the projector chosen among
				 * several), or NULL */
	/* The split names of the folder it was found in (borrowed from
	 * the refs), so a folder of n split sets is listed once, not once
	 * per set; NULL when the path was given directly. */
	const struct qa_split_index *split_index;
	/* The archive the model is in (one reference, released by
	 * qa_model_refs_free): path and mmproj are then paths of its
	 * members, "<archive>!/<member>"; NULL for files on disk. */
	struct qa_archive *archive;
	/* Read without confinement: --follow-symlinks (core/confine.h).
	 * Otherwise a symbolic link out of the model folder is not
	 * followed but reported (QA1411). */
	bool unconfined;
	/* Entries of the folder it was found in that are symbolic links
	 * out of it, as paths, reported with this model (the first found
	 * in the folder): NUL-separated, ending with an empty string;
	 * NULL when none. */
	char *links_out;
	/* What resolution already found out, so loading does not find it
	 * out again: the real path of the model folder the loader is
	 * confined to (NULL: found when loading), and the format the
	 * file's first bytes showed (NULL: probed when loading). */
	char *root;
	const struct qa_format *format;
	/* An Ollama manifest's side layers (formats/ollama.h), owned; NULL
	 * for other inputs. */
	struct qa_ollama_side *ollama;
	/* An Ollama safetensors model's layers served as a folder (path
	 * is its root; formats/ollama.h), one reference; NULL otherwise. */
	struct qa_ollama_vfs *ollama_vfs;
	/* The base model a GGUF LoRA adapter is checked against (an
	 * Ollama adapter layer's model blob), loaded beside it as --base
	 * is; NULL none. */
	char *base;
	/* A layer of a model given by one name (an Ollama adapter or
	 * draft layer): audited beside it, not placed by fit. */
	bool companion;
	/* The folders resolution listed under root (borrowed from the
	 * refs): loading lists them again from memory, not from disk. */
	const struct qa_dir_memo *listed;
	size_t n_listed;
};

struct qa_model_refs {
	struct qa_model_ref *v;
	size_t n;
	struct qa_split_index *split_index;	/* owned; see above */
	struct qa_arena *listed_arena;		/* owned: the listings */
};

/* Appends a ref of kind for path (taken; NULL fails) named display
 * (path when NULL); NULL when out of memory. formats/refs.c */
struct qa_model_ref *qa_model_refs_add(struct qa_model_refs *refs,
				       enum qa_ref_kind kind, char *path,
				       const char *display);

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
	/* Follow symbolic links out of the model folder (--follow-symlinks);
	 * by default the real file system is confined to it. */
	bool follow_symlinks;
	/* --mmproj FILE: the projector of every model resolved (instead
	 * of the one its folder holds), read where the user put it. */
	const char *mmproj;
};

/*
 * Resolves path on fs into the models it holds (in a stable order).
 * Besides files and folders, path may be a Hugging Face cache repo folder
 * (the snapshot refs/<revision> names), an Ollama manifest file, an
 * Ollama model name found in one of opt's stores (opt may be NULL), or an
 * archive (tar, zip, llamafile, .nemo), whose members resolve as a folder
 * does (descending into a single top folder). On the real file system
 * (fs is qa_fs_default()) reads are confined to the model folder unless
 * opt->follow_symlinks: a symbolic link out of it is not followed
 * (core/confine.h) and is reported by the model it belongs to.
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
