/* SPDX-License-Identifier: MIT */
/*
 * safetensors file reader: the 8-byte little-endian header length N, the
 * N-byte JSON header, and a byte buffer that is never read.
 *
 * It enforces every rule of the reference Rust reader
 * (huggingface/safetensors `SafeTensors::read_metadata` and
 * `Metadata::validate`, see shared/knowledge/formats-and-security.md §2.3)
 * and reports each violation as a QA12xx finding instead of stopping, so
 * one run lists everything wrong with a file. Where the reference is laxer
 * than the README (leading whitespace, duplicate keys) we flag rather than
 * silently accept.
 *
 * The JSON is parsed with cJSON, which is laxer than serde_json (it
 * accepts raw control characters, a UTF-8 BOM, trailing garbage, leading
 * zeros and floats where integers are expected, and keeps duplicate keys).
 * A small lexical pass (scan_header) over the raw bytes therefore runs
 * first: it validates UTF-8, rejects what strict JSON rejects, flags
 * numbers that are not plain non-negative integers and escaped NULs in
 * tensor names, records the byte offset of every top-level key (so each
 * finding carries a file offset), and bounds the number of JSON nodes
 * before cJSON allocates them.
 */
#include "formats/format.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/ckd.h"
#include "core/dtypes.h"

/* MAX_HEADER_SIZE of the reference reader (safetensors/src/tensor.rs). */
#define ST_MAX_HEADER ((uint64_t)100000000)

/*
 * Integers above 2^53 cannot come out of cJSON's double exactly. The
 * JSON schema (docs/safetensors.schema.json) caps shape and offsets at
 * 2^48 - 1, so 2^53 loses no real file.
 */
#define ST_MAX_INT 9007199254740992.0

/*
 * cJSON allocates one node (64 bytes on LP64) per value plus its strings;
 * refusing headers with more nodes than this keeps a hostile 100 MB header
 * of "[0,0,0,..." from costing gigabytes. A 100k-tensor header needs
 * about 1M nodes.
 */
#define ST_MAX_NODES ((uint64_t)16 << 20)

/* Per top-level key facts found by the lexical pass. */
struct st_key {
	uint64_t off;		/* offset of the key's '"' in the header */
	uint64_t bad_num_off;	/* first non-integer number in its value */
	bool bad_num;
	bool nul_name;		/* key contains an escaped NUL */
};

struct st_scan {
	struct st_key *keys;
	size_t n_keys, cap_keys;
	uint64_t nodes;
	uint64_t err_off;	/* offset of the first error */
	const char *err;	/* NULL when the header is lexically fine */
	bool utf8_err;		/* the error is invalid UTF-8 */
};

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or 0 when invalid. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;	/* overlong 3-byte */
	else if (c == 0xED)
		hi = 0x9F;	/* UTF-16 surrogates */
	else if (c == 0xF0)
		lo = 0x90;	/* overlong 4-byte */
	else if (c == 0xF4)
		hi = 0x8F;	/* above U+10FFFF */
	if (n < len)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

static bool
is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static void
scan_fail(struct st_scan *sc, uint64_t off, const char *why)
{
	if (!sc->err) {
		sc->err = why;
		sc->err_off = off;
	}
}

static bool
scan_add_key(struct st_scan *sc, uint64_t off)
{
	if (sc->n_keys == sc->cap_keys) {
		size_t ncap = sc->cap_keys ? sc->cap_keys * 2 : 64;
		struct st_key *nk;

		if (ncap > SIZE_MAX / sizeof(*nk))
			return false;
		nk = realloc(sc->keys, ncap * sizeof(*nk));
		if (!nk)
			return false;
		sc->keys = nk;
		sc->cap_keys = ncap;
	}
	memset(&sc->keys[sc->n_keys], 0, sizeof(sc->keys[0]));
	sc->keys[sc->n_keys++].off = off;
	return true;
}

/*
 * Lexical pass over the header. Returns false only when out of memory;
 * lexical problems are left in sc->err / sc->err_off.
 */
