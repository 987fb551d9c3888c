/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the reporters (src/report/report_json.c, src/report/report_text.c).
 *
 * Inventories are built by hand through the inventory API and rendered
 * into memory streams. Expected strings are written out literally and the
 * arithmetic (bits per weight) is computed by hand in the comments, never
 * taken from the code under test. Tensor roles come from src/analysis/roles.c, so
 * nothing here depends on how a name is classified: where a role matters,
 * the derived fields are set by hand after qa_inventory_summarize().
 */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtypes.h"
#include "report/report.h"
#include "harness.h"

#define DOT " \xc2\xb7 "

/* Checks that `needle` occurs in `hay`, printing both when it does not. */
#define CHECK_HAS(hay, needle) check_has(__FILE__, __LINE__, hay, needle, 1)
#define CHECK_LACKS(hay, needle) check_has(__FILE__, __LINE__, hay, needle, 0)

static void
check_has(const char *file, int line, const char *hay, const char *needle,
	  int want)
{
	th_report((strstr(hay, needle) != NULL) == want, file, line,
		  "expected %s:\n---\n%s\n--- in ---\n%s\n---",
		  want ? "substring" : "no substring", needle, hay);
}

/* ---- helpers ---------------------------------------------------------- */

enum render { R_JSON, R_TEXT, R_TENSORS };

static char *
render(enum render r, struct qa_inventory **invs, size_t n,
       const struct qa_report_options *opt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		abort();
	if (r == R_JSON)
		rc = qa_report_json(f, invs, n, opt);
	else if (r == R_TEXT)
		rc = qa_report_text(f, invs, n, opt);
	else
		rc = qa_report_text_tensors(f, invs, n, opt);
	CHECK(rc == 0);
	fclose(f);
	return buf;
}

static struct qa_report_options
default_opt(void)
{
	struct qa_report_options o = { .fail_on = QA_SEV_ERROR };

	return o;
}

static struct qa_tensor *
add_tensor(struct qa_inventory *inv, const char *name, const char *dtype,
	   int ggml_type, uint64_t ne0, uint64_t ne1, uint64_t bytes,
	   uint64_t offset)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);

	if (!t)
		abort();
	t->name = qa_arena_strdup(&inv->arena, name);
	t->dtype = dtype;
	t->ggml_type = ggml_type;
	t->file = 0;
	t->offset = offset;
	t->bytes = bytes;
	t->n_dims = ne1 ? 2 : 1;
	t->shape[0] = ne0;
	t->shape[1] = ne1;
	t->elements = ne1 ? ne0 * ne1 : ne0;
	return t;
}

static struct qa_kv *
add_kv(struct qa_inventory *inv, const char *key, enum qa_value_type type)
{
	struct qa_kv *kv = qa_inv_add_kv(inv);

	if (!kv)
		abort();
	kv->key = qa_arena_strdup(&inv->arena, key);
	kv->value.type = type;
	return kv;
}

/*
 * A small GGUF inventory: three tensors whose sizes follow the ggml block
 * tables (Q4_K: 144 bytes per 256 weights, Q6_K: 210 per 256, F32: 4 per
 * weight).
 */
static struct qa_inventory *
make_gguf(void)
{
	struct qa_inventory *inv = qa_inventory_create("models/tiny-Q4_K_M.gguf");
	struct qa_file *f;

	if (!inv)
		abort();
	inv->kind = QA_KIND_GGUF;
	f = qa_inv_add_file(inv, "models/tiny-Q4_K_M.gguf");
	f->bytes = 20000;
	f->format = "gguf";
	f->role = QA_FILE_MODEL;
	f->gguf_version = 3;
	inv->hp.arch = "llama";
	inv->hp.arch_raw = "llama";
	inv->hp.name = "Tiny Llama";
	inv->hp.n_layer = 1;
	inv->hp.n_layer_all = 1;
	inv->hp.n_embd = 256;
	inv->hp.n_head = 4;
	inv->hp.n_head_kv = 2;
	inv->hp.n_ctx_train = 4096;
	inv->hp.n_vocab = 16;
	inv->hp.file_type = 15;
	/* 1024 weights in 4 Q4_K blocks: 4 * 144 = 576 bytes */
	add_tensor(inv, "blk.0.attn_q.weight", "Q4_K", 12, 256, 4, 576, 3000);
	/* 4096 F32 weights: 16384 bytes */
	add_tensor(inv, "token_embd.weight", "F32", 0, 256, 16, 16384, 3576);
	/* 512 weights in 2 Q6_K blocks: 2 * 210 = 420 bytes */
	add_tensor(inv, "output.weight", "Q6_K", 14, 256, 2, 420, 19960);
	qa_inventory_summarize(inv);
	return inv;
}

static cJSON *
parse(const char *s)
{
	cJSON *j = cJSON_Parse(s);

	CHECK(j != NULL);
	if (!j)
		fprintf(stderr, "unparseable JSON:\n%s\n", s);
	return j;
}

static cJSON *
get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* ---- tests ------------------------------------------------------------ */

/*
 * Escaping: quotes, backslash, control characters and every kind of
 * invalid UTF-8 (lone byte, bad continuation, overlong, surrogate,
 * truncated at the end) next to valid two- and four-byte sequences.
 */
static void
test_escaping(void)
{
	static const char raw[] =
		"a\"b\\c\n\x01\x1f\x7f"	/* quote, backslash, controls, DEL */
		"\xc3\xa9"			/* é, valid */
		"\xff"				/* never valid */
		"\xc3("			/* lead without continuation */
		"\xc0\xaf"			/* overlong '/' */
		"\xed\xa0\x80"			/* surrogate U+D800 */
		"\xf0\x9f\x98\x80"		/* U+1F600, valid */
		"\xe2\x82";			/* truncated at the end */
	static const char want_json[] =
		"\"a\\\"b\\\\c\\n\\u0001\\u001f\\u007f"
		"\xc3\xa9"
		"\xef\xbf\xbd"
		"\xef\xbf\xbd("
		"\xef\xbf\xbd\xef\xbf\xbd"
		"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		"\xf0\x9f\x98\x80"
		"\xef\xbf\xbd\xef\xbf\xbd\"";
	static const char want_value[] =
		"a\"b\\c\n\x01\x1f\x7f\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd("
		"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		"\xf0\x9f\x98\x80\xef\xbf\xbd\xef\xbf\xbd";
	struct qa_inventory *inv = qa_inventory_create(raw);
	struct qa_report_options opt = default_opt();
	struct qa_kv *kv;
	char *out, *line;
	cJSON *j;

	inv->kind = QA_KIND_SAFETENSORS;
	kv = add_kv(inv, "k\te\"y", QA_V_STRING);
	kv->value.v.str.s = raw;
	kv->value.v.str.len = sizeof(raw) - 1;
	qa_inventory_summarize(inv);
	out = render(R_JSON, &inv, 1, &opt);

	line = malloc(strlen(want_json) + 32);
	snprintf(line, strlen(want_json) + 32, "\"path\": %s,", want_json);
	CHECK_HAS(out, line);
	snprintf(line, strlen(want_json) + 32, "\"k\\te\\\"y\": %s", want_json);
	CHECK_HAS(out, line);
	free(line);

	j = parse(out);
	if (j) {
		cJSON *in = cJSON_GetArrayItem(get(j, "inputs"), 0);
		cJSON *md = get(in, "metadata");

		CHECK(cJSON_IsString(get(in, "path")));
		CHECK(strcmp(get(in, "path")->valuestring, want_value) == 0);
		CHECK(cJSON_IsString(get(md, "k\te\"y")));
		CHECK(strcmp(get(md, "k\te\"y")->valuestring,
			     want_value) == 0);
	}
	cJSON_Delete(j);
	free(out);
	qa_inventory_destroy(inv);
}

