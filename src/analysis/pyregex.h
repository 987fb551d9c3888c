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
#include <stdint.h>

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

/*
 * Bounds on a pattern before it is compiled (POSIX regcomp builds the
 * whole automaton up front and expands bounded repeats: glibc spends
 * minutes on ((a{0,1000}){0,1000}), a 24-byte pattern). Real
 * quantization configs stay far below every one of them.
 */
#define QA_PYREGEX_MAX_LEN 1024		/* characters of the pattern */
#define QA_PYREGEX_MAX_SIZE 1000	/* positions once {m,n} repeats
					 * are expanded (a{0,1000}: 1000;
					 * (a{1,10}){0,10}: 100) */
#define QA_PYREGEX_MAX_NEST 3		/* quantified groups inside
					 * quantified groups */
#define QA_PYREGEX_MAX_ALT 256		/* alternatives ('|' + 1) */
#define QA_PYREGEX_MAX_DEPTH 32		/* nested groups */
#define QA_PYREGEX_MAX_NULLABLE 4	/* copies of a part that can match
					 * the empty string, nested repeats
					 * multiplied ((.*){0,300}: 300,
					 * five seconds of glibc regcomp;
					 * (a{0,3}){0,333}: seven; the
					 * 20 of ((.{0,5}|)*){1,10}: one;
					 * (a*)*: 2, as fast as a*) */

/* What qa_py_regex_cost measured. */
struct qa_regex_cost {
	size_t len;		/* characters */
	uint64_t size;		/* expanded positions (saturates) */
	unsigned nest;		/* deepest quantifier nesting */
	unsigned alts;		/* alternatives */
	unsigned depth;		/* deepest group nesting */
	uint64_t nullable_copies;	/* copies asked of parts that can
					 * match nothing (1: none) */
};

/*
 * Measures py (Python syntax) in one linear pass, without compiling it.
 * Returns true when it is within every bound above; false with why (a
 * short phrase, "repeats expand to 1000000 positions") set otherwise.
 */
bool qa_py_regex_cost(const char *py, struct qa_regex_cost *cost,
		      char *why, size_t why_cap);

#endif /* QA_ANALYSIS_PYREGEX_H */
