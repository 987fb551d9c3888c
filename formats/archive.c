/* SPDX-License-Identifier: MIT */
/*
 * Archives (formats/archive.h): recognition, tar through libarchive, and
 * the members as a file system for the folder resolver and the loaders.
 *
 * A tar is listed with libarchive's tar reader (ustar, pax, GNU) under
 * the compression filters gzip, bzip2, xz, lzma, zstd and lz4; no other
 * libarchive format or filter is enabled (7-Zip, RAR, ISO and the filters
 * that run external programs stay off). In a plain tar the data of a
 * member starts where libarchive stands once its header (and any pax or
 * GNU extension headers before it) is read, and it is contiguous unless
 * the member is sparse: such members are read in place and their data is
 * skipped, not read, while listing. Under a compression filter every
 * member is streamed once (formats/archive_members.c keeps what the
 * loaders will read), with the bomb bound checked on every block. Zip and
 * llamafile are formats/archive_zip.c.
 */
#define _POSIX_C_SOURCE 200809L
#define QA_ARCHIVE_INTERNAL
#include "formats/archive_int.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ---- recognition ----------------------------------------------------------- */

static bool
looks_executable(const uint8_t *h, size_t n)
{
	return (n >= 2 && h[0] == 'M' && h[1] == 'Z') ||
	       (n >= 4 && memcmp(h, "\177ELF", 4) == 0) ||
	       (n >= 2 && h[0] == '#' && h[1] == '!');
}

const char *
qa_archive_probe(const char *path, const uint8_t *head, size_t n,
		 uint64_t size)
{
	bool nemo = ends_with(path, ".nemo");

	(void)size;
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return nemo ? "nemo" : "tar.gz";
	if (n >= 4 && memcmp(head, "\x28\xb5\x2f\xfd", 4) == 0)
		return nemo ? "nemo" : "tar.zst";
	if (n >= 6 && memcmp(head, "\xfd" "7zXZ\0", 6) == 0)
		return nemo ? "nemo" : "tar.xz";
	if (n >= 3 && memcmp(head, "BZh", 3) == 0)
		return nemo ? "nemo" : "tar.bz2";
	if (n >= 4 && memcmp(head, "\x04\x22\x4d\x18", 4) == 0)
		return nemo ? "nemo" : "tar.lz4";
	if (n >= 262 && memcmp(head + 257, "ustar", 5) == 0)
		return nemo ? "nemo" : "tar";
	if (n >= 4 && (memcmp(head, "PK\003\004", 4) == 0 ||
		       memcmp(head, "PK\005\006", 4) == 0))
		return ends_with(path, ".llamafile") ? "llamafile" : "zip";
	if (ends_with(path, ".llamafile") || looks_executable(head, n))
		return "llamafile";
	if (ends_with(path, ".zip"))
		return "zip";
	if (nemo)
		return "nemo";
	if (ends_with(path, ".tar"))
		return "tar";
	return NULL;
}

/* ---- tar ------------------------------------------------------------------- */

static const char *
tar_label(struct archive *a, bool nemo)
{
	if (nemo)
		return "nemo";
	switch (sym_archive_filter_code(a, 0)) {
	case ARCHIVE_FILTER_NONE:
		return "tar";
	case ARCHIVE_FILTER_GZIP:
		return "tar.gz";
	case ARCHIVE_FILTER_ZSTD:
		return "tar.zst";
	case ARCHIVE_FILTER_XZ:
		return "tar.xz";
	case ARCHIVE_FILTER_LZMA:
		return "tar.lzma";
	case ARCHIVE_FILTER_BZIP2:
		return "tar.bz2";
	case ARCHIVE_FILTER_LZ4:
		return "tar.lz4";
	default:
		return "tar (compressed)";
	}
}

