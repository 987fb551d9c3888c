/* SPDX-License-Identifier: MIT */
/*
 * The one pattern matcher of quantization configs (src/analysis/claims.c
 * qa_pattern_match), at the corners where the three matchers it replaced
 * disagreed: regexes anchored at the start only (Python re.match), '$',
 * Python shorthands, globs whose '*' crosses dots and that name a parent
 * module, exact names that do not cover longer names, prefixes that are
 * not dot-bounded, class names matched by role, and regexes POSIX cannot
 * express (unknown, never "no match").
 *
 * Every expected value for REGEX and GLOB rows was computed with Python
 * itself, the semantics the engines use (compressed-tensors
 * utils/match.py and vLLM quantization/utils/gptq_utils.py call re.match;
 * gpt-oss modules_to_not_convert is matched with fnmatch over the module
 * and its parents):
 *
 *   re.match(pattern, name) is not None
 *   any(fnmatch.fnmatchcase(".".join(parts[:i]), glob) for i ...)
 */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "harness.h"

static const char *const names[] = {
	"model.layers.0.self_attn.q_proj",
	"model.layers.10.mlp.gate",
	"model.layers.10.mlp.gate_proj",
	"lm_head",
	"model.embed_tokens",
	"mtp.layers.0.mlp.down_proj",
	"model.layers.1.mlp.experts.3.up_proj",
	"model.visual.blocks.0.attn.qkv",
	"model.layers.3.linear_attn.in_proj_qkvz",
};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

/* Role of each name above, for class-name targets. */
static const enum qa_role roles[N_NAMES] = {
	QA_ROLE_ATTN_Q, QA_ROLE_ROUTER, QA_ROLE_FFN_GATE, QA_ROLE_LM_HEAD,
	QA_ROLE_EMBED, QA_ROLE_FFN_DOWN, QA_ROLE_EXPERT_UP, QA_ROLE_VISION,
	QA_ROLE_GDN_QKV,
};

static const struct row {
	enum qa_pattern_kind kind;
	const char *text;
	signed char want[N_NAMES];
} rows[] = {
	/* re.match: '$' ends at "gate", so gate_proj is not the router */
	{ QA_PAT_REGEX, ".*mlp.gate$", { 0, 1, 0, 0, 0, 0, 0, 0, 0 } },
	/* anchored at the start: a bare word is not a substring search */
	{ QA_PAT_REGEX, "self_attn", { 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ QA_PAT_REGEX, ".*self_attn.*", { 1, 0, 0, 0, 0, 0, 0, 0, 0 } },
	/* \d translated to POSIX */
	{ QA_PAT_REGEX, "model\\.layers\\.\\d+\\.mlp\\.experts\\.\\d+\\..*",
	  { 0, 0, 0, 0, 0, 0, 1, 0, 0 } },
	{ QA_PAT_REGEX, "^mtp.*", { 0, 0, 0, 0, 0, 1, 0, 0, 0 } },
	{ QA_PAT_REGEX, ".*visual.*", { 0, 0, 0, 0, 0, 0, 0, 1, 0 } },
	/* not anchored at the end: layer 1's children, not layer 10's */
	{ QA_PAT_REGEX, "model.layers.1\\.", { 0, 0, 0, 0, 0, 0, 1, 0, 0 } },
	{ QA_PAT_REGEX, "lm_head", { 0, 0, 0, 1, 0, 0, 0, 0, 0 } },
	{ QA_PAT_REGEX, ".*(gate|up)_proj", { 0, 0, 1, 0, 0, 0, 1, 0, 0 } },
	{ QA_PAT_REGEX, ".*linear_attn.*", { 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
	/* a lookahead POSIX cannot express: unknown for every name */
	{ QA_PAT_REGEX, "(?!.*mlp).*proj",
	  { -1, -1, -1, -1, -1, -1, -1, -1, -1 } },
	/* fnmatch on the module or a parent */
	{ QA_PAT_GLOB, "model.layers.*.self_attn",
	  { 1, 0, 0, 0, 0, 0, 0, 0, 0 } },
	/* '*' crosses dots */
	{ QA_PAT_GLOB, "model.*.q_proj", { 1, 0, 0, 0, 0, 0, 0, 0, 0 } },
	/* a glob for the router does not cover gate_proj */
	{ QA_PAT_GLOB, "model.layers.*.mlp.gate",
	  { 0, 1, 0, 0, 0, 0, 0, 0, 0 } },
	{ QA_PAT_GLOB, "*.experts.*", { 0, 0, 0, 0, 0, 0, 1, 0, 0 } },
	{ QA_PAT_GLOB, "lm_head*", { 0, 0, 0, 1, 0, 0, 0, 0, 0 } },
	{ QA_PAT_GLOB, "model.layers.1?.*", { 0, 1, 1, 0, 0, 0, 0, 0, 0 } },
	/* exact names are compared whole (== in compressed-tensors and
	 * vLLM): a parent's name does not cover its children here */
	{ QA_PAT_EXACT, "lm_head", { 0, 0, 0, 1, 0, 0, 0, 0, 0 } },
	{ QA_PAT_EXACT, "model.layers.0.self_attn",
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ QA_PAT_EXACT, "model.layers.10.mlp.gate",
	  { 0, 1, 0, 0, 0, 0, 0, 0, 0 } },
	/* class names by role (compressed-tensors _match_class; vLLM's
	 * LinearBase is a Linear): the router and lm_head are Linears */
	{ QA_PAT_EXACT, "Linear", { 1, 1, 1, 1, 0, 1, 1, -1, 1 } },
	{ QA_PAT_EXACT, "Embedding", { 0, 0, 0, 0, 1, 0, 0, -1, 0 } },
	/* substrings anywhere; prefixes are not dot-bounded */
	{ QA_PAT_SUBSTRING, "mtp", { 0, 0, 0, 0, 0, 1, 0, 0, 0 } },
	{ QA_PAT_SUBSTRING, "gate", { 0, 1, 1, 0, 0, 0, 0, 0, 0 } },
	{ QA_PAT_PREFIX, "model.layers.1", { 0, 1, 1, 0, 0, 0, 1, 0, 0 } },
	{ QA_PAT_PREFIX, "model.layers.1.", { 0, 0, 0, 0, 0, 0, 1, 0, 0 } },
	/* an empty pattern matches nothing */
	{ QA_PAT_REGEX, "", { 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
};

int
main(void)
{
	size_t r, i;
	char what[160];

	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct qa_quant_pattern p;

		memset(&p, 0, sizeof(p));
		p.text = rows[r].text;
		p.kind = rows[r].kind;
		for (i = 0; i < N_NAMES; i++) {
			snprintf(what, sizeof(what), "pattern '%s' (kind %d) "
				 "on %s", rows[r].text, (int)rows[r].kind,
				 names[i]);
			th_case = what;
			CHECK_EQ(qa_pattern_match(&p, names[i], roles[i]),
				 rows[r].want[i]);
		}
	}
	th_case = NULL;
	return th_done("patterns");
}