static void
test_verdict(void)
{
	struct qa_inventory *clean = qa_inventory_create("clean");
	struct qa_inventory *info = qa_inventory_create("info");
	struct qa_inventory *warn = qa_inventory_create("warn");
	struct qa_inventory *err = qa_inventory_create("err");
	struct qa_inventory *all[4];

	qa_inv_finding(info, 1014, NULL, -1, NULL, "3 bytes after data");
	qa_inv_finding(warn, 1030, NULL, -1, NULL, "gap");
	qa_inv_finding(warn, 1014, NULL, -1, NULL, "trailing");
	qa_inv_finding(err, 1028, "f.gguf", 0x1f40, "x", "past the end");
	CHECK(info->n_findings == 1 && info->findings[0].severity == QA_SEV_INFO);
	CHECK(warn->findings[0].severity == QA_SEV_WARNING);
	CHECK(err->findings[0].severity == QA_SEV_ERROR);

	CHECK(strcmp(qa_verdict(clean, QA_SEV_ERROR), "pass") == 0);
	CHECK(strcmp(qa_verdict(clean, QA_SEV_INFO), "pass") == 0);

	CHECK(strcmp(qa_verdict(info, QA_SEV_ERROR), "pass") == 0);
	CHECK(strcmp(qa_verdict(info, QA_SEV_WARNING), "pass") == 0);
	CHECK(strcmp(qa_verdict(info, QA_SEV_INFO), "fail") == 0);
	CHECK(strcmp(qa_verdict(info, QA_SEV_NONE), "pass") == 0);

	CHECK(strcmp(qa_verdict(warn, QA_SEV_ERROR), "warn") == 0);
	CHECK(strcmp(qa_verdict(warn, QA_SEV_WARNING), "fail") == 0);
	CHECK(strcmp(qa_verdict(warn, QA_SEV_INFO), "fail") == 0);
	CHECK(strcmp(qa_verdict(warn, QA_SEV_NONE), "warn") == 0);

	CHECK(strcmp(qa_verdict(err, QA_SEV_ERROR), "fail") == 0);
	CHECK(strcmp(qa_verdict(err, QA_SEV_WARNING), "fail") == 0);
	CHECK(strcmp(qa_verdict(err, QA_SEV_NONE), "warn") == 0);

	all[0] = clean;
	all[1] = info;
	all[2] = warn;
	all[3] = err;
	CHECK(strcmp(qa_verdict_all(all, 0, QA_SEV_ERROR), "pass") == 0);
	CHECK(strcmp(qa_verdict_all(all, 2, QA_SEV_ERROR), "pass") == 0);
	CHECK(strcmp(qa_verdict_all(all, 3, QA_SEV_ERROR), "warn") == 0);
	CHECK(strcmp(qa_verdict_all(all, 4, QA_SEV_ERROR), "fail") == 0);
	CHECK(strcmp(qa_verdict_all(all, 4, QA_SEV_NONE), "warn") == 0);
	CHECK(strcmp(qa_verdict_all(all, 2, QA_SEV_INFO), "fail") == 0);

	/* The JSON carries the per-input and the overall verdict. */
	{
		struct qa_report_options opt = default_opt();
		char *out = render(R_JSON, all, 4, &opt);
		cJSON *j = parse(out);

		if (j) {
			cJSON *in = get(j, "inputs");

			CHECK(strcmp(get(j, "verdict")->valuestring,
				     "fail") == 0);
			CHECK(strcmp(get(cJSON_GetArrayItem(in, 0),
					 "verdict")->valuestring, "pass") == 0);
			CHECK(strcmp(get(cJSON_GetArrayItem(in, 2),
					 "verdict")->valuestring, "warn") == 0);
			CHECK(strcmp(get(cJSON_GetArrayItem(in, 3),
					 "verdict")->valuestring, "fail") == 0);
		}
		cJSON_Delete(j);
		free(out);
	}
	qa_inventory_destroy(clean);
	qa_inventory_destroy(info);
	qa_inventory_destroy(warn);
	qa_inventory_destroy(err);
}

/*
 * Bits per weight, by hand: 576 + 16384 + 420 = 17380 bytes over
 * 1024 + 4096 + 512 = 5632 weights; 8 * 17380 / 5632 = 24.6875.
 * Per component with a hand-made table: Q4_K 8 * 576 / 1024 = 4.5,
 * Q6_K 8 * 420 / 512 = 6.5625, mixed 8 * 996 / 1536 = 5.1875.
 */
static void
test_bits_per_weight(void)
{
	struct qa_inventory *inv = make_gguf();
	struct qa_report_options opt = default_opt();
	struct qa_dtype_count mixed_dt[2] = {
		{ "Q4_K", 1, 576, 1024 }, { "Q6_K", 1, 420, 512 },
	};
	struct qa_dtype_count f32_dt[1] = { { "F32", 1, 16384, 4096 } };
	struct qa_component comps[3] = {
		{ "attn_q", 2, 1536, 996, mixed_dt, 2, NULL, 0 },
		{ "embed", 1, 4096, 16384, f32_dt, 1, NULL, 0 },
		{ "empty", 0, 0, 0, NULL, 0, NULL, 0 },
	};
	char *out;
	cJSON *j;

	CHECK(inv->params == 5632);
	CHECK(inv->bytes == 17380);
	out = render(R_JSON, &inv, 1, &opt);
	CHECK_HAS(out, "\n        \"params\": 5632,\n"
		  "        \"bytes\": 17380,\n"
		  "        \"bits_per_weight\": 24.6875,\n");
	/* Whatever roles src/analysis/roles.c assigns, each component's bpw is its
	 * own 8 * bytes / params and its dtype counts add up. */
	j = parse(out);
	if (j) {
		cJSON *m = get(cJSON_GetArrayItem(get(j, "inputs"), 0),
			       "model");
		cJSON *c;
		double total_tensors = 0;

		cJSON_ArrayForEach(c, get(m, "components")) {
			double p = get(c, "params")->valuedouble;
			double b = get(c, "bytes")->valuedouble;
			double sum = 0;
			cJSON *d;

			CHECK_NEAR(get(c, "bits_per_weight")->valuedouble,
				   8 * b / p, 1e-4);
			cJSON_ArrayForEach(d, get(c, "dtypes"))
				sum += d->valuedouble;
			CHECK(sum == get(c, "tensors")->valuedouble);
			total_tensors += sum;
		}
		CHECK(total_tensors == 3);
	}
	cJSON_Delete(j);
	free(out);

	inv->components = comps;
	inv->n_components = 3;
	out = render(R_JSON, &inv, 1, &opt);
	CHECK_HAS(out,
		  "        \"components\": [\n"
		  "          {\n"
		  "            \"role\": \"attn_q\",\n"
		  "            \"tensors\": 2,\n"
		  "            \"params\": 1536,\n"
		  "            \"bytes\": 996,\n"
		  "            \"dtypes\": {\n"
		  "              \"Q4_K\": 1,\n"
		  "              \"Q6_K\": 1\n"
		  "            },\n"
		  "            \"precisions\": {},\n"
		  "            \"bits_per_weight\": 5.1875\n"
		  "          },\n"
		  "          {\n"
		  "            \"role\": \"embed\",\n"
		  "            \"tensors\": 1,\n"
		  "            \"params\": 4096,\n"
		  "            \"bytes\": 16384,\n"
		  "            \"dtypes\": {\n"
		  "              \"F32\": 1\n"
		  "            },\n"
		  "            \"precisions\": {},\n"
		  "            \"bits_per_weight\": 32.0000\n"
		  "          },\n"
		  "          {\n"
		  "            \"role\": \"empty\",\n"
		  "            \"tensors\": 0,\n"
		  "            \"params\": 0,\n"
		  "            \"bytes\": 0,\n"
		  "            \"dtypes\": {},\n"
		  "            \"precisions\": {},\n"
		  "            \"bits_per_weight\": null\n"
		  "          }\n"
		  "        ],\n");
	free(out);
	/* The arena does not own comps; detach before destroying. */
	inv->components = NULL;
	inv->n_components = 0;

	/* No tensors at all: bits_per_weight is null. */
	{
		struct qa_inventory *e = qa_inventory_create("empty.gguf");

		e->kind = QA_KIND_GGUF;
		qa_inventory_summarize(e);
		out = render(R_JSON, &e, 1, &opt);
		CHECK_HAS(out, "\"bits_per_weight\": null,\n");
		CHECK_HAS(out, "\"method\": \"gguf\"\n");
		free(out);
		qa_inventory_destroy(e);
	}
	qa_inventory_destroy(inv);
}

