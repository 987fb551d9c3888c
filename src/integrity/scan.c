/* SPDX-License-Identifier: MIT */
/*
 * scan (scan.h): a plan per tensor from its type, a visitor the reading
 * threads call with whole elements or blocks, then the findings.
 */
#include "integrity/scan.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtypes.h"

enum kind {
	K_BYTES,	/* constant bytes only */
	K_F32, K_F16, K_BF16, K_F64,
	K_F8E4M3, K_F8E5M2,
	K_BLOCK_F16,	/* ggml blocks with f16 scales at d_off */
	K_BLOCK_E8M0,	/* MXFP4: an E8M0 exponent at d_off[0] */
};

struct plan {
	enum kind kind;
	uint32_t unit;		/* bytes per element or block */
	uint16_t d_off;		/* offset of the scale in a block */
	uint16_t m_off;		/* of its min, 0 when it has none */
	bool scale;		/* a safetensors scale tensor */
};

struct stat {
	uint64_t nan, inf, zero, neg, over;
	uint64_t first_nan, first_inf, first_zero, first_neg, first_over;
	uint64_t units;		/* elements or blocks seen */
	double max_over;
	bool started, all_equal;
	unsigned char first_byte;
};

struct scan {
	const struct plan *plans;
	struct stat *stats;
};

/*
 * Where each ggml block keeps its scale, from ggml/src/ggml-common.h:
 * the delta d (ggml_half) is the first field of every block but Q2_K
 * (after scales[16] and qs[64]: offset 80), Q3_K (after hmask[32],
 * qs[64], scales[12]: 108), Q6_K (after ql[128], qh[64], scales[16]:
 * 208), TQ1_0 (after qs[48], qh[4]: 52) and TQ2_0 (after qs[64]: 64);
 * MXFP4's is its E8M0 exponent e, the first byte. Blocks with a min
 * keep it beside d: m of Q4_1 and Q5_1 and dmin of Q4_K and Q5_K at 2,
 * dmin of Q2_K at 82 (Q8_1's second half, s, is a sum, not a scale).
 * The block sizes are
 * checked against the type table (core/dtypes.c) before use. IQ1_M
 * packs its scale into the scales field and NVFP4 has four UE4M3
 * sub-block scales: those get the constant-bytes check only.
 */
static const struct {
	const char *type;
	uint32_t block_bytes;
	uint16_t d_off;
	uint16_t m_off;		/* the block's min (m, dmin), 0: none */
	bool e8m0;
} block_scales[] = {
	{ "Q4_0", 18, 0, 0, false }, { "Q4_1", 20, 0, 2, false },
	{ "Q5_0", 22, 0, 0, false }, { "Q5_1", 24, 0, 2, false },
	{ "Q8_0", 34, 0, 0, false }, { "Q8_1", 36, 0, 0, false },
	{ "Q2_K", 84, 80, 82, false }, { "Q3_K", 110, 108, 0, false },
	{ "Q4_K", 144, 0, 2, false }, { "Q5_K", 176, 0, 2, false },
	{ "Q6_K", 210, 208, 0, false },
	{ "IQ2_XXS", 66, 0, 0, false }, { "IQ2_XS", 74, 0, 0, false },
	{ "IQ2_S", 82, 0, 0, false }, { "IQ3_XXS", 98, 0, 0, false },
	{ "IQ3_S", 110, 0, 0, false }, { "IQ1_S", 50, 0, 0, false },
	{ "IQ4_NL", 18, 0, 0, false }, { "IQ4_XS", 136, 0, 0, false },
	{ "TQ1_0", 54, 52, 0, false }, { "TQ2_0", 66, 64, 0, false },
	{ "MXFP4", 17, 0, 0, true },
};

/* The last dotted component of a scale tensor's name, as the schemes
 * write them (docs/quantization.md): GPTQ and AWQ "scales",
 * compressed-tensors and ModelOpt "weight_scale", "weight_scale_2",
 * "input_scale", "weight_global_scale", "input_global_scale", DeepSeek's
 * FP8 "weight_scale_inv", bitsandbytes "absmax". */
static bool
is_scale_name(const char *name)
{
	static const char *const last[] = {
		"scales", "weight_scale", "weight_scale_2", "input_scale",
		"weight_global_scale", "input_global_scale",
		"weight_scale_inv", "scale_inv", "absmax",
	};
	const char *dot = strrchr(name, '.');
	size_t i;

	dot = dot ? dot + 1 : name;
	for (i = 0; i < sizeof(last) / sizeof(last[0]); i++)
		if (strcmp(dot, last[i]) == 0)
			return true;
	return false;
}

