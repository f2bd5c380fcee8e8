/*
 * lim_delegate.c: what pam_aisb's session phase does for the limits
 * tests, without PAM.  As root:
 *
 *   lim_delegate [-k KEYFILE] USER CMD [ARG...]
 *
 * delegates a cgroup to USER (cgroup_delegate, with this process as the
 * login's pid), runs CMD as USER (initgroups, gid, uid) inside it, waits,
 * then reaps the cgroup (cgroup_reap) as the session close would, and
 * exits with CMD's status (128+N for signal N).  -k writes the key (the
 * delegated cgroup, "v1:aisb/USER-PID-RAND") to KEYFILE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cgroup.h"

static volatile sig_atomic_t child;

/* Like a session's end: a signal to us goes to the command, and the
 * cgroup is still reaped afterwards. */
static void
forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int
main(int argc, char **argv)
{
	char key[CGROUP_KEYLEN];
	const char *keyfile = NULL;
	struct passwd *pw;
	int st, r, i = 1;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "-k") == 0) {
		keyfile = argv[2];
		i = 3;
	}
	if (argc - i < 2) {
		fprintf(
		    stderr, "usage: lim_delegate [-k KEYFILE] USER CMD...\n");
		return 2;
	}
	pw = getpwnam(argv[i]);
	if (!pw) {
		fprintf(stderr, "lim_delegate: no user %s\n", argv[i]);
		return 2;
	}
	r = cgroup_delegate(
	    pw->pw_name, pw->pw_uid, pw->pw_gid, getpid(), key, sizeof(key));
	if (r < 0) {
		fprintf(stderr, "lim_delegate: cgroup_delegate: %s\n",
		    strerror(-r));
		return 1;
	}
	if (keyfile) {
		FILE *f = fopen(keyfile, "we");

		if (!f || fprintf(f, "%s\n", key) < 0 || fclose(f) != 0) {
			fprintf(stderr, "lim_delegate: %s: %m\n", keyfile);
			cgroup_reap(key);
			return 1;
		}
	}
	{
		struct sigaction sa = {.sa_handler = forward};
		int sigs[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT};
		size_t k;

		for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
			sigaction(sigs[k], &sa, NULL);
	}
	pid = fork();
	if (pid < 0) {
		cgroup_reap(key);
		return 1;
	}
	if (pid == 0) {
		struct sigaction dfl = {.sa_handler = SIG_DFL};

		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGQUIT, &dfl, NULL);
		if (initgroups(pw->pw_name, pw->pw_gid) < 0 ||
		    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0) {
			fprintf(stderr, "lim_delegate: dropping to %s: %m\n",
			    pw->pw_name);
			_exit(1);
		}
		if (chdir("/") < 0)
			_exit(1);
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "lim_delegate: exec %s: %m\n", argv[i + 1]);
		_exit(127);
	}
	child = pid;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r = cgroup_reap(key);
	if (r < 0)
		fprintf(stderr, "lim_delegate: cgroup_reap %s: %s\n", key,
		    strerror(-r));
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
