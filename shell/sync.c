/*
 * sync.c: the outer <-> init sync protocol.  See sync.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sync.h"

enum {
	MSG_READY = 'R',
	MSG_GO = 'G',
	MSG_TTY = 'T',
	MSG_NOTTY = 'N',
};

int
sync_pair(int sp[2])
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return -errno;
	return 0;
}

/* One message: a tag byte, optionally with an fd (SCM_RIGHTS). */
static int
send_msg(int sync_fd, char tag, int fd)
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

/* Receive one; *ret_fd is -1 when none came.  -EPIPE on EOF. */
static int
recv_msg(int sync_fd, char *ret_tag, int *ret_fd)
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

/* A message that carries no fd: anything else is -EPROTO. */
static int
recv_plain(int sync_fd, char want)
{
	char tag;
	int r, fd;

	r = recv_msg(sync_fd, &tag, &fd);
	if (r < 0)
		return r;
	if (fd >= 0)
		close(fd);
	return tag == want && fd < 0 ? 0 : -EPROTO;
}

int
sync_send_ready(int sync_fd)
{
	return send_msg(sync_fd, MSG_READY, -1);
}

int
sync_recv_ready(int sync_fd)
{
	return recv_plain(sync_fd, MSG_READY);
}

int
sync_send_go(int sync_fd)
{
	return send_msg(sync_fd, MSG_GO, -1);
}

int
sync_recv_go(int sync_fd)
{
	return recv_plain(sync_fd, MSG_GO);
}

int
sync_send_tty(int sync_fd, int master)
{
	if (master < 0)
		return -EBADF;
	return send_msg(sync_fd, MSG_TTY, master);
}

int
sync_send_notty(int sync_fd)
{
	return send_msg(sync_fd, MSG_NOTTY, -1);
}

int
sync_recv_tty(int sync_fd, int *ret_master)
{
	char tag;
	int r, fd;

	*ret_master = -1;
	r = recv_msg(sync_fd, &tag, &fd);
	if (r < 0)
		return r;
	if ((tag == MSG_TTY && fd >= 0) || (tag == MSG_NOTTY && fd < 0)) {
		*ret_master = fd;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	return -EPROTO;
}