static void
plan_of(const struct qa_tensor *t, struct plan *p)
{
	const char *d = t->dtype ? t->dtype : "";
	size_t i;

	memset(p, 0, sizeof(*p));
	p->kind = K_BYTES;
	p->unit = 1;
	if (strcmp(d, "F32") == 0)
		p->kind = K_F32, p->unit = 4;
	else if (strcmp(d, "F16") == 0)
		p->kind = K_F16, p->unit = 2;
	else if (strcmp(d, "BF16") == 0)
		p->kind = K_BF16, p->unit = 2;
	else if (strcmp(d, "F64") == 0)
		p->kind = K_F64, p->unit = 8;
	else if (t->ggml_type < 0 && strcmp(d, "F8_E4M3") == 0)
		p->kind = K_F8E4M3;
	else if (t->ggml_type < 0 && strcmp(d, "F8_E5M2") == 0)
		p->kind = K_F8E5M2;
	else if (t->ggml_type >= 0) {
		const struct qa_ggml_type *g = qa_ggml_type(t->ggml_type);

		for (i = 0; g && i < sizeof(block_scales) /
		     sizeof(block_scales[0]); i++)
			if (strcmp(g->name, block_scales[i].type) == 0 &&
			    g->block_bytes == block_scales[i].block_bytes) {
				p->kind = block_scales[i].e8m0 ? K_BLOCK_E8M0 :
					  K_BLOCK_F16;
				p->unit = block_scales[i].block_bytes;
				p->d_off = block_scales[i].d_off;
				p->m_off = block_scales[i].m_off;
			}
	}
	p->scale = t->ggml_type < 0 && is_scale_name(t->name) &&
		   p->kind != K_BYTES;
	/* A tensor whose size is not whole units (a damaged header) is
	 * read as bytes. */
	if (t->bytes % p->unit != 0) {
		p->kind = K_BYTES;
		p->unit = 1;
	}
}

/* |x| without libm (the binary does not load it: core/units.h). */
#define MAG(x) ((x) < 0 ? -(x) : (x))

#define COUNT(st, field, at)				\
	do {						\
		if ((st)->field++ == 0)			\
			(st)->first_##field = (at);	\
	} while (0)

/* One float: its class from the exponent and mantissa bits. */
static inline void
one_float(struct stat *st, uint64_t at, bool nan, bool inf, bool zero,
	  bool neg, double over_mag, bool scale)
{
	if (nan) {
		COUNT(st, nan, at);
		return;
	}
	if (inf) {
		COUNT(st, inf, at);
		return;
	}
	if (over_mag > 65504.0) {
		COUNT(st, over, at);
		if (over_mag > st->max_over)
			st->max_over = over_mag;
	}
	if (scale && zero)
		COUNT(st, zero, at);
	else if (scale && neg)
		COUNT(st, neg, at);
}

