/* SPDX-License-Identifier: MIT */
/*
 * The fit step of the pipeline: picks the engine model, checks the
 * options that depend on the engine, runs the model and keeps its result
 * (with the options it was computed for) in the inventory's arena, where
 * the fit check and the reporters read it.
 */
#include "fit/fit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/inventory.h"

void
qa_fit_options_init(struct qa_fit_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->flash_attn = -1;
	opt->margin_bytes = QA_FIT_DEFAULT_MARGIN;
}

enum qa_engine
qa_fit_default_engine(const struct qa_inventory *inv)
{
	if (inv->format == QA_FORMAT_MLX)
		return QA_ENGINE_MLX_LM;
	if (inv->format == QA_FORMAT_EXL2 || inv->format == QA_FORMAT_EXL3)
		return QA_ENGINE_EXLLAMA;
	return inv->kind == QA_KIND_GGUF ? QA_ENGINE_LLAMACPP : QA_ENGINE_VLLM;
}

const char *
qa_fit_engine_name(enum qa_engine e)
{
	return e == QA_ENGINE_VLLM ? "vllm" :
	       e == QA_ENGINE_SGLANG ? "sglang" :
	       e == QA_ENGINE_TRTLLM ? "tensorrt-llm" :
	       e == QA_ENGINE_MLX_LM ? "mlx-lm" :
	       e == QA_ENGINE_EXLLAMA ? "exllama" : "llama.cpp";
}

/* Cache types llama.cpp accepts (common/arg.cpp kv_cache_types). */
static const char *const llama_kv_types[] = {
	"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0",
	"q5_1", NULL,
};
/* vLLM --kv-cache-dtype (vllm/config/cache.py CacheDType l.18-33), plus
 * the 16-bit spellings a user may carry over from llama.cpp. */
static const char *const vllm_kv_types[] = {
	"auto", "fp8", "fp8_e4m3", "fp8_e5m2", "f16", "bf16", "float16",
	"bfloat16", "fp8_per_token_head", "int8_per_token_head", "nvfp4",
	NULL,
};
/* SGLang --kv-cache-dtype (python/sglang/srt/server_args.py l.604-628),
 * plus fp8 (as fp8_e4m3) and the 16-bit spellings of the others. */
static const char *const sglang_kv_types[] = {
	"auto", "fp8", "fp8_e4m3", "fp8_e5m2", "mxfp8", "f16", "bf16",
	"float16", "bfloat16", "fp4_e2m1", "nvfp4", NULL,
};

/* The options of llama.cpp, vLLM and SGLang that the weights-and-KV
 * models (mlx-lm, exllama) have no counterpart for. */
#define SERVER_AND_LLAMACPP_KNOBS \
	(QA_FIT_GIVEN_GMU | QA_FIT_GIVEN_MNBT | QA_FIT_GIVEN_PP | \
	 QA_FIT_GIVEN_EAGER | QA_FIT_GIVEN_IMPL | QA_FIT_GIVEN_TP | \
	 QA_FIT_GIVEN_MFS | QA_FIT_GIVEN_CPS | QA_FIT_GIVEN_SPEC | \
	 QA_FIT_GIVEN_TS | QA_FIT_GIVEN_UBATCH | QA_FIT_GIVEN_FA)

/* mlx-lm's cache is in the activations' dtype unless --kv-bits. */
static const char *const mlx_kv_types[] = { "auto", "f16", "bf16", NULL };

static bool
in_set(const char *const *set, const char *s)
{
	for (; *set; set++)
		if (strcmp(*set, s) == 0)
			return true;
	return false;
}

/* A usage error when an option of another engine was given. */
static int
reject(unsigned given, unsigned bit, const char *msg, char *err,
       size_t errlen)
{
	if (!(given & bit))
		return 0;
	snprintf(err, errlen, "%s", msg);
	return -1;
}

