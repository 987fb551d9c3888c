/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the tensor role classifier (src/analysis/roles.c): a table of real
 * tensor names from every family quantaudit knows (GGUF and Hugging Face
 * naming, MTP heads, hybrids, towers) with the context the inventory would
 * pass, plus every tensor-name family found in the corpus expectations
 * (../shared/corpus/expected/{gguf,safetensors}.json, copied by hand so the
 * test runs without the corpus), plus a sweep checking that every
 * quantization sibling suffix keeps the role of its module.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/roles.h"
#include "core/inventory.h"
#include "harness.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* No knowledge of the model. */
static const struct qa_role_context none = { -1, -1, NULL, 0 };
/* DeepSeek-V3: 61 trunk blocks, MTP at block 61. */
static const struct qa_role_context ds_v3 = { 61, 1, NULL, 0 };
/* Corpus deepseek_v3_mtp: 3 trunk blocks, MTP block 3. */
static const struct qa_role_context ds_tiny = { 3, 1, NULL, 0 };
/* Same with the MTP count unknown (config without the key). */
static const struct qa_role_context ds_tiny_nomtp = { 3, -1, NULL, 0 };
/* GLM-4.5: 92 trunk blocks, one MTP block. */
static const struct qa_role_context glm45 = { 92, 1, NULL, 0 };

/* Qwen3-Next / Qwen3.5 toy: 8 blocks, full attention every 4th. */
static const uint8_t qn_kinds[] = {
	QA_LAYER_LINEAR_ATTENTION, QA_LAYER_LINEAR_ATTENTION,
	QA_LAYER_LINEAR_ATTENTION, QA_LAYER_FULL_ATTENTION,
	QA_LAYER_LINEAR_ATTENTION, QA_LAYER_LINEAR_ATTENTION,
	QA_LAYER_LINEAR_ATTENTION, QA_LAYER_FULL_ATTENTION,
	QA_LAYER_MTP,
};
static const struct qa_role_context qn = { 8, 1, qn_kinds, 9 };
/* Qwen3.5-27B: 64 blocks; MTP layer count known from the config. */
static const struct qa_role_context q35 = { 64, 1, NULL, 0 };
/* Nemotron-H 52 blocks without MTP. */
static const struct qa_role_context nh = { 52, 0, NULL, 0 };

struct row {
	const char *name;
	const struct qa_role_context *ctx;
	enum qa_role role;
	int32_t layer;
	bool mtp;
};

#define R(e) QA_ROLE_##e

