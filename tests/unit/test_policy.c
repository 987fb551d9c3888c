/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of user policy files (rules/policy.c, docs/policy.md).
 *
 * Policies are written as strings into a fresh mkdtemp folder and loaded
 * from there. Malformed files must fail with the exact message and JSON
 * path written out below. Rules are evaluated on inventories built by hand
 * (every role, layer, dtype and size set here, the expected counts and bit
 * widths worked out in the comments) and on the generated sample model,
 * whose tensor mix is counted by hand from fixtures/gen/gen_sample.c. The
 * policy examples of docs/examples/ are loaded and run too, so the
 * documentation cannot rot.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/engine.h"
#include "engine/audit.h"
#include "rules/policy.h"
#include "harness.h"

#define S "\"schema\": \"quantaudit-policy/1\""

/* ---- helpers ------------------------------------------------------------ */

static struct qa_policy *
load_text(const char *name, const char *text, char *path, size_t pathlen,
	  char *err, size_t errlen)
{
	snprintf(path, pathlen, "%s", th_path(name));
	th_write_text(name, text);
	err[0] = '\0';
	return qa_policy_load(path, err, errlen);
}

/* Loads text, which must fail with "<path>: " + want. */
#define EXPECT_ERR(text, want) expect_err(__LINE__, text, want, false)
/* Same, comparing only the start (regerror wording is libc's). */
#define EXPECT_ERR_PREFIX(text, want) expect_err(__LINE__, text, want, true)

static void
expect_err(int line, const char *text, const char *want, bool prefix)
{
	char path[512], err[1024], full[1200];
	struct qa_policy *p = load_text("bad.json", text, path, sizeof(path),
					err, sizeof(err));

	snprintf(full, sizeof(full), "%s: %s", path, want);
	if (p) {
		th_fail(__FILE__, line, "loaded, expected error '%s'", want);
		qa_policy_destroy(p);
		return;
	}
	th_report(prefix ? strncmp(err, full, strlen(full)) == 0 :
		  strcmp(err, full) == 0, __FILE__, line,
		  "expected error\n  '%s'\ngot\n  '%s'", full, err);
}

static struct qa_policy *
load_ok(int line, const char *text)
{
	char path[512], err[1024];
	struct qa_policy *p = load_text("ok.json", text, path, sizeof(path),
					err, sizeof(err));

	if (!p)
		th_fail(__FILE__, line, "load failed: %s", err);
	return p;
}

/* Findings of the policy (user codes and QA8001) on inv, after run. */
static uint32_t
policy_findings(const struct qa_inventory *inv, const struct qa_finding **out,
		uint32_t max)
{
	uint32_t i, n = 0;

	for (i = 0; i < inv->n_findings; i++)
		if (inv->findings[i].rule->code >= 8000 && n < max)
			out[n++] = &inv->findings[i];
	return n;
}

/*
 * Runs a one-rule policy (rule JSON without the enclosing document) on
 * inv and checks the single finding's detail, or that there is none
 * (want == NULL). Findings are removed again afterwards.
 */
#define EXPECT_RULE(inv, rule, want) \
	expect_rule(__LINE__, inv, rule, want)

static void
expect_rule(int line, struct qa_inventory *inv, const char *rule,
	    const char *want)
{
	char doc[4096];
	const struct qa_finding *f[8];
	struct qa_policy *p;
	uint32_t before = inv->n_findings, n;

	snprintf(doc, sizeof(doc), "{" S ", \"rules\": [%s]}", rule);
	p = load_ok(line, doc);
	if (!p)
		return;
	qa_policy_run(p, inv);
	n = policy_findings(inv, f, 8);
	if (!want)
		th_report(n == 0, __FILE__, line,
			  "expected no finding, got %s '%s'",
			  n ? f[0]->rule->id : "", n ? f[0]->message : "");
	else
		th_report(n == 1 && f[0]->rule->code >= 9000 &&
			  strcmp(f[0]->message, want) == 0, __FILE__, line,
			  "expected one finding\n  '%s'\ngot %u: '%s'", want,
			  n, n ? f[0]->message : "");
	inv->n_findings = before;
	qa_policy_destroy(p);
}

/* ---- malformed files ---------------------------------------------------- */

