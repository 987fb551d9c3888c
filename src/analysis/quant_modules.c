/* SPDX-License-Identifier: MIT */
/*
 * Per-module precision from the tensors (ground truth beats config).
 *
 * Every safetensors tensor name is split into a module name and a sibling
 * suffix (qweight, scales, weight_packed, weight_scale_inv, bitsandbytes
 * weight.absmax, gpt-oss _blocks...), tensors are grouped by module name
 * in a hash map, and each group's scheme is decided from which siblings it
 * has and their dtypes and shapes (../shared/knowledge/quant-formats.md
 * §1.3; each decider below cites the writer of the layout). The logical
 * [out, in] shape is recovered from the packed shapes, so a module's
 * parameters are what the unquantized Linear held and its measured bits
 * per weight are 8 * bytes / params over every tensor of the module
 * (§1.4). GGUF tensors are their own modules (the ggml type is the
 * precision), except NVFP4 companions that join their weight.
 *
 * Shapes come from files: every product goes through src/ckd.h, every
 * division is guarded, and a group that fits no layout becomes an
 * UNKNOWN module whose tensors keep their stored element counts.
 */
#include "analysis/analysis.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ckd.h"
#include "core/hash.h"
#include "core/dtypes.h"

/* ---- sibling suffixes ------------------------------------------------- */

enum sfx {
	S_NONE,			/* not a known sibling: a module of its own */
	S_WEIGHT,
	S_BIAS,
	S_QWEIGHT,		/* GPTQ / AWQ (AutoGPTQ qlinear, AutoAWQ) */
	S_QZEROS,
	S_SCALES,
	S_G_IDX,
	S_WEIGHT_PACKED,	/* compressed-tensors pack/nvfp4/mxfp4 */
	S_WEIGHT_SCALE,
	S_WEIGHT_SHAPE,
	S_WEIGHT_ZP,
	S_WEIGHT_G_IDX,
	S_WEIGHT_GLOBAL_SCALE,
	S_INPUT_GLOBAL_SCALE,
	S_INPUT_SCALE,
	S_WEIGHT_SCALE_INV,	/* DeepSeek block FP8 */
	S_WEIGHT_SCALE_2,	/* ModelOpt NVFP4 */
	S_PRE_QUANT_SCALE,	/* ModelOpt AWQ */
	S_SCB,			/* bitsandbytes int8 */
	S_WEIGHT_FORMAT,
	S_AUX,			/* other known quantization side tensors */
	S_KV_SCALE,		/* k_scale / v_scale / q_scale: not weights */
	S_BNB_ABSMAX,		/* bitsandbytes 4-bit weight.<x> */
	S_BNB_QUANT_MAP,
	S_BNB_NESTED_ABSMAX,
	S_BNB_NESTED_QUANT_MAP,
	S_BNB_QUANT_STATE,
	S_BLOCKS,		/* gpt-oss <name>_blocks */
	S_GLUED_SCALES,		/* gpt-oss <name>_scales */
	S_GLUED_BIAS,		/* gpt-oss <name>_bias */
	S_GGUF_SCALE,		/* GGUF NVFP4 <name>.scale */
	S_MLX_BIASES,		/* MLX affine <name>.biases */
	S_MLX_GLOBAL_SCALE,	/* MLX nvfp4 <name>.global_scale */
	S_EXL2_QWEIGHT,		/* ExLlamaV2 q_weight (q_scale: S_KV_SCALE) */
	S_EXL2_SCALE_MAX,
	S_EXL2_GROUPS,
	S_EXL2_INVPERM,
	S_EXL2_PERM,
	S_EXL3_TRELLIS,		/* ExLlamaV3 trellis */
	S_EXL3_SUH,
	S_EXL3_SVH,
	S_EXL3_SU,		/* older packed sign bits */
	S_EXL3_SV,
	S_EXL3_CODEBOOK,	/* mcg / mul1 markers */
	S_HQQ_WQ,		/* HQQ W_q (its scale: S_GGUF_SCALE) */
	S_HQQ_ZERO,
	S_HQQ_NBITS,		/* I32 scalars, values read (st_values.c) */
	S_HQQ_GROUP,
	S_HQQ_AXIS,
	S_HQQ_SHAPE,		/* I64 [2]: out, in */
	S_HQQ_META,		/* the other flags and strings */
	S_TAO_QDATA,		/* torchao <module>._weight_qdata */
	S_TAO_SCALE,
	S_TAO_ZP,
	S_QQQ_SCHANNEL,		/* GPTQModel QQQ s_channel (B, s_group join it) */
	S_QQQ_B,
	S_QQQ_SGROUP,
	S_PARO_META,		/* ParoQuant rotation: theta, pairs,
				 * channel_scales (beside a qweight) */
	S_COUNT
};

/*
 * Last-component siblings (quant-formats.md §1.3 table; KV-cache scales
 * from compressed-tensors lifecycle/initialize.py initialize_attn_qparams
 * and ModelOpt quant_utils.py _KV_CACHE_REPLACEMENTS; AutoRound FP8
 * weight_zp from export_to_fp8.py; GGUF NVFP4 .scale companions from
 * llama.cpp conversion/base.py _repack_nvfp4).
 */
static const struct {
	const char *name;
	enum sfx s;
} siblings[] = {
	{ "weight", S_WEIGHT },
	{ "bias", S_BIAS },
	{ "qweight", S_QWEIGHT },
	{ "qzeros", S_QZEROS },
	{ "scales", S_SCALES },
	{ "g_idx", S_G_IDX },
	{ "weight_packed", S_WEIGHT_PACKED },
	{ "weight_scale", S_WEIGHT_SCALE },
	{ "weight_shape", S_WEIGHT_SHAPE },
	{ "weight_zero_point", S_WEIGHT_ZP },
	{ "weight_g_idx", S_WEIGHT_G_IDX },
	{ "weight_global_scale", S_WEIGHT_GLOBAL_SCALE },
	{ "input_global_scale", S_INPUT_GLOBAL_SCALE },
	{ "input_scale", S_INPUT_SCALE },
	{ "weight_scale_inv", S_WEIGHT_SCALE_INV },
	{ "weight_scale_2", S_WEIGHT_SCALE_2 },
	{ "pre_quant_scale", S_PRE_QUANT_SCALE },
	{ "SCB", S_SCB },
	{ "weight_format", S_WEIGHT_FORMAT },
	{ "weight_zp", S_AUX },
	{ "input_zero_point", S_AUX },
	{ "output_scale", S_AUX },
	{ "k_scale", S_KV_SCALE },
	{ "v_scale", S_KV_SCALE },
	{ "q_scale", S_KV_SCALE },
	{ "scale", S_GGUF_SCALE },
	{ "biases", S_MLX_BIASES },
	{ "global_scale", S_MLX_GLOBAL_SCALE },
	/* ExLlamaV2 (exllamav2/conversion/adaptivegptq.py pack l.608-674;
	 * its q_scale is the KV-scale name of compressed-tensors: it joins
	 * the group in the second pass, and decide_exl2 takes it there) */
	{ "q_weight", S_EXL2_QWEIGHT },
	{ "q_scale_max", S_EXL2_SCALE_MAX },
	{ "q_groups", S_EXL2_GROUPS },
	{ "q_invperm", S_EXL2_INVPERM },
	{ "q_perm", S_EXL2_PERM },
	/* ExLlamaV3 (exllamav3/modules/quant/exl3.py get_tensors l.98-111) */
	{ "trellis", S_EXL3_TRELLIS },
	{ "suh", S_EXL3_SUH },
	{ "svh", S_EXL3_SVH },
	{ "su", S_EXL3_SU },
	{ "sv", S_EXL3_SV },
	{ "mcg", S_EXL3_CODEBOOK },
	{ "mul1", S_EXL3_CODEBOOK },
	/* HQQ (mobiusml/hqq hqq/core/quantize.py HQQLinear.state_dict
	 * l.668-690 and the meta of Quantizer.quantize l.150-164; vLLM's
	 * loader lists the same names, vllm/model_executor/layers/
	 * quantization/hqq_marlin.py create_weights ignore_parameters) */
	{ "W_q", S_HQQ_WQ },
	{ "zero", S_HQQ_ZERO },
	{ "nbits", S_HQQ_NBITS },
	{ "group_size", S_HQQ_GROUP },
	{ "axis", S_HQQ_AXIS },
	{ "shape", S_HQQ_SHAPE },
	{ "packing", S_HQQ_META },
	{ "compute_dtype", S_HQQ_META },
	{ "unpack_view_dtype", S_HQQ_META },
	{ "channel_wise", S_HQQ_META },
	{ "encoded_state_dict", S_HQQ_META },
	{ "offload_meta", S_HQQ_META },
	{ "optimize", S_HQQ_META },
	{ "quant_scale", S_HQQ_META },
	{ "quant_zero", S_HQQ_META },
	{ "round_zero", S_HQQ_META },
	{ "stores_quant_config", S_HQQ_META },
	{ "view_as_float", S_HQQ_META },
	/* torchao tensor subclasses flattened for safetensors: the weight's
	 * tensor data names behind "_weight_" (pytorch/ao torchao/prototype/
	 * safetensors/safetensors_support.py flatten_tensor_state_dict;
	 * transformers quantizers/quantizer_torchao.py
	 * checkpoint_key_patterns) */
	{ "_weight_qdata", S_TAO_QDATA },
	{ "_weight_scale", S_TAO_SCALE },
	{ "_weight_zero_point", S_TAO_ZP },
	/* GPTQModel QQQ (gptqmodel/nn_modules/qlinear/qqq.py l.138-164):
	 * B and s_group join a module only beside its s_channel */
	{ "s_channel", S_QQQ_SCHANNEL },
	{ "B", S_QQQ_B },
	{ "s_group", S_QQQ_SGROUP },
	/* GPTQModel ParoQuant (gptqmodel/nn_modules/qlinear/paroquant.py
	 * _register_rotation_buffers; gptqmodel/utils/paroquant.py
	 * build_identity_rotation_buffers): beside a qweight only */
	{ "theta", S_PARO_META },
	{ "pairs", S_PARO_META },
	{ "channel_scales", S_PARO_META },
};

/* <module>.weight.<x>: bitsandbytes 4-bit (bitsandbytes nn/modules.py
 * Linear4bit._save_to_state_dict, functional.py QuantState.as_dict) and
 * Ollama's MLX blobs. */
static const struct {
	const char *name;
	enum sfx s;
	bool prefix;
} bnb_siblings[] = {
	{ "absmax", S_BNB_ABSMAX, false },
	{ "quant_map", S_BNB_QUANT_MAP, false },
	{ "nested_absmax", S_BNB_NESTED_ABSMAX, false },
	{ "nested_quant_map", S_BNB_NESTED_QUANT_MAP, false },
	{ "quant_state.", S_BNB_QUANT_STATE, true },
	/* Ollama's MLX blobs: <tensor>.scale, .bias, .global_scale beside
	 * the packed <module>.weight (ollama x/create/quantize.go
	 * arraysForItem, x/create/prequant.go) */
	{ "scale", S_SCALES, false },
	{ "bias", S_MLX_BIASES, false },
	{ "global_scale", S_MLX_GLOBAL_SCALE, false },
};

