/* SPDX-License-Identifier: MIT */
/*
 * Manifest writing and reading (manifest.h). Written with the streaming
 * JSON writer; read with cJSON through core/json_file.c, after zlib has
 * inflated it when it is gzip (gzread passes plain files through).
 */
#include "integrity/manifest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/json_file.h"
#include "core/source.h"
#include "integrity/libs.h"

/* ---- writing ------------------------------------------------------------ */

void
qa_manifest_begin(struct qa_jw *w, bool sha256)
{
	qa_jw_obj(w, NULL);
	qa_jw_str(w, "schema", QA_MANIFEST_SCHEMA);
	qa_jw_obj(w, "tool");
	qa_jw_str(w, "name", "quantaudit");
	qa_jw_str(w, "version", QA_VERSION);
	qa_jw_close(w, '}');
	qa_jw_str(w, "hash", "xxh3-128");
	qa_jw_bool(w, "sha256", sha256);
	qa_jw_arr(w, "models", false);
}

/* key: the hex digest, or null and key_error: why. */
static void
put_region(struct qa_jw *w, const char *key, const char *key_error,
	   const struct qa_region_hash *h)
{
	char hex[33], why[160];

	if (h->state == QA_REGION_HASHED) {
		qa_digest_hex(&h->digest, hex);
		qa_jw_str(w, key, hex);
		return;
	}
	qa_jw_null(w, key);
	qa_region_why(h, why, sizeof(why));
	qa_jw_str(w, key_error, why);
}

void
qa_manifest_model(struct qa_jw *w, const char *path, const char *kind,
		  const struct qa_content *c)
{
	uint32_t i;

	qa_jw_obj(w, NULL);
	qa_jw_str(w, "path", path);
	qa_jw_str(w, "kind", kind);
	qa_jw_arr(w, "files", false);
	for (i = 0; i < c->n_files; i++) {
		const struct qa_file_hash *f = &c->files[i];

		qa_jw_obj(w, NULL);
		qa_jw_str(w, "path", f->path);
		qa_jw_u64(w, "bytes", f->bytes);
		qa_jw_u64(w, "header_bytes", f->header_bytes);
		put_region(w, "header_xxh3_128", "header_error", &f->header);
		qa_jw_u64(w, "other_bytes", f->other_bytes);
		put_region(w, "other_xxh3_128", "other_error", &f->other);
		if (f->has_sha256) {
			if (f->sha_state.state == QA_REGION_HASHED) {
				char hex[65];
				int k;

				for (k = 0; k < 32; k++)
					snprintf(hex + 2 * k, 3, "%02x",
						 f->sha256[k]);
				qa_jw_str(w, "sha256", hex);
			} else {
				char why[160];

				qa_jw_null(w, "sha256");
				qa_region_why(&f->sha_state, why, sizeof(why));
				qa_jw_str(w, "sha256_error", why);
			}
		}
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
	qa_jw_arr(w, "tensors", false);
	for (i = 0; i < c->n_tensors; i++) {
		const struct qa_tensor_hash *t = &c->tensors[i];

		qa_jw_obj_line(w, NULL);
		qa_jw_str(w, "name", t->name);
		qa_jw_str(w, "file", t->file < c->n_files ?
			  c->files[t->file].path : NULL);
		qa_jw_u64(w, "offset", t->offset);
		qa_jw_u64(w, "bytes", t->bytes);
		qa_jw_str(w, "dtype", t->dtype);
		put_region(w, "xxh3_128", "error", &t->h);
		qa_jw_close(w, '}');
	}
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
}

void
qa_manifest_end(struct qa_jw *w)
{
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
	qa_jw_raw(w, "\n", 1);
}

/* ---- reading ------------------------------------------------------------ */

/* The whole file, inflated when it is gzip (zlib loaded for it); NULL
 * with err set and *rc the reason. */
static char *
slurp(const char *path, size_t *len, char *err, size_t errlen, int *rc)
{
	const struct qa_zlib *z = NULL;
	unsigned char magic[2] = { 0, 0 };
	gzFile gz = NULL;
	FILE *f;
	char *buf = NULL;
	size_t n = 0, cap = 0;

	*rc = QA_E_IO;
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read the manifest '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	if (fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		fclose(f);
		f = NULL;
		z = qa_zlib_load(err, errlen);
		if (!z)
			return NULL;
		gz = z->open(path, "rb");
		if (!gz) {
			snprintf(err, errlen, "cannot read the manifest '%s': "
				 "%s", path, strerror(errno ? errno : ENOMEM));
			return NULL;
		}
	} else {
		rewind(f);
	}
	for (;;) {
		size_t want;
		int got;

		if (cap - n < 65536) {
			char *nb;

			if (cap >= QA_MANIFEST_MAX) {
				snprintf(err, errlen, "the manifest '%s' is "
					 "larger than %" PRIu64 " MiB "
					 "uncompressed", path,
					 QA_MANIFEST_MAX >> 20);
				*rc = QA_E_UNRECOGNIZED;
				goto fail;
			}
			cap = cap ? cap * 2 : 1 << 20;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				snprintf(err, errlen, "out of memory");
				*rc = QA_E_NOMEM;
				goto fail;
			}
			buf = nb;
		}
		want = cap - n < 1u << 30 ? cap - n : 1u << 30;
		if (f) {
			got = (int)fread(buf + n, 1, want, f);
			if (got == 0 && ferror(f)) {
				snprintf(err, errlen, "cannot read the manifest "
					 "'%s': %s", path, strerror(errno));
				goto fail;
			}
		} else {
			got = z->read(gz, buf + n, (unsigned)want);
			if (got < 0) {
				int zerr;
				const char *msg = z->error(gz, &zerr);

				snprintf(err, errlen, "the manifest '%s' cannot "
					 "be read at uncompressed offset %zu: "
					 "%s", path, n, zerr == Z_ERRNO ?
					 strerror(errno) : msg);
				*rc = zerr == Z_ERRNO ? QA_E_IO :
				      QA_E_UNRECOGNIZED;
				goto fail;
			}
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (f)
		fclose(f);
	else
		z->close(gz);
	buf[n] = '\0';
	*len = n;
	*rc = QA_OK;
	return buf;
fail:
	if (f)
		fclose(f);
	else
		z->close(gz);
	free(buf);
	return NULL;
}

struct reader {
	struct qa_manifest *m;
	char *err;
	size_t errlen;
	const char *path;
};

static int bad(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
bad(struct reader *r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->err, r->errlen, "%s is not a valid %s manifest: %s",
		 r->path, QA_MANIFEST_SCHEMA, what);
	return QA_E_UNRECOGNIZED;
}

/* A size or offset: a JSON integer in [0, 2^53]. */
static bool
get_u64(const cJSON *o, const char *key, uint64_t *v)
{
	return qa_json_u53(qa_json_child(o, key), v);
}

/* A region: a hex digest (hashed) or null (not hashed then). */
static bool
get_region(const cJSON *o, const char *key, struct qa_region_hash *h)
{
	const cJSON *x = qa_json_child(o, key);

	memset(h, 0, sizeof(*h));
	if (cJSON_IsNull(x)) {
		h->state = QA_REGION_READ_ERROR;
		return true;
	}
	if (!cJSON_IsString(x) || !qa_digest_parse(x->valuestring, &h->digest))
		return false;
	h->state = QA_REGION_HASHED;
	return true;
}

/* A relative path that stays in the folder: no absolute path, no ".."
 * component, no empty component. */
static bool
safe_relative(const char *p)
{
	const char *s = p;

	if (!*p || *p == '/')
		return false;
	for (;;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n == 0 || (n == 2 && s[0] == '.' && s[1] == '.') ||
		    (n == 1 && s[0] == '.'))
			return false;
		if (!e)
			return true;
		s = e + 1;
	}
}

