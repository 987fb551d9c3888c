/* SPDX-License-Identifier: MIT */
/*
 * What an input is, beyond its container: the format its producer wrote
 * (model.format), the kind of file it is (model.kind: a model, a LoRA
 * adapter, a projector...), and the engines that can load it as it is
 * (model.engines), derived from one table, rules/loaders.def, each row of
 * which cites the engine's own source.
 *
 * The names are owned here, once: every reporter and the JSON schema
 * (docs/quantaudit-1.schema.json) spell them as these lists do. A new
 * format or kind is one X() row here and, for the engines, rows in
 * rules/loaders.def.
 */
#ifndef QA_SRC_MODEL_KIND_H
#define QA_SRC_MODEL_KIND_H

#include <stdbool.h>
#include <stdint.h>

/* The producer's format. UNKNOWN is "not decided by a loader": the
 * summary then takes it from the input kind (gguf, safetensors, hf,
 * pytorch). */
#define QA_MODEL_FORMAT_LIST(X) \
	X(UNKNOWN, "unknown") \
	X(GGUF, "gguf") \
	X(SAFETENSORS, "safetensors") \
	X(HF, "hf") \
	X(PYTORCH, "pytorch") \
	X(MLX, "mlx") \
	X(EXL2, "exl2") \
	X(EXL3, "exl3") \
	X(HQQ, "hqq") \
	X(PEFT_LORA, "peft-lora") \
	X(EAGLE3, "eagle3") \
	X(OLLAMA, "ollama") \
	X(OLLAMA_ST, "ollama-safetensors") \
	X(ONNX, "onnx") \
	X(OPENVINO, "openvino")

enum qa_model_format {
#define QA_MODEL_FORMAT_ENUM(e, s) QA_FORMAT_##e,
	QA_MODEL_FORMAT_LIST(QA_MODEL_FORMAT_ENUM)
#undef QA_MODEL_FORMAT_ENUM
	QA_FORMAT_COUNT
};

/* What the file is for. MODEL is a model an engine runs by itself. */
#define QA_MODEL_KIND_LIST(X) \
	X(MODEL, "model") \
	X(ADAPTER, "adapter") \
	X(PROJECTOR, "projector") \
	X(DRAFT, "draft") \
	X(IMATRIX, "imatrix") \
	X(CONTROL_VECTOR, "control-vector") \
	X(UNKNOWN, "unknown")

enum qa_model_kind {
#define QA_MODEL_KIND_ENUM(e, s) QA_MKIND_##e,
	QA_MODEL_KIND_LIST(QA_MODEL_KIND_ENUM)
#undef QA_MODEL_KIND_ENUM
	QA_MKIND_COUNT
};

/* The engines of model.engines, as bits of a mask. */
#define QA_LOADER_ENGINE_LIST(X) \
	X(LLAMACPP, "llama.cpp") \
	X(IK_LLAMACPP, "ik_llama.cpp") \
	X(BITNET_CPP, "bitnet.cpp") \
	X(OLLAMA, "ollama") \
	X(VLLM, "vllm") \
	X(SGLANG, "sglang") \
	X(MLX_LM, "mlx-lm") \
	X(EXLLAMAV2, "exllamav2") \
	X(EXLLAMAV3, "exllamav3") \
	X(TABBYAPI, "tabbyapi")

enum qa_loader_engine {
#define QA_LOADER_ENGINE_ENUM(e, s) QA_LOADER_##e,
	QA_LOADER_ENGINE_LIST(QA_LOADER_ENGINE_ENUM)
#undef QA_LOADER_ENGINE_ENUM
	QA_LOADER_COUNT
};

#define QA_ENG(e) ((uint32_t)1 << QA_LOADER_##e)

const char *qa_model_format_name(enum qa_model_format f);
const char *qa_model_kind_name(enum qa_model_kind k);
/* Name of engine bit i (0 <= i < QA_LOADER_COUNT), or NULL. */
const char *qa_loader_engine_name(unsigned i);

struct qa_inventory;

/*
 * The engines that load inv as it is (a mask of QA_ENG bits), from
 * rules/loaders.def: for a GGUF, the engines whose type table has every
 * ggml type its tensors hold; for other formats, the engines whose
 * quantization registry has the method its config declares. inv->format
 * and inv->model_kind must be set (qa_inventory_summarize does it).
 */
uint32_t qa_model_engines(const struct qa_inventory *inv);

#endif /* QA_SRC_MODEL_KIND_H */
