/* SPDX-License-Identifier: MIT */
/*
 * Inventory storage (arena-backed growable arrays), findings, metadata
 * lookup. The derived summaries live in src/analysis/summary.c.
 */
#include "core/inventory.h"

#include "core/confine.h"

#include <errno.h>
#include <inttypes.h>
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

const char *
qa_inv_kind_name(enum qa_input_kind k)
{
	switch (k) {
	case QA_KIND_GGUF:
		return "gguf";
	case QA_KIND_SAFETENSORS:
		return "safetensors";
	case QA_KIND_HF_DIR:
		return "hf-dir";
	case QA_KIND_PYTORCH:
		return "pytorch";
	}
	return "unknown";
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

char *
qa_inv_join(struct qa_inventory *inv, const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p;

	if (n == 0)
		p = qa_arena_strdup(&inv->arena, name);
	else
		p = qa_arena_printf(&inv->arena, "%s%s%s", dir,
				    dir[n - 1] == '/' ? "" : "/", name);
	if (!p)
		inv->out_of_memory = true;
	return p;
}

int
qa_inv_list(const struct qa_inventory *inv, const char *dir,
	    struct qa_dirent **out, size_t *n)
{
	return inv->fs->list(inv->fs, dir, out, n);
}

void
qa_inv_link_out(struct qa_inventory *inv, const char *path)
{
	const char *base = strrchr(path, '/');
	char target[512];
	uint32_t i;

	for (i = 0; i < inv->n_findings; i++)
		if (inv->findings[i].rule->code == QA1411 &&
		    inv->findings[i].file &&
		    strcmp(inv->findings[i].file, path) == 0)
			return;
	if (!qa_fs_link_text(path, target, sizeof(target)))
		snprintf(target, sizeof(target), "?");
	qa_inv_finding(inv, QA1411, path, -1, NULL,
		       "%s points to '%s': the link was not followed and "
		       "nothing of its target was read (--follow-symlinks "
		       "follows links in folders you trust)",
		       base ? base + 1 : path, target);
}

/* Whether path already has a QA1412 finding. */
static bool
has_unreadable(const struct qa_inventory *inv, const char *path)
{
	uint32_t i;

	for (i = 0; i < inv->n_findings; i++)
		if (inv->findings[i].rule->code == QA1412 &&
		    inv->findings[i].file &&
		    strcmp(inv->findings[i].file, path) == 0)
			return true;
	return false;
}

bool
qa_inv_not_read(struct qa_inventory *inv, const char *path, const char *what)
{
	const char *base = strrchr(path, '/');

	if (!what)
		return false;
	if (strcmp(what, QA_LINK_OUT_WHAT) == 0) {
		qa_inv_link_out(inv, path);
		return true;
	}
	if (strcmp(what, QA_UNREADABLE_WHAT) != 0)
		return false;
	if (has_unreadable(inv, path))
		return true;
	qa_inv_finding(inv, QA1412, path, -1, NULL,
		       "%s cannot be read: permission denied (its permission "
		       "bits, which came with the download, forbid it); it "
		       "was not read", base ? base + 1 : path);
	return true;
}

void
qa_inv_read_failed(struct qa_inventory *inv, const char *path,
		   const struct qa_source *src)
{
	const char *said = inv->fs->why ? inv->fs->why(inv->fs) : NULL;
	struct qa_read_failure f;
	char why[800];

	if (has_unreadable(inv, path))
		return;
	if (said) {
		size_t n = strlen(path);

		/* "URL: HTTP 500 from the server": the finding names it */
		if (strncmp(said, path, n) == 0 && said[n] == ':' &&
		    said[n + 1] == ' ')
			said += n + 2;
		snprintf(why, sizeof(why), "%s", said);
	} else if (qa_read_failure_last(&f) && strcmp(f.path, path) == 0)
		qa_read_failure_why(&f, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "%s",
			 strerror(src->err ? src->err : EIO));
	qa_inv_finding(inv, QA1412, path, -1, NULL,
		       "%s could not be read (%s); what needs it was not "
		       "checked", qa_path_base(path), why);
	inv->read_failed = true;
}

void
qa_inventory_destroy(struct qa_inventory *inv)
{
	if (!inv)
		return;
	if (inv->release_members)
		inv->release_members(inv->members_ctx);
	free(inv->tally);
	free(inv->kv_index);
	qa_big_free(inv->tensors,
		    (size_t)inv->cap_tensors * sizeof(*inv->tensors));
	qa_arena_finish(&inv->arena);
	free(inv);
}

/*
 * The tensor table is the one array that grows to megabytes (144 bytes a
 * tensor, 100k tensors in MoE and GPTQ checkpoints) and grows shard by
 * shard: it lives outside the arena (qa_big_realloc: mremap moves the
 * pages, nothing is copied), so a grown table leaves no old copy behind.
 * An arena-backed array keeps every size it outgrew until the end of the
 * run: 16 + 8 + 4 MiB for a 100k-tensor folder of 8 shards.
 */
static void *
grow(struct qa_inventory *inv, void **arr, uint32_t n, uint64_t ncap,
     uint32_t cap, size_t sz)
{
	if (arr != (void **)&inv->tensors)
		return qa_arena_grow(&inv->arena, *arr, n, (size_t)ncap, sz);
	if (ncap > SIZE_MAX / sz)
		return NULL;
	return qa_big_realloc(*arr, (size_t)cap * sz, (size_t)ncap * sz);
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
		na = grow(inv, arr, *n, ncap, *cap, sz);
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

/* Room for `more` elements past *n in an arena-backed array. */
static bool
reserve(struct qa_inventory *inv, void **arr, uint32_t n, uint32_t *cap,
	uint64_t more, size_t sz)
{
	uint64_t want = (uint64_t)n + more, ncap;
	void *na;

	if (want <= *cap)
		return true;
	ncap = (uint64_t)*cap * 2 > want ? (uint64_t)*cap * 2 : want;
	if (ncap > UINT32_MAX) {
		inv->out_of_memory = true;
		return false;
	}
	na = grow(inv, arr, n, ncap, *cap, sz);
	if (!na) {
		inv->out_of_memory = true;
		return false;
	}
	*arr = na;
	*cap = (uint32_t)ncap;
	return true;
}

bool
qa_inv_reserve(struct qa_inventory *inv, uint64_t tensors, uint64_t kvs)
{
	return reserve(inv, (void **)&inv->tensors, inv->n_tensors,
		       &inv->cap_tensors, tensors, sizeof(struct qa_tensor)) &&
	       reserve(inv, (void **)&inv->kvs, inv->n_kvs, &inv->cap_kvs,
		       kvs, sizeof(struct qa_kv));
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

/* Whether ov disables rule, and the severity it gives it otherwise. */
static bool
override_of(const struct qa_overrides *ov, const struct qa_rule *rule,
	    enum qa_severity *sev)
{
	bool disabled = false;
	size_t j;

	*sev = rule->severity;
	for (j = 0; ov && j < ov->n; j++) {
		if (ov->items[j].code != rule->code)
			continue;
		/* the last word on a rule wins */
		disabled = ov->items[j].disabled;
		if (!disabled)
			*sev = ov->items[j].severity;
	}
	return disabled;
}

/*
 * The tally of rule, added when it is new; NULL when out of memory. The
 * tally lives outside the arena so that a full arena (a hostile header
 * at the inventory limit) still counts every finding.
 */
static struct qa_rule_tally *
tally_of(struct qa_inventory *inv, const struct qa_rule *rule)
{
	struct qa_rule_tally *t;
	uint32_t i;

	if (inv->last_tally < inv->n_tally &&
	    inv->tally[inv->last_tally].rule == rule)
		return &inv->tally[inv->last_tally];
	for (i = 0; i < inv->n_tally; i++)
		if (inv->tally[i].rule == rule) {
			inv->last_tally = i;
			return &inv->tally[i];
		}
	if (inv->n_tally == inv->cap_tally) {
		uint32_t ncap = inv->cap_tally ? 2 * inv->cap_tally : 32;
		void *nt = realloc(inv->tally, ncap * sizeof(*inv->tally));

		if (!nt)
			return NULL;
		inv->tally = nt;
		inv->cap_tally = ncap;
	}
	t = &inv->tally[inv->n_tally];
	memset(t, 0, sizeof(*t));
	t->rule = rule;
	t->disabled = override_of(inv->overrides, rule, &t->severity);
	inv->last_tally = inv->n_tally++;
	return t;
}

static void add_finding(struct qa_inventory *inv, const struct qa_rule *rule,
			const char *file, int64_t offset, const char *tensor,
			const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

static void
add_finding(struct qa_inventory *inv, const struct qa_rule *rule,
	    const char *file, int64_t offset, const char *tensor,
	    const char *fmt, va_list ap)
{
	struct qa_rule_tally *t;
	struct qa_finding *f;
	char buf[1024];

	if (!rule)
		return;
	t = tally_of(inv, rule);
	if (!t) {
		inv->out_of_memory = true;
		return;
	}
	if (t->disabled)
		return;
	if (t->stored > 0 && (t->stored >= QA_FINDINGS_PER_RULE ||
			      inv->n_findings >= QA_FINDINGS_MAX)) {
		t->dropped++;
		return;
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	f = push(inv, (void **)&inv->findings, &inv->n_findings,
		 &inv->cap_findings, sizeof(*f));
	if (!f) {
		/* the arena said no: still counted */
		t->dropped++;
		return;
	}
	t->stored++;
	f->rule = rule;
	f->severity = rule->severity;
	f->message = qa_arena_strdup(&inv->arena, buf);
	f->file = file ? qa_arena_strdup(&inv->arena, file) : NULL;
	f->offset = offset;
	f->tensor = tensor ? qa_arena_strdup(&inv->arena, tensor) : NULL;
	if (!f->message) {
		/* keep the finding, without its detail */
		f->message = "";
		inv->out_of_memory = true;
	}
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

void
qa_inv_drop_last_kv(struct qa_inventory *inv)
{
	if (inv->n_kvs == 0)
		return;
	inv->n_kvs--;
	inv->kv_index_of = NULL;	/* the slot will be reused */
}

struct qa_kv_ref {
	const char *key;
	uint32_t idx;
};

static int
cmp_kv_ref(const void *a, const void *b)
{
	const struct qa_kv_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts the keys once (O(n log n), whatever they are: no hash to flood);
 * false when out of memory (lookups then scan). */
static bool
kv_index_build(struct qa_inventory *inv)
{
	struct qa_kv_ref *v;
	uint32_t i;

	if (inv->kv_index && inv->kv_index_of == inv->kvs &&
	    inv->n_kv_index == inv->n_kvs)
		return true;
	v = realloc(inv->kv_index, (inv->n_kvs ? inv->n_kvs : 1) *
		    sizeof(*v));
	if (!v)
		return false;
	for (i = 0; i < inv->n_kvs; i++) {
		v[i].key = inv->kvs[i].key ? inv->kvs[i].key : "";
		v[i].idx = i;
	}
	qsort(v, inv->n_kvs, sizeof(*v), cmp_kv_ref);
	inv->kv_index = v;
	inv->n_kv_index = inv->n_kvs;
	inv->kv_index_of = inv->kvs;
	return true;
}

/*
 * The first key/value named key, as a scan in file order finds it. The
 * index is a cache of the inventory, rebuilt after kvs change; the
 * inventory is not shared between threads.
 */
const struct qa_kv *
qa_inv_kv(const struct qa_inventory *inv, const char *key)
{
	struct qa_inventory *cache = (struct qa_inventory *)inv;
	uint32_t lo = 0, hi, i;

	/* A handful of keys: a scan is as fast as the index. */
	if (inv->n_kvs <= 8 || !kv_index_build(cache)) {
		for (i = 0; i < inv->n_kvs; i++)
			if (inv->kvs[i].key && strcmp(inv->kvs[i].key, key) == 0)
				return &inv->kvs[i];
		return NULL;
	}
	/* The first entry not below key; equal keys sort by position. */
	hi = inv->n_kv_index;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (strcmp(inv->kv_index[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < inv->n_kv_index && strcmp(inv->kv_index[lo].key, key) == 0)
		return &inv->kvs[inv->kv_index[lo].idx];
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
	_Static_assert(sizeof(names) / sizeof(names[0]) == QA_V_COUNT,
		       "one name per GGUF value type");

	if ((unsigned)t < sizeof(names) / sizeof(names[0]))
		return names[t];
	return "?";
}

uint64_t
qa_inventory_dropped(const struct qa_inventory *inv,
		     uint64_t out[QA_SEV_NONE])
{
	uint64_t total = 0;
	uint32_t i;

	if (out)
		memset(out, 0, QA_SEV_NONE * sizeof(*out));
	for (i = 0; i < inv->n_tally; i++) {
		const struct qa_rule_tally *t = &inv->tally[i];

		if (t->disabled || t->dropped == 0 ||
		    (unsigned)t->severity >= QA_SEV_NONE)
			continue;
		if (out)
			out[t->severity] += t->dropped;
		total += t->dropped;
	}
	return total;
}

static int
cmp_tally(const void *a, const void *b)
{
	const struct qa_rule_tally *x = *(const struct qa_rule_tally *const *)a;
	const struct qa_rule_tally *y = *(const struct qa_rule_tally *const *)b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (x->dropped != y->dropped)
		return x->dropped > y->dropped ? -1 : 1;
	return (x->rule->code > y->rule->code) -
	       (x->rule->code < y->rule->code);
}

/* Appends to buf (cap bytes, NUL-terminated) what fits. */
static void
append(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
append(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= cap)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
}

static const char *
sev_plural(enum qa_severity s, uint64_t n)
{
	if (s == QA_SEV_ERROR)
		return n == 1 ? "error" : "errors";
	if (s == QA_SEV_WARNING)
		return n == 1 ? "warning" : "warnings";
	return "info";
}

char *
qa_inventory_dropped_text(const struct qa_inventory *inv, char *buf,
			  size_t cap)
{
	const struct qa_rule_tally *order[8];
	uint64_t by[QA_SEV_NONE], total;
	size_t n = 0, i, rest = 0;
	uint32_t k;
	int s;
	bool first = true;

	if (cap == 0)
		return buf;
	buf[0] = '\0';
	total = qa_inventory_dropped(inv, by);
	if (total == 0)
		return buf;
	append(buf, cap, "%" PRIu64 " more finding%s %s found but not listed "
	       "(", total, total == 1 ? "" : "s", total == 1 ? "was" : "were");
	for (s = QA_SEV_ERROR; s >= QA_SEV_INFO; s--) {
		if (!by[s])
			continue;
		append(buf, cap, "%s%" PRIu64 " %s", first ? "" : ", ", by[s],
		       sev_plural((enum qa_severity)s, by[s]));
		first = false;
	}
	append(buf, cap, "; at most %d findings of a rule and %d in all are "
	       "kept): ", QA_FINDINGS_PER_RULE, QA_FINDINGS_MAX);
	/* The eight rules that dropped the most, worst severity first. */
	for (k = 0; k < inv->n_tally; k++) {
		const struct qa_rule_tally *t = &inv->tally[k];

		if (t->disabled || t->dropped == 0 ||
		    (unsigned)t->severity >= QA_SEV_NONE)
			continue;
		if (n < sizeof(order) / sizeof(order[0])) {
			order[n++] = t;
			qsort(order, n, sizeof(order[0]), cmp_tally);
		} else if (cmp_tally(&t, &order[n - 1]) < 0) {
			order[n - 1] = t;
			qsort(order, n, sizeof(order[0]), cmp_tally);
			rest++;
		} else {
			rest++;
		}
	}
	for (i = 0; i < n; i++)
		append(buf, cap, "%sQA%04u %s %" PRIu64 " %s", i ? ", " : "",
		       (unsigned)order[i]->rule->code, order[i]->rule->id,
		       order[i]->dropped,
		       sev_plural(order[i]->severity, order[i]->dropped));
	if (rest)
		append(buf, cap, " and %zu more rule%s", rest,
		       rest == 1 ? "" : "s");
	return buf;
}

void
qa_inventory_merge_findings(struct qa_inventory *dst,
			    const struct qa_inventory *src)
{
	uint32_t i;

	for (i = 0; i < src->n_findings; i++) {
		const struct qa_finding *x = &src->findings[i];

		qa_inv_finding_rule(dst, x->rule, x->file, x->offset,
				    x->tensor, "%s", x->message);
	}
	for (i = 0; i < src->n_tally; i++) {
		const struct qa_rule_tally *x = &src->tally[i];
		struct qa_rule_tally *t;

		if (x->dropped == 0)
			continue;
		t = tally_of(dst, x->rule);
		if (!t) {
			dst->out_of_memory = true;
			return;
		}
		if (!t->disabled)
			t->dropped += x->dropped;
	}
}

/* Room granted once past the arena limit, for the finding that says so
 * and the summaries and checks of what was read. */
#define LIMIT_RESERVE ((size_t)64 << 20)

bool
qa_inventory_limit_finding(struct qa_inventory *inv, const char *when)
{
	if (!inv->arena.hit_limit)
		return false;
	if (!inv->limit_reserve &&
	    inv->arena.limit <= SIZE_MAX - LIMIT_RESERVE) {
		inv->arena.limit += LIMIT_RESERVE;
		inv->limit_reserve = true;
	}
	inv->arena.hit_limit = false;
	inv->out_of_memory = false;
	qa_inv_finding(inv, QA1901, NULL, -1, NULL, "the inventory reached "
		       "its limit of %zu MiB while %s: the report covers what "
		       "was read before it",
		       (size_t)(QA_ARENA_DEFAULT_LIMIT >> 20), when);
	inv->out_of_memory = false;
	return true;
}

int
qa_inventory_worst(const struct qa_inventory *inv)
{
	uint64_t by[QA_SEV_NONE];
	int worst = -1, s;
	uint32_t i;

	for (i = 0; i < inv->n_findings; i++)
		if ((int)inv->findings[i].severity > worst)
			worst = (int)inv->findings[i].severity;
	qa_inventory_dropped(inv, by);
	for (s = QA_SEV_INFO; s < QA_SEV_NONE; s++)
		if (by[s] && s > worst)
			worst = s;
	return worst;
}

const char *
qa_verdict(const struct qa_inventory *inv, enum qa_severity fail_on)
{
	int worst = qa_inventory_worst(inv);

	if (fail_on != QA_SEV_NONE && worst >= (int)fail_on)
		return "fail";
	return worst >= QA_SEV_WARNING ? "warn" : "pass";
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
	for (i = 0; i < inv->n_tally; i++) {
		struct qa_rule_tally *t = &inv->tally[i];

		if (override_of(ov, t->rule, &t->severity))
			t->disabled = true;
	}
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

/* Where the k-th run of digits of msg starts; NULL when there is none. */
static const char *
nth_number_at(const char *msg, int k)
{
	int i = -1;

	for (; *msg; msg++) {
		if (*msg < '0' || *msg > '9')
			continue;
		if (++i == k)
			return msg;
		while (msg[1] >= '0' && msg[1] <= '9')
			msg++;
	}
	return NULL;
}

/* A number that indexes a layer, a block or an expert ("blk.3",
 * "layers.12", "layer 7", "experts.5"): a run of them reads as a range.
 * Any other number (a file's part, a count) is part of a name. */
static bool
index_like(const char *msg, const char *num)
{
	static const char *const before[] = {
		"blk.", "layers.", "layer ", "layers ", "experts.", "expert ",
		"block ", "blocks ", "mtp_layers.", "h.",
	};
	size_t i, n, at = (size_t)(num - msg);

	for (i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
		n = strlen(before[i]);
		if (at >= n && memcmp(num - n, before[i], n) == 0)
			return true;
	}
	return false;
}

/* The word of msg around p (spaces delimit it; quotes, brackets and
 * punctuation are trimmed), as *start and *len. */
static void
word_around(const char *msg, const char *p, const char **start, size_t *len)
{
	const char *a = p, *b = p;
	static const char trim[] = "'\"`,;:()[]";

	while (a > msg && a[-1] != ' ')
		a--;
	while (*b && *b != ' ')
		b++;
	while (a < b && strchr(trim, *a))
		a++;
	while (b > a && strchr(trim, b[-1]))
		b--;
	/* a sentence's full stop, not a file's extension */
	if (b > a && b[-1] == '.' && (!*b || *b == ' '))
		b--;
	*start = a;
	*len = (size_t)(b - a);
}

/* The first word where a and b differ (they have the same shape, so the
 * same words): a's, or NULL when they are equal. */
static const char *
first_differing_word(const char *a, const char *b, size_t *len)
{
	const char *p = a, *start;

	while (*p && *p == *b) {
		p++;
		b++;
	}
	if (!*p && !*b)
		return NULL;
	if (!*p && p > a)
		p--;
	word_around(a, p, &start, len);
	return start;
}

/* Appends "s" to buf (cap bytes) as one more item of a list of at most
 * `most` items; counts the rest in *more. Items already listed are not
 * repeated. */
static void
list_add(char *buf, size_t cap, size_t *items, size_t most, size_t *more,
	 const char *s, size_t n)
{
	size_t used = strlen(buf);
	const char *p = buf;

	if (n == 0)
		return;
	/* already listed? items are separated by ", " */
	while (*p) {
		const char *e = strstr(p, ", ");
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && memcmp(p, s, n) == 0)
			return;
		if (!e)
			break;
		p = e + 2;
	}
	if (*items >= most || used + n + 3 > cap) {
		(*more)++;
		return;
	}
	if (used) {
		memcpy(buf + used, ", ", 2);
		used += 2;
	}
	memcpy(buf + used, s, n);
	buf[used + n] = '\0';
	(*items)++;
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

/*
 * What tells the findings of group `lead` apart, listed in buf: their
 * tensors when those differ, else the word around the number that varies
 * (position diff), else the first word that differs. At most 4 items;
 * the rest are counted in *more.
 */
static void
list_names(const struct qa_inventory *inv, uint32_t lead,
	   const uint32_t *leader, int diff, char *buf, size_t cap,
	   size_t *items, size_t *more)
{
	const struct qa_finding *f = &inv->findings[lead];
	const char *other = NULL, *w;
	bool by_tensor = false;
	uint32_t j;
	size_t len;

	buf[0] = '\0';
	for (j = lead + 1; j < inv->n_findings; j++) {
		if (leader[j] != lead)
			continue;
		if (!other)
			other = inv->findings[j].message;
		if (!same_str(inv->findings[j].tensor, f->tensor))
			by_tensor = true;
	}
	for (j = lead; j < inv->n_findings; j++) {
		const struct qa_finding *g = &inv->findings[j];

		if (leader[j] != lead)
			continue;
		if (by_tensor) {
			if (g->tensor)
				list_add(buf, cap, items, 4, more, g->tensor,
					 strlen(g->tensor));
			continue;
		}
		if (diff >= 0) {
			const char *at = nth_number_at(g->message, diff);

			if (!at)
				continue;
			word_around(g->message, at, &w, &len);
		} else {
			w = first_differing_word(g->message, j == lead ?
						 other : f->message, &len);
			if (!w)
				continue;
		}
		list_add(buf, cap, items, 4, more, w, len);
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
		size_t n_vals = 0, listed = 0, more = 0;
		const char *num;

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
		num = diff >= 0 ? nth_number_at(f->message, diff) : NULL;
		if (num && index_like(f->message, num))
			vals = malloc(sizeof(*vals) * n);
		if (!vals)
			list_names(inv, i, leader, num ? diff : -1, b,
				   sizeof(b), &listed, &more);
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
		} else if (listed) {
			char rest[32] = "";

			if (more)
				snprintf(rest, sizeof(rest), " and %zu more",
					 more);
			f->message = qa_arena_printf(&inv->arena,
				"%s (%u times: %s%s)", f->message, n, b, rest);
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
