/* SPDX-License-Identifier: MIT */
/*
 * Internals of the archive reader, in three files with one direction of
 * use: formats/archive_members.c (the member table, name and link checks,
 * findings, what a streamed member keeps, libarchive over the archive's
 * source), formats/archive_zip.c (the zip central directory and its
 * compressed members) and formats/archive.c (recognition, tar through
 * libarchive, the members' file system). Not an interface: include
 * formats/archive.h instead.
 */
#ifndef QA_ARCHIVE_INTERNAL
#error "formats/archive_int.h is internal to formats/archive*.c"
#endif
#ifndef QA_FORMATS_ARCHIVE_INT_H
#define QA_FORMATS_ARCHIVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/archive.h"

enum ar_type {
	AR_FILE,
	AR_DIR,
	AR_SYMLINK,
	AR_HARDLINK,
	AR_SPECIAL,		/* device, FIFO, socket */
};

/* Why a regular member's bytes cannot be given to a loader. */
enum ar_why {
	AR_OK = 0,
	AR_NOT_KEPT,		/* streamed past: the bound or the budget */
	AR_ENCRYPTED,
	AR_UNDECODABLE,		/* compression libarchive cannot decode, or
				 * a read error inside the member */
	AR_NOT_REACHED,		/* after the point where reading stopped */
	AR_PAST_END,		/* its bytes run past the end of the archive */
	AR_NESTED,		/* an archive itself: not opened */
};

struct ar_member {
	char *name;		/* normalized: no "./" or empty components,
				 * no trailing '/'; malloc'd */
	char *path;		/* "<root>/<name>", malloc'd */
	enum ar_type type;
	uint64_t size;		/* uncompressed bytes */
	int64_t header_offset;	/* of its header in the archive file (tar
				 * header, zip local header); -1 when not
				 * known (a compressed tar) */
	bool in_place;		/* stored contiguous: bytes at offset */
	uint64_t offset;	/* data offset in the archive file */
	unsigned char *kept;	/* streamed members: the first kept_len
				 * bytes, malloc'd (NULL when none) */
	uint64_t kept_len;
	bool kept_set;		/* streamed and kept: kept is its content */
	bool want_stream;	/* zip: compressed, to be streamed */
	uint64_t csize;		/* zip: compressed bytes */
	enum ar_why why;	/* AR_OK when readable */
	bool hidden;		/* not in the file system: unsafe name, or
				 * shadowed by a later member of that name */
};

struct ar_finding {
	unsigned code;
	char *file;		/* display path, malloc'd */
	int64_t offset;		/* in the archive file, -1 if none */
	char *message;		/* malloc'd */
};

struct qa_archive {
	unsigned refs;
	char *path;		/* as given */
	char *root;		/* path + "!" */
	const char *format;	/* static label */
	bool streamed;		/* a compressed tar: members were streamed */
	bool some_streamed;	/* zip: compressed members were streamed */
	bool llamafile;
	struct qa_source src;	/* the archive file */
	bool src_open;

	struct ar_member *m;
	size_t n, cap;
	struct ar_member **sorted;	/* visible members by name */
	size_t n_sorted;

	struct ar_finding *f;
	size_t nf, capf;
	size_t n_not_inspected;	/* members with a reason in why */

	uint64_t kept_total;	/* bytes kept in memory */
	uint64_t declared_total;	/* sum of member sizes */
	bool bomb;		/* QA1502 reported */
	bool stopped;		/* reading stopped before the end */
	char *nemo;		/* a NeMo checkpoint: what it holds, for the
				 * input note; malloc'd, NULL otherwise */
	struct qa_fs fs;
};

/* Adds a finding (message printf-style); false when out of memory.
 * file is the archive's path: offset is in the archive file, and the
 * message names the member. */
