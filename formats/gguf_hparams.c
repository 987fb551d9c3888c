/* SPDX-License-Identifier: MIT */
/*
 * GGUF metadata -> normalized hyperparameters (struct qa_hparams).
 *
 * Key names follow gguf-py gguf/constants.py (Keys.LLM, Keys.Attention,
 * Keys.SSM) and llama.cpp src/llama-arch.cpp; how they are read (scalar or
 * per-layer array, defaults, which layers are sliding-window, recurrent or
 * MTP) follows llama.cpp src/llama-model.cpp load_hparams() and
 * src/llama-hparams.cpp. The metadata of the first split part comes first
 * in inv->kvs, so lookups (first match) read what llama.cpp reads.
 * Values the file does not give stay -1 (unknown).
 */
#include "formats/format.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "core/gguf_keys.h"

/* A block count beyond this is not a real model; the per-layer tables
 * are not built for it (the value itself is still reported). */
#define MAX_LAYERS 65536

struct hp_ctx {
	struct qa_inventory *inv;
	const char *arch;
};

static const struct qa_value *
arch_val(const struct hp_ctx *c, const char *suffix)
{
	char key[256];
	const struct qa_kv *kv;
	size_t a, b;

	if (!c->arch)
		return NULL;
	/* "<arch>.<suffix>" (dozens per model: no printf) */
	a = strlen(c->arch);
	b = strlen(suffix);
	if (a + 1 + b >= sizeof(key))
		return NULL;
	memcpy(key, c->arch, a);
	key[a] = '.';
	memcpy(key + a + 1, suffix, b + 1);
	kv = qa_inv_kv(c->inv, key);
	return kv ? &kv->value : NULL;
}

/* Scalar integer, or the maximum of a per-layer integer array (llama.cpp
 * get_key_or_arr accepts both). -1 when absent or not an integer. */
static int64_t
int_or_max(const struct qa_value *v)
{
	int64_t x, best = -1;
	struct qa_value e;
	uint64_t i;

	if (!v)
		return -1;
	if (v->type != QA_V_ARRAY)
		return qa_value_as_int(v, &x) ? x : -1;
	for (i = 0; qa_value_item(v, i, &e); i++)
		if (qa_value_as_int(&e, &x) && x > best)
			best = x;
	return best;
}

static int64_t
arch_int(const struct hp_ctx *c, const char *suffix)
{
	return int_or_max(arch_val(c, suffix));
}

static int64_t
key_int(const struct qa_inventory *inv, const char *key)
{
	const struct qa_kv *kv = qa_inv_kv(inv, key);

	return kv ? int_or_max(&kv->value) : -1;
}

/* Element i of a per-layer array, or the scalar; -1 when unknown. */
static int64_t
layer_int(const struct qa_value *v, int64_t i)
{
	struct qa_value e;
	int64_t x;

	if (!v)
		return -1;
	if (v->type != QA_V_ARRAY)
		return qa_value_as_int(v, &x) ? x : -1;
	if (i < 0 || !qa_value_item(v, (uint64_t)i, &e))
		return -1;
	return qa_value_as_int(&e, &x) ? x : -1;
}

static bool
arch_is(const struct hp_ctx *c, const char *const *names)
{
	size_t i;

	if (!c->arch)
		return false;
	for (i = 0; names[i]; i++)
		if (strcmp(c->arch, names[i]) == 0)
			return true;
	return false;
}

static bool
has_tensor(const struct qa_inventory *inv, const char *name)
{
	uint32_t i;

	for (i = 0; i < inv->n_tensors; i++)
		if (strcmp(inv->tensors[i].name, name) == 0)
			return true;
	return false;
}

/*
 * Sliding-window layers. llama-hparams.cpp set_swa_pattern(n): layer il is
 * SWA iff il % n < n - 1; a bool array (Gemma 3n, MiMo, Step-3.5) marks
 * each layer. Defaults when the file has no pattern key: gemma2 and
 * gpt-oss period 2 (src/models/gemma2.cpp, openai-moe.cpp), gemma3 period 6
 * (src/models/gemma3.cpp), gemma3n period 5. MTP blocks are never SWA.
 */
