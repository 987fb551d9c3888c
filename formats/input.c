/* SPDX-License-Identifier: MIT */
/*
 * The input driver (formats/input.h): what a path holds, and loading one
 * model through the format table.
 *
 * Files are recognized by their first bytes (each format's probe, over
 * the largest probe_size of the table); a name ending says the format
 * only when the probe does not (a damaged .safetensors file is still
 * reported by its module). Before that, the things people save in place
 * of a model are named: an empty file, a Git LFS pointer
 * (git-lfs docs/spec.md: "version https://git-lfs.github.com/spec/v1"),
 * an HTML page, a FIFO or device, standard input.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/input.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/json_file.h"
#include "formats/format.h"

const struct qa_format *const qa_formats[] = {
	&qa_format_gguf,
	&qa_format_safetensors,
	NULL,
};

/* Bytes read to recognize a file: the largest probe_size, and enough
 * for a Git LFS pointer's first line and size. */
#define HEAD_BYTES 512

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- refs --------------------------------------------------------------- */

void
qa_model_refs_free(struct qa_model_refs *refs)
{
	size_t i;

	for (i = 0; refs && i < refs->n; i++) {
		free(refs->v[i].path);
		free(refs->v[i].display);
		free(refs->v[i].mmproj);
		free(refs->v[i].note);
	}
	if (refs) {
		free(refs->v);
		refs->v = NULL;
		refs->n = 0;
	}
}

static char *
join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p = malloc(n + strlen(name) + 2);

	if (p)
		sprintf(p, "%s%s%s", dir, n && dir[n - 1] != '/' ? "/" : "",
			name);
	return p;
}

static struct qa_model_ref *
add_ref(struct qa_model_refs *refs, enum qa_ref_kind kind, char *path,
	const char *display)
{
	struct qa_model_ref *v = realloc(refs->v,
					 (refs->n + 1) * sizeof(*refs->v));
	struct qa_model_ref *r;

	if (!v) {
		free(path);
		return NULL;
	}
	refs->v = v;
	r = &v[refs->n];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->path = path;
	r->display = strdup(display ? display : path ? path : "");
	if (!path || !r->display) {
		free(r->path);
		free(r->display);
		return NULL;
	}
	refs->n++;
	return r;
}

/* ---- what a file is ------------------------------------------------------ */

/* Reads up to HEAD_BYTES of path. */
static int
read_head(const struct qa_fs *fs, const char *path, uint8_t *head,
	  size_t *n, uint64_t *size, int *err)
{
	struct qa_source src;
	int rc;

	rc = fs->open(fs, path, &src);
	if (rc != QA_OK) {
		*err = src.err ? src.err : EIO;
		return QA_E_IO;
	}
	*size = src.size;
	*n = src.size < HEAD_BYTES ? (size_t)src.size : HEAD_BYTES;
	rc = qa_source_read(&src, 0, head, *n);
	*err = src.err ? src.err : EIO;
	qa_source_close(&src);
	return rc == QA_OK ? QA_OK : QA_E_IO;
}

/*
 * Names what people save in place of a model; false when the bytes are
 * none of those. A Git LFS pointer is at most 1024 bytes and starts with
 * its version line (git-lfs docs/spec.md).
 */
static bool
not_a_model(const char *path, const uint8_t *head, size_t n, uint64_t size,
	    char *err, size_t errlen)
{
	static const char lfs[] = "version https://git-lfs.github.com/spec/v1";
	size_t i = 0;

	if (size == 0) {
		snprintf(err, errlen, "'%s' is an empty file, not a model "
			 "(an interrupted download?)", path);
		return true;
	}
	if (size < 1024 && n >= sizeof(lfs) - 1 &&
	    memcmp(head, lfs, sizeof(lfs) - 1) == 0) {
		unsigned long long bytes = 0;
		size_t k;

		/* "size <n>\n" is the third line of a canonical pointer */
		for (k = 0; k + 6 < n; k++)
			if (memcmp(head + k, "\nsize ", 6) == 0 &&
			    isdigit(head[k + 6])) {
				bytes = strtoull((const char *)head + k + 6,
						 NULL, 10);
				break;
			}
		if (bytes)
			snprintf(err, errlen, "'%s' is a Git LFS pointer to a "
				 "%llu-byte file, not the file itself: run "
				 "`git lfs pull` in the clone (or download "
				 "the file)", path, bytes);
		else
			snprintf(err, errlen, "'%s' is a Git LFS pointer, not "
				 "the file itself: run `git lfs pull` in the "
				 "clone (or download the file)", path);
		return true;
	}
	while (i < n && isspace(head[i]))
		i++;
	if (n - i >= 5 && (strncasecmp((const char *)head + i, "<!doc", 5) == 0 ||
			   strncasecmp((const char *)head + i, "<html", 5) == 0)) {
		snprintf(err, errlen, "'%s' is an HTML page, not a model file "
			 "(a web page saved in place of the download? On the "
			 "Hugging Face hub, use the \"resolve\" link, not "
			 "\"blob\")", path);
		return true;
	}
	return false;
}

