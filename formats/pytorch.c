/* SPDX-License-Identifier: MIT */
/*
 * PyTorch checkpoints (formats/pytorch.h).
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
#include "formats/pytorch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "core/ckd.h"
#include "core/hash.h"
#include "core/json_file.h"
#include "formats/format.h"
#include "formats/pickle.h"
#include "formats/weight_index.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Legacy format constants (torch/serialization.py). */
static const uint8_t legacy_magic[10] = {	/* 0x1950a86a20f9469cfc6c, LE */
	0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19,
};
#define LEGACY_PROTOCOL_VERSION 1001

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Printable, bounded copy of a name from the file (see pickle.c). */
static const char *
esc(char *dst, size_t cap, const char *s)
{
	size_t o = 0;

	for (; *s && o + 8 < cap; s++) {
		unsigned char c = (unsigned char)*s;

		if (o >= 120) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
			dst[o++] = (char)c;
		} else {
			snprintf(dst + o, cap - o, "\\x%02x", c);
			o += 4;
		}
	}
	dst[o] = '\0';
	return dst;
}

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
static bool
crc_range(struct qa_source *src, uint64_t off, uint64_t len, uint32_t *out)
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

static uint16_t
le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t
le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- dtypes --------------------------------------------------------------- */

struct pt_dtype {
	const char *torch;	/* storage class or torch dtype name */
	const char *name;	/* as quantaudit reports it (safetensors
				 * spelling where one exists) */
	uint32_t size;		/* bytes per element */
};

/* Legacy storage classes (torch/storage.py _dtype_to_storage_type_map,
 * the QInt ones from torch/__init__.py). UntypedStorage is bytes. */
static const struct pt_dtype storage_types[] = {
	{ "DoubleStorage", "F64", 8 },
	{ "FloatStorage", "F32", 4 },
	{ "HalfStorage", "F16", 2 },
	{ "BFloat16Storage", "BF16", 2 },
	{ "LongStorage", "I64", 8 },
	{ "IntStorage", "I32", 4 },
	{ "ShortStorage", "I16", 2 },
	{ "CharStorage", "I8", 1 },
	{ "ByteStorage", "U8", 1 },
	{ "BoolStorage", "BOOL", 1 },
	{ "ComplexDoubleStorage", "C128", 16 },
	{ "ComplexFloatStorage", "C64", 8 },
	{ "QInt8Storage", "QINT8", 1 },
	{ "QUInt8Storage", "QUINT8", 1 },
	{ "QInt32Storage", "QINT32", 4 },
	{ "QUInt4x2Storage", "QUINT4X2", 1 },
	{ "QUInt2x4Storage", "QUINT2X4", 1 },
	{ "UntypedStorage", "U8", 1 },
};

/* torch dtypes by the name their global carries (str(dtype) without
 * "torch."), for _rebuild_tensor_v3 and meta tensors. */
static const struct pt_dtype torch_dtypes[] = {
	{ "float64", "F64", 8 }, { "double", "F64", 8 },
	{ "float32", "F32", 4 }, { "float", "F32", 4 },
	{ "float16", "F16", 2 }, { "half", "F16", 2 },
	{ "bfloat16", "BF16", 2 },
	{ "int64", "I64", 8 }, { "long", "I64", 8 },
	{ "int32", "I32", 4 }, { "int", "I32", 4 },
	{ "int16", "I16", 2 }, { "short", "I16", 2 },
	{ "int8", "I8", 1 },
	{ "uint8", "U8", 1 }, { "uint16", "U16", 2 },
	{ "uint32", "U32", 4 }, { "uint64", "U64", 8 },
	{ "bool", "BOOL", 1 },
	{ "complex32", "C32", 4 }, { "complex64", "C64", 8 },
	{ "complex128", "C128", 16 },
	{ "float8_e4m3fn", "F8_E4M3", 1 }, { "float8_e5m2", "F8_E5M2", 1 },
	{ "float8_e4m3fnuz", "F8_E4M3FNUZ", 1 },
	{ "float8_e5m2fnuz", "F8_E5M2FNUZ", 1 },
	{ "float8_e8m0fnu", "F8_E8M0", 1 },
	{ "float4_e2m1fn_x2", "F4_E2M1FN_X2", 1 },
	{ "qint8", "QINT8", 1 }, { "quint8", "QUINT8", 1 },
	{ "qint32", "QINT32", 4 }, { "quint4x2", "QUINT4X2", 1 },
	{ "quint2x4", "QUINT2X4", 1 },
	{ "bits8", "BITS8", 1 }, { "bits16", "BITS16", 2 },
	{ "bits1x8", "BITS1X8", 1 }, { "bits2x4", "BITS2X4", 1 },
	{ "bits4x2", "BITS4X2", 1 },
};

static const struct pt_dtype *
storage_type(const struct qa_pv *g)
{
	size_t i;

	if (!g || g->kind != QA_PV_GLOBAL || g->u.g.cls != QA_PKL_ALLOWED)
		return NULL;
	if (strcmp(g->u.g.module, "torch") != 0 &&
	    strcmp(g->u.g.module, "torch.cuda") != 0 &&
	    strcmp(g->u.g.module, "torch.storage") != 0)
		return NULL;
	for (i = 0; i < N_ELEMS(storage_types); i++)
		if (strcmp(g->u.g.name, storage_types[i].torch) == 0)
			return &storage_types[i];
	return NULL;
}

static const struct pt_dtype *
torch_dtype(const struct qa_pv *g)
{
	size_t i;

	if (!g || g->kind != QA_PV_GLOBAL || strcmp(g->u.g.module, "torch"))
		return NULL;
	for (i = 0; i < N_ELEMS(torch_dtypes); i++)
		if (strcmp(g->u.g.name, torch_dtypes[i].torch) == 0)
			return &torch_dtypes[i];
	return NULL;
}

static bool
is_global(const struct qa_pv *v, const char *module, const char *name)
{
	return v && v->kind == QA_PV_GLOBAL &&
	       !(v->flags & (QA_PVF_UNRESOLVED | QA_PVF_EXTENSION)) &&
	       strcmp(v->u.g.module, module) == 0 &&
	       strcmp(v->u.g.name, name) == 0;
}

static bool
as_uint(const struct qa_pv *v, uint64_t *out)
{
	if (!v || (v->kind != QA_PV_INT && v->kind != QA_PV_BOOL) ||
	    v->u.i < 0)
		return false;
	*out = (uint64_t)v->u.i;
	return true;
}

static const char *
as_str(const struct qa_pv *v)
{
	return v && (v->kind == QA_PV_STR || v->kind == QA_PV_BYTES) &&
	       !(v->flags & QA_PVF_TRUNCATED) ? v->u.str.s : NULL;
}

