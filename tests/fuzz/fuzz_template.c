/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the chat-template scanner (rules/check_template.c,
 * its entry point qa_check_template.run): the input is the whole text of
 * one template, NULs and invalid UTF-8 included, held by a hand-built
 * inventory as a GGUF's tokenizer.chat_template would be, and scanned
 * directly (no loader in front: every byte reaches the Jinja lexer, the
 * expression parser and the constant folding).
 *
 * Beyond the inventory invariants of fuzz_common.c:
 * - only template rules (QA6001-QA6099) are reported;
 * - the scan is deterministic: a second scan of the same bytes gives the
 *   same findings with the same messages (state left over from an
 *   earlier input, or a read of uninitialized memory, shows as a
 *   difference);
 * - libFuzzer's -timeout catches a scan that is not linear.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "core/inventory.h"
#include "rules/check.h"

static struct qa_inventory *
scan(const char *text, size_t len)
{
	struct qa_inventory *inv = qa_inventory_create("fuzz.gguf");
	struct qa_template *t;

	if (!inv)
		abort();
	t = qa_inv_add_template(inv);
	if (!t)
		abort();
	inv->kind = QA_KIND_GGUF;
	t->label = "tokenizer.chat_template";
	t->text = text;
	t->len = t->full_len = len;
	t->offset = 0;
	t->primary = true;
	inv->chat_template = text;
	qa_check_template.run(inv, NULL);
	return inv;
}

_Noreturn static void
differ(const char *what, unsigned i)
{
	fprintf(stderr, "fuzz: invariant violated on the template: a second "
		"scan differs (%s of finding %u)\n", what, i);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The scanner takes a NUL-terminated text of a stated length (the
	 * loaders keep a NUL after every template). */
	char *text = malloc(size + 1);
	struct qa_inventory *a, *b;
	uint32_t i;

	if (!text)
		abort();
	if (size)
		memcpy(text, data, size);
	text[size] = '\0';
	a = scan(text, size);
	b = scan(text, size);
	qa_fuzz_check_inventory("the template", a);
	for (i = 0; i < a->n_findings; i++) {
		unsigned code = a->findings[i].rule->code;

		if (code < 6001 || code > 6099) {
			fprintf(stderr, "fuzz: invariant violated on the "
				"template: QA%04u is not a template rule\n",
				code);
			abort();
		}
	}
	if (a->n_findings != b->n_findings)
		differ("the count", a->n_findings);
	for (i = 0; i < a->n_findings; i++) {
		if (a->findings[i].rule != b->findings[i].rule)
			differ("the rule", i);
		if (strcmp(a->findings[i].message, b->findings[i].message))
			differ("the message", i);
	}
	qa_inventory_destroy(a);
	qa_inventory_destroy(b);
	free(text);
	return 0;
}
