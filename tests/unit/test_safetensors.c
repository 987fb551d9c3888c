/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the safetensors reader (formats/safetensors.c), sets and
 * indexes (formats/st_set.c), the Hugging Face folder (formats/hf_dir.c)
 * and config.json normalization (formats/hf_config.c).
 *
 * Every case writes a byte image into a fresh mkdtemp folder and asserts
 * values computed by hand here (absolute offset = 8 + N + BEGIN with N the
 * header length, bytes = elements x dtype width) and the exact set of
 * finding codes. When the real-file corpus is present (QA_CORPUS, else
 * ../shared/corpus), every tensor of each corpus/hf/ folder is compared with
 * expected/safetensors.json, written by an independent reader.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/json_file.h"
#include "formats/format.h"
#include "harness.h"

/* ---- writing images ------------------------------------------------- */

/* 8-byte LE length of hdr, hdr, then data_bytes zero bytes. */
static void
write_st_len(const char *rel, const char *hdr, size_t hlen, uint64_t n,
	     size_t data_bytes)
{
	size_t total = 8 + hlen + data_bytes;
	unsigned char *b = calloc(1, total);
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(n >> (8 * i));
	memcpy(b + 8, hdr, hlen);
	th_write(rel, b, total);
	free(b);
}

static void
write_st(const char *rel, const char *hdr, size_t data_bytes)
{
	write_st_len(rel, hdr, strlen(hdr), strlen(hdr), data_bytes);
}

/* ---- inspecting ------------------------------------------------------ */

static struct qa_inventory *
load(const char *rel)
{
	struct qa_inventory *inv = qa_inventory_create(th_path(rel));
	int rc;

	if (!inv)
		exit(2);
	rc = qa_st_load_path(inv, th_path(rel));
	CHECKF(rc == QA_OK, "load %s: rc %d", rel, rc);
	return inv;
}

static struct qa_inventory *
load_dir(const char *rel)
{
	struct qa_inventory *inv = qa_inventory_create(th_path(rel));
	int rc;

	if (!inv)
		exit(2);
	rc = qa_hf_load_dir(inv, th_path(rel));
	CHECKF(rc == QA_OK, "load dir %s: rc %d", rel, rc);
	return inv;
}

static const struct qa_tensor *
tensor(const struct qa_inventory *inv, const char *name)
{
	for (uint32_t i = 0; i < inv->n_tensors; i++)
		if (strcmp(inv->tensors[i].name, name) == 0)
			return &inv->tensors[i];
	return NULL;
}

/* Writes hdr + data to `rel`, loads it, checks the codes, frees. */
static void
case_codes(const char *rel, const char *hdr, size_t data, unsigned code)
{
	struct qa_inventory *inv;

	write_st(rel, hdr, data);
	inv = load(rel);
	if (code)
		CHECK_CODE_LIST(inv, rel, code);
	else
		CHECK_CODE_LIST(inv, rel, 0u);
	qa_inventory_destroy(inv);
}

/* ---- single files ------------------------------------------------------ */

static void
test_valid(void)
{
	const char *hdr =
		"{\"b\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[24,32]},"
		"\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
		"\"s\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[32,33]},"
		"\"__metadata__\":{\"format\":\"pt\"}}   ";
	uint64_t n = strlen(hdr);
	struct qa_inventory *inv;
	const struct qa_tensor *a, *b, *s;
	const struct qa_kv *kv;

	write_st("valid.safetensors", hdr, 33);
	inv = load("valid.safetensors");
	CHECK_CODE_LIST(inv, "valid", 0u);
	CHECK_EQ(inv->kind, QA_KIND_SAFETENSORS);
	CHECK_EQ(inv->n_files, 1);
	CHECK_EQ(inv->files[0].role, QA_FILE_MODEL);
	CHECK(strcmp(inv->files[0].format, "safetensors") == 0);
	CHECK_EQ(inv->files[0].bytes, 8 + n + 33);
	CHECK_EQ(inv->files[0].header_bytes, 8 + n);
	CHECK_EQ(inv->files[0].data_offset, 8 + n);
	CHECK_EQ(inv->files[0].tensor_count, 3);
	CHECK_EQ(inv->n_tensors, 3);
	a = tensor(inv, "a");
	b = tensor(inv, "b");
	s = tensor(inv, "s");
	CHECK(a && b && s);
	if (a && b && s) {
		CHECK_EQ(a->offset, 8 + n + 0);
		CHECK_EQ(a->bytes, 24);
		CHECK(strcmp(a->dtype, "F32") == 0);
		CHECK_EQ(a->ggml_type, -1);
		CHECK_EQ(a->n_dims, 2);
		CHECK_EQ(a->shape[0], 2);
		CHECK_EQ(a->shape[1], 3);
		CHECK_EQ(a->elements, 6);
		CHECK_EQ(b->offset, 8 + n + 24);
		CHECK_EQ(b->bytes, 8);
		CHECK(strcmp(b->dtype, "BF16") == 0);
		CHECK_EQ(b->n_dims, 1);
		CHECK_EQ(b->elements, 4);
		CHECK_EQ(s->n_dims, 0);
		CHECK_EQ(s->elements, 1);
		CHECK_EQ(s->offset, 8 + n + 32);
	}
	kv = qa_inv_kv(inv, "format");
	CHECK(kv && kv->value.type == QA_V_STRING &&
	      strcmp(kv->value.v.str.s, "pt") == 0 && kv->value.v.str.len == 2);
	qa_inventory_destroy(inv);
}

static void
test_lengths(void)
{
	struct qa_inventory *inv;
	const char *big = "{}";

	th_write("short.safetensors", "\x02\0\0\0\0", 5);
	inv = load("short.safetensors");
	CHECK_CODE_LIST(inv, "short", QA1201);
	CHECK_EQ(inv->n_tensors, 0);
	qa_inventory_destroy(inv);

	/* Exactly 8 bytes of length 0: an empty header is not JSON. */
	write_st_len("n0.safetensors", "", 0, 0, 0);
	inv = load("n0.safetensors");
	CHECK_CODE_LIST(inv, "n0", QA1205);
	qa_inventory_destroy(inv);

	write_st_len("huge.safetensors", big, 2, 100000001ull, 0);
	inv = load("huge.safetensors");
	CHECK_CODE_LIST(inv, "N = 100,000,001", QA1202);
	qa_inventory_destroy(inv);

	/* N = 100,000,000 is allowed; the short file is the problem. */
	write_st_len("limit.safetensors", big, 2, 100000000ull, 0);
	inv = load("limit.safetensors");
	CHECK_CODE_LIST(inv, "N = 100,000,000", QA1203);
	qa_inventory_destroy(inv);

	write_st_len("max.safetensors", big, 2, UINT64_MAX, 0);
	inv = load("max.safetensors");
	CHECK_CODE_LIST(inv, "N = 2^64-1", QA1202);
	qa_inventory_destroy(inv);

	write_st_len("trunc.safetensors", big, 2, 3, 0);
	inv = load("trunc.safetensors");
	CHECK_CODE_LIST(inv, "8+N > file", QA1203);
	qa_inventory_destroy(inv);

	case_codes("empty-obj.safetensors", "{}", 0, 0);
}

