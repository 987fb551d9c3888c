/* SPDX-License-Identifier: MIT */
/*
 * Ollama models (formats/ollama.h), read as Ollama reads them
 * (ollama/ollama at fb307609, 2026-08-21):
 *
 *   manifest/manifest.go l.16-21   {schemaVersion, mediaType, config,
 *                                  layers[{mediaType, digest, size,
 *                                  from, name}]}
 *   manifest/paths.go l.40         blobs/sha256-<hex> for "sha256:<hex>"
 *   server/images.go l.711-790     GetModel: per layer media type
 *     application/vnd.ollama.image.model      the GGUF model (from: its
 *                                             parent model)
 *     application/vnd.ollama.image.draft      the draft model
 *                                             (manifest/layer.go l.23)
 *     application/vnd.ollama.image.adapter    a LoRA adapter, many
 *     application/vnd.ollama.image.projector  a projector, many
 *     application/vnd.ollama.image.template   a Go text/template
 *       (and the older .prompt)               (template.Parse; a parse
 *                                             error fails GetModel)
 *     application/vnd.ollama.image.system     the system prompt
 *     application/vnd.ollama.image.params     JSON options (api/types.go
 *                                             Options: stop l.584,
 *                                             Runner num_ctx l.589),
 *                                             decoded by json.Decoder: a
 *                                             bad one fails GetModel
 *     application/vnd.ollama.image.messages   JSON messages
 *     application/vnd.ollama.image.license    license text, many
 *     application/vnd.ollama.image.embed      deprecated, ignored
 *   server/create.go l.1314-1416   the writers of template, system,
 *                                  license, params and messages layers
 *
 * Every small layer's blob is read whole and its sha256 compared with
 * its digest (manifest/layer.go NewLayer names the blob by it); the
 * weight blobs are not hashed here (that is `verify`'s job).
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/ollama.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gguf_keys.h"
#include "core/json_file.h"
#include "core/secrets.h"
#include "core/sha256.h"

#define MT_PREFIX "application/vnd.ollama.image."
/* Small layers are read up to this; a template up to the template
 * bound. */
#define SIDE_MAX ((uint64_t)1 << 20)
#define MAX_STOPS 32

static bool
is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* The models folder of a manifest path: the parent of the "manifests"
 * folder it lies under (manifest/paths.go). */
static char *
root_of(const char *manifest)
{
	const char *m = strstr(manifest, "/manifests/");

	if (m)
		return strndup(manifest, (size_t)(m - manifest));
	if (strncmp(manifest, "manifests/", 10) == 0)
		return strdup(".");
	return NULL;
}

/* blobs/sha256-<hex> for a digest "sha256:<hex>" (manifest/paths.go
 * BlobsPath); NULL for any other form. */
static char *
blob_path(const char *root, const char *digest)
{
	char *p;

	if (!root || !digest || strncmp(digest, "sha256:", 7) != 0 ||
	    strlen(digest) != 7 + 64 || !is_hex(digest + 7, 64))
		return NULL;
	p = malloc(strlen(root) + 80);
	if (p)
		sprintf(p, "%s/blobs/sha256-%s", root, digest + 7);
	return p;
}

static bool
is_file(const struct qa_fs *fs, const char *path)
{
	enum qa_node_kind kind = QA_NODE_MISSING;
	uint64_t size;
	int e;

	if (!path)
		return false;
	fs->stat(fs, path, &kind, &size, &e);
	return kind == QA_NODE_FILE || kind == QA_NODE_OUTSIDE;
}

/* is_file, and its size from the same stat: the layer's one stat (the
 * folder view answers stat and listing from it, issue 31: at most two
 * calls per shard, this and the open). */
static bool
file_size(const struct qa_fs *fs, const char *path, uint64_t *size)
{
	enum qa_node_kind kind = QA_NODE_MISSING;
	int e;

	*size = 0;
	if (!path)
		return false;
	fs->stat(fs, path, &kind, size, &e);
	return kind == QA_NODE_FILE;
}

/* Appends "s" to a ", "-separated list (malloc'd). */
static void
list_add(char **list, const char *s)
{
	size_t n = *list ? strlen(*list) : 0;
	char *p;

	if (n > 900)
		return;
	p = realloc(*list, n + strlen(s) + 3);
	if (!p)
		return;
	sprintf(p + n, "%s%s", n ? ", " : "", s);
	*list = p;
}

