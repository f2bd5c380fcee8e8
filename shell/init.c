/*
 * init.c: PID 1 of the sandbox, and every change of the signal mask and
 * dispositions that init and the inner make (their life: init.h).
 *
 * A pid namespace's init must reap whatever gets reparented to it, and
 * the kernel drops any signal sent to it that it has no handler for.
 * Here the forwarded signals and SIGCHLD are blocked and read from a
 * signalfd: a blocked signal is queued even for PID 1 (the kernel never
 * treats a blocked signal as ignored), so signals from the outer arrive
 * and are passed on to the inner.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"
#include "log.h"
#include "session.h"
#include "util.h"

/* Forwarded to the inner.  SIGWINCH is the pty's business; SIGKILL and
 * SIGSTOP cannot be caught. */
static const int forwarded[] = {
    SIGTERM,
    SIGINT,
    SIGHUP,
    SIGQUIT,
    SIGUSR1,
    SIGUSR2,
    SIGCONT,
};

static void
forward_set(sigset_t *set)
{
	int i;

	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (i = 0; i < (int)ELEMENTSOF(forwarded); i++)
		sigaddset(set, forwarded[i]);
}

int
init_prepare(void)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t set;

	forward_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return log_errno(-errno, "init: block signals: %m");
	if (sigaction(SIGCHLD, &dfl, NULL) < 0)
		return log_errno(-errno, "init: SIGCHLD: %m");
	return 0;
}

static void
forward(pid_t inner, int sig)
{
	/*
	 * To the inner's process group when it leads one (it does after
	 * setsid), so a shell's foreground pipeline gets it too; ESRCH
	 * when the group is gone but the inner is not.
	 */
	if (getpgid(inner) == inner && kill(-inner, sig) == 0)
		return;
	(void)kill(inner, sig);
}

/* Reap every child that has exited; 1 when the inner was among them. */
static int
reap(pid_t inner, int *ret_status)
{
	int st, found = 0;
	pid_t p;

	for (;;) {
		p = waitpid(-1, &st, WNOHANG);
		if (p < 0 && errno == EINTR)
			continue;
		if (p <= 0)
			break;
		if (p == inner) {
			*ret_status = session_shell_status(st);
			found = 1;
		}
	}
	return found;
}

/* Without a signalfd: still reap, so the session ends properly; no
 * forwarding. */
static int
reap_plain(pid_t inner)
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
			return session_shell_status(st);
	}
}

int
init_reap(pid_t inner)
{
	struct signalfd_siginfo si;
	sigset_t set;
	_cleanup_close_ int sfd = -1;
	int status = 127;
	ssize_t n;

	/* Blocked already (init_prepare); again, so that this function
	 * holds on its own. */
	forward_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) {
		log_warn("init: block signals: %m; signals will not be "
		         "forwarded");
		return reap_plain(inner);
	}
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		log_warn("init: signalfd: %m; signals will not be forwarded");
		return reap_plain(inner);
	}

	/* Children that exited before the signalfd existed are reaped here:
	 * SIGCHLD was blocked from the start of this function. */
	while (!reap(inner, &status)) {
		n = read(sfd, &si, sizeof(si));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(si)) {
			log_err("init: signalfd read: %m");
			break;
		}
		if (si.ssi_signo != SIGCHLD)
			forward(inner, (int)si.ssi_signo);
	}
	return status;
}

int
init_signals_reset(void)
{
	struct sigaction sa = {.sa_handler = SIG_DFL};
	sigset_t none;
	int sig;

	for (sig = 1; sig < _NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		/* EINVAL: numbers glibc reserves for itself. */
		if (sigaction(sig, &sa, NULL) < 0 && errno != EINVAL)
			return log_errno(-errno, "reset signal %d: %m", sig);
	}
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		return log_errno(-errno, "unblock signals: %m");
	return 0;
}