static bool
scan_header(const unsigned char *p, size_t n, struct st_scan *sc)
{
	size_t i;
	unsigned depth = 0;
	bool in_str = false, esc = false, key_str = false;
	bool expect_key = false, root_done = false;

	for (i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);

		if (k == 0) {
			sc->utf8_err = true;
			scan_fail(sc, i, "invalid UTF-8");
			return true;
		}
		i += k;
	}
	for (i = 0; i < n && !sc->err; i++) {
		unsigned char c = p[i];

		if (in_str) {
			if (esc) {
				esc = false;
				if (c == 'u') {
					if (n - i < 5 || !is_hex(p[i + 1]) ||
					    !is_hex(p[i + 2]) ||
					    !is_hex(p[i + 3]) ||
					    !is_hex(p[i + 4])) {
						scan_fail(sc, i, "bad \\u escape");
						break;
					}
					if (key_str && memcmp(p + i + 1, "0000",
							      4) == 0)
						sc->keys[sc->n_keys - 1]
							.nul_name = true;
					i += 4;
				} else if (!strchr("\"\\/bfnrt", c) || c == 0) {
					scan_fail(sc, i, "bad escape");
				}
				continue;
			}
			if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
			else if (c < 0x20)
				scan_fail(sc, i, "control character in a string");
			continue;
		}
		if (is_ws(c))
			continue;
		if (root_done) {
			scan_fail(sc, i, "content after the JSON object");
			break;
		}
		if (depth == 0 && c != '{') {
			scan_fail(sc, i, "header is not a JSON object");
			break;
		}
		sc->nodes++;
		switch (c) {
		case '"':
			in_str = true;
			key_str = depth == 1 && expect_key;
			if (key_str) {
				sc->nodes--;	/* keys live in their value's node */
				if (!scan_add_key(sc, i))
					return false;
			}
			break;
		case '{':
		case '[':
			if (depth >= CJSON_NESTING_LIMIT) {
				scan_fail(sc, i, "nesting too deep");
				break;
			}
			depth++;
			if (depth == 1)
				expect_key = true;
			break;
		case '}':
		case ']':
			sc->nodes--;
			if (depth == 0) {
				scan_fail(sc, i, "unbalanced bracket");
				break;
			}
			depth--;
			if (depth == 0)
				root_done = true;
			break;
		case ',':
			sc->nodes--;
			if (depth == 1)
				expect_key = true;
			break;
		case ':':
			sc->nodes--;
			if (depth == 1)
				expect_key = false;
			break;
		case 't':
		case 'f':
		case 'n':
			while (i + 1 < n && p[i + 1] >= 'a' && p[i + 1] <= 'z')
				i++;
			break;
		default:
			if (c == '-' || (c >= '0' && c <= '9')) {
				size_t j = i;
				bool plain = true;

				while (j < n && (strchr("+-.eE", p[j]) ||
						 (p[j] >= '0' && p[j] <= '9')) &&
				       p[j] != 0) {
					if (p[j] < '0' || p[j] > '9')
						plain = false;
					j++;
				}
				if (j - i > 1 && p[i] == '0')
					plain = false;	/* leading zero */
				if (!plain && sc->n_keys > 0 &&
				    !sc->keys[sc->n_keys - 1].bad_num) {
					sc->keys[sc->n_keys - 1].bad_num = true;
					sc->keys[sc->n_keys - 1].bad_num_off = i;
				}
				i = j - 1;
				break;
			}
			scan_fail(sc, i, "unexpected character");
			break;
		}
	}
	if (!sc->err && (in_str || depth != 0 || !root_done))
		scan_fail(sc, n, "header ends inside the JSON object");
	return true;
}

/* A JSON number that is an exact non-negative integer <= 2^53. */
static bool
json_uint(const cJSON *j, uint64_t *out)
{
	double d;

	if (!cJSON_IsNumber(j))
		return false;
	d = j->valuedouble;
	if (!(d >= 0.0) || d > ST_MAX_INT || d != (double)(uint64_t)d)
		return false;
	*out = (uint64_t)d;
	return true;
}

static int
cmp_child_name(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a;
	const cJSON *y = *(const cJSON *const *)b;
	int r = strcmp(x->string, y->string);

	/* Tie-break on position keeps the first occurrence first. */
	if (r == 0)
		r = (x->valueint > y->valueint) - (x->valueint < y->valueint);
	return r;
}

struct st_entry {
	const char *name;
	uint64_t begin, end;
	uint64_t key_off;	/* absolute file offset of the key */
};

