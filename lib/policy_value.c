/*
 * policy_value.c: the value checks.  See policy_internal.h.
 *
 * Each kind of value (enum policy_kind) has one check, which takes the
 * text as written and gives either its canonical text (what libconfuse
 * stores, what the hash covers and --print-policy shows) or the reason
 * it is refused.  %u and %h are expanded here for the kinds that allow
 * them, and the expanded text is checked again.  The converters below
 * (size, port, boolean, host rule, resolver, environment name) are
 * also what policy.c uses to turn canonical text into the policy
 * struct, so a value that passed its check converts without errors.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cidr.h"
#include "hostpat.h"
#include "policy_internal.h"
#include "util.h"

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

int
policy_value_size(const char *in, uint64_t *v, const char **why)
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

int
policy_value_port(const char *in, uint16_t *port, const char **why)
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

bool
policy_value_env_name(const char *s, bool glob)
{
	if (*s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' ||
		        (glob && (*s == '*' || *s == '?'))))
			return false;
	return true;
}

bool
policy_value_cred_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64 || !isalnum((unsigned char)s[0]))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' ||
		        *s == '.'))
			return false;
	return true;
}

/* RFC 9110 token characters (a header's name). */
static bool
is_tchar(char c)
{
	return isalnum((unsigned char)c) ||
	    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

int
policy_value_credheader(
    const char *in, char *name, char *fmt, bool *basic, const char **why)
{
	const char *colon = strchr(in, ':'), *v, *pct;
	size_t nl = colon ? (size_t)(colon - in) : strlen(in), i;

	*basic = false;
	if (nl == 0 || nl > 64) {
		*why = "not a header name (1-64 token characters), or "
		       "\"Name: FORMAT\" with one %s";
		return -EINVAL;
	}
	for (i = 0; i < nl; i++)
		if (!is_tchar(in[i])) {
			*why = "not a header name (token characters such as "
			       "letters, digits and '-')";
			return -EINVAL;
		}
	memcpy(name, in, nl);
	name[nl] = '\0';
	if (colon == NULL) {
		memcpy(fmt, "%s", 3);
		return 0;
	}
	v = colon + 1;
	while (*v == ' ')
		v++;
	if (strncasecmp(v, "Basic ", 6) == 0) {
		*basic = true;
		v += 6;
		while (*v == ' ')
			v++;
	}
	pct = strchr(v, '%');
	if (pct == NULL || pct[1] != 's' || strchr(pct + 2, '%') != NULL) {
		*why = "the header's format needs exactly one %s (and no "
		       "other %), e.g. \"Authorization: Bearer %s\"";
		return -EINVAL;
	}
	if (strlen(v) > 256) {
		*why = "the header's format is longer than 256 bytes";
		return -EINVAL;
	}
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e) {
			*why = "the header's format may hold printable ASCII "
			       "only";
			return -EINVAL;
		}
	if (v[strlen(v) - 1] == ' ') {
		*why = "the header's format ends with a space";
		return -EINVAL;
	}
	memcpy(fmt, v, strlen(v) + 1); /* at most 256 bytes: checked */
	return 0;
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
int
policy_value_hostrule(const char *in, char *host, uint16_t *ports,
    size_t *nports, const char **why)
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
		if ((r = policy_value_port(buf, &ports[*nports], why)) < 0)
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

int
policy_value_resolver(const char *in, int *family, uint8_t addr[16],
    uint16_t *port, char *canon, size_t clen, const char **why)
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
	if (ps != NULL && policy_value_port(ps, port, why) < 0)
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

int
policy_value_bool(const char *in, bool *b)
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
int
policy_value_check(struct policy_parse *ps, enum policy_kind k, const char *in,
    char **out, const char **why)
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
	if (bad_chars(in) && k != PV_ENVSET) {
		*why = "control character in value";
		return -EINVAL;
	}
	switch (k) {
	case PV_PATH:
		return check_path(in, false, false, out, why);
	case PV_RELPATH:
		return check_path(in, true, false, out, why);
	case PV_HOMEPATH:
		if (strcmp(in, "tmpfs") == 0)
			return (*out = strdup(in)) ? 0 : -ENOMEM;
		/* FALLTHROUGH */
	case PV_PATHX:
	case PV_GLOBX:
		/*
		 * Checked as written ("." and ".." components), then in
		 * full once expanded: "%h/x" is absolute only then, and a
		 * ".." that a name brings in is caught there.
		 */
		if (in[0] == '%') {
			char *rel = NULL;

			r = check_path(in, true, k == PV_GLOBX, &rel, why);
			free(rel);
		} else {
			r = check_path(in, false, k == PV_GLOBX, &x, why);
			free(x);
			x = NULL;
		}
		if (r < 0)
			return r;
		if ((r = expand(ps, in, &x, why)) < 0)
			return r;
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		r = check_path(x, false, k == PV_GLOBX, out, why);
		if (r < 0 && *why != NULL && strchr(in, '%') != NULL) {
			snprintf(ps->why, sizeof(ps->why),
			    "after %%u/%%h "
			    "expansion: %s",
			    *why);
			*why = ps->why;
		}
		return r;
	case PV_HOSTNAME:
		if (strlen(in) > 64 || strchr(in, '*') != NULL ||
		    hostpat_canon(in, strlen(in), false, buf, why) < 0) {
			if (*why == NULL || strlen(in) > 64)
				*why = "not a host name (letters, digits, '-' "
				       "and '.', at most 64 bytes)";
			return -EINVAL;
		}
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	case PV_AGENT:
		if (!name_ok(in[0] == '@' ? in + 1 : in, 32)) {
			*why = "not a user name or @group";
			return -EINVAL;
		}
		break;
	case PV_SERVICE:
		if (!name_ok(in, 64)) {
			*why = "not a PAM service name";
			return -EINVAL;
		}
		break;
	case PV_BOOL:
		if (policy_value_bool(in, &b) < 0) {
			*why = "not a boolean (true or false)";
			return -EINVAL;
		}
		return (*out = strdup(b ? "true" : "false")) ? 0 : -ENOMEM;
	case PV_SIZE:
	case PV_TMPSIZE:
		if (policy_value_size(in, &v, why) < 0)
			return -EINVAL;
		if (k == PV_TMPSIZE && v < (1ULL << 20)) {
			*why = "at least 1M (0 would be an unlimited tmpfs)";
			return -EINVAL;
		}
		policy_fmt_size(v, buf, sizeof(buf));
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	case PV_COUNT:
	case PV_PIDS:
	case PV_NOFILE:
	case PV_TIMEOUT:
		if (parse_count(in,
		        k == PV_PIDS          ? 4194304
		            : k == PV_NOFILE  ? 1048576
		            : k == PV_TIMEOUT ? 315360000
		                              : UINT32_MAX,
		        &v, why, ps->why, sizeof(ps->why)) < 0)
			return -EINVAL;
		break;
	case PV_PCT: {
		size_t n = strlen(in);

		if (strcmp(in, "0") == 0) /* no limit, as "0%" */
			return (*out = strdup("0%")) ? 0 : -ENOMEM;
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
	case PV_PORT:
		if (policy_value_port(in, &port, why) < 0)
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%u", (unsigned)port);
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	case PV_HOSTRULE: {
		char host[HOST_MAX + 1];

		if (policy_value_hostrule(in, host, ports, &np, why) < 0)
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%s", host);
		for (i = 0; i < np; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "%c%u", i ? ',' : ':', (unsigned)ports[i]);
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	}
	case PV_CIDR: {
		struct aisb_cidr c;

		if (cidr_parse(in, &c, why) < 0)
			return -EINVAL;
		cidr_format(&c, buf, sizeof(buf));
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	}
	case PV_OPTPATH:
		if (*in == '\0')
			break;
		return check_path(in, false, false, out, why);
	case PV_ENVNAME:
		if (!policy_value_env_name(in, false)) {
			*why =
			    "not an environment name ([A-Za-z_][A-Za-z0-9_]*)";
			return -EINVAL;
		}
		break;
	case PV_CREDHEADER: {
		char name[65], fmt[257];

		if (policy_value_credheader(in, name, fmt, &b, why) < 0)
			return -EINVAL;
		if (strcmp(fmt, "%s") == 0 && !b)
			snprintf(buf, sizeof(buf), "%s", name);
		else
			snprintf(buf, sizeof(buf), "%s: %s%s", name,
			    b ? "Basic " : "", fmt);
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	}
	case PV_ENVGLOB:
		if (!policy_value_env_name(in, true)) {
			*why = "not an environment name or glob "
			       "([A-Za-z_][A-Za-z0-9_]*, with * or ?)";
			return -EINVAL;
		}
		break;
	case PV_ENVSET: {
		const char *eq = strchr(in, '=');

		if (eq == NULL || eq == in) {
			*why = "not NAME=value";
			return -EINVAL;
		}
		memcpy(buf, in,
		    (size_t)(eq - in) < sizeof(buf) ? (size_t)(eq - in) : 0);
		buf[(size_t)(eq - in) < sizeof(buf) ? eq - in : 0] = '\0';
		if (!policy_value_env_name(buf, false)) {
			*why = "not NAME=value (NAME: [A-Za-z_][A-Za-z0-9_]*)";
			return -EINVAL;
		}
		if (strchr(eq, '\n') != NULL || strchr(eq, '\r') != NULL) {
			*why = "newline in the value";
			return -EINVAL;
		}
		break;
	}
	case PV_NETMODE:
		if (strcmp(in, "gated") != 0 && strcmp(in, "none") != 0) {
			*why = "must be gated or none";
			return -EINVAL;
		}
		break;
	case PV_VIEW:
		if (strcmp(in, "system") != 0 &&
		    strcmp(in, "whole-root-unsafe") != 0) {
			*why = "must be system or whole-root-unsafe";
			return -EINVAL;
		}
		break;
	case PV_ENFORCE:
		if (strcmp(in, "strict") != 0 &&
		    strcmp(in, "best-effort") != 0) {
			*why = "must be strict or best-effort";
			return -EINVAL;
		}
		break;
	case PV_NOTICES:
		if (strcmp(in, "terminal") != 0 && strcmp(in, "always") != 0 &&
		    strcmp(in, "never") != 0) {
			*why = "must be terminal, always or never";
			return -EINVAL;
		}
		break;
	case PV_RESOLVER: {
		int fam;
		uint8_t a[16];

		if (policy_value_resolver(
		        in, &fam, a, &port, buf, sizeof(buf), why) < 0)
			return -EINVAL;
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	}
	case PV_NONE:
	default:
		*why = "internal error: no checker";
		return -EINVAL;
	}
	return (*out = strdup(in)) ? 0 : -ENOMEM;
}