static const struct row rows[] = {
	/* ---- llama / mistral / smollm3, GGUF (llama.cpp TENSOR_NAMES) */
	{ "token_embd.weight", &none, R(EMBED), -1, false },
	{ "output.weight", &none, R(LM_HEAD), -1, false },
	{ "output_norm.weight", &none, R(NORM), -1, false },
	{ "rope_freqs.weight", &none, R(OTHER), -1, false },
	{ "blk.7.attn_q.weight", &none, R(ATTN_Q), 7, false },
	{ "blk.7.attn_k.weight", &none, R(ATTN_K), 7, false },
	{ "blk.7.attn_v.weight", &none, R(ATTN_V), 7, false },
	{ "blk.7.attn_output.weight", &none, R(ATTN_O), 7, false },
	{ "blk.7.attn_norm.weight", &none, R(NORM), 7, false },
	{ "blk.7.ffn_norm.weight", &none, R(NORM), 7, false },
	{ "blk.7.ffn_gate.weight", &none, R(FFN_GATE), 7, false },
	{ "blk.7.ffn_up.weight", &none, R(FFN_UP), 7, false },
	{ "blk.7.ffn_down.weight", &none, R(FFN_DOWN), 7, false },
	{ "blk.123.ffn_down.weight", &none, R(FFN_DOWN), 123, false },
	{ "blk.0.attn_qkv.weight", &none, R(ATTN_QKV), 0, false },
	{ "blk.0.ffn_gate_up.weight", &none, R(FFN_GATE_UP), 0, false },
	{ "position_embd.weight", &none, R(POS_EMBED), -1, false },
	/* ---- llama / mistral / qwen2 / qwen3 / smollm3, HF */
	{ "model.embed_tokens.weight", &none, R(EMBED), -1, false },
	{ "lm_head.weight", &none, R(LM_HEAD), -1, false },
	{ "model.norm.weight", &none, R(NORM), -1, false },
	{ "model.layers.7.self_attn.q_proj.weight", &none, R(ATTN_Q), 7, false },
	{ "model.layers.7.self_attn.k_proj.weight", &none, R(ATTN_K), 7, false },
	{ "model.layers.7.self_attn.v_proj.weight", &none, R(ATTN_V), 7, false },
	{ "model.layers.7.self_attn.o_proj.weight", &none, R(ATTN_O), 7, false },
	{ "model.layers.7.self_attn.q_proj.bias", &none, R(ATTN_Q), 7, false },
	{ "model.layers.7.mlp.gate_proj.weight", &none, R(FFN_GATE), 7, false },
	{ "model.layers.7.mlp.up_proj.weight", &none, R(FFN_UP), 7, false },
	{ "model.layers.7.mlp.down_proj.weight", &none, R(FFN_DOWN), 7, false },
	{ "model.layers.7.input_layernorm.weight", &none, R(NORM), 7, false },
	{ "model.layers.7.post_attention_layernorm.weight", &none, R(NORM), 7, false },
	{ "model.layers.7.self_attn.q_norm.weight", &none, R(NORM), 7, false },
	{ "model.layers.7.self_attn.k_norm.weight", &none, R(NORM), 7, false },
	{ "model.layers.7.self_attn.rotary_emb.inv_freq", &none, R(OTHER), 7, false },
	{ "model.layers.3.self_attn.q_proj.qweight", &none, R(ATTN_Q), 3, false },
	{ "model.layers.3.mlp.down_proj.weight_packed", &none, R(FFN_DOWN), 3, false },
	{ "model.layers.3.mlp.down_proj.weight.absmax", &none, R(FFN_DOWN), 3, false },
	/* ---- VL wrappers (Qwen2.5-VL, Qwen3.5, LLaVA, Gemma 3) */
	{ "model.language_model.layers.7.self_attn.q_proj.weight", &none, R(ATTN_Q), 7, false },
	{ "language_model.model.layers.7.mlp.up_proj.weight", &none, R(FFN_UP), 7, false },
	{ "language_model.lm_head.weight", &none, R(LM_HEAD), -1, false },
	{ "model.language_model.embed_tokens.weight", &none, R(EMBED), -1, false },
	{ "model.language_model.norm.weight", &none, R(NORM), -1, false },
	/* ---- qwen3-moe (GGUF qwen3moe, HF Qwen3MoeForCausalLM) */
	{ "blk.5.ffn_gate_inp.weight", &none, R(ROUTER), 5, false },
	{ "blk.5.ffn_gate_exps.weight", &none, R(EXPERT_GATE), 5, false },
	{ "blk.5.ffn_up_exps.weight", &none, R(EXPERT_UP), 5, false },
	{ "blk.5.ffn_down_exps.weight", &none, R(EXPERT_DOWN), 5, false },
	{ "blk.5.ffn_gate_up_exps.weight", &none, R(EXPERT_GATE_UP), 5, false },
	{ "blk.5.attn_q_norm.weight", &none, R(NORM), 5, false },
	{ "model.layers.7.mlp.experts.12.down_proj.weight", &none, R(EXPERT_DOWN), 7, false },
	{ "model.layers.7.mlp.experts.12.gate_proj.weight", &none, R(EXPERT_GATE), 7, false },
	{ "model.layers.7.mlp.experts.12.up_proj.qweight", &none, R(EXPERT_UP), 7, false },
	{ "model.layers.7.mlp.gate.weight", &none, R(ROUTER), 7, false },
	{ "model.layers.7.mlp.experts.gate_up_proj", &none, R(EXPERT_GATE_UP), 7, false },
	{ "model.layers.7.mlp.experts.down_proj", &none, R(EXPERT_DOWN), 7, false },
	/* ---- qwen2-moe / qwen3-next shared expert */
	{ "model.layers.2.mlp.shared_expert.gate_proj.weight", &none, R(SHARED_EXPERT_GATE), 2, false },
	{ "model.layers.2.mlp.shared_expert.up_proj.weight", &none, R(SHARED_EXPERT_UP), 2, false },
	{ "model.layers.2.mlp.shared_expert.down_proj.weight", &none, R(SHARED_EXPERT_DOWN), 2, false },
	{ "model.layers.2.mlp.shared_expert_gate.weight", &none, R(ROUTER), 2, false },
	{ "blk.2.ffn_gate_inp_shexp.weight", &none, R(ROUTER), 2, false },
	{ "blk.2.ffn_gate_shexp.weight", &none, R(SHARED_EXPERT_GATE), 2, false },
	{ "blk.2.ffn_up_shexp.weight", &none, R(SHARED_EXPERT_UP), 2, false },
	{ "blk.2.ffn_down_shexp.weight", &none, R(SHARED_EXPERT_DOWN), 2, false },
	/* ---- qwen3-next GGUF: layer kinds decide attn_qkv / attn_gate */
	{ "blk.0.attn_qkv.weight", &qn, R(GDN_QKV), 0, false },
	{ "blk.0.attn_gate.weight", &qn, R(GDN_GATE), 0, false },
	{ "blk.3.attn_gate.weight", &qn, R(ATTN_GATE), 3, false },
	{ "blk.3.attn_qkv.weight", &qn, R(ATTN_QKV), 3, false },
	{ "blk.3.attn_q.weight", &qn, R(ATTN_Q), 3, false },
	{ "blk.0.attn_gate.weight", &none, R(ATTN_GATE), 0, false },
	{ "blk.0.ssm_ba.weight", &qn, R(GDN_BA), 0, false },
	{ "blk.0.ssm_alpha.weight", &qn, R(GDN_BA), 0, false },
	{ "blk.0.ssm_beta.weight", &qn, R(GDN_BA), 0, false },
	{ "blk.0.ssm_conv1d.weight", &qn, R(SSM_CONV), 0, false },
	{ "blk.0.ssm_dt.bias", &qn, R(SSM_PARAM), 0, false },
	{ "blk.0.ssm_a", &qn, R(SSM_PARAM), 0, false },
	{ "blk.0.ssm_norm.weight", &qn, R(NORM), 0, false },
	{ "blk.0.ssm_out.weight", &qn, R(SSM_OUT), 0, false },
	{ "blk.0.ssm_in.weight", &qn, R(SSM_IN), 0, false },
	{ "blk.3.post_attention_norm.weight", &qn, R(NORM), 3, false },
	/* GGUF qwen3next / qwen35 MTP block at n_layer (§B2) */
	{ "blk.8.nextn.eh_proj.weight", &qn, R(MTP_EH_PROJ), 8, true },
	{ "blk.8.nextn.enorm.weight", &qn, R(MTP_ENORM), 8, true },
	{ "blk.8.nextn.hnorm.weight", &qn, R(MTP_HNORM), 8, true },
	{ "blk.8.nextn.shared_head_norm.weight", &qn, R(MTP_NORM), 8, true },
	{ "blk.8.nextn.shared_head_head.weight", &qn, R(MTP_SHARED_HEAD), 8, true },
	{ "blk.8.nextn.embed_tokens.weight", &qn, R(MTP_EMBED), 8, true },
	{ "blk.8.attn_q.weight", &qn, R(ATTN_Q), 8, true },
	{ "blk.8.ffn_down_exps.weight", &qn, R(EXPERT_DOWN), 8, true },
	/* ---- qwen3-next / qwen3.5 HF GatedDeltaNet */
	{ "model.layers.0.linear_attn.in_proj_qkvz.weight", &none, R(GDN_QKV), 0, false },
	{ "model.layers.0.linear_attn.in_proj_ba.weight", &none, R(GDN_BA), 0, false },
	{ "model.layers.0.linear_attn.in_proj_qkv.weight", &none, R(GDN_QKV), 0, false },
	{ "model.layers.0.linear_attn.in_proj_z.weight", &none, R(GDN_GATE), 0, false },
	{ "model.layers.0.linear_attn.in_proj_a.weight", &none, R(GDN_BA), 0, false },
	{ "model.layers.0.linear_attn.in_proj_b.weight", &none, R(GDN_BA), 0, false },
	{ "model.layers.0.linear_attn.conv1d.weight", &none, R(SSM_CONV), 0, false },
	{ "model.layers.0.linear_attn.out_proj.weight", &none, R(SSM_OUT), 0, false },
	{ "model.layers.0.linear_attn.A_log", &none, R(SSM_PARAM), 0, false },
	{ "model.layers.0.linear_attn.dt_bias", &none, R(SSM_PARAM), 0, false },
	{ "model.layers.0.linear_attn.norm.weight", &none, R(NORM), 0, false },
	{ "model.language_model.layers.4.linear_attn.in_proj_qkv.weight", &none, R(GDN_QKV), 4, false },
	/* ---- Qwen3-Next / Qwen3.5 / 3.6 MTP (top-level mtp.*) */
	{ "mtp.fc.weight", &q35, R(MTP_EH_PROJ), 64, true },
	{ "mtp.fc.weight", &none, R(MTP_EH_PROJ), -1, true },
	{ "mtp.pre_fc_norm_embedding.weight", &q35, R(MTP_ENORM), 64, true },
	{ "mtp.pre_fc_norm_hidden.weight", &q35, R(MTP_HNORM), 64, true },
	{ "mtp.norm.weight", &q35, R(MTP_NORM), 64, true },
	{ "mtp.layers.0.self_attn.q_proj.weight", &q35, R(ATTN_Q), 64, true },
	{ "mtp.layers.0.self_attn.k_proj.weight", &q35, R(ATTN_K), 64, true },
	{ "mtp.layers.0.self_attn.q_norm.weight", &q35, R(NORM), 64, true },
	{ "mtp.layers.0.input_layernorm.weight", &q35, R(NORM), 64, true },
	{ "mtp.layers.0.mlp.gate_proj.weight", &q35, R(FFN_GATE), 64, true },
	{ "mtp.layers.0.mlp.down_proj.weight", &q35, R(FFN_DOWN), 64, true },
	{ "mtp.layers.0.mlp.experts.3.down_proj.weight", &q35, R(EXPERT_DOWN), 64, true },
	{ "mtp.layers.0.mlp.experts.gate_up_proj", &q35, R(EXPERT_GATE_UP), 64, true },
	{ "mtp.layers.0.mlp.gate.weight", &q35, R(ROUTER), 64, true },
	{ "mtp.layers.0.mlp.shared_expert.up_proj.weight", &q35, R(SHARED_EXPERT_UP), 64, true },
	{ "mtp.layers.0.mlp.shared_expert_gate.weight", &q35, R(ROUTER), 64, true },
	{ "mtp.layers.2.self_attn.o_proj.weight", &none, R(ATTN_O), 2, true },
	{ "model.mtp.layers.1.self_attn.q_proj.weight", &none, R(ATTN_Q), 1, true },
	{ "language_model.mtp.layers.0.mixer.q_proj.weight", &none, R(ATTN_Q), 0, true },
	{ "model.language_model.mtp.fc.weight", &none, R(MTP_EH_PROJ), -1, true },
	{ "mtp.fc.weight_scale", &q35, R(MTP_EH_PROJ), 64, true },
	/* ---- MiMo MTP (model.mtp_layers.K) */
	{ "model.mtp_layers.0.input_proj.weight", &none, R(MTP_EH_PROJ), 0, true },
	{ "model.mtp_layers.0.token_layernorm.weight", &none, R(MTP_ENORM), 0, true },
	{ "model.mtp_layers.0.hidden_layernorm.weight", &none, R(MTP_HNORM), 0, true },
	{ "model.mtp_layers.0.final_layernorm.weight", &none, R(MTP_NORM), 0, true },
	{ "model.mtp_layers.0.self_attn.q_proj.weight", &none, R(ATTN_Q), 0, true },
	{ "model.mtp_layers.1.mlp.up_proj.weight", &ds_v3, R(FFN_UP), 62, true },
	/* ---- DeepSeek-V4 mtp.K (e_proj / h_proj) */
	{ "mtp.0.e_proj.weight", &none, R(MTP_EH_PROJ), 0, true },
	{ "mtp.0.h_proj.weight", &none, R(MTP_EH_PROJ), 0, true },
	/* ---- Nemotron-H MTP */
	{ "mtp.layers.0.enorm.weight", &none, R(MTP_ENORM), 0, true },
	{ "mtp.layers.0.hnorm.weight", &none, R(MTP_HNORM), 0, true },
	{ "mtp.layers.0.eh_proj.weight", &none, R(MTP_EH_PROJ), 0, true },
	{ "mtp.layers.1.final_layernorm.weight", &none, R(MTP_NORM), 1, true },
	/* ---- DeepSeek V2/V3 MLA, GGUF deepseek2 */
	{ "blk.4.attn_q_a.weight", &ds_v3, R(MLA_Q_A), 4, false },
	{ "blk.4.attn_q_b.weight", &ds_v3, R(MLA_Q_B), 4, false },
	{ "blk.4.attn_kv_a_mqa.weight", &ds_v3, R(MLA_KV_A), 4, false },
	{ "blk.4.attn_kv_b.weight", &ds_v3, R(MLA_KV_B), 4, false },
	{ "blk.4.attn_k_b.weight", &ds_v3, R(MLA_K_B), 4, false },
	{ "blk.4.attn_v_b.weight", &ds_v3, R(MLA_V_B), 4, false },
	{ "blk.4.attn_q_a_norm.weight", &ds_v3, R(NORM), 4, false },
	{ "blk.4.attn_kv_a_norm.weight", &ds_v3, R(NORM), 4, false },
	{ "blk.4.exp_probs_b.bias", &ds_v3, R(ROUTER), 4, false },
	{ "blk.61.nextn.eh_proj.weight", &ds_v3, R(MTP_EH_PROJ), 61, true },
	{ "blk.61.nextn.eh_proj.scale", &ds_v3, R(MTP_EH_PROJ), 61, true },
	{ "blk.61.nextn.eh_proj.input_scale", &ds_v3, R(MTP_EH_PROJ), 61, true },
	{ "blk.61.attn_q_a.weight", &ds_v3, R(MLA_Q_A), 61, true },
	{ "blk.61.ffn_gate_exps.weight", &ds_v3, R(EXPERT_GATE), 61, true },
	{ "blk.60.ffn_gate_exps.weight", &ds_v3, R(EXPERT_GATE), 60, false },
	{ "blk.61.nextn.eh_proj.weight", &none, R(MTP_EH_PROJ), 61, true },
	{ "blk.61.attn_q_a.weight", &none, R(MLA_Q_A), 61, false },
	/* DeepSeek-V3.2 DSA indexer (HF and GGUF) */
	{ "model.layers.4.self_attn.indexer.wq_b.weight", &ds_v3, R(DSA_INDEXER), 4, false },
	{ "model.layers.4.self_attn.indexer.wk.weight", &ds_v3, R(DSA_INDEXER), 4, false },
	{ "model.layers.4.self_attn.indexer.k_norm.weight", &ds_v3, R(DSA_INDEXER), 4, false },
	{ "model.layers.4.self_attn.indexer.weights_proj.weight", &ds_v3, R(DSA_INDEXER), 4, false },
	{ "blk.4.indexer.proj.weight", &ds_v3, R(DSA_INDEXER), 4, false },
	{ "blk.4.indexer.attn_k.weight", &ds_v3, R(DSA_INDEXER), 4, false },
	/* DeepSeek-V3 HF inline MTP at block 61 */
	{ "model.layers.61.eh_proj.weight", &ds_v3, R(MTP_EH_PROJ), 61, true },
	{ "model.layers.61.enorm.weight", &ds_v3, R(MTP_ENORM), 61, true },
	{ "model.layers.61.hnorm.weight", &ds_v3, R(MTP_HNORM), 61, true },
	{ "model.layers.61.shared_head.head.weight", &ds_v3, R(MTP_SHARED_HEAD), 61, true },
	{ "model.layers.61.shared_head.norm.weight", &ds_v3, R(MTP_NORM), 61, true },
	{ "model.layers.61.embed_tokens.weight", &ds_v3, R(MTP_EMBED), 61, true },
	{ "model.layers.61.self_attn.kv_b_proj.weight", &ds_v3, R(MLA_KV_B), 61, true },
	{ "model.layers.61.mlp.experts.7.down_proj.weight_scale_inv", &ds_v3, R(EXPERT_DOWN), 61, true },
	{ "model.layers.61.eh_proj.weight", &none, R(MTP_EH_PROJ), 61, true },
	{ "model.layers.61.shared_head.head.weight", &none, R(MTP_SHARED_HEAD), 61, true },
	{ "model.layers.61.embed_tokens.weight", &none, R(MTP_EMBED), 61, true },
	{ "model.layers.61.self_attn.kv_b_proj.weight", &none, R(MLA_KV_B), 61, false },
	{ "model.layers.60.self_attn.q_a_proj.weight_scale_inv", &ds_v3, R(MLA_Q_A), 60, false },
	{ "model.layers.60.mlp.gate.e_score_correction_bias", &ds_v3, R(ROUTER), 60, false },
	/* ---- GLM-4.5 MoE: HF and GGUF glm4moe, MTP at block 92 */
	{ "model.layers.92.eh_proj.weight", &glm45, R(MTP_EH_PROJ), 92, true },
	{ "model.layers.92.self_attn.q_proj.weight", &glm45, R(ATTN_Q), 92, true },
	{ "model.layers.91.mlp.shared_experts.down_proj.weight", &glm45, R(SHARED_EXPERT_DOWN), 91, false },
	{ "blk.92.nextn.hnorm.weight", &glm45, R(MTP_HNORM), 92, true },
	{ "blk.92.ffn_up_exps.weight", &glm45, R(EXPERT_UP), 92, true },
	{ "blk.10.exp_probs_b.bias", &glm45, R(ROUTER), 10, false },
	{ "model.layers.1.post_self_attn_layernorm.weight", &none, R(NORM), 1, false },
	/* ---- gemma2 / gemma3 */
	{ "blk.3.post_attention_norm.weight", &none, R(NORM), 3, false },
	{ "blk.3.post_ffw_norm.weight", &none, R(NORM), 3, false },
	{ "model.layers.3.pre_feedforward_layernorm.weight", &none, R(NORM), 3, false },
	{ "model.layers.3.post_feedforward_layernorm.weight", &none, R(NORM), 3, false },
	/* ---- gpt-oss (HF MXFP4 experts, GGUF gpt-oss) */
	{ "model.layers.0.mlp.experts.gate_up_proj_blocks", &none, R(EXPERT_GATE_UP), 0, false },
	{ "model.layers.0.mlp.experts.gate_up_proj_scales", &none, R(EXPERT_GATE_UP), 0, false },
	{ "model.layers.0.mlp.experts.gate_up_proj_bias", &none, R(EXPERT_GATE_UP), 0, false },
	{ "model.layers.0.mlp.experts.down_proj_blocks", &none, R(EXPERT_DOWN), 0, false },
	{ "model.layers.0.mlp.experts.down_proj_scales", &none, R(EXPERT_DOWN), 0, false },
	{ "model.layers.0.mlp.router.weight", &none, R(ROUTER), 0, false },
	{ "model.layers.0.mlp.router.bias", &none, R(ROUTER), 0, false },
	{ "model.layers.0.self_attn.sinks", &none, R(ATTN_SINKS), 0, false },
	{ "blk.0.attn_sinks.weight", &none, R(ATTN_SINKS), 0, false },
	{ "blk.0.ffn_gate_exps.bias", &none, R(EXPERT_GATE), 0, false },
	{ "blk.0.ffn_gate_inp.bias", &none, R(ROUTER), 0, false },
	/* ---- mixtral */
	{ "model.layers.1.block_sparse_moe.gate.weight", &none, R(ROUTER), 1, false },
	{ "model.layers.1.block_sparse_moe.experts.3.w1.weight", &none, R(EXPERT_GATE), 1, false },
	{ "model.layers.1.block_sparse_moe.experts.3.w2.weight", &none, R(EXPERT_DOWN), 1, false },
	{ "model.layers.1.block_sparse_moe.experts.3.w3.weight", &none, R(EXPERT_UP), 1, false },
	/* ---- phi3 fused projections, phi-2 */
	{ "model.layers.2.self_attn.qkv_proj.weight", &none, R(ATTN_QKV), 2, false },
	{ "model.layers.2.mlp.gate_up_proj.weight", &none, R(FFN_GATE_UP), 2, false },
	{ "model.layers.2.self_attn.dense.weight", &none, R(ATTN_O), 2, false },
	{ "model.layers.2.mlp.fc1.weight", &none, R(FFN_UP), 2, false },
	{ "model.layers.2.mlp.fc2.weight", &none, R(FFN_DOWN), 2, false },
	{ "model.final_layernorm.weight", &none, R(NORM), -1, false },
	/* ---- GPT-2 / Falcon / GPT-NeoX / MPT */
	{ "transformer.wte.weight", &none, R(EMBED), -1, false },
	{ "transformer.wpe.weight", &none, R(POS_EMBED), -1, false },
	{ "transformer.h.7.attn.c_attn.weight", &none, R(ATTN_QKV), 7, false },
	{ "transformer.h.7.attn.c_proj.weight", &none, R(ATTN_O), 7, false },
	{ "transformer.h.7.mlp.c_fc.weight", &none, R(FFN_UP), 7, false },
	{ "transformer.h.7.mlp.c_proj.weight", &none, R(FFN_DOWN), 7, false },
	{ "transformer.h.7.ln_1.weight", &none, R(NORM), 7, false },
	{ "transformer.ln_f.weight", &none, R(NORM), -1, false },
	{ "transformer.word_embeddings.weight", &none, R(EMBED), -1, false },
	{ "transformer.h.7.self_attention.query_key_value.weight", &none, R(ATTN_QKV), 7, false },
	{ "transformer.h.7.self_attention.dense.weight", &none, R(ATTN_O), 7, false },
	{ "transformer.h.7.mlp.dense_h_to_4h.weight", &none, R(FFN_UP), 7, false },
	{ "transformer.h.7.mlp.dense_4h_to_h.weight", &none, R(FFN_DOWN), 7, false },
	{ "transformer.blocks.7.attn.Wqkv.weight", &none, R(ATTN_QKV), 7, false },
	{ "gpt_neox.embed_in.weight", &none, R(EMBED), -1, false },
	{ "gpt_neox.layers.2.attention.dense.weight", &none, R(ATTN_O), 2, false },
	{ "embed_out.weight", &none, R(LM_HEAD), -1, false },
	/* ---- Meta / Mistral original checkpoints */
	{ "tok_embeddings.weight", &none, R(EMBED), -1, false },
	{ "layers.3.attention.wq.weight", &none, R(ATTN_Q), 3, false },
	{ "layers.3.attention.wo.weight", &none, R(ATTN_O), 3, false },
	{ "layers.3.feed_forward.w1.weight", &none, R(FFN_GATE), 3, false },
	{ "layers.3.feed_forward.w2.weight", &none, R(FFN_DOWN), 3, false },
	{ "layers.3.feed_forward.w3.weight", &none, R(FFN_UP), 3, false },
	{ "layers.3.attention_norm.weight", &none, R(NORM), 3, false },
	/* ---- nemotron-h (HF backbone.*, GGUF nemotron_h) */
	{ "backbone.embeddings.weight", &nh, R(EMBED), -1, false },
	{ "backbone.norm_f.weight", &nh, R(NORM), -1, false },
	{ "backbone.layers.7.norm.weight", &nh, R(NORM), 7, false },
	{ "backbone.layers.7.mixer.in_proj.weight", &nh, R(SSM_IN), 7, false },
	{ "backbone.layers.7.mixer.conv1d.weight", &nh, R(SSM_CONV), 7, false },
	{ "backbone.layers.7.mixer.conv1d.bias", &nh, R(SSM_CONV), 7, false },
	{ "backbone.layers.7.mixer.dt_bias", &nh, R(SSM_PARAM), 7, false },
	{ "backbone.layers.7.mixer.A_log", &nh, R(SSM_PARAM), 7, false },
	{ "backbone.layers.7.mixer.D", &nh, R(SSM_PARAM), 7, false },
	{ "backbone.layers.7.mixer.norm.weight", &nh, R(NORM), 7, false },
	{ "backbone.layers.7.mixer.out_proj.weight", &nh, R(SSM_OUT), 7, false },
	{ "backbone.layers.8.mixer.q_proj.weight", &nh, R(ATTN_Q), 8, false },
	{ "backbone.layers.8.mixer.k_proj.weight", &nh, R(ATTN_K), 8, false },
	{ "backbone.layers.8.mixer.v_proj.weight", &nh, R(ATTN_V), 8, false },
	{ "backbone.layers.8.mixer.o_proj.weight", &nh, R(ATTN_O), 8, false },
	{ "backbone.layers.9.mixer.up_proj.weight", &nh, R(FFN_UP), 9, false },
	{ "backbone.layers.9.mixer.down_proj.weight", &nh, R(FFN_DOWN), 9, false },
	{ "backbone.layers.9.mixer.gate.weight", &nh, R(ROUTER), 9, false },
	{ "backbone.layers.9.mixer.gate.e_score_correction_bias", &nh, R(ROUTER), 9, false },
	{ "backbone.layers.9.mixer.experts.5.up_proj.weight", &nh, R(EXPERT_UP), 9, false },
	{ "backbone.layers.9.mixer.experts.5.down_proj.weight", &nh, R(EXPERT_DOWN), 9, false },
	{ "backbone.layers.9.mixer.shared_experts.up_proj.weight", &nh, R(SHARED_EXPERT_UP), 9, false },
	{ "backbone.layers.9.mixer.shared_experts.down_proj.weight", &nh, R(SHARED_EXPERT_DOWN), 9, false },
	{ "backbone.layers.9.mixer.fc1_latent_proj.weight", &nh, R(FFN_DOWN), 9, false },
	{ "backbone.layers.9.mixer.fc2_latent_proj.weight", &nh, R(FFN_UP), 9, false },
	{ "blk.7.ssm_in.weight", &nh, R(SSM_IN), 7, false },
	{ "blk.7.ssm_conv1d.bias", &nh, R(SSM_CONV), 7, false },
	{ "blk.7.ssm_d", &nh, R(SSM_PARAM), 7, false },
	{ "blk.7.ssm_norm.weight", &nh, R(NORM), 7, false },
	{ "blk.9.ffn_latent_down.weight", &nh, R(FFN_DOWN), 9, false },
	{ "blk.60.attn_q.weight", &nh, R(ATTN_Q), 60, false },
	/* ---- mamba / mamba2 */
	{ "backbone.embedding.weight", &none, R(EMBED), -1, false },
	{ "backbone.layers.3.mixer.x_proj.weight", &none, R(SSM_PARAM), 3, false },
	{ "backbone.layers.3.mixer.dt_proj.weight", &none, R(SSM_PARAM), 3, false },
	{ "backbone.layers.3.mixer.dt_proj.bias", &none, R(SSM_PARAM), 3, false },
	{ "blk.3.ssm_x.weight", &none, R(SSM_PARAM), 3, false },
	{ "blk.3.ssm_dt.weight", &none, R(SSM_PARAM), 3, false },
	/* ---- falcon-h1 */
	{ "model.layers.5.mamba.in_proj.weight", &none, R(SSM_IN), 5, false },
	{ "model.layers.5.mamba.conv1d.weight", &none, R(SSM_CONV), 5, false },
	{ "model.layers.5.mamba.out_proj.weight", &none, R(SSM_OUT), 5, false },
	{ "model.layers.5.mamba.norm.weight", &none, R(NORM), 5, false },
	{ "model.layers.5.feed_forward.gate_proj.weight", &none, R(FFN_GATE), 5, false },
	{ "model.layers.5.pre_ff_layernorm.weight", &none, R(NORM), 5, false },
	/* ---- granite hybrid (granitemoehybrid) */
	{ "model.layers.4.shared_mlp.input_linear.weight", &none, R(FFN_GATE_UP), 4, false },
	{ "model.layers.4.shared_mlp.output_linear.weight", &none, R(FFN_DOWN), 4, false },
	{ "model.layers.4.block_sparse_moe.input_linear.weight", &none, R(EXPERT_GATE_UP), 4, false },
	{ "model.layers.4.block_sparse_moe.output_linear.weight", &none, R(EXPERT_DOWN), 4, false },
	{ "model.layers.4.block_sparse_moe.router.layer.weight", &none, R(ROUTER), 4, false },
	/* ---- lfm2 (GGUF shortconv, HF conv) */
	{ "blk.0.shortconv.conv.weight", &none, R(SSM_CONV), 0, false },
	{ "blk.0.shortconv.in_proj.weight", &none, R(SSM_IN), 0, false },
	{ "blk.0.shortconv.out_proj.weight", &none, R(SSM_OUT), 0, false },
	{ "token_embd_norm.weight", &none, R(NORM), -1, false },
	{ "model.layers.0.conv.conv.weight", &none, R(SSM_CONV), 0, false },
	{ "model.layers.0.conv.in_proj.weight", &none, R(SSM_IN), 0, false },
	{ "model.layers.0.conv.out_proj.weight", &none, R(SSM_OUT), 0, false },
	{ "model.layers.2.self_attn.out_proj.weight", &none, R(ATTN_O), 2, false },
	{ "model.layers.2.self_attn.q_layernorm.weight", &none, R(NORM), 2, false },
	{ "model.layers.2.operator_norm.weight", &none, R(NORM), 2, false },
	{ "model.layers.2.feed_forward.w1.weight", &none, R(FFN_GATE), 2, false },
	{ "model.embedding_norm.weight", &none, R(NORM), -1, false },
	/* ---- vision towers, projectors, audio (HF and GGUF mmproj) */
	{ "v.blk.3.attn_q.weight", &none, R(VISION), -1, false },
	{ "v.patch_embd.weight", &none, R(VISION), -1, false },
	{ "v.position_embd.weight", &none, R(VISION), -1, false },
	{ "mm.0.weight", &none, R(PROJECTOR), -1, false },
	{ "mm.input_projection.weight", &none, R(PROJECTOR), -1, false },
	{ "a.blk.0.attn_q.weight", &none, R(AUDIO), -1, false },
	{ "model.visual.blocks.3.attn.qkv.weight", &none, R(VISION), -1, false },
	{ "visual.blocks.3.mlp.fc1.weight", &none, R(VISION), -1, false },
	{ "model.visual.merger.linear_fc1.weight", &none, R(PROJECTOR), -1, false },
	{ "visual.merger.mlp.0.weight", &none, R(PROJECTOR), -1, false },
	{ "vision_tower.vision_model.encoder.layers.0.self_attn.q_proj.weight", &none, R(VISION), -1, false },
	{ "model.vision_tower.vision_model.post_layernorm.weight", &none, R(VISION), -1, false },
	{ "multi_modal_projector.linear_1.weight", &none, R(PROJECTOR), -1, false },
	{ "model.multi_modal_projector.mm_input_projection_weight", &none, R(PROJECTOR), -1, false },
	{ "vision_model.patch_embedding.weight", &none, R(VISION), -1, false },
	{ "model.mm_projector.0.weight", &none, R(PROJECTOR), -1, false },
	{ "audio_tower.layers.0.self_attn.q_proj.weight", &none, R(AUDIO), -1, false },
	/* ---- unknown names stay OTHER */
	{ "", &none, R(OTHER), -1, false },
	{ "foo", &none, R(OTHER), -1, false },
	{ "model.layers.3.frobnicator.weight", &none, R(OTHER), 3, false },
	{ "blk.x.attn_q.weight", &none, R(ATTN_Q), -1, false },
	{ "model.layers.99999999999.mlp.up_proj.weight", &none, R(FFN_UP), -1, false },

	/* ==== corpus: gguf/deepseek_v3_mtp-bf16.gguf (deepseek2, 3 blocks;
	 * converter dropped the MTP block) */
	{ "token_embd.weight", &ds_tiny, R(EMBED), -1, false },
	{ "output.weight", &ds_tiny, R(LM_HEAD), -1, false },
	{ "output_norm.weight", &ds_tiny, R(NORM), -1, false },
	{ "blk.2.attn_k_b.weight", &ds_tiny, R(MLA_K_B), 2, false },
	{ "blk.2.attn_kv_a_mqa.weight", &ds_tiny, R(MLA_KV_A), 2, false },
	{ "blk.2.attn_kv_a_norm.weight", &ds_tiny, R(NORM), 2, false },
	{ "blk.2.attn_norm.weight", &ds_tiny, R(NORM), 2, false },
	{ "blk.2.attn_output.weight", &ds_tiny, R(ATTN_O), 2, false },
	{ "blk.2.attn_q_a.weight", &ds_tiny, R(MLA_Q_A), 2, false },
	{ "blk.2.attn_q_a_norm.weight", &ds_tiny, R(NORM), 2, false },
	{ "blk.2.attn_q_b.weight", &ds_tiny, R(MLA_Q_B), 2, false },
	{ "blk.2.attn_v_b.weight", &ds_tiny, R(MLA_V_B), 2, false },
	{ "blk.2.exp_probs_b.bias", &ds_tiny, R(ROUTER), 2, false },
	{ "blk.2.ffn_down_exps.weight", &ds_tiny, R(EXPERT_DOWN), 2, false },
	{ "blk.2.ffn_down_shexp.weight", &ds_tiny, R(SHARED_EXPERT_DOWN), 2, false },
	{ "blk.2.ffn_gate_exps.weight", &ds_tiny, R(EXPERT_GATE), 2, false },
	{ "blk.2.ffn_gate_inp.weight", &ds_tiny, R(ROUTER), 2, false },
	{ "blk.2.ffn_gate_shexp.weight", &ds_tiny, R(SHARED_EXPERT_GATE), 2, false },
	{ "blk.2.ffn_norm.weight", &ds_tiny, R(NORM), 2, false },
	{ "blk.2.ffn_up_exps.weight", &ds_tiny, R(EXPERT_UP), 2, false },
	{ "blk.2.ffn_up_shexp.weight", &ds_tiny, R(SHARED_EXPERT_UP), 2, false },
	{ "blk.0.ffn_gate.weight", &ds_tiny, R(FFN_GATE), 0, false },
	{ "blk.0.ffn_up.weight", &ds_tiny, R(FFN_UP), 0, false },
	{ "blk.0.ffn_down.weight", &ds_tiny, R(FFN_DOWN), 0, false },
	/* corpus: gguf/gemma3_text-q8_0.gguf, gguf/qwen3_moe-q8_0.gguf,
	 * gguf/llama-{bf16,q8_0}.gguf and the tiny-llama GGUFs */
	{ "blk.0.attn_q_norm.weight", &none, R(NORM), 0, false },
	{ "blk.0.attn_k_norm.weight", &none, R(NORM), 0, false },
	{ "blk.0.post_attention_norm.weight", &none, R(NORM), 0, false },
	{ "blk.0.post_ffw_norm.weight", &none, R(NORM), 0, false },
	{ "blk.1.ffn_gate_inp.weight", &none, R(ROUTER), 1, false },
	{ "blk.1.ffn_gate_exps.weight", &none, R(EXPERT_GATE), 1, false },
	{ "blk.1.ffn_up_exps.weight", &none, R(EXPERT_UP), 1, false },
	{ "blk.1.ffn_down_exps.weight", &none, R(EXPERT_DOWN), 1, false },
	{ "blk.1.attn_k.weight", &none, R(ATTN_K), 1, false },
	{ "blk.1.attn_v.weight", &none, R(ATTN_V), 1, false },
	{ "blk.1.attn_q.weight", &none, R(ATTN_Q), 1, false },
	{ "blk.1.attn_output.weight", &none, R(ATTN_O), 1, false },
	{ "blk.1.attn_norm.weight", &none, R(NORM), 1, false },
	{ "blk.1.ffn_norm.weight", &none, R(NORM), 1, false },
	/* corpus: hf/deepseek_v3_mtp/model.safetensors (trunk, 3 blocks) */
	{ "lm_head.weight", &ds_tiny, R(LM_HEAD), -1, false },
	{ "model.embed_tokens.weight", &ds_tiny, R(EMBED), -1, false },
	{ "model.norm.weight", &ds_tiny, R(NORM), -1, false },
	{ "model.layers.0.input_layernorm.weight", &ds_tiny, R(NORM), 0, false },
	{ "model.layers.0.mlp.down_proj.weight", &ds_tiny, R(FFN_DOWN), 0, false },
	{ "model.layers.0.mlp.gate_proj.weight", &ds_tiny, R(FFN_GATE), 0, false },
	{ "model.layers.0.mlp.up_proj.weight", &ds_tiny, R(FFN_UP), 0, false },
	{ "model.layers.0.post_attention_layernorm.weight", &ds_tiny, R(NORM), 0, false },
	{ "model.layers.2.mlp.experts.1.down_proj.weight", &ds_tiny, R(EXPERT_DOWN), 2, false },
	{ "model.layers.2.mlp.experts.1.gate_proj.weight", &ds_tiny, R(EXPERT_GATE), 2, false },
	{ "model.layers.2.mlp.experts.1.up_proj.weight", &ds_tiny, R(EXPERT_UP), 2, false },
	{ "model.layers.2.mlp.gate.e_score_correction_bias", &ds_tiny, R(ROUTER), 2, false },
	{ "model.layers.2.mlp.gate.weight", &ds_tiny, R(ROUTER), 2, false },
	{ "model.layers.2.mlp.shared_experts.down_proj.weight", &ds_tiny, R(SHARED_EXPERT_DOWN), 2, false },
	{ "model.layers.2.mlp.shared_experts.gate_proj.weight", &ds_tiny, R(SHARED_EXPERT_GATE), 2, false },
	{ "model.layers.2.mlp.shared_experts.up_proj.weight", &ds_tiny, R(SHARED_EXPERT_UP), 2, false },
	{ "model.layers.2.self_attn.kv_a_layernorm.weight", &ds_tiny, R(NORM), 2, false },
	{ "model.layers.2.self_attn.kv_a_proj_with_mqa.weight", &ds_tiny, R(MLA_KV_A), 2, false },
	{ "model.layers.2.self_attn.kv_b_proj.weight", &ds_tiny, R(MLA_KV_B), 2, false },
	{ "model.layers.2.self_attn.o_proj.weight", &ds_tiny, R(ATTN_O), 2, false },
	{ "model.layers.2.self_attn.q_a_layernorm.weight", &ds_tiny, R(NORM), 2, false },
	{ "model.layers.2.self_attn.q_a_proj.weight", &ds_tiny, R(MLA_Q_A), 2, false },
	{ "model.layers.2.self_attn.q_b_proj.weight", &ds_tiny, R(MLA_Q_B), 2, false },
	/* corpus: hf/deepseek_v3_mtp/model-mtp.safetensors (block 3) */
	{ "model.layers.3.eh_proj.weight", &ds_tiny, R(MTP_EH_PROJ), 3, true },
	{ "model.layers.3.embed_tokens.weight", &ds_tiny, R(MTP_EMBED), 3, true },
	{ "model.layers.3.enorm.weight", &ds_tiny, R(MTP_ENORM), 3, true },
	{ "model.layers.3.hnorm.weight", &ds_tiny, R(MTP_HNORM), 3, true },
	{ "model.layers.3.input_layernorm.weight", &ds_tiny, R(NORM), 3, true },
	{ "model.layers.3.mlp.experts.0.down_proj.weight", &ds_tiny, R(EXPERT_DOWN), 3, true },
	{ "model.layers.3.mlp.experts.0.gate_proj.weight", &ds_tiny, R(EXPERT_GATE), 3, true },
	{ "model.layers.3.mlp.experts.0.up_proj.weight", &ds_tiny, R(EXPERT_UP), 3, true },
	{ "model.layers.3.mlp.gate.e_score_correction_bias", &ds_tiny, R(ROUTER), 3, true },
	{ "model.layers.3.mlp.gate.weight", &ds_tiny, R(ROUTER), 3, true },
	{ "model.layers.3.mlp.shared_experts.down_proj.weight", &ds_tiny, R(SHARED_EXPERT_DOWN), 3, true },
	{ "model.layers.3.mlp.shared_experts.gate_proj.weight", &ds_tiny, R(SHARED_EXPERT_GATE), 3, true },
	{ "model.layers.3.mlp.shared_experts.up_proj.weight", &ds_tiny, R(SHARED_EXPERT_UP), 3, true },
	{ "model.layers.3.post_attention_layernorm.weight", &ds_tiny, R(NORM), 3, true },
	{ "model.layers.3.self_attn.kv_a_layernorm.weight", &ds_tiny, R(NORM), 3, true },
	{ "model.layers.3.self_attn.kv_a_proj_with_mqa.weight", &ds_tiny, R(MLA_KV_A), 3, true },
	{ "model.layers.3.self_attn.kv_b_proj.weight", &ds_tiny, R(MLA_KV_B), 3, true },
	{ "model.layers.3.self_attn.o_proj.weight", &ds_tiny, R(ATTN_O), 3, true },
	{ "model.layers.3.self_attn.q_a_layernorm.weight", &ds_tiny, R(NORM), 3, true },
	{ "model.layers.3.self_attn.q_a_proj.weight", &ds_tiny, R(MLA_Q_A), 3, true },
	{ "model.layers.3.self_attn.q_b_proj.weight", &ds_tiny, R(MLA_Q_B), 3, true },
	{ "model.layers.3.shared_head.head.weight", &ds_tiny, R(MTP_SHARED_HEAD), 3, true },
	{ "model.layers.3.shared_head.norm.weight", &ds_tiny, R(MTP_NORM), 3, true },
	/* same MTP file when the config does not state the MTP count: the
	 * MTP-only names still mark the tensor, the rest cannot know */
	{ "model.layers.3.eh_proj.weight", &ds_tiny_nomtp, R(MTP_EH_PROJ), 3, true },
	{ "model.layers.3.enorm.weight", &ds_tiny_nomtp, R(MTP_ENORM), 3, true },
	{ "model.layers.3.shared_head.norm.weight", &ds_tiny_nomtp, R(MTP_NORM), 3, true },
	{ "model.layers.3.self_attn.q_a_proj.weight", &ds_tiny_nomtp, R(MLA_Q_A), 3, false },
	/* corpus: hf/gemma3_text, hf/llama, hf/qwen3_moe */
	{ "model.layers.1.pre_feedforward_layernorm.weight", &none, R(NORM), 1, false },
	{ "model.layers.1.post_feedforward_layernorm.weight", &none, R(NORM), 1, false },
	{ "model.layers.1.self_attn.q_norm.weight", &none, R(NORM), 1, false },
	{ "model.layers.1.self_attn.k_norm.weight", &none, R(NORM), 1, false },
	{ "model.layers.1.mlp.experts.3.down_proj.weight", &none, R(EXPERT_DOWN), 1, false },
	{ "model.layers.1.mlp.experts.3.gate_proj.weight", &none, R(EXPERT_GATE), 1, false },
	{ "model.layers.1.mlp.experts.3.up_proj.weight", &none, R(EXPERT_UP), 1, false },
	{ "model.layers.1.mlp.gate.weight", &none, R(ROUTER), 1, false },
};

