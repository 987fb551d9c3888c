/* SPDX-License-Identifier: MIT */
/*
 * The inventory: everything quantaudit knows about one input (a GGUF file
 * or split set, a safetensors file or sharded set, a Hugging Face folder).
 *
 * Ownership: one struct qa_inventory owns one arena; every pointer inside
 * the inventory (strings, arrays, findings) points into that arena and
 * lives until qa_inventory_destroy(). Formats fill it through the helpers
 * below; reporters only read it.
 */
#ifndef QA_SRC_INVENTORY_H
#define QA_SRC_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/diag.h"
#include "core/model_kind.h"
#include "core/quant.h"
#include "core/roles.h"
#include "core/source.h"

struct qa_fit_result;

enum qa_input_kind {
	QA_KIND_GGUF,
	QA_KIND_SAFETENSORS,
	QA_KIND_HF_DIR,
	QA_KIND_PYTORCH,	/* a PyTorch checkpoint or sharded set
				 * (formats/pytorch.c) */
};

/* What a file is within the input. */
enum qa_file_role {
	QA_FILE_MODEL,		/* the single weight file */
	QA_FILE_SHARD,		/* one part of a split or sharded set */
	QA_FILE_INDEX,		/* *.safetensors.index.json */
	QA_FILE_CONFIG,		/* config.json */
	QA_FILE_QUANT_CONFIG,	/* quantize_config.json, hf_quant_config... */
	QA_FILE_GENERATION_CONFIG,
	QA_FILE_TOKENIZER,	/* tokenizer.json, tokenizer.model, ... */
	QA_FILE_MMPROJ,		/* vision projector GGUF beside the model */
	QA_FILE_OTHER,
};

struct qa_file {
	const char *path;	/* display path: as given, or dir/name */
	const char *name;	/* basename */
	uint64_t bytes;		/* size on disk */
	const char *format;	/* "gguf", "safetensors", "json", "sentencepiece"... */
	enum qa_file_role role;
	uint32_t part;		/* 1-based part number in a set, 0 if none */
	uint32_t parts;		/* part count claimed by name/keys, 0 if none */
	uint64_t header_bytes;	/* bytes of header (GGUF: up to the data section) */
	uint64_t data_offset;	/* start of tensor data, 0 if none */
	uint32_t tensor_count;	/* tensors that came from this file */
	bool big_endian;	/* GGUF stored big-endian */
	uint32_t gguf_version;	/* GGUF version, 0 otherwise */
	bool unlisted;		/* a safetensors file an index exists for
				 * but does not name (QA1305): loaders that
				 * follow the index skip it */
};

/* Bytes of chat templates read and scanned per model, all templates
 * together (rules/check_template.c): real templates are at most a few
 * tens of KB, so this is a thousand times the largest. A template (or
 * the part of one) beyond it is read no further and reported as not
 * scanned (QA6004). Loaders keep each template up to this size. */
#define QA_TEMPLATE_SCAN_MAX ((uint64_t)32 << 20)

/* A chat template as a file holds it: GGUF tokenizer.chat_template*,
 * tokenizer_config.json chat_template (a string or each named entry),
 * chat_template.jinja, additional_chat_templates/<name>.jinja,
 * chat_template.json and processor_config.json chat_template. */
struct qa_template {
	const char *label;	/* where it is, for findings:
				 * "chat_template.jinja",
				 * "tokenizer_config.json chat_template 'tool_use'",
				 * "tokenizer.chat_template" */
	const char *text;	/* the bytes kept, NUL-terminated; NULL when
				 * the file was too large to read */
	uint64_t len;		/* bytes in text */
	uint64_t full_len;	/* bytes the file holds */
	const char *file;	/* display path, or NULL */
	int64_t offset;		/* of the value in file, -1 if unknown */
	bool primary;		/* the template engines use by default */
	bool shadowed;		/* a duplicate JSON key Python does not use
				 * (scanned all the same) */
	bool go;		/* Go text/template syntax (an Ollama
				 * template layer), not Jinja: the Jinja
				 * layers of rules/check_template.c do not
				 * apply; formats/ollama.c checks its
				 * structure */
};

/* tokenizer_config.json added_tokens_decoder: {"<id>": {"content"...}}. */
struct qa_added_token {
	int64_t id;
	const char *content;	/* NULL when absent */
};

