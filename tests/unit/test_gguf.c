/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the GGUF module (formats/gguf.c, gguf_split.c,
 * gguf_hparams.c): small GGUF byte images are built here field by field,
 * written to a temporary folder and loaded; the parsed values are compared
 * with offsets and sizes computed by hand in the comments (not with the
 * parser's own arithmetic), and every corruption must produce exactly the
 * expected finding codes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/format.h"
#include "harness.h"

/* ---- GGUF image builder ---------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t n, cap;
	int be;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void
put_int(struct buf *b, uint64_t v, int n)
{
	uint8_t t[8];
	int i;

	for (i = 0; i < n; i++)
		t[i] = (uint8_t)(v >> (b->be ? 8 * (n - 1 - i) : 8 * i));
	put(b, t, (size_t)n);
}

static void u8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void u16(struct buf *b, uint16_t v) { put_int(b, v, 2); }
static void u32(struct buf *b, uint32_t v) { put_int(b, v, 4); }
static void u64(struct buf *b, uint64_t v) { put_int(b, v, 8); }

static void
str(struct buf *b, const char *s)
{
	u64(b, strlen(s));
	put(b, s, strlen(s));
}

static void
zeros(struct buf *b, size_t n)
{
	while (n--)
		u8(b, 0);
}

static void
pad(struct buf *b, size_t align)
{
	while (b->n % align)
		u8(b, 0);
}

static void
header(struct buf *b, uint32_t version, uint64_t n_tensors, uint64_t n_kv)
{
	put(b, "GGUF", 4);
	u32(b, version);
	u64(b, n_tensors);
	u64(b, n_kv);
}

static void kv_u32(struct buf *b, const char *k, uint32_t v)
{ str(b, k); u32(b, 4); u32(b, v); }
static void kv_u16(struct buf *b, const char *k, uint16_t v)
{ str(b, k); u32(b, 2); u16(b, v); }
static void kv_i32(struct buf *b, const char *k, int32_t v)
{ str(b, k); u32(b, 5); u32(b, (uint32_t)v); }
static void kv_str(struct buf *b, const char *k, const char *v)
{ str(b, k); u32(b, 8); str(b, v); }

static void
ti(struct buf *b, const char *name, uint32_t n_dims, const uint64_t *ne,
   uint32_t type, uint64_t off)
{
	uint32_t i;

	str(b, name);
	u32(b, n_dims);
	for (i = 0; i < n_dims; i++)
		u64(b, ne[i]);
	u32(b, type);
	u64(b, off);
}

static const uint64_t NE_A[2] = { 32, 2 };	/* Q8_0: 2 blocks = 68 B */
static const uint64_t NE_B[1] = { 8 };		/* F32: 32 B */

/*
 * The reference file (352 bytes):
 *   0   header (magic, version, 2 tensors, 3 keys)        24 B
 *   24  general.architecture = "llama"   8+20+4+8+5     = 45 B
 *   69  llama.block_count = 2 (u32)      8+17+4+4       = 33 B
 *   102 general.alignment = 32 (u32)     8+17+4+4       = 33 B
 *   135 tensor info "a" [32,2] Q8_0 @0   8+1+4+16+4+8   = 41 B
 *   176 tensor info "b" [8] F32 @96      8+1+4+8+4+8    = 33 B
 *   209 end of header; padding to 224
 *   224 a: 68 B, padded to 96; 320 b: 32 B; 352 end.
 */
static void
ref_header(struct buf *b, uint32_t version, uint64_t b_off)
{
	header(b, version, 2, 3);
	kv_str(b, "general.architecture", "llama");
	kv_u32(b, "llama.block_count", 2);
	kv_u32(b, "general.alignment", 32);
	ti(b, "a", 2, NE_A, 8, 0);
	ti(b, "b", 1, NE_B, 0, b_off);
}

static void
ref_file(struct buf *b, int be)
{
	memset(b, 0, sizeof(*b));
	b->be = be;
	ref_header(b, 3, 96);
	pad(b, 32);
	zeros(b, 128);
}

/* ---- loading ---------------------------------------------------------- */

static struct qa_inventory *
load_path(const char *path, int *rc)
{
	struct qa_inventory *inv = qa_inventory_create(path);

	if (!inv)
		abort();
	*rc = qa_gguf_load_path(inv, path);
	return inv;
}

static struct qa_inventory *
load_buf(const struct buf *b, int *rc)
{
	th_write("t.gguf", b->p, b->n);
	return load_path(th_path("t.gguf"), rc);
}

/* ---- tests ------------------------------------------------------------ */

static void
check_ref_values(const struct qa_inventory *inv, int be)
{
	const struct qa_kv *kv;

	CHECK_EQ(inv->n_files, 1);
	CHECK(strcmp(inv->files[0].format, "gguf") == 0);
	CHECK_EQ(inv->files[0].gguf_version, 3);
	CHECK_EQ(inv->files[0].big_endian, be);
	CHECK_EQ(inv->files[0].header_bytes, 209);
	CHECK_EQ(inv->files[0].data_offset, 224);
	CHECK_EQ(inv->files[0].tensor_count, 2);
	CHECK_EQ(inv->files[0].bytes, 352);
	CHECK_EQ(inv->files[0].role, QA_FILE_MODEL);
	CHECK_EQ(inv->n_kvs, 3);
	kv = qa_inv_kv(inv, "general.architecture");
	CHECK(kv && kv->value.type == QA_V_STRING &&
	      strcmp(kv->value.v.str.s, "llama") == 0 &&
	      kv->value.v.str.len == 5 && kv->offset == 24);
	kv = qa_inv_kv(inv, "llama.block_count");
	CHECK(kv && kv->value.type == QA_V_U32 && kv->value.v.u == 2 &&
	      kv->offset == 69);
	CHECK_EQ(inv->n_tensors, 2);
	if (inv->n_tensors != 2)
		return;
	CHECK(strcmp(inv->tensors[0].name, "a") == 0);
	CHECK(strcmp(inv->tensors[0].dtype, "Q8_0") == 0);
	CHECK_EQ(inv->tensors[0].ggml_type, 8);
	CHECK_EQ(inv->tensors[0].n_dims, 2);
	CHECK_EQ(inv->tensors[0].shape[0], 32);
	CHECK_EQ(inv->tensors[0].shape[1], 2);
	CHECK_EQ(inv->tensors[0].elements, 64);
	CHECK_EQ(inv->tensors[0].bytes, 68);
	CHECK_EQ(inv->tensors[0].offset, 224);
	CHECK(strcmp(inv->tensors[1].dtype, "F32") == 0);
	CHECK_EQ(inv->tensors[1].bytes, 32);
	CHECK_EQ(inv->tensors[1].offset, 320);
	CHECK_EQ(inv->hp.n_layer, 2);
	CHECK(inv->hp.arch && strcmp(inv->hp.arch, "llama") == 0);
}

static void
test_valid(void)
{
	struct qa_inventory *inv;
	struct buf b;
	int rc;

	th_case = "valid LE v3";
	ref_file(&b, 0);
	CHECK_EQ(b.n, 352);
	inv = load_buf(&b, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 0);
	check_ref_values(inv, 0);
	CHECK_EQ(inv->kind, QA_KIND_GGUF);
	qa_inventory_destroy(inv);
	free(b.p);

	th_case = "valid BE v3";
	ref_file(&b, 1);
	inv = load_buf(&b, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 1011);
	check_ref_values(inv, 1);
	qa_inventory_destroy(inv);
	free(b.p);

	th_case = "v2";
	memset(&b, 0, sizeof(b));
	ref_header(&b, 2, 96);
	pad(&b, 32);
	zeros(&b, 128);
	inv = load_buf(&b, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 0);
	CHECK_EQ(inv->files[0].gguf_version, 2);
	CHECK_EQ(inv->n_tensors, 2);
	qa_inventory_destroy(inv);
	free(b.p);

	th_case = "bad magic";
	memset(&b, 0, sizeof(b));
	put(&b, "GGML", 4);
	zeros(&b, 60);
	inv = load_buf(&b, &rc);
	CHECK_EQ(rc, QA_E_UNRECOGNIZED);
	qa_inventory_destroy(inv);
	free(b.p);
}

static void
test_versions(void)
{
	static const uint32_t bad[] = { 0, 4, 0xFFFFFFFF };
	struct qa_inventory *inv;
	struct buf b;
	size_t i;
	int rc;

	th_case = "v1";
	memset(&b, 0, sizeof(b));
	put(&b, "GGUF", 4);
	u32(&b, 1);
	u32(&b, 0);
	u32(&b, 0);
	inv = load_buf(&b, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 1002);
	CHECK(th_finding(inv, 1002, NULL) &&
	      strstr(th_finding(inv, 1002, NULL)->message,
		     "GGUF v1 (2023) is not supported"));
	CHECK_EQ(th_finding(inv, 1002, NULL) ?
		 th_finding(inv, 1002, NULL)->offset : 0, 4);
	CHECK_EQ(inv->n_kvs, 0);
	qa_inventory_destroy(inv);
	free(b.p);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		th_case = "bad version";
		memset(&b, 0, sizeof(b));
		ref_header(&b, bad[i], 96);
		inv = load_buf(&b, &rc);
		CHECK_EQ(rc, QA_OK);
		CHECK_CODE_LIST(inv, NULL, 1002);
		CHECK_EQ(inv->n_tensors, 0);
		qa_inventory_destroy(inv);
		free(b.p);
	}
}

