/* SPDX-License-Identifier: MIT */
/*
 * Zip archives and llamafiles by their central directory (APPNOTE.TXT
 * 4.3: local headers, central directory, end of central directory, and
 * the ZIP64 records of 4.3.14-4.3.15 and extra field 0x0001).
 *
 * The layout comes from the central directory, as unzip, Python's
 * zipfile, libarchive's seeking reader and llamafile's loader read it:
 * the last end-of-central-directory record in the file's final 64 KiB,
 * then each entry's local header for where its data starts (30 bytes +
 * name + extra). Bytes before the zip (the executable of a llamafile)
 * shift every offset; like unzip and libarchive the shift is measured
 * (where the central directory is, minus where the record says it is)
 * and added back, and for a llamafile a non-zero shift is QA1512
 * because llamafile's loader does not (llamafile/llamafile.c
 * llamafile_open).
 *
 * Members stored uncompressed (method 0) are read in place; compressed
 * ones are streamed through libarchive's zip reader (seeking mode,
 * matched to the central directory by data offset) as far as the keeper
 * wants, and never further, so a zip bomb is never inflated. The checks
 * that need the raw central directory live here: a NUL byte in a name
 * (libarchive's entry names stop at it), a local header that disagrees
 * with its central entry, entries that share bytes (overlapping entries
 * are how non-recursive zip bombs multiply one compressed block), a
 * declared ratio past the bomb bound, encryption, and for a llamafile a
 * GGUF that is compressed or not 64 KiB-aligned.
 */
#define _POSIX_C_SOURCE 200809L
#define QA_ARCHIVE_INTERNAL
#include "formats/archive_int.h"

#include <archive.h>
#include <archive_entry.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"

#define EOCD_SIZE 22
#define Z64_LOCATOR_SIZE 20
#define Z64_EOCD_SIZE 56
#define CDIR_SIZE 46
#define LOCAL_SIZE 30
/* An end record's comment is at most 65535 bytes. */
#define TAIL_MAX ((uint64_t)65535 + EOCD_SIZE)
/* zipalign's default alignment (llamafile zipalign.1 -a). */
#define LLAMAFILE_ALIGN 65536u

static uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Where the central directory is, and its shape. */
struct cdir {
	uint64_t eocd;		/* offset of the end record */
	uint64_t end;		/* where the central directory ends */
	uint64_t start;		/* where it actually starts */
	uint64_t declared;	/* where the end record says it starts */
	uint64_t size;
	uint64_t entries;
	int64_t shift;		/* start - declared: bytes before the zip */
	uint16_t comment;	/* the end record's comment length */
};

/* Whether the file starts with a zip local header (not an executable
 * that might carry a zip at its end). */
static bool
starts_as_zip(struct qa_archive *ar)
{
	unsigned char h[4];

	return ar->src.size >= sizeof(h) &&
	       qa_source_read(&ar->src, 0, h, sizeof(h)) == QA_OK &&
	       memcmp(h, "PK\003\004", 4) == 0;
}

/* The offset in tail (n bytes) of the last end record signature whose
 * record fits and, unless lax, whose comment fits too; SIZE_MAX if
 * none. */
static size_t
last_eocd(const unsigned char *tail, size_t n, bool lax)
{
	size_t i;

	for (i = n - EOCD_SIZE + 1; i-- > 0;)
		if (memcmp(tail + i, "PK\005\006", 4) == 0 &&
		    (lax || i + EOCD_SIZE + le16(tail + i + 20) <= n))
			return i;
	return SIZE_MAX;
}

/* Finds the last end-of-central-directory record. QA_OK,
 * QA_E_UNRECOGNIZED (none), QA_E_IO. A record whose comment length runs
 * past the end of the file is taken only when no other is there and the
 * file starts as a zip (Python's zipfile takes it: Lib/zipfile/__init__.py
 * _EndRecData slices the comment without checking its length); that, and
 * bytes after the comment, are QA1515. */