/* GGUF value types (gguf.h enum gguf_type). */
enum qa_value_type {
	QA_V_U8 = 0, QA_V_I8 = 1, QA_V_U16 = 2, QA_V_I16 = 3,
	QA_V_U32 = 4, QA_V_I32 = 5, QA_V_F32 = 6, QA_V_BOOL = 7,
	QA_V_STRING = 8, QA_V_ARRAY = 9, QA_V_U64 = 10, QA_V_I64 = 11,
	QA_V_F64 = 12,
	QA_V_COUNT = 13,
};

/* Arrays longer than this keep only their length and element type. */
#define QA_KV_KEEP_ELEMENTS 4096
/* Strings longer than this are kept truncated (length still exact). */
#define QA_KV_KEEP_STRING ((uint64_t)4 << 20)
/*
 * Kept arrays are stored compactly (arr.packed: the scalars at their own
 * width, strings as pointer and length), about the bytes they take in the
 * file. One struct qa_value per element (arr.items, 40 bytes each, 40
 * times a u8 element) is made only for arrays of at most
 * QA_KV_EXPAND_ELEMENTS elements, the most any report prints, and at
 * most QA_KV_EXPAND_BUDGET of them per inventory; a longer string array
 * gets its first element there. Read elements with qa_value_item().
 */
#define QA_KV_EXPAND_ELEMENTS 64
#define QA_KV_EXPAND_BUDGET ((uint64_t)1 << 16)

/* A kept string element in arr.packed. */
struct qa_packed_str {
	const char *s;		/* NUL-terminated, maybe truncated */
	uint64_t len;		/* true length in the file */
};

struct qa_value {
	enum qa_value_type type;
	union {
		uint64_t u;	/* U8..U64 and BOOL */
		int64_t i;	/* I8..I64 */
		double f;	/* F32, F64 */
		struct {
			const char *s;	/* NUL-terminated, maybe truncated */
			uint64_t len;	/* true length in the file */
		} str;
		struct {
			enum qa_value_type elem;
			uint32_t kept;		/* elements kept (at most
						 * QA_KV_KEEP_ELEMENTS) */
			uint64_t count;		/* true element count */
			/* Without packed: the kept elements, or NULL
			 * (arrays built by hand, arrays of arrays).
			 * With packed: all kept elements when count <=
			 * QA_KV_EXPAND_ELEMENTS (or NULL past the
			 * budget), else NULL or (string arrays) the
			 * first element only. */
			struct qa_value *items;
			/* The kept elements, compact: count x the
			 * element's width in host byte order (bool 1
			 * byte, 0 or 1), or struct qa_packed_str for
			 * strings; NULL for arrays of arrays. */
			const void *packed;
		} arr;
	} v;
};

/* One metadata key: GGUF KV pairs, safetensors __metadata__ (strings). */
struct qa_kv {
	const char *key;
	struct qa_value value;
	uint32_t file;		/* index into files[] */
	uint64_t offset;	/* offset of the key in that file */
};

#define QA_MAX_DIMS 8

/* Fields paired by size: 112 bytes, not 152 (one per tensor, and a
 * model has up to 100k). */
struct qa_tensor {
	const char *name;
	uint32_t file;		/* index into files[] */
	int32_t ggml_type;	/* ggml type id, -1 for safetensors */
	uint64_t offset;	/* absolute offset of the data in that file */
	uint64_t bytes;		/* stored bytes */
	const char *dtype;	/* ggml type name or safetensors dtype string */
	/* n_dims and mtp share one word with role: 144 bytes a tensor,
	 * not 152 (100k tensors are 14 MB of a 100k-tensor file's run). */
	uint16_t n_dims;
	bool mtp;		/* part of an MTP / nextn head */
	enum qa_role role;
	uint64_t shape[QA_MAX_DIMS];	/* as stored (GGUF ne order) */
	uint64_t elements;	/* product of shape (stored elements) */
	int32_t layer;		/* block index, -1 when not in a block */
	int32_t module;		/* index into modules[], -1 if none */
	uint64_t params;	/* logical parameters it carries: a packed
				 * payload its module's, scales and zeros 0,
				 * a plain tensor its elements */
	/* Its elements as integers, for the few tiny tensors whose values
	 * the analysis needs (HQQ nbits, group_size, axis, shape; read by
	 * formats/st_values.c), else NULL. */
	const int64_t *value;
};

