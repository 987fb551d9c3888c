/* SPDX-License-Identifier: MIT */
/*
 * Chat-template check bypasses (issue 11) and their regression tests:
 * rules/check_template.c, the template reading of formats/hf_side.c and
 * formats/gguf_hparams.c, and core/json_file.c's duplicate keys.
 *
 * 1. Real-world templates, written from their published constructs
 *    (gpt-oss harmony with its recursive TypeScript macro and
 *    namespaces, Qwen3-Coder's key normalization with |replace, the
 *    Hermes / Command-R json_to_python_type macro with a dict literal
 *    indexed by the schema's type and recursive calls on |items, and
 *    the Llama 3.2 / Mistral v7 / Kimi / Granite / Gemma idioms:
 *    strftime_now, namespaces, selectattr/map(attribute=), sort,
 *    str.format, % formatting, range, generation blocks): no finding.
 * 2. Names built at run time: every string operation Jinja offers that
 *    can assemble a dunder (|replace, '%s'|format, str.format, slicing,
 *    |join of a tuple or list, ~ and +, |reverse, |lower of mixed case,
 *    |center, tojson, %c, map('lower'), dict(_=1) keys, cycler.next(),
 *    set-blocks, {% set %} chains, namespaces in loops, macro
 *    parameters, list.append) reaching |attr, x[...], map/selectattr
 *    attribute names or a str.format field; and names the scanner
 *    cannot fold (a macro's output, wordwrap, non-ASCII case mappings,
 *    the model's own bos_token) used as an attribute name. Each must be
 *    reported with the code stated.
 * 3. Whole-length scanning: a NUL inside a template does not end the
 *    scan; the per-model scan bound gives QA6004 for what is left.
 * 4. Hugging Face folders: duplicate chat_template keys (Python's last
 *    copy wins and is the primary template; every copy is scanned;
 *    QA6005), \u0000 inside the JSON string, chat_template.json,
 *    processor_config.json and additional_chat_templates/<name>.jinja read,
 *    duplicate keys elsewhere (QA1404, last value used).
 * 5. A GGUF whose tokenizer.chat_template is longer than the 4 MiB the
 *    metadata keeps, with the payload at its end.
 * 6. qa_json_collapse_duplicates: Python's dict semantics, nested, and
 *    100,000 copies of one key in linear-logarithmic time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inventory.h"
#include "core/json_file.h"
#include "engine/audit.h"
#include "rules/check.h"
#include "harness.h"

static bool
template_codes(unsigned code)
{
	return code >= 6001 && code <= 6099;
}

static bool
side_codes(unsigned code)
{
	return code == 1404 || (code >= 6001 && code <= 6099);
}

static struct qa_inventory *
one_template(const char *text, size_t len)
{
	struct qa_inventory *inv = qa_inventory_create("t.gguf");
	struct qa_template *t = qa_inv_add_template(inv);

	inv->kind = QA_KIND_GGUF;
	t->label = "tokenizer.chat_template";
	t->text = text;
	t->len = t->full_len = len;
	t->offset = 100;
	t->primary = true;
	return inv;
}

static struct qa_inventory *
scan_text(const char *text)
{
	struct qa_inventory *inv = one_template(text, strlen(text));

	qa_check_template.run(inv, NULL);
	return inv;
}

/* ---- 1. real-world constructs ----------------------------------------- */