/* The format of a file by its first bytes, then by its name. */
static const struct qa_format *
which_format(const char *path, const uint8_t *head, size_t n, uint64_t size)
{
	const struct qa_format *best = NULL;
	int best_score = 0;
	size_t i;

	for (i = 0; qa_formats[i]; i++) {
		size_t want = qa_formats[i]->probe_size < n ?
			      qa_formats[i]->probe_size : n;
		int score = qa_formats[i]->probe(head, want, size);

		if (score > best_score) {
			best = qa_formats[i];
			best_score = score;
		}
	}
	for (i = 0; !best && qa_formats[i]; i++)
		if (qa_formats[i]->extension &&
		    ends_with(path, qa_formats[i]->extension))
			best = qa_formats[i];
	return best;
}

static int
resolve_file(const struct qa_fs *fs, const char *path,
	     struct qa_model_refs *out, char *err, size_t errlen)
{
	uint8_t head[HEAD_BYTES];
	uint64_t size = 0;
	size_t n = 0;
	int e = 0, rc;

	if (ends_with(path, ".safetensors.index.json"))
		return add_ref(out, QA_REF_FILE, strdup(path), path) ?
		       QA_OK : QA_E_NOMEM;
	rc = read_head(fs, path, head, &n, &size, &e);
	if (rc != QA_OK) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(e));
		return QA_E_IO;
	}
	if (not_a_model(path, head, n, size, err, errlen))
		return QA_E_UNRECOGNIZED;
	if (!which_format(path, head, n, size)) {
		snprintf(err, errlen, "'%s' is not a GGUF or safetensors file "
			 "(first bytes %02x %02x %02x %02x)", path,
			 n > 0 ? head[0] : 0, n > 1 ? head[1] : 0,
			 n > 2 ? head[2] : 0, n > 3 ? head[3] : 0);
		return QA_E_UNRECOGNIZED;
	}
	return add_ref(out, QA_REF_FILE, strdup(path), path) ? QA_OK :
	       QA_E_NOMEM;
}

/* ---- what a folder holds --------------------------------------------------- */

static bool
is_mmproj(const char *name)
{
	return strncasecmp(name, "mmproj", 6) == 0 ||
	       strstr(name, "mmproj") != NULL ||
	       strstr(name, "MMPROJ") != NULL;
}

/*
 * The projector counted with the models of a folder: the only one, else
 * the F16 one (the precision llama.cpp's converter writes by default and
 * model cards point to), else the first by name. *note says which when
 * there is a choice.
 */
static const char *
pick_mmproj(const struct qa_dirent *e, size_t n, char **note)
{
	const char *first = NULL, *f16 = NULL;
	size_t count = 0, i;

	*note = NULL;
	for (i = 0; i < n; i++) {
		if (e[i].kind != QA_NODE_FILE || !ends_with(e[i].name, ".gguf") ||
		    !is_mmproj(e[i].name))
			continue;
		count++;
		if (!first)
			first = e[i].name;
		if (!f16 && (strstr(e[i].name, "F16") || strstr(e[i].name, "f16")) &&
		    !strstr(e[i].name, "BF16") && !strstr(e[i].name, "bf16"))
			f16 = e[i].name;
	}
	if (count > 1) {
		char buf[256];

		snprintf(buf, sizeof(buf), "%zu projectors beside it; the fit "
			 "counts %s", count, f16 ? f16 : first);
		*note = strdup(buf);
	}
	return f16 ? f16 : first;
}

/* Is e[i] a part of a split set of which an earlier entry is a part
 * too? (Entries are sorted, so the set's first present part comes
 * first and stands for the set.) */
