/* SPDX-License-Identifier: MIT */
/*
 * One PyTorch checkpoint (formats/pytorch.h, formats/pytorch_int.h).
 *
 * Sources, read at the commits given:
 *  - torch/serialization.py (pytorch/pytorch, the _save/_load and
 *    _legacy_save/_legacy_load pairs; 000a1a54 and a 2026 tree): the zip
 *    layout, the persistent id ('storage', storage_type, key, location,
 *    numel), the legacy stacked pickles and storage records;
 *  - caffe2/serialize/inline_container.cc @ 3834689c: the archive folder
 *    is the first member's top folder, records are looked up in it with
 *    miniz's case-insensitive mz_zip_reader_locate_file, data is aligned
 *    to 64 bytes with an "FB" extra field;
 *  - third_party/miniz-3.0.2/miniz.c: local headers with the data
 *    descriptor flag, zip64 end records always written; torch builds it
 *    with MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS (CMakeLists.txt), so it
 *    never checks a CRC;
 *  - torch/_tensor.py and torch/_utils.py: the tensor rebuild calls.
 *
 * The zip reader is this file's own: bounded (QA_PT_MAX_MEMBERS,
 * QA_PT_MAX_CD), reading the end records, the central directory and each
 * member's local header once. Members are never inflated: torch.save
 * stores everything, so offsets into the file are offsets into the
 * members, and a compressed pickle is reported as unscannable (QA1624).
 */
#define _POSIX_C_SOURCE 200809L
#define QA_PYTORCH_INTERNAL
#include "formats/pytorch_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "core/ckd.h"
#include "core/json_file.h"
#include "formats/format.h"

/* Legacy format constants (torch/serialization.py). */
static const uint8_t legacy_magic[10] = {	/* 0x1950a86a20f9469cfc6c, LE */
	0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19,
};
#define LEGACY_PROTOCOL_VERSION 1001

/* ---- the load context --------------------------------------------------------- */

static void
ctx_free(struct pt_ctx *c)
{
	size_t i;

	for (i = 0; i < c->n_st; i++)
		free((char *)c->st[i].key);
	free(c->st);
	free(c->st_slots);
	qa_arena_finish(&c->values);
}

/* Walks a pickle of the checkpoint; w->what names it in findings. */
static int
walk(struct pt_ctx *c, struct qa_pkl_walk *w, const char *what,
     uint64_t off, uint64_t end, bool torch_pickle, bool speculative)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->inv = c->inv;
	w->file = c->path;
	w->what = what;
	w->arena = &c->values;
	w->torch_pickle = torch_pickle && !c->security_only;
	w->speculative = speculative;
	w->torchscript = c->torchscript;
	rc = qa_pickle_walk(w, c->src, off, end);
	if (rc == QA_E_NOMEM)
		ctx_nomem(c);
	else if (rc != QA_OK)
		c->rc = rc;
	return rc;
}

/* ---- torch zip checkpoints ------------------------------------------------------ */

/* A record torch.save (or torch.jit.save) writes besides data.pkl and
 * the storages. */
static bool
expected_record(const char *rel, bool *torchscript)
{
	static const char *const names[] = {
		"byteorder", "version", ".data/version", ".format_version",
		".storage_alignment", ".data/serialization_id",
	};
	size_t i;

	for (i = 0; i < N_ELEMS(names); i++)
		if (strcmp(rel, names[i]) == 0)
			return true;
	if (strncmp(rel, "code/", 5) == 0 || strcmp(rel, "constants.pkl") == 0 ||
	    strncmp(rel, "constants/", 10) == 0 ||
	    strcmp(rel, "attributes.pkl") == 0 || strcmp(rel, "model.json") == 0 ||
	    strncmp(rel, "extra/", 6) == 0 || strncmp(rel, ".data/", 6) == 0) {
		if (strncmp(rel, ".data/", 6) != 0)
			*torchscript = true;
		return true;
	}
	return false;
}

static bool
pickle_like_name(const char *name)
{
	return ends_with(name, ".pkl") || ends_with(name, ".pickle") ||
	       ends_with(name, ".PKL");
}