static const struct qa_pv *
arg(const struct qa_pv *tuple, uint32_t i)
{
	return tuple && tuple->kind == QA_PV_TUPLE && i < tuple->n ?
	       tuple->u.seq.v[i] : NULL;
}

/* ---- the load context --------------------------------------------------------- */

struct pt_store {
	const char *key;		/* malloc'd */
	const struct pt_dtype *dt;	/* storage dtype */
	uint64_t numel;			/* elements, as declared */
	uint64_t ref_off;		/* file offset of the first reference */
	uint64_t data;			/* file offset of the bytes, UINT64_MAX
					 * unknown */
	uint64_t avail;			/* bytes there */
	bool resolved, missing, conflict, bad_size;
	bool big_endian;
};

struct pt_ctx {
	struct qa_inventory *inv;
	uint32_t fi;			/* inventory file index */
	const char *path;		/* display path */
	struct qa_source *src;
	struct qa_arena values;		/* the pickle values */
	bool big_endian;		/* byteorder "big" */
	bool security_only;		/* scan the pickles, list no tensors */
	bool torchscript;		/* a TorchScript archive (QA1629) */
	uint64_t main_ops;		/* opcodes of the object pickle */

	struct pt_store *st;		/* storages referenced */
	size_t n_st, cap_st;
	uint32_t *st_slots;		/* hash of keys: index + 1 */
	size_t st_slot_cap;

	int rc;				/* QA_E_NOMEM / QA_E_IO seen */
};

static void
ctx_nomem(struct pt_ctx *c)
{
	c->rc = QA_E_NOMEM;
	c->inv->out_of_memory = true;
}

/* Keyed (core/hash.h): storage keys come from the pickle. */
static uint64_t
str_hash(const char *s)
{
	return qa_hash(s, strlen(s));
}

/* The storage of key, created on first use; NULL when out of memory. */
static struct pt_store *
store_get(struct pt_ctx *c, const char *key)
{
	size_t i;

	if (c->n_st * 2 >= c->st_slot_cap) {
		size_t ncap = c->st_slot_cap ? c->st_slot_cap * 2 : 256, k;
		uint32_t *ns = calloc(ncap, sizeof(*ns));

		if (!ns) {
			ctx_nomem(c);
			return NULL;
		}
		for (k = 0; k < c->n_st; k++) {
			size_t j = str_hash(c->st[k].key) & (ncap - 1);

			while (ns[j])
				j = (j + 1) & (ncap - 1);
			ns[j] = (uint32_t)k + 1;
		}
		free(c->st_slots);
		c->st_slots = ns;
		c->st_slot_cap = ncap;
	}
	i = str_hash(key) & (c->st_slot_cap - 1);
	while (c->st_slots[i]) {
		struct pt_store *s = &c->st[c->st_slots[i] - 1];

		if (strcmp(s->key, key) == 0)
			return s;
		i = (i + 1) & (c->st_slot_cap - 1);
	}
	if (c->n_st >= QA_PT_MAX_STORAGES)
		return NULL;
	if (c->n_st == c->cap_st) {
		size_t ncap = c->cap_st ? c->cap_st * 2 : 64;
		struct pt_store *nst = realloc(c->st, ncap * sizeof(*nst));

		if (!nst) {
			ctx_nomem(c);
			return NULL;
		}
		c->st = nst;
		c->cap_st = ncap;
	}
	memset(&c->st[c->n_st], 0, sizeof(c->st[0]));
	c->st[c->n_st].key = strdup(key);
	if (!c->st[c->n_st].key) {
		ctx_nomem(c);
		return NULL;
	}
	c->st[c->n_st].data = UINT64_MAX;
	c->st_slots[i] = (uint32_t)++c->n_st;
	return &c->st[c->n_st - 1];
}

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

/* ---- the zip reader ------------------------------------------------------------ */

struct zent {
	const char *name;	/* NUL-terminated, in zdir.names */
	uint32_t name_len;
	uint16_t flags, method;
	uint32_t crc;
	uint64_t csize, usize, lho;
	uint64_t data;		/* data offset, UINT64_MAX when unreadable */
	bool storage;		/* a data/<key> member data.pkl refers to */
	bool known;		/* a record torch.save writes, or scanned */
};

struct zdir {
	struct zent *e;
	size_t n;
	char *names;
	char *root;		/* the first member's top folder + '/' */
	size_t root_len;
	bool torchscript;
};

static void
zdir_free(struct zdir *z)
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
static int
zip_read(struct pt_ctx *c, struct zdir *z)
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

/* ---- tensors from the object graph ------------------------------------------- */

struct tinfo {
	const struct pt_dtype *dt;	/* element type of the tensor */
	uint32_t rank;
	uint64_t shape[QA_MAX_DIMS];
	uint64_t stride[QA_MAX_DIMS];
	uint64_t offset;		/* storage offset, in elements */
	uint64_t view_bytes;		/* legacy storage view: byte offset */
	struct pt_store *st;
	uint64_t at;			/* file offset of the rebuild call */
};

struct found {
	char *name;			/* full path, malloc'd */
	size_t top_len;			/* bytes of its first key */
	int depth;			/* containers above it (1: a value of
					 * the root dict) */
	struct tinfo t;
};

struct coll {
	struct pt_ctx *c;
	uint64_t visits;
	uint64_t budget;		/* visits allowed */
	bool over;
	char path[4096];
	size_t plen;
	size_t top_len;
	struct found *f;
	size_t n, cap;
	uint32_t bad;			/* malformed rebuild calls reported */
};

/* Reads a tuple (or list, or torch.Size(tuple)) of non-negative ints. */
static bool
uint_tuple(const struct qa_pv *v, uint64_t *out, uint32_t *n)
{
	uint32_t i;

	if (v && v->kind == QA_PV_CALL && is_global(v->u.call.fn, "torch",
						      "Size"))
		v = arg(v->u.call.args, 0);
	if (!v || (v->kind != QA_PV_TUPLE && v->kind != QA_PV_LIST) ||
	    v->n > QA_MAX_DIMS)
		return false;
	for (i = 0; i < v->n; i++)
		if (!as_uint(v->u.seq.v[i], &out[i]))
			return false;
	*n = v->n;
	return true;
}

static void
bad_tensor(struct coll *k, uint64_t off, const char *why)
{
	if (k->bad++ < 64)
		qa_inv_finding(k->c->inv, QA1633, k->c->path, (int64_t)off,
			       k->plen ? k->path : NULL,
			       "the tensor rebuild call at offset %llu: %s",
			       (unsigned long long)off, why);
}

/*
 * The storage a rebuild call refers to: a persistent id
 * ('storage', StorageType, key, location, numel[, view]).
 */
