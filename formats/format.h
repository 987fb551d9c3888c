/* SPDX-License-Identifier: MIT */
/*
 * The format module interface. Each format (GGUF, safetensors, the
 * Hugging Face folder) is a const struct qa_format; the input driver
 * (formats/input.c) probes files and hands them to the right module.
 *
 * Modules read only through struct qa_source / struct qa_reader, write
 * only into the inventory (tensors, metadata, hparams, findings) and never
 * print or exit.
 */
#ifndef QA_FORMATS_FORMAT_H
#define QA_FORMATS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/inventory.h"
#include "core/source.h"

struct qa_format {
	const char *name;	/* "gguf", "safetensors" */
	/* A file whose name ends so is this format even when the probe
	 * says no: a damaged file is still reported by its module. NULL:
	 * only the probe decides. */
	const char *extension;
	enum qa_input_kind kind;	/* what an input of it is */
	size_t probe_size;	/* bytes probe() wants */
	/* 0 = not this format, 1..100 = confidence. */
	int (*probe)(const uint8_t *buf, size_t len, uint64_t file_size);
	/*
	 * Parses the file src (already added as inv->files[file_index]) into
	 * the inventory. Returns QA_OK (possibly with findings),
	 * QA_E_UNRECOGNIZED, QA_E_IO or QA_E_NOMEM.
	 */
	int (*load)(struct qa_inventory *inv, uint32_t file_index,
		    struct qa_source *src);
	/*
	 * Loads the file at path and every file of the set it belongs to
	 * (split parts, shards, an index), with the cross-file checks.
	 * Same returns as load.
	 */
	int (*load_path)(struct qa_inventory *inv, const char *path);
};

extern const struct qa_format qa_format_gguf;
extern const struct qa_format qa_format_safetensors;

/* The file modules, each one file: GGUF (formats/gguf.c) and safetensors
 * (formats/safetensors.c). probe and load as in struct qa_format. */
int qa_gguf_probe(const uint8_t *buf, size_t len, uint64_t file_size);
int qa_gguf_load_file(struct qa_inventory *inv, uint32_t file_index,
		      struct qa_source *src);
int qa_st_probe(const uint8_t *buf, size_t len, uint64_t file_size);
int qa_st_load_file(struct qa_inventory *inv, uint32_t file_index,
		    struct qa_source *src);
/* Reads the values of the HQQ metadata tensors among tensors first..
 * (formats/st_values.c) into qa_tensor.value; QA_OK or QA_E_NOMEM. */
int qa_st_read_small_values(struct qa_inventory *inv, uint32_t first,
			    struct qa_source *src);
/* Test hook: false makes the safetensors reader take its general
 * scanner for every entry, so the fuzz target can check that the fast
 * path for the library's own layout gives the same report. */
void qa_st_fast_entries(bool on);

/* Every file format, NULL-terminated, in probe order (formats/input.c). */
extern const struct qa_format *const qa_formats[];

/*
 * Set-level loaders. Each adds every file of the set to the inventory,
 * parses it, and records cross-file findings. All return QA_OK (possibly
 * with findings), QA_E_UNRECOGNIZED, QA_E_IO or QA_E_NOMEM.
 */

/* A GGUF file, or every part of the split set it belongs to
 * (name-0000k-of-0000n.gguf, any k), merged into one inventory. Fills
 * hparams from the (first part's) metadata. formats/gguf_split.c */
int qa_gguf_load_path(struct qa_inventory *inv, const char *path);

/*
 * The split-set part names of a folder listing, sorted so that each set
 * and each prefix is a range found by binary search: a folder of many
 * sets costs O(n log n) in all, never a listing or a scan per set.
 * Lifecycle: created from a listing (the names are copied), destroyed
 * with qa_gguf_split_index_destroy (NULL-safe). formats/gguf_split.c
 */
struct qa_split_entry {
	const char *name;	/* basename, in names */
	size_t prefix_len;	/* bytes before -0000k-of-0000n.gguf */
	uint32_t part, count;	/* as the name writes them */
	enum qa_node_kind kind;	/* as the listing saw it */
	size_t pos;		/* index in the listing */
	bool later;		/* an earlier part of its set is a file: the
				 * set is that part's model, not this one's */
};

struct qa_split_index {
	struct qa_split_entry *v;	/* sorted by prefix, count, part */
	uint32_t *by_name;	/* v indices by prefix, part, count: the
				 * listing's name order inside a prefix */
	size_t n;
	char *names;		/* the names, NUL-separated */
};

/* QA_OK or QA_E_NOMEM; *out is NULL on failure. */
int qa_gguf_split_index_create(const struct qa_dirent *e, size_t n,
			       struct qa_split_index **out);
void qa_gguf_split_index_destroy(struct qa_split_index *ix);

/* qa_gguf_load_path with the split names of the file's folder already
 * indexed (ix from its listing; NULL: list the folder). */
int qa_gguf_load_split(struct qa_inventory *inv, const char *path,
		       const struct qa_split_index *ix);

/* Parses a split-set part name <prefix>-0000k-of-0000n.gguf; false when
 * base does not follow the pattern. formats/gguf_split.c */
