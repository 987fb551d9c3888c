/* SPDX-License-Identifier: MIT */
/*
 * Command-line front end: parses arguments with getopt_long, runs the
 * subcommand (inspect, tensors), writes the report to stdout or --output
 * and maps the outcome to the exit codes of DESIGN.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/policy.h"
#include "engine/check.h"
#include "cli/cli_fit.h"
#include "fit/gpuspec.h"
#include "formats/input.h"
#include "report/report.h"
#include "core/source.h"

enum output_format {
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_MARKDOWN,
	FORMAT_SARIF,
	FORMAT_JUNIT,
};

struct cli {
	const char *command;
	enum output_format format;
	const char *output;
	const char *match;
	const char *rules_file;
	const char *explain;
	enum qa_severity fail_on;
	bool quiet;
	bool color;
	bool no_color;
	bool summary;
	bool layers;
	struct qa_check_options check;
	struct qa_policy *policy;
	struct qa_overrides overrides;
	/* --severity / --disable as given; resolved once the rule file
	 * (which may define the named rules) is loaded */
	const char *override_args[64];
	bool override_is_disable[64];
	size_t n_override_args;
};

static const char usage_text[] =
"Usage: quantaudit [COMMAND] [OPTIONS] PATH...\n"
"\n"
"Inspect and audit LLM model files (GGUF, safetensors, Hugging Face\n"
"folders) from their headers, without loading the weights.\n"
"\n"
"Commands:\n"
"  inspect PATH...          model summary, components, findings (default)\n"
"  tensors PATH...          one line per tensor\n"
"  check PATH...            audit for CI: every rule, a verdict, exit code\n"
"  fit PATH --gpus SPEC     VRAM fit per GPU (see quantaudit fit --help)\n"
"  rules [--explain RULE]   list the rules, or document one\n"
"\n"
"Options:\n"
"  -f, --format FMT         text (default), json, markdown, sarif, junit\n"
"  -o, --output FILE        write the report to FILE instead of stdout\n"
"  -m, --match RE           tensors: list only names matching the POSIX\n"
"                           extended regular expression RE\n"
"      --summary            json: leave out the tensor and module lists\n"
"      --layers             text: always print the per-layer precision map\n"
"      --fail-on SEV        error (default), warning, info or never:\n"
"                           the lowest severity that fails the verdict\n"
"  -r, --rules FILE         check: a JSON policy file (docs/policy.md)\n"
"      --severity RULE=SEV  override a rule's severity (error, warning,\n"
"                           info, off); RULE is a code or an id\n"
"      --disable RULE       do not report RULE\n"
"      --engine ENGINE      llama.cpp or vllm: add engine knowledge\n"
"      --gpus SPEC          e.g. 2x16G, rtx-5060-ti:2: add GPU knowledge\n"
"  -q, --quiet              no diagnostics on stderr\n"
"      --no-color           no ANSI colour (also when NO_COLOR is set)\n"
"  -h, --help               this help\n"
"  -V, --version            version\n"
"\n"
"PATH is a .gguf file (any part of a split set), a .safetensors file,\n"
"shard or *.safetensors.index.json, or a model folder.\n"
"\n"
"Exit status: 0 pass, 1 findings at or above --fail-on, 2 usage error,\n"
"3 input not recognized, 4 system error (I/O, out of memory).\n";

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("quantaudit: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'quantaudit --help'.\n", stderr);
	return QA_EXIT_USAGE;
}

static bool
parse_severity(const char *s, enum qa_severity *out)
{
	if (strcmp(s, "error") == 0)
		*out = QA_SEV_ERROR;
	else if (strcmp(s, "warning") == 0)
		*out = QA_SEV_WARNING;
	else if (strcmp(s, "info") == 0)
		*out = QA_SEV_INFO;
	else if (strcmp(s, "never") == 0)
		*out = QA_SEV_NONE;
	else
		return false;
	return true;
}

/* One line per finding at or above fail_on, for people reading stderr
 * while stdout carries JSON. */
static void
print_diagnostics(const struct qa_inventory *inv, enum qa_severity fail_on)
{
	uint32_t i;

	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];

		if (f->severity < fail_on)
			continue;
		fprintf(stderr, "quantaudit: %s", f->file ? f->file : inv->path);
		if (f->offset >= 0)
			fprintf(stderr, ":0x%llx", (unsigned long long)f->offset);
		fprintf(stderr, ": %s: [QA%04u] %s", qa_severity_name(f->severity),
			(unsigned)f->rule->code, f->message);
		if (f->tensor)
			fprintf(stderr, " (tensor '%s')", f->tensor);
		fputc('\n', stderr);
	}
}