static char *
dup_str(struct qa_manifest *m, const cJSON *x)
{
	return cJSON_IsString(x) ? qa_arena_strdup(&m->arena, x->valuestring) :
	       NULL;
}

static int
read_model(struct reader *r, const cJSON *jm, size_t mi,
	   struct qa_manifest_model *mm)
{
	struct qa_manifest *m = r->m;
	const cJSON *files = qa_json_child(jm, "files");
	const cJSON *tensors = qa_json_child(jm, "tensors");
	const cJSON *x;
	struct qa_content *c = &mm->c;
	size_t nf, nt, i, last = 0;

	if (!cJSON_IsObject(jm) || !cJSON_IsArray(files) ||
	    !cJSON_IsArray(tensors))
		return bad(r, "model %zu has no files or tensors list", mi);
	mm->path = dup_str(m, qa_json_child(jm, "path"));
	mm->kind = dup_str(m, qa_json_child(jm, "kind"));
	nf = (size_t)cJSON_GetArraySize(files);
	nt = (size_t)cJSON_GetArraySize(tensors);
	if (nf > UINT32_MAX || nt > UINT32_MAX)
		return bad(r, "model %zu is too large", mi);
	c->files = qa_arena_array(&m->arena, nf ? nf : 1, sizeof(*c->files));
	c->tensors = qa_arena_array(&m->arena, nt ? nt : 1,
				    sizeof(*c->tensors));
	if (!c->files || !c->tensors)
		return QA_E_NOMEM;
	c->n_files = (uint32_t)nf;
	c->n_tensors = (uint32_t)nt;
	i = 0;
	cJSON_ArrayForEach(x, files) {
		struct qa_file_hash *f = &c->files[i];
		const cJSON *sha = qa_json_child(x, "sha256");

		f->path = dup_str(m, qa_json_child(x, "path"));
		if (!f->path || !safe_relative(f->path))
			return bad(r, "file %zu: its path is not a relative "
				   "path inside the model's folder", i);
		if (!get_u64(x, "bytes", &f->bytes) ||
		    !get_u64(x, "header_bytes", &f->header_bytes) ||
		    !get_u64(x, "other_bytes", &f->other_bytes) ||
		    !get_region(x, "header_xxh3_128", &f->header) ||
		    !get_region(x, "other_xxh3_128", &f->other))
			return bad(r, "file '%s' (%zu): a size or a hash is "
				   "missing or malformed", f->path, i);
		if (cJSON_IsString(sha)) {
			const char *s = sha->valuestring;
			int k;

			if (strlen(s) != 64)
				return bad(r, "file '%s' (%zu): sha256 is not "
					   "64 hex digits", f->path, i);
			for (k = 0; k < 32; k++) {
				int hi = s[2 * k], lo = s[2 * k + 1];
				char pair[3] = { (char)hi, (char)lo, 0 };
				char *end;
				unsigned long v = strtoul(pair, &end, 16);

				if (*end || !((hi >= '0' && hi <= '9') ||
					      (hi >= 'a' && hi <= 'f') ||
					      (hi >= 'A' && hi <= 'F')))
					return bad(r, "file '%s' (%zu): sha256 "
						   "is not 64 hex digits",
						   f->path, i);
				f->sha256[k] = (unsigned char)v;
			}
			f->has_sha256 = true;
			f->sha_state.state = QA_REGION_HASHED;
		}
		i++;
	}
	i = 0;
	cJSON_ArrayForEach(x, tensors) {
		struct qa_tensor_hash *t = &c->tensors[i];
		const char *file;
		size_t k;

		t->name = dup_str(m, qa_json_child(x, "name"));
		t->dtype = dup_str(m, qa_json_child(x, "dtype"));
		file = cJSON_IsString(qa_json_child(x, "file")) ?
		       qa_json_child(x, "file")->valuestring : NULL;
		if (!t->name || !file || !get_u64(x, "offset", &t->offset) ||
		    !get_u64(x, "bytes", &t->bytes) ||
		    !get_region(x, "xxh3_128", &t->h))
			return bad(r, "tensor %zu: a name, file, size or hash "
				   "is missing or malformed", i);
		/* Tensors come in file order: the last file matched is
		 * tried first. */
		for (k = 0; k < nf; k++) {
			size_t fi = (last + k) % nf;

			if (strcmp(c->files[fi].path, file) == 0) {
				t->file = (uint32_t)fi;
				last = fi;
				break;
			}
		}
		if (k == nf)
			return bad(r, "tensor '%s' (%zu) names a file the model "
				   "does not list", t->name, i);
		i++;
	}
	return QA_OK;
}