static bool
later_part(const struct qa_dirent *e, size_t i)
{
	size_t plen, pl2, j;
	uint32_t part, count, p2, c2;

	if (!qa_gguf_split_name(e[i].name, &plen, &part, &count))
		return false;
	for (j = 0; j < i; j++)
		if (e[j].kind == QA_NODE_FILE &&
		    qa_gguf_split_name(e[j].name, &pl2, &p2, &c2) &&
		    pl2 == plen && c2 == count &&
		    strncmp(e[j].name, e[i].name, plen) == 0)
			return true;
	return false;
}

/* A GGUF model file of a folder: not a projector. */
static bool
model_gguf(const struct qa_dirent *e)
{
	return e->kind == QA_NODE_FILE && ends_with(e->name, ".gguf") &&
	       !is_mmproj(e->name);
}

static int
resolve_dir(const struct qa_fs *fs, const char *dir,
	    struct qa_model_refs *out, char *err, size_t errlen)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i, n_gguf_models = 0;
	bool have_config = false, have_st = false;
	const char *mmproj;
	char *note = NULL;
	int rc;

	rc = fs->list(fs, dir, &e, &n);
	if (rc != QA_OK) {
		snprintf(err, errlen, "cannot list '%s'", dir);
		return rc;
	}
	for (i = 0; i < n; i++) {
		if (e[i].kind != QA_NODE_FILE)
			continue;
		if (strcmp(e[i].name, "config.json") == 0)
			have_config = true;
		if (ends_with(e[i].name, ".safetensors") ||
		    ends_with(e[i].name, ".safetensors.index.json"))
			have_st = true;
	}
	for (i = 0; i < n; i++)
		if (model_gguf(&e[i]) && !later_part(e, i))
			n_gguf_models++;
	/* A checkpoint folder: safetensors weights, or a config.json with
	 * no GGUF beside it (the weights missing is the audit's finding).
	 * Each GGUF model beside it is an input of its own. */
	if (have_st || (have_config && n_gguf_models == 0)) {
		if (!add_ref(out, QA_REF_HF_DIR, strdup(dir), dir)) {
			rc = QA_E_NOMEM;
			goto out;
		}
	}
	mmproj = pick_mmproj(e, n, &note);
	for (i = 0; i < n; i++) {
		struct qa_model_ref *r;
		char *p;

		if (!model_gguf(&e[i]) || later_part(e, i))
			continue;
		p = join(dir, e[i].name);
		r = add_ref(out, QA_REF_FILE, p, p);
		if (!r) {
			rc = QA_E_NOMEM;
			goto out;
		}
		if (mmproj) {
			r->mmproj = join(dir, mmproj);
			r->note = note ? strdup(note) : NULL;
			if (!r->mmproj || (note && !r->note)) {
				rc = QA_E_NOMEM;
				goto out;
			}
		}
	}
	if (out->n == 0) {
		/* A projector alone is still a GGUF to audit. */
		if (mmproj) {
			char *p = join(dir, mmproj);

			if (!add_ref(out, QA_REF_FILE, p, p))
				rc = QA_E_NOMEM;
			goto out;
		}
		snprintf(err, errlen, "'%s' is not a model folder (no "
			 "config.json, safetensors or GGUF files)", dir);
		rc = QA_E_UNRECOGNIZED;
	}
out:
	free(note);
	qa_dirents_free(e, n);
	return rc;
}

/* ---- the Hugging Face cache ----------------------------------------------- */

static bool
is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return s[n] == '\0';
}

/* Reads a small text file whole (trimmed), into buf. */
static bool
read_small(const struct qa_fs *fs, const char *path, char *buf, size_t cap)
{
	struct qa_source src;
	size_t n;

	if (fs->open(fs, path, &src) != QA_OK)
		return false;
	n = src.size < cap - 1 ? (size_t)src.size : cap - 1;
	if (qa_source_read(&src, 0, buf, n) != QA_OK) {
		qa_source_close(&src);
		return false;
	}
	qa_source_close(&src);
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return true;
}

static bool
has_dir(const struct qa_fs *fs, const char *dir, const char *name)
{
	char *p = join(dir, name);
	enum qa_node_kind kind = QA_NODE_MISSING;
	uint64_t size;
	int e;

	if (p)
		fs->stat(fs, p, &kind, &size, &e);
	free(p);
	return kind == QA_NODE_DIR;
}