static int
find_eocd(struct qa_archive *ar, struct cdir *cd, char *err, size_t errlen)
{
	struct qa_source *src = &ar->src;
	uint64_t n = src->size < TAIL_MAX ? src->size : TAIL_MAX;
	uint64_t base = src->size - n, after;
	unsigned char *tail;
	size_t i;
	bool found = false, lax = false;

	if (src->size < EOCD_SIZE) {
		snprintf(err, errlen, "'%s' is too short to be a zip archive",
			 ar->path);
		return QA_E_UNRECOGNIZED;
	}
	tail = malloc((size_t)n);
	if (!tail)
		return QA_E_NOMEM;
	if (qa_source_read(src, base, tail, (size_t)n) != QA_OK) {
		free(tail);
		snprintf(err, errlen, "cannot read '%s'", ar->path);
		return QA_E_IO;
	}
	/* From the end backwards: the record nearest the end wins, as
	 * every reader takes it (stale ones stay in appended zips). */
	i = last_eocd(tail, (size_t)n, false);
	if (i == SIZE_MAX && starts_as_zip(ar)) {
		i = last_eocd(tail, (size_t)n, true);
		lax = i != SIZE_MAX;
	}
	if (i != SIZE_MAX) {
		cd->eocd = base + i;
		cd->comment = le16(tail + i + 20);
		cd->entries = le16(tail + i + 10);
		cd->size = le32(tail + i + 12);
		cd->declared = le32(tail + i + 16);
		if (le16(tail + i + 4) != 0 || le16(tail + i + 6) != 0) {
			free(tail);
			snprintf(err, errlen, "'%s' is a multi-volume (split) "
				 "zip archive, which quantaudit does not read",
				 ar->path);
			return QA_E_UNRECOGNIZED;
		}
		found = true;
	}
	free(tail);
	if (!found) {
		snprintf(err, errlen, "'%s' has no zip end of central directory "
			 "record (not a zip archive, or truncated)", ar->path);
		return QA_E_UNRECOGNIZED;
	}
	after = cd->eocd + EOCD_SIZE;
	if (lax)
		ar_finding(ar, QA1515, ar->path, (int64_t)cd->eocd, "the end "
			   "record's comment is %u bytes long, but only %"
			   PRIu64 " bytes follow it (the file ends first)",
			   cd->comment, src->size - after);
	else if (after + cd->comment < src->size)
		ar_finding(ar, QA1515, ar->path, (int64_t)(after + cd->comment),
			   "%" PRIu64 " bytes follow the end of the zip (the "
			   "end record's %u-byte comment ends at offset %"
			   PRIu64 "): data appended after the archive, which "
			   "zip readers ignore and other readers may not",
			   src->size - after - cd->comment, cd->comment,
			   after + cd->comment);
	return QA_OK;
}

/* The ZIP64 end record, when a locator precedes the end record. */
static int
find_zip64(struct qa_archive *ar, struct cdir *cd)
{
	unsigned char loc[Z64_LOCATOR_SIZE], rec[Z64_EOCD_SIZE];
	uint64_t at, alt;

	cd->end = cd->eocd;
	if (cd->eocd < Z64_LOCATOR_SIZE ||
	    qa_source_read(&ar->src, cd->eocd - Z64_LOCATOR_SIZE, loc,
			   sizeof(loc)) != QA_OK ||
	    memcmp(loc, "PK\006\007", 4) != 0)
		return QA_OK;
	at = le64(loc + 8);
	/* The record sits right before its locator; its recorded offset
	 * does not count bytes before the zip. */
	alt = cd->eocd - Z64_LOCATOR_SIZE >= Z64_EOCD_SIZE ?
	      cd->eocd - Z64_LOCATOR_SIZE - Z64_EOCD_SIZE : UINT64_MAX;
	if (qa_source_read(&ar->src, at, rec, sizeof(rec)) != QA_OK ||
	    memcmp(rec, "PK\006\006", 4) != 0) {
		at = alt;
		if (at == UINT64_MAX ||
		    qa_source_read(&ar->src, at, rec, sizeof(rec)) != QA_OK ||
		    memcmp(rec, "PK\006\006", 4) != 0) {
			ar_finding(ar, QA1501, ar->path,
				   (int64_t)(cd->eocd - Z64_LOCATOR_SIZE),
				   "the ZIP64 end of central directory record "
				   "the locator points to is not there");
			return QA_E_UNRECOGNIZED;
		}
	}
	cd->end = at;
	/* The 32-bit fields of the end record are 0xFFFF(FFFF) when the
	 * ZIP64 record holds the value (APPNOTE 4.4.1.4), else the same
	 * value: readers that ignore ZIP64 take them. */
	if ((cd->entries != 0xFFFFu && cd->entries != le64(rec + 32)) ||
	    (cd->size != 0xFFFFFFFFu && cd->size != le64(rec + 40)) ||
	    (cd->declared != 0xFFFFFFFFu && cd->declared != le64(rec + 48)))
		ar_finding(ar, QA1515, ar->path, (int64_t)cd->eocd, "the end "
			   "record gives %" PRIu64 " entries, %" PRIu64 " bytes "
			   "at offset %" PRIu64 ", the ZIP64 end record %"
			   PRIu64 " entries, %" PRIu64 " bytes at offset %"
			   PRIu64 "; the ZIP64 values are used", cd->entries,
			   cd->size, cd->declared, le64(rec + 32),
			   le64(rec + 40), le64(rec + 48));
	cd->entries = le64(rec + 32);
	cd->size = le64(rec + 40);
	cd->declared = le64(rec + 48);
	return QA_OK;
}

