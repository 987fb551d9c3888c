/* SPDX-License-Identifier: MIT */
/* The unit tests' shared harness: see harness.h. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/audit.h"
#include "harness.h"

int th_checks;
int th_failures;
const char *th_case;

static char scratch[1024];
static int skipped;

/* ---- bookkeeping ------------------------------------------------------ */

static void vreport(const char *file, int line, const char *fmt, va_list ap)
	TH_PRINTF(3, 0);

static void
vreport(const char *file, int line, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s:%d: ", file, line);
	if (th_case && *th_case)
		fprintf(stderr, "%s: ", th_case);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

bool
th_report(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	th_checks++;
	if (ok)
		return true;
	th_failures++;
	va_start(ap, fmt);
	vreport(file, line, fmt, ap);
	va_end(ap);
	return false;
}

void
th_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	th_checks++;
	th_failures++;
	va_start(ap, fmt);
	vreport(file, line, fmt, ap);
	va_end(ap);
}

bool
th_check(bool ok, const char *file, int line, const char *expr)
{
	return th_report(ok, file, line, "CHECK(%s) failed", expr);
}

bool
th_checkf(bool ok, const char *file, int line, const char *expr,
	  const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	if (ok)
		return th_report(true, file, line, "%s", "");
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return th_report(false, file, line, "%s [CHECK(%s) failed]", msg,
			 expr);
}

/* v as the value of a signed or an unsigned expression. */
static const char *
int_text(uint64_t v, bool is_signed, char *buf, size_t cap)
{
	if (is_signed && v > (uint64_t)INT64_MAX)	/* v - 2^64 */
		snprintf(buf, cap, "%" PRId64,
			 INT64_MIN + (int64_t)(v - (uint64_t)INT64_MAX - 1));
	else
		snprintf(buf, cap, "%" PRIu64, v);
	return buf;
}

bool
th_check_eq(uint64_t got, uint64_t want, bool got_signed, bool want_signed,
	    const char *file, int line, const char *egot, const char *ewant)
{
	char g[32], w[32];

	if (got == want)
		return th_report(true, file, line, "%s", "");
	int_text(got, got_signed, g, sizeof(g));
	int_text(want, want_signed, w, sizeof(w));
	/* the expected expression only when it is not the number itself */
	if (strcmp(ewant, w) == 0)
		return th_report(false, file, line, "%s = %s, expected %s",
				 egot, g, w);
	return th_report(false, file, line, "%s = %s, expected %s = %s", egot,
			 g, ewant, w);
}

bool
th_check_str(const char *got, const char *want, const char *file, int line,
	     const char *egot, const char *ewant)
{
	bool ok = (got == NULL) == (want == NULL) &&
		  (!got || strcmp(got, want) == 0);

	if (ok)
		return th_report(true, file, line, "%s", "");
	return th_report(false, file, line,
			 "CHECK_STR(%s, %s) failed:\n  got      %s%s%s\n"
			 "  expected %s%s%s", egot, ewant,
			 got ? "\"" : "", got ? got : "(null)", got ? "\"" : "",
			 want ? "\"" : "", want ? want : "(null)",
			 want ? "\"" : "");
}

bool
th_check_near(double got, double want, double tol, const char *file,
	      int line, const char *egot, const char *ewant)
{
	return th_report(fabs(got - want) < tol, file, line,
			 "%s = %.12g, expected %s = %.12g within %g "
			 "(off by %.3g)", egot, got, ewant, want, tol,
			 fabs(got - want));
}

/* ---- findings --------------------------------------------------------- */

static int
cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* Sorts and de-duplicates c[0..n) in place; returns the new count. */
static size_t
distinct(unsigned *c, size_t n)
{
	size_t i, k = 0;

	qsort(c, n, sizeof(*c), cmp_unsigned);
	for (i = 0; i < n; i++)
		if (k == 0 || c[k - 1] != c[i])
			c[k++] = c[i];
	return k;
}

static void
code_text(const unsigned *c, size_t n, char *buf, size_t cap)
{
	size_t i, len = 0;

	snprintf(buf, cap, "-");
	for (i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%sQA%04u",
					i ? "," : "", c[i]);
}

void
th_codes(const struct qa_inventory *inv, th_code_filter keep, char *buf,
	 size_t cap)
{
	unsigned *c = malloc((inv->n_findings + 1) * sizeof(*c));
	size_t n = 0;
	uint32_t k;

	if (!c)
		abort();
	for (k = 0; k < inv->n_findings; k++)
		if (!keep || keep(inv->findings[k].rule->code))
			c[n++] = inv->findings[k].rule->code;
	code_text(c, distinct(c, n), buf, cap);
	free(c);
}

unsigned
th_count_code_in(const struct qa_inventory *inv, unsigned code,
		 const char *file)
{
	unsigned n = 0;
	uint32_t k;

	for (k = 0; k < inv->n_findings; k++)
		if (inv->findings[k].rule->code == code &&
		    (!file || (inv->findings[k].file &&
			       strcmp(inv->findings[k].file, file) == 0)))
			n++;
	return n;
}