static int
cmp_entry(const void *a, const void *b)
{
	const struct st_entry *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

struct st_ctx {
	struct qa_inventory *inv;
	uint32_t file_index;
	const char *path;
	uint64_t data_start;	/* 8 + N */
	uint64_t file_size;
	struct st_scan *sc;
	bool keys_ok;		/* sc->keys[i] matches the i-th child */
};

static uint64_t
key_offset(const struct st_ctx *c, size_t idx)
{
	if (c->keys_ok && idx < c->sc->n_keys)
		return 8 + c->sc->keys[idx].off;
	return 8;
}

/*
 * Marks duplicate children of obj (valueint is repurposed as the child's
 * position, which cJSON leaves unused for objects and strings). Returns
 * false when out of memory. dup[i] becomes true for every later copy.
 */
static bool
find_dups(cJSON *obj, size_t n, bool *dup)
{
	cJSON **v, *ch;
	size_t i = 0;

	if (n == 0)
		return true;
	v = malloc(n * sizeof(*v));
	if (!v)
		return false;
	for (ch = obj->child; ch && i < n; ch = ch->next, i++) {
		ch->valueint = (int)i;
		v[i] = ch;
	}
	qsort(v, i, sizeof(*v), cmp_child_name);
	for (size_t k = 1; k < i; k++)
		if (strcmp(v[k]->string, v[k - 1]->string) == 0)
			dup[v[k]->valueint] = true;
	free(v);
	return true;
}

static int
load_metadata(struct st_ctx *c, cJSON *md, size_t idx)
{
	struct qa_inventory *inv = c->inv;
	size_t n = 0, i = 0;
	cJSON *ch;
	bool *dup;
	int rc = QA_OK;

	if (!cJSON_IsObject(md)) {
		qa_inv_finding(inv, QA1216, c->path, (int64_t)key_offset(c, idx),
			       NULL, "__metadata__ is not a JSON object");
		return QA_OK;
	}
	for (ch = md->child; ch; ch = ch->next)
		n++;
	dup = calloc(n ? n : 1, sizeof(*dup));
	if (!dup || !find_dups(md, n, dup)) {
		free(dup);
		return QA_E_NOMEM;
	}
	for (ch = md->child; ch; ch = ch->next, i++) {
		struct qa_kv *kv;
		size_t len, keep;

		if (dup[i]) {
			qa_inv_finding(inv, QA1208, c->path,
				       (int64_t)key_offset(c, idx), NULL,
				       "__metadata__ key \"%s\" appears twice",
				       ch->string);
			continue;
		}
		if (!cJSON_IsString(ch)) {
			qa_inv_finding(inv, QA1216, c->path,
				       (int64_t)key_offset(c, idx), NULL,
				       "__metadata__ value of \"%s\" is not a string",
				       ch->string);
			continue;
		}
		kv = qa_inv_add_kv(inv);
		if (!kv) {
			rc = QA_E_NOMEM;
			break;
		}
		len = strlen(ch->valuestring);
		keep = len > QA_KV_KEEP_STRING ? (size_t)QA_KV_KEEP_STRING : len;
		kv->key = qa_arena_strdup(&inv->arena, ch->string);
		kv->value.type = QA_V_STRING;
		kv->value.v.str.s = qa_arena_strndup(&inv->arena,
						      ch->valuestring, keep);
		kv->value.v.str.len = len;
		kv->file = c->file_index;
		kv->offset = key_offset(c, idx);
		if (!kv->key || !kv->value.v.str.s) {
			inv->out_of_memory = true;
			rc = QA_E_NOMEM;
			break;
		}
	}
	free(dup);
	return rc;
}

/* Reads shape or data_offsets; false with *why set when malformed. */
static bool
read_uint_array(const cJSON *a, uint64_t *out, size_t max, size_t *n,
		const char **why)
{
	const cJSON *e;
	size_t k = 0;

	if (!cJSON_IsArray(a)) {
		*why = "is not an array";
		return false;
	}
	for (e = a->child; e; e = e->next) {
		if (k >= max) {
			*why = "has too many elements";
			return false;
		}
		if (!json_uint(e, &out[k])) {
			*why = "holds a value that is not a non-negative integer <= 2^53";
			return false;
		}
		k++;
	}
	*n = k;
	return true;
}

/*
 * Validates one tensor entry and adds it to the inventory. Entries with
 * usable offsets are appended to ents for the buffer checks.
 */
static int
load_entry(struct st_ctx *c, cJSON *e, size_t idx, struct st_entry *ents,
	   size_t *n_ents)
{
	struct qa_inventory *inv = c->inv;
	const char *name = e->string;
	int64_t koff = (int64_t)key_offset(c, idx);
	const cJSON *dtype = NULL, *shape = NULL, *offs = NULL, *ch;
	const struct qa_st_dtype *dt;
	uint64_t dims[QA_MAX_DIMS], off[3], elements = 1, bits = 0;
	uint64_t abs_off;
	size_t rank = 0, n_off = 0, i;
	const char *why = NULL;
	bool size_ok = true;
	struct qa_tensor *t;

	if (c->keys_ok && idx < c->sc->n_keys) {
		const struct st_key *k = &c->sc->keys[idx];

		if (k->nul_name) {
			qa_inv_finding(inv, QA1206, c->path, koff, name,
				       "tensor name contains an escaped NUL (\\u0000): C readers see a truncated name");
			return QA_OK;
		}
		if (k->bad_num) {
			qa_inv_finding(inv, QA1206, c->path,
				       (int64_t)(8 + k->bad_num_off), name,
				       "number is not a plain non-negative integer (sign, fraction, exponent or leading zero)");
			return QA_OK;
		}
	}
	if (!cJSON_IsObject(e)) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "tensor entry is not a JSON object");
		return QA_OK;
	}
	for (ch = e->child; ch; ch = ch->next) {
		const cJSON **slot = NULL;

		if (strcmp(ch->string, "dtype") == 0)
			slot = &dtype;
		else if (strcmp(ch->string, "shape") == 0)
			slot = &shape;
		else if (strcmp(ch->string, "data_offsets") == 0)
			slot = &offs;
		if (!slot)
			continue;	/* unknown fields: ignored, as the reference */
		if (*slot) {
			qa_inv_finding(inv, QA1206, c->path, koff, name,
				       "field \"%s\" appears twice", ch->string);
			return QA_OK;
		}
		*slot = ch;
	}
	if (!dtype || !shape || !offs) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "tensor entry lacks %s", !dtype ? "dtype" :
			       !shape ? "shape" : "data_offsets");
		return QA_OK;
	}
	if (!cJSON_IsString(dtype)) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "dtype is not a string");
		return QA_OK;
	}
	if (!read_uint_array(shape, dims, QA_MAX_DIMS, &rank, &why)) {
		qa_inv_finding(inv, QA1206, c->path, koff, name, "shape %s%s",
			       why, strcmp(why, "has too many elements") == 0 ?
			       " (rank above 8)" : "");
		return QA_OK;
	}
	if (!read_uint_array(offs, off, 3, &n_off, &why) || n_off != 2) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "data_offsets %s", why ? why :
			       "does not hold exactly two integers");
		return QA_OK;
	}
	if (off[1] < off[0]) {
		qa_inv_finding(inv, QA1206, c->path, koff, name,
			       "data_offsets END %llu is below BEGIN %llu",
			       (unsigned long long)off[1],
			       (unsigned long long)off[0]);
		return QA_OK;
	}
	dt = qa_st_dtype(dtype->valuestring);
	if (!dt) {
		qa_inv_finding(inv, QA1207, c->path, koff, name,
			       "unknown dtype \"%s\"", dtype->valuestring);
		size_ok = false;
	}
	/* Left fold with a checked multiply, like the reference: a product
	 * that wraps (even to 0) is caught at the step that overflows. */
	for (i = 0; i < rank; i++) {
		if (qa_ckd_mul(&elements, elements, dims[i])) {
			qa_inv_finding(inv, QA1217, c->path, koff, name,
				       "shape product overflows 64 bits");
			size_ok = false;
			elements = 0;
			break;
		}
	}
	if (size_ok && qa_ckd_mul(&bits, elements, dt->bits)) {
		qa_inv_finding(inv, QA1217, c->path, koff, name,
			       "%llu elements of %s overflow 64 bits",
			       (unsigned long long)elements, dt->name);
		size_ok = false;
	}
	if (size_ok && bits % 8 != 0) {
		qa_inv_finding(inv, QA1214, c->path, koff, name,
			       "%llu elements of %u-bit %s do not fill whole bytes",
			       (unsigned long long)elements, dt->bits, dt->name);
		size_ok = false;
	}
	if (size_ok && off[1] - off[0] != bits / 8)
		qa_inv_finding(inv, QA1209, c->path, koff, name,
			       "data_offsets span %llu bytes, shape and %s need %llu",
			       (unsigned long long)(off[1] - off[0]), dt->name,
			       (unsigned long long)(bits / 8));

	if (qa_ckd_add(&abs_off, c->data_start, off[0]))
		abs_off = UINT64_MAX;
	t = qa_inv_add_tensor(inv);
	if (!t)
		return QA_E_NOMEM;
	t->name = qa_arena_strdup(&inv->arena, name);
	t->dtype = dt ? dt->name : qa_arena_strdup(&inv->arena,
						   dtype->valuestring);
	if (!t->name || !t->dtype) {
		inv->out_of_memory = true;
		return QA_E_NOMEM;
	}
	t->file = c->file_index;
	t->offset = abs_off;
	t->bytes = off[1] - off[0];
	t->ggml_type = -1;
	t->n_dims = (uint32_t)rank;
	for (i = 0; i < rank; i++)
		t->shape[i] = dims[i];
	t->elements = elements;
	inv->files[c->file_index].tensor_count++;

	ents[*n_ents].name = t->name;
	ents[*n_ents].begin = off[0];
	ents[*n_ents].end = off[1];
	ents[*n_ents].key_off = (uint64_t)koff;
	(*n_ents)++;
	return QA_OK;
}

