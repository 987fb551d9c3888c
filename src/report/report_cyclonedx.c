/* SPDX-License-Identifier: MIT */
/*
 * CycloneDX 1.6 ML-BOM (--format cyclonedx): each model as a component
 * of type machine-learning-model, its files as components of type file,
 * the model depending on its files.
 *
 * What goes in (CycloneDX 1.6, https://cyclonedx.org/docs/1.6/json/):
 * - modelCard.modelParameters: architectureFamily (the normalised family)
 *   and modelArchitecture (general.architecture / model_type as written);
 * - modelCard.properties: the facts read from the tensors, not claimed by
 *   a card: parameters, weight bytes, quantization (GGUF file type, or the
 *   config's method and bits), the dtype most weight matrices hold, layers,
 *   trained context, and per component (attention, MLP, experts...) its
 *   parameters and bytes;
 * - licenses and pedigree.ancestors (the base model) from GGUF
 *   general.license and general.base_model.N.* (ggml-org/llama.cpp
 *   gguf-py/gguf/constants.py, Keys.General); absent when not declared;
 * - per file: its size and format, and a SHA-256 only where it is known
 *   without reading the data: a Hugging Face cache names each LFS file's
 *   blob by the SHA-256 of its bytes (snapshots/REV/FILE is a link to
 *   blobs/SHA256), so a 64-hex link target is that hash; other files get
 *   none (`quantaudit hash --sha256` computes them);
 * - the findings, the verdict and what was not checked, as properties
 *   named quantaudit:* on the model component.
 * No timestamp or serial number: the same model gives the same bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "core/jsonw.h"
#include "core/gguf_keys.h"

#define CDX_SCHEMA_URI "http://cyclonedx.org/schema/bom-1.6.schema.json"

static const char *
kv_str(const struct qa_inventory *inv, const char *key)
{
	const struct qa_kv *kv = qa_inv_kv(inv, key);

	return kv && kv->value.type == QA_V_STRING ? kv->value.v.str.s : NULL;
}

static void
prop(struct qa_jw *w, const char *name, const char *value)
{
	if (!value)
		return;
	qa_jw_obj_line(w, NULL);
	qa_jw_str(w, "name", name);
	qa_jw_str(w, "value", value);
	qa_jw_close(w, '}');
}

static void
prop_u64(struct qa_jw *w, const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	prop(w, name, buf);
}

static void
prop_i64(struct qa_jw *w, const char *name, int64_t v)
{
	char buf[32];

	if (v <= 0)
		return;
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	prop(w, name, buf);
}

/* The SHA-256 a Hugging Face cache link names, into hex (65 bytes), or
 * false. Only a local path, never a URL or an archive member. */
static bool
hf_blob_sha256(const struct qa_inventory *inv, const char *path,
	       char hex[65])
{
	char target[4096];
	const char *base;
	ssize_t len;
	size_t i;

	if (inv->archive.file || strstr(path, "://"))
		return false;
	len = readlink(path, target, sizeof(target) - 1);
	if (len <= 0)
		return false;
	target[len] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) != 64 || !strstr(target, "blobs/"))
		return false;
	for (i = 0; i < 64; i++)
		if (!((base[i] >= '0' && base[i] <= '9') ||
		      (base[i] >= 'a' && base[i] <= 'f')))
			return false;
	memcpy(hex, base, 65);
	return true;
}

/* "gguf:Q4_K_M", "gptq 4-bit", "none" */
static void
quant_label(const struct qa_inventory *inv, char *buf, size_t size)
{
	const struct qa_quant_config *q = &inv->quant;

	if (inv->kind == QA_KIND_GGUF)
		snprintf(buf, size, "gguf:%s", inv->file_type_declared ?
			 inv->file_type_declared : inv->file_type_guessed ?
			 inv->file_type_guessed : "unknown");
	else if (q->method != QA_QM_NONE && q->bits > 0)
		snprintf(buf, size, "%s %d-bit",
			 qa_quant_method_name(q->method), q->bits);
	else
		snprintf(buf, size, "%s", qa_quant_method_name(q->method));
}

static void
model_component(struct qa_jw *w, const struct qa_inventory *inv, size_t idx,
		enum qa_severity fail_on)
{
	char ref[48], buf[256];
	const char *license = kv_str(inv, QA_GGUF_GENERAL_LICENSE);
	const char *name = inv->hp.name && *inv->hp.name ? inv->hp.name :
		inv->path;
	uint32_t i;
	unsigned b;

