/*
 * test_pty.c: pty_open, pty_attach and pty_outer_wait with init_reap,
 * driven through a real "caller" terminal (a pty whose master this test
 * holds, as tmux or sshd would):
 *
 *   test --cmaster/cslave-- outer (fd 0,1 = cslave; pty_outer_wait)
 *                             `- init (init_reap) `- inner (pty_attach,
 *                                                     exec /bin/sh)
 *
 * Checked: modes and size copied, bytes both ways, exit status, raw
 * mode on the caller's terminal during the session and restored after,
 * SIGWINCH -> new size inside, TIOCSTI inside lands in the sandbox's
 * pty and never in the caller's, job control in bash -i (Ctrl-Z, fg,
 * Ctrl-C), output drained after exit, timeout, signal forwarding
 * without a tty.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "init.h"
#include "pty.h"
#include "util.h"

static char seen[1 << 20];
static const char *pipe_input = "";
static size_t nseen;
static bool relay_filter = true; /* terminal.filter for the next start */

/* Read the caller's terminal until want appears (or timeout). */
static int
expect(int cm, const char *want, int ms)
{
	struct pollfd pf = {.fd = cm, .events = POLLIN};
	int64_t end = util_now_ms() + ms;
	ssize_t n;

	while (util_now_ms() < end) {
		seen[nseen] = '\0';
		if (memmem(seen, nseen, want, strlen(want)))
			return 1;
		if (poll(&pf, 1, 50) <= 0)
			continue;
		n = read(cm, seen + nseen, sizeof(seen) - 1 - nseen);
		if (n <= 0)
			return 0;
		nseen += (size_t)n;
	}
	return memmem(seen, nseen, want, strlen(want)) != NULL;
}

static void
say(int cm, const char *s)
{
	if (write(cm, s, strlen(s)) != (ssize_t)strlen(s))
		perror("write");
}

struct session {
	pid_t outer;
	int cm; /* caller terminal, master side (the test) */
	int cs; /* caller terminal, slave side (outer's 0,1) */
	int status_fd; /* outer writes "status timed_out" here */
};

/*
 * Start outer -> init -> inner running sh -c script.  tty: whether the
 * caller has a terminal (else outer's stdin/stdout are /dev/null).
 */
static int
start(struct session *s, const char *script, int tty, uint64_t timeout)
{
	struct winsize ws = {.ws_row = 33, .ws_col = 111};
	struct termios t;
	int sp[2];

	memset(s, 0, sizeof(*s));
	nseen = 0;
	s->cm = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s->cm < 0 || grantpt(s->cm) < 0 || unlockpt(s->cm) < 0)
		return -1;
	s->cs = open(ptsname(s->cm), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s->cs < 0)
		return -1;
	ioctl(s->cm, TIOCSWINSZ, &ws);
	/* A mode to find inside: erase = ^H. */
	tcgetattr(s->cs, &t);
	t.c_cc[VERASE] = 010;
	tcsetattr(s->cs, TCSANOW, &t);
	if (pipe2(sp, O_CLOEXEC) < 0)
		return -1;

	s->outer = fork();
	if (s->outer == 0) {
		int master = -1, slave = -1, to = 0, rc;
		pid_t init;

		/* Only the test holds the caller's master: closing it is a
		 * hangup. */
		close(s->cm);

		if (tty == 2) {
			/* The terminal on stdout only; stdin a pipe that
			 * holds pipe_input and ends. */
			int pp[2];

			if (pipe(pp) < 0 ||
			    write(pp[1], pipe_input, strlen(pipe_input)) < 0)
				_exit(89);
			close(pp[1]);
			dup2(pp[0], 0);
			dup2(s->cs, 1);
		} else if (tty) {
			dup2(s->cs, 0);
			dup2(s->cs, 1);
		} else {
			int nul = open("/dev/null", O_RDWR);

			dup2(nul, 0);
			dup2(nul, 1);
		}
		if (tty && pty_open(&master, &slave) < 0)
			_exit(90);
		init = fork();
		if (init == 0) {
			pid_t in;

			init_prepare();
			in = fork();

			if (in == 0) {
				/* As a session's inner: every signal back to
				 * its default and unblocked (a test run in
				 * the background ignores SIGINT, one under
				 * nohup SIGHUP, which a shell cannot trap
				 * then; init_prepare blocked the forwarded
				 * ones). */
				if (init_signals_reset() < 0)
					_exit(93);
				if (master >= 0)
					close(master);
				if (slave >= 0 && pty_attach(slave) < 0)
					_exit(91);
				execl("/bin/sh", "sh", "-c", script,
				    (char *)NULL);
				_exit(92);
			}
			if (slave >= 0)
				close(slave);
			_exit(init_reap(in));
		}
		if (slave >= 0)
			close(slave);
		rc = pty_outer_wait(init, master,
		    &(struct pty_wait){
		        .timeout_s = timeout, .filter = relay_filter},
		    &to);
		dprintf(sp[1], "%d %d\n", rc, to);
		_exit(0);
	}
	close(sp[1]);
	s->status_fd = sp[0];
	return s->outer > 0 ? 0 : -1;
}

