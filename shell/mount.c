/*
 * mount.c: the sandbox's filesystem view.  See mount.h for the layout.
 *
 * Everything is built with the new mount API: a tree is cloned with
 * open_tree(OPEN_TREE_CLONE), restricted with mount_setattr before it
 * is visible anywhere, and attached with move_mount onto an O_PATH fd
 * that was resolved inside the view.  So no step follows a path through
 * a symlink that a host user could have planted, and a bind is never
 * briefly writable.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "log.h"
#include "mount.h"
#include "session.h"
#include "util.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

#define ATTR_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define ATTR_RW (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define MAX_SEAL 256
#define SKEL ".aisb" /* scratch dir in the skeleton, removed */

struct mctx {
	const struct mount_opts *o;
	const struct aisb_policy *p;
	int rfd; /* the skeleton root (a mount fd) */
	int seal[MAX_SEAL]; /* tmpfs mounts made read-only at the end */
	size_t nseal;
	char root[4096]; /* filesystem.root without trailing '/' */
	bool etc_deferred; /* root/etc is a directory: an overlay (etc_view) */
	bool etc_overlay; /* ... and it is mounted */
	int etc_low; /* the root's /etc (O_PATH) */
	int etc_top; /* the top layer's tmpfs (mount fd) */
};

/* O_PATH fd of an absolute path inside the view, or -errno. */
static int
view_open(struct mctx *c, const char *path, int flags, bool follow)
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

/*
 * O_PATH fd of a view path, creating it (a directory, or an empty file)
 * and missing parents as directories.  That only works where the parent
 * lies on one of our tmpfs: on a read-only bind of the host it fails
 * with EROFS, which the caller reports.
 */
static int
view_mkpath(
    struct mctx *c, const char *path, bool dir, bool follow, int *ret_fd)
{
	_cleanup_free_ char *parent = NULL;
	_cleanup_close_ int pfd = -1;
	char *slash, *name;
	int fd, r;

