/* SPDX-License-Identifier: MIT */
/*
 * Files of a model that are not regular files (src/core/source.c
 * qa_source_open, formats/gguf_split.c, st_set.c, hf_side.c, input.c),
 * on model folders held in memory (qa_memfs with special entries): a FIFO,
 * device, socket or folder where a split part, a shard, the index or
 * config.json belongs is QA1410 and counts as missing, and so is one the
 * listing showed as a regular file but that is something else when opened
 * (the file was swapped after the listing: only the opened descriptor's
 * fstat is trusted). The top-level path swapped so is refused (exit 3),
 * never read. The real FIFOs (which would block a plain open(2)) are
 * tests/cli/test_bounds.py's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/source.h"
#include "formats/format.h"
#include "formats/input.h"
#include "harness.h"

/* ---- tiny files ---------------------------------------------------------- */

struct buf {
	unsigned char p[512];
	size_t n;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > sizeof(b->p))
		abort();
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void
le(struct buf *b, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)(v >> (8 * i));

		put(b, &c, 1);
	}
}

static void
key(struct buf *b, const char *k, uint32_t type)
{
	le(b, strlen(k), 8);
	put(b, k, strlen(k));
	le(b, type, 4);
}

/* A GGUF split part with no tensors: split.no, split.count (u16) and
 * split.tensors.count (i32). */
static void
gguf_part(struct buf *b, unsigned no, unsigned count)
{
	memset(b, 0, sizeof(*b));
	put(b, "GGUF", 4);
	le(b, 3, 4);
	le(b, 0, 8);
	le(b, 3, 8);
	key(b, "split.no", 2);
	le(b, no, 2);
	key(b, "split.count", 2);
	le(b, count, 2);
	key(b, "split.tensors.count", 5);
	le(b, 0, 4);
}

/* A safetensors file holding one F32 tensor of one element. */
static void
st_file(struct buf *b, const char *tensor)
{
	char h[128];
	size_t n;

	memset(b, 0, sizeof(*b));
	n = (size_t)snprintf(h, sizeof(h), "{\"%s\":{\"dtype\":\"F32\","
			     "\"shape\":[1],\"data_offsets\":[0,4]}}", tensor);
	while (n % 8)
		h[n++] = ' ';
	le(b, n, 8);
	put(b, h, n);
	le(b, 0, 4);
}

static const char config[] = "{\"model_type\": \"llama\"}";
static const char index_json[] =
	"{\"metadata\": {\"total_size\": 8}, \"weight_map\": {"
	"\"a\": \"model-00001-of-00002.safetensors\", "
	"\"b\": \"model-00002-of-00002.safetensors\"}}";

static void
add(struct qa_memfs *m, const char *path, const void *p, size_t n)
{
	if (!qa_memfs_add(m, path, p, n))
		FAIL("memfs full at %s", path);
}

static void
add_special(struct qa_memfs *m, const char *path, bool swapped)
{
	if (!qa_memfs_add_special(m, path, "a FIFO", swapped))
		FAIL("memfs full at %s", path);
}

static struct qa_inventory *
inventory(struct qa_memfs *m, const char *path)
{
	struct qa_inventory *inv = qa_inventory_create(path);

	if (!inv)
		abort();
	inv->fs = qa_memfs_fs(m);
	return inv;
}

static unsigned
opens(const struct qa_memfs *m, const char *path)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->files[i].path, path) == 0)
			return m->files[i].opens;
	return 0;
}

/* ---- GGUF split sets ---------------------------------------------------- */

static void
test_split(bool swapped)
{
	static struct buf p1, p3;
	struct qa_memfs m;
	struct qa_inventory *inv;
	int rc;

	th_case = swapped ? "split part swapped for a FIFO after listing" :
			    "split part that is a FIFO";
	gguf_part(&p1, 0, 3);
	gguf_part(&p3, 2, 3);
	qa_memfs_init(&m);
	add(&m, "s/x-00001-of-00003.gguf", p1.p, p1.n);
	add_special(&m, "s/x-00002-of-00003.gguf", swapped);
	add(&m, "s/x-00003-of-00003.gguf", p3.p, p3.n);
	inv = inventory(&m, "s/x-00001-of-00003.gguf");
	rc = qa_gguf_load_path(inv, "s/x-00001-of-00003.gguf");
	CHECK_EQ(rc, QA_OK);
	CHECK_CODE_LIST(inv, NULL, 1410);
	CHECK_EQ(inv->weights.missing_files, 1);
	CHECK_STR(inv->weights.first_missing, "s/x-00002-of-00003.gguf");
	/* The two regular parts are read, the special one never (listed
	 * as special) or refused at open (swapped). */
	CHECK_EQ(inv->n_files, 2);
	CHECK_EQ(opens(&m, "s/x-00002-of-00003.gguf"), swapped ? 1 : 0);
	qa_inventory_destroy(inv);
}