static const char *const real_world[][2] = {
	{ "gpt-oss harmony",
	  "{%- macro render_ts_type(spec, required, is_nullable=false) -%}\n"
	  "{%- if spec.type == \"array\" -%}{%- if spec['items'] -%}"
	  "{%- if spec['items']['type'] == \"string\" -%}{{- \"string[]\" }}"
	  "{%- else -%}{%- set inner = render_ts_type(spec['items'], required) -%}"
	  "{%- if inner == \"object | object\" or inner|length > 50 -%}{{- \"any[]\" }}"
	  "{%- else -%}{{- inner + \"[]\" }}{%- endif -%}{%- endif -%}"
	  "{%- if spec.nullable -%}{{- \" | null\" }}{%- endif -%}"
	  "{%- else -%}{{- \"any[]\" }}{%- endif -%}\n"
	  "{%- elif spec.type is defined and spec.type is iterable and spec.type is not string and spec.type[0] is defined -%}"
	  "{%- if spec.type | length > 1 -%}{{- spec.type | join(\" | \") }}{%- else -%}{{- spec.type[0] }}{%- endif -%}\n"
	  "{%- elif spec.oneOf -%}{%- for variant in spec.oneOf -%}{{- render_ts_type(variant, required) -}}"
	  "{%- if variant.default is defined %}{{ \"// default: \" + variant.default|tojson }}{%- endif -%}"
	  "{%- if not loop.last %}{{- \" | \" }}{% endif -%}{%- endfor -%}\n"
	  "{%- elif spec.type == \"string\" -%}{%- if spec.enum -%}{{- '\"' + spec.enum|join('\" | \"') + '\"' -}}"
	  "{%- else -%}{{- \"string\" }}{%- endif -%}\n"
	  "{%- elif spec.type == \"object\" -%}{%- for prop_name, prop_spec in spec.properties.items() -%}"
	  "{{- prop_name -}}{%- if prop_name not in (spec.required or []) -%}{{- \"?\" }}{%- endif -%}"
	  "{{ render_ts_type(prop_spec, spec.required or []) }}{%- endfor -%}\n"
	  "{%- else -%}{{- \"any\" }}{%- endif -%}\n"
	  "{%- endmacro -%}\n"
	  "{%- macro build_system() -%}\n"
	  "{%- if model_identity is not defined %}{%- set model_identity = \"You are a large language model.\" %}{%- endif %}\n"
	  "{{- model_identity + \"\\n\" }}{{- \"Current date: \" + strftime_now(\"%Y-%m-%d\") + \"\\n\\n\" }}\n"
	  "{%- if reasoning_effort is not defined %}{%- set reasoning_effort = \"medium\" %}{%- endif %}\n"
	  "{%- if builtin_tools %}{%- set avail = namespace(browser=false, python=false) %}"
	  "{%- for tool in builtin_tools %}{%- if tool == \"browser\" %}{%- set avail.browser = true %}"
	  "{%- elif tool == \"python\" %}{%- set avail.python = true %}{%- endif %}{%- endfor %}{%- endif -%}\n"
	  "{%- endmacro -%}\n"
	  "{{- \"<|start|>system<|message|>\" }}{{- build_system() }}{{- \"<|end|>\" }}\n"
	  "{%- if messages[0].role == \"developer\" or messages[0].role == \"system\" %}"
	  "{%- set developer_message = messages[0].content %}{%- set loop_messages = messages[1:] %}"
	  "{%- else %}{%- set developer_message = \"\" %}{%- set loop_messages = messages %}{%- endif %}\n"
	  "{%- set last_tool_call = namespace(name=none) %}\n"
	  "{%- for message in loop_messages -%}{%- if message.role == 'assistant' -%}\n"
	  "{%- if \"tool_calls\" in message %}{%- set future_final = namespace(found=false) %}"
	  "{%- for future_message in loop_messages[loop.index:] %}"
	  "{%- if future_message.role == 'assistant' and \"tool_calls\" not in future_message %}"
	  "{%- set future_final.found = true %}{%- endif %}{%- endfor %}"
	  "{%- set tool_call = message.tool_calls[0] %}{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}"
	  "{{- \"functions.\" + tool_call.name + \"<|channel|>commentary \" }}"
	  "{{- (tool_call.content_type if tool_call.content_type is defined else \"json\") + \"<|message|>\" }}"
	  "{{- tool_call.arguments|tojson }}{%- set last_tool_call.name = tool_call.name %}\n"
	  "{%- else %}{{- \"<|start|>assistant<|channel|>final<|message|>\" + message.content + \"<|end|>\" }}"
	  "{%- set last_tool_call.name = none %}{%- endif %}\n"
	  "{%- elif message.role == 'tool' -%}{%- if last_tool_call.name is none %}{{- raise_exception(\"no call\") }}{%- endif %}"
	  "{{- \"<|start|>functions.\" + last_tool_call.name }}{{- message.content|tojson }}{%- endif -%}{%- endfor -%}\n"
	  "{%- if add_generation_prompt -%}\n<|start|>assistant\n{%- endif -%}" },
	{ "qwen3-coder",
	  "{% macro render_item_list(item_list, tag_name='required') %}"
	  "{%- if item_list is defined and item_list is iterable and item_list | length > 0 %}"
	  "{%- if tag_name %}{{- '\\n<' ~ tag_name ~ '>' -}}{% endif %}"
	  "{%- for item in item_list -%}{%- if loop.index > 1 %}{{- \", \"}}{% endif -%}"
	  "{%- if item is string -%}{{ \"`\" ~ item ~ \"`\" }}{%- else -%}{{ item }}{%- endif -%}{%- endfor -%}"
	  "{%- endif %}{% endmacro %}\n"
	  "{%- if messages[0][\"role\"] == \"system\" %}{%- set system_message = messages[0][\"content\"] %}{%- endif %}\n"
	  "{%- for tool in tools %}{%- if tool.function is defined %}{%- set tool = tool.function %}{%- endif %}\n"
	  "{{- '\\n<description>' ~ (tool.description | trim) ~ '</description>' }}\n"
	  "{%- for param_name, param_fields in tool.parameters.properties|items %}\n"
	  "{%- set handled_keys = ['type', 'description', 'enum', 'required'] %}\n"
	  "{%- for json_key, json_value in param_fields.items() if json_key %}\n"
	  "{%- if json_key is string and json_key not in handled_keys %}\n"
	  "{%- set normed = json_key | replace(\"-\", \"_\") | replace(\" \", \"_\") | replace(\"$\", \"\") %}\n"
	  "{{- '\\n<' ~ normed ~ '>' ~ (json_value | tojson | safe) ~ '</' ~ normed ~ '>' }}\n"
	  "{%- endif %}{%- endfor %}{{- render_item_list(param_fields.required, 'required') }}{%- endfor %}{%- endfor %}\n"
	  "{%- for message in messages %}{%- if message.role == \"tool\" %}"
	  "{%- if loop.previtem and loop.previtem.role != \"tool\" %}{{- '<|im_start|>user\\n' }}{%- endif %}"
	  "{%- if not loop.last and loop.nextitem.role != \"tool\" %}{{- '<|im_end|>\\n' }}{%- endif %}"
	  "{%- elif message.tool_calls is defined %}{%- for tool_call in message.tool_calls %}"
	  "{%- for args_name, args_value in tool_call.arguments|items %}"
	  "{%- set args_value = args_value if args_value is string else args_value | string %}"
	  "{{- '<parameter=' + args_name + '>\\n' }}{{- args_value }}{%- endfor %}{%- endfor %}"
	  "{%- endif %}{%- endfor %}" },
	{ "hermes / command-r json_to_python_type",
	  "{%- macro json_to_python_type(json_spec) %}\n"
	  "{%- set basic_type_map = {\n  \"string\": \"str\",\n  \"number\": \"float\",\n  \"integer\": \"int\",\n  \"boolean\": \"bool\"\n} %}\n"
	  "{%- if basic_type_map[json_spec.type] is defined %}{{- basic_type_map[json_spec.type] }}\n"
	  "{%- elif json_spec.type == \"array\" %}{{- \"list[\" +  json_to_python_type(json_spec|items) + \"]\" }}\n"
	  "{%- elif json_spec.type == \"object\" %}{{- \"dict[str, \" + json_to_python_type(json_spec.additionalProperties) + ']' }}\n"
	  "{%- elif json_spec.type is iterable %}{%- for t in json_spec.type %}{{- json_to_python_type({\"type\": t}) }}"
	  "{%- if not loop.last %}{{- \",\" }}{%- endif %}{%- endfor %}\n"
	  "{%- elif json_spec.type == \"list\" %}{{- \"List[\" +  json_to_python_type(json_spec.items) + \"]\"}}\n"
	  "{%- else %}{{- \"Any\" }}{%- endif %}\n"
	  "{%- endmacro %}\n"
	  "{{- bos_token }}{%- for tool in tools %}{%- for param_name, param_fields in tool.parameters.properties|items %}"
	  "{{- param_name + \": \" + json_to_python_type(param_fields) }}{%- endfor %}"
	  "{%- if tool.return is defined %}{{- \" -> \" + json_to_python_type(tool.return) }}{%- endif %}{%- endfor %}" },
	{ "llama-3.2 / mistral v7 / kimi / granite / gemma idioms",
	  "{%- if not date_string is defined %}{%- if strftime_now is defined %}"
	  "{%- set date_string = strftime_now(\"%d %b %Y\") %}{%- else %}{%- set date_string = \"26 Jul 2024\" %}{%- endif %}{%- endif %}\n"
	  "{%- set ns = namespace(last_user=-1, is_tool=false) %}\n"
	  "{%- for m in messages %}{%- if m['role'] == 'user' %}{%- set ns.last_user = loop.index0 %}{%- endif %}{%- endfor %}\n"
	  "{%- if messages[0]['role'] == 'system' %}{%- if messages[0]['content'] is string %}"
	  "{%- set system_message = messages[0]['content'] %}{%- else %}"
	  "{%- set system_message = messages[0]['content'][0]['text'] %}{%- endif %}{%- endif %}\n"
	  "{%- for message in messages[1:] %}{%- if message['role'] == 'user' and message['content'] is not string %}"
	  "{%- for block in message['content'] %}{%- if block['type'] == 'text' %}{{- block['text'] }}"
	  "{%- elif block['type'] in ['image', 'image_url'] %}{{- '[IMG]' }}{%- endif %}{%- endfor %}\n"
	  "{%- elif message.get('tool_calls') %}{%- for tool_call in message['tool_calls'] -%}"
	  "{%- set formatted_id = tool_call['id'] -%}{{- '<|tool_call_begin|>' ~ formatted_id -}}"
	  "{{- tool_call['function']['arguments'] | tojson -}}{%- endfor -%}\n"
	  "{%- else %}{%- set content = message['content'] | default('', true) %}"
	  "{%- if '</think>' in content %}{%- set content = content.split('</think>')[-1].lstrip('\\n') %}{%- endif %}"
	  "{{- content + eos_token }}{%- endif %}"
	  "{%- if loop.index0 > ns.last_user %}{%- set ns.is_tool = true %}{%- endif %}{%- endfor %}\n"
	  "{%- for document in documents | default([]) %}{{- document['doc_id'] | string + document['text'] }}{%- endfor %}\n"
	  "{%- set image_count = namespace(value=0) %}"
	  "{%- for item in messages[-1]['content'] if messages[-1]['content'] is not string %}"
	  "{%- if item['type'] == 'image' %}{%- set image_count.value = image_count.value + 1 %}{%- endif %}{%- endfor %}\n"
	  "{%- set sorted_tools = tools | sort(attribute='name') if tools else [] %}"
	  "{%- for t in (tools or []) | selectattr('type', 'equalto', 'function') | map(attribute='function') %}{{ t.name }}{%- endfor %}\n"
	  "{{- messages | selectattr('role', 'equalto', 'user') | list | length }}"
	  "{{- '{:>4}'.format(messages | length) }}{{ '%d messages' % (messages|length) }}{{ \"%s\" | format(bos_token) }}\n"
	  "{%- for i in range(messages|length - 1, -1, -1) %}{%- if messages[i]['role'] == 'user' %}{%- break %}{%- endif %}{%- endfor %}\n"
	  "{%- generation %}{{ 'x' }}{%- endgeneration %}"
	  "{%- if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{%- endif %}" },
};

