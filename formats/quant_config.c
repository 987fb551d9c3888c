/* SPDX-License-Identifier: MIT */
/*
 * The quantization claim: reads what a Hugging Face folder's config files
 * say about quantization (struct qa_quant_config). The tensors are the
 * truth (src/analysis/quant_modules.c); this is only what the config
 * claims, read with each method's consumer semantics so the analysis
 * (src/analysis/claims.c) can compare the two per module.
 *
 * Where the config lives (../shared/knowledge/quant-formats.md §1.2,
 * vllm-project/vllm vllm/model_executor/model_loader/weight_utils.py
 * get_quant_config): config.json quantization_config, then
 * text_config.quantization_config, then compression_config; only if none,
 * the method side files. Every method's keys and matching rules: §A1-A8,
 * the summary table §A10. docs/quantization.md explains the result.
 *
 * Patterns are kept as written, with the kind that says how the method's
 * consumer matches them; the analysis (src/analysis/claims.c) matches
 * them against the modules.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/format.h"
#include "core/json_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "core/ckd.h"

/* Config files are kilobytes; the cap matches formats/hf_dir.c. */
#define QC_MAX_BYTES ((uint64_t)16 << 20)


/* ---- small JSON helpers ------------------------------------------------ */

static const char *
str_of(const cJSON *v)
{
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An integer-valued number, or a numeric string ("4"), into *out. */
static bool
int_of(const cJSON *v, int *out)
{
	double d;

	if (cJSON_IsNumber(v)) {
		d = v->valuedouble;
	} else if (cJSON_IsString(v) && v->valuestring[0]) {
		char *end;

		d = strtod(v->valuestring, &end);
		if (*end)
			return false;
	} else {
		return false;
	}
	if (d != d || d < -1e9 || d > 1e9 || d != (double)(int)d)
		return false;
	*out = (int)d;
	return true;
}

/* 0/1 from a JSON bool (or 0/1 number); -1 when absent or other. */
static int
bool_of(const cJSON *v)
{
	int i;

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? 1 : 0;
	if (int_of(v, &i) && (i == 0 || i == 1))
		return i;
	return -1;
}

/* group_size as configs write it: -1 means per-channel (GPTQ, AWQ). */
static int
group_of(const cJSON *v)
{
	int g;

	if (!int_of(v, &g))
		return -1;
	return g < 0 ? 0 : g;
}

/* ---- building the config in the arena --------------------------------- */

struct ctx {
	struct qa_inventory *inv;
	struct qa_quant_config *qc;
	uint32_t cap_exclude, cap_overrides, cap_blocks, cap_targets;
};

static const char *
dup(struct ctx *c, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = qa_arena_strdup(&c->inv->arena, s);
	if (!d)
		c->inv->out_of_memory = true;
	return d;
}

/* Appends one zeroed element to an arena array, doubling it. */
static void *
push(struct ctx *c, void **arr, uint32_t *n, uint32_t *cap, size_t sz)
{
	if (*n == UINT32_MAX)
		return NULL;
	if (*n == *cap) {
		uint32_t ncap = *cap ? (*cap > UINT32_MAX / 2 ? UINT32_MAX :
					*cap * 2) : 8;
		void *na = qa_arena_grow(&c->inv->arena, *arr, *n, ncap, sz);

		if (!na) {
			c->inv->out_of_memory = true;
			return NULL;
		}
		*arr = na;
		*cap = ncap;
	}
	return (char *)*arr + (size_t)(*n)++ * sz;
}

static struct qa_quant_pattern *
add_exclude(struct ctx *c, const char *text, enum qa_pattern_kind kind,
	    const char *source)
{
	struct qa_quant_config *qc = c->qc;
	struct qa_quant_pattern *p = push(c, (void **)&qc->exclude,
					  &qc->n_exclude, &c->cap_exclude,
					  sizeof(*p));

	if (!p)
		return NULL;
	p->text = dup(c, text);
	p->kind = kind;
	p->source = source;
	if (!p->text) {
		qc->n_exclude--;
		return NULL;
	}
	return p;
}

static struct qa_quant_override *
add_override(struct ctx *c, const char *text, enum qa_pattern_kind kind,
	     const char *source)
{
	struct qa_quant_config *qc = c->qc;
	struct qa_quant_override *o = push(c, (void **)&qc->overrides,
					   &qc->n_overrides,
					   &c->cap_overrides, sizeof(*o));

	if (!o)
		return NULL;
	o->pattern.text = dup(c, text);
	o->pattern.kind = kind;
	o->pattern.source = source;
	o->bits = -1;
	o->group_size = -1;
	o->act_bits = -1;
	if (!o->pattern.text) {
		qc->n_overrides--;
		return NULL;
	}
	return o;
}

static void
add_target(struct ctx *c, const char *text, enum qa_pattern_kind kind,
	   const char *source)
{
	struct qa_quant_config *qc = c->qc;
	struct qa_quant_pattern *p = push(c, (void **)&qc->targets,
					  &qc->n_targets, &c->cap_targets,
					  sizeof(*p));

	if (!p)
		return;
	p->text = dup(c, text);
	p->kind = kind;
	p->source = source;
	if (!p->text) {
		qc->n_targets--;
		return;
	}
}

static void
add_block(struct ctx *c, const char *s, size_t len)
{
	struct qa_quant_config *qc = c->qc;
	const char **b;
	char *d;

	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len)
		return;
	d = qa_arena_strndup(&c->inv->arena, s, len);
	if (!d) {
		c->inv->out_of_memory = true;
		return;
	}
	b = push(c, (void **)&qc->blocks, &qc->n_blocks, &c->cap_blocks,
		 sizeof(*b));
	if (b)
		*b = d;
}

/* block_name_to_quantize: "model.layers,mtp.layers" or a list of them
 * (intel/auto-round export_to_autoround/export.py; optimum GPTQ). */
static void
parse_blocks(struct ctx *c, const cJSON *v)
{
	const cJSON *e;

	if (cJSON_IsString(v)) {
		const char *s = v->valuestring, *comma;

		while ((comma = strchr(s, ',')) != NULL) {
			add_block(c, s, (size_t)(comma - s));
			s = comma + 1;
		}
		add_block(c, s, strlen(s));
	} else if (cJSON_IsArray(v)) {
		for (e = v->child; e; e = e->next)
			if (cJSON_IsString(e))
				parse_blocks(c, e);
	}
}

static void
parse_list(struct ctx *c, const cJSON *v, enum qa_pattern_kind kind,
	   const char *source)
{
	const cJSON *e;

	if (!cJSON_IsArray(v))
		return;
	for (e = v->child; e; e = e->next)
		if (cJSON_IsString(e) && e->valuestring[0])
			add_exclude(c, e->valuestring, kind, source);
}

/* compressed-tensors ignore / targets entry: "re:<regex>" or a name. */
static enum qa_pattern_kind
ct_kind(const char *s, const char **text)
{
	if (strncmp(s, "re:", 3) == 0) {
		*text = s + 3;
		return QA_PAT_REGEX;
	}
	*text = s;
	return QA_PAT_EXACT;
}