/* Builds the per-input tensor masks for --match. */
static int
build_masks(struct qa_inventory **invs, size_t n, const char *re_text,
	    bool ***masks_out)
{
	regex_t re;
	bool **masks;
	size_t i;
	uint32_t k;
	int rc;

	rc = regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		char msg[256];

		regerror(rc, &re, msg, sizeof(msg));
		fprintf(stderr, "quantaudit: invalid --match '%s': %s\n",
			re_text, msg);
		return QA_EXIT_USAGE;
	}
	masks = calloc(n ? n : 1, sizeof(*masks));
	if (!masks) {
		regfree(&re);
		return QA_EXIT_SYSTEM;
	}
	for (i = 0; i < n; i++) {
		if (!invs[i])
			continue;
		masks[i] = calloc(invs[i]->n_tensors + 1, sizeof(bool));
		if (!masks[i]) {
			regfree(&re);
			*masks_out = masks;
			return QA_EXIT_SYSTEM;
		}
		for (k = 0; k < invs[i]->n_tensors; k++)
			masks[i][k] = regexec(&re, invs[i]->tensors[k].name,
					      0, NULL, 0) == 0;
	}
	regfree(&re);
	*masks_out = masks;
	return QA_EXIT_PASS;
}

static int
run(struct cli *cli, char **paths, int n_paths)
{
	struct qa_inventory **invs;
	struct qa_report_options ropt;
	bool **masks = NULL;
	size_t n_ok = 0;
	int worst_exit = QA_EXIT_PASS;
	FILE *out = stdout;
	int i, rc, exit_code;

	invs = calloc((size_t)n_paths, sizeof(*invs));
	if (!invs) {
		fputs("quantaudit: out of memory\n", stderr);
		return QA_EXIT_SYSTEM;
	}
	for (i = 0; i < n_paths; i++) {
		char err[1024];

		rc = qa_input_inspect(paths[i], &invs[n_ok], err, sizeof(err));
		if (rc == QA_OK) {
			qa_cli_fit_for_check(invs[n_ok], &cli->check, cli->quiet);
			qa_checks_run(invs[n_ok], &cli->check);
			qa_overrides_apply(invs[n_ok], &cli->overrides);
			n_ok++;
			continue;
		}
		if (!cli->quiet || rc != QA_E_UNRECOGNIZED)
			fprintf(stderr, "quantaudit: %s\n", err);
		if (rc == QA_E_UNRECOGNIZED) {
			if (worst_exit < QA_EXIT_UNRECOGNIZED)
				worst_exit = QA_EXIT_UNRECOGNIZED;
		} else {
			worst_exit = QA_EXIT_SYSTEM;
		}
	}

	exit_code = QA_EXIT_PASS;
	if (cli->match) {
		exit_code = build_masks(invs, n_ok, cli->match, &masks);
		if (exit_code != QA_EXIT_PASS)
			goto out_free;
	}
	if (cli->output) {
		out = fopen(cli->output, "w");
		if (!out) {
			fprintf(stderr, "quantaudit: cannot write '%s': %s\n",
				cli->output, strerror(errno));
			exit_code = QA_EXIT_SYSTEM;
			goto out_free;
		}
	}
	memset(&ropt, 0, sizeof(ropt));
	ropt.summary = cli->summary;
	ropt.layers = cli->layers;
	ropt.fail_on = cli->fail_on;
	ropt.tensor_mask = (const bool *const *)masks;
	if (cli->policy)
		ropt.extra_rules = qa_policy_rules(cli->policy,
						   &ropt.n_extra_rules);
	ropt.color = !cli->no_color && !cli->output && !getenv("NO_COLOR") &&
		     isatty(fileno(stdout));
	if (cli->format != FORMAT_TEXT && !cli->quiet)
		for (i = 0; i < (int)n_ok; i++)
			print_diagnostics(invs[i], cli->fail_on);
	if (cli->format == FORMAT_JSON) {
		rc = qa_report_json(out, invs, n_ok, &ropt);
	} else if (cli->format == FORMAT_MARKDOWN) {
		rc = qa_report_markdown(out, invs, n_ok, &ropt);
	} else if (cli->format == FORMAT_SARIF) {
		rc = qa_report_sarif(out, invs, n_ok, &ropt);
	} else if (cli->format == FORMAT_JUNIT) {
		rc = qa_report_junit(out, invs, n_ok, &ropt);
	} else if (strcmp(cli->command, "tensors") == 0) {
		rc = qa_report_text_tensors(out, invs, n_ok, &ropt);
	} else {
		rc = qa_report_text(out, invs, n_ok, &ropt);
	}
	if (fflush(out) != 0 || ferror(out))
		rc = -1;
	if (out != stdout && fclose(out) != 0)
		rc = -1;
	if (rc != 0) {
		fprintf(stderr, "quantaudit: error writing the report\n");
		exit_code = QA_EXIT_SYSTEM;
		goto out_free;
	}
	if (n_ok > 0 && strcmp(qa_verdict_all(invs, n_ok, cli->fail_on),
			       "fail") == 0)
		exit_code = QA_EXIT_FAIL;
	/* An input that could not be read at all outranks a failed audit
	 * of another one. */
	if (worst_exit > exit_code)
		exit_code = worst_exit;
out_free:
	for (i = 0; i < (int)n_ok; i++) {
		if (masks)
			free(masks[i]);
		qa_inventory_destroy(invs[i]);
	}
	free(masks);
	free(invs);
	return exit_code;
}

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
		r = qa_rule_lookup(cli->explain, cli->policy);
		if (!r) {
			fprintf(stderr, "quantaudit: unknown rule '%s'\n",
				cli->explain);
			return QA_EXIT_USAGE;
		}
		printf("QA%04u %s\n%s, %s by default\n\n%s.\n\n%s\n",
		       (unsigned)r->code, r->id,
		       qa_category_name(r->category),
		       qa_severity_name(r->severity), r->summary, r->doc);
		return QA_EXIT_PASS;
	}
	r = qa_rules(&n);
	if (cli->format == FORMAT_JSON) {
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

static bool
is_command(const char *s)
{
	static const char *const commands[] = {
		"inspect", "tensors", "check", "rules", "fit",
	};
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(s, commands[i]) == 0)
			return true;
	return false;
}

