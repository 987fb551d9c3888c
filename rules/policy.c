/* SPDX-License-Identifier: MIT */
/*
 * User policy files (docs/policy.md): a JSON document of declarative rules
 * that select tensors (by role, role group, name regex, layer range, dtype,
 * MTP membership) and require things of them (dtype set, bits per weight,
 * count, bytes, parameters), or require things of the whole model (MTP
 * status, file size, architecture, declared file type, overall bits per
 * weight, metadata keys), plus severity overrides for any rule.
 *
 * Loading validates the whole file up front and names the JSON path of the
 * first problem, so a broken policy is a usage error before any model is
 * read; evaluation then cannot fail. Everything a policy owns (rules,
 * strings, lists) lives in one arena; compiled regexes are the only
 * separately freed objects.
 */
#define _POSIX_C_SOURCE 200809L

#include "rules/policy.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/json_file.h"
#include "core/units.h"
#include "core/dtypes.h"

#define POLICY_SCHEMA "quantaudit-policy/1"
#define POLICY_MAX_BYTES ((size_t)1 << 20)
#define POLICY_MAX_RULES 1000
#define POLICY_MAX_LIST 256		/* entries of any list */
#define POLICY_MAX_OVERRIDES 256	/* = capacity of struct qa_overrides */
#define POLICY_MAX_ID 64
#define POLICY_MAX_TEXT 4096		/* message, doc, regex, metadata key */
#define USER_CODE_MIN 9000
#define USER_CODE_MAX 9999

/* ---- the compiled policy ------------------------------------------------ */

/* A size or count limit; text keeps the spelling for messages. */
struct limit {
	bool set;
	uint64_t value;
	const char *text;
};

/* A bits-per-weight bound; text is the dtype name when given as one. */
struct bits_limit {
	bool set;
	double value;
	const char *text;
};

struct name_list {
	const char **items;
	size_t n;
};

struct selector {
	bool roles_set;
	bool role[QA_ROLE_COUNT];
	bool role_mtp;			/* the "mtp" group: t->mtp */
	bool name_set;			/* re is compiled */
	regex_t name_re;
	bool layers_set;
	int64_t layer_from, layer_to;
	struct name_list dtypes;	/* empty: any dtype */
	int mtp;			/* -1 any, 0 not MTP, 1 MTP only */
};

enum pv_type { PV_STRING, PV_NUMBER, PV_BOOL };

struct pol_value {
	enum pv_type type;
	const char *s;
	double num;
	bool b;
};

struct meta_pred {
	const char *key;
	int exists;			/* -1 not given, else 0/1 */
	bool equals_set;
	struct pol_value equals;
	bool matches_set;		/* re is compiled */
	regex_t re;
	const char *matches_text;
	struct pol_value *in;
	size_t n_in;
	bool min_set, max_set;
	double min, max;
};

struct pol_rule {
	struct selector sel;
	/* tensor predicates */
	bool tensor_preds;		/* any of the below is set */
	struct name_list dtype_in, dtype_not_in;
	struct bits_limit min_bits, max_bits;
	int64_t count_min, count_max;	/* -1 unset */
	int exists;			/* -1 unset */
	struct limit bytes_min, bytes_max, params_min, params_max;
	/* model predicates */
	unsigned mtp_status_mask;	/* bit per enum qa_mtp_status; 0 unset */
	int mtp_loadable;		/* -1 unset */
	struct limit file_bytes_min, file_bytes_max;
	struct name_list arch_in, file_type_in;
	struct bits_limit min_model_bits, max_model_bits;
	struct meta_pred *meta;
	size_t n_meta;
};

struct override_entry {
	const char *name;
	const char *severity;		/* error|warning|info|off */
};

struct qa_policy {
	struct qa_arena arena;
	struct qa_rule *rules;
	struct pol_rule *prs;
	size_t n_rules;
	struct override_entry *overrides;
	size_t n_overrides;
};

/* ---- load context: the JSON path and the error message ------------------ */

struct ctx {
	struct qa_policy *p;
	const char *file;
	char *err;
	size_t errlen;
	char path[256];
	size_t path_len;
};

static int
fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: %s: %s", c->file, c->path, msg);
	return -1;
}

static void
path_set_len(struct ctx *c, size_t len)
{
	c->path_len = len;
	c->path[len] = '\0';
}

static void
path_append(struct ctx *c, const char *s)
{
	size_t k = strlen(s);

	/* A path this deep is already unambiguous; keep what fits. */
	if (c->path_len + k >= sizeof(c->path))
		k = sizeof(c->path) - 1 - c->path_len;
	memcpy(c->path + c->path_len, s, k);
	path_set_len(c, c->path_len + k);
}

/*
 * A user string made safe for a one-line message: control bytes become
 * '?', and long strings are cut to 60 bytes with "...".
 */
