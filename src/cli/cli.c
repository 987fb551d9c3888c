/* SPDX-License-Identifier: MIT */
/*
 * The command-line front end: one option table for every command (the
 * parser, the per-command checks and every --help page come from it),
 * then the one audit pipeline (src/engine/audit.h), a reporter from the
 * reporter table, and the exit code of DESIGN.md. Only the CLI knows
 * argv, stdout, stderr and exit codes.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "cli/cli.h"
#include "cli/cli_fleet.h"
#include "cli/cli_integrity.h"
#include "cli/cli_remote.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/escape.h"
#include "engine/audit.h"
#include "fit/fit.h"
#include "fit/gpuspec.h"
#include "fit/gpu_detect.h"
#include "report/report.h"
#include "rules/policy.h"

/* ---- commands and options: the single source of the help --------------- */

enum cmd {
	CMD_INSPECT, CMD_TENSORS, CMD_CHECK, CMD_FIT, CMD_SCAN, CMD_SCAN_DIR,
	CMD_DIFF, CMD_COMPARE, CMD_HASH, CMD_VERIFY, CMD_SUMMARIZE, CMD_RULES,
	CMD_SERVE, N_CMDS
};

#define C(x) (1u << CMD_##x)
#define C_AUDIT (C(INSPECT) | C(TENSORS) | C(CHECK) | C(FIT) | C(SCAN) | \
		 C(SCAN_DIR))
/* Commands that read tensor data (src/integrity/; diff with --content). */
#define C_DATA (C(HASH) | C(VERIFY) | C(DIFF) | C(SCAN) | C(COMPARE))
#define C_READ (C_AUDIT | C_DATA)
#define C_ALL (C_READ | C(RULES) | C(SUMMARIZE) | C(SERVE))
#define C_GPU (C(INSPECT) | C(CHECK) | C(FIT) | C(DIFF) | C(SCAN_DIR))

struct cli;

/* What a command does once its command line is parsed and checked
 * (defined under "commands" below). */
static int cmd_audit(struct cli *cli, char **paths, int n_paths);
static int cmd_summarize(struct cli *cli, char **paths, int n_paths);
static int cmd_rules(struct cli *cli, char **paths, int n_paths);
static int cmd_serve(struct cli *cli, char **paths, int n_paths);
/* The commands of src/integrity/ and src/compare/: handed the audit's
 * options in place of a report. */
static int integrity_hash(const struct qa_cli_integrity *io, char **paths,
			  int n_paths);
static int integrity_verify(const struct qa_cli_integrity *io,
			    char **paths, int n_paths);
static int integrity_diff(const struct qa_cli_integrity *io, char **paths,
			  int n_paths);
static int integrity_compare(const struct qa_cli_integrity *io,
			     char **paths, int n_paths);

/* A command: its help, the report view its formats must offer, and what
 * runs it (qa_cli_main calls commands[cmd].run). */
static const struct command {
	const char *name;
	const char *synopsis;
	const char *summary;
	const char *description;
	enum qa_report_view view;
	int (*run)(struct cli *cli, char **paths, int n_paths);
	/* NULL: the audit's report; else this step does the command */
	int (*integrity)(const struct qa_cli_integrity *io, char **paths,
			 int n_paths);
	bool data;		/* reads tensor data: a remote input is
				 * refused with the command named (diff
				 * too, with --content) */
} commands[] = {
	[CMD_INSPECT] = { "inspect", "inspect PATH...",
		"model summary, components, findings (default)",
		"The model in a few lines, the component table, the per-layer\n"
		"precision map and every finding of the built-in checks.",
		QA_VIEW_INSPECT,
		.run = cmd_audit },
	[CMD_TENSORS] = { "tensors", "tensors PATH... [--match RE]",
		"one line per tensor",
		"One line per tensor: name, type, shape, size, offset, role,\n"
		"layer.",
		QA_VIEW_TENSORS,
		.run = cmd_audit },
	[CMD_CHECK] = { "check", "check PATH... [OPTIONS]",
		"audit for CI: every rule, a verdict, exit code",
		"Every built-in check, team policies (--rules), engine and GPU\n"
		"knowledge (--engine, --gpus) and, with --gpus, the memory fit\n"
		"at the largest context that fits (or at --ctx). The verdict\n"
		"sets the exit code; --format sarif|junit|markdown for CI.",
		QA_VIEW_INSPECT,
		.run = cmd_audit },
	[CMD_FIT] = { "fit", "fit PATH... --gpus SPEC [OPTIONS]",
		"VRAM fit per GPU",
		"Per-GPU memory of each model under llama.cpp, vLLM or SGLang:\n"
		"weights, KV cache, recurrent state, compute, overhead; the verdict\n"
		"(fits, tight, does-not-fit), the largest context per KV-cache\n"
		"type and a decode speed ceiling. Formulas and sources:\n"
		"docs/fit.md.",
		QA_VIEW_FIT,
		.run = cmd_audit },
	[CMD_SCAN] = { "scan", "scan PATH... [OPTIONS]",
		"NaN, Inf, zero scales in the tensor data",
		"Reads every tensor (on all cores) and adds data findings to the\n"
		"audit: NaN and infinite values or block scales, all-zero and\n"
		"constant tensors, zero or negative quantization scales, values\n"
		"past the FP16 range (QA1701-QA1707). Reports and exit codes as\n"
		"check. docs/scan.md.",
		QA_VIEW_INSPECT,
		.run = cmd_audit, .data = true },
	[CMD_SCAN_DIR] = { "scan-dir", "scan-dir DIR... [OPTIONS]",
		"check every model under folders",
		"Finds every model under the folders (model folders, folders of\n"
		"GGUFs, Hugging Face cache repos, Ollama manifests; blobs/ and\n"
		"hidden folders are skipped) and checks each as `check` does.\n"
		"--format jsonl writes a report line per model for summarize.\n"
		"docs/fleet.md.",
		QA_VIEW_INSPECT,
		.run = cmd_audit, .data = true },
	[CMD_DIFF] = { "diff", "diff A B [--content] [--gpus SPEC]",
		"what changed between two models or quants",
		"Tensors added, removed, retyped or reshaped (paired by name, or\n"
		"by role and layer between a GGUF and its checkpoint), each\n"
		"component's bytes and bits per weight side by side, precision\n"
		"changes, hyperparameters and GGUF metadata, MTP status, and the\n"
		"fit of both with --gpus. --content also reads every byte:\n"
		"changed and renamed tensors. Exit 1 when they differ.\n"
		"docs/diff.md.",
		QA_VIEW_INSPECT,
		.run = cmd_audit, .integrity = integrity_diff },
	[CMD_COMPARE] = { "compare", "compare QUANT SOURCE [--max-rel-error X]",
		"how far each tensor of a quant is from its source",
		"Dequantizes both models (every ggml type, F16, BF16, F32, and\n"
		"FP8 safetensors with their weight_scale or weight_scale_inv) a\n"
		"row range at a time on --jobs threads and gives, per tensor,\n"
		"the relative RMS error, the largest error, cosine similarity\n"
		"and the share of outliers, totals per component and layer, and\n"
		"flags tensors out of line with their type (a broken block, a\n"
		"saturated scale). Exit 1 when a tensor is flagged or above\n"
		"--max-rel-error. docs/compare.md.",
		QA_VIEW_INSPECT,
		.run = cmd_audit, .integrity = integrity_compare },
	[CMD_HASH] = { "hash", "hash PATH... [-o MANIFEST]",
		"per-tensor XXH3-128 manifest",
		"Reads every byte of the model and writes a manifest (JSON; gzip\n"
		"when MANIFEST ends in .gz): the XXH3-128 of every tensor, of\n"
		"each file's header and of its other bytes, and with --sha256\n"
		"the SHA-256 the Hugging Face hub lists for each file.\n"
		"docs/integrity.md.",
		QA_VIEW_INSPECT,
		.run = cmd_audit, .integrity = integrity_hash, .data = true },
	[CMD_VERIFY] = { "verify", "verify PATH MANIFEST",
		"check a model against a manifest",
		"Hashes the model again where the manifest says each region is\n"
		"and names every file or tensor that is missing, extra,\n"
		"truncated or changed, with its offset. Exit 1 on any\n"
		"difference.",
		QA_VIEW_INSPECT,
		.run = cmd_audit, .integrity = integrity_verify, .data = true },
	[CMD_SUMMARIZE] = { "summarize", "summarize FILE.jsonl...",
		"counts over many reports",
		"Reads quantaudit/1 reports (--format jsonl lines, from one run\n"
		"or many merged) and prints the models by verdict, the findings\n"
		"by rule, the worst models and the total bytes. Exit 1 when a\n"
		"model failed or could not be read. docs/fleet.md.",
		QA_VIEW_INSPECT,
		.run = cmd_summarize },
	[CMD_RULES] = { "rules", "rules [--explain RULE]",
		"list the rules, or document one",
		"The rule registry (and a policy file's rules with --rules), or\n"
		"one rule's documentation.",
		QA_VIEW_INSPECT,
		.run = cmd_rules },
	[CMD_SERVE] = { "serve", "serve --stdio",
		"Model Context Protocol server for agents",
		"Speaks the Model Context Protocol (JSON-RPC 2.0, one message per\n"
		"line) on standard input and output: tools inspect, check, fit\n"
		"and diff, each returning the quantaudit/1 JSON report.\n"
		"docs/mcp.md.",
		QA_VIEW_INSPECT,
		.run = cmd_serve },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))
_Static_assert(N_COMMANDS == N_CMDS, "a row of commands[] per enum cmd");

/* ---- the parsed command line -------------------------------------------- */

struct cli {
	enum cmd command;
	bool command_given;
	const struct qa_reporter *reporter;
	const char *output;
	const char *match;
	const char *rules_file;
	const char *explain;
	const char *calibrate;
	const char *revision;
	const char *base;		/* --base MODEL (a PEFT adapter's) */
	const char *mmproj;		/* --mmproj FILE */
	bool follow_symlinks;
	unsigned jobs;		/* hash, verify: 0 one per CPU */
	bool sha256;
	bool content;		/* diff --content */
	bool stdio;		/* serve --stdio */
	double max_rel_error;	/* compare --max-rel-error; 0: none */
	bool list;		/* scan-dir --list */
	bool from_scan_dir;	/* check runs for scan-dir: a file found
				 * that is not a model is reported as what
				 * it is, not refused */
	struct qa_cli_remote_args remote_args;
	struct qa_remote *remote;	/* the session when an input is
					 * remote */
	enum qa_severity fail_on;
	bool quiet, verbose, no_color, summary, summary_given, layers;
	const char *engine;
	const char *engine_build;
	const char *gpus;
	struct qa_fit_options fit;
	bool fit_asked;		/* a fit option was given */
	struct qa_policy *policy;
	struct qa_overrides overrides;
	/* --severity / --disable as given; resolved once the rule file
	 * (which may define the named rules) is loaded */
	const char *override_args[64];
	bool override_is_disable[64];
	size_t n_override_args;
};

