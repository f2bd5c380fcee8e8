/*
 * rundir.h: /run/aisb/USER, the runtime directory of an agent's session
 * records (root, group of the agent, 0750), kept only while the account
 * has sessions, and never inherited from another account.
 */
#ifndef AISB_RUNDIR_H
#define AISB_RUNDIR_H

#include <pwd.h>
#include <stddef.h>

#define RUNDIR_ROOT "/run/aisb"

/*
 * The directory of pw, locked (flock LOCK_EX) until the fd is closed.
 * An existing one is reused only when it is root's, of pw's group, mode
 * 0750, and holds nothing but session records of pw's uid; otherwise it
 * is removed and made again, and *replaced says so.  Records of sessions
 * whose process is gone are removed, and so are the directories of
 * accounts that no longer exist.  Returns the fd or -errno.
 */
int rundir_open(const struct passwd *pw, int *replaced);

/*
 * The session whose record is rec (a name in the directory) ends: the
 * record goes, and the directory too when no session of the account is
 * left.  Returns 1 when the directory was removed, 0 when sessions are
 * left, or -errno.
 */
int rundir_leave(const char *user, const char *rec);

#endif
