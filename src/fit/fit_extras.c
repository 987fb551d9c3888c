/* SPDX-License-Identifier: MIT */
/*
 * The second model of a llama.cpp speculative pair: `fit TARGET --draft
 * DRAFT` (llama.cpp -md / --spec-draft-model). docs/fit.md "Speculative
 * pair" has the formulas; the line numbers are of the llama.cpp tree
 * docs/fit.md names (unslothai/llama.cpp d32676d77).
 *
 * llama-server makes the draft's parameters from the target's
 * (common/speculative.cpp l.2274-2297 common_base_params_to_speculative):
 * the same common_params, so the same -c (0: the draft model's own
 * trained context, llama-context.cpp l.285), -np, -kvu, -b, -ub and -fa,
 * the same tensor split (params.tensor_split, which the target's --fit
 * writes: common/common.cpp l.1242-1243), with its own devices (-devd,
 * default all), its own -ngld (default -1 = every layer,
 * llama-model.cpp l.1711), its own cache types (-ctkd/-ctvd, F16 by
 * default: common/common.h l.340-341), and n_outputs_max = -np
 * (l.2294). It is loaded after the target's context exists
 * (tools/server/server-context.cpp l.1219-1236), so without a -ts its
 * layers are split by the free memory the target left
 * (llama-model.cpp l.1286-1302). The draft is a model like any other:
 * its weights, KV and compute buffer come from qa_fit_llamacpp_ex with
 * those options.
 *
 * Compatibility (common/speculative.cpp l.65-128
 * common_speculative_are_compatible, thrown at l.237-244): the same
 * vocabulary type, the same add_bos (and BOS id when added), add_eos
 * (and EOS id), vocabulary sizes within SPEC_VOCAB_MAX_SIZE_DIFFERENCE
 * = 128 (l.28), and every token text equal from id
 * SPEC_VOCAB_CHECK_START_TOKEN_ID = 5 (l.29) to the smaller size.
 *
 * Decode: a pass drafts n tokens (n forward passes of the draft) and
 * verifies n + 1 in one pass of the target; it yields
 * E = (1 - a^(n+1)) / (1 - a) tokens for a per-token acceptance a
 * (Leviathan et al. 2023, arXiv:2211.17192, eq. 1).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gguf_keys.h"
#include "core/gguf_tokens.h"
#include "core/arena.h"
#include "core/ckd.h"
#include "core/inventory.h"
#include "core/source.h"
#include "fit/decode.h"
#include "fit/fit.h"

#define MIB ((double)(1u << 20))
/* common/speculative.cpp l.28-29 */
#define SPEC_VOCAB_MAX_SIZE_DIFFERENCE 128
#define SPEC_VOCAB_CHECK_START_TOKEN_ID 5
/* common/common.h l.325: common_params_speculative_draft.n_max */
#define DRAFT_N_MAX_DEFAULT 3
/* Longest token text compared byte for byte (longer ones compare by
 * length and their first bytes). */
#define TOKEN_CMP_MAX 4096

/* ---- vocabulary ------------------------------------------------------- */

/* llama-vocab.cpp l.1934-2104: tokenizer.ggml.model -> vocab type, with
 * the type's default BOS/EOS ids and add flags (l.2378-2396; a key in
 * the file overrides them, l.2560-2563). */
struct vocab_kind {
	const char *model;
	int type;		/* LLAMA_VOCAB_TYPE_* */
	int64_t bos, eos;
	bool add_bos, add_eos;
};

static const struct vocab_kind vocab_kinds[] = {
	{ "no_vocab", 0, -1, -1, false, false },
	{ "none", 0, -1, -1, false, false },
	{ "llama", 1, 1, 2, true, false },	/* SPM */
	{ "bert", 3, 101, -1, true, false },	/* WPM */
	{ "gpt2", 2, 11, 11, false, false },	/* BPE */
	{ "t5", 4, -1, 1, false, true },	/* UGM */
	{ "rwkv", 5, -1, -1, false, false },
	{ "plamo2", 6, 1, 2, false, false },
};

