/*
 * bwrite.c: writes to the caller that cannot hold the outer (bwrite.h).
 *
 * The caller's terminal or pipe is shared with the caller's own
 * processes (the admin's shell after `su - agent`), so its flags stay as
 * they are: O_NONBLOCK would be seen by them too, and left behind if the
 * outer is killed.  A blocking write is bounded instead: an interval
 * timer sends SIGALRM to a handler that does nothing, installed without
 * SA_RESTART, so write(2) returns with what it wrote so far (a tty or a
 * pipe returns a partial count, or EINTR when nothing went).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "bwrite.h"
#include "util.h"

/* How long one write may block before it is interrupted. */
#define SLICE_US 10000

static void
on_alarm(int sig)
{
	(void)sig;
}

ssize_t
bwrite(int fd, const void *buf, size_t n, int ms)
{
	struct sigaction sa = {.sa_handler = on_alarm}, old_sa;
	const struct itimerval on = {{0, SLICE_US}, {0, SLICE_US}};
	const struct itimerval off = {{0, 0}, {0, 0}};
	struct pollfd pf = {.fd = fd, .events = POLLOUT};
	const char *p = buf;
	int64_t end = util_now_ms() + (ms > 0 ? ms : 0), left;
	unsigned tries = 0;
	sigset_t alrm, old_mask;
	size_t done = 0;
	ssize_t w;
	int err = 0;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	if (sigaction(SIGALRM, &sa, &old_sa) < 0)
		return -errno;
	sigprocmask(SIG_UNBLOCK, &alrm, &old_mask);
	while (done < n) {
		/* The first write goes without a poll: it mostly takes all
		 * at once, and blocks one slice at most. */
		if (tries++ > 0) {
			left = end - util_now_ms();
			if (poll(&pf, 1, left > 0 ? (int)left : 0) <= 0) {
				if (errno == EINTR && left > 0)
					continue;
				break; /* not writable in time */
			}
		}
		/* The interval repeats: a slice missed before write(2)
		 * started still interrupts it. */
		setitimer(ITIMER_REAL, &on, NULL);
		w = write(fd, p + done, n - done);
		err = w < 0 ? errno : 0;
		setitimer(ITIMER_REAL, &off, NULL);
		if (w > 0)
			done += (size_t)w;
		else if (w == 0 || (err != EINTR && err != EAGAIN))
			break;
		else
			err = 0;
		if (done < n && util_now_ms() >= end)
			break;
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
	if (done == 0 && err)
		return -err;
	return (ssize_t)done;
}

/* One line is allowed this long; a line that does not go through in it
 * means nobody reads stderr. */
#define LINE_MS 250

void
bwrite_stderr(const char *line, size_t n)
{
	static bool stalled;

	if (stalled)
		return;
	if (bwrite(STDERR_FILENO, line, n, LINE_MS) != (ssize_t)n)
		stalled = true;
}
