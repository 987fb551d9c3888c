/* SPDX-License-Identifier: MIT */
/*
 * Config versus tensors (QA2101-QA2109): what the hyperparameters declare
 * against what the weights hold. Block count against the block indices
 * present (GGUF {arch}.block_count counts the nextn/MTP blocks too:
 * llama.cpp n_layer_all, quant-formats.md §B2; missing or undeclared MTP
 * blocks are the MTP checks' business), hidden size and vocabulary against
 * the embedding and output matrices, the routed experts of every MoE layer
 * (per-expert Hugging Face names, fused GGUF and HF 3-D tensors), the
 * Qwen3-Next / Qwen3.5 full_attention_interval, per-layer arrays against
 * the block count, and quantization ignore lists that name modules the
 * checkpoint does not have (quant-formats.md §A2-A5).
 *
 * Nothing here runs on a file without tensors (vocabulary-only GGUFs) and
 * tensors of vision/audio towers and projectors are left out of the block
 * checks. Findings are capped per rule so a badly broken MoE file gives a
 * readable report.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtypes.h"
#include "core/gguf_keys.h"
#include "rules/check.h"

/* Block indices past this are not a model (llama.cpp: 512 layers). */
#define MAX_BLOCKS 65536
/* Findings per rule before the rest is summarised in one line. */
#define MAX_REPORTS 16
/* Expert indices beyond this are not read as experts. */
#define MAX_EXPERT_INDEX (1L << 20)
/* Module names longer than this are not matched against patterns. */
#define MAX_NAME 1024

struct ctx {
	struct qa_inventory *inv;
	const struct qa_kv *block_kv;	/* {arch}.block_count, GGUF */
	unsigned reports[10];		/* per rule 2101..2109 */
};

static const char *
kv_file(const struct qa_inventory *inv, const struct qa_kv *kv)
{
	return kv && kv->file < inv->n_files ? inv->files[kv->file].path :
	       NULL;
}

static const char *
tensor_file(const struct qa_inventory *inv, const struct qa_tensor *t)
{
	return t->file < inv->n_files ? inv->files[t->file].path : NULL;
}

/* ---- GGUF file type versus tensor types (QA7001, QA7002) -------------- */

static void
check_file_type(struct qa_inventory *inv)
{
	const char *main_type;
	const struct qa_kv *kv;

	if (inv->kind != QA_KIND_GGUF && !(inv->kind == QA_KIND_HF_DIR &&
					   inv->hp.file_type >= 0))
		return;
	if (inv->hp.file_type < 0)
		return;
	kv = qa_inv_kv(inv, QA_GGUF_GENERAL_FILE_TYPE);
	main_type = qa_llama_ftype_main_type(inv->hp.file_type);
	/* a fork's file type (read with its meaning, QA1038): its weight
	 * type is a fork type, which the upstream comparison below cannot
	 * weigh, so only an unknown value is reported */
	if (inv->ggml_fork.bitnet_ftype ||
	    (inv->ggml_fork.ik && !main_type &&
	     qa_ik_ftype_label(inv->hp.file_type)))
		return;
	if (!main_type) {
		qa_inv_finding(inv, QA7002,
			       kv ? inv->files[kv->file].path : NULL,
			       kv ? (int64_t)kv->offset : -1, NULL,
			       "general.file_type is %lld",
			       (long long)inv->hp.file_type);
		return;
	}
	/* The label speaks of the weight matrices (1-D norms are F32 under
	 * every file type and may outnumber any one matrix type). */
	if (inv->dominant_matrix_type &&
	    strcmp(main_type, inv->dominant_matrix_type) != 0)
		qa_inv_finding(inv, QA7001,
			       kv ? inv->files[kv->file].path : NULL,
			       kv ? (int64_t)kv->offset : -1, NULL,
			       "general.file_type says %s (mostly %s) but "
			       "most weight matrices are %s",
			       inv->file_type_declared, main_type,
			       inv->dominant_matrix_type);
}

/* Counts a finding of rule code; false once the cap is reached. */
static bool
may_report(struct ctx *c, unsigned code)
{
	unsigned *n = &c->reports[code - 2100];

	return (*n)++ < MAX_REPORTS;
}