/* ---- method detection --------------------------------------------------- */

static enum qa_quant_method
method_from_string(const char *s)
{
	static const struct {
		const char *name;
		enum qa_quant_method m;
	} map[] = {
		{ "gptq", QA_QM_GPTQ },
		{ "awq", QA_QM_AWQ },
		{ "auto-round", QA_QM_AUTOROUND },
		{ "auto_round", QA_QM_AUTOROUND },
		{ "intel/auto-round", QA_QM_AUTOROUND },
		{ "compressed-tensors", QA_QM_COMPRESSED_TENSORS },
		{ "compressed_tensors", QA_QM_COMPRESSED_TENSORS },
		{ "modelopt", QA_QM_MODELOPT },
		{ "modelopt_fp4", QA_QM_MODELOPT },
		{ "modelopt_mixed", QA_QM_MODELOPT },
		{ "modelopt_mxfp8", QA_QM_MODELOPT },
		{ "fp8", QA_QM_FP8 },
		{ "mxfp4", QA_QM_MXFP4 },
		{ "bitsandbytes", QA_QM_BITSANDBYTES },
		{ "exl2", QA_QM_EXL2 },
		{ "exl3", QA_QM_EXL3 },
		{ "hqq", QA_QM_HQQ },
		{ "torchao", QA_QM_TORCHAO },
		{ "quark", QA_QM_QUARK },
		{ "qqq", QA_QM_QQQ },
		{ "paroquant", QA_QM_PAROQUANT },
		{ "gguf", QA_QM_GPTQM_GGUF },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcasecmp(s, map[i].name) == 0)
			return map[i].m;
	return QA_QM_OTHER;
}

/*
 * The method of one config object. quant_method as written (GPTQModel
 * also writes "method"); without it the keys and the file name decide:
 * older AutoGPTQ quantize_config.json and AutoAWQ quant_config.json carry
 * no quant_method (§1.2 table).
 */
static enum qa_quant_method
detect_method(const cJSON *q, const char *file_name, const char *key,
	      const char **raw)
{
	const char *qm = str_of(qa_json_child(q, "quant_method"));
	const char *producer = str_of(qa_json_child(qa_json_child(q, "producer"), "name"));

	if (!qm)
		qm = str_of(qa_json_child(q, "method"));
	*raw = qm;
	if (qm)
		return method_from_string(qm);
	if (key && strcmp(key, "quantization") == 0)
		return QA_QM_MLX;
	if (cJSON_IsObject(qa_json_child(q, "quantization")) ||
	    (producer && strcasecmp(producer, "modelopt") == 0))
		return QA_QM_MODELOPT;
	if (qa_json_child(q, "config_groups"))
		return QA_QM_COMPRESSED_TENSORS;
	if (qa_json_child(q, "load_in_4bit") || qa_json_child(q, "load_in_8bit") ||
	    qa_json_child(q, "_load_in_4bit") || qa_json_child(q, "_load_in_8bit"))
		return QA_QM_BITSANDBYTES;
	if (qa_json_child(q, "w_bit") || qa_json_child(q, "zero_point") ||
	    qa_json_child(q, "q_group_size"))
		return QA_QM_AWQ;
	if (qa_json_child(q, "packing_format") || qa_json_child(q, "extra_config"))
		return QA_QM_AUTOROUND;
	if (qa_json_child(q, "weight_block_size") || qa_json_child(q, "fmt"))
		return QA_QM_FP8;
	if (file_name && strcmp(file_name, "quantize_config.json") == 0)
		return QA_QM_GPTQ;
	if (file_name && strcmp(file_name, "quant_config.json") == 0)
		return qa_json_child(q, "desc_act") ? QA_QM_GPTQ : QA_QM_AWQ;
	if (file_name && strcmp(file_name, "quantization_config.json") == 0)
		return QA_QM_AUTOROUND;
	if (file_name && strcmp(file_name, "hf_quant_config.json") == 0)
		return QA_QM_MODELOPT;
	if (qa_json_child(q, "desc_act") || qa_json_child(q, "bits"))
		return QA_QM_GPTQ;
	return QA_QM_OTHER;
}

/* ---- per-method parsing (§A1-A8) --------------------------------------- */

/* GPTQ dynamic (GPTQModel gptqmodel/quantization/config.py
 * _get_dynamic_patterns; vllm quantization/utils/gptq_utils.py
 * get_dynamic_override): ordered; "-:re" skips, "+:re" or a bare regex
 * overrides bits/group_size; re.match semantics. */
static void
parse_dynamic(struct ctx *c, const cJSON *dyn)
{
	const cJSON *e;

	if (!cJSON_IsObject(dyn))
		return;
	for (e = dyn->child; e; e = e->next) {
		const char *k = e->string;
		struct qa_quant_override *o;
		bool skip = false;
		int v;

		if (!k)
			continue;
		if (strncmp(k, "-:", 2) == 0) {
			skip = true;
			k += 2;
		} else if (strncmp(k, "+:", 2) == 0) {
			k += 2;
		}
		o = add_override(c, k, QA_PAT_REGEX, "dynamic");
		if (!o)
			continue;
		o->skip = skip;
		if (int_of(qa_json_child(e, "bits"), &v))
			o->bits = v;
		o->group_size = group_of(qa_json_child(e, "group_size"));
	}
}

static void
parse_gptq(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *mb = qa_json_child(q, "modules_in_block_to_quantize"), *e, *f;
	const char *fmt = str_of(qa_json_child(q, "checkpoint_format"));

	if (!fmt)
		fmt = str_of(qa_json_child(q, "format"));
	qc->format = dup(c, fmt);
	qc->desc_act = bool_of(qa_json_child(q, "desc_act"));
	qc->lm_head = bool_of(qa_json_child(q, "lm_head"));
	parse_dynamic(c, qa_json_child(q, "dynamic"));
	/* optimum: list of lists of substrings (vLLM is_layer_skipped). */
	if (cJSON_IsArray(mb)) {
		for (e = mb->child; e; e = e->next) {
			if (cJSON_IsString(e))
				add_target(c, e->valuestring,
					   QA_PAT_SUBSTRING,
					   "modules_in_block_to_quantize");
			else if (cJSON_IsArray(e))
				for (f = e->child; f; f = f->next)
					if (cJSON_IsString(f))
						add_target(c, f->valuestring,
							   QA_PAT_SUBSTRING,
							   "modules_in_block_to_quantize");
		}
	}
}

/*
 * GPTQModel's GGUF format: "bits" is a llama.cpp type alias ("q4_k_m",
 * GGUFBits.serialize, gptqmodel/quantization/config.py l.418-471), every
 * quantized Linear one tensor type of that alias (nn_modules/qlinear/
 * gguf.py _GGUF_BITS_ALIAS_TO_TENSOR_QTYPE): kept as data_type, its
 * width as bits.
 */
static void
parse_gptqm_gguf(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const char *alias = str_of(qa_json_child(q, "bits"));

	if (!alias)
		return;
	qc->data_type = dup(c, alias);
	if ((alias[0] == 'q' || alias[0] == 'Q') && alias[1] >= '1' &&
	    alias[1] <= '8')
		qc->bits = alias[1] - '0';
}

