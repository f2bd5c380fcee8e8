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
 *
 * One concern past 800 lines: the bytes between the caller and the
 * session.  The file holds the pty (pty_open, pty_attach) and the
 * outer's one poll loop (pty_outer_wait) that relays them: the caller's
 * input to the pty, the pty's output through the redaction (redact.c)
 * and the escape filter (ttyfilter.c) to the caller, egress notices at
 * a line boundary, the end of the session; and, without a tty but with
 * secrets, the inner's stdout and stderr through two pipes.  Both paths
 * share the loop's state (struct relay) and its end, so they are one
 * file; each has a section below.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "bwrite.h"
#include "log.h"
#include "notice.h"
#include "pty.h"
#include "redact.h"
#include "session.h"
#include "sessrec.h"
#include "ttyfilter.h"
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

/*
 * The relay never blocks on the caller (bwrite.c): with a caller that
 * stops reading, the sandbox's output backs up into its own pty (the
 * inside blocks, as on any slow terminal) while the deadline, SIGTERM
 * and SIGHUP are still read here and end the session on time.
 */

struct buf {
	char d[16384];
	size_t off, len;
};

/* What the caller's terminal still has to take, filtered. */
struct obuf {
	uint8_t d[65536];
	size_t off, len;
};

/*
 * Room in the output kept for the notices (a line of sessrec.h's, with
 * "\r" before and "\r\n" after), so that the sandbox's output alone
 * cannot keep them out for ever.
 */
#define NOTICE_ROOM 1024

/*
 * Redaction (redact.h): bytes held back because they may begin a value
 * go out, as they are, once the stream has been quiet this long.
 */
#define REDACT_QUIET_MS 50

/*
 * Without a tty, with secrets, every byte the sandbox writes takes one
 * more pipe and a read, scan and write here.  Big pipes make that
 * cheaper: the inner's output pipes are made PIPE_BIG (F_SETPIPE_SZ;
 * less when pipe-max-size or the user's pipe quota says no), and one
 * read takes up to what the pipe holds.  So is the caller's fd 1 or 2
 * when it is a pipe, but only once it has taken PIPE_GROW_AFTER bytes
 * (a bulk stream, read as it comes): below that the caller's pipe stays
 * as it is, and a caller that reads slowly holds the session back as
 * without secrets.  It gets its size back at the end.
 */
#define PIPE_BIG (1 << 20)
#define PIPE_SMALL 65536 /* a pipe's default size */
#define PIPE_GROW_AFTER (4 << 20)

/* Without a tty, with secrets: one of the inner's output pipes. */
struct opipe {
	int fd; /* its read end; -1: none, or read to its end */
	int to; /* the caller's fd: 1 or 2 */
	int to_size; /* the caller's pipe size before, to give back; 0 */
	bool to_grown; /* tried (PIPE_GROW_AFTER) */
	uint64_t sent; /* bytes the caller took */
	struct redact *rd;
	bool broken; /* the caller's fd is gone: discard */
	int64_t last_in; /* when bytes last came */
	uint8_t *d; /* redacted, for the caller: cap bytes */
	size_t cap, off, len;
	size_t used; /* of d: the most ever written (wiped at the end) */
	size_t rmax; /* one read, at most */
	bool out_polled; /* the caller's fd is in this poll (later) */
};

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
	struct notice_track track; /* where the caller's lines end */
	bool in_eof; /* caller's stdin done */
	bool in_tty; /* caller's stdin is a terminal */
	bool master_eof; /* every slave fd closed */
	bool out_broken; /* caller's stdout gone: discard */
	bool filter; /* escape sequences filtered (ttyfilter.c) */
	char last_in; /* last byte sent to the master */
	int kill_sig; /* SIGHUP or SIGTERM that ends the session */
	int64_t kill_at; /* after kill_sig: when init gets SIGKILL */
	int64_t last_out; /* when the caller last took output */
	struct buf in; /* stdin -> master */
	struct obuf out; /* master -> stdout, filtered */
	uint8_t raw[16384]; /* one read of the master, before the filter */
	struct ttyfilter tf;
	/* With secrets: the master's output is redacted before the filter
	 * (red: redacted, not yet through it); without a tty, pipe[]. */
	struct redact *rd;
	int64_t rd_last; /* when the master's output last came */
	uint8_t *red;
	size_t red_cap, red_off, red_len;
	struct opipe pipe[2];
	uint8_t *praw; /* a pipe's bytes to redact again: praw_cap */
	size_t praw_cap, praw_used;
};

