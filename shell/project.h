/*
 * project.h: which host directory becomes /project (aisb-shell(8)).
 *
 * AISB_PROJECT (from the caller's environment) when set; else the
 * caller's working directory when it lies under one of project.roots;
 * else project.path.  A path under a root is opened from the root's fd
 * with RESOLVE_BENEATH, so neither a symlink nor ".." leads out of it.
 */
#ifndef AISB_PROJECT_H
#define AISB_PROJECT_H

#include "policy.h"

struct project_sel {
	char *path; /* as requested, for messages and the log */
	char *root; /* the root it lies under, or NULL */
	char *rel; /* relative to root ("." for the root) */
	const char *how; /* "AISB_PROJECT", "cwd" or "project.path" */
};

/*
 * Outer: choose the project from the caller's environment (getenv) and
 * working directory, and check that it opens.  0, or -SESSION_EPOLICY
 * (logged: missing, escaping, not a directory), or -errno.
 */
int project_select(const struct aisb_policy *p, struct project_sel *ret);

/*
 * Open the selection as an O_PATH directory fd.  init calls it again in
 * its own mount namespace: the bind source is this fd, never a path, so
 * a symlink swapped in after the check cannot redirect the bind.
 */
int project_open(const struct project_sel *s, int *ret_fd);

void project_sel_free(struct project_sel *s);

#endif