static void
mark_swa(struct hp_ctx *c, uint8_t *kind, int64_t n)
{
	static const char *const period2[] = { "gemma2", "gpt-oss", NULL };
	static const char *const period6[] = { "gemma3", NULL };
	static const char *const period5[] = { "gemma3n", NULL };
	struct qa_hparams *hp = &c->inv->hp;
	const struct qa_value *pat =
		arch_val(c, QA_GGUF_ATTN_SLIDING_WINDOW_PATTERN);
	int64_t period = -1, i, x;

	if (pat && pat->type == QA_V_ARRAY) {
		struct qa_value e;

		for (i = 0; i < n && qa_value_item(pat, (uint64_t)i, &e); i++)
			if (qa_value_as_int(&e, &x) && x)
				kind[i] = QA_LAYER_SLIDING_ATTENTION;
		return;
	}
	if (pat && qa_value_as_int(pat, &x))
		period = x;
	else if (hp->sliding_window > 0 && arch_is(c, period2))
		period = 2;
	else if (hp->sliding_window > 0 && arch_is(c, period6))
		period = 6;
	else if (hp->sliding_window > 0 && arch_is(c, period5))
		period = 5;
	if (period <= 0)
		return;
	hp->swa_pattern = period;
	for (i = 0; i < n; i++)
		if (i % period < period - 1)
			kind[i] = QA_LAYER_SLIDING_ATTENTION;
}

static void
fill_layer_kinds(struct hp_ctx *c)
{
	static const char *const gdn[] = {
		"qwen3next", "qwen35", "qwen35moe", NULL,
	};
	static const char *const nemotron[] = {
		"nemotron_h", "nemotron_h_moe", NULL,
	};
	static const char *const kv_hybrid[] = {
		"granitehybrid", "jamba", "plamo2", NULL,
	};
	static const char *const short_conv[] = { "lfm2", "lfm2moe", NULL };
	static const char *const mamba[] = { "mamba", "mamba2", NULL };
	static const char *const falcon_h1[] = { "falcon-h1", NULL };
	struct qa_hparams *hp = &c->inv->hp;
	const struct qa_value *kv_v, *ff_v, *rec;
	uint8_t *kind;
	int64_t n = hp->n_layer_all, trunk = hp->n_layer, i;

	if (n <= 0 || n > MAX_LAYERS)
		return;
	kind = qa_arena_array(&c->inv->arena, (size_t)n, sizeof(*kind));
	if (!kind)
		return;
	for (i = 0; i < n; i++)
		kind[i] = QA_LAYER_FULL_ATTENTION;

	if (arch_is(c, gdn)) {
		/* llama-model.cpp LLM_ARCH_QWEN3NEXT/QWEN35: recurrent iff
		 * (i + 1) % full_attention_interval != 0, or the per-layer
		 * attention.recurrent_layers flags when present. */
		int64_t fai = hp->full_attention_interval > 0 ?
			      hp->full_attention_interval : 4;

		rec = arch_val(c, QA_GGUF_ATTN_RECURRENT_LAYERS);
		for (i = 0; i < n; i++) {
			bool linear = (i + 1) % fai != 0;

			if (rec && rec->type == QA_V_ARRAY)
				linear = layer_int(rec, i) > 0;
			kind[i] = linear ? QA_LAYER_LINEAR_ATTENTION :
				  QA_LAYER_FULL_ATTENTION;
		}
	} else if (arch_is(c, nemotron)) {
		/* llama-model.cpp LLM_ARCH_NEMOTRON_H: recurrent iff
		 * n_head_kv(i) == 0 && n_ff(i) == 0; '-'/'E' blocks have no
		 * attention but an FFN. */
		kv_v = arch_val(c, QA_GGUF_ATTN_HEAD_COUNT_KV);
		ff_v = arch_val(c, QA_GGUF_LLM_FEED_FORWARD_LENGTH);
		for (i = 0; i < n; i++) {
			int64_t kvh = layer_int(kv_v, i);
			int64_t ff = layer_int(ff_v, i);

			if (kvh > 0)
				kind[i] = QA_LAYER_FULL_ATTENTION;
			else if (kvh == 0 && ff == 0)
				kind[i] = QA_LAYER_MAMBA;
			else if (kvh == 0)
				kind[i] = QA_LAYER_MLP_ONLY;
		}
	} else if (arch_is(c, kv_hybrid)) {
		/* llama.cpp src/models/granite-hybrid.cpp, jamba.cpp,
		 * plamo2.cpp: a layer is recurrent iff n_head_kv(i) == 0
		 * (their Mamba blocks carry an FFN too, so n_ff is not
		 * consulted). */
		kv_v = arch_val(c, QA_GGUF_ATTN_HEAD_COUNT_KV);
		for (i = 0; i < n; i++)
			if (layer_int(kv_v, i) == 0)
				kind[i] = QA_LAYER_MAMBA;
	} else if (arch_is(c, short_conv)) {
		/* llama.cpp src/models/lfm2.cpp: recurrent (a gated short
		 * convolution, shortconv.*) iff n_head_kv(i) == 0; the
		 * converter writes 0 for every "conv" layer
		 * (conversion/lfm2.py). */
		kv_v = arch_val(c, QA_GGUF_ATTN_HEAD_COUNT_KV);
		for (i = 0; i < n; i++)
			if (layer_int(kv_v, i) == 0)
				kind[i] = QA_LAYER_SHORT_CONV;
	} else if (arch_is(c, falcon_h1)) {
		/* llama.cpp src/models/falcon-h1.cpp: every layer is both
		 * recurrent and attention (the mixers run in parallel). */
		for (i = 0; i < n; i++)
			kind[i] = QA_LAYER_PARALLEL_HYBRID;
	} else if (arch_is(c, mamba)) {
		for (i = 0; i < n; i++)
			kind[i] = QA_LAYER_MAMBA;
	} else {
		mark_swa(c, kind, trunk >= 0 ? trunk : n);
	}
	/* MTP blocks follow the trunk (llama-hparams.cpp n_layer()). */
	for (i = trunk >= 0 ? trunk : n; i < n; i++)
		kind[i] = QA_LAYER_MTP;
	hp->layer_kind = kind;
}