/*
 * A repo folder of the Hugging Face cache (huggingface_hub
 * file_download.py: <cache>/models--<org>--<name>/ with refs/<revision>
 * holding a commit hash and snapshots/<commit>/ the files, as links into
 * blobs/): the snapshot of the revision asked for, "main" by default.
 * Returns QA_OK with *snap (malloc'd) and *note, or an error.
 */
static int
hf_cache_snapshot(const struct qa_fs *fs, const char *dir, const char *rev,
		  char **snap, char **note, char *err, size_t errlen)
{
	char commit[128], *p, *ref;
	const char *repo = base_name(dir);
	int rc = QA_OK;

	*snap = *note = NULL;
	if (!rev)
		rev = "main";
	if (strlen(rev) == 40 && is_hex(rev, 40)) {
		snprintf(commit, sizeof(commit), "%s", rev);
	} else {
		/* refs/pr/1 is stored at refs/refs/pr/1 (the ref's own
		 * name under refs/) */
		ref = malloc(strlen(dir) + strlen(rev) + 8);
		if (!ref)
			return QA_E_NOMEM;
		sprintf(ref, "%s/refs/%s", dir, rev);
		if (strstr(rev, "..") || !read_small(fs, ref, commit,
						      sizeof(commit)) ||
		    strlen(commit) != 40 || !is_hex(commit, 40)) {
			snprintf(err, errlen, "'%s' is a Hugging Face cache "
				 "folder without the revision '%s' (no "
				 "refs/%s holding a commit): download it, or "
				 "give --revision", dir, rev, rev);
			free(ref);
			return QA_E_UNRECOGNIZED;
		}
		free(ref);
	}
	p = malloc(strlen(dir) + 64);
	if (!p)
		return QA_E_NOMEM;
	sprintf(p, "%s/snapshots/%s", dir, commit);
	if (!has_dir(fs, "", p)) {
		snprintf(err, errlen, "'%s': revision '%s' (commit %.12s) is "
			 "not in the cache (no snapshots/%s)", dir, rev, commit,
			 commit);
		free(p);
		return QA_E_UNRECOGNIZED;
	}
	*snap = p;
	{
		char buf[512];
		const char *name = strncmp(repo, "models--", 8) == 0 ?
				   repo + 8 : repo;

		char org[256];
		size_t k = 0;

		/* models--org--name reads org/name */
		while (*name && k + 1 < sizeof(org)) {
			if (name[0] == '-' && name[1] == '-') {
				org[k++] = '/';
				name += 2;
			} else {
				org[k++] = *name++;
			}
		}
		org[k] = '\0';
		snprintf(buf, sizeof(buf), "Hugging Face cache %s, revision %s "
			 "(commit %.12s)", org, rev, commit);
		*note = strdup(buf);
		if (!*note)
			rc = QA_E_NOMEM;
	}
	return rc;
}

static bool
is_hf_cache_repo(const struct qa_fs *fs, const char *dir)
{
	const char *b = base_name(dir);

	return (strncmp(b, "models--", 8) == 0 ||
		strncmp(b, "datasets--", 10) == 0) &&
	       has_dir(fs, dir, "snapshots") && has_dir(fs, dir, "refs");
}

/* ---- Ollama ----------------------------------------------------------------- */

/* The models folder of a manifest path: the parent of the "manifests"
 * folder it lies under (ollama manifest/paths.go). */
static char *
ollama_root_of(const char *manifest)
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
ollama_blob(const char *root, const char *digest)
{
	char *p;

	if (!digest || strncmp(digest, "sha256:", 7) != 0 ||
	    strlen(digest) != 7 + 64 || !is_hex(digest + 7, 64))
		return NULL;
	p = malloc(strlen(root) + 80);
	if (p)
		sprintf(p, "%s/blobs/sha256-%s", root, digest + 7);
	return p;
}

/*
 * An Ollama manifest (manifest/manifest.go: schemaVersion, mediaType,
 * config, layers[{mediaType, digest, size}]): the model blob is the layer
 * of media type application/vnd.ollama.image.model, a GGUF file; a
 * projector layer is counted with it. Returns QA_E_UNRECOGNIZED without
 * a message when the file is not such a manifest.
 */