/* Normalized hyperparameters; -1 means unknown. */
struct qa_hparams {
	const char *arch;		/* normalized family name */
	const char *arch_raw;		/* general.architecture / model_type */
	const char *name;		/* general.name or _name_or_path */
	int64_t n_layer;		/* trunk blocks, excluding MTP blocks */
	int64_t n_layer_all;		/* blocks in the file incl. MTP */
	int64_t n_embd;
	int64_t n_head;
	int64_t n_head_kv;		/* scalar, or max of the per-layer array */
	int32_t *head_kv_per_layer;	/* n_layer_all entries or NULL */
	int64_t head_dim_k;
	int64_t head_dim_v;
	int64_t n_ff;
	int64_t n_vocab;
	int64_t n_ctx_train;
	int64_t n_expert;
	int64_t n_expert_used;
	int64_t n_expert_shared;
	int64_t n_ff_expert;
	int64_t n_leading_dense;
	int64_t sliding_window;
	int64_t swa_pattern;		/* period, e.g. 6 for Gemma 3 */
	uint8_t *layer_kind;		/* n_layer_all entries or NULL */
	int64_t full_attention_interval;
	int64_t full_attention_interval_declared;	/* as config.json
							 * says, -1 absent */
	int64_t n_layer_types;		/* entries of config.json layer_types,
					 * -1 absent */
	int64_t q_lora_rank;
	int64_t kv_lora_rank;
	int64_t qk_rope_dim;
	int64_t qk_nope_dim;
	int64_t v_head_dim_mla;
	int64_t ssm_d_conv;
	int64_t ssm_d_inner;
	int64_t ssm_d_state;
	int64_t ssm_dt_rank;
	int64_t ssm_n_group;
	int64_t n_mtp;			/* declared MTP / nextn layers (0 when
					 * not declared) */
	bool mtp_declared;		/* the metadata states n_mtp, 0 included */
	int64_t file_type;		/* general.file_type */
	bool tie_embeddings;
};

/* Layer kinds stored in hparams.layer_kind[]. */
enum qa_layer_kind {
	QA_LAYER_UNKNOWN = 0,
	QA_LAYER_FULL_ATTENTION,
	QA_LAYER_SLIDING_ATTENTION,
	QA_LAYER_LINEAR_ATTENTION,	/* GDN / DeltaNet / linear */
	QA_LAYER_MAMBA,			/* Mamba / Mamba-2 (SSD) mixer */
	QA_LAYER_MLP_ONLY,		/* Nemotron-H '-' / MoE 'E' blocks */
	QA_LAYER_MTP,
	QA_LAYER_SHORT_CONV,		/* LFM2 gated short convolution */
	QA_LAYER_PARALLEL_HYBRID,	/* Falcon-H1: attention and a Mamba-2
					 * mixer side by side in every layer */
};

/* MTP verdict of an input (JSON model.mtp.status). */
enum qa_mtp_status {
	QA_MTP_NOT_APPLICABLE,	/* neither declared, present nor expected */
	QA_MTP_PRESENT,		/* declared (or not) and complete */
	QA_MTP_MISSING,		/* declared, no MTP weights at all */
	QA_MTP_PARTIAL,		/* some expected MTP tensors are absent */
	QA_MTP_ABSENT,		/* family ships MTP; file neither declares
				 * nor holds it (stripped) */
};

const char *qa_mtp_status_name(enum qa_mtp_status s);

/* Per-role aggregate for the component table. */
struct qa_component {
	const char *name;		/* role name, or "mtp" */
	uint32_t tensors;
	uint64_t params;
	uint64_t bytes;
	/* dtype histogram by tensor count and bytes */
	struct qa_dtype_count {
		const char *dtype;
		uint32_t tensors;
		uint64_t bytes;
		uint64_t params;
	} *dtypes;
	uint32_t n_dtypes;
	/* precision histogram by module (scheme labels, e.g. "NVFP4") */
	struct qa_precision_count {
		const char *precision;
		uint32_t modules;
		uint64_t params;
		uint64_t bytes;
	} *precisions;
	uint32_t n_precisions;
};

struct qa_kv_ref;

