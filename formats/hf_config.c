/* SPDX-License-Identifier: MIT */
/*
 * Hugging Face config.json → normalized hyperparameters (struct
 * qa_hparams). Keys differ by family; the synonyms are kept as data below,
 * each list in precedence order, with the notes they come from
 * (shared/knowledge/quant-formats.md §B1 MTP, §C1 Qwen3-Next/3.5 GDN,
 * §C2 Nemotron-H, §C3 sliding window, §C4 MLA, §C5 MoE).
 *
 * Multimodal wrappers (Qwen3.5/3.6 VL, Gemma 3, Llama 4) keep the language
 * model's keys in "text_config"; a key is looked up there first and then
 * at the top level, where file-level keys such as mtp_num_hidden_layers
 * may also live.
 *
 * The per-layer kind map (hp.layer_kind, n_layer_all entries) comes from,
 * in order: layer_types, hybrid_override_pattern, layers_block_type, the
 * Qwen3-Next full_attention_interval default, a sliding_window_pattern
 * period (Gemma 2/3 defaults), or one kind for every layer. MTP blocks
 * (declared by num_nextn_predict_layers / mtp_num_hidden_layers) follow
 * the trunk and are QA_LAYER_MTP.
 */
#include "formats/format.h"
#include "core/json_file.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Refuse absurd layer counts before allocating the per-layer map. */
#define MAX_LAYERS 100000
/* Factors of a product stay below this so it cannot overflow int64. */
#define MAX_FACTOR ((int64_t)1 << 30)

#define F(field) offsetof(struct qa_hparams, field)

/* Integer keys: the first present key of a field wins (table order). */
static const struct hp_key {
	const char *key;
	size_t field;		/* offset of an int64_t in struct qa_hparams */
} int_keys[] = {
	/* trunk size */
	{ "num_hidden_layers", F(n_layer) },
	{ "n_layer", F(n_layer) },
	{ "num_layers", F(n_layer) },
	{ "hidden_size", F(n_embd) },
	{ "d_model", F(n_embd) },
	{ "num_attention_heads", F(n_head) },
	{ "num_key_value_heads", F(n_head_kv) },
	{ "head_dim", F(head_dim_k) },
	{ "intermediate_size", F(n_ff) },
	{ "vocab_size", F(n_vocab) },
	{ "max_position_embeddings", F(n_ctx_train) },
	/* MLA, §C4 */
	{ "q_lora_rank", F(q_lora_rank) },
	{ "kv_lora_rank", F(kv_lora_rank) },
	{ "qk_rope_head_dim", F(qk_rope_dim) },
	{ "qk_nope_head_dim", F(qk_nope_dim) },
	{ "v_head_dim", F(v_head_dim_mla) },
	/* MoE, §C5 */
	{ "n_routed_experts", F(n_expert) },
	{ "num_experts", F(n_expert) },
	{ "num_local_experts", F(n_expert) },
	{ "num_experts_per_tok", F(n_expert_used) },
	{ "num_experts_per_token", F(n_expert_used) },
	{ "top_k_experts", F(n_expert_used) },
	{ "n_shared_experts", F(n_expert_shared) },
	{ "moe_intermediate_size", F(n_ff_expert) },
	{ "first_k_dense_replace", F(n_leading_dense) },
	/* sliding window, §C3 (transformers 5 writes _sliding_window_pattern) */
	{ "sliding_window", F(sliding_window) },
	{ "sliding_window_pattern", F(swa_pattern) },
	{ "_sliding_window_pattern", F(swa_pattern) },
	/* Qwen3-Next / 3.5 GDN, §C1 */
	{ "full_attention_interval", F(full_attention_interval) },
	/* SSM: Mamba2 (§C2) and GDN (§C1, as llama.cpp maps them) */
	{ "mamba_d_conv", F(ssm_d_conv) },
	{ "conv_kernel", F(ssm_d_conv) },
	{ "linear_conv_kernel_dim", F(ssm_d_conv) },
	{ "conv_L_cache", F(ssm_d_conv) },
	{ "ssm_state_size", F(ssm_d_state) },
	{ "mamba_d_state", F(ssm_d_state) },	/* Granite-H, Bamba, Falcon-H1 */
	{ "state_size", F(ssm_d_state) },
	{ "linear_key_head_dim", F(ssm_d_state) },
	{ "n_groups", F(ssm_n_group) },
	{ "mamba_n_groups", F(ssm_n_group) },
	{ "linear_num_key_heads", F(ssm_n_group) },
	{ "time_step_rank", F(ssm_dt_rank) },
	{ "mamba_num_heads", F(ssm_dt_rank) },
	{ "mamba_n_heads", F(ssm_dt_rank) },
	{ "linear_num_value_heads", F(ssm_dt_rank) },
	/* MTP, §B1 */
	{ "num_nextn_predict_layers", F(n_mtp) },
	{ "mtp_num_hidden_layers", F(n_mtp) },
};