static bool
ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n > k && memcmp(s + n - k, suf, k) == 0;
}

/* Splits name into module key (its first *key_len bytes) and suffix. */
static enum sfx
split_name(const char *name, size_t *key_len)
{
	const char *p = name, *dot;
	size_t n = strlen(name), i;

	while ((p = strstr(p, ".weight.")) != NULL) {
		const char *rest = p + 8;

		for (i = 0; i < sizeof(bnb_siblings) / sizeof(bnb_siblings[0]);
		     i++) {
			size_t k = strlen(bnb_siblings[i].name);

			if (strncmp(rest, bnb_siblings[i].name, k) == 0 &&
			    (bnb_siblings[i].prefix || rest[k] == '\0')) {
				*key_len = (size_t)(p - name);
				return bnb_siblings[i].s;
			}
		}
		p++;
	}
	dot = strrchr(name, '.');
	if (dot && dot != name) {
		for (i = 0; i < sizeof(siblings) / sizeof(siblings[0]); i++)
			if (strcmp(dot + 1, siblings[i].name) == 0) {
				*key_len = (size_t)(dot - name);
				return siblings[i].s;
			}
	}
	/* gpt-oss experts glue the suffix with '_' (transformers
	 * convert_gpt_oss_weights_to_hf.py; quant-formats.md §A6). */
	if (ends_with(name, n, "_blocks")) {
		*key_len = n - 7;
		return S_BLOCKS;
	}
	if (ends_with(name, n, "_scales")) {
		*key_len = n - 7;
		return S_GLUED_SCALES;
	}
	if (ends_with(name, n, "_bias")) {
		*key_len = n - 5;
		return S_GLUED_BIAS;
	}
	*key_len = n;
	return S_NONE;
}

/* Sibling tensors that carry parameters of their own (not quantization
 * metadata): biases are real parameters, stored unquantized. */
static bool
carries_params(enum sfx s)
{
	return s == S_BIAS || s == S_GLUED_BIAS || s == S_NONE;
}

/* ---- groups and the hash map ------------------------------------------ */

struct group {
	const char *name;	/* points into a tensor name */
	size_t len;
	uint32_t head, tail;	/* tensor list through next[] */
	uint32_t n;
	/* Bit s set when a tensor of suffix s is in the group. The first
	 * one is found by walking the list (group_slot): a group holds at
	 * most a few dozen tensors, and a table of S_COUNT slots per group
	 * was 244 bytes of 276 for every tensor of a 100k-tensor file. */
	uint64_t has;
};

_Static_assert(S_COUNT <= 64, "one bit per suffix in group.has");

struct map {
	uint32_t *cells;	/* group index + 1; 0 = empty */
	uint64_t mask;
	struct group *groups;
	uint32_t n_groups;
	uint32_t *next;		/* per tensor: next in group, UINT32_MAX */
	enum sfx *sfx;		/* per tensor */
	size_t n_tensors;	/* entries of groups, next and sfx */
	struct qa_claims *claims;	/* the config's patterns, compiled */
};

/* Names from the file: the keyed hash, so crafted names cannot all land
 * in one chain (core/hash.h). */
static uint64_t
hash(const char *s, size_t n)
{
	return qa_hash(s, n);
}

/* Returns the group for key, creating it if create; NULL if absent. */
static struct group *
map_get(struct map *m, const char *key, size_t len, bool create)
{
	uint64_t i = hash(key, len) & m->mask;

	for (;;) {
		uint32_t c = m->cells[i];
		struct group *g;

		if (c == 0) {
			if (!create)
				return NULL;
			g = &m->groups[m->n_groups];
			g->name = key;
			g->len = len;
			g->head = g->tail = UINT32_MAX;
			g->n = 0;
			g->has = 0;
			m->cells[i] = ++m->n_groups;
			return g;
		}
		g = &m->groups[c - 1];
		if (g->len == len && memcmp(g->name, key, len) == 0)
			return g;
		i = (i + 1) & m->mask;
	}
}

static void
group_add(struct map *m, struct group *g, uint32_t t, enum sfx s)
{
	m->sfx[t] = s;
	m->next[t] = UINT32_MAX;
	if (g->tail == UINT32_MAX)
		g->head = t;
	else
		m->next[g->tail] = t;
	g->tail = t;
	g->n++;
	g->has |= UINT64_C(1) << s;
}

/* The first tensor of suffix s in the group, in the order tensors
 * joined it; -1 when there is none. */
static int64_t
group_slot(const struct map *m, const struct group *g, enum sfx s)
{
	uint32_t t;

	if (!(g->has & (UINT64_C(1) << s)))
		return -1;
	for (t = g->head; t != UINT32_MAX; t = m->next[t])
		if (m->sfx[t] == s)
			return t;
	return -1;
}

/* ---- shapes ----------------------------------------------------------- */

/* Last two dims of a tensor as [r, c] and the product of leading dims as
 * e (a stacked expert dimension); a 1-D tensor is [n, 1]. A dim above
 * 2^40 is no real layer: refusing it keeps every later "* 32", "* 2" and
 * ceil division far from wrapping. */
#define MAX_DIM ((uint64_t)1 << 40)

struct mat {
	uint64_t e, r, c;
	bool ok;		/* n_dims >= 1 and no overflow */
};

static struct mat
mat_of(const struct qa_tensor *t)
{
	struct mat m = { 1, 0, 1, false };
	uint32_t i;

	if (t->n_dims == 0 || t->n_dims > QA_MAX_DIMS)
		return m;
	if (t->n_dims == 1) {
		m.r = t->shape[0];
		m.ok = m.r <= MAX_DIM;
		return m;
	}
	m.r = t->shape[t->n_dims - 2];
	m.c = t->shape[t->n_dims - 1];
	for (i = 0; i + 2 < t->n_dims; i++)
		if (qa_ckd_mul(&m.e, m.e, t->shape[i]))
			return m;
	m.ok = m.r <= MAX_DIM && m.c <= MAX_DIM && m.e <= MAX_DIM;
	return m;
}

static bool
is_float(const char *dt)
{
	/* BF16, F16, F32, F64, without a call */
	if (dt[0] == 'B')
		return dt[1] == 'F' && dt[2] == '1' && dt[3] == '6' && !dt[4];
	return dt[0] == 'F' &&
	       ((dt[1] == '1' && dt[2] == '6') ||
		(dt[1] == '3' && dt[2] == '2') ||
		(dt[1] == '6' && dt[2] == '4')) && !dt[3];
}

static bool
is_fp8(const char *dt)
{
	return strncmp(dt, "F8_E4M3", 7) == 0 || strncmp(dt, "F8_E5M2", 7) == 0;
}

/* E8M0 scales: stored as U8 (compressed-tensors mxfp4, gpt-oss) or as
 * the safetensors F8_E8M0 dtype. */
static bool
is_e8m0(const char *dt)
{
	return strcmp(dt, "U8") == 0 || strcmp(dt, "F8_E8M0") == 0;
}

static uint64_t
ceil_div(uint64_t a, uint64_t b)
{
	return b ? a / b + (a % b != 0) : 0;
}

/* ---- the decision ----------------------------------------------------- */

struct decision {
	enum qa_scheme scheme;
	const char *label;	/* arena string */
	int bits, group;
	uint64_t out, in, experts;
	uint64_t logical;	/* payload's logical parameters */
	bool act_order;
	int axis;		/* HQQ's, -1 otherwise */
	uint32_t payload;
};

struct ctx {
	struct qa_inventory *inv;
	struct map *m;
	const struct group *g;
	int config_bits;	/* bits the config gives this module, -1 */
	int config_group;	/* group size the config gives, -1 */
};

static const struct qa_tensor *
slot(const struct ctx *c, enum sfx s)
{
	int64_t t = group_slot(c->m, c->g, s);

	return t >= 0 ? &c->inv->tensors[t] : NULL;
}

/* Fills the logical count; false (UNKNOWN) when it overflows or is 0. */
static bool
finish(struct decision *d)
{
	uint64_t p;

	if (d->out == 0 || d->in == 0 || d->experts == 0)
		return false;
	if (qa_ckd_mul(&p, d->out, d->in) || qa_ckd_mul(&p, p, d->experts))
		return false;
	d->logical = p;
	return true;
}

/* "g128", or "channel" for one scale per output row. */
static const char *
group_text(struct qa_inventory *inv, int g)
{
	return g > 0 ? qa_arena_printf(&inv->arena, "g%d", g) : "channel";
}

/*
 * Group size from in and the number of scale groups n: one group is
 * per-channel (0); the config's group size when ceil(in / g) == n (the
 * last group may be short), else in / n when it divides. A per-module
 * override (GPTQ dynamic, AutoRound extra_config) may differ from the
 * global size, so a misfit falls back to the shape.
 */
static bool
group_of(const struct ctx *c, uint64_t in, uint64_t n, uint64_t *g)
{
	if (n == 0 || in == 0)
		return false;
	if (n == 1) {
		*g = 0;
		return true;
	}
	if (c->config_group > 0 &&
	    ceil_div(in, (uint64_t)c->config_group) == n) {
		*g = (uint64_t)c->config_group;
		return true;
	}
	if (in % n)
		return false;
	*g = in / n;
	return *g <= INT32_MAX;
}

/*
 * GPTQ family (AutoGPTQ/GPTQModel qlinear _register_gptq_buffers; AutoRound
 * auto_round:auto_gptq / gptqmodel): qweight I32 [in*b/32, out], qzeros
 * [in/g, out*b/32], scales [in/g, out], g_idx [in].
 * AWQ GEMM (AutoAWQ awq/modules/linear/gemm.py; AutoRound auto_awq):
 * qweight [in, out*b/32], qzeros [in/g, out*b/32], scales [in/g, out].
 * AWQ GEMV (awq/modules/linear/gemv.py): qweight [out, in/8], qzeros
 * [out, W], scales [out, W*8], 4-bit only.
 */
