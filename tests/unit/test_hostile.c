/* SPDX-License-Identifier: MIT */
/*
 * Hostile input, issue 11 (docs/security.md), at the unit level:
 *
 *   escaping   core/escape.c: what the classifier escapes (C0, DEL, C1,
 *              bidi controls, invalid UTF-8, the halves of "::" and "##")
 *              and each spelling (text, JSON, XML, Markdown) on a string
 *              carrying an OSC 52 clipboard write, a screen clear, a CR,
 *              C1 bytes, bidi overrides and a "\n::error::" command;
 *   caps       core/inventory.c: findings past the per-rule and overall
 *              caps are counted per rule and severity, decide the
 *              verdict, follow overrides, survive a merge, and the first
 *              finding of every rule is always kept; a rule disabled
 *              before loading is not counted at all;
 *   limit      an inventory at its arena limit gives QA1901 and the rest
 *              of what was read, not "out of memory" (exit 4);
 *   confine    core/confine.c: links out of the folder are QA_NODE_OUTSIDE
 *              to stat and list and refused by open; links inside, Hugging
 *              Face cache snapshots and cache blobs are followed;
 *   not read   what an open found a file to be, as a finding: QA1411 for
 *              a link out, QA1412 for a file that may not be read.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/confine.h"
#include "core/escape.h"
#include "formats/input.h"

/* What f wrote into a memory stream, NUL-terminated; malloc'd. */
static char *
capture(void (*write)(FILE *f, const char *s), const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	write(f, s);
	fclose(f);
	return buf;
}

static void
xml_text_w(FILE *f, const char *s)
{
	qa_esc_xml(f, s, false);
}

static void
xml_attr_w(FILE *f, const char *s)
{
	qa_esc_xml(f, s, true);
}

/* A general.name as an attacker would write it: OSC 52 (clipboard), a
 * screen clear, a carriage return, C1 CSI and NEL, a right-to-left
 * override and isolate, a GitHub workflow command after a line feed and
 * a legacy one in the middle, a DEL and a lone invalid byte. */
static const char hostile[] =
	"ok\033]52;c;ZXZpbA==\007"
	"\033[2J\rX"
	"\xc2\x9b" "31m\xc2\x85"
	"\xe2\x80\xae" "txt.exe\xe2\x81\xa6" "b\xe2\x81\xa9"
	"\n::error::pwned\n"
	"  ::add-mask::x ##[error]y ##vso[task.setvariable]"
	"\x7f\xff" "\xc3\xa9";

static bool
has_raw_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

/* No line of s starts with "::" once leading blanks are trimmed (what
 * GitHub's runner does), and no "##" appears at all. */
