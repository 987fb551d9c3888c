/* SPDX-License-Identifier: MIT */
/*
 * The llama.cpp fit model: per-device memory of a GGUF (or HF) inventory
 * under llama.cpp at master 3f545bec (nextn blocks, -np, kv_unified, the
 * MTP draft and the compute buffer re-read at d32676d77), from metadata
 * only. docs/fit.md "## llama.cpp" gives every formula with its source
 * file and line, and what is exact and what is estimated:
 *
 *   context  n_ctx = pad256(-c or n_ctx_train); -np N as N streams
 *            (kv_unified = false, the llama-completion/llama-cli default)
 *   KV       per layer rho(t_K, H_kv d_k) + rho(t_V, H_kv d_v) per cell,
 *            SWA layers with pad256(min(n_ctx_seq, n_swa + n_ub)) cells,
 *            MLA K-only (kv_lora_rank + rope), FA-off V max-padding
 *   state    f32 R/S rows for Mamba/Mamba-2/GDN/RWKV/LFM2 layers
 *   weights  L+1 units split by -ts or free memory, token_embd on the host,
 *            output (or the tied embedding copy) on the last device, CUDA
 *            row padding to 512 for quantized tensors
 *   compute  ggml-alloc's two phases of the worst-case reserve graph
 *            (head: logits over inp_embd and the output hidden states;
 *            layer: inputs, per-stream masks, the worst layer's live
 *            set) plus the placement term; pipeline input copies x4
 *            with more than one GPU
 *
 * It also parses llama.cpp's verbose logs (qa_fit_parse_llamacpp_log) so
 * the numbers can be calibrated against the engine's own.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/dtypes.h"
#include "core/ckd.h"
#include "fit/fit.h"
#include "core/inventory.h"
#include "core/gguf_keys.h"
#include "fit/decode.h"
#include "fit/fit_cuda.h"

#define MIB ((uint64_t)1 << 20)
/* llama.cpp --fit target free memory (common/common.h fit_params_target). */
#define DEFAULT_MARGIN (1024 * MIB)
/* common_params defaults (common/common.h): -ub 512, -b 2048, and
 * --fit's minimum context fit_params_min_ctx = 4096. */
#define DEFAULT_UBATCH 512
#define DEFAULT_BATCH 2048
#define MIN_CONTEXT 4096
/* When the model declares no trained context, max_context searches up to
 * 1M tokens. */
#define NO_TRAIN_CAP ((int64_t)1 << 20)
/* ggml-cuda.cu MATRIX_ROW_PADDING and the CUDA buffer alignment
 * (get_alloc_size, get_alignment): memory-models.md section 1.7.4. */
#define CUDA_ROW_PAD 512
#define CUDA_ALIGN 128
/* ggml-backend.cpp GGML_SCHED_MAX_COPIES (section 1.8.4). */
#define SCHED_COPIES 4

static const char formula_text[] =
	"llama.cpp 3f545bec/d32676d7: KV pad256, iSWA, MLA K-only, nextn "
	"cells, f32 recurrent; compute: ggml-alloc's head and layer phases "
	"of the sched_reserve graph plus the placement term (x4 pipeline "
	"input copies); docs/fit.md";

/* Sticky-overflow arithmetic: sizes come from files, so every product is
 * checked (src/ckd.h) and an overflow fails the whole estimate. */
static uint64_t
cmul(bool *ovf, uint64_t a, uint64_t b)
{
	uint64_t r;

	if (qa_ckd_mul(&r, a, b)) {
		*ovf = true;
		return 0;
	}
	return r;
}

static uint64_t
cadd(bool *ovf, uint64_t a, uint64_t b)
{
	uint64_t r;

	if (qa_ckd_add(&r, a, b)) {
		*ovf = true;
		return 0;
	}
	return r;
}

static uint64_t
pad_to(bool *ovf, uint64_t v, uint64_t a)
{
	uint64_t r;

	if (qa_ckd_align_up(&r, v, a)) {
		*ovf = true;
		return 0;
	}
	return r;
}

static int64_t
pad256(int64_t v)
{
	return v <= 0 ? 0 : (v + 255) / 256 * 256;
}

/* rho(t, n) = n / B_t * S_t (memory-models.md section 0); the caller has
 * checked B_t | n. */
static uint64_t
row_bytes(bool *ovf, const struct qa_ggml_type *t, uint64_t n)
{
	return cmul(ovf, n / t->block, t->block_bytes);
}

static const char *
type_label(const struct qa_ggml_type *t)
{
	static const char *const names[] = {
		"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1",
		"iq4_nl",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(names[i], t->name) == 0)
			return names[i];
	return t->name;
}

/* What stays fixed while the context varies. */
struct lc_model {
	const struct qa_inventory *inv;
	const struct qa_hparams *hp;
	int64_t n_layer;		/* trunk blocks */
	int64_t n_placed;		/* blocks placed: n_layer_all, nextn
					 * blocks included (load_tensors splits
					 * n_layer_all + 1 units) */
	bool nextn_weights;		/* nextn tensors loaded (--mtp on and
					 * an arch with an MTP graph) */
	bool nextn_kv;			/* nextn blocks get KV cells in the
					 * main context (no layer filter) */
	bool draft;			/* MTP draft context (--mtp on) */
	bool mtp_graph;			/* the arch has an MTP graph */
	bool draft_all_layers;		/* its KV holds every block */
	uint32_t n_rs_seq;		/* recurrent rollback rows per seq */
	int n_draft;			/* MTP draft tokens per step */
	bool h2;			/* t_h_nextn distinct from t_embd */
	bool unified;			/* kv_unified */
	int64_t n_pos;			/* positions per token (M-RoPE 4) */
	const struct qa_ggml_type *f16;	/* the draft cache's type */
	int64_t kv_from_start;		/* n_layer_kv_from_start */
	bool mla;			/* V-less latent cache */
	bool rwkv, lfm2, falcon_h1;
	int64_t dk_swa, dv_swa;		/* key_length_swa / value_length_swa */
	int64_t rwkv_shift, rwkv_head;	/* token_shift_count, wkv.head_size */
	int64_t lfm2_lcache;		/* shortconv.l_cache */
	size_t n_dev;
	bool cpu;			/* host-only (CPU backend) */
	bool pipeline;			/* section 1.8.4 applies */
	int32_t *unit_dev;		/* n_placed + 1 units -> device, or
					 * -1: kept on the host (-ngl) */
	int32_t *base_dev;		/* the split -ts or free memory gives */
	bool *unit_cpu_exp;		/* experts kept on the host
					 * (--n-cpu-moe) */
	bool searched;			/* unit_dev is a split the fit chose */
	uint64_t *unit_w, *unit_exp;	/* per unit: weights, expert bytes */
	uint64_t *unit_w_file, *unit_exp_file;	/* the same as stored, for
						 * what stays in host RAM */
	uint64_t host_w;		/* token_embd + position embeddings */
	uint64_t tied_read;		/* the tied head read per token where
					 * it is token_embd itself (CPU) */
	uint64_t usable[QA_GPU_MAX];
	uint32_t bw[QA_GPU_MAX];
};

static int64_t
arch_int(const struct qa_inventory *inv, const char *suffix)
{
	char key[160];
	const struct qa_kv *kv;
	int64_t v;

	if (!inv->hp.arch_raw)
		return -1;
	snprintf(key, sizeof(key), "%s.%s", inv->hp.arch_raw, suffix);
	kv = qa_inv_kv(inv, key);
	if (!kv || !qa_value_as_int(&kv->value, &v))
		return -1;
	return v;
}

static bool
arch_has(const struct qa_inventory *inv, const char *suffix)
{
	char key[160];

	if (!inv->hp.arch_raw)
		return false;
	snprintf(key, sizeof(key), "%s.%s", inv->hp.arch_raw, suffix);
	return qa_inv_kv(inv, key) != NULL;
}

static bool
arch_is(const struct qa_hparams *hp, const char *name)
{
	return (hp->arch && strcmp(hp->arch, name) == 0) ||
	       (hp->arch_raw && strcmp(hp->arch_raw, name) == 0);
}

static bool
arch_in(const struct qa_hparams *hp, const char *const *list)
{
	for (; *list; list++)
		if (arch_is(hp, *list))
			return true;
	return false;
}

/*
 * Archs whose create_memory passes a layer filter that keeps the nextn
 * blocks out of the main context's caches (llama-model.cpp
 * create_memory: the hybrid branch for qwen3next/qwen35/qwen35moe, the
 * default branch for step35, hy_v3, glm-dsa, mimo2, deepseek32;
 * deepseek4 zeroes n_layer_nextn in its own cache). Every other arch
 * that declares nextn layers gives them KV cells it never uses.
 */
static const char *const nextn_filtered[] = {
	"qwen3next", "qwen35", "qwen35moe", "step35", "hy_v3", "glm-dsa",
	"mimo2", "deepseek32", "deepseek4", NULL,
};

/* Archs with an MTP graph: they load the nextn tensors when the MTP
 * draft is asked (src/models/<arch>.cpp: TENSOR_SKIP unless
 * ml.load_mtp); the rest (glm4moe, glm4, exaone4, ...) always skip
 * them ("model has unused tensor"). */
static const char *const mtp_graph[] = {
	"qwen3next", "qwen35", "qwen35moe", "step35", "hy_v3", "glm-dsa",
	"mimo2", "deepseek32", "deepseek4", "deepseek2", "cohere2moe", NULL,
};

/* The MTP draft context has no layer filter either: its KV holds every
 * block (llama-model.cpp create_memory, section 4.2 of the notes). */
static const char *const draft_unfiltered[] = {
	"deepseek2", "cohere2moe", NULL,
};

/* Recurrent rollback rows for the draft (llm_arch_supports_rs_rollback,
 * llama-arch.cpp). */
static const char *const rs_rollback[] = {
	"qwen35", "qwen35moe", "deepseek4", NULL,
};

/* Graphs that set t_h_nextn to a tensor other than t_embd with default
 * cparams, so a second hidden state is an output (never freed):
 * qwen3next, qwen35(moe), gpt-oss, cohere2moe, hy_v3, mimo2, step35. */
static const char *const second_hidden[] = {
	"qwen3next", "qwen35", "qwen35moe", "gpt-oss", "cohere2moe", "hy_v3",
	"mimo2", "step35", NULL,
};

/* Attention with an output gate projected beside Q (qwen3next and
 * qwen35 build_attention: q_proj holds Q and the gate). */
static const char *const gated_attention[] = {
	"qwen3next", "qwen35", "qwen35moe", NULL,
};

static int
layer_kind(const struct lc_model *m, int64_t l)
{
	if (l >= m->n_layer)
		return QA_LAYER_MTP;
	return m->hp->layer_kind ? m->hp->layer_kind[l] :
				   QA_LAYER_FULL_ATTENTION;
}

static int64_t
layer_hkv(const struct lc_model *m, int64_t l)
{
	if (m->hp->head_kv_per_layer && l < m->hp->n_layer_all)
		return m->hp->head_kv_per_layer[l];
	return m->hp->n_head_kv;
}

/*
 * Recurrent layers (section 1.6): Mamba/GDN kinds from the hparams
 * reader, every layer for RWKV and Falcon-H1, H_kv = 0 layers for LFM2.
 */
static bool
layer_recurrent(const struct lc_model *m, int64_t l)
{
	int k = layer_kind(m, l);

	if (k == QA_LAYER_MTP)
		return false;
	if (m->rwkv || m->falcon_h1)
		return true;
	if (m->lfm2)
		return layer_hkv(m, l) == 0;
	return k == QA_LAYER_MAMBA || k == QA_LAYER_LINEAR_ATTENTION;
}

/* Layers owning a cell in the main context's KV cache: attention
 * layers with H_kv > 0 below n_layer_kv_from_start (llama-kv-cache.cpp
 * ctor: has_kv(il), then the create_memory filter); nextn blocks unless
 * the arch filters them out. */
