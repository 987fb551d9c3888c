/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the quantization claim-versus-truth checks
 * (rules/check_quant.c, QA3001-QA3014) on inventories built by hand:
 * inv->quant set field by field and inv->modules written directly (each
 * module with its tensors), so the rules are tested apart from the
 * config parser and the module classifier. Only the claim verdict comes
 * from formats/quant_config.c (qa_quant_claim), with configs whose
 * verdict the notes state plainly (compressed-tensors targets "Linear"
 * and exact ignore names, GPTQ dynamic exact names, AutoRound
 * block_name_to_quantize; ../shared/knowledge/quant-formats.md §A1-A4).
 *
 * Every rule is exercised both ways: a case that must trigger it and a
 * clean twin that must not. Shapes are the published layouts (§1.3,
 * §A2-A7) for a hidden size of 256 and group size 128, worked out by
 * hand in the comments: GPTQ 4-bit qweight [256*4/32, 256] = [32, 256],
 * qzeros [ceil(256/128), 256*4/32] = [2, 32], scales [2, 256];
 * compressed-tensors W4A16 weight_packed [256, 32], weight_scale
 * [256, 2]; NVFP4 weight [256, 128] U8, weight_scale [256, 256/16 = 16];
 * FP8 block weight [256, 256], weight_scale_inv [ceil(256/128),
 * ceil(256/128)] = [2, 2].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "analysis/analysis.h"
#include "core/inventory.h"
#include "harness.h"

/* The codes under test (the filter of the code comparison). */
static bool
mine(unsigned code)
{
	return code >= 3001 && code <= 3099;
}

/* Runs the analysis step the pipeline runs before the checks (claims,
 * declared bits, pattern matches) and the quantization checks on inv,
 * then compares the codes under test with want. */
#define expect(...) expect_at(__FILE__, __LINE__, __VA_ARGS__)

static void
expect_at(const char *file, int line, const char *what,
	  struct qa_inventory *inv, const char *want)
{
	struct qa_check_options opt;

	memset(&opt, 0, sizeof(opt));
	qa_claims_resolve(inv);
	qa_check_quant.run(inv, &opt);
	th_check_codes(file, line, what, inv, mine, want);
}

/* ---- inventory building --------------------------------------------- */

#define MAX_MODULES 64

static struct qa_inventory *
new_inv(enum qa_input_kind kind, enum qa_quant_method method,
	const char *format, int bits, int group)
{
	struct qa_inventory *inv = qa_inventory_create("test");
	struct qa_quant_config *qc;

	if (!inv)
		abort();
	inv->kind = kind;
	qc = &inv->quant;
	memset(qc, 0, sizeof(*qc));
	qc->file = method == QA_QM_NONE ? NULL : "test/config.json";
	qc->key = "quantization_config";
	qc->method = method;
	qc->method_raw = method == QA_QM_GPTQ ? "gptq" :
			 method == QA_QM_AUTOROUND ? "auto-round" :
			 method == QA_QM_COMPRESSED_TENSORS ?
			 "compressed-tensors" : method == QA_QM_FP8 ? "fp8" :
			 method == QA_QM_MODELOPT ? "modelopt" : NULL;
	qc->format = format;
	qc->bits = bits;
	qc->group_size = group;
	qc->sym = 1;
	qc->desc_act = 0;
	qc->act_bits = -1;
	qc->lm_head = 0;
	inv->modules = qa_arena_array(&inv->arena, MAX_MODULES,
				      sizeof(struct qa_module));
	inv->n_modules = 0;
	if (!inv->modules)
		abort();
	return inv;
}

/* Adds a tensor with PyTorch shape [d0] / [d0, d1] / [d0, d1, d2]. */
static uint32_t
tensor(struct qa_inventory *inv, const char *name, const char *dtype,
       unsigned n_dims, uint64_t d0, uint64_t d1, uint64_t d2)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);

	if (!t)
		abort();
	t->name = qa_arena_strdup(&inv->arena, name);
	t->dtype = dtype;
	t->ggml_type = -1;
	t->n_dims = n_dims;
	t->shape[0] = d0;
	t->shape[1] = d1;
	t->shape[2] = d2;
	t->elements = d0 * (n_dims > 1 ? d1 : 1) * (n_dims > 2 ? d2 : 1);
	t->module = -1;
	return inv->n_tensors - 1;
}