/* Keep reading the caller's terminal until the outer is done. */
static int
finish(struct session *s, int *timed_out)
{
	struct pollfd pf = {.fd = s->cm, .events = POLLIN};
	char buf[64] = "";
	int st, rc = -1, to = -1;
	ssize_t n;

	while (waitpid(s->outer, &st, WNOHANG) == 0) {
		if (poll(&pf, 1, 20) > 0) {
			n = read(s->cm, seen + nseen, sizeof(seen) - 1 - nseen);
			if (n > 0)
				nseen += (size_t)n;
		}
	}
	while (poll(&pf, 1, 20) > 0 &&
	    (n = read(s->cm, seen + nseen, sizeof(seen) - 1 - nseen)) > 0)
		nseen += (size_t)n;
	seen[nseen] = '\0';
	if (read(s->status_fd, buf, sizeof(buf) - 1) > 0)
		sscanf(buf, "%d %d", &rc, &to);
	close(s->status_fd);
	if (timed_out)
		*timed_out = to;
	return rc;
}

/*
 * A file the inner creates once its traps are set: a signal sent before
 * would find the shell's default action.  The scripts name it %s.
 */
static char readyf[64];

static const char *
script_ready(char *buf, size_t n, const char *fmt)
{
	snprintf(
	    readyf, sizeof(readyf), "/tmp/test_pty.%d.ready", (int)getpid());
	unlink(readyf);
	snprintf(buf, n, fmt, readyf);
	return buf;
}

static bool
wait_ready(void)
{
	int64_t end = util_now_ms() + 5000;

	while (access(readyf, F_OK) < 0) {
		if (util_now_ms() > end)
			return false;
		usleep(10000);
	}
	unlink(readyf);
	return true;
}

/*
 * Whatever of a session is left (a check failed, or the inner outlived
 * init: these tests have no pid namespace) is killed and reaped: the
 * test is the subreaper of everything it starts (main), so every
 * orphan is its child.  A leftover would hold prove's output pipe.
 */
static void
reap_leftovers(void)
{
	int round, found;

	for (round = 0; round < 50; round++) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		if (!d)
			return;
		found = 0;
		while ((e = readdir(d)) != NULL) {
			char path[300], buf[512], *rp;
			int pid = atoi(e->d_name), ppid = 0;
			FILE *f;

			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			if (!(f = fopen(path, "re")))
				continue;
			if (fgets(buf, sizeof(buf), f) &&
			    (rp = strrchr(buf, ')')) != NULL)
				sscanf(rp + 1, " %*c %d", &ppid);
			fclose(f);
			if (ppid == (int)getpid()) {
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
				found++;
			}
		}
		closedir(d);
		if (!found)
			return;
	}
}

static void
stop(struct session *s)
{
	close(s->cm);
	close(s->cs);
	reap_leftovers();
}

