/* SPDX-License-Identifier: MIT */
/*
 * Ollama's safetensors models seen as the checkpoint folder they were
 * made from (formats/ollama.h, struct qa_ollama_vfs).
 *
 * `ollama create` of a safetensors folder (x/create, MinOllamaVersion
 * 0.19.0; ollama/ollama at fb307609) writes no GGUF: every tensor (or
 * every stacked expert group) becomes a blob layer of media type
 * application/vnd.ollama.image.tensor whose "name" is the tensor's
 * (x/create/writer.go l.12 and l.79, x/create/plan.go BlobSpec), each
 * blob a safetensors file of that tensor, and of its ".scale", ".bias"
 * and ".global_scale" when MLX quantized it (x/create/quantize.go
 * arraysForItem, quantizeBlobLocked: metadata quant_type and
 * group_size, or "<name>.quant_type" per tensor in a mixed blob); every
 * .json of the source folder but the shard index becomes an
 * application/vnd.ollama.image.json layer named by its file name
 * (x/create/pipeline.go importConfigBlobs), a draft's under "draft/"
 * with its tensors under "draft." (x/create/draft.go). Ollama's MLX
 * runner reads them back by those names (x/imagegen/manifest/
 * manifest.go GetTensorLayers, GetConfigLayer; x/mlxrunner/model/
 * root.go for the quantization metadata).
 *
 * So the manifest is served as a folder: <manifest>/config.json is the
 * config.json layer's blob, <manifest>/<tensor name>.safetensors a
 * tensor layer's, and the Hugging Face folder loader audits it as the
 * model it is. Every other path goes to the real file system.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/ollama.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct vfs_entry {
	char *rel;		/* path under the root, '/'-separated */
	char *blob;		/* the blob in the store */
	uint64_t size;		/* its size at resolution */
};

struct qa_ollama_vfs {
	unsigned refs;
	char *root;		/* the manifest's path: the folder's */
	size_t root_len;
	const struct qa_fs *outer;
	struct vfs_entry *v;
	size_t n, cap;
	bool sorted;
	struct qa_fs fs;
};

/* The part of path under the root ("" for the root itself), or NULL
 * when path is not in the folder. */
static const char *
rel_of(const struct qa_ollama_vfs *o, const char *path)
{
	if (strncmp(path, o->root, o->root_len) != 0)
		return NULL;
	if (path[o->root_len] == '\0')
		return "";
	if (path[o->root_len] != '/')
		return NULL;
	path += o->root_len;
	while (*path == '/')
		path++;
	return path;
}

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct vfs_entry *)a)->rel,
		      ((const struct vfs_entry *)b)->rel);
}

static void
sort_entries(struct qa_ollama_vfs *o)
{
	if (!o->sorted)
		qsort(o->v, o->n, sizeof(*o->v), cmp_entry);
	o->sorted = true;
}

static const struct vfs_entry *
find(const struct qa_ollama_vfs *o, const char *rel)
{
	struct vfs_entry key;

	key.rel = (char *)rel;
	return o->n ? bsearch(&key, o->v, o->n, sizeof(*o->v), cmp_entry) :
		      NULL;
}

/* Whether some entry lies under the folder rel ("" the root). */
static bool
is_dir(const struct qa_ollama_vfs *o, const char *rel)
{
	size_t k = strlen(rel), i;

	if (k == 0)
		return true;
	for (i = 0; i < o->n; i++)
		if (strncmp(o->v[i].rel, rel, k) == 0 && o->v[i].rel[k] == '/')
			return true;
	return false;
}

static int
vfs_stat(const struct qa_fs *fs, const char *path, enum qa_node_kind *kind,
	 uint64_t *size, int *err)
{
	const struct qa_ollama_vfs *o = fs->ctx;
	const char *rel = rel_of(o, path);
	const struct vfs_entry *e;

	if (!rel)
		return o->outer->stat(o->outer, path, kind, size, err);
	if ((e = find(o, rel)) != NULL) {
		/* the resolver's stat of the blob (qa_ollama_vfs_add) */
		*kind = QA_NODE_FILE;
		*size = e->size;
		*err = 0;
		return QA_OK;
	}
	*size = 0;
	*err = 0;
	if (is_dir(o, rel)) {
		*kind = QA_NODE_DIR;
		return QA_OK;
	}
	*kind = QA_NODE_MISSING;
	*err = ENOENT;
	return QA_E_IO;
}

static int
vfs_open(const struct qa_fs *fs, const char *path, struct qa_source *src)
{
	const struct qa_ollama_vfs *o = fs->ctx;
	const char *rel = rel_of(o, path);
	const struct vfs_entry *e;

	if (!rel)
		return o->outer->open(o->outer, path, src);
	if ((e = find(o, rel)) != NULL)
		return o->outer->open(o->outer, e->blob, src);
	memset(src, 0, sizeof(*src));
	src->fd = -1;
	src->err = is_dir(o, rel) ? EISDIR : ENOENT;
	return QA_E_IO;
}

/* The entries right under the folder rel: files, and the folders the
 * deeper paths imply (each once: the entries are sorted). */