static void
report_overflow(struct ctx *c, unsigned code, const char *what)
{
	unsigned n = c->reports[code - 2100];

	if (n > MAX_REPORTS)
		qa_inv_finding(c->inv, code, NULL, -1, NULL,
			       "%u more %s not listed", n - MAX_REPORTS, what);
}

/* Where the declaration lives: the GGUF key, else config.json. */
static const char *
decl_file(const struct ctx *c, const struct qa_kv *kv)
{
	return kv ? kv_file(c->inv, kv) : c->inv->config_file;
}

static bool
in_tower(const struct qa_tensor *t)
{
	return t->role == QA_ROLE_VISION || t->role == QA_ROLE_PROJECTOR ||
	       t->role == QA_ROLE_AUDIO;
}

/* Appends "a, b-c" ranges of the set indices to buf. */
static void
ranges(char *buf, size_t cap, const uint8_t *set, int64_t from, int64_t to,
       unsigned *count)
{
	size_t n = 0;
	int64_t i = from, j;
	bool more = false;

	buf[0] = '\0';
	*count = 0;
	while (i < to) {
		if (!set[i]) {
			i++;
			continue;
		}
		for (j = i; j + 1 < to && set[j + 1]; j++)
			;
		*count += (unsigned)(j - i + 1);
		if (!more || n + 24 < cap) {
			int w = j > i ? snprintf(buf + n, cap - n, "%s%lld-%lld",
						 n ? ", " : "", (long long)i,
						 (long long)j) :
				snprintf(buf + n, cap - n, "%s%lld",
					 n ? ", " : "", (long long)i);
			if (w > 0 && (size_t)w < cap - n)
				n += (size_t)w;
		}
		more = true;
		i = j + 1;
	}
}