static struct qa_module *
module(struct qa_inventory *inv, const char *name, enum qa_role role,
       int layer, bool mtp, enum qa_scheme scheme, int bits, int group)
{
	struct qa_module *m;

	if (inv->n_modules == MAX_MODULES)
		abort();
	m = &inv->modules[inv->n_modules++];
	memset(m, 0, sizeof(*m));
	m->name = qa_arena_strdup(&inv->arena, name);
	m->role = role;
	m->layer = layer;
	m->mtp = mtp;
	m->scheme = scheme;
	m->bits = bits;
	m->group_size = group;
	m->out = 256;
	m->in = 256;
	m->experts = 1;
	m->claimed = -1;
	m->claimed_bits = -1;
	m->tensors = qa_arena_array(&inv->arena, 8, sizeof(uint32_t));
	if (!m->tensors)
		abort();
	return m;
}

static void
attach(struct qa_inventory *inv, struct qa_module *m, uint32_t t)
{
	m->tensors[m->n_tensors++] = t;
	inv->tensors[t].module = (int32_t)(m - inv->modules);
}

static char *
cat(struct qa_inventory *inv, const char *a, const char *b)
{
	return qa_arena_printf(&inv->arena, "%s.%s", a, b);
}

/* A dense BF16 [256, 256] Linear. */
static struct qa_module *
dense(struct qa_inventory *inv, const char *name, enum qa_role role,
      int layer, bool mtp)
{
	struct qa_module *m = module(inv, name, role, layer, mtp,
				     QA_SCHEME_DENSE, 16, -1);

	m->precision = "BF16";
	attach(inv, m, tensor(inv, cat(inv, name, "weight"), "BF16", 2,
			      256, 256, 0));
	return m;
}

/* GPTQ [out 256, in 256] with the given shapes (§A2). */
static struct qa_module *
gptq_shaped(struct qa_inventory *inv, const char *name, enum qa_role role,
	    int layer, bool mtp, int bits, uint64_t qw_rows, uint64_t qz_rows,
	    uint64_t qz_cols, uint64_t sc_rows, uint64_t g_idx)
{
	struct qa_module *m = module(inv, name, role, layer, mtp,
				     QA_SCHEME_GPTQ, bits, 128);

	attach(inv, m, tensor(inv, cat(inv, name, "qweight"), "I32", 2,
			      qw_rows, 256, 0));
	attach(inv, m, tensor(inv, cat(inv, name, "qzeros"), "I32", 2,
			      qz_rows, qz_cols, 0));
	attach(inv, m, tensor(inv, cat(inv, name, "scales"), "F16", 2,
			      sc_rows, 256, 0));
	if (g_idx)
		attach(inv, m, tensor(inv, cat(inv, name, "g_idx"), "I32", 1,
				      g_idx, 0, 0));
	return m;
}

/* Correct GPTQ g128: qweight [256*b/32, 256], qzeros [2, 256*b/32],
 * scales [2, 256]. */
static struct qa_module *
gptq(struct qa_inventory *inv, const char *name, enum qa_role role,
     int layer, bool mtp, int bits)
{
	return gptq_shaped(inv, name, role, layer, mtp, bits,
			   256u * (unsigned)bits / 32, 2,
			   256u * (unsigned)bits / 32, 2, 0);
}

/* compressed-tensors W4A16 g128 (§A4): weight_packed I32 [256, 32],
 * weight_scale BF16 [256, 2], weight_shape I64 [2]. */
static struct qa_module *
ct_pack(struct qa_inventory *inv, const char *name, enum qa_role role,
	int layer, bool mtp)
{
	struct qa_module *m = module(inv, name, role, layer, mtp,
				     QA_SCHEME_CT_PACK, 4, 128);

	attach(inv, m, tensor(inv, cat(inv, name, "weight_packed"), "I32", 2,
			      256, 32, 0));
	attach(inv, m, tensor(inv, cat(inv, name, "weight_scale"), "BF16", 2,
			      256, 2, 0));
	attach(inv, m, tensor(inv, cat(inv, name, "weight_shape"), "I64", 1,
			      2, 0, 0));
	return m;
}

