/* SPDX-License-Identifier: MIT */
/*
 * verify (verify.h): the manifest's regions hashed again where it says
 * they are, then the lists of files and tensors compared by name.
 */
#include "integrity/verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/source.h"

const char *
qa_verify_kind_name(enum qa_verify_kind k)
{
	static const char *const names[] = {
		[QA_V_FILE_MISSING] = "missing",
		[QA_V_FILE_UNREADABLE] = "unreadable",
		[QA_V_FILE_TRUNCATED] = "truncated",
		[QA_V_FILE_GROWN] = "grown",
		[QA_V_HEADER_CHANGED] = "changed",
		[QA_V_OTHER_CHANGED] = "changed",
		[QA_V_SHA256_CHANGED] = "changed",
		[QA_V_TENSOR_CHANGED] = "changed",
		[QA_V_UNREADABLE] = "unreadable",
		[QA_V_TENSOR_MISSING] = "missing",
		[QA_V_TENSOR_EXTRA] = "extra",
		[QA_V_FILE_EXTRA] = "extra",
		[QA_V_UNVERIFIED] = "unverified",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static struct qa_verify_item *
add(struct qa_verify *v, enum qa_verify_kind kind, const char *file,
    const char *tensor, const char *region)
{
	struct qa_verify_item *it;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		struct qa_verify_item *n = qa_arena_grow(&v->arena, v->items,
							 v->cap, cap,
							 sizeof(*n));

		if (!n)
			return NULL;
		v->items = n;
		v->cap = cap;
	}
	it = &v->items[v->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->file = file;
	it->tensor = tensor;
	it->region = region;
	if (kind != QA_V_UNVERIFIED)
		v->n_differences++;
	return it;
}

/* Every model of the manifest as one list (file indexes shifted). */
static int
flatten(const struct qa_manifest *m, struct qa_arena *a,
	struct qa_content *out)
{
	size_t nf = 0, nt = 0, i, f = 0, t = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < m->n_models; i++) {
		nf += m->models[i].c.n_files;
		nt += m->models[i].c.n_tensors;
	}
	if (nf > UINT32_MAX || nt > UINT32_MAX)
		return QA_E_NOMEM;
	out->files = qa_arena_array(a, nf ? nf : 1, sizeof(*out->files));
	out->tensors = qa_arena_array(a, nt ? nt : 1, sizeof(*out->tensors));
	if (!out->files || !out->tensors)
		return QA_E_NOMEM;
	for (i = 0; i < m->n_models; i++) {
		const struct qa_content *c = &m->models[i].c;
		uint32_t k;

		memcpy(out->files + f, c->files, c->n_files * sizeof(*c->files));
		for (k = 0; k < c->n_tensors; k++) {
			out->tensors[t + k] = c->tensors[k];
			out->tensors[t + k].file += (uint32_t)f;
		}
		f += c->n_files;
		t += c->n_tensors;
	}
	out->n_files = (uint32_t)nf;
	out->n_tensors = (uint32_t)nt;
	return QA_OK;
}

/* Where the file at rel is now: as the model read at path has it, else
 * under path (a folder) or beside it. */
static const char *
locate(struct qa_arena *a, const char *path, bool path_is_dir,
       const struct qa_content *cur, size_t n_cur, const char *rel)
{
	size_t i, dl;
	uint32_t k;
	const char *slash;

	for (i = 0; i < n_cur; i++)
		for (k = 0; k < cur[i].n_files; k++)
			if (strcmp(cur[i].files[k].path, rel) == 0)
				return cur[i].files[k].display;
	if (path_is_dir)
		return qa_arena_printf(a, "%s%s%s", path,
				       path[strlen(path) - 1] == '/' ? "" : "/",
				       rel);
	slash = strrchr(path, '/');
	dl = slash ? (size_t)(slash - path) + 1 : 0;
	return qa_arena_printf(a, "%.*s%s", (int)dl, path, rel);
}

static bool
same(const struct qa_digest *x, const struct qa_digest *y)
{
	return x->hi == y->hi && x->lo == y->lo;
}

/* A region the manifest hashed (want), as it is now (got). */
static int
compare_region(struct qa_verify *v, const struct qa_region_hash *want,
	       const struct qa_region_hash *got, enum qa_verify_kind changed,
	       const char *file, const char *tensor, const char *region,
	       uint64_t offset, uint64_t bytes)
{
	struct qa_verify_item *it = NULL;

	if (want->state != QA_REGION_HASHED)
		it = add(v, QA_V_UNVERIFIED, file, tensor, region);
	else if (got->state == QA_REGION_NO_FILE)
		return QA_OK;	/* said once, for the file */
	else if (got->state != QA_REGION_HASHED)
		it = add(v, QA_V_UNREADABLE, file, tensor, region);
	else if (!same(&want->digest, &got->digest))
		it = add(v, changed, file, tensor, region);
	else
		return QA_OK;
	if (!it)
		return QA_E_NOMEM;
	it->offset = offset;
	it->bytes = bytes;
	it->at = got->error_offset;
	it->err = got->error_errno;
	return QA_OK;
}

struct named {
	const char *file, *name;
	const char *display_file;
};

static int
cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c ? c : strcmp(x->name, y->name);
}

