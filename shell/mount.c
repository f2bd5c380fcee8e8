/*
 * mount.c: the sandbox's filesystem view, the skeleton and the seal.
 * See mount.h for the layout.
 *
 * mount_setup owns the view (struct viewfs): it makes the skeleton (a
 * tmpfs root with the scratch directory), fills its top level from
 * filesystem.root (the system set only, or with filesystem.view =
 * "whole-root-unsafe" every entry), makes /proc, /sys, /dev and /tmp
 * fresh, then lets the other builders add to it in a fixed order
 * (etcview.c, hide.c, the home by binds.c, the project by projview.c,
 * the extra binds by binds.c, then hide.c again for what those binds
 * show and for the session registry), and finally seals it (every
 * tmpfs of ours read-only but /tmp and /dev/shm) and enters it with
 * pivot_root.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "aisb.h"
#include "binds.h"
#include "etcview.h"
#include "hide.h"
#include "log.h"
#include "mount.h"
#include "projview.h"
#include "session.h"
#include "util.h"
#include "viewfs.h"

static bool
special_top(const char *name)
{
	return strcmp(name, "proc") == 0 || strcmp(name, "dev") == 0 ||
	    strcmp(name, "sys") == 0 || strcmp(name, "tmp") == 0;
}

bool
mount_system_top(const char *name)
{
	/* /usr, the links (or, without merged /usr, the directories)
	 * that programs and the loader name, and /etc. */
	static const char *const top[] = {
	    "usr",
	    "bin",
	    "sbin",
	    "lib",
	    "lib32",
	    "lib64",
	    "libx32",
	    "etc",
	};
	size_t i;

	for (i = 0; i < ELEMENTSOF(top); i++)
		if (strcmp(name, top[i]) == 0)
			return true;
	return false;
}

/* The top-level entries of filesystem.root the view shows (all of them,
 * or the system set), into the skeleton. */
static int
populate_root(struct viewfs *c)
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
		    special_top(n) ||
		    (c->p->fs.view == AISB_VIEW_SYSTEM && !mount_system_top(n)))
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
			if (hide_top(c->p, n))
				continue;
			/* /etc is an overlay, made once the view has /proc
			 * and /dev (etcview_mount). */
			if (strcmp(n, "etc") == 0) {
				c->etc_deferred = true;
				continue;
			}
			r = viewfs_bind(dfd, n, true, VIEWFS_RO, c->rfd, n);
			if (r < 0)
				r = log_errno(
				    r, "bind %s/%s read-only: %m", c->root, n);
		} else if (S_ISREG(st.st_mode) && !hide_top(c->p, n)) {
			t = openat(c->rfd, n,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (t < 0) {
				r = log_errno(-errno, "create /%s: %m", n);
				break;
			}
			close(t);
			r = viewfs_bind(dfd, n, false, VIEWFS_RO, c->rfd, n);
			if (r < 0)
				r = log_errno(
				    r, "bind %s/%s read-only: %m", c->root, n);
		}
	}
	if (r >= 0 && errno)
		r = log_errno(-errno, "readdir %s: %m", c->root);
	closedir(d);
	/*
	 * The system set's /run and /var: directories of the skeleton
	 * (read-only in the end), nothing of the host's runtime state or
	 * data in them: /run empty, /var with an empty /var/tmp and the
	 * usual /var/run link to /run.
	 */
	if (r >= 0 && c->p->fs.view == AISB_VIEW_SYSTEM &&
	    (mkdirat(c->rfd, "run", 0755) < 0 ||
	        mkdirat(c->rfd, "var", 0755) < 0 ||
	        mkdirat(c->rfd, "var/tmp", 0755) < 0 ||
	        symlinkat("/run", c->rfd, "var/run") < 0))
		r = log_errno(-errno, "skeleton /run, /var: %m");
	return r;
}

static int
mount_proc_sys(struct viewfs *c)
{
	int r;

	if (mkdirat(c->rfd, "proc", 0555) < 0 ||
	    mkdirat(c->rfd, "sys", 0555) < 0)
		return log_errno(-errno, "mkdir /proc, /sys: %m");
	/* The proc of init's pid namespace: fsopen runs in it. */
	r = viewfs_fsmount("proc", NULL,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, c->rfd,
	    "proc");
	if (r < 0)
		return log_errno(r, "mount /proc: %m");
	/*
	 * The agent's uid keyring is the host's (keyrings are per user, not
	 * per namespace): keyctl(2) is denied, but /proc/keys would still
	 * list the descriptions of keys the uid added outside.
	 */
	if ((r = hide_path(c, "/proc/keys")) < 0 ||
	    (r = hide_path(c, "/proc/key-users")) < 0)
		return r;
	/*
	 * A fresh sysfs shows this netns's devices only.  Tools run
	 * without /sys, so a kernel that refuses it (a host /sys with
	 * over-mounts makes it "too revealing") only costs /sys.
	 */
	r = viewfs_fsmount(
	    "sysfs", NULL, VIEWFS_RO | MOUNT_ATTR_NOEXEC, c->rfd, "sys");
	if (r < 0)
		log_debug("mount /sys: %s, ignoring", strerror(-r));
	return 0;
}