	fd = view_open(c, path, 0, follow);
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
	r = view_mkpath(c, parent, true, true, &pfd);
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

/* A detached copy of dfd/path (path "" = dfd itself) with attr set. */
static int
clone_tree(int dfd, const char *path, bool recursive, uint64_t attr, int *ret)
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

/* Attach tree onto tfd/tpath (tpath "" = onto tfd itself). */
static int
attach(int tree, int tfd, const char *tpath)
{
	if (move_mount(tree, "", tfd, tpath,
	        MOVE_MOUNT_F_EMPTY_PATH |
	            (*tpath ? 0 : MOVE_MOUNT_T_EMPTY_PATH)) < 0)
		return -errno;
	return 0;
}

/* A new, detached filesystem instance; *ret is its mount fd. */
static int
fs_new(const char *type, const char *const *opts, uint64_t attr, int *ret)
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

static int
tmpfs_new(const char *mode, uint64_t size, uint64_t attr, int *ret)
{
	char sz[32];
	const char *opts[] = {
	    "mode", mode, size ? "size" : NULL, sz, NULL, NULL};

	snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
	return fs_new("tmpfs", opts, attr, ret);
}

/* Remember a tmpfs of ours that must end read-only. */
static int
seal_later(struct mctx *c, int mfd)
{
	if (c->nseal >= MAX_SEAL) {
		close(mfd);
		return -E2BIG;
	}
	c->seal[c->nseal++] = mfd;
	return 0;
}

/* New tmpfs attached at dfd/name (created as a directory). */
static int
tmpfs_at(struct mctx *c, int dfd, const char *name, const char *mode,
    uint64_t size, uint64_t attr, bool seal, int *ret_mfd)
{
	int m, r;

	if (mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
		return -errno;
	r = tmpfs_new(mode, size, attr, &m);
	if (r < 0)
		return r;
	r = attach(m, dfd, name);
	if (r < 0) {
		close(m);
		return r;
	}
	if (ret_mfd) {
		*ret_mfd = m;
		return seal ? seal_later(c, dup(m)) : 0;
	}
	if (seal)
		return seal_later(c, m);
	close(m);
	return 0;
}

static bool
is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Is "/name" an entry of the hide list (a plain top-level path)? */
static bool
hidden_top(const struct aisb_policy *p, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < p->fs.hide.n; i++) {
		const char *h = p->fs.hide.v[i];
		size_t k;

		if (h[0] != '/' || is_glob(h) || strncmp(h + 1, name, n) != 0)
			continue;
		for (k = n + 1; h[k] == '/'; k++)
			;
		if (h[k] == '\0')
			return true;
	}
	return false;
}

static bool
special_top(const char *name)
{
	return strcmp(name, "proc") == 0 || strcmp(name, "dev") == 0 ||
	    strcmp(name, "sys") == 0 || strcmp(name, "tmp") == 0;
}

/* Each top-level entry of filesystem.root into the skeleton. */
static int
populate_root(struct mctx *c)
{
	DIR *d;
	struct dirent *de;
	int dfd, r = 0;

	dfd = open(c->p->fs.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return log_errno(-SESSION_EPOLICY, "filesystem.root %s: %s",
		    c->p->fs.root, strerror(errno));
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return log_errno(-errno, "fdopendir: %m");
	}
	while (r >= 0 && (errno = 0, de = readdir(d))) {
		const char *n = de->d_name;
		struct stat st;
		int t;

		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
		    special_top(n))
			continue;
		if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = log_errno(-errno, "%s/%s: %m", c->root, n);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t k =
			    readlinkat(dfd, n, target, sizeof(target) - 1);

			if (k < 0) {
				r = log_errno(
				    -errno, "readlink %s/%s: %m", c->root, n);
				break;
			}
			target[k] = '\0';
			if (symlinkat(target, c->rfd, n) < 0)
				r = log_errno(-errno, "symlink /%s: %m", n);
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdirat(c->rfd, n, 0755) < 0) {
				r = log_errno(-errno, "mkdir /%s: %m", n);
				break;
			}
			/* A hidden top-level directory: an empty dir of the
			 * skeleton, which ends read-only. */
			if (hidden_top(c->p, n))
				continue;
			/* /etc is an overlay, made once the view has /proc
			 * and /dev (etc_view). */
			if (strcmp(n, "etc") == 0) {
				c->etc_deferred = true;
				continue;
			}
			r = clone_tree(dfd, n, true, ATTR_RO, &t);
			if (r >= 0) {
				r = attach(t, c->rfd, n);
				close(t);
			}
			if (r < 0)
				r = log_errno(
				    r, "bind %s/%s read-only: %m", c->root, n);
		} else if (S_ISREG(st.st_mode) && !hidden_top(c->p, n)) {
			t = openat(c->rfd, n,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (t < 0) {
				r = log_errno(-errno, "create /%s: %m", n);
				break;
			}
			close(t);
			r = clone_tree(dfd, n, false, ATTR_RO, &t);
			if (r >= 0) {
				r = attach(t, c->rfd, n);
				close(t);
			}
			if (r < 0)
				r = log_errno(
				    r, "bind %s/%s read-only: %m", c->root, n);
		}
	}
	if (r >= 0 && errno)
		r = log_errno(-errno, "readdir %s: %m", c->root);
	closedir(d);
	return r;
}

static int hide_one(struct mctx *c, const char *vpath);

static int
mount_proc_sys(struct mctx *c)
{
	int m, r;

	if (mkdirat(c->rfd, "proc", 0555) < 0 ||
	    mkdirat(c->rfd, "sys", 0555) < 0)
		return log_errno(-errno, "mkdir /proc, /sys: %m");
	/* The proc of init's pid namespace: fsopen runs in it. */
	r = fs_new("proc", NULL,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, &m);
	if (r >= 0) {
		r = attach(m, c->rfd, "proc");
		close(m);
	}
	if (r < 0)
		return log_errno(r, "mount /proc: %m");
	/*
	 * The agent's uid keyring is the host's (keyrings are per user, not
	 * per namespace): keyctl(2) is denied, but /proc/keys would still
	 * list the descriptions of keys the uid added outside.
	 */
	if ((r = hide_one(c, "/proc/keys")) < 0 ||
	    (r = hide_one(c, "/proc/key-users")) < 0)
		return r;
	/*
	 * A fresh sysfs shows this netns's devices only.  Tools run
	 * without /sys, so a kernel that refuses it (a host /sys with
	 * over-mounts makes it "too revealing") only costs /sys.
	 */
	r = fs_new("sysfs", NULL, ATTR_RO | MOUNT_ATTR_NOEXEC, &m);
	if (r >= 0) {
		r = attach(m, c->rfd, "sys");
		close(m);
	}
	if (r < 0)
		log_debug("mount /sys: %s, ignoring", strerror(-r));
	return 0;
}

