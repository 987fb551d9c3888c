/* SPDX-License-Identifier: MIT */
/*
 * The Python source scan (pycode.h): a tokenizer after CPython's
 * Lib/tokenize.py in what it skips (comments, string literals with their
 * r/b/u/f prefixes and triple quotes, backslash continuations, newlines
 * inside brackets), and a few rules on top of its tokens. Linear in the
 * text; the only state that grows is the alias table, bounded below.
 */
#include "formats/pycode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 256
/* `import X as Y` aliases of watched modules kept; past this the scan
 * says so (a flood of aliases is itself obfuscation). */
#define ALIASES_MAX 4096

enum tk {
	T_EOF, T_NAME, T_DOT, T_LPAR, T_RPAR, T_OPEN, T_CLOSE, T_COMMA, T_EQ,
	T_NEWLINE, T_STRING, T_OTHER,
};

struct tok {
	enum tk k;
	size_t at, len;		/* the token's text */
	size_t body, body_len;	/* a string's contents */
	bool fstring;
	unsigned line;
};

struct lex {
	const char *s;
	size_t n, i;
	unsigned line;
	long depth;
	struct tok peeked;
	bool have_peek;
};

struct alias {
	char name[64];
	char target[NAME_MAX_LEN];
};

struct scan {
	struct lex lx;
	qa_py_hit_fn fn;
	void *ctx;
	size_t hits;
	struct alias *aliases;
	size_t n_aliases, cap_aliases;
	bool alias_flood;
};

const char *
qa_py_what_name(enum qa_py_what what)
{
	switch (what) {
	case QA_PY_PROCESS: return "process execution";
	case QA_PY_NETWORK: return "network access";
	case QA_PY_EVAL: return "code evaluation";
	case QA_PY_DESERIALIZE: return "unsafe deserialization";
	case QA_PY_FILES: return "file changes outside the cache";
	}
	return "?";
}

/* ---- tokens ---------------------------------------------------------------- */

static bool
name_start(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c >= 0x80;
}

static bool
name_char(unsigned char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* Whether s[0..n) is a string prefix (r, b, u, f and their pairs). */
static bool
string_prefix(const char *s, size_t n, bool *f)
{
	size_t i;

	*f = false;
	if (n == 0 || n > 2)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i] | 0x20;

		if (c != 'r' && c != 'b' && c != 'u' && c != 'f')
			return false;
		if (c == 'f')
			*f = true;
	}
	return true;
}

/* The string literal whose opening quote is at lx->i. */
static void
lex_string(struct lex *lx, struct tok *t)
{
	const char *s = lx->s;
	char q = s[lx->i];
	bool triple = lx->i + 2 < lx->n && s[lx->i + 1] == q &&
		      s[lx->i + 2] == q;
	size_t open = triple ? 3 : 1;

	lx->i += open;
	t->body = lx->i;
	while (lx->i < lx->n) {
		char c = s[lx->i];

		if (c == '\\' && lx->i + 1 < lx->n) {
			if (s[lx->i + 1] == '\n')
				lx->line++;
			lx->i += 2;
			continue;
		}
		if (c == '\n') {
			if (!triple)
				break;	/* unterminated: ends at the line */
			lx->line++;
		}
		if (c == q && (!triple || (lx->i + 2 < lx->n &&
					   s[lx->i + 1] == q &&
					   s[lx->i + 2] == q))) {
			t->body_len = lx->i - t->body;
			lx->i += triple ? 3 : 1;
			return;
		}
		lx->i++;
	}
	t->body_len = lx->i - t->body;
}

