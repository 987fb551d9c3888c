/* SPDX-License-Identifier: MIT */
/*
 * Type tables.
 *
 * ggml types: ggml-org/ggml include/ggml.h enum ggml_type and src/ggml.c
 * type_traits[] at d99724f2 (2026-08-21), cross-checked with gguf-py
 * GGML_QUANT_SIZES; GGML_TYPE_COUNT = 43. Removed ids keep a row with
 * block 0 so they are reported as removed, never divided by.
 *
 * llama_ftype: llama.cpp include/llama.h enum llama_ftype and
 * llama_ftype_name() (Aug 2026 tree).
 *
 * safetensors dtypes: huggingface/safetensors safetensors/src/tensor.rs
 * enum Dtype at 24b0b28 (2026-05-12).
 */
#include "core/dtypes.h"

#include <assert.h>
#include <stddef.h>
#include <strings.h>
#include <string.h>

static const struct qa_ggml_type ggml_types[] = {
	{ 0, "F32", 1, 4 },
	{ 1, "F16", 1, 2 },
	{ 2, "Q4_0", 32, 18 },
	{ 3, "Q4_1", 32, 20 },
	{ 4, "Q4_2", 0, 0 },		/* removed 2023 */
	{ 5, "Q4_3", 0, 0 },		/* removed 2023 */
	{ 6, "Q5_0", 32, 22 },
	{ 7, "Q5_1", 32, 24 },
	{ 8, "Q8_0", 32, 34 },
	{ 9, "Q8_1", 32, 36 },
	{ 10, "Q2_K", 256, 84 },
	{ 11, "Q3_K", 256, 110 },
	{ 12, "Q4_K", 256, 144 },
	{ 13, "Q5_K", 256, 176 },
	{ 14, "Q6_K", 256, 210 },
	{ 15, "Q8_K", 256, 292 },
	{ 16, "IQ2_XXS", 256, 66 },
	{ 17, "IQ2_XS", 256, 74 },
	{ 18, "IQ3_XXS", 256, 98 },
	{ 19, "IQ1_S", 256, 50 },
	{ 20, "IQ4_NL", 32, 18 },
	{ 21, "IQ3_S", 256, 110 },
	{ 22, "IQ2_S", 256, 82 },
	{ 23, "IQ4_XS", 256, 136 },
	{ 24, "I8", 1, 1 },
	{ 25, "I16", 1, 2 },
	{ 26, "I32", 1, 4 },
	{ 27, "I64", 1, 8 },
	{ 28, "F64", 1, 8 },
	{ 29, "IQ1_M", 256, 56 },
	{ 30, "BF16", 1, 2 },
	{ 31, "Q4_0_4_4", 0, 0 },	/* removed 2024-12 */
	{ 32, "Q4_0_4_8", 0, 0 },
	{ 33, "Q4_0_8_8", 0, 0 },
	{ 34, "TQ1_0", 256, 54 },
	{ 35, "TQ2_0", 256, 66 },
	{ 36, "IQ4_NL_4_4", 0, 0 },	/* removed 2024-12 */
	{ 37, "IQ4_NL_4_8", 0, 0 },
	{ 38, "IQ4_NL_8_8", 0, 0 },
	{ 39, "MXFP4", 32, 17 },
	{ 40, "NVFP4", 64, 36 },
	{ 41, "Q1_0", 128, 18 },
	{ 42, "Q2_0", 64, 18 },
};

#define N_GGML_TYPES ((int)(sizeof(ggml_types) / sizeof(ggml_types[0])))

const struct qa_ggml_type *
qa_ggml_type(int id)
{
	if (id < 0 || id >= N_GGML_TYPES)
		return NULL;
	/* the table is indexed by ggml type id: each row at its id */
	assert(ggml_types[id].id == id);
	return &ggml_types[id];
}

const struct qa_ggml_type *
qa_ggml_type_by_name(const char *name)
{
	int i;

	for (i = 0; i < N_GGML_TYPES; i++)
		if (strcasecmp(ggml_types[i].name, name) == 0)
			return &ggml_types[i];
	return NULL;
}

int
qa_ggml_type_count(void)
{
	return N_GGML_TYPES;
}

bool
qa_ggml_nbytes(const struct qa_ggml_type *t, uint64_t ne0, uint64_t elements,
	       uint64_t *bytes)
{
	if (!t || t->block == 0 || ne0 % t->block != 0)
		return false;
	/* elements is a multiple of ne0, hence of the block. */
	return !__builtin_mul_overflow(elements / t->block,
				       (uint64_t)t->block_bytes, bytes);
}

struct ftype_entry {
	int64_t value;
	const char *label;	/* short label used in file names */
	const char *name;	/* llama_ftype_name() */
	const char *main_type;	/* ggml type llama-quantize uses for most
				 * weights (llama_model_quantize_impl) */
};

