/* SPDX-License-Identifier: MIT */
/*
 * A non-executing pickle walker: a bounded stack machine over the opcodes
 * of pickle protocols 0 to 5 (CPython Lib/pickle.py, Lib/pickletools.py)
 * that never imports or calls anything. GLOBAL, STACK_GLOBAL and INST
 * produce symbolic globals; REDUCE, NEWOBJ, NEWOBJ_EX, OBJ and INST
 * produce symbolic call results; BINPERSID and PERSID produce symbolic
 * persistent objects. The machine keeps a real stack, mark stack and memo,
 * so a STACK_GLOBAL whose strings come from the memo, a call whose result
 * is popped at once, or a callable fetched back with GET is named exactly,
 * as pickle.load would resolve it, not guessed by looking back.
 *
 * While it walks it judges every global and every call against the
 * allowlist of PyTorch's weights_only unpickler (torch/_weights_only_
 * unpickler.py, listed with its source in formats/pickle_policy.c) and records
 * security findings (QA15xx, rules/registry_pytorch.def) with the file
 * offset of the opcode. What it builds is the object graph the PyTorch
 * loader reads tensors from (formats/pytorch.c).
 *
 * Lifecycle: every value lives in the caller's arena (struct qa_pkl_walk
 * arena); the walker's own stack, mark stack and memo are malloc'd and
 * freed before qa_pickle_walk returns. Every cost is bounded (QA_PKL_*
 * below, docs/security.md "Pickles").
 */
#ifndef QA_FORMATS_PICKLE_H
#define QA_FORMATS_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/inventory.h"
#include "core/source.h"

/* ---- limits (docs/security.md "Pickles") ------------------------------- */

/* Bytes of one pickle walked; a torch data.pkl is about 200 bytes per
 * tensor, so 1 GiB is five million tensors. */
#define QA_PKL_MAX_BYTES ((uint64_t)1 << 30)
/* Opcodes executed per pickle (every opcode is at least one byte). */
#define QA_PKL_MAX_OPS ((uint64_t)256 << 20)
/* Values on the stack at once, marked ones included: a list of a million
 * floats pushed before APPENDS is the largest real use seen. */
#define QA_PKL_MAX_STACK ((size_t)4 << 20)
/* Open MARKs: real pickles nest a handful deep. */
#define QA_PKL_MAX_MARKS ((size_t)4096)
/* Memo entries (PUT, BINPUT, LONG_BINPUT, MEMOIZE): a torch state dict
 * memoizes about five values per tensor. */
#define QA_PKL_MAX_MEMO ((size_t)8 << 20)
/* Values created per pickle (each takes 48 bytes of the arena). */
#define QA_PKL_MAX_VALUES ((uint64_t)8 << 20)
/* Bytes of a string kept in memory; longer strings keep this prefix,
 * their true length and where their bytes are in the file. */
#define QA_PKL_KEEP_STRING ((uint64_t)64 << 10)
/* A text-protocol line (GLOBAL module and name, INT, FLOAT, PUT...). */
#define QA_PKL_MAX_LINE ((size_t)64 << 10)
/* Pickles inside string constants scanned, counting the outer one. */
#define QA_PKL_MAX_NESTED 3
/* Ceiling of the values arena the loaders give the walker. */
#define QA_PKL_ARENA_LIMIT ((size_t)768 << 20)

/* ---- values -------------------------------------------------------------- */

enum qa_pv_kind {
	QA_PV_NONE,
	QA_PV_BOOL,
	QA_PV_INT,		/* fits in int64: u.i */
	QA_PV_BIGINT,		/* LONG/LONG1/LONG4 beyond int64: u.str holds
				 * the little-endian two's complement bytes */
	QA_PV_FLOAT,
	QA_PV_STR,		/* str (UTF-8 in u.str), and protocol-0/1
				 * strings, which torch.load decodes to str */
	QA_PV_BYTES,		/* bytes, bytearray */
	QA_PV_TUPLE,
	QA_PV_LIST,
	QA_PV_DICT,		/* u.seq.v holds key, value, key, value... */
	QA_PV_SET,
	QA_PV_FROZENSET,
	QA_PV_GLOBAL,		/* module.name, u.g */
	QA_PV_CALL,		/* fn(*args) made by REDUCE, NEWOBJ, NEWOBJ_EX,
				 * OBJ or INST (op says which), u.call */
	QA_PV_PERSID,		/* persistent_load(pid), u.pid */
	QA_PV_BUFFER,		/* NEXT_BUFFER */
	QA_PV_UNKNOWN,		/* what cannot be named: a memo miss, an
				 * extension code, a stack underflow */
};

/* How a global stands against the allowlist (formats/pickle_policy.c). */
enum qa_pkl_class {
	QA_PKL_ALLOWED,		/* in torch's weights_only allowlist */
	QA_PKL_SAFE,		/* known not to run code, but weights_only
				 * refuses it (numpy array reconstructors) */
	QA_PKL_UNLISTED,	/* outside the allowlist */
	QA_PKL_DANGEROUS,	/* known to run code or touch the system */
};

