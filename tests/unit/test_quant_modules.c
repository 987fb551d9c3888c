/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the per-module precision reader (src/analysis/quant_modules.c) and
 * the per-component precision histogram (src/analysis/summary.c).
 *
 * 1. Hand-built inventories, one per storage scheme, with the exact dtype,
 *    shape and byte size a real layer has in that scheme (shapes from the
 *    published configs: Llama-3.1-8B hidden 4096 / 32 heads / 8 KV heads /
 *    ff 14336; Qwen3-30B-A3B 128 experts, moe ff 768, hidden 2048;
 *    DeepSeek-V3 hidden 7168 / ff 18432; gpt-oss-20b 32 experts, hidden and
 *    ff 2880). Each expected value (scheme, bits, group, out/in, logical
 *    parameters, bytes, bpw) is worked by hand in the comment from the
 *    layouts and nominal formulas of ../shared/knowledge/quant-formats.md
 *    §1.3 / §1.4 / §A — never copied from the code's output.
 * 2. A malformed variant per scheme (missing scales, shapes that do not
 *    divide, overflowing dims) that must give UNKNOWN with the stored
 *    element counts and no crash.
 * 3. The real corpus (QA_CORPUS, skipped when absent): dense BF16 Hugging
 *    Face folders form dense modules whose parameters are the stored
 *    elements; GGUF files form GGML modules whose totals are the summed
 *    elements.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/audit.h"
#include "analysis/analysis.h"
#include "core/inventory.h"
#include "harness.h"

/* Adds a safetensors tensor; bytes = elements * bits / 8 of its dtype.
 * ndims 0 is a scalar. Shape is passed as ndims uint64_t values. */
static struct qa_tensor *
st(struct qa_inventory *inv, const char *name, const char *dtype,
   unsigned bits, unsigned ndims, ...)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);
	va_list ap;
	unsigned i;

	t->name = name;
	t->dtype = dtype;
	t->n_dims = ndims;
	t->elements = 1;
	va_start(ap, ndims);
	for (i = 0; i < ndims; i++) {
		t->shape[i] = va_arg(ap, uint64_t);
		t->elements *= t->shape[i];
	}
	va_end(ap);
	t->bytes = t->elements * bits / 8;
	return t;
}

/* Adds a GGUF tensor (ne order) with its ggml type and stored bytes. */
static struct qa_tensor *
gg(struct qa_inventory *inv, const char *name, const char *dtype, int type,
   uint64_t bytes, unsigned ndims, ...)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);
	va_list ap;
	unsigned i;

	t->name = name;
	t->dtype = dtype;
	t->ggml_type = type;
	t->n_dims = ndims;
	t->elements = 1;
	va_start(ap, ndims);
	for (i = 0; i < ndims; i++) {
		t->shape[i] = va_arg(ap, uint64_t);
		t->elements *= t->shape[i];
	}
	va_end(ap);
	t->bytes = bytes;
	return t;
}

#define U(x) ((uint64_t)(x))

static struct qa_inventory *
fresh(void)
{
	struct qa_inventory *inv = qa_inventory_create("test");

	if (!inv) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	inv->kind = QA_KIND_SAFETENSORS;
	return inv;
}

static const struct qa_module *
module(const struct qa_inventory *inv, const char *name)
{
	uint32_t i;

	for (i = 0; i < inv->n_modules; i++)
		if (strcmp(inv->modules[i].name, name) == 0)
			return &inv->modules[i];
	fprintf(stderr, "no module %s\n", name);
	return NULL;
}

struct expect {
	enum qa_scheme scheme;
	const char *precision;
	int bits, group;
	uint64_t out, in, experts, params, bytes;
	double bpw;
};

/* Checks one module against hand-worked values; also that the payload
 * carries the logical parameters and the module's tensors point back. */
#define expect_module(...) expect_module_at(__FILE__, __LINE__, __VA_ARGS__)

static void
expect_module_at(const char *file, int line, const char *what,
		 const struct qa_inventory *inv, const char *name,
		 const struct expect *e)
{
	const struct qa_module *m = module(inv, name);
	double bpw;
	uint32_t k;
	uint64_t sum = 0;

	if (!m) {
		th_fail(file, line, "%s: no module %s", what, name);
		return;
	}
	bpw = m->params ? 8.0 * (double)m->bytes / (double)m->params : 0;
#define EXP(cond) th_report((cond) ? true : false, file, line, \
	"%s: %s: CHECK(%s) failed (scheme %s, precision %s, bits %d, " \
	"group %d, out %llu, in %llu, E %llu, params %llu, bytes %llu, " \
	"bpw %.12f)", what, name, #cond, qa_scheme_name(m->scheme), \
	m->precision, m->bits, m->group_size, (unsigned long long)m->out, \
	(unsigned long long)m->in, (unsigned long long)m->experts, \
	(unsigned long long)m->params, (unsigned long long)m->bytes, bpw)
	EXP(m->scheme == e->scheme);
	EXP(strcmp(m->precision, e->precision) == 0);
	EXP(m->bits == e->bits);
	EXP(m->group_size == e->group);
	EXP(m->out == e->out);
	EXP(m->in == e->in);
	EXP(m->experts == e->experts);
	EXP(m->params == e->params);
	EXP(m->bytes == e->bytes);
	EXP(fabs(bpw - e->bpw) < 1e-9);
	for (k = 0; k < m->n_tensors; k++) {
		const struct qa_tensor *t = &inv->tensors[m->tensors[k]];

		EXP(t->module == (int32_t)(m - inv->modules));
		sum += t->params;
	}
	EXP(sum == m->params);
