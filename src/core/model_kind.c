/* SPDX-License-Identifier: MIT */
/*
 * Names of model.format and model.kind, and model.engines from
 * rules/loaders.def (core/model_kind.h).
 */
#include "core/model_kind.h"

#include <string.h>

#include "core/dtypes.h"
#include "core/inventory.h"

const char *
qa_model_format_name(enum qa_model_format f)
{
	static const char *const names[] = {
#define QA_MODEL_FORMAT_STR(e, s) s,
		QA_MODEL_FORMAT_LIST(QA_MODEL_FORMAT_STR)
#undef QA_MODEL_FORMAT_STR
	};

	if ((unsigned)f >= QA_FORMAT_COUNT)
		return "unknown";
	return names[f];
}

const char *
qa_model_kind_name(enum qa_model_kind k)
{
	static const char *const names[] = {
#define QA_MODEL_KIND_STR(e, s) s,
		QA_MODEL_KIND_LIST(QA_MODEL_KIND_STR)
#undef QA_MODEL_KIND_STR
	};

	if ((unsigned)k >= QA_MKIND_COUNT)
		return "unknown";
	return names[k];
}

const char *
qa_loader_engine_name(unsigned i)
{
	static const char *const names[] = {
#define QA_LOADER_ENGINE_STR(e, s) s,
		QA_LOADER_ENGINE_LIST(QA_LOADER_ENGINE_STR)
#undef QA_LOADER_ENGINE_STR
	};

	return i < QA_LOADER_COUNT ? names[i] : NULL;
}

struct loads_row {
	const char *format, *kind, *what;
	uint32_t engines;
};

static const struct loads_row loads_rows[] = {
#define QA_LOADS(format, kind, what, engines, source) \
	{ format, kind, what, engines },
#include "rules/loaders.def"
#undef QA_LOADS
};

#define N_LOADS_ROWS (sizeof(loads_rows) / sizeof(loads_rows[0]))

/* A type of upstream ggml's table: its id has a block size there
 * (core/dtypes.c), and a tensor read with that id is that type. */
static bool
upstream_type(const struct qa_tensor *t)
{
	const struct qa_ggml_type *g = qa_ggml_type(t->ggml_type);

	return g && g->block && t->dtype && strcmp(g->name, t->dtype) == 0;
}

/* A type of fork's table (NULL: any fork's), read with its meaning
 * (formats/gguf.c names the tensor after it). */
static bool
fork_type(const struct qa_tensor *t, const char *fork)
{
	const struct qa_ggml_fork_type *f = qa_ggml_fork_type(t->ggml_type,
							       fork);

	return f && t->dtype && strcmp(f->t.name, t->dtype) == 0;
}

/* The engines that some row of (format, kind) loads one tensor's type
 * with. */
static uint32_t
gguf_type_engines(const char *format, const char *kind,
		  const struct qa_tensor *t)
{
	uint32_t m = 0;
	size_t r;

	for (r = 0; r < N_LOADS_ROWS; r++) {
		const struct loads_row *row = &loads_rows[r];

		if (strcmp(row->format, format) || strcmp(row->kind, kind))
			continue;
		if (strcmp(row->what, "upstream") == 0 ? upstream_type(t) :
		    strncmp(row->what, "fork:", 5) == 0 ?
		    fork_type(t, row->what + 5) :
		    (t->dtype && strcmp(row->what, t->dtype) == 0 &&
		     (upstream_type(t) || fork_type(t, NULL))))
			m |= row->engines;
	}
	return m;
}

/* A Quark weight spec (dtype, activation bits, group) vLLM's loader
 * builds a scheme for (quark.py _get_scheme_from_config). */
static bool
quark_vllm_scheme(const char *dt, int act_bits, int group)
{
	bool w8a8 = dt && (strcmp(dt, "fp8_e4m3") == 0 ||
			   strcmp(dt, "int8") == 0) && act_bits == 8;
	bool mx = dt && (strcmp(dt, "fp4") == 0 || strncmp(dt, "fp6", 3) == 0) &&
		  group == 32;

	return w8a8 || mx;
}

