/* SPDX-License-Identifier: MIT */
/*
 * Tokenizer sanity (QA7101-QA7107): the GGUF tokenizer.ggml.* arrays and
 * keys as llama.cpp's vocabulary loader (src/llama-vocab.cpp, load())
 * reads them, and the added tokens of a Hugging Face tokenizer_config.json
 * against config.json's vocab_size.
 *
 * llama.cpp reads tokens, scores and token_type by index up to the token
 * count and casts the raw arrays to float / int32, so a short or
 * wrongly-typed scores or token_type array is an out-of-bounds read
 * (llama.cpp PR #26690; shared/knowledge/formats-and-security.md §3.2).
 * A BPE ("gpt2") vocabulary needs its merges (load() throws without them)
 * and a pre-tokenizer name (without one llama.cpp warns "missing
 * pre-tokenizer type, using: 'default'" and "GENERATION QUALITY WILL BE
 * DEGRADED"); special token ids past the token list are ignored by
 * llama.cpp ("bad special token") and index out of range elsewhere.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "rules/check.h"
#include "core/gguf_keys.h"


static const char *
kv_file(const struct qa_inventory *inv, const struct qa_kv *kv)
{
	return kv && kv->file < inv->n_files ? inv->files[kv->file].path :
	       NULL;
}

static int64_t
kv_off(const struct qa_kv *kv)
{
	return kv ? (int64_t)kv->offset : -1;
}

/*
 * The array key must hold elements of type want. Reports QA7103 and
 * returns false when it does not; returns true when it does or is absent.
 */
static bool
check_array_type(struct qa_inventory *inv, const struct qa_kv *kv,
		 enum qa_value_type want)
{
	if (!kv)
		return true;
	if (kv->value.type != QA_V_ARRAY) {
		qa_inv_finding(inv, QA7103, kv_file(inv, kv), kv_off(kv), NULL,
			       "%s is a %s, not an array of %s", kv->key,
			       qa_value_type_name(kv->value.type),
			       qa_value_type_name(want));
		return false;
	}
	if (kv->value.v.arr.elem != want) {
		qa_inv_finding(inv, QA7103, kv_file(inv, kv), kv_off(kv), NULL,
			       "%s is an array of %s, not %s: llama.cpp reads "
			       "the raw bytes as %s", kv->key,
			       qa_value_type_name(kv->value.v.arr.elem),
			       qa_value_type_name(want),
			       qa_value_type_name(want));
		return false;
	}
	return true;
}

