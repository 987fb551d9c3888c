/* SPDX-License-Identifier: MIT */
/*
 * Inventory storage (arena-backed growable arrays), findings, metadata
 * lookup. The derived summaries live in src/analysis/summary.c.
 */
#include "core/inventory.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
qa_hparams_init(struct qa_hparams *hp)
{
	memset(hp, 0, sizeof(*hp));
	hp->n_layer = hp->n_layer_all = -1;
	hp->n_embd = hp->n_head = hp->n_head_kv = -1;
	hp->head_dim_k = hp->head_dim_v = -1;
	hp->n_ff = hp->n_vocab = hp->n_ctx_train = -1;
	hp->n_expert = hp->n_expert_used = hp->n_expert_shared = -1;
	hp->n_ff_expert = hp->n_leading_dense = -1;
	hp->sliding_window = hp->swa_pattern = -1;
	hp->full_attention_interval = -1;
	hp->full_attention_interval_declared = -1;
	hp->n_layer_types = -1;
	hp->q_lora_rank = hp->kv_lora_rank = -1;
	hp->qk_rope_dim = hp->qk_nope_dim = hp->v_head_dim_mla = -1;
	hp->ssm_d_conv = hp->ssm_d_inner = hp->ssm_d_state = -1;
	hp->ssm_dt_rank = hp->ssm_n_group = -1;
	hp->n_mtp = -1;
	hp->file_type = -1;
}

struct qa_inventory *
qa_inventory_create(const char *path)
{
	struct qa_inventory *inv = calloc(1, sizeof(*inv));

	if (!inv)
		return NULL;
	qa_arena_init(&inv->arena, 0);
	inv->path = qa_arena_strdup(&inv->arena, path);
	if (!inv->path) {
		free(inv);
		return NULL;
	}
	qa_hparams_init(&inv->hp);
	inv->fs = qa_fs_default();
	return inv;
}

int
qa_inv_open(const struct qa_inventory *inv, const char *path,
	    struct qa_source *src)
{
	return inv->fs->open(inv->fs, path, src);
}

int
qa_inv_stat(const struct qa_inventory *inv, const char *path,
	    enum qa_node_kind *kind, uint64_t *size)
{
	int err;

	return inv->fs->stat(inv->fs, path, kind, size, &err);
}

int
qa_inv_list(const struct qa_inventory *inv, const char *dir,
	    struct qa_dirent **out, size_t *n)
{
	return inv->fs->list(inv->fs, dir, out, n);
}

void
qa_inventory_destroy(struct qa_inventory *inv)
{
	if (!inv)
		return;
	qa_arena_finish(&inv->arena);
	free(inv);
}

/* Appends one zeroed element to an arena-backed array, doubling it. */
static void *
push(struct qa_inventory *inv, void **arr, uint32_t *n, uint32_t *cap,
     size_t sz)
{
	unsigned char *p;

	if (*n == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 16;
		void *na;

		if (ncap < *cap) {
			inv->out_of_memory = true;
			return NULL;
		}
		na = qa_arena_grow(&inv->arena, *arr, *n, ncap, sz);
		if (!na) {
			inv->out_of_memory = true;
			return NULL;
		}
		*arr = na;
		*cap = ncap;
	}
	p = (unsigned char *)*arr + (size_t)*n * sz;
	memset(p, 0, sz);
	(*n)++;
	return p;
}

struct qa_file *
qa_inv_add_file(struct qa_inventory *inv, const char *path)
{
	struct qa_file *f;
	const char *slash;

	f = push(inv, (void **)&inv->files, &inv->n_files, &inv->cap_files,
		 sizeof(*f));
	if (!f)
		return NULL;
	f->path = qa_arena_strdup(&inv->arena, path);
	if (!f->path) {
		inv->out_of_memory = true;
		inv->n_files--;
		return NULL;
	}
	slash = strrchr(f->path, '/');
	f->name = slash ? slash + 1 : f->path;
	f->format = "unknown";
	f->role = QA_FILE_OTHER;
	return f;
}

struct qa_tensor *
qa_inv_add_tensor(struct qa_inventory *inv)
{
	struct qa_tensor *t;

	t = push(inv, (void **)&inv->tensors, &inv->n_tensors,
		 &inv->cap_tensors, sizeof(*t));
	if (t) {
		t->layer = -1;
		t->ggml_type = -1;
	}
	return t;
}

struct qa_kv *
qa_inv_add_kv(struct qa_inventory *inv)
{
	return push(inv, (void **)&inv->kvs, &inv->n_kvs, &inv->cap_kvs,
		    sizeof(struct qa_kv));
}

struct qa_template *
qa_inv_add_template(struct qa_inventory *inv)
{
	struct qa_template *t = push(inv, (void **)&inv->templates,
				     &inv->n_templates, &inv->cap_templates,
				     sizeof(struct qa_template));

	if (t)
		t->offset = -1;
	return t;
}

/* Findings beyond this are counted but not stored: a hostile file with a
 * million bad tensors must not turn into a million-line report. */
#define MAX_FINDINGS 10000