static bool
layer_has_kv(const struct lc_model *m, int64_t l)
{
	int k = layer_kind(m, l);

	if (l >= m->n_placed)
		return false;
	if (l >= m->n_layer && !m->nextn_kv)
		return false;
	if (k == QA_LAYER_MLP_ONLY || k == QA_LAYER_MAMBA ||
	    k == QA_LAYER_LINEAR_ATTENTION)
		return false;
	if (m->rwkv || (m->lfm2 && layer_hkv(m, l) == 0))
		return false;
	if (k != QA_LAYER_MTP && l >= m->kv_from_start)
		return false;
	return layer_hkv(m, l) > 0;
}

static bool
layer_swa(const struct lc_model *m, int64_t l)
{
	return layer_kind(m, l) == QA_LAYER_SLIDING_ATTENTION &&
	       m->hp->sliding_window > 0;
}

/* Per-head K and V widths of layer l (n_embd_head_k(il)). */
static void
head_dims(const struct lc_model *m, int64_t l, int64_t *dk, int64_t *dv)
{
	const struct qa_hparams *hp = m->hp;

	if (m->mla) {
		/* MLA GGUF (PR #12801): key_length = r_kv + d_rope, V is a
		 * view into K since PR #19067 (llama-kv-cache.cpp has_v). */
		*dk = hp->kv_lora_rank + (hp->qk_rope_dim > 0 ?
					  hp->qk_rope_dim : 0);
		*dv = 0;
		return;
	}
	*dk = hp->head_dim_k;
	*dv = hp->head_dim_v;
	if (layer_swa(m, l)) {
		if (m->dk_swa > 0)
			*dk = m->dk_swa;
		if (m->dv_swa > 0)
			*dv = m->dv_swa;
	}
}

/* n_embd_r, n_embd_s of a recurrent layer (llama-hparams.cpp, section
 * 1.5), in f32 elements per row. */
static void
rs_widths(bool *ovf, const struct lc_model *m, uint64_t *r, uint64_t *s)
{
	const struct qa_hparams *hp = m->hp;
	uint64_t E = hp->n_embd > 0 ? (uint64_t)hp->n_embd : 0;

	*r = *s = 0;
	if (m->rwkv) {
		*r = cmul(ovf, (uint64_t)(m->rwkv_shift > 0 ?
					  m->rwkv_shift : 2), E);
		*s = cmul(ovf, E, (uint64_t)(m->rwkv_head > 0 ?
					     m->rwkv_head : 0));
	} else if (m->lfm2) {
		*r = cmul(ovf, E, (uint64_t)(m->lfm2_lcache > 1 ?
					     m->lfm2_lcache - 1 : 0));
	} else if (hp->ssm_d_inner > 0 && hp->ssm_d_state > 0 &&
		   hp->ssm_d_conv > 0) {
		uint64_t g = hp->ssm_n_group > 0 ? (uint64_t)hp->ssm_n_group :
						   1;
		uint64_t di = (uint64_t)hp->ssm_d_inner;
		uint64_t ds = (uint64_t)hp->ssm_d_state;

		*r = cmul(ovf, (uint64_t)hp->ssm_d_conv - 1,
			  cadd(ovf, di, cmul(ovf, 2 * g, ds)));
		*s = cmul(ovf, ds, di);
	}
}

static bool
is_expert(enum qa_role r)
{
	return r == QA_ROLE_EXPERT_GATE || r == QA_ROLE_EXPERT_UP ||
	       r == QA_ROLE_EXPERT_DOWN || r == QA_ROLE_EXPERT_GATE_UP;
}

/*
 * Bytes a tensor takes in a device buffer: on CUDA a quantized tensor
 * whose row length is not a multiple of MATRIX_ROW_PADDING gets the
 * padding of one row at its end, and the buffer is aligned to 128 B
 * (ggml-cuda.cu ggml_backend_cuda_buffer_type_get_alloc_size adds
 * ggml_row_size(type, 512 - ne0 % 512) once per tensor: the rows are
 * contiguous, so only the last one is read past the tensor's end by the
 * MMQ kernels). Padding every row instead overstated the experts of
 * Qwen3-30B-A3B (ne0 768) by 2 GiB. The CPU backend keeps the file size.
 */
static uint64_t
tensor_dev_bytes(bool *ovf, const struct qa_tensor *t, bool cpu)
{
	const struct qa_ggml_type *gt;
	uint64_t b = t->bytes, ne0 = t->shape[0];

	if (cpu)
		return b;
	gt = t->ggml_type >= 0 ? qa_ggml_type(t->ggml_type) : NULL;
	if (gt && gt->block > 1 && ne0 > 0 && ne0 % CUDA_ROW_PAD != 0) {
		uint64_t extra = CUDA_ROW_PAD - ne0 % CUDA_ROW_PAD;

		if (extra % gt->block == 0)
			b = cadd(ovf, b, row_bytes(ovf, gt, extra));
	}
	return pad_to(ovf, b, CUDA_ALIGN);
}

/*
 * Layer split (llama-model.cpp load_tensors l.1330-1392): L+1 units, unit
 * l to device upper_bound(cum(s), l / (L+1)), s = -ts or each device's
 * usable memory. Block bytes are the inventory's tensors of that layer;
 * token_embd and position embeddings stay on the host; every other
 * non-block tensor belongs to the output unit, and a tied embedding is
 * duplicated there (TENSOR_DUPLICATED) unless the output unit is in the
 * same (CPU) buffer type as token_embd.
 */
static int
place_weights(struct lc_model *m, const struct qa_fit_options *opt,
	      struct qa_arena *a)
{
	const struct qa_inventory *inv = m->inv;
	size_t n_units = (size_t)m->n_placed + 1, j;
	double split[QA_GPU_MAX], cum[QA_GPU_MAX], tot = 0;
	bool ovf = false, have_ts = false, have_head = false;
	uint64_t embd_dev = 0;
	uint32_t i;

	m->unit_dev = qa_arena_array(a, n_units, sizeof(*m->unit_dev));
	m->base_dev = qa_arena_array(a, n_units, sizeof(*m->base_dev));
	m->unit_cpu_exp = qa_arena_array(a, n_units, sizeof(*m->unit_cpu_exp));
	m->unit_w = qa_arena_array(a, n_units, sizeof(*m->unit_w));
	m->unit_exp = qa_arena_array(a, n_units, sizeof(*m->unit_exp));
	m->unit_w_file = qa_arena_array(a, n_units, sizeof(*m->unit_w_file));
	m->unit_exp_file = qa_arena_array(a, n_units,
					  sizeof(*m->unit_exp_file));
	if (!m->unit_dev || !m->base_dev || !m->unit_cpu_exp || !m->unit_w ||
	    !m->unit_exp || !m->unit_w_file || !m->unit_exp_file)
		return -1;
	for (j = 0; j < m->n_dev; j++)
		if (opt->tensor_split[j] > 0)
			have_ts = true;
	for (j = 0; j < m->n_dev; j++) {
		split[j] = have_ts ? (opt->tensor_split[j] > 0 ?
				      opt->tensor_split[j] : 0) :
				     (double)m->usable[j];
		tot += split[j];
	}
	for (j = 0; j < m->n_dev; j++) {
		cum[j] = (j ? cum[j - 1] : 0) +
			 (tot > 0 ? split[j] / tot : 1.0 / (double)m->n_dev);
	}
	for (i = 0; i < n_units; i++) {
		double x = (double)i / (double)n_units;

		for (j = 0; j + 1 < m->n_dev && !(cum[j] > x); j++)
			;
		m->unit_dev[i] = m->base_dev[i] = (int32_t)j;
	}
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		uint64_t b;
		size_t u;

		if (t->role == QA_ROLE_VISION || t->role == QA_ROLE_PROJECTOR ||
		    t->role == QA_ROLE_AUDIO)
			continue;
		/* nextn tensors are TENSOR_SKIP unless the MTP draft loads
		 * them (src/models/<arch>.cpp load_arch_tensors) */
		if (t->mtp && !m->nextn_weights)
			continue;
		if (t->role == QA_ROLE_EMBED || t->role == QA_ROLE_POS_EMBED) {
			m->host_w = cadd(&ovf, m->host_w, t->bytes);
			if (t->role == QA_ROLE_EMBED)
				embd_dev = cadd(&ovf, embd_dev,
						tensor_dev_bytes(&ovf, t,
								 m->cpu));
			continue;
		}
		if (t->role == QA_ROLE_LM_HEAD && !t->mtp)
			have_head = true;
		u = t->layer >= 0 && t->layer < m->n_placed ? (size_t)t->layer :
							     n_units - 1;
		b = tensor_dev_bytes(&ovf, t, m->cpu);
		m->unit_w[u] = cadd(&ovf, m->unit_w[u], b);
		m->unit_w_file[u] = cadd(&ovf, m->unit_w_file[u], t->bytes);
		if (is_expert(t->role)) {
			m->unit_exp[u] = cadd(&ovf, m->unit_exp[u], b);
			m->unit_exp_file[u] = cadd(&ovf, m->unit_exp_file[u],
						   t->bytes);
		}
	}
	/* The copy is made only where the output's buffer type differs from
	 * token_embd's: create_tensor returns the tensor already in that
	 * buffer type's context (llama-model-loader.cpp l.1300-1306 at
	 * d32676d7). token_embd is always in the CPU buffer
	 * (llama-model.cpp l.1334), so on the CPU backend the tie is one
	 * tensor (llama.cpp's breakdown counts it once). With CPU_REPACK
	 * on (no -nr), a repackable type could still take a CPU_REPACK
	 * copy; the fit models the plain CPU buffer. */
	if (!have_head && (m->hp->tie_embeddings || inv->n_tensors > 0)) {
		if (m->cpu)
			m->tied_read = embd_dev;
		else
			m->unit_w[n_units - 1] = cadd(&ovf,
						      m->unit_w[n_units - 1],
						      embd_dev);
	}
	return ovf ? -1 : 0;
}

struct lc_eval {
	struct qa_fit_device dev[QA_GPU_MAX];
	struct qa_fit_llamacpp_detail d;
	uint64_t read_bytes[QA_GPU_MAX];	/* decode bytes per token */
	/* With MTP drafts: a verification pass of n + 1 tokens, and one
	 * draft token (the nextn block, the head, the draft's cells). */
	uint64_t pass_bytes[QA_GPU_MAX], draft_bytes[QA_GPU_MAX];
	uint64_t mtp_kv[QA_GPU_MAX];	/* KV of the MTP layers (--mtp on) */
	uint64_t host_w;	/* weights of host-kept layers and experts */
	uint64_t host_cache;	/* KV and recurrent state of host layers */
	bool ovf;
};

/* ggml-alloc places every tensor at the backend's alignment: 32 B on
 * the CPU (TENSOR_ALIGNMENT), 128 B on CUDA (get_alignment). */
static uint64_t
galign(bool *ovf, const struct lc_model *m, uint64_t v)
{
	return pad_to(ovf, v, m->cpu ? 32 : CUDA_ALIGN);
}

/* Whether block l has a cell in the MTP draft context's KV cache. */
static bool
draft_has_kv(const struct lc_model *m, int64_t l)
{
	if (!m->draft || l >= m->n_placed)
		return false;
	if (l >= m->n_layer)
		return layer_hkv(m, l) > 0;
	if (!m->draft_all_layers)
		return false;
	return layer_has_kv(m, l);
}

/*
 * The compute buffer's closed form (llamacpp-memory-2 section 3, from
 * ggml-alloc.c's placement of the worst-case reserve graph of
 * llama-context.cpp sched_reserve): the largest of a head phase (the
 * logits allocated on top of the permanent inp_embd and the output
 * hidden states) and a layer phase (the graph inputs, the masks and the
 * live set of the worst layer). What one phase needs besides the
 * inputs, so a device that holds only layers, the output device and the
 * pipeline-parallel copies can each be assembled from it.
 */
struct lc_compute {
	uint64_t inputs;	/* inp_embd + small inputs + masks */
	uint64_t inputs_head;	/* what of them the head phase keeps */
	uint64_t head;		/* logits, result_norm, h_nextn */
	uint64_t layer;		/* worst layer's live set */
	uint64_t fa_conv;	/* CUDA FA: F16 copies of K/V views */
	uint64_t attn_fa;	/* what is live beside them at the FA node */
	uint64_t g;		/* placement term of the head phase */
};

