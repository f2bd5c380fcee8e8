/*
 * test_viewcheck.c: viewcheck_run on views built here, in a mount
 * namespace of the test's own (and a user namespace when not root): a
 * tmpfs stands for the view's root, with the project and the home bound
 * into it as mount_setup would.  The view as it should be passes; a
 * view that breaks each postcondition is refused, and so is each
 * hidden path that shows something.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "log.h"
#include "policy.h"
#include "userns.h"
#include "util.h"
#include "viewcheck.h"

static char top[] = "/tmp/aisb-viewcheck-XXXXXX";
static char root[256], proj[256], home[256], phome[256], other[256];

static char *hide[] = {
    "/home",
    "/var/lib",
    "/etc/shadow",
    "/srv",
    "/etc/ssh/*_key",
    "/proc",
    "/home/agent/.ssh",
    "/var/run",
};
static char *ro_extra[] = {"/srv/tools", "/run/x"};

static struct aisb_policy pol;
static struct viewcheck vc;

static void
die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static const char *
in(const char *vpath)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s%s", root, vpath);
	return buf[k];
}

static void
mkdir_in(const char *vpath)
{
	if (mkdir(in(vpath), 0755) < 0 && errno != EEXIST)
		die(vpath);
}

static void
file_in(const char *vpath, const char *content)
{
	int fd =
	    open(in(vpath), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, content, strlen(content)) < 0)
		die(vpath);
	close(fd);
}

static void
bind(const char *src, const char *vpath, bool ro)
{
	if (mount(src, in(vpath), NULL, MS_BIND, NULL) < 0)
		die("bind");
	if (ro &&
	    mount(NULL, in(vpath), NULL, MS_REMOUNT | MS_BIND | MS_RDONLY,
	        NULL) < 0)
		die("remount ro");
}

/* The view's root read-only or not. */
static void
root_ro(bool ro)
{
	if (mount(NULL, root, NULL, MS_REMOUNT | MS_BIND | (ro ? MS_RDONLY : 0),
	        NULL) < 0)
		die("remount root");
}

/* Change the view: root writable for fn, read-only again after. */
#define EDIT(stmt)                                                             \
	do {                                                                   \
		root_ro(false);                                                \
		stmt;                                                          \
		root_ro(true);                                                 \
	} while (0)

static int
check(void)
{
	/* One line on stderr per refusal: the reason, for the log. */
	return viewcheck_run(&vc, root);
}

