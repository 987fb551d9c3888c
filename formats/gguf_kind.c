/* SPDX-License-Identifier: MIT */
/*
 * GGUF files that are not base models (formats/format.h
 * qa_gguf_file_kind): what the file declares itself to be, read from the
 * keys and tensor names its producer writes, with the facts a user needs.
 *
 *   LoRA adapter    general.type = "adapter", adapter.type, adapter.lora.alpha,
 *                   <module>.lora_a / .lora_b (llama.cpp
 *                   convert_lora_to_gguf.py; src/llama-adapter.cpp reads it)
 *   projector       general.type = "mmproj" or general.architecture = "clip",
 *                   clip.has_vision_encoder / has_audio_encoder, clip.*
 *                   (gguf-py constants.py Keys.Clip*, tools/mtmd/clip.cpp)
 *   importance      general.type = "imatrix", imatrix.datasets,
 *   matrix          imatrix.chunk_count, imatrix.chunk_size, <tensor>.in_sum2
 *                   and <tensor>.counts (tools/imatrix/imatrix.cpp)
 *   control vector  general.architecture = "controlvector",
 *                   controlvector.model_hint, controlvector.layer_count,
 *                   direction.<layer> (tools/cvector-generator)
 *   draft           an MTP /
 *                   NextN sidecar: {arch}.nextn_predict_layers = n and
 *                   only the last n blocks, beside token_embd, output_norm
 *                   and output (llama.cpp convert_hf_to_gguf.py --mtp,
 *                   conversion/qwen.py _Qwen35MtpMixin: filter_tensors
 *                   keeps embed_tokens, norm and lm_head of the trunk,
 *                   block_count stays num_hidden_layers + n, the file is
 *                   named mtp-<name>.gguf); or general.architecture
 *                   "dflash" (conversion/qwen.py DFlashModel:
 *                   dflash.target_layers, dflash.target_hidden_size,
 *                   dflash.block_size) or "eagle3" (gguf-py MODEL_ARCH.
 *                   EAGLE3; fc.weight fuses three target hidden states)
 *
 * A general.type none of these is a named finding (QA1035): the file is
 * not audited as a model, rather than guessed to be one.
 */
#include "formats/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"
#include "core/gguf_keys.h"

#define MAX_FACTS 16
/* Distinct target modules named in a finding and kept as a fact. */
#define MAX_TARGETS 64

static const char *
kv_str(const struct qa_inventory *inv, const char *key)
{
	const struct qa_kv *kv = qa_inv_kv(inv, key);

	return kv && kv->value.type == QA_V_STRING ? kv->value.v.str.s : NULL;
}

static int64_t
kv_int(const struct qa_inventory *inv, const char *key)
{
	const struct qa_kv *kv = qa_inv_kv(inv, key);
	int64_t v;

	return kv && qa_value_as_int(&kv->value, &v) ? v : -1;
}

static bool
kv_true(const struct qa_inventory *inv, const char *key)
{
	const struct qa_kv *kv = qa_inv_kv(inv, key);

	return kv && kv->value.type == QA_V_BOOL && kv->value.v.u;
}

static struct qa_value *
fact(struct qa_inventory *inv, const char *key)
{
	struct qa_kind_fact *f;

	if (!inv->kind_info.facts) {
		inv->kind_info.facts = qa_arena_array(&inv->arena, MAX_FACTS,
						      sizeof(*f));
		if (!inv->kind_info.facts) {
			inv->out_of_memory = true;
			return NULL;
		}
		inv->kind_info.cap_facts = MAX_FACTS;
	}
	if (inv->kind_info.n_facts >= inv->kind_info.cap_facts)
		return NULL;
	f = &inv->kind_info.facts[inv->kind_info.n_facts++];
	f->key = key;
	return &f->value;
}

static void
fact_int(struct qa_inventory *inv, const char *key, int64_t v)
{
	struct qa_value *x;

	if (v < 0 || !(x = fact(inv, key)))
		return;
	x->type = QA_V_I64;
	x->v.i = v;
}

static void
fact_double(struct qa_inventory *inv, const char *key, double v)
{
	struct qa_value *x = fact(inv, key);

	if (!x)
		return;
	x->type = QA_V_F64;
	x->v.f = v;
}

static void
fact_str(struct qa_inventory *inv, const char *key, const char *s)
{
	struct qa_value *x;

	if (!s || !(x = fact(inv, key)))
		return;
	x->type = QA_V_STRING;
	x->v.str.s = s;
	x->v.str.len = strlen(s);
}

