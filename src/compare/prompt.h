/* SPDX-License-Identifier: MIT */
/*
 * The "prompt" part of `quantaudit diff QUANT.gguf SOURCE_FOLDER`: does
 * the quant prompt the model the way its upstream checkpoint does? The
 * chat template of each (GGUF tokenizer.chat_template; the folder's
 * primary template, as the loaders found it), shown as a line diff when
 * they differ; the BOS, EOS and PAD ids (GGUF tokenizer.ggml.*_token_id;
 * the folder's tokenizer_config.json tokens resolved through its added
 * tokens, else generation_config.json and config.json ids, an EOS list
 * of generation_config.json accepted as a whole); the folder's special
 * tokens against the GGUF vocabulary at the same ids; and
 * general.base_model.* against the folder given.
 *
 * The templates are compared as text, not rendered: two templates that
 * differ only in ways that render the same are reported as drifted
 * (rendered is false in the report, and the finding says "as text").
 */
#ifndef QA_COMPARE_PROMPT_H
#define QA_COMPARE_PROMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/inventory.h"

/* Template diff lines kept (the rest are counted). */
#define QA_PROMPT_MAX_LINES 400
/* Templates longer than this many lines are compared, not diffed. */
#define QA_PROMPT_DIFF_LINES 4000

struct qa_prompt_line {
	char op;		/* ' ' context, '-' quant only, '+' source only */
	const char *text;
};

/* One compared item: bos/eos/pad id, a special token, base_model. */
struct qa_prompt_item {
	const char *name;	/* "bos_token_id", "special token 128009" */
	const char *quant, *source;	/* text; NULL when not stated */
	bool same;
};

struct qa_prompt_finding {
	unsigned code;		/* QA63xx */
	const char *message;
};

struct qa_prompt_diff {
	bool compared;		/* one side GGUF, the other a folder */
	bool quant_is_a;	/* the GGUF is A */
	const char *quant_template;	/* label, or NULL: no template */
	const char *source_template;
	uint64_t quant_template_len, source_template_len;
	bool template_same;
	bool rendered;		/* false: compared as text */
	struct qa_prompt_line *lines;	/* the template's line diff */
	size_t n_lines;
	size_t lines_dropped;	/* beyond QA_PROMPT_MAX_LINES */
	bool diff_too_long;	/* too many lines to diff: only "differs" */
	struct qa_prompt_item *items;
	size_t n_items;
	uint32_t specials_checked;	/* special tokens compared */
	uint32_t specials_unchecked;	/* past the kept GGUF vocabulary */
	struct qa_prompt_finding *findings;
	size_t n_findings;
};

/*
 * Compares the GGUF side of a and b with the folder side, into out
 * (allocated in ar). Leaves out->compared false unless exactly one side
 * is GGUF and the other a Hugging Face folder. QA_OK or QA_E_NOMEM.
 */
int qa_prompt_compare(struct qa_arena *ar, const struct qa_inventory *a,
		      const struct qa_inventory *b,
		      struct qa_prompt_diff *out);

#endif /* QA_COMPARE_PROMPT_H */