static const char *
shown(const char *s, char buf[72])
{
	size_t i, k = 0;

	for (i = 0; s[i] && k < 60; i++)
		buf[k++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ?
			   '?' : s[i];
	if (s[i]) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

/* Pushes ".key" (or ["key"] when the key is not a plain word); returns
 * the previous length for path_set_len. */
static size_t
push_key(struct ctx *c, const char *key)
{
	size_t old = c->path_len, i;
	bool plain = key[0] != '\0' && strlen(key) <= 64;
	char buf[72], seg[96];

	for (i = 0; plain && key[i]; i++)
		if (!isalnum((unsigned char)key[i]) && key[i] != '_' &&
		    key[i] != '-')
			plain = false;
	if (plain)
		snprintf(seg, sizeof(seg), ".%s", key);
	else
		snprintf(seg, sizeof(seg), "[\"%s\"]", shown(key, buf));
	path_append(c, seg);
	return old;
}

static size_t
push_index(struct ctx *c, size_t i)
{
	size_t old = c->path_len;
	char seg[32];

	snprintf(seg, sizeof(seg), "[%zu]", i);
	path_append(c, seg);
	return old;
}

static char *
dup_str(struct ctx *c, const char *s)
{
	char *r = qa_arena_strdup(&c->p->arena, s);

	if (!r)
		fail(c, "out of memory");
	return r;
}

/* ---- generic JSON checks ------------------------------------------------ */

static int
expect_type(struct ctx *c, const cJSON *it, int type, const char *what)
{
	if ((it->type & 0xff) & type)
		return 0;
	return fail(c, "expected %s", what);
}

static size_t
count_children(const cJSON *it)
{
	size_t n = 0;
	const cJSON *x;

	for (x = it->child; x; x = x->next)
		n++;
	return n;
}

/*
 * Rejects duplicate keys (cJSON keeps both and lookups would silently use
 * the first) and keys outside `allowed` (NULL: any key). `noun` names the
 * key kind in the message ("key", "selector", "predicate").
 */
static int
check_keys(struct ctx *c, const cJSON *obj, const char *const *allowed,
	   const char *noun)
{
	const cJSON *x, *y;
	size_t i, old;

	for (x = obj->child; x; x = x->next) {
		old = push_key(c, x->string);
		for (y = obj->child; y != x; y = y->next)
			if (strcmp(x->string, y->string) == 0)
				return fail(c, "duplicate key");
		if (allowed) {
			char list[512];
			size_t len = 0;

			for (i = 0; allowed[i]; i++)
				if (strcmp(x->string, allowed[i]) == 0)
					break;
			if (allowed[i]) {
				path_set_len(c, old);
				continue;
			}
			list[0] = '\0';
			for (i = 0; allowed[i] && len < sizeof(list); i++)
				len += (size_t)snprintf(list + len,
							sizeof(list) - len,
							"%s%s", i ? ", " : "",
							allowed[i]);
			return fail(c, "unknown %s (expected one of %s)", noun,
				    list);
		}
		path_set_len(c, old);
	}
	return 0;
}

static int
require_key(struct ctx *c, const cJSON *obj, const char *key,
	    const cJSON **out)
{
	*out = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!*out)
		return fail(c, "missing key \"%s\"", key);
	return 0;
}

static int
get_string(struct ctx *c, const cJSON *it, size_t max, const char **out)
{
	if (!cJSON_IsString(it) || !it->valuestring)
		return fail(c, "expected a string");
	if (it->valuestring[0] == '\0')
		return fail(c, "expected a non-empty string");
	if (strlen(it->valuestring) > max)
		return fail(c, "longer than %zu bytes", max);
	*out = dup_str(c, it->valuestring);
	return *out ? 0 : -1;
}

static bool
is_integer(const cJSON *it, double max)
{
	double v = it->valuedouble;

	return cJSON_IsNumber(it) && isfinite(v) && v >= 0 && v <= max &&
	       qa_floor(v) == v;
}

static int
get_count(struct ctx *c, const cJSON *it, int64_t *out)
{
	if (!is_integer(it, 4294967295.0))
		return fail(c, "expected a non-negative integer");
	*out = (int64_t)it->valuedouble;
	return 0;
}

static int
get_bool(struct ctx *c, const cJSON *it, int *out)
{
	if (!cJSON_IsBool(it))
		return fail(c, "expected true or false");
	*out = cJSON_IsTrue(it) ? 1 : 0;
	return 0;
}

static int
get_regex(struct ctx *c, const cJSON *it, regex_t *re, bool *compiled,
	  const char **text)
{
	char msg[160], buf[72];
	int rc;

	if (get_string(c, it, POLICY_MAX_TEXT, text) != 0)
		return -1;
	rc = regcomp(re, *text, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		regerror(rc, re, msg, sizeof(msg));
		return fail(c, "invalid regular expression '%s': %s",
			    shown(*text, buf), msg);
	}
	*compiled = true;
	return 0;
}

/* ---- names: dtypes, roles, statuses, file types ------------------------- */

/* Canonical spelling of a dtype name, or NULL when it is none. */
static const char *
dtype_canonical(const char *name)
{
	const struct qa_ggml_type *g = qa_ggml_type_by_name(name);
	const struct qa_st_dtype *s;

	if (g)
		return g->name;
	s = qa_st_dtype(name);
	return s ? s->name : NULL;
}

/* Nominal bits per weight of a dtype name; false when it has no size
 * (unknown, or a removed ggml id). */
static bool
dtype_bits(const char *name, double *bits)
{
	const struct qa_ggml_type *g = qa_ggml_type_by_name(name);
	const struct qa_st_dtype *s;

	if (g && g->block) {
		*bits = (double)g->block_bytes * 8.0 / (double)g->block;
		return true;
	}
	s = qa_st_dtype(name);
	if (s) {
		*bits = s->bits;
		return true;
	}
	return false;
}

static const char *
ftype_canonical(const char *label)
{
	int64_t i;

	/* llama_ftype values are small; 1024 and up is the GUESSED flag. */
	for (i = 0; i < 1024; i++) {
		const char *l = qa_llama_ftype_label(i);

		if (l && strcasecmp(l, label) == 0)
			return l;
	}
	return NULL;
}

static const enum qa_mtp_status mtp_statuses[] = {
	QA_MTP_PRESENT, QA_MTP_MISSING, QA_MTP_PARTIAL, QA_MTP_ABSENT,
	QA_MTP_NOT_APPLICABLE,
};

#define N_MTP_STATUSES (sizeof(mtp_statuses) / sizeof(mtp_statuses[0]))

/* Role groups: a name and the roles it covers; an entry ending in '_'
 * is a prefix of role names, any other entry a whole role name (so
 * "embed" does not take pos_embed or mtp_embed). */
static const struct {
	const char *name;
	const char *roles[3];
} role_groups[] = {
	{ "attention", { "attn_", "mla_", NULL } },
	{ "mlp", { "ffn_", NULL, NULL } },
	{ "experts", { "expert_", NULL, NULL } },
	{ "shared_experts", { "shared_expert_", NULL, NULL } },
	{ "embeddings", { "embed", "lm_head", NULL } },
	{ "ssm", { "ssm_", "gdn_", NULL } },
	{ "vision", { "vision", "projector", NULL } },
	{ "mtp", { NULL, NULL, NULL } },	/* t->mtp, not a role */
};

#define GROUP_LIST "attention, mlp, experts, shared_experts, embeddings, " \
		   "mtp, ssm, vision"

static bool
group_has_role(size_t g, const char *role)
{
	size_t k, n;

	for (k = 0; k < 3 && role_groups[g].roles[k]; k++) {
		const char *e = role_groups[g].roles[k];

		n = strlen(e);
		if (e[n - 1] == '_' ? strncmp(role, e, n) == 0 :
		    strcmp(role, e) == 0)
			return true;
	}
	return false;
}

/* Marks the roles a name stands for; false when it is neither a group
 * nor a role. Group names win over the role of the same name
 * ("vision"). */
static bool
select_role_name(struct selector *s, const char *name)
{
	size_t g;
	int r;

	for (g = 0; g < sizeof(role_groups) / sizeof(role_groups[0]); g++) {
		if (strcmp(name, role_groups[g].name) != 0)
			continue;
		if (strcmp(name, "mtp") == 0)
			s->role_mtp = true;
		for (r = 0; r < QA_ROLE_COUNT; r++)
			if (group_has_role(g, qa_role_name((enum qa_role)r)))
				s->role[r] = true;
		return true;
	}
	for (r = 0; r < QA_ROLE_COUNT; r++)
		if (strcmp(name, qa_role_name((enum qa_role)r)) == 0) {
			s->role[r] = true;
			return true;
		}
	return false;
}

/*
 * A non-empty array of strings, each checked by `canon` (NULL: any
 * string kept as is); `what` describes a bad entry.
 */
static int
get_names(struct ctx *c, const cJSON *it, const char *(*canon)(const char *),
	  const char *what, const char *hint, struct name_list *out)
{
	const cJSON *x;
	size_t n = count_children(it), i = 0, old;
	char buf[72];

	if (!cJSON_IsArray(it) || n == 0)
		return fail(c, "expected a non-empty array of strings");
	if (n > POLICY_MAX_LIST)
		return fail(c, "%zu entries, at most %d", n, POLICY_MAX_LIST);
	out->items = qa_arena_array(&c->p->arena, n, sizeof(*out->items));
	if (!out->items)
		return fail(c, "out of memory");
	for (x = it->child; x; x = x->next, i++) {
		const char *s;

		old = push_index(c, i);
		if (get_string(c, x, POLICY_MAX_TEXT, &s) != 0)
			return -1;
		if (canon) {
			const char *k = canon(s);

			if (!k)
				return fail(c, "unknown %s '%s' (%s)", what,
					    shown(s, buf), hint);
			s = k;
		}
		out->items[i] = s;
		path_set_len(c, old);
	}
	out->n = n;
	return 0;
}

#define DTYPE_HINT "a ggml type such as Q4_K or a safetensors dtype " \
		   "such as F8_E4M3"

/* ---- amounts: sizes and parameter counts -------------------------------- */

struct unit {
	const char *name;
	double mult;
};

static const struct unit byte_units[] = {
	{ "", 1 }, { "B", 1 },
	{ "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
	{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	{ "TiB", 1099511627776.0 },
	{ NULL, 0 },
};

static const struct unit param_units[] = {
	{ "", 1 }, { "K", 1e3 }, { "M", 1e6 }, { "B", 1e9 }, { "T", 1e12 },
	{ NULL, 0 },
};

/* A byte size or parameter count: a JSON number, or a string holding a
 * decimal number and an optional unit ("30GB", "1.5 GiB", "8B"). */
static int
get_amount(struct ctx *c, const cJSON *it, bool params, struct limit *out)
{
	const struct unit *u = params ? param_units : byte_units;
	const char *expl = params ?
		"a number of parameters, or a number with a unit: K M B T" :
		"a number of bytes, or a number with a unit: "
		"KB MB GB TB, KiB MiB GiB TiB";
	char buf[72];
	double v;

	if (cJSON_IsNumber(it)) {
		v = it->valuedouble;
		if (!isfinite(v) || v < 0 || v >= 18446744073709551616.0)
			return fail(c, "expected %s", expl);
		out->text = qa_arena_printf(&c->p->arena, "%.0f", qa_floor(v));
	} else if (cJSON_IsString(it) && it->valuestring) {
		const char *s = it->valuestring;
		char *end;

		/* strtod would also take hex ("0x1p4"); only decimal is
		 * documented. */
		if (!isdigit((unsigned char)s[0]) || strpbrk(s, "xX"))
			return fail(c, "bad amount '%s' (%s)", shown(s, buf),
				    expl);
		errno = 0;
		v = strtod(s, &end);
		while (*end == ' ')
			end++;
		for (; u->name; u++)
			if (strcasecmp(end, u->name) == 0)
				break;
		if (errno || !u->name || !isfinite(v * u->mult) ||
		    v * u->mult >= 18446744073709551616.0)
			return fail(c, "bad amount '%s' (%s)", shown(s, buf),
				    expl);
		v *= u->mult;
		out->text = dup_str(c, s);
	} else {
		return fail(c, "expected %s", expl);
	}
	if (!out->text)
		return fail(c, "out of memory");
	out->set = true;
	out->value = (uint64_t)v;
	return 0;
}

static int
get_bits(struct ctx *c, const cJSON *it, struct bits_limit *out)
{
	char buf[72];

	if (cJSON_IsNumber(it)) {
		double v = it->valuedouble;

		if (!isfinite(v) || v < 0 || v > 64)
			return fail(c, "expected a number of bits from 0 to "
				    "64, or a dtype name");
		out->value = v;
		out->text = qa_arena_printf(&c->p->arena, "%g", v);
	} else if (cJSON_IsString(it) && it->valuestring) {
		const char *k = dtype_canonical(it->valuestring);

		if (!k || !dtype_bits(k, &out->value))
			return fail(c, "unknown dtype '%s' (" DTYPE_HINT ")",
				    shown(it->valuestring, buf));
		out->text = qa_arena_printf(&c->p->arena, "%s (%g)", k,
					    out->value);
	} else {
		return fail(c, "expected a number of bits from 0 to 64, or a "
			    "dtype name");
	}
	if (!out->text)
		return fail(c, "out of memory");
	out->set = true;
	return 0;
}

/* ---- selectors ---------------------------------------------------------- */

static int
parse_roles(struct ctx *c, const cJSON *it, struct selector *s)
{
	const cJSON *x;
	size_t n, i = 0, old;
	char buf[72];

	if (cJSON_IsString(it)) {
		if (!select_role_name(s, it->valuestring))
			return fail(c, "unknown role '%s' (a tensor role such "
				    "as attn_q, or a group: " GROUP_LIST ")",
				    shown(it->valuestring, buf));
		s->roles_set = true;
		return 0;
	}
	n = count_children(it);
	if (!cJSON_IsArray(it) || n == 0)
		return fail(c, "expected a role name or a non-empty array of "
			    "role names");
	if (n > POLICY_MAX_LIST)
		return fail(c, "%zu entries, at most %d", n, POLICY_MAX_LIST);
	for (x = it->child; x; x = x->next, i++) {
		old = push_index(c, i);
		if (!cJSON_IsString(x))
			return fail(c, "expected a string");
		if (!select_role_name(s, x->valuestring))
			return fail(c, "unknown role '%s' (a tensor role such "
				    "as attn_q, or a group: " GROUP_LIST ")",
				    shown(x->valuestring, buf));
		path_set_len(c, old);
	}
	s->roles_set = true;
	return 0;
}

static int
parse_select(struct ctx *c, const cJSON *obj, struct selector *s)
{
	static const char *const keys[] = {
		"role", "name", "layers", "dtype", "mtp", NULL,
	};
	const cJSON *it;
	size_t old;

	if (expect_type(c, obj, cJSON_Object, "an object") != 0 ||
	    check_keys(c, obj, keys, "selector") != 0)
		return -1;
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "role"))) {
		old = push_key(c, "role");
		if (parse_roles(c, it, s) != 0)
			return -1;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "name"))) {
		const char *text;

		old = push_key(c, "name");
		if (get_regex(c, it, &s->name_re, &s->name_set, &text) != 0)
			return -1;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "layers"))) {
		old = push_key(c, "layers");
		if (!cJSON_IsArray(it) || count_children(it) != 2 ||
		    !is_integer(it->child, 2147483647.0) ||
		    !is_integer(it->child->next, 2147483647.0) ||
		    it->child->valuedouble > it->child->next->valuedouble)
			return fail(c, "expected [from, to]: block indexes "
				    "with 0 <= from <= to");
		s->layers_set = true;
		s->layer_from = (int64_t)it->child->valuedouble;
		s->layer_to = (int64_t)it->child->next->valuedouble;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "dtype"))) {
		old = push_key(c, "dtype");
		if (get_names(c, it, dtype_canonical, "dtype", DTYPE_HINT,
			      &s->dtypes) != 0)
			return -1;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "mtp"))) {
		old = push_key(c, "mtp");
		if (get_bool(c, it, &s->mtp) != 0)
			return -1;
		path_set_len(c, old);
	}
	return 0;
}

