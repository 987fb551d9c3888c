/* SPDX-License-Identifier: MIT */
/*
 * Archives below the binary (formats/archive*.c, core/source.c): the range
 * and prefix sources members are read through, what the keeper keeps of
 * a streamed member (a GGUF header as the GGUF loader measures it, fed in
 * chunks of every size; a safetensors header; side files; the per-archive
 * budget), member-name normalization and the traversal and link checks,
 * and whole archives written in memory by libarchive's own writer
 * (pax tar under gzip, zip) read through an in-memory file system: the
 * members' file system (stat, list, open), the bytes read of an
 * uncompressed tar (only the header, not the member), and the findings.
 */
#define _POSIX_C_SOURCE 200809L
#define QA_ARCHIVE_INTERNAL
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive_int.h"
#include "formats/format.h"
#include "harness.h"

static unsigned char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(len > 0 ? (size_t)len : 1);
	if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return p;
}

/* ---- sources ------------------------------------------------------------- */

static void
sources(void)
{
	unsigned char data[100], buf[64];
	struct qa_source parent, r, p;
	int i;

	th_case = "sources";
	for (i = 0; i < 100; i++)
		data[i] = (unsigned char)i;
	qa_source_open_memory(&parent, "a", data, sizeof(data));
	qa_source_open_range(&r, "a!/m", &parent, 10, 50);
	CHECK_EQ(r.size, 50);
	CHECK_EQ(qa_source_read(&r, 0, buf, 50), QA_OK);
	CHECK(buf[0] == 10 && buf[49] == 59);
	CHECK_EQ(r.bytes_read, 50);
	CHECK_EQ(parent.bytes_read, 50);
	CHECK_EQ(qa_source_read(&r, 45, buf, 10), QA_E_SHORT);
	qa_source_close(&r);
	/* a range past the parent's end fails as a file that shrank */
	qa_source_open_range(&r, "a!/m", &parent, 90, 20);
	CHECK_EQ(qa_source_read(&r, 0, buf, 20), QA_E_IO);
	qa_source_close(&r);

	qa_source_open_prefix(&p, "a!/z", data, 16, 1000);
	CHECK_EQ(p.size, 1000);
	CHECK_EQ(qa_source_read(&p, 0, buf, 16), QA_OK);
	CHECK_EQ(qa_source_read(&p, 10, buf, 10), QA_E_IO);
	CHECK_EQ(p.err, EFBIG);
	CHECK_EQ(qa_source_read(&p, 990, buf, 20), QA_E_SHORT);
	qa_source_close(&p);
	qa_source_close(&parent);
	th_case = NULL;
}

/* ---- the keeper ------------------------------------------------------------ */

static struct qa_archive *
scratch_archive(void)
{
	struct qa_archive *ar = calloc(1, sizeof(*ar));

	if (!ar)
		exit(1);
	ar->refs = 1;
	ar->path = strdup("x.tar.gz");
	ar->root = strdup("x.tar.gz!");
	ar->streamed = true;
	return ar;
}

/* Streams bytes in chunks of chunk through a keeper for a member named
 * name; returns the member (kept, or not inspected). */
static struct ar_member *
keep(struct qa_archive *ar, const char *name, const unsigned char *p,
     size_t n, size_t chunk, bool complete)
{
	struct ar_member *m = ar_add_member(ar, name, strlen(name), AR_FILE,
					    n, -1);
	struct ar_keeper k;
	size_t at = 0;

	if (!m)
		exit(1);
	ar_keeper_start(&k, ar, m);
	while (at < n && ar_keeper_wants(&k)) {
		size_t take = n - at < chunk ? n - at : chunk;

		if (!ar_keeper_feed(&k, p + at, take))
			exit(1);
		at += take;
	}
	ar_keeper_finish(&k, complete || at == n);
	return m;
}

/* The GGUF loader's own measure of a header: where its tensor infos end. */
static uint64_t
gguf_header_end(const unsigned char *p, size_t n)
{
	struct qa_inventory *inv = qa_inventory_create("h.gguf");
	struct qa_source src;
	uint64_t end = 0;

	if (!inv)
		exit(1);
	qa_source_open_memory(&src, "h.gguf", p, n);
	if (qa_inv_add_file(inv, "h.gguf") &&
	    qa_gguf_load_file(inv, 0, &src) == QA_OK)
		end = inv->files[0].header_bytes;
	qa_inventory_destroy(inv);
	return end;
}

