/* SPDX-License-Identifier: MIT */
/*
 * The decode model shared by the engine fits: a bandwidth bound on how
 * many tokens one sequence gets per second, with and without speculative
 * decoding through the model's MTP head. docs/fit.md "Decode model" has
 * the formulas, the defaults and their error against public
 * measurements.
 */
#ifndef QA_SRC_FIT_DECODE_H
#define QA_SRC_FIT_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QA_MTP_MAX_DRAFT 16

/*
 * Per-position acceptance of MTP draft tokens: a[i] is the probability
 * that the (i+1)-th drafted token is accepted (so also all before it).
 * The defaults by architecture are public measurements (docs/fit.md);
 * returns how many positions were filled (n_draft at most) and the
 * source of the numbers in *source.
 */
size_t qa_mtp_acceptance(const char *arch, int n_draft, double *a,
			 const char **source);

/* Expected tokens a verification pass yields: 1 + sum of a[0..n). */
double qa_mtp_tokens_per_pass(const double *a, size_t n);

/*
 * The share of a MoE layer's experts that a batch of t tokens reads when
 * each token routes to k of n experts independently: 1 - (1 - k/n)^t.
 * Verifying n drafts reads the experts n + 1 tokens chose, which is why
 * MTP gains less, or loses, on MoE models.
 */
double qa_moe_touched_share(uint32_t k, uint32_t n, uint32_t tokens);

/*
 * A separate draft (a llama.cpp -md model, an EAGLE-3 head): no
 * per-architecture measurement to lean on, so an assumed acceptance a
 * per drafted token, stated with every figure made from it.
 */
#define QA_DRAFT_ACCEPTANCE 0.7
#define QA_DRAFT_ACCEPTANCE_SOURCE "assumed a = 0.7 per drafted token " \
	"(a same-family small draft or head; task-dependent), E = " \
	"(1 - a^(n+1)) / (1 - a): Leviathan et al. 2023, arXiv:2211.17192, " \
	"eq. 1"

/* Expected tokens a pass yields with n drafted at QA_DRAFT_ACCEPTANCE. */
double qa_draft_tokens_per_pass(int n_draft);

#endif /* QA_SRC_FIT_DECODE_H */