static bool
decide_qweight(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *qw = slot(c, S_QWEIGHT);
	const struct qa_tensor *sc = slot(c, S_SCALES);
	const struct qa_tensor *qz = slot(c, S_QZEROS);
	const struct qa_tensor *gi = slot(c, S_G_IDX);
	struct mat q, s, z = { 0 };
	int cand[3], nc = 0, i;

	if (!sc || strcmp(qw->dtype, "I32") != 0 || qw->n_dims != 2 ||
	    sc->n_dims != 2)
		return false;
	q = mat_of(qw);
	s = mat_of(sc);
	if (qz)
		z = mat_of(qz);
	if (!q.ok || !s.ok || (qz && !z.ok) || q.r == 0 || q.c == 0 ||
	    s.r == 0 || s.c == 0)
		return false;
	d->act_order = gi != NULL;
	d->experts = 1;
	if (q.c == s.c) {
		/* GPTQ: bits from the config, else qzeros width (out*b/32
		 * words per row), else g_idx length (= in). */
		if (c->config_bits > 0)
			cand[nc++] = c->config_bits;
		if (qz && qz->n_dims == 2 && (32 * z.c) % s.c == 0)
			cand[nc++] = (int)(32 * z.c / s.c);
		if (gi && gi->n_dims == 1 && gi->shape[0] &&
		    (32 * q.r) % gi->shape[0] == 0)
			cand[nc++] = (int)(32 * q.r / gi->shape[0]);
		for (i = 0; i < nc; i++) {
			int b = cand[i];
			uint64_t in, g;

			if (b < 2 || b > 8 || (q.r * 32) % (uint64_t)b)
				continue;
			in = q.r * 32 / (uint64_t)b;
			if (qz && (z.r != s.r ||
				   z.c != ceil_div(q.c * (uint64_t)b, 32)))
				continue;
			if (gi && gi->shape[0] != in)
				continue;
			if (!group_of(c, in, s.r, &g))
				continue;
			d->scheme = QA_SCHEME_GPTQ;
			d->bits = b;
			d->group = (int)g;
			d->out = q.c;
			d->in = in;
			d->label = qa_arena_printf(&c->inv->arena,
						   "GPTQ int%d %s", b,
						   group_text(c->inv, d->group));
			return finish(d);
		}
		return false;
	}
	if ((32 * q.c) % s.c == 0 && 32 * q.c / s.c >= 2 &&
	    32 * q.c / s.c <= 8) {
		/* AWQ GEMM: the packed width tells the bits. */
		int b = (int)(32 * q.c / s.c);
		uint64_t g;

		if (qz && (z.r != s.r || z.c != q.c))
			return false;
		if (!group_of(c, q.r, s.r, &g))
			return false;
		d->scheme = QA_SCHEME_AWQ_GEMM;
		d->bits = b;
		d->group = (int)g;
		d->out = s.c;
		d->in = q.r;
		d->label = qa_arena_printf(&c->inv->arena, "AWQ int%d %s", b,
					   group_text(c->inv, d->group));
		return finish(d);
	}
	if (q.r == s.r && qz && z.r == q.r && s.c == 8 * z.c) {
		/* AWQ GEMV: 8 4-bit values per int32 along the input; the
		 * scale width is the group count padded by
		 * calculate_zeros_width, so the group size comes from the
		 * config when it is there. */
		uint64_t in = q.c * 8;

		d->scheme = QA_SCHEME_AWQ_GEMV;
		d->bits = 4;
		if (c->config_group > 0)
			d->group = c->config_group;
		else
			d->group = in % s.c == 0 ? (int)(in / s.c) : -1;
		d->out = q.r;
		d->in = in;
		d->label = d->group > 0 ?
			qa_arena_printf(&c->inv->arena, "AWQ-GEMV int4 g%d",
					d->group) : "AWQ-GEMV int4";
		return finish(d);
	}
	return false;
}

/*
 * weight_packed: compressed-tensors pack-quantized (I32, compressors/
 * pack_quantized/base.py: [out, ceil(in*b/32)], weight_scale [out, in/g]
 * or [out, 1], weight_zero_point [ceil(out*b/32), groups] if asym);
 * nvfp4-pack-quantized (U8 [out, in/2], weight_scale F8_E4M3 [out, in/16],
 * weight_global_scale F32 [1]; compressors/nvfp4/base.py, AutoRound
 * export_to_nvfp_mx.py); mxfp4-pack-quantized (U8 [out, in/2], weight_scale
 * U8 E8M0 [out, in/32]; compressors/mxfp4/base.py).
 */
static bool
decide_packed(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *wp = slot(c, S_WEIGHT_PACKED);
	const struct qa_tensor *ws = slot(c, S_WEIGHT_SCALE);
	const struct qa_tensor *zp = slot(c, S_WEIGHT_ZP);
	struct mat p, s;

	if (!ws || wp->n_dims < 2)
		return false;
	p = mat_of(wp);
	s = mat_of(ws);
	if (!p.ok || !s.ok || p.r == 0 || p.c == 0 || s.r != p.r ||
	    s.c == 0)
		return false;
	d->experts = p.e;
	d->out = p.r;
	if (strcmp(wp->dtype, "I32") == 0) {
		int b = c->config_bits;
		uint64_t g;

		/* Without a config, an asym zero point packed along dim 0
		 * gives the bits; else the W4A16 preset's 4
		 * (quantization/quant_scheme.py). */
		if (b <= 0 && zp) {
			struct mat z = mat_of(zp);

			if (z.ok && z.r && (32 * z.r) % p.r == 0)
				b = (int)(32 * z.r / p.r);
		}
		if (b <= 0)
			b = 4;
		if (b > 8)
			return false;
		d->in = p.c * 32 / (uint64_t)b;
		if (!group_of(c, d->in, s.c, &g))
			return false;
		d->scheme = QA_SCHEME_CT_PACK;
		d->bits = b;
		d->group = (int)g;
		d->act_order = slot(c, S_WEIGHT_G_IDX) != NULL;
		d->label = qa_arena_printf(&c->inv->arena, "int%d %s", b,
					   group_text(c->inv, d->group));
		return finish(d);
	}
	if (strcmp(wp->dtype, "U8") != 0)
		return false;
	d->in = p.c * 2;
	d->bits = 4;
	if (strcmp(ws->dtype, "F8_E4M3") == 0) {
		if (!slot(c, S_WEIGHT_GLOBAL_SCALE) ||
		    s.c != ceil_div(d->in, 16))
			return false;
		d->scheme = QA_SCHEME_NVFP4;
		d->group = 16;
		/* input_global_scale only when activations are quantized:
		 * NVFP4 (W4A4) vs NVFP4A16 (lifecycle/initialize.py). */
		d->label = slot(c, S_INPUT_GLOBAL_SCALE) ? "NVFP4" :
							   "NVFP4A16";
		return finish(d);
	}
	if (is_e8m0(ws->dtype)) {
		if (s.c != ceil_div(d->in, 32))
			return false;
		d->scheme = QA_SCHEME_MXFP4;
		d->group = 32;
		/* AutoRound's MXINT4 (data_type "mx_int") packs the same
		 * shapes as MXFP4: only the config tells them apart
		 * (auto_round/export/export_to_autoround/qlinear_int.py). */
		d->label = c->inv->quant.data_type &&
			   strstr(c->inv->quant.data_type, "int") ? "MXINT4" :
								    "MXFP4";
		return finish(d);
	}
	return false;
}

/* The label of a float-quantized weight by the shape of its scale
 * (compressed-tensors lifecycle/initialize.py initialize_qparams: tensor
 * [1], channel [out, 1], group [out, in/g], block [ceil(out/br),
 * ceil(in/bc)]; ModelOpt FP8 scalar, FP8_PER_CHANNEL_PER_TOKEN [out]). */
static bool
decide_scaled(struct ctx *c, struct decision *d, const char *kind,
	      enum qa_scheme block_scheme, const struct qa_tensor *w,
	      const struct qa_tensor *ws)
{
	struct mat p = mat_of(w), s = mat_of(ws);
	uint64_t br, bc, nb;

	if (!p.ok || w->n_dims < 2 || p.r == 0 || p.c == 0)
		return false;
	d->experts = p.e;
	d->out = p.r;
	d->in = p.c;
	d->bits = 8;
	/* per tensor: a scalar (n_dims 0), [1], or one per expert */
	if (ws->elements == 1 || ws->elements == p.e) {
		d->group = 0;
		d->label = kind;
		return finish(d);
	}
	if (!s.ok)
		return false;
	if ((s.r == p.r && s.c == 1 && ws->n_dims >= 2) ||
	    (ws->n_dims == 1 && ws->shape[0] == p.r)) {
		d->group = 0;
		d->label = qa_arena_printf(&c->inv->arena, "%s channel", kind);
		return finish(d);
	}
	if (ws->n_dims >= 2 && s.r == p.r && p.c % s.c == 0) {
		d->group = (int)(p.c / s.c);
		d->label = qa_arena_printf(&c->inv->arena, "%s g%d", kind,
					   d->group);
		return finish(d);
	}
	br = c->inv->quant.block[0] > 0 ? (uint64_t)c->inv->quant.block[0] : 128;
	bc = c->inv->quant.block[1] > 0 ? (uint64_t)c->inv->quant.block[1] : br;
	if (qa_ckd_mul(&nb, ceil_div(p.r, br), ceil_div(p.c, bc)) ||
	    qa_ckd_mul(&nb, nb, p.e))
		return false;
	/* ModelOpt FP8_PB_WO writes [out/128, 1, in/128, 1]. */
	if (ws->elements == nb &&
	    ws->n_dims >= 2) {
		d->group = (int)br;
		d->scheme = block_scheme;
		d->label = br == bc ?
			qa_arena_printf(&c->inv->arena, "%s block %llu", kind,
					(unsigned long long)br) :
			qa_arena_printf(&c->inv->arena, "%s block %llux%llu",
					kind, (unsigned long long)br,
					(unsigned long long)bc);
		return finish(d);
	}
	return false;
}

/*
 * MLX (mlx/ops.cpp affine_quantize and fp_quantize; mlx/nn/layers/
 * quantized.py QuantizedLinear, QuantizedEmbedding; mlx-lm
 * models/switch_layers.py QuantizedSwitchLinear for [E, out, in]):
 * weight U32 [.., out, in * bits / 32], scales [.., out, in / g].
 * affine: scales and biases in the float dtype of the model, g in
 * {32, 64, 128}, bits in {2, 3, 4, 5, 6, 8} (ops.cpp affine_quantize's
 * checks). mxfp4 / nvfp4 / mxfp8: U8 scales (E8M0, or E4M3 for nvfp4),
 * no biases, and exactly one (bits, g) each: (4, 32), (4, 16), (8, 32)
 * (ops.cpp fp_quantize); nvfp4 may add a global_scale.
 *
 * The input size is not stored: MLX's loader takes it from the model
 * class (mlx-lm utils.py infer_quant_config: in from the module, bits =
 * weight columns * 32 / in). Here the bits come from the config (the
 * module's own entry, else the global one) and in = columns * 32 / bits;
 * without a usable claim, the one (bits, g) pair MLX allows for these
 * shapes, else nothing (unknown): never a guess between two.
 */
static bool
mlx_affine_fits(uint64_t wc, uint64_t n, int bits, uint64_t *in, uint64_t *g)
{
	uint64_t x;

	if (bits < 2 || bits > 8 || bits == 7 || n == 0)
		return false;
	if (qa_ckd_mul(&x, wc, 32) || x % (uint64_t)bits)
		return false;
	x /= (uint64_t)bits;
	if (x % n)
		return false;
	*in = x;
	*g = x / n;
	return *g == 32 || *g == 64 || *g == 128;
}