/* Quantization siblings that must not change the role (task contract). */
static const char *const suffixes[] = {
	".weight", ".bias", ".qweight", ".qzeros", ".scales", ".g_idx",
	".weight_packed", ".weight_scale", ".weight_shape",
	".weight_zero_point", ".weight_global_scale", ".input_global_scale",
	".input_scale", ".weight_scale_inv", ".weight_scale_2", ".SCB",
	".weight_format", ".weight.absmax", ".weight.quant_map",
	".weight.nested_absmax", ".weight.nested_quant_map",
	".weight.quant_state.bitsandbytes__nf4", "_blocks", "_scales",
	".scale",
};

struct base {
	const char *module;
	enum qa_role role;
	int32_t layer;
};

static const struct base bases[] = {
	{ "model.layers.5.self_attn.q_proj", R(ATTN_Q), 5 },
	{ "model.layers.5.self_attn.o_proj", R(ATTN_O), 5 },
	{ "model.layers.5.mlp.down_proj", R(FFN_DOWN), 5 },
	{ "model.layers.5.mlp.experts.9.up_proj", R(EXPERT_UP), 5 },
	{ "model.layers.5.mlp.experts.gate_up_proj", R(EXPERT_GATE_UP), 5 },
	{ "model.layers.5.mlp.shared_experts.gate_proj", R(SHARED_EXPERT_GATE), 5 },
	{ "model.layers.5.self_attn.kv_b_proj", R(MLA_KV_B), 5 },
	{ "model.layers.5.linear_attn.in_proj_qkv", R(GDN_QKV), 5 },
	{ "lm_head", R(LM_HEAD), -1 },
	{ "model.embed_tokens", R(EMBED), -1 },
	{ "blk.5.attn_q", R(ATTN_Q), 5 },
	{ "blk.5.ffn_down_exps", R(EXPERT_DOWN), 5 },
};

