/* SPDX-License-Identifier: MIT */
/*
 * Tensor-parallel weight placement and the registry lookup shared by the
 * vLLM and SGLang models (fit_serve.h). The per-role rules restate the
 * layer classes both engines use; where a rule differs between them a
 * comment says so (none do for the roles quantaudit classifies).
 */
#include "fit/fit_serve.h"

#include <stdio.h>
#include <string.h>

#include "core/ckd.h"
#include "core/inventory.h"
#include "core/engines.h"
#include "fit/fit.h"
#include "fit/gpuspec.h"

void
qa_serve_tp_init(struct qa_serve_tp *w, const struct qa_hparams *hp,
		 uint64_t tp)
{
	uint64_t vpad;

	memset(w, 0, sizeof(*w));
	w->tp = tp ? tp : 1;
	w->hq = hp->n_head > 0 ? (uint64_t)hp->n_head : 0;
	w->hkv = hp->n_head_kv > 0 ? (uint64_t)hp->n_head_kv : w->hq;
	w->vocab = hp->n_vocab > 0 ? (uint64_t)hp->n_vocab : 0;
	vpad = qa_sat_mul(qa_ceil_div(w->vocab, QA_SERVE_VOCAB_PAD), QA_SERVE_VOCAB_PAD);
	w->vocab_rank = qa_ceil_div(vpad, w->tp);
}

uint64_t
qa_serve_rank_bytes(const struct qa_serve_tp *w, const struct qa_tensor *t)
{
	uint64_t b = t->bytes, kvdiv;
	bool vec = t->n_dims <= 1;

	kvdiv = w->hkv ? (w->hkv < w->tp ? w->hkv : w->tp) : w->tp;
	switch (t->role) {
	case QA_ROLE_EMBED:
	case QA_ROLE_LM_HEAD:
	case QA_ROLE_MTP_EMBED:
	case QA_ROLE_MTP_SHARED_HEAD:
		/* VocabParallelEmbedding / ParallelLMHead: vocab padded to a
		 * multiple of 64, then split by tp. */
		if (vec || !w->vocab)
			return vec ? b : qa_ceil_div(b, w->tp);
		return qa_ceil_div(qa_sat_mul(b, w->vocab_rank), w->vocab);
	case QA_ROLE_ATTN_K:
	case QA_ROLE_ATTN_V:
		/* QKVParallelLinear: KV heads replicated when tp > H_kv
		 * (vllm/model_executor/layers/linear.py, sglang/srt/layers/
		 * linear.py l.977-980 num_kv_head_replicas). */
		return qa_ceil_div(b, kvdiv);
	case QA_ROLE_ATTN_QKV:
		if (w->hq && w->hkv) {
			uint64_t tot = w->hq + 2 * w->hkv;
			uint64_t q = qa_sat_mul(b, w->hq) / tot;

			return qa_sat_add(qa_ceil_div(q, w->tp), qa_ceil_div(b - q, kvdiv));
		}
		return qa_ceil_div(b, w->tp);
	case QA_ROLE_ATTN_O:
	case QA_ROLE_FFN_DOWN:
	case QA_ROLE_EXPERT_DOWN:
	case QA_ROLE_SHARED_EXPERT_DOWN:
	case QA_ROLE_SSM_OUT:
		/* RowParallelLinear: weight split, bias replicated */
		return vec ? b : qa_ceil_div(b, w->tp);
	case QA_ROLE_ATTN_Q:
	case QA_ROLE_ATTN_GATE:
	case QA_ROLE_ATTN_SINKS:
	case QA_ROLE_MLA_Q_B:
	case QA_ROLE_MLA_KV_B:
	case QA_ROLE_MLA_K_B:
	case QA_ROLE_MLA_V_B:
	case QA_ROLE_FFN_GATE:
	case QA_ROLE_FFN_UP:
	case QA_ROLE_FFN_GATE_UP:
	case QA_ROLE_EXPERT_GATE:
	case QA_ROLE_EXPERT_UP:
	case QA_ROLE_EXPERT_GATE_UP:
	case QA_ROLE_SHARED_EXPERT_GATE:
	case QA_ROLE_SHARED_EXPERT_UP:
	case QA_ROLE_SSM_IN:
	case QA_ROLE_SSM_CONV:
	case QA_ROLE_SSM_PARAM:
	case QA_ROLE_GDN_QKV:
	case QA_ROLE_GDN_GATE:
	case QA_ROLE_GDN_BA:
	case QA_ROLE_VISION:
	case QA_ROLE_PROJECTOR:
	case QA_ROLE_AUDIO:
		/* Column-parallel (with their biases) and per-head params;
		 * SSM A/D/dt and norms shard by heads (mamba_mixer2.py);
		 * vision towers are TP-sharded in the engines' encoders. */
		return qa_ceil_div(b, w->tp);
	case QA_ROLE_MLA_Q_A:
	case QA_ROLE_MLA_KV_A:
		/* q_a_proj / kv_a_proj_with_mqa are ReplicatedLinear in
		 * vLLM's deepseek_v2.py (fused_qkv_a_proj, disable_tp) and in
		 * SGLang's deepseek_v2.py l.1616-1646. */
	case QA_ROLE_ROUTER:
	case QA_ROLE_NORM:
	case QA_ROLE_POS_EMBED:
	case QA_ROLE_DSA_INDEXER:
	case QA_ROLE_MTP_EH_PROJ:
		/* DeepSeek's eh_proj is a plain nn.Linear (vLLM
		 * deepseek_mtp.py l.73); Qwen3-Next's fc is column-parallel,
		 * so replicating is the conservative side. */
	case QA_ROLE_MTP_ENORM:
	case QA_ROLE_MTP_HNORM:
	case QA_ROLE_MTP_NORM:
	case QA_ROLE_OTHER:
	default:
		return b;	/* replicated (conservative for unknowns) */
	}
}

