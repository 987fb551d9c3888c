/* SPDX-License-Identifier: MIT */
/*
 * The analysis layer: facts derived from what the loaders put in an
 * inventory. Tensor roles from names, modules and their real precision,
 * what the quantization config claims per module (one pattern matcher for
 * every config pattern), the component table, the MTP summary with the
 * family expectation, the GGUF file type guess and the per-layer precision
 * map. Every function here reads and writes inventory facts only: no
 * file I/O, no findings.
 */
#ifndef QA_ANALYSIS_ANALYSIS_H
#define QA_ANALYSIS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"

/*
 * Assigns role/layer/mtp to every tensor (after hparams are known),
 * builds the modules and their claims, computes parameters, bytes, the
 * component table, the MTP summary, the GGUF file type guess and the
 * layer map. Idempotent. src/analysis/summary.c
 */
void qa_inventory_summarize(struct qa_inventory *inv);

/* The MTP summary (inv->mtp): declared and present layers, tensors,
 * bytes, status with the family expectation, missing parts. Called by
 * qa_inventory_summarize(). src/analysis/mtp.c */
void qa_mtp_summarize(struct qa_inventory *inv);

/* ---- roles (src/analysis/roles.c) ------------------------------------ */

/* What the classifier knows about the model when it runs. */
struct qa_role_context {
	int64_t n_layer;	/* trunk blocks (excl. MTP), -1 unknown */
	int64_t n_mtp;		/* declared MTP layers, -1 unknown */
	const uint8_t *layer_kind;	/* enum qa_layer_kind per block or NULL */
	int64_t n_layer_kind;	/* entries in layer_kind */
};

struct qa_role_result {
	enum qa_role role;
	int32_t layer;		/* block index or -1 */
	bool mtp;		/* tensor belongs to an MTP / nextn head */
};

/* Classifies one tensor name (GGUF or Hugging Face naming). Pure
 * function: no allocation, no global state. */
struct qa_role_result qa_role_classify(const char *name,
				       const struct qa_role_context *ctx);

/*
 * qa_role_classify of names[0..n) into out[0..n), the same answers
 * (test_roles checks every name of its table both ways, in every
 * context), but a name that differs from an earlier one only in its
 * block number ("blk.17.", "layers.17.") in a block of the same kind is
 * answered from that one: a model's blocks repeat a few dozen names.
 * QA_OK or QA_E_NOMEM (out is then filled one name at a time anyway).
 */
int qa_role_classify_all(const char *const *names, size_t n,
			 const struct qa_role_context *ctx,
			 struct qa_role_result *out);

/* ---- modules (src/analysis/quant_modules.c) -------------------------- */

/*
 * Groups tensors into modules, decides each module's scheme, logical
 * shape, parameters and bytes, and sets each tensor's params (the payload
 * gets the module's logical parameters, scales and zeros get 0) so
 * component bits per weight include every auxiliary tensor.
 */
void qa_quant_modules_build(struct qa_inventory *inv);

/* ---- claims (src/analysis/claims.c) ---------------------------------- */

/*
 * The one pattern matcher for every pattern a quantization config writes
 * (docs/quantization.md "Patterns"). Does pattern p name module `module`
 * (role: the module's role, for class-name targets)? 1 yes, 0 no, -1
 * cannot tell (a Python regex POSIX cannot express; a class name the role
 * does not decide). Per kind:
 *   EXACT      the full module name, compared whole (compressed-tensors
 *              and vLLM compare names with ==); a class name ("Linear",
 *              no dot, upper-case first) matches by role;
 *   REGEX      Python re.match: anchored at the start, not at the end;
 *   GLOB       fnmatch ('*' crosses dots) on the module or one of its
 *              parents ("model.layers.*.self_attn" names q_proj's parent);
 *   SUBSTRING  contained anywhere in the name;
 *   PREFIX     the name starts with it.
 * A parent module is matched only when the caller passes its name.
 */
int qa_pattern_match(const struct qa_quant_pattern *p, const char *module,
		     enum qa_role role);

/*
 * What the config claims for one module name: 1 quantized, 0 kept in high
 * precision, -1 unknown (no config, or the method cannot say). *bits gets
 * the claimed bits or -1.
 */
