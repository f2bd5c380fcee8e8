/*
 * test_lockdown.c: lockdown_limit_userns, lockdown_inner, lockdown_init
 * and the seccomp filter, in namespaces this test builds itself (as the
 * session does, without the rest of the session):
 *
 *   test (root) -> child drops to TUID, unshares user+mount+pid
 *     -> "init" (pid 1): mounts /proc, lockdown_limit_userns, forks
 *        -> "inner": probes every syscall once (baseline), then
 *           lockdown_inner, then the postconditions and every probe
 *           again: denied ones must fail with EPERM (ENOSYS for clone3),
 *           the twins must still work.
 *        init: lockdown_init, then the inner checks that PID 1 cannot
 *        be traced or read.
 *
 * Results travel as "ok|not ok DESC" lines over a pipe (stdout of the
 * namespace processes) and are numbered here.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include "tap.h"
#include "lockdown.h"
#include "userns.h"
#include "util.h"
#include "../helpers/probe.h"

/* Not nobody: an id that reads as 65534 by accident (unmapped in a new
 * user namespace) must not pass for the caller's. */
#define TUID 26914

static uid_t caller_uid;
static gid_t caller_gid;

/* In the namespace processes: one result line, one write. */
static void
report(int cond, const char *fmt, ...)
{
	char buf[512];
	int n;
	va_list ap;

	n = snprintf(buf, sizeof(buf), "%d ", !!cond);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, (size_t)n) < 0)
		_exit(99);
}

static long
status_field(const char *name, int base)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	long v = -1;

	if (f == NULL)
		return -2;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, name, strlen(name)) == 0 &&
		    line[strlen(name)] == ':') {
			v = strtol(line + strlen(name) + 1, NULL, base);
			break;
		}
	fclose(f);
	return v;
}

/* Only 0, 1, 2 (and the directory being read) may be open. */
static int
only_std_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int bad = 0, fd;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd > 2 && fd != dirfd(d))
			bad++;
	}
	closedir(d);
	return bad == 0;
}

/* Probes whose unfiltered answer here is not EPERM: their EPERM after
 * the lockdown can only come from the filter. */
static int
baseline_matters(const struct probe *p)
{
	static const char *const names[] = {
	    "tiocsti",
	    "tiocsti_hibits",
	    "tioclinux",
	    "tioclinux_hibits",
	    "tiocsetd",
	    "tiocsetd_hibits",
	    "io_uring_setup",
	    "io_uring_enter",
	    "io_uring_register",
	    "socket_vsock",
	    "socket_vsock_hibits",
	    "setns",
	    "pers_read_implies_exec",
	    "pers_mmap_page_zero",
	    "pers_hibits",
	    "umount2",
	    "chroot",
	    "open_tree",
	    "perf_event_open",
	    "add_key",
	    "request_key",
	    "settimeofday",
	    "clock_settime",
	    "clock_adjtime",
	    "adjtimex",
	    "quotactl_fd",
	    "i386_tiocsti",
	    "i386_tiocsetd",
	    "i386_setns",
	    "i386_socket_vsock",
	    "i386_personality",
	    "i386_mount",
	};
	size_t i;

	for (i = 0; i < ELEMENTSOF(names); i++)
		if (strcmp(names[i], p->name) == 0)
			return 1;
	return 0;
}

static int
skip_probe(const struct probe *p, int have_i386, int have_x32)
{
	if (strncmp(p->name, "i386_", 5) == 0 && !have_i386)
		return 1;
	if (strncmp(p->name, "x32_", 4) == 0 && !have_x32)
		return 1;
	/* Needs the init side; checked separately below. */
	return strcmp(p->name, "ptrace_init") == 0 ||
	    strcmp(p->name, "vmread_init") == 0;
}

/*
 * A probe without the filter, in a child of its own (a probe may change
 * the process: an unshare that works moves it).  Probes that create a
 * user namespace are not run: the one slot max_user_namespaces leaves
 * belongs to lockdown_inner.
 */