TEST(relay)
{
	struct session s;
	struct termios t;
	int rc, avail = -1;

	ok(start(&s,
	       "stty -a; printf 'ready\\n'; read x; "
	       "printf 'got:%s\\n' \"$x\"; exit 7",
	       1, 0) == 0,
	    "session starts");
	ok(expect(s.cm, "ready", 5000), "inner output reaches the caller");
	ok(strstr(seen, "rows 33; columns 111") != NULL,
	    "window size copied from the caller's terminal");
	ok(strstr(seen, "erase = ^H") != NULL,
	    "terminal modes copied from the caller's terminal");
	tcgetattr(s.cs, &t);
	ok(!(t.c_lflag & (ICANON | ECHO | ISIG)),
	    "caller's terminal is raw during the session");
	say(s.cm, "hello\r");
	ok(expect(s.cm, "got:hello", 5000), "input reaches the inner");
	rc = finish(&s, NULL);
	is_int(rc, 7, "exit status comes back through init and the outer");
	tcgetattr(s.cs, &t);
	ok((t.c_lflag & (ICANON | ECHO | ISIG)) == (ICANON | ECHO | ISIG),
	    "caller's terminal modes restored after the session");
	ioctl(s.cs, FIONREAD, &avail);
	is_int(avail, 0, "nothing left unread in the caller's input queue");
	stop(&s);
}

TEST(winch)
{
	struct session s;
	struct winsize ws = {.ws_row = 40, .ws_col = 100};

	start(&s, "printf 'a\\n'; read x; stty size; exit 0", 1, 0);
	ok(expect(s.cm, "a", 5000), "session runs");
	ioctl(s.cm, TIOCSWINSZ, &ws);
	/* The outer is not the foreground of the caller's terminal here;
	 * a terminal emulator's SIGWINCH is sent by hand. */
	usleep(50000);
	kill(s.outer, SIGWINCH);
	usleep(100000);
	say(s.cm, "\r");
	ok(expect(s.cm, "40 100", 5000),
	    "SIGWINCH carries the new size inside");
	is_int(finish(&s, NULL), 0, "session ends");
	stop(&s);
}

TEST(tiocsti)
{
	struct session s;
	int avail = -1;
	char cmd[512];

	/*
	 * No seccomp here: this is the pty's half of the defence.  The
	 * inner injects a command with TIOCSTI into its controlling tty;
	 * the bytes land in the sandbox's pty (the inner reads them back)
	 * and never in the caller's terminal.
	 */
	snprintf(cmd, sizeof(cmd),
	    "printf 'go\\n'; "
	    "%s/tests/helpers/aisb-try tiocsti 'echo INJECTED-$((6*7))\n'; "
	    "read line; printf 'inner read:%%s\\n' \"$line\"; exit 0",
	    getenv("BUILD") ? getenv("BUILD") : "build");
	start(&s, cmd, 1, 0);
	ok(expect(s.cm, "tiocsti ok", 5000),
	    "TIOCSTI works on the sandbox's own pty (without seccomp)");
	ok(expect(s.cm, "inner read:echo INJECTED-$((6*7))", 5000),
	    "the injected bytes went to the sandbox's pty");
	is_int(finish(&s, NULL), 0, "session ends");
	ioctl(s.cs, FIONREAD, &avail);
	is_int(avail, 0, "the caller's terminal received no injected input");
	ok(strstr(seen, "INJECTED-42") == NULL,
	    "no shell of the caller ran the injected command");
	stop(&s);
}

/* Send key every 300 ms until want shows up (at most ~6 s). */
static int
press(struct session *s, const char *key, const char *want)
{
	int i;

	for (i = 0; i < 20; i++) {
		say(s->cm, key);
		if (expect(s->cm, want, 300))
			return 1;
	}
	return 0;
}

TEST(jobcontrol)
{
	struct session s;
	int rc;

	if (access("/bin/bash", X_OK) < 0) {
		tap_skip("no /bin/bash", "job control in bash -i");
		return;
	}
	start(&s,
	    "exec env -i TERM=dumb PS1='PROMPT> ' "
	    "/bin/bash --norc --noprofile -i",
	    1, 0);
	ok(expect(s.cm, "PROMPT> ", 5000), "bash -i starts with a prompt");
	nseen = 0;
	say(s.cm, "sleep 100\r");
	/* A ^Z before bash has read the line would flush it (ISIG). */
	ok(expect(s.cm, "sleep 100", 5000), "the command is echoed");
	/* Until bash has made the job the terminal's foreground, a ^Z or
	 * ^C reaches bash itself, which ignores it: repeat, a loaded
	 * machine may be slow to get there. */
	if (!ok(press(&s, "\032", "Stopped"),
	        "Ctrl-Z suspends the foreground job"))
		printf("# seen: %s\n", seen);
	ok(expect(s.cm, "PROMPT> ", 5000), "prompt back after Ctrl-Z");
	nseen = 0;
	say(s.cm, "fg\r");
	ok(expect(s.cm, "sleep 100", 5000), "fg resumes the job");
	if (!ok(press(&s, "\003", "PROMPT> "),
	        "Ctrl-C ends the foreground job"))
		printf("# seen: %s\n", seen);
	nseen = 0;
	say(s.cm, "jobs; echo \"jobs:$(jobs | wc -l)\"\r");
	ok(expect(s.cm, "jobs:0", 5000), "no job left behind");
	say(s.cm, "exit 3\r");
	rc = finish(&s, NULL);
	is_int(rc, 3, "bash's exit status comes back");
	stop(&s);
}

