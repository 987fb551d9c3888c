/* SPDX-License-Identifier: MIT */
/*
 * MTP / next-token-prediction completeness (QA2001-QA2007): the findings
 * of the MTP summary the analysis made (src/analysis/mtp.c, inv->mtp) —
 * a declared head with no weights, declared layers missing parts, MTP
 * tensors past the declared layers, undeclared MTP tensors that engines
 * will not load, a family that ships MTP without it, a draft-only GGUF,
 * and MTP tensors (all or some, each named) in files the index does not
 * name. Conventions: quant-formats.md §B.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules/check.h"

static const char *
declaring_key(const struct qa_inventory *inv)
{
	if (inv->kind == QA_KIND_GGUF)
		return "{arch}.nextn_predict_layers";
	return "config.json (num_nextn_predict_layers or "
	       "mtp_num_hidden_layers)";
}

/* Appends sep and text to buf[cap] at *used; false once it is full
 * (what did not fit is left out whole). */
static bool
append(char *buf, size_t cap, size_t *used, const char *sep,
       const char *text)
{
	int w;

	if (*used >= cap)
		return false;
	w = snprintf(buf + *used, cap - *used, "%s%s", sep, text);
	if (w < 0 || (size_t)w >= cap - *used) {
		buf[*used] = '\0';
		*used = cap;
		return false;
	}
	*used += (size_t)w;
	return true;
}

/* Names kept in a QA2007 message: enough to find them, not a dump. */
#define NAMED_TENSORS 4
#define NAMED_FILES 3

/*
 * "a, b, c, d and 5 more, in mtp.safetensors": the MTP tensors that lie
 * in files the index does not list (the summary's unlisted count), so a
 * user sees which part of the head index-following loaders lose.
 */
static void
name_unlisted(const struct qa_inventory *inv, char *buf, size_t cap)
{
	const char *files[NAMED_FILES];
	size_t used = 0, n_files = 0, k;
	uint32_t i, named = 0, more = 0, more_files = 0;

	buf[0] = '\0';
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		const char *fname;

		if (!t->mtp || t->file >= inv->n_files ||
		    !inv->files[t->file].unlisted)
			continue;
		if (named < NAMED_TENSORS &&
		    append(buf, cap, &used, named ? ", " : "", t->name))
			named++;
		else
			more++;
		fname = inv->files[t->file].name;
		for (k = 0; k < n_files; k++)
			if (strcmp(files[k], fname) == 0)
				break;
		if (k < n_files)
			continue;
		if (n_files < NAMED_FILES)
			files[n_files++] = fname;
		else
			more_files++;
	}
	if (more > 0) {
		char num[32];

		snprintf(num, sizeof(num), " and %" PRIu32 " more", more);
		append(buf, cap, &used, "", num);
	}
	for (k = 0; k < n_files; k++)
		append(buf, cap, &used, k ? ", " : ", in ", files[k]);
	if (more_files > 0)
		append(buf, cap, &used, "", " and other files");
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	int64_t declared = inv->mtp.declared, base = inv->mtp.base;
	int64_t sub = inv->mtp.sublayers > 0 ? inv->mtp.sublayers : 1;
	const char *where = inv->files && inv->n_files ? inv->files[0].path :
			    inv->path;
	char names[512] = "";

	(void)opt;
	switch (inv->mtp.status) {
	case QA_MTP_MISSING:
		qa_inv_finding(inv, QA2001, where, -1, NULL,
			       "%s declares %" PRId64 " MTP layer%s but the "
			       "files hold no MTP tensor (expected %s)",
			       declaring_key(inv), declared,
			       declared == 1 ? "" : "s",
			       inv->kind == QA_KIND_GGUF ?
			       "blk.N.nextn.eh_proj.weight and the block's "
			       "weights" :
			       "mtp.* or model.layers.{N}.eh_proj/enorm/hnorm "
			       "and a decoder layer");
		break;
	case QA_MTP_PARTIAL:
		/* partial only because files lie outside the index:
		 * QA2007's business below */
		if (inv->mtp.incomplete == 0)
			break;
		qa_inv_finding(inv, QA2002, where, -1, NULL,
			       "%" PRId64 " of %" PRId64 " declared MTP "
			       "layer%s incomplete: %s", inv->mtp.incomplete,
			       declared, inv->mtp.incomplete == 1 ? " is" :
			       "s are", inv->mtp.missing ? inv->mtp.missing :
			       "parts are missing");
		break;
	case QA_MTP_ABSENT:
		qa_inv_finding(inv, QA2004, where, -1, NULL,
			       "%s: no MTP head declared or present, so no "
			       "MTP speculative decoding; %s (%s, as of %s)",
			       inv->mtp.family, inv->mtp.family_note,
			       inv->mtp.family_source, inv->mtp.family_as_of);
		break;
	case QA_MTP_PRESENT:
	case QA_MTP_NOT_APPLICABLE:
		break;
	}
	if (declared > 0 && inv->mtp.tensors > 0 &&
	    inv->mtp.max_layer >= base + declared * sub)
		qa_inv_finding(inv, QA2006, where, -1, NULL,
			       "MTP tensors reach layer %" PRId64 " but "
			       "only %" PRId64 " MTP layer%s (from "
			       "layer %" PRId64 ") %s declared",
			       inv->mtp.max_layer, declared,
			       declared == 1 ? "" : "s", base,
			       declared == 1 ? "is" : "are");
	if (declared <= 0 && inv->mtp.tensors > 0)
		qa_inv_finding(inv, QA2003, where, -1, NULL,
			       "%" PRIu32 " MTP tensors are present but %s is "
			       "not set, so engines will not load them",
			       inv->mtp.tensors, declaring_key(inv));
	if (inv->mtp.draft_only)
		qa_inv_finding(inv, QA2005, where, -1, NULL,
			       "%" PRIu32 " MTP tensors and no trunk layer: "
			       "use it as the draft beside the full model",
			       inv->mtp.tensors);
	if (inv->mtp.unlisted > 0)
		name_unlisted(inv, names, sizeof(names));
	if (inv->mtp.only_unlisted)
		qa_inv_finding(inv, QA2007, where, -1, NULL,
			       "all %" PRIu32 " MTP tensors are in files that "
			       "model.safetensors.index.json does not list: %s",
			       inv->mtp.tensors, names);
	else if (inv->mtp.unlisted > 0)
		qa_inv_finding(inv, QA2007, where, -1, NULL,
			       "%" PRIu32 " of the %" PRIu32 " MTP tensors are "
			       "in files that model.safetensors.index.json "
			       "does not list, so loaders that follow the index "
			       "get an incomplete head: %s", inv->mtp.unlisted,
			       inv->mtp.tensors, names);
}

const struct qa_check qa_check_mtp = { "mtp", run, false };
