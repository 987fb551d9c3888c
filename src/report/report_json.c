/* SPDX-License-Identifier: MIT */
/*
 * The quantaudit/1 JSON report and the verdict rules.
 *
 * The document is streamed straight to stdio: a tensor list can hold
 * 100k entries and a metadata block a 256k-entry vocabulary, so no tree
 * is built. Output is deterministic (inventory order, fixed key order,
 * fixed number formats), pretty-printed with two-space indentation; arrays
 * of numbers and short enum strings (shape, head_kv_per_layer,
 * layer_kinds) are kept on one line. docs/json-schema.md describes every
 * field; keep the two in step. The writer itself is shared with the SARIF
 * reporter (src/core/jsonw.c).
 */
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "analysis/analysis.h"
#include "core/jsonw.h"
#include "report/report_fit.h"

/* Metadata arrays list their values only up to this many elements. */
#define META_MAX_VALUES 64
/* Nesting guard for arrays of arrays (the GGUF reader stops at 4). */
#define META_MAX_DEPTH 8

/* ---- writer helpers --------------------------------------------------- */

/* Unknown (negative) hyperparameters are omitted, not written as -1. */
static void
jw_known(struct qa_jw *w, const char *key, int64_t v)
{
	if (v >= 0)
		qa_jw_i64(w, key, v);
}

/* ---- pieces of one input ---------------------------------------------- */

static const char *
file_role_name(enum qa_file_role r)
{
	switch (r) {
	case QA_FILE_MODEL:
		return "model";
	case QA_FILE_SHARD:
		return "shard";
	case QA_FILE_INDEX:
		return "index";
	case QA_FILE_CONFIG:
		return "config";
	case QA_FILE_QUANT_CONFIG:
		return "quant-config";
	case QA_FILE_GENERATION_CONFIG:
		return "generation-config";
	case QA_FILE_TOKENIZER:
		return "tokenizer";
	case QA_FILE_MMPROJ:
		return "mmproj";
	case QA_FILE_OTHER:
		return "other";
	}
	return "other";
}

static const char *
layer_kind_name(uint8_t k)
{
	switch (k) {
	case QA_LAYER_FULL_ATTENTION:
		return "full";
	case QA_LAYER_SLIDING_ATTENTION:
		return "sliding";
	case QA_LAYER_LINEAR_ATTENTION:
		return "linear";
	case QA_LAYER_MAMBA:
		return "mamba";
	case QA_LAYER_MLP_ONLY:
		return "mlp";
	case QA_LAYER_MTP:
		return "mtp";
	case QA_LAYER_SHORT_CONV:
		return "short_conv";
	case QA_LAYER_PARALLEL_HYBRID:
		return "hybrid";
	default:
		return "unknown";
	}
}