/* Loads the rule file and resolves --severity / --disable (which may
 * name the file's own rules); the file's overrides come first so the
 * command line wins. */
static int
prepare_rules(struct cli *cli)
{
	char err[512];
	size_t i;

	if (cli->rules_file) {
		cli->policy = qa_policy_load(cli->rules_file, err, sizeof(err));
		if (!cli->policy) {
			fprintf(stderr, "quantaudit: %s\n", err);
			return QA_EXIT_USAGE;
		}
		if (qa_policy_overrides(cli->policy, &cli->overrides, err,
					sizeof(err)) != 0) {
			fprintf(stderr, "quantaudit: %s\n", err);
			return QA_EXIT_USAGE;
		}
		cli->check.policy = cli->policy;
	}
	for (i = 0; i < cli->n_override_args; i++) {
		int rc = cli->override_is_disable[i] ?
			qa_overrides_disable(&cli->overrides,
					     cli->override_args[i], cli->policy,
					     err, sizeof(err)) :
			qa_overrides_add(&cli->overrides, cli->override_args[i],
					 cli->policy, err, sizeof(err));
		if (rc != 0)
			return usage_error("%s", err);
	}
	return QA_EXIT_PASS;
}

int
qa_cli_main(int argc, char **argv)
{
	enum { OPT_SUMMARY = 256, OPT_FAIL_ON, OPT_NO_COLOR, OPT_SEVERITY,
	       OPT_DISABLE, OPT_ENGINE, OPT_GPUS, OPT_EXPLAIN,
	       OPT_LAYERS };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "match", required_argument, NULL, 'm' },
		{ "rules", required_argument, NULL, 'r' },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "layers", no_argument, NULL, OPT_LAYERS },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "severity", required_argument, NULL, OPT_SEVERITY },
		{ "disable", required_argument, NULL, OPT_DISABLE },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "explain", required_argument, NULL, OPT_EXPLAIN },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-color", no_argument, NULL, OPT_NO_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli *cli;
	int c, first, rc;

	cli = calloc(1, sizeof(*cli));
	if (!cli) {
		fputs("quantaudit: out of memory\n", stderr);
		return QA_EXIT_SYSTEM;
	}
	if (argc > 1 && strcmp(argv[1], "fit") == 0) {
		free(cli);
		return qa_cli_fit(argc - 1, argv + 1);
	}
	cli->command = "inspect";
	cli->format = FORMAT_TEXT;
	cli->fail_on = QA_SEV_ERROR;

	/* The command is the first argument when it names one; otherwise
	 * inspect is implied ("quantaudit model.gguf"). */
	first = 1;
	if (argc > 1 && is_command(argv[1])) {
		cli->command = argv[1];
		first = 2;
	}
	argv += first - 1;
	argc -= first - 1;
	optind = 1;
	opterr = 0;
	rc = -1;
	while (rc < 0 && (c = getopt_long(argc, argv, ":f:o:m:r:qhV", longopts,
					  NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") == 0)
				cli->format = FORMAT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				cli->format = FORMAT_JSON;
			else if (strcmp(optarg, "markdown") == 0)
				cli->format = FORMAT_MARKDOWN;
			else if (strcmp(optarg, "sarif") == 0)
				cli->format = FORMAT_SARIF;
			else if (strcmp(optarg, "junit") == 0)
				cli->format = FORMAT_JUNIT;
			else
				rc = usage_error("unknown --format '%s' (text,"
						 " json, markdown, sarif or "
						 "junit)", optarg);
			break;
		case 'o':
			cli->output = optarg;
			break;
		case 'm':
			cli->match = optarg;
			break;
		case 'r':
			cli->rules_file = optarg;
			break;
		case OPT_SUMMARY:
			cli->summary = true;
			break;
		case OPT_LAYERS:
			cli->layers = true;
			break;
		case OPT_FAIL_ON:
			if (!parse_severity(optarg, &cli->fail_on))
				rc = usage_error("unknown --fail-on '%s' "
						 "(error, warning, info or "
						 "never)", optarg);
			break;
		case OPT_SEVERITY:
		case OPT_DISABLE:
			if (cli->n_override_args == 64) {
				rc = usage_error("too many --severity/"
						 "--disable options");
				break;
			}
			cli->override_is_disable[cli->n_override_args] =
				c == OPT_DISABLE;
			cli->override_args[cli->n_override_args++] = optarg;
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "llama.cpp") != 0 &&
			    strcmp(optarg, "vllm") != 0)
				rc = usage_error("unknown --engine '%s' "
						 "(llama.cpp or vllm)", optarg);
			cli->check.engine = optarg;
			break;
		case OPT_GPUS: {
			struct qa_gpu_set gs;
			char gerr[256];

			if (qa_gpuspec_parse(optarg, &gs, gerr,
					     sizeof(gerr)) != 0)
				rc = usage_error("--gpus: %s", gerr);
			cli->check.gpus = optarg;
			break;
		}
		case OPT_EXPLAIN:
			cli->explain = optarg;
			break;
		case 'q':
			cli->quiet = true;
			break;
		case OPT_NO_COLOR:
			cli->no_color = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			rc = QA_EXIT_PASS;
			break;
		case 'V':
			printf("quantaudit %s\n", QA_VERSION);
			rc = QA_EXIT_PASS;
			break;
		case ':':
			rc = usage_error("option '%s' needs a value",
					 argv[optind - 1]);
			break;
		default:
			rc = usage_error("unknown option '%s'",
					 argv[optind - 1]);
			break;
		}
	}
	if (rc < 0 && cli->match && strcmp(cli->command, "tensors") != 0)
		rc = usage_error("--match belongs to the tensors command");
	if (rc < 0 && cli->explain && strcmp(cli->command, "rules") != 0)
		rc = usage_error("--explain belongs to the rules command");
	if (rc < 0 && (cli->format == FORMAT_SARIF ||
		       cli->format == FORMAT_JUNIT ||
		       cli->format == FORMAT_MARKDOWN) &&
	    strcmp(cli->command, "tensors") == 0)
		rc = usage_error("the tensors command writes text or json");
	/* rc >= 0: --help, --version or a usage error ended it already. */
	if (rc >= 0)
		goto out;
	rc = prepare_rules(cli);
	if (rc != QA_EXIT_PASS)
		goto out;
	if (strcmp(cli->command, "rules") == 0)
		rc = run_rules(cli);
	else if (optind >= argc)
		rc = usage_error("no input given");
	else
		rc = run(cli, argv + optind, argc - optind);
out:
	qa_policy_destroy(cli->policy);
	free(cli);
	return rc;
}
