/* SPDX-License-Identifier: MIT */
/*
 * Python regular expressions, as quantization configs write them for
 * re.match (GPTQ dynamic, compressed-tensors "re:", AutoRound
 * extra_config), translated to POSIX extended regular expressions.
 */
#ifndef QA_ANALYSIS_PYREGEX_H
#define QA_ANALYSIS_PYREGEX_H

#include <stdbool.h>
#include <stddef.h>

/* Longest translation kept (Python patterns in configs are short). */
#define QA_PYREGEX_MAX 4096

/*
 * Translates py to an ERE anchored at the start as re.match is (not at
 * the end). Returns false for what ERE cannot express (lookarounds, named
 * groups, inline flags, lazy or possessive quantifiers, \b,
 * backreferences) or when out is too small: callers treat such a pattern
 * as "cannot say", never as a match.
 */
bool qa_py_regex_to_ere(const char *py, char *out, size_t cap);

#endif /* QA_ANALYSIS_PYREGEX_H */