static void
test_real_world(void)
{
	size_t i;

	for (i = 0; i < sizeof(real_world) / sizeof(real_world[0]); i++) {
		struct qa_inventory *inv = scan_text(real_world[i][1]);

		CHECK_CODES(inv, template_codes, real_world[i][0], "-");
		qa_inventory_destroy(inv);
	}
}

/* ---- 2. names built at run time ---------------------------------------- */

static const struct payload {
	const char *name;
	unsigned code;
	const char *text;
} payloads[] = {
	{ "|replace", 6002, "{{ ()['XXclassXX'|replace('X','_')] }}" },
	{ "'%s'|format", 6002, "{{ ()['%sclass%s'|format('__','__')] }}" },
	{ "str.format", 6002, "{{ ()['{}class{}'.format('__','__')] }}" },
	{ "slice of a longer literal", 6002,
	  "{{ ()['xx__class__yy'[2:11]] }}" },
	{ "slice with a step", 6002, "{{ ()['_x_xcxlxaxsxsx_x_'[::2]] }}" },
	{ "|join of a tuple", 6002, "{{ ()[('__cla','ss__')|join] }}" },
	{ "|join with a separator", 6002,
	  "{{ ()[['','class','']|join('__')] }}" },
	{ "~", 6002, "{{ ()['__cla' ~ 'ss__'] }}" },
	{ "+", 6002, "{{ ()['__cla' + 'ss__'] }}" },
	{ "adjacent literals", 6002, "{{ x['__cla' 'ss__'] }}" },
	{ "|reverse", 6002, "{{ ()['__ssalc__'|reverse] }}" },
	{ "|lower of mixed case", 6002, "{{ ()['__ClAsS__'|lower] }}" },
	{ "|upper then |lower", 6002, "{{ ()['__cLaSs__'|upper|lower] }}" },
	{ "str.center with '_'", 6002, "{{ ()['class'.center(9, '_')] }}" },
	{ "|attr of a built name", 6002, "{{ ()|attr('__cla' ~ 'ss__') }}" },
	{ "|attr of a variable", 6002,
	  "{% set n = '__cla' ~ 'ss__' %}{{ ()|attr(n) }}" },
	{ "[...] of a variable", 6002,
	  "{% set n = 'XclassX'|replace('X','__') %}{{ ()[n] }}" },
	{ "__globals__ chain", 6002,
	  "{% set g = '__glo' ~ 'bals__' %}{{ lipsum[g]['os'] }}" },
	{ "__builtins__ and __import__", 6002,
	  "{{ x['__buil'~'tins__']['__imp'~'ort__'] }}" },
	{ "mro as a key", 6001, "{{ x['m'~'ro'] }}" },
	{ "__subclasses__", 6002, "{{ x['__subcla' ~ 'sses__'] }}" },
	{ "set-block", 6002,
	  "{% set n %}__cla{% endset %}{% set m %}ss__{% endset %}{{ x[n ~ m] }}" },
	{ "set-block with whitespace control", 6002,
	  "{% set n -%}\n  __class__  \n{%- endset %}{{ x[n] }}" },
	{ "set-block split by a comment", 6002,
	  "{% set n %}__cla{# c #}ss__{% endset %}{{ x[n] }}" },
	{ "namespace built in a loop", 6002,
	  "{% set ns = namespace(s='') %}{% for c in ['__cla','ss__'] %}"
	  "{% set ns.s = ns.s ~ c %}{% endfor %}{{ x[ns.s] }}" },
	{ "macro parameter", 6002,
	  "{% macro g(o, k) %}{{ o[k] }}{% endmacro %}"
	  "{{ g(x, 'XclassX'|replace('X','__')) }}" },
	{ "unfolded macro parameter", 6002,
	  "{% macro g(o, k) %}{{ o[k] }}{% endmacro %}"
	  "{{ g(x, ('a'|wordwrap(3)) ~ 'b') }}" },
	{ "macro output as a key", 6002,
	  "{% macro k() %}__class__{% endmacro %}{{ x[k()] }}" },
	{ "list.append", 6002,
	  "{% set l = [] %}{{ l.append('__cla') or '' }}"
	  "{{ l.append('ss__') or '' }}{{ x[l|join] }}" },
	{ "dict(_=1) keys", 6002,
	  "{{ x[(dict(_=1)|list|first) * 2 ~ 'class' ~ "
	  "(dict(_=1)|list|first) * 2] }}" },
	{ "%c with %", 6002, "{{ x['%c%cclass%c%c' % (95,95,95,95)] }}" },
	{ "{:c} with str.format", 6002,
	  "{{ x['{:c}{:c}class{:c}{:c}'.format(95,95,95,95)] }}" },
	{ "map('lower')", 6002, "{{ x[['__CLA','SS__']|map('lower')|join] }}" },
	{ "map('attr', name)", 6002,
	  "{{ [x]|map('attr','__cla'~'ss__')|list }}" },
	{ "map(attribute=path)", 6001,
	  "{{ [x]|map(attribute='__init__.__globals__')|list }}" },
	{ "selectattr of a built name", 6002,
	  "{{ x|selectattr('__cla'~'ss__')|list }}" },
	{ "str.format field", 6002, "{{ '{0.__class__}'.format(x) }}" },
	{ "str.format field built", 6002,
	  "{{ ('{0.__cl' ~ 'ass__}').format(x) }}" },
	{ "the model's bos_token as a key", 6002, "{{ x[bos_token] }}" },
	{ "tojson then a slice", 6002,
	  "{{ x[('__cl'~'ass__'|tojson)[1:-1]] }}" },
	{ "cycler.next()", 6002,
	  "{% set c = cycler('__cla','ss__') %}{{ x[c.next() ~ c.next()] }}" },
	{ "joiner", 6002,
	  "{% set j = joiner('__') %}{{ x[j() ~ 'class' ~ j()] }}" },
	{ "ternary", 6002, "{{ x['__cla' ~ ('ss__' if true else 'y')] }}" },
	{ "or", 6002, "{{ x[('' or '__cla') ~ 'ss__'] }}" },
	{ "slice by characters, not bytes", 6002,
	  "{{ x['\xc3\xa9__class__'[1:]] }}" },
	{ "non-ASCII case mapping", 6002,
	  "{{ x['__cla\xc5\xbf\xc5\xbf__'|upper|lower] }}" },
	{ "|trim of Python whitespace", 6002, "{{ x['\\x1c__class__'|trim] }}" },
	{ "int of a string", 6002,
	  "{{ x['%c' % ('95'|int) * 2 ~ 'class' ~ '%c' % ('95'|int) * 2] }}" },
	{ "|indent with a string", 6002,
	  "{{ x['class__'|indent('__', true)] }}" },
	{ "strftime_now passes text", 6002,
	  "{{ x[strftime_now('__cla' ~ 'ss__')] }}" },
	{ "raw block captured", 6002,
	  "{% set n %}{% raw %}__class__{% endraw %}{% endset %}{{ x[n] }}" },
	{ "with", 6002, "{% with k = '__cla' ~ 'ss__' %}{{ x[k] }}{% endwith %}" },
	{ "mangled private key", 6001,
	  "{{ self['_TemplateReference__context'] }}" },
	{ "f_globals key", 6001, "{{ x['f_glo' ~ 'bals'] }}" },
	{ "default(...) joined", 6002, "{{ x[y|default('__cla') ~ 'ss__'] }}" },
	{ "tuple unpacking", 6002,
	  "{% set a, b = '__', 'class' %}{{ x[a ~ b ~ a] }}" },
};

