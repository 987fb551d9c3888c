/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the consistency, tokenizer and chat-template checks
 * (rules/check_consistency.c, check_tokenizer.c, check_template.c).
 *
 * 1. The template scanner on realistic benign templates of every major
 *    family (written from their published shape; phi-3's is the one in
 *    the corpus file ggml-vocab-phi-3.gguf) that must not be flagged, and
 *    on injection payloads (the CVE-2024-34359 shape, dunder walks from
 *    cycler/joiner/lipsum/namespace, |attr, ~ and "_" * 2 concatenation,
 *    \x5f / \u005f escapes, %c formats, |join) that must be, each with the
 *    code stated by hand.
 * 2. Hand-built inventories for the tokenizer and consistency rules,
 *    including the cases that must stay silent (MTP blocks counted in
 *    block_count, MTP-only draft files, declared-but-absent MTP blocks).
 * 3. The generated fixtures (QA_FIXTURES, fixtures/gen/gen_rules.c): the
 *    exact set of QA21xx / QA60xx / QA71xx codes of each.
 * 4. The real corpus (QA_CORPUS, skipped when absent): every file gives
 *    exactly the findings listed below, each with the reason.
 *
 * Only the three check families under test are run, so other families'
 * findings do not enter the comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/audit.h"
#include "analysis/analysis.h"
#include "core/inventory.h"
#include "harness.h"

/* Codes of the three families under test (the filter of CHECK_CODES). */
static bool
mine(unsigned code)
{
	return (code >= 2101 && code <= 2199) ||
	       (code >= 6001 && code <= 6099) ||
	       (code >= 7101 && code <= 7199);
}

static void
run_ours(struct qa_inventory *inv)
{
	struct qa_check_options opt;

	memset(&opt, 0, sizeof(opt));
	qa_check_consistency.run(inv, &opt);
	qa_check_tokenizer.run(inv, &opt);
	qa_check_template.run(inv, &opt);
}

/* ---- 1. templates --------------------------------------------------- */

struct tmpl {
	const char *name;
	const char *text[4];	/* pieces, NULL-terminated */
};

struct bad_tmpl {
	const char *name;
	unsigned code;
	const char *text;
};

/* Benign templates of the major families: must not be flagged (in
 * pieces: C11 only promises 4095-character string literals). */