static int
vfs_list(const struct qa_fs *fs, const char *dir, struct qa_dirent **out,
	 size_t *n_out)
{
	const struct qa_ollama_vfs *o = fs->ctx;
	const char *rel = rel_of(o, dir);
	struct qa_dirent *d;
	size_t k, i, n = 0;
	const char *last = NULL;
	size_t last_len = 0;

	if (!rel)
		return o->outer->list(o->outer, dir, out, n_out);
	k = strlen(rel);
	while (k && rel[k - 1] == '/')
		k--;
	d = calloc(o->n ? o->n : 1, sizeof(*d));
	if (!d)
		return QA_E_NOMEM;
	for (i = 0; i < o->n; i++) {
		const char *r = o->v[i].rel, *name, *slash;
		size_t len;

		if (k && (strncmp(r, rel, k) != 0 || r[k] != '/'))
			continue;
		name = k ? r + k + 1 : r;
		slash = strchr(name, '/');
		len = slash ? (size_t)(slash - name) : strlen(name);
		if (name[0] == '.')
			continue;	/* hidden, as the real listing */
		if (slash && last && last_len == len &&
		    memcmp(last, name, len) == 0)
			continue;	/* the folder is listed already */
		d[n].name = strndup(name, len);
		if (!d[n].name) {
			qa_dirents_free(d, n);
			return QA_E_NOMEM;
		}
		if (slash) {
			d[n].kind = QA_NODE_DIR;
		} else {
			d[n].kind = QA_NODE_FILE;
			d[n].size = o->v[i].size;
		}
		d[n].not_link = false;
		last = name;
		last_len = slash ? len : 0;
		n++;
	}
	*out = d;
	*n_out = n;
	return QA_OK;
}

static const char *
vfs_why(const struct qa_fs *fs)
{
	const struct qa_ollama_vfs *o = fs->ctx;

	return o->outer->why ? o->outer->why(o->outer) : NULL;
}

struct qa_ollama_vfs *
qa_ollama_vfs_new(const struct qa_fs *outer, const char *root)
{
	struct qa_ollama_vfs *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->root = strdup(root);
	if (!o->root) {
		free(o);
		return NULL;
	}
	o->root_len = strlen(o->root);
	while (o->root_len > 1 && o->root[o->root_len - 1] == '/')
		o->root[--o->root_len] = '\0';
	o->refs = 1;
	o->outer = outer;
	o->sorted = true;
	o->fs.stat = vfs_stat;
	o->fs.open = vfs_open;
	o->fs.list = vfs_list;
	o->fs.why = vfs_why;
	o->fs.ctx = o;
	return o;
}

/*
 * A layer name the folder can hold: a relative path of plain parts (no
 * "", ".", ".." or hidden part, no control byte, no backslash), at most
 * 1024 bytes. Ollama's own names are tensor names and file names.
 */
bool
qa_ollama_layer_name_ok(const char *name)
{
	const char *p = name;
	size_t n = strlen(name);

	if (n == 0 || n > 1024)
		return false;
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
			return false;
	for (p = name;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (len == 0 || p[0] == '.')
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

int
qa_ollama_vfs_add(struct qa_ollama_vfs *o, const char *rel, char *blob,
		  uint64_t size)
{
	char *r = strdup(rel);

	if (!r || !blob) {
		free(r);
		free(blob);
		return QA_E_NOMEM;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		struct vfs_entry *v = realloc(o->v, cap * sizeof(*v));

		if (!v) {
			free(r);
			free(blob);
			return QA_E_NOMEM;
		}
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n].rel = r;
	o->v[o->n].blob = blob;
	o->v[o->n].size = size;
	o->n++;
	o->sorted = false;
	return QA_OK;
}

/* The first of two entries of one path (a manifest naming a tensor
 * twice), or NULL; sorts the entries, which lookups need. */
const char *
qa_ollama_vfs_seal(struct qa_ollama_vfs *o)
{
	size_t i;

	sort_entries(o);
	for (i = 1; i < o->n; i++)
		if (strcmp(o->v[i - 1].rel, o->v[i].rel) == 0)
			return o->v[i].rel;
	return NULL;
}

size_t
qa_ollama_vfs_count(const struct qa_ollama_vfs *o)
{
	return o->n;
}

const struct qa_fs *
qa_ollama_vfs_fs(struct qa_ollama_vfs *o)
{
	return &o->fs;
}

void
qa_ollama_vfs_set_outer(struct qa_ollama_vfs *o, const struct qa_fs *outer)
{
	o->outer = outer;
}

const char *
qa_ollama_vfs_root(const struct qa_ollama_vfs *o)
{
	return o->root;
}

struct qa_ollama_vfs *
qa_ollama_vfs_ref(struct qa_ollama_vfs *o)
{
	if (o)
		o->refs++;
	return o;
}

void
qa_ollama_vfs_release(struct qa_ollama_vfs *o)
{
	size_t i;

	if (!o || --o->refs)
		return;
	for (i = 0; i < o->n; i++) {
		free(o->v[i].rel);
		free(o->v[i].blob);
	}
	free(o->v);
	free(o->root);
	free(o);
}