/* CUDA FA over a non-F16 cache converts the layer's whole K and V
 * views to F16 inside the FLASH_ATTN_EXT node's allocation
 * (ggml-cuda/fattn.cu ggml_cuda_flash_attn_ext_get_alloc_size). */
static uint64_t
fa_conv_bytes(const struct lc_model *m, bool *ovf,
	      const struct qa_ggml_type *tk, const struct qa_ggml_type *tv,
	      int64_t n_stream, uint64_t s_base, uint64_t s_swa)
{
	int64_t l;
	uint64_t worst = 0;

	for (l = 0; l < m->n_placed; l++) {
		int64_t dk, dv;
		uint64_t cells, b = 0, hkv = (uint64_t)layer_hkv(m, l);

		if (!layer_has_kv(m, l))
			continue;
		head_dims(m, l, &dk, &dv);
		cells = cmul(ovf, (uint64_t)n_stream,
			     layer_swa(m, l) ? s_swa : s_base);
		if (strcasecmp(tk->name, "F16") != 0)
			b = cmul(ovf, cmul(ovf, 2 * cells, hkv),
				 (uint64_t)dk);
		if (dv > 0 && strcasecmp(tv->name, "F16") != 0)
			b = cadd(ovf, b, cmul(ovf, cmul(ovf, 2 * cells,
							hkv),
					      (uint64_t)dv));
		if (b > worst)
			worst = b;
	}
	return worst;
}

static void
compute_terms(const struct lc_model *m, bool *ovf, bool fa,
	      const struct qa_ggml_type *tk, const struct qa_ggml_type *tv,
	      int64_t n_seq, int64_t n_stream, uint64_t n_tok, uint64_t n_out,
	      uint64_t s_base, uint64_t s_swa, bool has_base, bool has_swa,
	      struct lc_compute *c)
{
	const struct qa_hparams *hp = m->hp;
	uint64_t E = hp->n_embd > 0 ? (uint64_t)hp->n_embd : 0;
	uint64_t V = hp->n_vocab > 0 ? (uint64_t)hp->n_vocab : 0;
	uint64_t H = hp->n_head > 0 ? (uint64_t)hp->n_head : 1;
	uint64_t bpe = fa ? 2 : 4, small, mask = 0, a = 0, t, s_max = 0;
	uint64_t k = hp->n_expert_used > 0 ? (uint64_t)hp->n_expert_used : 1;
	uint64_t fexp = hp->n_ff_expert > 0 ? (uint64_t)hp->n_ff_expert :
		(hp->n_ff > 0 ? (uint64_t)hp->n_ff : 0);
	uint64_t nexp = hp->n_expert > 0 ? (uint64_t)hp->n_expert : 0;
	uint64_t F = hp->n_ff > 0 ? (uint64_t)hp->n_ff : 4 * E;
	bool dense = nexp == 0 || hp->n_leading_dense > 0;
	bool gdn = false, mamba = false, attn = false;
	int64_t l, dk_max = 0;
	int n_caches = (has_base ? 1 : 0) + (has_swa ? 1 : 0);

	memset(c, 0, sizeof(*c));
	for (l = 0; l < m->n_layer; l++) {
		int kind = layer_kind(m, l);

		if (kind == QA_LAYER_LINEAR_ATTENTION)
			gdn = true;
		else if (kind == QA_LAYER_MAMBA ||
			 kind == QA_LAYER_PARALLEL_HYBRID)
			mamba = true;
		if (layer_has_kv(m, l)) {
			int64_t dk, dv;

			attn = true;
			head_dims(m, l, &dk, &dv);
			if (dk > dk_max)
				dk_max = dk;
		}
	}
	if (m->falcon_h1)
		mamba = true;

	/* Inputs, allocated first and kept to their last consumer:
	 * inp_embd (4 n_tok E_inp, never consumed on token input, so
	 * permanent: llama-graph.cpp build_inp_embd), tokens, positions
	 * (4 per token with M-RoPE), out_ids, the k/v set_rows indices of
	 * each cache (per element of V without FA), and the masks: one per
	 * cache, per-stream cells x n_tok of f16 (FA) or f32
	 * (build_attn_inp_kq_mask). */
	small = cadd(ovf, galign(ovf, m, 4 * n_tok),
		     galign(ovf, m, cmul(ovf, 4 * n_tok,
					 (uint64_t)m->n_pos)));
	small = cadd(ovf, small, galign(ovf, m, 4 * n_out));
	if (fa || !attn) {
		small = cadd(ovf, small, cmul(ovf, 2 * (uint64_t)n_caches,
					      galign(ovf, m, 8 * n_tok)));
	} else {
		uint64_t hkv = hp->n_head_kv > 0 ? (uint64_t)hp->n_head_kv :
						   1;
		uint64_t dv = hp->head_dim_v > 0 ? (uint64_t)hp->head_dim_v :
						   0;

		small = cadd(ovf, small, cmul(ovf, (uint64_t)n_caches,
			cadd(ovf, galign(ovf, m, 8 * n_tok),
			     galign(ovf, m, cmul(ovf, 8 * n_tok,
						 cmul(ovf, hkv, dv))))));
	}
	if (has_base)
		mask = cadd(ovf, mask, galign(ovf, m, cmul(ovf,
			cmul(ovf, s_base, n_tok), bpe)));
	if (has_swa)
		mask = cadd(ovf, mask, galign(ovf, m, cmul(ovf,
			cmul(ovf, s_swa, n_tok), bpe)));
	/* inp_embd: in the one CPU buffer; on CUDA no GPU op consumes it,
	 * so the scheduler keeps it in the CUDA_Host buffer (a CUDA log of
	 * Llama-3.1-8B shows "CUDA0 compute buffer size = 258.50 MiB", the
	 * head phase without it). */
	t = m->cpu ? galign(ovf, m, cmul(ovf, 4 * n_tok, E)) : 0;
	c->inputs = cadd(ovf, cadd(ovf, t, small), mask);
	c->inputs_head = cadd(ovf, t, small);

	/* Head phase: logits (4 n_out V), result_norm (4 n_out E), and the
	 * second hidden state the MTP graphs export (4 n_tok E). */
	c->head = cadd(ovf, galign(ovf, m, cmul(ovf, 4 * n_out, V)),
		       galign(ovf, m, cmul(ovf, 4 * n_out, E)));
	if (m->h2)
		c->head = cadd(ovf, c->head,
			       galign(ovf, m, cmul(ovf, 4 * n_tok, E)));

	/* Layer phase: the live set of the worst layer kind present. */
	if (dense)	/* residual, a freed norm, gate, up, act */
		a = cmul(ovf, 4 * n_tok, cadd(ovf, 2 * E, cmul(ovf, 3, F)));
	if (nexp > 0) {	/* residual, norm, a hole; k rows of gate, up,
			 * act; down stacked when it cannot reuse them;
			 * router logits and probabilities */
		t = cmul(ovf, 4 * n_tok,
			 cadd(ovf, cadd(ovf, 3 * E, cmul(ovf, 3 * k, fexp)),
			      E > 2 * fexp ? cmul(ovf, k, E) : 0));
		t = cadd(ovf, t, cmul(ovf, 8 * n_tok, nexp));
		if (t > a)
			a = t;
	}
	if (gdn || mamba) {
		uint64_t di = hp->ssm_d_inner > 0 ?
			      (uint64_t)hp->ssm_d_inner : 0;
		uint64_t ds = hp->ssm_d_state > 0 ?
			      (uint64_t)hp->ssm_d_state : 0;
		uint64_t g = hp->ssm_n_group > 0 ?
			     (uint64_t)hp->ssm_n_group : 1;
		uint64_t dc = hp->ssm_d_conv > 1 ?
			      (uint64_t)hp->ssm_d_conv - 1 : 3;
		uint64_t hs = hp->ssm_dt_rank > 0 ?
			      (uint64_t)hp->ssm_dt_rank : 0;
		uint64_t gn = cmul(ovf, g, ds);
		uint64_t conv = cadd(ovf, di, 2 * gn);
		uint64_t seqs = (uint64_t)(n_seq > 0 ? n_seq : 1);

		if (gdn) {	/* conv input (with the state) and output */
			t = cmul(ovf, 4 * n_tok, cadd(ovf, 3 * E,
						      cmul(ovf, 2, conv)));
			t = cadd(ovf, t, cmul(ovf, cmul(ovf, 4 * dc, conv),
					      seqs));
			if (t > a)
				a = t;
		}
		if (mamba) {	/* zxBCdt, conv in, scan out, y copy */
			t = cadd(ovf, cadd(ovf, 3 * E,
					   cadd(ovf, 2 * di + 2 * gn, hs)),
				 cadd(ovf, conv, 2 * di));
			t = cmul(ovf, 4 * n_tok, t);
			t = cadd(ovf, t, cmul(ovf, cmul(ovf, 4 * dc, conv),
					      seqs));
			t = cadd(ovf, t, cmul(ovf, cmul(ovf, 4 * ds, di),
					      seqs));
			if (t > a)
				a = t;
		}
	}
	if (attn && !fa) {
		/* f32 scores of one layer, the residual and its norm, Q
		 * twice (before and after RoPE); the gated attention of
		 * qwen3next/qwen35 a third Q-sized gate, MLA its V output.
		 * The Q terms were measured against llama.cpp d32676d77 on
		 * the CPU (tests/data/llamacpp-runs: one 4 n_tok H d_k block
		 * short on every dense and MoE model, and H d_v more with
		 * MLA). */
		uint64_t q = (uint64_t)(arch_in(hp, gated_attention) ? 3 : 2);

		s_max = has_base ? s_base : 0;
		if (has_swa && s_swa > s_max)
			s_max = s_swa;
		t = cmul(ovf, 4 * n_tok,
			 cadd(ovf, cmul(ovf, H, s_max),
			      cadd(ovf, 2 * E,
				   cmul(ovf, q * H, (uint64_t)dk_max))));
		if (m->mla && hp->v_head_dim_mla > 0)
			t = cadd(ovf, t, cmul(ovf, 4 * n_tok,
					      cmul(ovf, H, (uint64_t)
						   hp->v_head_dim_mla)));
		/* MLA copies the latent cache transposed for V */
		if (m->mla && hp->kv_lora_rank > 0)
			t = cadd(ovf, t, cmul(ovf, cmul(ovf,
				2 * (uint64_t)n_stream, s_max),
				(uint64_t)hp->kv_lora_rank));
		if (t > a)
			a = t;
	}
	c->layer = a;

	/* CUDA FA over a non-F16 cache (fa_conv_bytes) */
	if (fa && !m->cpu && attn) {
		int64_t dv_max = hp->head_dim_v > 0 ? hp->head_dim_v : dk_max;

		c->fa_conv = fa_conv_bytes(m, ovf, tk, tv, n_stream, s_base,
					   s_swa);
		/* The copies live inside the FLASH_ATTN_EXT node's
		 * allocation, while ggml-alloc has freed the FFN tensors of
		 * the layer before (each freed after its last consumer,
		 * ggml-alloc.c ggml_gallocr_alloc_graph_impl): beside them
		 * only the residual, the attention norm, Q and the node's
		 * output. The layer phase is the larger of the two (an
		 * lfm2-1.2b CUDA run at 32768 q8_0, tests/data/
		 * llamacpp-cuda-runs, measured 136.00 MiB, the head phase,
		 * where FFN + copies would be 152). */
		c->attn_fa = cmul(ovf, 4 * n_tok, cadd(ovf, 2 * E,
			cmul(ovf, H, (uint64_t)(dk_max + dv_max))));
	}

	/* The placement term: where ggml-alloc's best fit leaves the final
	 * hidden state decides what the logits stack on (section 3.4). */
	if (gdn)
		c->g = cadd(ovf, mask, cmul(ovf, 4 * n_tok, E));
	else if (nexp > 0 && E <= 2 * fexp)
		c->g = cmul(ovf, 4 * n_tok, cadd(ovf, cmul(ovf, k + 2, E),
						 3 * nexp));
	else if (nexp > 0)
		c->g = cmul(ovf, 4 * n_tok, 3 * E);
	else
		c->g = cmul(ovf, 4 * n_tok, 2 * E);
}

