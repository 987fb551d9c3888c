/* SPDX-License-Identifier: MIT */
/*
 * Many GGUFs in one process with llama.cpp's own reader (ggml/src/gguf.cpp,
 * the one llama_model_loader uses): for each path gguf_init_from_file() with
 * no_alloc = true and no ggml context (header only, no tensor data), then
 * every key (type, array length) and every tensor (name, type, offset,
 * shape) is visited and a one-line summary printed; gguf_free().
 * Built by bench/compare.sh against ../llama.cpp (ggml/include and the
 * libggml-base of its build/ folder).
 *
 *   ggml_gguf_many FILE...
 */
#include <inttypes.h>
#include <stdio.h>

#include "ggml.h"
#include "gguf.h"

static int summarize(const char *path)
{
	struct gguf_init_params params = { .no_alloc = true, .ctx = NULL };
	struct gguf_context *ctx = gguf_init_from_file(path, params);
	if (ctx == NULL) {
		fprintf(stderr, "%s: gguf_init_from_file failed\n", path);
		return 1;
	}
	int64_t n_kv = gguf_get_n_kv(ctx), n_t = gguf_get_n_tensors(ctx);
	uint64_t array_items = 0, weights = 0, last_end = 0;
	for (int64_t i = 0; i < n_kv; i++) {
		(void)gguf_get_key(ctx, i);
		if (gguf_get_kv_type(ctx, i) == GGUF_TYPE_ARRAY)
			array_items += gguf_get_arr_n(ctx, i);
	}
	for (int64_t i = 0; i < n_t; i++) {
		const int64_t *ne = gguf_get_tensor_ne(ctx, i);
		uint64_t n = 1;
		for (int d = 0; d < GGML_MAX_DIMS; d++)
			n *= (uint64_t)ne[d];
		weights += n;
		(void)gguf_get_tensor_name(ctx, i);
		(void)gguf_get_tensor_type(ctx, i);
		uint64_t end = gguf_get_tensor_offset(ctx, i) + gguf_get_tensor_size(ctx, i);
		if (end > last_end)
			last_end = end;
	}
	printf("%s: v%u, %" PRId64 " keys (%" PRIu64 " array items), %" PRId64
	       " tensors, %" PRIu64 " weights, data %zu + %" PRIu64 " bytes\n",
	       path, gguf_get_version(ctx), n_kv, array_items, n_t, weights,
	       gguf_get_data_offset(ctx), last_end);
	gguf_free(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++)
		bad |= summarize(argv[i]);
	return bad;
}
