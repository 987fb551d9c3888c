/* SPDX-License-Identifier: MIT */
/*
 * The prompt fidelity of a quant against its source folder (prompt.h):
 * templates as a line diff, BOS/EOS/PAD ids, special tokens and
 * general.base_model.*.
 */
#define _POSIX_C_SOURCE 200809L
#include "compare/prompt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/json_file.h"
#include "core/source.h"
#include "core/gguf_keys.h"
#include "core/gguf_tokens.h"

#include <cjson/cJSON.h>

/* Special tokens compared at most (a vocabulary's added tokens; real
 * models add a few hundred). */
#define MAX_SPECIALS 4096

struct ctx {
	struct qa_arena *ar;
	const struct qa_inventory *q, *s;	/* quant (GGUF), source */
	struct qa_prompt_diff *out;
	size_t cap_items, cap_findings, cap_lines;
	bool nomem;
	cJSON *tokcfg, *tokjson, *gencfg, *config;
	/* vocabulary entries read from the file for a vocabulary longer
	 * than the loader keeps: ids ascending, their strings */
	int64_t *want;
	const char **want_str;
	size_t n_want;
};

static void finding(struct ctx *c, unsigned code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
finding(struct ctx *c, unsigned code, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	struct qa_prompt_diff *o = c->out;
	struct qa_prompt_finding *f;

	if (o->n_findings == c->cap_findings) {
		size_t n = c->cap_findings ? c->cap_findings * 2 : 8;

		f = qa_arena_grow(c->ar, o->findings, c->cap_findings, n,
				  sizeof(*f));
		if (!f) {
			c->nomem = true;
			return;
		}
		o->findings = f;
		c->cap_findings = n;
	}
	f = &o->findings[o->n_findings];
	f->code = code;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	f->message = qa_arena_strdup(c->ar, buf);
	if (!f->message)
		c->nomem = true;
	else
		o->n_findings++;
}

static struct qa_prompt_item *
item(struct ctx *c, const char *name, const char *q, const char *s)
{
	struct qa_prompt_diff *o = c->out;
	struct qa_prompt_item *it;

	if (o->n_items == c->cap_items) {
		size_t n = c->cap_items ? c->cap_items * 2 : 8;

		it = qa_arena_grow(c->ar, o->items, c->cap_items, n,
				   sizeof(*it));
		if (!it) {
			c->nomem = true;
			return NULL;
		}
		o->items = it;
		c->cap_items = n;
	}
	it = &o->items[o->n_items++];
	it->name = qa_arena_strdup(c->ar, name);
	it->quant = q ? qa_arena_strdup(c->ar, q) : NULL;
	it->source = s ? qa_arena_strdup(c->ar, s) : NULL;
	it->same = q && s && strcmp(q, s) == 0;
	if (!it->name || (q && !it->quant) || (s && !it->source))
		c->nomem = true;
	return it;
}

/* ---- the source folder's JSON files ------------------------------------ */

/* name in the folder of the source (beside its config.json or
 * tokenizer_config.json), parsed; NULL when absent or not JSON. */
static cJSON *
side_json(struct ctx *c, const char *name)
{
	const char *base = c->s->config_file ? c->s->config_file :
			   c->s->tokenizer_config_file;
	const char *slash;
	char *path;
	struct qa_source src;
	cJSON *doc;

	if (base && (slash = strrchr(base, '/')))
		path = qa_arena_printf(c->ar, "%.*s/%s", (int)(slash - base),
				       base, name);
	else if (base)
		path = qa_arena_strdup(c->ar, name);
	else
		path = qa_arena_printf(c->ar, "%s/%s", c->s->path, name);
	if (!path) {
		c->nomem = true;
		return NULL;
	}
	if (qa_inv_open(c->s, path, &src) != QA_OK)
		return NULL;
	doc = qa_json_read_source(&src, QA_JSON_SIDE_MAX, NULL);
	qa_source_close(&src);
	return doc;
}

/* A tokenizer_config.json token: "<s>" or {"content": "<s>", ...}. */
static const char *
token_text(const cJSON *v)
{
	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsObject(v)) {
		const cJSON *t = qa_json_child(v, "content");

		if (cJSON_IsString(t))
			return t->valuestring;
	}
	return NULL;
}

/* The id of token text among the source's added tokens
 * (tokenizer_config.json added_tokens_decoder, then tokenizer.json
 * added_tokens); -1 when not found. */
