/* SPDX-License-Identifier: MIT */
/*
 * Every file of a Hugging Face folder accounted for (formats/hf_dir.c
 * calls this after the model itself is loaded): the folder is walked
 * recursively (bounded depth and count, through the inventory's file
 * system, so links out of the folder are reported as everywhere else)
 * and each regular file is
 *
 *  - audited by its format: the model's weights and side files, already
 *    in the inventory; a pickle in any subfolder (a sentence-transformers
 *    2_Dense/pytorch_model.bin, a diffusers unet/diffusion_pytorch_model
 *    .bin) scanned by the same walker as one at the top (QA16xx);
 *  - or added to the inventory as a side file, so that `hash` covers it
 *    and `verify` sees it added, removed or changed;
 *  - and reported when it is code (QA1420, QA1421: the Python modules
 *    transformers imports under trust_remote_code, scanned statically by
 *    formats/pycode.c), native code or a script (QA1425), or a kind of
 *    file no loader of these layouts reads (QA1424).
 *
 * auto_map is read from every config.json, tokenizer_config.json,
 * processor_config.json, preprocessor_config.json and
 * image_processor_config.json of the tree: transformers'
 * get_class_from_dynamic_module (src/transformers/dynamic_module_utils.py)
 * splits "repo--module.Class" at "--" (code from another repository) and
 * "module.Class" at its one dot, and imports <module>.py from the folder
 * (get_cached_module_file), with every module it imports relatively.
 * sentence-transformers' modules.json and diffusers' model_index.json
 * name the component folders; a component path that leaves the folder is
 * QA1429, one that is missing QA1428.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/format.h"
#include "formats/pycode.h"
#include "formats/pytorch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_file.h"
#include "core/secrets.h"

/* Folders below the model folder walked (onnx/, 2_Dense/, text_encoder/,
 * unet/ are one level; openvino exports two). */
#define TREE_DEPTH_MAX 8
/* Regular files looked at in all (a real repository holds tens to a few
 * thousand: 4,096-shard indexes exist). */
#define TREE_FILES_MAX 65536u
/* Bytes of one Python module scanned. */
#define CODE_SCAN_MAX ((uint64_t)8 << 20)

struct ref {
	const char *cfg;	/* the config file that names it */
	const char *key;	/* AutoModel, AutoTokenizer... */
	const char *value;	/* "modeling_x.ModelX", "org/r--m.C" */
	bool resolved;
};

struct walk {
	struct qa_inventory *inv;
	const char *root;
	uint64_t n_files, n_past;	/* looked at; left out past a bound */
	const char *first_past;
	bool depth_hit;
	uint32_t sub_weights;		/* weight files below the top */
	const char **py;
	size_t n_py, cap_py;
	const char **cfgs;
	size_t n_cfgs, cap_cfgs;
	struct ref *refs;
	size_t n_refs, cap_refs;
	const char *modules_json, *model_index;
	/* the inventory's paths when the walk began, sorted (a lookup per
	 * file must not make a 4,096-shard folder quadratic), and the
	 * files the pickle scan of the folder being walked added */
	struct known *known;
	uint32_t n_known, dir_from, dir_to;
};

struct known {
	const char *path;
	uint32_t index;
};

static int
cmp_known(const void *a, const void *b)
{
	return strcmp(((const struct known *)a)->path,
		      ((const struct known *)b)->path);
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool
push(struct walk *w, void *arr, size_t *n, size_t *cap, size_t size,
     const void *elem)
{
	void **v = arr;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		void *p = qa_arena_grow(&w->inv->arena, *v, *cap, nc, size);

		if (!p) {
			w->inv->out_of_memory = true;
			return false;
		}
		*v = p;
		*cap = nc;
	}
	memcpy((char *)*v + *n * size, elem, size);
	(*n)++;
	return true;
}

static const struct qa_file *
in_inventory(const struct qa_inventory *inv, const char *path)
{
	uint32_t i;

	for (i = 0; i < inv->n_files; i++)
		if (strcmp(inv->files[i].path, path) == 0)
			return &inv->files[i];
	return NULL;
}

