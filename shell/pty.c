/*
 * pty.c: the sandbox's own terminal, and the outer's relay.
 *
 * Why a fresh pty (docs/threat-model.md, TIOCSTI): a sandbox that
 * shares the caller's terminal can push bytes into it with TIOCSTI
 * (or TIOCLINUX on a console), and they run in the caller's shell once
 * the session ends: `su - agent` from an admin's terminal is the
 * classic case.
 * Here the inner's controlling tty is a pty from the sandbox's own
 * devpts; the caller's terminal is only ever written by the outer,
 * which copies bytes.  setsid() alone, bubblewrap's answer, would
 * break job control: with a real pty, Ctrl-Z, fg and Ctrl-C work
 * inside as on any terminal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "notice.h"
#include "pty.h"
#include "session.h"
#include "sessrec.h"
#include "util.h"

int
pty_open(int *ret_master, int *ret_slave)
{
	_cleanup_close_ int master = -1, slave = -1;
	struct termios t;
	struct winsize ws;
	int unlock = 0;

	master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return log_errno(-errno, "open /dev/ptmx in the sandbox: %m");
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
		return log_errno(-errno, "unlock the sandbox pty: %m");
	/* The slave from the master itself: no path lookup in /dev/pts,
	 * nothing to race (Linux 4.13). */
	slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return log_errno(-errno, "open the sandbox pty's peer: %m");

	/* The caller's modes and size, so the inside feels the same (erase
	 * character, iutf8, columns) as ssh does with the client's. */
	if (tcgetattr(STDIN_FILENO, &t) == 0 &&
	    tcsetattr(slave, TCSANOW, &t) < 0)
		log_debug("copy terminal modes, ignoring: %m");
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ioctl(master, TIOCSWINSZ, &ws) < 0)
		log_debug("copy window size, ignoring: %m");

	*ret_master = TAKE_FD(master);
	*ret_slave = TAKE_FD(slave);
	return 0;
}

int
pty_attach(int slave)
{
	int fd;

	/* A new session, whose controlling terminal is the slave: the
	 * caller's terminal is no longer reachable as /dev/tty. */
	if (setsid() < 0)
		return log_errno(-errno, "setsid: %m");
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return log_errno(-errno,
		    "make the pty the controlling "
		    "terminal: %m");
	for (fd = 0; fd <= 2; fd++)
		if (dup2(slave, fd) < 0)
			return log_errno(-errno, "dup2 pty to %d: %m", fd);
	if (slave > 2)
		close(slave);
	return 0;
}

/* ---- outer relay ---- */

struct buf {
	char d[16384];
	size_t off, len;
};

/*
 * Write all of p to fd, waiting when it would block (a caller may have
 * left its terminal non-blocking).  -errno when fd is gone.
 */
static int
write_all(int fd, const char *p, size_t n)
{
	struct pollfd pf = {.fd = fd, .events = POLLOUT};
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			(void)poll(&pf, 1, 1000);
			continue;
		}
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
sync_winsize(int master)
{
	struct winsize ws;

	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 ||
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(master, TIOCSWINSZ, &ws);
}

struct relay {
	int master;
	struct sessrec *rec; /* notices for the caller, or NULL */
	bool notice_relayed; /* notices go in the relayed stream */
	struct notice_track track; /* where its lines end (notice.h) */
	ssize_t notice_at; /* in out: where notices may go, or -1 */
	bool in_eof; /* caller's stdin done */
	bool in_tty; /* caller's stdin is a terminal */
	bool master_eof; /* every slave fd closed */
	bool out_broken; /* caller's stdout gone: discard */
	char last_in; /* last byte sent to the master */
	struct buf in; /* stdin -> master */
	struct buf out; /* master -> stdout */
	int64_t kill_at; /* after a hangup: when init gets SIGKILL */
};

/*
 * A hangup (the caller's terminal went away, or SIGHUP: an ssh
 * disconnect) ends the session.  The inside gets SIGHUP to finish
 * cleanly, then, after a short grace, init is killed and the pid
 * namespace with it: a process that ignores SIGHUP must not outlive the
 * login: nothing of it is left within one second.
 */
#define HANGUP_GRACE_MS 500

