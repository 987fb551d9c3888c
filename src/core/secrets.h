/* SPDX-License-Identifier: MIT */
/*
 * Credentials in model metadata: tokens, keys and links with secrets in
 * them that a publisher left in a GGUF string, a config, a chat template
 * or a model card (a training script's HF_TOKEN, a presigned S3 URL).
 * They are the publisher's leak, not an attack on the reader, but a
 * report that repeats them publishes them again (a CI artifact, a SARIF
 * upload): so each is a finding that names its kind and never its value,
 * and the strings the reports print are redacted in place.
 *
 * What is recognized (prefixes as each issuer documents them): Hugging
 * Face tokens (hf_ + 30 or more letters and digits), OpenAI keys (sk-,
 * sk-proj-), Anthropic keys (sk-ant-), AWS access key ids (AKIA, ASIA +
 * 16), GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_ + 36; github_pat_),
 * GitLab (glpat-), Slack (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-), Google API
 * keys (AIza + 35), PEM private keys (-----BEGIN ... PRIVATE KEY-----),
 * URLs with a password (scheme://user:password@host) and presigned URLs
 * (X-Amz-Signature=, X-Goog-Signature=, an Azure SAS sig=).
 */
#ifndef QA_CORE_SECRETS_H
#define QA_CORE_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

struct qa_inventory;

struct qa_secret {
	size_t at, len;		/* the secret's bytes in the text */
	size_t keep;		/* leading bytes that may be shown ("hf_") */
	const char *kind;	/* "Hugging Face token", ... */
};

/* The first secret in s[from..n), or false. */
bool qa_secret_next(const char *s, size_t n, size_t from,
		    struct qa_secret *out);

/* Overwrites the secret's bytes past keep with '*' (same length, so
 * offsets and lengths stay true), all but those qa_secret_keeps_byte
 * names. */
void qa_secret_mask(char *s, const struct qa_secret *sec);

/* Whether masking leaves c as it is: line ends, '*', and the bytes that
 * end a pattern (a link's '/', '?', '&', '@', ':', a quote, a space, a PEM
 * armour's '-'). Masking keeps them so that the masked text ends every
 * match where the original did: a secret that runs into another one's
 * span is masked as far, and no further, on a second reading (found by
 * fuzz_secrets: a signature whose '/' was masked ran on into the next
 * link). What they tell of a secret is where its punctuation was. */
bool qa_secret_keeps_byte(char c);

/*
 * Every string of the inventory that reports print (GGUF string
 * metadata, chat templates): each secret found is a finding (QA6201,
 * naming the key and the kind, never the value) and is masked in place.
 * Bounded: the first 16 secrets of a string are reported and all are
 * masked.
 */
void qa_secrets_audit(struct qa_inventory *inv);

/* The same for text read from a side file (a model card, a config) that
 * no report prints: findings only, at their offsets in file. */
void qa_secrets_in_text(struct qa_inventory *inv, const char *file,
			const char *text, size_t n);

#endif
