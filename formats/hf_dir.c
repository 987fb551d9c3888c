/* SPDX-License-Identifier: MIT */
/*
 * Hugging Face model folder: config.json (hyperparameters, via
 * formats/hf_config.c), the quantization side files, generation and
 * tokenizer files, the chat template, and the weights: the safetensors
 * set (index, shards and extra shards, formats/st_set.c) or, in a GGUF
 * folder, the model GGUF with any mmproj projector beside it.
 *
 * Where the quantization config lives follows vLLM's precedence
 * (quant-formats.md §1.2): config.json's own quantization_config (or
 * text_config's, or compression_config) first, then the method-specific
 * side file. Hidden files and subfolders are ignored; names are processed
 * in sorted order so the file list is deterministic.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/format.h"
#include "core/json_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

/* config.json and tokenizer_config.json are kilobytes; a tokenizer.json
 * is a few MB. Larger side files are not read. */
#define JSON_MAX_BYTES ((uint64_t)16 << 20)
/* Chat templates are kept up to 1 MiB (the longest real ones are ~20 KB). */
#define TEMPLATE_MAX ((size_t)1 << 20)

/* Method-specific quantization side files, in vLLM's lookup order. */
static const char *const quant_files[] = {
	"quantize_config.json",		/* GPTQ (AWQ legacy) */
	"quant_config.json",		/* AWQ, GPTQModel compat */
	"quantization_config.json",	/* AutoRound */
	"hf_quant_config.json",		/* ModelOpt */
};

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

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the regular, non-hidden files of dir (malloc'd). */
static int
list_files(const char *dir, char ***out, size_t *n_out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*n_out = 0;
	if (!d)
		return QA_E_IO;
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			char **nv = realloc(v, ncap * sizeof(*nv));

			if (!nv)
				goto nomem;
			v = nv;
			cap = ncap;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto nomem;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	*n_out = n;
	return QA_OK;
nomem:
	closedir(d);
	while (n > 0)
		free(v[--n]);
	free(v);
	return QA_E_NOMEM;
}

static char *
join_path(struct qa_inventory *inv, const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p = qa_arena_printf(&inv->arena, "%s%s%s", dir,
				  n && dir[n - 1] == '/' ? "" : "/", name);

	if (!p)
		inv->out_of_memory = true;
	return p;
}

/*
 * Adds dir/name as a file of the given role. When text is non-NULL the
 * file is also read (up to cap bytes; larger files get QA1901 and *text
 * stays NULL) into a malloc'd NUL-terminated buffer the caller frees.
 */
static int
add_side_file(struct qa_inventory *inv, const char *dir, const char *name,
	      enum qa_file_role role, const char *format, uint64_t cap,
	      char **text, size_t *len, const char **path_out)
{
	struct qa_source src;
	struct qa_file *f;
	char *path = join_path(inv, dir, name);
	int rc;

	if (text)
		*text = NULL;
	if (!path)
		return QA_E_NOMEM;
	if (qa_source_open(&src, path) != QA_OK)
		return QA_E_IO;
	f = qa_inv_add_file(inv, path);
	if (!f) {
		qa_source_close(&src);
		return QA_E_NOMEM;
	}
	f->role = role;
	f->format = format;
	f->bytes = src.size;
	if (path_out)
		*path_out = f->path;
	if (!text) {
		qa_source_close(&src);
		return QA_OK;
	}
	if (src.size > cap) {
		qa_inv_finding(inv, QA1901, f->path, -1, NULL,
			       "%s is %llu bytes, more than the %llu quantaudit reads",
			       name, (unsigned long long)src.size,
			       (unsigned long long)cap);
		qa_source_close(&src);
		return QA_OK;
	}
	*text = malloc((size_t)src.size + 1);
	if (!*text) {
		qa_source_close(&src);
		return QA_E_NOMEM;
	}
	rc = qa_source_read(&src, 0, *text, (size_t)src.size);
	qa_source_close(&src);
	if (rc != QA_OK) {
		free(*text);
		*text = NULL;
		return QA_E_IO;
	}
	(*text)[src.size] = '\0';
	*len = (size_t)src.size;
	return QA_OK;
}

/* Does config.json embed its quantization config (§1.2)? */
static bool
config_has_quant(const char *json, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(json, len);
	const cJSON *text;
	bool r;

	if (!root)
		return false;
	text = qa_json_child(root, "text_config");
	r = qa_json_child(root, "quantization_config") ||
	    qa_json_child(root, "compression_config") ||
	    qa_json_child(text, "quantization_config");
	cJSON_Delete(root);
	return r;
}

static void
set_template(struct qa_inventory *inv, const char *s)
{
	size_t n = strlen(s);

	inv->chat_template = qa_arena_strndup(&inv->arena, s,
					      n > TEMPLATE_MAX ? TEMPLATE_MAX :
					      n);
	if (!inv->chat_template)
		inv->out_of_memory = true;
}

/* chat_template: a string, or a list of {name, template} (the one named
 * "default", else the first). A chat_template.jinja file (read earlier,
 * it sorts first) wins, as in transformers 5. */
static void
read_tokenizer_config(struct qa_inventory *inv, const char *path,
		      const char *json, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(json, len);
	const cJSON *ct, *e, *pick = NULL;

	if (!root || !cJSON_IsObject(root)) {
		qa_inv_finding(inv, QA1401, path, -1, NULL,
			       "tokenizer_config.json is not a JSON object");
		cJSON_Delete(root);
		return;
	}
	ct = inv->chat_template ? NULL : qa_json_child(root, "chat_template");
	if (cJSON_IsString(ct)) {
		set_template(inv, ct->valuestring);
	} else if (cJSON_IsArray(ct)) {
		for (e = ct->child; e; e = e->next) {
			const cJSON *nm = qa_json_child(e, "name");
			const cJSON *tp = qa_json_child(e, "template");

			if (!cJSON_IsString(tp))
				continue;
			if (!pick || (cJSON_IsString(nm) &&
				      strcmp(nm->valuestring, "default") == 0))
				pick = tp;
		}
		if (pick)
			set_template(inv, pick->valuestring);
	}
	cJSON_Delete(root);
}

static bool
is_mmproj(const char *name)
{
	return strncasecmp(name, "mmproj", 6) == 0 ||
	       strstr(name, "mmproj") != NULL ||
	       strstr(name, "MMPROJ") != NULL;
}

static int
load_side_files(struct qa_inventory *inv, const char *dir, char **names,
		size_t n, bool *have_config, const char **embedded_qc)
{
	const char *side_qc = NULL;
	size_t i, k;
	int rc = QA_OK;

	for (i = 0; i < n && rc == QA_OK; i++) {
		const char *nm = names[i];
		const char *path = NULL;
		char *text = NULL;
		size_t len = 0;

		if (strcmp(nm, "config.json") == 0) {
			*have_config = true;
			rc = add_side_file(inv, dir, nm, QA_FILE_CONFIG, "json",
					   JSON_MAX_BYTES, &text, &len, &path);
			if (rc == QA_OK && text) {
				rc = qa_hf_fill_hparams(inv, path, text, len);
				if (config_has_quant(text, len))
					*embedded_qc = path;
			}
			free(text);
			continue;
		}
		if (strcmp(nm, "generation_config.json") == 0) {
			rc = add_side_file(inv, dir, nm,
					   QA_FILE_GENERATION_CONFIG, "json", 0,
					   NULL, NULL, NULL);
			continue;
		}
		for (k = 0; k < sizeof(quant_files) / sizeof(quant_files[0]);
		     k++)
			if (strcmp(nm, quant_files[k]) == 0)
				break;
		if (k < sizeof(quant_files) / sizeof(quant_files[0])) {
			rc = add_side_file(inv, dir, nm, QA_FILE_QUANT_CONFIG,
					   "json", 0, NULL, NULL, &path);
			if (rc == QA_OK && !side_qc)
				side_qc = path;
			continue;
		}
		for (k = 0; k < sizeof(tok_files) / sizeof(tok_files[0]); k++)
			if (strcmp(nm, tok_files[k].name) == 0)
				break;
		if (k == sizeof(tok_files) / sizeof(tok_files[0]))
			continue;
		if (strcmp(nm, "tokenizer_config.json") == 0) {
			rc = add_side_file(inv, dir, nm, QA_FILE_TOKENIZER,
					   "json", JSON_MAX_BYTES, &text, &len,
					   &path);
			if (rc == QA_OK && text)
				read_tokenizer_config(inv, path, text, len);
		} else if (strcmp(nm, "chat_template.jinja") == 0) {
			rc = add_side_file(inv, dir, nm, QA_FILE_TOKENIZER,
					   "text", TEMPLATE_MAX, &text, &len,
					   NULL);
			if (rc == QA_OK && text)
				set_template(inv, text);
		} else {
			rc = add_side_file(inv, dir, nm, QA_FILE_TOKENIZER,
					   tok_files[k].format, 0, NULL, NULL,
					   NULL);
		}
		free(text);
	}
	/* Precedence (§1.2): config.json's embedded config, then side file. */
	inv->quant_config_file = *embedded_qc ? *embedded_qc : side_qc;
	return rc;
}

static int
load_gguf_weights(struct qa_inventory *inv, const char *dir, char **names,
		  size_t n, bool *found)
{
	const char *model = NULL;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (!ends_with(names[i], ".gguf"))
			continue;
		/* A projector alone is not a model: no weights (QA1403). */
		if (is_mmproj(names[i])) {
			rc = add_side_file(inv, dir, names[i], QA_FILE_MMPROJ,
					   "gguf", 0, NULL, NULL, NULL);
			if (rc != QA_OK)
				return rc;
		} else if (!model) {
			model = names[i];
			*found = true;
		}
	}
	if (!model)
		return QA_OK;
	{
		char *path = join_path(inv, dir, model);

		if (!path)
			return QA_E_NOMEM;
		rc = qa_gguf_load_path(inv, path);
	}
	inv->kind = QA_KIND_HF_DIR;
	return rc;
}

