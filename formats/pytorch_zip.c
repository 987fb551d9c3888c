/* SPDX-License-Identifier: MIT */
/*
 * The PyTorch loader's own zip reader (formats/pytorch_int.h): bounded
 * (QA_PT_MAX_MEMBERS, QA_PT_MAX_CD), reading the end records, the
 * central directory and each member's local header once, as miniz
 * (third_party/miniz-3.0.2/miniz.c, torch's reader) and Python's zipfile
 * read them; members are never inflated. Also the test for a torch zip
 * the probe cannot see (qa_pt_is_torch_zip) and the CRC-32 a scanned
 * member is checked with (torch never checks one:
 * MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS).
 */
#define _POSIX_C_SOURCE 200809L
#define QA_PYTORCH_INTERNAL
#include "formats/pytorch_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "core/ckd.h"

/* ---- CRC-32 (IEEE 802.3, as zip uses it) ------------------------------------ */

static uint32_t crc_table[256];
static bool crc_ready;

static void
crc_init(void)
{
	uint32_t i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	crc_ready = true;
}

static uint32_t
crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	size_t i;

	if (!crc_ready)
		crc_init();
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

/* CRC-32 of [off, off + len) of src; false on a read error. */
bool
qa_pt_crc_range(struct qa_source *src, uint64_t off, uint64_t len, uint32_t *out)
{
	uint8_t buf[65536];
	uint32_t crc = 0;

	while (len > 0) {
		size_t k = len > sizeof(buf) ? sizeof(buf) : (size_t)len;

		if (qa_source_read(src, off, buf, k) != QA_OK)
			return false;
		crc = crc_update(crc, buf, k);
		off += k;
		len -= k;
	}
	*out = crc;
	return true;
}

/* ---- the zip reader ------------------------------------------------------------ */

void
qa_pt_zdir_free(struct zdir *z)
{
	free(z->e);
	free(z->names);
	free(z->root);
	memset(z, 0, sizeof(*z));
}

/* A window over the file for the local headers, read in order. */
struct win {
	uint64_t off;
	size_t len;
	uint8_t buf[(size_t)128 << 10];
};

static int
win_get(struct qa_source *src, struct win *w, uint64_t off, size_t len,
	const uint8_t **p)
{
	uint64_t n;

	if (off >= w->off && off - w->off + len <= w->len) {
		*p = w->buf + (off - w->off);
		return QA_OK;
	}
	if (off >= src->size || len > sizeof(w->buf) ||
	    len > src->size - off)
		return QA_E_SHORT;
	n = src->size - off;
	if (n > sizeof(w->buf))
		n = sizeof(w->buf);
	if (qa_source_read(src, off, w->buf, (size_t)n) != QA_OK)
		return QA_E_IO;
	w->off = off;
	w->len = (size_t)n;
	*p = w->buf;
	return QA_OK;
}

/* Reads the zip64 extended information of an extra field. */
static void
zip64_extra(const uint8_t *x, size_t n, struct zent *e, bool u_max,
	    bool c_max, bool o_max)
{
	size_t i = 0;

	while (i + 4 <= n) {
		uint16_t id = le16(x + i), len = le16(x + i + 2);
		size_t j = i + 4;

		if (i + 4 + len > n)
			return;
		if (id == 0x0001) {
			if (u_max && j + 8 <= i + 4 + len) {
				e->usize = le64(x + j);
				j += 8;
			}
			if (c_max && j + 8 <= i + 4 + len) {
				e->csize = le64(x + j);
				j += 8;
			}
			if (o_max && j + 8 <= i + 4 + len)
				e->lho = le64(x + j);
			return;
		}
		i += 4 + (size_t)len;
	}
}

static int
cmp_zent_name(const void *a, const void *b, const struct zent *e)
{
	const struct zent *x = &e[*(const uint32_t *)a];
	const struct zent *y = &e[*(const uint32_t *)b];
	int r = strcmp(x->name, y->name);

	return r ? r : (x < y ? -1 : x > y);
}

static int
cmp_zent_iname(const void *a, const void *b, const struct zent *e)
{
	const struct zent *x = &e[*(const uint32_t *)a];
	const struct zent *y = &e[*(const uint32_t *)b];
	int r = strcasecmp(x->name, y->name);

	return r ? r : (x < y ? -1 : x > y);
}