static enum ar_type
tar_type(struct archive_entry *e)
{
	if (sym_archive_entry_hardlink(e))
		return AR_HARDLINK;
	switch (sym_archive_entry_filetype(e)) {
	case AE_IFREG:
		return AR_FILE;
	case AE_IFDIR:
		return AR_DIR;
	case AE_IFLNK:
		return AR_SYMLINK;
	default:
		return AR_SPECIAL;
	}
}

/*
 * Where in the archive file reading stopped, for QA1501: in a plain tar
 * the header of the member it stopped in (at, when known); in a
 * compressed one how far into the file the decompressor had read, since
 * positions in the uncompressed stream mean nothing to the file.
 */
static int64_t
stop_offset(const struct qa_archive *ar, struct archive *a, int64_t at)
{
	la_int64_t raw;

	if (!ar->streamed)
		return at >= 0 ? at : sym_archive_read_header_position(a);
	raw = sym_archive_filter_bytes(a, -1);
	return raw >= 0 ? raw : -1;
}

/* Reads (streams) the data of the current entry: keeping what m wants
 * when m is not NULL, checking the bomb bound on every block. False when
 * reading must stop (error or bomb); *nomem on allocation failure. */
static bool
tar_stream(struct qa_archive *ar, struct archive *a, struct ar_member *m,
	   bool *nomem)
{
	struct ar_keeper k;
	const void *buf;
	size_t len;
	la_int64_t off;
	uint64_t fed = 0;
	bool ok = true, complete = false;
	int r;

	if (m)
		ar_keeper_start(&k, ar, m);
	for (;;) {
		r = sym_archive_read_data_block(a, &buf, &len, &off);
		if (r == ARCHIVE_EOF) {
			complete = true;
			break;
		}
		if (r < ARCHIVE_WARN) {
			ar_finding(ar, QA1501, ar->path,
				   stop_offset(ar, a, m ? m->header_offset : -1),
				   "reading the archive stopped inside '%s': %s",
				   m ? m->name : "a member",
				   sym_archive_error_string(a) ?
				   sym_archive_error_string(a) : "read error");
			ar->stopped = true;
			ok = false;
			break;
		}
		if (m && ar_keeper_wants(&k)) {
			/* a sparse member's holes read as zeros */
			static const unsigned char zeros[4096];

			while (off >= 0 && (uint64_t)off > fed &&
			       ar_keeper_wants(&k)) {
				size_t z = (uint64_t)off - fed < sizeof(zeros) ?
					   (size_t)((uint64_t)off - fed) :
					   sizeof(zeros);

				if (!ar_keeper_feed(&k, zeros, z)) {
					*nomem = true;
					break;
				}
				fed += z;
			}
			if (!*nomem && !ar_keeper_feed(&k, buf, len))
				*nomem = true;
			fed = (off >= 0 ? (uint64_t)off : fed) + len;
			if (*nomem) {
				free(k.buf);
				return false;
			}
		}
		if (ar_la_bomb(ar, a)) {
			ok = false;
			break;
		}
	}
	if (m)
		ar_keeper_finish(&k, complete);
	return ok;
}