static void
test_mtp_status(void)
{
	/* The status itself is decided by the summary and the MTP check;
	 * the reporter must print the one it is given, for every value. */
	static const struct {
		int64_t declared, present;
		enum qa_mtp_status st;
		const char *status;
	} cases[] = {
		{ 1, 1, QA_MTP_PRESENT, "present" },
		{ 2, 3, QA_MTP_PRESENT, "present" },
		{ 1, 0, QA_MTP_MISSING, "missing" },
		{ 3, 1, QA_MTP_PARTIAL, "partial" },
		{ 0, 0, QA_MTP_ABSENT, "absent" },
		{ 0, 0, QA_MTP_NOT_APPLICABLE, "not-applicable" },
	};
	struct qa_inventory *inv = make_gguf();
	struct qa_report_options opt = default_opt();
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[256];
		char *out;

		inv->mtp.declared = cases[i].declared;
		inv->mtp.present = cases[i].present;
		inv->mtp.status = cases[i].st;
		inv->mtp.tensors = 7;
		inv->mtp.bytes = 1234;
		out = render(R_JSON, &inv, 1, &opt);
		snprintf(want, sizeof(want),
			 "        \"mtp\": {\n"
			 "          \"declared\": %d,\n"
			 "          \"present\": %d,\n"
			 "          \"tensors\": 7,\n"
			 "          \"bytes\": 1234,\n"
			 "          \"status\": \"%s\",\n"
			 "          \"loadable\": true\n"
			 "        }\n",
			 (int)cases[i].declared, (int)cases[i].present,
			 cases[i].status);
		CHECK_HAS(out, want);
		free(out);
	}
	qa_inventory_destroy(inv);
}

static void
test_hparams(void)
{
	struct qa_inventory *inv = qa_inventory_create("x.safetensors");
	struct qa_report_options opt = default_opt();
	int32_t kv_heads[3] = { 8, 8, 0 };
	uint8_t kinds[3] = { QA_LAYER_LINEAR_ATTENTION, QA_LAYER_FULL_ATTENTION,
			     QA_LAYER_MTP };
	char *out;

	inv->kind = QA_KIND_SAFETENSORS;
	inv->hp.n_layer = 32;
	inv->hp.n_embd = 4096;
	qa_inventory_summarize(inv);
	out = render(R_JSON, &inv, 1, &opt);
	/* Everything unknown (-1) is omitted; arch and name are null. */
	CHECK_HAS(out,
		  "        \"architecture\": null,\n"
		  "        \"name\": null,\n"
		  "        \"format\": \"safetensors\",\n"
		  "        \"kind\": \"model\",\n"
		  "        \"engines\": [],\n"
		  "        \"hparams\": {\n"
		  "          \"n_layer\": 32,\n"
		  "          \"n_embd\": 4096,\n"
		  "          \"tie_embeddings\": false\n"
		  "        },\n");
	CHECK_HAS(out, "\"method\": \"none\"\n");
	free(out);

	inv->hp.n_layer = 2;
	inv->hp.n_layer_all = 3;
	inv->hp.head_kv_per_layer = kv_heads;
	inv->hp.layer_kind = kinds;
	inv->hp.n_mtp = 1;
	inv->hp.full_attention_interval = 2;
	inv->hp.n_expert = 0;
	inv->hp.tie_embeddings = true;
	out = render(R_JSON, &inv, 1, &opt);
	CHECK_HAS(out,
		  "        \"hparams\": {\n"
		  "          \"n_layer\": 2,\n"
		  "          \"n_layer_all\": 3,\n"
		  "          \"n_embd\": 4096,\n"
		  "          \"head_kv_per_layer\": [8, 8, 0],\n"
		  "          \"n_expert\": 0,\n"
		  "          \"layer_kinds\": [\"linear\", \"full\", \"mtp\"],\n"
		  "          \"full_attention_interval\": 2,\n"
		  "          \"n_mtp\": 1,\n"
		  "          \"tie_embeddings\": true\n"
		  "        },\n");
	free(out);
	/* Not arena memory: detach. */
	inv->hp.head_kv_per_layer = NULL;
	inv->hp.layer_kind = NULL;
	qa_inventory_destroy(inv);
}

