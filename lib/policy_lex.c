/*
 * policy_lex.c: the pre-scan of a config file.  See policy_internal.h.
 *
 * This follows libconfuse 3.3's lexer (src/lexer.l): '#' and a token
 * starting with "//" begin a line comment, "/ *" a block comment;
 * "..." strings take backslash escapes and expand ${VAR}; '...'
 * strings are literal except \\ and \'; unquoted strings stop at
 * space, #, quotes, = { } ( ) + , and '*' (which libconfuse silently
 * drops).  Where the two could read a file differently ("a//b" is one
 * value to libconfuse, "a/ *b" is not a comment), the pre-scan refuses
 * the file instead of guessing.  The statement parser below is only
 * for messages and provenance; libconfuse remains the parser of record.
 */
#include <stdio.h>
#include <string.h>

#include "policy_internal.h"

enum {
	T_EOF,
	T_STR,
	T_LBRACE,
	T_RBRACE,
	T_EQ,
	T_PLUSEQ,
	T_COMMA,
	T_BAD,
};

#define F_DOLLAR 1 /* '$' outside single quotes */
#define F_NULESC 2 /* "\0" or "\x0" in a double-quoted string */
#define F_UNTERM 4 /* unterminated string */
#define F_SLASH 8 /* "//" or "/ *" inside an unquoted value */

struct tok {
	int t;
	int line; /* where it starts */
	int fline; /* where the flagged character is */
	int flags;
	char bad; /* T_BAD: the character */
	const char *s; /* T_STR: text, raw */
	size_t len;
};

struct lexer {
	struct policy_lexctx *lx;
	const char *p, *end;
	char *blank; /* output: same offsets as the input */
	const char *base;
	int line;
	size_t nerr;
	struct tok la[3]; /* lookahead */
	int nla;
};

static void
mark_bad(struct lexer *L, int line)
{
	struct policy_lexctx *lx = L->lx;

	L->nerr++;
	if (lx->nbad < POLICY_MAX_ERRS)
		lx->bad_lines[lx->nbad++] = line;
}

#define lerr(L, line, ...)                                                     \
	do {                                                                   \
		char _m[1024];                                                 \
		snprintf(_m, sizeof(_m), __VA_ARGS__);                         \
		policy_err(                                                    \
		    (L)->lx->errs, "%s:%d: %s", (L)->lx->name, (line), _m);    \
		mark_bad((L), (line));                                         \
	} while (0)

bool
policy_lex_bad_line(const struct policy_lexctx *lx, int line)
{
	size_t i;

	for (i = 0; i < lx->nbad; i++)
		if (lx->bad_lines[i] == line)
			return true;
	return false;
}

/* dst = a b c, truncated to n bytes (keys are short; no warnings). */
static void
join(char *dst, size_t n, const char *a, const char *b, const char *c,
    size_t clen)
{
	size_t o = 0;
	const char *parts[3] = {a, b, c};
	size_t i;

	for (i = 0; i < 3; i++) {
		const char *s = parts[i];
		size_t k = 0, lim = i == 2 ? clen : (size_t)-1;

		while (k < lim && s[k] && o + 1 < n)
			dst[o++] = s[k++];
	}
	dst[o] = '\0';
}

static void
blank_range(struct lexer *L, const char *from, const char *to)
{
	for (; from < to; from++)
		if (*from != '\n')
			L->blank[from - L->base] = ' ';
}

static bool
unquoted_char(char c)
{
	return strchr(" \t\n\r#\"'={}()+,*", c) == NULL;
}

static void
flag(struct tok *t, int f, int line)
{
	if (!(t->flags & f) && t->fline == 0)
		t->fline = line;
	t->flags |= f;
}