static void
test_errors(void)
{
	char path[512], err[1024], want[1200], *big;
	struct qa_policy *p;
	size_t i, len;

	/* Line 3 is `  "rules": [,]`: two spaces, "rules" (7 bytes with
	 * quotes), ':', ' ', '[' are 12 bytes, so ',' is column 13. */
	EXPECT_ERR("{\n  " S ",\n  \"rules\": [,]\n}\n",
		   "line 3, column 13: invalid JSON");
	/* `{"schema":"quantaudit-policy/1"}` is 1 + 8 + 1 + 21 + 1 = 32
	 * bytes; a space, then 'x' at column 34. */
	EXPECT_ERR("{\"schema\":\"quantaudit-policy/1\"} x",
		   "line 1, column 34: invalid JSON");
	EXPECT_ERR("", "empty file (expected a JSON object)");
	EXPECT_ERR("[]", "$: expected an object");
	EXPECT_ERR("{}", "$: missing key \"schema\"");
	EXPECT_ERR("{\"schema\": \"quantaudit-policy/2\"}",
		   "$.schema: unsupported schema 'quantaudit-policy/2' "
		   "(expected 'quantaudit-policy/1')");
	EXPECT_ERR("{" S ", \"rule\": []}",
		   "$.rule: unknown key (expected one of schema, description, "
		   "overrides, rules)");
	EXPECT_ERR("{" S ", \"a b\": 1}",
		   "$[\"a b\"]: unknown key (expected one of schema, "
		   "description, overrides, rules)");
	EXPECT_ERR("{" S ", " S "}", "$.schema: duplicate key");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"select\": "
		   "{\"role\": \"mlp\", \"role\": \"attention\"}, "
		   "\"require\": {\"count_min\": 1}}]}",
		   "$.rules[0].select.role: duplicate key");
	EXPECT_ERR("{" S ", \"rules\": {}}", "$.rules: expected an array");
	EXPECT_ERR("{" S ", \"rules\": [{\"require\": {\"exists\": true}}]}",
		   "$.rules[0]: missing key \"id\"");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\"}]}",
		   "$.rules[0]: missing key \"require\"");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"Attention BF16\", "
		   "\"require\": {\"exists\": true}}]}",
		   "$.rules[0].id: 'Attention BF16' is not a kebab-case id "
		   "(lower-case letters, digits and single hyphens)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"gguf-truncated\", "
		   "\"require\": {\"exists\": true}}]}",
		   "$.rules[0].id: 'gguf-truncated' is the id of built-in "
		   "rule QA1001");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"exists\": true}}, {\"id\": \"a\", \"require\": "
		   "{\"exists\": true}}]}",
		   "$.rules[1].id: 'a' is already the id of $.rules[0]");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"code\": \"QA1305\","
		   " \"require\": {\"exists\": true}}]}",
		   "$.rules[0].code: QA1305 is outside QA9000..QA9999 (the "
		   "codes of user rules)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"code\": \"9001\","
		   " \"require\": {\"exists\": true}}]}",
		   "$.rules[0].code: expected a rule code such as "
		   "\"QA9001\"");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"code\": \"QA9001\","
		   " \"require\": {\"exists\": true}}, {\"id\": \"b\", "
		   "\"code\": 9001, \"require\": {\"exists\": true}}]}",
		   "$.rules[1].code: QA9001 is already the code of $.rules[0] "
		   "('a')");
	/* Rule 1 defaults to QA9000 + 1, which rule 0 took explicitly. */
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"code\": \"QA9001\","
		   " \"require\": {\"exists\": true}}, {\"id\": \"b\", "
		   "\"require\": {\"exists\": true}}]}",
		   "$.rules[1]: the default code QA9001 (QA9000 + index) is "
		   "already the code of $.rules[0] ('a'); give one of them an "
		   "explicit \"code\"");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"severity\": "
		   "\"fatal\", \"require\": {\"exists\": true}}]}",
		   "$.rules[0].severity: unknown severity 'fatal' (error, "
		   "warning or info)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"category\": "
		   "\"speed\", \"require\": {\"exists\": true}}]}",
		   "$.rules[0].category: unknown category 'speed' (integrity, "
		   "completeness, precision, fit, compatibility, security or "
		   "metadata)");
	EXPECT_ERR("{" S ", \"rules\": ["
		   "{\"id\": \"a\", \"require\": {\"exists\": true}}, "
		   "{\"id\": \"b\", \"require\": {\"exists\": true}}, "
		   "{\"id\": \"c\", \"select\": {\"role\": \"atention\"}, "
		   "\"require\": {\"dtype_in\": [\"BF16\"]}}]}",
		   "$.rules[2].select.role: unknown role 'atention' (a tensor "
		   "role such as attn_q, or a group: attention, mlp, experts, "
		   "shared_experts, embeddings, mtp, ssm, vision)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"select\": "
		   "{\"role\": [\"attn_q\", \"ffn\"]}, \"require\": "
		   "{\"exists\": true}}]}",
		   "$.rules[0].select.role[1]: unknown role 'ffn' (a tensor "
		   "role such as attn_q, or a group: attention, mlp, experts, "
		   "shared_experts, embeddings, mtp, ssm, vision)");
	EXPECT_ERR_PREFIX("{" S ", \"rules\": [{\"id\": \"a\", \"select\": "
			  "{\"name\": \"blk.(\"}, \"require\": "
			  "{\"exists\": true}}]}",
			  "$.rules[0].select.name: invalid regular expression "
			  "'blk.(': ");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"select\": "
		   "{\"layers\": [3, 1]}, \"require\": {\"exists\": true}}]}",
		   "$.rules[0].select.layers: expected [from, to]: block "
		   "indexes with 0 <= from <= to");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"select\": "
		   "{\"layer\": [0, 1]}, \"require\": {\"exists\": true}}]}",
		   "$.rules[0].select.layer: unknown selector (expected one "
		   "of role, name, layers, dtype, mtp)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"dtype_in\": [\"BF16\", \"BF61\"]}}]}",
		   "$.rules[0].require.dtype_in[1]: unknown dtype 'BF61' (a "
		   "ggml type such as Q4_K or a safetensors dtype such as "
		   "F8_E4M3)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"dtype_in\": []}}]}",
		   "$.rules[0].require.dtype_in: expected a non-empty array "
		   "of strings");
	EXPECT_ERR("{" S ", \"rules\": ["
		   "{\"id\": \"a\", \"require\": {\"exists\": true}}, "
		   "{\"id\": \"b\", \"require\": {\"exists\": true}}, "
		   "{\"id\": \"c\", \"require\": {\"min_bits\": true}}]}",
		   "$.rules[2].require.min_bits: expected a number of bits "
		   "from 0 to 64, or a dtype name");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"min_bits\": \"Q4_2\"}}]}",
		   "$.rules[0].require.min_bits: unknown dtype 'Q4_2' (a ggml "
		   "type such as Q4_K or a safetensors dtype such as "
		   "F8_E4M3)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"dtype\": [\"BF16\"]}}]}",
		   "$.rules[0].require.dtype: unknown predicate (expected one "
		   "of dtype_in, dtype_not_in, min_bits, max_bits, count_min, "
		   "count_max, exists, bytes_min, bytes_max, params_min, "
		   "params_max, mtp_status, mtp_loadable, file_bytes_min, file_bytes_max, "
		   "architecture_in, file_type_in, min_model_bits, "
		   "max_model_bits, metadata)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": {}}]}",
		   "$.rules[0].require: no predicate (see docs/policy.md)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"count_min\": -1}}]}",
		   "$.rules[0].require.count_min: expected a non-negative "
		   "integer");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"count_min\": 5, \"count_max\": 2}}]}",
		   "$.rules[0].require: count_min 5 is above count_max 2");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"exists\": true, \"count_max\": 2}}]}",
		   "$.rules[0].require.exists: cannot be combined with "
		   "count_min or count_max");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"bytes_max\": \"30XB\"}}]}",
		   "$.rules[0].require.bytes_max: bad amount '30XB' (a number "
		   "of bytes, or a number with a unit: KB MB GB TB, KiB MiB "
		   "GiB TiB)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"params_max\": \"8 bn\"}}]}",
		   "$.rules[0].require.params_max: bad amount '8 bn' (a number "
		   "of parameters, or a number with a unit: K M B T)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"select\": "
		   "{\"role\": \"mlp\"}, \"require\": {\"mtp_status\": "
		   "[\"present\"]}}]}",
		   "$.rules[0].select: a selection is only used by tensor "
		   "predicates (dtype_in, min_bits, count_min...); this rule "
		   "has none");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"mtp_status\": [\"here\"]}}]}",
		   "$.rules[0].require.mtp_status[0]: unknown MTP status "
		   "'here' (present, missing, partial, absent or "
		   "not-applicable)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"file_type_in\": [\"Q4_K_X\"]}}]}",
		   "$.rules[0].require.file_type_in[0]: unknown file type "
		   "'Q4_K_X' (a GGUF file type label such as Q4_K_M)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"metadata\": {\"key\": \"general.license\"}}}]}",
		   "$.rules[0].require.metadata: no condition on "
		   "\"general.license\" (exists, equals, matches, in, min or "
		   "max)");
	EXPECT_ERR("{" S ", \"rules\": [{\"id\": \"a\", \"require\": "
		   "{\"metadata\": [{\"key\": \"k\", \"exists\": true}, "
		   "{\"key\": \"k\", \"exists\": true, \"equals\": 1}]}}]}",
		   "$.rules[0].require.metadata[1].exists: cannot be combined "
		   "with other conditions");
	EXPECT_ERR("{" S ", \"overrides\": {\"QA9999\": \"error\"}}",
		   "$.overrides.QA9999: unknown rule (neither a built-in rule "
		   "nor a rule of this file; see 'quantaudit rules')");
	EXPECT_ERR("{" S ", \"overrides\": {\"QA1014\": \"fatal\"}}",
		   "$.overrides.QA1014: unknown severity 'fatal' (error, "
		   "warning, info or off)");
	EXPECT_ERR("{" S ", \"overrides\": {\"QA1014\": \"off\", "
		   "\"QA1014\": \"info\"}}",
		   "$.overrides.QA1014: duplicate key");

	/* A missing file names the system error. */
	snprintf(path, sizeof(path), "%s", th_path("absent.json"));
	p = qa_policy_load(path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s: cannot open: No such file or "
		 "directory", path);
	CHECK(!p);
	CHECK_STR(err, want);

	/* 1 MiB of valid JSON loads; one byte more does not. */
	len = (size_t)1 << 20;
	big = malloc(len + 2);
	CHECK(big != NULL);
	if (big) {
		const char *head = "{" S "}";

		memset(big, ' ', len + 1);
		memcpy(big, head, strlen(head));
		snprintf(path, sizeof(path), "%s", th_path("big.json"));
		th_write("big.json", big, len);
		p = qa_policy_load(path, err, sizeof(err));
		CHECK(p != NULL);
		qa_policy_destroy(p);
		th_write("big.json", big, len + 1);
		p = qa_policy_load(path, err, sizeof(err));
		snprintf(want, sizeof(want), "%s: larger than 1 MiB (the limit "
			 "of a rule file)", path);
		CHECK(!p);
		CHECK_STR(err, want);
		free(big);
	}

	/* 1001 rules: one more than the limit. */
	big = malloc(1001 * 64 + 128);
	CHECK(big != NULL);
	if (big) {
		len = (size_t)snprintf(big, 128, "{" S ", \"rules\": [");
		for (i = 0; i < 1001; i++)
			len += (size_t)snprintf(big + len, 64, "%s{\"id\": "
						"\"r%zu\", \"require\": "
						"{\"exists\": true}}",
						i ? "," : "", i);
		snprintf(big + len, 8, "]}");
		EXPECT_ERR(big, "$.rules: 1001 rules, at most 1000");
		/* Exactly 1000 load, taking QA9000..QA9999. */
		len = (size_t)snprintf(big, 128, "{" S ", \"rules\": [");
		for (i = 0; i < 1000; i++)
			len += (size_t)snprintf(big + len, 64, "%s{\"id\": "
						"\"r%zu\", \"require\": "
						"{\"exists\": true}}",
						i ? "," : "", i);
		snprintf(big + len, 8, "]}");
		p = load_ok(__LINE__, big);
		if (p) {
			size_t n;
			const struct qa_rule *r = qa_policy_rules(p, &n);

			CHECK(n == 1000);
			CHECK(r[0].code == 9000 && r[999].code == 9999);
			qa_policy_destroy(p);
		}
		free(big);
	}
}

