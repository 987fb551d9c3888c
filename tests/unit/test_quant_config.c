/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the quantization claim (formats/quant_config.c): each
 * method's real config files, in the exact shapes the producing tools write
 * (../shared/knowledge/quant-formats.md §A1-A8, sources cited per case),
 * are written into a fresh mkdtemp folder and loaded through the folder
 * loader (formats/hf_dir.c) or the single-file loader (formats/st_set.c).
 * Every parsed field and every claim below was decided by hand from the
 * method's documented consumer semantics (the comment on each line says
 * why), never copied from the code's output. Also the precedence of
 * §1.2: config.json over side files, side files when config.json has
 * none, an invalid side file ignored with QA1401.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "formats/format.h"
#include "harness.h"

/* claim(qc, module, role) must be v with bits b */
#define CLAIM(qc, name, role, v, b) check_claim((qc), (name), \
	QA_ROLE_##role, (v), (b), __FILE__, __LINE__)

static void
check_claim(const struct qa_quant_config *qc, const char *name,
	    enum qa_role role, int v, int b, const char *file, int line)
{
	int bits = -2;
	int got = qa_quant_claim(qc, name, role, &bits);

	th_report(got == v && bits == b, file, line,
		  "claim(%s, %s) = %d bits %d, expected %d bits %d", name,
		  qa_role_name(role), got, bits, v, b);
}

/* Writes s with every ' turned into " (keeps the JSON below readable). */
static void
write_json(const char *rel, const char *s)
{
	size_t n = strlen(s), i;
	char *t = malloc(n + 1);

	if (!t)
		exit(2);
	for (i = 0; i <= n; i++)
		t[i] = s[i] == '\'' ? '"' : s[i];
	th_write(rel, t, n);
	free(t);
}

static struct qa_inventory *
load_dir(const char *rel)
{
	struct qa_inventory *inv = qa_inventory_create(th_path(rel));

	if (!inv) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	qa_hf_load_dir(inv, th_path(rel));
	return inv;
}

#define LLAMA_CFG "'model_type':'llama','num_hidden_layers':32"

/* ---- AutoRound (§A1) ----------------------------------------------------- */

/* Qwen3.6-27B-like W4A16, packing auto_round:auto_gptq, MTP and attention
 * kept 16-bit through extra_config {"bits": 16, "data_type": "fp"}
 * (intel/auto-round export_to_autoround/export.py,
 * utils/missing_tensors.py); AutoRound also writes the same config to
 * quantization_config.json (export/utils.py save_model). */
#define AR_QC "{'autoround_version':'0.9.1','bits':4,'data_type':'int'," \
	"'group_size':128,'sym':true,'iters':200,'nsamples':512," \
	"'seqlen':2048,'low_gpu_mem_usage':true,'act_bits':16," \
	"'packing_format':'auto_round:auto_gptq','quant_method':'auto-round'," \
	"'block_name_to_quantize':'model.language_model.layers,mtp.layers'," \
	"'extra_config':{'mtp.fc':{'bits':16,'data_type':'fp'}," \
	"'.*self_attn.*':{'bits':16,'data_type':'fp'}," \
	"'model.language_model.layers.0.mlp.down_proj':{'bits':8}}}"

static void
test_autoround(void)
{
	struct qa_inventory *inv;
	const struct qa_quant_config *qc;

	write_json("ar/config.json", "{'model_type':'qwen3_5',"
		   "'architectures':['Qwen3_5ForConditionalGeneration'],"
		   "'text_config':{'model_type':'qwen3_5_text',"
		   "'num_hidden_layers':64},'quantization_config':" AR_QC "}");
	write_json("ar/quantization_config.json", AR_QC);
	inv = load_dir("ar");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_AUTOROUND);
	CHECK_STR(qc->method_raw, "auto-round");
	CHECK_STR(qc->file, th_path("ar/config.json"));
	CHECK_STR(qc->key, "quantization_config");
	CHECK_STR(inv->quant_config_file, th_path("ar/config.json"));
	/* the side file says the same method: nothing shadowed */
	CHECK(qc->shadowed_file == NULL);
	CHECK_STR(qc->format, "auto_round:auto_gptq");
	CHECK_EQ(qc->bits, 4);
	CHECK_EQ(qc->group_size, 128);
	CHECK_EQ(qc->sym, 1);
	CHECK_STR(qc->data_type, "int");
	CHECK_EQ(qc->act_bits, 16);
	CHECK_EQ(qc->n_blocks, 2);
	if (qc->n_blocks == 2) {
		CHECK_STR(qc->blocks[0], "model.language_model.layers");
		CHECK_STR(qc->blocks[1], "mtp.layers");
	}
	/* two exact names, then the one regex key */
	CHECK_EQ(qc->n_overrides, 3);
	if (qc->n_overrides == 3) {
		CHECK_STR(qc->overrides[0].pattern.text, "mtp.fc");
		CHECK_EQ(qc->overrides[0].pattern.kind, QA_PAT_EXACT);
		CHECK(qc->overrides[0].skip);
		CHECK_EQ(qc->overrides[1].bits, 8);
		CHECK(!qc->overrides[1].skip);
		CHECK_EQ(qc->overrides[2].pattern.kind, QA_PAT_REGEX);
		CHECK(qc->overrides[2].skip);
	}
	/* regex .*self_attn.* at 16 bits: kept BF16 */
	CLAIM(qc, "model.language_model.layers.3.self_attn.q_proj", ATTN_Q,
	      0, -1);
	/* linear attention inside the blocks: the global 4 bits */
	CLAIM(qc, "model.language_model.layers.0.linear_attn.in_proj_qkvz",
	      GDN_QKV, 1, 4);
	/* exact extra_config name: 8 bits */
	CLAIM(qc, "model.language_model.layers.0.mlp.down_proj", FFN_DOWN,
	      1, 8);
	/* layer 10 is not layer 0: the exact key does not apply */
	CLAIM(qc, "model.language_model.layers.10.mlp.down_proj", FFN_DOWN,
	      1, 4);
	CLAIM(qc, "model.language_model.layers.1.mlp.up_proj", FFN_UP, 1, 4);
	/* mtp.layers is a listed block: MTP MLP quantized */
	CLAIM(qc, "mtp.layers.0.mlp.gate_proj", FFN_GATE, 1, 4);
	/* ...but its attention matches the regex */
	CLAIM(qc, "mtp.layers.0.self_attn.o_proj", ATTN_O, 0, -1);
	/* mtp.fc is outside every block and kept 16-bit by name */
	CLAIM(qc, "mtp.fc", MTP_EH_PROJ, 0, -1);
	/* embeddings and the LM head are outside the blocks */
	CLAIM(qc, "model.language_model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	/* norms are never quantized */
	CLAIM(qc, "model.language_model.layers.0.input_layernorm", NORM, 0,
	      -1);
	/* the vision tower is not in block_name_to_quantize */
	CLAIM(qc, "model.visual.blocks.0.attn.qkv", VISION, 0, -1);
	qa_inventory_destroy(inv);
}

