/* SPDX-License-Identifier: MIT */
/*
 * The non-executing pickle walker (formats/pickle.h).
 *
 * Opcodes and their semantics follow CPython Lib/pickle.py (the
 * _Unpickler load_* methods) and Lib/pickletools.py (the opcode table
 * with each opcode's protocol), read at CPython 3.11-3.13. Where the C
 * accelerator (_pickle.c) and pickle.py differ, both readings are
 * flagged (FRAME boundaries, QA1606).
 *
 * Nothing is imported or called: a global is a (module, name) pair
 * judged by formats/pickle_policy.c (torch's weights_only allowlist, a
 * denylist for the names known to run code), a call is a node holding
 * its callable and arguments. The opcode table (protocols, names, the
 * weights_only set, the probe) is formats/pickle_ops.c.
 */
#define QA_PICKLE_INTERNAL
#include "formats/pickle_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"
#include "core/hash.h"
#include "core/units.h"
#include "core/escape.h"

/* ---- the bounded reader ----------------------------------------------------- */

#define RD_BUF ((size_t)64 << 10)

struct rd {
	struct qa_source *src;
	uint64_t pos;		/* next byte */
	uint64_t end;		/* exclusive */
	uint64_t boff;		/* file offset of buf[0] */
	size_t blen;		/* valid bytes in buf */
	int err;		/* QA_E_IO once a read failed */
	uint8_t buf[RD_BUF];
};

/* Makes [pos, pos + want) available in buf when it lies before end
 * (want <= RD_BUF). False at the end of the data or on a read error. */
static bool
rd_fill(struct rd *r, size_t want)
{
	uint64_t have_end = r->boff + r->blen, n;

	if (r->pos >= r->boff && r->pos + want <= have_end)
		return true;
	if (want > r->end - r->pos || r->pos >= r->end)
		return false;
	n = r->end - r->pos;
	if (n > RD_BUF)
		n = RD_BUF;
	if (qa_source_read(r->src, r->pos, r->buf, (size_t)n) != QA_OK) {
		r->err = QA_E_IO;
		return false;
	}
	r->boff = r->pos;
	r->blen = (size_t)n;
	return true;
}

static bool
rd_take(struct rd *r, size_t n, const uint8_t **p)
{
	if (!rd_fill(r, n))
		return false;
	*p = r->buf + (r->pos - r->boff);
	r->pos += n;
	return true;
}

static int
rd_u8(struct rd *r)
{
	const uint8_t *p;

	return rd_take(r, 1, &p) ? p[0] : -1;
}

static bool
rd_le(struct rd *r, size_t n, uint64_t *v)
{
	const uint8_t *p;
	size_t i;

	if (!rd_take(r, n, &p))
		return false;
	*v = 0;
	for (i = n; i > 0; i--)
		*v = *v << 8 | p[i - 1];
	return true;
}

/* Copies n bytes (any size) to dst. */
static bool
rd_copy(struct rd *r, uint8_t *dst, uint64_t n)
{
	while (n > 0) {
		size_t k = n > RD_BUF ? RD_BUF : (size_t)n;
		const uint8_t *p;

		if (!rd_take(r, k, &p))
			return false;
		memcpy(dst, p, k);
		dst += k;
		n -= k;
	}
	return true;
}

static bool
rd_skip(struct rd *r, uint64_t n)
{
	if (n > r->end - r->pos)
		return false;
	r->pos += n;
	return true;
}

/* One text-protocol line without its '\n' into dst (cap bytes with the
 * NUL). False at the end of the data, on a read error, or when the line
 * is longer than cap - 1 (*toolong set). */
static bool
rd_line(struct rd *r, char *dst, size_t cap, size_t *len, bool *toolong)
{
	size_t n = 0;
	int c;

	*toolong = false;
	for (;;) {
		c = rd_u8(r);
		if (c < 0)
			return false;
		if (c == '\n')
			break;
		if (n + 1 >= cap) {
			*toolong = true;
			return false;
		}
		dst[n++] = (char)c;
	}
	dst[n] = '\0';
	*len = n;
	return true;
}

/* ---- the machine ------------------------------------------------------------- */

struct memo_slot {
	uint64_t key;
	struct qa_pv *v;	/* NULL: empty slot */
};

/* A finding held until the walk ends: repeated ones become one. */
struct note {
	unsigned code;
	uint64_t off;		/* first occurrence */
	uint64_t count;
	uint64_t hash;
	char msg[320];
};

#define NOTE_MAX 1024u		/* distinct findings kept per pickle */
#define NOTE_SLOTS 2048u
#define MALFORMED_MAX 64u	/* QA1609 occurrences before the walk stops */

struct vm {
	struct qa_pkl_walk *w;
	struct rd *r;
	uint64_t start;		/* file offset of the pickle */

	struct qa_pv **stk;
	size_t sp, scap;
	size_t *marks;
	size_t nm, mcap;
	struct memo_slot *memo;
	size_t memo_n, memo_cap;
	uint64_t values;

	uint64_t frame_end;	/* 0: not in a frame */
	int max_proto_seen;
	bool proto_noted, wo_noted, stop;
	uint32_t n_malformed;

	struct note *notes;
	size_t n_notes;
	uint32_t slots[NOTE_SLOTS];	/* index + 1 into notes, 0 = empty */
	uint64_t dropped;		/* occurrences of notes not kept */

	char line[QA_PKL_MAX_LINE + 1];
	char line2[QA_PKL_MAX_LINE + 1];
};

static bool
is_security_error(unsigned code)
{
	switch (code) {
	case QA1601: case QA1602: case QA1603: case QA1604: case QA1605:
	case QA1606: case QA1610:
		return true;
	default:
		return false;
	}
}

static void note(struct vm *m, unsigned code, uint64_t off, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

static void
note(struct vm *m, unsigned code, uint64_t off, const char *fmt, ...)
{
	char msg[sizeof(((struct note *)0)->msg)];
	uint64_t h;
	uint32_t slot, k;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (is_security_error(code))
		m->w->security_errors++;
	h = qa_hash(msg, strlen(msg)) ^ code;	/* keyed: core/hash.h */
	slot = (uint32_t)(h & (NOTE_SLOTS - 1));
	for (k = 0; k < NOTE_SLOTS; k++, slot = (slot + 1) & (NOTE_SLOTS - 1)) {
		struct note *n;

		if (m->slots[slot] == 0)
			break;
		n = &m->notes[m->slots[slot] - 1];
		if (n->hash == h && n->code == code &&
		    strcmp(n->msg, msg) == 0) {
			n->count++;
			return;
		}
	}
	if (m->n_notes >= NOTE_MAX || k == NOTE_SLOTS) {
		m->dropped++;
		return;
	}
	m->notes[m->n_notes].code = code;
	m->notes[m->n_notes].off = off;
	m->notes[m->n_notes].count = 1;
	m->notes[m->n_notes].hash = h;
	memcpy(m->notes[m->n_notes].msg, msg, sizeof(msg));
	m->slots[slot] = (uint32_t)++m->n_notes;
}

/* Writes the held findings to the inventory (or drops them: a
 * speculative walk that found neither a clean pickle nor a payload). */
static void
flush_notes(struct vm *m)
{
	struct qa_pkl_walk *w = m->w;
	size_t i;

	if (w->speculative && !(w->stopped && !w->malformed) &&
	    w->security_errors == 0)
		return;
	for (i = 0; i < m->n_notes; i++) {
		const struct note *n = &m->notes[i];
		char times[64] = "";

		if (n->count > 1)
			snprintf(times, sizeof(times), " (%llu times)",
				 (unsigned long long)n->count);
		qa_inv_finding(w->inv, n->code, w->file, (int64_t)n->off, NULL,
			       "%s%s%s%s", n->msg, w->what ? " in " : "",
			       w->what ? w->what : "", times);
	}
	if (m->dropped)
		qa_inv_finding(w->inv, QA1610, w->file, (int64_t)m->start, NULL,
			       "%llu more findings in %s are not listed (more "
			       "than %u distinct ones)",
			       (unsigned long long)m->dropped,
			       w->what ? w->what : "the pickle", NOTE_MAX);
}

const char *
qa_pickle_esc(char *dst, size_t cap, const char *s, size_t keep)
{
	size_t o = 0;

	for (; *s && o + 8 < cap; s++) {
		unsigned char c = (unsigned char)*s;

		if (o >= keep) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
			dst[o++] = (char)c;
		} else {
			snprintf(dst + o, cap - o, "\\x%02x", c);
			o += 4;
		}
	}
	dst[o] = '\0';
	return dst;
}