int qa_quant_claim(const struct qa_quant_config *qc, const char *module,
		   enum qa_role role, int *bits);

/* The claims of one config with its regexes compiled once, for callers
 * that ask module by module (the module builder). NULL when out of
 * memory. */
struct qa_claims;
struct qa_claims *qa_claims_open(const struct qa_quant_config *qc);
/* qa_quant_claim() through the compiled patterns. */
int qa_claims_module(struct qa_claims *c, const char *module,
		     enum qa_role role, int *bits);
/* The group size the config declares for module: the first matching
 * override's, else the global one; -1 unknown. */
int qa_claims_group(struct qa_claims *c, const char *module,
		    enum qa_role role);
void qa_claims_close(struct qa_claims *c);

/*
 * Resolves the claim of every module (qa_module claimed, claimed_bits,
 * the declared bits and group size, the entries that keep it
 * unquantized or name it quantized) and, for every config pattern, how
 * many modules of the checkpoint (or their parents) it matches. Each
 * regex is compiled once. Called by qa_inventory_summarize().
 */
void qa_claims_resolve(struct qa_inventory *inv);

/* Work units (about 10 ns each: compiling a regex, a candidate looked up,
 * an evaluation by the length of the name and the pattern) spent per
 * config on matching, about two seconds; past it the pairs not evaluated
 * count as unknown and qc->patterns_capped is set (QA6102). */
#define QA_PATTERN_WORK_MAX ((uint64_t)200 * 1000 * 1000)

/* ---- the per-layer precision map (src/analysis/layer_map.c) ---------- */

/*
 * One row per block that holds weight matrices, one column per role
 * present, each cell the precision label of that role in that layer
 * ("Q4_K", "NVFP4", "BF16"), "mix" when the layer holds several, NULL when
 * the role is absent. Built from modules when the inventory has them,
 * otherwise from the 2-D tensors (GGUF: the ggml type). Owned by the
 * caller: qa_layer_map_free().
 */
struct qa_layer_map {
	uint32_t n_rows, n_cols;
	int32_t *layer;		/* per row, ascending */
	bool *mtp;		/* per row: an MTP block */
	enum qa_role *roles;	/* per column, by group then role order */
	const char **cells;	/* n_rows * n_cols, row-major */
};

/* Fills m (zeroed first); returns 0, or -1 when out of memory. A map with
 * no rows is valid (no block holds a weight matrix). */
int qa_layer_map_build(const struct qa_inventory *inv, struct qa_layer_map *m);
void qa_layer_map_free(struct qa_layer_map *m);
/* Rows in the run starting at row: consecutive layers, same MTP flag,
 * identical cells. */
uint32_t qa_layer_map_run(const struct qa_layer_map *m, uint32_t row);
/* The column group of a role in the map: attention, SSM, MLP, experts,
 * shared experts, MTP, or the rest (QA_GROUP_OTHER). */
enum qa_role_group qa_layer_map_group(enum qa_role r);

/* ---- recorded provenance (src/analysis/summary.c) ------------------- */

/*
 * The string value of metadata key, or the first string of an array
 * value (llama-imatrix has written quantize.imatrix.dataset as either,
 * depending on its version); NULL when absent or of another type. The
 * string is the inventory's.
 */
const char *qa_inv_kv_string(const struct qa_inventory *inv,
			     const char *key);

/* The importance matrix llama-quantize records (ggml-org/llama.cpp
 * tools/quantize/quantize.cpp, LLM_KV_QUANTIZE_IMATRIX_*). */
struct qa_imatrix {
	const char *file;	/* quantize.imatrix.file, or NULL */
	const char *dataset;	/* quantize.imatrix.dataset, or NULL */
	int64_t entries;	/* entries_count, -1 when absent */
	int64_t chunks;		/* chunks_count, -1 when absent */
};

/* Fills *out from inv's metadata; returns whether any of the four keys
 * is there. */
bool qa_imatrix_of(const struct qa_inventory *inv, struct qa_imatrix *out);

#endif /* QA_ANALYSIS_ANALYSIS_H */