/* One classification: name in ctx has this role, layer and MTP flag. */
#define ROLE(name, ctx, role, layer, mtp) \
	check_role(__FILE__, __LINE__, (name), (ctx), (role), (layer), (mtp))

static void
check_role(const char *file, int line, const char *name,
	   const struct qa_role_context *ctx, enum qa_role role, int32_t layer,
	   bool mtp)
{
	struct qa_role_result r = qa_role_classify(name, ctx);

	th_report(r.role == role && r.layer == layer && r.mtp == mtp, file,
		  line, "%-60s expected %s layer %d mtp %d, got %s layer %d "
		  "mtp %d", name ? name : "(null)", qa_role_name(role),
		  (int)layer, (int)mtp, qa_role_name(r.role), (int)r.layer,
		  (int)r.mtp);
}

static void
check_names(void)
{
	int i, j;

	for (i = 0; i < QA_ROLE_COUNT; i++) {
		const char *a = qa_role_name((enum qa_role)i);

		if (!a || !*a) {
			FAIL("role %d has no name", i);
			continue;
		}
		for (j = 0; j < i; j++)
			CHECKF(strcmp(a, qa_role_name((enum qa_role)j)) != 0,
			       "role name %s twice", a);
	}
	CHECKF(strcmp(qa_role_name(QA_ROLE_COUNT), "other") == 0 &&
	       strcmp(qa_role_name(QA_ROLE_OTHER), "other") == 0 &&
	       strcmp(qa_role_name(QA_ROLE_MTP_EH_PROJ), "mtp_eh_proj") == 0,
	       "qa_role_name mapping");
}

