/* SPDX-License-Identifier: MIT */
/*
 * Derived summaries of an inventory: tensor roles, parameter and byte
 * totals, the per-component table, the MTP summary and llama.cpp's guess
 * of the file type from the tensor types.
 */
#include "analysis/analysis.h"

#include <stdlib.h>
#include <string.h>

#include "core/dtypes.h"
#include "core/gguf_keys.h"

static void
classify_tensors(struct qa_inventory *inv)
{
	struct qa_role_context ctx;
	const char **names;
	struct qa_role_result *res;
	uint32_t i;
	size_t n;

	ctx.n_layer = inv->hp.n_layer;
	ctx.n_mtp = inv->hp.n_mtp;
	ctx.layer_kind = inv->hp.layer_kind;
	ctx.n_layer_kind = inv->hp.layer_kind ? inv->hp.n_layer_all : 0;
	n = inv->n_tensors ? inv->n_tensors : 1;
	names = qa_big_alloc(n * sizeof(*names));
	res = qa_big_alloc(n * sizeof(*res));
	if (!names || !res) {
		for (i = 0; i < inv->n_tensors; i++) {
			struct qa_tensor *t = &inv->tensors[i];
			struct qa_role_result r = qa_role_classify(t->name, &ctx);

			t->role = r.role;
			t->layer = r.layer;
			t->mtp = r.mtp;
		}
		goto out;
	}
	for (i = 0; i < inv->n_tensors; i++)
		names[i] = inv->tensors[i].name;
	qa_role_classify_all(names, inv->n_tensors, &ctx, res);
	for (i = 0; i < inv->n_tensors; i++) {
		struct qa_tensor *t = &inv->tensors[i];

		t->role = res[i].role;
		t->layer = res[i].layer;
		t->mtp = res[i].mtp;
	}
out:
	qa_big_free(names, n * sizeof(*names));
	qa_big_free(res, n * sizeof(*res));
}

static const char *
component_name(const struct qa_tensor *t)
{
	return t->mtp ? "mtp" : qa_role_name(t->role);
}

/* Component order: role enum order, then "mtp" last. */
static int
component_rank(const struct qa_tensor *t)
{
	return t->mtp ? QA_ROLE_COUNT : (int)t->role;
}

static struct qa_component *
component_for(struct qa_inventory *inv, struct qa_component **by_rank,
	      const struct qa_tensor *t)
{
	int rank = component_rank(t);

	if (!by_rank[rank]) {
		struct qa_component *c = &inv->components[inv->n_components++];

		c->name = component_name(t);
		by_rank[rank] = c;
	}
	return by_rank[rank];
}

static void
count_dtype(struct qa_inventory *inv, struct qa_component *c,
	    const struct qa_tensor *t)
{
	uint32_t i;

	for (i = 0; i < c->n_dtypes; i++)
		if (strcmp(c->dtypes[i].dtype, t->dtype) == 0)
			break;
	if (i == c->n_dtypes) {
		/* At most one dtype per distinct type name; tensors of a
		 * component rarely span more than a handful. */
		void *n = qa_arena_grow(&inv->arena, c->dtypes, c->n_dtypes,
					c->n_dtypes + 1, sizeof(*c->dtypes));
		if (!n) {
			inv->out_of_memory = true;
			return;
		}
		c->dtypes = n;
		c->dtypes[i].dtype = t->dtype;
		c->n_dtypes++;
	}
	c->dtypes[i].tensors++;
	c->dtypes[i].bytes += t->bytes;
	c->dtypes[i].params += t->params;
}

/* Precision histogram: one entry per module precision label (NVFP4,
 * BF16, GPTQ int4 g128...), counting modules, their logical parameters
 * and every byte of their tensors (src/analysis/quant_modules.c). */