static void
parse_awq(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	int zp = bool_of(qa_json_child(q, "zero_point"));
	int v;

	qc->format = dup(c, str_of(qa_json_child(q, "version")));
	if (qc->bits < 0 && int_of(qa_json_child(q, "w_bit"), &v))
		qc->bits = v;
	if (qc->group_size < 0)
		qc->group_size = group_of(qa_json_child(q, "q_group_size"));
	if (zp >= 0)
		qc->sym = !zp;
	parse_list(c, qa_json_child(q, "modules_to_not_convert"), QA_PAT_SUBSTRING,
		   "modules_to_not_convert");
}

/* AutoRound extra_config: exact module names or regex keys (normalised by
 * to_standard_regex, auto_round/utils/common.py). A key with regex
 * metacharacters is a regex; dots alone do not make one. */
static bool
looks_regex(const char *k)
{
	return strpbrk(k, "*+?[](){}|^$\\") != NULL;
}

static void
parse_autoround(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *ec = qa_json_child(q, "extra_config"), *e;
	const char *kv = str_of(qa_json_child(q, "static_kv_dtype"));

	qc->format = dup(c, str_of(qa_json_child(q, "packing_format")));
	if (kv)
		qc->kv_cache = dup(c, kv);
	if (!cJSON_IsObject(ec))
		return;
	/* Exact names first, then regexes in order: the AutoRound loader
	 * (auto_round/inference/convert_model.py get_layer_config) and vLLM
	 * (quantization/auto_round.py) try the exact name first. */
	for (int pass = 0; pass < 2; pass++) {
		for (e = ec->child; e; e = e->next) {
			struct qa_quant_override *o;
			const char *dt = str_of(qa_json_child(e, "data_type"));
			int bits = -1, eff;

			if (!e->string || looks_regex(e->string) != (pass == 1))
				continue;
			o = add_override(c, e->string,
					 pass ? QA_PAT_REGEX : QA_PAT_EXACT,
					 "extra_config");
			if (!o)
				continue;
			if (int_of(qa_json_child(e, "bits"), &bits))
				o->bits = bits;
			o->group_size = group_of(qa_json_child(e, "group_size"));
			o->scheme = dup(c, dt);
			/* bits >= 16 keeps the layer in high precision
			 * (auto_round/utils/missing_tensors.py writes
			 * {"bits": 16, "data_type": "fp"}); "fp"/"float"
			 * without a low bit width means the same. FP8 is
			 * {"bits": 8, "data_type": "fp"}: quantized. */
			eff = bits >= 0 ? bits : qc->bits;
			o->skip = eff >= 16 ||
				  (dt && (strcmp(dt, "fp") == 0 ||
					  strncmp(dt, "float", 5) == 0) &&
				   bits < 0);
		}
	}
}

/* KV-cache scheme object ({"num_bits": 8, "type": "float"}) or string. */
static const char *
kv_name(struct ctx *c, const cJSON *v)
{
	const char *t;
	int b;

	if (cJSON_IsString(v))
		return dup(c, v->valuestring);
	if (!cJSON_IsObject(v))
		return NULL;
	t = str_of(qa_json_child(v, "type"));
	if (!int_of(qa_json_child(v, "num_bits"), &b))
		return dup(c, t ? t : "quantized");
	if (t && strcmp(t, "float") == 0 && b == 8)
		return "FP8";
	if (t && strcmp(t, "int") == 0 && b == 8)
		return "INT8";
	{
		char *s = qa_arena_printf(&c->inv->arena, "%s%d",
					  t ? t : "bits", b);

		if (!s)
			c->inv->out_of_memory = true;
		return s;
	}
}

/* The scheme label of a compressed-tensors group: its format, else its
 * weight args (compressed-tensors config/base.py CompressionFormat;
 * quantization/quant_scheme.py presets). */
static const char *
ct_scheme(const char *fmt, const char *type, int bits, int group)
{
	if (fmt) {
		if (strcmp(fmt, "nvfp4-pack-quantized") == 0)
			return "NVFP4";
		if (strcmp(fmt, "mxfp4-pack-quantized") == 0)
			return "MXFP4";
		if (strcmp(fmt, "mxfp8-quantized") == 0)
			return "MXFP8";
		if (strcmp(fmt, "float-quantized") == 0 && bits == 8)
			return "FP8";
		if (strcmp(fmt, "pack-quantized") == 0 ||
		    strcmp(fmt, "int-quantized") == 0)
			return "int";
	}
	if (type && strcmp(type, "float") == 0) {
		if (bits == 4 && group == 16)
			return "NVFP4";
		if (bits == 4 && group == 32)
			return "MXFP4";
		if (bits == 8)
			return "FP8";
		return "float";
	}
	if (type && strcmp(type, "int") == 0)
		return "int";
	return type;
}

/* group_size of QuantizationArgs by strategy (quant_args.py): group and
 * tensor_group have one; channel, tensor and block are 0 here. */
static int
ct_group(const cJSON *w)
{
	const char *st = str_of(qa_json_child(w, "strategy"));

	if (st && (strcmp(st, "channel") == 0 || strcmp(st, "tensor") == 0 ||
		   strcmp(st, "block") == 0))
		return 0;
	return group_of(qa_json_child(w, "group_size"));
}

static void
parse_ct(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *groups = qa_json_child(q, "config_groups"), *g, *ig, *e;
	const char *gfmt = str_of(qa_json_child(q, "format"));
	bool first = true;

	qc->format = dup(c, gfmt);
	qc->kv_cache = kv_name(c, qa_json_child(q, "kv_cache_scheme"));
	ig = qa_json_child(q, "ignore");
	if (cJSON_IsArray(ig)) {
		for (e = ig->child; e; e = e->next) {
			const char *t;
			enum qa_pattern_kind k;

			if (!cJSON_IsString(e) || !e->valuestring[0])
				continue;
			k = ct_kind(e->valuestring, &t);
			add_exclude(c, t, k, "ignore");
		}
	}
	if (!cJSON_IsObject(groups))
		return;
	for (g = groups->child; g; g = g->next) {
		const cJSON *w = qa_json_child(g, "weights"), *ia, *bs;
		const cJSON *tg = qa_json_child(g, "targets");
		const char *fmt = str_of(qa_json_child(g, "format"));
		const char *type = str_of(qa_json_child(w, "type"));
		const char *scheme;
		int bits = -1, group = ct_group(w), ab;

		if (!fmt)
			fmt = gfmt;
		int_of(qa_json_child(w, "num_bits"), &bits);
		scheme = ct_scheme(fmt, type, bits, group);
		if (first) {
			first = false;
			qc->bits = bits;
			qc->group_size = group;
			qc->per_tensor = str_of(qa_json_child(w, "strategy")) &&
				strcmp(str_of(qa_json_child(w, "strategy")),
				       "tensor") == 0;
			qc->sym = bool_of(qa_json_child(w, "symmetric"));
			qc->data_type = dup(c, type);
			if (qa_json_child(w, "actorder"))
				qc->desc_act = str_of(qa_json_child(w, "actorder")) ?
					       1 : 0;
			if (!qc->format)
				qc->format = dup(c, fmt);
			ia = qa_json_child(g, "input_activations");
			if (cJSON_IsObject(ia) &&
			    int_of(qa_json_child(ia, "num_bits"), &ab))
				qc->act_bits = ab;
			else if (cJSON_IsObject(w))
				qc->act_bits = 16;	/* weights only */
		}
		bs = qa_json_child(w, "block_structure");
		if (cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2 &&
		    !qc->block[0]) {
			int r, k;

			if (int_of(cJSON_GetArrayItem(bs, 0), &r) &&
			    int_of(cJSON_GetArrayItem(bs, 1), &k) &&
			    r > 0 && k > 0) {
				qc->block[0] = r;
				qc->block[1] = k;
			}
		}
		if (!cJSON_IsArray(tg))
			continue;
		for (e = tg->child; e; e = e->next) {
			struct qa_quant_override *o;
			const char *t;
			enum qa_pattern_kind k;

			if (!cJSON_IsString(e) || !e->valuestring[0])
				continue;
			k = ct_kind(e->valuestring, &t);
			add_target(c, t, k, "config_groups.targets");
			o = add_override(c, t, k, "config_groups");
			if (!o)
				continue;
			o->bits = bits;
			o->group_size = group;
			o->scheme = scheme ? dup(c, scheme) : NULL;
		}
	}
}

