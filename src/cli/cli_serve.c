/* SPDX-License-Identifier: MIT */
/*
 * `quantaudit serve --stdio`: a Model Context Protocol server over
 * standard input and output, for programs and agents. MCP is JSON-RPC 2.0
 * with one message per line on stdio
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#stdio);
 * the server answers initialize (the protocol version the client asks
 * for when it is one of ours, else the newest we speak), ping,
 * tools/list and tools/call, and ignores notifications.
 *
 * The tools are inspect, check, fit and diff. Each runs the command as
 * the command line does (qa_cli_report: the same options, the same
 * quantaudit/1 JSON report) and returns the report twice, as MCP asks of
 * a tool with an output schema: as text and as structuredContent. A
 * call whose inputs cannot be audited (exit 2, 3, 4) has isError set
 * and says why; findings are data, not errors.
 *
 * Nothing but protocol messages goes to stdout: the runs write their
 * reports to anonymous files and are quiet; lines that are not JSON get
 * a JSON-RPC parse error, lines past QA_SERVE_MAX_LINE are refused
 * unread.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/jsonw.h"

#define QA_SERVE_MAX_LINE ((size_t)16 << 20)

static const char *const protocol_versions[] = {
	"2025-06-18", "2025-03-26", "2024-11-05",
};

/* ---- writing ------------------------------------------------------------ */

/* JSON text without the whitespace between tokens: a message is one
 * line. Strings are copied as they are (a newline in one is already
 * escaped). */
static void
put_compact(FILE *out, const char *s)
{
	bool in_str = false;

	for (; *s; s++) {
		if (in_str) {
			putc(*s, out);
			if (*s == '\\' && s[1])
				putc(*++s, out);
			else if (*s == '"')
				in_str = false;
		} else if (*s == '"') {
			in_str = true;
			putc(*s, out);
		} else if (*s != ' ' && *s != '\n' && *s != '\t' &&
			   *s != '\r') {
			putc(*s, out);
		}
	}
}

static void
put_id(FILE *out, const cJSON *id)
{
	char *s = id ? cJSON_PrintUnformatted(id) : NULL;

	fputs(s ? s : "null", out);
	free(s);
}

static void
reply_error(const cJSON *id, int code, const char *message)
{
	fputs("{\"jsonrpc\":\"2.0\",\"id\":", stdout);
	put_id(stdout, id);
	fprintf(stdout, ",\"error\":{\"code\":%d,\"message\":", code);
	qa_jw_string(stdout, message);
	fputs("}}\n", stdout);
	fflush(stdout);
}

static void
reply_begin(const cJSON *id)
{
	fputs("{\"jsonrpc\":\"2.0\",\"id\":", stdout);
	put_id(stdout, id);
	fputs(",\"result\":", stdout);
}

static void
reply_end(void)
{
	fputs("}\n", stdout);
	fflush(stdout);
}

/* ---- the tools ---------------------------------------------------------- */

/* One tool: its name, what it says to the model, the JSON Schema of its
 * arguments (compact), and how the arguments become a command line. */
struct tool {
	const char *name;
	const char *description;
	const char *schema;
};

#define OPTS_PROP "\"options\":{\"type\":\"array\",\"items\":{\"type\":" \
	"\"string\"},\"description\":\"more command-line words, e.g. " \
	"[\\\"--fail-on\\\", \\\"warning\\\"]\"}"
#define GPUS_PROP "\"gpus\":{\"type\":\"string\",\"description\":\"GPUs: " \
	"2x16G, rtx-4090, rtx-4090+rtx-3090, unified:128G, none\"}"
#define ENGINE_PROP "\"engine\":{\"type\":\"string\",\"enum\":[" \
	"\"llama.cpp\",\"vllm\",\"sglang\",\"tensorrt-llm\"]}"

static const struct tool tools[] = {
	{ "inspect", "Inspect an LLM model (GGUF file, safetensors file or "
	  "folder, Hugging Face folder or cache, URL) from its headers: "
	  "architecture, parameters, quantization, components, tensors and "
	  "the findings of the built-in checks, as the quantaudit/1 JSON "
	  "report.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
	  "\"string\",\"description\":\"model file, folder or URL\"},"
	  "\"summary\":{\"type\":\"boolean\",\"description\":\"leave out "
	  "the tensor list\"}," OPTS_PROP "},\"required\":[\"path\"]}" },
	{ "check", "Audit one or more models for CI: every rule, optional "
	  "policy file, engine and GPU knowledge, a verdict (pass, warn, "
	  "fail).",
	  "{\"type\":\"object\",\"properties\":{\"paths\":{\"type\":"
	  "\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1},"
	  "\"policy\":{\"type\":\"string\",\"description\":\"a JSON policy "
	  "file\"},\"fail_on\":{\"type\":\"string\",\"enum\":[\"error\","
	  "\"warning\",\"info\",\"never\"]}," GPUS_PROP "," ENGINE_PROP ","
	  OPTS_PROP "},\"required\":[\"paths\"]}" },
	{ "fit", "Per-GPU memory of a model under llama.cpp, vLLM or SGLang: "
	  "weights, KV cache, compute, the verdict (fits, tight, "
	  "does-not-fit) and the largest context that fits.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
	  "\"string\"}," GPUS_PROP "," ENGINE_PROP ",\"ctx\":{\"type\":"
	  "\"string\",\"description\":\"context: 32768, 32k or max\"},"
	  OPTS_PROP "},\"required\":[\"path\",\"gpus\"]}" },
	{ "diff", "What changed between two models or quants: tensors added, "
	  "removed, retyped, each component's bytes and bits per weight, "
	  "hyperparameters and metadata.",
	  "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
	  "\"b\":{\"type\":\"string\"},\"content\":{\"type\":\"boolean\","
	  "\"description\":\"also compare every byte\"}," GPUS_PROP ","
	  OPTS_PROP "},\"required\":[\"a\",\"b\"]}" },
};
#define N_TOOLS (sizeof(tools) / sizeof(tools[0]))

