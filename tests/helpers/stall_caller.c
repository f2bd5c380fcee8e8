/*
 * stall_caller: the caller of a session that stops reading its output
 * (a harness whose pipe is full, a stalled ssh link), or reads it
 * slowly.  Runs CMD with its stdin, stdout and stderr on a pty (CMD's
 * controlling terminal, as sshd gives one) or on one pipe (stdin
 * /dev/null), optionally sends a signal at a given time, and reports.
 *
 *	stall_caller pty|pipe none|slow [SIG@MS] -- CMD [ARG...]
 *
 * none: nothing is ever read; slow: 512 bytes every 20 ms until EOF.
 * Prints one line:
 *	rc=N ms=M sig_ms=S read=B xs=X end=E unread=U
 * rc: CMD's status as a shell gives it ("hung" if it had not ended 30 s
 * after start: then it is killed); ms: from start to its end; sig_ms:
 * from the signal to its end (-1 without one); read: bytes read; xs:
 * how many of them are 'x'; end: whether "END" was read; unread: bytes
 * left unread in the pty or pipe at the end (the witness that the
 * caller really stalled).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
usage(void)
{
	fprintf(stderr,
	    "usage: stall_caller pty|pipe none|slow [SIG@MS] -- CMD...\n");
	return 2;
}

static int
signum(const char *s)
{
	if (!strcmp(s, "TERM"))
		return SIGTERM;
	if (!strcmp(s, "HUP"))
		return SIGHUP;
	if (!strcmp(s, "INT"))
		return SIGINT;
	return -1;
}

int
main(int argc, char **argv)
{
	int pty, slow, sig = 0, sig_at = -1, rfd, wfd, i, st = 0;
	int64_t t0, t_sig = -1, t_end = -1;
	long nread = 0, xs = 0, unread = 0;
	char buf[512], tail[4] = {0};
	int end = 0, done = 0;
	pid_t pid;

	if (argc < 5)
		return usage();
	pty = !strcmp(argv[1], "pty");
	slow = !strcmp(argv[2], "slow");
	i = 3;
	if (strcmp(argv[i], "--")) {
		char *at = strchr(argv[i], '@');

		if (!at)
			return usage();
		*at = '\0';
		sig = signum(argv[i]);
		sig_at = atoi(at + 1);
		if (sig < 0)
			return usage();
		i++;
	}
	if (strcmp(argv[i], "--") || i + 1 >= argc)
		return usage();
	i++;

	if (pty) {
		rfd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (rfd < 0 || grantpt(rfd) < 0 || unlockpt(rfd) < 0)
			return perror("pty"), 1;
		wfd = open(ptsname(rfd), O_RDWR | O_NOCTTY | O_CLOEXEC);
	} else {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0)
			return perror("pipe"), 1;
		rfd = p[0];
		wfd = p[1];
	}
	if (wfd < 0)
		return perror("open"), 1;
	t0 = now_ms();
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		if (pty) {
			if (setsid() < 0 || ioctl(wfd, TIOCSCTTY, 0) < 0)
				_exit(125);
			dup2(wfd, 0);
		} else {
			int nul = open("/dev/null", O_RDONLY);

			dup2(nul, 0);
		}
		dup2(wfd, 1);
		dup2(wfd, 2);
		execvp(argv[i], argv + i);
		_exit(127);
	}
	close(wfd);

	while (!done) {
		struct pollfd pf = {.fd = rfd, .events = POLLIN};
		int64_t t = now_ms();
		ssize_t n;

		if (t_end < 0 && waitpid(pid, &st, WNOHANG) == pid) {
			t_end = t;
			if (!slow)
				break;
		}
		if (t_end < 0 && sig && t_sig < 0 && t - t0 >= sig_at) {
			kill(pid, sig);
			t_sig = t;
		}
		if (t_end < 0 && t - t0 > 30000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			printf("rc=hung\n");
			return 1;
		}
		if (!slow) {
			usleep(10000);
			continue;
		}
		if (poll(&pf, 1, 20) <= 0) {
			/* EOF only counts once CMD is gone. */
			if (t_end >= 0 && now_ms() - t_end > 2000)
				done = 1;
			continue;
		}
		n = read(rfd, buf, sizeof(buf));
		if (n <= 0) {
			if (t_end >= 0)
				done = 1;
			else
				usleep(20000);
			continue;
		}
		nread += n;
		for (ssize_t k = 0; k < n; k++) {
			xs += buf[k] == 'x';
			memmove(tail, tail + 1, 2);
			tail[2] = buf[k];
			if (!memcmp(tail, "END", 3))
				end = 1;
		}
		usleep(20000);
	}
	if (ioctl(rfd, FIONREAD, &i) == 0)
		unread = i;
	printf("rc=%d ms=%lld sig_ms=%lld read=%ld xs=%ld end=%d unread=%ld\n",
	    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
	    (long long)(t_end - t0),
	    (long long)(t_sig < 0 ? -1 : t_end - t_sig), nread, xs, end,
	    unread);
	return 0;
}
