/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the manifest reader of `verify` (src/integrity/manifest.c).
 * A manifest comes with a download as often as the model does, so it is
 * hostile input too: whatever it holds must parse or be refused, never
 * crash, and a manifest that parses must keep the invariants verify
 * relies on (every tensor names a file of its model; every path is a
 * relative path inside the model's folder).
 */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrity/manifest.h"

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_manifest: invariant violated: %s\n", what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qa_manifest m;
	char err[512];
	size_t i;
	uint32_t k;
	int rc;

	rc = qa_manifest_parse((const char *)data, size, "fuzz.json", &m, err,
			       sizeof(err));
	if (rc != QA_OK) {
		if (!err[0] || memchr(err, '\0', sizeof(err)) == NULL)
			fail("a refusal without a message");
		qa_manifest_free(&m);
		return 0;
	}
	for (i = 0; i < m.n_models; i++) {
		const struct qa_content *c = &m.models[i].c;

		for (k = 0; k < c->n_files; k++) {
			const char *p = c->files[k].path;

			if (!p || !*p || p[0] == '/' || strstr(p, "..") == p ||
			    strstr(p, "/../") || strstr(p, "//"))
				fail("a path outside the model's folder");
		}
		for (k = 0; k < c->n_tensors; k++)
			if (c->tensors[k].file >= c->n_files ||
			    !c->tensors[k].name)
				fail("a tensor without its file or name");
	}
	qa_manifest_free(&m);
	return 0;
}