TEST(drain)
{
	struct session s;
	size_t i, xs = 0;

	start(&s, "head -c 300000 /dev/zero | tr '\\0' x; exit 0", 1, 0);
	is_int(finish(&s, NULL), 0, "session ends");
	for (i = 0; i < nseen; i++)
		xs += seen[i] == 'x';
	is_int(xs, 300000,
	    "all output written before exit reaches the "
	    "caller");
	stop(&s);
}

TEST(timeout)
{
	struct session s;
	int64_t t0 = util_now_ms();
	int to = -1;

	start(&s, "sleep 30", 1, 1);
	is_int(finish(&s, &to), 128 + SIGKILL,
	    "a timed-out session ends "
	    "with 137");
	is_int(to, 1, "the timeout is reported");
	ok(util_now_ms() - t0 < 5000,
	    "within the timeout and a little (%lld ms)",
	    (long long)(util_now_ms() - t0));
	stop(&s);
}

TEST(notty_signal)
{
	struct session s;
	char script[256];
	int64_t t0;

	start(&s,
	    script_ready(script, sizeof(script),
	        "trap 'exit 55' TERM; : > %s; i=0; while [ $i -lt 100 ]; do "
	        "sleep 0.1; i=$((i+1)); done; exit 1"),
	    0, 0);
	ok(wait_ready(), "the inner set its trap");
	t0 = util_now_ms();
	kill(s.outer, SIGTERM);
	is_int(finish(&s, NULL), 55,
	    "without a tty, SIGTERM to the outer "
	    "reaches the inner through init");
	ok(util_now_ms() - t0 < 3000, "promptly");
	stop(&s);
}

/* Wait for the outer without touching the caller's terminal. */
static int
finish_quiet(struct session *s)
{
	char buf[64] = "";
	int st, rc = -1, to;

	if (waitpid(s->outer, &st, 0) < 0)
		return -1;
	if (read(s->status_fd, buf, sizeof(buf) - 1) > 0)
		sscanf(buf, "%d %d", &rc, &to);
	close(s->status_fd);
	return rc;
}

TEST(piped_stdin)
{
	struct session s;

	/* The end of a piped stdin reaches the inside as end of file (VEOF
	 * through the pty), after a partial last line too. */
	pipe_input = "one\ntwo";
	start(&s, "cat; echo cat-done", 2, 5);
	is_int(finish(&s, NULL), 0,
	    "piped stdin: the session ends (cat saw "
	    "end of file)");
	ok(strstr(seen, "one") && strstr(seen, "two") &&
	        strstr(seen, "cat-done"),
	    "piped stdin: every byte arrived, then "
	    "end of file");
	stop(&s);
}

