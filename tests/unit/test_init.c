/*
 * test_init.c: init_reap as PID 1 of a real pid namespace (user+pid
 * namespaces made here): exit statuses, death by signal, orphans
 * reaped, signals from the parent namespace forwarded to the inner
 * (to its process group when it leads one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "init.h"

enum inner_kind { EXIT42, SELFKILL, ORPHAN, CATCH, CATCH_GROUP, CATCH_CHILD };

static volatile sig_atomic_t got_sig;

static void
on_sig(int sig)
{
	got_sig = sig;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* The inner command; ready is written once it is set up. */
static void
inner(enum inner_kind k, int ready, int sig)
{
	struct sigaction sa;
	int i, p[2];
	pid_t x, y = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	/* What lockdown_inner does for the real inner. */
	{
		sigset_t none;

		sigemptyset(&none);
		if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
			_exit(99);
	}
	switch (k) {
	case EXIT42:
		_exit(42);
	case SELFKILL:
		raise(SIGKILL);
		_exit(1);
	case ORPHAN:
		/* x forks y and exits: y is reparented to PID 1. */
		if (pipe(p) < 0)
			_exit(2);
		x = fork();
		if (x == 0) {
			y = fork();
			if (y == 0) {
				sleep_ms(100);
				_exit(0);
			}
			if (write(p[1], &y, sizeof(y)) != sizeof(y))
				_exit(1);
			_exit(0);
		}
		if (read(p[0], &y, sizeof(y)) != sizeof(y))
			_exit(2);
		waitpid(x, NULL, 0);
		/* Once y has exited, init must reap it: then kill() says
		 * ESRCH; a zombie would still be found. */
		for (i = 0; i < 300; i++) {
			if (kill(y, 0) < 0 && errno == ESRCH)
				_exit(0);
			sleep_ms(10);
		}
		_exit(3);
	case CATCH:
	case CATCH_GROUP:
	case CATCH_CHILD:
		if (k != CATCH && setpgid(0, 0) < 0)
			_exit(2);
		sigaction(sig, &sa, NULL);
		if (k == CATCH_CHILD) {
			/* A member of the group (not the leader) must get it
			 * too: it reports by its own exit, seen by the inner.
			 */
			x = fork();
			if (x == 0) {
				sigaction(sig, &sa, NULL);
				while (!got_sig)
					pause();
				_exit(got_sig == sig ? 0 : 1);
			}
			sleep_ms(50);
		}
		if (write(ready, "r", 1) != 1)
			_exit(2);
		for (i = 0; i < 500 && !got_sig; i++)
			sleep_ms(10);
		if (got_sig != sig)
			_exit(4);
		if (k == CATCH_CHILD) {
			int st;

			if (waitpid(-1, &st, 0) < 0 || !WIFEXITED(st) ||
			    WEXITSTATUS(st) != 0)
				_exit(5);
		}
		_exit(60 + sig);
	}
	_exit(99);
}

/* init starts with SIGCHLD ignored, as when aisb-shell's caller
 * ignored it (dispositions survive exec and clone). */
static int ignore_chld;

/* Run one case in fresh user+pid namespaces; return init_reap's value
 * (through init's exit status), or -1. */
static int
run_case(enum inner_kind k, int sig)
{
	int ready[2], st;
	pid_t mid, init;
	char c;

	mid = fork();
	if (mid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			_exit(200);
		if (pipe(ready) < 0)
			_exit(201);
		/* A case that hangs fails instead: init dies with us. */
		alarm(10);
		init = fork();
		if (init == 0) {
			pid_t in;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (ignore_chld)
				signal(SIGCHLD, SIG_IGN);

			/* As the session does: a signal sent before
			 * init_reap runs must wait, not be dropped. */
			init_prepare();
			close(ready[0]);
			in = fork();
			if (in == 0)
				inner(k, ready[1], sig);
			close(ready[1]);
			_exit(init_reap(in));
		}
		close(ready[1]);
		if (sig) {
			if (read(ready[0], &c, 1) != 1)
				_exit(202);
			/* From the parent namespace, as the outer would. */
			kill(init, sig);
		}
		if (waitpid(init, &st, 0) < 0 || !WIFEXITED(st))
			_exit(203);
		_exit(WEXITSTATUS(st));
	}
	if (mid < 0 || waitpid(mid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int
main(void)
{
	int r;

	r = run_case(EXIT42, 0);
	if (r == 200) {
		printf("1..0 # SKIP no unprivileged user namespaces\n");
		return 0;
	}
	is_int(r, 42, "exit status 42 comes back");
	is_int(run_case(SELFKILL, 0), 128 + SIGKILL,
	    "death by SIGKILL comes back as 137");
	is_int(
	    run_case(ORPHAN, 0), 0, "an orphan reparented to init is reaped");
	is_int(run_case(CATCH, SIGTERM), 60 + SIGTERM,
	    "SIGTERM to init reaches the inner (not a group leader)");
	is_int(run_case(CATCH_GROUP, SIGHUP), 60 + SIGHUP,
	    "SIGHUP to init reaches the inner's process group");
	is_int(run_case(CATCH_CHILD, SIGINT), 60 + SIGINT,
	    "SIGINT reaches every member of the inner's process group");
	is_int(run_case(CATCH_GROUP, SIGUSR1), 60 + SIGUSR1,
	    "SIGUSR1 is forwarded");
	is_int(run_case(CATCH_GROUP, SIGQUIT), 60 + SIGQUIT,
	    "SIGQUIT is forwarded");
	ignore_chld = 1;
	is_int(run_case(EXIT42, 0), 42,
	    "with SIGCHLD ignored by the caller the status still comes back");
	is_int(run_case(CATCH, SIGTERM), 60 + SIGTERM,
	    "and signals are still forwarded");
	ignore_chld = 0;
	return tap_done();
}
