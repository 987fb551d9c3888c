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

/*
 * ik_llama.cpp's own types: the ids of its enum ggml_type
 * (ggml/include/ggml.h, line given first) and the blck_size, type_size
 * (sizeof its block struct, ggml/src/ggml-common.h) and row_meta_size of
 * its type_traits[] (ggml/src/ggml.c, line given second), commit
 * 8337e4cd (2026-08-15). Its ggml_row_size is row_meta_size + type_size
 * * ne / blck_size. The activation-only types (Q8_K64, Q8_KV...) are
 * kept: a file holding one is readable, if odd.
 */
#define IK "ik_llama.cpp"
#define ROW(id, name, block, bytes, meta, hl, cl) \
	{ { id, name, block, bytes }, meta, hl, cl, IK, false },
static const struct qa_ggml_fork_type fork_types[] = {
	/* I2_S: bitnet.cpp's 3rdparty/llama.cpp ggml.h GGML_TYPE_I2_S = 36,
	 * ggml_nbytes "nbytes / 4 + 32" (its convert-hf-to-gguf-bitnet.py
	 * quantize_to_i2_s: packed ternary bytes, then a 32-byte tail with
	 * the f32 scale); ik_llama.cpp ggml.h:426 "So we are able to
	 * consume MS BitNet I2_S quants", ggml.c:1955 and 4786 */
	{ { 36, "I2_S", 4, 1 }, 0, 426, 1955, "bitnet.cpp", true },
	ROW(97, "Q8_0_X4", 32, 34, 0, 431, 881)
	ROW(98, "Q8_1_X4", 32, 36, 0, 432, 891)
	ROW(99, "Q8_2_X4", 32, 36, 0, 433, 901)
	ROW(133, "Q6_0", 32, 26, 0, 434, 823)
	ROW(134, "IQ1_BN", 64, 13, 2, 435, 1262)
	ROW(135, "IQ2_BN", 64, 16, 4, 436, 1275)
	ROW(136, "Q8_K64", 64, 68, 0, 437, 1446)
	ROW(137, "IQ2_K", 256, 76, 0, 438, 1587)
	ROW(138, "IQ3_K", 256, 110, 0, 439, 1716)
	ROW(139, "IQ4_K", 256, 144, 0, 440, 1755)
	ROW(140, "IQ5_K", 256, 176, 0, 441, 1794)
	ROW(141, "IQ6_K", 256, 212, 0, 442, 1824)
	ROW(144, "IQ4_KS", 256, 136, 4, 445, 1365)
	ROW(145, "IQ2_KS", 256, 70, 2, 446, 1613)
	ROW(146, "IQ4_KSS", 256, 128, 4, 447, 1412)
	ROW(147, "Q8_K16", 64, 64, 20, 448, 1486)
	ROW(148, "Q8_K32", 256, 296, 0, 449, 1494)
	ROW(149, "Q8_KR8", 256, 296, 0, 450, 1502)
	ROW(150, "Q8_K128", 128, 140, 0, 451, 1454)
	ROW(151, "Q8_KV", 32, 32, 8, 452, 1462)
	ROW(152, "IQ5_KS", 256, 168, 4, 453, 1425)
	ROW(153, "IQ2_KT", 256, 68, 4, 454, 1643)
	ROW(154, "IQ3_KT", 256, 100, 4, 455, 1660)
	ROW(155, "IQ4_KT", 256, 128, 4, 456, 1682)
	ROW(156, "IQ3_KS", 256, 102, 2, 457, 1729)
	ROW(157, "IQ2_KL", 256, 86, 2, 458, 1742)
	ROW(158, "IQ1_KT", 256, 56, 4, 459, 1626)
	ROW(202, "Q4_0_R8", 32, 18, 0, 461, 1871)
	ROW(206, "Q5_0_R4", 32, 22, 0, 462, 1913)
	ROW(208, "Q8_0_R8", 32, 34, 0, 463, 1892)
	ROW(210, "Q2_K_R4", 256, 84, 0, 464, 924)
	ROW(211, "Q3_K_R4", 256, 110, 0, 465, 950)
	ROW(212, "Q4_K_R4", 256, 144, 0, 466, 980)
	ROW(213, "Q5_K_R4", 256, 176, 0, 467, 1010)
	ROW(214, "Q6_K_R4", 256, 210, 0, 468, 1041)
	ROW(216, "IQ2_XXS_R4", 256, 66, 0, 469, 1093)
	ROW(217, "IQ2_XS_R4", 256, 74, 0, 470, 1119)
	ROW(218, "IQ3_XXS_R4", 256, 98, 0, 471, 1145)
	ROW(219, "IQ1_S_R4", 32, 6, 2, 472, 1223)
	ROW(220, "IQ4_NL_R4", 32, 18, 0, 473, 1837)
	ROW(221, "IQ3_S_R4", 256, 110, 0, 474, 1171)
	ROW(222, "IQ2_S_R4", 256, 82, 0, 475, 1197)
	ROW(223, "IQ4_XS_R8", 256, 136, 0, 476, 1858)
	ROW(229, "IQ1_M_R4", 32, 7, 2, 477, 1249)
	ROW(230, "BF16_R16", 1, 2, 0, 478, 1523)
	ROW(233, "Q6_0_R4", 32, 26, 0, 479, 1934)
	ROW(335, "IQ2_BN_R4", 64, 16, 4, 480, 1288)
	ROW(337, "IQ2_K_R4", 256, 76, 0, 481, 1600)
	ROW(338, "IQ3_K_R4", 256, 110, 0, 482, 1781)
	ROW(339, "IQ4_K_R4", 256, 144, 0, 483, 1768)
	ROW(340, "IQ5_K_R4", 256, 176, 0, 484, 1811)
	ROW(344, "IQ4_KS_R4", 256, 136, 4, 485, 1378)
	ROW(352, "IQ5_KS_R4", 256, 168, 4, 486, 1395)
	ROW(353, "MXFP4_R8", 32, 17, 0, 487, 1348)
	ROW(397, "Q8_K_R16", 256, 258, 0, 488, 1067)
	ROW(398, "Q8_KV_R8", 32, 32, 4, 489, 1474)
	ROW(399, "Q8_K_R8", 256, 258, 0, 490, 1054)
};
#undef ROW
#undef IK

