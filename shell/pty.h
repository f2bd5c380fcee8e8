/*
 * pty.h: the sandbox's fresh terminal and the outer relay.
 */
#ifndef AISB_PTY_H
#define AISB_PTY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* init, after the new devpts is mounted: a pty pair from /dev/ptmx
 * inside.  The window size is copied from the caller's tty (fd 0). */
int pty_open(int *ret_master, int *ret_slave);

/* Inner: setsid, slave becomes the controlling tty and fds 0, 1, 2. */
int pty_attach(int slave);

struct redact;
struct sessrec;

/* How the outer waits for the session. */
struct pty_wait {
	uint64_t timeout_s; /* limits.timeout; 0: none */
	bool filter; /* terminal.filter: filter escape sequences */
	/* the session's record (sessrec.h): the gate's socket, notices for
	 * the caller, an administrator's --end; NULL: none */
	struct sessrec *rec;
	/*
	 * With env.secret values, what the outer relays is redacted
	 * (redact.h): the master's output through rd_tty, before the
	 * filter; without a tty, the inner's stdout and stderr come through
	 * pipes (out, err: their read ends, used only with rd_out, rd_err)
	 * and go to the caller's fds 1 and 2.  NULL: nothing to redact.
	 */
	struct redact *rd_tty, *rd_out, *rd_err;
	int out, err;
};

/*
 * Outer: wait for init (pid) while relaying the caller's terminal to
 * master (master < 0: no tty, just wait, or relay the redacted
 * pipes), propagating SIGWINCH as
 * TIOCSWINSZ, forwarding SIGINT/SIGQUIT/SIGUSR1/SIGUSR2 to init, and
 * killing init after w->timeout_s seconds (0 = never; *ret_timed_out
 * set) or when root sends SESSREC_SIG_END (--end).  SIGHUP, SIGTERM and
 * the caller's terminal hanging up are forwarded, and init is killed
 * 0.5 s later if still there (status 128+N).  None of this waits for
 * the caller to read: with a caller that stops reading, the sandbox's
 * output waits in its pty.
 *
 * With a terminal: the caller's terminal is put in raw mode and
 * restored on return; what the sandbox writes goes through ttyfilter
 * when w->filter; after init is gone, the master's last output is
 * drained for as long as the caller takes it (briefly after a kill),
 * what the session left on in the terminal is switched off, answers to
 * its queries are waited for, and the terminal's unread input is
 * discarded (it must not reach the caller's shell).
 *
 * Notices from w->rec go to the caller's stderr without breaking a line
 * (notice.h): into the relayed stream, after the filtered output that
 * came before them and through the same bounded writer, when stderr is
 * the relayed terminal; otherwise straight to fd 2, never blocking.
 *
 * Returns the status as a shell reports it (exit code or 128+N).
 */
int pty_outer_wait(
    pid_t init, int master, const struct pty_wait *w, int *ret_timed_out);

#endif
