/*
 * projview.c: the project in the view, and its project.protect paths.
 * See projview.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aisb.h"
#include "gitpin.h"
#include "log.h"
#include "pin.h"
#include "projview.h"
#include "registry.h"
#include "session.h"
#include "util.h"
#include "viewfs.h"

bool
projview_protect_valid(const char *rel)
{
	const char *s = rel;

	if (!rel || !*rel || *rel == '/' || strlen(rel) >= 4096)
		return false;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		s += n;
		if (*s == '/' && *++s == '\0')
			break;
	}
	return true;
}

/*
 * Hold project.protect entry rel (pin.h).  An entry whose last
 * component is ".git" names a repository: its git metadata is held as
 * the project's own is (gitpin.h).  Any other entry is held read-only as
 * it is, created as an empty directory when missing; where it goes
 * through a gitfile (".git/hooks" when .git is a worktree's or
 * submodule's file), through the git directory that file names.
 */
static int
projview_protect(struct pin *pin, const char *rel)
{
	char path[4096], what[4200], gd[4096], tail[4096];
	char *base, *dotgit;
	size_t n;
	int r;

	if (!projview_protect_valid(rel))
		return log_errno(-SESSION_EPOLICY,
		    "project.protect: '%s' must "
		    "be relative without \".\" or \"..\"",
		    rel);
	snprintf(path, sizeof(path), "%s", rel);
	for (n = strlen(path); n > 0 && path[n - 1] == '/'; n--)
		path[n - 1] = '\0';
	snprintf(what, sizeof(what), "project.protect %s", path);
	base = strrchr(path, '/');
	if (!strcmp(base ? base + 1 : path, ".git")) {
		if (!base)
			return 0; /* the project's own: held already */
		*base = '\0';
		return gitpin_repo(pin, path);
	}
	/* A ".git" component that is a file: continue in its gitdir. */
	for (dotgit = path; (dotgit = strstr(dotgit, ".git/")); dotgit += 5) {
		struct stat st;
		char *rest = dotgit + 5;
		int fd;

		if (dotgit != path && dotgit[-1] != '/')
			continue;
		dotgit[4] = '\0';
		fd = openat(pin->pfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		r = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
		if (fd >= 0)
			close(fd);
		if (!r) {
			dotgit[4] = '/';
			continue;
		}
		r = gitpin_gitfile(pin, path, gd, sizeof(gd));
		if (r < 0)
			return r;
		if (r == 0)
			return log_errno(-SESSION_EPOLICY,
			    "%s: %s is a gitfile naming a git directory "
			    "outside the project; refusing",
			    what, path);
		/* rest lies in path, which the join overwrites. */
		snprintf(tail, sizeof(tail), "%s", rest);
		if (pin_join(gd, tail, path, sizeof(path)) < 0)
			return -ENAMETOOLONG;
		return pin_path(pin, path, PIN_RO, NULL, what, NULL);
	}
	return pin_path(pin, path, PIN_RO, NULL, what, NULL);
}

int
projview_mount(struct viewfs *c)
{
	const struct aisb_policy *p = c->p;
	const char *target = p->project.target;
	_cleanup_close_ int tfd = -1, pfd = -1;
	struct pin pin = {.pfd = -1};
	char proc[64];
	ssize_t k;
	size_t i;
	int r;

	if (target[strspn(target, "/")] == '\0')
		return log_errno(
		    -SESSION_EPOLICY, "project.target must not be /");
	/* A project that holds the session registry or lies in it would
	 * let the agent write its own record. */
	if (registry_exposed_by(c->o->project_fd))
		return log_errno(-SESSION_EPOLICY,
		    "the project would show the session registry %s inside; "
		    "choose project.path and project.roots away from it",
		    AISB_REGISTRY_DIR);
	r = viewfs_mkpath(c, target, true, true, &tfd);
	if (r < 0)
		return log_errno(r == -EROFS ? -SESSION_EPOLICY : r,
		    "cannot "
		    "make project.target %s inside: %s",
		    target, strerror(-r));
	r = viewfs_bind(c->o->project_fd, "", true,
	    p->project.readonly ? VIEWFS_RO : VIEWFS_RW, tfd, "");
	if (r < 0)
		return log_errno(r, "bind the project at %s: %m", target);
	if (p->project.readonly)
		return 0;
	pfd = viewfs_open(c, target, O_DIRECTORY, true);
	if (pfd < 0)
		return log_errno(pfd, "%s: %m", target);
	pin.pfd = pfd;
	/* The project's path on the host, as git writes it into gitfiles
	 * and worktrees (resolved: no symlink). */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", c->o->project_fd);
	k = readlink(proc, pin.host, sizeof(pin.host) - 1);
	pin.host[k > 0 && pin.host[0] == '/' ? k : 0] = '\0';
	/* The project's own repository, whatever the list says. */
	if ((r = gitpin_repo(&pin, "")) < 0)
		return r;
	for (i = 0; i < p->project.protect.n; i++)
		if ((r = projview_protect(&pin, p->project.protect.v[i])) < 0)
			return r;
	return 0;
}
