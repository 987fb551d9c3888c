/* SPDX-License-Identifier: MIT */
/*
 * The real file system, with symbolic links kept inside the model folder.
 *
 * A model download is a folder of files from a stranger, and a symbolic
 * link is one more file in it: "model.safetensors -> ~/.ssh/id_ed25519"
 * or "config.json -> /proc/self/environ" would make any tool that follows
 * it read the target and, through its findings (a header length is the
 * first 8 bytes, a size is a size), show it in a report that may be
 * published as a CI artifact. A confined file system does not follow such
 * a link: stat and list report it as QA_NODE_OUTSIDE, and open refuses it
 * (QA_E_IO, err ELOOP, not_regular QA_LINK_OUT_WHAT) without opening the
 * target.
 *
 * A link stays inside when its target, with every link resolved
 * (realpath), lies in the root folder, or is a blob of a Hugging Face
 * cache (.../models--org--name/blobs/<sha>: what huggingface_hub links
 * snapshots and --local-dir downloads to). Only the last component of a
 * path is judged: the folders above it are the ones the user named (or a
 * cache snapshot's own layout), and the loaders only ever join a plain
 * file name to the model folder. A dangling link is missing, as before.
 *
 * The check is made on the path and the file is then opened by its
 * resolved name with O_NOFOLLOW, so a link swapped in between is refused
 * (ELOOP) rather than followed; it is not meant to stand against another
 * local user rewriting the folder while quantaudit runs.
 */
#ifndef QA_SRC_CONFINE_H
#define QA_SRC_CONFINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/source.h"

/* What a QA_NODE_OUTSIDE entry is, for loaders that name what a file
 * they need is instead (they report it with qa_inv_link_out, QA1411). */
#define QA_LINK_OUT_WHAT "a symbolic link out of the model folder"

/* Longest root kept (PATH_MAX on Linux). */
#define QA_CONFINE_PATH_MAX 4096

/* Folders whose listing a confined file system remembers. */
#define QA_CONFINE_MEMO 4

/* One folder's listing as a confined file system gave it. */
struct qa_dir_memo {
	const char *dir;
	struct qa_dirent *e;
	size_t n;
};

struct qa_arena;

struct qa_confined_fs {
	struct qa_fs fs;		/* the view; fs.ctx points here */
	char root[QA_CONFINE_PATH_MAX];	/* realpath of the folder */
	size_t root_len;
	/* With an arena (qa_fs_confined_memo), the first QA_CONFINE_MEMO
	 * folders listed are kept there and listed again from memory:
	 * resolution and three loaders each list a model folder, and
	 * every listing stats every entry (a shard of a 100-shard folder
	 * was stat-ed four times over). One run sees one listing. */
	struct qa_arena *memo_arena;
	struct qa_dir_memo memo[QA_CONFINE_MEMO];
	size_t n_memo;
};

/*
 * Sets c up as the real file system confined to the folder root. Returns
 * QA_OK, or QA_E_IO when root cannot be resolved (it does not exist, or
 * its real path is too long): the caller then reads unconfined, as there
 * is nothing in it to read.
 */
int qa_fs_confined_init(struct qa_confined_fs *c, const char *root);

/* The same for a root that is already a real path (qa_fs_real_path): no
 * second resolution of every component. QA_E_IO when it is not absolute
 * or too long. */
int qa_fs_confined_init_real(struct qa_confined_fs *c,
			     const char *real_root);

/* Keeps c's listings in a (which outlives c's use): see memo above. */
void qa_fs_confined_memo(struct qa_confined_fs *c, struct qa_arena *a);

/* Adds a copy of dir's listing e[0..n) to c's memo, as one that c made
 * (a listing handed down from resolution, made under the same root).
 * False when the memo is full, off or out of memory: c then lists dir
 * itself. */
bool qa_fs_confined_remember(struct qa_confined_fs *c, const char *dir,
			     const struct qa_dirent *e, size_t n);

/* True when fs is a confined file system and path (a symbolic link) leads
 * out of its folder. */
bool qa_fs_outside(const struct qa_fs *fs, const char *path);

/* realpath(path): every link and ".." resolved; malloc'd, NULL when it
 * cannot be resolved. */
char *qa_fs_real_path(const char *path);

/* True when the real path p lies in a Hugging Face cache's blobs folder
 * (.../models--*|datasets--*|spaces--* /blobs/<40 or 64 hex digits>). */
bool qa_fs_hf_blob(const char *p);

/*
 * What the symbolic link at path says, as written in the link (not where
 * it resolves), into buf (cap bytes, NUL-terminated, cut if longer);
 * false when path is no link.
 */
bool qa_fs_link_text(const char *path, char *buf, size_t cap);

#endif /* QA_SRC_CONFINE_H */