/* A list of strings (names borrowed from the inventory). */
static void
fact_list(struct qa_inventory *inv, const char *key, const char **s,
	  uint32_t n)
{
	struct qa_value *x = fact(inv, key), *items;
	uint32_t i;

	if (!x)
		return;
	items = n ? qa_arena_array(&inv->arena, n, sizeof(*items)) : NULL;
	if (n && !items) {
		inv->out_of_memory = true;
		return;
	}
	for (i = 0; i < n; i++) {
		items[i].type = QA_V_STRING;
		items[i].v.str.s = s[i];
		items[i].v.str.len = strlen(s[i]);
	}
	x->type = QA_V_ARRAY;
	x->v.arr.elem = QA_V_STRING;
	x->v.arr.kept = n;
	x->v.arr.count = n;
	x->v.arr.items = items;
}

static bool
ends_with(const char *s, const char *suffix, size_t *stem)
{
	size_t n = strlen(s), m = strlen(suffix);

	if (n < m || strcmp(s + n - m, suffix) != 0)
		return false;
	*stem = n - m;
	return true;
}

/* The block index of "blk.<n>." names, -1 otherwise; *rest after it. */
static int64_t
block_of(const char *name, const char **rest)
{
	const char *p = name + 4;
	uint64_t b = 0;

	*rest = name;
	if (strncmp(name, "blk.", 4) != 0 || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if (qa_ckd_mul(&b, b, 10) ||
		    qa_ckd_add(&b, b, (uint64_t)(*p - '0')) || b > INT32_MAX)
			return -1;
	if (*p != '.')
		return -1;
	*rest = p + 1;
	return (int64_t)b;
}

/* Distinct names, kept in order of first sight, up to MAX_TARGETS. */
struct name_set {
	const char *v[MAX_TARGETS];
	uint32_t n;
	bool more;	/* a name past MAX_TARGETS was left out */
};

static void
name_set_add(struct qa_inventory *inv, struct name_set *s, const char *name,
	     size_t len)
{
	uint32_t i;
	char *copy;

	for (i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && memcmp(s->v[i], name, len) == 0)
			return;
	if (s->n == MAX_TARGETS) {
		s->more = true;
		return;
	}
	copy = qa_arena_strndup(&inv->arena, name, len);
	if (!copy) {
		inv->out_of_memory = true;
		return;
	}
	s->v[s->n++] = copy;
}

/* "attn_q, attn_v" (at most 8 named, then "and N more"), in buf. */
static const char *
name_set_text(const struct name_set *s, char *buf, size_t cap)
{
	size_t len = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < s->n && i < 8 && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s",
					i ? ", " : "", s->v[i]);
	if ((s->n > 8 || s->more) && len < cap)
		snprintf(buf + len, cap - len, " and %s more",
			 s->more ? "many" : "others");
	return buf;
}

/* Blocks seen: the count of distinct indices, below 2^20. */
struct blocks {
	uint8_t *seen;
	uint32_t cap, distinct;
};

static void
blocks_add(struct qa_inventory *inv, struct blocks *b, int64_t blk)
{
	if (blk < 0 || blk >= (1 << 20))
		return;
	if (!b->seen) {
		b->cap = 1 << 20;
		b->seen = qa_arena_array(&inv->arena, b->cap / 8, 1);
		if (!b->seen) {
			inv->out_of_memory = true;
			return;
		}
	}
	if (!(b->seen[blk / 8] & (1u << (blk % 8)))) {
		b->seen[blk / 8] |= (uint8_t)(1u << (blk % 8));
		b->distinct++;
	}
}