/* ---- loading: rule entries and overrides ------------------------------- */

static void
test_rules_and_overrides(void)
{
	struct qa_overrides ov;
	const struct qa_rule *r;
	struct qa_policy *p;
	char err[256];
	size_t n;

	p = load_ok(__LINE__, "{" S ", \"overrides\": {\"QA1011\": \"info\", "
		    "\"gguf-trailing-bytes\": \"off\", \"mine\": \"warning\"},"
		    " \"rules\": [{\"id\": \"first\", \"require\": "
		    "{\"exists\": true}}, {\"id\": \"mine\", \"code\": "
		    "\"QA9123\", \"severity\": \"info\", \"category\": "
		    "\"precision\", \"message\": \"m\", \"doc\": \"d\", "
		    "\"require\": {\"exists\": true}}]}");
	if (!p)
		return;
	r = qa_policy_rules(p, &n);
	CHECK(n == 2);
	/* Defaults: QA9000 + index, error, metadata. */
	CHECK(r[0].code == 9000);
	CHECK_STR(r[0].id, "first");
	CHECK(r[0].severity == QA_SEV_ERROR);
	CHECK(r[0].category == QA_CAT_METADATA);
	CHECK_STR(r[0].summary, "policy rule 'first' failed");
	CHECK_STR(r[0].doc, "User policy rule 'first' from ok.json.");
	CHECK(r[1].code == 9123);
	CHECK(r[1].severity == QA_SEV_INFO);
	CHECK(r[1].category == QA_CAT_PRECISION);
	CHECK_STR(r[1].summary, "m");
	CHECK_STR(r[1].doc, "d");
	/* The engine resolves the file's rules by code and by id. */
	CHECK(qa_policy_rule_lookup(p, "QA9123") == &r[1]);
	CHECK(qa_policy_rule_lookup(p, "first") == &r[0]);

	memset(&ov, 0, sizeof(ov));
	CHECK(qa_policy_overrides(p, &ov, err, sizeof(err)) == 0);
	CHECK(ov.n == 3);
	if (ov.n == 3) {
		CHECK(ov.items[0].code == 1011 && !ov.items[0].disabled &&
		      ov.items[0].severity == QA_SEV_INFO);
		CHECK(ov.items[1].code == 1014 && ov.items[1].disabled);
		CHECK(ov.items[2].code == 9123 && !ov.items[2].disabled &&
		      ov.items[2].severity == QA_SEV_WARNING);
	}
	qa_policy_destroy(p);
	qa_policy_destroy(NULL);
}