struct qa_inventory {
	struct qa_arena arena;		/* owns everything below */
	const char *path;		/* input path as given */
	enum qa_input_kind kind;
	const struct qa_fs *fs;		/* where the files are read from */
	/* An input inside an archive: the file system of its members,
	 * which the file paths ("<archive>!/<member>") open through, kept
	 * open as long as the inventory (release_members(members_ctx) is
	 * called by qa_inventory_destroy); NULL for other inputs. */
	const struct qa_fs *member_fs;
	void (*release_members)(void *ctx);
	void *members_ctx;

	struct qa_file *files;
	uint32_t n_files, cap_files;

	struct qa_kv *kvs;
	uint32_t n_kvs, cap_kvs;
	/* qa_inv_kv's index: the keys sorted (then by position), built by
	 * the first lookup after kvs change (malloc'd, a cache: lookups
	 * are O(log n), not a scan per key). */
	struct qa_kv_ref *kv_index;
	uint32_t n_kv_index;
	const struct qa_kv *kv_index_of;	/* kvs it was built from */

	struct qa_tensor *tensors;
	uint32_t n_tensors, cap_tensors;

	struct qa_finding *findings;
	uint32_t n_findings, cap_findings;
	/* Per rule that found something: findings stored and findings
	 * counted past the caps (qa_inv_finding); malloc'd, freed by
	 * qa_inventory_destroy. */
	struct qa_rule_tally *tally;
	uint32_t n_tally, cap_tally;
	uint32_t last_tally;		/* tally[] index of the last rule
					 * counted: a flood is one rule */
	/* Overrides known while findings are made (set by the pipeline
	 * before loading, may be NULL): a disabled rule's findings are
	 * neither stored nor counted, so they cannot crowd out others. */
	const struct qa_overrides *overrides;

	/* What the input is (core/model_kind.h): the producer's format
	 * (QA_FORMAT_UNKNOWN until a loader or the summary decides it from
	 * the input kind), the kind of file (a model unless a loader found
	 * otherwise), and the engines that load it as it is (QA_ENG bits,
	 * set by the summary from rules/loaders.def). */
	enum qa_model_format format;
	enum qa_model_kind model_kind;
	uint32_t engines;
	/* format was named from the tensors alone (EXL2 q_weight, EXL3
	 * trellis) with no config claiming it: the summary sets it, a check
	 * says so (QA3016). */
	bool format_from_tensors;
	/* A file that is not a model (formats/gguf_kind.c): what it is in
	 * one phrase ("a LoRA adapter for llama, rank 16, alpha 32"), what
	 * to do with it ("load it with --lora beside its base model"), and
	 * its facts by name (JSON model.kind_facts); NULLs and 0 for a
	 * model. */
	struct {
		const char *summary;
		const char *advice;
		struct qa_kind_fact {
			const char *key;
			struct qa_value value;
		} *facts;
		uint32_t n_facts, cap_facts;
		/* loaded as the projector of the model beside it
		 * (formats/input.c): being a projector is expected there,
		 * not a finding */
		bool as_projector;
	} kind_info;

	/* GGUF tensor types read with a fork's meaning (formats/gguf.c):
	 * the forks whose types were taken ("ik_llama.cpp", "bitnet.cpp";
	 * NULL none), general.file_type read as bitnet.cpp's 40
	 * (LLAMA_FTYPE_MOSTLY_I2_S, upstream's Q1_0), and the tensors of a
	 * type no table knows (not sized: the audit is incomplete). */
	struct {
		const char *ik;
		const char *bitnet;
		bool bitnet_ftype;
		uint32_t unknown_tensors;
	} ggml_fork;

