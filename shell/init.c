/*
 * init.c: PID 1 of the sandbox.  (Minimal until implemented.)
 */
#include <errno.h>
#include <sys/wait.h>

#include "init.h"

int
init_reap(pid_t inner)
{
	int st;
	pid_t p;

	for (;;) {
		p = wait(&st);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			return 127;
		if (p == inner)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
			    128 + WTERMSIG(st);
	}
}