/* Builds a file with one extra KV written by fn after general.architecture,
 * no tensors. */
static struct qa_inventory *
one_kv(void (*fn)(struct buf *), int *rc)
{
	struct qa_inventory *inv;
	struct buf b;

	memset(&b, 0, sizeof(b));
	header(&b, 3, 0, 2);
	kv_str(&b, "general.architecture", "llama");
	fn(&b);
	inv = load_buf(&b, rc);
	free(b.p);
	return inv;
}

static void kv_empty(struct buf *b) { kv_u32(b, "", 7); }
static void kv_dup(struct buf *b) { kv_str(b, "general.architecture", "x"); }
static void kv_type13(struct buf *b) { str(b, "k"); u32(b, 13); u32(b, 0); }
static void kv_bool2(struct buf *b) { str(b, "k"); u32(b, 7); u8(b, 2); }
static void kv_hugestr(struct buf *b)
{ str(b, "k"); u32(b, 8); u64(b, (uint64_t)1 << 40); zeros(b, 16); }
static void kv_hugearr(struct buf *b)
{ str(b, "k"); u32(b, 9); u32(b, 0); u64(b, (uint64_t)1 << 31); zeros(b, 16); }
static void kv_arrfit(struct buf *b)
{ str(b, "k"); u32(b, 9); u32(b, 5); u64(b, 100); zeros(b, 16); }
static void kv_nested(struct buf *b)
{
	/* [[1, 2], [3]] as arrays of u8 */
	str(b, "k"); u32(b, 9); u32(b, 9); u64(b, 2);
	u32(b, 0); u64(b, 2); u8(b, 1); u8(b, 2);
	u32(b, 0); u64(b, 1); u8(b, 3);
}
static void kv_deep(struct buf *b)
{
	int i;

	str(b, "k"); u32(b, 9);
	for (i = 0; i < 5; i++) { u32(b, 9); u64(b, 1); }
	u32(b, 0); u64(b, 1); u8(b, 1);
}
static void kv_align0(struct buf *b) { kv_u32(b, "general.alignment", 0); }
static void kv_align3(struct buf *b) { kv_u32(b, "general.alignment", 3); }
static void kv_align_i32(struct buf *b) { kv_i32(b, "general.alignment", 32); }
static void kv_strarr(struct buf *b)
{
	/* 5000 strings: above the keep limit, walked by length only */
	int i;

	str(b, "tokenizer.ggml.tokens"); u32(b, 9); u32(b, 8); u64(b, 5000);
	for (i = 0; i < 5000; i++)
		str(b, i % 2 ? "ab" : "");
}

