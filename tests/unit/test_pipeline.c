/* SPDX-License-Identifier: MIT */
/*
 * The audit pipeline (src/engine/audit.c, qa_audit_run) end to end on
 * Hugging Face downloads held in memory (qa_memfs, core/source.h), run as
 * `check --gpus 2x16G` runs it: resolve, load, summarize, fit, checks,
 * overrides, grouping, verdict.
 *
 * 1. A tiny Nemotron-H download (Mamba-2 / attention / MLP blocks, "M*-")
 *    as transformers writes it: config.json with the bare Infinity token
 *    json.dumps(indent=2, sort_keys=True) writes for time_step_limit,
 *    generation_config.json, tokenizer_config.json,
 *    model.safetensors.index.json and two shards. Every side file is
 *    opened at most once and the ones the facts come from exactly once
 *    (the memfs counters), each shard once; the config parsed (keys after
 *    the Infinity token read, layer kinds from the pattern, no QA1401).
 * 2. The same with the transformers-5 config ({"__float__": "Infinity"}).
 * 3. A truncated config.json: QA1401 naming the line, column and what
 *    went wrong at the right byte offset (past the rewritten Infinity),
 *    the shards still read.
 * 4. MTP declared zero (DeepSeek-V3 config with num_nextn_predict_layers
 *    0, as Kimi-K2 and Moonlight ship): not-applicable and no QA20xx;
 *    the same config without the key: absent, QA2004.
 * 5. An MTP head split across the index (GLM-4.5: projection and norms
 *    in a listed shard, the decoder block in an unlisted mtp.safetensors):
 *    partial, not present, and QA2007 naming the unlisted tensors.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/source.h"
#include "engine/audit.h"
#include "fit/fit.h"
#include "fit/gpuspec.h"
#include "harness.h"

/* ---- building files in memory ---------------------------------------- */

/* A growing string. */
struct sb {
	char *p;
	size_t n, cap;
};

static void sb_printf(struct sb *b, const char *fmt, ...) TH_PRINTF(2, 3);