static struct tok
lex_next(struct lex *lx)
{
	struct tok t;
	const char *s = lx->s;

	if (lx->have_peek) {
		lx->have_peek = false;
		return lx->peeked;
	}
	memset(&t, 0, sizeof(t));
	for (;;) {
		unsigned char c;

		if (lx->i >= lx->n) {
			t.k = T_EOF;
			t.at = lx->n;
			t.line = lx->line;
			return t;
		}
		c = (unsigned char)s[lx->i];
		if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
			lx->i++;
			continue;
		}
		if (c == '\\' && lx->i + 1 < lx->n &&
		    (s[lx->i + 1] == '\n' || s[lx->i + 1] == '\r')) {
			lx->i += 2;
			if (s[lx->i - 1] == '\r' && lx->i < lx->n &&
			    s[lx->i] == '\n')
				lx->i++;
			lx->line++;
			continue;
		}
		if (c == '#') {
			while (lx->i < lx->n && s[lx->i] != '\n')
				lx->i++;
			continue;
		}
		if (c == '\n') {
			lx->i++;
			lx->line++;
			if (lx->depth > 0)
				continue;
			t.k = T_NEWLINE;
			t.line = lx->line - 1;
			return t;
		}
		break;
	}
	t.at = lx->i;
	t.line = lx->line;
	if (name_start((unsigned char)s[lx->i])) {
		bool f;

		while (lx->i < lx->n && name_char((unsigned char)s[lx->i]))
			lx->i++;
		t.len = lx->i - t.at;
		if (lx->i < lx->n && (s[lx->i] == '\'' || s[lx->i] == '"') &&
		    string_prefix(s + t.at, t.len, &f)) {
			t.k = T_STRING;
			t.fstring = f;
			lex_string(lx, &t);
			t.len = lx->i - t.at;
			return t;
		}
		t.k = T_NAME;
		return t;
	}
	if (s[lx->i] == '\'' || s[lx->i] == '"') {
		t.k = T_STRING;
		lex_string(lx, &t);
		t.len = lx->i - t.at;
		return t;
	}
	if (s[lx->i] >= '0' && s[lx->i] <= '9') {
		while (lx->i < lx->n && (name_char((unsigned char)s[lx->i]) ||
					 s[lx->i] == '.'))
			lx->i++;
		t.k = T_OTHER;
		t.len = lx->i - t.at;
		return t;
	}
	t.len = 1;
	switch (s[lx->i++]) {
	case '.': t.k = T_DOT; break;
	case '(': t.k = T_LPAR; lx->depth++; break;
	case '[': case '{': t.k = T_OPEN; lx->depth++; break;
	case ')': t.k = T_RPAR; lx->depth -= lx->depth > 0; break;
	case ']': case '}': t.k = T_CLOSE; lx->depth -= lx->depth > 0; break;
	case ',': t.k = T_COMMA; break;
	case ';': t.k = lx->depth > 0 ? T_OTHER : T_NEWLINE; break;
	case '=':
		if (lx->i < lx->n && s[lx->i] == '=') {
			lx->i++;
			t.len = 2;
			t.k = T_OTHER;
		} else {
			t.k = T_EQ;
		}
		break;
	default: t.k = T_OTHER; break;
	}
	return t;
}

static struct tok
lex_peek(struct lex *lx)
{
	if (!lx->have_peek) {
		lx->peeked = lex_next(lx);
		lx->have_peek = true;
	}
	return lx->peeked;
}

static bool
tok_is(const struct scan *sc, const struct tok *t, const char *word)
{
	size_t n = strlen(word);

	return t->k == T_NAME && t->len == n &&
	       memcmp(sc->lx.s + t->at, word, n) == 0;
}

/* ---- what is looked for ---------------------------------------------------- */

enum check {
	C_ANY,		/* any use of the name */
	C_CALL,		/* only a call of it */
	C_TORCH_LOAD,	/* unless weights_only=True is passed */
	C_YAML_LOAD,	/* unless a safe Loader is passed */
	C_NUMPY_LOAD,	/* only with allow_pickle=True */
	C_OPEN,		/* an absolute literal path in a write mode */
	C_GETATTR,	/* getattr on a watched module */
};

/* Names (after aliases), matched whole or as a prefix followed by '.'
 * when prefix is set. Module imports are matched against the same
 * table. */
