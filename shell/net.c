/*
 * net.c: the sandbox's network namespace: lo up, and in gated mode the
 * synthetic route and the nftables ruleset (nft.c).
 *
 * init runs this inside the fresh netns while it still holds
 * CAP_NET_ADMIN in its own user namespace.  The netns has only lo, so
 * there is no route out: that is the enforcement.  The ruleset adds
 * defence in depth (output accepts loopback only) and the capture path
 * (TCP to the synthetic range is redirected to the gate's capture port).
 * The routing talks rtnetlink, one request and one ACK at a time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>

#include "aisb.h"
#include "log.h"
#include "net.h"
#include "netlink.h"
#include "nft.h"

/* One rtnetlink request, one ACK. */
static int
net_rtnl_talk(struct nlmsghdr *nlh)
{
	_cleanup_netlink_ struct mnl_socket *nl = netlink_open(NETLINK_ROUTE);
	int bad, r;

	if (nl == NULL)
		return -errno;
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = netlink_seq();
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	r = netlink_acks(nl, nlh->nlmsg_seq, 1, &bad);
	return r;
}

int
net_lo_up(void)
{
	char buf[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int r;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = NET_LO_IFINDEX;
	ifm->ifi_flags = IFF_UP;
	ifm->ifi_change = IFF_UP;
	r = net_rtnl_talk(nlh);
	if (r < 0)
		return log_errno(r, "network: cannot bring lo up: %m");
	return 0;
}

/*
 * 198.18.0.0/15 dev lo src 127.0.0.1: a connect() to a synthetic
 * address gets a route (so the nat hook sees it) and the source
 * 127.0.0.1 (so the redirected flow is loopback to loopback).
 */
static int
net_route_synth(void)
{
	char buf[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	struct in_addr dst, src = {htonl(INADDR_LOOPBACK)};
	int r;

	if (inet_pton(AF_INET, AISB_SYNTH_NET, &dst) != 1)
		return -EINVAL;
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = AISB_SYNTH_PREFIX;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_DST, sizeof(dst), &dst);
	mnl_attr_put(nlh, RTA_PREFSRC, sizeof(src), &src);
	mnl_attr_put_u32(nlh, RTA_OIF, NET_LO_IFINDEX);
	r = net_rtnl_talk(nlh);
	if (r < 0)
		return log_errno(r, "network: cannot route %s/%d to lo: %m",
		    AISB_SYNTH_NET, AISB_SYNTH_PREFIX);
	return 0;
}

int
net_gated_setup(const struct aisb_policy *p)
{
	int r;

	r = net_route_synth();
	if (r < 0)
		return r;
	return nft_install(p);
}