static void
sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int w;

	for (;;) {
		va_start(ap, fmt);
		w = vsnprintf(b->p ? b->p + b->n : NULL,
			      b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (w < 0) {
			fprintf(stderr, "vsnprintf failed\n");
			exit(2);
		}
		if (b->p && (size_t)w < b->cap - b->n) {
			b->n += (size_t)w;
			return;
		}
		b->cap = (b->cap + (size_t)w + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
	}
}

/* One BF16 tensor of a safetensors file. */
struct tdesc {
	char name[96];
	uint64_t shape[3];
	unsigned nd;
};

struct tlist {
	struct tdesc t[64];
	unsigned n;
};

static void tl_add(struct tlist *l, unsigned nd, uint64_t d0, uint64_t d1,
		   uint64_t d2, const char *fmt, ...) TH_PRINTF(6, 7);

static void
tl_add(struct tlist *l, unsigned nd, uint64_t d0, uint64_t d1, uint64_t d2,
       const char *fmt, ...)
{
	struct tdesc *t;
	va_list ap;

	if (l->n == sizeof(l->t) / sizeof(l->t[0])) {
		fprintf(stderr, "tl_add: too many tensors\n");
		exit(2);
	}
	t = &l->t[l->n++];
	va_start(ap, fmt);
	vsnprintf(t->name, sizeof(t->name), fmt, ap);
	va_end(ap);
	t->nd = nd;
	t->shape[0] = d0;
	t->shape[1] = d1;
	t->shape[2] = d2;
}

static uint64_t
t_bytes(const struct tdesc *t)
{
	uint64_t n = 2;
	unsigned d;

	for (d = 0; d < t->nd; d++)
		n *= t->shape[d];
	return n;
}

/* Every buffer handed to a memfs, freed at the end of the case. */
static char *owned[64];
static size_t n_owned;

static void
own(char *p)
{
	if (n_owned == sizeof(owned) / sizeof(owned[0])) {
		fprintf(stderr, "own: too many buffers\n");
		exit(2);
	}
	owned[n_owned++] = p;
}

static void
free_owned(void)
{
	while (n_owned)
		free(owned[--n_owned]);
}

/* A safetensors file: u64 header length, the JSON header (padded with
 * spaces to 8 bytes, as the Rust writer does), zeros for the data. */
static size_t
st_build(const struct tlist *l, char **out)
{
	struct sb h = { 0 };
	uint64_t off = 0, hlen;
	unsigned i, d;
	char *p;
	int b;

	sb_printf(&h, "{");
	for (i = 0; i < l->n; i++) {
		const struct tdesc *t = &l->t[i];

		sb_printf(&h, "%s\"%s\":{\"dtype\":\"BF16\",\"shape\":[",
			  i ? "," : "", t->name);
		for (d = 0; d < t->nd; d++)
			sb_printf(&h, "%s%llu", d ? "," : "",
				  (unsigned long long)t->shape[d]);
		sb_printf(&h, "],\"data_offsets\":[%llu,%llu]}",
			  (unsigned long long)off,
			  (unsigned long long)(off + t_bytes(t)));
		off += t_bytes(t);
	}
	sb_printf(&h, "}");
	while (h.n % 8)
		sb_printf(&h, " ");
	hlen = h.n;
	p = calloc(1, 8 + h.n + (size_t)off);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	for (b = 0; b < 8; b++)
		p[b] = (char)((hlen >> (8 * b)) & 0xff);
	memcpy(p + 8, h.p, h.n);
	free(h.p);
	own(p);
	*out = p;
	return 8 + (size_t)hlen + (size_t)off;
}

struct wm_entry {
	const char *tensor, *shard;
};

static int
cmp_wm(const void *a, const void *b)
{
	return strcmp(((const struct wm_entry *)a)->tensor,
		      ((const struct wm_entry *)b)->tensor);
}

/* model.safetensors.index.json as transformers writes it (indent 2,
 * sorted keys): lists[k] lives in shards[k]; total_size their bytes. */
static char *
index_build(const struct tlist *const *lists, const char *const *shards,
	    unsigned n)
{
	struct wm_entry e[128];
	struct sb s = { 0 };
	uint64_t total = 0;
	unsigned k, i, m = 0;

	for (k = 0; k < n; k++)
		for (i = 0; i < lists[k]->n; i++) {
			if (m == sizeof(e) / sizeof(e[0])) {
				fprintf(stderr, "index_build: too many\n");
				exit(2);
			}
			e[m].tensor = lists[k]->t[i].name;
			e[m++].shard = shards[k];
			total += t_bytes(&lists[k]->t[i]);
		}
	qsort(e, m, sizeof(e[0]), cmp_wm);
	sb_printf(&s, "{\n  \"metadata\": {\n    \"total_size\": %llu\n  },\n"
		  "  \"weight_map\": {\n", (unsigned long long)total);
	for (i = 0; i < m; i++)
		sb_printf(&s, "    \"%s\": \"%s\"%s\n", e[i].tensor, e[i].shard,
			  i + 1 < m ? "," : "");
	sb_printf(&s, "  }\n}\n");
	own(s.p);
	return s.p;
}

static void
add_file(struct qa_memfs *m, const char *path, const char *data, size_t len)
{
	if (!qa_memfs_add(m, path, data, len)) {
		fprintf(stderr, "memfs full\n");
		exit(2);
	}
}

static void
add_text(struct qa_memfs *m, const char *path, const char *text)
{
	add_file(m, path, text, strlen(text));
}

static unsigned
opens(const struct qa_memfs *m, const char *path)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->files[i].path, path) == 0)
			return m->files[i].opens;
	FAIL("no memfs file %s", path);
	return 0;
}

/* ---- running the pipeline --------------------------------------------- */

/*
 * qa_audit_run over the memfs as `check --gpus 2x16G` runs it (the fit
 * searching the largest context, GPUs in the checks). Returns the one
 * inventory, or NULL (a test failure) when the run did not give one.
 */