static bool
storage_of(struct coll *k, const struct qa_pv *p, struct tinfo *t,
	   uint64_t off)
{
	const struct qa_pv *pid = p && p->kind == QA_PV_PERSID ? p->u.pid :
				  NULL;
	const struct pt_dtype *dt;
	const char *tag, *key;
	uint64_t numel;
	struct pt_store *s;

	if (!pid || pid->kind != QA_PV_TUPLE || pid->n < 5) {
		bad_tensor(k, off, "its storage is not a ('storage', type, "
			   "key, location, numel) persistent id");
		return false;
	}
	tag = as_str(arg(pid, 0));
	key = as_str(arg(pid, 2));
	dt = storage_type(arg(pid, 1));
	if (!tag || strcmp(tag, "storage") != 0 || !key ||
	    !as_uint(arg(pid, 4), &numel)) {
		bad_tensor(k, off, "its storage persistent id is malformed");
		return false;
	}
	if (!dt) {
		bad_tensor(k, off, "the storage class is not a torch storage "
			   "type");
		return false;
	}
	s = store_get(k->c, key);
	if (!s) {
		if (k->c->rc == QA_OK)
			bad_tensor(k, off, "more storages than quantaudit "
				   "tracks");
		return false;
	}
	if (!s->dt) {
		s->dt = dt;
		s->numel = numel;
		s->ref_off = p->off;
	} else if ((s->dt->size != dt->size || s->numel != numel) &&
		   !s->conflict) {
		char a[160];

		s->conflict = true;
		qa_inv_finding(k->c->inv, QA1631, k->c->path,
			       (int64_t)p->off, NULL,
			       "storage '%s' is declared as %llu %s elements "
			       "and as %llu %s elements",
			       esc(a, sizeof(a), s->key),
			       (unsigned long long)s->numel, s->dt->torch,
			       (unsigned long long)numel, dt->torch);
	}
	t->st = s;
	t->dt = dt;
	if (pid->n >= 6 && arg(pid, 5)->kind == QA_PV_TUPLE) {
		/* legacy storage view (view_key, offset, size) */
		uint64_t vo;

		if (as_uint(arg(arg(pid, 5), 1), &vo) &&
		    !qa_ckd_mul(&vo, vo, dt->size))
			t->view_bytes = vo;
	}
	return true;
}

/*
 * Is v a tensor? 1 with *t filled, 0 when it is something else, -1 when
 * it is a malformed tensor (reported).
 */
static int
tensor_of(struct coll *k, const struct qa_pv *v, struct tinfo *t, int hops)
{
	const struct qa_pv *fn, *args;
	const char *name;

	if (!v || v->kind != QA_PV_CALL || hops > 4)
		return 0;
	fn = v->u.call.fn;
	args = v->u.call.args;
	if (!fn || fn->kind != QA_PV_GLOBAL || fn->u.g.cls != QA_PKL_ALLOWED)
		return 0;
	if (is_global(fn, "torch._utils", "_rebuild_parameter") ||
	    is_global(fn, "torch._utils", "_rebuild_parameter_with_state") ||
	    is_global(fn, "torch.nn.parameter", "Parameter"))
		return tensor_of(k, arg(args, 0), t, hops + 1);
	if (is_global(fn, "torch._tensor", "_rebuild_from_type_v2")) {
		struct qa_pv call;

		/* func(*args): the inner rebuild call, made up */
		memset(&call, 0, sizeof(call));
		call.kind = QA_PV_CALL;
		call.off = v->off;
		call.u.call.fn = (struct qa_pv *)arg(args, 0);
		call.u.call.args = (struct qa_pv *)arg(args, 2);
		return tensor_of(k, &call, t, hops + 1);
	}
	if (strcmp(fn->u.g.module, "torch._utils") != 0)
		return 0;
	name = fn->u.g.name;
	if (strcmp(name, "_rebuild_tensor") != 0 &&
	    strcmp(name, "_rebuild_tensor_v2") != 0 &&
	    strcmp(name, "_rebuild_tensor_v3") != 0 &&
	    strcmp(name, "_rebuild_qtensor") != 0)
		return 0;
	memset(t, 0, sizeof(*t));
	t->at = v->off;
	if (!storage_of(k, arg(args, 0), t, v->off))
		return -1;
	if (!as_uint(arg(args, 1), &t->offset)) {
		bad_tensor(k, v->off, "the storage offset is not a "
			   "non-negative integer");
		return -1;
	}
	{
		uint32_t rs = 0;

		if (!uint_tuple(arg(args, 2), t->shape, &t->rank) ||
		    !uint_tuple(arg(args, 3), t->stride, &rs) ||
		    rs != t->rank) {
			bad_tensor(k, v->off, "size and stride are not tuples "
				   "of the same rank (at most 8) of "
				   "non-negative integers");
			return -1;
		}
	}
	if (strcmp(name, "_rebuild_tensor_v3") == 0) {
		const struct pt_dtype *d = torch_dtype(arg(args, 6));

		if (!d) {
			bad_tensor(k, v->off, "the dtype argument of "
				   "_rebuild_tensor_v3 is not a torch dtype");
			return -1;
		}
		t->dt = d;
	}
	return 1;
}

static bool
path_push(struct coll *k, const char *comp, size_t n, size_t *saved)
{
	*saved = k->plen;
	if (k->plen + (k->plen ? 1 : 0) + n + 1 > sizeof(k->path))
		return false;
	if (k->plen)
		k->path[k->plen++] = '.';
	memcpy(k->path + k->plen, comp, n);
	k->plen += n;
	k->path[k->plen] = '\0';
	return true;
}

static void
path_pop(struct coll *k, size_t saved)
{
	k->plen = saved;
	k->path[k->plen] = '\0';
}

static void collect(struct coll *k, const struct qa_pv *v, int depth);

/* A value under the key component comp (a dict key or a list index). */
static void
collect_under(struct coll *k, const struct qa_pv *v, const char *comp,
	      size_t n, int depth)
{
	size_t saved;

	if (!path_push(k, comp, n, &saved))
		return;
	if (depth == 0)
		k->top_len = n;
	collect(k, v, depth + 1);
	path_pop(k, saved);
}

/* Module attribute containers a pickled nn.Module keeps its tensors in:
 * skipped in names so they read like its state_dict keys. */
static bool
module_container(const char *s)
{
	return strcmp(s, "_parameters") == 0 || strcmp(s, "_buffers") == 0 ||
	       strcmp(s, "_modules") == 0;
}

/* The items of dict d; object_state: d is the __dict__ of a pickled
 * object, whose attribute containers are skipped in names. */
static void
collect_dict(struct coll *k, const struct qa_pv *d, int depth,
	     bool object_state)
{
	uint32_t i;

	for (i = 0; i + 1 < d->n && !k->over; i += 2) {
		const struct qa_pv *key = d->u.seq.v[i];
		const char *s = as_str(key);
		char num[32];

		if (s && module_container(s) && (object_state || depth > 0)) {
			collect(k, d->u.seq.v[i + 1], depth);
			continue;
		}
		if (!s && key && key->kind == QA_PV_INT) {
			snprintf(num, sizeof(num), "%lld", (long long)key->u.i);
			s = num;
		}
		if (!s)
			continue;
		collect_under(k, d->u.seq.v[i + 1], s, strlen(s), depth);
	}
}

