/* SPDX-License-Identifier: MIT */
/*
 * JSON side files as their Python writers mean them (core/json_file.h).
 */
#include "core/json_file.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Python-only tokens and what cJSON reads in their place. The numbers
 * overflow a double, so strtod returns +/-HUGE_VAL, which is +/-inf. */
static const struct {
	const char *token;
	const char *json;
} python_tokens[] = {
	{ "-Infinity", "-1e999" },
	{ "Infinity", "1e999" },
	{ "NaN", "null" },
};

static bool
is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' ||
	       c == '-';
}

/*
 * Copies text into out (at least len + len/2 + 1 bytes) with the Python
 * tokens replaced outside strings; *map gets, per replacement, the output
 * offset after it and the shift, so error offsets can be mapped back.
 * Returns the output length.
 */
struct shift {
	size_t at;		/* output offset where the shift starts */
	long delta;		/* input offset = output offset - delta */
};

static size_t
rewrite(const char *text, size_t len, char *out, struct shift *map,
	size_t *n_map, size_t cap_map)
{
	size_t i = 0, o = 0;
	long delta = 0;
	bool in_str = false;

	*n_map = 0;
	while (i < len) {
		char c = text[i];
		size_t k;

		if (in_str) {
			/* the run up to the next quote or backslash, at once */
			size_t j = i;

			while (j < len && text[j] != '"' && text[j] != '\\')
				j++;
			memcpy(out + o, text + i, j - i);
			o += j - i;
			i = j;
			if (i >= len)
				break;
			c = text[i];
			out[o++] = c;
			i++;
			if (c == '\\' && i + 5 <= len &&
			    memcmp(text + i, "u0000", 5) == 0) {
				/* \u0000 would end cJSON's C string: the
				 * rest of the value would be lost to every
				 * reader of it. U+2400 (SYMBOL FOR NULL)
				 * keeps its place, same length. */
				memcpy(out + o, "u2400", 5);
				o += 5;
				i += 5;
			} else if (c == '\\' && i < len) {
				out[o++] = text[i++];
			} else if (c == '"') {
				in_str = false;
			}
			continue;
		}
		if (c == '"') {
			in_str = true;
			out[o++] = c;
			i++;
			continue;
		}
		/* every Python token starts with one of these */
		if (c != 'N' && c != 'I' && c != '-') {
			out[o++] = c;
			i++;
			continue;
		}
		for (k = 0; k < sizeof(python_tokens) / sizeof(python_tokens[0]);
		     k++) {
			const char *t = python_tokens[k].token;
			size_t tl = strlen(t), jl;

			if (len - i < tl || memcmp(text + i, t, tl) != 0 ||
			    (i > 0 && is_word_char(text[i - 1]) && c != '-') ||
			    (i + tl < len && is_word_char(text[i + tl])))
				continue;
			jl = strlen(python_tokens[k].json);
			memcpy(out + o, python_tokens[k].json, jl);
			o += jl;
			i += tl;
			delta += (long)jl - (long)tl;
			if (*n_map < cap_map) {
				map[*n_map].at = o;
				map[*n_map].delta = delta;
				(*n_map)++;
			}
			break;
		}
		if (k < sizeof(python_tokens) / sizeof(python_tokens[0]))
			continue;
		out[o++] = c;
		i++;
	}
	out[o] = '\0';
	return o;
}

/*
 * Whether text stops inside a string, an object or an array: a file cut
 * short. cJSON then points at the last bytes it read, not at the end.
 */
static bool
cut_short(const char *text, size_t len)
{
	size_t i;
	long depth = 0;
	bool in_string = false;

	for (i = 0; i < len; i++) {
		char c = text[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && --depth < 0) {
			return false;
		}
	}
	return in_string || depth > 0;
}

static void
describe_error(const char *text, size_t len, uint64_t off,
	       struct qa_json_error *err)
{
	uint64_t i;
	size_t last = len;