/* QA2101 / QA2102: declared blocks against the block indices present. */
static void
check_blocks(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_hparams *hp = &inv->hp;
	int64_t n_all = hp->n_layer_all, n_trunk = hp->n_layer, top = -1, i;
	uint8_t *any, *mtp, *sel;
	bool trunk_seen = false;
	char list[256];
	unsigned cnt;
	uint32_t k;

	if (n_all < 0 || n_trunk < 0 || n_all > MAX_BLOCKS)
		return;
	for (k = 0; k < inv->n_tensors; k++) {
		const struct qa_tensor *t = &inv->tensors[k];

		if (t->layer >= 0 && !in_tower(t) && t->layer > top)
			top = t->layer;
	}
	if (top < 0)
		return;
	if (top >= MAX_BLOCKS)
		top = MAX_BLOCKS - 1;
	i = top + 1 > n_all ? top + 1 : n_all;
	any = calloc((size_t)i * 3, 1);
	if (!any) {
		inv->out_of_memory = true;
		return;
	}
	mtp = any + i;
	sel = mtp + i;
	for (k = 0; k < inv->n_tensors; k++) {
		const struct qa_tensor *t = &inv->tensors[k];

		if (t->layer < 0 || t->layer > top || in_tower(t))
			continue;
		any[t->layer] = 1;
		if (t->mtp)
			mtp[t->layer] = 1;
		else
			trunk_seen = true;
	}
	/* An MTP-only draft file (convert_hf_to_gguf.py --mtp) has no
	 * trunk blocks at all by design. */
	if (trunk_seen) {
		for (i = 0; i < n_trunk; i++)
			sel[i] = !any[i];
		ranges(list, sizeof(list), sel, 0, n_trunk, &cnt);
		if (cnt)
			qa_inv_finding(inv, QA2101, decl_file(c, c->block_kv),
				       c->block_kv ? (int64_t)c->block_kv->offset : -1,
				       NULL, "%lld blocks declared, but %u %s "
				       "no tensors: block%s %s",
				       (long long)n_trunk, cnt,
				       cnt > 1 ? "have" : "has",
				       cnt > 1 ? "s" : "", list);
	}
	memset(sel, 0, (size_t)(top + 1 > n_all ? top + 1 : n_all));
	for (i = n_all; i <= top; i++)
		sel[i] = any[i] && !mtp[i];
	ranges(list, sizeof(list), sel, n_all, top + 1, &cnt);
	if (cnt)
		qa_inv_finding(inv, QA2102, decl_file(c, c->block_kv),
			       c->block_kv ? (int64_t)c->block_kv->offset : -1,
			       NULL, "%lld blocks declared (incl. %lld MTP), "
			       "but tensors exist for block%s %s",
			       (long long)n_all, (long long)(n_all - n_trunk),
			       cnt > 1 ? "s" : "", list);
	free(any);
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Unpacked dtypes whose safetensors shape is the logical shape. */
static bool
plain_dtype(const char *d)
{
	static const char *const ok[] = {
		"F32", "F16", "BF16", "F64", "F8_E4M3", "F8_E5M2",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(d, ok[i]) == 0)
			return true;
	return false;
}

static bool
is_embedding(const struct qa_tensor *t, bool gguf)
{
	static const char *const hf[] = {
		".embed_tokens.weight", ".wte.weight", ".word_embeddings.weight",
		".tok_embeddings.weight", ".embed_in.weight",
	};
	size_t i;

	if (gguf)
		return strcmp(t->name, "token_embd.weight") == 0;
	if (t->role != QA_ROLE_EMBED || t->mtp || strstr(t->name, "per_layer"))
		return false;
	for (i = 0; i < sizeof(hf) / sizeof(hf[0]); i++)
		if (ends_with(t->name, hf[i]) ||
		    strcmp(t->name, hf[i] + 1) == 0)
			return true;
	return false;
}

static bool
is_output(const struct qa_tensor *t, bool gguf)
{
	if (gguf)
		return strcmp(t->name, "output.weight") == 0;
	return !t->mtp && (strcmp(t->name, "lm_head.weight") == 0 ||
			   ends_with(t->name, ".lm_head.weight"));
}

/* QA2103 / QA2104: hidden size and vocabulary against the embedding and
 * output matrices (GGUF ne {n_embd, n_vocab}; HF shape [vocab, hidden]). */
static void
check_matrices(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_hparams *hp = &inv->hp;
	const struct qa_kv *tok = qa_inv_kv(inv, QA_GGUF_TOKENIZER_LIST);
	bool gguf = false, seen_embd = false, seen_out = false;
	int64_t vocab = hp->n_vocab;
	const char *vocab_what = "vocab_size";
	uint32_t k;

	for (k = 0; k < inv->n_files; k++)
		if (strcmp(inv->files[k].format, "gguf") == 0 &&
		    inv->files[k].role != QA_FILE_MMPROJ)
			gguf = true;
	/* llama.cpp sizes token_embd and output by the token list. */
	if (gguf && tok && tok->value.type == QA_V_ARRAY &&
	    tok->value.v.arr.count <= INT64_MAX) {
		vocab = (int64_t)tok->value.v.arr.count;
		vocab_what = QA_GGUF_TOKENIZER_LIST;
	}
	for (k = 0; k < inv->n_tensors; k++) {
		const struct qa_tensor *t = &inv->tensors[k];
		bool emb = !seen_embd && is_embedding(t, gguf);
		bool out = !seen_out && is_output(t, gguf);
		uint64_t cols, rows;

		if (!emb && !out)
			continue;
		if (emb)
			seen_embd = true;
		else
			seen_out = true;
		if (t->n_dims != 2 || (!gguf && !plain_dtype(t->dtype)))
			continue;
		cols = gguf ? t->shape[0] : t->shape[1];
		rows = gguf ? t->shape[1] : t->shape[0];
		if (hp->n_embd > 0 && cols != (uint64_t)hp->n_embd)
			qa_inv_finding(inv, QA2103, tensor_file(inv, t),
				       (int64_t)t->offset, t->name,
				       "%s has %llu columns but the hidden size "
				       "is %lld", t->name,
				       (unsigned long long)cols,
				       (long long)hp->n_embd);
		/* EAGLE-3: lm_head has draft_vocab_size rows by design
		 * (llama_eagle3.py ParallelLMHead(draft_vocab_size));
		 * its d2t / t2d are checked by rules/check_adapter.c */
		if (out && inv->draft_head.kind &&
		    strcmp(inv->draft_head.kind, "eagle3") == 0 &&
		    inv->draft_head.draft_vocab > 0) {
			if (rows != (uint64_t)inv->draft_head.draft_vocab)
				qa_inv_finding(inv, QA2104,
					       tensor_file(inv, t),
					       (int64_t)t->offset, t->name,
					       "%s has %llu rows but "
					       "draft_vocab_size is %lld",
					       t->name, (unsigned long long)rows,
					       (long long)inv->draft_head.draft_vocab);
			continue;
		}
		if (vocab > 0 && rows != (uint64_t)vocab)
			qa_inv_finding(inv, QA2104, tensor_file(inv, t),
				       (int64_t)t->offset, t->name,
				       "%s has %llu rows but %s is %lld",
				       t->name, (unsigned long long)rows,
				       vocab_what, (long long)vocab);
	}
}

/* One per-expert tensor: <prefix>experts.<idx>.<proj>[.<rest>] */
struct expert {
	const char *prefix;	/* the name up to and including "experts." */
	size_t prefix_len;
	const char *proj;	/* first component after the index */
	size_t proj_len;
	long idx;
	uint32_t tensor;
	uint64_t group;		/* FNV-1a of prefix and proj */
};

static int
cmp_span(const char *a, size_t an, const char *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	if (r)
		return r;
	return an < bn ? -1 : an > bn;
}

static int
cmp_expert(const void *pa, const void *pb)
{
	const struct expert *a = pa, *b = pb;
	int r = cmp_span(a->prefix, a->prefix_len, b->prefix, b->prefix_len);

	if (!r)
		r = cmp_span(a->proj, a->proj_len, b->proj, b->proj_len);
	if (!r)
		r = a->idx < b->idx ? -1 : a->idx > b->idx;
	return r;
}

/* The (prefix, proj) group of e as a number: equal groups, equal
 * numbers (FNV-1a, 64 bits; equal numbers are checked for equal
 * groups before they are trusted). */
static uint64_t
group_hash(const struct expert *e)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < e->prefix_len; i++)
		h = (h ^ (unsigned char)e->prefix[i]) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL;	/* no byte of a name */
	for (i = 0; i < e->proj_len; i++)
		h = (h ^ (unsigned char)e->proj[i]) * 0x100000001b3ULL;
	return h;
}

