/* SPDX-License-Identifier: MIT */
/*
 * Archives as model folders: tar (plain, or compressed with gzip, zstd,
 * xz, bzip2, lz4), zip, llamafile (a zip appended to an executable) and
 * NeMo's .nemo (a tar), read through libarchive without extracting
 * anything to disk.
 *
 * Opening an archive lists its members once. Members stored uncompressed
 * in a seekable container (plain tar, zip "stored", llamafile) are read in
 * place: a member's source is the byte range [offset, offset + size) of
 * the archive file, so reading a model's header reads the header and
 * nothing else. Members of a compressed stream (tar.gz, tar.zst, a
 * deflated zip member) are streamed once while the archive is listed;
 * what the loaders will read of each (a GGUF header, a safetensors
 * header, a side file whole, the first 4 KiB of anything else) is kept in
 * memory within documented bounds (docs/security.md "Archives") and the
 * rest is streamed past.
 *
 * The members are then a file system (struct qa_fs, core/source.h) rooted
 * at "<archive>!": the member config.json of model.tar.gz is
 * "model.tar.gz!/config.json" (the notation of Java's jar: URLs). Every
 * loader, and the folder resolver, work on it unchanged.
 *
 * Hostile content (traversal in names, links, device entries, duplicate
 * names, bombs, absurd member counts, a llamafile its loader cannot map,
 * a truncated archive) does not make opening fail: it is kept as findings
 * on the archive, which qa_archive_annotate() copies into each model read
 * from it. Members that are archives themselves are named and never
 * opened. A NeMo checkpoint (model_config.yaml at the root) is recognized:
 * its config's model class and parallel sizes go into the input note,
 * and weights in a layout quantaudit does not read (one file per
 * model-parallel rank, a distributed checkpoint) are named as findings.
 */
#ifndef QA_FORMATS_ARCHIVE_H
#define QA_FORMATS_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"
#include "core/source.h"

struct qa_archive;

/* Bounds (docs/security.md "Archives"). */
#define QA_ARCHIVE_MAX_MEMBERS 65536u	/* members listed */
#define QA_ARCHIVE_NAME_MAX 4096u	/* bytes in a member name */
/* Bytes kept in memory from one streamed member, and from all. */
#define QA_ARCHIVE_KEEP_MEMBER ((uint64_t)128 << 20)
#define QA_ARCHIVE_KEEP_TOTAL ((uint64_t)512 << 20)
/* Bytes kept of a streamed member no loader reads whole: enough for
 * every probe (formats/input.c reads 512). */
#define QA_ARCHIVE_KEEP_HEAD ((uint64_t)4096)
/* A bomb: past QA_ARCHIVE_BOMB_FLOOR uncompressed bytes, more than
 * QA_ARCHIVE_BOMB_RATIO times the compressed ones; or members declaring
 * more than QA_ARCHIVE_MAX_TOTAL bytes in all. */
#define QA_ARCHIVE_BOMB_FLOOR ((uint64_t)1 << 30)
#define QA_ARCHIVE_BOMB_RATIO 100u
#define QA_ARCHIVE_MAX_TOTAL ((uint64_t)16 << 40)

/*
 * Is the file at path (first n bytes head, size bytes) an archive? The
 * format label ("tar", "tar.gz", "zip", "llamafile", "nemo"...) as far
 * as the first bytes and the name tell, or NULL. A zip appended to an
 * executable is looked for only in files named *.llamafile or *.zip or
 * starting like an executable (APE "MZqFpD", ELF, "#!").
 */
const char *qa_archive_probe(const char *path, const uint8_t *head, size_t n,
			     uint64_t size);

/*
 * Opens the archive at path on fs and lists its members (streaming a
 * compressed archive once). Returns QA_OK with *out (one reference),
 * QA_E_UNRECOGNIZED when it is no archive quantaudit reads (err says
 * what it is), QA_E_IO (err names the system error) or QA_E_NOMEM. The
 * archive keeps its file open until the last reference is released.
 */
int qa_archive_open(const struct qa_fs *fs, const char *path,
		    struct qa_archive **out, char *err, size_t errlen);
/* Another reference to ar (for each model read from it). */
struct qa_archive *qa_archive_ref(struct qa_archive *ar);
/* Drops a reference; the last one frees the archive. Accepts NULL. */
void qa_archive_release(struct qa_archive *ar);

/* The members as a file system, rooted at qa_archive_root(). Valid
 * while ar is. */
const struct qa_fs *qa_archive_fs(struct qa_archive *ar);
/* "<path>!": the folder the members are in. */
const char *qa_archive_root(const struct qa_archive *ar);
/* The archive's path as given. */
const char *qa_archive_path(const struct qa_archive *ar);
/* The format label ("tar.gz", "llamafile"...). */
const char *qa_archive_format(const struct qa_archive *ar);
/* Whether listing the archive gave findings. */
bool qa_archive_has_findings(const struct qa_archive *ar);
/*
 * What the archive holds, for a message when it holds no model: "3
 * members: model_config.yaml, model_weights.ckpt, tokenizer.model".
 */
void qa_archive_describe(const struct qa_archive *ar, char *buf,
			 size_t len);

/*
 * After a model of ar was loaded into inv: copies the archive's findings
 * and facts (inv->archive) into it. kind is the model's own kind inside
 * the archive ("gguf", "safetensors", "hf-dir", or "none" when it holds
 * no model). Returns the number of findings about members a loader could
 * not read (not inspected), which tells a read error of the load apart
 * from a system error.
 */
size_t qa_archive_annotate(const struct qa_archive *ar,
			   struct qa_inventory *inv, const char *kind);

#endif /* QA_FORMATS_ARCHIVE_H */
