/* SPDX-License-Identifier: MIT */
/*
 * PEFT LoRA adapter folders (QA2120-QA2125; formats/peft.c reads the
 * config): the one-line notice that the input is an adapter and not a
 * model (what was and was not audited), its lora_A / lora_B pairs
 * against the declared rank, its target_modules against the modules it
 * holds, and with --base MODEL its shapes against the base model's;
 * a GGUF LoRA adapter against the base model it was loaded beside (an
 * Ollama model's adapter layer against its model layer, QA1807).
 *
 * Layout (huggingface/peft src/peft/tuners/lora/layer.py LoraLayer
 * update_layer, utils/save_and_load.py get_peft_model_state_dict): per
 * adapted module "base_model.model.<module>.lora_A.weight" [r, in] and
 * ".lora_B.weight" [out, r] (embeddings: lora_embedding_A [r, vocab],
 * lora_embedding_B [dim, r]); the adapter name is dropped on save.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gguf_keys.h"
#include "rules/check.h"

#define PEFT_PREFIX "base_model.model."

/* Module-pair suffixes: A's shape is [r, in], B's [out, r]. */
static const struct {
	const char *a, *b;
} pair_sfx[] = {
	{ ".lora_A.weight", ".lora_B.weight" },
	{ ".lora_embedding_A", ".lora_embedding_B" },
};

static const char *
tfile(const struct qa_inventory *inv, const struct qa_tensor *t)
{
	return t->file < inv->n_files ? inv->files[t->file].path : NULL;
}

static bool
ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* The tensor named prefix[0..len) + suffix, or NULL. */
static const struct qa_tensor *
find_tensor(const struct qa_inventory *inv, const char *prefix, size_t len,
	    const char *suffix)
{
	size_t k = strlen(suffix);
	uint32_t i;

	for (i = 0; i < inv->n_tensors; i++) {
		const char *n = inv->tensors[i].name;

		if (strlen(n) == len + k && memcmp(n, prefix, len) == 0 &&
		    strcmp(n + len, suffix) == 0)
			return &inv->tensors[i];
	}
	return NULL;
}

/* The module name without PEFT's wrapper prefix. */
static const char *
bare(const char *name)
{
	size_t k = strlen(PEFT_PREFIX);

	return strncmp(name, PEFT_PREFIX, k) == 0 ? name + k : name;
}

/* A target_modules entry names module m: the whole name or its last
 * dotted components (peft tuners_utils.py check_target_module_exists:
 * key == target or key.endswith("." + target)). */
static bool
names_module(const char *target, const char *m, size_t len)
{
	size_t k = strlen(target);

	if (k == len && memcmp(m, target, k) == 0)
		return true;
	return len > k && m[len - k - 1] == '.' &&
	       memcmp(m + len - k, target, k) == 0;
}

/* The rank of module m: a rank_pattern key naming it the same way, else
 * r. -1 when a key is a regex (metacharacters): not evaluated. */
static int64_t
rank_of(const struct qa_adapter *a, const char *m, size_t len)
{
	uint32_t i;

	for (i = 0; i < a->n_rank; i++) {
		if (strpbrk(a->rank_keys[i], "^$*+?()[]{}|\\"))
			return -1;
		if (names_module(a->rank_keys[i], m, len))
			return a->rank_values[i];
	}
	return a->r;
}

/* The base model's logical [out, in] of module m (its qa_module, so a
 * quantized base counts unpacked), false when it has none. */
static bool
base_shape(const struct qa_inventory *base, const char *m, size_t len,
	   uint64_t *out, uint64_t *in)
{
	uint32_t i;

	for (i = 0; i < base->n_modules; i++) {
		const struct qa_module *x = &base->modules[i];

		if (x->name && strlen(x->name) == len &&
		    memcmp(x->name, m, len) == 0 && x->out && x->in) {
			*out = x->out;
			*in = x->in;
			return true;
		}
	}
	return false;
}

