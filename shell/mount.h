/*
 * mount.h: the sandbox's filesystem view (docs/architecture.md stage 6).
 *
 * Run by init, in its new mount and user namespaces, before pivot_root.
 * The new root is a tmpfs skeleton, built in this order:
 *   - each top-level entry of filesystem.root: a directory is a
 *     recursive bind, read-only, nosuid, nodev (open_tree, mount_setattr
 *     AT_RECURSIVE, move_mount); a symlink is recreated; a file is bound
 *     read-only; proc, dev, sys and tmp are made fresh (mount.c);
 *   - /proc (this pid namespace's, nosuid, nodev, noexec), /sys (fresh
 *     sysfs, read-only; skipped when the kernel refuses), a minimal /dev
 *     (null zero full random urandom tty bound from the host, a new
 *     devpts instance, ptmx, shm, fd links), /tmp (filesystem.tmp_size)
 *     (mount.c);
 *   - /etc: a read-only overlay whose top layer holds the generated
 *     passwd, group, hostname, hosts, resolv.conf and the covers of the
 *     hidden paths under /etc; without overlayfs, binds over the
 *     originals (etcview.c);
 *   - a top-level hide entry is an empty directory of the skeleton; a
 *     deeper hidden directory gets an empty tmpfs, a hidden file an
 *     empty file, both read-only in the end; globs are expanded against
 *     filesystem.root, missing paths ignored (hide.c);
 *   - the home (binds.c), then the project with its protect paths
 *     (projview.c), then the extra binds of filesystem.readonly and
 *     filesystem.readwrite (binds.c);
 * then every tmpfs of ours except /tmp and /dev/shm is made read-only,
 * pivot_root, and the old root is detached (mount.c).
 *
 * Paths inside the view are resolved with RESOLVE_IN_ROOT from the new
 * root (viewfs.c), so an absolute symlink in filesystem.root never
 * reaches a host path while the view is built.
 */
#ifndef AISB_MOUNT_H
#define AISB_MOUNT_H

#include <sys/types.h>

#include "policy.h"

struct mount_opts {
	const struct aisb_policy *pol;
	int project_fd; /* O_PATH, from project_open() in init */
	uid_t uid;
	const char *home_in; /* the agent's home inside */
	const char *home_host; /* passwd home on the host (never shown) */
	const char *passwd, *group, *hosts, *hostname, *resolv;
};

/* Build the view and enter it.  0 or -errno (logged; -SESSION_EPOLICY
 * for a policy problem). */
int mount_setup(const struct mount_opts *o);

#endif