static void
collect_seq(struct coll *k, const struct qa_pv *l, int depth)
{
	uint32_t i;
	char num[32];

	for (i = 0; i < l->n && !k->over; i++) {
		snprintf(num, sizeof(num), "%u", i);
		collect_under(k, l->u.seq.v[i], num, strlen(num), depth);
	}
}

static void
collect(struct coll *k, const struct qa_pv *v, int depth)
{
	struct tinfo t;
	int r;

	if (!v || k->over || k->c->rc != QA_OK)
		return;
	if (++k->visits > k->budget) {
		k->over = true;
		qa_inv_finding(k->c->inv, QA1610, k->c->path, (int64_t)v->off,
			       NULL, "the object graph of the pickle expands "
			       "past %llu visits while its tensors are "
			       "collected: shared references repeated (an "
			       "expansion attack?)",
			       (unsigned long long)k->budget);
		return;
	}
	if (depth > QA_PT_MAX_DEPTH)
		return;
	r = tensor_of(k, v, &t, 0);
	if (r < 0)
		return;
	if (r > 0) {
		if (k->n == k->cap) {
			size_t ncap = k->cap ? k->cap * 2 : 256;
			struct found *nf = realloc(k->f, ncap * sizeof(*nf));

			if (!nf) {
				ctx_nomem(k->c);
				return;
			}
			k->f = nf;
			k->cap = ncap;
		}
		k->f[k->n].name = strdup(k->plen ? k->path : "tensor");
		if (!k->f[k->n].name) {
			ctx_nomem(k->c);
			return;
		}
		k->f[k->n].top_len = depth > 0 ? k->top_len : 0;
		k->f[k->n].depth = depth;
		k->f[k->n].t = t;
		k->n++;
		return;
	}
	switch (v->kind) {
	case QA_PV_DICT:
		collect_dict(k, v, depth, false);
		break;
	case QA_PV_LIST:
	case QA_PV_TUPLE:
		collect_seq(k, v, depth);
		break;
	case QA_PV_CALL:
		/* an OrderedDict (items), a pickled module (its state) */
		if (v->u.call.items && v->u.call.items->kind == QA_PV_DICT)
			collect_dict(k, v->u.call.items, depth, false);
		else if (v->u.call.items)
			collect_seq(k, v->u.call.items, depth);
		if (v->u.call.state) {
			const struct qa_pv *s = v->u.call.state;

			if (s->kind == QA_PV_TUPLE && s->n == 2)
				s = s->u.seq.v[0];
			if (s && s->kind == QA_PV_DICT)
				collect_dict(k, s, depth, true);
		}
		break;
	default:
		break;
	}
}

/* Where a state dict is usually kept in a training checkpoint. */
static const char *const state_keys[] = {
	"state_dict", "model_state_dict", "model", "module", "net", "network",
	"params", "weights", "ema", "model_ema", "ema_model", "generator",
};

static int
cmp_found_idx(const void *a, const void *b, const struct found *f)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int r = strcmp(f[x].name, f[y].name);

	return r ? r : (x < y ? -1 : x > y);
}

static const struct found *sort_found;

static int
cmp_found_q(const void *a, const void *b)
{
	return cmp_found_idx(a, b, sort_found);
}

/*
 * Adds the tensors found in the object graph of root to the inventory:
 * the state dict's tensors by their keys (a wrapper key such as "model"
 * or "state_dict" stripped), tensors elsewhere counted in QA1634.
 * Storages must be resolved (pt_store data/avail) by the caller first;
 * collect_tensors fills k, add_tensors adds.
 */
static void
collect_tensors(struct pt_ctx *c, const struct qa_pv *root, struct coll *k)
{
	memset(k, 0, sizeof(*k));
	k->c = c;
	/* a tree is visited once per value, and a pickle makes at most
	 * one value per opcode: more visits are shared references
	 * walked again and again */
	k->budget = (uint64_t)1 << 20;
	if (c->main_ops < (QA_PT_MAX_VISITS - k->budget) / 4)
		k->budget += 4 * c->main_ops;
	else
		k->budget = QA_PT_MAX_VISITS;
	collect(k, root, 0);
}

static void
coll_free(struct coll *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->f[i].name);
	free(k->f);
}

/* Validates one tensor and adds it under name. */
static void
add_tensor(struct pt_ctx *c, const char *name, const struct tinfo *t)
{
	struct qa_inventory *inv = c->inv;
	uint64_t elements = 1, bytes, extent = 0, start, end;
	struct qa_tensor *q;
	uint32_t i;
	bool ok = true;

	for (i = 0; i < t->rank; i++)
		if (qa_ckd_mul(&elements, elements, t->shape[i])) {
			qa_inv_finding(inv, QA1633, c->path, (int64_t)t->at,
				       name, "the shape's element count "
				       "overflows 64 bits");
			return;
		}
	if (qa_ckd_mul(&bytes, elements, t->dt->size)) {
		qa_inv_finding(inv, QA1633, c->path, (int64_t)t->at, name,
			       "%llu elements of %s overflow 64 bits",
			       (unsigned long long)elements, t->dt->name);
		return;
	}
	/* the last element addressed, in elements of the tensor's type */
	if (elements > 0) {
		extent = t->offset;
		for (i = 0; i < t->rank && ok; i++) {
			uint64_t d;

			if (qa_ckd_mul(&d, t->shape[i] - 1, t->stride[i]) ||
			    qa_ckd_add(&extent, extent, d))
				ok = false;
		}
		if (ok && (qa_ckd_add(&extent, extent, 1) ||
			   qa_ckd_mul(&extent, extent, t->dt->size)))
			ok = false;
	}
	q = qa_inv_add_tensor(inv);
	if (!q) {
		ctx_nomem(c);
		return;
	}
	q->name = qa_arena_strdup(&inv->arena, name);
	q->dtype = t->dt->name;
	if (!q->name) {
		ctx_nomem(c);
		return;
	}
	q->file = c->fi;
	q->ggml_type = -1;
	q->n_dims = t->rank;
	for (i = 0; i < t->rank; i++)
		q->shape[i] = t->shape[i];
	q->elements = elements;
	q->bytes = bytes;
	q->offset = 0;
	inv->files[c->fi].tensor_count++;
	if (!t->st || t->st->data == UINT64_MAX)
		return;		/* missing storage: QA1630 says so */
	if (qa_ckd_mul(&start, t->offset, t->dt->size) ||
	    qa_ckd_add(&start, start, t->view_bytes) ||
	    qa_ckd_add(&q->offset, t->st->data, start))
		q->offset = UINT64_MAX - bytes;
	if (!ok || qa_ckd_add(&end, extent, t->view_bytes) ||
	    end > t->st->avail)
		qa_inv_finding(inv, QA1632, c->path, (int64_t)t->at, name,
			       "offset %llu, shape and strides address %s%llu "
			       "bytes of storage '%s', which holds %llu",
			       (unsigned long long)t->offset, ok ? "" : "over ",
			       (unsigned long long)(ok ? end : UINT64_MAX),
			       t->st->key, (unsigned long long)t->st->avail);
	if (q->offset > c->src->size || bytes > c->src->size - q->offset)
		qa_inv_finding(inv, QA1028, c->path, (int64_t)t->at, name,
			       "the tensor's %llu bytes at offset %llu end "
			       "past the end of the file (%llu bytes)",
			       (unsigned long long)bytes,
			       (unsigned long long)q->offset,
			       (unsigned long long)c->src->size);
}