/*
 * Walks member e as a pickle: checks that it can be read as torch reads
 * it (stored, not encrypted, CRC), walks it, and walks trailing bytes
 * after its STOP. Returns the root value of the walk (NULL when none).
 */
static struct qa_pv *
scan_member(struct pt_ctx *c, struct zent *e, bool torch_pickle,
	    bool speculative)
{
	struct qa_pkl_walk w;
	char what[256], a[160];
	uint32_t crc;
	uint64_t end;

	e->known = true;
	snprintf(what, sizeof(what), "%s", esc(a, sizeof(a), e->name));
	if (e->data == UINT64_MAX)
		return NULL;
	if (e->method != 0 || (e->flags & (0x1 | 0x20 | 0x40))) {
		qa_inv_finding(c->inv, QA1624, c->path, (int64_t)e->lho, NULL,
			       "%s is %s%s%s; torch reads it, quantaudit "
			       "cannot scan it", what,
			       e->method ? "compressed" : "",
			       e->method && (e->flags & 0x61) ? " and " : "",
			       e->flags & 0x1 ? "encrypted" :
			       e->flags & 0x60 ? "flagged as patched or "
			       "strongly encrypted" : "");
		return NULL;
	}
	if (e->csize != e->usize)
		qa_inv_finding(c->inv, QA1622, c->path, (int64_t)e->lho, NULL,
			       "%s is stored but its sizes differ (%llu "
			       "stored, %llu declared)", what,
			       (unsigned long long)e->csize,
			       (unsigned long long)e->usize);
	if (!qa_pt_crc_range(c->src, e->data, e->csize, &crc)) {
		c->rc = QA_E_IO;
		return NULL;
	}
	if (crc != e->crc)
		qa_inv_finding(c->inv, QA1623, c->path, (int64_t)e->lho, NULL,
			       "%s has CRC-32 %08x, the central directory "
			       "says %08x", what, crc, e->crc);
	end = e->data + e->csize;
	if (walk(c, &w, what, e->data, end, torch_pickle, speculative) !=
	    QA_OK)
		return NULL;
	if (torch_pickle)
		c->main_ops += w.ops;
	if (w.stopped && w.end < end) {
		struct qa_pkl_walk t;
		char twhat[300];

		qa_inv_finding(c->inv, QA1612, c->path, (int64_t)w.end, NULL,
			       "%llu bytes follow the STOP of %s",
			       (unsigned long long)(end - w.end), what);
		snprintf(twhat, sizeof(twhat), "the bytes after the STOP of "
			 "%s", what);
		walk(c, &t, twhat, w.end, end, false, true);
	}
	return w.root;
}

/* Does member e start like a pickle (CVE-2025-1889: pickles named
 * anything)? */
static bool
member_looks_pickle(struct pt_ctx *c, const struct zent *e)
{
	uint8_t h[512];
	size_t n;

	if (e->data == UINT64_MAX || e->method != 0 || e->csize < 2)
		return false;
	n = e->csize < sizeof(h) ? (size_t)e->csize : sizeof(h);
	if (qa_source_read(c->src, e->data, h, n) != QA_OK)
		return false;
	return h[0] == 0x80 && h[1] <= 5;
}

/* Small text record (byteorder, version...) into buf. */
static bool
read_record(struct pt_ctx *c, const struct zent *e, char *buf, size_t cap)
{
	size_t n;

	if (e->data == UINT64_MAX || e->method != 0 || e->csize >= cap)
		return false;
	n = (size_t)e->csize;
	if (qa_source_read(c->src, e->data, buf, n) != QA_OK)
		return false;
	buf[n] = '\0';
	return true;
}

