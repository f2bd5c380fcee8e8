/*
 * ns.c: cloning init into the sandbox namespaces; init's uid/gid maps
 * and its first handshake.  See ns.h and docs/architecture.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "ns.h"
#include "sync.h"
#include "userns.h"

#define NS_FLAGS                                                               \
	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |           \
	    CLONE_NEWIPC | CLONE_NEWUTS)

int
ns_spawn(int (*fn)(void *, int), void *arg, pid_t *ret_pid, int *ret_sync)
{
	struct clone_args ca;
	int sp[2], r;
	long pid;

	if ((r = sync_pair(sp)) < 0)
		return log_errno(r, "socketpair: %m");
	memset(&ca, 0, sizeof(ca));
	ca.flags = NS_FLAGS;
	ca.exit_signal = SIGCHLD;
	/*
	 * clone3 without a stack behaves like fork: the child continues
	 * here on a copy-on-write copy of our stack.  glibc keeps no pid
	 * cache since 2.25, so getpid() and raise() stay right.
	 */
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0) {
		r = -errno;

		close(sp[0]);
		close(sp[1]);
		if (r == -EPERM || r == -ENOSPC || r == -EACCES || r == -EINVAL)
			return log_errno(r,
			    "cannot create the sandbox "
			    "namespaces (clone: %m); unprivileged user "
			    "namespaces must be enabled (sysctl "
			    "user.max_user_namespaces > 0; on Ubuntu see "
			    "kernel.apparmor_restrict_unprivileged_userns)");
		return log_errno(r, "clone: %m");
	}
	if (pid == 0) {
		close(sp[0]);
		_exit(fn(arg, sp[1]));
	}
	close(sp[1]);
	*ret_pid = (pid_t)pid;
	*ret_sync = sp[0];
	return 0;
}

int
ns_init_begin(int sync_fd, uid_t uid, gid_t gid)
{
	const char *what = "";
	int r;

	r = userns_map_self(uid, gid, &what);
	if (r < 0)
		return log_errno(r, "%s: %m", what);
	/*
	 * From here on the outer's death kills us.  The outer may already
	 * be gone: then "ready" fails with EPIPE or "go" never comes (EOF),
	 * and we leave without building anything.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return log_errno(-errno, "PR_SET_PDEATHSIG: %m");
	r = sync_send_ready(sync_fd);
	if (r == 0)
		r = sync_recv_go(sync_fd);
	if (r == -EPROTO)
		return log_errno(r, "sync: unexpected message");
	return r;
}
