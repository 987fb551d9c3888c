/* SPDX-License-Identifier: MIT */
/*
 * The MTP / next-token-prediction summary of an inventory: its status
 * (present, missing, partial, absent, not-applicable) from three things —
 * what the metadata declares (hparams.n_mtp, read from
 * num_nextn_predict_layers / mtp_num_hidden_layers /
 * {arch}.nextn_predict_layers by the formats), which MTP tensors the files
 * hold (the role classifier marks them under every family's naming:
 * blk.N.nextn.*, model.layers.{N}.eh_proj, mtp.fc / mtp.layers.K,
 * model.mtp_layers.K...) and whether the family normally ships an MTP
 * head (rules/mtp_families.def) — plus which parts each declared MTP
 * layer lacks. Every command reports the same summary; rules/check_mtp.c
 * turns it into findings. Sources for the conventions:
 * quant-formats.md §B.
 */
#include "analysis/analysis.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
#include "rules/mtp_families.def"
#include "core/gguf_keys.h"
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

/* A name of the model (general.name, general.basename, the base models
 * it declares, general.finetune) that contains needle. */
static bool
named(const struct qa_inventory *inv, const char *needle)
{
	static const char *const keys[] = {
		QA_GGUF_GENERAL_BASENAME, QA_GGUF_GENERAL_FINETUNE,
		QA_GGUF_GENERAL_BASE_MODEL0_NAME,
		QA_GGUF_GENERAL_BASE_MODEL0_REPO_URL,
		QA_GGUF_GENERAL_BASE_MODEL0_ORG,
	};
	size_t k;

	if (contains_nocase(inv->hp.name, needle))
		return true;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const struct qa_kv *kv = qa_inv_kv(inv, keys[k]);

		if (kv && kv->value.type == QA_V_STRING &&
		    contains_nocase(kv->value.v.str.s, needle))
			return true;
	}
	return false;
}

/*
 * GGUF deepseek2 is the architecture of DeepSeek-V2 (no MTP), V3/R1 (an
 * MTP layer, which llama.cpp's converter drops), Kimi-K2 and Moonlight
 * (V3's routing, no MTP shipped): the architecture name alone says
 * nothing about the family. V3/R1 is taken only on evidence: its name
 * (general.name, basename, finetune, base model), or its shape: 61
 * trunk layers and 256 routed experts with V3's per-expert score bias
 * (exp_probs_b), as deepseek-ai/DeepSeek-V3 config.json has it
 * (num_hidden_layers 61, n_routed_experts 256). Kimi-K2 (61 layers, 384
 * experts), Moonlight (27 layers, 64 experts) and anything unnamed of
 * another shape are not expected to carry MTP.
 */
static bool
v3_routing(const struct qa_inventory *inv)
{
	uint32_t i;
	bool bias = false;

	if (named(inv, "kimi") || named(inv, "moonlight"))
		return false;
	{
		/* DeepSeek-V3, DeepSeek_V3, deepseek v3, DeepSeekV3... */
		static const char *const v3[] = {
			"deepseek-v3", "deepseek_v3", "deepseek v3",
			"deepseekv3", "deepseek-r1", "deepseek_r1",
			"deepseek r1", "deepseekr1",
		};
		size_t k;

		for (k = 0; k < sizeof(v3) / sizeof(v3[0]); k++)
			if (named(inv, v3[k]))
				return true;
	}
	for (i = 0; i < inv->n_tensors && !bias; i++)
		if (strstr(inv->tensors[i].name, "exp_probs_b"))
			bias = true;
	return bias && inv->hp.n_layer == 61 && inv->hp.n_expert == 256;
}

/* The MTP layer part a role supplies (role table groups). */
static unsigned
part_of(enum qa_role r)
{
	enum qa_role_group g = qa_role_group(r);

	if (r == QA_ROLE_MTP_EH_PROJ)
		return PART_PROJ;
	if (r == QA_ROLE_MTP_ENORM)
		return PART_ENORM;
	if (r == QA_ROLE_MTP_HNORM)
		return PART_HNORM;
	if (!qa_role_is_linear(r))
		return 0;
	if (g == QA_GROUP_ATTN && r != QA_ROLE_ATTN_GATE &&
	    r != QA_ROLE_DSA_INDEXER && r != QA_ROLE_GDN_QKV &&
	    r != QA_ROLE_GDN_GATE && r != QA_ROLE_GDN_BA)
		return PART_ATTN;
	if (g == QA_GROUP_MLP || g == QA_GROUP_EXPERTS || g == QA_GROUP_SHARED)
		return PART_MLP;
	return 0;
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

/* MTP tensors that live in a file an index exists for but does not
 * name: index-following loaders never open it. */
static uint32_t
unlisted_mtp(const struct qa_inventory *inv)
{
	uint32_t i, n = 0;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (t->mtp && t->file < inv->n_files &&
		    inv->files[t->file].unlisted)
			n++;
	}
	return n;
}

/* Blocks holding MTP tensors (at most 64 counted). */
static int64_t
distinct_mtp_layers(const struct qa_inventory *inv)
{
	int64_t seen_layers[64];
	int n_seen = 0, j;
	uint32_t i;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (!t->mtp || t->layer < 0)
			continue;
		for (j = 0; j < n_seen; j++)
			if (seen_layers[j] == t->layer)
				break;
		if (j == n_seen && n_seen < 64)
			seen_layers[n_seen++] = t->layer;
	}
	return n_seen;
}