static int
mount_dev(struct mctx *c)
{
	static const char *const nodes[] = {
	    "null",
	    "zero",
	    "full",
	    "random",
	    "urandom",
	    "tty",
	};
	static const char *const links[][2] = {
	    {"ptmx", "pts/ptmx"},
	    {"fd", "/proc/self/fd"},
	    {"stdin", "/proc/self/fd/0"},
	    {"stdout", "/proc/self/fd/1"},
	    {"stderr", "/proc/self/fd/2"},
	};
	const char *pts_opts[] = {"newinstance", NULL, "ptmxmode", "0666",
	    "mode", "0620", NULL, NULL};
	_cleanup_close_ int dev = -1;
	size_t i;
	int m, r;

	r = tmpfs_at(c, c->rfd, "dev", "0755", 1 << 20,
	    ATTR_RW | MOUNT_ATTR_NOEXEC, true, &dev);
	if (r < 0)
		return log_errno(r, "mount /dev: %m");
	for (i = 0; i < ELEMENTSOF(nodes); i++) {
		char host[32];
		struct stat st;
		int t, f;

		snprintf(host, sizeof(host), "/dev/%s", nodes[i]);
		f = openat(dev, nodes[i],
		    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (f < 0)
			return log_errno(
			    -errno, "create /dev/%s: %m", nodes[i]);
		close(f);
		r = clone_tree(AT_FDCWD, host, false,
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, &t);
		if (r < 0)
			return log_errno(r, "bind %s: %m", host);
		if (fstat(t, &st) < 0 || !S_ISCHR(st.st_mode)) {
			close(t);
			return log_errno(-ENODEV,
			    "%s is not a character "
			    "device",
			    host);
		}
		r = attach(t, dev, nodes[i]);
		close(t);
		if (r < 0)
			return log_errno(r, "bind %s: %m", host);
	}
	if (mkdirat(dev, "pts", 0755) < 0)
		return log_errno(-errno, "mkdir /dev/pts: %m");
	r = fs_new(
	    "devpts", pts_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, &m);
	if (r >= 0) {
		r = attach(m, dev, "pts");
		close(m);
	}
	if (r < 0)
		return log_errno(r, "mount devpts: %m");
	for (i = 0; i < ELEMENTSOF(links); i++)
		if (symlinkat(links[i][1], dev, links[i][0]) < 0)
			return log_errno(
			    -errno, "symlink /dev/%s: %m", links[i][0]);
	r = tmpfs_at(
	    c, dev, "shm", "1777", c->p->fs.tmp_size, ATTR_RW, false, NULL);
	if (r < 0)
		return log_errno(r, "mount /dev/shm: %m");
	return 0;
}

/* Cover one view path: an empty tmpfs over a directory, an empty file
 * over anything else.  A path that does not resolve is ignored. */
/*
 * The host may replace a file we cover while we cover it (passwd(1)
 * renames a new /etc/shadow into place): a mount onto the old, now
 * unlinked dentry then fails with ENOENT.  Resolve again and retry a
 * few times.  (A replacement later, during the session, detaches our
 * mount from the old dentry: the kernel unmounts what sits on a deleted
 * mount point.  The host's file then shows with its own permissions,
 * root-only for shadow, gshadow, sudoers and the ssh host keys.)
 */
#define ATTACH_TRIES 5

/* Cover one view path: an empty tmpfs over a directory, an empty file
 * over anything else.  A path that does not resolve is ignored. */
static int
hide_one(struct mctx *c, const char *vpath)
{
	struct stat st;
	int try, fd, t, r = 0;

	for (try = 0; try < ATTACH_TRIES; try++) {
		fd = view_open(c, vpath, 0, true);
		if (fd == -ENOENT || fd == -ENOTDIR || fd == -EACCES)
			return 0;
		if (fd < 0)
			return log_errno(fd, "hide %s: %m", vpath);
		t = -1;
		if (fstat(fd, &st) < 0)
			r = -errno;
		else if (S_ISDIR(st.st_mode))
			r = tmpfs_new(
			    "0755", 1 << 20, ATTR_RW | MOUNT_ATTR_NOEXEC, &t);
		else
			r = clone_tree(c->rfd, SKEL "/empty", false,
			    ATTR_RO | MOUNT_ATTR_NOEXEC, &t);
		if (r >= 0)
			r = attach(t, fd, "");
		close(fd);
		if (r >= 0 && S_ISDIR(st.st_mode))
			return seal_later(c, t); /* owns t */
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

/* Call fn for each path the hide list names (globs expanded against
 * filesystem.root), except plain top-level entries (populate_root). */
static int
hide_walk(struct mctx *c, int (*fn)(struct mctx *, const char *))
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
		if (!is_glob(h)) {
			const char *s = h + 1 + strcspn(h + 1, "/");

			/* Plain top-level entries are done already. */
			if (s[strspn(s, "/")] == '\0')
				continue;
			if ((r = fn(c, h)) < 0)
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
			r = fn(c, g.gl_pathv[j] + rl);
		globfree(&g);
		if (r < 0)
			return r;
	}
	return 0;
}

static int
hide_all(struct mctx *c)
{
	return hide_walk(c, hide_one);
}

/*
 * /etc as a read-only overlay: a top layer of our own (the generated
 * files, and whiteouts for the hidden paths under /etc) over the root's
 * /etc.  Unlike a bind over a host file, this cannot come undone when
 * the host replaces a file by rename during the session (useradd and
 * /etc/passwd): the overlay looks names up in its layers.  The top
 * layer is a tmpfs of its own, detached again once the overlay holds
 * it.  Mounts below the root's /etc are not carried (overlayfs).
 */
#define ETC_TOP ".aisb-etc"

/* A whiteout for vpath in the top layer when it lies below /etc and
 * every parent is a real directory in the lower /etc; else nothing
 * (hide_one covers it later, on the overlay). */
static int
etc_whiteout(struct mctx *c, const char *vpath)
{
	_cleanup_free_ char *rel = NULL;
	_cleanup_close_ int low = -1, top = -1;
	char *comp, *next, *sp = NULL;
	struct stat st;
	int r;

	if (strncmp(vpath, "/etc/", 5) != 0)
		return 0;
	rel = strdup(vpath + 5);
	if (!rel)
		return -ENOMEM;
	low = openat(c->etc_low, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	top = openat(c->etc_top, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
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
etc_topfile(int top, const char *name, const char *content)
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
ovl_escape(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; *src && i + 2 < n; src++) {
		if (*src == ':' || *src == '\\' || *src == ',')
			dst[i++] = '\\';
		dst[i++] = *src;
	}
	dst[i] = '\0';
}

static int
etc_view(struct mctx *c)
{
	const struct mount_opts *o = c->o;
	char low[4200], lowesc[8500], opt[8600];
	const char *opts[] = {"lowerdir", opt, "userxattr", NULL, NULL, NULL};
	int m = -1, r;

	if (!c->etc_deferred)
		return 0;
	snprintf(
	    low, sizeof(low), "%s/etc", strcmp(c->root, "/") ? c->root : "");
	c->etc_low = open(low, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->etc_low < 0)
		return log_errno(-errno, "%s: %m", low);
	r = tmpfs_at(
	    c, c->rfd, ETC_TOP, "0755", 1 << 20, ATTR_RW, false, &c->etc_top);
	if (r < 0)
		return log_errno(r, "/etc top layer: %m");
	if ((r = etc_topfile(c->etc_top, "passwd", o->passwd)) < 0 ||
	    (r = etc_topfile(c->etc_top, "group", o->group)) < 0 ||
	    (r = etc_topfile(c->etc_top, "hostname", o->hostname)) < 0 ||
	    (r = etc_topfile(c->etc_top, "hosts", o->hosts)) < 0 ||
	    (r = etc_topfile(c->etc_top, "resolv.conf", o->resolv)) < 0 ||
	    (r = hide_walk(c, etc_whiteout)) < 0)
		return log_errno(r, "/etc top layer: %m");
	ovl_escape(lowesc, sizeof(lowesc), low);
	/* The skeleton is attached at /tmp (mount_setup). */
	snprintf(opt, sizeof(opt), "/tmp/" ETC_TOP ":%s", lowesc);
	r = fs_new("overlay", opts, ATTR_RO, &m);
	if (r >= 0) {
		r = attach(m, c->rfd, "etc");
		close(m);
	}
	if (r >= 0)
		c->etc_overlay = true;
	else {
		/* Without overlayfs (a kernel before 5.11 in a user
		 * namespace): the root's /etc bound read-only, covered
		 * below as every other path. */
		log_debug("/etc overlay: %s; binding it instead", strerror(-r));
		r = clone_tree(c->etc_low, "", true, ATTR_RO, &m);
		if (r >= 0) {
			r = attach(m, c->rfd, "etc");
			close(m);
		}
		if (r < 0)
			return log_errno(r, "bind %s read-only: %m", low);
	}
	/* The overlay holds its own reference to the top layer. */
	if (umount2("/tmp/" ETC_TOP, MNT_DETACH) < 0 ||
	    unlinkat(c->rfd, ETC_TOP, AT_REMOVEDIR) < 0)
		return log_errno(-errno, "detach the /etc top layer: %m");
	return 0;
}

/* One try of gen_file: 0, 1 when vpath cannot be made, or -errno. */
static int
gen_attach(struct mctx *c, const char *skel, const char *vpath)
{
	_cleanup_close_ int tfd = -1;
	int t, r;

	r = view_mkpath(c, vpath, false, false, &tfd);
	if (r < 0) {
		log_debug("%s: %s", vpath, strerror(-r));
		return 1;
	}
	r = clone_tree(c->rfd, skel, false, ATTR_RO | MOUNT_ATTR_NOEXEC, &t);
	if (r >= 0) {
		r = attach(t, tfd, "");
		close(t);
	}
	return r;
}

/* Write content into the skeleton and bind it read-only at vpath. */
static int
gen_file(struct mctx *c, const char *vpath, const char *content, bool required)
{
	char skel[64];
	const char *base = strrchr(vpath, '/') + 1;
	_cleanup_close_ int fd = -1;
	size_t n = strlen(content);
	int try, r = 0;

	snprintf(skel, sizeof(skel), SKEL "/%s", base);
	fd =
	    openat(c->rfd, skel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, n) != (ssize_t)n)
		return log_errno(-errno, "write %s: %m", skel);
	for (try = 0; try < ATTACH_TRIES; try++)
		if ((r = gen_attach(c, skel, vpath)) != -ENOENT)
			break;
	if (r == 1 && !required)
		return 0;
	if (r == 1)
		return log_errno(-SESSION_EPOLICY,
		    "filesystem.root has no usable %s", vpath);
	if (r < 0)
		return log_errno(r, "bind %s: %m", vpath);
	return 0;
}

static int
gen_etc(struct mctx *c)
{
	const struct mount_opts *o = c->o;
	int r;

	if (c->etc_overlay)
		return 0;
	if ((r = gen_file(c, "/etc/passwd", o->passwd, true)) < 0 ||
	    (r = gen_file(c, "/etc/group", o->group, true)) < 0 ||
	    (r = gen_file(c, "/etc/hostname", o->hostname, false)) < 0 ||
	    (r = gen_file(c, "/etc/hosts", o->hosts, false)) < 0 ||
	    (r = gen_file(c, "/etc/resolv.conf", o->resolv, false)) < 0)
		return r;
	return 0;
}

static int
mount_home(struct mctx *c)
{
	const struct aisb_policy *p = c->p;
	_cleanup_close_ int hfd = -1, tfd = -1;
	struct stat st, real;
	int t, r;

	r = view_mkpath(c, c->o->home_in, true, true, &tfd);
	if (r < 0)
		return log_errno(r == -EROFS ? -SESSION_EPOLICY : r,
		    "cannot "
		    "make the home mount point %s inside: %s",
		    c->o->home_in, strerror(-r));
	if (p->home.tmpfs || !p->home.path) {
		r = tmpfs_new("0700", p->fs.tmp_size, ATTR_RW, &t);
		if (r >= 0) {
			r = attach(t, tfd, "");
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
	r = clone_tree(hfd, "", true, ATTR_RW, &t);
	if (r >= 0) {
		r = attach(t, tfd, "");
		close(t);
	}
	if (r < 0)
		return log_errno(r, "bind home %s: %m", p->home.path);
	return 0;
}

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
mount_protect_valid(const char *rel)
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
protect_one(int pfd, const char *rel)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_close_ int cur = -1;
	char *comp, *next, *sp = NULL;
	int t, r;

	if (!mount_protect_valid(rel))
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
			r = clone_tree(fd, "", true, ATTR_RO, &t);
			if (r >= 0) {
				r = attach(t, fd, "");
				close(t);
			}
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
			r = clone_tree(fd, "", true, 0, &t);
			if (r >= 0) {
				r = attach(t, fd, "");
				close(t);
			}
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

static int
mount_project(struct mctx *c)
{
	const struct aisb_policy *p = c->p;
	const char *target = p->project.target;
	_cleanup_close_ int tfd = -1, pfd = -1;
	size_t i;
	int t, r;

	if (target[strspn(target, "/")] == '\0')
		return log_errno(
		    -SESSION_EPOLICY, "project.target must not be /");
	r = view_mkpath(c, target, true, true, &tfd);
	if (r < 0)
		return log_errno(r == -EROFS ? -SESSION_EPOLICY : r,
		    "cannot "
		    "make project.target %s inside: %s",
		    target, strerror(-r));
	r = clone_tree(c->o->project_fd, "", true,
	    p->project.readonly ? ATTR_RO : ATTR_RW, &t);
	if (r >= 0) {
		r = attach(t, tfd, "");
		close(t);
	}
	if (r < 0)
		return log_errno(r, "bind the project at %s: %m", target);
	if (p->project.readonly)
		return 0;
	pfd = view_open(c, target, O_DIRECTORY, true);
	if (pfd < 0)
		return log_errno(pfd, "%s: %m", target);
	for (i = 0; i < p->project.protect.n; i++)
		if ((r = protect_one(pfd, p->project.protect.v[i])) < 0)
			return r;
	return 0;
}

/* filesystem.readonly / .readwrite: "PATH" (bound at the same path
 * inside) or "SRC:DST".  A missing SRC is a policy error. */
static int
bind_extra(struct mctx *c, const char *spec, bool ro)
{
	const char *key = ro ? "filesystem.readonly" : "filesystem.readwrite";
	_cleanup_free_ char *src = strdup(spec);
	_cleanup_close_ int sfd = -1, tfd = -1;
	const char *dst;
	struct stat st;
	char *colon;
	int t, r;

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
	r = view_mkpath(c, dst, S_ISDIR(st.st_mode), true, &tfd);
	if (r < 0)
		return log_errno(r == -EROFS ? -SESSION_EPOLICY : r,
		    "%s: "
		    "cannot make the mount point %s inside: %s",
		    key, dst, strerror(-r));
	r = clone_tree(sfd, "", true, ro ? ATTR_RO : ATTR_RW, &t);
	if (r >= 0) {
		r = attach(t, tfd, "");
		close(t);
	}
	if (r < 0)
		return log_errno(r, "%s: bind %s at %s: %m", key, src, dst);
	return 0;
}

/* A glob binds every host path it matches (none: nothing to do). */
static int
bind_extras(struct mctx *c, const char *spec, bool ro)
{
	glob_t g;
	size_t j;
	int r;

	if (!is_glob(spec))
		return bind_extra(c, spec, ro);
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
		    : bind_extra(c, g.gl_pathv[j], ro);
	globfree(&g);
	return r;
}

static int
seal_all(struct mctx *c)
{
	struct mount_attr a = {.attr_set = MOUNT_ATTR_RDONLY};
	static const char *const scratch[] = {
	    "empty",
	    "passwd",
	    "group",
	    "hostname",
	    "hosts",
	    "resolv.conf",
	};
	char path[64];
	size_t i;

	for (i = 0; i < ELEMENTSOF(scratch); i++) {
		snprintf(path, sizeof(path), SKEL "/%s", scratch[i]);
		if (unlinkat(c->rfd, path, 0) < 0 && errno != ENOENT)
			return log_errno(-errno, "unlink %s: %m", path);
	}
	if (unlinkat(c->rfd, SKEL, AT_REMOVEDIR) < 0)
		return log_errno(-errno, "rmdir %s: %m", SKEL);
	for (i = 0; i < c->nseal; i++)
		if (mount_setattr(
		        c->seal[i], "", AT_EMPTY_PATH, &a, sizeof(a)) < 0)
			return log_errno(-errno, "make a tmpfs read-only: %m");
	if (mount_setattr(c->rfd, "", AT_EMPTY_PATH, &a, sizeof(a)) < 0)
		return log_errno(-errno, "make / read-only: %m");
	return 0;
}

static int
enter(struct mctx *c)
{
	/* pivot_root(".", ".") stacks the old root on the new one; the
	 * detach then removes it (pivot_root(2), NOTES). */
	if (fchdir(c->rfd) < 0)
		return log_errno(-errno, "chdir new root: %m");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return log_errno(-errno, "pivot_root: %m");
	if (umount2(".", MNT_DETACH) < 0)
		return log_errno(-errno, "detach the old root: %m");
	if (chdir("/") < 0)
		return log_errno(-errno, "chdir /: %m");
	return 0;
}

int
mount_setup(const struct mount_opts *o)
{
	struct mctx c = {
	    .o = o, .p = o->pol, .rfd = -1, .etc_low = -1, .etc_top = -1};
	size_t i;
	int r, f;

	snprintf(c.root, sizeof(c.root), "%s", o->pol->fs.root);
	for (i = strlen(c.root); i > 1 && c.root[i - 1] == '/'; i--)
		c.root[i - 1] = '\0';
	/* Nothing we mount may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return log_errno(-errno, "make / rslave: %m");
	r = tmpfs_new("0755", 1 << 20, ATTR_RW, &c.rfd);
	if (r < 0)
		return log_errno(r, "root tmpfs: %m");
	/* Attached somewhere so that later mounts can go below it. */
	r = attach(c.rfd, AT_FDCWD, "/tmp");
	if (r < 0) {
		log_errno(r, "attach the root tmpfs: %m");
		goto out;
	}
	if (mkdirat(c.rfd, SKEL, 0700) < 0 ||
	    (f = openat(c.rfd, SKEL "/empty",
	         O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)) < 0) {
		r = log_errno(-errno, "skeleton: %m");
		goto out;
	}
	/* Mode 0: reading a hidden file fails (EACCES) instead of
	 * returning nothing; the agent owns it but the mount is
	 * read-only, so it cannot chmod it. */
	r = fchmod(f, 0) < 0 ? -errno : 0;
	close(f);
	if (r < 0) {
		log_errno(r, "skeleton: %m");
		goto out;
	}
	if ((r = populate_root(&c)) < 0 || (r = mount_proc_sys(&c)) < 0 ||
	    (r = mount_dev(&c)) < 0)
		goto out;
	r = tmpfs_at(&c, c.rfd, "tmp", "1777", o->pol->fs.tmp_size, ATTR_RW,
	    false, NULL);
	if (r < 0) {
		log_errno(r, "mount /tmp: %m");
		goto out;
	}
	/* The real passwd home (.ssh/authorized_keys) is hidden wherever it
	 * lies, not only under the default hidden /home. */
	if ((r = etc_view(&c)) < 0 || (r = hide_all(&c)) < 0 ||
	    (o->home_host && strcmp(o->home_host, "/") != 0 &&
	        o->home_host[0] == '/' &&
	        (r = hide_one(&c, o->home_host)) < 0) ||
	    (r = gen_etc(&c)) < 0 || (r = mount_home(&c)) < 0 ||
	    (r = mount_project(&c)) < 0)
		goto out;
	for (i = 0; r >= 0 && i < o->pol->fs.readonly.n; i++)
		r = bind_extras(&c, o->pol->fs.readonly.v[i], true);
	for (i = 0; r >= 0 && i < o->pol->fs.readwrite.n; i++)
		r = bind_extras(&c, o->pol->fs.readwrite.v[i], false);
	if (r >= 0 && (r = seal_all(&c)) >= 0)
		r = enter(&c);
out:
	for (i = 0; i < c.nseal; i++)
		close(c.seal[i]);
	if (c.etc_low >= 0)
		close(c.etc_low);
	if (c.etc_top >= 0)
		close(c.etc_top);
	close(c.rfd);
	return r;
}
