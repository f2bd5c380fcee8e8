/*
 * policy.c: load, validate and merge the aisb policy.  See policy.h and
 * aisb.conf(5).
 *
 * Order for each file: trust checks on the opened fd (policy_trust.c),
 * the pre-scan (policy_lex.c: '$', unknown keys, comments blanked so
 * libconfuse's line numbers are exact), then libconfuse with an empty
 * environment.  Every value goes through a parse callback that checks
 * it, expands %u and %h where the key allows, checks the result again
 * and hands libconfuse the canonical text, recording "FILE:LINE".  A
 * value that fails is reported and parsing goes on, so every value
 * error of a file is listed.  libconfuse stops at its own syntax
 * errors (an unknown key, a brace out of place); the pre-scan has
 * already listed every such problem it can see, so the report is still
 * complete for the usual mistakes.
 *
 * Merging: the user file is parsed into the same cfg_t after the system
 * file.  libconfuse then does what aisb.conf(5) promises: a scalar
 * overrides, "key = {...}" replaces a list, "key += {...}" appends, a
 * section is merged key by key.  A secret name defined twice (also
 * across the two files) is an error (CFGF_NO_TITLE_DUPES).
 *
 * All options are declared as libconfuse strings: the types (sizes,
 * ports, booleans, ...) are ours, checked by our callbacks, so a wrong
 * type reads "limits.pids: not a number" rather than a generic message.
 */
#define _GNU_SOURCE /* asprintf, vasprintf */
#include <arpa/inet.h>
#include <confuse.h>
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <linux/limits.h> /* PATH_MAX; <limits.h> is shadowed by shell/limits.h in the fuzz build */
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aisb.h"
#include "cidr.h"
#include "hostpat.h"
#include "policy_internal.h"
#include "sha256.h"
#include "util.h"

extern char **environ;

/* ---- value kinds and their checks ---------------------------------- */

enum kind {
	K_NONE,
	K_PATH,
	K_PATHX,
	K_GLOBX,
	K_HOMEPATH,
	K_RELPATH,
	K_HOSTNAME,
	K_AGENT,
	K_BOOL,
	K_SIZE,
	K_TMPSIZE,
	K_COUNT,
	K_PIDS,
	K_NOFILE,
	K_TIMEOUT,
	K_PCT,
	K_PORT,
	K_HOSTRULE,
	K_CIDR,
	K_ENVGLOB,
	K_ENVSET,
	K_NETMODE,
	K_ENFORCE,
	K_RESOLVER,
	K_SERVICE,
};

struct keydef {
	const char *key; /* dotted */
	int type; /* PK_* */
	enum kind kind;
	const char *def; /* scalar default (NULL: required/none) */
	const char *const *defl; /* list default, NULL-terminated */
};

static const char *const def_agents[] = {"@ai-agents", NULL};
static const char *const def_roots[] = {"/srv/agents/%u", NULL};
static const char *const def_protect[] = {".git/hooks", ".git/config", NULL};
/*
 * Hidden by default: other users' data, host sockets and state, boot
 * and mount points, aisb's own config and the host's secrets.
 */
static const char *const def_hide[] = {
    "/home",
    "/root",
    "/run",
    "/var/run",
    "/var/lib",
    "/var/log",
    "/var/mail",
    "/var/spool",
    "/var/tmp",
    "/var/backups",
    "/srv",
    "/mnt",
    "/media",
    "/boot",
    "/etc/aisb",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private",
    NULL,
};
static const char *const def_none[] = {NULL};
static const char *const def_pass[] = {"TERM", "LANG", "LC_*", NULL};
static const char *const def_set[] = {
    "PATH=/usr/local/bin:/usr/bin:/bin", NULL};
static const char *const def_ports[] = {"80", "443", NULL};
static const char *const def_services[] = {"sshd", "su", "su-l", "login", NULL};

static const struct keydef keys[] = {
    {"shell", PK_SCALAR, K_PATH, "/bin/bash", NULL},
    {"hostname", PK_SCALAR, K_HOSTNAME, "aisb", NULL},
    {"agents", PK_LIST, K_AGENT, NULL, def_agents},
    {"project", PK_SECTION, K_NONE, NULL, NULL},
    {"project.path", PK_SCALAR, K_PATHX, "/srv/agents/%u/project", NULL},
    {"project.roots", PK_LIST, K_PATHX, NULL, def_roots},
    {"project.target", PK_SCALAR, K_PATH, "/project", NULL},
    {"project.readonly", PK_SCALAR, K_BOOL, "false", NULL},
    {"project.protect", PK_LIST, K_RELPATH, NULL, def_protect},
    {"home", PK_SECTION, K_NONE, NULL, NULL},
    {"home.path", PK_SCALAR, K_HOMEPATH, "/var/lib/aisb/home/%u", NULL},
    {"filesystem", PK_SECTION, K_NONE, NULL, NULL},
    {"filesystem.root", PK_SCALAR, K_PATH, "/", NULL},
    {"filesystem.hide", PK_LIST, K_GLOBX, NULL, def_hide},
    {"filesystem.readonly", PK_LIST, K_GLOBX, NULL, def_none},
    {"filesystem.readwrite", PK_LIST, K_GLOBX, NULL, def_none},
    {"filesystem.tmp_size", PK_SCALAR, K_TMPSIZE, "1G", NULL},
    {"env", PK_SECTION, K_NONE, NULL, NULL},
    {"env.pass", PK_LIST, K_ENVGLOB, NULL, def_pass},
    {"env.set", PK_LIST, K_ENVSET, NULL, def_set},
    {"env.secret", PK_TSECTION, K_NONE, NULL, NULL},
    {"env.secret.file", PK_SCALAR, K_PATHX, NULL, NULL},
    {"network", PK_SECTION, K_NONE, NULL, NULL},
    {"network.mode", PK_SCALAR, K_NETMODE, "gated", NULL},
    {"network.allow", PK_LIST, K_HOSTRULE, NULL, def_none},
    {"network.deny", PK_LIST, K_HOSTRULE, NULL, def_none},
    {"network.allow_cidr", PK_LIST, K_CIDR, NULL, def_none},
    {"network.ports", PK_LIST, K_PORT, NULL, def_ports},
    {"network.transparent", PK_SCALAR, K_BOOL, "true", NULL},
    {"network.resolver", PK_SCALAR, K_RESOLVER, "", NULL},
    {"network.proxy_port", PK_SCALAR, K_PORT, "3128", NULL},
    {"limits", PK_SECTION, K_NONE, NULL, NULL},
    {"limits.memory", PK_SCALAR, K_SIZE, "4G", NULL},
    {"limits.pids", PK_SCALAR, K_PIDS, "1024", NULL},
    {"limits.cpu", PK_SCALAR, K_PCT, "200%", NULL},
    {"limits.nofile", PK_SCALAR, K_NOFILE, "4096", NULL},
    {"limits.fsize", PK_SCALAR, K_SIZE, "20G", NULL},
    {"limits.timeout", PK_SCALAR, K_TIMEOUT, "0", NULL},
    {"limits.enforce", PK_SCALAR, K_ENFORCE, "strict", NULL},
    {"pam", PK_SECTION, K_NONE, NULL, NULL},
    {"pam.services", PK_LIST, K_SERVICE, NULL, def_services},
};

const char *const policy_keys[] = {
    "shell",
    "hostname",
    "agents",
    "project.path",
    "project.roots",
    "project.target",
    "project.readonly",
    "project.protect",
    "home.path",
    "filesystem.root",
    "filesystem.hide",
    "filesystem.readonly",
    "filesystem.readwrite",
    "filesystem.tmp_size",
    "env.pass",
    "env.set",
    "env.secret",
    "env.secret.file",
    "network.mode",
    "network.allow",
    "network.deny",
    "network.allow_cidr",
    "network.ports",
    "network.transparent",
    "network.resolver",
    "network.proxy_port",
    "limits.memory",
    "limits.pids",
    "limits.cpu",
    "limits.nofile",
    "limits.fsize",
    "limits.timeout",
    "limits.enforce",
    "pam.services",
    NULL,
};

