/*
 * test_cgroup_limits.c: the session cgroup of shell/sesslimits.c on this
 * host's real cgroups.  As root, a child is delegated a cgroup
 * (lib/cgroup.c, as pam_aisb does), drops to an unprivileged uid and
 * plays the outer of aisb-shell: sesslimits_setup, fork a stand-in for init,
 * sesslimits_attach, then a memory hog is OOM-killed at the limit, a fork
 * loop stops at pids.max, and sesslimits_teardown leaves nothing behind.
 * Strict mode without delegation refuses with one line; best-effort
 * starts.  The end-to-end versions with aisb-shell are tests/limits/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <sched.h>
#include <grp.h>

#include "tap.h"
#include "cgroup.h"
#include "policy.h"
#include "sesslimits.h"
#include "log.h"
#include "util.h"

#define TUID 26902
#define TGID 26902

static struct cgroup_host host;

/* A test child's TAP counts, sent to its parent over fd: false when the
 * write fails. */
static bool
counts_send(int fd)
{
	int counts[2] = {tap_n, tap_failed};

	return write(fd, counts, sizeof(counts)) == sizeof(counts);
}

/* The parent goes on from the counts its child sent over fd (when it
 * sent them). */
static void
counts_take(int fd)
{
	int counts[2];

	if (read(fd, counts, sizeof(counts)) == sizeof(counts)) {
		tap_n = counts[0];
		tap_failed = counts[1];
	}
}

/* Run fn in a child, as TUID, delegated or not; its TAP lines count. */
static void
as_user(bool delegate, void (*fn)(const char *key))
{
	char key[CGROUP_KEYLEN] = "";
	int report[2], st;
	pid_t pid;

	if (pipe2(report, O_CLOEXEC) < 0)
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(report[0]);
		if (delegate &&
		    cgroup_delegate("tlimunit2", TUID, TGID, getpid(), key,
		        sizeof(key)) < 0)
			_exit(90);
		if (write(report[1], key, sizeof(key)) != sizeof(key))
			_exit(91);
		if (setgroups(0, NULL) < 0 || setresgid(TGID, TGID, TGID) < 0 ||
		    setresuid(TUID, TUID, TUID) < 0)
			_exit(92);
		fn(key);
		if (!counts_send(report[1]))
			_exit(93);
		_exit(0);
	}
	close(report[1]);
	if (read(report[0], key, sizeof(key)) != sizeof(key))
		key[0] = '\0';
	counts_take(report[0]);
	close(report[0]);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the test child finished (status %d)", st);
	if (key[0])
		is_int(cgroup_reap(key), 0, "delegated cgroup reaped");
}

static struct aisb_policy pol;

static void
policy_set(enum aisb_enforce e)
{
	memset(&pol, 0, sizeof(pol));
	pol.limits.memory = 32 << 20;
	pol.limits.pids = 16;
	pol.limits.cpu = 50;
	pol.limits.enforce = e;
}

/* Capture what fn logs to stderr. */
static int
stderr_to(int *saved)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	*saved = dup(2);
	dup2(p[1], 2);
	close(p[1]);
	return p[0];
}

