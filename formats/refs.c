/* SPDX-License-Identifier: MIT */
/*
 * Appending to a list of model refs (formats/input.h): one adder for the
 * resolvers of every input kind (formats/input.c, formats/ollama.c), so a
 * ref is always made the same way.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/input.h"

#include <stdlib.h>
#include <string.h>

struct qa_model_ref *
qa_model_refs_add(struct qa_model_refs *refs, enum qa_ref_kind kind,
		  char *path, const char *display)
{
	struct qa_model_ref *v = realloc(refs->v,
					 (refs->n + 1) * sizeof(*refs->v));
	struct qa_model_ref *r;

	if (!v) {
		free(path);
		return NULL;
	}
	refs->v = v;
	r = &v[refs->n];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->path = path;
	r->display = strdup(display ? display : path ? path : "");
	if (!path || !r->display) {
		free(r->path);
		free(r->display);
		return NULL;
	}
	refs->n++;
	return r;
}