static void
write_files(struct qa_jw *w, const struct qa_inventory *inv)
{
	uint32_t i;

	qa_jw_arr(w, "files", false);
	for (i = 0; i < inv->n_files; i++) {
		const struct qa_file *f = &inv->files[i];

		qa_jw_obj(w, NULL);
		qa_jw_str(w, "path", f->path);
		qa_jw_u64(w, "bytes", f->bytes);
		qa_jw_str(w, "format", f->format);
		qa_jw_str(w, "role", file_role_name(f->role));
		if (f->part)
			qa_jw_u64(w, "part", f->part);
		if (f->parts)
			qa_jw_u64(w, "parts", f->parts);
		if (f->gguf_version)
			qa_jw_u64(w, "gguf_version", f->gguf_version);
		if (f->big_endian)
			qa_jw_bool(w, "big_endian", true);
		if (f->header_bytes)
			qa_jw_u64(w, "header_bytes", f->header_bytes);
		if (f->tensor_count) {
			qa_jw_u64(w, "data_offset", f->data_offset);
			qa_jw_u64(w, "tensors", f->tensor_count);
		}
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
}

static void
write_hparams(struct qa_jw *w, const struct qa_hparams *hp)
{
	int64_t i;

	qa_jw_obj(w, "hparams");
	jw_known(w, "n_layer", hp->n_layer);
	jw_known(w, "n_layer_all", hp->n_layer_all);
	jw_known(w, "n_embd", hp->n_embd);
	jw_known(w, "n_head", hp->n_head);
	jw_known(w, "n_head_kv", hp->n_head_kv);
	if (hp->head_kv_per_layer && hp->n_layer_all > 0) {
		qa_jw_arr(w, "head_kv_per_layer", true);
		for (i = 0; i < hp->n_layer_all; i++)
			qa_jw_i64(w, NULL, hp->head_kv_per_layer[i]);
		qa_jw_close(w, ']');
	}
	jw_known(w, "head_dim_k", hp->head_dim_k);
	jw_known(w, "head_dim_v", hp->head_dim_v);
	jw_known(w, "n_ff", hp->n_ff);
	jw_known(w, "n_vocab", hp->n_vocab);
	jw_known(w, "n_ctx_train", hp->n_ctx_train);
	jw_known(w, "n_expert", hp->n_expert);
	jw_known(w, "n_expert_used", hp->n_expert_used);
	jw_known(w, "n_expert_shared", hp->n_expert_shared);
	jw_known(w, "n_ff_expert", hp->n_ff_expert);
	jw_known(w, "n_leading_dense", hp->n_leading_dense);
	jw_known(w, "sliding_window", hp->sliding_window);
	jw_known(w, "swa_pattern", hp->swa_pattern);
	if (hp->layer_kind && hp->n_layer_all > 0) {
		qa_jw_arr(w, "layer_kinds", true);
		for (i = 0; i < hp->n_layer_all; i++)
			qa_jw_str(w, NULL, layer_kind_name(hp->layer_kind[i]));
		qa_jw_close(w, ']');
	}
	jw_known(w, "full_attention_interval", hp->full_attention_interval);
	jw_known(w, "q_lora_rank", hp->q_lora_rank);
	jw_known(w, "kv_lora_rank", hp->kv_lora_rank);
	jw_known(w, "qk_rope_dim", hp->qk_rope_dim);
	jw_known(w, "qk_nope_dim", hp->qk_nope_dim);
	jw_known(w, "v_head_dim_mla", hp->v_head_dim_mla);
	jw_known(w, "ssm_d_conv", hp->ssm_d_conv);
	jw_known(w, "ssm_d_inner", hp->ssm_d_inner);
	jw_known(w, "ssm_d_state", hp->ssm_d_state);
	jw_known(w, "ssm_dt_rank", hp->ssm_dt_rank);
	jw_known(w, "ssm_n_group", hp->ssm_n_group);
	jw_known(w, "n_mtp", hp->n_mtp);
	qa_jw_bool(w, "tie_embeddings", hp->tie_embeddings);
	qa_jw_close(w, '}');
}

/* 8 * bytes / params; doubles, so 8 * bytes cannot wrap. */
static void
jw_bpw(struct qa_jw *w, uint64_t bytes, uint64_t params)
{
	if (params == 0)
		qa_jw_null(w, "bits_per_weight");
	else
		qa_jw_double(w, "bits_per_weight",
			  8.0 * (double)bytes / (double)params, QA_JW_BPW);
}

/* The importance matrix llama-quantize records (qa_imatrix_of). */
static void
write_imatrix(struct qa_jw *w, const struct qa_inventory *inv)
{
	struct qa_imatrix im;

	if (!qa_imatrix_of(inv, &im))
		return;
	qa_jw_obj(w, "imatrix");
	if (im.file)
		qa_jw_str(w, "file", im.file);
	if (im.dataset)
		qa_jw_str(w, "dataset", im.dataset);
	jw_known(w, "entries_count", im.entries);
	jw_known(w, "chunks_count", im.chunks);
	qa_jw_close(w, '}');
}

static void
write_quantization(struct qa_jw *w, const struct qa_inventory *inv)
{
	const struct qa_quant_config *q = &inv->quant;
	bool declared = inv->kind != QA_KIND_GGUF && q->method != QA_QM_NONE;
	char method[64];

	if (inv->kind == QA_KIND_GGUF && inv->file_type_declared)
		snprintf(method, sizeof(method), "gguf:%s",
			 inv->file_type_declared);
	else if (inv->kind == QA_KIND_GGUF)
		snprintf(method, sizeof(method), "gguf");
	else
		snprintf(method, sizeof(method), "%s",
			 qa_quant_method_name(q->method));
	qa_jw_obj(w, "quantization");
	qa_jw_str(w, "method", method);
	if (declared && q->method_raw)
		qa_jw_str(w, "method_raw", q->method_raw);
	if (declared && q->format)
		qa_jw_str(w, "format", q->format);
	if (declared && q->bits >= 0)
		qa_jw_i64(w, "bits", q->bits);
	if (declared && q->group_size >= 0)
		qa_jw_i64(w, "group_size", q->group_size);
	/* ExLlamaV2 / V3: bits as written (an average, 4.65) and lm_head's */
	if (declared && q->bpw > 0)
		qa_jw_double(w, "bits_claimed", q->bpw, QA_JW_BPW);
	if (declared && q->head_bits > 0)
		qa_jw_i64(w, "head_bits", q->head_bits);
	if (declared && q->block[0] > 0) {
		qa_jw_arr(w, "block_size", true);
		qa_jw_i64(w, NULL, q->block[0]);
		qa_jw_i64(w, NULL, q->block[1]);
		qa_jw_close(w, ']');
	}
	if (inv->hp.file_type >= 0)
		qa_jw_i64(w, "file_type", inv->hp.file_type);
	if (inv->file_type_declared)
		qa_jw_str(w, "file_type_declared", inv->file_type_declared);
	if (inv->file_type_guessed)
		qa_jw_str(w, "file_type_guessed", inv->file_type_guessed);
	if (declared && q->file)
		qa_jw_str(w, "config_file", q->file);
	else if (inv->quant_config_file)
		qa_jw_str(w, "config_file", inv->quant_config_file);
	if (declared && q->kv_cache)
		qa_jw_str(w, "kv_cache", q->kv_cache);
	if (declared && q->n_exclude + q->n_overrides + q->n_targets > 0) {
		/* the matching work (src/analysis/claims.c), so that its
		 * bound can be checked from outside */
		qa_jw_obj(w, "pattern_matching");
		qa_jw_u64(w, "patterns", (uint64_t)q->n_exclude +
			  q->n_overrides + q->n_targets);
		qa_jw_u64(w, "evaluations", q->pattern_evals);
		qa_jw_u64(w, "work", q->pattern_work);
		qa_jw_bool(w, "capped", q->patterns_capped);
		qa_jw_close(w, '}');
	}
	if (inv->kind == QA_KIND_GGUF)
		write_imatrix(w, inv);
	qa_jw_close(w, '}');
}

static void
write_components(struct qa_jw *w, const struct qa_inventory *inv)
{
	uint32_t i, k;

	qa_jw_arr(w, "components", false);
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];

		qa_jw_obj(w, NULL);
		qa_jw_str(w, "role", c->name);
		qa_jw_u64(w, "tensors", c->tensors);
		qa_jw_u64(w, "params", c->params);
		qa_jw_u64(w, "bytes", c->bytes);
		qa_jw_obj(w, "dtypes");
		for (k = 0; k < c->n_dtypes; k++)
			qa_jw_u64(w, c->dtypes[k].dtype, c->dtypes[k].tensors);
		qa_jw_close(w, '}');
		/* By module, keys in order of first appearance; empty when
		 * no tensor of the component belongs to a module (norms). */
		qa_jw_obj(w, "precisions");
		for (k = 0; k < c->n_precisions; k++) {
			qa_jw_obj(w, c->precisions[k].precision);
			qa_jw_u64(w, "modules", c->precisions[k].modules);
			qa_jw_u64(w, "params", c->precisions[k].params);
			qa_jw_u64(w, "bytes", c->precisions[k].bytes);
			qa_jw_close(w, '}');
		}
		qa_jw_close(w, '}');
		jw_bpw(w, c->bytes, c->params);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
}