static bool
is_config_with_auto_map(const char *name)
{
	return strcmp(name, "config.json") == 0 ||
	       strcmp(name, "tokenizer_config.json") == 0 ||
	       strcmp(name, "processor_config.json") == 0 ||
	       strcmp(name, "preprocessor_config.json") == 0 ||
	       strcmp(name, "image_processor_config.json") == 0 ||
	       strcmp(name, "feature_extractor_config.json") == 0 ||
	       strcmp(name, "video_preprocessor_config.json") == 0;
}

/* Native code and scripts: nothing of a model's layout, and what a
 * careless `sh run.sh` or a loader's ctypes would run. */
static bool
native_name(const char *name)
{
	static const char *const ext[] = {
		".so", ".pyd", ".dll", ".dylib", ".exe", ".sh", ".bash",
		".bat", ".cmd", ".ps1", ".pyc", ".pyo", ".elf", ".com",
	};
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (ends_with(name, ext[i]))
			return true;
	return strstr(name, ".so.") != NULL;
}

static bool
native_magic(const uint8_t *h, size_t n)
{
	return (n >= 4 && memcmp(h, "\x7f" "ELF", 4) == 0) ||
	       (n >= 2 && memcmp(h, "MZ", 2) == 0) ||
	       (n >= 4 && (memcmp(h, "\xcf\xfa\xed\xfe", 4) == 0 ||
			   memcmp(h, "\xce\xfa\xed\xfe", 4) == 0 ||
			   memcmp(h, "\xfe\xed\xfa\xcf", 4) == 0 ||
			   memcmp(h, "\xca\xfe\xba\xbe", 4) == 0)) ||
	       (n >= 2 && memcmp(h, "#!", 2) == 0);
}

/* Files of the layouts read by transformers, sentence-transformers,
 * diffusers, tokenizers, optimum (onnx/, openvino/) and the Hub (model
 * card, licence, attributes, images the card shows). */
static bool
known_name(const char *name)
{
	static const char *const ext[] = {
		".json", ".txt", ".md", ".model", ".jinja", ".tiktoken",
		".yaml", ".yml", ".png", ".jpg", ".jpeg", ".gif", ".svg",
		".webp", ".msgpack", ".h5", ".onnx", ".onnx_data", ".onnx.data",
		".xml", ".ot", ".gguf", ".npz", ".npy", ".bpe", ".vocab",
		".spm", ".csv", ".tsv", ".safetensors", ".pdf", ".gitattributes",
		".gitignore", ".cff", ".tflite", ".mlmodel", ".nemo",
	};
	size_t i;

	if (strncmp(name, "LICENSE", 7) == 0 || strncmp(name, "LICENCE", 7) == 0 ||
	    strncmp(name, "README", 6) == 0 || strncmp(name, "NOTICE", 6) == 0 ||
	    strncmp(name, "USE_POLICY", 10) == 0 || strcmp(name, "merges") == 0 ||
	    strncmp(name, "COPYING", 7) == 0)
		return true;
	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (ends_with(name, ext[i]))
			return true;
	return false;
}

/* A file not in the inventory yet: added as a side file (hashed by
 * `hash`, compared by `verify`), and reported when it is code or
 * unexpected. */
