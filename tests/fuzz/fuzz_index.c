/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for sharded safetensors indexes (formats/st_set.c through
 * the folder loader formats/hf_dir.c): a model folder holds a fixed,
 * valid two-shard set and the input as model.safetensors.index.json; the
 * folder is inspected and the inventory invariants of fuzz_common.c are
 * checked.
 *
 * The shards carry the same tensors as the generated fixture folder
 * st/sharded (fixtures/gen/gen_st.c), so its index and the seed corpus
 * describe this set and mutations start from an index that matches.
 * The folder always holds safetensors files, so it is never unrecognized.
 */
#include "fuzz_common.h"

static const char shard1[] =
	"{\"lm_head.weight\":{\"dtype\":\"BF16\",\"shape\":[8,4],"
	"\"data_offsets\":[0,64]},"
	"\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[8,4],"
	"\"data_offsets\":[64,128]},"
	"\"model.layers.0.input_layernorm.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[4],\"data_offsets\":[128,136]},"
	"\"model.layers.0.mlp.down_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[4,8],\"data_offsets\":[136,200]},"
	"\"model.layers.0.mlp.gate_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[8,4],\"data_offsets\":[200,264]},"
	"\"model.layers.0.mlp.up_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[8,4],\"data_offsets\":[264,328]},"
	"\"__metadata__\":{\"format\":\"pt\"}}";

static const char shard2[] =
	"{\"model.layers.0.post_attention_layernorm.weight\":{\"dtype\":"
	"\"BF16\",\"shape\":[4],\"data_offsets\":[0,8]},"
	"\"model.layers.0.self_attn.k_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[4,4],\"data_offsets\":[8,40]},"
	"\"model.layers.0.self_attn.o_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[4,4],\"data_offsets\":[40,72]},"
	"\"model.layers.0.self_attn.q_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[4,4],\"data_offsets\":[72,104]},"
	"\"model.layers.0.self_attn.v_proj.weight\":{\"dtype\":\"BF16\","
	"\"shape\":[4,4],\"data_offsets\":[104,136]},"
	"\"model.norm.weight\":{\"dtype\":\"BF16\",\"shape\":[4],"
	"\"data_offsets\":[136,144]},"
	"\"__metadata__\":{\"format\":\"pt\"}}";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const void *s1, *s2;
	static size_t n1, n2;

	if (!s1) {
		s1 = qa_fuzz_safetensors(shard1, 328, &n1);
		s2 = qa_fuzz_safetensors(shard2, 144, &n2);
	}
	qa_fuzz_reset();
	qa_fuzz_add("model-00001-of-00002.safetensors", s1, n1);
	qa_fuzz_add("model-00002-of-00002.safetensors", s2, n2);
	qa_fuzz_add("model.safetensors.index.json", data, size);
	qa_fuzz_inspect(NULL, false);
	return 0;
}
