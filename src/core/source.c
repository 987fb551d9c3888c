/* SPDX-License-Identifier: MIT */
/*
 * Byte sources (a file read with pread on an O_RDONLY descriptor —
 * inputs are never opened writable — bytes in memory, a range of another
 * source, or the kept prefix of a streamed archive member), the file
 * systems they come from (the real one, an in-memory one for tests and
 * fuzzers), and the buffered bounded reader.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE	/* readdir's d_type (DT_LNK) where the libc has it */
#include "core/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ckd.h"

const char *
qa_path_base(const char *path)
{
	const char *end = path + strlen(path), *p;

	while (end > path && end[-1] == '/')
		end--;
	for (p = end; p > path && p[-1] != '/'; p--)
		;
	return p == end ? path : p;
}

/* ---- file sources ------------------------------------------------------ */

static int
file_read(struct qa_source *src, uint64_t off, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = pread(src->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			src->err = errno;
			src->err_off = off;
			src->shrank = false;
			return QA_E_IO;
		}
		if (n == 0) {
			/* The file shrank under us. */
			src->err = EIO;
			src->err_off = off;
			src->shrank = true;
			return QA_E_IO;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return QA_OK;
}

static void
file_close(struct qa_source *src)
{
	if (src->fd >= 0) {
		close(src->fd);
		src->fd = -1;
	}
}

static const struct qa_source_ops file_ops = { file_read, file_close };

static int source_open_flags(struct qa_source *src, const char *path,
			     int extra);

int
qa_source_open(struct qa_source *src, const char *path)
{
	return source_open_flags(src, path, 0);
}

int
qa_source_open_nofollow(struct qa_source *src, const char *path)
{
	return source_open_flags(src, path, O_NOFOLLOW);
}

static int
source_open_flags(struct qa_source *src, const char *path, int extra)
{
	struct stat st;

	memset(src, 0, sizeof(*src));
	src->path = path;
	src->ops = &file_ops;
	/* O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
	 * It changes nothing for the regular files read here and is
	 * cleared once fstat has confirmed one. O_NOCTTY: a terminal
	 * device must not become the controlling terminal. */
	src->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
			   extra);
	if (src->fd < 0) {
		src->err = errno;
		/* Permission bits come with the download (tar and unzip
		 * restore them): the model's doing, a finding (QA1412). */
		if (errno == EACCES || errno == EPERM)
			src->not_regular = QA_UNREADABLE_WHAT;
		return QA_E_IO;
	}
	if (fstat(src->fd, &st) != 0) {
		src->err = errno;
		goto out_close_fd;
	}
	if (!S_ISREG(st.st_mode)) {
		src->not_regular = qa_mode_what(st.st_mode);
		src->err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto out_close_fd;
	}
	/* F_SETFL sets only the status flags (access mode and creation
	 * flags are ignored): 0 clears O_NONBLOCK, the one set here. */
	(void)fcntl(src->fd, F_SETFL, 0);
	src->size = (uint64_t)st.st_size;
	src->dev = (uint64_t)st.st_dev;
	src->ino = (uint64_t)st.st_ino;
	return QA_OK;
out_close_fd:
	close(src->fd);
	src->fd = -1;
	return QA_E_IO;
}

const char *
qa_mode_what(unsigned mode)
{
	if (S_ISDIR(mode))
		return "a folder";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return S_ISREG(mode) ? "a regular file" : "not a regular file";
}

/* ---- memory sources ---------------------------------------------------- */

static int
mem_read(struct qa_source *src, uint64_t off, void *buf, size_t len)
{
	memcpy(buf, src->mem + off, len);
	return QA_OK;
}

static void
mem_close(struct qa_source *src)
{
	src->mem = NULL;
}

static const struct qa_source_ops mem_ops = { mem_read, mem_close };

/* ---- range and prefix sources (archive members) ----------------------- */

