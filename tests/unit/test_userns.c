/*
 * test_userns.c: lib/userns.c, on directories of ordinary files that
 * stand in for /proc/self (the order of the writes, short writes, files
 * that read back wrong) and in a real user namespace (the kernel's own
 * format reads back as written; the maps cannot be written twice).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "userns.h"

#define NOBODY 65534

static char dir[] = "/tmp/aisb-userns-XXXXXX";

static void
put(const char *name, const char *content)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, content, strlen(content)) < 0)
		abort();
	close(fd);
}

static const char *
get(const char *name)
{
	static char buf[256];
	char p[256];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "(missing)";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void
fresh(void)
{
	put("setgroups", "");
	put("uid_map", "");
	put("gid_map", "");
	put("max_user_namespaces", "");
}

static int
map_fake(const char **what)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	if (dfd < 0)
		abort();
	*what = "(none)";
	r = userns_map_at(dfd, 1000, 2000, what);
	close(dfd);
	return r;
}

static void
test_fake(void)
{
	const char *what;
	char p[256];
	int r, dfd;

	fresh();
	is_int(map_fake(&what), 0, "the three files written in a stand-in");
	is_str(get("setgroups"), "deny", "setgroups says deny");
	is_str(get("uid_map"), "1000 1000 1\n", "uid_map maps the uid");
	is_str(get("gid_map"), "2000 2000 1\n", "gid_map maps the gid");

	/* setgroups first: when it fails, no map is written. */
	fresh();
	snprintf(p, sizeof(p), "%s/setgroups", dir);
	unlink(p);
	r = map_fake(&what);
	is_int(r, -ENOENT, "no setgroups: an error");
	is_str(what, "setgroups deny", "it names setgroups");
	is_str(get("uid_map"), "", "and no map was written before it");

	/* uid_map before gid_map. */
	fresh();
	snprintf(p, sizeof(p), "%s/gid_map", dir);
	unlink(p);
	r = map_fake(&what);
	is_int(r, -ENOENT, "no gid_map: an error");
	is_str(what, "gid_map", "it names gid_map");
	is_str(get("uid_map"), "1000 1000 1\n", "uid_map was written first");

	/* A symlink is not followed. */
	fresh();
	snprintf(p, sizeof(p), "%s/uid_map", dir);
	unlink(p);
	if (symlink("gid_map", p) < 0)
		abort();
	r = map_fake(&what);
	is_int(r, -ELOOP, "a symlinked uid_map is refused");
	is_str(get("gid_map"), "", "and nothing was written through it");

	/* Files that read back other than written (kept content past
	 * what the single write covers). */
	fresh();
	put("uid_map", "1000 1000 1\n0 0 4294967295\n");
	r = map_fake(&what);
	is_int(r, -EBADMSG, "a uid_map with a second line reads back wrong");
	is_str(what, "uid_map (read back)", "it names the read back");

	fresh();
	put("gid_map", "2000 2000 100\n");
	r = map_fake(&what);
	is_int(r, -EBADMSG, "a gid_map with kept bytes reads back wrong");
	is_str(what, "gid_map (read back)", "it names the gid_map read back");

	/* One file under both names: the gid map lands on the uid map, so
	 * uid_map reads back other ids. */
	fresh();
	snprintf(p, sizeof(p), "%s/gid_map", dir);
	unlink(p);
	{
		char u[256];

		snprintf(u, sizeof(u), "%s/uid_map", dir);
		if (link(u, p) < 0)
			abort();
	}
	r = map_fake(&what);
	is_int(r, -EBADMSG, "a uid_map that maps other ids reads back wrong");
	is_str(what, "uid_map (read back)", "it names the uid_map read back");

	fresh();
	put("setgroups", "allow\n");
	r = map_fake(&what);
	is_int(r, -EBADMSG, "setgroups that does not say deny is refused");
	is_str(what, "setgroups deny (read back)", "it names setgroups");

	/* The nesting limit. */
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fresh();
	is_int(userns_limit_nested_at(dfd, 1), 0, "the nesting limit written");
	is_str(get("max_user_namespaces"), "1", "as 1");
	put("max_user_namespaces", "15\n");
	is_int(userns_limit_nested_at(dfd, 1), -EBADMSG,
	    "a limit that reads back 15 is refused");
	close(dfd);
}

/* A short write: RLIMIT_FSIZE lets the uid_map write through in part
 * only.  In a child, so the limit stays there. */
static void
test_short_write(void)
{
	int p[2], st;
	pid_t pid;
	int res[2] = {1, 0};

	fresh();
	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = {8, 8};
		const char *what = "";

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(1);
		res[0] = map_fake(&what);
		res[1] = strcmp(what, "uid_map") == 0;
		if (write(p[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], res, sizeof(res)) != sizeof(res))
		res[0] = 1;
	close(p[0]);
	waitpid(pid, &st, 0);
	is_int(res[0], -EIO, "a short write is an error (-EIO)");
	ok(res[1], "it names uid_map");
	is_str(get("setgroups"), "deny", "setgroups (4 bytes) went through");
	is_str(get("uid_map"), "1000 100", "uid_map got 8 bytes of 12");
	is_str(get("gid_map"), "", "gid_map was not written after it");
}

/* In a child: a user namespace of its own, as nobody when run as root. */
static void
test_real(void)
{
	char line[512];
	FILE *f;
	int p[2], st, n = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		const char *what = "";
		uid_t uid;
		gid_t gid;
		int r, fd;
		char buf[128];
		ssize_t k;

		close(p[0]);
		if (dup2(p[1], 1) < 0)
			_exit(1);
		setvbuf(stdout, NULL, _IOLBF, 0);
		if (getuid() == 0 &&
		    (setgroups(0, NULL) < 0 ||
		        setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
		        setresuid(NOBODY, NOBODY, NOBODY) < 0 ||
		        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0))
			_exit(1);
		uid = getuid();
		gid = getgid();
		if (unshare(CLONE_NEWUSER) < 0) {
			printf("skip no user namespaces here\n");
			_exit(0);
		}
		r = userns_map_self(uid, gid, &what);
		printf("%d mapped (%d %s)\n", r == 0, r, what);
		printf("%d the uid inside is the same\n",
		    getuid() == uid && getgid() == gid);
		fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
		k = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		buf[k < 0 ? 0 : k] = '\0';
		printf("%d the kernel's uid_map has one line\n",
		    k > 0 && strchr(buf, '\n') == buf + k - 1);
		r = userns_map_self(uid, gid, &what);
		printf("%d a second map is refused (%d %s)\n", r == -EPERM, r,
		    what);
		r = userns_limit_nested(1);
		printf("%d the nesting limit is set and reads back (%d)\n",
		    r == 0, r);
		_exit(0);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "skip ", 5) == 0)
			tap_skip(line + 5, "a real user namespace");
		else
			ok(line[0] == '1', "%s", line + 2);
		n++;
	}
	if (f)
		fclose(f);
	waitpid(pid, &st, 0);
	ok(n > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the namespace child finished (status %#x)", st);
}

int
main(void)
{
	char cmd[64];

	if (!mkdtemp(dir))
		abort();
	test_fake();
	test_short_write();
	test_real();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		ok(0, "cleanup");
	return tap_done();
}