static int64_t
token_id(struct ctx *c, const char *text)
{
	const cJSON *arr, *e;
	uint32_t i;

	for (i = 0; i < c->s->n_added_tokens; i++)
		if (c->s->added_tokens[i].content &&
		    strcmp(c->s->added_tokens[i].content, text) == 0)
			return c->s->added_tokens[i].id;
	arr = qa_json_child(c->tokjson, "added_tokens");
	cJSON_ArrayForEach(e, arr) {
		const cJSON *id = qa_json_child(e, "id");
		const cJSON *ct = qa_json_child(e, "content");

		if (cJSON_IsNumber(id) && cJSON_IsString(ct) &&
		    strcmp(ct->valuestring, text) == 0)
			return (int64_t)id->valuedouble;
	}
	return -1;
}

/* A whole-number JSON id, as text into buf; NULL when v is none. */
static const char *
id_text(const cJSON *v, char *buf, size_t n)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    v->valuedouble > 9007199254740992.0)
		return NULL;
	snprintf(buf, n, "%" PRId64, (int64_t)v->valuedouble);
	return buf;
}

/* The GGUF vocabulary entry at id: kept by the loader, else read from
 * the file for the ids asked for (read_vocab); NULL when neither. */
static const char *
vocab_lookup(const struct ctx *c, int64_t id)
{
	const struct qa_kv *kv = qa_inv_kv(c->q, QA_GGUF_TOKENIZER_LIST);
	struct qa_value v;
	size_t lo = 0, hi = c->n_want;

	if (!kv || id < 0)
		return NULL;
	if (qa_value_item(&kv->value, (uint64_t)id, &v))
		return v.type == QA_V_STRING ? v.v.str.s : NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->want[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n_want && c->want[lo] == id ? c->want_str[lo] : NULL;
}

static int
cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

static void
want_id(struct ctx *c, size_t *cap, int64_t id)
{
	if (id < 0 || c->n_want >= 4096 || c->nomem)
		return;
	if (c->n_want == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		int64_t *w = qa_arena_grow(c->ar, c->want, *cap, n,
					   sizeof(*w));

		if (!w) {
			c->nomem = true;
			return;
		}
		c->want = w;
		*cap = n;
	}
	c->want[c->n_want++] = id;
}

/*
 * A real vocabulary (150k tokens) is longer than the loader keeps
 * (QA_KV_KEEP_ELEMENTS): the entries at the ids compared (the GGUF's
 * BOS/EOS/PAD ids, the source's special and added tokens) are read from
 * tokenizer.ggml.tokens in the file (core/gguf_tokens.h), one pass,
 * stopping at the largest. A file that does not read so leaves the
 * entries unknown (counted as unchecked).
 */
static void
read_vocab(struct ctx *c)
{
	static const char *const ids[] = { QA_GGUF_TOKENIZER_BOS_ID,
		QA_GGUF_TOKENIZER_EOS_ID, QA_GGUF_TOKENIZER_PAD_ID };
	const struct qa_kv *kv = qa_inv_kv(c->q, QA_GGUF_TOKENIZER_LIST);
	const cJSON *arr = qa_json_child(c->tokjson, "added_tokens"), *e;
	struct qa_gguf_tokens *t;
	uint64_t i, len;
	char tok[4096];
	size_t cap = 0, k, w = 0, j;
	int64_t v;

	if (!kv || kv->value.type != QA_V_ARRAY ||
	    kv->value.v.arr.elem != QA_V_STRING ||
	    kv->value.v.arr.kept >= kv->value.v.arr.count ||
	    kv->file >= c->q->n_files)
		return;
	for (k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		const struct qa_kv *x = qa_inv_kv(c->q, ids[k]);

		if (x && qa_value_as_int(&x->value, &v))
			want_id(c, &cap, v);
	}
	cJSON_ArrayForEach(e, arr) {
		const cJSON *id = qa_json_child(e, "id");

		if (cJSON_IsNumber(id) && id->valuedouble >= 0 &&
		    id->valuedouble < 9007199254740992.0)
			want_id(c, &cap, (int64_t)id->valuedouble);
	}
	for (k = 0; k < c->s->n_added_tokens; k++)
		want_id(c, &cap, c->s->added_tokens[k].id);
	if (!c->n_want)
		return;
	qsort(c->want, c->n_want, sizeof(*c->want), cmp_i64);
	for (k = 1, j = 1; k < c->n_want; k++)
		if (c->want[k] != c->want[j - 1])
			c->want[j++] = c->want[k];
	c->n_want = j;
	c->want_str = qa_arena_array(c->ar, c->n_want, sizeof(*c->want_str));
	t = malloc(sizeof(*t));
	if (!c->want_str || !t) {
		free(t);
		c->n_want = 0;
		c->nomem = true;
		return;
	}
	if (!qa_gguf_tokens_open(t, c->q))
		goto out;
	for (i = 0; i < t->count && w < c->n_want; i++) {
		bool wanted = (int64_t)i == c->want[w];
		char *s;

		if (!qa_gguf_tokens_next(t, wanted ? tok : NULL,
					 wanted ? sizeof(tok) : 0, &len))
			break;
		if (!wanted)
			continue;
		s = len < sizeof(tok) ? qa_arena_alloc(c->ar, (size_t)len + 1) :
		    NULL;
		if (!s)
			break;
		memcpy(s, tok, (size_t)len);
		s[len] = '\0';
		c->want_str[w++] = s;
	}
out:
	for (k = w; k < c->n_want; k++)
		c->want_str[k] = NULL;
	qa_gguf_tokens_close(t);
	free(t);
}

/*
 * One of bos/eos/pad: the GGUF id against the source's. The source's id
 * is its tokenizer_config.json token resolved through the added tokens,
 * else generation_config.json's id, else config.json's. For EOS,
 * generation_config.json may list several (Llama 3 Instruct ends on
 * <|eot_id|> or <|end_of_text|>): a GGUF id among them agrees.
 */
static void
compare_id(struct ctx *c, const char *what, const char *gguf_key,
	   const char *tok_key, const char *gen_key, unsigned code)
{
	const struct qa_kv *kv = qa_inv_kv(c->q, gguf_key);
	char qb[32], sb[64], name[48], where[160];
	const char *qt = NULL, *st = NULL, *tok = NULL;
	const cJSON *gen = qa_json_child(c->gencfg, gen_key);
	int64_t qid = -1, sid;
	bool in_list = false;
	const cJSON *e;
	struct qa_prompt_item *it;

	if (kv && qa_value_as_int(&kv->value, &qid) && qid >= 0) {
		snprintf(qb, sizeof(qb), "%" PRId64, qid);
		qt = qb;
	}
	tok = token_text(qa_json_child(c->tokcfg, tok_key));
	if (tok && (sid = token_id(c, tok)) >= 0) {
		snprintf(sb, sizeof(sb), "%" PRId64, sid);
		st = sb;
		snprintf(where, sizeof(where), "tokenizer_config.json %s",
			 tok_key);
	} else if (cJSON_IsArray(gen)) {
		size_t o = 0;

		sb[0] = '\0';
		cJSON_ArrayForEach(e, gen) {
			char one[32];

			if (!id_text(e, one, sizeof(one)))
				continue;
			if (qt && strcmp(one, qt) == 0)
				in_list = true;
			o += (size_t)snprintf(sb + o, o < sizeof(sb) ?
					      sizeof(sb) - o : 0, "%s%s",
					      o ? "," : "", one);
			if (o >= sizeof(sb))
				break;
		}
		st = sb[0] ? sb : NULL;
		snprintf(where, sizeof(where), "generation_config.json %s",
			 gen_key);
	} else if ((st = id_text(gen, sb, sizeof(sb)))) {
		snprintf(where, sizeof(where), "generation_config.json %s",
			 gen_key);
	} else if ((st = id_text(qa_json_child(c->config, gen_key), sb,
				 sizeof(sb)))) {
		snprintf(where, sizeof(where), "config.json %s", gen_key);
	}
	if (!qt && !st)
		return;
	snprintf(name, sizeof(name), "%s_token_id", what);
	it = item(c, name, qt, st);
	if (!it)
		return;
	if (in_list)
		it->same = true;
	if (it->same || !qt || !st)
		return;
	{
		char *m = qa_arena_printf(c->ar, "%s %s, the source's %s is %s",
					  gguf_key, qt, where, st);
		const char *qv = vocab_lookup(c, qid);

		if (!m) {
			c->nomem = true;
			return;
		}
		if (qv)
			m = qa_arena_printf(c->ar, "%s (the GGUF's token %s is "
					    "'%s'%s%s%s)", m, qt, qv,
					    tok ? ", the source's is '" : "",
					    tok ? tok : "", tok ? "'" : "");
		finding(c, code, "%s", m ? m : "");
	}
}

/* The source's special tokens (tokenizer.json added_tokens with
 * special, else tokenizer_config.json added_tokens_decoder) against the
 * GGUF vocabulary at the same ids. */
static void
compare_specials(struct ctx *c)
{
	const cJSON *arr = qa_json_child(c->tokjson, "added_tokens"), *e;
	char name[48], first[160] = "";
	uint32_t wrong = 0, i;

	if (cJSON_IsArray(arr)) {
		cJSON_ArrayForEach(e, arr) {
			const cJSON *id = qa_json_child(e, "id");
			const cJSON *ct = qa_json_child(e, "content");
			const cJSON *sp = qa_json_child(e, "special");
			const char *qv;

			if (!cJSON_IsNumber(id) || !cJSON_IsString(ct) ||
			    !cJSON_IsTrue(sp))
				continue;
			if (c->out->specials_checked +
			    c->out->specials_unchecked >= MAX_SPECIALS)
				break;
			qv = vocab_lookup(c, (int64_t)id->valuedouble);
			if (!qv) {
				c->out->specials_unchecked++;
				continue;
			}
			c->out->specials_checked++;
			if (strcmp(qv, ct->valuestring) == 0)
				continue;
			snprintf(name, sizeof(name), "special token %" PRId64,
				 (int64_t)id->valuedouble);
			item(c, name, qv, ct->valuestring);
			if (!wrong++)
				snprintf(first, sizeof(first), "id %" PRId64
					 " is '%s' in the GGUF, '%s' in the "
					 "source", (int64_t)id->valuedouble,
					 qv, ct->valuestring);
		}
	} else {
		for (i = 0; i < c->s->n_added_tokens &&
		     i < MAX_SPECIALS; i++) {
			const struct qa_added_token *t = &c->s->added_tokens[i];
			const char *qv = vocab_lookup(c, t->id);

			if (!t->content)
				continue;
			if (!qv) {
				c->out->specials_unchecked++;
				continue;
			}
			c->out->specials_checked++;
			if (strcmp(qv, t->content) == 0)
				continue;
			snprintf(name, sizeof(name), "special token %" PRId64,
				 t->id);
			item(c, name, qv, t->content);
			if (!wrong++)
				snprintf(first, sizeof(first), "id %" PRId64
					 " is '%s' in the GGUF, '%s' in the "
					 "source", t->id, qv, t->content);
		}
	}
	if (wrong) {
		char n[32];

		snprintf(n, sizeof(n), "%" PRIu32, wrong);
		finding(c, QA6324, "%s special token(s) of the source differ "
			"from the GGUF vocabulary at their ids: %s", n, first);
	}
}

/* ---- the templates ------------------------------------------------------- */

struct lines {
	const char **p;
	size_t *n;
	size_t count;
};

static bool
split_lines(const char *t, uint64_t len, struct lines *l)
{
	size_t i, start = 0, k = 0, cap = 1;

	for (i = 0; i < len; i++)
		cap += t[i] == '\n';
	if (cap > QA_PROMPT_DIFF_LINES)
		return false;
	l->p = calloc(cap, sizeof(*l->p));
	l->n = calloc(cap, sizeof(*l->n));
	if (!l->p || !l->n)
		return false;
	for (i = 0; i <= len; i++)
		if (i == len || t[i] == '\n') {
			if (i == len && start == len && k > 0)
				break;
			l->p[k] = t + start;
			l->n[k++] = i - start;
			start = i + 1;
		}
	l->count = k;
	return true;
}

static bool
line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->n[i] == b->n[j] && memcmp(a->p[i], b->p[j], a->n[i]) == 0;
}

