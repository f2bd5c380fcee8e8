/*
 * pty.c: terminals.  (Stub: no tty support until implemented.)
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "log.h"
#include "pty.h"

int
pty_open(int *ret_master, int *ret_slave)
{
	(void)ret_master, (void)ret_slave;
	return log_errno(-ENOSYS, "pty not implemented");
}

int
pty_attach(int slave)
{
	(void)slave;
	return -ENOSYS;
}

int
pty_outer_wait(pid_t init, int master, uint64_t timeout_s,
    int *ret_timed_out)
{
	int st;

	(void)master, (void)timeout_s;
	*ret_timed_out = 0;
	while (waitpid(init, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