	struct qa_hparams hp;
	struct qa_quant_config quant;	/* what the config claims */
	/* A PEFT adapter folder's adapter_config.json (formats/peft.c);
	 * file NULL when the input has none. */
	struct qa_adapter {
		const char *file;		/* display path */
		const char *peft_type;		/* "LORA", ... as written */
		int64_t r;			/* -1 absent */
		double alpha;			/* lora_alpha; < 0 absent */
		const char *base_model;		/* base_model_name_or_path */
		const char *task_type;
		const char **targets;		/* target_modules (list), or */
		uint32_t n_targets;
		const char *target_regex;	/* target_modules as a string:
						 * a regex, re.fullmatch */
		bool use_dora, use_rslora;
		/* rank_pattern: module pattern -> rank (peft
		 * tuners/lora/config.py; key matched as a suffix regex) */
		const char **rank_keys;
		int64_t *rank_values;
		uint32_t n_rank;
		/* Set by --base (src/engine/audit.c): the base model's
		 * inventory while the checks run, else NULL. */
		const struct qa_inventory *base;
		const char *base_path;		/* as given */
	} adapter;
	/* A speculative-decoding draft head's config.json facts
	 * (formats/draft_head.c): EAGLE-3 (draft_vocab_size, d2t/t2d) or
	 * Medusa; kind NULL for any other input. */
	struct qa_draft_head {
		const char *kind;		/* "eagle3", "medusa" */
		const char *file;		/* config.json display path */
		int64_t draft_vocab;		/* draft_vocab_size, -1 */
		int64_t target_hidden;		/* target_hidden_size, -1 */
		int64_t aux_layers[8];		/* target layers read */
		uint32_t n_aux;
		int64_t medusa_heads;		/* medusa_num_heads, -1 */
		int64_t spec_tokens;		/* speculators' trained
						 * speculative_tokens, -1 */
		bool speculators;		/* the speculators layout */
	} draft_head;
	/* An Ollama model's side layers (formats/ollama.c): params
	 * num_ctx (0 absent; fit's default context), stop strings,
	 * the system prompt, licenses; manifest NULL for other inputs. */
	struct qa_ollama_info {
		const char *manifest;		/* display path */
		const char *parent;		/* model layer "from" */
		int64_t num_ctx;
		const char **stop;
		uint32_t n_stop;
		const char *system;
		uint32_t n_license;
		uint32_t n_projectors, n_adapters, n_drafts;
	} ollama;
	struct qa_module *modules;	/* what the tensors hold */
	uint32_t n_modules;
	bool have_config;		/* HF config.json was read */
	const char *config_file;	/* its display path, or NULL */
	const char *quant_config_file;	/* located quant config, or NULL */
	const char *chat_template;	/* the primary template, at most
					 * 1 MiB of it */

	/* Side-file facts, read once by the loaders. */
	struct qa_template *templates;
	uint32_t n_templates, cap_templates;
	struct qa_added_token *added_tokens;
	uint32_t n_added_tokens;
	const char *tokenizer_config_file;	/* display path, or NULL */
	/* auto_map entries of the side files the side-file loader parsed
	 * (formats/hf_tree.c keeps them: "cfg\0key\0value\0" records in
	 * the arena, each side file read once) */
	char *auto_map;
	size_t auto_map_len;

	/* derived by qa_inventory_summarize() */
	uint64_t params;
	uint64_t bytes;
	struct qa_component *components;
	uint32_t n_components;
	const char *file_type_declared;	/* llama_ftype name or NULL */
	const char *file_type_guessed;	/* llama.cpp's guess from tensors */
	const char *dominant_type;	/* ggml type held by most tensors
					 * (llama.cpp's file type guess) */
	const char *dominant_matrix_type;	/* held by most 2-D tensors:
						 * the weight matrices */
	/* The MTP summary (src/analysis/mtp.c): what the metadata
	 * declares, what the tensors hold, what the family ships. */
	struct {
		int64_t declared;
		int64_t present;	/* MTP layers with tensors (in MTP-layer
					 * units: Nemotron-H's two checkpoint
					 * sub-layers are one) */
		uint32_t tensors;
		uint64_t bytes;
		enum qa_mtp_status status;
		const char *family;	/* family expectation that applied */
		const char *family_note;	/* what its absence costs */
		const char *family_source;
		const char *family_as_of;
		bool draft_only;	/* GGUF MTP-only draft file */
		bool not_expected;	/* none, and the family is not known
					 * to ship one (family says why) */
		int64_t base;		/* first MTP block index */
		int64_t max_layer;	/* highest block holding MTP tensors,
					 * -1 none */
		int64_t sublayers;	/* checkpoint layers per MTP layer */
		int64_t incomplete;	/* declared layers missing parts */
		const char *missing;	/* "layer 61 lacks attention, MLP; ..."
					 * or NULL */
		bool only_unlisted;	/* every MTP tensor is in a file the
					 * index does not name */
		uint32_t unlisted;	/* MTP tensors in such files */
		/* Why engines will not load the MTP tensors that are
		 * there (undeclared; outside the index), or NULL. */
		const char *not_loaded;
	} mtp;

