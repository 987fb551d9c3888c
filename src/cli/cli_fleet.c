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
};

struct model_row {
	char *path;
	char *verdict;
	uint64_t errors, warnings;
	uint64_t bytes;
};

struct summary {
	uint64_t lines, models, pass, warn, fail, unreadable;
	uint64_t bytes, params;
	struct rule_count *rules;
	size_t n_rules, cap_rules;
	struct model_row *rows;
	size_t n_rows, cap_rows;
	bool nomem;
};

static struct rule_count *
rule_of(struct summary *s, const char *code, const char *id,
	const char *severity)
{
	size_t i;

	for (i = 0; i < s->n_rules; i++)
		if (strcmp(s->rules[i].code, code) == 0 &&
		    strcmp(s->rules[i].severity, severity) == 0)
			return &s->rules[i];
	if (s->n_rules == s->cap_rules) {
		size_t cap = s->cap_rules ? s->cap_rules * 2 : 32;
		struct rule_count *n = realloc(s->rules, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->rules = n;
		s->cap_rules = cap;
	}
	memset(&s->rules[s->n_rules], 0, sizeof(s->rules[0]));
	snprintf(s->rules[s->n_rules].code, sizeof(s->rules[0].code), "%s",
		 code);
	s->rules[s->n_rules].id = strdup(id);
	s->rules[s->n_rules].severity = strdup(severity);
	if (!s->rules[s->n_rules].id || !s->rules[s->n_rules].severity)
		return NULL;
	return &s->rules[s->n_rules++];
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

/* One quantaudit/1 document (one line of --format jsonl, or a whole
 * --format json report): every input in it. */
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
		if (verdict && strcmp(verdict, "fail") == 0)
			s->fail++;
		else if (verdict && strcmp(verdict, "warn") == 0)
			s->warn++;
		else
			s->pass++;
		add_sat(&s->bytes, num_of(model, "bytes"));
		add_sat(&s->params, num_of(model, "params"));
		/* a rule counts once per model, and per finding */
		cJSON_ArrayForEach(f, findings) {
			const char *code = str_of(f, "code");
			const char *sev = str_of(f, "severity");
			struct rule_count *r;
			const cJSON *g;
			bool seen = false;

			if (!code || !sev)
				continue;
			if (strcmp(sev, "error") == 0)
				errors++;
			else if (strcmp(sev, "warning") == 0)
				warnings++;
			r = rule_of(s, code, str_of(f, "id") ? str_of(f, "id") :
				    "", sev);
			if (!r) {
				s->nomem = true;
				return;
			}
			r->findings++;
			cJSON_ArrayForEach(g, findings) {
				if (g == f)
					break;
				if (str_of(g, "code") && str_of(g, "severity") &&
				    strcmp(str_of(g, "code"), code) == 0 &&
				    strcmp(str_of(g, "severity"), sev) == 0)
					seen = true;
			}
			if (!seen)
				r->models++;
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

/* Reads one file of JSON Lines, or one whole JSON report (--format json,
 * indented: the first line alone is not a document). */
static int
read_file(struct summary *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t lineno = 0;
	int rc = QA_EXIT_PASS;

	if (!f) {
		say("cannot read '%s': %s", path, strerror(errno));
		return QA_EXIT_SYSTEM;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		struct qa_json_error jerr;
		cJSON *doc;

		lineno++;
		if (len == 1 && line[0] == '\n')
			continue;
		doc = qa_json_parse_python(line, (size_t)len, &jerr);
		if (!doc && lineno == 1 && opens_document(line)) {
			/* "{" alone on the first line: a --format json
			 * document; read whole, it is the file's one report */
			doc = read_document(f, &jerr);
			if (doc && fseek(f, 0, SEEK_END) != 0) {
				cJSON_Delete(doc);
				doc = NULL;
			}
		}
		if (!doc || !cJSON_IsObject(doc) || !str_of(doc, "schema") ||
		    strcmp(str_of(doc, "schema"), "quantaudit/1") != 0) {
			say("%s:%" PRIu64 ": not a quantaudit/1 report line%s%s",
			    path, lineno, doc ? "" : ": ",
			    doc ? "" : jerr.what);
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