static void
notice(struct qa_inventory *inv, uint32_t n_modules)
{
	const struct qa_adapter *a = &inv->adapter;
	char targets[256] = "", alpha[32] = "?", rank[32] = "?";
	size_t used = 0;
	uint32_t i;

	for (i = 0; i < a->n_targets && used < sizeof(targets); i++)
		used += (size_t)snprintf(targets + used, sizeof(targets) - used,
					 "%s%s", i ? ", " : "", a->targets[i]);
	if (a->target_regex)
		snprintf(targets, sizeof(targets), "regex %s", a->target_regex);
	if (a->alpha >= 0)
		snprintf(alpha, sizeof(alpha), "%g", a->alpha);
	if (a->r >= 0)
		snprintf(rank, sizeof(rank), "%" PRId64, a->r);
	qa_inv_finding(inv, QA2120, a->file, -1, NULL,
		       "PEFT %s: rank %s, alpha %s%s%s, "
		       "%" PRIu32 " adapted module%s (targets %s), base model "
		       "%s; audited: adapter_config.json and the adapter's "
		       "tensor shapes%s%s; not audited: architecture, "
		       "tokenizer, template and fit, which are the base "
		       "model's (%s)",
		       a->peft_type ? a->peft_type : "LORA", rank, alpha,
		       a->use_dora ? ", DoRA" : "",
		       a->use_rslora ? ", rsLoRA" : "", n_modules,
		       n_modules == 1 ? "" : "s", targets[0] ? targets : "none",
		       a->base_model ? a->base_model : "not named",
		       a->base ? " against the base model " : "",
		       a->base ? a->base_path : "",
		       a->base ? "audit it on its own" :
		       "give --base MODEL to check the shapes against it");
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	const struct qa_adapter *a = &inv->adapter;
	uint32_t i, t, n_modules = 0, *hits = NULL;
	size_t p;

	(void)opt;
	if (!a->file)
		return;
	if (a->n_targets)
		hits = calloc(a->n_targets, sizeof(*hits));
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *ta = &inv->tensors[i], *tb;
		const char *name = ta->name;
		size_t n = strlen(name), len;
		const char *m;
		int64_t r;

		for (p = 0; p < sizeof(pair_sfx) / sizeof(pair_sfx[0]); p++)
			if (ends_with(name, n, pair_sfx[p].a))
				break;
		if (p == sizeof(pair_sfx) / sizeof(pair_sfx[0]))
			continue;
		len = n - strlen(pair_sfx[p].a);
		tb = find_tensor(inv, name, len, pair_sfx[p].b);
		m = bare(name);
		len -= (size_t)(m - name);
		n_modules++;
		for (t = 0; hits && t < a->n_targets; t++)
			if (names_module(a->targets[t], m, len))
				hits[t]++;
		if (!tb) {
			qa_inv_finding(inv, QA2122, tfile(inv, ta), -1, ta->name,
				       "%.*s has %s but no %s: PEFT loads "
				       "the pair together", (int)len, m,
				       pair_sfx[p].a + 1, pair_sfx[p].b + 1);
			continue;
		}
		if (ta->n_dims != 2 || tb->n_dims != 2)
			continue;
		r = rank_of(a, m, len);
		if (r >= 0 && ((int64_t)ta->shape[0] != r ||
			       (int64_t)tb->shape[1] != r))
			qa_inv_finding(inv, QA2121, tfile(inv, ta), -1, ta->name,
				       "%.*s: %s is [%" PRIu64 " x %" PRIu64
				       "] and %s [%" PRIu64 " x %" PRIu64 "], "
				       "but the config gives rank %" PRId64
				       " (A [r, in], B [out, r])", (int)len, m,
				       pair_sfx[p].a + 1, ta->shape[0],
				       ta->shape[1], pair_sfx[p].b + 1,
				       tb->shape[0], tb->shape[1], r);
		if (a->base) {
			uint64_t bo, bi;
			bool emb = p == 1;
			uint64_t want_in = ta->shape[1], want_out = tb->shape[0];

			if (!base_shape(a->base, m, len, &bo, &bi)) {
				qa_inv_finding(inv, QA2125, tfile(inv, ta), -1,
					       ta->name, "%.*s is adapted but "
					       "the base model %s has no such "
					       "module", (int)len, m,
					       a->base_path);
			} else if (emb ? (bo != want_in || bi != want_out) :
				   (bo != want_out || bi != want_in)) {
				qa_inv_finding(inv, QA2124, tfile(inv, ta), -1,
					       ta->name, "%.*s: the adapter is "
					       "for [out %" PRIu64 ", in %" PRIu64
					       "], the base model %s holds [out %"
					       PRIu64 ", in %" PRIu64 "]: it is "
					       "for another model", (int)len, m,
					       emb ? want_in : want_out,
					       emb ? want_out : want_in,
					       a->base_path, emb ? bi : bo,
					       emb ? bo : bi);
			}
		}
	}
	for (t = 0; hits && t < a->n_targets; t++)
		if (!hits[t])
			qa_inv_finding(inv, QA2123, a->file, -1, NULL,
				       "target_modules entry '%s' names none of "
				       "the adapter's %" PRIu32 " modules",
				       a->targets[t], n_modules);
	free(hits);
	notice(inv, n_modules);
}

