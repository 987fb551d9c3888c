/* SPDX-License-Identifier: MIT */
/*
 * The one-pass index reader (formats/weight_index.c) against the reading
 * it replaced: every JSON side file's path (core/json_file.c, Python's
 * tokens rewritten, then cJSON's tree), kept here as the oracle, walked
 * as formats/st_set.c walked it until 2026-12-01. Both write their
 * findings into an inventory of their own; the test compares the
 * findings (code, offset, tensor, message), the entries, the shard list
 * and metadata.total_size, on
 *
 *   corners   every rule the reader's comment lists: whitespace bytes,
 *             the BOM, NaN/Infinity/-Infinity and their word boundaries,
 *             cJSON's numbers (the whole run to strtod), escapes, \u0000 and
 *             invalid hex, surrogates, NULs, nesting at 1,000, trailing
 *             bytes, duplicate keys, non-string values;
 *   mutants   60,000 random edits (bytes that matter to JSON put in,
 *             taken out, changed) of three valid indexes, from a fixed
 *             seed;
 *   the step  qa_weight_index_load, the open-add-read step of both sets,
 *             on an in-memory folder.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/inventory.h"
#include "core/json_file.h"
#include "formats/weight_index.h"

/* ---- the oracle: the reading before 2026-12-01 -------------------------- */

static int64_t
old_escaped_nul(const char *j, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (j[i] != '\\')
			continue;
		if (j[i + 1] == 'u' && i + 6 <= n &&
		    memcmp(j + i + 2, "0000", 4) == 0)
			return (int64_t)i;
		i++;
	}
	return -1;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct qa_weight_entry *)a)->tensor,
		      ((const struct qa_weight_entry *)b)->tensor);
}

static void
oracle(struct qa_inventory *inv, const char *text, size_t len,
       struct qa_weight_index *ix)
{
	cJSON *root, *wm = NULL, *md = NULL, *ch;
	char *buf = malloc(len + 1);
	int64_t nul;
	size_t i, n_wm = 0;

	memcpy(buf, text, len);
	buf[len] = '\0';
	nul = old_escaped_nul(buf, len);
	if (nul >= 0)
		qa_inv_finding(inv, QA1306, ix->path, nul, NULL,
			       "the index contains an escaped NUL (\\u0000): a name is truncated differently by different loaders");
	root = qa_json_parse_python(buf, len, NULL);
	free(buf);
	if (!root || !cJSON_IsObject(root)) {
		qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
			       "index is not a JSON object");
		goto out;
	}
	for (ch = root->child; ch; ch = ch->next) {
		if (strcmp(ch->string, "weight_map") == 0) {
			if (wm)
				qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
					       "\"weight_map\" appears twice");
			else
				wm = ch;
		} else if (strcmp(ch->string, "metadata") == 0 && !md) {
			md = ch;
		}
	}
	if (!wm || !cJSON_IsObject(wm)) {
		qa_inv_finding(inv, QA1301, ix->path, -1, NULL,
			       "index has no \"weight_map\" object");
		goto out;
	}
	ix->valid = true;
	for (ch = wm->child; ch; ch = ch->next)
		n_wm++;
	ix->e = qa_arena_array(&inv->arena, n_wm ? n_wm : 1, sizeof(*ix->e));
	ix->shards = qa_arena_array(&inv->arena, n_wm ? n_wm : 1,
				    sizeof(*ix->shards));
	for (ch = wm->child; ch; ch = ch->next) {
		if (!cJSON_IsString(ch)) {
			qa_inv_finding(inv, QA1301, ix->path, -1, ch->string,
				       "weight_map value is not a file name string");
			continue;
		}
		ix->e[ix->n].tensor = qa_arena_strdup(&inv->arena, ch->string);
		ix->e[ix->n].shard = qa_arena_strdup(&inv->arena,
						     ch->valuestring);
		ix->shards[ix->n] = ix->e[ix->n].shard;
		ix->n++;
	}
	qsort(ix->shards, ix->n, sizeof(*ix->shards), cmp_str);
	for (i = 0; i < ix->n; i++)
		if (ix->n_shards == 0 ||
		    strcmp(ix->shards[ix->n_shards - 1], ix->shards[i]) != 0)
			ix->shards[ix->n_shards++] = ix->shards[i];
	qsort(ix->e, ix->n, sizeof(*ix->e), cmp_entry);
	for (i = 1; i < ix->n; i++)
		if (strcmp(ix->e[i].tensor, ix->e[i - 1].tensor) == 0)
			qa_inv_finding(inv, QA1301, ix->path, -1,
				       ix->e[i].tensor,
				       "weight_map lists the tensor twice");
	if (md && cJSON_IsObject(md)) {
		for (ch = md->child; ch; ch = ch->next) {
			double d;

			if (strcmp(ch->string, "total_size") != 0)
				continue;
			ix->have_total = true;
			d = ch->valuedouble;
			if (!cJSON_IsNumber(ch) || !(d >= 0.0) ||
			    d > 9007199254740992.0 ||
			    d != (double)(uint64_t)d)
				ix->total_bad = true;
			else
				inv->weights.declared_bytes = ix->total =
					(uint64_t)d;
			break;
		}
	}