/* A name in this walker's messages: cut at 96 bytes. */
static const char *
esc(char *dst, size_t cap, const char *s)
{
	return qa_pickle_esc(dst, cap, s, 96);
}

static void
limit(struct vm *m, uint64_t off, const char *what)
{
	if (!m->w->limited)
		note(m, QA1610, off, "the walk stopped at offset %llu: %s",
		     (unsigned long long)off, what);
	m->w->limited = true;
	m->stop = true;
}

static void
malformed(struct vm *m, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
malformed(struct vm *m, uint64_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	m->w->malformed = true;
	note(m, QA1609, off, "%s", msg);
	if (++m->n_malformed >= MALFORMED_MAX)
		m->stop = true;
}

static void
oom(struct vm *m)
{
	m->w->out_of_memory = true;
	m->stop = true;
}

static struct qa_pv *
pv_new(struct vm *m, uint8_t kind, uint8_t op, uint64_t off)
{
	struct qa_pv *v;

	if (m->values >= QA_PKL_MAX_VALUES) {
		limit(m, off, "more than 8 Mi values");
		return NULL;
	}
	v = qa_arena_alloc(m->w->arena, sizeof(*v));
	if (!v) {
		if (m->w->arena->hit_limit)
			limit(m, off, "the walker's memory bound");
		else
			oom(m);
		return NULL;
	}
	m->values++;
	v->kind = kind;
	v->op = op;
	v->off = off;
	return v;
}

static bool
seq_push(struct vm *m, struct qa_pv *s, struct qa_pv *item)
{
	if (s->n == s->u.seq.cap) {
		uint32_t ncap;
		void *nv;

		if (s->u.seq.cap >= UINT32_MAX / 2) {
			limit(m, s->off, "a container with 2^31 items");
			return false;
		}
		ncap = s->u.seq.cap ? s->u.seq.cap * 2 : 4;
		nv = qa_arena_grow(m->w->arena, s->u.seq.v, s->n, ncap,
				   sizeof(*s->u.seq.v));
		if (!nv) {
			if (m->w->arena->hit_limit)
				limit(m, s->off, "the walker's memory bound");
			else
				oom(m);
			return false;
		}
		s->u.seq.v = nv;
		s->u.seq.cap = ncap;
	}
	s->u.seq.v[s->n++] = item;
	return true;
}

/* A sequence holding items[0..n). */
static struct qa_pv *
pv_seq(struct vm *m, uint8_t kind, uint8_t op, uint64_t off,
       struct qa_pv *const *items, size_t n)
{
	struct qa_pv *v = pv_new(m, kind, op, off);

	if (!v)
		return NULL;
	if (n > UINT32_MAX / 2) {
		limit(m, off, "a container with 2^31 items");
		return NULL;
	}
	if (n) {
		v->u.seq.v = qa_arena_array(m->w->arena, n, sizeof(*items));
		if (!v->u.seq.v) {
			if (m->w->arena->hit_limit)
				limit(m, off, "the walker's memory bound");
			else
				oom(m);
			return NULL;
		}
		memcpy(v->u.seq.v, items, n * sizeof(*items));
	}
	v->n = (uint32_t)n;
	v->u.seq.cap = (uint32_t)n;
	return v;
}

/* ---- the stack ----------------------------------------------------------------- */

static size_t
base(const struct vm *m)
{
	return m->nm ? m->marks[m->nm - 1] : 0;
}

static bool
push(struct vm *m, struct qa_pv *v)
{
	if (!v)
		return false;
	if (m->sp == m->scap) {
		size_t ncap = m->scap ? m->scap * 2 : 1024;
		struct qa_pv **ns;

		if (m->scap >= QA_PKL_MAX_STACK) {
			limit(m, v->off, "more than 4 Mi values on the stack");
			return false;
		}
		if (ncap > QA_PKL_MAX_STACK)
			ncap = QA_PKL_MAX_STACK;
		ns = realloc(m->stk, ncap * sizeof(*ns));
		if (!ns) {
			oom(m);
			return false;
		}
		m->stk = ns;
		m->scap = ncap;
	}
	m->stk[m->sp++] = v;
	return true;
}

/* A stand-in for what a broken stream would have put there. */
static struct qa_pv *
unknown(struct vm *m, uint8_t op, uint64_t off)
{
	return pv_new(m, QA_PV_UNKNOWN, op, off);
}

static struct qa_pv *
pop(struct vm *m, uint8_t op, uint64_t off)
{
	if (m->sp > base(m))
		return m->stk[--m->sp];
	malformed(m, off, "%s at offset %llu pops from an empty stack",
		  qa_pkl_op_name(op), (unsigned long long)off);
	return unknown(m, op, off);
}

static struct qa_pv *
top(struct vm *m, uint8_t op, uint64_t off)
{
	struct qa_pv *u;

	if (m->sp > base(m))
		return m->stk[m->sp - 1];
	malformed(m, off, "%s at offset %llu needs a value on an empty stack",
		  qa_pkl_op_name(op), (unsigned long long)off);
	u = unknown(m, op, off);
	return push(m, u) ? u : NULL;
}

/* The items from index first up: NULL when the stack was never grown
 * (a MARK-less TUPLE or INST as the first opcode), since pointer
 * arithmetic on a null stack is undefined even for an offset of 0. */
static struct qa_pv *const *
items_from(const struct vm *m, size_t first)
{
	return m->stk ? m->stk + first : NULL;
}

/* Removes the top mark: the items above it are stk[*first .. sp). */
static void
pop_mark(struct vm *m, uint8_t op, uint64_t off, size_t *first)
{
	if (m->nm == 0) {
		malformed(m, off, "%s at offset %llu without a MARK",
			  qa_pkl_op_name(op), (unsigned long long)off);
		*first = 0;
		return;
	}
	*first = m->marks[--m->nm];
}

/* ---- the memo -------------------------------------------------------------- */

/* Keyed (core/hash.h): memo indices are the pickle's to choose. */
static uint64_t
memo_hash(uint64_t k)
{
	return qa_hash(&k, sizeof(k));
}

static bool
memo_put(struct vm *m, uint64_t key, struct qa_pv *v, uint64_t off)
{
	size_t i;

	if (m->memo_n * 2 >= m->memo_cap) {
		size_t ncap = m->memo_cap ? m->memo_cap * 2 : 1024, j;
		struct memo_slot *nm;

		if (m->memo_n >= QA_PKL_MAX_MEMO) {
			limit(m, off, "more than 8 Mi memo entries");
			return false;
		}
		nm = calloc(ncap, sizeof(*nm));
		if (!nm) {
			oom(m);
			return false;
		}
		for (j = 0; j < m->memo_cap; j++) {
			size_t k;

			if (!m->memo[j].v)
				continue;
			k = memo_hash(m->memo[j].key) & (ncap - 1);
			while (nm[k].v)
				k = (k + 1) & (ncap - 1);
			nm[k] = m->memo[j];
		}
		free(m->memo);
		m->memo = nm;
		m->memo_cap = ncap;
	}
	i = memo_hash(key) & (m->memo_cap - 1);
	while (m->memo[i].v && m->memo[i].key != key)
		i = (i + 1) & (m->memo_cap - 1);
	if (!m->memo[i].v)
		m->memo_n++;
	m->memo[i].key = key;
	m->memo[i].v = v;
	return true;
}

static struct qa_pv *
memo_get(struct vm *m, uint64_t key)
{
	size_t i;

	if (!m->memo_cap)
		return NULL;
	i = memo_hash(key) & (m->memo_cap - 1);
	while (m->memo[i].v) {
		if (m->memo[i].key == key)
			return m->memo[i].v;
		i = (i + 1) & (m->memo_cap - 1);
	}
	return NULL;
}

/* ---- judging ------------------------------------------------------------------ */

static const char *
kind_word(uint8_t kind)
{
	switch (kind) {
	case QA_PV_NONE: return "None";
	case QA_PV_BOOL: return "a bool";
	case QA_PV_INT: case QA_PV_BIGINT: return "an int";
	case QA_PV_FLOAT: return "a float";
	case QA_PV_STR: return "a str";
	case QA_PV_BYTES: return "bytes";
	case QA_PV_TUPLE: return "a tuple";
	case QA_PV_LIST: return "a list";
	case QA_PV_DICT: return "a dict";
	case QA_PV_SET: return "a set";
	case QA_PV_FROZENSET: return "a frozenset";
	case QA_PV_GLOBAL: return "a global";
	case QA_PV_CALL: return "the result of a call";
	case QA_PV_PERSID: return "a persistent object";
	case QA_PV_BUFFER: return "an out-of-band buffer";
	default: return "a value the walker cannot name";
	}
}

const char *
qa_pickle_describe(const struct qa_pv *v, char *buf, size_t n)
{
	char a[128], b[128];

	if (!v) {
		snprintf(buf, n, "nothing");
	} else if (v->kind == QA_PV_GLOBAL && (v->flags & QA_PVF_UNRESOLVED)) {
		snprintf(buf, n, "a global built at run time (offset %llu)",
			 (unsigned long long)v->off);
	} else if (v->kind == QA_PV_GLOBAL && (v->flags & QA_PVF_EXTENSION)) {
		snprintf(buf, n, "an extension-registry global (offset %llu)",
			 (unsigned long long)v->off);
	} else if (v->kind == QA_PV_GLOBAL) {
		snprintf(buf, n, "'%s.%s'", esc(a, sizeof(a), v->u.g.module),
			 esc(b, sizeof(b), v->u.g.name));
	} else if (v->kind == QA_PV_CALL) {
		char f[200];

		qa_pickle_describe(v->u.call.fn, f, sizeof(f));
		snprintf(buf, n, "the result of calling %s (offset %llu)", f,
			 (unsigned long long)v->off);
	} else if (v->kind == QA_PV_STR) {
		snprintf(buf, n, "the str '%s'", esc(a, sizeof(a), v->u.str.s));
	} else {
		snprintf(buf, n, "%s (offset %llu)", kind_word(v->kind),
			 (unsigned long long)v->off);
	}
	return buf;
}

static void
wo_refuses(struct vm *m, uint64_t off, const char *what)
{
	if (!m->w->torch_pickle || m->wo_noted)
		return;
	m->wo_noted = true;
	note(m, QA1613, off, "%s at offset %llu", what,
	     (unsigned long long)off);
}

/* A module name torch.jit.load's unpickler resolves itself: the
 * archive's TorchScript classes (__torch__...) and the helpers of
 * torch/jit/_pickle.py that its C++ unpickler special-cases. */
static bool
torchscript_type(const char *module)
{
	return strcmp(module, "__torch__") == 0 ||
	       strncmp(module, "__torch__.", 10) == 0 ||
	       strcmp(module, "torch.jit._pickle") == 0;
}

/* Judges a global as the opcode op imports it. */
static void
judge_global(struct vm *m, struct qa_pv *g, uint8_t op)
{
	const char *why;
	char a[128], b[128], t[320];
	int cls;

	if (g->flags & (QA_PVF_UNRESOLVED | QA_PVF_EXTENSION)) {
		g->u.g.cls = QA_PKL_DANGEROUS;
		return;
	}
	if (m->w->torchscript && torchscript_type(g->u.g.module)) {
		/* resolved by torch.jit's type resolver from the archive's
		 * code/, never imported: the archive itself is the finding */
		g->u.g.cls = QA_PKL_SAFE;
		return;
	}
	cls = qa_pickle_classify(g->u.g.module, g->u.g.name,
				 m->w->proto, &why);
	g->u.g.cls = (uint8_t)cls;
	esc(a, sizeof(a), g->u.g.module);
	esc(b, sizeof(b), g->u.g.name);
	switch (cls) {
	case QA_PKL_ALLOWED:
		if (op != OP_GLOBAL) {
			snprintf(t, sizeof(t), "%s", qa_pkl_op_name(op));
			wo_refuses(m, g->off, t);
		}
		break;
	case QA_PKL_SAFE:
		snprintf(t, sizeof(t), "the global '%s.%s' (not code "
			 "execution)", a, b);
		wo_refuses(m, g->off, t);
		break;
	case QA_PKL_DANGEROUS:
		note(m, QA1601, g->off, "%s '%s.%s': %s", qa_pkl_op_name(op),
		     a, b, why);
		break;
	default:
		note(m, QA1602, g->off, "%s '%s.%s': %s", qa_pkl_op_name(op),
		     a, b, why);
		break;
	}
}

static bool
global_ok(const struct qa_pv *fn)
{
	return fn && fn->kind == QA_PV_GLOBAL &&
	       (fn->u.g.cls == QA_PKL_ALLOWED || fn->u.g.cls == QA_PKL_SAFE);
}

/* A call of fn by op (REDUCE, NEWOBJ, NEWOBJ_EX, OBJ, INST). */
static void
judge_call(struct vm *m, uint8_t op, const struct qa_pv *fn, uint64_t off)
{
	char d[256];

	if (global_ok(fn)) {
		if (op != OP_REDUCE && op != OP_NEWOBJ)
			wo_refuses(m, off, qa_pkl_op_name(op));
		return;
	}
	qa_pickle_describe(fn, d, sizeof(d));
	if (fn && fn->kind == QA_PV_GLOBAL)
		note(m, QA1603, off, "%s calls %s", qa_pkl_op_name(op), d);
	else
		note(m, QA1603, off, "%s calls %s, which is not an allowlisted "
		     "global", qa_pkl_op_name(op), d);
}

/* A str key that names a dunder attribute. */
static bool
dunder_key(const struct qa_pv *k)
{
	return k && k->kind == QA_PV_STR &&
	       is_dunder(k->u.str.s, strlen(k->u.str.s));
}

/* The first dunder key of a dict value, or NULL. */
static const struct qa_pv *
dunder_in(const struct qa_pv *d)
{
	uint32_t i;

	if (!d || d->kind != QA_PV_DICT)
		return NULL;
	for (i = 0; i + 1 < d->n; i += 2)
		if (dunder_key(d->u.seq.v[i]))
			return d->u.seq.v[i];
	return NULL;
}

static void
judge_build(struct vm *m, struct qa_pv *inst, struct qa_pv *state,
	    uint64_t off)
{
	const struct qa_pv *dk = NULL;
	char d[256], k[128];

	if (state && state->kind == QA_PV_DICT)
		dk = dunder_in(state);
	else if (state && state->kind == QA_PV_TUPLE && state->n == 2) {
		dk = dunder_in(state->u.seq.v[0]);
		if (!dk)
			dk = dunder_in(state->u.seq.v[1]);
	}
	switch (inst ? inst->kind : QA_PV_UNKNOWN) {
	case QA_PV_CALL:
		inst->u.call.state = state;
		if (!global_ok(inst->u.call.fn)) {
			qa_pickle_describe(inst->u.call.fn, d, sizeof(d));
			note(m, QA1603, off, "BUILD runs __setstate__ of an "
			     "object made by %s", d);
		} else if (dk) {
			qa_pickle_describe(inst->u.call.fn, d, sizeof(d));
			note(m, QA1603, off, "BUILD sets the attribute '%s' on "
			     "an object made by %s",
			     esc(k, sizeof(k), dk->u.str.s), d);
		}
		break;
	case QA_PV_GLOBAL:
		qa_pickle_describe(inst, d, sizeof(d));
		note(m, QA1603, off, "BUILD sets attributes on %s itself (a "
		     "module, class or function)", d);
		break;
	case QA_PV_PERSID:
		if (dk)
			note(m, QA1603, off, "BUILD sets the attribute '%s' on a "
			     "persistent object", esc(k, sizeof(k),
						      dk->u.str.s));
		break;
	case QA_PV_UNKNOWN:
		note(m, QA1603, off, "BUILD on a value the walker cannot name");
		break;
	default:
		wo_refuses(m, off, "BUILD on a plain container");
		break;
	}
}

/* The container the items of APPEND(S), SETITEM(S), ADDITEMS go into;
 * NULL when they go nowhere the inventory reads. */
static struct qa_pv *
item_target(struct vm *m, uint8_t op, struct qa_pv *t, uint64_t off)
{
	uint8_t want = (op == OP_SETITEM || op == OP_SETITEMS) ? QA_PV_DICT :
		       op == OP_ADDITEMS ? QA_PV_SET : QA_PV_LIST;
	const char *method = want == QA_PV_DICT ? "__setitem__" :
			     want == QA_PV_SET ? "add" : "append/extend";
	char d[256];

	if (!t)
		return NULL;
	if (t->kind == want)
		return t;
	if (t->kind == QA_PV_CALL) {
		if (!global_ok(t->u.call.fn)) {
			qa_pickle_describe(t->u.call.fn, d, sizeof(d));
			note(m, QA1603, off, "%s calls the %s method of an "
			     "object made by %s", qa_pkl_op_name(op), method,
			     d);
		}
		if (!t->u.call.items) {
			t->u.call.items = pv_new(m, want, op, off);
			if (!t->u.call.items)
				return NULL;
		}
		return t->u.call.items->kind == want ? t->u.call.items : NULL;
	}
	if (t->kind == QA_PV_GLOBAL) {
		qa_pickle_describe(t, d, sizeof(d));
		note(m, QA1603, off, "%s calls %s of %s itself (changes a "
		     "module or class)", qa_pkl_op_name(op), method, d);
		return NULL;
	}
	if (t->kind == QA_PV_UNKNOWN || t->kind == QA_PV_PERSID) {
		note(m, QA1603, off, "%s calls %s on %s", qa_pkl_op_name(op),
		     method, kind_word(t->kind));
		return NULL;
	}
	if (t->kind == QA_PV_LIST && want == QA_PV_DICT)
		wo_refuses(m, off, "SETITEM on a list");
	else
		malformed(m, off, "%s at offset %llu on %s", qa_pkl_op_name(op),
			  (unsigned long long)off, kind_word(t->kind));
	return NULL;
}

/* ---- strings ------------------------------------------------------------------ */

static bool valid_utf8(const uint8_t *p, size_t n);
static void scan_nested(struct vm *m, struct qa_pv *s);

/*
 * Reads a length-prefixed string payload of len bytes at the reader into
 * a new value: the first QA_PKL_KEEP_STRING bytes kept, the rest skipped.
 */
static struct qa_pv *
read_str(struct vm *m, uint8_t kind, uint8_t op, uint64_t off, uint64_t len)
{
	struct qa_pv *v;
	uint64_t keep = len < QA_PKL_KEEP_STRING ? len : QA_PKL_KEEP_STRING;
	uint64_t src = m->r->pos;
	char *s;

	if (len > m->r->end - m->r->pos) {
		malformed(m, off, "%s at offset %llu is %llu bytes long, more "
			  "than the %llu left", qa_pkl_op_name(op),
			  (unsigned long long)off, (unsigned long long)len,
			  (unsigned long long)(m->r->end - m->r->pos));
		m->stop = true;
		return NULL;
	}
	v = pv_new(m, kind, op, off);
	if (!v)
		return NULL;
	s = qa_arena_alloc(m->w->arena, (size_t)keep + 1);
	if (!s) {
		if (m->w->arena->hit_limit)
			limit(m, off, "the walker's memory bound");
		else
			oom(m);
		return NULL;
	}
	if (!rd_copy(m->r, (uint8_t *)s, keep) || !rd_skip(m->r, len - keep)) {
		m->stop = true;
		return NULL;
	}
	s[keep] = '\0';
	v->u.str.s = s;
	v->u.str.len = len;
	v->u.str.src = src;
	v->n = (uint32_t)keep;
	if (keep < len)
		v->flags |= QA_PVF_TRUNCATED;
	if (kind == QA_PV_STR && op != OP_SHORT_BINSTRING &&
	    op != OP_BINSTRING && !valid_utf8((const uint8_t *)s, keep))
		malformed(m, off, "%s at offset %llu is not valid UTF-8",
			  qa_pkl_op_name(op), (unsigned long long)off);
	if (op == OP_SHORT_BINSTRING || op == OP_BINSTRING)
		v->flags |= QA_PVF_PY2STR;
	scan_nested(m, v);
	return v;
}

/* A decoded (text-protocol) string of n bytes. */
static struct qa_pv *
text_str(struct vm *m, uint8_t kind, uint8_t op, uint64_t off,
	 const char *p, size_t n)
{
	struct qa_pv *v = pv_new(m, kind, op, off);
	char *s;

	if (!v)
		return NULL;
	s = qa_arena_strndup(m->w->arena, p, n);
	if (!s) {
		if (m->w->arena->hit_limit)
			limit(m, off, "the walker's memory bound");
		else
			oom(m);
		return NULL;
	}
	v->u.str.s = s;
	v->u.str.len = n;
	v->u.str.src = UINT64_MAX;
	v->n = (uint32_t)n;
	scan_nested(m, v);
	return v;
}

static bool
valid_utf8(const uint8_t *p, size_t n)
{
	size_t i = 0;

	/* surrogates pass: torch's loader decodes with "surrogatepass" */
	while (i < n) {
		uint8_t c = p[i];
		size_t len, k;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			len = 2;
		else if (c >= 0xE0 && c <= 0xEF)
			len = 3;
		else if (c >= 0xF0 && c <= 0xF4)
			len = 4;
		else
			return false;
		if (n - i < len)
			return false;
		for (k = 1; k < len; k++)
			if ((p[i + k] & 0xC0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

/* raw-unicode-escape (UNICODE): \uXXXX and \UXXXXXXXX are escapes, every
 * other byte is a Latin-1 code point. In place; returns the new length
 * (UTF-8 never grows past 2 bytes per Latin-1 byte and 4 per escape of 6
 * or 10 bytes, so dst of 2 * n bytes suffices). */
static size_t
raw_unicode_unescape(char *dst, const char *s, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\' && i + 1 < n && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
			size_t digits = s[i + 1] == 'u' ? 4 : 8, k;
			uint32_t cp = 0;
			bool ok = i + 2 + digits <= n;

			for (k = 0; ok && k < digits; k++) {
				int h = qa_hex_digit(s[i + 2 + k]);

				if (h < 0)
					ok = false;
				else
					cp = cp << 4 | (uint32_t)h;
			}
			if (ok && cp <= 0x10FFFF) {
				o += qa_utf8_encode(dst + o, cp);
				i += 2 + digits;
				continue;
			}
		}
		o += qa_utf8_encode(dst + o, c);
		i++;
	}
	return o;
}

/* Python string-literal escapes of STRING ('...' or "..."), in place. */
static size_t
string_unescape(char *s, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n) {
		char c = s[i++];

		if (c != '\\' || i >= n) {
			s[o++] = c;
			continue;
		}
		c = s[i++];
		switch (c) {
		case 'n': s[o++] = '\n'; break;
		case 't': s[o++] = '\t'; break;
		case 'r': s[o++] = '\r'; break;
		case '0': case '1': case '2': case '3':
		case '4': case '5': case '6': case '7': {
			unsigned v = (unsigned)(c - '0'), k;

			for (k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7';
			     k++)
				v = v * 8 + (unsigned)(s[i++] - '0');
			s[o++] = (char)v;
			break;
		}
		case 'x':
			if (i + 1 < n && qa_hex_digit(s[i]) >= 0 && qa_hex_digit(s[i + 1]) >= 0) {
				s[o++] = (char)(qa_hex_digit(s[i]) * 16 + qa_hex_digit(s[i + 1]));
				i += 2;
			} else {
				s[o++] = '\\';
				s[o++] = 'x';
			}
			break;
		case '\\': case '\'': case '"':
			s[o++] = c;
			break;
		case '\n':
			break;
		default:
			s[o++] = '\\';
			s[o++] = c;
			break;
		}
	}
	return o;
}

/* A decimal integer line (INT, LONG, GET, PUT): false when it is not. */
static bool
parse_dec(const char *s, size_t n, bool *neg, uint64_t *mag, bool *big)
{
	size_t i = 0;

	*neg = false;
	*mag = 0;
	*big = false;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
			 s[n - 1] == '\r'))
		n--;
	if (n > i && s[n - 1] == 'L')
		n--;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		*neg = s[i++] == '-';
	if (i >= n)
		return false;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (*mag > (UINT64_MAX - 9) / 10)
			*big = true;
		else
			*mag = *mag * 10 + (uint64_t)(s[i] - '0');
	}
	return true;
}