struct vocab_info {
	const char *model;	/* tokenizer.ggml.model, NULL absent */
	const struct vocab_kind *kind;
	int64_t n;		/* tokens, -1 unknown */
	int64_t bos, eos;
	bool add_bos, add_eos;
};

static const char *
kv_str(const struct qa_inventory *inv, const char *key)
{
	const struct qa_kv *kv = qa_inv_kv(inv, key);

	return kv && kv->value.type == QA_V_STRING ? kv->value.v.str.s : NULL;
}

static void
vocab_read(const struct qa_inventory *inv, struct vocab_info *v)
{
	const struct qa_kv *kv;
	int64_t x;
	size_t i;

	memset(v, 0, sizeof(*v));
	v->model = kv_str(inv, QA_GGUF_TOKENIZER_MODEL);
	v->bos = v->eos = -1;
	for (i = 0; v->model && i < sizeof(vocab_kinds) /
	     sizeof(vocab_kinds[0]); i++)
		if (strcmp(v->model, vocab_kinds[i].model) == 0)
			v->kind = &vocab_kinds[i];
	if (v->kind) {
		v->bos = v->kind->bos;
		v->eos = v->kind->eos;
		v->add_bos = v->kind->add_bos;
		v->add_eos = v->kind->add_eos;
	}
	kv = qa_inv_kv(inv, QA_GGUF_TOKENIZER_BOS_ID);
	if (kv && qa_value_as_int(&kv->value, &x))
		v->bos = x;
	kv = qa_inv_kv(inv, QA_GGUF_TOKENIZER_EOS_ID);
	if (kv && qa_value_as_int(&kv->value, &x))
		v->eos = x;
	kv = qa_inv_kv(inv, QA_GGUF_TOKENIZER_ADD_BOS);
	if (kv && kv->value.type == QA_V_BOOL)
		v->add_bos = kv->value.v.u != 0;
	kv = qa_inv_kv(inv, QA_GGUF_TOKENIZER_ADD_EOS);
	if (kv && kv->value.type == QA_V_BOOL)
		v->add_eos = kv->value.v.u != 0;
	kv = qa_inv_kv(inv, QA_GGUF_TOKENIZER_LIST);
	v->n = kv && kv->value.type == QA_V_ARRAY &&
	       kv->value.v.arr.count <= INT64_MAX ?
	       (int64_t)kv->value.v.arr.count : -1;
}

/*
 * The first token id >= 5 whose text differs (-1 none, -2 when a file
 * could not be read).
 */
static int64_t
first_token_mismatch(const struct qa_inventory *a,
		     const struct qa_inventory *b, int64_t n)
{
	struct tokens_pair {
		struct qa_gguf_tokens a, b;
		char sa[TOKEN_CMP_MAX], sb[TOKEN_CMP_MAX];
	} *p = calloc(1, sizeof(*p));
	uint64_t la, lb;
	int64_t i, bad = -1;

	if (!p)
		return -2;
	if (!qa_gguf_tokens_open(&p->a, a) || !qa_gguf_tokens_open(&p->b, b)) {
		bad = -2;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!qa_gguf_tokens_next(&p->a, p->sa, TOKEN_CMP_MAX, &la) ||
		    !qa_gguf_tokens_next(&p->b, p->sb, TOKEN_CMP_MAX, &lb)) {
			bad = -2;
			break;
		}
		if (i < SPEC_VOCAB_CHECK_START_TOKEN_ID)
			continue;
		if (la != lb || memcmp(p->sa, p->sb,
				       (size_t)(la < TOKEN_CMP_MAX ?
						la : TOKEN_CMP_MAX))) {
			bad = i;
			break;
		}
	}
out:
	qa_gguf_tokens_close(&p->a);
	qa_gguf_tokens_close(&p->b);
	free(p);
	return bad;
}