static void
add_line(struct ctx *c, char op, const char *p, size_t n)
{
	struct qa_prompt_diff *o = c->out;

	if (o->n_lines >= QA_PROMPT_MAX_LINES) {
		o->lines_dropped++;
		return;
	}
	if (o->n_lines == c->cap_lines) {
		size_t cap = c->cap_lines ? c->cap_lines * 2 : 32;
		struct qa_prompt_line *v = qa_arena_grow(c->ar, o->lines,
							  c->cap_lines, cap,
							  sizeof(*v));

		if (!v) {
			c->nomem = true;
			return;
		}
		o->lines = v;
		c->cap_lines = cap;
	}
	o->lines[o->n_lines].op = op;
	o->lines[o->n_lines].text = qa_arena_printf(c->ar, "%.*s", (int)n, p);
	if (!o->lines[o->n_lines].text)
		c->nomem = true;
	else
		o->n_lines++;
}

/*
 * The line diff of two templates: a longest common subsequence table
 * (both at most QA_PROMPT_DIFF_LINES lines: 16M cells of 2 bytes at
 * worst, real templates have a few hundred lines), changed lines with
 * one line of context either side.
 */
static void
diff_lines(struct ctx *c, const struct lines *a, const struct lines *b)
{
	size_t n = a->count, m = b->count, i, j, w = m + 1;
	uint16_t *t = calloc((n + 1) * w, sizeof(*t));
	char *op;
	const char **txt;
	size_t *len, k = 0, total = n + m;

	op = malloc(total + 1);
	txt = malloc((total + 1) * sizeof(*txt));
	len = malloc((total + 1) * sizeof(*len));
	if (!t || !op || !txt || !len) {
		c->nomem = true;
		goto out;
	}
	for (i = n; i-- > 0;)
		for (j = m; j-- > 0;)
			t[i * w + j] = line_eq(a, i, b, j) ?
				(uint16_t)(t[(i + 1) * w + j + 1] + 1) :
				t[(i + 1) * w + j] > t[i * w + j + 1] ?
				t[(i + 1) * w + j] : t[i * w + j + 1];
	for (i = 0, j = 0; i < n || j < m;) {
		if (i < n && j < m && line_eq(a, i, b, j)) {
			op[k] = ' ', txt[k] = a->p[i], len[k++] = a->n[i];
			i++, j++;
		} else if (i < n && (j == m ||
				     t[(i + 1) * w + j] >= t[i * w + j + 1])) {
			op[k] = '-', txt[k] = a->p[i], len[k++] = a->n[i];
			i++;
		} else {
			op[k] = '+', txt[k] = b->p[j], len[k++] = b->n[j];
			j++;
		}
	}
	for (i = 0; i < k; i++) {
		bool near = op[i] != ' ' || (i > 0 && op[i - 1] != ' ') ||
			    (i + 1 < k && op[i + 1] != ' ');

		if (near)
			add_line(c, op[i], txt[i], len[i]);
		else if (c->out->n_lines && c->out->lines[c->out->n_lines -
			 1].op != '~' && i + 1 < k)
			add_line(c, '~', "", 0);
	}
	/* a trailing gap marker says nothing */
	while (c->out->n_lines && c->out->lines[c->out->n_lines - 1].op == '~')
		c->out->n_lines--;
out:
	free(t);
	free(op);
	free(txt);
	free(len);
}