static void
pattern(struct qa_quant_pattern *p, const char *text,
	enum qa_pattern_kind kind, const char *source)
{
	memset(p, 0, sizeof(*p));
	p->text = text;
	p->kind = kind;
	p->source = source;
}

static void
excludes(struct qa_inventory *inv, const char *const *names, uint32_t n,
	 enum qa_pattern_kind kind, const char *source)
{
	uint32_t i;

	inv->quant.exclude = qa_arena_array(&inv->arena, n,
					    sizeof(*inv->quant.exclude));
	for (i = 0; i < n; i++)
		pattern(&inv->quant.exclude[i], names[i], kind, source);
	inv->quant.n_exclude = n;
}

static struct qa_quant_override *
override(struct qa_inventory *inv, const char *text,
	 enum qa_pattern_kind kind, const char *source, bool skip, int bits)
{
	struct qa_quant_config *qc = &inv->quant;
	struct qa_quant_override *o;

	if (!qc->overrides)
		qc->overrides = qa_arena_array(&inv->arena, 8, sizeof(*o));
	o = &qc->overrides[qc->n_overrides++];
	memset(o, 0, sizeof(*o));
	pattern(&o->pattern, text, kind, source);
	o->skip = skip;
	o->bits = bits;
	o->group_size = -1;
	return o;
}

/* compressed-tensors with one group targeting "Linear" (§A4); the
 * config parser records each group target as an override. */
static struct qa_inventory *
ct_inv(void)
{
	struct qa_inventory *inv = new_inv(QA_KIND_HF_DIR,
					   QA_QM_COMPRESSED_TENSORS,
					   "pack-quantized", 4, 128);

	override(inv, "Linear", QA_PAT_EXACT, "config_groups.group_0.targets",
		 false, 4);
	return inv;
}

/* ModelOpt NVFP4 [256, 256] (§A5): weight U8 [256, 128], weight_scale
 * F8_E4M3 [256, scale_cols] (right: 256/16 = 16), weight_scale_2. */
static struct qa_module *
nvfp4(struct qa_inventory *inv, const char *name, enum qa_role role,
      int layer, uint64_t scale_cols)
{
	struct qa_module *m = module(inv, name, role, layer, false,
				     QA_SCHEME_NVFP4, 4, 16);

	attach(inv, m, tensor(inv, cat(inv, name, "weight"), "U8", 2, 256,
			      128, 0));
	attach(inv, m, tensor(inv, cat(inv, name, "weight_scale"), "F8_E4M3",
			      2, 256, scale_cols, 0));
	attach(inv, m, tensor(inv, cat(inv, name, "weight_scale_2"), "F32",
			      0, 1, 1, 1));
	return m;
}

static const char *const layer_prefix[] = {
	"model.layers.0", "model.layers.1",
};

/* q/k/v CT_PACK in layers 0 and 1; o_proj either CT_PACK or dense. */
static struct qa_inventory *
ct_attention(bool o_dense)
{
	struct qa_inventory *inv = ct_inv();
	int l;

	for (l = 0; l < 2; l++) {
		const char *p = layer_prefix[l];

		ct_pack(inv, cat(inv, p, "self_attn.q_proj"), QA_ROLE_ATTN_Q,
			l, false);
		ct_pack(inv, cat(inv, p, "self_attn.k_proj"), QA_ROLE_ATTN_K,
			l, false);
		ct_pack(inv, cat(inv, p, "self_attn.v_proj"), QA_ROLE_ATTN_V,
			l, false);
		if (o_dense)
			dense(inv, cat(inv, p, "self_attn.o_proj"),
			      QA_ROLE_ATTN_O, l, false);
		else
			ct_pack(inv, cat(inv, p, "self_attn.o_proj"),
				QA_ROLE_ATTN_O, l, false);
	}
	return inv;
}

static const char *const o_names[] = {
	"model.layers.0.self_attn.o_proj", "model.layers.1.self_attn.o_proj",
};

