/*
 * project.c: project selection.  See project.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "callerenv.h"
#include "log.h"
#include "pathsafe.h"
#include "project.h"
#include "session.h"
#include "util.h"

static int
sel_set(struct project_sel *s, const char *path, const char *root,
    const char *rel, const char *how)
{
	s->path = strdup(path);
	s->root = root ? strdup(root) : NULL;
	s->rel = strdup(rel && *rel ? rel : ".");
	s->how = how;
	if (!s->path || (root && !s->root) || !s->rel) {
		project_sel_free(s);
		return -ENOMEM;
	}
	return 0;
}

/* Fill s for path when it lies under one of the roots.  1 if so. */
static int
sel_under_roots(const struct aisb_policy *p, const char *path, const char *how,
    struct project_sel *s)
{
	size_t i;

	for (i = 0; i < p->project.roots.n; i++) {
		const char *rel = pathsafe_under(p->project.roots.v[i], path);

		if (rel) {
			int r =
			    sel_set(s, path, p->project.roots.v[i], rel, how);
			return r < 0 ? r : 1;
		}
	}
	return 0;
}

int
project_open(const struct project_sel *s, int *ret_fd)
{
	struct open_how how = {
	    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int rootfd = -1;
	int fd;

	if (!s->root) {
		/* project.path outside every root: the admin's path. */
		fd = open(s->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			goto fail;
		*ret_fd = fd;
		return 0;
	}
	rootfd = open(s->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return log_errno(-SESSION_EPOLICY,
		    "project root %s (%s): "
		    "%s",
		    s->root, "project.roots", strerror(errno));
	fd = (int)syscall(SYS_openat2, rootfd, s->rel, &how, sizeof(how));
	if (fd < 0)
		goto fail;
	*ret_fd = fd;
	return 0;
fail:
	switch (errno) {
	case EXDEV:
	case ELOOP:
		return log_errno(-SESSION_EPOLICY,
		    "project %s (%s) leads out "
		    "of %s through a symlink or \"..\"; refusing",
		    s->path, s->how, s->root);
	case ENOENT:
		return log_errno(-SESSION_EPOLICY,
		    "project %s (%s) does not "
		    "exist; create it or choose another",
		    s->path, s->how);
	case ENOTDIR:
		return log_errno(-SESSION_EPOLICY,
		    "project %s (%s) is not a "
		    "directory",
		    s->path, s->how);
	case EACCES:
		return log_errno(-SESSION_EPOLICY, "project %s (%s): %s",
		    s->path, s->how, strerror(EACCES));
	default:
		return log_errno(-errno, "project %s: %m", s->path);
	}
}

/*
 * The caller's working directory as a path: $PWD when it names the same
 * directory (so a path through a symlink is judged as the caller wrote
 * it, and refused when it leads out of a root), else getcwd().
 */
static char *
cwd_path(void)
{
	const char *pwd = callerenv_get("PWD");
	struct stat a, b;

	if (pwd && pwd[0] == '/' && strlen(pwd) < 4096 && stat(pwd, &a) == 0 &&
	    stat(".", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return strdup(pwd);
	return getcwd(NULL, 0);
}

/*
 * Refuse a project whose root (or, outside every root, whose
 * project.path) someone other than root could redirect, with the
 * doctor's words (pathsafe.h).  The outer runs this as the agent before
 * anything of the session exists.  The root is opened first and
 * compared with its path after the check: what passed is what the path
 * leads to, and from then on only root can change that.
 */
static int
path_safe(const struct aisb_policy *p, const struct project_sel *s)
{
	const char *path = s->root ? s->root : s->path;
	const char *key = s->root ? "project.roots" : "project.path";
	_cleanup_close_ int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	char text[3 * PATH_MAX];
	struct stat st, now;
	struct pathsafe u;
	bool bad;

	if (fd < 0)
		return 0; /* project_open says why */
	if (fstat(fd, &st) < 0)
		return log_errno(-errno, "project %s: %m", path);
	bad = s->root ? pathsafe_root(path, &st, getuid(), &u)
	              : pathsafe_above(path, &u);
	if (bad) {
		pathsafe_text(&u, s->root ? "project root" : "project", path,
		    text, sizeof(text));
		return log_errno(-SESSION_EPOLICY,
		    "%s: %s: %s; refusing (aisb-shell --doctor)",
		    policy_origin(p, key), key, text);
	}
	if (stat(path, &now) < 0 || now.st_dev != st.st_dev ||
	    now.st_ino != st.st_ino)
		return log_errno(-SESSION_EPOLICY,
		    "%s %s changed while it was checked; refusing",
		    s->root ? "project root" : "project", path);
	return 0;
}

int
project_select(const struct aisb_policy *p, struct project_sel *ret)
{
	struct project_sel s = {0};
	_cleanup_free_ char *cwd = NULL;
	const char *env = callerenv_get("AISB_PROJECT");
	_cleanup_close_ int fd = -1;
	int r;

	if (env && *env) {
		if (env[0] != '/' || strlen(env) >= 4096)
			return log_errno(-SESSION_EPOLICY,
			    "AISB_PROJECT must be "
			    "an absolute path");
		r = sel_under_roots(p, env, "AISB_PROJECT", &s);
		if (r < 0)
			return r;
		if (r == 0)
			return log_errno(-SESSION_EPOLICY,
			    "AISB_PROJECT=%s is "
			    "not under any of project.roots; refusing",
			    env);
	} else {
		cwd = cwd_path();
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		r = cwd ? sel_under_roots(p, cwd, "cwd", &s) : 0;
		if (r < 0)
			return r;
		if (r == 0) {
			const char *d = p->project.path;

			if (!d || !*d)
				return log_errno(-SESSION_EPOLICY,
				    "no project: "
				    "project.path is empty");
			r = sel_under_roots(p, d, "project.path", &s);
			if (r == 0)
				r = sel_set(&s, d, NULL, NULL, "project.path");
			if (r < 0)
				return r;
		}
	}
	r = path_safe(p, &s);
	if (r >= 0)
		r = project_open(&s, &fd);
	if (r < 0) {
		project_sel_free(&s);
		return r;
	}
	*ret = s;
	return 0;
}

void
project_sel_free(struct project_sel *s)
{
	free(s->path);
	free(s->root);
	free(s->rel);
	memset(s, 0, sizeof(*s));
}