static void
compare_templates(struct ctx *c)
{
	const struct qa_template *qt = NULL, *st = NULL;
	struct qa_prompt_diff *o = c->out;
	struct lines la = { 0 }, lb = { 0 };
	uint32_t i;

	for (i = 0; i < c->q->n_templates; i++)
		if (c->q->templates[i].primary && !c->q->templates[i].shadowed)
			qt = &c->q->templates[i];
	for (i = 0; i < c->s->n_templates; i++)
		if (c->s->templates[i].primary && !c->s->templates[i].shadowed)
			st = &c->s->templates[i];
	o->quant_template = qt ? qt->label : NULL;
	o->source_template = st ? st->label : NULL;
	o->quant_template_len = qt ? qt->full_len : 0;
	o->source_template_len = st ? st->full_len : 0;
	if (!qt && !st) {
		o->template_same = true;
		return;
	}
	if (!qt || !st) {
		finding(c, QA6320, qt ? "the GGUF has a chat template (%s), "
			"the source folder has none" :
			"the GGUF has no chat template; the source has one "
			"(%s): engines fall back to a built-in or none",
			qt ? qt->label : st->label);
		return;
	}
	if (!qt->text || !st->text || qt->len != qt->full_len ||
	    st->len != st->full_len) {
		finding(c, QA6326, "a chat template was not read whole "
			"(%s): it was not compared", !qt->text ||
			qt->len != qt->full_len ? qt->label : st->label);
		return;
	}
	o->template_same = qt->len == st->len &&
			   memcmp(qt->text, st->text, qt->len) == 0;
	if (o->template_same)
		return;
	if (split_lines(qt->text, qt->len, &la) &&
	    split_lines(st->text, st->len, &lb))
		diff_lines(c, &la, &lb);
	else if (!c->nomem)
		o->diff_too_long = true;
	free(la.p);
	free(la.n);
	free(lb.p);
	free(lb.n);
	{
		size_t minus = 0, plus = 0, k;
		char buf[96];

		for (k = 0; k < o->n_lines; k++)
			minus += o->lines[k].op == '-',
			plus += o->lines[k].op == '+';
		snprintf(buf, sizeof(buf), "%zu line(s) only in the GGUF, "
			 "%zu only in the source", minus, plus);
		finding(c, QA6320, "the GGUF's chat template differs from the "
			"source's as text (%s)", o->diff_too_long ?
			"too many lines to diff" : buf);
	}
}