static void
count_precision(struct qa_inventory *inv, struct qa_component *c,
		const struct qa_module *m)
{
	const char *label = m->precision ? m->precision : "unknown";
	uint32_t i;

	for (i = 0; i < c->n_precisions; i++)
		if (strcmp(c->precisions[i].precision, label) == 0)
			break;
	if (i == c->n_precisions) {
		void *n = qa_arena_grow(&inv->arena, c->precisions,
					c->n_precisions, c->n_precisions + 1,
					sizeof(*c->precisions));
		if (!n) {
			inv->out_of_memory = true;
			return;
		}
		c->precisions = n;
		c->precisions[i].precision = label;
		c->n_precisions++;
	}
	c->precisions[i].modules++;
	c->precisions[i].params += m->params;
	c->precisions[i].bytes += m->bytes;
}

static void
build_components(struct qa_inventory *inv)
{
	struct qa_component *by_rank[QA_ROLE_COUNT + 1] = { 0 };
	struct qa_component *sorted;
	uint32_t i, k;

	inv->components = qa_arena_array(&inv->arena, QA_ROLE_COUNT + 1,
					 sizeof(*inv->components));
	if (!inv->components) {
		inv->out_of_memory = true;
		return;
	}
	inv->n_components = 0;
	inv->params = inv->bytes = 0;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		struct qa_component *c = component_for(inv, by_rank, t);

		c->tensors++;
		c->params += t->params;
		c->bytes += t->bytes;
		count_dtype(inv, c, t);
		inv->params += t->params;
		inv->bytes += t->bytes;
	}
	/* A module counts in the component of its payload tensor. */
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];

		if (m->n_tensors == 0 || m->tensors[0] >= inv->n_tensors)
			continue;
		count_precision(inv, component_for(inv, by_rank,
					&inv->tensors[m->tensors[0]]), m);
	}
	/* Deterministic order: by rank (role order, mtp last), not by
	 * first appearance. */
	sorted = qa_arena_array(&inv->arena, QA_ROLE_COUNT + 1,
				sizeof(*sorted));
	if (!sorted) {
		inv->out_of_memory = true;
		return;
	}
	for (i = 0, k = 0; i <= QA_ROLE_COUNT; i++)
		if (by_rank[i])
			sorted[k++] = *by_rank[i];
	inv->components = sorted;
}


/*
 * llama.cpp's guess (llama_model_loader): the ggml type held by the most
 * tensors, ties going to the first in name order, mapped to a llama_ftype.
 */
static int64_t
ftype_of_type(int t)
{
	switch (t) {
	case 0: return 0;	/* F32 -> ALL_F32 */
	case 1: return 1;
	case 30: return 32;	/* BF16 */
	case 2: return 2;
	case 3: return 3;
	case 6: return 8;
	case 7: return 9;
	case 8: return 7;
	case 10: return 10;
	case 11: return 12;	/* Q3_K -> Q3_K_M */
	case 12: return 15;	/* Q4_K -> Q4_K_M */
	case 13: return 17;	/* Q5_K -> Q5_K_M */
	case 14: return 18;
	case 34: return 36;
	case 35: return 37;
	case 16: return 19;
	case 17: return 20;
	case 22: return 28;
	case 18: return 23;
	case 19: return 24;
	case 29: return 31;
	case 20: return 25;
	case 23: return 30;
	case 21: return 26;
	case 39: return 38;	/* MXFP4 -> MXFP4_MOE */
	case 40: return 39;
	case 41: return 40;
	case 42: return 41;
	default: return 0;
	}
}

/*
 * The type most tensors have, ties going to the type that reached the
 * winning count first in name order (strcmp): that is the type whose
 * last name in that order comes first, so one pass keeping each type's
 * count and greatest name decides it, without sorting the names. Only
 * 2-D and larger tensors when matrices.
 */
static int
most_common_type(const struct qa_inventory *inv, bool matrices)
{
	uint32_t counts[64] = { 0 };
	const char *last[64] = { NULL };
	int best = -1, t;
	uint32_t i;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *x = &inv->tensors[i];

		t = x->ggml_type;
		if (t < 0 || t >= 64 || !qa_ggml_type(t) ||
		    qa_ggml_type(t)->block == 0 ||
		    (matrices && x->n_dims < 2))
			continue;
		counts[t]++;
		if (!last[t] || strcmp(x->name, last[t]) > 0)
			last[t] = x->name;
	}
	for (t = 0; t < 64; t++)
		if (counts[t] && (best < 0 || counts[t] > counts[best] ||
				  (counts[t] == counts[best] &&
				   strcmp(last[t], last[best]) < 0)))
			best = t;
	return best;
}