static int
baseline(const struct probe *p)
{
	int st;
	pid_t c;

	if (strstr(p->name, "unshare_user") || strstr(p->name, "clone"))
		return -1;
	c = fork();
	if (c == 0)
		_exit(p->fn() & 0xff);
	if (c < 0 || waitpid(c, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void
inner(int sync_rd)
{
	int base[ELEMENTSOF(probes)];
	int have_i386 = 0, have_x32 = 0, e, r;
	size_t i;
	char c;

#if defined(__x86_64__)
	have_i386 = p_i386_getpid() == 0;
	have_x32 = p_x32_getpid() == 0;
#endif
	for (i = 0; i < ELEMENTSOF(probes); i++)
		base[i] = skip_probe(&probes[i], have_i386, have_x32)
		    ? -2
		    : baseline(&probes[i]);

	/* Inherited state the inner must not keep. */
	{
		sigset_t m;

		signal(SIGINT, SIG_IGN);
		sigemptyset(&m);
		sigaddset(&m, SIGTERM);
		if (sigprocmask(SIG_BLOCK, &m, NULL) < 0)
			_exit(98);
	}
	/* The sync pipe becomes stdin: it survives close_range. */
	if (dup2(sync_rd, 0) < 0)
		_exit(98);
	r = lockdown_inner();
	report(r == 0, "lockdown_inner succeeds (%d)", r);
	if (r < 0)
		_exit(1);

	report(status_field("CapEff", 16) == 0 &&
	        status_field("CapPrm", 16) == 0 &&
	        status_field("CapInh", 16) == 0 &&
	        status_field("CapBnd", 16) == 0 &&
	        status_field("CapAmb", 16) == 0,
	    "all capability sets are zero");
	report(status_field("NoNewPrivs", 10) == 1, "NoNewPrivs is 1");
	report(status_field("Seccomp", 10) == 2, "Seccomp is 2 (filter)");
	report(only_std_fds(), "only fds 0, 1, 2 are open");
	{
		struct sigaction sa;
		sigset_t m;

		report(sigaction(SIGINT, NULL, &sa) == 0 &&
		        sigprocmask(SIG_SETMASK, NULL, &m) == 0 &&
		        sa.sa_handler == SIG_DFL && !sigismember(&m, SIGTERM),
		    "an inherited ignored SIGINT and blocked SIGTERM are "
		    "reset");
	}
	report(geteuid() == caller_uid && getegid() == caller_gid,
	    "still the caller's uid and gid (%u:%u)", (unsigned)geteuid(),
	    (unsigned)getegid());

	for (i = 0; i < ELEMENTSOF(probes); i++) {
		const struct probe *p = &probes[i];
		int want;

		if (base[i] == -2) {
			if (strncmp(p->name, "i386_", 5) == 0 ||
			    strncmp(p->name, "x32_", 4) == 0)
				printf("1 %s # SKIP\n", p->name);
			fflush(stdout);
			continue;
		}
		e = p->fn();
		if (!p->denied) {
			report(e == 0,
			    "twin works under the lockdown: %s "
			    "(%s)",
			    p->name, strerrorname_np(e));
			continue;
		}
		want = strcmp(p->name, "clone3") == 0 ? ENOSYS : EPERM;
		report(e == want,
		    "denied under the lockdown: %s (%s, want "
		    "%s)",
		    p->name, e ? strerrorname_np(e) : "succeeded",
		    strerrorname_np(want));
		if (baseline_matters(p) && base[i] != -1)
			report(base[i] != EPERM,
			    "without the filter %s was "
			    "not EPERM (%s): the filter is what denies it",
			    p->name,
			    base[i] ? strerrorname_np(base[i]) : "succeeded");
	}

	/* Wait for init's own lockdown, then try to reach PID 1. */
	if (read(0, &c, 1) != 1)
		_exit(97);
	e = p_ptrace_init();
	report(e == EPERM, "ptrace(PTRACE_ATTACH) of PID 1 fails (%s)",
	    e ? strerrorname_np(e) : "succeeded");
	e = p_vmread_init();
	report(e == EPERM || e == ESRCH,
	    "process_vm_readv of PID 1 fails "
	    "(%s)",
	    e ? strerrorname_np(e) : "succeeded");
	_exit(0);
}

static void
init(void)
{
	int sync[2], st, r;
	pid_t in;

	/* A private /proc for this pid namespace, as the session's. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	        NULL) < 0) {
		report(0, "init: mount /proc: %s", strerror(errno));
		_exit(1);
	}
	r = lockdown_limit_userns();
	report(r == 0, "lockdown_limit_userns succeeds (%d)", r);
	if (pipe2(sync, O_CLOEXEC) < 0)
		_exit(1);
	in = fork();
	if (in == 0) {
		close(sync[1]);
		inner(sync[0]);
	}
	close(sync[0]);
	r = lockdown_init();
	report(r == 0, "lockdown_init succeeds (%d)", r);
	report(
	    status_field("CapEff", 16) == 0 && status_field("CapBnd", 16) == 0,
	    "init has no capabilities");
	report(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0, "init is not dumpable");
	if (write(sync[1], "g", 1) != 1)
		_exit(1);
	if (waitpid(in, &st, 0) < 0)
		_exit(1);
	report(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "inner exits cleanly "
	    "(status %#x)",
	    st);
	_exit(0);
}

/* Child of the test: become an unprivileged user with its own user,
 * mount and pid namespaces, then fork PID 1. */
static void
sandbox(void)
{
	uid_t uid;
	gid_t gid;
	int st;
	pid_t p;

	if (getuid() == 0 &&
	    (setgroups(0, NULL) < 0 || setgid(TUID) < 0 || setuid(TUID) < 0))
		_exit(3);
	/* setuid() cleared dumpable, which would hide /proc/self/uid_map. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		_exit(3);
	uid = caller_uid = getuid();
	gid = caller_gid = getgid();

	/*
	 * Fail closed: in a user namespace of its own where nesting was
	 * not limited, lockdown_inner's check finds that a nested one can
	 * still be made, and refuses.  (A sibling namespace: the ones it
	 * makes are freed lazily and must not count against the limit
	 * below.)
	 */
	p = fork();
	if (p == 0) {
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(1);
		if (userns_map_self(uid, gid, NULL) < 0)
			_exit(1);
		if (dup2(open("/dev/null", O_WRONLY), 2) < 0)
			_exit(1);
		_exit(lockdown_inner() == -EPERM ? 0 : 1);
	}
	report(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) &&
	        WEXITSTATUS(st) == 0,
	    "lockdown_inner refuses when nested "
	    "user namespaces are not limited");

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) < 0)
		_exit(2); /* no user namespaces here: skipped */
	if (userns_map_self(uid, gid, NULL) < 0)
		_exit(3);
	p = fork();
	if (p == 0)
		init();
	if (p < 0 || waitpid(p, &st, 0) < 0)
		_exit(3);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 4);
}

int
main(void)
{
	char line[600];
	int fds[2], st, got = 0;
	FILE *f;
	pid_t p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 1;
	fflush(stdout);
	p = fork();
	if (p == 0) {
		close(fds[0]);
		if (dup2(fds[1], 1) < 0)
			_exit(3);
		sandbox();
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		got++;
		if (strstr(line, " # SKIP")) {
			*strstr(line, " # SKIP") = '\0';
			tap_skip("ABI not in this kernel", line + 2);
			continue;
		}
		ok(line[0] == '1', "%s", line + 2);
	}
	waitpid(p, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2 && got == 0) {
		printf("1..0 # SKIP no unprivileged user namespaces\n");
		return 0;
	}
	is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0,
	    "namespace processes exit cleanly");
	return tap_done();
}