static void
test_header_text(void)
{
	/* Overlong '/', a UTF-8 encoded surrogate, a byte above U+10FFFF. */
	case_codes("overlong.safetensors",
		   "{\"__metadata__\":{\"k\":\"\xC0\xAF\"}}", 0, QA1204);
	case_codes("surrogate.safetensors",
		   "{\"__metadata__\":{\"k\":\"\xED\xA0\x80\"}}", 0, QA1204);
	case_codes("f5.safetensors",
		   "{\"__metadata__\":{\"k\":\"\xF5\x80\x80\x80\"}}", 0, QA1204);
	case_codes("utf8-ok.safetensors",
		   "{\"__metadata__\":{\"k\":\"\xC3\xA9\xF0\x9F\x98\x80\xEF\xBF\xBF\"}}",
		   0, 0);
	/* An escaped lone surrogate is invalid JSON text for the reader. */
	case_codes("esc-surrogate.safetensors",
		   "{\"__metadata__\":{\"k\":\"\\ud800\"}}", 0, QA1205);

	case_codes("array.safetensors", "[]", 0, QA1205);
	case_codes("string.safetensors", "\"x\"", 0, QA1205);
	case_codes("unterminated.safetensors", "{\"a\":{}", 0, QA1205);
	case_codes("bom.safetensors", "\xEF\xBB\xBF{}", 0, QA1205);
	case_codes("garbage.safetensors", "{} x", 0, QA1205);
	case_codes("ctrl.safetensors", "{\"__metadata__\":{\"k\":\"a\x01\"}}", 0,
		   QA1205);
	case_codes("trailing-ws.safetensors", "{}  \t\n ", 0, 0);
	case_codes("leading-ws.safetensors", " \t\n{}", 0, QA1215);
}

/*
 * The one-pass header scanner (formats/safetensors.c): escapes decoded
 * as JSON (RFC 8259 section 7) before names are compared, surrogates in
 * pairs only (serde_json refuses a lone one), grammar errors anywhere,
 * the nesting bound, exact integers up to 2^53.
 */
static void
test_scanner(void)
{
	struct qa_inventory *inv;
	const struct qa_tensor *t;
	char *hdr;
	size_t i, k;

	/* \u002e is '.', \u0033 '3', \u0032 '2': tensor "a.b", dtype F32 */
	write_st("esc-name.safetensors",
		 "{\"a\\u002eb\":{\"dtype\":\"F\\u0033\\u0032\","
		 "\"shape\":[2],\"data_offsets\":[0,8]}}", 8);
	inv = load("esc-name.safetensors");
	CHECK_CODE_LIST(inv, "esc-name", 0u);
	t = tensor(inv, "a.b");
	CHECK(t != NULL);
	if (t) {
		CHECK_STR(t->dtype, "F32");
		CHECK_EQ(t->bytes, 8);
	}
	qa_inventory_destroy(inv);

	/* U+1F600 as a surrogate pair is F0 9F 98 80 in UTF-8 */
	write_st("pair.safetensors",
		 "{\"\\ud83d\\ude00\":{\"dtype\":\"U8\",\"shape\":[1],"
		 "\"data_offsets\":[0,1]}}", 1);
	inv = load("pair.safetensors");
	CHECK_CODE_LIST(inv, "pair", 0u);
	CHECK(tensor(inv, "\xF0\x9F\x98\x80") != NULL);
	qa_inventory_destroy(inv);

	/* "a" and "\u0061" are one key: the second copy is QA1208 */
	case_codes("esc-dup.safetensors",
		   "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
		   "\"\\u0061\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
		   1, QA1208);
	/* the same inside __metadata__, spelled with an escape: the first
	 * value is kept */
	write_st("esc-meta.safetensors",
		 "{\"__meta\\u0064ata__\":{\"k\":\"1\",\"\\u006b\":\"2\"}}", 0);
	inv = load("esc-meta.safetensors");
	CHECK_CODE_LIST(inv, "esc-meta", QA1208);
	CHECK_EQ(inv->n_kvs, 1);
	if (inv->n_kvs == 1) {
		CHECK_STR(inv->kvs[0].key, "k");
		CHECK_STR(inv->kvs[0].value.v.str.s, "1");
	}
	qa_inventory_destroy(inv);

	/* Refused as JSON: a lone low surrogate, a high one without its
	 * pair, a missing ':', a trailing ',', a literal that is not one,
	 * a number strtod cannot read whole. */
	case_codes("lone-low.safetensors", "{\"\\udc00\":{}}", 0, QA1205);
	case_codes("high-alone.safetensors", "{\"\\ud800\\u0041\":{}}", 0,
		   QA1205);
	case_codes("no-colon.safetensors", "{\"t\" {}}", 0, QA1205);
	case_codes("trailing-comma.safetensors", "{\"t\":{\"x\":1,}}", 0, QA1205);
	case_codes("bad-literal.safetensors", "{\"t\":{\"x\":nul}}", 0, QA1205);
	case_codes("long-literal.safetensors", "{\"t\":{\"x\":truex}}", 0,
		   QA1205);
	case_codes("half-exponent.safetensors", "{\"t\":{\"x\":1e}}", 0,
		   QA1205);
	write_st("no-colon2.safetensors", "{\"t\" {}}", 0);
	inv = load("no-colon2.safetensors");
	CHECK_EQ(inv->n_findings, 1);
	if (inv->n_findings == 1)
		CHECK_EQ(inv->findings[0].offset, 8);
	qa_inventory_destroy(inv);

	/* 2^53 + 1 is refused (a double would round it to 2^53); 2^53 is
	 * read exactly and, with no data behind it, ends past the file */
	case_codes("p53-plus-1.safetensors",
		   "{\"t\":{\"dtype\":\"U8\",\"shape\":[9007199254740993],"
		   "\"data_offsets\":[0,1]}}", 0, QA1206);
	write_st("p53.safetensors",
		 "{\"t\":{\"dtype\":\"U8\",\"shape\":[9007199254740992],"
		 "\"data_offsets\":[0,9007199254740992]}}", 0);
	inv = load("p53.safetensors");
	CHECK_CODE_LIST(inv, "p53", QA1212);
	t = tensor(inv, "t");
	CHECK(t != NULL);
	if (t)
		CHECK(t->shape[0] == 9007199254740992u);
	qa_inventory_destroy(inv);

	/* Depth: the root object is 1 and the entry 2, so 998 arrays
	 * inside the entry reach 1000, the bound; 999 pass it. */
	for (k = 998; k <= 999; k++) {
		size_t len = 0;

		hdr = malloc(64 + 2 * k + 8);
		if (!hdr)
			exit(2);
		len += (size_t)sprintf(hdr + len, "{\"t\":{\"x\":");
		for (i = 0; i < k; i++)
			hdr[len++] = '[';
		for (i = 0; i < k; i++)
			hdr[len++] = ']';
		len += (size_t)sprintf(hdr + len, "}}");
		case_codes(k == 998 ? "depth-1000.safetensors" :
				      "depth-1001.safetensors",
			   hdr, 0, k == 998 ? QA1206 : QA1205);
		free(hdr);
	}
}