/* Storage data/<key> members for every storage data.pkl names. */
static void
zip_resolve_storages(struct pt_ctx *c, struct zdir *z)
{
	size_t i;
	char a[160], rel[4200];

	for (i = 0; i < c->n_st; i++) {
		struct pt_store *s = &c->st[i];
		bool by_case;
		long m;
		uint64_t need;

		snprintf(rel, sizeof(rel), "data/%s", s->key);
		m = qa_pt_zfind(z, rel, &by_case);
		if (m < 0) {
			s->missing = true;
			qa_inv_finding(c->inv, QA1630, c->path,
				       (int64_t)s->ref_off, NULL,
				       "storage '%s' has no member %s%s",
				       esc(a, sizeof(a), s->key),
				       z->root ? z->root : "", rel);
			continue;
		}
		z->e[m].storage = true;
		z->e[m].known = true;
		if (z->e[m].method != 0) {
			qa_inv_finding(c->inv, QA1628, c->path,
				       (int64_t)z->e[m].lho, NULL,
				       "storage member %s is compressed",
				       esc(a, sizeof(a), z->e[m].name));
			continue;
		}
		if (z->e[m].data == UINT64_MAX)
			continue;
		s->data = z->e[m].data;
		s->avail = z->e[m].csize;
		s->resolved = true;
		if (qa_ckd_mul(&need, s->numel, s->dt->size) ||
		    need != z->e[m].usize)
			qa_inv_finding(c->inv, QA1631, c->path,
				       (int64_t)z->e[m].lho, NULL,
				       "storage '%s' is declared as %llu %s "
				       "elements (%llu bytes); its member "
				       "holds %llu bytes",
				       esc(a, sizeof(a), s->key),
				       (unsigned long long)s->numel,
				       s->dt->torch,
				       (unsigned long long)(s->numel *
							    s->dt->size),
				       (unsigned long long)z->e[m].usize);
	}
}