static int
range_read(struct qa_source *src, uint64_t off, void *buf, size_t len)
{
	uint64_t at;
	int rc;

	if (qa_ckd_add(&at, src->base, off)) {
		src->err = EIO;
		return QA_E_IO;
	}
	rc = qa_source_read(src->parent, at, buf, len);
	if (rc != QA_OK) {
		src->err = src->parent->err ? src->parent->err : EIO;
		return QA_E_IO;
	}
	return QA_OK;
}

static void
range_close(struct qa_source *src)
{
	src->parent = NULL;
}

static const struct qa_source_ops range_ops = { range_read, range_close };

void
qa_source_open_range(struct qa_source *src, const char *path,
		     struct qa_source *parent, uint64_t base, uint64_t len)
{
	memset(src, 0, sizeof(*src));
	src->ops = &range_ops;
	src->path = path;
	src->fd = -1;
	src->parent = parent;
	src->base = base;
	src->size = len;
}

static int
prefix_read(struct qa_source *src, uint64_t off, void *buf, size_t len)
{
	if (off > src->mem_len || len > src->mem_len - off) {
		src->err = EFBIG;
		return QA_E_IO;
	}
	memcpy(buf, src->mem + off, len);
	return QA_OK;
}

static const struct qa_source_ops prefix_ops = { prefix_read, mem_close };

void
qa_source_span(const struct qa_source *src, struct qa_source_span *out)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (src->ops == &range_ops && src->parent) {
		qa_source_span(src->parent, out);
		if (src->base >= out->avail) {
			out->avail = 0;
		} else {
			out->avail -= src->base;
			if (out->avail > src->size)
				out->avail = src->size;
		}
		if (out->fd >= 0)
			out->base += src->base;
		else if (out->mem)
			out->mem += src->base;
		return;
	}
	if (src->ops == &file_ops) {
		out->fd = src->fd;
		out->avail = src->fd >= 0 ? src->size : 0;
	} else if (src->ops == &prefix_ops) {
		out->mem = src->mem;
		out->avail = src->mem_len;
	} else if (src->ops == &mem_ops) {
		out->mem = src->mem;
		out->avail = src->mem ? src->size : 0;
	}
}

void
qa_source_open_prefix(struct qa_source *src, const char *path,
		      const void *data, uint64_t kept, uint64_t size)
{
	memset(src, 0, sizeof(*src));
	src->ops = &prefix_ops;
	src->path = path;
	src->fd = -1;
	src->mem = data;
	src->mem_len = kept < size ? kept : size;
	src->size = size;
}

void
qa_source_open_memory(struct qa_source *src, const char *path,
		      const void *data, size_t len)
{
	memset(src, 0, sizeof(*src));
	src->ops = &mem_ops;
	src->path = path;
	src->fd = -1;
	src->mem = data;
	src->size = len;
}

void
qa_source_close(struct qa_source *src)
{
	if (src && src->ops && src->ops->close)
		src->ops->close(src);
}

/* The last read that failed on this thread (source.h): written where a
 * file or streamed source fails, read once the input is given up. */
static _Thread_local struct qa_read_failure last_failure;

void
qa_read_failure_reset(void)
{
	last_failure.err = 0;
}

bool
qa_read_failure_last(struct qa_read_failure *out)
{
	if (!last_failure.err)
		return false;
	*out = last_failure;
	return true;
}

void
qa_read_failure_why(const struct qa_read_failure *f, char *out, size_t n)
{
	if (f->shrank)
		snprintf(out, n, "the file ended at offset %" PRIu64 ", before "
			 "the size it had when opened (it shrank while read)",
			 f->off);
	else
		snprintf(out, n, "read error at offset %" PRIu64 ": %s",
			 f->off, strerror(f->err));
}

/* A range source's failure is its parent's, recorded there: the file
 * and offset that could not be read, not the member's. */