	/* The vision projector counted with a GGUF model (mmproj-*.gguf
	 * beside it in its folder): the file, its tensor bytes and
	 * parameters; file NULL when none. */
	struct {
		const char *file;
		uint64_t bytes;
		uint64_t params;
		uint32_t tensors;
	} mmproj;
	/* Weight files the set names but the folder lacks (split parts,
	 * index shards, numbered shards), and the weight bytes an index
	 * declares (metadata.total_size, 0 when unknown): a model missing
	 * weights is not sized (src/fit/fit_run.c). */
	struct {
		uint32_t missing_files;
		const char *first_missing;	/* its name, arena-owned */
		uint64_t declared_bytes;
	} weights;
	/* Blocks whose tensors contradict the per-layer layer kind
	 * (src/analysis/summary.c): how many, the first one, and what its
	 * tensors hold instead. */
	struct {
		uint32_t n;
		int32_t first;
		bool first_has_attention;	/* else recurrent tensors */
	} kind_mismatch;
	const char *input_note;		/* what input resolution decided, for
					 * the report, or NULL */
	/* The archive the model was read from (formats/archive.c): file
	 * NULL when the input is not inside one. Paths of files inside it
	 * read "<archive>!/<member>". */
	struct {
		const char *file;	/* the archive's path */
		const char *format;	/* "tar", "tar.gz", "tar.zst", "zip",
					 * "llamafile", "nemo"... */
		const char *kind;	/* the model's own kind inside ("gguf",
					 * "safetensors", "hf-dir"), "none" */
		const char *read;	/* "in-place" (stored members read by
					 * offset) or "streamed" */
		uint32_t members;	/* members listed */
		uint64_t bytes;		/* their uncompressed bytes */
	} archive;

	struct qa_fit_result *fit;	/* set by the fit step, else NULL */
	const char *fit_error;		/* a fit was asked and the model could
					 * not be sized: why; else NULL */
	int fit_engine;			/* enum qa_engine of that attempt */

	const char *verdict;		/* "pass", "warn", "fail": set by the
					 * pipeline once findings are final */

	bool out_of_memory;		/* an allocation failed: exit 4 */
	bool read_failed;		/* a side file's read failed (disk,
					 * server): QA1412, and exit 4 */
	bool limit_reserve;		/* the arena limit was raised once for
					 * the steps after QA1901 */
	uint64_t expanded_values;	/* array elements given an arr.items
					 * struct so far (formats/gguf.c;
					 * at most QA_KV_EXPAND_BUDGET) */
};

/* Creates an empty inventory for path, read from the real file system;
 * NULL when out of memory. */
struct qa_inventory *qa_inventory_create(const char *path);

/* The inventory's file system (inv->fs): open, stat and list. */
/* The input kind as reports spell it: "gguf", "safetensors", "hf-dir",
 * "pytorch". */
const char *qa_inv_kind_name(enum qa_input_kind k);
int qa_inv_open(const struct qa_inventory *inv, const char *path,
		struct qa_source *src);
int qa_inv_stat(const struct qa_inventory *inv, const char *path,
		enum qa_node_kind *kind, uint64_t *size);
int qa_inv_list(const struct qa_inventory *inv, const char *dir,
		struct qa_dirent **out, size_t *n);
/* dir as the user gave it joined with name ('/' between them unless dir
 * ends in one; name alone for an empty dir), in the arena; NULL (and
 * out_of_memory set) when it says no. */
char *qa_inv_join(struct qa_inventory *inv, const char *dir,
		  const char *name);
/*
 * Records that path is a symbolic link out of the model folder, not
 * followed (QA1411, core/confine.h), naming it and what the link says;
 * once per path.
 */
void qa_inv_link_out(struct qa_inventory *inv, const char *path);
/*
 * Records that path was not read because of what an open found it to be
 * (src->not_regular): QA1411 for a link out of the folder
 * (QA_LINK_OUT_WHAT), QA1412 for a file its permissions forbid reading
 * (QA_UNREADABLE_WHAT); once per path. Returns false, recording
 * nothing, for any other what (a FIFO, a folder...: the caller's QA1410).
 */
bool qa_inv_not_read(struct qa_inventory *inv, const char *path,
		     const char *what);
/*
 * Records that path, a file of the model, failed to open or read with
 * src (QA1412), saying why: the file system's own words (qa_fs.why: a
 * server's status), else the failed read's offset and errno
 * (qa_read_failure_last), else src->err; once per path. An open that
 * found the file special or forbidden (src->not_regular) is the
 * caller's to give to qa_inv_not_read instead.
 */
