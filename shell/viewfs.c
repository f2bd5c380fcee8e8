/*
 * viewfs.c: resolving, creating, cloning and attaching inside the view
 * being built.  See viewfs.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"
#include "viewfs.h"

int
viewfs_open(struct viewfs *c, const char *path, int flags, bool follow)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW) |
	        (uint64_t)flags,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	while (*path == '/')
		path++;
	fd = (int)syscall(
	    SYS_openat2, c->rfd, *path ? path : ".", &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

int
viewfs_mkpath(
    struct viewfs *c, const char *path, bool dir, bool follow, int *ret_fd)
{
	_cleanup_free_ char *parent = NULL;
	_cleanup_close_ int pfd = -1;
	char *slash, *name;
	int fd, r;

	fd = viewfs_open(c, path, 0, follow);
	if (fd >= 0) {
		*ret_fd = fd;
		return 0;
	}
	if (fd != -ENOENT)
		return fd;
	parent = strdup(path);
	if (!parent)
		return -ENOMEM;
	for (r = (int)strlen(parent); r > 1 && parent[r - 1] == '/'; r--)
		parent[r - 1] = '\0';
	slash = strrchr(parent, '/');
	if (!slash || !slash[1])
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -EINVAL;
	name = strdupa(slash + 1);
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	r = viewfs_mkpath(c, parent, true, true, &pfd);
	if (r < 0)
		return r;
	if (dir) {
		if (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST)
			return -errno;
	} else {
		fd = openat(pfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return -errno;
		if (fd >= 0)
			close(fd);
	}
	fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

int
viewfs_clone(int dfd, const char *path, bool recursive, uint64_t attr, int *ret)
{
	struct mount_attr a = {.attr_set = attr};
	_cleanup_close_ int t = -1;

	*ret = -1; /* never garbage for a caller that closes it on error */
	t = open_tree(dfd, path,
	    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	        (recursive ? AT_RECURSIVE : 0) | (*path ? 0 : AT_EMPTY_PATH));
	if (t < 0)
		return -errno;
	if (attr &&
	    mount_setattr(t, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
	        &a, sizeof(a)) < 0)
		return -errno;
	*ret = TAKE_FD(t);
	return 0;
}

int
viewfs_attach(int tree, int tfd, const char *tpath)
{
	if (move_mount(tree, "", tfd, tpath,
	        MOVE_MOUNT_F_EMPTY_PATH |
	            (*tpath ? 0 : MOVE_MOUNT_T_EMPTY_PATH)) < 0)
		return -errno;
	return 0;
}

int
viewfs_bind(int dfd, const char *path, bool recursive, uint64_t attr, int tfd,
    const char *tpath)
{
	_cleanup_close_ int t = -1;
	int r;

	r = viewfs_clone(dfd, path, recursive, attr, &t);
	if (r < 0)
		return r;
	return viewfs_attach(t, tfd, tpath);
}

int
viewfs_fsnew(const char *type, const char *const *opts, uint64_t attr, int *ret)
{
	_cleanup_close_ int fs = -1;
	int m;

	*ret = -1; /* never garbage for a caller that closes it on error */
	fs = fsopen(type, FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	for (; opts && opts[0]; opts += 2)
		if (fsconfig(fs,
		        opts[1] ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG,
		        opts[0], opts[1], 0) < 0)
			return -errno;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	m = fsmount(fs, FSMOUNT_CLOEXEC, (unsigned)attr);
	if (m < 0)
		return -errno;
	*ret = m;
	return 0;
}

int
viewfs_fsmount(const char *type, const char *const *opts, uint64_t attr,
    int tfd, const char *tpath)
{
	_cleanup_close_ int m = -1;
	int r;

	r = viewfs_fsnew(type, opts, attr, &m);
	if (r < 0)
		return r;
	return viewfs_attach(m, tfd, tpath);
}

int
viewfs_tmpfs(const char *mode, uint64_t size, uint64_t attr, int *ret)
{
	char sz[32];
	const char *opts[] = {
	    "mode", mode, size ? "size" : NULL, sz, NULL, NULL};

	snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
	return viewfs_fsnew("tmpfs", opts, attr, ret);
}

int
viewfs_seal_later(struct viewfs *c, int mfd)
{
	if (c->nseal >= VIEWFS_MAX_SEAL) {
		close(mfd);
		return -E2BIG;
	}
	c->seal[c->nseal++] = mfd;
	return 0;
}

int
viewfs_tmpfs_at(struct viewfs *c, int dfd, const char *name, const char *mode,
    uint64_t size, uint64_t attr, bool seal, int *ret_mfd)
{
	int m, r;

	if (mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
		return -errno;
	r = viewfs_tmpfs(mode, size, attr, &m);
	if (r < 0)
		return r;
	r = viewfs_attach(m, dfd, name);
	if (r < 0) {
		close(m);
		return r;
	}
	if (ret_mfd) {
		*ret_mfd = m;
		return seal ? viewfs_seal_later(c, dup(m)) : 0;
	}
	if (seal)
		return viewfs_seal_later(c, m);
	close(m);
	return 0;
}

bool
viewfs_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}
