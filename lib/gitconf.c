/*
 * gitconf.c: read a git configuration file the way git reads it.
 * See gitconf.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gitconf.h"
#include "util.h"

/* git's own character classes: ASCII only, whatever the locale; its
 * "space" is tab, newline, carriage return and blank (not \v or \f). */
static bool
g_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
g_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
g_keychar(int c)
{
	return g_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static int
g_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* A growing byte string (always NUL-terminated once used). */
struct buf {
	char *s;
	size_t n, cap;
};

static int
buf_add(struct buf *b, int c)
{
	if (b->n + 2 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		char *s = realloc(b->s, cap);

		if (!s)
			return -ENOMEM;
		b->s = s;
		b->cap = cap;
	}
	b->s[b->n++] = (char)c;
	b->s[b->n] = '\0';
	return 0;
}

static int
buf_set(struct buf *b, size_t n)
{
	if (!b->s && buf_add(b, 0) < 0)
		return -ENOMEM;
	b->n = n;
	b->s[n] = '\0';
	return 0;
}

struct src {
	const unsigned char *p, *end;
	bool eof;
	unsigned line;
	int last; /* the character next() returned last */
};

/* The next character as git's get_next_char() returns it: CRLF is one
 * newline, and the end of the text reads as a newline (with eof set). */
static int
next(struct src *s)
{
	int c;

	if (s->p >= s->end) {
		s->eof = true;
		s->line++;
		return s->last = '\n';
	}
	c = *s->p++;
	if (c == '\r' && s->p < s->end && *s->p == '\n')
		c = *s->p++;
	if (c == '\n')
		s->line++;
	return s->last = c;
}

/* The value after '=' up to the end of its line (git's parse_value). */
static int
value(struct src *s, struct buf *v)
{
	bool quote = false, comment = false;
	size_t space = 0;
	int c, r;

	if ((r = buf_set(v, 0)) < 0)
		return r;
	for (;;) {
		c = next(s);
		if (c == '\n')
			return quote ? -EINVAL : 0;
		if (comment)
			continue;
		if (g_space(c) && !quote) {
			if (v->n)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			if ((r = buf_add(v, ' ')) < 0)
				return r;
		if (c == '\\') {
			switch (c = next(s)) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return -EINVAL;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		if ((r = buf_add(v, c)) < 0)
			return r;
	}
}

/* "[section" was read up to c (a space): the quoted subsection and the
 * closing bracket (git's get_extended_base_var). */
static int
subsection(struct src *s, struct buf *var, int c)
{
	int r;

	do {
		if (c == '\n')
			return -EINVAL;
		c = next(s);
	} while (g_space(c));
	if (c != '"')
		return -EINVAL;
	if ((r = buf_add(var, '.')) < 0)
		return r;
	for (;;) {
		c = next(s);
		if (c == '\n')
			return -EINVAL;
		if (c == '"')
			break;
		if (c == '\\' && (c = next(s)) == '\n')
			return -EINVAL;
		if ((r = buf_add(var, c)) < 0)
			return r;
	}
	return next(s) == ']' ? 0 : -EINVAL;
}

/* After '[': the section name, lower-cased (git's get_base_var). */
static int
section(struct src *s, struct buf *var)
{
	int c, r;

	for (;;) {
		c = next(s);
		if (s->eof)
			return -EINVAL;
		if (c == ']')
			return 0;
		if (g_space(c))
			return subsection(s, var, c);
		if (!g_keychar(c) && c != '.')
			return -EINVAL;
		if ((r = buf_add(var, g_lower(c))) < 0)
			return r;
	}
}

/* After the first letter of a name: the rest of it and the value
 * (git's get_value). */
static int
variable(
    struct src *s, struct buf *var, struct buf *v, gitconf_fn fn, void *data)
{
	bool has_value = false;
	int c, r;

	for (;;) {
		c = next(s);
		if (s->eof || !g_keychar(c))
			break;
		if ((r = buf_add(var, g_lower(c))) < 0)
			return r;
	}
	while (c == ' ' || c == '\t')
		c = next(s);
	if (c != '\n') {
		if (c != '=')
			return -EINVAL;
		if ((r = value(s, v)) < 0)
			return r;
		has_value = true;
	}
	return fn(var->s, has_value ? v->s : NULL, data);
}

int
gitconf_parse(
    const char *text, size_t len, gitconf_fn fn, void *data, unsigned *ret_line)
{
	static const unsigned char bom[] = {0xef, 0xbb, 0xbf};
	struct src s = {(const unsigned char *)text,
	    (const unsigned char *)text + len, false, 1, 0};
	struct buf var = {0}, v = {0};
	size_t base = 0, nbom = 0;
	bool comment = false, at_start = true;
	int c, r = 0;

	if (len > GITCONF_MAX)
		return -EFBIG;
	if ((r = buf_set(&var, 0)) < 0 || (r = buf_set(&v, 0)) < 0)
		goto out;
	for (;;) {
		c = next(&s);
		if (at_start) {
			/* A UTF-8 byte order mark at the very start is
			 * skipped; a partial one is an error. */
			if (nbom < sizeof(bom) && c == bom[nbom]) {
				nbom++;
				continue;
			}
			if (nbom && nbom < sizeof(bom)) {
				r = -EINVAL;
				break;
			}
			at_start = false;
		}
		if (c == '\n') {
			if (s.eof)
				break;
			comment = false;
			continue;
		}
		if (comment || g_space(c))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			if ((r = buf_set(&var, 0)) < 0)
				break;
			if ((r = section(&s, &var)) < 0)
				break;
			if (var.n < 1) {
				r = -EINVAL;
				break;
			}
			if ((r = buf_add(&var, '.')) < 0)
				break;
			base = var.n;
			continue;
		}
		if (!g_alpha(c)) {
			r = -EINVAL;
			break;
		}
		if ((r = buf_set(&var, base)) < 0 ||
		    (r = buf_add(&var, g_lower(c))) < 0)
			break;
		if ((r = variable(&s, &var, &v, fn, data)) < 0)
			break;
	}
out:
	if (r == -EINVAL && ret_line)
		/* The line of the character that failed, as git counts. */
		*ret_line = s.last == '\n' && s.line > 1 ? s.line - 1 : s.line;
	free(var.s);
	free(v.s);
	return r;
}

int
gitconf_key(const char *var, const char *section, const char *name,
    const char **ret_sub, size_t *ret_n)
{
	size_t n = strlen(section);
	const char *rest, *dot;

	if (strncmp(var, section, n) != 0 || var[n] != '.')
		return 0;
	rest = var + n;
	dot = strrchr(rest, '.');
	if (strcmp(dot + 1, name) != 0)
		return 0;
	if (ret_sub)
		*ret_sub = dot == rest ? NULL : rest + 1;
	if (ret_n)
		*ret_n = dot == rest ? 0 : (size_t)(dot - rest - 1);
	return 1;
}
