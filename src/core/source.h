/* SPDX-License-Identifier: MIT */
/*
 * Byte sources and the bounded sequential reader.
 *
 * Formats never touch a file descriptor: they read byte ranges from a
 * struct qa_source (a plain file, bytes in memory, a byte range of another
 * source — a member stored in an archive — or the first bytes of a member
 * streamed out of a compressed archive; HTTP ranges plug in behind
 * the same ops table: src/remote/). Every read is
 * bounds-checked against the source size and counted in bytes_read, which
 * is how the tests prove that inspecting a 20 GB model reads only its
 * header.
 *
 * struct qa_reader is a buffered forward cursor over a source with
 * little/big-endian integer getters. Getters return false on overrun (the
 * caller turns that into a "truncated" finding at reader->pos) and never
 * read past the end of the source.
 */
#ifndef QA_SRC_SOURCE_H
#define QA_SRC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"

struct qa_source;

/* How a kind of source reads; one const table per kind. */
struct qa_source_ops {
	/* Reads exactly len bytes at off (inside the source: checked by
	 * qa_source_read). Returns QA_OK or QA_E_IO with src->err set. */
	int (*read)(struct qa_source *src, uint64_t off, void *buf,
		    size_t len);
	void (*close)(struct qa_source *src);
};

struct qa_source {
	const struct qa_source_ops *ops;
	const char *path;	/* as the user gave it (borrowed) */
	uint64_t size;		/* bytes in the source */
	uint64_t bytes_read;	/* bytes delivered by qa_source_read() */
	int err;		/* errno of the last failed read, 0 if none */
	int fd;			/* file source: read-only descriptor or -1 */
	const unsigned char *mem;	/* memory source: the bytes */
	uint64_t mem_len;	/* prefix source: bytes held at mem (the
				 * rest of size was streamed past) */
	struct qa_source *parent;	/* range source: the source read */
	uint64_t base;		/* range source: offset of byte 0 in parent */
	const char *not_regular;	/* failed open: what the path is
					 * instead of a regular file ("a
					 * FIFO", "a folder"...), else NULL */
	uint64_t dev, ino;	/* file source: what fstat said it is */
	uint64_t err_off;	/* file source: where the failed read stopped */
	bool shrank;		/* file source: it ended before its size */
	void *ctx;		/* a source kind of another layer (an HTTP
				 * file, src/remote/): its state */
};

/*
 * The last read of a file that failed on this thread: the file (its path
 * cut to fit), the offset of the first byte not read, the errno, and
 * whether the file ended before the size it had when opened. For the one
 * line that says why an input cannot be read (formats/input.c): the
 * loader resets it before loading and asks for it when the load fails
 * with QA_E_IO. A range source (an archive member) records its file's.
 */
struct qa_read_failure {
	char path[512];
	uint64_t off;
	int err;
	bool shrank;
};
void qa_read_failure_reset(void);
bool qa_read_failure_last(struct qa_read_failure *out);
/* Why f failed, for messages: "read error at offset N: <strerror>", or
 * "the file ended at offset N, before the size it had when opened (it
 * shrank while read)". */
void qa_read_failure_why(const struct qa_read_failure *f, char *out,
			 size_t n);

/* Result codes shared by the core (negative = failure). */
enum qa_err {
	QA_OK = 0,
	QA_E_UNRECOGNIZED = -1,	/* not a format we know: exit 3 */
	QA_E_IO = -2,		/* read error: exit 4 */
	QA_E_NOMEM = -3,	/* allocation failed: exit 4 */
	QA_E_SHORT = -4,	/* range past the end of the source */
	QA_E_USAGE = -5,	/* bad arguments: exit 2 */
};

/*
 * Opens the regular file at path read-only. Never blocks: the open is
 * non-blocking and the descriptor's own fstat (not an earlier stat of the
 * path, which a swap could outdate) must show a regular file, so a FIFO,
 * a device or a socket is refused (err EINVAL, or EISDIR for a folder,
 * and src->not_regular saying which) instead of waiting for a writer.
 * A file whose permissions forbid reading it gets src->not_regular
 * QA_UNREADABLE_WHAT (err EACCES or EPERM).
 * Returns QA_OK, or QA_E_IO with errno in src->err.
 */
int qa_source_open(struct qa_source *src, const char *path);
/* The same, refusing a symbolic link as the last component (QA_E_IO,
 * err ELOOP): for a file a listing has just shown to be no link. */