/* ---- QA3001 / QA3002 / QA3011 ------------------------------------------ */

static void
test_claims(void)
{
	struct qa_inventory *inv;

	/* o_proj dense in both layers, the config targets every Linear:
	 * one aggregated finding for the pattern */
	inv = ct_attention(true);
	expect("claim: dense o_proj claimed quantized", inv, "QA3001");
	CHECK(th_count_code(inv, QA3001) == 1);
	CHECK(th_finding(inv, QA3001,
			 "2 modules (model.layers.*.self_attn.o_proj"));
	qa_inventory_destroy(inv);

	/* clean: the ignore list names them */
	inv = ct_attention(true);
	excludes(inv, o_names, 2, QA_PAT_EXACT, "ignore");
	expect("claim: dense o_proj ignored", inv, "-");
	qa_inventory_destroy(inv);

	/* reverse: ignored but packed */
	inv = ct_attention(false);
	excludes(inv, o_names, 2, QA_PAT_EXACT, "ignore");
	expect("claim: packed o_proj ignored", inv, "QA3002");
	CHECK(th_count_code(inv, QA3002) == 1);
	qa_inventory_destroy(inv);

	/* clean: all packed, nothing ignored */
	inv = ct_attention(false);
	expect("claim: all packed", inv, "-");
	qa_inventory_destroy(inv);

	/* QA3011: GPTQ config, every weight dense; not QA3001 per module */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	dense(inv, "model.layers.0.self_attn.q_proj", QA_ROLE_ATTN_Q, 0,
	      false);
	dense(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
	      false);
	expect("nothing quantized", inv, "QA3011");
	CHECK(th_count_code(inv, QA3011) == 1);
	qa_inventory_destroy(inv);

	/* clean: compressed-tensors "dense" (decompressed) format */
	inv = ct_inv();
	inv->quant.format = "dense";
	dense(inv, "model.layers.0.self_attn.q_proj", QA_ROLE_ATTN_Q, 0,
	      false);
	expect("dense format", inv, "-");
	qa_inventory_destroy(inv);
}

/* ---- QA3003 ------------------------------------------------------------- */

static void
test_fused(void)
{
	struct qa_inventory *inv;
	char name[96];
	int e;

	/* v_proj 8-bit beside 4-bit q/k (a dynamic override declares it,
	 * so the shapes are right for 8 bits: qweight [64, 256], qzeros
	 * [2, 64]) */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq(inv, "model.layers.0.self_attn.q_proj", QA_ROLE_ATTN_Q, 0,
	     false, 4);
	gptq(inv, "model.layers.0.self_attn.k_proj", QA_ROLE_ATTN_K, 0,
	     false, 4);
	gptq(inv, "model.layers.0.self_attn.v_proj", QA_ROLE_ATTN_V, 0,
	     false, 8);
	override(inv, "model.layers.0.self_attn.v_proj", QA_PAT_EXACT,
		 "dynamic", false, 8);
	expect("fused qkv mixed bits", inv, "QA3003");
	CHECK(th_finding(inv, QA3003, "v_proj GPTQ 8-bit"));
	qa_inventory_destroy(inv);

	/* clean: all 4-bit */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq(inv, "model.layers.0.self_attn.q_proj", QA_ROLE_ATTN_Q, 0,
	     false, 4);
	gptq(inv, "model.layers.0.self_attn.k_proj", QA_ROLE_ATTN_K, 0,
	     false, 4);
	gptq(inv, "model.layers.0.self_attn.v_proj", QA_ROLE_ATTN_V, 0,
	     false, 4);
	gptq(inv, "model.layers.0.mlp.gate_proj", QA_ROLE_FFN_GATE, 0,
	     false, 4);
	gptq(inv, "model.layers.0.mlp.up_proj", QA_ROLE_FFN_UP, 0, false, 4);
	expect("fused all 4-bit", inv, "-");
	qa_inventory_destroy(inv);

	/* experts 0-2 GPTQ, expert 3 dense and excluded by dynamic '-:',
	 * so only the fused-MoE rule speaks */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	for (e = 0; e < 4; e++) {
		snprintf(name, sizeof(name),
			 "model.layers.0.mlp.experts.%d.up_proj", e);
		if (e < 3)
			gptq(inv, name, QA_ROLE_EXPERT_UP, 0, false, 4);
		else
			dense(inv, name, QA_ROLE_EXPERT_UP, 0, false);
	}
	override(inv, "model.layers.0.mlp.experts.3.up_proj", QA_PAT_EXACT,
		 "dynamic", true, -1);
	expect("fused experts mixed", inv, "QA3003");
	CHECK(th_finding(inv, QA3003, "3 GPTQ 4-bit, 1 BF16"));
	qa_inventory_destroy(inv);

	/* gate/up of one MLP: gate dense (skipped), up GPTQ */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	dense(inv, "model.layers.0.mlp.gate_proj", QA_ROLE_FFN_GATE, 0,
	      false);
	gptq(inv, "model.layers.0.mlp.up_proj", QA_ROLE_FFN_UP, 0, false, 4);
	override(inv, "model.layers.0.mlp.gate_proj", QA_PAT_EXACT,
		 "dynamic", true, -1);
	expect("fused gate/up mixed", inv, "QA3003");
	qa_inventory_destroy(inv);
}

