/*
 * ns.h: the sandbox's namespaces and the outer <-> init sync protocol.
 *
 * The outer clones init into new user, mount, pid, net, ipc and uts
 * namespaces.  init writes its own uid/gid map (the caller's ids mapped
 * to themselves, setgroups denied), sets PDEATHSIG, says "ready" and
 * waits for "go": the outer sends it after placing init in the session
 * cgroup.  A lost peer at any step ends the session (fail closed).
 */
#ifndef AISB_NS_H
#define AISB_NS_H

#include <sys/types.h>

/*
 * Outer: clone init.  In the child, fn(arg, sync_fd) runs and its
 * return value is the exit status; it never returns here.  In the
 * parent, *ret_pid and *ret_sync (the outer's end) are set.  0 or
 * -errno (logged).
 */
int ns_spawn(int (*fn)(void *arg, int sync_fd), void *arg, pid_t *ret_pid,
    int *ret_sync);

/*
 * init, first thing: maps, PDEATHSIG=SIGKILL, "ready", then wait for
 * "go".  0, or -errno (logged; -EPIPE quietly when the outer is gone).
 */
int ns_init_begin(int sync_fd, uid_t uid, gid_t gid);

/* Outer: wait for init's "ready", then send "go".  0 or -errno. */
int ns_outer_go(int sync_fd);

/* One message: a tag byte, optionally with an fd (SCM_RIGHTS). */
int ns_send(int sync_fd, char tag, int fd);
/* Receive one; *ret_fd is -1 when none came.  -EPIPE on EOF. */
int ns_recv(int sync_fd, char *ret_tag, int *ret_fd);

#endif