out:
	cJSON_Delete(root);
}

/* ---- comparing ------------------------------------------------------------ */

/* Everything either reading leaves, as text (entries with equal names in
 * the order each reading leaves them: qsort need not keep file order, so
 * equal names are compared as a set, through their sorted shards). */
static char *
describe(const struct qa_inventory *inv, const struct qa_weight_index *ix)
{
	size_t cap = 1 << 16, n = 0, i;
	char *s = malloc(cap);

#define PUT(...) do {							\
		int k_ = snprintf(NULL, 0, __VA_ARGS__);		\
		while (n + (size_t)k_ + 1 > cap)			\
			s = realloc(s, cap *= 2);			\
		n += (size_t)snprintf(s + n, cap - n, __VA_ARGS__);	\
	} while (0)
	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];

		PUT("F QA%04u %lld %s|%s|%u\n", (unsigned)f->rule->code,
		    (long long)f->offset, f->tensor ? f->tensor : "-",
		    f->message ? f->message : "", (unsigned)f->count);
	}
	PUT("valid %d n %zu shards %zu total %d/%d/%llu declared %llu\n",
	    ix->valid, ix->n, ix->n_shards, ix->have_total, ix->total_bad,
	    (unsigned long long)ix->total,
	    (unsigned long long)inv->weights.declared_bytes);
	for (i = 0; i < ix->n_shards; i++)
		PUT("S %s\n", ix->shards[i]);
	for (i = 0; i < ix->n; i++) {
		size_t j = i, a, b;

		while (j + 1 < ix->n &&
		       strcmp(ix->e[j + 1].tensor, ix->e[i].tensor) == 0)
			j++;
		/* a run of equal names: its shards sorted */
		for (a = i; a <= j; a++)
			for (b = a + 1; b <= j; b++)
				if (strcmp(ix->e[b].shard, ix->e[a].shard) < 0) {
					struct qa_weight_entry t = ix->e[a];

					((struct qa_weight_entry *)ix->e)[a] =
						ix->e[b];
					((struct qa_weight_entry *)ix->e)[b] = t;
				}
		for (a = i; a <= j; a++)
			PUT("E %s -> %s\n", ix->e[a].tensor, ix->e[a].shard);
		i = j;
	}
#undef PUT
	return s;
}

static int n_diff;

static void
compare(const char *text, size_t len, const char *what)
{
	struct qa_inventory *a = qa_inventory_create("idx");
	struct qa_inventory *b = qa_inventory_create("idx");
	struct qa_weight_index ia, ib;
	struct qa_source src;
	char *da, *db;

	memset(&ia, 0, sizeof(ia));
	memset(&ib, 0, sizeof(ib));
	ia.path = ib.path = "model.safetensors.index.json";
	qa_source_open_memory(&src, "idx", text, len);
	CHECK_EQ(qa_weight_index_read(a, &src, &ia), QA_OK);
	qa_source_close(&src);
	oracle(b, text, len, &ib);
	da = describe(a, &ia);
	db = describe(b, &ib);
	if (strcmp(da, db) != 0 && n_diff++ < 5) {
		fprintf(stderr, "differs on %s (%zu bytes): %.*s\n--- new\n%s--- "
			"old\n%s", what, len, (int)(len < 200 ? len : 200),
			text, da, db);
	}
	CHECK(strcmp(da, db) == 0);
	free(da);
	free(db);
	qa_inventory_destroy(a);
	qa_inventory_destroy(b);
}

