/* SPDX-License-Identifier: MIT */
/*
 * The decode model: acceptance of MTP drafts and the expert reads of a
 * verification batch (decode.h; docs/fit.md "Decode model").
 */
#include "fit/decode.h"

#include <math.h>
#include <string.h>

#include "core/units.h"

/*
 * Measured per-position acceptance, by family. Each row's numbers are a
 * public measurement; past its last position a draft is accepted with
 * the last rate times DECAY per position (acceptance falls with depth in
 * every published table).
 */
static const struct family {
	const char *const archs[6];
	double a[4];
	size_t n;
	const char *source;
} families[] = {
	{ { "qwen35", "qwen35moe", "qwen3next", "qwen3_5_text",
	    "qwen3_next", "qwen3_5_moe_text" },
	  { 0.75, 0.47, 0.27 }, 3,
	  "Qwen3.6-27B under vLLM, per-position acceptance from /metrics "
	  "(r/LocalLLaMA, \"Qwen3.6-27B ... four quant/backend combos\")" },
	{ { "deepseek2", "deepseek_v3", "deepseek32", "glm-dsa", NULL, NULL },
	  { 0.85 }, 1,
	  "DeepSeek-V3 Technical Report (arXiv:2412.19437): the second "
	  "token's acceptance rate 85-90 %" },
};

#define DECAY 0.6
/* No measurement for the family: Qwen's, the best-documented head. */
#define GENERIC 0

size_t
qa_mtp_acceptance(const char *arch, int n_draft, double *a,
		  const char **source)
{
	const struct family *f = &families[GENERIC];
	size_t i, j, n;

	if (n_draft <= 0)
		return 0;
	n = n_draft > QA_MTP_MAX_DRAFT ? QA_MTP_MAX_DRAFT : (size_t)n_draft;
	for (i = 0; arch && i < sizeof(families) / sizeof(families[0]); i++)
		for (j = 0; j < 6 && families[i].archs[j]; j++)
			if (strcmp(arch, families[i].archs[j]) == 0)
				f = &families[i];
	for (i = 0; i < n; i++)
		a[i] = i < f->n ? f->a[i] : a[i - 1] * DECAY;
	if (source)
		*source = f->source;
	return n;
}

double
qa_mtp_tokens_per_pass(const double *a, size_t n)
{
	double t = 1.0;
	size_t i;

	for (i = 0; i < n; i++)
		t += a[i] > 0 ? (a[i] < 1 ? a[i] : 1) : 0;
	return t;
}

double
qa_moe_touched_share(uint32_t k, uint32_t n, uint32_t tokens)
{
	if (n == 0 || k >= n)
		return 1.0;
	return 1.0 - qa_powu(1.0 - (double)k / (double)n, tokens);
}

double
qa_draft_tokens_per_pass(int n_draft)
{
	double a = QA_DRAFT_ACCEPTANCE;

	return (1.0 - pow(a, n_draft + 1)) / (1.0 - a);
}
