/* SPDX-License-Identifier: MIT */
/*
 * Type tables as data: the ggml tensor types (id, name, block size, bytes
 * per block), the llama_ftype values behind general.file_type, and the
 * safetensors dtypes (name, bits). Sources and "as of" dates are in
 * formats/dtypes.c.
 */
#ifndef QA_FORMATS_DTYPES_H
#define QA_FORMATS_DTYPES_H

#include <stdbool.h>
#include <stdint.h>

struct qa_ggml_type {
	int id;
	const char *name;	/* as ggml's type_name spells it upper-cased */
	uint32_t block;		/* elements per block; 0 = removed id */
	uint32_t block_bytes;	/* bytes per block */
};

/* Entry for id, or NULL when the id was never assigned (or is >= count). */
const struct qa_ggml_type *qa_ggml_type(int id);
/* Entry by name (case-insensitive), or NULL. */
const struct qa_ggml_type *qa_ggml_type_by_name(const char *name);
/* Number of ids in the table (GGML_TYPE_COUNT as of the table's date). */
int qa_ggml_type_count(void);

/*
 * Bytes of a tensor of `elements` stored elements with row length ne0 of
 * ggml type t: (elements / block) * block_bytes, dividing first so the
 * multiplication cannot wrap where the result fits. Returns false on
 * overflow or when ne0 is not a multiple of the block.
 */
bool qa_ggml_nbytes(const struct qa_ggml_type *t, uint64_t ne0,
		    uint64_t elements, uint64_t *bytes);

/*
 * ggml types of the forks, at ids upstream does not use or has removed:
 * ik_llama.cpp's (IQ4_KS, IQ2_K, ..., the row-interleaved _R4/_R8) and
 * the I2_S of Microsoft's bitnet.cpp (id 36, which upstream gave the
 * removed IQ4_NL_4_4; ik_llama.cpp reads it the same way). A row of such
 * a type is row_meta bytes (a per-row scale) then its blocks; an I2_S
 * tensor is its elements at 2 bits then a 32-byte tail holding the
 * scale. Ids, block sizes and the lines they were read from are in
 * core/dtypes.c.
 */
struct qa_ggml_fork_type {
	struct qa_ggml_type t;
	uint32_t row_meta;	/* bytes before each row's blocks */
	uint32_t enum_line;	/* ik_llama.cpp ggml/include/ggml.h line */
	uint32_t traits_line;	/* ik_llama.cpp ggml/src/ggml.c line */
	const char *fork;	/* "ik_llama.cpp", "bitnet.cpp" */
	bool i2s;		/* I2_S: elements / 4 + 32 bytes */
};

/* The fork type of id (fork NULL: any fork), or NULL. */
const struct qa_ggml_fork_type *qa_ggml_fork_type(int id, const char *fork);
/* Bytes of a tensor of a fork type, as the fork's ggml_nbytes counts
 * them; false on overflow or when ne0 is not a multiple of the block. */
bool qa_ggml_fork_nbytes(const struct qa_ggml_fork_type *t, uint64_t ne0,
			 uint64_t elements, uint64_t *bytes);

/* ik_llama.cpp's own file type (general.file_type 135 and above) as its
 * LLAMA_FTYPE_MOSTLY_ name ("IQ4_KS"), or NULL. */
const char *qa_ik_ftype_label(int64_t ftype);

/* llama_ftype name (as llama_ftype_name prints it) or NULL if unknown. */
const char *qa_llama_ftype_name(int64_t ftype);
/* The short label (Q4_K_M, BF16, ...) for an ftype, or NULL. */
const char *qa_llama_ftype_label(int64_t ftype);
/* The ggml type name most weights of that ftype get (Q4_K for Q4_K_M). */
const char *qa_llama_ftype_main_type(int64_t ftype);

struct qa_st_dtype {
	const char *name;	/* exact, case-sensitive */
	uint32_t bits;
};

/* Entry for a safetensors dtype string (exact match), or NULL. */
const struct qa_st_dtype *qa_st_dtype(const char *name);

#endif /* QA_FORMATS_DTYPES_H */