static void
add_tensors(struct pt_ctx *c, const struct qa_pv *root, struct coll *k)
{
	const char *chosen = NULL;
	size_t chosen_len = 0, i, j, other = 0, *ix;
	uint64_t other_bytes = 0;
	bool direct = false, *drop;

	for (i = 0; i < k->n; i++)
		if (k->f[i].depth == 1)
			direct = true;
	/* a wrapper key is looked for in a dict only: the attributes of a
	 * pickled object (a module, a TorchScript archive) are names */
	if (!direct && k->n && root && (root->kind == QA_PV_DICT ||
					(root->kind == QA_PV_CALL &&
					 is_global(root->u.call.fn, "collections",
						   "OrderedDict")))) {
		for (j = 0; j < N_ELEMS(state_keys) && !chosen; j++)
			for (i = 0; i < k->n; i++)
				if (k->f[i].top_len == strlen(state_keys[j]) &&
				    strncmp(k->f[i].name, state_keys[j],
					    k->f[i].top_len) == 0) {
					chosen = state_keys[j];
					chosen_len = k->f[i].top_len;
					break;
				}
		if (!chosen && k->f[0].top_len) {
			bool one = true;

			for (i = 1; i < k->n; i++)
				if (k->f[i].top_len != k->f[0].top_len ||
				    strncmp(k->f[i].name, k->f[0].name,
					    k->f[0].top_len) != 0)
					one = false;
			if (one) {
				chosen = k->f[0].name;
				chosen_len = k->f[0].top_len;
			}
		}
	}
	ix = malloc((k->n ? k->n : 1) * sizeof(*ix));
	drop = calloc(k->n ? k->n : 1, sizeof(*drop));
	if (!ix || !drop) {
		free(ix);
		free(drop);
		ctx_nomem(c);
		return;
	}
	for (i = 0; i < k->n; i++) {
		struct found *f = &k->f[i];

		if (chosen && !(f->top_len == chosen_len &&
				strncmp(f->name, chosen, chosen_len) == 0)) {
			uint64_t e = 1, b;
			uint32_t d;

			drop[i] = true;
			other++;
			for (d = 0; d < f->t.rank; d++)
				if (qa_ckd_mul(&e, e, f->t.shape[d]))
					e = 0;
			if (!qa_ckd_mul(&b, e, f->t.dt->size))
				other_bytes += b;
		}
	}
	if (chosen) {
		char a[160];

		if (other)
			qa_inv_finding(c->inv, QA1634, c->path, -1, NULL,
				       "the state dict is under '%.*s'; %zu "
				       "more tensors (%llu bytes) elsewhere in "
				       "the checkpoint are not listed", (int)
				       chosen_len, esc(a, sizeof(a), chosen),
				       other, (unsigned long long)other_bytes);
		/* names without the wrapper key */
		for (i = 0; i < k->n; i++)
			if (!drop[i] && strlen(k->f[i].name) > chosen_len)
				memmove(k->f[i].name,
					k->f[i].name + chosen_len + 1,
					strlen(k->f[i].name + chosen_len + 1) +
					1);
	}
	/* a key set twice: Python keeps the last value */
	for (i = 0; i < k->n; i++)
		ix[i] = i;
	sort_found = k->f;
	qsort(ix, k->n, sizeof(*ix), cmp_found_q);
	sort_found = NULL;
	for (i = 1; i < k->n; i++)
		if (!drop[ix[i - 1]] && !drop[ix[i]] &&
		    strcmp(k->f[ix[i - 1]].name, k->f[ix[i]].name) == 0) {
			drop[ix[i - 1]] = true;
			qa_inv_finding(c->inv, QA1021, c->path,
				       (int64_t)k->f[ix[i - 1]].t.at,
				       k->f[ix[i]].name, "the checkpoint sets "
				       "this key twice; Python keeps the later "
				       "value, which is listed");
		}
	for (i = 0; i < k->n && c->rc == QA_OK; i++)
		if (!drop[i])
			add_tensor(c, k->f[i].name, &k->f[i].t);
	if (k->n == 0 && root && k->bad == 0)
		qa_inv_finding(c->inv, QA1635, c->path, (int64_t)root->off, NULL,
			       "the checkpoint's object is %s without tensor "
			       "rebuild calls", root->kind == QA_PV_DICT ?
			       "a dict" : root->kind == QA_PV_CALL ?
			       "an object" : "a value");
	free(ix);
	free(drop);
}

/* ---- torch zip checkpoints ------------------------------------------------------ */

/* The member named exactly (or, failing that, ignoring case: torch's
 * lookup) root + rel; -1 when none. */
