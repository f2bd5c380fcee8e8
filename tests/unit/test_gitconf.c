/*
 * test_gitconf.c: the git configuration reader (lib/gitconf.c) against
 * what git itself makes of the same text.  Each case below was checked
 * with `git config --file F --list` (git 2.39): the variables it lists,
 * or "bad config line N" where git refuses the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitconf.h"
#include "tap.h"

struct out {
	char s[4096];
};

static int
collect(const char *var, const char *value, void *data)
{
	struct out *o = data;
	size_t n = strlen(o->s);

	snprintf(o->s + n, sizeof(o->s) - n, "%s=%s\n", var,
	    value ? value : "(true)");
	return 0;
}

/* The "var=value" lines gitconf_parse reports for text, or "ERR N". */
static const char *
parse(const char *text, size_t len)
{
	static struct out o;
	unsigned line = 0;
	int r;

	o.s[0] = '\0';
	r = gitconf_parse(text, len, collect, &o, &line);
	if (r == -EINVAL)
		snprintf(o.s, sizeof(o.s), "ERR %u", line);
	else if (r < 0)
		snprintf(o.s, sizeof(o.s), "ERR %d", r);
	return o.s;
}

#define P(t) parse(t, sizeof(t) - 1)

TEST(basics)
{
	is_str(P("[core]\n\thooksPath = .githooks\n"),
	    "core.hookspath=.githooks\n", "section and name lower-cased");
	is_str(P("[Core]\nBare\n"), "core.bare=(true)\n",
	    "a name without = is true");
	is_str(P("[core] hooksPath=x\n"), "core.hookspath=x\n",
	    "a variable on the header's line");
	is_str(P("[includeIf \"gitdir:/A/\"]\n path = a\n"),
	    "includeif.gitdir:/A/.path=a\n", "a subsection keeps its case");
	is_str(P("[Include.Sub]\npath=x\n"), "include.sub.path=x\n",
	    "the old [section.sub] form is lower-cased whole");
	is_str(P("[a \"q\\\"\\\\\\x\"]\nk=v\n"), "a.q\"\\x.k=v\n",
	    "a subsection's backslash keeps the next character");
	is_str(
	    P("\xef\xbb\xbf[a]\nk=v\n"), "a.k=v\n", "a UTF-8 BOM is skipped");
	is_str(P("[a]\r\nk = v\r\n"), "a.k=v\n", "CRLF is one newline");
	is_str(P("[a]\nk = v"), "a.k=v\n", "no newline at the end");
	is_str(P("; c\n# c\n[a] ; c\nk = v # c\n"), "a.k=v\n", "comments");
	is_str(P("k = v\n"), "k=v\n", "a variable before any section");
	is_str(P(""), "", "an empty file");
}

TEST(values)
{
	is_str(P("[a]\nk =   x   y  \n"), "a.k=x   y\n",
	    "outer blanks cut, inner ones kept");
	is_str(P("[a]\nk = \"  x ; y \" z\n"), "a.k=  x ; y  z\n",
	    "quotes keep blanks and ;");
	is_str(P("[a]\nk = a\\\n  b\n"), "a.k=a  b\n",
	    "a backslash-newline continues the value");
	is_str(P("[a]\nk = \\t\\n\\b\\\\\\\"\n"), "a.k=\t\n\b\\\"\n",
	    "the escapes git knows");
	is_str(P("[a]\nk = \\x\n"), "ERR 2", "an unknown escape is refused");
	is_str(P("[a]\nk = \"open\n"), "ERR 2", "an open quote is refused");
	is_str(P("[a]\nk = x#y\nj\n"), "a.k=x\na.j=(true)\n",
	    "# starts a comment even without a blank");
	is_str(P("[a]\nk\t=\tv\n"), "a.k=v\n", "tabs around =");
	is_str(
	    P("[a]\nk\v= v\n"), "ERR 2", "\\v is not a blank to git (refused)");
}

TEST(errors)
{
	is_str(P("[a\n"), "ERR 1", "an unclosed header");
	is_str(P("[]\n"), "ERR 1", "an empty section");
	is_str(P("[a b]\n"), "ERR 1", "a subsection without quotes");
	is_str(P("[a \"b\" ]\n"), "ERR 1", "a blank before ]");
	is_str(P("[a]\n1k = v\n"), "ERR 2", "a name starting with a digit");
	is_str(P("[a]\nk v\n"), "ERR 2", "no = between name and value");
	is_str(P("[a]\nk_x = v\n"), "ERR 2", "_ in a name");
	is_str(P("\xef\xbb[a]\n"), "ERR 1", "a partial BOM");
	is_str(P("[a:b]\n"), "ERR 1", "':' in a section name");
	is_str(P("[a]\n\xc3\xa9 = v\n"), "ERR 2", "a non-ASCII name");
	is_str(P("[a]\nk = v\n\0\n"), "ERR 3", "a NUL where a name starts");
}

TEST(nul_and_limits)
{
	static const char nul[] = "[a]\nk = x\0y\n";
	char *big;

	is_str(parse(nul, sizeof(nul) - 1), "a.k=x\n",
	    "a NUL in a value ends it for git's callers too");
	big = calloc(1, GITCONF_MAX + 2);
	ok(big &&
	        gitconf_parse(big, GITCONF_MAX + 1, collect, NULL, NULL) ==
	            -EFBIG,
	    "a file over the limit is refused");
	free(big);
}

TEST(key)
{
	const char *sub;
	size_t n;

	ok(gitconf_key("include.path", "include", "path", &sub, &n) && !sub,
	    "include.path: no subsection");
	ok(gitconf_key(
	       "includeif.onbranch:a.b.path", "includeif", "path", &sub, &n) &&
	        n == 12 && !strncmp(sub, "onbranch:a.b", n),
	    "a subsection with dots");
	ok(!gitconf_key("includeif.x.pathx", "includeif", "path", NULL, NULL),
	    "another key");
	ok(!gitconf_key("includeifx.path", "includeif", "path", NULL, NULL),
	    "another section");
}

int
main(void)
{
	RUN(basics);
	RUN(values);
	RUN(errors);
	RUN(nul_and_limits);
	RUN(key);
	return tap_done();
}