/* A range of the archive an entry occupies: local header to data end. */
struct span {
	uint64_t start, end;
	size_t member;
};

static int
cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The fields of a central directory entry that matter here. */
struct centry {
	uint16_t made_by, flags, method;
	uint32_t external;
	uint64_t csize, usize, local;
	uint32_t csize32, usize32, crc;
};

/* Applies the ZIP64 extra field (id 1) to the fields that overflowed. */
static void
zip64_extra(struct centry *e, const unsigned char *x, size_t n, bool local32)
{
	size_t i = 0;

	while (i + 4 <= n) {
		uint16_t id = le16(x + i), len = le16(x + i + 2);
		size_t k = i + 4, endk = i + 4 + len;

		if (endk > n)
			break;
		if (id == 0x0001) {
			if (e->usize32 == 0xFFFFFFFFu && k + 8 <= endk) {
				e->usize = le64(x + k);
				k += 8;
			}
			if (e->csize32 == 0xFFFFFFFFu && k + 8 <= endk) {
				e->csize = le64(x + k);
				k += 8;
			}
			if (local32 && k + 8 <= endk)
				e->local = le64(x + k);
			break;
		}
		i = endk;
	}
}

static enum ar_type
entry_type(const struct centry *e, const char *name, size_t len)
{
	unsigned host = e->made_by >> 8;
	unsigned mode = e->external >> 16;

	if (len > 0 && name[len - 1] == '/')
		return AR_DIR;
	/* Unix (3) and macOS (19) keep st_mode in the high half. */
	if ((host == 3 || host == 19) && mode) {
		switch (mode & 0170000) {
		case 0120000:
			return AR_SYMLINK;
		case 0040000:
			return AR_DIR;
		case 0020000:
		case 0060000:
		case 0010000:
		case 0140000:
			return AR_SPECIAL;
		default:
			break;
		}
	}
	return AR_FILE;
}

/*
 * The data descriptor after m's data (at end; APPNOTE 4.3.9: an optional
 * signature, CRC-32, then the sizes, 8 bytes each for a ZIP64 entry).
 * Streaming readers take the sizes from it, seeking readers from the
 * central directory: a disagreement is QA1513. Returns where the entry
 * ends.
 */
static uint64_t
descriptor(struct qa_archive *ar, const struct ar_member *m,
	   const struct centry *e, uint64_t end, uint64_t cd_start)
{
	unsigned char d[24];
	bool wide = e->csize32 == 0xFFFFFFFFu || e->usize32 == 0xFFFFFFFFu;
	size_t sig, len;
	uint64_t dcrc, dcsize, dusize;

	if (cd_start - end < 12 ||
	    qa_source_read(&ar->src, end, d, cd_start - end < sizeof(d) ?
			   (size_t)(cd_start - end) : sizeof(d)) != QA_OK) {
		ar_finding(ar, QA1513, ar->path, m->header_offset, "'%s' "
			   "declares a data descriptor, and none follows its "
			   "data", m->name);
		return end;
	}
	sig = memcmp(d, "PK\007\010", 4) == 0 ? 4 : 0;
	len = sig + 4 + (wide ? 16 : 8);
	if (len > cd_start - end) {
		ar_finding(ar, QA1513, ar->path, m->header_offset, "the data "
			   "descriptor of '%s' runs into the central "
			   "directory", m->name);
		return end;
	}
	dcrc = le32(d + sig);
	dcsize = wide ? le64(d + sig + 4) : le32(d + sig + 4);
	dusize = wide ? le64(d + sig + 12) : le32(d + sig + 8);
	if (dcrc != e->crc || dcsize != e->csize || dusize != e->usize)
		ar_finding(ar, QA1513, ar->path, (int64_t)end, "the data "
			   "descriptor of '%s' gives %" PRIu64 " bytes (%"
			   PRIu64 " compressed, CRC-32 %08" PRIx64 "), the "
			   "central directory %" PRIu64 " (%" PRIu64 ", %08"
			   PRIx32 ")", m->name, dusize, dcsize, dcrc, e->usize,
			   e->csize, e->crc);
	return end + len;
}

/*
 * Reads the local header of m (central entry e, raw name of nlen bytes)
 * and sets where its data starts; findings when it disagrees with the
 * central entry. False when the member's data cannot be located.
 */