/* Layer-kind words of layer_types / layers_block_type (§C1-§C3). */
static const struct kind_word {
	const char *word;
	enum qa_layer_kind kind;
} kind_words[] = {
	{ "full_attention", QA_LAYER_FULL_ATTENTION },
	{ "attention", QA_LAYER_FULL_ATTENTION },
	{ "sliding_attention", QA_LAYER_SLIDING_ATTENTION },
	{ "linear_attention", QA_LAYER_LINEAR_ATTENTION },
	{ "mamba", QA_LAYER_MAMBA },
	/* LFM2 layer_types: "conv" (a gated short convolution) or
	 * "full_attention" (transformers configuration_lfm2.py) */
	{ "conv", QA_LAYER_SHORT_CONV },
	{ "mamba2", QA_LAYER_MAMBA },
	{ "moe", QA_LAYER_MLP_ONLY },
	{ "mlp", QA_LAYER_MLP_ONLY },
};

/* Nemotron-H hybrid_override_pattern characters (§C2). */
static enum qa_layer_kind
pattern_kind(char c)
{
	switch (c) {
	case 'M':
		return QA_LAYER_MAMBA;
	case '*':
		return QA_LAYER_FULL_ATTENTION;
	case '-':
	case 'E':
		return QA_LAYER_MLP_ONLY;
	default:
		return QA_LAYER_UNKNOWN;
	}
}

/* Key in text_config first, then at the top level. */
static const cJSON *
lookup(const cJSON *text, const cJSON *root, const char *key)
{
	const cJSON *v = text ? qa_json_child(text, key) : NULL;

	return v ? v : qa_json_child(root, key);
}

static bool
as_int(const cJSON *v, int64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return false;
	d = v->valuedouble;
	if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) ||
	    d != (double)(int64_t)d)
		return false;
	*out = (int64_t)d;
	return true;
}

static int64_t *
field(struct qa_hparams *hp, size_t off)
{
	return (int64_t *)(void *)((char *)hp + off);
}

static enum qa_layer_kind
word_kind(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(kind_words) / sizeof(kind_words[0]); i++)
		if (strcmp(kind_words[i].word, w) == 0)
			return kind_words[i].kind;
	return QA_LAYER_UNKNOWN;
}

static const char *
str_copy(struct qa_inventory *inv, const cJSON *v)
{
	const char *s;

	if (!cJSON_IsString(v))
		return NULL;
	s = qa_arena_strdup(&inv->arena, v->valuestring);
	if (!s)
		inv->out_of_memory = true;
	return s;
}