static const struct tmpl benign[] = {
	{ "llama-3.1", {
	  "{{- bos_token }}\n"
	  "{%- if custom_tools is defined %}\n"
	  "    {%- set tools = custom_tools %}\n"
	  "{%- endif %}\n"
	  "{%- if not tools_in_user_message is defined %}\n"
	  "    {%- set tools_in_user_message = true %}\n"
	  "{%- endif %}\n"
	  "{%- if not date_string is defined %}\n"
	  "    {%- set date_string = \"26 Jul 2024\" %}\n"
	  "{%- endif %}\n"
	  "{%- if not tools is defined %}\n"
	  "    {%- set tools = none %}\n"
	  "{%- endif %}\n"
	  "\n"
	  "{#- This block extracts the system message, so we can slot it into the right place. #}\n"
	  "{%- if messages[0]['role'] == 'system' %}\n"
	  "    {%- set system_message = messages[0]['content']|trim %}\n"
	  "    {%- set messages = messages[1:] %}\n"
	  "{%- else %}\n"
	  "    {%- set system_message = \"\" %}\n"
	  "{%- endif %}\n"
	  "\n"
	  "{#- System message + builtin tools #}\n"
	  "{{- \"<|start_header_id|>system<|end_header_id|>\\n"
	  "\\n"
	  "\" }}\n"
	  "{%- if builtin_tools is defined or tools is not none %}\n"
	  "    {{- \"Environment: ipython\\n"
	  "\" }}\n"
	  "{%- endif %}\n"
	  "{%- if builtin_tools is defined %}\n"
	  "    {{- \"Tools: \" + builtin_tools | reject('equalto', 'code_interpreter') | join(\", \") + \"\\n"
	  "\\n"
	  "\"}}\n"
	  "{%- endif %}\n"
	  "{{- \"Cutting Knowledge Date: December 2023\\n"
	  "\" }}\n"
	  "{{- \"Today Date: \" + date_string + \"\\n"
	  "\\n"
	  "\" }}\n"
	  "{%- if tools is not none and not tools_in_user_message %}\n"
	  "    {{- \"You have access to the following functions. To call a function, please respond with JSON for a function call.\" }}\n"
	  "    {{- 'Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}.' }}\n"
	  "    {{- \"Do not use variables.\\n"
	  "\\n"
	  "\" }}\n"
	  "    {%- for t in tools %}\n"
	  "        {{- t | tojson(indent=4) }}\n"
	  "        {{- \"\\n"
	  "\\n"
	  "\" }}\n"
	  "    {%- endfor %}\n"
	  "{%- endif %}\n"
	  "{{- system_message }}\n"
	  "{{- \"<|eot_id|>\" }}\n"
	  "\n"
	  "{#- Custom tools are passed in a user message with some extra guidance #}\n"
	  "{%- if tools_in_user_message and not tools is none %}\n"
	  "    {#- Extract the first user message so we can plug it in here #}\n"
	  "    {%- if messages | length != 0 %}\n"
	  "        {%- set first_user_message = messages[0]['content']|trim %}\n"
	  "        {%- set messages = messages[1:] %}\n"
	  "    {%- else %}\n"
	  "        {{- raise_exception(\"Cannot put tools in the first user message when there's no first user message!\") }}\n"
	  "{%- endif %}\n"
	  "    {{- '<|start_header_id|>user<|end_header_id|>\\n"
	  "\\n"
	  "' -}}\n"
	  "    {{- \"Given the following functions, please respond with a JSON for a function call \" }}\n"
	  "    {{- \"with its proper arguments that best answers the given prompt.\\n"
	  "\\n"
	  "\" }}\n"
	  "    {%- for t in tools %}\n"
	  "        {{- t | tojson(indent=4) }}\n"
	  "        {{- \"\\n"
	  "\\n"
	  "\" }}\n"
	  "    {%- endfor %}\n"
	  "    {{- first_user_message + \"<|eot_id|>\"}}\n"
	  "{%- endif %}\n"
	  "\n"
	  "{%- for message in messages %}\n"
	  "    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n"
	  "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n"
	  "\\n"
	  "'+ message['content'] | trim + '<|eot_id|>' }}\n"
	  "    {%- elif 'tool_calls' in message %}\n"
	  "        {%- if not message.tool_calls|length == 1 %}\n"
	  "            {{- raise_exception(\"This model only supports single tool-calls at once!\") }}\n"
	  "        {%- endif %}\n"
	  "        {%- set tool_call = message.tool_calls[0].function %}\n",
	  "        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}\n"
	  "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n"
	  "\\n"
	  "' -}}\n"
	  "            {{- \"<|python_tag|>\" + tool_call.name + \".call(\" }}\n"
	  "            {%- for arg_name, arg_val in tool_call.arguments | items %}\n"
	  "                {{- arg_name + '=\"' + arg_val + '\"' }}\n"
	  "                {%- if not loop.last %}\n"
	  "                    {{- \", \" }}\n"
	  "                {%- endif %}\n"
	  "                {%- endfor %}\n"
	  "            {{- \")\" }}\n"
	  "        {%- else  %}\n"
	  "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n"
	  "\\n"
	  "' -}}\n"
	  "            {{- '{\"name\": \"' + tool_call.name + '\", ' }}\n"
	  "            {{- '\"parameters\": ' }}\n"
	  "            {{- tool_call.arguments | tojson }}\n"
	  "            {{- \"}\" }}\n"
	  "        {%- endif %}\n"
	  "        {%- if builtin_tools is defined %}\n"
	  "            {{- \"<|eom_id|>\" }}\n"
	  "        {%- else %}\n"
	  "            {{- \"<|eot_id|>\" }}\n"
	  "        {%- endif %}\n"
	  "    {%- elif message.role == \"tool\" or message.role == \"ipython\" %}\n"
	  "        {{- \"<|start_header_id|>ipython<|end_header_id|>\\n"
	  "\\n"
	  "\" }}\n"
	  "        {%- if message.content is mapping or message.content is iterable %}\n"
	  "            {{- message.content | tojson }}\n"
	  "        {%- else %}\n"
	  "            {{- message.content }}\n"
	  "        {%- endif %}\n"
	  "        {{- \"<|eot_id|>\" }}\n"
	  "    {%- endif %}\n"
	  "{%- endfor %}\n"
	  "{%- if add_generation_prompt %}\n"
	  "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n"
	  "\\n"
	  "' }}\n"
	  "{%- endif %}\n" } },
	{ "qwen2.5", {
	  "{%- if tools %}\n"
	  "    {{- '<|im_start|>system\\n"
	  "' }}\n"
	  "    {%- if messages[0]['role'] == 'system' %}\n"
	  "        {{- messages[0]['content'] }}\n"
	  "    {%- else %}\n"
	  "        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}\n"
	  "    {%- endif %}\n"
	  "    {{- \"\\n"
	  "\\n"
	  "# Tools\\n"
	  "\\n"
	  "You may call one or more functions to assist with the user query.\\n"
	  "\\n"
	  "You are provided with function signatures within <tools></tools> XML tags:\\n"
	  "<tools>\" }}\n"
	  "    {%- for tool in tools %}\n"
	  "        {{- \"\\n"
	  "\" }}\n"
	  "        {{- tool | tojson }}\n"
	  "    {%- endfor %}\n"
	  "    {{- \"\\n"
	  "</tools>\\n"
	  "\\n"
	  "For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n"
	  "<tool_call>\\n"
	  "{\\\"name\\\": <function-name>, \\\"arguments\\\": <args-json-object>}\\n"
	  "</tool_call><|im_end|>\\n"
	  "\" }}\n"
	  "{%- else %}\n"
	  "    {%- if messages[0]['role'] == 'system' %}\n"
	  "        {{- '<|im_start|>system\\n"
	  "' + messages[0]['content'] + '<|im_end|>\\n"
	  "' }}\n"
	  "    {%- else %}\n"
	  "        {{- '<|im_start|>system\\n"
	  "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n"
	  "' }}\n"
	  "    {%- endif %}\n"
	  "{%- endif %}\n"
	  "{%- for message in messages %}\n"
	  "    {%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) or (message.role == \"assistant\" and not message.tool_calls) %}\n"
	  "        {{- '<|im_start|>' + message.role + '\\n"
	  "' + message.content + '<|im_end|>' + '\\n"
	  "' }}\n"
	  "    {%- elif message.role == \"assistant\" %}\n"
	  "        {{- '<|im_start|>' + message.role }}\n"
	  "        {%- if message.content %}\n"
	  "            {{- '\\n"
	  "' + message.content }}\n"
	  "        {%- endif %}\n"
	  "        {%- for tool_call in message.tool_calls %}\n"
	  "            {%- if tool_call.function is defined %}\n"
	  "                {%- set tool_call = tool_call.function %}\n"
	  "            {%- endif %}\n"
	  "            {{- '\\n"
	  "<tool_call>\\n"
	  "{\"name\": \"' }}\n"
	  "            {{- tool_call.name }}\n"
	  "            {{- '\", \"arguments\": ' }}\n"
	  "            {{- tool_call.arguments | tojson }}\n"
	  "            {{- '}\\n"
	  "</tool_call>' }}\n"
	  "        {%- endfor %}\n"
	  "        {{- '<|im_end|>\\n"
	  "' }}\n"
	  "    {%- elif message.role == \"tool\" %}\n"
	  "        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != \"tool\") %}\n"
	  "            {{- '<|im_start|>user' }}\n"
	  "        {%- endif %}\n"
	  "        {{- '\\n"
	  "<tool_response>\\n"
	  "' }}\n"
	  "        {{- message.content }}\n"
	  "        {{- '\\n"
	  "</tool_response>' }}\n"
	  "        {%- if loop.last or (messages[loop.index0 + 1].role != \"tool\") %}\n"
	  "            {{- '<|im_end|>\\n"
	  "' }}\n"
	  "        {%- endif %}\n"
	  "    {%- endif %}\n"
	  "{%- endfor %}\n"
	  "{%- if add_generation_prompt %}\n"
	  "    {{- '<|im_start|>assistant\\n"
	  "' }}\n"
	  "{%- endif %}\n" } },
	{ "qwen3", {
	  "{%- if tools %}\n"
	  "    {{- '<|im_start|>system\\n"
	  "' }}\n"
	  "    {%- if messages[0].role == 'system' %}\n"
	  "        {{- messages[0].content + '\\n"
	  "\\n"
	  "' }}\n"
	  "    {%- endif %}\n"
	  "    {{- \"# Tools\\n"
	  "\\n"
	  "You may call one or more functions to assist with the user query.\\n"
	  "\\n"
	  "You are provided with function signatures within <tools></tools> XML tags:\\n"
	  "<tools>\" }}\n"
	  "    {%- for tool in tools %}\n"
	  "        {{- \"\\n"
	  "\" }}\n"
	  "        {{- tool | tojson }}\n"
	  "    {%- endfor %}\n"
	  "    {{- \"\\n"
	  "</tools>\\n"
	  "\\n"
	  "For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n"
	  "<tool_call>\\n"
	  "{\\\"name\\\": <function-name>, \\\"arguments\\\": <args-json-object>}\\n"
	  "</tool_call><|im_end|>\\n"
	  "\" }}\n"
	  "{%- else %}\n"
	  "    {%- if messages[0].role == 'system' %}\n"
	  "        {{- '<|im_start|>system\\n"
	  "' + messages[0].content + '<|im_end|>\\n"
	  "' }}\n"
	  "    {%- endif %}\n"
	  "{%- endif %}\n"
	  "{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n"
	  "{%- for message in messages[::-1] %}\n"
	  "    {%- set index = (messages|length - 1) - loop.index0 %}\n"
	  "    {%- if ns.multi_step_tool and message.role == \"user\" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}\n"
	  "        {%- set ns.multi_step_tool = false %}\n"
	  "        {%- set ns.last_query_index = index %}\n"
	  "    {%- endif %}\n"
	  "{%- endfor %}\n"
	  "{%- for message in messages %}\n"
	  "    {%- if message.content is string %}\n"
	  "        {%- set content = message.content %}\n"
	  "    {%- else %}\n"
	  "        {%- set content = '' %}\n"
	  "    {%- endif %}\n"
	  "    {%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) %}\n"
	  "        {{- '<|im_start|>' + message.role + '\\n"
	  "' + content + '<|im_end|>' + '\\n"
	  "' }}\n"
	  "    {%- elif message.role == \"assistant\" %}\n"
	  "        {%- set reasoning_content = '' %}\n"
	  "        {%- if message.reasoning_content is string %}\n"
	  "            {%- set reasoning_content = message.reasoning_content %}\n"
	  "        {%- else %}\n"
	  "            {%- if '</think>' in content %}\n"
	  "                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n"
	  "').split('<think>')[-1].lstrip('\\n"
	  "') %}\n"
	  "                {%- set content = content.split('</think>')[-1].lstrip('\\n"
	  "') %}\n"
	  "            {%- endif %}\n"
	  "        {%- endif %}\n"
	  "        {%- if loop.index0 > ns.last_query_index %}\n"
	  "            {%- if loop.last or (not loop.last and reasoning_content) %}\n"
	  "                {{- '<|im_start|>' + message.role + '\\n"
	  "<think>\\n"
	  "' + reasoning_content.strip('\\n"
	  "') + '\\n"
	  "</think>\\n"
	  "\\n"
	  "' + content.lstrip('\\n"
	  "') }}\n"
	  "            {%- else %}\n"
	  "                {{- '<|im_start|>' + message.role + '\\n"
	  "' + content }}\n"
	  "            {%- endif %}\n"
	  "        {%- else %}\n"
	  "            {{- '<|im_start|>' + message.role + '\\n"
	  "' + content }}\n"
	  "        {%- endif %}\n"
	  "        {%- if message.tool_calls %}\n"
	  "            {%- for tool_call in message.tool_calls %}\n"
	  "                {%- if (loop.first and content) or (not loop.first) %}\n"
	  "                    {{- '\\n"
	  "' }}\n"
	  "                {%- endif %}\n"
	  "                {%- if tool_call.function %}\n",
	  "                    {%- set tool_call = tool_call.function %}\n"
	  "                {%- endif %}\n"
	  "                {{- '<tool_call>\\n"
	  "{\"name\": \"' }}\n"
	  "                {{- tool_call.name }}\n"
	  "                {{- '\", \"arguments\": ' }}\n"
	  "                {%- if tool_call.arguments is string %}\n"
	  "                    {{- tool_call.arguments }}\n"
	  "                {%- else %}\n"
	  "                    {{- tool_call.arguments | tojson }}\n"
	  "                {%- endif %}\n"
	  "                {{- '}\\n"
	  "</tool_call>' }}\n"
	  "            {%- endfor %}\n"
	  "        {%- endif %}\n"
	  "        {{- '<|im_end|>\\n"
	  "' }}\n"
	  "    {%- elif message.role == \"tool\" %}\n"
	  "        {%- if loop.first or (messages[loop.index0 - 1].role != \"tool\") %}\n"
	  "            {{- '<|im_start|>user' }}\n"
	  "        {%- endif %}\n"
	  "        {{- '\\n"
	  "<tool_response>\\n"
	  "' }}\n"
	  "        {{- content }}\n"
	  "        {{- '\\n"
	  "</tool_response>' }}\n"
	  "        {%- if loop.last or (messages[loop.index0 + 1].role != \"tool\") %}\n"
	  "            {{- '<|im_end|>\\n"
	  "' }}\n"
	  "        {%- endif %}\n"
	  "    {%- endif %}\n"
	  "{%- endfor %}\n"
	  "{%- if add_generation_prompt %}\n"
	  "    {{- '<|im_start|>assistant\\n"
	  "' }}\n"
	  "    {%- if enable_thinking is defined and enable_thinking is false %}\n"
	  "        {{- '<think>\\n"
	  "\\n"
	  "</think>\\n"
	  "\\n"
	  "' }}\n"
	  "    {%- endif %}\n"
	  "{%- endif %}" } },
	{ "mistral", {
	  "{%- if messages[0]['role'] == 'system' %}\n"
	  "    {%- set system_message = messages[0]['content'] %}\n"
	  "    {%- set loop_messages = messages[1:] %}\n"
	  "{%- else %}\n"
	  "    {%- set loop_messages = messages %}\n"
	  "{%- endif %}\n"
	  "\n"
	  "{{- bos_token }}\n"
	  "{%- for message in loop_messages %}\n"
	  "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}\n"
	  "        {{- raise_exception('After the optional system message, conversation roles must alternate user/assistant/user/assistant/...') }}\n"
	  "    {%- endif %}\n"
	  "    {%- if message['role'] == 'user' %}\n"
	  "        {%- if loop.first and system_message is defined %}\n"
	  "            {{- ' [INST] ' + system_message + '\\n"
	  "\\n"
	  "' + message['content'] + ' [/INST]' }}\n"
	  "        {%- else %}\n"
	  "            {{- ' [INST] ' + message['content'] + ' [/INST]' }}\n"
	  "        {%- endif %}\n"
	  "    {%- elif message['role'] == 'assistant' %}\n"
	  "        {{- ' ' + message['content'] + eos_token}}\n"
	  "    {%- else %}\n"
	  "        {{- raise_exception('Only user and assistant roles are supported, with the exception of an initial optional system message!') }}\n"
	  "    {%- endif %}\n"
	  "{%- endfor %}\n" } },
	{ "gemma-3", {
	  "{{ bos_token }}\n"
	  "{%- if messages[0]['role'] == 'system' -%}\n"
	  "    {%- if messages[0]['content'] is string -%}\n"
	  "        {%- set first_user_prefix = messages[0]['content'] + '\\n"
	  "\\n"
	  "' -%}\n"
	  "    {%- else -%}\n"
	  "        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '\\n"
	  "\\n"
	  "' -%}\n"
	  "    {%- endif -%}\n"
	  "    {%- set loop_messages = messages[1:] -%}\n"
	  "{%- else -%}\n"
	  "    {%- set first_user_prefix = \"\" -%}\n"
	  "    {%- set loop_messages = messages -%}\n"
	  "{%- endif -%}\n"
	  "{%- for message in loop_messages -%}\n"
	  "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}\n"
	  "        {{ raise_exception(\"Conversation roles must alternate user/assistant/user/assistant/...\") }}\n"
	  "    {%- endif -%}\n"
	  "    {%- if (message['role'] == 'assistant') -%}\n"
	  "        {%- set role = \"model\" -%}\n"
	  "    {%- else -%}\n"
	  "        {%- set role = message['role'] -%}\n"
	  "    {%- endif -%}\n"
	  "    {{ '<start_of_turn>' + role + '\\n"
	  "' + (first_user_prefix if loop.first else \"\") }}\n"
	  "    {%- if message['content'] is string -%}\n"
	  "        {{ message['content'] | trim }}\n"
	  "    {%- elif message['content'] is iterable -%}\n"
	  "        {%- for item in message['content'] -%}\n"
	  "            {%- if item['type'] == 'image' -%}\n"
	  "                {{ '<start_of_image>' }}\n"
	  "            {%- elif item['type'] == 'text' -%}\n"
	  "                {{ item['text'] | trim }}\n"
	  "            {%- endif -%}\n"
	  "        {%- endfor -%}\n"
	  "    {%- else -%}\n"
	  "        {{ raise_exception(\"Invalid content type\") }}\n"
	  "    {%- endif -%}\n"
	  "    {{ '<end_of_turn>\\n"
	  "' }}\n"
	  "{%- endfor -%}\n"
	  "{%- if add_generation_prompt -%}\n"
	  "    {{'<start_of_turn>model\\n"
	  "'}}\n"
	  "{%- endif -%}\n" } },
	{ "deepseek-v3", {
	  "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='', is_first_sp=true) %}{%- for message in messages %}{%- if message['role'] == 'system' %}{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}{%- else %}{% set ns.system_prompt = ns.system_prompt + '\\n"
	  "\\n"
	  "' + message['content'] %}{%- endif %}{%- endif %}{%- endfor %}{{ bos_token }}{{ ns.system_prompt }}{%- for message in messages %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == 'assistant' and 'tool_calls' in message %}{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls'] %}{%- if not ns.is_first %}{%- if message['content'] is none %}{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n"
	  "' + '```json' + '\\n"
	  "' + tool['function']['arguments'] + '\\n"
	  "' + '```' + '<｜tool▁call▁end｜>'}}{%- else %}{{'<｜Assistant｜>' + message['content'] + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n"
	  "' + '```json' + '\\n"
	  "' + tool['function']['arguments'] + '\\n"
	  "' + '```' + '<｜tool▁call▁end｜>'}}{%- endif %}{%- set ns.is_first = true -%}{%- else %}{{'\\n"
	  "' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n"
	  "' + '```json' + '\\n"
	  "' + tool['function']['arguments'] + '\\n"
	  "' + '```' + '<｜tool▁call▁end｜>'}}{%- endif %}{%- endfor %}{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- if message['role'] == 'assistant' and 'tool_calls' not in message %}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{% set content = message['content'] %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}{%- if ns.is_output_first %}{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- set ns.is_output_first = false %}{%- else %}{{'<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endif %}{%- endfor -%}{% if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{% endif %}{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜>'}}{% endif %}" } },
	{ "phi-3", {
	  "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') %}{{'<|user|>' + '\n"
	  "' + message['content'] + '<|end|>' + '\n"
	  "' + '<|assistant|>' + '\n"
	  "'}}{% elif (message['role'] == 'assistant') %}{{message['content'] + '<|end|>' + '\n"
	  "'}}{% endif %}{% endfor %}" } },
	{ "chatml-cycler", {
	  "{%- set colors = cycler('odd', 'even') %}{%- set sep = joiner(', ') %}{% for m in messages %}<div class=\"{{ loop.cycle('a', 'b') }} {{ colors.next() }}\">{{ sep() }}{{ m.content }}</div>{% endfor %}" } },
	{ "dunder-in-text", {
	  "In Python, obj.__class__.__mro__ lists the bases; os.popen runs a command.{# {{ ''.__class__.__subclasses__() }} #}{% raw %}{{ cycler.__init__.__globals__.os }}{% endraw %}{% for m in messages %}{{ m.content }}{{ '<|media_start|>' }}{% endfor %}" } },
};