static int
cmp_hashed(const void *pa, const void *pb)
{
	const struct expert *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->idx != b->idx)
		return a->idx < b->idx ? -1 : 1;
	return a->tensor < b->tensor ? -1 : a->tensor > b->tensor;
}

struct expert_run {
	size_t start, n;
	const struct expert *first;	/* its prefix and proj */
};

static int
cmp_run(const void *pa, const void *pb)
{
	const struct expert *a = ((const struct expert_run *)pa)->first;
	const struct expert *b = ((const struct expert_run *)pb)->first;
	int r = cmp_span(a->prefix, a->prefix_len, b->prefix, b->prefix_len);

	return r ? r : cmp_span(a->proj, a->proj_len, b->proj, b->proj_len);
}

/*
 * Sorts ex by (prefix, proj, idx, tensor) — the order cmp_expert gives,
 * tensor order breaking ties as glibc's merge sort keeps it — comparing
 * numbers instead of names for all but the groups: tens of thousands of
 * expert tensors fall into a few hundred groups. Returns false (ex
 * unsorted) when out of memory or on a hash collision; the caller then
 * sorts by name.
 */
static bool
sort_experts(struct expert *ex, size_t n)
{
	struct expert_run *runs;
	struct expert *out;
	size_t i, j, k, n_runs = 0;

	for (i = 0; i < n; i++)
		ex[i].group = group_hash(&ex[i]);
	qsort(ex, n, sizeof(*ex), cmp_hashed);
	runs = malloc(n * sizeof(*runs));
	out = malloc(n * sizeof(*out));
	if (!runs || !out) {
		free(runs);
		free(out);
		return false;
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && ex[j].group == ex[i].group; j++)
			if (cmp_span(ex[j].prefix, ex[j].prefix_len, ex[i].prefix,
				     ex[i].prefix_len) != 0 ||
			    cmp_span(ex[j].proj, ex[j].proj_len, ex[i].proj,
				     ex[i].proj_len) != 0) {
				free(runs);
				free(out);
				return false;	/* a collision */
			}
		runs[n_runs].start = i;
		runs[n_runs].first = &ex[i];
		runs[n_runs++].n = j - i;
	}
	qsort(runs, n_runs, sizeof(*runs), cmp_run);
	for (i = 0, k = 0; i < n_runs; i++) {
		memcpy(out + k, ex + runs[i].start, runs[i].n * sizeof(*out));
		k += runs[i].n;
	}
	memcpy(ex, out, n * sizeof(*ex));
	free(runs);
	free(out);
	return true;
}