/*
 * A hangup (the caller's terminal went away, or SIGHUP: an ssh
 * disconnect) or SIGTERM (the harness or the service manager stopping
 * the session) ends the session.  The inside gets the signal to finish
 * cleanly, then, after a short grace, init is killed and the pid
 * namespace with it: a process that ignores it must not outlive the
 * request (nothing left within one second).
 */
#define END_GRACE_MS 500

static void
end_session(struct relay *r, pid_t init, int sig)
{
	(void)kill(init, sig);
	if (r->kill_at == 0) {
		r->kill_at = util_now_ms() + END_GRACE_MS;
		r->kill_sig = sig;
	}
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
		end_session(r, init, SIGHUP);
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

/* The most of the master read at once: the filter's output must fit. */
static size_t
master_want(struct relay *r)
{
	size_t room;

	if (r->out.off > 0) {
		memmove(r->out.d, r->out.d + r->out.off, r->out.len);
		r->out.off = 0;
	}
	room = sizeof(r->out.d) - r->out.len;
	if (r->notice_relayed)
		room = room > NOTICE_ROOM ? room - NOTICE_ROOM : 0;
	if (r->rd)
		/* Redacted bytes go through the filter as room allows
		 * (pump_red): the master waits until they are all in. */
		return r->red_len == 0 && room > 0 ? sizeof(r->raw) : 0;
	if (!r->filter)
		return room;
	if (room <= TTYFILTER_OUT_MAX(0))
		return 0;
	room = (room - TTYFILTER_OUT_MAX(0)) / 3;
	return room < sizeof(r->raw) ? room : sizeof(r->raw);
}

static bool
out_room(const struct relay *r)
{
	size_t room = sizeof(r->out.d) - r->out.len;

	if (r->notice_relayed)
		room = room > NOTICE_ROOM ? room - NOTICE_ROOM : 0;
	if (r->rd && r->red_len > 0)
		return false;
	return r->filter ? room > TTYFILTER_OUT_MAX(0) + 3 : room > 0;
}

/*
 * The waiting notices, as lines of their own, into the output at pos
 * (an offset in out.d, at most out.off + out.len), where the stream
 * the caller sees is at a line boundary (notice_track_ok): raw mode, so
 * "\r\n" ends them.  They are the outer's own text (sessrec.c builds
 * them from a checked alphabet), so they do not go through the filter;
 * they go out with the sandbox's output, after what came before them,
 * through the same bounded writer.  What does not fit waits for the
 * next boundary.  Returns the bytes put in.
 */
static size_t
put_notices(struct relay *r, size_t pos)
{
	size_t end, n, put = 0;
	const char *q;

	while ((q = sessrec_notice(r->rec, &n)) != NULL) {
		if (r->out_broken) {
			sessrec_notice_done(r->rec, false);
			continue;
		}
		end = r->out.off + r->out.len;
		if (end + n + 3 > sizeof(r->out.d)) {
			if (r->out.off == 0 ||
			    r->out.len + n + 3 > sizeof(r->out.d))
				break;
			memmove(r->out.d, r->out.d + r->out.off, r->out.len);
			pos -= r->out.off;
			end = r->out.len;
			r->out.off = 0;
		}
		memmove(r->out.d + pos + n + 3, r->out.d + pos, end - pos);
		r->out.d[pos] = '\r';
		memcpy(r->out.d + pos + 1, q, n);
		memcpy(r->out.d + pos + 1 + n, "\r\n", 2);
		r->out.len += n + 3;
		pos += n + 3;
		put += n + 3;
		/* Shown: it is the caller's as soon as the output before
		 * it is (a caller that stops reading loses both). */
		sessrec_notice_done(r->rec, true);
	}
	return put;
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

/*
 * New bytes at out.d[from..] on their way to the caller: follow where
 * its lines end, and put the waiting notices in at the first line
 * boundary among them.
 */
static void
track_out(struct relay *r, size_t from)
{
	struct notice_track before;
	ssize_t at;
	size_t end, put;

	while (r->notice_relayed) {
		end = r->out.off + r->out.len;
		if (from >= end)
			return;
		before = r->track;
		at = notice_track_feed(
		    &r->track, (const char *)r->out.d + from, end - from);
		if (at < 0 || sessrec_notice(r->rec, &(size_t){0}) == NULL)
			return;
		/* Back to that boundary, and the notices go there. */
		r->track = before;
		(void)notice_track_feed(
		    &r->track, (const char *)r->out.d + from, (size_t)at);
		from += (size_t)at;
		put = put_notices(r, from);
		if (put == 0) {
			/* No room: the rest as it is, the next boundary
			 * later. */
			(void)notice_track_feed(&r->track,
			    (const char *)r->out.d + from, end - from);
			return;
		}
		from += put; /* out.off is 0: nothing moved before from */
	}
}

/* New notices: out now if the stream is at a line boundary. */
static void
notices(struct relay *r)
{
	if (r->rec == NULL || sessrec_notice(r->rec, &(size_t){0}) == NULL)
		return;
	if (!r->notice_relayed)
		put_notices_stderr(r);
	else if (notice_track_ok(&r->track))
		(void)put_notices(r, r->out.off + r->out.len);
}

/*
 * The redacted bytes waiting into the output, through the filter, as
 * much as its room takes now.
 */
static void
pump_red(struct relay *r)
{
	size_t room, k, from;

	while (r->red_len > 0) {
		if (r->out.off > 0) {
			memmove(r->out.d, r->out.d + r->out.off, r->out.len);
			r->out.off = 0;
		}
		room = sizeof(r->out.d) - r->out.len;
		if (r->notice_relayed)
			room = room > NOTICE_ROOM ? room - NOTICE_ROOM : 0;
		if (r->filter)
			k = room > TTYFILTER_OUT_MAX(0)
			    ? (room - TTYFILTER_OUT_MAX(0)) / 3
			    : 0;
		else
			k = room;
		if (k > r->red_len)
			k = r->red_len;
		if (k == 0)
			return;
		from = r->out.len;
		if (r->filter)
			r->out.len += ttyfilter_run(&r->tf, r->red + r->red_off,
			    k, r->out.d + r->out.len);
		else {
			memcpy(r->out.d + r->out.len, r->red + r->red_off, k);
			r->out.len += k;
		}
		r->red_off += k;
		r->red_len -= k;
		track_out(r, from);
	}
}

/*
 * The bytes the master's redactor holds, when the stream has been quiet
 * for REDACT_QUIET_MS or is at its end: out as they are (a value among
 * them still redacted).
 */
static void
release_master(struct relay *r)
{
	if (r->rd == NULL || redact_held(r->rd) == 0 || r->red_len > 0 ||
	    (!r->master_eof && util_now_ms() - r->rd_last < REDACT_QUIET_MS))
		return;
	redact_flush(r->rd, (char *)r->red, &r->red_len);
	r->red_off = 0;
	pump_red(r);
}

/* Read what the master has; at EOF/EIO (no slave left) master_eof. */
static void
relay_from_master(struct relay *r)
{
	size_t want = master_want(r);
	uint8_t *to = r->filter || r->rd ? r->raw : r->out.d + r->out.len;
	size_t from;
	ssize_t n;

	if (want == 0)
		return;
	n = read(r->master, to, want);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		r->master_eof = true;
		return;
	}
	if (r->rd) {
		redact_feed(r->rd, (const char *)r->raw, (size_t)n,
		    (char *)r->red, &r->red_len);
		r->red_off = 0;
		r->rd_last = util_now_ms();
		pump_red(r);
		return;
	}
	from = r->out.len; /* out.off is 0 (master_want) */
	if (r->filter)
		r->out.len += ttyfilter_run(
		    &r->tf, r->raw, (size_t)n, r->out.d + r->out.len);
	else
		r->out.len += (size_t)n;
	track_out(r, from);
}

/* What the caller takes now, without waiting for it. */
static void
relay_to_caller(struct relay *r, pid_t init)
{
	ssize_t w;

	if (r->out.len == 0)
		return;
	if (r->out_broken) {
		r->out.off = r->out.len = 0;
		return;
	}
	w = bwrite(STDOUT_FILENO, r->out.d + r->out.off, r->out.len, 0);
	if (w < 0) {
		/* The caller's terminal or pipe is gone. */
		r->out_broken = true;
		r->out.off = r->out.len = 0;
		if (init > 0)
			end_session(r, init, SIGHUP);
		return;
	}
	if (w > 0)
		r->last_out = util_now_ms();
	r->out.off += (size_t)w;
	r->out.len -= (size_t)w;
	if (r->out.len == 0)
		r->out.off = 0;
}

/*
 * After init is gone, what the inside wrote last still goes to the
 * caller, as fast as the caller takes it: a slow reader gets every byte.
 * Not for ever: after a kill (timeout, hangup, SIGTERM) for DRAIN_KILL_MS
 * at most, otherwise until the caller has taken nothing for
 * DRAIN_STALL_MS, or a signal ends the wait.
 */
#define DRAIN_KILL_MS 100
#define DRAIN_STALL_MS 5000

/*
 * The end, for a caller that is a terminal: switch off what the
 * sandbox left on (ttyfilter_finish), wait for the answers to the
 * queries it asked (settle_replies), and discard what the terminal sent
 * that the sandbox did not read, so that none of it reaches the
 * caller's shell.
 */
#define SETTLE_MS 500

/*
 * Ask the terminal for a status report (DSR 5) and read its input up to
 * the answer: a terminal answers in order, so every answer to an
 * earlier query has then arrived (and is discarded with the rest).
 */
static void
settle_replies(void)
{
	static const char dsr[] = "\033[5n";
	struct pollfd pf = {.fd = STDIN_FILENO, .events = POLLIN};
	int64_t end = util_now_ms() + SETTLE_MS;
	char b[256], win[4] = {0};
	ssize_t n, i;

	if (bwrite(STDOUT_FILENO, dsr, sizeof(dsr) - 1, 100) !=
	    (ssize_t)sizeof(dsr) - 1)
		return;
	while (util_now_ms() < end) {
		if (poll(&pf, 1, (int)(end - util_now_ms())) <= 0)
			return;
		n = read(STDIN_FILENO, b, sizeof(b));
		if (n <= 0)
			return;
		for (i = 0; i < n; i++) {
			memmove(win, win + 1, 3);
			win[3] = b[i];
			/* CSI 0 n (ready) or CSI 3 n (malfunction) */
			if (win[0] == '\033' && win[1] == '[' &&
			    (win[2] == '0' || win[2] == '3') && win[3] == 'n')
				return;
		}
	}
}

static void
end_terminal(struct relay *r, bool raw_set, const struct termios *saved)
{
	uint8_t fin[TTYFILTER_FINISH_MAX + 1];
	size_t n = 0;
	bool asked = r->tf.asked;

	/* A caller that took nothing of the drain is not reading: nothing
	 * more is written (it would only wait). */
	if (r->out.len > 0 && util_now_ms() - r->last_out >= DRAIN_KILL_MS)
		r->out_broken = true;
	if (r->filter && !r->out_broken) {
		/* Output left unsent (a caller that stopped reading) may end
		 * inside a sequence: CAN ends it first. */
		if (r->out.len > 0)
			fin[n++] = 0x18;
		n += ttyfilter_finish(&r->tf, fin + n);
		if (n > 0 && bwrite(STDOUT_FILENO, fin, n, 100) < (ssize_t)n)
			r->out_broken = true;
		/* Answers may be on the way: to queries, or reports of a
		 * mode just switched off. */
		if (raw_set && !r->out_broken && (asked || n > 0))
			settle_replies();
	}
	if (r->in_tty)
		(void)tcflush(STDIN_FILENO, TCIFLUSH);
	/* TCSANOW: TCSADRAIN would wait for a caller that may never read
	 * (output is processed when written, not when read). */
	if (raw_set)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, saved);
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

/* The terminal decodes UTF-8: Linux says so with IUTF8 (set by terminal
 * emulators, sshd from the client's modes, tmux). */
static bool
caller_utf8(void)
{
	struct termios t;

	if (tcgetattr(STDOUT_FILENO, &t) < 0 && tcgetattr(STDIN_FILENO, &t) < 0)
		return true;
	return (t.c_iflag & IUTF8) != 0;
}

/* ---- without a tty, with secrets: the inner's stdout and stderr ---- */

/*
 * fd's pipe made PIPE_BIG if it is smaller (and can be); its size after,
 * and in *before the size it had (0: not a pipe, or not changed).
 */
static int
pipe_grow(int fd, int *before)
{
	struct stat st;
	int now, want, got;

	*before = 0;
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) ||
	    (now = fcntl(fd, F_GETPIPE_SZ)) < 0)
		return PIPE_SMALL;
	/* F_SETPIPE_SZ gives the size it made. */
	for (want = PIPE_BIG; want > now; want /= 2)
		if ((got = fcntl(fd, F_SETPIPE_SZ, want)) > 0) {
			*before = now;
			return got;
		}
	return now;
}