static struct qa_inventory *
audit(struct qa_memfs *m, const char *path, struct qa_audit *a)
{
	struct qa_audit_options opt;
	static struct qa_fit_options fit;
	const char *paths[1];
	char err[256];

	memset(&opt, 0, sizeof(opt));
	qa_fit_options_init(&fit);
	if (qa_gpuspec_parse("2x16G", &fit.gpus, err, sizeof(err)) != 0) {
		FAIL("--gpus 2x16G: %s", err);
		return NULL;
	}
	fit.given |= QA_FIT_GIVEN_GPUS;
	fit.ctx = -1;
	opt.fs = qa_memfs_fs(m);
	opt.checks.gpus = "2x16G";
	opt.fit = &fit;
	opt.fail_on = QA_SEV_ERROR;
	paths[0] = path;
	if (!CHECK_EQ(qa_audit_run(paths, 1, &opt, a), QA_OK))
		return NULL;
	if (!CHECKF(a->n == 1 && a->inputs[0].status == QA_OK &&
		    a->inputs[0].inv, "%zu inputs, status %d: %s", a->n,
		    a->n ? a->inputs[0].status : 0,
		    a->n ? a->inputs[0].error : "none"))
		return NULL;
	return a->inputs[0].inv;
}

/* ---- 1-3: Nemotron-H with transformers' config.json -------------------- */

/*
 * Dimensions: hidden 8, 2 attention heads of 4 (1 KV head), Mamba-2 with 2
 * heads of 4 (inner 8), 1 group, state 4, conv 4, MLP 16, vocabulary 16;
 * pattern "M*-". Tensor names and shapes as NemotronHForCausalLM has them
 * (in_proj [inner + conv_dim + heads, hidden], conv_dim = inner + 2 x
 * groups x state).
 */
enum { E = 8, F = 16, NH = 2, NKV = 1, HD = 4, MH = 2, MD = 4, NG = 1,
       DS = 4, DC = 4, V = 16 };

static const char *const nem_shards[2] = {
	"model-00001-of-00002.safetensors",
	"model-00002-of-00002.safetensors",
};

/* The config as transformers 4 writes it, up to and including the
 * time_step_limit value (inf is the caller's), and the rest. */
static const char nem_head[] =
	"{\n"
	"  \"architectures\": [\n"
	"    \"NemotronHForCausalLM\"\n"
	"  ],\n"
	"  \"attention_bias\": false,\n"
	"  \"bos_token_id\": 1,\n"
	"  \"chunk_size\": 128,\n"
	"  \"conv_kernel\": 4,\n"
	"  \"eos_token_id\": 2,\n"
	"  \"expand\": 2,\n"
	"  \"head_dim\": 4,\n"
	"  \"hidden_size\": 8,\n"
	"  \"hybrid_override_pattern\": \"M*-\",\n"
	"  \"intermediate_size\": 16,\n"
	"  \"layer_norm_epsilon\": 1e-05,\n"
	"  \"mamba_head_dim\": 4,\n"
	"  \"mamba_num_heads\": 2,\n"
	"  \"max_position_embeddings\": 4096,\n"
	"  \"model_type\": \"nemotron_h\",\n"
	"  \"n_groups\": 1,\n"
	"  \"num_attention_heads\": 2,\n"
	"  \"num_hidden_layers\": 3,\n"
	"  \"num_key_value_heads\": 1,\n"
	"  \"ssm_state_size\": 4,\n"
	"  \"tie_word_embeddings\": false,\n"
	"  \"time_step_limit\": [\n"
	"    0.0,\n";
static const char nem_tail[] =
	"\n"
	"  ],\n"
	"  \"torch_dtype\": \"bfloat16\",\n"
	"  \"transformers_version\": \"4.55.0\",\n"
	"  \"vocab_size\": 16\n"
	"}\n";
/* json.dumps writes float("inf") as the bare token. */
static const char inf_bare[] = "    Infinity";
/* transformers 5 (PR 42959) writes it as an object. */
static const char inf_t5[] =
	"    {\n"
	"      \"__float__\": \"Infinity\"\n"
	"    }";

static const char generation_config[] =
	"{\n"
	"  \"_from_model_config\": true,\n"
	"  \"bos_token_id\": 1,\n"
	"  \"eos_token_id\": 2,\n"
	"  \"pad_token_id\": 0,\n"
	"  \"transformers_version\": \"4.55.0\"\n"
	"}\n";