/* Bits of a ModelOpt quant_algo (modelopt/torch/export/quant_utils.py
 * names); -1 when it does not say. act is the activation bits. */
static int
modelopt_bits(const char *algo, int *act)
{
	*act = -1;
	if (!algo)
		return -1;
	if (strcasecmp(algo, "W4A16_NVFP4") == 0 ||
	    strcasecmp(algo, "W4A16_AWQ") == 0) {
		*act = 16;
		return 4;
	}
	if (strncasecmp(algo, "NVFP4", 5) == 0) {
		*act = 4;
		return 4;
	}
	if (strncasecmp(algo, "W4A8", 4) == 0) {
		*act = 8;
		return 4;
	}
	if (strcasecmp(algo, "W8A16") == 0) {
		*act = 16;
		return 8;
	}
	if (strncasecmp(algo, "W8A8", 4) == 0 ||
	    strncasecmp(algo, "FP8", 3) == 0 ||
	    strcasecmp(algo, "MXFP8") == 0) {
		*act = 8;
		return 8;
	}
	return -1;
}

/*
 * ModelOpt: hf_quant_config.json {"producer", "quantization": {quant_algo,
 * kv_cache_quant_algo, group_size, exclude_modules, quantized_layers}} or
 * config.json {quant_method: modelopt, quant_algo, ignore,
 * kv_cache_scheme, group_size, quantized_layers} — vLLM accepts both
 * (vllm quantization/modelopt.py@00155cde).
 */
static void
parse_modelopt(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *sub = qa_json_child(q, "quantization");
	const cJSON *src = cJSON_IsObject(sub) ? sub : q, *ql, *e;
	const char *algo = str_of(qa_json_child(src, "quant_algo"));
	int act;

	qc->format = dup(c, algo);
	qc->bits = modelopt_bits(algo, &act);
	qc->act_bits = act;
	/* AWQ and W8A* algos are integer, the rest FP8 / FP4. */
	if (algo)
		qc->data_type = strncasecmp(algo, "W4A16_AWQ", 9) == 0 ||
				strncasecmp(algo, "W4A8_AWQ", 8) == 0 ||
				strncasecmp(algo, "W8A", 3) == 0 ? "int" :
				qc->bits > 0 ? "float" : NULL;
	qc->group_size = group_of(qa_json_child(src, "group_size"));
	qc->kv_cache = kv_name(c, qa_json_child(src, "kv_cache_quant_algo"));
	if (!qc->kv_cache)
		qc->kv_cache = kv_name(c, qa_json_child(src, "kv_cache_scheme"));
	qc->mixed = algo && strcasecmp(algo, "MIXED_PRECISION") == 0;
	parse_list(c, qa_json_child(src, "exclude_modules"), QA_PAT_GLOB,
		   "exclude_modules");
	parse_list(c, qa_json_child(src, "ignore"), QA_PAT_GLOB, "ignore");
	ql = qa_json_child(src, "quantized_layers");
	if (!cJSON_IsObject(ql))
		ql = qa_json_child(q, "quantized_layers");
	if (!cJSON_IsObject(ql))
		return;
	for (e = ql->child; e; e = e->next) {
		struct qa_quant_override *o;
		const char *la = str_of(qa_json_child(e, "quant_algo"));
		int a;

		if (!e->string)
			continue;
		o = add_override(c, e->string, QA_PAT_EXACT,
				 "quantized_layers");
		if (!o)
			continue;
		o->bits = modelopt_bits(la, &a);
		o->group_size = group_of(qa_json_child(e, "group_size"));
		o->scheme = dup(c, la);
	}
}

static void
parse_fp8(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *bs = qa_json_child(q, "weight_block_size");
	const char *fmt = str_of(qa_json_child(q, "fmt"));

	qc->bits = 8;
	qc->act_bits = 8;
	qc->data_type = fmt ? dup(c, fmt) : "float";
	qc->format = dup(c, str_of(qa_json_child(q, "activation_scheme")));
	if (cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2) {
		int r, k;

		if (int_of(cJSON_GetArrayItem(bs, 0), &r) &&
		    int_of(cJSON_GetArrayItem(bs, 1), &k) && r > 0 && k > 0) {
			qc->block[0] = r;
			qc->block[1] = k;
		}
	}
	parse_list(c, qa_json_child(q, "modules_to_not_convert"), QA_PAT_SUBSTRING,
		   "modules_to_not_convert");
	parse_list(c, qa_json_child(q, "ignored_layers"), QA_PAT_SUBSTRING,
		   "ignored_layers");
}

static void
parse_mxfp4(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;

	/* transformers Mxfp4Config: 4-bit E2M1, one E8M0 scale per 32. */
	qc->bits = 4;
	qc->group_size = 32;
	qc->data_type = "mxfp4";
	parse_list(c, qa_json_child(q, "modules_to_not_convert"), QA_PAT_GLOB,
		   "modules_to_not_convert");
}

static void
parse_bnb(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	int b4 = bool_of(qa_json_child(q, "load_in_4bit"));
	int b8 = bool_of(qa_json_child(q, "load_in_8bit"));

	if (b4 < 0)
		b4 = bool_of(qa_json_child(q, "_load_in_4bit"));
	if (b8 < 0)
		b8 = bool_of(qa_json_child(q, "_load_in_8bit"));
	if (b4 == 1) {
		const char *t = str_of(qa_json_child(q, "bnb_4bit_quant_type"));

		qc->bits = 4;
		qc->data_type = dup(c, t ? t : "fp4");
		if (bool_of(qa_json_child(q, "bnb_4bit_use_double_quant")) == 1)
			qc->format = "double_quant";
	} else if (b8 == 1) {
		qc->bits = 8;
		qc->group_size = 0;	/* one SCB per output row */
		qc->data_type = "int8";
	}
	parse_list(c, qa_json_child(q, "llm_int8_skip_modules"), QA_PAT_SUBSTRING,
		   "llm_int8_skip_modules");
}