static void
keeper_gguf(const char *dir, const char *rel)
{
	static const size_t chunks[] = { 1, 7, 4096, 65536, 1 << 20 };
	char path[4096];
	unsigned char *p;
	uint64_t end, want;
	size_t n, i;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	p = slurp(path, &n);
	if (!p) {
		FAIL("%s: missing fixture", rel);
		return;
	}
	end = gguf_header_end(p, n);
	CHECKF(end > 0, "%s: the loader gives no header", rel);
	want = end + 2 * QA_READER_BUF < n ? end + 2 * QA_READER_BUF : n;
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct qa_archive *ar = scratch_archive();
		struct ar_member *m = keep(ar, "m.gguf", p, n, chunks[i], false);

		th_case = rel;
		CHECKF(m->kept_set && m->kept_len == want,
		       "chunk %zu: kept %llu bytes, want %llu (header %llu)",
		       chunks[i], (unsigned long long)m->kept_len,
		       (unsigned long long)want, (unsigned long long)end);
		CHECK(m->kept_len == 0 || memcmp(m->kept, p, m->kept_len) == 0);
		/* the loader reads the header from what was kept */
		if (m->kept_set) {
			struct qa_source src;
			struct qa_inventory *inv = qa_inventory_create("k");

			qa_source_open_prefix(&src, "k", m->kept, m->kept_len,
					      m->size);
			CHECK(inv && qa_inv_add_file(inv, "k") &&
			      qa_gguf_load_file(inv, 0, &src) == QA_OK &&
			      inv->files[0].header_bytes == end);
			qa_inventory_destroy(inv);
		}
		qa_archive_release(ar);
	}
	/* cut short: the rest was never streamed */
	{
		struct qa_archive *ar = scratch_archive();
		struct ar_member *m = keep(ar, "m.gguf", p, (size_t)end / 2,
					   4096, false);

		/* the member says it is n bytes, only end/2 came */
		m->size = n;
		CHECK(m->kept_set || m->why != AR_OK);
		qa_archive_release(ar);
	}
	th_case = NULL;
	free(p);
}

static void
keeper_other(void)
{
	unsigned char st[8 + 40 + 1000];
	unsigned char big[100000];
	struct qa_archive *ar = scratch_archive();
	struct ar_member *m;
	size_t i;

	th_case = "keeper";
	memset(st, 0, sizeof(st));
	st[0] = 40;
	memcpy(st + 8, "{\"a\":{\"dtype\":\"U8\",\"shape\":[1000],   }}", 40);
	m = keep(ar, "model.safetensors", st, sizeof(st), 7, false);
	CHECK_EQ(m->kept_len, sizeof(st));	/* 8 + 40 + slack > size */
	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)('a' + i % 26);
	m = keep(ar, "tokenizer.json", big, sizeof(big), 999, false);
	CHECK_EQ(m->kept_len, sizeof(big));
	m = keep(ar, "weights.bin", big, sizeof(big), 4096, false);
	CHECK_EQ(m->kept_len, QA_ARCHIVE_KEEP_HEAD);
	m = keep(ar, "empty.json", big, 0, 1, true);
	CHECK(m->kept_set && m->kept_len == 0);
	/* the per-archive budget */
	ar->kept_total = QA_ARCHIVE_KEEP_TOTAL - 1000;
	m = keep(ar, "later.json", big, sizeof(big), 4096, false);
	CHECK(!m->kept_set && m->why == AR_NOT_KEPT);
	CHECK(ar->nf == 1 && ar->f[0].code == QA1509);
	qa_archive_release(ar);
	th_case = NULL;
}

/* ---- names and links ---------------------------------------------------- */

