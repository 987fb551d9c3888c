/* SPDX-License-Identifier: MIT */
/*
 * The verify report (report_integrity.h): a line per difference for
 * people, quantaudit-verify/1 JSON for machines. Paths and tensor names
 * come from the model and the manifest: escaped on every path out.
 */
#include "report/report_integrity.h"

#include <inttypes.h>
#include <string.h>

#include "config.h"
#include "core/escape.h"
#include "core/jsonw.h"
#include "core/units.h"

/* The detail of an item after its name, into buf. */
static void
detail(const struct qa_verify_item *it, char *buf, size_t n)
{
	char a[32], b[32];

	switch (it->kind) {
	case QA_V_FILE_MISSING:
		qa_fmt_bytes(a, sizeof(a), it->expected_bytes);
		snprintf(buf, n, "not found (the manifest lists %s)", a);
		break;
	case QA_V_FILE_UNREADABLE:
		snprintf(buf, n, "cannot be opened: %s", strerror(it->err));
		break;
	case QA_V_FILE_TRUNCATED:
		snprintf(buf, n, "%" PRIu64 " bytes, the manifest says %"
			 PRIu64 ": everything from offset %" PRIu64
			 " on is missing", it->actual_bytes,
			 it->expected_bytes, it->at);
		break;
	case QA_V_FILE_GROWN:
		snprintf(buf, n, "%" PRIu64 " bytes, the manifest says %"
			 PRIu64 ": %" PRIu64 " bytes added from offset %"
			 PRIu64, it->actual_bytes, it->expected_bytes,
			 it->actual_bytes - it->expected_bytes, it->at);
		break;
	case QA_V_UNREADABLE:
		if (it->err)
			snprintf(buf, n, "offset %" PRIu64 ", %" PRIu64
				 " bytes: read error at offset %" PRIu64
				 ": %s", it->offset, it->bytes, it->at,
				 strerror(it->err));
		else
			snprintf(buf, n, "offset %" PRIu64 ", %" PRIu64
				 " bytes: past the end of the file (it ends "
				 "at offset %" PRIu64 ")", it->offset,
				 it->bytes, it->at);
		break;
	case QA_V_TENSOR_MISSING:
		snprintf(buf, n, "in the manifest, no longer in the model");
		break;
	case QA_V_TENSOR_EXTRA:
	case QA_V_FILE_EXTRA:
		snprintf(buf, n, "in the model, not in the manifest");
		break;
	case QA_V_UNVERIFIED:
		snprintf(buf, n, "the manifest holds no hash of it");
		break;
	case QA_V_OTHER_CHANGED:
		qa_fmt_bytes(a, sizeof(a), it->bytes);
		snprintf(buf, n, "bytes in neither the header nor a tensor "
			 "(padding, trailing bytes; %s) differ", a);
		break;
	case QA_V_SHA256_CHANGED:
		snprintf(buf, n, "the SHA-256 of the file differs");
		break;
	default:
		qa_fmt_bytes(a, sizeof(a), it->bytes);
		snprintf(b, sizeof(b), "%" PRIu64, it->offset);
		snprintf(buf, n, "offset %s, %s: the bytes differ", b, a);
		break;
	}
}

static void
text_item(FILE *f, const struct qa_verify_item *it)
{
	char buf[512];

	fprintf(f, "  %-10s ", qa_verify_kind_name(it->kind));
	if (it->tensor) {
		fputs("tensor ", f);
		qa_esc_text(f, it->tensor);
		fputs(" in ", f);
		qa_esc_text(f, it->file);
	} else if (strcmp(it->region, "file") == 0) {
		fputs("file ", f);
		qa_esc_text(f, it->file);
	} else {
		fprintf(f, "%s of ", it->region);
		qa_esc_text(f, it->file);
	}
	detail(it, buf, sizeof(buf));
	fprintf(f, ": %s\n", buf);
}

