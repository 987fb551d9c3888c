/* SPDX-License-Identifier: MIT */
/*
 * The input driver: decides what a path is (a Hugging Face folder, a GGUF
 * file or split part, a safetensors file, shard or index) and hands it to
 * the format module; then derives the summaries and the findings that
 * need the whole inventory (file type versus tensor types).
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/input.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/dtypes.h"
#include "formats/format.h"
#include "core/source.h"

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Reads the first bytes of a file and asks each format module. */
static int
load_file(struct qa_inventory *inv, const char *path, char *err,
	  size_t errlen)
{
	struct qa_source src;
	uint8_t head[64];
	size_t n;
	int rc, gguf, st;

	rc = qa_source_open(&src, path);
	if (rc != QA_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 strerror(src.err));
		return rc;
	}
	n = src.size < sizeof(head) ? (size_t)src.size : sizeof(head);
	rc = qa_source_read(&src, 0, head, n);
	qa_source_close(&src);
	if (rc != QA_OK) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(src.err ? src.err : EIO));
		return QA_E_IO;
	}
	gguf = qa_format_gguf.probe(head, n, src.size);
	st = qa_format_safetensors.probe(head, n, src.size);
	if (gguf > 0 && gguf >= st)
		rc = qa_gguf_load_path(inv, path);
	else if (st > 0)
		rc = qa_st_load_path(inv, path);
	else if (ends_with(path, ".safetensors"))
		/* A damaged safetensors file is still a safetensors file:
		 * let the module report what is wrong with it. */
		rc = qa_st_load_path(inv, path);
	else
		rc = QA_E_UNRECOGNIZED;
	if (rc == QA_E_UNRECOGNIZED)
		snprintf(err, errlen,
			 "'%s' is not a GGUF or safetensors file "
			 "(first bytes %02x %02x %02x %02x)", path,
			 n > 0 ? head[0] : 0, n > 1 ? head[1] : 0,
			 n > 2 ? head[2] : 0, n > 3 ? head[3] : 0);
	return rc;
}

/* Findings that need the summaries. */
static void
check_file_type(struct qa_inventory *inv)
{
	const char *main_type;
	const struct qa_kv *kv;

	if (inv->kind != QA_KIND_GGUF && !(inv->kind == QA_KIND_HF_DIR &&
					   inv->hp.file_type >= 0))
		return;
	if (inv->hp.file_type < 0)
		return;
	kv = qa_inv_kv(inv, "general.file_type");
	main_type = qa_llama_ftype_main_type(inv->hp.file_type);
	if (!main_type) {
		qa_inv_finding(inv, QA7002,
			       kv ? inv->files[kv->file].path : NULL,
			       kv ? (int64_t)kv->offset : -1, NULL,
			       "general.file_type is %lld",
			       (long long)inv->hp.file_type);
		return;
	}
	if (inv->dominant_type && strcmp(main_type, inv->dominant_type) != 0)
		qa_inv_finding(inv, QA7001,
			       kv ? inv->files[kv->file].path : NULL,
			       kv ? (int64_t)kv->offset : -1, NULL,
			       "general.file_type says %s (mostly %s) but "
			       "most tensors are %s",
			       inv->file_type_declared, main_type,
			       inv->dominant_type);
}

int
qa_input_inspect(const char *path, struct qa_inventory **out, char *err,
		 size_t errlen)
{
	struct qa_inventory *inv;
	struct stat st;
	int rc;

	*out = NULL;
	err[0] = '\0';
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 strerror(errno));
		return QA_E_IO;
	}
	inv = qa_inventory_create(path);
	if (!inv) {
		snprintf(err, errlen, "out of memory");
		return QA_E_NOMEM;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = qa_hf_load_dir(inv, path);
		if (rc == QA_E_UNRECOGNIZED)
			snprintf(err, errlen,
				 "'%s' is not a model folder (no config.json, "
				 "safetensors or GGUF files)", path);
	} else if (ends_with(path, ".safetensors.index.json")) {
		rc = qa_st_load_path(inv, path);
	} else if (strcmp(base_name(path), "config.json") == 0) {
		/* config.json stands for its folder. */
		char dir[4096];
		size_t k = (size_t)(base_name(path) - path);

		if (k == 0) {
			rc = qa_hf_load_dir(inv, ".");
		} else if (k < sizeof(dir)) {
			memcpy(dir, path, k - 1);
			dir[k - 1] = '\0';
			rc = qa_hf_load_dir(inv, k == 1 ? "/" : dir);
		} else {
			rc = QA_E_IO;
			snprintf(err, errlen, "path too long: '%s'", path);
		}
	} else {
		rc = load_file(inv, path, err, errlen);
	}
	if (rc == QA_OK && inv->out_of_memory)
		rc = QA_E_NOMEM;
	if (rc != QA_OK) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", path,
				 rc == QA_E_NOMEM ? "out of memory" :
				 rc == QA_E_IO ? "read error" :
				 "not a recognized model file");
		qa_inventory_destroy(inv);
		return rc;
	}
	qa_inventory_summarize(inv);
	check_file_type(inv);
	if (inv->out_of_memory) {
		snprintf(err, errlen, "%s: out of memory", path);
		qa_inventory_destroy(inv);
		return QA_E_NOMEM;
	}
	*out = inv;
	return QA_OK;
}