	snprintf(ref, sizeof(ref), "model-%zu", idx);
	qa_jw_obj(w, NULL);
	qa_jw_str(w, "type", "machine-learning-model");
	qa_jw_str(w, "bom-ref", ref);
	qa_jw_str(w, "name", name);
	if (kv_str(inv, QA_GGUF_GENERAL_VERSION))
		qa_jw_str(w, "version", kv_str(inv, QA_GGUF_GENERAL_VERSION));
	if (license) {
		qa_jw_arr(w, "licenses", false);
		qa_jw_obj(w, NULL);
		qa_jw_obj(w, "license");
		qa_jw_str(w, "name", license);
		qa_jw_close(w, '}');
		qa_jw_close(w, '}');
		qa_jw_close(w, ']');
	}
	/* general.base_model.count, then .N.name / .N.organization /
	 * .N.repo_url (llama.cpp's Keys.General.BASE_MODEL_*). */
	for (b = 0; b < 16; b++) {
		char key[64];
		const char *bname, *url;

		snprintf(key, sizeof(key), QA_GGUF_GENERAL_BASE_MODEL_NAME_FMT,
			 b);
		bname = kv_str(inv, key);
		if (!bname)
			break;
		if (b == 0) {
			qa_jw_obj(w, "pedigree");
			qa_jw_arr(w, "ancestors", false);
		}
		qa_jw_obj(w, NULL);
		qa_jw_str(w, "type", "machine-learning-model");
		qa_jw_str(w, "name", bname);
		snprintf(key, sizeof(key),
			 QA_GGUF_GENERAL_BASE_MODEL_ORG_FMT, b);
		if (kv_str(inv, key))
			qa_jw_str(w, "group", kv_str(inv, key));
		snprintf(key, sizeof(key),
			 QA_GGUF_GENERAL_BASE_MODEL_REPO_URL_FMT, b);
		url = kv_str(inv, key);
		if (url) {
			qa_jw_arr(w, "externalReferences", false);
			qa_jw_obj_line(w, NULL);
			qa_jw_str(w, "type", "website");
			qa_jw_str(w, "url", url);
			qa_jw_close(w, '}');
			qa_jw_close(w, ']');
		}
		qa_jw_close(w, '}');
	}
	if (b > 0) {
		qa_jw_close(w, ']');
		qa_jw_close(w, '}');
	}

	qa_jw_obj(w, "modelCard");
	qa_jw_obj(w, "modelParameters");
	if (inv->hp.arch)
		qa_jw_str(w, "architectureFamily", inv->hp.arch);
	if (inv->hp.arch_raw)
		qa_jw_str(w, "modelArchitecture", inv->hp.arch_raw);
	qa_jw_close(w, '}');
	qa_jw_arr(w, "properties", false);
	prop(w, "quantaudit:format", qa_inv_kind_name(inv->kind));
	prop_u64(w, "quantaudit:parameters", inv->params);
	prop_u64(w, "quantaudit:weight_bytes", inv->bytes);
	prop_u64(w, "quantaudit:tensors", inv->n_tensors);
	quant_label(inv, buf, sizeof(buf));
	prop(w, "quantaudit:quantization", buf);
	prop(w, "quantaudit:dominant_matrix_type", inv->dominant_matrix_type);
	prop_i64(w, "quantaudit:layers", inv->hp.n_layer);
	prop_i64(w, "quantaudit:context_length", inv->hp.n_ctx_train);
	prop_i64(w, "quantaudit:experts", inv->hp.n_expert);
	for (i = 0; i < inv->n_components; i++) {
		const struct qa_component *c = &inv->components[i];

		snprintf(buf, sizeof(buf), "params=%" PRIu64 " bytes=%" PRIu64
			 " tensors=%u", c->params, c->bytes, c->tensors);
		{
			char pname[128];

			snprintf(pname, sizeof(pname),
				 "quantaudit:component:%s", c->name);
			prop(w, pname, buf);
		}
	}
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');

	qa_jw_arr(w, "properties", false);
	prop(w, "quantaudit:verdict", inv->verdict ? inv->verdict :
	     qa_verdict(inv, fail_on));
	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];
		size_t n = strlen(f->rule->id) + (f->message ?
			strlen(f->message) : 0) + (f->tensor ?
			strlen(f->tensor) : 0) + (f->file ? strlen(f->file) :
			0) + 96;
		char *v = malloc(n);

		if (!v)
			continue;
		snprintf(v, n, "QA%04u %s %s: %s%s%s%s%s",
			 (unsigned)f->rule->code,
			 qa_severity_name(f->severity), f->rule->id,
			 f->message ? f->message : "",
			 f->file ? " [" : "", f->file ? f->file : "",
			 f->tensor ? ", tensor " : (f->file ? "" : ""),
			 f->tensor ? f->tensor : "");
		if (f->file)
			strncat(v, "]", n - strlen(v) - 1);
		prop(w, "quantaudit:finding", v);
		free(v);
	}
	{
		uint64_t by[QA_SEV_NONE];
		uint64_t dropped = qa_inventory_dropped(inv, by);

		if (dropped)
			prop_u64(w, "quantaudit:findings_dropped", dropped);
	}
	qa_jw_close(w, ']');
	qa_jw_close(w, '}');
}