static void
hangup(struct relay *r, pid_t init)
{
	(void)kill(init, SIGHUP);
	if (r->kill_at == 0)
		r->kill_at = util_now_ms() + HANGUP_GRACE_MS;
}

/*
 * Piped stdin (the terminal is only on stdout) ends with VEOF, as if
 * typed: a second one when the last line had no newline, since the
 * first only flushes the partial line to the reader.
 */
static void
queue_eof(struct relay *r)
{
	struct termios t;
	char eof = 4; /* ^D */

	if (tcgetattr(r->master, &t) == 0 && t.c_cc[VEOF] != 0)
		eof = (char)t.c_cc[VEOF];
	if (r->in.len + 2 > sizeof(r->in.d))
		return;
	if (r->last_in != '\n' && r->last_in != 0)
		r->in.d[r->in.off + r->in.len++] = eof;
	r->in.d[r->in.off + r->in.len++] = eof;
}

static void
relay_stdin(struct relay *r, pid_t init)
{
	size_t room = sizeof(r->in.d) - r->in.off - r->in.len;
	ssize_t n;

	n = read(STDIN_FILENO, r->in.d + r->in.off + r->in.len, room);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		r->in.len += (size_t)n;
		r->last_in = r->in.d[r->in.off + r->in.len - 1];
		return;
	}
	r->in_eof = true;
	if (r->in_tty)
		/* EOF or EIO in raw mode: the caller's terminal hung up. */
		hangup(r, init);
	else
		queue_eof(r);
}

static void
relay_to_master(struct relay *r)
{
	ssize_t n;

	n = write(r->master, r->in.d + r->in.off, r->in.len);
	if (n < 0) {
		if (errno != EINTR && errno != EAGAIN)
			r->in.len = 0, r->in_eof = true; /* slave gone */
		return;
	}
	r->in.off += (size_t)n;
	r->in.len -= (size_t)n;
	if (r->in.len == 0)
		r->in.off = 0;
}

/* Read what the master has; false at EOF/EIO (no slave left). */
static bool
relay_from_master(struct relay *r)
{
	ssize_t n;

	n = read(
	    r->master, r->out.d + r->out.len, sizeof(r->out.d) - r->out.len);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		r->master_eof = true;
		return false;
	}
	if (r->notice_relayed && r->notice_at < 0) {
		ssize_t at = notice_track_feed(
		    &r->track, r->out.d + r->out.len, (size_t)n);

		if (at >= 0)
			r->notice_at = (ssize_t)r->out.len + at;
	} else if (r->notice_relayed)
		(void)notice_track_feed(
		    &r->track, r->out.d + r->out.len, (size_t)n);
	r->out.len += (size_t)n;
	return true;
}

/*
 * The notices waiting, written to the caller's terminal as lines of
 * their own: the relayed stream is at a line boundary (raw mode, so
 * "\r\n" ends them).
 */
static void
put_notices(struct relay *r)
{
	const char *q;
	size_t n;

	while ((q = sessrec_notice(r->rec, &n)) != NULL) {
		bool ok = !r->out_broken &&
		    write_all(STDOUT_FILENO, "\r", 1) == 0 &&
		    write_all(STDOUT_FILENO, q, n) == 0 &&
		    write_all(STDOUT_FILENO, "\r\n", 2) == 0;

		sessrec_notice_done(r->rec, ok);
	}
}

/* Without the relay: to fd 2, never blocking (notice.h). */
static void
put_notices_stderr(struct relay *r)
{
	const char *q;
	size_t n;
	int w;

	while ((q = sessrec_notice(r->rec, &n)) != NULL) {
		w = notice_stderr(q, n);
		if (w == 0)
			return; /* no room now: the next tick */
		sessrec_notice_done(r->rec, w == 1);
	}
}

static void
flush_out(struct relay *r)
{
	size_t at = r->notice_at >= 0 ? (size_t)r->notice_at : r->out.len;

	if (r->out.len > 0 && !r->out_broken &&
	    write_all(STDOUT_FILENO, r->out.d, at) < 0)
		r->out_broken = true;
	if (r->notice_at >= 0 && sessrec_notice(r->rec, &(size_t){0})) {
		put_notices(r);
		if (at < r->out.len && !r->out_broken &&
		    write_all(STDOUT_FILENO, r->out.d + at, r->out.len - at) <
		        0)
			r->out_broken = true;
	} else if (at < r->out.len && !r->out_broken &&
	    write_all(STDOUT_FILENO, r->out.d + at, r->out.len - at) < 0)
		r->out_broken = true;
	r->out.len = 0;
	r->notice_at = notice_track_ok(&r->track) ? 0 : -1;
}