static long
zfind(const struct zdir *z, const char *rel, bool *by_case)
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
	if (!crc_range(c->src, e->data, e->csize, &crc)) {
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
		m = zfind(z, rel, &by_case);
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

	rc = zip_read(c, &z);
	if (rc != QA_OK) {
		c->rc = rc;
		zdir_free(&z);
		return;
	}
	if (z.n == 0) {
		zdir_free(&z);
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
				zdir_free(&z);
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
	c->torchscript = zfind(&z, "constants.pkl", &by_case) >= 0;
	main_pkl = zfind(&z, "data.pkl", &by_case);
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
	collect_tensors(c, root, &k);
	if (c->rc == QA_OK) {
		zip_resolve_storages(c, &z);
		if (!c->security_only)
			add_tensors(c, root, &k);
	}
	coll_free(&k);
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
	zdir_free(&z);
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
	collect_tensors(c, root, &k);	/* storages, for their sizes */
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
		add_tensors(c, root, &k);
	coll_free(&k);
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
							storage_type(arg(w.root, 2));

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

static int
load_file(struct qa_inventory *inv, uint32_t file_index,
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
	return load_file(inv, file_index, src, false);
}

/* ---- names ------------------------------------------------------------------ */

bool
qa_pt_weight_name(const char *name)
{
	return (strncmp(name, "pytorch_model", 13) == 0 &&
		ends_with(name, ".bin")) ||
	       ends_with(name, ".pt") || ends_with(name, ".pth") ||
	       ends_with(name, ".ckpt") || ends_with(name, ".bin.index.json");
}

bool
qa_pt_pickle_name(const char *name)
{
	static const char *const ext[] = {
		".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib",
		".mar", ".dat", ".data",
	};
	size_t i;

	for (i = 0; i < N_ELEMS(ext); i++)
		if (ends_with(name, ext[i]))
			return true;
	return false;
}

/* X-0000k-of-0000n.bin (5 or 6 digits, '-' or '_' before k), as
 * transformers names shards. */
static bool
shard_name(const char *name, size_t *prefix_len, uint32_t *k, uint32_t *n)
{
	size_t len = strlen(name), e, s, i;
	uint32_t vk = 0, vn = 0;

	if (!ends_with(name, ".bin"))
		return false;
	e = len - 4;
	for (s = e; s > 0 && e - s < 7 && name[s - 1] >= '0' &&
	     name[s - 1] <= '9'; s--)
		;
	if (e - s < 5 || e - s > 6 || s < 4 || memcmp(name + s - 4, "-of-", 4))
		return false;
	for (i = s; i < e; i++)
		vn = vn * 10 + (uint32_t)(name[i] - '0');
	e = s - 4;
	for (s = e; s > 0 && e - s < 7 && name[s - 1] >= '0' &&
	     name[s - 1] <= '9'; s--)
		;
	if (e - s < 5 || e - s > 6 || s < 2 ||
	    (name[s - 1] != '-' && name[s - 1] != '_'))
		return false;
	for (i = s; i < e; i++)
		vk = vk * 10 + (uint32_t)(name[i] - '0');
	*prefix_len = s - 1;
	*k = vk;
	*n = vn;
	return true;
}


/* Adds path as a file of the given role and loads it. */
static int
load_one(struct qa_inventory *inv, const char *path, enum qa_file_role role,
	 uint32_t part, uint32_t parts)
{
	struct qa_source src;
	struct qa_file *f;
	int rc;

	memset(&src, 0, sizeof(src));
	if (qa_inv_open(inv, path, &src) != QA_OK) {
		const char *base = strrchr(path, '/');

		/* a shard that is a FIFO, a folder, a link out of the folder
		 * or unreadable (tar and unzip restore permission bits) is a
		 * finding and a missing shard, as in the safetensors and GGUF
		 * sets; the path the user named is refused by the resolver */
		if (role != QA_FILE_SHARD || !src.not_regular)
			return QA_E_IO;
		base = base ? base + 1 : path;
		if (!qa_inv_not_read(inv, path, src.not_regular))
			qa_inv_finding(inv, QA1410, path, -1, NULL, "%s is %s, "
				       "not a regular file; it was not read",
				       base, src.not_regular);
		if (!inv->weights.missing_files++)
			inv->weights.first_missing =
				qa_arena_strdup(&inv->arena, base);
		return QA_OK;
	}
	f = qa_inv_add_file(inv, path);
	if (!f) {
		qa_source_close(&src);
		return QA_E_NOMEM;
	}
	f->role = role;
	f->part = part;
	f->parts = parts;
	f->bytes = src.size;
	f->format = "pytorch";
	rc = qa_pt_load_file(inv, inv->n_files - 1, &src);
	qa_source_close(&src);
	return rc;
}

/* ---- sharded sets ---------------------------------------------------------------- */

static const struct qa_inventory *sort_inv;

static int
cmp_tensor_ix(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = strcmp(sort_inv->tensors[x].name, sort_inv->tensors[y].name);

	return r ? r : (x > y) - (x < y);
}

/*
 * Loads a set from dir: the index (if any), the shards it names, and the
 * other weight files of its family (every pytorch_model*.bin, or the
 * numbered set of filter), with the cross-file checks.
 */
static int
load_set(struct qa_inventory *inv, const char *dir, const char *index_name,
	 const char *filter, bool *found)
{
	struct qa_dirent *ents = NULL;
	size_t n = 0, i, fpl = 0, nt;
	uint32_t fk, fn, first_file, first_tensor, *ti = NULL;
	struct qa_weight_index ix;
	bool *take = NULL, *extra = NULL, shard_missing = false;
	uint64_t sum = 0;
	int rc;

	memset(&ix, 0, sizeof(ix));
	if (filter && !shard_name(filter, &fpl, &fk, &fn))
		filter = NULL;
	if (found)
		*found = false;
	rc = qa_inv_list(inv, *dir ? dir : ".", &ents, &n);
	if (rc != QA_OK)
		return rc;
	if (index_name) {
		struct qa_source src;
		struct qa_file *f;
		char *path = qa_inv_join(inv, dir, index_name);

		if (!path) {
			rc = QA_E_NOMEM;
			goto out;
		}
		if (qa_inv_open(inv, path, &src) != QA_OK) {
			rc = QA_E_IO;
			goto out;
		}
		f = qa_inv_add_file(inv, path);
		if (!f) {
			qa_source_close(&src);
			rc = QA_E_NOMEM;
			goto out;
		}
		f->role = QA_FILE_INDEX;
		f->format = "json";
		f->bytes = src.size;
		ix.path = f->path;
		rc = qa_weight_index_read(inv, &src, &ix);
		qa_source_close(&src);
		if (rc != QA_OK)
			goto out;
		if (found)
			*found = true;
	}
	take = calloc(n ? n : 1, sizeof(*take));
	extra = calloc(n ? n : 1, sizeof(*extra));
	if (!take || !extra) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t pl;
		uint32_t k, m;
		const char *nm = ents[i].name;

		if (ents[i].kind != QA_NODE_FILE)
			continue;
		if (qa_weight_index_names_shard(&ix, nm))
			take[i] = true;
		else if (filter)
			take[i] = shard_name(nm, &pl, &k, &m) && m == fn &&
				  pl == fpl && strncmp(nm, filter, pl) == 0;
		else
			take[i] = strncmp(nm, "pytorch_model", 13) == 0 &&
				  ends_with(nm, ".bin");
		if (take[i] && ix.valid && !qa_weight_index_names_shard(&ix, nm))
			extra[i] = true;
	}
	for (i = 0; ix.valid && i < ix.n_shards; i++) {
		const char *s = ix.shards[i];
		size_t j;
		bool there = false;

		if (qa_unsafe_shard_name(s)) {
			qa_inv_finding(inv, QA1306, ix.path, -1, NULL,
				       "weight_map names \"%s\", which is not a "
				       "plain file name in the model folder; it "
				       "was not opened", s);
			continue;
		}
		for (j = 0; j < n; j++)
			if (ents[j].kind == QA_NODE_FILE &&
			    strcmp(ents[j].name, s) == 0)
				there = true;
		if (!there) {
			shard_missing = true;
			if (!inv->weights.missing_files++)
				inv->weights.first_missing =
					qa_arena_strdup(&inv->arena, s);
			qa_inv_finding(inv, QA1304, ix.path, -1, NULL,
				       "weight_map names %s, which is not in "
				       "the folder", s);
		}
	}
	first_file = inv->n_files;
	first_tensor = inv->n_tensors;
	{
		size_t n_take = 0;

		for (i = 0; i < n; i++)
			n_take += take[i];
		for (i = 0; i < n; i++) {
			size_t pl;
			uint32_t k = 0, m = 0;
			bool numbered;
			char *path;

			if (!take[i])
				continue;
			if (found)
				*found = true;
			numbered = shard_name(ents[i].name, &pl, &k, &m);
			path = qa_inv_join(inv, dir, ents[i].name);
			if (!path) {
				rc = QA_E_NOMEM;
				goto out;
			}
			rc = load_one(inv, path, index_name || n_take > 1 ?
				      QA_FILE_SHARD : QA_FILE_MODEL,
				      numbered ? k : 0, numbered ? m : 0);
			if (rc != QA_OK)
				goto out;
			if (extra[i]) {
				inv->files[inv->n_files - 1].unlisted = true;
				qa_inv_finding(inv, QA1305, path, -1, NULL,
					       "%s is not named by the index; "
					       "its %u tensors are included here "
					       "but index-following loaders skip "
					       "them", ents[i].name,
					       inv->files[inv->n_files - 1]
						       .tensor_count);
			}
		}
	}
	/* numbered parts missing, when there is no index to say */
	if (!ix.valid) {
		uint32_t f;

		for (f = first_file; f < inv->n_files; f++) {
			size_t pl;
			uint32_t k, m, j, g;
			bool first = true;

			if (!shard_name(inv->files[f].name, &pl, &k, &m) ||
			    m == 0 || m > 100000)
				continue;
			for (g = first_file; g < f; g++) {
				size_t pl2;
				uint32_t k2, m2;

				if (shard_name(inv->files[g].name, &pl2, &k2,
					       &m2) && m2 == m && pl2 == pl &&
				    strncmp(inv->files[g].name,
					    inv->files[f].name, pl) == 0)
					first = false;
			}
			if (!first)
				continue;
			for (j = 1; j <= m; j++) {
				bool have = false;

				for (g = first_file; g < inv->n_files && !have;
				     g++) {
					size_t pl2;
					uint32_t k2, m2;

					have = shard_name(inv->files[g].name,
							  &pl2, &k2, &m2) &&
					       m2 == m && k2 == j && pl2 == pl &&
					       strncmp(inv->files[g].name,
						       inv->files[f].name,
						       pl) == 0;
				}
				if (have)
					continue;
				if (!inv->weights.missing_files++)
					inv->weights.first_missing =
						qa_arena_printf(&inv->arena,
								"part %u of %u "
								"of %.*s", j, m,
								(int)pl,
								inv->files[f]
									.name);
				qa_inv_finding(inv, QA1309, NULL, -1, NULL,
					       "part %u of %u of %.*s is "
					       "missing", j, m, (int)pl,
					       inv->files[f].name);
				if (inv->weights.missing_files > 32)
					break;
			}
		}
	}
	/* duplicates across shards, ghosts, unlisted tensors, total */
	nt = inv->n_tensors - first_tensor;
	ti = malloc((nt ? nt : 1) * sizeof(*ti));
	if (!ti) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (i = 0; i < nt; i++)
		ti[i] = first_tensor + (uint32_t)i;
	sort_inv = inv;
	qsort(ti, nt, sizeof(*ti), cmp_tensor_ix);
	sort_inv = NULL;
	for (i = 1; i < nt; i++) {
		const struct qa_tensor *a = &inv->tensors[ti[i - 1]];
		const struct qa_tensor *b = &inv->tensors[ti[i]];

		if (strcmp(a->name, b->name) == 0 && a->file != b->file)
			qa_inv_finding(inv, QA1308, inv->files[b->file].path,
				       (int64_t)b->offset, b->name, "also in %s",
				       inv->files[a->file].name);
	}
	if (ix.valid) {
		for (i = 0; i < ix.n; i++) {
			const struct qa_weight_entry *e = &ix.e[i];
			uint32_t f;
			size_t lo = 0, hi = nt;
			bool loaded = false, there = false;

			for (f = first_file; f < inv->n_files; f++)
				if (strcmp(inv->files[f].name, e->shard) == 0 &&
				    !qa_unsafe_shard_name(e->shard)) {
					loaded = true;
					break;
				}
			if (!loaded)
				continue;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (strcmp(inv->tensors[ti[mid]].name,
					   e->tensor) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < nt && strcmp(inv->tensors[ti[lo]].name,
						 e->tensor) == 0; lo++)
				if (inv->tensors[ti[lo]].file == f)
					there = true;
			if (!there)
				qa_inv_finding(inv, QA1302, ix.path, -1,
					       e->tensor, "weight_map puts the "
					       "tensor in %s, which does not "
					       "hold it", e->shard);
		}
		for (i = first_tensor; i < inv->n_tensors; i++) {
			const struct qa_tensor *t = &inv->tensors[i];
			const struct qa_file *f = &inv->files[t->file];
			const struct qa_weight_entry *e;

			if (f->unlisted)
				continue;
			if (qa_ckd_add(&sum, sum, t->bytes))
				sum = UINT64_MAX;
			e = qa_weight_index_find(&ix, t->name);
			if (!e)
				qa_inv_finding(inv, QA1303, f->path,
					       (int64_t)t->offset, t->name,
					       "%s holds the tensor but "
					       "weight_map does not list it",
					       f->name);
			else if (strcmp(e->shard, f->name) != 0)
				qa_inv_finding(inv, QA1303, f->path,
					       (int64_t)t->offset, t->name,
					       "%s holds the tensor but "
					       "weight_map lists it under %s",
					       f->name, e->shard);
		}
		if (ix.have_total && ix.total_bad)
			qa_inv_finding(inv, QA1307, ix.path, -1, NULL,
				       "metadata.total_size is not a "
				       "non-negative integer");
		else if (ix.have_total && ix.total != sum && !shard_missing)
			qa_inv_finding(inv, QA1307, ix.path, -1, NULL,
				       "metadata.total_size is %llu, the shards "
				       "hold %llu tensor bytes",
				       (unsigned long long)ix.total,
				       (unsigned long long)sum);
	}
out:
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	free(ti);
	free(take);
	free(extra);
	qa_dirents_free(ents, n);
	return rc;
}

int
qa_pt_load_set_in_dir(struct qa_inventory *inv, const char *dir,
		      const char *index_name, bool *found)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i;
	const char *single = NULL;
	int rc;

	if (index_name)
		return load_set(inv, dir, index_name, NULL, found);
	rc = load_set(inv, dir, NULL, NULL, found);
	if (rc != QA_OK || (found && *found))
		return rc;
	/* no pytorch_model*.bin: a single *.pt / *.pth / *.ckpt */
	rc = qa_inv_list(inv, *dir ? dir : ".", &e, &n);
	if (rc != QA_OK)
		return rc;
	for (i = 0; i < n && !single; i++)
		if (e[i].kind == QA_NODE_FILE &&
		    (ends_with(e[i].name, ".pt") || ends_with(e[i].name, ".pth") ||
		     ends_with(e[i].name, ".ckpt")))
			single = e[i].name;
	if (single) {
		char *path = qa_inv_join(inv, dir, single);

		if (found)
			*found = true;
		rc = path ? load_one(inv, path, QA_FILE_MODEL, 0, 0) :
		     QA_E_NOMEM;
	}
	qa_dirents_free(e, n);
	return rc;
}

