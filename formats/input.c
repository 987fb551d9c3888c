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

#include "core/confine.h"
#include "core/secrets.h"
#include "core/json_file.h"
#include "formats/archive.h"
#include "formats/format.h"
#include "formats/ollama.h"
#include "formats/pytorch.h"

const struct qa_format *const qa_formats[] = {
	&qa_format_gguf,
	&qa_format_safetensors,
	&qa_format_pytorch,
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

/* ---- refs --------------------------------------------------------------- */

void
qa_model_refs_free(struct qa_model_refs *refs)
{
	size_t i;

	for (i = 0; refs && i < refs->n; i++) {
		qa_archive_release(refs->v[i].archive);
		free(refs->v[i].path);
		free(refs->v[i].display);
		free(refs->v[i].mmproj);
		free(refs->v[i].note);
		free(refs->v[i].links_out);
		free(refs->v[i].root);
		free(refs->v[i].base);
		qa_ollama_side_free(refs->v[i].ollama);
		qa_ollama_vfs_release(refs->v[i].ollama_vfs);
	}
	if (refs) {
		free(refs->v);
		refs->v = NULL;
		refs->n = 0;
		qa_gguf_split_index_destroy(refs->split_index);
		refs->split_index = NULL;
		if (refs->listed_arena)
			qa_arena_finish(refs->listed_arena);
		free(refs->listed_arena);
		refs->listed_arena = NULL;
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

/* ---- what a file is ------------------------------------------------------ */

/* Reads up to HEAD_BYTES of path. A path that is no regular file when
 * opened (a FIFO put in place of a listed file) is QA_E_UNRECOGNIZED
 * with *err EINVAL. */
static int
read_head(const struct qa_fs *fs, const char *path, uint8_t *head,
	  size_t *n, uint64_t *size, int *err)
{
	struct qa_source src;
	int rc;

	qa_read_failure_reset();
	rc = fs->open(fs, path, &src);
	if (rc != QA_OK) {
		*err = src.err ? src.err : EIO;
		return src.not_regular ? QA_E_UNRECOGNIZED : QA_E_IO;
	}
	*size = src.size;
	*n = src.size < HEAD_BYTES ? (size_t)src.size : HEAD_BYTES;
	rc = qa_source_read(&src, 0, head, *n);
	*err = src.err ? src.err : EIO;
	qa_source_close(&src);
	return rc == QA_OK ? QA_OK : QA_E_IO;
}

/*
 * The line for an input given up on a failed read: which file, at which
 * byte, and why ("model.gguf: read error at offset 65536: Input/output
 * error"; a shard or side file is named after the model, display). false,
 * with nothing written, when no read failed on record (a source of another
 * kind said QA_E_IO), or only a read of another file than only_path (when
 * not NULL).
 */
static bool
read_error(const char *display, const char *only_path, char *err,
	   size_t errlen)
{
	struct qa_read_failure f;
	char why[160];

	if (!qa_read_failure_last(&f) ||
	    (only_path && strcmp(f.path, only_path) != 0))
		return false;
	qa_read_failure_why(&f, why, sizeof(why));
	if (!f.path[0] || strcmp(f.path, display) == 0)
		snprintf(err, errlen, "%s: %s", display, why);
	else
		snprintf(err, errlen, "%s: %s: %s", display, f.path, why);
	return true;
}

/* Why read_head failed on path (QA_E_IO): where a read failed, else what
 * the open said. */
static void
head_error(const char *path, int e, char *err, size_t errlen)
{
	if (!read_error(path, path, err, errlen))
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(e));
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

/* The refusal of a path that is not a regular file or folder, or that
 * its permissions forbid reading (e: the open's errno), exit 3: both come
 * with the download (tar and unzip restore permission bits). */
static int
not_regular(const char *path, int e, char *err, size_t errlen)
{
	if (e == EACCES || e == EPERM) {
		snprintf(err, errlen, "cannot read '%s': permission denied "
			 "(its permission bits forbid it)", path);
		return QA_E_UNRECOGNIZED;
	}
	snprintf(err, errlen, "'%s' is not a regular file or folder (a FIFO, "
		 "device or socket): quantaudit reads model files by offset",
		 path);
	return QA_E_UNRECOGNIZED;
}

/* A zip torch loads (formats/pytorch.h): its first local header may
 * hide what the central directory holds. */
static bool
torch_zip(const struct qa_fs *fs, const char *path, const uint8_t *head,
	  size_t n)
{
	struct qa_source src;
	bool yes;

	if (n < 4 || memcmp(head, "PK\x03\x04", 4) != 0 ||
	    fs->open(fs, path, &src) != QA_OK)
		return false;
	yes = qa_pt_is_torch_zip(&src);
	qa_source_close(&src);
	return yes;
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

static int resolve_archive(const struct qa_fs *fs, const char *path,
			   struct qa_model_refs *out, char *err,
			   size_t errlen);

static int
resolve_file(const struct qa_fs *fs, const char *path,
	     struct qa_model_refs *out, char *err, size_t errlen)
{
	uint8_t head[HEAD_BYTES];
	const struct qa_format *fmt;
	struct qa_model_ref *r;
	uint64_t size = 0;
	size_t n = 0;
	int e = 0, rc;

	if (ends_with(path, ".safetensors.index.json") ||
	    ends_with(path, ".bin.index.json"))
		return qa_model_refs_add(out, QA_REF_FILE, strdup(path), path) ?
		       QA_OK : QA_E_NOMEM;
	rc = read_head(fs, path, head, &n, &size, &e);
	if (rc == QA_E_UNRECOGNIZED)
		return not_regular(path, e, err, errlen);
	if (rc != QA_OK) {
		head_error(path, e, err, errlen);
		return QA_E_IO;
	}
	if (not_a_model(path, head, n, size, err, errlen))
		return QA_E_UNRECOGNIZED;
	if (!which_format(path, head, n, size) &&
	    torch_zip(fs, path, head, n))
		return qa_model_refs_add(out, QA_REF_FILE,
					 strdup(path), path) ? QA_OK :
		       QA_E_NOMEM;
	if (!which_format(path, head, n, size) &&
	    qa_archive_probe(path, head, n, size))
		return resolve_archive(fs, path, out, err, errlen);
	fmt = which_format(path, head, n, size);
	if (!fmt) {
		snprintf(err, errlen, "'%s' is not a GGUF, safetensors or "
			 "PyTorch file (first bytes %02x %02x %02x %02x)", path,
			 n > 0 ? head[0] : 0, n > 1 ? head[1] : 0,
			 n > 2 ? head[2] : 0, n > 3 ? head[3] : 0);
		return QA_E_UNRECOGNIZED;
	}
	if ((r = qa_model_refs_add(out, QA_REF_FILE,
				   strdup(path), path)) != NULL)
		r->format = fmt;
	return r ? QA_OK :
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

/*
 * later[i]: e[i] is a part of a split set of which an earlier part is a
 * file too; that part stands for the set (formats/gguf_split.c indexes
 * the names once: a folder of n sets costs O(n log n), not n^2).
 */
static bool *
later_parts(const struct qa_split_index *ix, size_t n)
{
	bool *later = calloc(n ? n : 1, sizeof(*later));
	size_t k;

	for (k = 0; later && k < ix->n; k++)
		if (ix->v[k].later)
			later[ix->v[k].pos] = true;
	return later;
}

/* A GGUF model file of a folder: not a projector. */
static bool
model_gguf(const struct qa_dirent *e)
{
	return e->kind == QA_NODE_FILE && ends_with(e->name, ".gguf") &&
	       !is_mmproj(e->name);
}

static int note_links_out(const char *dir, const struct qa_dirent *e,
			  size_t n, struct qa_model_refs *out);

static int
resolve_dir(const struct qa_fs *fs, const char *dir,
	    struct qa_model_refs *out, char *err, size_t errlen)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i, n_gguf_models = 0;
	bool have_config = false, have_st = false, *later = NULL;
	const char *mmproj;
	char *note = NULL;
	int rc;

	rc = fs->list(fs, dir, &e, &n);
	if (rc != QA_OK) {
		/* errno is opendir's: a folder whose permission bits forbid
		 * listing it came that way with the download (exit 3) */
		int why = errno;

		if (rc == QA_E_IO && (why == EACCES || why == EPERM)) {
			snprintf(err, errlen, "cannot list '%s': permission "
				 "denied (its permission bits forbid it)", dir);
			return QA_E_UNRECOGNIZED;
		}
		snprintf(err, errlen, "cannot list '%s'", dir);
		return rc;
	}
	qa_gguf_split_index_destroy(out->split_index);
	rc = qa_gguf_split_index_create(e, n, &out->split_index);
	later = rc == QA_OK ? later_parts(out->split_index, n) : NULL;
	if (!later) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (e[i].kind != QA_NODE_FILE)
			continue;
		/* a PEFT adapter, an ONNX Runtime GenAI or OpenVINO IR
		 * folder is a checkpoint folder too (formats/hf_dir.c);
		 * sentence-transformers and diffusers describe their
		 * components (in subfolders) at the top */
		if (strcmp(e[i].name, "config.json") == 0 ||
		    strcmp(e[i].name, "adapter_config.json") == 0 ||
		    strcmp(e[i].name, "genai_config.json") == 0 ||
		    strcmp(e[i].name, "openvino_model.xml") == 0 ||
		    strcmp(e[i].name, "modules.json") == 0 ||
		    strcmp(e[i].name, "model_index.json") == 0)
			have_config = true;
		if (ends_with(e[i].name, ".safetensors") ||
		    ends_with(e[i].name, ".safetensors.index.json") ||
		    qa_pt_weight_name(e[i].name))
			have_st = true;
	}
	for (i = 0; i < n; i++)
		if (model_gguf(&e[i]) && !later[i])
			n_gguf_models++;
	/* A checkpoint folder: safetensors weights, or a config.json with
	 * no GGUF beside it (the weights missing is the audit's finding).
	 * Each GGUF model beside it is an input of its own. */
	if (have_st || (have_config && n_gguf_models == 0)) {
		if (!qa_model_refs_add(out, QA_REF_HF_DIR, strdup(dir), dir)) {
			rc = QA_E_NOMEM;
			goto out;
		}
	}
	mmproj = pick_mmproj(e, n, &note);
	for (i = 0; i < n; i++) {
		struct qa_model_ref *r;
		char *p;

		if (!model_gguf(&e[i]) || later[i])
			continue;
		p = join(dir, e[i].name);
		r = qa_model_refs_add(out, QA_REF_FILE, p, p);
		if (!r) {
			rc = QA_E_NOMEM;
			goto out;
		}
		r->split_index = out->split_index;
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
			struct qa_model_ref *r;

			r = qa_model_refs_add(out, QA_REF_FILE, p, p);

			if (!r) {
				rc = QA_E_NOMEM;
				goto out;
			}
			r->split_index = out->split_index;
		}
	}
	rc = note_links_out(dir, e, n, out);
	if (rc != QA_OK)
		goto out;
	if (out->n == 0) {
		snprintf(err, errlen, "'%s' is not a model folder (no "
			 "config.json, safetensors or GGUF files)", dir);
		rc = QA_E_UNRECOGNIZED;
	}
out:
	free(later);
	free(note);
	qa_dirents_free(e, n);
	return rc;
}

/*
 * The entries of the folder dir that are symbolic links out of it (a
 * confined file system lists them as QA_NODE_OUTSIDE): the first model
 * found in the folder reports them (QA1411), once. A folder holding
 * nothing else is one input of its own, so that they are reported.
 */
static int
note_links_out(const char *dir, const struct qa_dirent *e, size_t n,
	       struct qa_model_refs *out)
{
	size_t i, len = 1, k = 0;
	struct qa_model_ref *r;
	char *v;

	for (i = 0; i < n; i++)
		if (e[i].kind == QA_NODE_OUTSIDE)
			len += strlen(dir) + strlen(e[i].name) + 2;
	if (len == 1)
		return QA_OK;
	v = malloc(len);
	if (!v)
		return QA_E_NOMEM;
	for (i = 0; i < n; i++) {
		char *p;

		if (e[i].kind != QA_NODE_OUTSIDE)
			continue;
		p = join(dir, e[i].name);
		if (!p) {
			free(v);
			return QA_E_NOMEM;
		}
		memcpy(v + k, p, strlen(p) + 1);
		k += strlen(p) + 1;
		free(p);
	}
	v[k] = '\0';
	if (out->n == 0) {
		/* the first link stands for the folder */
		r = qa_model_refs_add(out, QA_REF_FILE, strdup(v), v);
		if (!r) {
			free(v);
			return QA_E_NOMEM;
		}
	}
	r = &out->v[0];
	free(r->links_out);
	r->links_out = v;
	return QA_OK;
}

/* ---- archives --------------------------------------------------------------- */

/* The one folder dir holds when it holds nothing else (a tar made of a
 * model folder), malloc'd; NULL otherwise. */
static char *
only_subdir(const struct qa_fs *fs, const char *dir)
{
	struct qa_dirent *e = NULL;
	size_t n = 0;
	char *p = NULL;

	if (fs->list(fs, dir, &e, &n) == QA_OK && n == 1 &&
	    e[0].kind == QA_NODE_DIR)
		p = join(dir, e[0].name);
	qa_dirents_free(e, n);
	return p;
}

/*
 * The models in an archive (formats/archive.h), found as in a folder:
 * its members are a file system rooted at "<path>!", and a tar of a model
 * folder is that folder. An archive that holds one model is reported
 * under its own path; several are named by member. An archive with no
 * model is nothing to audit, unless listing it gave findings (traversal,
 * links, bombs...): it is then an input of its own, so they are seen.
 */
static int
resolve_archive(const struct qa_fs *fs, const char *path,
		struct qa_model_refs *out, char *err, size_t errlen)
{
	const struct qa_fs *afs;
	struct qa_archive *ar;
	char *dir, what[512];
	size_t i;
	int rc, depth;

	rc = qa_archive_open(fs, path, &ar, err, errlen);
	if (rc != QA_OK)
		return rc;
	afs = qa_archive_fs(ar);
	dir = strdup(qa_archive_root(ar));
	rc = dir ? QA_E_UNRECOGNIZED : QA_E_NOMEM;
	for (depth = 0; dir && depth < 8; depth++) {
		char *next;

		rc = resolve_dir(afs, dir, out, err, errlen);
		if (rc != QA_E_UNRECOGNIZED)
			break;
		next = only_subdir(afs, dir);
		if (!next)
			break;
		free(dir);
		dir = next;
	}
	free(dir);
	if (rc == QA_E_UNRECOGNIZED) {
		qa_archive_describe(ar, what, sizeof(what));
		if (qa_archive_has_findings(ar)) {
			rc = qa_model_refs_add(out, QA_REF_ARCHIVE,
				     strdup(qa_archive_root(ar)), path) ?
			     QA_OK : QA_E_NOMEM;
		} else {
			snprintf(err, errlen, "'%s' is a %s archive with no "
				 "GGUF, safetensors or PyTorch model in it "
				 "(%s)", path,
				 qa_archive_format(ar), what);
		}
	}
	for (i = 0; rc == QA_OK && i < out->n; i++) {
		out->v[i].archive = qa_archive_ref(ar);
		if (out->n == 1) {
			char *d = strdup(path);

			if (!d) {
				rc = QA_E_NOMEM;
				break;
			}
			free(out->v[i].display);
			out->v[i].display = d;
		}
	}
	qa_archive_release(ar);
	return rc;
}

/*
 * The length of the archive part of "archive!/member", the name reports
 * give a member: the shortest prefix before a "!/" that is a regular
 * file. 0 when path names no member of an archive.
 */
static size_t
archive_part(const struct qa_fs *fs, const char *path)
{
	const char *p;

	for (p = strstr(path, "!/"); p; p = strstr(p + 1, "!/")) {
		size_t k = (size_t)(p - path);
		char *prefix = strndup(path, k);
		enum qa_node_kind kind = QA_NODE_MISSING;
		uint64_t size;
		int e;

		if (!prefix)
			return 0;
		fs->stat(fs, prefix, &kind, &size, &e);
		free(prefix);
		if (kind == QA_NODE_FILE)
			return k;
	}
	return 0;
}

/* A member of an archive as the path ("model.tar!/model.gguf", or a
 * folder member): resolved as that file or folder of the members' file
 * system. */
static int
resolve_member(const struct qa_fs *fs, const char *path, size_t k,
	       struct qa_model_refs *out, char *err, size_t errlen)
{
	char *archive = strndup(path, k);
	struct qa_archive *ar = NULL;
	const struct qa_fs *afs;
	enum qa_node_kind kind = QA_NODE_MISSING;
	uint64_t size;
	size_t i;
	int e, rc;

	if (!archive)
		return QA_E_NOMEM;
	rc = qa_archive_open(fs, archive, &ar, err, errlen);
	free(archive);
	if (rc != QA_OK)
		return rc;
	afs = qa_archive_fs(ar);
	afs->stat(afs, path, &kind, &size, &e);
	if (kind == QA_NODE_DIR) {
		rc = resolve_dir(afs, path, out, err, errlen);
	} else if (kind == QA_NODE_FILE) {
		rc = resolve_file(afs, path, out, err, errlen);
	} else {
		snprintf(err, errlen, "'%s': the %s archive has no such "
			 "member%s", path, qa_archive_format(ar),
			 kind == QA_NODE_OTHER ? " that is a file or folder "
			 "(a link or special entry)" : " (or it is hidden: an "
			 "unsafe or duplicated name)");
		rc = QA_E_IO;
	}
	for (i = 0; rc == QA_OK && i < out->n; i++)
		out->v[i].archive = qa_archive_ref(ar);
	qa_archive_release(ar);
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
	const char *repo = qa_path_base(dir);
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
	const char *b = qa_path_base(dir);

	return (strncmp(b, "models--", 8) == 0 ||
		strncmp(b, "datasets--", 10) == 0) &&
	       has_dir(fs, dir, "snapshots") && has_dir(fs, dir, "refs");
}

/* ---- Ollama ----------------------------------------------------------------- */

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
			rc = qa_ollama_resolve_manifest(fs, m, name, out, err,
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
	if (e == EACCES || e == EPERM) {
		/* a folder on the way that may not be searched: permission
		 * bits come with the download (tar and unzip restore them) */
		snprintf(err, errlen, "cannot open '%s': permission denied "
			 "(the permission bits of a folder on its path forbid "
			 "it)", path);
		return QA_E_UNRECOGNIZED;
	}
	if (e == ELOOP) {
		/* a link to itself, or a chain too long to follow: a file
		 * from a download can be one, and it is no model */
		snprintf(err, errlen, "'%s' is a symbolic link that leads "
			 "nowhere (a loop, or too many links): not a model "
			 "file", path);
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

static int
resolve_path(const struct qa_fs *fs, const char *path,
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
		size_t k = archive_part(fs, path);

		/* a member of an archive, as reports name it */
		if (k > 0) {
			rc = resolve_member(fs, path, k, out, err, errlen);
			if (rc != QA_OK)
				qa_model_refs_free(out);
			if (rc == QA_E_NOMEM)
				snprintf(err, errlen, "out of memory");
			return rc;
		}
		/* not a path: an Ollama model name? */
		rc = resolve_ollama_name(fs, path, opt, out, err, errlen);
		if (rc == QA_OK || err[0]) {
			if (rc != QA_OK)
				qa_model_refs_free(out);
			return rc;
		}
		return not_found(fs, path, opt, e, err, errlen);
	}
	if (kind == QA_NODE_OTHER)
		return not_regular(path, 0, err, errlen);
	if (kind == QA_NODE_OUTSIDE)
		/* a link out of its folder: never probed; loading reports
		 * it (QA1411) */
		return qa_model_refs_add(out, QA_REF_FILE,
					 strdup(path), path) ? QA_OK :
		       QA_E_NOMEM;
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
	} else if (strcmp(qa_path_base(path), "config.json") == 0) {
		/* config.json stands for its folder. */
		size_t k = (size_t)(qa_path_base(path) - path);
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
			int rc2 = qa_ollama_resolve_manifest(fs, path, path, out,
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

/*
 * The model folder of path, which symbolic links must not leave: the
 * folder itself, or the folder of a file; inside a Hugging Face cache
 * repo (models--org--name/snapshots/<commit>), the repo folder, whose
 * snapshots are links to ../../blobs. As a real path; malloc'd, NULL
 * when out of memory.
 */
static char *
model_root(const struct qa_fs *fs, const char *path, bool *real)
{
	static const char *const repos[] = {
		"models--", "datasets--", "spaces--",
	};
	enum qa_node_kind kind = QA_NODE_MISSING;
	uint64_t size;
	size_t k, i;
	char *d, *r, *snap, *top;
	int e;

	fs->stat(fs, path, &kind, &size, &e);
	if (kind == QA_NODE_MISSING && (k = archive_part(fs, path)) > 0) {
		/* "archive!/member": the archive's folder */
		char *archive = strndup(path, k);

		if (!archive)
			return NULL;
		r = model_root(fs, archive, real);
		free(archive);
		return r;
	}
	*real = false;
	k = (size_t)(qa_path_base(path) - path);
	d = kind == QA_NODE_DIR ? strdup(path) : k == 0 ? strdup(".") :
	    k == 1 ? strdup("/") : strndup(path, k - 1);
	if (!d)
		return NULL;
	r = qa_fs_real_path(d);
	if (!r)
		return d;	/* nothing there to read: confined to it */
	free(d);
	*real = true;
	/* .../models--org--name/snapshots/<commit> -> .../models--org--name */
	snap = strrchr(r, '/');
	if (!snap || snap == r)
		return r;
	*snap = '\0';
	top = strrchr(r, '/');
	if (top && strcmp(top + 1, "snapshots") == 0) {
		const char *repo;

		*top = '\0';
		repo = strrchr(r, '/') ? strrchr(r, '/') + 1 : r;
		for (i = 0; i < sizeof(repos) / sizeof(repos[0]); i++)
			if (strncmp(repo, repos[i], strlen(repos[i])) == 0)
				return r;
		*top = '/';
	}
	*snap = '/';
	return r;
}

int
qa_input_resolve(const struct qa_fs *fs, const char *path,
		 const struct qa_resolve_options *opt,
		 struct qa_model_refs *out, char *err, size_t errlen)
{
	struct qa_confined_fs *cfs = NULL;
	struct qa_arena *listed = NULL;
	struct qa_dir_memo *memo = NULL;
	bool follow = opt && opt->follow_symlinks;
	size_t i;
	int rc;

	/* On the real file system, resolution already keeps to the model
	 * folder: a link out of it is neither probed nor listed as a
	 * model file (core/confine.h). */
	char *root = NULL;
	bool real = false;

	if (fs == qa_fs_default() && !follow && strcmp(path, "-") != 0) {
		root = model_root(fs, path, &real);
		cfs = malloc(sizeof(*cfs));
		if (!root || !cfs) {
			free(root);
			free(cfs);
			memset(out, 0, sizeof(*out));
			snprintf(err, errlen, "out of memory");
			return QA_E_NOMEM;
		}
		if (real && qa_fs_confined_init_real(cfs, root) == QA_OK) {
			fs = &cfs->fs;
			/* what resolution lists, loading lists from memory */
			listed = malloc(sizeof(*listed));
			if (listed) {
				qa_arena_init(listed, 0);
				qa_fs_confined_memo(cfs, listed);
			}
		}
	}
	rc = resolve_path(fs, path, opt, out, err, errlen);
	if (listed && rc == QA_OK && cfs->n_memo) {
		out->listed_arena = listed;
		memo = qa_arena_array(listed, cfs->n_memo, sizeof(*memo));
		if (memo)
			memcpy(memo, cfs->memo, cfs->n_memo * sizeof(*memo));
		listed = NULL;
	}
	if (listed) {
		qa_arena_finish(listed);
		free(listed);
	}
	for (i = 0; rc == QA_OK && i < out->n; i++) {
		out->v[i].unconfined = follow;
		if (opt && opt->mmproj && !out->v[i].companion &&
		    out->v[i].kind == QA_REF_FILE) {
			free(out->v[i].mmproj);
			out->v[i].mmproj = strdup(opt->mmproj);
			out->v[i].mmproj_given = true;
			if (!out->v[i].mmproj)
				rc = QA_E_NOMEM;
		}
		/* The model folder of this very path: loading is confined
		 * to it without resolving it again. */
		if (real && fs != qa_fs_default() && !out->v[i].archive &&
		    strcmp(out->v[i].path, path) == 0) {
			if (!(out->v[i].root = strdup(root)))
				rc = QA_E_NOMEM;
			out->v[i].listed = memo;
			out->v[i].n_listed = memo ? cfs->n_memo : 0;
		}
	}
	free(root);
	free(cfs);
	return rc;
}

/* ---- loading ------------------------------------------------------------- */

/*
 * Confines inv to the model folder of path (core/confine.h): the
 * confined file system lives in the inventory's arena. A folder that
 * cannot be resolved leaves inv as it is (there is nothing in it to
 * read). QA_OK or QA_E_NOMEM.
 */
static int
confine(struct qa_inventory *inv, const struct qa_model_ref *ref)
{
	struct qa_confined_fs *c;
	bool real = ref->root != NULL;
	char *root = real ? ref->root : model_root(inv->fs, ref->path, &real);

	if (!root)
		return QA_E_NOMEM;
	c = qa_arena_alloc(&inv->arena, sizeof(*c));
	if (c && real && qa_fs_confined_init_real(c, root) == QA_OK) {
		size_t i;

		inv->fs = &c->fs;
		qa_fs_confined_memo(c, &inv->arena);
		for (i = 0; ref->root && i < ref->n_listed; i++)
			(void)qa_fs_confined_remember(c, ref->listed[i].dir,
						      ref->listed[i].e,
						      ref->listed[i].n);
	}
	if (root != ref->root)
		free(root);
	return c ? QA_OK : QA_E_NOMEM;
}

/* Whether path is a symbolic link out of the model folder; it is then
 * reported (QA1411) and must not be read. */
static bool
link_out(struct qa_inventory *inv, const char *path)
{
	if (!qa_fs_outside(inv->fs, path))
		return false;
	qa_inv_link_out(inv, path);
	return true;
}

/* The projector of a GGUF model: its own small inventory, of which the
 * model keeps the totals (for the fit) and any findings. */
static int
load_mmproj(struct qa_inventory *inv, const char *path,
	    const struct qa_split_index *ix)
{
	struct qa_inventory *p = qa_inventory_create(path);
	struct qa_file *f;
	uint32_t i;
	int rc;

	if (!p)
		return QA_E_NOMEM;
	if (link_out(inv, path)) {
		qa_inventory_destroy(p);
		return QA_OK;
	}
	p->fs = inv->fs;
	p->overrides = inv->overrides;
	p->kind_info.as_projector = true;
	rc = qa_gguf_load_split(p, path, ix);
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
	qa_inventory_merge_findings(inv, p);
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
				       "so it is not counted", qa_path_base(path),
				       strerror(e));
		else if (not_a_model(path, head, n, size, why, sizeof(why)))
			qa_inv_finding(inv, QA1403, path, -1, NULL,
				       "the projector is not counted: %s", why);
		else
			qa_inv_finding(inv, QA1403, path, -1, NULL,
				       "the projector %s is not a GGUF file, so "
				       "it is not counted", qa_path_base(path));
	}
	qa_inventory_destroy(p);
	return rc == QA_E_NOMEM ? rc : QA_OK;
}

static int
load_file(struct qa_inventory *inv, const struct qa_model_ref *ref,
	  char *err, size_t errlen)
{
	const char *path = ref->path;
	uint8_t head[HEAD_BYTES];
	uint64_t size = 0;
	size_t n = 0;
	const struct qa_format *fmt;
	int e = 0, rc;

	if (link_out(inv, path)) {
		inv->kind = ends_with(path, ".safetensors") ||
			    ends_with(path, ".safetensors.index.json") ?
			    QA_KIND_SAFETENSORS : QA_KIND_GGUF;
		return QA_OK;
	}

	if (ends_with(path, ".safetensors.index.json")) {
		inv->kind = QA_KIND_SAFETENSORS;
		return qa_st_load_path(inv, path);
	}
	if (ends_with(path, ".bin.index.json")) {
		inv->kind = QA_KIND_PYTORCH;
		return qa_pt_load_path(inv, path);
	}
	/* Probed when it was resolved: not read twice. */
	fmt = ref->format;
	if (fmt)
		goto load;
	rc = read_head(inv->fs, path, head, &n, &size, &e);
	if (rc == QA_E_UNRECOGNIZED)
		return not_regular(path, e, err, errlen);
	if (rc != QA_OK) {
		head_error(path, e, err, errlen);
		return QA_E_IO;
	}
	/* a folder's GGUF files are not probed when it is resolved */
	if (not_a_model(path, head, n, size, err, errlen))
		return QA_E_UNRECOGNIZED;
	fmt = which_format(path, head, n, size);
	if (!fmt && torch_zip(inv->fs, path, head, n))
		fmt = &qa_format_pytorch;
	if (!fmt) {
		snprintf(err, errlen, "'%s' is not a GGUF, safetensors or "
			 "PyTorch file", path);
		return QA_E_UNRECOGNIZED;
	}
load:
	inv->kind = fmt->kind;
	if (fmt == &qa_format_gguf)
		return qa_gguf_load_split(inv, path, ref->split_index);
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

/* The model's kind as the archive facts name it. */
static const char *
kind_label(const struct qa_inventory *inv, const struct qa_model_ref *ref)
{
	if (ref->kind == QA_REF_ARCHIVE)
		return "none";
	switch (inv->kind) {
	case QA_KIND_GGUF:
		return "gguf";
	case QA_KIND_SAFETENSORS:
		return "safetensors";
	case QA_KIND_HF_DIR:
		return "hf-dir";
	default:
		return "pytorch";
	}
}

/* struct qa_inventory.release_members of an Ollama safetensors model
 * and of a model read from an archive. */
static void
release_ollama_vfs(void *ctx)
{
	qa_ollama_vfs_release(ctx);
}

static void
release_archive(void *ctx)
{
	qa_archive_release(ctx);
}

int
qa_input_load(struct qa_inventory *inv, const struct qa_model_ref *ref,
	      char *err, size_t errlen)
{
	const struct qa_fs *outer = inv->fs;
	int rc;

	err[0] = '\0';
	qa_read_failure_reset();
	/* On the real file system the model folder is all that is read:
	 * a symbolic link out of it is reported, not followed. */
	if (!ref->archive && !ref->unconfined && inv->fs == qa_fs_default()) {
		rc = confine(inv, ref);
		if (rc != QA_OK) {
			snprintf(err, errlen, "%s: out of memory", ref->display);
			return rc;
		}
	}
	/* An Ollama safetensors model's layers are the folder's files
	 * (formats/ollama.h), readable as long as the inventory lives. */
	if (ref->ollama_vfs) {
		/* the blobs are read through the inventory's own fs */
		qa_ollama_vfs_set_outer(ref->ollama_vfs, inv->fs);
		inv->fs = qa_ollama_vfs_fs(ref->ollama_vfs);
		if (!inv->release_members) {
			inv->member_fs = inv->fs;
			inv->members_ctx = qa_ollama_vfs_ref(ref->ollama_vfs);
			inv->release_members = release_ollama_vfs;
		}
	}
	/* Inside an archive the members are the files (formats/archive.h). */
	if (ref->archive) {
		inv->fs = qa_archive_fs(ref->archive);
		if (!inv->release_members) {
			/* The members stay readable (hash, scan) as long
			 * as the inventory lives. */
			inv->member_fs = inv->fs;
			inv->members_ctx = qa_archive_ref(ref->archive);
			inv->release_members = release_archive;
		}
	}
	if (ref->kind == QA_REF_ARCHIVE) {
		char what[512];

		inv->kind = QA_KIND_HF_DIR;
		qa_archive_describe(ref->archive, what, sizeof(what));
		qa_inv_finding(inv, QA1514, qa_archive_path(ref->archive), -1,
			       NULL, "no GGUF, safetensors or PyTorch model in "
			       "the %s archive (%s)",
			       qa_archive_format(ref->archive),
			       what);
		rc = QA_OK;
	} else if (ref->kind == QA_REF_HF_DIR) {
		rc = qa_hf_load_dir(inv, ref->path);
		if (rc == QA_OK && ref->ollama_vfs)
			qa_quant_config_ollama(inv);
	} else {
		rc = load_file(inv, ref, err, errlen);
	}
	if (rc == QA_OK)
		rc = check_weight_files(inv, err, errlen);
	if (rc == QA_OK && ref->mmproj && ref->mmproj_given) {
		/* the user's own file, wherever it is: not the folder's */
		const struct qa_fs *in = inv->fs;

		inv->fs = outer;
		rc = load_mmproj(inv, ref->mmproj, NULL);
		inv->fs = in;
	} else if (rc == QA_OK && ref->mmproj) {
		rc = load_mmproj(inv, ref->mmproj, ref->split_index);
	}
	if (rc == QA_OK && ref->ollama)
		qa_ollama_annotate(inv, ref->ollama);
	if (ref->ollama_vfs)
		inv->fs = outer;
	if (ref->archive) {
		/* A member the archive could not give (encrypted, past the
		 * streaming bound) is the archive's finding, not a system
		 * error. */
		if (qa_archive_annotate(ref->archive, inv,
					kind_label(inv, ref)) > 0 &&
		    rc == QA_E_IO) {
			qa_inv_finding(inv, QA1403, ref->path, -1, NULL,
				       "the model cannot be read from the "
				       "archive (see the member not "
				       "inspected), so it is not audited");
			rc = QA_OK;
			err[0] = '\0';
		}
		inv->fs = outer;
	}
	if (rc == QA_OK && ref->container != QA_FORMAT_UNKNOWN)
		inv->format = ref->container;
	if (rc == QA_OK && ref->note)
		inv->input_note = qa_arena_strdup(&inv->arena, ref->note);
	if (rc == QA_OK && ref->links_out) {
		const char *l;

		for (l = ref->links_out; *l; l += strlen(l) + 1)
			qa_inv_link_out(inv, l);
	}
	/* credentials in what the reports print: named, then masked
	 * before any reporter sees the strings */
	if (rc == QA_OK)
		qa_secrets_audit(inv);
	/* The inventory limit, not the system, said no: a finding, and
	 * the report covers what was read. */
	if ((rc == QA_E_NOMEM || inv->out_of_memory) &&
	    qa_inventory_limit_finding(inv, "loading"))
		rc = QA_OK;
	if (rc == QA_OK && inv->out_of_memory)
		rc = QA_E_NOMEM;
	if (rc == QA_E_IO && !err[0])
		(void)read_error(ref->display, NULL, err, errlen);
	if (rc != QA_OK && !err[0])
		snprintf(err, errlen, "%s: %s", ref->display,
			 rc == QA_E_NOMEM ? "out of memory" :
			 rc == QA_E_IO ? "read error" :
			 "not a recognized model file");
	return rc;
}
