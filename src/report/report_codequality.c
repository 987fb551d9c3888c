/* SPDX-License-Identifier: MIT */
/*
 * GitLab Code Quality (--format codequality): the JSON array GitLab reads
 * from a job's artifacts:reports:codequality, one issue per finding.
 *
 * The format is GitLab's subset of the Code Climate issue spec
 * (https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format):
 * description, check_name, fingerprint, severity (info, minor, major,
 * critical, blocker) and location.path with location.lines.begin. A model
 * file has no lines, so begin is 1 and the byte offset and tensor name go
 * into the description. The fingerprint is what GitLab compares between
 * the base and the head pipeline to call an issue new or fixed: it is
 * the SHA-256 of the rule code, the file, the tensor and the message,
 * without the input's position on the command line, so reordering the
 * inputs fixes nothing.
 */
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonw.h"
#include "core/sha256.h"

/* Error findings fail the verdict: GitLab's "critical" sorts them above
 * warnings ("major"); info stays "info". "blocker" is kept for an input
 * that could not be audited at all. */
static const char *
cq_severity(enum qa_severity s)
{
	return s == QA_SEV_ERROR ? "critical" :
		s == QA_SEV_WARNING ? "major" : "info";
}

/* A path as GitLab resolves it against the repository root: "./" in
 * front removed (GitLab does not normalise it and would not find the
 * file). */
static const char *
cq_path(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

static void
cq_fingerprint(char hex[65], const char *parts[], size_t n)
{
	struct qa_sha256 s;
	unsigned char d[32];
	size_t i;

	qa_sha256_init(&s);
	for (i = 0; i < n; i++) {
		const char *p = parts[i] ? parts[i] : "";

		/* the NUL separates the parts: "ab"+"c" is not "a"+"bc" */
		qa_sha256_update(&s, p, strlen(p) + 1);
	}
	qa_sha256_final(&s, d);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static void
cq_issue(struct qa_jw *w, const char *description, const char *check,
	 const char *severity, const char *path, const char *fp)
{
	qa_jw_obj(w, NULL);
	qa_jw_str(w, "description", description);
	qa_jw_str(w, "check_name", check);
	qa_jw_str(w, "fingerprint", fp);
	qa_jw_str(w, "severity", severity);
	qa_jw_obj(w, "location");
	qa_jw_str(w, "path", cq_path(path));
	qa_jw_obj_line(w, "lines");
	qa_jw_u64(w, "begin", 1);
	qa_jw_close(w, '}');
	qa_jw_close(w, '}');
	qa_jw_close(w, '}');
}

static int
cq_finding(struct qa_jw *w, const struct qa_inventory *inv,
	   const struct qa_finding *f)
{
	const char *summary = f->rule->summary && *f->rule->summary ?
		f->rule->summary : f->rule->id;
	const char *detail = f->message ? f->message : "";
	const char *file = f->file ? f->file : inv->path;
	char code[16], off[32] = "", fp[65];
	size_t n = strlen(summary) + strlen(detail) +
		(f->tensor ? strlen(f->tensor) : 0) + 96;
	char *desc = malloc(n);
	const char *parts[4];
	bool named = f->tensor && strstr(detail, f->tensor);

	if (!desc)
		return -1;
	snprintf(code, sizeof(code), "QA%04u", (unsigned)f->rule->code);
	if (f->offset >= 0)
		snprintf(off, sizeof(off), "0x%" PRIx64, (uint64_t)f->offset);
	snprintf(desc, n, "%s %s%s%s%s%s%s%s%s", code, summary,
		 *detail ? ": " : "", detail,
		 f->tensor && !named ? " (tensor '" : "",
		 f->tensor && !named ? f->tensor : "",
		 f->tensor && !named ? "')" : "", *off ? " at offset " : "", off);
	parts[0] = code;
	parts[1] = cq_path(file);
	parts[2] = f->tensor;
	parts[3] = detail;
	cq_fingerprint(fp, parts, 4);
	cq_issue(w, desc, code, cq_severity(f->severity), file, fp);
	free(desc);
	return 0;
}

int
qa_report_codequality(FILE *out, struct qa_inventory *const *invs, size_t n,
		      const struct qa_report_options *opt)
{
	struct qa_jw w;
	size_t i;
	uint32_t k;
	int rc = 0;

	qa_jw_init(&w, out);
	qa_jw_arr(&w, NULL, false);
	for (i = 0; i < n; i++)
		for (k = 0; k < invs[i]->n_findings; k++)
			if (cq_finding(&w, invs[i], &invs[i]->findings[k]) != 0)
				rc = -1;
	for (i = 0; i < opt->n_failed; i++) {
		const struct qa_failed_input *fi = &opt->failed[i];
		const char *parts[2] = { "input-error", cq_path(fi->path) };
		char fp[65];

		cq_fingerprint(fp, parts, 2);
		cq_issue(&w, fi->message ? fi->message : "input not audited",
			 "quantaudit-input-error", "blocker", fi->path, fp);
	}
	qa_jw_close(&w, ']');
	qa_jw_raw(&w, "\n", 1);
	if (qa_jw_finish(&w) != 0 || rc != 0)
		return -1;
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