/*
 * One evaluation's working state, threaded through the stages of
 * evaluate() (sections 1.1-1.9 of docs/fit.md, in order): the model and
 * options it reads, e it fills, and the sizes one stage hands the next.
 * Lifecycle: on evaluate()'s stack.
 */
struct lc_step {
	const struct lc_model *m;
	const struct qa_fit_options *opt;
	const struct qa_ggml_type *tk, *tv;	/* K and V cache types */
	struct lc_eval *e;			/* the result */
	int64_t ctx_req;			/* -c, 0 = trained */
	int64_t n_seq, n_b, n_ub;		/* -np, -b, -ub */
	int64_t n_ctx, n_ctx_seq, n_stream;	/* cells and streams */
	int64_t vmax;		/* widest V row (FA off stores V transposed) */
	uint64_t E, V;		/* embedding width, vocabulary */
	uint64_t rw, sw, rows;	/* recurrent row widths, rows */
	uint64_t n_tok, n_out;	/* reserve tokens and outputs */
	struct lc_compute cm, cd;	/* compute terms: main, draft */
	bool fa, quant_v, pipe;	/* flash attention, quantized V, PP */
};

/* llama-context.cpp l.286-301: n_ctx = pad256(-c, 0 = trained);
 * unified: one stream of n_ctx cells; else -np N streams of
 * pad256(n_ctx / N) cells (llama-kv-cache.cpp l.82). */
static void
lc_context_size(struct lc_step *p)
{
	const struct lc_model *m = p->m;
	const struct qa_fit_options *opt = p->opt;
	const struct qa_hparams *hp = p->m->hp;
	struct lc_eval *e = p->e;

	p->n_ctx = pad256(p->ctx_req > 0 ? p->ctx_req : hp->n_ctx_train);
	if (m->unified) {
		p->n_ctx_seq = p->n_ctx;
		p->n_stream = 1;
	} else {
		p->n_ctx_seq = pad256(p->n_ctx / p->n_seq);
		p->n_ctx = p->n_seq * p->n_ctx_seq;
		p->n_stream = p->n_seq;
	}
	/* n_batch = min(n_ctx, n_batch), n_ubatch = min(n_batch, n_ubatch)
	 * (llama-context.cpp, causal models). */
	if (p->n_b > p->n_ctx)
		p->n_b = p->n_ctx;
	if (p->n_ub > p->n_b)
		p->n_ub = p->n_b;
	/* The worst-case reserve (sched_reserve, graph_reserve l.2379):
	 * min(n_ctx, n_ub) tokens rounded up to a multiple of n_seq;
	 * outputs min(tokens, n_outputs_max = n_batch), not rounded. */
	p->n_tok = (uint64_t)((p->n_ub + p->n_seq - 1) / p->n_seq * p->n_seq);
	p->n_out = (uint64_t)p->n_ub;
	/* A draft-model context reserves n_outputs_max = -np outputs
	 * (common/speculative.cpp l.2294, llama-context.cpp l.824). */
	if (opt->n_outputs_max > 0 && (uint64_t)opt->n_outputs_max < p->n_out)
		p->n_out = (uint64_t)opt->n_outputs_max;
	e->d.n_ctx = p->n_ctx;
	e->d.n_ctx_seq = p->n_ctx_seq;
	e->d.n_stream = p->n_stream;
	e->d.n_tok = (int64_t)p->n_tok;
	e->d.n_out = (int64_t)p->n_out;
	e->d.unified = m->unified;
	/* flash_attn auto: on when every layer's FA op runs beside its KV,
	 * which full offload guarantees (resolve_fused_ops). */
	p->fa = opt->flash_attn != 0;
	e->d.flash_attn = p->fa;
}

/* Refusals (llama-context.cpp llama_init_from_model): a KV type's
 * block must divide the per-head width of the trunk layers (the
 * check loops il < n_layer()), and quantized V needs FA. */
static void
lc_refusals(struct lc_step *p)
{
	const struct lc_model *m = p->m;
	struct lc_eval *e = p->e;
	const struct qa_ggml_type *tk = p->tk;
	const struct qa_ggml_type *tv = p->tv;
	int64_t l;

	p->quant_v = tv->block > 1;
	for (l = 0; l < m->n_layer && !e->d.refusal[0]; l++) {
		int64_t dk, dv;

		if (!layer_has_kv(m, l))
			continue;
		head_dims(m, l, &dk, &dv);
		if (dk > 0 && dk % tk->block != 0)
			snprintf(e->d.refusal, sizeof(e->d.refusal),
				 "K cache type %s with block size %u does not "
				 "divide n_embd_head_k=%" PRId64,
				 type_label(tk), tk->block, dk);
		else if (dv > 0 && dv % tv->block != 0)
			snprintf(e->d.refusal, sizeof(e->d.refusal),
				 "V cache type %s with block size %u does not "
				 "divide n_embd_head_v=%" PRId64,
				 type_label(tv), tv->block, dv);
	}
	if (!e->d.refusal[0] && p->quant_v && !p->fa)
		snprintf(e->d.refusal, sizeof(e->d.refusal),
			 "quantized V cache requires flash_attn to be enabled");
}

/* llama-kv-cache-iswa.cpp l.73: SWA cells per stream
 * pad256(min(kv_size, n_swa (unified: x n_seq) + n_ubatch)). */
static void
lc_kv_cache(struct lc_step *p)
{
	const struct lc_model *m = p->m;
	const struct qa_hparams *hp = p->m->hp;
	struct lc_eval *e = p->e;
	bool *ovf = &p->e->ovf;
	const struct qa_ggml_type *tk = p->tk;
	const struct qa_ggml_type *tv = p->tv;
	int64_t l;

	if (hp->sliding_window > 0) {
		int64_t c = hp->sliding_window * (m->unified ? p->n_seq : 1) +
			    p->n_ub;

		e->d.cells_swa = pad256(c < p->n_ctx_seq ? c : p->n_ctx_seq);
	}
	/* FA off stores V transposed, padded to the widest layer
	 * ([TAG_V_CACHE_VARIABLE] in llama-kv-cache.cpp). */
	for (l = 0; l < m->n_placed; l++) {
		int64_t dk, dv;

		if (!layer_has_kv(m, l) && !draft_has_kv(m, l))
			continue;
		head_dims(m, l, &dk, &dv);
		if (layer_hkv(m, l) * dv > p->vmax)
			p->vmax = layer_hkv(m, l) * dv;
	}
	if (!e->d.refusal[0]) {
		for (l = 0; l < m->n_placed; l++) {
			int64_t dk, dv, hkv = layer_hkv(m, l);
			uint64_t cells, kb, vb, nv;
			bool swa, main_kv = layer_has_kv(m, l);
			bool dr = draft_has_kv(m, l);
			int dv_i = m->unit_dev[l];

			if (!main_kv && !dr)
				continue;
			head_dims(m, l, &dk, &dv);
			/* nextn blocks are never SWA */
			swa = l < m->n_layer && layer_swa(m, l);
			cells = (uint64_t)(swa ? e->d.cells_swa : p->n_ctx_seq);
			nv = dv > 0 ? (uint64_t)(p->fa ? hkv * dv : p->vmax) : 0;
			kb = cmul(ovf, cmul(ovf, (uint64_t)p->n_stream, cells),
				  row_bytes(ovf, tk, (uint64_t)(hkv * dk)));
			vb = cmul(ovf, cmul(ovf, (uint64_t)p->n_stream, cells),
				  row_bytes(ovf, tv, nv));
			if (main_kv && swa) {
				e->d.k_swa = cadd(ovf, e->d.k_swa, kb);
				e->d.v_swa = cadd(ovf, e->d.v_swa, vb);
				e->d.layers_swa++;
			} else if (main_kv) {
				e->d.k_base = cadd(ovf, e->d.k_base, kb);
				e->d.v_base = cadd(ovf, e->d.v_base, vb);
				e->d.layers_base++;
				if (l >= m->n_layer)
					e->d.layers_nextn++;
			}
			if (main_kv) {
				if (dv_i < 0)	/* a host layer's cache */
					e->host_cache = cadd(ovf, e->host_cache,
							     cadd(ovf, kb, vb));
				else
					e->dev[dv_i].kv_bytes =
						cadd(ovf, e->dev[dv_i].kv_bytes,
						     cadd(ovf, kb, vb));
				/* nextn cells: allocated, never read by a
				 * plain decode step */
				if (dv_i >= 0 && l >= m->n_layer)
					e->mtp_kv[dv_i] = cadd(ovf,
						e->mtp_kv[dv_i],
						cadd(ovf, kb, vb));
			}
			if (dr) {
				/* the draft context's own cache, in its own
				 * types: -ctkd/-ctvd, F16 by default
				 * (common.h common_params_speculative_draft)
				 */
				kb = cmul(ovf, cmul(ovf, (uint64_t)p->n_stream,
						    cells),
					  row_bytes(ovf, m->f16,
						    (uint64_t)(hkv * dk)));
				vb = cmul(ovf, cmul(ovf, (uint64_t)p->n_stream,
						    cells),
					  row_bytes(ovf, m->f16, nv));
				e->d.k_draft = cadd(ovf, e->d.k_draft, kb);
				e->d.v_draft = cadd(ovf, e->d.v_draft, vb);
				e->d.layers_draft++;
				if (dv_i < 0) {
					e->host_cache = cadd(ovf, e->host_cache,
							     cadd(ovf, kb, vb));
				} else {
					e->dev[dv_i].kv_bytes =
						cadd(ovf, e->dev[dv_i].kv_bytes,
						     cadd(ovf, kb, vb));
					e->mtp_kv[dv_i] = cadd(ovf,
						e->mtp_kv[dv_i],
						cadd(ovf, kb, vb));
				}
			}
		}
	}
	e->d.cells_base = e->d.layers_base ? p->n_ctx_seq : 0;
	if (!e->d.layers_swa)
		e->d.cells_swa = 0;
}

/* llama-memory-recurrent.cpp l.99: max(1, n_seq) (1 + n_rs_seq)
 * f32 rows per recurrent trunk layer (filters keep nextn blocks
 * out); n_rs_seq is the draft's n_max with MTP on the archs that
 * roll recurrent state back. */
static void
lc_recurrent(struct lc_step *p)
{
	const struct lc_model *m = p->m;
	struct lc_eval *e = p->e;
	bool *ovf = &p->e->ovf;
	int64_t l;

	rs_widths(ovf, m, &p->rw, &p->sw);
	p->rows = cmul(ovf, (uint64_t)p->n_seq, 1 + (uint64_t)m->n_rs_seq);
	e->d.rs_rows = p->rows;
	e->d.n_rs_seq = m->n_rs_seq;
	for (l = 0; l < m->n_layer && l < m->n_placed; l++) {
		uint64_t rb, sb;
		int dv_i = m->unit_dev[l];

		if (!layer_recurrent(m, l))
			continue;
		rb = cmul(ovf, cmul(ovf, 4, p->rows), p->rw);
		sb = cmul(ovf, cmul(ovf, 4, p->rows), p->sw);
		e->d.r_bytes = cadd(ovf, e->d.r_bytes, rb);
		e->d.s_bytes = cadd(ovf, e->d.s_bytes, sb);
		e->d.layers_recurrent++;
		if (dv_i < 0)
			e->host_cache = cadd(ovf, e->host_cache,
					     cadd(ovf, rb, sb));
		else
			e->dev[dv_i].recurrent_bytes =
				cadd(ovf, e->dev[dv_i].recurrent_bytes,
				     cadd(ovf, rb, sb));
	}
}

/* 1.7-1.8: the compute buffers (compute_terms), the host logits and
 * the MTP draft context's buffer. */