static void
test_metadata(void)
{
	struct qa_inventory *inv = qa_inventory_create("m.gguf");
	struct qa_report_options opt = default_opt();
	struct qa_value ints[3], nested[2], strs[2], big[65];
	struct qa_kv *kv;
	char *out;
	cJSON *j;
	int i;

	memset(ints, 0, sizeof(ints));
	memset(nested, 0, sizeof(nested));
	memset(strs, 0, sizeof(strs));
	memset(big, 0, sizeof(big));
	inv->kind = QA_KIND_GGUF;
	kv = add_kv(inv, "u8", QA_V_U8);
	kv->value.v.u = 255;
	kv = add_kv(inv, "i8", QA_V_I8);
	kv->value.v.i = -128;
	kv = add_kv(inv, "u16", QA_V_U16);
	kv->value.v.u = 65535;
	kv = add_kv(inv, "i16", QA_V_I16);
	kv->value.v.i = -32768;
	kv = add_kv(inv, "u32", QA_V_U32);
	kv->value.v.u = 4294967295u;
	kv = add_kv(inv, "i32", QA_V_I32);
	kv->value.v.i = -100000;
	kv = add_kv(inv, "u64", QA_V_U64);
	kv->value.v.u = UINT64_MAX;
	kv = add_kv(inv, "i64", QA_V_I64);
	kv->value.v.i = INT64_MIN;
	kv = add_kv(inv, "f32", QA_V_F32);
	kv->value.v.f = (double)0.1f;
	kv = add_kv(inv, "f64", QA_V_F64);
	kv->value.v.f = 0.1;
	kv = add_kv(inv, "f32.nan", QA_V_F32);
	kv->value.v.f = NAN;
	kv = add_kv(inv, "f64.inf", QA_V_F64);
	kv->value.v.f = -INFINITY;
	kv = add_kv(inv, "b.true", QA_V_BOOL);
	kv->value.v.u = 1;
	kv = add_kv(inv, "b.false", QA_V_BOOL);
	kv->value.v.u = 0;
	kv = add_kv(inv, "str", QA_V_STRING);
	kv->value.v.str.s = "hello";
	kv->value.v.str.len = 5;

	for (i = 0; i < 3; i++) {
		ints[i].type = QA_V_I32;
		ints[i].v.i = i - 1;
	}
	kv = add_kv(inv, "arr.i32", QA_V_ARRAY);
	kv->value.v.arr.elem = QA_V_I32;
	kv->value.v.arr.count = 3;
	kv->value.v.arr.items = ints;
	kv->value.v.arr.kept = 3;

	strs[0].type = QA_V_STRING;
	strs[0].v.str.s = "a";
	strs[0].v.str.len = 1;
	strs[1].type = QA_V_STRING;
	strs[1].v.str.s = "b\"";
	strs[1].v.str.len = 2;
	kv = add_kv(inv, "arr.str", QA_V_ARRAY);
	kv->value.v.arr.elem = QA_V_STRING;
	kv->value.v.arr.count = 2;
	kv->value.v.arr.items = strs;
	kv->value.v.arr.kept = 2;

	/* Too long to list (more than 64 elements). */
	for (i = 0; i < 65; i++) {
		big[i].type = QA_V_U8;
		big[i].v.u = 1;
	}
	kv = add_kv(inv, "arr.65", QA_V_ARRAY);
	kv->value.v.arr.elem = QA_V_U8;
	kv->value.v.arr.count = 65;
	kv->value.v.arr.items = big;
	kv->value.v.arr.kept = 65;

	/* Not kept by the parser (a 150k-token vocabulary). */
	kv = add_kv(inv, "tokenizer.ggml.tokens", QA_V_ARRAY);
	kv->value.v.arr.elem = QA_V_STRING;
	kv->value.v.arr.count = 151936;

	/* Array of arrays. */
	nested[0].type = QA_V_ARRAY;
	nested[0].v.arr.elem = QA_V_I32;
	nested[0].v.arr.count = 2;
	nested[0].v.arr.items = ints;
	nested[0].v.arr.kept = 2;
	nested[1].type = QA_V_ARRAY;
	nested[1].v.arr.elem = QA_V_I32;
	nested[1].v.arr.count = 0;
	kv = add_kv(inv, "arr.nested", QA_V_ARRAY);
	kv->value.v.arr.elem = QA_V_ARRAY;
	kv->value.v.arr.count = 2;
	kv->value.v.arr.items = nested;
	kv->value.v.arr.kept = 2;

	/* A duplicate key: only the first is written. */
	kv = add_kv(inv, "u8", QA_V_U8);
	kv->value.v.u = 7;

	qa_inventory_summarize(inv);
	out = render(R_JSON, &inv, 1, &opt);
	CHECK_HAS(out,
		  "      \"metadata\": {\n"
		  "        \"u8\": 255,\n"
		  "        \"i8\": -128,\n"
		  "        \"u16\": 65535,\n"
		  "        \"i16\": -32768,\n"
		  "        \"u32\": 4294967295,\n"
		  "        \"i32\": -100000,\n"
		  "        \"u64\": 18446744073709551615,\n"
		  "        \"i64\": -9223372036854775808,\n"
		  "        \"f32\": 0.100000001,\n"
		  "        \"f64\": 0.10000000000000001,\n"
		  "        \"f32.nan\": null,\n"
		  "        \"f64.inf\": null,\n"
		  "        \"b.true\": true,\n"
		  "        \"b.false\": false,\n"
		  "        \"str\": \"hello\",\n"
		  "        \"arr.i32\": {\n"
		  "          \"type\": \"array\",\n"
		  "          \"elem_type\": \"INT32\",\n"
		  "          \"length\": 3,\n"
		  "          \"values\": [-1, 0, 1]\n"
		  "        },\n"
		  "        \"arr.str\": {\n"
		  "          \"type\": \"array\",\n"
		  "          \"elem_type\": \"STRING\",\n"
		  "          \"length\": 2,\n"
		  "          \"values\": [\n"
		  "            \"a\",\n"
		  "            \"b\\\"\"\n"
		  "          ]\n"
		  "        },\n"
		  "        \"arr.65\": {\n"
		  "          \"type\": \"array\",\n"
		  "          \"elem_type\": \"UINT8\",\n"
		  "          \"length\": 65\n"
		  "        },\n"
		  "        \"tokenizer.ggml.tokens\": {\n"
		  "          \"type\": \"array\",\n"
		  "          \"elem_type\": \"STRING\",\n"
		  "          \"length\": 151936\n"
		  "        },\n"
		  "        \"arr.nested\": {\n"
		  "          \"type\": \"array\",\n"
		  "          \"elem_type\": \"ARRAY\",\n"
		  "          \"length\": 2,\n"
		  "          \"values\": [\n"
		  "            {\n"
		  "              \"type\": \"array\",\n"
		  "              \"elem_type\": \"INT32\",\n"
		  "              \"length\": 2,\n"
		  "              \"values\": [-1, 0]\n"
		  "            },\n"
		  "            {\n"
		  "              \"type\": \"array\",\n"
		  "              \"elem_type\": \"INT32\",\n"
		  "              \"length\": 0,\n"
		  "              \"values\": []\n"
		  "            }\n"
		  "          ]\n"
		  "        }\n"
		  "      },\n");
	CHECK_LACKS(out, "\"u8\": 7");
	j = parse(out);
	if (j) {
		cJSON *md = get(cJSON_GetArrayItem(get(j, "inputs"), 0),
				"metadata");

		/* float32 0.1 round-trips through %.9g */
		CHECK((float)get(md, "f32")->valuedouble == 0.1f);
		CHECK(get(md, "f64")->valuedouble == 0.1);
	}
	cJSON_Delete(j);
	free(out);
	/* The arrays above live on the stack: detach before destroying. */
	inv->n_kvs = 0;
	qa_inventory_destroy(inv);
}

static void
test_summary_and_mask(void)
{
	struct qa_inventory *inv = make_gguf();
	struct qa_report_options opt = default_opt();
	bool mask0[3] = { true, false, true };
	const bool *masks[1] = { mask0 };
	char *out;
	cJSON *j;

	out = render(R_JSON, &inv, 1, &opt);
	CHECK_HAS(out,
		  "      \"tensors\": [\n"
		  "        {\n"
		  "          \"name\": \"blk.0.attn_q.weight\",\n"
		  "          \"file\": \"models/tiny-Q4_K_M.gguf\",\n"
		  "          \"offset\": 3000,\n"
		  "          \"bytes\": 576,\n"
		  "          \"dtype\": \"Q4_K\",\n"
		  "          \"shape\": [256, 4],\n"
		  "          \"role\": \"");
	CHECK_HAS(out, "\"name\": \"token_embd.weight\"");
	free(out);

	opt.summary = true;
	out = render(R_JSON, &inv, 1, &opt);
	CHECK_LACKS(out, "\"tensors\": [");
	CHECK_LACKS(out, "\"name\": \"token_embd.weight\"");
	CHECK_HAS(out, "\"components\": [");
	free(out);

	opt.summary = false;
	opt.tensor_mask = masks;
	out = render(R_JSON, &inv, 1, &opt);
	CHECK_HAS(out, "\"name\": \"blk.0.attn_q.weight\"");
	CHECK_LACKS(out, "\"name\": \"token_embd.weight\"");
	CHECK_HAS(out, "\"name\": \"output.weight\"");
	j = parse(out);
	if (j)
		CHECK(cJSON_GetArraySize(get(cJSON_GetArrayItem(
			get(j, "inputs"), 0), "tensors")) == 2);
	cJSON_Delete(j);
	free(out);

	out = render(R_TENSORS, &inv, 1, &opt);
	CHECK_HAS(out, "blk.0.attn_q.weight");
	CHECK_LACKS(out, "token_embd.weight");
	CHECK_HAS(out, "\n2 of 3 tensors\n");
	free(out);
	qa_inventory_destroy(inv);
}