int
qa_report_verify_text(FILE *f, const char *path, const char *manifest,
		      const struct qa_verify *v)
{
	char bytes[32];
	size_t i;

	fputs("verify ", f);
	qa_esc_text(f, path);
	fputs(" against ", f);
	qa_esc_text(f, manifest);
	fputc('\n', f);
	for (i = 0; i < v->n; i++)
		if (v->items[i].kind != QA_V_UNVERIFIED)
			text_item(f, &v->items[i]);
	for (i = 0; i < v->n; i++)
		if (v->items[i].kind == QA_V_UNVERIFIED)
			text_item(f, &v->items[i]);
	if (!v->model_read) {
		fputs("  note: the model could not be read, so added or removed "
		      "tensors are not checked (", f);
		qa_esc_text(f, v->model_note);
		fputs(")\n", f);
	}
	qa_fmt_bytes(bytes, sizeof(bytes), v->bytes);
	fprintf(f, "\n%" PRIu64 " file%s, %" PRIu64 " tensor%s, %s read: ",
		v->files, v->files == 1 ? "" : "s", v->tensors,
		v->tensors == 1 ? "" : "s", bytes);
	if (v->n_differences)
		fprintf(f, "%zu difference%s\nverdict: FAIL\n",
			v->n_differences, v->n_differences == 1 ? "" : "s");
	else
		fputs("identical to the manifest\nverdict: PASS\n", f);
	return ferror(f) ? -1 : 0;
}

int
qa_report_verify_json(FILE *f, const char *path, const char *manifest,
		      const struct qa_verify *v)
{
	struct qa_jw w;
	size_t i;
	int pass;

	qa_jw_init(&w, f);
	qa_jw_obj(&w, NULL);
	qa_jw_str(&w, "schema", "quantaudit-verify/1");
	qa_jw_obj(&w, "tool");
	qa_jw_str(&w, "name", "quantaudit");
	qa_jw_str(&w, "version", QA_VERSION);
	qa_jw_close(&w, '}');
	qa_jw_str(&w, "path", path);
	qa_jw_str(&w, "manifest", manifest);
	qa_jw_obj(&w, "checked");
	qa_jw_u64(&w, "files", v->files);
	qa_jw_u64(&w, "tensors", v->tensors);
	qa_jw_u64(&w, "bytes", v->bytes);
	qa_jw_close(&w, '}');
	qa_jw_bool(&w, "model_read", v->model_read);
	if (!v->model_read)
		qa_jw_str(&w, "model_note", v->model_note);
	for (pass = 0; pass < 2; pass++) {
		qa_jw_arr(&w, pass ? "unverified" : "differences", false);
		for (i = 0; i < v->n; i++) {
			const struct qa_verify_item *it = &v->items[i];
			char buf[512];

			if ((it->kind == QA_V_UNVERIFIED) != (pass == 1))
				continue;
			qa_jw_obj_line(&w, NULL);
			qa_jw_str(&w, "kind", qa_verify_kind_name(it->kind));
			qa_jw_str(&w, "region", it->region);
			qa_jw_str(&w, "file", it->file);
			if (it->tensor)
				qa_jw_str(&w, "tensor", it->tensor);
			if (strcmp(it->region, "file") != 0) {
				qa_jw_u64(&w, "offset", it->offset);
				qa_jw_u64(&w, "bytes", it->bytes);
			}
			if (it->kind == QA_V_FILE_TRUNCATED ||
			    it->kind == QA_V_FILE_GROWN ||
			    it->kind == QA_V_UNREADABLE)
				qa_jw_u64(&w, "at", it->at);
			if (it->kind == QA_V_FILE_TRUNCATED ||
			    it->kind == QA_V_FILE_GROWN ||
			    it->kind == QA_V_FILE_MISSING) {
				qa_jw_u64(&w, "expected_bytes",
					  it->expected_bytes);
				if (it->kind != QA_V_FILE_MISSING)
					qa_jw_u64(&w, "actual_bytes",
						  it->actual_bytes);
			}
			detail(it, buf, sizeof(buf));
			qa_jw_str(&w, "message", buf);
			qa_jw_close(&w, '}');
		}
		qa_jw_close(&w, ']');
	}
	qa_jw_str(&w, "verdict", v->n_differences ? "fail" : "pass");
	qa_jw_close(&w, '}');
	qa_jw_raw(&w, "\n", 1);
	return qa_jw_finish(&w) != 0 || ferror(f) ? -1 : 0;
}