static void
record_failure(const struct qa_source *src, uint64_t off, size_t len)
{
	size_t n;

	if (src->ops == &range_ops)
		return;
	n = src->path ? strlen(src->path) : 0;
	if (n >= sizeof(last_failure.path))
		n = sizeof(last_failure.path) - 1;
	if (n)
		memcpy(last_failure.path, src->path, n);
	last_failure.path[n] = '\0';
	last_failure.off = src->err_off >= off && src->err_off - off < len ?
			   src->err_off : off;
	last_failure.err = src->err ? src->err : EIO;
	last_failure.shrank = src->shrank;
}

int
qa_source_read(struct qa_source *src, uint64_t off, void *buf, size_t len)
{
	int rc;

	if (off > src->size || len > src->size - off)
		return QA_E_SHORT;
	if (len == 0)
		return QA_OK;
	if (!src->ops || (src->ops == &file_ops && src->fd < 0) ||
	    ((src->ops == &mem_ops || src->ops == &prefix_ops) &&
	     !src->mem) || (src->ops == &range_ops && !src->parent)) {
		src->err = EBADF;
		return QA_E_IO;
	}
	rc = src->ops->read(src, off, buf, len);
	if (rc == QA_OK)
		src->bytes_read += (uint64_t)len;
	else if (rc == QA_E_IO)
		record_failure(src, off, len);
	return rc;
}

/* ---- the real file system --------------------------------------------- */

static int
posix_stat(const struct qa_fs *fs, const char *path, enum qa_node_kind *kind,
	   uint64_t *size, int *err)
{
	struct stat st;

	(void)fs;
	*kind = QA_NODE_MISSING;
	*size = 0;
	*err = 0;
	if (stat(path, &st) != 0) {
		*err = errno;
		return errno == ENOENT || errno == ENOTDIR ? QA_OK : QA_E_IO;
	}
	if (S_ISREG(st.st_mode)) {
		*kind = QA_NODE_FILE;
		*size = (uint64_t)st.st_size;
	} else {
		*kind = S_ISDIR(st.st_mode) ? QA_NODE_DIR : QA_NODE_OTHER;
	}
	return QA_OK;
}

static int
posix_open(const struct qa_fs *fs, const char *path, struct qa_source *src)
{
	(void)fs;
	return qa_source_open(src, path);
}

static int
cmp_dirent(const void *a, const void *b)
{
	return strcmp(((const struct qa_dirent *)a)->name,
		      ((const struct qa_dirent *)b)->name);
}

void
qa_dirents_free(struct qa_dirent *d, size_t n)
{
	size_t i;

	for (i = 0; d && i < n; i++)
		free(d[i].name);
	free(d);
}

static int
posix_list(const struct qa_fs *fs, const char *dir, struct qa_dirent **out,
	   size_t *n_out)
{
	DIR *d;
	struct dirent *de;
	struct qa_dirent *v = NULL;
	size_t n = 0, cap = 0;

	(void)fs;
	*out = NULL;
	*n_out = 0;
	d = opendir(*dir ? dir : ".");
	if (!d)
		return QA_E_IO;
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			struct qa_dirent *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv)
				goto nomem;
			v = nv;
			cap = ncap;
		}
		memset(&v[n], 0, sizeof(v[n]));
		v[n].name = strdup(de->d_name);
		if (!v[n].name)
			goto nomem;
		/* fstatat follows symbolic links: a Hugging Face cache
		 * snapshot is links into blobs/. */
		if (fstatat(dirfd(d), de->d_name, &st, 0) != 0)
			v[n].kind = QA_NODE_MISSING;
		else if (S_ISREG(st.st_mode))
			v[n].kind = QA_NODE_FILE;
		else
			v[n].kind = S_ISDIR(st.st_mode) ? QA_NODE_DIR :
				    QA_NODE_OTHER;
		v[n].size = v[n].kind == QA_NODE_FILE ?
			    (uint64_t)st.st_size : 0;
#ifdef DT_LNK
		v[n].not_link = de->d_type != DT_LNK &&
				de->d_type != DT_UNKNOWN;