static void
stderr_back(int saved, int rd, char *buf, size_t len)
{
	ssize_t n;

	dup2(saved, 2);
	close(saved);
	n = read(rd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(rd);
}

static int
count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void
undelegated(const char *key)
{
	struct sesslimits_state *st = NULL;
	char buf[4096];
	int saved, rd, r;

	(void)key;
	policy_set(AISB_ENFORCE_STRICT);
	rd = stderr_to(&saved);
	r = sesslimits_setup(&pol, "t1", &st);
	stderr_back(saved, rd, buf, sizeof(buf));
	is_int(r, -EOPNOTSUPP, "strict, no delegated cgroup: refused");
	ok(count_lines(buf) == 1 &&
	        strstr(buf,
	            "limits.memory = 32M cannot "
	            "be enforced: no delegated cgroup (add pam_aisb") &&
	        strstr(buf, "limits.enforce = \"best-effort\""),
	    "one line names the limit and both fixes");
	printf("# %s", buf);

	/* Best-effort: each limit and its reason in the record (the log's
	 * fallback file stands for syslog here), stderr (a pipe, not a
	 * terminal) quiet by default, one line with "always". */
	policy_set(AISB_ENFORCE_BEST_EFFORT);
	{
		char rec[4096] = "";
		int lf = memfd_create("rec", MFD_CLOEXEC);
		ssize_t n;

		log_set_fallback(lf);
		rd = stderr_to(&saved);
		r = sesslimits_setup(&pol, "t2", &st);
		stderr_back(saved, rd, buf, sizeof(buf));
		log_set_fallback(-1);
		n = pread(lf, rec, sizeof(rec) - 1, 0);
		rec[n > 0 ? n : 0] = '\0';
		close(lf);
		is_int(r, 0, "best-effort, no delegated cgroup: starts");
		ok(count_lines(rec) == 3 &&
		        strstr(rec,
		            "session-t2: limits.memory = 32M not "
		            "enforced") &&
		        strstr(rec, "limits.pids = 16 not enforced") &&
		        strstr(rec, "limits.cpu = \"50%\" not enforced"),
		    "best-effort: the record has each limit not enforced");
		is_str(buf, "", "best-effort, stderr not a terminal: quiet");
		sesslimits_teardown(st);
	}
	pol.limits.notices = AISB_NOTICES_ALWAYS;
	rd = stderr_to(&saved);
	r = sesslimits_setup(&pol, "t2b", &st);
	stderr_back(saved, rd, buf, sizeof(buf));
	is_int(r, 0, "best-effort, notices always: starts");
	ok(count_lines(buf) == 1 &&
	        strstr(buf,
	            "aisb: not enforced on this host (limits.enforce = "
	            "\"best-effort\"): limits.memory = 32M, limits.pids = "
	            "16, limits.cpu = \"50%\"; the system log says why"),
	    "best-effort, notices always: one stderr line lists them all");
	printf("# %s", buf);
	sesslimits_teardown(st);
	pol.limits.notices = AISB_NOTICES_TERMINAL;

	pol.limits.memory = pol.limits.pids = pol.limits.cpu = 0;
	pol.limits.enforce = AISB_ENFORCE_STRICT;
	r = sesslimits_setup(&pol, "t3", &st);
	is_int(r, 0, "strict without cgroup limits and no delegation: starts");
	sesslimits_teardown(st);
}

static int
dir_of(const char *key, enum cgroup_ctl c, const char *sub)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s%s%s",
	    host.mode == CGROUP_V2 ? host.root : host.v1root[c], key + 3,
	    sub ? "/" : "", sub ? sub : "");
	return open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static unsigned long long
read_num(int dfd, const char *file)
{
	char buf[64];

	if (cgroup_read(dfd, file, buf, sizeof(buf)) < 0)
		return 0;
	return strtoull(buf, NULL, 10);
}