/* ---- draft heads (QA2126, QA2127) ----------------------------------- */

static const struct qa_tensor *
named(const struct qa_inventory *inv, const char *name)
{
	return find_tensor(inv, name, strlen(name), "");
}

/*
 * EAGLE-3 (vLLM vllm/model_executor/models/llama_eagle3.py): lm_head
 * [draft_vocab, hidden], d2t [draft_vocab] (draft_id_to_target_id),
 * t2d [vocab], fc [hidden, 3 * target_hidden] (LlamaModel.fc: three
 * hidden states of the target), layer 0's q/k/v reading 2 * hidden
 * (embeddings and hidden states concatenated). SafeAILab/EAGLE writes
 * the decoder layer as "midlayer." (renamed to layers.0 on load).
 */
static void
draft_head(struct qa_inventory *inv)
{
	const struct qa_draft_head *d = &inv->draft_head;
	const struct qa_hparams *hp = &inv->hp;
	const struct qa_tensor *d2t = named(inv, "d2t");
	const struct qa_tensor *t2d = named(inv, "t2d");
	const struct qa_tensor *fc = named(inv, "fc.weight");
	const struct qa_tensor *lm = named(inv, "lm_head.weight");
	int64_t th = d->target_hidden > 0 ? d->target_hidden : hp->n_embd;
	/* one target hidden state per aux layer named, three by default
	 * (speculators core.py Eagle3DraftModel: num_aux * hidden_size) */
	int64_t n_fused = d->n_aux > 0 ? (int64_t)d->n_aux : 3;
	char layers[96] = "";
	size_t used = 0;
	uint32_t i;

	if (strcmp(d->kind, "medusa") == 0) {
		qa_inv_finding(inv, QA2126, d->file, -1, NULL,
			       "Medusa: %lld heads "
			       "on the target's last hidden state; audited: "
			       "the tensors' shapes against config.json; not "
			       "audited: the target it needs, tokenizer and "
			       "fit", (long long)d->medusa_heads);
		return;
	}
	if (d->draft_vocab > 0 && d2t &&
	    (d2t->n_dims != 1 || (int64_t)d2t->shape[0] != d->draft_vocab))
		qa_inv_finding(inv, QA2127, tfile(inv, d2t), -1, d2t->name,
			       "d2t has %" PRIu64 " entries, draft_vocab_size "
			       "is %lld: one target id per draft token",
			       d2t->n_dims ? d2t->shape[0] : 0,
			       (long long)d->draft_vocab);
	if (hp->n_vocab > 0 && t2d &&
	    (t2d->n_dims != 1 || (int64_t)t2d->shape[0] != hp->n_vocab))
		qa_inv_finding(inv, QA2127, tfile(inv, t2d), -1, t2d->name,
			       "t2d has %" PRIu64 " entries, vocab_size (the "
			       "target's vocabulary) is %lld",
			       t2d->n_dims ? t2d->shape[0] : 0,
			       (long long)hp->n_vocab);
	if (fc && fc->n_dims == 2 && th > 0 &&
	    ((int64_t)fc->shape[1] != n_fused * th ||
	     (hp->n_embd > 0 && (int64_t)fc->shape[0] != hp->n_embd)))
		qa_inv_finding(inv, QA2127, tfile(inv, fc), -1, fc->name,
			       "fc.weight is [%" PRIu64 " x %" PRIu64 "]; "
			       "EAGLE-3 fuses %lld target hidden states: "
			       "[hidden %lld, %lld x target hidden %lld]",
			       fc->shape[0], fc->shape[1], (long long)n_fused,
			       (long long)hp->n_embd, (long long)n_fused,
			       (long long)th);
	for (i = 0; i < d->n_aux && used < sizeof(layers); i++)
		used += (size_t)snprintf(layers + used, sizeof(layers) - used,
					 "%s%lld", i ? ", " : "",
					 (long long)d->aux_layers[i]);
	qa_inv_finding(inv, QA2126, d->file, -1, NULL,
		       "EAGLE-3: it drafts %lld "
		       "tokens of a target vocabulary of %lld (d2t %s, t2d "
		       "%s), lm_head %s, for a target of hidden size %lld; "
		       "it reads the target's layers %s; audited: the "
		       "tensors' shapes against config.json; not audited: "
		       "the target model itself and tokenizer (size the "
		       "pair with `fit TARGET --draft HEAD --engine vllm`)",
		       (long long)d->draft_vocab, (long long)hp->n_vocab,
		       d2t ? "present" : "absent", t2d ? "present" : "absent",
		       lm ? "present" : "absent (the target's is used)",
		       (long long)th, layers[0] ? layers :
		       "2, L/2 and L-3 (vLLM's default, L the target's layer "
		       "count: eagle_aux_hidden_state_layer_ids is not set)");
}