static int
tar_list(struct qa_archive *ar, bool nemo, char *err, size_t errlen)
{
	struct archive *a;
	struct archive_entry *e;
	bool first = true, nomem = false;
	int r;

	a = ar_la_open(ar, AR_LA_TAR, err, errlen);
	if (!a)
		return QA_E_UNRECOGNIZED;
	while ((r = sym_archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = sym_archive_entry_pathname(e);
		la_int64_t hoff = sym_archive_read_header_position(a);
		la_int64_t size = sym_archive_entry_size_is_set(e) ?
				  sym_archive_entry_size(e) : 0;
		enum ar_type type = tar_type(e);
		struct ar_member *m;

		if (first) {
			ar->format = tar_label(a, nemo);
			ar->streamed = sym_archive_filter_code(a, 0) !=
				       ARCHIVE_FILTER_NONE;
			first = false;
		}
		if (ar->n >= QA_ARCHIVE_MAX_MEMBERS) {
			ar_finding(ar, QA1503, ar->path, ar->streamed ? -1 :
				   hoff, "more than %u "
				   "members; the rest is not listed",
				   QA_ARCHIVE_MAX_MEMBERS);
			ar->stopped = true;
			break;
		}
		if (!name)
			name = sym_archive_entry_pathname_utf8(e);
		if (!name)
			name = "";
		if (size < 0)
			size = 0;
		/* in a compressed tar the header's position is in the
		 * uncompressed stream, not the file */
		m = ar_add_member(ar, name, strlen(name), type,
				  (uint64_t)size, ar->streamed ? -1 : hoff);
		if (!m) {
			nomem = true;
			break;
		}
		if (qa_ckd_add(&ar->declared_total, ar->declared_total,
			       m->size))
			ar->declared_total = UINT64_MAX;
		if (!m->hidden) {
			if (type == AR_SYMLINK || type == AR_HARDLINK) {
				const char *t = type == AR_SYMLINK ?
						sym_archive_entry_symlink(e) :
						sym_archive_entry_hardlink(e);

				ar_check_link(ar, m, t ? t : "",
					      t ? strlen(t) : 0,
					      type == AR_HARDLINK);
			} else if (type == AR_SPECIAL) {
				ar_finding(ar, QA1508, ar->path,
					   (int64_t)m->header_offset, "'%s' is "
					   "a device, FIFO or socket entry; it "
					   "is not inspected", m->name);
			}
		}
		if (type != AR_FILE || m->size == 0) {
			if (type == AR_FILE && !m->hidden)
				m->kept_set = true;
			continue;
		}
		if (!ar->streamed && sym_archive_entry_sparse_count(e) == 0) {
			la_int64_t at = sym_archive_filter_bytes(a, 0);
			uint64_t end;

			if (at < 0 || qa_ckd_add(&end, (uint64_t)at, m->size) ||
			    end > ar->src.size) {
				if (!m->hidden) {
					ar_finding(ar, QA1501, ar->path,
						   (int64_t)m->header_offset,
						   "'%s' declares %" PRIu64
						   " bytes, past the end of "
						   "the archive", m->name,
						   m->size);
					ar_not_inspected(ar, m, AR_PAST_END,
							 "the archive ends "
							 "inside it");
				}
				ar->stopped = true;
				break;
			}
			m->in_place = true;
			m->offset = (uint64_t)at;
			continue;	/* the next header skips the data */
		}
		if (!tar_stream(ar, a, m->hidden ? NULL : m, &nomem))
			break;
	}
	if (nomem) {
		ar_la_close(a);
		return QA_E_NOMEM;
	}
	if (first && r != ARCHIVE_EOF) {
		/* not even one header: not a tar */
		snprintf(err, errlen, "%s", sym_archive_error_string(a) ?
			 sym_archive_error_string(a) : "not a tar archive");
		ar_la_close(a);
		return QA_E_UNRECOGNIZED;
	}
	if (first)
		ar->format = nemo ? "nemo" : "tar";
	if (!ar->stopped && r != ARCHIVE_EOF && r != ARCHIVE_OK &&
	    r != ARCHIVE_WARN) {
		ar_finding(ar, QA1501, ar->path, stop_offset(ar, a, -1),
			   "reading the archive stopped after %zu members: %s",
			   ar->n, sym_archive_error_string(a) ?
			   sym_archive_error_string(a) : "read error");
		ar->stopped = true;
	}
	ar_la_close(a);
	return QA_OK;
}

/* ---- the members' file system -------------------------------------------- */

/*
 * The member path below the root for path, in buf (no leading or
 * trailing '/'; "" for the root), or NULL when path is not inside the
 * archive.
 */
static const char *
rel_path(const struct qa_archive *ar, const char *path, char *buf, size_t cap)
{
	size_t n = strlen(ar->root), k;

	if (strncmp(path, ar->root, n) != 0)
		return NULL;
	path += n;
	if (*path && *path != '/')
		return NULL;
	while (*path == '/')
		path++;
	k = strlen(path);
	while (k > 0 && path[k - 1] == '/')
		k--;
	if (k >= cap)
		return NULL;
	memcpy(buf, path, k);
	buf[k] = '\0';
	return buf;
}

/* The first visible member whose name is >= key. */
static size_t
lower_bound(const struct qa_archive *ar, const char *key)
{
	size_t lo = 0, hi = ar->n_sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ar->sorted[mid]->name, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct ar_member *
find(const struct qa_archive *ar, const char *rel)
{
	size_t i = lower_bound(ar, rel);

	for (; i < ar->n_sorted && strcmp(ar->sorted[i]->name, rel) == 0; i++)
		if (ar->sorted[i]->type != AR_DIR)
			return ar->sorted[i];
	return NULL;
}

static bool
is_dir(const struct qa_archive *ar, const char *rel)
{
	char key[QA_ARCHIVE_NAME_MAX + 2];
	size_t i, n = strlen(rel);

	if (n == 0)
		return true;
	i = lower_bound(ar, rel);
	if (i < ar->n_sorted && strcmp(ar->sorted[i]->name, rel) == 0 &&
	    ar->sorted[i]->type == AR_DIR)
		return true;
	snprintf(key, sizeof(key), "%s/", rel);
	i = lower_bound(ar, key);
	return i < ar->n_sorted &&
	       strncmp(ar->sorted[i]->name, key, n + 1) == 0;
}

static int
afs_stat(const struct qa_fs *fs, const char *path, enum qa_node_kind *kind,
	 uint64_t *size, int *err)
{
	const struct qa_archive *ar = fs->ctx;
	char buf[QA_ARCHIVE_NAME_MAX + 1];
	const char *rel = rel_path(ar, path, buf, sizeof(buf));
	const struct ar_member *m;

	*kind = QA_NODE_MISSING;
	*size = 0;
	*err = ENOENT;
	if (!rel)
		return QA_OK;
	m = *rel ? find(ar, rel) : NULL;
	if (m) {
		*err = 0;
		if (m->type == AR_FILE) {
			*kind = QA_NODE_FILE;
			*size = m->size;
		} else {
			*kind = QA_NODE_OTHER;
		}
		return QA_OK;
	}
	if (is_dir(ar, rel)) {
		*kind = QA_NODE_DIR;
		*err = 0;
	}
	return QA_OK;
}

static int
afs_open(const struct qa_fs *fs, const char *path, struct qa_source *src)
{
	struct qa_archive *ar = fs->ctx;
	char buf[QA_ARCHIVE_NAME_MAX + 1];
	const char *rel = rel_path(ar, path, buf, sizeof(buf));
	const struct ar_member *m = rel && *rel ? find(ar, rel) : NULL;
	static const unsigned char none[1];

	if (m && m->type == AR_FILE && m->why == AR_OK) {
		if (m->in_place) {
			qa_source_open_range(src, path, &ar->src, m->offset,
					     m->size);
			return QA_OK;
		}
		if (m->kept_set) {
			qa_source_open_prefix(src, path, m->kept ? m->kept :
					      none, m->kept_len, m->size);
			return QA_OK;
		}
	}
	memset(src, 0, sizeof(*src));
	src->fd = -1;
	src->path = path;
	src->err = !m ? (rel && is_dir(ar, rel) ? EISDIR : ENOENT) :
		   m->type != AR_FILE ? EINVAL :
		   m->why == AR_ENCRYPTED ? EACCES : EFBIG;
	return QA_E_IO;
}

static int
cmp_dirent(const void *a, const void *b)
{
	return strcmp(((const struct qa_dirent *)a)->name,
		      ((const struct qa_dirent *)b)->name);
}

static int
afs_list(const struct qa_fs *fs, const char *dir, struct qa_dirent **out,
	 size_t *n_out)
{
	const struct qa_archive *ar = fs->ctx;
	char buf[QA_ARCHIVE_NAME_MAX + 1], key[QA_ARCHIVE_NAME_MAX + 2];
	const char *rel = rel_path(ar, dir, buf, sizeof(buf));
	struct qa_dirent *v;
	size_t i, n = 0, klen;

	*out = NULL;
	*n_out = 0;
	if (!rel || !is_dir(ar, rel))
		return QA_E_IO;
	snprintf(key, sizeof(key), "%s%s", rel, *rel ? "/" : "");
	klen = strlen(key);
	v = calloc(ar->n_sorted ? ar->n_sorted : 1, sizeof(*v));
	if (!v)
		return QA_E_NOMEM;
	for (i = lower_bound(ar, key); i < ar->n_sorted &&
	     strncmp(ar->sorted[i]->name, key, klen) == 0; i++) {
		const struct ar_member *m = ar->sorted[i];
		const char *child = m->name + klen;
		const char *slash = strchr(child, '/');
		size_t len = slash ? (size_t)(slash - child) : strlen(child);
		enum qa_node_kind kind = slash || m->type == AR_DIR ?
					 QA_NODE_DIR : m->type == AR_FILE ?
					 QA_NODE_FILE : QA_NODE_OTHER;

		if (len == 0 || child[0] == '.')
			continue;
		if (n > 0 && strlen(v[n - 1].name) == len &&
		    strncmp(v[n - 1].name, child, len) == 0) {
			if (kind == QA_NODE_DIR)
				v[n - 1].kind = QA_NODE_DIR;
			continue;
		}
		v[n].name = strndup(child, len);
		if (!v[n].name) {
			qa_dirents_free(v, n);
			return QA_E_NOMEM;
		}
		v[n].kind = kind;
		v[n].size = kind == QA_NODE_FILE ? m->size : 0;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_dirent);
	*out = v;
	*n_out = n;
	return QA_OK;
}

/* ---- NeMo checkpoints ---------------------------------------------------------- */

/*
 * A .nemo file (NeMo's SaveRestoreConnector, NVIDIA/NeMo
 * docs/source/checkpoints/intro.rst) is a tar of model_config.yaml (the
 * model's section of the training config), the weights and tokenizer
 * artifacts. The weights are one PyTorch checkpoint, model_weights.ckpt,
 * which the folder resolver reads as a PyTorch folder's weights; or one
 * per model-parallel rank (mp_rank_00/model_weights.ckpt, or
 * tp_rank_00_pp_rank_000/...), each a slice of every split tensor; or a
 * Megatron-Core distributed checkpoint (a model_weights/ folder of
 * .distcp files or zarr arrays). The last two are not read: a slice is
 * not the model, and the distributed format is no file quantaudit
 * parses. They are named (QA1509), with what model_config.yaml says.
 */

#define NEMO_CONFIG "model_config.yaml"
#define NEMO_WEIGHTS "model_weights.ckpt"
/* model_config.yaml is a few KiB; past this it is not read. */
#define NEMO_CONFIG_MAX ((uint64_t)1 << 20)

struct nemo_config {
	char target[160];	/* the model class, as far as it is safe */
	long tp, pp;		/* model-parallel sizes, 0 when not said */
};

static bool
digits(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return n > 0;
}

/* "mp_rank_00/model_weights.ckpt", "tp_rank_00_pp_rank_000/..." */
static bool
nemo_rank_weights(const char *name)
{
	const char *slash = strchr(name, '/');
	const char *pp;
	size_t n;

	if (!slash || strcmp(slash + 1, NEMO_WEIGHTS) != 0)
		return false;
	n = (size_t)(slash - name);
	if (strncmp(name, "mp_rank_", 8) == 0)
		return digits(name + 8, n - 8);
	if (strncmp(name, "tp_rank_", 8) != 0)
		return false;
	/* from after "tp_rank_", so the TP digits are never a negative
	 * length ("tp_rank_pp_rank_0/") */
	pp = strstr(name + 8, "_pp_rank_");
	return pp && pp < slash && digits(name + 8, (size_t)(pp - name) - 8) &&
	       digits(pp + 9, (size_t)(slash - pp) - 9);
}

/* The top-level scalars of model_config.yaml that say what the
 * checkpoint is: "key: value" lines without indentation. */
static void
nemo_read_config(struct qa_archive *ar, const struct ar_member *m,
		 struct nemo_config *cfg)
{
	struct qa_source src;
	char *text, *line, *next;
	size_t n = (size_t)(m->size < NEMO_CONFIG_MAX ? m->size :
			    NEMO_CONFIG_MAX);

	if (ar->fs.open(&ar->fs, m->path, &src) != QA_OK)
		return;
	text = malloc(n + 1);
	if (!text || qa_source_read(&src, 0, text, n) != QA_OK) {
		free(text);
		qa_source_close(&src);
		return;
	}
	qa_source_close(&src);
	text[n] = '\0';
	for (line = text; line && *line; line = next) {
		char *colon, *v;
		size_t k, len;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		colon = strchr(line, ':');
		if (!colon || line[0] == ' ' || line[0] == '\t' ||
		    line[0] == '#')
			continue;
		*colon = '\0';
		for (v = colon + 1; *v == ' ' || *v == '\'' || *v == '"'; v++)
			;
		if (strcmp(line, "target") == 0) {
			/* a dotted Python name; anything else is cut off */
			for (k = len = 0; v[k] && len + 1 < sizeof(cfg->target);
			     k++) {
				char c = v[k];

				if (!((c >= 'a' && c <= 'z') ||
				      (c >= 'A' && c <= 'Z') ||
				      (c >= '0' && c <= '9') || c == '.' ||
				      c == '_'))
					break;
				cfg->target[len++] = c;
			}
			cfg->target[len] = '\0';
		} else if (strcmp(line, "tensor_model_parallel_size") == 0) {
			cfg->tp = strtol(v, NULL, 10);
		} else if (strcmp(line, "pipeline_model_parallel_size") == 0) {
			cfg->pp = strtol(v, NULL, 10);
		}
	}
	free(text);
}

/* Recognizes a NeMo checkpoint by its model_config.yaml at the root,
 * names weights it does not read, and keeps what it holds for the input
 * note. False when out of memory. */
static bool
nemo_inspect(struct qa_archive *ar)
{
	const struct ar_member *conf = find(ar, NEMO_CONFIG);
	const struct ar_member *single = find(ar, NEMO_WEIGHTS);
	const char *first_rank = NULL;
	struct nemo_config cfg;
	size_t i, n_ranks = 0, n_dist = 0;
	char weights[320], parallel[160] = "";

	if (!conf || conf->type != AR_FILE)
		return true;
	memset(&cfg, 0, sizeof(cfg));
	nemo_read_config(ar, conf, &cfg);
	for (i = 0; i < ar->n_sorted; i++) {
		const struct ar_member *m = ar->sorted[i];

		if (m->type != AR_FILE)
			continue;
		if (nemo_rank_weights(m->name)) {
			if (n_ranks++ == 0)
				first_rank = m->name;
		} else if (strncmp(m->name, "model_weights/", 14) == 0) {
			n_dist++;
		}
	}
	if (cfg.tp > 0 || cfg.pp > 0)
		snprintf(parallel, sizeof(parallel), "; model_config.yaml: "
			 "tensor_model_parallel_size %ld, "
			 "pipeline_model_parallel_size %ld",
			 cfg.tp > 0 ? cfg.tp : 1, cfg.pp > 0 ? cfg.pp : 1);
	if (single && single->type == AR_FILE)
		snprintf(weights, sizeof(weights), "weights %s", NEMO_WEIGHTS);
	else if (n_ranks)
		snprintf(weights, sizeof(weights), "weights in %zu "
			 "model-parallel files (%s...), not read", n_ranks,
			 first_rank);
	else if (n_dist)
		snprintf(weights, sizeof(weights), "a distributed checkpoint "
			 "(model_weights/, %zu files), not read", n_dist);
	else
		snprintf(weights, sizeof(weights), "no weights");
	if (!single && n_ranks)
		ar_finding(ar, QA1509, ar->path, first_rank ?
			   find(ar, first_rank)->header_offset : -1,
			   "the NeMo checkpoint's weights are split into %zu "
			   "model-parallel files ('%s'...), each a slice of "
			   "every split tensor; quantaudit does not merge "
			   "them, so they are not inspected%s", n_ranks,
			   first_rank, parallel);
	else if (!single && n_dist)
		ar_finding(ar, QA1509, ar->path, -1, "the NeMo checkpoint's "
			   "weights are a Megatron-Core distributed checkpoint "
			   "(model_weights/, %zu files), which quantaudit does "
			   "not read: they are not inspected%s", n_dist,
			   parallel);
	ar->nemo = malloc(strlen(cfg.target) + strlen(weights) +
			  strlen(parallel) + 64);
	if (!ar->nemo)
		return false;
	sprintf(ar->nemo, "NeMo checkpoint%s%s (model_config.yaml), %s",
		cfg.target[0] ? " " : "", cfg.target, weights);
	return true;
}

/* ---- the archive -------------------------------------------------------------- */

int
qa_archive_open(const struct qa_fs *fs, const char *path,
		struct qa_archive **out, char *err, size_t errlen)
{
	struct qa_archive *ar;
	unsigned char head[512];
	size_t n;
	const char *label;
	int rc;

	*out = NULL;
	ar = calloc(1, sizeof(*ar));
	if (!ar)
		return QA_E_NOMEM;
	ar->refs = 1;
	ar->path = strdup(path);
	ar->root = malloc(strlen(path) + 2);
	if (!ar->path || !ar->root) {
		qa_archive_release(ar);
		return QA_E_NOMEM;
	}
	sprintf(ar->root, "%s!", path);
	if (fs->open(fs, path, &ar->src) != QA_OK) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(ar->src.err ? ar->src.err : EIO));
		qa_archive_release(ar);
		return QA_E_IO;
	}
	ar->src_open = true;
	n = ar->src.size < sizeof(head) ? (size_t)ar->src.size : sizeof(head);
	if (qa_source_read(&ar->src, 0, head, n) != QA_OK) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(ar->src.err ? ar->src.err : EIO));
		qa_archive_release(ar);
		return QA_E_IO;
	}
	label = qa_archive_probe(path, head, n, ar->src.size);
	if (label && (strcmp(label, "zip") == 0 ||
		      strcmp(label, "llamafile") == 0)) {
		ar->format = label;
		ar->llamafile = strcmp(label, "llamafile") == 0;
		rc = ar_zip_list(ar, err, errlen);
	} else {
		char why[256] = "";

		rc = tar_list(ar, ends_with(path, ".nemo"), why, sizeof(why));
		if (rc == QA_E_UNRECOGNIZED)
			snprintf(err, errlen, "'%s' is not an archive "
				 "quantaudit reads (tar, optionally gzip-, "
				 "zstd-, xz-, bzip2- or lz4-compressed; zip; "
				 "llamafile): %s%s", path, why,
				 label && strncmp(label, "tar.", 4) == 0 ?
				 " (a compressed single file? decompress it "
				 "first)" : "");
	}
	if (rc == QA_OK && !ar_finalize(ar))
		rc = QA_E_NOMEM;
	if (rc == QA_OK) {
		ar_inner_archives(ar);
		ar->fs.stat = afs_stat;
		ar->fs.open = afs_open;
		ar->fs.list = afs_list;
		ar->fs.ctx = ar;
		ar->fs.why = NULL;
		if (!nemo_inspect(ar))
			rc = QA_E_NOMEM;
	}
	if (rc != QA_OK) {
		if (rc == QA_E_NOMEM)
			snprintf(err, errlen, "out of memory");
		qa_archive_release(ar);
		return rc;
	}
	*out = ar;
	return QA_OK;
}