static const char tokenizer_config[] =
	"{\n"
	"  \"added_tokens_decoder\": {\n"
	"    \"0\": {\n"
	"      \"content\": \"<unk>\",\n"
	"      \"special\": true\n"
	"    },\n"
	"    \"1\": {\n"
	"      \"content\": \"<s>\",\n"
	"      \"special\": true\n"
	"    },\n"
	"    \"2\": {\n"
	"      \"content\": \"</s>\",\n"
	"      \"special\": true\n"
	"    }\n"
	"  },\n"
	"  \"bos_token\": \"<s>\",\n"
	"  \"eos_token\": \"</s>\",\n"
	"  \"model_max_length\": 4096,\n"
	"  \"tokenizer_class\": \"PreTrainedTokenizerFast\"\n"
	"}\n";

static void
nem_layer(struct tlist *l, int i, char kind)
{
	const uint64_t din = MH * MD, conv = din + 2 * NG * DS;

	tl_add(l, 1, E, 0, 0, "backbone.layers.%d.norm.weight", i);
	switch (kind) {
	case 'M':
		tl_add(l, 1, MH, 0, 0, "backbone.layers.%d.mixer.dt_bias", i);
		tl_add(l, 1, MH, 0, 0, "backbone.layers.%d.mixer.A_log", i);
		tl_add(l, 1, MH, 0, 0, "backbone.layers.%d.mixer.D", i);
		tl_add(l, 3, conv, 1, DC,
		       "backbone.layers.%d.mixer.conv1d.weight", i);
		tl_add(l, 1, conv, 0, 0,
		       "backbone.layers.%d.mixer.conv1d.bias", i);
		tl_add(l, 2, din + conv + MH, E, 0,
		       "backbone.layers.%d.mixer.in_proj.weight", i);
		tl_add(l, 1, din, 0, 0, "backbone.layers.%d.mixer.norm.weight",
		       i);
		tl_add(l, 2, E, din, 0,
		       "backbone.layers.%d.mixer.out_proj.weight", i);
		break;
	case '*':
		tl_add(l, 2, NH * HD, E, 0,
		       "backbone.layers.%d.mixer.q_proj.weight", i);
		tl_add(l, 2, NKV * HD, E, 0,
		       "backbone.layers.%d.mixer.k_proj.weight", i);
		tl_add(l, 2, NKV * HD, E, 0,
		       "backbone.layers.%d.mixer.v_proj.weight", i);
		tl_add(l, 2, E, NH * HD, 0,
		       "backbone.layers.%d.mixer.o_proj.weight", i);
		break;
	default:
		tl_add(l, 2, F, E, 0, "backbone.layers.%d.mixer.up_proj.weight",
		       i);
		tl_add(l, 2, E, F, 0,
		       "backbone.layers.%d.mixer.down_proj.weight", i);
		break;
	}
}

/* The download on m under "nem/", config.json given. */
static void
nem_download(struct qa_memfs *m, const char *config)
{
	static struct tlist s1, s2;
	const struct tlist *lists[2] = { &s1, &s2 };
	char *blob;
	size_t len;

	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	tl_add(&s1, 2, V, E, 0, "backbone.embeddings.weight");
	nem_layer(&s1, 0, 'M');
	nem_layer(&s2, 1, '*');
	nem_layer(&s2, 2, '-');
	tl_add(&s2, 1, E, 0, 0, "backbone.norm_f.weight");
	tl_add(&s2, 2, V, E, 0, "lm_head.weight");
	qa_memfs_init(m);
	add_text(m, "nem/config.json", config);
	add_text(m, "nem/generation_config.json", generation_config);
	add_text(m, "nem/tokenizer_config.json", tokenizer_config);
	add_text(m, "nem/model.safetensors.index.json",
		 index_build(lists, nem_shards, 2));
	len = st_build(&s1, &blob);
	add_file(m, "nem/model-00001-of-00002.safetensors", blob, len);
	len = st_build(&s2, &blob);
	add_file(m, "nem/model-00002-of-00002.safetensors", blob, len);
}

static char *
nem_config(const char *inf)
{
	struct sb s = { 0 };

	sb_printf(&s, "%s%s%s", nem_head, inf, nem_tail);
	own(s.p);
	return s.p;
}