static const struct ftype_entry ftypes[] = {
	{ 0, "F32", "all F32", "F32" },
	{ 1, "F16", "F16", "F16" },
	{ 2, "Q4_0", "Q4_0", "Q4_0" },
	{ 3, "Q4_1", "Q4_1", "Q4_1" },
	{ 7, "Q8_0", "Q8_0", "Q8_0" },
	{ 8, "Q5_0", "Q5_0", "Q5_0" },
	{ 9, "Q5_1", "Q5_1", "Q5_1" },
	{ 10, "Q2_K", "Q2_K - Medium", "Q2_K" },
	{ 11, "Q3_K_S", "Q3_K - Small", "Q3_K" },
	{ 12, "Q3_K_M", "Q3_K - Medium", "Q3_K" },
	{ 13, "Q3_K_L", "Q3_K - Large", "Q3_K" },
	{ 14, "Q4_K_S", "Q4_K - Small", "Q4_K" },
	{ 15, "Q4_K_M", "Q4_K - Medium", "Q4_K" },
	{ 16, "Q5_K_S", "Q5_K - Small", "Q5_K" },
	{ 17, "Q5_K_M", "Q5_K - Medium", "Q5_K" },
	{ 18, "Q6_K", "Q6_K", "Q6_K" },
	{ 19, "IQ2_XXS", "IQ2_XXS - 2.0625 bpw", "IQ2_XXS" },
	{ 20, "IQ2_XS", "IQ2_XS - 2.3125 bpw", "IQ2_XS" },
	{ 21, "Q2_K_S", "Q2_K - Small", "Q2_K" },
	{ 22, "IQ3_XS", "IQ3_XS - 3.3 bpw", "IQ3_S" },
	{ 23, "IQ3_XXS", "IQ3_XXS - 3.0625 bpw", "IQ3_XXS" },
	{ 24, "IQ1_S", "IQ1_S - 1.5625 bpw", "IQ1_S" },
	{ 25, "IQ4_NL", "IQ4_NL - 4.5 bpw", "IQ4_NL" },
	{ 26, "IQ3_S", "IQ3_S - 3.4375 bpw", "IQ3_S" },
	{ 27, "IQ3_M", "IQ3_S mix - 3.66 bpw", "IQ3_S" },
	{ 28, "IQ2_S", "IQ2_S - 2.5 bpw", "IQ2_XS" },
	{ 29, "IQ2_M", "IQ2_M - 2.7 bpw", "IQ2_S" },
	{ 30, "IQ4_XS", "IQ4_XS - 4.25 bpw", "IQ4_XS" },
	{ 31, "IQ1_M", "IQ1_M - 1.75 bpw", "IQ1_M" },
	{ 32, "BF16", "BF16", "BF16" },
	{ 36, "TQ1_0", "TQ1_0 - 1.69 bpw ternary", "TQ1_0" },
	{ 37, "TQ2_0", "TQ2_0 - 2.06 bpw ternary", "TQ2_0" },
	{ 38, "MXFP4_MOE", "MXFP4 MoE", "MXFP4" },
	{ 39, "NVFP4", "NVFP4", "NVFP4" },
	{ 40, "Q1_0", "Q1_0", "Q1_0" },
	{ 41, "Q2_0", "Q2_0", "Q2_0" },
};

#define LLAMA_FTYPE_GUESSED 1024

static const struct ftype_entry *
ftype_find(int64_t ftype)
{
	size_t i;

	ftype &= ~(int64_t)LLAMA_FTYPE_GUESSED;
	for (i = 0; i < sizeof(ftypes) / sizeof(ftypes[0]); i++)
		if (ftypes[i].value == ftype)
			return &ftypes[i];
	return NULL;
}

const char *
qa_llama_ftype_name(int64_t ftype)
{
	const struct ftype_entry *e = ftype_find(ftype);

	return e ? e->name : NULL;
}

const char *
qa_llama_ftype_label(int64_t ftype)
{
	const struct ftype_entry *e = ftype_find(ftype);

	return e ? e->label : NULL;
}

static const struct qa_st_dtype st_dtypes[] = {
	{ "BOOL", 8 },
	{ "F4", 4 },
	{ "F6_E2M3", 6 },
	{ "F6_E3M2", 6 },
	{ "U8", 8 },
	{ "I8", 8 },
	{ "F8_E5M2", 8 },
	{ "F8_E4M3", 8 },
	{ "F8_E8M0", 8 },
	{ "F8_E4M3FNUZ", 8 },
	{ "F8_E5M2FNUZ", 8 },
	{ "I16", 16 },
	{ "U16", 16 },
	{ "F16", 16 },
	{ "BF16", 16 },
	{ "I32", 32 },
	{ "U32", 32 },
	{ "F32", 32 },
	{ "C64", 64 },
	{ "F64", 64 },
	{ "I64", 64 },
	{ "U64", 64 },
};

const struct qa_st_dtype *
qa_st_dtype(const char *name)
{
	size_t i;

	/* The loaders point a tensor's dtype at the name in this table:
	 * the entry found last answers a look-up of that very string. */
	static _Thread_local const struct qa_st_dtype *last;

	if (last && name == last->name)
		return last;
	/* The first two bytes rule out almost every entry without a call
	 * (name[1] is read only when name[0] matched, so is no NUL). */
	for (i = 0; i < sizeof(st_dtypes) / sizeof(st_dtypes[0]); i++) {
		const char *e = st_dtypes[i].name;

		if (e[0] == name[0] && e[1] == name[1] &&
		    strcmp(e + 2, name + 2) == 0)
			return last = &st_dtypes[i];
	}
	return NULL;
}

const char *
qa_llama_ftype_main_type(int64_t ftype)
{
	const struct ftype_entry *e = ftype_find(ftype);

	return e ? e->main_type : NULL;
}