static void
load_zip(struct pt_ctx *c)
{
	struct zdir z;
	struct qa_pv *root = NULL;
	struct coll k;
	char a[160], b[160], rec[64];
	size_t i, n_extra = 0;
	long main_pkl;
	bool by_case, ts = false;
	const char *first_extra = NULL;
	int rc;

	rc = qa_pt_zip_read(c, &z);
	if (rc != QA_OK) {
		c->rc = rc;
		qa_pt_zdir_free(&z);
		return;
	}
	if (z.n == 0) {
		qa_pt_zdir_free(&z);
		return;
	}
	/* the archive folder: the first member's top folder (torch) */
	{
		const char *slash = strchr(z.e[0].name, '/');

		if (!slash) {
			qa_inv_finding(c->inv, QA1620, c->path,
				       (int64_t)z.e[0].lho, NULL,
				       "the first member '%s' is not in a "
				       "folder; torch refuses the archive",
				       esc(a, sizeof(a), z.e[0].name));
		} else {
			z.root_len = (size_t)(slash - z.e[0].name) + 1;
			z.root = strndup(z.e[0].name, z.root_len);
			if (!z.root) {
				ctx_nomem(c);
				qa_pt_zdir_free(&z);
				return;
			}
		}
	}
	for (i = 0; z.root && i < z.n; i++)
		if (strncmp(z.e[i].name, z.root, z.root_len) != 0) {
			qa_inv_finding(c->inv, QA1625, c->path,
				       (int64_t)z.e[i].lho, NULL,
				       "member '%s' lies outside the archive "
				       "folder '%s'", esc(a, sizeof(a),
							   z.e[i].name),
				       esc(b, sizeof(b), z.root));
		}
	/* torch.load hands an archive with a constants.pkl record to
	 * torch.jit.load (serialization.py _is_torchscript_zip), whose
	 * unpickler resolves __torch__ classes from the archive's code/ */
	c->torchscript = qa_pt_zfind(&z, "constants.pkl", &by_case) >= 0;
	main_pkl = qa_pt_zfind(&z, "data.pkl", &by_case);
	if (main_pkl >= 0 && by_case)
		qa_inv_finding(c->inv, QA1625, c->path,
			       (int64_t)z.e[main_pkl].lho, NULL,
			       "the pickle torch loads is spelled '%s'; its "
			       "lookup ignores case, exact-match scanners do "
			       "not", esc(a, sizeof(a), z.e[main_pkl].name));
	if (main_pkl < 0 && z.root)
		qa_inv_finding(c->inv, QA1620, c->path, -1, NULL,
			       "no %sdata.pkl: torch cannot load the archive",
			       esc(a, sizeof(a), z.root));
	if (main_pkl >= 0) {
		c->inv->files[c->fi].header_bytes = z.e[main_pkl].csize;
		root = scan_member(c, &z.e[main_pkl], true, false);
	}
	/* every other data.pkl, whatever its case or folder */
	for (i = 0; i < z.n && c->rc == QA_OK; i++) {
		const char *bn = strrchr(z.e[i].name, '/');

		bn = bn ? bn + 1 : z.e[i].name;
		if ((long)i == main_pkl || strcasecmp(bn, "data.pkl") != 0)
			continue;
		if (main_pkl >= 0 &&
		    strcasecmp(z.e[i].name, z.e[main_pkl].name) != 0)
			qa_inv_finding(c->inv, QA1625, c->path,
				       (int64_t)z.e[i].lho, NULL,
				       "another pickle named like data.pkl, "
				       "'%s', is not the one torch loads (%s); "
				       "scanners may read either",
				       esc(a, sizeof(a), z.e[i].name),
				       esc(b, sizeof(b),
					   z.e[main_pkl].name));
		scan_member(c, &z.e[i], true, false);
	}
	/* the records torch.save writes */
	for (i = 0; i < z.n; i++) {
		const char *rel;

		if (!z.root || strncmp(z.e[i].name, z.root, z.root_len) != 0)
			continue;
		rel = z.e[i].name + z.root_len;
		if (!expected_record(rel, &ts))
			continue;
		z.e[i].known = true;
		if (strcmp(rel, "byteorder") == 0) {
			if (!read_record(c, &z.e[i], rec, sizeof(rec)) ||
			    (strcmp(rec, "little") != 0 &&
			     strcmp(rec, "big") != 0))
				qa_inv_finding(c->inv, QA1628, c->path,
					       (int64_t)z.e[i].lho, NULL,
					       "byteorder is neither \"little\" "
					       "nor \"big\"; torch raises");
			else if (strcmp(rec, "big") == 0) {
				c->big_endian = true;
				qa_inv_finding(c->inv, QA1637, c->path,
					       (int64_t)z.e[i].lho, NULL,
					       "byteorder is \"big\"");
			}
		} else if (strcmp(rel, "version") == 0 ||
			   strcmp(rel, ".data/version") == 0 ||
			   strcmp(rel, ".storage_alignment") == 0) {
			char *endp;

			if (!read_record(c, &z.e[i], rec, sizeof(rec)) ||
			    (strtoull(rec, &endp, 10), endp == rec))
				qa_inv_finding(c->inv, QA1628, c->path,
					       (int64_t)z.e[i].lho, NULL,
					       "%s does not hold a number",
					       esc(a, sizeof(a), z.e[i].name));
		} else if (ends_with(rel, ".pkl")) {
			scan_member(c, &z.e[i], false, false);
		}
	}
	if (c->torchscript)
		qa_inv_finding(c->inv, QA1629, c->path, -1, NULL,
			       "the archive has a constants.pkl record%s: "
			       "torch.load hands it to torch.jit.load, which "
			       "compiles and runs its TorchScript code",
			       ts ? " and TorchScript code (code/)" : "");
	else if (ts)
		qa_inv_finding(c->inv, QA1626, c->path, -1, NULL,
			       "the archive has TorchScript members (code/) but "
			       "no constants.pkl: torch.load reads it as a "
			       "checkpoint and ignores them");
	/* tensors */
	qa_pt_collect_tensors(c, root, &k);
	if (c->rc == QA_OK) {
		zip_resolve_storages(c, &z);
		if (!c->security_only)
			qa_pt_add_tensors(c, root, &k);
	}
	qa_pt_coll_free(&k);
	/* members nobody asked for */
	for (i = 0; i < z.n && c->rc == QA_OK; i++) {
		struct zent *e = &z.e[i];

		if (e->known)
			continue;
		/* storages of a pickle that could not be read whole */
		if (!root && z.root &&
		    strncmp(e->name, z.root, z.root_len) == 0 &&
		    strncmp(e->name + z.root_len, "data/", 5) == 0) {
			if (member_looks_pickle(c, e))
				scan_member(c, e, false, true);
			continue;
		}
		if (!first_extra)
			first_extra = e->name;
		n_extra++;
		if (pickle_like_name(e->name))
			scan_member(c, e, false, false);
		else if (member_looks_pickle(c, e))
			scan_member(c, e, false, true);
	}
	if (n_extra)
		qa_inv_finding(c->inv, QA1626, c->path, -1, NULL,
			       "%zu member%s torch.save does not write%s: "
			       "'%s'%s", n_extra, n_extra > 1 ? "s" : "",
			       n_extra > 1 ? ", the first" : "",
			       esc(a, sizeof(a), first_extra),
			       n_extra > 1 ? " (unreferenced storages "
			       "included)" : "");
	qa_pt_zdir_free(&z);
}