	/* An error at the last non-blank byte of a file cut short is its
	 * end: say so, rather than blame the byte. */
	while (last > 0 && (text[last - 1] == ' ' || text[last - 1] == '\n' ||
			    text[last - 1] == '\r' || text[last - 1] == '\t'))
		last--;
	if (off < len && last > 0 && off + 1 >= last && cut_short(text, len))
		off = len;
	err->offset = off;
	err->line = 1;
	err->column = 1;
	for (i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			err->line++;
			err->column = 1;
		} else {
			err->column++;
		}
	}
	if (off >= len) {
		snprintf(err->what, sizeof(err->what), "unexpected end of the "
			 "text%s", cut_short(text, len) ? " (a string, object "
			 "or array is not closed: the file looks cut short)" :
			 "");
	} else {
		unsigned char c = (unsigned char)text[off];

		if (c >= 0x20 && c < 0x7f)
			snprintf(err->what, sizeof(err->what),
				 "unexpected '%c'", c);
		else
			snprintf(err->what, sizeof(err->what),
				 "unexpected byte 0x%02x", c);
	}
}

cJSON *
qa_json_parse_python(const char *text, size_t len, struct qa_json_error *err)
{
	/* -Infinity (9) -> -1e999 (6), Infinity (8) -> 1e999 (5) shrink;
	 * NaN (3) -> null (4) grows by a third at most. */
	size_t cap = len + len / 3 + 8, n_map = 0, out_len;
	struct shift map[256];
	const char *end = NULL;
	cJSON *root;
	char *buf;

	if (err)
		memset(err, 0, sizeof(*err));
	buf = malloc(cap);
	if (!buf) {
		if (err)
			snprintf(err->what, sizeof(err->what), "out of memory");
		return NULL;
	}
	out_len = rewrite(text, len, buf, map, &n_map,
			  sizeof(map) / sizeof(map[0]));
	root = cJSON_ParseWithLengthOpts(buf, out_len, &end, 0);
	if (!root && err && qa_cjson_missing()) {
		snprintf(err->what, sizeof(err->what), "%s",
			 qa_cjson_missing());
	} else if (!root && err) {
		uint64_t off = end && end >= buf && end <= buf + out_len ?
			       (uint64_t)(end - buf) : out_len;
		long delta = 0;
		size_t i;

		for (i = 0; i < n_map && map[i].at <= off; i++)
			delta = map[i].delta;
		off = (long)off - delta < 0 ? 0 : (uint64_t)((long)off - delta);
		describe_error(text, len, off, err);
	}
	free(buf);
	return root;
}

cJSON *
qa_json_read_source(struct qa_source *src, uint64_t max_bytes,
		    struct qa_json_error *err)
{
	cJSON *root;
	char *buf;

	if (err)
		memset(err, 0, sizeof(*err));
	if (src->size > max_bytes) {
		if (err)
			snprintf(err->what, sizeof(err->what), "too large");
		return NULL;
	}
	buf = malloc((size_t)src->size + 1);
	if (!buf) {
		if (err)
			snprintf(err->what, sizeof(err->what), "out of memory");
		return NULL;
	}
	if (qa_source_read(src, 0, buf, (size_t)src->size) != QA_OK) {
		free(buf);
		if (err)
			snprintf(err->what, sizeof(err->what), "read error");
		return NULL;
	}
	root = qa_json_parse_python(buf, (size_t)src->size, err);
	free(buf);
	return root;
}

bool
qa_json_u53(const cJSON *x, uint64_t *out)
{
	double v;

	if (!cJSON_IsNumber(x))
		return false;
	v = x->valuedouble;
	if (!(v >= 0 && v <= 9007199254740992.0) ||
	    v != (double)(uint64_t)v)
		return false;
	*out = (uint64_t)v;
	return true;
}

