/*
 * lockdown.c: the privilege drop of the inner and of init.
 *
 * Order (as bubblewrap's --disable-userns does it):
 *   init:  max_user_namespaces = 1 in the first-level user namespace.
 *   inner: a second-level userns takes that one slot, so nothing inside
 *          can nest another (checked by a failing unshare); capng_lock
 *          while CAP_SETPCAP is still there (securebits, no_new_privs),
 *          then clear and apply ALL sets (bounding and ambient too, and
 *          after the userns step: a new userns hands out a full set
 *          again); the seccomp filter; close every fd above 2; then
 *          the postconditions, read back from /proc/self/status.
 * Each step is checked; any failure means no session (exit 77).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cap-ng.h>

#include "init.h"
#include "kfile.h"
#include "lockdown.h"
#include "log.h"
#include "seccomp_deny.h"
#include "userns.h"
#include "util.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif

int
lockdown_limit_userns(void)
{
	int r;

	/*
	 * The limit counts user namespaces created below this one, per
	 * user: with 1, the inner's own second-level userns is the last
	 * one anything in the sandbox can make (ENOSPC afterwards).
	 */
	r = userns_limit_nested(1);
	if (r < 0)
		return log_errno(r,
		    "cannot limit nested user namespaces "
		    "(write /proc/sys/user/max_user_namespaces): %m");
	return 0;
}

/* A second-level user namespace with the uid and gid mapped to
 * themselves, setgroups denied as in the first level. */
static int
enter_userns(void)
{
	/* Read before the unshare: in the new namespace they are unmapped
	 * (the overflow id) until the maps are written. */
	uid_t uid = geteuid();
	gid_t gid = getegid();
	const char *what = "";
	int r;

	if (unshare(CLONE_NEWUSER) < 0)
		return log_errno(-errno,
		    "cannot enter the inner user "
		    "namespace: %m");
	if ((r = userns_map_self(uid, gid, &what)) < 0)
		return log_errno(r, "inner user namespace: %s: %m", what);

	/* The check bubblewrap makes: nesting must now be impossible. */
	if (unshare(CLONE_NEWUSER) == 0)
		return log_errno(-EPERM,
		    "a nested user namespace could still "
		    "be created; refusing to continue");
	return 0;
}

/*
 * Every capability set, bounding and ambient included.  capng_lock
 * first: it sets the securebits (NOROOT, NO_SETUID_FIXUP, locked), which
 * needs CAP_SETPCAP, and no_new_privs.  After the apply it would fail.
 */
static int
drop_caps(bool lock)
{
	int r;

	/*
	 * libcap-ng captured the pid of the process that loaded it; after
	 * clone() into a new pid namespace that pid means nothing here and
	 * capset() would refuse it.
	 */
	capng_setpid(getpid());
	if (lock && (r = capng_lock()) < 0)
		return log_errno(-EPERM, "capng_lock failed (%d)", r);
	capng_clear(CAPNG_SELECT_ALL);
	if ((r = capng_apply(CAPNG_SELECT_ALL)) < 0)
		return log_errno(-EPERM,
		    "cannot drop capabilities: "
		    "capng_apply failed (%d)",
		    r);
	return 0;
}

/*
 * Parse "Name:\tvalue" from /proc/self/status.  The file is read into a
 * buffer first: nothing else is open, and stdio would need no more.
 */
struct status {
	uint64_t cap[5]; /* Inh, Prm, Eff, Bnd, Amb */
	int nnp;
	int seccomp;
	int found;
};

static const char *const cap_names[5] = {
    "CapInh:",
    "CapPrm:",
    "CapEff:",
    "CapBnd:",
    "CapAmb:",
};

static int
read_status(struct status *st)
{
	char buf[8192], *line, *save = NULL, *end;
	ssize_t n;
	int i;

	memset(st, 0, sizeof(*st));
	st->nnp = st->seccomp = -1;
	n = kfile_read_at(AT_FDCWD, "/proc/self/status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		for (i = 0; i < 5; i++)
			if (strncmp(line, cap_names[i], strlen(cap_names[i])) ==
			    0) {
				errno = 0;
				st->cap[i] = strtoull(
				    line + strlen(cap_names[i]), &end, 16);
				if (errno == 0 &&
				    end != line + strlen(cap_names[i]))
					st->found |= 1 << i;
			}
		if (strncmp(line, "NoNewPrivs:", 11) == 0) {
			st->nnp = atoi(line + 11);
			st->found |= 1 << 5;
		}
		if (strncmp(line, "Seccomp:", 8) == 0) {
			st->seccomp = atoi(line + 8);
			st->found |= 1 << 6;
		}
	}
	return st->found == 0x7f ? 0 : -EBADMSG;
}

static int
verify_status(void)
{
	struct status st;
	int i, r;

	if ((r = read_status(&st)) < 0)
		return log_errno(r,
		    "lockdown check: cannot read "
		    "/proc/self/status: %m");
	for (i = 0; i < 5; i++)
		if (st.cap[i] != 0)
			return log_errno(-EPERM,
			    "lockdown check: %s is "
			    "%016" PRIx64 ", want 0",
			    cap_names[i], st.cap[i]);
	if (st.nnp != 1)
		return log_errno(-EPERM,
		    "lockdown check: NoNewPrivs is %d, "
		    "want 1",
		    st.nnp);
	if (st.seccomp != 2)
		return log_errno(-EPERM,
		    "lockdown check: Seccomp is %d, "
		    "want 2 (filter)",
		    st.seccomp);
	return 0;
}

int
lockdown_inner(void)
{
	int r;

	if ((r = init_signals_reset()) < 0)
		return r;
	if ((r = enter_userns()) < 0)
		return r;
	if ((r = drop_caps(true)) < 0)
		return r;
	/* capng_lock sets it; be explicit and check what the kernel says. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return log_errno(-EPERM, "cannot set no_new_privs: %m");
	if ((r = seccomp_deny_install()) < 0)
		return log_errno(r, "cannot install the seccomp filter: %m");
	/*
	 * Only 0, 1 and 2 reach the inner command: a descriptor inherited
	 * from sshd, su or the caller is a capability (docs/threat-model.md,
	 * inherited file descriptors).
	 */
	if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
		return log_errno(-errno, "cannot close inherited fds: %m");
	return verify_status();
}

int
lockdown_init(void)
{
	int r;

	if ((r = drop_caps(true)) < 0)
		return r;
	/* Read back from the kernel: no effective, permitted or
	 * inheritable capability is left. */
	if (capng_get_caps_process() < 0 ||
	    capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE)
		return log_errno(-EPERM, "init: capabilities are still there");
	/*
	 * Not dumpable: nothing inside may ptrace PID 1, read its memory
	 * (process_vm_readv) or open its /proc files; they become owned
	 * by the namespace's root, which the inner is not.
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
	    prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
		return log_errno(-EPERM, "init: cannot clear dumpable: %m");
	return 0;
}
