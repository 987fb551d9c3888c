/* SPDX-License-Identifier: MIT */
/*
 * Inside the PyTorch loader, shared by its files only (formats/pytorch*.c):
 * the load context of one checkpoint, the zip directory, the tensors
 * found in the object graph, and the small readers they all use.
 *
 *   pytorch.c        the format row, file names, sharded sets, the
 *                    pickles beside safetensors weights
 *   pytorch_ckpt.c   one checkpoint: torch.save zips, legacy stacked
 *                    pickles, 0.1-era tars, the probe
 *   pytorch_graph.c  tensors from the unpickled object graph, storages
 *   pytorch_zip.c    the bounded zip reader (central directory, local
 *                    headers, CRC-32), and the torch-zip test
 *
 * Calls go down that list only (tools/check_layers.py refuses a circle).
 * Clients include formats/pytorch.h.
 */
#ifndef QA_FORMATS_PYTORCH_INT_H
#define QA_FORMATS_PYTORCH_INT_H
#ifndef QA_PYTORCH_INTERNAL
#error "pytorch_int.h is the PyTorch loader's own: include formats/pytorch.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/inventory.h"
#include "core/source.h"
#include "formats/pickle.h"
#include "formats/pytorch.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static inline bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Printable, bounded copy of a name from the file (formats/pickle.h),
 * cut at 120 bytes. */
static inline const char *
esc(char *dst, size_t cap, const char *s)
{
	return qa_pickle_esc(dst, cap, s, 120);
}

static inline uint16_t
le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t
le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- values of the object graph ---------------------------------------------- */

static inline bool
is_global(const struct qa_pv *v, const char *module, const char *name)
{
	return v && v->kind == QA_PV_GLOBAL &&
	       !(v->flags & (QA_PVF_UNRESOLVED | QA_PVF_EXTENSION)) &&
	       strcmp(v->u.g.module, module) == 0 &&
	       strcmp(v->u.g.name, name) == 0;
}

static inline bool
as_uint(const struct qa_pv *v, uint64_t *out)
{
	if (!v || (v->kind != QA_PV_INT && v->kind != QA_PV_BOOL) ||
	    v->u.i < 0)
		return false;
	*out = (uint64_t)v->u.i;
	return true;
}

static inline const char *
as_str(const struct qa_pv *v)
{
	return v && (v->kind == QA_PV_STR || v->kind == QA_PV_BYTES) &&
	       !(v->flags & QA_PVF_TRUNCATED) ? v->u.str.s : NULL;
}

static inline const struct qa_pv *
arg(const struct qa_pv *tuple, uint32_t i)
{
	return tuple && tuple->kind == QA_PV_TUPLE && i < tuple->n ?
	       tuple->u.seq.v[i] : NULL;
}

/* ---- the load context --------------------------------------------------------- */

struct pt_dtype {
	const char *torch;	/* storage class or torch dtype name */
	const char *name;	/* as quantaudit reports it (safetensors
				 * spelling where one exists) */
	uint32_t size;		/* bytes per element */
};

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

static inline void
ctx_nomem(struct pt_ctx *c)
{
	c->rc = QA_E_NOMEM;
	c->inv->out_of_memory = true;
}

/* ---- the zip directory (formats/pytorch_zip.c) --------------------------------- */

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

/*
 * Reads the end records, the central directory and every local header of
 * the zip c->src into z (findings for what torch and zipfile read
 * differently). QA_OK, or QA_E_NOMEM / QA_E_IO (also in c->rc); z is
 * freed by qa_pt_zdir_free either way.
 */
int qa_pt_zip_read(struct pt_ctx *c, struct zdir *z);
void qa_pt_zdir_free(struct zdir *z);
/* The member named exactly (or, failing that, ignoring case: torch's
 * lookup) root + rel; -1 when none. */
long qa_pt_zfind(const struct zdir *z, const char *rel, bool *by_case);
/* CRC-32 (IEEE 802.3, as zip uses it) of [off, off + len) of src into
 * *out; false on a read error. */
bool qa_pt_crc_range(struct qa_source *src, uint64_t off, uint64_t len,
		     uint32_t *out);

/* ---- tensors from the object graph (formats/pytorch_graph.c) ------------------ */

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

/* The storage class a global names (torch.FloatStorage...), or NULL. */
const struct pt_dtype *qa_pt_storage_type(const struct qa_pv *g);

/*
 * Adds the tensors found in the object graph of root to the inventory:
 * the state dict's tensors by their keys (a wrapper key such as "model"
 * or "state_dict" stripped), tensors elsewhere counted in QA1634.
 * Storages must be resolved (pt_store data/avail) by the caller first;
 * qa_pt_collect_tensors fills k, qa_pt_add_tensors adds, qa_pt_coll_free
 * frees k.
 */
void qa_pt_collect_tensors(struct pt_ctx *c, const struct qa_pv *root,
			   struct coll *k);
void qa_pt_add_tensors(struct pt_ctx *c, const struct qa_pv *root,
		       struct coll *k);
void qa_pt_coll_free(struct coll *k);

/* ---- one checkpoint (formats/pytorch_ckpt.c) ---------------------------------- */

/* Parses the checkpoint src (inv->files[file_index]) as
 * qa_pt_load_file does; security_only: scan its pickles, list no
 * tensors (a pickle beside safetensors weights). */
int qa_pt_load_checkpoint(struct qa_inventory *inv, uint32_t file_index,
			  struct qa_source *src, bool security_only);

#endif /* QA_FORMATS_PYTORCH_INT_H */
