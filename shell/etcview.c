/*
 * etcview.c: /etc in the view, an overlay over the root's /etc (or,
 * without overlayfs, binds over it).  See etcview.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "etcview.h"
#include "hide.h"
#include "log.h"
#include "session.h"
#include "util.h"
#include "viewfs.h"

/* The top layer's mount point in the skeleton, while it is filled. */
#define ETC_TOP ".aisb-etc"

/* The two layers while the top one is filled (etcview_mount). */
struct etcview_layers {
	int low; /* the root's /etc (O_PATH) */
	int top; /* the top layer's tmpfs (mount fd) */
};

/* A whiteout for vpath in the top layer when it lies below /etc and
 * every parent is a real directory in the lower /etc; else nothing
 * (hide_path covers it later, on the overlay). */
static int
etcview_whiteout(struct viewfs *c, const char *vpath, void *arg)
{
	const struct etcview_layers *layers = arg;
	_cleanup_free_ char *rel = NULL;
	_cleanup_close_ int low = -1, top = -1;
	char *comp, *next, *sp = NULL;
	struct stat st;
	int r;

	(void)c;
	if (strncmp(vpath, "/etc/", 5) != 0)
		return 0;
	rel = strdup(vpath + 5);
	if (!rel)
		return -ENOMEM;
	low = openat(layers->low, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	top = openat(layers->top, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (low < 0 || top < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -errno;
	for (comp = strtok_r(rel, "/", &sp); comp; comp = next) {
		int l, t;

		next = strtok_r(NULL, "/", &sp);
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			return 0;
		if (!next)
			break;
		if (fstatat(low, comp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			return 0;
		if (mkdirat(top, comp, 0755) < 0 && errno != EEXIST)
			return -errno;
		l = openat(
		    low, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		t = openat(
		    top, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (l < 0 || t < 0) {
			if (l >= 0)
				close(l);
			if (t >= 0)
				close(t);
			return -errno;
		}
		close(low);
		close(top);
		low = l;
		top = t;
	}
	if (!comp)
		return 0;
	/* As the covers elsewhere: a directory shows empty (opaque), a
	 * file as empty and unreadable (mode 0), a missing name stays
	 * missing even if the host creates it later (whiteout). */
	if (fstatat(low, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (mknodat(top, comp, S_IFCHR | 0, 0) < 0 && errno != EEXIST)
			return -errno;
	} else if (S_ISDIR(st.st_mode)) {
		int d;

		if (mkdirat(top, comp, 0755) < 0 && errno != EEXIST)
			return -errno;
		d = openat(top, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d < 0)
			return -errno;
		r = fsetxattr(d, "user.overlay.opaque", "y", 1, 0) < 0 ? -errno
		                                                       : 0;
		close(d);
		if (r < 0)
			return r;
	} else {
		int f = openat(
		    top, comp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);

		if (f < 0 && errno != EEXIST)
			return -errno;
		if (f >= 0) {
			r = fchmod(f, 0) < 0 ? -errno : 0;
			close(f);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int
etcview_topfile(int top, const char *name, const char *content)
{
	_cleanup_close_ int fd = -1;
	size_t n = strlen(content);

	fd = openat(top, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, n) != (ssize_t)n)
		return -errno;
	return 0;
}

/* "lowerdir" wants ':' and '\\' escaped. */
static void
etcview_escape(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; *src && i + 2 < n; src++) {
		if (*src == ':' || *src == '\\' || *src == ',')
			dst[i++] = '\\';
		dst[i++] = *src;
	}
	dst[i] = '\0';
}

int
etcview_mount(struct viewfs *c)
{
	const struct mount_opts *o = c->o;
	char low[4200], lowesc[8500], opt[8600];
	const char *opts[] = {"lowerdir", opt, "userxattr", NULL, NULL, NULL};
	_cleanup_close_ int lowfd = -1, topfd = -1;
	struct etcview_layers l;
	int r;

	if (!c->etc_deferred)
		return 0;
	snprintf(
	    low, sizeof(low), "%s/etc", strcmp(c->root, "/") ? c->root : "");
	lowfd = open(low, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (lowfd < 0)
		return log_errno(-errno, "%s: %m", low);
	r = viewfs_tmpfs_at(
	    c, c->rfd, ETC_TOP, "0755", 1 << 20, VIEWFS_RW, false, &topfd);
	if (r < 0)
		return log_errno(r, "/etc top layer: %m");
	l = (struct etcview_layers){.low = lowfd, .top = topfd};
	if ((r = etcview_topfile(topfd, "passwd", o->passwd)) < 0 ||
	    (r = etcview_topfile(topfd, "group", o->group)) < 0 ||
	    (r = etcview_topfile(topfd, "hostname", o->hostname)) < 0 ||
	    (r = etcview_topfile(topfd, "hosts", o->hosts)) < 0 ||
	    (r = etcview_topfile(topfd, "resolv.conf", o->resolv)) < 0 ||
	    (r = hide_walk(c, etcview_whiteout, &l)) < 0)
		return log_errno(r, "/etc top layer: %m");
	etcview_escape(lowesc, sizeof(lowesc), low);
	snprintf(opt, sizeof(opt), VIEWFS_AT "/" ETC_TOP ":%s", lowesc);
	r = viewfs_fsmount("overlay", opts, VIEWFS_RO, c->rfd, "etc");
	if (r >= 0)
		c->etc_overlay = true;
	else {
		/* Without overlayfs (a kernel before 5.11 in a user
		 * namespace): the root's /etc bound read-only, covered
		 * below as every other path. */
		log_debug("/etc overlay: %s; binding it instead", strerror(-r));
		r = viewfs_bind(lowfd, "", true, VIEWFS_RO, c->rfd, "etc");
		if (r < 0)
			return log_errno(r, "bind %s read-only: %m", low);
	}
	/* The overlay holds its own reference to the top layer. */
	if (umount2(VIEWFS_AT "/" ETC_TOP, MNT_DETACH) < 0 ||
	    unlinkat(c->rfd, ETC_TOP, AT_REMOVEDIR) < 0)
		return log_errno(-errno, "detach the /etc top layer: %m");
	return 0;
}

/* One try of etcview_genfile: 0, 1 when vpath cannot be made, or -errno. */
static int
etcview_genattach(struct viewfs *c, const char *skel, const char *vpath)
{
	_cleanup_close_ int tfd = -1;
	int r;

	r = viewfs_mkpath(c, vpath, false, false, &tfd);
	if (r < 0) {
		log_debug("%s: %s", vpath, strerror(-r));
		return 1;
	}
	return viewfs_bind(
	    c->rfd, skel, false, VIEWFS_RO | MOUNT_ATTR_NOEXEC, tfd, "");
}

/* Write content into the scratch directory and bind it read-only at
 * vpath. */
static int
etcview_genfile(
    struct viewfs *c, const char *vpath, const char *content, bool required)
{
	char skel[64];
	const char *base = strrchr(vpath, '/') + 1;
	_cleanup_close_ int fd = -1;
	size_t n = strlen(content);
	int try, r = 0;

	snprintf(skel, sizeof(skel), VIEWFS_SCRATCH "/%s", base);
	fd =
	    openat(c->rfd, skel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, n) != (ssize_t)n)
		return log_errno(-errno, "write %s: %m", skel);
	for (try = 0; try < VIEWFS_ATTACH_TRIES; try++)
		if ((r = etcview_genattach(c, skel, vpath)) != -ENOENT)
			break;
	if (r == 1 && required)
		return log_errno(-SESSION_EPOLICY,
		    "filesystem.root has no usable %s", vpath);
	if (r < 0)
		return log_errno(r, "bind %s: %m", vpath);
	/* The bind holds the file; the scratch name must go before the
	 * skeleton turns read-only (mount_setup checks it is gone). */
	if (unlinkat(c->rfd, skel, 0) < 0)
		return log_errno(-errno, "unlink %s: %m", skel);
	return 0;
}

int
etcview_files(struct viewfs *c)
{
	const struct mount_opts *o = c->o;
	int r;

	if (c->etc_overlay)
		return 0;
	if ((r = etcview_genfile(c, "/etc/passwd", o->passwd, true)) < 0 ||
	    (r = etcview_genfile(c, "/etc/group", o->group, true)) < 0 ||
	    (r = etcview_genfile(c, "/etc/hostname", o->hostname, false)) < 0 ||
	    (r = etcview_genfile(c, "/etc/hosts", o->hosts, false)) < 0 ||
	    (r = etcview_genfile(c, "/etc/resolv.conf", o->resolv, false)) < 0)
		return r;
	return 0;
}
