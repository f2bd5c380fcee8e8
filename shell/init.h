/*
 * init.h: PID 1 of the sandbox, and the signal mask of the session.
 *
 * The signal mask and dispositions, from start to exec (only the
 * functions named here change them; each call is checked):
 *
 *   outer  the caller's mask and dispositions, untouched until
 *          pty_outer_wait, which blocks what it forwards and reads it
 *          from a signalfd (when either cannot be had, it kills init:
 *          no session runs unwatched), sets SIGCHLD to the default, and
 *          restores both on return (pty.c);
 *   init   inherits the caller's (clone); init_prepare, before "tty" /
 *          "no tty" tells the outer it may forward signals, blocks
 *          SIGCHLD and the forwarded signals (PID 1 drops a signal it
 *          has no handler for; blocked, it waits) and sets SIGCHLD to
 *          the default (an ignored SIGCHLD would reap the inner behind
 *          init_reap's back); they stay blocked until init exits, read
 *          by init_reap from a signalfd;
 *   inner  inherits init's blocked set (fork); init_signals_reset, the
 *          first step of lockdown_inner, restores every disposition to
 *          the default and empties the mask, so the shell starts as
 *          after a login.
 */
#ifndef AISB_INIT_H
#define AISB_INIT_H

#include <sys/types.h>

/*
 * init, before forking the inner (and before telling the outer it may
 * forward signals): block the signals init_reap forwards, and SIGCHLD,
 * whose disposition becomes the default.  0 or -errno (logged).
 */
int init_prepare(void);

/*
 * Reap every child; forward SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2, SIGCONT to the inner (its process group when it leads one;
 * SIGWINCH reaches it through the pty); return
 * when `inner` has exited, with its status as a shell reports it
 * (exit code, or 128+N for signal N).  Remaining processes die with
 * init (pid namespace teardown).  Signals sent to PID 1 from inside the
 * sandbox are forwarded the same way (the inner could signal itself).
 * The signals stay blocked on return.
 */
int init_reap(pid_t inner);

/*
 * The inner, before exec (lockdown_inner calls it first): every signal
 * disposition back to the default and nothing blocked, as after login:
 * an ignored SIGINT inherited from whoever started aisb-shell (a
 * script's "cmd &") would survive exec and make Ctrl-C useless inside.
 * 0 or -errno (logged).
 */
int init_signals_reset(void);

#endif