bool qa_gguf_split_name(const char *base, size_t *prefix_len, uint32_t *part,
			uint32_t *count);

/* A safetensors file; a numbered shard loads its whole set; a
 * *.safetensors.index.json loads the set it indexes, with the index
 * checks. formats/st_set.c */
int qa_st_load_path(struct qa_inventory *inv, const char *path);

/* The safetensors set of a folder: the index index_name (a
 * *.safetensors.index.json basename, or NULL when there is none), every
 * shard it names, and every other *.safetensors file in dir (extra shards
 * such as model-mtp.safetensors, included and reported when the index does
 * not name them). Used by the folder loader. formats/st_set.c */
int qa_st_load_set_in_dir(struct qa_inventory *inv, const char *dir,
			  const char *index_name);

/* A QA1410 finding for each entry of a model folder that is a FIFO,
 * device or socket (config.json as a FIFO...), or a folder named as a file
 * loaders read (*.json, *.jinja, *.gguf, *.bin, *.pt, *.pth, *.model):
 * never opened. Shards (*.safetensors) are the set loader's to report.
 * formats/st_set.c */
void qa_st_report_special(struct qa_inventory *inv, const char *dir,
			  const struct qa_dirent *e, size_t n);

/* A Hugging Face checkpoint folder: the side files and the safetensors
 * set (index, shards, extra shards). formats/hf_dir.c */
int qa_hf_load_dir(struct qa_inventory *inv, const char *dir);

/*
 * Every file below dir accounted for (formats/hf_tree.c): subfolders
 * walked (bounded), their pickles scanned, every file not yet in the
 * inventory added as a side file (so hash and verify cover it), Python
 * modules reported and scanned (auto_map, QA1420-QA1423), native code
 * and unexpected files reported, modules.json and model_index.json
 * components checked. *sub_weights: weight files found in subfolders.
 * QA_OK or QA_E_NOMEM.
 */
int qa_hf_walk_tree(struct qa_inventory *inv, const char *dir,
		    uint32_t *sub_weights);

/* Keeps the auto_map (and custom_pipelines) entries of a side file the
 * side-file loader parsed (config.json, tokenizer_config.json), for
 * qa_hf_walk_tree, so it is not read twice. QA_OK or QA_E_NOMEM. */
int qa_hf_note_auto_map(struct qa_inventory *inv, const char *cfg,
			const cJSON *root);

/*
 * The side files among the entries of dir (config.json, quantization
 * side files, generation config, tokenizer files, chat_template.jinja):
 * each added to the inventory, each JSON parsed once, and the facts kept
 * (hparams, quantization claim, chat templates, added tokens). Returns
 * QA_OK or QA_E_NOMEM. formats/hf_side.c
 */
int qa_hf_load_side_files(struct qa_inventory *inv, const char *dir,
			  const struct qa_dirent *ents, size_t n);

/* A PEFT adapter_config.json (root, read from file) into inv->adapter;
 * sets model.format peft-lora and model.kind adapter. formats/peft.c */
void qa_peft_parse(struct qa_inventory *inv, const char *file,
		   const cJSON *root);

/* EAGLE-3 / Medusa draft heads from config.json into inv->draft_head;
 * sets model.kind draft. formats/draft_head.c */
void qa_draft_head_detect(struct qa_inventory *inv, const char *file,
			  const cJSON *config);

/* Normalizes GGUF metadata (inv->kvs) into inv->hp. formats/gguf_hparams.c */
void qa_gguf_fill_hparams(struct qa_inventory *inv);

/* The kind of a GGUF that is not a model (a LoRA adapter, a projector,
 * an importance matrix, a control vector, a general.type not known, a
 * draft: an MTP sidecar, a DFlash or EAGLE-3 architecture):
 * inv->model_kind, inv->kind_info and its finding; a model is left as
 * it is. formats/gguf_kind.c */
void qa_gguf_file_kind(struct qa_inventory *inv);

/* Normalizes a parsed config.json (root, read from file) into inv->hp
 * and sets inv->have_config. formats/hf_config.c */
void qa_hf_fill_hparams(struct qa_inventory *inv, const char *file,
			const cJSON *root);

/* A JSON side file parsed once by the folder loader. */
struct qa_side_doc {
	const char *name;	/* basename, e.g. "quantize_config.json" */
	const char *path;	/* display path */
	const cJSON *root;	/* the parsed object */
};

/* The method-specific quantization side files, in vLLM's lookup order
 * (formats/quant_config.c), NULL-terminated. */
extern const char *const qa_quant_side_files[];

/*
 * The quantization claim of a Hugging Face checkpoint into inv->quant:
 * config.json's quantization_config (or text_config's, or
 * compression_config) first, then the side files among docs, as vLLM
 * looks them up (quant-formats.md §1.2). formats/quant_config.c
 */
void qa_quant_config_parse(struct qa_inventory *inv, const cJSON *config,
			   const char *config_path,
			   const struct qa_side_doc *docs, size_t n_docs);

/* The quantization claim of an Ollama safetensors model, from its
 * tensor blobs' metadata, into inv->quant (formats/quant_config.c). */
void qa_quant_config_ollama(struct qa_inventory *inv);

#endif /* QA_FORMATS_FORMAT_H */
