/*
 * gatectl.c: starting aisb-gate.  (Stub until the gate issue lands.)
 */
#include <errno.h>

#include "gatectl.h"
#include "log.h"

int
gatectl_spawn(const struct aisb_args *a, const struct aisb_policy *p,
    const char *session_id, pid_t *ret_pid, int *ret_fd)
{
	(void)a, (void)p, (void)session_id, (void)ret_pid, (void)ret_fd;
	log_err("the egress gate is not built yet; set network.mode = "
	    "\"none\"");
	return -ENOSYS;
}

int
gatectl_send_sockets(int fd, const struct aisb_policy *p)
{
	(void)fd, (void)p;
	return -ENOSYS;
}