static int
cmp_names(const void *a, const void *b)
{
	const struct qa_tensor *x = *(const struct qa_tensor *const *)a;
	const struct qa_tensor *y = *(const struct qa_tensor *const *)b;

	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* The tensors sorted by name (malloc'd), so a pair's two halves are
 * neighbours: "<stem>.lora_a" before "<stem>.lora_b", "<stem>.counts"
 * before "<stem>.in_sum2". */
static const struct qa_tensor **
sorted_tensors(const struct qa_inventory *inv)
{
	const struct qa_tensor **v;
	uint32_t i;

	v = malloc((inv->n_tensors ? inv->n_tensors : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < inv->n_tensors; i++)
		v[i] = &inv->tensors[i];
	qsort(v, inv->n_tensors, sizeof(*v), cmp_names);
	return v;
}

/* ---- LoRA adapters --------------------------------------------------- */

static void
lora(struct qa_inventory *inv, const char *path)
{
	const char *arch = kv_str(inv, QA_GGUF_GENERAL_ARCHITECTURE);
	const char *type = kv_str(inv, QA_GGUF_ADAPTER_TYPE);
	const struct qa_kv *alpha_kv =
		qa_inv_kv(inv, QA_GGUF_ADAPTER_LORA_ALPHA);
	const struct qa_tensor **v = sorted_tensors(inv);
	struct name_set targets;
	struct blocks blocks;
	int64_t rank_min = -1, rank_max = -1;
	uint32_t i, pairs = 0, bad = 0;
	double alpha = 0;
	bool have_alpha = alpha_kv && qa_value_as_double(&alpha_kv->value,
							  &alpha);
	char list[512], rank_text[64], alpha_text[64];

	memset(&targets, 0, sizeof(targets));
	memset(&blocks, 0, sizeof(blocks));
	if (!v) {
		inv->out_of_memory = true;
		return;
	}
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *a = v[i], *b;
		size_t stem;
		const char *rest;
		int64_t blk;

		if (!a->name)
			continue;
		if (ends_with(a->name, ".lora_b", &stem)) {
			/* a lora_b whose lora_a would sort just before it */
			if (bad++ < 3)
				qa_inv_finding(inv, QA1036, path, -1, a->name,
					       "'%s' has no .lora_a beside it",
					       a->name);
			continue;
		}
		if (!ends_with(a->name, ".lora_a", &stem))
			continue;
		b = i + 1 < inv->n_tensors ? v[i + 1] : NULL;
		if (!b || !b->name || strlen(b->name) != stem + 7 ||
		    strncmp(b->name, a->name, stem) != 0 ||
		    strcmp(b->name + stem, ".lora_b") != 0) {
			if (bad++ < 3)
				qa_inv_finding(inv, QA1036, path, -1, a->name,
					       "'%s' has no .lora_b beside it",
					       a->name);
			continue;
		}
		i++;	/* b is this pair's */
		/* lora_a ne = [n_in, rank], lora_b ne = [rank, n_out]
		 * (src/llama-adapter.cpp: a->ne[1] must equal b->ne[0]) */
		if (a->n_dims < 2 || b->n_dims < 2 ||
		    a->shape[1] != b->shape[0]) {
			if (bad++ < 3)
				qa_inv_finding(inv, QA1036, path, -1, a->name,
					       "'%s' has rank %" PRIu64 " but "
					       "its .lora_b %" PRIu64
					       " (ne[1] of A must equal ne[0] "
					       "of B)", a->name,
					       a->n_dims >= 2 ? a->shape[1] :
					       0, b->shape[0]);
			continue;
		}
		pairs++;
		if (rank_min < 0 || (int64_t)a->shape[1] < rank_min)
			rank_min = (int64_t)a->shape[1];
		if ((int64_t)a->shape[1] > rank_max)
			rank_max = (int64_t)a->shape[1];
		blk = block_of(a->name, &rest);
		blocks_add(inv, &blocks, blk);
		/* the module: "blk.3.attn_q.weight" -> "attn_q" */
		{
			size_t len = stem - (size_t)(rest - a->name);

			if (len > 7 && memcmp(rest + len - 7, ".weight", 7) == 0)
				len -= 7;
			name_set_add(inv, &targets, rest, len);
		}
	}
	free(v);
	if (bad > 3)
		qa_inv_finding(inv, QA1036, path, -1, NULL,
			       "%" PRIu32 " LoRA tensors are unpaired or "
			       "disagree in rank in all", bad);
	fact_str(inv, "adapter_type", type);
	fact_str(inv, "base_architecture", arch);
	fact_int(inv, "rank", rank_max);
	if (rank_min != rank_max)
		fact_int(inv, "rank_min", rank_min);
	if (have_alpha)
		fact_double(inv, "alpha", alpha);
	fact_int(inv, "modules", pairs);
	fact_int(inv, "layers", blocks.distinct);
	fact_list(inv, "target_modules", targets.v, targets.n);
	if (rank_max < 0)
		snprintf(rank_text, sizeof(rank_text), "no LoRA pairs");
	else if (rank_min != rank_max)
		snprintf(rank_text, sizeof(rank_text), "rank %" PRId64 "-%"
			 PRId64, rank_min, rank_max);
	else
		snprintf(rank_text, sizeof(rank_text), "rank %" PRId64,
			 rank_max);
	if (have_alpha)
		snprintf(alpha_text, sizeof(alpha_text), ", alpha %g", alpha);
	else
		snprintf(alpha_text, sizeof(alpha_text), ", no alpha");
	inv->kind_info.summary = qa_arena_printf(&inv->arena,
		"a %s adapter for %s, %s%s", type && strcmp(type, "lora") ?
		type : "LoRA", arch ? arch : "an unnamed architecture",
		rank_text, alpha_text);
	inv->kind_info.advice = "load it with --lora beside its base model";
	qa_inv_finding(inv, QA1031, path, -1, NULL,
		       "%s%s: %" PRIu32 " adapted modules (%s) in %" PRIu32
		       " layers; not a model: its base model's checks are "
		       "not run (llama.cpp: --lora beside -m BASE)",
		       inv->kind_info.summary ? inv->kind_info.summary : "",
		       type ? "" : " (adapter.type absent)",
		       pairs, name_set_text(&targets, list, sizeof(list)),
		       blocks.distinct);
}

/* ---- projectors ------------------------------------------------------ */

static void
projector(struct qa_inventory *inv, const char *path)
{
	bool vision = kv_true(inv, QA_GGUF_CLIP_HAS_VISION_ENCODER);
	bool audio = kv_true(inv, QA_GGUF_CLIP_HAS_AUDIO_ENCODER);
	const char *ptype = kv_str(inv, QA_GGUF_CLIP_PROJECTOR_TYPE);
	const char *vtype = kv_str(inv, QA_GGUF_CLIP_VISION_PROJECTOR_TYPE);
	const char *atype = kv_str(inv, QA_GGUF_CLIP_AUDIO_PROJECTOR_TYPE);
	uint64_t v_params = 0, a_params = 0, mm_params = 0, all = 0;
	uint32_t i;
	char enc[256];
	size_t len = 0;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (!t->name)
			continue;
		all = qa_sat_add(all, t->elements);
		/* gguf-py MODEL_TENSOR V_* "v.", A_* "a.", projector "mm." */
		if (strncmp(t->name, "v.", 2) == 0)
			v_params = qa_sat_add(v_params, t->elements);
		else if (strncmp(t->name, "a.", 2) == 0)
			a_params = qa_sat_add(a_params, t->elements);
		else if (strncmp(t->name, "mm.", 3) == 0)
			mm_params = qa_sat_add(mm_params, t->elements);
	}
	if (!vision && !audio && v_params)
		vision = true;	/* older files: the tensors say it */
	fact_str(inv, "projector_type", ptype ? ptype : vtype ? vtype : atype);
	fact_int(inv, "has_vision_encoder", vision);
	fact_int(inv, "has_audio_encoder", audio);
	if (vision) {
		fact_int(inv, "vision_block_count",
			 kv_int(inv, QA_GGUF_CLIP_VISION_BLOCK_COUNT));
		fact_int(inv, "vision_embedding_length",
			 kv_int(inv, QA_GGUF_CLIP_VISION_EMBEDDING_LENGTH));
		fact_int(inv, "vision_image_size",
			 kv_int(inv, QA_GGUF_CLIP_VISION_IMAGE_SIZE));
		fact_int(inv, "vision_patch_size",
			 kv_int(inv, QA_GGUF_CLIP_VISION_PATCH_SIZE));
		fact_int(inv, "vision_params", (int64_t)v_params);
	}
	if (audio) {
		fact_int(inv, "audio_block_count",
			 kv_int(inv, QA_GGUF_CLIP_AUDIO_BLOCK_COUNT));
		fact_int(inv, "audio_embedding_length",
			 kv_int(inv, QA_GGUF_CLIP_AUDIO_EMBEDDING_LENGTH));
		fact_int(inv, "audio_params", (int64_t)a_params);
	}
	fact_int(inv, "projection_dim", kv_int(inv, vision ?
		 QA_GGUF_CLIP_VISION_PROJECTION_DIM :
		 QA_GGUF_CLIP_AUDIO_PROJECTION_DIM));
	fact_int(inv, "params", (int64_t)all);
	enc[0] = '\0';
	if (vision)
		len += (size_t)snprintf(enc + len, sizeof(enc) - len,
			"vision encoder of %" PRId64 " blocks, width %" PRId64,
			kv_int(inv, QA_GGUF_CLIP_VISION_BLOCK_COUNT),
			kv_int(inv, QA_GGUF_CLIP_VISION_EMBEDDING_LENGTH));
	if (audio && len < sizeof(enc))
		len += (size_t)snprintf(enc + len, sizeof(enc) - len,
			"%saudio encoder of %" PRId64 " blocks, width %" PRId64,
			vision ? " and " : "",
			kv_int(inv, QA_GGUF_CLIP_AUDIO_BLOCK_COUNT),
			kv_int(inv, QA_GGUF_CLIP_AUDIO_EMBEDDING_LENGTH));
	if (!vision && !audio)
		snprintf(enc, sizeof(enc), "no encoder declared");
	inv->kind_info.summary = qa_arena_printf(&inv->arena,
		"a multimodal projector (%s; projector %s), %" PRIu64
		" parameters", enc, ptype ? ptype : vtype ? vtype :
		atype ? atype : "type not declared", all);
	inv->kind_info.advice = "load it with --mmproj beside its language "
				"model, or put it in the model's folder";
	if (!inv->kind_info.as_projector)
		qa_inv_finding(inv, QA1032, path, -1, NULL,
		       "%s: not a model: a language model's checks are not "
		       "run (llama.cpp: --mmproj beside -m MODEL)",
		       inv->kind_info.summary ? inv->kind_info.summary : "");
}

/* ---- importance matrices -------------------------------------------- */

static void
imatrix(struct qa_inventory *inv, const char *path)
{
	const struct qa_kv *ds = qa_inv_kv(inv, QA_GGUF_IMATRIX_DATASETS);
	int64_t chunks = kv_int(inv, QA_GGUF_IMATRIX_CHUNK_COUNT);
	int64_t chunk_size = kv_int(inv, QA_GGUF_IMATRIX_CHUNK_SIZE);
	const struct qa_tensor **v = sorted_tensors(inv);
	const char *names[8];
	uint32_t i, n_ds = 0, entries = 0, bad = 0;
	struct name_set kinds;
	struct blocks blocks;
	char list[512];

	memset(&kinds, 0, sizeof(kinds));
	memset(&blocks, 0, sizeof(blocks));
	if (!v) {
		inv->out_of_memory = true;
		return;
	}
	if (ds && ds->value.type == QA_V_ARRAY &&
	    ds->value.v.arr.elem == QA_V_STRING) {
		struct qa_value e;

		for (i = 0; i < ds->value.v.arr.kept && n_ds < 8; i++)
			if (qa_value_item(&ds->value, i, &e))
				names[n_ds++] = e.v.str.s;
	} else if (ds && ds->value.type == QA_V_STRING) {
		names[n_ds++] = ds->value.v.str.s;	/* older: one string */
	}
	/* sorted: "<stem>.counts" comes just before "<stem>.in_sum2" */
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = v[i], *u;
		size_t stem;
		const char *rest;

		if (!t->name)
			continue;
		if (ends_with(t->name, ".counts", &stem)) {
			u = i + 1 < inv->n_tensors ? v[i + 1] : NULL;
			if (u && u->name && strlen(u->name) == stem + 8 &&
			    strncmp(u->name, t->name, stem) == 0 &&
			    strcmp(u->name + stem, ".in_sum2") == 0) {
				i++;
				entries++;
				blocks_add(inv, &blocks,
					   block_of(t->name, &rest));
				{
					size_t len = stem -
						(size_t)(rest - t->name);

					if (len > 7 && memcmp(rest + len - 7,
							      ".weight", 7) == 0)
						len -= 7;
					name_set_add(inv, &kinds, rest, len);
				}
				continue;
			}
			if (bad++ < 3)
				qa_inv_finding(inv, QA1037, path, -1, t->name,
					       "'%s' has no .in_sum2 beside it",
					       t->name);
		} else if (ends_with(t->name, ".in_sum2", &stem)) {
			if (bad++ < 3)
				qa_inv_finding(inv, QA1037, path, -1, t->name,
					       "'%s' has no .counts beside it",
					       t->name);
		}
	}
	free(v);
	if (bad > 3)
		qa_inv_finding(inv, QA1037, path, -1, NULL,
			       "%" PRIu32 " imatrix tensors are unpaired in "
			       "all", bad);
	fact_list(inv, "datasets", names, n_ds);
	fact_int(inv, "chunk_count", chunks);
	fact_int(inv, "chunk_size", chunk_size);
	fact_int(inv, "entries", entries);
	fact_int(inv, "layers", blocks.distinct);
	fact_list(inv, "tensor_kinds", kinds.v, kinds.n);
	inv->kind_info.summary = qa_arena_printf(&inv->arena,
		"an importance matrix of %" PRIu32 " tensors in %" PRIu32
		" layers, %" PRId64 " chunks of %" PRId64 " tokens, dataset %s",
		entries, blocks.distinct, chunks, chunk_size,
		n_ds ? names[0] : "not named");
	inv->kind_info.advice = "give it to llama-quantize --imatrix; it is "
				"not a model";
	qa_inv_finding(inv, QA1033, path, -1, NULL,
		       "%s; covers %s: an input of llama-quantize --imatrix, "
		       "not a model (model checks not run)",
		       inv->kind_info.summary ? inv->kind_info.summary : "",
		       name_set_text(&kinds, list, sizeof(list)));
}