/*
 * qa_role_classify_all (the block-number memo) gives what
 * qa_role_classify gives, name by name: every table name, and each one
 * renumbered into blocks of every kind the contexts have (trunk, MTP,
 * linear attention, past the end), in an order that meets each template
 * first with one block kind and then with others.
 */
static void
check_batch(void)
{
	static const struct qa_role_context *const ctxs[] = {
		&none, &ds_v3, &ds_tiny, &ds_tiny_nomtp, &glm45, &qn, &q35, &nh,
	};
	static const int nums[] = { 0, 3, 1, 7, 8, 2, 9, 61, 60, 62, 92, 91,
				    63, 64, 52, 51, 5, 4, 999999999 };
	enum { MAXN = ARRAY_LEN(rows) * (ARRAY_LEN(nums) + 1) };
	static char buf[MAXN][160];
	static const char *names[MAXN];
	static struct qa_role_result got[MAXN];
	size_t c, i, k, n = 0;

	th_case = "batch";
	for (i = 0; i < ARRAY_LEN(rows); i++) {
		const char *nm = rows[i].name, *hit = NULL;
		size_t pre = 0, dl = 0;

		snprintf(buf[n], sizeof(buf[n]), "%s", nm);
		names[n] = buf[n];
		n++;
		/* its block number, after "blk." or "layers." */
		if (strncmp(nm, "blk.", 4) == 0)
			hit = nm + 4;
		else if ((hit = strstr(nm, ".layers.")) != NULL)
			hit += 8;
		else if (strncmp(nm, "layers.", 7) == 0)
			hit = nm + 7;
		if (!hit)
			continue;
		pre = (size_t)(hit - nm);
		while (hit[dl] >= '0' && hit[dl] <= '9')
			dl++;
		if (!dl || hit[dl] != '.')
			continue;
		for (k = 0; k < ARRAY_LEN(nums); k++) {
			snprintf(buf[n], sizeof(buf[n]), "%.*s%d%s", (int)pre,
				 nm, nums[k], hit + dl);
			names[n] = buf[n];
			n++;
		}
	}
	for (c = 0; c < ARRAY_LEN(ctxs); c++) {
		CHECK_EQ(qa_role_classify_all(names, n, ctxs[c], got), QA_OK);
		for (i = 0; i < n; i++) {
			struct qa_role_result w =
				qa_role_classify(names[i], ctxs[c]);

			CHECKF(w.role == got[i].role &&
			       w.layer == got[i].layer && w.mtp == got[i].mtp,
			       "%s (context %zu): one at a time %s/%d/%d, in a "
			       "batch %s/%d/%d", names[i], c,
			       qa_role_name(w.role), (int)w.layer, (int)w.mtp,
			       qa_role_name(got[i].role), (int)got[i].layer,
			       (int)got[i].mtp);
		}
	}
	printf("roles: %zu names in batches, %zu contexts\n", n,
	       ARRAY_LEN(ctxs));
}

int
main(void)
{
	char name[256];
	size_t i, j;

	check_names();
	for (i = 0; i < ARRAY_LEN(rows); i++)
		ROLE(rows[i].name, rows[i].ctx, rows[i].role, rows[i].layer,
		     rows[i].mtp);
	for (i = 0; i < ARRAY_LEN(bases); i++) {
		for (j = 0; j < ARRAY_LEN(suffixes); j++) {
			int n = snprintf(name, sizeof(name), "%s%s",
					 bases[i].module, suffixes[j]);

			if (n < 0 || (size_t)n >= sizeof(name))
				continue;
			ROLE(name, &none, bases[i].role, bases[i].layer,
			     false);
		}
	}
	/* a NULL context means "nothing known" */
	ROLE("blk.3.attn_qkv.weight", NULL, R(ATTN_QKV), 3, false);
	ROLE("mtp.layers.1.mlp.up_proj.weight", NULL, R(FFN_UP), 1, true);
	ROLE(NULL, NULL, R(OTHER), -1, false);
	check_batch();
	printf("roles: %zu table rows\n", ARRAY_LEN(rows));
	return th_done("roles");
}