enum opt_id {
	O_FORMAT = 256, O_OUTPUT, O_MATCH, O_RULES, O_SUMMARY, O_LAYERS,
	O_FAIL_ON, O_SEVERITY, O_DISABLE, O_ENGINE, O_GPUS, O_CTX, O_KV,
	O_KV_K, O_KV_V, O_PARALLEL, O_UBATCH, O_FA, O_TS, O_MARGIN, O_MTP,
	O_KV_UNIFIED, O_DRAFT, O_CTX_DRAFT, O_KV_DRAFT, O_LORA, O_MMPROJ,
	O_TP, O_PP, O_GMU, O_MNBT, O_MAX_NUM_SEQS, O_MAX_RUNNING, O_EAGER,
	O_SPEC_TOKENS, O_MODEL_IMPL, O_MFS, O_CPS, O_MAX_LORAS, O_MAX_LORA_RANK,
	O_CALIBRATE, O_EXPLAIN, O_REVISION, O_BASE, O_FOLLOW_SYMLINKS, O_QUIET,
	O_JOBS, O_SHA256, O_CONTENT, O_LIST, O_MAX_REL_ERROR,
	O_CACHE_DIR, O_NO_CACHE, O_TOKEN_FILE, O_TIMEOUT, O_DEADLINE, O_MAX_FETCH,
	O_FULL_DOWNLOAD,
	O_NO_COLOR, O_VERBOSE, O_HELP, O_STDIO,
	O_VERSION,
};

/* How an option's value is read and stored (curl's aliases[] ARG_*):
 * apply_option does the kinds below from the row alone; K_SPECIAL is its
 * switch's (values with their own grammar, or more than one field). */
enum opt_kind {
	K_SPECIAL,	/* apply_option's switch */
	K_FLAG,		/* bool at field := true */
	K_STRING,	/* const char * at field := the argument */
	K_INT,		/* int at field: a whole number in [lo, hi] */
	K_UINT,		/* unsigned at field: the same */
	K_ONOFF,	/* bool at field: "on" or "off" */
	K_FRACTION,	/* double at field: above 0, at most 1 */
};

#define FIELD(f) .field = offsetof(struct cli, f)
#define FLAG(f, g) .kind = K_FLAG, FIELD(f), .given = (g)
#define STR(f, g) .kind = K_STRING, FIELD(f), .given = (g)
#define INT(f, l, h, u, g) .kind = K_INT, FIELD(f), .lo = (l), .hi = (h), \
	.unit = (u), .given = (g)
#define UINT(f, l, h, u) .kind = K_UINT, FIELD(f), .lo = (l), .hi = (h), \
	.unit = (u)
#define ONOFF(f, g) .kind = K_ONOFF, FIELD(f), .given = (g)
#define FRACTION(f, g) .kind = K_FRACTION, FIELD(f), .given = (g)
#define SPECIAL .kind = K_SPECIAL

static const struct option_def {
	enum opt_id id;
	const char *name;
	char short_name;
	const char *arg;	/* NULL: a flag */
	unsigned commands;
	const char *help;	/* '\n' starts a continuation line */
	enum opt_kind kind;
	size_t field;		/* offsetof(struct cli, ...) */
	int64_t lo, hi;		/* K_INT, K_UINT: the range */
	const char *unit;	/* K_INT, K_UINT: what the number is, in the
				 * usage error ("a number", "seconds,") */
	unsigned given;		/* QA_FIT_GIVEN_* set when given */
} options[] = {
	{ O_FORMAT, "format", 'f', "FMT", C_AUDIT | C(VERIFY) | C(DIFF) |
	  C(COMPARE) | C(RULES) | C(SUMMARIZE),
	  "text (default), json, jsonl (a document per model\n"
	  "per line), markdown, sarif, junit (tensors: text,\n"
	  "json or jsonl; verify: text or json; fit: text,\n"
	  "json, jsonl, markdown or html; diff: text, json,\n"
	  "markdown or html; compare: text, json or\n"
	  "markdown), html (one self-contained page\n"
	  "with charts; several models are compared),\n"
	  "codequality (GitLab Code Quality), cyclonedx\n"
	  "(a CycloneDX 1.6 ML-BOM of the model)",
	  SPECIAL },
	{ O_LIST, "list", 0, NULL, C(SCAN_DIR),
	  "print the paths it would audit, one per line\n"
	  "(the work list of GNU parallel, a Slurm array,\n"
	  "a Kubernetes indexed Job), and stop",
	  FLAG(list, 0) },
	{ O_CONTENT, "content", 0, NULL, C(DIFF),
	  "also read every byte of both: tensors whose\n"
	  "bytes changed, and renamed ones",
	  FLAG(content, 0) },
	{ O_MAX_REL_ERROR, "max-rel-error", 0, "X", C(COMPARE),
	  "fail (exit 1) when a tensor's relative RMS error\n"
	  "is above X (0.05: 5%)",
	  SPECIAL },
	{ O_OUTPUT, "output", 'o', "FILE", C_READ | C(SUMMARIZE),
	  "write the report (hash: the manifest) to FILE\n"
	  "instead of stdout",
	  STR(output, 0) },
	{ O_JOBS, "jobs", 'j', "N", C_DATA | C(SCAN_DIR),
	  "threads reading and hashing (default: one per\n"
	  "CPU); scan-dir: models audited at once, in worker\n"
	  "processes, reports in order (default 1; text or\n"
	  "jsonl)",
	  UINT(jobs, 1, 256, "a number") },
	{ O_SHA256, "sha256", 0, NULL, C(HASH),
	  "also the SHA-256 of each whole file (what the\n"
	  "Hugging Face hub lists as an LFS file's oid)",
	  FLAG(sha256, 0) },
	{ O_MATCH, "match", 'm', "RE", C(TENSORS),
	  "list only names matching the POSIX extended\n"
	  "regular expression RE",
	  STR(match, 0) },
	{ O_FOLLOW_SYMLINKS, "follow-symlinks", 0, NULL, C_READ,
	  "follow symbolic links out of the model folder\n"
	  "(by default they are reported, QA1411, and not\n"
	  "read; only for folders you trust)",
	  FLAG(follow_symlinks, 0) },
	{ O_CACHE_DIR, "cache-dir", 0, "DIR", C_READ,
	  "remote inputs: where fetched header bytes are\n"
	  "kept, by URL and ETag (default\n"
	  "$XDG_CACHE_HOME/quantaudit/http)",
	  STR(remote_args.cache_dir, 0) },
	{ O_NO_CACHE, "no-cache", 0, NULL, C_READ,
	  "remote inputs: keep nothing on disk",
	  FLAG(remote_args.no_cache, 0) },
	{ O_TOKEN_FILE, "token-file", 0, "FILE", C_READ,
	  "remote inputs: the Hugging Face token, on the\n"
	  "file's first line (default $HF_TOKEN); sent to\n"
	  "the hub ($HF_ENDPOINT) only, never printed",
	  STR(remote_args.token_file, 0) },
	{ O_TIMEOUT, "timeout", 0, "SECONDS", C_READ,
	  "remote inputs: bound on each HTTP request\n"
	  "(default 60; retried twice with backoff)",
	  UINT(remote_args.timeout_s, 1, 3600, "seconds,") },
	{ O_DEADLINE, "deadline", 0, "SECONDS", C_READ,
	  "remote inputs: bound on the whole run, every\n"
	  "request, retry and wait in it (default 600;\n"
	  "0: none); past it the run stops with exit 4",
	  SPECIAL },
	{ O_MAX_FETCH, "max-fetch", 0, "BYTES", C_READ,
	  "remote inputs: bound on the bytes a run fetches\n"
	  "(default 1G; K, M, G suffixes)",
	  SPECIAL },
	{ O_FULL_DOWNLOAD, "allow-full-download", 0, NULL, C_READ,
	  "remote inputs: from a server that ignores Range\n"
	  "requests, read the whole file (within\n"
	  "--max-fetch) instead of failing",
	  FLAG(remote_args.full_download, 0) },
	{ O_MMPROJ, "mmproj", 0, "FILE", C(INSPECT) | C(CHECK) | C(FIT),
	  "the projector GGUF to count with the model\n"
	  "(llama.cpp --mmproj), instead of the one beside it",
	  STR(mmproj, 0) },
	{ O_BASE, "base", 0, "MODEL", C(INSPECT) | C(CHECK),
	  "a PEFT adapter's base model: its lora_A/lora_B\n"
	  "shapes are checked against MODEL's modules\n"
	  "(QA2124, QA2125)",
	  STR(base, 0) },
	{ O_REVISION, "revision", 0, "REV", C_READ,
	  "Hugging Face cache folders (models--org--name):\n"
	  "the branch, tag or commit to read (default main)",
	  STR(revision, 0) },
	{ O_SUMMARY, "summary", 0, NULL, C_AUDIT,
	  "json: leave out the tensor and module lists",
	  SPECIAL },
	{ O_LAYERS, "layers", 0, NULL, C(INSPECT) | C(CHECK),
	  "text: always print the per-layer precision map",
	  FLAG(layers, 0) },
	{ O_FAIL_ON, "fail-on", 0, "SEV", C_AUDIT,
	  "error (default), warning, info or never:\n"
	  "the lowest severity that fails the verdict",
	  SPECIAL },
	{ O_RULES, "rules", 'r', "FILE", C(CHECK) | C(RULES),
	  "a JSON policy file (docs/policy.md)",
	  STR(rules_file, 0) },
	{ O_SEVERITY, "severity", 0, "RULE=SEV", C_AUDIT,
	  "override a rule's severity (error, warning,\n"
	  "info, off); RULE is a code or an id",
	  SPECIAL },
	{ O_DISABLE, "disable", 0, "RULE", C_AUDIT,
	  "do not report RULE",
	  SPECIAL },
	{ O_ENGINE, "engine", 0, "ENGINE[@BUILD]", C_GPU,
	  "llama.cpp, vllm, sglang, mlx-lm, exllama or\n"
	  "tensorrt-llm (knowledge only): the engine to\n"
	  "advise on and to size for (default: llama.cpp for\n"
	  "GGUF, mlx-lm for MLX, exllama for EXL2/EXL3, vllm\n"
	  "for other model folders); @BUILD\n"
	  "declares yours (llama.cpp@cuda12.8,\n"
	  "vllm@0.21.0) so setup advisories that do not\n"
	  "concern it are left out",
	  SPECIAL },
	{ O_GPUS, "gpus", 0, "SPEC", C_GPU,
	  "2x16G, 16G,24G, rtx-5060-ti:2,\n"
	  "rtx-4090+rtx-3090, unified:128G, none (host\n"
	  "only), auto (this machine's GPUs and their free\n"
	  "memory: NVML, nvidia-smi or AMD sysfs): GPU\n"
	  "knowledge and the memory fit",
	  SPECIAL },
	{ O_CTX, "ctx", 0, "N|max", C_GPU,
	  "context (256-padded like llama.cpp; 32k =\n"
	  "32768); fit default: the trained context; check\n"
	  "default and max: the largest that fits",
	  SPECIAL },
	{ O_KV, "kv", 0, "TYPE", C_GPU,
	  "KV-cache type for K and V: f16 (default), q8_0,\n"
	  "q4_0, bf16, f32, q4_1, q5_0, q5_1, iq4_nl;\n"
	  "vllm: auto, fp8, fp8_e4m3, fp8_e5m2,\n"
	  "fp8_per_token_head, int8_per_token_head, nvfp4;\n"
	  "sglang: auto, fp8_e4m3, fp8_e5m2, mxfp8, fp4_e2m1",
	  SPECIAL },
	{ O_KV_K, "kv-k", 0, "TYPE", C_GPU,
	  "llama.cpp: the K cache type alone",
	  STR(fit.kv_k, QA_FIT_GIVEN_KV_K) },
	{ O_KV_V, "kv-v", 0, "TYPE", C_GPU,
	  "llama.cpp: the V cache type alone",
	  STR(fit.kv_v, QA_FIT_GIVEN_KV_V) },
	{ O_PARALLEL, "parallel", 0, "N", C_GPU,
	  "sequences (-np; vLLM --max-num-seqs, SGLang\n"
	  "--max-running-requests)",
	  INT(fit.parallel, 1, 4096, "a number", 0) },
	{ O_MAX_NUM_SEQS, "max-num-seqs", 0, "N", C_GPU,
	  "vllm: the same as --parallel",
	  INT(fit.parallel, 1, 1 << 20, "a number", 0) },
	{ O_MAX_RUNNING, "max-running-requests", 0, "N", C_GPU,
	  "sglang: the same as --parallel",
	  INT(fit.parallel, 1, 1 << 20, "a number", 0) },
	{ O_UBATCH, "ubatch", 0, "N", C_GPU,
	  "llama.cpp micro-batch (-ub, default 512)",
	  INT(fit.ubatch, 1, 65536, "a number", QA_FIT_GIVEN_UBATCH) },
	{ O_FA, "flash-attn", 0, "on|off|auto", C_GPU,
	  "llama.cpp -fa (default auto)",
	  SPECIAL },
	{ O_TS, "tensor-split", 0, "a,b,...", C_GPU,
	  "llama.cpp -ts (default: by free memory)",
	  SPECIAL },
	{ O_MARGIN, "margin", 0, "MiB", C_GPU,
	  "memory kept free per device (default 1024)",
	  SPECIAL },
	{ O_MTP, "mtp", 0, "on|off", C_GPU,
	  "MTP speculative decoding (llama.cpp --spec-type\n"
	  "mtp: nextn weights and a draft context; default off)",
	  ONOFF(fit.mtp, QA_FIT_GIVEN_MTP) },
	{ O_KV_UNIFIED, "kv-unified", 0, NULL, C_GPU,
	  "llama.cpp: one KV cache shared by the --parallel\n"
	  "sequences (-kvu; llama-server's default without -np)",
	  FLAG(fit.kv_unified, 0) },
	{ O_DRAFT, "draft", 0, "FILE", C(FIT),
	  "llama.cpp speculative draft model (-md): sized\n"
	  "beside the target on the same GPUs, with the\n"
	  "vocabulary check llama.cpp makes",
	  STR(fit.draft_path, 0) },
	{ O_LORA, "lora", 0, "FILE", C(FIT),
	  "llama.cpp LoRA adapter (--lora, a GGUF adapter;\n"
	  "up to 8, each given once): its tensors placed\n"
	  "beside the layers they adapt",
	  SPECIAL },
	{ O_CTX_DRAFT, "ctx-draft", 0, "N", C(FIT),
	  "the draft's context (default: --ctx, or the\n"
	  "draft's trained context, as llama.cpp makes it)",
	  SPECIAL },
	{ O_KV_DRAFT, "kv-draft", 0, "TYPE", C(FIT),
	  "the draft's KV-cache type (-ctkd/-ctvd, f16)",
	  STR(fit.kv_draft, 0) },
	{ O_TP, "tp", 0, "N", C_GPU,
	  "vllm/sglang tensor-parallel ranks (-tp,\n"
	  "--tp-size; default: the GPUs, or GPUs / --pp)",
	  INT(fit.tp, 1, QA_GPU_MAX, "a number", QA_FIT_GIVEN_TP) },
	{ O_PP, "pp", 0, "N", C_GPU,
	  "vllm pipeline-parallel stages (-pp, default 1)",
	  INT(fit.pp, 1, QA_GPU_MAX, "a number", QA_FIT_GIVEN_PP) },
	{ O_GMU, "gpu-memory-utilization", 0, "F", C_GPU,
	  "vllm: share of each GPU it budgets (default 0.92)",
	  FRACTION(fit.gpu_memory_utilization, QA_FIT_GIVEN_GMU) },
	{ O_MNBT, "max-num-batched-tokens", 0, "N", C_GPU,
	  "vllm: tokens per step and in the profile run\n"
	  "(default 2048; 8192 on GPUs of 70 GiB but A100)",
	  INT(fit.max_num_batched_tokens, 1, 1 << 24,
	      "a number of tokens", QA_FIT_GIVEN_MNBT) },
	{ O_EAGER, "enforce-eager", 0, NULL, C_GPU,
	  "no CUDA graphs (vllm --enforce-eager, sglang\n"
	  "--disable-cuda-graph)",
	  FLAG(fit.enforce_eager, QA_FIT_GIVEN_EAGER) },
	{ O_SPEC_TOKENS, "num-speculative-tokens", 0, "N", C_GPU,
	  "vllm/sglang MTP draft tokens per step (method\n"
	  "mtp; implies --mtp on)",
	  SPECIAL },
	{ O_MODEL_IMPL, "model-impl", 0, "auto|vllm|transformers", C_GPU,
	  "vllm --model-impl (default auto: the Transformers\n"
	  "backend for architectures vLLM lacks)",
	  SPECIAL },
	{ O_MFS, "mem-fraction-static", 0, "F", C_GPU,
	  "sglang: weights + KV pool share of the GPU\n"
	  "(default by GPU size and TP)",
	  FRACTION(fit.mem_fraction_static, QA_FIT_GIVEN_MFS) },
	{ O_CPS, "chunked-prefill-size", 0, "N", C_GPU,
	  "sglang: prefill chunk (default by GPU size)",
	  INT(fit.chunked_prefill_size, 1, 1 << 24, "a number of tokens",
	      QA_FIT_GIVEN_CPS) },
	{ O_MAX_LORAS, "max-loras", 0, "N", C_GPU,
	  "vllm: LoRA adapters in one batch; their slots are\n"
	  "allocated at start-up (implies --enable-lora)",
	  INT(fit.max_loras, 1, 1024, "a number", 0) },
	{ O_MAX_LORA_RANK, "max-lora-rank", 0, "R", C_GPU,
	  "vllm: the slots' rank (1, 8, 16, 32, 64, 128, 256,\n"
	  "320 or 512; default 16; implies --enable-lora)",
	  INT(fit.max_lora_rank, 1, 512, "a number", 0) },
	{ O_CALIBRATE, "calibrate", 0, "LOG", C(FIT),
	  "compare with a llama.cpp -v log, buffer by\n"
	  "buffer (--gpus optional)",
	  STR(calibrate, 0) },
	{ O_EXPLAIN, "explain", 0, "RULE", C(RULES),
	  "document one rule",
	  STR(explain, 0) },
	{ O_STDIO, "stdio", 0, NULL, C(SERVE),
	  "the transport: standard input and output",
	  FLAG(stdio, 0) },
	{ O_QUIET, "quiet", 'q', NULL, C_ALL, "no diagnostics on stderr",
	  FLAG(quiet, 0) },
	{ O_VERBOSE, "verbose", 'v', NULL, C_AUDIT,
	  "with a report format other than text, also\n"
	  "print each finding on stderr, one line each",
	  FLAG(verbose, 0) },
	{ O_NO_COLOR, "no-color", 0, NULL, C_ALL,
	  "no ANSI colour (also when NO_COLOR is set)",
	  FLAG(no_color, 0) },
	{ O_HELP, "help", 'h', NULL, C_ALL, "this help",
	  SPECIAL },
	{ O_VERSION, "version", 'V', NULL, C_ALL, "version",
	  SPECIAL },
};
#undef FLAG
#undef STR
#undef INT
#undef UINT
#undef ONOFF
#undef FRACTION
#undef SPECIAL
#undef FIELD
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