/* ---- GPTQ (§A2) ---------------------------------------------------------- */

/* GPTQModel v1 checkpoint with act-order and dynamic rules, in the
 * quantize_config.json side file only (ModelCloud/GPTQModel
 * gptqmodel/quantization/config.py to_dict). JSON "\\." is regex "\.". */
static void
test_gptq(void)
{
	struct qa_inventory *inv;
	const struct qa_quant_config *qc;

	write_json("gptq/config.json", "{" LLAMA_CFG "}");
	write_json("gptq/quantize_config.json",
		   "{'bits':4,'checkpoint_format':'gptq','desc_act':true,"
		   "'dynamic':{'-:.*lm_head':{},"
		   "'-:model\\\\.layers\\\\.0\\\\..*':{},"
		   "'+:.*down_proj':{'bits':8,'group_size':-1}},"
		   "'group_size':128,'lm_head':false,"
		   "'meta':{'quantizer':['gptqmodel:4.0.0'],"
		   "'damp_percent':0.05},'pack_dtype':'int32',"
		   "'quant_method':'gptq','sym':true,'true_sequential':true}");
	inv = load_dir("gptq");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_GPTQ);
	/* config.json has no quantization_config: the side file wins */
	CHECK_STR(qc->file, th_path("gptq/quantize_config.json"));
	CHECK_STR(qc->key, "quantize_config.json");
	CHECK_STR(inv->quant_config_file, th_path("gptq/quantize_config.json"));
	CHECK_STR(qc->format, "gptq");
	CHECK_EQ(qc->bits, 4);
	CHECK_EQ(qc->group_size, 128);
	CHECK_EQ(qc->desc_act, 1);
	CHECK_EQ(qc->sym, 1);
	CHECK_EQ(qc->lm_head, 0);
	CHECK_EQ(qc->n_overrides, 3);
	if (qc->n_overrides == 3) {
		CHECK_STR(qc->overrides[0].pattern.text, ".*lm_head");
		CHECK_EQ(qc->overrides[0].pattern.kind, QA_PAT_REGEX);
		CHECK(qc->overrides[0].skip);
		CHECK(!qc->overrides[2].skip);
		CHECK_EQ(qc->overrides[2].bits, 8);
		CHECK_EQ(qc->overrides[2].group_size, 0);	/* -1 */
	}
	/* "-:model\.layers\.0\..*" skips all of layer 0 */
	CLAIM(qc, "model.layers.0.self_attn.q_proj", ATTN_Q, 0, -1);
	CLAIM(qc, "model.layers.0.mlp.down_proj", FFN_DOWN, 0, -1);
	/* layer 1: no rule before "+:.*down_proj" matches q_proj */
	CLAIM(qc, "model.layers.1.self_attn.q_proj", ATTN_Q, 1, 4);
	/* "model.layers.10." is not "model.layers.0." */
	CLAIM(qc, "model.layers.10.self_attn.q_proj", ATTN_Q, 1, 4);
	/* positive override: 8 bits */
	CLAIM(qc, "model.layers.1.mlp.down_proj", FFN_DOWN, 1, 8);
	CLAIM(qc, "model.layers.7.mlp.experts.3.up_proj", EXPERT_UP, 1, 4);
	/* lm_head false; embeddings never; routers built unquantized */
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "model.layers.7.mlp.gate", ROUTER, 0, -1);
	CLAIM(qc, "model.norm", NORM, 0, -1);
	/* outside the decoder blocks */
	CLAIM(qc, "model.visual.blocks.0.attn.qkv", VISION, 0, -1);
	CLAIM(qc, "mtp.layers.0.mlp.up_proj", FFN_UP, 0, -1);
	qa_inventory_destroy(inv);

	/* lm_head: true and modules_in_block_to_quantize (optimum: list of
	 * lists, substring semantics in vLLM is_layer_skipped); \d and a
	 * bracket class translated to POSIX. */
	write_json("gptq2/config.json", "{" LLAMA_CFG ",'quantization_config':"
		   "{'quant_method':'gptq','bits':4,'group_size':-1,"
		   "'desc_act':false,'lm_head':true,"
		   "'modules_in_block_to_quantize':[['self_attn.k_proj',"
		   "'self_attn.v_proj','self_attn.q_proj'],['mlp.up_proj']],"
		   "'dynamic':{'-:model\\\\.layers\\\\.[3-5]\\\\.mlp\\\\..*':{},"
		   "'+:model\\\\.layers\\\\.\\\\d+\\\\.self_attn\\\\.q_proj':"
		   "{'bits':8}}}}");
	inv = load_dir("gptq2");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_GPTQ);
	CHECK_EQ(qc->group_size, 0);	/* -1 = per-channel */
	CHECK_EQ(qc->desc_act, 0);
	CHECK_EQ(qc->lm_head, 1);
	CHECK_EQ(qc->n_targets, 4);
	if (qc->n_targets == 4)
		CHECK_EQ(qc->targets[3].kind, QA_PAT_SUBSTRING);
	CHECK_EQ(qc->n_overrides, 2);
	/* \d+ translated: 8 bits */
	CLAIM(qc, "model.layers.12.self_attn.q_proj", ATTN_Q, 1, 8);
	/* [3-5]: layer 4 MLP skipped */
	CLAIM(qc, "model.layers.4.mlp.up_proj", FFN_UP, 0, -1);
	/* listed in modules_in_block_to_quantize */
	CLAIM(qc, "model.layers.6.mlp.up_proj", FFN_UP, 1, 4);
	CLAIM(qc, "model.layers.6.self_attn.v_proj", ATTN_V, 1, 4);
	/* not listed: kept unquantized */
	CLAIM(qc, "model.layers.6.self_attn.o_proj", ATTN_O, 0, -1);
	CLAIM(qc, "model.layers.6.mlp.down_proj", FFN_DOWN, 0, -1);
	/* lm_head: true */
	CLAIM(qc, "lm_head", LM_HEAD, 1, 4);
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	qa_inventory_destroy(inv);

	/* A lookahead POSIX cannot express: every module that reaches the
	 * rule is unknown, never a crash; embeddings and norms are decided
	 * before dynamic is consulted. */
	write_json("gptq3/config.json", "{" LLAMA_CFG ",'quantization_config':"
		   "{'quant_method':'gptq','bits':4,'group_size':128,"
		   "'dynamic':{'-:(?!.*expert).*v_proj$':{}}}}");
	inv = load_dir("gptq3");
	qc = &inv->quant;
	CHECK_EQ(qc->n_overrides, 1);
	qa_claims_resolve(inv);	/* the analysis marks and counts patterns */
	if (qc->n_overrides == 1) {
		CHECK(qc->overrides[0].pattern.untranslatable);
		CHECK_EQ(qc->overrides[0].pattern.matches, -1);
	}
	CLAIM(qc, "model.layers.0.self_attn.v_proj", ATTN_V, -1, -1);
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "model.layers.0.input_layernorm", NORM, 0, -1);
	qa_inventory_destroy(inv);
}