static int
account(struct walk *w, const char *path, const struct qa_dirent *e,
	int depth)
{
	struct qa_inventory *inv = w->inv;
	const struct qa_file *have = NULL;
	struct qa_file *f;
	const char *name = e->name;
	struct known key = { path, 0 };
	const struct known *hit = w->n_known ?
		bsearch(&key, w->known, w->n_known, sizeof(*w->known),
			cmp_known) : NULL;
	uint32_t k;

	if (hit)
		have = &inv->files[hit->index];
	for (k = w->dir_from; !have && k < w->dir_to; k++)
		if (strcmp(inv->files[k].path, path) == 0)
			have = &inv->files[k];

	if (is_config_with_auto_map(name) &&
	    !push(w, &w->cfgs, &w->n_cfgs, &w->cap_cfgs, sizeof(*w->cfgs),
		  &path))
		return QA_E_NOMEM;
	if (depth == 0 && strcmp(name, "modules.json") == 0)
		w->modules_json = path;
	if (depth == 0 && strcmp(name, "model_index.json") == 0)
		w->model_index = path;
	/* a GGUF beside a checkpoint is a model of its own
	 * (formats/input.c resolves it as one input) */
	if (!have && depth == 0 && ends_with(name, ".gguf"))
		return QA_OK;
	if (have) {
		if (depth > 0 && have->format &&
		    strcmp(have->format, "pytorch") == 0)
			w->sub_weights++;
		return QA_OK;
	}
	f = qa_inv_add_file(inv, path);
	if (!f)
		return QA_E_NOMEM;
	f->role = QA_FILE_OTHER;
	f->bytes = e->size;
	if (ends_with(name, ".py")) {
		f->format = "python";
		path = f->path;
		return push(w, &w->py, &w->n_py, &w->cap_py, sizeof(*w->py),
			    &path) ? QA_OK : QA_E_NOMEM;
	}
	if (depth > 0 && ends_with(name, ".safetensors"))
		w->sub_weights++;
	if (!native_name(name)) {
		struct qa_source src;
		uint8_t head[4];
		size_t hn = 0;
		bool magic = false;

		if (known_name(name) && !qa_pt_pickle_name(name)) {
			f->format = "side";
			return QA_OK;
		}
		/* an unknown name, or a pickle name the pickle probe
		 * turned down: its first bytes say whether it is a
		 * program */
		if (qa_inv_open(inv, path, &src) == QA_OK) {
			hn = src.size < sizeof(head) ? (size_t)src.size :
			     sizeof(head);
			magic = qa_source_read(&src, 0, head, hn) == QA_OK &&
				native_magic(head, hn);
			qa_source_close(&src);
		}
		if (!magic) {
			f->format = "side";
			if (!known_name(name) && !qa_pt_pickle_name(name))
				qa_inv_finding(inv, QA1424, f->path, -1, NULL,
					       "%s is a kind of file no loader "
					       "of this layout reads; it is "
					       "hashed, not audited", name);
			return QA_OK;
		}
	}
	f->format = "native";
	qa_inv_finding(inv, QA1425, f->path, -1, NULL, "%s is native code or "
		       "a script (by its %s), not part of any model layout: "
		       "nothing in it was checked", name,
		       native_name(name) ? "name" : "first bytes");
	return QA_OK;
}

static int
walk_dir(struct walk *w, const char *dir, int depth)
{
	struct qa_inventory *inv = w->inv;
	struct qa_dirent *e = NULL;
	size_t n = 0, i;
	uint32_t saved_from, saved_to, from, to;
	int rc;

	if (qa_inv_list(inv, dir, &e, &n) != QA_OK) {
		if (depth > 0)
			qa_inv_finding(inv, QA1412, dir, -1, NULL, "the folder "
				       "%s cannot be listed: its files were not "
				       "checked", dir);
		return inv->out_of_memory ? QA_E_NOMEM : QA_OK;
	}
	saved_from = w->dir_from;
	saved_to = w->dir_to;
	w->dir_from = w->dir_to = 0;
	if (depth > 0) {
		uint32_t before = inv->n_files;

		qa_st_report_special(inv, dir, e, n);
		/* the same pickle checks as the top folder's */
		rc = qa_pt_scan_side_pickles(inv, dir, e, n);
		if (rc != QA_OK)
			goto out;
		w->dir_from = before;
		w->dir_to = inv->n_files;
	}
	rc = QA_OK;
	for (i = 0; i < n && rc == QA_OK; i++) {
		char *path;

		if (e[i].kind != QA_NODE_FILE && e[i].kind != QA_NODE_DIR &&
		    e[i].kind != QA_NODE_OUTSIDE)
			continue;
		path = qa_inv_join(inv, dir, e[i].name);
		if (!path) {
			rc = QA_E_NOMEM;
			break;
		}
		if (e[i].kind == QA_NODE_OUTSIDE) {
			if (depth > 0)
				qa_inv_link_out(inv, path);
			continue;
		}
		if (e[i].kind == QA_NODE_DIR) {
			if (depth + 1 > TREE_DEPTH_MAX) {
				if (!w->depth_hit)
					w->first_past = path;
				w->depth_hit = true;
				w->n_past++;
				continue;
			}
			from = w->dir_from;
			to = w->dir_to;
			rc = walk_dir(w, path, depth + 1);
			w->dir_from = from;
			w->dir_to = to;
			continue;
		}
		if (++w->n_files > TREE_FILES_MAX) {
			if (w->n_past++ == 0)
				w->first_past = path;
			continue;
		}
		rc = account(w, path, &e[i], depth);
	}
out:
	w->dir_from = saved_from;
	w->dir_to = saved_to;
	qa_dirents_free(e, n);
	return rc;
}

