/*
 * userns.h: a user namespace set up the way every aisb process that
 * makes one needs it (init, the inner's second level, the doctor's
 * probes, the tests).
 *
 * The calling process has just entered a new user namespace.  Its own
 * /proc files are written in one order: setgroups "deny" (gid_map is
 * refused before it, user_namespaces(7)), then uid_map, then gid_map,
 * each mapping the one id to itself.  Each file takes one write(2):
 * a failed or short write is an error.  Then each file is read back and
 * must say exactly what was written.
 *
 * Library code: no exit, no printing, no signal dispositions.
 */
#ifndef AISB_USERNS_H
#define AISB_USERNS_H

#include <sys/types.h>

/*
 * Map uid and gid to themselves in the calling process's user namespace
 * (setgroups denied).  0, or -errno: a failed write's errno, -EIO for a
 * short write, -EBADMSG when a file reads back wrong.  On failure
 * *ret_what (when not NULL) names the step for the caller's message:
 * "setgroups deny", "uid_map", "gid_map", or one of them followed by
 * " (read back)".
 */
int userns_map_self(uid_t uid, gid_t gid, const char **ret_what);

/* The same on the files setgroups, uid_map and gid_map in the directory
 * dfd (userns_map_self passes /proc/self); tests use a directory of
 * their own. */
int userns_map_at(int dfd, uid_t uid, gid_t gid, const char **ret_what);

/*
 * /proc/sys/user/max_user_namespaces = n in the caller's user namespace
 * (user namespaces created below it, per user), read back.  0 or -errno
 * as above.
 */
int userns_limit_nested(unsigned n);

/* The same on the file max_user_namespaces in the directory dfd. */
int userns_limit_nested_at(int dfd, unsigned n);

#endif
