/* SPDX-License-Identifier: MIT */
/*
 * Credentials in metadata (secrets.h): a scan by prefix, linear in the
 * text (each position is tried against a fixed list), and in-place
 * masking that keeps every length.
 */
#include "core/secrets.h"

#include <string.h>

#include "core/diag.h"
#include "core/inventory.h"

/* Secrets reported per string (all are masked). */
#define REPORT_PER_STRING 16
/* Bytes of a PEM body masked after its header. */
#define PEM_BODY_MAX 16384
/* Longest token body read: no issuer's token is near it (a GitHub
 * fine-grained token is 93 characters, an OpenAI project key about 164),
 * and the bound keeps a scan that tries every position linear (a run of
 * "glpat-a-glpat-a-..." would otherwise be read again from each prefix). */
#define TOKEN_BODY_MAX 512

static bool
alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* Token prefixes; the body is [A-Za-z0-9] plus extra, min to max bytes
 * (max 0: no bound), mixed: at least two of lower, upper, digit. */
static const struct {
	const char *prefix;
	const char *kind;
	const char *extra;
	size_t min, max;
	bool mixed;
} tokens[] = {
	{ "hf_", "Hugging Face token", "", 30, 0, true },
	{ "sk-ant-", "Anthropic API key", "_-", 20, 0, true },
	{ "sk-proj-", "OpenAI API key", "_-", 20, 0, true },
	{ "sk-", "OpenAI API key", "", 20, 0, true },
	{ "AKIA", "AWS access key id", "", 16, 16, false },
	{ "ASIA", "AWS temporary access key id", "", 16, 16, false },
	{ "ghp_", "GitHub token", "", 36, 0, true },
	{ "gho_", "GitHub OAuth token", "", 36, 0, true },
	{ "ghu_", "GitHub token", "", 36, 0, true },
	{ "ghs_", "GitHub token", "", 36, 0, true },
	{ "ghr_", "GitHub refresh token", "", 36, 0, true },
	{ "github_pat_", "GitHub token", "_", 22, 0, true },
	{ "glpat-", "GitLab token", "_-", 20, 0, true },
	{ "xoxb-", "Slack token", "-", 10, 0, false },
	{ "xoxp-", "Slack token", "-", 10, 0, false },
	{ "xoxa-", "Slack token", "-", 10, 0, false },
	{ "xoxr-", "Slack token", "-", 10, 0, false },
	{ "xoxs-", "Slack token", "-", 10, 0, false },
	{ "AIza", "Google API key", "_-", 35, 35, false },
};

/* Query parameters whose value is a signature (presigned links). */
static const struct {
	const char *name;
	const char *kind;
} signatures[] = {
	{ "X-Amz-Signature=", "presigned S3 link" },
	{ "X-Amz-Credential=", "presigned S3 link" },
	{ "X-Goog-Signature=", "signed Google Cloud Storage link" },
	{ "sig=", "Azure shared access signature link" },
};

/*
 * A token's body may hold '*': a token already masked (this report's own
 * redaction, or a document that shows "hf_****") is read as one whole
 * token, so that masking never shortens a body into a new exact-length
 * match (an AIza run one character too long). The minimum counts only
 * the characters that are not '*', so a masked token is no new finding.
 */
static bool
token_at(const char *s, size_t n, size_t i, struct qa_secret *out)
{
	size_t k;

	if (i > 0 && (alnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))
		return false;
	for (k = 0; k < sizeof(tokens) / sizeof(tokens[0]); k++) {
		size_t p = strlen(tokens[k].prefix), j = i + p, stars = 0;
		bool lo = false, up = false, dig = false;

		if (n - i < p || memcmp(s + i, tokens[k].prefix, p) != 0)
			continue;
		while (j < n && j - i - p <= TOKEN_BODY_MAX &&
		       (alnum((unsigned char)s[j]) || s[j] == '*' ||
			(s[j] && strchr(tokens[k].extra, s[j])))) {
			unsigned char c = (unsigned char)s[j];

			lo |= c >= 'a' && c <= 'z';
			up |= c >= 'A' && c <= 'Z';
			dig |= c >= '0' && c <= '9';
			stars += c == '*';
			j++;
		}
		if (j - i - p - stars < tokens[k].min ||
		    j - i - p > TOKEN_BODY_MAX ||
		    (tokens[k].max && j - i - p != tokens[k].max) ||
		    (tokens[k].mixed && (int)lo + (int)up + (int)dig < 2))
			continue;
		out->at = i;
		out->len = j - i;
		out->keep = p;
		out->kind = tokens[k].kind;
		return true;
	}
	return false;
}

