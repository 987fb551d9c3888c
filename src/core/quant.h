/* SPDX-License-Identifier: MIT */
/*
 * Quantization: what the config files claim (struct qa_quant_config, read
 * by formats/quant_config.c) and what the tensors really hold (struct
 * qa_module, built by src/analysis/quant_modules.c), per module. Ground truth beats
 * config: precision is read from dtypes, sibling tensors and packing, then
 * compared with the claim by rules/check_quant.c.
 *
 * Conventions of every scheme: ../shared/knowledge/quant-formats.md §A and
 * §1.3/1.4. All pointers live in the inventory's arena.
 */
#ifndef QA_SRC_QUANT_H
#define QA_SRC_QUANT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/roles.h"

/* The method a config declares (quant_method / hf_quant_config). */
enum qa_quant_method {
	QA_QM_NONE,		/* no quantization config */
	QA_QM_GPTQ,
	QA_QM_AWQ,
	QA_QM_AUTOROUND,	/* auto-round, any packing_format */
	QA_QM_COMPRESSED_TENSORS,
	QA_QM_MODELOPT,
	QA_QM_FP8,		/* DeepSeek-style / transformers fine-grained */
	QA_QM_MXFP4,		/* gpt-oss */
	QA_QM_BITSANDBYTES,
	QA_QM_MLX,		/* mlx-lm: config.json "quantization" */
	QA_QM_EXL2,		/* ExLlamaV2: quant_method exl2 */
	QA_QM_EXL3,		/* ExLlamaV3: quant_method exl3 */
	QA_QM_HQQ,		/* HQQ via transformers: quant_method hqq */
	QA_QM_TORCHAO,		/* torchao via transformers */
	QA_QM_QUARK,		/* AMD Quark export_safetensors */
	QA_QM_QQQ,		/* GPTQModel QQQ (W4A8) */
	QA_QM_PAROQUANT,	/* GPTQModel ParoQuant (AWQ + rotations) */
	QA_QM_GPTQM_GGUF,	/* GPTQModel's GGUF blocks in safetensors */
	QA_QM_OTHER,		/* a quant_method quantaudit does not know */
};

const char *qa_quant_method_name(enum qa_quant_method m);

/* How a config names modules (each method has its own matching rule). */
enum qa_pattern_kind {
	QA_PAT_EXACT,		/* full module name */
	QA_PAT_REGEX,		/* Python re.match: anchored at the start */
	QA_PAT_GLOB,		/* fnmatch-style '*' and '?' */
	QA_PAT_SUBSTRING,	/* contained anywhere in the name */
	QA_PAT_PREFIX,		/* name starts with it */
};

struct qa_quant_pattern {
	const char *text;		/* as written (without "re:" / "-:") */
	enum qa_pattern_kind kind;
	const char *source;		/* config key it came from, e.g. "ignore" */
	/* An EXACT pattern without a '.' that starts with an upper-case
	 * letter is a class name (compressed-tensors targets "Linear").
	 * Set by the analysis (qa_claims_resolve): */
	bool untranslatable;		/* Python regex POSIX cannot express */
	bool too_complex;		/* regex beyond the bounds it is
					 * compiled within (QA6101) */
	int32_t matches;		/* modules of the checkpoint (or their
					 * parents) it matches; -1 when it
					 * cannot be evaluated */
};

/* A per-module override: GPTQ dynamic, AutoRound extra_config, ModelOpt
 * MIXED_PRECISION quantized_layers, compressed-tensors config_groups. */
struct qa_quant_override {
	struct qa_quant_pattern pattern;
	bool skip;		/* module kept unquantized */
	int bits;		/* -1 = inherit */
	int group_size;		/* -1 = inherit, 0 = per-channel */
	const char *scheme;	/* e.g. "NVFP4", "FP8", "int" or NULL */
	int act_bits;		/* its activations' bits (Quark's
				 * input_tensors); -1 = inherit */
};

struct qa_quant_config {
	const char *file;		/* file it was read from */
	const char *key;		/* "quantization_config", "compression_config", ... */
	enum qa_quant_method method;
	const char *method_raw;		/* quant_method string as written */
	const char *format;		/* packing_format, checkpoint_format,
					 * AWQ version, CT format, quant_algo */
	int bits;			/* -1 unknown */
	int group_size;			/* -1 unknown, 0 per-channel */
	bool per_tensor;		/* group_size 0 is one scale for the
					 * whole tensor (compressed-tensors
					 * strategy tensor, Quark per_tensor) */
	int sym;			/* -1 unknown, 0/1 */
	int desc_act;			/* -1 unknown, 0/1 */
	const char *data_type;		/* AutoRound data_type, CT type */
	int act_bits;			/* -1 unknown */
	/* Only the overrides claim anything: a module none names is
	 * "cannot say" (Ollama's per-blob metadata). */
	bool modules_listed;
	int block[2];			/* weight_block_size, 0 if none */
	const char *kv_cache;		/* kv cache quantization, or NULL */
	int lm_head;			/* GPTQ lm_head: -1 unknown, 0/1 */
	struct qa_quant_pattern *exclude;	/* modules kept unquantized */
	uint32_t n_exclude;
	struct qa_quant_override *overrides;
	uint32_t n_overrides;
	const char **blocks;		/* AutoRound/optimum block_name_to_quantize */
	uint32_t n_blocks;
	struct qa_quant_pattern *targets;	/* CT config_groups targets,
						 * GPTQ modules_in_block_to_quantize */
	uint32_t n_targets;
	bool mixed;			/* ModelOpt MIXED_PRECISION: only
					 * listed layers are quantized */
	/* ExLlamaV2 / V3 (added with EXL2/EXL3; additive): "bits" is an
	 * average over the decoder layers (4.65, 3.5), kept here as
	 * written; bits above holds it only when it is a whole number.
	 * head_bits is lm_head's (-1 absent; 16 for an EXL3 FP16 head). */
	double bpw;			/* < 0 unknown */
	int head_bits;
	/* torchao include_input_output_embeddings: the embeddings and
	 * lm_head are quantized too (added with torchao; additive) */
	bool embeddings_quantized;
	/* Added by formats/quant_config.c: a lower-precedence config file
	 * that declares another method (config.json says gptq, a side file
	 * says auto-round); the winner is kept as vLLM does, the conflict is
	 * for a check to report. NULL / QA_QM_NONE when none. */
	const char *shadowed_file;
	enum qa_quant_method shadowed_method;
	/* Set by the analysis (qa_claims_resolve): matching the patterns
	 * against the module names needed more than QA_PATTERN_WORK_MAX
	 * (QA6102); the pairs left over count as "cannot say". */
	bool patterns_capped;
	uint64_t pattern_work;		/* work units spent */
	uint64_t pattern_evals;		/* pattern-name pairs evaluated */
};