/* Finds ".experts.<digits>." (or a leading "experts."); fills e. */
static bool
parse_expert(const char *name, struct expert *e)
{
	const char *p = name;

	for (;;) {
		const char *q = strstr(p, "experts.");
		const char *d, *dot;
		char *end;

		if (!q)
			return false;
		p = q + 8;
		if (q != name && q[-1] != '.')
			continue;	/* shared_experts. */
		if (*p < '0' || *p > '9')
			continue;
		e->idx = strtol(p, &end, 10);
		/* no model has a million experts; a hostile index must not
		 * overflow the count arithmetic */
		if (*end != '.' || e->idx < 0 || e->idx > MAX_EXPERT_INDEX)
			continue;
		d = end + 1;
		dot = strchr(d, '.');
		e->prefix = name;
		e->prefix_len = (size_t)(p - name);
		e->proj = d;
		e->proj_len = dot ? (size_t)(dot - d) : strlen(d);
		return true;
	}
}

/* The experts of one (prefix, proj) group that are missing or out of
 * range, as text ("2, 5-7"); returns the counts. */
static void
group_gaps(const struct expert *g, size_t n, long n_exp, char *missing,
	   size_t cap, long *n_missing, long *n_extra, long *first_extra)
{
	size_t mn = 0, i;
	long want = 0, lo;

	missing[0] = '\0';
	*n_missing = *n_extra = 0;
	*first_extra = -1;
	for (i = 0; i <= n; i++) {
		long next = i < n ? g[i].idx : n_exp;

		if (i < n && next >= n_exp) {
			if ((*n_extra)++ == 0)
				*first_extra = next;
			continue;
		}
		if (next > want) {
			int w;

			lo = want;
			*n_missing += next - lo;
			w = next - 1 > lo ?
			    snprintf(missing + mn, cap - mn, "%s%ld-%ld",
				     mn ? ", " : "", lo, next - 1) :
			    snprintf(missing + mn, cap - mn, "%s%ld",
				     mn ? ", " : "", lo);
			if (w > 0 && (size_t)w < cap - mn)
				mn += (size_t)w;
		}
		if (next + 1 > want)
			want = next + 1;
	}
}

/*
 * Reports the per-expert groups g[0..n) that share one prefix (one MoE
 * layer): a single finding, naming the projections when they all lack the
 * same experts, else each projection's gaps.
 */
static void
report_layer(struct ctx *c, const struct expert *g, size_t n, long n_exp)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_tensor *t = &inv->tensors[g[0].tensor];
	char first[160], cur[160], detail[512];
	size_t i, j, dn = 0;
	long nm, ne, fe, nm0 = 0, ne0 = 0, fe0 = -1;
	bool same = true, bad = false;

	detail[0] = '\0';
	for (i = 0; i < n; i = j) {
		int w;

		for (j = i + 1; j < n && cmp_span(g[i].proj, g[i].proj_len,
						  g[j].proj, g[j].proj_len) == 0;
		     j++)
			;
		group_gaps(g + i, j - i, n_exp, cur, sizeof(cur), &nm, &ne,
			   &fe);
		if (i == 0) {
			memcpy(first, cur, sizeof(first));
			nm0 = nm;
			ne0 = ne;
			fe0 = fe;
		} else if (nm != nm0 || ne != ne0 || fe != fe0 ||
			   strcmp(cur, first) != 0) {
			same = false;
		}
		if (!nm && !ne)
			continue;
		bad = true;
		if (nm && ne)
			w = snprintf(detail + dn, sizeof(detail) - dn,
				     "%s%.*s lacks %s and has index %ld",
				     dn ? "; " : "", (int)g[i].proj_len,
				     g[i].proj, cur, fe);
		else if (nm)
			w = snprintf(detail + dn, sizeof(detail) - dn,
				     "%s%.*s lacks %s", dn ? "; " : "",
				     (int)g[i].proj_len, g[i].proj, cur);
		else
			w = snprintf(detail + dn, sizeof(detail) - dn,
				     "%s%.*s has index %ld", dn ? "; " : "",
				     (int)g[i].proj_len, g[i].proj, fe);
		if (w > 0 && (size_t)w < sizeof(detail) - dn)
			dn += (size_t)w;
	}
	if (!bad || !may_report(c, QA2105))
		return;
	if (same && nm0)
		qa_inv_finding(inv, QA2105, tensor_file(inv, t), -1, NULL,
			       "%.*s: %ld of %ld experts missing (%s) for "
			       "every projection%s",
			       (int)g[0].prefix_len - 1, g[0].prefix, nm0,
			       n_exp, first, ne0 ? ", and indices past the "
			       "expert count" : "");
	else if (same)
		qa_inv_finding(inv, QA2105, tensor_file(inv, t), -1, NULL,
			       "%.*s: expert index %ld is not below the expert "
			       "count %ld", (int)g[0].prefix_len - 1,
			       g[0].prefix, fe0, n_exp);
	else
		qa_inv_finding(inv, QA2105, tensor_file(inv, t), -1, NULL,
			       "%.*s (experts 0..%ld): %s",
			       (int)g[0].prefix_len - 1, g[0].prefix, n_exp - 1,
			       detail);
}