TEST(hangup)
{
	struct session s;
	char script[256];
	int64_t t0;

	/* An inner that ignores SIGHUP still goes: ssh disconnect. */
	start(&s, "trap '' HUP; printf 'ready\\n'; sleep 30", 1, 0);
	ok(expect(s.cm, "ready", 5000), "session runs");
	t0 = util_now_ms();
	close(s.cm);
	is_int(finish_quiet(&s), 128 + SIGHUP,
	    "the caller's terminal hangs "
	    "up: the session ends with 129");
	ok(util_now_ms() - t0 < 1000,
	    "within a second, though the inside ignores "
	    "SIGHUP (%lld ms)",
	    (long long)(util_now_ms() - t0));
	close(s.cs);

	start(&s,
	    script_ready(
	        script, sizeof(script), "trap '' HUP; : > %s; sleep 30"),
	    0, 0);
	ok(wait_ready(), "the inner set its trap");
	t0 = util_now_ms();
	kill(s.outer, SIGHUP);
	is_int(finish(&s, NULL), 128 + SIGHUP,
	    "SIGHUP to the outer ends the "
	    "session with 129");
	ok(util_now_ms() - t0 < 1000, "within a second (%lld ms)",
	    (long long)(util_now_ms() - t0));
	stop(&s);

	start(&s,
	    script_ready(script, sizeof(script),
	        "trap 'exit 0' HUP; : > %s; while :; do sleep 0.1; done"),
	    0, 0);
	ok(wait_ready(), "the inner set its trap");
	kill(s.outer, SIGHUP);
	is_int(finish(&s, NULL), 0,
	    "an inside that handles SIGHUP exits "
	    "with its own status");
	stop(&s);
}

TEST(filter)
{
	static const char script[] =
	    "printf 'a\\033]52;c;UFdOQ0xJUA==\\007b\\033[21tc"
	    "\\033P$q m\\033\\\\d\\033[1;31me\\n'; exit 0";
	struct session s;

	start(&s, script, 1, 0);
	is_int(finish(&s, NULL), 0, "filter on: session ends");
	ok(strstr(seen, "ab") && strstr(seen, "cd\033[1;31me"),
	    "filter on: the text and the colour reach the caller");
	ok(!strstr(seen, "]52;") && !strstr(seen, "\033[21t") &&
	        !strstr(seen, "$q"),
	    "filter on: OSC 52, CSI 21 t and DECRQSS do not");
	stop(&s);

	relay_filter = false;
	start(&s, script, 1, 0);
	is_int(finish(&s, NULL), 0, "filter off: session ends");
	ok(strstr(seen, "\033]52;c;UFdOQ0xJUA==\007") &&
	        strstr(seen, "\033[21t") && strstr(seen, "\033P$q m"),
	    "filter off (the witness): the same bytes reach the caller");
	relay_filter = true;
	stop(&s);
}

/*
 * Play the caller's terminal until the outer is done: the answer to the
 * sandbox's query (DA or CPR) comes 150 ms late, as behind a slow link,
 * when the sandbox is gone; the status report the outer asks at the end
 * (DSR 5) is answered after it (dsr: at all).  If the outer was gone
 * before the answer was due, the answer is still sent: then it lands in
 * the caller's input.  *ret_asked: the outer asked DSR 5.
 */
static int
play_terminal(struct session *s, bool dsr, int *ret_asked)
{
	struct pollfd pf = {.fd = s->cm, .events = POLLIN};
	char buf[64] = "";
	int st, rc = -1, to, answered = 0, gone = 0;
	int64_t due = 0;
	ssize_t n;

	*ret_asked = 0;
	seen[nseen] = '\0';
	while (!gone) {
		gone = waitpid(s->outer, &st, WNOHANG) != 0;
		if (!due && (strstr(seen, "\033[c") || strstr(seen, "\033[6n")))
			due = util_now_ms() + 150;
		if (due && !answered && (util_now_ms() >= due || gone)) {
			while (util_now_ms() < due)
				usleep(5000);
			say(s->cm, "\033[?1;2c"); /* the late answer */
			answered = 1;
		}
		if (!*ret_asked && strstr(seen, "\033[5n")) {
			*ret_asked = 1;
			if (dsr && due) {
				while (util_now_ms() < due)
					usleep(5000);
				if (!answered)
					say(s->cm, "\033[?1;2c");
				answered = 1;
				say(s->cm, "\033[0n");
			}
		}
		if (gone || poll(&pf, 1, 5) <= 0)
			continue;
		n = read(s->cm, seen + nseen, sizeof(seen) - 1 - nseen);
		if (n > 0) {
			nseen += (size_t)n;
			seen[nseen] = '\0';
		}
	}
	usleep(50000); /* an answer sent at the end has arrived */
	if (read(s->status_fd, buf, sizeof(buf) - 1) > 0)
		sscanf(buf, "%d %d", &rc, &to);
	close(s->status_fd);
	return rc;
}