/*
 * mlx-lm: config.json "quantization" = {group_size, bits, mode} plus one
 * entry per module path whose value is that module's own {group_size,
 * bits, mode} dict, or false for a module kept unquantized (mlx-lm
 * mlx_lm/utils.py quantize_model writes the per-path dicts, load_model's
 * class_predicate reads them first: "if p in config["quantization"]").
 * The path is the module's full name: an exact pattern. mode defaults
 * to affine (mlx/nn/layers/quantized.py _defaults_for_mode).
 */
static void
parse_mlx(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const char *mode = str_of(qa_json_child(q, "mode"));
	const cJSON *e;
	int v;

	qc->format = dup(c, mode ? mode : "affine");
	qc->data_type = qc->format;
	c->inv->format = QA_FORMAT_MLX;
	for (e = q->child; e; e = e->next) {
		struct qa_quant_override *o;
		const char *m;

		if (!e->string || !e->string[0] ||
		    !(cJSON_IsObject(e) || cJSON_IsFalse(e)))
			continue;
		o = add_override(c, e->string, QA_PAT_EXACT, "quantization");
		if (!o)
			continue;
		if (cJSON_IsFalse(e)) {
			o->skip = true;
			continue;
		}
		if (int_of(qa_json_child(e, "bits"), &v))
			o->bits = v;
		o->group_size = group_of(qa_json_child(e, "group_size"));
		m = str_of(qa_json_child(e, "mode"));
		o->scheme = m ? dup(c, m) : NULL;
	}
}

/*
 * ExLlamaV2 / V3: config.json quantization_config = {quant_method
 * "exl2", version, bits, head_bits, calibration {rows, length, dataset}}
 * (turboderp-org/exllamav2 exllamav2/conversion/compile.py l.274-290);
 * {quant_method "exl3", version, bits, head_bits, calibration {rows,
 * cols}, out_scales, codebook} (turboderp-org/exllamav3 exllamav3/
 * conversion/compile.py l.148-188). bits is the average the converter
 * aimed at (EXL2: the --bits target, convert_exl2.py; EXL3: the final
 * average over the decoder Linears, rounded to 2 decimals,
 * convert_model.py l.965-966), so it is kept as a number; head_bits is
 * lm_head's (EXL3: 1-8 or 16 for FP16, convert_model.py l.140).
 */
static void
parse_exl(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *b = qa_json_child(q, "bits");
	const char *cb = str_of(qa_json_child(q, "codebook"));
	int v;

	if (cJSON_IsNumber(b) && b->valuedouble > 0 && b->valuedouble <= 64)
		qc->bpw = b->valuedouble;
	if (int_of(qa_json_child(q, "head_bits"), &v) && v > 0 && v <= 64)
		qc->head_bits = v;
	/* EXL3's codebook (mcg, mul1, or the default 3INST) is the
	 * format's only variant worth naming */
	if (qc->method == QA_QM_EXL3 && cb)
		qc->format = dup(c, cb);
	c->inv->format = qc->method == QA_QM_EXL2 ? QA_FORMAT_EXL2 :
						    QA_FORMAT_EXL3;
}

/*
 * HQQ through transformers: quantization_config = {quant_method "hqq",
 * quant_config, skip_modules} (transformers utils/quantization_config.py
 * HqqConfig.to_dict). quant_config is hqq's BaseQuantizeConfig dict
 * {weight_quant_params {nbits, group_size, axis, ...}, scale_quant_params,
 * zero_quant_params, offload_meta} (mobiusml/hqq hqq/core/quantize.py
 * l.1077-1120), or, from a dynamic_config, one such dict per linear tag
 * ("self_attn.q_proj": the module name without "model", "layers" and
 * the layer numbers, transformers integrations/hqq.py
 * name_to_linear_tag); skip_modules are tags too ("lm_head"). A tag is
 * matched as a substring of the module name, as it is its tail.
 */
static void
hqq_params(const cJSON *qcfg, int *bits, int *group)
{
	const cJSON *w = qa_json_child(qcfg, "weight_quant_params");
	int v;

	if (int_of(qa_json_child(w, "nbits"), &v) && v > 0 && v <= 8)
		*bits = v;
	*group = group_of(qa_json_child(w, "group_size"));
}

static void
parse_hqq(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *qcfg = qa_json_child(q, "quant_config");
	const cJSON *e;

	c->inv->format = QA_FORMAT_HQQ;
	qc->data_type = "int";
	parse_list(c, qa_json_child(q, "skip_modules"), QA_PAT_SUBSTRING,
		   "skip_modules");
	if (!cJSON_IsObject(qcfg))
		return;
	if (qa_json_child(qcfg, "weight_quant_params")) {
		hqq_params(qcfg, &qc->bits, &qc->group_size);
		return;
	}
	for (e = qcfg->child; e; e = e->next) {
		struct qa_quant_override *o;

		if (!e->string || !e->string[0])
			continue;
		o = add_override(c, e->string, QA_PAT_SUBSTRING,
				 "quant_config");
		if (!o)
			continue;
		if (cJSON_IsNull(e) ||
		    !cJSON_IsObject(qa_json_child(e, "weight_quant_params"))) {
			o->skip = true;
			continue;
		}
		hqq_params(e, &o->bits, &o->group_size);
	}
}

/*
 * torchao through transformers: quantization_config = {quant_method
 * "torchao", quant_type, modules_to_not_convert,
 * include_input_output_embeddings} (transformers utils/
 * quantization_config.py TorchAoConfig.to_dict). quant_type is
 * {"default": config} where a config is torchao's config_to_dict
 * {"_type": "Int8WeightOnlyConfig", "_data": {...}} (pytorch/ao torchao/
 * core/config.py), or, for an FqnToConfig, one config per module under
 * _data.fqn_to_config: "_default", an exact name, "re:" a regex, null
 * for a module kept dense (torchao/quantization/quant_api.py
 * FqnToConfig). Older files give the config as a string
 * ("int4_weight_only") with quant_type_kwargs.
 */
