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

/*
 * Is this the server side of a file transfer that an ssh client starts
 * with a command line of its own: sftp-server (sshd's sftp subsystem
 * through the login shell), scp -t / -f (scp's original protocol),
 * rsync --server, git-upload-pack, git-receive-pack,
 * git-upload-archive (git over ssh, also as "git upload-pack")?  Their
 * output is a protocol stream carrying files byte for byte, which
 * redaction must not touch (docs/threat-model.md, "Redaction").  Only
 * -c forms whose first word names one of these count.
 */
bool form_is_transfer(const struct form *f);

#endif