bool ar_finding(struct qa_archive *ar, unsigned code, const char *file,
		int64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/*
 * Adds a member from its raw name (len bytes, may hold NUL): checks the
 * name (QA1504 when unsafe: the member is hidden) and normalizes it.
 * Returns the member (zeroed besides name, path, type, size and
 * header_offset) or NULL when out of memory.
 */
struct ar_member *ar_add_member(struct qa_archive *ar, const char *raw,
				size_t len, enum ar_type type, uint64_t size,
				int64_t header_offset);
/* The name as a message shows it: control bytes as \xNN. */
void ar_escape(char *out, size_t cap, const char *raw, size_t len);
/* Checks a link's target (relative to the link's folder for a symbolic
 * link, to the archive's root for a hard link): QA1507 when it escapes,
 * else QA1506. */
void ar_check_link(struct qa_archive *ar, const struct ar_member *m,
		   const char *target, size_t len, bool hard);
/* Marks m unreadable for why, with a QA1509 finding naming it. */
void ar_not_inspected(struct qa_archive *ar, struct ar_member *m,
		      enum ar_why why, const char *detail);

/*
 * Streaming a member: what to keep of it, fed block by block. The keeper
 * decides from the name and the first bytes (GGUF: up to the end of its
 * header; safetensors: the 8-byte length and the JSON header; side files
 * whole; anything else QA_ARCHIVE_KEEP_HEAD), within the bounds.
 */
struct ar_keeper {
	struct qa_archive *ar;
	struct ar_member *m;
	unsigned char *buf;
	size_t len, cap;
	uint64_t target;	/* bytes to keep; UINT64_MAX: not known yet */
	uint64_t next_scan;	/* GGUF: buffer length of the next scan */
	int kind;		/* 0 undecided, 1 GGUF, 2 other */
	bool full;		/* target reached: feed ignores the rest */
	bool over;		/* would pass a bound: nothing kept */
};

void ar_keeper_start(struct ar_keeper *k, struct qa_archive *ar,
		     struct ar_member *m);
/* Feeds n more bytes of the member; false when out of memory. */
bool ar_keeper_feed(struct ar_keeper *k, const void *data, size_t n);
/* Whether the keeper wants more bytes. */
bool ar_keeper_wants(const struct ar_keeper *k);
/* Ends the member: m->kept set, or m marked not inspected; complete
 * says whether the member's bytes were read to its end. */
void ar_keeper_finish(struct ar_keeper *k, bool complete);

/*
 * After listing: the last of several members with one name wins (the
 * others are hidden, QA1505), names equal but for case are named, the
 * declared total is bounded (QA1502), and the visible members are sorted
 * for the file system. False when out of memory.
 */
bool ar_finalize(struct qa_archive *ar);

/*
 * Members that are archives themselves (by name: .tar, .tar.gz, .zip,
 * .nemo, .gz, .7z...) are not opened: archives inside archives multiply
 * every bound (a bomb inside a bomb), and no model format nests them.
 * Each is QA1509 and unreadable.
 */
void ar_inner_archives(struct qa_archive *ar);

/*
 * libarchive is loaded when the first archive is opened, not linked: with
 * it come libxml2, ICU, libstdc++, nettle and five compression libraries,
 * whose relocations cost about 2 ms of every process (most of the time
 * of inspecting a small GGUF). As systemd does for it
 * (src/shared/libarchive-util.c), every function used is called through
 * a pointer that ar_la_load() fills with dlsym; the pointers are set
 * before the first struct archive exists (ar_la_open loads), and every
 * other function takes one.
 */
#include <archive.h>
#include <archive_entry.h>

#define AR_LA_SYMBOLS(X) \
	X(archive_entry_filetype) \
	X(archive_entry_hardlink) \
	X(archive_entry_pathname) \
	X(archive_entry_pathname_utf8) \
	X(archive_entry_size) \
	X(archive_entry_size_is_set) \
	X(archive_entry_sparse_count) \
	X(archive_entry_symlink) \
	X(archive_error_string) \
	X(archive_filter_bytes) \
	X(archive_filter_code) \
	X(archive_read_data) \
	X(archive_read_data_block) \
	X(archive_read_free) \
	X(archive_read_header_position) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open1) \
	X(archive_read_set_callback_data) \
	X(archive_read_set_close_callback) \
	X(archive_read_set_read_callback) \
	X(archive_read_set_seek_callback) \
	X(archive_read_set_skip_callback) \
	X(archive_read_support_filter_bzip2) \
	X(archive_read_support_filter_gzip) \
	X(archive_read_support_filter_lz4) \
	X(archive_read_support_filter_lzma) \
	X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) \
	X(archive_read_support_format_tar) \
	X(archive_read_support_format_zip_seekable) \
	X(archive_set_error)
#define AR_LA_DECLARE(name) extern __typeof__(name) *sym_##name;
AR_LA_SYMBOLS(AR_LA_DECLARE)
#undef AR_LA_DECLARE
/* Loads libarchive once per process; false with err set when it cannot
 * (not installed, or without a function used here). */
bool ar_la_load(char *err, size_t errlen);

/* libarchive reading the archive's source (pread through qa_source, so
 * every byte counts in src.bytes_read). */
struct archive;
enum ar_la_kind {
	AR_LA_TAR,		/* tar, under any compression filter */
	AR_LA_ZIP,		/* zip, read by seeking (central directory) */
};
/* A reader opened on ar->src, or NULL with err set. Free with
 * ar_la_close(). */
struct archive *ar_la_open(struct qa_archive *ar, enum ar_la_kind kind,
			   char *err, size_t errlen);
void ar_la_close(struct archive *a);
/* Whether decompression has passed the bomb bound (QA1502 is then
 * reported once and ar->stopped set). */
bool ar_la_bomb(struct qa_archive *ar, struct archive *a);

/*
 * Lists a zip (or a zip appended to an executable) from its central
 * directory, then streams the compressed members that want it through
 * libarchive (formats/archive_zip.c). Returns QA_OK (findings on ar),
 * QA_E_UNRECOGNIZED when no end of central directory is found (err says
 * so), QA_E_IO or QA_E_NOMEM.
 */
int ar_zip_list(struct qa_archive *ar, char *err, size_t errlen);

#endif /* QA_FORMATS_ARCHIVE_INT_H */