static bool
local_header(struct qa_archive *ar, struct ar_member *m,
	     const struct centry *e, const char *name, size_t nlen,
	     uint64_t cd_start, uint64_t *data, uint64_t *span_end)
{
	unsigned char h[LOCAL_SIZE];
	char lname[QA_ARCHIVE_NAME_MAX + 1];
	uint16_t ln, lx, lmethod, lflags;
	uint64_t at = (uint64_t)m->header_offset, end;
	size_t cmp;
	bool got;

	if (qa_source_read(&ar->src, at, h, sizeof(h)) != QA_OK ||
	    memcmp(h, "PK\003\004", 4) != 0) {
		ar_finding(ar, QA1501, ar->path, (int64_t)at, "the central "
			   "directory puts '%s' at offset %" PRIu64 ", where "
			   "there is no local header", m->name, at);
		return false;
	}
	lflags = le16(h + 6);
	lmethod = le16(h + 8);
	ln = le16(h + 26);
	lx = le16(h + 28);
	/* Names past QA_ARCHIVE_NAME_MAX are QA1504 already: their first
	 * bytes are compared. */
	cmp = ln < sizeof(lname) ? ln : sizeof(lname);
	got = qa_source_read(&ar->src, at + LOCAL_SIZE, lname, cmp) == QA_OK;
	if (!got) {
		ar_finding(ar, QA1501, ar->path, (int64_t)at, "the local header "
			   "of '%s' runs past the end of the archive", m->name);
		return false;
	}
	if (ln != nlen || memcmp(lname, name, cmp) != 0) {
		char esc[256];

		ar_escape(esc, sizeof(esc), lname, cmp);
		ar_finding(ar, QA1513, ar->path, (int64_t)at, "the local header "
			   "of '%s' names '%s'", m->name, esc);
	} else if (lmethod != e->method) {
		ar_finding(ar, QA1513, ar->path, (int64_t)at, "'%s' is stored "
			   "with compression method %u by its local header, "
			   "%u by the central directory", m->name, lmethod,
			   e->method);
	} else if ((lflags ^ e->flags) & 0x49) {
		/* bit 0 encrypted, 3 sizes in a data descriptor, 6 strong
		 * encryption: readers of either header disagree on how to
		 * read the data */
		ar_finding(ar, QA1513, ar->path, (int64_t)at, "the local header "
			   "of '%s' has flags 0x%04x, the central directory "
			   "0x%04x", m->name, lflags, e->flags);
	} else if (!(e->flags & 8) && le32(h + 18) != 0xFFFFFFFFu &&
		   (le32(h + 18) != e->csize32 || le32(h + 22) != e->usize32)) {
		ar_finding(ar, QA1513, ar->path, (int64_t)at, "the local header "
			   "of '%s' gives %" PRIu32 " bytes (%" PRIu32
			   " compressed), the central directory %" PRIu64
			   " (%" PRIu64 ")", m->name, le32(h + 22),
			   le32(h + 18), e->usize, e->csize);
	} else if (!(e->flags & 8) && le32(h + 14) != e->crc) {
		ar_finding(ar, QA1513, ar->path, (int64_t)at, "the local header "
			   "of '%s' gives CRC-32 %08" PRIx32 ", the central "
			   "directory %08" PRIx32, m->name, le32(h + 14),
			   e->crc);
	}
	*data = at + LOCAL_SIZE + ln + lx;
	if (qa_ckd_add(&end, *data, e->csize) || end > cd_start) {
		ar_finding(ar, QA1501, ar->path, (int64_t)at, "the data of '%s' "
			   "(%" PRIu64 " bytes at offset %" PRIu64 ") runs "
			   "into the central directory or past the end of "
			   "the archive", m->name, e->csize, *data);
		return false;
	}
	*span_end = end;
	if (e->flags & 8)
		*span_end = descriptor(ar, m, e, end, cd_start);
	return true;
}

/* Checks a link member's target when its bytes are stored in place. */
static void
zip_link(struct qa_archive *ar, struct ar_member *m, const struct centry *e,
	 uint64_t data)
{
	char target[4096];

	if (e->method == 0 && e->csize == e->usize &&
	    e->usize <= sizeof(target) &&
	    qa_source_read(&ar->src, data, target, (size_t)e->usize) ==
	    QA_OK)
		ar_check_link(ar, m, target, (size_t)e->usize, false);
	else
		ar_finding(ar, QA1506, ar->path, (int64_t)m->header_offset,
			   "'%s' is a symbolic link (its target is "
			   "compressed and not read); quantaudit does not "
			   "follow it", m->name);
}