/* Injection payloads and obfuscations: must be flagged with the code. */
static const struct bad_tmpl malicious[] = {
	{ "cve-2024-34359", 6001,
	  "{{ self.__init__.__globals__.__builtins__.__import__('os').popen('touch /tmp/pwned').read() }}" },
	{ "mro-subclasses", 6001,
	  "{{ ''.__class__.__mro__[1].__subclasses__() }}" },
	{ "cycler-globals", 6001,
	  "{{ cycler.__init__.__globals__.os.popen('id').read() }}" },
	{ "joiner-globals", 6001,
	  "{{ joiner.__init__.__globals__.os.popen('id').read() }}" },
	{ "lipsum-globals", 6001,
	  "{{ lipsum.__globals__['os'].popen('id').read() }}" },
	{ "namespace-globals", 6001,
	  "{% set ns = namespace() %}{{ namespace.__init__.__globals__.os.popen('id').read() }}" },
	{ "attr-filter", 6002,
	  "{{ ''|attr('__class__')|attr('__mro__') }}" },
	{ "attr-concat", 6002,
	  "{{ messages|attr('_' ~ '_class_' ~ '_') }}" },
	{ "tilde-concat", 6002,
	  "{{ ()['__cla' ~ 'ss__'] }}" },
	{ "x5f-escapes", 6002,
	  "{{ ''['\\x5f\\x5fclass\\x5f\\x5f'] }}" },
	{ "u005f-escapes", 6002,
	  "{{ ''[\"\\u005f\\u005fclass\\u005f\\u005f\"] }}" },
	{ "underscore-times-2", 6002,
	  "{% set u = '_' * 2 %}{{ ''[u ~ 'class' ~ u] }}" },
	{ "percent-c-format", 6002,
	  "{{ ''['%c%cclass%c%c'|format(95,95,95,95)] }}" },
	{ "list-join", 6002,
	  "{{ ()[['__cla','ss__']|join] }}" },
	{ "subclasses-loop", 6001,
	  "{% for c in [].__class__.__base__.__subclasses__() %}{% if c.__name__ == 'catch_warnings' %}{{ c()._module.__builtins__['__import__']('os').system('id') }}{% endif %}{% endfor %}" },
	{ "private-context", 6001,
	  "{{ self._TemplateReference__context.cycler }}" },
	{ "mro-call", 6001,
	  "{{ ''.__class__.mro()[1] }}" },
	{ "config-items", 6001,
	  "{{ config.items() }}" },
	{ "getattr-call", 6001,
	  "{{ getattr(lipsum, 'x') }}" },
	{ "whitespace-control", 6002,
	  "{%- set x = lipsum|attr(\"__globals__\") -%}{{ x }}" },
};

