/* SPDX-License-Identifier: MIT */
/*
 * MTP / next-token-prediction completeness.
 *
 * Decides the input's MTP status (present, missing, partial, absent,
 * not-applicable) from three things: what the metadata declares
 * (hparams.n_mtp, read from num_nextn_predict_layers /
 * mtp_num_hidden_layers / {arch}.nextn_predict_layers by the formats),
 * which MTP tensors the files hold (the role classifier marks them, under
 * every family's naming: blk.N.nextn.*, model.layers.{N}.eh_proj,
 * mtp.fc / mtp.layers.K, model.mtp_layers.K...), and whether the family
 * normally ships an MTP head (rules/mtp_families.def). Sources for the
 * conventions: ../shared/knowledge/quant-formats.md §B.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/check.h"

enum expectation { ALWAYS, OPTIONAL, V3_ROUTING };

struct family {
	const char *names;	/* '|'-separated architecture names */
	const char *label;
	enum expectation expect;
	int sublayers;		/* checkpoint layers per MTP layer */
	const char *note;
	const char *source;
	const char *as_of;
};

static const struct family families[] = {
#define QA_MTP_FAMILY(n, l, e, sub, note, src, asof) \
	{ n, l, e, sub, note, src, asof },
#include "mtp_families.def"
#undef QA_MTP_FAMILY
};

/* Parts every MTP layer needs, as bits. */
enum {
	PART_PROJ = 1 << 0,	/* eh_proj / mtp.fc / input_proj */
	PART_ENORM = 1 << 1,
	PART_HNORM = 1 << 2,
	PART_ATTN = 1 << 3,	/* any attention projection */
	PART_MLP = 1 << 4,	/* any MLP / expert projection */
	PART_ALL = (1 << 5) - 1,
};

/* MTP layers tracked per input; real models have 1 to 3. */
#define MAX_MTP_LAYERS 16

static bool
in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (n == 0)
		return false;
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t k = bar ? (size_t)(bar - p) : strlen(p);

		if (k == n && strncmp(p, name, n) == 0)
			return true;
		if (!bar)
			break;
		p = bar + 1;
	}
	return false;
}

static const struct family *
family_of(const struct qa_inventory *inv)
{
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if ((inv->hp.arch && in_list(families[i].names, inv->hp.arch)) ||
		    (inv->hp.arch_raw &&
		     in_list(families[i].names, inv->hp.arch_raw)))
			return &families[i];
	return NULL;
}

static bool
contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i;

	for (; hay && *hay; hay++) {
		for (i = 0; i < n; i++)
			if (tolower((unsigned char)hay[i]) !=
			    tolower((unsigned char)needle[i]))
				break;
		if (i == n)
			return true;
	}
	return false;
}

/*
 * GGUF deepseek2 covers DeepSeek-V2 (softmax routing, no MTP) and
 * V3/R1 (sigmoid routing with a per-expert score bias, exp_probs_b, and an
 * MTP layer). Kimi-K2 and Moonlight reuse V3's routing without shipping
 * MTP, so they are recognized by name and left alone.
 */
static bool
v3_routing(const struct qa_inventory *inv)
{
	const struct qa_kv *kv;
	uint32_t i;

	if (contains_nocase(inv->hp.name, "kimi") ||
	    contains_nocase(inv->hp.name, "moonlight"))
		return false;
	kv = qa_inv_kv(inv, "general.basename");
	if (kv && kv->value.type == QA_V_STRING &&
	    (contains_nocase(kv->value.v.str.s, "kimi") ||
	     contains_nocase(kv->value.v.str.s, "moonlight")))
		return false;
	for (i = 0; i < inv->n_tensors; i++)
		if (strstr(inv->tensors[i].name, "exp_probs_b"))
			return true;
	return false;
}