/* Sorted by offset the entries must tile [0, buffer) exactly. */
static void
check_buffer(struct st_ctx *c, struct st_entry *ents, size_t n)
{
	struct qa_inventory *inv = c->inv;
	uint64_t cursor = 0, buffer = c->file_size - c->data_start;
	bool past_eof = false;
	size_t i;

	qsort(ents, n, sizeof(*ents), cmp_entry);
	for (i = 0; i < n; i++) {
		const struct st_entry *e = &ents[i];

		if (e->begin > cursor)
			qa_inv_finding(inv, QA1210, c->path,
				       (int64_t)e->key_off, e->name,
				       "%llu unindexed bytes before this tensor (buffer offset %llu, expected %llu)",
				       (unsigned long long)(e->begin - cursor),
				       (unsigned long long)e->begin,
				       (unsigned long long)cursor);
		else if (e->begin < cursor && e->end > e->begin)
			qa_inv_finding(inv, QA1211, c->path,
				       (int64_t)e->key_off, e->name,
				       "tensor starts at buffer offset %llu, inside the previous tensor (which ends at %llu)",
				       (unsigned long long)e->begin,
				       (unsigned long long)cursor);
		if (e->end > cursor)
			cursor = e->end;
		if (e->end > buffer) {
			past_eof = true;
			qa_inv_finding(inv, QA1212, c->path,
				       (int64_t)e->key_off, e->name,
				       "tensor ends at buffer offset %llu, the buffer holds %llu bytes",
				       (unsigned long long)e->end,
				       (unsigned long long)buffer);
		}
	}
	if (!past_eof && cursor < buffer)
		qa_inv_finding(inv, QA1213, c->path,
			       (int64_t)(c->data_start + cursor), NULL,
			       "%llu bytes follow the last tensor",
			       (unsigned long long)(buffer - cursor));
}