/* The pieces of a benign template joined (static buffer). */
static const char *
joined(const struct tmpl *t)
{
	static char buf[32768];
	size_t n = 0, i;

	for (i = 0; i < sizeof(t->text) / sizeof(t->text[0]) && t->text[i];
	     i++) {
		size_t k = strlen(t->text[i]);

		if (n + k >= sizeof(buf))
			break;
		memcpy(buf + n, t->text[i], k);
		n += k;
	}
	buf[n] = '\0';
	return buf;
}

static struct qa_inventory *
gguf_template_inv(const char *key, const char *text)
{
	struct qa_inventory *inv = qa_inventory_create("t.gguf");
	struct qa_kv *kv = qa_inv_add_kv(inv);

	inv->kind = QA_KIND_GGUF;
	kv->key = key;
	kv->value.type = QA_V_STRING;
	kv->value.v.str.s = text;
	kv->value.v.str.len = strlen(text);
	kv->offset = 4242;
	/* what the GGUF loader keeps of it (formats/gguf_hparams.c) */
	{
		struct qa_template *t = qa_inv_add_template(inv);

		t->label = key;
		t->text = text;
		t->len = t->full_len = strlen(text);
		t->offset = 4242;
		t->primary = strcmp(key, "tokenizer.chat_template") == 0;
	}
	return inv;
}