#endif
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_dirent);
	*out = v;
	*n_out = n;
	return QA_OK;
nomem:
	closedir(d);
	qa_dirents_free(v, n);
	return QA_E_NOMEM;
}

static const struct qa_fs posix_fs = { posix_stat, posix_open, posix_list,
				       NULL, NULL };

const struct qa_fs *
qa_fs_default(void)
{
	return &posix_fs;
}

/* ---- the in-memory file system ---------------------------------------- */

void
qa_memfs_init(struct qa_memfs *m)
{
	memset(m, 0, sizeof(*m));
}

bool
qa_memfs_add(struct qa_memfs *m, const char *path, const void *data,
	     size_t len)
{
	if (m->n == sizeof(m->files) / sizeof(m->files[0]))
		return false;
	memset(&m->files[m->n], 0, sizeof(m->files[m->n]));
	m->files[m->n].path = path;
	m->files[m->n].data = data;
	m->files[m->n].len = len;
	m->n++;
	return true;
}

bool
qa_memfs_add_special(struct qa_memfs *m, const char *path, const char *what,
		     bool swapped)
{
	if (!qa_memfs_add(m, path, NULL, 0))
		return false;
	m->files[m->n - 1].special = what;
	m->files[m->n - 1].swapped = swapped;
	return true;
}

/* The kind stat and list report for a memfs file. */
static enum qa_node_kind
memfs_kind(const struct qa_memfs_file *f)
{
	return f->special && !f->swapped ? QA_NODE_OTHER : QA_NODE_FILE;
}

/* Is path a folder holding the file at fpath ("a/b" of "a/b/c")? */
static bool
under(const char *fpath, const char *dir, const char **rest)
{
	size_t n = strlen(dir);

	if (n == 0 || (n == 1 && dir[0] == '.')) {
		*rest = fpath;
		return true;
	}
	if (dir[n - 1] == '/')
		n--;
	if (strncmp(fpath, dir, n) != 0 || fpath[n] != '/')
		return false;
	*rest = fpath + n + 1;
	return true;
}

static int
mem_stat(const struct qa_fs *fs, const char *path, enum qa_node_kind *kind,
	 uint64_t *size, int *err)
{
	const struct qa_memfs *m = fs->ctx;
	const char *rest;
	size_t i;

	*kind = QA_NODE_MISSING;
	*size = 0;
	*err = ENOENT;
	for (i = 0; i < m->n; i++) {
		if (strcmp(m->files[i].path, path) == 0) {
			*kind = memfs_kind(&m->files[i]);
			*size = m->files[i].len;
			*err = 0;
			return QA_OK;
		}
		if (under(m->files[i].path, path, &rest)) {
			*kind = QA_NODE_DIR;
			*err = 0;
		}
	}
	return QA_OK;
}

static int
memfs_open(const struct qa_fs *fs, const char *path, struct qa_source *src)
{
	struct qa_memfs *m = fs->ctx;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->files[i].path, path) == 0) {
			m->files[i].opens++;
			if (m->files[i].special) {
				memset(src, 0, sizeof(*src));
				src->fd = -1;
				src->err = EINVAL;
				src->not_regular = m->files[i].special;
				return QA_E_IO;
			}
			qa_source_open_memory(src, path, m->files[i].data,
					      m->files[i].len);
			return QA_OK;
		}
	memset(src, 0, sizeof(*src));
	src->fd = -1;
	src->err = ENOENT;
	return QA_E_IO;
}