static void
tools_list(const cJSON *id)
{
	size_t i;

	reply_begin(id);
	fputs("{\"tools\":[", stdout);
	for (i = 0; i < N_TOOLS; i++) {
		fprintf(stdout, "%s{\"name\":\"%s\",\"description\":",
			i ? "," : "", tools[i].name);
		qa_jw_string(stdout, tools[i].description);
		fprintf(stdout, ",\"inputSchema\":%s,\"outputSchema\":"
			"{\"type\":\"object\",\"description\":\"the "
			"quantaudit/1 JSON report "
			"(docs/quantaudit-1.schema.json)\"}}",
			tools[i].schema);
	}
	fputs("]}", stdout);
	reply_end();
}

/* The words of a tool call, pointing into args (valid while it lives). */
struct words {
	const char *v[256];
	size_t n;
};

static bool
add_word(struct words *w, const char *s)
{
	if (w->n + 1 >= sizeof(w->v) / sizeof(w->v[0]))
		return false;
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
	return true;
}

/* The string member key of args, or NULL; *bad set when present but not
 * a string. */
static const char *
str_arg(const cJSON *args, const char *key, bool *bad)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(args, key);

	if (!x || cJSON_IsNull(x))
		return NULL;
	if (!cJSON_IsString(x) || !x->valuestring) {
		*bad = true;
		return NULL;
	}
	return x->valuestring;
}

static bool
option_arg(struct words *opts, const cJSON *args, const char *key,
	   const char *flag, bool *bad)
{
	const char *v = str_arg(args, key, bad);

	if (!v)
		return true;
	return add_word(opts, flag) && add_word(opts, v);
}

/* Builds the paths and options of a call; NULL on success, else what is
 * wrong with the arguments. */
static const char *
call_words(const struct tool *t, const cJSON *args, struct words *paths,
	   struct words *opts)
{
	bool bad = false;
	const cJSON *x;
	int i, n;

	if (strcmp(t->name, "check") == 0) {
		x = cJSON_GetObjectItemCaseSensitive(args, "paths");
		if (cJSON_IsString(x))
			add_word(paths, x->valuestring);
		else if (cJSON_IsArray(x)) {
			n = cJSON_GetArraySize(x);
			for (i = 0; i < n; i++) {
				const cJSON *p = cJSON_GetArrayItem(x, i);

				if (!cJSON_IsString(p) ||
				    !add_word(paths, p->valuestring))
					return "paths: an array of strings";
			}
		}
		if (paths->n == 0)
			return "paths: at least one path is required";
		option_arg(opts, args, "policy", "--rules", &bad);
		option_arg(opts, args, "fail_on", "--fail-on", &bad);
	} else if (strcmp(t->name, "diff") == 0) {
		const char *a = str_arg(args, "a", &bad);
		const char *b = str_arg(args, "b", &bad);

		if (!a || !b)
			return "a and b: the two models, as strings";
		add_word(paths, a);
		add_word(paths, b);
		x = cJSON_GetObjectItemCaseSensitive(args, "content");
		if (cJSON_IsTrue(x))
			add_word(opts, "--content");
	} else {
		const char *p = str_arg(args, "path", &bad);

		if (!p)
			return "path: the model, as a string";
		add_word(paths, p);
		x = cJSON_GetObjectItemCaseSensitive(args, "summary");
		if (cJSON_IsTrue(x))
			add_word(opts, "--summary");
		option_arg(opts, args, "ctx", "--ctx", &bad);
	}
	if (strcmp(t->name, "fit") == 0 &&
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(args, "gpus")))
		return "gpus: required for fit (e.g. 2x16G, rtx-4090, none)";
	option_arg(opts, args, "gpus", "--gpus", &bad);
	option_arg(opts, args, "engine", "--engine", &bad);
	x = cJSON_GetObjectItemCaseSensitive(args, "options");
	if (cJSON_IsArray(x)) {
		n = cJSON_GetArraySize(x);
		for (i = 0; i < n; i++) {
			const cJSON *o = cJSON_GetArrayItem(x, i);

			if (!cJSON_IsString(o) ||
			    !add_word(opts, o->valuestring))
				return "options: an array of strings";
		}
	} else if (x && !cJSON_IsNull(x)) {
		return "options: an array of strings";
	}
	return bad ? "an argument that must be a string is not" : NULL;
}