/* ---- general.base_model.* -------------------------------------------- */

static const char *
kv_str(const struct qa_inventory *inv, const char *key)
{
	const struct qa_kv *kv = qa_inv_kv(inv, key);

	return kv && kv->value.type == QA_V_STRING ? kv->value.v.str.s : NULL;
}

/* Whether s ends with the path component name ("org/Name" ends with
 * "Name"), letters compared without case. */
static bool
names_folder(const char *s, const char *name)
{
	size_t ls = strlen(s), ln = strlen(name), i;

	if (!ln || ls < ln)
		return false;
	for (i = 0; i < ln; i++) {
		char x = s[ls - ln + i], y = name[i];

		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return ls == ln || s[ls - ln - 1] == '/';
}

static void
compare_base_model(struct ctx *c)
{
	const char *name = kv_str(c->q, QA_GGUF_GENERAL_BASE_MODEL0_NAME);
	const char *repo = kv_str(c->q, QA_GGUF_GENERAL_BASE_MODEL0_REPO_URL);
	const char *org = kv_str(c->q, QA_GGUF_GENERAL_BASE_MODEL0_ORG);
	const cJSON *np = qa_json_child(c->config, "_name_or_path");
	char folder[256], *slash;
	const char *said = repo ? repo : name;
	struct qa_prompt_item *it;

	if (!said)
		return;
	snprintf(folder, sizeof(folder), "%s", c->s->path);
	while (strlen(folder) > 1 && folder[strlen(folder) - 1] == '/')
		folder[strlen(folder) - 1] = '\0';
	slash = strrchr(folder, '/');
	it = item(c, "base_model", said, slash ? slash + 1 : folder);
	if (!it)
		return;
	it->same = (name && names_folder(name, slash ? slash + 1 : folder)) ||
		   (repo && names_folder(repo, slash ? slash + 1 : folder)) ||
		   (cJSON_IsString(np) && ((name && names_folder(np->valuestring,
		    name)) || (repo && names_folder(repo, np->valuestring))));
	(void)org;
	if (!it->same)
		finding(c, QA6325, "general.base_model.0 names '%s', which is "
			"not the source folder given ('%s')", said,
			slash ? slash + 1 : folder);
}

int
qa_prompt_compare(struct qa_arena *ar, const struct qa_inventory *a,
		  const struct qa_inventory *b, struct qa_prompt_diff *out)
{
	struct ctx c = { .ar = ar, .out = out };

	memset(out, 0, sizeof(*out));
	if (a->kind == QA_KIND_GGUF && b->kind == QA_KIND_HF_DIR)
		c.q = a, c.s = b, out->quant_is_a = true;
	else if (b->kind == QA_KIND_GGUF && a->kind == QA_KIND_HF_DIR)
		c.q = b, c.s = a;
	else
		return QA_OK;
	out->compared = true;
	c.tokcfg = side_json(&c, "tokenizer_config.json");
	c.tokjson = side_json(&c, "tokenizer.json");
	c.gencfg = side_json(&c, "generation_config.json");
	c.config = side_json(&c, "config.json");
	read_vocab(&c);
	compare_templates(&c);
	compare_id(&c, "bos", QA_GGUF_TOKENIZER_BOS_ID, "bos_token",
		   "bos_token_id", QA6321);
	compare_id(&c, "eos", QA_GGUF_TOKENIZER_EOS_ID, "eos_token",
		   "eos_token_id", QA6322);
	compare_id(&c, "pad", QA_GGUF_TOKENIZER_PAD_ID, "pad_token",
		   "pad_token_id", QA6323);
	compare_specials(&c);
	compare_base_model(&c);
	cJSON_Delete(c.tokcfg);
	cJSON_Delete(c.tokjson);
	cJSON_Delete(c.gencfg);
	cJSON_Delete(c.config);
	return c.nomem ? QA_E_NOMEM : QA_OK;
}