static int
resolve_ollama_manifest(const struct qa_fs *fs, const char *path,
			const char *display, struct qa_model_refs *out,
			char *err, size_t errlen)
{
	struct qa_source src;
	const cJSON *layers, *l;
	char *root = NULL, *model = NULL, *proj = NULL;
	cJSON *doc;
	int rc = QA_E_UNRECOGNIZED;

	if (fs->open(fs, path, &src) != QA_OK)
		return QA_E_UNRECOGNIZED;
	doc = qa_json_read_source(&src, (uint64_t)1 << 20, NULL);
	qa_source_close(&src);
	layers = qa_json_child(doc, "layers");
	if (!cJSON_IsArray(layers) || !qa_json_child(doc, "schemaVersion"))
		goto out;
	root = ollama_root_of(path);
	for (l = layers->child; l; l = l->next) {
		const cJSON *mt = qa_json_child(l, "mediaType");
		const cJSON *dg = qa_json_child(l, "digest");

		if (!cJSON_IsString(mt) || !cJSON_IsString(dg))
			continue;
		if (strcmp(mt->valuestring,
			   "application/vnd.ollama.image.model") == 0 && !model)
			model = root ? ollama_blob(root, dg->valuestring) :
				NULL;
		else if (strcmp(mt->valuestring,
				"application/vnd.ollama.image.projector") == 0 &&
			 !proj)
			proj = root ? ollama_blob(root, dg->valuestring) : NULL;
	}
	if (!model) {
		snprintf(err, errlen, "'%s' is an Ollama manifest without a "
			 "model layer%s", path, root ? "" : " (and not under a "
			 "manifests/ folder, so its blobs cannot be found)");
		goto out;
	}
	{
		enum qa_node_kind kind = QA_NODE_MISSING;
		uint64_t size;
		int e;
		struct qa_model_ref *r;
		char note[512];

		fs->stat(fs, model, &kind, &size, &e);
		if (kind != QA_NODE_FILE) {
			snprintf(err, errlen, "'%s': the model blob %s is not in "
				 "the store (an interrupted pull?)", display,
				 model);
			rc = QA_E_IO;
			goto out;
		}
		r = add_ref(out, QA_REF_FILE, model, display);
		model = NULL;
		if (!r) {
			rc = QA_E_NOMEM;
			goto out;
		}
		snprintf(note, sizeof(note), "Ollama model %s: blob %s%s",
			 display, base_name(r->path), proj ?
			 ", with its projector layer" : "");
		r->note = strdup(note);
		r->mmproj = proj;
		proj = NULL;
		rc = r->note ? QA_OK : QA_E_NOMEM;
	}
out:
	free(root);
	free(model);
	free(proj);
	cJSON_Delete(doc);
	return rc;
}

/* Ollama's name grammar (types/model/name.go): [host/][namespace/]model
 * [:tag], parts of letters, digits, '_', '-', '.', the host also ':'. */
static bool
ollama_name_chars(const char *s)
{
	if (!*s || *s == '/' || *s == '.' || strstr(s, "..") || strstr(s, "//"))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.:/", *s))
			return false;
	return true;
}

/* The manifest path of an Ollama name under root: host, namespace,
 * model and tag with the defaults registry.ollama.ai, library, latest
 * (ParseName). NULL when the name has more than three '/' parts. */
static char *
ollama_manifest_path(const char *root, const char *name)
{
	char buf[1024], *parts[3] = { NULL, NULL, NULL };
	const char *tag = "latest";
	char *colon, *slash, *p;
	size_t n = 0, i;

	if (strlen(name) >= sizeof(buf))
		return NULL;
	strcpy(buf, name);
	slash = strrchr(buf, '/');
	colon = strrchr(buf, ':');
	if (colon && (!slash || colon > slash)) {
		*colon = '\0';
		tag = colon + 1;
		if (!*tag)
			return NULL;
	}
	for (p = buf; p && n < 3;) {
		char *sl = strchr(p, '/');

		if (sl)
			*sl = '\0';
		parts[n++] = p;
		p = sl ? sl + 1 : NULL;
	}
	if (p || n == 0)
		return NULL;
	p = malloc(strlen(root) + strlen(name) + 64);
	if (!p)
		return NULL;
	/* right-aligned: model, namespace, host */
	sprintf(p, "%s/manifests/%s/%s/%s/%s", root,
		n == 3 ? parts[0] : "registry.ollama.ai",
		n >= 2 ? parts[n - 2] : "library", parts[n - 1], tag);
	for (i = 0; i < n; i++)
		if (!*parts[i]) {
			free(p);
			return NULL;
		}
	return p;
}

