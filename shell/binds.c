/*
 * binds.c: the host directories the policy binds into the view: the
 * home (home.path, or a tmpfs) and filesystem.readonly / .readwrite.
 * See binds.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aisb.h"
#include "binds.h"
#include "log.h"
#include "registry.h"
#include "session.h"
#include "util.h"
#include "viewfs.h"

int
binds_home(struct viewfs *c)
{
	const struct aisb_policy *p = c->p;
	_cleanup_close_ int hfd = -1, tfd = -1;
	struct stat st, real;
	int t, r;

	r = viewfs_mkpath(c, c->o->home_in, true, true, &tfd);
	if (r < 0)
		return log_errno(r == -EROFS ? -SESSION_EPOLICY : r,
		    "cannot "
		    "make the home mount point %s inside: %s",
		    c->o->home_in, strerror(-r));
	if (p->home.tmpfs || !p->home.path) {
		r = viewfs_tmpfs("0700", p->fs.tmp_size, VIEWFS_RW, &t);
		if (r >= 0) {
			r = viewfs_attach(t, tfd, "");
			close(t);
		}
		if (r < 0)
			return log_errno(r, "mount home tmpfs: %m");
		return 0;
	}
	hfd = open(p->home.path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (hfd < 0)
		return log_errno(-SESSION_EPOLICY,
		    "home.path %s: %s; create "
		    "it as a directory owned by the agent (mode 0700)",
		    p->home.path, strerror(errno));
	if (fstat(hfd, &st) < 0)
		return log_errno(-errno, "home.path %s: %m", p->home.path);
	if (st.st_uid != c->o->uid)
		return log_errno(-SESSION_EPOLICY,
		    "home.path %s must be owned "
		    "by the agent (uid %u), not uid %u",
		    p->home.path, (unsigned)c->o->uid, (unsigned)st.st_uid);
	/* The real home holds .ssh/authorized_keys: never inside. */
	if (c->o->home_host && stat(c->o->home_host, &real) == 0 &&
	    real.st_dev == st.st_dev && real.st_ino == st.st_ino)
		return log_errno(-SESSION_EPOLICY,
		    "home.path %s is the "
		    "agent's passwd home; use a separate directory (default "
		    "/var/lib/aisb/home/%%u) or \"tmpfs\"",
		    p->home.path);
	/* Nor the session registry (an agent's directory there is its
	 * own, mode 0700: a home that could be it). */
	if (registry_exposed_by(hfd))
		return log_errno(-SESSION_EPOLICY,
		    "home.path %s would show the session registry %s "
		    "inside; use a directory that neither holds it nor lies "
		    "in it",
		    p->home.path, AISB_REGISTRY_DIR);
	r = viewfs_bind(hfd, "", true, VIEWFS_RW, tfd, "");
	if (r < 0)
		return log_errno(r, "bind home %s: %m", p->home.path);
	return 0;
}

/* filesystem.readonly / .readwrite: "PATH" (bound at the same path
 * inside) or "SRC:DST".  A missing SRC is a policy error. */
static int
binds_one(struct viewfs *c, const char *spec, bool ro)
{
	const char *key = ro ? "filesystem.readonly" : "filesystem.readwrite";
	_cleanup_free_ char *src = strdup(spec);
	_cleanup_close_ int sfd = -1, tfd = -1;
	const char *dst;
	struct stat st;
	char *colon;
	int r;

	if (!src)
		return -ENOMEM;
	colon = strchr(src, ':');
	if (colon)
		*colon = '\0';
	dst = colon ? colon + 1 : src;
	if (src[0] != '/' || dst[0] != '/')
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return log_errno(-SESSION_EPOLICY,
		    "%s: '%s' must be PATH or "
		    "SRC:DST, absolute",
		    key, spec);
	sfd = open(src, O_PATH | O_CLOEXEC);
	if (sfd < 0 || fstat(sfd, &st) < 0)
		return log_errno(
		    -SESSION_EPOLICY, "%s: %s: %s", key, src, strerror(errno));
	/* Where it really is (symlinks followed): never the registry. */
	if (registry_exposed_by(sfd))
		return log_errno(-SESSION_EPOLICY,
		    "%s: %s would show the session registry %s inside; bind "
		    "a path that neither holds it nor lies in it",
		    key, src, AISB_REGISTRY_DIR);
	r = viewfs_mkpath(c, dst, S_ISDIR(st.st_mode), true, &tfd);
	if (r < 0)
		return log_errno(r == -EROFS ? -SESSION_EPOLICY : r,
		    "%s: "
		    "cannot make the mount point %s inside: %s",
		    key, dst, strerror(-r));
	r = viewfs_bind(sfd, "", true, ro ? VIEWFS_RO : VIEWFS_RW, tfd, "");
	if (r < 0)
		return log_errno(r, "%s: bind %s at %s: %m", key, src, dst);
	return 0;
}

/* A glob binds every host path it matches (none: nothing to do). */
static int
binds_glob(struct viewfs *c, const char *spec, bool ro)
{
	glob_t g;
	size_t j;
	int r;

	if (!viewfs_is_glob(spec))
		return binds_one(c, spec, ro);
	memset(&g, 0, sizeof(g));
	r = glob(spec, GLOB_NOSORT, NULL, &g);
	if (r == GLOB_NOSPACE) {
		globfree(&g);
		return log_errno(-ENOMEM, "glob %s: %m", spec);
	}
	for (j = 0, r = 0; r >= 0 && j < g.gl_pathc; j++)
		r = strchr(g.gl_pathv[j], ':')
		    ? log_errno(-SESSION_EPOLICY,
		          "%s matches %s, which has a ':'", spec, g.gl_pathv[j])
		    : binds_one(c, g.gl_pathv[j], ro);
	globfree(&g);
	return r;
}

int
binds_extra(struct viewfs *c)
{
	const struct aisb_policy *p = c->p;
	size_t i;
	int r = 0;

	for (i = 0; r >= 0 && i < p->fs.readonly.n; i++)
		r = binds_glob(c, p->fs.readonly.v[i], true);
	for (i = 0; r >= 0 && i < p->fs.readwrite.n; i++)
		r = binds_glob(c, p->fs.readwrite.v[i], false);
	return r;
}