static void
test_templates(void)
{
	size_t i;

	for (i = 0; i < sizeof(benign) / sizeof(benign[0]); i++) {
		const char *text = joined(&benign[i]);
		struct qa_inventory *inv =
			gguf_template_inv("tokenizer.chat_template", text);

		qa_check_template.run(inv, NULL);
		CHECK_CODES(inv, mine, benign[i].name, "-");
		qa_inventory_destroy(inv);

		/* the same text from a Hugging Face folder */
		inv = qa_inventory_create("dir");
		inv->kind = QA_KIND_HF_DIR;
		inv->chat_template = text;
		qa_check_template.run(inv, NULL);
		CHECK_CODES(inv, mine, benign[i].name, "-");
		qa_inventory_destroy(inv);
	}
	for (i = 0; i < sizeof(malicious) / sizeof(malicious[0]); i++) {
		struct qa_inventory *inv =
			gguf_template_inv("tokenizer.chat_template.rag",
					  malicious[i].text);

		qa_check_template.run(inv, NULL);
		if (!CHECKF(th_finding(inv, malicious[i].code, NULL) != NULL,
			    "template %s: QA%04u not reported",
			    malicious[i].name, malicious[i].code))
			th_dump_findings(inv, mine);
		/* located at the key, no tensor */
		CHECK(inv->n_findings > 0 && inv->findings[0].offset == 4242 &&
		      inv->findings[0].tensor == NULL);
		qa_inventory_destroy(inv);
	}
	/* A payload appended to a real template is still found. */
	{
		static char buf[32768];
		struct qa_inventory *inv;

		snprintf(buf, sizeof(buf), "%s%s", joined(&benign[0]),
			 "{{ cycler.__init__.__globals__.os.popen('id').read() }}");
		inv = gguf_template_inv("tokenizer.chat_template", buf);
		qa_check_template.run(inv, NULL);
		CHECK_CODES(inv, mine, "llama-3.1 + payload", "QA6001");
		qa_inventory_destroy(inv);
	}
	/* Size: more than 1 MiB warns; the true length counts (a GGUF
	 * string is kept up to 4 MiB, its length always). */
	{
		size_t big = ((size_t)1 << 20) + 1;
		char *t = malloc(big + 1);
		struct qa_inventory *inv;

		CHECK(t != NULL);
		if (!t)
			return;
		memset(t, ' ', big);
		memcpy(t, "{{ x }}", 7);
		t[big] = '\0';
		inv = gguf_template_inv("tokenizer.chat_template", t);
		qa_check_template.run(inv, NULL);
		CHECK_CODES(inv, mine, "2^20+1 byte template", "QA6003");
		qa_inventory_destroy(inv);
		t[big - 1] = '\0';
		inv = gguf_template_inv("tokenizer.chat_template", t);
		qa_check_template.run(inv, NULL);
		CHECK_CODES(inv, mine, "2^20 byte template", "-");
		qa_inventory_destroy(inv);
		free(t);
	}
}

/* ---- 2. hand-built inventories -------------------------------------- */

static struct qa_kv *
add_kv(struct qa_inventory *inv, const char *key, enum qa_value_type t)
{
	struct qa_kv *kv = qa_inv_add_kv(inv);

	kv->key = key;
	kv->value.type = t;
	return kv;
}

static void
kv_string(struct qa_inventory *inv, const char *key, const char *s)
{
	struct qa_kv *kv = add_kv(inv, key, QA_V_STRING);

	kv->value.v.str.s = s;
	kv->value.v.str.len = strlen(s);
}