/* Tensors and files the model has now against the manifest's lists. */
static int
compare_lists(struct qa_verify *v, const struct qa_content *want,
	      const struct qa_content *cur, size_t n_cur)
{
	struct named *a, *b;
	size_t na = want->n_tensors, nb = 0, i, j, k;
	int rc = QA_OK;

	for (i = 0; i < n_cur; i++)
		nb += cur[i].n_tensors;
	a = malloc((na ? na : 1) * sizeof(*a));
	b = malloc((nb ? nb : 1) * sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return QA_E_NOMEM;
	}
	for (i = 0; i < na; i++) {
		a[i].file = want->files[want->tensors[i].file].path;
		a[i].name = want->tensors[i].name;
	}
	for (i = 0, k = 0; i < n_cur; i++)
		for (j = 0; j < cur[i].n_tensors; j++, k++) {
			const struct qa_tensor_hash *t = &cur[i].tensors[j];

			b[k].file = t->file < cur[i].n_files ?
				    cur[i].files[t->file].path : "";
			b[k].name = t->name;
		}
	qsort(a, na, sizeof(*a), cmp_named);
	qsort(b, nb, sizeof(*b), cmp_named);
	for (i = j = 0; rc == QA_OK && (i < na || j < nb);) {
		int c = i == na ? 1 : j == nb ? -1 : cmp_named(&a[i], &b[j]);

		if (c == 0) {
			i++;
			j++;
			continue;
		}
		if (!add(v, c < 0 ? QA_V_TENSOR_MISSING : QA_V_TENSOR_EXTRA,
			 c < 0 ? a[i].file : b[j].file,
			 c < 0 ? a[i].name : b[j].name, "tensor"))
			rc = QA_E_NOMEM;
		if (c < 0)
			i++;
		else
			j++;
	}
	free(a);
	free(b);
	for (i = 0; rc == QA_OK && i < n_cur; i++)
		for (j = 0; j < cur[i].n_files; j++) {
			const char *p = cur[i].files[j].path;

			for (k = 0; k < want->n_files; k++)
				if (strcmp(want->files[k].path, p) == 0)
					break;
			if (k == want->n_files &&
			    !add(v, QA_V_FILE_EXTRA, p, NULL, "file")) {
				rc = QA_E_NOMEM;
				break;
			}
		}
	return rc;
}

