/*
 * viewfs.h: what the builders of the sandbox's filesystem view share
 * (mount.c, hide.c, etcview.c, binds.c, projview.c): the view being
 * built and the calls that make, restrict and attach a mount.
 *
 * Everything is built with the new mount API: a tree is cloned with
 * open_tree(OPEN_TREE_CLONE), restricted with mount_setattr before it
 * is visible anywhere, and attached with move_mount onto an O_PATH fd
 * that was resolved inside the view.  So no step follows a path through
 * a symlink that a host user could have planted, and a bind is never
 * briefly writable.
 */
#ifndef AISB_VIEWFS_H
#define AISB_VIEWFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mount.h>

#include "mount.h"
#include "policy.h"

#define VIEWFS_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define VIEWFS_RW (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define VIEWFS_MAX_SEAL 256
/*
 * Scratch directory in the skeleton: the empty, mode-0 file that covers
 * hidden files, and whatever a builder stages to bind from.  A builder
 * removes what it put there; mount_setup removes "empty" and the
 * directory itself (which fails if anything else is left) before the
 * skeleton turns read-only.
 */
#define VIEWFS_SCRATCH ".aisb"
/* Where the skeleton hangs in init's mount namespace while it is built
 * (so that mounts can go below it), until pivot_root. */
#define VIEWFS_AT "/tmp"

/*
 * The host may replace a file we cover while we cover it (passwd(1)
 * renames a new /etc/shadow into place): a mount onto the old, now
 * unlinked dentry then fails with ENOENT.  Resolve again and retry a
 * few times.  (A replacement later, during the session, detaches our
 * mount from the old dentry: the kernel unmounts what sits on a deleted
 * mount point.  The host's file then shows with its own permissions,
 * root-only for shadow, gshadow, sudoers and the ssh host keys.)
 */
#define VIEWFS_ATTACH_TRIES 5

struct binds_src;

/* The view while it is built (mount_setup owns it). */
struct viewfs {
	const struct mount_opts *o;
	const struct aisb_policy *p;
	int rfd; /* the skeleton root (a mount fd) */
	int seal[VIEWFS_MAX_SEAL]; /* tmpfs mounts made read-only at the end */
	size_t nseal;
	char root[4096]; /* filesystem.root without trailing '/' */
	bool etc_deferred; /* root/etc is a directory, left to etcview_mount */
	bool etc_overlay; /* ... which mounted it as an overlay */
	/* What binds.c binds, opened before the skeleton is attached. */
	int home_fd; /* home.path, or -1 for a tmpfs */
	struct binds_src *src;
	size_t nsrc;
};

/* O_PATH fd of an absolute path inside the view, or -errno. */
int viewfs_open(struct viewfs *c, const char *path, int flags, bool follow);

/*
 * O_PATH fd of a view path, creating it (a directory, or an empty file)
 * and missing parents as directories.  That only works where the parent
 * lies on one of our tmpfs: on a read-only bind of the host it fails
 * with EROFS, which the caller reports.
 */
int viewfs_mkpath(
    struct viewfs *c, const char *path, bool dir, bool follow, int *ret_fd);

/* A detached copy of dfd/path (path "" = dfd itself) with attr set;
 * *ret is -1 on error. */
int viewfs_clone(
    int dfd, const char *path, bool recursive, uint64_t attr, int *ret);

/* Attach tree onto tfd/tpath (tpath "" = onto tfd itself). */
int viewfs_attach(int tree, int tfd, const char *tpath);

/* viewfs_clone of dfd/path, attached onto tfd/tpath. */
int viewfs_bind(int dfd, const char *path, bool recursive, uint64_t attr,
    int tfd, const char *tpath);

/* A new, detached filesystem instance of type with opts (name, value
 * pairs; a NULL value sets a flag); *ret is its mount fd, -1 on error. */
int viewfs_fsnew(
    const char *type, const char *const *opts, uint64_t attr, int *ret);

/* viewfs_fsnew, attached onto tfd/tpath. */
int viewfs_fsmount(const char *type, const char *const *opts, uint64_t attr,
    int tfd, const char *tpath);

/* viewfs_fsnew of a tmpfs (size 0: the kernel's default). */
int viewfs_tmpfs(const char *mode, uint64_t size, uint64_t attr, int *ret);

/* Remember a tmpfs of ours that must end read-only (takes mfd). */
int viewfs_seal_later(struct viewfs *c, int mfd);

/* New tmpfs attached at dfd/name (created as a directory); sealed at
 * the end when seal; its mount fd to *ret_mfd when not NULL. */
int viewfs_tmpfs_at(struct viewfs *c, int dfd, const char *name,
    const char *mode, uint64_t size, uint64_t attr, bool seal, int *ret_mfd);

bool viewfs_is_glob(const char *s);

#endif