int
qa_hf_load_dir(struct qa_inventory *inv, const char *dir)
{
	char **names = NULL;
	size_t n = 0, i;
	const char *index = NULL, *embedded_qc = NULL;
	bool have_config = false, have_st = false, have_gguf = false;
	int rc;

	inv->kind = QA_KIND_HF_DIR;
	rc = list_files(dir, &names, &n);
	if (rc != QA_OK)
		return rc;
	rc = load_side_files(inv, dir, names, n, &have_config, &embedded_qc);
	if (rc != QA_OK)
		goto out;
	qa_quant_config_load(inv, dir);	/* the claim: formats/quant_config.c */
	if (!have_config)
		qa_inv_finding(inv, QA1402, dir, -1, NULL,
			       "no config.json in %s", dir);
	for (i = 0; i < n; i++) {
		if (ends_with(names[i], ".safetensors"))
			have_st = true;
		/* model.safetensors.index.json, else the first index. */
		if (ends_with(names[i], ".safetensors.index.json") &&
		    (!index || strcmp(names[i],
				      "model.safetensors.index.json") == 0)) {
			index = names[i];
			have_st = true;
		}
	}
	if (have_st)
		rc = qa_st_load_set_in_dir(inv, dir, index);
	else
		rc = load_gguf_weights(inv, dir, names, n, &have_gguf);
	inv->kind = QA_KIND_HF_DIR;
	if (rc == QA_OK && !have_st && !have_gguf)
		qa_inv_finding(inv, QA1403, dir, -1, NULL,
			       "no .safetensors or .gguf files in %s", dir);
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	return rc;
}