/* llama.cpp's verdict on the pair, or NULL when compatible. */
static const char *
incompatibility(struct qa_arena *ar, const struct qa_inventory *t,
		const struct qa_inventory *d)
{
	struct vocab_info vt, vd;
	int64_t diff, bad;

	vocab_read(t, &vt);
	vocab_read(d, &vd);
	if (!vt.model || !vd.model || vt.n < 0 || vd.n < 0)
		return qa_arena_printf(ar, "the %s has no vocabulary "
				       "(tokenizer.ggml.model, "
				       "tokenizer.ggml.tokens), which "
				       "llama.cpp needs to pair the models",
				       !vt.model || vt.n < 0 ? "target" :
				       "draft");
	if (vt.kind && vd.kind ? vt.kind->type != vd.kind->type :
	    strcmp(vt.model, vd.model) != 0)
		return qa_arena_printf(ar, "draft model vocab type must match "
				       "target model: the draft's tokenizer is "
				       "'%s', the target's '%s'", vd.model,
				       vt.model);
	if (vt.add_bos != vd.add_bos || (vt.add_bos && vt.bos != vd.bos))
		return qa_arena_printf(ar, "draft model bos tokens must match "
				       "target model: add %d - %d, id %" PRId64
				       " - %" PRId64, vt.add_bos, vd.add_bos,
				       vt.bos, vd.bos);
	if (vt.add_eos != vd.add_eos || (vt.add_eos && vt.eos != vd.eos))
		return qa_arena_printf(ar, "draft model eos tokens must match "
				       "target model: add %d - %d, id %" PRId64
				       " - %" PRId64, vt.add_eos, vd.add_eos,
				       vt.eos, vd.eos);
	diff = vt.n > vd.n ? vt.n - vd.n : vd.n - vt.n;
	if (diff > SPEC_VOCAB_MAX_SIZE_DIFFERENCE)
		return qa_arena_printf(ar, "target vocab size %" PRId64 " does "
				       "not match draft vocab size %" PRId64
				       " - difference %" PRId64 ", max "
				       "allowed %d", vt.n, vd.n, diff,
				       SPEC_VOCAB_MAX_SIZE_DIFFERENCE);
	bad = first_token_mismatch(t, d, vt.n < vd.n ? vt.n : vd.n);
	if (bad == -2)
		return qa_arena_printf(ar, "the token texts could not be read "
				       "to compare them");
	if (bad >= 0)
		return qa_arena_printf(ar, "token %" PRId64 " content differs "
				       "between target and draft", bad);
	return NULL;
}

/* ---- sizing ----------------------------------------------------------- */

static void
add_note(struct qa_fit_result *r, const char *note)
{
	if (note && r->n_notes < sizeof(r->notes) / sizeof(r->notes[0]))
		r->notes[r->n_notes++] = note;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	uint64_t s;

	return qa_ckd_add(&s, a, b) ? UINT64_MAX : s;
}

int
qa_fit_pair_llamacpp(struct qa_inventory *target,
		     const struct qa_fit_options *opt,
		     struct qa_fit_result *r, char *err, size_t errlen)
{
	const struct qa_inventory *d = opt->draft;
	struct qa_arena *ar = &target->arena;
	struct qa_fit_options o = *opt;
	struct qa_fit_result *dr = malloc(sizeof(*dr));
	struct qa_fit_llamacpp_detail det;
	struct qa_fit_pair *p = &r->draft;
	char why[512];
	bool fits = true, tight = false, refused = false, bw = true;
	double t_target, t_draft;
	size_t j, i;
	int n_seq = opt->parallel > 0 ? opt->parallel : 1;

