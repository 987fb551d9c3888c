/* SPDX-License-Identifier: MIT */
/*
 * Tensors from the object graph of a PyTorch checkpoint
 * (formats/pytorch_int.h): the rebuild calls of torch/_tensor.py and
 * torch/_utils.py (_rebuild_tensor_v2/v3, parameters, meta tensors)
 * read from the unpickled values, the storages they name (the
 * persistent id ('storage', storage_type, key, location, numel) of
 * torch/serialization.py), and the state dict's keys as tensor names.
 */
#define _POSIX_C_SOURCE 200809L
#define QA_PYTORCH_INTERNAL
#include "formats/pytorch_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/ckd.h"
#include "core/hash.h"

/* ---- dtypes --------------------------------------------------------------- */

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

const struct pt_dtype *
qa_pt_storage_type(const struct qa_pv *g)
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

/* ---- storages ---------------------------------------------------------------- */

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

/* ---- tensors from the object graph ------------------------------------------- */

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
	dt = qa_pt_storage_type(arg(pid, 1));
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
void
qa_pt_collect_tensors(struct pt_ctx *c, const struct qa_pv *root, struct coll *k)
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

void
qa_pt_coll_free(struct coll *k)
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

void
qa_pt_add_tensors(struct pt_ctx *c, const struct qa_pv *root, struct coll *k)
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