static void
test_entries(void)
{
	static const struct {
		const char *name, *entry;
		size_t data;
		unsigned code;
	} cases[] = {
		{ "no-dtype", "{\"shape\":[2],\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "no-shape", "{\"dtype\":\"F32\",\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "no-offsets", "{\"dtype\":\"F32\",\"shape\":[2]}", 8, QA1206 },
		{ "dtype-num", "{\"dtype\":1,\"shape\":[2],\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "shape-str", "{\"dtype\":\"F32\",\"shape\":\"2\",\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "negative", "{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "float", "{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "exponent", "{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8e0]}", 8, QA1206 },
		{ "leading-zero", "{\"dtype\":\"F32\",\"shape\":[02],\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "above-2p53", "{\"dtype\":\"U8\",\"shape\":[18014398509481984],\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "offsets-1", "{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8]}", 8, QA1206 },
		{ "offsets-3", "{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8,8]}", 8, QA1206 },
		{ "end-lt-begin", "{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}", 8, QA1206 },
		{ "rank-9", "{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}", 1, QA1206 },
		{ "rank-8", "{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}", 1, 0 },
		{ "twice-field", "{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", 8, QA1206 },
		{ "not-object", "[1]", 0, QA1206 },
		{ "extra-field", "{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}", 8, 0 },
		{ "lower-dtype", "{\"dtype\":\"f32\",\"shape\":[2],\"data_offsets\":[0,8]}", 8, QA1207 },
		{ "alias-dtype", "{\"dtype\":\"E8M0\",\"shape\":[2],\"data_offsets\":[0,2]}", 2, QA1207 },
		{ "e8m0", "{\"dtype\":\"F8_E8M0\",\"shape\":[2],\"data_offsets\":[0,2]}", 2, 0 },
		{ "c64", "{\"dtype\":\"C64\",\"shape\":[1],\"data_offsets\":[0,8]}", 8, 0 },
		{ "size", "{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}", 4, QA1209 },
		/* 2^32 x 2^32 wraps to exactly 0 */
		{ "wrap0", "{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}", 0, QA1217 },
		/* 2^30 x 2^30 x 64 bits overflows the bit count */
		{ "bits", "{\"dtype\":\"F64\",\"shape\":[1073741824,1073741824,16],\"data_offsets\":[0,0]}", 0, QA1217 },
		{ "zero-dim", "{\"dtype\":\"U8\",\"shape\":[0,4294967296],\"data_offsets\":[0,0]}", 0, 0 },
		{ "f4-odd", "{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}", 2, QA1214 },
		{ "f4-even", "{\"dtype\":\"F4\",\"shape\":[4],\"data_offsets\":[0,2]}", 2, 0 },
		{ "f6-5", "{\"dtype\":\"F6_E3M2\",\"shape\":[5],\"data_offsets\":[0,4]}", 4, QA1214 },
		{ "f6-4", "{\"dtype\":\"F6_E2M3\",\"shape\":[4],\"data_offsets\":[0,3]}", 3, 0 },
		{ "nul-name", NULL, 8, QA1206 },
	};
	char hdr[512], rel[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].entry)
			snprintf(hdr, sizeof(hdr), "{\"t\":%s}", cases[i].entry);
		else
			snprintf(hdr, sizeof(hdr), "{\"a\\u0000b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}");
		snprintf(rel, sizeof(rel), "entry-%s.safetensors", cases[i].name);
		/* Entries rejected outright leave their bytes unindexed. */
		write_st(rel, hdr, cases[i].code == QA1206 ? 0 : cases[i].data);
		{
			struct qa_inventory *inv = load(rel);

			if (cases[i].code)
				CHECK_CODE_LIST(inv, rel, cases[i].code);
			else
				CHECK_CODE_LIST(inv, rel, 0u);
			qa_inventory_destroy(inv);
		}
	}
}

static void
test_offsets(void)
{
	struct qa_inventory *inv;
	const char *hdr;

	/* Duplicates: the same entry twice, and __metadata__ twice. */
	case_codes("dup.safetensors",
		   "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		   "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
		   8, QA1208);
	case_codes("dup-meta.safetensors",
		   "{\"__metadata__\":{},\"__metadata__\":{}}", 0, QA1208);
	case_codes("meta-num.safetensors",
		   "{\"__metadata__\":{\"k\":1}}", 0, QA1216);
	case_codes("meta-str.safetensors", "{\"__metadata__\":\"x\"}", 0,
		   QA1216);
	case_codes("meta-nested.safetensors",
		   "{\"__metadata__\":{\"k\":{\"a\":\"b\"}}}", 0, QA1216);

	case_codes("gap-first.safetensors",
		   "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
		   12, QA1210);
	case_codes("gap-mid.safetensors",
		   "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		   "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[12,20]}}",
		   20, QA1210);
	case_codes("overlap.safetensors",
		   "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		   "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
		   12, QA1211);
	/* Empty tensors may share an offset (reference accepts). */
	case_codes("empty-shared.safetensors",
		   "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		   "\"e\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]},"
		   "\"f\":{\"dtype\":\"BF16\",\"shape\":[0,5],\"data_offsets\":[8,8]}}",
		   8, 0);
	case_codes("past-eof.safetensors",
		   "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
		   4, QA1212);
	case_codes("trailing.safetensors",
		   "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
		   12, QA1213);
	case_codes("trailing-none.safetensors", "{}", 3, QA1213);

	/* Findings carry file, offset and tensor. */
	hdr = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}";
	write_st("where.safetensors", hdr, 4);
	inv = load("where.safetensors");
	CHECK_CODE_LIST(inv, "where", QA1209);
	if (inv->n_findings == 1) {
		CHECK(strcmp(inv->findings[0].tensor, "a") == 0);
		CHECK(strcmp(inv->findings[0].file,
			     th_path("where.safetensors")) == 0);
		CHECK_EQ(inv->findings[0].offset, 8 + 1);	/* the key's '"' */
	}
	qa_inventory_destroy(inv);
}