static void add_finding(struct qa_inventory *inv, const struct qa_rule *rule,
			const char *file, int64_t offset, const char *tensor,
			const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

static void
add_finding(struct qa_inventory *inv, const struct qa_rule *rule,
	    const char *file, int64_t offset, const char *tensor,
	    const char *fmt, va_list ap)
{
	struct qa_finding *f;
	char buf[1024];

	if (!rule || inv->n_findings >= MAX_FINDINGS)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	f = push(inv, (void **)&inv->findings, &inv->n_findings,
		 &inv->cap_findings, sizeof(*f));
	if (!f)
		return;
	f->rule = rule;
	f->severity = rule->severity;
	f->message = qa_arena_strdup(&inv->arena, buf);
	f->file = file ? qa_arena_strdup(&inv->arena, file) : NULL;
	f->offset = offset;
	f->tensor = tensor ? qa_arena_strdup(&inv->arena, tensor) : NULL;
	if (!f->message)
		inv->out_of_memory = true;
}

void
qa_inv_finding(struct qa_inventory *inv, unsigned code, const char *file,
	       int64_t offset, const char *tensor, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_finding(inv, qa_rule_find(code), file, offset, tensor, fmt, ap);
	va_end(ap);
}

void
qa_inv_finding_rule(struct qa_inventory *inv, const struct qa_rule *rule,
		    const char *file, int64_t offset, const char *tensor,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_finding(inv, rule, file, offset, tensor, fmt, ap);
	va_end(ap);
}

const struct qa_kv *
qa_inv_kv(const struct qa_inventory *inv, const char *key)
{
	uint32_t i;

	for (i = 0; i < inv->n_kvs; i++)
		if (strcmp(inv->kvs[i].key, key) == 0)
			return &inv->kvs[i];
	return NULL;
}

bool
qa_value_as_int(const struct qa_value *v, int64_t *out)
{
	switch (v->type) {
	case QA_V_U8:
	case QA_V_U16:
	case QA_V_U32:
	case QA_V_BOOL:
		*out = (int64_t)v->v.u;
		return true;
	case QA_V_U64:
		if (v->v.u > INT64_MAX)
			return false;
		*out = (int64_t)v->v.u;
		return true;
	case QA_V_I8:
	case QA_V_I16:
	case QA_V_I32:
	case QA_V_I64:
		*out = v->v.i;
		return true;
	default:
		return false;
	}
}

bool
qa_value_as_double(const struct qa_value *v, double *out)
{
	int64_t i;

	if (v->type == QA_V_F32 || v->type == QA_V_F64) {
		*out = v->v.f;
		return true;
	}
	if (qa_value_as_int(v, &i)) {
		*out = (double)i;
		return true;
	}
	return false;
}

const char *
qa_value_type_name(enum qa_value_type t)
{
	static const char *const names[] = {
		"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32",
		"FLOAT32", "BOOL", "STRING", "ARRAY", "UINT64", "INT64",
		"FLOAT64",
	};

	if ((unsigned)t < sizeof(names) / sizeof(names[0]))
		return names[t];
	return "?";
}

int
qa_inventory_worst(const struct qa_inventory *inv)
{
	int worst = -1;
	uint32_t i;

	for (i = 0; i < inv->n_findings; i++)
		if ((int)inv->findings[i].severity > worst)
			worst = (int)inv->findings[i].severity;
	return worst;
}

const char *
qa_verdict(const struct qa_inventory *inv, enum qa_severity fail_on)
{
	bool warn = false;
	uint32_t i;

	for (i = 0; i < inv->n_findings; i++) {
		enum qa_severity s = inv->findings[i].severity;

		if (fail_on != QA_SEV_NONE && s >= fail_on)
			return "fail";
		if (s == QA_SEV_WARNING || s == QA_SEV_ERROR)
			warn = true;
	}
	return warn ? "warn" : "pass";
}

static int
verdict_rank(const char *v)
{
	return strcmp(v, "fail") == 0 ? 2 : strcmp(v, "warn") == 0 ? 1 : 0;
}

const char *
qa_verdict_all(struct qa_inventory *const *invs, size_t n,
	       enum qa_severity fail_on)
{
	const char *worst = "pass";
	size_t i;

	for (i = 0; i < n; i++) {
		const char *v = invs[i]->verdict ? invs[i]->verdict :
				qa_verdict(invs[i], fail_on);

		if (verdict_rank(v) > verdict_rank(worst))
			worst = v;
	}
	return worst;
}

void
qa_inventory_apply_overrides(struct qa_inventory *inv,
			     const struct qa_overrides *ov)
{
	uint32_t i, k = 0;
	size_t j;

	if (!ov || ov->n == 0)
		return;
	for (i = 0; i < inv->n_findings; i++) {
		struct qa_finding f = inv->findings[i];
		bool drop = false;

		for (j = 0; j < ov->n; j++) {
			if (ov->items[j].code != f.rule->code)
				continue;
			drop = ov->items[j].disabled;
			if (!drop)
				f.severity = ov->items[j].severity;
		}
		if (!drop)
			inv->findings[k++] = f;
	}
	inv->n_findings = k;
}

const char *
qa_mtp_status_name(enum qa_mtp_status s)
{
	switch (s) {
	case QA_MTP_PRESENT:
		return "present";
	case QA_MTP_MISSING:
		return "missing";
	case QA_MTP_PARTIAL:
		return "partial";
	case QA_MTP_ABSENT:
		return "absent";
	case QA_MTP_NOT_APPLICABLE:
		break;
	}
	return "not-applicable";
}

/* ---- grouping repeated findings ----------------------------------------- */

/* The message with every run of digits replaced by '#': findings that
 * differ only in numbers (a layer, an expert, a count) are the same
 * finding repeated. */
static void
shape_of(const char *msg, char *out, size_t cap)
{
	size_t n = 0;

	for (; *msg && n + 1 < cap; msg++) {
		if (*msg >= '0' && *msg <= '9') {
			if (n == 0 || out[n - 1] != '#')
				out[n++] = '#';
			continue;
		}
		out[n++] = *msg;
	}
	out[n] = '\0';
}

static bool
same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The k-th run of digits of msg as a number; -1 when there is none or
 * it is too long. */
static long long
nth_number(const char *msg, int k)
{
	int i = -1;

	for (; *msg; msg++) {
		if (*msg < '0' || *msg > '9')
			continue;
		if (++i == k) {
			char *end;
			long long v = strtoll(msg, &end, 10);

			return end - msg > 15 ? -1 : v;
		}
		while (msg[1] >= '0' && msg[1] <= '9')
			msg++;
	}
	return -1;
}

static int
count_numbers(const char *msg)
{
	int n = 0;

	for (; *msg; msg++)
		if (*msg >= '0' && *msg <= '9' &&
		    !(msg[1] >= '0' && msg[1] <= '9'))
			n++;
	return n;
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* "3, 5-9, 12" of sorted distinct values, as much as fits. */
static void
ranges(char *buf, size_t cap, long long *v, size_t n)
{
	size_t i = 0, used = 0;

	buf[0] = '\0';
	while (i < n) {
		size_t j = i;
		int w;

		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		w = j > i ? snprintf(buf + used, cap - used, "%s%lld-%lld",
				     used ? ", " : "", v[i], v[j]) :
			    snprintf(buf + used, cap - used, "%s%lld",
				     used ? ", " : "", v[i]);
		if (w < 0 || (size_t)w >= cap - used) {
			buf[used] = '\0';
			return;
		}
		used += (size_t)w;
		i = j + 1;
	}
}

void
qa_inventory_group_findings(struct qa_inventory *inv)
{
	uint32_t i, j, k = 0, nf = inv->n_findings;
	uint32_t *leader;
	char a[1024], b[1024];

	if (nf < 2)
		return;
	leader = malloc(sizeof(*leader) * nf);
	if (!leader)
		return;	/* ungrouped is still right */
	for (i = 0; i < nf; i++)
		leader[i] = UINT32_MAX;
	for (i = 0; i < nf; i++) {
		struct qa_finding *f = &inv->findings[i];
		uint32_t n = 1;
		int nums, diff = -1, p;
		long long *vals = NULL;
		size_t n_vals = 0;

		if (leader[i] != UINT32_MAX)
			continue;
		leader[i] = i;
		shape_of(f->message, a, sizeof(a));
		for (j = i + 1; j < nf; j++) {
			const struct qa_finding *g = &inv->findings[j];

			if (leader[j] != UINT32_MAX || g->rule != f->rule ||
			    g->severity != f->severity ||
			    !same_str(g->file, f->file))
				continue;
			shape_of(g->message, b, sizeof(b));
			if (strcmp(a, b) == 0) {
				leader[j] = i;
				n++;
			}
		}
		if (n == 1)
			continue;
		/* Which number varies: when exactly one does, list its
		 * values ("for 61-75"); else only the count. */
		nums = count_numbers(f->message);
		for (p = 0; p < nums && diff != -2; p++)
			for (j = i + 1; j < nf; j++)
				if (leader[j] == i &&
				    nth_number(inv->findings[j].message, p) !=
				    nth_number(f->message, p)) {
					diff = diff == -1 ? p : -2;
					break;
				}
		if (diff >= 0)
			vals = malloc(sizeof(*vals) * n);
		if (vals) {
			vals[n_vals++] = nth_number(f->message, diff);
			for (j = i + 1; j < nf; j++)
				if (leader[j] == i)
					vals[n_vals++] = nth_number(
						inv->findings[j].message, diff);
			qsort(vals, n_vals, sizeof(*vals), cmp_ll);
			ranges(b, sizeof(b), vals, n_vals);
			f->message = qa_arena_printf(&inv->arena,
				"%s (%u times, for %s)", f->message, n, b);
			free(vals);
		} else {
			f->message = qa_arena_printf(&inv->arena,
				"%s (and %u more like it)", f->message, n - 1);
		}
		if (!f->message)
			inv->out_of_memory = true;
		f->count = n;
	}
	for (i = 0; i < nf; i++)
		if (leader[i] == i)
			inv->findings[k++] = inv->findings[i];
	inv->n_findings = k;
	free(leader);
}