/* The option groups of a command's help, in the order people need them:
 * what to write, what fails the verdict, what to size for, where the
 * input comes from. A group is a property of the help alone, so it is
 * kept beside the help, not in every option row. */
enum opt_group {
	G_OUTPUT, G_POLICY, G_ENGINE, G_INPUT, G_REMOTE, G_GENERAL, N_GROUPS
};

static const char *const group_title[N_GROUPS] = {
	[G_OUTPUT] = "Output",
	[G_POLICY] = "Verdict and policy",
	[G_ENGINE] = "Engine, GPUs and memory fit",
	[G_INPUT] = "Input",
	[G_REMOTE] = "Remote inputs (URLs, hf://)",
	[G_GENERAL] = "General",
};

static enum opt_group
option_group(enum opt_id id)
{
	switch (id) {
	case O_FORMAT: case O_OUTPUT: case O_SUMMARY: case O_LAYERS:
	case O_MATCH: case O_LIST: case O_CONTENT: case O_SHA256:
	case O_QUIET: case O_VERBOSE: case O_NO_COLOR:
		return G_OUTPUT;
	case O_FAIL_ON: case O_RULES: case O_SEVERITY: case O_DISABLE:
	case O_EXPLAIN: case O_MAX_REL_ERROR:
		return G_POLICY;
	case O_ENGINE: case O_GPUS: case O_CTX: case O_KV: case O_KV_K:
	case O_KV_V: case O_PARALLEL: case O_MAX_NUM_SEQS:
	case O_MAX_RUNNING: case O_UBATCH: case O_FA: case O_TS:
	case O_MARGIN: case O_MTP: case O_KV_UNIFIED: case O_TP: case O_PP:
	case O_DRAFT: case O_CTX_DRAFT: case O_KV_DRAFT: case O_LORA:
	case O_GMU: case O_MNBT: case O_EAGER: case O_SPEC_TOKENS:
	case O_MODEL_IMPL: case O_MFS: case O_CPS: case O_CALIBRATE:
	case O_MAX_LORAS: case O_MAX_LORA_RANK:
		return G_ENGINE;
	case O_FOLLOW_SYMLINKS: case O_REVISION: case O_JOBS: case O_BASE:
	case O_MMPROJ:
		return G_INPUT;
	case O_CACHE_DIR: case O_NO_CACHE: case O_TOKEN_FILE: case O_TIMEOUT:
	case O_MAX_FETCH: case O_FULL_DOWNLOAD: case O_DEADLINE:
		return G_REMOTE;
	default:
		return G_GENERAL;
	}
}

/* What PATH can be: the question a newcomer asks first ("can I point it
 * at my Hugging Face cache, my Ollama model, a URL?"), so it comes
 * before any option. */
static const char paths_text[] =
"PATH is a .gguf (any part of a split set), a .safetensors file, shard or\n"
"*.safetensors.index.json, a model folder (a checkpoint, or a folder of\n"
"GGUFs), a Hugging Face cache folder (~/.cache/huggingface/hub/\n"
"models--org--name), an Ollama model (name[:tag] or its manifest), or a\n"
"URL: https://host/m.gguf, a folder URL ending in /, hf://org/repo[@rev]\n"
"[/path] -- read over HTTP range requests, headers only.\n";

static const char exit_text[] =
"Exit status: 0 pass, 1 findings at or above --fail-on (fit: or a model\n"
"that does not fit), 2 usage error, 3 input not recognized (fit: or not\n"
"sizeable), 4 system error (I/O, out of memory).\n";

/* The three jobs people come for, each runnable as written on a file of
 * that name (tests/cli/test_help_examples.py runs them). */
