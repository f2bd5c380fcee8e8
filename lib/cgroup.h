/*
 * cgroup.h: cgroup delegation (root, from pam_aisb) and the per-session
 * cgroup (agent, from aisb-shell).  cgroup v2 where the host runs it,
 * else the v1 memory, pids and cpu hierarchies.  Library code: no
 * exit, no printing.
 */
#ifndef AISB_CGROUP_H
#define AISB_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Root (pam_aisb session open): create the delegated cgroup of one login
 * session for user (uid, gid), owned by the user, with memory, pids and
 * cpu available, and move pid into it.  Writes an opaque key for
 * cgroup_reap into key (keylen >= 128).  0 or -errno.
 */
int	cgroup_delegate(const char *user, uid_t uid, gid_t gid, pid_t pid,
	    char *key, size_t keylen);

/*
 * Root (pam_aisb session close): kill every process in the delegated
 * cgroup named by key and its descendants, then remove them.  0 or
 * -errno.
 */
int	cgroup_reap(const char *key);

#endif