static void
test_kvs(void)
{
	struct qa_inventory *inv;
	const struct qa_kv *kv;
	int rc;

	th_case = "empty key";
	inv = one_kv(kv_empty, &rc);
	CHECK_CODE_LIST(inv, NULL, 1004);
	CHECK_EQ(inv->n_kvs, 2);
	CHECK_EQ(th_finding(inv, 1004, NULL) ?
		 th_finding(inv, 1004, NULL)->offset : 0, 69);
	qa_inventory_destroy(inv);

	th_case = "duplicate key";
	inv = one_kv(kv_dup, &rc);
	CHECK_CODE_LIST(inv, NULL, 1005);
	CHECK_EQ(th_finding(inv, 1005, NULL) ?
		 th_finding(inv, 1005, NULL)->offset : 0, 69);
	kv = qa_inv_kv(inv, "general.architecture");
	CHECK(kv && strcmp(kv->value.v.str.s, "llama") == 0);
	qa_inventory_destroy(inv);

	th_case = "bad value type";
	inv = one_kv(kv_type13, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 1006);
	qa_inventory_destroy(inv);

	th_case = "bool 2";
	inv = one_kv(kv_bool2, &rc);
	CHECK_CODE_LIST(inv, NULL, 1010);
	kv = qa_inv_kv(inv, "k");
	CHECK(kv && kv->value.type == QA_V_BOOL && kv->value.v.u == 1);
	qa_inventory_destroy(inv);

	th_case = "huge string";
	inv = one_kv(kv_hugestr, &rc);
	CHECK_CODE_LIST(inv, NULL, 1008);
	qa_inventory_destroy(inv);

	th_case = "huge array";
	inv = one_kv(kv_hugearr, &rc);
	CHECK_CODE_LIST(inv, NULL, 1008);
	qa_inventory_destroy(inv);

	/* Within the limits but longer than the rest of the file: what a
	 * cut-short download looks like, so it reads as "truncated". */
	th_case = "array larger than the file";
	inv = one_kv(kv_arrfit, &rc);
	CHECK_CODE_LIST(inv, NULL, 1001);
	qa_inventory_destroy(inv);

	th_case = "nested array";
	inv = one_kv(kv_nested, &rc);
	CHECK_CODE_LIST(inv, NULL, 1007);
	kv = qa_inv_kv(inv, "k");
	CHECK(kv && kv->value.type == QA_V_ARRAY &&
	      kv->value.v.arr.elem == QA_V_ARRAY &&
	      kv->value.v.arr.count == 2 && kv->value.v.arr.kept == 2);
	if (kv && kv->value.v.arr.kept == 2) {
		const struct qa_value *a = &kv->value.v.arr.items[0];
		const struct qa_value *c = &kv->value.v.arr.items[1];
		CHECK(a->v.arr.count == 2 && a->v.arr.items[1].v.u == 2);
		CHECK(c->v.arr.count == 1 && c->v.arr.items[0].v.u == 3);
	}
	qa_inventory_destroy(inv);

	th_case = "array nested 6 deep";
	inv = one_kv(kv_deep, &rc);
	CHECK(th_count_code(inv, 1006) == 1);
	qa_inventory_destroy(inv);

	th_case = "alignment 0";
	inv = one_kv(kv_align0, &rc);
	CHECK_CODE_LIST(inv, NULL, 1009);
	qa_inventory_destroy(inv);
	th_case = "alignment 3";
	inv = one_kv(kv_align3, &rc);
	CHECK_CODE_LIST(inv, NULL, 1009);
	qa_inventory_destroy(inv);
	th_case = "alignment as INT32";
	inv = one_kv(kv_align_i32, &rc);
	CHECK_CODE_LIST(inv, NULL, 1009);
	qa_inventory_destroy(inv);

	th_case = "long string array";
	inv = one_kv(kv_strarr, &rc);
	CHECK_CODE_LIST(inv, NULL, 0);
	kv = qa_inv_kv(inv, "tokenizer.ggml.tokens");
	CHECK(kv && kv->value.v.arr.count == 5000 &&
	      kv->value.v.arr.items == NULL);
	CHECK_EQ(inv->hp.n_vocab, 5000);
	qa_inventory_destroy(inv);
}

static void
test_counts(void)
{
	static const uint64_t counts[][2] = {
		{ 0, 1000 }, { (uint64_t)1 << 62, 0 }, { UINT64_MAX, 0 },
		{ 0, UINT64_MAX }, { 5, 1 },
	};
	struct qa_inventory *inv;
	struct buf b;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		th_case = "count too large";
		memset(&b, 0, sizeof(b));
		header(&b, 3, counts[i][0], counts[i][1]);
		kv_u32(&b, "a.b", 1);	/* 31 bytes: room for 1 KV, no more */
		zeros(&b, 20);
		inv = load_buf(&b, &rc);
		CHECK_EQ(rc, QA_OK);
		CHECK_CODE_LIST(inv, NULL, 1003);
		CHECK_EQ(inv->n_kvs, 0);
		qa_inventory_destroy(inv);
		free(b.p);
	}
}

/* A one-tensor file: tensor info written by the caller's parameters, data
 * of data_len bytes after the 32-aligned header. */
static struct qa_inventory *
one_tensor(const char *name, uint32_t n_dims, const uint64_t *ne,
	   uint32_t type, uint64_t off, size_t data_len, int *rc)
{
	struct qa_inventory *inv;
	struct buf b;

	memset(&b, 0, sizeof(b));
	header(&b, 3, 1, 0);
	ti(&b, name, n_dims, ne, type, off);
	pad(&b, 32);
	zeros(&b, data_len);
	inv = load_buf(&b, rc);
	free(b.p);
	return inv;
}