/* ---- AWQ (§A3) ----------------------------------------------------------- */

static void
test_awq(void)
{
	struct qa_inventory *inv;
	const struct qa_quant_config *qc;

	/* Qwen2-VL AWQ (casper-hansen/AutoAWQ awq/models/_config.py
	 * to_transformers_dict, qwen2vl.py modules_to_not_convert). */
	write_json("awq/config.json", "{'model_type':'qwen2_vl',"
		   "'num_hidden_layers':28,'quantization_config':{'bits':4,"
		   "'group_size':128,'modules_to_not_convert':['visual'],"
		   "'quant_method':'awq','version':'gemm','zero_point':true}}");
	inv = load_dir("awq");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_AWQ);
	CHECK_STR(qc->format, "gemm");
	CHECK_EQ(qc->bits, 4);
	CHECK_EQ(qc->group_size, 128);
	CHECK_EQ(qc->sym, 0);		/* zero_point: asymmetric */
	CHECK_EQ(qc->n_exclude, 1);
	if (qc->n_exclude == 1)
		CHECK_EQ(qc->exclude[0].kind, QA_PAT_SUBSTRING);
	CLAIM(qc, "model.layers.0.self_attn.q_proj", ATTN_Q, 1, 4);
	CLAIM(qc, "model.layers.27.mlp.down_proj", FFN_DOWN, 1, 4);
	CLAIM(qc, "model.layers.3.mlp.gate_proj", FFN_GATE, 1, 4);
	/* "visual" is a substring of the tower's names */
	CLAIM(qc, "visual.blocks.0.attn.qkv", VISION, 0, -1);
	CLAIM(qc, "visual.merger.mlp.0", PROJECTOR, 0, -1);
	/* only decoder-block Linears are processed */
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	CLAIM(qc, "model.norm", NORM, 0, -1);
	CLAIM(qc, "model.layers.0.post_attention_layernorm", NORM, 0, -1);
	qa_inventory_destroy(inv);

	/* Legacy AutoAWQ quant_config.json: w_bit / q_group_size / version,
	 * no quant_method: the file and its keys say AWQ. */
	write_json("awq2/config.json", "{" LLAMA_CFG "}");
	write_json("awq2/quant_config.json", "{'zero_point':true,"
		   "'q_group_size':64,'w_bit':4,'version':'GEMV'}");
	inv = load_dir("awq2");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_AWQ);
	CHECK(qc->method_raw == NULL);
	CHECK_EQ(qc->bits, 4);
	CHECK_EQ(qc->group_size, 64);
	CHECK_STR(qc->format, "GEMV");
	CHECK_STR(qc->file, th_path("awq2/quant_config.json"));
	qa_inventory_destroy(inv);
}

/* ---- compressed-tensors (§A4) ------------------------------------------ */

