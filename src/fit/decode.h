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

#endif /* QA_SRC_FIT_DECODE_H */