/* ---- control vectors ------------------------------------------------- */

static void
control_vector(struct qa_inventory *inv, const char *path)
{
	const char *hint = kv_str(inv, "controlvector.model_hint");
	int64_t layers = kv_int(inv, "controlvector.layer_count");
	uint32_t i, directions = 0;
	int64_t embd = -1;

	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];

		if (t->name && strncmp(t->name, "direction.", 10) == 0) {
			directions++;
			if (embd < 0 && t->n_dims >= 1)
				embd = (int64_t)t->shape[0];
		}
	}
	fact_str(inv, "model_hint", hint);
	fact_int(inv, "layer_count", layers);
	fact_int(inv, "directions", directions);
	fact_int(inv, "embedding_length", embd);
	inv->kind_info.summary = qa_arena_printf(&inv->arena,
		"a control vector for %s, %" PRIu32 " layer directions of "
		"width %" PRId64, hint ? hint : "an unnamed model", directions,
		embd);
	inv->kind_info.advice = "apply it with --control-vector beside its "
				"model";
	qa_inv_finding(inv, QA1034, path, -1, NULL,
		       "%s (controlvector.layer_count %" PRId64 "): not a "
		       "model (llama.cpp: --control-vector beside -m MODEL)",
		       inv->kind_info.summary ? inv->kind_info.summary : "",
		       layers);
}

