/*
 * init.h: PID 1 of the sandbox.
 */
#ifndef AISB_INIT_H
#define AISB_INIT_H

#include <sys/types.h>

/*
 * Reap every child; forward SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2 to the inner (its process group when it leads one); return
 * when `inner` has exited, with its status as a shell reports it
 * (exit code, or 128+N for signal N).  Remaining processes die with
 * init (pid namespace teardown).
 */
int	init_reap(pid_t inner);

#endif