/* Side files and shards opened once each by one whole run. */
static void
check_opens(const struct qa_memfs *m)
{
	static const char *const once[] = {
		"nem/config.json", "nem/tokenizer_config.json",
		"nem/model.safetensors.index.json",
		"nem/model-00001-of-00002.safetensors",
		"nem/model-00002-of-00002.safetensors",
	};
	size_t i;

	for (i = 0; i < sizeof(once) / sizeof(once[0]); i++)
		CHECKF(opens(m, once[i]) == 1, "%s opened %u times", once[i],
		       opens(m, once[i]));
	/* Listed as a file of the download, but no fact is taken from it
	 * (hf_side.c reads only what later steps use): never twice. */
	CHECKF(opens(m, "nem/generation_config.json") <= 1,
	       "generation_config.json opened %u times",
	       opens(m, "nem/generation_config.json"));
}

static void
test_nemotron(const char *what, const char *inf)
{
	static const uint8_t kinds[3] = {
		QA_LAYER_MAMBA, QA_LAYER_FULL_ATTENTION, QA_LAYER_MLP_ONLY,
	};
	struct qa_memfs m;
	struct qa_audit a;
	struct qa_inventory *inv;
	int i;

	th_case = what;
	nem_download(&m, nem_config(inf));
	inv = audit(&m, "nem", &a);
	if (inv) {
		check_opens(&m);
		CHECK(inv->have_config);
		CHECK_STR(inv->hp.arch, "nemotron_h");
		CHECK_STR(inv->hp.arch_raw, "NemotronHForCausalLM");
		CHECK_EQ(th_count_code(inv, QA1401), 0);
		/* vocab_size comes after time_step_limit: the parse went on
		 * past the Infinity. */
		CHECK_EQ(inv->hp.n_vocab, V);
		CHECK_EQ(inv->hp.n_layer, 3);
		CHECK_EQ(inv->hp.n_embd, E);
		CHECK_EQ(inv->hp.ssm_d_state, DS);
		CHECK_EQ(inv->hp.ssm_d_inner, MH * MD);
		CHECK_EQ(inv->hp.n_ctx_train, 4096);
		if (CHECK(inv->hp.layer_kind != NULL))
			for (i = 0; i < 3; i++)
				CHECKF(inv->hp.layer_kind[i] == kinds[i],
				       "layer %d kind %u, expected %u", i,
				       inv->hp.layer_kind[i], kinds[i]);
		CHECK_EQ(inv->n_tensors, 20);
		CHECK_EQ(inv->mtp.status, QA_MTP_NOT_APPLICABLE);
		/* a sound download: nothing to report, and the fit ran */
		CHECK_CODES(inv, NULL, what, "-");
		CHECK(inv->fit != NULL && inv->fit_error == NULL);
		CHECK_STR(inv->verdict, "pass");
		CHECK(inv->tokenizer_config_file != NULL &&
		      inv->n_added_tokens == 3);
	}
	qa_audit_free(&a);
	free_owned();
	th_case = NULL;
}