static bool
url_stop(char c)
{
	return c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' ||
	       c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '<' ||
	       c == '>' || c == '\\' || c == '`' || c == ')' || c == '\0';
}

static bool token_at(const char *s, size_t n, size_t i,
		     struct qa_secret *out);
static bool signature_at(const char *s, size_t n, size_t i,
			 struct qa_secret *out);

/*
 * scheme://user:password@host: the password is the secret. The userinfo
 * ends at the last '@' of the authority, as the WHATWG URL parser reads
 * it (an '@' before it is part of the password: user:pa@ss@host has the
 * password "pa@ss"). When the user part holds a secret of its own
 * (https://ghp_...:x-oauth-basic@github.com), the whole userinfo is the
 * secret: the scan moves on past the password, so the token would
 * otherwise stay in the text (found by fuzz_secrets: redaction left a
 * secret behind).
 */
static bool
userinfo_at(const char *s, size_t n, size_t i, struct qa_secret *out)
{
	struct qa_secret inner;
	size_t j, k, colon = 0, at = 0;

	if (n - i < 3 || memcmp(s + i, "://", 3) != 0)
		return false;
	for (j = i + 3; j < n && j - i < 512 && !url_stop(s[j]); j++) {
		if (s[j] == ':' && !colon)
			colon = j;
		if (s[j] == '@')
			at = j;
	}
	if (!at || !colon || colon > at || at - colon < 2)
		return false;
	out->at = colon + 1;
	out->len = at - colon - 1;
	out->keep = 0;
	out->kind = "password in a link";
	for (k = i + 3; k < colon; k++)
		if (token_at(s, n, k, &inner) || signature_at(s, n, k, &inner)) {
			out->at = i + 3;
			out->len = at - i - 3;
			break;
		}
	return true;
}

static bool
signature_at(const char *s, size_t n, size_t i, struct qa_secret *out)
{
	size_t k;

	for (k = 0; k < sizeof(signatures) / sizeof(signatures[0]); k++) {
		size_t p = strlen(signatures[k].name), j = i + p;

		if (n - i < p || memcmp(s + i, signatures[k].name, p) != 0)
			continue;
		/* sig= only as a query parameter */
		if (k == 3 && (i == 0 || (s[i - 1] != '&' && s[i - 1] != '?')))
			continue;
		while (j < n && j - i - p < 2048 && !url_stop(s[j]) &&
		       s[j] != '&')
			j++;
		if (j - i - p < 16)
			continue;
		out->at = i + p;
		out->len = j - i - p;
		out->keep = 0;
		out->kind = signatures[k].kind;
		return true;
	}
	return false;
}

static bool
pem_at(const char *s, size_t n, size_t i, struct qa_secret *out)
{
	static const char begin[] = "-----BEGIN ", tail[] = "PRIVATE KEY-----";
	size_t j, k, end;

	if (n - i < sizeof(begin) - 1 || memcmp(s + i, begin,
						sizeof(begin) - 1) != 0)
		return false;
	for (j = i + sizeof(begin) - 1; j < n && j - i < 64 && s[j] != '\n';
	     j++)
		if (n - j >= sizeof(tail) - 1 &&
		    memcmp(s + j, tail, sizeof(tail) - 1) == 0)
			break;
	if (j >= n || n - j < sizeof(tail) - 1 ||
	    memcmp(s + j, tail, sizeof(tail) - 1) != 0)
		return false;
	j += sizeof(tail) - 1;
	end = n - j > PEM_BODY_MAX ? j + PEM_BODY_MAX : n;
	for (k = j; k + 5 <= end; k++)
		if (memcmp(s + k, "-----", 5) == 0)
			break;
	if (k + 5 > end)
		k = end;
	out->at = j;
	out->len = k - j;
	out->keep = 0;
	out->kind = "private key";
	return out->len > 0;
}

/* Every pattern starts with one of these bytes. */
static bool
may_start(char c)
{
	return c != '\0' && strchr("hsAgxXs-:", c) != NULL;
}

static bool
match_at(const char *s, size_t n, size_t i, struct qa_secret *out)
{
	return may_start(s[i]) &&
	       (token_at(s, n, i, out) || userinfo_at(s, n, i, out) ||
		signature_at(s, n, i, out) || pem_at(s, n, i, out));
}