/* ---- evaluation on a hand-built inventory ------------------------------- */

static struct qa_tensor *
add_tensor(struct qa_inventory *inv, const char *name, enum qa_role role,
	   int32_t layer, bool mtp, int32_t ggml_type, const char *dtype,
	   uint64_t elements, uint64_t bytes)
{
	struct qa_tensor *t = qa_inv_add_tensor(inv);

	if (!t)
		abort();
	t->name = name;
	t->file = 0;
	t->role = role;
	t->layer = layer;
	t->mtp = mtp;
	t->ggml_type = ggml_type;
	t->dtype = dtype;
	t->n_dims = 1;
	t->shape[0] = elements;
	t->elements = elements;
	t->bytes = bytes;
	return t;
}

static void
add_kv(struct qa_inventory *inv, const char *key, enum qa_value_type type,
       uint64_t u, const char *s)
{
	struct qa_kv *kv = qa_inv_add_kv(inv);

	if (!kv)
		abort();
	kv->key = key;
	kv->value.type = type;
	if (type == QA_V_STRING) {
		kv->value.v.str.s = s;
		kv->value.v.str.len = strlen(s);
	} else {
		kv->value.v.u = u;
	}
}

/*
 * Seven tensors; bytes from the type tables (block bytes per block):
 *   token_embd.weight          embed        Q6_K  1024 el.  4 x 210 =  840 B
 *   blk.0.attn_q.weight        attn_q  L0   BF16   512 el.  2 x 512 = 1024 B
 *   blk.0.attn_k.weight        attn_k  L0   Q4_K   512 el.  2 x 144 =  288 B
 *   blk.1.attn_q.weight        attn_q  L1   F16    512 el.            1024 B
 *   blk.1.ffn_down.weight      ffn_down L1  Q3_K   512 el.  2 x 110 =  220 B
 *   blk.2.nextn.eh_proj.weight eh_proj L2 mtp F8_E4M3 (safetensors) 100 B
 *   blk.2.attn_q.weight        attn_q  L2 mtp Q8_0  64 el.  2 x 34  =   68 B
 * Parameters 1024 + 4 x 512 + 100 + 64 = 3236; bytes 3564; the model's
 * bits per weight 8 x 3564 / 3236 = 8.81.
 * Nominal bits: Q6_K 210*8/256 = 6.5625, Q4_K 4.5, Q3_K 110*8/256 =
 * 3.4375, Q8_0 34*8/32 = 8.5, BF16/F16 16, F8_E4M3 8.
 */