static void
test_tensors(void)
{
	static const uint64_t ne5[5] = { 1, 1, 1, 1, 1 };
	static const uint64_t ne_ovf[2] = { (uint64_t)1 << 32,
					    (uint64_t)1 << 32 };
	static const uint64_t ne_neg[1] = { (uint64_t)1 << 63 };
	static const uint64_t ne_q40[1] = { 5124095576030431008ULL };
	static const uint64_t ne_f32big[1] = { (uint64_t)1 << 62 };
	static const uint64_t ne_f64pad[1] = { ((uint64_t)1 << 61) - 1 };
	static const uint64_t ne33[1] = { 33 };
	static const uint64_t ne32[1] = { 32 };
	char name64[65], name63[64];
	struct qa_inventory *inv;
	struct buf b;
	int rc;

	memset(name64, 'n', 64);
	name64[64] = '\0';
	memset(name63, 'n', 63);
	name63[63] = '\0';

	th_case = "name 63 bytes";
	/* header 24 + info 8+63+4+8+4+8 = 119 -> data at 128 */
	inv = one_tensor(name63, 1, ne32, 0, 0, 128, &rc);
	CHECK_CODE_LIST(inv, NULL, 0);
	CHECK_EQ(inv->files[0].data_offset, 128);
	CHECK_EQ(inv->tensors[0].bytes, 128);
	qa_inventory_destroy(inv);

	th_case = "name 64 bytes";
	inv = one_tensor(name64, 1, ne32, 0, 0, 128, &rc);
	CHECK_CODE_LIST(inv, NULL, 1020);
	CHECK(inv->n_tensors == 1 && strcmp(inv->tensors[0].name, name64) == 0);
	qa_inventory_destroy(inv);

	th_case = "n_dims 5";
	inv = one_tensor("t", 5, ne5, 0, 0, 4, &rc);
	CHECK_CODE_LIST(inv, NULL, 1022);
	qa_inventory_destroy(inv);

	th_case = "ne overflow";
	inv = one_tensor("t", 2, ne_ovf, 0, 0, 0, &rc);
	CHECK_CODE_LIST(inv, NULL, 1022);
	qa_inventory_destroy(inv);

	th_case = "ne negative";
	inv = one_tensor("t", 1, ne_neg, 24, 0, 0, &rc);
	CHECK_CODE_LIST(inv, NULL, 1022);
	qa_inventory_destroy(inv);

	/* 43: past upstream's table, in no fork's: not audited (QA1039),
	 * not corrupt; 5000: past where forks put types, damage */
	th_case = "unknown type 43";
	inv = one_tensor("t", 1, ne32, 43, 0, 32, &rc);
	CHECK_CODE_LIST(inv, NULL, 1039);
	CHECK(strcmp(inv->tensors[0].dtype, "TYPE_43") == 0);
	CHECK_EQ(inv->tensors[0].bytes, 0);
	qa_inventory_destroy(inv);

	th_case = "unknown type 5000";
	inv = one_tensor("t", 1, ne32, 5000, 0, 32, &rc);
	CHECK_CODE_LIST(inv, NULL, 1023);
	CHECK(strcmp(inv->tensors[0].dtype, "TYPE_5000") == 0);
	CHECK_EQ(inv->tensors[0].bytes, 0);
	qa_inventory_destroy(inv);

	th_case = "removed type 31";
	inv = one_tensor("t", 1, ne32, 31, 0, 32, &rc);
	CHECK_CODE_LIST(inv, NULL, 1024);
	CHECK_EQ(inv->tensors[0].bytes, 0);
	qa_inventory_destroy(inv);

	th_case = "ne0 not a multiple of the block";
	inv = one_tensor("t", 1, ne33, 8, 0, 64, &rc);
	CHECK_CODE_LIST(inv, NULL, 1025);
	qa_inventory_destroy(inv);

	th_case = "Q4_0 ne0 that wraps ne0*18";
	/* (5124095576030431008 / 32) * 18 = 160128011750950969 * 18 =
	 * 2882303761517117442: fits, so no overflow, but far past the end
	 * of the file. ne0 * 18 first would wrap to 64, i.e. 2 bytes. */
	inv = one_tensor("t", 1, ne_q40, 2, 0, 32, &rc);
	CHECK_CODE_LIST(inv, NULL, 1028);
	CHECK_EQ(inv->tensors[0].bytes, 2882303761517117442ULL);
	qa_inventory_destroy(inv);

	th_case = "F32 2^62 elements: 2^64 bytes";
	inv = one_tensor("t", 1, ne_f32big, 0, 0, 32, &rc);
	CHECK_CODE_LIST(inv, NULL, 1026);
	qa_inventory_destroy(inv);

	th_case = "F64 padded size wraps";
	/* (2^61 - 1) * 8 = 2^64 - 8; padding to 32 wraps */
	inv = one_tensor("t", 1, ne_f64pad, 28, 0, 32, &rc);
	CHECK_CODE_LIST(inv, NULL, 1026);
	qa_inventory_destroy(inv);

	th_case = "misaligned offset";
	/* F32 [32] at 4: llama.cpp expects 0 too */
	inv = one_tensor("t", 1, ne32, 0, 4, 160, &rc);
	CHECK_CODE_LIST(inv, NULL, 1027, 1030);
	qa_inventory_destroy(inv);

	th_case = "tensor past EOF";
	inv = one_tensor("t", 1, ne32, 0, 0, 100, &rc);
	CHECK_CODE_LIST(inv, NULL, 1028);
	qa_inventory_destroy(inv);

	th_case = "data start past EOF";
	memset(&b, 0, sizeof(b));
	ref_header(&b, 3, 96);
	inv = load_buf(&b, &rc);
	CHECK_CODE_LIST(inv, NULL, 1013);
	CHECK_EQ(inv->files[0].header_bytes, 209);
	qa_inventory_destroy(inv);
	free(b.p);

	th_case = "duplicate tensor";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 2, 0);
	ti(&b, "x", 1, NE_B, 0, 0);
	ti(&b, "x", 1, NE_B, 0, 32);
	pad(&b, 32);
	zeros(&b, 64);
	inv = load_buf(&b, &rc);
	CHECK_CODE_LIST(inv, NULL, 1021);
	qa_inventory_destroy(inv);
	free(b.p);

	th_case = "overlap";
	memset(&b, 0, sizeof(b));
	ref_header(&b, 3, 32);	/* b inside a's 68 bytes */
	pad(&b, 32);
	zeros(&b, 96);		/* a ends at 292, padded 320 */
	inv = load_buf(&b, &rc);
	CHECK_CODE_LIST(inv, NULL, 1029);
	CHECK_EQ(th_finding(inv, 1029, NULL) ?
		 th_finding(inv, 1029, NULL)->offset : 0, 256);
	qa_inventory_destroy(inv);
	free(b.p);

	th_case = "not contiguous";
	memset(&b, 0, sizeof(b));
	ref_header(&b, 3, 128);	/* a gap of 32 bytes */
	pad(&b, 32);
	zeros(&b, 160);
	inv = load_buf(&b, &rc);
	CHECK_CODE_LIST(inv, NULL, 1030);
	CHECK(th_finding(inv, 1030, NULL) &&
	      th_finding(inv, 1030, NULL)->tensor &&
	      strcmp(th_finding(inv, 1030, NULL)->tensor, "b") == 0);
	CHECK_EQ(inv->tensors[1].offset, 352);
	qa_inventory_destroy(inv);
	free(b.p);

	th_case = "trailing bytes";
	ref_file(&b, 0);
	zeros(&b, 64);
	inv = load_buf(&b, &rc);
	CHECK_CODE_LIST(inv, NULL, 1014);
	CHECK_EQ(th_finding(inv, 1014, NULL) ?
		 th_finding(inv, 1014, NULL)->offset : 0, 352);
	qa_inventory_destroy(inv);
	free(b.p);

	th_case = "alignment 64";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 1, 1);
	kv_u32(&b, "general.alignment", 64);	/* 24 + 33 = 57 */
	ti(&b, "t", 1, ne32, 0, 0);		/* 57 + 33 = 90 -> 128 */
	pad(&b, 64);
	zeros(&b, 128);
	inv = load_buf(&b, &rc);
	CHECK_CODE_LIST(inv, NULL, 0);
	CHECK_EQ(inv->files[0].data_offset, 128);
	qa_inventory_destroy(inv);
	free(b.p);
}