static void
test_payloads(void)
{
	size_t i;

	for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
		struct qa_inventory *inv = scan_text(payloads[i].text);

		if (!CHECKF(th_finding(inv, payloads[i].code, NULL) != NULL,
			    "payload %s: QA%04u not reported", payloads[i].name,
			    payloads[i].code))
			th_dump_findings(inv, template_codes);
		qa_inventory_destroy(inv);
	}
}

/* ---- 3. the whole length --------------------------------------------- */

static void
test_whole_length(void)
{
	static const char nul[] = "{{ 'a' }}\0{{ x.__class__ }}";
	struct qa_inventory *inv;
	size_t n = ((size_t)QA_TEMPLATE_SCAN_MAX) + 64;
	char *big;

	/* a NUL does not end the scan */
	inv = one_template(nul, sizeof(nul) - 1);
	qa_check_template.run(inv, NULL);
	CHECK_CODES(inv, template_codes, "NUL inside", "QA6001");
	qa_inventory_destroy(inv);

	/* longer than the scan bound: the payload past it is not seen,
	 * and that is said */
	big = malloc(n + 1);
	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, ' ', n);
	memcpy(big + n - 40, "{{ x.__class__ }}", 17);
	big[n] = '\0';
	inv = one_template(big, n);
	qa_check_template.run(inv, NULL);
	CHECK_CODES(inv, template_codes, "over the scan bound",
		    "QA6003,QA6004");
	CHECK(th_finding(inv, QA6004, "only the first 33554432") != NULL);
	qa_inventory_destroy(inv);

	/* within it, even a payload after 30 MiB of text is found */
	memset(big, ' ', n);
	memcpy(big + ((size_t)30 << 20), "{{ x.__class__ }}", 17);
	inv = one_template(big, (size_t)31 << 20);
	qa_check_template.run(inv, NULL);
	CHECK_CODES(inv, template_codes, "30 MiB in", "QA6001,QA6003");
	qa_inventory_destroy(inv);
	free(big);
}