/* QA2105: every MoE layer has experts 0..n-1 of every projection. */
static void
check_expert_names(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	struct expert *ex = NULL;
	size_t n = 0, i, j;
	long n_exp = inv->hp.n_expert > 0 ? (long)inv->hp.n_expert : 0;
	long top = -1;
	uint32_t k;

	for (k = 0; k < inv->n_tensors; k++) {
		struct expert e;

		if (!parse_expert(inv->tensors[k].name, &e))
			continue;
		if (!ex) {
			ex = malloc(sizeof(*ex) * (inv->n_tensors - k));
			if (!ex) {
				inv->out_of_memory = true;
				return;
			}
		}
		e.tensor = k;
		ex[n++] = e;
		if (e.idx > top)
			top = e.idx;
	}
	if (!n) {
		free(ex);
		return;
	}
	/* Without a declared count, the widest layer sets it. */
	if (n_exp == 0)
		n_exp = top + 1;
	if (!sort_experts(ex, n))
		qsort(ex, n, sizeof(*ex), cmp_expert);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n &&
		     cmp_span(ex[i].prefix, ex[i].prefix_len, ex[j].prefix,
			      ex[j].prefix_len) == 0; j++)
			;
		report_layer(c, ex + i, j - i, n_exp);
	}
	report_overflow(c, QA2105, "incomplete expert groups");
	free(ex);
}

/* QA2106: fused expert tensors hold expert_count experts (GGUF
 * blk.N.ffn_*_exps.weight ne[2]; HF mlp.experts.<proj> shape[0]). */
static void
check_fused_experts(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	int64_t n_exp = inv->hp.n_expert;
	const struct qa_kv *kv = NULL;
	char key[160];
	uint32_t k;

	if (n_exp <= 0)
		return;
	if (inv->hp.arch_raw) {
		snprintf(key, sizeof(key), "%s." QA_GGUF_LLM_EXPERT_COUNT,
			 inv->hp.arch_raw);
		kv = qa_inv_kv(inv, key);
	}
	for (k = 0; k < inv->n_tensors; k++) {
		const struct qa_tensor *t = &inv->tensors[k];
		struct expert e;
		uint64_t have;
		const char *q;

		if (t->ggml_type >= 0) {
			if (t->n_dims != 3 || !strstr(t->name, "_exps.") ||
			    !ends_with(t->name, ".weight"))
				continue;
			have = t->shape[2];
		} else {
			q = strstr(t->name, "experts.");
			if (!q || (q != t->name && q[-1] != '.') ||
			    parse_expert(t->name, &e) || t->n_dims < 3)
				continue;
			have = t->shape[0];
		}
		if (have == (uint64_t)n_exp || !may_report(c, QA2106))
			continue;
		qa_inv_finding(inv, QA2106, tensor_file(inv, t),
			       (int64_t)t->offset, t->name,
			       "%s holds %llu experts but %s is %lld", t->name,
			       (unsigned long long)have,
			       kv ? kv->key : "the expert count",
			       (long long)n_exp);
	}
	report_overflow(c, QA2106, "fused expert tensors");
}