static const char examples_text[] =
"Examples:\n"
"  quantaudit model.gguf                 what is in a download, is it sound\n"
"  quantaudit check -f sarif -o qa.sarif model/\n"
"                                        gate CI: exit 1 on an error finding\n"
"                                        (MTP weights missing, a bad shard)\n"
"  quantaudit fit model.gguf --gpus 2x16G --ctx 32k\n"
"                                        will it fit a GPU pair, and how\n";

static void
put_option_help(FILE *out, const struct option_def *o)
{
	char head[64];
	const char *h = o->help;
	int w;

	if (o->short_name)
		w = snprintf(head, sizeof(head), "  -%c, --%s%s%s", o->short_name,
			     o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	else
		w = snprintf(head, sizeof(head), "      --%s%s%s", o->name,
			     o->arg ? " " : "", o->arg ? o->arg : "");
	fputs(head, out);
	if (w >= 25) {
		putc('\n', out);
		w = 0;
	}
	for (;;) {
		const char *nl = strchr(h, '\n');
		int len = nl ? (int)(nl - h) : (int)strlen(h);

		fprintf(out, "%*s%.*s\n", 27 - w, "", len, h);
		w = 0;
		if (!nl)
			break;
		h = nl + 1;
	}
}

/* quantaudit --help: one screen (at most 40 lines, a test holds it to
 * that): what the tool does, the commands, what PATH can be, three
 * examples, where to read more. The options are in COMMAND --help. */
static void
print_overview(FILE *out)
{
	size_t i;

	fputs("Usage: quantaudit [COMMAND] [OPTIONS] PATH...\n\n"
	      "Inspect and audit LLM model files before you spend hours "
	      "testing them:\nwhat is really inside (every tensor, the real "
	      "precision of each part),\nwhether it is complete and sound, "
	      "and whether it fits your GPUs. Headers\nonly, in "
	      "milliseconds; inputs are never modified.\n\nCommands:\n", out);
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-11s%s\n", commands[i].name,
			commands[i].summary);
	putc('\n', out);
	fputs(paths_text, out);
	putc('\n', out);
	fputs(examples_text, out);
	fputs("\n'quantaudit COMMAND --help': its options; 'quantaudit "
	      "rules': the checks;\nREADME.md and docs/ (ci.md, fit.md). "
	      "Exit: 0 pass, 1 fail, 2 usage, 3 not a\nmodel or not "
	      "sizeable, 4 I/O error.\n", out);
}

static void
print_help(FILE *out, int cmd)
{
	size_t i;
	int g;

	if (cmd < 0) {
		print_overview(out);
		return;
	}
	fprintf(out, "Usage: quantaudit %s\n\n%s\n", commands[cmd].synopsis,
		commands[cmd].description);
	if (cmd != CMD_RULES && cmd != CMD_SUMMARIZE) {
		putc('\n', out);
		fputs(paths_text, out);
	}
	for (g = 0; g < N_GROUPS; g++) {
		bool any = false;

		for (i = 0; i < N_OPTIONS; i++) {
			if (!(options[i].commands & (1u << cmd)) ||
			    option_group(options[i].id) != (enum opt_group)g)
				continue;
			if (!any)
				fprintf(out, "\n%s:\n", group_title[g]);
			any = true;
			put_option_help(out, &options[i]);
		}
	}
	putc('\n', out);
	fputs(exit_text, out);
}

/* The tables above for the man pages and shell completions
 * (src/cli/cli_docs.c, cli.h), so they come from the same rows as
 * --help. */
size_t
qa_cli_n_commands(void)
{
	return N_COMMANDS;
}

const char *
qa_cli_command(size_t i, const char **synopsis, const char **summary,
	       const char **description)
{
	*synopsis = commands[i].synopsis;
	*summary = commands[i].summary;
	*description = commands[i].description;
	return commands[i].name;
}

size_t
qa_cli_n_options(void)
{
	return N_OPTIONS;
}

const char *
qa_cli_option(size_t i, char *short_name, const char **arg, const char **help,
	      unsigned *command_mask)
{
	*short_name = options[i].short_name;
	*arg = options[i].arg;
	*help = options[i].help;
	*command_mask = options[i].commands;
	return options[i].name;
}

/* The option's help group (its title) and the grammar of its value from
 * its kind (empty when the help says it), for the man pages. */
const char *
qa_cli_option_group(size_t i, size_t *order)
{
	enum opt_group g = option_group(options[i].id);

	*order = (size_t)g;
	return group_title[g];
}

size_t
qa_cli_n_option_groups(void)
{
	return N_GROUPS;
}

const char *
qa_cli_paths_text(void)
{
	return paths_text;
}

const char *
qa_cli_exit_text(void)
{
	return exit_text;
}