/* ---- 4. Hugging Face folders ---------------------------------------------- */

static const char config_json[] =
	"{\"architectures\": [\"Qwen3ForCausalLM\"], \"model_type\": \"qwen3\","
	" \"num_hidden_layers\": 2, \"hidden_size\": 64,"
	" \"num_hidden_layers\": 4}";

static struct qa_inventory *
folder(const char *dir)
{
	char rel[256];
	struct qa_inventory *inv;

	snprintf(rel, sizeof(rel), "%s/config.json", dir);
	th_write_text(rel, config_json);
	inv = th_inspect(NULL, th_path(dir));
	if (inv)
		qa_check_template.run(inv, NULL);
	return inv;
}

static const struct qa_template *
primary(const struct qa_inventory *inv)
{
	uint32_t i;

	for (i = 0; i < inv->n_templates; i++)
		if (inv->templates[i].primary)
			return &inv->templates[i];
	return NULL;
}

static void
test_folders(void)
{
	struct qa_inventory *inv;
	const struct qa_template *t;

	/* duplicate chat_template: the scanner-friendly copy first, the
	 * payload last (the one Python, transformers and vLLM use) */
	th_write_text("dup/tokenizer_config.json",
		      "{\"chat_template\": \"{{ messages[0]['content'] }}\","
		      " \"bos_token\": \"<s>\","
		      " \"chat_template\": \"{{ cycler.__init__.__globals__ }}\"}");
	inv = folder("dup");
	if (inv) {
		CHECK_CODES(inv, side_codes, "duplicate chat_template",
			    "QA1404,QA6001,QA6005");
		t = primary(inv);
		CHECK(t && t->text && strstr(t->text, "cycler") != NULL);
		CHECK(inv->chat_template &&
		      strstr(inv->chat_template, "cycler") != NULL);
		/* config.json's duplicate: the last value is the one used */
		CHECK_EQ(inv->hp.n_layer, 4);
		CHECK(th_finding(inv, QA1404, "num_hidden_layers") != NULL);
		qa_inventory_destroy(inv);
	}
	/* the reverse order: payload first, a copy Python ignores */
	th_write_text("dup2/tokenizer_config.json",
		      "{\"chat_template\": \"{{ cycler.__init__ }}\","
		      " \"chat_template\": \"{{ 'hi' }}\"}");
	inv = folder("dup2");
	if (inv) {
		CHECK_CODES(inv, side_codes, "payload in the shadowed copy",
			    "QA1404,QA6001,QA6005");
		t = primary(inv);
		CHECK(t && t->text && strcmp(t->text, "{{ 'hi' }}") == 0);
		qa_inventory_destroy(inv);
	}
	/* a duplicated "template" inside a named entry */
	th_write_text("dup3/tokenizer_config.json",
		      "{\"chat_template\": [{\"name\": \"default\","
		      " \"template\": \"{{ x }}\","
		      " \"template\": \"{{ x['__cla' ~ 'ss__'] }}\"}]}");
	inv = folder("dup3");
	if (inv) {
		CHECK_CODES(inv, side_codes, "duplicate in a named entry",
			    "QA1404,QA6002,QA6005");
		qa_inventory_destroy(inv);
	}
	/* \u0000 in the JSON string does not end the template */
	th_write_text("nul/tokenizer_config.json",
		      "{\"chat_template\": \"{{ 'a' }}\\u0000{{ x.__class__ }}\"}");
	inv = folder("nul");
	if (inv) {
		CHECK_CODES(inv, side_codes, "\\u0000 in JSON",
			    "QA1404,QA6001");
		qa_inventory_destroy(inv);
	}
	/* a NUL byte in chat_template.jinja neither */
	th_write("nul2/chat_template.jinja", "{{ 'a' }}\0{{ x.__class__ }}",
		 27);
	inv = folder("nul2");
	if (inv) {
		CHECK_CODES(inv, side_codes, "NUL in .jinja", "QA1404,QA6001");
		t = primary(inv);
		CHECK(t && t->len == 27);
		qa_inventory_destroy(inv);
	}
	/* the files transformers reads besides tokenizer_config.json */
	th_write_text("files/chat_template.json",
		      "{\"chat_template\": \"{{ x|attr('__class__') }}\"}");
	th_write_text("files/processor_config.json",
		      "{\"processor_class\": \"P\", \"chat_template\":"
		      " \"{{ x['__glo' ~ 'bals__'] }}\"}");
	th_write_text("files/additional_chat_templates/tool_use.jinja",
		      "{{ lipsum.__globals__ }}");
	th_write_text("files/additional_chat_templates/default.jinja",
		      "{{ messages }}");
	th_write_text("files/additional_chat_templates/notes.txt",
		      "{{ x.__class__ }}");
	inv = folder("files");
	if (inv) {
		uint32_t i, n_extra = 0;

		CHECK_CODES(inv, side_codes, "chat_template.json, "
			    "processor_config.json, additional templates",
			    "QA1404,QA6001,QA6002");
		CHECK(th_finding(inv, QA6002, "|attr") != NULL);
		CHECK(th_finding(inv, QA6001, "lipsum.__globals__") != NULL);
		CHECK(th_finding(inv, QA6002, "__globals__") != NULL);
		for (i = 0; i < inv->n_templates; i++)
			n_extra += strstr(inv->templates[i].label,
					  "additional_chat_templates/") != NULL;
		/* default.jinja and tool_use.jinja, not notes.txt */
		CHECK_EQ(n_extra, 2);
		/* without chat_template.jinja, the tokenizer's default is
		 * additional_chat_templates/default.jinja */
		t = primary(inv);
		CHECK(t && strstr(t->label, "default.jinja") != NULL);
		qa_inventory_destroy(inv);
	}
}