static const struct {
	const char *name;
	enum qa_py_what what;
	enum check check;
	bool prefix;
} watched[] = {
	{ "os.system", QA_PY_PROCESS, C_ANY, false },
	{ "os.popen", QA_PY_PROCESS, C_ANY, false },
	{ "os.execl", QA_PY_PROCESS, C_ANY, false },
	{ "os.execle", QA_PY_PROCESS, C_ANY, false },
	{ "os.execlp", QA_PY_PROCESS, C_ANY, false },
	{ "os.execlpe", QA_PY_PROCESS, C_ANY, false },
	{ "os.execv", QA_PY_PROCESS, C_ANY, false },
	{ "os.execve", QA_PY_PROCESS, C_ANY, false },
	{ "os.execvp", QA_PY_PROCESS, C_ANY, false },
	{ "os.execvpe", QA_PY_PROCESS, C_ANY, false },
	{ "os.spawnl", QA_PY_PROCESS, C_ANY, false },
	{ "os.spawnv", QA_PY_PROCESS, C_ANY, false },
	{ "os.spawnlp", QA_PY_PROCESS, C_ANY, false },
	{ "os.spawnvp", QA_PY_PROCESS, C_ANY, false },
	{ "os.posix_spawn", QA_PY_PROCESS, C_ANY, false },
	{ "os.posix_spawnp", QA_PY_PROCESS, C_ANY, false },
	{ "os.fork", QA_PY_PROCESS, C_ANY, false },
	{ "os.forkpty", QA_PY_PROCESS, C_ANY, false },
	{ "subprocess", QA_PY_PROCESS, C_ANY, true },
	{ "pty", QA_PY_PROCESS, C_ANY, true },
	{ "commands", QA_PY_PROCESS, C_ANY, true },
	{ "ctypes", QA_PY_PROCESS, C_ANY, true },
	{ "cffi", QA_PY_PROCESS, C_ANY, true },
	{ "socket", QA_PY_NETWORK, C_ANY, true },
	{ "urllib", QA_PY_NETWORK, C_ANY, true },
	{ "urllib3", QA_PY_NETWORK, C_ANY, true },
	{ "requests", QA_PY_NETWORK, C_ANY, true },
	{ "http.client", QA_PY_NETWORK, C_ANY, true },
	{ "httpx", QA_PY_NETWORK, C_ANY, true },
	{ "aiohttp", QA_PY_NETWORK, C_ANY, true },
	{ "ftplib", QA_PY_NETWORK, C_ANY, true },
	{ "telnetlib", QA_PY_NETWORK, C_ANY, true },
	{ "smtplib", QA_PY_NETWORK, C_ANY, true },
	{ "paramiko", QA_PY_NETWORK, C_ANY, true },
	{ "websocket", QA_PY_NETWORK, C_ANY, true },
	{ "websockets", QA_PY_NETWORK, C_ANY, true },
	{ "eval", QA_PY_EVAL, C_ANY, false },
	{ "exec", QA_PY_EVAL, C_ANY, false },
	{ "compile", QA_PY_EVAL, C_CALL, false },
	{ "__import__", QA_PY_EVAL, C_ANY, false },
	{ "builtins", QA_PY_EVAL, C_ANY, true },
	{ "importlib.import_module", QA_PY_EVAL, C_ANY, false },
	{ "importlib.__import__", QA_PY_EVAL, C_ANY, false },
	{ "importlib.machinery", QA_PY_EVAL, C_ANY, true },
	{ "runpy", QA_PY_EVAL, C_ANY, true },
	{ "code.interact", QA_PY_EVAL, C_ANY, false },
	{ "getattr", QA_PY_EVAL, C_GETATTR, false },
	{ "pickle", QA_PY_DESERIALIZE, C_ANY, true },
	{ "cPickle", QA_PY_DESERIALIZE, C_ANY, true },
	{ "_pickle", QA_PY_DESERIALIZE, C_ANY, true },
	{ "marshal", QA_PY_DESERIALIZE, C_ANY, true },
	{ "dill", QA_PY_DESERIALIZE, C_ANY, true },
	{ "cloudpickle", QA_PY_DESERIALIZE, C_ANY, true },
	{ "shelve", QA_PY_DESERIALIZE, C_ANY, true },
	{ "joblib.load", QA_PY_DESERIALIZE, C_ANY, false },
	{ "torch.load", QA_PY_DESERIALIZE, C_TORCH_LOAD, false },
	{ "torch.serialization.load", QA_PY_DESERIALIZE, C_TORCH_LOAD, false },
	{ "yaml.load", QA_PY_DESERIALIZE, C_YAML_LOAD, false },
	{ "yaml.load_all", QA_PY_DESERIALIZE, C_YAML_LOAD, false },
	{ "yaml.unsafe_load", QA_PY_DESERIALIZE, C_ANY, false },
	{ "yaml.full_load", QA_PY_DESERIALIZE, C_ANY, false },
	{ "numpy.load", QA_PY_DESERIALIZE, C_NUMPY_LOAD, false },
	{ "open", QA_PY_FILES, C_OPEN, false },
	{ "shutil.rmtree", QA_PY_FILES, C_ANY, false },
	{ "os.remove", QA_PY_FILES, C_ANY, false },
	{ "os.unlink", QA_PY_FILES, C_ANY, false },
	{ "os.rmdir", QA_PY_FILES, C_ANY, false },
	{ "os.removedirs", QA_PY_FILES, C_ANY, false },
	{ "os.chmod", QA_PY_FILES, C_ANY, false },
	{ "os.chown", QA_PY_FILES, C_ANY, false },
	{ "os.symlink", QA_PY_FILES, C_ANY, false },
};