/*
 * The (bits, g) of an affine module: the config's pair when the shapes
 * fit it; else the one pair MLX allows that keeps the declared group
 * (the bits are then not the claimed ones: check_quant says so), else
 * the one that keeps the claimed bits, else the only pair at all.
 * Two readings left: unknown.
 */
static bool
mlx_affine_pick(const struct ctx *c, uint64_t wc, uint64_t n, int *bits,
		uint64_t *in, uint64_t *g)
{
	static const int all_bits[] = { 2, 3, 4, 5, 6, 8 };
	int cand_b[6], n_cand = 0, pick = -1, hits, k;
	uint64_t cand_in[6], cand_g[6], ti, tg;
	size_t i;

	for (i = 0; i < sizeof(all_bits) / sizeof(all_bits[0]); i++)
		if (mlx_affine_fits(wc, n, all_bits[i], &ti, &tg)) {
			cand_b[n_cand] = all_bits[i];
			cand_in[n_cand] = ti;
			cand_g[n_cand++] = tg;
		}
	for (k = 0; k < n_cand && pick < 0; k++)
		if (cand_b[k] == c->config_bits &&
		    (int64_t)cand_g[k] == c->config_group)
			pick = k;
	for (hits = 0, k = 0; pick < 0 && k < n_cand; k++)
		if ((int64_t)cand_g[k] == c->config_group)
			hits++;
	for (k = 0; pick < 0 && hits == 1 && k < n_cand; k++)
		if ((int64_t)cand_g[k] == c->config_group)
			pick = k;
	for (hits = 0, k = 0; pick < 0 && k < n_cand; k++)
		if (cand_b[k] == c->config_bits)
			hits++;
	for (k = 0; pick < 0 && hits == 1 && k < n_cand; k++)
		if (cand_b[k] == c->config_bits)
			pick = k;
	if (pick < 0 && n_cand == 1)
		pick = 0;
	if (pick < 0)
		return false;
	*bits = cand_b[pick];
	*in = cand_in[pick];
	*g = cand_g[pick];
	return true;
}

static bool
same_mat(struct mat a, struct mat b)
{
	return a.ok && b.ok && a.e == b.e && a.r == b.r && a.c == b.c;
}

static bool
decide_mlx(struct ctx *c, struct decision *d, const struct qa_tensor *w,
	   const struct qa_tensor *sc)
{
	const struct qa_tensor *bi = slot(c, S_MLX_BIASES);
	struct mat p = mat_of(w), s = mat_of(sc);
	uint64_t in = 0, g = 0;
	int bits = -1;

	if (!s.ok || w->n_dims < 2 || sc->n_dims != w->n_dims ||
	    s.r != p.r || s.e != p.e || s.c == 0 || p.c == 0)
		return false;
	d->experts = p.e;
	d->out = p.r;
	if (is_float(sc->dtype)) {
		if (!bi || strcmp(bi->dtype, sc->dtype) != 0 ||
		    bi->n_dims != sc->n_dims || !same_mat(mat_of(bi), s))
			return false;
		if (!mlx_affine_pick(c, p.c, s.c, &bits, &in, &g))
			return false;
		d->scheme = QA_SCHEME_MLX_AFFINE;
		d->label = qa_arena_printf(&c->inv->arena, "MLX int%d g%d",
					   bits, (int)g);
	} else if (strcmp(sc->dtype, "U8") == 0 && !bi) {
		/* weight columns per scale column: bits * g / 32 */
		if (p.c == 2 * s.c) {
			d->scheme = QA_SCHEME_MLX_NVFP4;
			bits = 4;
			g = 16;
			d->label = "MLX nvfp4";
		} else if (p.c == 4 * s.c) {
			d->scheme = QA_SCHEME_MLX_MXFP4;
			bits = 4;
			g = 32;
			d->label = "MLX mxfp4";
		} else if (p.c == 8 * s.c) {
			d->scheme = QA_SCHEME_MLX_MXFP8;
			bits = 8;
			g = 32;
			d->label = "MLX mxfp8";
		} else {
			return false;
		}
		if (qa_ckd_mul(&in, s.c, g))
			return false;
	} else {
		return false;
	}
	if (slot(c, S_MLX_GLOBAL_SCALE) && d->scheme != QA_SCHEME_MLX_NVFP4)
		return false;
	d->bits = bits;
	d->group = (int)g;
	d->in = in;
	return finish(d);
}

/*
 * Tensors named weight with quantization siblings: ModelOpt NVFP4
 * (modelopt.py create_weights; quant_utils.py to_quantized_weight),
 * DeepSeek block FP8 (DeepSeek-V3 README_WEIGHTS.md), FP8/INT8 float- and
 * int-quantized, MXFP8 (compressors/mxfp8/base.py), ModelOpt INT4-AWQ,
 * bitsandbytes int8 and 4-bit, or a dense weight.
 */
static bool decide_dense(struct decision *d, const struct qa_tensor *w);

/*
 * AMD Quark's packed integers (amd-quark 0.13 quark/torch/export/
 * safetensors export, pack_method "reorder"; quark/torch/utils/pack.py):
 * AWQ GEMM's layout under Quark's names, weight I32 [in, out*b/32]
 * (32/b values a word along the output, in AWQ's order), weight_scale
 * [in/g, out], weight_zero_point I32 [in/g, out*b/32] when asymmetric;
 * so b = 32 * weight cols / scale cols, as for AWQ GEMM.
 */
/*
 * Quark's per-channel and per-tensor integers are not transposed (only
 * per_group is, pack.py Pack_4_bits.transpose): weight I32 [out,
 * in*b/32], weight_scale [out] (ch_axis 0) or a scalar, and
 * weight_zero_point I32 packed the same way, [out*b/32] or a scalar
 * (pack.py PackMethod._infer_scale_zero_point_shape). b is the zero
 * point's (32 * its length / out) when it has one per row, else the
 * config's.
 */
static bool
decide_quark_rows(struct ctx *c, struct decision *d, const struct qa_tensor *w,
		  const struct qa_tensor *ws, const struct qa_tensor *zp)
{
	struct mat p = mat_of(w);
	uint64_t ns = ws->n_dims == 0 ? 1 : ws->shape[0], x;
	bool channel = ws->n_dims == 1 && ns > 1;
	int b = c->config_bits;

	if (!p.ok || p.r == 0 || p.c == 0 || ws->n_dims > 1 ||
	    !is_float(ws->dtype) || (channel && ns != p.r))
		return false;
	if (zp && (strcmp(zp->dtype, "I32") != 0 || zp->n_dims > 1))
		return false;
	if (zp && channel) {
		if (zp->n_dims != 1 || (32 * zp->shape[0]) % p.r)
			return false;
		b = (int)(32 * zp->shape[0] / p.r);
	}
	if (b < 2 || b > 8 || 32 % b || qa_ckd_mul(&x, p.c, 32) ||
	    x % (uint64_t)b)
		return false;
	d->scheme = QA_SCHEME_QUARK_INT;
	d->bits = b;
	d->experts = 1;
	d->out = p.r;
	d->in = x / (uint64_t)b;
	d->group = 0;
	d->label = qa_arena_printf(&c->inv->arena, "Quark int%d %s", b,
				   channel ? "channel" : "tensor");
	return finish(d);
}

static bool
decide_quark(struct ctx *c, struct decision *d, const struct qa_tensor *w,
	     const struct qa_tensor *ws, const struct qa_tensor *zp)
{
	struct mat p = mat_of(w), s = mat_of(ws), z = { 0 };
	uint64_t g;
	int b;

	if (ws->n_dims < 2)
		return decide_quark_rows(c, d, w, ws, zp);
	if (!p.ok || !s.ok || ws->n_dims != 2 || p.r == 0 || p.c == 0 ||
	    s.r == 0 || s.c == 0 || !is_float(ws->dtype) ||
	    (32 * p.c) % s.c)
		return false;
	b = (int)(32 * p.c / s.c);
	if (b < 2 || b > 8 || 32 % b)
		return false;
	if (zp) {
		z = mat_of(zp);
		if (!z.ok || zp->n_dims != 2 || z.r != s.r || z.c != p.c ||
		    strcmp(zp->dtype, "I32") != 0)
			return false;
	}
	d->scheme = QA_SCHEME_QUARK_INT;
	d->bits = b;
	d->experts = 1;
	d->out = s.c;
	d->in = p.r;
	if (!group_of(c, d->in, s.r, &g))
		return false;
	d->group = (int)g;
	d->label = qa_arena_printf(&c->inv->arena, "Quark int%d %s", b,
				   group_text(c->inv, d->group));
	return finish(d);
}