/* ---- QA3004 / QA3005 ----------------------------------------------------- */

static struct qa_inventory *
mtp_inv(void)
{
	struct qa_inventory *inv = ct_attention(false);

	dense(inv, "mtp.fc", QA_ROLE_MTP_EH_PROJ, 2, true);
	dense(inv, "mtp.layers.0.self_attn.q_proj", QA_ROLE_ATTN_Q, 2, true);
	return inv;
}

static void
test_mtp(void)
{
	struct qa_inventory *inv;

	/* MTP BF16, trunk W4A16, the config targets every Linear: the
	 * vLLM crash case; not also QA3001 */
	inv = mtp_inv();
	expect("mtp dense undeclared", inv, "QA3004");
	CHECK(th_count_code(inv, QA3004) == 1);
	CHECK(th_finding(inv, QA3004, "2 MTP modules"));
	qa_inventory_destroy(inv);

	/* llm-compressor appends "re:^mtp.*" to ignore (§B4) */
	inv = mtp_inv();
	{
		static const char *const ig[] = { "^mtp.*" };

		excludes(inv, ig, 1, QA_PAT_REGEX, "ignore");
	}
	expect("mtp dense declared (regex)", inv, "QA3005");
	CHECK(th_finding(inv, QA3005, "ignore '^mtp.*'"));
	qa_inventory_destroy(inv);

	/* ModelOpt-style glob "mtp*" (§A5) */
	inv = mtp_inv();
	{
		static const char *const ig[] = { "mtp*" };

		excludes(inv, ig, 1, QA_PAT_GLOB, "exclude_modules");
	}
	expect("mtp dense declared (glob)", inv, "QA3005");
	qa_inventory_destroy(inv);

	/* reverse: trunk dense (its q/k/v ignored), MTP packed, nothing
	 * targets the MTP head explicitly and the ignore list says the
	 * trunk is unquantized */
	inv = ct_inv();
	{
		static const char *const ig[] = { "model.layers." };

		excludes(inv, ig, 1, QA_PAT_PREFIX, "ignore");
	}
	dense(inv, "model.layers.0.self_attn.q_proj", QA_ROLE_ATTN_Q, 0,
	      false);
	ct_pack(inv, "mtp.fc", QA_ROLE_MTP_EH_PROJ, 1, true);
	/* the group targets the trunk only, not the MTP head */
	inv->quant.overrides[0].pattern.text = "model.layers.";
	inv->quant.overrides[0].pattern.kind = QA_PAT_PREFIX;
	expect("mtp packed, trunk dense", inv, "QA3004");
	qa_inventory_destroy(inv);

	/* clean: MTP quantized like the trunk */
	inv = ct_attention(false);
	ct_pack(inv, "mtp.fc", QA_ROLE_MTP_EH_PROJ, 2, true);
	expect("mtp same precision", inv, "-");
	qa_inventory_destroy(inv);
}

/* ---- QA3006 --------------------------------------------------------------- */

