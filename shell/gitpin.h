/*
 * gitpin.h: hold a repository's git metadata read-only in the view
 * (docs/architecture.md stage 6, the project; the list of paths and why
 * each is held: docs/threat-model.md, "The project's git metadata").
 *
 * A human who runs git in the project on the host afterwards must run
 * nothing the agent wrote, while the agent still commits, branches,
 * fetches and rebases inside.  So what git reads as configuration, as a
 * pointer to another git directory, or as a program is held read-only
 * (pin.h), for the repository, its linked worktrees and its submodules,
 * and whatever .git is (a directory, a gitfile, missing); refs,
 * objects, the index, logs and HEAD stay writable.  A missing path git
 * would read is created empty and held (a missing commondir of a main
 * git directory is created as ".", git's own meaning of "no other"), so
 * the agent cannot create it either.  What cannot be held as it is
 * refuses the session (78, one line naming the path and the reason).
 */
#ifndef AISB_GITPIN_H
#define AISB_GITPIN_H

#include <stddef.h>

#include "pin.h"

/* Most git directories (repository, worktrees, submodules) one
 * session holds, and how deep submodules nest. */
#define GITPIN_MAX_DIRS 512
#define GITPIN_MAX_DEPTH 16

/*
 * Hold the repository of the worktree directory wt (relative to the
 * project, "" for the project itself): wt/.git and everything it leads
 * to.  0 or -errno (logged; -SESSION_EPOLICY for what the project's
 * content decides).
 */
int gitpin_repo(struct pin *c, const char *wt);

/*
 * The git directory a gitfile names: dotgit (relative to the project)
 * is a regular file "gitdir: PATH"; PATH resolved as git resolves it,
 * relative to the project, into out.  1 when it lies inside the
 * project, 0 when elsewhere, -errno (logged) when dotgit is not a
 * gitfile or the path cannot be decided.
 */
int gitpin_gitfile(struct pin *c, const char *dotgit, char *out, size_t n);

#endif