/* Modules whose aliases are followed (every table entry's first
 * component; numpy and torch for their loaders, os for its calls). */
static bool
watched_module(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(watched) / sizeof(watched[0]); i++) {
		const char *w = watched[i].name;
		size_t k = strcspn(w, ".");

		if (k == n && memcmp(w, name, n) == 0)
			return true;
	}
	return (n == 6 && memcmp(name, "shutil", 6) == 0) ||
	       (n == 2 && memcmp(name, "os", 2) == 0);
}

/* Names that, as a whole string literal, name a way to run something:
 * getattr(__builtins__, "ex" "ec") is caught by getattr, a string "system"
 * handed to anything else by this. */
static const char *const named_in_string[] = {
	"system", "popen", "Popen", "check_output", "getoutput", "execv",
	"execve", "__import__", "__builtins__", "__subclasses__",
	"__globals__", "import_module",
};

/* Attribute names that reach the interpreter's internals from any object
 * (the sandbox-escape chain x.__class__.__base__.__subclasses__()). */
static const char *const introspection[] = {
	"__builtins__", "__subclasses__", "__globals__", "__code__",
};

static int
match(const char *name, bool *prefix_hit)
{
	size_t i, n = strlen(name);

	for (i = 0; i < sizeof(watched) / sizeof(watched[0]); i++) {
		size_t k = strlen(watched[i].name);

		if (strcmp(name, watched[i].name) == 0) {
			*prefix_hit = false;
			return (int)i;
		}
		if (watched[i].prefix && n > k && name[k] == '.' &&
		    memcmp(name, watched[i].name, k) == 0) {
			*prefix_hit = true;
			return (int)i;
		}
	}
	return -1;
}

static void
hit(struct scan *sc, enum qa_py_what what, const char *name,
    const char *why, const struct tok *at)
{
	struct qa_py_hit h;

	h.what = what;
	h.name = name;
	h.why = why;
	h.line = at->line;
	h.offset = at->at;
	sc->hits++;
	if (sc->fn)
		sc->fn(sc->ctx, &h);
}

/* ---- aliases --------------------------------------------------------------- */

static const char *
alias_of(const struct scan *sc, const char *s, size_t n)
{
	size_t i;

	for (i = sc->n_aliases; i-- > 0;)
		if (strlen(sc->aliases[i].name) == n &&
		    memcmp(sc->aliases[i].name, s, n) == 0)
			return sc->aliases[i].target;
	return NULL;
}

static void
add_alias(struct scan *sc, const char *name, size_t n, const char *target,
	  const struct tok *at)
{
	struct alias *a;

	if (n >= sizeof(a->name) || strlen(target) >= sizeof(a->target) ||
	    !watched_module(target, strcspn(target, ".")))
		return;
	if (sc->n_aliases == ALIASES_MAX) {
		if (!sc->alias_flood)
			hit(sc, QA_PY_EVAL, target, "over 4096 import aliases "
			    "of watched modules: the rest are not followed",
			    at);
		sc->alias_flood = true;
		return;
	}
	if (sc->n_aliases == sc->cap_aliases) {
		size_t cap = sc->cap_aliases ? sc->cap_aliases * 2 : 16;
		struct alias *v = realloc(sc->aliases, cap * sizeof(*v));

		if (!v)
			return;
		sc->aliases = v;
		sc->cap_aliases = cap;
	}
	a = &sc->aliases[sc->n_aliases++];
	memcpy(a->name, name, n);
	a->name[n] = '\0';
	snprintf(a->target, sizeof(a->target), "%s", target);
}