static unsigned
part_of(enum qa_role r)
{
	switch (r) {
	case QA_ROLE_MTP_EH_PROJ:
		return PART_PROJ;
	case QA_ROLE_MTP_ENORM:
		return PART_ENORM;
	case QA_ROLE_MTP_HNORM:
		return PART_HNORM;
	case QA_ROLE_ATTN_Q: case QA_ROLE_ATTN_K: case QA_ROLE_ATTN_V:
	case QA_ROLE_ATTN_O: case QA_ROLE_ATTN_QKV:
	case QA_ROLE_MLA_Q_A: case QA_ROLE_MLA_Q_B: case QA_ROLE_MLA_KV_A:
	case QA_ROLE_MLA_KV_B: case QA_ROLE_MLA_K_B: case QA_ROLE_MLA_V_B:
		return PART_ATTN;
	case QA_ROLE_FFN_GATE: case QA_ROLE_FFN_UP: case QA_ROLE_FFN_DOWN:
	case QA_ROLE_FFN_GATE_UP:
	case QA_ROLE_EXPERT_GATE: case QA_ROLE_EXPERT_UP:
	case QA_ROLE_EXPERT_DOWN: case QA_ROLE_EXPERT_GATE_UP:
	case QA_ROLE_SHARED_EXPERT_GATE: case QA_ROLE_SHARED_EXPERT_UP:
	case QA_ROLE_SHARED_EXPERT_DOWN:
		return PART_MLP;
	default:
		return 0;
	}
}

/* Appends the names of the missing parts to buf. */
static void
describe_missing(char *buf, size_t len, unsigned have)
{
	static const struct { unsigned bit; const char *name; } parts[] = {
		{ PART_PROJ, "projection (eh_proj / mtp.fc)" },
		{ PART_ENORM, "embedding norm (enorm)" },
		{ PART_HNORM, "hidden norm (hnorm)" },
		{ PART_ATTN, "attention" },
		{ PART_MLP, "MLP" },
	};
	size_t i, used = strlen(buf);
	bool first = true;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		int w;

		if (have & parts[i].bit)
			continue;
		w = snprintf(buf + used, len - used, "%s%s", first ? "" : ", ",
			     parts[i].name);
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
		first = false;
	}
}

/* True when every MTP tensor lives in a file that an index exists for
 * but does not name (the st_set loader reports those files as QA1305). */
static bool
only_in_unlisted_files(const struct qa_inventory *inv)
{
	uint32_t i, j;
	bool any = false;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		bool unlisted = false;

		if (!t->mtp)
			continue;
		any = true;
		for (j = 0; j < inv->n_findings && !unlisted; j++) {
			const struct qa_finding *f = &inv->findings[j];

			unlisted = f->rule->code == QA1305 && f->file &&
				   strcmp(f->file, inv->files[t->file].path) == 0;
		}
		if (!unlisted)
			return false;
	}
	return any;
}

static const char *
declaring_key(const struct qa_inventory *inv)
{
	if (inv->kind == QA_KIND_GGUF)
		return "{arch}.nextn_predict_layers";
	return "config.json (num_nextn_predict_layers or "
	       "mtp_num_hidden_layers)";
}