static int usage_error(const struct cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Every diagnostic of the CLI goes through qa_cli_say (cli_voice.c). */
#define say qa_cli_say

static int
usage_error(const struct cli *cli, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("quantaudit: ", stderr);
	qa_esc_text(stderr, buf);
	if (cli && cli->command_given)
		fprintf(stderr, "\nTry 'quantaudit %s --help'.\n",
			commands[cli->command].name);
	else
		fputs("\nTry 'quantaudit --help'.\n", stderr);
	return QA_EXIT_USAGE;
}

/* A whole number in [lo, hi]; false on anything else. */
static bool
parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* --max-fetch: N, or N with K, M or G (x1024 each). */
static bool
parse_size(const char *s, uint64_t *out)
{
	char buf[32];
	size_t n = strlen(s);
	unsigned shift = 0;
	int64_t v;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	default: break;
	}
	if (shift)
		buf[n - 1] = '\0';
	if (!parse_int(buf, 1, (int64_t)1 << 40, &v))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* --ctx: "max", N, or N with a k/K suffix (x1024, as "32k" is meant). */
static bool
parse_ctx(const char *s, int64_t *out)
{
	char buf[32];
	size_t n = strlen(s);
	int64_t v;

	if (strcmp(s, "max") == 0) {
		*out = -1;
		return true;
	}
	if (n > 1 && n < sizeof(buf) && (s[n - 1] == 'k' || s[n - 1] == 'K')) {
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		if (!parse_int(buf, 1, (int64_t)1 << 24, &v))
			return false;
		*out = v * 1024;
		return true;
	}
	return parse_int(s, 1, (int64_t)1 << 34, out);
}

static bool
parse_onoff(const char *s, bool *out)
{
	if (strcmp(s, "on") == 0)
		*out = true;
	else if (strcmp(s, "off") == 0)
		*out = false;
	else
		return false;
	return true;
}

/* "3,1" or "0.6,0.4": non-negative numbers, at least one positive. */
static bool
parse_split(const char *s, double *ts, size_t *n_out)
{
	size_t n = 0;
	double sum = 0;
	const char *p = s;

	memset(ts, 0, sizeof(double) * QA_GPU_MAX);
	for (;;) {
		char *end;
		double v;

		if (*p == '\0' || *p == ',' || *p == '-' || *p == ' ' ||
		    n == QA_GPU_MAX)
			return false;
		errno = 0;
		v = strtod(p, &end);
		if (errno || end == p || !(v >= 0) || v > 1e9)
			return false;
		ts[n++] = v;
		sum += v;
		if (*end == '\0')
			break;
		if (*end != ',')
			return false;
		p = end + 1;
	}
	*n_out = n;
	return sum > 0;
}

/* The build of --engine ENGINE@BUILD: for llama.cpp its backend
 * ("cuda12.8", "cpu", "vulkan", "rocm", "metal", "sycl") or release
 * ("b6543"), for vLLM its version ("0.21.0"). */
static bool
valid_build(const char *engine, const char *b)
{
	static const char *const backends[] = {
		"cpu", "vulkan", "rocm", "hip", "metal", "sycl", NULL,
	};
	size_t i;

	if (strcmp(engine, "vllm") == 0 || strcmp(engine, "sglang") == 0 ||
	    strcmp(engine, "tensorrt-llm") == 0 ||
	    strcmp(engine, "mlx-lm") == 0 || strcmp(engine, "exllama") == 0) {
		for (i = 0; b[i]; i++)
			if (!((b[i] >= '0' && b[i] <= '9') || b[i] == '.'))
				return false;
		return b[0] >= '0' && b[0] <= '9';
	}
	if (strncmp(b, "cuda", 4) == 0)
		return b[4] >= '1' && b[4] <= '9' &&
		       strspn(b + 4, "0123456789.") == strlen(b + 4);
	if (b[0] == 'b' && b[1])
		return strspn(b + 1, "0123456789") == strlen(b + 1);
	for (i = 0; backends[i]; i++)
		if (strcmp(b, backends[i]) == 0)
			return true;
	return false;
}

/* The engines --engine names, with the other spellings people type:
 * the one table the parser, its usage error and the shell completions
 * (cli_docs.c) read. */
static const struct engine_name {
	const char *name;
	enum qa_engine engine;
	const char *aliases;	/* space-separated */
} engine_names[] = {
	{ "llama.cpp", QA_ENGINE_LLAMACPP, "llamacpp" },
	{ "vllm", QA_ENGINE_VLLM, "" },
	{ "sglang", QA_ENGINE_SGLANG, "" },
	{ "mlx-lm", QA_ENGINE_MLX_LM, "mlx_lm" },
	/* one model; the folder's format picks V2 or V3
	 * (src/fit/fit_exllama.c) */
	{ "exllama", QA_ENGINE_EXLLAMA, "exllamav2 exllamav3 tabbyapi" },
	/* knowledge rows only; the fit says it has no model for it */
	{ "tensorrt-llm", QA_ENGINE_TRTLLM, "trtllm" },
};
#define N_ENGINES (sizeof(engine_names) / sizeof(engine_names[0]))

/* True when the space-separated list has the word s[0..k). */
static bool
word_in(const char *list, const char *s, size_t k)
{
	while (*list) {
		size_t n = strcspn(list, " ");

		if (n == k && strncmp(list, s, k) == 0)
			return true;
		list += n;
		list += *list == ' ';
	}
	return false;
}

static const struct engine_name *
find_engine(const char *s, size_t k)
{
	size_t i;

	for (i = 0; i < N_ENGINES; i++)
		if ((strlen(engine_names[i].name) == k &&
		     strncmp(engine_names[i].name, s, k) == 0) ||
		    word_in(engine_names[i].aliases, s, k))
			return &engine_names[i];
	return NULL;
}

/* "llama.cpp, vllm, ... or tensorrt-llm" */
static void
engine_list(char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < N_ENGINES && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s",
				 i == 0 ? "" : i + 1 == N_ENGINES ? " or " :
				 ", ", engine_names[i].name);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

const char *
qa_cli_engine(size_t i)
{
	return i < N_ENGINES ? engine_names[i].name : NULL;
}

/* What an option's value may be, from its kind: the words of both the
 * usage error and the man page. Empty for K_SPECIAL and flags. */
static void
kind_grammar(const struct option_def *od, char *buf, size_t size)
{
	switch (od->kind) {
	case K_INT:
	case K_UINT:
		snprintf(buf, size, "%s from %lld to %lld", od->unit,
			 (long long)od->lo, (long long)od->hi);
		break;
	case K_ONOFF:
		snprintf(buf, size, "on or off");
		break;
	case K_FRACTION:
		snprintf(buf, size, "a fraction above 0 and at most 1 "
			 "(e.g. 0.85)");
		break;
	case K_SPECIAL:
	case K_FLAG:
	case K_STRING:
		buf[0] = '\0';
		break;
	}
}

void
qa_cli_option_grammar(size_t i, char *buf, size_t size)
{
	kind_grammar(&options[i], buf, size);
}

/* The kinds of enum opt_kind, from the option's row alone. */
static int
apply_kind(struct cli *cli, const struct option_def *od, const char *arg)
{
	char *at = (char *)cli + od->field, grammar[96];
	int64_t v;

	switch (od->kind) {
	case K_FLAG:
		*(bool *)(void *)at = true;
		break;
	case K_STRING:
		*(const char **)(void *)at = arg;
		break;
	case K_INT:
	case K_UINT:
		if (!parse_int(arg, od->lo, od->hi, &v)) {
			kind_grammar(od, grammar, sizeof(grammar));
			return usage_error(cli, "--%s '%s': %s", od->name, arg,
					   grammar);
		}
		if (od->kind == K_INT)
			*(int *)(void *)at = (int)v;
		else
			*(unsigned *)(void *)at = (unsigned)v;
		break;
	case K_ONOFF:
		if (!parse_onoff(arg, (bool *)(void *)at)) {
			kind_grammar(od, grammar, sizeof(grammar));
			return usage_error(cli, "--%s '%s': %s", od->name, arg,
					   grammar);
		}
		break;
	case K_FRACTION: {
		char *end;
		double f;

		errno = 0;
		f = strtod(arg, &end);
		if (errno || end == arg || *end || !(f > 0) || f > 1) {
			kind_grammar(od, grammar, sizeof(grammar));
			return usage_error(cli, "--%s '%s': %s", od->name, arg,
					   grammar);
		}
		*(double *)(void *)at = f;
		break;
	}
	case K_SPECIAL:
		break;
	}
	cli->fit.given |= od->given;
	return -1;
}

/* Applies one option; returns -1 to go on, or an exit code. The row's
 * kind does most; the switch keeps the values with their own grammar. */
static int
apply_option(struct cli *cli, const struct option_def *od, const char *arg)
{
	struct qa_fit_options *o = &cli->fit;
	enum opt_id id = od->id;
	char gerr[256];
	int64_t v;

	if (od->kind != K_SPECIAL)
		return apply_kind(cli, od, arg);
	switch (id) {
	case O_FORMAT:
		cli->reporter = qa_reporter_find(arg);
		if (!cli->reporter)
			return usage_error(cli, "unknown --format '%s' (text, "
					   "json, jsonl, markdown, sarif, "
					   "junit, html, codequality or "
					   "cyclonedx)", arg);
		break;
	case O_SUMMARY:
		cli->summary = cli->summary_given = true;
		break;
	case O_FAIL_ON:
		if (!qa_severity_parse(arg, "never", &cli->fail_on))
			return usage_error(cli, "unknown --fail-on '%s' (error, "
					   "warning, info or never)", arg);
		break;
	case O_LORA:
		if (o->n_lora == QA_FIT_MAX_LORA)
			return usage_error(cli, "--lora given more than %d "
					   "times", QA_FIT_MAX_LORA);
		o->lora_paths[o->n_lora++] = arg;
		break;
	case O_SEVERITY:
	case O_DISABLE:
		if (cli->n_override_args == 64)
			return usage_error(cli, "too many --severity/--disable "
					   "options");
		cli->override_is_disable[cli->n_override_args] =
			id == O_DISABLE;
		cli->override_args[cli->n_override_args++] = arg;
		break;
	case O_ENGINE: {
		/* ENGINE[@BUILD]: llama.cpp@cuda12.8, vllm@0.21.0 */
		const char *at = strchr(arg, '@');
		size_t k = at ? (size_t)(at - arg) : strlen(arg);

		const struct engine_name *e = find_engine(arg, k);

		if (!e) {
			char names[160];

			engine_list(names, sizeof(names));
			return usage_error(cli, "unknown --engine '%s' (%s, "
					   "optionally with @BUILD: "
					   "llama.cpp@cuda12.8, vllm@0.21.0)",
					   arg, names);
		}
		o->engine = e->engine;
		cli->engine = e->name;
		if (at && !valid_build(cli->engine, at + 1))
			return usage_error(cli, "--engine '%s': the build after "
					   "'@' is %s", arg,
					   o->engine == QA_ENGINE_VLLM ?
					   "a vLLM version such as 0.21.0" :
					   o->engine == QA_ENGINE_SGLANG ?
					   "an SGLang version such as 0.5.9" :
					   "cudaX.Y, cpu, vulkan, rocm, metal, "
					   "sycl or a release bNNNN");
		cli->engine_build = at ? at + 1 : NULL;
		o->given |= QA_FIT_GIVEN_ENGINE;
		break;
	}
	case O_GPUS:
		if (qa_gpuspec_parse(arg, &o->gpus, gerr, sizeof(gerr)) != 0)
			return usage_error(cli, "--gpus: %s", gerr);
		cli->gpus = arg;
		o->given |= QA_FIT_GIVEN_GPUS;
		break;
	case O_CTX:
		if (!parse_ctx(arg, &o->ctx))
			return usage_error(cli, "--ctx '%s': a positive number "
					   "of tokens (e.g. 32768 or 32k) or "
					   "max", arg);
		cli->fit_asked = true;
		o->given |= QA_FIT_GIVEN_CTX;
		break;
	case O_KV:
		o->kv_k = o->kv_v = arg;
		o->given |= QA_FIT_GIVEN_KV;
		break;
	case O_FA:
		if (strcmp(arg, "on") == 0)
			o->flash_attn = 1;
		else if (strcmp(arg, "off") == 0)
			o->flash_attn = 0;
		else if (strcmp(arg, "auto") == 0)
			o->flash_attn = -1;
		else
			return usage_error(cli, "--flash-attn '%s': on, off or "
					   "auto", arg);
		o->given |= QA_FIT_GIVEN_FA;
		break;
	case O_TS:
		if (!parse_split(arg, o->tensor_split, &o->n_tensor_split))
			return usage_error(cli, "--tensor-split '%s': "
					   "comma-separated non-negative "
					   "numbers, not all 0 (e.g. 3,1)",
					   arg);
		o->given |= QA_FIT_GIVEN_TS;
		break;
	case O_MARGIN:
		if (!parse_int(arg, 0, (int64_t)1 << 24, &v))
			return usage_error(cli, "--margin '%s': MiB, a whole "
					   "number >= 0", arg);
		o->margin_bytes = (uint64_t)v << 20;
		o->given |= QA_FIT_GIVEN_MARGIN;
		break;
	case O_CTX_DRAFT:
		if (!parse_ctx(arg, &o->ctx_draft) || o->ctx_draft <= 0)
			return usage_error(cli, "--ctx-draft '%s': a positive "
					   "number of tokens", arg);
		break;
	case O_SPEC_TOKENS:
		if (!parse_int(arg, 1, 64, &v))
			return usage_error(cli, "--num-speculative-tokens '%s': "
					   "a number from 1 to 64", arg);
		o->num_speculative_tokens = (int)v;
		o->mtp = true;
		o->given |= QA_FIT_GIVEN_SPEC;
		break;
	case O_MODEL_IMPL:
		if (strcmp(arg, "auto") == 0)
			o->model_impl = QA_MODEL_IMPL_AUTO;
		else if (strcmp(arg, "vllm") == 0)
			o->model_impl = QA_MODEL_IMPL_NATIVE;
		else if (strcmp(arg, "transformers") == 0)
			o->model_impl = QA_MODEL_IMPL_TRANSFORMERS;
		else
			return usage_error(cli, "--model-impl '%s': auto, vllm "
					   "or transformers", arg);
		o->given |= QA_FIT_GIVEN_IMPL;
		break;
	case O_MAX_REL_ERROR: {
		char *end;

		cli->max_rel_error = strtod(arg, &end);
		if (end == arg || *end || !(cli->max_rel_error > 0))
			return usage_error(cli, "--max-rel-error '%s': a "
					   "positive number", arg);
		break;
	}
	case O_DEADLINE:
		if (!parse_int(arg, 0, 604800, &v))
			return usage_error(cli, "--deadline '%s': seconds, "
					   "from 0 (none) to 604800", arg);
		cli->remote_args.deadline_s = v ? (unsigned)v : UINT_MAX;
		break;
	case O_MAX_FETCH:
		if (!parse_size(arg, &cli->remote_args.max_fetch))
			return usage_error(cli, "--max-fetch '%s': a number "
					   "of bytes, with an optional K, M "
					   "or G (1024-based)", arg);
		break;
	case O_HELP:
		print_help(stdout, cli->command_given ? (int)cli->command : -1);
		return QA_EXIT_PASS;
	case O_VERSION:
		printf("quantaudit %s\n", QA_VERSION);
		return QA_EXIT_PASS;
	default:
		/* every other option has a kind */
		assert(od->kind != K_SPECIAL);
		break;
	}
	return -1;
}

/* Parses argv (the command, if any, already removed). Returns -1 to go
 * on, or an exit code. */
/* --gpus auto: which devices were found, by what, with how much free:
 * what the report does not say (it names each device by its profile or
 * size), so a person sees what "auto" meant on this machine. */
static void
say_detected_gpus(void)
{
	const struct qa_gpu_detected *d;
	char why[256];
	size_t i;

	if (qa_gpu_detect(&d, why, sizeof(why)) != 0)
		return;
	for (i = 0; i < d->set.n; i++)
		say("--gpus auto (%s): GPU%zu %s, %.0f MiB, %.0f MiB free; "
		    "%.0f MiB usable after a CUDA context", d->source, i,
		    d->names[i], (double)d->set.dev[i].vram_bytes / 1048576.0,
		    (double)d->free_bytes[i] / 1048576.0,
		    (double)d->set.dev[i].usable_bytes / 1048576.0);
}

static int
parse_args(struct cli *cli, int argc, char **argv)
{
	struct option longopts[N_OPTIONS + 1];
	char shortopts[2 * N_OPTIONS + 2];
	size_t i, k = 0;
	int c, rc;

	memset(longopts, 0, sizeof(longopts));
	shortopts[k++] = ':';
	for (i = 0; i < N_OPTIONS; i++) {
		longopts[i].name = options[i].name;
		longopts[i].has_arg = options[i].arg ? required_argument :
				      no_argument;
		longopts[i].val = options[i].short_name ?
				  options[i].short_name : (int)options[i].id;
		if (options[i].short_name) {
			shortopts[k++] = options[i].short_name;
			if (options[i].arg)
				shortopts[k++] = ':';
		}
	}
	shortopts[k] = '\0';
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct option_def *o = NULL;

		if (c == ':')
			return usage_error(cli, "option '%s' needs a value",
					   argv[optind - 1]);
		if (c == '?')
			return usage_error(cli, "unknown option '%s'",
					   argv[optind - 1]);
		for (i = 0; i < N_OPTIONS && !o; i++)
			if (options[i].short_name ? options[i].short_name == c :
			    (int)options[i].id == c)
				o = &options[i];
		if (!o)
			return usage_error(cli, "unknown option '%s'",
					   argv[optind - 1]);
		if (!(o->commands & (1u << cli->command))) {
			if (o->commands == C(TENSORS) || o->commands == C(RULES) ||
			    o->commands == C(FIT))
				return usage_error(cli, "--%s belongs to the %s "
						   "command", o->name,
						   commands[o->commands ==
						   C(TENSORS) ? CMD_TENSORS :
						   o->commands == C(RULES) ?
						   CMD_RULES : CMD_FIT].name);
			return usage_error(cli, "--%s is not an option of %s",
					   o->name,
					   commands[cli->command].name);
		}
		rc = apply_option(cli, o, optarg);
		if (rc >= 0)
			return rc;
	}
	return -1;
}

