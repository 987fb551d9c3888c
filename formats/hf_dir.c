/* SPDX-License-Identifier: MIT */
/*
 * A Hugging Face checkpoint folder: the side files (formats/hf_side.c:
 * config.json, quantization, generation and tokenizer files, each parsed
 * once) and the safetensors set (index, shards and extra shards,
 * formats/st_set.c). GGUF files beside a checkpoint are models of their
 * own (formats/input.c resolves them separately).
 *
 * Where the quantization config lives follows vLLM's precedence
 * (quant-formats.md §1.2): config.json's own quantization_config (or
 * text_config's, or compression_config) first, then the method-specific
 * side file. Hidden files are ignored; names are processed in sorted
 * order so the file list is deterministic. Subfolders (components,
 * onnx/, code) and every other file are formats/hf_tree.c's.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/format.h"
#include "formats/pytorch.h"

#include <string.h>

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

int
qa_hf_load_dir(struct qa_inventory *inv, const char *dir)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i;
	const char *index = NULL, *pt_index = NULL;
	bool have_config = false, have_st = false, have_pt = false;
	bool pipeline = false;
	uint32_t sub_weights = 0;
	int rc;

	inv->kind = QA_KIND_HF_DIR;
	rc = qa_inv_list(inv, dir, &e, &n);
	if (rc != QA_OK)
		return rc;
	qa_st_report_special(inv, dir, e, n);
	rc = qa_hf_load_side_files(inv, dir, e, n);
	if (rc != QA_OK)
		goto out;
	for (i = 0; i < n; i++) {
		if (e[i].kind != QA_NODE_FILE)
			continue;
		if (strcmp(e[i].name, "config.json") == 0)
			have_config = true;
		/* a diffusers pipeline's config is per component */
		if (strcmp(e[i].name, "model_index.json") == 0)
			pipeline = true;
		if (ends_with(e[i].name, ".safetensors"))
			have_st = true;
		/* model.safetensors.index.json, else the first index. */
		if (ends_with(e[i].name, ".safetensors.index.json") &&
		    (!index || strcmp(e[i].name,
				      "model.safetensors.index.json") == 0)) {
			index = e[i].name;
			have_st = true;
		}
		if (ends_with(e[i].name, ".bin.index.json") &&
		    (!pt_index || strcmp(e[i].name,
					 "pytorch_model.bin.index.json") == 0))
			pt_index = e[i].name;
	}
	if (!have_config && !pipeline)
		qa_inv_finding(inv, QA1402, dir, -1, NULL,
			       "no config.json in %s", dir);
	if (have_st)
		rc = qa_st_load_set_in_dir(inv, dir, index);
	else	/* transformers falls back to the PyTorch weights */
		rc = qa_pt_load_set_in_dir(inv, dir, pt_index, &have_pt);
	/* every other pickle in the folder is scanned for payloads */
	if (rc == QA_OK)
		rc = qa_pt_scan_side_pickles(inv, dir, e, n);
	/* then every other file, subfolders included */
	if (rc == QA_OK)
		rc = qa_hf_walk_tree(inv, dir, &sub_weights);
	inv->kind = QA_KIND_HF_DIR;
	if (rc == QA_OK && !have_st && !have_pt && !(pipeline && sub_weights))
		qa_inv_finding(inv, QA1403, dir, -1, NULL,
			       "no .safetensors weights in %s: only the "
			       "configuration was audited", dir);
out:
	qa_dirents_free(e, n);
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	return rc;
}