/* QA2107 / QA2108 for GGUF metadata. */
static void
check_gguf_layout(struct ctx *c)
{
	static const char *const arrays[] = {
		QA_GGUF_ATTN_HEAD_COUNT_KV, QA_GGUF_ATTN_HEAD_COUNT,
		QA_GGUF_LLM_FEED_FORWARD_LENGTH,
	};
	struct qa_inventory *inv = c->inv;
	const struct qa_hparams *hp = &inv->hp;
	const struct qa_kv *kv;
	char key[160];
	size_t i;

	if (!hp->arch_raw)
		return;
	snprintf(key, sizeof(key), "%s." QA_GGUF_LLM_FULL_ATTENTION_INTERVAL,
		 hp->arch_raw);
	kv = qa_inv_kv(inv, key);
	if (kv && hp->full_attention_interval > 0 && hp->n_layer > 0 &&
	    hp->n_layer % hp->full_attention_interval != 0)
		qa_inv_finding(inv, QA2107, kv_file(inv, kv),
			       (int64_t)kv->offset, NULL,
			       "block_count %lld minus %lld MTP block%s = %lld "
			       "trunk blocks, not a multiple of "
			       "full_attention_interval %lld",
			       (long long)hp->n_layer_all,
			       (long long)(hp->n_layer_all - hp->n_layer),
			       hp->n_layer_all - hp->n_layer == 1 ? "" : "s",
			       (long long)hp->n_layer,
			       (long long)hp->full_attention_interval);
	if (hp->n_layer_all < 0)
		return;
	for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		snprintf(key, sizeof(key), "%s.%s", hp->arch_raw, arrays[i]);
		kv = qa_inv_kv(inv, key);
		if (!kv || kv->value.type != QA_V_ARRAY ||
		    kv->value.v.arr.count == (uint64_t)hp->n_layer_all)
			continue;
		qa_inv_finding(inv, QA2108, kv_file(inv, kv),
			       (int64_t)kv->offset, NULL,
			       "%s has %llu entries but block_count is %lld: "
			       "llama.cpp refuses the file (wrong array length)",
			       kv->key, (unsigned long long)kv->value.v.arr.count,
			       (long long)hp->n_layer_all);
	}
}

/* QA2107 / QA2108 for config.json. */
static void
check_config_layout(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_hparams *hp = &inv->hp;
	int64_t n = hp->n_layer;

	if (n <= 0)
		return;
	if (hp->n_layer_types >= 0 && hp->n_layer_types != n)
		qa_inv_finding(inv, QA2108, inv->config_file, -1, NULL,
			       "layer_types has %lld entries but num_hidden_layers "
			       "is %lld: transformers refuses the config",
			       (long long)hp->n_layer_types, (long long)n);
	if (hp->full_attention_interval_declared >= 1 &&
	    n % hp->full_attention_interval_declared != 0)
		qa_inv_finding(inv, QA2107, inv->config_file, -1, NULL,
			       "num_hidden_layers %lld is not a multiple of "
			       "full_attention_interval %lld", (long long)n,
			       (long long)hp->full_attention_interval_declared);
}

/* ---- per-layer kinds against the tensors (QA2110) --------------------- */

/* The first tensor llama.cpp requires of a recurrent block of the arch
 * (src/models/<arch>.cpp load_tensors): what its error names. */
static const char *
first_recurrent_tensor(const char *arch)
{
	if (!arch)
		return "ssm_in.weight";
	if (strncmp(arch, "lfm2", 4) == 0)
		return "shortconv.conv.weight";
	if (strcmp(arch, "qwen3next") == 0 || strncmp(arch, "qwen35", 6) == 0)
		return "ssm_conv1d.weight";
	return "ssm_in.weight";
}

