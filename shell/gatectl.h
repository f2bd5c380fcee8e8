/*
 * gatectl.h: starting aisb-gate and handing it its sockets.
 */
#ifndef AISB_GATECTL_H
#define AISB_GATECTL_H

#include <sys/types.h>

#include "args.h"
#include "policy.h"

/*
 * Outer, before the sandbox netns exists: socketpair + fork + exec
 * LIBEXEC/aisb/aisb-gate (found next to /proc/self/exe as
 * ../libexec/aisb/aisb-gate) with fd 3 = its end.  *ret_fd is the
 * other end, for init to inherit.  0 or -errno (logged).
 */
int	gatectl_spawn(const struct aisb_args *a, const struct aisb_policy *p,
	    const char *session_id, pid_t *ret_pid, int *ret_fd);

/*
 * init, inside the sandbox netns: create the listening sockets (proxy
 * TCP 127.0.0.1:net.proxy_port, DNS UDP and TCP 127.0.0.1:53, capture
 * TCP 127.0.0.1:AISB_CAPTURE_PORT), send them over fd, wait for the
 * gate's "ready".  0 or -errno (logged).
 */
int	gatectl_send_sockets(int fd, const struct aisb_policy *p);

#endif
