/* SPDX-License-Identifier: MIT */
/*
 * The recorded provenance facts of src/analysis/summary.c, the one
 * owner the JSON and text reporters print: qa_inv_kv_string (a string,
 * or an array's first string, as llama-imatrix has written
 * quantize.imatrix.dataset either way) and qa_imatrix_of (the four
 * LLM_KV_QUANTIZE_IMATRIX_* keys of ggml-org/llama.cpp
 * tools/quantize/quantize.cpp), on hand-built metadata.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/arena.h"
#include "core/inventory.h"
#include "harness.h"

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

static void
set_str(struct qa_value *v, const char *s)
{
	v->type = QA_V_STRING;
	v->v.str.s = s;
	v->v.str.len = strlen(s);
}

int
main(void)
{
	struct qa_inventory *inv = qa_inventory_create("m.gguf");
	struct qa_imatrix im;
	struct qa_kv *kv;
	struct qa_value *items;

	if (!inv)
		return 1;
	th_case = "no keys";
	CHECK(!qa_imatrix_of(inv, &im));
	CHECK(im.file == NULL && im.dataset == NULL);
	CHECK_EQ(im.entries, -1);
	CHECK_EQ(im.chunks, -1);

	th_case = "a dataset of the wrong type is absent";
	kv = add_kv(inv, "quantize.imatrix.dataset", QA_V_BOOL);
	kv->value.v.u = 1;
	CHECK(!qa_imatrix_of(inv, &im));
	CHECK(qa_inv_kv_string(inv, "quantize.imatrix.dataset") == NULL);

	th_case = "entries alone";
	kv = add_kv(inv, "quantize.imatrix.entries_count", QA_V_U32);
	kv->value.v.u = 7;
	CHECK(qa_imatrix_of(inv, &im));
	CHECK_EQ(im.entries, 7);
	CHECK_EQ(im.chunks, -1);
	CHECK(im.file == NULL);
	qa_inventory_destroy(inv);

	th_case = "file, dataset array, chunks";
	inv = qa_inventory_create("m.gguf");
	if (!inv)
		return 1;
	kv = add_kv(inv, "quantize.imatrix.file", QA_V_STRING);
	set_str(&kv->value, "/data/imatrix.dat");
	kv = add_kv(inv, "quantize.imatrix.dataset", QA_V_ARRAY);
	items = qa_arena_alloc(&inv->arena, 2 * sizeof(*items));
	if (!items)
		return 1;
	memset(items, 0, 2 * sizeof(*items));
	set_str(&items[0], "wiki.train.raw");
	set_str(&items[1], "code.txt");
	kv->value.v.arr.items = items;
	kv->value.v.arr.kept = 2;
	kv = add_kv(inv, "quantize.imatrix.chunks_count", QA_V_I32);
	kv->value.v.i = 125;
	CHECK(qa_imatrix_of(inv, &im));
	CHECK_STR(im.file, "/data/imatrix.dat");
	CHECK_STR(im.dataset, "wiki.train.raw");
	CHECK_EQ(im.chunks, 125);
	CHECK_EQ(im.entries, -1);
	CHECK(qa_inv_kv_string(inv, "quantize.imatrix.chunks_count") == NULL);
	qa_inventory_destroy(inv);
	return th_done("provenance");
}