static bool
decide_weight(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *w = slot(c, S_WEIGHT);
	const struct qa_tensor *ws = slot(c, S_WEIGHT_SCALE);
	const struct qa_tensor *sinv = slot(c, S_WEIGHT_SCALE_INV);
	const struct qa_tensor *s2 = slot(c, S_WEIGHT_SCALE_2);
	const struct qa_tensor *pq = slot(c, S_PRE_QUANT_SCALE);
	struct mat p = mat_of(w);
	static const enum sfx meta_only[] = {
		S_QZEROS, S_SCALES, S_G_IDX, S_WEIGHT_SHAPE, S_WEIGHT_ZP,
		S_WEIGHT_G_IDX, S_WEIGHT_GLOBAL_SCALE, S_INPUT_GLOBAL_SCALE,
		S_WEIGHT_SCALE, S_WEIGHT_SCALE_INV, S_WEIGHT_SCALE_2,
		S_PRE_QUANT_SCALE, S_SCB, S_WEIGHT_FORMAT, S_BNB_ABSMAX,
		S_BNB_QUANT_MAP, S_BNB_NESTED_ABSMAX, S_BNB_NESTED_QUANT_MAP,
		S_BNB_QUANT_STATE, S_AUX, S_MLX_BIASES, S_MLX_GLOBAL_SCALE,
		S_EXL2_SCALE_MAX, S_EXL2_GROUPS, S_EXL2_INVPERM, S_EXL2_PERM,
		S_EXL3_SUH, S_EXL3_SVH, S_EXL3_SU, S_EXL3_SV, S_EXL3_CODEBOOK,
		S_HQQ_ZERO, S_HQQ_NBITS, S_HQQ_GROUP, S_HQQ_AXIS, S_HQQ_SHAPE,
		S_HQQ_META, S_TAO_SCALE, S_TAO_ZP, S_QQQ_SCHANNEL, S_QQQ_SGROUP,
		S_PARO_META,
	};
	size_t i;

	if (!p.ok)
		return false;
	if (slot(c, S_SCALES) && strcmp(w->dtype, "U32") == 0)
		return decide_mlx(c, d, w, slot(c, S_SCALES));
	if (slot(c, S_BNB_ABSMAX) || slot(c, S_BNB_QUANT_STATE)) {
		/* bnb 4-bit: weight U8 [(n+1)/2, 1], absmax
		 * [ceil(n/blocksize)]. The logical shape is in the
		 * quant_state JSON (data, not header): n = 2 * rows,
		 * exact for even n (every Linear we know). */
		const struct qa_tensor *am = slot(c, S_BNB_ABSMAX);
		const struct qa_tensor *qs = slot(c, S_BNB_QUANT_STATE);
		uint64_t n, bs;

		if (strcmp(w->dtype, "U8") != 0 || w->n_dims != 2 ||
		    p.c != 1 || !am || qa_ckd_mul(&n, p.r, 2) || n == 0)
			return false;
		d->scheme = QA_SCHEME_BNB_4BIT;
		d->bits = 4;
		d->group = -1;
		for (bs = 32; bs <= 4096; bs *= 2)
			if (ceil_div(n, bs) == am->elements) {
				d->group = (int)bs;
				break;
			}
		d->experts = 1;
		d->out = n;
		d->in = 1;
		d->label = qs && strstr(qs->name, "__fp4") ? "bnb fp4" :
							    "bnb nf4";
		return finish(d);
	}
	if (slot(c, S_SCB)) {
		/* bnb int8: weight I8 [out, in], SCB F32 [out]. */
		const struct qa_tensor *scb = slot(c, S_SCB);

		if (strcmp(w->dtype, "I8") != 0 || w->n_dims != 2 ||
		    scb->elements != p.r)
			return false;
		d->scheme = QA_SCHEME_BNB_8BIT;
		d->bits = 8;
		d->group = 0;
		d->experts = 1;
		d->out = p.r;
		d->in = p.c;
		d->label = "bnb int8";
		return finish(d);
	}
	if (s2) {
		/* ModelOpt NVFP4: weight U8 [out, in/2], weight_scale
		 * F8_E4M3 [out, in/16], weight_scale_2 F32 scalar; no
		 * input_scale means W4A16_NVFP4. */
		struct mat s;

		if (!ws || strcmp(w->dtype, "U8") != 0 ||
		    strcmp(ws->dtype, "F8_E4M3") != 0 || w->n_dims < 2)
			return false;
		s = mat_of(ws);
		d->experts = p.e;
		d->out = p.r;
		d->in = p.c * 2;
		if (s.r != p.r || s.c != ceil_div(d->in, 16))
			return false;
		d->scheme = QA_SCHEME_NVFP4;
		d->bits = 4;
		d->group = 16;
		d->label = slot(c, S_INPUT_SCALE) ? "NVFP4" : "NVFP4A16";
		return finish(d);
	}
	if (sinv) {
		if (!is_fp8(w->dtype))
			return false;
		d->scheme = QA_SCHEME_FP8;
		if (!decide_scaled(c, d, "FP8", QA_SCHEME_FP8_BLOCK, w, sinv) ||
		    d->scheme != QA_SCHEME_FP8_BLOCK)
			return false;
		return true;
	}
	if (ws && pq) {
		/* ModelOpt W4A16_AWQ: weight U8 [out/2, in] (two output
		 * rows per byte), weight_scale [out, in/g],
		 * pre_quant_scale [in]. */
		struct mat s = mat_of(ws);

		if (strcmp(w->dtype, "U8") != 0 || w->n_dims != 2 ||
		    s.r != 2 * p.r || s.c == 0 || p.c % s.c)
			return false;
		d->scheme = QA_SCHEME_INT4_MODELOPT;
		d->bits = 4;
		d->experts = 1;
		d->out = 2 * p.r;
		d->in = p.c;
		d->group = (int)(p.c / s.c);
		d->label = qa_arena_printf(&c->inv->arena, "INT4-AWQ g%d",
					   d->group);
		return finish(d);
	}
	if (ws && strcmp(w->dtype, "I32") == 0 && w->n_dims == 2)
		return decide_quark(c, d, w, ws, slot(c, S_WEIGHT_ZP));
	if (ws) {
		if (is_fp8(w->dtype) && is_e8m0(ws->dtype)) {
			struct mat s = mat_of(ws);

			if (w->n_dims < 2 || s.r != p.r ||
			    s.c != ceil_div(p.c, 32))
				return false;
			d->scheme = QA_SCHEME_MXFP8;
			d->bits = 8;
			d->group = 32;
			d->experts = p.e;
			d->out = p.r;
			d->in = p.c;
			d->label = "MXFP8";
			return finish(d);
		}
		if (is_fp8(w->dtype)) {
			d->scheme = QA_SCHEME_FP8;
			return decide_scaled(c, d, "FP8", QA_SCHEME_FP8_BLOCK,
					     w, ws);
		}
		if (strcmp(w->dtype, "I8") == 0) {
			d->scheme = QA_SCHEME_INT8;
			return decide_scaled(c, d, "INT8", QA_SCHEME_INT8, w,
					     ws);
		}
		return false;
	}
	/* Dense: a float weight with at most bias / activation scales. */
	for (i = 0; i < sizeof(meta_only) / sizeof(meta_only[0]); i++)
		if (group_slot(c->m, c->g, meta_only[i]) >= 0)
			return false;
	return decide_dense(d, w);
}

/* An unquantized tensor: its dtype is the precision. */
static bool
decide_dense(struct decision *d, const struct qa_tensor *w)
{
	uint32_t i;

	if (!is_float(w->dtype) || w->n_dims == 0)
		return false;
	d->scheme = QA_SCHEME_DENSE;
	d->bits = (int)qa_st_dtype(w->dtype)->bits;
	d->group = 0;
	d->label = w->dtype;
	/* Fused expert stacks [E, out, in] (transformers MoE
	 * gate_up_proj); other tensors fold every dim after the first
	 * into in, so out * in * experts == elements. */
	d->experts = 1;
	d->out = w->shape[0];
	d->in = 1;
	if (w->n_dims == 3 && (w->role == QA_ROLE_EXPERT_GATE ||
			       w->role == QA_ROLE_EXPERT_UP ||
			       w->role == QA_ROLE_EXPERT_DOWN ||
			       w->role == QA_ROLE_EXPERT_GATE_UP)) {
		d->experts = w->shape[0];
		d->out = w->shape[1];
		d->in = w->shape[2];
	} else {
		for (i = 1; i < w->n_dims; i++)
			if (qa_ckd_mul(&d->in, d->in, w->shape[i]))
				return false;
	}
	if (w->elements == 0)
		return false;
	return finish(d);
}

/* gpt-oss MXFP4 experts: <name>_blocks U8 [E, rows, in/32, 16],
 * <name>_scales U8 [E, rows, in/32] (openai/gpt-oss gpt_oss/torch/
 * weights.py _get_mxfp4_tensor; llama.cpp conversion/gpt_oss.py). */
static bool
decide_blocks(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *b = slot(c, S_BLOCKS);
	const struct qa_tensor *s = slot(c, S_GLUED_SCALES);
	uint32_t n = b->n_dims, k;
	uint64_t e = 1;

	if (!s || strcmp(b->dtype, "U8") != 0 || !is_e8m0(s->dtype) ||
	    n < 3 || s->n_dims != n - 1 || b->shape[n - 1] != 16)
		return false;
	for (k = 0; k + 1 < n; k++)
		if (s->shape[k] != b->shape[k])
			return false;
	for (k = 0; k + 3 < n; k++)
		if (qa_ckd_mul(&e, e, b->shape[k]))
			return false;
	d->scheme = QA_SCHEME_MXFP4;
	d->bits = 4;
	d->group = 32;
	d->experts = e;
	d->out = b->shape[n - 3];
	if (qa_ckd_mul(&d->in, b->shape[n - 2], 32))
		return false;
	d->label = "MXFP4";
	return finish(d);
}

/*
 * ExLlamaV2 (turboderp-org/exllamav2 exllamav2/conversion/adaptivegptq.py
 * AdaptiveGPTQ.pack l.608-674, commit da07facd): for a Linear of in
 * inputs ("rows") and out outputs ("columns", padded to a multiple of 32,
 * l.625; exllamav2/linear.py l.82-89), split into G groups of rows each
 * quantized at its own bits (configure l.166-194; the group sizes per
 * bits come from conversion/qparams.py):
 *   q_invperm I32 [in]            the activation-order permutation
 *   q_scale_max F16 [G]           one max scale per group
 *   q_groups I16 [2G]             (bits, first q_weight row) per group
 *   q_scale I32 [G, out/8]        4-bit scales, 8 per word (l.635-637)
 *   q_weight I32 [R, out]         R = sum over groups of rows * bits / 32
 *                                 (l.644-672: each group packed along
 *                                 the input, 32 / bits values per word)
 * q_perm is not stored: the loader makes it from q_invperm (exllamav2/
 * module.py l.118-121), but a q_perm tensor is read if present. So
 * in = q_invperm's length, out = q_weight's columns, and the payload's
 * mean bits are R * 32 / in: whole when every group has the same bits.
 * G is the number of groups (q_scale_max's length).
 */
static bool
decide_exl2(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *qw = slot(c, S_EXL2_QWEIGHT);
	const struct qa_tensor *sc = slot(c, S_KV_SCALE);
	const struct qa_tensor *sm = slot(c, S_EXL2_SCALE_MAX);
	const struct qa_tensor *gr = slot(c, S_EXL2_GROUPS);
	const struct qa_tensor *ip = slot(c, S_EXL2_INVPERM);
	struct mat q, s;
	uint64_t in, groups, bits32, centi;
	size_t n;

	if (!ip)
		ip = slot(c, S_EXL2_PERM);
	if (!sc || !sm || !gr || !ip || strcmp(qw->dtype, "I32") != 0 ||
	    qw->n_dims != 2 || sc->n_dims != 2 || sm->n_dims != 1 ||
	    gr->n_dims != 1 || ip->n_dims != 1 ||
	    strcmp(sc->dtype, "I32") != 0 || strcmp(sm->dtype, "F16") != 0 ||
	    strcmp(gr->dtype, "I16") != 0)
		return false;
	n = strlen(sc->name);
	if (n < 8 || strcmp(sc->name + n - 8, ".q_scale") != 0)
		return false;
	q = mat_of(qw);
	s = mat_of(sc);
	in = ip->shape[0];
	groups = sm->shape[0];
	if (!q.ok || !s.ok || q.r == 0 || q.c == 0 || in == 0 ||
	    in > MAX_DIM || groups == 0 || s.r != groups ||
	    gr->shape[0] != 2 * groups || s.c * 8 != q.c || groups > in)
		return false;
	/* 2..8 bits per weight on average (qparams.py: bits 2-8) */
	bits32 = q.r * 32;
	if (bits32 < 2 * in || bits32 > 8 * in)
		return false;
	d->scheme = QA_SCHEME_EXL2;
	d->experts = 1;
	d->out = q.c;
	d->in = in;
	d->bits = bits32 % in == 0 ? (int)(bits32 / in) : -1;
	/* groups may differ in size inside one layer (qparams.py l.254:
	 * [32, 64, 64] for 6, 3 and 2 bits), and only q_groups' values
	 * say which: the size is not read from the shapes */
	d->group = -1;
	/* the mean to two decimals, as exllamav2 prints bpw (Python's
	 * format: an exact tie rounds to even) */
	centi = bits32 * 100 / in;
	if (2 * (bits32 * 100 % in) > in ||
	    (2 * (bits32 * 100 % in) == in && (centi & 1)))
		centi++;
	d->label = qa_arena_printf(&c->inv->arena, "EXL2 %u.%02u-bit, "
				   "%llu groups", (unsigned)(centi / 100),
				   (unsigned)(centi % 100),
				   (unsigned long long)groups);
	return finish(d);
}