/* ---- drafts ---------------------------------------------------------- */

static const struct qa_tensor *
tensor_named(const struct qa_inventory *inv, const char *name)
{
	uint32_t i;

	for (i = 0; i < inv->n_tensors; i++)
		if (inv->tensors[i].name &&
		    strcmp(inv->tensors[i].name, name) == 0)
			return &inv->tensors[i];
	return NULL;
}

/* The vocabulary the draft was written for: token_embd's rows (ne[1]),
 * else the tokenizer's token count; -1 when the file holds neither (a
 * sidecar that borrows the target's embeddings). *from says which. */
static int64_t
draft_vocab(const struct qa_inventory *inv, const char **from)
{
	const struct qa_tensor *e = tensor_named(inv, "token_embd.weight");
	const struct qa_tensor *o = tensor_named(inv, "output.weight");
	const struct qa_kv *tok = qa_inv_kv(inv, QA_GGUF_TOKENIZER_LIST);

	*from = NULL;
	if (e && e->n_dims >= 2) {
		*from = "token_embd rows";
		return (int64_t)e->shape[1];
	}
	if (o && o->n_dims >= 2) {
		*from = "output rows";
		return (int64_t)o->shape[1];
	}
	if (tok && tok->value.type == QA_V_ARRAY) {
		*from = "tokenizer.ggml.tokens";
		return (int64_t)tok->value.v.arr.count;
	}
	return -1;
}