void qa_inv_read_failed(struct qa_inventory *inv, const char *path,
			const struct qa_source *src);
/* Frees the inventory and everything in its arena; accepts NULL. */
void qa_inventory_destroy(struct qa_inventory *inv);

/* Adders return the new element (zeroed except as stated) or NULL when
 * out of memory (inv->out_of_memory is then set). */
struct qa_file *qa_inv_add_file(struct qa_inventory *inv, const char *path);
struct qa_tensor *qa_inv_add_tensor(struct qa_inventory *inv);
struct qa_kv *qa_inv_add_kv(struct qa_inventory *inv);
/* Drops the last key/value (one whose value could not be read). */
void qa_inv_drop_last_kv(struct qa_inventory *inv);
/*
 * Makes room for `tensors` more tensors and `kvs` more keys, for a format
 * that knows its counts before reading (a GGUF header, already bounded by
 * the bytes left in the file): arrays grown by doubling leave every
 * smaller copy in the arena, up to three times the final array. When an
 * array grows, it grows to at least twice its capacity, so the parts of a
 * split set reserving in turn still cost O(total). False when out of
 * memory (inv->out_of_memory set).
 */
bool qa_inv_reserve(struct qa_inventory *inv, uint64_t tensors,
		    uint64_t kvs);
struct qa_template *qa_inv_add_template(struct qa_inventory *inv);

/*
 * Records a finding for rule `code` with a printf-style detail message.
 * file may be NULL; offset < 0 means "no offset"; tensor may be NULL.
 * Strings are copied into the arena.
 */