unsigned
th_count_code(const struct qa_inventory *inv, unsigned code)
{
	return th_count_code_in(inv, code, NULL);
}

const struct qa_finding *
th_finding(const struct qa_inventory *inv, unsigned code, const char *substr)
{
	uint32_t k;

	for (k = 0; k < inv->n_findings; k++)
		if (inv->findings[k].rule->code == code &&
		    (!substr || strstr(inv->findings[k].message, substr)))
			return &inv->findings[k];
	return NULL;
}

void
th_dump_findings(const struct qa_inventory *inv, th_code_filter keep)
{
	uint32_t k;

	for (k = 0; k < inv->n_findings; k++) {
		const struct qa_finding *f = &inv->findings[k];

		if (keep && !keep(f->rule->code))
			continue;
		fprintf(stderr, "    QA%04u %s [%s @%" PRId64 " %s]\n",
			f->rule->code, f->message, f->file ? f->file : "-",
			f->offset, f->tensor ? f->tensor : "-");
	}
}

bool
th_check_codes(const char *file, int line, const char *what,
	       const struct qa_inventory *inv, th_code_filter keep,
	       const char *want)
{
	char got[4096];

	th_codes(inv, keep, got, sizeof(got));
	if (strcmp(got, want) == 0)
		return th_report(true, file, line, "%s", "");
	th_report(false, file, line, "%s%scodes %s, expected %s",
		  what ? what : "", what ? ": " : "", got, want);
	th_dump_findings(inv, keep);
	return false;
}

bool
th_check_code_list(const char *file, int line, const char *what,
		   const struct qa_inventory *inv, th_code_filter keep,
		   const unsigned *want)
{
	unsigned c[256];
	char text[4096];
	size_t n = 0;

	while (want[n] && n < sizeof(c) / sizeof(c[0])) {
		c[n] = want[n];
		n++;
	}
	code_text(c, distinct(c, n), text, sizeof(text));
	return th_check_codes(file, line, what, inv, keep, text);
}

struct qa_inventory *
th_inspect_at(const char *file, int line, const char *dir, const char *rel)
{
	struct qa_inventory *inv = NULL;
	char path[4096], err[512];

	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
	else
		snprintf(path, sizeof(path), "%s", rel);
	if (qa_input_inspect(path, &inv, err, sizeof(err)) != 0) {
		th_fail(file, line, "cannot inspect %s: %s", path, err);
		return NULL;
	}
	return inv;
}

const char *
th_env_dir(const char *name)
{
	const char *v = getenv(name);
	struct stat st;

	if (!v || stat(v, &st) != 0)
		return NULL;
	return v;
}

/* ---- scratch folder --------------------------------------------------- */

const char *
th_scratch(const char *tag)
{
	const char *base = getenv("TMPDIR");

	snprintf(scratch, sizeof(scratch), "%s/qa-%s-XXXXXX",
		 base && *base ? base : "/tmp", tag);
	if (!mkdtemp(scratch)) {
		perror(scratch);
		exit(2);
	}
	return scratch;
}

char *
th_path(const char *rel)
{
	static char buf[8][2048];
	static unsigned k;
	char *p = buf[k++ & 7];

	if (!scratch[0]) {
		fprintf(stderr, "th_path(%s) before th_scratch()\n", rel);
		exit(2);
	}
	snprintf(p, sizeof(buf[0]), "%s/%s", scratch, rel);
	return p;
}

void
th_write(const char *rel, const void *p, size_t n)
{
	char *path = th_path(rel);
	char *slash = strrchr(path, '/');
	FILE *f;

	*slash = '\0';
	mkdir(path, 0755);
	*slash = '/';
	f = fopen(path, "wb");
	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

void
th_write_text(const char *rel, const char *s)
{
	th_write(rel, s, strlen(s));
}

/* ---- the end ---------------------------------------------------------- */

void
th_skip(const char *fmt, ...)
{
	va_list ap;

	skipped = 1;
	printf("SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

uint64_t
th_rand(void)
{
	static uint64_t state = 0x9E3779B97F4A7C15u;

	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545F4914F6CDD1Du;
}

int
th_done(const char *name)
{
	fflush(stdout);
	if (th_failures) {
		fprintf(stderr, "%s: %d of %d checks failed%s%s%s\n", name,
			th_failures, th_checks,
			scratch[0] ? " (files kept in " : "", scratch,
			scratch[0] ? ")" : "");
		return 1;
	}
	if (scratch[0]) {
		char cmd[sizeof(scratch) + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", scratch);
	}
	printf("%s: all %d checks passed%s\n", name, th_checks,
	       skipped ? " (some skipped)" : "");
	return skipped ? 77 : 0;
}