/* Every prefix of a valid file: a finding, never a crash. */
static void
test_truncation(int be)
{
	struct qa_inventory *inv;
	struct buf b;
	size_t len;
	int rc;

	ref_file(&b, be);
	for (len = 0; len < b.n; len++) {
		struct buf p = b;

		th_case = be ? "BE prefix" : "LE prefix";
		p.n = len;
		inv = load_buf(&p, &rc);
		if (len < 4) {
			CHECK_EQ(rc, QA_E_UNRECOGNIZED);
		} else {
			CHECK_EQ(rc, QA_OK);
			/* Cut inside the header: truncated, or a count or
			 * length that no longer fits the rest (1003, 1004,
			 * 1008 say "larger than the file"). */
			if (len < 209)
				CHECK(th_count_code(inv, 1001) +
				      th_count_code(inv, 1003) +
				      th_count_code(inv, 1004) +
				      th_count_code(inv, 1008) > 0);
			else if (len < 224)
				CHECK(th_count_code(inv, 1013) == 1);
			else
				CHECK(th_count_code(inv, 1028) >= 1);
		}
		qa_inventory_destroy(inv);
	}
	free(b.p);
}

/* ---- split sets ------------------------------------------------------- */

struct part {
	int no;			/* split.no, -1 = absent */
	int count;		/* split.count */
	int tensors_total;	/* split.tensors.count */
	const char *tensor;
	bool model_key;		/* add general.name */
	bool no_as_u32;
};

static void
write_part(const char *file, const struct part *pt, bool first)
{
	struct buf b;
	uint64_t nkv = 2 + (pt->no >= 0) + (first ? 1 : 0) + pt->model_key;

	memset(&b, 0, sizeof(b));
	header(&b, 3, 1, nkv);
	if (first)
		kv_str(&b, "general.architecture", "llama");
	if (pt->model_key)
		kv_str(&b, "general.name", "x");
	if (pt->no >= 0) {
		if (pt->no_as_u32)
			kv_u32(&b, "split.no", (uint32_t)pt->no);
		else
			kv_u16(&b, "split.no", (uint16_t)pt->no);
	}
	kv_u16(&b, "split.count", (uint16_t)pt->count);
	kv_i32(&b, "split.tensors.count", pt->tensors_total);
	ti(&b, pt->tensor, 1, NE_B, 0, 0);
	pad(&b, 32);
	zeros(&b, 32);
	th_write(file, b.p, b.n);
	free(b.p);
}

static void
write_set(const char *prefix, const struct part *parts, int n)
{
	char name[256];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s-%05d-of-%05d.gguf", prefix,
			 i + 1, n);
		write_part(name, &parts[i], i == 0);
	}
}

static struct qa_inventory *
load_part(const char *prefix, int k, int n, int *rc)
{
	char name[256];

	snprintf(name, sizeof(name), "%s-%05d-of-%05d.gguf", prefix, k, n);
	return load_path(th_path(name), rc);
}