static void
visit(void *ctx, uint32_t t, uint64_t at, const unsigned char *p, size_t n)
{
	struct scan *s = ctx;
	const struct plan *pl = &s->plans[t];
	struct stat *st = &s->stats[t];
	uint64_t base = at / pl->unit;
	size_t i, k = n / pl->unit;

	if (!st->started) {
		st->started = true;
		st->all_equal = true;
		st->first_byte = n ? p[0] : 0;
	}
	if (st->all_equal && n > 0 &&
	    (p[0] != st->first_byte || (n > 1 && memcmp(p, p + 1, n - 1) != 0)))
		st->all_equal = false;
	st->units += k;
	switch (pl->kind) {
	case K_F32:
		for (i = 0; i < k; i++) {
			uint32_t u;
			float f;

			memcpy(&u, p + 4 * i, 4);
			memcpy(&f, &u, 4);
			if ((u & 0x7f800000u) == 0x7f800000u || f > 65504.0f ||
			    f < -65504.0f || (pl->scale && f <= 0.0f))
				one_float(st, base + i, (u & 0x7fffffu) &&
					  (u & 0x7f800000u) == 0x7f800000u,
					  (u & 0x7fffffffu) == 0x7f800000u,
					  f == 0.0f, f < 0.0f, MAG((double)f),
					  pl->scale);
		}
		break;
	case K_F64:
		for (i = 0; i < k; i++) {
			double f;

			memcpy(&f, p + 8 * i, 8);
			if (!isfinite(f) || MAG(f) > 65504.0 ||
			    (pl->scale && f <= 0.0))
				one_float(st, base + i, isnan(f), isinf(f),
					  f == 0.0, f < 0.0,
					  isfinite(f) ? MAG(f) : 0.0,
					  pl->scale);
		}
		break;
	case K_BF16:
		for (i = 0; i < k; i++) {
			uint16_t u;
			unsigned e;

			memcpy(&u, p + 2 * i, 2);
			e = (u >> 7) & 0xff;
			/* |x| >= 2^16 from exponent 143: past 65504 */
			if (e == 0xff || e >= 143 ||
			    (pl->scale && ((u & 0x7fff) == 0 || (u & 0x8000)))) {
				uint32_t w = (uint32_t)u << 16;
				float f;

				memcpy(&f, &w, 4);
				one_float(st, base + i, e == 0xff && (u & 0x7f),
					  e == 0xff && !(u & 0x7f),
					  (u & 0x7fff) == 0, (u & 0x8000) != 0,
					  e == 0xff ? 0.0 : MAG((double)f),
					  pl->scale);
			}
		}
		break;
	case K_F16:
		for (i = 0; i < k; i++) {
			uint16_t u;

			memcpy(&u, p + 2 * i, 2);
			if ((u & 0x7c00) == 0x7c00 ||
			    (pl->scale && ((u & 0x7fff) == 0 || (u & 0x8000))))
				one_float(st, base + i, (u & 0x7c00) == 0x7c00 &&
					  (u & 0x3ff), (u & 0x7fff) == 0x7c00,
					  (u & 0x7fff) == 0, (u & 0x8000) != 0,
					  0.0, pl->scale);
		}
		break;
	case K_F8E4M3:
		/* E4M3FN: no infinity; S.1111.111 is NaN */
		for (i = 0; i < k; i++)
			if ((p[i] & 0x7f) == 0x7f ||
			    (pl->scale && ((p[i] & 0x7f) == 0 || (p[i] & 0x80))))
				one_float(st, base + i, (p[i] & 0x7f) == 0x7f,
					  false, (p[i] & 0x7f) == 0,
					  (p[i] & 0x80) != 0, 0.0, pl->scale);
		break;
	case K_F8E5M2:
		for (i = 0; i < k; i++)
			if ((p[i] & 0x7c) == 0x7c ||
			    (pl->scale && ((p[i] & 0x7f) == 0 || (p[i] & 0x80))))
				one_float(st, base + i, (p[i] & 0x7c) == 0x7c &&
					  (p[i] & 3), (p[i] & 0x7f) == 0x7c,
					  (p[i] & 0x7f) == 0, (p[i] & 0x80) != 0,
					  0.0, pl->scale);
		break;
	case K_BLOCK_F16:
		for (i = 0; i < k; i++) {
			const unsigned char *b = p + (size_t)pl->unit * i;
			uint16_t d = (uint16_t)(b[pl->d_off] |
						b[pl->d_off + 1] << 8);
			uint16_t m = pl->m_off ? (uint16_t)(b[pl->m_off] |
							    b[pl->m_off + 1] << 8) : 0;

			/* a NaN or inf min breaks the block as its d does */
			if ((d & 0x7c00) != 0x7c00 && (m & 0x7c00) == 0x7c00)
				d = m;
			if ((d & 0x7c00) == 0x7c00) {
				if (d & 0x3ff)
					COUNT(st, nan, base + i);
				else
					COUNT(st, inf, base + i);
			} else if ((d & 0x7fff) == 0) {
				COUNT(st, zero, base + i);
			}
		}
		break;
	case K_BLOCK_E8M0:
		for (i = 0; i < k; i++)
			if (p[(size_t)pl->unit * i + pl->d_off] == 0xff)
				COUNT(st, nan, base + i);
		break;
	case K_BYTES:
		break;
	}
}

/* ---- findings ----------------------------------------------------------- */

static void
find(struct qa_inventory *inv, const struct qa_tensor *t, unsigned code,
     const struct plan *pl, uint64_t count, uint64_t units, uint64_t first,
     const char *what, const char *extra)
{
	bool blocks = pl->kind == K_BLOCK_F16 || pl->kind == K_BLOCK_E8M0;
	const char *file = t->file < inv->n_files ? inv->files[t->file].path :
			   NULL;

	qa_inv_finding(inv, code, file, (int64_t)(t->offset +
						  first * pl->unit),
		       t->name, "%" PRIu64 " of the %" PRIu64 " %s of %s "
		       "are %s (the first is %s %" PRIu64 ")%s", count, units,
		       blocks ? "block scales" : pl->scale ? "scales" :
		       "elements", t->name, what, blocks ? "block" : "element",
		       first, extra ? extra : "");
}