static int
parse_header(struct st_ctx *c, char *hdr, size_t n)
{
	struct qa_inventory *inv = c->inv;
	struct st_scan *sc = c->sc;
	cJSON *root, *ch;
	const char *end = NULL;
	struct st_entry *ents = NULL;
	size_t n_children = 0, n_ents = 0, i;
	bool *dup = NULL;
	int rc = QA_OK;

	if (!scan_header((const unsigned char *)hdr, n, sc))
		return QA_E_NOMEM;
	if (sc->err) {
		qa_inv_finding(inv, sc->utf8_err ? QA1204 : QA1205, c->path,
			       (int64_t)(8 + sc->err_off), NULL,
			       "%s at header byte %llu", sc->err,
			       (unsigned long long)sc->err_off);
		return QA_OK;
	}
	if (sc->nodes > ST_MAX_NODES) {
		qa_inv_finding(inv, QA1901, c->path, 8, NULL,
			       "header has %llu JSON values, more than the %llu quantaudit parses",
			       (unsigned long long)sc->nodes,
			       (unsigned long long)ST_MAX_NODES);
		return QA_OK;
	}
	if (n > 0 && hdr[0] != '{')
		qa_inv_finding(inv, QA1215, c->path, 8, NULL,
			       "header starts with whitespace before '{'");
	root = cJSON_ParseWithLengthOpts(hdr, n, &end, 0);
	if (!root || !cJSON_IsObject(root)) {
		qa_inv_finding(inv, QA1205, c->path, 8, NULL,
			       "header does not parse as a JSON object%s",
			       root ? "" : " (invalid JSON or string escape)");
		cJSON_Delete(root);
		return QA_OK;
	}
	for (ch = root->child; ch; ch = ch->next)
		n_children++;
	c->keys_ok = n_children == sc->n_keys;
	dup = calloc(n_children ? n_children : 1, sizeof(*dup));
	ents = calloc(n_children ? n_children : 1, sizeof(*ents));
	if (!dup || !ents || !find_dups(root, n_children, dup)) {
		rc = QA_E_NOMEM;
		goto out;
	}
	for (ch = root->child, i = 0; ch; ch = ch->next, i++) {
		if (dup[i]) {
			qa_inv_finding(inv, QA1208, c->path,
				       (int64_t)key_offset(c, i),
				       strcmp(ch->string, "__metadata__") ?
				       ch->string : NULL,
				       "key \"%s\" appears more than once; the reference reader keeps the last, others the first",
				       ch->string);
			continue;
		}
		if (strcmp(ch->string, "__metadata__") == 0)
			rc = load_metadata(c, ch, i);
		else
			rc = load_entry(c, ch, i, ents, &n_ents);
		if (rc != QA_OK)
			goto out;
	}
	check_buffer(c, ents, n_ents);
out:
	free(dup);
	free(ents);
	cJSON_Delete(root);
	return rc;
}

