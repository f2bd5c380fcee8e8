/*
 * ns.h: the sandbox's namespaces.
 *
 * The outer clones init into new user, mount, pid, net, ipc and uts
 * namespaces.  init maps its own uid and gid to themselves (setgroups
 * denied, read back: lib/userns.c), sets PDEATHSIG, says "ready" and
 * waits for "go" (sync.h): the outer sends it after placing init in the
 * session cgroup.  A lost peer at any step ends the session (fail
 * closed).
 */
#ifndef AISB_NS_H
#define AISB_NS_H

#include <sys/types.h>

/*
 * Outer: clone init.  In the child, fn(arg, sync_fd) runs and its
 * return value is the exit status; it never returns here.  In the
 * parent, *ret_pid and *ret_sync (the outer's end of sync_pair) are
 * set.  0 or -errno (logged).
 */
int ns_spawn(int (*fn)(void *arg, int sync_fd), void *arg, pid_t *ret_pid,
    int *ret_sync);

/*
 * init, first thing after setsid: the maps (read back), PDEATHSIG=SIGKILL,
 * "ready", then wait for "go".  0, or -errno (logged; -EPIPE quietly
 * when the outer is gone).
 */
int ns_init_begin(int sync_fd, uid_t uid, gid_t gid);

#endif
