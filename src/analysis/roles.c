/* SPDX-License-Identifier: MIT */
/*
 * Tensor role classifier: maps one tensor name (GGUF or Hugging Face
 * naming) to a role, a block index and an MTP flag. The name is cut into
 * its parts: wrapper prefixes (model., language_model., backbone., ...),
 * a multimodal tower (vision / projector / audio), an MTP scope (mtp.*,
 * mtp_layers.K, GGUF nextn), a block prefix (blk.N, layers.N, h.N, ...),
 * the container modules (experts, shared_expert, linear_attn, mixer, ...),
 * the module name itself and a quantization suffix (.weight, .qweight,
 * .weight_scale, bitsandbytes .weight.absmax, gpt-oss _blocks, ...). The
 * module name and the containers are looked up in static tables; code only
 * combines the answers. No allocation, no global state: one pass over the
 * name plus table scans bounded by the table sizes.
 */
#include "analysis/analysis.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/inventory.h"

/* A piece of the name between dots. */
struct part {
	const char *s;
	size_t n;
};

/* A table string with its length, counted by the compiler: matching a
 * name against a table compares lengths before any byte. */
struct lit {
	const char *s;
	size_t n;
};

#define LIT(str) { str, sizeof(str) - 1 }

static bool
part_is_lit(struct part p, const struct lit *l)
{
	/* first bytes before memcmp: most table rows fail there */
	return p.n == l->n && (l->n == 0 || p.s[0] == l->s[0]) &&
	       memcmp(p.s, l->s, l->n) == 0;
}

/* For string literals only: their length is a constant. */
#define PART_IS(p, str) \
	((p).n == sizeof(str) - 1 && memcmp((p).s, str, sizeof(str) - 1) == 0)

static bool
part_has(struct part p, const char *lit, size_t n)
{
	size_t i;

	if (n > p.n)
		return false;
	for (i = 0; i + n <= p.n; i++)
		if (memcmp(p.s + i, lit, n) == 0)
			return true;
	return false;
}

/* s (a tail of a name ending at end) starts with l. */
static bool
starts_lit(const char *s, const char *end, const struct lit *l)
{
	return (size_t)(end - s) >= l->n && (l->n == 0 || s[0] == l->s[0]) &&
	       memcmp(s, l->s, l->n) == 0;
}

#define STARTS(s, end, str) \
	((size_t)((end) - (s)) >= sizeof(str) - 1 && \
	 memcmp(s, str, sizeof(str) - 1) == 0)

/*
 * Wrapper prefixes that carry no meaning for the role; stripped repeatedly
 * so "model.language_model.", "language_model.model." and PEFT's
 * "base_model.model.model." all reduce to the inner name.
 */
static const struct lit wrapper_prefixes[] = {
	/* transformers LLaMA-style CausalLM and VL wrappers (Qwen2.5-VL,
	 * Qwen3.5, Gemma 3, LLaVA, Mistral3) */
	LIT("model."),
	LIT("language_model."),
	/* GPT-2, Falcon, Bloom, MPT (transformers modeling_gpt2 / falcon) */
	LIT("transformer."),
	/* GPT-NeoX / Pythia (modeling_gpt_neox) */
	LIT("gpt_neox."),
	/* Mamba, Mamba2, Nemotron-H (transformers modeling_nemotron_h) */
	LIT("backbone."),
	/* PEFT merged checkpoints */
	LIT("base_model."),
	/* OPT (modeling_opt: model.decoder.layers) */
	LIT("decoder."),
	/* Qwen2.5-Omni / Qwen3-Omni thinker (modeling_qwen2_5_omni) */
	LIT("thinker."),
};

/* Multimodal towers, matched on the first part after the wrappers. */
struct tower {
	struct lit first;
	uint8_t role;
};

static const struct tower towers[] = {
	/* llama.cpp gguf-py constants.py MODEL_TENSOR V_* / A_* (mmproj) */
	{ LIT("v"), QA_ROLE_VISION },
	{ LIT("mm"), QA_ROLE_PROJECTOR },
	{ LIT("a"), QA_ROLE_AUDIO },
	/* transformers modeling_llava / modeling_gemma3 / modeling_mistral3 */
	{ LIT("vision_tower"), QA_ROLE_VISION },
	{ LIT("multi_modal_projector"), QA_ROLE_PROJECTOR },
	/* transformers modeling_qwen2_5_vl / qwen3_vl / qwen3_5 */
	{ LIT("visual"), QA_ROLE_VISION },
	/* transformers modeling_mllama / modeling_llama4 / idefics3 */
	{ LIT("vision_model"), QA_ROLE_VISION },
	{ LIT("vision_encoder"), QA_ROLE_VISION },
	{ LIT("connector"), QA_ROLE_PROJECTOR },
	/* LLaVA original repo (llava/model/llava_arch.py) */
	{ LIT("mm_projector"), QA_ROLE_PROJECTOR },
	/* MiniCPM-V resampler, InternVL mlp1 projector */
	{ LIT("resampler"), QA_ROLE_PROJECTOR },
	{ LIT("mlp1"), QA_ROLE_PROJECTOR },
	/* transformers modeling_qwen2_audio / qwen2_5_omni / gemma3n */
	{ LIT("audio_tower"), QA_ROLE_AUDIO },
	{ LIT("audio_model"), QA_ROLE_AUDIO },
	{ LIT("audio_encoder"), QA_ROLE_AUDIO },
	{ LIT("embed_vision"), QA_ROLE_PROJECTOR },
	{ LIT("embed_audio"), QA_ROLE_PROJECTOR },
};

/* Block prefixes: the part before the block number. */
static const struct lit block_prefixes[] = {
	LIT("blk"),		/* llama.cpp GGUF */
	LIT("layers"),	/* transformers LLaMA-style, Mamba, Nemotron-H */
	LIT("h"),		/* GPT-2, Falcon, Bloom */
	LIT("blocks"),	/* RWKV, vision blocks */
	LIT("block"),	/* T5-style */
	LIT("layer"),	/* BERT-style encoder.layer.N */
};

/*
 * Quantization siblings of a module's weight (knowledge/quant-formats.md
 * §1.3): dropping them leaves the module name, so a GPTQ qweight and its
 * scales get the role of the Linear they pack.
 */