/*
 * ExLlamaV3 (turboderp-org/exllamav3 exllamav3/modules/quant/exl3_lib/
 * quantize.py quantize_exl3 l.1400-1424 and pack_trellis l.927-938,
 * commit 4f8ad012; loaded by exllamav3/modules/linear.py load_exl3
 * l.383-425 and LinearEXL3 l.38-47): for a weight of in x out, in 16x16
 * tiles of 256 values encoded at K bits each,
 *   trellis I16 [in/16, out/16, 256 * K / 16]
 *   suh F16 [in], svh F16 [out]   input / output sign flips (or, in
 *                                 older files, su / sv I16 [in/16],
 *                                 [out/16]: 16 sign bits per word)
 *   mcg / mul1 I32 scalar          which codebook (present or not)
 * so K = trellis's last dim / 16 (exllamav3/conversion/quant_config.py
 * l.33-40 writes bits_per_weight = shape[-1] // 16), in = 16 * dim0,
 * out = 16 * dim1. No scale groups: one trellis per 16x16 tile.
 */
static bool
decide_exl3(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *tr = slot(c, S_EXL3_TRELLIS);
	const struct qa_tensor *u = slot(c, S_EXL3_SUH);
	const struct qa_tensor *v = slot(c, S_EXL3_SVH);
	const struct qa_tensor *cb = slot(c, S_EXL3_CODEBOOK);
	uint64_t in, out, k;

	if (strcmp(tr->dtype, "I16") != 0 || tr->n_dims != 3 ||
	    tr->shape[0] == 0 || tr->shape[1] == 0 ||
	    tr->shape[0] > MAX_DIM || tr->shape[1] > MAX_DIM ||
	    tr->shape[2] % 16 != 0)
		return false;
	k = tr->shape[2] / 16;
	if (k < 1 || k > 8)
		return false;
	in = tr->shape[0] * 16;
	out = tr->shape[1] * 16;
	if (u) {
		if (strcmp(u->dtype, "F16") != 0 || u->n_dims != 1 ||
		    u->shape[0] != in)
			return false;
	} else {
		u = slot(c, S_EXL3_SU);
		if (!u || strcmp(u->dtype, "I16") != 0 || u->n_dims != 1 ||
		    u->shape[0] != in / 16)
			return false;
	}
	if (v) {
		if (strcmp(v->dtype, "F16") != 0 || v->n_dims != 1 ||
		    v->shape[0] != out)
			return false;
	} else {
		v = slot(c, S_EXL3_SV);
		if (!v || strcmp(v->dtype, "I16") != 0 || v->n_dims != 1 ||
		    v->shape[0] != out / 16)
			return false;
	}
	if (cb && (strcmp(cb->dtype, "I32") != 0 || cb->elements != 1))
		return false;
	d->scheme = QA_SCHEME_EXL3;
	d->experts = 1;
	d->in = in;
	d->out = out;
	d->bits = (int)k;
	d->group = 0;
	d->label = qa_arena_printf(&c->inv->arena, "EXL3 %d-bit%s", (int)k,
				   !cb ? "" : strstr(cb->name, ".mcg") ?
				   " mcg" : " mul1");
	return finish(d);
}

/*
 * HQQ (mobiusml/hqq, commit e0b1d00e): Quantizer.quantize (hqq/core/
 * quantize.py l.86-190) reshapes a weight of out x in into groups of g
 * values (axis 1: W.reshape(-1, g), one group per row; axis 0:
 * W.reshape(g, -1), one per column), keeps one scale and one zero per
 * group (BF16/F16 [N, 1] or [1, N], N = out * in / g) and packs the
 * integers along dim 0 (bit_to_packing l.40-49; hqq/core/bitpack.py):
 *   8bit_u8 (nbits 8, 6, 5)  U8 rows = N       (axis 1; g for axis 0)
 *   4bit_u8                  U8 rows = N / 2
 *   3bit_32                  I32 rows = ceil(N / 10), 10 values a word
 *   2bit_u8 (2, 1.58)        U8 rows = N / 4
 *   1bit_u8                  U8 rows = N / 8
 * W_q's other dim is g (axis 1) or N (axis 0). view_as_float stores the
 * same bytes as the compute dtype, so sizes are checked in bytes. The
 * bits, group size, axis and (out, in) are tensors of their own whose
 * values formats/st_values.c reads; without them (a read that failed)
 * the config's bits and group size stand in, and an axis-1 U8 W_q still
 * tells g and the packing (5, 6 and 8 bits share 8bit_u8: then the bits
 * stay unknown), while axis 0 says nothing more and stays unknown.
 */
/* A value read from the file, or -1 when there is none; a value out of
 * [1, max] is INT64_MIN: the layer says something HQQ never writes. */
static int64_t
value_of(const struct qa_tensor *t, uint64_t i, int64_t max)
{
	if (!t || !t->value || i >= t->elements)
		return -1;
	return t->value[i] >= 0 && t->value[i] <= max ? t->value[i] :
							  INT64_MIN;
}

/* Stored bytes HQQ packs n values of nbits into, for m columns. */
static bool
hqq_bytes(int nbits, uint64_t n, uint64_t m, uint64_t *bytes)
{
	uint64_t rows;

	switch (nbits) {
	case 8: case 6: case 5: rows = n; break;
	case 4: rows = n / 2; break;
	case 2: rows = n / 4; break;
	case 1: rows = n / 8; break;
	case 3:
		if (qa_ckd_mul(&rows, ceil_div(n, 10), 4))
			return false;
		break;
	default: return false;
	}
	return !qa_ckd_mul(bytes, rows, m);
}

static bool
decide_hqq(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *wq = slot(c, S_HQQ_WQ);
	const struct qa_tensor *sc = slot(c, S_GGUF_SCALE);
	const struct qa_tensor *zr = slot(c, S_HQQ_ZERO);
	const struct qa_tensor *sh = slot(c, S_HQQ_SHAPE);
	int64_t nbits = value_of(slot(c, S_HQQ_NBITS), 0, 8);
	int64_t g = value_of(slot(c, S_HQQ_GROUP), 0, INT32_MAX);
	int64_t axis = value_of(slot(c, S_HQQ_AXIS), 0, 1);
	int64_t out = value_of(sh, 0, INT64_MAX), in = value_of(sh, 1, INT64_MAX);
	uint64_t n, params, bytes, packed;
	bool u8;

	if (nbits == INT64_MIN || nbits == 0 || g == INT64_MIN || g == 0 ||
	    axis == INT64_MIN || out == INT64_MIN || in == INT64_MIN ||
	    out == 0 || in == 0)
		return false;
	if (!sc || !zr || wq->n_dims != 2 || sc->n_dims != 2 ||
	    zr->elements != sc->elements || sc->elements == 0 ||
	    !is_float(sc->dtype))
		return false;
	n = sc->elements;
	if (axis < 0)
		axis = sc->shape[1] == 1 && sc->shape[0] > 1 ? 1 :
		       sc->shape[0] == 1 && sc->shape[1] > 1 ? 0 : -1;
	if (axis != 0 && axis != 1)
		return false;
	if (nbits < 0)
		nbits = c->config_bits;
	if (g < 0)
		g = c->config_group;
	u8 = strcmp(wq->dtype, "U8") == 0;
	if (g <= 0 && axis == 1 && (u8 || strcmp(wq->dtype, "I32") == 0))
		g = (int64_t)wq->shape[1];
	if (g <= 0 || g > INT32_MAX || qa_ckd_mul(&params, n, (uint64_t)g))
		return false;
	packed = axis == 1 ? n : (uint64_t)g;
	if (nbits < 0 && u8 && axis == 1) {
		/* the packing from the byte count: 8bit_u8 leaves 5, 6 and
		 * 8 bits apart from nothing but the nbits tensor */
		if (wq->bytes == params / 2)
			nbits = 4;
		else if (wq->bytes == params / 4)
			nbits = 2;
		else if (wq->bytes == params / 8)
			nbits = 1;
	}
	if (nbits > 0) {
		if (!hqq_bytes((int)nbits, packed, axis == 1 ? (uint64_t)g : n,
			       &bytes) || bytes != wq->bytes)
			return false;
	} else if (!(u8 && axis == 1 && wq->bytes == params)) {
		return false;
	}
	d->scheme = QA_SCHEME_HQQ;
	d->experts = 1;
	d->bits = nbits > 0 ? (int)nbits : -1;
	d->group = (int)g;
	if (out > 0 && in > 0 && sh->elements == 2) {
		uint64_t p;

		d->out = (uint64_t)out;
		d->in = (uint64_t)in;
		if (qa_ckd_mul(&p, d->out, d->in) || p != params)
			return false;
	} else {
		/* the shape tensor unread: the count is still exact */
		d->out = params;
		d->in = 1;
	}
	d->axis = (int)axis;
	d->label = d->bits > 0 ?
		qa_arena_printf(&c->inv->arena, "HQQ int%d g%d%s", d->bits,
				d->group, axis == 0 ? " axis 0" : "") :
		qa_arena_printf(&c->inv->arena, "HQQ 8bit_u8 (5-8 bits) g%d%s",
				d->group, axis == 0 ? " axis 0" : "");
	return finish(d);
}

/*
 * torchao, saved by transformers as safetensors (the tensor subclass of
 * each quantized weight flattened into its data tensors, pytorch/ao
 * torchao/prototype/safetensors/safetensors_support.py, the subclass and
 * its block_size in the header's __metadata__):
 *   Int8Tensor                qdata I8 [out, in], scale [out, in/g]
 *                             (F32 [out, 1] per row), zero_point I8
 *   IntxUnpackedToInt8Tensor  the same, one int1-int8 value per int8
 *                             (torchao/quantization/quantize_/workflows/
 *                             intx/intx_unpacked_to_int8_tensor.py):
 *                             the config's weight_dtype gives the bits
 *   Float8Tensor              qdata F8_E4M3 [out, in], scale [out, 1]
 * Packed subclasses (Int4Tensor and the other int4 layouts write U8 or
 * I32 qdata) are not read: they stay unknown, and named.
 */