/* ---- predicates --------------------------------------------------------- */

static int
get_value(struct ctx *c, const cJSON *it, struct pol_value *v)
{
	if (cJSON_IsString(it)) {
		v->type = PV_STRING;
		v->s = dup_str(c, it->valuestring);
		return v->s ? 0 : -1;
	}
	if (cJSON_IsNumber(it) && isfinite(it->valuedouble)) {
		v->type = PV_NUMBER;
		v->num = it->valuedouble;
		return 0;
	}
	if (cJSON_IsBool(it)) {
		v->type = PV_BOOL;
		v->b = cJSON_IsTrue(it);
		return 0;
	}
	return fail(c, "expected a string, a number or a boolean");
}

static int
get_number(struct ctx *c, const cJSON *it, double *out)
{
	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
		return fail(c, "expected a number");
	*out = it->valuedouble;
	return 0;
}

static int
parse_meta_one(struct ctx *c, const cJSON *obj, struct meta_pred *m)
{
	static const char *const keys[] = {
		"key", "exists", "equals", "matches", "in", "min", "max",
		NULL,
	};
	const cJSON *it;
	size_t old, n_ops = 0;

	m->exists = -1;
	if (expect_type(c, obj, cJSON_Object, "an object") != 0 ||
	    check_keys(c, obj, keys, "key") != 0 ||
	    require_key(c, obj, "key", &it) != 0)
		return -1;
	old = push_key(c, "key");
	if (get_string(c, it, POLICY_MAX_TEXT, &m->key) != 0)
		return -1;
	path_set_len(c, old);
	for (it = obj->child; it; it = it->next) {
		const char *k = it->string;

		if (strcmp(k, "key") == 0)
			continue;
		n_ops++;
		old = push_key(c, k);
		if (strcmp(k, "exists") == 0) {
			if (get_bool(c, it, &m->exists) != 0)
				return -1;
		} else if (strcmp(k, "equals") == 0) {
			if (get_value(c, it, &m->equals) != 0)
				return -1;
			m->equals_set = true;
		} else if (strcmp(k, "matches") == 0) {
			if (get_regex(c, it, &m->re, &m->matches_set,
				      &m->matches_text) != 0)
				return -1;
		} else if (strcmp(k, "in") == 0) {
			const cJSON *x;
			size_t n = count_children(it), i = 0, o2;

			if (!cJSON_IsArray(it) || n == 0)
				return fail(c, "expected a non-empty array");
			if (n > POLICY_MAX_LIST)
				return fail(c, "%zu entries, at most %d", n,
					    POLICY_MAX_LIST);
			m->in = qa_arena_array(&c->p->arena, n,
					       sizeof(*m->in));
			if (!m->in)
				return fail(c, "out of memory");
			for (x = it->child; x; x = x->next, i++) {
				o2 = push_index(c, i);
				if (get_value(c, x, &m->in[i]) != 0)
					return -1;
				path_set_len(c, o2);
			}
			m->n_in = n;
		} else if (strcmp(k, "min") == 0) {
			if (get_number(c, it, &m->min) != 0)
				return -1;
			m->min_set = true;
		} else {
			if (get_number(c, it, &m->max) != 0)
				return -1;
			m->max_set = true;
		}
		path_set_len(c, old);
	}
	if (n_ops == 0)
		return fail(c, "no condition on \"%s\" (exists, equals, "
			    "matches, in, min or max)", m->key);
	if (m->exists >= 0 && n_ops > 1) {
		push_key(c, "exists");
		return fail(c, "cannot be combined with other conditions");
	}
	if (m->min_set && m->max_set && m->min > m->max)
		return fail(c, "min %g is above max %g", m->min, m->max);
	return 0;
}

static int
parse_meta(struct ctx *c, const cJSON *it, struct pol_rule *r)
{
	const cJSON *x;
	size_t n, i = 0, old;

	if (cJSON_IsObject(it)) {
		r->meta = qa_arena_alloc(&c->p->arena, sizeof(*r->meta));
		if (!r->meta)
			return fail(c, "out of memory");
		r->n_meta = 1;
		return parse_meta_one(c, it, r->meta);
	}
	n = count_children(it);
	if (!cJSON_IsArray(it) || n == 0)
		return fail(c, "expected an object or a non-empty array of "
			    "objects");
	if (n > POLICY_MAX_LIST)
		return fail(c, "%zu entries, at most %d", n, POLICY_MAX_LIST);
	r->meta = qa_arena_array(&c->p->arena, n, sizeof(*r->meta));
	if (!r->meta)
		return fail(c, "out of memory");
	/* Counted as they parse, so destroy frees exactly the regexes
	 * that were compiled. */
	for (x = it->child; x; x = x->next, i++) {
		old = push_index(c, i);
		r->n_meta = i + 1;
		if (parse_meta_one(c, x, &r->meta[i]) != 0)
			return -1;
		path_set_len(c, old);
	}
	return 0;
}