#undef EXP
}

/* An UNKNOWN module: every tensor keeps its stored elements. */
#define expect_unknown(...) expect_unknown_at(__FILE__, __LINE__, __VA_ARGS__)

static void
expect_unknown_at(const char *file, int line, const char *what,
		  struct qa_inventory *inv, const char *name)
{
	const struct qa_module *m;
	uint64_t elements = 0;
	uint32_t i;

	qa_inventory_summarize(inv);
	m = module(inv, name);
	for (i = 0; i < inv->n_tensors; i++)
		elements += inv->tensors[i].elements;
	th_report(m && m->scheme == QA_SCHEME_UNKNOWN &&
		  m->params == elements && inv->params == elements, file, line,
		  "%s: expected UNKNOWN with %llu params, got %s / %llu", what,
		  (unsigned long long)elements,
		  m ? qa_scheme_name(m->scheme) : "(none)",
		  m ? (unsigned long long)m->params : 0ull);
	qa_inventory_destroy(inv);
}

/* ---- 1. one layer per scheme ---------------------------------------- */

#define Q "model.layers.0.self_attn.q_proj"
#define K "model.layers.0.self_attn.k_proj"
#define G "model.layers.0.mlp.gate_proj"

static void
test_gptq(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * Llama-3.1-8B q_proj [4096 out, 4096 in], GPTQ 4-bit g128 with
	 * desc_act (GPTQModel _register_gptq_buffers):
	 *   qweight I32 [4096*4/32 = 512, 4096]   8388608 B
	 *   qzeros  I32 [4096/128 = 32, 4096*4/32 = 512]  65536 B
	 *   scales  F16 [32, 4096]                262144 B
	 *   g_idx   I32 [4096]                     16384 B
	 * bytes 8732672; params 16777216;
	 * bpw = 4 + (16+4)/128 + 32/4096 = 4.1640625 (§1.4 GPTQ).
	 * No config: bits from the qzeros width (512*32/4096 = 4).
	 */
	const struct expect e = { QA_SCHEME_GPTQ, "GPTQ int4 g128", 4, 128,
		4096, 4096, 1, 16777216, 8732672, 4.1640625 };
	const struct expect e64 = { QA_SCHEME_GPTQ, "GPTQ int4 g64", 4, 64,
		4096, 4096, 1, 16777216, 9060352, 4.3203125 };

	st(inv, Q ".qweight", "I32", 32, 2, U(512), U(4096));
	st(inv, Q ".qzeros", "I32", 32, 2, U(32), U(512));
	st(inv, Q ".scales", "F16", 16, 2, U(32), U(4096));
	st(inv, Q ".g_idx", "I32", 32, 1, U(4096));
	qa_inventory_summarize(inv);
	expect_module("gptq", inv, Q, &e);
	CHECK(module(inv, Q)->act_order);
	CHECK(inv->params == 16777216);
	qa_inventory_destroy(inv);

	/*
	 * The config says bits 4, group 128, but this module was written
	 * with a per-module override to g64 (GPTQModel dynamic): the shape
	 * wins. qweight 8388608 B, qzeros I32 [64, 512] 131072 B, scales F16
	 * [64, 4096] 524288 B, g_idx 16384 B -> 9060352 B;
	 * bpw = 4 + 20/64 + 32/4096 = 4.3203125.
	 */
	inv = fresh();
	inv->quant.method = QA_QM_GPTQ;
	inv->quant.bits = 4;
	inv->quant.group_size = 128;
	st(inv, Q ".qweight", "I32", 32, 2, U(512), U(4096));
	st(inv, Q ".qzeros", "I32", 32, 2, U(64), U(512));
	st(inv, Q ".scales", "F16", 16, 2, U(64), U(4096));
	st(inv, Q ".g_idx", "I32", 32, 1, U(4096));
	qa_inventory_summarize(inv);
	expect_module("gptq-g64", inv, Q, &e64);
	qa_inventory_destroy(inv);
}

static void
test_autoround_gptq(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * AutoRound auto_round:auto_gptq (qlinear_torch_zp.py: no g_idx),
	 * Llama-3.1-8B k_proj [1024 out, 4096 in] 4-bit g128:
	 *   qweight I32 [512, 1024] 2097152 B; qzeros I32 [32, 128] 16384 B;
	 *   scales F16 [32, 1024] 65536 B  -> 2179072 B, 4194304 params,
	 * bpw = 4 + 20/128 = 4.15625.
	 */
	const struct expect e = { QA_SCHEME_GPTQ, "GPTQ int4 g128", 4, 128,
		1024, 4096, 1, 4194304, 2179072, 4.15625 };

	st(inv, K ".qweight", "I32", 32, 2, U(512), U(1024));
	st(inv, K ".qzeros", "I32", 32, 2, U(32), U(128));
	st(inv, K ".scales", "F16", 16, 2, U(32), U(1024));
	qa_inventory_summarize(inv);
	expect_module("autoround-gptq", inv, K, &e);
	CHECK(!module(inv, K)->act_order);
	qa_inventory_destroy(inv);
}