static void
test_split(void)
{
	struct part ok[3] = {
		{ 0, 3, 3, "t0", false, false },
		{ 1, 3, 3, "t1", false, false },
		{ 2, 3, 3, "t2", false, false },
	};
	struct part p[3];
	struct qa_inventory *inv;
	char name[256];
	int rc, k;

	write_set("ok", ok, 3);
	for (k = 1; k <= 3; k++) {
		th_case = "complete split set";
		inv = load_part("ok", k, 3, &rc);
		CHECK_EQ(rc, QA_OK);
		CHECK_CODE_LIST(inv, NULL, 0);
		CHECK_EQ(inv->n_files, 3);
		CHECK_EQ(inv->n_tensors, 3);
		CHECK_EQ(inv->files[0].part, 1);
		CHECK_EQ(inv->files[2].part, 3);
		CHECK_EQ(inv->files[1].parts, 3);
		CHECK_EQ(inv->files[1].role, QA_FILE_SHARD);
		CHECK(inv->n_tensors == 3 &&
		      strcmp(inv->tensors[2].name, "t2") == 0 &&
		      inv->tensors[2].file == 2);
		CHECK(inv->hp.arch && strcmp(inv->hp.arch, "llama") == 0);
		qa_inventory_destroy(inv);
	}

	th_case = "missing part";
	write_set("miss", ok, 3);
	snprintf(name, sizeof(name), "miss-00002-of-00003.gguf");
	unlink(th_path(name));
	inv = load_part("miss", 3, 3, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 1101);
	CHECK_EQ(inv->n_files, 2);
	CHECK_EQ(inv->n_tensors, 2);
	qa_inventory_destroy(inv);

	th_case = "split.no mismatch";
	memcpy(p, ok, sizeof(p));
	p[1].no = 5;
	write_set("no", p, 3);
	inv = load_part("no", 1, 3, &rc);
	CHECK_CODE_LIST(inv, NULL, 1103);
	qa_inventory_destroy(inv);

	th_case = "split.tensors.count mismatch";
	memcpy(p, ok, sizeof(p));
	p[0].tensors_total = p[1].tensors_total = p[2].tensors_total = 4;
	write_set("tc", p, 3);
	inv = load_part("tc", 2, 3, &rc);
	CHECK_CODE_LIST(inv, NULL, 1103);
	qa_inventory_destroy(inv);

	th_case = "split.count mismatch";
	memcpy(p, ok, sizeof(p));
	p[2].count = 4;
	write_set("cnt", p, 3);
	inv = load_part("cnt", 1, 3, &rc);
	CHECK_CODE_LIST(inv, NULL, 1103);
	qa_inventory_destroy(inv);

	th_case = "metadata in a later part";
	memcpy(p, ok, sizeof(p));
	p[2].model_key = true;
	write_set("meta", p, 3);
	inv = load_part("meta", 1, 3, &rc);
	CHECK_CODE_LIST(inv, NULL, 1104);
	qa_inventory_destroy(inv);

	th_case = "split.no as UINT32";
	memcpy(p, ok, sizeof(p));
	p[1].no_as_u32 = true;
	write_set("u32", p, 3);
	inv = load_part("u32", 1, 3, &rc);
	CHECK_CODE_LIST(inv, NULL, 1012);
	qa_inventory_destroy(inv);

	th_case = "tensor in two parts";
	memcpy(p, ok, sizeof(p));
	p[2].tensor = "t0";
	write_set("dup", p, 3);
	inv = load_part("dup", 1, 3, &rc);
	CHECK_CODE_LIST(inv, NULL, 1021);
	qa_inventory_destroy(inv);

	th_case = "extra part";
	write_set("extra", ok, 3);
	write_part("extra-00004-of-00004.gguf", &ok[2], false);
	inv = load_part("extra", 1, 3, &rc);
	CHECK_CODE_LIST(inv, NULL, 1102);
	CHECK_EQ(inv->n_files, 3);
	qa_inventory_destroy(inv);

	th_case = "a part named 1 of 99999, alone";
	/* Every missing part is counted, 32 are named, one finding sums
	 * up; nothing walks or stats 99999 names (formats/gguf_split.c
	 * works from the folder's listing). */
	write_part("lone-00001-of-99999.gguf", &ok[0], true);
	inv = load_part("lone", 1, 99999, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_EQ(th_count_code(inv, 1101), 33);
	CHECK_EQ(inv->weights.missing_files, 99998);
	CHECK(inv->weights.first_missing &&
	      strstr(inv->weights.first_missing,
		     "lone-00002-of-99999.gguf") != NULL);
	qa_inventory_destroy(inv);

	th_case = "many files with the prefix of a set";
	/* 40 one-part sets "many-0000k-of-00040" beside "many-00001-of-
	 * 00001": 32 QA1102 named, then one with the total (40). */
	write_part("many-00001-of-00001.gguf", &ok[0], true);
	for (k = 1; k <= 40; k++) {
		snprintf(name, sizeof(name), "many-%05d-of-00040.gguf", k);
		write_part(name, &ok[1], false);
	}
	inv = load_part("many", 1, 1, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_EQ(th_count_code(inv, 1102), 33);
	CHECK_EQ(inv->n_files, 1);
	qa_inventory_destroy(inv);

	th_case = "a part that is a folder";
	write_set("dirpart", ok, 3);
	unlink(th_path("dirpart-00002-of-00003.gguf"));
	if (mkdir(th_path("dirpart-00002-of-00003.gguf"), 0700) != 0)
		FAIL("mkdir");
	inv = load_part("dirpart", 1, 3, &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 1410);
	CHECK_EQ(inv->weights.missing_files, 1);
	CHECK_EQ(inv->n_files, 2);
	qa_inventory_destroy(inv);

	th_case = "split.count without the name pattern";
	write_part("renamed.gguf", &ok[0], true);
	inv = load_path(th_path("renamed.gguf"), &rc);
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 1101);
	CHECK_EQ(inv->n_files, 1);
	qa_inventory_destroy(inv);
}

/* ---- array storage --------------------------------------------------------- */

/* An array KV: key, type 9, element type, count. */
static void
arr(struct buf *b, const char *k, uint32_t elem, uint64_t count)
{
	str(b, k);
	u32(b, 9);
	u32(b, elem);
	u64(b, count);
}

static bool
item_u(const struct qa_value *v, uint64_t i, uint64_t want)
{
	struct qa_value e;

	return qa_value_item(v, i, &e) && e.type == v->v.arr.elem &&
	       e.v.u == want;
}

static bool
item_i(const struct qa_value *v, uint64_t i, int64_t want)
{
	struct qa_value e;

	return qa_value_item(v, i, &e) && e.type == v->v.arr.elem &&
	       e.v.i == want;
}

static bool
item_s(const struct qa_value *v, uint64_t i, const char *want)
{
	struct qa_value e;

	return qa_value_item(v, i, &e) && e.type == QA_V_STRING &&
	       e.v.str.len == strlen(want) && strcmp(e.v.str.s, want) == 0;
}

/* The items the reporters read agree with qa_value_item. */
static bool
items_agree(const struct qa_value *v)
{
	uint64_t i;

	for (i = 0; v->v.arr.items && i < v->v.arr.kept; i++) {
		struct qa_value e;

		if (!qa_value_item(v, i, &e) ||
		    memcmp(&e.v, &v->v.arr.items[i].v, sizeof(e.v)) != 0)
			return false;
	}
	return true;
}

/*
 * Kept arrays in their compact form (formats/gguf.c keep_array): every
 * element type in both byte orders, bools with their QA1010, strings, the
 * expanded items short arrays get (and long string arrays their first
 * element), and the per-inventory budget of expanded elements.
 */
static void
test_arrays(int be)
{
	static const char *const names[] = { "", "ab", "tok" };
	struct qa_inventory *inv;
	const struct qa_kv *kv;
	struct buf b;
	uint64_t at;
	int rc, i;
	float f = 1.5f;
	double d = -2.25;
	uint32_t fbits;
	uint64_t dbits;

	memcpy(&fbits, &f, 4);
	memcpy(&dbits, &d, 8);
	th_case = be ? "array storage, big-endian" : "array storage";
	memset(&b, 0, sizeof(b));
	b.be = be;
	header(&b, 3, 0, 10);
	arr(&b, "u8", 0, 4); u8(&b, 1); u8(&b, 2); u8(&b, 250); u8(&b, 0);
	arr(&b, "i8", 1, 2); u8(&b, 0xFF); u8(&b, 5);
	arr(&b, "u16", 2, 2); u16(&b, 1); u16(&b, 0xBEEF);
	arr(&b, "i16", 3, 2); u16(&b, 0xFFFF); u16(&b, 300);
	arr(&b, "u32", 4, 2); u32(&b, 1); u32(&b, 0x01020304);
	arr(&b, "f32", 6, 1); u32(&b, fbits);
	arr(&b, "i64", 11, 1); u64(&b, (uint64_t)-7);
	arr(&b, "f64", 12, 1); u64(&b, dbits);
	arr(&b, "bool", 7, 4);
	at = b.n;
	u8(&b, 0); u8(&b, 1); u8(&b, 2); u8(&b, 255);
	arr(&b, "str", 8, 3);
	for (i = 0; i < 3; i++)
		str(&b, names[i]);
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK_EQ(rc, QA_OK);
	if (be)
		CHECK_CODE_LIST(inv, NULL, 1010, 1011);
	else
		CHECK_CODE_LIST(inv, NULL, 1010);
	CHECK_EQ(th_count_code(inv, 1010), 2);
	CHECK(th_finding(inv, 1010, NULL) &&
	      th_finding(inv, 1010, NULL)->offset == (int64_t)at + 2);
	CHECK((kv = qa_inv_kv(inv, "u8")) && kv->value.v.arr.kept == 4 &&
	      kv->value.v.arr.packed && item_u(&kv->value, 2, 250) &&
	      !item_u(&kv->value, 4, 0) && items_agree(&kv->value) &&
	      kv->value.v.arr.items);
	CHECK((kv = qa_inv_kv(inv, "i8")) && item_i(&kv->value, 0, -1) &&
	      item_i(&kv->value, 1, 5));
	CHECK((kv = qa_inv_kv(inv, "u16")) && item_u(&kv->value, 1, 0xBEEF));
	CHECK((kv = qa_inv_kv(inv, "i16")) && item_i(&kv->value, 0, -1) &&
	      item_i(&kv->value, 1, 300));
	CHECK((kv = qa_inv_kv(inv, "u32")) &&
	      item_u(&kv->value, 1, 0x01020304) && items_agree(&kv->value));
	CHECK((kv = qa_inv_kv(inv, "i64")) && item_i(&kv->value, 0, -7));
	kv = qa_inv_kv(inv, "f32");
	{
		struct qa_value e;

		CHECK(kv && qa_value_item(&kv->value, 0, &e) && e.v.f == 1.5);
		kv = qa_inv_kv(inv, "f64");
		CHECK(kv && qa_value_item(&kv->value, 0, &e) &&
		      e.v.f == -2.25);
	}
	/* Bools read as llama.cpp reads them: any non-zero byte is true. */
	CHECK((kv = qa_inv_kv(inv, "bool")) && item_u(&kv->value, 0, 0) &&
	      item_u(&kv->value, 1, 1) && item_u(&kv->value, 2, 1) &&
	      item_u(&kv->value, 3, 1));
	CHECK((kv = qa_inv_kv(inv, "str")) && item_s(&kv->value, 0, "") &&
	      item_s(&kv->value, 2, "tok") && items_agree(&kv->value) &&
	      kv->value.v.arr.items);
	qa_inventory_destroy(inv);
}

static void
test_array_expansion(void)
{
	struct qa_inventory *inv;
	const struct qa_kv *kv;
	char k[32];
	struct buf b;
	int rc, i, j;

	th_case = "long arrays keep no element structs";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 0, 2);
	arr(&b, "u8s", 0, 100);
	for (i = 0; i < 100; i++)
		u8(&b, (uint8_t)i);
	arr(&b, "strs", 8, 100);
	for (i = 0; i < 100; i++)
		str(&b, i ? "x" : "first");
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK((kv = qa_inv_kv(inv, "u8s")) && kv->value.v.arr.kept == 100 &&
	      !kv->value.v.arr.items && item_u(&kv->value, 99, 99));
	/* The first string stays where reporters look for it. */
	CHECK((kv = qa_inv_kv(inv, "strs")) && kv->value.v.arr.items &&
	      kv->value.v.arr.items[0].v.str.s &&
	      strcmp(kv->value.v.arr.items[0].v.str.s, "first") == 0 &&
	      item_s(&kv->value, 99, "x"));
	qa_inventory_destroy(inv);

	/* 1100 arrays of 64 u8: 70,400 elements, over the budget of 65,536
	 * element structs; the rest still read through qa_value_item. */
	th_case = "expansion budget";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 0, 1100);
	for (i = 0; i < 1100; i++) {
		snprintf(k, sizeof(k), "k%d", i);
		arr(&b, k, 0, 64);
		for (j = 0; j < 64; j++)
			u8(&b, (uint8_t)(i + j));
	}
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK_EQ(rc, QA_OK);
	CHECK_EQ(inv->n_kvs, 1100);
	CHECK(inv->expanded_values <= QA_KV_EXPAND_BUDGET);
	CHECK_EQ(inv->expanded_values, 1024 * 64);
	CHECK(inv->n_kvs == 1100 && inv->kvs[0].value.v.arr.items &&
	      !inv->kvs[1099].value.v.arr.items &&
	      item_u(&inv->kvs[1099].value, 63, (1099 + 63) & 0xFF));
	qa_inventory_destroy(inv);

	th_case = "duplicate keys, found by sorting";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 0, 5);
	kv_u32(&b, "b", 1);
	kv_u32(&b, "a", 1);
	kv_u32(&b, "b", 2);
	kv_u32(&b, "c", 1);
	kv_u32(&b, "b", 3);
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK_CODE_LIST(inv, NULL, 1005);
	CHECK_EQ(th_count_code(inv, 1005), 2);
	/* Reported at the later copies, in file order: key "b" #2 is at
	 * 24 + 2 x 17 (8 + 1 + 4 + 4 per key). */
	CHECK(th_finding(inv, 1005, NULL) &&
	      th_finding(inv, 1005, NULL)->offset == 24 + 2 * 17);
	CHECK((kv = qa_inv_kv(inv, "b")) && kv->value.v.u == 1);
	qa_inventory_destroy(inv);

	/* 1000 keys (17 bytes each) and 1000 tensors (0-dim F32 named "t",
	 * 25 bytes each, offsets 0: overlapping, which is not the point):
	 * the arrays are sized once from the header's counts, not doubled
	 * to 1024 with the copies of 16, 32... 512 left in the arena. */
	th_case = "key and tensor arrays sized from the header";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 1000, 1000);
	for (i = 0; i < 1000; i++) {
		snprintf(k, sizeof(k), "k%03d", i);
		kv_u32(&b, k, 1);
	}
	for (i = 0; i < 1000; i++)
		ti(&b, "t", 0, NULL, 0, 0);
	pad(&b, 32);
	zeros(&b, 4);
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK_EQ(rc, QA_OK);
	CHECK_EQ(inv->n_kvs, 1000);
	CHECK_EQ(inv->cap_kvs, 1000);
	CHECK_EQ(inv->n_tensors, 1000);
	CHECK_EQ(inv->cap_tensors, 1000);
	qa_inventory_destroy(inv);
}

