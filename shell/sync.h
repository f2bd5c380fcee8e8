/*
 * sync.h: the outer <-> init sync protocol, all of it.
 *
 * One SOCK_SEQPACKET socketpair (sync_pair), made by ns_spawn before the
 * clone; each message is one packet, a tag byte, with at most one fd
 * (SCM_RIGHTS).  In order:
 *
 *   init -> outer  "ready"   the maps are written and read back,
 *                            PDEATHSIG is armed
 *   outer -> init  "go"      init is in the session cgroup
 *   init -> outer  "tty"     with the master of the sandbox's pty, or
 *                  "no tty"  fds 0, 1, 2 pass through
 *
 * then both close it; init's exit status is the rest (waitpid).  The
 * handshake is also init's parent check: if the outer died before
 * PDEATHSIG was armed, "ready" fails (EPIPE) or "go" never comes (EOF).
 * Each message has one sender and one receiver function; a receiver
 * that gets anything but its message returns -EPROTO, the peer's end
 * -EPIPE.  Nothing here logs: the caller knows what a failure means.
 */
#ifndef AISB_SYNC_H
#define AISB_SYNC_H

/* The channel: sp[0] the outer's end, sp[1] init's (both close-on-exec).
 * 0 or -errno. */
int sync_pair(int sp[2]);

/* init: "ready"; the outer waits for it.  0 or -errno. */
int sync_send_ready(int sync_fd);
int sync_recv_ready(int sync_fd);

/* The outer: "go"; init waits for it.  0 or -errno. */
int sync_send_go(int sync_fd);
int sync_recv_go(int sync_fd);

/* init: "tty" with the pty master (the fd is duplicated into the
 * message; the caller still owns its copy), or "no tty".  0 or -errno. */
int sync_send_tty(int sync_fd, int master);
int sync_send_notty(int sync_fd);

/* The outer: "tty" (*ret_master is the master, close-on-exec) or "no
 * tty" (*ret_master is -1).  A "tty" without an fd, or "no tty" with
 * one, is -EPROTO.  0 or -errno. */
int sync_recv_tty(int sync_fd, int *ret_master);

#endif