static void
compare_str(const char *text)
{
	compare(text, strlen(text), text);
}

static const char *const corners[] = {
	"",
	"   ",
	"{}",
	"[]",
	"\"x\"",
	"null",
	"{\"weight_map\": {}}",
	"{\"weight_map\": {\"a\": \"m-1.safetensors\", \"b\": \"m-2.safetensors\"}, \"metadata\": {\"total_size\": 123}}",
	"\xEF\xBB\xBF{\"weight_map\": {\"a\": \"x\"}}",
	"\xEF\xBB\xBF{}",
	"\x01\x02{\x1f\"weight_map\"\x7f: {}}",
	"{\"weight_map\": {\"a\": NaN}}",
	"{\"weight_map\": {\"a\": NaNx}}",
	"{\"weight_map\": NaN}",
	"{\"metadata\": {\"total_size\": NaN}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": Infinity}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": -Infinity}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": -Infinityx}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": --Infinity}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 1e999}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 01}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 1.}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 1.5.3}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": +1}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": -0}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 9007199254740993}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 0x10}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 1e}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 123456789012345678901234567890123456789012345678901234567890123456789}, \"weight_map\": {}}",
	"{\"metadata\": {\"total_size\": 1, \"total_size\": 2}, \"weight_map\": {}}",
	"{\"metadata\": 5, \"metadata\": {\"total_size\": 2}, \"weight_map\": {}}",
	"{\"metadata\": {\"x\": [1, {\"y\": null}], \"total_size\": \"7\"}, \"weight_map\": {}}",
	"{\"weight_map\": {\"a\": \"x\"}, \"weight_map\": {\"b\": \"y\"}}",
	"{\"weight_map\": 1, \"weight_map\": {\"b\": \"y\"}}",
	"{\"weight_map\": {\"a\": \"x\", \"a\": \"y\", \"a\": \"x\"}}",
	"{\"weight_map\": {\"a\": 1, \"b\": true, \"c\": null, \"d\": [\"x\"], \"e\": {}}}",
	"{\"weight_map\": {\"a\\u0000b\": \"x\\u0000y\"}}",
	"{\"weight_map\": {\"a\\uZZZZb\": \"x\"}}",
	"{\"weight_map\": {\"a\\u00e9\\u4e2d\": \"\\ud83d\\ude00\"}}",
	"{\"weight_map\": {\"a\": \"\\ud83d\"}}",
	"{\"weight_map\": {\"a\": \"\\ude00\"}}",
	"{\"weight_map\": {\"a\": \"\\ud83d\\u0000\"}}",
	"{\"weight_map\": {\"a\": \"\\ud83dx\\ude00\"}}",
	"{\"weight_map\": {\"a\": \"\\u12\"}}",
	"{\"weight_map\": {\"a\": \"\\x41\"}}",
	"{\"weight_map\": {\"a\": \"\\U0000\"}}",
	"{\"weight_map\": {\"a\\\\u0000\": \"\\\\\"}}",
	"{\"weight_map\": {\"a\": \"b\\/c\\b\\f\\n\\r\\t\\\"\"}}",
	"{\"weight_map\": {\"a\": \"raw\x01\x7f\xff bytes\"}}",
	"{\"weight_map\": {\"a\": \"x\"}} trailing garbage",
	"{\"weight_map\": {\"a\": \"x\"},}",
	"{\"weight_map\": {\"a\": \"x\",}}",
	"{\"weight_map\": {\"a\" \"x\"}}",
	"{\"weight_map\": {a: \"x\"}}",
	"{\"weight_map\": {\"a\": \"x\"}",
	"{\"weight_map\": {\"a\": \"x",
	"{\"weight_map\": {\"a\": \"x\\",
	"{\"w\": nul, \"weight_map\": {}}",
	"{\"w\": nullx, \"weight_map\": {}}",
	"{\"w\": tru, \"weight_map\": {}}",
	"{\"w\": [1, 2,], \"weight_map\": {}}",
	"{\"w\": [], \"weight_map\": {}}",
	"{\"weight_map\\u0000x\": {\"a\": \"b\"}}",
	"{\"weight_map\\uZZZZx\": {\"a\": \"b\"}}",
};