static void
lc_compute(struct lc_step *p)
{
	const struct lc_model *m = p->m;
	struct lc_eval *e = p->e;
	bool *ovf = &p->e->ovf;
	const struct qa_ggml_type *tk = p->tk;
	const struct qa_ggml_type *tv = p->tv;

	compute_terms(m, ovf, p->fa, tk, tv, p->n_seq, p->n_stream, p->n_tok, p->n_out,
		      (uint64_t)p->n_ctx_seq, (uint64_t)e->d.cells_swa,
		      e->d.layers_base > 0, e->d.layers_swa > 0, &p->cm);
	e->d.compute_host_input = galign(ovf, m, cmul(ovf, 4 * p->n_tok, p->E));
	/* The graph inputs are set on the host (llm_graph_input_*
	 * set_input), so the scheduler gives them the CUDA_Host buffer and
	 * copies them to the device; inp_embd stays there (above). */
	e->d.compute_host_cuda = m->cpu ? 0 : cadd(ovf,
		e->d.compute_host_input, p->cm.inputs);
	/* llama_context::output_reserve: V x max(n_outputs, n_seq) f32
	 * logits in host memory, grown on demand up to n_outputs_max. */
	e->d.output_host = cmul(ovf, cmul(ovf, p->V, (uint64_t)p->n_seq), 4);
	/* The MTP draft context (common/speculative.cpp: same n_ctx and
	 * n_seq, ctx_type MTP, n_outputs_max = n_parallel): its own
	 * compute buffer for one nextn block (eh_proj over the 2E concat)
	 * and the head, on the output device. An estimate. */
	memset(&p->cd, 0, sizeof(p->cd));
	if (m->draft) {
		uint64_t dmask = cmul(ovf, cmul(ovf, (uint64_t)p->n_ctx_seq,
						p->n_tok), p->fa ? 2 : 4);
		uint64_t hd = cadd(ovf, cmul(ovf, 4 * (uint64_t)p->n_seq, p->V),
				   cmul(ovf, 4 * (uint64_t)p->n_seq, p->E));
		uint64_t ld = cadd(ovf, cadd(ovf, dmask, p->cm.layer),
				   cmul(ovf, 8 * p->n_tok, p->E));

		/* without an MTP graph the draft runs the whole model: its
		 * layer phase is the main one's */
		if (!m->mtp_graph)
			ld = cadd(ovf, p->cm.inputs, p->cm.layer);
		e->d.compute_draft = cadd(ovf, p->cm.inputs_head,
					  hd > ld ? hd : ld);
	}
}

/* Pipeline parallelism also needs full offload and no tensor
 * overrides (llama-context.cpp l.428-455): layers kept on the host
 * (-ngl) or experts kept there (--n-cpu-moe, an override) turn it
 * off, and the x4 input copies with it. */
static void
lc_pipeline(struct lc_step *p)
{
	const struct lc_model *m = p->m;
	size_t j;

	p->pipe = m->pipeline;
	for (j = 0; p->pipe && j <= (size_t)m->n_placed; j++)
		if (m->unit_dev[j] < 0 || m->unit_cpu_exp[j])
			p->pipe = false;
}

/* Each device: its weights, caches and compute, the margin left, and
 * what a decode step reads there. */
static void
lc_devices(struct lc_step *p)
{
	const struct lc_model *m = p->m;
	const struct qa_fit_options *opt = p->opt;
	const struct qa_hparams *hp = p->m->hp;
	struct lc_eval *e = p->e;
	bool *ovf = &p->e->ovf;
	size_t j;

	for (j = 0; j < m->n_dev; j++) {
		struct qa_fit_device *d = &e->dev[j];
		uint64_t used, exp = 0, skip_w = 0, c, tight, margin;
		uint64_t nx_exp = 0, head_w = 0, nonexp;
		uint64_t fa_phase = cadd(ovf, p->cm.attn_fa, p->cm.fa_conv);
		uint64_t layer = fa_phase > p->cm.layer ? fa_phase :
				 p->cm.layer;
		uint64_t head = cadd(ovf, p->cm.head, p->cm.g);
		size_t u;

		d->first_layer = d->last_layer = -1;
		for (u = 0; u <= (size_t)m->n_placed; u++) {
			if (m->unit_dev[u] != (int32_t)j)
				continue;
			if (m->unit_cpu_exp[u]) {
				/* --n-cpu-moe: the experts stay on the host,
				 * the rest of the layer on the device */
				d->weights_bytes = cadd(ovf, d->weights_bytes,
							m->unit_w[u] -
							m->unit_exp[u]);
			} else {
				d->weights_bytes = cadd(ovf, d->weights_bytes,
							m->unit_w[u]);
				exp = cadd(ovf, exp, m->unit_exp[u]);
			}
			/* nextn blocks are read only by the draft: not
			 * part of one no-speculation token */
			if (u >= (size_t)m->n_layer &&
			    u < (size_t)m->n_placed) {
				skip_w = cadd(ovf, skip_w, m->unit_w[u] -
					      m->unit_exp[u]);
				if (!m->unit_cpu_exp[u])
					nx_exp = cadd(ovf, nx_exp,
						      m->unit_exp[u]);
			}
			if (u == (size_t)m->n_placed) {
				d->has_output = true;
				head_w = cadd(ovf, m->unit_w[u], m->tied_read);
				continue;
			}
			if (d->first_layer < 0)
				d->first_layer = (int32_t)u;
			d->last_layer = (int32_t)u;
		}
		if (d->first_layer < 0 && !d->has_output) {
			c = tight = 0;
		} else if (p->pipe) {
			/* ggml-backend.cpp GGML_SCHED_MAX_COPIES: the graph
			 * inputs duplicated 4 times on every device */
			c = cmul(ovf, SCHED_COPIES, p->cm.inputs);
			tight = cadd(ovf, c, d->has_output &&
				     p->cm.head > layer ? p->cm.head : layer);
			c = cadd(ovf, c, d->has_output && head > layer ?
				 head : layer);
		} else {
			uint64_t lp = cadd(ovf, p->cm.inputs, layer);
			uint64_t hp_c = cadd(ovf, p->cm.inputs_head, head);
			uint64_t ht = cadd(ovf, p->cm.inputs_head, p->cm.head);

			c = d->has_output && hp_c > lp ? hp_c : lp;
			tight = d->has_output && ht > lp ? ht : lp;
		}
		if (d->has_output && m->draft) {
			c = cadd(ovf, c, e->d.compute_draft);
			tight = cadd(ovf, tight, e->d.compute_draft);
		}
		d->compute_bytes = c;
		d->compute_tight_bytes = tight;
		/* llama-server puts the projector (--mmproj) whole on the
		 * first GPU (tools/mtmd/clip.cpp backend selection). */
		if (j == 0 && !m->cpu && m->inv->mmproj.file)
			d->weights_bytes = cadd(ovf, d->weights_bytes,
						m->inv->mmproj.bytes);
		/* --margin 0 means 0; the options default is --fit's
		 * 1024 MiB (qa_fit_options_init). */
		margin = opt->margin_bytes;
		d->overhead_bytes = m->cpu ? 0 : margin;
		d->runtime_bytes = m->cpu ? 0 :
			qa_fit_cuda_runtime_bytes(m->inv->hp.arch_raw);
		used = cadd(ovf, cadd(ovf, d->weights_bytes, d->kv_bytes),
			    cadd(ovf, d->recurrent_bytes,
				 cadd(ovf, d->compute_bytes,
				      d->overhead_bytes)));
		d->usable_bytes = m->usable[j];
		d->free_bytes = m->usable[j] >= used ?
				(int64_t)((m->usable[j] - used) & INT64_MAX) :
				-(int64_t)((used - m->usable[j]) & INT64_MAX);
		/* Decode reads every non-expert weight, n_used / n_expert
		 * of the expert bytes, and the whole cache per token; the
		 * nextn blocks' weights and cells only when drafting, and
		 * one recurrent row per sequence, not the rollback
		 * snapshots. A verification pass of n drafts reads the
		 * experts n + 1 tokens route to; each draft token reads the
		 * nextn block, the head and the draft's cells. */
		nonexp = d->weights_bytes - exp;
		nonexp = nonexp > skip_w ? nonexp - skip_w : 0;
		if (d->has_output)
			nonexp = cadd(ovf, nonexp, m->tied_read);
		e->read_bytes[j] = cadd(ovf, nonexp,
					cadd(ovf, d->kv_bytes -
					     (e->mtp_kv[j] < d->kv_bytes ?
					      e->mtp_kv[j] : d->kv_bytes),
					     d->recurrent_bytes /
					     (1 + (uint64_t)m->n_rs_seq)));
		e->pass_bytes[j] = e->read_bytes[j];
		exp = exp > nx_exp ? exp - nx_exp : 0;
		if (hp->n_expert > 0 && hp->n_expert_used > 0) {
			double share = qa_moe_touched_share(
				(uint32_t)hp->n_expert_used,
				(uint32_t)hp->n_expert,
				(uint32_t)m->n_draft + 1);

			e->read_bytes[j] = cadd(ovf, e->read_bytes[j],
						cmul(ovf, exp / (uint64_t)
						     hp->n_expert,
						     (uint64_t)
						     hp->n_expert_used));
			e->pass_bytes[j] = cadd(ovf, e->pass_bytes[j],
						(uint64_t)((double)exp * share));
			nx_exp = nx_exp / (uint64_t)hp->n_expert *
				 (uint64_t)hp->n_expert_used;
		} else {
			e->read_bytes[j] = cadd(ovf, e->read_bytes[j], exp);
			e->pass_bytes[j] = cadd(ovf, e->pass_bytes[j], exp);
		}
		e->draft_bytes[j] = cadd(ovf, cadd(ovf, skip_w, nx_exp),
					 cadd(ovf, head_w, e->mtp_kv[j]));
		if (j == 0 && !m->cpu && m->inv->mmproj.file) {
			/* the projector is read for images only */
			e->read_bytes[j] -= e->read_bytes[j] >
					    m->inv->mmproj.bytes ?
					    m->inv->mmproj.bytes : 0;
			e->pass_bytes[j] -= e->pass_bytes[j] >
					    m->inv->mmproj.bytes ?
					    m->inv->mmproj.bytes : 0;
			e->draft_bytes[j] -= e->draft_bytes[j] >
					     m->inv->mmproj.bytes ?
					     m->inv->mmproj.bytes : 0;
		}
	}
}

/* Layers kept on the host (-ngl) and experts kept there
 * (--n-cpu-moe) are host memory, at their stored size: the CUDA
 * row padding and alignment are not applied there. */
static void
lc_host_weights(struct lc_step *p)
{
	const struct lc_model *m = p->m;
	struct lc_eval *e = p->e;
	bool *ovf = &p->e->ovf;
	size_t j;

	for (j = 0; j <= (size_t)m->n_placed; j++) {
		if (m->unit_dev[j] < 0)
			e->host_w = cadd(ovf, e->host_w, m->unit_w_file[j]);
		else if (m->unit_cpu_exp[j])
			e->host_w = cadd(ovf, e->host_w, m->unit_exp_file[j]);
	}
}

/*
 * One evaluation at a requested context and KV types: the whole of
 * sections 1.1-1.9 for every device. Sets e->d.refusal when llama.cpp
 * would refuse to create the context. Each stage below is one step of
 * llama.cpp's context creation; a backend hook (a measured device, a
 * CUDA query) slots in between lc_compute and lc_devices.
 */
static void
evaluate(const struct lc_model *m, const struct qa_fit_options *opt,
	 int64_t ctx_req, const struct qa_ggml_type *tk,
	 const struct qa_ggml_type *tv, struct lc_eval *e)
{
	const struct qa_hparams *hp = m->hp;
	struct lc_step step = {
		.m = m, .opt = opt, .tk = tk, .tv = tv, .e = e,
		.ctx_req = ctx_req,
		.n_seq = opt->parallel > 0 ? opt->parallel : 1,
		.n_b = opt->batch > 0 ? opt->batch : DEFAULT_BATCH,
		.n_ub = opt->ubatch > 0 ? opt->ubatch : DEFAULT_UBATCH,
		.E = hp->n_embd > 0 ? (uint64_t)hp->n_embd : 0,
		.V = hp->n_vocab > 0 ? (uint64_t)hp->n_vocab : 0,
	};

	memset(e, 0, sizeof(*e));
	lc_context_size(&step);
	lc_refusals(&step);
	lc_kv_cache(&step);
	lc_recurrent(&step);
	lc_compute(&step);
	lc_pipeline(&step);
	lc_devices(&step);
	lc_host_weights(&step);
}

static bool
eval_fits(const struct lc_model *m, const struct lc_eval *e)
{
	size_t j;

	if (e->ovf || e->d.refusal[0])
		return false;
	for (j = 0; j < m->n_dev; j++)
		if (e->dev[j].free_bytes < 0)
			return false;
	return true;
}