static struct qa_inventory *
hand_inventory(void)
{
	struct qa_inventory *inv = qa_inventory_create("hand.gguf");
	struct qa_file *f;

	if (!inv)
		abort();
	f = qa_inv_add_file(inv, "hand.gguf");
	if (!f)
		abort();
	f->bytes = 1000;
	add_tensor(inv, "token_embd.weight", QA_ROLE_EMBED, -1, false, 14,
		   "Q6_K", 1024, 840);
	add_tensor(inv, "blk.0.attn_q.weight", QA_ROLE_ATTN_Q, 0, false, 30,
		   "BF16", 512, 1024);
	add_tensor(inv, "blk.0.attn_k.weight", QA_ROLE_ATTN_K, 0, false, 12,
		   "Q4_K", 512, 288);
	add_tensor(inv, "blk.1.attn_q.weight", QA_ROLE_ATTN_Q, 1, false, 1,
		   "F16", 512, 1024);
	add_tensor(inv, "blk.1.ffn_down.weight", QA_ROLE_FFN_DOWN, 1, false,
		   11, "Q3_K", 512, 220);
	add_tensor(inv, "blk.2.nextn.eh_proj.weight", QA_ROLE_MTP_EH_PROJ, 2,
		   true, -1, "F8_E4M3", 100, 100);
	add_tensor(inv, "blk.2.attn_q.weight", QA_ROLE_ATTN_Q, 2, true, 8,
		   "Q8_0", 64, 68);
	add_kv(inv, "general.license", QA_V_STRING, 0, "mit");
	add_kv(inv, "general.file_type", QA_V_U32, 15, NULL);
	add_kv(inv, "llama.context_length", QA_V_U32, 8192, NULL);
	add_kv(inv, "general.flag", QA_V_BOOL, 1, NULL);
	add_kv(inv, "count_str", QA_V_STRING, 0, "42");
	inv->hp.arch = "llama";
	inv->hp.file_type = 15;
	inv->params = 3236;
	inv->bytes = 3564;
	inv->mtp.status = QA_MTP_PARTIAL;
	return inv;
}