static void
nesting(void)
{
	size_t depth[] = { 998, 999, 1000, 1001, 1200 };
	size_t k;

	for (k = 0; k < sizeof(depth) / sizeof(depth[0]); k++) {
		size_t d = depth[k], i, n = 0;
		char *s = malloc(2 * d + 64);

		n += (size_t)sprintf(s, "{\"weight_map\": {}, \"m\": ");
		for (i = 0; i < d; i++)
			s[n++] = '[';
		for (i = 0; i < d; i++)
			s[n++] = ']';
		s[n++] = '}';
		compare(s, n, "nesting");
		free(s);
	}
}


static void
mutants(const char *base, int count)
{
	static const char interesting[] = "\"\\{}[]:,NIaf-ue0.9 \t\x01\x7f\xef\xbb\xbf/";
	size_t len = strlen(base);
	char *buf = malloc(len + 64);
	int m;

	for (m = 0; m < count; m++) {
		size_t n = len, edits = 1 + th_rand() % 3, e;

		memcpy(buf, base, len);
		for (e = 0; e < edits; e++) {
			size_t at = n ? th_rand() % n : 0;
			int op = (int)(th_rand() % 3);
			char c = (th_rand() % 4) ? interesting[th_rand() %
				(sizeof(interesting) - 1)] : (char)th_rand();

			if (op == 0 && n) {
				buf[at] = c;
			} else if (op == 1 && n) {
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
			} else if (n + 1 < len + 64) {
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = c;
				n++;
			}
		}
		compare(buf, n, "a mutant");
	}
	free(buf);
}

/*
 * The index step both sets share (qa_weight_index_load): the index is
 * added once as a QA_FILE_INDEX "json" file of its size, and read; a
 * FIFO in its place is QA_E_IO with what it is, a missing one QA_E_IO
 * with nothing, and neither is added to the inventory.
 */
static void
index_load(void)
{
	static const char idx[] =
		"{\"metadata\": {\"total_size\": 8}, \"weight_map\": {"
		"\"a\": \"m-00001-of-00002.safetensors\", "
		"\"b\": \"m-00002-of-00002.safetensors\"}}";
	struct qa_memfs m;
	struct qa_inventory *inv;
	struct qa_weight_index ix;
	const char *path, *special;

	qa_memfs_init(&m);
	CHECK(qa_memfs_add(&m, "ck/m.safetensors.index.json", idx,
			   sizeof(idx) - 1));
	CHECK(qa_memfs_add_special(&m, "ck/fifo.index.json", "a FIFO", false));
	inv = qa_inventory_create("ck");
	CHECK(inv != NULL);
	if (!inv)
		return;
	inv->fs = qa_memfs_fs(&m);

	memset(&ix, 0, sizeof(ix));
	CHECK_EQ(qa_weight_index_load(inv, "ck", "m.safetensors.index.json",
				      &ix, &path, &special), QA_OK);
	CHECK(special == NULL);
	CHECK_STR(path, "ck/m.safetensors.index.json");
	CHECK_EQ(inv->n_files, 1);
	CHECK_STR(inv->files[0].path, "ck/m.safetensors.index.json");
	CHECK_EQ(inv->files[0].role, QA_FILE_INDEX);
	CHECK_STR(inv->files[0].format, "json");
	CHECK_EQ(inv->files[0].bytes, sizeof(idx) - 1);
	CHECK(ix.path == inv->files[0].path);
	CHECK(ix.valid);
	CHECK_EQ(ix.n, 2);
	CHECK_EQ(ix.n_shards, 2);
	CHECK(ix.have_total && ix.total == 8);

	memset(&ix, 0, sizeof(ix));
	CHECK_EQ(qa_weight_index_load(inv, "ck", "fifo.index.json", &ix, &path,
				      &special), QA_E_IO);
	CHECK(special != NULL && strcmp(special, "a FIFO") == 0);
	CHECK_STR(path, "ck/fifo.index.json");
	memset(&ix, 0, sizeof(ix));
	CHECK_EQ(qa_weight_index_load(inv, "ck", "none.index.json", &ix, &path,
				      &special), QA_E_IO);
	CHECK(special == NULL);
	CHECK_EQ(inv->n_files, 1);
	CHECK(!ix.valid);
	qa_inventory_destroy(inv);
}