/* Line and column of byte off of text, 1-based, as json_file.c counts. */
static void
line_col(const char *text, size_t off, unsigned *line, unsigned *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/*
 * A config.json cut short right after the Infinity token (a download
 * interrupted mid-file). The finding must name the file and a place in the
 * file's own bytes, not in the text json_file.c hands cJSON after
 * rewriting Infinity (three bytes shorter).
 *
 * Where: the end of the text (offset n, "unexpected end of the text") is
 * the right answer. cJSON reports an input that ends too early at its
 * last byte (position length - 1), and src/core/json_file.c takes that
 * position as it is, so today the finding points at the last byte (the
 * newline) and calls it unexpected; both places are accepted here, the
 * wording only at the end, so the test holds before and after that is
 * fixed.
 */
static void
test_truncated(void)
{
	struct qa_memfs m;
	struct qa_audit a;
	struct qa_inventory *inv;
	const struct qa_finding *f;
	struct sb s = { 0 };
	char want[96];
	unsigned line, col;

	th_case = "truncated config.json";
	sb_printf(&s, "%s%s\n", nem_head, inf_bare);
	own(s.p);
	nem_download(&m, s.p);
	inv = audit(&m, "nem", &a);
	if (inv) {
		check_opens(&m);
		CHECK_EQ(th_count_code(inv, QA1401), 1);
		f = th_finding(inv, QA1401, NULL);
		if (CHECK(f != NULL)) {
			CHECK_STR(f->file, "nem/config.json");
			/* a file cut short is blamed on its end */
			CHECKF(f->offset == (int64_t)s.n,
			       "offset %lld, the text is %zu bytes",
			       (long long)f->offset, s.n);
			line_col(s.p, f->offset >= 0 ? (size_t)f->offset : 0,
				 &line, &col);
			snprintf(want, sizeof(want), "config.json, line %u, "
				 "column %u: unexpected end of the text", line,
				 col);
			CHECKF(strstr(f->message, want) &&
			       strstr(f->message, "cut short"),
			       "message '%s', expected '%s'", f->message,
			       want);
		}
		CHECK(!inv->have_config);
		/* the shards are still read */
		CHECK_EQ(inv->n_tensors, 20);
		CHECK_STR(inv->verdict, "fail");
	}
	qa_audit_free(&a);
	free_owned();
	th_case = NULL;
}

/* ---- 4-5: MTP ---------------------------------------------------------- */

static bool
mtp_codes(unsigned code)
{
	return code >= 2001 && code <= 2099;
}

/* A Llama-style block under "model.layers.N". */
static void
hf_block(struct tlist *l, int i)
{
	static const char *const norms[] = {
		"input_layernorm", "post_attention_layernorm",
	};
	static const char *const lin[] = {
		"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
		"self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj",
		"mlp.down_proj",
	};
	size_t k;

	for (k = 0; k < 2; k++)
		tl_add(l, 1, E, 0, 0, "model.layers.%d.%s.weight", i, norms[k]);
	for (k = 0; k < 7; k++)
		tl_add(l, 2, E, E, 0, "model.layers.%d.%s.weight", i, lin[k]);
}

static void
hf_trunk(struct tlist *l)
{
	tl_add(l, 2, V, E, 0, "model.embed_tokens.weight");
	hf_block(l, 0);
	hf_block(l, 1);
	tl_add(l, 1, E, 0, 0, "model.norm.weight");
	tl_add(l, 2, V, E, 0, "lm_head.weight");
}

static char *
small_config(const char *model_type, const char *arch, const char *extra)
{
	struct sb s = { 0 };

	sb_printf(&s, "{\n  \"architectures\": [\n    \"%s\"\n  ],\n"
		  "  \"head_dim\": 4,\n  \"hidden_size\": 8,\n"
		  "  \"intermediate_size\": 8,\n  \"model_type\": \"%s\",\n"
		  "  \"num_attention_heads\": 2,\n  \"num_hidden_layers\": 2,\n"
		  "  \"num_key_value_heads\": 1,%s\n  \"vocab_size\": 16\n}\n",
		  arch, model_type, extra);
	own(s.p);
	return s.p;
}

/* DeepSeek-V3 declaring 0 MTP layers (Kimi-K2, Moonlight) against the
 * same config without the key. */
static void
test_declared_zero(void)
{
	static const struct {
		const char *what, *extra, *codes;
		enum qa_mtp_status status;
	} cases[] = {
		{ "deepseek_v3, num_nextn_predict_layers 0",
		  "\n  \"num_nextn_predict_layers\": 0,", "-",
		  QA_MTP_NOT_APPLICABLE },
		{ "deepseek_v3, no MTP key", "", "QA2004", QA_MTP_ABSENT },
	};
	size_t c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		static struct tlist l;
		struct qa_memfs m;
		struct qa_audit a;
		struct qa_inventory *inv;
		char *blob;
		size_t len;

		th_case = cases[c].what;
		memset(&l, 0, sizeof(l));
		hf_trunk(&l);
		qa_memfs_init(&m);
		add_text(&m, "ds/config.json",
			 small_config("deepseek_v3", "DeepseekV3ForCausalLM",
				      cases[c].extra));
		len = st_build(&l, &blob);
		add_file(&m, "ds/model.safetensors", blob, len);
		inv = audit(&m, "ds", &a);
		if (inv) {
			CHECK_EQ(opens(&m, "ds/config.json"), 1);
			CHECK_EQ(opens(&m, "ds/model.safetensors"), 1);
			CHECK_EQ(inv->mtp.status, cases[c].status);
			CHECK_EQ(inv->hp.mtp_declared, c == 0);
			CHECK_CODES(inv, mtp_codes, cases[c].what,
				    cases[c].codes);
		}
		qa_audit_free(&a);
		free_owned();
	}
	th_case = NULL;
}