static void
tao_leaf(const cJSON *cfg, int *bits, int *group, const char **dtype)
{
	const char *type = str_of(qa_json_child(cfg, "_type"));
	const cJSON *d = qa_json_child(cfg, "_data");
	const char *wd = str_of(qa_json_child(qa_json_child(d, "weight_dtype"),
					      "_data"));
	const cJSON *gran = qa_json_child(d, "granularity");
	const char *gtype = str_of(qa_json_child(gran, "_type"));
	int v;

	*bits = -1;
	*group = -1;
	if (dtype)
		*dtype = NULL;
	if (!type)
		return;
	if (wd && (strncmp(wd, "int", 3) == 0 || strncmp(wd, "uint", 4) == 0)) {
		v = atoi(wd + (wd[0] == 'u' ? 4 : 3));
		if (v >= 1 && v <= 8)
			*bits = v;
	} else if (strncmp(type, "Float8", 6) == 0) {
		*bits = 8;
	} else if (strncmp(type, "Int8DynamicActivationInt4", 25) == 0 ||
		   strncmp(type, "Int4", 4) == 0) {
		*bits = 4;
	} else if (strncmp(type, "Int8", 4) == 0 &&
		   !strstr(type, "Intx")) {
		*bits = 8;
	}
	if (dtype)
		*dtype = strncmp(type, "Float8", 6) == 0 ? "float" :
			 *bits > 0 ? "int" : NULL;
	if (int_of(qa_json_child(d, "group_size"), &v) && v > 0)
		*group = v;
	else if (gtype && strcmp(gtype, "PerGroup") == 0 &&
		 int_of(qa_json_child(qa_json_child(gran, "_data"),
				      "group_size"), &v) && v > 0)
		*group = v;
	else if (gtype && (strcmp(gtype, "PerRow") == 0 ||
			   strcmp(gtype, "PerAxis") == 0 ||
			   strcmp(gtype, "PerTensor") == 0))
		*group = 0;
}

static void
parse_torchao(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *qt = qa_json_child(q, "quant_type");
	const cJSON *def = qa_json_child(qt, "default");
	const cJSON *map, *e;
	const char *legacy = str_of(qt);

	parse_list(c, qa_json_child(q, "modules_to_not_convert"),
		   QA_PAT_SUBSTRING, "modules_to_not_convert");
	qc->embeddings_quantized = bool_of(qa_json_child(q,
			"include_input_output_embeddings")) == 1;
	if (legacy) {
		/* transformers < 4.52: a name and quant_type_kwargs */
		const cJSON *kw = qa_json_child(q, "quant_type_kwargs");
		int v;

		qc->format = dup(c, legacy);
		qc->bits = strstr(legacy, "int4") ? 4 :
			   strstr(legacy, "int8") || strstr(legacy, "float8") ?
			   8 : -1;
		qc->data_type = strstr(legacy, "float8") ? "float" : "int";
		if (int_of(qa_json_child(kw, "group_size"), &v) && v > 0)
			qc->group_size = v;
		return;
	}
	if (!cJSON_IsObject(def))
		return;
	map = qa_json_child(qa_json_child(def, "_data"), "fqn_to_config");
	if (!cJSON_IsObject(map))
		map = qa_json_child(qa_json_child(def, "_data"),
				    "module_fqn_to_config");
	if (!cJSON_IsObject(map)) {
		qc->format = dup(c, str_of(qa_json_child(def, "_type")));
		tao_leaf(def, &qc->bits, &qc->group_size, &qc->data_type);
		return;
	}
	qc->format = dup(c, str_of(qa_json_child(def, "_type")));
	for (e = map->child; e; e = e->next) {
		struct qa_quant_override *o;
		bool re;

		if (!e->string || !e->string[0])
			continue;
		if (strcmp(e->string, "_default") == 0) {
			tao_leaf(e, &qc->bits, &qc->group_size,
				 &qc->data_type);
			continue;
		}
		re = strncmp(e->string, "re:", 3) == 0;
		o = add_override(c, e->string + (re ? 3 : 0),
				 re ? QA_PAT_REGEX : QA_PAT_EXACT,
				 "fqn_to_config");
		if (!o)
			continue;
		if (cJSON_IsNull(e)) {
			o->skip = true;
			continue;
		}
		tao_leaf(e, &o->bits, &o->group_size, NULL);
		o->scheme = dup(c, str_of(qa_json_child(e, "_type")));
	}
}

/*
 * AMD Quark: quantization_config = {quant_method "quark",
 * global_quant_config {weight, input_tensors, output_tensors, bias},
 * layer_quant_config {pattern: the same}, layer_type_quant_config,
 * exclude [...], export {weight_format, pack_method}} (amd-quark 0.13
 * quark/torch/export/api.py export_safetensors, quantization/config/
 * config.py QConfig.to_dict). A tensor spec is {dtype "int4" "uint4"
 * "int8" "fp8_e4m3" "fp4" "fp6_e2m3"..., qscheme per_tensor /
 * per_channel / per_group, group_size, symmetric, scale_format}. vLLM
 * matches layer_quant_config keys with fnmatch when they hold a '*'
 * (vllm/model_executor/layers/quantization/quark/quark.py
 * _find_matched_config) and exclude entries exactly or as "re:" regexes
 * (quark_utils.py should_ignore_layer).
 */
static int
quark_bits(const char *dtype)
{
	if (!dtype)
		return -1;
	if (strncmp(dtype, "int", 3) == 0 || strncmp(dtype, "uint", 4) == 0) {
		int v = atoi(dtype + (dtype[0] == 'u' ? 4 : 3));

		return v >= 1 && v <= 16 ? v : -1;
	}
	if (strncmp(dtype, "fp8", 3) == 0)
		return 8;
	if (strncmp(dtype, "fp6", 3) == 0)
		return 6;
	if (strcmp(dtype, "fp4") == 0)
		return 4;
	return -1;
}

static void
quark_spec(const cJSON *spec, int *bits, int *group)
{
	const char *qs = str_of(qa_json_child(spec, "qscheme"));

	*bits = quark_bits(str_of(qa_json_child(spec, "dtype")));
	*group = qs && strcmp(qs, "per_group") == 0 ?
		 group_of(qa_json_child(spec, "group_size")) :
		 qs ? 0 : -1;
}

static void
parse_quark(struct ctx *c, const cJSON *q)
{
	struct qa_quant_config *qc = c->qc;
	const cJSON *g = qa_json_child(q, "global_quant_config");
	const cJSON *w = qa_json_child(g, "weight");
	const cJSON *in = qa_json_child(g, "input_tensors");
	const cJSON *ex = qa_json_child(q, "exclude");
	const cJSON *e;
	int v;

	if (cJSON_IsArray(w))	/* two-stage specs: the first is the payload */
		w = cJSON_GetArrayItem(w, 0);
	if (cJSON_IsArray(in))
		in = cJSON_GetArrayItem(in, 0);
	quark_spec(w, &qc->bits, &qc->group_size);
	qc->data_type = dup(c, str_of(qa_json_child(w, "dtype")));
	qc->format = dup(c, str_of(qa_json_child(w, "qscheme")));
	qc->per_tensor = qc->format && strcmp(qc->format, "per_tensor") == 0;
	qc->sym = bool_of(qa_json_child(w, "symmetric"));
	if (cJSON_IsObject(in)) {
		v = quark_bits(str_of(qa_json_child(in, "dtype")));
		qc->act_bits = v;
	}
	if (cJSON_IsArray(ex))
		for (e = ex->child; e; e = e->next) {
			const char *t = str_of(e);

			if (!t || !t[0])
				continue;
			if (strncmp(t, "re:", 3) == 0)
				add_exclude(c, t + 3, QA_PAT_REGEX, "exclude");
			else
				add_exclude(c, t, strchr(t, '*') ? QA_PAT_GLOB :
					    QA_PAT_EXACT, "exclude");
		}
	e = qa_json_child(q, "layer_quant_config");
	if (cJSON_IsObject(e))
		for (e = e->child; e; e = e->next) {
			struct qa_quant_override *o;
			const cJSON *lw = qa_json_child(e, "weight"), *li;

			if (!e->string || !e->string[0])
				continue;
			o = add_override(c, e->string,
					 strchr(e->string, '*') ? QA_PAT_GLOB :
					 QA_PAT_EXACT, "layer_quant_config");
			if (!o)
				continue;
			if (cJSON_IsArray(lw))
				lw = cJSON_GetArrayItem(lw, 0);
			if (!cJSON_IsObject(lw)) {
				o->skip = true;
				continue;
			}
			quark_spec(lw, &o->bits, &o->group_size);
			o->scheme = dup(c, str_of(qa_json_child(lw, "dtype")));
			li = qa_json_child(e, "input_tensors");
			if (cJSON_IsArray(li))
				li = cJSON_GetArrayItem(li, 0);
			/* no input spec: weight-only (16-bit activations) */
			o->act_bits = cJSON_IsObject(li) ?
				quark_bits(str_of(qa_json_child(li, "dtype"))) :
				16;
		}
}