static void
test_awq_gemm(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * AutoAWQ GEMM (awq/modules/linear/gemm.py), Llama-3.1-8B gate_proj
	 * [14336 out, 4096 in] 4-bit g128:
	 *   qweight I32 [4096, 14336/8 = 1792] 29360128 B
	 *   qzeros  I32 [32, 1792]  229376 B; scales F16 [32, 14336] 917504 B
	 * bytes 30507008; params 58720256; bpw = 4 + 20/128 = 4.15625.
	 */
	const struct expect e = { QA_SCHEME_AWQ_GEMM, "AWQ int4 g128", 4, 128,
		14336, 4096, 1, 58720256, 30507008, 4.15625 };

	st(inv, G ".qweight", "I32", 32, 2, U(4096), U(1792));
	st(inv, G ".qzeros", "I32", 32, 2, U(32), U(1792));
	st(inv, G ".scales", "F16", 16, 2, U(32), U(14336));
	qa_inventory_summarize(inv);
	expect_module("awq-gemm", inv, G, &e);
	qa_inventory_destroy(inv);
}

static void
test_awq_gemv(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * AutoAWQ GEMV (gemv.py): q_proj [4096, 4096] 4-bit g128:
	 *   qweight I32 [4096, 4096/8 = 512] 8388608 B
	 *   qzeros I32 [4096, W = calculate_zeros_width(4096,128) = 4] 65536 B
	 *   scales F16 [4096, W*8 = 32] 262144 B
	 * bytes 8716288; bpw = 4 + 20/128 = 4.15625.
	 */
	const struct expect e = { QA_SCHEME_AWQ_GEMV, "AWQ-GEMV int4 g128", 4,
		128, 4096, 4096, 1, 16777216, 8716288, 4.15625 };

	st(inv, Q ".qweight", "I32", 32, 2, U(4096), U(512));
	st(inv, Q ".qzeros", "I32", 32, 2, U(4096), U(4));
	st(inv, Q ".scales", "F16", 16, 2, U(4096), U(32));
	qa_inventory_summarize(inv);
	expect_module("awq-gemv", inv, Q, &e);
	qa_inventory_destroy(inv);
}

static void
test_ct_pack(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * compressed-tensors pack-quantized W4A16 sym g128
	 * (compressors/pack_quantized/base.py), q_proj [4096, 4096]:
	 *   weight_packed I32 [4096, 512] 8388608 B
	 *   weight_scale BF16 [4096, 32] 262144 B; weight_shape I64 [2] 16 B
	 * bytes 8650768; bpw = 4 + 16/128 + 128/16777216 (weight_shape)
	 *                   = 4.125 + 7.62939453125e-06.
	 * No config: the W4A16 default of 4 bits.
	 */
	const struct expect e = { QA_SCHEME_CT_PACK, "int4 g128", 4, 128,
		4096, 4096, 1, 16777216, 8650768,
		4.125 + 128.0 / 16777216.0 };

	st(inv, Q ".weight_packed", "I32", 32, 2, U(4096), U(512));
	st(inv, Q ".weight_scale", "BF16", 16, 2, U(4096), U(32));
	st(inv, Q ".weight_shape", "I64", 64, 1, U(2));
	qa_inventory_summarize(inv);
	expect_module("ct-pack", inv, Q, &e);
	qa_inventory_destroy(inv);
}

static void
test_ct_nvfp4(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * compressed-tensors nvfp4-pack-quantized W4A4 (compressors/nvfp4/
	 * base.py), q_proj [4096, 4096]:
	 *   weight_packed U8 [4096, 2048] 8388608 B
	 *   weight_scale F8_E4M3 [4096, 256] 1048576 B
	 *   weight_global_scale F32 [1] 4 B; input_global_scale F32 [1] 4 B
	 * bytes 9437192; bpw = 4 + 8/16 + 64/16777216 (two F32 scalars).
	 */
	const struct expect e = { QA_SCHEME_NVFP4, "NVFP4", 4, 16, 4096, 4096,
		1, 16777216, 9437192, 4.5 + 64.0 / 16777216.0 };

	st(inv, Q ".weight_packed", "U8", 8, 2, U(4096), U(2048));
	st(inv, Q ".weight_scale", "F8_E4M3", 8, 2, U(4096), U(256));
	st(inv, Q ".weight_global_scale", "F32", 32, 1, U(1));
	st(inv, Q ".input_global_scale", "F32", 32, 1, U(1));
	qa_inventory_summarize(inv);
	expect_module("ct-nvfp4", inv, Q, &e);
	qa_inventory_destroy(inv);
}

#define EXD "model.layers.0.mlp.experts.0.down_proj"

static void
test_modelopt_nvfp4(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * ModelOpt W4A16_NVFP4 (no input_scale; vllm modelopt.py
	 * create_weights), Qwen3-30B-A3B expert down_proj [2048 out,
	 * 768 in]:
	 *   weight U8 [2048, 384] 786432 B
	 *   weight_scale F8_E4M3 [2048, 48] 98304 B
	 *   weight_scale_2 F32 scalar 4 B
	 * bytes 884740; params 1572864; bpw = 4.5 + 32/1572864.
	 */
	const struct expect e = { QA_SCHEME_NVFP4, "NVFP4A16", 4, 16, 2048,
		768, 1, 1572864, 884740, 4.5 + 32.0 / 1572864.0 };

	st(inv, EXD ".weight", "U8", 8, 2, U(2048), U(384));
	st(inv, EXD ".weight_scale", "F8_E4M3", 8, 2, U(2048), U(48));
	st(inv, EXD ".weight_scale_2", "F32", 32, 0);
	qa_inventory_summarize(inv);
	expect_module("modelopt-nvfp4", inv, EXD, &e);
	qa_inventory_destroy(inv);
}

