/* SPDX-License-Identifier: MIT */
/*
 * The Jinja interpreter's lexer (see jinja.h): one {{ }} or {% %} block
 * into tokens, strings decoded with Python's escapes as Jinja decodes
 * them, brace nesting as Jinja's lexer counts it. The first walk hands
 * every token to the client's token hook (the lexical checks).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QA_JINJA_INTERNAL
#include "analysis/jinja_int.h"
#include "core/escape.h"
#include "core/units.h"

bool
qa_jinja_tok_is(const struct qa_jinja_token *k, enum qa_jinja_tok_kind kind, const char *s)
{
	size_t n = strlen(s);

	return k->kind == kind && k->n == n && memcmp(k->s, s, n) == 0;
}

/* ---- lexing ------------------------------------------------------------ */

static void
lit_put(struct qa_jinja_token *k, char c)
{
	if (k->lit_len < QA_JINJA_MAX_LIT)
		k->lit[k->lit_len++] = c;
	else
		k->lit_long = true;
}

/*
 * Lexes a string literal at t[*i] (the opening quote) with Python's
 * escapes, as Jinja decodes them (unicode-escape). The value goes to the
 * pool when it has escapes (else it points into the template). Returns
 * false when it is unterminated.
 */
static bool
lex_string(struct qa_jinja *sc, size_t *i, struct qa_jinja_token *k)
{
	const char *t = sc->t;
	size_t len = sc->len, p = *i + 1, end, o = 0;
	char q = t[*i];
	bool esc = false;
	char *out = NULL;

	k->kind = QA_JT_STR;
	for (end = p; end < len && t[end] != q; end++)
		if (t[end] == '\\') {
			esc = true;
			end++;
		}
	if (end >= len)
		return false;
	if (esc) {
		/* decoded is never longer than the source, plus UTF-8 */
		out = qa_jinja_pool_alloc(&sc->pool, (end - p) * 2 + 4);
		if (!out)
			k->no_value = true;
	}
	while (p < end) {
		char c = t[p];
		char u[4];
		size_t un;

		if (c == '%' && p + 1 < end && t[p + 1] == 'c')
			k->pct_c = true;
		if (c != '\\' || p + 1 >= end) {
			lit_put(k, c);
			if (out)
				out[o++] = c;
			p++;
			continue;
		}
		c = t[p + 1];
		if (c == 'x' || c == 'u' || c == 'U') {
			size_t nd = c == 'x' ? 2 : c == 'u' ? 4 : 8, d;
			unsigned long v = 0;

			for (d = 0; d < nd && p + 2 + d < end &&
			     qa_hex_digit(t[p + 2 + d]) >= 0; d++)
				v = v * 16 + (unsigned long)qa_hex_digit(t[p + 2 + d]);
			p += 2 + d;
			if (v == '_')
				k->esc_underscore = true;
			un = qa_utf8_encode(u, v);
		} else if (c >= '0' && c <= '7') {
			unsigned long v = 0;
			unsigned d;

			for (d = 0; d < 3 && p + 1 + d < end &&
			     t[p + 1 + d] >= '0' && t[p + 1 + d] <= '7'; d++)
				v = v * 8 + (unsigned long)(t[p + 1 + d] - '0');
			p += 1 + d;
			if (v == '_')
				k->esc_underscore = true;
			un = qa_utf8_encode(u, v);
		} else if (c == 'N' && p + 2 < end && t[p + 2] == '{') {
			const char *e = memchr(t + p, '}', end - p);
			size_t nlen = e ? (size_t)(e - (t + p + 3)) : 0;

			if (e && nlen == 8 && memcmp(t + p + 3, "LOW LINE", 8) == 0) {
				k->esc_underscore = true;
				u[0] = '_';
			} else {
				u[0] = '?';
			}
			un = 1;
			p = e ? (size_t)(e - t) + 1 : end;
		} else {
			un = 1;
			switch (c) {
			case 'n': u[0] = '\n'; break;
			case 't': u[0] = '\t'; break;
			case 'r': u[0] = '\r'; break;
			case 'a': u[0] = '\a'; break;
			case 'b': u[0] = '\b'; break;
			case 'f': u[0] = '\f'; break;
			case 'v': u[0] = '\v'; break;
			case '\n': un = 0; break;
			case '\\': case '\'': case '"': u[0] = c; break;
			default: u[0] = '\\'; u[1] = c; un = 2; break;
			}
			p += 2;
		}
		for (size_t x = 0; x < un; x++) {
			lit_put(k, u[x]);
			if (out)
				out[o++] = u[x];
		}
	}
	if (esc) {
		k->val.p = out;
		k->val.n = out ? o : 0;
	} else {
		k->val.p = t + *i + 1;
		k->val.n = end - (*i + 1);
	}
	*i = end + 1;
	return true;
}