static int
mount_dev(struct viewfs *c)
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
	int r;

	r = viewfs_tmpfs_at(c, c->rfd, "dev", "0755", 1 << 20,
	    VIEWFS_RW | MOUNT_ATTR_NOEXEC, true, &dev);
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
		r = viewfs_clone(AT_FDCWD, host, false,
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
		r = viewfs_attach(t, dev, nodes[i]);
		close(t);
		if (r < 0)
			return log_errno(r, "bind %s: %m", host);
	}
	if (mkdirat(dev, "pts", 0755) < 0)
		return log_errno(-errno, "mkdir /dev/pts: %m");
	r = viewfs_fsmount("devpts", pts_opts,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, dev, "pts");
	if (r < 0)
		return log_errno(r, "mount devpts: %m");
	for (i = 0; i < ELEMENTSOF(links); i++)
		if (symlinkat(links[i][1], dev, links[i][0]) < 0)
			return log_errno(
			    -errno, "symlink /dev/%s: %m", links[i][0]);
	r = viewfs_tmpfs_at(
	    c, dev, "shm", "1777", c->p->fs.tmp_size, VIEWFS_RW, false, NULL);
	if (r < 0)
		return log_errno(r, "mount /dev/shm: %m");
	return 0;
}

static int
seal_all(struct viewfs *c)
{
	struct mount_attr a = {.attr_set = MOUNT_ATTR_RDONLY};
	const char *empty = VIEWFS_SCRATCH "/empty";
	size_t i;

	/* What the builders staged there they removed themselves: the
	 * directory must be empty now. */
	if (unlinkat(c->rfd, empty, 0) < 0 && errno != ENOENT)
		return log_errno(-errno, "unlink %s: %m", empty);
	if (unlinkat(c->rfd, VIEWFS_SCRATCH, AT_REMOVEDIR) < 0)
		return log_errno(-errno, "rmdir %s: %m", VIEWFS_SCRATCH);
	for (i = 0; i < c->nseal; i++)
		if (mount_setattr(
		        c->seal[i], "", AT_EMPTY_PATH, &a, sizeof(a)) < 0)
			return log_errno(-errno, "make a tmpfs read-only: %m");
	if (mount_setattr(c->rfd, "", AT_EMPTY_PATH, &a, sizeof(a)) < 0)
		return log_errno(-errno, "make / read-only: %m");
	return 0;
}

static int
enter(struct viewfs *c)
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
	struct viewfs c = {.o = o, .p = o->pol, .rfd = -1, .home_fd = -1};
	size_t i;
	int r, f;

	snprintf(c.root, sizeof(c.root), "%s", o->pol->fs.root);
	for (i = strlen(c.root); i > 1 && c.root[i - 1] == '/'; i--)
		c.root[i - 1] = '\0';
	/* Nothing we mount may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return log_errno(-errno, "make / rslave: %m");
	/* Before the skeleton covers VIEWFS_AT (the host's /tmp). */
	r = binds_open(&c);
	if (r >= 0 &&
	    (r = viewfs_tmpfs("0755", 1 << 20, VIEWFS_RW, &c.rfd)) < 0)
		log_errno(r, "root tmpfs: %m");
	if (r < 0)
		goto out;
	/* Attached somewhere so that later mounts can go below it. */
	r = viewfs_attach(c.rfd, AT_FDCWD, VIEWFS_AT);
	if (r < 0) {
		log_errno(r, "attach the root tmpfs: %m");
		goto out;
	}
	if (mkdirat(c.rfd, VIEWFS_SCRATCH, 0700) < 0 ||
	    (f = openat(c.rfd, VIEWFS_SCRATCH "/empty",
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
	r = viewfs_tmpfs_at(&c, c.rfd, "tmp", "1777", o->pol->fs.tmp_size,
	    VIEWFS_RW, false, NULL);
	if (r < 0) {
		log_errno(r, "mount /tmp: %m");
		goto out;
	}
	/* The real passwd home (.ssh/authorized_keys) is hidden wherever it
	 * lies, not only under the default hidden /home. */
	if ((r = etcview_mount(&c)) < 0 || (r = hide_all(&c)) < 0 ||
	    (o->home_host && strcmp(o->home_host, "/") != 0 &&
	        o->home_host[0] == '/' &&
	        (r = hide_path(&c, o->home_host)) < 0) ||
	    (r = etcview_files(&c)) < 0 || (r = binds_home(&c)) < 0 ||
	    (r = projview_mount(&c)) < 0 || (r = binds_extra(&c)) < 0 ||
	    (r = hide_in_binds(&c)) < 0 ||
	    /* Whatever filesystem.hide says: the agent's own registry files
	     * are written by the outer, never by the sandbox (registry.h). */
	    (r = hide_path(&c, AISB_REGISTRY_DIR)) < 0)
		goto out;
	if ((r = seal_all(&c)) >= 0)
		r = enter(&c);
out:
	for (i = 0; i < c.nseal; i++)
		close(c.seal[i]);
	if (c.rfd >= 0)
		close(c.rfd);
	binds_close(&c);
	return r;
}