struct qa_archive *
qa_archive_ref(struct qa_archive *ar)
{
	if (ar)
		ar->refs++;
	return ar;
}

void
qa_archive_release(struct qa_archive *ar)
{
	size_t i;

	if (!ar || --ar->refs > 0)
		return;
	for (i = 0; i < ar->n; i++) {
		free(ar->m[i].name);
		free(ar->m[i].path);
		free(ar->m[i].kept);
	}
	for (i = 0; i < ar->nf; i++) {
		free(ar->f[i].file);
		free(ar->f[i].message);
	}
	if (ar->src_open)
		qa_source_close(&ar->src);
	free(ar->nemo);
	free(ar->m);
	free(ar->sorted);
	free(ar->f);
	free(ar->path);
	free(ar->root);
	free(ar);
}

const struct qa_fs *
qa_archive_fs(struct qa_archive *ar)
{
	return &ar->fs;
}

const char *
qa_archive_root(const struct qa_archive *ar)
{
	return ar->root;
}

const char *
qa_archive_path(const struct qa_archive *ar)
{
	return ar->path;
}

const char *
qa_archive_format(const struct qa_archive *ar)
{
	return ar->format;
}

bool
qa_archive_has_findings(const struct qa_archive *ar)
{
	return ar->nf > 0;
}