/* ---- legacy checkpoints --------------------------------------------------------- */

/* The magic number pickle's value: the literal 0x1950a86a20f9469cfc6c. */
static bool
is_magic(const struct qa_pv *v)
{
	if (!v || v->kind != QA_PV_BIGINT)
		return false;
	if (v->op == 0x8a || v->op == 0x8b)	/* LONG1, LONG4: the bytes */
		return v->u.str.len == sizeof(legacy_magic) &&
		       memcmp(v->u.str.s, legacy_magic,
			      sizeof(legacy_magic)) == 0;
	/* INT or LONG text of a protocol 0/1 save */
	return strcmp(v->u.str.s, "119547037146038801333356") == 0 ||
	       strcmp(v->u.str.s, "119547037146038801333356L") == 0;
}

static void
load_legacy(struct pt_ctx *c)
{
	struct qa_pkl_walk w;
	struct qa_pv *root;
	struct coll k;
	uint64_t pos, size = c->src->size, v = 0;
	uint32_t i;
	char a[160];
	const struct qa_pv *keys;
	bool little = true;

	/* 1: the magic number */
	if (walk(c, &w, "the magic-number pickle", 0, size, true, false) !=
	    QA_OK)
		return;
	if (!w.stopped || !is_magic(w.root)) {
		char d[200];

		if (w.root && w.root->kind == QA_PV_CALL)
			qa_inv_finding(c->inv, QA1636, c->path,
				       (int64_t)w.root->off, NULL,
				       "the magic number is computed by a call "
				       "(%s), not written as a literal "
				       "(GHSA-97f8-7cmv-76j2)",
				       qa_pickle_describe(w.root, d, sizeof(d)));
		else
			qa_inv_finding(c->inv, QA1636, c->path, 0, NULL,
				       "the file is a pickle but not a torch "
				       "checkpoint: its first pickle is %s, "
				       "not the magic number; torch.load "
				       "unpickles (runs) it before failing "
				       "(CVE-2025-10155)",
				       w.root ? qa_pickle_describe(w.root, d,
								   sizeof(d)) :
				       "broken");
		if (w.stopped && w.end < size) {
			struct qa_pkl_walk t;

			/* whatever follows is scanned as picklescan does */
			walk(c, &t, "the bytes after the first pickle", w.end,
			     size, false, true);
		}
		return;
	}
	/* 2: the protocol version */
	pos = w.end;
	walk(c, &w, "the protocol-version pickle", pos, size, true, false);
	if (c->rc != QA_OK)
		return;
	if (!w.stopped || !as_uint(w.root, &v) || v != LEGACY_PROTOCOL_VERSION) {
		qa_inv_finding(c->inv, QA1636, c->path, (int64_t)pos, NULL,
			       "the protocol version is not 1001");
		return;
	}
	/* 3: sys_info */
	pos = w.end;
	walk(c, &w, "the sys_info pickle", pos, size, true, false);
	if (c->rc != QA_OK)
		return;
	if (!w.stopped || !w.root || w.root->kind != QA_PV_DICT) {
		qa_inv_finding(c->inv, QA1636, c->path, (int64_t)pos, NULL,
			       "sys_info is not a dict");
		return;
	}
	for (i = 0; i + 1 < w.root->n; i += 2) {
		const char *key = as_str(w.root->u.seq.v[i]);

		if (key && strcmp(key, "little_endian") == 0 &&
		    w.root->u.seq.v[i + 1]->kind == QA_PV_BOOL)
			little = w.root->u.seq.v[i + 1]->u.i != 0;
	}
	if (!little) {
		c->big_endian = true;
		qa_inv_finding(c->inv, QA1637, c->path, (int64_t)pos, NULL,
			       "sys_info says little_endian is False");
	}
	/* 4: the object */
	pos = w.end;
	walk(c, &w, "the object pickle", pos, size, true, false);
	if (c->rc != QA_OK)
		return;
	root = w.root;
	c->main_ops = w.ops;
	c->inv->files[c->fi].header_bytes = w.end;
	if (!w.stopped)
		return;		/* QA1609 said why */
	qa_pt_collect_tensors(c, root, &k);	/* storages, for their sizes */
	/* 5: the storage keys, then each storage: a count, the bytes */
	pos = w.end;
	walk(c, &w, "the storage-keys pickle", pos, size, true, false);
	keys = w.root;
	if (c->rc == QA_OK && (!w.stopped || !keys ||
			       keys->kind != QA_PV_LIST)) {
		qa_inv_finding(c->inv, QA1636, c->path, (int64_t)pos, NULL,
			       "the storage-key list is missing or not a list");
		keys = NULL;
	}
	pos = w.end;
	for (i = 0; keys && i < keys->n && c->rc == QA_OK; i++) {
		const char *key = as_str(keys->u.seq.v[i]);
		struct pt_store *s = NULL;
		uint8_t cnt[8];
		uint64_t count, bytes;
		size_t j;

		for (j = 0; key && j < c->n_st; j++)
			if (strcmp(c->st[j].key, key) == 0)
				s = &c->st[j];
		if (!s) {
			qa_inv_finding(c->inv, QA1636, c->path, (int64_t)pos,
				       NULL, "storage key %u '%s' is not "
				       "referenced by the object; its size "
				       "cannot be known, so the storages after "
				       "it are not located", i,
				       key ? esc(a, sizeof(a), key) : "?");
			break;
		}
		if (pos > size || size - pos < 8) {
			qa_inv_finding(c->inv, QA1636, c->path, (int64_t)pos,
				       NULL, "storage '%s' is missing: the file "
				       "ends at %llu", esc(a, sizeof(a), key),
				       (unsigned long long)size);
			break;
		}
		if (qa_source_read(c->src, pos, cnt, 8) != QA_OK) {
			c->rc = QA_E_IO;
			break;
		}
		count = little ? le64(cnt) :
			(uint64_t)cnt[0] << 56 | (uint64_t)cnt[1] << 48 |
			(uint64_t)cnt[2] << 40 | (uint64_t)cnt[3] << 32 |
			(uint64_t)cnt[4] << 24 | (uint64_t)cnt[5] << 16 |
			(uint64_t)cnt[6] << 8 | cnt[7];
		if (count != s->numel)
			qa_inv_finding(c->inv, QA1631, c->path, (int64_t)pos,
				       NULL, "storage '%s' is declared as %llu "
				       "elements; the file stores %llu",
				       esc(a, sizeof(a), key),
				       (unsigned long long)s->numel,
				       (unsigned long long)count);
		s->data = pos + 8;
		if (qa_ckd_mul(&bytes, count, s->dt->size) ||
		    bytes > size - pos - 8) {
			qa_inv_finding(c->inv, QA1636, c->path, (int64_t)pos,
				       NULL, "storage '%s' (%llu elements) runs "
				       "past the end of the file",
				       esc(a, sizeof(a), key),
				       (unsigned long long)count);
			s->avail = size - pos - 8;
			s->resolved = true;
			pos = size;
			break;
		}
		s->avail = bytes;
		s->resolved = true;
		pos += 8 + bytes;
	}
	for (i = 0; keys && i < c->n_st; i++)
		if (!c->st[i].resolved && c->st[i].data == UINT64_MAX) {
			c->st[i].missing = true;
			qa_inv_finding(c->inv, QA1630, c->path,
				       (int64_t)c->st[i].ref_off, NULL,
				       "storage '%s' is not in the storage-key "
				       "list", esc(a, sizeof(a), c->st[i].key));
		}
	if (keys && pos < size && c->rc == QA_OK) {
		struct qa_pkl_walk t;

		qa_inv_finding(c->inv, QA1627, c->path, (int64_t)pos, NULL,
			       "%llu bytes follow the last storage",
			       (unsigned long long)(size - pos));
		walk(c, &t, "the bytes after the last storage", pos, size,
		     false, true);
	}
	if (c->rc == QA_OK && !c->security_only)
		qa_pt_add_tensors(c, root, &k);
	qa_pt_coll_free(&k);
}