static const char *
arch_key(struct qa_inventory *inv, const char *arch, const char *key)
{
	return qa_arena_printf(&inv->arena, "%s.%s", arch, key);
}

/*
 * An MTP sidecar: the trunk's last blocks alone. Its target is the model
 * of the same architecture with block_count - n trunk layers, the same
 * embedding width and vocabulary: each told from the file, or said to
 * be unknown.
 */
static void
mtp_sidecar(struct qa_inventory *inv, const char *path, const char *arch)
{
	const char *vfrom, *shared_key;
	int64_t vocab = draft_vocab(inv, &vfrom);
	int64_t embd = inv->hp.n_embd, eh_embd = -1;
	char vocab_text[96], embd_text[96];
	const struct qa_tensor *eh = NULL;
	uint32_t i;
	bool shared;

	for (i = 0; i < inv->n_tensors && !eh; i++)
		if (inv->tensors[i].name &&
		    strstr(inv->tensors[i].name, ".nextn.eh_proj.weight"))
			eh = &inv->tensors[i];
	/* eh_proj maps [embedding; hidden] (2 * n_embd) to n_embd:
	 * ne = [2 * n_embd, n_embd] (llama.cpp src/models/qwen35.cpp and the other nextn graphs:
	 * eh_proj {2 * n_embd, n_embd}) */
	if (eh && eh->n_dims >= 2 && eh->shape[0] == 2 * eh->shape[1])
		eh_embd = (int64_t)eh->shape[1];
	shared_key = arch_key(inv, arch, "nextn_shared_target_tensors");
	shared = shared_key && qa_inv_kv(inv, shared_key);
	inv->model_kind = QA_MKIND_DRAFT;
	fact_str(inv, "draft_type", "mtp");
	fact_str(inv, "target_architecture", arch);
	fact_int(inv, "target_layers", inv->hp.n_layer);
	fact_int(inv, "nextn_layers", inv->hp.n_mtp);
	fact_int(inv, "hidden_size", embd >= 0 ? embd : eh_embd);
	fact_int(inv, "vocab_size", vocab);
	if (shared)
		fact_int(inv, "shares_target_tensors", 1);
	if (embd >= 0)
		snprintf(embd_text, sizeof(embd_text), "hidden size %" PRId64,
			 embd);
	else if (eh_embd >= 0)
		snprintf(embd_text, sizeof(embd_text), "hidden size %" PRId64
			 " (from eh_proj; no embedding_length)", eh_embd);
	else
		snprintf(embd_text, sizeof(embd_text), "hidden size not told "
			 "(no embedding_length, no eh_proj)");
	if (vocab >= 0)
		snprintf(vocab_text, sizeof(vocab_text), "vocabulary %" PRId64
			 " (%s)", vocab, vfrom);
	else
		snprintf(vocab_text, sizeof(vocab_text), "vocabulary not told "
			 "(no token_embd, output or tokenizer%s)", shared ?
			 ": it borrows the target's" : "");
	inv->kind_info.summary = qa_arena_printf(&inv->arena,
		"an MTP draft sidecar for a %s model of %" PRId64 " layers "
		"(%" PRId64 " NextN layer%s, %s, %s)", arch, inv->hp.n_layer,
		inv->hp.n_mtp, inv->hp.n_mtp == 1 ? "" : "s", embd_text,
		vocab_text);
	inv->kind_info.advice = "load it with --model-draft (--spec-type "
				"draft-mtp) beside its target model";
	qa_inv_finding(inv, QA1040, path, -1, NULL,
		       "%s: a draft, not a model by itself (llama.cpp: "
		       "-md beside -m TARGET); the target must be %s with "
		       "%" PRId64 " trunk layers and the same hidden size and "
		       "vocabulary", inv->kind_info.summary ?
		       inv->kind_info.summary : "", arch, inv->hp.n_layer);
	if (embd >= 0 && eh_embd >= 0 && embd != eh_embd)
		qa_inv_finding(inv, QA1040, path, -1, eh->name,
			       "embedding_length is %" PRId64 " but %s maps "
			       "to %" PRId64 ": the sidecar's own keys and "
			       "tensors disagree on the hidden size", embd,
			       eh->name, eh_embd);
}