/* The default split back in place: nothing on the host. */
static void
reset_split(struct lc_model *m)
{
	size_t u;

	for (u = 0; u <= (size_t)m->n_placed; u++) {
		m->unit_dev[u] = m->base_dev[u];
		m->unit_cpu_exp[u] = false;
	}
	m->searched = false;
}

static void
assign(struct lc_model *m, size_t from, size_t to, int32_t dev)
{
	for (; from < to; from++)
		m->unit_dev[from] = dev;
}

/*
 * The split llama.cpp's --fit (on by default) moves to when the default
 * one overflows a device (common/fit.cpp): the devices filled from the
 * last to the first with as many whole layers as fit (the output unit
 * on the last), the first device taking the rest. Units [0, host) stay
 * on the host (-ngl) and units [0, cpu_exp) keep their experts there
 * (--n-cpu-moe). True when every device fits; unit_dev holds the split.
 */
static bool
greedy_split(struct lc_model *m, const struct qa_fit_options *opt,
	     int64_t ctx, const struct qa_ggml_type *tk,
	     const struct qa_ggml_type *tv, struct lc_eval *e, size_t host,
	     size_t cpu_exp)
{
	size_t n_units = (size_t)m->n_placed + 1, end = n_units, u, j;

	for (u = 0; u < n_units; u++) {
		m->unit_cpu_exp[u] = u < cpu_exp;
		m->unit_dev[u] = u < host ? -1 : 0;
	}
	if (host >= n_units)
		return false;	/* the output layer needs a device */
	for (j = m->n_dev - 1; j >= 1; j--) {
		/* smallest start s in [host, end] with [s, end) fitting on
		 * device j: fewer units never need more memory */
		size_t lo = host, hi = end;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			assign(m, host, mid, (int32_t)j - 1);
			assign(m, mid, end, (int32_t)j);
			evaluate(m, opt, ctx, tk, tv, e);
			if (!e->ovf && !e->d.refusal[0] &&
			    e->dev[j].free_bytes >= 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		assign(m, lo, end, (int32_t)j);
		end = lo;
	}
	assign(m, host, end, 0);
	evaluate(m, opt, ctx, tk, tv, e);
	return eval_fits(m, e);
}

/* Whether the fit may move layers: GPUs to place on and no -ts given. */
static bool
may_search(const struct lc_model *m, const struct qa_fit_options *opt)
{
	return !m->cpu && opt->gpus.n > 0 &&
	       !(opt->given & QA_FIT_GIVEN_TS);
}

/*
 * Does the model fit on the GPUs at ctx: with the default split, else
 * with the split --fit would move to (several GPUs). unit_dev is left at
 * the placement that fits, or the default one.
 */
static bool
fits_gpus(struct lc_model *m, const struct qa_fit_options *opt, int64_t ctx,
	  const struct qa_ggml_type *tk, const struct qa_ggml_type *tv,
	  struct lc_eval *e)
{
	reset_split(m);
	evaluate(m, opt, ctx, tk, tv, e);
	if (eval_fits(m, e) || !may_search(m, opt) || m->n_dev < 2)
		return eval_fits(m, e);
	if (greedy_split(m, opt, ctx, tk, tv, e, 0, 0)) {
		m->searched = true;
		return true;
	}
	reset_split(m);
	evaluate(m, opt, ctx, tk, tv, e);
	return false;
}

/*
 * When nothing fits on the GPUs alone, what --fit falls back to: the
 * experts of the first K layers on the host (--n-cpu-moe K) for MoE
 * models, else the first K layers on the host (-ngl). The smallest K
 * that fits (binary search: more on the host never needs more VRAM);
 * unit_dev holds that placement and *k_out is K. False when even all
 * of it on the host does not fit.
 */
static bool
partial_offload(struct lc_model *m, const struct qa_fit_options *opt,
		int64_t ctx, const struct qa_ggml_type *tk,
		const struct qa_ggml_type *tv, struct lc_eval *e, bool *moe,
		int64_t *k_out)
{
	size_t lo = 1, hi = (size_t)m->n_layer, u;
	bool experts = false;

	for (u = 0; u < (size_t)m->n_placed; u++)
		if (m->unit_exp[u])
			experts = true;
	*moe = experts;
	if (!may_search(m, opt) || m->n_layer <= 0)
		return false;
	if (!(experts ? greedy_split(m, opt, ctx, tk, tv, e, 0, hi) :
			greedy_split(m, opt, ctx, tk, tv, e, hi, 0)))
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (experts ? greedy_split(m, opt, ctx, tk, tv, e, 0, mid) :
			      greedy_split(m, opt, ctx, tk, tv, e, mid, 0))
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!(experts ? greedy_split(m, opt, ctx, tk, tv, e, 0, lo) :
			greedy_split(m, opt, ctx, tk, tv, e, lo, 0)))
		return false;
	m->searched = true;
	*k_out = (int64_t)lo;
	return true;
}

/*
 * Largest context that fits with K = V = t: binary search over multiples
 * of 256 n_stream from 4096 (--fit's fit_params_min_ctx) up to the
 * trained context (--fit never exceeds it, section 1.10). -1 when the
 * type is refused or not even the minimum fits.
 */
static int64_t
max_context(struct lc_model *m, const struct qa_fit_options *opt,
	    const struct qa_ggml_type *t, struct lc_eval *e)
{
	int64_t n_seq = opt->parallel > 0 ? opt->parallel : 1;
	int64_t step = 256 * n_seq;
	int64_t cap = m->hp->n_ctx_train > 0 ? m->hp->n_ctx_train :
					       NO_TRAIN_CAP;
	int64_t lo, hi, min_ctx = MIN_CONTEXT < cap ? MIN_CONTEXT : cap;

	lo = (min_ctx + step - 1) / step;
	hi = cap / step;
	if (hi < lo)
		hi = lo;
	if (!fits_gpus(m, opt, lo * step, t, t, e))
		return -1;
	if (fits_gpus(m, opt, hi * step, t, t, e))
		return hi * step;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;

		if (fits_gpus(m, opt, mid * step, t, t, e))
			lo = mid;
		else
			hi = mid;
	}
	return lo * step;
}

static const struct qa_ggml_type *
kv_type(const char *name, char *err, size_t errlen)
{
	const struct qa_ggml_type *t;

	if (!name || !*name)
		name = "f16";
	t = qa_ggml_type_by_name(name);
	if (!t || t->block == 0) {
		snprintf(err, errlen, "unknown KV cache type '%s'", name);
		return NULL;
	}
	return t;
}

static void
add_note(struct qa_fit_result *out, const char *note)
{
	if (note && out->n_notes < sizeof(out->notes) / sizeof(out->notes[0]))
		out->notes[out->n_notes++] = note;
}

/*
 * The model as llama.cpp's loader and context see it (load_tensors,
 * create_memory, the architecture switches), and the devices it is
 * placed on. Returns the nextn (MTP) blocks past n_layer.
 */
static int64_t
describe_model(struct lc_model *m, const struct qa_inventory *inv,
	       const struct qa_fit_options *opt)
{
	const struct qa_hparams *hp = &inv->hp;
	int64_t mtp_layers;
	size_t j;

	memset(m, 0, sizeof(*m));
	m->inv = inv;
	m->hp = hp;
	m->n_layer = hp->n_layer;
	mtp_layers = hp->n_layer_all > hp->n_layer ?
		     hp->n_layer_all - hp->n_layer : 0;
	/* load_tensors splits n_layer_all + 1 units for every arch; nextn
	 * blocks get main-context KV unless the arch filters them, weights
	 * only when the MTP draft loads them (--spec-type mtp), and the
	 * draft a context of its own (llama-model.cpp create_memory,
	 * common/speculative.cpp). */
	m->n_placed = m->n_layer + mtp_layers;
	m->nextn_kv = mtp_layers > 0 && !arch_in(hp, nextn_filtered) &&
		     inv->kind == QA_KIND_GGUF;
	/* --spec-type draft-mtp makes the draft context for any model with
	 * nextn blocks; without an MTP graph (glm4moe, glm4, exaone4, ...)
	 * it holds every block's cache and reruns the whole model, and the
	 * nextn weights stay skipped (a llama-server run of GLM-4.5-Air in
	 * tests/data/llamacpp-runs/mtp-draft shows both contexts). */
	m->draft = opt->mtp && mtp_layers > 0;
	m->mtp_graph = arch_in(hp, mtp_graph);
	m->nextn_weights = m->draft && m->mtp_graph;
	m->draft_all_layers = m->draft && (arch_in(hp, draft_unfiltered) ||
					 !m->mtp_graph);
	/* --spec-draft-n-max, 3 by default (common/common.h
	 * common_params_speculative_draft.n_max); --num-speculative-tokens
	 * sets it. The main context keeps that many recurrent rows per
	 * sequence for rollback on the archs that roll back. */
	m->n_draft = !m->draft || !m->mtp_graph ? 0 :
		    opt->num_speculative_tokens > 0 ?
		    opt->num_speculative_tokens : 3;
	if (m->n_draft > QA_MTP_MAX_DRAFT)
		m->n_draft = QA_MTP_MAX_DRAFT;
	m->n_rs_seq = m->draft && arch_in(hp, rs_rollback) ?
		     (uint32_t)m->n_draft : 0;
	m->h2 = arch_in(hp, second_hidden);
	m->unified = opt->kv_unified;
	m->n_pos = arch_has(inv, QA_GGUF_ROPE_DIMENSION_SECTIONS) ? 4 : 1;
	m->f16 = qa_ggml_type_by_name("F16");
	/* Gemma 3n / Gemma 4: layers from n_layer_kv_from_start on reuse
	 * an earlier cache (attention.shared_kv_layers; gemma3n fixes 20). */
	m->kv_from_start = m->n_layer;
	if (arch_int(inv, QA_GGUF_ATTN_SHARED_KV_LAYERS) > 0 &&
	    arch_int(inv, QA_GGUF_ATTN_SHARED_KV_LAYERS) < m->n_layer)
		m->kv_from_start = m->n_layer -
				  arch_int(inv, QA_GGUF_ATTN_SHARED_KV_LAYERS);
	else if (arch_is(hp, "gemma3n") && m->n_layer > 20)
		m->kv_from_start = 20;
	/* MLA iff the GGUF carries key_length_mla (llama-hparams.cpp
	 * is_mla); an HF config with kv_lora_rank is MLA by definition. */
	m->mla = hp->kv_lora_rank > 0 &&
		(arch_has(inv, QA_GGUF_ATTN_KEY_LENGTH_MLA) ||
		 inv->kind != QA_KIND_GGUF);
	m->rwkv = arch_is(hp, "rwkv6") || arch_is(hp, "rwkv7") ||
		 arch_is(hp, "arwkv7") || arch_is(hp, "rwkv6qwen2");
	m->lfm2 = (arch_is(hp, "lfm2") || arch_is(hp, "lfm2moe")) &&
		 hp->head_kv_per_layer;
	m->falcon_h1 = arch_is(hp, "falcon-h1");
	m->dk_swa = arch_int(inv, QA_GGUF_ATTN_KEY_LENGTH_SWA);
	m->dv_swa = arch_int(inv, QA_GGUF_ATTN_VALUE_LENGTH_SWA);
	m->rwkv_shift = arch_int(inv, QA_GGUF_LLM_TOKEN_SHIFT_COUNT);
	m->rwkv_head = arch_int(inv, QA_GGUF_WKV_HEAD_SIZE);
	m->lfm2_lcache = arch_int(inv, QA_GGUF_SHORTCONV_L_CACHE);

	if (opt->gpus.n == 0) {
		/* Host only: one CPU device whose memory is not checked. */
		m->n_dev = 1;
		m->cpu = true;
		m->usable[0] = UINT64_C(1) << 60;
	} else {
		m->n_dev = opt->gpus.n > QA_GPU_MAX ? QA_GPU_MAX : opt->gpus.n;
		for (j = 0; j < m->n_dev; j++) {
			m->usable[j] = opt->gpus.dev[j].usable_bytes;
			m->bw[j] = opt->gpus.dev[j].bandwidth_gbs;
		}
		/* A device named "CPU" is the CPU backend (the corpus logs):
		 * no CUDA padding, no pipeline copies, no margin. */
		m->cpu = m->n_dev == 1 &&
			strcasecmp(opt->gpus.dev[0].name, "CPU") == 0;
	}
	/* Pipeline parallelism: >1 device, full offload, -sm layer
	 * (llama-context.cpp l.428-455). */
	m->pipeline = m->n_dev > 1;
	return mtp_layers;
}