/* ---- safetensors sets and folders ----------------------------------------- */

static void
checkpoint(struct qa_memfs *m, struct buf *s1, struct buf *s2,
	   const char *special, bool swapped)
{
	qa_memfs_init(m);
	st_file(s1, "a");
	st_file(s2, "b");
	if (strcmp(special, "config.json") == 0)
		add_special(m, "ck/config.json", swapped);
	else
		add(m, "ck/config.json", config, strlen(config));
	if (strcmp(special, "index") == 0)
		add_special(m, "ck/model.safetensors.index.json", swapped);
	else
		add(m, "ck/model.safetensors.index.json", index_json,
		    strlen(index_json));
	add(m, "ck/model-00001-of-00002.safetensors", s1->p, s1->n);
	if (strcmp(special, "shard") == 0)
		add_special(m, "ck/model-00002-of-00002.safetensors", swapped);
	else
		add(m, "ck/model-00002-of-00002.safetensors", s2->p, s2->n);
}

static void
test_checkpoint(const char *special, bool swapped)
{
	static struct buf s1, s2;
	static char name[128];
	struct qa_memfs m;
	struct qa_inventory *inv;
	int rc;

	snprintf(name, sizeof(name), "%s %s", special,
		 swapped ? "swapped for a FIFO after listing" : "as a FIFO");
	th_case = name;
	checkpoint(&m, &s1, &s2, special, swapped);
	inv = inventory(&m, "ck");
	rc = qa_hf_load_dir(inv, "ck");
	CHECK_EQ(rc, QA_OK);
	CHECK_EQ(th_count_code(inv, 1410), 1);
	if (strcmp(special, "shard") == 0) {
		/* Shard 1 and its tensor are read; shard 2 counts as
		 * missing, so total_size is not compared. */
		CHECK_EQ(inv->weights.missing_files, 1);
		CHECK_EQ(inv->n_tensors, 1);
		CHECK_EQ(th_count_code(inv, 1307), 0);
	} else if (strcmp(special, "index") == 0) {
		/* Read without the index: both shards, nothing missing. */
		CHECK_EQ(inv->n_tensors, 2);
		CHECK_EQ(inv->weights.missing_files, 0);
	} else {
		CHECK_EQ(inv->n_tensors, 2);
		CHECK(!inv->have_config);
	}
	qa_inventory_destroy(inv);

	/* The same set through the shard or the index as the path. */
	checkpoint(&m, &s1, &s2, special, swapped);
	inv = inventory(&m, "ck/model-00001-of-00002.safetensors");
	rc = qa_st_load_path(inv, "ck/model-00001-of-00002.safetensors");
	CHECK_EQ(rc, QA_OK);
	CHECK_EQ(th_count_code(inv, 1410), 1);
	qa_inventory_destroy(inv);
}

/* ---- the path given ----------------------------------------------------- */

static void
test_top_level(void)
{
	static struct buf p1;
	struct qa_model_refs refs;
	struct qa_memfs m;
	char err[512];
	int rc;

	th_case = "the path given, swapped for a FIFO after the stat";
	qa_memfs_init(&m);
	add_special(&m, "model.gguf", true);
	rc = qa_input_resolve(qa_memfs_fs(&m), "model.gguf", NULL, &refs, err,
			      sizeof(err));
	CHECK_EQ(rc, QA_E_UNRECOGNIZED);
	CHECKF(strstr(err, "FIFO") != NULL, "message: %s", err);
	qa_model_refs_free(&refs);

	th_case = "the path given is a FIFO";
	qa_memfs_init(&m);
	add_special(&m, "model.gguf", false);
	rc = qa_input_resolve(qa_memfs_fs(&m), "model.gguf", NULL, &refs, err,
			      sizeof(err));
	CHECK_EQ(rc, QA_E_UNRECOGNIZED);
	CHECK_EQ(opens(&m, "model.gguf"), 0);
	qa_model_refs_free(&refs);

	th_case = "a folder of GGUF files with a FIFO among them";
	gguf_part(&p1, 0, 1);
	qa_memfs_init(&m);
	add(&m, "d/a-00001-of-00001.gguf", p1.p, p1.n);
	add_special(&m, "d/b.gguf", false);
	rc = qa_input_resolve(qa_memfs_fs(&m), "d", NULL, &refs, err,
			      sizeof(err));
	CHECK_EQ(rc, QA_OK);
	CHECK_EQ(refs.n, 1);
	CHECK_EQ(opens(&m, "d/b.gguf"), 0);
	qa_model_refs_free(&refs);
}

int
main(void)
{
	test_split(false);
	test_split(true);
	test_checkpoint("shard", false);
	test_checkpoint("shard", true);
	test_checkpoint("index", true);
	test_checkpoint("config.json", false);
	test_checkpoint("config.json", true);
	test_top_level();
	th_case = NULL;
	return th_done("special-files");
}
