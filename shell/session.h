/*
 * session.h: names shared by the session's own files (session.c, ns.c,
 * mount.c, project.c, env.c, etc.c, secret.c, slog.c, form.c, init.c,
 * pty.c).
 */
#ifndef AISB_SESSION_H
#define AISB_SESSION_H

#include <errno.h>
#include <sys/wait.h>

#include "aisb.h"

/*
 * The "errno" a setup helper returns for a policy problem (missing
 * project or home, unsafe secret file, path escaping its root): the
 * session then exits AISB_EX_CONFIG.  Every other -errno is a host
 * failure (AISB_EX_HOST).  The helper has already logged one line.
 */
#define SESSION_EPOLICY EKEYREJECTED
/* The same for a call aisb-shell does not accept (exit 2, as for an
 * unknown option). */
#define SESSION_EUSAGE EBADRQC

/* A step's -errno as the exit status of the process it ends. */
static inline int
session_exit_code(int r)
{
	if (r == -SESSION_EPOLICY)
		return AISB_EX_CONFIG;
	if (r == -SESSION_EUSAGE)
		return 2;
	return AISB_EX_HOST;
}

/* A waitpid status as a shell reports it: the exit code, or 128+N for
 * signal N. */
static inline int
session_shell_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 127;
}

#endif
