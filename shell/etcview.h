/*
 * etcview.h: /etc in the view (docs/architecture.md stage 6).
 *
 * /etc is a read-only overlay of three layers, all of them lower ones:
 * t over m over the root's /etc.  t holds the generated passwd, group,
 * hostname, hosts and resolv.conf, and a cover for each hidden path
 * under /etc: a mode-0 empty file over a file, an empty directory over a
 * directory (with a whiteout for it in m, which keeps the root's
 * directory of that name out of the merge), a whiteout for a name that
 * does not exist.  Unlike a bind over a host file, this cannot come
 * undone when the host replaces a file by rename during the session
 * (useradd and /etc/passwd): the overlay looks names up in its layers.
 * No layer needs an xattr (an opaque directory would, and tmpfs takes
 * user xattrs only from Linux 6.6), so this works wherever overlayfs
 * mounts in a user namespace (Linux 5.11).  t and m are directories of a
 * tmpfs of their own, detached again once the overlay holds them.
 * Mounts below the root's /etc are not carried (overlayfs).  Without
 * overlayfs the session does not start: no weaker /etc.
 */
#ifndef AISB_ETCVIEW_H
#define AISB_ETCVIEW_H

#include "viewfs.h"

/*
 * When populate_root left /etc to us (c->etc_deferred): mount the
 * overlay at /etc of the skeleton (c->etc_overlay); one line naming the
 * kernel feature when the kernel refuses it.  Runs once the skeleton
 * has /proc, /dev and /tmp, before the hide covers.  0 or -errno
 * (logged).
 */
int etcview_mount(struct viewfs *c);

/*
 * When /etc was not left to etcview_mount (a filesystem.root whose
 * /etc is not a directory, or /etc hidden whole): bind the generated
 * files read-only over /etc (passwd and group must find a place:
 * -SESSION_EPOLICY otherwise).  Runs after the hide covers, so the
 * files cover them.  Nothing to do with the overlay.  0 or -errno
 * (logged).
 */
int etcview_files(struct viewfs *c);

#endif