static struct qa_pv *
int_value(struct vm *m, uint8_t op, uint64_t off, bool neg, uint64_t mag,
	  bool big, const char *text, size_t n)
{
	struct qa_pv *v;

	if (big || mag > (uint64_t)INT64_MAX + (neg ? 1 : 0)) {
		v = text_str(m, QA_PV_BIGINT, op, off, text, n);
		return v;
	}
	v = pv_new(m, QA_PV_INT, op, off);
	if (v)
		v->u.i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return v;
}

/* ---- nested pickles ---------------------------------------------------------- */

/*
 * A string constant that is itself a pickle (PROTO first, STOP last) is
 * walked as one, speculatively (its findings are kept when it turns out
 * to be a real pickle or to hold a payload).
 */
static void
scan_nested(struct vm *m, struct qa_pv *s)
{
	const uint8_t *p = (const uint8_t *)s->u.str.s;
	struct qa_pkl_walk nw;
	struct qa_source mem;
	uint8_t last = 0;
	char what[192];
	int rc;

	if (s->u.str.len < 4 || s->n < 2 || p[0] != OP_PROTO || p[1] > 5 ||
	    m->w->depth + 1 >= QA_PKL_MAX_NESTED)
		return;
	if (!(s->flags & QA_PVF_TRUNCATED))
		last = p[s->u.str.len - 1];
	else if (s->u.str.src != UINT64_MAX &&
		 qa_source_read(m->r->src, s->u.str.src + s->u.str.len - 1,
				&last, 1) != QA_OK)
		return;
	if (last != OP_STOP)
		return;
	memset(&nw, 0, sizeof(nw));
	nw.inv = m->w->inv;
	nw.file = m->w->file;
	snprintf(what, sizeof(what), "a pickle nested in a string at offset "
		 "%llu%s%s", (unsigned long long)s->off,
		 m->w->what ? " of " : "", m->w->what ? m->w->what : "");
	nw.what = what;
	nw.arena = m->w->arena;
	nw.depth = m->w->depth + 1;
	nw.speculative = true;
	if (s->u.str.src != UINT64_MAX)
		rc = qa_pickle_walk(&nw, m->r->src, s->u.str.src,
				    s->u.str.src + s->u.str.len);
	else if (!(s->flags & QA_PVF_TRUNCATED)) {
		qa_source_open_memory(&mem, m->w->file, s->u.str.s,
				      (size_t)s->u.str.len);
		rc = qa_pickle_walk(&nw, &mem, 0, s->u.str.len);
	} else {
		return;
	}
	if (rc == QA_E_NOMEM || nw.out_of_memory)
		oom(m);
	m->w->security_errors += nw.security_errors;
	if ((nw.stopped && !nw.malformed) || nw.security_errors)
		note(m, QA1611, s->off, "a %s constant at offset %llu is a "
		     "pickle (%llu bytes), scanned%s",
		     s->kind == QA_PV_BYTES ? "bytes" : "str",
		     (unsigned long long)s->off,
		     (unsigned long long)s->u.str.len,
		     nw.security_errors ? ": it holds findings of its own" :
		     "");
}