static void
qc_init(struct qa_quant_config *qc)
{
	memset(qc, 0, sizeof(*qc));
	qc->method = QA_QM_NONE;
	qc->bits = -1;
	qc->group_size = -1;
	qc->sym = -1;
	qc->desc_act = -1;
	qc->act_bits = -1;
	qc->lm_head = -1;
	qc->shadowed_method = QA_QM_NONE;
	qc->bpw = -1;
	qc->head_bits = -1;
}

/* Fills inv->quant from config object q. */
static void
parse_config(struct qa_inventory *inv, const cJSON *q, const char *file,
	     const char *file_name, const char *key)
{
	struct ctx c = { .inv = inv, .qc = &inv->quant };
	struct qa_quant_config *qc = &inv->quant;
	const char *raw;
	int v;

	qc->file = file;
	qc->key = key;
	qc->method = detect_method(q, file_name, key, &raw);
	qc->method_raw = dup(&c, raw);
	if (int_of(qa_json_child(q, "bits"), &v))
		qc->bits = v;
	qc->group_size = group_of(qa_json_child(q, "group_size"));
	qc->sym = bool_of(qa_json_child(q, "sym"));
	qc->desc_act = bool_of(qa_json_child(q, "desc_act"));
	qc->data_type = dup(&c, str_of(qa_json_child(q, "data_type")));
	if (int_of(qa_json_child(q, "act_bits"), &v))
		qc->act_bits = v;
	parse_blocks(&c, qa_json_child(q, "block_name_to_quantize"));
	switch (qc->method) {
	case QA_QM_GPTQ:
		parse_gptq(&c, q);
		break;
	case QA_QM_AWQ:
		parse_awq(&c, q);
		break;
	case QA_QM_AUTOROUND:
		parse_autoround(&c, q);
		break;
	case QA_QM_COMPRESSED_TENSORS:
		parse_ct(&c, q);
		break;
	case QA_QM_MODELOPT:
		parse_modelopt(&c, q);
		break;
	case QA_QM_FP8:
		parse_fp8(&c, q);
		break;
	case QA_QM_MXFP4:
		parse_mxfp4(&c, q);
		break;
	case QA_QM_BITSANDBYTES:
		parse_bnb(&c, q);
		break;
	case QA_QM_MLX:
		parse_mlx(&c, q);
		break;
	case QA_QM_EXL2:
	case QA_QM_EXL3:
		parse_exl(&c, q);
		break;
	case QA_QM_HQQ:
		parse_hqq(&c, q);
		break;
	case QA_QM_TORCHAO:
		parse_torchao(&c, q);
		break;
	case QA_QM_QUARK:
		parse_quark(&c, q);
		break;
	case QA_QM_QQQ:
	case QA_QM_PAROQUANT:
		/* GPTQModel QQQConfig is a GPTQConfig (gptqmodel/
		 * quantization/config.py l.3531), ParoConfig a
		 * PreProcessorConfig like it (l.3346): the same keys */
		parse_gptq(&c, q);
		break;
	case QA_QM_GPTQM_GGUF:
		parse_gptq(&c, q);
		parse_gptqm_gguf(&c, q);
		break;
	case QA_QM_NONE:
	case QA_QM_OTHER:
		break;
	}
}

/* Side files in the order they are tried when config.json holds no
 * config (§1.2): AutoRound's quantization_config.json first because it
 * is written for every AutoRound export, beside the quantize_config.json
 * of its GPTQ export, and AutoRound's loader prefers it
 * (intel/auto-round auto_round/export/utils.py save_model); then GPTQ,
 * AWQ / GPTQModel compat, ModelOpt. */
const char *const qa_quant_side_files[] = {
	"quantization_config.json",
	"quantize_config.json",
	"quant_config.json",
	"hf_quant_config.json",
	NULL,
};
#define side_files qa_quant_side_files
#define N_SIDE (sizeof(qa_quant_side_files) / sizeof(qa_quant_side_files[0]) - 1)

void
qa_quant_config_parse(struct qa_inventory *inv, const cJSON *cfg,
		      const char *cfg_path, const struct qa_side_doc *docs,
		      size_t n_docs)
{
	struct qa_quant_config *qc = &inv->quant;
	const cJSON *q = NULL, *side[N_SIDE];
	const char *key = NULL, *spath[N_SIDE];
	size_t i, j, win = N_SIDE;
	const char *raw;

	qc_init(qc);
	/* mlx-lm writes its dict twice, as "quantization" and as a
	 * "quantization_config" copy without quant_method (mlx_lm/utils.py
	 * save_config); its loader reads "quantization" first (load_model),
	 * so that key wins and the copy is not read as GPTQ's. */
	if (cJSON_IsObject(cfg) &&
	    cJSON_IsObject(qa_json_child(cfg, "quantization")) &&
	    !qa_json_child(qa_json_child(cfg, "quantization"), "quant_method")) {
		q = qa_json_child(cfg, "quantization");
		key = "quantization";
	}
	if (cJSON_IsObject(cfg) && !q) {
		static const char *const keys[] = {
			"quantization_config",
			"text_config.quantization_config",
			"compression_config",
		};

		for (i = 0; i < 3 && !q; i++) {
			const cJSON *v = i == 1 ?
				qa_json_child(qa_json_child(cfg, "text_config"),
				      "quantization_config") :
				qa_json_child(cfg, keys[i]);

			if (cJSON_IsObject(v)) {
				q = v;
				key = keys[i];
			}
		}
	}
	for (i = 0; i < N_SIDE; i++) {
		side[i] = NULL;
		spath[i] = NULL;
		for (j = 0; j < n_docs; j++)
			if (strcmp(docs[j].name, side_files[i]) == 0 &&
			    cJSON_IsObject(docs[j].root)) {
				side[i] = docs[j].root;
				spath[i] = docs[j].path;
			}
		if (side[i] && !q && win == N_SIDE)
			win = i;
	}
	if (q)
		parse_config(inv, q, cfg_path, "config.json", key);
	else if (win < N_SIDE)
		parse_config(inv, side[win], spath[win], side_files[win],
			     side_files[win]);
	/* A lower-precedence file that names another method: kept for a
	 * check to report (vLLM silently uses config.json's). */
	for (i = 0; i < N_SIDE && qc->method != QA_QM_NONE; i++) {
		enum qa_quant_method m;

		if (!side[i] || i == win || qc->shadowed_file)
			continue;
		m = detect_method(side[i], side_files[i], NULL, &raw);
		if (m != qc->method) {
			qc->shadowed_file = spath[i];
			qc->shadowed_method = m;
		}
	}
	if (qc->file)
		inv->quant_config_file = qc->file;
}