static void
test_ct(void)
{
	struct qa_inventory *inv;
	const struct qa_quant_config *qc;

	/* llm-compressor W4A16 on a Qwen3-MoE (vllm-project/llm-compressor
	 * examples; compressed-tensors model_compressor.py update_config). */
	write_json("ct/config.json", "{'model_type':'qwen3_moe',"
		   "'num_hidden_layers':48,'quantization_config':{"
		   "'config_groups':{'group_0':{'format':'pack-quantized',"
		   "'input_activations':null,'output_activations':null,"
		   "'targets':['Linear'],'weights':{'actorder':null,"
		   "'block_structure':null,'dynamic':false,'group_size':128,"
		   "'num_bits':4,'observer':'minmax','observer_kwargs':{},"
		   "'strategy':'group','symmetric':true,'type':'int'}}},"
		   "'format':'pack-quantized','global_compression_ratio':null,"
		   "'ignore':['lm_head','re:.*self_attn.*','re:.*mlp.gate$'],"
		   "'kv_cache_scheme':null,'quant_method':'compressed-tensors',"
		   "'quantization_status':'compressed','sparsity_config':{},"
		   "'transform_config':{},'version':'0.12.2'}}");
	inv = load_dir("ct");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_COMPRESSED_TENSORS);
	CHECK_STR(qc->format, "pack-quantized");
	CHECK_EQ(qc->bits, 4);
	CHECK_EQ(qc->group_size, 128);
	CHECK_EQ(qc->sym, 1);
	CHECK_STR(qc->data_type, "int");
	CHECK_EQ(qc->act_bits, 16);	/* input_activations null */
	CHECK_EQ(qc->desc_act, 0);	/* actorder null */
	CHECK(qc->kv_cache == NULL);
	CHECK_EQ(qc->n_exclude, 3);
	if (qc->n_exclude == 3) {
		CHECK_EQ(qc->exclude[0].kind, QA_PAT_EXACT);
		CHECK_EQ(qc->exclude[1].kind, QA_PAT_REGEX);
		CHECK_STR(qc->exclude[1].text, ".*self_attn.*");
	}
	CHECK_EQ(qc->n_targets, 1);
	CHECK_EQ(qc->n_overrides, 1);
	if (qc->n_overrides == 1)
		CHECK_STR(qc->overrides[0].scheme, "int");
	CLAIM(qc, "model.layers.0.self_attn.q_proj", ATTN_Q, 0, -1);
	CLAIM(qc, "model.layers.5.self_attn.o_proj", ATTN_O, 0, -1);
	/* re:.*mlp.gate$ ends at "gate": the router only */
	CLAIM(qc, "model.layers.0.mlp.gate", ROUTER, 0, -1);
	CLAIM(qc, "model.layers.0.mlp.experts.7.down_proj", EXPERT_DOWN, 1,
	      4);
	CLAIM(qc, "model.layers.3.mlp.experts.0.gate_proj", EXPERT_GATE, 1,
	      4);
	CLAIM(qc, "model.layers.0.mlp.shared_expert.gate_proj",
	      SHARED_EXPERT_GATE, 1, 4);
	/* exact "lm_head" */
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	/* an Embedding is not a Linear target */
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "model.norm", NORM, 0, -1);
	/* vision: a Linear or a conv? cannot tell from the role */
	CLAIM(qc, "model.visual.blocks.0.mlp.fc1", VISION, -1, -1);
	qa_inventory_destroy(inv);

	/* NVFP4A16 for Qwen3.5 (llm-compressor
	 * examples/quantization_w4a16_fp4/nvfp4/qwen3.5_example.py), under
	 * text_config, with the MTP ignore compressed-tensors appends. */
	write_json("nvfp4/config.json", "{'model_type':'qwen3_5_moe',"
		   "'text_config':{'model_type':'qwen3_5_moe_text',"
		   "'num_hidden_layers':40,'quantization_config':{"
		   "'config_groups':{'group_0':{'format':'nvfp4-pack-quantized',"
		   "'input_activations':null,'output_activations':null,"
		   "'targets':['Linear'],'weights':{'actorder':null,"
		   "'block_structure':null,'dynamic':false,'group_size':16,"
		   "'num_bits':4,'observer':'memoryless_minmax',"
		   "'observer_kwargs':{},'scale_dtype':'torch.float8_e4m3fn',"
		   "'strategy':'tensor_group','symmetric':true,'type':'float',"
		   "'zp_dtype':null}}},'format':'nvfp4-pack-quantized',"
		   "'ignore':['lm_head','re:.*self_attn.*','re:.*mlp.gate$',"
		   "'re:.*linear_attn.*','re:^mtp.*'],'kv_cache_scheme':{"
		   "'num_bits':8,'type':'float','strategy':'tensor',"
		   "'dynamic':false,'symmetric':true},"
		   "'quant_method':'compressed-tensors',"
		   "'quantization_status':'compressed','version':'0.13.0'}}}");
	inv = load_dir("nvfp4");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_COMPRESSED_TENSORS);
	CHECK_STR(qc->key, "text_config.quantization_config");
	CHECK_STR(qc->format, "nvfp4-pack-quantized");
	CHECK_EQ(qc->bits, 4);
	CHECK_EQ(qc->group_size, 16);
	CHECK_STR(qc->data_type, "float");
	CHECK_STR(qc->kv_cache, "FP8");
	if (qc->n_overrides == 1)
		CHECK_STR(qc->overrides[0].scheme, "NVFP4");
	CHECK_EQ(qc->n_exclude, 5);
	CLAIM(qc, "model.language_model.layers.3.self_attn.q_proj", ATTN_Q,
	      0, -1);
	CLAIM(qc, "model.language_model.layers.0.linear_attn.in_proj_qkvz",
	      GDN_QKV, 0, -1);
	CLAIM(qc, "model.language_model.layers.0.mlp.experts.1.up_proj",
	      EXPERT_UP, 1, 4);
	CLAIM(qc, "model.language_model.layers.0.mlp.shared_expert.down_proj",
	      SHARED_EXPERT_DOWN, 1, 4);
	CLAIM(qc, "model.language_model.layers.0.mlp.gate", ROUTER, 0, -1);
	/* re:^mtp.* */
	CLAIM(qc, "mtp.layers.0.mlp.experts.0.up_proj", EXPERT_UP, 0, -1);
	CLAIM(qc, "mtp.fc", MTP_EH_PROJ, 0, -1);
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	CLAIM(qc, "model.language_model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "model.visual.blocks.0.attn.qkv", VISION, -1, -1);
	qa_inventory_destroy(inv);
}