/* The split llama.cpp's --fit moved to (m->searched), as the result's
 * placement: layers per device, and what stays in host RAM. */
static void
report_placement(struct qa_fit_result *out, const struct lc_model *m,
		 const struct lc_eval *e, bool offload, bool moe,
		 int64_t offload_k, uint64_t shortfall, int32_t shortfall_dev)
{
	struct qa_fit_placement *pl = &out->placement;
	size_t u;

	pl->chosen = true;
	pl->n_gpu_layers = -1;
	for (u = 0; u < (size_t)m->n_placed; u++)
		if (m->unit_dev[u] >= 0)
			pl->tensor_split[m->unit_dev[u]] += 1;
	if (offload && !moe)
		pl->n_gpu_layers = m->n_placed + 1 - offload_k;
	pl->n_cpu_moe = offload && moe ? offload_k : 0;
	pl->host_cache_bytes = e->host_cache;
	pl->partial = offload;
	pl->gpu_shortfall_bytes = offload ? shortfall : 0;
	pl->shortfall_device = offload ? shortfall_dev : -1;
}

/* The notes every llama.cpp fit carries: what is measured, what is
 * closed form, and how the options shape the caches. */
static void
context_notes(struct qa_fit_result *out, struct qa_arena *a,
	      const struct lc_model *m, const struct qa_fit_options *opt,
	      bool offload, int64_t mtp_layers)
{
	const struct qa_hparams *hp = m->hp;

	if (opt->gpus.n == 0)
		add_note(out, "host only: device memory is not checked");
	else if (!m->cpu)
		add_note(out, "the CUDA pool (MMQ, FA scratch, cuBLAS) grows "
			 "on demand and is not deterministic: the margin "
			 "covers it");
	if (m->inv->mmproj.file && !m->cpu)
		add_note(out, qa_arena_printf(a, "projector %s: its weights "
			 "(%.2f MiB) are on GPU0; its compute buffer, which "
			 "clip.cpp reserves at a warm-up image size set by the "
			 "projector type (tools/mtmd/clip.cpp, warmup) and "
			 "llama-server adds to its --fit target "
			 "(mtmd_get_memory_usage, tools/server/"
			 "server-context.cpp l.1113-1135), is not counted: "
			 "keep room for it", m->inv->mmproj.file,
			 (double)m->inv->mmproj.bytes / (1024.0 * 1024.0)));
	add_note(out, "compute buffer: a closed form of ggml-alloc's "
		 "placement of the worst-case reserve graph "
		 "(llama-context.cpp sched_reserve), on the safe side by the "
		 "placement term; devices also carry the value without it "
		 "(compute_tight_bytes); KV and state are exact");
	if (m->pipeline && !offload)
		add_note(out, "more than one GPU: pipeline parallelism keeps "
			 "4 copies of the graph inputs per device "
			 "(code-derived, not measured)");
	if (hp->n_ctx_train <= 0)
		add_note(out, "no trained context: largest context searched "
			 "up to 1048576");
	else
		add_note(out, "largest contexts are capped at the trained "
			 "context, as llama.cpp --fit does");
	if (m->unified)
		add_note(out, "--kv-unified: one cache of n_ctx cells shared by "
			 "the sequences (llama-server's default when -np is not "
			 "given: 4 slots, tools/server/server.cpp)");
	else if (opt->parallel > 1)
		add_note(out, "-np N as N streams of n_ctx/N cells (kv_unified "
			 "off: llama-completion, llama-cli and an explicit -np "
			 "in llama-server; --kv-unified for one shared cache)");
	if (mtp_layers > 0)
		add_note(out, qa_arena_printf(a, "%s; %s", m->nextn_kv ?
			 "the nextn (MTP) blocks get KV cells in the main "
			 "context that only a draft reads (create_memory passes "
			 "no layer filter for this arch)" :
			 "the nextn (MTP) blocks have no main-context cache "
			 "(create_memory filters them out)", m->draft &&
			 !m->mtp_graph ? "--mtp on: llama.cpp makes the draft "
			 "context, but this arch has no MTP graph: the draft "
			 "holds every block's cache and reruns the whole model, "
			 "the nextn weights stay unloaded, and no speculation "
			 "gain follows" : m->draft ?
			 "--mtp on: nextn weights loaded, a draft context with "
			 "its own F16 KV (-ctkd/-ctvd) and compute buffer on the "
			 "output device (common/speculative.cpp), recurrent "
			 "state rows x(1 + draft n_max 3) where the arch rolls "
			 "it back" : "their weights are not loaded without "
			 "--spec-type mtp (TENSOR_SKIP)"));
}

/*
 * The largest contexts per KV type (the result's max_context_*), and the
 * context the fit is for: -c, else the largest that fits with the KV
 * types asked, else --fit's floor or the trained context.
 */
static int64_t
context_to_size(struct lc_model *m, const struct qa_fit_options *opt,
		const struct qa_ggml_type *tk, const struct qa_ggml_type *tv,
		struct lc_eval *e, struct qa_fit_result *out)
{
	const struct qa_hparams *hp = m->hp;
	int64_t ctx;

	out->max_context_f16 = max_context(m, opt,
					   qa_ggml_type_by_name("F16"), e);
	out->max_context_q8_0 = max_context(m, opt,
					    qa_ggml_type_by_name("Q8_0"), e);
	out->max_context_q4_0 = max_context(m, opt,
					    qa_ggml_type_by_name("Q4_0"), e);
	ctx = opt->ctx;
	if (ctx < 0) {
		ctx = tk == tv ? max_context(m, opt, tk, e) : -1;
		if (ctx < 0)	/* --fit's floor, or the trained context */
			ctx = hp->n_ctx_train > 0 &&
			      hp->n_ctx_train < MIN_CONTEXT ?
			      hp->n_ctx_train : MIN_CONTEXT;
	}
	return ctx;
}

int
qa_fit_llamacpp_ex(const struct qa_inventory *inv,
		   const struct qa_fit_options *opt, struct qa_fit_result *out,
		   struct qa_fit_llamacpp_detail *detail, char *err,
		   size_t errlen)
{
	/* The contract keeps result strings in the inventory's arena; the
	 * arena is the one mutable part of a const inventory. */
	struct qa_arena *a = (struct qa_arena *)&inv->arena;
	const struct qa_hparams *hp = &inv->hp;
	const struct qa_ggml_type *tk, *tv;
	struct lc_model m;
	struct lc_eval *e;
	int64_t ctx, mtp_layers, offload_k = 0;
	int64_t gpu_ctx;
	uint64_t shortfall = 0;
	int32_t shortfall_dev = -1;
	double secs = 0, pass_secs = 0;
	bool bw_known = true, tight = false, fits = true;
	bool gpu_fit, offload = false, moe = false;
	size_t j;

	memset(out, 0, sizeof(*out));
	out->engine = QA_ENGINE_LLAMACPP;
	if (hp->n_layer <= 0 || hp->n_embd <= 0) {
		snprintf(err, errlen, "no block count or embedding length to "
			 "size the KV cache from");
		return -1;
	}
	if (hp->n_layer_all > QA_FIT_MAX_LAYERS) {
		snprintf(err, errlen, "%lld blocks: llama.cpp loads at most %d "
			 "(LLAMA_MAX_LAYERS)", (long long)hp->n_layer_all,
			 QA_FIT_MAX_LAYERS);
		return -1;
	}
	if (!(tk = kv_type(opt->kv_k, err, errlen)) ||
	    !(tv = kv_type(opt->kv_v, err, errlen)))
		return -1;
	mtp_layers = describe_model(&m, inv, opt);
	if (place_weights(&m, opt, a) != 0) {
		snprintf(err, errlen, "out of memory or size overflow placing "
			 "the weights");
		return -1;
	}
	e = qa_arena_alloc(a, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}

	ctx = context_to_size(&m, opt, tk, tv, e, out);
	/* The placement: the default split, the split --fit moves to, or
	 * when nothing fits on the GPUs the partial offload it falls back
	 * to (common/fit.cpp). */
	gpu_fit = fits_gpus(&m, opt, ctx, tk, tv, e);
	if (!gpu_fit && !e->d.refusal[0]) {
		/* What all on the GPUs would lack, before --fit offloads. */
		int64_t over = 0;

		reset_split(&m);
		evaluate(&m, opt, ctx, tk, tv, e);
		/* free_bytes lies in [-INT64_MAX, INT64_MAX]; so does the
		 * sum, saturated (a hostile header makes it huge), so that
		 * -over below stays defined */
		for (j = 0; j < m.n_dev; j++)
			if (__builtin_sub_overflow(over, e->dev[j].free_bytes,
						   &over) || over == INT64_MIN)
				over = e->dev[j].free_bytes < 0 ? INT64_MAX :
				       -INT64_MAX;
		if (over <= 0 && m.n_dev > 1 && may_search(&m, opt)) {
			/* Room enough together, yet no split of whole layers
			 * fits: the split --fit tries leaves one device
			 * short (it stays a fit failure, not "0 MiB more"). */
			greedy_split(&m, opt, ctx, tk, tv, e, 0, 0);
			for (j = 0; j < m.n_dev; j++)
				if (e->dev[j].free_bytes < -over) {
					over = -e->dev[j].free_bytes;
					shortfall_dev = (int32_t)j;
				}
			reset_split(&m);
		}
		shortfall = over > 0 ? (uint64_t)over : 0;
		offload = partial_offload(&m, opt, ctx, tk, tv, e, &moe,
					  &offload_k);
	}
	if (!gpu_fit && !offload)
		reset_split(&m);
	evaluate(&m, opt, ctx, tk, tv, e);
	if (e->ovf) {
		snprintf(err, errlen, "size overflow computing the fit");
		return -1;
	}
	out->context = e->d.n_ctx;
	out->kv_type_k = type_label(tk);
	out->kv_type_v = type_label(tv);
	out->n_devices = m.n_dev;
	out->host_bytes = cadd(&e->ovf, m.host_w, e->host_w);
	if (m.searched)
		report_placement(out, &m, e, offload, moe, offload_k,
				 shortfall, shortfall_dev);
	for (j = 0; j < m.n_dev; j++) {
		struct qa_fit_device *d = &out->devices[j];

		*d = e->dev[j];
		if (opt->gpus.n == 0) {
			snprintf(d->name, sizeof(d->name), "CPU");
		} else {
			snprintf(d->name, sizeof(d->name), "%s",
				 opt->gpus.dev[j].name);
			d->vram_bytes = opt->gpus.dev[j].vram_bytes;
		}
		out->totals_weights += d->weights_bytes;
		out->totals_kv += d->kv_bytes;
		out->totals_recurrent += d->recurrent_bytes;
		out->totals_compute += d->compute_bytes;
		if (d->free_bytes < 0)
			fits = false;
		else if ((uint64_t)d->free_bytes < d->usable_bytes / 10 ||
			 (uint64_t)d->free_bytes < d->compute_bytes / 7)
			tight = true;
		if (m.bw[j] == 0)
			bw_known = false;
		else {
			secs += (double)e->read_bytes[j] /
				((double)m.bw[j] * 1e9);
			/* layer split: the devices work in turn */
			pass_secs += ((double)e->pass_bytes[j] +
				      (double)m.n_draft *
				      (double)e->draft_bytes[j]) /
				     ((double)m.bw[j] * 1e9);
		}
	}
	if (opt->gpus.n == 0) {
		bw_known = false;
		tight = false;
	}
	/* With layers or experts in host RAM decode is bound by the host's
	 * memory bandwidth, which quantaudit does not know. */
	if (offload)
		bw_known = false;
	out->decode_tokens_per_s_max = bw_known && secs > 0 ? 1.0 / secs : 0;
	if (m.n_draft > 0) {
		double acc[QA_MTP_MAX_DRAFT];
		size_t na = qa_mtp_acceptance(hp->arch_raw ? hp->arch_raw :
					      hp->arch, m.n_draft, acc,
					      &out->mtp_acceptance_source);

		out->mtp_draft_tokens = m.n_draft;
		out->mtp_tokens_per_pass = qa_mtp_tokens_per_pass(acc, na);
		out->decode_tokens_per_s_mtp = bw_known && pass_secs > 0 ?
			out->mtp_tokens_per_pass / pass_secs : 0;
	}
	out->formula = formula_text;
	if (e->d.refusal[0]) {
		out->verdict = "does-not-fit";
		add_note(out, qa_arena_printf(a, "llama.cpp refuses this "
					      "context: %s", e->d.refusal));
	} else {
		out->verdict = !fits || offload ? "does-not-fit" :
			       tight ? "tight" : "fits";
	}
	if (detail)
		*detail = e->d;
	if (offload) {
		add_note(out, qa_arena_printf(a, "nothing fits on the GPUs "
			 "alone: llama.cpp's --fit (on by default) keeps %s "
			 "in host RAM (%s %" PRId64 ") and runs, with decode "
			 "bound by host memory bandwidth (common/fit.cpp)",
			 moe ? "the experts of the first layers" :
			 "the first layers", moe ? "--n-cpu-moe" : "-ngl",
			 moe ? offload_k : m.n_placed + 1 - offload_k));
		/* An explicit or trained context: --fit would have lowered
		 * an unset -c first. max_context reuses e and moves the
		 * split, so this comes after both were read out. */
		gpu_ctx = opt->ctx >= 0 && tk == tv ?
			  max_context(&m, opt, tk, e) : -1;
		if (gpu_ctx > 0)
			add_note(out, qa_arena_printf(a, "with -c unset, "
				 "--fit lowers the context first and keeps all "
				 "of it on the GPUs at about %" PRId64 " tokens;"
				 " the placement is for -c %" PRId64, gpu_ctx,
				 out->context));
	} else if (m.searched) {
		add_note(out, "the default split overflows a GPU: llama.cpp's "
			 "--fit (on by default) moves whole layers between the "
			 "GPUs, and the numbers are for the split it moves to "
			 "(common/fit.cpp)");
	}
	context_notes(out, a, &m, opt, offload, mtp_layers);
	return 0;
}