/* ---- 0.1-era tar checkpoints --------------------------------------------------- */

static uint64_t
octal(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n && (p[i] == ' ' || p[i] == '\0'); i++)
		;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) {
		if (v >> 60)
			return UINT64_MAX;
		v = v * 8 + (uint64_t)(p[i] - '0');
	}
	return v;
}

/*
 * torch 0.1's tar: members sys_info, pickle, storages and tensors, each
 * made of pickles (and raw records between them in storages and
 * tensors). Every pickle torch would unpickle is walked; the tensors are
 * not listed.
 */
static void
load_tar(struct pt_ctx *c)
{
	uint64_t pos = 0, size = c->src->size;
	unsigned members = 0;
	char a[160];

	while (pos + 512 <= size && members < 64 && c->rc == QA_OK) {
		uint8_t h[512];
		char name[101];
		uint64_t len, data;
		struct qa_pkl_walk w;

		if (qa_source_read(c->src, pos, h, sizeof(h)) != QA_OK) {
			c->rc = QA_E_IO;
			return;
		}
		if (h[0] == '\0')
			break;
		memcpy(name, h, 100);
		name[100] = '\0';
		len = octal(h + 124, 12);
		data = pos + 512;
		if (len == UINT64_MAX || len > size - data) {
			qa_inv_finding(c->inv, QA1636, c->path, (int64_t)pos,
				       NULL, "tar member '%s' runs past the end "
				       "of the file", esc(a, sizeof(a), name));
			return;
		}
		members++;
		if (h[156] == '0' || h[156] == '\0') {
			if (strcmp(name, "sys_info") == 0 ||
			    strcmp(name, "pickle") == 0) {
				walk(c, &w, strcmp(name, "pickle") == 0 ?
				     "the tar member 'pickle'" :
				     "the tar member 'sys_info'", data,
				     data + len, true, false);
			} else if (strcmp(name, "storages") == 0 ||
				   strcmp(name, "tensors") == 0) {
				/* the leading count pickle, then records
				 * whose pickles are walked one by one */
				uint64_t p = data, count = 0, j;
				bool st = strcmp(name, "storages") == 0;

				walk(c, &w, st ? "the tar member 'storages'" :
				     "the tar member 'tensors'", p, data + len,
				     true, false);
				if (!w.stopped || !as_uint(w.root, &count))
					count = 0;
				p = w.end;
				for (j = 0; j < count && j < QA_PT_MAX_STORAGES &&
				     c->rc == QA_OK; j++) {
					uint8_t b8[8];
					uint64_t n8;

					walk(c, &w, st ? "a storage record of "
					     "the tar member 'storages'" :
					     "a tensor record of the tar member "
					     "'tensors'", p, data + len, true,
					     false);
					if (!w.stopped)
						break;
					p = w.end;
					if (st) {
						const struct pt_dtype *dt =
							qa_pt_storage_type(arg(w.root, 2));

						if (!dt || p + 8 > data + len ||
						    qa_source_read(c->src, p, b8,
								   8) != QA_OK)
							break;
						n8 = le64(b8);
						if (qa_ckd_mul(&n8, n8, dt->size) ||
						    n8 > data + len - p - 8)
							break;
						p += 8 + n8;
					} else {
						int32_t ndim;

						if (p + 8 > data + len ||
						    qa_source_read(c->src, p, b8,
								   8) != QA_OK)
							break;
						ndim = (int32_t)le32(b8);
						if (ndim < 0 || ndim > 64 ||
						    16 * (uint64_t)ndim + 16 >
						    data + len - p)
							break;
						p += 8 + 16 * (uint64_t)ndim + 8;
					}
				}
				if (st && p < data + len && c->rc == QA_OK)
					walk(c, &w, "the storage views of the "
					     "tar member 'storages'", p,
					     data + len, true, false);
			}
		}
		pos = data + (len + 511) / 512 * 512;
	}
	if (!c->security_only)
		qa_inv_finding(c->inv, QA1635, c->path, -1, NULL,
			       "a torch 0.1 tar checkpoint: its pickles are "
			       "scanned, its tensors are not listed");
}