static void
fill_head_kv(struct hp_ctx *c)
{
	struct qa_hparams *hp = &c->inv->hp;
	const struct qa_value *v = arch_val(c, QA_GGUF_ATTN_HEAD_COUNT_KV);
	int32_t *arr;
	int64_t i, x, n = hp->n_layer_all;

	hp->n_head_kv = int_or_max(v);
	if (!v || v->type != QA_V_ARRAY || n <= 0 || n > MAX_LAYERS)
		return;
	arr = qa_arena_array(&c->inv->arena, (size_t)n, sizeof(*arr));
	if (!arr)
		return;
	for (i = 0; i < n; i++) {
		x = layer_int(v, i);
		arr[i] = x < 0 || x > INT32_MAX ? -1 : (int32_t)x;
	}
	hp->head_kv_per_layer = arr;
}

static uint64_t
get_le_be(const unsigned char *p, int n, bool be)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

/*
 * The value of a GGUF string key read again from its file, up to
 * QA_TEMPLATE_SCAN_MAX bytes (the metadata keeps QA_KV_KEEP_STRING):
 * the template check scans all of a template. The key's header is read
 * again to find the bytes (u64 key length, the key, u32 type, u64 string
 * length), and must agree with what the loader read. Returns the bytes
 * (arena, NUL-terminated, NULs inside kept) with *kept set, or NULL when
 * they cannot be read: the check then reports the rest as not scanned.
 */
static const char *
reread_string(struct qa_inventory *inv, const struct qa_kv *kv,
	      uint64_t *kept)
{
	const struct qa_file *f;
	struct qa_source src;
	unsigned char b[8];
	uint64_t klen, slen, off, n;
	char *text = NULL;
	bool be;

	if (kv->file >= inv->n_files)
		return NULL;
	f = &inv->files[kv->file];
	be = f->big_endian;
	if (qa_inv_open(inv, f->path, &src) != QA_OK)
		return NULL;
	if (qa_source_read(&src, kv->offset, b, 8) != QA_OK)
		goto out;
	klen = get_le_be(b, 8, be);
	/* keys are at most 65535 bytes (formats/gguf.c) */
	if (klen > 65535)
		goto out;
	off = kv->offset + 8 + klen;
	if (qa_source_read(&src, off, b, 4) != QA_OK ||
	    get_le_be(b, 4, be) != QA_V_STRING)
		goto out;
	if (qa_source_read(&src, off + 4, b, 8) != QA_OK)
		goto out;
	slen = get_le_be(b, 8, be);
	if (slen != kv->value.v.str.len)
		goto out;
	n = slen < QA_TEMPLATE_SCAN_MAX ? slen : QA_TEMPLATE_SCAN_MAX;
	text = qa_arena_alloc(&inv->arena, (size_t)n + 1);
	if (!text) {
		inv->out_of_memory = true;
		goto out;
	}
	if (qa_source_read(&src, off + 12, text, (size_t)n) != QA_OK) {
		text = NULL;
		goto out;
	}
	text[n] = '\0';
	*kept = n;
out:
	qa_source_close(&src);
	return text;
}