/*
 * A pipe is done once read to its end and handed on, or when the
 * caller's side is gone.
 */
static bool
pipe_done(const struct opipe *o)
{
	return o->broken ||
	    (o->fd < 0 && o->len == 0 &&
	        (o->rd == NULL || redact_held(o->rd) == 0));
}

static bool
pipe_room(const struct opipe *o)
{
	return o->cap - o->len >= redact_room(o->rd, 1);
}

/*
 * One read of the pipe, straight into its buffer: the bytes that pass
 * as they are (redact_pass: mostly all) stay where they are read; the
 * rest, from the first value on, is redacted into the buffer from a
 * copy.  True when bytes came.
 */
static bool
pipe_read(struct relay *r, struct opipe *o)
{
	size_t want = o->rmax, got = 0, pass;
	uint8_t *at;
	ssize_t n;

	if (o->off > 0 && o->cap - o->off - o->len < redact_room(o->rd, want)) {
		memmove(o->d, o->d + o->off, o->len);
		o->off = 0;
	}
	while (want > 0 && redact_room(o->rd, want) > o->cap - o->off - o->len)
		want /= 2;
	if (want == 0)
		return false;
	at = o->d + o->off + o->len;
	n = read(o->fd, at, want);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return false;
	if (n <= 0) {
		/* Every writer is gone: what is held goes out next. */
		close(o->fd);
		o->fd = -1;
		return false;
	}
	o->last_in = util_now_ms();
	/* The raw bytes reach this far, whatever the redaction leaves:
	 * the teardown wipes up to here. */
	if (o->off + o->len + (size_t)n > o->used)
		o->used = o->off + o->len + (size_t)n;
	pass = redact_pass(o->rd, (const char *)at, (size_t)n);
	o->len += pass;
	if (pass < (size_t)n) {
		size_t rest = (size_t)n - pass;

		/* The output may be longer than the bytes it replaces. */
		memcpy(r->praw, at + pass, rest);
		if (rest > r->praw_used)
			r->praw_used = rest;
		redact_feed(o->rd, (const char *)r->praw, rest,
		    (char *)at + pass, &got);
		o->len += got;
	}
	if (o->off + o->len > o->used)
		o->used = o->off + o->len;
	return true;
}