/* ---- ModelOpt (§A5) ------------------------------------------------------ */

static void
test_modelopt(void)
{
	struct qa_inventory *inv;
	const struct qa_quant_config *qc;

	/* hf_quant_config.json of a single-format NVFP4 export
	 * (NVIDIA/Model-Optimizer modelopt/torch/export/quant_utils.py
	 * get_quant_config; MTP added by _add_mtp_exclusions). */
	write_json("mo/config.json", "{'model_type':'qwen3_moe',"
		   "'num_hidden_layers':48}");
	write_json("mo/hf_quant_config.json", "{'producer':{'name':'modelopt',"
		   "'version':'0.37.0'},'quantization':{'quant_algo':'NVFP4',"
		   "'kv_cache_quant_algo':'FP8','group_size':16,"
		   "'exclude_modules':['lm_head','model.layers.*.self_attn*',"
		   "'model.layers.*.mlp.gate','mtp*']}}");
	inv = load_dir("mo");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_MODELOPT);
	CHECK(qc->method_raw == NULL);
	CHECK_STR(qc->file, th_path("mo/hf_quant_config.json"));
	CHECK_STR(qc->format, "NVFP4");
	CHECK_EQ(qc->bits, 4);
	CHECK_EQ(qc->act_bits, 4);
	CHECK_EQ(qc->group_size, 16);
	CHECK_STR(qc->kv_cache, "FP8");
	CHECK(!qc->mixed);
	CHECK_EQ(qc->n_exclude, 4);
	if (qc->n_exclude == 4)
		CHECK_EQ(qc->exclude[1].kind, QA_PAT_GLOB);
	CLAIM(qc, "model.layers.0.self_attn.q_proj", ATTN_Q, 0, -1);
	CLAIM(qc, "model.layers.0.mlp.experts.0.down_proj", EXPERT_DOWN, 1,
	      4);
	CLAIM(qc, "model.layers.0.mlp.gate", ROUTER, 0, -1);
	/* the glob "model.layers.*.mlp.gate" does not cover gate_proj */
	CLAIM(qc, "model.layers.0.mlp.gate_proj", FFN_GATE, 1, 4);
	CLAIM(qc, "model.layers.1.mlp.shared_expert.up_proj",
	      SHARED_EXPERT_UP, 1, 4);
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "mtp.layers.0.mlp.experts.0.up_proj", EXPERT_UP, 0, -1);
	CLAIM(qc, "model.norm", NORM, 0, -1);
	/* vision is always unquantized for vLLM's ModelOpt */
	CLAIM(qc, "model.visual.blocks.0.attn.qkv", VISION, 0, -1);
	qa_inventory_destroy(inv);

	/* MIXED_PRECISION in the config.json shape
	 * (convert_hf_config.py convert_hf_quant_config_format), with the
	 * hf_quant_config.json beside it: config.json wins, same method. */
	write_json("mix/config.json", "{'model_type':'llama',"
		   "'num_hidden_layers':16,'quantization_config':{"
		   "'quant_method':'modelopt','quant_algo':'MIXED_PRECISION',"
		   "'kv_cache_scheme':{'dynamic':false,'num_bits':8,"
		   "'type':'float'},'producer':{'name':'modelopt',"
		   "'version':'0.37.0'},'ignore':['mtp*'],"
		   "'quantized_layers':{"
		   "'model.layers.0.mlp.down_proj':{'quant_algo':'FP8'},"
		   "'model.layers.0.mlp.up_proj':{'quant_algo':'NVFP4',"
		   "'group_size':16},'model.layers.1.self_attn.q_proj':{"
		   "'quant_algo':'W4A16_AWQ','group_size':128}}}}");
	write_json("mix/hf_quant_config.json", "{'producer':{'name':"
		   "'modelopt','version':'0.37.0'},'quantization':{"
		   "'quant_algo':'MIXED_PRECISION','kv_cache_quant_algo':'FP8',"
		   "'quantized_layers':{}}}");
	inv = load_dir("mix");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_MODELOPT);
	CHECK_STR(qc->file, th_path("mix/config.json"));
	CHECK(qc->shadowed_file == NULL);
	CHECK(qc->mixed);
	CHECK_EQ(qc->bits, -1);
	CHECK_STR(qc->kv_cache, "FP8");
	CHECK_EQ(qc->n_overrides, 3);
	if (qc->n_overrides == 3) {
		CHECK_STR(qc->overrides[1].scheme, "NVFP4");
		CHECK_EQ(qc->overrides[1].group_size, 16);
		CHECK_EQ(qc->overrides[2].group_size, 128);
	}
	CLAIM(qc, "model.layers.0.mlp.down_proj", FFN_DOWN, 1, 8);
	CLAIM(qc, "model.layers.0.mlp.up_proj", FFN_UP, 1, 4);
	CLAIM(qc, "model.layers.1.self_attn.q_proj", ATTN_Q, 1, 4);
	/* absent from quantized_layers: unquantized */
	CLAIM(qc, "model.layers.0.mlp.gate_proj", FFN_GATE, 0, -1);
	CLAIM(qc, "model.layers.0.self_attn.q_proj", ATTN_Q, 0, -1);
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	CLAIM(qc, "mtp.layers.0.mlp.up_proj", FFN_UP, 0, -1);
	qa_inventory_destroy(inv);
}

