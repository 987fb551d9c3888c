/* SPDX-License-Identifier: MIT */
/*
 * Fleet audits (cli_fleet.h): `scan-dir` finds every model under a
 * folder with the same input resolver the other commands use, and
 * `summarize` folds the JSON Lines reports of many runs (one process, or
 * GNU parallel, a Slurm array, a Kubernetes indexed Job) into counts.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE	/* MAP_ANONYMOUS (scan-dir --jobs) */
#include "cli/cli_fleet.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/escape.h"
#include "core/json_file.h"
#include "core/jsonw.h"
#include "core/units.h"
#include "formats/input.h"

#define say qa_cli_say

/* Folders deeper than this under the root are not walked (a symbolic
 * link loop ends here too). */
#define WALK_DEPTH_MAX 24

/* ---- scan-dir ----------------------------------------------------------- */

struct walker {
	const struct qa_fs *fs;
	const struct qa_resolve_options *ro;
	char **paths;
	size_t n, cap;
	bool nomem;
};

static void
add_path(struct walker *w, const char *p)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		char **np = realloc(w->paths, cap * sizeof(*np));

		if (!np) {
			w->nomem = true;
			return;
		}
		w->paths = np;
		w->cap = cap;
	}
	w->paths[w->n] = strdup(p);
	if (!w->paths[w->n]) {
		w->nomem = true;
		return;
	}
	w->n++;
}

/* Whether path resolves to at least one model, as `inspect PATH` would
 * read it. */
static bool
is_model(struct walker *w, const char *path)
{
	struct qa_model_refs refs;
	char err[512];
	bool yes;

	if (qa_input_resolve(w->fs, path, w->ro, &refs, err, sizeof(err)) !=
	    QA_OK)
		return false;
	yes = refs.n > 0;
	qa_model_refs_free(&refs);
	return yes;
}

static bool
has_child(struct walker *w, const char *dir, const char *name)
{
	char buf[4096];
	enum qa_node_kind kind = QA_NODE_MISSING;
	uint64_t size;
	int err;

	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", dir, name) >=
	    sizeof(buf))
		return false;
	(void)w->fs->stat(w->fs, buf, &kind, &size, &err);
	return kind == QA_NODE_FILE;
}

static void
walk(struct walker *w, const char *dir, int depth)
{
	struct qa_dirent *ents;
	size_t n, i;

	if (w->nomem)
		return;
	if (is_model(w, dir)) {
		add_path(w, dir);
		/* A checkpoint folder's subfolders are its own (original/,
		 * onnx/) and a cache repo's snapshots are the repo again;
		 * a folder of GGUFs may hold more models below it
		 * (quants kept in subfolders, a split set). The components
		 * of a sentence-transformers model (modules.json) or a
		 * diffusers pipeline (model_index.json) are its own too:
		 * the folder's check walks them (formats/hf_tree.c). */
		if (has_child(w, dir, "config.json") ||
		    has_child(w, dir, "modules.json") ||
		    has_child(w, dir, "model_index.json") ||
		    strncmp(qa_path_base(dir), "models--", 8) == 0)
			return;
	}
	if (depth >= WALK_DEPTH_MAX ||
	    w->fs->list(w->fs, dir, &ents, &n) != QA_OK)
		return;
	for (i = 0; i < n && !w->nomem; i++) {
		size_t len = strlen(dir) + strlen(ents[i].name) + 2;
		char *child = malloc(len);

		if (!child) {
			w->nomem = true;
			break;
		}
		snprintf(child, len, "%s%s%s", dir,
			 dir[strlen(dir) - 1] == '/' ? "" : "/", ents[i].name);
		/* An Ollama store's blobs are named by digest and read
		 * through its manifests; its manifests are files. */
		if (ents[i].kind == QA_NODE_DIR &&
		    strcmp(ents[i].name, "blobs") != 0)
			walk(w, child, depth + 1);
		else if (ents[i].kind == QA_NODE_FILE &&
			 strstr(child, "/manifests/") && is_model(w, child))
			add_path(w, child);
		free(child);
	}
	qa_dirents_free(ents, n);
}

