/*
 * hide.h: the covers of filesystem.hide in the view (mount.c calls
 * them; etcview.c walks the same list for its whiteouts).
 *
 * A plain top-level entry is never cloned at all (populate_root asks
 * hide_top).  Every deeper entry, globs expanded against
 * filesystem.root and missing paths ignored, is covered: an empty
 * tmpfs over a directory, the skeleton's empty mode-0 file over
 * anything else (so a read fails with EACCES rather than returning
 * nothing); both end read-only.
 */
#ifndef AISB_HIDE_H
#define AISB_HIDE_H

#include <stdbool.h>

#include "policy.h"
#include "viewfs.h"

/* Is "/name" an entry of the hide list (a plain top-level path)? */
bool hide_top(const struct aisb_policy *p, const char *name);

/* Cover one view path: an empty tmpfs over a directory, an empty file
 * over anything else.  A path that does not resolve is ignored. */
int hide_path(struct viewfs *c, const char *vpath);

/* Call fn(c, path, arg) for each path the hide list names (globs
 * expanded against filesystem.root), except plain top-level entries;
 * the first error stops the walk and is returned. */
int hide_walk(struct viewfs *c,
    int (*fn)(struct viewfs *c, const char *vpath, void *arg), void *arg);

/* hide_path for each path of hide_walk. */
int hide_all(struct viewfs *c);

/* Once filesystem.readonly and .readwrite are bound: hide_path for each
 * path of hide_walk that lies inside one of those binds, so that the
 * hide list holds in what they add too. */
int hide_in_binds(struct viewfs *c);

#endif
