/* SPDX-License-Identifier: MIT */
/*
 * Content hashes of a model (`quantaudit hash`, `verify`): XXH3-128 of
 * every tensor's bytes, of each file's header and of every other byte of
 * each file (alignment padding, trailing bytes), so that a change to any
 * byte of any file is caught and named by the region it falls in; and,
 * when asked, the SHA-256 of each whole file (what the Hugging Face hub
 * lists for LFS files).
 *
 * The inventory says where each tensor is; the bytes are read with
 * pread(2) in large blocks by --jobs threads, each taking the next region
 * in file and offset order, so the disk sees near-sequential reads. A
 * read error is recorded with its offset on the region it hit, and the
 * other regions are still hashed.
 */
#ifndef QA_INTEGRITY_CONTENT_H
#define QA_INTEGRITY_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/inventory.h"

/* An XXH3-128 value: hi is the first 16 hex digits as xxh128sum prints
 * the canonical (big-endian) form. */
struct qa_digest {
	uint64_t hi, lo;
};

/* Why a region has no hash. */
enum qa_region_state {
	QA_REGION_HASHED,
	QA_REGION_PAST_END,	/* declared past the end of its file */
	QA_REGION_READ_ERROR,	/* error_offset, error_errno say where, why */
	QA_REGION_NOT_STORED,	/* a compressed archive member: only its
				 * header was kept */
	QA_REGION_NO_FILE,	/* its file could not be opened */
	QA_REGION_SKIPPED,	/* not asked for (a visit run) */
};

struct qa_region_hash {
	enum qa_region_state state;
	struct qa_digest digest;
	uint64_t error_offset;	/* absolute in the file */
	int error_errno;
};

/* Header bytes that mean "the whole file" (files without tensors). */
#define QA_HEADER_WHOLE_FILE UINT64_MAX

struct qa_file_hash {
	const char *path;	/* relative to the model's folder */
	const char *display;	/* the path it is opened by and reports
				 * name */
	uint64_t bytes;		/* its size when hashed */
	uint64_t header_bytes;	/* [0, header_bytes): the header; a file
				 * without tensors is all header
				 * (QA_HEADER_WHOLE_FILE until hashed) */
	struct qa_region_hash header;
	uint64_t other_bytes;	/* bytes in neither header nor tensors */
	struct qa_region_hash other;
	bool has_sha256;
	struct qa_region_hash sha_state;	/* state of the whole-file
						 * SHA-256 read */
	unsigned char sha256[32];
	int open_errno;		/* 0, or why it could not be opened */
};

struct qa_tensor_hash {
	const char *name;
	uint32_t file;		/* index into files */
	uint64_t offset, bytes;
	const char *dtype;
	struct qa_region_hash h;
};

struct qa_content {
	struct qa_file_hash *files;
	uint32_t n_files;
	struct qa_tensor_hash *tensors;
	uint32_t n_tensors;
	uint64_t bytes_hashed;	/* bytes read and hashed (SHA-256 reads
				 * counted again) */
	uint32_t n_unhashed;	/* regions without a hash */
};

/* Called from the caller's thread about ten times a second while
 * hashing runs: bytes done of total. */
typedef void (*qa_content_progress)(void *ctx, uint64_t done,
				    uint64_t total);

/* Called, from a worker thread, with consecutive pieces of tensor t:
 * n bytes at offset at in the tensor, n a whole multiple of the
 * tensor's unit (the last piece too, when the tensor's size is one).
 * Pieces of one tensor come in order from one thread. */
typedef void (*qa_content_visit)(void *ctx, uint32_t t, uint64_t at,
				 const unsigned char *p, size_t n);

struct qa_content_options {
	unsigned jobs;		/* threads; 0: one per online CPU */
	bool sha256;		/* also the SHA-256 of each whole file */
	size_t block;		/* bytes per read; 0: the default */
	qa_content_progress progress;	/* NULL: none */
	void *progress_ctx;
	/* A visit run (integrity/scan.c) instead of hashing: only the
	 * tensors with unit[t] > 0 are read, in pieces of whole units,
	 * handed to visit; no digest, header or other bytes. */
	qa_content_visit visit;
	void *visit_ctx;
	const uint32_t *unit;
};

/*
 * What to hash for the model inv describes: its files (paths relative to
 * the folder they share), their headers and its tensors, allocated in
 * inv's arena. QA_OK or QA_E_NOMEM.
 */
int qa_content_plan(struct qa_inventory *inv, struct qa_content *out);

/*
 * Hashes what c lists (files by display path through fs; their headers
 * and tensors; the rest of each file), filling in sizes, states and
 * digests; the gap lists go to arena. A region past the end of its file
 * as it is now is marked QA_REGION_PAST_END with the file's size as its
 * offset. Returns QA_OK (read errors are recorded per region), or
 * QA_E_NOMEM, or QA_E_IO when libxxhash cannot be loaded (err says so).
 */
int qa_content_hash(const struct qa_fs *fs, struct qa_arena *arena,
		    const struct qa_content_options *opt,
		    struct qa_content *c, char *err, size_t errlen);

/* The file system inv's files open through for their data: the
 * archive's members while the pipeline runs a model read from one
 * (struct qa_inventory.member_fs), else inv->fs. */
const struct qa_fs *qa_content_fs(const struct qa_inventory *inv);

/* 32 lowercase hex digits and a NUL. */
void qa_digest_hex(const struct qa_digest *d, char out[33]);
/* Parses 32 hex digits (either case); false otherwise. */
bool qa_digest_parse(const char *s, struct qa_digest *d);

/* What a region state is, for reports: "past the end of the file"... */
const char *qa_region_state_text(enum qa_region_state s);
/*
 * Why a region has no hash, with where: "read error at offset N: EIO",
 * "past the end of the file (it ends at offset N)", "the file cannot be
 * opened: ENOENT", else the state's text (manifests, scan's QA1708).
 */
void qa_region_why(const struct qa_region_hash *h, char *out, size_t n);

#endif /* QA_INTEGRITY_CONTENT_H */
