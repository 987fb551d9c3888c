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
 *
 * JSON objects get the members Python's json.loads gives them: a key given
 * twice keeps its last value (core/json_file.h
 * qa_json_collapse_duplicates), and the duplicate is a finding (QA1404,
 * QA6005 for chat templates, whose every copy is still scanned).
 *
 * Chat templates are read as transformers reads them (tokenization_utils_
 * base.py _from_pretrained, processing_utils.py
 * get_processor_dict): chat_template.jinja is the "default" template and
 * every additional_chat_templates/<name>.jinja a named one, and together
 * they replace tokenizer_config.json's chat_template (a string, a list of
 * {"name", "template"}, or a {name: template} object); a processor reads
 * chat_template.json ({"chat_template": ...}) first, then the .jinja
 * files, then processor_config.json's chat_template. Every one of them is
 * kept and scanned, whichever an engine picks; each is read whole up to
 * QA_TEMPLATE_SCAN_MAX, embedded NULs included.
 */
#include "formats/format.h"
#include "core/json_file.h"
#include "core/secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* config.json and tokenizer_config.json are kilobytes; a tokenizer.json
 * is a few MB. Larger side files are not read. */
#define JSON_MAX_BYTES QA_JSON_SIDE_MAX
/* The primary chat template is also kept as inv->chat_template, up to
 * 1 MiB (the longest real ones are ~20 KB). */
#define TEMPLATE_MAX ((size_t)1 << 20)
/* Template files (.jinja) are read up to the scan bound; the rest of a
 * longer one is reported by the template check (QA6004). */
#define TEMPLATE_READ_MAX QA_TEMPLATE_SCAN_MAX
/* Files of additional_chat_templates/ read (real folders: a handful). */
#define MAX_EXTRA_TEMPLATES 256
/* Duplicated JSON keys reported one by one per file; the rest are
 * counted in one more finding. */
#define MAX_DUP_FINDINGS 16
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
	{ "chat_template.json", "json" },
	{ "processor_config.json", "json" },
};

/* Adds dir/name as a file of the inventory; NULL when out of memory. */
static struct qa_file *
add_file(struct qa_inventory *inv, const char *dir, const struct qa_dirent *e,
	 enum qa_file_role role, const char *format)
{
	char *path = qa_inv_join(inv, dir, e->name);
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

/* Opens a side file; one listed as a file but something else when
 * opened (a FIFO put in its place) is QA1410, never waited on; one that
 * cannot be opened (EIO, a server's HTTP 500) is QA1412, never passed
 * over in silence: the checks that read it are missing from the report. */
static int
open_side(struct qa_inventory *inv, const struct qa_file *f,
	  struct qa_source *src)
{
	int rc;