void
qa_mtp_summarize(struct qa_inventory *inv)
{
	const struct family *fam = family_of(inv);
	unsigned have[MAX_MTP_LAYERS] = { 0 };
	bool seen[MAX_MTP_LAYERS] = { false };
	int64_t base = inv->hp.n_layer, min_layer = INT64_MAX, k, sub;
	uint32_t i;
	bool trunk = false, loose = false;
	char missing[512] = "";

	memset(&inv->mtp, 0, sizeof(inv->mtp));
	inv->mtp.declared = inv->hp.n_mtp > 0 ? inv->hp.n_mtp : 0;
	inv->mtp.max_layer = -1;
	if (fam) {
		inv->mtp.family = fam->label;
		inv->mtp.family_note = fam->note;
		inv->mtp.family_source = fam->source;
		inv->mtp.family_as_of = fam->as_of;
	}
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (!t->mtp) {
			if (t->layer >= 0 && t->role != QA_ROLE_VISION &&
			    t->role != QA_ROLE_PROJECTOR)
				trunk = true;
			continue;
		}
		inv->mtp.tensors++;
		inv->mtp.bytes += t->bytes;
		if (t->layer < 0)
			loose = true;
		if (t->layer >= 0 && t->layer < min_layer)
			min_layer = t->layer;
		if (t->layer > inv->mtp.max_layer)
			inv->mtp.max_layer = t->layer;
	}
	if (base < 0)
		base = min_layer == INT64_MAX ? 0 : min_layer;
	sub = fam && fam->sublayers > 1 ? fam->sublayers : 1;
	inv->mtp.base = base;
	inv->mtp.sublayers = sub;
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		int64_t slot = ((t->layer >= 0 ? t->layer : base) - base) / sub;

		if (t->mtp && slot >= 0 && slot < MAX_MTP_LAYERS) {
			have[slot] |= part_of(t->role);
			seen[slot] = true;
		}
	}
	if (sub > 1) {
		/* in MTP-layer units: Nemotron-H's two sub-layers are one */
		for (k = 0; k < MAX_MTP_LAYERS; k++)
			inv->mtp.present += seen[k];
	} else {
		inv->mtp.present = distinct_mtp_layers(inv);
	}
	if (inv->mtp.present == 0 && loose)
		inv->mtp.present = 1;

	if (inv->mtp.declared > 0 && inv->mtp.tensors == 0) {
		inv->mtp.status = QA_MTP_MISSING;
	} else if (inv->mtp.declared > 0) {
		for (k = 0; k < inv->mtp.declared && k < MAX_MTP_LAYERS; k++) {
			char one[200] = "";
			size_t used = strlen(missing);

			if ((have[k] & PART_ALL) == PART_ALL)
				continue;
			inv->mtp.incomplete++;
			describe_missing(one, sizeof(one), have[k]);
			snprintf(missing + used, sizeof(missing) - used,
				 "%slayer %" PRId64 " lacks %s",
				 used ? "; " : "", base + k * sub,
				 have[k] ? one : "every tensor");
		}
		inv->mtp.status = inv->mtp.incomplete > 0 ? QA_MTP_PARTIAL :
				  QA_MTP_PRESENT;
	} else if (inv->mtp.tensors > 0) {
		inv->mtp.status = QA_MTP_PRESENT;
	} else if (fam && !inv->hp.mtp_declared &&
		   (fam->expect == ALWAYS ||
		    (fam->expect == V3_ROUTING && v3_routing(inv)))) {
		/* Only a file that does not say: one that declares 0 MTP
		 * layers has no head to miss. */
		inv->mtp.status = QA_MTP_ABSENT;
	} else {
		inv->mtp.status = QA_MTP_NOT_APPLICABLE;
		/* deepseek2 without V3/R1's name or shape: the family is
		 * not known, so no head is expected of it (never "stripped") */
		if (fam && fam->expect == V3_ROUTING && !inv->hp.mtp_declared) {
			inv->mtp.family = "deepseek2, not known to be "
					  "DeepSeek-V3/R1 (DeepSeek-V2, Kimi "
					  "and Moonlight share the "
					  "architecture)";
			inv->mtp.family_note = "no MTP head is expected: "
				"neither its name nor its shape (61 layers, "
				"256 experts) says DeepSeek-V3/R1";
			inv->mtp.not_expected = true;
		}
	}
	if (missing[0]) {
		inv->mtp.missing = qa_arena_strdup(&inv->arena, missing);
		if (!inv->mtp.missing)
			inv->out_of_memory = true;
	}
	inv->mtp.draft_only = inv->mtp.tensors > 0 && !trunk &&
			      inv->kind == QA_KIND_GGUF;
	inv->mtp.unlisted = unlisted_mtp(inv);
	inv->mtp.only_unlisted = inv->mtp.tensors > 0 &&
				 inv->mtp.unlisted == inv->mtp.tensors;
	/* Present is not loaded: say why engines will not see the head. */
	if (inv->mtp.tensors > 0 && inv->mtp.declared == 0 &&
	    !inv->mtp.draft_only)
		inv->mtp.not_loaded = inv->kind == QA_KIND_GGUF ?
			"undeclared: nextn_predict_layers is not set, and "
			"llama.cpp refuses a file with tensors it did not "
			"expect" :
			"undeclared: engines size the MTP head from "
			"num_nextn_predict_layers / mtp_num_hidden_layers "
			"and skip these tensors";
	else if (inv->mtp.unlisted > 0)
		inv->mtp.not_loaded = inv->mtp.only_unlisted ?
			"outside the index: loaders that follow "
			"model.safetensors.index.json never open the file "
			"holding it" :
			"partly outside the index: loaders that follow "
			"model.safetensors.index.json skip some of its tensors";
	/* Loaders see only the listed part of a declared head. */
	if (inv->mtp.unlisted > 0 && inv->mtp.declared > 0 &&
	    inv->mtp.status == QA_MTP_PRESENT)
		inv->mtp.status = QA_MTP_PARTIAL;
}