/* Scan one token into t. */
static void
scan(struct lexer *L, struct tok *t)
{
	const char *p;

	memset(t, 0, sizeof(*t));
again:
	p = L->p;
	while (p < L->end &&
	    (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
		if (*p == '\n')
			L->line++;
		p++;
	}
	L->p = p;
	t->line = L->line;
	if (p >= L->end) {
		t->t = T_EOF;
		return;
	}
	if (*p == '#' || (*p == '/' && p + 1 < L->end && p[1] == '/')) {
		const char *e = memchr(p, '\n', (size_t)(L->end - p));

		if (e == NULL)
			e = L->end;
		blank_range(L, p, e);
		L->p = e;
		goto again;
	}
	if (*p == '/' && p + 1 < L->end && p[1] == '*') {
		const char *q = p + 2;
		int start = L->line;

		while (q + 1 < L->end && !(q[0] == '*' && q[1] == '/')) {
			if (*q == '\n')
				L->line++;
			q++;
		}
		if (q + 1 >= L->end) {
			if (q < L->end && *q == '\n')
				L->line++;
			lerr(L, start, "unterminated /* comment");
			blank_range(L, p, L->end);
			L->p = L->end;
			goto again;
		}
		blank_range(L, p, q + 2);
		L->p = q + 2;
		goto again;
	}
	switch (*p) {
	case '{':
		t->t = T_LBRACE;
		L->p = p + 1;
		return;
	case '}':
		t->t = T_RBRACE;
		L->p = p + 1;
		return;
	case '=':
		t->t = T_EQ;
		L->p = p + 1;
		return;
	case ',':
		t->t = T_COMMA;
		L->p = p + 1;
		return;
	case '+':
		if (p + 1 < L->end && p[1] == '=') {
			t->t = T_PLUSEQ;
			L->p = p + 2;
			return;
		}
		/* FALLTHROUGH */
	case '(':
	case ')':
	case '*':
		t->t = T_BAD;
		t->bad = *p;
		L->p = p + 1;
		return;
	case '"':
		t->t = T_STR;
		t->s = ++p;
		while (p < L->end && *p != '"') {
			if (*p == '\n')
				L->line++;
			if (*p == '$')
				flag(t, F_DOLLAR, L->line);
			if (*p == '\\' && p + 1 < L->end) {
				const char *e = p + 1;

				if (*e == '\n')
					L->line++;
				/* \0, \00, \000 (octal zero), \x0, \x00 */
				if (*e == '0' &&
				    (e + 1 >= L->end || e[1] < '1' ||
				        e[1] > '7'))
					flag(t, F_NULESC, L->line);
				if (*e == 'x' && e + 1 < L->end &&
				    e[1] == '0' &&
				    (e + 2 >= L->end || e[2] == '0' ||
				        strchr("0123456789abcdefABCDEF",
				            e[2]) == NULL ||
				        e[2] == '\0'))
					flag(t, F_NULESC, L->line);
				p += 2;
				continue;
			}
			p++;
		}
		t->len = (size_t)(p - t->s);
		if (p >= L->end)
			flag(t, F_UNTERM, t->line);
		else
			p++;
		L->p = p;
		return;
	case '\'':
		t->t = T_STR;
		t->s = ++p;
		while (p < L->end && *p != '\'') {
			if (*p == '\n')
				L->line++;
			if (*p == '\\' && p + 1 < L->end) {
				if (p[1] == '\n')
					L->line++;
				p += 2;
				continue;
			}
			p++;
		}
		t->len = (size_t)(p - t->s);
		if (p >= L->end)
			flag(t, F_UNTERM, t->line);
		else
			p++;
		L->p = p;
		return;
	default:
		break;
	}
	/* libconfuse reads "${...}" (to the next '}') as one value. */
	if (*p == '$' && p + 1 < L->end && p[1] == '{') {
		t->t = T_STR;
		t->s = p;
		flag(t, F_DOLLAR, L->line);
		while (p < L->end && *p != '}') {
			if (*p == '\n')
				L->line++;
			p++;
		}
		if (p < L->end)
			p++;
		t->len = (size_t)(p - t->s);
		L->p = p;
		return;
	}
	/* Unquoted string. */
	t->t = T_STR;
	t->s = p;
	while (p < L->end && unquoted_char(*p)) {
		if (*p == '$')
			flag(t, F_DOLLAR, L->line);
		if (*p == '/' && p + 1 < L->end && (p[1] == '/' || p[1] == '*'))
			flag(t, F_SLASH, L->line);
		p++;
	}
	t->len = (size_t)(p - t->s);
	L->p = p;
}

static struct tok *
peek(struct lexer *L, int k)
{
	while (L->nla <= k)
		scan(L, &L->la[L->nla++]);
	return &L->la[k];
}

static void
next(struct lexer *L, struct tok *out)
{
	*out = *peek(L, 0);
	memmove(&L->la[0], &L->la[1], sizeof(L->la[0]) * 2);
	L->nla--;
}

/* Problems a value token carries, reported with the key. */
static void
check_value(struct lexer *L, const struct tok *t, const char *key)
{
	if (t->t == T_BAD) {
		if (t->bad == '*')
			lerr(L, t->line,
			    "%s: '*' must be inside quotes "
			    "(\"*.example.org\")",
			    key);
		else
			lerr(L, t->line, "%s: unexpected '%c'", key, t->bad);
		return;
	}
	if (t->t != T_STR)
		return;
	if ((t->flags & F_DOLLAR) && !L->lx->allow_dollar)
		lerr(L, t->fline,
		    "%s: '$' outside single quotes: variable "
		    "expansion is not supported (write '...' for a "
		    "literal '$')",
		    key);
	if (t->flags & F_NULESC)
		lerr(L, t->fline, "%s: NUL escape in a string", key);
	if (t->flags & F_UNTERM)
		lerr(L, t->line, "%s: unterminated string", key);
	if (t->flags & F_SLASH)
		lerr(L, t->fline,
		    "%s: '//' or '/*' in an unquoted value: "
		    "put the value in quotes",
		    key);
}

static void
tokname(const struct tok *t, char *buf, size_t len)
{
	switch (t->t) {
	case T_EOF:
		snprintf(buf, len, "end of file");
		break;
	case T_LBRACE:
		snprintf(buf, len, "'{'");
		break;
	case T_RBRACE:
		snprintf(buf, len, "'}'");
		break;
	case T_EQ:
		snprintf(buf, len, "'='");
		break;
	case T_PLUSEQ:
		snprintf(buf, len, "'+='");
		break;
	case T_COMMA:
		snprintf(buf, len, "','");
		break;
	case T_BAD:
		snprintf(buf, len, "'%c'", t->bad);
		break;
	default:
		snprintf(
		    buf, len, "'%.*s'", t->len > 40 ? 40 : (int)t->len, t->s);
	}
}

#define MAX_DEPTH 4
#define KEY_MAX 256

/* Skip the value of an assignment: one token or a { ... } list. */
static void
value(struct lexer *L, const char *key, int kline, bool report, bool *was_list)
{
	struct tok t;
	char what[64];

	*was_list = false;
	next(L, &t);
	if (t.t == T_STR || t.t == T_BAD) {
		if (report)
			check_value(L, &t, key);
		return;
	}
	if (t.t != T_LBRACE) {
		tokname(&t, what, sizeof(what));
		lerr(L, t.t == T_EOF ? kline : t.line,
		    "%s: expected a value, "
		    "found %s",
		    key, what);
		return;
	}
	*was_list = true;
	for (;;) {
		next(L, &t);
		if (t.t == T_RBRACE)
			return;
		if (t.t == T_EOF) {
			lerr(L, kline, "%s: list not closed with '}'", key);
			return;
		}
		if (t.t == T_COMMA)
			continue;
		if (t.t == T_STR || t.t == T_BAD) {
			if (report)
				check_value(L, &t, key);
			continue;
		}
		tokname(&t, what, sizeof(what));
		lerr(L, t.line, "%s: unexpected %s in a list", key, what);
		if (t.t == T_LBRACE || t.t == T_EQ || t.t == T_PLUSEQ)
			return;
	}
}

size_t
policy_lex(struct policy_lexctx *lx, const char *text, size_t len, char *blank)
{
	struct lexer L;
	struct tok t, *n1;
	char stack[MAX_DEPTH][KEY_MAX], key[KEY_MAX], name[72], what[64];
	bool known[MAX_DEPTH + 1];
	int opened[MAX_DEPTH];
	int depth = 0;
	const char *nul;

	memset(&L, 0, sizeof(L));
	L.lx = lx;
	L.p = L.base = text;
	L.end = text + len;
	L.blank = blank;
	L.line = 1;
	memcpy(blank, text, len);
	known[0] = true;
	nul = memchr(text, '\0', len);
	if (nul != NULL) {
		int line = 1;
		const char *q;

		for (q = text; q < nul; q++)
			line += *q == '\n';
		lerr(&L, line, "NUL byte in the file");
		return L.nerr;
	}
	for (;;) {
		bool list;

		next(&L, &t);
		if (t.t == T_EOF)
			break;
		if (t.t == T_RBRACE) {
			if (depth == 0)
				lerr(&L, t.line, "unexpected '}'");
			else
				depth--;
			continue;
		}
		if (t.t != T_STR) {
			tokname(&t, what, sizeof(what));
			lerr(&L, t.line, "%s%sexpected a key, found %s",
			    depth ? stack[depth - 1] : "", depth ? ": " : "",
			    what);
			continue;
		}
		join(name, sizeof(name), "", "", t.s, t.len > 64 ? 64 : t.len);
		join(key, sizeof(key), depth ? stack[depth - 1] : "",
		    depth ? "." : "", name, (size_t)-1);
		n1 = peek(&L, 0);
		if (strchr(name, '|') != NULL && known[depth]) {
			lerr(&L, t.line,
			    "%s: '|' key paths are not "
			    "supported: write sections",
			    key);
			known[depth] = false;
		}
		if (n1->t == T_EQ || n1->t == T_PLUSEQ) {
			int kind = known[depth] ? policy_key_kind(key) : -2;
			bool append = n1->t == T_PLUSEQ;

			next(&L, &t);
			if (kind == -1)
				lerr(&L, t.line, "%s: unknown key", key);
			else if (kind == PK_SECTION || kind == PK_TSECTION)
				lerr(&L, t.line,
				    "%s: is a section: write "
				    "%s { ... }",
				    key, name);
			value(&L, key, t.line, kind >= 0, &list);
			if (kind == PK_SCALAR && list)
				lerr(&L, t.line,
				    "%s: takes one value, not a "
				    "list",
				    key);
			else if (kind == PK_SCALAR && append)
				lerr(&L, t.line,
				    "%s: '+=' appends to lists "
				    "only",
				    key);
			if (kind >= 0 && lx->assign)
				lx->assign(lx->arg, key, t.line);
			continue;
		}
		if (n1->t == T_LBRACE ||
		    (n1->t == T_STR && peek(&L, 1)->t == T_LBRACE)) {
			int kind = known[depth] ? policy_key_kind(key) : -2;
			bool titled = n1->t == T_STR;

			if (depth == MAX_DEPTH) {
				lerr(&L, t.line,
				    "%s: sections nested too "
				    "deeply",
				    key);
				break;
			}
			if (kind == -1)
				lerr(&L, t.line, "%s: unknown section", key);
			else if (kind == PK_SCALAR || kind == PK_LIST)
				lerr(&L, t.line,
				    "%s: is not a section: write "
				    "%s = ...",
				    key, name);
			else if (kind == PK_TSECTION && !titled)
				lerr(&L, t.line,
				    "%s: needs a name: %s NAME "
				    "{ ... }",
				    key, name);
			else if (kind == PK_SECTION && titled)
				lerr(&L, t.line, "%s: takes no name", key);
			known[depth + 1] = kind >= 0;
			if (titled) {
				next(&L, &t);
				join(stack[depth], KEY_MAX, key, ".", t.s,
				    t.len > 64 ? 64 : t.len);
				check_value(&L, &t, key);
				if (kind == PK_TSECTION && lx->assign)
					lx->assign(
					    lx->arg, stack[depth], t.line);
			} else {
				join(stack[depth], KEY_MAX, key, "", "", 0);
			}
			next(&L, &t); /* '{' */
			opened[depth] = t.line;
			depth++;
			continue;
		}
		tokname(n1, what, sizeof(what));
		lerr(&L, t.line,
		    "%s: expected '=' or '{' after the key, "
		    "found %s",
		    key, what);
	}
	if (depth > 0)
		lerr(&L, opened[depth - 1], "%s: section not closed with '}'",
		    stack[depth - 1]);
	return L.nerr;
}