/* ---- 5. a long GGUF template -------------------------------------------- */

struct gbuf {
	unsigned char *p;
	size_t n, cap;
};

static void
gput(struct gbuf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void
gu32(struct gbuf *b, uint32_t v)
{
	unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8),
			       (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };

	gput(b, x, 4);
}

static void
gu64(struct gbuf *b, uint64_t v)
{
	gu32(b, (uint32_t)v);
	gu32(b, (uint32_t)(v >> 32));
}

static void
gstr(struct gbuf *b, const char *s, size_t n)
{
	gu64(b, n);
	gput(b, s, n);
}

static void
test_gguf_long(void)
{
	size_t n = ((size_t)5 << 20) + 17, i;
	char *t = malloc(n);
	struct gbuf b = { NULL, 0, 0 };
	struct qa_inventory *inv;
	const struct qa_template *tp;

	CHECK(t != NULL);
	if (!t)
		return;
	memset(t, ' ', n);
	for (i = 0; i + 15 < ((size_t)4 << 20); i += 15 * 4096)
		memcpy(t + i, "{{ messages }}\n", 15);
	/* the payload past the 4 MiB the metadata keeps */
	memcpy(t + n - 40, "{{ x['__cla' ~ 'ss__'] }}               ", 40);
	gput(&b, "GGUF", 4);
	gu32(&b, 3);
	gu64(&b, 0);		/* tensors */
	gu64(&b, 2);		/* key/value pairs */
	gstr(&b, "general.architecture", 20);
	gu32(&b, 8);
	gstr(&b, "llama", 5);
	gstr(&b, "tokenizer.chat_template", 23);
	gu32(&b, 8);
	gstr(&b, t, n);
	th_write("long.gguf", b.p, b.n);
	inv = th_inspect(NULL, th_path("long.gguf"));
	if (inv) {
		qa_check_template.run(inv, NULL);
		CHECK_CODES(inv, template_codes, "5 MiB GGUF template",
			    "QA6002,QA6003");
		tp = inv->n_templates ? &inv->templates[0] : NULL;
		CHECK(tp && tp->len == n && tp->full_len == n);
		qa_inventory_destroy(inv);
	}
	free(b.p);
	free(t);
}