/* Members as a model report counts them: not the root folder entry. */
static uint32_t
count_members(const struct qa_archive *ar)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < ar->n; i++)
		if (ar->m[i].name[0] && ar->m[i].type != AR_DIR)
			n++;
	return n;
}

void
qa_archive_describe(const struct qa_archive *ar, char *buf, size_t len)
{
	size_t i, k, shown = 0;
	uint32_t n = count_members(ar);

	k = (size_t)snprintf(buf, len, "%" PRIu32 " member%s", n,
			     n == 1 ? "" : "s");
	for (i = 0; i < ar->n && k < len; i++) {
		const struct ar_member *m = &ar->m[i];

		if (!m->name[0] || m->type == AR_DIR)
			continue;
		if (shown == 6) {
			k += (size_t)snprintf(buf + k, len - k, ", ...");
			break;
		}
		k += (size_t)snprintf(buf + k, len - k, "%s%s",
				      shown ? ", " : ": ", m->name);
		shown++;
	}
}

size_t
qa_archive_annotate(const struct qa_archive *ar, struct qa_inventory *inv,
		    const char *kind)
{
	size_t i;

	inv->archive.file = qa_arena_strdup(&inv->arena, ar->path);
	inv->archive.format = ar->format;
	inv->archive.kind = qa_arena_strdup(&inv->arena, kind);
	inv->archive.read = ar->streamed ? "streamed" : "in-place";
	inv->archive.members = count_members(ar);
	inv->archive.bytes = ar->declared_total;
	if (!inv->input_note)
		inv->input_note = qa_arena_printf(&inv->arena, "%s archive %s, "
						  "%" PRIu32 " members, %s%s%s",
						  ar->format, ar->path,
						  inv->archive.members,
						  ar->streamed ?
						  "streamed without "
						  "extracting" :
						  ar->some_streamed ?
						  "stored members read in "
						  "place, compressed ones "
						  "streamed" :
						  "members read in place",
						  ar->nemo ? "; " : "",
						  ar->nemo ? ar->nemo : "");
	for (i = 0; i < ar->nf; i++)
		qa_inv_finding(inv, ar->f[i].code, ar->f[i].file,
			       ar->f[i].offset, NULL, "%s", ar->f[i].message);
	if (!inv->archive.file || !inv->archive.kind)
		inv->out_of_memory = true;
	return ar->n_not_inspected;
}