/* What a regular member is: read in place, streamed, or neither. */
static void
zip_file(struct qa_archive *ar, struct ar_member *m, const struct centry *e,
	 uint64_t data, uint64_t *n_ratio, const char **first_ratio)
{
	m->csize = e->csize;
	m->offset = data;
	if (e->usize > QA_ARCHIVE_BOMB_FLOOR &&
	    e->usize / QA_ARCHIVE_BOMB_RATIO > e->csize) {
		if ((*n_ratio)++ == 0)
			*first_ratio = m->name;
	}
	if (ar->llamafile && ends_with(m->name, ".gguf")) {
		if (e->method != 0)
			ar_finding(ar, QA1510, ar->path,
				   (int64_t)m->header_offset, "'%s' is "
				   "compressed (method %u): llamafile maps "
				   "weights only from stored members",
				   m->name, e->method);
		else if (data % LLAMAFILE_ALIGN)
			ar_finding(ar, QA1511, ar->path, (int64_t)data,
				   "the data of '%s' starts at offset %" PRIu64
				   ", %" PRIu64 " bytes past a 64 KiB boundary",
				   m->name, data, data % LLAMAFILE_ALIGN);
	}
	if (e->flags & 0x41) {
		ar_not_inspected(ar, m, AR_ENCRYPTED, "it is encrypted");
		return;
	}
	if (e->method == 0) {
		if (e->csize != e->usize) {
			ar_finding(ar, QA1513, ar->path,
				   (int64_t)m->header_offset, "'%s' is stored "
				   "uncompressed but declares %" PRIu64
				   " bytes and %" PRIu64 " stored", m->name,
				   e->usize, e->csize);
			ar_not_inspected(ar, m, AR_UNDECODABLE, "its sizes "
					 "contradict each other");
			return;
		}
		m->in_place = true;
		return;
	}
	m->want_stream = true;
}

/* Whether a central directory entry signature is at pos, before end. */
static bool
entry_at(struct qa_archive *ar, uint64_t pos, uint64_t end)
{
	unsigned char sig[4];

	return pos + CDIR_SIZE <= end &&
	       qa_source_read(&ar->src, pos, sig, sizeof(sig)) == QA_OK &&
	       memcmp(sig, "PK\001\002", 4) == 0;
}

/* Local headers reported as hidden per archive, at most. */
#define HIDDEN_MAX 16

/*
 * Local headers no central entry points to, where a streaming reader
 * meets them: at the start of the zip, or right after an entry's data
 * (and descriptor) where the next listed entry does not start. spans
 * is sorted by start. A streaming reader goes on after such a member
 * to the next local header, so a run of them is followed.
 */
static void
hidden_locals(struct qa_archive *ar, const struct cdir *cd,
	      const struct span *spans, size_t n)
{
	size_t i, reported = 0;
	uint64_t zip_start = (uint64_t)cd->shift;

	for (i = 0; i <= n && reported < HIDDEN_MAX; i++) {
		uint64_t pos = i == 0 ? zip_start : spans[i - 1].end;
		uint64_t next = i < n ? spans[i].start : cd->start;

		if (i > 0 && i < n && spans[i - 1].end > spans[i].start)
			continue;	/* overlapping: QA1502 */
		while (pos < next && next - pos >= LOCAL_SIZE &&
		       reported < HIDDEN_MAX) {
			unsigned char h[LOCAL_SIZE];
			char lname[256], esc[256];
			uint16_t ln;
			uint64_t csize, end;

			if (qa_source_read(&ar->src, pos, h, sizeof(h)) !=
			    QA_OK || memcmp(h, "PK\003\004", 4) != 0)
				break;
			ln = le16(h + 26);
			csize = le32(h + 18);
			if (qa_source_read(&ar->src, pos + LOCAL_SIZE, lname,
					   ln < sizeof(lname) ? ln :
					   sizeof(lname)) != QA_OK)
				ln = 0;
			ar_escape(esc, sizeof(esc), lname,
				  ln < sizeof(lname) ? ln : sizeof(lname));
			ar_finding(ar, QA1516, ar->path, (int64_t)pos, "a "
				   "local header at offset %" PRIu64 " names "
				   "'%s' (%" PRIu32 " bytes), and no central "
				   "directory entry lists it: a streaming "
				   "reader extracts it, quantaudit does not "
				   "inspect it", pos, esc, le32(h + 22));
			reported++;
			/* its data, when the header gives its size */
			if (le16(h + 6) & 8 || csize == 0xFFFFFFFFu ||
			    qa_ckd_add(&end, pos + LOCAL_SIZE + ln +
				       le16(h + 28), csize) || end <= pos)
				break;
			pos = end;
		}
	}
}