static void
test_probe(void)
{
	const char *img = "\x02\0\0\0\0\0\0\0{}";
	const char *ws = "\x04\0\0\0\0\0\0\0  {}";
	const char *gguf = "GGUF\x03\0\0\0\0\0\0\0\0\0\0\0";

	CHECK(qa_format_safetensors.probe((const uint8_t *)img, 10, 10) > 0);
	CHECK(qa_format_safetensors.probe((const uint8_t *)ws, 12, 12) > 0);
	CHECK(qa_format_safetensors.probe((const uint8_t *)gguf, 16, 100) == 0);
}

/* ---- sets and indexes ------------------------------------------------------ */

static const char *shard1 =
	"{\"t1\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
static const char *shard2 =
	"{\"t2\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}";

static const char *shard1_t3 =
	"{\"t1\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
	"\"t3\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[8,9]}}";

static void
make_set(const char *dir, const char *index)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/model-00001-of-00002.safetensors", dir);
	write_st(rel, shard1, 8);
	snprintf(rel, sizeof(rel), "%s/model-00002-of-00002.safetensors", dir);
	write_st(rel, shard2, 8);
	if (index) {
		snprintf(rel, sizeof(rel), "%s/model.safetensors.index.json",
			 dir);
		th_write_text(rel, index);
	}
}

#define GOOD_INDEX \
	"{\"metadata\":{\"total_size\":16},\"weight_map\":{" \
	"\"t1\":\"model-00001-of-00002.safetensors\"," \
	"\"t2\":\"model-00002-of-00002.safetensors\"}}"

static struct qa_inventory *
set_case(const char *dir, const char *index, unsigned code)
{
	struct qa_inventory *inv;
	char rel[256];

	make_set(dir, index);
	snprintf(rel, sizeof(rel), "%s/model.safetensors.index.json", dir);
	inv = load(rel);
	if (code)
		CHECK_CODE_LIST(inv, dir, code);
	else
		CHECK_CODE_LIST(inv, dir, 0u);
	return inv;
}

static void
test_sets(void)
{
	struct qa_inventory *inv;
	const struct qa_tensor *t2;
	uint64_t n2 = strlen(shard2);

	/* A good set, loaded through its index. */
	inv = set_case("set", GOOD_INDEX, 0);
	CHECK_EQ(inv->n_files, 3);
	if (inv->n_files == 3) {
		CHECK_EQ(inv->files[0].role, QA_FILE_INDEX);
		CHECK(strcmp(inv->files[0].path,
			     th_path("set/model.safetensors.index.json")) == 0);
		CHECK_EQ(inv->files[1].role, QA_FILE_SHARD);
		CHECK_EQ(inv->files[1].part, 1);
		CHECK_EQ(inv->files[1].parts, 2);
		CHECK(strcmp(inv->files[2].name,
			     "model-00002-of-00002.safetensors") == 0);
		CHECK_EQ(inv->files[2].part, 2);
	}
	CHECK_EQ(inv->n_tensors, 2);
	t2 = tensor(inv, "t2");
	CHECK(t2 && t2->file == 2 && t2->offset == 8 + n2 && t2->bytes == 8);
	qa_inventory_destroy(inv);

	/* The same set through one shard: index found beside it. */
	inv = load("set/model-00002-of-00002.safetensors");
	CHECK_CODE_LIST(inv, "via shard", 0u);
	CHECK_EQ(inv->n_files, 3);
	CHECK_EQ(inv->n_tensors, 2);
	if (inv->n_files == 3)
		CHECK_EQ(inv->files[0].role, QA_FILE_INDEX);
	qa_inventory_destroy(inv);

	inv = set_case("ghost", "{\"weight_map\":{"
		       "\"t1\":\"model-00001-of-00002.safetensors\","
		       "\"t2\":\"model-00002-of-00002.safetensors\","
		       "\"t3\":\"model-00001-of-00002.safetensors\"}}", QA1302);
	CHECK_EQ(th_count_code(inv, QA1302), 1);
	qa_inventory_destroy(inv);

	/* Shard 1 also holds t3: not in the map, then mapped elsewhere. */
	make_set("unlisted", "{\"weight_map\":{"
		 "\"t1\":\"model-00001-of-00002.safetensors\","
		 "\"t2\":\"model-00002-of-00002.safetensors\"}}");
	write_st("unlisted/model-00001-of-00002.safetensors", shard1_t3, 9);
	inv = load("unlisted/model.safetensors.index.json");
	CHECK_CODE_LIST(inv, "unlisted", QA1303);
	CHECK_EQ(th_count_code(inv, QA1303), 1);
	CHECK(inv->n_findings == 1 && inv->findings[0].tensor &&
	      strcmp(inv->findings[0].tensor, "t3") == 0);
	qa_inventory_destroy(inv);

	/* Listed under the other shard: unlisted where it is, ghost where
	 * the index says it is. */
	make_set("moved", "{\"weight_map\":{"
		 "\"t1\":\"model-00001-of-00002.safetensors\","
		 "\"t2\":\"model-00002-of-00002.safetensors\","
		 "\"t3\":\"model-00002-of-00002.safetensors\"}}");
	write_st("moved/model-00001-of-00002.safetensors", shard1_t3, 9);
	inv = load("moved/model.safetensors.index.json");
	CHECK_CODE_LIST(inv, "moved", QA1302, QA1303);
	qa_inventory_destroy(inv);

	make_set("missing", GOOD_INDEX);
	unlink(th_path("missing/model-00002-of-00002.safetensors"));
	inv = load("missing/model.safetensors.index.json");
	/* total_size cannot be compared with a shard missing: QA1304
	 * alone, and the missing file is a fact the fit refuses on. */
	CHECK_CODE_LIST(inv, "missing", QA1304);
	CHECK_EQ(inv->n_tensors, 1);
	CHECK_EQ(inv->weights.missing_files, 1);
	qa_inventory_destroy(inv);

	/* Extra shard: included and reported. */
	make_set("extra", GOOD_INDEX);
	write_st("extra/model-mtp.safetensors",
		 "{\"mtp.fc.weight\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}}",
		 4);
	inv = load("extra/model.safetensors.index.json");
	CHECK_CODE_LIST(inv, "extra", QA1305);
	CHECK_EQ(inv->n_tensors, 3);
	CHECK(tensor(inv, "mtp.fc.weight") != NULL);
	CHECK_EQ(inv->n_files, 4);
	qa_inventory_destroy(inv);

	{
		static const char *const bad[] = {
			"../x.safetensors", "/etc/passwd", "a\\\\b.safetensors",
			"http://h/x.safetensors", "C:x.safetensors",
			"x\\u0000y.safetensors", "",
		};
		char idx[512], dir[32];

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(idx, sizeof(idx), "{\"weight_map\":{"
				 "\"t1\":\"model-00001-of-00002.safetensors\","
				 "\"t2\":\"model-00002-of-00002.safetensors\","
				 "\"t9\":\"%s\"}}", bad[i]);
			snprintf(dir, sizeof(dir), "trav%zu", i);
			make_set(dir, idx);
			snprintf(idx, sizeof(idx),
				 "%s/model.safetensors.index.json", dir);
			inv = load(idx);
			/* cJSON cuts "x\0y" to "x", which is also absent. */
			if (strstr(bad[i], "u0000"))
				CHECK_CODE_LIST(inv, dir, QA1306, QA1304);
			else
				CHECK_CODE_LIST(inv, dir, QA1306);
			qa_inventory_destroy(inv);
		}
	}

	inv = set_case("total", "{\"metadata\":{\"total_size\":17},\"weight_map\":{"
		       "\"t1\":\"model-00001-of-00002.safetensors\","
		       "\"t2\":\"model-00002-of-00002.safetensors\"}}", QA1307);
	qa_inventory_destroy(inv);
	inv = set_case("total-str", "{\"metadata\":{\"total_size\":\"16\"},\"weight_map\":{"
		       "\"t1\":\"model-00001-of-00002.safetensors\","
		       "\"t2\":\"model-00002-of-00002.safetensors\"}}", QA1307);
	qa_inventory_destroy(inv);

	inv = set_case("badjson", "{\"weight_map\":", QA1301);
	qa_inventory_destroy(inv);
	inv = set_case("nomap", "{\"metadata\":{}}", QA1301);
	qa_inventory_destroy(inv);

	/* The same tensor in two shards. */
	make_set("dupshard", NULL);
	write_st("dupshard/model-00002-of-00002.safetensors",
		 "{\"t1\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
		 8);
	inv = load("dupshard/model-00001-of-00002.safetensors");
	CHECK_CODE_LIST(inv, "dupshard", QA1308);
	qa_inventory_destroy(inv);

	/* A numbered set without index, part 2 of 3 missing; '_' and six
	 * digits. */
	write_st("numbered/w_000001-of-000003.safetensors", shard1, 8);
	write_st("numbered/w_000003-of-000003.safetensors", shard2, 8);
	inv = load("numbered/w_000003-of-000003.safetensors");
	CHECK_CODE_LIST(inv, "numbered", QA1309);
	CHECK_EQ(inv->n_files, 2);
	if (inv->n_files == 2) {
		CHECK_EQ(inv->files[0].part, 1);
		CHECK_EQ(inv->files[1].part, 3);
		CHECK_EQ(inv->files[1].parts, 3);
	}
	qa_inventory_destroy(inv);
	write_st("numbered/w_000002-of-000003.safetensors",
		 "{\"t3\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
		 1);
	inv = load("numbered/w_000001-of-000003.safetensors");
	CHECK_CODE_LIST(inv, "numbered complete", 0u);
	CHECK_EQ(inv->n_tensors, 3);
	qa_inventory_destroy(inv);
}