static bool
ci_safe(const char *s)
{
	const char *line = s;

	if (strstr(s, "##"))
		return false;
	while (line && *line) {
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (p[0] == ':' && p[1] == ':')
			return false;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return true;
}

static void
test_classifier(void)
{
	struct qa_esc_char c;

	th_case = "classifier";
	qa_esc_next("\033", &c);
	CHECK(c.kind == QA_ESC_CONTROL && c.cp == 0x1b && c.len == 1);
	qa_esc_next("\x7f", &c);
	CHECK(c.kind == QA_ESC_CONTROL);
	qa_esc_next("\xc2\x9b", &c);	/* U+009B CSI */
	CHECK(c.kind == QA_ESC_UNICODE && c.cp == 0x9b && c.len == 2);
	qa_esc_next("\xc2\xa0", &c);	/* U+00A0 no-break space: kept */
	CHECK(c.kind == QA_ESC_KEEP && c.len == 2);
	qa_esc_next("\xe2\x80\xae", &c);	/* U+202E RLO */
	CHECK(c.kind == QA_ESC_UNICODE && c.cp == 0x202e && c.len == 3);
	qa_esc_next("\xe2\x81\xa9", &c);	/* U+2069 PDI */
	CHECK(c.kind == QA_ESC_UNICODE && c.cp == 0x2069);
	qa_esc_next("\xe2\x80\xa8", &c);	/* U+2028 line separator */
	CHECK(c.kind == QA_ESC_UNICODE);
	qa_esc_next("\xe2\x80\xa6", &c);	/* U+2026 ellipsis: kept */
	CHECK(c.kind == QA_ESC_KEEP);
	qa_esc_next("\xff", &c);
	CHECK(c.kind == QA_ESC_INVALID && c.cp == 0xff && c.len == 1);
	qa_esc_next("\xc0\xaf", &c);	/* overlong '/' */
	CHECK(c.kind == QA_ESC_INVALID && c.len == 1);
	qa_esc_next("::x", &c);
	CHECK(c.kind == QA_ESC_MARKER);
	qa_esc_next(":x", &c);
	CHECK(c.kind == QA_ESC_KEEP);
	qa_esc_next("##", &c);
	CHECK(c.kind == QA_ESC_MARKER);
	qa_esc_next("#[", &c);
	CHECK(c.kind == QA_ESC_KEEP);
	CHECK(qa_esc_clean("blk.0.attn_q.weight \xc3\xa9 a:b #1"));
	CHECK(!qa_esc_clean("a::b"));
	CHECK(!qa_esc_clean(hostile));
	CHECK(qa_esc_clean(NULL));
	th_case = NULL;
}

static void
test_spellings(void)
{
	static const char want_text[] =
		"ok\\x1b]52;c;ZXZpbA==\\x07"
		"\\x1b[2J\\x0dX"
		"\\u009b31m\\u0085"
		"\\u202etxt.exe\\u2066b\\u2069"
		"\\x0a\\x3a:error\\x3a:pwned\\x0a"
		"  \\x3a:add-mask\\x3a:x \\x23#[error]y "
		"\\x23#vso[task.setvariable]"
		"\\x7f\\xff\xc3\xa9";
	char *t, *j, *x, *a, *m;

	th_case = "spellings";
	t = qa_esc_text_dup(hostile);
	CHECK_STR(t, want_text);
	CHECK(t && !has_raw_control(t) && ci_safe(t));
	CHECK(t && !strstr(t, "\xc2\x9b") && !strstr(t, "\xe2\x80\xae"));
	j = capture(qa_esc_text, hostile);
	CHECK_STR(j, t);
	free(j);
	free(t);

	j = capture(qa_esc_json, hostile);
	CHECK(j && !has_raw_control(j) && ci_safe(j));
	CHECK(j && strstr(j, "ok\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\\rX"));
	CHECK(j && strstr(j, "\\u009b31m\\u0085\\u202etxt.exe\\u2066b\\u2069"));
	CHECK(j && strstr(j, "\\n\\u003a:error\\u003a:pwned\\n"));
	CHECK(j && strstr(j, "\\u0023#[error]y"));
	CHECK(j && strstr(j, "\\u007f\xef\xbf\xbd\xc3\xa9"));
	free(j);

	x = capture(xml_text_w, hostile);
	CHECK(x && !has_raw_control(x) && ci_safe(x));
	CHECK(x && strstr(x, "&#10;&#58;:error&#58;:pwned&#10;"));
	CHECK(x && strstr(x, "&#13;X&#x9b;31m&#x85;&#x202e;txt.exe"));
	CHECK(x && strstr(x, "&#35;#[error]y"));
	/* controls XML 1.0 forbids (ESC, BEL, DEL is allowed but is a
	 * control: FFFD) */
	CHECK(x && strncmp(x, "ok\xef\xbf\xbd]52", 7) == 0);
	free(x);
	a = capture(xml_attr_w, "a\"b'c<d>&e\tf");
	CHECK_STR(a, "a&quot;b&apos;c&lt;d&gt;&amp;e&#9;f");
	free(a);

	m = capture(qa_esc_markdown, hostile);
	CHECK(m && !has_raw_control(m) && ci_safe(m));
	CHECK(m && strstr(m, "\\\\x1b\\[2J"));
	free(m);
	m = capture(qa_esc_markdown, "# [x](http://e) <b> a|b & `c`");
	CHECK_STR(m, "\\# \\[x\\](http://e) \\<b\\> a\\|b &amp; \\`c\\`");
	free(m);
	th_case = NULL;
}

/* ---- caps --------------------------------------------------------------- */

static struct qa_inventory *
flood(const struct qa_overrides *ov, unsigned n_bools)
{
	struct qa_inventory *inv = qa_inventory_create("flood.gguf");
	unsigned i;

	inv->overrides = ov;
	for (i = 0; i < n_bools; i++)
		qa_inv_finding(inv, QA1010, "flood.gguf", 100 + i, NULL,
			       "key 'x': bool byte is 2");
	qa_inv_finding(inv, QA6001, "flood.gguf", 50, NULL, "__class__");
	qa_inv_finding(inv, QA1028, "flood.gguf", 60, "t", "past EOF");
	return inv;
}

static const struct qa_rule_tally *
tally(const struct qa_inventory *inv, unsigned code)
{
	uint32_t i;

	for (i = 0; i < inv->n_tally; i++)
		if (inv->tally[i].rule->code == code)
			return &inv->tally[i];
	return NULL;
}

static void
test_caps(void)
{
	struct qa_overrides ov;
	struct qa_inventory *inv;
	uint64_t by[QA_SEV_NONE];
	char text[1024], err[256];
	unsigned r;

	th_case = "per-rule cap";
	inv = flood(NULL, 10000);
	CHECK_EQ(th_count_code(inv, 1010), QA_FINDINGS_PER_RULE);
	CHECK_EQ(th_count_code(inv, 6001), 1);
	CHECK_EQ(th_count_code(inv, 1028), 1);
	CHECK_EQ(qa_inventory_dropped(inv, by), 10000 - QA_FINDINGS_PER_RULE);
	CHECK_EQ(by[QA_SEV_WARNING], 10000 - QA_FINDINGS_PER_RULE);
	CHECK_EQ(by[QA_SEV_ERROR], 0);
	CHECK_STR(qa_verdict(inv, QA_SEV_ERROR), "fail");
	qa_inventory_dropped_text(inv, text, sizeof(text));
	CHECK(strstr(text, "9000 more findings were found but not listed "
		      "(9000 warnings;") != NULL);
	CHECK(strstr(text, "QA1010 gguf-bad-bool 9000 warnings") != NULL);
	qa_inventory_group_findings(inv);
	CHECK_EQ(th_count_code(inv, 1010), 1);
	CHECK_EQ(qa_inventory_dropped(inv, NULL), 9000);
	CHECK_STR(qa_verdict(inv, QA_SEV_ERROR), "fail");
	qa_inventory_destroy(inv);

	/* --disable of the flooding rule, known before anything is found
	 * (the pipeline sets inv->overrides before loading): the rest is
	 * stored in full, nothing of the disabled rule is counted. */
	th_case = "disabled before";
	memset(&ov, 0, sizeof(ov));
	CHECK(qa_overrides_set(&ov, "QA1010", QA_SEV_NONE, NULL, 0, err,
			       sizeof(err)) == 0);
	inv = flood(&ov, 20000);
	CHECK_EQ(th_count_code(inv, 1010), 0);
	CHECK_EQ(qa_inventory_dropped(inv, NULL), 0);
	CHECK_EQ(inv->n_findings, 2);
	CHECK_STR(qa_verdict(inv, QA_SEV_ERROR), "fail");
	qa_inventory_destroy(inv);

	/* Disabled afterwards (overrides applied once the checks ran):
	 * the counted findings go too; the errors still fail. */
	th_case = "disabled after";
	inv = flood(NULL, 20000);
	qa_inventory_apply_overrides(inv, &ov);
	CHECK_EQ(th_count_code(inv, 1010), 0);
	CHECK_EQ(qa_inventory_dropped(inv, NULL), 0);
	CHECK_STR(qa_verdict(inv, QA_SEV_ERROR), "fail");
	qa_inventory_destroy(inv);

	/* A severity override moves the counted findings too. */
	th_case = "severity override";
	memset(&ov, 0, sizeof(ov));
	CHECK(qa_overrides_set(&ov, "QA1010", QA_SEV_ERROR, NULL, 0, err,
			       sizeof(err)) == 0);
	inv = flood(NULL, 3000);
	qa_inventory_apply_overrides(inv, &ov);
	CHECK_EQ(qa_inventory_dropped(inv, by), 2000);
	CHECK_EQ(by[QA_SEV_ERROR], 2000);
	CHECK(tally(inv, 1010) && tally(inv, 1010)->severity == QA_SEV_ERROR);
	qa_inventory_destroy(inv);

	/* The cap over all rules: 12 rules of 1000 findings each; ten fill
	 * 10000, the first finding of the two others (and of every later
	 * rule) is kept all the same, and the verdict sees a dropped error
	 * even if every stored one were gone. */
	th_case = "overall cap";
	inv = qa_inventory_create("many");
	{
		static const unsigned codes[] = {
			1010, 1007, 1014, 1030, 1011, 1102, 1104, 1303, 1305,
			1307, 1402, 7002,
		};
		unsigned k;

		for (k = 0; k < sizeof(codes) / sizeof(codes[0]); k++)
			for (r = 0; r < 1000; r++)
				qa_inv_finding(inv, codes[k], NULL, r, NULL,
					       "finding %u", r);
		CHECK_EQ(inv->n_findings, QA_FINDINGS_MAX + 2);
		qa_inv_finding(inv, QA1028, NULL, 1, NULL, "first error");
		qa_inv_finding(inv, QA1028, NULL, 2, NULL, "second error");
		CHECK_EQ(th_count_code(inv, 1028), 1);
		CHECK_EQ(inv->n_findings, QA_FINDINGS_MAX + 3);
		CHECK_EQ(qa_inventory_dropped(inv, by), 2 * 999 + 1);
		CHECK_EQ(by[QA_SEV_ERROR], 1);
		/* every rule is listed */
		for (k = 0; k < sizeof(codes) / sizeof(codes[0]); k++)
			CHECK(th_count_code(inv, codes[k]) >= 1);
	}
	CHECK_STR(qa_verdict(inv, QA_SEV_ERROR), "fail");
	inv->n_findings = 0;	/* as if only the counts were left */
	CHECK_STR(qa_verdict(inv, QA_SEV_ERROR), "fail");
	CHECK_EQ(qa_inventory_worst(inv), QA_SEV_ERROR);
	qa_inventory_destroy(inv);

	/* A projector's findings, stored and counted, move to the model. */
	th_case = "merge";
	{
		struct qa_inventory *p = flood(NULL, 1500);

		inv = qa_inventory_create("model");
		qa_inventory_merge_findings(inv, p);
		CHECK_EQ(th_count_code(inv, 1010), QA_FINDINGS_PER_RULE);
		CHECK_EQ(qa_inventory_dropped(inv, NULL), 500);
		qa_inventory_destroy(inv);
		qa_inventory_destroy(p);
	}
	th_case = NULL;
}

/* ---- the arena limit --------------------------------------------------- */

static void
put_str(FILE *f, const char *s)
{
	uint64_t n = strlen(s);

	fwrite(&n, 8, 1, f);
	fwrite(s, 1, n, f);
}

static void
test_limit(void)
{
	struct qa_model_refs refs;
	struct qa_inventory *inv;
	char err[512];
	const char *path;
	uint32_t type = 8, n;
	uint64_t v;
	FILE *f;
	int rc;

	th_case = "arena limit";
	path = th_path("limit.gguf");
	f = fopen(path, "wb");
	if (!f) {
		FAIL("cannot write %s", path);
		return;
	}
	/* 200 string keys: more than a 16 KiB arena holds */
	fwrite("GGUF", 1, 4, f);
	n = 3;
	fwrite(&n, 4, 1, f);
	v = 0;
	fwrite(&v, 8, 1, f);
	v = 200;
	fwrite(&v, 8, 1, f);
	for (n = 0; n < 200; n++) {
		char k[32];

		snprintf(k, sizeof(k), "key.%u", n);
		put_str(f, k);
		fwrite(&type, 4, 1, f);
		put_str(f, "a value of some length, to fill the arena up");
	}
	fclose(f);
	rc = qa_input_resolve(qa_fs_default(), path, NULL, &refs, err,
			      sizeof(err));
	CHECKF(rc == QA_OK, "resolve: %s", err);
	if (rc != QA_OK)
		return;
	inv = qa_inventory_create(refs.v[0].display);
	inv->arena.limit = 16 << 10;
	rc = qa_input_load(inv, &refs.v[0], err, sizeof(err));
	CHECKF(rc == QA_OK, "load: %d %s", rc, err);
	CHECK(!inv->out_of_memory);
	CHECK(th_count_code(inv, 1901) >= 1);
	CHECK_STR(qa_verdict(inv, QA_SEV_ERROR), "fail");
	qa_inventory_destroy(inv);
	qa_model_refs_free(&refs);
	th_case = NULL;
}

/* ---- confinement ------------------------------------------------------ */

static void
link_at(const char *target, const char *rel)
{
	if (symlink(target, th_path(rel)) != 0)
		FAIL("symlink %s -> %s: %s", rel, target, strerror(errno));
}

static enum qa_node_kind
kind_of(const struct qa_fs *fs, const char *rel)
{
	enum qa_node_kind k = QA_NODE_MISSING;
	uint64_t size;
	int e;

	fs->stat(fs, th_path(rel), &k, &size, &e);
	return k;
}

static void
test_confine(void)
{
	static const char sha[] = "0123456789abcdef0123456789abcdef01234567";
	struct qa_confined_fs c;
	const struct qa_fs *fs = &c.fs;
	struct qa_dirent *e = NULL;
	struct qa_source src;
	char buf[64], rel[160];
	size_t n = 0, i;
	bool saw_out = false, saw_in = false;

	th_case = "confine";
	th_write_text("secret/key", "SECRETSECRET");
	th_write_text("model/a.gguf", "GGUF");
	link_at("../secret/key", "model/out.safetensors");
	link_at("/etc/passwd", "model/abs.json");
	link_at("a.gguf", "model/in.gguf");
	link_at("nowhere", "model/dangling.gguf");
	/* a Hugging Face cache: a snapshot links to ../../blobs; another
	 * folder links to a blob of the cache (--local-dir downloads) */
	CHECK(mkdir(th_path("hub"), 0755) == 0);
	CHECK(mkdir(th_path("hub/models--o--m"), 0755) == 0);
	CHECK(mkdir(th_path("hub/models--o--m/blobs"), 0755) == 0);
	snprintf(rel, sizeof(rel), "hub/models--o--m/blobs/%s", sha);
	th_write_text(rel, "BLOB");
	CHECK(mkdir(th_path("hub/models--o--m/snapshots"), 0755) == 0);
	CHECK(mkdir(th_path("hub/models--o--m/snapshots/c1"), 0755) == 0);
	snprintf(rel, sizeof(rel), "../../blobs/%s", sha);
	link_at(rel, "hub/models--o--m/snapshots/c1/config.json");
	snprintf(rel, sizeof(rel), "../hub/models--o--m/blobs/%s", sha);
	link_at(rel, "model/local-dir.json");

	CHECK(qa_fs_confined_init(&c, th_path("model")) == QA_OK);
	CHECK(kind_of(fs, "model/out.safetensors") == QA_NODE_OUTSIDE);
	CHECK(kind_of(fs, "model/abs.json") == QA_NODE_OUTSIDE);
	CHECK(kind_of(fs, "model/in.gguf") == QA_NODE_FILE);
	CHECK(kind_of(fs, "model/dangling.gguf") == QA_NODE_MISSING);
	CHECK(kind_of(fs, "model/local-dir.json") == QA_NODE_FILE);
	CHECK(qa_fs_outside(fs, th_path("model/out.safetensors")));
	CHECK(!qa_fs_outside(fs, th_path("model/in.gguf")));
	CHECK(!qa_fs_outside(qa_fs_default(),
			     th_path("model/out.safetensors")));
	/* open refuses without reading: nothing of the key comes back */
	memset(&src, 0, sizeof(src));
	CHECK(fs->open(fs, th_path("model/out.safetensors"), &src) ==
	      QA_E_IO);
	CHECK(src.fd < 0 && src.size == 0 && src.err == ELOOP);
	CHECK(src.not_regular &&
	      strcmp(src.not_regular, QA_LINK_OUT_WHAT) == 0);
	CHECK(fs->open(fs, th_path("model/in.gguf"), &src) == QA_OK);
	CHECK(src.size == 4);
	qa_source_close(&src);
	CHECK(fs->list(fs, th_path("model"), &e, &n) == QA_OK);
	for (i = 0; i < n; i++) {
		if (strcmp(e[i].name, "out.safetensors") == 0)
			saw_out = e[i].kind == QA_NODE_OUTSIDE &&
				  e[i].size == 0;
		if (strcmp(e[i].name, "in.gguf") == 0)
			saw_in = e[i].kind == QA_NODE_FILE;
	}
	CHECK(saw_out && saw_in);
	qa_dirents_free(e, n);
	CHECK(qa_fs_link_text(th_path("model/out.safetensors"), buf,
			      sizeof(buf)));
	CHECK_STR(buf, "../secret/key");
	CHECK(!qa_fs_link_text(th_path("model/a.gguf"), buf, sizeof(buf)));

	/* the cache repo as the root: its snapshot links are inside */
	CHECK(qa_fs_confined_init(&c, th_path("hub/models--o--m")) == QA_OK);
	CHECK(kind_of(fs, "hub/models--o--m/snapshots/c1/config.json") ==
	      QA_NODE_FILE);
	CHECK(qa_fs_hf_blob("/c/hub/models--o--m/blobs/0123456789abcdef0123"
			    "456789abcdef01234567"));
	CHECK(!qa_fs_hf_blob("/c/hub/models--o--m/blobs/key"));
	CHECK(!qa_fs_hf_blob("/home/u/.ssh/blobs/0123456789abcdef0123456789"
			     "abcdef01234567"));
	CHECK(qa_fs_confined_init(&c, th_path("no/such/folder")) != QA_OK);
	th_case = NULL;
}

/*
 * What an open found a file of the model to be, turned into its finding:
 * a link out of the folder is QA1411, a file its permission bits forbid
 * reading QA1412 (once per path, naming the file), anything else is left
 * to the loader's QA1410. On the real file system, a mode-0 file opens
 * as QA_UNREADABLE_WHAT (not checkable as root, who reads it anyway).
 */
static void
test_not_read(void)
{
	struct qa_inventory *inv = qa_inventory_create("m");
	struct qa_source src;
	uint32_t i, n1412 = 0;

	th_case = "not read";
	if (!inv)
		abort();
	CHECK(qa_inv_not_read(inv, "m/model-00002-of-00002.safetensors",
			      QA_UNREADABLE_WHAT));
	CHECK(qa_inv_not_read(inv, "m/model-00002-of-00002.safetensors",
			      QA_UNREADABLE_WHAT));
	CHECK(qa_inv_not_read(inv, "m/config.json", QA_UNREADABLE_WHAT));
	CHECK(!qa_inv_not_read(inv, "m/x.gguf", "a FIFO"));
	CHECK(!qa_inv_not_read(inv, "m/x.gguf", NULL));
	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];

		CHECK_EQ(f->rule->code, 1412);
		CHECK_EQ(f->severity, QA_SEV_ERROR);
		n1412++;
		if (i == 0) {
			CHECK_STR(f->file,
				  "m/model-00002-of-00002.safetensors");
			CHECK_STR(f->message, "model-00002-of-00002.safetensors "
				  "cannot be read: permission denied (its "
				  "permission bits, which came with the "
				  "download, forbid it); it was not read");
		}
	}
	CHECK_EQ(n1412, 2);
	qa_inventory_destroy(inv);

	th_write_text("locked.gguf", "GGUF");
	CHECK(chmod(th_path("locked.gguf"), 0) == 0);
	if (geteuid() != 0) {
		CHECK(qa_source_open(&src, th_path("locked.gguf")) == QA_E_IO);
		CHECK(src.err == EACCES && src.not_regular &&
		      strcmp(src.not_regular, QA_UNREADABLE_WHAT) == 0);
	}
	CHECK(chmod(th_path("locked.gguf"), 0644) == 0);
	th_case = NULL;
}