/* The checks that need the whole command line. */
static int
check_args(struct cli *cli, int n_paths)
{
	const struct qa_fit_options *o = &cli->fit;
	unsigned fit_only = QA_FIT_GIVEN_CTX | QA_FIT_GIVEN_KV |
			    QA_FIT_GIVEN_KV_K | QA_FIT_GIVEN_KV_V |
			    QA_FIT_GIVEN_TS | QA_FIT_GIVEN_UBATCH |
			    QA_FIT_GIVEN_FA | QA_FIT_GIVEN_MARGIN |
			    QA_FIT_GIVEN_GMU | QA_FIT_GIVEN_MNBT |
			    QA_FIT_GIVEN_PP | QA_FIT_GIVEN_EAGER |
			    QA_FIT_GIVEN_SPEC | QA_FIT_GIVEN_IMPL |
			    QA_FIT_GIVEN_MFS | QA_FIT_GIVEN_CPS |
			    QA_FIT_GIVEN_TP;

	if (cli->command == CMD_SCAN_DIR && cli->jobs > 1 && !cli->list &&
	    strcmp(cli->reporter->name, "text") != 0 &&
	    strcmp(cli->reporter->name, "jsonl") != 0)
		return usage_error(cli, "scan-dir --jobs writes text or jsonl "
				   "(a report per model, in order); --format "
				   "%s is one document over every model",
				   cli->reporter->name);
	if (cli->command == CMD_SERVE) {
		if (!cli->stdio)
			return usage_error(cli, "serve needs a transport: "
					   "--stdio");
		if (n_paths != 0)
			return usage_error(cli, "serve takes no input");
		return -1;
	}
	if (cli->command == CMD_SUMMARIZE) {
		if (strcmp(cli->reporter->name, "text") != 0 &&
		    strcmp(cli->reporter->name, "json") != 0)
			return usage_error(cli, "the summarize command writes "
					   "text or json");
		if (n_paths == 0)
			return usage_error(cli, "no report given");
		return -1;
	}
	if (cli->command == CMD_DIFF) {
		if (strcmp(cli->reporter->name, "text") != 0 &&
		    strcmp(cli->reporter->name, "json") != 0 &&
		    strcmp(cli->reporter->name, "markdown") != 0 &&
		    strcmp(cli->reporter->name, "html") != 0)
			return usage_error(cli, "the diff command writes text, "
					   "json, markdown or html");
		if (n_paths != 2)
			return usage_error(cli, "diff takes two models (got %d "
					   "argument%s)", n_paths,
					   n_paths == 1 ? "" : "s");
	}
	if (cli->command == CMD_COMPARE) {
		if (strcmp(cli->reporter->name, "text") != 0 &&
		    strcmp(cli->reporter->name, "json") != 0 &&
		    strcmp(cli->reporter->name, "markdown") != 0)
			return usage_error(cli, "the compare command writes "
					   "text, json or markdown");
		if (n_paths != 2)
			return usage_error(cli, "compare takes a quant and its "
					   "source (got %d argument%s)",
					   n_paths, n_paths == 1 ? "" : "s");
	}
	if (cli->command == CMD_HASH || cli->command == CMD_VERIFY) {
		if (cli->command == CMD_VERIFY &&
		    strcmp(cli->reporter->name, "text") != 0 &&
		    strcmp(cli->reporter->name, "json") != 0)
			return usage_error(cli, "the verify command writes "
					   "text or json");
		if (cli->command == CMD_VERIFY && n_paths != 2)
			return usage_error(cli, "verify takes a model and a "
					   "manifest (got %d argument%s)",
					   n_paths, n_paths == 1 ? "" : "s");
		if (n_paths == 0)
			return usage_error(cli, "no input given");
		return -1;
	}
	if (!(cli->reporter->views & (1u << commands[cli->command].view))) {
		if (cli->command == CMD_FIT)
			return usage_error(cli, "--format '%s': fit writes "
					   "text, json or markdown",
					   cli->reporter->name);
		return usage_error(cli, "the %s command writes text or json",
				   commands[cli->command].name);
	}
	if (cli->command == CMD_RULES)
		return -1;
	if (n_paths == 0)
		return usage_error(cli, "no input given");
	if (cli->command == CMD_FIT && !cli->gpus && !cli->calibrate)
		return usage_error(cli, "--gpus SPEC is required (e.g. 2x16G, "
				   "rtx-5060-ti:2, none)");
	if (cli->calibrate && n_paths > 1)
		return usage_error(cli, "--calibrate compares one model with "
				   "one log (got %d inputs)", n_paths);
	if ((o->given & fit_only || o->parallel || o->mtp) && !cli->gpus &&
	    !cli->calibrate)
		return usage_error(cli, "fit options (--ctx, --kv, "
				   "--parallel, ...) need --gpus SPEC");
	if ((o->given & QA_FIT_GIVEN_KV) &&
	    (o->given & (QA_FIT_GIVEN_KV_K | QA_FIT_GIVEN_KV_V)))
		return usage_error(cli, "--kv sets both K and V: use either "
				   "--kv or --kv-k/--kv-v");
	if ((o->given & QA_FIT_GIVEN_TS) && cli->gpus &&
	    o->n_tensor_split > o->gpus.n)
		return usage_error(cli, "--tensor-split has %zu values for %zu "
				   "device%s", o->n_tensor_split, o->gpus.n,
				   o->gpus.n == 1 ? "" : "s");
	return -1;
}

/* Loads the rule file and resolves --severity / --disable (which may
 * name the file's own rules); the file's overrides come first so the
 * command line wins. */
static int
prepare_rules(struct cli *cli)
{
	const struct qa_rule *extra = NULL;
	size_t i, n_extra = 0;
	char err[512];

	if (cli->rules_file) {
		cli->policy = qa_policy_load(cli->rules_file, err, sizeof(err));
		if (!cli->policy) {
			say("%s", err);
			return QA_EXIT_USAGE;
		}
		if (qa_policy_overrides(cli->policy, &cli->overrides, err,
					sizeof(err)) != 0) {
			say("%s", err);
			return QA_EXIT_USAGE;
		}
		extra = qa_policy_rules(cli->policy, &n_extra);
	}
	for (i = 0; i < cli->n_override_args; i++) {
		int rc = cli->override_is_disable[i] ?
			qa_overrides_set(&cli->overrides, cli->override_args[i],
					 QA_SEV_NONE, extra, n_extra, err,
					 sizeof(err)) :
			qa_overrides_parse(&cli->overrides,
					   cli->override_args[i], extra,
					   n_extra, err, sizeof(err));
		if (rc != 0)
			return usage_error(cli, "%s", err);
	}
	return -1;
}

/* ---- commands ------------------------------------------------------------ */

/* `quantaudit rules`: the registry (and a rule file's rules) as a table,
 * or one rule's documentation with --explain. */
static int
run_rules(struct cli *cli)
{
	const struct qa_rule *r, *extra = NULL;
	size_t n, n_extra = 0, i;

	if (cli->policy)
		extra = qa_policy_rules(cli->policy, &n_extra);
	if (cli->explain) {
		r = qa_rule_lookup(cli->explain, extra, n_extra);
		if (!r) {
			say("unknown rule '%s'", cli->explain);
			return QA_EXIT_USAGE;
		}
		printf("QA%04u %s\n%s, %s by default\n\n%s.\n\n%s\n",
		       (unsigned)r->code, r->id,
		       qa_category_name(r->category),
		       qa_severity_name(r->severity), r->summary, r->doc);
		return QA_EXIT_PASS;
	}
	r = qa_rules(&n);
	if (strcmp(cli->reporter->name, "json") == 0) {
		printf("{\n  \"schema\": \"quantaudit-rules/1\",\n  \"rules\": [");
		for (i = 0; i < n + n_extra; i++) {
			const struct qa_rule *x = i < n ? &r[i] : &extra[i - n];

			printf("%s\n    {\"code\": \"QA%04u\", \"id\": \"%s\", "
			       "\"category\": \"%s\", \"severity\": \"%s\"}",
			       i ? "," : "", (unsigned)x->code, x->id,
			       qa_category_name(x->category),
			       qa_severity_name(x->severity));
		}
		printf("\n  ]\n}\n");
		return QA_EXIT_PASS;
	}
	for (i = 0; i < n + n_extra; i++) {
		const struct qa_rule *x = i < n ? &r[i] : &extra[i - n];

		printf("QA%04u  %-7s  %-28s %s\n", (unsigned)x->code,
		       qa_severity_name(x->severity), x->id, x->summary);
	}
	return QA_EXIT_PASS;
}

/* One line per finding at or above fail_on, for people reading stderr
 * while stdout carries JSON; then the findings counted past the caps.
 * File names, messages and tensor names come from the model: escaped. */
static void
print_diagnostics(FILE *to, const struct qa_inventory *inv,
		  enum qa_severity fail_on)
{
	uint64_t by[QA_SEV_NONE];
	uint32_t i;
	int s;

	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];

		if (f->severity < fail_on)
			continue;
		fputs("quantaudit: ", to);
		qa_esc_text(to, f->file ? f->file : inv->path);
		if (f->offset >= 0)
			fprintf(to, ":0x%llx", (unsigned long long)f->offset);
		fprintf(to, ": %s: [QA%04u] ", qa_severity_name(f->severity),
			(unsigned)f->rule->code);
		qa_esc_text(to, f->message);
		if (f->tensor) {
			fputs(" (tensor '", to);
			qa_esc_text(to, f->tensor);
			fputs("')", to);
		}
		fputc('\n', to);
	}
	qa_inventory_dropped(inv, by);
	for (s = QA_SEV_NONE - 1; s >= (int)fail_on; s--)
		if (by[s]) {
			char text[1024], line[2048];

			/* as say() writes it */
			snprintf(line, sizeof(line), "%s: %s", inv->path,
				 qa_inventory_dropped_text(inv, text,
							   sizeof(text)));
			fputs("quantaudit: ", to);
			qa_esc_text(to, line);
			fputc('\n', to);
			break;
		}
}

/* The per-input tensor masks of --match. */
static int
build_masks(struct qa_inventory **invs, size_t n, const char *re_text,
	    bool ***masks_out)
{
	regex_t re;
	bool **masks;
	size_t i;
	uint32_t k;
	int rc;

	*masks_out = NULL;
	rc = regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		char msg[256];

		regerror(rc, &re, msg, sizeof(msg));
		say("invalid --match '%s': %s", re_text, msg);
		return QA_EXIT_USAGE;
	}
	masks = calloc(n ? n : 1, sizeof(*masks));
	if (!masks) {
		regfree(&re);
		return QA_EXIT_SYSTEM;
	}
	*masks_out = masks;
	for (i = 0; i < n; i++) {
		masks[i] = calloc(invs[i]->n_tensors + 1, sizeof(bool));
		if (!masks[i]) {
			regfree(&re);
			return QA_EXIT_SYSTEM;
		}
		for (k = 0; k < invs[i]->n_tensors; k++)
			masks[i][k] = regexec(&re, invs[i]->tensors[k].name,
					      0, NULL, 0) == 0;
	}
	regfree(&re);
	return QA_EXIT_PASS;
}