	if (!d || !dr) {
		free(dr);
		snprintf(err, errlen, d ? "out of memory" : "no draft model");
		return -1;
	}
	/* An MTP sidecar (convert_hf_to_gguf.py --mtp: the nextn blocks
	 * only) is not a -md model: llama.cpp finds it beside the model and
	 * loads it as a draft-mtp context (common/arg.cpp l.546, l.564-634)
	 * whose cache holds its nextn blocks alone. Sizing it as a model
	 * would count caches for trunk blocks it does not have, so it is
	 * named instead. */
	if (d->mtp.draft_only) {
		free(dr);
		snprintf(err, errlen, "%s is an MTP sidecar (the %s nextn "
			 "block%s only): llama.cpp loads it as a draft-mtp "
			 "context, which fit does not size from a separate "
			 "file yet; a GGUF that bundles the MTP layers is sized "
			 "with --mtp on", d->path, d->mtp.present == 1 ? "one" :
			 "its", d->mtp.present == 1 ? "" : "s");
		return -1;
	}
	memset(p, 0, sizeof(*p));
	memset(dr, 0, sizeof(*dr));
	o.draft = NULL;
	o.draft_path = NULL;
	o.mtp = false;
	o.num_speculative_tokens = 0;
	o.kv_k = o.kv_v = opt->kv_draft ? opt->kv_draft : "f16";
	o.given |= QA_FIT_GIVEN_KV | QA_FIT_GIVEN_MARGIN;
	/* -c as given (0: the draft's trained context); a searched target
	 * context is the -c it runs with. */
	o.ctx = opt->ctx_draft > 0 ? opt->ctx_draft :
		opt->ctx > 0 ? opt->ctx : opt->ctx < 0 ? r->context : 0;
	o.n_outputs_max = n_seq;
	o.margin_bytes = 0;	/* the margin is the target's, once */
	if (r->n_devices > 1 && opt->gpus.n > 1) {
		/* params.tensor_split: the user's, or the one --fit chose
		 * (layers per device, the output with its device), else the
		 * free memory the target left. */
		o.given |= QA_FIT_GIVEN_TS;
		o.n_tensor_split = r->n_devices;
		for (j = 0; j < r->n_devices && j < QA_GPU_MAX; j++) {
			const struct qa_fit_device *t = &r->devices[j];
			uint64_t used = sat_add(sat_add(t->weights_bytes,
							t->kv_bytes),
						sat_add(t->recurrent_bytes,
							t->compute_bytes));

			if (opt->given & QA_FIT_GIVEN_TS)
				o.tensor_split[j] = opt->tensor_split[j];
			else if (r->placement.chosen)
				o.tensor_split[j] =
					r->placement.tensor_split[j] +
					(t->has_output ? 1 : 0);
			else
				o.tensor_split[j] = t->usable_bytes > used ?
					(double)(t->usable_bytes - used) : 0;
		}
	}
	if (qa_fit_llamacpp_ex(d, &o, dr, &det, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "the draft %s cannot be sized: %s",
			 d->path, why);
		free(dr);
		return -1;
	}
	p->present = true;
	p->method = "draft_model";
	p->path = qa_arena_strdup(ar, opt->draft_path ? opt->draft_path :
				  d->path);
	p->context = dr->context;
	p->kv_type = qa_arena_strdup(ar, dr->kv_type_k ? dr->kv_type_k :
				     "f16");
	p->n_draft = opt->num_speculative_tokens > 0 ?
		     opt->num_speculative_tokens : DRAFT_N_MAX_DEFAULT;
	p->n_outputs_max = det.n_out;
	/* llama-server: n_outputs_max = min(n_batch, -np (1 + n_max))
	 * (tools/server/server-context.cpp l.42-55): the verification
	 * logits go to the host output buffer (llama-context.cpp
	 * output_reserve l.2093); the compute buffer, reserved for n_ubatch
	 * tokens, already holds a batch of -np (n + 1) tokens. */
	p->target_n_outputs_max = (int64_t)n_seq * (1 + p->n_draft);
	if (p->target_n_outputs_max > (opt->batch > 0 ? opt->batch : 2048))
		p->target_n_outputs_max = opt->batch > 0 ? opt->batch : 2048;
	if (target->hp.n_vocab > 0)
		p->target_output_host_bytes = (uint64_t)target->hp.n_vocab *
			(uint64_t)p->target_n_outputs_max * 4;
	p->host_bytes = dr->host_bytes;
	r->host_bytes = sat_add(r->host_bytes, dr->host_bytes);
	for (j = 0; j < r->n_devices && j < dr->n_devices &&
	     j < QA_GPU_MAX; j++) {
		struct qa_fit_device *t = &r->devices[j];
		const struct qa_fit_device *x = &dr->devices[j];
		uint64_t add = sat_add(sat_add(x->weights_bytes, x->kv_bytes),
				       sat_add(x->recurrent_bytes,
					       x->compute_bytes));

		p->devices[j].weights_bytes = x->weights_bytes;
		p->devices[j].kv_bytes = x->kv_bytes;
		p->devices[j].recurrent_bytes = x->recurrent_bytes;
		p->devices[j].compute_bytes = x->compute_bytes;
		t->weights_bytes = sat_add(t->weights_bytes, x->weights_bytes);
		t->kv_bytes = sat_add(t->kv_bytes, x->kv_bytes);
		t->recurrent_bytes = sat_add(t->recurrent_bytes,
					     x->recurrent_bytes);
		t->compute_bytes = sat_add(t->compute_bytes, x->compute_bytes);
		t->free_bytes = add > (uint64_t)INT64_MAX ? INT64_MIN :
				t->free_bytes - (int64_t)add;
		r->totals_weights = sat_add(r->totals_weights,
					    x->weights_bytes);
		r->totals_kv = sat_add(r->totals_kv, x->kv_bytes);
		r->totals_recurrent = sat_add(r->totals_recurrent,
					      x->recurrent_bytes);
		r->totals_compute = sat_add(r->totals_compute,
					    x->compute_bytes);
		if (t->free_bytes < 0)
			fits = false;
		else if ((uint64_t)t->free_bytes < t->usable_bytes / 10 ||
			 (uint64_t)t->free_bytes < t->compute_bytes / 7)
			tight = true;
	}
	p->incompatible = incompatibility(ar, target, d);
	p->compatible = p->incompatible == NULL;
	for (i = 0; i < r->n_notes; i++)
		if (r->notes[i] && strstr(r->notes[i], "refuse"))
			refused = true;
	if (!p->compatible)
		add_note(r, qa_arena_printf(ar, "llama.cpp refuses the draft "
			 "(common_speculative_are_compatible, "
			 "common/speculative.cpp): %s", p->incompatible));
	for (i = 0; i < dr->n_notes; i++)
		if (dr->notes[i] && strstr(dr->notes[i], "refuses")) {
			add_note(r, qa_arena_printf(ar, "for the draft: %s",
						    dr->notes[i]));
			refused = true;
		}
	if (opt->gpus.n == 0)
		tight = false;
	if (!p->compatible || refused || !fits ||
	    strcmp(r->verdict ? r->verdict : "", "does-not-fit") == 0)
		r->verdict = "does-not-fit";
	else if (tight || strcmp(r->verdict, "tight") == 0)
		r->verdict = "tight";
	else
		r->verdict = "fits";
	/* Decode with the draft: one pass is n draft steps and one target
	 * pass, each at most its bytes over the bandwidth. */
	p->tokens_per_pass = qa_draft_tokens_per_pass(p->n_draft);
	p->acceptance_source = QA_DRAFT_ACCEPTANCE_SOURCE;
	bw = r->decode_tokens_per_s_max > 0 && dr->decode_tokens_per_s_max > 0;
	if (bw) {
		t_target = 1.0 / r->decode_tokens_per_s_max;
		t_draft = 1.0 / dr->decode_tokens_per_s_max;
		p->decode_tokens_per_s_max = p->tokens_per_pass /
			(t_target + p->n_draft * t_draft);
	}
	add_note(r, qa_arena_printf(ar, "draft %s: %s context of %" PRId64
		 " cells (KV %s, -ctkd/-ctvd), %" PRId64 " outputs (-np), "
		 "placed as llama.cpp's common_base_params_to_speculative "
		 "makes it; every device figure above includes it", p->path,
		 opt->ctx_draft > 0 ? "--ctx-draft" : "a", p->context,
		 p->kv_type, p->n_outputs_max));
	(void)MIB;
	free(dr);
	return 0;
}