/* Chat templates of the metadata: tokenizer.chat_template (the one
 * llama.cpp uses) and the named tokenizer.chat_template.<name>, each
 * whole (up to QA_TEMPLATE_SCAN_MAX) with its true length: strings
 * longer than the QA_KV_KEEP_STRING the metadata keeps are read again. */
static void
gguf_templates(struct qa_inventory *inv)
{
	uint32_t i;

	for (i = 0; i < inv->n_kvs; i++) {
		const struct qa_kv *kv = &inv->kvs[i];
		const struct qa_value *v = &kv->value;
		struct qa_template *t;
		bool primary =
			strcmp(kv->key, QA_GGUF_TOKENIZER_CHAT_TEMPLATE) == 0;
		const char *text;
		uint64_t kept;

		if (!primary &&
		    strncmp(kv->key, QA_GGUF_TOKENIZER_CHAT_TEMPLATE_PREFIX,
			    sizeof(QA_GGUF_TOKENIZER_CHAT_TEMPLATE_PREFIX) -
			    1) != 0)
			continue;
		if (v->type != QA_V_STRING || !v->v.str.s)
			continue;
		text = v->v.str.s;
		kept = v->v.str.len < QA_KV_KEEP_STRING ? v->v.str.len :
		       QA_KV_KEEP_STRING;
		if (v->v.str.len > QA_KV_KEEP_STRING) {
			uint64_t more = 0;
			const char *all = reread_string(inv, kv, &more);

			if (all) {
				text = all;
				kept = more;
			}
		}
		t = qa_inv_add_template(inv);
		if (!t)
			return;
		t->label = kv->key;
		t->text = text;
		t->len = kept;
		t->full_len = v->v.str.len;
		t->file = kv->file < inv->n_files ? inv->files[kv->file].path :
			  NULL;
		t->offset = (int64_t)kv->offset;
		t->primary = primary;
		if (primary)
			inv->chat_template = v->v.str.s;
	}
}