static unsigned
mtp_status_bit(const char *name)
{
	size_t i;

	for (i = 0; i < N_MTP_STATUSES; i++)
		if (strcmp(name, qa_mtp_status_name(mtp_statuses[i])) == 0)
			return 1u << mtp_statuses[i];
	return 0;
}

static int
parse_mtp_status(struct ctx *c, const cJSON *it, struct pol_rule *r)
{
	const cJSON *x;
	size_t n = count_children(it), i = 0, old;
	char buf[72];

	if (!cJSON_IsArray(it) || n == 0)
		return fail(c, "expected a non-empty array of MTP statuses");
	for (x = it->child; x; x = x->next, i++) {
		unsigned bit;

		old = push_index(c, i);
		if (!cJSON_IsString(x))
			return fail(c, "expected a string");
		bit = mtp_status_bit(x->valuestring);
		if (!bit)
			return fail(c, "unknown MTP status '%s' (present, "
				    "missing, partial, absent or "
				    "not-applicable)",
				    shown(x->valuestring, buf));
		r->mtp_status_mask |= bit;
		path_set_len(c, old);
	}
	return 0;
}

static const char *const tensor_pred_keys[] = {
	"dtype_in", "dtype_not_in", "min_bits", "max_bits", "count_min",
	"count_max", "exists", "bytes_min", "bytes_max", "params_min",
	"params_max", NULL,
};

static bool
is_tensor_pred(const char *k)
{
	size_t i;

	for (i = 0; tensor_pred_keys[i]; i++)
		if (strcmp(k, tensor_pred_keys[i]) == 0)
			return true;
	return false;
}

/* One predicate of "require"; the path already ends in its key. */
static int
parse_pred(struct ctx *c, const char *k, const cJSON *it, struct pol_rule *r)
{
	if (strcmp(k, "dtype_in") == 0)
		return get_names(c, it, dtype_canonical, "dtype", DTYPE_HINT,
				 &r->dtype_in);
	if (strcmp(k, "dtype_not_in") == 0)
		return get_names(c, it, dtype_canonical, "dtype", DTYPE_HINT,
				 &r->dtype_not_in);
	if (strcmp(k, "min_bits") == 0)
		return get_bits(c, it, &r->min_bits);
	if (strcmp(k, "max_bits") == 0)
		return get_bits(c, it, &r->max_bits);
	if (strcmp(k, "count_min") == 0)
		return get_count(c, it, &r->count_min);
	if (strcmp(k, "count_max") == 0)
		return get_count(c, it, &r->count_max);
	if (strcmp(k, "exists") == 0)
		return get_bool(c, it, &r->exists);
	if (strcmp(k, "bytes_min") == 0)
		return get_amount(c, it, false, &r->bytes_min);
	if (strcmp(k, "bytes_max") == 0)
		return get_amount(c, it, false, &r->bytes_max);
	if (strcmp(k, "params_min") == 0)
		return get_amount(c, it, true, &r->params_min);
	if (strcmp(k, "params_max") == 0)
		return get_amount(c, it, true, &r->params_max);
	if (strcmp(k, "mtp_status") == 0)
		return parse_mtp_status(c, it, r);
	if (strcmp(k, "mtp_loadable") == 0)
		return get_bool(c, it, &r->mtp_loadable);
	if (strcmp(k, "file_bytes_min") == 0)
		return get_amount(c, it, false, &r->file_bytes_min);
	if (strcmp(k, "file_bytes_max") == 0)
		return get_amount(c, it, false, &r->file_bytes_max);
	if (strcmp(k, "architecture_in") == 0)
		return get_names(c, it, NULL, NULL, NULL, &r->arch_in);
	if (strcmp(k, "file_type_in") == 0)
		return get_names(c, it, ftype_canonical, "file type",
				 "a GGUF file type label such as Q4_K_M",
				 &r->file_type_in);
	if (strcmp(k, "min_model_bits") == 0)
		return get_bits(c, it, &r->min_model_bits);
	if (strcmp(k, "max_model_bits") == 0)
		return get_bits(c, it, &r->max_model_bits);
	return parse_meta(c, it, r);	/* "metadata", the last allowed key */
}

/* Fails when a lower bound is above the upper one; the path is the
 * require object. */
static int
check_range(struct ctx *c, const char *lo_name, double lo, bool lo_set,
	    const char *hi_name, double hi, bool hi_set)
{
	if (lo_set && hi_set && lo > hi)
		return fail(c, "%s is above %s", lo_name, hi_name);
	return 0;
}

static int
parse_require(struct ctx *c, const cJSON *obj, struct pol_rule *r)
{
	static const char *const keys[] = {
		"dtype_in", "dtype_not_in", "min_bits", "max_bits",
		"count_min", "count_max", "exists", "bytes_min", "bytes_max",
		"params_min", "params_max", "mtp_status", "mtp_loadable",
		"file_bytes_min",
		"file_bytes_max", "architecture_in", "file_type_in",
		"min_model_bits", "max_model_bits", "metadata", NULL,
	};
	const cJSON *it;
	size_t old;

	if (expect_type(c, obj, cJSON_Object, "an object") != 0 ||
	    check_keys(c, obj, keys, "predicate") != 0)
		return -1;
	if (!obj->child)
		return fail(c, "no predicate (see docs/policy.md)");
	for (it = obj->child; it; it = it->next) {
		old = push_key(c, it->string);
		if (parse_pred(c, it->string, it, r) != 0)
			return -1;
		if (is_tensor_pred(it->string))
			r->tensor_preds = true;
		path_set_len(c, old);
	}
	if (r->exists >= 0 && (r->count_min >= 0 || r->count_max >= 0)) {
		push_key(c, "exists");
		return fail(c, "cannot be combined with count_min or "
			    "count_max");
	}
	if (r->count_min >= 0 && r->count_max >= 0 &&
	    r->count_min > r->count_max)
		return fail(c, "count_min %" PRId64 " is above count_max %"
			    PRId64, r->count_min, r->count_max);
	if (check_range(c, "min_bits", r->min_bits.value, r->min_bits.set,
			"max_bits", r->max_bits.value, r->max_bits.set) != 0 ||
	    check_range(c, "bytes_min", (double)r->bytes_min.value,
			r->bytes_min.set, "bytes_max",
			(double)r->bytes_max.value, r->bytes_max.set) != 0 ||
	    check_range(c, "params_min", (double)r->params_min.value,
			r->params_min.set, "params_max",
			(double)r->params_max.value, r->params_max.set) != 0 ||
	    check_range(c, "file_bytes_min", (double)r->file_bytes_min.value,
			r->file_bytes_min.set, "file_bytes_max",
			(double)r->file_bytes_max.value,
			r->file_bytes_max.set) != 0 ||
	    check_range(c, "min_model_bits", r->min_model_bits.value,
			r->min_model_bits.set, "max_model_bits",
			r->max_model_bits.value, r->max_model_bits.set) != 0)
		return -1;
	if (r->exists == 1)
		r->count_min = 1;
	else if (r->exists == 0)
		r->count_max = 0;
	return 0;
}

/* ---- rules -------------------------------------------------------------- */

static bool
kebab_id(const char *s)
{
	size_t i;

	if (!islower((unsigned char)s[0]) && !isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; s[i]; i++) {
		if (islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]))
			continue;
		if (s[i] != '-' || s[i + 1] == '-' || s[i + 1] == '\0')
			return false;
	}
	return true;
}

/* "qa1234" or "1234": would read as a rule code wherever a rule is
 * named (--severity, overrides). */