/* ---- FP8 block (§A7), MXFP4 (§A6), bitsandbytes (§A8) ------------------- */

static void
test_fp8_mxfp4_bnb(void)
{
	struct qa_inventory *inv;
	const struct qa_quant_config *qc;

	/* deepseek-ai/DeepSeek-V3 README_WEIGHTS.md */
	write_json("fp8/config.json", "{'model_type':'deepseek_v3',"
		   "'num_hidden_layers':61,'quantization_config':{"
		   "'activation_scheme':'dynamic','fmt':'e4m3',"
		   "'quant_method':'fp8','weight_block_size':[128,128]}}");
	inv = load_dir("fp8");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_FP8);
	CHECK_EQ(qc->bits, 8);
	CHECK_EQ(qc->block[0], 128);
	CHECK_EQ(qc->block[1], 128);
	CHECK_STR(qc->data_type, "e4m3");
	CHECK_STR(qc->format, "dynamic");
	CLAIM(qc, "model.layers.0.self_attn.q_a_proj", MLA_Q_A, 1, 8);
	CLAIM(qc, "model.layers.0.self_attn.kv_b_proj", MLA_KV_B, 1, 8);
	CLAIM(qc, "model.layers.0.mlp.down_proj", FFN_DOWN, 1, 8);
	CLAIM(qc, "model.layers.3.mlp.experts.12.gate_proj", EXPERT_GATE, 1,
	      8);
	CLAIM(qc, "model.layers.3.mlp.shared_experts.up_proj",
	      SHARED_EXPERT_UP, 1, 8);
	/* router, embeddings, LM head, norms: BF16 / F32 */
	CLAIM(qc, "model.layers.3.mlp.gate", ROUTER, 0, -1);
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	CLAIM(qc, "model.layers.0.self_attn.kv_a_layernorm", NORM, 0, -1);
	qa_inventory_destroy(inv);

	/* huggingface/transformers convert_gpt_oss_weights_to_hf.py */
	write_json("oss/config.json", "{'model_type':'gpt_oss',"
		   "'num_hidden_layers':24,'quantization_config':{"
		   "'modules_to_not_convert':['model.layers.*.self_attn',"
		   "'model.layers.*.mlp.router','model.embed_tokens','lm_head'],"
		   "'quant_method':'mxfp4'}}");
	inv = load_dir("oss");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_MXFP4);
	CHECK_EQ(qc->bits, 4);
	CHECK_EQ(qc->group_size, 32);
	CHECK_EQ(qc->n_exclude, 4);
	/* "model.layers.*.self_attn" names the parent of q_proj */
	CLAIM(qc, "model.layers.0.self_attn.q_proj", ATTN_Q, 0, -1);
	CLAIM(qc, "model.layers.0.self_attn.o_proj", ATTN_O, 0, -1);
	CLAIM(qc, "model.layers.0.mlp.router", ROUTER, 0, -1);
	CLAIM(qc, "model.layers.0.mlp.experts.gate_up_proj", EXPERT_GATE_UP,
	      1, 4);
	CLAIM(qc, "model.layers.23.mlp.experts.down_proj", EXPERT_DOWN, 1, 4);
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	CLAIM(qc, "model.layers.0.self_attn.sinks", ATTN_SINKS, 0, -1);
	CLAIM(qc, "model.norm", NORM, 0, -1);
	qa_inventory_destroy(inv);

	/* transformers BitsAndBytesConfig.to_dict, nf4 + double quant; the
	 * skip entry "mlp.gate" is a substring of "mlp.gate_proj" too. */
	write_json("bnb/config.json", "{" LLAMA_CFG ",'quantization_config':{"
		   "'_load_in_4bit':true,'_load_in_8bit':false,"
		   "'bnb_4bit_compute_dtype':'bfloat16',"
		   "'bnb_4bit_quant_storage':'uint8',"
		   "'bnb_4bit_quant_type':'nf4',"
		   "'bnb_4bit_use_double_quant':true,"
		   "'llm_int8_enable_fp32_cpu_offload':false,"
		   "'llm_int8_has_fp16_weight':false,"
		   "'llm_int8_skip_modules':['mlp.gate'],"
		   "'llm_int8_threshold':6.0,'load_in_4bit':true,"
		   "'load_in_8bit':false,'quant_method':'bitsandbytes'}}");
	inv = load_dir("bnb");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_BITSANDBYTES);
	CHECK_EQ(qc->bits, 4);
	CHECK_STR(qc->data_type, "nf4");
	CHECK_STR(qc->format, "double_quant");
	CHECK_EQ(qc->n_exclude, 1);
	CLAIM(qc, "model.layers.0.self_attn.q_proj", ATTN_Q, 1, 4);
	CLAIM(qc, "model.layers.31.self_attn.o_proj", ATTN_O, 1, 4);
	CLAIM(qc, "model.layers.0.mlp.gate_proj", FFN_GATE, 0, -1);
	CLAIM(qc, "model.layers.0.mlp.up_proj", FFN_UP, 1, 4);
	CLAIM(qc, "model.layers.0.mlp.down_proj", FFN_DOWN, 1, 4);
	CLAIM(qc, "lm_head", LM_HEAD, 0, -1);
	CLAIM(qc, "model.embed_tokens", EMBED, 0, -1);
	CLAIM(qc, "model.norm", NORM, 0, -1);
	qa_inventory_destroy(inv);
}

/* ---- precedence (§1.2) --------------------------------------------------- */