/* Adds add bytes of weights to device j, and updates its free memory
 * and the totals; false when the device no longer fits. */
static bool
device_add_weights(struct qa_fit_result *r, size_t j, uint64_t add,
		   bool *tight)
{
	struct qa_fit_device *t = &r->devices[j];

	t->weights_bytes = sat_add(t->weights_bytes, add);
	t->free_bytes = add > (uint64_t)INT64_MAX ? INT64_MIN :
			t->free_bytes - (int64_t)add;
	r->totals_weights = sat_add(r->totals_weights, add);
	if (t->free_bytes < 0)
		return false;
	if ((uint64_t)t->free_bytes < t->usable_bytes / 10 ||
	    (uint64_t)t->free_bytes < t->compute_bytes / 7)
		*tight = true;
	return true;
}

static bool
ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && strcmp(s + n - k, suf) == 0;
}

/*
 * llama.cpp --lora (src/llama-adapter.cpp llama_adapter_lora_init_impl,
 * d32676d7 l.265-392): the adapter's tensors pair as <base>.lora_a /
 * <base>.lora_b (a "_norm.weight" is skipped), each pair is duplicated
 * into a context of the buffer type of the model tensor it adapts
 * (ggml_backend_buffer_get_type(model_tensor->buffer)), and each
 * context is allocated as one buffer (ggml_backend_alloc_ctx_tensors_
 * from_buft: every tensor padded to the buffer type's alignment, 32
 * bytes on the CPU, 128 on CUDA). The base tensors' placement is the
 * target's: layer N where the fit put it, token_embd (and a layer kept
 * on the host) in host RAM, output with the output device.
 */