/* "env.secret.NAME.file" -> "env.secret.file" */
static const struct keydef *
keydef_find(const char *dotted)
{
	char buf[128];
	const char *k = dotted;
	size_t i;

	if (strncmp(dotted, "env.secret.", 11) == 0) {
		const char *last = strrchr(dotted + 11, '.');

		if (last == NULL)
			return NULL;
		snprintf(buf, sizeof(buf), "env.secret%s", last);
		k = buf;
	}
	for (i = 0; i < ELEMENTSOF(keys); i++)
		if (strcmp(keys[i].key, k) == 0)
			return &keys[i];
	return NULL;
}

int
policy_key_kind(const char *dotted)
{
	const struct keydef *kd = keydef_find(dotted);

	return kd ? kd->type : -1;
}

/* ---- parse state ---------------------------------------------------- */

struct slot { /* element origins of one libconfuse option */
	const cfg_opt_t *opt;
	char **org;
	size_t n;
};

struct assign { /* where a key was last assigned */
	char *key;
	char *origin;
};

struct policy_parse {
	cfg_t *cfg;
	const char *user, *home;
	struct policy_errs *errs;
	const char *fname; /* file being parsed */
	struct policy_lexctx *lx; /* its pre-scan */
	size_t file_errs0; /* errs->n when the file started */
	bool failed; /* a file failed to parse */
	bool allow_dollar;
	struct slot *slots;
	size_t nslots;
	struct assign *asg;
	size_t nasg;
	char **files;
	size_t nfiles;
	char *scratch; /* canonical value for libconfuse */
	char why[160]; /* dynamic reason text */
	struct aisb_policy *p; /* being built (finish) */
	struct policy_prov *prov;
};

/* libconfuse has no user pointer for callbacks; parsing is serial. */
static __thread struct policy_parse *cur;

static char *
xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* ---- value checks: in -> canonical *out (malloc) or *why ------------ */

static bool
bad_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Expand %u, %h, %%. */
static int
expand(struct policy_parse *ps, const char *in, char **out, const char **why)
{
	size_t n = 0, cap = strlen(in) + 1;
	char *o = malloc(cap);
	const char *s;

	if (o == NULL)
		return -ENOMEM;
	for (s = in; *s; s++) {
		const char *add = NULL;
		char one[2] = {*s, 0};
		size_t al;

		if (*s != '%') {
			add = one;
		} else if (s[1] == 'u') {
			add = ps->user;
			s++;
		} else if (s[1] == 'h') {
			if (ps->home == NULL) {
				free(o);
				*why =
				    "%h used, but the user's home is unknown";
				return -EINVAL;
			}
			add = ps->home;
			s++;
		} else if (s[1] == '%') {
			add = "%";
			s++;
		} else {
			free(o);
			*why = "unknown escape after '%' (use %u, %h or %%)";
			return -EINVAL;
		}
		al = strlen(add);
		if (n + al + 1 > cap) {
			char *no;

			cap = (n + al + 1) * 2;
			no = realloc(o, cap);
			if (no == NULL) {
				free(o);
				return -ENOMEM;
			}
			o = no;
		}
		memcpy(o + n, add, al);
		n += al;
	}
	o[n] = '\0';
	*out = o;
	return 0;
}

/*
 * A path: absolute (or relative when rel), no "." or ".." components,
 * no control characters, glob characters only when glob.  Canonical:
 * repeated and trailing slashes removed.
 */
static int
check_path(const char *in, bool rel, bool glob, char **out, const char **why)
{
	char *o, *w;
	const char *s = in;

	if (*in == '\0') {
		*why = "empty path";
		return -EINVAL;
	}
	if (!rel && in[0] != '/') {
		*why = "must be an absolute path";
		return -EINVAL;
	}
	if (rel && in[0] == '/') {
		*why = "must be relative to the project (no leading '/')";
		return -EINVAL;
	}
	if (bad_chars(in)) {
		*why = "control character in path";
		return -EINVAL;
	}
	if (strlen(in) >= PATH_MAX) {
		*why = "path too long";
		return -EINVAL;
	}
	if (!glob && strpbrk(in, "*?[") != NULL) {
		*why = "glob characters (* ? [) are not allowed here";
		return -EINVAL;
	}
	o = w = malloc(strlen(in) + 2);
	if (o == NULL)
		return -ENOMEM;
	while (*s) {
		const char *e;
		size_t n;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = strchr(s, '/');
		n = e ? (size_t)(e - s) : strlen(s);
		if ((n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.')) {
			free(o);
			*why = "'.' and '..' components are not allowed";
			return -EINVAL;
		}
		if (w != o || !rel)
			*w++ = '/';
		memcpy(w, s, n);
		w += n;
		s += n;
	}
	if (w == o) {
		if (rel) {
			free(o);
			*why = "empty path";
			return -EINVAL;
		}
		*w++ = '/';
	}
	*w = '\0';
	*out = o;
	return 0;
}

static int
parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		return -EINVAL; /* no octal-looking numbers */
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (*s != '\0')
		return -EINVAL;
	*v = x;
	return 0;
}

#define SIZE_MAX_BYTES (1ULL << 50) /* 1P: above any real limit */

static int
parse_size(const char *in, uint64_t *v, const char **why)
{
	char num[32];
	size_t n = strlen(in);
	uint64_t mul = 1, x;
	int r;

	if (n == 0 || n >= sizeof(num)) {
		*why = "not a size (a number with an optional K, M, G or T "
		       "suffix, e.g. \"4G\")";
		return -EINVAL;
	}
	memcpy(num, in, n + 1);
	switch (num[n - 1]) {
	case 'K':
	case 'k':
		mul = 1ULL << 10;
		break;
	case 'M':
	case 'm':
		mul = 1ULL << 20;
		break;
	case 'G':
	case 'g':
		mul = 1ULL << 30;
		break;
	case 'T':
	case 't':
		mul = 1ULL << 40;
		break;
	default:
		break;
	}
	if (mul != 1)
		num[n - 1] = '\0';
	r = parse_u64(num, &x);
	if (r < 0 || x > SIZE_MAX_BYTES / mul || x * mul > SIZE_MAX_BYTES) {
		*why = r == -EINVAL ? "not a size (a number with an optional "
		                      "K, M, G or T suffix, e.g. \"4G\")"
		                    : "size above 1P";
		return -EINVAL;
	}
	*v = x * mul;
	return 0;
}

static int
parse_count(const char *in, uint64_t max, uint64_t *v, const char **why,
    char *whybuf, size_t wlen)
{
	uint64_t x;

	if (parse_u64(in, &x) < 0) {
		*why = "not a number (a non-negative decimal integer)";
		return -EINVAL;
	}
	if (x > max) {
		snprintf(whybuf, wlen, "above the limit %llu",
		    (unsigned long long)max);
		*why = whybuf;
		return -EINVAL;
	}
	*v = x;
	return 0;
}

static int
parse_port(const char *in, uint16_t *port, const char **why)
{
	uint64_t x;

	if (parse_u64(in, &x) < 0) {
		*why = "not a port number";
		return -EINVAL;
	}
	if (x < 1 || x > 65535) {
		*why = "port out of range 1-65535";
		return -EINVAL;
	}
	*port = (uint16_t)x;
	return 0;
}

static bool
env_name_ok(const char *s, bool glob)
{
	if (*s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' ||
		        (glob && (*s == '*' || *s == '?'))))
			return false;
	return true;
}

static bool
name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max || s[0] == '-' || s[0] == '.')
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' ||
		        *s == '.'))
			return false;
	return true;
}