static void
file_components(struct qa_jw *w, const struct qa_inventory *inv, size_t idx)
{
	uint32_t i;

	for (i = 0; i < inv->n_files; i++) {
		const struct qa_file *f = &inv->files[i];
		char ref[64], hex[65];

		snprintf(ref, sizeof(ref), "model-%zu-file-%u", idx, i);
		qa_jw_obj(w, NULL);
		qa_jw_str(w, "type", "file");
		qa_jw_str(w, "bom-ref", ref);
		qa_jw_str(w, "name", f->path);
		if (hf_blob_sha256(inv, f->path, hex)) {
			qa_jw_arr(w, "hashes", false);
			qa_jw_obj_line(w, NULL);
			qa_jw_str(w, "alg", "SHA-256");
			qa_jw_str(w, "content", hex);
			qa_jw_close(w, '}');
			qa_jw_close(w, ']');
		}
		qa_jw_arr(w, "properties", false);
		prop_u64(w, "quantaudit:bytes", f->bytes);
		prop(w, "quantaudit:format", f->format);
		if (f->tensor_count)
			prop_u64(w, "quantaudit:tensors", f->tensor_count);
		qa_jw_close(w, ']');
		qa_jw_close(w, '}');
	}
}

int
qa_report_cyclonedx(FILE *out, struct qa_inventory *const *invs, size_t n,
		    const struct qa_report_options *opt)
{
	struct qa_jw w;
	size_t i;
	uint32_t k;

	qa_jw_init(&w, out);
	qa_jw_obj(&w, NULL);
	qa_jw_str(&w, "$schema", CDX_SCHEMA_URI);
	qa_jw_str(&w, "bomFormat", "CycloneDX");
	qa_jw_str(&w, "specVersion", "1.6");
	qa_jw_u64(&w, "version", 1);
	qa_jw_obj(&w, "metadata");
	qa_jw_obj(&w, "tools");
	qa_jw_arr(&w, "components", false);
	qa_jw_obj(&w, NULL);
	qa_jw_str(&w, "type", "application");
	qa_jw_str(&w, "name", "quantaudit");
	qa_jw_str(&w, "version", QA_VERSION);
	qa_jw_close(&w, '}');
	qa_jw_close(&w, ']');
	qa_jw_close(&w, '}');
	qa_jw_arr(&w, "properties", false);
	prop(&w, "quantaudit:verdict", opt->n_failed ? "fail" :
	     qa_verdict_all(invs, n, opt->fail_on));
	for (i = 0; i < opt->n_failed; i++) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%s: %s", opt->failed[i].path,
			 opt->failed[i].message ? opt->failed[i].message : "");
		prop(&w, "quantaudit:input_error", buf);
	}
	qa_jw_close(&w, ']');
	qa_jw_close(&w, '}');

	qa_jw_arr(&w, "components", false);
	for (i = 0; i < n; i++) {
		model_component(&w, invs[i], i, opt->fail_on);
		file_components(&w, invs[i], i);
	}
	qa_jw_close(&w, ']');

	qa_jw_arr(&w, "dependencies", false);
	for (i = 0; i < n; i++) {
		char ref[64];

		snprintf(ref, sizeof(ref), "model-%zu", i);
		qa_jw_obj(&w, NULL);
		qa_jw_str(&w, "ref", ref);
		qa_jw_arr(&w, "dependsOn", false);
		for (k = 0; k < invs[i]->n_files; k++) {
			snprintf(ref, sizeof(ref), "model-%zu-file-%u", i, k);
			qa_jw_str(&w, NULL, ref);
		}
		qa_jw_close(&w, ']');
		qa_jw_close(&w, '}');
		for (k = 0; k < invs[i]->n_files; k++) {
			snprintf(ref, sizeof(ref), "model-%zu-file-%u", i, k);
			qa_jw_obj_line(&w, NULL);
			qa_jw_str(&w, "ref", ref);
			qa_jw_close(&w, '}');
		}
	}
	qa_jw_close(&w, ']');
	qa_jw_close(&w, '}');
	qa_jw_raw(&w, "\n", 1);
	if (qa_jw_finish(&w) != 0)
		return -1;
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