static bool
looks_like_code(const char *s)
{
	if (s[0] == 'q' && s[1] == 'a')
		s += 2;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int
get_code(struct ctx *c, const cJSON *it, long *code)
{
	const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
	char *end;

	if (is_integer(it, 99999.0)) {
		*code = (long)it->valuedouble;
	} else if (s && (s[0] == 'Q' || s[0] == 'q') &&
		   (s[1] == 'A' || s[1] == 'a') &&
		   isdigit((unsigned char)s[2]) && strlen(s + 2) <= 5) {
		*code = strtol(s + 2, &end, 10);
		if (*end)
			return fail(c, "expected a rule code such as "
				    "\"QA9001\"");
	} else {
		return fail(c, "expected a rule code such as \"QA9001\"");
	}
	if (*code < USER_CODE_MIN || *code > USER_CODE_MAX)
		return fail(c, "QA%04ld is outside QA%d..QA%d (the codes of "
			    "user rules)", *code, USER_CODE_MIN,
			    USER_CODE_MAX);
	return 0;
}

static int
get_severity(struct ctx *c, const cJSON *it, enum qa_severity *out)
{
	static const enum qa_severity sevs[] = {
		QA_SEV_ERROR, QA_SEV_WARNING, QA_SEV_INFO,
	};
	char buf[72];
	size_t i;

	if (!cJSON_IsString(it))
		return fail(c, "expected a string");
	for (i = 0; i < 3; i++)
		if (strcmp(it->valuestring, qa_severity_name(sevs[i])) == 0) {
			*out = sevs[i];
			return 0;
		}
	return fail(c, "unknown severity '%s' (error, warning or info)",
		    shown(it->valuestring, buf));
}

static int
get_category(struct ctx *c, const cJSON *it, enum qa_category *out)
{
	char buf[72];
	int k;

	if (!cJSON_IsString(it))
		return fail(c, "expected a string");
	for (k = QA_CAT_INTEGRITY; k <= QA_CAT_METADATA; k++)
		if (strcmp(it->valuestring,
			   qa_category_name((enum qa_category)k)) == 0) {
			*out = (enum qa_category)k;
			return 0;
		}
	return fail(c, "unknown category '%s' (integrity, completeness, "
		    "precision, fit, compatibility, security or metadata)",
		    shown(it->valuestring, buf));
}

static int
parse_rule(struct ctx *c, const cJSON *obj, size_t index, struct qa_rule *rule,
	   struct pol_rule *r, bool *code_given)
{
	static const char *const keys[] = {
		"id", "code", "severity", "category", "message", "doc",
		"select", "require", NULL,
	};
	const cJSON *it, *sel;
	const struct qa_rule *builtin;
	const char *base;
	char buf[72];
	size_t old;
	long code = 0;

	r->count_min = r->count_max = -1;
	r->exists = -1;
	r->mtp_loadable = -1;
	r->sel.mtp = -1;
	rule->code = (uint16_t)(USER_CODE_MIN + index);
	rule->severity = QA_SEV_ERROR;
	rule->category = QA_CAT_METADATA;
	*code_given = false;
	if (expect_type(c, obj, cJSON_Object, "an object") != 0 ||
	    check_keys(c, obj, keys, "key") != 0 ||
	    require_key(c, obj, "id", &it) != 0)
		return -1;
	old = push_key(c, "id");
	if (get_string(c, it, POLICY_MAX_ID, &rule->id) != 0)
		return -1;
	if (!kebab_id(rule->id))
		return fail(c, "'%s' is not a kebab-case id (lower-case "
			    "letters, digits and single hyphens)",
			    shown(rule->id, buf));
	if (looks_like_code(rule->id))
		return fail(c, "'%s' reads as a rule code; use a name",
			    rule->id);
	builtin = qa_rule_lookup(rule->id, NULL, 0);
	if (builtin)
		return fail(c, "'%s' is the id of built-in rule QA%04u",
			    rule->id, (unsigned)builtin->code);
	path_set_len(c, old);

	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "code"))) {
		old = push_key(c, "code");
		if (get_code(c, it, &code) != 0)
			return -1;
		rule->code = (uint16_t)code;
		*code_given = true;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "severity"))) {
		old = push_key(c, "severity");
		if (get_severity(c, it, &rule->severity) != 0)
			return -1;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "category"))) {
		old = push_key(c, "category");
		if (get_category(c, it, &rule->category) != 0)
			return -1;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "message"))) {
		old = push_key(c, "message");
		if (get_string(c, it, POLICY_MAX_TEXT, &rule->summary) != 0)
			return -1;
		path_set_len(c, old);
	} else {
		rule->summary = qa_arena_printf(&c->p->arena,
						"policy rule '%s' failed",
						rule->id);
	}
	base = strrchr(c->file, '/');
	base = base ? base + 1 : c->file;
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "doc"))) {
		old = push_key(c, "doc");
		if (get_string(c, it, POLICY_MAX_TEXT, &rule->doc) != 0)
			return -1;
		path_set_len(c, old);
	} else {
		rule->doc = qa_arena_printf(&c->p->arena, "User policy rule "
					    "'%s' from %s.", rule->id, base);
	}
	if (!rule->summary || !rule->doc)
		return fail(c, "out of memory");

	if ((sel = cJSON_GetObjectItemCaseSensitive(obj, "select"))) {
		old = push_key(c, "select");
		if (parse_select(c, sel, &r->sel) != 0)
			return -1;
		path_set_len(c, old);
	}
	if (require_key(c, obj, "require", &it) != 0)
		return -1;
	old = push_key(c, "require");
	if (parse_require(c, it, r) != 0)
		return -1;
	path_set_len(c, old);
	if (sel && !r->tensor_preds) {
		push_key(c, "select");
		return fail(c, "a selection is only used by tensor predicates "
			    "(dtype_in, min_bits, count_min...); this rule "
			    "has none");
	}
	return 0;
}

static int
parse_rules(struct ctx *c, const cJSON *arr)
{
	struct qa_policy *p = c->p;
	bool *code_given;
	const cJSON *x;
	size_t n = count_children(arr), i = 0, j, old;

	if (!cJSON_IsArray(arr))
		return fail(c, "expected an array");
	if (n > POLICY_MAX_RULES)
		return fail(c, "%zu rules, at most %d", n, POLICY_MAX_RULES);
	p->rules = qa_arena_array(&p->arena, n ? n : 1, sizeof(*p->rules));
	p->prs = qa_arena_array(&p->arena, n ? n : 1, sizeof(*p->prs));
	code_given = qa_arena_array(&p->arena, n ? n : 1, sizeof(bool));
	if (!p->rules || !p->prs || !code_given)
		return fail(c, "out of memory");
	for (x = arr->child; x; x = x->next, i++) {
		old = push_index(c, i);
		/* Counted before parsing so destroy frees whatever regexes
		 * this rule compiled even when it fails half-way. */
		p->n_rules = i + 1;
		if (parse_rule(c, x, i, &p->rules[i], &p->prs[i],
			       &code_given[i]) != 0)
			return -1;
		for (j = 0; j < i; j++) {
			if (strcmp(p->rules[j].id, p->rules[i].id) == 0) {
				push_key(c, "id");
				return fail(c, "'%s' is already the id of "
					    "$.rules[%zu]", p->rules[i].id, j);
			}
			if (p->rules[j].code != p->rules[i].code)
				continue;
			if (code_given[i]) {
				push_key(c, "code");
				return fail(c, "QA%04u is already the code of "
					    "$.rules[%zu] ('%s')",
					    (unsigned)p->rules[i].code, j,
					    p->rules[j].id);
			}
			return fail(c, "the default code QA%04u (QA%d + index)"
				    " is already the code of $.rules[%zu] "
				    "('%s'); give one of them an explicit "
				    "\"code\"", (unsigned)p->rules[i].code,
				    USER_CODE_MIN, j, p->rules[j].id);
		}
		path_set_len(c, old);
	}
	return 0;
}

static int
parse_overrides(struct ctx *c, const cJSON *obj)
{
	struct qa_policy *p = c->p;
	const cJSON *x;
	size_t n = count_children(obj), i = 0, old;
	enum qa_severity sev;
	char buf[72];

	if (!cJSON_IsObject(obj))
		return fail(c, "expected an object");
	if (n > POLICY_MAX_OVERRIDES)
		return fail(c, "%zu entries, at most %d", n,
			    POLICY_MAX_OVERRIDES);
	if (check_keys(c, obj, NULL, "key") != 0)
		return -1;
	p->overrides = qa_arena_array(&p->arena, n ? n : 1,
				      sizeof(*p->overrides));
	if (!p->overrides)
		return fail(c, "out of memory");
	for (x = obj->child; x; x = x->next, i++) {
		const char *s;

		old = push_key(c, x->string);
		if (!qa_policy_rule_lookup(p, x->string))
			return fail(c, "unknown rule (neither a built-in rule "
				    "nor a rule of this file; see "
				    "'quantaudit rules')");
		if (!cJSON_IsString(x))
			return fail(c, "expected a severity: error, warning, "
				    "info or off");
		s = x->valuestring;
		if (!qa_severity_parse(s, "off", &sev))
			return fail(c, "unknown severity '%s' (error, warning, "
				    "info or off)", shown(s, buf));
		p->overrides[i].name = dup_str(c, x->string);
		p->overrides[i].severity = dup_str(c, s);
		if (!p->overrides[i].name || !p->overrides[i].severity)
			return -1;
		path_set_len(c, old);
	}
	p->n_overrides = n;
	return 0;
}