int
qa_manifest_parse(const char *text, size_t len, const char *path,
		  struct qa_manifest *m, char *err, size_t errlen)
{
	struct reader r = { m, err, errlen, path };
	struct qa_json_error jerr;
	const cJSON *schema, *models, *x;
	cJSON *root;
	size_t i;
	int rc;

	memset(m, 0, sizeof(*m));
	qa_arena_init(&m->arena, 0);
	root = qa_json_parse_python(text, len, &jerr);
	if (!root) {
		snprintf(err, errlen, "%s: not JSON at offset %" PRIu64
			 " (line %u, column %u): %s", path, jerr.offset,
			 jerr.line, jerr.column, jerr.what);
		return strcmp(jerr.what, "out of memory") == 0 ? QA_E_NOMEM :
		       QA_E_UNRECOGNIZED;
	}
	schema = qa_json_child(root, "schema");
	models = qa_json_child(root, "models");
	if (!cJSON_IsString(schema) ||
	    strcmp(schema->valuestring, QA_MANIFEST_SCHEMA) != 0 ||
	    !cJSON_IsArray(models)) {
		cJSON_Delete(root);
		snprintf(err, errlen, "%s is not a %s manifest (written by "
			 "'quantaudit hash')", path, QA_MANIFEST_SCHEMA);
		return QA_E_UNRECOGNIZED;
	}
	m->sha256 = cJSON_IsTrue(qa_json_child(root, "sha256"));
	m->n_models = (size_t)cJSON_GetArraySize(models);
	m->models = qa_arena_array(&m->arena, m->n_models ? m->n_models : 1,
				   sizeof(*m->models));
	rc = m->models ? QA_OK : QA_E_NOMEM;
	i = 0;
	cJSON_ArrayForEach(x, models) {
		if (rc != QA_OK)
			break;
		rc = read_model(&r, x, i, &m->models[i]);
		i++;
	}
	cJSON_Delete(root);
	if (rc == QA_E_NOMEM)
		snprintf(err, errlen, "out of memory");
	return rc;
}

int
qa_manifest_read(const char *path, struct qa_manifest *m, char *err,
		 size_t errlen)
{
	char *text;
	size_t len;
	int rc;

	memset(m, 0, sizeof(*m));
	qa_arena_init(&m->arena, 0);
	text = slurp(path, &len, err, errlen, &rc);
	if (!text)
		return rc;
	qa_arena_finish(&m->arena);
	rc = qa_manifest_parse(text, len, path, m, err, errlen);
	free(text);
	return rc;
}

void
qa_manifest_free(struct qa_manifest *m)
{
	if (m)
		qa_arena_finish(&m->arena);
}