uint32_t
qa_model_engines(const struct qa_inventory *inv)
{
	const char *format = qa_model_format_name(inv->format);
	const char *kind = qa_model_kind_name(inv->model_kind);
	uint32_t m = 0;
	size_t r;

	/* a set missing weight files loads nowhere */
	if (inv->weights.missing_files)
		return 0;
	if (inv->format == QA_FORMAT_GGUF || inv->format == QA_FORMAT_OLLAMA) {
		uint32_t i;
		/* one mask per distinct type: a model has thousands of
		 * tensors and a handful of types */
		const char *seen[16];
		int32_t seen_id[16];
		uint32_t seen_mask[16], n_seen = 0, k;

		if (!inv->n_tensors)
			return 0;
		m = UINT32_MAX;
		for (i = 0; i < inv->n_tensors && m; i++) {
			const struct qa_tensor *t = &inv->tensors[i];
			const char *dt = t->dtype ? t->dtype : "";
			uint32_t tm;

			for (k = 0; k < n_seen; k++)
				if (seen_id[k] == t->ggml_type &&
				    strcmp(seen[k], dt) == 0)
					break;
			if (k < n_seen) {
				tm = seen_mask[k];
			} else {
				tm = gguf_type_engines(format, kind, t);
				if (n_seen < 16) {
					seen[n_seen] = dt;
					seen_id[n_seen] = t->ggml_type;
					seen_mask[n_seen++] = tm;
				}
			}
			m &= tm;
		}
		/* "vLLM only supports loading single-file GGUF models"
		 * (vllm-project/vllm docs/features/quantization/gguf.md) */
		for (i = 0; i < inv->n_files; i++)
			if (inv->files[i].role == QA_FILE_SHARD)
				m &= ~QA_ENG(VLLM);
		return m;
	}
	for (r = 0; r < N_LOADS_ROWS; r++) {
		const struct loads_row *row = &loads_rows[r];

		if (strcmp(row->format, format) || strcmp(row->kind, kind))
			continue;
		if (strcmp(row->what, "*") == 0 ||
		    strcmp(row->what,
			   qa_quant_method_name(inv->quant.method)) == 0)
			m |= row->engines;
	}
	/* vLLM's Quark loader builds a scheme from the weight and input
	 * specs and refuses the rest ("No quark compatible scheme was
	 * found", vllm/model_executor/layers/quantization/quark/quark.py
	 * _get_scheme_from_config): FP8 or INT8 weights only with quantized
	 * activations (W8A8), OCP MX fp4/fp6 weights per group of 32 with
	 * or without; weight-only integer and FP8 checkpoints do not load */
	if (inv->quant.method == QA_QM_QUARK && (m & QA_ENG(VLLM))) {
		const struct qa_quant_config *q = &inv->quant;
		uint32_t i;

		if (!quark_vllm_scheme(q->data_type, q->act_bits,
				       q->group_size))
			m &= ~QA_ENG(VLLM);
		/* and each layer_quant_config entry's own spec */
		for (i = 0; i < q->n_overrides; i++) {
			const struct qa_quant_override *o = &q->overrides[i];

			if (!o->skip && o->pattern.source &&
			    strcmp(o->pattern.source,
				   "layer_quant_config") == 0 &&
			    !quark_vllm_scheme(o->scheme, o->act_bits,
					       o->group_size))
				m &= ~QA_ENG(VLLM);
		}
	}
	/* GPTQ: vLLM's and SGLang's kernels unpack GPTQ's continuous
	 * packing at 2, 3, 4 or 8 bits ("only 2/3/4/8-bit weight
	 * quantization is supported for GPTQ", vllm/model_executor/layers/
	 * quantization/gptq.py GPTQConfig); GPTQModel's planar layout
	 * (format gptq_p for 2-8 bits, always for 5-7: ModelCloud/GPTQModel
	 * gptqmodel/utils/planar_packing.py, nn_modules/qlinear/__init__.py)
	 * is read by GPTQModel's own kernels only */
	if (inv->quant.method == QA_QM_GPTQ &&
	    (m & (QA_ENG(VLLM) | QA_ENG(SGLANG)))) {
		bool planar = inv->quant.format &&
			      strcmp(inv->quant.format, "gptq_p") == 0;
		uint32_t i;

		for (i = 0; i < inv->n_modules && !planar; i++)
			if (inv->modules[i].scheme == QA_SCHEME_GPTQ &&
			    inv->modules[i].bits != 2 &&
			    inv->modules[i].bits != 3 &&
			    inv->modules[i].bits != 4 &&
			    inv->modules[i].bits != 8)
				planar = true;
		if (planar)
			m &= ~(QA_ENG(VLLM) | QA_ENG(SGLANG));
	}
	/* vLLM's HQQ kernel takes 4-bit, group 64, axis 1 only ("The only
	 * supported HQQ group size is currently 64", vllm-project/vllm
	 * vllm/model_executor/layers/quantization/hqq_marlin.py
	 * HQQMarlinConfig; its repack unpacks 4bit_u8 along dim 0): a layer
	 * of any other kind fails the load */
	if (inv->format == QA_FORMAT_HQQ && (m & QA_ENG(VLLM))) {
		uint32_t i;

		for (i = 0; i < inv->n_modules; i++)
			if (inv->modules[i].scheme == QA_SCHEME_HQQ &&
			    (inv->modules[i].bits != 4 ||
			     inv->modules[i].group_size != 64 ||
			     inv->modules[i].axis != 1))
				m &= ~QA_ENG(VLLM);
	}
	return m;
}
