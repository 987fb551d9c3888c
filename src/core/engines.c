/* SPDX-License-Identifier: MIT */
/*
 * The engine registries of rules/engines.def as tables (see engines.h).
 */
#include "core/engines.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Longest names in engines.def: "llama.cpp" and a 48-byte class name. A
 * longer name does not compile (too long for its array); one of exactly
 * the array's size would lose its NUL, which the look-up below allows
 * for by comparing at most sizeof bytes. */
struct engine_arch {
	char engine[12];
	char name[64];
	uint8_t how;
};

#define QA_ENGINE_ARCH(e, n, how, src, asof) { e, n, how },
#define QA_ARCH_NAME(g, m, c)
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof)
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof)
static const struct engine_arch engine_archs[] = {
#include "rules/engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

#define QA_ENGINE_ARCH(e, n, how, src, asof)
#define QA_ARCH_NAME(g, m, c) { g, m, c },
#define QA_KNOWLEDGE(code, e, a, l, q, lo, hi, g, b, sev, msg, src, asof)
#define QA_ADVISORY(code, e, lo, hi, g, b, sev, msg, src, asof)
const struct qa_arch_name qa_arch_names[] = {
#include "rules/engines.def"
};
#undef QA_ENGINE_ARCH
#undef QA_ARCH_NAME
#undef QA_KNOWLEDGE
#undef QA_ADVISORY

const size_t qa_n_arch_names = sizeof(qa_arch_names) / sizeof(qa_arch_names[0]);

static bool
field_is(const char *field, size_t cap, const char *s)
{
	size_t n = strlen(s);

	return n <= cap && strncmp(field, s, cap) == 0 &&
	       (n == cap || field[n] == '\0');
}

enum qa_arch_how
qa_engine_arch(const char *engine, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(engine_archs) / sizeof(engine_archs[0]); i++) {
		const struct engine_arch *e = &engine_archs[i];

		if (field_is(e->engine, sizeof(e->engine), engine) &&
		    field_is(e->name, sizeof(e->name), name))
			return (enum qa_arch_how)e->how;
	}
	return QA_ARCH_ABSENT;
}

/* rules/spec_targets.def */
static const struct spec_target {
	const char *engine, *method, *name;
} spec_targets[] = {
#define QA_SPEC_TARGET(e, m, n) { e, m, n },
#include "rules/spec_targets.def"
#undef QA_SPEC_TARGET
};

bool
qa_engine_spec_target(const char *engine, const char *method,
		      const char *name)
{
	size_t i;

	if (!name)
		return false;
	for (i = 0; i < sizeof(spec_targets) / sizeof(spec_targets[0]); i++)
		if (strcmp(spec_targets[i].engine, engine) == 0 &&
		    strcmp(spec_targets[i].method, method) == 0 &&
		    strcmp(spec_targets[i].name, name) == 0)
			return true;
	return false;
}