/*
 * A match found at i may name a secret that starts later (a PEM body
 * after its header, a password after the scheme) or may run over the
 * start of another pattern (a token whose body swallows "-----BEGIN");
 * a walk that moves on past its end would step over the other one and
 * leave it in the text (found by fuzz_secrets: a Slack token inside a
 * PEM header survived redaction). So whatever matches inside the span
 * joins it: one secret from the first of them to the last byte of any.
 */
static void
join_overlaps(const char *s, size_t n, size_t i, struct qa_secret *out)
{
	size_t p, end = out->at + out->len;

	for (p = i + 1; p < end; p++) {
		struct qa_secret more;

		if (!match_at(s, n, p, &more))
			continue;
		if (more.at < out->at) {
			out->keep = more.at + more.keep <= out->at ?
				    more.keep : 0;
			out->at = more.at;
		} else if (more.at < out->at + out->keep) {
			out->keep = more.at - out->at;
		}
		if (more.at + more.len > end)
			end = more.at + more.len;
		out->len = end - out->at;
	}
}

bool
qa_secret_next(const char *s, size_t n, size_t from, struct qa_secret *out)
{
	size_t i;

	for (i = from; i < n; i++)
		if (match_at(s, n, i, out)) {
			join_overlaps(s, n, i, out);
			return true;
		}
	return false;
}

bool
qa_secret_keeps_byte(char c)
{
	return c == '*' || c == '&' || c == '-' || c == ':' || c == '@' ||
	       c == '=' || url_stop(c);
}

void
qa_secret_mask(char *s, const struct qa_secret *sec)
{
	size_t i;

	for (i = sec->keep; i < sec->len; i++)
		if (!qa_secret_keeps_byte(s[sec->at + i]))
			s[sec->at + i] = '*';
}

/* Scans s, reporting (where) and masking when mask. */
static void
scan(struct qa_inventory *inv, char *s, size_t n, bool mask,
     const char *file, int64_t base, const char *where)
{
	struct qa_secret sec;
	size_t from = 0, reported = 0;

	while (qa_secret_next(s, n, from, &sec)) {
		if (reported++ < REPORT_PER_STRING)
			qa_inv_finding(inv, QA6201, file,
				       base >= 0 ? base + (int64_t)sec.at : -1,
				       NULL, "%s holds a credential, %s "
				       "(%.*s%s%zu characters): %s; revoke it",
				       where, sec.kind, (int)sec.keep,
				       s + sec.at, sec.keep ? "..., " : "",
				       sec.len, mask ?
				       "redacted in this report" :
				       "not repeated here");
		if (mask)
			qa_secret_mask(s, &sec);
		from = sec.at + (sec.len ? sec.len : 1);
	}
}

void
qa_secrets_audit(struct qa_inventory *inv)
{
	uint32_t i;

	for (i = 0; i < inv->n_kvs; i++) {
		struct qa_kv *kv = &inv->kvs[i];
		const char *file;
		char *where;

		if (kv->value.type != QA_V_STRING || !kv->value.v.str.s)
			continue;
		file = kv->file < inv->n_files ? inv->files[kv->file].path :
		       NULL;
		where = qa_arena_printf(&inv->arena, "the metadata value %s",
					kv->key ? kv->key : "?");
		if (!where)
			return;
		/* the key's offset, not the value's: findings point there */
		scan(inv, (char *)kv->value.v.str.s, strlen(kv->value.v.str.s),
		     true, file, -1, where);
	}
	for (i = 0; i < inv->n_templates; i++) {
		struct qa_template *t = &inv->templates[i];
		char *where;

		if (!t->text)
			continue;
		where = qa_arena_printf(&inv->arena, "the chat template %s",
					t->label ? t->label : "");
		if (!where)
			return;
		scan(inv, (char *)t->text, (size_t)t->len, true, t->file, -1,
		     where);
	}
}

void
qa_secrets_in_text(struct qa_inventory *inv, const char *file,
		   const char *text, size_t n)
{
	struct qa_secret sec;
	size_t from = 0, reported = 0;

	while (qa_secret_next(text, n, from, &sec) &&
	       reported++ < REPORT_PER_STRING) {
		qa_inv_finding(inv, QA6201, file, (int64_t)sec.at, NULL,
			       "%s holds a credential, %s (%.*s%s%zu "
			       "characters): not repeated here; revoke it",
			       qa_path_base(file), sec.kind, (int)sec.keep,
			       text + sec.at, sec.keep ? "..., " : "",
			       sec.len);
		from = sec.at + (sec.len ? sec.len : 1);
	}
}
