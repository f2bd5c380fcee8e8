/*
 * cfgshell: a test's stand-in for aisb-shell-main that adds --config.
 *
 * sshd and su run a login shell without arguments of the test's choice,
 * and a test must not touch /etc/aisb.  tests/pam/sshd.sh's test_shell
 * is a bash script, so a login through it runs bash (a dynamic program)
 * with the caller's environment first: useless where that environment
 * is the attack.  Here a copy of the real entry point sits in DIR/bin/
 * aisb-shell and this program, copied to DIR/libexec/aisb/aisb-shell-
 * main, is what it runs: it starts with the held environment, reads
 * SELF.args (two lines: the real aisb-shell-main, the policy file) and
 * execs the real one with "--config FILE" first and the environment as
 * it got it, unchanged.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int
line(FILE *f, char *buf, size_t n)
{
	if (!fgets(buf, (int)n, f))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] == '/' ? 0 : -1;
}

int
main(int argc, char **argv)
{
	char self[4096], args[4200], real[4096], conf[4096];
	char **v;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;
	int i;

	if (n <= 0)
		return 77;
	self[n] = '\0';
	snprintf(args, sizeof(args), "%s.args", self);
	f = fopen(args, "re");
	if (!f || line(f, real, sizeof(real)) < 0 ||
	    line(f, conf, sizeof(conf)) < 0) {
		fprintf(stderr, "cfgshell: cannot read %s\n", args);
		return 77;
	}
	fclose(f);
	v = calloc((size_t)argc + 3, sizeof(*v));
	if (!v)
		return 77;
	v[0] = argc > 0 ? argv[0] : "aisb-shell";
	v[1] = "--config";
	v[2] = conf;
	for (i = 1; i < argc; i++)
		v[i + 2] = argv[i];
	execve(real, v, environ);
	perror(real);
	free(v);
	return 77;
}