/* ---- Ollama's safetensors layout -------------------------------------- */

/* bits, default group size and MLX mode of an Ollama quant_type
 * (ollama x/quant/quant.go byType and Canonical: the aliases FP8 / Q8
 * are int8, FP4 / Q4 int4); false for a type it does not know. */
static bool
ollama_quant_type(const char *t, int *bits, int *group, const char **mode)
{
	static const struct {
		const char *name;
		int bits, group;
		const char *mode;
	} types[] = {
		{ "nvfp4", 4, 16, "nvfp4" }, { "mxfp4", 4, 32, "mxfp4" },
		{ "mxfp8", 8, 32, "mxfp8" }, { "int4", 4, 64, "affine" },
		{ "fp4", 4, 64, "affine" }, { "q4", 4, 64, "affine" },
		{ "int8", 8, 64, "affine" }, { "fp8", 8, 64, "affine" },
		{ "q8", 8, 64, "affine" },
	};
	size_t i;

	for (i = 0; t && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(t, types[i].name) == 0) {
			*bits = types[i].bits;
			*group = types[i].group;
			*mode = types[i].mode;
			return true;
		}
	return false;
}

/* A decimal integer written as text ("64"). */
static bool
int_of_text(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int)v;
	return true;
}

/* Where each file's key/value pairs lie in inv->kvs: [first, end) per
 * file, so a lookup reads a blob's two or three entries, not all of a
 * model's (a file's __metadata__ entries are appended together). */
struct kv_span {
	uint32_t first, end;
};

static struct kv_span *
kv_spans(const struct qa_inventory *inv)
{
	struct kv_span *s = calloc(inv->n_files ? inv->n_files : 1,
				   sizeof(*s));
	uint32_t i;

	for (i = 0; s && i < inv->n_kvs; i++) {
		uint32_t f = inv->kvs[i].file;

		if (f >= inv->n_files)
			continue;
		if (s[f].end == 0)
			s[f].first = i;
		s[f].end = i + 1;
	}
	return s;
}

/* A string __metadata__ value of file f: key, or prefix + "." + key. */
static const char *
file_meta(const struct qa_inventory *inv, const struct kv_span *spans,
	  uint32_t f, const char *prefix, size_t prefix_len, const char *key)
{
	size_t k = strlen(key);
	uint32_t i;

	if (f >= inv->n_files)
		return NULL;
	for (i = spans[f].first; i < spans[f].end; i++) {
		const struct qa_kv *kv = &inv->kvs[i];
		const char *kk = kv->key;

		if (kv->file != f || kv->value.type != QA_V_STRING || !kk)
			continue;
		if (prefix) {
			if (strncmp(kk, prefix, prefix_len) != 0 ||
			    kk[prefix_len] != '.')
				continue;
			kk += prefix_len + 1;
		}
		if (strlen(kk) == k && memcmp(kk, key, k) == 0)
			return kv->value.v.str.s;
	}
	return NULL;
}

/*
 * Ollama's safetensors layout (formats/ollama_st.c): each quantized
 * tensor <name> has <name>.scale in its blob, and the blob's
 * __metadata__ gives quant_type and group_size, once for the blob or as
 * "<name>.quant_type" per tensor (x/create/quantize.go
 * quantizeBlobLocked; read back the same way by x/mlxrunner/model/
 * root.go). The weights are MLX's (mlx.Quantize), so the claim is an
 * MLX one, module by module; config.json is the source folder's copy
 * (x/create/pipeline.go importConfigBlobs), so a quantization_config in
 * it describes what Ollama imported from, not these blobs, and is
 * replaced. A tensor without metadata is claimed nothing (the runner
 * infers its type from the shapes, root.go inferQuantTypeFromShapes).
 */
void
qa_quant_config_ollama(struct qa_inventory *inv)
{
	struct ctx c = { .inv = inv, .qc = &inv->quant };
	struct qa_quant_config *qc = &inv->quant;
	const char *uniform = NULL;
	int ubits = -1, ugroup = -1;
	bool mixed = false, any = false;
	struct kv_span *spans = kv_spans(inv);
	uint32_t t;

	qc_init(qc);
	if (!spans) {
		inv->out_of_memory = true;
		return;
	}
	for (t = 0; t < inv->n_tensors; t++) {
		const struct qa_tensor *w = &inv->tensors[t];
		size_t n = strlen(w->name), key;
		const char *qt, *gs, *mode;
		struct qa_quant_override *o;
		char *module;
		int bits, group, v;

		/* <name>.scale: the name is the quantized tensor's */
		if (n < 7 || strcmp(w->name + n - 6, ".scale") != 0)
			continue;
		n -= 6;
		qt = file_meta(inv, spans, w->file, w->name, n, "quant_type");
		gs = file_meta(inv, spans, w->file, w->name, n, "group_size");
		if (!qt) {
			qt = file_meta(inv, spans, w->file, NULL, 0,
				       "quant_type");
			gs = file_meta(inv, spans, w->file, NULL, 0,
				       "group_size");
		}
		if (!ollama_quant_type(qt, &bits, &group, &mode))
			continue;
		if (gs && int_of_text(gs, &v) && v > 0)
			group = v;
		/* the module is the tensor's name without ".weight" */
		key = n >= 7 && memcmp(w->name + n - 7, ".weight", 7) == 0 ?
		      n - 7 : n;
		module = qa_arena_strndup(&inv->arena, w->name, key);
		o = module ? add_override(&c, module, QA_PAT_EXACT,
					  "__metadata__ quant_type") : NULL;
		if (!o) {
			inv->out_of_memory = true;
			free(spans);
			return;
		}
		o->bits = bits;
		o->group_size = group;
		o->scheme = mode;
		if (!any) {
			any = true;
			uniform = mode;
			ubits = bits;
			ugroup = group;
		} else if (ubits != bits || ugroup != group ||
			   strcmp(uniform, mode) != 0) {
			mixed = true;
		}
	}
	free(spans);
	if (!any)
		return;
	qc->method = QA_QM_MLX;
	qc->method_raw = "ollama quant_type";
	qc->key = "__metadata__";
	qc->file = "the tensor blobs' __metadata__";
	qc->modules_listed = true;
	if (!mixed) {
		qc->bits = ubits;
		qc->group_size = ugroup;
		qc->format = uniform;
		qc->data_type = uniform;
	}
}