/* qsort has no context argument in C11: the entries being sorted are
 * passed through this file-local pointer (single-threaded use). */
static const struct zent *sort_ents;

static int
cmp_name_q(const void *a, const void *b)
{
	return cmp_zent_name(a, b, sort_ents);
}

static int
cmp_iname_q(const void *a, const void *b)
{
	return cmp_zent_iname(a, b, sort_ents);
}

/* Reports members whose names collide exactly or ignoring case. */
static int
zip_duplicates(struct pt_ctx *c, struct zdir *z)
{
	uint32_t *ix = malloc((z->n ? z->n : 1) * sizeof(*ix));
	char a[160], b[160];
	size_t i;

	if (!ix)
		return QA_E_NOMEM;
	for (i = 0; i < z->n; i++)
		ix[i] = (uint32_t)i;
	sort_ents = z->e;
	qsort(ix, z->n, sizeof(*ix), cmp_name_q);
	for (i = 1; i < z->n; i++)
		if (strcmp(z->e[ix[i]].name, z->e[ix[i - 1]].name) == 0)
			qa_inv_finding(c->inv, QA1621, c->path,
				       (int64_t)z->e[ix[i]].lho, NULL,
				       "two members are named '%s' (central "
				       "directory entries %u and %u)",
				       esc(a, sizeof(a), z->e[ix[i]].name),
				       ix[i - 1], ix[i]);
	qsort(ix, z->n, sizeof(*ix), cmp_iname_q);
	for (i = 1; i < z->n; i++) {
		const struct zent *x = &z->e[ix[i - 1]], *y = &z->e[ix[i]];

		if (strcasecmp(x->name, y->name) == 0 &&
		    strcmp(x->name, y->name) != 0)
			qa_inv_finding(c->inv, QA1621, c->path,
				       (int64_t)y->lho, NULL,
				       "members '%s' and '%s' differ only in "
				       "case; torch's lookup ignores case",
				       esc(a, sizeof(a), x->name),
				       esc(b, sizeof(b), y->name));
	}
	sort_ents = NULL;
	free(ix);
	return QA_OK;
}

/* Checks each member's local header against its central entry and
 * computes where its data starts. */
static int
zip_locals(struct pt_ctx *c, struct zdir *z)
{
	struct win *w = malloc(sizeof(*w));
	char a[160], b[160];
	size_t i;

	if (!w)
		return QA_E_NOMEM;
	w->off = 0;
	w->len = 0;
	for (i = 0; i < z->n; i++) {
		struct zent *e = &z->e[i];
		const uint8_t *h;
		uint16_t lnl, lxl, lflags, lmethod;
		uint64_t end;
		int rc = win_get(c->src, w, e->lho, 30, &h);

		e->data = UINT64_MAX;
		if (rc == QA_E_IO) {
			free(w);
			return rc;
		}
		if (rc != QA_OK || le32(h) != 0x04034b50) {
			qa_inv_finding(c->inv, QA1620, c->path, (int64_t)e->lho,
				       NULL, "member '%s': no local header at "
				       "offset %llu",
				       esc(a, sizeof(a), e->name),
				       (unsigned long long)e->lho);
			continue;
		}
		lflags = le16(h + 6);
		lmethod = le16(h + 8);
		lnl = le16(h + 26);
		lxl = le16(h + 28);
		if (lmethod != e->method || lflags != e->flags)
			qa_inv_finding(c->inv, QA1622, c->path, (int64_t)e->lho,
				       NULL, "member '%s': the local header "
				       "says method %u flags 0x%x, the central "
				       "directory method %u flags 0x%x",
				       esc(a, sizeof(a), e->name), lmethod,
				       lflags, e->method, e->flags);
		if (!(lflags & 0x8) && le32(h + 14) != e->crc)
			qa_inv_finding(c->inv, QA1622, c->path, (int64_t)e->lho,
				       NULL, "member '%s': the local header's "
				       "CRC-32 differs from the central "
				       "directory's", esc(a, sizeof(a), e->name));
		if (!(lflags & 0x8) && le32(h + 18) != 0xFFFFFFFFu &&
		    (le32(h + 18) != e->csize || le32(h + 22) != e->usize))
			qa_inv_finding(c->inv, QA1622, c->path, (int64_t)e->lho,
				       NULL, "member '%s': the local header "
				       "gives sizes %u/%u, the central "
				       "directory %llu/%llu",
				       esc(a, sizeof(a), e->name),
				       le32(h + 18), le32(h + 22),
				       (unsigned long long)e->csize,
				       (unsigned long long)e->usize);
		rc = win_get(c->src, w, e->lho, 30 + (size_t)lnl, &h);
		if (rc == QA_E_IO) {
			free(w);
			return rc;
		}
		if (rc != QA_OK) {
			qa_inv_finding(c->inv, QA1620, c->path, (int64_t)e->lho,
				       NULL, "member '%s': its local header "
				       "runs past the end of the file",
				       esc(a, sizeof(a), e->name));
			continue;
		}
		if (lnl != e->name_len || memcmp(h + 30, e->name, lnl) != 0) {
			char ln[512];
			size_t k = lnl < sizeof(ln) - 1 ? lnl : sizeof(ln) - 1;

			memcpy(ln, h + 30, k);
			ln[k] = '\0';
			qa_inv_finding(c->inv, QA1622, c->path, (int64_t)e->lho,
				       NULL, "the local header names '%s', the "
				       "central directory '%s' (CVE-2025-1944)",
				       esc(a, sizeof(a), ln),
				       esc(b, sizeof(b), e->name));
		}
		e->data = e->lho + 30 + lnl + lxl;
		if (qa_ckd_add(&end, e->data, e->csize) || end > c->src->size) {
			qa_inv_finding(c->inv, QA1620, c->path, (int64_t)e->lho,
				       NULL, "member '%s' (%llu bytes at offset "
				       "%llu) runs past the end of the file",
				       esc(a, sizeof(a), e->name),
				       (unsigned long long)e->csize,
				       (unsigned long long)e->data);
			e->data = UINT64_MAX;
		}
	}
	free(w);
	return QA_OK;
}