/* ---- rules ----------------------------------------------------------------- */

/* Appends token text to buf (NUL-terminated, cap bytes); false when it
 * does not fit. */
static bool
append(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > cap)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
	return true;
}

/* The tokens of a call's arguments up to its closing parenthesis
 * (depth counted here: the lexer's own depth also counts brackets),
 * with what the checks want to know of them. */
struct call_args {
	bool weights_only_true, safe_loader, allow_pickle_true;
	bool abs_path, write_mode, first_is_watched;
	bool cut;		/* past ARGS_TOKENS_MAX: not all seen */
};

/* Tokens of one call's arguments looked at: the arguments are read
 * ahead on a copy of the lexer (the scan goes through them again, so a
 * call inside them is seen), and nested calls must not make the scan
 * quadratic. */
#define ARGS_TOKENS_MAX 4096

static void
read_args(const struct scan *sc_main, struct call_args *a)
{
	struct scan copy = *sc_main, *sc = &copy;
	long depth = 1;
	size_t arg = 0, tok_in_arg = 0, budget = ARGS_TOKENS_MAX;
	struct tok prev2, prev, t;

	memset(a, 0, sizeof(*a));
	memset(&prev, 0, sizeof(prev));
	prev2 = prev;
	(void)lex_next(&sc->lx);	/* the '(' */
	for (;;) {
		t = lex_next(&sc->lx);
		if (t.k == T_EOF)
			break;
		if (budget-- == 0) {
			a->cut = true;
			break;
		}
		if (t.k == T_LPAR || t.k == T_OPEN)
			depth++;
		if (t.k == T_RPAR || t.k == T_CLOSE) {
			if (--depth == 0)
				break;
		}
		if (depth == 1 && t.k == T_COMMA) {
			arg++;
			tok_in_arg = 0;
			prev2 = prev;
			prev = t;
			continue;
		}
		if (t.k == T_NAME && prev.k == T_EQ && prev2.k == T_NAME &&
		    tok_is(sc, &t, "True")) {
			if (tok_is(sc, &prev2, "weights_only"))
				a->weights_only_true = true;
			if (tok_is(sc, &prev2, "allow_pickle"))
				a->allow_pickle_true = true;
		}
		if (tok_is(sc, &t, "SafeLoader") ||
		    tok_is(sc, &t, "CSafeLoader") ||
		    tok_is(sc, &t, "BaseLoader"))
			a->safe_loader = true;
		if (depth == 1 && t.k == T_STRING && !t.fstring) {
			const char *b = sc->lx.s + t.body;

			if (arg == 0 && tok_in_arg == 0 && t.body_len > 0 &&
			    (b[0] == '/' || b[0] == '~' || b[0] == '\\' ||
			     (t.body_len > 2 && b[1] == ':')))
				a->abs_path = true;
			if (arg == 1 || (prev.k == T_EQ &&
					 tok_is(sc, &prev2, "mode"))) {
				size_t i;

				for (i = 0; i < t.body_len && i < 8; i++)
					if (strchr("wax+", b[i]))
						a->write_mode = true;
			}
		}
		if (depth == 1 && arg == 0 && tok_in_arg == 0 &&
		    t.k == T_NAME) {
			const char *al = alias_of(sc, sc->lx.s + t.at, t.len);
			char m[NAME_MAX_LEN];

			snprintf(m, sizeof(m), "%.*s", (int)t.len,
				 sc->lx.s + t.at);
			if (al)
				snprintf(m, sizeof(m), "%s", al);
			if (strcmp(m, "os") == 0 || strcmp(m, "builtins") == 0 ||
			    strcmp(m, "__builtins__") == 0 ||
			    strcmp(m, "subprocess") == 0 ||
			    strcmp(m, "sys") == 0 ||
			    strcmp(m, "importlib") == 0 ||
			    strcmp(m, "pty") == 0 || strcmp(m, "socket") == 0 ||
			    strcmp(m, "shutil") == 0)
				a->first_is_watched = true;
		}
		if (t.k != T_NEWLINE)
			tok_in_arg++;
		prev2 = prev;
		prev = t;
	}
}