void
qa_gguf_fill_hparams(struct qa_inventory *inv)
{
	struct qa_hparams *hp = &inv->hp;
	const struct qa_kv *kv;
	struct hp_ctx c = { inv, NULL };
	int64_t rope;

	gguf_templates(inv);
	kv = qa_inv_kv(inv, QA_GGUF_GENERAL_ARCHITECTURE);
	if (kv && kv->value.type == QA_V_STRING) {
		c.arch = kv->value.v.str.s;
		hp->arch_raw = c.arch;
		/* GGUF architecture names already are llama.cpp's family
		 * names; they are the normalized vocabulary. */
		hp->arch = c.arch;
	}
	kv = qa_inv_kv(inv, QA_GGUF_GENERAL_NAME);
	if (kv && kv->value.type == QA_V_STRING)
		hp->name = kv->value.v.str.s;
	hp->file_type = key_int(inv, QA_GGUF_GENERAL_FILE_TYPE);

	hp->n_layer_all = arch_int(&c, QA_GGUF_LLM_BLOCK_COUNT);
	hp->n_mtp = arch_int(&c, QA_GGUF_LLM_NEXTN_PREDICT_LAYERS);
	/* llama.cpp reads the key as optional, 0 when absent
	 * (src/llama-model.cpp LLM_KV_NEXTN_PREDICT_LAYERS); a file that
	 * writes it, even as 0, says how many MTP layers it has. */
	hp->mtp_declared = hp->n_mtp >= 0;
	if (hp->n_mtp < 0)
		hp->n_mtp = 0;
	if (hp->n_layer_all >= 0)
		hp->n_layer = hp->n_mtp <= hp->n_layer_all ?
			      hp->n_layer_all - hp->n_mtp : hp->n_layer_all;
	hp->n_embd = arch_int(&c, QA_GGUF_LLM_EMBEDDING_LENGTH);
	hp->n_head = arch_int(&c, QA_GGUF_ATTN_HEAD_COUNT);
	fill_head_kv(&c);
	hp->head_dim_k = arch_int(&c, QA_GGUF_ATTN_KEY_LENGTH);
	hp->head_dim_v = arch_int(&c, QA_GGUF_ATTN_VALUE_LENGTH);
	/* llama.cpp default: n_embd_head_k = n_embd / n_head. */
	if (hp->n_embd > 0 && hp->n_head > 0) {
		if (hp->head_dim_k < 0)
			hp->head_dim_k = hp->n_embd / hp->n_head;
		if (hp->head_dim_v < 0)
			hp->head_dim_v = hp->n_embd / hp->n_head;
	}
	hp->n_ff = arch_int(&c, QA_GGUF_LLM_FEED_FORWARD_LENGTH);
	hp->n_vocab = arch_int(&c, QA_GGUF_LLM_VOCAB_SIZE);
	if (hp->n_vocab < 0) {
		kv = qa_inv_kv(inv, QA_GGUF_TOKENIZER_LIST);
		if (kv && kv->value.type == QA_V_ARRAY &&
		    kv->value.v.arr.count <= INT64_MAX)
			hp->n_vocab = (int64_t)kv->value.v.arr.count;
	}
	hp->n_ctx_train = arch_int(&c, QA_GGUF_LLM_CONTEXT_LENGTH);
	hp->n_expert = arch_int(&c, QA_GGUF_LLM_EXPERT_COUNT);
	hp->n_expert_used = arch_int(&c, QA_GGUF_LLM_EXPERT_USED_COUNT);
	hp->n_expert_shared = arch_int(&c, QA_GGUF_LLM_EXPERT_SHARED_COUNT);
	hp->n_ff_expert = arch_int(&c, QA_GGUF_LLM_EXPERT_FEED_FORWARD_LENGTH);
	hp->n_leading_dense =
		arch_int(&c, QA_GGUF_LLM_LEADING_DENSE_BLOCK_COUNT);
	hp->sliding_window = arch_int(&c, QA_GGUF_ATTN_SLIDING_WINDOW);
	hp->full_attention_interval =
		arch_int(&c, QA_GGUF_LLM_FULL_ATTENTION_INTERVAL);

	/* MLA (conversion/deepseek.py): key_length_mla = nope + rope,
	 * value_length_mla = v_head_dim; older files put those in
	 * key_length / value_length. */
	hp->q_lora_rank = arch_int(&c, QA_GGUF_ATTN_Q_LORA_RANK);
	hp->kv_lora_rank = arch_int(&c, QA_GGUF_ATTN_KV_LORA_RANK);
	if (hp->kv_lora_rank > 0) {
		int64_t klm = arch_int(&c, QA_GGUF_ATTN_KEY_LENGTH_MLA);
		int64_t vlm = arch_int(&c, QA_GGUF_ATTN_VALUE_LENGTH_MLA);

		rope = arch_int(&c, QA_GGUF_ROPE_DIMENSION_COUNT);
		hp->qk_rope_dim = rope;
		if (klm < 0)
			klm = arch_int(&c, QA_GGUF_ATTN_KEY_LENGTH);
		if (vlm < 0)
			vlm = arch_int(&c, QA_GGUF_ATTN_VALUE_LENGTH);
		if (klm >= 0 && rope >= 0 && klm >= rope)
			hp->qk_nope_dim = klm - rope;
		hp->v_head_dim_mla = vlm;
	}

	hp->ssm_d_conv = arch_int(&c, QA_GGUF_SSM_CONV_KERNEL);
	hp->ssm_d_inner = arch_int(&c, QA_GGUF_SSM_INNER_SIZE);
	hp->ssm_d_state = arch_int(&c, QA_GGUF_SSM_STATE_SIZE);
	hp->ssm_dt_rank = arch_int(&c, QA_GGUF_SSM_TIME_STEP_RANK);
	hp->ssm_n_group = arch_int(&c, QA_GGUF_SSM_GROUP_COUNT);

	/* No output.weight: llama.cpp falls back to token_embd (tied). */
	if (inv->n_tensors > 0)
		hp->tie_embeddings = !has_tensor(inv, "output.weight") &&
				     has_tensor(inv, "token_embd.weight");
	fill_layer_kinds(&c);
}
