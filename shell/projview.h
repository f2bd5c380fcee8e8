/*
 * projview.h: the project in the view (docs/architecture.md stage 6).
 *
 * The project is bound at project.target from the fd init opened
 * (project_open, in init's own mount namespace: the bind source is
 * that fd, never a path), read-write or read-only.  Read-write, each
 * project.protect entry is then held read-only, and so are its
 * parents' names: a mount point cannot be renamed or removed.
 */
#ifndef AISB_PROJVIEW_H
#define AISB_PROJVIEW_H

#include <stdbool.h>

#include "viewfs.h"

/* Bind the project at project.target and protect its project.protect
 * paths.  0 or -errno (logged; -SESSION_EPOLICY for a policy problem). */
int projview_mount(struct viewfs *c);

/* Check a project.protect entry: relative, no "." or ".." components. */
bool projview_protect_valid(const char *rel);

#endif