static void
findings(struct qa_inventory *inv, const struct plan *plans,
	 const struct stat *stats, const struct qa_content *c,
	 struct qa_scan_totals *tot)
{
	uint32_t i, first_unread = UINT32_MAX;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		const struct plan *pl = &plans[i];
		const struct stat *st = &stats[i];
		const char *file = t->file < inv->n_files ?
				   inv->files[t->file].path : NULL;

		if (c->tensors[i].h.state == QA_REGION_SKIPPED)
			continue;	/* no bytes */
		if (c->tensors[i].h.state != QA_REGION_HASHED) {
			if (tot->unread++ == 0)
				first_unread = i;
			continue;
		}
		tot->tensors++;
		tot->bytes += t->bytes;
		if (pl->kind == K_BLOCK_F16 || pl->kind == K_BLOCK_E8M0)
			tot->by_scale++;
		else if (pl->kind == K_BYTES)
			tot->bytes_only++;
		else
			tot->by_value++;
		if (st->nan)
			find(inv, t, QA1701, pl, st->nan, st->units,
			     st->first_nan, "NaN", NULL);
		if (st->inf)
			find(inv, t, QA1702, pl, st->inf, st->units,
			     st->first_inf, "infinite", NULL);
		if (t->bytes >= 16 && st->all_equal && st->first_byte == 0) {
			qa_inv_finding(inv, QA1703, file, (int64_t)t->offset,
				       t->name, "%s: all %" PRIu64 " bytes are "
				       "zero", t->name, t->bytes);
		} else if (pl->kind == K_BLOCK_F16 && st->units > 0 &&
			   st->zero == st->units) {
			qa_inv_finding(inv, QA1703, file, (int64_t)t->offset,
				       t->name, "%s: the scale d of all %"
				       PRIu64 " blocks is zero, so it "
				       "dequantizes to zeros", t->name,
				       st->units);
		} else if (t->bytes >= 16 && st->all_equal) {
			qa_inv_finding(inv, QA1704, file, (int64_t)t->offset,
				       t->name, "%s: all %" PRIu64 " bytes are "
				       "0x%02x", t->name, t->bytes,
				       st->first_byte);
		}
		if (pl->scale && st->zero)
			find(inv, t, QA1705, pl, st->zero, st->units,
			     st->first_zero, "zero", NULL);
		if (pl->scale && st->neg)
			find(inv, t, QA1706, pl, st->neg, st->units,
			     st->first_neg, "negative", NULL);
		if (st->over) {
			char extra[64];

			snprintf(extra, sizeof(extra), "; the largest "
				 "magnitude is %.6g", st->max_over);
			find(inv, t, QA1707, pl, st->over, st->units,
			     st->first_over, "beyond the FP16 range (65504)",
			     extra);
		}
	}
	if (first_unread != UINT32_MAX) {
		const struct qa_tensor *t = &inv->tensors[first_unread];
		const struct qa_region_hash *h = &c->tensors[first_unread].h;
		char why[160];

		/* a read error says where and why, as hash does */
		qa_region_why(h, why, sizeof(why));
		qa_inv_finding(inv, QA1708, t->file < inv->n_files ?
			       inv->files[t->file].path : NULL,
			       (int64_t)t->offset, t->name, "%u of the %u "
			       "tensors could not be read, so their data is "
			       "not checked (the first, %s: %s)", tot->unread,
			       tot->unread + tot->tensors, t->name, why);
	}
}

int
qa_scan_run(struct qa_inventory *inv, const struct qa_content_options *opt,
	    struct qa_scan_totals *tot, char *err, size_t errlen)
{
	struct qa_content c;
	struct qa_content_options o = *opt;
	struct plan *plans;
	struct stat *stats;
	uint32_t *units;
	struct scan s;
	uint32_t i;
	int rc;

	memset(tot, 0, sizeof(*tot));
	plans = calloc(inv->n_tensors + 1, sizeof(*plans));
	stats = calloc(inv->n_tensors + 1, sizeof(*stats));
	units = calloc(inv->n_tensors + 1, sizeof(*units));
	if (!plans || !stats || !units ||
	    qa_content_plan(inv, &c) != QA_OK) {
		rc = QA_E_NOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < inv->n_tensors; i++) {
		plan_of(&inv->tensors[i], &plans[i]);
		units[i] = inv->tensors[i].bytes ? plans[i].unit : 0;
	}
	s.plans = plans;
	s.stats = stats;
	o.sha256 = false;
	o.visit = visit;
	o.visit_ctx = &s;
	o.unit = units;
	rc = qa_content_hash(qa_content_fs(inv), &inv->arena, &o, &c, err,
			     errlen);
	if (rc == QA_OK)
		findings(inv, plans, stats, &c, tot);
out:
	free(plans);
	free(stats);
	free(units);
	return rc;
}
