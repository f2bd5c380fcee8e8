/*
 * projview.c: the project in the view, and its project.protect paths.
 * See projview.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "projview.h"
#include "session.h"
#include "util.h"
#include "viewfs.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

static uint64_t
mnt_id(int fd)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return 0;
	return sx.stx_mnt_id;
}

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
 * Make project.protect entry rel read-only below the project mount pfd.
 *
 * A bind over the path alone is not enough: the agent could rename a
 * parent directory away (".git" -> ".git.old") and create a fresh,
 * writable ".git/hooks".  The kernel refuses to rename or remove a
 * mount point (EBUSY), so each parent inside the project is bound onto
 * itself first.  When a component is missing, the first missing one is
 * created on the host as an empty directory (owned by the agent, which
 * could have created it anyway) and bound read-only: nothing below it
 * can then be created inside.  For the default ".git/hooks" in a
 * project without .git that leaves an empty ".git" on the host, which
 * git ignores (it is not a repository) and a later "git init" fills.
 * A symlink anywhere on the path is refused: the host would follow it
 * to a place the agent can write.
 */
static int
projview_protect(int pfd, const char *rel)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_close_ int cur = -1;
	char *comp, *next, *sp = NULL;
	int r;

	if (!projview_protect_valid(rel))
		return log_errno(-SESSION_EPOLICY,
		    "project.protect: '%s' must "
		    "be relative without \".\" or \"..\"",
		    rel);
	copy = strdup(rel);
	cur = fcntl(pfd, F_DUPFD_CLOEXEC, 3);
	if (!copy || cur < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -ENOMEM;
	for (comp = strtok_r(copy, "/", &sp); comp; comp = next) {
		_cleanup_close_ int fd = -1;
		struct stat st;

		next = strtok_r(NULL, "/", &sp);
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			/* The first missing component becomes the read-only
			 * placeholder: nothing below it can be created. */
			next = NULL;
			if (mkdirat(cur, comp, 0755) < 0 && errno != EEXIST) {
				if (errno == EROFS)
					return 0;
				return log_errno(-SESSION_EPOLICY,
				    "project.protect %s: cannot create %s in "
				    "the project to hold it read-only: %s",
				    rel, comp, strerror(errno));
			}
			fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0 || fstat(fd, &st) < 0)
			return log_errno(-errno, "project.protect %s: %m", rel);
		if (S_ISLNK(st.st_mode))
			return log_errno(-SESSION_EPOLICY,
			    "project.protect %s: "
			    "%s in the project is a symlink; refusing (remove "
			    "it, or drop the entry)",
			    rel, comp);
		if (!next) {
			r = viewfs_bind(fd, "", true, VIEWFS_RO, fd, "");
			if (r < 0)
				return log_errno(
				    r, "project.protect %s: %m", rel);
			return 0;
		}
		if (!S_ISDIR(st.st_mode)) {
			/* e.g. a worktree's ".git" file: nothing below. */
			log_debug("project.protect %s: %s is not a directory, "
			          "ignoring",
			    rel, comp);
			return 0;
		}
		if (mnt_id(fd) == mnt_id(cur)) {
			r = viewfs_bind(fd, "", true, 0, fd, "");
			if (r < 0)
				return log_errno(r,
				    "project.protect %s: pin "
				    "%s: %m",
				    rel, comp);
			close(fd);
			/* Reopen: now the root of the new mount. */
			fd = openat(cur, comp,
			    O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				return log_errno(-errno,
				    "project.protect "
				    "%s: %m",
				    rel);
		}
		close(cur);
		cur = TAKE_FD(fd);
	}
	return 0;
}

int
projview_mount(struct viewfs *c)
{
	const struct aisb_policy *p = c->p;
	const char *target = p->project.target;
	_cleanup_close_ int tfd = -1, pfd = -1;
	size_t i;
	int r;

	if (target[strspn(target, "/")] == '\0')
		return log_errno(
		    -SESSION_EPOLICY, "project.target must not be /");
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
	for (i = 0; i < p->project.protect.n; i++)
		if ((r = projview_protect(pfd, p->project.protect.v[i])) < 0)
			return r;
	return 0;
}
