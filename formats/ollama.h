/* SPDX-License-Identifier: MIT */
/*
 * Ollama's model store (formats/ollama.c): a manifest under
 * models/manifests/<host>/<namespace>/<model>/<tag> names its layers by
 * media type and sha256 digest, each a blob models/blobs/sha256-<hex>
 * (ollama manifest/manifest.go, manifest/layer.go, manifest/paths.go).
 * What the layers make is one model: the model layer, its projectors,
 * its LoRA adapters, its draft, and the template, system, params,
 * license and messages layers that configure it (server/images.go
 * GetModel, the switch over layer.MediaType).
 */
#ifndef QA_FORMATS_OLLAMA_H
#define QA_FORMATS_OLLAMA_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/input.h"

#define QA_OLLAMA_MAX_SIDE 16

/* One small layer read beside the weights (template, system, params,
 * license, messages): its blob, its digest and its declared size. */
struct qa_ollama_blob {
	char *kind;		/* "template", "system", "params", ... */
	char *path;		/* blobs/sha256-<hex>; NULL: digest unusable */
	char *digest;		/* "sha256:<hex>" as written */
	int64_t size;		/* the layer's "size", -1 absent */
};

/* What a manifest holds besides the weight layers, kept with the model
 * ref (qa_model_ref.ollama) and read when the model is loaded. */
struct qa_ollama_side {
	char *manifest;		/* the manifest's path */
	char *parent;		/* the model layer's "from", or NULL */
	struct qa_ollama_blob side[QA_OLLAMA_MAX_SIDE];
	unsigned n_side;
	unsigned n_projectors, n_adapters, n_drafts;
	/* media types quantaudit does not read, "a, b" (NULL: none) */
	char *unknown;
	/* layers whose blob the store lacks, "kind sha256-..." (NULL) */
	char *missing;
	/* the safetensors layout (x/create): its tensor and json layers,
	 * 0 for a GGUF model; layer names it could not serve ("a, b") */
	unsigned n_tensor_layers, n_json_layers;
	unsigned n_tensor_missing;	/* tensor layers without a blob */
	unsigned n_st_draft_layers;	/* a draft's ("draft." / "draft/") */
	char *bad_names;
};

/*
 * Resolves the manifest at path into its model refs: the model layer
 * (its first projector counted with it), one ref per adapter layer (a
 * GGUF LoRA, base = the model blob) and one per draft layer. Returns
 * QA_E_UNRECOGNIZED without a message when path is not a manifest.
 */
int qa_ollama_resolve_manifest(const struct qa_fs *fs, const char *path,
			       const char *display, struct qa_model_refs *out,
			       char *err, size_t errlen);

/* Reads the side layers of ref into inv after the weights loaded: the
 * Go template (a chat template of Go syntax, structure checked), the
 * system prompt, the params (num_ctx, stop), the licenses; digests of
 * these small blobs verified; findings QA1801-QA1809. */
void qa_ollama_annotate(struct qa_inventory *inv,
			const struct qa_ollama_side *side);

void qa_ollama_side_free(struct qa_ollama_side *side);

/*
 * The safetensors layout of a newer Ollama (formats/ollama_st.c): a
 * manifest of tensor and json layers served as the checkpoint folder
 * they came from, <root>/<layer name> (a tensor layer's name gets
 * ".safetensors"), every other path passed to outer. Reference
 * counted: the ref holds one, an inventory that reads through it
 * another.
 */
struct qa_ollama_vfs;

struct qa_ollama_vfs *qa_ollama_vfs_new(const struct qa_fs *outer,
					const char *root);
/* Serves blob (taken), a file of size bytes when the resolver stat-ed
 * it, as rel; the view's stat and listing answer from that size, so a
 * blob costs one stat and its open. QA_OK or QA_E_NOMEM. */
int qa_ollama_vfs_add(struct qa_ollama_vfs *o, const char *rel, char *blob,
		      uint64_t size);
/* Done adding: the first path named twice, or NULL. */
const char *qa_ollama_vfs_seal(struct qa_ollama_vfs *o);
size_t qa_ollama_vfs_count(const struct qa_ollama_vfs *o);
const struct qa_fs *qa_ollama_vfs_fs(struct qa_ollama_vfs *o);
/* The fs the blobs are read through (the resolver's may not outlive
 * resolution: the loader sets its own). */
void qa_ollama_vfs_set_outer(struct qa_ollama_vfs *o,
			     const struct qa_fs *outer);
const char *qa_ollama_vfs_root(const struct qa_ollama_vfs *o);
struct qa_ollama_vfs *qa_ollama_vfs_ref(struct qa_ollama_vfs *o);
void qa_ollama_vfs_release(struct qa_ollama_vfs *o);
/* Whether a layer name is a plain relative path the folder can hold. */
bool qa_ollama_layer_name_ok(const char *name);

#endif /* QA_FORMATS_OLLAMA_H */