/* What the redactor holds, after a quiet moment or at the end. */
static void
pipe_release(struct opipe *o)
{
	size_t got = 0;

	if (o->rd == NULL || o->broken || redact_held(o->rd) == 0 ||
	    (o->fd >= 0 && util_now_ms() - o->last_in < REDACT_QUIET_MS))
		return;
	if (o->off > 0) {
		memmove(o->d, o->d + o->off, o->len);
		o->off = 0;
	}
	if (redact_room(o->rd, 0) > o->cap - o->len)
		return; /* after the caller has taken some */
	redact_flush(o->rd, (char *)o->d + o->len, &got);
	o->len += got;
	if (o->len > o->used)
		o->used = o->len;
}

/* What the caller's fd takes now, without waiting for it. */
static void
pipe_write(struct relay *r, struct opipe *o)
{
	ssize_t w;

	if (o->len == 0)
		return;
	w = bwrite(o->to, o->d + o->off, o->len, 0);
	if (w < 0) {
		/* The caller's end is gone: closing ours makes the
		 * inner's next write fail (EPIPE), as without the relay. */
		o->broken = true;
		o->off = o->len = 0;
		if (o->fd >= 0)
			close(o->fd);
		o->fd = -1;
		return;
	}
	if (w > 0)
		r->last_out = util_now_ms();
	o->off += (size_t)w;
	o->len -= (size_t)w;
	if (o->len == 0)
		o->off = 0;
	o->sent += (uint64_t)w;
	if (!o->to_grown && o->sent >= PIPE_GROW_AFTER) {
		o->to_grown = true;
		(void)pipe_grow(o->to, &o->to_size);
	}
}

