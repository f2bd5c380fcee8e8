/*
 * mount.h: the sandbox's filesystem view (docs/architecture.md stage 6).
 *
 * Run by init, in its new mount and user namespaces, before pivot_root.
 * The new root is a tmpfs skeleton, built in this order:
 *   - the top-level entries of filesystem.root that the view shows: with
 *     filesystem.view = "system" (the default) only the system set
 *     (mount_system_top: usr, bin, sbin, lib, lib32, lib64, libx32,
 *     etc), an empty /run, and a /var holding only an empty tmp and
 *     the link run -> /run; with "whole-root-unsafe" every entry.  A
 *     directory is a recursive bind, read-only, nosuid, nodev
 *     (open_tree, mount_setattr AT_RECURSIVE, move_mount); a symlink is
 *     recreated; a file is bound read-only; proc, dev, sys and tmp are
 *     made fresh (mount.c);
 *   - /proc (this pid namespace's, nosuid, nodev, noexec), /sys (fresh
 *     sysfs, read-only; skipped when the kernel refuses), a minimal /dev
 *     (null zero full random urandom tty bound from the host, a new
 *     devpts instance, ptmx, shm, fd links), /tmp (filesystem.tmp_size)
 *     (mount.c);
 *   - /etc: a read-only overlay whose top layer holds the generated
 *     passwd, group, hostname, hosts, resolv.conf, with credentials the
 *     trust bundles with the session CA, and the covers of the hidden
 *     paths under /etc; without overlayfs, binds over the originals
 *     (etcview.c);
 *   - a top-level hide entry is an empty directory of the skeleton; a
 *     deeper hidden directory gets an empty tmpfs, a hidden file an
 *     empty file, both read-only in the end; globs are expanded against
 *     filesystem.root, missing paths ignored (hide.c);
 *   - the home (binds.c), then the project with its protect paths
 *     (projview.c), then the extra binds of filesystem.readonly and
 *     filesystem.readwrite (binds.c), and the hide entries that lie
 *     inside those binds (hide.c);
 * then every tmpfs of ours except /tmp and /dev/shm is made read-only,
 * pivot_root, and the old root is detached (mount.c).
 *
 * Paths inside the view are resolved with RESOLVE_IN_ROOT from the new
 * root (viewfs.c), so an absolute symlink in filesystem.root never
 * reaches a host path while the view is built.
 */
#ifndef AISB_MOUNT_H
#define AISB_MOUNT_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy.h"

struct mount_opts {
	const struct aisb_policy *pol;
	int project_fd; /* O_PATH, from project_open() in init */
	uid_t uid;
	const char *home_in; /* the agent's home inside */
	const char *home_host; /* passwd home on the host (never shown) */
	const char *passwd, *group, *hosts, *hostname, *resolv;
	/*
	 * With credentials: the session CA (PEM) and its subject hash,
	 * added to the trust bundles in /etc (etcview.c); else NULL.
	 */
	const char *ca_pem, *ca_hash;
	/*
	 * The session's PATH: set again at the end of the /etc/profile the
	 * view shows (etcview.c), so that a login shell keeps it; or NULL.
	 */
	const char *path;
};

/* Is the top-level NAME of filesystem.root in the system set (shown
 * with filesystem.view = "system")?  proc, sys, dev and tmp are always
 * fresh, and not in it. */
bool mount_system_top(const char *name);

/* Build the view and enter it.  0 or -errno (logged; -SESSION_EPOLICY
 * for a policy problem). */
int mount_setup(const struct mount_opts *o);

#endif