static void
test_precedence(void)
{
	struct qa_inventory *inv;
	const struct qa_quant_config *qc;
	char st[160];
	size_t n;
	const char *hdr = "{\"a.weight\":{\"dtype\":\"F32\",\"shape\":[1],"
			  "\"data_offsets\":[0,4]}}";
	FILE *f;

	/* config.json says gptq, a side file auto-round: config.json wins
	 * (vLLM get_quant_config), the other is exposed. */
	write_json("p1/config.json", "{" LLAMA_CFG ",'quantization_config':{"
		   "'quant_method':'gptq','bits':4,'group_size':128}}");
	write_json("p1/quantization_config.json", "{'quant_method':"
		   "'auto-round','bits':4,'group_size':128,"
		   "'packing_format':'auto_round:auto_gptq'}");
	inv = load_dir("p1");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_GPTQ);
	CHECK_STR(qc->file, th_path("p1/config.json"));
	CHECK_STR(qc->shadowed_file, th_path("p1/quantization_config.json"));
	CHECK_EQ(qc->shadowed_method, QA_QM_AUTOROUND);
	CHECK_STR(inv->quant_config_file, th_path("p1/config.json"));
	qa_inventory_destroy(inv);

	/* no config in config.json; AutoRound's quantization_config.json
	 * is preferred over the quantize_config.json of its GPTQ export */
	write_json("p2/config.json", "{" LLAMA_CFG "}");
	write_json("p2/quantize_config.json", "{'bits':4,'group_size':128,"
		   "'desc_act':false,'sym':true}");
	write_json("p2/quantization_config.json", "{'quant_method':"
		   "'intel/auto-round','bits':4,'group_size':128}");
	inv = load_dir("p2");
	qc = &inv->quant;
	CHECK_EQ(qc->method, QA_QM_AUTOROUND);
	CHECK_STR(qc->method_raw, "intel/auto-round");
	CHECK_STR(qc->file, th_path("p2/quantization_config.json"));
	CHECK_STR(inv->quant_config_file,
		  th_path("p2/quantization_config.json"));
	/* the old AutoGPTQ file has no quant_method: GPTQ by its name */
	CHECK_STR(qc->shadowed_file, th_path("p2/quantize_config.json"));
	CHECK_EQ(qc->shadowed_method, QA_QM_GPTQ);
	qa_inventory_destroy(inv);

	/* an invalid side file: QA1401 naming it, ignored; the next valid
	 * one is used */
	write_json("p3/config.json", "{" LLAMA_CFG "}");
	write_json("p3/quantize_config.json", "{'bits': 4,");
	write_json("p3/hf_quant_config.json", "{'producer':{'name':"
		   "'modelopt'},'quantization':{'quant_algo':'FP8'}}");
	inv = load_dir("p3");
	qc = &inv->quant;
	CHECK_EQ(th_count_code_in(inv, 1401,
				  th_path("p3/quantize_config.json")), 1);
	CHECK_EQ(qc->method, QA_QM_MODELOPT);
	CHECK_EQ(qc->bits, 8);
	CHECK_STR(qc->file, th_path("p3/hf_quant_config.json"));
	qa_inventory_destroy(inv);

	/* invalid and alone: no claim at all */
	write_json("p4/config.json", "{" LLAMA_CFG "}");
	write_json("p4/quant_config.json", "[1, 2]");
	inv = load_dir("p4");
	qc = &inv->quant;
	CHECK_EQ(th_count_code_in(inv, 1401,
				  th_path("p4/quant_config.json")), 1);
	CHECK_EQ(qc->method, QA_QM_NONE);
	CLAIM(qc, "model.layers.0.self_attn.q_proj", ATTN_Q, -1, -1);
	qa_inventory_destroy(inv);

	/* quantization_config beats text_config's and compression_config */
	write_json("p5/config.json", "{" LLAMA_CFG ",'compression_config':{"
		   "'quant_method':'compressed-tensors'},'text_config':{"
		   "'quantization_config':{'quant_method':'fp8'}},"
		   "'quantization_config':{'quant_method':'awq','bits':4}}");
	inv = load_dir("p5");
	CHECK_EQ(inv->quant.method, QA_QM_AWQ);
	CHECK_STR(inv->quant.key, "quantization_config");
	qa_inventory_destroy(inv);
	write_json("p6/config.json", "{" LLAMA_CFG ",'compression_config':{"
		   "'quant_method':'compressed-tensors','format':"
		   "'float-quantized'}}");
	inv = load_dir("p6");
	CHECK_EQ(inv->quant.method, QA_QM_COMPRESSED_TENSORS);
	CHECK_STR(inv->quant.key, "compression_config");
	qa_inventory_destroy(inv);

	/* an unknown method is kept as written; the claim is unknown */
	write_json("p7/config.json", "{" LLAMA_CFG ",'quantization_config':{"
		   "'quant_method':'quanto','weights':'int4'}}");
	inv = load_dir("p7");
	CHECK_EQ(inv->quant.method, QA_QM_OTHER);
	CHECK_STR(inv->quant.method_raw, "quanto");
	CLAIM(&inv->quant, "model.layers.0.mlp.up_proj", FFN_UP, -1, -1);
	qa_inventory_destroy(inv);

	/* HQQ as transformers' HqqConfig.to_dict writes it: one
	 * weight_quant_params for all, lm_head skipped; then one per linear
	 * tag (a tag it leaves out stays dense) */
	write_json("p8/config.json", "{" LLAMA_CFG ",'quantization_config':{"
		   "'quant_method':'hqq','skip_modules':['lm_head'],"
		   "'quant_config':{'weight_quant_params':{'nbits':4,"
		   "'group_size':64,'axis':1},'scale_quant_params':null}}}");
	inv = load_dir("p8");
	CHECK_EQ(inv->quant.method, QA_QM_HQQ);
	CHECK_EQ(inv->quant.bits, 4);
	CHECK_EQ(inv->quant.group_size, 64);
	CLAIM(&inv->quant, "model.layers.0.mlp.up_proj", FFN_UP, 1, 4);
	CLAIM(&inv->quant, "lm_head", LM_HEAD, 0, -1);
	CLAIM(&inv->quant, "model.embed_tokens", EMBED, 0, -1);
	qa_inventory_destroy(inv);
	write_json("p9/config.json", "{" LLAMA_CFG ",'quantization_config':{"
		   "'quant_method':'hqq','skip_modules':['lm_head'],"
		   "'quant_config':{'self_attn.q_proj':{'weight_quant_params':"
		   "{'nbits':8,'group_size':64}},'mlp.down_proj':"
		   "{'weight_quant_params':{'nbits':2,'group_size':32}}}}}");
	inv = load_dir("p9");
	CHECK_EQ(inv->quant.method, QA_QM_HQQ);
	CLAIM(&inv->quant, "model.layers.3.self_attn.q_proj", ATTN_Q, 1, 8);
	CLAIM(&inv->quant, "model.layers.3.mlp.down_proj", FFN_DOWN, 1, 2);
	CLAIM(&inv->quant, "model.layers.3.mlp.up_proj", FFN_UP, 0, -1);
	qa_inventory_destroy(inv);

	/* A single safetensors file given directly: its folder's config.json
	 * is read too (formats/st_set.c). */
	write_json("one/config.json", "{" LLAMA_CFG ",'quantization_config':{"
		   "'quant_method':'awq','bits':4,'group_size':128,"
		   "'version':'gemm','zero_point':true}}");
	snprintf(st, sizeof(st), "%s", th_path("one/model.safetensors"));
	f = fopen(st, "wb");
	if (f) {
		unsigned char len[8] = { 0 };

		n = strlen(hdr);
		len[0] = (unsigned char)n;
		fwrite(len, 1, 8, f);
		fwrite(hdr, 1, n, f);
		fwrite("\0\0\0\0", 1, 4, f);
		fclose(f);
	}
	inv = qa_inventory_create(st);
	CHECK(inv != NULL);
	if (inv) {
		CHECK_EQ(qa_st_load_path(inv, st), QA_OK);
		CHECK_EQ(inv->n_tensors, 1);
		CHECK_EQ(inv->quant.method, QA_QM_AWQ);
		CHECK_STR(inv->quant.file, th_path("one/config.json"));
		CHECK_STR(inv->quant_config_file, th_path("one/config.json"));
		qa_inventory_destroy(inv);
	}
	/* ...but side files alone beside a lone file are not a folder */
	write_json("two/quantize_config.json", "{'bits':4}");
	snprintf(st, sizeof(st), "%s", th_path("two/model.safetensors"));
	f = fopen(st, "wb");
	if (f) {
		unsigned char len[8] = { 0 };

		len[0] = (unsigned char)n;
		fwrite(len, 1, 8, f);
		fwrite(hdr, 1, n, f);
		fwrite("\0\0\0\0", 1, 4, f);
		fclose(f);
	}
	inv = qa_inventory_create(st);
	if (inv) {
		qa_st_load_path(inv, st);
		CHECK_EQ(inv->quant.method, QA_QM_NONE);
		CHECK(inv->quant_config_file == NULL);
		qa_inventory_destroy(inv);
	}
}