static void
test_eval_tensors(struct qa_inventory *inv)
{
	const struct qa_finding *f[8];
	struct qa_policy *p;
	uint32_t before, n;

	/* attention = attn_q x3, attn_k: 4 tensors; Q4_K and Q8_0 fail. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": "
		    "\"attention\"}, \"require\": {\"dtype_in\": [\"BF16\", "
		    "\"F16\"]}}",
		    "2 of 4 selected tensors violate dtype_in [BF16, F16]: "
		    "first 'blk.0.attn_k.weight' is Q4_K");
	/* Without the MTP block's attn_q: 3 selected, 1 fails. Lower-case
	 * dtype names are accepted and printed canonically. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": "
		    "\"attention\", \"mtp\": false}, \"require\": "
		    "{\"dtype_in\": [\"bf16\", \"f16\"]}}",
		    "1 of 3 selected tensors violates dtype_in [BF16, F16]: "
		    "first 'blk.0.attn_k.weight' is Q4_K");
	/* The "mtp" group is t->mtp, whatever the role: eh_proj, attn_q. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": \"mtp\"}, "
		    "\"require\": {\"count_max\": 1}}",
		    "2 tensors selected, count_max is 1: first "
		    "'blk.2.nextn.eh_proj.weight'");
	/* Layers 1..2: attn_q F16, ffn_down Q3_K (3.4375), eh_proj F8 (8),
	 * attn_q Q8_0 (8.5): only ffn_down is below 4. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"layers\": [1, 2]}, "
		    "\"require\": {\"min_bits\": 4}}",
		    "1 of 4 selected tensors violates min_bits 4: first "
		    "'blk.1.ffn_down.weight' is Q3_K (3.4375 bits)");
	/* Name regex: the three attn_q (16, 16, 8.5 bits) all exceed 8. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"name\": "
		    "\"attn_q\"}, \"require\": {\"max_bits\": 8}}",
		    "3 of 3 selected tensors violate max_bits 8: first "
		    "'blk.0.attn_q.weight' is BF16 (16 bits)");
	/* min_bits as a dtype name: Q4_K = 4.5; Q3_K fails. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"min_bits\": "
		    "\"Q4_K\"}}",
		    "1 of 7 selected tensors violates min_bits Q4_K (4.5): "
		    "first 'blk.1.ffn_down.weight' is Q3_K (3.4375 bits)");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"dtype\": [\"Q4_K\","
		    " \"Q3_K\"]}, \"require\": {\"exists\": false}}",
		    "2 tensors selected, exists is false: first "
		    "'blk.0.attn_k.weight'");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"name\": "
		    "\"^output\\\\.weight$\"}, \"require\": {\"exists\": "
		    "true}}", "no tensor selected, exists is true");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": "
		    "\"embeddings\"}, \"require\": {\"count_min\": 1, "
		    "\"count_max\": 1}}", NULL);
	/* attention bytes 1024 + 288 + 1024 + 68 = 2404 > 2 KiB (2048);
	 * 2404 / 1024 = 2.35 -> "2.3 KiB". */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": "
		    "\"attention\"}, \"require\": {\"bytes_max\": \"2KiB\"}}",
		    "selected tensors hold 2404 bytes (2.3 KiB), bytes_max is "
		    "2KiB");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": "
		    "\"attention\"}, \"require\": {\"bytes_max\": 2404}}",
		    NULL);
	/* mlp = ffn_down only: 512 parameters < 1000. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": \"mlp\"}, "
		    "\"require\": {\"params_min\": \"1K\"}}",
		    "selected tensors hold 512 parameters, params_min is 1K");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"dtype_not_in\": "
		    "[\"F8_E4M3\"]}}",
		    "1 of 7 selected tensors violates dtype_not_in [F8_E4M3]: "
		    "first 'blk.2.nextn.eh_proj.weight' is F8_E4M3");
	/* Two violated predicates: one finding, both in the detail, the
	 * finding pointing at the first offending tensor. */
	before = inv->n_findings;
	p = load_ok(__LINE__, "{" S ", \"rules\": [{\"id\": \"two\", "
		    "\"severity\": \"warning\", \"select\": {\"role\": "
		    "\"attention\"}, \"require\": {\"dtype_in\": [\"BF16\"], "
		    "\"count_max\": 1}}]}");
	if (p) {
		size_t nr;
		const struct qa_rule *r = qa_policy_rules(p, &nr);

		qa_policy_run(p, inv);
		n = policy_findings(inv, f, 8);
		CHECK(n == 1);
		if (n == 1) {
			CHECK(f[0]->rule == &r[0]);
			CHECK(f[0]->severity == QA_SEV_WARNING);
			CHECK_STR(f[0]->message, "3 of 4 selected tensors "
				  "violate dtype_in [BF16]: first "
				  "'blk.0.attn_k.weight' is Q4_K; 4 tensors "
				  "selected, count_max is 1: first "
				  "'blk.0.attn_q.weight'");
			CHECK_STR(f[0]->tensor, "blk.0.attn_k.weight");
			CHECK_STR(f[0]->file, "hand.gguf");
		}
		inv->n_findings = before;
		qa_policy_destroy(p);
	}
	/* A selector that matches nothing: QA8001 (info) instead of a
	 * vacuous pass that says nothing. */
	p = load_ok(__LINE__, "{" S ", \"rules\": [{\"id\": \"moe\", "
		    "\"select\": {\"role\": \"experts\"}, \"require\": "
		    "{\"dtype_in\": [\"BF16\"]}}]}");
	if (p) {
		qa_policy_run(p, inv);
		n = policy_findings(inv, f, 8);
		CHECK(n == 1);
		if (n == 1) {
			CHECK(f[0]->rule->code == 8001);
			CHECK(f[0]->severity == QA_SEV_INFO);
			CHECK_STR(f[0]->message, "rule 'moe' (QA9000) selected "
				  "no tensor, so its predicates held only "
				  "vacuously");
		}
		inv->n_findings = before;
		qa_policy_destroy(p);
	}
	/* With count_min the empty selection is the rule's own failure. */
	EXPECT_RULE(inv, "{\"id\": \"moe\", \"select\": {\"role\": "
		    "\"experts\"}, \"require\": {\"dtype_in\": [\"BF16\"], "
		    "\"count_min\": 1}}", "0 tensors selected, count_min is 1");
}

static void
test_eval_model(struct qa_inventory *inv)
{
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"mtp_status\": "
		    "[\"present\"]}}",
		    "MTP status is partial, mtp_status is [present]");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"mtp_status\": "
		    "[\"missing\", \"partial\"]}}", NULL);
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"file_bytes_max\": "
		    "999}}", "the files hold 1000 bytes, file_bytes_max is "
		    "999");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"file_bytes_max\": "
		    "\"1kB\"}}", NULL);
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"architecture_in\": "
		    "[\"qwen3\"]}}",
		    "architecture is 'llama', architecture_in [qwen3]");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"architecture_in\": "
		    "[\"qwen3\", \"llama\"]}}", NULL);
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"file_type_in\": "
		    "[\"Q8_0\"]}}",
		    "declared file type is Q4_K_M, file_type_in [Q8_0]");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"file_type_in\": "
		    "[\"q4_k_m\"]}}", NULL);
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"min_model_bits\": "
		    "9}}", "the model has 8.81 bits per weight, "
		    "min_model_bits is 9");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"max_model_bits\": "
		    "\"Q8_0\"}}", "the model has 8.81 bits per weight, "
		    "max_model_bits is Q8_0 (8.5)");
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"min_model_bits\": "
		    "8.8, \"max_model_bits\": 8.9}}", NULL);
}