/* The target's tensor named name[0..len), or NULL. */
static const struct qa_tensor *
named_len(const struct qa_inventory *inv, const char *name, size_t len)
{
	uint32_t i;

	for (i = 0; i < inv->n_tensors; i++)
		if (strncmp(inv->tensors[i].name, name, len) == 0 &&
		    inv->tensors[i].name[len] == '\0')
			return &inv->tensors[i];
	return NULL;
}

/* What llama.cpp checks before it loads an adapter
 * (src/llama-adapter.cpp llama_adapter_lora_init_impl, d32676d7): the
 * architecture (l.210), each pair complete (l.326), its base tensor in
 * the model (l.332) and the shapes: A's ne0 and B's ne1 those of the
 * base, B's ne0 A's ne1 (l.355-367; token_embd's pair is flipped).
 * Returns -1 with llama.cpp's reason in err. */
static int
lora_refusal(const struct qa_inventory *target, const struct qa_inventory *l,
	     char *err, size_t errlen)
{
	const char *ta = target->hp.arch_raw, *la = l->hp.arch_raw;
	const char *first = NULL;	/* the failing pair llama.cpp meets
					 * first: its std::map is in name
					 * order */
	size_t first_len = 0;
	char why[512];
	uint32_t i, k;

	if (ta && la && strcmp(ta, la) != 0) {
		snprintf(err, errlen, "llama.cpp refuses --lora %s: \"model "
			 "arch and LoRA arch mismatch\" (%s vs %s, "
			 "llama-adapter.cpp l.210)", l->path, la, ta);
		return -1;
	}
	for (i = 0; i < l->n_tensors; i++) {
		const struct qa_tensor *a = &l->tensors[i], *b = NULL, *base;
		size_t len;
		bool embd;

		if (!ends_with(a->name, ".lora_a"))
			continue;
		len = strlen(a->name) - 7;
		if (first && !(memcmp(a->name, first, len < first_len ? len :
				      first_len) < 0 ||
			       (memcmp(a->name, first, len < first_len ? len :
				       first_len) == 0 && len < first_len)))
			continue;	/* not before the one found */
		for (k = 0; k < l->n_tensors && !b; k++)
			if (strncmp(l->tensors[k].name, a->name, len) == 0 &&
			    strcmp(l->tensors[k].name + len, ".lora_b") == 0)
				b = &l->tensors[k];
		base = named_len(target, a->name, len);
		embd = strncmp(a->name, "token_embd.", 11) == 0;
		if (!b)
			snprintf(why, sizeof(why), "\"LoRA tensor pair for "
				 "'%.*s' is missing one component\" "
				 "(llama-adapter.cpp l.326)", (int)len,
				 a->name);
		else if (!base)
			snprintf(why, sizeof(why), "\"LoRA tensor '%.*s' does "
				 "not exist in base model (hint: maybe wrong "
				 "base model?)\" (llama-adapter.cpp l.332)",
				 (int)len, a->name);
		else if (a->n_dims < 2 || b->n_dims < 2 || base->n_dims < 2)
			continue;
		else if (embd ? base->shape[0] != b->shape[1] ||
				base->shape[1] != a->shape[1] :
			 base->shape[0] != a->shape[0] ||
			 base->shape[1] != b->shape[1])
			snprintf(why, sizeof(why), "\"tensor '%.*s' has "
				 "incorrect shape (hint: maybe wrong base "
				 "model?)\" (the base is [%" PRIu64 ", %" PRIu64
				 "], the pair [%" PRIu64 ", %" PRIu64 "] x [%"
				 PRIu64 ", %" PRIu64 "]; llama-adapter.cpp "
				 "l.355-363)", (int)len, a->name,
				 base->shape[0], base->shape[1], a->shape[0],
				 a->shape[1], b->shape[0], b->shape[1]);
		else if (!embd && a->shape[1] != b->shape[0])
			snprintf(why, sizeof(why), "\"lora_a tensor is not "
				 "transposed\" ('%s', llama-adapter.cpp "
				 "l.365-367)", a->name);
		else
			continue;
		first = a->name;
		first_len = len;
		snprintf(err, errlen, "llama.cpp refuses --lora %s: %s",
			 l->path, why);
	}
	return first ? -1 : 0;
}