static void
names(void)
{
	static const struct {
		const char *raw;
		const char *norm;	/* NULL: unsafe */
	} cases[] = {
		{ "a.gguf", "a.gguf" },
		{ "./a//b/./c.json", "a/b/c.json" },
		{ "dir/", "dir" },
		{ "../a", NULL },
		{ "a/../../b", NULL },
		{ "a/..", NULL },
		{ "/etc/passwd", NULL },
		{ "C:x.gguf", NULL },
		{ "a\\..\\b", NULL },
		{ "a\x1b[2Jb", NULL },
		{ "", NULL },
	};
	struct qa_archive *ar = scratch_archive();
	size_t i, nf;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ar_member *m;

		th_case = cases[i].raw;
		nf = ar->nf;
		m = ar_add_member(ar, cases[i].raw, strlen(cases[i].raw),
				  AR_FILE, 1, 0);
		if (!CHECK(m != NULL))
			continue;
		if (cases[i].norm) {
			CHECK_STR(m->name, cases[i].norm);
			CHECK(!m->hidden && ar->nf == nf);
		} else {
			CHECK(m->hidden && ar->nf == nf + 1 &&
			      ar->f[nf].code == QA1504);
		}
	}
	/* a NUL inside a zip name */
	th_case = "NUL";
	nf = ar->nf;
	CHECK(ar_add_member(ar, "a\0../x", 6, AR_FILE, 1, 0)->hidden &&
	      ar->nf == nf + 1);
	/* "./" alone is the root folder: no member, no finding */
	th_case = "./";
	nf = ar->nf;
	CHECK(ar_add_member(ar, "./", 2, AR_DIR, 0, 0)->hidden &&
	      ar->nf == nf);
	th_case = NULL;
	qa_archive_release(ar);
}

static void
links(void)
{
	static const struct {
		const char *member;
		const char *target;
		bool hard;
		unsigned code;
	} cases[] = {
		{ "a/link", "../model.gguf", false, QA1506 },
		{ "a/link", "../../model.gguf", false, QA1507 },
		{ "link", "sub/../model.gguf", false, QA1506 },
		{ "link", "sub/../../x", false, QA1507 },
		{ "link", "/etc/passwd", false, QA1507 },
		{ "a/b/hard", "a/model.gguf", true, QA1506 },
		{ "a/b/hard", "../model.gguf", true, QA1507 },
		{ "link", "", false, QA1506 },
	};
	struct qa_archive *ar = scratch_archive();
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ar_member *m = ar_add_member(ar, cases[i].member,
						    strlen(cases[i].member),
						    AR_SYMLINK, 0, 0);
		size_t nf = ar->nf;

		th_case = cases[i].target;
		ar_check_link(ar, m, cases[i].target, strlen(cases[i].target),
			      cases[i].hard);
		CHECK(ar->nf == nf + 1 && ar->f[nf].code == cases[i].code);
	}
	th_case = NULL;
	qa_archive_release(ar);
}

/* ---- whole archives, written by libarchive ------------------------------- */

struct entry {
	const char *name;
	const void *data;
	size_t len;
	int type;		/* AE_IFREG, AE_IFLNK, AE_IFCHR... */
	const char *link;
};

/* An archive in memory (malloc'd) from entries. */
static unsigned char *
write_archive(bool zip, bool gzip, const struct entry *e, size_t n,
	      size_t *size, bool store)
{
	size_t cap = 1 << 22, used = 0;
	unsigned char *buf = malloc(cap);
	struct archive *a = archive_write_new();
	size_t i;

	if (!buf || !a)
		exit(1);
	if (zip) {
		archive_write_set_format_zip(a);
		if (store)
			archive_write_set_format_option(a, "zip", "compression",
							"store");
	} else {
		archive_write_set_format_pax_restricted(a);
		if (gzip)
			archive_write_add_filter_gzip(a);
	}
	if (archive_write_open_memory(a, buf, cap, &used) != ARCHIVE_OK)
		exit(1);
	for (i = 0; i < n; i++) {
		struct archive_entry *ae = archive_entry_new();

		archive_entry_set_pathname(ae, e[i].name);
		archive_entry_set_filetype(ae, (unsigned)e[i].type);
		archive_entry_set_perm(ae, 0644);
		archive_entry_set_size(ae, e[i].type == AE_IFREG ?
				       (la_int64_t)e[i].len : 0);
		if (e[i].link)
			archive_entry_set_symlink(ae, e[i].link);
		if (archive_write_header(a, ae) != ARCHIVE_OK)
			FAIL("libarchive: %s", archive_error_string(a));
		if (e[i].type == AE_IFREG && e[i].len)
			archive_write_data(a, e[i].data, e[i].len);
		archive_entry_free(ae);
	}
	archive_write_close(a);
	archive_write_free(a);
	*size = used;
	return buf;
}

