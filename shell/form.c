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
