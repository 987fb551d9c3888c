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

#include <stdio.h>
#include <string.h>

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool
has_file(const struct qa_dirent *e, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (e[i].kind == QA_NODE_FILE && strcmp(e[i].name, name) == 0)
			return true;
	return false;
}

/*
 * ONNX (ONNX Runtime GenAI exports: microsoft/onnxruntime-genai
 * src/python/py/models/builder.py writes model.onnx, its external data
 * model.onnx.data and genai_config.json; optimum exports) and OpenVINO IR
 * (openvino_model.xml, the graph, with openvino_model.bin, its weights:
 * openvinotoolkit/openvino docs "OpenVINO IR format"; optimum-intel
 * writes both). quantaudit reads neither protobuf nor IR XML: the folder
 * is named, the files that must come together are checked, and QA1413
 * says what was not audited. Returns true when the folder is one.
 */
static bool
onnx_openvino(struct qa_inventory *inv, const char *dir,
	      const struct qa_dirent *e, size_t n)
{
	bool ov = false, onnx = false;
	char want[512];
	size_t i, k;

	for (i = 0; i < n; i++) {
		const char *nm = e[i].name;

		if (e[i].kind != QA_NODE_FILE)
			continue;
		k = strlen(nm);
		if (ends_with(nm, ".xml") && strncmp(nm, "openvino_", 9) == 0) {
			ov = true;
			snprintf(want, sizeof(want), "%.*s.bin", (int)(k - 4), nm);
			if (!has_file(e, n, want))
				qa_inv_finding(inv, QA1415, dir, -1, NULL,
					       "%s has no %s beside it: the IR "
					       "graph's weights are in the .bin "
					       "of the same name", nm, want);
		}
		if (ends_with(nm, ".onnx") ||
		    strcmp(nm, "genai_config.json") == 0)
			onnx = true;
	}
	if (!ov && !onnx)
		return false;
	inv->format = ov ? QA_FORMAT_OPENVINO : QA_FORMAT_ONNX;
	qa_inv_finding(inv, QA1413, dir, -1, NULL,
		       "%s folder: named and checked for its files only; the "
		       "%s, its weights, precision and size were not audited",
		       ov ? "OpenVINO IR" : "ONNX", ov ? "IR graph (.xml)" :
		       "ONNX graph (protobuf) and its external data (named "
		       "inside the graph)");
	return true;
}

int
qa_hf_load_dir(struct qa_inventory *inv, const char *dir)
{
	struct qa_dirent *e = NULL;
	size_t n = 0, i;
	const char *index = NULL, *pt_index = NULL;
	bool have_config = false, have_st = false, have_pt = false;
	bool other_format;
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
		/* a PEFT adapter's config is adapter_config.json */
		if (strcmp(e[i].name, "config.json") == 0 ||
		    strcmp(e[i].name, "adapter_config.json") == 0)
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
	other_format = onnx_openvino(inv, dir, e, n);
	if (!have_config && !other_format && !pipeline)
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
	if (rc == QA_OK && !have_st && !have_pt && !other_format &&
	    !(pipeline && sub_weights))
		qa_inv_finding(inv, QA1403, dir, -1, NULL,
			       "no .safetensors weights in %s: only the "
			       "configuration was audited", dir);
out:
	qa_dirents_free(e, n);
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	return rc;
}