/* name (resolved) used at token at; called when the next token is '('. */
static void
use(struct scan *sc, const char *name, bool bare, const struct tok *at)
{
	bool prefix_hit = false, called = lex_peek(&sc->lx).k == T_LPAR;
	int w = match(name, &prefix_hit);
	struct call_args a;

	if (w < 0)
		return;
	/* builtins only as bare names (x.eval() is a method, compile= a
	 * keyword); getattr and open likewise */
	if (!strchr(watched[w].name, '.') && !watched[w].prefix && !bare)
		return;
	if (!strchr(watched[w].name, '.') && !watched[w].prefix &&
	    lex_peek(&sc->lx).k == T_EQ)
		return;
	switch (watched[w].check) {
	case C_ANY:
		hit(sc, watched[w].what, name, NULL, at);
		return;
	case C_CALL:
		if (called)
			hit(sc, watched[w].what, name, NULL, at);
		return;
	default:
		break;
	}
	if (!called) {
		if (watched[w].check == C_TORCH_LOAD ||
		    watched[w].check == C_YAML_LOAD)
			hit(sc, watched[w].what, name, "referenced, not called: "
			    "its arguments cannot be seen", at);
		return;
	}
	read_args(sc, &a);
	switch (watched[w].check) {
	case C_TORCH_LOAD:
		if (a.cut)
			hit(sc, watched[w].what, name, "arguments too long to "
			    "read", at);
		else if (!a.weights_only_true)
			hit(sc, watched[w].what, name,
			    "without weights_only=True", at);
		break;
	case C_YAML_LOAD:
		if (!a.safe_loader)
			hit(sc, watched[w].what, name,
			    "without a SafeLoader", at);
		break;
	case C_NUMPY_LOAD:
		if (a.allow_pickle_true)
			hit(sc, watched[w].what, name, "with allow_pickle=True",
			    at);
		break;
	case C_OPEN:
		if (a.abs_path && a.write_mode)
			hit(sc, watched[w].what, name,
			    "an absolute path opened for writing", at);
		break;
	case C_GETATTR:
		if (a.first_is_watched)
			hit(sc, watched[w].what, name,
			    "an attribute of a watched module looked up by "
			    "name", at);
		break;
	default:
		break;
	}
}

/* Introspection attributes of one dotted name held back until the name
 * itself is reported. More than this many make a name longer than
 * NAME_MAX_LEN ("__code__" and its dot are 9 bytes), which is never
 * reported, so flushing them early keeps the order. */
#define PENDING_MAX 32

struct pending {
	size_t n;
	unsigned which[PENDING_MAX];
	struct tok at[PENDING_MAX];
};

static void
flush_pending(struct scan *sc, struct pending *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		hit(sc, QA_PY_EVAL, introspection[p->which[i]],
		    "interpreter internals reached through an attribute",
		    &p->at[i]);
	p->n = 0;
}

/* A dotted name starting at token first (a NAME): read whole, resolved
 * through the aliases, then checked. Hits come in text order: the name's
 * own (at its first token) before those of its attributes. */
