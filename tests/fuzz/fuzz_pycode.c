/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the remote-code scanner (formats/pycode.c,
 * qa_py_scan): the input is the whole text of one Python module, NULs,
 * invalid UTF-8, unterminated strings and brackets included.
 *
 * 1. The scanner alone, on a buffer of exactly the input's size (no NUL
 *    after it, so AddressSanitizer sees a read past the end):
 *    - every hit has a kind in the enum, a non-empty name and a why that
 *      are readable to their NUL, an offset inside the text and a line
 *      that is at least 1 and at most 1 + the line ends ('\n', '\r')
 *      before its offset;
 *    - hits come in order of position (offsets and lines never go back);
 *    - the count returned is the number of hits given;
 *    - a second scan gives the same hits (no state left over);
 *    - libFuzzer's -timeout catches a scan that is not linear.
 * 2. The whole pipeline on a model folder whose config.json's auto_map
 *    names the input as modeling_fuzz.py (formats/hf_tree.c): the
 *    inventory invariants, and every reporter's output escaped
 *    (qa_fuzz_pipeline), since the names and lines of hits reach the
 *    findings' messages.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "formats/pycode.h"

#define MAX_KEPT 4096

struct kept {
	enum qa_py_what what;
	unsigned line;
	size_t offset;
	char name[64];
};

struct scan {
	const char *text;
	size_t len;
	size_t n;
	size_t last_offset;
	unsigned last_line;
	size_t counted, ends;	/* line ends in text[0..counted) */
	struct kept *k;		/* the first MAX_KEPT hits */
};

_Noreturn static void bad(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

_Noreturn static void
bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: invariant violated on the module: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void
on_hit(void *ctx, const struct qa_py_hit *h)
{
	struct scan *s = ctx;
	volatile size_t sink = 0;

	if ((unsigned)h->what > QA_PY_FILES)
		bad("a hit of kind %u", (unsigned)h->what);
	if (!h->name || !h->name[0])
		bad("hit %zu has no name", s->n);
	sink += strlen(h->name) + (h->why ? strlen(h->why) : 0);
	sink += strlen(qa_py_what_name(h->what));
	if (h->offset >= s->len && !(h->offset == 0 && s->len == 0))
		bad("hit '%s' at offset %zu, past the text", h->name,
		    h->offset);
	if (s->n && (h->offset < s->last_offset || h->line < s->last_line))
		bad("hit '%s' at offset %zu, before the one before it",
		    h->name, h->offset);
	/* offsets never go back: the line ends are counted once */
	for (; s->counted < h->offset && s->counted < s->len; s->counted++)
		if (s->text[s->counted] == '\n' || s->text[s->counted] == '\r')
			s->ends++;
	if (h->line < 1 || h->line > s->ends + 1)
		bad("hit '%s' on line %u, past the %zu line ends before it",
		    h->name, h->line, s->ends);
	s->last_offset = h->offset;
	s->last_line = h->line;
	if (s->n < MAX_KEPT) {
		struct kept *k = &s->k[s->n];

		k->what = h->what;
		k->line = h->line;
		k->offset = h->offset;
		snprintf(k->name, sizeof(k->name), "%s", h->name);
	}
	s->n++;
	(void)sink;
}

static size_t
scan(const char *text, size_t len, struct scan *s, struct kept *k)
{
	size_t got;

	memset(s, 0, sizeof(*s));
	s->text = text;
	s->len = len;
	s->k = k;
	got = qa_py_scan(text, len, on_hit, s);
	if (got != s->n)
		bad("the scan returns %zu hits and gave %zu", got, s->n);
	return got;
}

static const char config[] =
	"{\"model_type\": \"fuzz\", \"architectures\": [\"FuzzModel\"],"
	" \"auto_map\": {\"AutoModel\": \"modeling_fuzz.FuzzModel\"},"
	" \"num_hidden_layers\": 1, \"hidden_size\": 4}";

static const char tensors[] =
	"{\"model.embed_tokens.weight\":{\"dtype\":\"F32\",\"shape\":[2,2],"
	"\"data_offsets\":[0,16]}}";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kept *a, *b;
	static const void *st;
	static size_t st_size;
	struct scan sa, sb;
	char *text = calloc(size ? size : 1, 1);
	size_t i, n;

	if (!a)
		a = malloc(MAX_KEPT * sizeof(*a));
	if (!b)
		b = malloc(MAX_KEPT * sizeof(*b));
	if (!st)
		st = qa_fuzz_safetensors(tensors, 16, &st_size);
	if (!text || !a || !b)
		abort();
	if (size)
		memcpy(text, data, size);
	n = scan(text, size, &sa, a);
	if (scan(text, size, &sb, b) != n)
		bad("a second scan gives another count than %zu", n);
	for (i = 0; i < n && i < MAX_KEPT; i++)
		if (a[i].what != b[i].what || a[i].line != b[i].line ||
		    a[i].offset != b[i].offset ||
		    strcmp(a[i].name, b[i].name) != 0)
			bad("a second scan differs at hit %zu", i);

	qa_fuzz_reset();
	qa_fuzz_add("config.json", config, sizeof(config) - 1);
	qa_fuzz_add("model.safetensors", st, st_size);
	qa_fuzz_add("modeling_fuzz.py", text, size);
	qa_fuzz_pipeline(NULL);
	free(text);
	return 0;
}