/* A draft architecture (DFlash, EAGLE-3): what it says of its target. */
static void
draft_arch(struct qa_inventory *inv, const char *path, const char *arch)
{
	const char *vfrom;
	int64_t vocab = draft_vocab(inv, &vfrom);
	int64_t th = kv_int(inv, arch_key(inv, arch, "target_hidden_size"));
	const struct qa_kv *tl = qa_inv_kv(inv, arch_key(inv, arch,
							 "target_layers"));
	const struct qa_tensor *fc = tensor_named(inv, "fc.weight");
	int64_t fc_th = -1;
	char layers[160] = "", th_text[96];
	bool eagle = strcmp(arch, "eagle3") == 0;

	/* EAGLE-3 fc fuses three target hidden states: ne = [3 * target
	 * hidden, hidden] (formats/draft_head.c) */
	if (eagle && fc && fc->n_dims >= 2 && fc->shape[0] % 3 == 0)
		fc_th = (int64_t)(fc->shape[0] / 3);
	if (th < 0)
		th = fc_th;
	if (tl && tl->value.type == QA_V_ARRAY) {
		struct qa_value e;
		size_t len = 0;
		uint32_t i;

		for (i = 0; i < tl->value.v.arr.kept && i < 16 &&
		     len < sizeof(layers); i++) {
			int64_t v;

			if (qa_value_item(&tl->value, i, &e) &&
			    qa_value_as_int(&e, &v))
				len += (size_t)snprintf(layers + len,
					sizeof(layers) - len, "%s%" PRId64,
					i ? ", " : "", v);
		}
	}
	inv->model_kind = QA_MKIND_DRAFT;
	fact_str(inv, "draft_type", arch);
	fact_int(inv, "target_hidden_size", th);
	fact_int(inv, "hidden_size", inv->hp.n_embd);
	fact_int(inv, "vocab_size", vocab);
	if (tl && tl->value.type == QA_V_ARRAY) {
		struct qa_value *x = fact(inv, "target_layers");

		if (x)
			*x = tl->value;	/* the key's own array */
	}
	if (th >= 0)
		snprintf(th_text, sizeof(th_text), "target hidden size %"
			 PRId64, th);
	else
		snprintf(th_text, sizeof(th_text), "target hidden size not "
			 "told");
	inv->kind_info.summary = qa_arena_printf(&inv->arena,
		"%s draft model (%s%s%s, vocabulary %s)",
		eagle ? "an EAGLE-3" : "a DFlash", th_text,
		layers[0] ? ", reads target layers " : "", layers,
		vocab >= 0 ? qa_arena_printf(&inv->arena, "%" PRId64, vocab) :
		"not told");
	inv->kind_info.advice = "load it with --model-draft beside its "
				"target model";
	qa_inv_finding(inv, QA1040, path, -1, NULL,
		       "%s: a draft, not a model by itself (llama.cpp: -md "
		       "beside -m TARGET)%s", inv->kind_info.summary ?
		       inv->kind_info.summary : "", layers[0] || !eagle ? "" :
		       "; the target layers it reads are not in the file");
}