/* A stand-in for init: waits for a byte, then runs what it is told. */
static pid_t
spawn(int *go, void (*fn)(void))
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		fn();
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void
hog(void)
{
	size_t sz = 256 << 20, i;
	char *m = mmap(NULL, sz, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		_exit(2);
	for (i = 0; i < sz; i += 4096)
		m[i] = 1;
	_exit(3); /* not reached when the limit holds */
}

/* Fork until refused; exit with how many forks worked (bounded). */
static void
forker(void)
{
	int n;

	for (n = 0; n < 200; n++) {
		pid_t p = fork();

		if (p < 0)
			_exit(errno == EAGAIN ? n : 250);
		if (p == 0) {
			pause();
			_exit(0);
		}
	}
	_exit(200);
}

static void
sleeper(void)
{
	for (;;)
		pause();
}

static void
delegated(const char *key)
{
	struct sesslimits_state *st = NULL;
	int go, sfd, status, r;
	enum cgroup_ctl c;
	pid_t pid;

	if (host.mode == CGROUP_V2) {
		char buf[256] = "";
		int dfd = dir_of(key, CGROUP_MEMORY, NULL);

		if (dfd >= 0)
			cgroup_read(
			    dfd, "cgroup.subtree_control", buf, sizeof(buf));
		if (dfd >= 0)
			close(dfd);
		if (!strstr(buf, "memory") || !strstr(buf, "pids") ||
		    !strstr(buf, "cpu")) {
			tap_skip(
			    "this cgroup2 host cannot delegate memory, "
			    "pids and cpu (e.g. a container whose cgroup root "
			    "holds processes)",
			    "session cgroup limits");
			return;
		}
	}
	policy_set(AISB_ENFORCE_STRICT);
	r = sesslimits_setup(&pol, "u1", &st);
	is_int(r, 0, "strict, delegated: sesslimits_setup");
	if (r < 0)
		return;
	for (c = CGROUP_MEMORY; c <= CGROUP_CPU; c++) {
		sfd = dir_of(key, c, "session-u1");
		ok(sfd >= 0, "session cgroup exists (%s)", cgroup_ctl_name(c));
		if (sfd < 0)
			continue;
		if (c == CGROUP_MEMORY && host.mode == CGROUP_V1) {
			is_int(read_num(sfd, "memory.limit_in_bytes"), 32 << 20,
			    "v1 memory.limit_in_bytes");
			if (faccessat(sfd, "memory.memsw.limit_in_bytes", F_OK,
			        0) == 0)
				is_int(read_num(
				           sfd, "memory.memsw.limit_in_bytes"),
				    32 << 20,
				    "v1 memory.memsw.limit_in_bytes: no swap");
		} else if (c == CGROUP_MEMORY) {
			is_int(read_num(sfd, "memory.max"), 32 << 20,
			    "v2 memory.max");
			if (faccessat(sfd, "memory.swap.max", F_OK, 0) == 0)
				is_int(read_num(sfd, "memory.swap.max"), 0,
				    "v2 memory.swap.max: no swap");
		} else if (c == CGROUP_PIDS) {
			is_int(read_num(sfd, "pids.max"), 16, "pids.max");
		} else if (host.mode == CGROUP_V1) {
			is_int(read_num(sfd, "cpu.cfs_quota_us"), 50000,
			    "v1 cpu.cfs_quota_us for 50%%");
			is_int(read_num(sfd, "cpu.cfs_period_us"), 100000,
			    "v1 cpu.cfs_period_us");
		} else {
			is_int(read_num(sfd, "cpu.max"), 50000, "v2 cpu.max");
		}
		close(sfd);
	}

	pid = spawn(&go, hog);
	is_int(sesslimits_attach(st, pid), 0, "sesslimits_attach");
	ok(!sesslimits_oom_happened(st), "no OOM reported before the hog runs");
	if (write(go, "x", 1) != 1)
		abort();
	close(go);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "a 256M hog under a 32M limit is killed (status %d)", status);
	ok(sesslimits_oom_happened(st), "sesslimits_oom_happened reports it");

	pid = spawn(&go, forker);
	sesslimits_attach(st, pid);
	if (write(go, "x", 1) != 1)
		abort();
	close(go);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) < 16,
	    "a fork loop stops below pids.max = 16 (%d forks)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	pid = fork();
	if (pid == 0)
		_exit(7);
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	        WEXITSTATUS(status) == 7,
	    "the outer, outside the session "
	    "cgroup, can still fork");

	pid = spawn(&go, sleeper);
	sesslimits_attach(st, pid);
	sesslimits_teardown(st);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "sesslimits_teardown kills what is left in the session");
	close(go);
	for (c = CGROUP_MEMORY; c < CGROUP_NCTL; c++) {
		if (host.mode == CGROUP_V2 && c > 0)
			break;
		if (host.mode == CGROUP_V1 && !host.v1root[c])
			continue;
		sfd = dir_of(key, c, "session-u1");
		ok(sfd < 0 && errno == ENOENT, "session cgroup removed (%s)",
		    cgroup_ctl_name(c));
		if (sfd >= 0)
			close(sfd);
	}
}