/* ---- the loop ------------------------------------------------------------------ */

static struct qa_pv *
make_global(struct vm *m, uint8_t op, uint64_t off, const char *module,
	    size_t mlen, const char *name, size_t nlen)
{
	struct qa_pv *g = pv_new(m, QA_PV_GLOBAL, op, off);

	if (!g)
		return NULL;
	g->u.g.module = qa_arena_strndup(m->w->arena, module, mlen);
	g->u.g.name = qa_arena_strndup(m->w->arena, name, nlen);
	if (!g->u.g.module || !g->u.g.name) {
		if (m->w->arena->hit_limit)
			limit(m, off, "the walker's memory bound");
		else
			oom(m);
		return NULL;
	}
	if (memchr(module, '\0', mlen) || memchr(name, '\0', nlen)) {
		/* a NUL hides the rest of the name from C readers */
		g->u.g.module = "\\x00";
	}
	return g;
}

/* GLOBAL and INST: "module\nname\n". */
static struct qa_pv *
read_global(struct vm *m, uint8_t op, uint64_t off)
{
	size_t ml, nl;
	bool tl;

	if (!rd_line(m->r, m->line, sizeof(m->line), &ml, &tl) ||
	    !rd_line(m->r, m->line2, sizeof(m->line2), &nl, &tl)) {
		if (tl)
			limit(m, off, "a text line longer than 64 KiB");
		else
			malformed(m, off, "%s at offset %llu is cut short",
				  qa_pkl_op_name(op), (unsigned long long)off);
		m->stop = true;
		return NULL;
	}
	if (!valid_utf8((const uint8_t *)m->line, ml) ||
	    !valid_utf8((const uint8_t *)m->line2, nl))
		malformed(m, off, "%s at offset %llu names a module or "
			  "attribute that is not UTF-8", qa_pkl_op_name(op),
			  (unsigned long long)off);
	return make_global(m, op, off, m->line, ml, m->line2, nl);
}