/* One adapter's tensors, each padded in the buffer of the base tensor
 * it adapts; -1 with err when llama.cpp would refuse it. */
static int
lora_place(const struct qa_inventory *l, const struct qa_fit_result *r,
	   struct qa_fit_lora_one *a, uint64_t *total, char *err,
	   size_t errlen)
{
	uint32_t i;
	size_t j;

	for (i = 0; i < l->n_tensors; i++) {
		const struct qa_tensor *t = &l->tensors[i];
		bool host = false;
		size_t dev = 0;
		uint64_t align, bytes;

		if (ends_with(t->name, "_norm.weight"))
			continue;
		if (!ends_with(t->name, ".lora_a") &&
		    !ends_with(t->name, ".lora_b")) {
			snprintf(err, errlen, "the adapter %s: tensor '%s' is "
				 "no lora_a / lora_b (llama.cpp refuses it: "
				 "\"has unexpected suffix\")", l->path,
				 t->name);
			return -1;
		}
		if (ends_with(t->name, ".lora_a"))
			a->pairs++;
		if (strncmp(t->name, "token_embd.", 11) == 0) {
			host = true;
		} else if (t->layer >= 0) {
			host = true;	/* unless a device holds the layer */
			for (j = 0; j < r->n_devices && j < QA_GPU_MAX; j++)
				if (r->devices[j].first_layer >= 0 &&
				    t->layer >= r->devices[j].first_layer &&
				    t->layer <= r->devices[j].last_layer) {
					host = false;
					dev = j;
				}
		} else {
			for (j = 0; j < r->n_devices && j < QA_GPU_MAX; j++)
				if (r->devices[j].has_output)
					dev = j;
		}
		/* a CPU device (a calibration run, --gpus none) aligns as
		 * the host does */
		align = host || r->n_devices == 0 ||
			strcmp(r->devices[dev].name, "CPU") == 0 ? 32 : 128;
		bytes = t->bytes + (align - t->bytes % align) % align;
		*total = sat_add(*total, bytes);
		if (host || r->n_devices == 0)
			a->host_bytes = sat_add(a->host_bytes, bytes);
		else
			a->device_bytes[dev] = sat_add(a->device_bytes[dev],
						       bytes);
	}
	return 0;
}