static bool
decide_torchao(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *qd = slot(c, S_TAO_QDATA);
	const struct qa_tensor *sc = slot(c, S_TAO_SCALE);
	const struct qa_tensor *zp = slot(c, S_TAO_ZP);
	uint64_t out, in, groups;
	bool fp8 = is_fp8(qd->dtype);

	if (!sc || qd->n_dims != 2 || (!fp8 && strcmp(qd->dtype, "I8") != 0))
		return false;
	out = qd->shape[0];
	in = qd->shape[1];
	if (sc->n_dims == 2 && sc->shape[0] == out)
		groups = sc->shape[1];
	else if ((sc->n_dims == 1 && sc->shape[0] == out) ||
		 sc->elements == 1)
		groups = 1;
	else
		return false;
	if (zp && zp->elements != sc->elements)
		return false;
	if (!group_of(c, in, groups, &groups))
		return false;
	/* two schemes: vLLM builds a fused layer with one method, and
	 * Float8Tensor parts beside Int8Tensor ones are two (QA3003) */
	d->scheme = fp8 ? QA_SCHEME_TORCHAO_FP8 : QA_SCHEME_TORCHAO;
	d->experts = 1;
	d->out = out;
	d->in = in;
	d->group = sc->elements == 1 ? 0 : (int)groups;
	d->bits = !fp8 && c->config_bits >= 1 && c->config_bits <= 8 ?
		  c->config_bits : 8;
	if (fp8)
		d->label = qa_arena_printf(&c->inv->arena, "torchao FP8 %s",
					   group_text(c->inv, d->group));
	else if (d->bits == 8)
		d->label = qa_arena_printf(&c->inv->arena, "torchao int8 %s",
					   group_text(c->inv, d->group));
	else
		d->label = qa_arena_printf(&c->inv->arena, "torchao int%d %s "
					   "(int8-stored)", d->bits,
					   group_text(c->inv, d->group));
	return finish(d);
}

/*
 * GPTQModel QQQ, W4A8 (gptqmodel/nn_modules/qlinear/qqq.py QQQQuantLinear
 * l.138-164, after vLLM's QQQ Marlin kernel): B I32 [in/16, out*16/8]
 * (16x16 tiles of 4-bit codes, 8 a word), s_channel F32 [1, out],
 * s_group F16 [in/g, out] for g = 128, or empty for per-channel. 4-bit
 * only (SUPPORTS_BITS [4]).
 */
static bool
decide_qqq(struct ctx *c, struct decision *d)
{
	const struct qa_tensor *b = slot(c, S_QQQ_B);
	const struct qa_tensor *sc = slot(c, S_QQQ_SCHANNEL);
	const struct qa_tensor *sg = slot(c, S_QQQ_SGROUP);
	struct mat q;
	uint64_t out, in, g = 0;

	if (!b || strcmp(b->dtype, "I32") != 0 || b->n_dims != 2 ||
	    sc->n_dims != 2 || sc->shape[0] != 1)
		return false;
	q = mat_of(b);
	out = sc->shape[1];
	if (!q.ok || out == 0 || q.c != 2 * out || q.r == 0 ||
	    qa_ckd_mul(&in, q.r, 16))
		return false;
	/* groups of 128 exactly (SUPPORTS_GROUP_SIZE [-1, 128]) */
	if (sg && sg->elements > 0) {
		if (sg->n_dims != 2 || sg->shape[1] != out ||
		    sg->shape[0] == 0 || in != 128 * sg->shape[0])
			return false;
		g = 128;
	}
	d->scheme = QA_SCHEME_QQQ;
	d->bits = 4;
	d->group = (int)g;
	d->experts = 1;
	d->out = out;
	d->in = in;
	d->label = qa_arena_printf(&c->inv->arena, "QQQ int4 %s",
				   group_text(c->inv, d->group));
	return finish(d);
}

/*
 * GPTQModel's GGUF format (gptqmodel/nn_modules/qlinear/gguf.py
 * _allocate_buffers): one qweight U8 [out, ceil(in/B)*S] of llama.cpp
 * blocks per Linear, B values in S bytes, the type from the config's
 * bits alias (_GGUF_BITS_ALIAS_TO_TENSOR_QTYPE); no scales beside it
 * (they are inside the blocks). B and S are ggml's (core/dtypes.c) but
 * for GPTQModel's own 1-bit types, which are not upstream's Q1_0
 * (_GGUF_TYPE_INFO: Q1_0 32 values in 6 bytes, Q1_0_g128 128 in 18).
 */
static bool
decide_gptqm_gguf(struct ctx *c, struct decision *d)
{
	static const struct {
		const char *alias, *type;
		int bits;
		unsigned block, size;	/* 0: ggml's */
	} types[] = {
		{ "q1_0", "Q1_0", 1, 32, 6 },
		{ "q1_0_g128", "Q1_0_g128", 1, 128, 18 },
		{ "q4_0", "Q4_0", 4, 0, 0 },
		{ "q8_0", "Q8_0", 8, 0, 0 },
		{ "q4_k", "Q4_K", 4, 0, 0 },
		{ "q4_k_s", "Q4_K", 4, 0, 0 },
		{ "q4_k_m", "Q4_K", 4, 0, 0 },
		{ "q5_k", "Q5_K", 5, 0, 0 },
		{ "q5_k_s", "Q5_K", 5, 0, 0 },
		{ "q5_k_m", "Q5_K", 5, 0, 0 },
		{ "q6_k", "Q6_K", 6, 0, 0 },
	};
	const struct qa_tensor *qw = slot(c, S_QWEIGHT);
	const char *alias = c->inv->quant.data_type;
	struct mat q = mat_of(qw);
	uint64_t block, size;
	size_t i;

	if (!alias || strcmp(qw->dtype, "U8") != 0 || qw->n_dims != 2 ||
	    !q.ok || q.r == 0 || q.c == 0)
		return false;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(alias, types[i].alias) == 0)
			break;
	if (i == sizeof(types) / sizeof(types[0]))
		return false;
	block = types[i].block;
	size = types[i].size;
	if (!block) {
		const struct qa_ggml_type *t;

		t = qa_ggml_type_by_name(types[i].type);
		if (!t || !t->block)
			return false;
		block = t->block;
		size = t->block_bytes;
	}
	if (q.c % size)
		return false;
	d->scheme = QA_SCHEME_GPTQM_GGUF;
	d->bits = types[i].bits;
	d->group = (int)block;
	d->experts = 1;
	d->out = q.r;
	/* the input padded to whole blocks, as the buffer is */
	d->in = q.c / size * block;
	d->label = qa_arena_printf(&c->inv->arena, "GGUF %s", types[i].type);
	return finish(d);
}

static void
decide(struct ctx *c, struct decision *d)
{
	bool ok = false;

	memset(d, 0, sizeof(*d));
	d->axis = -1;
	d->scheme = QA_SCHEME_UNKNOWN;
	d->bits = -1;
	d->group = -1;
	d->experts = 1;
	if (slot(c, S_QWEIGHT) && c->inv->quant.method == QA_QM_GPTQM_GGUF &&
	    !slot(c, S_SCALES)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_QWEIGHT);
		ok = decide_gptqm_gguf(c, d);
	} else if (slot(c, S_QWEIGHT)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_QWEIGHT);
		ok = decide_qweight(c, d);
		/* ParoQuant: AWQ GEMM's buffers and a rotation; without it
		 * the layer computes something else: never plain AWQ */
		if (ok && slot(c, S_PARO_META)) {
			ok = d->scheme == QA_SCHEME_AWQ_GEMM;
			d->scheme = QA_SCHEME_PAROQUANT;
			d->label = qa_arena_printf(&c->inv->arena,
						   "ParoQuant int%d %s",
						   d->bits, group_text(c->inv,
						   d->group));
		}
	} else if (slot(c, S_EXL2_QWEIGHT)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_EXL2_QWEIGHT);
		ok = decide_exl2(c, d);
	} else if (slot(c, S_EXL3_TRELLIS)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_EXL3_TRELLIS);
		ok = decide_exl3(c, d);
	} else if (slot(c, S_QQQ_SCHANNEL)) {
		d->payload = (uint32_t)(group_slot(c->m, c->g, S_QQQ_B) >= 0 ?
					group_slot(c->m, c->g, S_QQQ_B) :
					group_slot(c->m, c->g, S_QQQ_SCHANNEL));
		ok = decide_qqq(c, d);
	} else if (slot(c, S_TAO_QDATA)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_TAO_QDATA);
		ok = decide_torchao(c, d);
	} else if (slot(c, S_HQQ_WQ)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_HQQ_WQ);
		ok = decide_hqq(c, d);
	} else if (slot(c, S_WEIGHT_PACKED)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_WEIGHT_PACKED);
		ok = decide_packed(c, d);
	} else if (slot(c, S_BLOCKS)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_BLOCKS);
		ok = decide_blocks(c, d);
	} else if (slot(c, S_WEIGHT)) {
		d->payload = (uint32_t)group_slot(c->m, c->g, S_WEIGHT);
		ok = decide_weight(c, d);
	} else {
		/* A tensor of its own (sinks, A_log, a lone bias): dense if
		 * it is a float. */
		uint32_t t;

		d->payload = c->g->head;
		ok = true;
		for (t = c->g->head; t != UINT32_MAX; t = c->m->next[t])
			if (c->m->sfx[t] != S_NONE && c->m->sfx[t] != S_BIAS)
				ok = false;
		ok = ok && c->g->n == 1 &&
		     decide_dense(d, &c->inv->tensors[d->payload]);
	}
	if (!ok) {
		const struct qa_tensor *p = &c->inv->tensors[d->payload];

		memset(d, 0, sizeof(*d));
		d->axis = -1;
		d->payload = (uint32_t)(p - c->inv->tensors);
		d->scheme = QA_SCHEME_UNKNOWN;
		d->label = "unknown";
		d->bits = -1;
		d->group = -1;
		d->experts = 1;
	}
}

/* ---- modules ---------------------------------------------------------- */

static struct qa_module *
new_module(struct qa_inventory *inv, const char *name, size_t len,
	   uint32_t n_tensors, uint32_t payload)
{
	struct qa_module *mod = &inv->modules[inv->n_modules];
	const struct qa_tensor *p = &inv->tensors[payload];

	memset(mod, 0, sizeof(*mod));
	mod->axis = -1;
	/* A module named as its whole tensor (every GGUF tensor) shares
	 * the tensor's name: both live in the inventory's arena. */
	mod->name = name[len] == '\0' ? name :
		    qa_arena_strndup(&inv->arena, name, len);
	mod->tensors = qa_arena_array(&inv->arena, n_tensors,
				      sizeof(*mod->tensors));
	if (!mod->name || !mod->tensors) {
		inv->out_of_memory = true;
		return NULL;
	}
	mod->role = p->role;
	mod->layer = p->layer;
	mod->mtp = p->mtp;
	mod->claimed = -1;
	mod->claimed_bits = -1;
	inv->n_modules++;
	return mod;
}

