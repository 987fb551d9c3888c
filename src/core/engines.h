/* SPDX-License-Identifier: MIT */
/*
 * The engines' architecture registries (rules/engines.def), built once:
 * which architectures llama.cpp, vLLM and SGLang implement natively or
 * through their transformers backend, and the names one architecture has
 * in GGUF, in config.json and as a transformers class.
 *
 * The 600-odd registry rows hold their names in fixed arrays, not as
 * pointers: a table of pointers in a position-independent executable is
 * rewritten by the dynamic loader at every start (a relocation per
 * pointer, a copied page per 4 KiB), paid by every run whether or not it
 * looks anything up.
 */
#ifndef QA_SRC_ENGINES_H
#define QA_SRC_ENGINES_H

#include <stdbool.h>
#include <stddef.h>

enum qa_arch_how {
	QA_ARCH_ABSENT = 0,		/* not in the engine's registry */
	QA_ARCH_NATIVE = 1,		/* its own implementation */
	QA_ARCH_TRANSFORMERS = 2,	/* through the transformers backend */
};

/* How engine ("llama.cpp", "vllm", "sglang") serves the architecture
 * named name (a GGUF architecture for llama.cpp, a transformers class
 * for the others). */
enum qa_arch_how qa_engine_arch(const char *engine, const char *name);

/* True when engine serves class name as the target of a draft of
 * method ("eagle3"), per rules/spec_targets.def. */
bool qa_engine_spec_target(const char *engine, const char *method,
			   const char *name);

struct qa_arch_name {
	const char *gguf, *model_type, *hf_class;
};

/* The rows of QA_ARCH_NAME: one architecture's three names. */
extern const struct qa_arch_name qa_arch_names[];
extern const size_t qa_n_arch_names;

#endif /* QA_SRC_ENGINES_H */