static void
test_ct_mxfp4(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * compressed-tensors mxfp4-pack-quantized (compressors/mxfp4/base.py),
	 * q_proj [4096, 4096]: weight_packed U8 [4096, 2048] 8388608 B,
	 * weight_scale U8 [4096, 128] 524288 B -> 8912896 B, bpw 4 + 8/32
	 * = 4.25.
	 */
	const struct expect e = { QA_SCHEME_MXFP4, "MXFP4", 4, 32, 4096, 4096,
		1, 16777216, 8912896, 4.25 };

	st(inv, Q ".weight_packed", "U8", 8, 2, U(4096), U(2048));
	st(inv, Q ".weight_scale", "U8", 8, 2, U(4096), U(128));
	qa_inventory_summarize(inv);
	expect_module("ct-mxfp4", inv, Q, &e);
	qa_inventory_destroy(inv);
}

static void
test_autoround_mxint4(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * AutoRound MXINT4 (auto_round:llm_compressor, data_type "mx_int"):
	 * the same shapes as MXFP4 above, told apart only by the config,
	 * so the label follows quantization_config.data_type.
	 */
	const struct expect e = { QA_SCHEME_MXFP4, "MXINT4", 4, 32, 4096,
		4096, 1, 16777216, 8912896, 4.25 };

	inv->quant.data_type = "mx_int";
	st(inv, Q ".weight_packed", "U8", 8, 2, U(4096), U(2048));
	st(inv, Q ".weight_scale", "U8", 8, 2, U(4096), U(128));
	qa_inventory_summarize(inv);
	expect_module("autoround-mxint4", inv, Q, &e);
	qa_inventory_destroy(inv);
}

#define GU "model.layers.0.mlp.experts.gate_up_proj"

static void
test_gpt_oss(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * gpt-oss-20b experts (transformers convert_gpt_oss_weights_to_hf.py):
	 * 32 experts, 2*I = 5760 rows, H = 2880 in:
	 *   gate_up_proj_blocks U8 [32, 5760, 90, 16] 265420800 B
	 *   gate_up_proj_scales U8 [32, 5760, 90]      16588800 B
	 * logical 32 * 5760 * 2880 = 530841600; bytes 282009600;
	 * bpw = 4 + 8/32 = 4.25.
	 */
	const struct expect e = { QA_SCHEME_MXFP4, "MXFP4", 4, 32, 5760, 2880,
		32, 530841600, 282009600, 4.25 };
	/* With the bias BF16 [32, 5760] (368640 B, 184320 params, which are
	 * real parameters): params 531025920, bytes 282378240,
	 * bpw = 8 * 282378240 / 531025920. */
	const struct expect eb = { QA_SCHEME_MXFP4, "MXFP4", 4, 32, 5760,
		2880, 32, 531025920, 282378240,
		8.0 * 282378240.0 / 531025920.0 };

	st(inv, GU "_blocks", "U8", 8, 4, U(32), U(5760), U(90), U(16));
	st(inv, GU "_scales", "U8", 8, 3, U(32), U(5760), U(90));
	/* A router bias named like a glued suffix must stay its own. */
	st(inv, "model.layers.0.mlp.router.bias", "BF16", 16, 1, U(32));
	st(inv, "model.layers.0.mlp.gate.e_score_correction_bias", "F32", 32,
	   1, U(256));
	qa_inventory_summarize(inv);
	expect_module("gpt-oss", inv, GU, &e);
	CHECK(inv->params == 530841600 + 32 + 256);
	qa_inventory_destroy(inv);

	inv = fresh();
	st(inv, GU "_blocks", "U8", 8, 4, U(32), U(5760), U(90), U(16));
	st(inv, GU "_scales", "U8", 8, 3, U(32), U(5760), U(90));
	st(inv, GU "_bias", "BF16", 16, 2, U(32), U(5760));
	qa_inventory_summarize(inv);
	expect_module("gpt-oss+bias", inv, GU, &eb);
	qa_inventory_destroy(inv);
}

static void
test_mxfp8(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * MXFP8 (compressed-tensors compressors/mxfp8/base.py), q_proj
	 * [4096, 4096]: weight F8_E4M3 16777216 B, weight_scale U8 [4096, 128]
	 * 524288 B -> bpw 8 + 8/32 = 8.25.
	 */
	const struct expect e = { QA_SCHEME_MXFP8, "MXFP8", 8, 32, 4096, 4096,
		1, 16777216, 17301504, 8.25 };

	st(inv, Q ".weight", "F8_E4M3", 8, 2, U(4096), U(4096));
	st(inv, Q ".weight_scale", "U8", 8, 2, U(4096), U(128));
	qa_inventory_summarize(inv);
	expect_module("mxfp8", inv, Q, &e);
	qa_inventory_destroy(inv);
}

#define DD "model.layers.3.mlp.down_proj"

