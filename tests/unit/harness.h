/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' shared harness (tests/unit/harness.c, linked into every
 * unit test by tests/meson.build).
 *
 * Every assertion counts one check and, when it fails, one failure, and
 * prints "file:line: " (plus the current case, th_case, when one is set),
 * the expression and what was got against what was expected. A test's
 * main() ends with `return th_done("name");`, which prints the totals,
 * removes the scratch folder when nothing failed (it is kept, and named,
 * otherwise) and gives the exit status: 1 on any failure, 77 (meson's
 * "skipped") when th_skip() was called, else 0.
 *
 *   CHECK(cond)                cond is true
 *   CHECKF(cond, fmt, ...)     the same, with a printf-style explanation
 *   CHECK_EQ(got, want)        integers equal (compared as 64-bit values)
 *   CHECK_STR(got, want)       strings equal (both NULL counts as equal)
 *   CHECK_NEAR(got, want, tol) |got - want| < tol
 *   FAIL(fmt, ...)             an unconditional failure
 *
 * Finding codes: CHECK_CODES(inv, keep, what, "QA1001,QA1013") and
 * CHECK_CODE_LIST(inv, what, 1001, 1013) compare the distinct codes of
 * inv's findings (those keep() accepts; keep NULL takes all) with the
 * expected set and print the findings when they differ. The string is
 * sorted ascending, as th_codes() writes it, "-" for none; the list is
 * in any order, a lone 0 for none; what, when not NULL, names the case.
 *
 * Scratch files: th_scratch("tag") makes ${TMPDIR:-/tmp}/qa-tag-XXXXXX;
 * th_path(rel) names a file inside it, th_write()/th_write_text() write
 * one (creating its parent folder).
 */
#ifndef QA_TESTS_UNIT_HARNESS_H
#define QA_TESTS_UNIT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"

#if defined(__GNUC__) || defined(__clang__)
#define TH_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TH_PRINTF(f, a)
#endif

/* ---- bookkeeping ------------------------------------------------------ */

extern int th_checks;		/* assertions evaluated */
extern int th_failures;		/* assertions failed, plus FAIL()s */
extern const char *th_case;	/* the case under test, or NULL/"" */

/* Counts one check; when !ok counts a failure and prints
 * "file:line: [case: ]<fmt ...>". Returns ok. */
bool th_report(bool ok, const char *file, int line, const char *fmt, ...)
	TH_PRINTF(4, 5);
/* th_report(false, ...): a check that failed. */
void th_fail(const char *file, int line, const char *fmt, ...)
	TH_PRINTF(3, 4);

bool th_check(bool ok, const char *file, int line, const char *expr);
bool th_checkf(bool ok, const char *file, int line, const char *expr,
	       const char *fmt, ...) TH_PRINTF(5, 6);
bool th_check_eq(uint64_t got, uint64_t want, bool got_signed,
		 bool want_signed, const char *file, int line,
		 const char *egot, const char *ewant);
bool th_check_str(const char *got, const char *want, const char *file,
		  int line, const char *egot, const char *ewant);
bool th_check_near(double got, double want, double tol, const char *file,
		   int line, const char *egot, const char *ewant);

/* Whether x has a signed type, so CHECK_EQ can print -1 as -1. */
#define TH_SIGNED(x) _Generic((x), signed char: true, short: true, \
	int: true, long: true, long long: true, float: true, double: true, \
	long double: true, default: false)

#define CHECK(cond) th_check((cond) ? true : false, __FILE__, __LINE__, #cond)
#define CHECKF(cond, ...) th_checkf((cond) ? true : false, __FILE__, \
	__LINE__, #cond, __VA_ARGS__)
#define CHECK_EQ(got, want) th_check_eq((uint64_t)(got), (uint64_t)(want), \
	TH_SIGNED(got), TH_SIGNED(want), __FILE__, __LINE__, #got, #want)
#define CHECK_STR(got, want) th_check_str((got), (want), __FILE__, __LINE__, \
	#got, #want)
#define CHECK_NEAR(got, want, tol) th_check_near((got), (want), (tol), \
	__FILE__, __LINE__, #got, #want)
#define FAIL(...) th_fail(__FILE__, __LINE__, __VA_ARGS__)

/* A fixed pseudo-random sequence (xorshift64*, seeded the same in every
 * process), for tests that generate many inputs: the same inputs on
 * every machine and run. */
uint64_t th_rand(void);

/* ---- findings --------------------------------------------------------- */

/* Which codes a comparison looks at; NULL means all. */
typedef bool (*th_code_filter)(unsigned code);

/* The sorted, distinct codes of inv's findings that keep accepts, as
 * "QA1001,QA1013", or "-" when there are none. */
void th_codes(const struct qa_inventory *inv, th_code_filter keep, char *buf,
	      size_t cap);
/* Findings with this code (and, when file is not NULL, in that file). */
unsigned th_count_code(const struct qa_inventory *inv, unsigned code);
unsigned th_count_code_in(const struct qa_inventory *inv, unsigned code,
			  const char *file);
/* The first finding with this code whose message contains substr (any
 * message when substr is NULL), or NULL. */
const struct qa_finding *th_finding(const struct qa_inventory *inv,
				    unsigned code, const char *substr);
/* Prints the findings keep accepts, one a line, to stderr. */
void th_dump_findings(const struct qa_inventory *inv, th_code_filter keep);

bool th_check_codes(const char *file, int line, const char *what,
		    const struct qa_inventory *inv, th_code_filter keep,
		    const char *want);
bool th_check_code_list(const char *file, int line, const char *what,
			const struct qa_inventory *inv, th_code_filter keep,
			const unsigned *want);

#define CHECK_CODES(inv, keep, what, want) \
	th_check_codes(__FILE__, __LINE__, (what), (inv), (keep), (want))
/* The codes as numbers, in any order; a lone 0 means none. */
#define CHECK_CODE_LIST(inv, what, ...) \
	th_check_code_list(__FILE__, __LINE__, (what), (inv), NULL, \
			   (const unsigned[]){ __VA_ARGS__, 0u })

/* qa_input_inspect() of dir/rel (rel alone when dir is NULL); a failure
 * to load is a test failure and gives NULL. */
struct qa_inventory *th_inspect_at(const char *file, int line,
				   const char *dir, const char *rel);
#define th_inspect(dir, rel) th_inspect_at(__FILE__, __LINE__, (dir), (rel))
/* The value of the environment variable when it names something that
 * exists (the corpus folder, say), else NULL. */
const char *th_env_dir(const char *name);

/* ---- scratch folder --------------------------------------------------- */

/* Makes the test's scratch folder, ${TMPDIR:-/tmp}/qa-<tag>-XXXXXX. */
const char *th_scratch(const char *tag);
/* "<scratch>/<rel>" in one of 8 rotating buffers. */
char *th_path(const char *rel);
/* Writes n bytes (or the string) to th_path(rel), creating its parent
 * folder; exits on an I/O error. */
void th_write(const char *rel, const void *p, size_t n);
void th_write_text(const char *rel, const char *s);

/* ---- the end ---------------------------------------------------------- */

/* Says what was skipped; th_done() then exits 77 unless something
 * failed. */
void th_skip(const char *fmt, ...) TH_PRINTF(1, 2);
int th_done(const char *name);

#endif
