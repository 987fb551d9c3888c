/* SPDX-License-Identifier: MIT */
/*
 * The decode model's pieces (src/fit/decode.c) against hand-worked
 * values: expected tokens per verification pass from the published
 * per-position acceptance, and the share of a MoE layer's experts a
 * batch of tokens reads.
 */
#include "fit/decode.h"
#include "harness.h"

int
main(void)
{
	double a[QA_MTP_MAX_DRAFT];
	const char *src = NULL;
	size_t n;

	/* Qwen3.5/3.6: 0.75, 0.47, 0.27 measured; 1 + 1.49 = 2.49 */
	n = qa_mtp_acceptance("qwen35", 3, a, &src);
	CHECK_EQ(n, 3);
	CHECK_NEAR(qa_mtp_tokens_per_pass(a, n), 2.49, 1e-9);
	CHECK(src != NULL);
	/* past the measured positions each rate is 0.6 of the one before:
	 * 0.27 x 0.6 = 0.162, x 0.6 = 0.0972; 2.49 + 0.2592 = 2.7492 */
	n = qa_mtp_acceptance("qwen35moe", 5, a, NULL);
	CHECK_EQ(n, 5);
	CHECK_NEAR(a[3], 0.162, 1e-9);
	CHECK_NEAR(qa_mtp_tokens_per_pass(a, n), 2.7492, 1e-9);
	/* DeepSeek-V3: one MTP module, 85 % (the report's lower end) */
	n = qa_mtp_acceptance("deepseek2", 1, a, NULL);
	CHECK_NEAR(qa_mtp_tokens_per_pass(a, n), 1.85, 1e-9);
	n = qa_mtp_acceptance("deepseek2", 2, a, NULL);
	CHECK_NEAR(qa_mtp_tokens_per_pass(a, n), 1 + 0.85 + 0.51, 1e-9);
	/* an unknown family gets the Qwen numbers; no drafts, nothing */
	n = qa_mtp_acceptance("glm4moe", 2, a, NULL);
	CHECK_NEAR(qa_mtp_tokens_per_pass(a, n), 2.22, 1e-9);
	CHECK_EQ(qa_mtp_acceptance("qwen35", 0, a, NULL), 0);
	/* experts: 8 of 128 per token; 4 tokens read 1 - (120/128)^4 =
	 * 1 - 0.7724761962890625 of them; one token k/n; all when k = n */
	CHECK_NEAR(qa_moe_touched_share(8, 128, 4), 0.2275238037109375,
		   1e-12);
	CHECK_NEAR(qa_moe_touched_share(8, 128, 1), 0.0625, 1e-12);
	CHECK_NEAR(qa_moe_touched_share(8, 8, 3), 1.0, 1e-12);
	return th_done("decode");
}