/* ---- folders ------------------------------------------------------------ */

static void
test_folders(void)
{
	struct qa_inventory *inv;
	uint32_t i;
	int tok = 0, qc = 0;

	make_set("hf1", GOOD_INDEX);
	th_write_text("hf1/config.json",
		      "{\"model_type\":\"llama\",\"num_hidden_layers\":2}");
	th_write_text("hf1/quantize_config.json", "{\"bits\":4}");
	th_write_text("hf1/generation_config.json", "{}");
	th_write_text("hf1/tokenizer_config.json",
		      "{\"chat_template\":\"{{ messages }}\"}");
	th_write_text("hf1/tokenizer.json", "{}");
	th_write_text("hf1/.hidden.safetensors", "junk");
	mkdir(th_path("hf1/sub"), 0755);
	inv = load_dir("hf1");
	CHECK_CODE_LIST(inv, "hf1", 0u);
	CHECK_EQ(inv->kind, QA_KIND_HF_DIR);
	CHECK(inv->have_config);
	CHECK_EQ(inv->hp.n_layer, 2);
	CHECK(inv->quant_config_file &&
	      strcmp(inv->quant_config_file,
		     th_path("hf1/quantize_config.json")) == 0);
	CHECK(inv->chat_template &&
	      strcmp(inv->chat_template, "{{ messages }}") == 0);
	CHECK_EQ(inv->n_tensors, 2);
	for (i = 0; i < inv->n_files; i++) {
		tok += inv->files[i].role == QA_FILE_TOKENIZER;
		qc += inv->files[i].role == QA_FILE_QUANT_CONFIG;
	}
	CHECK_EQ(tok, 2);
	CHECK_EQ(qc, 1);
	/* config, generation, quantize, tokenizer x2, index, 2 shards */
	CHECK_EQ(inv->n_files, 8);
	qa_inventory_destroy(inv);

	/* Embedded quantization_config takes precedence. */
	make_set("hf2", NULL);
	th_write_text("hf2/config.json",
		      "{\"model_type\":\"llama\",\"quantization_config\":{\"quant_method\":\"gptq\"}}");
	th_write_text("hf2/quant_config.json", "{}");
	inv = load_dir("hf2");
	CHECK_CODE_LIST(inv, "hf2", 0u);
	CHECK(inv->quant_config_file &&
	      strcmp(inv->quant_config_file, th_path("hf2/config.json")) == 0);
	CHECK_EQ(inv->n_tensors, 2);
	qa_inventory_destroy(inv);

	make_set("hf3", NULL);
	inv = load_dir("hf3");
	CHECK_CODE_LIST(inv, "no config", QA1402);
	qa_inventory_destroy(inv);

	th_write_text("hf4/config.json", "{\"model_type\":");
	inv = load_dir("hf4");
	CHECK_CODE_LIST(inv, "bad config, no weights", QA1401, QA1403);
	CHECK(!inv->have_config);
	qa_inventory_destroy(inv);

	th_write_text("hf5/config.json", "{}");
	th_write_text("hf5/mmproj-model-f16.gguf", "GGUF");
	inv = load_dir("hf5");
	/* GGUF files are models of their own (formats/input.c resolves
	 * them): the checkpoint folder has a config and no weights. */
	CHECK_CODE_LIST(inv, "mmproj only", QA1403);
	CHECK(inv->n_files == 1 && inv->files[0].role == QA_FILE_CONFIG);
	qa_inventory_destroy(inv);

	/* Single file + unlisted extra shard without an index: no QA1305. */
	th_write_text("hf6/config.json", "{}");
	write_st("hf6/model.safetensors", shard1, 8);
	write_st("hf6/model_extra_tensors.safetensors", shard2, 8);
	inv = load_dir("hf6");
	CHECK_CODE_LIST(inv, "hf6", 0u);
	CHECK_EQ(inv->n_tensors, 2);
	qa_inventory_destroy(inv);
}