static void
guess_file_type(struct qa_inventory *inv)
{
	int best_type;

	inv->file_type_guessed = NULL;
	inv->dominant_type = NULL;
	inv->dominant_matrix_type = NULL;
	inv->file_type_declared = inv->hp.file_type >= 0 ?
		qa_llama_ftype_label(inv->hp.file_type) : NULL;
	/* a fork's file type, when its tensor types were taken
	 * (formats/gguf.c): bitnet.cpp's 40 is MOSTLY_I2_S, not Q1_0;
	 * ik_llama.cpp's own values start at 135 */
	if (inv->ggml_fork.bitnet_ftype)
		inv->file_type_declared = "I2_S";
	else if (inv->ggml_fork.ik && !inv->file_type_declared &&
		 inv->hp.file_type >= 0)
		inv->file_type_declared = qa_ik_ftype_label(inv->hp.file_type);
	if (inv->kind != QA_KIND_GGUF || inv->n_tensors == 0)
		return;
	best_type = most_common_type(inv, false);
	if (best_type >= 0) {
		inv->dominant_type = qa_ggml_type(best_type)->name;
		inv->file_type_guessed =
			qa_llama_ftype_label(ftype_of_type(best_type));
	}
	/* The type a file-type label speaks of: the weight matrices'.
	 * Norms and other 1-D tensors stay F32 under every file type and
	 * may outnumber the matrices of any one type. */
	best_type = most_common_type(inv, true);
	if (best_type >= 0)
		inv->dominant_matrix_type = qa_ggml_type(best_type)->name;
}

static bool
recurrent_kind(uint8_t k)
{
	return k == QA_LAYER_MAMBA || k == QA_LAYER_LINEAR_ATTENTION ||
	       k == QA_LAYER_SHORT_CONV;
}

/*
 * Blocks whose tensors say another layer kind than the per-layer arrays:
 * attention projections (q/k/v/o, fused qkv, MLA) and no recurrent tensor
 * where the arrays say recurrent, or recurrent tensors (ssm_*, GDN,
 * short convolution) and no attention projection where they say
 * attention. Engines build each block from the arrays, so such a file
 * does not load (QA2110).
 */
static void
find_kind_mismatch(struct qa_inventory *inv)
{
	const struct qa_hparams *hp = &inv->hp;
	int64_t nl = hp->n_layer;
	uint8_t *seen;
	uint32_t i;
	int64_t b;

	memset(&inv->kind_mismatch, 0, sizeof(inv->kind_mismatch));
	inv->kind_mismatch.first = -1;
	if (!hp->layer_kind || nl <= 0 || nl > hp->n_layer_all)
		return;
	seen = calloc((size_t)nl, 1);	/* bit 1 attention, 2 recurrent */
	if (!seen)
		return;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		enum qa_role r = t->role;

		if (t->layer < 0 || t->layer >= nl || t->mtp)
			continue;
		if (r == QA_ROLE_ATTN_Q || r == QA_ROLE_ATTN_K ||
		    r == QA_ROLE_ATTN_V || r == QA_ROLE_ATTN_O ||
		    r == QA_ROLE_ATTN_QKV || r == QA_ROLE_MLA_Q_A ||
		    r == QA_ROLE_MLA_Q_B || r == QA_ROLE_MLA_KV_A ||
		    r == QA_ROLE_MLA_KV_B)
			seen[t->layer] |= 1;
		else if (qa_role_group(r) == QA_GROUP_SSM ||
			 r == QA_ROLE_GDN_QKV || r == QA_ROLE_GDN_GATE ||
			 r == QA_ROLE_GDN_BA)
			seen[t->layer] |= 2;
	}
	for (b = 0; b < nl; b++) {
		uint8_t k = hp->layer_kind[b];
		bool bad = (recurrent_kind(k) && seen[b] == 1) ||
			   ((k == QA_LAYER_FULL_ATTENTION ||
			     k == QA_LAYER_SLIDING_ATTENTION) && seen[b] == 2);

		if (!bad)
			continue;
		if (inv->kind_mismatch.n++ == 0) {
			inv->kind_mismatch.first = (int32_t)b;
			inv->kind_mismatch.first_has_attention = seen[b] == 1;
		}
	}
	free(seen);
}

