/* SPDX-License-Identifier: MIT */
/*
 * Escaping of text that came from a model file, for every output path.
 *
 * Tensor names, metadata values, file names and the finding messages
 * built from them are chosen by whoever made the model. Written raw they
 * could drive the terminal (ESC ] 52 writes the clipboard, ESC [ 2J
 * clears the screen, a bare CR overwrites a line, the C1 control U+009B
 * is a one-character CSI on some terminals), reorder what a reader sees
 * (Unicode bidi overrides and isolates: "Trojan Source"), or give orders
 * to a CI runner (GitHub's "::error::" and "::add-mask::" at the start
 * of a line, "##[command]" and Azure's "##vso[" anywhere in one).
 *
 * One classifier, qa_esc_next(), decides what must not be written as it
 * is; each output format spells the escape its own way:
 *
 *   what                       text/Markdown   JSON        XML
 *   C0 control, DEL            \x1b            \u001b      U+FFFD (\t \n
 *                                                          \r: &#9;...)
 *   byte not valid UTF-8       \xff            U+FFFD      U+FFFD
 *   C1 control, bidi control,  \u202e          \u202e      &#x202e;
 *   line/paragraph separator
 *   ':' of "::", '#' of "##"   \x3a            \u003a      &#58;
 *
 * The last row breaks every "::" and "##" pair, so no line of any report
 * can start with "::" (GitHub trims the leading blanks first) and no
 * "##[" can appear, whatever the model holds and however a line is
 * wrapped. A backslash is left as it is (a name holding the four
 * characters \x1b reads like an escaped ESC: harmless).
 */
#ifndef QA_SRC_ESCAPE_H
#define QA_SRC_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum qa_esc_kind {
	QA_ESC_KEEP,		/* write the len bytes as they are */
	QA_ESC_CONTROL,		/* C0 control (< 0x20) or DEL; cp is it */
	QA_ESC_INVALID,		/* one byte that starts no valid UTF-8
				 * sequence; cp is the byte */
	QA_ESC_UNICODE,		/* a code point never shown raw: C1
				 * controls U+0080-U+009F, bidi controls
				 * (U+061C, U+200E-U+200F, U+202A-U+202E,
				 * U+2066-U+2069), U+2028, U+2029 */
	QA_ESC_MARKER,		/* ':' followed by ':', '#' followed by
				 * '#': half of a CI log command marker */
};

struct qa_esc_char {
	enum qa_esc_kind kind;
	uint32_t cp;		/* the code point, or the byte */
	size_t len;		/* bytes of the input it covers (>= 1) */
};

/*
 * Length of the valid UTF-8 sequence at s, with its code point in *cp;
 * 0 when the byte at s starts none (overlong forms, surrogates, code
 * points past U+10FFFF, stray continuation bytes, sequences cut short).
 * A NUL is a sequence of length 1.
 */
size_t qa_utf8_decode(const char *s, uint32_t *cp);

/* Writes cp as UTF-8 at out (1 to 4 bytes, returned); a value past
 * U+10FFFF is written as U+FFFD. */
size_t qa_utf8_encode(char *out, uint64_t cp);

/* Classifies the character at s, which must not be the terminating NUL. */
void qa_esc_next(const char *s, struct qa_esc_char *c);

/* True when s (NULL counts as clean) needs no escape at all. */
bool qa_esc_clean(const char *s);

/*
 * The run scanners, for writers that copy text in spans: the length of
 * the longest prefix of s that the text (or the JSON) spelling writes as
 * it is. s[run] is then the NUL or a character to escape, which
 * qa_esc_text_spell (qa_esc_json_spell) spells into out, with the input
 * bytes it covers in *len. The spell functions take only such a
 * character (after a run), never one the run would have kept.
 */
#define QA_ESC_SPELL_MAX 8
size_t qa_esc_text_run(const char *s);
size_t qa_esc_json_run(const char *s);
size_t qa_esc_text_spell(const char *s, char out[QA_ESC_SPELL_MAX],
			 size_t *len);
size_t qa_esc_json_spell(const char *s, char out[QA_ESC_SPELL_MAX],
			 size_t *len);

/*
 * The text spelling (terminals, logs, Markdown before its own markup
 * escapes): a malloc'd copy of s with every character qa_esc_next does
 * not keep replaced as in the table above; NULL when out of memory.
 */
char *qa_esc_text_dup(const char *s);
/* Writes s to f in the text spelling. NULL writes nothing. */
void qa_esc_text(FILE *f, const char *s);

/* Writes s as the inside of a JSON string literal (no quotes). */
void qa_esc_json(FILE *f, const char *s);

/*
 * Writes s as XML character data (attr false) or the inside of a
 * double-quoted attribute (attr true): & < > and, in attributes, " '
 * become entities; the controls XML 1.0 forbids, U+FFFE, U+FFFF and
 * invalid bytes become U+FFFD; tab, line feed and carriage return become
 * character references (a model cannot start a line of the file).
 */
void qa_esc_xml(FILE *f, const char *s, bool attr);

/*
 * Writes s as HTML text or the inside of a double- or single-quoted
 * attribute (the same spelling serves both): & < > " ' become entities,
 * and what the text spelling escapes (controls, invalid bytes, C1 and
 * bidi controls, line separators) is written visibly as that spelling
 * (\x1b, \u202e): a numeric reference would give the browser the very
 * character, and a bidi override would reorder what the reader sees.
 * The ':' of "::" and the '#' of "##" become references (&#58;), which
 * a browser shows as the character and a CI log does not obey.
 */
void qa_esc_html(FILE *f, const char *s);

/*
 * Writes s as inline Markdown (a table cell, a heading): the text
 * spelling, then a backslash before each character that would start
 * markup or break a table (\ ` * _ [ ] < > | ~ and a leading #), and &
 * as &amp;. A model cannot add HTML, links, images or table columns.
 */
void qa_esc_markdown(FILE *f, const char *s);

#endif /* QA_SRC_ESCAPE_H */