static void
test_fp8_block(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * DeepSeek-V3 dense down_proj [7168 out, 18432 in], block FP8
	 * (README_WEIGHTS.md): weight F8_E4M3 132120576 B,
	 * weight_scale_inv F32 [ceil(7168/128) = 56, 18432/128 = 144]
	 * 32256 B -> 132152832 B; bpw = 8 + 32/16384 = 8.001953125.
	 */
	const struct expect e = { QA_SCHEME_FP8_BLOCK, "FP8 block 128", 8, 128,
		7168, 18432, 1, 132120576, 132152832, 8.001953125 };

	st(inv, DD ".weight", "F8_E4M3", 8, 2, U(7168), U(18432));
	st(inv, DD ".weight_scale_inv", "F32", 32, 2, U(56), U(144));
	qa_inventory_summarize(inv);
	expect_module("fp8-block", inv, DD, &e);
	qa_inventory_destroy(inv);
}

static void
test_fp8(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * ModelOpt FP8 per-tensor: q_proj weight F8_E4M3 [4096, 4096],
	 * weight_scale F32 scalar, input_scale F32 scalar -> 16777224 B,
	 * bpw 8 + 64/16777216.
	 */
	const struct expect e = { QA_SCHEME_FP8, "FP8", 8, 0, 4096, 4096, 1,
		16777216, 16777224, 8.0 + 64.0 / 16777216.0 };
	/*
	 * compressed-tensors FP8_DYNAMIC per-channel: k_proj [1024, 4096]
	 * weight F8_E4M3 4194304 B, weight_scale BF16 [1024, 1] 2048 B ->
	 * bpw 8 + 16/4096 = 8.00390625.
	 */
	const struct expect ec = { QA_SCHEME_FP8, "FP8 channel", 8, 0, 1024,
		4096, 1, 4194304, 4196352, 8.00390625 };

	st(inv, Q ".weight", "F8_E4M3", 8, 2, U(4096), U(4096));
	st(inv, Q ".weight_scale", "F32", 32, 0);
	st(inv, Q ".input_scale", "F32", 32, 0);
	st(inv, K ".weight", "F8_E4M3", 8, 2, U(1024), U(4096));
	st(inv, K ".weight_scale", "BF16", 16, 2, U(1024), U(1));
	qa_inventory_summarize(inv);
	expect_module("fp8-tensor", inv, Q, &e);
	expect_module("fp8-channel", inv, K, &ec);
	qa_inventory_destroy(inv);
}

static void
test_int8(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * compressed-tensors W8A8 int8 per-channel (int-quantized): q_proj
	 * weight I8 [4096, 4096], weight_scale BF16 [4096, 1] 8192 B ->
	 * bytes 16785408, bpw = 8 + 16/4096 = 8.00390625.
	 */
	const struct expect e = { QA_SCHEME_INT8, "INT8 channel", 8, 0, 4096,
		4096, 1, 16777216, 16785408, 8.00390625 };

	st(inv, Q ".weight", "I8", 8, 2, U(4096), U(4096));
	st(inv, Q ".weight_scale", "BF16", 16, 2, U(4096), U(1));
	qa_inventory_summarize(inv);
	expect_module("int8", inv, Q, &e);
	qa_inventory_destroy(inv);
}

static void
test_modelopt_int4(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * ModelOpt W4A16_AWQ (quant_utils.py to_quantized_weight: two output
	 * rows per byte), q_proj [4096, 4096] g128:
	 *   weight U8 [2048, 4096] 8388608 B; weight_scale F16 [4096, 32]
	 *   262144 B; pre_quant_scale F16 [4096] 8192 B -> 8658944 B;
	 * bpw = 4 + 16/128 + 16/4096 = 4.12890625.
	 */
	const struct expect e = { QA_SCHEME_INT4_MODELOPT, "INT4-AWQ g128", 4,
		128, 4096, 4096, 1, 16777216, 8658944, 4.12890625 };

	st(inv, Q ".weight", "U8", 8, 2, U(2048), U(4096));
	st(inv, Q ".weight_scale", "F16", 16, 2, U(4096), U(32));
	st(inv, Q ".pre_quant_scale", "F16", 16, 1, U(4096));
	qa_inventory_summarize(inv);
	expect_module("modelopt-int4", inv, Q, &e);
	qa_inventory_destroy(inv);
}

static void
test_bnb4(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * bitsandbytes nf4 blocksize 64 (Linear4bit._save_to_state_dict),
	 * q_proj 4096x4096 = 16777216 values:
	 *   weight U8 [8388608, 1] 8388608 B
	 *   weight.absmax F32 [262144] 1048576 B
	 *   weight.quant_map F32 [16] 64 B
	 *   weight.quant_state.bitsandbytes__nf4 U8 [250] 250 B (JSON)
	 * bytes 9437498; params 2 * 8388608 = 16777216 (the [out, in]
	 * factorization is inside the JSON: recorded as [n, 1]);
	 * bpw = 4 + 32/64 + 8*(64+250)/16777216.
	 */
	const struct expect e = { QA_SCHEME_BNB_4BIT, "bnb nf4", 4, 64,
		16777216, 1, 1, 16777216, 9437498,
		4.5 + 8.0 * 314.0 / 16777216.0 };
	/*
	 * Double quant, fp4: absmax U8 [262144] 262144 B, nested_absmax F32
	 * [1024] 4096 B, nested_quant_map F32 [256] 1024 B, quant_map 64 B,
	 * quant_state 250 B -> 8656186 B;
	 * bpw = 4 + 8/64 + 32/(64*256) + 8*(1024+64+250)/16777216
	 *     = 4.126953125 + 8*1338/16777216 (§1.4: ≈ 4.127).
	 */
	const struct expect ed = { QA_SCHEME_BNB_4BIT, "bnb fp4", 4, 64,
		16777216, 1, 1, 16777216, 8656186,
		4.126953125 + 8.0 * 1338.0 / 16777216.0 };

	st(inv, Q ".weight", "U8", 8, 2, U(8388608), U(1));
	st(inv, Q ".weight.absmax", "F32", 32, 1, U(262144));
	st(inv, Q ".weight.quant_map", "F32", 32, 1, U(16));
	st(inv, Q ".weight.quant_state.bitsandbytes__nf4", "U8", 8, 1, U(250));
	st(inv, K ".weight", "U8", 8, 2, U(8388608), U(1));
	st(inv, K ".weight.absmax", "U8", 8, 1, U(262144));
	st(inv, K ".weight.quant_map", "F32", 32, 1, U(16));
	st(inv, K ".weight.nested_absmax", "F32", 32, 1, U(1024));
	st(inv, K ".weight.nested_quant_map", "F32", 32, 1, U(256));
	st(inv, K ".weight.quant_state.bitsandbytes__fp4", "U8", 8, 1, U(250));
	qa_inventory_summarize(inv);
	expect_module("bnb-nf4", inv, Q, &e);
	expect_module("bnb-fp4-dq", inv, K, &ed);
	qa_inventory_destroy(inv);
}