static bool
has_code(const struct qa_archive *ar, unsigned code)
{
	size_t i;

	for (i = 0; i < ar->nf; i++)
		if (ar->f[i].code == code)
			return true;
	return false;
}

static void
whole(const char *dir)
{
	char path[4096], err[512];
	unsigned char *gg, *st, *arc;
	size_t ngg, nst, narc, k;
	static const char config[] = "{\"architectures\": [\"X\"]}";

	snprintf(path, sizeof(path), "%s/gguf/valid-llama-q8_0.gguf", dir);
	gg = slurp(path, &ngg);
	snprintf(path, sizeof(path), "%s/st/valid.safetensors", dir);
	st = slurp(path, &nst);
	if (!gg || !st) {
		FAIL("missing fixtures");
		free(gg);
		free(st);
		return;
	}
	for (k = 0; k < 4; k++) {
		const struct entry e[] = {
			{ "model/config.json", config, sizeof(config) - 1,
			  AE_IFREG, NULL },
			{ "model/model.safetensors", st, nst, AE_IFREG, NULL },
			{ "model/q8.gguf", gg, ngg, AE_IFREG, NULL },
			{ "model/link", NULL, 0, AE_IFLNK, "../../x" },
			{ "../escape.json", config, 4, AE_IFREG, NULL },
		};
		bool zip = k >= 2, gzip = k == 1, store = k == 3;
		struct qa_memfs mfs;
		const struct qa_fs *afs;
		struct qa_archive *ar = NULL;
		struct qa_dirent *d = NULL;
		struct qa_source src;
		enum qa_node_kind kind;
		uint64_t size;
		size_t nd = 0;
		unsigned char head[4];
		int en;

		th_case = store ? "zip stored" : zip ? "zip" :
			  gzip ? "tar.gz" : "tar";
		arc = write_archive(zip, gzip, e, 5, &narc, store);
		qa_memfs_init(&mfs);
		qa_memfs_add(&mfs, zip ? "m.zip" : gzip ? "m.tar.gz" :
			     "m.tar", arc, narc);
		if (!CHECK(qa_archive_open(qa_memfs_fs(&mfs), zip ? "m.zip" :
					   gzip ? "m.tar.gz" : "m.tar", &ar,
					   err, sizeof(err)) == QA_OK)) {
			printf("  %s\n", err);
			free(arc);
			continue;
		}
		afs = qa_archive_fs(ar);
		CHECK(has_code(ar, QA1504) && has_code(ar, QA1507));
		CHECK(afs->list(afs, qa_archive_root(ar), &d, &nd) == QA_OK &&
		      nd == 1 && strcmp(d[0].name, "model") == 0 &&
		      d[0].kind == QA_NODE_DIR);
		qa_dirents_free(d, nd);
		snprintf(path, sizeof(path), "%s/model", qa_archive_root(ar));
		CHECK(afs->list(afs, path, &d, &nd) == QA_OK && nd == 4);
		qa_dirents_free(d, nd);
		snprintf(path, sizeof(path), "%s/model/q8.gguf",
			 qa_archive_root(ar));
		CHECK(afs->stat(afs, path, &kind, &size, &en) == QA_OK &&
		      kind == QA_NODE_FILE && size == ngg);
		if (CHECK(afs->open(afs, path, &src) == QA_OK)) {
			CHECK(qa_source_read(&src, 0, head, 4) == QA_OK &&
			      memcmp(head, "GGUF", 4) == 0);
			/* stored members are read in place, others kept */
			CHECK(src.parent == (gzip || (zip && !store) ? NULL :
					     &ar->src));
			qa_source_close(&src);
		}
		snprintf(path, sizeof(path), "%s/model/link",
			 qa_archive_root(ar));
		CHECK(afs->stat(afs, path, &kind, &size, &en) == QA_OK &&
		      kind == QA_NODE_OTHER);
		CHECK(afs->open(afs, path, &src) == QA_E_IO);
		snprintf(path, sizeof(path), "%s/../escape.json",
			 qa_archive_root(ar));
		CHECK(afs->stat(afs, path, &kind, &size, &en) == QA_OK &&
		      kind == QA_NODE_MISSING);
		qa_archive_release(ar);
		free(arc);
	}
	th_case = NULL;
	free(gg);
	free(st);
}