int
qa_fit_validate(const struct qa_fit_options *o, char *err, size_t errlen)
{
	bool vllm = o->engine == QA_ENGINE_VLLM;
	bool sglang = o->engine == QA_ENGINE_SGLANG;
	const char *const *set = vllm ? vllm_kv_types :
				 sglang ? sglang_kv_types : llama_kv_types;
	const char *eng = qa_fit_engine_name(o->engine);
	unsigned g = o->given;

	/* TensorRT-LLM has knowledge rows but no memory model: qa_fit_run
	 * says so, whatever the options. */
	if (o->engine == QA_ENGINE_TRTLLM)
		return 0;
	/* mlx-lm: one device, its KV cache 16-bit or --kv-bits; none of
	 * the other engines' knobs */
	if (o->engine == QA_ENGINE_MLX_LM) {
		if ((o->kv_k && !in_set(mlx_kv_types, o->kv_k)) ||
		    (o->kv_v && !in_set(mlx_kv_types, o->kv_v))) {
			snprintf(err, errlen, "unknown KV-cache type for "
				 "mlx-lm (f16, bf16, auto; the max_context "
				 "columns give --kv-bits 8 and 4)");
			return -1;
		}
		return reject(g, SERVER_AND_LLAMACPP_KNOBS,
			      "that option belongs to llama.cpp, vllm or "
			      "sglang; the mlx-lm model takes --gpus, --ctx, "
			      "--parallel, --margin and --kv", err, errlen);
	}
	/* exllama: the cache mode is checked against the folder's engine
	 * (fit_exllama.c); none of the other engines' knobs */
	if (o->engine == QA_ENGINE_EXLLAMA)
		return reject(g, SERVER_AND_LLAMACPP_KNOBS,
			      "that option belongs to llama.cpp, vllm or "
			      "sglang; the exllama model takes --gpus, --ctx, "
			      "--parallel, --margin and --kv / --kv-k / --kv-v "
			      "(fp16, q4, q6, q8; EXL3 also q2..q8 per K and V)",
			      err, errlen);

	if (o->kv_k && !in_set(set, o->kv_k)) {
		snprintf(err, errlen, "unknown KV-cache type '%s' for %s (%s)",
			 o->kv_k, eng, vllm ? "auto, fp8, fp8_e4m3, fp8_e5m2, "
			 "f16, bf16, fp8_per_token_head, int8_per_token_head, "
			 "nvfp4" : sglang ? "auto, fp8_e4m3, fp8_e5m2, mxfp8, "
			 "f16, bf16, fp4_e2m1, nvfp4" : "f16, bf16, f32, "
			 "q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1");
		return -1;
	}
	if (o->kv_v && !in_set(set, o->kv_v)) {
		snprintf(err, errlen, "unknown KV-cache type '%s' for %s",
			 o->kv_v, eng);
		return -1;
	}
	if (o->kv_draft && !in_set(set, o->kv_draft)) {
		snprintf(err, errlen, "unknown KV-cache type '%s' for the "
			 "draft (--kv-draft)", o->kv_draft);
		return -1;
	}
	if (!vllm && !sglang)
		return reject(g, QA_FIT_GIVEN_GMU | QA_FIT_GIVEN_MNBT |
			      QA_FIT_GIVEN_PP | QA_FIT_GIVEN_EAGER |
			      QA_FIT_GIVEN_IMPL | QA_FIT_GIVEN_TP,
			      "--tp, --pp, --gpu-memory-utilization, "
			      "--max-num-batched-tokens, --enforce-eager and "
			      "--model-impl are vllm/sglang options (llama.cpp "
			      "splits layers: --tensor-split)", err, errlen) ||
		       reject(g, QA_FIT_GIVEN_MFS | QA_FIT_GIVEN_CPS,
			      "--mem-fraction-static and "
			      "--chunked-prefill-size are sglang options",
			      err, errlen) ||
		       reject(g, QA_FIT_GIVEN_SPEC, "--num-speculative-tokens "
			      "is a vllm/sglang option (llama.cpp: --mtp on)",
			      err, errlen) ? -1 : 0;
	if (g & (QA_FIT_GIVEN_KV_K | QA_FIT_GIVEN_KV_V)) {
		snprintf(err, errlen, "%s has one KV-cache dtype: use --kv",
			 eng);
		return -1;
	}
	if (reject(g, QA_FIT_GIVEN_TS, vllm ? "--tensor-split is a llama.cpp "
		   "option (vllm splits by tensor parallelism)" :
		   "--tensor-split is a llama.cpp option (sglang splits by "
		   "tensor parallelism)", err, errlen) ||
	    reject(g, QA_FIT_GIVEN_UBATCH, "--ubatch is a llama.cpp option",
		   err, errlen) ||
	    reject(g, QA_FIT_GIVEN_FA, "--flash-attn is a llama.cpp option",
		   err, errlen))
		return -1;
	if (vllm)
		return reject(g, QA_FIT_GIVEN_MFS | QA_FIT_GIVEN_CPS,
			      "--mem-fraction-static and "
			      "--chunked-prefill-size are sglang options "
			      "(vllm: --gpu-memory-utilization, "
			      "--max-num-batched-tokens)", err, errlen);
	return reject(g, QA_FIT_GIVEN_GMU | QA_FIT_GIVEN_MNBT,
		      "--gpu-memory-utilization and --max-num-batched-tokens "
		      "are vllm options (sglang: --mem-fraction-static, "
		      "--chunked-prefill-size)", err, errlen) ||
	       reject(g, QA_FIT_GIVEN_PP | QA_FIT_GIVEN_IMPL,
		      "--pp and --model-impl are modelled for vllm only",
		      err, errlen) ? -1 : 0;
}

