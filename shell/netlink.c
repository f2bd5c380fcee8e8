/*
 * netlink.c: netlink sockets, sequence numbers and ACKs for init's
 * network setup.  See netlink.h.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "netlink.h"

/* Replies to a request we sent are queued while the kernel handles it;
 * the timeout only turns a kernel that never answers into an error. */
#define NETLINK_TIMEOUT_S 2

static uint32_t netlink_last;

uint32_t
netlink_seq(void)
{
	if (netlink_last == 0)
		netlink_last = (uint32_t)time(NULL);
	return netlink_last++;
}

struct mnl_socket *
netlink_open(int bus)
{
	struct mnl_socket *nl;
	struct timeval tv = {.tv_sec = NETLINK_TIMEOUT_S};
	int e;

	nl = mnl_socket_open2(bus, SOCK_CLOEXEC);
	if (nl == NULL)
		return NULL;
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
	        sizeof(tv)) < 0 ||
	    mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		e = errno;
		mnl_socket_close(nl);
		errno = e;
		return NULL;
	}
	return nl;
}

void
netlink_closep(struct mnl_socket **nl)
{
	if (*nl != NULL)
		mnl_socket_close(*nl);
}

int
netlink_acks(struct mnl_socket *nl, uint32_t seq0, unsigned n, int *bad)
{
	char buf[8192] __attribute__((aligned(4)));
	uint32_t portid = mnl_socket_get_portid(nl), seen = 0;
	unsigned got = 0;
	int first = 0, flags = 0;

	if (n > 32)
		return -E2BIG;
	*bad = -1;
	while (got < n) {
		const struct nlmsghdr *nlh;
		ssize_t len =
		    recv(mnl_socket_get_fd(nl), buf, sizeof(buf), flags);

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && first != 0)
			break;
		if (len < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		nlh = (const struct nlmsghdr *)buf;
		for (int left = (int)len; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			const struct nlmsgerr *e;
			int64_t i = (int64_t)nlh->nlmsg_seq - seq0;

			if (nlh->nlmsg_pid != portid ||
			    nlh->nlmsg_type != NLMSG_ERROR ||
			    mnl_nlmsg_get_payload_len(nlh) < sizeof(*e) ||
			    i < -1 || i > (int64_t)n)
				return -EPROTO;
			e = mnl_nlmsg_get_payload(nlh);
			if (e->error < 0 && first == 0) {
				first = e->error;
				*bad = (int)i;
				flags = MSG_DONTWAIT;
			}
			if (i < 0 || i == (int64_t)n) {
				if (e->error >= 0)
					return -EPROTO;
				continue;
			}
			if (seen & (1U << i))
				return -EPROTO;
			seen |= 1U << i;
			got++;
		}
	}
	return first;
}