/* ---- 6. duplicate keys as Python reads them ----------------------------- */

struct dups {
	unsigned calls;
	char last_path[QA_JSON_PATH_MAX];
	size_t copies;
};

static void
on_dup(void *ctx, const char *path, const char *key, size_t copies)
{
	struct dups *d = ctx;

	(void)key;
	d->calls++;
	snprintf(d->last_path, sizeof(d->last_path), "%s", path);
	d->copies = copies;
}

static void
test_json_duplicates(void)
{
	static const char doc[] =
		"{\"a\": 1, \"b\": {\"x\": 1, \"x\": 2, \"y\": 3}, \"a\": 2,"
		" \"c\": [{\"k\": 1, \"k\": 9}], \"a\": 3}";
	struct dups d;
	cJSON *root = qa_json_parse_python(doc, strlen(doc), NULL);
	const cJSON *c;
	char *big;
	size_t i, o = 0, n = 100000;

	CHECK(root != NULL);
	if (!root)
		return;
	memset(&d, 0, sizeof(d));
	CHECK_EQ(qa_json_collapse_duplicates(root, on_dup, &d), 3);
	CHECK_EQ(d.calls, 3);
	/* the first position, the last value: {"a": 3, "b": ..., "c": ...} */
	c = root->child;
	CHECK(c && strcmp(c->string, "a") == 0 && c->valueint == 3);
	CHECK(c && c->next && strcmp(c->next->string, "b") == 0);
	CHECK_EQ(qa_json_child(qa_json_child(root, "b"), "x")->valueint, 2);
	CHECK_EQ(cJSON_GetArraySize(root), 3);
	CHECK_STR(d.last_path, "c[0].k");
	cJSON_Delete(root);

	/* 100,000 copies of one key: collapsed in O(n log n) */
	big = malloc(n * 12 + 16);
	CHECK(big != NULL);
	if (!big)
		return;
	big[o++] = '{';
	for (i = 0; i < n; i++)
		o += (size_t)sprintf(big + o, "%s\"k\": %zu", i ? "," : "", i % 10);
	big[o++] = '}';
	root = qa_json_parse_python(big, o, NULL);
	CHECK(root != NULL);
	if (root) {
		memset(&d, 0, sizeof(d));
		CHECK_EQ(qa_json_collapse_duplicates(root, on_dup, &d), 1);
		CHECK_EQ(d.copies, n);
		CHECK_EQ(cJSON_GetArraySize(root), 1);
		CHECK_EQ(qa_json_child(root, "k")->valueint, (n - 1) % 10);
		cJSON_Delete(root);
	}
	free(big);
}

int
main(void)
{
	th_scratch("template-scan");
	test_real_world();
	test_payloads();
	test_whole_length();
	test_folders();
	test_gguf_long();
	test_json_duplicates();
	return th_done("template-scan");
}
