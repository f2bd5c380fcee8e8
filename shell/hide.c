/*
 * hide.c: covering filesystem.hide in the view.  See hide.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hide.h"
#include "log.h"
#include "session.h"
#include "viewfs.h"

bool
hide_top(const struct aisb_policy *p, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < p->fs.hide.n; i++) {
		const char *h = p->fs.hide.v[i];
		size_t k;

		if (h[0] != '/' || viewfs_is_glob(h) ||
		    strncmp(h + 1, name, n) != 0)
			continue;
		for (k = n + 1; h[k] == '/'; k++)
			;
		if (h[k] == '\0')
			return true;
	}
	return false;
}

int
hide_path(struct viewfs *c, const char *vpath)
{
	struct stat st;
	int try, fd, t, r = 0;

	for (try = 0; try < VIEWFS_ATTACH_TRIES; try++) {
		fd = viewfs_open(c, vpath, 0, true);
		if (fd == -ENOENT || fd == -ENOTDIR || fd == -EACCES)
			return 0;
		if (fd < 0)
			return log_errno(fd, "hide %s: %m", vpath);
		t = -1;
		if (fstat(fd, &st) < 0)
			r = -errno;
		else if (S_ISDIR(st.st_mode))
			r = viewfs_tmpfs(
			    "0755", 1 << 20, VIEWFS_RW | MOUNT_ATTR_NOEXEC, &t);
		else
			r = viewfs_clone(c->rfd, VIEWFS_SCRATCH "/empty", false,
			    VIEWFS_RO | MOUNT_ATTR_NOEXEC, &t);
		if (r >= 0)
			r = viewfs_attach(t, fd, "");
		close(fd);
		if (r >= 0 && S_ISDIR(st.st_mode))
			return viewfs_seal_later(c, t); /* owns t */
		if (t >= 0)
			close(t);
		if (r >= 0)
			return 0;
		if (r != -ENOENT)
			break;
	}
	if (r < 0)
		return log_errno(r, "hide %s: %m", vpath);
	return 0;
}

int
hide_walk(struct viewfs *c,
    int (*fn)(struct viewfs *c, const char *vpath, void *arg), void *arg)
{
	size_t i, j, rl = strcmp(c->root, "/") == 0 ? 0 : strlen(c->root);
	int r;

	for (i = 0; i < c->p->fs.hide.n; i++) {
		const char *h = c->p->fs.hide.v[i];
		char pat[8192];
		glob_t g;

		if (h[0] != '/')
			return log_errno(-SESSION_EPOLICY,
			    "filesystem.hide: "
			    "%s is not absolute",
			    h);
		if (!viewfs_is_glob(h)) {
			const char *s = h + 1 + strcspn(h + 1, "/");

			/* Plain top-level entries are done already. */
			if (s[strspn(s, "/")] == '\0')
				continue;
			if ((r = fn(c, h, arg)) < 0)
				return r;
			continue;
		}
		snprintf(pat, sizeof(pat), "%s%s", rl ? c->root : "", h);
		memset(&g, 0, sizeof(g));
		r = glob(pat, GLOB_NOSORT, NULL, &g);
		if (r == GLOB_NOSPACE) {
			globfree(&g);
			return log_errno(-ENOMEM, "glob %s: %m", h);
		}
		for (j = 0; r == 0 && j < g.gl_pathc; j++)
			r = fn(c, g.gl_pathv[j] + rl, arg);
		globfree(&g);
		if (r < 0)
			return r;
	}
	return 0;
}

static int
hide_cb(struct viewfs *c, const char *vpath, void *arg)
{
	(void)arg;
	return hide_path(c, vpath);
}

int
hide_all(struct viewfs *c)
{
	return hide_walk(c, hide_cb, NULL);
}

/* Is VPATH strictly below the destination of bind SPEC ("PATH" or
 * "SRC:DST"; a glob matches VPATH's leading components)? */
static bool
below_bind(const char *vpath, const char *spec)
{
	const char *dst = strchr(spec, ':');
	char head[4096];
	size_t n, k;

	dst = dst ? dst + 1 : spec;
	if (viewfs_is_glob(dst)) {
		/* As many components of vpath as dst has. */
		for (n = 0, k = 0; dst[k]; k++)
			n += dst[k] == '/';
		for (k = 0; vpath[k]; k++)
			if (vpath[k] == '/' && n-- == 0)
				break;
		if (vpath[k] != '/' || k >= sizeof(head))
			return false;
		memcpy(head, vpath, k);
		head[k] = '\0';
		return fnmatch(dst, head, FNM_PATHNAME | FNM_PERIOD) == 0;
	}
	n = strlen(dst);
	while (n > 1 && dst[n - 1] == '/')
		n--;
	return strncmp(vpath, dst, n) == 0 && vpath[n] == '/' &&
	    vpath[n + strspn(vpath + n, "/")] != '\0';
}

static int
hide_in_binds_cb(struct viewfs *c, const char *vpath, void *arg)
{
	const struct aisb_policy *p = c->p;
	size_t i;

	(void)arg;
	for (i = 0; i < p->fs.readonly.n; i++)
		if (below_bind(vpath, p->fs.readonly.v[i]))
			return hide_path(c, vpath);
	for (i = 0; i < p->fs.readwrite.n; i++)
		if (below_bind(vpath, p->fs.readwrite.v[i]))
			return hide_path(c, vpath);
	return 0;
}

int
hide_in_binds(struct viewfs *c)
{
	if (c->p->fs.readonly.n == 0 && c->p->fs.readwrite.n == 0)
		return 0;
	return hide_walk(c, hide_in_binds_cb, NULL);
}