static const char *
dup_or_null(struct qa_arena *a, const char *s, bool *oom)
{
	char *c;

	if (!s)
		return NULL;
	c = qa_arena_strdup(a, s);
	if (!c)
		*oom = true;
	return c;
}

/* Copies a model result into the inventory's arena (strings included:
 * a model may hand back static or scratch strings). */
static struct qa_fit_result *
store_result(struct qa_inventory *inv, const struct qa_fit_result *r,
	     const struct qa_fit_options *opt)
{
	struct qa_fit_result *c = qa_arena_alloc(&inv->arena, sizeof(*c));
	struct qa_arena *a = &inv->arena;
	bool oom = false;
	size_t i;

	if (!c)
		return NULL;
	*c = *r;
	c->kv_type_k = dup_or_null(a, r->kv_type_k, &oom);
	c->kv_type_v = dup_or_null(a, r->kv_type_v, &oom);
	c->verdict = dup_or_null(a, r->verdict, &oom);
	c->formula = dup_or_null(a, r->formula, &oom);
	if (c->n_notes > sizeof(c->notes) / sizeof(c->notes[0]))
		c->n_notes = sizeof(c->notes) / sizeof(c->notes[0]);
	for (i = 0; i < c->n_notes; i++)
		c->notes[i] = dup_or_null(a, r->notes[i], &oom);
	c->options = *opt;
	c->options.kv_k = dup_or_null(a, opt->kv_k, &oom);
	c->options.kv_v = dup_or_null(a, opt->kv_v, &oom);
	if (oom)
		return NULL;
	inv->fit = c;
	return c;
}

/* The loader bit of a fit engine (core/model_kind.h). */
static uint32_t
engine_bit(enum qa_engine e)
{
	switch (e) {
	case QA_ENGINE_LLAMACPP: return QA_ENG(LLAMACPP);
	case QA_ENGINE_VLLM: return QA_ENG(VLLM);
	case QA_ENGINE_SGLANG: return QA_ENG(SGLANG);
	case QA_ENGINE_MLX_LM: return QA_ENG(MLX_LM);
	case QA_ENGINE_EXLLAMA:
		return QA_ENG(EXLLAMAV2) | QA_ENG(EXLLAMAV3) | QA_ENG(TABBYAPI);
	case QA_ENGINE_TRTLLM: break;
	}
	return 0;
}

/*
 * A quantized Hugging Face checkpoint whose method or scheme the server
 * asked for does not build (model.engines, from rules/loaders.def and
 * the per-scheme limits of src/core/model_kind.c: Quark weight-only
 * integers, GPTQModel's planar gptq_p, HQQ but 4-bit g64...): the load
 * fails, so nothing is sized for it.
 */