/* qa_utf8_encode against the bytes RFC 3629's table gives, the largest
 * value of each length, and every value of the planes checked against
 * the decoder: the shortest form, decoded back to itself; past U+10FFFF,
 * U+FFFD (EF BF BD). */
static void
test_utf8_encode(void)
{
	static const struct {
		uint64_t cp;
		const char *bytes;
	} want[] = {
		{ 0x24, "\x24" }, { 0x7f, "\x7f" }, { 0x80, "\xc2\x80" },
		{ 0xa2, "\xc2\xa2" }, { 0x7ff, "\xdf\xbf" },
		{ 0x800, "\xe0\xa0\x80" }, { 0x20ac, "\xe2\x82\xac" },
		{ 0xfffd, "\xef\xbf\xbd" }, { 0xffff, "\xef\xbf\xbf" },
		{ 0x10000, "\xf0\x90\x80\x80" },
		{ 0x1f600, "\xf0\x9f\x98\x80" },
		{ 0x10ffff, "\xf4\x8f\xbf\xbf" },
		{ 0x110000, "\xef\xbf\xbd" },
		{ UINT64_C(0x100000041), "\xef\xbf\xbd" },
	};
	char buf[8];
	size_t i, n;
	uint32_t cp, back;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		n = qa_utf8_encode(buf, want[i].cp);
		buf[n] = '\0';
		CHECKF(n == strlen(want[i].bytes) &&
		       memcmp(buf, want[i].bytes, n) == 0,
		       "U+%llX encodes as RFC 3629 says",
		       (unsigned long long)want[i].cp);
	}
	for (cp = 1; cp <= 0x10ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;	/* surrogates: not characters */
		n = qa_utf8_encode(buf, cp);
		buf[n] = '\0';
		if (qa_utf8_decode(buf, &back) != n || back != cp) {
			CHECKF(false, "U+%X round-trips through the decoder",
			       (unsigned)cp);
			break;
		}
	}
}

int
main(void)
{
	th_scratch("hostile");
	test_classifier();
	test_utf8_encode();
	test_spellings();
	test_caps();
	test_limit();
	test_confine();
	test_not_read();
	return th_done("hostile");
}
