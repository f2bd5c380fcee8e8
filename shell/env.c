/*
 * env.c: the inner environment.  See env.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aisb.h"
#include "env.h"
#include "util.h"

#define ENV_MAX 4096 /* variables; the kernel bounds the bytes */

/*
 * Names a glob never passes.  Each either changes how the dynamic
 * loader, libc or the shell starts a program (LD_*, GCONV_PATH,
 * GLIBC_TUNABLES, BASH_ENV, BASH_FUNC_*, ...), points at a host socket
 * that must not be reachable (SSH_AUTH_SOCK, the user bus), or is
 * aisb's own.
 * Inside the sandbox none of them is a privilege boundary, so an exact
 * env.pass entry still passes them: that is the admin's explicit word.
 */
static const char *const unsafe[] = {
    "LD_*",
    "GCONV_PATH",
    "GLIBC_TUNABLES",
    "MALLOC_*",
    "LOCPATH",
    "NLSPATH",
    "HOSTALIASES",
    "RES_OPTIONS",
    "LOCALDOMAIN",
    "TZDIR",
    "BASH_ENV",
    "ENV",
    "BASH_FUNC_*",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "IFS",
    "CDPATH",
    "PROMPT_COMMAND",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "DISPLAY",
    "XAUTHORITY",
    "WAYLAND_DISPLAY",
    "DBUS_*",
    "XDG_RUNTIME_DIR",
    "AISB_*",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "NODE_OPTIONS",
};

static bool
is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool
is_unsafe(const char *name)
{
	size_t i;

	for (i = 0; i < ELEMENTSOF(unsafe); i++)
		if (fnmatch(unsafe[i], name, 0) == 0)
			return true;
	return false;
}

bool
env_passes(const struct aisb_policy *p, const char *name)
{
	bool unsafe_name = is_unsafe(name);
	size_t i;

	for (i = 0; i < p->env.pass.n; i++) {
		const char *pat = p->env.pass.v[i];

		if (!is_glob(pat)) {
			if (strcmp(pat, name) == 0)
				return true;
		} else if (!unsafe_name && fnmatch(pat, name, 0) == 0)
			return true;
	}
	return false;
}

struct vec {
	char **v;
	size_t n;
};

static size_t
name_len(const char *kv)
{
	const char *eq = strchr(kv, '=');

	return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* Add or replace "NAME=value" (takes a copy). */
static int
put(struct vec *e, const char *kv)
{
	size_t i, n = name_len(kv);
	char *c;

	if (n == 0 || kv[n] != '=')
		return 0;
	c = strdup(kv);
	if (!c)
		return -ENOMEM;
	for (i = 0; i < e->n; i++)
		if (name_len(e->v[i]) == n && strncmp(e->v[i], kv, n) == 0) {
			explicit_bzero(e->v[i], strlen(e->v[i]));
			free(e->v[i]);
			e->v[i] = c;
			return 0;
		}
	if (e->n >= ENV_MAX) {
		free(c);
		return -E2BIG;
	}
	e->v[e->n++] = c;
	return 0;
}

static int
put2(struct vec *e, const char *name, const char *value)
{
	char *kv;
	int r;

	if (asprintf(&kv, "%s=%s", name, value) < 0)
		return -ENOMEM;
	r = put(e, kv);
	free(kv);
	return r;
}

static bool
has(const struct vec *e, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < e->n; i++)
		if (name_len(e->v[i]) == n && strncmp(e->v[i], name, n) == 0)
			return true;
	return false;
}

/*
 * Gated mode: announce the gate's HTTP proxy inside the sandbox
 * (docs/architecture.md, "The gate").  The names and values live here and
 * nowhere else.
 */
static int
env_gate_vars(struct vec *e, const struct aisb_policy *p)
{
	static const char *const names[] = {
	    "HTTP_PROXY",
	    "HTTPS_PROXY",
	    "http_proxy",
	    "https_proxy",
	};
	char url[64];
	size_t i;
	int r;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u",
	    (unsigned)p->net.proxy_port);
	for (i = 0; i < ELEMENTSOF(names); i++)
		if ((r = put2(e, names[i], url)) < 0)
			return r;
	if ((r = put(e, "NO_PROXY=localhost,127.0.0.1,::1")) < 0 ||
	    (r = put(e, "no_proxy=localhost,127.0.0.1,::1")) < 0 ||
	    (r = put(e, "NODE_USE_ENV_PROXY=1")) < 0)
		return r;
	return 0;
}