/* Every key the DESIGN contract lists, with its JSON type. */
static void
test_required_keys(void)
{
	struct qa_inventory *inv = make_gguf();
	struct qa_report_options opt = default_opt();
	char *out, *again;
	cJSON *j, *in, *m, *x;
	char want[128];

	qa_inv_finding(inv, 1028, "models/tiny-Q4_K_M.gguf", 0x1f40,
		       "output.weight", "ends at %d, file is %d bytes",
		       20380, 20000);
	qa_inv_finding(inv, 1014, NULL, -1, NULL, "%s", "");
	inv->tensors[2].mtp = true;
	out = render(R_JSON, &inv, 1, &opt);
	again = render(R_JSON, &inv, 1, &opt);
	CHECK(strcmp(out, again) == 0);	/* deterministic */
	free(again);
	CHECK(strncmp(out, "{\n  \"schema\": \"quantaudit/1\",\n"
		      "  \"tool\": {\n    \"name\": \"quantaudit\",\n", 60) == 0);
	CHECK(out[strlen(out) - 1] == '\n');
	CHECK_HAS(out, "\"mtp\": true\n");
	j = parse(out);
	if (!j) {
		free(out);
		qa_inventory_destroy(inv);
		return;
	}
	CHECK(strcmp(get(j, "schema")->valuestring, "quantaudit/1") == 0);
	CHECK(cJSON_IsString(get(get(j, "tool"), "name")));
	CHECK(cJSON_IsString(get(get(j, "tool"), "version")));
	CHECK(cJSON_IsArray(get(j, "inputs")));
	CHECK(cJSON_IsString(get(j, "verdict")));
	in = cJSON_GetArrayItem(get(j, "inputs"), 0);
	CHECK(strcmp(get(in, "path")->valuestring,
		     "models/tiny-Q4_K_M.gguf") == 0);
	CHECK(strcmp(get(in, "kind")->valuestring, "gguf") == 0);
	x = cJSON_GetArrayItem(get(in, "files"), 0);
	CHECK(cJSON_IsString(get(x, "path")));
	CHECK(get(x, "bytes")->valuedouble == 20000);
	CHECK(strcmp(get(x, "format")->valuestring, "gguf") == 0);
	CHECK(strcmp(get(x, "role")->valuestring, "model") == 0);
	CHECK(get(x, "gguf_version")->valuedouble == 3);
	CHECK(get(x, "part") == NULL && get(x, "big_endian") == NULL);

	m = get(in, "model");
	CHECK(strcmp(get(m, "architecture")->valuestring, "llama") == 0);
	CHECK(strcmp(get(m, "name")->valuestring, "Tiny Llama") == 0);
	CHECK(cJSON_IsObject(get(m, "hparams")));
	CHECK(get(get(m, "hparams"), "n_head_kv")->valuedouble == 2);
	CHECK(cJSON_IsNumber(get(m, "params")));
	CHECK(cJSON_IsNumber(get(m, "bytes")));
	CHECK(cJSON_IsNumber(get(m, "bits_per_weight")));
	x = get(m, "quantization");
	snprintf(want, sizeof(want), "gguf:%s", qa_llama_ftype_label(15));
	CHECK(strcmp(get(x, "method")->valuestring, want) == 0);
	CHECK(strcmp(get(x, "file_type_declared")->valuestring,
		     qa_llama_ftype_label(15)) == 0);
	CHECK(get(x, "file_type")->valuedouble == 15);
	CHECK(cJSON_IsArray(get(m, "components")));
	cJSON_ArrayForEach(x, get(m, "components")) {
		CHECK(cJSON_IsString(get(x, "role")));
		CHECK(cJSON_IsNumber(get(x, "tensors")));
		CHECK(cJSON_IsNumber(get(x, "params")));
		CHECK(cJSON_IsNumber(get(x, "bytes")));
		CHECK(cJSON_IsObject(get(x, "dtypes")));
		CHECK(cJSON_IsNumber(get(x, "bits_per_weight")));
	}
	x = get(m, "mtp");
	CHECK(cJSON_IsNumber(get(x, "declared")));
	CHECK(cJSON_IsNumber(get(x, "present")));
	CHECK(cJSON_IsNumber(get(x, "tensors")));
	CHECK(cJSON_IsNumber(get(x, "bytes")));
	CHECK(cJSON_IsString(get(x, "status")));
	CHECK(cJSON_IsObject(get(in, "metadata")));

	CHECK(cJSON_GetArraySize(get(in, "tensors")) == 3);
	cJSON_ArrayForEach(x, get(in, "tensors")) {
		CHECK(cJSON_IsString(get(x, "name")));
		CHECK(cJSON_IsString(get(x, "file")));
		CHECK(cJSON_IsNumber(get(x, "offset")));
		CHECK(cJSON_IsNumber(get(x, "bytes")));
		CHECK(cJSON_IsString(get(x, "dtype")));
		CHECK(cJSON_IsArray(get(x, "shape")));
		CHECK(cJSON_IsString(get(x, "role")));
		CHECK(cJSON_IsNumber(get(x, "layer")) ||
		      cJSON_IsNull(get(x, "layer")));
	}
	x = cJSON_GetArrayItem(get(in, "tensors"), 2);
	CHECK(cJSON_IsTrue(get(x, "mtp")));
	CHECK(get(cJSON_GetArrayItem(get(in, "tensors"), 0), "mtp") == NULL);

	CHECK(cJSON_GetArraySize(get(in, "findings")) == 2);
	x = cJSON_GetArrayItem(get(in, "findings"), 0);
	CHECK(strcmp(get(x, "code")->valuestring, "QA1028") == 0);
	CHECK(strcmp(get(x, "id")->valuestring, "tensor-past-eof") == 0);
	CHECK(strcmp(get(x, "category")->valuestring, "integrity") == 0);
	CHECK(strcmp(get(x, "severity")->valuestring, "error") == 0);
	snprintf(want, sizeof(want), "%s: ends at 20380, file is 20000 bytes",
		 qa_rule_find(1028)->summary);
	CHECK(strcmp(get(x, "message")->valuestring, want) == 0);
	CHECK(strcmp(get(x, "detail")->valuestring,
		     "ends at 20380, file is 20000 bytes") == 0);
	CHECK(strcmp(get(x, "tensor")->valuestring, "output.weight") == 0);
	CHECK(strcmp(get(x, "file")->valuestring,
		     "models/tiny-Q4_K_M.gguf") == 0);
	CHECK(get(x, "offset")->valuedouble == 0x1f40);
	/* Without detail, file, tensor or offset: summary only, keys absent. */
	x = cJSON_GetArrayItem(get(in, "findings"), 1);
	CHECK(strcmp(get(x, "code")->valuestring, "QA1014") == 0);
	CHECK(strcmp(get(x, "message")->valuestring,
		     qa_rule_find(1014)->summary) == 0);
	CHECK(get(x, "tensor") == NULL && get(x, "file") == NULL &&
	      get(x, "offset") == NULL);
	CHECK(strcmp(get(in, "verdict")->valuestring, "fail") == 0);
	CHECK(strcmp(get(j, "verdict")->valuestring, "fail") == 0);
	cJSON_Delete(j);
	free(out);
	qa_inventory_destroy(inv);
}

/* Display columns of one line (code points; no escapes expected). */
static size_t
columns(const char *s, size_t n)
{
	size_t i, w = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	return w;
}

static void
check_width(const char *out, size_t limit)
{
	const char *s = out;

	while (*s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		CHECKF(columns(s, n) <= limit,
		       "line wider than %zu columns: %.*s", limit, (int)n, s);
		s += n + (e != NULL);
	}
}