/*
 * Reads the end records and the central directory into z. Structural
 * problems are findings (z->n may then be 0); returns QA_OK, QA_E_IO or
 * QA_E_NOMEM.
 */
int
qa_pt_zip_read(struct pt_ctx *c, struct zdir *z)
{
	uint64_t size = c->src->size, tail, eocd = UINT64_MAX, entries;
	uint64_t eocd_any = UINT64_MAX;
	uint64_t cd_off, cd_size, cd_end, p;
	uint8_t *buf = NULL, *cd = NULL;
	size_t i, n_eocd = 0, k;
	char a[160];
	int rc = QA_OK;

	memset(z, 0, sizeof(*z));
	tail = size < 65535 + 22 ? size : 65535 + 22;
	buf = malloc(tail ? (size_t)tail : 1);
	if (!buf)
		return QA_E_NOMEM;
	if (qa_source_read(c->src, size - tail, buf, (size_t)tail) != QA_OK) {
		free(buf);
		return QA_E_IO;
	}
	for (i = tail >= 22 ? (size_t)tail - 22 + 1 : 0; i-- > 0;) {
		if (le32(buf + i) != 0x06054b50)
			continue;
		if (i + 22 + le16(buf + i + 20) > tail)
			continue;
		if (eocd_any == UINT64_MAX)
			eocd_any = size - tail + i;
		/* a record that points at a directory ending where it
		 * starts (or a zip64 one): not four bytes of tensor data */
		if (le32(buf + i + 12) + (uint64_t)le32(buf + i + 16) !=
		    size - tail + i && le32(buf + i + 16) != 0xFFFFFFFFu &&
		    !(i >= 20 && le32(buf + i - 20) == 0x07064b50))
			continue;
		n_eocd++;
		if (eocd == UINT64_MAX)
			eocd = size - tail + i;
	}
	if (eocd == UINT64_MAX)
		eocd = eocd_any;
	if (eocd == UINT64_MAX) {
		qa_inv_finding(c->inv, QA1620, c->path, -1, NULL,
			       "no end-of-central-directory record: the zip "
			       "is truncated");
		free(buf);
		return QA_OK;
	}
	k = (size_t)(eocd - (size - tail));
	if (n_eocd > 1)
		qa_inv_finding(c->inv, QA1627, c->path, (int64_t)eocd, NULL,
			       "%zu end-of-central-directory records: another "
			       "zip is embedded or appended", n_eocd);
	if (eocd + 22 + le16(buf + k + 20) < size)
		qa_inv_finding(c->inv, QA1627, c->path,
			       (int64_t)(eocd + 22 + le16(buf + k + 20)), NULL,
			       "%llu bytes follow the end of the zip",
			       (unsigned long long)(size - eocd - 22 -
						    le16(buf + k + 20)));
	entries = le16(buf + k + 10);
	cd_size = le32(buf + k + 12);
	cd_off = le32(buf + k + 16);
	cd_end = eocd;
	if (eocd >= 20 && k >= 20 && le32(buf + k - 20) == 0x07064b50) {
		uint64_t z64 = le64(buf + k - 12);
		uint8_t r[56];

		if (z64 + 56 <= eocd &&
		    qa_source_read(c->src, z64, r, sizeof(r)) == QA_OK &&
		    le32(r) == 0x06064b50) {
			entries = le64(r + 32);
			cd_size = le64(r + 40);
			cd_off = le64(r + 48);
			cd_end = z64;
		} else {
			qa_inv_finding(c->inv, QA1620, c->path,
				       (int64_t)(eocd - 20), NULL,
				       "the zip64 end record the locator "
				       "points to is missing");
		}
	}
	free(buf);
	buf = NULL;
	if (qa_ckd_add(&p, cd_off, cd_size) || p > cd_end) {
		qa_inv_finding(c->inv, QA1620, c->path, (int64_t)eocd, NULL,
			       "the central directory (%llu bytes at %llu) is "
			       "not inside the file", (unsigned long long)cd_size,
			       (unsigned long long)cd_off);
		return QA_OK;
	}
	if (cd_size > QA_PT_MAX_CD || entries > QA_PT_MAX_MEMBERS) {
		qa_inv_finding(c->inv, QA1620, c->path, (int64_t)eocd, NULL,
			       "%llu members in a %llu-byte central directory: "
			       "more than quantaudit lists (%llu members, "
			       "%llu bytes)", (unsigned long long)entries,
			       (unsigned long long)cd_size,
			       (unsigned long long)QA_PT_MAX_MEMBERS,
			       (unsigned long long)QA_PT_MAX_CD);
		return QA_OK;
	}
	if (entries > cd_size / 46) {
		qa_inv_finding(c->inv, QA1620, c->path, (int64_t)eocd, NULL,
			       "%llu members declared, a %llu-byte central "
			       "directory holds at most %llu",
			       (unsigned long long)entries,
			       (unsigned long long)cd_size,
			       (unsigned long long)(cd_size / 46));
		entries = cd_size / 46;
	}
	cd = malloc(cd_size ? (size_t)cd_size : 1);
	z->e = calloc(entries ? (size_t)entries : 1, sizeof(*z->e));
	z->names = malloc((size_t)cd_size + (size_t)entries + 1);
	if (!cd || !z->e || !z->names) {
		rc = QA_E_NOMEM;
		goto out;
	}
	if (qa_source_read(c->src, cd_off, cd, (size_t)cd_size) != QA_OK) {
		rc = QA_E_IO;
		goto out;
	}
	{
		size_t pos = 0, np = 0;

		for (i = 0; i < entries; i++) {
			struct zent *e = &z->e[z->n];
			uint16_t nl, xl, cl;

			if (pos + 46 > cd_size || le32(cd + pos) != 0x02014b50) {
				qa_inv_finding(c->inv, QA1620, c->path,
					       (int64_t)(cd_off + pos), NULL,
					       "central directory entry %zu is "
					       "damaged", i);
				break;
			}
			nl = le16(cd + pos + 28);
			xl = le16(cd + pos + 30);
			cl = le16(cd + pos + 32);
			if (pos + 46 + (size_t)nl + xl + cl > cd_size) {
				qa_inv_finding(c->inv, QA1620, c->path,
					       (int64_t)(cd_off + pos), NULL,
					       "central directory entry %zu runs "
					       "past the directory", i);
				break;
			}
			e->flags = le16(cd + pos + 8);
			e->method = le16(cd + pos + 10);
			e->crc = le32(cd + pos + 16);
			e->csize = le32(cd + pos + 20);
			e->usize = le32(cd + pos + 24);
			e->lho = le32(cd + pos + 42);
			zip64_extra(cd + pos + 46 + nl, xl, e,
				    e->usize == 0xFFFFFFFFu,
				    e->csize == 0xFFFFFFFFu,
				    e->lho == 0xFFFFFFFFu);
			memcpy(z->names + np, cd + pos + 46, nl);
			z->names[np + nl] = '\0';
			e->name = z->names + np;
			e->name_len = nl;
			if (memchr(e->name, '\0', nl))
				qa_inv_finding(c->inv, QA1625, c->path,
					       (int64_t)e->lho, NULL,
					       "member name '%s' holds a NUL byte",
					       esc(a, sizeof(a), e->name));
			np += (size_t)nl + 1;
			pos += 46 + (size_t)nl + xl + cl;
			z->n++;
		}
	}
	rc = zip_locals(c, z);
	if (rc == QA_OK)
		rc = zip_duplicates(c, z);
out:
	free(cd);
	free(buf);
	return rc;
}