/*
 * The redaction buffers; false when there is no memory for them (the
 * sandbox is then killed: its output must not pass unredacted).
 */
static bool
redact_setup(struct relay *r, int master, const struct pty_wait *w)
{
	struct redact *rd[2] = {w->rd_out, w->rd_err};
	int fd[2] = {w->out, w->err};

	for (int i = 0; i < 2; i++)
		r->pipe[i] = (struct opipe){.fd = -1, .to = i + 1};
	if (master >= 0 && w->rd_tty) {
		r->rd = w->rd_tty;
		r->red_cap = redact_room_max(r->rd, sizeof(r->raw));
		r->red = malloc(r->red_cap);
		return r->red != NULL;
	}
	if (master >= 0)
		return true;
	for (int i = 0; i < 2; i++) {
		struct opipe *o = &r->pipe[i];
		int ignored, size;

		if (rd[i] == NULL || fd[i] < 0)
			continue;
		o->fd = fd[i];
		o->rd = rd[i];
		size = pipe_grow(o->fd, &ignored);
		o->rmax = size > PIPE_SMALL ? (size_t)size : PIPE_SMALL;
		/* Room for a read and its redaction: what a read may take is
		 * bounded by it (pipe_read), so all of rmax when values are
		 * not much shorter than their markers.  Plus the worst a held
		 * tail needs: with less, a long held tail could leave no room
		 * for even one byte (or the flush) in an empty buffer, and the
		 * pipe would never be read again. */
		o->cap = 2 * o->rmax + redact_room_max(o->rd, 1);
		o->d = malloc(o->cap);
		if (o->d == NULL)
			return false;
		if (o->rmax > r->praw_cap) {
			free(r->praw);
			r->praw_cap = o->rmax;
			r->praw = malloc(r->praw_cap);
			if (r->praw == NULL)
				return false;
		}
		(void)fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) | O_NONBLOCK);
	}
	return true;
}

