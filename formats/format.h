/* SPDX-License-Identifier: MIT */
/*
 * The format module interface. Each format (GGUF, safetensors, the
 * Hugging Face folder) is a const struct qa_format; the input driver
 * (src/input.c) probes files and hands them to the right module.
 *
 * Modules read only through struct qa_source / struct qa_reader, write
 * only into the inventory (tensors, metadata, hparams, findings) and never
 * print or exit.
 */
#ifndef QA_FORMATS_FORMAT_H
#define QA_FORMATS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"
#include "core/source.h"

struct qa_format {
	const char *name;	/* "gguf", "safetensors" */
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
};

extern const struct qa_format qa_format_gguf;
extern const struct qa_format qa_format_safetensors;

/*
 * Set-level loaders. Each adds every file of the set to the inventory,
 * parses it, and records cross-file findings. All return QA_OK (possibly
 * with findings), QA_E_UNRECOGNIZED, QA_E_IO or QA_E_NOMEM.
 */

/* A GGUF file, or every part of the split set it belongs to
 * (name-0000k-of-0000n.gguf, any k), merged into one inventory. Fills
 * hparams from the (first part's) metadata. formats/gguf_split.c */
int qa_gguf_load_path(struct qa_inventory *inv, const char *path);

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

/* A Hugging Face model folder: config.json (hparams), quantization and
 * tokenizer side files, the safetensors set (index, shards, extra
 * shards), or the GGUF files when the folder holds GGUF. formats/hf_dir.c */
int qa_hf_load_dir(struct qa_inventory *inv, const char *dir);

/* Normalizes GGUF metadata (inv->kvs) into inv->hp. formats/gguf_hparams.c */
void qa_gguf_fill_hparams(struct qa_inventory *inv);

/* Normalizes a parsed config.json into inv->hp; `json` is the file text.
 * Returns QA_OK or records QA1401 and returns QA_OK. formats/hf_config.c */
int qa_hf_fill_hparams(struct qa_inventory *inv, const char *file,
		       const char *json, size_t len);

#endif /* QA_FORMATS_FORMAT_H */