static const struct lit quant_suffixes[] = {
	LIT("weight"), LIT("bias"),
	/* GPTQ / AWQ / AutoRound (AutoGPTQ qlinear) */
	LIT("qweight"), LIT("qzeros"), LIT("scales"), LIT("g_idx"), LIT("zeros"),
	/* compressed-tensors pack-quantized / nvfp4 / float-quantized */
	LIT("weight_packed"), LIT("weight_scale"), LIT("weight_shape"), LIT("weight_zero_point"),
	LIT("weight_global_scale"), LIT("input_global_scale"), LIT("weight_g_idx"),
	LIT("input_scale"), LIT("input_zero_point"), LIT("output_scale"),
	/* DeepSeek block FP8 and ModelOpt NVFP4 */
	LIT("weight_scale_inv"), LIT("weight_scale_2"),
	/* bitsandbytes int8 */
	LIT("SCB"), LIT("weight_format"),
	/* GGUF NVFP4 companions (llama.cpp src/llama-model.cpp) */
	LIT("scale"),
	/* MLX affine biases, nvfp4 global scale (mlx/nn/layers/quantized.py) */
	LIT("biases"), LIT("global_scale"),
	/* ExLlamaV2 (exllamav2/conversion/adaptivegptq.py pack) */
	LIT("q_weight"), LIT("q_scale"), LIT("q_scale_max"), LIT("q_groups"),
	LIT("q_invperm"), LIT("q_perm"),
	/* ExLlamaV3 (exllamav3/modules/quant/exl3.py get_tensors) */
	LIT("trellis"), LIT("suh"), LIT("svh"), LIT("su"), LIT("sv"),
	LIT("mcg"), LIT("mul1"),
	/* HQQ (mobiusml/hqq hqq/core/quantize.py HQQLinear.state_dict) */
	LIT("W_q"), LIT("zero"), LIT("nbits"), LIT("group_size"),
	LIT("axis"), LIT("shape"), LIT("packing"), LIT("compute_dtype"),
	LIT("unpack_view_dtype"), LIT("channel_wise"),
	LIT("encoded_state_dict"), LIT("offload_meta"), LIT("optimize"),
	LIT("quant_scale"), LIT("quant_zero"), LIT("round_zero"),
	LIT("stores_quant_config"), LIT("view_as_float"),
	/* torchao flattened subclasses (torchao/prototype/safetensors) */
	LIT("_weight_qdata"), LIT("_weight_scale"), LIT("_weight_zero_point"),
	/* GPTQModel QQQ (gptqmodel/nn_modules/qlinear/qqq.py) */
	LIT("B"), LIT("s_channel"), LIT("s_group"),
	/* GPTQModel ParoQuant rotations (qlinear/paroquant.py) */
	LIT("theta"), LIT("pairs"), LIT("channel_scales"),
};

/*
 * Suffixes glued to the module name with an underscore: gpt-oss MXFP4
 * experts (gate_up_proj_blocks / _scales, §A6) and their biases
 * (transformers modeling_gpt_oss GptOssExperts.gate_up_proj_bias).
 */
static const struct lit glued_suffixes[] = {
	LIT("_blocks"), LIT("_scales"), LIT("_bias"),
};

/* Containers: parts before the module name that modify its role. */
enum container {
	C_EXPERTS = 1u << 0,	/* routed experts */
	C_SHARED = 1u << 1,	/* shared expert(s) */
	C_LINEAR = 1u << 2,	/* Gated DeltaNet linear attention */
	C_SSM = 1u << 3,	/* Mamba mixer / mamba block */
	C_CONV = 1u << 4,	/* LFM2 short convolution */
	C_ATTN = 1u << 5,	/* softmax attention */
	C_INDEXER = 1u << 6,	/* DSA lightning indexer */
	C_ROUTER = 1u << 7,	/* router module with own params */
	C_SHARED_HEAD = 1u << 8,	/* DeepSeek MTP shared head */
	C_NEXTN = 1u << 9,	/* GGUF nextn.* */
	C_INTERMEDIATE = 1u << 10,	/* BERT intermediate (FFN up) */
};

struct container_pattern {
	struct lit part;
	unsigned bits;
};

static const struct container_pattern containers[] = {
	/* transformers modeling_qwen3_moe / deepseek_v3 / mixtral / gpt_oss:
	 * mlp.experts.N, block_sparse_moe.experts.N, fused mlp.experts;
	 * modeling_granitemoe: block_sparse_moe.input_linear (fused) */
	{ LIT("experts"), C_EXPERTS },
	{ LIT("block_sparse_moe"), C_EXPERTS },
	/* modeling_qwen2_moe shared_expert, modeling_deepseek_v3
	 * shared_experts, modeling_nemotron_h mixer.shared_experts */
	{ LIT("shared_expert"), C_SHARED },
	{ LIT("shared_experts"), C_SHARED },
	/* modeling_qwen3_next / qwen3_5 GatedDeltaNet */
	{ LIT("linear_attn"), C_LINEAR },
	/* modeling_mamba / mamba2 / nemotron_h (mixer), falcon_h1 and
	 * granitemoehybrid (mamba) */
	{ LIT("mixer"), C_SSM },
	{ LIT("mamba"), C_SSM },
	/* modeling_lfm2 (conv.*), llama.cpp LFM2 GGUF shortconv.* */
	{ LIT("conv"), C_CONV },
	{ LIT("shortconv"), C_CONV },
	/* attention module names across families */
	{ LIT("self_attn"), C_ATTN },
	{ LIT("attn"), C_ATTN },
	{ LIT("attention"), C_ATTN },
	{ LIT("self_attention"), C_ATTN },
	/* DeepSeek-V3.2 self_attn.indexer.*, GGUF blk.N.indexer.* */
	{ LIT("indexer"), C_INDEXER },
	/* gpt-oss mlp.router, granite router.layer, DeepSeek mlp.gate.
	 * e_score_correction_bias (as a container "gate" owns params) */
	{ LIT("router"), C_ROUTER },
	{ LIT("gate"), C_ROUTER },
	/* DeepSeek-V3 MTP (README_WEIGHTS.md) */
	{ LIT("shared_head"), C_SHARED_HEAD },
	/* llama.cpp constants.py NEXTN_* */
	{ LIT("nextn"), C_NEXTN },
	/* BERT-style intermediate.dense */
	{ LIT("intermediate"), C_INTERMEDIATE },
};

