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

static void
write_model(void)
{
	qa_fuzz_write_safetensors("model.safetensors", model, 176);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = qa_fuzz_scratch(write_model);
	char path[512];

	qa_fuzz_write("config.json", data, size, path, sizeof(path));
	qa_fuzz_inspect(dir, false);
	return 0;
}