static void
test_bnb8(void)
{
	struct qa_inventory *inv = fresh();
	/*
	 * bitsandbytes int8 (Linear8bitLt._save_to_state_dict): weight I8
	 * [4096, 4096], SCB F32 [4096] 16384 B, weight_format U8 scalar 1 B
	 * -> 16793601 B; bpw = 8 + 32/4096 + 8/16777216.
	 */
	const struct expect e = { QA_SCHEME_BNB_8BIT, "bnb int8", 8, 0, 4096,
		4096, 1, 16777216, 16793601,
		8.0 + 32.0 / 4096.0 + 8.0 / 16777216.0 };

	st(inv, Q ".weight", "I8", 8, 2, U(4096), U(4096));
	st(inv, Q ".SCB", "F32", 32, 1, U(4096));
	st(inv, Q ".weight_format", "U8", 8, 0);
	qa_inventory_summarize(inv);
	expect_module("bnb-int8", inv, Q, &e);
	qa_inventory_destroy(inv);
}

static void
test_dense(void)
{
	struct qa_inventory *inv = fresh();
	/* BF16 q_proj with a Qwen2-style bias: 16777216 + 4096 params,
	 * 2 bytes each -> bpw 16. */
	const struct expect e = { QA_SCHEME_DENSE, "BF16", 16, 0, 4096, 4096,
		1, 16781312, 33562624, 16.0 };
	/* transformers fused experts Qwen3-30B-A3B gate_up_proj BF16
	 * [128, 1536, 2048]: experts 128, out 1536, in 2048. */
	const struct expect ex = { QA_SCHEME_DENSE, "BF16", 16, 0, 1536, 2048,
		128, 402653184, 805306368, 16.0 };
	/* An F32 norm: [4096] -> out 4096, in 1, bpw 32. */
	const struct expect en = { QA_SCHEME_DENSE, "F32", 32, 0, 4096, 1, 1,
		4096, 16384, 32.0 };
	const struct qa_component *c = NULL;
	uint32_t i;

	st(inv, Q ".weight", "BF16", 16, 2, U(4096), U(4096));
	st(inv, Q ".bias", "BF16", 16, 1, U(4096));
	st(inv, "model.layers.0.mlp.experts.gate_up_proj", "BF16", 16, 3,
	   U(128), U(1536), U(2048));
	st(inv, "model.layers.0.input_layernorm.weight", "F32", 32, 1,
	   U(4096));
	qa_inventory_summarize(inv);
	expect_module("dense", inv, Q, &e);
	expect_module("dense-experts", inv,
		      "model.layers.0.mlp.experts.gate_up_proj", &ex);
	expect_module("dense-norm", inv, "model.layers.0.input_layernorm",
		      &en);
	/* The attn_q component's histogram: one BF16 module. */
	for (i = 0; i < inv->n_components; i++)
		if (strcmp(inv->components[i].name, "attn_q") == 0)
			c = &inv->components[i];
	CHECK(c && c->n_precisions == 1 &&
	      strcmp(c->precisions[0].precision, "BF16") == 0 &&
	      c->precisions[0].modules == 1 &&
	      c->precisions[0].params == 16781312 &&
	      c->precisions[0].bytes == 33562624);
	qa_inventory_destroy(inv);
}

