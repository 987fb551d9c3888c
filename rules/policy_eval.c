/* SPDX-License-Identifier: MIT */
/*
 * User policy files (docs/policy.md), the evaluation half: the compiled
 * policy of rules/policy_load.c run over one inventory. Each rule's
 * selector picks tensors, its predicates are checked against them and the
 * model, and a violation becomes one finding with the rule's code and a
 * detail message; evaluation cannot fail (only adds findings).
 */
#define _POSIX_C_SOURCE 200809L

#include "rules/policy.h"

#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/units.h"
#include "core/dtypes.h"

#define QA_POLICY_INTERNAL
#include "rules/policy_int.h"

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
		app(t, "'%s'", qa_policy_shown(v->v.str.s ? v->v.str.s : "", buf));
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
		app(t, "'%s'", qa_policy_shown(v->s, buf));
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
			    qa_policy_shown(m->key, kb));
		}
		return;
	}
	if (m->exists == 0) {
		next_violation(t);
		app(t, "metadata key '%s' is present, exists is false",
		    qa_policy_shown(m->key, kb));
		return;
	}
	if (m->equals_set && !value_equals(&kv->value, &m->equals)) {
		next_violation(t);
		app(t, "metadata key '%s' is ", qa_policy_shown(m->key, kb));
		app_value(t, &kv->value);
		app(t, ", equals ");
		app_pol_value(t, &m->equals);
	}
	if (m->matches_set &&
	    (kv->value.type != QA_V_STRING || !kv->value.v.str.s ||
	     regexec(&m->re, kv->value.v.str.s, 0, NULL, 0) != 0)) {
		next_violation(t);
		app(t, "metadata key '%s' is ", qa_policy_shown(m->key, kb));
		app_value(t, &kv->value);
		app(t, ", matches '%s'", qa_policy_shown(m->matches_text, kb));
	}
	if (m->n_in) {
		for (i = 0; i < m->n_in; i++)
			if (value_equals(&kv->value, &m->in[i]))
				break;
		if (i == m->n_in) {
			next_violation(t);
			app(t, "metadata key '%s' is ", qa_policy_shown(m->key, kb));
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
			app(t, "metadata key '%s' is ", qa_policy_shown(m->key, kb));
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
		for (i = 0; i < QA_POLICY_N_MTP_STATUSES; i++)
			if (r->mtp_status_mask & (1u << qa_policy_mtp_statuses[i])) {
				app(t, "%s%s", first ? "" : ", ",
				    qa_mtp_status_name(qa_policy_mtp_statuses[i]));
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
			    qa_policy_shown(inv->hp.arch_raw ? inv->hp.arch_raw :
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