/* ---- auto_map -------------------------------------------------------------- */

static cJSON *
read_doc(struct qa_inventory *inv, const char *path)
{
	struct qa_source src;
	struct qa_json_error err;
	cJSON *root;

	if (qa_inv_open(inv, path, &src) != QA_OK)
		return NULL;
	root = qa_json_read_source(&src, QA_JSON_SIDE_MAX, &err);
	qa_source_close(&src);
	return root;
}

static int
add_ref(struct walk *w, const char *cfg, const char *key, const char *v)
{
	struct ref r;

	r.cfg = cfg;
	r.key = qa_arena_strdup(&w->inv->arena, key);
	r.value = qa_arena_strdup(&w->inv->arena, v);
	r.resolved = false;
	if (!r.key || !r.value) {
		w->inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	return push(w, &w->refs, &w->n_refs, &w->cap_refs, sizeof(r), &r) ?
	       QA_OK : QA_E_NOMEM;
}

/* The folder part of path ("" for a bare name), in the arena. */
static const char *
dir_of(struct qa_inventory *inv, const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? qa_arena_printf(&inv->arena, "%.*s",
				       (int)(slash - path), path) : "";
}

/* Whether the side-file loader parsed cfg already (and kept its
 * entries): one of its records names it. */
static bool
noted(const struct qa_inventory *inv, const char *cfg)
{
	const char *p = inv->auto_map, *end = p + inv->auto_map_len;

	while (p && p < end) {
		if (strcmp(p, cfg) == 0)
			return true;
		p += strlen(p) + 1;
		p += strlen(p) + 1;
		p += strlen(p) + 1;
	}
	return false;
}

static int
read_auto_map(struct walk *w, const char *cfg)
{
	const struct qa_file *f = in_inventory(w->inv, cfg);
	cJSON *root;
	int rc;

	/* config.json and tokenizer_config.json of the top folder were
	 * parsed once by formats/hf_side.c, which kept their entries */
	if (f && (f->role == QA_FILE_CONFIG ||
		  strcmp(qa_path_base(cfg), "tokenizer_config.json") == 0) &&
	    strcmp(dir_of(w->inv, cfg), w->root) == 0)
		return QA_OK;
	if (noted(w->inv, cfg))
		return QA_OK;
	root = read_doc(w->inv, cfg);
	if (!root)
		return QA_OK;	/* the side-file loader reports it */
	rc = qa_hf_note_auto_map(w->inv, cfg, root);
	cJSON_Delete(root);
	return rc;
}

/* The kept records as refs. */
static int
collect_refs(struct walk *w)
{
	const char *p = w->inv->auto_map;
	/* no auto_map: p is NULL, and NULL + 0 is undefined (UBSan, found
	 * by fuzz_archive) */
	const char *end = p ? p + w->inv->auto_map_len : NULL;

	while (p && p < end) {
		const char *cfg = p, *key, *v;

		p += strlen(p) + 1;
		key = p;
		p += strlen(p) + 1;
		v = p;
		p += strlen(p) + 1;
		if (add_ref(w, cfg, key, v) != QA_OK)
			return QA_E_NOMEM;
	}
	return QA_OK;
}

static bool
leaves_folder(const char *p)
{
	return p[0] == '/' || p[0] == '~' || strchr(p, '\\') ||
	       strcmp(p, "..") == 0 || strncmp(p, "../", 3) == 0 ||
	       strstr(p, "/../") || ends_with(p, "/..") ||
	       (p[0] && p[1] == ':');
}

/* Each reference: code from another repository, code that is missing,
 * or one of the folder's Python files (marked resolved). */
static void
resolve_refs(struct walk *w)
{
	struct qa_inventory *inv = w->inv;
	size_t i, k;

	for (i = 0; i < w->n_refs; i++) {
		struct ref *r = &w->refs[i];
		const char *v = r->value, *dd = strstr(v, "--"), *dot;
		const char *dir, *file;

		if (dd) {
			qa_inv_finding(inv, QA1422, r->cfg, -1, NULL,
				       "auto_map %s of %s is '%s': transformers "
				       "downloads the module from the repository "
				       "'%.*s' and runs it (trust_remote_code); "
				       "that code is not in this folder and was "
				       "not checked", r->key, qa_path_base(r->cfg),
				       v, (int)(dd - v), v);
			r->resolved = true;
			continue;
		}
		dot = strrchr(v, '.');
		if (!dot || dot == v || leaves_folder(v)) {
			qa_inv_finding(inv, QA1423, r->cfg, -1, NULL,
				       "auto_map %s of %s is '%s', which names no "
				       "module file of this folder%s", r->key,
				       qa_path_base(r->cfg), v, leaves_folder(v) ?
				       " (it points outside the folder)" : "");
			r->resolved = true;
			continue;
		}
		dir = dir_of(inv, r->cfg);
		file = dir ? qa_arena_printf(&inv->arena, "%s%s%.*s.py", dir,
					     *dir ? "/" : "", (int)(dot - v), v) :
		       NULL;
		if (!file) {
			inv->out_of_memory = true;
			return;
		}
		for (k = 0; k < w->n_py; k++)
			if (strcmp(w->py[k], file) == 0)
				r->resolved = true;
		if (!r->resolved)
			qa_inv_finding(inv, QA1423, r->cfg, -1, NULL,
				       "auto_map %s of %s names '%s', but %s is "
				       "not in the folder: transformers cannot "
				       "load it from here (loaded by repository "
				       "id, it fetches the file from the Hub "
				       "unchecked)", r->key, qa_path_base(r->cfg),
				       v, qa_path_base(file));
	}
}

/* ---- the code itself ------------------------------------------------------- */

struct code_ctx {
	struct qa_inventory *inv;
	const char *path;
};

static void
on_hit(void *ctx, const struct qa_py_hit *h)
{
	struct code_ctx *c = ctx;

	qa_inv_finding(c->inv, QA1421, c->path, (int64_t)h->offset, NULL,
		       "%s line %u: %s (%s%s%s)", qa_path_base(c->path),
		       h->line, h->name, qa_py_what_name(h->what),
		       h->why ? ": " : "", h->why ? h->why : "");
}

static void
scan_code(struct walk *w, const char *path)
{
	struct qa_inventory *inv = w->inv;
	struct code_ctx ctx = { inv, path };
	struct qa_source src;
	char *text;
	size_t n;

	if (qa_inv_open(inv, path, &src) != QA_OK) {
		qa_inv_finding(inv, QA1427, path, -1, NULL, "%s could not be "
			       "read: its code was not scanned",
			       qa_path_base(path));
		return;
	}
	n = src.size > CODE_SCAN_MAX ? (size_t)CODE_SCAN_MAX : (size_t)src.size;
	text = malloc(n ? n : 1);
	if (!text) {
		inv->out_of_memory = true;
		qa_source_close(&src);
		return;
	}
	if (qa_source_read(&src, 0, text, n) != QA_OK) {
		qa_inv_finding(inv, QA1427, path, -1, NULL, "%s could not be "
			       "read: its code was not scanned",
			       qa_path_base(path));
	} else {
		if (src.size > CODE_SCAN_MAX)
			qa_inv_finding(inv, QA1427, path,
				       (int64_t)CODE_SCAN_MAX, NULL,
				       "%s is %" PRIu64 " bytes: only its first "
				       "8 MiB were scanned", qa_path_base(path),
				       src.size);
		(void)qa_py_scan(text, n, on_hit, &ctx);
		qa_secrets_in_text(inv, path, text, n);
	}
	free(text);
	qa_source_close(&src);
}

static void
report_code(struct walk *w)
{
	struct qa_inventory *inv = w->inv;
	size_t i, k;

	for (i = 0; i < w->n_py; i++) {
		const char *p = w->py[i], *names = NULL;
		const struct qa_file *f = in_inventory(inv, p);
		size_t n_named = 0;

		for (k = 0; k < w->n_refs; k++) {
			const struct ref *r = &w->refs[k];
			const char *dot = strrchr(r->value, '.');
			const char *dir = dir_of(inv, r->cfg);
			const char *file;

			if (strstr(r->value, "--") || !dot || !dir)
				continue;
			file = qa_arena_printf(&inv->arena, "%s%s%.*s.py", dir,
					       *dir ? "/" : "",
					       (int)(dot - r->value), r->value);
			if (!file || strcmp(file, p) != 0)
				continue;
			if (n_named++ < 6)
				names = qa_arena_printf(&inv->arena, "%s%s%s %s",
							names ? names : "",
							names ? ", " : "",
							r->key, r->value);
		}
		if (n_named)
			qa_inv_finding(inv, QA1420, p, -1, NULL,
				       "%s (%" PRIu64 " bytes) is code that "
				       "transformers imports and runs when the "
				       "model is loaded with trust_remote_code="
				       "True: auto_map %s%s", qa_path_base(p),
				       f ? f->bytes : 0, names ? names : "",
				       n_named > 6 ? ", ..." : "");
		else
			qa_inv_finding(inv, QA1420, p, -1, NULL,
				       "%s (%" PRIu64 " bytes) is Python code in "
				       "the model folder; no auto_map names it, "
				       "but a module that one names may import "
				       "it (transformers copies relative imports "
				       "with it)", qa_path_base(p),
				       f ? f->bytes : 0);
		scan_code(w, p);
	}
}

/* ---- credentials in the side files ----------------------------------------- */

/* Side files scanned for tokens and private links (src/core/secrets.h):
 * the configs training scripts write and the model card; bounded. */
#define TEXT_SCAN_MAX ((uint64_t)1 << 20)

static bool
text_to_scan(const char *name)
{
	return is_config_with_auto_map(name) ||
	       strcmp(name, "generation_config.json") == 0 ||
	       strcmp(name, "adapter_config.json") == 0 ||
	       strcmp(name, "special_tokens_map.json") == 0 ||
	       strcmp(name, "config_sentence_transformers.json") == 0 ||
	       strcmp(name, "modules.json") == 0 ||
	       strcmp(name, "model_index.json") == 0 ||
	       strncmp(name, "README", 6) == 0 || ends_with(name, ".yaml") ||
	       ends_with(name, ".yml") || ends_with(name, ".md");
}

static void
scan_texts(struct walk *w)
{
	struct qa_inventory *inv = w->inv;
	uint32_t i, n = inv->n_files;

	for (i = 0; i < n; i++) {
		const char *p = inv->files[i].path;
		struct qa_source src;
		char *text;
		size_t len;

		/* the side-file loader scanned the JSON it read itself */
		if (!inv->files[i].format ||
		    strcmp(inv->files[i].format, "side") != 0 ||
		    !text_to_scan(qa_path_base(p)) ||
		    inv->files[i].bytes > TEXT_SCAN_MAX ||
		    qa_inv_open(inv, p, &src) != QA_OK)
			continue;
		len = src.size > TEXT_SCAN_MAX ? (size_t)TEXT_SCAN_MAX :
		      (size_t)src.size;
		text = malloc(len ? len : 1);
		if (text && qa_source_read(&src, 0, text, len) == QA_OK)
			qa_secrets_in_text(inv, p, text, len);
		free(text);
		qa_source_close(&src);
	}
}

/* ---- components ------------------------------------------------------------ */

static void
component(struct walk *w, const char *doc, const char *what,
	  const char *sub)
{
	struct qa_inventory *inv = w->inv;
	enum qa_node_kind kind = QA_NODE_MISSING;
	uint64_t size;
	const char *p;

	if (!*sub)
		return;		/* the folder itself */
	if (leaves_folder(sub)) {
		qa_inv_finding(inv, QA1429, doc, -1, NULL, "%s of %s is '%s': "
			       "the loader joins it to the model folder "
			       "(os.path.join), so the component is loaded "
			       "from outside it", what, qa_path_base(doc), sub);
		return;
	}
	p = qa_arena_printf(&inv->arena, "%s%s%s", w->root,
			    w->root[strlen(w->root) - 1] == '/' ? "" : "/", sub);
	if (!p)
		return;
	(void)qa_inv_stat(inv, p, &kind, &size);
	if (kind != QA_NODE_DIR && kind != QA_NODE_OUTSIDE)
		qa_inv_finding(inv, QA1428, doc, -1, NULL, "%s of %s names the "
			       "folder '%s', which is not there: that "
			       "component is missing", what, qa_path_base(doc),
			       sub);
}

static void
read_components(struct walk *w)
{
	cJSON *root;
	const cJSON *x, *list;

	/* sentence-transformers SentenceTransformer._load_sbert_model:
	 * [{"idx", "name", "path", "type"}, ...] */
	root = w->modules_json ? read_doc(w->inv, w->modules_json) : NULL;
	list = cJSON_IsArray(root) ? root : NULL;
	cJSON_ArrayForEach(x, list) {
		const cJSON *p = qa_json_child(x, "path");

		if (cJSON_IsString(p))
			component(w, w->modules_json, "a module path",
				  p->valuestring);
	}
	cJSON_Delete(root);
	/* diffusers DiffusionPipeline.from_pretrained: each key not
	 * starting with '_' whose value is [library, class] is a folder */
	root = w->model_index ? read_doc(w->inv, w->model_index) : NULL;
	list = cJSON_IsObject(root) ? root : NULL;
	cJSON_ArrayForEach(x, list) {
		const cJSON *lib;

		if (!x->string || x->string[0] == '_' || !cJSON_IsArray(x) ||
		    cJSON_GetArraySize(x) != 2)
			continue;
		lib = cJSON_GetArrayItem(x, 0);
		if (cJSON_IsString(lib))
			component(w, w->model_index, "the component", x->string);
	}
	cJSON_Delete(root);
}

int
qa_hf_walk_tree(struct qa_inventory *inv, const char *dir,
		uint32_t *sub_weights)
{
	struct walk w;
	size_t i;
	int rc;

	memset(&w, 0, sizeof(w));
	w.inv = inv;
	w.root = dir;
	if (inv->n_files) {
		uint32_t k;

		w.known = qa_arena_array(&inv->arena, inv->n_files,
					 sizeof(*w.known));
		if (!w.known) {
			inv->out_of_memory = true;
			return QA_E_NOMEM;
		}
		for (k = 0; k < inv->n_files; k++) {
			w.known[k].path = inv->files[k].path;
			w.known[k].index = k;
		}
		w.n_known = inv->n_files;
		qsort(w.known, w.n_known, sizeof(*w.known), cmp_known);
	}
	rc = walk_dir(&w, dir, 0);
	if (rc != QA_OK)
		return rc;
	if (w.n_past)
		qa_inv_finding(inv, QA1426, w.first_past, -1, NULL,
			       "the folder walk stopped %s: %" PRIu64 " file%s "
			       "or folder%s past it (from %s) were neither "
			       "checked nor hashed", w.depth_hit ?
			       "8 folders deep" : "at 65,536 files", w.n_past,
			       w.n_past == 1 ? "" : "s", w.n_past == 1 ? "" : "s",
			       w.first_past);
	for (i = 0; i < w.n_cfgs && rc == QA_OK; i++)
		rc = read_auto_map(&w, w.cfgs[i]);
	if (rc == QA_OK)
		rc = collect_refs(&w);
	if (rc != QA_OK)
		return rc;
	resolve_refs(&w);
	report_code(&w);
	read_components(&w);
	scan_texts(&w);
	*sub_weights = w.sub_weights;
	return inv->out_of_memory ? QA_E_NOMEM : QA_OK;
}