int qa_source_open_nofollow(struct qa_source *src, const char *path);
/* The not_regular of a file that may not be read (loaders report it as
 * QA1412, qa_inv_unreadable, not as a special file). */
#define QA_UNREADABLE_WHAT "a file its permissions forbid reading"
/* What an st_mode is, for messages: "a FIFO", "a character device", "a
 * block device", "a socket", "a folder" (static strings). */
const char *qa_mode_what(unsigned mode);
/* A source over len bytes in memory (not copied: data must outlive it). */
void qa_source_open_memory(struct qa_source *src, const char *path,
			   const void *data, size_t len);
/*
 * A source over [base, base+len) of parent: a member stored uncompressed
 * in an archive, read in place. Reads go to the parent (and count in
 * both); the parent must stay open while this source is used. Closing it
 * leaves the parent open. A range past the parent's end reads as
 * QA_E_IO (err EIO), like a file that shrank.
 */
void qa_source_open_range(struct qa_source *src, const char *path,
			  struct qa_source *parent, uint64_t base,
			  uint64_t len);
/*
 * A source of size bytes of which only the first kept are in memory at
 * data (not copied): the header of a member streamed out of a compressed
 * archive. A read that reaches past kept fails with QA_E_IO and err
 * EFBIG (the bytes were streamed past and not kept).
 */
void qa_source_open_prefix(struct qa_source *src, const char *path,
			   const void *data, uint64_t kept, uint64_t size);
/* Closes the source; safe on a closed or failed source. */
void qa_source_close(struct qa_source *src);
/*
 * Reads exactly len bytes at off into buf. Returns QA_OK, QA_E_SHORT when
 * [off, off+len) is not inside the source, QA_E_IO on a read error.
 */
int qa_source_read(struct qa_source *src, uint64_t off, void *buf,
		   size_t len);

/*
 * Where the bytes of src are, for readers on other threads (hashing):
 * a descriptor to pread at base + off (a file, or a range over one), or
 * bytes in memory (a memory source, or the kept bytes of a prefix
 * source). avail is how many bytes, from byte 0, can be read that way:
 * less than src->size only for a prefix source. The source (and its
 * parent) must stay open while the span is used; reads through a span
 * are not counted in bytes_read.
 */
struct qa_source_span {
	int fd;				/* -1 when the bytes are at mem */
	uint64_t base;
	const unsigned char *mem;
	uint64_t avail;
};
void qa_source_span(const struct qa_source *src, struct qa_source_span *out);

/*
 * Where sources come from: the file system (qa_fs_default) or, for tests
 * and fuzzers, a set of files in memory (qa_memfs). Every loader opens,
 * stats and lists through the inventory's qa_fs, so a test can hand a
 * whole model folder over without temporary files and count what is
 * opened.
 */
enum qa_node_kind {
	QA_NODE_MISSING,
	QA_NODE_FILE,		/* a regular file (symbolic links followed) */
	QA_NODE_DIR,
	QA_NODE_OTHER,		/* FIFO, device, socket */
	QA_NODE_OUTSIDE,	/* a symbolic link out of the folder a
				 * confined file system keeps to
				 * (core/confine.h): not followed */
};

struct qa_dirent {
	char *name;
	enum qa_node_kind kind;
	uint64_t size;		/* files */
	bool not_link;		/* known to be no symbolic link (readdir's
				 * d_type), so a confined listing need not
				 * lstat it; false when unknown */
};

struct qa_fs {
	/* Kind and size of path; QA_OK, or QA_E_IO with *err = errno
	 * (kind QA_NODE_MISSING when it does not exist). */
	int (*stat)(const struct qa_fs *fs, const char *path,
		    enum qa_node_kind *kind, uint64_t *size, int *err);
	int (*open)(const struct qa_fs *fs, const char *path,
		    struct qa_source *src);
	/* The entries of dir except hidden ones ('.' first), sorted by
	 * name; free with qa_dirents_free. QA_OK, QA_E_IO, QA_E_NOMEM. */
	int (*list)(const struct qa_fs *fs, const char *dir,
		    struct qa_dirent **out, size_t *n);
	void *ctx;
	/* NULL, or the words of the last failed stat, open or read when
	 * they say more than its errno: a server's HTTP status and URL
	 * (src/remote/). NULL when there are none. */
	const char *(*why)(const struct qa_fs *fs);
};