/*
 * The v2 code of sesslimits.c on a v1 host: cgroup2 carries no controller
 * here, but mounted over /sys/fs/cgroup in a private mount namespace it
 * makes the host look unified.  Strict mode must then name the
 * controller that is not delegated; best-effort still makes the session
 * cgroup, moves init into it and tears it down with cgroup.kill.
 */
static void
v2_session(const char *key)
{
	struct sesslimits_state *st = NULL;
	char buf[4096], cg[512], want[256];
	int saved, rd, r, status, go;
	char *p;
	pid_t pid;

	policy_set(AISB_ENFORCE_STRICT);
	rd = stderr_to(&saved);
	r = sesslimits_setup(&pol, "v2", &st);
	stderr_back(saved, rd, buf, sizeof(buf));
	is_int(r, -EOPNOTSUPP, "v2, controllers not delegated: strict refuses");
	ok(count_lines(buf) == 1 &&
	        strstr(buf,
	            "limits.memory = 32M cannot be enforced: the memory "
	            "controller is not delegated to /sys/fs/cgroup/aisb/"),
	    "v2: one line names the limit and the missing controller");
	printf("# %s", buf);

	policy_set(AISB_ENFORCE_BEST_EFFORT);
	pol.limits.notices = AISB_NOTICES_ALWAYS;
	rd = stderr_to(&saved);
	r = sesslimits_setup(&pol, "v2", &st);
	stderr_back(saved, rd, buf, sizeof(buf));
	pol.limits.notices = AISB_NOTICES_TERMINAL;
	is_int(r, 0, "v2, best-effort: starts");
	is_int(count_lines(buf), 1,
	    "v2, best-effort (notices always): one line for every limit");
	pid = spawn(&go, sleeper);
	is_int(sesslimits_attach(st, pid), 0, "v2: sesslimits_attach");
	snprintf(want, sizeof(want), "%s/session-v2", key + 3);
	p = NULL;
	cgroup_path_of(&host, CGROUP_MEMORY, pid, &p);
	snprintf(buf, sizeof(buf), "%s", p ? p : "(none)");
	free(p);
	is_str(buf, want, "v2: init moved into the session cgroup");
	sesslimits_teardown(st);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "v2: sesslimits_teardown kills what is left (cgroup.kill)");
	close(go);
	snprintf(cg, sizeof(cg), "/sys/fs/cgroup/%s/session-v2", key + 3);
	ok(access(cg, F_OK) < 0 && errno == ENOENT,
	    "v2: session cgroup removed");
}

/*
 * The shape systemd 252 gives a unit with Delegate= (no
 * DelegateSubgroup=): the unit's cgroup belongs to the user and
 * aisb-shell runs in it.  sesslimits_setup must first move itself into the
 * unit's child "login", or v2 could give the session cgroup beside it no
 * controller.  Runs as root inside v2_emulated's cgroup2 mount.
 */