/* Joins the continuation lines of wrapped findings ("\n      "). */
static char *
unwrap(const char *s)
{
	char *r = malloc(strlen(s) + 1), *d = r;

	if (!r)
		abort();
	while (*s) {
		if (strncmp(s, "\n      ", 7) == 0) {
			*d++ = ' ';
			s += 7;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
	return r;
}

static void
test_text(void)
{
	struct qa_inventory *inv = make_gguf();
	struct qa_inventory *two[2];
	struct qa_report_options opt = default_opt();
	static uint8_t kinds[48];
	struct qa_dtype_count many[8] = {
		{ "Q4_K", 28, 0, 0 }, { "Q6_K", 4, 0, 0 }, { "Q8_0", 2, 0, 0 },
		{ "IQ4_XS", 1, 0, 0 }, { "BF16", 1, 0, 0 }, { "F16", 3, 0, 0 },
		{ "F32", 9, 0, 0 }, { "MXFP4", 11, 0, 0 },
	};
	struct qa_component *c;
	char *out, *unwrapped;
	int i;

	inv->hp.n_layer = 47;
	inv->hp.n_layer_all = 48;
	inv->hp.n_mtp = 1;
	inv->hp.n_expert = 512;
	inv->hp.n_expert_used = 10;
	inv->hp.n_expert_shared = 1;
	inv->hp.n_ff_expert = 512;
	inv->hp.sliding_window = 4096;
	inv->hp.q_lora_rank = 1536;
	inv->hp.kv_lora_rank = 512;
	inv->hp.qk_rope_dim = 64;
	inv->hp.ssm_d_inner = 8192;
	inv->hp.ssm_d_state = 128;
	inv->hp.name = "A model name that is long enough to overflow the "
		"eighty columns of a terminal on its own";
	for (i = 0; i < 48; i++)
		kinds[i] = i % 4 == 3 ? QA_LAYER_FULL_ATTENTION :
			QA_LAYER_LINEAR_ATTENTION;
	inv->hp.layer_kind = kinds;
	inv->mtp.declared = 1;
	inv->mtp.present = 0;
	inv->mtp.status = QA_MTP_MISSING;
	/* A component with many dtypes must be cut with "…". */
	c = &inv->components[0];
	c->dtypes = many;
	c->n_dtypes = 8;
	/* No module histogram: the column falls back to the dtypes. */
	c->n_precisions = 0;
	qa_inv_finding(inv, 1028, "models/tiny-Q4_K_M.gguf", 0x1f40,
		       "blk.0.attn_q.weight", "tensor data ends at byte %d, "
		       "past the end of the file, which is %d bytes long; the "
		       "download was probably cut short", 20380, 20000);
	qa_inv_finding(inv, 1014, NULL, -1, NULL, "3 bytes");
	qa_inv_finding(inv, 1030, NULL, -1, "output.weight", "gap of 8 bytes");

	out = render(R_TEXT, &inv, 1, &opt);
	check_width(out, 80);
	CHECK_HAS(out, "models/tiny-Q4_K_M.gguf (gguf)\n");
	CHECK_HAS(out, "48 layers: 36 linear (GDN) + 12 full attention");
	CHECK_HAS(out, "  layers      47 + 1 MTP" DOT "embd 256\n");
	CHECK_HAS(out, "  heads       4 / 2 kv\n");
	CHECK_HAS(out, "10 of 512 used");
	CHECK_HAS(out, " (declared)");
	CHECK_HAS(out, "(17380 bytes)");
	CHECK_HAS(out, "24.69 bpw");
	CHECK_HAS(out, "MISSING");
	CHECK_HAS(out, "Q4_K 28, Q6_K 4");
	CHECK_HAS(out, "\xe2\x80\xa6");
	CHECK_HAS(out, "\n  error QA1028 tensor-past-eof: ");
	unwrapped = unwrap(out);
	CHECK_HAS(unwrapped, "past the end of the file, which is 20000 bytes "
		  "long; the download was probably cut short "
		  "[models/tiny-Q4_K_M.gguf:0x1f40, tensor "
		  "'blk.0.attn_q.weight']\n");
	CHECK_HAS(unwrapped, "gap of 8 bytes [tensor 'output.weight']\n");
	free(unwrapped);
	CHECK_HAS(out, "verdict: FAIL (1 error, 1 warning, 1 info)\n");
	CHECK_LACKS(out, "\033[");
	/* Errors, then warnings, then info, whatever the order found. */
	CHECK(strstr(out, "error QA1028") < strstr(out, "warning QA1030"));
	CHECK(strstr(out, "warning QA1030") < strstr(out, "info QA1014"));
	free(out);

	opt.color = true;
	out = render(R_TEXT, &inv, 1, &opt);
	CHECK_HAS(out, "\033[31merror\033[0m QA1028");
	free(out);
	opt.color = false;

	/* Two inputs: separated, with an overall verdict. */
	two[0] = inv;
	two[1] = make_gguf();
	/* A hostile name must not reach the terminal as escape codes. */
	two[1]->hp.name = "evil\033]0;x\007\xff";
	out = render(R_TEXT, two, 2, &opt);
	check_width(out, 80);
	CHECK_HAS(out, DOT "evil\\x1b]0;x\\x07\\xff\n");
	CHECK_LACKS(out, "\033");
	CHECK_HAS(out, "verdict: PASS (no findings)\n");
	CHECK_HAS(out, "\noverall verdict: FAIL\n");
	free(out);

	out = render(R_TENSORS, &inv, 1, &opt);
	check_width(out, 80);
	CHECK_HAS(out, "\n3 tensors\n");
	CHECK_HAS(out, "256x4");
	CHECK_HAS(out, "0x4df8");	/* 19960 */
	CHECK_HAS(out, "576 B");
	CHECK_HAS(out, "16.0 KiB");
	free(out);

	c->dtypes = NULL;
	c->n_dtypes = 0;
	inv->hp.layer_kind = NULL;
	qa_inventory_destroy(two[1]);
	qa_inventory_destroy(inv);
}

/* ---- issue 4: precision table, summary line, layer map ---------------- */

/*
 * A Gemma-3-12B-like NVFP4 checkpoint (ModelOpt) that keeps attention in
 * BF16, built by hand: 48 layers, hidden 3840, attn_q [4096, 3840],
 * ffn_up [15360, 3840]. Nominal sizes (quant-formats.md §1.4):
 *   attn_q  BF16: 48 * 4096 * 3840 = 754974720 params, 2 bytes each =
 *           1509949440 bytes (1.41 GiB), 16.00 bpw.
 *   ffn_up  NVFP4: 48 * 15360 * 3840 = 2831155200 params; payload 0.5
 *           byte each = 1415577600, FP8 scale per 16 = 176947200, two
 *           F32 scalars per module = 48 * 8 = 384: 1592525184 bytes
 *           (1.48 GiB), 8 * 1592525184 / 2831155200 = 4.50 bpw.
 *   norm    97 BF16 vectors of 3840: 372480 params, 744960 bytes.
 */
static struct qa_module nv_modules[96];
static struct qa_precision_count nv_bf16[1] = {
	{ "BF16", 48, 754974720, 1509949440 },
};
static struct qa_precision_count nv_fp4[1] = {
	{ "NVFP4", 48, 2831155200, 1592525184 },
};
static struct qa_dtype_count nv_q_dt[1] = {
	{ "BF16", 48, 1509949440, 754974720 },
};
static struct qa_dtype_count nv_up_dt[3] = {
	{ "U8", 48, 1415577600, 2831155200 },
	{ "F8_E4M3", 48, 176947200, 0 },
	{ "F32", 96, 384, 0 },
};
static struct qa_dtype_count nv_norm_dt[1] = {
	{ "BF16", 97, 744960, 372480 },
};

static struct qa_inventory *
make_nvfp4(void)
{
	struct qa_inventory *inv = qa_inventory_create("models/gemma-nvfp4");
	static struct qa_component comps[3];
	int l;

	if (!inv)
		abort();
	inv->kind = QA_KIND_HF_DIR;
	inv->hp.arch = "gemma3";
	inv->hp.arch_raw = "gemma3_text";
	inv->hp.n_layer = 48;
	inv->hp.n_layer_all = 48;
	comps[0] = (struct qa_component){ "norm", 97, 372480, 744960,
		nv_norm_dt, 1, NULL, 0 };
	comps[1] = (struct qa_component){ "attn_q", 48, 754974720,
		1509949440, nv_q_dt, 1, nv_bf16, 1 };
	comps[2] = (struct qa_component){ "ffn_up", 192, 2831155200,
		1592525184, nv_up_dt, 3, nv_fp4, 1 };
	inv->components = comps;
	inv->n_components = 3;
	/* No tensor list: the reporters read components and modules. */
	inv->params = 372480 + 754974720 + 2831155200ULL;
	inv->bytes = 744960 + 1509949440ULL + 1592525184ULL;
	for (l = 0; l < 48; l++) {
		struct qa_module *q = &nv_modules[2 * l];
		struct qa_module *u = &nv_modules[2 * l + 1];

		memset(q, 0, sizeof(*q));
		memset(u, 0, sizeof(*u));
		q->name = "model.layers.N.self_attn.q_proj";
		q->role = QA_ROLE_ATTN_Q;
		q->layer = l;
		q->scheme = QA_SCHEME_DENSE;
		q->precision = "BF16";
		q->bits = 16;
		q->group_size = -1;
		q->params = 4096 * 3840;
		q->bytes = 2 * 4096 * 3840;
		q->claimed = 0;
		u->name = "model.layers.N.mlp.up_proj";
		u->role = QA_ROLE_FFN_UP;
		u->layer = l;
		u->scheme = QA_SCHEME_NVFP4;
		u->precision = "NVFP4";
		u->bits = 4;
		u->group_size = 16;
		/* 15360 * 3840 = 58982400 params; 29491200 + 3686400 + 8 */
		u->params = 58982400;
		u->bytes = 33177608;
		u->claimed = 1;
	}
	nv_modules[0].name = "model.layers.0.self_attn.q_proj";
	inv->modules = nv_modules;
	inv->n_modules = 96;
	inv->quant.method = QA_QM_MODELOPT;
	inv->quant.format = "NVFP4";
	inv->quant.bits = 4;
	inv->quant.group_size = 16;
	inv->quant.file = "models/gemma-nvfp4/hf_quant_config.json";
	return inv;
}

static void
detach(struct qa_inventory *inv)
{
	inv->components = NULL;
	inv->n_components = 0;
	inv->modules = NULL;
	inv->n_modules = 0;
}

static void
test_precision_nvfp4(void)
{
	struct qa_inventory *inv = make_nvfp4();
	struct qa_report_options opt = default_opt();
	char *out;

	out = render(R_TEXT, &inv, 1, &opt);
	check_width(out, 80);
	CHECK_HAS(out, "\n  quant       modelopt NVFP4" DOT
		  "4-bit g16 (from hf_quant_config.json)\n");
	/* The issue-4 case at first glance: attention BF16, MLP NVFP4. */
	CHECK_HAS(out, "\n  precision   attention BF16 (16.00 bpw)" DOT
		  "MLP NVFP4 (4.50)\n");
	CHECK_HAS(out,
		  "\n  component tensors    params       size   bpw  precision\n"
		  "  norm           97   372.5 K  727.5 KiB 16.00  BF16 97\n"
		  "  attn_q         48   755.0 M   1.41 GiB 16.00  BF16 48\n"
		  "  ffn_up        192    2.83 B   1.48 GiB  4.50  NVFP4 48\n");
	/* One run of 48 identical layers. */
	CHECK_HAS(out, "\n  precision by layer (attention | MLP)\n"
		  "  layer q    | up\n"
		  "  0-47  BF16 | NVFP4\n");
	free(out);

	/* A dense model whose groups agree: no summary line, no map. */
	nv_fp4[0].precision = "BF16";
	for (int l = 0; l < 48; l++)
		nv_modules[2 * l + 1].precision = "BF16";
	out = render(R_TEXT, &inv, 1, &opt);
	CHECK_LACKS(out, "  precision   ");
	CHECK_LACKS(out, "precision by layer");
	free(out);
	/* ... unless asked for (inspect --layers). */
	opt.layers = true;
	out = render(R_TEXT, &inv, 1, &opt);
	CHECK_HAS(out, "  0-47  BF16 | BF16\n");
	free(out);
	opt.layers = false;
	nv_fp4[0].precision = "NVFP4";
	for (int l = 0; l < 48; l++)
		nv_modules[2 * l + 1].precision = "NVFP4";

	out = render(R_JSON, &inv, 1, &opt);
	CHECK_HAS(out, "\"quantization\": {\n"
		  "          \"method\": \"modelopt\",\n"
		  "          \"format\": \"NVFP4\",\n"
		  "          \"bits\": 4,\n"
		  "          \"group_size\": 16,\n"
		  "          \"config_file\": "
		  "\"models/gemma-nvfp4/hf_quant_config.json\"\n"
		  "        },\n");
	CHECK_HAS(out, "            \"precisions\": {\n"
		  "              \"NVFP4\": {\n"
		  "                \"modules\": 48,\n"
		  "                \"params\": 2831155200,\n"
		  "                \"bytes\": 1592525184\n"
		  "              }\n"
		  "            },\n"
		  "            \"bits_per_weight\": 4.5000\n");
	/* norm: no module, empty histogram. */
	CHECK_HAS(out, "            \"precisions\": {},\n");
	CHECK_HAS(out, "        \"layers\": [\n"
		  "          {\n"
		  "            \"layer\": 0,\n"
		  "            \"roles\": {\n"
		  "              \"attn_q\": \"BF16\",\n"
		  "              \"ffn_up\": \"NVFP4\"\n"
		  "            },\n"
		  "            \"mtp\": false\n"
		  "          },\n");
	CHECK_HAS(out, "\"modules\": [\n"
		  "        {\n"
		  "          \"name\": \"model.layers.0.self_attn.q_proj\",\n"
		  "          \"role\": \"attn_q\",\n"
		  "          \"layer\": 0,\n"
		  "          \"precision\": \"BF16\",\n"
		  "          \"scheme\": \"dense\",\n"
		  "          \"bits\": 16,\n"
		  "          \"group_size\": null,\n"
		  "          \"params\": 15728640,\n"
		  "          \"bytes\": 31457280,\n"
		  "          \"claimed\": false\n"
		  "        },\n"
		  "        {\n"
		  "          \"name\": \"model.layers.N.mlp.up_proj\",\n"
		  "          \"role\": \"ffn_up\",\n"
		  "          \"layer\": 0,\n"
		  "          \"precision\": \"NVFP4\",\n"
		  "          \"scheme\": \"NVFP4\",\n"
		  "          \"bits\": 4,\n"
		  "          \"group_size\": 16,\n"
		  "          \"params\": 58982400,\n"
		  "          \"bytes\": 33177608,\n"
		  "          \"claimed\": true\n"
		  "        },\n");
	{
		cJSON *j = parse(out);
		cJSON *m = j ? get(cJSON_GetArrayItem(get(j, "inputs"), 0),
				   "model") : NULL;

		CHECK(m && cJSON_GetArraySize(get(m, "layers")) == 48);
		CHECK(j && cJSON_GetArraySize(get(cJSON_GetArrayItem(
			get(j, "inputs"), 0), "modules")) == 96);
		cJSON_Delete(j);
	}
	free(out);
	/* --summary leaves the module list out, like the tensors. */
	opt.summary = true;
	out = render(R_JSON, &inv, 1, &opt);
	CHECK_LACKS(out, "\"modules\": [");
	CHECK_HAS(out, "\"layers\": [");
	free(out);
	detach(inv);
	qa_inventory_destroy(inv);
}

/* Sets a hand-classified GGUF tensor (no classifier involved). */
static void
map_tensor(struct qa_inventory *inv, const char *name, const char *dtype,
	   enum qa_role role, int layer, bool mtp)
{
	struct qa_tensor *t = add_tensor(inv, name, dtype, -1, 256, 256, 1,
					 0);

	t->role = role;
	t->layer = layer;
	t->mtp = mtp;
	t->module = -1;
}

/*
 * A hand-built GGUF with the Q4_K_M pattern of llama-quantize's
 * use_more_bits on a 6-layer model (attn_v and ffn_down Q6_K in layers
 * 0-1 and, for ffn_down, in the last layer), plus an MTP block 6 whose
 * eh_proj is F16. Runs: 0-1, 2-4, 5, then "6 MTP".
 */
static void
test_layer_map_gguf(void)
{
	struct qa_inventory *inv = qa_inventory_create("m.gguf");
	struct qa_report_options opt = default_opt();
	struct qa_kv *kv;
	char name[64], *out;
	int l;

	inv->kind = QA_KIND_GGUF;
	for (l = 0; l < 6; l++) {
		snprintf(name, sizeof(name), "blk.%d.attn_q.weight", l);
		map_tensor(inv, name, "Q4_K", QA_ROLE_ATTN_Q, l, false);
		snprintf(name, sizeof(name), "blk.%d.attn_v.weight", l);
		map_tensor(inv, name, l < 2 ? "Q6_K" : "Q4_K", QA_ROLE_ATTN_V,
			   l, false);
		snprintf(name, sizeof(name), "blk.%d.ffn_down.weight", l);
		map_tensor(inv, name, l < 2 || l == 5 ? "Q6_K" : "Q4_K",
			   QA_ROLE_FFN_DOWN, l, false);
		/* 1-D norms never make a column. */
		snprintf(name, sizeof(name), "blk.%d.attn_norm.weight", l);
		map_tensor(inv, name, "F32", QA_ROLE_NORM, l, false);
		inv->tensors[inv->n_tensors - 1].n_dims = 1;
	}
	map_tensor(inv, "blk.6.nextn.eh_proj.weight", "F16",
		   QA_ROLE_MTP_EH_PROJ, 6, true);
	inv->file_type_declared = "Q4_K_M";
	kv = add_kv(inv, "quantize.imatrix.file", QA_V_STRING);
	kv->value.v.str.s = "/data/imatrix-unsloth.dat";
	kv->value.v.str.len = strlen(kv->value.v.str.s);
	kv = add_kv(inv, "quantize.imatrix.dataset", QA_V_STRING);
	kv->value.v.str.s = "calibration_datav3.txt";
	kv->value.v.str.len = strlen(kv->value.v.str.s);
	kv = add_kv(inv, "quantize.imatrix.entries_count", QA_V_I32);
	kv->value.v.i = 196;
	kv = add_kv(inv, "quantize.imatrix.chunks_count", QA_V_I32);
	kv->value.v.i = 125;

	out = render(R_TEXT, &inv, 1, &opt);
	check_width(out, 80);
	CHECK_HAS(out, "\n  quant       GGUF Q4_K_M mix" DOT
		  "imatrix: imatrix-unsloth.dat (125 chunks)\n");
	CHECK_HAS(out, "\n  precision by layer (attention | MLP | MTP)\n"
		  "  layer q    v    | down | eh\n"
		  "  0-1   Q4_K Q6_K | Q6_K | -\n"
		  "  2-4   Q4_K Q4_K | Q4_K | -\n"
		  "  5     Q4_K Q4_K | Q6_K | -\n"
		  "  6 MTP -    -    | -    | F16\n");
	free(out);

	out = render(R_JSON, &inv, 1, &opt);
	CHECK_HAS(out, "          \"imatrix\": {\n"
		  "            \"file\": \"/data/imatrix-unsloth.dat\",\n"
		  "            \"dataset\": \"calibration_datav3.txt\",\n"
		  "            \"entries_count\": 196,\n"
		  "            \"chunks_count\": 125\n"
		  "          }\n");
	CHECK_HAS(out, "            \"layer\": 6,\n"
		  "            \"roles\": {\n"
		  "              \"mtp_eh_proj\": \"F16\"\n"
		  "            },\n"
		  "            \"mtp\": true\n");
	free(out);

	out = NULL;
	{
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		CHECK(qa_report_markdown(f, &inv, 1, &opt) == 0);
		fclose(f);
	}
	CHECK_HAS(out, "<details><summary>Precision by layer (7 layers)"
		  "</summary>\n\n"
		  "| layers | attn\\_q | attn\\_v | ffn\\_down | "
		  "mtp\\_eh\\_proj |\n|---|---|---|---|---|\n"
		  "| 0-1 | Q4\\_K | Q6\\_K | Q6\\_K | - |\n"
		  "| 2-4 | Q4\\_K | Q4\\_K | Q4\\_K | - |\n"
		  "| 5 | Q4\\_K | Q4\\_K | Q6\\_K | - |\n"
		  "| 6 MTP | - | - | - | F16 |\n\n</details>\n");
	free(out);
	qa_inventory_destroy(inv);
}

/*
 * Labels too long for 80 columns become one-letter codes with a legend;
 * a map with more roles than fit is split into blocks. Every line stays
 * within 80 columns.
 */
static void
test_layer_map_wide(void)
{
	static const enum qa_role roles[] = {
		QA_ROLE_MLA_Q_A, QA_ROLE_MLA_Q_B, QA_ROLE_MLA_KV_A,
		QA_ROLE_MLA_KV_B, QA_ROLE_ATTN_O, QA_ROLE_FFN_GATE,
		QA_ROLE_FFN_UP, QA_ROLE_FFN_DOWN, QA_ROLE_ROUTER,
		QA_ROLE_EXPERT_GATE, QA_ROLE_EXPERT_UP, QA_ROLE_EXPERT_DOWN,
		QA_ROLE_SHARED_EXPERT_GATE, QA_ROLE_SHARED_EXPERT_UP,
		QA_ROLE_SHARED_EXPERT_DOWN,
	};
	static struct qa_module mods[4 * 15];
	struct qa_inventory *inv = qa_inventory_create("wide");
	struct qa_report_options opt = default_opt();
	size_t r, n = sizeof(roles) / sizeof(roles[0]);
	char *out;
	int l;

	inv->kind = QA_KIND_HF_DIR;
	for (l = 0; l < 4; l++)
		for (r = 0; r < n; r++) {
			struct qa_module *m = &mods[(size_t)l * n + r];

			memset(m, 0, sizeof(*m));
			m->name = "x";
			m->role = roles[r];
			m->layer = l;
			m->precision = roles[r] == QA_ROLE_ROUTER ? "BF16" :
				"GPTQ int4 g128";
		}
	inv->modules = mods;
	inv->n_modules = (uint32_t)(4 * n);
	opt.layers = true;
	out = render(R_TEXT, &inv, 1, &opt);
	check_width(out, 80);
	/* Columns by group, role order within it (attn_o precedes the MLA
	 * roles, the router follows the experts). Codes in order of first
	 * appearance: GPTQ (A), then the router's BF16 (B). */
	CHECK_HAS(out, "\n  precision by layer (attention | MLP | experts | "
		  "shared experts)\n"
		  "  layer o q_a q_b kv_a kv_b | gate up down | xgate xup xdown "
		  "rtr | sgate sup\n"
		  "  0-3   A A   A   A    A    | A    A  A    | A     A   A     "
		  "B   | A     A\n");
	/* What does not fit goes to a second block, then the legend. */
	CHECK_HAS(out, "\n\n  layer sdown\n"
		  "  0-3   A\n"
		  "  legend      A = GPTQ int4 g128" DOT "B = BF16\n");
	free(out);
	inv->modules = NULL;
	inv->n_modules = 0;
	qa_inventory_destroy(inv);
}

int
main(void)
{
	test_escaping();
	test_verdict();
	test_bits_per_weight();
	test_mtp_status();
	test_hparams();
	test_metadata();
	test_summary_and_mask();
	test_required_keys();
	test_text();
	test_precision_nvfp4();
	test_layer_map_gguf();
	test_layer_map_wide();
	return th_done("report");
}