static void
test_gguf(void)
{
	struct qa_inventory *inv = fresh();
	const struct qa_component *c = NULL;
	uint32_t i;
	/* Q4_K (block 256, 144 B; §A9): [ne0 4096, ne1 4096] ->
	 * 65536 blocks * 144 = 9437184 B, bpw 4.5. */
	const struct expect eq = { QA_SCHEME_GGML, "Q4_K", 4, 256, 4096, 4096,
		1, 16777216, 9437184, 4.5 };
	/* Qwen3-30B-A3B ffn_down_exps Q6_K [ne0 768, ne1 2048, ne2 128]:
	 * 201326592 values / 256 * 210 = 165150720 B, bpw 6.5625. */
	const struct expect ex = { QA_SCHEME_GGML, "Q6_K", 6, 256, 2048, 768,
		128, 201326592, 165150720, 6.5625 };
	/* NVFP4 (block 64, 36 B) attn_k [ne0 4096, ne1 1024] 2359296 B plus
	 * its .scale companion F32 [1] 4 B: bpw 4.5 + 32/4194304. */
	const struct expect en = { QA_SCHEME_GGML, "NVFP4", 4, 64, 1024, 4096,
		1, 4194304, 2359300, 4.5 + 32.0 / 4194304.0 };

	inv->kind = QA_KIND_GGUF;
	gg(inv, "blk.0.attn_q.weight", "Q4_K", 12, 9437184, 2, U(4096),
	   U(4096));
	gg(inv, "blk.0.ffn_down_exps.weight", "Q6_K", 14, 165150720, 3,
	   U(768), U(2048), U(128));
	gg(inv, "blk.0.attn_k.weight", "NVFP4", 40, 2359296, 2, U(4096),
	   U(1024));
	gg(inv, "blk.0.attn_k.scale", "F32", 0, 4, 1, U(1));
	gg(inv, "blk.0.attn_q.bias", "F32", 0, 16384, 1, U(4096));
	qa_inventory_summarize(inv);
	expect_module("gguf-q4k", inv, "blk.0.attn_q.weight", &eq);
	expect_module("gguf-exps", inv, "blk.0.ffn_down_exps.weight", &ex);
	expect_module("gguf-nvfp4", inv, "blk.0.attn_k.weight", &en);
	CHECK(inv->n_modules == 4);
	for (i = 0; i < inv->n_components; i++)
		if (strcmp(inv->components[i].name, "attn_q") == 0)
			c = &inv->components[i];
	/* attn_q: a Q4_K weight module and an F32 bias module. */
	CHECK(c && c->n_precisions == 2);
	qa_inventory_destroy(inv);
}

/* ---- 2. malformed ---------------------------------------------------- */

static void
test_malformed(void)
{
	struct qa_inventory *inv;

	/* GPTQ without scales */
	inv = fresh();
	st(inv, Q ".qweight", "I32", 32, 2, U(512), U(4096));
	st(inv, Q ".qzeros", "I32", 32, 2, U(32), U(512));
	expect_unknown("gptq-no-scales", inv, Q);
	/* GPTQ whose 33 scale rows do not divide in = 4096 */
	inv = fresh();
	st(inv, Q ".qweight", "I32", 32, 2, U(512), U(4096));
	st(inv, Q ".qzeros", "I32", 32, 2, U(33), U(512));
	st(inv, Q ".scales", "F16", 16, 2, U(33), U(4096));
	expect_unknown("gptq-groups", inv, Q);
	/* GPTQ with zero-sized dims */
	inv = fresh();
	st(inv, Q ".qweight", "I32", 32, 2, U(0), U(4096));
	st(inv, Q ".scales", "F16", 16, 2, U(0), U(4096));
	expect_unknown("gptq-zero", inv, Q);
	/* AWQ GEMM whose qzeros width disagrees with qweight */
	inv = fresh();
	st(inv, G ".qweight", "I32", 32, 2, U(4096), U(1792));
	st(inv, G ".qzeros", "I32", 32, 2, U(32), U(1000));
	st(inv, G ".scales", "F16", 16, 2, U(32), U(14336));
	expect_unknown("awq-zeros", inv, G);
	/* AWQ GEMV with scales not 8x the zeros width */
	inv = fresh();
	st(inv, Q ".qweight", "I32", 32, 2, U(4096), U(512));
	st(inv, Q ".qzeros", "I32", 32, 2, U(4096), U(4));
	st(inv, Q ".scales", "F16", 16, 2, U(4096), U(31));
	expect_unknown("awq-gemv", inv, Q);
	/* CT pack without weight_scale */
	inv = fresh();
	st(inv, Q ".weight_packed", "I32", 32, 2, U(4096), U(512));
	st(inv, Q ".weight_shape", "I64", 64, 1, U(2));
	expect_unknown("ct-pack-no-scale", inv, Q);
	/* CT pack with 33 scale columns for in 4096 */
	inv = fresh();
	st(inv, Q ".weight_packed", "I32", 32, 2, U(4096), U(512));
	st(inv, Q ".weight_scale", "BF16", 16, 2, U(4096), U(33));
	expect_unknown("ct-pack-groups", inv, Q);
	/* NVFP4 without its global scale */
	inv = fresh();
	st(inv, Q ".weight_packed", "U8", 8, 2, U(4096), U(2048));
	st(inv, Q ".weight_scale", "F8_E4M3", 8, 2, U(4096), U(256));
	expect_unknown("nvfp4-no-global", inv, Q);
	/* MXFP4 with a group-16 scale */
	inv = fresh();
	st(inv, Q ".weight_packed", "U8", 8, 2, U(4096), U(2048));
	st(inv, Q ".weight_scale", "U8", 8, 2, U(4096), U(256));
	expect_unknown("mxfp4-scale", inv, Q);
	/* ModelOpt NVFP4 with a scale of the wrong width */
	inv = fresh();
	st(inv, EXD ".weight", "U8", 8, 2, U(2048), U(384));
	st(inv, EXD ".weight_scale", "F8_E4M3", 8, 2, U(2048), U(47));
	st(inv, EXD ".weight_scale_2", "F32", 32, 0);
	expect_unknown("modelopt-nvfp4", inv, EXD);
	/* gpt-oss blocks without scales */
	inv = fresh();
	st(inv, GU "_blocks", "U8", 8, 4, U(32), U(5760), U(90), U(16));
	expect_unknown("gpt-oss-no-scales", inv, GU);
	/* MXFP8 with a 64-wide scale */
	inv = fresh();
	st(inv, Q ".weight", "F8_E4M3", 8, 2, U(4096), U(4096));
	st(inv, Q ".weight_scale", "U8", 8, 2, U(4096), U(64));
	expect_unknown("mxfp8", inv, Q);
	/* FP8 block with a scale_inv for block 64 (no config) */
	inv = fresh();
	st(inv, DD ".weight", "F8_E4M3", 8, 2, U(7168), U(18432));
	st(inv, DD ".weight_scale_inv", "F32", 32, 2, U(112), U(288));
	expect_unknown("fp8-block", inv, DD);
	/* an FP8 weight with no scale at all */
	inv = fresh();
	st(inv, Q ".weight", "F8_E4M3", 8, 2, U(4096), U(4096));
	expect_unknown("fp8-alone", inv, Q);
	/* INT8 with a scale that fits no strategy */
	inv = fresh();
	st(inv, Q ".weight", "I8", 8, 2, U(4096), U(4096));
	st(inv, Q ".weight_scale", "BF16", 16, 2, U(4095), U(3));
	expect_unknown("int8", inv, Q);
	/* ModelOpt INT4-AWQ with scale rows != 2 * weight rows */
	inv = fresh();
	st(inv, Q ".weight", "U8", 8, 2, U(2048), U(4096));
	st(inv, Q ".weight_scale", "F16", 16, 2, U(2048), U(32));
	st(inv, Q ".pre_quant_scale", "F16", 16, 1, U(4096));
	expect_unknown("modelopt-int4", inv, Q);
	/* bnb 4-bit without absmax */
	inv = fresh();
	st(inv, Q ".weight", "U8", 8, 2, U(8388608), U(1));
	st(inv, Q ".weight.quant_state.bitsandbytes__nf4", "U8", 8, 1, U(250));
	expect_unknown("bnb4", inv, Q);
	/* bnb int8 whose SCB is not [out] */
	inv = fresh();
	st(inv, Q ".weight", "I8", 8, 2, U(4096), U(4096));
	st(inv, Q ".SCB", "F32", 32, 1, U(4095));
	expect_unknown("bnb8", inv, Q);
	/* an integer weight alone is not dense */
	inv = fresh();
	st(inv, Q ".weight", "I32", 32, 2, U(4096), U(4096));
	expect_unknown("int-alone", inv, Q);
	/* a GPTQ whose dims overflow 64 bits when multiplied */
	inv = fresh();
	st(inv, Q ".qweight", "I32", 32, 2, U(1) << 40, U(1) << 40);
	st(inv, Q ".qzeros", "I32", 32, 2, U(1) << 30, U(1) << 37);
	st(inv, Q ".scales", "F16", 16, 2, U(1) << 30, U(1) << 40);
	inv->tensors[0].elements = 0;	/* as the parser leaves overflow */
	inv->tensors[1].elements = 0;
	inv->tensors[2].elements = 0;
	expect_unknown("overflow", inv, Q);
}

