/*
 * form.c: the inner shell's argv.  See form.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "form.h"

int
form_build(
    bool login, int argc, char **argv, const char *shell, struct form *ret)
{
	const char *base = strrchr(shell, '/');
	bool cmd = false, in = false, script = false, lflag = false;
	char **v;
	int i;

	base = base ? base + 1 : shell;
	/* Name the form: leading option words, then the first operand. */
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-") == 0 || strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
			break;
		if (a[0] == '-' && a[1] != '-') {
			cmd |= strchr(a, 'c') != NULL;
			in |= strchr(a, 's') != NULL;
			lflag |= strchr(a, 'l') != NULL;
		}
		/* "-o NAME" and "+o NAME" take the next word. */
		if (a[1] == 'o' && a[2] == '\0' && i + 1 < argc)
			i++;
	}
	script = !cmd && !in && i < argc;
	v = calloc((size_t)argc + 2, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (asprintf(&v[0], "%s%s", login ? "-" : "", base) < 0) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < argc; i++)
		v[i + 1] = argv[i];
	ret->argv = v;
	ret->login = login || lflag;
	ret->mode = cmd ? "command"
	    : script    ? "script"
	    : in        ? "stdin"
	                : "shell";
	return 0;
}

void
form_free(struct form *f)
{
	if (f->argv)
		free(f->argv[0]);
	free(f->argv);
	f->argv = NULL;
}

/* The first word of cmd (blanks before it skipped) and where it ends. */
static const char *
word(const char *cmd, size_t *len)
{
	cmd += strspn(cmd, " \t");
	*len = strcspn(cmd, " \t\n;&|<>()'\"\\$`");
	return cmd;
}

static bool
is(const char *w, size_t n, const char *name)
{
	const char *slash = memrchr(w, '/', n);

	if (slash) {
		n -= (size_t)(slash + 1 - w);
		w = slash + 1;
	}
	return n == strlen(name) && memcmp(w, name, n) == 0;
}

/* A whole word of cmd after its first. */
static bool
has_word(const char *cmd, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(cmd, name); p; p = strstr(p + 1, name))
		if ((p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t'))
			return true;
	return false;
}

bool
form_is_transfer(const struct form *f)
{
	const char *cmd = NULL, *w;
	size_t n, m;
	int i;

	if (f->argv == NULL || strcmp(f->mode, "command") != 0)
		return false;
	/* The command: the first operand after the option words. */
	for (i = 1; f->argv[i]; i++) {
		const char *a = f->argv[i];

		if (strcmp(a, "--") == 0 || strcmp(a, "-") == 0) {
			cmd = f->argv[i + 1];
			break;
		}
		if ((a[0] != '-' && a[0] != '+') || a[1] == '\0') {
			cmd = a;
			break;
		}
		if (a[1] == 'o' && a[2] == '\0' && f->argv[i + 1])
			i++;
	}
	if (cmd == NULL)
		return false;
	w = word(cmd, &n);
	if (is(w, n, "sftp-server") || is(w, n, "git-upload-pack") ||
	    is(w, n, "git-receive-pack") || is(w, n, "git-upload-archive"))
		return true;
	if (is(w, n, "scp"))
		return has_word(w, "-t") || has_word(w, "-f");
	if (is(w, n, "rsync"))
		return has_word(w, "--server");
	if (is(w, n, "git")) {
		const char *v = word(w + n, &m);

		return is(v, m, "upload-pack") || is(v, m, "receive-pack") ||
		    is(v, m, "upload-archive");
	}
	return false;
}
