/*
 * pathsafe.h: the directories a session opens by name before it
 * resolves anything safely, and whether someone else could change what
 * they lead to.  The session (project.c) refuses on what these find and
 * the doctor (doctor_agent.c) fails on it, with the same text.
 *
 * aisb-shell opens a project root by its path, following symlinks, and
 * only then resolves the project beneath it (openat2 RESOLVE_BENEATH).
 * Whoever may rename or replace a directory above the root picks the
 * host directory that becomes the agent's read-write /project.  So each
 * directory above it must be root's and not writable by group or other,
 * unless sticky (docs/threat-model.md, "The directories above a project
 * root"); a symlink on the way must be root's, and the directories it
 * leads to pass the same test.  The root itself may be root's or the
 * agent's, writable by nobody else (sticky excepted).  Below the root the
 * agent may own everything.
 */
#ifndef AISB_PATHSAFE_H
#define AISB_PATHSAFE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

enum pathsafe_why {
	PATHSAFE_OK,
	PATHSAFE_LINK, /* a symlink above, not root's */
	PATHSAFE_OWNER, /* a directory above, not root's */
	PATHSAFE_MODE, /* a directory above, writable by group or other */
	PATHSAFE_ROOT_OWNER, /* the root: neither root's nor the agent's */
	PATHSAFE_ROOT_MODE, /* the root: writable by group or other */
};

struct pathsafe {
	enum pathsafe_why why;
	char at[PATH_MAX]; /* the directory (or symlink) that failed */
	uid_t uid;
	mode_t mode;
};

/*
 * The first directory strictly above path (absolute), as written and
 * with its symlinks resolved, that fails the rule above.  false (u->why
 * PATHSAFE_OK) when there is none.  A missing directory passes: opening
 * the path says so.
 */
bool pathsafe_above(const char *path, struct pathsafe *u);

/*
 * A project root: pathsafe_above(root), then the root itself as st
 * shows it (NULL: not there, nothing to check) for agent.  false when
 * all pass.
 */
bool pathsafe_root(
    const char *root, const struct stat *st, uid_t agent, struct pathsafe *u);

/*
 * The one line that says what failed: "'/srv/agents' above project root
 * /srv/agents/agent is owned by uid 1001, not root: ...".  role names
 * path ("project root", "project").  The doctor prints it, the session
 * refuses with it.
 */
void pathsafe_text(const struct pathsafe *u, const char *role, const char *path,
    char *buf, size_t n);

/*
 * Is path (absolute) root itself or below it?  Lexical, on purpose: the
 * session then resolves the remainder beneath the root (openat2
 * RESOLVE_BENEATH).  The remainder ("" for root itself), or NULL.
 */
const char *pathsafe_under(const char *root, const char *path);

/* The command or the step that fixes it, for the doctor. */
void pathsafe_fix(const struct pathsafe *u, char *buf, size_t n);

#endif
