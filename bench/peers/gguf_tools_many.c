/* SPDX-License-Identifier: MIT */
/*
 * Many GGUFs in one process with antirez's gguf-tools (gguflib.c): for each
 * path, the body of gguf-tools.c's gguf_tools_show() (every key printed as
 * `show` prints it, arrays cut at 30 items; every tensor with its offset,
 * weights, dims and bytes; the parameter count), then gguf_close(), which
 * `show` leaves to process exit. Built by bench/compare.sh beside
 * gguf-tools' own sources (../gguf-tools) with their Makefile's flags.
 *
 *   gguf_tools_many FILE...
 */
#include <inttypes.h>
#include <stdio.h>

#include "gguflib.h"

static int show(const char *filename)
{
	gguf_ctx *ctx = gguf_open(filename);
	if (ctx == NULL) {
		perror(filename);
		return 1;
	}
	printf("%s (ver %d): %llu key-value pairs, %llu tensors\n", filename,
	       (int)ctx->header->version,
	       (unsigned long long)ctx->header->metadata_kv_count,
	       (unsigned long long)ctx->header->tensor_count);
	gguf_key key;
	while (gguf_get_key(ctx, &key)) {
		printf("%.*s: [%s] ", (int)key.namelen, key.name, gguf_get_value_type_name(key.type));
		gguf_print_value(ctx, key.type, key.val, 0);
		printf("\n");
	}
	gguf_tensor tensor;
	uint64_t params = 0;
	while (gguf_get_tensor(ctx, &tensor)) {
		printf("%s tensor %.*s @%" PRIu64 ", %" PRIu64 " weights, dims ",
		       gguf_get_tensor_type_name(tensor.type), (int)tensor.namelen, tensor.name,
		       tensor.offset, tensor.num_weights);
		for (uint32_t j = 0; j < tensor.ndim; j++)
			printf("%s%" PRIu64, j == 0 ? "[" : ",", tensor.dim[j]);
		printf("], %" PRIu64 " bytes\n", tensor.bsize);
		params += tensor.num_weights;
	}
	printf("gguf-tools.info.parameters: %.02fB\n", (double)params / 1000000000);
	gguf_close(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++)
		bad |= show(argv[i]);
	return bad;
}