/* The real file system. */
const struct qa_fs *qa_fs_default(void);

/* The last part of path, for messages and reports: "m.gguf" of
 * "dir/m.gguf", "dir/" of "a/dir/" (trailing slashes are not a part),
 * path itself when it has no '/' before its last part. */
const char *qa_path_base(const char *path);
void qa_dirents_free(struct qa_dirent *d, size_t n);

/*
 * An in-memory file system: files added by path (folders are implied by
 * the paths). The data is borrowed. qa_memfs_fs() gives the qa_fs view;
 * opens counts every open per file (tests check that a run reads each
 * side file once).
 */
struct qa_memfs_file {
	const char *path;
	const void *data;
	size_t len;
	unsigned opens;
	const char *special;	/* not a regular file: what it is ("a
				 * FIFO"); stat and list say QA_NODE_OTHER
				 * and open fails as qa_source_open does */
	bool swapped;		/* special, but stat and list still say a
				 * regular file (replaced after listing) */
};

struct qa_memfs {
	struct qa_memfs_file files[64];
	size_t n;
	struct qa_fs fs;
};

void qa_memfs_init(struct qa_memfs *m);
/* Adds a file; false when the table is full. */
bool qa_memfs_add(struct qa_memfs *m, const char *path, const void *data,
		  size_t len);
/* Adds a path that is not a regular file (what: "a FIFO"...); with
 * swapped, stat and list still report it as a regular file, as when it
 * was replaced between listing and opening. False when full. */
bool qa_memfs_add_special(struct qa_memfs *m, const char *path,
			  const char *what, bool swapped);
const struct qa_fs *qa_memfs_fs(struct qa_memfs *m);

#define QA_READER_BUF ((size_t)64 * 1024)
/* The first read of a reader; each later one doubles up to the buffer. */
#define QA_READER_FIRST ((size_t)16 * 1024)

struct qa_reader {
	struct qa_source *src;
	uint64_t pos;		/* absolute offset of the next byte */
	bool big_endian;	/* swap multi-byte integers and floats */
	int err;		/* QA_E_SHORT or QA_E_IO once a read failed */
	uint64_t buf_off;	/* absolute offset of buf[0] */
	size_t buf_len;		/* valid bytes in buf */
	size_t chunk;		/* bytes the next read asks for */
	bool exact;		/* a read ahead failed: read only what is
				 * asked for */
	unsigned char buf[QA_READER_BUF];
};

void qa_reader_init(struct qa_reader *r, struct qa_source *src, uint64_t pos);
/* Bytes left between pos and the end of the source. */
uint64_t qa_reader_remaining(const struct qa_reader *r);
bool qa_reader_bytes(struct qa_reader *r, void *out, size_t n);
bool qa_reader_skip(struct qa_reader *r, uint64_t n);
/*
 * The bytes already buffered at the cursor (*avail of them, possibly 0)
 * for a caller that walks many small fields itself, then moves the
 * cursor with qa_reader_skip. NULL with *avail 0 after an error. The
 * pointer is good until the next call on r.
 */
const unsigned char *qa_reader_buffered(const struct qa_reader *r,
					size_t *avail);
bool qa_reader_u8(struct qa_reader *r, uint8_t *v);
bool qa_reader_u16(struct qa_reader *r, uint16_t *v);
bool qa_reader_u32(struct qa_reader *r, uint32_t *v);
bool qa_reader_u64(struct qa_reader *r, uint64_t *v);
/*
 * Steps over count length-prefixed strings (u64 length, then the bytes),
 * as GGUF token and merge arrays store them, without copying them: the
 * hot path of reading a 150k-token vocabulary. Returns 0; 1 when a length
 * exceeds max_len, or 2 when a string runs past the end of the source —
 * then r->pos is left at that length field and *bad_len holds it; -1 on a
 * read error (r->err).
 */
int qa_reader_skip_strings(struct qa_reader *r, uint64_t count,
			   uint64_t max_len, uint64_t *bad_len);
/*
 * Reads n bytes into a fresh NUL-terminated arena string (the bytes may
 * themselves contain NUL; *out gets the length-counted copy). Fails with
 * QA_E_SHORT if fewer than n bytes remain and QA_E_NOMEM if the arena says
 * no; the caller checks the length against its own limit first.
 */
bool qa_reader_string(struct qa_reader *r, struct qa_arena *a, uint64_t n,
		      char **out);

#endif /* QA_SRC_SOURCE_H */