static void
check_layer_kinds(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const char *where = inv->kind == QA_KIND_GGUF && c->block_kv ?
			    kv_file(inv, c->block_kv) : inv->config_file;
	int32_t b = inv->kind_mismatch.first;

	if (!inv->kind_mismatch.n)
		return;
	if (inv->kind == QA_KIND_GGUF)
		qa_inv_finding(inv, QA2110, where, -1, NULL,
			       "%u block%s (first blk.%d) hold%s %s tensors "
			       "where the per-layer arrays say %s: llama.cpp "
			       "refuses the file (check_tensor_dims: tensor "
			       "'blk.%d.%s' not found)", inv->kind_mismatch.n,
			       inv->kind_mismatch.n == 1 ? "" : "s", b,
			       inv->kind_mismatch.n == 1 ? "s" : "",
			       inv->kind_mismatch.first_has_attention ?
			       "attention" : "recurrent",
			       inv->kind_mismatch.first_has_attention ?
			       "recurrent" : "attention", b,
			       inv->kind_mismatch.first_has_attention ?
			       first_recurrent_tensor(inv->hp.arch_raw) :
			       "attn_q.weight");
	else
		qa_inv_finding(inv, QA2110, where, -1, NULL,
			       "%u layer%s (first %d) hold%s %s tensors where "
			       "config.json's layer layout says %s: engines "
			       "build the layer from the config and fail to "
			       "load its weights", inv->kind_mismatch.n,
			       inv->kind_mismatch.n == 1 ? "" : "s", b,
			       inv->kind_mismatch.n == 1 ? "s" : "",
			       inv->kind_mismatch.first_has_attention ?
			       "attention" : "recurrent",
			       inv->kind_mismatch.first_has_attention ?
			       "recurrent" : "attention");
}

/* ---- quantization ignore lists (QA2109) ------------------------------ */

/*
 * Exclude entries of the quantization config (ignore, exclude_modules,
 * modules_to_not_convert, llm_int8_skip_modules, ...) that match no
 * module of the checkpoint, as the analysis counted them with the one
 * pattern matcher (src/analysis/claims.c): the module itself or one of
 * its parents, with the method's matching rule.
 */
static void
check_ignore_lists(struct ctx *c)
{
	struct qa_inventory *inv = c->inv;
	const struct qa_quant_config *qc = &inv->quant;
	const char *file = qc->file ? qc->file : inv->quant_config_file;
	uint32_t i;

	if (inv->n_tensors == 0)
		return;
	for (i = 0; i < qc->n_exclude; i++) {
		const struct qa_quant_pattern *p = &qc->exclude[i];
		const char *s = p->text;

		/* -1: a regex POSIX cannot express, cannot tell */
		if (!s || !*s || p->matches != 0)
			continue;
		/* compressed-tensors targets may be class names ("Linear") */
		if (p->kind == QA_PAT_EXACT && !strchr(s, '.') &&
		    s[0] >= 'A' && s[0] <= 'Z')
			continue;
		/* With tied embeddings lm_head is a module of the model
		 * even though no tensor stores it, and llm-compressor
		 * ignores it by default. */
		if (inv->hp.tie_embeddings && strcmp(s, "lm_head") == 0)
			continue;
		if (!may_report(c, QA2109))
			continue;
		qa_inv_finding(inv, QA2109, file, -1, NULL,
			       "%s entry '%.200s' matches no module of the "
			       "checkpoint: often harmless (a pattern written "
			       "for another model size or a vision tower), but "
			       "a misspelt entry leaves the module it meant "
			       "quantized", p->source ? p->source : "exclude",
			       s);
	}
	report_overflow(c, QA2109, "unmatched ignore-list entries");
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	struct ctx c;
	char key[160];

	(void)opt;
	memset(&c, 0, sizeof(c));
	c.inv = inv;
	check_file_type(inv);
	/* Vocabulary-only GGUFs declare a model they do not contain. */
	if (inv->n_tensors == 0)
		return;
	if (inv->hp.arch_raw) {
		snprintf(key, sizeof(key), "%s." QA_GGUF_LLM_BLOCK_COUNT,
			 inv->hp.arch_raw);
		c.block_kv = qa_inv_kv(inv, key);
	}
	check_blocks(&c);
	check_matrices(&c);
	check_expert_names(&c);
	check_fused_experts(&c);
	check_gguf_layout(&c);
	check_layer_kinds(&c);
	if (inv->have_config)
		check_config_layout(&c);
	check_ignore_lists(&c);
}

const struct qa_check qa_check_consistency = { "consistency", run, false };