/* The storage scheme of one module, decided from its tensors. */
#define QA_SCHEME_LIST(X) \
	X(UNKNOWN, "unknown") \
	X(DENSE, "dense") \
	X(GGML, "ggml") \
	X(GPTQ, "GPTQ") \
	X(AWQ_GEMM, "AWQ-GEMM") \
	X(AWQ_GEMV, "AWQ-GEMV") \
	X(CT_PACK, "int-packed") \
	X(NVFP4, "NVFP4") \
	X(MXFP4, "MXFP4") \
	X(MXFP8, "MXFP8") \
	X(FP8_BLOCK, "FP8-block") \
	X(FP8, "FP8") \
	X(INT8, "INT8") \
	X(INT4_MODELOPT, "INT4-AWQ") \
	X(BNB_4BIT, "bnb-4bit") \
	X(BNB_8BIT, "bnb-int8") \
	X(MLX_AFFINE, "MLX-affine") \
	X(MLX_MXFP4, "MLX-mxfp4") \
	X(MLX_NVFP4, "MLX-nvfp4") \
	X(MLX_MXFP8, "MLX-mxfp8") \
	X(EXL2, "EXL2") \
	X(EXL3, "EXL3") \
	X(HQQ, "HQQ") \
	X(TORCHAO, "torchao") \
	X(TORCHAO_FP8, "torchao-FP8") \
	X(QUARK_INT, "Quark-int") \
	X(QQQ, "QQQ") \
	X(PAROQUANT, "ParoQuant") \
	X(GPTQM_GGUF, "GGUF-blocks")

enum qa_scheme {
#define QA_SCHEME_ENUM(e, s) QA_SCHEME_##e,
	QA_SCHEME_LIST(QA_SCHEME_ENUM)
#undef QA_SCHEME_ENUM
	QA_SCHEME_COUNT
};

const char *qa_scheme_name(enum qa_scheme s);

/* One weight-bearing module (a Linear, an embedding, a fused expert
 * tensor) with every tensor that stores it. */
struct qa_module {
	/* Pointers, then 64-bit counts, then 32- and 8-bit fields: no
	 * padding (128 bytes; a 100k-tensor GGUF has 100k modules). */
	const char *name;	/* module prefix (tensor name minus suffix) */
	uint32_t *tensors;	/* indices into inv->tensors; [0] is the
				 * payload (qweight, weight_packed, weight...) */
	const char *precision;	/* display label: "Q4_K", "BF16", "NVFP4",
				 * "GPTQ int4 g128", "FP8 block 128" */
	/* The scheme or mode the config declares for it, as written (an
	 * MLX module's own "mode", else the global one), or NULL. */
	const char *decl_mode;
	const struct qa_quant_pattern *kept_by;	/* exclude entry, or skip /
						 * 16-bit override, naming it */
	const struct qa_quant_pattern *named_by;	/* low-bit override or
							 * target naming it */
	uint64_t out, in;	/* logical matrix shape (per expert) */
	uint64_t experts;	/* 1, or E for fused 3-D expert tensors */
	uint64_t params;	/* logical parameters: out * in * experts */
	uint64_t bytes;		/* every tensor of the module */
	uint32_t n_tensors;
	enum qa_role role;
	int32_t layer;
	enum qa_scheme scheme;
	int bits;		/* payload bits per weight: 4, 8, 16; -1 unknown */
	int group_size;		/* elements per scale: 0 per-channel or
				 * per-tensor, -1 unknown */
	/* The claim, resolved by the analysis (qa_claims_resolve): */
	int claimed_bits;	/* -1 unknown */
	int decl_bits;		/* bits and group size the config declares
				 * for it: the first matching override's, else
				 * the global ones; -1 unknown */
	int decl_group;
	int8_t claimed;		/* config says: 1 quantized, 0 not, -1 unknown */
	bool mtp;
	bool act_order;		/* GPTQ desc_act: a g_idx / weight_g_idx
				 * sibling is present */
	int8_t axis;		/* HQQ: the axis its groups run along, 0
				 * or 1; -1 for every other scheme */
};

#endif /* QA_SRC_QUANT_H */
