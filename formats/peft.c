/* SPDX-License-Identifier: MIT */
/*
 * A PEFT adapter folder's adapter_config.json (huggingface/peft
 * src/peft/config.py PeftConfigMixin.save_pretrained writes it; the LoRA
 * fields are tuners/lora/config.py LoraConfig): peft_type, r, lora_alpha,
 * target_modules (a list of module-name suffixes, or one regex string
 * matched with re.fullmatch: tuners/tuners_utils.py
 * check_target_module_exists), rank_pattern, base_model_name_or_path.
 * The folder becomes model.format "peft-lora", model.kind "adapter".
 */
#include "formats/format.h"

#include <string.h>

#include "core/json_file.h"

static const char *
str_of(const cJSON *v)
{
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *
dup(struct qa_inventory *inv, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = qa_arena_strdup(&inv->arena, s);
	if (!d)
		inv->out_of_memory = true;
	return d;
}

/* Entries kept from a list or dict (real adapters: a handful). */
#define MAX_ENTRIES 4096

void
qa_peft_parse(struct qa_inventory *inv, const char *file, const cJSON *root)
{
	struct qa_adapter *a = &inv->adapter;
	const cJSON *v, *e;
	uint32_t n;

	memset(a, 0, sizeof(*a));
	a->r = -1;
	a->alpha = -1;
	if (!cJSON_IsObject(root))
		return;
	a->file = file;
	a->peft_type = dup(inv, str_of(qa_json_child(root, "peft_type")));
	v = qa_json_child(root, "r");
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9)
		a->r = (int64_t)v->valuedouble;
	v = qa_json_child(root, "lora_alpha");
	if (cJSON_IsNumber(v) && v->valuedouble >= 0)
		a->alpha = v->valuedouble;
	a->base_model = dup(inv, str_of(qa_json_child(root,
					"base_model_name_or_path")));
	a->task_type = dup(inv, str_of(qa_json_child(root, "task_type")));
	a->use_dora = cJSON_IsTrue(qa_json_child(root, "use_dora"));
	a->use_rslora = cJSON_IsTrue(qa_json_child(root, "use_rslora"));
	v = qa_json_child(root, "target_modules");
	if (cJSON_IsString(v)) {
		a->target_regex = dup(inv, v->valuestring);
	} else if (cJSON_IsArray(v)) {
		n = 0;
		for (e = v->child; e && n < MAX_ENTRIES; e = e->next)
			n += cJSON_IsString(e);
		a->targets = n ? qa_arena_alloc(&inv->arena,
						n * sizeof(*a->targets)) : NULL;
		if (n && !a->targets) {
			inv->out_of_memory = true;
			n = 0;
		}
		for (e = v->child; e && a->n_targets < n; e = e->next)
			if (cJSON_IsString(e))
				a->targets[a->n_targets++] =
					dup(inv, e->valuestring);
	}
	v = qa_json_child(root, "rank_pattern");
	if (cJSON_IsObject(v)) {
		n = 0;
		for (e = v->child; e && n < MAX_ENTRIES; e = e->next)
			n += cJSON_IsNumber(e) && e->string != NULL;
		if (n) {
			a->rank_keys = qa_arena_alloc(&inv->arena,
						      n * sizeof(*a->rank_keys));
			a->rank_values = qa_arena_alloc(&inv->arena,
							n * sizeof(*a->rank_values));
			if (!a->rank_keys || !a->rank_values) {
				inv->out_of_memory = true;
				n = 0;
			}
		}
		for (e = v->child; e && a->n_rank < n; e = e->next)
			if (cJSON_IsNumber(e) && e->string) {
				a->rank_keys[a->n_rank] = dup(inv, e->string);
				a->rank_values[a->n_rank++] =
					(int64_t)e->valuedouble;
			}
	}
	inv->format = QA_FORMAT_PEFT_LORA;
	inv->model_kind = QA_MKIND_ADAPTER;
}