static bool
text_line(struct vm *m, uint8_t op, uint64_t off, size_t *n)
{
	bool tl;

	if (rd_line(m->r, m->line, sizeof(m->line), n, &tl))
		return true;
	if (tl)
		limit(m, off, "a text line longer than 64 KiB");
	else
		malformed(m, off, "%s at offset %llu is cut short",
			  qa_pkl_op_name(op), (unsigned long long)off);
	m->stop = true;
	return false;
}

static void
call_node(struct vm *m, uint8_t op, uint64_t off, struct qa_pv *fn,
	  struct qa_pv *args)
{
	struct qa_pv *c = pv_new(m, QA_PV_CALL, op, off);

	judge_call(m, op, fn, off);
	if (!c)
		return;
	c->u.call.fn = fn;
	c->u.call.args = args;
	push(m, c);
}

/* Executes one opcode at off. */
static void
step(struct vm *m, uint8_t op, uint64_t off)
{
	struct rd *r = m->r;
	struct qa_pv *v, *a, *b;
	uint64_t u = 0;
	size_t n, first, i;
	bool neg, big;

	switch (op) {
	case OP_MARK:
		if (m->nm == m->mcap) {
			size_t ncap = m->mcap ? m->mcap * 2 : 64;
			size_t *nm;

			if (m->mcap >= QA_PKL_MAX_MARKS) {
				limit(m, off, "more than 4096 open MARKs");
				return;
			}
			nm = realloc(m->marks, ncap * sizeof(*nm));
			if (!nm) {
				oom(m);
				return;
			}
			m->marks = nm;
			m->mcap = ncap;
		}
		m->marks[m->nm++] = m->sp;
		return;
	case OP_STOP:
		m->w->stopped = true;
		if (m->sp > base(m))
			m->w->root = m->stk[--m->sp];
		else
			malformed(m, off, "STOP at offset %llu with an empty "
				  "stack", (unsigned long long)off);
		m->stop = true;
		return;
	case OP_POP:
		if (m->sp > base(m))
			m->sp--;
		else if (m->nm)
			m->nm--;	/* pickle.py pops the mark itself */
		else
			malformed(m, off, "POP at offset %llu on an empty stack",
				  (unsigned long long)off);
		return;
	case OP_POP_MARK:
		pop_mark(m, op, off, &first);
		m->sp = first;
		return;
	case OP_DUP:
		v = top(m, op, off);
		if (v)
			push(m, v);
		return;
	case OP_FLOAT:
		if (!text_line(m, op, off, &n))
			return;
		v = pv_new(m, QA_PV_FLOAT, op, off);
		if (v)
			v->u.f = strtod(m->line, NULL);
		push(m, v);
		return;
	case OP_INT:
	case OP_LONG:
		if (!text_line(m, op, off, &n))
			return;
		if (op == OP_INT && (strcmp(m->line, "00") == 0 ||
				     strcmp(m->line, "01") == 0)) {
			v = pv_new(m, QA_PV_BOOL, op, off);
			if (v)
				v->u.i = m->line[1] == '1';
			push(m, v);
			return;
		}
		if (!parse_dec(m->line, n, &neg, &u, &big)) {
			malformed(m, off, "%s at offset %llu is not a number",
				  qa_pkl_op_name(op), (unsigned long long)off);
			push(m, unknown(m, op, off));
			return;
		}
		push(m, int_value(m, op, off, neg, u, big, m->line, n));
		return;
	case OP_BININT:
	case OP_BININT1:
	case OP_BININT2: {
		size_t k = op == OP_BININT ? 4 : op == OP_BININT1 ? 1 : 2;

		if (!rd_le(r, k, &u))
			break;
		v = pv_new(m, QA_PV_INT, op, off);
		if (v)
			v->u.i = op == OP_BININT ? (int64_t)(int32_t)(uint32_t)u :
				 (int64_t)u;
		push(m, v);
		return;
	}
	case OP_LONG1:
	case OP_LONG4: {
		uint64_t len;
		const uint8_t *p;

		if (!rd_le(r, op == OP_LONG1 ? 1 : 4, &len))
			break;
		if (op == OP_LONG4 && (len & 0x80000000u)) {
			malformed(m, off, "LONG4 at offset %llu has a negative "
				  "length", (unsigned long long)off);
			m->stop = true;
			return;
		}
		if (len <= 8) {
			int64_t x = 0;

			if (len && !rd_take(r, (size_t)len, &p))
				break;
			for (i = len; i > 0; i--)
				x = (int64_t)((uint64_t)x << 8 | p[i - 1]);
			if (len && len < 8 && (p[len - 1] & 0x80))
				x -= (int64_t)1 << (8 * len - 1) << 1;
			v = pv_new(m, QA_PV_INT, op, off);
			if (v)
				v->u.i = x;
			push(m, v);
			return;
		}
		push(m, read_str(m, QA_PV_BIGINT, op, off, len));
		return;
	}
	case OP_BINFLOAT: {
		const uint8_t *p;
		uint64_t bits = 0;

		if (!rd_take(r, 8, &p))
			break;
		for (i = 0; i < 8; i++)
			bits = bits << 8 | p[i];	/* big-endian */
		v = pv_new(m, QA_PV_FLOAT, op, off);
		if (v)
			memcpy(&v->u.f, &bits, sizeof(bits));
		push(m, v);
		return;
	}
	case OP_NONE:
	case OP_NEWTRUE:
	case OP_NEWFALSE:
		v = pv_new(m, op == OP_NONE ? QA_PV_NONE : QA_PV_BOOL, op, off);
		if (v)
			v->u.i = op == OP_NEWTRUE;
		push(m, v);
		return;
	case OP_STRING: {
		char q;

		if (!text_line(m, op, off, &n))
			return;
		q = n ? m->line[0] : 0;
		if (n < 2 || (q != '\'' && q != '"') || m->line[n - 1] != q) {
			malformed(m, off, "STRING at offset %llu is not quoted",
				  (unsigned long long)off);
			push(m, unknown(m, op, off));
			return;
		}
		n = string_unescape(m->line + 1, n - 2);
		v = text_str(m, QA_PV_STR, op, off, m->line + 1, n);
		if (v)
			v->flags |= QA_PVF_PY2STR;
		push(m, v);
		return;
	}
	case OP_UNICODE: {
		char *dec;

		if (!text_line(m, op, off, &n))
			return;
		dec = malloc(2 * n + 1);
		if (!dec) {
			oom(m);
			return;
		}
		n = raw_unicode_unescape(dec, m->line, n);
		push(m, text_str(m, QA_PV_STR, op, off, dec, n));
		free(dec);
		return;
	}
	case OP_BINSTRING:
	case OP_BINUNICODE:
	case OP_BINBYTES:
		if (!rd_le(r, 4, &u))
			break;
		if (op == OP_BINSTRING && (u & 0x80000000u)) {
			malformed(m, off, "BINSTRING at offset %llu has a "
				  "negative length", (unsigned long long)off);
			m->stop = true;
			return;
		}
		push(m, read_str(m, op == OP_BINBYTES ? QA_PV_BYTES :
				 QA_PV_STR, op, off, u));
		return;
	case OP_SHORT_BINSTRING:
	case OP_SHORT_BINBYTES:
	case OP_SHORT_BINUNICODE:
		if (!rd_le(r, 1, &u))
			break;
		push(m, read_str(m, op == OP_SHORT_BINBYTES ? QA_PV_BYTES :
				 QA_PV_STR, op, off, u));
		return;
	case OP_BINUNICODE8:
	case OP_BINBYTES8:
	case OP_BYTEARRAY8:
		if (!rd_le(r, 8, &u))
			break;
		push(m, read_str(m, op == OP_BINUNICODE8 ? QA_PV_STR :
				 QA_PV_BYTES, op, off, u));
		return;
	case OP_EMPTY_TUPLE:
	case OP_EMPTY_LIST:
	case OP_EMPTY_DICT:
	case OP_EMPTY_SET:
		push(m, pv_new(m, op == OP_EMPTY_TUPLE ? QA_PV_TUPLE :
			       op == OP_EMPTY_LIST ? QA_PV_LIST :
			       op == OP_EMPTY_DICT ? QA_PV_DICT : QA_PV_SET,
			       op, off));
		return;
	case OP_TUPLE:
	case OP_LIST:
	case OP_DICT:
	case OP_FROZENSET:
		pop_mark(m, op, off, &first);
		if (op == OP_DICT && (m->sp - first) % 2) {
			malformed(m, off, "DICT at offset %llu has an odd "
				  "number of items", (unsigned long long)off);
			m->sp--;
		}
		v = pv_seq(m, op == OP_TUPLE ? QA_PV_TUPLE :
			   op == OP_LIST ? QA_PV_LIST :
			   op == OP_DICT ? QA_PV_DICT : QA_PV_FROZENSET, op,
			   off, items_from(m, first), m->sp - first);
		m->sp = first;
		push(m, v);
		return;
	case OP_TUPLE1:
	case OP_TUPLE2:
	case OP_TUPLE3: {
		struct qa_pv *items[3];
		size_t k = (size_t)(op - OP_TUPLE1) + 1;

		for (i = k; i > 0; i--)
			items[i - 1] = pop(m, op, off);
		for (i = 0; i < k; i++)
			if (!items[i])
				return;
		push(m, pv_seq(m, QA_PV_TUPLE, op, off, items, k));
		return;
	}
	case OP_APPEND:
		a = pop(m, op, off);
		b = top(m, op, off);
		if (!a || !b)
			return;
		b = item_target(m, op, b, off);
		if (b)
			seq_push(m, b, a);
		return;
	case OP_SETITEM:
		a = pop(m, op, off);	/* value */
		v = pop(m, op, off);	/* key */
		b = top(m, op, off);
		if (!a || !v || !b)
			return;
		b = item_target(m, op, b, off);
		if (b && seq_push(m, b, v))
			seq_push(m, b, a);
		return;
	case OP_APPENDS:
	case OP_SETITEMS:
	case OP_ADDITEMS:
		pop_mark(m, op, off, &first);
		if (first > m->sp)
			first = m->sp;
		n = m->sp - first;
		if (op == OP_SETITEMS && n % 2) {
			malformed(m, off, "SETITEMS at offset %llu has an odd "
				  "number of items", (unsigned long long)off);
			n--;
		}
		b = m->sp > base(m) && first > base(m) ? m->stk[first - 1] :
		    NULL;
		if (!b) {
			malformed(m, off, "%s at offset %llu has no container "
				  "below its MARK", qa_pkl_op_name(op),
				  (unsigned long long)off);
			m->sp = first;
			return;
		}
		b = item_target(m, op, b, off);
		for (i = 0; b && i < n && !m->stop; i++)
			seq_push(m, b, m->stk[first + i]);
		m->sp = first;
		return;
	case OP_GLOBAL:
		v = read_global(m, op, off);
		if (v) {
			judge_global(m, v, op);
			push(m, v);
		}
		return;
	case OP_STACK_GLOBAL:
		b = pop(m, op, off);	/* name */
		a = pop(m, op, off);	/* module */
		if (!a || !b)
			return;
		if (a->kind == QA_PV_STR && b->kind == QA_PV_STR &&
		    !(a->flags & QA_PVF_TRUNCATED) &&
		    !(b->flags & QA_PVF_TRUNCATED)) {
			v = make_global(m, op, off, a->u.str.s, a->n,
					b->u.str.s, b->n);
			if (v)
				judge_global(m, v, op);
		} else {
			char da[200], db[200];

			v = make_global(m, op, off, "?", 1, "?", 1);
			if (v)
				v->flags |= QA_PVF_UNRESOLVED;
			note(m, QA1604, off, "STACK_GLOBAL takes its module "
			     "from %s and its name from %s",
			     qa_pickle_describe(a, da, sizeof(da)),
			     qa_pickle_describe(b, db, sizeof(db)));
			judge_global(m, v, op);
		}
		push(m, v);
		return;
	case OP_INST:
		v = read_global(m, op, off);
		if (!v)
			return;
		judge_global(m, v, op);
		pop_mark(m, op, off, &first);
		a = pv_seq(m, QA_PV_TUPLE, op, off, items_from(m, first),
			   m->sp - first);
		m->sp = first;
		if (a)
			call_node(m, op, off, v, a);
		return;
	case OP_OBJ:
		pop_mark(m, op, off, &first);
		if (m->sp == first) {
			malformed(m, off, "OBJ at offset %llu has no class",
				  (unsigned long long)off);
			return;
		}
		v = m->stk[first];
		a = pv_seq(m, QA_PV_TUPLE, op, off, m->stk + first + 1,
			   m->sp - first - 1);
		m->sp = first;
		if (a)
			call_node(m, op, off, v, a);
		return;
	case OP_REDUCE:
		a = pop(m, op, off);	/* args */
		v = pop(m, op, off);	/* callable */
		if (a && v)
			call_node(m, op, off, v, a);
		return;
	case OP_NEWOBJ:
		a = pop(m, op, off);
		v = pop(m, op, off);
		if (a && v)
			call_node(m, op, off, v, a);
		return;
	case OP_NEWOBJ_EX:
		b = pop(m, op, off);	/* kwargs */
		a = pop(m, op, off);	/* args */
		v = pop(m, op, off);	/* cls */
		if (a && v && b)
			call_node(m, op, off, v, a);
		return;
	case OP_BUILD:
		a = pop(m, op, off);	/* state */
		b = top(m, op, off);
		if (a && b)
			judge_build(m, b, a, off);
		return;
	case OP_PERSID:
		if (!text_line(m, op, off, &n))
			return;
		a = text_str(m, QA_PV_STR, op, off, m->line, n);
		if (!a)
			return;
		note(m, QA1608, off, "PERSID at offset %llu hands the loader "
		     "the string persistent id '%s'", (unsigned long long)off,
		     esc(m->line2, 128, m->line));
		v = pv_new(m, QA_PV_PERSID, op, off);
		if (v)
			v->u.pid = a;
		push(m, v);
		return;
	case OP_BINPERSID:
		a = pop(m, op, off);
		if (!a)
			return;
		if (a->kind != QA_PV_TUPLE || a->n == 0 ||
		    a->u.seq.v[0]->kind != QA_PV_STR ||
		    strcmp(a->u.seq.v[0]->u.str.s, "storage") != 0) {
			char d[200];
			const char *what = a->kind == QA_PV_TUPLE && a->n &&
					   a->u.seq.v[0]->kind == QA_PV_STR ?
					   a->u.seq.v[0]->u.str.s : NULL;

			if (what)
				note(m, QA1608, off, "BINPERSID at offset %llu "
				     "hands the loader a '%s' id, not a "
				     "storage", (unsigned long long)off,
				     esc(d, sizeof(d), what));
			else
				note(m, QA1608, off, "BINPERSID at offset %llu "
				     "hands the loader %s, not a storage "
				     "tuple", (unsigned long long)off,
				     qa_pickle_describe(a, d, sizeof(d)));
		}
		v = pv_new(m, QA_PV_PERSID, op, off);
		if (v)
			v->u.pid = a;
		push(m, v);
		return;
	case OP_GET:
	case OP_BINGET:
	case OP_LONG_BINGET:
		if (op == OP_GET) {
			if (!text_line(m, op, off, &n))
				return;
			if (!parse_dec(m->line, n, &neg, &u, &big) || neg ||
			    big) {
				malformed(m, off, "GET at offset %llu has a bad "
					  "index", (unsigned long long)off);
				push(m, unknown(m, op, off));
				return;
			}
		} else if (!rd_le(r, op == OP_BINGET ? 1 : 4, &u)) {
			break;
		}
		v = memo_get(m, u);
		if (!v) {
			malformed(m, off, "%s at offset %llu reads memo entry "
				  "%llu, which was never stored",
				  qa_pkl_op_name(op), (unsigned long long)off,
				  (unsigned long long)u);
			v = unknown(m, op, off);
		}
		push(m, v);
		return;
	case OP_PUT:
	case OP_BINPUT:
	case OP_LONG_BINPUT:
	case OP_MEMOIZE:
		if (op == OP_PUT) {
			if (!text_line(m, op, off, &n))
				return;
			if (!parse_dec(m->line, n, &neg, &u, &big) || neg ||
			    big) {
				malformed(m, off, "PUT at offset %llu has a bad "
					  "index", (unsigned long long)off);
				return;
			}
		} else if (op == OP_MEMOIZE) {
			u = m->memo_n;
		} else if (!rd_le(r, op == OP_BINPUT ? 1 : 4, &u)) {
			break;
		}
		v = top(m, op, off);
		if (v)
			memo_put(m, u, v, off);
		return;
	case OP_PROTO: {
		int c = rd_u8(r);

		if (c < 0)
			break;
		if (off != m->start || m->w->proto >= 0)
			note(m, QA1607, off, "PROTO %d at offset %llu is not the "
			     "first opcode", c, (unsigned long long)off);
		if (c > 5)
			note(m, QA1607, off, "PROTO declares protocol %d; pickle "
			     "knows 0 to 5", c);
		if (m->w->proto < 0 || off == m->start)
			m->w->proto = c;
		return;
	}
	case OP_EXT1:
	case OP_EXT2:
	case OP_EXT4:
		if (!rd_le(r, op == OP_EXT1 ? 1 : op == OP_EXT2 ? 2 : 4, &u))
			break;
		note(m, QA1605, off, "%s %llu at offset %llu imports the global "
		     "registered under that code", qa_pkl_op_name(op),
		     (unsigned long long)u, (unsigned long long)off);
		v = make_global(m, op, off, "?", 1, "?", 1);
		if (v) {
			v->flags |= QA_PVF_EXTENSION;
			v->u.g.cls = QA_PKL_DANGEROUS;
		}
		push(m, v);
		return;
	case OP_FRAME:
		if (!rd_le(r, 8, &u))
			break;
		if (m->frame_end && off < m->frame_end)
			note(m, QA1606, off, "FRAME at offset %llu starts before "
			     "the frame at its left ends (at %llu)",
			     (unsigned long long)off,
			     (unsigned long long)m->frame_end);
		if (u > r->end - r->pos) {
			note(m, QA1606, off, "FRAME at offset %llu declares %llu "
			     "bytes, %llu are left", (unsigned long long)off,
			     (unsigned long long)u,
			     (unsigned long long)(r->end - r->pos));
			m->frame_end = 0;
		} else {
			m->frame_end = r->pos + u;
		}
		return;
	case OP_NEXT_BUFFER:
		malformed(m, off, "NEXT_BUFFER at offset %llu needs out-of-band "
			  "buffers no loader passes", (unsigned long long)off);
		push(m, pv_new(m, QA_PV_BUFFER, op, off));
		return;
	case OP_READONLY_BUFFER:
		top(m, op, off);
		return;
	default:
		malformed(m, off, "unknown opcode 0x%02x at offset %llu", op,
			  (unsigned long long)off);
		m->stop = true;
		return;
	}
	/* an argument ran past the end of the data */
	if (r->err)
		m->stop = true;
	else {
		malformed(m, off, "%s at offset %llu is cut short",
			  qa_pkl_op_name(op), (unsigned long long)off);
		m->stop = true;
	}
}