enum pattern_flags {
	P_MTP_ONLY = 1u << 0,	/* only inside an MTP block or head */
	P_MTP_HEAD = 1u << 1,	/* only directly under an MTP head */
	P_MAKES_MTP = 1u << 2,	/* the name alone marks the tensor MTP */
	P_TOP = 1u << 3,	/* only outside any block */
	P_GDN = 1u << 4,	/* becomes GDN_* in a linear-attention layer */
	P_BY_CONTAINER = 1u << 5,	/* role decided from the containers */
	P_BLOCK_MTP = 1u << 6,	/* inside a block the name marks MTP */
};

struct role_pattern {
	struct lit module;
	uint8_t role;
	uint8_t flags;
};

/* Module name (last part, suffix removed) to role. First match wins. */
static const struct role_pattern modules[] = {
	/* llama.cpp gguf-py constants.py TENSOR_NAMES: global tensors */
	{ LIT("token_embd"), QA_ROLE_EMBED, 0 },
	{ LIT("position_embd"), QA_ROLE_POS_EMBED, 0 },
	{ LIT("output"), QA_ROLE_LM_HEAD, P_TOP },
	{ LIT("rope_freqs"), QA_ROLE_OTHER, 0 },
	/* TENSOR_NAMES attention (llama, qwen, gemma, gpt-oss sinks) */
	{ LIT("attn_q"), QA_ROLE_ATTN_Q, 0 },
	{ LIT("attn_k"), QA_ROLE_ATTN_K, 0 },
	{ LIT("attn_v"), QA_ROLE_ATTN_V, 0 },
	{ LIT("attn_output"), QA_ROLE_ATTN_O, 0 },
	{ LIT("attn_qkv"), QA_ROLE_ATTN_QKV, P_GDN },
	{ LIT("attn_gate"), QA_ROLE_ATTN_GATE, P_GDN },
	{ LIT("attn_sinks"), QA_ROLE_ATTN_SINKS, 0 },
	/* TENSOR_NAMES MLA (DeepSeek2, GLM-4.7-Flash, Kimi-K2) */
	{ LIT("attn_q_a"), QA_ROLE_MLA_Q_A, 0 },
	{ LIT("attn_q_b"), QA_ROLE_MLA_Q_B, 0 },
	{ LIT("attn_kv_a_mqa"), QA_ROLE_MLA_KV_A, 0 },
	{ LIT("attn_kv_b"), QA_ROLE_MLA_KV_B, 0 },
	{ LIT("attn_k_b"), QA_ROLE_MLA_K_B, 0 },
	{ LIT("attn_v_b"), QA_ROLE_MLA_V_B, 0 },
	/* TENSOR_NAMES FFN, MoE experts, shared experts, routers */
	{ LIT("ffn_gate"), QA_ROLE_FFN_GATE, 0 },
	{ LIT("ffn_up"), QA_ROLE_FFN_UP, 0 },
	{ LIT("ffn_down"), QA_ROLE_FFN_DOWN, 0 },
	{ LIT("ffn_gate_up"), QA_ROLE_FFN_GATE_UP, 0 },
	{ LIT("ffn_gate_exps"), QA_ROLE_EXPERT_GATE, 0 },
	{ LIT("ffn_up_exps"), QA_ROLE_EXPERT_UP, 0 },
	{ LIT("ffn_down_exps"), QA_ROLE_EXPERT_DOWN, 0 },
	{ LIT("ffn_gate_up_exps"), QA_ROLE_EXPERT_GATE_UP, 0 },
	{ LIT("ffn_gate_shexp"), QA_ROLE_SHARED_EXPERT_GATE, 0 },
	{ LIT("ffn_up_shexp"), QA_ROLE_SHARED_EXPERT_UP, 0 },
	{ LIT("ffn_down_shexp"), QA_ROLE_SHARED_EXPERT_DOWN, 0 },
	{ LIT("ffn_gate_inp"), QA_ROLE_ROUTER, 0 },
	{ LIT("ffn_gate_inp_shexp"), QA_ROLE_ROUTER, 0 },
	{ LIT("exp_probs_b"), QA_ROLE_ROUTER, 0 },
	/* Nemotron-3-Super latent MoE projections (constants.py
	 * FFN_LATENT_DOWN/UP; HF mixer.fc1/fc2_latent_proj) */
	{ LIT("ffn_latent_down"), QA_ROLE_FFN_DOWN, 0 },
	{ LIT("ffn_latent_up"), QA_ROLE_FFN_UP, 0 },
	{ LIT("fc1_latent_proj"), QA_ROLE_FFN_DOWN, 0 },
	{ LIT("fc2_latent_proj"), QA_ROLE_FFN_UP, 0 },
	/* TENSOR_NAMES SSM (Mamba, Mamba2, Nemotron-H, Falcon-H1, Granite
	 * hybrid) and Qwen3-Next / Qwen3.5 GDN (§C1, §C2) */
	{ LIT("ssm_in"), QA_ROLE_SSM_IN, 0 },
	{ LIT("ssm_conv1d"), QA_ROLE_SSM_CONV, 0 },
	{ LIT("ssm_out"), QA_ROLE_SSM_OUT, 0 },
	{ LIT("ssm_x"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("ssm_dt"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("ssm_a"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("ssm_d"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("ssm_ba"), QA_ROLE_GDN_BA, 0 },
	{ LIT("ssm_alpha"), QA_ROLE_GDN_BA, 0 },
	{ LIT("ssm_beta"), QA_ROLE_GDN_BA, 0 },
	/* TENSOR_NAMES NEXTN_* (blk.N.nextn.*) and transformers
	 * modeling_deepseek_v3 MTP layer (README_WEIGHTS.md) */
	{ LIT("eh_proj"), QA_ROLE_MTP_EH_PROJ, P_MAKES_MTP },
	{ LIT("enorm"), QA_ROLE_MTP_ENORM, P_MAKES_MTP },
	{ LIT("hnorm"), QA_ROLE_MTP_HNORM, P_MAKES_MTP },
	{ LIT("shared_head_head"), QA_ROLE_MTP_SHARED_HEAD, P_MAKES_MTP },
	{ LIT("shared_head_norm"), QA_ROLE_MTP_NORM, P_MAKES_MTP },
	/* vllm models/qwen3_next_mtp.py: mtp.fc, mtp.pre_fc_norm_*, mtp.norm */
	{ LIT("fc"), QA_ROLE_MTP_EH_PROJ, P_MTP_ONLY | P_MTP_HEAD },
	{ LIT("pre_fc_norm_embedding"), QA_ROLE_MTP_ENORM, P_MAKES_MTP },
	{ LIT("pre_fc_norm_hidden"), QA_ROLE_MTP_HNORM, P_MAKES_MTP },
	{ LIT("norm"), QA_ROLE_MTP_NORM, P_MTP_ONLY | P_MTP_HEAD },
	/* vllm models/mimo_mtp.py (model.mtp_layers.K) */
	{ LIT("input_proj"), QA_ROLE_MTP_EH_PROJ, P_MTP_ONLY },
	{ LIT("token_layernorm"), QA_ROLE_MTP_ENORM, P_MTP_ONLY },
	{ LIT("hidden_layernorm"), QA_ROLE_MTP_HNORM, P_MTP_ONLY },
	/* mimo_mtp.py and vllm models/nemotron_h_mtp.py */
	{ LIT("final_layernorm"), QA_ROLE_MTP_NORM, P_MTP_ONLY },
	/* llama.cpp conversion/deepseek.py DeepseekV4Model: mtp.K.e_proj /
	 * h_proj, concatenated into eh_proj in GGUF */
	{ LIT("e_proj"), QA_ROLE_MTP_EH_PROJ, P_MTP_ONLY },
	{ LIT("h_proj"), QA_ROLE_MTP_EH_PROJ, P_MTP_ONLY },
	/* transformers modeling_llama / mistral / qwen2 / qwen3 / gemma /
	 * smollm3 / deepseek_v3 / nemotron_h (mixer.*_proj) */
	/* a trunk block never holds embed_tokens: the DeepSeek-style MTP
	 * block keeps its own copy (model.layers.61.embed_tokens) */
	{ LIT("embed_tokens"), QA_ROLE_EMBED, P_BLOCK_MTP },
	{ LIT("lm_head"), QA_ROLE_LM_HEAD, 0 },
	{ LIT("q_proj"), QA_ROLE_ATTN_Q, 0 },
	{ LIT("k_proj"), QA_ROLE_ATTN_K, 0 },
	{ LIT("v_proj"), QA_ROLE_ATTN_V, 0 },
	{ LIT("o_proj"), QA_ROLE_ATTN_O, 0 },
	{ LIT("sinks"), QA_ROLE_ATTN_SINKS, 0 },	/* modeling_gpt_oss */
	{ LIT("gate_proj"), QA_ROLE_FFN_GATE, 0 },
	{ LIT("up_proj"), QA_ROLE_FFN_UP, 0 },
	{ LIT("down_proj"), QA_ROLE_FFN_DOWN, 0 },
	/* modeling_phi3 fused projections; fused 3-D experts (§C5) */
	{ LIT("qkv_proj"), QA_ROLE_ATTN_QKV, 0 },
	{ LIT("gate_up_proj"), QA_ROLE_FFN_GATE_UP, 0 },
	/* MoE routers: modeling_deepseek_v3 / qwen3_moe mlp.gate,
	 * modeling_mixtral block_sparse_moe.gate, modeling_gpt_oss
	 * mlp.router, modeling_qwen2_moe shared_expert_gate */
	{ LIT("gate"), QA_ROLE_ROUTER, 0 },
	{ LIT("router"), QA_ROLE_ROUTER, 0 },
	{ LIT("e_score_correction_bias"), QA_ROLE_ROUTER, 0 },
	{ LIT("shared_expert_gate"), QA_ROLE_ROUTER, 0 },
	/* modeling_deepseek_v3 MLA (§C4) */
	{ LIT("q_a_proj"), QA_ROLE_MLA_Q_A, 0 },
	{ LIT("q_b_proj"), QA_ROLE_MLA_Q_B, 0 },
	{ LIT("kv_a_proj_with_mqa"), QA_ROLE_MLA_KV_A, 0 },
	{ LIT("kv_b_proj"), QA_ROLE_MLA_KV_B, 0 },
	/* modeling_qwen3_next / qwen3_5 GatedDeltaNet (§C1) */
	{ LIT("in_proj_qkvz"), QA_ROLE_GDN_QKV, 0 },
	{ LIT("in_proj_qkv"), QA_ROLE_GDN_QKV, 0 },
	{ LIT("in_proj_z"), QA_ROLE_GDN_GATE, 0 },
	{ LIT("in_proj_ba"), QA_ROLE_GDN_BA, 0 },
	{ LIT("in_proj_a"), QA_ROLE_GDN_BA, 0 },
	{ LIT("in_proj_b"), QA_ROLE_GDN_BA, 0 },
	/* modeling_mamba / mamba2 / nemotron_h / falcon_h1 / qwen3_next
	 * (conv1d, A_log, dt_bias shared with GDN), modeling_lfm2 conv */
	{ LIT("in_proj"), QA_ROLE_SSM_IN, 0 },
	{ LIT("conv1d"), QA_ROLE_SSM_CONV, 0 },
	{ LIT("conv"), QA_ROLE_SSM_CONV, 0 },
	{ LIT("out_proj"), QA_ROLE_ATTN_O, P_BY_CONTAINER },
	{ LIT("A_log"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("D"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("dt_bias"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("dt_proj"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("x_proj"), QA_ROLE_SSM_PARAM, 0 },
	{ LIT("embeddings"), QA_ROLE_EMBED, 0 },
	{ LIT("embedding"), QA_ROLE_EMBED, 0 },
	/* modeling_gpt2 (wte, wpe, c_attn, c_fc, c_proj) */
	{ LIT("wte"), QA_ROLE_EMBED, 0 },
	{ LIT("wpe"), QA_ROLE_POS_EMBED, 0 },
	{ LIT("c_attn"), QA_ROLE_ATTN_QKV, 0 },
	{ LIT("c_fc"), QA_ROLE_FFN_UP, 0 },
	{ LIT("c_proj"), QA_ROLE_FFN_DOWN, P_BY_CONTAINER },
	/* modeling_falcon / bloom / gpt_neox (query_key_value, dense,
	 * dense_h_to_4h, dense_4h_to_h, word_embeddings, embed_in/out),
	 * MPT / Phi-MSFT Wqkv */
	{ LIT("query_key_value"), QA_ROLE_ATTN_QKV, 0 },
	{ LIT("Wqkv"), QA_ROLE_ATTN_QKV, 0 },
	{ LIT("qkv"), QA_ROLE_ATTN_QKV, 0 },
	{ LIT("dense"), QA_ROLE_ATTN_O, P_BY_CONTAINER },
	{ LIT("dense_h_to_4h"), QA_ROLE_FFN_UP, 0 },
	{ LIT("dense_4h_to_h"), QA_ROLE_FFN_DOWN, 0 },
	{ LIT("word_embeddings"), QA_ROLE_EMBED, 0 },
	{ LIT("embed_in"), QA_ROLE_EMBED, 0 },
	{ LIT("embed_out"), QA_ROLE_LM_HEAD, 0 },
	{ LIT("position_embeddings"), QA_ROLE_POS_EMBED, 0 },
	{ LIT("embed_positions"), QA_ROLE_POS_EMBED, 0 },
	/* BERT-style attention.self.{query,key,value} */
	{ LIT("query"), QA_ROLE_ATTN_Q, 0 },
	{ LIT("key"), QA_ROLE_ATTN_K, 0 },
	{ LIT("value"), QA_ROLE_ATTN_V, 0 },
	/* modeling_phi (fc1/fc2), modeling_lfm2 / Meta and Mistral original
	 * checkpoints (tok_embeddings, attention.wq..wo, feed_forward.w1..w3),
	 * modeling_mixtral experts (w1 gate, w3 up, w2 down) */
	{ LIT("fc1"), QA_ROLE_FFN_UP, 0 },
	{ LIT("fc2"), QA_ROLE_FFN_DOWN, 0 },
	{ LIT("tok_embeddings"), QA_ROLE_EMBED, 0 },
	{ LIT("wq"), QA_ROLE_ATTN_Q, 0 },
	{ LIT("wk"), QA_ROLE_ATTN_K, 0 },
	{ LIT("wv"), QA_ROLE_ATTN_V, 0 },
	{ LIT("wo"), QA_ROLE_ATTN_O, 0 },
	{ LIT("w1"), QA_ROLE_FFN_GATE, 0 },
	{ LIT("w2"), QA_ROLE_FFN_DOWN, 0 },
	{ LIT("w3"), QA_ROLE_FFN_UP, 0 },
	/* modeling_granitemoe / granitemoehybrid: fused input_linear
	 * (gate+up), output_linear (down); shared_mlp is the dense MLP */
	{ LIT("input_linear"), QA_ROLE_FFN_GATE_UP, 0 },
	{ LIT("output_linear"), QA_ROLE_FFN_DOWN, 0 },
	/* GPT-2 / Falcon layer norms without "norm" in the name */
	{ LIT("ln_1"), QA_ROLE_NORM, 0 },
	{ LIT("ln_2"), QA_ROLE_NORM, 0 },
	{ LIT("ln_f"), QA_ROLE_NORM, 0 },
	{ LIT("ln_attn"), QA_ROLE_NORM, 0 },
	{ LIT("ln_mlp"), QA_ROLE_NORM, 0 },
};

/* Where the tensor sits, found before the module is looked up. */
struct scope {
	int32_t layer;
	bool in_block;		/* inside blk.N / layers.N / mtp.layers.K */
	bool mtp;		/* under an MTP prefix or inline MTP block */
	bool mtp_head;		/* MTP prefix but outside its layers */
};

/* Parses the decimal number at the start of s that ends at a dot. */
static bool
parse_index(const char *s, int32_t *out, const char **rest)
{
	int32_t v = 0;
	int digits = 0;

	while (*s >= '0' && *s <= '9') {
		if (digits == 9)
			return false;	/* no model has a billion blocks */
		v = v * 10 + (*s - '0');
		digits++;
		s++;
	}
	if (digits == 0 || *s != '.')
		return false;
	*out = v;
	*rest = s + 1;
	return true;
}

/* "layers.N." and friends at the start of s. */
static bool
parse_block(const char *s, const char *end, int32_t *layer, const char **rest)
{
	size_t i;

	for (i = 0; i < sizeof(block_prefixes) / sizeof(block_prefixes[0]);
	     i++) {
		const struct lit *b = &block_prefixes[i];

		if (starts_lit(s, end, b) && s[b->n] == '.' &&
		    parse_index(s + b->n + 1, layer, rest))
			return true;
	}
	return false;
}

static int64_t
ctx_n_layer(const struct qa_role_context *ctx)
{
	return ctx ? ctx->n_layer : -1;
}

/* MTP block K is stored after the trunk: block n_layer + K in GGUF. */
static int32_t
mtp_layer(const struct qa_role_context *ctx, int32_t k)
{
	int64_t n = ctx_n_layer(ctx);
	int64_t v;

	if (n < 0)
		return k;
	v = n + k;
	return v <= INT32_MAX ? (int32_t)v : -1;
}

static int
layer_kind(const struct qa_role_context *ctx, int32_t layer)
{
	if (!ctx || !ctx->layer_kind || layer < 0 ||
	    layer >= ctx->n_layer_kind)
		return QA_LAYER_UNKNOWN;
	return ctx->layer_kind[layer];
}

/*
 * Finds the MTP scope and the block. Returns the name rest after the block
 * prefix (or after "mtp." for head tensors).
 */
static const char *
find_scope(const char *p, const char *end, const struct qa_role_context *ctx,
	   struct scope *sc)
{
	const char *rest;
	int32_t k;

	sc->layer = -1;
	sc->in_block = false;
	sc->mtp = false;
	sc->mtp_head = false;
	/* MiMo: model.mtp_layers.K (vllm models/mimo_mtp.py) */
	if (STARTS(p, end, "mtp_layers.") &&
	    parse_index(p + sizeof("mtp_layers.") - 1, &k, &rest)) {
		sc->mtp = true;
		sc->in_block = true;
		sc->layer = mtp_layer(ctx, k);
		return rest;
	}
	/* Qwen3-Next/3.5, EXAONE-MoE, Nemotron-H: mtp.layers.K; MiMo-V2:
	 * model.mtp.layers.K; DeepSeek-V4: mtp.K (§B1) */
	if (STARTS(p, end, "mtp.")) {
		p += sizeof("mtp.") - 1;
		sc->mtp = true;
		if ((STARTS(p, end, "layers.") &&
		     parse_index(p + sizeof("layers.") - 1, &k, &rest)) ||
		    parse_index(p, &k, &rest)) {
			sc->in_block = true;
			sc->layer = mtp_layer(ctx, k);
			return rest;
		}
		sc->mtp_head = true;
		if (ctx_n_layer(ctx) >= 0 && ctx->n_layer <= INT32_MAX)
			sc->layer = (int32_t)ctx->n_layer;
		return p;
	}
	if (parse_block(p, end, &k, &rest)) {
		int64_t n = ctx_n_layer(ctx);

		sc->in_block = true;
		sc->layer = k;
		/* DeepSeek/GLM-style inline MTP: blocks past the trunk */
		if (n >= 0 && ctx->n_mtp > 0 && k >= n)
			sc->mtp = true;
		if (layer_kind(ctx, k) == QA_LAYER_MTP)
			sc->mtp = true;
		return rest;
	}
	return p;
}

static enum qa_role
tower_role(const char *p, const char *end)
{
	size_t i;

	for (i = 0; i < sizeof(towers) / sizeof(towers[0]); i++) {
		const struct lit *f = &towers[i].first;

		if (starts_lit(p, end, f) && p[f->n] == '.') {
			/* Qwen2.5-VL / Qwen3-VL visual.merger and
			 * deepstack_merger_list project into the LM */
			if (towers[i].role == QA_ROLE_VISION &&
			    strstr(p + f->n, "merger") != NULL)
				return QA_ROLE_PROJECTOR;
			return (enum qa_role)towers[i].role;
		}
	}
	return QA_ROLE_OTHER;
}

static const char *
strip_wrappers(const char *p, const char *end)
{
	bool again = true;

	while (again) {
		size_t i;

		again = false;
		for (i = 0;
		     i < sizeof(wrapper_prefixes) / sizeof(wrapper_prefixes[0]);
		     i++) {
			if (starts_lit(p, end, &wrapper_prefixes[i])) {
				p += wrapper_prefixes[i].n;
				again = true;
			}
		}
	}
	return p;
}

#define MAX_PARTS 32

/* Splits [s, end) at dots; returns the part count or 0 if there are too
 * many. */
static size_t
split(const char *s, const char *end, struct part *parts)
{
	size_t n = 0;
	const char *p;

	for (;;) {
		for (p = s; p < end && *p != '.'; p++)
			;
		if (n == MAX_PARTS)
			return 0;
		parts[n].s = s;
		parts[n].n = (size_t)(p - s);
		n++;
		if (p == end)
			return n;
		s = p + 1;
	}
}

static bool
is_quant_suffix(struct part p)
{
	size_t i;

	for (i = 0; i < sizeof(quant_suffixes) / sizeof(quant_suffixes[0]);
	     i++)
		if (part_is_lit(p, &quant_suffixes[i]))
			return true;
	return false;
}

/* Drops the quantization suffix; returns the remaining part count. */
static size_t
strip_suffix(const struct part *parts, size_t n)
{
	size_t i;

	if (n < 2)
		return n;
	/* bitsandbytes 4-bit: <module>.weight.absmax, .weight.quant_map,
	 * .weight.quant_state.bitsandbytes__nf4 (§1.3) */
	for (i = 1; i + 1 < n; i++)
		if (PART_IS(parts[i], "weight"))
			return i;
	return is_quant_suffix(parts[n - 1]) ? n - 1 : n;
}

static unsigned
container_bits(const struct part *parts, size_t n)
{
	unsigned bits = 0;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < sizeof(containers) / sizeof(containers[0]);
		     j++)
			if (part_is_lit(parts[i], &containers[j].part))
				bits |= containers[j].bits;
	return bits;
}

/*
 * The rows of modules[] by module-name length, each length's rows in
 * table order (first match wins): a look-up compares the few rows of
 * its length instead of all of them. Built once per process.
 */
#define MODULE_LEN_MAX 48
static uint8_t by_len[sizeof(modules) / sizeof(modules[0])];
static uint8_t len_start[MODULE_LEN_MAX + 2];
static pthread_once_t by_len_once = PTHREAD_ONCE_INIT;

_Static_assert(sizeof(modules) / sizeof(modules[0]) <= 255,
	       "row indices fit in uint8_t");

static void
index_modules(void)
{
	size_t i, len, k, count[MODULE_LEN_MAX + 2] = { 0 };

	/* a counting sort by length, stable: table order within a length */
	for (i = 0; i < sizeof(modules) / sizeof(modules[0]); i++)
		if (modules[i].module.n <= MODULE_LEN_MAX)
			count[modules[i].module.n]++;
	for (len = 0, k = 0; len <= MODULE_LEN_MAX; len++) {
		len_start[len] = (uint8_t)k;
		k += count[len];
		count[len] = len_start[len];
	}
	len_start[MODULE_LEN_MAX + 1] = (uint8_t)k;
	for (i = 0; i < sizeof(modules) / sizeof(modules[0]); i++)
		if (modules[i].module.n <= MODULE_LEN_MAX)
			by_len[count[modules[i].module.n]++] = (uint8_t)i;
}

static const struct role_pattern *
lookup(struct part mod, const struct scope *sc, unsigned bits)
{
	size_t k;

	if (mod.n > MODULE_LEN_MAX)
		return NULL;
	pthread_once(&by_len_once, index_modules);
	for (k = len_start[mod.n]; k < len_start[mod.n + 1]; k++) {
		const struct role_pattern *e = &modules[by_len[k]];

		if (!part_is_lit(mod, &e->module))
			continue;
		if ((e->flags & P_MTP_ONLY) && !sc->mtp &&
		    !(bits & C_NEXTN))
			continue;
		if ((e->flags & P_MTP_HEAD) && (!sc->mtp_head || bits))
			continue;
		if ((e->flags & P_TOP) && (sc->in_block || sc->mtp))
			continue;
		return e;
	}
	return NULL;
}

/* Retries without a glued gpt-oss suffix (gate_up_proj_blocks). */
static const struct role_pattern *
lookup_glued(struct part mod, const struct scope *sc, unsigned bits)
{
	size_t i;

	for (i = 0; i < sizeof(glued_suffixes) / sizeof(glued_suffixes[0]);
	     i++) {
		size_t n = glued_suffixes[i].n;
		struct part base;

		if (mod.n <= n ||
		    memcmp(mod.s + mod.n - n, glued_suffixes[i].s, n) != 0)
			continue;
		base.s = mod.s;
		base.n = mod.n - n;
		return lookup(base, sc, bits);
	}
	return NULL;
}

/* Roles that depend on the surrounding module (c_proj, dense, out_proj). */
static enum qa_role
by_container(struct part mod, unsigned bits)
{
	if (PART_IS(mod, "out_proj"))
		return bits & (C_SSM | C_LINEAR | C_CONV) ? QA_ROLE_SSM_OUT
							  : QA_ROLE_ATTN_O;
	if (PART_IS(mod, "c_proj"))
		return bits & C_ATTN ? QA_ROLE_ATTN_O : QA_ROLE_FFN_DOWN;
	/* dense: Falcon/Phi attention output, BERT intermediate/output */
	if (bits & C_ATTN)
		return QA_ROLE_ATTN_O;
	return bits & C_INTERMEDIATE ? QA_ROLE_FFN_UP : QA_ROLE_FFN_DOWN;
}

/* Dense FFN roles move to the expert or shared-expert family. */
static enum qa_role
ffn_family(enum qa_role r, unsigned bits)
{
	if (bits & C_SHARED) {
		switch (r) {
		case QA_ROLE_FFN_GATE:
			return QA_ROLE_SHARED_EXPERT_GATE;
		case QA_ROLE_FFN_UP:
		/* no fused shared-expert role: counted with up */
		case QA_ROLE_FFN_GATE_UP:
			return QA_ROLE_SHARED_EXPERT_UP;
		case QA_ROLE_FFN_DOWN:
			return QA_ROLE_SHARED_EXPERT_DOWN;
		default:
			return r;
		}
	}
	if (bits & C_EXPERTS) {
		switch (r) {
		case QA_ROLE_FFN_GATE:
			return QA_ROLE_EXPERT_GATE;
		case QA_ROLE_FFN_UP:
			return QA_ROLE_EXPERT_UP;
		case QA_ROLE_FFN_DOWN:
			return QA_ROLE_EXPERT_DOWN;
		case QA_ROLE_FFN_GATE_UP:
			return QA_ROLE_EXPERT_GATE_UP;
		default:
			return r;
		}
	}
	return r;
}

struct qa_role_result
qa_role_classify(const char *name, const struct qa_role_context *ctx)
{
	struct qa_role_result res = { QA_ROLE_OTHER, -1, false };
	struct part parts[MAX_PARTS];
	const struct role_pattern *e;
	struct scope sc;
	enum qa_role role = QA_ROLE_OTHER;
	const char *p, *end;
	unsigned bits;
	size_t n;
	struct part mod;

	if (!name || !*name)
		return res;
	end = name + strlen(name);
	p = strip_wrappers(name, end);
	/* Towers keep layer -1 so their blocks never mix into the per-layer
	 * map of the language model. */
	res.role = tower_role(p, end);
	if (res.role != QA_ROLE_OTHER)
		return res;

	p = find_scope(p, end, ctx, &sc);
	n = split(p, end, parts);
	if (n == 0)
		return res;
	n = strip_suffix(parts, n);
	mod = parts[n - 1];
	bits = container_bits(parts, n - 1);
	res.layer = sc.layer;
	if (bits & C_NEXTN)
		sc.mtp = true;

	e = lookup(mod, &sc, bits);
	if (!e)
		e = lookup_glued(mod, &sc, bits);
	if (e) {
		role = (enum qa_role)e->role;
		if (e->flags & P_BY_CONTAINER)
			role = by_container(mod, bits);
		if ((e->flags & P_MAKES_MTP) ||
		    ((e->flags & P_BLOCK_MTP) && sc.in_block))
			sc.mtp = true;
		if ((e->flags & P_GDN) &&
		    layer_kind(ctx, sc.layer) == QA_LAYER_LINEAR_ATTENTION)
			role = role == QA_ROLE_ATTN_QKV ? QA_ROLE_GDN_QKV
							: QA_ROLE_GDN_GATE;
	} else if (part_has(mod, "norm", 4) || part_has(mod, "Norm", 4)) {
		/* every *norm* / *layernorm* / LayerNorm (attn_norm,
		 * q_norm, input_layernorm, output_norm, norm_f, ...) */
		role = QA_ROLE_NORM;
	}

	if (bits & C_INDEXER) {
		role = QA_ROLE_DSA_INDEXER;
	} else if (bits & C_SHARED_HEAD) {
		/* DeepSeek MTP shared_head.{head,norm} */
		sc.mtp = true;
		role = PART_IS(mod, "norm") ? QA_ROLE_MTP_NORM
					    : QA_ROLE_MTP_SHARED_HEAD;
	} else if (bits & C_ROUTER) {
		role = QA_ROLE_ROUTER;
	} else {
		role = ffn_family(role, bits);
	}

	if (sc.mtp) {
		if (role == QA_ROLE_EMBED)
			role = QA_ROLE_MTP_EMBED;
		else if (role == QA_ROLE_LM_HEAD)
			role = QA_ROLE_MTP_SHARED_HEAD;
	}
	res.role = role;
	res.mtp = sc.mtp;
	return res;
}

/* ---- many names: the block-number memo ----------------------------------- */

/* How a memo entry's layer follows the block number v of a new name. */
enum memo_layer { ML_NONE, ML_SAME, ML_PLUS_N, ML_NO_MEMO };

struct role_memo_entry {
	uint64_t hash;
	uint32_t key_off, key_len;
	uint8_t mode;
	bool confirmed;		/* a second name agreed with the rule */
	struct qa_role_result r;
};

static struct qa_role_result
memo_answer(const struct role_memo_entry *e, int64_t nl, int32_t v)
{
	struct qa_role_result r = e->r;

	r.layer = e->mode == ML_SAME ? v :
		  e->mode == ML_PLUS_N ? (int32_t)(nl + v) : -1;
	return r;
}

/* Longest name answered from the memo; longer ones are classified. */
#define MEMO_KEY_MAX 512

/*
 * The block number of name: the first part made of 1 to 9 digits that
 * follows a part "blk" or "layers" ("blk.17.", "model.layers.17."); *at
 * and *len its place. False when there is none.
 */
static bool
block_digits(const char *name, size_t *at, size_t *len, int32_t *v)
{
	const char *prev = NULL, *p = name;
	size_t prev_len = 0;

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p), k;
		int32_t val = 0;

		if (dot && n >= 1 && n <= 9 && prev &&
		    ((prev_len == 3 && memcmp(prev, "blk", 3) == 0) ||
		     (prev_len == 6 && memcmp(prev, "layers", 6) == 0))) {
			for (k = 0; k < n && p[k] >= '0' && p[k] <= '9'; k++)
				val = val * 10 + (p[k] - '0');
			if (k == n) {
				*at = (size_t)(p - name);
				*len = n;
				*v = val;
				return true;
			}
		}
		if (!dot)
			return false;
		prev = p;
		prev_len = n;
		p = dot + 1;
	}
}

/*
 * What of the context a name's answer can depend on through its block
 * number v: the kind of block v and of block n_layer + v (MTP blocks are
 * numbered after the trunk), whether v is past the trunk, and whether
 * n_layer + v overflows. Names that agree on these (and on the rest of
 * the name) get the same role.
 */
static uint32_t
block_class(const struct qa_role_context *ctx, int32_t v)
{
	int64_t n = ctx_n_layer(ctx), nv = n < 0 ? v : n + v;
	uint32_t c;

	c = (uint32_t)layer_kind(ctx, v);
	c |= (nv <= INT32_MAX ? (uint32_t)layer_kind(ctx, (int32_t)nv) : 0xFFu)
	     << 8;
	c |= (uint32_t)(n >= 0 && v >= n) << 16;
	c |= (uint32_t)(nv > INT32_MAX) << 17;
	return c;
}

int
qa_role_classify_all(const char *const *names, size_t n,
		     const struct qa_role_context *ctx,
		     struct qa_role_result *out)
{
	struct role_memo_entry *ent = NULL;
	uint32_t *slot = NULL;
	char *keys = NULL;
	size_t n_ent = 0, keys_len = 0, keys_cap = 0, cap = 64, i;
	int64_t nl = ctx_n_layer(ctx);
	char key[MEMO_KEY_MAX + 8];

	while (cap < n * 2 && cap < ((size_t)1 << 30))
		cap *= 2;
	slot = qa_big_alloc(cap * sizeof(*slot));
	ent = qa_big_alloc((n ? n : 1) * sizeof(*ent));
	if (!slot || !ent) {
		qa_big_free(slot, cap * sizeof(*slot));
		qa_big_free(ent, (n ? n : 1) * sizeof(*ent));
		for (i = 0; i < n; i++)
			out[i] = qa_role_classify(names[i], ctx);
		return QA_E_NOMEM;
	}
	for (i = 0; i < n; i++) {
		const char *name = names[i];
		size_t at, len, nlen, klen, h;
		int32_t v;
		uint32_t cls;
		struct role_memo_entry *e = NULL;
		struct qa_role_result r;

		if (!name || !block_digits(name, &at, &len, &v) ||
		    (nlen = strlen(name)) > MEMO_KEY_MAX) {
			out[i] = qa_role_classify(name, ctx);
			continue;
		}
		/* the key: the class, then the name with its block number
		 * replaced by '#' */
		cls = block_class(ctx, v);
		memcpy(key, &cls, sizeof(cls));
		memcpy(key + 4, name, at);
		key[4 + at] = '#';
		memcpy(key + 5 + at, name + at + len, nlen - at - len);
		klen = 5 + nlen - len;
		{
			uint64_t hv = qa_hash(key, klen);

			for (h = hv & (cap - 1); slot[h];
			     h = (h + 1) & (cap - 1)) {
				struct role_memo_entry *o = &ent[slot[h] - 1];

				if (o->hash == hv && o->key_len == klen &&
				    memcmp(keys + o->key_off, key, klen) == 0) {
					e = o;
					break;
				}
			}
			if (e && e->confirmed) {
				out[i] = memo_answer(e, nl, v);
				continue;
			}
			r = qa_role_classify(name, ctx);
			out[i] = r;
			if (!e && n_ent * 2 >= cap)
				continue;	/* the table stays half empty */
			if (e) {
				/* the second name of a template checks the rule
				 * the first one suggested: no coincidence of one
				 * name makes a rule */
				struct qa_role_result m;

				if (e->mode == ML_NO_MEMO)
					continue;
				m = memo_answer(e, nl, v);
				if (m.role == r.role && m.layer == r.layer &&
				    m.mtp == r.mtp)
					e->confirmed = true;
				else
					e->mode = ML_NO_MEMO;
				continue;
			}
			/* remember it */
			if (keys_len + klen > keys_cap) {
				size_t nc = keys_cap ? keys_cap * 2 : 4096;
				char *nk;

				while (nc < keys_len + klen)
					nc *= 2;
				nk = realloc(keys, nc);
				if (!nk)
					continue;
				keys = nk;
				keys_cap = nc;
			}
			memcpy(keys + keys_len, key, klen);
			e = &ent[n_ent];
			e->hash = hv;
			e->key_off = (uint32_t)keys_len;
			e->key_len = (uint32_t)klen;
			e->r = r;
			e->confirmed = false;
			/* how the layer follows v; anything else is not
			 * answered from memory */
			if (r.layer == v)
				e->mode = ML_SAME;
			else if (nl >= 0 && r.layer == nl + v)
				e->mode = ML_PLUS_N;
			else if (r.layer == -1)
				e->mode = ML_NONE;
			else
				e->mode = ML_NO_MEMO;
			keys_len += klen;
			slot[h] = (uint32_t)++n_ent;
		}
	}
	free(keys);
	qa_big_free(slot, cap * sizeof(*slot));
	qa_big_free(ent, (n ? n : 1) * sizeof(*ent));
	return QA_OK;
}