int
qa_fit_llamacpp(const struct qa_inventory *inv,
		const struct qa_fit_options *opt, struct qa_fit_result *out,
		char *err, size_t errlen)
{
	return qa_fit_llamacpp_ex(inv, opt, out, NULL, err, errlen);
}

/* ---- llama.cpp log parser (calibration) ---- */

static void
copy_word(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	while (src[i] && !isspace((unsigned char)src[i]) && i + 1 < n) {
		dst[i] = src[i];
		i++;
	}
	dst[i] = '\0';
}

/* Value after "MiB" label patterns: parses a double at s, or -1. */
static double
num_at(const char *s)
{
	char *end;
	double v;

	while (*s == ' ')
		s++;
	errno = 0;
	v = strtod(s, &end);
	return end == s || errno ? -1 : v;
}

static int64_t
int_at(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	return end == s || errno ? -1 : (int64_t)v;
}

static void
parse_cmd(struct qa_llamacpp_log *o, const char *line)
{
	const char *p = line;
	char w[512], arg[512];

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		copy_word(w, sizeof(w), p);
		p += strlen(w);
		while (*p && !isspace((unsigned char)*p))
			p++;
		while (*p == ' ' || *p == '\t')
			p++;
		copy_word(arg, sizeof(arg), p);
		/* flags: no argument to step over */
		if (!strcmp(w, "-kvu") || !strcmp(w, "--kv-unified")) {
			o->kvu = 1;
			continue;
		}
		if (!strcmp(w, "-m") || !strcmp(w, "--model"))
			snprintf(o->model, sizeof(o->model), "%s", arg);
		else if (!strcmp(w, "-c") || !strcmp(w, "--ctx-size"))
			o->ctx = int_at(arg);
		else if (!strcmp(w, "-ctk") || !strcmp(w, "--cache-type-k"))
			copy_word(o->ctk, sizeof(o->ctk), arg);
		else if (!strcmp(w, "-ctv") || !strcmp(w, "--cache-type-v"))
			copy_word(o->ctv, sizeof(o->ctv), arg);
		else if (!strcmp(w, "-fa") || !strcmp(w, "--flash-attn"))
			o->fa = !strcmp(arg, "on") ? 1 :
				!strcmp(arg, "off") ? 0 : -1;
		else if (!strcmp(w, "-np") || !strcmp(w, "--parallel"))
			o->np = (int)int_at(arg);
		else if (!strcmp(w, "-ub") || !strcmp(w, "--ubatch-size"))
			o->ub = (int)int_at(arg);
		else
			continue;
		p += strlen(arg);
	}
}

/* "  CPU compute buffer size =   323.01 MiB" -> dev "CPU", 323.01. */
static void
parse_buf(struct qa_llamacpp_log_buf *b, size_t *n, const char *colon,
	  const char *what)
{
	const char *p = colon + 1, *eq = strstr(colon, "=");
	char dev[32];

	if (!eq || *n >= QA_LLAMACPP_LOG_ROWS)
		return;
	while (*p == ' ')
		p++;
	copy_word(dev, sizeof(dev), p);
	if (strncmp(p + strlen(dev), what, strlen(what)) != 0)
		return;
	snprintf(b[*n].dev, sizeof(b[*n].dev), "%s", dev);
	b[*n].mib = num_at(eq + 1);
	(*n)++;
}

static double
after(const char *s, const char *label)
{
	const char *p = strstr(s, label);

	return p ? num_at(p + strlen(label)) : -1;
}

static void
parse_kv(struct qa_llamacpp_log *o, const char *s)
{
	struct qa_llamacpp_log_kv *k;
	const char *p;

	if (o->n_kv >= QA_LLAMACPP_LOG_ROWS)
		return;
	k = &o->kv[o->n_kv++];
	k->mib = after(s, "size =");
	p = strchr(s, '(');
	k->cells = p ? int_at(p + 1) : -1;
	p = p ? strstr(p, "cells,") : NULL;
	k->layers = p ? (int)int_at(p + 6) : -1;
	p = p ? strstr(p, "layers,") : NULL;
	k->seqs = p ? (int)int_at(p + 7) : -1;
	p = strstr(s, "K (");
	if (p) {
		copy_word(k->k_type, sizeof(k->k_type), p + 3);
		k->k_type[strcspn(k->k_type, ")")] = '\0';
		k->k_mib = after(p, "):");
	}
	p = strstr(s, "V (");
	if (p) {
		copy_word(k->v_type, sizeof(k->v_type), p + 3);
		k->v_type[strcspn(k->v_type, ")")] = '\0';
		k->v_mib = after(p, "):");
	}
}

/* "| - Host | 365 = 10 + 32 + 323 |" and the device rows with free. */
static void
parse_breakdown(struct qa_llamacpp_log *o, const char *s)
{
	struct qa_llamacpp_log_row *r;
	const char *p = strstr(s, "|   - "), *bar;
	double v[8];
	int n = 0;
	size_t len;
	char *end;

	if (!p || o->n_breakdown >= QA_LLAMACPP_LOG_ROWS)
		return;
	p += 6;
	bar = strchr(p, '|');
	if (!bar)
		return;
	r = &o->breakdown[o->n_breakdown++];
	len = (size_t)(bar - p);
	while (len && p[len - 1] == ' ')
		len--;
	snprintf(r->dev, sizeof(r->dev), "%.*s", (int)len, p);
	p = bar + 1;
	while (*p && *p != '|' && n < 8) {
		if (isdigit((unsigned char)*p) || *p == '-') {
			v[n++] = strtod(p, &end);
			if (end == p)
				break;
			p = end;
		} else {
			p++;
		}
	}
	r->total = r->free = r->self = r->model = r->context = r->compute =
		r->unaccounted = -1;
	/* Host rows: self = model + context + compute; device rows: total
	 * free self = model + context + compute unaccounted. */
	if (n == 4) {
		r->self = v[0];
		r->model = v[1];
		r->context = v[2];
		r->compute = v[3];
	} else if (n >= 7) {
		r->total = v[0];
		r->free = v[1];
		r->self = v[2];
		r->model = v[3];
		r->context = v[4];
		r->compute = v[5];
		r->unaccounted = v[6];
	}
}

/* Strips "0.00.007.320 E " timestamps; returns the message and level. */
static const char *
strip_stamp(const char *s, char *level)
{
	const char *p = s;

	*level = 0;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	if (p != s && p[0] == ' ' && p[1] && p[2] == ' ') {
		*level = p[1];
		return p + 3;
	}
	return s;
}

int
qa_fit_parse_llamacpp_log(const char *path, struct qa_llamacpp_log *out,
			  char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	bool have_cmd = false;

	memset(out, 0, sizeof(*out));
	out->ctx = -1;
	out->fa = -1;
	out->rc = -1;
	out->kvu = -1;
	out->eval_tps = out->smi_peak_mib = -1;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char lvl;
		const char *s = strip_stamp(line, &lvl), *c;

		if (!strncmp(line, "# cmd:", 6)) {
			parse_cmd(out, line + 6);
			have_cmd = true;
			continue;
		}
		/* "# rc=N" may follow output on the same line. */
		if ((c = strstr(line, "# rc=")) != NULL) {
			out->rc = (int)int_at(c + 5);
			continue;
		}
		if ((c = strstr(line, "# nvidia-smi peak during run: used MiB = "))
		    != NULL) {
			out->smi_peak_mib = strtod(c + 41, NULL);
			continue;
		}
		if (strstr(s, "common_perf_print:        eval time") &&
		    (c = strstr(s, "ms per token,")) != NULL) {
			out->eval_tps = strtod(c + 13, NULL);
			continue;
		}
		if (strstr(s, "llama_model_loader: loaded meta data")) {
			/* A new load (--fit dry run first): keep the last. */
			out->n_kv = out->n_compute = out->n_model = 0;
			out->n_breakdown = 0;
			out->has_rs = false;
			continue;
		}
		if (!strncmp(s, "llama_kv_cache: size =", 22)) {
			parse_kv(out, s);
		} else if (!strncmp(s, "llama_memory_recurrent: size =", 30)) {
			out->has_rs = true;
			out->rs_mib = after(s, "size =");
			c = strstr(s, "R (");
			out->r_mib = c ? after(c, "):") : -1;
			c = strstr(s, "S (");
			out->s_mib = c ? after(c, "):") : -1;
		} else if (!strncmp(s, "sched_reserve:", 14) ||
			   !strncmp(s, "llama_context:", 14)) {
			/* the context's own settings, whatever program
			 * chose them (llama-server turns kv_unified on
			 * when -np is not given) */
			if ((c = strstr(s, "kv_unified")) != NULL &&
			    strchr(c, '='))
				out->kvu = strstr(strchr(c, '='), "true") ?
					   1 : 0;
			if ((c = strstr(s, "n_seq_max")) != NULL &&
			    strchr(c, '=') && out->np == 0)
				out->np = (int)int_at(strchr(c, '=') + 1);
			if (strstr(s, "compute buffer size ="))
				parse_buf(out->compute, &out->n_compute,
					  strchr(s, ':'), " compute buffer");
		} else if (!strncmp(s, "load_tensors:", 13)) {
			if (strstr(s, "model buffer size ="))
				parse_buf(out->model_buf, &out->n_model,
					  strchr(s, ':'), " model buffer");
		} else if (strstr(s, "memory_breakdown_print: |   - ")) {
			parse_breakdown(out, s);
		}
		if (lvl == 'E' && !out->failure[0]) {
			size_t n = strcspn(s, "\r\n");

			snprintf(out->failure, sizeof(out->failure), "%.*s",
				 (int)n, s);
		}
	}
	fclose(f);
	if (!have_cmd) {
		snprintf(err, errlen, "%s: no '# cmd:' line (not a captured "
			 "llama.cpp log)", path);
		return -1;
	}
	return 0;
}