int
qa_pickle_walk(struct qa_pkl_walk *w, struct qa_source *src, uint64_t off,
	       uint64_t end)
{
	struct vm *m;
	struct rd *r;
	int rc = QA_OK;

	w->root = NULL;
	w->stopped = w->malformed = w->limited = w->out_of_memory = false;
	w->proto = -1;
	w->ops = 0;
	w->security_errors = 0;
	if (end > src->size)
		end = src->size;
	if (off > end)
		off = end;
	m = calloc(1, sizeof(*m));
	r = malloc(sizeof(*r));
	if (m)
		m->notes = calloc(NOTE_MAX, sizeof(*m->notes));
	if (!m || !r || !m->notes) {
		if (m)
			free(m->notes);
		free(m);
		free(r);
		w->out_of_memory = true;
		return QA_E_NOMEM;
	}
	r->src = src;
	r->pos = off;
	r->end = end;
	r->boff = off;
	r->blen = 0;
	r->err = 0;
	m->w = w;
	m->r = r;
	m->start = off;
	if (end - off > QA_PKL_MAX_BYTES) {
		r->end = off + QA_PKL_MAX_BYTES;
		limit(m, off, "a pickle longer than 1 GiB");
		m->stop = false;	/* walk the first GiB all the same */
	}
	while (!m->stop) {
		uint64_t at = r->pos;
		int op, p;

		if (m->frame_end && at >= m->frame_end)
			m->frame_end = 0;
		if (w->ops++ >= QA_PKL_MAX_OPS) {
			limit(m, at, "more than 256 Mi opcodes");
			break;
		}
		op = rd_u8(r);
		if (op < 0) {
			if (r->err)
				break;
			if (r->end < end && w->limited)
				break;	/* the byte bound, already reported */
			malformed(m, at, "the pickle ends at offset %llu without "
				  "a STOP", (unsigned long long)at);
			break;
		}
		p = qa_pkl_op_proto((uint8_t)op);
		if (p > 1 && w->proto < p && !m->proto_noted &&
		    op != OP_PROTO) {
			m->proto_noted = true;
			if (w->proto < 0)
				note(m, QA1607, at, "%s at offset %llu is a "
				     "protocol %d opcode in a pickle without "
				     "PROTO", qa_pkl_op_name((uint8_t)op),
				     (unsigned long long)at, p);
			else
				note(m, QA1607, at, "%s at offset %llu is a "
				     "protocol %d opcode in a protocol %d "
				     "pickle", qa_pkl_op_name((uint8_t)op),
				     (unsigned long long)at, p, w->proto);
		}
		if (!qa_pkl_weights_only_op((uint8_t)op) && p >= 0)
			wo_refuses(m, at, qa_pkl_op_name((uint8_t)op));
		step(m, (uint8_t)op, at);
		if (m->frame_end && r->pos > m->frame_end) {
			note(m, QA1606, at, "%s at offset %llu runs past the end "
			     "of its frame (%llu)", qa_pkl_op_name((uint8_t)op),
			     (unsigned long long)at,
			     (unsigned long long)m->frame_end);
			m->frame_end = 0;
		}
	}
	if (r->err)
		rc = QA_E_IO;
	if (w->out_of_memory && rc == QA_OK)
		rc = QA_E_NOMEM;
	w->end = r->pos;
	flush_notes(m);
	free(m->stk);
	free(m->marks);
	free(m->memo);
	free(m->notes);
	free(m);
	free(r);
	return rc;
}