/* ---- one file ------------------------------------------------------------------ */

int
qa_pt_load_checkpoint(struct qa_inventory *inv, uint32_t file_index,
	  struct qa_source *src, bool security_only)
{
	struct pt_ctx c;
	uint8_t head[512];
	size_t n;

	memset(&c, 0, sizeof(c));
	c.inv = inv;
	c.fi = file_index;
	c.path = inv->files[file_index].path;
	c.src = src;
	c.security_only = security_only;
	qa_arena_init(&c.values, QA_PKL_ARENA_LIMIT);
	inv->files[file_index].format = "pytorch";
	inv->files[file_index].bytes = src->size;
	n = src->size < sizeof(head) ? (size_t)src->size : sizeof(head);
	if (qa_source_read(src, 0, head, n) != QA_OK) {
		ctx_free(&c);
		return QA_E_IO;
	}
	if (n >= 4 && memcmp(head, "PK\x03\x04", 4) == 0) {
		load_zip(&c);
	} else if (n >= 262 && memcmp(head + 257, "ustar", 5) == 0) {
		load_tar(&c);
	} else {
		load_legacy(&c);
		/* a zip behind the pickle: zipfile.is_zipfile says zip */
		if (c.rc == QA_OK && src->size >= 22) {
			uint64_t tail = src->size < 65557 ? src->size : 65557;
			uint8_t *t = malloc((size_t)tail);
			size_t i;

			if (t && qa_source_read(src, src->size - tail, t,
						(size_t)tail) == QA_OK)
				for (i = 0; i + 22 <= tail; i++)
					if (le32(t + i) == 0x06054b50 &&
					    i + 22 + le16(t + i + 20) == tail) {
						qa_inv_finding(inv, QA1627,
							       c.path, (int64_t)
							       (src->size - tail +
								i), NULL,
							       "the pickle "
							       "checkpoint ends "
							       "with a zip; "
							       "zipfile."
							       "is_zipfile() "
							       "says zip, torch "
							       "reads the pickle");
						break;
					}
			free(t);
		}
	}
	ctx_free(&c);
	if (c.rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	return c.rc;
}

int
qa_pt_load_file(struct qa_inventory *inv, uint32_t file_index,
		struct qa_source *src)
{
	return qa_pt_load_checkpoint(inv, file_index, src, false);
}

/* ---- the probe ----------------------------------------------------------------- */

int
qa_pt_probe(const uint8_t *buf, size_t len, uint64_t file_size)
{
	(void)file_size;
	if (len >= 30 && memcmp(buf, "PK\x03\x04", 4) == 0) {
		size_t nl = le16(buf + 26), i;

		/* torch.save writes <folder>/data.pkl first */
		if (30 + nl <= len && nl >= 9) {
			char name[9];

			for (i = 0; i < 8; i++)
				name[i] = (char)buf[30 + nl - 8 + i];
			name[8] = '\0';
			if (strcasecmp(name, "data.pkl") == 0 &&
			    memchr(buf + 30, '/', nl))
				return 95;
		}
		return 0;
	}
	if (len >= 14 && buf[0] == 0x80 && buf[1] <= 5 && buf[2] == 0x8a &&
	    buf[3] == 10 && memcmp(buf + 4, legacy_magic, 10) == 0)
		return 100;
	if (len >= 262 && memcmp(buf + 257, "ustar", 5) == 0 &&
	    (strcmp((const char *)buf, "sys_info") == 0 ||
	     strcmp((const char *)buf, "pickle") == 0 ||
	     strcmp((const char *)buf, "storages") == 0 ||
	     strcmp((const char *)buf, "tensors") == 0))
		return 90;
	if (qa_pickle_probe(buf, len))
		return 60;
	return 0;
}