static void
redact_teardown(struct relay *r)
{
	/* Backwards: fds 1 and 2 may be one pipe, grown by the first. */
	for (int i = 1; i >= 0; i--) {
		struct opipe *o = &r->pipe[i];

		/* Our ends of the pipes; the caller's session keeps its. */
		if (o->fd >= 0)
			close(o->fd);
		o->fd = -1;
		/* Fails (EBUSY) while the caller has more unread: then it
		 * stays as big. */
		if (o->to_size > 0)
			(void)fcntl(o->to, F_SETPIPE_SZ, o->to_size);
		o->to_size = 0;
		if (o->d)
			explicit_bzero(o->d, o->used);
		free(o->d);
		o->d = NULL;
	}
	if (r->praw)
		explicit_bzero(r->praw, r->praw_used);
	free(r->praw);
	r->praw = NULL;
	if (r->red)
		explicit_bzero(r->red, r->red_cap);
	free(r->red);
	explicit_bzero(r->raw, sizeof(r->raw));
}

/* Is every stream the relay hands on at its end? */
static bool
streams_done(const struct relay *r)
{
	if (r->master >= 0)
		return r->out_broken ||
		    (r->master_eof && r->out.len == 0 && r->red_len == 0 &&
		        (r->rd == NULL || redact_held(r->rd) == 0));
	return pipe_done(&r->pipe[0]) && pipe_done(&r->pipe[1]);
}