/* GLM-4.5: MTP layer model.layers.2, its projection and norms in a listed
 * shard, its decoder block in mtp.safetensors the index does not name. */
static void
test_split_head(void)
{
	static struct tlist trunk, head, block;
	const struct tlist *lists[2] = { &trunk, &head };
	struct qa_memfs m;
	struct qa_audit a;
	struct qa_inventory *inv;
	const struct qa_finding *f;
	char *blob;
	size_t len;

	th_case = "GLM head split across the index";
	memset(&trunk, 0, sizeof(trunk));
	memset(&head, 0, sizeof(head));
	memset(&block, 0, sizeof(block));
	hf_trunk(&trunk);
	tl_add(&head, 2, E, 2 * E, 0, "model.layers.2.eh_proj.weight");
	tl_add(&head, 1, E, 0, 0, "model.layers.2.enorm.weight");
	tl_add(&head, 1, E, 0, 0, "model.layers.2.hnorm.weight");
	tl_add(&head, 1, E, 0, 0, "model.layers.2.shared_head.norm.weight");
	hf_block(&block, 2);
	qa_memfs_init(&m);
	add_text(&m, "glm/config.json",
		 small_config("glm4_moe", "Glm4MoeForCausalLM",
			      "\n  \"num_nextn_predict_layers\": 1,"));
	add_text(&m, "glm/model.safetensors.index.json",
		 index_build(lists, nem_shards, 2));
	len = st_build(&trunk, &blob);
	add_file(&m, "glm/model-00001-of-00002.safetensors", blob, len);
	len = st_build(&head, &blob);
	add_file(&m, "glm/model-00002-of-00002.safetensors", blob, len);
	len = st_build(&block, &blob);
	add_file(&m, "glm/mtp.safetensors", blob, len);
	inv = audit(&m, "glm", &a);
	if (inv) {
		CHECK_EQ(opens(&m, "glm/config.json"), 1);
		CHECK_EQ(opens(&m, "glm/model.safetensors.index.json"), 1);
		CHECK_EQ(opens(&m, "glm/model-00001-of-00002.safetensors"), 1);
		CHECK_EQ(opens(&m, "glm/model-00002-of-00002.safetensors"), 1);
		CHECK_EQ(opens(&m, "glm/mtp.safetensors"), 1);
		/* every part is in the files, so not incomplete; but
		 * index-following loaders see only the listed part */
		CHECK_EQ(inv->mtp.status, QA_MTP_PARTIAL);
		CHECK_EQ(inv->mtp.tensors, 13);
		CHECK_EQ(inv->mtp.unlisted, 9);
		CHECK(!inv->mtp.only_unlisted);
		CHECK_EQ(inv->mtp.incomplete, 0);
		CHECK(inv->mtp.not_loaded != NULL &&
		      strstr(inv->mtp.not_loaded, "partly outside the index"));
		CHECK_CODES(inv, mtp_codes, th_case, "QA2007");
		f = th_finding(inv, QA2007, NULL);
		CHECKF(f && strstr(f->message, "9 of the 13 MTP tensors") &&
		       strstr(f->message, "model.layers.2.input_layernorm."
			      "weight") &&
		       strstr(f->message, "and 5 more") &&
		       strstr(f->message, "in mtp.safetensors") &&
		       !strstr(f->message, "eh_proj"),
		       "QA2007: %s", f ? f->message : "none");
	}
	qa_audit_free(&a);
	free_owned();
	th_case = NULL;
}

int
main(void)
{
	test_nemotron("transformers 4 config (bare Infinity)", inf_bare);
	test_nemotron("transformers 5 config (__float__)", inf_t5);
	test_truncated();
	test_declared_zero();
	test_split_head();
	return th_done("pipeline");
}