/* model.format when no loader decided it: the container's own name (a
 * checkpoint folder is "hf"). */
static void
decide_format(struct qa_inventory *inv)
{
	uint32_t i;

	if (inv->format != QA_FORMAT_UNKNOWN)
		return;
	/* ExLlamaV2 / V3 find their layers by tensor names, not by the
	 * config (exllamav2/module.py l.116-121 "q_weight"; exllamav3/
	 * modules/linear.py is_exl3_storage l.383-387 "trellis"), so a
	 * folder of their tensors without a quantization_config is still
	 * theirs: named from the tensors, and said so (QA3016). So is HQQ's
	 * own save_to_safetensors, which writes no quantization config
	 * (mobiusml/hqq hqq/models/base.py; QA3018). */
	if (inv->kind == QA_KIND_HF_DIR || inv->kind == QA_KIND_SAFETENSORS)
		for (i = 0; i < inv->n_modules; i++)
			if (inv->modules[i].scheme == QA_SCHEME_EXL2 ||
			    inv->modules[i].scheme == QA_SCHEME_EXL3 ||
			    inv->modules[i].scheme == QA_SCHEME_HQQ) {
				enum qa_scheme s = inv->modules[i].scheme;

				inv->format = s == QA_SCHEME_EXL2 ?
					      QA_FORMAT_EXL2 :
					      s == QA_SCHEME_EXL3 ?
					      QA_FORMAT_EXL3 : QA_FORMAT_HQQ;
				inv->format_from_tensors = true;
				return;
			}
	switch (inv->kind) {
	case QA_KIND_GGUF:
		inv->format = QA_FORMAT_GGUF;
		break;
	case QA_KIND_SAFETENSORS:
		inv->format = QA_FORMAT_SAFETENSORS;
		break;
	case QA_KIND_HF_DIR:
		inv->format = QA_FORMAT_HF;
		break;
	case QA_KIND_PYTORCH:
		inv->format = QA_FORMAT_PYTORCH;
		break;
	}
}

void
qa_inventory_summarize(struct qa_inventory *inv)
{
	classify_tensors(inv);
	qa_quant_modules_build(inv);
	qa_claims_resolve(inv);
	build_components(inv);
	qa_mtp_summarize(inv);
	guess_file_type(inv);
	find_kind_mismatch(inv);
	decide_format(inv);
	inv->engines = qa_model_engines(inv);
}

const char *
qa_inv_kv_string(const struct qa_inventory *inv, const char *key)
{
	const struct qa_kv *kv = qa_inv_kv(inv, key);

	if (!kv)
		return NULL;
	if (kv->value.type == QA_V_STRING)
		return kv->value.v.str.s;
	if (kv->value.type == QA_V_ARRAY && kv->value.v.arr.kept > 0 &&
	    kv->value.v.arr.items &&
	    kv->value.v.arr.items[0].type == QA_V_STRING)
		return kv->value.v.arr.items[0].v.str.s;
	return NULL;
}

bool
qa_imatrix_of(const struct qa_inventory *inv, struct qa_imatrix *out)
{
	const struct qa_kv *en =
		qa_inv_kv(inv, QA_GGUF_QUANTIZE_IMATRIX_ENTRIES_COUNT);
	const struct qa_kv *ch =
		qa_inv_kv(inv, QA_GGUF_QUANTIZE_IMATRIX_CHUNKS_COUNT);

	out->file = qa_inv_kv_string(inv, QA_GGUF_QUANTIZE_IMATRIX_FILE);
	out->dataset = qa_inv_kv_string(inv, QA_GGUF_QUANTIZE_IMATRIX_DATASET);
	out->entries = -1;
	out->chunks = -1;
	if (en && !qa_value_as_int(&en->value, &out->entries))
		out->entries = -1;
	if (ch && !qa_value_as_int(&ch->value, &out->chunks))
		out->chunks = -1;
	return out->file || out->dataset || out->entries >= 0 ||
	       out->chunks >= 0;
}