static int
calibrate(struct cli *cli, struct qa_inventory *inv, FILE *out)
{
	struct qa_llamacpp_log lg;
	struct qa_fit_llamacpp_detail det;
	struct qa_fit_result r;
	char err[512];

	if (qa_fit_parse_llamacpp_log(cli->calibrate, &lg, err,
				      sizeof(err)) != 0) {
		say("--calibrate %s: %s", cli->calibrate, err);
		return QA_EXIT_UNRECOGNIZED;
	}
	if (cli->fit.engine != QA_ENGINE_LLAMACPP)
		return usage_error(cli, "--calibrate reads llama.cpp logs: use "
				   "--engine llama.cpp");
	if (qa_fit_calibrate(inv, &cli->fit, &lg, &r, &det, err,
			     sizeof(err)) != 0) {
		say("fit: %s: %s", inv->path, err);
		return QA_EXIT_UNRECOGNIZED;
	}
	if (qa_report_calibration(out, inv, cli->calibrate, &lg, &cli->fit,
				  &r, &det) != 0)
		return QA_EXIT_SYSTEM;
	return QA_EXIT_PASS;
}

/*
 * Ollama stores to look model names up in, as Ollama itself finds them
 * (envconfig/config.go Models(): $OLLAMA_MODELS, else ~/.ollama/models),
 * then the Linux service's store, whose user ollama has its home in
 * /usr/share/ollama (scripts/install.sh).
 */
static void
ollama_roots(const char **roots, char bufs[2][4096], size_t *n)
{
	const char *env = getenv("OLLAMA_MODELS"), *home = getenv("HOME");

	*n = 0;
	if (env && *env && strlen(env) < sizeof(bufs[0])) {
		snprintf(bufs[0], sizeof(bufs[0]), "%s", env);
		roots[(*n)++] = bufs[0];
	}
	if (home && *home && strlen(home) + 16 < sizeof(bufs[1])) {
		snprintf(bufs[1], sizeof(bufs[1]), "%s/.ollama/models", home);
		roots[(*n)++] = bufs[1];
	}
	roots[(*n)++] = "/usr/share/ollama/.ollama/models";
}

/*
 * A run whose report is written one model at a time (text and JSON: see
 * struct qa_reporter begin/input/end), so each inventory is released as
 * soon as its part of the report is written and memory stays flat in the
 * number of inputs. It prints and exits exactly as run() below: the
 * reasons of failed inputs as they come, the stderr diagnostics of the
 * models (JSON) gathered and printed after them, as run() prints them
 * after every reason. One model is held back until the next one (or the
 * end) shows whether the report has several.
 */
struct streamed {
	struct cli *cli;
	const struct qa_reporter *reporter;
	struct qa_report_stream st;
	regex_t re;			/* --match, when given */
	FILE *diag;			/* the diagnostics, gathered */
	char *diag_buf;
	size_t diag_len;
	struct qa_inventory *held;	/* audited, not yet written */
	bool *held_mask;
	size_t written;			/* models written */
	const char *verdict;		/* worst of the models so far */
	int worst_exit;
	int rc;				/* -1 after a write error or when
					 * out of memory */
	bool out_of_memory;
};

/* Writes the held model; several: the report has more than one. */
static void
streamed_flush(struct streamed *s, bool several)
{
	if (!s->held)
		return;
	if (s->rc == 0 &&
	    s->reporter->input(&s->st, s->held, s->held_mask, s->written,
			       several) != 0)
		s->rc = -1;
	s->written++;
	qa_inventory_destroy(s->held);
	free(s->held_mask);
	s->held = NULL;
	s->held_mask = NULL;
}

static int
streamed_input(void *ctx, struct qa_audit_input *in)
{
	struct streamed *s = ctx;
	struct cli *cli = s->cli;
	struct qa_inventory *inv = in->inv;
	const char *v;
	bool *mask = NULL;
	uint32_t k;

	if (!inv) {
		if (!cli->quiet || in->status != QA_E_UNRECOGNIZED)
			say("%s", in->error);
		if (qa_cli_exit_of(in->status) > s->worst_exit)
			s->worst_exit = qa_cli_exit_of(in->status);
		/* A report with a line per model says which failed. */
		if (s->reporter->failed && s->rc == 0) {
			streamed_flush(s, true);
			if (s->reporter->failed(&s->st, in->path,
						qa_cli_exit_of(in->status),
						in->error) != 0)
				s->rc = -1;
		}
		return s->rc;
	}
	/* a side file the disk or the server failed: the report stands,
	 * the run is a system error (a retry may see it whole) */
	if (inv->read_failed && s->worst_exit < QA_EXIT_SYSTEM)
		s->worst_exit = QA_EXIT_SYSTEM;
	/* The report says why the model could not be sized; stderr says it
	 * only when the report is not on stdout (-o FILE). */
	if (inv->fit_error && cli->command == CMD_FIT) {
		if (!cli->quiet && cli->output)
			say("fit: %s: %s", in->path, inv->fit_error);
		if (s->worst_exit < QA_EXIT_UNRECOGNIZED)
			s->worst_exit = QA_EXIT_UNRECOGNIZED;
	} else if (inv->fit_error && !cli->quiet && cli->output) {
		say("%s: no VRAM fit: %s", in->path, inv->fit_error);
	}
	if (cli->match) {
		mask = calloc(inv->n_tensors + 1, sizeof(bool));
		if (!mask) {
			s->out_of_memory = true;
			s->rc = -1;
			return -1;
		}
		for (k = 0; k < inv->n_tensors; k++)
			mask[k] = regexec(&s->re, inv->tensors[k].name, 0,
					  NULL, 0) == 0;
	}
	if (s->diag)
		print_diagnostics(s->diag, inv, cli->fail_on);
	v = qa_verdict_all(&inv, 1, cli->fail_on);
	if (strcmp(v, "fail") == 0 ||
	    (strcmp(v, "warn") == 0 && strcmp(s->verdict, "pass") == 0))
		s->verdict = v;
	streamed_flush(s, true);
	s->held = inv;
	s->held_mask = mask;
	in->inv = NULL;
	/* "several" unread: written and released now, not held */
	if (!s->reporter->input_needs_several)
		streamed_flush(s, true);
	return s->rc;
}

/* The report options the command line sets, for both ways of writing
 * a report (streamed and all at once). */
static void
report_options(const struct cli *cli, struct qa_report_options *ropt)
{
	memset(ropt, 0, sizeof(*ropt));
	ropt->view = commands[cli->command].view;
	/* fit's JSON is about the fit: no tensor list unless asked */
	ropt->summary = cli->summary || (cli->command == CMD_FIT &&
					 !cli->summary_given);
	ropt->layers = cli->layers;
	ropt->fail_on = cli->fail_on;
	if (cli->policy)
		ropt->extra_rules = qa_policy_rules(cli->policy,
						    &ropt->n_extra_rules);
	ropt->color = !cli->no_color && !cli->output &&
		      !getenv("NO_COLOR") && isatty(fileno(stdout));
}

/* Returns the exit code, or -1 when this run cannot stream (the reporter
 * needs every input, --calibrate, or an invalid --match or an -o that
 * cannot be opened: run() then says so after the inputs' reasons, as
 * always). */
static int
run_streamed(struct cli *cli, char **paths, int n_paths,
	     const struct qa_audit_options *aopt)
{
	struct streamed s;
	struct qa_report_options ropt;
	struct qa_audit audit;
	FILE *out = stdout;
	int exit_code = QA_EXIT_PASS, rc;

	if (!cli->reporter->input || cli->calibrate)
		return -1;
	memset(&s, 0, sizeof(s));
	if (cli->match &&
	    regcomp(&s.re, cli->match, REG_EXTENDED | REG_NOSUB) != 0)
		return -1;
	if (cli->output) {
		out = fopen(cli->output, "w");
		if (!out) {
			if (cli->match)
				regfree(&s.re);
			return -1;
		}
	}
	s.cli = cli;
	s.reporter = cli->reporter;
	s.verdict = "pass";
	report_options(cli, &ropt);
	if (strcmp(cli->reporter->name, "text") != 0 && cli->verbose &&
	    !cli->quiet)
		s.diag = open_memstream(&s.diag_buf, &s.diag_len);
	s.st.out = out;
	s.st.opt = &ropt;
	s.rc = cli->reporter->begin(&s.st);
	rc = qa_audit_run_each((const char *const *)paths, (size_t)n_paths,
			       aopt, streamed_input, &s, &audit);
	streamed_flush(&s, s.written > 0);
	if (s.diag && fclose(s.diag) == 0 && s.diag_len)
		fwrite(s.diag_buf, 1, s.diag_len, stderr);
	free(s.diag_buf);
	if (cli->match)
		regfree(&s.re);
	if (rc == QA_E_NOMEM || s.out_of_memory) {
		fputs("quantaudit: out of memory\n", stderr);
		exit_code = QA_EXIT_SYSTEM;
	}
	ropt.advisories = audit.advisories;
	ropt.n_advisories = audit.n_advisories;
	if (cli->reporter->end(&s.st, s.written, s.verdict) != 0)
		s.rc = -1;
	if (s.rc != 0 && exit_code == QA_EXIT_PASS) {
		fputs("quantaudit: error writing the report\n", stderr);
		exit_code = QA_EXIT_SYSTEM;
	} else if (s.written > 0 && strcmp(s.verdict, "fail") == 0 &&
		   exit_code == QA_EXIT_PASS) {
		exit_code = QA_EXIT_FAIL;
	}
	if (out != stdout && fclose(out) != 0 && exit_code == QA_EXIT_PASS)
		exit_code = QA_EXIT_SYSTEM;
	if (s.worst_exit > exit_code)
		exit_code = s.worst_exit;
	qa_audit_free(&audit);
	return exit_code;
}

static int run(struct cli *cli, char **paths, int n_paths);

/* One model of scan-dir --jobs, in a worker: its report to file. */
static int
run_job(void *ctx, char *path, const char *file)
{
	struct cli *cli = ctx;

	cli->output = file;
	return run(cli, &path, 1);
}