#define N_FORK_TYPES (sizeof(fork_types) / sizeof(fork_types[0]))

const struct qa_ggml_fork_type *
qa_ggml_fork_type(int id, const char *fork)
{
	size_t i;

	for (i = 0; i < N_FORK_TYPES; i++)
		if (fork_types[i].t.id == id &&
		    (!fork || strcmp(fork_types[i].fork, fork) == 0))
			return &fork_types[i];
	return NULL;
}

bool
qa_ggml_fork_nbytes(const struct qa_ggml_fork_type *t, uint64_t ne0,
		    uint64_t elements, uint64_t *bytes)
{
	uint64_t rows, row;

	if (!t || !t->t.block || !ne0 || ne0 % t->t.block != 0)
		return false;
	if (t->i2s)
		return !__builtin_add_overflow(elements / 4, (uint64_t)32,
					       bytes);
	rows = elements / ne0;
	row = ne0 / t->t.block * t->t.block_bytes;
	return !__builtin_add_overflow(row, (uint64_t)t->row_meta, &row) &&
	       !__builtin_mul_overflow(rows, row, bytes);
}

/* ik_llama.cpp's own llama_ftype values (include/llama.h, line given;
 * commit 8337e4cd), those at 135 and above, where upstream has none:
 * LLAMA_FTYPE_MOSTLY_<name>. */
static const struct { int64_t value; const char *name; uint32_t line; }
ik_ftypes[] = {
	{ 135, "Q6_0", 197 },
	{ 136, "IQ1_BN", 198 },
	{ 137, "IQ2_BN", 199 },
	{ 138, "IQ2_K", 200 },
	{ 139, "IQ3_K", 201 },
	{ 140, "IQ4_K", 202 },
	{ 141, "IQ5_K", 203 },
	{ 142, "IQ6_K", 204 },
	{ 145, "IQ4_KS", 205 },
	{ 146, "IQ3_KL", 206 },
	{ 147, "IQ2_KS", 207 },
	{ 148, "IQ4_KSS", 208 },
	{ 149, "Q8_KV", 209 },
	{ 150, "IQ5_KS", 210 },
	{ 151, "IQ2_KT", 211 },
	{ 152, "IQ3_KT", 212 },
	{ 153, "IQ4_KT", 213 },
	{ 154, "IQ3_KS", 214 },
	{ 155, "IQ2_KL", 215 },
	{ 156, "IQ1_KT", 216 },
	{ 202, "Q4_0_R8", 218 },
	{ 207, "Q8_0_R8", 219 },
	{ 208, "Q5_0_R4", 220 },
	{ 210, "Q2_K_R4", 221 },
	{ 211, "Q3_K_R4", 222 },
	{ 214, "Q4_K_R4", 223 },
	{ 216, "Q5_K_R4", 224 },
	{ 218, "Q6_K_R4", 225 },
	{ 219, "IQ2_XXS_R4", 226 },
	{ 220, "IQ2_XS_R4", 227 },
	{ 223, "IQ3_XXS_R4", 228 },
	{ 224, "IQ1_S_R4", 229 },
	{ 225, "IQ4_NL_R4", 230 },
	{ 226, "IQ3_S_R4", 231 },
	{ 229, "IQ2_M_R4", 232 },
	{ 230, "IQ4_XS_R8", 233 },
	{ 231, "IQ1_M_R4", 234 },
	{ 335, "Q6_0_R4", 235 },
	{ 232, "BF16_R16", 236 },
	{ 337, "IQ2_BN_R4", 237 },
	{ 338, "IQ2_K_R4", 238 },
	{ 339, "IQ3_K_R4", 239 },
	{ 340, "IQ4_K_R4", 240 },
	{ 341, "IQ5_K_R4", 241 },
	{ 345, "IQ4_KS_R4", 242 },
	{ 350, "IQ5_KS_R4", 243 },
	{ 351, "MXFP4_R8", 244 },
	{ 398, "Q8_KV_R8", 245 },
	{ 399, "Q8_K_R8", 246 },
};

const char *
qa_ik_ftype_label(int64_t ftype)
{
	size_t i;

	for (i = 0; i < sizeof(ik_ftypes) / sizeof(ik_ftypes[0]); i++)
		if (ik_ftypes[i].value == ftype)
			return ik_ftypes[i].name;
	return NULL;
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