static void
expect(void)
{
	int pfd = open(proj, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (pfd < 0 ||
	    viewcheck_expect(&vc, &pol, pfd, "/home/agent", phome) < 0)
		die("viewcheck_expect");
	close(pfd);
}

/* The view as mount_setup would leave it. */
static void
build(void)
{
	snprintf(root, sizeof(root), "%s/root", top);
	if (mkdir(root, 0755) < 0 ||
	    mount("tmpfs", root, "tmpfs", 0, "mode=0755") < 0)
		die("root tmpfs");
	mkdir_in("/project");
	bind(proj, "/project", false);
	mkdir_in("/home");
	mkdir_in("/home/agent");
	bind(home, "/home/agent", false);
	mkdir_in("/var");
	mkdir_in("/var/lib");
	mkdir_in("/etc");
	mkdir_in("/etc/ssh");
	file_in("/etc/shadow", "");
	file_in("/etc/ssh/host_a_key", "");
	file_in("/etc/passwd", "agent:x:1:1::/home/agent:/bin/sh\n");
	file_in("/etc/hostname", "aisb\n");
	mkdir_in("/srv");
	mkdir_in("/srv/tools");
	mkdir_in("/proc");
	file_in("/proc/self-like", "made fresh, not hidden\n");
	/* A hidden symlink: what it leads to is checked. */
	mkdir_in("/run");
	mkdir_in("/run/x");
	if (symlink("../run", in("/var/run")) < 0)
		die("symlink");
	root_ro(true);
}

static void
policy(void)
{
	memset(&pol, 0, sizeof(pol));
	pol.project.target = "/project";
	pol.home.path = home;
	pol.fs.root = "/";
	pol.fs.hide.v = hide;
	pol.fs.hide.n = ELEMENTSOF(hide);
	pol.fs.readonly.v = ro_extra;
	pol.fs.readonly.n = ELEMENTSOF(ro_extra);
	expect();
}

static void
tests(void)
{
	policy();
	is_int(check(), 0, "the view as built passes");

	root_ro(false);
	is_int(check(), -EPERM, "a writable / is refused");
	root_ro(true);

	/* The project. */
	if (umount2(in("/project"), 0) < 0)
		die("umount project");
	is_int(check(), -EPERM, "a project.target that is not the project");
	bind(other, "/project", false);
	is_int(check(), -EPERM, "another directory bound there");
	if (umount2(in("/project"), 0) < 0)
		die("umount other");
	bind(proj, "/project", false);
	is_int(check(), 0, "the project bound again passes");
	pol.project.readonly = true;
	is_int(check(), -EPERM, "project.readonly with a writable bind");
	if (mount(NULL, in("/project"), NULL, MS_REMOUNT | MS_BIND | MS_RDONLY,
	        NULL) < 0)
		die("remount project");
	is_int(check(), 0, "and with a read-only bind it passes");
	pol.project.readonly = false;

	/* The home. */
	if (umount2(in("/home/agent"), 0) < 0)
		die("umount home");
	is_int(check(), -EPERM, "a home that is not home.path");
	bind(phome, "/home/agent", false);
	is_int(check(), -EPERM, "a home that is the passwd home");
	if (umount2(in("/home/agent"), 0) < 0)
		die("umount phome");
	pol.home.path = NULL;
	pol.home.tmpfs = true;
	expect();
	bind(home, "/home/agent", false);
	is_int(check(), -EPERM, "home \"tmpfs\" with a directory bound there");
	if (umount2(in("/home/agent"), 0) < 0)
		die("umount home 2");
	if (mount("tmpfs", in("/home/agent"), "tmpfs", 0, "mode=0700") < 0)
		die("home tmpfs");
	is_int(check(), 0, "home \"tmpfs\" with a tmpfs passes");
	if (umount2(in("/home/agent"), 0) < 0)
		die("umount home tmpfs");
	bind(home, "/home/agent", false);
	policy();
	is_int(check(), 0, "back to home.path");

	/* The hide list. */
	EDIT(mkdir_in("/home/alice"));
	is_int(check(), -EPERM, "a hidden /home that shows another home");
	EDIT(rmdir(in("/home/alice")));
	EDIT(file_in("/var/lib/state", "x"));
	is_int(check(), -EPERM, "a hidden directory with a file in it");
	EDIT(unlink(in("/var/lib/state")));
	EDIT(file_in("/etc/shadow", "root:x:\n"));
	is_int(check(), -EPERM, "a hidden file that is not empty");
	EDIT(file_in("/etc/shadow", ""));
	EDIT(file_in("/etc/ssh/host_a_key", "KEY"));
	is_int(check(), -EPERM, "a path a hide glob matches that is not empty");
	EDIT(file_in("/etc/ssh/host_a_key", ""));
	EDIT(mkdir_in("/srv/tools/x"));
	is_int(check(), 0,
	    "what lies below an extra bind under a hidden directory passes");
	EDIT(mkdir_in("/srv/data"));
	is_int(check(), -EPERM, "beside it, anything else is refused");
	EDIT(rmdir(in("/srv/data")));
	EDIT(mkdir_in("/run/other"));
	is_int(check(), -EPERM,
	    "a hidden symlink whose target shows more than an extra bind");
	EDIT(rmdir(in("/run/other")));
	EDIT(unlink(in("/etc/shadow")));
	is_int(check(), 0, "a hidden path that is missing passes");
	EDIT(file_in("/etc/shadow", ""));
	is_int(check(), 0, "and the view as built passes again");
}

int
main(void)
{
	char cmd[512];
	int st;
	pid_t pid;

	log_open("test_viewcheck", LOG_TO_STDERR);
	if (!mkdtemp(top))
		die("mkdtemp");
	snprintf(proj, sizeof(proj), "%s/project", top);
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(phome, sizeof(phome), "%s/passwd-home", top);
	snprintf(other, sizeof(other), "%s/other", top);
	snprintf(cmd, sizeof(cmd), "%s/.ssh", home);
	if (mkdir(proj, 0755) < 0 || mkdir(home, 0700) < 0 ||
	    mkdir(phome, 0700) < 0 || mkdir(other, 0755) < 0 ||
	    mkdir(cmd, 0700) < 0)
		die("mkdir");
	/* Below the home, which is placed over the hide list: not checked. */
	snprintf(cmd, sizeof(cmd), "%s/.ssh/authorized_keys", home);
	{
		int fd = open(cmd, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0 || write(fd, "ssh-ed25519 AAAA\n", 17) != 17)
			die("key");
		close(fd);
	}

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		uid_t uid = getuid();
		gid_t gid = getgid();

		if (uid == 0 ? unshare(CLONE_NEWNS) < 0
		             : (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 ||
		                   userns_map_self(uid, gid, NULL) < 0)) {
			printf("1..0 # SKIP no mount namespace here\n");
			_exit(0);
		}
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			die("private /");
		build();
		tests();
		st = tap_done();
		fflush(stdout);
		_exit(st);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		die("fork");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd) != 0)
		printf("# cleanup of %s failed\n", top);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
