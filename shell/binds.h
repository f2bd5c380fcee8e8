/*
 * binds.h: the host directories the policy binds into the view
 * (docs/architecture.md stage 6).  Each mount point is made inside the
 * view (viewfs_mkpath); where its parent is a read-only bind of the
 * host that fails with EROFS, reported as a policy error (78).
 */
#ifndef AISB_BINDS_H
#define AISB_BINDS_H

#include "viewfs.h"

/*
 * Open (O_PATH) what binds_home and binds_extra bind, on the host's
 * view: home.path and every source of filesystem.readonly and
 * .readwrite (globs expanded).  mount_setup calls it before the view's
 * skeleton goes on at VIEWFS_AT, which covers the host's /tmp: a source
 * there is then still the host's.  Each is checked as it is opened
 * (below); binds_close releases them.  0 or -errno (logged).
 */
int binds_open(struct viewfs *c);
void binds_close(struct viewfs *c);

/*
 * The home at the agent's home inside (c->o->home_in): home.path (an
 * existing directory, not a symlink, owned by the agent, and not the
 * passwd home itself: -SESSION_EPOLICY otherwise) bound read-write, or
 * a tmpfs of filesystem.tmp_size for "tmpfs".  0 or -errno (logged).
 */
int binds_home(struct viewfs *c);

/*
 * filesystem.readonly, then filesystem.readwrite: "PATH" (bound at the
 * same path inside) or "SRC:DST", globs expanded on the host (no match:
 * nothing to do), as binds_open found them.  A missing plain SRC is
 * -SESSION_EPOLICY there.  0 or
 * -errno (logged).
 */
int binds_extra(struct viewfs *c);

#endif