/* ---- members by name ------------------------------------------------------------ */

/* The member named exactly (or, failing that, ignoring case: torch's
 * lookup) root + rel; -1 when none. */
long
qa_pt_zfind(const struct zdir *z, const char *rel, bool *by_case)
{
	char full[4096];
	size_t i;
	long ci = -1;

	*by_case = false;
	if (!z->root || z->root_len + strlen(rel) >= sizeof(full))
		return -1;
	memcpy(full, z->root, z->root_len);
	strcpy(full + z->root_len, rel);
	for (i = 0; i < z->n; i++) {
		if (strcmp(z->e[i].name, full) == 0)
			return (long)i;
		if (ci < 0 && strcasecmp(z->e[i].name, full) == 0)
			ci = (long)i;
	}
	*by_case = ci >= 0;
	return ci;
}

/* ---- torch zips the probe cannot see ------------------------------------------ */

bool
qa_pt_is_torch_zip(struct qa_source *src)
{
	uint64_t size = src->size, tail, cd_off, cd_size, p;
	uint8_t *buf, *cd;
	size_t i, k = SIZE_MAX, pos;
	bool found = false;

	if (size < 22)
		return false;
	tail = size < 65535 + 22 ? size : 65535 + 22;
	buf = malloc((size_t)tail);
	if (!buf)
		return false;
	if (qa_source_read(src, size - tail, buf, (size_t)tail) != QA_OK) {
		free(buf);
		return false;
	}
	for (i = (size_t)tail - 22 + 1; i-- > 0;)
		if (le32(buf + i) == 0x06054b50 &&
		    i + 22 + le16(buf + i + 20) <= tail) {
			k = i;
			break;
		}
	if (k == SIZE_MAX) {
		free(buf);
		return false;
	}
	cd_size = le32(buf + k + 12);
	cd_off = le32(buf + k + 16);
	if (k >= 20 && le32(buf + k - 20) == 0x07064b50) {
		uint8_t r[56];
		uint64_t z64 = le64(buf + k - 12);

		if (z64 + 56 <= size &&
		    qa_source_read(src, z64, r, sizeof(r)) == QA_OK &&
		    le32(r) == 0x06064b50) {
			cd_size = le64(r + 40);
			cd_off = le64(r + 48);
		}
	}
	free(buf);
	if (qa_ckd_add(&p, cd_off, cd_size) || p > size ||
	    cd_size > QA_PT_MAX_CD)
		return false;
	cd = malloc(cd_size ? (size_t)cd_size : 1);
	if (!cd)
		return false;
	if (qa_source_read(src, cd_off, cd, (size_t)cd_size) != QA_OK) {
		free(cd);
		return false;
	}
	/* a member named data.pkl (any case) inside a folder: torch loads
	 * <first member's folder>/data.pkl */
	for (pos = 0; !found && pos + 46 <= cd_size &&
	     le32(cd + pos) == 0x02014b50;) {
		size_t nl = le16(cd + pos + 28), xl = le16(cd + pos + 30),
		       cl = le16(cd + pos + 32);

		if (pos + 46 + nl + xl + cl > cd_size)
			break;
		if (nl >= 9 && cd[pos + 46 + nl - 9] == '/' &&
		    strncasecmp((const char *)cd + pos + 46 + nl - 8,
				"data.pkl", 8) == 0)
			found = true;
		pos += 46 + nl + xl + cl;
	}
	free(cd);
	return found;
}
