/* SPDX-License-Identifier: MIT */
/*
 * The side files of a Hugging Face checkpoint folder: config.json, the
 * quantization side files, generation_config.json and the tokenizer
 * files. Each is added to the inventory's file list; each JSON file is
 * read and parsed once, here, as Python's json module reads it
 * (core/json_file.h), and what the rest of quantaudit needs from it is
 * kept as facts on the inventory: the hyperparameters (hf_config.c), the
 * quantization claim (quant_config.c), the chat templates and the added
 * tokens. Nothing after the loaders opens these files again.
 */
#include "formats/format.h"
#include "core/json_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* config.json and tokenizer_config.json are kilobytes; a tokenizer.json
 * is a few MB. Larger side files are not read. */
#define JSON_MAX_BYTES QA_JSON_SIDE_MAX
/* The primary chat template is kept up to 1 MiB (the longest real ones
 * are ~20 KB); chat_template.jinja files larger than that are not read. */
#define TEMPLATE_MAX ((size_t)1 << 20)
/* Added tokens kept from tokenizer_config.json (real ones: hundreds). */
#define MAX_ADDED_TOKENS 100000

static const struct tok_file {
	const char *name;
	const char *format;
} tok_files[] = {
	{ "tokenizer.json", "json" },
	{ "tokenizer.model", "sentencepiece" },
	{ "tokenizer_config.json", "json" },
	{ "special_tokens_map.json", "json" },
	{ "vocab.json", "json" },
	{ "merges.txt", "text" },
	{ "chat_template.jinja", "text" },
};

static char *
join_path(struct qa_inventory *inv, const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p = qa_arena_printf(&inv->arena, "%s%s%s", dir,
				  n == 0 || dir[n - 1] == '/' ? "" : "/", name);

	if (!p)
		inv->out_of_memory = true;
	return p;
}

/* Adds dir/name as a file of the inventory; NULL when out of memory. */
static struct qa_file *
add_file(struct qa_inventory *inv, const char *dir, const struct qa_dirent *e,
	 enum qa_file_role role, const char *format)
{
	char *path = join_path(inv, dir, e->name);
	struct qa_file *f;

	if (!path)
		return NULL;
	f = qa_inv_add_file(inv, path);
	if (!f)
		return NULL;
	f->role = role;
	f->format = format;
	f->bytes = e->size;
	return f;
}

/* Reads a side file whole (at most cap bytes) into a malloc'd,
 * NUL-terminated buffer; NULL when it is too large (QA1901) or
 * unreadable. */
static char *
read_text(struct qa_inventory *inv, const struct qa_file *f, uint64_t cap,
	  size_t *len)
{
	struct qa_source src;
	char *text;

	if (f->bytes > cap) {
		qa_inv_finding(inv, QA1901, f->path, -1, NULL,
			       "%s is %llu bytes, more than the %llu "
			       "quantaudit reads", f->name,
			       (unsigned long long)f->bytes,
			       (unsigned long long)cap);
		return NULL;
	}
	if (qa_inv_open(inv, f->path, &src) != QA_OK)
		return NULL;
	text = malloc((size_t)src.size + 1);
	if (!text) {
		inv->out_of_memory = true;
		qa_source_close(&src);
		return NULL;
	}
	if (qa_source_read(&src, 0, text, (size_t)src.size) != QA_OK) {
		qa_source_close(&src);
		free(text);
		return NULL;
	}
	text[src.size] = '\0';
	*len = (size_t)src.size;
	qa_source_close(&src);
	return text;
}

/*
 * Parses a side file as a JSON object. A file that is not valid JSON, or
 * not an object, gets QA1401 saying where and why, and NULL: the file
 * is ignored, and the report says so rather than guessing.
 */