static int
parse_root(struct ctx *c, const cJSON *root)
{
	static const char *const keys[] = {
		"schema", "description", "overrides", "rules", NULL,
	};
	const cJSON *it;
	char buf[72];
	size_t old;

	if (expect_type(c, root, cJSON_Object, "an object") != 0 ||
	    check_keys(c, root, keys, "key") != 0 ||
	    require_key(c, root, "schema", &it) != 0)
		return -1;
	old = push_key(c, "schema");
	if (!cJSON_IsString(it))
		return fail(c, "expected the string \"" POLICY_SCHEMA "\"");
	if (strcmp(it->valuestring, POLICY_SCHEMA) != 0)
		return fail(c, "unsupported schema '%s' (expected '"
			    POLICY_SCHEMA "')", shown(it->valuestring, buf));
	path_set_len(c, old);
	if ((it = cJSON_GetObjectItemCaseSensitive(root, "description"))) {
		const char *d;

		old = push_key(c, "description");
		if (get_string(c, it, POLICY_MAX_TEXT, &d) != 0)
			return -1;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(root, "rules"))) {
		old = push_key(c, "rules");
		if (parse_rules(c, it) != 0)
			return -1;
		path_set_len(c, old);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(root, "overrides"))) {
		old = push_key(c, "overrides");
		if (parse_overrides(c, it) != 0)
			return -1;
		path_set_len(c, old);
	}
	return 0;
}

/* ---- load / destroy ----------------------------------------------------- */