static const char *const two_char_ops[] = {
	"**", "//", "==", "!=", "<=", ">=",
};

/*
 * Lexes one {{ }} or {% %} block starting at t[i] (after the opener)
 * into sc->toks (the first MAX_BLOCK_TOKENS), running the lexical checks
 * on the first walk. Returns the offset after the closer; *is_raw is set
 * for {% raw %}, *truncated when tokens were not kept.
 */
size_t
qa_jinja_lex_block(struct qa_jinja *sc, size_t i, char closer, bool *is_raw,
	  bool *truncated)
{
	const char *t = sc->t;
	size_t len = sc->len;
	int depth = 0;
	bool first = true;
	struct qa_jinja_token k;

	sc->n_toks = 0;
	*is_raw = false;
	*truncated = false;
	while (i < len) {
		char c = t[i];

		if (qa_jinja_is_space(c)) {
			i++;
			continue;
		}
		if (depth == 0 && c == closer && i + 1 < len && t[i + 1] == '}') {
			i += 2;
			break;
		}
		memset(&k, 0, sizeof(k));
		k.pos = i;
		if (c == '\'' || c == '"') {
			if (!lex_string(sc, &i, &k)) {
				i = len;
				break;
			}
		} else if (c >= '0' && c <= '9') {
			uint64_t v = 0;
			bool ok = true;

			k.kind = QA_JT_NUM;
			k.s = t + i;
			while (i < len && (qa_jinja_is_ident_char(t[i]) || t[i] == '.')) {
				if (t[i] >= '0' && t[i] <= '9') {
					if (v > (uint64_t)INT64_MAX / 10)
						ok = false;
					else
						v = v * 10 + (uint64_t)(t[i] - '0');
				} else if (t[i] != '_') {
					ok = false;
				}
				i++;
			}
			k.n = (size_t)(t + i - k.s);
			k.num_known = ok && v <= (uint64_t)INT64_MAX;
			k.num = (int64_t)v;
		} else if (qa_jinja_is_ident_start(c) || (unsigned char)c >= 0x80) {
			/* Jinja names are Python identifiers, letters
			 * beyond ASCII included */
			k.kind = QA_JT_NAME;
			k.s = t + i;
			while (i < len && (qa_jinja_is_ident_char(t[i]) ||
					   (unsigned char)t[i] >= 0x80))
				i++;
			k.n = (size_t)(t + i - k.s);
			if (first && closer == '%' && qa_jinja_tok_is(&k, QA_JT_NAME, "raw"))
				*is_raw = true;
			first = false;
		} else {
			size_t o;

			k.kind = QA_JT_OP;
			k.s = t + i;
			k.n = 1;
			for (o = 0; o < sizeof(two_char_ops) /
			     sizeof(two_char_ops[0]); o++)
				if (i + 1 < len &&
				    memcmp(t + i, two_char_ops[o], 2) == 0)
					k.n = 2;
			/* whitespace control ({%- raw %}) is not the
			 * block's first word */
			if (c != '-' && c != '+')
				first = false;
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if ((c == ')' || c == ']' || c == '}') && depth > 0)
				depth--;
			i += k.n;
		}
		if (k.kind != QA_JT_OP)
			first = false;
		if (sc->lexical && sc->hooks.token)
			sc->hooks.token(sc->hooks.ctx, &k);
		if (sc->n_toks >= MAX_BLOCK_TOKENS) {
			*truncated = true;
			continue;
		}
		if (sc->n_toks == sc->cap_toks) {
			size_t nc = sc->cap_toks ? sc->cap_toks * 2 : 256;
			struct etok *nt = realloc(sc->toks, nc * sizeof(*nt));

			if (!nt) {
				*truncated = true;
				continue;
			}
			sc->toks = nt;
			sc->cap_toks = nc;
		}
		sc->toks[sc->n_toks++] = (struct etok){
			.kind = k.kind, .no_value = k.no_value,
			.num_known = k.num_known, .pos = k.pos, .n = k.n,
			.s = k.s, .val = k.val, .num = k.num,
		};
	}
	if (sc->lexical && sc->hooks.token)
		sc->hooks.token(sc->hooks.ctx, NULL);
	return i;
}