/* A hand-built config (not loaded): regexes compile per call; NULL qc,
 * names and bits are safe. */
static void
test_hand_built(void)
{
	struct qa_quant_override ov[2];
	struct qa_quant_config qc;
	int bits;

	memset(&qc, 0, sizeof(qc));
	memset(ov, 0, sizeof(ov));
	qc.method = QA_QM_GPTQ;
	qc.bits = 3;
	qc.lm_head = 0;
	ov[0].pattern.text = ".*\\.mlp\\.(?:up|down)_proj";
	ov[0].pattern.kind = QA_PAT_REGEX;
	ov[0].skip = true;
	ov[1].pattern.text = "model\\.layers\\.\\d{2}\\.self_attn\\.\\w+";
	ov[1].pattern.kind = QA_PAT_REGEX;
	ov[1].bits = 8;
	ov[1].group_size = -1;
	qc.overrides = ov;
	qc.n_overrides = 2;
	/* (?:up|down) translated */
	CLAIM(&qc, "model.layers.2.mlp.down_proj", FFN_DOWN, 0, -1);
	/* gate_proj not matched: the global 3 bits */
	CLAIM(&qc, "model.layers.2.mlp.gate_proj", FFN_GATE, 1, 3);
	/* \d{2}: two-digit layers only */
	CLAIM(&qc, "model.layers.12.self_attn.k_proj", ATTN_K, 1, 8);
	CLAIM(&qc, "model.layers.2.self_attn.k_proj", ATTN_K, 1, 3);
	CHECK_EQ(qa_quant_claim(NULL, "x", QA_ROLE_ATTN_Q, &bits), -1);
	CHECK_EQ(bits, -1);
	CHECK_EQ(qa_quant_claim(&qc, NULL, QA_ROLE_ATTN_Q, &bits), -1);
	CHECK_EQ(qa_quant_claim(&qc, "model.layers.1.mlp.up_proj",
				QA_ROLE_FFN_UP, NULL), 0);
	CHECK_STR(qa_quant_method_name(QA_QM_COMPRESSED_TENSORS),
		  "compressed-tensors");
	CHECK_STR(qa_quant_method_name(QA_QM_AUTOROUND), "auto-round");
	CHECK_STR(qa_quant_method_name(QA_QM_NONE), "none");
}

int
main(void)
{
	th_scratch("quantcfg");
	test_autoround();
	test_gptq();
	test_awq();
	test_ct();
	test_modelopt();
	test_fp8_mxfp4_bnb();
	test_precedence();
	test_hand_built();
	return th_done("quant-config");
}