	qa_read_failure_reset();
	rc = qa_inv_open(inv, f->path, src);
	if (rc == QA_OK || rc == QA_E_NOMEM)
		return rc;
	if (src->not_regular && !qa_inv_not_read(inv, f->path,
						 src->not_regular))
		qa_inv_finding(inv, QA1410, f->path, -1, NULL, "%s is %s, not "
			       "a regular file; it was not read", f->name,
			       src->not_regular);
	else if (!src->not_regular)
		qa_inv_read_failed(inv, f->path, src);
	return rc;
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
	if (open_side(inv, f, &src) != QA_OK)
		return NULL;
	text = malloc((size_t)src.size + 1);
	if (!text) {
		inv->out_of_memory = true;
		qa_source_close(&src);
		return NULL;
	}
	if (qa_source_read(&src, 0, text, (size_t)src.size) != QA_OK) {
		qa_inv_read_failed(inv, f->path, &src);
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
 * Reads the first min(size, cap) bytes of a template file into the arena
 * (NUL-terminated; the bytes may hold NULs, *len counts them all) and
 * sets *full to the file's size. NULL when unreadable.
 */
static char *
read_template_file(struct qa_inventory *inv, const struct qa_file *f,
		   uint64_t cap, uint64_t *len, uint64_t *full)
{
	struct qa_source src;
	uint64_t n;
	char *text;

	*len = 0;
	*full = f->bytes;
	if (open_side(inv, f, &src) != QA_OK)
		return NULL;
	*full = src.size;
	n = src.size < cap ? src.size : cap;
	text = qa_arena_alloc(&inv->arena, (size_t)n + 1);
	if (!text) {
		inv->out_of_memory = true;
		qa_source_close(&src);
		return NULL;
	}
	if (n && qa_source_read(&src, 0, text, (size_t)n) != QA_OK) {
		qa_inv_read_failed(inv, f->path, &src);
		qa_source_close(&src);
		return NULL;
	}
	text[n] = '\0';
	*len = n;
	qa_source_close(&src);
	return text;
}

/*
 * Parses a side file as a JSON object. A file that is not valid JSON, or
 * not an object, gets QA1401 saying where and why, and NULL: the file
 * is ignored, and the report says so rather than guessing. Duplicate
 * keys are still all there (collapse_dups).
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
	/* tokens a training script left in a config: named, never shown */
	qa_secrets_in_text(inv, f->path, text, len);
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

struct dup_ctx {
	struct qa_inventory *inv;
	const struct qa_file *f;
	unsigned reported, more;
};

static bool
is_template_path(const char *path)
{
	size_t n = strlen("chat_template");

	return strncmp(path, "chat_template", n) == 0 &&
	       (path[n] == '\0' || path[n] == '.' || path[n] == '[');
}

static void
on_dup(void *ctx, const char *path, const char *key, size_t copies)
{
	struct dup_ctx *d = ctx;

	(void)key;
	if (is_template_path(path)) {
		qa_inv_finding(d->inv, QA6005, d->f->path, -1, NULL,
			       "%s: \"%s\" appears %zu times; Python's json "
			       "(transformers, vLLM) uses the last copy, "
			       "first-match readers another; every copy is "
			       "scanned", d->f->name, path, copies);
		return;
	}
	if (d->reported >= MAX_DUP_FINDINGS) {
		d->more++;
		return;
	}
	d->reported++;
	qa_inv_finding(d->inv, QA1404, d->f->path, -1, NULL,
		       "%s: key \"%s\" appears %zu times; the last value is "
		       "used, as Python's json uses it", d->f->name, path,
		       copies);
}

/* Collapses duplicate keys the way Python does and reports them. */
static void
collapse_dups(struct qa_inventory *inv, const struct qa_file *f, cJSON *root)
{
	struct dup_ctx d = { inv, f, 0, 0 };

	if (!root)
		return;
	if (qa_json_collapse_duplicates(root, on_dup, &d) < 0)
		inv->out_of_memory = true;
	if (d.more)
		qa_inv_finding(inv, QA1404, f->path, -1, NULL,
			       "%s: %u more keys appear more than once", f->name,
			       d.more);
}

static struct qa_template *
add_template(struct qa_inventory *inv, const char *label, const char *text,
	     uint64_t len, uint64_t full_len, const char *file)
{
	struct qa_template *t = qa_inv_add_template(inv);

	if (!t)
		return NULL;
	t->label = qa_arena_strdup(&inv->arena, label);
	t->text = text;
	t->len = text ? len : 0;
	t->full_len = full_len;
	t->file = file;
	t->offset = -1;
	if (!t->label)
		inv->out_of_memory = true;
	return t;
}

/* A template held in a JSON string (cJSON's copy ends at the string's
 * end: \u0000 was read as U+2400, core/json_file.h). */
static struct qa_template *
add_json_template(struct qa_inventory *inv, const char *label,
		  const cJSON *v, const char *file, bool shadowed)
{
	size_t n = strlen(v->valuestring);
	uint64_t keep = n < TEMPLATE_READ_MAX ? n : TEMPLATE_READ_MAX;
	char *text = qa_arena_strndup(&inv->arena, v->valuestring,
				      (size_t)keep);
	struct qa_template *t;

	if (!text) {
		inv->out_of_memory = true;
		return NULL;
	}
	t = add_template(inv, label, text, keep, n, file);
	if (t)
		t->shadowed = shadowed;
	return t;
}

/* Indices into inv->templates of the candidates for the primary one
 * (-1: none), in transformers' order of precedence. */
struct primary {
	long jinja;		/* chat_template.jinja */
	long extra_default;	/* additional_chat_templates/default.jinja */
	long tokcfg;		/* tokenizer_config.json: the string, or the
				 * entry named "default" */
	long ctjson;		/* chat_template.json */
	long proccfg;		/* processor_config.json */
	uint32_t n_extra;	/* additional_chat_templates/ files */
};

/* The last member of obj named key (Python keeps only that one). */
static const cJSON *
last_member(const cJSON *obj, const char *key)
{
	const cJSON *c, *last = NULL;

	for (c = obj ? obj->child : NULL; c; c = c->next)
		if (c->string && strcmp(c->string, key) == 0)
			last = c;
	return last;
}

struct keyed {
	const cJSON *item;
	size_t pos;
};

static int
cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = strcmp(a->item->string ? a->item->string : "",
		       b->item->string ? b->item->string : "");

	if (c)
		return c;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* last[i] = whether obj's i-th member is the last with its key (n
 * members); false when out of memory. O(n log n). */
static bool
mark_last(const cJSON *obj, size_t n, bool *last)
{
	struct keyed *v = malloc((n ? n : 1) * sizeof(*v));
	const cJSON *c;
	size_t i = 0;

	if (!v)
		return false;
	for (c = obj->child; c && i < n; c = c->next, i++) {
		v[i].item = c;
		v[i].pos = i;
	}
	qsort(v, i, sizeof(*v), cmp_keyed);
	for (size_t k = 0; k < i; k++)
		last[v[k].pos] = k + 1 == i ||
				 strcmp(v[k].item->string ? v[k].item->string :
					"", v[k + 1].item->string ?
					v[k + 1].item->string : "") != 0;
	free(v);
	return true;
}

/* Templates taken from one JSON file; the rest are counted (QA6004). */
#define MAX_JSON_TEMPLATES 1024

struct json_tpl {
	struct qa_inventory *inv;
	const struct qa_file *f;
	long *pick;
	unsigned taken, skipped;
};

static void
take(struct json_tpl *j, const char *name, const cJSON *v, bool shadowed,
     bool is_default)
{
	char label[200];
	struct qa_template *t;

	if (j->taken >= MAX_JSON_TEMPLATES) {
		j->skipped++;
		return;
	}
	j->taken++;
	if (name)
		snprintf(label, sizeof(label), "%s chat_template '%.64s'%s",
			 j->f->name, name, shadowed ? " (a duplicate key "
			 "Python ignores)" : "");
	else
		snprintf(label, sizeof(label), "%s chat_template%s",
			 j->f->name, shadowed ? " (a duplicate key Python "
			 "ignores)" : "");
	t = add_json_template(j->inv, label, v, j->f->path, shadowed);
	if (t && !shadowed && is_default)
		*j->pick = (long)j->inv->n_templates - 1;
}

/*
 * Every template of one chat_template value (a string, a list of {name,
 * template}, or an object of name: template), with duplicate keys not yet
 * collapsed so that every copy is kept; the Python-visible copies are the
 * last ones. *pick gets the index of the one transformers uses by default
 * (the string, or the last entry named "default").
 */
static void
templates_of(struct json_tpl *j, const cJSON *ct, bool shadowed)
{
	const cJSON *e, *c, *nm, *keep;
	size_t n = 0, i;
	bool *last;

	if (cJSON_IsString(ct)) {
		take(j, NULL, ct, shadowed, true);
		return;
	}
	if (cJSON_IsObject(ct)) {
		/* {name: template} */
		for (e = ct->child; e; e = e->next)
			n++;
		last = calloc(n ? n : 1, sizeof(*last));
		if (!last || !mark_last(ct, n, last)) {
			free(last);
			j->inv->out_of_memory = true;
			return;
		}
		for (e = ct->child, i = 0; e; e = e->next, i++)
			if (cJSON_IsString(e))
				take(j, e->string ? e->string : "?", e,
				     shadowed || !last[i],
				     e->string &&
				     strcmp(e->string, "default") == 0);
		free(last);
		return;
	}
	if (!cJSON_IsArray(ct))
		return;
	for (e = ct->child; e; e = e->next) {
		if (!cJSON_IsObject(e))
			continue;
		/* {"name": ..., "template": ...}: the last of each counts;
		 * transformers builds {name: template}, so a later entry of
		 * the same name replaces an earlier one */
		nm = last_member(e, "name");
		keep = last_member(e, "template");
		for (c = e->child; c; c = c->next) {
			if (!c->string || strcmp(c->string, "template") != 0 ||
			    !cJSON_IsString(c))
				continue;
			take(j, cJSON_IsString(nm) ? nm->valuestring : "?", c,
			     shadowed || c != keep,
			     cJSON_IsString(nm) &&
			     strcmp(nm->valuestring, "default") == 0);
		}
	}
}

/* Every chat_template member of root (all copies of a duplicated key). */
static void
root_templates(struct qa_inventory *inv, const struct qa_file *f,
	       const cJSON *root, long *pick)
{
	struct json_tpl j = { inv, f, pick, 0, 0 };
	const cJSON *c, *keep = last_member(root, "chat_template");

	for (c = root ? root->child : NULL; c; c = c->next)
		if (c->string && strcmp(c->string, "chat_template") == 0)
			templates_of(&j, c, c != keep);
	if (j.skipped)
		qa_inv_finding(inv, QA6004, f->path, -1, NULL,
			       "%s holds more than %d chat templates; %u more "
			       "are not scanned", f->name, MAX_JSON_TEMPLATES,
			       j.skipped);
}

/* tokenizer_config.json: added_tokens_decoder (duplicates collapsed). */
static void
added_tokens(struct qa_inventory *inv, const cJSON *root)
{
	const cJSON *atd = qa_json_child(root, "added_tokens_decoder");
	const cJSON *e;

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

/* A .jinja template file: chat_template.jinja or one of
 * additional_chat_templates/. Returns its index, or -1. */
static long
jinja_template(struct qa_inventory *inv, const struct qa_file *f,
	       const char *label)
{
	uint64_t len = 0, full = 0;
	char *text = read_template_file(inv, f, TEMPLATE_READ_MAX, &len,
					&full);

	if (!add_template(inv, label, text, len, full, f->path))
		return -1;
	return (long)inv->n_templates - 1;
}

/* additional_chat_templates/<name>.jinja, as transformers globs them
 * (every name ending .jinja; the template is called <name>). Hidden
 * files are not listed by qa_fs (core/source.h). */
static int
extra_templates(struct qa_inventory *inv, const char *dir,
		const struct qa_dirent *de, struct primary *pr)
{
	char *sub = qa_inv_join(inv, dir, de->name);
	struct qa_dirent *ents = NULL;
	size_t n = 0, i, k;
	int rc = QA_OK;

	if (!sub)
		return QA_E_NOMEM;
	if (qa_inv_list(inv, sub, &ents, &n) != QA_OK)
		return QA_OK;
	for (i = 0; i < n; i++) {
		const struct qa_dirent *e = &ents[i];
		size_t len = strlen(e->name);
		char label[200];
		struct qa_file *f;
		long idx;

		if (len <= 6 || strcmp(e->name + len - 6, ".jinja") != 0 ||
		    e->kind != QA_NODE_FILE)
			continue;
		if (pr->n_extra >= MAX_EXTRA_TEMPLATES) {
			for (k = i, len = 0; k < n; k++)
				len += ents[k].kind == QA_NODE_FILE;
			qa_inv_finding(inv, QA6004, sub, -1, NULL,
				       "additional_chat_templates holds more "
				       "than %d templates; %zu more files are "
				       "not read", MAX_EXTRA_TEMPLATES, len);
			break;
		}
		f = add_file(inv, sub, e, QA_FILE_TOKENIZER, "text");
		if (!f) {
			rc = QA_E_NOMEM;
			break;
		}
		snprintf(label, sizeof(label),
			 "additional_chat_templates/%.128s (template '%.*s')",
			 e->name, (int)(strlen(e->name) - 6), e->name);
		idx = jinja_template(inv, f, label);
		pr->n_extra++;
		if (idx >= 0 && strcmp(e->name, "default.jinja") == 0)
			pr->extra_default = idx;
	}
	qa_dirents_free(ents, n);
	return rc;
}

/* The template engines use by default, as transformers picks it: the
 * tokenizer's (the .jinja files replace tokenizer_config.json's
 * chat_template), else the processor's. Kept as inv->chat_template up
 * to TEMPLATE_MAX. */
static void
set_primary(struct qa_inventory *inv, const struct primary *pr)
{
	long pick;
	struct qa_template *t;

	if (pr->jinja >= 0)
		pick = pr->jinja;
	else if (pr->n_extra)
		pick = pr->extra_default;
	else
		pick = pr->tokcfg;
	if (pick < 0)
		pick = pr->ctjson >= 0 ? pr->ctjson : pr->proccfg;
	if (pick < 0 || (uint64_t)pick >= inv->n_templates)
		return;
	t = &inv->templates[pick];
	t->primary = true;
	if (!t->text)
		return;
	inv->chat_template = qa_arena_strndup(&inv->arena, t->text,
					      t->len > TEMPLATE_MAX ?
					      TEMPLATE_MAX : (size_t)t->len);
	if (!inv->chat_template)
		inv->out_of_memory = true;
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

/* Side JSON files that may hold chat templates: their templates are
 * taken (every copy of a duplicated key) before the duplicates are
 * collapsed. */
static void
template_json(struct qa_inventory *inv, const struct qa_file *f, long *pick)
{
	cJSON *root = read_json(inv, f);

	root_templates(inv, f, root, pick);
	collapse_dups(inv, f, root);
	cJSON_Delete(root);
}

/* auto_map (issue 32; used by hf_tree.c too, which walks the folder this
 * side-file loader reads, so it lives here): one auto_map record kept in inv->auto_map: cfg, key, value, each
 * NUL-terminated. */
static int
keep_ref(struct qa_inventory *inv, const char *cfg, const char *key,
	 const char *v)
{
	size_t a = strlen(cfg) + 1, b = strlen(key) + 1, c = strlen(v) + 1;
	size_t n = inv->auto_map_len;
	char *p = qa_arena_grow(&inv->arena, inv->auto_map, n, n + a + b + c,
				1);

	if (!p) {
		inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	memcpy(p + n, cfg, a);
	memcpy(p + n + a, key, b);
	memcpy(p + n + a + b, v, c);
	inv->auto_map = p;
	inv->auto_map_len = n + a + b + c;
	return QA_OK;
}

int
qa_hf_note_auto_map(struct qa_inventory *inv, const char *cfg,
		    const cJSON *root)
{
	const cJSON *am = qa_json_child(root, "auto_map"), *x, *pipes;
	int rc = QA_OK;

	if (!cJSON_IsObject(am))
		am = NULL;
	cJSON_ArrayForEach(x, am) {
		const cJSON *y, *list = cJSON_IsArray(x) ? x : NULL;

		if (cJSON_IsString(x) && x->valuestring[0])
			rc = keep_ref(inv, cfg, x->string, x->valuestring);
		/* AutoTokenizer: [slow, fast], either null */
		cJSON_ArrayForEach(y, list)
			if (rc == QA_OK && cJSON_IsString(y) &&
			    y->valuestring[0])
				rc = keep_ref(inv, cfg, x->string,
					      y->valuestring);
		if (rc != QA_OK)
			return rc;
	}
	/* custom pipelines: {"task": {"impl": "module.Class"}}
	 * (transformers pipelines/__init__.py, pipeline()) */
	pipes = qa_json_child(root, "custom_pipelines");
	if (!cJSON_IsObject(pipes))
		pipes = NULL;
	cJSON_ArrayForEach(x, pipes) {
		const cJSON *impl = qa_json_child(x, "impl");

		if (rc == QA_OK && cJSON_IsString(impl) && impl->valuestring[0])
			rc = keep_ref(inv, cfg, "custom_pipelines",
				      impl->valuestring);
	}
	return rc;
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
	struct primary pr = { -1, -1, -1, -1, -1, 0 };
	int rc = QA_OK;

	for (i = 0; i < n; i++) {
		const struct qa_dirent *e = &ents[i];
		struct qa_file *f;

		if (e->kind == QA_NODE_DIR &&
		    strcmp(e->name, "additional_chat_templates") == 0) {
			if (extra_templates(inv, dir, e, &pr) != QA_OK)
				goto nomem;
			continue;
		}
		if (e->kind != QA_NODE_FILE)
			continue;
		if (strcmp(e->name, "config.json") == 0) {
			f = add_file(inv, dir, e, QA_FILE_CONFIG, "json");
			if (!f)
				goto nomem;
			config_f = f;
			config = read_json(inv, f);
			collapse_dups(inv, f, config);
		} else if (strcmp(e->name, "adapter_config.json") == 0) {
			/* PEFT adapter folder (formats/peft.c) */
			cJSON *root;

			f = add_file(inv, dir, e, QA_FILE_CONFIG, "json");
			if (!f)
				goto nomem;
			root = read_json(inv, f);
			collapse_dups(inv, f, root);
			qa_peft_parse(inv, f->path, root);
			cJSON_Delete(root);
		} else if (strcmp(e->name, "genai_config.json") == 0) {
			/* ONNX Runtime GenAI: the decoder graph it names
			 * must be in the folder (microsoft/onnxruntime-genai
			 * src/config.cpp model.decoder.filename) */
			cJSON *root;
			const cJSON *fn;
			size_t j;

			f = add_file(inv, dir, e, QA_FILE_CONFIG, "json");
			if (!f)
				goto nomem;
			root = read_json(inv, f);
			fn = qa_json_child(qa_json_child(qa_json_child(root,
				"model"), "decoder"), "filename");
			if (cJSON_IsString(fn)) {
				for (j = 0; j < n; j++)
					if (ents[j].kind == QA_NODE_FILE &&
					    strcmp(ents[j].name,
						   fn->valuestring) == 0)
						break;
				if (j == n)
					qa_inv_finding(inv, QA1414, f->path, -1,
						       NULL, "genai_config.json "
						       "names the decoder graph "
						       "'%s', which is not in "
						       "the folder",
						       fn->valuestring);
			}
			cJSON_Delete(root);
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
				collapse_dups(inv, f, owned[n_docs]);
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
				root_templates(inv, f, tokcfg, &pr.tokcfg);
				collapse_dups(inv, f, tokcfg);
			} else if (strcmp(e->name, "chat_template.jinja") == 0) {
				pr.jinja = jinja_template(inv, f,
							  "chat_template.jinja");
			} else if (strcmp(e->name, "chat_template.json") == 0) {
				template_json(inv, f, &pr.ctjson);
			} else if (strcmp(e->name,
					  "processor_config.json") == 0) {
				template_json(inv, f, &pr.proccfg);
			}
		}
	}
	if (config) {
		qa_hf_fill_hparams(inv, config_f->path, config);
		qa_draft_head_detect(inv, config_f->path, config);
	}
	if ((config && qa_hf_note_auto_map(inv, config_f->path, config) !=
	     QA_OK) ||
	    (tokcfg && qa_hf_note_auto_map(inv, tokcfg_f->path, tokcfg) !=
	     QA_OK))
		goto nomem;
	qa_quant_config_parse(inv, config, config_f ? config_f->path : NULL,
			      docs, n_docs);
	if (tokcfg) {
		inv->tokenizer_config_file = tokcfg_f->path;
		added_tokens(inv, tokcfg);
	}
	set_primary(inv, &pr);
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
