/* SPDX-License-Identifier: MIT */
/*
 * compare (compare.h): per-tensor error of a quant against its source.
 */
#include "compare/compare.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare/diff.h"
#include "core/dtypes.h"
#include "core/roles.h"
#include "core/source.h"
#include "dequant/fp8_scaled.h"
#include "dequant/mlx_affine.h"
#include "dequant/ct_packed.h"
#include "dequant/ggml_dequant.h"
#include "integrity/content.h"

/*
 * The content fingerprint (identity): a 64-bit mix of each row's float32
 * bits (NaN spelled one way), keyed by the row's index in the source's
 * (checkpoint) order, summed over rows, then over tensors with their
 * shapes slowest dimension first. Sums make it independent of tensor
 * names, file order, sharding and container; the keyed rows make it
 * depend on every value's place. A mix for telling models apart, not a
 * cryptographic hash.
 */
static inline uint64_t
mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/*
 * A row's hash: four independent lanes over its 64-bit words (two floats
 * each, one multiply a word: the lanes keep the multiplier busy), folded
 * with mix64. A row holding a NaN is hashed with every NaN spelled
 * 0x7fc00000 (canonical), so a NaN's payload does not count.
 */
static uint64_t
row_hash(const float *v, uint64_t n, uint64_t row, bool canonical)
{
	const uint64_t k = 0x9fb21c651e98df25ULL;
	uint64_t lane[4] = { row, row ^ 1, row ^ 2, row ^ 3 };
	uint64_t i = 0, h;

	if (!canonical)
		for (; i + 8 <= n; i += 8)
			for (int l = 0; l < 4; l++) {
				uint64_t w;

				memcpy(&w, v + i + 2 * l, sizeof(w));
				lane[l] = (lane[l] ^ w) * k;
				lane[l] ^= lane[l] >> 29;
			}
	for (; i < n; i++) {
		uint32_t u;

		memcpy(&u, &v[i], sizeof(u));
		if ((u & 0x7fffffffu) > 0x7f800000u)
			u = 0x7fc00000u;
		lane[i % 4] = (lane[i % 4] ^ (u + (i << 32))) * k;
		lane[i % 4] ^= lane[i % 4] >> 29;
	}
	h = mix64(row + 0x9e3779b97f4a7c15ULL);
	for (int l = 0; l < 4; l++)
		h = mix64(h ^ lane[l]);
	return h;
}

/* The sum of squares of v: eight float lanes over runs of 256, in double across runs. */
static double
sum_squares(const float *v, uint64_t n)
{
	double total = 0.0;
	uint64_t i = 0;

	while (i + 8 <= n) {
		float lane[8] = { 0 };
		uint64_t end = n - i < 256 ? i + (n - i) / 8 * 8 : i + 256;

		for (; i < end; i += 8)
			for (int l = 0; l < 8; l++)
				lane[l] += v[i + l] * v[i + l];
		for (int l = 0; l < 8; l++)
			total += lane[l];
	}
	for (; i < n; i++)
		total += (double)v[i] * v[i];
	return total;
}

/* Whether every element of v is finite (a loop the compiler vectorizes). */
static bool
all_finite(const float *v, uint64_t n)
{
	uint32_t bad = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, &v[i], sizeof(u));
		bad |= (u & 0x7f800000u) == 0x7f800000u;
	}
	return !bad;
}

static uint64_t
shape_hash(const struct qa_tensor *t, bool gguf)
{
	uint64_t h = mix64(t->n_dims + 1);
	uint32_t i;

	for (i = 0; i < t->n_dims; i++)
		h = mix64(h ^ t->shape[gguf ? t->n_dims - 1 - i : i]);
	return h;
}

/* Elements of one row range: 1 Mi floats (4 MiB) a side per thread. */
#define CHUNK_ELEMENTS ((uint64_t)1 << 20)