static void
kv_uint(struct qa_inventory *inv, const char *key, uint64_t v)
{
	add_kv(inv, key, QA_V_U32)->value.v.u = v;
}

static void
kv_array(struct qa_inventory *inv, const char *key, enum qa_value_type elem,
	 uint64_t count)
{
	struct qa_kv *kv = add_kv(inv, key, QA_V_ARRAY);

	kv->value.v.arr.elem = elem;
	kv->value.v.arr.count = count;
}

static void
test_tokenizer(void)
{
	struct qa_inventory *inv;

	/* Old BPE conversion: no pre, no merges, eos past the end. */
	inv = qa_inventory_create("t.gguf");
	kv_string(inv, "general.architecture", "gptneox");
	inv->hp.arch_raw = "gptneox";
	kv_string(inv, "tokenizer.ggml.model", "gpt2");
	kv_array(inv, "tokenizer.ggml.tokens", QA_V_STRING, 100);
	kv_array(inv, "tokenizer.ggml.token_type", QA_V_I32, 100);
	kv_uint(inv, "tokenizer.ggml.bos_token_id", 99);
	kv_uint(inv, "tokenizer.ggml.eos_token_id", 100);
	kv_uint(inv, "tokenizer.ggml.eot_token_id", 4000000000u);
	qa_check_tokenizer.run(inv, NULL);
	CHECK_CODES(inv, mine, "bpe without pre/merges",
		    "QA7101,QA7105,QA7106");
	qa_inventory_destroy(inv);

	/* SentencePiece: short token_type, INT8 scores, vocab_size key. */
	inv = qa_inventory_create("t.gguf");
	kv_string(inv, "general.architecture", "llama");
	inv->hp.arch_raw = "llama";
	kv_uint(inv, "llama.vocab_size", 32000);
	kv_string(inv, "tokenizer.ggml.model", "llama");
	kv_array(inv, "tokenizer.ggml.tokens", QA_V_STRING, 32000);
	kv_array(inv, "tokenizer.ggml.scores", QA_V_I8, 32000);
	kv_array(inv, "tokenizer.ggml.token_type", QA_V_I32, 31999);
	qa_check_tokenizer.run(inv, NULL);
	CHECK_CODES(inv, mine, "spm arrays", "QA7102,QA7103");
	qa_inventory_destroy(inv);

	/* Tokens of the wrong type; vocab_size off by one. */
	inv = qa_inventory_create("t.gguf");
	inv->hp.arch_raw = "llama";
	kv_uint(inv, "llama.vocab_size", 32001);
	kv_string(inv, "tokenizer.ggml.model", "llama");
	kv_array(inv, "tokenizer.ggml.tokens", QA_V_U8, 32000);
	qa_check_tokenizer.run(inv, NULL);
	CHECK_CODES(inv, mine, "tokens of UINT8", "QA7103");
	qa_inventory_destroy(inv);
	inv = qa_inventory_create("t.gguf");
	inv->hp.arch_raw = "llama";
	kv_uint(inv, "llama.vocab_size", 32001);
	kv_string(inv, "tokenizer.ggml.model", "llama");
	kv_array(inv, "tokenizer.ggml.tokens", QA_V_STRING, 32000);
	kv_uint(inv, "tokenizer.ggml.padding_token_id", 31999);
	qa_check_tokenizer.run(inv, NULL);
	CHECK_CODES(inv, mine, "vocab_size 32001 for 32000 tokens", "QA7104");
	qa_inventory_destroy(inv);

	/* Vocabulary-less models and a clean BPE vocabulary. */
	inv = qa_inventory_create("t.gguf");
	kv_string(inv, "tokenizer.ggml.model", "no_vocab");
	qa_check_tokenizer.run(inv, NULL);
	CHECK_CODES(inv, mine, "no_vocab", "-");
	qa_inventory_destroy(inv);
	inv = qa_inventory_create("t.gguf");
	kv_string(inv, "tokenizer.ggml.model", "gpt2");
	kv_string(inv, "tokenizer.ggml.pre", "qwen2");
	kv_array(inv, "tokenizer.ggml.tokens", QA_V_STRING, 151936);
	kv_array(inv, "tokenizer.ggml.token_type", QA_V_I32, 151936);
	kv_array(inv, "tokenizer.ggml.merges", QA_V_STRING, 151387);
	kv_uint(inv, "tokenizer.ggml.eos_token_id", 151645);
	qa_check_tokenizer.run(inv, NULL);
	CHECK_CODES(inv, mine, "qwen2 bpe", "-");
	qa_inventory_destroy(inv);
	inv = qa_inventory_create("t.gguf");
	kv_string(inv, "tokenizer.ggml.model", "llama");
	qa_check_tokenizer.run(inv, NULL);
	CHECK_CODES(inv, mine, "model without tokens", "QA7103");
	qa_inventory_destroy(inv);
}

/* Adds a GGUF tensor (F32, ne order); roles come from summarize(). */
static void
gguf_tensor(struct qa_inventory *inv, const char *name, uint32_t n_dims,
	    uint64_t ne0, uint64_t ne1, uint64_t ne2)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);

	t->name = name;
	t->dtype = "F32";
	t->ggml_type = 0;
	t->n_dims = n_dims;
	t->shape[0] = ne0;
	t->shape[1] = ne1;
	t->shape[2] = ne2;
}

static void
hf_tensor(struct qa_inventory *inv, const char *name, uint64_t d0,
	  uint64_t d1)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);

	t->name = name;
	t->dtype = "BF16";
	t->n_dims = d1 ? 2 : 1;
	t->shape[0] = d0;
	t->shape[1] = d1;
}

/* A qwen35-like GGUF: block_count bc, nextn n_mtp, full_attention_interval
 * 4, tensors for blocks 0..trunk-1 (if with_trunk) and the MTP blocks (if
 * with_mtp). */