static int
resolve_ollama_name(const struct qa_fs *fs, const char *name,
		    const struct qa_resolve_options *opt,
		    struct qa_model_refs *out, char *err, size_t errlen)
{
	size_t i;

	if (!opt || !ollama_name_chars(name))
		return QA_E_UNRECOGNIZED;
	for (i = 0; i < opt->n_ollama_roots; i++) {
		char *m = ollama_manifest_path(opt->ollama_roots[i], name);
		enum qa_node_kind kind = QA_NODE_MISSING;
		uint64_t size;
		int e, rc;

		if (!m)
			return QA_E_UNRECOGNIZED;
		fs->stat(fs, m, &kind, &size, &e);
		if (kind == QA_NODE_FILE) {
			rc = resolve_ollama_manifest(fs, m, name, out, err,
						     errlen);
			free(m);
			return rc;
		}
		free(m);
	}
	return QA_E_UNRECOGNIZED;
}

/* A file name, not a model name: what users type for a file. */
static bool
model_file_name(const char *s)
{
	return ends_with(s, ".gguf") || ends_with(s, ".safetensors") ||
	       ends_with(s, ".json") || ends_with(s, ".bin");
}

/*
 * A path that does not exist. A name Ollama would take for a model (one
 * with a tag, or any name while an Ollama store is there to look it up
 * in) that no store holds is an input not recognized: there is nothing
 * to audit under that name (exit 3), and the message says where it was
 * looked up. Anything else is the system's "no such file" (exit 4).
 */
static int
not_found(const struct qa_fs *fs, const char *path,
	  const struct qa_resolve_options *opt, int e, char *err,
	  size_t errlen)
{
	const char *store = NULL, *slash = strrchr(path, '/');
	const char *colon = strrchr(path, ':');
	bool tagged = colon && (!slash || colon > slash);
	size_t i;

	for (i = 0; opt && i < opt->n_ollama_roots && !store; i++)
		if (has_dir(fs, opt->ollama_roots[i], "manifests"))
			store = opt->ollama_roots[i];
	if (opt && opt->n_ollama_roots && ollama_name_chars(path) &&
	    !model_file_name(path) && (tagged || store)) {
		snprintf(err, errlen, "cannot open '%s': no such file, nor an "
			 "Ollama model %s%s in %s%s", path, path,
			 tagged ? "" : ":latest",
			 store ? store : opt->ollama_roots[0],
			 opt->n_ollama_roots > 1 ? " or the other Ollama "
			 "stores (see --help)" : "");
		return QA_E_UNRECOGNIZED;
	}
	snprintf(err, errlen, "cannot open '%s': %s", path,
		 strerror(e ? e : ENOENT));
	return QA_E_IO;
}

/* path without its trailing slashes ("/" stays "/"); malloc'd. */
static char *
without_slashes(const char *path)
{
	char *p = strdup(path);
	size_t n = p ? strlen(p) : 0;

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	return p;
}

/* The snapshot of a Hugging Face cache repo folder, resolved as any
 * folder; each model notes the repo, revision and commit. */
static int
resolve_hf_cache(const struct qa_fs *fs, const char *repo,
		 const struct qa_resolve_options *opt,
		 struct qa_model_refs *out, char *err, size_t errlen)
{
	char *snap = NULL, *note = NULL;
	size_t i;
	int rc;

	rc = hf_cache_snapshot(fs, repo, opt ? opt->revision : NULL, &snap,
			       &note, err, errlen);
	if (rc == QA_OK)
		rc = resolve_dir(fs, snap, out, err, errlen);
	for (i = 0; rc == QA_OK && i < out->n; i++)
		if (!out->v[i].note) {
			out->v[i].note = strdup(note);
			if (!out->v[i].note)
				rc = QA_E_NOMEM;
		}
	free(snap);
	free(note);
	return rc;
}