static void
test_unmatched(void)
{
	struct qa_inventory *inv;

	/* GPTQ dynamic '-:' rule for a layer the model lacks; an AutoRound
	 * style regex that matches; a class-name target; an ignore entry
	 * (QA2109's business, not ours) */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, false,
	     4);
	dense(inv, "model.layers.0.self_attn.o_proj", QA_ROLE_ATTN_O, 0,
	      false);
	override(inv, "model.layers.0.self_attn.o_proj", QA_PAT_EXACT,
		 "dynamic", true, -1);
	override(inv, "model\\.layers\\.9\\.mlp\\..*", QA_PAT_REGEX,
		 "dynamic", true, -1);
	expect("dynamic rule matching nothing", inv, "QA3006");
	CHECK(th_count_code(inv, QA3006) == 1);
	CHECK(th_finding(inv, QA3006, "layers\\.9"));
	qa_inventory_destroy(inv);

	/* clean: the regex names layer 0 (re.match, anchored at start) */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, false,
	     4);
	dense(inv, "model.layers.0.self_attn.o_proj", QA_ROLE_ATTN_O, 0,
	      false);
	override(inv, ".*\\.self_attn\\.o_proj", QA_PAT_REGEX, "dynamic",
		 true, -1);
	{
		static const char *const ig[] = { "model.visual" };

		/* an unmatched ignore entry is QA2109, not QA3006 */
		excludes(inv, ig, 1, QA_PAT_EXACT, "ignore");
	}
	expect("dynamic rule matching", inv, "-");
	qa_inventory_destroy(inv);

	/* ModelOpt MIXED_PRECISION quantized_layers name of no module */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_MODELOPT, "MIXED_PRECISION", -1,
		      -1);
	inv->quant.mixed = true;
	nvfp4(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, 16);
	override(inv, "model.layers.0.mlp.down_proj", QA_PAT_EXACT,
		 "quantized_layers", false, 4);
	override(inv, "model.layers.0.mlp.dwn_proj", QA_PAT_EXACT,
		 "quantized_layers", false, 4);
	expect("quantized_layers typo", inv, "QA3006");
	qa_inventory_destroy(inv);
}

/* ---- QA3007 ---------------------------------------------------------------- */

static void
test_blocks(void)
{
	struct qa_inventory *inv;
	static const char *blocks[] = { "model.layers" };

	/* lm_head GPTQ-packed outside block_name_to_quantize: QA3007, and
	 * not QA3002 again for the same module */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_AUTOROUND, "auto_round:auto_gptq",
		      4, 128);
	inv->quant.blocks = blocks;
	inv->quant.n_blocks = 1;
	gptq(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, false,
	     4);
	gptq(inv, "lm_head", QA_ROLE_LM_HEAD, -1, false, 4);
	expect("packed lm_head outside blocks", inv, "QA3007");
	qa_inventory_destroy(inv);

	/* clean: extra_config records the quantized lm_head (§A1) */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_AUTOROUND, "auto_round:auto_gptq",
		      4, 128);
	inv->quant.blocks = blocks;
	inv->quant.n_blocks = 1;
	gptq(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, false,
	     4);
	gptq(inv, "lm_head", QA_ROLE_LM_HEAD, -1, false, 4);
	override(inv, "lm_head", QA_PAT_EXACT, "extra_config", false, 4);
	expect("lm_head in extra_config", inv, "-");
	qa_inventory_destroy(inv);
}

/* ---- QA3008 / QA3009 -------------------------------------------------------- */