/* New notices: out now if the stream is at a line boundary. */
static void
notices(struct relay *r)
{
	if (r->rec == NULL || sessrec_notice(r->rec, &(size_t){0}) == NULL)
		return;
	if (!r->notice_relayed)
		put_notices_stderr(r);
	else if (r->out.len == 0 && notice_track_ok(&r->track))
		put_notices(r);
}

/*
 * An administrator's aisb-shell --end: only a kill(2) by root counts
 * (rt_sigqueueinfo lets any sender write its own uid into the siginfo;
 * the kernel fills it for SI_USER and SI_TKILL).  The whole sandbox
 * goes with init, as on limits.timeout.
 */
static bool
end_request(struct relay *r, const struct signalfd_siginfo *si, pid_t init)
{
	if ((si->ssi_code != SI_USER && si->ssi_code != SI_TKILL) ||
	    si->ssi_uid != 0)
		return false;
	log_record(LOG_INFO,
	    "session ended by an administrator (uid 0, pid %u)",
	    (unsigned)si->ssi_pid);
	sessrec_ended_by(r->rec, 0, (pid_t)si->ssi_pid);
	kill(init, SIGKILL);
	return true;
}

/* After init is gone: what the inside wrote last, up to the hangup. */
static void
drain_master(struct relay *r)
{
	struct pollfd pf = {.fd = r->master, .events = POLLIN};
	int64_t until = util_now_ms() + 500;

	while (!r->master_eof && util_now_ms() < until) {
		if (poll(&pf, 1, 50) == 0)
			break;
		relay_from_master(r);
		flush_out(r);
	}
	flush_out(r);
}