/* The next time held bytes may go out (REDACT_QUIET_MS), or -1. */
static int64_t
release_at(const struct relay *r)
{
	int64_t t = -1;

	if (r->rd && redact_held(r->rd) && !r->master_eof)
		t = r->rd_last + REDACT_QUIET_MS;
	for (int i = 0; i < 2; i++) {
		const struct opipe *o = &r->pipe[i];

		if (o->rd && o->fd >= 0 && !o->broken && redact_held(o->rd) &&
		    (t < 0 || o->last_in + REDACT_QUIET_MS < t))
			t = o->last_in + REDACT_QUIET_MS;
	}
	return t;
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
	struct relay rs = {.master = master, .rec = w->rec}, *r = &rs;
	struct signalfd_siginfo si;
	struct termios saved, raw;
	struct pollfd pf[8];
	/* what each pf[] is */
	enum { P_SIG, P_REC, P_IN, P_MASTER, P_OUT, P_PIPE, P_PIPE_OUT } pk[8];
	struct opipe *pp[8];
	struct sigaction dfl = {.sa_handler = SIG_DFL}, old_chld;
	sigset_t set, old;
	_cleanup_close_ int sfd = -1;
	bool raw_set = false, alive = true, done = false;
	bool mask_set = true, chld_set = true, piped;
	int64_t deadline = 0, drain_until = 0, left, t;
	int st = 0, n, i, timeout;
	nfds_t np;
	pid_t p;

	*ret_timed_out = 0;
	if (w->timeout_s > 0)
		deadline = util_now_ms() +
		    (int64_t)(w->timeout_s > INT32_MAX ? INT32_MAX
		                                       : w->timeout_s) *
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
		r->in_tty = isatty(STDIN_FILENO);
		r->filter = w->filter && isatty(STDOUT_FILENO);
		ttyfilter_init(&r->tf, caller_utf8());
		if (r->in_tty && tcgetattr(STDIN_FILENO, &saved) == 0) {
			/* Raw: every byte, ^C and ^Z included, goes to the
			 * pty, whose own line discipline applies them. */
			raw = saved;
			cfmakeraw(&raw);
			if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0)
				raw_set = true;
		}
		fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
		sync_winsize(master);
		r->notice_relayed = notice_stderr_is_relayed();
	}
	notice_track_init(&r->track);
	if (!redact_setup(r, master, w)) {
		log_err("out of memory for redaction; killing the sandbox");
		kill(init, SIGKILL);
		redact_teardown(r);
		r->rd = NULL;
		/* What the pty already holds must not pass unredacted. */
		r->out_broken = true;
	}
	piped = r->pipe[0].fd >= 0 || r->pipe[1].fd >= 0;

	while (!done) {
		if (alive) {
			p = waitpid(init, &st, WNOHANG);
			if (p == init || (p < 0 && errno == ECHILD)) {
				if (p < 0)
					st = 127 << 8; /* not ours */
				alive = false;
				if (master < 0 && !piped)
					break;
				r->last_out = util_now_ms();
				if (r->kill_sig || *ret_timed_out ||
				    sessrec_was_ended(r->rec))
					drain_until =
					    util_now_ms() + DRAIN_KILL_MS;
			}
		}
		release_master(r);
		pipe_release(&r->pipe[0]);
		pipe_release(&r->pipe[1]);
		if (!alive) {
			t = util_now_ms();
			if (streams_done(r) ||
			    t >= r->last_out + DRAIN_STALL_MS ||
			    (drain_until && t >= drain_until) ||
			    (deadline && t >= deadline))
				break;
		}

		np = 0;
		pk[np] = P_SIG;
		pf[np++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		if (sessrec_fd(r->rec) >= 0) {
			pk[np] = P_REC;
			pf[np++] = (struct pollfd){
			    .fd = sessrec_fd(r->rec), .events = POLLIN};
		}
		if (master >= 0) {
			if (alive && !r->in_eof &&
			    r->in.off + r->in.len < sizeof(r->in.d)) {
				pk[np] = P_IN;
				pf[np++] = (struct pollfd){
				    .fd = STDIN_FILENO, .events = POLLIN};
			}
			if (!r->master_eof) {
				pk[np] = P_MASTER;
				pf[np++] = (struct pollfd){.fd = master,
				    .events =
				        (short)((alive && r->in.len ? POLLOUT
				                                    : 0) |
				            (out_room(r) ? POLLIN : 0))};
			}
			if (r->out.len > 0 && !r->out_broken) {
				pk[np] = P_OUT;
				pf[np++] = (struct pollfd){
				    .fd = STDOUT_FILENO, .events = POLLOUT};
			}
		}
		for (i = 0; i < 2; i++) {
			struct opipe *o = &r->pipe[i];

			if (o->fd >= 0 && pipe_room(o)) {
				pk[np] = P_PIPE;
				pp[np] = o;
				pf[np++] = (struct pollfd){
				    .fd = o->fd, .events = POLLIN};
			}
			o->out_polled = o->len > 0 && !o->broken;
			if (o->out_polled) {
				pk[np] = P_PIPE_OUT;
				pp[np] = o;
				pf[np++] = (struct pollfd){
				    .fd = o->to, .events = POLLOUT};
			}
		}
		timeout = -1;
		if (alive && r->kill_at) {
			left = r->kill_at - util_now_ms();
			if (left <= 0) {
				kill(init, SIGKILL);
				r->kill_at = 0;
				continue;
			}
			timeout = (int)left;
		}
		if (alive && deadline) {
			left = deadline - util_now_ms();
			if (left <= 0) {
				/* The whole pid namespace dies with init. */
				log_record(LOG_INFO,
				    "session timed out after %llu s",
				    (unsigned long long)w->timeout_s);
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
		if (!alive) {
			/* The next time a drain bound may be passed. */
			t = r->last_out + DRAIN_STALL_MS;
			if (drain_until && drain_until < t)
				t = drain_until;
			if (deadline && deadline < t)
				t = deadline;
			left = t - util_now_ms();
			timeout = left < 0 ? 0 : (int)left;
		}
		/* Held bytes that may begin a value wait a moment for more. */
		if ((t = release_at(r)) >= 0) {
			left = t - util_now_ms();
			if (left < 0)
				left = 0;
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		if (sfd < 0 && (timeout < 0 || timeout > 100))
			timeout = 100;
		/* The record's writes and waiting notices: once a second. */
		if (r->rec && (timeout < 0 || timeout > 1000))
			timeout = 1000;
		n = poll(pf, np, timeout);
		sessrec_tick(r->rec);
		notices(r);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;

		for (i = 0; i < (int)np; i++) {
			if (pf[i].revents == 0)
				continue;
			if (pk[i] == P_SIG) {
				while (read(sfd, &si, sizeof(si)) ==
				    (ssize_t)sizeof(si)) {
					int sig = (int)si.ssi_signo;

					if (sig == SESSREC_SIG_END) {
						if (alive)
							(void)end_request(
							    r, &si, init);
					} else if (sig == SIGWINCH &&
					    master >= 0)
						sync_winsize(master);
					else if (!alive &&
					    (sig == SIGHUP || sig == SIGTERM ||
					        sig == SIGINT))
						done = true; /* stop draining */
					else if (!alive)
						continue;
					else if (sig == SIGHUP ||
					    sig == SIGTERM)
						end_session(r, init, sig);
					else if (sig != SIGCHLD &&
					    sig != SIGPIPE && sig != SIGWINCH)
						kill(init, sig);
				}
			} else if (pk[i] == P_REC) {
				sessrec_input(r->rec);
				notices(r);
			} else if (pk[i] == P_IN) {
				relay_stdin(r, init);
			} else if (pk[i] == P_MASTER) {
				if (pf[i].revents & POLLOUT)
					relay_to_master(r);
				if (pf[i].revents &
				    (POLLIN | POLLHUP | POLLERR))
					relay_from_master(r);
			} else if (pk[i] == P_OUT) {
				relay_to_caller(r, alive ? init : -1);
				pump_red(r);
			} else if (pk[i] == P_PIPE) {
				/* What was read goes on at once: the caller's
				 * pipe mostly has room, and a poll less per
				 * read counts. */
				if (pp[i]->fd >= 0 && pipe_read(r, pp[i]) &&
				    !pp[i]->out_polled)
					pipe_write(r, pp[i]);
			} else if (pk[i] == P_PIPE_OUT) {
				pipe_write(r, pp[i]);
			}
		}
	}

	if (master >= 0)
		end_terminal(r, raw_set, &saved);
	redact_teardown(r);
	/* Consume what is still queued (a late SIGTERM must not kill us
	 * after the session ended well). */
	if (sfd >= 0)
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
	if (mask_set && sigprocmask(SIG_SETMASK, &old, NULL) < 0)
		log_warn("restore the signal mask: %m");
	if (chld_set && sigaction(SIGCHLD, &old_chld, NULL) < 0)
		log_warn("restore SIGCHLD: %m");
	/* Killed because of the hangup or SIGTERM: say so as a shell
	 * would. */
	if (r->kill_sig && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return 128 + r->kill_sig;
	return session_shell_status(st);
}