int
qa_input_resolve(const struct qa_fs *fs, const char *path,
		 const struct qa_resolve_options *opt,
		 struct qa_model_refs *out, char *err, size_t errlen)
{
	enum qa_node_kind kind;
	uint64_t size;
	int e = 0, rc;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	if (strcmp(path, "-") == 0) {
		snprintf(err, errlen, "'-': quantaudit reads models by path, "
			 "not from standard input (it reads headers at their "
			 "offsets)");
		return QA_E_USAGE;
	}
	if (fs->stat(fs, path, &kind, &size, &e) != QA_OK ||
	    kind == QA_NODE_MISSING) {
		/* not a path: an Ollama model name? */
		rc = resolve_ollama_name(fs, path, opt, out, err, errlen);
		if (rc == QA_OK || err[0]) {
			if (rc != QA_OK)
				qa_model_refs_free(out);
			return rc;
		}
		return not_found(fs, path, opt, e, err, errlen);
	}
	if (kind == QA_NODE_OTHER) {
		snprintf(err, errlen, "'%s' is not a regular file or folder "
			 "(a FIFO, device or socket): quantaudit reads model "
			 "files by offset", path);
		return QA_E_UNRECOGNIZED;
	}
	if (kind == QA_NODE_DIR) {
		/* "models--org--name/", as the shell completes it, is the
		 * same cache repo folder */
		char *dir = without_slashes(path);

		if (!dir)
			return QA_E_NOMEM;
		if (is_hf_cache_repo(fs, dir))
			rc = resolve_hf_cache(fs, dir, opt, out, err, errlen);
		else
			rc = resolve_dir(fs, path, out, err, errlen);
		free(dir);
	} else if (strcmp(base_name(path), "config.json") == 0) {
		/* config.json stands for its folder. */
		size_t k = (size_t)(base_name(path) - path);
		char *dir = k == 0 ? strdup(".") : k == 1 ? strdup("/") :
			    strndup(path, k - 1);

		if (!dir)
			return QA_E_NOMEM;
		rc = resolve_dir(fs, dir, out, err, errlen);
		free(dir);
	} else {
		rc = resolve_file(fs, path, out, err, errlen);
		if (rc == QA_E_UNRECOGNIZED) {
			/* an Ollama manifest is JSON, no model of its own */
			char err2[1024] = "";
			int rc2 = resolve_ollama_manifest(fs, path, path, out,
							  err2, sizeof(err2));

			if (rc2 == QA_OK || err2[0]) {
				rc = rc2;
				if (err2[0])
					snprintf(err, errlen, "%s", err2);
			}
		}
	}
	if (rc != QA_OK)
		qa_model_refs_free(out);
	if (rc == QA_E_NOMEM)
		snprintf(err, errlen, "out of memory");
	return rc;
}

/* ---- loading ------------------------------------------------------------- */

/* The projector of a GGUF model: its own small inventory, of which the
 * model keeps the totals (for the fit) and any findings. */
static int
load_mmproj(struct qa_inventory *inv, const char *path)
{
	struct qa_inventory *p = qa_inventory_create(path);
	struct qa_file *f;
	uint32_t i;
	int rc;

	if (!p)
		return QA_E_NOMEM;
	p->fs = inv->fs;
	rc = qa_gguf_load_path(p, path);
	f = qa_inv_add_file(inv, path);
	if (!f) {
		qa_inventory_destroy(p);
		return QA_E_NOMEM;
	}
	f->role = QA_FILE_MMPROJ;
	f->format = "gguf";
	if (rc == QA_OK && p->n_files > 0) {
		f->bytes = p->files[0].bytes;
		f->header_bytes = p->files[0].header_bytes;
		f->data_offset = p->files[0].data_offset;
		f->tensor_count = p->n_tensors;
		f->gguf_version = p->files[0].gguf_version;
		for (i = 0; i < p->n_tensors; i++) {
			inv->mmproj.bytes += p->tensors[i].bytes;
			inv->mmproj.params += p->tensors[i].elements;
		}
		inv->mmproj.tensors = p->n_tensors;
		inv->mmproj.file = f->path;
	}
	for (i = 0; i < p->n_findings; i++) {
		const struct qa_finding *x = &p->findings[i];

		qa_inv_finding_rule(inv, x->rule, x->file, x->offset,
				    x->tensor, "%s", x->message);
	}
	if (rc == QA_E_UNRECOGNIZED || rc == QA_E_IO) {
		/* The fit would leave the projector out without a word: say
		 * why (an Ollama manifest can name a blob the store lacks;
		 * a clone can hold an LFS pointer in its place). */
		uint8_t head[HEAD_BYTES];
		uint64_t size = 0;
		size_t n = 0;
		char why[768];
		int e = 0;

		if (read_head(inv->fs, path, head, &n, &size, &e) != QA_OK)
			qa_inv_finding(inv, QA1403, path, -1, NULL,
				       "the projector %s cannot be read (%s), "
				       "so it is not counted", base_name(path),
				       strerror(e));
		else if (not_a_model(path, head, n, size, why, sizeof(why)))
			qa_inv_finding(inv, QA1403, path, -1, NULL,
				       "the projector is not counted: %s", why);
		else
			qa_inv_finding(inv, QA1403, path, -1, NULL,
				       "the projector %s is not a GGUF file, so "
				       "it is not counted", base_name(path));
	}
	qa_inventory_destroy(p);
	return rc == QA_E_NOMEM ? rc : QA_OK;
}

