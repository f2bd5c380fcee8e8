/*
 * ns.c: cloning init into the sandbox namespaces; init's uid/gid maps;
 * the sync protocol.  See ns.h and docs/architecture.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "ns.h"
#include "userns.h"
#include "util.h"

#define NS_FLAGS                                                               \
	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |           \
	    CLONE_NEWIPC | CLONE_NEWUTS)

enum { MSG_READY = 'R', MSG_GO = 'G' };

int
ns_spawn(int (*fn)(void *, int), void *arg, pid_t *ret_pid, int *ret_sync)
{
	struct clone_args ca;
	int sp[2];
	long pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return log_errno(-errno, "socketpair: %m");
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
		int r = -errno;

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
	char tag;
	int r, fd;

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
	r = ns_send(sync_fd, MSG_READY, -1);
	if (r < 0)
		return r;
	r = ns_recv(sync_fd, &tag, &fd);
	if (r < 0)
		return r;
	if (fd >= 0)
		close(fd);
	if (tag != MSG_GO)
		return log_errno(-EPROTO, "sync: unexpected message");
	return 0;
}

int
ns_outer_go(int sync_fd)
{
	char tag;
	int r, fd;

	r = ns_recv(sync_fd, &tag, &fd);
	if (r < 0)
		return r;
	if (fd >= 0)
		close(fd);
	if (tag != MSG_READY)
		return -EPROTO;
	return ns_send(sync_fd, MSG_GO, -1);
}

int
ns_send(int sync_fd, char tag, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = {.iov_base = &tag, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	while (sendmsg(sync_fd, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int
ns_recv(int sync_fd, char *ret_tag, int *ret_fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	char tag;
	struct iovec iov = {.iov_base = &tag, .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = cm.buf,
	    .msg_controllen = sizeof(cm.buf),
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd = -1;

	/* Never garbage, even on error. */
	*ret_tag = 0;
	*ret_fd = -1;
	while ((n = recvmsg(sync_fd, &mh, MSG_CMSG_CLOEXEC)) < 0)
		if (errno != EINTR)
			return -errno;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (n == 0) {
		if (fd >= 0)
			close(fd);
		return -EPIPE;
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	*ret_tag = tag;
	*ret_fd = fd;
	return 0;
}