/* Reads the central directory entries. */
static int
walk(struct qa_archive *ar, const struct cdir *cd)
{
	struct qa_reader *r = malloc(sizeof(*r));
	struct span *spans = NULL;
	unsigned char h[CDIR_SIZE];
	char *name = malloc(65536);
	unsigned char *extra = malloc(65536);
	uint64_t i, n_ratio = 0;
	const char *first_ratio = NULL;
	size_t n_spans = 0, cap_spans = 0;
	bool more_than_counted = false;
	int rc = QA_OK;

	if (!r || !name || !extra)
		goto nomem;
	qa_reader_init(r, &ar->src, cd->start);
	/* Every entry the directory holds is read, whatever the end record
	 * counts: Python's zipfile (_RealGetContents) walks the directory
	 * by its size, libarchive (slurp_central_directory) to its end. */
	for (i = 0;; i++) {
		struct centry e;
		struct ar_member *m;
		uint16_t nlen, xlen, clen;
		uint64_t data = 0, local, span_end = 0;

		if (i >= cd->entries) {
			if (!entry_at(ar, r->pos, cd->end))
				break;
			if (!more_than_counted)
				ar_finding(ar, QA1515, ar->path,
					   (int64_t)r->pos, "the end record "
					   "counts %" PRIu64 " entries, and the "
					   "central directory holds more (entry %"
					   PRIu64 " at offset %" PRIu64 "): "
					   "every entry is read", cd->entries,
					   i + 1, r->pos);
			more_than_counted = true;
		} else if (r->pos == cd->end) {
			ar_finding(ar, QA1515, ar->path, (int64_t)cd->eocd,
				   "the end record counts %" PRIu64 " entries, "
				   "and the central directory's %" PRIu64
				   " bytes hold %" PRIu64, cd->entries,
				   cd->size, i);
			break;
		}
		if (i >= QA_ARCHIVE_MAX_MEMBERS) {
			ar_finding(ar, QA1503, ar->path, (int64_t)cd->eocd,
				   "the central directory lists %" PRIu64
				   " entries or more; the first %u are "
				   "inspected", i + 1 > cd->entries ? i + 1 :
				   cd->entries, QA_ARCHIVE_MAX_MEMBERS);
			ar->stopped = true;
			break;
		}
		if (n_spans == cap_spans) {
			size_t nc = cap_spans ? 2 * cap_spans : 64;
			struct span *ns = realloc(spans, nc * sizeof(*ns));

			if (!ns)
				goto nomem;
			spans = ns;
			cap_spans = nc;
		}
		if (r->pos + CDIR_SIZE > cd->end ||
		    !qa_reader_bytes(r, h, sizeof(h)) ||
		    memcmp(h, "PK\001\002", 4) != 0) {
			ar_finding(ar, QA1501, ar->path, (int64_t)r->pos,
				   "central directory entry %" PRIu64 " of %"
				   PRIu64 " is missing or damaged", i + 1,
				   cd->entries);
			ar->stopped = true;
			break;
		}
		memset(&e, 0, sizeof(e));
		e.made_by = le16(h + 4);
		e.flags = le16(h + 8);
		e.method = le16(h + 10);
		e.crc = le32(h + 16);
		e.csize32 = le32(h + 20);
		e.usize32 = le32(h + 24);
		e.csize = e.csize32;
		e.usize = e.usize32;
		nlen = le16(h + 28);
		xlen = le16(h + 30);
		clen = le16(h + 32);
		e.external = le32(h + 38);
		e.local = le32(h + 42);
		if (!qa_reader_bytes(r, name, nlen) ||
		    !qa_reader_bytes(r, extra, xlen) ||
		    !qa_reader_skip(r, clen) || r->pos > cd->end) {
			ar_finding(ar, QA1501, ar->path, (int64_t)r->pos,
				   "central directory entry %" PRIu64 " runs "
				   "past the directory's end", i + 1);
			ar->stopped = true;
			break;
		}
		zip64_extra(&e, extra, xlen, le32(h + 42) == 0xFFFFFFFFu);
		/* the shift is never negative (cd.start >= cd.declared), so
		 * only a ZIP64 offset can push the sum past the file */
		if (qa_ckd_add(&local, e.local, (uint64_t)cd->shift) ||
		    local > INT64_MAX) {
			ar_finding(ar, QA1501, ar->path, (int64_t)cd->start,
				   "central directory entry %" PRIu64 " puts its "
				   "local header at offset %" PRIu64 ", past any "
				   "file", i + 1, e.local);
			continue;
		}
		m = ar_add_member(ar, name, nlen, entry_type(&e, name, nlen),
				  e.usize, (int64_t)local);
		if (!m)
			goto nomem;
		if (qa_ckd_add(&ar->declared_total, ar->declared_total,
			       e.usize))
			ar->declared_total = UINT64_MAX;
		if (!local_header(ar, m, &e, name, nlen, cd->start, &data,
				  &span_end)) {
			if (m->type == AR_FILE && !m->hidden)
				ar_not_inspected(ar, m, AR_PAST_END, "its data "
						 "cannot be located");
			continue;
		}
		spans[n_spans].start = (uint64_t)m->header_offset;
		spans[n_spans].end = span_end;
		spans[n_spans].member = ar->n - 1;
		n_spans++;
		if (m->hidden)
			continue;
		if (m->type == AR_SPECIAL)
			ar_finding(ar, QA1508, ar->path,
				   (int64_t)m->header_offset, "'%s' is a "
				   "device, FIFO or socket entry; it is not "
				   "inspected", m->name);
		else if (m->type == AR_SYMLINK)
			zip_link(ar, m, &e, data);
		else if (m->type == AR_FILE)
			zip_file(ar, m, &e, data, &n_ratio, &first_ratio);
	}
	if (n_ratio && !ar->bomb) {
		ar->bomb = true;
		ar_finding(ar, QA1502, ar->path, -1, "%" PRIu64 " member%s "
			   "declare%s more than %u times %s compressed size "
			   "past 1 GiB (first: '%s')", n_ratio,
			   n_ratio == 1 ? "" : "s", n_ratio == 1 ? "s" : "",
			   QA_ARCHIVE_BOMB_RATIO, n_ratio == 1 ? "its" :
			   "their", first_ratio);
	}
	if (!ar->stopped && i >= cd->entries && r->pos < cd->end)
		ar_finding(ar, QA1515, ar->path, (int64_t)r->pos, "%" PRIu64
			   " bytes of the central directory (%" PRIu64 " bytes "
			   "by the end record) follow its last entry",
			   cd->end - r->pos, cd->size);
	/* Entries sharing bytes: one compressed block counted many times. */
	if (n_spans > 1)
		qsort(spans, n_spans, sizeof(*spans), cmp_span);
	hidden_locals(ar, cd, spans, n_spans);
	for (i = 0; i + 1 < n_spans; i++)
		if (spans[i + 1].start < spans[i].end) {
			ar_finding(ar, QA1502, ar->path,
				   (int64_t)spans[i + 1].start, "'%s' and "
				   "'%s' share bytes of the archive "
				   "(overlapping entries, the construction of "
				   "zip bombs)", ar->m[spans[i].member].name,
				   ar->m[spans[i + 1].member].name);
			ar->bomb = true;
			break;
		}
	goto out;
nomem:
	rc = QA_E_NOMEM;
out:
	free(spans);
	free(name);
	free(extra);
	free(r);
	return rc;
}