static bool
hf_quant_refused(const struct qa_inventory *inv, enum qa_engine e, char *err,
		 size_t errlen)
{
	const struct qa_quant_config *q = &inv->quant;

	if ((inv->format != QA_FORMAT_HF &&
	     inv->format != QA_FORMAT_SAFETENSORS) ||
	    q->method == QA_QM_NONE || inv->model_kind != QA_MKIND_MODEL ||
	    (e != QA_ENGINE_VLLM && e != QA_ENGINE_SGLANG) ||
	    (inv->engines & engine_bit(e)))
		return false;
	snprintf(err, errlen, "cannot be loaded by %s: its quantization, "
		 "%s%s%s, is not one its loader builds (%s, and the "
		 "method's own config class; rules/loaders.def names the "
		 "rows)%s", e == QA_ENGINE_VLLM ? "vLLM" : "SGLang",
		 q->method == QA_QM_OTHER && q->method_raw ? q->method_raw :
		 qa_quant_method_name(q->method),
		 q->format && *q->format ? " " : "",
		 q->format && *q->format ? q->format : "",
		 e == QA_ENGINE_VLLM ?
		 "vllm/model_executor/layers/quantization/__init__.py" :
		 "python/sglang/srt/layers/quantization/__init__.py",
		 inv->engines ? "" : "; no engine quantaudit knows loads it "
		 "as it is");
	return true;
}

/*
 * A format one engine writes for itself (MLX, EXL2...) that the engine
 * asked for cannot load (rules/loaders.def, model.engines): no sizing
 * for an engine that would refuse the files. The formats every engine
 * reads (GGUF, plain safetensors / HF folders) keep their own models'
 * refusals, but for a quantization the server does not build
 * (hf_quant_refused).
 */
static bool
cannot_load(const struct qa_inventory *inv, enum qa_engine e, char *err,
	    size_t errlen)
{
	char names[160];
	size_t len = 0;
	unsigned i;

	if (hf_quant_refused(inv, e, err, errlen))
		return true;
	switch (inv->format) {
	case QA_FORMAT_MLX: case QA_FORMAT_EXL2: case QA_FORMAT_EXL3:
	case QA_FORMAT_HQQ: case QA_FORMAT_PEFT_LORA: case QA_FORMAT_EAGLE3:
	case QA_FORMAT_ONNX: case QA_FORMAT_OPENVINO:
	case QA_FORMAT_OLLAMA_ST:
		break;
	default:
		return false;
	}
	if (!engine_bit(e) || (inv->engines & engine_bit(e)))
		return false;
	names[0] = '\0';
	for (i = 0; i < QA_LOADER_COUNT && len < sizeof(names); i++)
		if (inv->engines & ((uint32_t)1 << i))
			len += (size_t)snprintf(names + len, sizeof(names) - len,
						"%s%s", len ? ", " : "",
						qa_loader_engine_name(i));
	snprintf(err, errlen, "cannot be loaded by %s: its format, %s%s%s, "
		 "is not among the formats its loader reads (%s)%s%s%s",
		 e == QA_ENGINE_VLLM ? "vLLM" : e == QA_ENGINE_SGLANG ?
		 "SGLang" : qa_fit_engine_name(e),
		 qa_model_format_name(inv->format),
		 inv->model_kind != QA_MKIND_MODEL ? " " : "",
		 inv->model_kind != QA_MKIND_MODEL ?
		 qa_model_kind_name(inv->model_kind) : "",
		 e == QA_ENGINE_VLLM ? (inv->format == QA_FORMAT_MLX ?
		 "vllm/model_executor/layers/quantization/__init__.py "
		 "QuantizationMethods has no MLX method" :
		 inv->format == QA_FORMAT_EXL2 ? "vllm/model_executor/layers/"
		 "quantization/__init__.py QuantizationMethods has no exl2 "
		 "method" : inv->format == QA_FORMAT_EXL3 ?
		 "vllm/model_executor/layers/quantization/__init__.py "
		 "QuantizationMethods has no exl3 method" :
		 "vllm/model_executor/layers/quantization/__init__.py") :
		 e == QA_ENGINE_SGLANG ? "python/sglang/srt/layers/"
		 "quantization/__init__.py" : "rules/loaders.def",
		 names[0] ? "; it loads in " : "", names,
		 names[0] && inv->format != QA_FORMAT_OLLAMA_ST ?
		 " (--engine " : "");
	if (names[0] && inv->format == QA_FORMAT_OLLAMA_ST) {
		/* x/mlxrunner sizes its own MLX cache: no model of it here */
		len = strlen(err);
		if (len < errlen)
			snprintf(err + len, errlen - len, " (its MLX runner, "
				 "ollama x/mlxrunner), which quantaudit has no "
				 "memory model of: nothing was sized");
	} else if (names[0]) {
		len = strlen(err);
		if (len < errlen)
			snprintf(err + len, errlen - len, "%s)",
				 inv->format == QA_FORMAT_MLX ? "mlx-lm" :
				 inv->format == QA_FORMAT_EXL2 ||
				 inv->format == QA_FORMAT_EXL3 ? "exllama" :
				 "NAME");
	}
	return true;
}