/*
 * What the caller's shell would read next from its terminal: in
 * canonical mode FIONREAD counts whole lines only, and an answer has no
 * newline, so the terminal is made raw to see the rest.
 */
static int
pending_input(int cs)
{
	struct pollfd pf = {.fd = cs, .events = POLLIN};
	struct termios t, raw;
	char b[256];
	int n = 0;
	ssize_t r;

	tcgetattr(cs, &t);
	raw = t;
	cfmakeraw(&raw);
	tcsetattr(cs, TCSANOW, &raw);
	while (poll(&pf, 1, 100) > 0 && (r = read(cs, b, sizeof(b))) > 0)
		n += (int)r;
	tcsetattr(cs, TCSANOW, &t);
	return n;
}

TEST(late_reply)
{
	struct session s;
	struct termios t;
	int asked;
	int64_t t0;

	/* The sandbox asks (DA) and is gone before the answer. */
	start(&s, "printf 'q\\033[c'; exit 0", 1, 0);
	is_int(play_terminal(&s, true, &asked), 0, "session ends");
	ok(asked, "the outer asked for a status report before it returned");
	tcgetattr(s.cs, &t);
	ok(t.c_lflag & ICANON, "the caller's terminal is restored");
	is_int(pending_input(s.cs), 0,
	    "the late answer is discarded: nothing reaches the caller's "
	    "shell");
	stop(&s);

	/* A terminal that never answers the status report: the outer waits
	 * half a second, then discards what came. */
	t0 = util_now_ms();
	start(&s, "printf 'q\\033[6n'; exit 0", 1, 0);
	is_int(play_terminal(&s, false, &asked), 0,
	    "no status report: session ends");
	ok(util_now_ms() - t0 < 3000, "in bounded time (%lld ms)",
	    (long long)(util_now_ms() - t0));
	is_int(
	    pending_input(s.cs), 0, "what came in the meantime is discarded");
	stop(&s);

	/* Nothing asked: no status report, no wait. */
	start(&s, "printf 'plain\\n'; exit 0", 1, 0);
	is_int(play_terminal(&s, true, &asked), 0, "plain session ends");
	ok(!asked, "no query, no status report");
	stop(&s);
}

TEST(finish_modes)
{
	struct session s;
	int to = -1;

	/* Killed (timeout) with mouse reports and the alternate screen on:
	 * they are switched off for the caller. */
	start(&s,
	    "printf '\\033[?1049h\\033[?1000h\\033[?2004hin vim\\n'; "
	    "sleep 30",
	    1, 1);
	finish(&s, &to);
	is_int(to, 1, "the session timed out");
	ok(strstr(seen, "\033[?1000l\033[?2004l\033[?1049l") != NULL,
	    "mouse reports, bracketed paste and the alternate screen are "
	    "switched off at the end");
	stop(&s);
}

TEST(stalled)
{
	struct session s;
	int64_t t0 = util_now_ms();
	int rc;

	/* A caller that never reads: the deadline still ends it. */
	start(&s, "trap '' TERM HUP; yes flooding", 1, 1);
	rc = finish_quiet(&s);
	is_int(rc, 128 + SIGKILL, "never read: the timeout kills it");
	ok(util_now_ms() - t0 < 2000,
	    "within a second of the deadline (%lld ms)",
	    (long long)(util_now_ms() - t0));
	stop(&s);

	start(&s, "trap '' TERM HUP; yes flooding", 1, 0);
	usleep(300000);
	t0 = util_now_ms();
	kill(s.outer, SIGTERM);
	rc = finish_quiet(&s);
	is_int(rc, 128 + SIGTERM,
	    "never read: SIGTERM ends it though the inside ignores it");
	ok(util_now_ms() - t0 < 1000, "within a second (%lld ms)",
	    (long long)(util_now_ms() - t0));
	stop(&s);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	/* Orphans of the sessions become this test's children
	 * (reap_leftovers). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	RUN(relay);
	RUN(winch);
	RUN(tiocsti);
	RUN(jobcontrol);
	RUN(drain);
	RUN(timeout);
	RUN(notty_signal);
	RUN(piped_stdin);
	RUN(hangup);
	RUN(filter);
	RUN(late_reply);
	RUN(finish_modes);
	RUN(stalled);
	return tap_done();
}