int
qa_verify_run(const char *path, struct qa_inventory *const *invs,
	      size_t n_invs, const char *why_not,
	      const struct qa_manifest *m,
	      const struct qa_content_options *opt, struct qa_verify *out,
	      char *err, size_t errlen)
{
	const struct qa_fs *fs = qa_fs_default();
	struct qa_content want, got, *cur;
	struct qa_content_options o = *opt;
	enum qa_node_kind kind = QA_NODE_MISSING;
	uint64_t size;
	size_t n_cur = 0, i;
	uint32_t k;
	int rc, e;

	memset(out, 0, sizeof(*out));
	qa_arena_init(&out->arena, 0);
	cur = calloc(n_invs ? n_invs : 1, sizeof(*cur));
	if (!cur)
		goto nomem;
	for (i = 0; i < n_invs; i++) {
		if (!invs[i])
			continue;
		if (qa_content_plan(invs[i], &cur[n_cur]) != QA_OK)
			goto nomem;
		n_cur++;
	}
	/* A model inside an archive: its members open through the
	 * archive (struct qa_inventory.member_fs). */
	for (i = 0; i < n_invs; i++)
		if (invs[i] && invs[i]->member_fs)
			fs = invs[i]->member_fs;
	out->model_read = n_cur > 0;
	if (!out->model_read)
		snprintf(out->model_note, sizeof(out->model_note), "%s",
			 why_not && *why_not ? why_not :
			 "no model could be read there");
	if (flatten(m, &out->arena, &want) != QA_OK)
		goto nomem;
	got = want;
	got.files = qa_arena_array(&out->arena, want.n_files ? want.n_files : 1,
				   sizeof(*got.files));
	got.tensors = qa_arena_array(&out->arena,
				     want.n_tensors ? want.n_tensors : 1,
				     sizeof(*got.tensors));
	if (!got.files || !got.tensors)
		goto nomem;
	memcpy(got.files, want.files, want.n_files * sizeof(*got.files));
	memcpy(got.tensors, want.tensors,
	       want.n_tensors * sizeof(*got.tensors));
	(void)fs->stat(fs, path, &kind, &size, &e);
	for (k = 0; k < got.n_files; k++) {
		got.files[k].display = locate(&out->arena, path,
					      kind == QA_NODE_DIR, cur, n_cur,
					      want.files[k].path);
		if (!got.files[k].display)
			goto nomem;
		got.files[k].has_sha256 = false;
	}
	o.sha256 = m->sha256;
	rc = qa_content_hash(fs, &out->arena, &o, &got, err, errlen);
	if (rc != QA_OK) {
		free(cur);
		return rc;
	}
	out->files = want.n_files;
	out->tensors = want.n_tensors;
	out->bytes = got.bytes_hashed;
	for (k = 0; k < want.n_files; k++) {
		const struct qa_file_hash *w = &want.files[k], *g = &got.files[k];
		struct qa_verify_item *it;

		if (g->open_errno) {
			it = add(out, g->open_errno == ENOENT ?
				 QA_V_FILE_MISSING : QA_V_FILE_UNREADABLE,
				 w->path, NULL, "file");
			if (!it)
				goto nomem;
			it->err = g->open_errno;
			it->expected_bytes = w->bytes;
			continue;
		}
		if (g->bytes != w->bytes) {
			it = add(out, g->bytes < w->bytes ? QA_V_FILE_TRUNCATED :
				 QA_V_FILE_GROWN, w->path, NULL, "file");
			if (!it)
				goto nomem;
			it->expected_bytes = w->bytes;
			it->actual_bytes = g->bytes;
			it->at = g->bytes < w->bytes ? g->bytes : w->bytes;
		}
		if (compare_region(out, &w->header, &g->header,
				   QA_V_HEADER_CHANGED, w->path, NULL, "header",
				   0, w->header_bytes) != QA_OK)
			goto nomem;
		if (g->bytes == w->bytes &&
		    compare_region(out, &w->other, &g->other,
				   QA_V_OTHER_CHANGED, w->path, NULL,
				   "other bytes", 0, w->other_bytes) != QA_OK)
			goto nomem;
		if (w->has_sha256 && g->bytes == w->bytes) {
			struct qa_region_hash wh = w->sha_state, gh = g->sha_state;

			/* The digests compared through the region logic:
			 * equal SHA-256 or not. */
			wh.digest.hi = gh.digest.hi = 0;
			if (gh.state == QA_REGION_HASHED &&
			    memcmp(w->sha256, g->sha256, 32) != 0)
				gh.digest.hi = 1;
			if (compare_region(out, &wh, &gh, QA_V_SHA256_CHANGED,
					   w->path, NULL, "sha256", 0,
					   w->bytes) != QA_OK)
				goto nomem;
		}
	}
	for (k = 0; k < want.n_tensors; k++) {
		const struct qa_tensor_hash *w = &want.tensors[k];

		if (compare_region(out, &w->h, &got.tensors[k].h,
				   QA_V_TENSOR_CHANGED,
				   want.files[w->file].path, w->name, "tensor",
				   w->offset, w->bytes) != QA_OK)
			goto nomem;
	}
	if (n_cur > 0 && compare_lists(out, &want, cur, n_cur) != QA_OK)
		goto nomem;
	free(cur);
	return QA_OK;
nomem:
	free(cur);
	snprintf(err, errlen, "out of memory");
	return QA_E_NOMEM;
}

void
qa_verify_free(struct qa_verify *v)
{
	if (v)
		qa_arena_finish(&v->arena);
}