static void
test_shapes(void)
{
	struct qa_inventory *inv;
	struct qa_module *m;

	/* GPTQ scales with 4 rows: group 128 over 256 inputs needs
	 * ceil(256/128) = 2 (qzeros follows the scales: 4 rows too) */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq_shaped(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
		    false, 4, 32, 4, 32, 4, 0);
	expect("gptq scales rows", inv, "QA3008");
	CHECK(th_finding(inv, QA3008, "ceil(in/group) = 2"));
	qa_inventory_destroy(inv);

	/* the classifier leaves such a module "unknown": the scheme is
	 * then guessed from the names (qweight and scales both 256 wide:
	 * GPTQ) and the rule still speaks */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq(inv, "model.layers.0.mlp.up_proj", QA_ROLE_FFN_UP, 0, false, 4);
	gptq_shaped(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
		    false, 4, 32, 4, 32, 4, 0)->scheme = QA_SCHEME_UNKNOWN;
	expect("gptq scales rows, unknown scheme", inv, "QA3008");
	qa_inventory_destroy(inv);

	/* the same tensors declared group 64: ceil(256/64) = 4, clean */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 64);
	gptq_shaped(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
		    false, 4, 32, 4, 32, 4, 0);
	expect("gptq group 64", inv, "-");
	qa_inventory_destroy(inv);

	/* qzeros 64 words wide: 256 outputs at 4 bits need 256*4/32 = 32
	 * (it is the 8-bit width); the scale check is not repeated */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq_shaped(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
		    false, 4, 32, 2, 64, 2, 0);
	expect("gptq qzeros width", inv, "QA3009");
	CHECK(th_finding(inv, QA3009, "ceil(out*bits/32) = 32"));
	qa_inventory_destroy(inv);

	/* g_idx of 512 inputs against qweight rows 32 = 256 inputs at 4 bits
	 * (512 inputs need 512*4/32 = 64 rows) */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq_shaped(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
		    false, 4, 32, 2, 32, 2, 512);
	expect("gptq g_idx vs qweight", inv, "QA3009");
	qa_inventory_destroy(inv);

	/* clean GPTQ with g_idx [256] (desc_act) */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_GPTQ, "gptq", 4, 128);
	gptq_shaped(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
		    false, 4, 32, 2, 32, 2, 256);
	expect("gptq with g_idx", inv, "-");
	qa_inventory_destroy(inv);

	/* NVFP4 (ModelOpt): weight U8 [256, 128] is in = 256, the scale
	 * must be [256, 256/16 = 16]; [256, 8] is the MXFP4 grouping */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_MODELOPT, "NVFP4", 4, 16);
	m = nvfp4(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, 8);
	expect("nvfp4 scale cols", inv, "QA3008");
	CHECK(th_finding(inv, QA3008, "[256, 16]"));
	inv->tensors[m->tensors[1]].shape[1] = 16;
	inv->n_findings = 0;
	expect("nvfp4 scale right", inv, "-");
	qa_inventory_destroy(inv);

	/* DeepSeek block FP8: weight [256, 256], weight_scale_inv must be
	 * [ceil(256/128), ceil(256/128)] = [2, 2] */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_FP8, NULL, 8, -1);
	inv->quant.block[0] = 128;
	inv->quant.block[1] = 128;
	m = module(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
		   false, QA_SCHEME_FP8_BLOCK, 8, -1);
	attach(inv, m, tensor(inv, "model.layers.0.mlp.down_proj.weight",
			      "F8_E4M3", 2, 256, 256, 0));
	attach(inv, m, tensor(inv,
			      "model.layers.0.mlp.down_proj.weight_scale_inv",
			      "F32", 2, 2, 1, 0));
	expect("fp8 block scale", inv, "QA3008");
	inv->tensors[m->tensors[1]].shape[1] = 2;
	inv->n_findings = 0;
	expect("fp8 block scale right", inv, "-");
	qa_inventory_destroy(inv);

	/* compressed-tensors W4A16: weight_scale [256, 4] against group 128
	 * over in = 32*32/4 = 256: ceil(256/128) = 2 columns */
	inv = ct_inv();
	m = ct_pack(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
		    false);
	inv->tensors[m->tensors[1]].shape[1] = 4;
	expect("ct weight_scale cols", inv, "QA3008");
	qa_inventory_destroy(inv);
}

/* ---- QA3010 / QA3012 ------------------------------------------------------------ */