static void
run(struct qa_inventory *inv, const struct qa_check_options *opt)
{
	const struct family *fam = family_of(inv);
	unsigned have[MAX_MTP_LAYERS] = { 0 };
	bool seen[MAX_MTP_LAYERS] = { false };
	int64_t declared = inv->mtp.declared, base = inv->hp.n_layer;
	int64_t min_layer = INT64_MAX, max_layer = -1, k, sub;
	uint32_t i, n_mtp = 0;
	bool trunk = false;
	const char *where = inv->files && inv->n_files ? inv->files[0].path :
			    inv->path;

	(void)opt;
	if (fam)
		inv->mtp.family = fam->label;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (!t->mtp) {
			if (t->layer >= 0 && t->role != QA_ROLE_VISION &&
			    t->role != QA_ROLE_PROJECTOR)
				trunk = true;
			continue;
		}
		n_mtp++;
		if (t->layer >= 0 && t->layer < min_layer)
			min_layer = t->layer;
		if (t->layer > max_layer)
			max_layer = t->layer;
	}
	if (base < 0)
		base = min_layer == INT64_MAX ? 0 : min_layer;
	sub = fam && fam->sublayers > 1 ? fam->sublayers : 1;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		int64_t slot = ((t->layer >= 0 ? t->layer : base) - base) / sub;

		if (t->mtp && slot >= 0 && slot < MAX_MTP_LAYERS) {
			have[slot] |= part_of(t->role);
			seen[slot] = true;
		}
	}
	/* Present layers in MTP-layer units (Nemotron-H's two sub-layers
	 * are one layer); the summary counted checkpoint layers. */
	if (sub > 1) {
		inv->mtp.present = 0;
		for (k = 0; k < MAX_MTP_LAYERS; k++)
			inv->mtp.present += seen[k];
	}

	if (declared > 0 && n_mtp == 0) {
		inv->mtp.status = QA_MTP_MISSING;
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
	} else if (declared > 0) {
		char missing[512] = "";
		int64_t bad_layers = 0;

		for (k = 0; k < declared && k < MAX_MTP_LAYERS; k++) {
			char one[200] = "";
			size_t used = strlen(missing);

			if ((have[k] & PART_ALL) == PART_ALL)
				continue;
			bad_layers++;
			describe_missing(one, sizeof(one), have[k]);
			snprintf(missing + used, sizeof(missing) - used,
				 "%slayer %" PRId64 " lacks %s",
				 used ? "; " : "", base + k * sub,
				 have[k] ? one : "every tensor");
		}
		if (bad_layers > 0) {
			inv->mtp.status = QA_MTP_PARTIAL;
			qa_inv_finding(inv, QA2002, where, -1, NULL,
				       "%" PRId64 " of %" PRId64 " declared MTP "
				       "layer%s incomplete: %s", bad_layers,
				       declared, bad_layers == 1 ? " is" :
				       "s are", missing);
		} else {
			inv->mtp.status = QA_MTP_PRESENT;
		}
		if (max_layer >= base + declared * sub)
			qa_inv_finding(inv, QA2006, where, -1, NULL,
				       "MTP tensors reach layer %" PRId64 " but "
				       "only %" PRId64 " MTP layer%s (from "
				       "layer %" PRId64 ") %s declared",
				       max_layer, declared,
				       declared == 1 ? "" : "s", base,
				       declared == 1 ? "is" : "are");
	} else if (n_mtp > 0) {
		inv->mtp.status = QA_MTP_PRESENT;
		qa_inv_finding(inv, QA2003, where, -1, NULL,
			       "%" PRIu32 " MTP tensors are present but %s is "
			       "not set, so engines will not load them",
			       n_mtp, declaring_key(inv));
	} else if (fam && (fam->expect == ALWAYS ||
			   (fam->expect == V3_ROUTING && v3_routing(inv)))) {
		inv->mtp.status = QA_MTP_ABSENT;
		qa_inv_finding(inv, QA2004, where, -1, NULL,
			       "%s: no MTP head declared or present, so no "
			       "MTP speculative decoding; %s (%s, as of %s)",
			       fam->label, fam->note, fam->source,
			       fam->as_of);
	} else {
		inv->mtp.status = QA_MTP_NOT_APPLICABLE;
	}

	if (n_mtp > 0 && !trunk && inv->kind == QA_KIND_GGUF) {
		inv->mtp.draft_only = true;
		qa_inv_finding(inv, QA2005, where, -1, NULL,
			       "%" PRIu32 " MTP tensors and no trunk layer: "
			       "use it as the draft beside the full model",
			       n_mtp);
	}
	if (n_mtp > 0 && only_in_unlisted_files(inv))
		qa_inv_finding(inv, QA2007, where, -1, NULL,
			       "all %" PRIu32 " MTP tensors are in files that "
			       "model.safetensors.index.json does not list",
			       n_mtp);
}

const struct qa_check qa_check_mtp = { "mtp", run };