static bool
has_linear_keys(const cJSON *text, const cJSON *root)
{
	static const char *const keys[] = {
		"linear_num_value_heads", "linear_num_key_heads",
		"linear_key_head_dim", "linear_value_head_dim",
		"linear_conv_kernel_dim",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (lookup(text, root, keys[i]))
			return true;
	return false;
}

/* Model types whose recurrent layers are Mamba / Mamba-2 mixers (vLLM
 * models/nemotron_h.py, granitemoehybrid.py, falcon_h1.py, bamba.py,
 * zamba2.py, mamba2.py, jamba.py, plamo2.py use MambaMixer / MambaMixer2). */
static bool
is_mamba_family(const char *mt)
{
	static const char *const fam[] = {
		"nemotron_h", "nemotron_h_moe", "granitemoehybrid",
		"falcon_h1", "bamba", "zamba2", "zamba", "mamba", "mamba2",
		"falcon_mamba", "jamba", "plamo2", NULL,
	};
	size_t i;

	for (i = 0; fam[i]; i++)
		if (strcmp(mt, fam[i]) == 0)
			return true;
	return false;
}

/* Fills hp->layer_kind for layers [0, n_layer) and marks MTP blocks. */
static void
fill_layer_kinds(struct qa_inventory *inv, const cJSON *text,
		 const cJSON *root)
{
	struct qa_hparams *hp = &inv->hp;
	const cJSON *lt = lookup(text, root, "layer_types");
	const cJSON *pat = lookup(text, root, "hybrid_override_pattern");
	const cJSON *lbt = lookup(text, root, "layers_block_type");
	const char *mt = hp->arch ? hp->arch : "";
	uint8_t *k;
	int64_t i, n = hp->n_layer;

	if (n < 0 || hp->n_layer_all <= 0 || hp->n_layer_all > MAX_LAYERS)
		return;
	k = qa_arena_array(&inv->arena, (size_t)hp->n_layer_all, 1);
	if (!k) {
		inv->out_of_memory = true;
		return;
	}
	if (cJSON_IsArray(lt) || cJSON_IsArray(lbt)) {
		const cJSON *e = (cJSON_IsArray(lt) ? lt : lbt)->child;

		for (i = 0; i < n && e; i++, e = e->next)
			k[i] = cJSON_IsString(e) ?
			       (uint8_t)word_kind(e->valuestring) :
			       QA_LAYER_UNKNOWN;
	} else if (strcmp(mt, "mamba") == 0 || strcmp(mt, "mamba2") == 0 ||
		   strcmp(mt, "falcon_mamba") == 0) {
		/* Pure state-space models: every block is a Mamba mixer
		 * (transformers modeling_mamba.py, modeling_mamba2.py,
		 * modeling_falcon_mamba.py), no attention anywhere. */
		for (i = 0; i < n; i++)
			k[i] = QA_LAYER_MAMBA;
	} else if (strcmp(mt, "falcon_h1") == 0) {
		/* transformers modeling_falcon_h1.py: every decoder layer
		 * runs attention and a Mamba-2 mixer in parallel. */
		for (i = 0; i < n; i++)
			k[i] = QA_LAYER_PARALLEL_HYBRID;
	} else if (cJSON_IsString(pat)) {
		const char *s = pat->valuestring;

		for (i = 0; i < n && s[i]; i++)
			k[i] = (uint8_t)pattern_kind(s[i]);
	} else if (has_linear_keys(text, root) ||
		   (hp->full_attention_interval > 0 &&
		    strncmp(mt, "qwen3_next", 10) == 0) ||
		   (hp->full_attention_interval > 0 &&
		    strncmp(mt, "qwen3_5", 7) == 0)) {
		/* Only the Gated DeltaNet families read the interval
		 * (transformers configuration_qwen3_next.py, qwen3_5.py);
		 * another model carrying the key keeps its attention. */
		/* Qwen3-Next / 3.5 default: full iff (i+1) % 4 == 0 (§C1). */
		if (hp->full_attention_interval <= 0)
			hp->full_attention_interval = 4;
		for (i = 0; i < n; i++)
			k[i] = (i + 1) % hp->full_attention_interval == 0 ?
			       QA_LAYER_FULL_ATTENTION :
			       QA_LAYER_LINEAR_ATTENTION;
	} else if (hp->sliding_window > 0 &&
		   (hp->swa_pattern > 0 || strncmp(mt, "gemma2", 6) == 0 ||
		    strncmp(mt, "gemma3", 6) == 0)) {
		/* Gemma 3 period 6, Gemma 2 period 2; layer i is SWA iff
		 * (i+1) % period != 0 (§C3). */
		if (hp->swa_pattern <= 0)
			hp->swa_pattern = strncmp(mt, "gemma2", 6) == 0 ? 2 : 6;
		for (i = 0; i < n; i++)
			k[i] = (i + 1) % hp->swa_pattern != 0 ?
			       QA_LAYER_SLIDING_ATTENTION :
			       QA_LAYER_FULL_ATTENTION;
	} else {
		/* One kind for all: a window without a pattern applies to
		 * every layer (Mistral v0.1, Phi-3). */
		for (i = 0; i < n; i++)
			k[i] = hp->sliding_window > 0 ?
			       QA_LAYER_SLIDING_ATTENTION :
			       QA_LAYER_FULL_ATTENTION;
	}
	/* transformers 5 names Mamba-2 layers "linear_attention" too
	 * (configuration_nemotron_h.py _pattern_to_list maps 'M' to it,
	 * remap_legacy_layer_types maps "mamba" to it): in a Mamba-family
	 * model they are Mamba-2 (SSD) mixers, not Gated DeltaNet. */
	if (is_mamba_family(mt))
		for (i = 0; i < n; i++)
			if (k[i] == QA_LAYER_LINEAR_ATTENTION)
				k[i] = QA_LAYER_MAMBA;
	for (i = n; i < hp->n_layer_all; i++)
		k[i] = QA_LAYER_MTP;
	hp->layer_kind = k;
}

void
qa_hf_fill_hparams(struct qa_inventory *inv, const char *file,
		   const cJSON *root)
{
	struct qa_hparams *hp = &inv->hp;
	const cJSON *text, *v;
	int64_t x, y;
	size_t i;

	if (!cJSON_IsObject(root))
		return;
	inv->have_config = true;
	inv->config_file = file;
	text = qa_json_child(root, "text_config");
	/* A speculators draft head (formats/draft_head.c) keeps its
	 * decoder layer's config in transformer_layer_config. */
	if (!cJSON_IsObject(text) &&
	    qa_json_child(root, "speculators_model_type"))
		text = qa_json_child(root, "transformer_layer_config");
	if (!cJSON_IsObject(text))
		text = NULL;

	v = qa_json_child(root, "model_type");
	if (!v && text)
		v = qa_json_child(text, "model_type");
	if (cJSON_IsString(v))
		hp->arch = str_copy(inv, v);
	v = qa_json_child(root, "architectures");
	if (cJSON_IsArray(v) && cJSON_IsString(v->child))
		hp->arch_raw = str_copy(inv, v->child);
	v = qa_json_child(root, "_name_or_path");
	if (cJSON_IsString(v) && v->valuestring[0])
		hp->name = str_copy(inv, v);

	for (i = 0; i < sizeof(int_keys) / sizeof(int_keys[0]); i++) {
		int64_t *dst = field(hp, int_keys[i].field);

		if (*dst == -1 && as_int(lookup(text, root, int_keys[i].key),
					 &x) && x >= 0)
			*dst = x;
	}
	/* Qwen2-style configs carry a window they do not use. */
	v = lookup(text, root, "use_sliding_window");
	if (cJSON_IsFalse(v))
		hp->sliding_window = -1;

	/* Nemotron-H derives the layer count from its pattern (§C2). */
	if (hp->n_layer < 0) {
		v = lookup(text, root, "hybrid_override_pattern");
		if (cJSON_IsString(v))
			hp->n_layer = (int64_t)strlen(v->valuestring);
		else if (cJSON_IsArray(v = lookup(text, root,
						  "layers_block_type")))
			hp->n_layer = cJSON_GetArraySize(v);
	}
	/* Declared, even as 0 (Kimi-K2, Moonlight: DeepSeek-V3's
	 * architecture without its MTP layer), is not the same as absent. */
	hp->mtp_declared = hp->n_mtp >= 0;
	if (hp->n_mtp < 0)
		hp->n_mtp = 0;
	if (hp->n_layer >= 0)
		hp->n_layer_all = hp->n_layer + hp->n_mtp;
	if (hp->n_head_kv < 0)
		hp->n_head_kv = hp->n_head;
	if (hp->head_dim_k < 0 && hp->n_embd > 0 && hp->n_head > 0)
		hp->head_dim_k = hp->n_embd / hp->n_head;
	hp->head_dim_v = hp->head_dim_k;

	/* SSM inner size: Falcon-H1's mamba_d_ssm when set (transformers
	 * modular_falcon_h1.py), Mamba2 heads x head dim (Nemotron-H's
	 * mamba_num_heads/mamba_head_dim, Granite-H and Bamba's
	 * mamba_n_heads/mamba_d_head), GDN value heads x value dim (§C1,
	 * §C2), else expand x hidden. */
	if (as_int(lookup(text, root, "mamba_d_ssm"), &x) && x > 0 &&
	    x < MAX_FACTOR)
		hp->ssm_d_inner = x;
	else if (as_int(lookup(text, root, "mamba_n_heads"), &x) &&
		 as_int(lookup(text, root, "mamba_d_head"), &y) &&
		 x > 0 && y > 0 && x < MAX_FACTOR && y < MAX_FACTOR)
		hp->ssm_d_inner = x * y;
	else if (as_int(lookup(text, root, "mamba_num_heads"), &x) &&
	    as_int(lookup(text, root, "mamba_head_dim"), &y) && x > 0 && y > 0 &&
	    x < MAX_FACTOR && y < MAX_FACTOR)
		hp->ssm_d_inner = x * y;
	else if (as_int(lookup(text, root, "linear_num_value_heads"), &x) &&
		 as_int(lookup(text, root, "linear_value_head_dim"), &y) &&
		 x > 0 && y > 0 && x < MAX_FACTOR && y < MAX_FACTOR)
		hp->ssm_d_inner = x * y;
	else if ((as_int(lookup(text, root, "mamba_expand"), &x) ||
		  as_int(lookup(text, root, "expand"), &x)) &&
		 x > 0 && x < MAX_FACTOR && hp->n_embd > 0 &&
		 hp->n_embd < MAX_FACTOR)
		hp->ssm_d_inner = x * hp->n_embd;

	/* Mamba2Config (transformers configuration_mamba2.py) names its
	 * SSM heads num_heads, which other models use for attention. */
	if (hp->ssm_dt_rank < 0 && hp->arch && strcmp(hp->arch, "mamba2") == 0 &&
	    as_int(lookup(text, root, "num_heads"), &x) && x > 0 &&
	    x < MAX_FACTOR)
		hp->ssm_dt_rank = x;

	/* LFM2 writes tie_embedding (Lfm2Config reads it). */
	v = lookup(text, root, "tie_word_embeddings");
	if (!v)
		v = lookup(text, root, "tie_embedding");
	hp->tie_embeddings = cJSON_IsTrue(v);

	/* As written, for the consistency checks (QA2107, QA2108). */
	v = lookup(text, root, "layer_types");
	if (cJSON_IsArray(v))
		hp->n_layer_types = cJSON_GetArraySize(v);
	v = lookup(text, root, "full_attention_interval");
	if (cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble < 1e9)
		hp->full_attention_interval_declared = (int64_t)v->valuedouble;

	fill_layer_kinds(inv, text, root);
}
