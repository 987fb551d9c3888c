/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for config.json (formats/hf_config.c and the side-file
 * handling of formats/hf_dir.c): a model folder holds the input as
 * config.json beside a tiny valid model.safetensors; the folder is
 * inspected and the inventory invariants of fuzz_common.c are checked.
 * The hyperparameters a config yields (layer counts, layer kinds, MTP
 * layers) then drive the tensor role and summary code, which is checked
 * too. The folder always holds a safetensors file, so it is never
 * unrecognized.
 */
#include "fuzz_common.h"

/* Llama-style names so the config's layer and MTP counts meet real
 * tensor roles in the summary. */
static const char model[] =
	"{\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[8,4],"
	"\"data_offsets\":[0,64]},"
	"\"model.layers.0.self_attn.q_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[4,4],\"data_offsets\":[64,96]},"
	"\"model.layers.0.mlp.experts.0.down_proj.weight\":{\"dtype\":"
	"\"F8_E4M3\",\"shape\":[4,8],\"data_offsets\":[96,128]},"
	"\"model.layers.1.mixer.in_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[4,4],\"data_offsets\":[128,160]},"
	"\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[4],"
	"\"data_offsets\":[160,176]}}";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const void *st;
	static size_t st_size;

	if (!st)
		st = qa_fuzz_safetensors(model, 176, &st_size);
	qa_fuzz_reset();
	qa_fuzz_add("config.json", data, size);
	qa_fuzz_add("model.safetensors", st, st_size);
	qa_fuzz_inspect(NULL, false);
	return 0;
}