int
qa_fit_engine_run(const struct qa_inventory *inv,
		  const struct qa_fit_options *opt, struct qa_fit_result *r,
		  char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (opt->engine == QA_ENGINE_MLX_LM)
		return qa_fit_mlx(inv, opt, r, err, errlen);
	if (opt->engine == QA_ENGINE_EXLLAMA)
		return qa_fit_exllama(inv, opt, r, err, errlen);
	if (opt->engine == QA_ENGINE_VLLM)
		return qa_fit_vllm(inv, opt, r, err, errlen);
	if (opt->engine == QA_ENGINE_SGLANG)
		return qa_fit_sglang(inv, opt, r, err, errlen);
	if (opt->engine == QA_ENGINE_TRTLLM) {
		snprintf(err, errlen, "quantaudit has no TensorRT-LLM memory "
			 "model (its engine facts still apply: docs/"
			 "knowledge.md); --engine vllm or sglang sizes the "
			 "same checkpoint");
		return -1;
	}
	return qa_fit_llamacpp(inv, opt, r, err, errlen);
}

int
qa_fit_run(struct qa_inventory *inv, const struct qa_fit_options *opt,
	   char *err, size_t errlen)
{
	struct qa_fit_result r;
	struct qa_fit_options with_ctx, with_lora;
	const char *ctx_note = NULL, *lora_note = NULL;
	char gb[32];
	int rc;

	/* A fit over part of the weights is not a fit: say what is missing
	 * instead of placing what is there. */
	if (inv->n_tensors == 0) {
		snprintf(err, errlen, "no weights: %s holds only its "
			 "configuration (no .safetensors or .gguf files), so "
			 "there is nothing to place", inv->path);
		return -1;
	}
	if (inv->weights.missing_files > 0) {
		gb[0] = '\0';
		if (inv->weights.declared_bytes)
			snprintf(gb, sizeof(gb), "%.2f GiB",
				 (double)inv->weights.declared_bytes /
				 (double)((uint64_t)1 << 30));
		snprintf(err, errlen, "%u weight file%s of the set %s missing "
			 "(%s%s), so the weights cannot be placed%s%s%s",
			 inv->weights.missing_files,
			 inv->weights.missing_files == 1 ? "" : "s",
			 inv->weights.missing_files == 1 ? "is" : "are",
			 inv->weights.first_missing ?
			 inv->weights.first_missing : "see the findings",
			 inv->weights.missing_files > 1 &&
			 inv->weights.first_missing ? " first" : "",
			 gb[0] ? " (the index declares " : "", gb,
			 gb[0] ? " of weights for the whole set; no estimate "
			 "is given as a fit)" : "");
		return -1;
	}
	/* An adapter is not a model to place (rules/check_adapter.c
	 * QA2120): fit the base model it names. */
	if (inv->format == QA_FORMAT_PEFT_LORA) {
		snprintf(err, errlen, "a PEFT LoRA adapter, not a model: it "
			 "runs on its base model (%s), which is what to fit",
			 inv->adapter.base_model ? inv->adapter.base_model :
			 "not named in adapter_config.json");
		return -1;
	}
	if (inv->draft_head.kind) {
		snprintf(err, errlen, "a%s draft head, not a model: it runs "
			 "beside its target model (vLLM --speculative-config), "
			 "which is what to fit",
			 strcmp(inv->draft_head.kind, "eagle3") == 0 ?
			 "n EAGLE-3" : " Medusa");
		return -1;
	}
	if (cannot_load(inv, opt->engine, err, errlen))
		return -1;
	/* An Ollama model runs at its params layer's num_ctx unless told
	 * otherwise (ollama api/types.go Runner NumCtx, merged over the
	 * defaults when the model loads): llama.cpp's context is that,
	 * not the trained one, unless --ctx is given. */
	if (opt->ctx == 0 && inv->ollama.num_ctx > 0 &&
	    opt->engine == QA_ENGINE_LLAMACPP) {
		with_ctx = *opt;
		with_ctx.ctx = inv->ollama.num_ctx;
		opt = &with_ctx;
		ctx_note = qa_arena_printf(&inv->arena, "context %" PRId64
			" is the Ollama params layer's num_ctx (--ctx to "
			"size another)", inv->ollama.num_ctx);
	}
	/* --lora with vLLM: the adapters' largest rank (rank_pattern
	 * included) sets the slots' rank when --max-lora-rank is not given;
	 * vLLM refuses a larger one at load (lora/peft_helper.py
	 * validate_legal l.195-209) */
	if (opt->n_lora > 0 && opt->engine == QA_ENGINE_VLLM) {
		int64_t rmax = 0;
		unsigned k, j;

		for (k = 0; k < opt->n_lora; k++) {
			const struct qa_inventory *l = opt->loras[k];

			if (!l || l->format != QA_FORMAT_PEFT_LORA ||
			    l->adapter.r <= 0) {
				snprintf(err, errlen, "--lora %s with vLLM: a "
					 "PEFT LoRA adapter folder "
					 "(adapter_config.json with r) is what "
					 "vLLM loads", opt->lora_paths[k]);
				return -1;
			}
			if (l->adapter.r > rmax)
				rmax = l->adapter.r;
			for (j = 0; j < l->adapter.n_rank; j++)
				if (l->adapter.rank_values[j] > rmax)
					rmax = l->adapter.rank_values[j];
		}
		with_lora = *opt;
		if (opt->max_lora_rank > 0 && opt->max_lora_rank < rmax) {
			snprintf(err, errlen, "vLLM refuses the adapter: \"LoRA "
				 "rank %lld is greater than max_lora_rank %d\" "
				 "(lora/peft_helper.py l.200-204)",
				 (long long)rmax, opt->max_lora_rank);
			return -1;
		}
		if (opt->max_lora_rank <= 0) {
			with_lora.max_lora_rank =
				qa_vllm_lora_rank_at_least(rmax);
			if (with_lora.max_lora_rank <= 0) {
				snprintf(err, errlen, "the adapter's rank %lld "
					 "is above vLLM's largest "
					 "--max-lora-rank, 512", (long long)rmax);
				return -1;
			}
		}
		with_lora.n_lora = 0;	/* sized as slots, not placed */
		opt = &with_lora;
		lora_note = qa_arena_printf(&inv->arena, "vLLM serves the "
			"adapter%s with --enable-lora --max-lora-rank %d "
			"(the smallest rank vLLM takes at or above the "
			"adapters' largest, %lld)%s", k > 1 ? "s" : "",
			with_lora.max_lora_rank, (long long)rmax,
			opt->max_loras > 0 ? "" : "; --max-loras 1 (vLLM's "
			"default) serves one at a time");
	}
	if ((opt->max_loras > 0 || opt->max_lora_rank > 0) &&
	    opt->engine != QA_ENGINE_VLLM) {
		snprintf(err, errlen, "--max-loras and --max-lora-rank size "
			 "vLLM's LoRA slots (--engine vllm); llama.cpp loads "
			 "the adapters it is given (--lora FILE)");
		return -1;
	}
	/* --draft: a llama.cpp -md model (fit_extras.c after the run) or
	 * a vLLM EAGLE-3 head (fit_vllm.c, inside the run) */
	if (opt->draft && opt->engine != QA_ENGINE_LLAMACPP &&
	    opt->engine != QA_ENGINE_VLLM) {
		snprintf(err, errlen, "--draft sizes a llama.cpp draft model "
			 "(-md) or a vLLM EAGLE-3 head; %s drafts are not "
			 "modelled yet", qa_fit_engine_name(opt->engine));
		return -1;
	}
	memset(&r, 0, sizeof(r));
	rc = qa_fit_engine_run(inv, opt, &r, err, errlen);
	if (rc != 0)
		return -1;
	if (ctx_note && r.n_notes < sizeof(r.notes) / sizeof(r.notes[0]))
		r.notes[r.n_notes++] = ctx_note;
	if (lora_note && r.n_notes < sizeof(r.notes) / sizeof(r.notes[0]))
		r.notes[r.n_notes++] = lora_note;
	/* --draft: the second model of the pair (src/fit/fit_extras.c). */
	if (opt->draft && opt->engine == QA_ENGINE_LLAMACPP &&
	    qa_fit_pair_llamacpp(inv, opt, &r, err, errlen) != 0)
		return -1;
	/* --lora: the adapter on the target's placement (fit_extras.c) */
	if (opt->n_lora > 0) {
		unsigned k;

		if (opt->engine != QA_ENGINE_LLAMACPP) {
			snprintf(err, errlen, "--lora sizes a llama.cpp GGUF "
				 "adapter or vLLM's LoRA slots; SGLang's are not "
				 "modelled yet");
			return -1;
		}
		for (k = 0; k < opt->n_lora; k++)
			if (opt->loras[k] &&
			    opt->loras[k]->model_kind != QA_MKIND_ADAPTER) {
				snprintf(err, errlen, "--lora %s is not a LoRA "
					 "adapter (model.kind %s)",
					 opt->loras[k]->path, qa_model_kind_name(
					 opt->loras[k]->model_kind));
				return -1;
			}
		if (qa_fit_lora_llamacpp(inv, opt, &r, err, errlen) != 0)
			return -1;
	}
	/* what to change so it fits: not with a draft or adapter beside
	 * it (their own numbers decide) */
	if (!opt->draft && opt->n_lora == 0)
		qa_fit_advise(inv, opt, &r, qa_fit_engine_run);
	if (!store_result(inv, &r, opt)) {
		inv->out_of_memory = true;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int
qa_fit_calibrate(const struct qa_inventory *inv, struct qa_fit_options *opt,
		 const struct qa_llamacpp_log *lg, struct qa_fit_result *r,
		 struct qa_fit_llamacpp_detail *det, char *err, size_t errlen)
{
	/* The log's own settings unless given here. */
	if (opt->ctx == 0 && lg->ctx > 0)
		opt->ctx = lg->ctx;
	if (!(opt->given & (QA_FIT_GIVEN_KV | QA_FIT_GIVEN_KV_K)) && lg->ctk[0])
		opt->kv_k = lg->ctk;
	if (!(opt->given & (QA_FIT_GIVEN_KV | QA_FIT_GIVEN_KV_V)) && lg->ctv[0])
		opt->kv_v = lg->ctv;
	if (!(opt->given & QA_FIT_GIVEN_FA))
		opt->flash_attn = lg->fa;
	if (opt->parallel == 0 && lg->np > 0)
		opt->parallel = lg->np;
	if (!(opt->given & QA_FIT_GIVEN_UBATCH) && lg->ub > 0)
		opt->ubatch = lg->ub;
	if (lg->kvu == 1)
		opt->kv_unified = true;
	if (!(opt->given & QA_FIT_GIVEN_GPUS)) {
		/* No --gpus: the log is a CPU run, one CPU backend device
		 * whose memory is not the question. */
		memset(&opt->gpus, 0, sizeof(opt->gpus));
		opt->gpus.n = 1;
		snprintf(opt->gpus.dev[0].name, sizeof(opt->gpus.dev[0].name),
			 "CPU");
		opt->gpus.dev[0].vram_bytes = (uint64_t)1 << 40;
		opt->gpus.dev[0].usable_bytes = (uint64_t)1 << 40;
		opt->gpus.dev[0].cc_major = opt->gpus.dev[0].cc_minor = -1;
		opt->margin_bytes = 0;
	}
	memset(r, 0, sizeof(*r));
	memset(det, 0, sizeof(*det));
	return qa_fit_llamacpp_ex(inv, opt, r, det, err, errlen);
}