/* The side files beside a checkpoint named directly. */
static int
load_side_beside(struct qa_inventory *inv, const char *dir)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i;
	bool have_config = false;
	int rc;

	if (qa_inv_list(inv, *dir ? dir : ".", &e, &n) != QA_OK)
		return QA_OK;
	for (i = 0; i < n; i++)
		if (e[i].kind == QA_NODE_FILE &&
		    strcmp(e[i].name, "config.json") == 0)
			have_config = true;
	rc = have_config ? qa_hf_load_side_files(inv, dir, e, n) : QA_OK;
	qa_dirents_free(e, n);
	return rc;
}

int
qa_pt_load_path(struct qa_inventory *inv, const char *path)
{
	const char *base = qa_path_base(path);
	size_t pl;
	uint32_t k, m;
	char *dir;
	int rc;

	inv->kind = QA_KIND_PYTORCH;
	dir = qa_arena_strndup(&inv->arena, path, (size_t)(base - path));
	if (!dir) {
		inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	rc = load_side_beside(inv, dir);
	if (rc != QA_OK)
		return rc;
	if (ends_with(base, ".index.json"))
		return load_set(inv, dir, base, NULL, NULL);
	if (shard_name(base, &pl, &k, &m)) {
		struct qa_dirent *e = NULL;
		size_t n = 0, i;
		char *idx = qa_arena_printf(&inv->arena, "%.*s.bin.index.json",
					    (int)pl, base);
		bool have = false;

		if (!idx) {
			inv->out_of_memory = true;
			return QA_E_NOMEM;
		}
		if (qa_inv_list(inv, *dir ? dir : ".", &e, &n) == QA_OK)
			for (i = 0; i < n; i++)
				if (strcmp(e[i].name, idx) == 0)
					have = true;
		qa_dirents_free(e, n);
		return load_set(inv, dir, have ? idx : NULL, base, NULL);
	}
	return load_one(inv, path, QA_FILE_MODEL, 0, 0);
}

/* ---- pickles beside the weights --------------------------------------------------- */

/* Whether path is a file directly in dir (a subfolder's pickles are not
 * "beside" the top folder's safetensors: formats/hf_tree.c). */
static bool
in_dir(const char *path, const char *dir)
{
	size_t k = strlen(dir);
	const char *rest;

	while (k > 1 && dir[k - 1] == '/')
		k--;
	if (strncmp(path, dir, k) != 0)
		return !*dir && !strchr(path, '/');
	rest = path + k;
	if (*rest == '/')
		rest++;
	else if (k && dir[k - 1] != '/')
		return false;
	return !strchr(rest, '/');
}

int
qa_pt_scan_side_pickles(struct qa_inventory *inv, const char *dir,
			const struct qa_dirent *ents, size_t n)
{
	size_t i, n_beside = 0;
	uint32_t f;
	bool have_st = false;
	const char *first_beside = NULL;

	/* transformers loads safetensors before pytorch_model*.bin
	 * (modeling_utils.py _get_resolved_checkpoint_files): when the
	 * folder's weights were safetensors, the PyTorch weights beside
	 * them are only scanned, and the report says which were audited */
	for (f = 0; f < inv->n_files; f++)
		if (inv->files[f].format &&
		    strcmp(inv->files[f].format, "safetensors") == 0 &&
		    (inv->files[f].role == QA_FILE_MODEL ||
		     inv->files[f].role == QA_FILE_SHARD) &&
		    in_dir(inv->files[f].path, dir))
			have_st = true;
	for (i = 0; i < n; i++) {
		struct qa_source src;
		uint8_t head[512];
		size_t hn;
		char *path;
		bool loaded = false;
		uint32_t fi;

		if (ents[i].kind != QA_NODE_FILE ||
		    !qa_pt_pickle_name(ents[i].name))
			continue;
		path = qa_inv_join(inv, dir, ents[i].name);
		if (!path)
			return QA_E_NOMEM;
		for (f = 0; f < inv->n_files; f++)
			if (strcmp(inv->files[f].path, path) == 0)
				loaded = true;
		if (loaded || qa_inv_open(inv, path, &src) != QA_OK)
			continue;
		hn = src.size < sizeof(head) ? (size_t)src.size : sizeof(head);
		if (qa_source_read(&src, 0, head, hn) != QA_OK ||
		    !qa_pt_probe(head, hn, src.size)) {
			qa_source_close(&src);
			continue;
		}
		if (!qa_inv_add_file(inv, path)) {
			qa_source_close(&src);
			return QA_E_NOMEM;
		}
		fi = inv->n_files - 1;
		inv->files[fi].role = QA_FILE_OTHER;
		if (have_st && qa_pt_weight_name(ents[i].name) &&
		    n_beside++ == 0)
			first_beside = inv->files[fi].path;
		/* findings only: its tensors (optimizer moments, a second
		 * copy of the weights) are not the model's */
		if (load_file(inv, fi, &src, true) == QA_E_NOMEM) {
			qa_source_close(&src);
			return QA_E_NOMEM;
		}
		qa_source_close(&src);
	}
	if (n_beside)
		qa_inv_finding(inv, QA1638, first_beside, -1, NULL,
			       "transformers loads the safetensors here (unless "
			       "use_safetensors=False); the %zu PyTorch weight "
			       "file%s beside them %s scanned for pickle threats "
			       "only", n_beside, n_beside > 1 ? "s" : "",
			       n_beside > 1 ? "are" : "is");
	return QA_OK;
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

/* ---- the format row ------------------------------------------------------------- */

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

const struct qa_format qa_format_pytorch = {
	.name = "pytorch",
	.extension = NULL,
	.kind = QA_KIND_PYTORCH,
	.probe_size = 512,
	.probe = qa_pt_probe,
	.load = qa_pt_load_file,
	.load_path = qa_pt_load_path,
};