void qa_inv_finding(struct qa_inventory *inv, unsigned code,
		    const char *file, int64_t offset, const char *tensor,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Same for a rule that is not in the built-in registry (a user policy
 * rule); rule must outlive the inventory. */
void qa_inv_finding_rule(struct qa_inventory *inv, const struct qa_rule *rule,
			 const char *file, int64_t offset, const char *tensor,
			 const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Metadata lookup by exact key; NULL if absent (first match). */
const struct qa_kv *qa_inv_kv(const struct qa_inventory *inv,
			      const char *key);
/* Typed views; return false if absent or not convertible. */
bool qa_value_as_int(const struct qa_value *v, int64_t *out);
bool qa_value_as_double(const struct qa_value *v, double *out);
const char *qa_value_type_name(enum qa_value_type t);

/*
 * Element i of the kept elements of array v, into *out (a string's bytes
 * are borrowed from v). False when v is not an array or i >= kept. Works
 * on the compact form the loaders write and on arrays built by hand.
 */
static inline bool
qa_value_item(const struct qa_value *v, uint64_t i, struct qa_value *out)
{
	const unsigned char *p;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	float f;
	double d;
	struct qa_packed_str ps;

	if (v->type != QA_V_ARRAY || i >= v->v.arr.kept)
		return false;
	if (!v->v.arr.packed) {
		if (!v->v.arr.items)
			return false;
		*out = v->v.arr.items[i];
		return true;
	}
	p = v->v.arr.packed;
	memset(out, 0, sizeof(*out));
	out->type = v->v.arr.elem;
	switch (v->v.arr.elem) {
	case QA_V_U8:
	case QA_V_BOOL:
		out->v.u = p[i];
		return true;
	case QA_V_I8:
		out->v.i = (int8_t)p[i];
		return true;
	case QA_V_U16:
	case QA_V_I16:
		memcpy(&u16, p + 2 * i, 2);
		if (v->v.arr.elem == QA_V_U16)
			out->v.u = u16;
		else
			out->v.i = (int16_t)u16;
		return true;
	case QA_V_U32:
	case QA_V_I32:
		memcpy(&u32, p + 4 * i, 4);
		if (v->v.arr.elem == QA_V_U32)
			out->v.u = u32;
		else
			out->v.i = (int32_t)u32;
		return true;
	case QA_V_F32:
		memcpy(&f, p + 4 * i, 4);
		out->v.f = f;
		return true;
	case QA_V_U64:
	case QA_V_I64:
		memcpy(&u64, p + 8 * i, 8);
		if (v->v.arr.elem == QA_V_U64)
			out->v.u = u64;
		else
			out->v.i = (int64_t)u64;
		return true;
	case QA_V_F64:
		memcpy(&d, p + 8 * i, 8);
		out->v.f = d;
		return true;
	case QA_V_STRING:
		memcpy(&ps, p + sizeof(ps) * i, sizeof(ps));
		out->v.str.s = ps.s;
		out->v.str.len = ps.len;
		return true;
	default:
		return false;
	}
}

/*
 * The caps of qa_inv_finding(): at most QA_FINDINGS_PER_RULE findings of
 * one rule and QA_FINDINGS_MAX of all rules are stored, except that the
 * first finding of every rule is always stored (so each rule that found
 * something has a finding in the report, with its location). Findings
 * past a cap are counted per rule, never dropped silently: the counts
 * take part in the verdict, and every reporter says how many of each
 * severity were not listed. A hostile file with a million bad values
 * cannot turn into a million-line report, nor hide one template
 * injection behind them.
 */
#define QA_FINDINGS_MAX 10000
#define QA_FINDINGS_PER_RULE 1000

/* One rule's findings: how many were stored and how many only counted. */
struct qa_rule_tally {
	const struct qa_rule *rule;
	enum qa_severity severity;	/* effective (after overrides) */
	bool disabled;			/* by an override: not counted */
	uint32_t stored;		/* stored (before grouping) */
	uint64_t dropped;		/* counted past a cap, not stored */
};

/*
 * Findings counted past the caps and not stored, by effective severity
 * (out[QA_SEV_INFO..QA_SEV_ERROR], out may be NULL); returns their total.
 */
uint64_t qa_inventory_dropped(const struct qa_inventory *inv,
			      uint64_t out[QA_SEV_NONE]);

/*
 * One line for reports, in buf: "12000 more findings were found but not
 * listed (2 errors, 11998 warnings): QA1010 gguf-bad-bool 11998 warnings,
 * ..." (rules by severity, then count; at most 8 named). Only rule codes
 * and ids, nothing from the model. Empty when nothing was dropped.
 * Returns buf.
 */
char *qa_inventory_dropped_text(const struct qa_inventory *inv, char *buf,
				size_t cap);

/*
 * Copies the findings of src (stored and counted) into dst, as a
 * projector's inventory hands its findings to the model's.
 */
void qa_inventory_merge_findings(struct qa_inventory *dst,
				 const struct qa_inventory *src);

/*
 * When an allocation failed because the arena reached its limit (not
 * because the system is out of memory): clears inv->out_of_memory, grants
 * a small reserve once so the rest of the pipeline can run, records
 * QA1901 saying what was happening (`when`, e.g. "loading") and returns
 * true; the report then covers what was read. False when the limit was
 * not what refused (a real out of memory, exit 4).
 */
bool qa_inventory_limit_finding(struct qa_inventory *inv, const char *when);

/* Worst severity among findings, stored or only counted, or -1 if none. */
int qa_inventory_worst(const struct qa_inventory *inv);

/*
 * Groups repeated findings: those of one rule, severity and file whose
 * messages differ only in numbers become one, "... (15 times, for
 * 61-75)" when a single number varies, "... (and 14 more like it)"
 * otherwise. Order is kept (a group stands where its first finding was).
 */
void qa_inventory_group_findings(struct qa_inventory *inv);

/* Rewrites the severity of every finding (and of the counted ones) and
 * removes disabled ones. */
void qa_inventory_apply_overrides(struct qa_inventory *inv,
				  const struct qa_overrides *ov);

/*
 * The verdict of one inventory under fail_on: "fail" when a finding is at
 * or above fail_on, "warn" when any warning or error remains, "pass"
 * otherwise; findings counted past the caps count as much as stored
 * ones. The pipeline stores it in inv->verdict once the findings are
 * final; qa_verdict_all() is the worst over several inputs.
 */
const char *qa_verdict(const struct qa_inventory *inv,
		       enum qa_severity fail_on);
const char *qa_verdict_all(struct qa_inventory *const *invs, size_t n,
			   enum qa_severity fail_on);

/*
 * Assigns role/layer/mtp to every tensor (after hparams are known),
 * computes parameters, bytes, the component table, the MTP summary and
 * the GGUF file type guess. Idempotent.
 */
void qa_inventory_summarize(struct qa_inventory *inv);

void qa_hparams_init(struct qa_hparams *hp);

#endif /* QA_SRC_INVENTORY_H */
