/* SPDX-License-Identifier: MIT */
/*
 * One pass over a GGUF file's tokenizer.ggml.tokens, read from the file:
 * a real vocabulary (150k tokens) is longer than the loader keeps
 * (QA_KV_KEEP_ELEMENTS), and the draft check (fit --draft) and the
 * prompt comparison (compare) need entries past that. Buffered, bounded:
 * every length comes from the file and is checked against its size.
 */
#ifndef QA_SRC_GGUF_TOKENS_H
#define QA_SRC_GGUF_TOKENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/source.h"

struct qa_inventory;

struct qa_gguf_tokens {
	struct qa_source src;
	uint64_t off;		/* next byte to read */
	uint64_t count;		/* tokens in the array */
	uint64_t buf_off;	/* file offset of buf[0] */
	size_t buf_n;
	bool open;
	unsigned char buf[32768];
};

/*
 * Positions t at the first token of inv's tokenizer.ggml.tokens. False
 * when the key is absent or not an array of strings, or the file does
 * not read as gguf.h lays the entry out (the key as u64 length and
 * bytes, u32 ARRAY, u32 STRING, u64 count equal to the loader's).
 * qa_gguf_tokens_close is called either way.
 */
bool qa_gguf_tokens_open(struct qa_gguf_tokens *t,
			 const struct qa_inventory *inv);

/*
 * The next token: its length in *len and its first min(*len, cap) bytes
 * in buf (buf may be NULL when cap is 0: the token is skipped). False
 * at a read error or a length past the file's size.
 */
bool qa_gguf_tokens_next(struct qa_gguf_tokens *t, char *buf, size_t cap,
			 uint64_t *len);

void qa_gguf_tokens_close(struct qa_gguf_tokens *t);

#endif /* QA_SRC_GGUF_TOKENS_H */
