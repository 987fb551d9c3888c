/* SPDX-License-Identifier: MIT */
/*
 * The decode model's pieces (src/fit/decode.c) against hand-worked
 * values: expected tokens per verification pass from the published
 * per-position acceptance, and the share of a MoE layer's experts a
 * batch of tokens reads. And the two libm functions the tool carries
 * itself (core/units.h) against libm's: qa_floor equal to floor on every
 * kind of double, qa_powu within 1e-13 (relative) of pow.
 */
#include <math.h>

#include "core/units.h"
#include "fit/decode.h"
#include "harness.h"

static void
libm_stand_ins(void)
{
	static const double xs[] = {
		0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.999999, -2.999999,
		1e-300, -1e-300, 123456.789, -123456.789, 4503599627370495.5,
		-4503599627370495.5, 4503599627370496.0, -4503599627370497.0,
		9007199254740993.0, 1e300, -1e300, INFINITY, -INFINITY,
	};
	size_t i;
	uint64_t e;

	th_case = "libm stand-ins";
	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		double f = qa_floor(xs[i]);

		CHECK(f == floor(xs[i]) && signbit(f) == signbit(floor(xs[i])));
	}
	CHECK(isnan(qa_floor(NAN)));
	for (e = 0; e < 200000; e = e * 3 + 1) {
		double b;

		for (b = 0.0; b <= 1.0; b += 0.0625) {
			double want = pow(b, (double)e), got = qa_powu(b, e);

			CHECK(got == want ||
			      fabs(got - want) <= 1e-13 * fabs(want) ||
			      fabs(got - want) < 1e-300);
		}
	}
}

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
	libm_stand_ins();
	return th_done("decode");
}