int
qa_cli_expand_dirs(char **dirs, int n_dirs,
		   const struct qa_resolve_options *ro, char ***out,
		   size_t *n_out)
{
	struct walker w;
	int i;

	memset(&w, 0, sizeof(w));
	w.fs = qa_fs_default();
	w.ro = ro;
	*out = NULL;
	*n_out = 0;
	for (i = 0; i < n_dirs && !w.nomem; i++) {
		enum qa_node_kind kind = QA_NODE_MISSING;
		uint64_t size;
		int err = 0;

		(void)w.fs->stat(w.fs, dirs[i], &kind, &size, &err);
		if (kind != QA_NODE_DIR) {
			say("scan-dir: '%s' is not a folder", dirs[i]);
			qa_cli_free_paths(w.paths, w.n);
			return QA_EXIT_USAGE;
		}
		walk(&w, dirs[i], 0);
	}
	if (w.nomem) {
		say("out of memory");
		qa_cli_free_paths(w.paths, w.n);
		return QA_EXIT_SYSTEM;
	}
	if (w.n == 0) {
		say("scan-dir: no model found under %s%s", dirs[0],
		    n_dirs > 1 ? " and the other folders" : "");
		return QA_EXIT_UNRECOGNIZED;
	}
	*out = w.paths;
	*n_out = w.n;
	return QA_EXIT_PASS;
}