static int
load_file(struct qa_inventory *inv, const char *path, char *err,
	  size_t errlen)
{
	uint8_t head[HEAD_BYTES];
	uint64_t size = 0;
	size_t n = 0;
	const struct qa_format *fmt;
	int e = 0, rc;

	if (ends_with(path, ".safetensors.index.json")) {
		inv->kind = QA_KIND_SAFETENSORS;
		return qa_st_load_path(inv, path);
	}
	rc = read_head(inv->fs, path, head, &n, &size, &e);
	if (rc != QA_OK) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(e));
		return QA_E_IO;
	}
	/* a folder's GGUF files are not probed when it is resolved */
	if (not_a_model(path, head, n, size, err, errlen))
		return QA_E_UNRECOGNIZED;
	fmt = which_format(path, head, n, size);
	if (!fmt) {
		snprintf(err, errlen, "'%s' is not a GGUF or safetensors file",
			 path);
		return QA_E_UNRECOGNIZED;
	}
	inv->kind = fmt->kind;
	return fmt->load_path(inv, path);
}

/*
 * Weight files of a loaded model that are no model at all: Git LFS
 * pointers (a clone made without `git lfs pull` has every shard as one),
 * HTML pages, empty files. The loaders would report them as damaged
 * headers (QA1202, QA1302...) and the fit as "no weights"; what they are
 * and what to do is the whole story, so the model is not audited (exit
 * 3) and err names the first of them and how many there are. Only files
 * that gave no tensor are looked at again.
 */
static int
check_weight_files(const struct qa_inventory *inv, char *err, size_t errlen)
{
	uint32_t i, n_weights = 0, n_bad = 0;
	char first[768] = "";

	for (i = 0; i < inv->n_files; i++) {
		const struct qa_file *f = &inv->files[i];
		uint8_t head[HEAD_BYTES];
		uint64_t size = 0;
		size_t n = 0;
		char why[768];
		int e = 0;

		if (f->role != QA_FILE_MODEL && f->role != QA_FILE_SHARD)
			continue;
		n_weights++;
		/* Such a file yields no tensor; a file that did is read once
		 * only, as loading promises. A part that cannot be read is
		 * the set loader's finding. */
		if (f->tensor_count > 0 ||
		    read_head(inv->fs, f->path, head, &n, &size, &e) != QA_OK ||
		    !not_a_model(f->path, head, n, size, why, sizeof(why)))
			continue;
		if (n_bad++ == 0)
			memcpy(first, why, sizeof(first));
	}
	if (n_bad == 0)
		return QA_OK;
	if (n_weights > 1)
		snprintf(err, errlen, "%s; %" PRIu32 " of the %" PRIu32 " weight "
			 "files are not model files", first, n_bad, n_weights);
	else
		snprintf(err, errlen, "%s", first);
	return QA_E_UNRECOGNIZED;
}

int
qa_input_load(struct qa_inventory *inv, const struct qa_model_ref *ref,
	      char *err, size_t errlen)
{
	int rc;

	err[0] = '\0';
	if (ref->kind == QA_REF_HF_DIR)
		rc = qa_hf_load_dir(inv, ref->path);
	else
		rc = load_file(inv, ref->path, err, errlen);
	if (rc == QA_OK)
		rc = check_weight_files(inv, err, errlen);
	if (rc == QA_OK && ref->mmproj)
		rc = load_mmproj(inv, ref->mmproj);
	if (rc == QA_OK && ref->note)
		inv->input_note = qa_arena_strdup(&inv->arena, ref->note);
	if (rc == QA_OK && inv->out_of_memory)
		rc = QA_E_NOMEM;
	if (rc != QA_OK && !err[0])
		snprintf(err, errlen, "%s: %s", ref->display,
			 rc == QA_E_NOMEM ? "out of memory" :
			 rc == QA_E_IO ? "read error" :
			 "not a recognized model file");
	return rc;
}