static cJSON *
read_json(struct qa_inventory *inv, const struct qa_file *f)
{
	struct qa_json_error err;
	cJSON *root;
	size_t len = 0;
	char *text = read_text(inv, f, JSON_MAX_BYTES, &len);

	if (!text)
		return NULL;
	root = qa_json_parse_python(text, len, &err);
	free(text);
	if (!root) {
		qa_inv_finding(inv, QA1401, f->path, (int64_t)err.offset, NULL,
			       "%s, line %u, column %u: %s; the file is "
			       "ignored", f->name, err.line, err.column,
			       err.what);
		return NULL;
	}
	if (!cJSON_IsObject(root)) {
		qa_inv_finding(inv, QA1401, f->path, -1, NULL,
			       "%s is valid JSON but not an object, so it is "
			       "ignored", f->name);
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

static struct qa_template *
add_template(struct qa_inventory *inv, const char *label, const char *text,
	     uint64_t full_len, const char *file)
{
	struct qa_template *t = qa_inv_add_template(inv);

	if (!t)
		return NULL;
	t->label = qa_arena_strdup(&inv->arena, label);
	t->text = text ? qa_arena_strdup(&inv->arena, text) : NULL;
	t->len = text ? strlen(text) : 0;
	t->full_len = full_len;
	t->file = file;
	if (!t->label || (text && !t->text))
		inv->out_of_memory = true;
	return t;
}

/* The primary template: the first one marked primary, kept up to
 * TEMPLATE_MAX. */
static void
set_primary(struct qa_inventory *inv)
{
	uint32_t i;

	for (i = 0; i < inv->n_templates; i++) {
		const struct qa_template *t = &inv->templates[i];

		if (!t->primary || !t->text)
			continue;
		inv->chat_template = qa_arena_strndup(&inv->arena, t->text,
						      t->len > TEMPLATE_MAX ?
						      TEMPLATE_MAX :
						      (size_t)t->len);
		if (!inv->chat_template)
			inv->out_of_memory = true;
		return;
	}
}

/* tokenizer_config.json: chat_template (a string, or a list of {name,
 * template} where "default" is the one used, else the first) and
 * added_tokens_decoder. */
static void
tokenizer_facts(struct qa_inventory *inv, const struct qa_file *f,
		const cJSON *root, bool have_jinja)
{
	const cJSON *ct = qa_json_child(root, "chat_template");
	const cJSON *atd = qa_json_child(root, "added_tokens_decoder");
	const cJSON *e, *pick = NULL;
	char label[160];

	inv->tokenizer_config_file = f->path;
	if (cJSON_IsString(ct)) {
		struct qa_template *t = add_template(inv,
			"tokenizer_config.json chat_template", ct->valuestring,
			strlen(ct->valuestring), f->path);

		if (t)
			t->primary = !have_jinja;
	} else if (cJSON_IsArray(ct)) {
		for (e = ct->child; e; e = e->next) {
			const cJSON *nm = qa_json_child(e, "name");

			if (!cJSON_IsString(qa_json_child(e, "template")))
				continue;
			if (!pick || (cJSON_IsString(nm) &&
				      strcmp(nm->valuestring, "default") == 0))
				pick = e;
		}
		for (e = ct->child; e; e = e->next) {
			const cJSON *nm = qa_json_child(e, "name");
			const cJSON *tp = qa_json_child(e, "template");
			struct qa_template *t;

			if (!cJSON_IsString(tp))
				continue;
			snprintf(label, sizeof(label),
				 "tokenizer_config.json chat_template '%.64s'",
				 cJSON_IsString(nm) ? nm->valuestring : "?");
			t = add_template(inv, label, tp->valuestring,
					 strlen(tp->valuestring), f->path);
			if (t)
				t->primary = !have_jinja && e == pick;
		}
	}
	if (!cJSON_IsObject(atd))
		return;
	for (e = atd->child; e; e = e->next)
		inv->n_added_tokens++;
	if (inv->n_added_tokens > MAX_ADDED_TOKENS)
		inv->n_added_tokens = MAX_ADDED_TOKENS;
	inv->added_tokens = qa_arena_array(&inv->arena,
					   inv->n_added_tokens ?
					   inv->n_added_tokens : 1,
					   sizeof(*inv->added_tokens));
	if (!inv->added_tokens) {
		inv->out_of_memory = true;
		inv->n_added_tokens = 0;
		return;
	}
	inv->n_added_tokens = 0;
	for (e = atd->child; e && inv->n_added_tokens < MAX_ADDED_TOKENS;
	     e = e->next) {
		const cJSON *c = qa_json_child(e, "content");
		struct qa_added_token *t;
		char *end;
		long long id;

		if (!e->string)
			continue;
		id = strtoll(e->string, &end, 10);
		if (*end || end == e->string)
			continue;
		t = &inv->added_tokens[inv->n_added_tokens++];
		t->id = id;
		t->content = cJSON_IsString(c) ?
			     qa_arena_strdup(&inv->arena, c->valuestring) :
			     NULL;
	}
}

static bool
is_quant_side(const char *name)
{
	size_t i;

	for (i = 0; qa_quant_side_files[i]; i++)
		if (strcmp(name, qa_quant_side_files[i]) == 0)
			return true;
	return false;
}

int
qa_hf_load_side_files(struct qa_inventory *inv, const char *dir,
		      const struct qa_dirent *ents, size_t n)
{
	struct qa_side_doc docs[8] = { { 0 } };
	cJSON *owned[8] = { 0 };
	size_t n_docs = 0, i, k;
	cJSON *config = NULL, *tokcfg = NULL;
	const struct qa_file *config_f = NULL, *tokcfg_f = NULL;
	bool have_jinja = false;
	int rc = QA_OK;

	for (i = 0; i < n; i++) {
		const struct qa_dirent *e = &ents[i];
		struct qa_file *f;

		if (e->kind != QA_NODE_FILE)
			continue;
		if (strcmp(e->name, "config.json") == 0) {
			f = add_file(inv, dir, e, QA_FILE_CONFIG, "json");
			if (!f)
				goto nomem;
			config_f = f;
			config = read_json(inv, f);
		} else if (strcmp(e->name, "generation_config.json") == 0) {
			if (!add_file(inv, dir, e, QA_FILE_GENERATION_CONFIG,
				      "json"))
				goto nomem;
		} else if (is_quant_side(e->name)) {
			f = add_file(inv, dir, e, QA_FILE_QUANT_CONFIG, "json");
			if (!f)
				goto nomem;
			if (n_docs < sizeof(docs) / sizeof(docs[0])) {
				owned[n_docs] = read_json(inv, f);
				docs[n_docs].name = f->name;
				docs[n_docs].path = f->path;
				docs[n_docs].root = owned[n_docs];
				n_docs++;
			}
		} else {
			for (k = 0; k < sizeof(tok_files) / sizeof(tok_files[0]);
			     k++)
				if (strcmp(e->name, tok_files[k].name) == 0)
					break;
			if (k == sizeof(tok_files) / sizeof(tok_files[0]))
				continue;
			f = add_file(inv, dir, e, QA_FILE_TOKENIZER,
				     tok_files[k].format);
			if (!f)
				goto nomem;
			if (strcmp(e->name, "tokenizer_config.json") == 0) {
				tokcfg_f = f;
				tokcfg = read_json(inv, f);
			} else if (strcmp(e->name, "chat_template.jinja") == 0) {
				/* transformers 5: the .jinja file wins over
				 * tokenizer_config.json's chat_template. */
				size_t len = 0;
				char *text = read_text(inv, f, TEMPLATE_MAX,
						       &len);
				struct qa_template *t =
					add_template(inv, "chat_template.jinja",
						     text, f->bytes, f->path);

				if (t)
					t->primary = true;
				have_jinja = true;
				free(text);
			}
		}
	}
	if (config)
		qa_hf_fill_hparams(inv, config_f->path, config);
	qa_quant_config_parse(inv, config, config_f ? config_f->path : NULL,
			      docs, n_docs);
	if (tokcfg)
		tokenizer_facts(inv, tokcfg_f, tokcfg, have_jinja);
	set_primary(inv);
	goto out;
nomem:
	rc = QA_E_NOMEM;
	inv->out_of_memory = true;
out:
	for (i = 0; i < n_docs; i++)
		cJSON_Delete(owned[i]);
	cJSON_Delete(config);
	cJSON_Delete(tokcfg);
	return rc;
}