static int
mem_list(const struct qa_fs *fs, const char *dir, struct qa_dirent **out,
	 size_t *n_out)
{
	const struct qa_memfs *m = fs->ctx;
	struct qa_dirent *v;
	const char *rest;
	size_t i, j, n = 0;

	*out = NULL;
	*n_out = 0;
	v = calloc(m->n ? m->n : 1, sizeof(*v));
	if (!v)
		return QA_E_NOMEM;
	for (i = 0; i < m->n; i++) {
		const char *slash;
		size_t len;
		bool dup = false;

		if (!under(m->files[i].path, dir, &rest) || rest[0] == '.')
			continue;
		slash = strchr(rest, '/');
		len = slash ? (size_t)(slash - rest) : strlen(rest);
		for (j = 0; j < n && !dup; j++)
			dup = strlen(v[j].name) == len &&
			      strncmp(v[j].name, rest, len) == 0;
		if (dup)
			continue;
		v[n].name = strndup(rest, len);
		if (!v[n].name) {
			qa_dirents_free(v, n);
			return QA_E_NOMEM;
		}
		v[n].kind = slash ? QA_NODE_DIR : memfs_kind(&m->files[i]);
		v[n].size = slash ? 0 : m->files[i].len;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_dirent);
	*out = v;
	*n_out = n;
	return QA_OK;
}

const struct qa_fs *
qa_memfs_fs(struct qa_memfs *m)
{
	m->fs.stat = mem_stat;
	m->fs.open = memfs_open;
	m->fs.list = mem_list;
	m->fs.ctx = m;
	m->fs.why = NULL;
	return &m->fs;
}

void
qa_reader_init(struct qa_reader *r, struct qa_source *src, uint64_t pos)
{
	r->src = src;
	r->pos = pos;
	r->big_endian = false;
	r->err = QA_OK;
	r->buf_off = 0;
	r->buf_len = 0;
	r->chunk = QA_READER_FIRST;
	r->exact = false;
}

uint64_t
qa_reader_remaining(const struct qa_reader *r)
{
	return r->pos >= r->src->size ? 0 : r->src->size - r->pos;
}

/* Makes [pos, pos+n) available in buf when n fits the buffer. */
static bool
fill(struct qa_reader *r, size_t n)
{
	uint64_t avail;
	size_t want;
	int rc;

	if (r->err)
		return false;
	/* Buffered bytes were read from the source: they are inside it. */
	if (r->pos >= r->buf_off && r->pos - r->buf_off <= r->buf_len &&
	    r->buf_len - (r->pos - r->buf_off) >= n)
		return true;
	avail = qa_reader_remaining(r);
	if (avail < n) {
		r->err = QA_E_SHORT;
		return false;
	}
	/* Reads grow from QA_READER_FIRST to the whole buffer: a small
	 * header costs one short read (and touches few pages), a large one
	 * few syscalls. */
	want = r->chunk < n ? n : r->chunk;
	if (r->exact)
		want = n;
	if (avail < want)
		want = (size_t)avail;
	rc = qa_source_read(r->src, r->pos, r->buf, want);
	if (rc == QA_E_IO && want > n) {
		/* The read ahead failed (a bad sector in tensor data past
		 * the header, a file cut short): the bytes asked for may
		 * still be there. From now on only those are read. */
		r->exact = true;
		want = n;
		rc = qa_source_read(r->src, r->pos, r->buf, want);
	}
	if (rc != QA_OK) {
		r->err = rc;
		return false;
	}
	r->buf_off = r->pos;
	r->buf_len = want;
	if (r->chunk < QA_READER_BUF)
		r->chunk *= 2;
	return true;
}

bool
qa_reader_bytes(struct qa_reader *r, void *out, size_t n)
{
	unsigned char *o = out;

	while (n > 0) {
		size_t chunk = n < QA_READER_BUF ? n : QA_READER_BUF;
		if (!fill(r, chunk))
			return false;
		memcpy(o, r->buf + (r->pos - r->buf_off), chunk);
		r->pos += chunk;
		o += chunk;
		n -= chunk;
	}
	return true;
}

bool
qa_reader_skip(struct qa_reader *r, uint64_t n)
{
	if (r->err)
		return false;
	if (qa_reader_remaining(r) < n) {
		r->err = QA_E_SHORT;
		return false;
	}
	r->pos += n;
	return true;
}