/* Does env.set name the variable? */
static bool
set_names(const struct aisb_policy *p, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < p->env.set.n; i++)
		if (strncmp(p->env.set.v[i], name, n) == 0 &&
		    p->env.set.v[i][n] == '=')
			return true;
	return false;
}

/*
 * With credentials: the trust bundle that holds the session CA (the
 * gate's certificates for the credentials' hosts), for the runtimes
 * that do not read the system's by default: Python requests and pip,
 * curl and git built with another TLS library, Go and OpenSSL clients
 * (SSL_CERT_FILE), and Node, which only adds to its own roots.  An
 * env.set entry of the same name is the admin's word and stays.
 */
static int
env_ca_vars(struct vec *e, const struct aisb_policy *p, const char *bundle)
{
	static const char *const names[] = {
	    "SSL_CERT_FILE",
	    "REQUESTS_CA_BUNDLE",
	    "CURL_CA_BUNDLE",
	    "GIT_SSL_CAINFO",
	};
	size_t i;
	int r;

	for (i = 0; i < ELEMENTSOF(names); i++)
		if (!set_names(p, names[i]) &&
		    (r = put2(e, names[i], bundle)) < 0)
			return r;
	if (!set_names(p, "NODE_EXTRA_CA_CERTS") &&
	    (r = put2(e, "NODE_EXTRA_CA_CERTS", AISB_SESSION_CA)) < 0)
		return r;
	return 0;
}

int
env_build(const struct env_opts *o, char ***ret)
{
	const struct aisb_policy *p = o->pol;
	struct vec e = {0};
	size_t i;
	int r = 0;

	e.v = calloc(ENV_MAX + 1, sizeof(char *));
	if (!e.v)
		return -ENOMEM;
	for (i = 0; o->caller && o->caller[i] && r >= 0; i++) {
		char name[256];
		size_t n = name_len(o->caller[i]);

		if (n == 0 || n >= sizeof(name) || o->caller[i][n] != '=')
			continue;
		memcpy(name, o->caller[i], n);
		name[n] = '\0';
		if (env_passes(p, name))
			r = put(&e, o->caller[i]);
	}
	for (i = 0; i < p->env.set.n && r >= 0; i++)
		r = put(&e, p->env.set.v[i]);
	for (i = 0; o->secrets && o->secrets[i] && r >= 0; i++)
		r = put(&e, o->secrets[i]);
	for (i = 0; o->creds && o->creds[i] && r >= 0; i++)
		r = put(&e, o->creds[i]);
	if (r >= 0 && p->net.mode == AISB_NET_GATED)
		r = env_gate_vars(&e, p);
	if (r >= 0 && p->ncreds > 0 && o->ca_bundle != NULL)
		r = env_ca_vars(&e, p, o->ca_bundle);
	if (r >= 0)
		r = put2(&e, "HOME", o->home);
	if (r >= 0)
		r = put2(&e, "USER", o->user);
	if (r >= 0)
		r = put2(&e, "LOGNAME", o->user);
	if (r >= 0)
		r = put2(&e, "SHELL", p->shell);
	if (r >= 0)
		r = put2(&e, "PWD", o->pwd);
	if (r >= 0)
		r = put2(&e, "AISB_SESSION", o->session_id);
	if (r >= 0 && !has(&e, "PATH")) {
		_cleanup_free_ char *path = NULL;

		if (asprintf(&path, "%s%s:%s", o->home, ENV_HOME_BIN,
		        ENV_DEFAULT_PATH) < 0)
			r = -ENOMEM;
		else
			r = put2(&e, "PATH", path);
	}
	if (r < 0) {
		env_free(e.v);
		return r;
	}
	*ret = e.v;
	return 0;
}

const char *
env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

void
env_free(char **v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; v[i]; i++) {
		explicit_bzero(v[i], strlen(v[i]));
		free(v[i]);
	}
	free(v);
}