/* "host" or "host:22,443" (ports in the same string, quoted). */
static int
parse_hostrule(const char *in, char *host, uint16_t *ports, size_t *nports,
    const char **why)
{
	const char *colon = strchr(in, ':');
	size_t hlen = colon ? (size_t)(colon - in) : strlen(in);
	int r;

	*nports = 0;
	if (hostpat_is_ip_literal(in, strlen(in)) ||
	    hostpat_is_ip_literal(in, hlen)) {
		*why = "an IP address, not a host name (addresses go in "
		       "network.allow_cidr)";
		return -EINVAL;
	}
	r = hostpat_canon(in, hlen, true, host, why);
	if (r < 0)
		return r;
	if (colon == NULL)
		return 0;
	if (colon[1] == '\0') {
		*why = "':' without ports";
		return -EINVAL;
	}
	for (const char *s = colon + 1; *s;) {
		char buf[8];
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n == 0 || n >= sizeof(buf)) {
			*why = "bad port list (\"host:22,443\")";
			return -EINVAL;
		}
		if (*nports == 32) {
			*why = "more than 32 ports in one entry";
			return -EINVAL;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		if ((r = parse_port(buf, &ports[*nports], why)) < 0)
			return r;
		(*nports)++;
		s += n;
		if (*s == ',') {
			s++;
			if (*s == '\0') {
				*why = "bad port list (\"host:22,443\")";
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int
parse_resolver(const char *in, int *family, uint8_t addr[16], uint16_t *port,
    char *canon, size_t clen, const char **why)
{
	char a[INET6_ADDRSTRLEN + 2], txt[INET6_ADDRSTRLEN];
	const char *ps = NULL, *colon;
	size_t n;

	*family = 0;
	*port = 53;
	memset(addr, 0, 16);
	if (*in == '\0') {
		canon[0] = '\0';
		return 0;
	}
	*why = "not \"ADDR\", \"ADDR:PORT\" or \"[V6]:PORT\"";
	if (in[0] == '[') {
		const char *e = strchr(in, ']');

		if (e == NULL || (size_t)(e - in - 1) >= sizeof(a))
			return -EINVAL;
		n = (size_t)(e - in - 1);
		memcpy(a, in + 1, n);
		a[n] = '\0';
		if (e[1] == ':')
			ps = e + 2;
		else if (e[1] != '\0')
			return -EINVAL;
		if (inet_pton(AF_INET6, a, addr) != 1)
			return -EINVAL;
		*family = AF_INET6;
	} else {
		colon = strchr(in, ':');
		if (colon != NULL && strchr(colon + 1, ':') != NULL) {
			/* bare v6, no port */
			if (strlen(in) >= sizeof(a) ||
			    inet_pton(AF_INET6, in, addr) != 1)
				return -EINVAL;
			*family = AF_INET6;
		} else {
			n = colon ? (size_t)(colon - in) : strlen(in);
			if (n >= sizeof(a))
				return -EINVAL;
			memcpy(a, in, n);
			a[n] = '\0';
			if (inet_pton(AF_INET, a, addr) != 1)
				return -EINVAL;
			*family = AF_INET;
			if (colon)
				ps = colon + 1;
		}
	}
	if (ps != NULL && parse_port(ps, port, why) < 0)
		return -EINVAL;
	inet_ntop(*family, addr, txt, sizeof(txt));
	if (*family == AF_INET6)
		snprintf(canon, clen, "[%s]", txt);
	else
		snprintf(canon, clen, "%s", txt);
	if (ps != NULL)
		snprintf(canon + strlen(canon), clen - strlen(canon), ":%u",
		    (unsigned)*port);
	return 0;
}

static int
parse_bool(const char *in, bool *b)
{
	/* One spelling each, as aisb.conf(5) says (not libconfuse's yes/on). */
	if (strcmp(in, "true") == 0 || strcmp(in, "false") == 0) {
		*b = in[0] == 't';
		return 0;
	}
	return -EINVAL;
}

/*
 * Check one value of kind k; on success *out is the canonical text that
 * libconfuse stores (and finish() converts without further errors).
 */
static int
check_value(struct policy_parse *ps, enum kind k, const char *in, char **out,
    const char **why)
{
	_cleanup_free_ char *x = NULL;
	char buf[HOST_MAX + 64 * 7];
	uint64_t v;
	uint16_t ports[32], port;
	size_t np, i;
	bool b;
	int r;

	*out = NULL;
	*why = NULL;
	if (strlen(in) > POLICY_MAX_STR) {
		*why = "value longer than 4096 bytes";
		return -EINVAL;
	}
	if (bad_chars(in) && k != K_ENVSET) {
		*why = "control character in value";
		return -EINVAL;
	}
	switch (k) {
	case K_PATH:
		return check_path(in, false, false, out, why);
	case K_RELPATH:
		return check_path(in, true, false, out, why);
	case K_HOMEPATH:
		if (strcmp(in, "tmpfs") == 0)
			return (*out = strdup(in)) ? 0 : -ENOMEM;
		/* FALLTHROUGH */
	case K_PATHX:
	case K_GLOBX:
		/*
		 * Checked as written ("." and ".." components), then in
		 * full once expanded: "%h/x" is absolute only then, and a
		 * ".." that a name brings in is caught there.
		 */
		if (in[0] == '%') {
			char *rel = NULL;

			r = check_path(in, true, k == K_GLOBX, &rel, why);
			free(rel);
		} else {
			r = check_path(in, false, k == K_GLOBX, &x, why);
			free(x);
			x = NULL;
		}
		if (r < 0)
			return r;
		if ((r = expand(ps, in, &x, why)) < 0)
			return r;
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		r = check_path(x, false, k == K_GLOBX, out, why);
		if (r < 0 && *why != NULL && strchr(in, '%') != NULL) {
			snprintf(ps->why, sizeof(ps->why),
			    "after %%u/%%h "
			    "expansion: %s",
			    *why);
			*why = ps->why;
		}
		return r;
	case K_HOSTNAME:
		if (strlen(in) > 64 || strchr(in, '*') != NULL ||
		    hostpat_canon(in, strlen(in), false, buf, why) < 0) {
			if (*why == NULL || strlen(in) > 64)
				*why = "not a host name (letters, digits, '-' "
				       "and '.', at most 64 bytes)";
			return -EINVAL;
		}
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	case K_AGENT:
		if (!name_ok(in[0] == '@' ? in + 1 : in, 32)) {
			*why = "not a user name or @group";
			return -EINVAL;
		}
		break;
	case K_SERVICE:
		if (!name_ok(in, 64)) {
			*why = "not a PAM service name";
			return -EINVAL;
		}
		break;
	case K_BOOL:
		if (parse_bool(in, &b) < 0) {
			*why = "not a boolean (true or false)";
			return -EINVAL;
		}
		return (*out = strdup(b ? "true" : "false")) ? 0 : -ENOMEM;
	case K_SIZE:
	case K_TMPSIZE:
		if (parse_size(in, &v, why) < 0)
			return -EINVAL;
		if (k == K_TMPSIZE && v < (1ULL << 20)) {
			*why = "at least 1M (0 would be an unlimited tmpfs)";
			return -EINVAL;
		}
		policy_fmt_size(v, buf, sizeof(buf));
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	case K_COUNT:
	case K_PIDS:
	case K_NOFILE:
	case K_TIMEOUT:
		if (parse_count(in,
		        k == K_PIDS          ? 4194304
		            : k == K_NOFILE  ? 1048576
		            : k == K_TIMEOUT ? 315360000
		                             : UINT32_MAX,
		        &v, why, ps->why, sizeof(ps->why)) < 0)
			return -EINVAL;
		break;
	case K_PCT: {
		size_t n = strlen(in);

		if (n < 2 || in[n - 1] != '%' || n > 10) {
			*why = "not a percentage (\"200%\": two cores)";
			return -EINVAL;
		}
		memcpy(buf, in, n - 1);
		buf[n - 1] = '\0';
		if (parse_count(
		        buf, 102400, &v, why, ps->why, sizeof(ps->why)) < 0)
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%llu%%", (unsigned long long)v);
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	}
	case K_PORT:
		if (parse_port(in, &port, why) < 0)
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%u", (unsigned)port);
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	case K_HOSTRULE: {
		char host[HOST_MAX + 1];

		if (parse_hostrule(in, host, ports, &np, why) < 0)
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%s", host);
		for (i = 0; i < np; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "%c%u", i ? ',' : ':', (unsigned)ports[i]);
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	}
	case K_CIDR: {
		struct aisb_cidr c;

		if (cidr_parse(in, &c, why) < 0)
			return -EINVAL;
		cidr_format(&c, buf, sizeof(buf));
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	}
	case K_ENVGLOB:
		if (!env_name_ok(in, true)) {
			*why = "not an environment name or glob "
			       "([A-Za-z_][A-Za-z0-9_]*, with * or ?)";
			return -EINVAL;
		}
		break;
	case K_ENVSET: {
		const char *eq = strchr(in, '=');

		if (eq == NULL || eq == in) {
			*why = "not NAME=value";
			return -EINVAL;
		}
		memcpy(buf, in,
		    (size_t)(eq - in) < sizeof(buf) ? (size_t)(eq - in) : 0);
		buf[(size_t)(eq - in) < sizeof(buf) ? eq - in : 0] = '\0';
		if (!env_name_ok(buf, false)) {
			*why = "not NAME=value (NAME: [A-Za-z_][A-Za-z0-9_]*)";
			return -EINVAL;
		}
		if (strchr(eq, '\n') != NULL || strchr(eq, '\r') != NULL) {
			*why = "newline in the value";
			return -EINVAL;
		}
		break;
	}
	case K_NETMODE:
		if (strcmp(in, "gated") != 0 && strcmp(in, "none") != 0) {
			*why = "must be gated or none";
			return -EINVAL;
		}
		break;
	case K_ENFORCE:
		if (strcmp(in, "strict") != 0 &&
		    strcmp(in, "best-effort") != 0) {
			*why = "must be strict or best-effort";
			return -EINVAL;
		}
		break;
	case K_RESOLVER: {
		int fam;
		uint8_t a[16];

		if (parse_resolver(in, &fam, a, &port, buf, sizeof(buf), why) <
		    0)
			return -EINVAL;
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	}
	case K_NONE:
	default:
		*why = "internal error: no checker";
		return -EINVAL;
	}
	return (*out = strdup(in)) ? 0 : -ENOMEM;
}

/* ---- provenance bookkeeping ---------------------------------------- */

static struct slot *
slot_get(struct policy_parse *ps, const cfg_opt_t *opt)
{
	struct slot *ns;
	size_t i;

	for (i = 0; i < ps->nslots; i++)
		if (ps->slots[i].opt == opt)
			return &ps->slots[i];
	ns = realloc(ps->slots, (ps->nslots + 1) * sizeof(*ns));
	if (ns == NULL)
		return NULL;
	ps->slots = ns;
	memset(&ns[ps->nslots], 0, sizeof(*ns));
	ns[ps->nslots].opt = opt;
	return &ns[ps->nslots++];
}

/* Element idx of opt came from origin; later elements are gone. */
static void
slot_set(struct policy_parse *ps, const cfg_opt_t *opt, size_t idx,
    const char *origin)
{
	struct slot *s = slot_get(ps, opt);
	char **no;

	if (s == NULL)
		return;
	while (s->n > idx)
		free(s->org[--s->n]);
	no = realloc(s->org, (idx + 1) * sizeof(*no));
	if (no == NULL)
		return;
	s->org = no;
	while (s->n < idx)
		s->org[s->n++] = NULL;
	s->org[s->n++] = xstrdup(origin);
}

static void
on_assign(void *arg, const char *key, int line)
{
	struct policy_parse *ps = arg;
	struct assign *na;
	char *o = NULL;
	size_t i;

	if (asprintf(&o, "%s:%d", ps->fname, line) < 0)
		return;
	for (i = 0; i < ps->nasg; i++)
		if (strcmp(ps->asg[i].key, key) == 0) {
			free(ps->asg[i].origin);
			ps->asg[i].origin = o;
			return;
		}
	na = realloc(ps->asg, (ps->nasg + 1) * sizeof(*na));
	if (na == NULL || (na[ps->nasg].key = strdup(key)) == NULL) {
		if (na != NULL)
			ps->asg = na;
		free(o);
		return;
	}
	ps->asg = na;
	na[ps->nasg++].origin = o;
}

static const char *
assigned(const struct policy_parse *ps, const char *key)
{
	size_t i;

	for (i = 0; i < ps->nasg; i++)
		if (strcmp(ps->asg[i].key, key) == 0)
			return ps->asg[i].origin;
	return NULL;
}

/* ---- libconfuse callbacks ------------------------------------------ */

static size_t
nopts(const cfg_t *cfg)
{
	size_t n = 0;

	while (cfg->opts[n].name != NULL)
		n++;
	return n;
}

/* Dotted key of opt in section cfg ("network.allow"). */
static void
dotted(const cfg_t *cfg, const cfg_opt_t *opt, char *buf, size_t len)
{
	if (cfg->name == NULL || strcmp(cfg->name, "root") == 0)
		snprintf(buf, len, "%s", opt->name);
	else if (strcmp(cfg->name, "secret") == 0)
		snprintf(buf, len, "env.secret.%s.%s",
		    cfg->title ? cfg->title : "?", opt->name);
	else
		snprintf(buf, len, "%s.%s", cfg->name, opt->name);
}

static void
verr(struct policy_parse *ps, int line, const char *key, const char *why)
{
	if (ps->lx != NULL && policy_lex_bad_line(ps->lx, line))
		return; /* the pre-scan already said it */
	policy_err(ps->errs, "%s:%d: %s: %s", ps->fname, line, key, why);
}

static int
on_value(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result)
{
	struct policy_parse *ps = cur;
	const struct keydef *kd;
	char key[256], origin[PATH_MAX + 16];
	const char *why = NULL;
	char *canon = NULL;
	size_t idx;
	int r;

	*(const char **)result = value;
	if (ps == NULL || value == NULL)
		return -1;
	dotted(cfg, opt, key, sizeof(key));
	idx = opt->nvalues ? opt->nvalues - 1 : 0;
	if (opt < cfg->opts || opt >= cfg->opts + nopts(cfg)) {
		verr(ps, cfg->line, opt->name,
		    "'|' key paths are not "
		    "supported: write sections");
		return 0;
	}
	if (idx >= POLICY_MAX_LIST) {
		/* Stop here: bounded memory, and the file is wrong anyway. */
		verr(ps, cfg->line, key, "list longer than 1024 entries");
		return -1;
	}
	kd = keydef_find(key);
	if (kd == NULL) {
		verr(ps, cfg->line, key, "unknown key");
		return 0;
	}
	r = check_value(ps, kd->kind, value, &canon, &why);
	if (r == -ENOMEM)
		return -1;
	if (r < 0) {
		verr(ps, cfg->line, key, why ? why : "invalid value");
		return 0;
	}
	snprintf(origin, sizeof(origin), "%s:%d", ps->fname, cfg->line);
	slot_set(ps, opt, idx, origin);
	free(ps->scratch);
	ps->scratch = canon;
	*(const char **)result = canon;
	return 0;
}

static void
on_error(cfg_t *cfg, const char *fmt, va_list ap)
{
	struct policy_parse *ps = cur;
	char msg[512], arg[256] = "";
	const char *sec;

	if (ps == NULL)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/*
	 * libconfuse stops at its first syntax error; when the pre-scan
	 * has already found what is wrong with this file, that error is a
	 * consequence (or a repeat) and would only confuse.
	 */
	if (ps->lx != NULL && ps->lx->nbad > 0)
		return;
	sec = cfg->name && strcmp(cfg->name, "root") != 0 ? cfg->name : NULL;
	if (sec != NULL && strcmp(sec, "secret") == 0)
		sec = "env.secret";
	if (sscanf(msg, "no such option '%255[^']'", arg) == 1)
		policy_err(ps->errs, "%s:%d: %s%s%s: unknown key", ps->fname,
		    cfg->line, sec ? sec : "", sec ? "." : "", arg);
	else if (sscanf(msg, "found duplicate title '%255[^']'", arg) == 1)
		policy_err(ps->errs,
		    "%s:%d: env.secret.%s: secret defined "
		    "twice",
		    ps->fname, cfg->line, arg);
	else
		policy_err(ps->errs, "%s:%d: %s%ssyntax error: %s", ps->fname,
		    cfg->line, sec ? sec : "", sec ? ": " : "", msg);
}

/* ---- the libconfuse schema ------------------------------------------ */

#define S(n) CFG_STR_CB(n, NULL, CFGF_NODEFAULT, on_value)
#define L(n) CFG_STR_LIST_CB(n, NULL, CFGF_NODEFAULT, on_value)

static cfg_opt_t project_opts[] = {
    S("path"), L("roots"), S("target"), S("readonly"), L("protect"), CFG_END()};
static cfg_opt_t home_opts[] = {S("path"), CFG_END()};
static cfg_opt_t fs_opts[] = {S("root"), L("hide"), L("readonly"),
    L("readwrite"), S("tmp_size"), CFG_END()};
static cfg_opt_t secret_opts[] = {S("file"), CFG_END()};
static cfg_opt_t env_opts[] = {L("pass"), L("set"),
    CFG_SEC(
        "secret", secret_opts, CFGF_MULTI | CFGF_TITLE | CFGF_NO_TITLE_DUPES),
    CFG_END()};
static cfg_opt_t net_opts[] = {S("mode"), L("allow"), L("deny"),
    L("allow_cidr"), L("ports"), S("transparent"), S("resolver"),
    S("proxy_port"), CFG_END()};
static cfg_opt_t limits_opts[] = {S("memory"), S("pids"), S("cpu"), S("nofile"),
    S("fsize"), S("timeout"), S("enforce"), CFG_END()};
static cfg_opt_t pam_opts[] = {L("services"), CFG_END()};
static cfg_opt_t root_opts[] = {S("shell"), S("hostname"), L("agents"),
    CFG_SEC("project", project_opts, CFGF_NONE),
    CFG_SEC("home", home_opts, CFGF_NONE),
    CFG_SEC("filesystem", fs_opts, CFGF_NONE),
    CFG_SEC("env", env_opts, CFGF_NONE),
    CFG_SEC("network", net_opts, CFGF_NONE),
    CFG_SEC("limits", limits_opts, CFGF_NONE),
    CFG_SEC("pam", pam_opts, CFGF_NONE), CFG_END()};

/* ---- parse ------------------------------------------------------------ */

struct policy_parse *
policy_parse_new(const char *user, const char *home, struct policy_errs *errs)
{
	struct policy_parse *ps = calloc(1, sizeof(*ps));

	if (ps == NULL)
		return NULL;
	ps->user = user;
	ps->home = home;
	ps->errs = errs;
	/* No CFGF_IGNORE_UNKNOWN, no include function: see AESTHETICS 4.3. */
	ps->cfg = cfg_init(root_opts, CFGF_NONE);
	if (ps->cfg == NULL) {
		free(ps);
		return NULL;
	}
	cfg_set_error_function(ps->cfg, on_error);
	return ps;
}

void
policy_parse_allow_dollar(struct policy_parse *ps)
{
	ps->allow_dollar = true;
}

int
policy_parse_text(
    struct policy_parse *ps, const char *name, const char *text, size_t len)
{
	struct policy_lexctx lx;
	_cleanup_free_ char *blank = NULL;
	char *empty_env[1] = {NULL}, **saved_env, **nf;
	size_t nerr, before = ps->errs->n;
	FILE *f;
	int r;

	if (ps->failed)
		return -EINVAL;
	if (len > POLICY_MAX_FILE) {
		policy_err(ps->errs,
		    "%s: larger than %d bytes: not a policy "
		    "file",
		    name, POLICY_MAX_FILE);
		ps->failed = true;
		return -EINVAL;
	}
	nf = realloc(ps->files, (ps->nfiles + 1) * sizeof(*nf));
	if (nf == NULL)
		return -ENOMEM;
	ps->files = nf;
	if ((ps->files[ps->nfiles] = strdup(name)) == NULL)
		return -ENOMEM;
	ps->fname = ps->files[ps->nfiles++];
	blank = malloc(len + 1);
	if (blank == NULL)
		return -ENOMEM;
	memset(&lx, 0, sizeof(lx));
	lx.name = ps->fname;
	lx.errs = ps->errs;
	lx.assign = on_assign;
	lx.arg = ps;
	lx.allow_dollar = ps->allow_dollar;
	nerr = policy_lex(&lx, text, len, blank);
	blank[len] = '\0';
	if (nerr > 0 && memchr(text, '\0', len) != NULL) {
		ps->failed = true;
		return -EINVAL;
	}
	if (len == 0)
		return 0;
	f = fmemopen(blank, len, "r");
	if (f == NULL)
		return -errno;
	ps->lx = &lx;
	cur = ps;
	/*
	 * libconfuse replaces ${VAR} with getenv("VAR") in unquoted and
	 * double-quoted values.  The pre-scan refuses '$' already; as a
	 * second layer the parse sees an empty environment.  We swap the
	 * pointer rather than clearenv(): this runs inside sshd or su
	 * through pam_aisb.so, whose environment must stay intact.
	 */
	saved_env = environ;
	environ = empty_env;
	r = cfg_parse_fp(ps->cfg, f);
	environ = saved_env;
	cur = NULL;
	ps->lx = NULL;
	fclose(f);
	if (r != CFG_SUCCESS) {
		/* A syntax error stops libconfuse; make sure it is said. */
		if (ps->errs->n == before)
			policy_err(ps->errs, "%s:%d: syntax error", ps->fname,
			    ps->cfg->line);
		ps->failed = true;
		return -EINVAL;
	}
	return ps->errs->n > before ? -EINVAL : 0;
}

void
policy_parse_free(struct policy_parse *ps)
{
	size_t i, j;

	if (ps == NULL)
		return;
	if (ps->cfg)
		cfg_free(ps->cfg);
	for (i = 0; i < ps->nslots; i++) {
		for (j = 0; j < ps->slots[i].n; j++)
			free(ps->slots[i].org[j]);
		free(ps->slots[i].org);
	}
	free(ps->slots);
	for (i = 0; i < ps->nasg; i++) {
		free(ps->asg[i].key);
		free(ps->asg[i].origin);
	}
	free(ps->asg);
	for (i = 0; i < ps->nfiles; i++)
		free(ps->files[i]);
	free(ps->files);
	free(ps->scratch);
	free(ps);
}

/* ---- finish: defaults, conversion, cross-checks ---------------------- */

/* The final values of one key: canonical strings and their origins. */
struct vals {
	char **v;
	char **org;
	size_t n;
	const char *origin; /* of the key */
};

static void
vals_free(struct vals *vs)
{
	size_t i;

	for (i = 0; i < vs->n; i++) {
		free(vs->v[i]);
		free(vs->org[i]);
	}
	free(vs->v);
	free(vs->org);
	memset(vs, 0, sizeof(*vs));
}

static int
vals_add(struct vals *vs, const char *v, const char *org)
{
	char **a, **b;

	a = realloc(vs->v, (vs->n + 1) * sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	vs->v = a;
	b = realloc(vs->org, (vs->n + 1) * sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	vs->org = b;
	vs->v[vs->n] = strdup(v);
	vs->org[vs->n] = strdup(org);
	if (vs->v[vs->n] == NULL || vs->org[vs->n] == NULL) {
		free(vs->v[vs->n]);
		free(vs->org[vs->n]);
		return -ENOMEM;
	}
	vs->n++;
	return 0;
}

static cfg_t *
section_of(struct policy_parse *ps, const char *key, const char **name)
{
	const char *dot = strchr(key, '.');
	char sec[32];

	if (dot == NULL) {
		*name = key;
		return ps->cfg;
	}
	snprintf(sec, sizeof(sec), "%.*s", (int)(dot - key), key);
	*name = dot + 1;
	return cfg_getsec(ps->cfg, sec);
}

static int
gather(struct policy_parse *ps, const struct keydef *kd, struct vals *vs)
{
	const char *org = assigned(ps, kd->key), *name, *why;
	cfg_t *sec;
	cfg_opt_t *opt;
	struct slot *sl;
	size_t i, n;
	int r;

	memset(vs, 0, sizeof(*vs));
	if (org != NULL) {
		sec = section_of(ps, kd->key, &name);
		opt = sec ? cfg_getopt(sec, name) : NULL;
		if (opt == NULL)
			return -EINVAL;
		sl = slot_get(ps, opt);
		n = cfg_opt_size(opt);
		vs->origin = org;
		for (i = 0; i < n; i++) {
			const char *v = cfg_opt_getnstr(opt, (unsigned)i);
			const char *o =
			    sl && i < sl->n && sl->org[i] ? sl->org[i] : org;

			if (v != NULL && (r = vals_add(vs, v, o)) < 0)
				return r;
		}
		return 0;
	}
	vs->origin = "default";
	for (i = 0; kd->defl ? kd->defl[i] != NULL : i < 1; i++) {
		const char *d = kd->defl ? kd->defl[i] : kd->def;
		_cleanup_free_ char *c = NULL;

		if (d == NULL)
			break;
		r = check_value(ps, kd->kind, d, &c, &why);
		if (r < 0) {
			policy_err(ps->errs,
			    "default: %s: %s (the default "
			    "needs a value for %%u or %%h; set the key)",
			    kd->key, why ? why : "invalid");
			return r;
		}
		if ((r = vals_add(vs, c, "default")) < 0)
			return r;
	}
	return 0;
}

static int
strv_set(struct aisb_strv *sv, const struct vals *vs)
{
	size_t i;

	sv->v = calloc(vs->n + 1, sizeof(char *));
	if (sv->v == NULL)
		return -ENOMEM;
	for (i = 0; i < vs->n; i++)
		if ((sv->v[i] = strdup(vs->v[i])) == NULL)
			return -ENOMEM;
	sv->n = vs->n;
	return 0;
}

static int
prov_add(struct policy_prov *pv, const char *key, const struct vals *vs,
    bool list, const char *origin)
{
	struct policy_origin_ent *ne, *e;
	size_t i;

	ne = realloc(pv->ent, (pv->n + 1) * sizeof(*ne));
	if (ne == NULL)
		return -ENOMEM;
	pv->ent = ne;
	e = &ne[pv->n];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	e->origin = strdup(origin ? origin : vs->origin);
	if (e->key == NULL || e->origin == NULL) {
		free(e->key);
		free(e->origin);
		return -ENOMEM;
	}
	pv->n++;
	if (list) {
		e->elem = calloc(vs->n + 1, sizeof(char *));
		if (e->elem == NULL)
			return -ENOMEM;
		for (i = 0; i < vs->n; i++)
			if ((e->elem[i] = strdup(vs->org[i])) == NULL)
				return -ENOMEM;
		e->nelem = vs->n;
	}
	return 0;
}

static uint64_t
u64_of(const char *s)
{
	uint64_t v = 0;
	const char *why;

	if (parse_size(s, &v, &why) < 0)
		return 0;
	return v;
}

static int
hostrules(const struct vals *vs, struct aisb_hostrule **out, size_t *n)
{
	size_t i;

	*out = calloc(vs->n + 1, sizeof(**out));
	if (*out == NULL)
		return -ENOMEM;
	*n = vs->n; /* zeroed entries free cleanly on failure */
	for (i = 0; i < vs->n; i++) {
		struct aisb_hostrule *h = &(*out)[i];
		char host[HOST_MAX + 1];
		uint16_t ports[32];
		size_t np;
		const char *why;

		if (parse_hostrule(vs->v[i], host, ports, &np, &why) < 0)
			return -EINVAL;
		h->host = strdup(host);
		h->src = strdup(vs->org[i]);
		if (np > 0) {
			h->ports = calloc(np, sizeof(uint16_t));
			if (h->ports == NULL)
				return -ENOMEM;
			memcpy(h->ports, ports, np * sizeof(uint16_t));
		}
		h->nports = np;
		if (h->host == NULL || h->src == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* Convert key kd's values into the policy struct. */
static int
apply(struct policy_parse *ps, const struct keydef *kd, const struct vals *vs)
{
	struct aisb_policy *p = ps->p;
	const char *k = kd->key, *v = vs->n ? vs->v[0] : "";
	const char *why;
	size_t i;
	bool b = false;

	if (kd->kind == K_BOOL)
		(void)parse_bool(v, &b);
#define IS(name) (strcmp(k, name) == 0)
	if (IS("shell"))
		return (p->shell = strdup(v)) ? 0 : -ENOMEM;
	if (IS("hostname"))
		return (p->hostname = strdup(v)) ? 0 : -ENOMEM;
	if (IS("agents"))
		return strv_set(&p->agents, vs);
	if (IS("project.path"))
		return (p->project.path = strdup(v)) ? 0 : -ENOMEM;
	if (IS("project.roots"))
		return strv_set(&p->project.roots, vs);
	if (IS("project.target"))
		return (p->project.target = strdup(v)) ? 0 : -ENOMEM;
	if (IS("project.readonly")) {
		p->project.readonly = b;
		return 0;
	}
	if (IS("project.protect"))
		return strv_set(&p->project.protect, vs);
	if (IS("home.path")) {
		p->home.tmpfs = strcmp(v, "tmpfs") == 0;
		if (p->home.tmpfs)
			return 0;
		return (p->home.path = strdup(v)) ? 0 : -ENOMEM;
	}
	if (IS("filesystem.root"))
		return (p->fs.root = strdup(v)) ? 0 : -ENOMEM;
	if (IS("filesystem.hide"))
		return strv_set(&p->fs.hide, vs);
	if (IS("filesystem.readonly"))
		return strv_set(&p->fs.readonly, vs);
	if (IS("filesystem.readwrite"))
		return strv_set(&p->fs.readwrite, vs);
	if (IS("filesystem.tmp_size")) {
		p->fs.tmp_size = u64_of(v);
		return 0;
	}
	if (IS("env.pass"))
		return strv_set(&p->env.pass, vs);
	if (IS("env.set"))
		return strv_set(&p->env.set, vs);
	if (IS("network.mode")) {
		p->net.mode =
		    strcmp(v, "none") == 0 ? AISB_NET_NONE : AISB_NET_GATED;
		return 0;
	}
	if (IS("network.allow"))
		return hostrules(vs, &p->net.allow, &p->net.nallow);
	if (IS("network.deny"))
		return hostrules(vs, &p->net.deny, &p->net.ndeny);
	if (IS("network.allow_cidr")) {
		p->net.allow_cidr = calloc(vs->n + 1, sizeof(struct aisb_cidr));
		if (p->net.allow_cidr == NULL)
			return -ENOMEM;
		for (i = 0; i < vs->n; i++)
			if (cidr_parse(vs->v[i], &p->net.allow_cidr[i], &why) <
			    0)
				return -EINVAL;
		p->net.nallow_cidr = vs->n;
		return 0;
	}
	if (IS("network.ports")) {
		p->net.ports = calloc(vs->n + 1, sizeof(uint16_t));
		if (p->net.ports == NULL)
			return -ENOMEM;
		for (i = 0; i < vs->n; i++)
			if (parse_port(vs->v[i], &p->net.ports[i], &why) < 0)
				return -EINVAL;
		p->net.nports = vs->n;
		return 0;
	}
	if (IS("network.transparent")) {
		p->net.transparent = b;
		return 0;
	}
	if (IS("network.resolver")) {
		char canon[INET6_ADDRSTRLEN + 16];

		if (parse_resolver(v, &p->net.resolver_family,
		        p->net.resolver_addr, &p->net.resolver_port, canon,
		        sizeof(canon), &why) < 0)
			return -EINVAL;
		return (p->net.resolver = strdup(canon)) ? 0 : -ENOMEM;
	}
	if (IS("network.proxy_port"))
		return parse_port(v, &p->net.proxy_port, &why);
	if (IS("limits.memory")) {
		p->limits.memory = u64_of(v);
		return 0;
	}
	if (IS("limits.pids")) {
		p->limits.pids = u64_of(v);
		return 0;
	}
	if (IS("limits.cpu")) {
		p->limits.cpu = (unsigned)strtoul(v, NULL, 10);
		return 0;
	}
	if (IS("limits.nofile")) {
		p->limits.nofile = u64_of(v);
		return 0;
	}
	if (IS("limits.fsize")) {
		p->limits.fsize = u64_of(v);
		return 0;
	}
	if (IS("limits.timeout")) {
		p->limits.timeout = u64_of(v);
		return 0;
	}
	if (IS("limits.enforce")) {
		p->limits.enforce = strcmp(v, "best-effort") == 0
		    ? AISB_ENFORCE_BEST_EFFORT
		    : AISB_ENFORCE_STRICT;
		return 0;
	}
	if (IS("pam.services"))
		return strv_set(&p->pam.services, vs);
#undef IS
	return -EINVAL;
}

static int
secrets(struct policy_parse *ps)
{
	struct aisb_policy *p = ps->p;
	cfg_t *env = cfg_getsec(ps->cfg, "env");
	size_t n = env ? cfg_size(env, "secret") : 0, i;
	const char *last = NULL;
	char key[256];
	int r, bad = 0;

	p->env.secrets = calloc(n + 1, sizeof(*p->env.secrets));
	if (p->env.secrets == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		cfg_t *s = cfg_getnsec(env, "secret", (unsigned)i);
		const char *title = s ? cfg_title(s) : NULL;
		const char *file, *org, *forg;
		cfg_opt_t *fo;
		struct slot *sl;
		struct vals vs = {0};

		if (s == NULL || title == NULL)
			continue;
		snprintf(key, sizeof(key), "env.secret.%s", title);
		org = assigned(ps, key);
		if (org == NULL)
			org = "?";
		last = org;
		if (!env_name_ok(title, false)) {
			policy_err(ps->errs,
			    "%s: env.secret: '%s' is not an "
			    "environment name ([A-Za-z_][A-Za-z0-9_]*)",
			    org, title);
			bad++;
			continue;
		}
		fo = cfg_getopt(s, "file");
		file = fo && cfg_opt_size(fo) ? cfg_opt_getnstr(fo, 0) : NULL;
		if (file == NULL) {
			policy_err(
			    ps->errs, "%s: %s: 'file' is required", org, key);
			bad++;
			continue;
		}
		sl = slot_get(ps, fo);
		forg = sl && sl->n && sl->org[0] ? sl->org[0] : org;
		p->env.secrets[p->env.nsecrets].name = strdup(title);
		p->env.secrets[p->env.nsecrets].file = strdup(file);
		if (p->env.secrets[p->env.nsecrets].name == NULL ||
		    p->env.secrets[p->env.nsecrets].file == NULL)
			return -ENOMEM;
		p->env.nsecrets++;
		vs.origin = org;
		if ((r = prov_add(ps->prov, key, &vs, false, NULL)) < 0)
			return r;
		snprintf(key, sizeof(key), "env.secret.%s.file", title);
		vs.origin = forg;
		if ((r = prov_add(ps->prov, key, &vs, false, NULL)) < 0)
			return r;
	}
	{
		struct vals vs = {0};

		vs.origin = last ? last : "default";
		if ((r = prov_add(ps->prov, "env.secret", &vs, false, NULL)) <
		    0)
			return r;
	}
	return bad ? -EINVAL : 0;
}

/* Checks that need more than one key. */
static int
cross_check(struct policy_parse *ps)
{
	struct aisb_policy *p = ps->p;
	int bad = 0;

	if (p->net.proxy_port == 53 || p->net.proxy_port == AISB_CAPTURE_PORT) {
		policy_err(ps->errs,
		    "%s: network.proxy_port: %u is used by "
		    "the gate itself (DNS 53, capture %d)",
		    policy_origin(p, "network.proxy_port"),
		    (unsigned)p->net.proxy_port, AISB_CAPTURE_PORT);
		bad++;
	}
	return bad ? -EINVAL : 0;
}

int
policy_parse_finish(struct policy_parse *ps, struct aisb_policy **ret)
{
	struct aisb_policy *p;
	char *text = NULL;
	size_t tlen = 0, i;
	FILE *f;
	int r = 0, bad = 0;

	*ret = NULL;
	if (ps->failed || ps->errs->n > 0)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->prov = calloc(1, sizeof(*p->prov));
	if (p->prov == NULL || (p->user = strdup(ps->user)) == NULL) {
		policy_free(p);
		return -ENOMEM;
	}
	ps->p = p;
	ps->prov = p->prov;
	for (i = 0; i < ELEMENTSOF(keys); i++) {
		const struct keydef *kd = &keys[i];
		struct vals vs;

		if (kd->type == PK_SECTION || kd->type == PK_TSECTION ||
		    strncmp(kd->key, "env.secret.", 11) == 0)
			continue;
		r = gather(ps, kd, &vs);
		if (r == 0)
			r = apply(ps, kd, &vs);
		if (r == 0)
			r = prov_add(
			    p->prov, kd->key, &vs, kd->type == PK_LIST, NULL);
		vals_free(&vs);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0)
			bad++;
	}
	r = secrets(ps);
	if (r == -ENOMEM)
		goto fail;
	if (r < 0)
		bad++;
	p->prov->files = calloc(ps->nfiles + 1, sizeof(char *));
	if (p->prov->files == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < ps->nfiles; i++)
		if ((p->prov->files[p->prov->nfiles++] =
		            strdup(ps->files[i])) == NULL) {
			r = -ENOMEM;
			goto fail;
		}
	if (bad == 0 && cross_check(ps) < 0)
		bad++;
	if (bad > 0 || ps->errs->n > 0) {
		if (ps->errs->n == 0)
			policy_err(ps->errs,
			    "policy: internal error while "
			    "building the policy");
		r = -EINVAL;
		goto fail;
	}
	/* The hash covers the canonical form: values, not origins. */
	f = open_memstream(&text, &tlen);
	if (f == NULL) {
		r = -errno;
		goto fail;
	}
	r = policy_write(p, f, 2);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r < 0) {
		free(text);
		goto fail;
	}
	sha256_hex(text, tlen, p->hash);
	free(text);
	ps->p = NULL;
	*ret = p;
	return 0;
fail:
	ps->p = NULL;
	policy_free(p);
	return r;
}

/* ---- public API ------------------------------------------------------- */

int
policy_load_buf(const char *name, const char *text, size_t len,
    const char *user, const char *home, struct aisb_policy **ret,
    struct policy_errs *errs)
{
	struct policy_parse *ps;
	int r;

	*ret = NULL;
	ps = policy_parse_new(user ? user : "nobody", home, errs);
	if (ps == NULL)
		return -ENOMEM;
	r = policy_parse_text(ps, name, text, len);
	if (r == 0)
		r = policy_parse_finish(ps, ret);
	policy_parse_free(ps);
	return r == -ENOMEM ? r : r < 0 ? -EINVAL : 0;
}

static char *
lookup_home(const char *user)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwnam_r(user, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
		return NULL;
	return strdup(pw.pw_dir);
}

/*
 * The users.d directory that goes with the config file conf: DIR/users.d
 * beside it (DIR = the directory of conf), so /etc/aisb/users.d for the
 * installed AISB_CONF_PATH and the same shape for --config FILE, which
 * must be absolute.  This is the only place that rule is written: the
 * shell, the gate and the module all load through here, so a session
 * and its gate read the same files.
 */
static int
users_dir_for(const char *conf, char **udir, struct policy_errs *errs)
{
	const char *slash = strrchr(conf, '/');

	if (conf[0] != '/' || slash == NULL) {
		policy_err(errs, "--config needs an absolute path");
		return -EINVAL;
	}
	if (asprintf(udir, "%.*s/users.d", (int)(slash - conf), conf) < 0) {
		*udir = NULL;
		return -ENOMEM;
	}
	return 0;
}

int
policy_load(const struct policy_opts *opts, struct aisb_policy **ret,
    struct policy_errs *errs)
{
	struct policy_parse *ps = NULL;
	_cleanup_free_ char *buf = NULL, *home = NULL, *upath = NULL;
	_cleanup_free_ char *udir = NULL;
	const char *conf;
	size_t len;
	int r;

	*ret = NULL;
	if (opts == NULL || opts->user == NULL || opts->user[0] == '\0') {
		policy_err(errs, "policy: no user to load the policy for");
		return -EINVAL;
	}
	conf = opts->conf_path ? opts->conf_path : AISB_CONF_PATH;
	r = users_dir_for(conf, &udir, errs);
	if (r < 0)
		return r;
	if (opts->home == NULL)
		home = lookup_home(opts->user);
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
	ps = policy_parse_new(opts->user, opts->home ? opts->home : home, errs);
	if (ps == NULL)
		return -ENOMEM;
	r = policy_trust_read(conf, opts->trusted_uid, false, &buf, &len, errs);
	if (r < 0)
		goto out;
	r = policy_parse_text(ps, conf, buf, len);
	free(buf);
	buf = NULL;
	if (r == -ENOMEM)
		goto out;
	/* The user's own file: absent is fine, present must be safe. */
	if (!opts->system_only && !ps->failed) {
		const char *u = opts->user;

		if (strchr(u, '/') != NULL || u[0] == '.') {
			policy_err(errs,
			    "policy: user name '%s' cannot name a "
			    "file in %s",
			    u, udir);
			r = -EINVAL;
			goto out;
		}
		if (asprintf(&upath, "%s/%s.conf", udir, u) < 0) {
			upath = NULL;
			r = -ENOMEM;
			goto out;
		}
		r = policy_trust_read(
		    upath, opts->trusted_uid, true, &buf, &len, errs);
		if (r == 0)
			r = policy_parse_text(ps, upath, buf, len);
		else if (r == -ENOENT)
			r = 0;
		if (r == -ENOMEM)
			goto out;
	}
	r = policy_parse_finish(ps, ret);
out:
	policy_parse_free(ps);
	if (r == -ENOMEM)
		return r;
	return r < 0 || errs->n > 0 ? -EINVAL : 0;
}

static void
strv_free(struct aisb_strv *sv)
{
	size_t i;

	if (sv->v == NULL)
		return;
	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
}

static void
rules_free(struct aisb_hostrule *r, size_t n)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(r[i].host);
		free(r[i].ports);
		free(r[i].src);
	}
	free(r);
}

void
policy_free(struct aisb_policy *p)
{
	size_t i, j;

	if (p == NULL)
		return;
	free(p->user);
	free(p->shell);
	free(p->hostname);
	strv_free(&p->agents);
	free(p->project.path);
	strv_free(&p->project.roots);
	free(p->project.target);
	strv_free(&p->project.protect);
	free(p->home.path);
	free(p->fs.root);
	strv_free(&p->fs.hide);
	strv_free(&p->fs.readonly);
	strv_free(&p->fs.readwrite);
	strv_free(&p->env.pass);
	strv_free(&p->env.set);
	for (i = 0; p->env.secrets && i < p->env.nsecrets; i++) {
		free(p->env.secrets[i].name);
		free(p->env.secrets[i].file);
	}
	free(p->env.secrets);
	rules_free(p->net.allow, p->net.nallow);
	rules_free(p->net.deny, p->net.ndeny);
	free(p->net.allow_cidr);
	free(p->net.ports);
	free(p->net.resolver);
	strv_free(&p->pam.services);
	if (p->prov != NULL) {
		for (i = 0; i < p->prov->n; i++) {
			struct policy_origin_ent *e = &p->prov->ent[i];

			free(e->key);
			free(e->origin);
			for (j = 0; j < e->nelem; j++)
				free(e->elem[j]);
			free(e->elem);
		}
		free(p->prov->ent);
		for (i = 0; i < p->prov->nfiles; i++)
			free(p->prov->files[i]);
		free(p->prov->files);
		free(p->prov);
	}
	free(p);
}

void
policy_errs_free(struct policy_errs *errs)
{
	size_t i;

	if (errs == NULL)
		return;
	for (i = 0; i < errs->n; i++)
		free(errs->msg[i]);
	free(errs->msg);
	errs->msg = NULL;
	errs->n = 0;
}

const struct policy_origin_ent *
policy_origin_find(const struct aisb_policy *p, const char *key)
{
	size_t i;

	if (p == NULL || p->prov == NULL || key == NULL)
		return NULL;
	for (i = 0; i < p->prov->n; i++)
		if (strcmp(p->prov->ent[i].key, key) == 0)
			return &p->prov->ent[i];
	return NULL;
}

const char *
policy_origin(const struct aisb_policy *p, const char *key)
{
	const struct policy_origin_ent *e = policy_origin_find(p, key);

	return e ? e->origin : NULL;
}

/*
 * Is user one of the agents: listed by name, or a member (primary or
 * supplementary) of a listed "@group"?  Unknown users and groups never
 * match.  Uses the _r lookups: this also runs inside sshd via the PAM
 * module.
 */
bool
policy_is_agent(const struct aisb_policy *p, const char *user)
{
	struct passwd pw, *pwr = NULL;
	char pbuf[4096];
	gid_t groups[256];
	int ngroups = (int)ELEMENTSOF(groups);
	bool have_groups = false;
	size_t i;

	if (p == NULL || user == NULL)
		return false;
	for (i = 0; i < p->agents.n; i++) {
		const char *a = p->agents.v[i];
		struct group gr, *grr = NULL;
		char gbuf[16384];
		int j;

		if (a[0] != '@') {
			if (strcmp(a, user) == 0)
				return true;
			continue;
		}
		if (!have_groups) {
			if (getpwnam_r(user, &pw, pbuf, sizeof(pbuf), &pwr) !=
			        0 ||
			    pwr == NULL)
				return false;
			/* Too many groups to list: fail towards "agent". */
			if (getgrouplist(user, pw.pw_gid, groups, &ngroups) < 0)
				return true;
			have_groups = true;
		}
		if (getgrnam_r(a + 1, &gr, gbuf, sizeof(gbuf), &grr) != 0 ||
		    grr == NULL)
			continue;
		for (j = 0; j < ngroups; j++)
			if (groups[j] == gr.gr_gid)
				return true;
	}
	return false;
}