/*
 * A GGUF LoRA against its base, as llama.cpp's loader checks it
 * (src/llama-adapter.cpp llama_adapter_lora_init_impl): the same
 * general.architecture; for each "<name>.lora_a" / ".lora_b" pair a base
 * tensor "<name>" with ne[0] = lora_a ne[0] and ne[1] = lora_b ne[1].
 */
static void
gguf_lora_base(struct qa_inventory *inv)
{
	const struct qa_inventory *base = inv->adapter.base;
	const struct qa_kv *akv = qa_inv_kv(inv, QA_GGUF_GENERAL_ARCHITECTURE);
	const char *arch = akv && akv->value.type == QA_V_STRING ?
			   akv->value.v.str.s : NULL;
	const char *where = inv->n_files ? inv->files[0].path : inv->path;
	uint32_t i, bad = 0, pairs = 0;

	if (arch && base->hp.arch && strcmp(arch, base->hp.arch) != 0) {
		qa_inv_finding(inv, QA1807, where, -1, NULL,
			       "the adapter is for %s but its base model %s is "
			       "%s: llama.cpp refuses it (\"model arch and LoRA "
			       "arch mismatch\")", arch, inv->adapter.base_path,
			       base->hp.arch);
		return;
	}
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *a = &inv->tensors[i], *b, *t;
		const char *name = a->name;
		size_t n = strlen(name), len;
		uint32_t k;

		if (!ends_with(name, n, ".lora_a"))
			continue;
		len = n - strlen(".lora_a");
		b = find_tensor(inv, name, len, ".lora_b");
		if (!b)
			continue;	/* gguf_kind.c's QA1036 */
		pairs++;
		for (t = NULL, k = 0; k < base->n_tensors && !t; k++)
			if (strlen(base->tensors[k].name) == len &&
			    memcmp(base->tensors[k].name, name, len) == 0)
				t = &base->tensors[k];
		if (!t) {
			if (bad++ < 3)
				qa_inv_finding(inv, QA1807, tfile(inv, a), -1,
					       a->name, "'%.*s' is adapted but "
					       "the base model %s has no such "
					       "tensor: llama.cpp refuses the "
					       "adapter", (int)len, name,
					       inv->adapter.base_path);
			continue;
		}
		if (a->n_dims < 2 || b->n_dims < 2 || t->n_dims < 2 ||
		    t->shape[0] != a->shape[0] || t->shape[1] != b->shape[1]) {
			if (bad++ < 3)
				qa_inv_finding(inv, QA1807, tfile(inv, a), -1,
					       a->name, "'%.*s' is [%" PRIu64
					       ", %" PRIu64 "] in the base model "
					       "but the adapter's pair gives "
					       "[%" PRIu64 ", %" PRIu64 "] "
					       "(lora_a ne[0], lora_b ne[1]): "
					       "llama.cpp refuses it (\"tensor "
					       "has incorrect shape\")", (int)len,
					       name, t->shape[0],
					       t->n_dims > 1 ? t->shape[1] : 0,
					       a->shape[0],
					       b->n_dims > 1 ? b->shape[1] : 0);
		}
	}
	if (bad > 3)
		qa_inv_finding(inv, QA1807, where, -1, NULL,
			       "%" PRIu32 " of the adapter's %" PRIu32 " pairs "
			       "do not fit the base model %s in all", bad,
			       pairs, inv->adapter.base_path);
}

static void
run_all(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	run(inv, opt);
	if (inv->kind == QA_KIND_GGUF && inv->model_kind == QA_MKIND_ADAPTER &&
	    inv->adapter.base)
		gguf_lora_base(inv);
	if (inv->draft_head.kind)
		draft_head(inv);
}

const struct qa_check qa_check_adapter = { "adapter", run_all, true };