int
qa_fit_lora_llamacpp(struct qa_inventory *target,
		     const struct qa_fit_options *opt,
		     struct qa_fit_result *r, char *err, size_t errlen)
{
	struct qa_fit_lora *p = &r->lora;
	bool fits = true, tight = false;
	uint64_t total = 0;
	unsigned k;
	size_t j;

	memset(p, 0, sizeof(*p));
	if (opt->n_lora == 0) {
		snprintf(err, errlen, "no LoRA adapter");
		return -1;
	}
	/* each adapter is its own buffer per buffer type
	 * (llama_adapter_lora_init_impl once per --lora) */
	for (k = 0; k < opt->n_lora && k < QA_FIT_MAX_LORA; k++) {
		const struct qa_inventory *l = opt->loras[k];
		struct qa_fit_lora_one *a = &p->adapters[k];

		if (!l) {
			snprintf(err, errlen, "the adapter %s was not loaded",
				 opt->lora_paths[k]);
			return -1;
		}
		if (lora_refusal(target, l, err, errlen) != 0 ||
		    lora_place(l, r, a, &total, err, errlen) != 0)
			return -1;
		a->path = qa_arena_strdup(&target->arena, opt->lora_paths[k] ?
					  opt->lora_paths[k] : l->path);
		p->pairs += a->pairs;
		p->host_bytes = sat_add(p->host_bytes, a->host_bytes);
		for (j = 0; j < QA_GPU_MAX; j++)
			p->device_bytes[j] = sat_add(p->device_bytes[j],
						     a->device_bytes[j]);
		p->n_adapters++;
	}
	p->present = true;
	p->path = p->adapters[0].path;
	for (j = 0; j < r->n_devices && j < QA_GPU_MAX; j++)
		if (p->device_bytes[j] &&
		    !device_add_weights(r, j, p->device_bytes[j], &tight))
			fits = false;
	r->host_bytes = sat_add(r->host_bytes, p->host_bytes);
	if (opt->gpus.n == 0)
		tight = false;
	if (!fits || strcmp(r->verdict ? r->verdict : "",
			    "does-not-fit") == 0)
		r->verdict = "does-not-fit";
	else if (tight || strcmp(r->verdict, "tight") == 0)
		r->verdict = "tight";
	add_note(r, qa_arena_printf(&target->arena, "LoRA %s%s: %u pairs, "
		 "%.2f MiB, each on the device of the tensor it adapts "
		 "(llama-adapter.cpp llama_adapter_lora_init_impl); every "
		 "device figure above includes it; the compute buffer is "
		 "reserved again with the adapters' nodes "
		 "(llama-context.cpp set_adapters_lora: sched_need_reserve) "
		 "and is taken as unchanged (as measured on llama.cpp's CPU "
		 "backend with one and two adapters: tests/data/llamacpp-runs/"
		 "lora)", p->path, p->n_adapters > 1 ? qa_arena_printf(
		 &target->arena, " and %u more", p->n_adapters - 1) : "",
		 p->pairs, (double)total / (1024.0 * 1024.0)));
	return 0;
}
