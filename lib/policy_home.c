/*
 * policy_home.c: no host path the agent can write from inside may reach
 * its passwd home.  See policy_internal.h.
 *
 * sshd, su and PAM read files in the passwd home before any sandbox
 * exists, in the host's namespaces: pam_env's ~/.pam_environment (with
 * user_readenv=1, as in Debian's /etc/pam.d/sshd), ~/.ssh/environment
 * and ~/.ssh/rc where sshd allows them, and whatever a module or a later
 * version reads there.  So the passwd home must not be, or lie under:
 * project.path; a project.roots entry (any directory below a root can
 * become the project, and sshd starts the login in the passwd home, so
 * the working directory alone selects it); a filesystem.readwrite
 * source or what its glob matches; home.path.  Paths are compared as
 * written and with symlinks resolved, each against both forms of the
 * home, so a symlink on either side does not hide the overlap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "util.h"

struct home {
	const char *lex; /* as in passwd, trailing '/' dropped */
	char *real; /* symlinks resolved, or NULL */
	char buf[PATH_MAX];
};

/* Is path p the same as h, or one of its ancestors? */
static bool
contains(const char *p, const char *h)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		n--;
	if (n == 1 && p[0] == '/')
		return h[0] == '/';
	return strncmp(p, h, n) == 0 && (h[n] == '\0' || h[n] == '/');
}

static bool
reaches(const char *path, const struct home *h)
{
	_cleanup_free_ char *real = realpath(path, NULL);

	if (contains(path, h->lex) || (h->real && contains(path, h->real)))
		return true;
	return real &&
	    (contains(real, h->lex) || (h->real && contains(real, h->real)));
}

/* Does glob pattern pat match h or a directory above it? */
static bool
glob_reaches(const char *pat, const char *h)
{
	char a[PATH_MAX];
	char *slash;

	if (snprintf(a, sizeof(a), "%s", h) >= (int)sizeof(a))
		return false;
	for (;;) {
		if (fnmatch(pat, a, FNM_PATHNAME | FNM_PERIOD) == 0)
			return true;
		slash = strrchr(a, '/');
		if (!slash || slash == a)
			return false;
		*slash = '\0';
	}
}

/* A filesystem.readwrite entry: "PATH", "SRC:DST", or a glob. */
static bool
rw_reaches(const char *spec, const struct home *h)
{
	char src[PATH_MAX];
	glob_t g;
	bool hit = false;
	size_t j;

	if (strpbrk(spec, "*?[") == NULL) {
		snprintf(
		    src, sizeof(src), "%.*s", (int)strcspn(spec, ":"), spec);
		return reaches(src, h);
	}
	if (glob_reaches(spec, h->lex) ||
	    (h->real && glob_reaches(spec, h->real)))
		return true;
	memset(&g, 0, sizeof(g));
	if (glob(spec, GLOB_NOSORT, NULL, &g) == 0)
		for (j = 0; !hit && j < g.gl_pathc; j++)
			hit = reaches(g.gl_pathv[j], h);
	globfree(&g);
	return hit;
}

static void
refuse(struct policy_errs *errs, const char *org, const char *key,
    const char *value, const char *home)
{
	policy_err(errs,
	    "%s: %s: '%s' is or contains the agent's passwd home %s: the "
	    "agent could write files there that sshd, su and PAM read "
	    "before the sandbox exists (~/.pam_environment, ~/.ssh); keep "
	    "the passwd home out of every path the agent can write",
	    org ? org : "default", key, value, home);
}

/* The origin of element i of list key, else of the key. */
static const char *
elem_origin(const struct aisb_policy *p, const char *key, size_t i)
{
	const struct policy_origin_ent *e = policy_origin_find(p, key);

	if (e && i < e->nelem && e->elem[i])
		return e->elem[i];
	return e ? e->origin : NULL;
}

/* One offending value, reported once the user is known to be an agent. */
struct hit {
	const char *org, *key, *value;
};

int
policy_home_check(
    const struct aisb_policy *p, const char *home, struct policy_errs *errs)
{
	struct hit hits[POLICY_MAX_ERRS];
	struct home h = {0};
	size_t n, i, nh = 0;

	if (!p || !home || home[0] != '/')
		return 0;
	n = strlen(home);
	while (n > 1 && home[n - 1] == '/')
		n--;
	snprintf(h.buf, sizeof(h.buf), "%.*s", (int)n, home);
	h.lex = h.buf;
	h.real = realpath(h.lex, NULL);
#define HIT(o, k, v)                                                           \
	do {                                                                   \
		if (nh < ELEMENTSOF(hits))                                     \
			hits[nh++] = (struct hit){(o), (k), (v)};              \
	} while (0)
	if (p->project.path && reaches(p->project.path, &h))
		HIT(policy_origin(p, "project.path"), "project.path",
		    p->project.path);
	for (i = 0; i < p->project.roots.n; i++)
		if (reaches(p->project.roots.v[i], &h))
			HIT(elem_origin(p, "project.roots", i), "project.roots",
			    p->project.roots.v[i]);
	for (i = 0; i < p->fs.readwrite.n; i++)
		if (rw_reaches(p->fs.readwrite.v[i], &h))
			HIT(elem_origin(p, "filesystem.readwrite", i),
			    "filesystem.readwrite", p->fs.readwrite.v[i]);
	if (!p->home.tmpfs && p->home.path && reaches(p->home.path, &h))
		HIT(policy_origin(p, "home.path"), "home.path", p->home.path);
#undef HIT
	free(h.real);
	/*
	 * Only now who the user is: the common case (nothing overlaps)
	 * needs no lookup of users and groups (NSS) at all.
	 */
	if (nh == 0 || !policy_is_agent(p, p->user))
		return 0;
	for (i = 0; i < nh; i++)
		refuse(errs, hits[i].org, hits[i].key, hits[i].value, h.lex);
	return -EINVAL;
}
