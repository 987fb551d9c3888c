/* SPDX-License-Identifier: MIT */
/*
 * PyTorch checkpoints: torch.save's zip format (torch >= 1.6: one folder
 * holding data.pkl, byteorder, version, .format_version,
 * .storage_alignment, .data/serialization_id and a data/<key> member per
 * storage, all stored uncompressed), the legacy format (the magic-number
 * pickle, the protocol version, sys_info, the object pickle, the storage
 * keys, then each storage as a count and its raw bytes), the 0.1-era tar
 * checkpoint, a plain pickle saved under a checkpoint name, and sharded
 * sets described by pytorch_model.bin.index.json.
 *
 * The object pickle is walked by the non-executing pickle walker
 * (formats/pickle.h); the tensor inventory comes from the rebuild calls it
 * finds (torch._utils._rebuild_tensor_v2 and kin): names from the state
 * dict keys, dtypes from the storage classes (or the dtype argument of
 * _rebuild_tensor_v3), shapes and strides from the rebuild arguments,
 * offsets and sizes from the storage members. The zip is read with a
 * small bounded central-directory reader of its own, as torch's miniz
 * reads it, and every difference from what torch.save writes is a
 * finding (QA16xx, rules/registry_pytorch.def).
 */
#ifndef QA_FORMATS_PYTORCH_H
#define QA_FORMATS_PYTORCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"
#include "core/source.h"

/* Zip members listed (a torch zip holds one per storage plus six). */
#define QA_PT_MAX_MEMBERS ((uint64_t)4 << 20)
/* Bytes of central directory read (about 80 bytes per member). */
#define QA_PT_MAX_CD ((uint64_t)512 << 20)
/* Storages of a legacy checkpoint. */
#define QA_PT_MAX_STORAGES ((uint64_t)4 << 20)
/* Visits of the object graph while collecting tensors (a state dict is
 * visited once per value; shared references repeated beyond this are an
 * expansion attack, QA1610). */
#define QA_PT_MAX_VISITS ((uint64_t)64 << 20)
/* Nesting of dicts and lists followed to find tensors. */
#define QA_PT_MAX_DEPTH 32
/* A *.bin.index.json is read by formats/weight_index.c, to at most
 * QA_WEIGHT_INDEX_MAX bytes. */

/*
 * The format table row's probe: 95 for a zip whose first member is a
 * data.pkl (torch.save writes it first), 100 for the legacy magic-number
 * pickle, 60 for any other pickle (protocol 2+ header, or protocol 0/1
 * opcodes that decode cleanly), 0 otherwise. A zip without data.pkl first
 * is left to the archive reader.
 */
int qa_pt_probe(const uint8_t *buf, size_t len, uint64_t file_size);

/*
 * A zip whose central directory names a <folder>/data.pkl (in any case):
 * a torch checkpoint even when its first local header says otherwise
 * (the probe sees only the first 512 bytes). The input driver asks
 * before handing a zip to the archive reader.
 */
bool qa_pt_is_torch_zip(struct qa_source *src);

/* Parses the checkpoint src (already added as inv->files[file_index])
 * into the inventory: tensors and findings. QA_OK (possibly with
 * findings), QA_E_IO or QA_E_NOMEM. */
int qa_pt_load_file(struct qa_inventory *inv, uint32_t file_index,
		    struct qa_source *src);

/*
 * A checkpoint file, a numbered shard (which loads its set), or a
 * *.bin.index.json (which loads the set it indexes, with the index
 * checks QA1301-QA1309): the folder's side files are read as for the
 * folder. Same returns as qa_pt_load_file.
 */
int qa_pt_load_path(struct qa_inventory *inv, const char *path);

/*
 * The PyTorch weights of a checkpoint folder that holds no safetensors:
 * the index index_name (or NULL) and the shards it names, else every
 * pytorch_model*.bin (or the single *.pt / *.pth / *.ckpt). Returns
 * QA_OK, QA_E_IO or QA_E_NOMEM; *found says whether any weight file was
 * there.
 */
int qa_pt_load_set_in_dir(struct qa_inventory *inv, const char *dir,
			  const char *index_name, bool *found);

/*
 * Security scan of the other pickle files of a folder (training_args.bin,
 * optimizer.pt, rng_state.pth, a pytorch_model.bin beside safetensors...):
 * each is added as a file of the inventory and walked for findings, no
 * tensors listed. Names already loaded as weights are skipped.
 */
int qa_pt_scan_side_pickles(struct qa_inventory *inv, const char *dir,
			    const struct qa_dirent *ents, size_t n);

/* A name the PyTorch loaders read as weights: pytorch_model*.bin,
 * *.pt, *.pth, *.ckpt, or a *.bin.index.json. */
bool qa_pt_weight_name(const char *name);
/* A name worth a security scan when it holds a pickle or a torch zip:
 * *.bin, *.pt, *.pth, *.ckpt, *.pkl, *.pickle, *.joblib, *.mar. */
bool qa_pt_pickle_name(const char *name);

extern const struct qa_format qa_format_pytorch;

#endif /* QA_FORMATS_PYTORCH_H */
