/* SPDX-License-Identifier: MIT */
/*
 * The confined real file system (core/confine.h): the default file
 * system's stat, open and list, with symbolic links out of the root
 * folder reported instead of followed.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE	/* realpath */
#include "core/confine.h"

#include "core/arena.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool
hex_name(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool
qa_fs_hf_blob(const char *p)
{
	static const char *const repos[] = {
		"models--", "datasets--", "spaces--",
	};
	const char *blob = strrchr(p, '/'), *b, *repo;
	size_t n, i;

	if (!blob || blob - p < 7 || memcmp(blob - 6, "/blobs", 6) != 0)
		return false;
	n = strlen(blob + 1);
	if ((n != 40 && n != 64) || !hex_name(blob + 1, n))
		return false;
	/* the repo folder: the component before /blobs */
	b = blob - 6;
	repo = b;
	while (repo > p && repo[-1] != '/')
		repo--;
	for (i = 0; i < sizeof(repos) / sizeof(repos[0]); i++)
		if ((size_t)(b - repo) > strlen(repos[i]) &&
		    strncmp(repo, repos[i], strlen(repos[i])) == 0)
			return true;
	return false;
}

/* Is the real path r inside c's root (or a Hugging Face cache blob)? */
static bool
inside(const struct qa_confined_fs *c, const char *r)
{
	if (c->root_len == 1 && c->root[0] == '/')
		return true;
	if (strncmp(r, c->root, c->root_len) == 0 &&
	    (r[c->root_len] == '/' || r[c->root_len] == '\0'))
		return true;
	return qa_fs_hf_blob(r);
}

/*
 * Whether path is a symbolic link leading out of c's root. *real gets
 * the target's real path (malloc'd) when path is a link that stays
 * inside, else NULL; *st (when not NULL) what lstat said of path, its
 * st_mode 0 when lstat failed.
 */
static bool
escapes_st(const struct qa_confined_fs *c, const char *path, char **real,
	   struct stat *st)
{
	struct stat own;
	char *r;

	if (!st)
		st = &own;
	*real = NULL;
	if (lstat(path, st) != 0) {
		st->st_mode = 0;
		return false;
	}
	if (!S_ISLNK(st->st_mode))
		return false;
	r = realpath(path, NULL);
	if (!r)
		return false;	/* dangling or a loop: missing */
	if (!inside(c, r)) {
		free(r);
		return true;
	}
	*real = r;
	return false;
}

static bool
escapes(const struct qa_confined_fs *c, const char *path, char **real)
{
	return escapes_st(c, path, real, NULL);
}

static int
confined_stat(const struct qa_fs *fs, const char *path,
	      enum qa_node_kind *kind, uint64_t *size, int *err)
{
	const struct qa_confined_fs *c = fs->ctx;
	const struct qa_fs *real = qa_fs_default();
	struct stat st;
	char *r;

	if (escapes_st(c, path, &r, &st)) {
		*kind = QA_NODE_OUTSIDE;
		*size = 0;
		*err = 0;
		return QA_OK;
	}
	if (!r && st.st_mode != 0 && !S_ISLNK(st.st_mode)) {
		/* No link: the lstat just made is what stat would say, so
		 * it answers (one stat per call, not two: issue 31). */
		*err = 0;
		*size = 0;
		if (S_ISREG(st.st_mode)) {
			*kind = QA_NODE_FILE;
			*size = (uint64_t)st.st_size;
		} else {
			*kind = S_ISDIR(st.st_mode) ? QA_NODE_DIR : QA_NODE_OTHER;
		}
		return QA_OK;
	}
	free(r);
	return real->stat(real, path, kind, size, err);
}

static const struct qa_dir_memo *memo_find(const struct qa_confined_fs *c,
					   const char *dir);

/* Whether c's memo lists path as a regular file that readdir said is no
 * symbolic link. */
static bool
listed_plain_file(const struct qa_confined_fs *c, const char *path)
{
	const char *slash = strrchr(path, '/'), *name;
	const struct qa_dir_memo *m;
	char dir[QA_CONFINE_PATH_MAX];
	size_t lo, hi, dlen;

	if (!c->n_memo)
		return false;
	if (slash) {
		dlen = (size_t)(slash - path);
		if (dlen == 0 || dlen >= sizeof(dir))
			return false;
		memcpy(dir, path, dlen);
		dir[dlen] = '\0';
		name = slash + 1;
	} else {
		memcpy(dir, ".", 2);
		name = path;
	}
	m = memo_find(c, dir);
	if (!m)
		return false;
	/* listings are sorted by name (qa_fs.list): a binary search, or
	 * opening every shard of a set would be quadratic */
	lo = 0;
	hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(m->e[mid].name, name);

		if (cmp == 0)
			return m->e[mid].not_link &&
			       m->e[mid].kind == QA_NODE_FILE;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int
confined_open(const struct qa_fs *fs, const char *path,
	      struct qa_source *src)
{
	const struct qa_confined_fs *c = fs->ctx;
	struct stat want;
	char *r = NULL;
	bool checked;
	int rc;

	if (listed_plain_file(c, path)) {
		/* The listing saw a regular file and no link: O_NOFOLLOW
		 * refuses one swapped in since, so no lstat is needed (one
		 * stat per shard less: issue 31). A link found now takes the
		 * check below. */
		rc = qa_source_open_nofollow(src, path);
		if (rc == QA_OK || src->err != ELOOP)
			return rc;
	}
	if (escapes_st(c, path, &r, &want)) {
		/* refused as O_NOFOLLOW refuses a link; a loader that opens
		 * without a stat first still reports it (QA1411) */
		memset(src, 0, sizeof(*src));
		src->path = path;
		src->fd = -1;
		src->err = ELOOP;
		src->not_regular = QA_LINK_OUT_WHAT;
		return QA_E_IO;
	}
	/* What the file is now: the link's checked target, or the path
	 * itself when it is no link (the lstat just made). */
	checked = r ? stat(r, &want) == 0 : want.st_mode != 0;
	free(r);
	rc = qa_source_open(src, path);
	if (rc == QA_OK && (!checked || S_ISLNK(want.st_mode) ||
			    src->dev != (uint64_t)want.st_dev ||
			    src->ino != (uint64_t)want.st_ino)) {
		/* swapped for another file (or a link) since the check:
		 * not read */
		qa_source_close(src);
		src->err = EACCES;
		rc = QA_E_IO;
	}
	return rc;
}

/* A malloc'd copy of e[0..n) (callers free listings with
 * qa_dirents_free), or NULL. */
static struct qa_dirent *
copy_listing(const struct qa_dirent *e, size_t n)
{
	struct qa_dirent *v = calloc(n ? n : 1, sizeof(*v));
	size_t i;

	for (i = 0; v && i < n; i++) {
		v[i] = e[i];
		v[i].name = strdup(e[i].name);
		if (!v[i].name) {
			qa_dirents_free(v, i);
			return NULL;
		}
	}
	return v;
}

static const struct qa_dir_memo *
memo_find(const struct qa_confined_fs *c, const char *dir)
{
	size_t i;

	for (i = 0; i < c->n_memo; i++)
		if (strcmp(c->memo[i].dir, dir) == 0)
			return &c->memo[i];
	return NULL;
}

void
qa_fs_confined_memo(struct qa_confined_fs *c, struct qa_arena *a)
{
	c->memo_arena = a;
	c->n_memo = 0;
}

bool
qa_fs_confined_remember(struct qa_confined_fs *c, const char *dir,
			const struct qa_dirent *e, size_t n)
{
	struct qa_dir_memo *m;
	size_t i;

	if (!c->memo_arena || c->n_memo >= QA_CONFINE_MEMO ||
	    memo_find(c, dir))
		return false;
	m = &c->memo[c->n_memo];
	m->dir = qa_arena_strdup(c->memo_arena, dir);
	m->e = qa_arena_array_uninit(c->memo_arena, n ? n : 1, sizeof(*e));
	if (!m->dir || !m->e)
		return false;
	for (i = 0; i < n; i++) {
		m->e[i] = e[i];
		m->e[i].name = qa_arena_strdup(c->memo_arena, e[i].name);
		if (!m->e[i].name)
			return false;
	}
	m->n = n;
	c->n_memo++;
	return true;
}

static int
confined_list(const struct qa_fs *fs, const char *dir,
	      struct qa_dirent **out, size_t *n)
{
	struct qa_confined_fs *c = fs->ctx;
	const struct qa_fs *real = qa_fs_default();
	const struct qa_dir_memo *m = memo_find(c, dir);
	size_t i, dlen = strlen(dir);
	int rc;

	if (m) {
		*out = copy_listing(m->e, m->n);
		*n = *out ? m->n : 0;
		return *out ? QA_OK : QA_E_NOMEM;
	}
	rc = real->list(real, dir, out, n);
	if (rc != QA_OK)
		return rc;
	for (i = 0; i < *n; i++) {
		struct qa_dirent *e = &(*out)[i];
		size_t nlen = strlen(e->name), k = 0;
		char *p, *r;

		if (e->not_link)
			continue;	/* no link cannot lead outside */
		p = malloc(dlen + nlen + 2);
		if (!p) {
			qa_dirents_free(*out, *n);
			*out = NULL;
			*n = 0;
			return QA_E_NOMEM;
		}
		if (dlen) {
			memcpy(p, dir, dlen);
			k = dlen;
			p[k++] = '/';
		}
		memcpy(p + k, e->name, nlen + 1);
		if (escapes(c, p, &r)) {
			e->kind = QA_NODE_OUTSIDE;
			e->size = 0;
		}
		free(r);
		free(p);
	}
	(void)qa_fs_confined_remember(c, dir, *out, *n);
	return QA_OK;
}

int
qa_fs_confined_init_real(struct qa_confined_fs *c, const char *real_root)
{
	size_t n = strlen(real_root);

	if (n >= sizeof(c->root) || real_root[0] != '/')
		return QA_E_IO;
	memcpy(c->root, real_root, n + 1);
	c->root_len = n;
	c->fs.stat = confined_stat;
	c->fs.open = confined_open;
	c->fs.list = confined_list;
	c->fs.ctx = c;
	c->memo_arena = NULL;
	c->n_memo = 0;
	c->fs.why = NULL;
	return QA_OK;
}

int
qa_fs_confined_init(struct qa_confined_fs *c, const char *root)
{
	char *r;
	int rc;

	r = realpath(*root ? root : ".", NULL);
	if (!r)
		return QA_E_IO;
	rc = qa_fs_confined_init_real(c, r);
	free(r);
	return rc;
}

bool
qa_fs_outside(const struct qa_fs *fs, const char *path)
{
	char *r;
	bool out;

	if (!fs || fs->open != confined_open)
		return false;
	out = escapes(fs->ctx, path, &r);
	free(r);
	return out;
}

char *
qa_fs_real_path(const char *path)
{
	return realpath(path, NULL);
}

bool
qa_fs_link_text(const char *path, char *buf, size_t cap)
{
	ssize_t n;

	if (cap == 0)
		return false;
	n = readlink(path, buf, cap - 1);
	if (n < 0) {
		buf[0] = '\0';
		return false;
	}
	buf[n] = '\0';
	return true;
}
