/* SPDX-License-Identifier: MIT */
/*
 * User policy files (docs/policy.md), the loading half: a JSON document of
 * declarative rules that select tensors (by role, role group, name regex,
 * layer range, dtype, MTP membership) and require things of them (dtype
 * set, bits per weight, count, bytes, parameters), or require things of
 * the whole model (MTP status, file size, architecture, declared file
 * type, overall bits per weight, metadata keys), plus severity overrides
 * for any rule.
 *
 * Loading validates the whole file up front and names the JSON path of the
 * first problem, so a broken policy is a usage error before any model is
 * read; evaluation (policy_eval.c) then cannot fail. Everything a policy
 * owns (rules, strings, lists) lives in one arena; compiled regexes are
 * the only separately freed objects.
 */
#define _POSIX_C_SOURCE 200809L

#include "rules/policy.h"
#define QA_POLICY_INTERNAL
#include "rules/policy_int.h"

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
const char *
qa_policy_shown(const char *s, char buf[72])
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
		snprintf(seg, sizeof(seg), "[\"%s\"]", qa_policy_shown(key, buf));
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
			    qa_policy_shown(*text, buf), msg);
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

/* Sized [] so that a count other than QA_POLICY_N_MTP_STATUSES conflicts
 * with the declaration in policy_int.h. */
const enum qa_mtp_status qa_policy_mtp_statuses[] = {
	QA_MTP_PRESENT, QA_MTP_MISSING, QA_MTP_PARTIAL, QA_MTP_ABSENT,
	QA_MTP_NOT_APPLICABLE,
};

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
					    qa_policy_shown(s, buf), hint);
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
			return fail(c, "bad amount '%s' (%s)", qa_policy_shown(s, buf),
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
			return fail(c, "bad amount '%s' (%s)", qa_policy_shown(s, buf),
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
				    qa_policy_shown(it->valuestring, buf));
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
				    qa_policy_shown(it->valuestring, buf));
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
				    qa_policy_shown(x->valuestring, buf));
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

	for (i = 0; i < QA_POLICY_N_MTP_STATUSES; i++)
		if (strcmp(name, qa_mtp_status_name(qa_policy_mtp_statuses[i])) == 0)
			return 1u << qa_policy_mtp_statuses[i];
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
				    qa_policy_shown(x->valuestring, buf));
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
		    qa_policy_shown(it->valuestring, buf));
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
		    qa_policy_shown(it->valuestring, buf));
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
			    qa_policy_shown(rule->id, buf));
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
				    "info or off)", qa_policy_shown(s, buf));
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
			    POLICY_SCHEMA "')", qa_policy_shown(it->valuestring, buf));
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