/* ---- hparams ---------------------------------------------------------- */

static void
test_hparams(void)
{
	struct qa_inventory *inv;
	struct buf b;
	uint8_t want[9];
	int rc, i;

	th_case = "qwen35 with MTP";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 0, 5);
	kv_str(&b, "general.architecture", "qwen35");
	kv_u32(&b, "qwen35.block_count", 9);
	kv_u32(&b, "qwen35.nextn_predict_layers", 1);
	kv_u32(&b, "qwen35.embedding_length", 64);
	kv_u32(&b, "qwen35.attention.head_count", 4);
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK_CODE_LIST(inv, NULL, 0);
	CHECK_EQ(inv->hp.n_layer_all, 9);
	CHECK_EQ(inv->hp.n_layer, 8);
	CHECK_EQ(inv->hp.n_mtp, 1);
	CHECK_EQ(inv->hp.head_dim_k, 16);
	/* (i+1) % 4 == 0 -> full: layers 3 and 7; layer 8 is MTP */
	for (i = 0; i < 8; i++)
		want[i] = (i + 1) % 4 ? QA_LAYER_LINEAR_ATTENTION :
			  QA_LAYER_FULL_ATTENTION;
	want[8] = QA_LAYER_MTP;
	CHECK(inv->hp.layer_kind && memcmp(inv->hp.layer_kind, want, 9) == 0);
	qa_inventory_destroy(inv);

	th_case = "nemotron_h per-layer arrays";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 0, 4);
	kv_str(&b, "general.architecture", "nemotron_h");
	kv_u32(&b, "nemotron_h.block_count", 3);
	/* head_count_kv [0, 0, 8], feed_forward_length [0, 128, 0] */
	str(&b, "nemotron_h.attention.head_count_kv"); u32(&b, 9); u32(&b, 4);
	u64(&b, 3); u32(&b, 0); u32(&b, 0); u32(&b, 8);
	str(&b, "nemotron_h.feed_forward_length"); u32(&b, 9); u32(&b, 4);
	u64(&b, 3); u32(&b, 0); u32(&b, 128); u32(&b, 0);
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK_CODE_LIST(inv, NULL, 0);
	CHECK_EQ(inv->hp.n_head_kv, 8);
	CHECK_EQ(inv->hp.n_ff, 128);
	CHECK(inv->hp.head_kv_per_layer && inv->hp.head_kv_per_layer[2] == 8);
	CHECK(inv->hp.layer_kind &&
	      inv->hp.layer_kind[0] == QA_LAYER_MAMBA &&
	      inv->hp.layer_kind[1] == QA_LAYER_MLP_ONLY &&
	      inv->hp.layer_kind[2] == QA_LAYER_FULL_ATTENTION);
	qa_inventory_destroy(inv);

	th_case = "gemma2 sliding window";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 0, 3);
	kv_str(&b, "general.architecture", "gemma2");
	kv_u32(&b, "gemma2.block_count", 4);
	kv_u32(&b, "gemma2.attention.sliding_window", 4096);
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK_EQ(inv->hp.sliding_window, 4096);
	CHECK(inv->hp.layer_kind &&
	      inv->hp.layer_kind[0] == QA_LAYER_SLIDING_ATTENTION &&
	      inv->hp.layer_kind[1] == QA_LAYER_FULL_ATTENTION &&
	      inv->hp.layer_kind[2] == QA_LAYER_SLIDING_ATTENTION);
	qa_inventory_destroy(inv);

	th_case = "block_count as UINT64";
	memset(&b, 0, sizeof(b));
	header(&b, 3, 0, 2);
	kv_str(&b, "general.architecture", "llama");
	str(&b, "llama.block_count"); u32(&b, 10); u64(&b, 2);
	inv = load_buf(&b, &rc);
	free(b.p);
	CHECK_CODE_LIST(inv, NULL, 1012);
	qa_inventory_destroy(inv);
}