/*
 * A run of tensors in one shard keeps one copy of the shard's name: the
 * copy read for each later tensor goes back to the arena. 2,000 tensors
 * named "t0000".."t1999" in one 40-byte shard name: what the arena holds
 * after the read is the key "weight_map" (11 bytes, 16 with the arena's
 * alignment), the names (6 bytes, 16),
 * one shard name (41 bytes, 48) and the two arrays of the index, not
 * 2,000 shard names.
 */
static void
shard_names_shared(void)
{
	static const char shard[] = "model-00001-of-00001-xxxxxxx.safetensors";
	struct qa_inventory *inv = qa_inventory_create("ck");
	struct qa_weight_index ix;
	struct qa_source src;
	char *j = malloc(2000 * 64 + 64);
	size_t n = 0, i, before;

	CHECK(inv != NULL && j != NULL);
	if (!inv || !j) {
		free(j);
		qa_inventory_destroy(inv);
		return;
	}
	n += (size_t)sprintf(j + n, "{\"weight_map\": {");
	for (i = 0; i < 2000; i++)
		n += (size_t)sprintf(j + n, "%s\"t%04zu\": \"%s\"",
				     i ? ", " : "", i, shard);
	n += (size_t)sprintf(j + n, "}}");
	qa_source_open_memory(&src, "ck/m.safetensors.index.json", j, n);
	memset(&ix, 0, sizeof(ix));
	ix.path = "ck/m.safetensors.index.json";
	before = inv->arena.used;
	CHECK_EQ(qa_weight_index_read(inv, &src, &ix), QA_OK);
	CHECK(ix.valid);
	CHECK_EQ(ix.n, 2000);
	CHECK_EQ(ix.n_shards, 1);
	for (i = 1; i < ix.n; i++)
		if (!CHECK(ix.e[i].shard == ix.e[0].shard))
			break;
	CHECK_EQ(inv->arena.used - before,
		 16 + 2000 * 16 + 48 + 2000 * sizeof(*ix.e) + 2000 *
		 sizeof(*ix.shards));
	qa_source_close(&src);
	free(j);
	qa_inventory_destroy(inv);
}

/* The arena takes back only its newest block, and hands it out again
 * cleared. */
static void
arena_give_back(void)
{
	struct qa_arena a;
	unsigned char *x, *y, *z;

	qa_arena_init(&a, 0);
	x = qa_arena_alloc(&a, 5);
	y = qa_arena_alloc(&a, 7);
	CHECK(x && y);
	if (!x || !y) {
		qa_arena_finish(&a);
		return;
	}
	memset(y, 0xAB, 7);
	qa_arena_give_back(&a, x, 5);	/* not the newest: kept */
	CHECK_EQ(a.used, 32);
	qa_arena_give_back(&a, y, 7);
	CHECK_EQ(a.used, 16);
	z = qa_arena_alloc(&a, 7);
	CHECK(z == y);
	CHECK(z && z[0] == 0 && z[6] == 0);
	qa_arena_finish(&a);
}

int
main(void)
{
	size_t i;

	th_case = "corners";
	for (i = 0; i < sizeof(corners) / sizeof(corners[0]); i++)
		compare_str(corners[i]);
	th_case = "nesting";
	nesting();
	th_case = "index-load";
	index_load();
	th_case = "shard-names-shared";
	shard_names_shared();
	th_case = "arena-give-back";
	arena_give_back();
	th_case = "mutants";
	mutants("{\n  \"metadata\": {\n    \"total_size\": 4096\n  },\n"
		"  \"weight_map\": {\n"
		"    \"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\",\n"
		"    \"model.layers.0.mlp.down_proj.weight\": \"model-00001-of-00002.safetensors\",\n"
		"    \"model.norm.weight\": \"model-00002-of-00002.safetensors\"\n"
		"  }\n}\n", 20000);
	mutants("{\"weight_map\": {\"a\\u00e9\": \"s\\ud83d\\ude00\", \"b\": NaN, "
		"\"c\": \"x\\u0000\"}, \"metadata\": {\"total_size\": -Infinity}}",
		20000);
	mutants("{\"metadata\": {\"total_size\": 1e3, \"x\": [true, false, null, "
		"{\"y\": [1.5e-3, -0]}]}, \"weight_map\": {\"t\": \"s\", "
		"\"t\": \"r\"}}", 20000);
	return th_done("weight-index");
}
