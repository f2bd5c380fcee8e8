/*
 * init.h: PID 1 of the sandbox.
 */
#ifndef AISB_INIT_H
#define AISB_INIT_H

#include <sys/types.h>

/*
 * init, before forking the inner (and before telling the outer it may
 * forward signals): block the signals init_reap forwards.  PID 1 drops
 * a signal it has no handler for, so one sent before init_reap starts
 * would be lost; blocked, it waits.  The inner inherits the mask and
 * lockdown_inner clears it.
 */
void init_prepare(void);

/*
 * Reap every child; forward SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2, SIGCONT to the inner (its process group when it leads one;
 * SIGWINCH reaches it through the pty); return
 * when `inner` has exited, with its status as a shell reports it
 * (exit code, or 128+N for signal N).  Remaining processes die with
 * init (pid namespace teardown).  Signals sent to PID 1 from inside the
 * sandbox are forwarded the same way (the inner could signal itself).
 */
int init_reap(pid_t inner);

#endif