/* model.layers: the per-layer precision map, one entry per block that
 * holds a weight matrix (src/report/report_text.c builds it). */
static void
write_layers(struct qa_jw *w, const struct qa_inventory *inv)
{
	struct qa_layer_map m;
	uint32_t r, c;

	if (qa_layer_map_build(inv, &m) != 0) {
		qa_layer_map_free(&m);
		return;
	}
	qa_jw_arr(w, "layers", false);
	for (r = 0; r < m.n_rows; r++) {
		qa_jw_obj(w, NULL);
		qa_jw_i64_k(w, QA_JW_K("layer"), m.layer[r]);
		qa_jw_obj(w, "roles");
		for (c = 0; c < m.n_cols; c++) {
			const char *cell = m.cells[(size_t)r * m.n_cols + c];

			if (cell)
				qa_jw_str(w, qa_role_name(m.roles[c]), cell);
		}
		qa_jw_close(w, '}');
		qa_jw_bool_k(w, QA_JW_K("mtp"), m.mtp[r]);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
	qa_layer_map_free(&m);
}

/* v, or null when negative (unknown); key a literal (jsonw.h QA_JW_K). */
static void
jw_known_or_null_k(struct qa_jw *w, const char *key, size_t key_len,
		   int64_t v)
{
	if (v >= 0)
		qa_jw_i64_k(w, key, key_len, v);
	else
		qa_jw_null_k(w, key, key_len);
}

/* A module is listed under `tensors --match` when one of its tensors
 * is. */
static bool
module_selected(const struct qa_inventory *inv, const struct qa_module *m,
		const bool *mask)
{
	uint32_t k;

	if (!mask)
		return true;
	for (k = 0; k < m->n_tensors; k++)
		if (m->tensors[k] < inv->n_tensors && mask[m->tensors[k]])
			return true;
	return false;
}

/*
 * A tensor's row in one piece (core/jsonw.h qa_jw_row_*), when every
 * string in it needs no escape: the same bytes as the field-by-field
 * writer below, at a fraction of the cost of 100k rows. False when it
 * cannot (a name to escape, no path): the caller writes it the long way.
 */
static bool
tensor_row(struct qa_jw *w, const struct qa_tensor *t, const char *role,
	   const char *path, size_t path_len)
{
	struct qa_jw_row r;
	size_t name_len, dtype_len, role_len, max, dims;

	if (!path || path_len == SIZE_MAX || !t->dtype)
		return false;
	name_len = qa_jw_plain_len(t->name);
	dtype_len = qa_jw_plain_len(t->dtype);
	if (name_len == SIZE_MAX || dtype_len == SIZE_MAX)
		return false;
	role_len = strlen(role);
	dims = t->n_dims < QA_MAX_DIMS ? t->n_dims : QA_MAX_DIMS;
	max = qa_jw_row_field_max(w, 4, name_len) +
	      qa_jw_row_field_max(w, 4, path_len) +
	      qa_jw_row_field_max(w, 6, 20) + qa_jw_row_field_max(w, 5, 20) +
	      qa_jw_row_field_max(w, 5, dtype_len) +
	      qa_jw_row_field_max(w, 5, 2 + 22 * dims) +
	      qa_jw_row_field_max(w, 4, role_len) +
	      qa_jw_row_field_max(w, 5, 11) + qa_jw_row_field_max(w, 3, 4) +
	      2 * (size_t)QA_JW_MAX_DEPTH + 2;
	if (!qa_jw_row_begin(w, &r, max))
		return false;
	qa_jw_row_str(&r, QA_JW_K("name"), t->name, name_len);
	qa_jw_row_str(&r, QA_JW_K("file"), path, path_len);
	qa_jw_row_u64(&r, QA_JW_K("offset"), t->offset);
	qa_jw_row_u64(&r, QA_JW_K("bytes"), t->bytes);
	qa_jw_row_str(&r, QA_JW_K("dtype"), t->dtype, dtype_len);
	qa_jw_row_u64s(&r, QA_JW_K("shape"), t->shape, dims);
	qa_jw_row_str(&r, QA_JW_K("role"), role, role_len);
	if (t->layer >= 0)
		qa_jw_row_i64(&r, QA_JW_K("layer"), t->layer);
	else
		qa_jw_row_raw(&r, QA_JW_K("layer"), "null", 4);
	if (t->mtp)
		qa_jw_row_raw(&r, QA_JW_K("mtp"), "true", 4);
	qa_jw_row_end(&r);
	return true;
}

/* A module's row in one piece, as tensor_row. */
static bool
module_row(struct qa_jw *w, const struct qa_module *m)
{
	const char *role = qa_role_name(m->role);
	const char *scheme = qa_scheme_name(m->scheme);
	struct qa_jw_row r;
	size_t name_len, prec_len, max;

	if (!m->name || !m->precision || !scheme)
		return false;
	name_len = qa_jw_plain_len(m->name);
	prec_len = qa_jw_plain_len(m->precision);
	if (name_len == SIZE_MAX || prec_len == SIZE_MAX)
		return false;
	max = qa_jw_row_field_max(w, 4, name_len) +
	      qa_jw_row_field_max(w, 4, strlen(role)) +
	      qa_jw_row_field_max(w, 5, 20) + qa_jw_row_field_max(w, 3, 4) +
	      qa_jw_row_field_max(w, 9, prec_len) +
	      qa_jw_row_field_max(w, 6, strlen(scheme)) +
	      qa_jw_row_field_max(w, 4, 20) + qa_jw_row_field_max(w, 10, 20) +
	      qa_jw_row_field_max(w, 6, 20) + qa_jw_row_field_max(w, 5, 20) +
	      qa_jw_row_field_max(w, 7, 5) + 2 * (size_t)QA_JW_MAX_DEPTH + 2;
	if (!qa_jw_row_begin(w, &r, max))
		return false;
	qa_jw_row_str(&r, QA_JW_K("name"), m->name, name_len);
	qa_jw_row_str(&r, QA_JW_K("role"), role, strlen(role));
	if (m->layer >= 0)
		qa_jw_row_i64(&r, QA_JW_K("layer"), m->layer);
	else
		qa_jw_row_raw(&r, QA_JW_K("layer"), "null", 4);
	if (m->mtp)
		qa_jw_row_raw(&r, QA_JW_K("mtp"), "true", 4);
	qa_jw_row_str(&r, QA_JW_K("precision"), m->precision, prec_len);
	qa_jw_row_str(&r, QA_JW_K("scheme"), scheme, strlen(scheme));
	if (m->bits >= 0)
		qa_jw_row_i64(&r, QA_JW_K("bits"), m->bits);
	else
		qa_jw_row_raw(&r, QA_JW_K("bits"), "null", 4);
	if (m->group_size >= 0)
		qa_jw_row_i64(&r, QA_JW_K("group_size"), m->group_size);
	else
		qa_jw_row_raw(&r, QA_JW_K("group_size"), "null", 4);
	qa_jw_row_u64(&r, QA_JW_K("params"), m->params);
	qa_jw_row_u64(&r, QA_JW_K("bytes"), m->bytes);
	if (m->claimed < 0)
		qa_jw_row_raw(&r, QA_JW_K("claimed"), "null", 4);
	else if (m->claimed)
		qa_jw_row_raw(&r, QA_JW_K("claimed"), "true", 4);
	else
		qa_jw_row_raw(&r, QA_JW_K("claimed"), "false", 5);
	qa_jw_row_end(&r);
	return true;
}

/* modules[]: every weight-bearing module with its measured precision
 * (src/analysis/quant_modules.c); omitted with --summary, like tensors. */
static void
write_modules(struct qa_jw *w, const struct qa_inventory *inv,
	      const bool *mask)
{
	uint32_t i;

	qa_jw_arr(w, "modules", false);
	for (i = 0; i < inv->n_modules; i++) {
		const struct qa_module *m = &inv->modules[i];

		if (!module_selected(inv, m, mask))
			continue;
		if (module_row(w, m))
			continue;
		qa_jw_obj(w, NULL);
		qa_jw_str_k(w, QA_JW_K("name"), m->name);
		qa_jw_str_k(w, QA_JW_K("role"), qa_role_name(m->role));
		jw_known_or_null_k(w, QA_JW_K("layer"), m->layer);
		if (m->mtp)
			qa_jw_bool_k(w, QA_JW_K("mtp"), true);
		qa_jw_str_k(w, QA_JW_K("precision"), m->precision);
		qa_jw_str_k(w, QA_JW_K("scheme"), qa_scheme_name(m->scheme));
		jw_known_or_null_k(w, QA_JW_K("bits"), m->bits);
		jw_known_or_null_k(w, QA_JW_K("group_size"), m->group_size);
		qa_jw_u64_k(w, QA_JW_K("params"), m->params);
		qa_jw_u64_k(w, QA_JW_K("bytes"), m->bytes);
		if (m->claimed < 0)
			qa_jw_null_k(w, QA_JW_K("claimed"));
		else
			qa_jw_bool_k(w, QA_JW_K("claimed"), m->claimed != 0);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
}

static void
write_mtp(struct qa_jw *w, const struct qa_inventory *inv)
{
	qa_jw_obj(w, "mtp");
	qa_jw_i64(w, "declared", inv->mtp.declared);
	qa_jw_i64(w, "present", inv->mtp.present);
	qa_jw_u64(w, "tensors", inv->mtp.tensors);
	qa_jw_u64(w, "bytes", inv->mtp.bytes);
	qa_jw_str(w, "status", qa_mtp_status_name(inv->mtp.status));
	if (inv->mtp.family)
		qa_jw_str(w, "family", inv->mtp.family);
	if (inv->mtp.draft_only)
		qa_jw_bool(w, "draft_only", true);
	if (inv->mtp.tensors > 0)
		qa_jw_bool(w, "loadable", inv->mtp.not_loaded == NULL);
	if (inv->mtp.not_loaded)
		qa_jw_str(w, "not_loaded", inv->mtp.not_loaded);
	if (inv->mtp.unlisted)
		qa_jw_u64(w, "unlisted_tensors", inv->mtp.unlisted);
	qa_jw_close(w, '}');
}

static void write_value(struct qa_jw *w, const char *key,
			const struct qa_value *v, int depth);

static bool
is_number_type(enum qa_value_type t)
{
	return t != QA_V_STRING && t != QA_V_ARRAY && t != QA_V_BOOL;
}

static void
write_array_value(struct qa_jw *w, const char *key, const struct qa_value *v,
		  int depth)
{
	uint64_t i;

	qa_jw_obj(w, key);
	qa_jw_str(w, "type", "array");
	qa_jw_str(w, "elem_type", qa_value_type_name(v->v.arr.elem));
	qa_jw_u64(w, "length", v->v.arr.count);
	if ((v->v.arr.items || v->v.arr.count == 0) &&
	    v->v.arr.kept == v->v.arr.count &&
	    v->v.arr.count <= META_MAX_VALUES && depth < META_MAX_DEPTH) {
		qa_jw_arr(w, "values", is_number_type(v->v.arr.elem) ||
		       v->v.arr.elem == QA_V_BOOL);
		for (i = 0; i < v->v.arr.count; i++)
			write_value(w, NULL, &v->v.arr.items[i], depth + 1);
		qa_jw_close(w, ']');
	}
	qa_jw_close(w, '}');
}

static void
write_value(struct qa_jw *w, const char *key, const struct qa_value *v,
	    int depth)
{
	switch (v->type) {
	case QA_V_U8:
	case QA_V_U16:
	case QA_V_U32:
	case QA_V_U64:
		qa_jw_u64(w, key, v->v.u);
		break;
	case QA_V_I8:
	case QA_V_I16:
	case QA_V_I32:
	case QA_V_I64:
		qa_jw_i64(w, key, v->v.i);
		break;
	case QA_V_F32:
		qa_jw_double(w, key, v->v.f, QA_JW_F32);
		break;
	case QA_V_F64:
		qa_jw_double(w, key, v->v.f, QA_JW_F64);
		break;
	case QA_V_BOOL:
		qa_jw_bool(w, key, v->v.u != 0);
		break;
	case QA_V_STRING:
		qa_jw_str(w, key, v->v.str.s ? v->v.str.s : "");
		break;
	case QA_V_ARRAY:
		write_array_value(w, key, v, depth);
		break;
	default:
		qa_jw_null(w, key);
		break;
	}
}

/* Key order, then position in kvs[] (the pointers share one array), so
 * the first occurrence of a key sorts first. */
static int
cmp_kv(const void *a, const void *b)
{
	const struct qa_kv *x = *(const struct qa_kv *const *)a;
	const struct qa_kv *y = *(const struct qa_kv *const *)b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

/*
 * Marks KVs whose key already appeared earlier (a GGUF with duplicate
 * keys, itself a finding): JSON object keys should be unique, and the
 * first occurrence is the one qa_inv_kv() and most readers use. Returns
 * NULL when there is nothing to mark or no memory (then all are written).
 */
static bool *
duplicate_keys(const struct qa_inventory *inv)
{
	const struct qa_kv **order;
	bool *dup;
	uint32_t i;

	if (inv->n_kvs < 2)
		return NULL;
	order = malloc(sizeof(*order) * inv->n_kvs);
	dup = calloc(inv->n_kvs, sizeof(*dup));
	if (!order || !dup) {
		free(order);
		free(dup);
		return NULL;
	}
	for (i = 0; i < inv->n_kvs; i++)
		order[i] = &inv->kvs[i];
	qsort(order, inv->n_kvs, sizeof(*order), cmp_kv);
	for (i = 1; i < inv->n_kvs; i++)
		if (strcmp(order[i]->key, order[i - 1]->key) == 0)
			dup[order[i] - inv->kvs] = true;
	free(order);
	return dup;
}

static void
write_metadata(struct qa_jw *w, const struct qa_inventory *inv)
{
	bool *dup = duplicate_keys(inv);
	uint32_t i;

	qa_jw_obj(w, "metadata");
	for (i = 0; i < inv->n_kvs; i++) {
		const struct qa_kv *kv = &inv->kvs[i];

		if (dup && dup[i])
			continue;
		write_value(w, kv->key, &kv->value, 0);
	}
	qa_jw_close(w, '}');
	free(dup);
}

/* model.format, model.kind and model.engines (core/model_kind.h). */
static void
write_identity(struct qa_jw *w, const struct qa_inventory *inv)
{
	unsigned i;

	qa_jw_str(w, "format", qa_model_format_name(inv->format));
	qa_jw_str(w, "kind", qa_model_kind_name(inv->model_kind));
	qa_jw_arr(w, "engines", true);
	for (i = 0; i < QA_LOADER_COUNT; i++)
		if (inv->engines & ((uint32_t)1 << i))
			qa_jw_str(w, NULL, qa_loader_engine_name(i));
	qa_jw_close(w, ']');
	if (inv->kind_info.summary) {
		uint32_t f;

		qa_jw_str(w, "kind_summary", inv->kind_info.summary);
		if (inv->kind_info.advice)
			qa_jw_str(w, "kind_advice", inv->kind_info.advice);
		qa_jw_obj(w, "kind_facts");
		for (f = 0; f < inv->kind_info.n_facts; f++) {
			const struct qa_kind_fact *kf = &inv->kind_info.facts[f];
			struct qa_value e;
			uint64_t k;

			if (kf->value.type != QA_V_ARRAY) {
				write_value(w, kf->key, &kf->value, 0);
				continue;
			}
			/* lists of names or numbers: a plain array */
			qa_jw_arr(w, kf->key, true);
			for (k = 0; qa_value_item(&kf->value, k, &e); k++)
				if (e.type == QA_V_STRING)
					qa_jw_str(w, NULL, e.v.str.s);
				else
					write_value(w, NULL, &e, 1);
			qa_jw_close(w, ']');
		}
		qa_jw_close(w, '}');
	}
}

static void
write_model(struct qa_jw *w, const struct qa_inventory *inv)
{
	qa_jw_obj(w, "model");
	qa_jw_str(w, "architecture", inv->hp.arch);
	qa_jw_str(w, "name", inv->hp.name);
	write_identity(w, inv);
	write_hparams(w, &inv->hp);
	qa_jw_u64(w, "params", inv->params);
	qa_jw_u64(w, "bytes", inv->bytes);
	jw_bpw(w, inv->bytes, inv->params);
	write_quantization(w, inv);
	write_components(w, inv);
	write_layers(w, inv);
	write_mtp(w, inv);
	qa_jw_close(w, '}');
}

static void
write_tensors(struct qa_jw *w, const struct qa_inventory *inv,
	      const bool *mask)
{
	uint32_t i, d, last_file = UINT32_MAX;
	const char *path = NULL;
	size_t path_len = SIZE_MAX;

	qa_jw_arr(w, "tensors", false);
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		const char *role = qa_role_name(t->role);

		if (mask && !mask[i])
			continue;
		/* one file's path is on each of its tensors: checked for
		 * escapes once, then copied */
		if (t->file != last_file) {
			last_file = t->file;
			path = t->file < inv->n_files ?
			       inv->files[t->file].path : NULL;
			path_len = path ? qa_jw_plain_len(path) : SIZE_MAX;
		}
		if (tensor_row(w, t, role, path, path_len))
			continue;
		qa_jw_obj(w, NULL);
		qa_jw_str_k(w, QA_JW_K("name"), t->name);
		if (path_len != SIZE_MAX)
			qa_jw_str_plain_k(w, QA_JW_K("file"), path, path_len);
		else
			qa_jw_str_k(w, QA_JW_K("file"), path);
		qa_jw_u64_k(w, QA_JW_K("offset"), t->offset);
		qa_jw_u64_k(w, QA_JW_K("bytes"), t->bytes);
		qa_jw_str_k(w, QA_JW_K("dtype"), t->dtype);
		qa_jw_arr_k(w, QA_JW_K("shape"), true);
		for (d = 0; d < t->n_dims && d < QA_MAX_DIMS; d++)
			qa_jw_u64(w, NULL, t->shape[d]);
		qa_jw_close(w, ']');
		qa_jw_str_k(w, QA_JW_K("role"), role);
		if (t->layer >= 0)
			qa_jw_i64_k(w, QA_JW_K("layer"), t->layer);
		else
			qa_jw_null_k(w, QA_JW_K("layer"));
		if (t->mtp)
			qa_jw_bool_k(w, QA_JW_K("mtp"), true);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
}

static void
write_findings(struct qa_jw *w, const struct qa_inventory *inv)
{
	char code[16];
	uint32_t i;

	qa_jw_arr(w, "findings", false);
	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];
		const char *detail = f->message ? f->message : "";

		qa_jw_obj(w, NULL);
		snprintf(code, sizeof(code), "QA%04u", (unsigned)f->rule->code);
		qa_jw_str(w, "code", code);
		qa_jw_str(w, "id", f->rule->id);
		qa_jw_str(w, "category", qa_category_name(f->rule->category));
		qa_jw_str(w, "severity", qa_severity_name(f->severity));
		/* message = rule summary, then the detail when there is one:
		 * readable on its own; "detail" keeps the bare part. */
		qa_jw_key(w, "message");
		if (*detail) {
			size_t n = strlen(f->rule->summary) + strlen(detail) + 3;
			char *m = malloc(n);

			if (m) {
				snprintf(m, n, "%s: %s", f->rule->summary,
					 detail);
				qa_jw_literal(w, m);
				free(m);
			} else {
				qa_jw_literal(w, detail);
			}
		} else {
			qa_jw_literal(w, f->rule->summary);
		}
		qa_jw_str(w, "detail", detail);
		if (f->tensor)
			qa_jw_str(w, "tensor", f->tensor);
		if (f->file)
			qa_jw_str(w, "file", f->file);
		if (f->offset >= 0)
			qa_jw_i64(w, "offset", f->offset);
		if (f->count > 1)
			qa_jw_i64(w, "count", f->count);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
}

/* "findings_dropped": the findings counted past the caps of
 * qa_inv_finding, by severity and by rule; omitted when none. */
static void
write_dropped(struct qa_jw *w, const struct qa_inventory *inv)
{
	uint64_t by[QA_SEV_NONE], total = qa_inventory_dropped(inv, by);
	char code[16];
	uint32_t k;

	if (!total)
		return;
	qa_jw_obj(w, "findings_dropped");
	qa_jw_u64(w, "total", total);
	qa_jw_u64(w, "error", by[QA_SEV_ERROR]);
	qa_jw_u64(w, "warning", by[QA_SEV_WARNING]);
	qa_jw_u64(w, "info", by[QA_SEV_INFO]);
	qa_jw_arr(w, "rules", false);
	for (k = 0; k < inv->n_tally; k++) {
		const struct qa_rule_tally *t = &inv->tally[k];

		if (t->disabled || t->dropped == 0 ||
		    (unsigned)t->severity >= QA_SEV_NONE)
			continue;
		snprintf(code, sizeof(code), "QA%04u", (unsigned)t->rule->code);
		qa_jw_obj(w, NULL);
		qa_jw_str(w, "code", code);
		qa_jw_str(w, "id", t->rule->id);
		qa_jw_str(w, "severity", qa_severity_name(t->severity));
		qa_jw_u64(w, "count", t->dropped);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
}

static void
write_input(struct qa_jw *w, const struct qa_inventory *inv, const bool *mask,
	    const struct qa_report_options *opt)
{
	qa_jw_obj(w, NULL);
	qa_jw_str(w, "path", inv->path);
	/* A model read from an archive is of kind "archive"; its own kind
	 * is archive.kind. */
	qa_jw_str(w, "kind", inv->archive.file ? "archive" :
		  qa_inv_kind_name(inv->kind));
	if (inv->input_note)
		qa_jw_str(w, "source", inv->input_note);
	if (inv->archive.file) {
		qa_jw_obj(w, "archive");
		qa_jw_str(w, "file", inv->archive.file);
		qa_jw_str(w, "format", inv->archive.format);
		qa_jw_str(w, "kind", inv->archive.kind);
		qa_jw_str(w, "read", inv->archive.read);
		qa_jw_u64(w, "members", inv->archive.members);
		qa_jw_u64(w, "bytes", inv->archive.bytes);
		qa_jw_close(w, '}');
	}
	if (inv->mmproj.file) {
		qa_jw_obj(w, "projector");
		qa_jw_str(w, "file", inv->mmproj.file);
		qa_jw_u64(w, "bytes", inv->mmproj.bytes);
		qa_jw_u64(w, "params", inv->mmproj.params);
		qa_jw_u64(w, "tensors", inv->mmproj.tensors);
		qa_jw_close(w, '}');
	}
	write_files(w, inv);
	write_model(w, inv);
	write_metadata(w, inv);
	if (!opt->summary) {
		write_tensors(w, inv, mask);
		write_modules(w, inv, mask);
	}
	write_findings(w, inv);
	write_dropped(w, inv);
	qa_report_fit_json(w, inv);
	if (inv->fit_error)
		qa_jw_str(w, "fit_error", inv->fit_error);
	qa_jw_str(w, "verdict", inv->verdict ? inv->verdict :
		  qa_verdict(inv, opt->fail_on));
	qa_jw_close(w, '}');
}

/*
 * The document in pieces: the head and the opening of "inputs", one
 * element per input as soon as it is audited, then the advisories and
 * the verdict of the run. The writer (and its buffer) lives in
 * st->state from begin to end.
 */
/* The head every quantaudit/1 document starts with: schema and tool. */
static void
json_head(struct qa_jw *w)
{
	qa_jw_obj(w, NULL);
	qa_jw_str(w, "schema", "quantaudit/1");
	qa_jw_obj(w, "tool");
	qa_jw_str(w, "name", "quantaudit");
	qa_jw_str(w, "version", QA_VERSION);
	qa_jw_close(w, '}');
}

/* The streamed document's state: the writer, and the inputs that could
 * not be audited, written after "inputs" as "errors". */
struct json_doc {
	struct qa_jw w;
	struct json_error {
		char *path, *message;
		int exit_code;
	} *errors;
	size_t n_errors;
	bool out_of_memory;
};

int
qa_report_json_begin(struct qa_report_stream *st)
{
	/* not calloc: the writer's buffer is 64 KiB, written as it fills */
	struct json_doc *d = malloc(sizeof(*d));

	st->state = d;
	if (!d)
		return -1;
	d->errors = NULL;
	d->n_errors = 0;
	d->out_of_memory = false;
	qa_jw_init(&d->w, st->out);
	json_head(&d->w);
	qa_jw_arr(&d->w, "inputs", false);
	return 0;
}

static char *
dup_text(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	return p ? memcpy(p, s, n) : NULL;
}

int
qa_report_json_failed(struct qa_report_stream *st, const char *path,
		      int exit_code, const char *error)
{
	struct json_doc *d = st->state;
	struct json_error *e;

	if (!d)
		return -1;
	e = realloc(d->errors, (d->n_errors + 1) * sizeof(*e));
	if (!e) {
		d->out_of_memory = true;
		return -1;
	}
	d->errors = e;
	e += d->n_errors;
	e->path = dup_text(path);
	e->message = dup_text(error);
	e->exit_code = exit_code;
	if (!e->path || !e->message) {
		free(e->path);
		free(e->message);
		d->out_of_memory = true;
		return -1;
	}
	d->n_errors++;
	return 0;
}

int
qa_report_json_input(struct qa_report_stream *st,
		     const struct qa_inventory *inv, const bool *mask,
		     size_t index, bool several)
{
	struct json_doc *d = st->state;

	(void)index;
	(void)several;
	if (!d)
		return -1;
	write_input(&d->w, inv, mask, st->opt);
	return d->w.failed ? -1 : 0;
}

int
qa_report_json_end(struct qa_report_stream *st, size_t n,
		   const char *verdict)
{
	const struct qa_report_options *opt = st->opt;
	struct json_doc *d = st->state;
	struct qa_jw *w;
	size_t i;
	int rc;

	(void)n;
	if (!d)
		return -1;
	w = &d->w;
	qa_jw_close(w, ']');
	if (d->n_errors) {
		/* what could not be audited is no pass: the document says
		 * so, as a line of --format jsonl does */
		qa_jw_arr(w, "errors", false);
		for (i = 0; i < d->n_errors; i++) {
			qa_jw_obj(w, NULL);
			qa_jw_str(w, "path", d->errors[i].path);
			qa_jw_i64(w, "exit", d->errors[i].exit_code);
			qa_jw_str(w, "message", d->errors[i].message);
			qa_jw_close(w, '}');
			free(d->errors[i].path);
			free(d->errors[i].message);
		}
		qa_jw_close(w, ']');
		verdict = "fail";
	}
	free(d->errors);
	if (opt->n_advisories) {
		qa_jw_arr(w, "advisories", false);
		for (i = 0; i < opt->n_advisories; i++) {
			const struct qa_advisory *a = &opt->advisories[i];
			char code[16];

			snprintf(code, sizeof(code), "QA%04u",
				 (unsigned)a->rule->code);
			qa_jw_obj(w, NULL);
			qa_jw_str(w, "code", code);
			qa_jw_str(w, "id", a->rule->id);
			qa_jw_str(w, "category",
				  qa_category_name(a->rule->category));
			qa_jw_str(w, "severity", qa_severity_name(a->severity));
			qa_jw_str(w, "message", a->message);
			qa_jw_close(w, '}');
		}
		qa_jw_close(w, ']');
	}
	qa_jw_str(w, "verdict", verdict);
	qa_jw_close(w, '}');
	qa_jw_raw(w, "\n", 1);
	rc = qa_jw_finish(w);
	if (d->out_of_memory)
		rc = -1;
	free(d);
	st->state = NULL;
	if (rc != 0 || fflush(st->out) != 0 || ferror(st->out))
		return -1;
	return 0;
}

/* ---- JSON Lines: one whole quantaudit/1 document per model --------- */

int
qa_report_jsonl_begin(struct qa_report_stream *st)
{
	struct qa_jw *w = malloc(sizeof(*w));

	st->state = w;
	if (!w)
		return -1;
	qa_jw_init(w, st->out);
	w->compact = true;
	return 0;
}

int
qa_report_jsonl_input(struct qa_report_stream *st,
		      const struct qa_inventory *inv, const bool *mask,
		      size_t index, bool several)
{
	struct qa_jw *w = st->state;

	(void)index;
	(void)several;
	if (!w)
		return -1;
	json_head(w);
	qa_jw_arr(w, "inputs", false);
	write_input(w, inv, mask, st->opt);
	qa_jw_close(w, ']');
	qa_jw_str(w, "verdict", inv->verdict ? inv->verdict : "pass");
	qa_jw_close(w, '}');
	qa_jw_raw(w, "\n", 1);
	return w->failed ? -1 : 0;
}

int
qa_report_jsonl_failed(struct qa_report_stream *st, const char *path,
		       int exit_code, const char *error)
{
	struct qa_jw *w = st->state;

	if (!w)
		return -1;
	json_head(w);
	qa_jw_arr(w, "inputs", false);
	qa_jw_close(w, ']');
	qa_jw_obj(w, "error");
	qa_jw_str(w, "path", path);
	qa_jw_i64(w, "exit", exit_code);
	qa_jw_str(w, "message", error);
	qa_jw_close(w, '}');
	qa_jw_str(w, "verdict", "fail");
	qa_jw_close(w, '}');
	qa_jw_raw(w, "\n", 1);
	return w->failed ? -1 : 0;
}

int
qa_report_jsonl_end(struct qa_report_stream *st, size_t n,
		    const char *verdict)
{
	struct qa_jw *w = st->state;
	int rc;

	(void)n;
	(void)verdict;
	if (!w)
		return -1;
	rc = qa_jw_finish(w);
	free(w);
	st->state = NULL;
	if (rc != 0 || fflush(st->out) != 0 || ferror(st->out))
		return -1;
	return 0;
}

int
qa_report_jsonl(FILE *out, struct qa_inventory *const *invs, size_t n,
		const struct qa_report_options *opt)
{
	struct qa_report_stream st = { .out = out, .opt = opt };
	size_t i;
	int rc = qa_report_jsonl_begin(&st);

	for (i = 0; rc == 0 && i < n; i++)
		rc = qa_report_jsonl_input(&st, invs[i], opt->tensor_mask ?
					   opt->tensor_mask[i] : NULL, i,
					   n > 1);
	if (qa_report_jsonl_end(&st, n, NULL) != 0)
		rc = -1;
	return rc;
}

int
qa_report_json(FILE *out, struct qa_inventory *const *invs, size_t n,
	       const struct qa_report_options *opt)
{
	struct qa_report_stream st = { .out = out, .opt = opt };
	size_t i;
	int rc = qa_report_json_begin(&st);

	for (i = 0; rc == 0 && i < n; i++)
		rc = qa_report_json_input(&st, invs[i], opt->tensor_mask ?
					  opt->tensor_mask[i] : NULL, i,
					  n > 1);
	for (i = 0; rc == 0 && i < opt->n_failed; i++)
		rc = qa_report_json_failed(&st, opt->failed[i].path,
					   opt->failed[i].exit_code,
					   opt->failed[i].message);
	if (qa_report_json_end(&st, n, qa_verdict_all(invs, n,
						      opt->fail_on)) != 0)
		rc = -1;
	return rc;
}
