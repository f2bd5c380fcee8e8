/*
 * gatectl.h: starting aisb-gate and handing it its sockets.
 */
#ifndef AISB_GATECTL_H
#define AISB_GATECTL_H

#include <sys/types.h>

#include "args.h"
#include "cred.h"
#include "policy.h"

/*
 * The control socket (SOCK_SEQPACKET, fd 3 in the gate), one message a
 * line, in the order they are sent:
 *   outer -> gate  "cred" I N PLEN VLEN PLACEHOLDER VALUE, once per
 *                  credential (I = 0..N-1, one byte each; the lengths
 *                  two bytes, big-endian), right after the spawn and
 *                  before init is cloned;
 *   gate -> init   "ca" HASH PEM: the session CA's certificate (HASH:
 *                  its subject's 8 hex digits, as OpenSSL names trust
 *                  directory links), when the policy has credentials;
 *   init -> gate   "sockets" with the listening sockets (SCM_RIGHTS);
 *   gate -> init   "ready", or "error".
 */
#define GATECTL_CA_MAX 65536 /* bytes of the "ca" message */

/*
 * Outer, before the sandbox netns exists: socketpair + fork + exec
 * LIBEXEC/aisb/aisb-gate (found next to /proc/self/exe as
 * ../libexec/aisb/aisb-gate) with fd 3 = its end, an empty environment
 * and argv "--user NAME [--config FILE] --session ID --hash HASH".
 * *ret_fd is the other end (SOCK_CLOEXEC), for init to inherit; the
 * outer closes its copy after clone, init may close its copy once the
 * gate is ready.  The gate runs in its own session (setsid) until
 * SIGTERM (gatectl_stop: clean exit 0) or until aisb-shell dies
 * (PDEATHSIG SIGKILL).  *ret_rec is the outer's end of a second
 * socketpair, the gate's fd 4: its egress record (shell/sessrec.c), for
 * the outer alone (init closes its copy).  0 or -errno (logged).
 */
int gatectl_spawn(const struct aisb_args *a, const struct aisb_policy *p,
    const char *session_id, pid_t *ret_pid, int *ret_fd, int *ret_rec);

/*
 * The same with an explicit executable and argv (tests, gatedrv);
 * ret_rec NULL: no record socket (the gate keeps no record).
 */
int gatectl_spawn_rec(const char *path, const char *const argv[],
    pid_t *ret_pid, int *ret_fd, int *ret_rec);
int gatectl_spawn_path(
    const char *path, const char *const argv[], pid_t *ret_pid, int *ret_fd);

/*
 * Outer, right after gatectl_spawn: the credentials' placeholders and
 * values for the gate, one message each; the message buffers are wiped.
 * The caller then wipes cs's values (cred_wipe) before init is cloned.
 * 0 or -errno (logged).
 */
int gatectl_send_creds(int fd, const struct cred_set *cs);

/*
 * init, before the /etc view: the gate's "ca" message.  *ret_pem (malloc,
 * NUL-terminated) is the session CA in PEM, hash its subject hash (8 hex
 * digits and a NUL).  Waits at most 10 s.  0 or -errno (logged).
 */
int gatectl_recv_ca(int fd, char **ret_pem, char hash[9]);

/*
 * init, inside the sandbox netns: create the listening sockets (proxy
 * TCP 127.0.0.1:net.proxy_port, DNS UDP and TCP 127.0.0.1:53, capture
 * TCP 127.0.0.1:AISB_CAPTURE_PORT), send them over fd, wait (at most
 * 10 s) for the gate's "ready".  0 or -errno (logged).
 */
int gatectl_send_sockets(int fd, const struct aisb_policy *p);

/*
 * gatectl_send_sockets in two halves, so that init's own setup (the
 * mounts) runs while the gate starts: create and send the sockets
 * (0 or -errno, logged), then later wait for "ready" (at most 10 s;
 * 0 or -errno, logged).  Nothing of the session may run between them.
 */
int gatectl_hand_sockets(int fd, const struct aisb_policy *p);
int gatectl_wait_ready(int fd);

/*
 * Has the gate exited?  Does not reap it (waitid WNOWAIT).  0: running;
 * -ESRCH: it died, and the death is logged ("the sandbox has no
 * egress"); other -errno on error.
 */
int gatectl_check(pid_t pid);

/*
 * At the end of the session: SIGTERM the gate and reap it.  If it had
 * already died, that is logged (gatectl_check) and -ESRCH returned;
 * an unclean end is logged as a warning.  0 otherwise.  drain (may be
 * NULL) runs between the SIGTERM and the reaping, for at most its ms:
 * the gate sends the rest of its record before it exits.
 */
int gatectl_stop(pid_t pid, void (*drain)(void *ctx, int ms), void *ctx);

#endif