static void
tool_result(const cJSON *id, const char *text, const char *report,
	    bool is_error)
{
	reply_begin(id);
	fputs("{\"content\":[{\"type\":\"text\",\"text\":", stdout);
	qa_jw_string(stdout, text);
	fputs("}]", stdout);
	if (report) {
		fputs(",\"structuredContent\":", stdout);
		put_compact(stdout, report);
	}
	fprintf(stdout, ",\"isError\":%s}", is_error ? "true" : "false");
	reply_end();
}

/* The command line each tool call runs (qa_cli_main, given by the
 * dispatcher to qa_cli_serve); one server per process, one call at a
 * time. */
static qa_cli_entry serve_entry;

static void
tools_call(const cJSON *id, const cJSON *params)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params,
							     "arguments");
	struct words paths = { { NULL }, 0 }, opts = { { NULL }, 0 };
	const struct tool *t = NULL;
	const char *bad;
	char *doc, *err = NULL;
	size_t i;
	int rc;

	if (!cJSON_IsString(name)) {
		reply_error(id, -32602, "tools/call: params.name is required");
		return;
	}
	for (i = 0; i < N_TOOLS; i++)
		if (strcmp(tools[i].name, name->valuestring) == 0)
			t = &tools[i];
	if (!t) {
		reply_error(id, -32602, "tools/call: unknown tool (inspect, "
			    "check, fit or diff)");
		return;
	}
	if (args && !cJSON_IsObject(args)) {
		reply_error(id, -32602, "tools/call: arguments must be an "
			    "object");
		return;
	}
	bad = call_words(t, args, &paths, &opts);
	if (bad) {
		tool_result(id, bad, NULL, true);
		return;
	}
	doc = qa_cli_report(serve_entry, t->name, paths.v, paths.n, opts.v,
			    &rc, &err);
	if (!doc) {
		tool_result(id, err ? err : "no report", NULL, true);
	} else if (rc >= 2) {
		/* the report's "errors" name the inputs not audited */
		size_t n = strlen(doc) + 64;
		char *text = malloc(n);

		if (text)
			snprintf(text, n, "not audited (exit %d): %s", rc, doc);
		tool_result(id, text ? text : doc, doc, true);
		free(text);
	} else {
		tool_result(id, doc, doc, false);
	}
	free(doc);
	free(err);
}

static void
initialize(const cJSON *id, const cJSON *params)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(params,
							  "protocolVersion");
	const char *version = protocol_versions[0];
	size_t i;

	if (cJSON_IsString(v))
		for (i = 0; i < sizeof(protocol_versions) /
		     sizeof(protocol_versions[0]); i++)
			if (strcmp(v->valuestring, protocol_versions[i]) == 0)
				version = protocol_versions[i];
	reply_begin(id);
	fprintf(stdout, "{\"protocolVersion\":\"%s\",\"capabilities\":"
		"{\"tools\":{\"listChanged\":false}},\"serverInfo\":"
		"{\"name\":\"quantaudit\",\"version\":\"%s\"},"
		"\"instructions\":", version, QA_VERSION);
	qa_jw_string(stdout, "Tools that read LLM model files from their "
		     "headers (never the weights): inspect, check (a verdict), "
		     "fit (GPU memory), diff. Each returns the quantaudit/1 "
		     "JSON report.");
	fputs("}", stdout);
	reply_end();
}

static void
handle(const char *line, size_t len)
{
	cJSON *msg = cJSON_ParseWithLength(line, len);
	const cJSON *id, *method, *params;

	if (!msg) {
		reply_error(NULL, -32700, "parse error: not JSON");
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (!cJSON_IsObject(msg) || !cJSON_IsString(method)) {
		/* a response from the client, or nonsense: nothing to say
		 * to a message without an id */
		if (id && !cJSON_GetObjectItemCaseSensitive(msg, "result") &&
		    !cJSON_GetObjectItemCaseSensitive(msg, "error"))
			reply_error(id, -32600, "invalid request");
		cJSON_Delete(msg);
		return;
	}
	if (!id) {		/* a notification: no reply */
		cJSON_Delete(msg);
		return;
	}
	if (strcmp(method->valuestring, "initialize") == 0)
		initialize(id, params);
	else if (strcmp(method->valuestring, "ping") == 0) {
		reply_begin(id);
		fputs("{}", stdout);
		reply_end();
	} else if (strcmp(method->valuestring, "tools/list") == 0)
		tools_list(id);
	else if (strcmp(method->valuestring, "tools/call") == 0)
		tools_call(id, params);
	else
		reply_error(id, -32601, "method not found");
	cJSON_Delete(msg);
}

int
qa_cli_serve(qa_cli_entry entry)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	serve_entry = entry;
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		size_t len = (size_t)n;

		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (len == 0)
			continue;
		if (len > QA_SERVE_MAX_LINE) {
			reply_error(NULL, -32600, "message too long");
			continue;
		}
		handle(line, len);
	}
	free(line);
	return 0;
}