/* ---- registry lookup ------------------------------------------------ */

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The class a GGUF architecture or model_type name maps to, or NULL. */
static const char *
mapped_class(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < qa_n_arch_names; i++)
		if (strcmp(qa_arch_names[i].gguf, name) == 0 ||
		    strcmp(qa_arch_names[i].model_type, name) == 0)
			return qa_arch_names[i].hf_class;
	return NULL;
}

enum qa_serve_arch
qa_serve_arch_support(const char *engine, const struct qa_inventory *inv,
		      const char **cls_out)
{
	const char *cls = NULL;

	/* Engines pick the implementation by the config's class, not its
	 * model_type (vLLM registry.py, SGLang models/registry.py
	 * resolve_model_cls). */
	if (inv->kind != QA_KIND_GGUF && inv->hp.arch_raw &&
	    inv->hp.arch_raw[0])
		cls = inv->hp.arch_raw;
	if (!cls)
		cls = mapped_class(inv->hp.arch_raw);
	if (!cls)
		cls = mapped_class(inv->hp.arch);
	if (cls_out)
		*cls_out = cls;
	if (!cls)
		return QA_SERVE_ARCH_UNKNOWN;
	switch (qa_engine_arch(engine, cls)) {
	case QA_ARCH_TRANSFORMERS:
		return QA_SERVE_ARCH_TRANSFORMERS;
	case QA_ARCH_NATIVE:
		return QA_SERVE_ARCH_NATIVE;
	default:
		return QA_SERVE_ARCH_ABSENT;
	}
}

void
qa_fit_note(struct qa_fit_notes *nb, const char *s)
{
	struct qa_fit_result *o = nb->out;

	if (!s || o->n_notes >= sizeof(o->notes) / sizeof(o->notes[0]))
		return;
	o->notes[o->n_notes++] = s;
}

bool
qa_ascii_ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a, y = *b;

		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return *a == *b;
}

