/* SPDX-License-Identifier: MIT */
/*
 * Speculative-decoding draft heads in Hugging Face folders, from their
 * config.json:
 *   EAGLE-3 (SafeAILab/EAGLE; vLLM vllm/model_executor/models/
 *   llama_eagle3.py Eagle3LlamaForCausalLM): architectures name an
 *   "Eagle3" class, draft_vocab_size is the lm_head's row count (the
 *   draft predicts a reduced vocabulary; d2t [draft_vocab] maps each
 *   draft id to its target id, t2d [vocab] marks the target ids kept),
 *   fc [hidden, 3 * target_hidden] fuses three hidden states of the
 *   target, whose layers eagle_config.eagle_aux_hidden_state_layer_ids
 *   names (vLLM llama.py: layers 2, L/2 and L-3 of the target when
 *   absent).
 *   The speculators layout (vllm-project/speculators, the format of
 *   the RedHatAI *.eagle3 heads; its Eagle3SpeculatorConfig):
 *   speculators_model_type "eagle3", the decoder layer's config nested
 *   in transformer_layer_config (read as the model's hyperparameters by
 *   hf_config.c), eagle_aux_hidden_state_layer_ids and
 *   target_hidden_size at the top level, and
 *   speculators_config.proposal_methods[0].speculative_tokens, the
 *   tokens per step it was trained for (vLLM's num_speculative_tokens
 *   for it).
 *   Medusa (FasterDecoding/Medusa medusa/model/medusa_model.py):
 *   medusa_num_heads extra heads on the target's last hidden state.
 * The input becomes model.kind "draft" (model.format "eagle3" for
 * EAGLE-3).
 */
#include "formats/format.h"

#include <strings.h>
#include <string.h>

#include "core/json_file.h"

static int64_t
int_or(const cJSON *v, int64_t dflt)
{
	return cJSON_IsNumber(v) && v->valuedouble >= 0 &&
	       v->valuedouble < 9e15 ? (int64_t)v->valuedouble : dflt;
}

static bool
names_eagle3(const cJSON *archs)
{
	const cJSON *e;

	if (!cJSON_IsArray(archs))
		return false;
	for (e = archs->child; e; e = e->next) {
		const char *s = cJSON_IsString(e) ? e->valuestring : "";
		size_t i;

		for (i = 0; s[i]; i++)
			if (strncasecmp(s + i, "eagle3", 6) == 0)
				return true;
	}
	return false;
}

/* speculators_config: the first proposal method's speculative_tokens,
 * the one vLLM reads (vllm 0.34.0 transformers_utils/configs/
 * speculators/base.py l.119-131: "we only support one proposal
 * method"). */
static int64_t
speculative_tokens(const cJSON *config)
{
	const cJSON *m = qa_json_child(qa_json_child(config,
						     "speculators_config"),
				       "proposal_methods");

	if (!cJSON_IsArray(m) || !m->child)
		return -1;
	return int_or(qa_json_child(m->child, "speculative_tokens"), -1);
}

void
qa_draft_head_detect(struct qa_inventory *inv, const char *file,
		     const cJSON *config)
{
	struct qa_draft_head *d = &inv->draft_head;
	const cJSON *ids, *e, *spec_type;

	memset(d, 0, sizeof(*d));
	d->draft_vocab = d->target_hidden = d->medusa_heads = -1;
	d->spec_tokens = -1;
	if (!cJSON_IsObject(config))
		return;
	spec_type = qa_json_child(config, "speculators_model_type");
	if (names_eagle3(qa_json_child(config, "architectures")) ||
	    qa_json_child(config, "draft_vocab_size") ||
	    (cJSON_IsString(spec_type) &&
	     strcmp(spec_type->valuestring, "eagle3") == 0)) {
		d->kind = "eagle3";
		d->file = file;
		d->draft_vocab = int_or(qa_json_child(config,
						      "draft_vocab_size"), -1);
		d->target_hidden = int_or(qa_json_child(config,
							"target_hidden_size"),
					  -1);
		ids = qa_json_child(qa_json_child(config, "eagle_config"),
				    "eagle_aux_hidden_state_layer_ids");
		if (!cJSON_IsArray(ids))
			ids = qa_json_child(config,
					    "eagle_aux_hidden_state_layer_ids");
		d->speculators = cJSON_IsString(spec_type);
		d->spec_tokens = speculative_tokens(config);
		for (e = cJSON_IsArray(ids) ? ids->child : NULL;
		     e && d->n_aux < 8; e = e->next)
			d->aux_layers[d->n_aux++] = int_or(e, -1);
		inv->format = QA_FORMAT_EAGLE3;
		inv->model_kind = QA_MKIND_DRAFT;
	} else if (qa_json_child(config, "medusa_num_heads")) {
		d->kind = "medusa";
		d->file = file;
		d->medusa_heads = int_or(qa_json_child(config,
						       "medusa_num_heads"), -1);
		inv->model_kind = QA_MKIND_DRAFT;
	}
}
