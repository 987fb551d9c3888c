/* SPDX-License-Identifier: MIT */
/*
 * A bounded, non-executing scan of Python source for what remote code
 * (transformers' trust_remote_code modules, formats/hf_tree.c) may do to
 * the machine that loads it: run processes, open network connections,
 * evaluate strings as code, deserialize (pickle, marshal, torch.load
 * without weights_only=True, yaml.load), change files by absolute path.
 *
 * It is a tokenizer, not a parser and not an interpreter: comments and
 * string literals are skipped (an f-string's text is searched for calls
 * of the names below, since its {...} parts are code), `import X as Y`
 * and `from X import Y as Z` are followed so that an alias resolves to
 * the name it stands for, and a dotted name followed by '(' is a call.
 * What it cannot see (a name built from strings at run time and reached
 * through something other than getattr, eval or __import__, which are
 * findings themselves) is why remote code is a finding whatever the scan
 * says (QA1420): a clean scan is not a proof of safety.
 */
#ifndef QA_FORMATS_PYCODE_H
#define QA_FORMATS_PYCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum qa_py_what {
	QA_PY_PROCESS,		/* os.system, subprocess, pty, ctypes */
	QA_PY_NETWORK,		/* socket, urllib, requests, http.client */
	QA_PY_EVAL,		/* eval, exec, compile, __import__ */
	QA_PY_DESERIALIZE,	/* pickle, marshal, torch.load, yaml.load */
	QA_PY_FILES,		/* writes and deletes by absolute path */
};

/* One thing found: what kind, the name as resolved ("os.system",
 * "torch.load"), where (1-based line, byte offset). */
struct qa_py_hit {
	enum qa_py_what what;
	const char *name;	/* valid during the callback only */
	const char *why;	/* a few words: "without weights_only=True" */
	unsigned line;
	size_t offset;
};

typedef void (*qa_py_hit_fn)(void *ctx, const struct qa_py_hit *hit);

/* Words for what: "process execution", "network access"... */
const char *qa_py_what_name(enum qa_py_what what);

/*
 * Scans len bytes of Python source, calling fn for each hit in order of
 * position. Returns the number of hits (fn may stop caring; the scan
 * goes on to the end: it is linear in len and keeps O(1) state).
 */
size_t qa_py_scan(const char *text, size_t len, qa_py_hit_fn fn, void *ctx);

#endif