void
qa_ollama_side_free(struct qa_ollama_side *side)
{
	unsigned i;

	if (!side)
		return;
	for (i = 0; i < side->n_side; i++) {
		free(side->side[i].kind);
		free(side->side[i].path);
		free(side->side[i].digest);
	}
	free(side->manifest);
	free(side->parent);
	free(side->unknown);
	free(side->missing);
	free(side->bad_names);
	free(side);
}

static const char *
str_of(const cJSON *v)
{
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void
side_add(struct qa_ollama_side *s, const char *kind, char *path,
	 const char *digest, const cJSON *size)
{
	struct qa_ollama_blob *b;

	if (s->n_side == QA_OLLAMA_MAX_SIDE) {
		free(path);
		return;
	}
	b = &s->side[s->n_side++];
	b->kind = strdup(kind);
	b->path = path;
	b->digest = digest ? strdup(digest) : NULL;
	b->size = cJSON_IsNumber(size) && size->valuedouble >= 0 &&
		  size->valuedouble < 9e15 ? (int64_t)size->valuedouble : -1;
}

/* A weight layer's ref: the model, an adapter (base: the model blob),
 * a draft. */
static struct qa_model_ref *
weight_ref(struct qa_model_refs *out, char *blob, const char *display,
	   const char *what)
{
	struct qa_model_ref *r = qa_model_refs_add(out, QA_REF_FILE,
						   blob, display);
	char note[512];

	if (!r)
		return NULL;
	r->container = QA_FORMAT_OLLAMA;
	snprintf(note, sizeof(note), "Ollama model %s: %s blob %s", display,
		 what, qa_path_base(r->path));
	r->note = strdup(note);
	return r->note ? r : NULL;
}

/* The folders of a safetensors-layout manifest: the model's, and its
 * draft's (x/create/draft.go: tensors "draft.<name>", configs
 * "draft/<file>"), served at <manifest> and <manifest>/draft. */
struct st_folders {
	struct qa_ollama_vfs *model, *draft;
};

static void
st_folders_free(struct st_folders *f)
{
	qa_ollama_vfs_release(f->model);
	qa_ollama_vfs_release(f->draft);
}

/*
 * One layer of the safetensors layout (x/create): a tensor layer is
 * served as "<name>.safetensors", a json layer as its name, a draft's in
 * the draft's folder (its configs without "draft/"). blob is taken.
 */
static int
st_layer(const struct qa_fs *fs, const char *manifest,
	 struct qa_ollama_side *side, struct st_folders *f,
	 const char *kind, const char *name, char *blob)
{
	bool tensor = strcmp(kind, "tensor") == 0, draft;
	struct qa_ollama_vfs **vfs;
	char rel[1100];
	uint64_t blob_size = 0;

	if (tensor)
		side->n_tensor_layers++;
	else
		side->n_json_layers++;
	if (!name || !qa_ollama_layer_name_ok(name)) {
		char what[160];

		snprintf(what, sizeof(what), "%s layer \"%.100s\"", kind,
			 name ? name : "(no name)");
		list_add(&side->bad_names, what);
		free(blob);
		return QA_OK;
	}
	draft = strncmp(name, tensor ? "draft." : "draft/", 6) == 0;
	if (draft)
		side->n_st_draft_layers++;
	if (!blob || !file_size(fs, blob, &blob_size)) {
		char what[1200];

		snprintf(what, sizeof(what), "%s %s", kind, name);
		list_add(&side->missing, what);
		if (tensor && !draft)
			side->n_tensor_missing++;
		free(blob);
		return QA_OK;
	}
	vfs = draft ? &f->draft : &f->model;
	if (!*vfs) {
		char *root = malloc(strlen(manifest) + 8);

		if (root)
			sprintf(root, "%s%s", manifest, draft ? "/draft" : "");
		*vfs = root ? qa_ollama_vfs_new(fs, root) : NULL;
		free(root);
		if (!*vfs) {
			free(blob);
			return QA_E_NOMEM;
		}
	}
	snprintf(rel, sizeof(rel), "%s%s", draft && !tensor ? name + 6 : name,
		 tensor ? ".safetensors" : "");
	return qa_ollama_vfs_add(*vfs, rel, blob, blob_size);
}

/* Seals a folder; a path named twice goes to bad_names. */
static void
st_seal(struct qa_ollama_vfs *vfs, struct qa_ollama_side *side)
{
	const char *twice = qa_ollama_vfs_seal(vfs);

	if (twice) {
		char what[1200];

		snprintf(what, sizeof(what), "\"%s\" named twice (the "
			 "first served)", twice);
		list_add(&side->bad_names, what);
	}
}

/* A ref reading vfs (its reference taken) as a checkpoint folder. */
static struct qa_model_ref *
st_ref(struct qa_model_refs *out, struct qa_ollama_vfs **vfs,
       const char *display, const char *note)
{
	struct qa_model_ref *r;

	r = qa_model_refs_add(out, QA_REF_FILE,
			      strdup(qa_ollama_vfs_root(*vfs)), display);
	if (!r)
		return NULL;
	r->kind = QA_REF_HF_DIR;
	r->container = QA_FORMAT_OLLAMA_ST;
	r->unconfined = true;	/* the blobs are outside the "folder" */
	r->ollama_vfs = *vfs;
	*vfs = NULL;
	r->note = strdup(note);
	return r->note ? r : NULL;
}

/* The refs of a safetensors-layout model: the manifest as a folder, and
 * its draft beside it (a companion, as a draft layer's GGUF is). */
static int
st_model(struct qa_model_refs *out, const char *display,
	 struct st_folders *f, struct qa_ollama_side **side,
	 char *err, size_t errlen)
{
	struct qa_model_ref *r;
	char note[600], name[512];

	if (!f->model) {
		snprintf(err, errlen, "'%s': none of the manifest's %u tensor "
			 "layers has its blob in the store (an interrupted "
			 "pull?)", display, (*side)->n_tensor_layers);
		return QA_E_UNRECOGNIZED;
	}
	st_seal(f->model, *side);
	if (f->draft)
		st_seal(f->draft, *side);
	snprintf(note, sizeof(note), "Ollama model %s: %u safetensors "
		 "tensor layers and %u json layers, read as the checkpoint "
		 "folder they were made from%s", display,
		 (*side)->n_tensor_layers, (*side)->n_json_layers,
		 f->draft ? " (a draft's among them, audited beside it)" : "");
	r = st_ref(out, &f->model, display, note);
	if (!r)
		return QA_E_NOMEM;
	r->ollama = *side;
	*side = NULL;
	if (!f->draft)
		return QA_OK;
	snprintf(name, sizeof(name), "%s (draft)", display);
	snprintf(note, sizeof(note), "Ollama model %s: its draft's layers "
		 "(x/create/draft.go: tensors draft.*, configs draft/*), read "
		 "as the folder they were made from", display);
	r = st_ref(out, &f->draft, name, note);
	if (!r)
		return QA_E_NOMEM;
	r->companion = true;
	return QA_OK;
}

int
qa_ollama_resolve_manifest(const struct qa_fs *fs, const char *path,
			   const char *display, struct qa_model_refs *out,
			   char *err, size_t errlen)
{
	struct qa_source src;
	const cJSON *layers, *l;
	char *root = NULL, *model = NULL, *proj = NULL;
	struct qa_ollama_side *side = NULL;
	char *adapters[8], *drafts[2];
	unsigned n_adapters = 0, n_drafts = 0, i;
	size_t model_at = 0;
	struct st_folders st = { NULL, NULL };
	struct qa_model_ref *r;
	cJSON *doc;
	int rc = QA_E_UNRECOGNIZED;

	if (fs->open(fs, path, &src) != QA_OK)
		return QA_E_UNRECOGNIZED;
	doc = qa_json_read_source(&src, (uint64_t)1 << 20, NULL);
	qa_source_close(&src);
	layers = qa_json_child(doc, "layers");
	if (!cJSON_IsArray(layers) || !qa_json_child(doc, "schemaVersion"))
		goto out;
	side = calloc(1, sizeof(*side));
	if (!side) {
		rc = QA_E_NOMEM;
		goto out;
	}
	side->manifest = strdup(path);
	root = root_of(path);
	for (l = layers->child; l; l = l->next) {
		const char *mt = str_of(qa_json_child(l, "mediaType"));
		const char *dg = str_of(qa_json_child(l, "digest"));
		const cJSON *size = qa_json_child(l, "size");
		const char *kind;
		char *blob;

		if (!mt || !dg)
			continue;
		kind = strncmp(mt, MT_PREFIX, strlen(MT_PREFIX)) == 0 ?
		       mt + strlen(MT_PREFIX) : NULL;
		blob = blob_path(root, dg);
		if (kind && strcmp(kind, "model") == 0 && !model) {
			model = blob;
			side->parent = str_of(qa_json_child(l, "from")) ?
				strdup(str_of(qa_json_child(l, "from"))) :
				NULL;
			continue;
		}
		if (kind && strcmp(kind, "projector") == 0) {
			side->n_projectors++;
			/* the first is counted with the model, there or
			 * not (load_mmproj names a missing one, QA1403) */
			if (!proj) {
				proj = blob;
				continue;
			}
		} else if (kind && strcmp(kind, "adapter") == 0) {
			side->n_adapters++;
			if (n_adapters < 8 && is_file(fs, blob)) {
				adapters[n_adapters++] = blob;
				continue;
			}
		} else if (kind && strcmp(kind, "draft") == 0) {
			side->n_drafts++;
			if (n_drafts < 2 && is_file(fs, blob)) {
				drafts[n_drafts++] = blob;
				continue;
			}
		} else if (kind && (strcmp(kind, "template") == 0 ||
				    strcmp(kind, "prompt") == 0 ||
				    strcmp(kind, "system") == 0 ||
				    strcmp(kind, "params") == 0 ||
				    strcmp(kind, "messages") == 0 ||
				    strcmp(kind, "license") == 0)) {
			side_add(side, strcmp(kind, "prompt") == 0 ?
				 "template" : kind, blob, dg, size);
			continue;
		} else if (kind && (strcmp(kind, "tensor") == 0 ||
				    strcmp(kind, "json") == 0)) {
			/* the safetensors layout (formats/ollama_st.c) */
			rc = st_layer(fs, path, side, &st, kind,
				      str_of(qa_json_child(l, "name")), blob);
			if (rc != QA_OK)
				goto out;
			rc = QA_E_UNRECOGNIZED;
			continue;
		} else if (kind && strcmp(kind, "embed") == 0) {
			/* deprecated, ignored by Ollama (images.go) */
			free(blob);
			continue;
		} else {
			list_add(&side->unknown, mt);
			free(blob);
			continue;
		}
		/* a projector, adapter or draft whose blob is not there */
		{
			char what[160];

			snprintf(what, sizeof(what), "%s %s", kind,
				 blob ? qa_path_base(blob) : dg);
			list_add(&side->missing, what);
		}
		free(blob);
	}
	if (!model && side->n_tensor_layers) {
		rc = st_model(out, display, &st, &side, err, errlen);
		goto out;
	}
	if (side->n_tensor_layers || side->n_json_layers)
		list_add(&side->unknown, MT_PREFIX "tensor and .json beside "
			 "a model layer");
	if (!model) {
		snprintf(err, errlen, "'%s' is an Ollama manifest without a "
			 "model layer%s", path, root ? "" : " (and not under a "
			 "manifests/ folder, so its blobs cannot be found)");
		goto out;
	}
	if (!is_file(fs, model)) {
		/* what the manifest names is not there: nothing to audit
		 * (exit 3), not a system error */
		snprintf(err, errlen, "'%s': the model blob %s is not in the "
			 "store (an interrupted pull?)", display, model);
		goto out;
	}
	r = weight_ref(out, model, display, "model");
	model = NULL;
	if (!r) {
		rc = QA_E_NOMEM;
		goto out;
	}
	if (proj) {
		char note[600];

		snprintf(note, sizeof(note), "%s, with its projector layer",
			 r->note);
		free(r->note);
		r->note = strdup(note);
		if (!r->note) {
			rc = QA_E_NOMEM;
			goto out;
		}
	}
	r->mmproj = proj;
	proj = NULL;
	r->ollama = side;
	side = NULL;
	model_at = out->n - 1;
	rc = QA_OK;
	for (i = 0; i < n_adapters && rc == QA_OK; i++) {
		char name[512];
		struct qa_model_ref *a;

		snprintf(name, sizeof(name), "%s (adapter %u)", display,
			 i + 1);
		a = weight_ref(out, adapters[i], name, "LoRA adapter");
		adapters[i] = NULL;
		/* the refs may have moved: the model's by its index */
		if (a) {
			a->base = strdup(out->v[model_at].path);
			a->companion = true;
		}
		if (!a || !a->base)
			rc = QA_E_NOMEM;
	}
	for (i = 0; i < n_drafts && rc == QA_OK; i++) {
		char name[512];

		struct qa_model_ref *d;

		snprintf(name, sizeof(name), "%s (draft)", display);
		d = weight_ref(out, drafts[i], name, "draft");
		if (d)
			d->companion = true;
		else
			rc = QA_E_NOMEM;
		drafts[i] = NULL;
	}
out:
	for (i = 0; i < n_adapters; i++)
		free(adapters[i]);
	for (i = 0; i < n_drafts; i++)
		free(drafts[i]);
	qa_ollama_side_free(side);
	st_folders_free(&st);
	free(root);
	free(model);
	free(proj);
	cJSON_Delete(doc);
	return rc;
}

/* ---- the side layers -------------------------------------------------- */

/* Reads a blob whole (up to max bytes, NUL-terminated, into the arena);
 * *full its size, *hash_ok whether its sha256 is the digest. */
static char *
read_blob(struct qa_inventory *inv, const struct qa_ollama_blob *b,
	  uint64_t max, uint64_t *full, uint64_t *kept, bool *hash_ok)
{
	struct qa_source src;
	struct qa_sha256 h;
	unsigned char sum[32];
	char hex[65];
	uint64_t off = 0, size;
	char *text;
	unsigned i;

	*hash_ok = false;
	*full = *kept = 0;
	if (qa_inv_open(inv, b->path, &src) != QA_OK)
		return NULL;
	size = src.size;
	*full = size;
	*kept = size < max ? size : max;
	text = qa_arena_alloc(&inv->arena, (size_t)*kept + 1);
	if (!text) {
		inv->out_of_memory = true;
		qa_source_close(&src);
		return NULL;
	}
	qa_sha256_init(&h);
	while (off < size) {
		char buf[65536];
		size_t n = size - off < sizeof(buf) ? (size_t)(size - off) :
			   sizeof(buf);

		if (qa_source_read(&src, off, buf, n) != QA_OK) {
			qa_inv_read_failed(inv, b->path, &src);
			qa_source_close(&src);
			return NULL;
		}
		qa_sha256_update(&h, buf, n);
		if (off < *kept)
			memcpy(text + off, buf, (size_t)(*kept - off) < n ?
			       (size_t)(*kept - off) : n);
		off += n;
	}
	qa_source_close(&src);
	text[*kept] = '\0';
	qa_sha256_final(&h, sum);
	for (i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", sum[i]);
	*hash_ok = b->digest && strcmp(b->digest + 7, hex) == 0;
	return text;
}

/*
 * A Go text/template's structure (text/template/parse, as template.Parse
 * in ollama template/template.go l.145 runs it): every "{{" closed by
 * "}}" outside quoted strings, comments ("{{" slash-star ... star-slash "}}") closed, each
 * if / range / with / define / block closed by one end, else only
 * inside one. Returns false with why set when Go would refuse it.
 */
static bool
go_template_ok(const char *s, size_t n, char *why, size_t cap,
	       size_t *at)
{
	int depth = 0;
	size_t i = 0;

	while (i + 1 < n) {
		size_t start, j;
		const char *w;
		size_t wl;

		if (s[i] != '{' || s[i + 1] != '{') {
			i++;
			continue;
		}
		start = i;
		*at = start;
		i += 2;
		if (i < n && s[i] == '-' && i + 1 < n && s[i + 1] == ' ')
			i += 2;
		while (i < n && (s[i] == ' ' || s[i] == '\t' ||
				 s[i] == '\n' || s[i] == '\r'))
			i++;
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
			const char *e = NULL;

			for (j = i + 2; j + 1 < n; j++)
				if (s[j] == '*' && s[j + 1] == '/') {
					e = s + j;
					break;
				}
			if (!e) {
				snprintf(why, cap, "a comment opened at byte "
					 "%zu is never closed", start);
				return false;
			}
			i = (size_t)(e - s) + 2;
			while (i < n && s[i] != '}')
				i++;
			if (i + 1 >= n || s[i + 1] != '}') {
				snprintf(why, cap, "the comment at byte %zu "
					 "does not end its action with }}",
					 start);
				return false;
			}
			i += 2;
			continue;
		}
		w = s + i;
		for (wl = 0; i + wl < n && (isalpha((unsigned char)w[wl]) ||
					    w[wl] == '_'); wl++)
			;
		/* to the closing "}}", past strings */
		for (j = i; j + 1 < n; j++) {
			if (s[j] == '"' || s[j] == '`' || s[j] == '\'') {
				char q = s[j];

				for (j++; j < n && s[j] != q; j++)
					if (q != '`' && s[j] == '\\')
						j++;
				if (j >= n)
					break;
				continue;
			}
			if (s[j] == '}' && s[j + 1] == '}')
				break;
		}
		if (j + 1 >= n) {
			snprintf(why, cap, "the action at byte %zu is never "
				 "closed with }}", start);
			return false;
		}
#define KW(k) (wl == sizeof(k) - 1 && memcmp(w, k, wl) == 0)
		if (KW("if") || KW("range") || KW("with") || KW("define") ||
		    KW("block")) {
			depth++;
		} else if (KW("end")) {
			if (depth == 0) {
				snprintf(why, cap, "{{end}} at byte %zu closes "
					 "nothing (unexpected {{end}})", start);
				return false;
			}
			depth--;
		} else if (KW("else") || KW("break") || KW("continue")) {
			if (depth == 0) {
				snprintf(why, cap, "{{%.*s}} at byte %zu is "
					 "outside any if / range / with",
					 (int)wl, w, start);
				return false;
			}
		}
#undef KW
		i = j + 2;
	}
	if (depth > 0) {
		snprintf(why, cap, "%d if / range / with / define / block "
			 "action%s never closed with {{end}} (unexpected EOF)",
			 depth, depth == 1 ? " is" : "s are");
		*at = n;
		return false;
	}
	return true;
}

/* Whether the model's vocabulary holds token t; -1 when it cannot be
 * told (no vocabulary, or one not kept whole). */
static int
in_vocab(const struct qa_inventory *inv, const char *t)
{
	const struct qa_kv *kv = qa_inv_kv(inv, QA_GGUF_TOKENIZER_LIST);
	struct qa_value e;
	uint64_t i;

	if (!kv || kv->value.type != QA_V_ARRAY ||
	    kv->value.v.arr.elem != QA_V_STRING ||
	    kv->value.v.arr.kept < kv->value.v.arr.count)
		return -1;
	for (i = 0; qa_value_item(&kv->value, i, &e); i++)
		if (e.v.str.s && strcmp(e.v.str.s, t) == 0)
			return 1;
	return 0;
}

/* "<|eot_id|>", "</s>", "<end_of_turn>": written as a special token is. */
static bool
special_form(const char *s)
{
	size_t n = strlen(s);

	return n >= 3 && s[0] == '<' && s[n - 1] == '>' && !strchr(s, ' ') &&
	       !strchr(s + 1, '<');
}

static void
params(struct qa_inventory *inv, const struct qa_ollama_blob *b,
       const char *text, uint64_t len)
{
	cJSON *doc = qa_json_parse_python(text, (size_t)len, NULL);
	const cJSON *ctx, *stop, *e;
	char bad[512];
	size_t blen = 0;
	uint32_t n_bad = 0;

	if (!cJSON_IsObject(doc)) {
		qa_inv_finding(inv, QA1804, b->path, -1, NULL,
			       "the params layer is not a JSON object: Ollama "
			       "decodes it into the model's options and fails "
			       "to load the model (server/images.go "
			       "json.NewDecoder(params).Decode)");
		cJSON_Delete(doc);
		return;
	}
	ctx = qa_json_child(doc, "num_ctx");
	if (ctx && (!cJSON_IsNumber(ctx) || ctx->valuedouble < 1 ||
		    ctx->valuedouble > 1e12 ||
		    ctx->valuedouble != (double)(int64_t)ctx->valuedouble))
		qa_inv_finding(inv, QA1804, b->path, -1, NULL,
			       "num_ctx is not a positive integer: Ollama "
			       "decodes it as an int (api/types.go Runner "
			       "NumCtx) and fails to load the model");
	else if (ctx)
		inv->ollama.num_ctx = (int64_t)ctx->valuedouble;
	stop = qa_json_child(doc, "stop");
	if (cJSON_IsString(stop) || cJSON_IsArray(stop)) {
		uint32_t k = 0;

		inv->ollama.stop = qa_arena_array(&inv->arena, MAX_STOPS,
						  sizeof(*inv->ollama.stop));
		if (!inv->ollama.stop) {
			inv->out_of_memory = true;
			cJSON_Delete(doc);
			return;
		}
		for (e = cJSON_IsString(stop) ? stop : stop->child;
		     e && k < MAX_STOPS; e = cJSON_IsString(stop) ? NULL :
		     e->next) {
			const char *s = str_of(e);

			if (!s)
				continue;
			inv->ollama.stop[k++] = qa_arena_strdup(&inv->arena,
								s);
			if (special_form(s) && in_vocab(inv, s) == 0) {
				if (blen < sizeof(bad))
					blen += (size_t)snprintf(bad + blen,
						sizeof(bad) - blen, "%s'%s'",
						n_bad ? ", " : "", s);
				n_bad++;
			}
		}
		inv->ollama.n_stop = k;
	} else if (stop) {
		qa_inv_finding(inv, QA1804, b->path, -1, NULL,
			       "stop is neither a string nor a list of "
			       "strings (api/types.go Options Stop []string): "
			       "Ollama fails to load the model");
	}
	if (n_bad)
		qa_inv_finding(inv, QA1806, b->path, -1, NULL,
			       "stop %s %s written as special tokens but the "
			       "model's vocabulary has no such token: the "
			       "model never emits %s, so generation does not "
			       "stop there (params written for another model "
			       "family?)", n_bad == 1 ? "string" : "strings",
			       bad, n_bad == 1 ? "it" : "them");
	cJSON_Delete(doc);
}

static void
go_template(struct qa_inventory *inv, const struct qa_ollama_blob *b,
	    const char *text, uint64_t kept, uint64_t full)
{
	struct qa_template *t = qa_inv_add_template(inv);
	char why[256];
	size_t at = 0;

	if (!t)
		return;
	t->label = "Ollama template layer";
	t->text = text;
	t->len = kept;
	t->full_len = full;
	t->file = qa_arena_strdup(&inv->arena, b->path);
	t->offset = -1;
	t->go = true;
	if (kept == full && !go_template_ok(text, (size_t)kept, why,
					    sizeof(why), &at))
		qa_inv_finding(inv, QA1805, b->path, (int64_t)at, NULL,
			       "the template layer is not a Go template "
			       "Ollama can parse: %s (ollama template/"
			       "template.go Parse fails, and the model does "
			       "not load)", why);
}

void
qa_ollama_annotate(struct qa_inventory *inv,
		   const struct qa_ollama_side *side)
{
	char have[512];
	size_t hl = 0;
	unsigned i, n_template = 0, n_params = 0, n_system = 0,
		 n_messages = 0;

	inv->ollama.manifest = qa_arena_strdup(&inv->arena, side->manifest);
	inv->ollama.parent = side->parent ?
		qa_arena_strdup(&inv->arena, side->parent) : NULL;
	inv->ollama.n_projectors = side->n_projectors;
	inv->ollama.n_adapters = side->n_adapters;
	inv->ollama.n_drafts = side->n_drafts;
	for (i = 0; i < side->n_side; i++) {
		const struct qa_ollama_blob *b = &side->side[i];
		bool tmpl = strcmp(b->kind, "template") == 0;
		uint64_t full, kept;
		bool hash_ok;
		char *text;
		struct qa_file *f;

		if (!b->path || !is_file(inv->fs, b->path)) {
			qa_inv_finding(inv, QA1802, side->manifest, -1, NULL,
				       "the %s layer's blob (%s) is not in the "
				       "store: Ollama fails to load the model "
				       "(an interrupted pull?)", b->kind,
				       b->digest ? b->digest : "no digest");
			continue;
		}
		text = read_blob(inv, b, tmpl ? QA_TEMPLATE_SCAN_MAX :
				 SIDE_MAX, &full, &kept, &hash_ok);
		if (!text)
			continue;
		f = qa_inv_add_file(inv, b->path);
		if (f) {
			f->bytes = full;
			f->format = qa_arena_printf(&inv->arena, "ollama-%s",
						    b->kind);
			f->role = QA_FILE_OTHER;
		}
		if (!hash_ok)
			qa_inv_finding(inv, QA1803, b->path, -1, NULL,
				       "the %s layer's blob does not hash to "
				       "its digest %s: it was changed after "
				       "Ollama wrote it", b->kind,
				       b->digest ? b->digest : "(none)");
		if (b->size >= 0 && (uint64_t)b->size != full)
			qa_inv_finding(inv, QA1803, b->path, -1, NULL,
				       "the %s layer is %" PRId64 " bytes in "
				       "the manifest but its blob holds %"
				       PRIu64, b->kind, b->size, full);
		if (tmpl) {
			n_template++;
			go_template(inv, b, text, kept, full);
		} else if (strcmp(b->kind, "params") == 0) {
			n_params++;
			if (kept == full)
				params(inv, b, text, kept);
		} else if (strcmp(b->kind, "system") == 0) {
			n_system++;
			inv->ollama.system = text;
			qa_secrets_in_text(inv, b->path, text, (size_t)kept);
		} else if (strcmp(b->kind, "license") == 0) {
			inv->ollama.n_license++;
		} else if (strcmp(b->kind, "messages") == 0) {
			cJSON *m = qa_json_parse_python(text, (size_t)kept,
							NULL);

			n_messages++;
			if (!cJSON_IsArray(m))
				qa_inv_finding(inv, QA1804, b->path, -1, NULL,
					       "the messages layer is not a "
					       "JSON list: Ollama fails to "
					       "load the model (server/"
					       "images.go)");
			cJSON_Delete(m);
		}
	}
	have[0] = '\0';
#define HAVE(cond, ...) do { if ((cond) && hl < sizeof(have)) \
	hl += (size_t)snprintf(have + hl, sizeof(have) - hl, __VA_ARGS__); \
	} while (0)
	if (side->n_tensor_layers) {
		HAVE(1, "%u safetensors tensor layers and %u json layers "
		     "(the layout of `ollama create` from safetensors, read "
		     "as the folder they were made from)",
		     side->n_tensor_layers, side->n_json_layers);
		HAVE(side->n_st_draft_layers, ", a draft of %u of those "
		     "layers (draft.* and draft/, audited beside it)",
		     side->n_st_draft_layers);
	} else {
		HAVE(1, "the model layer (a GGUF)");
	}
	HAVE(side->n_projectors, ", %u projector%s", side->n_projectors,
	     side->n_projectors == 1 ? " (counted with the model)" :
	     "s (the first counted with the model)");
	HAVE(side->n_adapters, ", %u LoRA adapter%s (audited beside it "
	     "against this model)", side->n_adapters,
	     side->n_adapters == 1 ? "" : "s");
	HAVE(side->n_drafts, ", a draft model (audited beside it)");
	HAVE(n_template, ", a Go template");
	HAVE(n_params, ", params");
	HAVE(inv->ollama.num_ctx > 0, " (num_ctx %" PRId64 ")",
	     inv->ollama.num_ctx);
	HAVE(n_system, ", a system prompt");
	HAVE(inv->ollama.n_license, ", %u license%s", inv->ollama.n_license,
	     inv->ollama.n_license == 1 ? "" : "s");
	HAVE(n_messages, ", messages");
#undef HAVE
	qa_inv_finding(inv, QA1801, side->manifest, -1, NULL,
		       "an Ollama model of %s%s%s%s%s%s", have,
		       inv->ollama.parent ? "; made from " : "",
		       inv->ollama.parent ? inv->ollama.parent : "",
		       side->unknown ? "; not read: layers of media type " :
		       "", side->unknown ? side->unknown : "",
		       side->unknown ? " (not audited)" : "");
	if (side->unknown)
		qa_inv_finding(inv, QA1808, side->manifest, -1, NULL,
			       "layers of media type %s are not read by "
			       "quantaudit: what they hold is not audited",
			       side->unknown);
	if (side->bad_names)
		qa_inv_finding(inv, QA1809, side->manifest, -1, NULL,
			       "layers not served: %s (a layer is found by "
			       "its name, which must be a plain relative path "
			       "given once); what they hold was not audited",
			       side->bad_names);
	if (side->n_tensor_missing) {
		/* the set is incomplete: no engine loads it */
		if (!inv->weights.missing_files++)
			inv->weights.first_missing = qa_arena_strdup(
				&inv->arena, "a tensor layer's blob");
		inv->weights.missing_files += side->n_tensor_missing - 1;
	}
	if (side->missing)
		qa_inv_finding(inv, QA1802, side->manifest, -1, NULL,
			       "%s: named by the manifest but not in the "
			       "store, so Ollama fails to load the model (an "
			       "interrupted pull?)", side->missing);
}