/* Adds tensor t with params to mod (bytes and params saturate rather
 * than wrap: a hostile header cannot make the totals small). */
static void
module_add(struct qa_inventory *inv, struct qa_module *mod, uint32_t t,
	   uint64_t params)
{
	struct qa_tensor *x = &inv->tensors[t];

	mod->tensors[mod->n_tensors++] = t;
	x->module = (int32_t)(mod - inv->modules);
	x->params = params;
	if (qa_ckd_add(&mod->bytes, mod->bytes, x->bytes))
		mod->bytes = UINT64_MAX;
	if (qa_ckd_add(&mod->params, mod->params, params))
		mod->params = UINT64_MAX;
}

static int
ggml_bits(const struct qa_tensor *t)
{
	const struct qa_ggml_type *gt = qa_ggml_type(t->ggml_type);

	if (!gt || gt->block == 0)
		return -1;
	return (int)((uint64_t)gt->block_bytes * 8 / gt->block);
}

/* One GGUF tensor as its own module: the ggml type is the precision
 * (ggml-org/ggml include/ggml.h; shapes in ne order: ne0 = in). */
static struct qa_module *
gguf_module(struct qa_inventory *inv, uint32_t ti, uint32_t n_tensors)
{
	struct qa_tensor *t = &inv->tensors[ti];
	const struct qa_ggml_type *gt = qa_ggml_type(t->ggml_type);
	struct qa_module *mod;
	uint32_t k;

	mod = new_module(inv, t->name, strlen(t->name), n_tensors, ti);
	if (!mod)
		return NULL;
	mod->scheme = QA_SCHEME_GGML;
	mod->precision = t->dtype;
	mod->bits = ggml_bits(t);
	mod->group_size = gt && gt->block > 1 ? (int)gt->block : 0;
	mod->in = t->n_dims ? t->shape[0] : 0;
	mod->out = t->n_dims > 1 ? t->shape[1] : 1;
	mod->experts = 1;
	for (k = 2; k < t->n_dims && k < QA_MAX_DIMS; k++)
		if (qa_ckd_mul(&mod->experts, mod->experts, t->shape[k]))
			mod->experts = 0;
	module_add(inv, mod, ti, t->elements);
	return mod;
}

/* GGUF group: every tensor its own module; NVFP4 companions
 * <name>.scale / <name>.input_scale join their weight (llama.cpp
 * conversion/base.py _repack_nvfp4). */
static void
build_gguf_group(struct qa_inventory *inv, struct map *m,
		 const struct group *g)
{
	int64_t w = group_slot(m, g, S_WEIGHT);
	bool nvfp4 = w >= 0 && inv->tensors[w].ggml_type == 40;
	struct qa_module *wm = NULL;
	uint32_t t;

	if (nvfp4)
		wm = gguf_module(inv, (uint32_t)w, g->n);
	for (t = g->head; t != UINT32_MAX; t = m->next[t]) {
		if ((int64_t)t == w && nvfp4)
			continue;
		if (wm && (m->sfx[t] == S_GGUF_SCALE ||
			   m->sfx[t] == S_INPUT_SCALE)) {
			module_add(inv, wm, t, 0);
			continue;
		}
		gguf_module(inv, t, 1);
	}
}

static void
build_group(struct qa_inventory *inv, struct map *m, const struct group *g)
{
	struct ctx c;
	struct decision d;
	struct qa_module *mod;
	char *name;
	int bits = -1, claim;
	uint32_t t;

	if (inv->tensors[g->head].ggml_type >= 0) {
		build_gguf_group(inv, m, g);
		return;
	}
	/* A group of only KV-cache scales (compressed-tensors puts them on
	 * the attention module itself): no weight, no module, no params. */
	if (group_slot(m, g, S_KV_SCALE) >= 0) {
		bool only = true;

		for (t = g->head; t != UINT32_MAX; t = m->next[t])
			if (m->sfx[t] != S_KV_SCALE)
				only = false;
		if (only) {
			for (t = g->head; t != UINT32_MAX; t = m->next[t])
				inv->tensors[t].params = 0;
			return;
		}
	}
	name = qa_arena_strndup(&inv->arena, g->name, g->len);
	if (!name) {
		inv->out_of_memory = true;
		return;
	}
	c.inv = inv;
	c.m = m;
	c.g = g;
	claim = m->claims ?
		qa_claims_module(m->claims, name, inv->tensors[g->head].role,
				 &bits) :
		qa_quant_claim(&inv->quant, name, inv->tensors[g->head].role,
			       &bits);
	c.config_bits = claim == 1 && bits > 0 ? bits :
			inv->quant.bits > 0 ? inv->quant.bits : -1;
	c.config_group = inv->quant.group_size > 0 ? inv->quant.group_size :
									 -1;
	/* MLX names each module's own group size (quantization dict):
	 * the shapes alone do not tell 4-bit g128 from 8-bit g64. */
	if (inv->quant.method == QA_QM_MLX && m->claims) {
		int mg = qa_claims_group(m->claims, name,
					 inv->tensors[g->head].role);

		c.config_group = mg > 0 ? mg : -1;
	}
	decide(&c, &d);
	mod = new_module(inv, g->name, g->len, g->n, d.payload);
	if (!mod)
		return;
	mod->scheme = d.scheme;
	mod->precision = d.label ? d.label : "unknown";
	mod->bits = d.bits;
	mod->group_size = d.group;
	mod->out = d.out;
	mod->in = d.in;
	mod->experts = d.experts;
	mod->act_order = d.act_order;
	mod->axis = (int8_t)d.axis;
	mod->claimed = (int8_t)(claim < 0 ? -1 : claim);
	mod->claimed_bits = claim == 1 ? bits : -1;
	if (d.scheme == QA_SCHEME_UNKNOWN) {
		/* Nothing recovered: every tensor keeps what it stores. */
		module_add(inv, mod, d.payload, inv->tensors[d.payload].elements);
		for (t = g->head; t != UINT32_MAX; t = m->next[t])
			if (t != d.payload)
				module_add(inv, mod, t, inv->tensors[t].elements);
		return;
	}
	module_add(inv, mod, d.payload, d.logical);
	for (t = g->head; t != UINT32_MAX; t = m->next[t])
		if (t != d.payload)
			module_add(inv, mod, t, carries_params(m->sfx[t]) ?
				   inv->tensors[t].elements : 0);
}

static void
map_free(struct map *m)
{
	qa_big_free(m->cells, (size_t)(m->mask + 1) * sizeof(*m->cells));
	qa_big_free(m->groups, m->n_tensors * sizeof(*m->groups));
	qa_big_free(m->next, m->n_tensors * sizeof(*m->next));
	qa_big_free(m->sfx, m->n_tensors * sizeof(*m->sfx));
}

void
qa_quant_modules_build(struct qa_inventory *inv)
{
	struct map m;
	uint64_t cap = 16;
	uint32_t i, k, *key_len;

	inv->modules = NULL;
	inv->n_modules = 0;
	for (i = 0; i < inv->n_tensors; i++) {
		inv->tensors[i].params = inv->tensors[i].elements;
		inv->tensors[i].module = -1;
	}
	if (inv->n_tensors == 0)
		return;
	while (cap < (uint64_t)inv->n_tensors * 2)
		cap *= 2;
	memset(&m, 0, sizeof(m));
	/* The map lives only while modules are built: allocated and freed
	 * here (qa_big_alloc), not left in the inventory's arena for the
	 * whole run. */
	m.mask = cap - 1;
	m.n_tensors = inv->n_tensors;
	if (cap <= SIZE_MAX / sizeof(*m.cells))
		m.cells = qa_big_alloc((size_t)cap * sizeof(*m.cells));
	m.groups = qa_big_alloc(inv->n_tensors * sizeof(*m.groups));
	m.next = qa_big_alloc(inv->n_tensors * sizeof(*m.next));
	m.sfx = qa_big_alloc(inv->n_tensors * sizeof(*m.sfx));
	/* new_module clears each module it hands out */
	inv->modules = qa_arena_array_uninit(&inv->arena, inv->n_tensors,
					     sizeof(*inv->modules));
	if (!m.cells || !m.groups || !m.next || !m.sfx || !inv->modules) {
		inv->out_of_memory = true;
		inv->modules = NULL;
		map_free(&m);
		return;
	}
	/* Each name split once: its suffix in m.sfx (group_add rewrites it
	 * when the tensor joins a group), its module key's length here. */
	key_len = malloc(inv->n_tensors * sizeof(*key_len));
	if (!key_len) {
		inv->out_of_memory = true;
		inv->modules = NULL;
		map_free(&m);
		return;
	}
	for (i = 0; i < inv->n_tensors; i++) {
		const char *name = inv->tensors[i].name;
		size_t len;
		enum sfx s = split_name(name, &len);

		m.sfx[i] = s;
		key_len[i] = (uint32_t)len;
	}
	/* Two passes: gpt-oss _scales/_bias, KV-cache scales and HQQ's
	 * scale, zero and metadata only join a group that the first pass
	 * created (a _blocks payload, a k_proj, a W_q), so
	 * e_score_correction_bias stays a tensor of its own, and so does a
	 * JAX-style norm weight named scale (a safetensors .scale is a
	 * sibling only of an HQQ W_q; in a GGUF, of an NVFP4 weight). */
	for (k = 0; k < 2; k++)
		for (i = 0; i < inv->n_tensors; i++) {
			const char *name = inv->tensors[i].name;
			size_t len = key_len[i];
			enum sfx s = m.sfx[i];
			bool late, hqq;
			struct group *g;

			enum sfx need;

			hqq = (s == S_GGUF_SCALE &&
			       inv->tensors[i].ggml_type < 0) ||
			      (s >= S_HQQ_ZERO && s <= S_HQQ_META);
			need = hqq ? S_HQQ_WQ :
			       s == S_QQQ_B || s == S_QQQ_SGROUP ?
			       S_QQQ_SCHANNEL : s == S_PARO_META ? S_QWEIGHT :
			       S_BLOCKS;
			late = s == S_GLUED_SCALES || s == S_GLUED_BIAS ||
			       s == S_KV_SCALE || hqq ||
			       need == S_QQQ_SCHANNEL || need == S_QWEIGHT;
			if (late != (k == 1))
				continue;
			g = map_get(&m, name, len, !late || s == S_KV_SCALE);
			if (late && s != S_KV_SCALE &&
			    (!g || group_slot(&m, g, need) < 0)) {
				/* not a gpt-oss, HQQ or QQQ sibling: its
				 * own tensor */
				s = S_NONE;
				g = map_get(&m, name, strlen(name), true);
			}
			group_add(&m, g, i, s);
		}
	free(key_len);
	m.claims = qa_claims_open(&inv->quant);
	for (i = 0; i < m.n_groups; i++)
		build_group(inv, &m, &m.groups[i]);
	qa_claims_close(m.claims);
	map_free(&m);
}