struct qa_pv {
	uint8_t kind;		/* enum qa_pv_kind */
	uint8_t op;		/* the opcode that made it */
	uint16_t flags;		/* QA_PVF_* */
	uint32_t n;		/* items of a sequence (dict: keys and values) */
	uint64_t off;		/* file offset of that opcode */
	union {
		int64_t i;	/* INT, BOOL */
		double f;	/* FLOAT */
		struct {
			const char *s;	/* kept bytes, NUL-terminated */
			uint64_t len;	/* true length */
			uint64_t src;	/* file offset of the raw bytes, or
					 * UINT64_MAX when decoded (text
					 * protocol) */
		} str;
		struct {
			struct qa_pv **v;
			uint32_t cap;
		} seq;		/* TUPLE, LIST, DICT, SET, FROZENSET */
		struct {
			const char *module;
			const char *name;
			uint8_t cls;	/* enum qa_pkl_class */
		} g;
		struct {
			struct qa_pv *fn;	/* the callable */
			struct qa_pv *args;	/* TUPLE, or what the pickle gave */
			struct qa_pv *state;	/* set by BUILD, or NULL */
			struct qa_pv *items;	/* DICT or LIST of what SETITEM(S),
						 * APPEND(S), ADDITEMS added to the
						 * result, or NULL */
		} call;
		struct qa_pv *pid;	/* PERSID */
	} u;
};

#define QA_PVF_TRUNCATED 0x0001	/* str: only a prefix is kept */
#define QA_PVF_PY2STR 0x0002	/* str: STRING/BINSTRING/SHORT_BINSTRING */
#define QA_PVF_UNRESOLVED 0x0004	/* global: STACK_GLOBAL of non-strings */
#define QA_PVF_EXTENSION 0x0008	/* global: EXT1/EXT2/EXT4 */

/* ---- the walk ------------------------------------------------------------- */

struct qa_pkl_walk {
	/* set by the caller */
	struct qa_inventory *inv;	/* findings go here */
	const char *file;		/* display path for findings */
	const char *what;		/* what the pickle is, for messages:
					 * "archive/data.pkl", "the object
					 * pickle"; NULL for none */
	struct qa_arena *arena;		/* values */
	int depth;			/* 0; nested pickles count up */
	bool torch_pickle;		/* torch.load unpickles it: also report
					 * what weights_only refuses (QA1613) */
	bool torchscript;		/* a pickle of a TorchScript archive:
					 * its __torch__.* globals are the
					 * archive's compiled classes, which
					 * torch.jit.load resolves from code/
					 * (QA1629 reports the archive as a
					 * program), not Python imports */
	bool speculative;		/* bytes that may not be a pickle at
					 * all (a string constant, bytes after
					 * STOP): findings are kept only when
					 * the walk reaches STOP cleanly or
					 * finds a security error */

	/* results */
	struct qa_pv *root;		/* the value STOP returned, or NULL */
	uint64_t end;			/* offset after STOP, or where the walk
					 * stopped */
	bool stopped;			/* reached STOP */
	bool malformed;			/* the stream is broken (QA1509) */
	bool limited;			/* a limit stopped the walk (QA1510) */
	bool out_of_memory;		/* an allocation failed */
	int proto;			/* PROTO argument, -1 when absent */
	uint64_t ops;			/* opcodes executed */
	uint32_t security_errors;	/* security findings at error
					 * severity this walk recorded */
};

/*
 * Walks the pickle that starts at off in src and may not extend past end
 * (exclusive), recording findings in w->inv. Fills w's results; w->root
 * is the value at STOP (NULL when the stream broke before). Returns QA_OK,
 * QA_E_IO on a read error or QA_E_NOMEM when an allocation the limits
 * allow failed (a refused arena allocation is QA1510, not an error).
 */
int qa_pickle_walk(struct qa_pkl_walk *w, struct qa_source *src,
		   uint64_t off, uint64_t end);

/*
 * The class of module.name as pickle.load of the given protocol would
 * resolve it (Python 2 names are mapped for protocols below 3, as
 * _compat_pickle does); *why gets a short reason for DANGEROUS and
 * UNLISTED (static text).
 */
enum qa_pkl_class qa_pickle_classify(const char *module, const char *name,
				     int proto, const char **why);

/* True when buf looks like the start of a pickle: a PROTO opcode, or
 * protocol-0/1 opcodes that decode cleanly up to STOP or the end of buf. */
bool qa_pickle_probe(const uint8_t *buf, size_t len);

/* A value as a short printable description for messages ("'os.system'",
 * "a str", "the result of a call at offset 0x1f") into buf. */
const char *qa_pickle_describe(const struct qa_pv *v, char *buf, size_t n);

/*
 * A printable, bounded copy of a name from a file, for messages: bytes
 * outside printable ASCII, the backslash and the quote become \xNN; the
 * copy is cut with "..." once keep bytes are written. dst holds cap
 * bytes (cap >= 9); returns dst.
 */
const char *qa_pickle_esc(char *dst, size_t cap, const char *s, size_t keep);

/* The allowlist ("module.name" strings, sorted), for tests and docs. */
const char *const *qa_pickle_allowlist(size_t *n);
/* True when every table is sorted as the binary searches need (tests). */
bool qa_pickle_tables_sorted(void);

#endif /* QA_FORMATS_PICKLE_H */