void
qa_fit_single_device(struct qa_fit_result *out, int engine,
		     const struct qa_fit_options *opt, int64_t n_layer,
		     uint64_t w, uint64_t kv, uint64_t compute, uint64_t *room)
{
	struct qa_fit_device *d = &out->devices[0];
	uint64_t used = w;

	memset(out, 0, sizeof(*out));
	out->engine = engine;
	out->n_devices = 1;
	snprintf(d->name, sizeof(d->name), "%s", opt->gpus.dev[0].name);
	d->vram_bytes = opt->gpus.dev[0].vram_bytes;
	d->usable_bytes = opt->gpus.dev[0].usable_bytes ?
			  opt->gpus.dev[0].usable_bytes : d->vram_bytes;
	d->first_layer = 0;
	d->last_layer = (int32_t)(n_layer - 1);
	d->has_output = true;
	d->weights_bytes = w;
	d->kv_bytes = kv;
	d->compute_bytes = compute;
	d->overhead_bytes = opt->margin_bytes;
	if (qa_ckd_add(&used, used, kv) || qa_ckd_add(&used, used, compute) ||
	    qa_ckd_add(&used, used, d->overhead_bytes))
		used = UINT64_MAX;
	d->free_bytes = used > (uint64_t)INT64_MAX ? INT64_MIN :
			(int64_t)d->usable_bytes - (int64_t)used;
	out->totals_weights = w;
	out->totals_kv = kv;
	out->totals_compute = compute;
	*room = 0;
	if (w <= d->usable_bytes && w + d->overhead_bytes <= d->usable_bytes)
		*room = d->usable_bytes - w - d->overhead_bytes;
	out->verdict = d->free_bytes < 0 ? "does-not-fit" :
		       (double)d->free_bytes <
		       0.05 * (double)d->usable_bytes ? "tight" : "fits";
}

int
qa_fit_require_full_attention(const struct qa_hparams *hp, const char *engine,
			      const char *cache, char *err, size_t errlen)
{
	int64_t l;

	if (hp->kv_lora_rank > 0) {
		snprintf(err, errlen, "MLA attention: quantaudit's %s model "
			 "sizes the %s only", engine, cache);
		return -1;
	}
	for (l = 0; hp->layer_kind && l < hp->n_layer; l++)
		if (hp->layer_kind[l] != QA_LAYER_FULL_ATTENTION &&
		    hp->layer_kind[l] != QA_LAYER_UNKNOWN) {
			snprintf(err, errlen, "layer %lld is not full "
				 "attention: quantaudit's %s model sizes the "
				 "%s only (sliding-window and recurrent caches "
				 "are not modelled)", (long long)l, engine,
				 cache);
			return -1;
		}
	return 0;
}

int
qa_serve_check_inputs(const struct qa_hparams *hp,
		      const struct qa_gpu_set *gpus, const char *engine,
		      const char *pool, char *err, size_t errlen)
{
	if (gpus->host_only || gpus->n == 0) {
		snprintf(err, errlen, "%s needs at least one GPU "
			 "(--gpus none is llama.cpp only)", engine);
		return -1;
	}
	if (hp->n_layer <= 0 || hp->n_embd <= 0) {
		snprintf(err, errlen, "no hyperparameters (layers, hidden "
			 "size) to size the %s %s from", engine, pool);
		return -1;
	}
	if (hp->n_layer_all > QA_FIT_MAX_LAYERS ||
	    hp->n_layer > QA_FIT_MAX_LAYERS) {
		snprintf(err, errlen, "%lld blocks: more than any real model "
			 "(%d); not sized", (long long)hp->n_layer_all,
			 QA_FIT_MAX_LAYERS);
		return -1;
	}
	return 0;
}

void
qa_serve_call_init(struct qa_serve_call *c, const struct qa_inventory *inv,
		   const struct qa_fit_options *opt,
		   struct qa_fit_result *out, int engine, char *err,
		   size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->engine = engine;
	c->inv = inv;
	c->opt = opt;
	c->out = out;
	c->err = err;
	c->errlen = errlen;
	/* The inventory owns the arena the result's strings live in; the
	 * inventory object itself is never const (qa_inventory_create). */
	c->arena = (struct qa_arena *)&inv->arena;
	c->hp = &inv->hp;
	c->nb = (struct qa_fit_notes){ out, c->arena };
}