/* ---- config.json ---------------------------------------------------------- */

static struct qa_inventory *
config(const char *json)
{
	struct qa_inventory *inv = qa_inventory_create("config.json");

	cJSON *root;

	if (!inv)
		exit(2);
	root = qa_json_parse_python(json, strlen(json), NULL);
	CHECK(root != NULL);
	qa_hf_fill_hparams(inv, "config.json", root);
	cJSON_Delete(root);
	CHECK(inv->have_config);
	return inv;
}

static void
test_config(void)
{
	struct qa_inventory *inv;
	const struct qa_hparams *hp;
	int i;

	inv = config("{\"architectures\":[\"LlamaForCausalLM\"],"
		     "\"model_type\":\"llama\",\"_name_or_path\":\"meta/x\","
		     "\"hidden_size\":4096,\"num_hidden_layers\":32,"
		     "\"num_attention_heads\":32,\"num_key_value_heads\":8,"
		     "\"intermediate_size\":14336,\"vocab_size\":128256,"
		     "\"max_position_embeddings\":131072,"
		     "\"tie_word_embeddings\":false}");
	hp = &inv->hp;
	CHECK_CODE_LIST(inv, "llama", 0u);
	CHECK(strcmp(hp->arch, "llama") == 0);
	CHECK(strcmp(hp->arch_raw, "LlamaForCausalLM") == 0);
	CHECK(strcmp(hp->name, "meta/x") == 0);
	CHECK_EQ(hp->n_layer, 32);
	CHECK_EQ(hp->n_layer_all, 32);
	CHECK_EQ(hp->n_mtp, 0);
	CHECK_EQ(hp->n_embd, 4096);
	CHECK_EQ(hp->n_head, 32);
	CHECK_EQ(hp->n_head_kv, 8);
	CHECK_EQ(hp->head_dim_k, 128);	/* 4096 / 32 */
	CHECK_EQ(hp->head_dim_v, 128);
	CHECK_EQ(hp->n_ff, 14336);
	CHECK_EQ(hp->n_vocab, 128256);
	CHECK_EQ(hp->n_ctx_train, 131072);
	CHECK_EQ(hp->n_expert, (uint64_t)-1);
	CHECK_EQ(hp->sliding_window, (uint64_t)-1);
	CHECK(!hp->tie_embeddings);
	CHECK(hp->layer_kind && hp->layer_kind[0] == QA_LAYER_FULL_ATTENTION &&
	      hp->layer_kind[31] == QA_LAYER_FULL_ATTENTION);
	qa_inventory_destroy(inv);

	inv = config("{\"model_type\":\"qwen3_moe\",\"hidden_size\":2048,"
		     "\"num_hidden_layers\":48,\"num_attention_heads\":32,"
		     "\"num_key_value_heads\":4,\"head_dim\":128,"
		     "\"num_experts\":128,\"num_experts_per_tok\":8,"
		     "\"moe_intermediate_size\":768,\"sliding_window\":null,"
		     "\"tie_word_embeddings\":true}");
	hp = &inv->hp;
	CHECK_EQ(hp->n_expert, 128);
	CHECK_EQ(hp->n_expert_used, 8);
	CHECK_EQ(hp->n_ff_expert, 768);
	CHECK_EQ(hp->head_dim_k, 128);
	CHECK_EQ(hp->n_head_kv, 4);
	CHECK_EQ(hp->sliding_window, (uint64_t)-1);
	CHECK(hp->tie_embeddings);
	qa_inventory_destroy(inv);

	/* Qwen2-style unused window. */
	inv = config("{\"model_type\":\"qwen2\",\"num_hidden_layers\":2,"
		     "\"sliding_window\":4096,\"use_sliding_window\":false}");
	CHECK_EQ(inv->hp.sliding_window, (uint64_t)-1);
	CHECK(inv->hp.layer_kind[1] == QA_LAYER_FULL_ATTENTION);
	qa_inventory_destroy(inv);

	inv = config("{\"model_type\":\"deepseek_v3\",\"hidden_size\":7168,"
		     "\"num_hidden_layers\":61,\"num_attention_heads\":128,"
		     "\"q_lora_rank\":1536,\"kv_lora_rank\":512,"
		     "\"qk_rope_head_dim\":64,\"qk_nope_head_dim\":128,"
		     "\"v_head_dim\":128,\"n_routed_experts\":256,"
		     "\"n_shared_experts\":1,\"num_experts_per_tok\":8,"
		     "\"moe_intermediate_size\":2048,\"first_k_dense_replace\":3,"
		     "\"num_nextn_predict_layers\":1}");
	hp = &inv->hp;
	CHECK_EQ(hp->q_lora_rank, 1536);
	CHECK_EQ(hp->kv_lora_rank, 512);
	CHECK_EQ(hp->qk_rope_dim, 64);
	CHECK_EQ(hp->qk_nope_dim, 128);
	CHECK_EQ(hp->v_head_dim_mla, 128);
	CHECK_EQ(hp->n_expert, 256);
	CHECK_EQ(hp->n_expert_shared, 1);
	CHECK_EQ(hp->n_expert_used, 8);
	CHECK_EQ(hp->n_ff_expert, 2048);
	CHECK_EQ(hp->n_leading_dense, 3);
	CHECK_EQ(hp->n_mtp, 1);
	CHECK_EQ(hp->n_layer, 61);
	CHECK_EQ(hp->n_layer_all, 62);
	CHECK_EQ(hp->n_head_kv, 128);	/* defaults to n_head */
	CHECK(hp->layer_kind && hp->layer_kind[60] == QA_LAYER_FULL_ATTENTION &&
	      hp->layer_kind[61] == QA_LAYER_MTP);
	qa_inventory_destroy(inv);

	/* Gemma 3 without layer_types: 5 SWA : 1 global. */
	inv = config("{\"model_type\":\"gemma3_text\",\"num_hidden_layers\":12,"
		     "\"sliding_window\":1024,\"hidden_size\":64,"
		     "\"num_attention_heads\":4,\"head_dim\":256}");
	hp = &inv->hp;
	CHECK_EQ(hp->sliding_window, 1024);
	CHECK_EQ(hp->swa_pattern, 6);
	CHECK_EQ(hp->head_dim_k, 256);
	for (i = 0; i < 12; i++)
		CHECK_EQ(hp->layer_kind[i], i == 5 || i == 11 ?
			 QA_LAYER_FULL_ATTENTION : QA_LAYER_SLIDING_ATTENTION);
	qa_inventory_destroy(inv);

	/* Gemma 3 with layer_types (transformers 5). */
	inv = config("{\"model_type\":\"gemma3_text\",\"num_hidden_layers\":3,"
		     "\"sliding_window\":128,\"layer_types\":[\"sliding_attention\","
		     "\"full_attention\",\"sliding_attention\"]}");
	CHECK(inv->hp.layer_kind[0] == QA_LAYER_SLIDING_ATTENTION &&
	      inv->hp.layer_kind[1] == QA_LAYER_FULL_ATTENTION &&
	      inv->hp.layer_kind[2] == QA_LAYER_SLIDING_ATTENTION);
	qa_inventory_destroy(inv);

	/* Qwen3.5-VL-like wrapper: text_config, layer_types, MTP. */
	inv = config("{\"architectures\":[\"Qwen3_5ForConditionalGeneration\"],"
		     "\"model_type\":\"qwen3_5\",\"vision_config\":{\"hidden_size\":1152},"
		     "\"text_config\":{\"model_type\":\"qwen3_5_text\","
		     "\"hidden_size\":5120,\"num_hidden_layers\":8,"
		     "\"num_attention_heads\":24,\"num_key_value_heads\":4,"
		     "\"head_dim\":256,\"linear_conv_kernel_dim\":4,"
		     "\"linear_key_head_dim\":128,\"linear_value_head_dim\":128,"
		     "\"linear_num_key_heads\":16,\"linear_num_value_heads\":48,"
		     "\"mtp_num_hidden_layers\":1,\"full_attention_interval\":4,"
		     "\"layer_types\":[\"linear_attention\",\"linear_attention\","
		     "\"linear_attention\",\"full_attention\",\"linear_attention\","
		     "\"linear_attention\",\"linear_attention\",\"full_attention\"]},"
		     "\"tie_word_embeddings\":false}");
	hp = &inv->hp;
	CHECK(strcmp(hp->arch, "qwen3_5") == 0);
	CHECK(strcmp(hp->arch_raw, "Qwen3_5ForConditionalGeneration") == 0);
	CHECK_EQ(hp->n_embd, 5120);
	CHECK_EQ(hp->n_layer, 8);
	CHECK_EQ(hp->n_mtp, 1);
	CHECK_EQ(hp->n_layer_all, 9);
	CHECK_EQ(hp->n_head_kv, 4);
	CHECK_EQ(hp->full_attention_interval, 4);
	CHECK_EQ(hp->ssm_d_conv, 4);
	CHECK_EQ(hp->ssm_d_state, 128);
	CHECK_EQ(hp->ssm_n_group, 16);
	CHECK_EQ(hp->ssm_dt_rank, 48);
	CHECK_EQ(hp->ssm_d_inner, 48 * 128);
	for (i = 0; i < 8; i++)
		CHECK_EQ(hp->layer_kind[i], (i + 1) % 4 == 0 ?
			 QA_LAYER_FULL_ATTENTION : QA_LAYER_LINEAR_ATTENTION);
	CHECK_EQ(hp->layer_kind[8], QA_LAYER_MTP);
	qa_inventory_destroy(inv);

	/* Qwen3-Next without layer_types: the interval default 4. */
	inv = config("{\"model_type\":\"qwen3_next\",\"num_hidden_layers\":8,"
		     "\"linear_num_value_heads\":32}");
	CHECK_EQ(inv->hp.full_attention_interval, 4);
	CHECK(inv->hp.layer_kind[2] == QA_LAYER_LINEAR_ATTENTION &&
	      inv->hp.layer_kind[3] == QA_LAYER_FULL_ATTENTION &&
	      inv->hp.layer_kind[7] == QA_LAYER_FULL_ATTENTION);
	qa_inventory_destroy(inv);

	/* Nemotron-H: layer count and kinds from the pattern. */
	inv = config("{\"model_type\":\"nemotron_h\",\"hidden_size\":4096,"
		     "\"hybrid_override_pattern\":\"M-M*-E\","
		     "\"mamba_num_heads\":128,\"mamba_head_dim\":64,"
		     "\"ssm_state_size\":128,\"n_groups\":8,\"conv_kernel\":4}");
	hp = &inv->hp;
	CHECK_EQ(hp->n_layer, 6);
	CHECK_EQ(hp->n_layer_all, 6);
	CHECK_EQ(hp->ssm_d_inner, 128 * 64);
	CHECK_EQ(hp->ssm_dt_rank, 128);
	CHECK_EQ(hp->ssm_d_state, 128);
	CHECK_EQ(hp->ssm_n_group, 8);
	CHECK_EQ(hp->ssm_d_conv, 4);
	CHECK(hp->layer_kind[0] == QA_LAYER_MAMBA &&
	      hp->layer_kind[1] == QA_LAYER_MLP_ONLY &&
	      hp->layer_kind[2] == QA_LAYER_MAMBA &&
	      hp->layer_kind[3] == QA_LAYER_FULL_ATTENTION &&
	      hp->layer_kind[4] == QA_LAYER_MLP_ONLY &&
	      hp->layer_kind[5] == QA_LAYER_MLP_ONLY);
	qa_inventory_destroy(inv);

	/* Invalid JSON, read through the folder loader from memory:
	 * QA1401 naming the line and column, still QA_OK, no config. */
	{
		static const char bad[] = "{\n  \"a\": }";
		struct qa_memfs mfs;

		qa_memfs_init(&mfs);
		qa_memfs_add(&mfs, "c/config.json", bad, strlen(bad));
		inv = qa_inventory_create("c");
		inv->fs = qa_memfs_fs(&mfs);
		CHECK_EQ(qa_hf_load_dir(inv, "c"), QA_OK);
		CHECK_CODE_LIST(inv, "bad json, no weights", QA1401, QA1403);
		CHECK(inv->n_findings > 0 &&
		      strstr(inv->findings[0].message, "line 2, column 8") &&
		      strstr(inv->findings[0].message, "unexpected '}'"));
		CHECK(!inv->have_config);
		CHECK_EQ(mfs.files[0].opens, 1);
		qa_inventory_destroy(inv);
	}
}

