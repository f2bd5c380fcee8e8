/*
 * etcview.h: /etc in the view (docs/architecture.md stage 6).
 *
 * /etc is a read-only overlay: a top layer of our own over the root's
 * /etc.  The top layer holds the generated passwd, group, hostname,
 * hosts and resolv.conf, and a cover for each hidden path under /etc
 * (a mode-0 empty file over a file, an opaque empty directory over a
 * directory, a whiteout for a name that does not exist).  Unlike a bind
 * over a host file, this cannot come undone when the host replaces a
 * file by rename during the session (useradd and /etc/passwd): the
 * overlay looks names up in its layers.  The top layer is a tmpfs of
 * its own, detached again once the overlay holds it.  Mounts below the
 * root's /etc are not carried (overlayfs).
 *
 * Without overlayfs in a user namespace, the root's /etc is bound
 * read-only, the hide covers go over it as anywhere else, and the
 * generated files are bound over the originals (etcview_files).
 */
#ifndef AISB_ETCVIEW_H
#define AISB_ETCVIEW_H

#include "viewfs.h"

/*
 * When populate_root left /etc to us (c->etc_deferred): mount the
 * overlay at /etc of the skeleton (c->etc_overlay), or bind the root's
 * /etc read-only when the kernel refuses it.  Runs once the skeleton
 * has /proc, /dev and /tmp, before the hide covers.  0 or -errno
 * (logged).
 */
int etcview_mount(struct viewfs *c);

/*
 * Without the overlay: bind the generated files read-only over /etc
 * (passwd and group must find a place: -SESSION_EPOLICY otherwise).
 * Runs after the hide covers, so the files cover them.  Nothing to do
 * with the overlay.  0 or -errno (logged).
 */
int etcview_files(struct viewfs *c);

#endif
