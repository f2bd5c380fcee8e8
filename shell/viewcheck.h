/*
 * viewcheck.h: the filesystem view read back, after mount_setup
 * (docs/architecture.md, stage 6).  What it checks, inside the view:
 *
 *   - / is read-only;
 *   - project.target is the directory init opened on the host (same
 *     device and inode), read-only when project.readonly says so;
 *   - the home inside is home.path (same device and inode), or a tmpfs
 *     for "tmpfs"; never the passwd home;
 *   - nothing the hide list names shows anything: each path (globs
 *     expanded in the view) is missing, an empty regular file, or a
 *     directory holding nothing but the way to a mount placed there
 *     on purpose later (the home, the project, filesystem.readonly and
 *     .readwrite, the generated /etc files).  A hide entry at or below
 *     such a mount is not checked: the mount covers it by design, as do
 *     the fresh /proc, /dev, /sys and /tmp their own paths.
 *
 * A check that fails logs one line ("view check: ...") and the session
 * exits 77: the view is not what mount_setup was asked to build.
 */
#ifndef AISB_VIEWCHECK_H
#define AISB_VIEWCHECK_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy.h"

struct viewcheck_id {
	bool set;
	dev_t dev;
	ino_t ino;
};

struct viewcheck {
	const struct aisb_policy *pol;
	const char *home_in;
	struct viewcheck_id project; /* the project as init opened it */
	struct viewcheck_id home; /* home.path; unset for "tmpfs" */
	struct viewcheck_id home_host; /* the passwd home; unset: none */
};

/*
 * Before mount_setup, on the host's tree: what the view must show.
 * project_fd is project_open's; home_host the passwd home (may be
 * relative or "/": then nothing of it is checked).  A home.path that
 * cannot be opened is left unset (mount_setup says why).  0 or -errno
 * (logged).
 */
int viewcheck_expect(struct viewcheck *v, const struct aisb_policy *p,
    int project_fd, const char *home_in, const char *home_host);

/* After it: check the view whose root is `root` ("/" once entered; a
 * test's directory otherwise).  0, or -EPERM (logged) when a check
 * fails, another -errno (logged) when one cannot be made. */
int viewcheck_run(const struct viewcheck *v, const char *root);

#endif