const unsigned char *
qa_reader_buffered(const struct qa_reader *r, size_t *avail)
{
	*avail = 0;
	if (r->err || r->pos < r->buf_off ||
	    r->pos - r->buf_off > r->buf_len)
		return NULL;
	*avail = r->buf_len - (size_t)(r->pos - r->buf_off);
	return r->buf + (r->pos - r->buf_off);
}

bool
qa_reader_u8(struct qa_reader *r, uint8_t *v)
{
	if (!fill(r, 1))
		return false;
	*v = r->buf[r->pos - r->buf_off];
	r->pos += 1;
	return true;
}

/* The n-byte (2, 4 or 8) integer at pos, in host order; advances. */
static uint64_t
load(struct qa_reader *r, size_t n)
{
	const unsigned char *p = r->buf + (r->pos - r->buf_off);
	uint64_t v;
	uint32_t v32;
	uint16_t v16;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const bool swap = r->big_endian;
#else
	const bool swap = !r->big_endian;
#endif

	r->pos += n;
	if (n == 8) {
		memcpy(&v, p, 8);
		return swap ? __builtin_bswap64(v) : v;
	}
	if (n == 4) {
		memcpy(&v32, p, 4);
		return swap ? __builtin_bswap32(v32) : v32;
	}
	memcpy(&v16, p, 2);
	return swap ? __builtin_bswap16(v16) : v16;
}

bool
qa_reader_u16(struct qa_reader *r, uint16_t *v)
{
	if (!fill(r, 2))
		return false;
	*v = (uint16_t)load(r, 2);
	return true;
}

bool
qa_reader_u32(struct qa_reader *r, uint32_t *v)
{
	if (!fill(r, 4))
		return false;
	*v = (uint32_t)load(r, 4);
	return true;
}

bool
qa_reader_u64(struct qa_reader *r, uint64_t *v)
{
	if (!fill(r, 8))
		return false;
	*v = load(r, 8);
	return true;
}

int
qa_reader_skip_strings(struct qa_reader *r, uint64_t count, uint64_t max_len,
		       uint64_t *bad_len)
{
	const uint64_t size = r->src->size;
	uint64_t pos = r->pos;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const bool swap = r->big_endian;
#else
	const bool swap = !r->big_endian;
#endif

	while (count > 0) {
		uint64_t off, room, last, len;

		/* The next length field must be in the buffer: refill from
		 * it otherwise (a 64 KiB read holds hundreds of tokens). */
		if (pos < r->buf_off || pos - r->buf_off > r->buf_len ||
		    r->buf_len - (pos - r->buf_off) < 8) {
			r->pos = pos;
			if (!fill(r, 8))
				return -1;
		}
		/* Offsets in the buffer: a length field at off (off <= last,
		 * so all 8 bytes are buffered) may be followed by at most
		 * room - off bytes of the source. */
		off = pos - r->buf_off;
		room = size - r->buf_off - 8;
		last = r->buf_len - 8;
		for (;;) {
			memcpy(&len, r->buf + off, 8);
			if (swap)
				len = __builtin_bswap64(len);
			if (len > max_len || len > room - off) {
				r->pos = r->buf_off + off;
				*bad_len = len;
				return len > max_len ? 1 : 2;
			}
			off += 8 + len;
			if (--count == 0 || off > last)
				break;
		}
		pos = r->buf_off + off;
	}
	r->pos = pos;
	return 0;
}

bool
qa_reader_string(struct qa_reader *r, struct qa_arena *a, uint64_t n,
		 char **out)
{
	char *s;

	if (r->err)
		return false;
	if (qa_reader_remaining(r) < n || n >= SIZE_MAX) {
		r->err = QA_E_SHORT;
		return false;
	}
	s = qa_arena_alloc(a, (size_t)n + 1);
	if (!s) {
		r->err = QA_E_NOMEM;
		return false;
	}
	if (!qa_reader_bytes(r, s, (size_t)n))
		return false;
	s[n] = '\0';
	*out = s;
	return true;
}