static char *
read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			 strerror(errno));
		return NULL;
	}
	/* One byte more than the limit tells "too large" from "exactly
	 * at the limit" without trusting fstat on pipes. */
	buf = malloc(POLICY_MAX_BYTES + 2);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	n = fread(buf, 1, POLICY_MAX_BYTES + 1, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path,
			 strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (n > POLICY_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than 1 MiB (the limit of a "
			 "rule file)", path);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* "line L, column C" of the byte where cJSON stopped. */
static void
json_error(const char *path, const char *buf, size_t len, const char *at,
	   char *err, size_t errlen)
{
	size_t pos, i, line = 1, col = 1;

	pos = at && at >= buf && at <= buf + len ? (size_t)(at - buf) : len;
	for (i = 0; i < pos; i++) {
		if (buf[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (len == 0)
		snprintf(err, errlen, "%s: empty file (expected a JSON "
			 "object)", path);
	else
		snprintf(err, errlen, "%s: line %zu, column %zu: invalid JSON",
			 path, line, col);
}

struct qa_policy *
qa_policy_load(const char *path, char *err, size_t errlen)
{
	struct qa_policy *p;
	struct ctx c;
	const char *end = NULL;
	cJSON *root;
	size_t len;
	char *buf;
	int rc;

	buf = read_file(path, &len, err, errlen);
	if (!buf)
		return NULL;
	if (memchr(buf, '\0', len)) {
		snprintf(err, errlen, "%s: contains a NUL byte (not a JSON "
			 "text)", path);
		free(buf);
		return NULL;
	}
	/* The length includes the terminating NUL: cJSON 1.7.15 rejects
	 * require_null_terminated when the text ends exactly at the
	 * length, whitespace or not. */
	root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
	if (!root && qa_cjson_missing()) {
		snprintf(err, errlen, "%s: %s", path, qa_cjson_missing());
		free(buf);
		return NULL;
	}
	if (!root) {
		json_error(path, buf, len, end, err, errlen);
		free(buf);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "%s: out of memory", path);
		cJSON_Delete(root);
		free(buf);
		return NULL;
	}
	qa_arena_init(&p->arena, 0);
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.file = path;
	c.err = err;
	c.errlen = errlen;
	path_append(&c, "$");
	rc = parse_root(&c, root);
	cJSON_Delete(root);
	free(buf);
	if (rc != 0) {
		qa_policy_destroy(p);
		return NULL;
	}
	return p;
}

void
qa_policy_destroy(struct qa_policy *p)
{
	size_t i, k;

	if (!p)
		return;
	for (i = 0; i < p->n_rules; i++) {
		struct pol_rule *r = &p->prs[i];

		if (r->sel.name_set)
			regfree(&r->sel.name_re);
		for (k = 0; k < r->n_meta; k++)
			if (r->meta[k].matches_set)
				regfree(&r->meta[k].re);
	}
	qa_arena_finish(&p->arena);
	free(p);
}

const struct qa_rule *
qa_policy_rule_lookup(const struct qa_policy *p, const char *name)
{
	return qa_rule_lookup(name, p ? p->rules : NULL, p ? p->n_rules : 0);
}

const struct qa_rule *
qa_policy_rules(const struct qa_policy *p, size_t *n)
{
	*n = p ? p->n_rules : 0;
	return p ? p->rules : NULL;
}

int
qa_policy_overrides(const struct qa_policy *p, struct qa_overrides *ov,
		    char *err, size_t errlen)
{
	char msg[256];
	size_t i;
	int rc;

	for (i = 0; p && i < p->n_overrides; i++) {
		const struct override_entry *o = &p->overrides[i];
		enum qa_severity sev = QA_SEV_NONE;

		(void)qa_severity_parse(o->severity, "off", &sev);
		rc = qa_overrides_set(ov, o->name, sev, p->rules, p->n_rules,
				      msg, sizeof(msg));
		if (rc != 0) {
			snprintf(err, errlen, "overrides: %s", msg);
			return -1;
		}
	}
	return 0;
}

/* ---- evaluation --------------------------------------------------------- */

/* Appends to a detail message, keeping it NUL-terminated when full. */
struct text {
	char buf[1024];
	size_t len;
};

static void
app(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
app(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (t->len >= sizeof(t->buf) - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		t->len += (size_t)k;
	if (t->len >= sizeof(t->buf))
		t->len = sizeof(t->buf) - 1;
}

/* Starts the next violation of a rule's detail message. */
static void
next_violation(struct text *t)
{
	if (t->len)
		app(t, "; ");
}

static void
app_list(struct text *t, const struct name_list *l)
{
	size_t i;

	app(t, "[");
	for (i = 0; i < l->n; i++)
		app(t, "%s%s", i ? ", " : "", l->items[i]);
	app(t, "]");
}

static bool
name_listed(const struct name_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (name && strcasecmp(l->items[i], name) == 0)
			return true;
	return false;
}

/* Bits per weight of a stored tensor: the nominal size of its type, or
 * 8 * bytes / elements for a type quantaudit has no size for. */
static bool
tensor_bits(const struct qa_tensor *t, double *bits)
{
	const struct qa_ggml_type *g = qa_ggml_type(t->ggml_type);
	const struct qa_st_dtype *s;

	if (t->ggml_type >= 0 && g && g->block) {
		*bits = (double)g->block_bytes * 8.0 / (double)g->block;
		return true;
	}
	s = t->ggml_type < 0 && t->dtype ? qa_st_dtype(t->dtype) : NULL;
	if (s) {
		*bits = s->bits;
		return true;
	}
	if (t->elements > 0) {
		*bits = 8.0 * (double)t->bytes / (double)t->elements;
		return true;
	}
	return false;
}

static bool
selected(const struct selector *s, const struct qa_tensor *t)
{
	if (s->roles_set) {
		bool by_role = (unsigned)t->role < QA_ROLE_COUNT &&
			       s->role[t->role];

		if (!by_role && !(s->role_mtp && t->mtp))
			return false;
	}
	if (s->mtp >= 0 && t->mtp != (s->mtp == 1))
		return false;
	if (s->layers_set &&
	    (t->layer < s->layer_from || t->layer > s->layer_to))
		return false;
	if (s->dtypes.n && !name_listed(&s->dtypes, t->dtype))
		return false;
	if (s->name_set && regexec(&s->name_re, t->name, 0, NULL, 0) != 0)
		return false;
	return true;
}

struct tally {
	uint32_t n;
	const struct qa_tensor *first;
	double first_bits;
};

static void
tally_add(struct tally *v, const struct qa_tensor *t, double bits)
{
	if (v->n++ == 0) {
		v->first = t;
		v->first_bits = bits;
	}
}

/* Where the finding points: the first offending tensor's file. */
struct anchor {
	const struct qa_tensor *tensor;
};

static void
anchor_set(struct anchor *a, const struct qa_tensor *t)
{
	if (!a->tensor)
		a->tensor = t;
}

static void
human_bytes(char *buf, size_t len, uint64_t v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB",
					     "TiB", "PiB" };
	double d = (double)v;
	int u = 0;

	while (d >= 1024.0 && u < 5) {
		d /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", v);
	else
		snprintf(buf, len, "%.1f %s", d, units[u]);
}

static void
check_amount(struct text *t, const char *subject, uint64_t have,
	     const struct limit *min, const char *min_name,
	     const struct limit *max, const char *max_name)
{
	char h[40], hb[32];

	/* The exact count, and a readable size when it is not small. */
	h[0] = '\0';
	if (have >= 1024) {
		human_bytes(hb, sizeof(hb), have);
		snprintf(h, sizeof(h), " (%s)", hb);
	}
	if (min->set && have < min->value) {
		next_violation(t);
		app(t, "%s %" PRIu64 " bytes%s, %s is %s", subject, have, h,
		    min_name, min->text);
	}
	if (max->set && have > max->value) {
		next_violation(t);
		app(t, "%s %" PRIu64 " bytes%s, %s is %s", subject, have, h,
		    max_name, max->text);
	}
}

static void
check_params(struct text *t, uint64_t have, const struct pol_rule *r)
{
	if (r->params_min.set && have < r->params_min.value) {
		next_violation(t);
		app(t, "selected tensors hold %" PRIu64 " parameters, "
		    "params_min is %s", have, r->params_min.text);
	}
	if (r->params_max.set && have > r->params_max.value) {
		next_violation(t);
		app(t, "selected tensors hold %" PRIu64 " parameters, "
		    "params_max is %s", have, r->params_max.text);
	}
}

static void
app_tally(struct text *t, const struct tally *v, uint32_t n_sel,
	  const char *pred)
{
	next_violation(t);
	app(t, "%" PRIu32 " of %" PRIu32 " selected tensor%s violate%s %s",
	    v->n, n_sel, n_sel == 1 ? "" : "s", v->n == 1 ? "s" : "", pred);
}

/*
 * The tensor predicates. Returns the number of selected tensors; the
 * detail of each violated predicate is appended to t.
 */
static uint32_t
eval_tensors(const struct pol_rule *r, const struct qa_inventory *inv,
	     struct text *t, struct anchor *a)
{
	struct tally in = { 0 }, not_in = { 0 }, lo = { 0 }, hi = { 0 };
	const struct qa_tensor *first_sel = NULL;
	uint64_t bytes = 0, params = 0;
	uint32_t n_sel = 0, i;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *x = &inv->tensors[i];
		double bits = 0;
		bool have_bits = tensor_bits(x, &bits);

		if (!selected(&r->sel, x))
			continue;
		if (n_sel++ == 0)
			first_sel = x;
		bytes = bytes + x->bytes < bytes ? UINT64_MAX :
			bytes + x->bytes;
		params = params + x->elements < params ? UINT64_MAX :
			 params + x->elements;
		if (r->dtype_in.n && !name_listed(&r->dtype_in, x->dtype))
			tally_add(&in, x, bits);
		if (r->dtype_not_in.n && name_listed(&r->dtype_not_in,
						     x->dtype))
			tally_add(&not_in, x, bits);
		if (r->min_bits.set && have_bits && bits < r->min_bits.value)
			tally_add(&lo, x, bits);
		if (r->max_bits.set && have_bits && bits > r->max_bits.value)
			tally_add(&hi, x, bits);
	}
	if (in.n) {
		app_tally(t, &in, n_sel, "dtype_in ");
		app_list(t, &r->dtype_in);
		app(t, ": first '%s' is %s", in.first->name,
		    in.first->dtype ? in.first->dtype : "?");
		anchor_set(a, in.first);
	}
	if (not_in.n) {
		app_tally(t, &not_in, n_sel, "dtype_not_in ");
		app_list(t, &r->dtype_not_in);
		app(t, ": first '%s' is %s", not_in.first->name,
		    not_in.first->dtype ? not_in.first->dtype : "?");
		anchor_set(a, not_in.first);
	}
	if (lo.n) {
		app_tally(t, &lo, n_sel, "min_bits ");
		app(t, "%s", r->min_bits.text);
		app(t, ": first '%s' is %s (%g bits)", lo.first->name,
		    lo.first->dtype ? lo.first->dtype : "?", lo.first_bits);
		anchor_set(a, lo.first);
	}
	if (hi.n) {
		app_tally(t, &hi, n_sel, "max_bits ");
		app(t, "%s", r->max_bits.text);
		app(t, ": first '%s' is %s (%g bits)", hi.first->name,
		    hi.first->dtype ? hi.first->dtype : "?", hi.first_bits);
		anchor_set(a, hi.first);
	}
	if (r->count_min >= 0 && n_sel < (uint64_t)r->count_min) {
		next_violation(t);
		if (r->exists == 1)
			app(t, "no tensor selected, exists is true");
		else
			app(t, "%" PRIu32 " tensor%s selected, count_min is %"
			    PRId64, n_sel, n_sel == 1 ? "" : "s",
			    r->count_min);
	}
	if (r->count_max >= 0 && n_sel > (uint64_t)r->count_max) {
		next_violation(t);
		if (r->exists == 0)
			app(t, "%" PRIu32 " tensor%s selected, exists is "
			    "false: first '%s'", n_sel, n_sel == 1 ? "" : "s",
			    first_sel->name);
		else
			app(t, "%" PRIu32 " tensor%s selected, count_max is %"
			    PRId64 ": first '%s'", n_sel,
			    n_sel == 1 ? "" : "s", r->count_max,
			    first_sel->name);
		anchor_set(a, first_sel);
	}
	check_amount(t, "selected tensors hold", bytes, &r->bytes_min,
		     "bytes_min", &r->bytes_max, "bytes_max");
	check_params(t, params, r);
	return n_sel;
}

static void
app_value(struct text *t, const struct qa_value *v)
{
	char buf[72];

	switch (v->type) {
	case QA_V_STRING:
		app(t, "'%s'", shown(v->v.str.s ? v->v.str.s : "", buf));
		break;
	case QA_V_BOOL:
		app(t, "%s", v->v.u ? "true" : "false");
		break;
	case QA_V_U8:
	case QA_V_U16:
	case QA_V_U32:
	case QA_V_U64:
		app(t, "%" PRIu64, v->v.u);
		break;
	case QA_V_I8:
	case QA_V_I16:
	case QA_V_I32:
	case QA_V_I64:
		app(t, "%" PRId64, v->v.i);
		break;
	case QA_V_F32:
	case QA_V_F64:
		app(t, "%g", v->v.f);
		break;
	default:
		app(t, "an array of %" PRIu64 " %s", v->v.arr.count,
		    qa_value_type_name(v->v.arr.elem));
		break;
	}
}

static void
app_pol_value(struct text *t, const struct pol_value *v)
{
	char buf[72];

	if (v->type == PV_STRING)
		app(t, "'%s'", shown(v->s, buf));
	else if (v->type == PV_NUMBER)
		app(t, "%g", v->num);
	else
		app(t, "%s", v->b ? "true" : "false");
}

/* A metadata value as a number: numeric types, or a string holding
 * exactly a number (safetensors __metadata__ values are all strings). */
static bool
value_number(const struct qa_value *v, double *out)
{
	char *end;

	if (v->type == QA_V_BOOL || v->type == QA_V_ARRAY)
		return false;
	if (v->type != QA_V_STRING)
		return qa_value_as_double(v, out);
	if (!v->v.str.s || !v->v.str.s[0] ||
	    strlen(v->v.str.s) != v->v.str.len)
		return false;
	*out = strtod(v->v.str.s, &end);
	return *end == '\0' && isfinite(*out);
}

static bool
value_equals(const struct qa_value *v, const struct pol_value *want)
{
	double d;

	switch (want->type) {
	case PV_STRING:
		return v->type == QA_V_STRING && v->v.str.s &&
		       v->v.str.len == strlen(want->s) &&
		       strcmp(v->v.str.s, want->s) == 0;
	case PV_NUMBER:
		return value_number(v, &d) && d == want->num;
	case PV_BOOL:
		if (v->type == QA_V_BOOL)
			return (v->v.u != 0) == want->b;
		return v->type == QA_V_STRING && v->v.str.s &&
		       strcmp(v->v.str.s, want->b ? "true" : "false") == 0;
	}
	return false;
}

static void
eval_meta(const struct meta_pred *m, const struct qa_inventory *inv,
	  struct text *t)
{
	const struct qa_kv *kv = qa_inv_kv(inv, m->key);
	char kb[72];
	double d;
	size_t i;

	if (!kv) {
		if (m->exists != 0) {
			next_violation(t);
			app(t, "metadata key '%s' is missing",
			    shown(m->key, kb));
		}
		return;
	}
	if (m->exists == 0) {
		next_violation(t);
		app(t, "metadata key '%s' is present, exists is false",
		    shown(m->key, kb));
		return;
	}
	if (m->equals_set && !value_equals(&kv->value, &m->equals)) {
		next_violation(t);
		app(t, "metadata key '%s' is ", shown(m->key, kb));
		app_value(t, &kv->value);
		app(t, ", equals ");
		app_pol_value(t, &m->equals);
	}
	if (m->matches_set &&
	    (kv->value.type != QA_V_STRING || !kv->value.v.str.s ||
	     regexec(&m->re, kv->value.v.str.s, 0, NULL, 0) != 0)) {
		next_violation(t);
		app(t, "metadata key '%s' is ", shown(m->key, kb));
		app_value(t, &kv->value);
		app(t, ", matches '%s'", shown(m->matches_text, kb));
	}
	if (m->n_in) {
		for (i = 0; i < m->n_in; i++)
			if (value_equals(&kv->value, &m->in[i]))
				break;
		if (i == m->n_in) {
			next_violation(t);
			app(t, "metadata key '%s' is ", shown(m->key, kb));
			app_value(t, &kv->value);
			app(t, ", in [");
			for (i = 0; i < m->n_in; i++) {
				app(t, "%s", i ? ", " : "");
				app_pol_value(t, &m->in[i]);
			}
			app(t, "]");
		}
	}
	if (m->min_set || m->max_set) {
		bool num = value_number(&kv->value, &d);

		if (!num || (m->min_set && d < m->min) ||
		    (m->max_set && d > m->max)) {
			next_violation(t);
			app(t, "metadata key '%s' is ", shown(m->key, kb));
			app_value(t, &kv->value);
			if (!num)
				app(t, ", not a number");
			else if (m->min_set && d < m->min)
				app(t, ", min is %g", m->min);
			else
				app(t, ", max is %g", m->max);
		}
	}
}

static void
eval_model_bits(struct text *t, const struct qa_inventory *inv,
		const struct bits_limit *lim, bool is_min)
{
	double bpw;

	if (!lim->set)
		return;
	if (inv->params == 0) {
		next_violation(t);
		app(t, "the model has no weights, %s is %s",
		    is_min ? "min_model_bits" : "max_model_bits", lim->text);
		return;
	}
	bpw = 8.0 * (double)inv->bytes / (double)inv->params;
	if (is_min ? bpw < lim->value : bpw > lim->value) {
		next_violation(t);
		app(t, "the model has %.2f bits per weight, %s is %s", bpw,
		    is_min ? "min_model_bits" : "max_model_bits", lim->text);
	}
}

static void
eval_model(const struct pol_rule *r, const struct qa_inventory *inv,
	   struct text *t)
{
	size_t i;

	if (r->mtp_status_mask &&
	    !(r->mtp_status_mask & (1u << inv->mtp.status))) {
		bool first = true;

		next_violation(t);
		app(t, "MTP status is %s, mtp_status is [",
		    qa_mtp_status_name(inv->mtp.status));
		for (i = 0; i < N_MTP_STATUSES; i++)
			if (r->mtp_status_mask & (1u << mtp_statuses[i])) {
				app(t, "%s%s", first ? "" : ", ",
				    qa_mtp_status_name(mtp_statuses[i]));
				first = false;
			}
		app(t, "]");
	}
	/* Loadable: no MTP tensors (nothing to load), or tensors engines
	 * will load (declared, in files the index lists). */
	if (r->mtp_loadable >= 0 &&
	    (inv->mtp.not_loaded == NULL) != (r->mtp_loadable == 1)) {
		next_violation(t);
		if (inv->mtp.not_loaded)
			app(t, "the MTP head is not loaded (%s), mtp_loadable "
			    "is true", inv->mtp.not_loaded);
		else
			app(t, "the MTP head is loaded, mtp_loadable is false");
	}
	if (r->file_bytes_min.set || r->file_bytes_max.set) {
		uint64_t sum = 0;

		for (i = 0; i < inv->n_files; i++)
			sum = sum + inv->files[i].bytes < sum ? UINT64_MAX :
			      sum + inv->files[i].bytes;
		check_amount(t, "the files hold", sum, &r->file_bytes_min,
			     "file_bytes_min", &r->file_bytes_max,
			     "file_bytes_max");
	}
	if (r->arch_in.n && !name_listed(&r->arch_in, inv->hp.arch) &&
	    !name_listed(&r->arch_in, inv->hp.arch_raw)) {
		char buf[72];

		next_violation(t);
		if (inv->hp.arch_raw || inv->hp.arch)
			app(t, "architecture is '%s', architecture_in ",
			    shown(inv->hp.arch_raw ? inv->hp.arch_raw :
				  inv->hp.arch, buf));
		else
			app(t, "architecture is unknown, architecture_in ");
		app_list(t, &r->arch_in);
	}
	if (r->file_type_in.n) {
		const char *ft = inv->hp.file_type >= 0 ?
			qa_llama_ftype_label(inv->hp.file_type) : NULL;

		if (!ft || !name_listed(&r->file_type_in, ft)) {
			next_violation(t);
			if (ft)
				app(t, "declared file type is %s, "
				    "file_type_in ", ft);
			else if (inv->hp.file_type >= 0)
				app(t, "declared file type %" PRId64 " is "
				    "unknown, file_type_in ",
				    inv->hp.file_type);
			else
				app(t, "no declared file type "
				    "(general.file_type), file_type_in ");
			app_list(t, &r->file_type_in);
		}
	}
	eval_model_bits(t, inv, &r->min_model_bits, true);
	eval_model_bits(t, inv, &r->max_model_bits, false);
	for (i = 0; i < r->n_meta; i++)
		eval_meta(&r->meta[i], inv, t);
}

/* Tensor predicates that an empty selection satisfies only vacuously
 * (count_min / count_max / exists judge the count itself). */
static bool
has_vacuous_preds(const struct pol_rule *r)
{
	return r->dtype_in.n || r->dtype_not_in.n || r->min_bits.set ||
	       r->max_bits.set || r->bytes_min.set || r->bytes_max.set ||
	       r->params_min.set || r->params_max.set;
}

void
qa_policy_run(const struct qa_policy *p, struct qa_inventory *inv)
{
	size_t i;

	for (i = 0; p && i < p->n_rules; i++) {
		const struct pol_rule *r = &p->prs[i];
		const struct qa_rule *rule = &p->rules[i];
		struct anchor a = { NULL };
		struct text t = { .len = 0 };
		const char *file = NULL;

		t.buf[0] = '\0';
		if (r->tensor_preds) {
			uint32_t n_sel = eval_tensors(r, inv, &t, &a);

			/* With count_min >= 1 the empty selection is already
			 * this rule's own violation. */
			if (n_sel == 0 && has_vacuous_preds(r) &&
			    r->count_min < 1)
				qa_inv_finding(inv, QA8001, NULL, -1, NULL,
					       "rule '%s' (QA%04u) selected no "
					       "tensor, so its predicates held "
					       "only vacuously", rule->id,
					       (unsigned)rule->code);
		}
		eval_model(r, inv, &t);
		if (!t.len)
			continue;
		if (a.tensor && a.tensor->file < inv->n_files)
			file = inv->files[a.tensor->file].path;
		qa_inv_finding_rule(inv, rule, file, -1,
				    a.tensor ? a.tensor->name : NULL, "%s",
				    t.buf);
	}
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	if (opt && opt->policy)
		qa_policy_run(opt->policy, inv);
}

const struct qa_check qa_check_policy = { "policy", run, true };
