/*
 * form.h: the shell form aisb-shell was called with, carried over to
 * the inner shell ("-name" login, -c CMD, -l, -i, -s, a script on
 * stdin or as a file: aisb-shell(8)).
 *
 * aisb-shell does not interpret the form beyond naming it for the log:
 * the inner shell receives the same arguments, so bash decides as it
 * would have outside.  A login call ("-aisb-shell") makes the inner's
 * argv[0] "-bash" (for shell = /bin/bash), which makes bash a login
 * shell.  A script path is resolved inside the sandbox (cwd /project).
 */
#ifndef AISB_FORM_H
#define AISB_FORM_H

#include <stdbool.h>

struct form {
	char **argv; /* NULL-terminated; argv[0] malloc'd */
	const char *mode; /* "command", "script", "stdin", "shell" */
	bool login;
};

/*
 * Build the inner argv for shell from the caller's form (argc/argv are
 * the words after aisb-shell's own "--" options).  0 or -errno.
 */
int form_build(
    bool login, int argc, char **argv, const char *shell, struct form *ret);
void form_free(struct form *f);

#endif