const char *
qa_cmp_state_name(enum qa_cmp_state s)
{
	static const char *const names[] = {
		"compared", "unpaired", "no-dequantizer", "shape", "read-error",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* The ggml type id a tensor's bytes dequantize as, or -1. */
static int
type_of(const struct qa_inventory *inv, const struct qa_tensor *t)
{
	if (t->ggml_type >= 0)
		return inv->files[t->file].big_endian ? -1 : t->ggml_type;
	if (!t->dtype)
		return -1;
	/* safetensors plain floats (little-endian, as the format says) */
	if (strcmp(t->dtype, "F32") == 0)
		return 0;
	if (strcmp(t->dtype, "F16") == 0)
		return 1;
	if (strcmp(t->dtype, "BF16") == 0)
		return 30;
	return -1;
}

/* Same dims, or the same reversed (GGUF fastest first, safetensors slowest first). */
static bool
shapes_reconcile(const struct qa_tensor *a, const struct qa_tensor *b,
		 bool flip)
{
	uint32_t i;

	if (a->elements != b->elements)
		return false;
	if (a->n_dims != b->n_dims)
		return false;
	for (i = 0; i < a->n_dims; i++)
		if (a->shape[i] != b->shape[flip ? b->n_dims - 1 - i : i])
			return false;
	return true;
}

struct job {
	const struct qa_inventory *q, *s;
	struct qa_cmp_tensor *t;
	uint32_t n;
	atomic_uint next;
	atomic_uint_fast64_t bytes_read;
	bool flip;
	bool llama_qk;		/* one side a llama-family GGUF, the other not */
	bool gguf_is_source;	/* that GGUF is the source */
	int64_t n_head, n_head_kv;
	/* the quant's tensors sorted by name: FP8 weights find their
	 * scale tensors here */
	const struct qa_tensor **by_name;
	uint32_t n_by_name;
};

struct side {
	struct qa_source *src;	/* per file, opened on first use */
	bool *opened, *failed;
	uint32_t n;
};

static bool
side_init(struct side *sd, const struct qa_inventory *inv)
{
	uint32_t n = inv->n_files ? inv->n_files : 1;

	sd->n = inv->n_files;
	sd->src = calloc(n, sizeof(*sd->src));
	sd->opened = calloc(n, sizeof(*sd->opened));
	sd->failed = calloc(n, sizeof(*sd->failed));
	return sd->src && sd->opened && sd->failed;
}

static void
side_release(struct side *sd)
{
	uint32_t i;

	for (i = 0; sd->opened && i < sd->n; i++)
		if (sd->opened[i])
			qa_source_close(&sd->src[i]);
	free(sd->src);
	free(sd->opened);
	free(sd->failed);
}

static bool
side_read(struct side *sd, const struct qa_inventory *inv, uint32_t file,
	  uint64_t off, void *buf, size_t n)
{
	const struct qa_fs *fs = qa_content_fs(inv);

	if (file >= sd->n || sd->failed[file])
		return false;
	if (!sd->opened[file]) {
		if (fs->open(fs, inv->files[file].path, &sd->src[file]) !=
		    QA_OK) {
			sd->failed[file] = true;
			return false;
		}
		sd->opened[file] = true;
	}
	return qa_source_read(&sd->src[file], off, buf, n) == QA_OK;
}

/*
 * llama.cpp's converter (convert_hf_to_gguf.py, LlamaModel.permute)
 * stores the rows of attn_q / attn_k of each head as
 * reshape(n_head, 2, half, ...).swapaxes(1, 2): GGUF row g of head h,
 * g = h * 2 half + 2 i + j, is checkpoint row h * 2 half + j half + i.
 */
static uint64_t
unpermute_row(uint64_t g, uint64_t head_rows)
{
	uint64_t half = head_rows / 2, h = g / head_rows, r = g % head_rows;

	return h * head_rows + (r % 2) * half + r / 2;
}

struct bufs {
	uint8_t *qraw, *sraw;
	float *qf, *sf;
	size_t raw_cap_q, raw_cap_s, f_cap_q, f_cap_s;
};

static bool
grow(void **p, size_t *cap, size_t want)
{
	void *n;

	if (want <= *cap)
		return true;
	n = realloc(*p, want);
	if (!n)
		return false;
	*p = n;
	*cap = want;
	return true;
}

/*
 * One block's sums into ct; returns its squared error. at: the flat
 * index of its first element. The fast path has no NaN or infinity to
 * skip: four lanes of sums (order-insensitive to ~1e-15 relative), and
 * the largest error found per block, its place looked up only when it
 * is a new maximum.
 */
static double
block_fast(struct qa_cmp_tensor *ct, const float *x, const float *y,
	   uint64_t n, double lim, uint64_t at)
{
	/* Eight float lanes the compiler keeps in vector registers; a
	 * block's at most 256 elements make 32 terms a lane, whose float
	 * sums are exact to ~2e-6 relative before they join the double
	 * totals. */
	float sse[8] = { 0 }, sss[8] = { 0 }, sqq[8] = { 0 }, dot[8] = { 0 };
	float mx[8] = { 0 }, flim = (float)lim;
	uint32_t out[8] = { 0 };
	double bsse = 0, bsss = 0, bsqq = 0, bdot = 0, bmax = 0;
	uint64_t i = 0, o = 0;

	for (; i + 8 <= n; i += 8)
		for (int l = 0; l < 8; l++) {
			float a = x[i + l], b = y[i + l], e = a - b;
			float ae = fabsf(e);

			sse[l] += e * e;
			sss[l] += b * b;
			sqq[l] += a * a;
			dot[l] += a * b;
			mx[l] = ae > mx[l] ? ae : mx[l];
			out[l] += ae > flim;
		}
	for (int l = 0; l < 8; l++) {
		bsse += sse[l];
		bsss += sss[l];
		bsqq += sqq[l];
		bdot += dot[l];
		bmax = mx[l] > bmax ? mx[l] : bmax;
		o += out[l];
	}
	for (; i < n; i++) {
		double a = x[i], b = y[i], e = a - b, ae = fabs(e);

		bsse += e * e;
		bsss += b * b;
		bsqq += a * a;
		bdot += a * b;
		bmax = ae > bmax ? ae : bmax;
		o += ae > lim;
	}
	if (bmax > ct->max_abs) {
		/* the exact largest error and its place, in double */
		double best = -1.0;

		for (i = 0; i < n; i++) {
			double ae = fabs((double)x[i] - (double)y[i]);

			if (ae > best) {
				best = ae;
				ct->max_at = at + i;
			}
		}
		ct->max_abs = best;
	}
	ct->sss += bsss;
	ct->sqq += bsqq;
	ct->dot += bdot;
	ct->n += n;
	ct->outliers += o;
	return bsse;
}

/* The same, leaving out (and counting) the elements NaN or infinite on a side. */
static double
block_slow(struct qa_cmp_tensor *ct, const float *x, const float *y,
	   uint64_t n, double lim, uint64_t at)
{
	double bsse = 0.0;

	for (uint64_t i = 0; i < n; i++) {
		double a = x[i], b = y[i], e, ae;

		if (!isfinite(a) || !isfinite(b)) {
			ct->nonfinite++;
			continue;
		}
		e = a - b;
		ae = fabs(e);
		bsse += e * e;
		ct->sss += b * b;
		ct->sqq += a * a;
		ct->dot += a * b;
		ct->n++;
		if (ae > ct->max_abs) {
			ct->max_abs = ae;
			ct->max_at = at + i;
		}
		if (ae > lim)
			ct->outliers++;
	}
	return bsse;
}

static int
cmp_tensor_name(const void *x, const void *y)
{
	const struct qa_tensor *a = *(const struct qa_tensor *const *)x;
	const struct qa_tensor *b = *(const struct qa_tensor *const *)y;

	return strcmp(a->name, b->name);
}

/* The quant's tensor called name + suffix, or NULL. */
static const struct qa_tensor *
sibling(const struct job *jb, const char *name, const char *suffix)
{
	struct qa_tensor key;
	const struct qa_tensor *kp = &key, *const *hit;
	char buf[1024];
	size_t nl = strlen(name), sl = strlen(suffix);

	if (!jb->by_name || nl + sl >= sizeof(buf))
		return NULL;
	memcpy(buf, name, nl);
	memcpy(buf + nl, suffix, sl + 1);
	key.name = buf;
	hit = bsearch(&kp, jb->by_name, jb->n_by_name, sizeof(*jb->by_name),
		      cmp_tensor_name);
	return hit ? *hit : NULL;
}

/* Most scale elements read for one weight (a 128x128 FP8 grid of a
 * 1M x 1M weight is 64M; an MLX g32 152k-token embedding of 8192 columns
 * is 39M; no checkpoint has one near the first). */
#define SCALE_MAX ((uint64_t)1 << 26)

/* A safetensors quant's weight read with the side tensors beside it. */
struct qplan {
	enum { QP_FP8, QP_MLX, QP_CT } kind;
	struct qa_fp8_grid grid;	/* FP8 */
	bool e5m2;
	float *scales;		/* FP8: the grid; MLX: rows x cols / group */
	float *biases;		/* MLX */
	int32_t *zero;		/* compressed-tensors asymmetric, or NULL */
	unsigned bits;		/* MLX, compressed-tensors */
	uint64_t group;		/* MLX, compressed-tensors */
	/* MLX, compressed-tensors: the weight as its logical rows x cols
	 * (the stored tensor is rows x cols x bits / 32 words) */
	struct qa_tensor logical;
};

/* A side tensor of F32, F16 or BF16, n elements, read whole into a
 * malloc'd float array; NULL when it cannot be. */
static float *
read_floats(struct job *jb, struct side *sq, const struct qa_tensor *t)
{
	int st = type_of(jb->q, t);
	uint8_t *raw;
	float *out;
	bool ok;

	if ((st != 0 && st != 1 && st != 30) || t->elements > SCALE_MAX ||
	    t->bytes != t->elements * (st == 0 ? 4 : 2))
		return NULL;
	raw = malloc((size_t)t->bytes + 1);
	out = malloc((size_t)t->elements * sizeof(float) + 1);
	ok = raw && out &&
	     side_read(sq, jb->q, t->file, t->offset, raw, (size_t)t->bytes);
	if (ok)
		qa_dequant_rows(st, raw, t->elements, 1, out);
	free(raw);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

/* The tensor named as name less strip plus add ("x.weight" less
 * ".weight" plus ".scales"); NULL when name does not end with strip. */
static const struct qa_tensor *
renamed_sibling(const struct job *jb, const char *name, const char *strip,
		const char *add)
{
	size_t nl = strlen(name), sl = strlen(strip);
	char buf[1024];

	if (nl < sl || strcmp(name + nl - sl, strip) != 0 ||
	    nl >= sizeof(buf))
		return NULL;
	memcpy(buf, name, nl - sl);
	buf[nl - sl] = '\0';
	return sibling(jb, buf, add);
}

/* The module the analysis made of a quant's tensor, or NULL. */
static const struct qa_module *
module_of(const struct job *jb, const struct qa_tensor *q)
{
	return q->module >= 0 && (uint32_t)q->module < jb->q->n_modules ?
	       &jb->q->modules[q->module] : NULL;
}

/*
 * The layout of a weight packed as words of 32-bit codes (MLX,
 * compressed-tensors) whose scale tensor sc has a row per weight row:
 * rows from the stored weight, cols from the source's (last in
 * safetensors, first in a GGUF), bits = words x 32 / cols, group = cols /
 * the scale's columns, and the weight as its logical rows x cols in
 * p->logical. Where the config declares bits or a group size for the
 * module, they must agree. False, with ct->why (and the state for a
 * shape mismatch), otherwise.
 */
static bool
packed_layout(const struct job *jb, struct qa_cmp_tensor *ct,
	      const struct qa_tensor *sc, struct qplan *p)
{
	const struct qa_tensor *q = ct->q, *s = ct->s;
	const struct qa_module *m = module_of(jb, q);
	bool gguf = jb->s->kind == QA_KIND_GGUF;
	uint64_t rows = q->shape[0], words = q->shape[1], cols, groups;

	cols = gguf ? s->shape[0] : s->shape[1];
	groups = sc->shape[1];
	if ((gguf ? s->shape[1] : s->shape[0]) != rows || cols == 0 ||
	    cols % 32 != 0 || sc->shape[0] != rows || groups == 0 ||
	    cols % groups != 0 || words > UINT64_MAX / 32 ||
	    words * 32 % cols != 0) {
		ct->why = "the shapes do not reconcile";
		ct->state = QA_CMP_SHAPE;
		return false;
	}
	p->bits = (unsigned)(words * 32 / cols);
	p->group = cols / groups;
	if (m && ((m->decl_bits > 0 && (unsigned)m->decl_bits != p->bits) ||
		  (m->decl_group > 0 &&
		   (uint64_t)m->decl_group != p->group))) {
		ct->why = "the config's bits or group size disagree with the "
			  "shapes of the weight and its scales";
		return false;
	}
	p->logical = *q;
	p->logical.shape[1] = cols;
	p->logical.elements = rows * cols;
	return true;
}

/*
 * An MLX affine weight (mlx_affine.h): x.weight U32 beside x.scales and
 * x.biases. Its bits and group size follow from the shapes, given the
 * source's columns: words x 32 / cols and cols / scale columns; where
 * the config names them for the module (quantization, or the module's
 * own entry), they must agree. False, with ct->why, when it cannot be
 * dequantized.
 */
static bool
mlx_plan(struct job *jb, struct qa_cmp_tensor *ct, struct side *sq,
	 struct qplan *p)
{
	const struct qa_tensor *q = ct->q, *s = ct->s, *sc, *bi;
	const struct qa_module *m = module_of(jb, q);

	sc = renamed_sibling(jb, q->name, ".weight", ".scales");
	bi = renamed_sibling(jb, q->name, ".weight", ".biases");
	if (!sc) {
		ct->why = "a packed U32 weight without a .scales tensor beside "
			  "it";
		return false;
	}
	if (!bi) {
		ct->why = "a packed U32 weight with .scales but no .biases: "
			  "not MLX affine (MLX's mxfp4, nvfp4 and mxfp8 modes "
			  "are not dequantized)";
		return false;
	}
	if (m && m->decl_mode && strcmp(m->decl_mode, "affine") != 0) {
		ct->why = "an MLX mode other than affine (not dequantized)";
		return false;
	}
	if (q->n_dims != 2 || sc->n_dims != 2 || bi->n_dims != 2 ||
	    s->n_dims != 2 || sc->shape[0] != bi->shape[0] ||
	    sc->shape[1] != bi->shape[1]) {
		ct->why = "an MLX weight, scales or biases not 2-D and alike";
		return false;
	}
	if (!packed_layout(jb, ct, sc, p))
		return false;
	if (!qa_mlx_affine_ok(p->bits, p->group, p->logical.shape[1])) {
		ct->why = "bits or group size that MLX's affine mode does not "
			  "write";
		return false;
	}
	p->kind = QP_MLX;
	p->scales = read_floats(jb, sq, sc);
	p->biases = read_floats(jb, sq, bi);
	if (!p->scales || !p->biases) {
		free(p->scales);
		free(p->biases);
		p->scales = p->biases = NULL;
		ct->why = "its scales or biases could not be read (F32, F16 or "
			  "BF16 of their shape)";
		return false;
	}
	return true;
}

/*
 * An FP8 weight of a safetensors quant (fp8_scaled.h): its scale tensor
 * found and read whole into *scales (malloc'd), its grid in g. False,
 * with ct->why, when it cannot be dequantized.
 */
static bool
fp8_plan(struct job *jb, struct qa_cmp_tensor *ct, struct side *sq,
	 struct qa_fp8_grid *g, float **scales)
{
	const struct qa_tensor *q = ct->q, *sc;
	int st;
	uint8_t *raw;
	bool ok;

	*scales = NULL;
	sc = sibling(jb, q->name, "_scale");
	if (!sc)
		sc = sibling(jb, q->name, "_scale_inv");
	if (!sc) {
		ct->why = "an FP8 weight without a scale tensor beside it";
		return false;
	}
	st = type_of(jb->q, sc);
	if (q->n_dims != 2 || (st != 0 && st != 1 && st != 30)) {
		ct->why = "an FP8 weight not 2-D, or its scale not F32, F16 or "
			  "BF16";
		return false;
	}
	if (!qa_fp8_grid_of(q->shape[0], q->shape[1], sc->shape, sc->n_dims,
			    g, &ct->why))
		return false;
	if (sc->elements != g->grid_rows * g->grid_cols ||
	    sc->elements > SCALE_MAX ||
	    sc->bytes != sc->elements * (st == 0 ? 4 : 2)) {
		ct->why = "its scale tensor's bytes do not match its shape";
		return false;
	}
	raw = malloc((size_t)sc->bytes);
	*scales = malloc((size_t)sc->elements * sizeof(float));
	ok = raw && *scales &&
	     side_read(sq, jb->q, sc->file, sc->offset, raw, (size_t)sc->bytes);
	if (ok)
		qa_dequant_rows(st, raw, sc->elements, 1, *scales);
	free(raw);
	if (!ok) {
		free(*scales);
		*scales = NULL;
		ct->why = "its scale tensor could not be read";
	}
	return ok;
}

/*
 * A compressed-tensors pack-quantized weight (ct_packed.h):
 * x.weight_packed beside x.weight_scale and, when asymmetric,
 * x.weight_zero_point. The bits follow from the shapes given the
 * source's columns (words x 32 / cols), the group from the scale's
 * columns; the config's declaration for the module must agree.
 */
static bool
ct_plan(struct job *jb, struct qa_cmp_tensor *ct, struct side *sq,
	struct qplan *p)
{
	const struct qa_tensor *q = ct->q, *s = ct->s, *sc, *zp;
	uint64_t rows = q->shape[0], groups, zwords;
	uint8_t *zraw;
	bool ok;

	sc = renamed_sibling(jb, q->name, ".weight_packed", ".weight_scale");
	zp = renamed_sibling(jb, q->name, ".weight_packed",
			     ".weight_zero_point");
	if (!sc) {
		ct->why = "a packed weight without its weight_scale";
		return false;
	}
	/* actorder "group": column j is in group g_idx[j], not j / G */
	if (renamed_sibling(jb, q->name, ".weight_packed", ".weight_g_idx")) {
		ct->why = "activation-ordered groups (weight_g_idx) are not "
			  "dequantized yet";
		return false;
	}
	if (q->n_dims != 2 || s->n_dims != 2 || sc->n_dims != 2) {
		ct->why = "a packed weight or its scale not 2-D (a per-tensor "
			  "scale, or experts stacked in 3-D: not compared yet)";
		return false;
	}
	if (!packed_layout(jb, ct, sc, p))
		return false;
	if (!qa_ct_packed_ok(p->bits)) {
		ct->why = "a packed width other than 2, 4 or 8 bits, whose "
			  "layout changed between compressed-tensors releases";
		return false;
	}
	groups = sc->shape[1];
	p->kind = QP_CT;
	p->scales = read_floats(jb, sq, sc);
	if (!p->scales) {
		ct->why = "its scale could not be read (F32, F16 or BF16 of "
			  "its shape)";
		return false;
	}
	if (zp) {
		/* packed down the rows: column g of [rows x bits / 32,
		 * groups] words holds group g's zero points */
		zwords = (rows * p->bits + 31) / 32;
		if (!zp->dtype || strcmp(zp->dtype, "I32") != 0 ||
		    zp->n_dims != 2 || zp->shape[0] != zwords ||
		    zp->shape[1] != groups || zp->bytes != zwords * groups * 4 ||
		    rows * groups > SCALE_MAX) {
			free(p->scales);
			p->scales = NULL;
			ct->why = "its weight_zero_point is not I32 packed down "
				  "the rows";
			return false;
		}
		zraw = malloc((size_t)zp->bytes);
		p->zero = malloc((size_t)(rows * groups) * sizeof(int32_t));
		ok = zraw && p->zero &&
		     side_read(sq, jb->q, zp->file, zp->offset, zraw,
			       (size_t)zp->bytes);
		for (uint64_t r = 0; ok && r < rows; r++)
			for (uint64_t g = 0; g < groups; g++)
				p->zero[r * groups + g] = (int32_t)
					qa_ct_code_at(zraw + g * 4, groups,
						      p->bits, r) -
					(1 << (p->bits - 1));
		free(zraw);
		if (!ok) {
			free(p->scales);
			free(p->zero);
			p->scales = NULL;
			p->zero = NULL;
			ct->why = "its weight_zero_point could not be read";
			return false;
		}
	}
	return true;
}

static void compare_rows(struct job *jb, struct qa_cmp_tensor *ct,
			 struct side *sq, struct side *ss, struct bufs *b,
			 int tq, int ts, const struct qplan *plan);

static void
compare_one(struct job *jb, struct qa_cmp_tensor *ct, struct side *sq,
	    struct side *ss, struct bufs *b)
{
	const struct qa_tensor *q = ct->q, *s = ct->s;
	int tq = type_of(jb->q, q), ts = type_of(jb->s, s);
	int fp8 = q->ggml_type < 0 ? qa_fp8_kind(q->dtype) : -1;
	struct qplan plan;

	memset(&plan, 0, sizeof(plan));
	if (fp8 >= 0 && ts >= 0 && qa_dequant_supported(ts)) {
		/* FP8 with its scale: read as F8 bytes, one per element
		 * (the row arithmetic of a one-byte type, block 1) */
		if (!fp8_plan(jb, ct, sq, &plan.grid, &plan.scales)) {
			ct->state = QA_CMP_NO_DEQUANT;
			return;
		}
		plan.kind = QP_FP8;
		plan.e5m2 = fp8 == 1;
		compare_rows(jb, ct, sq, ss, b, -1, ts, &plan);
		free(plan.scales);
		return;
	}
	if (q->ggml_type < 0 && q->dtype && strcmp(q->dtype, "U32") == 0 &&
	    ts >= 0 && qa_dequant_supported(ts)) {
		ct->state = QA_CMP_NO_DEQUANT;
		if (!mlx_plan(jb, ct, sq, &plan))
			return;
		compare_rows(jb, ct, sq, ss, b, -1, ts, &plan);
		free(plan.scales);
		free(plan.biases);
		return;
	}
	if (q->ggml_type < 0 && q->dtype && strcmp(q->dtype, "I32") == 0 &&
	    ts >= 0 && qa_dequant_supported(ts) &&
	    renamed_sibling(jb, q->name, ".weight_packed", ".weight_scale")) {
		ct->state = QA_CMP_NO_DEQUANT;
		if (!ct_plan(jb, ct, sq, &plan))
			return;
		compare_rows(jb, ct, sq, ss, b, -1, ts, &plan);
		free(plan.scales);
		free(plan.zero);
		return;
	}
	if (tq < 0 || ts < 0 || !qa_dequant_supported(tq) ||
	    !qa_dequant_supported(ts)) {
		ct->state = QA_CMP_NO_DEQUANT;
		ct->why = tq < 0 || !qa_dequant_supported(tq) ?
			  "the quant's type has no dequantizer" :
			  "the source's type has no dequantizer";
		return;
	}
	compare_rows(jb, ct, sq, ss, b, tq, ts, NULL);
}

/*
 * The comparison of ct's rows: tq and ts are the ggml types of the two
 * sides; tq -1 with a plan: the quant is FP8 with its scales, or MLX
 * affine with its scales and biases.
 */
static void
compare_rows(struct job *jb, struct qa_cmp_tensor *ct, struct side *sq,
	     struct side *ss, struct bufs *b, int tq, int ts,
	     const struct qplan *plan)
{
	const struct qa_tensor *q = plan && plan->kind != QP_FP8 ?
				    &plan->logical : ct->q, *s = ct->s;
	const struct qa_fp8_grid *grid = plan && plan->kind == QP_FP8 ?
					 &plan->grid : NULL;
	static const struct qa_ggml_type fp8_type = { .block = 1,
						      .block_bytes = 1 };
	/* MLX, compressed-tensors: 32 codes of b bits fill b words */
	struct qa_ggml_type mlx_type = { .block = 32,
					 .block_bytes = plan ? plan->bits * 4 :
							0 };
	const struct qa_ggml_type *gq, *gs;
	uint64_t ne0, rows, chunk_rows, head_rows = 0, r0;
	uint64_t qrow_bytes, srow_bytes, qblock;
	double worst_block_sse = -1.0;

	gq = grid ? &fp8_type : plan ? &mlx_type : qa_ggml_type(tq);
	gs = qa_ggml_type(ts);
	if (!shapes_reconcile(q, s, jb->flip && (jb->q->kind == QA_KIND_GGUF)
			      != (jb->s->kind == QA_KIND_GGUF)) ||
	    q->n_dims == 0 || q->elements == 0) {
		ct->state = QA_CMP_SHAPE;
		ct->why = "the shapes do not reconcile";
		return;
	}
	/* the fastest dimension: first in a GGUF, last elsewhere */
	ne0 = jb->q->kind == QA_KIND_GGUF ? q->shape[0] :
	      q->shape[q->n_dims - 1];
	if (ne0 % gq->block || ne0 % gs->block) {
		ct->state = QA_CMP_SHAPE;
		ct->why = "rows are not whole blocks";
		return;
	}
	rows = q->elements / ne0;
	qrow_bytes = ne0 / gq->block * gq->block_bytes;
	srow_bytes = ne0 / gs->block * gs->block_bytes;
	if (qrow_bytes * rows != q->bytes || srow_bytes * rows != s->bytes) {
		ct->state = QA_CMP_SHAPE;
		ct->why = "stored bytes do not match the shape";
		return;
	}
	if (jb->llama_qk && (q->role == QA_ROLE_ATTN_Q ||
			     q->role == QA_ROLE_ATTN_K) && q->n_dims == 2) {
		int64_t heads = q->role == QA_ROLE_ATTN_Q ? jb->n_head :
				jb->n_head_kv;

		if (heads > 0 && rows % (uint64_t)heads == 0 &&
		    (rows / (uint64_t)heads) % 2 == 0) {
			head_rows = rows / (uint64_t)heads;
			ct->permuted = true;
		}
	}
	chunk_rows = CHUNK_ELEMENTS / ne0;
	if (chunk_rows == 0)
		chunk_rows = 1;
	if (head_rows) {
		chunk_rows -= chunk_rows % head_rows;
		if (chunk_rows == 0)
			chunk_rows = head_rows;
	}
	qblock = gq->block;
	if (grid)	/* a worst "block" is one scale's span of a row */
		qblock = ne0 % grid->block_cols == 0 ? grid->block_cols : ne0;
	else if (plan)	/* MLX, compressed-tensors: one group */
		qblock = plan->group;
	for (r0 = 0; r0 < rows; r0 += chunk_rows) {
		uint64_t nr = rows - r0 < chunk_rows ? rows - r0 : chunk_rows;
		size_t nf = (size_t)(nr * ne0);

		if (!grow((void **)&b->qraw, &b->raw_cap_q, nr * qrow_bytes) ||
		    !grow((void **)&b->sraw, &b->raw_cap_s, nr * srow_bytes) ||
		    !grow((void **)&b->qf, &b->f_cap_q, nf * sizeof(float)) ||
		    !grow((void **)&b->sf, &b->f_cap_s, nf * sizeof(float))) {
			ct->state = QA_CMP_READ_ERROR;
			ct->why = "out of memory";
			return;
		}
		if (!side_read(sq, jb->q, q->file, q->offset + r0 * qrow_bytes,
			       b->qraw, nr * qrow_bytes) ||
		    !side_read(ss, jb->s, s->file, s->offset + r0 * srow_bytes,
			       b->sraw, nr * srow_bytes)) {
			ct->state = QA_CMP_READ_ERROR;
			ct->why = "a read failed or fell short";
			return;
		}
		atomic_fetch_add(&jb->bytes_read,
				 nr * qrow_bytes + nr * srow_bytes);
		if (plan && plan->kind == QP_CT)
			qa_ct_packed_rows(plan->bits, plan->group, ne0,
					  b->qraw, r0, nr, plan->scales,
					  plan->zero, b->qf);
		else if (plan && plan->kind == QP_MLX)
			qa_mlx_affine_rows(plan->bits, plan->group, ne0,
					   b->qraw, r0, nr, plan->scales,
					   plan->biases, b->qf);
		else if (grid)
			qa_fp8_scaled_rows(grid, plan->e5m2, b->qraw, r0, nr,
					   plan->scales,
					   b->qf);
		else
			qa_dequant_rows(tq, b->qraw, ne0, nr, b->qf);
		qa_dequant_rows(ts, b->sraw, ne0, nr, b->sf);
		for (uint64_t r = 0; r < nr; r++) {
			/* checkpoint order: the other side's row of GGUF row r */
			uint64_t canon = head_rows ?
				unpermute_row(r0 + r, head_rows) - r0 : r;
			uint64_t qr = jb->gguf_is_source ? canon : r;
			uint64_t sr = jb->gguf_is_source ? r : canon;
			uint64_t g = r0 + qr;
			const float *qv = b->qf + qr * ne0;
			const float *sv = b->sf + sr * ne0;
			double row_sss = 0.0, row_lim;

			bool finite = all_finite(qv, ne0) && all_finite(sv, ne0);

			ct->content_q += row_hash(qv, ne0, r0 + canon, !finite);
			ct->content_s += row_hash(sv, ne0, r0 + canon, !finite);
			if (finite)
				row_sss = sum_squares(sv, ne0);
			else
				for (uint64_t i = 0; i < ne0; i++)
					if (isfinite(sv[i]))
						row_sss += (double)sv[i] * sv[i];
			row_lim = sqrt(row_sss / (double)ne0);
			for (uint64_t i0 = 0; i0 < ne0; i0 += qblock) {
				double bsse = finite ?
					block_fast(ct, qv + i0, sv + i0, qblock,
						   row_lim, g * ne0 + i0) :
					block_slow(ct, qv + i0, sv + i0, qblock,
						   row_lim, g * ne0 + i0);

				ct->sse += bsse;
				if (bsse > worst_block_sse) {
					worst_block_sse = bsse;
					ct->worst_block = (g * ne0 + i0) / qblock;
				}
			}
		}
	}
	ct->state = QA_CMP_COMPARED;
	ct->content_q = mix64(ct->content_q ^
			      shape_hash(s, jb->s->kind == QA_KIND_GGUF));
	ct->content_s = mix64(ct->content_s ^
			      shape_hash(s, jb->s->kind == QA_KIND_GGUF));
	ct->rms_err = ct->n ? sqrt(ct->sse / (double)ct->n) : 0.0;
	ct->rel_rms = ct->sss > 0 ? sqrt(ct->sse / ct->sss) :
		      ct->sse > 0 ? INFINITY : 0.0;
	ct->cosine = ct->sss > 0 && ct->sqq > 0 ?
		     ct->dot / sqrt(ct->sss * ct->sqq) :
		     ct->sss == ct->sqq ? 1.0 : 0.0;
	ct->outlier_share = ct->n ? (double)ct->outliers / (double)ct->n : 0;
	ct->worst_block_ratio = ct->sse > 0 && ct->n >= qblock ?
		sqrt(worst_block_sse / (double)qblock) / ct->rms_err : 0.0;
}

static void *
worker(void *arg)
{
	struct job *jb = arg;
	struct side sq, ss;
	struct bufs b;
	unsigned i;

	memset(&b, 0, sizeof(b));
	memset(&sq, 0, sizeof(sq));
	memset(&ss, 0, sizeof(ss));
	if (side_init(&sq, jb->q) && side_init(&ss, jb->s)) {
		while ((i = atomic_fetch_add(&jb->next, 1)) < jb->n) {
			struct qa_cmp_tensor *ct = &jb->t[i];

			if (ct->s)
				compare_one(jb, ct, &sq, &ss, &b);
		}
	}
	side_release(&sq);
	side_release(&ss);
	free(b.qraw);
	free(b.sraw);
	free(b.qf);
	free(b.sf);
	return NULL;
}

/* A compared tensor's error under its stored type, for the medians. */
struct type_err {
	const char *dtype;
	double rel_rms;
};

static int
cmp_type_err(const void *x, const void *y)
{
	const struct type_err *a = x, *b = y;
	int k = strcmp(a->dtype, b->dtype);

	if (k)
		return k;
	return (a->rel_rms > b->rel_rms) - (a->rel_rms < b->rel_rms);
}

/* One stored type's median error over its n compared tensors. */
struct type_median {
	const char *dtype;
	size_t n;
	double median;
};

static int
cmp_type_median_key(const void *key, const void *m)
{
	return strcmp(key, ((const struct type_median *)m)->dtype);
}

/* Flags the tensors out of line with the others of their type. The
 * median of each type is computed once (one sort of every tensor's
 * error by type), not once per tensor: a 100k-tensor MoE compare would
 * otherwise sort 100k values 100k times. */
static int
flag_outliers(struct qa_compare *c, const struct qa_compare_options *opt)
{
	double factor = opt && opt->flag_factor > 0 ? opt->flag_factor : 4.0;
	double bfactor = opt && opt->block_factor > 0 ? opt->block_factor :
			 32.0;
	struct type_err *e = malloc((c->n_tensors + 1) * sizeof(*e));
	struct type_median *med = malloc((c->n_tensors + 1) * sizeof(*med));
	size_t n = 0, n_med = 0, k, j;
	uint32_t i;

	if (!e || !med) {
		free(e);
		free(med);
		return QA_E_NOMEM;
	}
	for (i = 0; i < c->n_tensors; i++) {
		const struct qa_cmp_tensor *u = &c->tensors[i];

		if (u->state == QA_CMP_COMPARED && u->sss > 0) {
			e[n].dtype = u->q->dtype;
			e[n].rel_rms = u->rel_rms;
			n++;
		}
	}
	qsort(e, n, sizeof(*e), cmp_type_err);
	for (k = 0; k < n; k = j) {
		size_t m;

		for (j = k + 1; j < n && strcmp(e[j].dtype, e[k].dtype) == 0;
		     j++)
			;
		m = j - k;
		med[n_med].dtype = e[k].dtype;
		med[n_med].n = m;
		med[n_med].median = m % 2 ? e[k + m / 2].rel_rms :
				    (e[k + m / 2 - 1].rel_rms +
				     e[k + m / 2].rel_rms) / 2;
		n_med++;
	}
	for (i = 0; i < c->n_tensors; i++) {
		struct qa_cmp_tensor *t = &c->tensors[i];
		const struct type_median *tm;

		if (t->state != QA_CMP_COMPARED)
			continue;
		if (t->nonfinite) {
			t->flagged = true;
			t->flag_why = "NaN or infinite values";
			continue;
		}
		if (t->worst_block_ratio > bfactor) {
			t->flagged = true;
			t->flag_why = "one block far worse than the rest of "
				      "the tensor";
			continue;
		}
		tm = n_med ? bsearch(t->q->dtype, med, n_med, sizeof(*med),
				     cmp_type_median_key) : NULL;
		if (!tm || tm->n < 3)
			continue;
		if (t->rel_rms > factor * tm->median && t->rel_rms > 1e-6) {
			t->flagged = true;
			t->flag_why = "error several times that of the other "
				      "tensors of its type";
		}
	}
	free(e);
	free(med);
	return QA_OK;
}

static struct qa_cmp_total *
total_for(struct qa_cmp_total **list, uint32_t *n, const char *name,
	  int32_t layer)
{
	struct qa_cmp_total *grown;
	uint32_t i;

	for (i = 0; i < *n; i++)
		if ((*list)[i].layer == layer &&
		    (layer >= 0 || strcmp((*list)[i].name, name) == 0))
			return &(*list)[i];
	grown = realloc(*list, (*n + 1) * sizeof(**list));
	if (!grown)
		return NULL;
	*list = grown;
	memset(&grown[*n], 0, sizeof(grown[*n]));
	grown[*n].name = name;
	grown[*n].layer = layer;
	return &grown[(*n)++];
}

static int
add_total(struct qa_cmp_total *t, const struct qa_cmp_tensor *ct)
{
	if (!t)
		return QA_E_NOMEM;
	t->tensors++;
	t->sse += ct->sse;
	t->sss += ct->sss;
	if (ct->rel_rms > t->max_rel_rms)
		t->max_rel_rms = ct->rel_rms;
	return QA_OK;
}

static int
cmp_layer(const void *x, const void *y)
{
	const struct qa_cmp_total *a = x, *b = y;

	return (a->layer > b->layer) - (a->layer < b->layer);
}

static int
totals(struct qa_compare *c)
{
	double sse = 0, sss = 0;
	uint32_t i;

	for (i = 0; i < c->n_tensors; i++) {
		const struct qa_cmp_tensor *ct = &c->tensors[i];

		if (ct->state != QA_CMP_COMPARED)
			continue;
		sse += ct->sse;
		sss += ct->sss;
		if (add_total(total_for(&c->roles, &c->n_roles,
					qa_role_name(ct->q->role), -1), ct) ||
		    (ct->q->layer >= 0 &&
		     add_total(total_for(&c->layers, &c->n_layers, "layer",
					 ct->q->layer), ct)))
			return QA_E_NOMEM;
	}
	for (i = 0; i < c->n_roles; i++)
		c->roles[i].rel_rms = c->roles[i].sss > 0 ?
			sqrt(c->roles[i].sse / c->roles[i].sss) : 0;
	for (i = 0; i < c->n_layers; i++)
		c->layers[i].rel_rms = c->layers[i].sss > 0 ?
			sqrt(c->layers[i].sse / c->layers[i].sss) : 0;
	if (c->n_layers)
		qsort(c->layers, c->n_layers, sizeof(*c->layers), cmp_layer);
	c->rel_rms = sss > 0 ? sqrt(sse / sss) : 0;
	return QA_OK;
}

/* The fingerprints, when every tensor of both was compared. */
static void
identity(struct qa_compare *c)
{
	uint64_t fq = 0, fs = 0;
	bool all = c->not_compared == 0 && c->compared == c->s->n_tensors;
	uint32_t i;

	for (i = 0; i < c->n_tensors; i++) {
		fq += mix64(c->tensors[i].content_q);
		fs += mix64(c->tensors[i].content_s);
	}
	c->fingerprinted = all && c->compared > 0;
	c->fingerprint_q = fq;
	c->fingerprint_s = fs;
	c->same_content = c->fingerprinted && fq == fs;
}

static bool
is_llama_family(const struct qa_inventory *inv)
{
	const char *a = inv->hp.arch_raw;

	/* The architectures convert_hf_to_gguf.py converts through
	 * LlamaModel (whose modify_tensors permutes q_proj and k_proj). */
	return a && (strcmp(a, "llama") == 0 || strcmp(a, "mistral") == 0 ||
		     strcmp(a, "granite") == 0);
}

/* compressed-tensors renames a packed x.weight to x.weight_packed: an
 * unpaired one pairs with the source's x.weight, if that is unpaired. */
static int
pair_packed(struct qa_compare *out, const struct qa_inventory *s)
{
	const struct qa_tensor **names = NULL;
	bool *taken = NULL;
	uint32_t i, n = 0;

	for (i = 0; i < out->n_tensors; i++) {
		const char *nm = out->tensors[i].q->name;
		size_t nl = strlen(nm);

		if (!out->tensors[i].s && nl > 14 &&
		    strcmp(nm + nl - 14, ".weight_packed") == 0)
			n++;
	}
	if (n == 0)
		return QA_OK;
	names = malloc((s->n_tensors + 1) * sizeof(*names));
	taken = calloc(s->n_tensors + 1, sizeof(*taken));
	if (!names || !taken) {
		free(names);
		free(taken);
		return QA_E_NOMEM;
	}
	for (i = 0; i < out->n_tensors; i++)
		if (out->tensors[i].s)
			taken[out->tensors[i].s - s->tensors] = true;
	for (i = 0; i < s->n_tensors; i++)
		names[i] = &s->tensors[i];
	qsort(names, s->n_tensors, sizeof(*names), cmp_tensor_name);
	for (i = 0; i < out->n_tensors; i++) {
		struct qa_cmp_tensor *t = &out->tensors[i];
		const char *nm = t->q->name;
		size_t nl = strlen(nm);
		struct qa_tensor key;
		const struct qa_tensor *kp = &key, *const *hit;
		char buf[1024];

		if (t->s || nl <= 14 || nl >= sizeof(buf) ||
		    strcmp(nm + nl - 14, ".weight_packed") != 0)
			continue;
		memcpy(buf, nm, nl - 7);	/* "x.weight" */
		buf[nl - 7] = '\0';
		key.name = buf;
		hit = bsearch(&kp, names, s->n_tensors, sizeof(*names),
			      cmp_tensor_name);
		if (!hit || taken[*hit - s->tensors])
			continue;
		taken[*hit - s->tensors] = true;
		t->s = *hit;
		t->state = QA_CMP_COMPARED;
		t->why = NULL;
	}
	free(names);
	free(taken);
	return QA_OK;
}

int
qa_compare_run(const struct qa_inventory *q, const struct qa_inventory *s,
	       const struct qa_compare_options *opt, struct qa_compare *out)
{
	int64_t *pq = malloc((q->n_tensors + 1) * sizeof(*pq));
	int64_t *ps = malloc((s->n_tensors + 1) * sizeof(*ps));
	struct job jb;
	const struct qa_tensor **names = NULL;
	pthread_t *th = NULL;
	unsigned jobs = opt && opt->jobs ? opt->jobs : 0, started = 0, i;
	int rc = QA_OK;

	memset(out, 0, sizeof(*out));
	out->q = q;
	out->s = s;
	out->tensors = calloc(q->n_tensors + 1, sizeof(*out->tensors));
	if (!pq || !ps || !out->tensors)
		goto nomem;
	qa_diff_pair(q, s, pq, ps, &out->by_role, &rc);
	if (rc != QA_OK)
		goto nomem;
	out->n_tensors = q->n_tensors;
	for (i = 0; i < q->n_tensors; i++) {
		out->tensors[i].q = &q->tensors[i];
		out->tensors[i].s = pq[i] >= 0 ? &s->tensors[pq[i]] : NULL;
		if (!out->tensors[i].s) {
			out->tensors[i].state = QA_CMP_UNPAIRED;
			out->tensors[i].why = "no partner in the source";
		}
	}
	if (pair_packed(out, s) != QA_OK)
		goto nomem;
	memset(&jb, 0, sizeof(jb));
	jb.q = q;
	jb.s = s;
	jb.t = out->tensors;
	jb.n = out->n_tensors;
	jb.flip = true;
	if ((q->kind == QA_KIND_GGUF) != (s->kind == QA_KIND_GGUF)) {
		const struct qa_inventory *g = q->kind == QA_KIND_GGUF ? q : s;

		jb.llama_qk = is_llama_family(g);
		jb.gguf_is_source = g == s;
		jb.n_head = g->hp.n_head;
		jb.n_head_kv = g->hp.n_head_kv > 0 ? g->hp.n_head_kv :
			       g->hp.n_head;
	}
	names = malloc((q->n_tensors + 1) * sizeof(*names));
	if (!names)
		goto nomem;
	for (i = 0; i < q->n_tensors; i++)
		names[i] = &q->tensors[i];
	qsort(names, q->n_tensors, sizeof(*names), cmp_tensor_name);
	jb.by_name = names;
	jb.n_by_name = q->n_tensors;
	atomic_init(&jb.next, 0);
	atomic_init(&jb.bytes_read, 0);
	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = n > 0 ? (unsigned)n : 1;
	}
	if (jobs > jb.n)
		jobs = jb.n ? jb.n : 1;
	th = calloc(jobs, sizeof(*th));
	if (!th)
		goto nomem;
	for (i = 0; i < jobs; i++)
		if (pthread_create(&th[i], NULL, worker, &jb) == 0)
			started++;
	if (started == 0)
		worker(&jb);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	out->bytes_read = atomic_load(&jb.bytes_read);
	for (i = 0; i < out->n_tensors; i++) {
		if (out->tensors[i].state == QA_CMP_COMPARED)
			out->compared++;
		else
			out->not_compared++;
	}
	if (flag_outliers(out, opt) != QA_OK || totals(out) != QA_OK)
		goto nomem;
	for (i = 0; i < out->n_tensors; i++)
		out->flagged += out->tensors[i].flagged;
	identity(out);
	free(names);
	free(pq);
	free(ps);
	return QA_OK;
nomem:
	free(names);
	free(pq);
	free(ps);
	qa_compare_free(out);
	return QA_E_NOMEM;
}

void
qa_compare_free(struct qa_compare *c)
{
	free(c->tensors);
	free(c->roles);
	free(c->layers);
	c->tensors = NULL;
	c->roles = c->layers = NULL;
	c->n_tensors = c->n_roles = c->n_layers = 0;
}