static struct qa_inventory *
qwen35(int64_t bc, int64_t n_mtp, int64_t trunk, bool with_trunk,
       bool with_mtp)
{
	static char names[32][48];
	struct qa_inventory *inv = qa_inventory_create("q.gguf");
	struct qa_file *f = qa_inv_add_file(inv, "q.gguf");
	int64_t i;
	int k = 0;

	f->format = "gguf";
	inv->hp.arch = inv->hp.arch_raw = "qwen35";
	inv->hp.n_layer_all = bc;
	inv->hp.n_mtp = n_mtp;
	inv->hp.n_layer = bc - n_mtp;
	inv->hp.n_embd = 8;
	inv->hp.full_attention_interval = 4;
	kv_uint(inv, "qwen35.block_count", (uint64_t)bc);
	kv_uint(inv, "qwen35.full_attention_interval", 4);
	gguf_tensor(inv, "token_embd.weight", 2, 8, 16, 0);
	for (i = 0; i < bc; i++) {
		bool is_mtp = i >= trunk;

		if ((is_mtp && !with_mtp) || (!is_mtp && !with_trunk))
			continue;
		snprintf(names[k], sizeof(names[0]), "blk.%lld.attn_norm.weight",
			 (long long)i);
		gguf_tensor(inv, names[k++], 1, 8, 0, 0);
		if (is_mtp) {
			snprintf(names[k], sizeof(names[0]),
				 "blk.%lld.nextn.eh_proj.weight", (long long)i);
			gguf_tensor(inv, names[k++], 2, 16, 8, 0);
		}
	}
	qa_inventory_summarize(inv);
	return inv;
}

static void
test_consistency(void)
{
	struct qa_inventory *inv;

	/* block_count 5 = 4 trunk + 1 nextn: all consistent. */
	inv = qwen35(5, 1, 4, true, true);
	qa_check_consistency.run(inv, NULL);
	CHECK_CODES(inv, mine, "qwen35 4+1", "-");
	qa_inventory_destroy(inv);
	/* nextn declared but the MTP block absent: the MTP rules' case. */
	inv = qwen35(5, 1, 4, true, false);
	qa_check_consistency.run(inv, NULL);
	CHECK_CODES(inv, mine, "qwen35 MTP declared, absent", "-");
	qa_inventory_destroy(inv);
	/* MTP-only draft file: trunk blocks absent by design. */
	inv = qwen35(5, 1, 4, false, true);
	qa_check_consistency.run(inv, NULL);
	CHECK_CODES(inv, mine, "qwen35 MTP-only draft", "-");
	qa_inventory_destroy(inv);
	/* block_count 5 counting the MTP block without nextn_predict_layers:
	 * 5 % 4 != 0 (QA2107); block 4 carries nextn tensors, so it is not
	 * an extra block. */
	inv = qwen35(5, 0, 4, true, true);
	qa_check_consistency.run(inv, NULL);
	CHECK_CODES(inv, mine, "qwen35 MTP counted, undeclared", "QA2107");
	qa_inventory_destroy(inv);
	/* A trunk block missing in the middle. */
	inv = qwen35(8, 0, 8, true, false);
	inv->n_tensors -= 0;
	{
		uint32_t k;

		for (k = 0; k < inv->n_tensors; k++)
			if (strcmp(inv->tensors[k].name,
				   "blk.5.attn_norm.weight") == 0)
				inv->tensors[k].layer = -1;
	}
	qa_check_consistency.run(inv, NULL);
	CHECK_CODES(inv, mine, "qwen35 block 5 missing", "QA2101");
	CHECK(inv->n_findings == 1 &&
	      strstr(inv->findings[0].message, "block 5") != NULL &&
	      inv->findings[0].offset == (int64_t)inv->kvs[0].offset);
	qa_inventory_destroy(inv);

	/* HF per-expert names: index 4 of 4 experts, and a layer without
	 * expert 1 of its up_proj only. */
	inv = qa_inventory_create("dir");
	inv->kind = QA_KIND_HF_DIR;
	inv->hp.n_layer = inv->hp.n_layer_all = 2;
	inv->hp.n_mtp = 0;
	inv->hp.n_expert = 4;
	{
		static char nm[64][80];
		static const char *const proj[] = { "gate_proj", "up_proj",
						     "down_proj" };
		int l, e, p, k = 0;

		for (l = 0; l < 2; l++)
			for (e = 0; e < 5; e++)
				for (p = 0; p < 3; p++) {
					if ((l == 0 && e == 4) ||
					    (l == 1 && e == 1 && p == 1))
						continue;
					snprintf(nm[k], sizeof(nm[0]),
						 "model.layers.%d.mlp.experts.%d.%s.weight",
						 l, e == 4 ? 7 : e, proj[p]);
					hf_tensor(inv, nm[k++], 4, 8);
				}
		/* shared_experts are not routed experts */
		hf_tensor(inv, "model.layers.0.mlp.shared_experts.gate_proj.weight",
			  4, 8);
	}
	qa_inventory_summarize(inv);
	qa_check_consistency.run(inv, NULL);
	CHECK_CODES(inv, mine, "hf experts", "QA2105");
	CHECK(inv->n_findings == 1 &&
	      strstr(inv->findings[0].message, "model.layers.1.mlp.experts") &&
	      strstr(inv->findings[0].message,
		     "up_proj lacks 1 and has index 7") &&
	      strstr(inv->findings[0].message, "gate_proj has index 7"));
	qa_inventory_destroy(inv);

	/* No tensors (vocabulary-only GGUF): nothing to compare. */
	inv = qa_inventory_create("v.gguf");
	inv->hp.n_layer = inv->hp.n_layer_all = 32;
	inv->hp.n_embd = 4096;
	qa_check_consistency.run(inv, NULL);
	CHECK_CODES(inv, mine, "vocab-only", "-");
	qa_inventory_destroy(inv);
}

/* ---- 3. generated fixtures ------------------------------------------ */

static const struct {
	const char *rel;
	const char *codes;
} fixtures[] = {
	{ "rules/gguf-clean.gguf", "-" },
	{ "rules/blocks-missing.gguf", "QA2101" },
	{ "rules/blocks-extra.gguf", "QA2102" },
	{ "rules/hidden-size.gguf", "QA2103" },
	{ "rules/vocab-rows.gguf", "QA2104" },
	{ "rules/tok-bpe-clean.gguf", "-" },
	{ "rules/tok-missing-pre.gguf", "QA7101" },
	{ "rules/tok-array-length.gguf", "QA7102" },
	{ "rules/tok-array-type.gguf", "QA7103" },
	{ "rules/tok-vocab-size.gguf", "QA7104" },
	{ "rules/tok-special-range.gguf", "QA7105" },
	{ "rules/tok-missing-merges.gguf", "QA7106" },
	{ "rules/tmpl-cve-2024-34359.gguf", "QA6001" },
	{ "rules/tmpl-escapes.gguf", "QA6002" },
	{ "rules/tmpl-named.gguf", "QA6001" },
	{ "rules/tmpl-huge.gguf", "QA6003" },
	{ "rules/expert-count-clean.gguf", "-" },
	{ "rules/expert-count.gguf", "QA2106" },
	{ "rules/layer-array-clean.gguf", "-" },
	{ "rules/layer-array.gguf", "QA2108" },
	{ "rules/hf-clean", "-" },
	{ "rules/hf-experts-missing", "QA2105" },
	{ "rules/hf-vocab-rows", "QA2104" },
	{ "rules/hf-layer-types", "QA2108" },
	{ "rules/hf-fai", "QA2107" },
	{ "rules/hf-ignore-ct", "QA2109" },
	{ "rules/hf-ignore-modelopt", "QA2109" },
	{ "rules/hf-added-token", "QA7107" },
	{ "rules/hf-template-attr", "QA6002" },
	{ "rules/hf-template-jinja", "QA6001" },
	/* every family's clean fixtures stay silent for these rules */
	{ "gguf/valid-llama-q8_0.gguf", "-" },
	{ "st/qwen3", "-" },
	{ "st/sharded", "-" },
};

