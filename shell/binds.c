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

/* One source of filesystem.readonly / .readwrite, opened on the host. */
struct binds_src {
	int fd; /* O_PATH */
	bool ro, dir;
	char *src, *dst;
};

/* home.path, opened and checked; c->home_fd.  Nothing for a tmpfs. */
static int
open_home(struct viewfs *c)
{
	const struct aisb_policy *p = c->p;
	struct stat st, real;

	if (p->home.tmpfs || !p->home.path)
		return 0;
	c->home_fd =
	    open(p->home.path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->home_fd < 0)
		return log_errno(-SESSION_EPOLICY,
		    "home.path %s: %s; create "
		    "it as a directory owned by the agent (mode 0700)",
		    p->home.path, strerror(errno));
	if (fstat(c->home_fd, &st) < 0)
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
	if (registry_exposed_by(c->home_fd))
		return log_errno(-SESSION_EPOLICY,
		    "home.path %s would show the session registry %s "
		    "inside; use a directory that neither holds it nor lies "
		    "in it",
		    p->home.path, AISB_REGISTRY_DIR);
	return 0;
}

int
binds_home(struct viewfs *c)
{
	_cleanup_close_ int tfd = -1;
	int t, r;

	r = viewfs_mkpath(c, c->o->home_in, true, true, &tfd);
	if (r < 0)
		return log_errno(r == -EROFS ? -SESSION_EPOLICY : r,
		    "cannot "
		    "make the home mount point %s inside: %s",
		    c->o->home_in, strerror(-r));
	if (c->home_fd < 0) {
		r = viewfs_tmpfs("0700", c->p->fs.tmp_size, VIEWFS_RW, &t);
		if (r >= 0) {
			r = viewfs_attach(t, tfd, "");
			close(t);
		}
		if (r < 0)
			return log_errno(r, "mount home tmpfs: %m");
		return 0;
	}
	r = viewfs_bind(c->home_fd, "", true, VIEWFS_RW, tfd, "");
	if (r < 0)
		return log_errno(r, "bind home %s: %m", c->p->home.path);
	return 0;
}

/* filesystem.readonly / .readwrite: "PATH" (bound at the same path
 * inside) or "SRC:DST".  A missing SRC is a policy error. */
static int
open_one(struct viewfs *c, const char *spec, bool ro)
{
	const char *key = ro ? "filesystem.readonly" : "filesystem.readwrite";
	_cleanup_free_ char *src = strdup(spec);
	_cleanup_close_ int sfd = -1;
	struct binds_src *b;
	const char *dst;
	struct stat st;
	char *colon;

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
	b = reallocarray(c->src, c->nsrc + 1, sizeof(*c->src));
	if (!b)
		return -ENOMEM;
	c->src = b;
	b = &c->src[c->nsrc];
	*b = (struct binds_src){.ro = ro, .dir = S_ISDIR(st.st_mode)};
	b->dst = strdup(dst);
	if (!b->dst)
		return -ENOMEM;
	b->src = TAKE_PTR(src);
	b->fd = TAKE_FD(sfd);
	c->nsrc++;
	return 0;
}

/* A glob stands for every host path it matches (none: nothing). */
static int
open_glob(struct viewfs *c, const char *spec, bool ro)
{
	glob_t g;
	size_t j;
	int r;

	if (!viewfs_is_glob(spec))
		return open_one(c, spec, ro);
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
		    : open_one(c, g.gl_pathv[j], ro);
	globfree(&g);
	return r;
}

int
binds_open(struct viewfs *c)
{
	const struct aisb_policy *p = c->p;
	size_t i;
	int r;

	r = open_home(c);
	for (i = 0; r >= 0 && i < p->fs.readonly.n; i++)
		r = open_glob(c, p->fs.readonly.v[i], true);
	for (i = 0; r >= 0 && i < p->fs.readwrite.n; i++)
		r = open_glob(c, p->fs.readwrite.v[i], false);
	return r;
}

int
binds_extra(struct viewfs *c)
{
	size_t i;
	int r;

	for (i = 0; i < c->nsrc; i++) {
		const struct binds_src *b = &c->src[i];
		const char *key =
		    b->ro ? "filesystem.readonly" : "filesystem.readwrite";
		_cleanup_close_ int tfd = -1;

		r = viewfs_mkpath(c, b->dst, b->dir, true, &tfd);
		if (r < 0)
			return log_errno(r == -EROFS ? -SESSION_EPOLICY : r,
			    "%s: "
			    "cannot make the mount point %s inside: %s",
			    key, b->dst, strerror(-r));
		r = viewfs_bind(
		    b->fd, "", true, b->ro ? VIEWFS_RO : VIEWFS_RW, tfd, "");
		if (r < 0)
			return log_errno(
			    r, "%s: bind %s at %s: %m", key, b->src, b->dst);
	}
	return 0;
}

void
binds_close(struct viewfs *c)
{
	for (size_t i = 0; i < c->nsrc; i++) {
		util_closep(&c->src[i].fd);
		free(c->src[i].src);
		free(c->src[i].dst);
	}
	free(c->src);
	c->src = NULL;
	c->nsrc = 0;
	util_closep(&c->home_fd);
	c->home_fd = -1;
}