int
qa_st_load_file(struct qa_inventory *inv, uint32_t file_index, struct qa_source *src)
{
	struct qa_file *f = &inv->files[file_index];
	const char *path = f->path;
	unsigned char len8[8];
	struct st_scan sc;
	struct st_ctx c;
	uint64_t n = 0, hend;
	char *hdr;
	int rc, i;

	f->format = "safetensors";
	f->bytes = src->size;
	if (src->size < 8) {
		qa_inv_finding(inv, QA1201, path, 0, NULL,
			       "file has %llu bytes, fewer than the 8-byte header length",
			       (unsigned long long)src->size);
		return QA_OK;
	}
	rc = qa_source_read(src, 0, len8, sizeof(len8));
	if (rc != QA_OK)
		return rc == QA_E_SHORT ? QA_E_IO : rc;
	for (i = 7; i >= 0; i--)
		n = n << 8 | len8[i];
	if (n > ST_MAX_HEADER) {
		qa_inv_finding(inv, QA1202, path, 0, NULL,
			       "header length %llu exceeds 100,000,000",
			       (unsigned long long)n);
		return QA_OK;
	}
	if (qa_ckd_add(&hend, 8, n) || hend > src->size) {
		qa_inv_finding(inv, QA1203, path, 0, NULL,
			       "header length %llu needs %llu bytes, the file has %llu",
			       (unsigned long long)n,
			       (unsigned long long)(8 + n),
			       (unsigned long long)src->size);
		return QA_OK;
	}
	f->header_bytes = hend;
	f->data_offset = hend;
	hdr = malloc((size_t)n + 1);
	if (!hdr)
		return QA_E_NOMEM;
	rc = qa_source_read(src, 8, hdr, (size_t)n);
	if (rc != QA_OK) {
		free(hdr);
		return rc == QA_E_SHORT ? QA_E_IO : rc;
	}
	hdr[n] = '\0';
	memset(&sc, 0, sizeof(sc));
	memset(&c, 0, sizeof(c));
	c.inv = inv;
	c.file_index = file_index;
	c.path = path;
	c.data_start = hend;
	c.file_size = src->size;
	c.sc = &sc;
	rc = parse_header(&c, hdr, (size_t)n);
	free(sc.keys);
	free(hdr);
	if (rc == QA_E_NOMEM)
		inv->out_of_memory = true;
	return rc;
}

/*
 * A safetensors file starts with a little-endian length and a JSON object
 * (possibly after whitespace). A length that does not fit the file still
 * means safetensors (truncated); only the '{' decides.
 */
int
qa_st_probe(const uint8_t *buf, size_t len, uint64_t file_size)
{
	uint64_t n = 0;
	size_t i;
	int k;

	if (len < 9)
		return 0;
	for (k = 7; k >= 0; k--)
		n = n << 8 | buf[k];
	if (n < 2)
		return 0;
	for (i = 8; i < len && is_ws(buf[i]); i++)
		;
	if (i >= len || buf[i] != '{')
		return 0;
	if (file_size >= 8 && n <= ST_MAX_HEADER && n <= file_size - 8)
		return 90;
	return 50;
}