const cJSON *
qa_json_child(const cJSON *obj, const char *key)
{
	const cJSON *c;

	if (!cJSON_IsObject(obj))
		return NULL;
	for (c = obj->child; c; c = c->next)
		if (c->string && strcmp(c->string, key) == 0)
			return c;
	return NULL;
}

/* ---- duplicate keys, as Python's dict keeps them ------------------------ */

struct member {
	cJSON *item;
	size_t pos;		/* position among the object's members */
};

static int
cmp_member(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	int c = strcmp(a->item->string, b->item->string);

	if (c)
		return c;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

struct collapse {
	qa_json_dup_fn fn;
	void *ctx;
	char path[QA_JSON_PATH_MAX];
	size_t path_len;
	long found;
	bool nomem;
};

/* Appends ".key" or "[i]" to the path (cut when full); returns the old
 * length to restore. */
static size_t
path_push(struct collapse *c, const char *key, size_t index)
{
	size_t old = c->path_len;
	int w;

	if (key)
		w = snprintf(c->path + old, sizeof(c->path) - old, "%s%s",
			     old ? "." : "", key);
	else
		w = snprintf(c->path + old, sizeof(c->path) - old, "[%zu]",
			     index);
	if (w > 0)
		c->path_len = old + (size_t)w < sizeof(c->path) ?
			      old + (size_t)w : sizeof(c->path) - 1;
	return old;
}

static void
path_pop(struct collapse *c, size_t old)
{
	c->path_len = old;
	c->path[old] = '\0';
}

/* One object's members: every key kept once, at its first position, with
 * its last value (json.loads builds a dict, and a dict assignment to an
 * existing key keeps the key's place). */
static void
collapse_object(struct collapse *c, cJSON *obj)
{
	struct member *m;
	cJSON *ch;
	size_t n = 0, i, j;

	for (ch = obj->child; ch; ch = ch->next)
		n++;
	if (n < 2)
		return;
	m = malloc(n * sizeof(*m));
	if (!m) {
		c->nomem = true;
		return;
	}
	for (i = 0, ch = obj->child; ch; ch = ch->next, i++) {
		m[i].item = ch;
		m[i].pos = i;
	}
	qsort(m, n, sizeof(*m), cmp_member);
	for (i = 0; i < n; i = j) {
		cJSON *last;
		size_t old;

		for (j = i + 1; j < n && strcmp(m[j].item->string,
						m[i].item->string) == 0; j++)
			;
		if (j - i < 2)
			continue;
		c->found++;
		if (c->fn) {
			old = path_push(c, m[i].item->string, 0);
			c->fn(c->ctx, c->path, m[i].item->string, j - i);
			path_pop(c, old);
		}
		last = cJSON_DetachItemViaPointer(obj, m[j - 1].item);
		for (size_t k = i + 1; k + 1 < j; k++)
			cJSON_Delete(cJSON_DetachItemViaPointer(obj,
								m[k].item));
		cJSON_ReplaceItemViaPointer(obj, m[i].item, last);
	}
	free(m);
}

static void
collapse_walk(struct collapse *c, cJSON *node)
{
	cJSON *ch;
	size_t i = 0, old;

	if (cJSON_IsObject(node))
		collapse_object(c, node);
	if (!cJSON_IsObject(node) && !cJSON_IsArray(node))
		return;
	for (ch = node->child; ch; ch = ch->next, i++) {
		if (!cJSON_IsObject(ch) && !cJSON_IsArray(ch))
			continue;
		old = path_push(c, cJSON_IsObject(node) ? ch->string : NULL,
				i);
		collapse_walk(c, ch);
		path_pop(c, old);
	}
}

long
qa_json_collapse_duplicates(cJSON *root, qa_json_dup_fn fn, void *ctx)
{
	struct collapse *c = calloc(1, sizeof(*c));
	long found;

	if (!c)
		return -1;
	c->fn = fn;
	c->ctx = ctx;
	collapse_walk(c, root);
	found = c->nomem ? -1 : c->found;
	free(c);
	return found;
}