static void
test_eval_metadata(struct qa_inventory *inv)
{
#define META(cond) "{\"id\": \"m\", \"require\": {\"metadata\": " cond "}}"
	EXPECT_RULE(inv, META("{\"key\": \"general.license\", \"exists\": "
			      "true}"), NULL);
	EXPECT_RULE(inv, META("{\"key\": \"general.author\", \"exists\": "
			      "true}"),
		    "metadata key 'general.author' is missing");
	EXPECT_RULE(inv, META("{\"key\": \"general.author\", \"exists\": "
			      "false}"), NULL);
	EXPECT_RULE(inv, META("{\"key\": \"general.license\", \"exists\": "
			      "false}"),
		    "metadata key 'general.license' is present, exists is "
		    "false");
	EXPECT_RULE(inv, META("{\"key\": \"general.license\", \"equals\": "
			      "\"apache-2.0\"}"),
		    "metadata key 'general.license' is 'mit', equals "
		    "'apache-2.0'");
	EXPECT_RULE(inv, META("{\"key\": \"general.license\", \"matches\": "
			      "\"^(mit|apache-2\\\\.0)$\"}"), NULL);
	EXPECT_RULE(inv, META("{\"key\": \"general.license\", \"matches\": "
			      "\"^llama\"}"),
		    "metadata key 'general.license' is 'mit', matches "
		    "'^llama'");
	EXPECT_RULE(inv, META("{\"key\": \"general.license\", \"in\": "
			      "[\"apache-2.0\", \"mit\"]}"), NULL);
	EXPECT_RULE(inv, META("{\"key\": \"general.license\", \"in\": "
			      "[\"apache-2.0\", 3]}"),
		    "metadata key 'general.license' is 'mit', in "
		    "['apache-2.0', 3]");
	EXPECT_RULE(inv, META("{\"key\": \"llama.context_length\", \"min\": "
			      "32768}"),
		    "metadata key 'llama.context_length' is 8192, min is "
		    "32768");
	EXPECT_RULE(inv, META("{\"key\": \"llama.context_length\", \"min\": "
			      "4096, \"max\": 8192}"), NULL);
	EXPECT_RULE(inv, META("{\"key\": \"general.file_type\", \"equals\": "
			      "15}"), NULL);
	EXPECT_RULE(inv, META("{\"key\": \"general.flag\", \"equals\": "
			      "true}"), NULL);
	/* Numbers stored as strings (safetensors __metadata__) compare as
	 * numbers. */
	EXPECT_RULE(inv, META("{\"key\": \"count_str\", \"equals\": 42}"),
		    NULL);
	EXPECT_RULE(inv, META("{\"key\": \"count_str\", \"min\": 40}"), NULL);
	EXPECT_RULE(inv, META("{\"key\": \"general.license\", \"min\": 1}"),
		    "metadata key 'general.license' is 'mit', not a number");
	/* Several conditions in an array: each violated one is listed. */
	EXPECT_RULE(inv, META("[{\"key\": \"general.author\", \"exists\": "
			      "true}, {\"key\": \"general.license\", "
			      "\"equals\": \"mit\"}, {\"key\": "
			      "\"general.url\", \"exists\": true}]"),
		    "metadata key 'general.author' is missing; metadata key "
		    "'general.url' is missing");
#undef META
}

/* ---- the sample model and the documented examples ---------------------- */

static const char *
env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

/* Runs the example file docs/examples/<name> through the whole check
 * pipeline on inv and returns the detail of its one finding, or NULL. */
static const char *
run_example(struct qa_inventory *inv, const char *name, char *buf,
	    size_t len)
{
	char path[1024], err[1024];
	const struct qa_finding *f[8];
	struct qa_check_options opt = { 0 };
	struct qa_policy *p;
	uint32_t before = inv->n_findings, n;

	snprintf(path, sizeof(path), "%s/docs/examples/%s",
		 env_or("QA_SOURCE_ROOT", "."), name);
	p = qa_policy_load(path, err, sizeof(err));
	if (!p) {
		FAIL("example %s: %s", name, err);
		return "(load failed)";
	}
	opt.policy = p;
	qa_checks_run(inv, &opt);
	n = policy_findings(inv, f, 8);
	CHECK(n <= 1);
	if (n)
		snprintf(buf, len, "%s %s", f[0]->rule->id, f[0]->message);
	inv->n_findings = before;
	qa_policy_destroy(p);
	return n ? buf : NULL;
}