/* The finding of code whose message holds needle, or NULL. */
static const struct ar_finding *
finding_with(const struct qa_archive *ar, unsigned code, const char *needle)
{
	size_t i;

	for (i = 0; i < ar->nf; i++)
		if (ar->f[i].code == code && strstr(ar->f[i].message, needle))
			return &ar->f[i];
	return NULL;
}

static struct qa_archive *
open_mem(const char *name, unsigned char *arc, size_t narc,
	 struct qa_memfs *mfs)
{
	struct qa_archive *ar = NULL;
	char err[512];

	qa_memfs_init(mfs);
	qa_memfs_add(mfs, name, arc, narc);
	if (!CHECK(qa_archive_open(qa_memfs_fs(mfs), name, &ar, err,
				   sizeof(err)) == QA_OK))
		printf("  %s\n", err);
	return ar;
}

/*
 * NeMo layouts (NVIDIA/NeMo docs/source/checkpoints/intro.rst: one
 * model_weights.ckpt, one per model-parallel rank folder, or a sharded
 * model_weights/ folder) and archives inside archives.
 */
static void
nemo_and_nested(void)
{
	static const char config[] =
		"# NeMo\n"
		"target: nemo.collections.nlp.models.language_modeling."
		"megatron_gpt_model.MegatronGPTModel\n"
		"tensor_model_parallel_size: 2\n"
		"pipeline_model_parallel_size: 1\n"
		"optim:\n  target: not.this\n";
	static const char ckpt[] = "PK\003\004 not read here";
	struct qa_memfs mfs;
	struct qa_archive *ar;
	struct qa_source src;
	unsigned char *arc;
	size_t narc;
	char path[256];

	{
		const struct entry e[] = {
			{ "./model_config.yaml", config, sizeof(config) - 1,
			  AE_IFREG, NULL },
			{ "./mp_rank_00/model_weights.ckpt", ckpt,
			  sizeof(ckpt) - 1, AE_IFREG, NULL },
			{ "./mp_rank_01/model_weights.ckpt", ckpt,
			  sizeof(ckpt) - 1, AE_IFREG, NULL },
			{ "./extra/inner.tar.gz", ckpt, 4, AE_IFREG, NULL },
		};

		th_case = "nemo, tensor-parallel";
		arc = write_archive(false, false, e, 4, &narc, false);
		ar = open_mem("tp.nemo", arc, narc, &mfs);
		if (ar) {
			CHECK_STR(ar->format, "nemo");
			CHECK(finding_with(ar, QA1509, "split into 2 "
					   "model-parallel files "
					   "('mp_rank_00/model_weights.ckpt'"));
			CHECK(finding_with(ar, QA1509, "tensor_model_parallel_"
					   "size 2, pipeline_model_parallel_"
					   "size 1"));
			CHECKF(ar->nemo && strstr(ar->nemo, "NeMo checkpoint "
			       "nemo.collections.nlp.models.language_modeling."
			       "megatron_gpt_model.MegatronGPTModel "
			       "(model_config.yaml)"), "note %s",
			       ar->nemo ? ar->nemo : "(none)");
			/* the inner archive: named, and not opened */
			CHECK(finding_with(ar, QA1509, "'extra/inner.tar.gz' is "
					   "not inspected: it is an archive "
					   "inside the archive"));
			snprintf(path, sizeof(path), "%s/extra/inner.tar.gz",
				 qa_archive_root(ar));
			CHECK(qa_archive_fs(ar)->open(qa_archive_fs(ar), path,
						       &src) == QA_E_IO);
			qa_archive_release(ar);
		}
		free(arc);
	}
	{
		const struct entry e[] = {
			{ "model_config.yaml", config, sizeof(config) - 1,
			  AE_IFREG, NULL },
			{ "model_weights/__0_0.distcp", ckpt, 8, AE_IFREG,
			  NULL },
			{ "model_weights/metadata.json", "{}", 2, AE_IFREG,
			  NULL },
		};

		th_case = "nemo, distributed";
		arc = write_archive(false, true, e, 3, &narc, false);
		ar = open_mem("d.nemo", arc, narc, &mfs);
		if (ar) {
			CHECK(finding_with(ar, QA1509, "Megatron-Core "
					   "distributed checkpoint "
					   "(model_weights/, 2 files)"));
			qa_archive_release(ar);
		}
		free(arc);
	}
	{
		const struct entry e[] = {
			{ "model_config.yaml", config, sizeof(config) - 1,
			  AE_IFREG, NULL },
			{ "model_weights.ckpt", ckpt, sizeof(ckpt) - 1,
			  AE_IFREG, NULL },
		};

		th_case = "nemo, one checkpoint";
		arc = write_archive(false, false, e, 2, &narc, false);
		ar = open_mem("m.nemo", arc, narc, &mfs);
		if (ar) {
			CHECK_EQ(ar->nf, 0);
			CHECKF(ar->nemo && strstr(ar->nemo, "weights "
			       "model_weights.ckpt"), "note %s",
			       ar->nemo ? ar->nemo : "(none)");
			qa_archive_release(ar);
		}
		free(arc);
	}
	{
		/* "tp_rank_pp_rank_0" has no TP number: not a rank folder */
		const struct entry e[] = {
			{ "model_config.yaml", config, sizeof(config) - 1,
			  AE_IFREG, NULL },
			{ "tp_rank_pp_rank_0/model_weights.ckpt", ckpt, 4,
			  AE_IFREG, NULL },
			{ "tp_rank_00_pp_rank_000/model_weights.ckpt", ckpt, 4,
			  AE_IFREG, NULL },
			{ "tp_rank_01_pp_rank_000/model_weights.ckpt", ckpt, 4,
			  AE_IFREG, NULL },
			{ "tp_rank_02_pp_rank_/model_weights.ckpt", ckpt, 4,
			  AE_IFREG, NULL },
		};

		th_case = "nemo, tp and pp ranks";
		arc = write_archive(false, false, e, 5, &narc, false);
		ar = open_mem("r.nemo", arc, narc, &mfs);
		if (ar) {
			CHECK(finding_with(ar, QA1509, "split into 2 "
					   "model-parallel files "
					   "('tp_rank_00_pp_rank_000/"
					   "model_weights.ckpt'"));
			qa_archive_release(ar);
		}
		free(arc);
	}
	{
		/* a zip cut short loses its central directory: a finding at
		 * the offset where the file ends, not "no archive" */
		const struct entry e[] = {
			{ "config.json", config, sizeof(config) - 1, AE_IFREG,
			  NULL },
		};
		const struct ar_finding *f;

		th_case = "truncated zip";
		arc = write_archive(true, false, e, 1, &narc, true);
		ar = open_mem("cut.zip", arc, narc - 30, &mfs);
		if (ar) {
			f = finding_with(ar, QA1501, "without an end of central "
					 "directory record");
			if (CHECK(f != NULL))
				CHECK_EQ(f->offset, (int64_t)(narc - 30));
			CHECK_EQ(ar->n, 0);
			qa_archive_release(ar);
		}
		free(arc);
	}
	th_case = NULL;
}

int
main(void)
{
	const char *dir = getenv("QA_FIXTURES");

	if (!dir) {
		printf("QA_FIXTURES not set\n");
		return 1;
	}
	sources();
	keeper_gguf(dir, "gguf/vocab-5000.gguf");
	keeper_gguf(dir, "gguf/vocab-5000-be.gguf");
	keeper_gguf(dir, "gguf/valid-llama-q8_0.gguf");
	keeper_gguf(dir, "gguf/nested-array.gguf");
	keeper_gguf(dir, "rules/tmpl-huge.gguf");
	keeper_other();
	names();
	links();
	whole(dir);
	nemo_and_nested();
	return th_done("archive");
}