/* Only the last n_mtp blocks are in the file, and at least one of
 * them: the trunk was left out (--mtp). */
static bool
nextn_only(const struct qa_inventory *inv)
{
	uint32_t i, in_head = 0;

	if (inv->hp.n_mtp <= 0 || inv->hp.n_layer < 0)
		return false;
	for (i = 0; i < inv->n_tensors; i++) {
		const char *rest;
		int64_t b = inv->tensors[i].name ?
			    block_of(inv->tensors[i].name, &rest) : -1;

		if (b < 0)
			continue;
		if (b < inv->hp.n_layer)
			return false;
		in_head++;
	}
	return in_head > 0;
}

/* A draft by its architecture or its blocks; a model otherwise. */
static void
draft_kind(struct qa_inventory *inv, const char *path, const char *arch)
{
	if (!arch)
		return;
	if (strcmp(arch, "dflash") == 0 || strcmp(arch, "eagle3") == 0)
		draft_arch(inv, path, arch);
	else if (nextn_only(inv))
		mtp_sidecar(inv, path, arch);
}

void
qa_gguf_file_kind(struct qa_inventory *inv)
{
	const char *type = kv_str(inv, QA_GGUF_GENERAL_TYPE);
	const char *arch = kv_str(inv, QA_GGUF_GENERAL_ARCHITECTURE);
	const char *path = inv->n_files ? inv->files[0].path : inv->path;

	if (type && strcmp(type, QA_GGUF_TYPE_ADAPTER) == 0) {
		inv->model_kind = QA_MKIND_ADAPTER;
		lora(inv, path);
	} else if ((type && strcmp(type, QA_GGUF_TYPE_MMPROJ) == 0) ||
		   (arch && strcmp(arch, QA_GGUF_ARCH_CLIP) == 0)) {
		inv->model_kind = QA_MKIND_PROJECTOR;
		projector(inv, path);
	} else if (type && strcmp(type, QA_GGUF_TYPE_IMATRIX) == 0) {
		inv->model_kind = QA_MKIND_IMATRIX;
		imatrix(inv, path);
	} else if (arch && strcmp(arch, QA_GGUF_ARCH_CONTROLVECTOR) == 0) {
		inv->model_kind = QA_MKIND_CONTROL_VECTOR;
		control_vector(inv, path);
	} else if (type && strcmp(type, QA_GGUF_TYPE_MODEL) != 0) {
		inv->model_kind = QA_MKIND_UNKNOWN;
		inv->kind_info.summary = qa_arena_printf(&inv->arena,
			"a GGUF of general.type '%s'", type);
		inv->kind_info.advice = "quantaudit does not know this kind "
					"of file; inspect lists its tensors";
		qa_inv_finding(inv, QA1035, path, -1, NULL,
			       "general.type is '%s', a kind of file "
			       "quantaudit does not know: not audited as a "
			       "model (a model's checks are not run)", type);
	} else {
		draft_kind(inv, path, arch);
	}
}