void
qa_cli_free_paths(char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* ---- summarize ---------------------------------------------------------- */

struct rule_count {
	char code[16];
	char *id;
	char *severity;
	uint64_t models, findings;
	uint64_t last_model;	/* 1 + the model that counted last */
};

struct model_row {
	char *path;
	char *verdict;
	uint64_t errors, warnings;
	uint64_t bytes;
};

/* Severities a finding may have (the schema's enum), in this order. */
static const char *const severities[] = { "error", "warning", "info" };
#define N_SEVERITIES 3
/* Rule codes are QA and four digits (the schema's pattern). */
#define N_CODES 10000

struct summary {
	uint64_t lines, models, pass, warn, fail, unreadable;
	uint64_t bytes, params;
	struct rule_count *rules;
	size_t n_rules, cap_rules;
	int32_t *rule_index;	/* code * N_SEVERITIES + severity -> index
				 * in rules + 1; 0 when none yet */
	struct model_row *rows;
	size_t n_rows, cap_rows;
	bool nomem;
};

/* The rule count of code (QA and four digits) at severity sev (an index
 * in severities): found in O(1), so a file of millions of findings with
 * distinct codes stays linear. */
static struct rule_count *
rule_of(struct summary *s, const char *code, const char *id, int sev)
{
	size_t slot = (size_t)strtoul(code + 2, NULL, 10) * N_SEVERITIES +
		      (size_t)sev;
	struct rule_count *r;

	if (!s->rule_index) {
		s->rule_index = calloc((size_t)N_CODES * N_SEVERITIES,
				       sizeof(*s->rule_index));
		if (!s->rule_index)
			return NULL;
	}
	if (s->rule_index[slot])
		return &s->rules[s->rule_index[slot] - 1];
	if (s->n_rules == s->cap_rules) {
		size_t cap = s->cap_rules ? s->cap_rules * 2 : 32;
		struct rule_count *n = realloc(s->rules, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->rules = n;
		s->cap_rules = cap;
	}
	r = &s->rules[s->n_rules];
	memset(r, 0, sizeof(*r));
	snprintf(r->code, sizeof(r->code), "%s", code);
	r->id = strdup(id);
	r->severity = strdup(severities[sev]);
	if (!r->id || !r->severity) {
		free(r->id);
		free(r->severity);
		return NULL;
	}
	s->rule_index[slot] = (int32_t)++s->n_rules;
	return r;
}

static const char *
str_of(const cJSON *o, const char *key)
{
	const cJSON *x = qa_json_child(o, key);

	return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* A count from a report: a JSON number in [0, 2^64), else 0. A report
 * file is input like any other; converting 1e30 or infinity (1e400) to
 * uint64_t would be undefined. */
static uint64_t
num_of(const cJSON *o, const char *key)
{
	const cJSON *x = qa_json_child(o, key);
	double v = cJSON_IsNumber(x) ? x->valuedouble : 0;

	return v >= 0 && v < 18446744073709551616.0 ? (uint64_t)v : 0;
}

/* *sum + v, saturated: a total over many reports never wraps. */
static void
add_sat(uint64_t *sum, uint64_t v)
{
	*sum = *sum > UINT64_MAX - v ? UINT64_MAX : *sum + v;
}

static void
add_row(struct summary *s, const char *path, const char *verdict,
	uint64_t errors, uint64_t warnings, uint64_t bytes)
{
	struct model_row *r;

	if (s->n_rows == s->cap_rows) {
		size_t cap = s->cap_rows ? s->cap_rows * 2 : 64;
		struct model_row *n = realloc(s->rows, cap * sizeof(*n));

		if (!n) {
			s->nomem = true;
			return;
		}
		s->rows = n;
		s->cap_rows = cap;
	}
	r = &s->rows[s->n_rows];
	r->path = strdup(path ? path : "?");
	r->verdict = strdup(verdict ? verdict : "?");
	r->errors = errors;
	r->warnings = warnings;
	r->bytes = bytes;
	if (!r->path || !r->verdict) {
		free(r->path);
		free(r->verdict);
		s->nomem = true;
		return;
	}
	s->n_rows++;
}

/* Why a report line is turned away, for its one-line diagnostic. */
struct bad {
	char what[320];
};

/* Up to 48 bytes of a string from the report, for a diagnostic (escaped
 * when printed, by qa_cli_say). */
static const char *
clip(char *buf, size_t cap, const char *v)
{
	size_t n = strlen(v);

	snprintf(buf, cap, "%.48s%s", v, n > 48 ? "..." : "");
	return buf;
}

static bool
bad_type(struct bad *b, const char *where, const char *want)
{
	snprintf(b->what, sizeof(b->what), "%s is not %s", where, want);
	return false;
}

/* A string member that, when present, must be one; *out NULL when
 * absent. */
static bool
opt_string(struct bad *b, const cJSON *o, const char *key, const char *where,
	   const char **out)
{
	const cJSON *x = qa_json_child(o, key);

	*out = NULL;
	if (!x)
		return true;
	if (!cJSON_IsString(x)) {
		char w[96];

		snprintf(w, sizeof(w), "%s.%s", where, key);
		return bad_type(b, w, "a string");
	}
	*out = x->valuestring;
	return true;
}

static int
severity_index(const char *sev)
{
	int i;

	for (i = 0; i < N_SEVERITIES; i++)
		if (strcmp(sev, severities[i]) == 0)
			return i;
	return -1;
}

static bool
is_code(const char *c)
{
	return c[0] == 'Q' && c[1] == 'A' && strspn(c + 2, "0123456789") == 4 &&
	       c[6] == '\0';
}

/*
 * Checks what fold reads from one document against the report schema
 * (docs/quantaudit-1.schema.json): "inputs" and "errors" arrays of
 * objects, each input's "verdict" pass, warn or fail, "path" a string,
 * "findings" an array of objects whose "code" is QA and four digits and
 * whose "severity" is error, warning or info. Anything else would be
 * counted as something it is not (a verdict "FAIL" as a pass, a code
 * holding a terminal escape in the text table), so the line is turned
 * away with why. Counts ("bytes", "params") that are no count are 0, as
 * before.
 */
static bool
valid_doc(const cJSON *doc, struct bad *b)
{
	const cJSON *inputs = qa_json_child(doc, "inputs");
	const cJSON *errors = qa_json_child(doc, "errors");
	const cJSON *error = qa_json_child(doc, "error");
	const cJSON *in, *f;
	const char *v;
	char where[96], buf[64];
	size_t i = 0, k;

	if (error && !cJSON_IsObject(error))
		return bad_type(b, "error", "an object");
	if (error && !opt_string(b, error, "path", "error", &v))
		return false;
	if (errors && !cJSON_IsArray(errors))
		return bad_type(b, "errors", "an array");
	cJSON_ArrayForEach(in, errors) {
		snprintf(where, sizeof(where), "errors[%zu]", i++);
		if (!cJSON_IsObject(in))
			return bad_type(b, where, "an object");
		if (!opt_string(b, in, "path", where, &v))
			return false;
	}
	if (!error && !inputs && !errors)
		return bad_type(b, "the report", "one with \"inputs\"");
	if (inputs && !cJSON_IsArray(inputs))
		return bad_type(b, "inputs", "an array");
	i = 0;
	cJSON_ArrayForEach(in, inputs) {
		const cJSON *findings = qa_json_child(in, "findings");

		snprintf(where, sizeof(where), "inputs[%zu]", i++);
		if (!cJSON_IsObject(in))
			return bad_type(b, where, "an object");
		if (!opt_string(b, in, "path", where, &v))
			return false;
		if (!opt_string(b, in, "verdict", where, &v))
			return false;
		if (!v || (strcmp(v, "pass") && strcmp(v, "warn") &&
			   strcmp(v, "fail"))) {
			snprintf(b->what, sizeof(b->what), "%s.verdict is %s%s%s,"
				 " not pass, warn or fail", where, v ? "'" : "",
				 v ? clip(buf, sizeof(buf), v) : "missing",
				 v ? "'" : "");
			return false;
		}
		if (findings && !cJSON_IsArray(findings)) {
			snprintf(where + strlen(where), sizeof(where) -
				 strlen(where), ".findings");
			return bad_type(b, where, "an array");
		}
		k = 0;
		cJSON_ArrayForEach(f, findings) {
			char fw[128];
			const char *code, *sev;

			snprintf(fw, sizeof(fw), "%s.findings[%zu]", where, k++);
			if (!cJSON_IsObject(f))
				return bad_type(b, fw, "an object");
			if (!opt_string(b, f, "code", fw, &code) ||
			    !opt_string(b, f, "severity", fw, &sev) ||
			    !opt_string(b, f, "id", fw, &v))
				return false;
			if (!code || !is_code(code)) {
				snprintf(b->what, sizeof(b->what), "%s.code is "
					 "%s%s%s, not QA and four digits", fw,
					 code ? "'" : "", code ? clip(buf,
					 sizeof(buf), code) : "missing",
					 code ? "'" : "");
				return false;
			}
			if (!sev || severity_index(sev) < 0) {
				snprintf(b->what, sizeof(b->what), "%s.severity "
					 "is %s%s%s, not error, warning or info",
					 fw, sev ? "'" : "", sev ? clip(buf,
					 sizeof(buf), sev) : "missing",
					 sev ? "'" : "");
				return false;
			}
		}
	}
	return true;
}

/* One quantaudit/1 document (one line of --format jsonl, or a whole
 * --format json report), checked by valid_doc: every input in it. */
static void
fold(struct summary *s, const cJSON *doc)
{
	const cJSON *inputs = qa_json_child(doc, "inputs");
	const cJSON *error = qa_json_child(doc, "error");
	const cJSON *not_audited = qa_json_child(doc, "errors");
	const cJSON *in;

	s->lines++;
	if (cJSON_IsObject(error)) {
		s->unreadable++;
		add_row(s, str_of(error, "path"), "unreadable", 0, 0, 0);
		return;
	}
	/* a --format json document: the inputs it could not audit */
	cJSON_ArrayForEach(in, not_audited) {
		s->unreadable++;
		add_row(s, str_of(in, "path"), "unreadable", 0, 0, 0);
	}
	cJSON_ArrayForEach(in, inputs) {
		const cJSON *model = qa_json_child(in, "model");
		const cJSON *findings = qa_json_child(in, "findings");
		const char *verdict = str_of(in, "verdict");
		const cJSON *f;
		uint64_t errors = 0, warnings = 0;

		s->models++;
		if (strcmp(verdict, "fail") == 0)
			s->fail++;
		else if (strcmp(verdict, "warn") == 0)
			s->warn++;
		else
			s->pass++;
		add_sat(&s->bytes, num_of(model, "bytes"));
		add_sat(&s->params, num_of(model, "params"));
		/* a rule counts once per model, and per finding */
		cJSON_ArrayForEach(f, findings) {
			const char *code = str_of(f, "code");
			int sev = severity_index(str_of(f, "severity"));
			struct rule_count *r;

			if (sev == 0)
				errors++;
			else if (sev == 1)
				warnings++;
			r = rule_of(s, code, str_of(f, "id") ? str_of(f, "id") :
				    "", sev);
			if (!r) {
				s->nomem = true;
				return;
			}
			r->findings++;
			if (r->last_model != s->models) {
				r->last_model = s->models;
				r->models++;
			}
		}
		add_row(s, str_of(in, "path"), verdict, errors, warnings,
			num_of(model, "bytes"));
	}
}

static int
cmp_rule(const void *a, const void *b)
{
	const struct rule_count *x = a, *y = b;

	if (x->models != y->models)
		return x->models > y->models ? -1 : 1;
	return strcmp(x->code, y->code);
}

/* Worst first: unreadable, fail, warn, pass; then more errors, more
 * warnings, then the path. */
static int
rank(const char *v)
{
	return strcmp(v, "unreadable") == 0 ? 0 : strcmp(v, "fail") == 0 ? 1 :
	       strcmp(v, "warn") == 0 ? 2 : 3;
}

static int
cmp_row(const void *a, const void *b)
{
	const struct model_row *x = a, *y = b;

	if (rank(x->verdict) != rank(y->verdict))
		return rank(x->verdict) - rank(y->verdict);
	if (x->errors != y->errors)
		return x->errors > y->errors ? -1 : 1;
	if (x->warnings != y->warnings)
		return x->warnings > y->warnings ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The largest --format json document read whole (a JSON Lines file is
 * read a line at a time, of any length). */
#define SUMMARY_DOC_MAX ((size_t)1 << 30)

/*
 * f read from its start as one JSON document (what --format json writes,
 * indented over many lines); NULL, with why, when it is not one or is
 * larger than SUMMARY_DOC_MAX.
 */
static cJSON *
read_document(FILE *f, struct qa_json_error *jerr)
{
	size_t cap = 1 << 16, len = 0, n;
	char *text = malloc(cap), *grown;
	cJSON *doc = NULL;

	jerr->what[0] = '\0';
	if (!text || fseek(f, 0, SEEK_SET) != 0)
		goto out;
	while ((n = fread(text + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len < cap)
			continue;
		if (cap >= SUMMARY_DOC_MAX) {
			snprintf(jerr->what, sizeof(jerr->what), "a document "
				 "over %zu bytes", SUMMARY_DOC_MAX);
			goto out;
		}
		grown = realloc(text, cap * 2);
		if (!grown)
			goto out;
		text = grown;
		cap *= 2;
	}
	if (!ferror(f)) {
		/* a UTF-8 byte order mark, as Windows editors save it */
		size_t bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ?
			     3 : 0;

		doc = qa_json_parse_python(text + bom, len - bom, jerr);
	}
out:
	free(text);
	return doc;
}

/*
 * Whether a first line that is no document opens one: "{" alone, as
 * --format json writes it, or as jq and editors leave it (CRLF line ends,
 * a byte order mark, an indent).
 */
static bool
opens_document(const char *line)
{
	if (strncmp(line, "\xEF\xBB\xBF", 3) == 0)
		line += 3;
	line += strspn(line, " \t");
	return line[0] == '{' && strspn(line + 1, " \t\r\n") ==
	       strlen(line + 1);
}

/* The longest line of a JSON Lines file read (a report line of a model
 * with a 256k-token vocabulary and every finding is a few MB). */
#define SUMMARY_LINE_MAX ((size_t)64 << 20)

/*
 * The next line of f (its newline kept) into *buf, at most
 * SUMMARY_LINE_MAX bytes kept: a longer one is read to its end and not
 * kept (*too_long). Embedded NUL bytes are kept and counted. Returns the
 * line's length (0 at the end of the file), -1 out of memory.
 */
static int64_t
next_line(FILE *f, char **buf, size_t *cap, bool *too_long)
{
	size_t n = 0;
	int64_t total = 0;
	int ch;

	*too_long = false;
	while ((ch = getc(f)) != EOF) {
		total++;
		if (!*too_long) {
			if (n + 2 > *cap) {
				size_t nc = *cap ? *cap * 2 : 4096;
				char *nb;

				if (nc > SUMMARY_LINE_MAX + 2)
					nc = SUMMARY_LINE_MAX + 2;
				nb = realloc(*buf, nc);
				if (!nb)
					return -1;
				*buf = nb;
				*cap = nc;
			}
			if (n >= SUMMARY_LINE_MAX)
				*too_long = true;
			else
				(*buf)[n++] = (char)ch;
		}
		if (ch == '\n')
			break;
	}
	if (*buf)
		(*buf)[n] = '\0';
	return total;
}

struct dups {
	char path[QA_JSON_PATH_MAX];
	size_t copies;
	long n;
};

static void
on_duplicate(void *ctx, const char *path, const char *key, size_t copies)
{
	struct dups *d = ctx;

	(void)key;
	if (d->n++ == 0) {
		snprintf(d->path, sizeof(d->path), "%s", path);
		d->copies = copies;
	}
}

/*
 * Whether doc is a quantaudit/1 report summarize can count; why not in
 * b. A key given twice is turned away: quantaudit writes each once, and
 * Python's json (and jq) would count the last copy where a first-match
 * lookup counts the first.
 */
static bool
acceptable(cJSON *doc, struct bad *b)
{
	struct dups d;
	const char *schema;

	if (!cJSON_IsObject(doc))
		return bad_type(b, "the line", "a JSON object");
	memset(&d, 0, sizeof(d));
	if (qa_json_collapse_duplicates(doc, on_duplicate, &d) < 0) {
		snprintf(b->what, sizeof(b->what), "out of memory");
		return false;
	}
	if (d.n) {
		snprintf(b->what, sizeof(b->what), "the key %.200s appears %zu "
			 "times in its object (a report has each key once)",
			 d.path, d.copies);
		return false;
	}
	schema = str_of(doc, "schema");
	if (!schema || strcmp(schema, "quantaudit/1") != 0) {
		char buf[64];

		snprintf(b->what, sizeof(b->what), "its schema is %s%s%s, not "
			 "quantaudit/1", schema ? "'" : "", schema ?
			 clip(buf, sizeof(buf), schema) : "missing",
			 schema ? "'" : "");
		return false;
	}
	return valid_doc(doc, b);
}

/* Reads one file of JSON Lines, or one whole JSON report (--format json,
 * indented: the first line alone is not a document). The first line
 * that is no report stops it with one diagnostic naming the line and
 * the byte offset in the file. */
static int
read_file(struct summary *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int64_t len;
	uint64_t lineno = 0, at = 0, next = 0;
	bool too_long;
	int rc = QA_EXIT_PASS;

	if (!f) {
		say("cannot read '%s': %s", path, strerror(errno));
		return QA_EXIT_SYSTEM;
	}
	while ((len = next_line(f, &line, &cap, &too_long)) > 0) {
		struct qa_json_error jerr;
		struct bad b;
		cJSON *doc = NULL;
		bool whole = false;

		lineno++;
		at = next;
		next += (uint64_t)len;
		if (too_long) {
			say("%s:%" PRIu64 ": the line at byte %" PRIu64 " is %"
			    PRId64 " bytes long, over the %zu bytes of a "
			    "report line read", path, lineno, at, len,
			    SUMMARY_LINE_MAX);
			rc = QA_EXIT_UNRECOGNIZED;
			break;
		}
		if (len == 1 && line[0] == '\n')
			continue;
		memset(&jerr, 0, sizeof(jerr));
		if (memchr(line, '\0', (size_t)len)) {
			snprintf(jerr.what, sizeof(jerr.what), "a NUL byte");
			jerr.offset = (uint64_t)((char *)memchr(line, '\0',
							  (size_t)len) - line);
		} else {
			doc = qa_json_parse_python(line, (size_t)len, &jerr);
		}
		if (!doc && lineno == 1 && opens_document(line)) {
			/* "{" alone on the first line: a --format json
			 * document; read whole, it is the file's one report */
			doc = read_document(f, &jerr);
			whole = true;
			if (doc && fseek(f, 0, SEEK_END) != 0) {
				cJSON_Delete(doc);
				doc = NULL;
			}
		}
		if (!doc) {
			if (whole)
				say("%s:%u: not a quantaudit/1 report: %s at "
				    "byte %" PRIu64 " (column %u)", path,
				    jerr.line ? jerr.line : 1, jerr.what,
				    jerr.offset, jerr.column);
			else
				say("%s:%" PRIu64 ": not a quantaudit/1 report "
				    "line: %s at byte %" PRIu64 " (column %"
				    PRIu64 ")", path, lineno, jerr.what,
				    at + jerr.offset, jerr.offset + 1);
			rc = QA_EXIT_UNRECOGNIZED;
			break;
		}
		if (!acceptable(doc, &b)) {
			say("%s:%" PRIu64 ": not a quantaudit/1 report line "
			    "(byte %" PRIu64 "): %s", path, lineno, at, b.what);
			cJSON_Delete(doc);
			rc = QA_EXIT_UNRECOGNIZED;
			break;
		}
		fold(s, doc);
		cJSON_Delete(doc);
		if (s->nomem) {
			rc = QA_EXIT_SYSTEM;
			break;
		}
	}
	if (len < 0) {
		say("out of memory");
		rc = QA_EXIT_SYSTEM;
	} else if (rc == QA_EXIT_PASS && ferror(f)) {
		say("cannot read '%s': %s", path, strerror(errno));
		rc = QA_EXIT_SYSTEM;
	}
	free(line);
	fclose(f);
	return rc;
}

static void
write_text(FILE *out, const struct summary *s, size_t n_files)
{
	char b[32], p[32];
	size_t i;

	qa_fmt_bytes(b, sizeof(b), s->bytes);
	qa_fmt_params(p, sizeof(p), s->params);
	fprintf(out, "%" PRIu64 " model%s in %zu file%s: %" PRIu64 " pass, %"
		PRIu64 " warn, %" PRIu64 " fail, %" PRIu64 " unreadable\n"
		"%s of weights, %s parameters\n", s->models,
		s->models == 1 ? "" : "s", n_files, n_files == 1 ? "" : "s",
		s->pass, s->warn, s->fail, s->unreadable, b, p);
	if (s->n_rules) {
		fputs("\nfindings by rule (models, findings):\n", out);
		for (i = 0; i < s->n_rules; i++) {
			fprintf(out, "  %-7s %-8s ", s->rules[i].code,
				s->rules[i].severity);
			qa_esc_text(out, s->rules[i].id);
			fprintf(out, ": %" PRIu64 " model%s, %" PRIu64
				" finding%s\n", s->rules[i].models,
				s->rules[i].models == 1 ? "" : "s",
				s->rules[i].findings,
				s->rules[i].findings == 1 ? "" : "s");
		}
	}
	if (s->n_rows) {
		fputs("\nworst models:\n", out);
		for (i = 0; i < s->n_rows && i < 10; i++) {
			const struct model_row *r = &s->rows[i];

			if (rank(r->verdict) == 3)
				break;
			fprintf(out, "  %-10s %" PRIu64 " error%s, %" PRIu64
				" warning%s  ", r->verdict, r->errors,
				r->errors == 1 ? "" : "s", r->warnings,
				r->warnings == 1 ? "" : "s");
			qa_esc_text(out, r->path);
			fputc('\n', out);
		}
	}
}

static void
write_json(FILE *out, const struct summary *s, size_t n_files)
{
	struct qa_jw w;
	size_t i;

	qa_jw_init(&w, out);
	qa_jw_obj(&w, NULL);
	qa_jw_str(&w, "schema", "quantaudit-summary/1");
	qa_jw_u64(&w, "files", n_files);
	qa_jw_u64(&w, "models", s->models);
	qa_jw_obj(&w, "verdicts");
	qa_jw_u64(&w, "pass", s->pass);
	qa_jw_u64(&w, "warn", s->warn);
	qa_jw_u64(&w, "fail", s->fail);
	qa_jw_u64(&w, "unreadable", s->unreadable);
	qa_jw_close(&w, '}');
	qa_jw_u64(&w, "bytes", s->bytes);
	qa_jw_u64(&w, "params", s->params);
	qa_jw_arr(&w, "rules", false);
	for (i = 0; i < s->n_rules; i++) {
		qa_jw_obj_line(&w, NULL);
		qa_jw_str(&w, "code", s->rules[i].code);
		qa_jw_str(&w, "id", s->rules[i].id);
		qa_jw_str(&w, "severity", s->rules[i].severity);
		qa_jw_u64(&w, "models", s->rules[i].models);
		qa_jw_u64(&w, "findings", s->rules[i].findings);
		qa_jw_close(&w, '}');
	}
	qa_jw_close(&w, ']');
	qa_jw_arr(&w, "models_by_verdict", false);
	for (i = 0; i < s->n_rows; i++) {
		qa_jw_obj_line(&w, NULL);
		qa_jw_str(&w, "path", s->rows[i].path);
		qa_jw_str(&w, "verdict", s->rows[i].verdict);
		qa_jw_u64(&w, "errors", s->rows[i].errors);
		qa_jw_u64(&w, "warnings", s->rows[i].warnings);
		qa_jw_u64(&w, "bytes", s->rows[i].bytes);
		qa_jw_close(&w, '}');
	}
	qa_jw_close(&w, ']');
	qa_jw_close(&w, '}');
	qa_jw_raw(&w, "\n", 1);
	(void)qa_jw_finish(&w);
}

int
qa_cli_summarize(char **files, int n_files, bool json, const char *output)
{
	struct summary s;
	FILE *out = stdout;
	int i, rc = QA_EXIT_PASS;
	size_t k;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < n_files && rc == QA_EXIT_PASS; i++)
		rc = read_file(&s, files[i]);
	if (rc == QA_EXIT_PASS) {
		/* qsort's array may not be NULL, even empty */
		if (s.n_rules)
			qsort(s.rules, s.n_rules, sizeof(*s.rules), cmp_rule);
		if (s.n_rows)
			qsort(s.rows, s.n_rows, sizeof(*s.rows), cmp_row);
		if (output && !(out = fopen(output, "w"))) {
			say("cannot write '%s': %s", output, strerror(errno));
			rc = QA_EXIT_SYSTEM;
		} else {
			if (json)
				write_json(out, &s, (size_t)n_files);
			else
				write_text(out, &s, (size_t)n_files);
			if (fflush(out) != 0 || ferror(out))
				rc = QA_EXIT_SYSTEM;
			if (out != stdout && fclose(out) != 0)
				rc = QA_EXIT_SYSTEM;
			/* the gate: any model failed or unreadable */
			if (rc == QA_EXIT_PASS && (s.fail || s.unreadable))
				rc = QA_EXIT_FAIL;
		}
	}
	for (k = 0; k < s.n_rules; k++) {
		free(s.rules[k].id);
		free(s.rules[k].severity);
	}
	for (k = 0; k < s.n_rows; k++) {
		free(s.rows[k].path);
		free(s.rows[k].verdict);
	}
	free(s.rules);
	free(s.rule_index);
	free(s.rows);
	return rc;
}

/* ---- scan-dir --jobs ------------------------------------------------------- */

struct jobs_shared {
	size_t next;		/* the next path to claim (atomic) */
	int codes[];		/* each path's exit code; -1 not done */
};

static void
job_file(char *buf, size_t cap, const char *dir, size_t i)
{
	snprintf(buf, cap, "%s/%zu", dir, i);
}

/* A worker: claims paths until none is left. */
static void
worker(struct jobs_shared *sh, char **paths, size_t n, const char *dir,
       int (*run_one)(void *ctx, char *path, const char *file), void *ctx)
{
	char file[4096 + 32];
	size_t i;

	while ((i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_SEQ_CST)) < n) {
		job_file(file, sizeof(file), dir, i);
		sh->codes[i] = run_one(ctx, paths[i], file);
	}
}

/* Appends the file at path to out; false on a read or write error. */
static bool
copy_out(const char *path, FILE *out)
{
	char buf[65536];
	FILE *in = fopen(path, "rb");
	size_t k;
	bool ok = true;

	if (!in)
		return false;
	while ((k = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, k, out) != k) {
			ok = false;
			break;
		}
	if (ferror(in))
		ok = false;
	fclose(in);
	return ok;
}

int
qa_cli_run_jobs(char **paths, size_t n, unsigned n_jobs,
		int (*run_one)(void *ctx, char *path, const char *file),
		void *ctx, const char *output)
{
	char dir[4096], file[4096 + 32];
	const char *tmp = getenv("TMPDIR");
	struct jobs_shared *sh;
	size_t bytes = sizeof(*sh) + (n ? n : 1) * sizeof(int), i;
	pid_t *pids;
	unsigned k, started = 0;
	int worst = QA_EXIT_PASS;
	FILE *out;

	snprintf(dir, sizeof(dir), "%s/quantaudit-jobs-XXXXXX",
		 tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		say("scan-dir --jobs: cannot make a temporary folder: %s",
		    strerror(errno));
		return QA_EXIT_SYSTEM;
	}
	sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(n_jobs, sizeof(*pids));
	if (sh == MAP_FAILED || !pids) {
		say("scan-dir --jobs: out of memory");
		if (sh != MAP_FAILED)
			munmap(sh, bytes);
		free(pids);
		rmdir(dir);
		return QA_EXIT_SYSTEM;
	}
	sh->next = 0;
	for (i = 0; i < n; i++)
		sh->codes[i] = -1;
	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < n_jobs && k < n; k++) {
		pid_t pid = fork();

		if (pid == 0) {
			worker(sh, paths, n, dir, run_one, ctx);
			fflush(stderr);
			_exit(0);
		}
		if (pid < 0) {
			say("scan-dir --jobs: cannot start a worker: %s",
			    strerror(errno));
			break;
		}
		pids[started++] = pid;
	}
	if (started == 0)	/* no worker: do the work here */
		worker(sh, paths, n, dir, run_one, ctx);
	for (k = 0; k < started; k++) {
		int st;

		while (waitpid(pids[k], &st, 0) < 0 && errno == EINTR)
			;
	}
	out = output ? fopen(output, "w") : stdout;
	if (!out) {
		say("cannot write '%s': %s", output, strerror(errno));
		worst = QA_EXIT_SYSTEM;
	}
	for (i = 0; i < n; i++) {
		job_file(file, sizeof(file), dir, i);
		if (sh->codes[i] < 0) {
			/* the worker died on this model */
			say("%s: the worker auditing it stopped before its "
			    "report was written", paths[i]);
			worst = QA_EXIT_SYSTEM;
		} else if (sh->codes[i] > worst) {
			worst = sh->codes[i];
		}
		if (out && access(file, F_OK) == 0 && !copy_out(file, out))
			worst = QA_EXIT_SYSTEM;
		unlink(file);
	}
	if (out && out != stdout && fclose(out) != 0)
		worst = QA_EXIT_SYSTEM;
	if (out == stdout && fflush(stdout) != 0)
		worst = QA_EXIT_SYSTEM;
	rmdir(dir);
	munmap(sh, bytes);
	free(pids);
	return worst;
}
