/*
 * harden.c: what the gate gives up before it reads a byte from the
 * sandbox.
 *
 * Early (harden_early): die with aisb-shell (PDEATHSIG), not dumpable
 * (so nothing with the agent's uid can ptrace it or read its memory),
 * no core files, a fixed open-files limit, SIGPIPE ignored, the time
 * zone loaded (syslog's localtime would otherwise open a file later).
 *
 * Lockdown (harden_lockdown), after the policy, the resolver address
 * and syslog are set up: no_new_privs; a Landlock ruleset that handles
 * every filesystem right of the running kernel's ABI and grants none
 * (and, from ABI 6, scopes abstract unix sockets and signals); then a
 * seccomp allowlist of the syscalls the event loop makes, default
 * kill-process, compiled by libseccomp at build time
 * (seccomp_gate_rules.h) and installed as a constant.  The allowlist has no
 * open/openat/openat2, execve, ptrace, clone or bind: where Landlock is missing
 * (older kernels, LSM not enabled) seccomp alone keeps the gate off the
 * filesystem.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"
#include "seccomp_install.h"
#include "util.h"

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* Newer than Debian 12's headers: the ABI numbers say which exist. */
#define LL_FS_V1 ((1ULL << 13) - 1)
#define LL_FS_REFER (1ULL << 13) /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1) /* ABI 6 */

struct ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped; /* ABI 6 */
};

int
harden_early(void)
{
	struct rlimit nofile = {GATE_NOFILE, GATE_NOFILE};
	struct rlimit zero = {0, 0};
	struct rlimit cur = {RLIM_INFINITY, RLIM_INFINITY};
	size_t max;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
	    prctl(PR_SET_DUMPABLE, 0) < 0)
		return log_errno(-errno, "prctl: %m");
	if (getrlimit(RLIMIT_NOFILE, &cur) == 0 &&
	    cur.rlim_max != RLIM_INFINITY && cur.rlim_max < GATE_NOFILE)
		nofile.rlim_cur = nofile.rlim_max = cur.rlim_max;
	/*
	 * The soft limit is the cap that matters: setrlimit is not in the
	 * seccomp allowlist, so the gate can never raise it again.  (Under
	 * valgrind the hard limit cannot be changed.)
	 */
	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0) {
		nofile.rlim_max = cur.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &nofile) < 0)
			return log_errno(-errno, "setrlimit NOFILE: %m");
	}
	max = conn_set_nofile(nofile.rlim_cur);
	if (max < GATE_MAX_CONNS)
		log_record(LOG_NOTICE,
		    "RLIMIT_NOFILE hard limit %lu: at most %zu concurrent "
		    "connections (%d with a limit of %d)",
		    (unsigned long)nofile.rlim_cur, max, GATE_MAX_CONNS,
		    GATE_NOFILE);
	(void)setrlimit(RLIMIT_CORE, &zero);
	signal(SIGPIPE, SIG_IGN);
	tzset();
	return 0;
}

/* Returns the ABI used, 0 when the kernel has no Landlock. */
static int
landlock(void)
{
	struct ll_attr a = {0};
	size_t size = sizeof(uint64_t);
	long abi;
	int fd;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0) {
		if (errno == ENOSYS || errno == EOPNOTSUPP)
			return 0;
		return -errno;
	}
	a.handled_access_fs = LL_FS_V1;
	if (abi >= 2)
		a.handled_access_fs |= LL_FS_REFER;
	if (abi >= 3)
		a.handled_access_fs |= LL_FS_TRUNCATE;
	if (abi >= 5)
		a.handled_access_fs |= LL_FS_IOCTL_DEV;
	if (abi >= 4)
		size = 2 * sizeof(uint64_t);
	if (abi >= 6) {
		a.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		size = sizeof(a);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &a, size, 0);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	return (int)abi;
}

/*
 * The allowlist, compiled by libseccomp at build time from
 * seccomp_gate_rules.h (see there): seccomp_gate_bpf_kill[] (default
 * kill-process) and seccomp_gate_bpf_eperm[] (default EPERM).
 */
#include "seccomp_gate_bpf.h"

/*
 * Sanitizer runtimes make calls of their own (sigaltstack, reading
 * /proc/self/maps on a report): an ASan build answers EPERM instead of
 * killing, so a report still gets printed.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SECCOMP_BPF seccomp_gate_bpf_eperm
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SECCOMP_BPF seccomp_gate_bpf_eperm
#endif
#endif
#ifndef SECCOMP_BPF
#define SECCOMP_BPF seccomp_gate_bpf_kill
#endif

static int
seccomp(void)
{
	return seccomp_install(SECCOMP_BPF, ELEMENTSOF(SECCOMP_BPF));
}

/* no_new_privs and Landlock: the lockdown up to the seccomp allowlist. */
static int
confine(void)
{
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return log_errno(-errno, "no_new_privs: %m");
	r = landlock();
	if (r < 0)
		return log_errno(r, "Landlock: %m");
	if (r == 0)
		log_debug("no Landlock in this kernel: the seccomp allowlist "
		          "(no open/openat) keeps the gate off the filesystem");
	return 0;
}

int
harden_lockdown(void)
{
	int r = confine();

	if (r < 0)
		return r;
	r = seccomp();
	if (r < 0)
		return log_errno(r, "seccomp: %m");
	return 0;
}

#ifdef AISB_GATE_TEST
int
harden_lockdown_no_seccomp(void)
{
	int r = confine();

	if (r == 0)
		log_warn("seccomp allowlist disabled (--debug-no-seccomp)");
	return r;
}
#endif