/* ---- real files ----------------------------------------------------------- */

static int
test_corpus(void)
{
	const char *root = getenv("QA_CORPUS");
	static const char *const models[] = {
		"deepseek_v3_mtp", "gemma3_text", "llama", "qwen3_moe",
	};
	char path[1024], *text;
	cJSON *exp, *f;
	FILE *fp;
	long len;
	size_t m;
	struct stat st;

	if (!root || stat(root, &st) != 0)
		root = "../shared/corpus";
	snprintf(path, sizeof(path), "%s/hf", root);
	if (stat(path, &st) != 0) {
		root = "/work/shared/corpus";
		snprintf(path, sizeof(path), "%s/hf", root);
		if (stat(path, &st) != 0)
			return 77;
	}
	snprintf(path, sizeof(path), "%s/expected/safetensors.json", root);
	fp = fopen(path, "rb");
	if (!fp)
		return 77;
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	text = malloc((size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, fp) != (size_t)len)
		exit(2);
	fclose(fp);
	exp = cJSON_ParseWithLength(text, (size_t)len);
	free(text);
	CHECK(exp != NULL);
	if (!exp)
		return 0;
	for (m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		struct qa_inventory *inv;
		uint32_t expected_tensors = 0;
		char dir[1024], prefix[256];

		snprintf(dir, sizeof(dir), "%s/hf/%s", root, models[m]);
		snprintf(prefix, sizeof(prefix), "hf/%s/", models[m]);
		inv = qa_inventory_create(dir);
		CHECK_EQ(qa_hf_load_dir(inv, dir), QA_OK);
		for (f = exp->child; f; f = f->next) {
			const char *fname = f->string + strlen(prefix);
			const cJSON *t;
			uint32_t fi;

			if (strncmp(f->string, prefix, strlen(prefix)) != 0)
				continue;
			for (fi = 0; fi < inv->n_files; fi++)
				if (strcmp(inv->files[fi].name, fname) == 0)
					break;
			CHECK(fi < inv->n_files);
			if (fi == inv->n_files)
				continue;
			CHECK_EQ(inv->files[fi].header_bytes,
				 cJSON_GetObjectItem(f, "header_bytes")->valuedouble + 8);
			CHECK_EQ(inv->files[fi].bytes,
				 cJSON_GetObjectItem(f, "file_bytes")->valuedouble);
			CHECK_EQ(inv->files[fi].tensor_count,
				 cJSON_GetObjectItem(f, "n_tensors")->valuedouble);
			cJSON_ArrayForEach(t, cJSON_GetObjectItem(f, "tensors")) {
				const char *name = cJSON_GetObjectItem(t, "name")->valuestring;
				const cJSON *shape = cJSON_GetObjectItem(t, "shape"), *d;
				const struct qa_tensor *qt = NULL;
				uint32_t k = 0;

				expected_tensors++;
				for (uint32_t i = 0; i < inv->n_tensors; i++)
					if (inv->tensors[i].file == fi &&
					    strcmp(inv->tensors[i].name, name) == 0)
						qt = &inv->tensors[i];
				if (!CHECKF(qt != NULL, "missing %s %s", fname,
					    name))
					continue;
				CHECK(strcmp(qt->dtype, cJSON_GetObjectItem(t, "dtype")->valuestring) == 0);
				CHECK_EQ(qt->bytes, cJSON_GetObjectItem(t, "bytes")->valuedouble);
				CHECK_EQ(qt->offset, cJSON_GetObjectItem(t, "offset")->valuedouble);
				cJSON_ArrayForEach(d, shape) {
					CHECK(k < qt->n_dims);
					if (k < qt->n_dims)
						CHECK_EQ(qt->shape[k], d->valuedouble);
					k++;
				}
				CHECK_EQ(qt->n_dims, k);
			}
		}
		CHECK_EQ(inv->n_tensors, expected_tensors);
		CHECK(inv->have_config);
		if (strcmp(models[m], "deepseek_v3_mtp") == 0) {
			uint32_t mtp = 0;

			CHECK_EQ(inv->hp.n_mtp, 1);
			CHECK_EQ(inv->hp.n_layer, 3);
			CHECK_EQ(inv->hp.n_layer_all, 4);
			CHECK_EQ(inv->hp.q_lora_rank, 48);
			CHECK_EQ(inv->hp.kv_lora_rank, 32);
			for (uint32_t i = 0; i < inv->n_tensors; i++)
				if (strcmp(inv->files[inv->tensors[i].file].name,
					   "model-mtp.safetensors") == 0)
					mtp++;
			CHECK_EQ(mtp, 32);
			CHECK(tensor(inv, "model.layers.3.eh_proj.weight") != NULL);
			/* Listed in the index: no extra-shard warning. The
			 * hand-made index's total_size counts only the MTP
			 * file (308520 of 847512 bytes). */
			CHECK_CODE_LIST(inv, "deepseek corpus", QA1307);
		} else {
			CHECK_CODE_LIST(inv, models[m], 0u);
		}
		if (strcmp(models[m], "qwen3_moe") == 0) {
			CHECK_EQ(inv->n_files, 6);
			CHECK_EQ(inv->hp.n_expert, 4);
			CHECK_EQ(inv->hp.n_expert_used, 2);
		}
		if (strcmp(models[m], "gemma3_text") == 0) {
			CHECK_EQ(inv->hp.swa_pattern, 6);
			CHECK(inv->hp.layer_kind &&
			      inv->hp.layer_kind[4] == QA_LAYER_SLIDING_ATTENTION &&
			      inv->hp.layer_kind[5] == QA_LAYER_FULL_ATTENTION);
		}
		qa_inventory_destroy(inv);
	}
	cJSON_Delete(exp);
	return 0;
}

int
main(void)
{
	th_scratch("st");
	test_valid();
	test_lengths();
	test_header_text();
	test_scanner();
	test_entries();
	test_offsets();
	test_probe();
	test_sets();
	test_folders();
	test_config();
	if (test_corpus() == 77)
		th_skip("corpus absent: real-file checks skipped");
	return th_done("safetensors");
}