static void
check_array_length(struct qa_inventory *inv, const struct qa_kv *kv,
		   uint64_t n_tokens)
{
	if (!kv || kv->value.type != QA_V_ARRAY ||
	    kv->value.v.arr.count == n_tokens)
		return;
	qa_inv_finding(inv, QA7102, kv_file(inv, kv), kv_off(kv), NULL,
		       "%s has %llu entries but tokenizer.ggml.tokens has %llu",
		       kv->key, (unsigned long long)kv->value.v.arr.count,
		       (unsigned long long)n_tokens);
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static void
check_gguf(struct qa_inventory *inv)
{
	const struct qa_kv *model = qa_inv_kv(inv, QA_GGUF_TOKENIZER_MODEL);
	const struct qa_kv *tokens = qa_inv_kv(inv, QA_GGUF_TOKENIZER_LIST);
	const struct qa_kv *scores = qa_inv_kv(inv, QA_GGUF_TOKENIZER_SCORES);
	const struct qa_kv *ttype =
		qa_inv_kv(inv, QA_GGUF_TOKENIZER_TOKEN_TYPE);
	const struct qa_kv *merges = qa_inv_kv(inv, QA_GGUF_TOKENIZER_MERGES);
	const struct qa_kv *pre = qa_inv_kv(inv, QA_GGUF_TOKENIZER_PRE);
	const struct qa_kv *vs = NULL;
	const char *mname = NULL;
	bool have_count = false;
	uint64_t n_tokens = 0;
	char key[160];
	uint32_t i;

	if (!model && !tokens)
		return;
	if (model && model->value.type == QA_V_STRING)
		mname = model->value.v.str.s;
	/* llama.cpp: "no_vocab" / "none" models carry no token list. */
	if (mname && (strcmp(mname, "no_vocab") == 0 ||
		      strcmp(mname, "none") == 0))
		return;

	if (!tokens) {
		qa_inv_finding(inv, QA7103, kv_file(inv, model), kv_off(model),
			       NULL, "tokenizer.ggml.model is '%s' but "
			       "tokenizer.ggml.tokens is missing: llama.cpp "
			       "cannot load the vocabulary",
			       mname ? mname : "?");
	} else if (check_array_type(inv, tokens, QA_V_STRING)) {
		n_tokens = tokens->value.v.arr.count;
		have_count = true;
	}
	check_array_type(inv, scores, QA_V_F32);
	check_array_type(inv, ttype, QA_V_I32);
	check_array_type(inv, merges, QA_V_STRING);
	if (have_count) {
		check_array_length(inv, scores, n_tokens);
		check_array_length(inv, ttype, n_tokens);
	}

	if (mname && strcmp(mname, "gpt2") == 0) {
		if (!pre || (pre->value.type == QA_V_STRING &&
			     pre->value.v.str.len == 0))
			qa_inv_finding(inv, QA7101, kv_file(inv, model),
				       kv_off(model), NULL,
				       "BPE vocabulary (tokenizer.ggml.model "
				       "'gpt2') without tokenizer.ggml.pre: "
				       "llama.cpp falls back to the 'default' "
				       "pre-tokenizer and warns that generation "
				       "quality will be degraded");
		if (!merges)
			qa_inv_finding(inv, QA7106, kv_file(inv, model),
				       kv_off(model), NULL,
				       "BPE vocabulary (tokenizer.ggml.model "
				       "'gpt2') without tokenizer.ggml.merges: "
				       "llama.cpp refuses to load it");
	}

	if (!have_count)
		return;
	if (inv->hp.arch_raw) {
		snprintf(key, sizeof(key), "%s." QA_GGUF_LLM_VOCAB_SIZE,
			 inv->hp.arch_raw);
		vs = qa_inv_kv(inv, key);
	}
	if (vs) {
		int64_t v;

		if (qa_value_as_int(&vs->value, &v) && v >= 0 &&
		    (uint64_t)v != n_tokens)
			qa_inv_finding(inv, QA7104, kv_file(inv, vs), kv_off(vs),
				       NULL, "%s is %lld but "
				       "tokenizer.ggml.tokens has %llu entries",
				       vs->key, (long long)v,
				       (unsigned long long)n_tokens);
	}
	for (i = 0; i < inv->n_kvs; i++) {
		const struct qa_kv *kv = &inv->kvs[i];
		int64_t id;

		if (strncmp(kv->key, QA_GGUF_TOKENIZER_GGML_PREFIX,
			    sizeof(QA_GGUF_TOKENIZER_GGML_PREFIX) - 1) != 0 ||
		    !ends_with(kv->key, "_token_id"))
			continue;
		/* Negative ids mean "none" to some writers; a wrong type is
		 * the key-type rule's business. */
		if (!qa_value_as_int(&kv->value, &id) || id < 0)
			continue;
		if ((uint64_t)id >= n_tokens)
			qa_inv_finding(inv, QA7105, kv_file(inv, kv),
				       kv_off(kv), NULL,
				       "%s is %lld but the vocabulary has %llu "
				       "tokens (ids 0..%llu)", kv->key,
				       (long long)id,
				       (unsigned long long)n_tokens,
				       (unsigned long long)(n_tokens ?
							    n_tokens - 1 : 0));
	}
}

/*
 * tokenizer_config.json "added_tokens_decoder": {"<id>": {"content": ...}}.
 * Every id must have a row in the embedding (config.json vocab_size, which
 * may be padded beyond the tokenizer: that is fine).
 */
static void
check_hf(struct qa_inventory *inv)
{
	const char *file = inv->tokenizer_config_file;
	unsigned bad = 0;
	uint32_t i;

	if (!file || !inv->have_config || inv->hp.n_vocab <= 0)
		return;
	for (i = 0; i < inv->n_added_tokens; i++) {
		const struct qa_added_token *t = &inv->added_tokens[i];

		if (t->id < 0 || t->id < inv->hp.n_vocab)
			continue;
		/* One finding per token would flood the report for a
		 * tokenizer whose whole added range is off. */
		if (bad++ < 3)
			qa_inv_finding(inv, QA7107, file, -1, NULL,
				       "added token %lld ('%.40s') is not below "
				       "config.json vocab_size %lld: the "
				       "embedding has no row for it",
				       (long long)t->id,
				       t->content ? t->content : "?",
				       (long long)inv->hp.n_vocab);
	}
	if (bad > 3)
		qa_inv_finding(inv, QA7107, file, -1, NULL,
			       "%u more added tokens are not below vocab_size "
			       "%lld", bad - 3, (long long)inv->hp.n_vocab);
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	(void)opt;
	check_gguf(inv);
	if (inv->kind == QA_KIND_HF_DIR)
		check_hf(inv);
}

const struct qa_check qa_check_tokenizer = { "tokenizer", run, false };