static void
test_examples_load(void)
{
	char dir[1024], path[1300], err[1024];
	struct dirent *e;
	int loaded = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/docs/examples",
		 env_or("QA_SOURCE_ROOT", "."));
	d = opendir(dir);
	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct qa_policy *p;
		size_t k = strlen(e->d_name);

		if (k < 5 || strcmp(e->d_name + k - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		p = qa_policy_load(path, err, sizeof(err));
		CHECKF(p != NULL, "docs example: %s", err);
		qa_policy_destroy(p);
		loaded++;
	}
	closedir(d);
	/* The five examples the issue lists, and the combined one. */
	CHECK(loaded >= 6);
}

static void
test_sample(void)
{
	char path[1024], err[1024], buf[1024], want[512], mib[32];
	struct qa_inventory *inv = NULL;
	struct stat st;
	int rc;

	snprintf(path, sizeof(path), "%s/sample/"
		 "sample-llama-3.2-1b-Q4_K_M.gguf",
		 env_or("QA_FIXTURES", "fixtures/out"));
	rc = qa_input_inspect(path, &inv, err, sizeof(err));
	if (!CHECKF(rc == 0, "sample: %s", err))
		return;
	/*
	 * gen_sample.c: per block attn_k, attn_output, attn_q, attn_v are
	 * the attention projections (attn_norm is a norm): 16 x 4 = 64, all
	 * Q4_K or Q6_K, none BF16/F16. In file order the first block's
	 * first tensor is attn_k.
	 */
	CHECK_STR(run_example(inv, "attention-bf16.json", buf, sizeof(buf)),
		  "attention-bf16 64 of 64 selected tensors violate dtype_in "
		  "[BF16, F16]: first 'blk.0.attn_k.weight' is Q4_K");
	/* Lowest type is Q4_K (4.5 bits), equal to the bound: passes. */
	CHECK(run_example(inv, "no-type-below-q4_k.json", buf, sizeof(buf))
	      == NULL);
	CHECK(run_example(inv, "file-size-30gb.json", buf, sizeof(buf)) ==
	      NULL);
	/* gen_sample.c writes general.license = "llama3.2". */
	CHECK(run_example(inv, "license-required.json", buf, sizeof(buf)) ==
	      NULL);
	/* A dense Llama neither declares nor ships MTP: its family never
	 * had a head to keep, so "present where the family has it" holds. */
	CHECK(run_example(inv, "mtp-present.json", buf, sizeof(buf)) == NULL);
	/* Combined: embeddings Q6_K (6.5625 >= 6), ffn_down of blocks 0 and
	 * 1 are Q6_K (use_more_bits: i < 16/8), no ternary type, llama,
	 * Q4_K_M declared, 5.18 bpw >= 4.8, context 131072 >= 32768. */
	CHECK(run_example(inv, "team-policy.json", buf, sizeof(buf)) == NULL);

	/* The file on disk is larger than 500 MB (decimal). */
	CHECK(stat(path, &st) == 0);
	snprintf(mib, sizeof(mib), "%.1f MiB",
		 (double)st.st_size / 1048576.0);
	snprintf(want, sizeof(want), "the files hold %lld bytes (%s), "
		 "file_bytes_max is 500MB", (long long)st.st_size, mib);
	CHECK(st.st_size > 500000000);
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"file_bytes_max\": "
		    "\"500MB\"}}", want);
	EXPECT_RULE(inv, "{\"id\": \"a\", \"require\": {\"metadata\": "
		    "{\"key\": \"general.license\", \"equals\": "
		    "\"llama3.2\"}}}", NULL);
	/*
	 * ffn_down is Q6_K where use_more_bits(i, 16) holds: i < 2,
	 * i >= 14, or (i - 2) % 3 == 2, i.e. blocks 0 1 4 7 10 13 14 15;
	 * the other 8 (2 3 5 6 8 9 11 12) are Q4_K at 4.5 bits < 5.
	 */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": "
		    "\"ffn_down\"}, \"require\": {\"min_bits\": 5}}",
		    "8 of 16 selected tensors violate min_bits 5: first "
		    "'blk.2.ffn_down.weight' is Q4_K (4.5 bits)");
	/* attn_v follows the same rule: 8 Q6_K; restricted to blocks
	 * 4..7 that is 4 and 7. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": "
		    "\"attn_v\", \"layers\": [4, 7], \"dtype\": [\"Q6_K\"]}, "
		    "\"require\": {\"count_min\": 2, \"count_max\": 2}}", NULL);
	/* mlp = ffn_gate + ffn_up + ffn_down: 48 tensors. */
	EXPECT_RULE(inv, "{\"id\": \"a\", \"select\": {\"role\": \"mlp\"}, "
		    "\"require\": {\"count_max\": 47}}",
		    "48 tensors selected, count_max is 47: first "
		    "'blk.0.ffn_down.weight'");
	qa_inventory_destroy(inv);
}

int
main(void)
{
	struct qa_inventory *inv;

	th_scratch("policy");
	test_errors();
	test_rules_and_overrides();
	inv = hand_inventory();
	test_eval_tensors(inv);
	test_eval_model(inv);
	test_eval_metadata(inv);
	qa_inventory_destroy(inv);
	test_examples_load();
	test_sample();
	return th_done("policy");
}
