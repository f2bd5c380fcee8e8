/*
 * env.h: the inner shell's environment.
 *
 * It starts empty.  Then, in order (a later value replaces an earlier
 * one of the same name): the caller's variables named by env.pass
 * (names or fnmatch globs); env.set; the secrets; the credentials'
 * placeholders; in gated mode the proxy variables (env_gate_vars);
 * with credentials, the trust bundle variables (SSL_CERT_FILE, ...,
 * unless env.set names them); then HOME, USER, LOGNAME, SHELL, PWD and
 * AISB_SESSION, and PATH when nothing set it: the home's .local/bin
 * (where per-user installers put programs) before ENV_DEFAULT_PATH.
 *
 * A glob never passes a name from the unsafe list (LD_*, GCONV_PATH,
 * BASH_ENV, SSH_AUTH_SOCK, AISB_*, ... see env.c): such a variable
 * crosses only when env.pass names it exactly.
 */
#ifndef AISB_ENV_H
#define AISB_ENV_H

#include <stdbool.h>

#include "policy.h"

#define ENV_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define ENV_HOME_BIN "/.local/bin" /* below HOME, first in the default */

struct env_opts {
	const struct aisb_policy *pol;
	char *const *caller; /* the caller's environ */
	char *const *secrets; /* "NAME=value", or NULL */
	char *const *creds; /* "NAME=placeholder", or NULL */
	/* With credentials: the trust bundle inside ("/etc/ssl/..."). */
	const char *ca_bundle;
	const char *user;
	const char *home; /* HOME inside */
	const char *pwd; /* the project target */
	const char *session_id;
};

/* Build it.  *ret is NULL-terminated; free with env_free.  0 or -errno. */
int env_build(const struct env_opts *o, char ***ret);
/* The value of NAME in a vector env_build made, or NULL. */
const char *env_get(char *const *env, const char *name);
/* Wipe (it may hold secrets) and free a NULL-terminated vector of
 * entries: env_build's, or secret_read's. */
void env_free(char **v);

/* Would the caller's variable `name` pass env.pass? */
bool env_passes(const struct aisb_policy *p, const char *name);

#endif
