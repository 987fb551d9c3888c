/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the credential scanner (src/core/secrets.c): the input
 * is one text (a metadata value, a model card), NULs and invalid UTF-8
 * included.
 *
 * 1. qa_secret_next over the whole text, on a buffer of exactly its size:
 *    each secret lies inside the text and after the one before it, keeps
 *    at most its own length, has a kind; the walk ends (each step moves
 *    on).
 * 2. Redaction is complete: every secret masked (qa_secret_mask), a
 *    second walk over the masked text, and a search from every offset
 *    of it (texts up to 4 KiB), find nothing that masking would change
 *    again (no credential bytes survive a report's redaction),
 *    masking changed only bytes inside secrets, past their kept prefix,
 *    and the bytes qa_secret_keeps_byte names are kept.
 * 3. The findings never repeat a secret: qa_secrets_in_text on an
 *    inventory gives only QA6201, at most 16, each at the offset of a
 *    secret, and no finding's message holds the bytes of a secret past its
 *    kept prefix (checked for secrets of 8 or more such bytes).
 * 4. The same text as a chat template audited in place
 *    (qa_secrets_audit): afterwards no secret is found in it that
 *    masking would change.
 * Plus the inventory invariants of fuzz_common.c; libFuzzer's -timeout
 * catches a scan that is not linear.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "core/inventory.h"
#include "core/secrets.h"

_Noreturn static void bad(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

_Noreturn static void
bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: invariant violated on the text: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Whether masking sec in s would change a byte. */
static bool
would_change(const char *s, const struct qa_secret *sec)
{
	size_t i;

	for (i = sec->keep; i < sec->len; i++) {
		char c = s[sec->at + i];

		if (!qa_secret_keeps_byte(c))
			return true;
	}
	return false;
}

/* The secrets of s (n bytes), checked; their count. */
static size_t
walk(const char *s, size_t n, struct qa_secret *out, size_t cap)
{
	struct qa_secret sec;
	size_t from = 0, k = 0, prev_end = 0;

	while (qa_secret_next(s, n, from, &sec)) {
		if (sec.at < from || sec.len == 0 || sec.at > n ||
		    sec.len > n - sec.at)
			bad("a secret at %zu of %zu bytes, outside the text "
			    "(%zu bytes, searched from %zu)", sec.at, sec.len,
			    n, from);
		if (sec.keep > sec.len)
			bad("a secret of %zu bytes keeps %zu", sec.len,
			    sec.keep);
		if (!sec.kind || !sec.kind[0])
			bad("a secret at %zu has no kind", sec.at);
		if (k && sec.at < prev_end)
			bad("a secret at %zu overlaps the one before it", sec.at);
		prev_end = sec.at + sec.len;
		if (k < cap)
			out[k] = sec;
		k++;
		from = sec.at + sec.len;
	}
	return k;
}

/* Whether the secret's bytes past its prefix (at least 8 of them, all
 * letters, digits, '_' or '-', which every report prints as they are)
 * occur in hay. */
static bool
leaks(const char *text, const struct qa_secret *sec, const char *hay)
{
	size_t i, tail = sec->len - sec->keep;
	char buf[256];

	if (tail < 8 || tail >= sizeof(buf))
		return false;
	for (i = 0; i < tail; i++) {
		char c = text[sec->at + sec->keep + i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
		buf[i] = c;
	}
	buf[tail] = '\0';
	return strstr(hay, buf) != NULL;
}

#define CAP 1024
/* Texts up to this long are searched from every offset (quadratic). */
#define MAX_EVERY 4096

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct qa_secret secs[CAP], again[CAP];
	char *text = calloc(size ? size : 1, 1);
	char *masked = malloc(size + 1), *tpl;
	struct qa_inventory *inv;
	struct qa_template *t;
	size_t n, m, i, j;
	uint32_t f;

	if (!text || !masked)
		abort();
	if (size)
		memcpy(text, data, size);
	n = walk(text, size, secs, CAP);

	/* 2. redaction is complete */
	if (size)
		memcpy(masked, text, size);
	masked[size] = '\0';
	for (i = 0; i < n && i < CAP; i++)
		qa_secret_mask(masked, &secs[i]);
	for (i = j = 0; i < size; i++) {
		if (masked[i] == text[i])
			continue;
		while (j < n && j < CAP && secs[j].at + secs[j].len <= i)
			j++;
		if (j >= n || j >= CAP || i < secs[j].at + secs[j].keep ||
		    qa_secret_keeps_byte(text[i]) || masked[i] != '*')
			bad("masking changed byte %zu, outside a secret's "
			    "masked part", i);
	}
	if (n <= CAP) {
		m = walk(masked, size, again, CAP);
		for (i = 0; i < m && i < CAP; i++)
			if (would_change(masked, &again[i]))
				bad("after redaction a %s is still found at %zu "
				    "(%zu bytes)", again[i].kind, again[i].at,
				    again[i].len);
		/* nor from any other starting point: a secret the walk
		 * stepped over (inside the span of a match that starts
		 * later than where it was found) would show here */
		for (i = 0; size <= MAX_EVERY && i < size; i++) {
			struct qa_secret sec;

			if (qa_secret_next(masked, size, i, &sec) &&
			    would_change(masked, &sec))
				bad("after redaction a %s is found at %zu (%zu "
				    "bytes) searching from %zu", sec.kind,
				    sec.at, sec.len, i);
		}
	}

	/* 3. findings never repeat a secret */
	inv = qa_inventory_create("fuzz/README.md");
	if (!inv)
		abort();
	qa_secrets_in_text(inv, "fuzz/README.md", text, size);
	qa_fuzz_check_inventory("the text", inv);
	if (inv->n_findings > 16 || inv->n_findings > n)
		bad("%u findings for %zu secrets", inv->n_findings, n);
	for (f = 0; f < inv->n_findings; f++) {
		const struct qa_finding *fi = &inv->findings[f];

		if (fi->rule->code != 6201)
			bad("finding QA%04u", fi->rule->code);
		if (f < CAP && (fi->offset < 0 ||
				(size_t)fi->offset != secs[f].at))
			bad("finding %u at offset %lld, the secret at %zu", f,
			    (long long)fi->offset, secs[f].at);
		for (i = 0; i < n && i < CAP; i++)
			if (leaks(text, &secs[i], fi->message))
				bad("finding %u repeats the secret at %zu", f,
				    secs[i].at);
	}
	qa_inventory_destroy(inv);

	/* 4. a chat template audited in place */
	inv = qa_inventory_create("fuzz.gguf");
	tpl = malloc(size + 1);
	if (!inv || !tpl)
		abort();
	if (size)
		memcpy(tpl, text, size);
	tpl[size] = '\0';
	t = qa_inv_add_template(inv);
	if (!t)
		abort();
	inv->kind = QA_KIND_GGUF;
	t->label = "tokenizer.chat_template";
	t->text = tpl;
	t->len = t->full_len = size;
	t->primary = true;
	qa_secrets_audit(inv);
	qa_fuzz_check_inventory("the template", inv);
	m = walk(tpl, size, again, CAP);
	for (i = 0; i < m && i < CAP && n <= CAP; i++)
		if (would_change(tpl, &again[i]))
			bad("the audited template still holds a %s at %zu",
			    again[i].kind, again[i].at);
	qa_inventory_destroy(inv);
	free(tpl);
	free(masked);
	free(text);
	return 0;
}