static int
run(struct cli *cli, char **paths, int n_paths)
{
	struct qa_audit_options aopt;
	struct qa_resolve_options ropt_in;
	struct qa_cli_integrity scan_opt;
	const char *roots[3];
	/* static: 8 KB in this frame would be touched page by page by the
	 * stack-clash probes of every run (one run per process) */
	static char root_bufs[2][4096];
	struct qa_report_options ropt;
	struct qa_audit audit;
	struct qa_inventory **invs = NULL;
	struct qa_failed_input *failed = NULL;
	bool **masks = NULL;
	size_t n_ok = 0, n_failed = 0, i;
	int worst_exit = QA_EXIT_PASS, exit_code = QA_EXIT_PASS, rc;
	FILE *out = stdout;

	memset(&aopt, 0, sizeof(aopt));
	memset(&ropt_in, 0, sizeof(ropt_in));
	memset(&scan_opt, 0, sizeof(scan_opt));
	ollama_roots(roots, root_bufs, &ropt_in.n_ollama_roots);
	ropt_in.ollama_roots = roots;
	ropt_in.revision = cli->revision;
	ropt_in.follow_symlinks = cli->follow_symlinks;
	ropt_in.mmproj = cli->mmproj;
	if (cli->command == CMD_SCAN_DIR) {
		/* the models found, then check on each */
		char **found;
		size_t n_found;

		rc = qa_cli_expand_dirs(paths, n_paths, &ropt_in, &found,
					&n_found);
		if (rc != QA_EXIT_PASS)
			return rc;
		if (cli->list) {
			size_t k;

			/* paths are printed as they are, one per line: a
			 * name with a newline in it is left out (said) */
			for (k = 0; k < n_found; k++)
				if (strchr(found[k], '\n'))
					say("scan-dir --list: a path with a "
					    "newline is left out: %s",
					    found[k]);
				else
					printf("%s\n", found[k]);
			qa_cli_free_paths(found, n_found);
			return fflush(stdout) == 0 ? QA_EXIT_PASS :
			       QA_EXIT_SYSTEM;
		}
		cli->command = CMD_CHECK;
		cli->from_scan_dir = true;
		if (cli->jobs > 1 && n_found > 1)
			rc = qa_cli_run_jobs(found, n_found, cli->jobs,
					     run_job, cli, cli->output);
		else
			rc = run(cli, found, (int)n_found);
		qa_cli_free_paths(found, n_found);
		return rc;
	}
	aopt.resolve = &ropt_in;
	aopt.base_path = cli->base;
	aopt.remote = cli->remote;
	aopt.checks.engine = cli->engine;
	aopt.checks.engine_build = cli->engine_build;
	aopt.checks.gpus = cli->gpus;
	if (cli->gpus)
		aopt.checks.gpu_set = &cli->fit.gpus;
	aopt.checks.policy = cli->policy;
	aopt.overrides = &cli->overrides;
	aopt.fail_on = cli->fail_on;
	/* fit cannot size an adapter, a projector or a draft alone: it is
	 * refused in one line naming it. check audits such a file by its
	 * own rules (LoRA pairs and ranks, a PEFT adapter against --base, a
	 * draft head's shapes) and names it in a finding, so a release
	 * pipeline of adapters can gate on check as it does on models. */
	aopt.models_only = cli->command == CMD_FIT;
	/* With --gpus every command sizes the model; `check` and `inspect`
	 * search the largest context that fits unless --ctx is given, as
	 * llama.cpp's --fit and vLLM's --max-model-len auto do. */
	if (cli->gpus && !cli->calibrate) {
		if (cli->command != CMD_FIT &&
		    !(cli->fit.given & QA_FIT_GIVEN_CTX))
			cli->fit.ctx = -1;
		aopt.fit = &cli->fit;
	}
	if (cli->command == CMD_SCAN) {
		scan_opt.jobs = cli->jobs;
		scan_opt.quiet = cli->quiet;
		aopt.data_step = qa_cli_scan_step;
		aopt.data_ctx = &scan_opt;
	}
	if (commands[cli->command].integrity) {
		struct qa_cli_integrity io;

		memset(&io, 0, sizeof(io));
		io.output = cli->output;
		io.json = strcmp(cli->reporter->name, "json") == 0;
		io.sha256 = cli->sha256;
		io.quiet = cli->quiet;
		io.jobs = cli->jobs;
		io.audit = &aopt;
		io.content = cli->content;
		io.format = cli->reporter->name;
		io.max_rel_error = cli->max_rel_error;
		return commands[cli->command].integrity(&io, paths, n_paths);
	}
	rc = run_streamed(cli, paths, n_paths, &aopt);
	if (rc >= 0)
		return rc;
	if (qa_audit_run((const char *const *)paths, (size_t)n_paths, &aopt,
			 &audit) != QA_OK) {
		fputs("quantaudit: out of memory\n", stderr);
		qa_audit_free(&audit);
		return QA_EXIT_SYSTEM;
	}
	invs = calloc(audit.n ? audit.n : 1, sizeof(*invs));
	if (!invs) {
		qa_audit_free(&audit);
		fputs("quantaudit: out of memory\n", stderr);
		return QA_EXIT_SYSTEM;
	}
	failed = calloc(audit.n ? audit.n : 1, sizeof(*failed));
	if (!failed) {
		free(invs);
		qa_audit_free(&audit);
		fputs("quantaudit: out of memory\n", stderr);
		return QA_EXIT_SYSTEM;
	}
	for (i = 0; i < audit.n; i++) {
		struct qa_audit_input *in = &audit.inputs[i];

		if (in->inv) {
			invs[n_ok++] = in->inv;
			/* as in streamed_input */
			if (in->inv->read_failed && worst_exit < QA_EXIT_SYSTEM)
				worst_exit = QA_EXIT_SYSTEM;
			if (in->inv->fit_error && cli->command == CMD_FIT) {
				if (!cli->quiet && cli->output)
					say("fit: %s: %s", in->path,
					    in->inv->fit_error);
				if (worst_exit < QA_EXIT_UNRECOGNIZED)
					worst_exit = QA_EXIT_UNRECOGNIZED;
			} else if (in->inv->fit_error && !cli->quiet &&
				   cli->output) {
				say("%s: no VRAM fit: %s", in->path,
				    in->inv->fit_error);
			}
			continue;
		}
		if (!cli->quiet || in->status != QA_E_UNRECOGNIZED)
			say("%s", in->error);
		if (qa_cli_exit_of(in->status) > worst_exit)
			worst_exit = qa_cli_exit_of(in->status);
		failed[n_failed].path = in->path;
		failed[n_failed].exit_code = qa_cli_exit_of(in->status);
		failed[n_failed].message = in->error;
		n_failed++;
	}
	if (cli->match) {
		exit_code = build_masks(invs, n_ok, cli->match, &masks);
		if (exit_code != QA_EXIT_PASS)
			goto out_free;
	}
	if (cli->output) {
		out = fopen(cli->output, "w");
		if (!out) {
			say("cannot write '%s': %s", cli->output,
			    strerror(errno));
			exit_code = QA_EXIT_SYSTEM;
			out = stdout;
			goto out_free;
		}
	}
	if (cli->calibrate) {
		exit_code = n_ok ? calibrate(cli, invs[0], out) : worst_exit;
		worst_exit = QA_EXIT_PASS;
		goto out_close;
	}
	report_options(cli, &ropt);
	ropt.tensor_mask = (const bool *const *)masks;
	ropt.advisories = audit.advisories;
	ropt.n_advisories = audit.n_advisories;
	ropt.failed = failed;
	ropt.n_failed = n_failed;
	if (strcmp(cli->reporter->name, "text") != 0 && cli->verbose &&
	    !cli->quiet)
		for (i = 0; i < n_ok; i++)
			print_diagnostics(stderr, invs[i], cli->fail_on);
	rc = cli->reporter->write(out, invs, n_ok, &ropt);
	if (fflush(out) != 0 || ferror(out))
		rc = -1;
	if (rc != 0) {
		fprintf(stderr, "quantaudit: error writing the report\n");
		exit_code = QA_EXIT_SYSTEM;
		goto out_close;
	}
	if (n_ok > 0 && strcmp(qa_verdict_all(invs, n_ok, cli->fail_on),
			       "fail") == 0)
		exit_code = QA_EXIT_FAIL;
out_close:
	if (out != stdout && fclose(out) != 0 && exit_code == QA_EXIT_PASS)
		exit_code = QA_EXIT_SYSTEM;
out_free:
	/* An input that could not be read at all outranks a failed audit
	 * of another one. */
	if (worst_exit > exit_code)
		exit_code = worst_exit;
	for (i = 0; masks && i < n_ok; i++)
		free(masks[i]);
	free(masks);
	free(invs);
	free(failed);
	qa_audit_free(&audit);
	return exit_code;
}

/* ---- the commands' entries (commands[].run, .integrity) ------------------ */

/* The commands that audit models: the inputs opened (remote ones through
 * a session), then the one pipeline. */
static int
cmd_audit(struct cli *cli, char **paths, int n_paths)
{
	int rc;

	if (commands[cli->command].data)
		cli->remote_args.data_command = commands[cli->command].name;
	else if (cli->command == CMD_DIFF && cli->content)
		cli->remote_args.data_command = "diff --content";
	rc = qa_cli_remote_open(&cli->remote_args, paths, n_paths,
				&cli->remote);
	return rc < 0 ? run(cli, paths, n_paths) : rc;
}

static int
cmd_summarize(struct cli *cli, char **paths, int n_paths)
{
	return qa_cli_summarize(paths, n_paths,
				strcmp(cli->reporter->name, "json") == 0,
				cli->output);
}

static int
cmd_rules(struct cli *cli, char **paths, int n_paths)
{
	(void)paths;
	(void)n_paths;
	return run_rules(cli);
}

static int
cmd_serve(struct cli *cli, char **paths, int n_paths)
{
	(void)cli;
	(void)paths;
	(void)n_paths;
	return qa_cli_serve(qa_cli_main);
}

static int
integrity_hash(const struct qa_cli_integrity *io, char **paths, int n_paths)
{
	return qa_cli_hash(io, paths, n_paths);
}

static int
integrity_verify(const struct qa_cli_integrity *io, char **paths,
		 int n_paths)
{
	(void)n_paths;
	return qa_cli_verify(io, paths[0], paths[1]);
}

static int
integrity_diff(const struct qa_cli_integrity *io, char **paths, int n_paths)
{
	(void)n_paths;
	return qa_cli_diff(io, paths[0], paths[1]);
}

static int
integrity_compare(const struct qa_cli_integrity *io, char **paths,
		  int n_paths)
{
	(void)n_paths;
	return qa_cli_compare(io, paths[0], paths[1]);
}

static int
command_of(const char *s)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++)
		if (strcmp(s, commands[i].name) == 0)
			return (int)i;
	return -1;
}

int
qa_cli_main(int argc, char **argv)
{
	struct cli *cli;
	int rc, cmd;

	cli = calloc(1, sizeof(*cli));
	if (!cli) {
		fputs("quantaudit: out of memory\n", stderr);
		return QA_EXIT_SYSTEM;
	}
	cli->command = CMD_INSPECT;
	cli->reporter = qa_reporter_find("text");
	cli->fail_on = QA_SEV_ERROR;
	qa_fit_options_init(&cli->fit);
	/* The command is the first argument when it names one; otherwise
	 * inspect is implied ("quantaudit model.gguf"). */
	if (argc > 1 && (cmd = command_of(argv[1])) >= 0) {
		cli->command = (enum cmd)cmd;
		cli->command_given = true;
		argv++;
		argc--;
	}
	rc = parse_args(cli, argc, argv);
	if (rc < 0 && cli->gpus && strcmp(cli->gpus, "auto") == 0 &&
	    !cli->quiet)
		say_detected_gpus();
	if (rc < 0)
		rc = check_args(cli, argc - optind);
	if (rc < 0)
		rc = prepare_rules(cli);
	if (rc < 0) {
		assert(commands[cli->command].run != NULL);
		rc = commands[cli->command].run(cli, argv + optind,
						argc - optind);
		rc = qa_cli_remote_close(cli->remote, cli->quiet, rc);
	}
	qa_policy_destroy(cli->policy);
	free(cli);
	return rc;
}