static void
v2_unit(void)
{
	static const char *const files[] = {
	    "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"};
	char unit[64], f[128], pid[16], buf[512];
	int pp[2], st, fd;
	size_t i;
	pid_t child;

	snprintf(unit, sizeof(unit), "/sys/fs/cgroup/tunit-%d", (int)getpid());
	if (mkdir(unit, 0755) < 0 || chown(unit, TUID, TGID) < 0)
		abort();
	for (i = 0; i < ELEMENTSOF(files); i++) {
		snprintf(f, sizeof(f), "%s/%s", unit, files[i]);
		if (chown(f, TUID, TGID) < 0)
			abort();
	}
	if (pipe2(pp, O_CLOEXEC) < 0)
		abort();
	fflush(stdout);
	child = fork();
	if (child == 0) {
		struct sesslimits_state *ls = NULL;
		char *p = NULL;
		int saved, rd, r;

		close(pp[0]);
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		fd = open(unit, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || cgroup_write(fd, "cgroup.procs", pid) < 0)
			_exit(90);
		if (setgroups(0, NULL) < 0 || setresgid(TGID, TGID, TGID) < 0 ||
		    setresuid(TUID, TUID, TUID) < 0)
			_exit(92);
		policy_set(AISB_ENFORCE_BEST_EFFORT);
		rd = stderr_to(&saved);
		r = sesslimits_setup(&pol, "unit", &ls);
		stderr_back(saved, rd, buf, sizeof(buf));
		is_int(
		    r, 0, "v2 unit (Delegate=, no subgroup): sesslimits_setup");
		cgroup_path_of(&host, CGROUP_MEMORY, 0, &p);
		snprintf(buf, sizeof(buf), "%s", p ? p : "(none)");
		free(p);
		snprintf(
		    f, sizeof(f), "%s/login", unit + strlen("/sys/fs/cgroup/"));
		is_str(buf, f,
		    "v2 unit: aisb-shell moved itself into the unit's login "
		    "child");
		snprintf(f, sizeof(f), "%s/session-unit", unit);
		ok(access(f, F_OK) == 0,
		    "v2 unit: the session cgroup beside it");
		snprintf(f, sizeof(f), "%s/cgroup.procs", unit);
		fd = open(f, O_RDONLY);
		ok(fd >= 0 && read(fd, buf, sizeof(buf)) == 0,
		    "v2 unit: the unit's own cgroup holds no process");
		sesslimits_teardown(ls);
		snprintf(f, sizeof(f), "%s/session-unit", unit);
		ok(access(f, F_OK) < 0, "v2 unit: session cgroup removed");
		if (!counts_send(pp[1]))
			_exit(93);
		_exit(0);
	}
	close(pp[1]);
	counts_take(pp[0]);
	close(pp[0]);
	waitpid(child, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the unit test child finished (status %d)", st);
	snprintf(f, sizeof(f), "%s/login", unit);
	(void)rmdir(f);
	(void)rmdir(unit);
}

static void
v2_emulated(void)
{
	int pp[2], st;
	pid_t pid;

	if (pipe2(pp, O_CLOEXEC) < 0)
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(pp[0]);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL) < 0) {
			tap_skip("cannot mount cgroup2 in a private mount "
			         "namespace",
			    "v2 code paths on a v1 host");
		} else {
			cgroup_host_free(&host);
			if (cgroup_host_probe(&host) == 0 &&
			    host.mode == CGROUP_V2) {
				as_user(true, v2_session);
				v2_unit();
			} else
				tap_skip("cgroup2 over /sys/fs/cgroup was not "
				         "seen as v2",
				    "v2 code paths on a v1 host");
		}
		if (!counts_send(pp[1]))
			_exit(1);
		_exit(0);
	}
	close(pp[1]);
	counts_take(pp[0]);
	close(pp[0]);
	waitpid(pid, &st, 0);
}

int
main(void)
{
	if (geteuid() != 0) {
		tap_skip("needs root", "session cgroup tests");
		return tap_done();
	}
	if (cgroup_host_probe(&host) < 0 || host.mode == CGROUP_NONE) {
		tap_skip("this kernel has no cgroup hierarchy", "limits");
		return tap_done();
	}
	as_user(false, undelegated);
	as_user(true, delegated);
	if (host.mode == CGROUP_V1)
		v2_emulated();
	cgroup_host_free(&host);
	return tap_done();
}