/* ---- 3. corpus ------------------------------------------------------- */

static void
corpus_one(const char *dir, const char *rel, bool gguf)
{
	struct qa_inventory *inv = th_inspect(dir, rel);
	uint64_t elements = 0, mparams = 0;
	uint32_t i;

	if (!inv)
		return;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		elements += t->elements;
		CHECK(t->params == t->elements);
		CHECK(t->module >= 0);
	}
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];

		CHECK(m->scheme == (gguf ? QA_SCHEME_GGML : QA_SCHEME_DENSE));
		mparams += m->params;
	}
	CHECK(mparams == elements);
	CHECK(inv->params == elements);
	printf("corpus %s: %u tensors, %u modules, %llu params\n", rel,
	       inv->n_tensors, inv->n_modules, (unsigned long long)elements);
	qa_inventory_destroy(inv);
}

static void
test_corpus(void)
{
	static const char *const hf[] = {
		"hf/llama", "hf/gemma3_text", "hf/qwen3_moe",
		"hf/deepseek_v3_mtp",
	};
	static const char *const gguf[] = {
		"gguf/llama-bf16.gguf", "gguf/llama-q8_0.gguf",
		"gguf/gemma3_text-q8_0.gguf", "gguf/qwen3_moe-q8_0.gguf",
		"gguf/deepseek_v3_mtp-bf16.gguf",
	};
	const char *dir = th_env_dir("QA_CORPUS");
	size_t i;

	if (!dir) {
		printf("corpus not found: real-file checks skipped\n");
		return;
	}
	for (i = 0; i < sizeof(hf) / sizeof(hf[0]); i++)
		corpus_one(dir, hf[i], false);
	for (i = 0; i < sizeof(gguf) / sizeof(gguf[0]); i++)
		corpus_one(dir, gguf[i], true);
}

int
main(void)
{
	test_gptq();
	test_autoround_gptq();
	test_awq_gemm();
	test_awq_gemv();
	test_ct_pack();
	test_ct_nvfp4();
	test_modelopt_nvfp4();
	test_ct_mxfp4();
	test_autoround_mxint4();
	test_gpt_oss();
	test_mxfp8();
	test_fp8_block();
	test_fp8();
	test_int8();
	test_modelopt_int4();
	test_bnb4();
	test_bnb8();
	test_dense();
	test_gguf();
	test_malformed();
	test_corpus();
	return th_done("quant-modules");
}
