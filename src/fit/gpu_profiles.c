/* SPDX-License-Identifier: MIT */
/*
 * The GPU profiles of rules/gpus.def and their lookup by name, apart from
 * the --gpus parser (gpuspec.c) and the host probe (gpu_detect.c), which
 * both read them: so neither of those two needs the other's file.
 */
#include "fit/gpuspec.h"

#include <ctype.h>
#include <string.h>

static const struct qa_gpu_profile profiles[] = {
#define QA_GPU(id, al, name, vram, usable, bw, ma, mi, fl, src, asof, note) \
	{ id, al, name, vram, usable, bw, ma, mi, fl, src, asof, note },
#include "rules/gpus.def"
#undef QA_GPU
};

const struct qa_gpu_profile *
qa_gpu_profiles(size_t *n)
{
	*n = sizeof(profiles) / sizeof(profiles[0]);
	return profiles;
}

/* Lower-cases s[0..len) into out without '-', '_', '.' and spaces. */
static void
normalize(const char *s, size_t len, char *out, size_t outlen)
{
	size_t i, k = 0;

	for (i = 0; i < len && k + 1 < outlen; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '-' || c == '_' || c == '.' || c == ' ')
			continue;
		out[k++] = (char)tolower(c);
	}
	out[k] = '\0';
}

const struct qa_gpu_profile *
qa_gpu_profile_find_n(const char *name, size_t len)
{
	char want[64], have[64];
	size_t i;

	if (len >= sizeof(want))
		return NULL;
	normalize(name, len, want, sizeof(want));
	if (!want[0])
		return NULL;
	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		const char *a = profiles[i].aliases;

		normalize(profiles[i].id, strlen(profiles[i].id), have,
			  sizeof(have));
		if (strcmp(have, want) == 0)
			return &profiles[i];
		while (*a) {
			size_t k = strcspn(a, " ");

			normalize(a, k, have, sizeof(have));
			if (k && strcmp(have, want) == 0)
				return &profiles[i];
			a += k;
			while (*a == ' ')
				a++;
		}
	}
	return NULL;
}

const struct qa_gpu_profile *
qa_gpu_profile_find(const char *name)
{
	return qa_gpu_profile_find_n(name, strlen(name));
}