static struct qa_inventory *
load(const char *dir, const char *rel)
{
	struct qa_inventory *inv = th_inspect(dir, rel);

	if (inv)
		run_ours(inv);
	return inv;
}

static void
test_fixtures(void)
{
	const char *dir = getenv("QA_FIXTURES");
	struct qa_inventory *inv;
	size_t i;

	if (!dir) {
		printf("QA_FIXTURES not set: generated fixtures skipped\n");
		return;
	}
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		inv = load(dir, fixtures[i].rel);
		if (!inv)
			continue;
		CHECK_CODES(inv, mine, fixtures[i].rel, fixtures[i].codes);
		qa_inventory_destroy(inv);
	}
	/* hf-ignore-ct: re:.*visual.* and the q_projj typo match nothing;
	 * re:.*mlp.gate$ matches model.layers.N.mlp.gate, and lm_head is a
	 * module of a tied model even without a tensor (llm-compressor
	 * ignores it by default), so it is not reported. */
	if ((inv = load(dir, "rules/hf-ignore-ct")) != NULL) {
		CHECK(th_count_code(inv, QA2109) == 2);
		qa_inventory_destroy(inv);
	}
	/* hf-experts-missing: one finding for the layer, not one per
	 * projection. */
	if ((inv = load(dir, "rules/hf-experts-missing")) != NULL) {
		CHECK(th_count_code(inv, QA2105) == 1);
		qa_inventory_destroy(inv);
	}
}

/* ---- 4. real corpus -------------------------------------------------- */

static const struct {
	const char *rel;
	const char *codes;
	const char *why;
} corpus[] = {
	{ "gguf-vocab/ggml-vocab-baichuan.gguf", "-",
	  "SentencePiece ('llama') without pre: llama.cpp only asks BPE for it" },
	{ "gguf-vocab/ggml-vocab-bert-bge.gguf", "-",
	  "WordPiece vocabulary, ids 0-103 of 30522; no tensors" },
	{ "gguf-vocab/ggml-vocab-deepseek-coder.gguf", "-",
	  "gpt2 with pre 'deepseek-coder' and merges; vocab_size 32256 = tokens" },
	{ "gguf-vocab/ggml-vocab-deepseek-llm.gguf", "-",
	  "gpt2 with pre 'deepseek-llm'; vocab_size 102400 = tokens" },
	{ "gguf-vocab/ggml-vocab-falcon.gguf", "-",
	  "gpt2 with pre 'falcon' and merges" },
	{ "gguf-vocab/ggml-vocab-gpt-2.gguf", "-", "gpt2 with pre 'gpt-2'" },
	{ "gguf-vocab/ggml-vocab-gpt-neox.gguf", "QA7101",
	  "gpt2 model and no tokenizer.ggml.pre key (expected/gguf.json): "
	  "llama.cpp warns 'missing pre-tokenizer type' on this very file" },
	{ "gguf-vocab/ggml-vocab-llama-spm.gguf", "-", "SentencePiece, 32000" },
	{ "gguf-vocab/ggml-vocab-mpt.gguf", "-", "gpt2 with pre 'mpt'" },
	{ "gguf-vocab/ggml-vocab-phi-3.gguf", "-",
	  "benign chat template; eos/padding 32000 < 32064 tokens" },
	{ "gguf-vocab/ggml-vocab-refact.gguf", "-", "gpt2 with pre 'refact'" },
	{ "gguf-vocab/ggml-vocab-starcoder.gguf", "-",
	  "gpt2 with pre 'starcoder'" },
	{ "gguf/deepseek_v3_mtp-bf16.gguf", "-",
	  "block_count 3, blocks 0-2; MTP dropped by the converter (MTP rules)" },
	{ "gguf/gemma3_text-q8_0.gguf", "-", "6 blocks, embd 64, 512 tokens" },
	{ "gguf/llama-bf16.gguf", "-", "4 blocks, vocab_size 512 = tokens" },
	{ "gguf/llama-q8_0.gguf", "-", "4 blocks" },
	{ "gguf/qwen3_moe-q8_0.gguf", "-", "ffn_*_exps ne[2] = expert_count 4" },
	{ "hf/llama", "-", "config and tensors agree" },
	{ "hf/qwen3_moe", "-", "per-expert names 0..3 in every layer" },
	{ "hf/deepseek_v3_mtp", "-",
	  "MTP block 3 declared by num_nextn_predict_layers and present" },
	{ "hf/gemma3_text", "-", "vocab_size 512 = embed rows" },
	{ "tiny-llama/tiny-llama-Q4_K_M.gguf", "-", "llama-quantize output" },
	{ "tiny-llama/tiny-llama-e64-Q8_0.gguf", "-", "llama-quantize output" },
	{ "tiny-llama/split/tiny-llama-Q4_0-00001-of-00003.gguf", "-",
	  "split set: blocks spread over 3 parts" },
};

static void
test_corpus(void)
{
	const char *dir = th_env_dir("QA_CORPUS");
	size_t i;

	if (!dir) {
		printf("corpus not found: real-file checks skipped\n");
		return;
	}
	for (i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		struct qa_inventory *inv = load(dir, corpus[i].rel);
		char what[512];

		if (!inv)
			continue;
		snprintf(what, sizeof(what), "%s (%s)", corpus[i].rel,
			 corpus[i].why);
		CHECK_CODES(inv, mine, what, corpus[i].codes);
		qa_inventory_destroy(inv);
	}
}

int
main(void)
{
	test_templates();
	test_tokenizer();
	test_consistency();
	test_fixtures();
	test_corpus();
	return th_done("checks");
}