static void
dotted(struct scan *sc, struct tok first, bool bare)
{
	char raw[NAME_MAX_LEN], name[NAME_MAX_LEN];
	size_t len = 0, head;
	bool fits = true;
	const char *al;
	struct pending pend;

	pend.n = 0;

	raw[0] = '\0';
	fits = append(raw, sizeof(raw), &len, sc->lx.s + first.at, first.len);
	for (;;) {
		struct tok d = lex_peek(&sc->lx), nm;
		size_t i;

		if (d.k != T_DOT)
			break;
		(void)lex_next(&sc->lx);
		nm = lex_next(&sc->lx);
		if (nm.k != T_NAME) {
			sc->lx.peeked = nm;
			sc->lx.have_peek = true;
			break;
		}
		for (i = 0; i < sizeof(introspection) /
			    sizeof(introspection[0]); i++)
			if (tok_is(sc, &nm, introspection[i])) {
				if (pend.n == PENDING_MAX)
					flush_pending(sc, &pend);
				pend.which[pend.n] = (unsigned)i;
				pend.at[pend.n++] = nm;
			}
		fits = fits && append(raw, sizeof(raw), &len, ".", 1) &&
		       append(raw, sizeof(raw), &len, sc->lx.s + nm.at,
			      nm.len);
	}
	if (!fits) {
		flush_pending(sc, &pend);
		return;
	}
	head = strcspn(raw, ".");
	al = bare ? alias_of(sc, raw, head) : NULL;
	if (al)
		snprintf(name, sizeof(name), "%s%s", al, raw + head);
	else
		snprintf(name, sizeof(name), "%s", raw);
	use(sc, name, bare, &first);
	flush_pending(sc, &pend);
}

/* import a.b as c, d */
static void
import_stmt(struct scan *sc)
{
	for (;;) {
		char mod[NAME_MAX_LEN];
		size_t len = 0;
		struct tok t = lex_next(&sc->lx), first = t;
		bool fits = true, prefix_hit;
		int w;

		if (t.k != T_NAME)
			return;
		mod[0] = '\0';
		fits = append(mod, sizeof(mod), &len, sc->lx.s + t.at, t.len);
		while (lex_peek(&sc->lx).k == T_DOT) {
			(void)lex_next(&sc->lx);
			t = lex_next(&sc->lx);
			if (t.k != T_NAME)
				return;
			fits = fits && append(mod, sizeof(mod), &len, ".", 1) &&
			       append(mod, sizeof(mod), &len,
				      sc->lx.s + t.at, t.len);
		}
		w = fits ? match(mod, &prefix_hit) : -1;
		if (w >= 0 && watched[w].prefix)
			hit(sc, watched[w].what, mod, "imported", &first);
		t = lex_peek(&sc->lx);
		if (tok_is(sc, &t, "as")) {
			(void)lex_next(&sc->lx);
			t = lex_next(&sc->lx);
			if (t.k == T_NAME && fits)
				add_alias(sc, sc->lx.s + t.at, t.len, mod,
					  &first);
		}
		if (lex_peek(&sc->lx).k != T_COMMA)
			return;
		(void)lex_next(&sc->lx);
	}
}

/* from a.b import c as d, e   (relative imports are the model's own) */
static void
from_stmt(struct scan *sc)
{
	char mod[NAME_MAX_LEN];
	size_t len = 0;
	struct tok t = lex_next(&sc->lx), first = t;
	bool fits = true, prefix_hit;
	int w;

	if (t.k != T_NAME)
		return;		/* from . import x, from .m import y */
	mod[0] = '\0';
	fits = append(mod, sizeof(mod), &len, sc->lx.s + t.at, t.len);
	while (lex_peek(&sc->lx).k == T_DOT) {
		(void)lex_next(&sc->lx);
		t = lex_next(&sc->lx);
		if (t.k != T_NAME)
			return;
		fits = fits && append(mod, sizeof(mod), &len, ".", 1) &&
		       append(mod, sizeof(mod), &len, sc->lx.s + t.at, t.len);
	}
	if (!fits)
		return;
	t = lex_next(&sc->lx);
	if (!tok_is(sc, &t, "import"))
		return;
	w = match(mod, &prefix_hit);
	if (w >= 0 && watched[w].prefix)
		hit(sc, watched[w].what, mod, "imported", &first);
	for (;;) {
		char full[NAME_MAX_LEN];
		struct tok nm = lex_next(&sc->lx), as;
		int k;

		if (nm.k == T_LPAR || nm.k == T_COMMA)
			continue;
		if (nm.k == T_OTHER && sc->lx.s[nm.at] == '*') {
			if (strcmp(mod, "os") == 0 ||
			    strcmp(mod, "builtins") == 0)
				hit(sc, mod[0] == 'o' ? QA_PY_PROCESS :
				    QA_PY_EVAL, mod, "star import: its calls "
				    "are reachable by bare names", &nm);
			return;
		}
		if (nm.k != T_NAME)
			return;
		snprintf(full, sizeof(full), "%s.%.*s", mod, (int)nm.len,
			 sc->lx.s + nm.at);
		k = match(full, &prefix_hit);
		if (k >= 0 && !watched[k].prefix &&
		    (watched[k].check == C_ANY || watched[k].check == C_CALL))
			hit(sc, watched[k].what, full, "imported", &nm);
		as = lex_peek(&sc->lx);
		if (tok_is(sc, &as, "as")) {
			(void)lex_next(&sc->lx);
			as = lex_next(&sc->lx);
			if (as.k == T_NAME)
				add_alias(sc, sc->lx.s + as.at, as.len, full,
					  &nm);
		} else {
			add_alias(sc, sc->lx.s + nm.at, nm.len, full, &nm);
		}
	}
}