int
pty_outer_wait(
    pid_t init, int master, const struct pty_wait *w, int *ret_timed_out)
{
	static const int sigs[] = {
	    SIGCHLD,
	    SIGWINCH,
	    SIGTERM,
	    SIGHUP,
	    SIGINT,
	    SIGQUIT,
	    SIGUSR1,
	    SIGUSR2,
	    SIGPIPE,
	};
	struct relay r = {.master = master, .rec = w->rec, .notice_at = -1};
	uint64_t timeout_s = w->timeout_s;
	struct signalfd_siginfo si;
	struct termios saved, raw;
	struct pollfd pf[6];
	struct sigaction dfl = {.sa_handler = SIG_DFL}, old_chld;
	sigset_t set, old;
	_cleanup_close_ int sfd = -1;
	bool raw_set = false, done = false, hung_up = false;
	bool mask_set = true, chld_set = true;
	int64_t deadline = 0, left;
	int st = 0, n, i, timeout;
	nfds_t np;
	pid_t p;

	*ret_timed_out = 0;
	if (timeout_s > 0)
		deadline = util_now_ms() +
		    (int64_t)(timeout_s > INT32_MAX ? INT32_MAX : timeout_s) *
		        1000;

	/* A SIGCHLD set to SIG_IGN would auto-reap init and lose its
	 * status. */
	if (sigaction(SIGCHLD, &dfl, &old_chld) < 0) {
		log_warn("SIGCHLD to the default: %m");
		chld_set = false;
	}
	sigemptyset(&set);
	for (i = 0; i < (int)ELEMENTSOF(sigs); i++)
		sigaddset(&set, sigs[i]);
	sigaddset(&set, SESSREC_SIG_END);
	/* Without the mask a forwarded signal would kill the outer and
	 * leave the sandbox running unwatched; without the signalfd nothing
	 * would pass signals on: either way the sandbox is killed. */
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0) {
		log_err("block signals: %m; killing the sandbox");
		mask_set = false;
		kill(init, SIGKILL);
	} else if ((sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		log_err("signalfd: %m; killing the sandbox");
		kill(init, SIGKILL);
	}

	if (master >= 0) {
		r.in_tty = isatty(STDIN_FILENO);
		if (r.in_tty && tcgetattr(STDIN_FILENO, &saved) == 0) {
			/* Raw: every byte, ^C and ^Z included, goes to the
			 * pty, whose own line discipline applies them. */
			raw = saved;
			cfmakeraw(&raw);
			if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0)
				raw_set = true;
		}
		fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
		sync_winsize(master);
		r.notice_relayed = notice_stderr_is_relayed();
	}
	notice_track_init(&r.track);

	while (!done) {
		p = waitpid(init, &st, WNOHANG);
		if (p == init || (p < 0 && errno == ECHILD)) {
			if (p < 0)
				st = 127 << 8; /* not ours: nothing to say */
			break;
		}

		np = 0;
		pf[np++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		if (sessrec_fd(r.rec) >= 0)
			pf[np++] = (struct pollfd){
			    .fd = sessrec_fd(r.rec), .events = POLLIN};
		if (master >= 0) {
			if (!r.in_eof && r.in.off + r.in.len < sizeof(r.in.d))
				pf[np++] = (struct pollfd){
				    .fd = STDIN_FILENO, .events = POLLIN};
			if (!r.master_eof)
				pf[np++] = (struct pollfd){.fd = master,
				    .events = (short)((r.in.len ? POLLOUT : 0) |
				        (r.out.len < sizeof(r.out.d) ? POLLIN
				                                     : 0))};
		}
		timeout = -1;
		if (r.kill_at) {
			left = r.kill_at - util_now_ms();
			if (left <= 0) {
				kill(init, SIGKILL);
				r.kill_at = 0;
				hung_up = true;
				continue;
			}
			timeout = (int)left;
		}
		if (deadline) {
			left = deadline - util_now_ms();
			if (left <= 0) {
				/* The whole pid namespace dies with init. */
				log_record(LOG_INFO,
				    "session timed out after %llu s",
				    (unsigned long long)timeout_s);
				kill(init, SIGKILL);
				*ret_timed_out = 1;
				deadline = 0;
				continue;
			}
			if (left > INT32_MAX)
				left = INT32_MAX;
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		if (sfd < 0)
			timeout = 100;
		/* The record's writes and waiting notices: once a second. */
		if (r.rec && (timeout < 0 || timeout > 1000))
			timeout = 1000;
		n = poll(pf, np, timeout);
		sessrec_tick(r.rec);
		notices(&r);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;

		for (i = 0; i < (int)np; i++) {
			if (pf[i].revents == 0)
				continue;
			if (pf[i].fd == sfd) {
				while (read(sfd, &si, sizeof(si)) ==
				    (ssize_t)sizeof(si)) {
					if ((int)si.ssi_signo ==
					    SESSREC_SIG_END)
						(void)end_request(
						    &r, &si, init);
					else if (si.ssi_signo == SIGWINCH &&
					    master >= 0)
						sync_winsize(master);
					else if (si.ssi_signo == SIGHUP)
						hangup(&r, init);
					else if (si.ssi_signo != SIGCHLD &&
					    si.ssi_signo != SIGPIPE &&
					    si.ssi_signo != SIGWINCH)
						kill(init, (int)si.ssi_signo);
				}
			} else if (pf[i].fd == sessrec_fd(r.rec)) {
				sessrec_input(r.rec);
				notices(&r);
			} else if (pf[i].fd == STDIN_FILENO) {
				relay_stdin(&r, init);
			} else if (pf[i].fd == master) {
				if (pf[i].revents & POLLOUT)
					relay_to_master(&r);
				if (pf[i].revents &
				    (POLLIN | POLLHUP | POLLERR))
					relay_from_master(&r);
				flush_out(&r);
			}
		}
	}

	if (master >= 0)
		drain_master(&r);
	if (raw_set)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
	/* Consume what is still queued (a late SIGTERM must not kill us
	 * after the session ended well). */
	if (sfd >= 0)
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
	if (mask_set && sigprocmask(SIG_SETMASK, &old, NULL) < 0)
		log_warn("restore the signal mask: %m");
	if (chld_set && sigaction(SIGCHLD, &old_chld, NULL) < 0)
		log_warn("restore SIGCHLD: %m");
	/* Killed because of the hangup: report it as a shell would. */
	if (hung_up && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return 128 + SIGHUP;
	return session_shell_status(st);
}
