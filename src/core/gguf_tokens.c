/* SPDX-License-Identifier: MIT */
/* Reads of tokenizer.ggml.tokens from the file (see gguf_tokens.h). */
#include "core/gguf_tokens.h"

#include <string.h>

#include "core/ckd.h"
#include "core/gguf_keys.h"
#include "core/inventory.h"

static bool
get(struct qa_gguf_tokens *t, void *out, size_t n)
{
	unsigned char *o = out;

	while (n) {
		size_t take;

		if (t->off < t->buf_off || t->off >= t->buf_off + t->buf_n) {
			uint64_t left = t->src.size > t->off ?
					t->src.size - t->off : 0;

			t->buf_n = left < sizeof(t->buf) ? (size_t)left :
				   sizeof(t->buf);
			t->buf_off = t->off;
			if (!t->buf_n || qa_source_read(&t->src, t->off, t->buf,
							t->buf_n) != QA_OK)
				return false;
		}
		take = (size_t)(t->buf_off + t->buf_n - t->off);
		if (take > n)
			take = n;
		memcpy(o, t->buf + (t->off - t->buf_off), take);
		o += take;
		n -= take;
		t->off += take;
	}
	return true;
}

static bool
get_u64(struct qa_gguf_tokens *t, uint64_t *v)
{
	unsigned char b[8];
	int i;

	if (!get(t, b, 8))
		return false;
	for (*v = 0, i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return true;
}

bool
qa_gguf_tokens_open(struct qa_gguf_tokens *t, const struct qa_inventory *inv)
{
	const struct qa_kv *kv = qa_inv_kv(inv, QA_GGUF_TOKENIZER_LIST);
	unsigned char tb[8];
	uint64_t klen;

	memset(t, 0, sizeof(*t));
	if (!kv || kv->value.type != QA_V_ARRAY ||
	    kv->value.v.arr.elem != QA_V_STRING || kv->file >= inv->n_files ||
	    qa_inv_open(inv, inv->files[kv->file].path, &t->src) != QA_OK)
		return false;
	t->open = true;
	t->off = kv->offset;
	return get_u64(t, &klen) && klen == strlen(kv->key) &&
	       !qa_ckd_add(&t->off, t->off, klen) && get(t, tb, 8) &&
	       tb[0] == QA_V_ARRAY && !(tb[1] | tb[2] | tb[3]) &&
	       tb[4] == QA_V_STRING && !(tb[5] | tb[6] | tb[7]) &&
	       get_u64(t, &t->count) && t->count == kv->value.v.arr.count;
}

bool
qa_gguf_tokens_next(struct qa_gguf_tokens *t, char *buf, size_t cap,
		    uint64_t *len)
{
	uint64_t take;

	if (!get_u64(t, len) || *len > t->src.size)
		return false;
	take = *len < cap ? *len : cap;
	if (take && !get(t, buf, (size_t)take))
		return false;
	return !qa_ckd_add(&t->off, t->off, *len - take);
}

void
qa_gguf_tokens_close(struct qa_gguf_tokens *t)
{
	if (t->open)
		qa_source_close(&t->src);
	t->open = false;
}