/* An f-string's text: its {...} parts are code, searched here for the
 * calls that matter most (a full tokenization of nested expressions is
 * more than a scan needs). */
static void
fstring(struct scan *sc, const struct tok *t)
{
	static const char *const calls[] = {
		"eval(", "exec(", "__import__(", "system(", "popen(",
		"Popen(", "compile(",
	};
	const char *b = sc->lx.s + t->body;
	size_t i, k;

	for (i = 0; i < t->body_len; i++) {
		if (b[i] != '{')
			continue;
		for (k = 0; k < sizeof(calls) / sizeof(calls[0]); k++) {
			size_t j, n = strlen(calls[k]);

			for (j = i; j + n <= t->body_len && b[j] != '}'; j++)
				if (memcmp(b + j, calls[k], n) == 0 &&
				    (j == 0 || !name_char((unsigned char)
							  b[j - 1]))) {
					hit(sc, QA_PY_EVAL, calls[k],
					    "inside an f-string expression", t);
					break;
				}
		}
	}
}

static void
string_token(struct scan *sc, const struct tok *t)
{
	size_t k;

	if (t->fstring) {
		fstring(sc, t);
		return;
	}
	for (k = 0; k < sizeof(named_in_string) /
		    sizeof(named_in_string[0]); k++)
		if (strlen(named_in_string[k]) == t->body_len &&
		    memcmp(sc->lx.s + t->body, named_in_string[k],
			   t->body_len) == 0)
			hit(sc, QA_PY_EVAL, named_in_string[k],
			    "named in a string literal", t);
}

size_t
qa_py_scan(const char *text, size_t len, qa_py_hit_fn fn, void *ctx)
{
	struct scan sc;
	struct tok prev;
	bool line_start = true;

	memset(&sc, 0, sizeof(sc));
	sc.lx.s = text;
	sc.lx.n = len;
	sc.lx.line = 1;
	sc.fn = fn;
	sc.ctx = ctx;
	memset(&prev, 0, sizeof(prev));
	prev.k = T_NEWLINE;
	for (;;) {
		struct tok t = lex_next(&sc.lx);

		if (t.k == T_EOF)
			break;
		if (t.k == T_NAME && line_start && tok_is(&sc, &t, "import")) {
			import_stmt(&sc);
		} else if (t.k == T_NAME && line_start &&
			   tok_is(&sc, &t, "from")) {
			from_stmt(&sc);
		} else if (t.k == T_NAME) {
			bool bare = prev.k != T_DOT && !tok_is(&sc, &prev, "def") &&
				    !tok_is(&sc, &prev, "class");
			size_t i;

			for (i = 0; i < sizeof(introspection) /
				    sizeof(introspection[0]); i++)
				if (tok_is(&sc, &t, introspection[i]))
					hit(&sc, QA_PY_EVAL, introspection[i],
					    "interpreter internals", &t);
			if (prev.k != T_DOT)
				dotted(&sc, t, bare);
		} else if (t.k == T_STRING) {
			string_token(&sc, &t);
		}
		/* a statement starts after a newline, ';' or ':' (if x:
		 * import os), and after an indent */
		line_start = t.k == T_NEWLINE ||
			     (t.k == T_OTHER && sc.lx.s[t.at] == ':');
		prev = t;
	}
	free(sc.aliases);
	return sc.hits;
}