static void
test_method(void)
{
	struct qa_inventory *inv;

	/* AutoRound says auto_awq, the tensors are GPTQ-packed */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_AUTOROUND, "auto_round:auto_awq",
		      4, 128);
	gptq(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, false,
	     4);
	expect("auto_awq over GPTQ", inv, "QA3010");
	CHECK(th_finding(inv, QA3010, "packed as GPTQ"));
	qa_inventory_destroy(inv);

	inv = new_inv(QA_KIND_HF_DIR, QA_QM_AUTOROUND, "auto_round:auto_gptq",
		      4, 128);
	gptq(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, false,
	     4);
	expect("auto_gptq over GPTQ", inv, "-");
	qa_inventory_destroy(inv);

	/* no config at all, packed tensors */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_NONE, NULL, -1, -1);
	gptq(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0, false,
	     4);
	expect("no config", inv, "QA3012");
	qa_inventory_destroy(inv);

	/* no config, dense tensors: nothing to say */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_NONE, NULL, -1, -1);
	dense(inv, "model.layers.0.mlp.down_proj", QA_ROLE_FFN_DOWN, 0,
	      false);
	expect("no config, dense", inv, "-");
	qa_inventory_destroy(inv);
}

/* ---- QA3013 / QA3014 ----------------------------------------------------------- */

static void
gguf_t(struct qa_inventory *inv, const char *name, int type,
       const char *dtype)
{
	uint32_t i = tensor(inv, name, dtype, 2, 256, 256, 0);

	inv->tensors[i].ggml_type = type;
}

static void
kv_str(struct qa_inventory *inv, const char *key, const char *val)
{
	struct qa_kv *kv = qa_inv_add_kv(inv);

	kv->key = key;
	kv->value.type = QA_V_STRING;
	kv->value.v.str.s = val;
	kv->value.v.str.len = strlen(val);
}

static void
kv_i32(struct qa_inventory *inv, const char *key, int64_t v)
{
	struct qa_kv *kv = qa_inv_add_kv(inv);

	kv->key = key;
	kv->value.type = QA_V_I32;
	kv->value.v.i = v;
}

static void
test_imatrix(void)
{
	struct qa_inventory *inv;

	/* IQ2_XXS (type 16) with no imatrix metadata */
	inv = new_inv(QA_KIND_GGUF, QA_QM_NONE, NULL, -1, -1);
	gguf_t(inv, "blk.0.attn_q.weight", 16, "IQ2_XXS");
	gguf_t(inv, "blk.0.ffn_down.weight", 10, "Q2_K");
	expect("IQ2 without imatrix", inv, "QA3014");
	CHECK(th_finding(inv, QA3014, "1 tensor of IQ1/IQ2"));
	qa_inventory_destroy(inv);

	/* IQ1_M (29) only on token_embd.weight: llama.cpp allows it */
	inv = new_inv(QA_KIND_GGUF, QA_QM_NONE, NULL, -1, -1);
	gguf_t(inv, "token_embd.weight", 29, "IQ1_M");
	gguf_t(inv, "blk.0.attn_q.weight", 12, "Q4_K");
	expect("IQ1_M embedding only", inv, "-");
	qa_inventory_destroy(inv);

	/* with the four keys llama-quantize writes */
	inv = new_inv(QA_KIND_GGUF, QA_QM_NONE, NULL, -1, -1);
	kv_str(inv, "quantize.imatrix.file", "imatrix.dat");
	kv_str(inv, "quantize.imatrix.dataset", "calibration_datav3.txt");
	kv_i32(inv, "quantize.imatrix.entries_count", 196);
	kv_i32(inv, "quantize.imatrix.chunks_count", 685);
	gguf_t(inv, "blk.0.attn_q.weight", 16, "IQ2_XXS");
	expect("imatrix recorded", inv, "QA3013");
	CHECK(th_finding(inv, QA3013, "calibration_datav3.txt, 196 entries, "
			 "685 chunks"));
	qa_inventory_destroy(inv);

	/* a safetensors input never gets GGUF findings */
	inv = new_inv(QA_KIND_HF_DIR, QA_QM_NONE, NULL, -1, -1);
	gguf_t(inv, "blk.0.attn_q.weight", 16, "IQ2_XXS");
	expect("not GGUF", inv, "-");
	qa_inventory_destroy(inv);
}

int
main(void)
{
	test_claims();
	test_fused();
	test_mtp();
	test_unmatched();
	test_blocks();
	test_shapes();
	test_method();
	test_imatrix();
	return th_done("check-quant");
}