static int
cmp_offset(const void *a, const void *b)
{
	const struct ar_member *x = *(const struct ar_member *const *)a;
	const struct ar_member *y = *(const struct ar_member *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Streams the compressed members the keeper wants through libarchive's
 * seeking zip reader, which lists entries by local header offset; an
 * entry is matched to its member by where its data starts (libarchive
 * stands right after the local header once the header is read).
 */
static int
stream(struct qa_archive *ar)
{
	struct ar_member **v;
	struct archive *a;
	struct archive_entry *ent;
	char err[256], detail[320];
	unsigned char *buf;
	size_t n = 0, i;
	int r;

	for (i = 0; i < ar->n; i++)
		if (ar->m[i].want_stream && ar->m[i].why == AR_OK)
			n++;
	if (n == 0)
		return QA_OK;
	v = malloc(n * sizeof(*v));
	buf = malloc(64 * 1024);
	if (!v || !buf) {
		free(v);
		free(buf);
		return QA_E_NOMEM;
	}
	for (i = n = 0; i < ar->n; i++)
		if (ar->m[i].want_stream && ar->m[i].why == AR_OK)
			v[n++] = &ar->m[i];
	qsort(v, n, sizeof(*v), cmp_offset);
	ar->some_streamed = true;
	a = ar_la_open(ar, AR_LA_ZIP, err, sizeof(err));
	if (!a) {
		snprintf(detail, sizeof(detail), "libarchive cannot read the "
			 "zip (%s)", err);
		for (i = 0; i < n; i++)
			ar_not_inspected(ar, v[i], AR_UNDECODABLE, detail);
		goto out;
	}
	while ((r = sym_archive_read_next_header(a, &ent)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		la_int64_t at = sym_archive_filter_bytes(a, 0);
		struct ar_member key, *kp = &key, **hit;
		struct ar_keeper k;
		bool complete = false;

		key.offset = (uint64_t)at;
		hit = at < 0 ? NULL : bsearch(&kp, v, n, sizeof(*v),
					      cmp_offset);
		if (!hit || (*hit)->kept_set || (*hit)->why != AR_OK)
			continue;
		ar_keeper_start(&k, ar, *hit);
		while (ar_keeper_wants(&k)) {
			la_ssize_t got = sym_archive_read_data(a, buf,
							       64 * 1024);

			if (got < 0) {
				snprintf(detail, sizeof(detail), "libarchive: "
					 "%s", sym_archive_error_string(a) ?
					 sym_archive_error_string(a) :
					 "read error");
				free(k.buf);
				ar_not_inspected(ar, *hit, AR_UNDECODABLE,
						 detail);
				break;
			}
			if (got == 0) {
				complete = true;
				break;
			}
			if (!ar_keeper_feed(&k, buf, (size_t)got)) {
				free(k.buf);
				ar_la_close(a);
				free(v);
				free(buf);
				return QA_E_NOMEM;
			}
		}
		if ((*hit)->why == AR_OK)
			ar_keeper_finish(&k, complete || k.full);
	}
	if (r != ARCHIVE_EOF)
		snprintf(detail, sizeof(detail), "libarchive stopped before "
			 "it (%s)", sym_archive_error_string(a) ?
			 sym_archive_error_string(a) : "read error");
	else
		snprintf(detail, sizeof(detail), "libarchive does not list it");
	for (i = 0; i < n; i++)
		if (v[i]->why == AR_OK && !v[i]->kept_set)
			ar_not_inspected(ar, v[i], AR_UNDECODABLE, detail);
	ar_la_close(a);
out:
	free(v);
	free(buf);
	return QA_OK;
}

int
ar_zip_list(struct qa_archive *ar, char *err, size_t errlen)
{
	struct cdir cd;
	int rc;

	memset(&cd, 0, sizeof(cd));
	rc = find_eocd(ar, &cd, err, errlen);
	if (rc == QA_E_UNRECOGNIZED && starts_as_zip(ar)) {
		/* A zip cut short (an interrupted download) loses its
		 * central directory first: a finding, not "no archive". */
		ar_finding(ar, QA1501, ar->path, (int64_t)ar->src.size,
			   "the zip ends at offset %" PRIu64 " without an end "
			   "of central directory record (truncated): no member "
			   "can be located", ar->src.size);
		ar->stopped = true;
		err[0] = '\0';
		return QA_OK;
	}
	if (rc != QA_OK)
		return rc;
	if (find_zip64(ar, &cd) != QA_OK)
		return QA_OK;
	if (cd.size > cd.end) {
		ar_finding(ar, QA1501, ar->path, (int64_t)cd.eocd, "the central "
			   "directory (%" PRIu64 " bytes) is larger than what "
			   "precedes its end record", cd.size);
		return QA_OK;
	}
	cd.start = cd.end - cd.size;
	if (cd.start != cd.declared && cd.declared < cd.end &&
	    !entry_at(ar, cd.start, cd.end) &&
	    entry_at(ar, cd.declared, cd.end)) {
		/* The size lies, not the offset: an entry is where the end
		 * record says the directory starts, none where its size
		 * puts the start. Read from the offset (libarchive's
		 * seeking reader takes it as it is). */
		ar_finding(ar, QA1515, ar->path, (int64_t)cd.eocd, "the end "
			   "record gives the central directory %" PRIu64
			   " bytes at offset %" PRIu64 ", and it spans %" PRIu64
			   " bytes from there to the end record", cd.size,
			   cd.declared, cd.end - cd.declared);
		cd.start = cd.declared;
		cd.size = cd.end - cd.declared;
	}
	if (cd.start < cd.declared) {
		ar_finding(ar, QA1501, ar->path, (int64_t)cd.eocd, "the end "
			   "record puts the central directory at offset %"
			   PRIu64 ", past where it can be (%" PRIu64 ")",
			   cd.declared, cd.start);
		return QA_OK;
	}
	cd.shift = (int64_t)(cd.start - cd.declared);
	if (ar->llamafile && cd.shift != 0)
		ar_finding(ar, QA1512, ar->path, (int64_t)cd.eocd, "the zip's "
			   "offsets leave out the %" PRId64 " bytes before it",
			   cd.shift);
	rc = walk(ar, &cd);
	if (rc != QA_OK)
		return rc;
	return stream(ar);
}