/*
 * A kept string array of 4,000 strings of 0 to 1,499 bytes (3 MB): its
 * strings cross the reader's 64 KiB buffer and the string pool's blocks,
 * and some are over the pool's direct-allocation size. Every string is
 * compared with the bytes written, in both byte orders; then the file is
 * cut inside string 3,001, whose length field must carry the QA1001.
 */
static char
tok_byte(uint64_t i, uint64_t k)
{
	return (char)('a' + (i * 7 + k) % 26);
}

static uint64_t
tok_len(uint64_t i)
{
	return i * 37 % 1500;
}

static void
test_token_strings(int be)
{
	struct qa_inventory *inv;
	const struct qa_kv *kv;
	struct buf b;
	uint64_t i, k, wrong = 0, cut_at = 0;
	int rc;
	char tmp[1500];

	th_case = be ? "kept token strings, big-endian" :
		       "kept token strings";
	memset(&b, 0, sizeof(b));
	b.be = be;
	header(&b, 3, 0, 2);
	kv_str(&b, "general.architecture", "llama");
	str(&b, "tokenizer.ggml.tokens");
	u32(&b, 9);
	u32(&b, 8);
	u64(&b, 4000);
	for (i = 0; i < 4000; i++) {
		for (k = 0; k < tok_len(i); k++)
			tmp[k] = tok_byte(i, k);
		if (i == 3000)
			cut_at = b.n;
		u64(&b, tok_len(i));
		put(&b, tmp, (size_t)tok_len(i));
	}
	inv = load_buf(&b, &rc);
	CHECK_EQ(rc, QA_OK);
	kv = qa_inv_kv(inv, "tokenizer.ggml.tokens");
	CHECK(kv && kv->value.v.arr.kept == 4000);
	for (i = 0; kv && i < kv->value.v.arr.kept; i++) {
		struct qa_value e;

		if (!qa_value_item(&kv->value, i, &e) ||
		    e.type != QA_V_STRING || e.v.str.len != tok_len(i) ||
		    strlen(e.v.str.s) != tok_len(i)) {
			wrong++;
			continue;
		}
		for (k = 0; k < tok_len(i); k++)
			if (e.v.str.s[k] != tok_byte(i, k)) {
				wrong++;
				break;
			}
	}
	CHECK_EQ(wrong, 0);
	qa_inventory_destroy(inv);
	/* string 3,000 is empty (3000 * 37 % 1500 = 0): cut 10 bytes into
	 * string 3,001 (37 bytes), whose length field gets the finding */
	b.n = (size_t)cut_at + 8 + tok_len(3000) + 8 + 10;
	inv = load_buf(&b, &rc);
	CHECK(th_finding(inv, 1001, NULL) &&
	      th_finding(inv, 1001, NULL)->offset ==
	      (int64_t)(cut_at + 8 + tok_len(3000)));
	qa_inventory_destroy(inv);
	free(b.p);
}

int
main(void)
{
	th_scratch("gguf");
	test_valid();
	test_versions();
	test_kvs();
	test_counts();
	test_tensors();
	test_truncation(0);
	test_truncation(1);
	test_split();
	test_arrays(0);
	test_arrays(1);
	test_array_expansion();
	test_token_strings(0);
	test_token_strings(1);
	test_hparams();
	th_case = NULL;
	return th_done("gguf");
}
