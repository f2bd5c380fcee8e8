/*
 * net.c: loopback, the synthetic route and `table inet aisb` inside the
 * sandbox's network namespace.
 *
 * init runs this inside the fresh netns while it still holds
 * CAP_NET_ADMIN in its own user namespace.  The netns has only lo, so
 * there is no route out: that is the enforcement.  The ruleset adds
 * defence in depth (output accepts loopback only) and the capture path
 * (TCP to the synthetic range is redirected to the gate's capture port).
 *
 * The ruleset goes to the kernel in one nfnetlink batch, so it is
 * applied whole or not at all; every message asks for an ACK and every
 * ACK is read; then the tables, chains and rules of every family are
 * dumped back and compared with what was sent.  Any difference is an
 * error: the session does not start (exit 77).
 *
 * No NFT_TABLE_F_OWNER: an owned table dies with the netlink socket
 * that created it, so init would have to keep that socket open for the
 * whole session, and losing it would silently remove the filter and
 * the capture.  The table lives exactly as long as the netns, which is
 * the session's; nothing left inside holds CAP_NET_ADMIN to change it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "aisb.h"
#include "log.h"
#include "net.h"
#include "util.h"

/* The loopback device is ifindex 1 in every netns (LOOPBACK_IFINDEX). */
#define NET_LO_IFINDEX 1
#define NET_TABLE "aisb"
/* Hook priorities (NF_IP_PRI_NAT_DST, NF_IP_PRI_FILTER): nat first. */
#define NET_PRIO_NAT (-100)
#define NET_PRIO_FILTER 0
#define NET_MAX_CHAINS 2
#define NET_MAX_RULES 4
/* Replies to a request we sent are queued while the kernel handles it;
 * the timeout only turns a kernel that never answers into an error. */
#define NET_NL_TIMEOUT_S 2
#define NET_DUMP_BUF (64 * 1024)
#define NET_RENDER 1024

/* The ruleset we send and expect to read back, in kernel dump order. */
struct net_ruleset {
	struct nftnl_table *table;
	struct nftnl_chain *chain[NET_MAX_CHAINS];
	size_t nchain;
	struct nftnl_rule *rule[NET_MAX_RULES];
	size_t nrule;
};

static uint32_t net_seq;

static uint32_t
net_next_seq(void)
{
	if (net_seq == 0)
		net_seq = (uint32_t)time(NULL);
	return net_seq++;
}

static struct mnl_socket *
net_nl_open(int bus)
{
	struct mnl_socket *nl;
	struct timeval tv = {.tv_sec = NET_NL_TIMEOUT_S};
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

static void
net_nl_closep(struct mnl_socket **nl)
{
	if (*nl != NULL)
		mnl_socket_close(*nl);
}

#define _cleanup_nl_ __attribute__((cleanup(net_nl_closep)))

/*
 * Read the ACKs for requests seq0 .. seq0+n-1 (each sent with
 * NLM_F_ACK).  Every one must arrive, exactly once, as NLMSG_ERROR.
 * An error for any sequence number in [seq0-1, seq0+n] (the batch
 * begin and end markers included) fails the call; its index relative
 * to seq0 goes to *bad.  After the first error the rest is drained
 * without waiting: the kernel queues all replies before sendmsg
 * returns.  Returns 0, the kernel's -errno, or -EPROTO/-ETIMEDOUT.
 */
static int
net_nl_acks(struct mnl_socket *nl, uint32_t seq0, unsigned n, int *bad)
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

/* One rtnetlink request, one ACK. */
static int
net_rtnl_talk(struct nlmsghdr *nlh)
{
	_cleanup_nl_ struct mnl_socket *nl = net_nl_open(NETLINK_ROUTE);
	int bad, r;

	if (nl == NULL)
		return -errno;
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = net_next_seq();
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	r = net_nl_acks(nl, nlh->nlmsg_seq, 1, &bad);
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

/* Expression builders: all load into and compare from register 1. */
static int
net_expr_add(struct nftnl_rule *r, struct nftnl_expr *e)
{
	if (e == NULL)
		return -ENOMEM;
	nftnl_rule_add_expr(r, e);
	return 0;
}

static int
net_meta(struct nftnl_rule *r, uint32_t key)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	if (e != NULL) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
	}
	return net_expr_add(r, e);
}

static int
net_cmp_eq(struct nftnl_rule *r, const void *data, uint32_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	if (e != NULL) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
		nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	}
	return net_expr_add(r, e);
}

/* ip daddr NET/PREFIX (with the nfproto ipv4 guard the inet family needs) */
static int
net_ip_daddr_in(struct nftnl_rule *r, const char *net, unsigned prefix)
{
	struct nftnl_expr *e;
	struct in_addr a;
	uint32_t mask = htonl(prefix ? ~0U << (32 - prefix) : 0), zero = 0;
	uint8_t proto = NFPROTO_IPV4;
	int rc;

	if (inet_pton(AF_INET, net, &a) != 1)
		return -EINVAL;
	a.s_addr &= mask;
	if ((rc = net_meta(r, NFT_META_NFPROTO)) < 0 ||
	    (rc = net_cmp_eq(r, &proto, sizeof(proto))) < 0)
		return rc;
	e = nftnl_expr_alloc("payload");
	if (e != NULL) {
		nftnl_expr_set_u32(
		    e, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, 16);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, 4);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
	}
	if ((rc = net_expr_add(r, e)) < 0)
		return rc;
	e = nftnl_expr_alloc("bitwise");
	if (e != NULL) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, 4);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, &mask, 4);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, &zero, 4);
	}
	if ((rc = net_expr_add(r, e)) < 0)
		return rc;
	return net_cmp_eq(r, &a.s_addr, 4);
}

static int
net_verdict(struct nftnl_rule *r, int verdict)
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");

	if (e != NULL) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(
		    e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict);
	}
	return net_expr_add(r, e);
}

/*
 * reject with tcp reset (tcp) or icmpx admin-prohibited: the sender
 * learns at once (ECONNREFUSED for a connect, EPERM from sendmsg)
 * instead of waiting for SYN retransmits to time out.  A local TCP
 * sender ignores the ICMP form in SYN_SENT here, hence the reset.
 */
static int
net_reject(struct nftnl_rule *r, bool tcp)
{
	struct nftnl_expr *e = nftnl_expr_alloc("reject");

	if (e != NULL && tcp) {
		nftnl_expr_set_u32(
		    e, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_TCP_RST);
	} else if (e != NULL) {
		nftnl_expr_set_u32(
		    e, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_ICMPX_UNREACH);
		nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE,
		    NFT_REJECT_ICMPX_ADMIN_PROHIBITED);
	}
	return net_expr_add(r, e);
}

/* redirect to :port (port in register 1, as nft(8) does it) */
static int
net_redirect(struct nftnl_rule *r, uint16_t port)
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");
	uint16_t nport = htons(port);
	int rc;

	if (e != NULL) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
		nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, &nport, sizeof(nport));
	}
	if ((rc = net_expr_add(r, e)) < 0)
		return rc;
	e = nftnl_expr_alloc("redir");
	if (e != NULL) {
		nftnl_expr_set_u32(
		    e, NFTNL_EXPR_REDIR_REG_PROTO_MIN, NFT_REG_1);
		nftnl_expr_set_u32(
		    e, NFTNL_EXPR_REDIR_REG_PROTO_MAX, NFT_REG_1);
		nftnl_expr_set_u32(
		    e, NFTNL_EXPR_REDIR_FLAGS, NF_NAT_RANGE_PROTO_SPECIFIED);
	}
	return net_expr_add(r, e);
}

static struct nftnl_chain *
net_chain_new(const char *name, const char *type, int prio, uint32_t policy)
{
	struct nftnl_chain *c = nftnl_chain_alloc();

	if (c == NULL)
		return NULL;
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, NFPROTO_INET);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, NET_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, type);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_LOCAL_OUT);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, prio);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, policy);
	return c;
}

static struct nftnl_rule *
net_rule_new(struct net_ruleset *rs, const char *chain)
{
	struct nftnl_rule *r;

	if (rs->nrule == NET_MAX_RULES || (r = nftnl_rule_alloc()) == NULL)
		return NULL;
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, NET_TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	rs->rule[rs->nrule++] = r;
	return r;
}

static void
net_ruleset_free(struct net_ruleset *rs)
{
	if (rs->table != NULL)
		nftnl_table_free(rs->table);
	for (size_t i = 0; i < rs->nchain; i++)
		nftnl_chain_free(rs->chain[i]);
	for (size_t i = 0; i < rs->nrule; i++)
		nftnl_rule_free(rs->rule[i]);
	memset(rs, 0, sizeof(*rs));
}

/*
 * table inet aisb {
 *	chain capture {		(transparent only)
 *		type nat hook output priority -100; policy accept;
 *		meta l4proto tcp ip daddr 198.18.0.0/15 redirect to :3129
 *	}
 *	chain output {
 *		type filter hook output priority 0; policy drop;
 *		meta l4proto tcp ip daddr 198.18.0.0/15 reject with tcp reset
 *		ip daddr 198.18.0.0/15 reject with icmpx admin-prohibited
 *		oif "lo" accept
 *	}
 * }
 *
 * The nat chain runs first (-100 < 0) and rewrites the destination to
 * 127.0.0.1:capture, so the filter sees a loopback packet.  What still
 * goes to the synthetic range at the filter (UDP, ICMP, TCP when the
 * capture is off) is rejected there, failing fast instead of looping
 * through lo.  IPv6 has no rule but oif lo: the inet family
 * covers it, and the policy drops the rest.
 */
static int
net_ruleset_build(struct net_ruleset *rs, bool transparent)
{
	struct nftnl_rule *r;
	uint8_t tcp = IPPROTO_TCP;
	uint32_t lo = NET_LO_IFINDEX;
	int rc;

	memset(rs, 0, sizeof(*rs));
	if ((rs->table = nftnl_table_alloc()) == NULL)
		return -ENOMEM;
	nftnl_table_set_u32(rs->table, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	nftnl_table_set_str(rs->table, NFTNL_TABLE_NAME, NET_TABLE);
	nftnl_table_set_u32(rs->table, NFTNL_TABLE_FLAGS, 0);

	if (transparent) {
		if ((rs->chain[rs->nchain] = net_chain_new(
		         "capture", "nat", NET_PRIO_NAT, NF_ACCEPT)) == NULL)
			return -ENOMEM;
		rs->nchain++;
	}
	if ((rs->chain[rs->nchain] = net_chain_new(
	         "output", "filter", NET_PRIO_FILTER, NF_DROP)) == NULL)
		return -ENOMEM;
	rs->nchain++;

	if (transparent) {
		if ((r = net_rule_new(rs, "capture")) == NULL)
			return -ENOMEM;
		if ((rc = net_meta(r, NFT_META_L4PROTO)) < 0 ||
		    (rc = net_cmp_eq(r, &tcp, sizeof(tcp))) < 0 ||
		    (rc = net_ip_daddr_in(
		         r, AISB_SYNTH_NET, AISB_SYNTH_PREFIX)) < 0 ||
		    (rc = net_redirect(r, AISB_CAPTURE_PORT)) < 0)
			return rc;
	}
	if ((r = net_rule_new(rs, "output")) == NULL)
		return -ENOMEM;
	if ((rc = net_meta(r, NFT_META_L4PROTO)) < 0 ||
	    (rc = net_cmp_eq(r, &tcp, sizeof(tcp))) < 0 ||
	    (rc = net_ip_daddr_in(r, AISB_SYNTH_NET, AISB_SYNTH_PREFIX)) < 0 ||
	    (rc = net_reject(r, true)) < 0)
		return rc;
	if ((r = net_rule_new(rs, "output")) == NULL)
		return -ENOMEM;
	if ((rc = net_ip_daddr_in(r, AISB_SYNTH_NET, AISB_SYNTH_PREFIX)) < 0 ||
	    (rc = net_reject(r, false)) < 0)
		return rc;
	if ((r = net_rule_new(rs, "output")) == NULL)
		return -ENOMEM;
	if ((rc = net_meta(r, NFT_META_OIF)) < 0 ||
	    (rc = net_cmp_eq(r, &lo, sizeof(lo))) < 0 ||
	    (rc = net_verdict(r, NF_ACCEPT)) < 0)
		return rc;
	return 0;
}

/* What was sent, for the one log line when the kernel refuses it. */
static void
net_describe(const struct net_ruleset *rs, int i, char *out, size_t n)
{
	size_t nc = rs->nchain;

	if (i == 0)
		snprintf(out, n, "table inet %s", NET_TABLE);
	else if (i >= 1 && (size_t)i <= nc)
		snprintf(out, n, "chain %s",
		    nftnl_chain_get_str(rs->chain[i - 1], NFTNL_CHAIN_NAME));
	else if ((size_t)i > nc && (size_t)i <= nc + rs->nrule)
		snprintf(out, n, "rule %d of the ruleset", i - (int)nc);
	else
		snprintf(out, n, "the batch");
}

/* Send the whole ruleset as one batch; read one ACK per object. */
static int
net_nft_send(struct mnl_socket *nl, const struct net_ruleset *rs)
{
	const size_t limit = 32 * 1024;
	_cleanup_free_ char *buf = malloc(2 * limit);
	struct mnl_nlmsg_batch *b;
	struct nlmsghdr *nlh;
	uint32_t seq, seq0;
	unsigned nobj = 0;
	bool room;
	int bad, r;
	char what[64];

	if (buf == NULL)
		return -ENOMEM;
	b = mnl_nlmsg_batch_start(buf, limit);
	if (b == NULL)
		return -ENOMEM;
	seq = net_next_seq();
	nftnl_batch_begin(mnl_nlmsg_batch_current(b), seq++);
	room = mnl_nlmsg_batch_next(b);
	seq0 = seq;

	nlh =
	    nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b), NFT_MSG_NEWTABLE,
	        NFPROTO_INET, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, seq++);
	nftnl_table_nlmsg_build_payload(nlh, rs->table);
	room = room && mnl_nlmsg_batch_next(b);
	nobj++;
	for (size_t i = 0; i < rs->nchain; i++, nobj++) {
		nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b),
		    NFT_MSG_NEWCHAIN, NFPROTO_INET,
		    NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, seq++);
		nftnl_chain_nlmsg_build_payload(nlh, rs->chain[i]);
		room = room && mnl_nlmsg_batch_next(b);
	}
	for (size_t i = 0; i < rs->nrule; i++, nobj++) {
		nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b),
		    NFT_MSG_NEWRULE, NFPROTO_INET,
		    NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK, seq++);
		nftnl_rule_nlmsg_build_payload(nlh, rs->rule[i]);
		room = room && mnl_nlmsg_batch_next(b);
	}
	nftnl_batch_end(mnl_nlmsg_batch_current(b), seq++);
	room = room && mnl_nlmsg_batch_next(b);
	if (!room) {
		/* A batch split in two would not be atomic. */
		mnl_nlmsg_batch_stop(b);
		return log_errno(-E2BIG,
		    "nftables: the ruleset does not fit "
		    "one batch");
	}
	if (mnl_socket_sendto(
	        nl, mnl_nlmsg_batch_head(b), mnl_nlmsg_batch_size(b)) < 0) {
		r = -errno;
		mnl_nlmsg_batch_stop(b);
		return log_errno(r, "nftables: cannot send the ruleset: %m");
	}
	mnl_nlmsg_batch_stop(b);
	r = net_nl_acks(nl, seq0, nobj, &bad);
	if (r < 0) {
		net_describe(rs, bad, what, sizeof(what));
		return log_errno(r,
		    "nftables: the kernel refused %s of "
		    "table inet %s: %m",
		    what, NET_TABLE);
	}
	return 0;
}

/* Read-back: each object rendered to one comparable line. */
struct net_dump {
	char **line;
	size_t n, cap;
	int err;
};

static void
net_dump_free(struct net_dump *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->line[i]);
	free(d->line);
	memset(d, 0, sizeof(*d));
}

static void
net_dump_add(struct net_dump *d, const char *s)
{
	char **nl;

	if (d->err)
		return;
	if (d->n == d->cap) {
		/* Bounded: far more than we ever expect is a mismatch anyway.
		 */
		if (d->cap >= 4096 ||
		    (nl = reallocarray(d->line, d->cap ? d->cap * 2 : 8,
		         sizeof(*nl))) == NULL) {
			d->err = -ENOMEM;
			return;
		}
		d->line = nl;
		d->cap = d->cap ? d->cap * 2 : 8;
	}
	if ((d->line[d->n] = strdup(s)) == NULL)
		d->err = -ENOMEM;
	else
		d->n++;
}

static void
net_render_table(const struct nftnl_table *t, char *out, size_t n)
{
	snprintf(out, n, "table family %u name %s flags %u",
	    nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY),
	    nftnl_table_get_str(t, NFTNL_TABLE_NAME),
	    nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS));
}

static void
net_render_chain(const struct nftnl_chain *c, char *out, size_t n)
{
	const char *type = nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE);

	if (!nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM)) {
		snprintf(out, n, "chain family %u table %s name %s regular",
		    nftnl_chain_get_u32(c, NFTNL_CHAIN_FAMILY),
		    nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE),
		    nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
		return;
	}
	snprintf(out, n,
	    "chain family %u table %s name %s type %s hook %u "
	    "prio %d policy %u dev %s",
	    nftnl_chain_get_u32(c, NFTNL_CHAIN_FAMILY),
	    nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE),
	    nftnl_chain_get_str(c, NFTNL_CHAIN_NAME), type ? type : "-",
	    nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM),
	    nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO),
	    nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY),
	    nftnl_chain_is_set(c, NFTNL_CHAIN_DEV)
	        ? nftnl_chain_get_str(c, NFTNL_CHAIN_DEV)
	        : "-");
}

/*
 * A rule as libnftnl prints it (family, table, chain, every expression
 * with its registers and data), minus the handle the kernel assigned.
 */
static int
net_render_rule(struct nftnl_rule *r, char *out, size_t n)
{
	char *d;
	int len;

	nftnl_rule_unset(r, NFTNL_RULE_HANDLE);
	nftnl_rule_unset(r, NFTNL_RULE_POSITION);
	len = nftnl_rule_snprintf(out, n, r, NFTNL_OUTPUT_DEFAULT, 0);
	if (len < 0 || (size_t)len >= n)
		return -EOVERFLOW;
	/* One line per rule, so a mismatch logs as one line. */
	d = out;
	for (const char *c = out; *c != '\0'; c++) {
		if (*c == '\n' || *c == ' ') {
			if (d > out && d[-1] != ' ')
				*d++ = ' ';
		} else {
			*d++ = *c;
		}
	}
	while (d > out && d[-1] == ' ')
		d--;
	*d = '\0';
	return 0;
}

static int
net_table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct net_dump *d = data;
	struct nftnl_table *t = nftnl_table_alloc();
	char s[NET_RENDER];

	if (t == NULL || nftnl_table_nlmsg_parse(nlh, t) < 0) {
		d->err = t ? -EPROTO : -ENOMEM;
	} else {
		net_render_table(t, s, sizeof(s));
		net_dump_add(d, s);
	}
	if (t != NULL)
		nftnl_table_free(t);
	return d->err ? MNL_CB_ERROR : MNL_CB_OK;
}

static int
net_chain_cb(const struct nlmsghdr *nlh, void *data)
{
	struct net_dump *d = data;
	struct nftnl_chain *c = nftnl_chain_alloc();
	char s[NET_RENDER];

	if (c == NULL || nftnl_chain_nlmsg_parse(nlh, c) < 0) {
		d->err = c ? -EPROTO : -ENOMEM;
	} else {
		net_render_chain(c, s, sizeof(s));
		net_dump_add(d, s);
	}
	if (c != NULL)
		nftnl_chain_free(c);
	return d->err ? MNL_CB_ERROR : MNL_CB_OK;
}

static int
net_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct net_dump *d = data;
	struct nftnl_rule *r = nftnl_rule_alloc();
	char s[NET_RENDER];
	int rc;

	if (r == NULL || nftnl_rule_nlmsg_parse(nlh, r) < 0)
		d->err = r ? -EPROTO : -ENOMEM;
	else if ((rc = net_render_rule(r, s, sizeof(s))) < 0)
		d->err = rc;
	else
		net_dump_add(d, s);
	if (r != NULL)
		nftnl_rule_free(r);
	return d->err ? MNL_CB_ERROR : MNL_CB_OK;
}

/* Dump every object of one kind, all families, into d. */
static int
net_dump(struct mnl_socket *nl, uint16_t msg, mnl_cb_t cb, struct net_dump *d)
{
	_cleanup_free_ char *buf = malloc(NET_DUMP_BUF);
	uint32_t seq = net_next_seq(), portid = mnl_socket_get_portid(nl);
	struct nlmsghdr *nlh;
	ssize_t len;
	int r;

	if (buf == NULL)
		return -ENOMEM;
	nlh = nftnl_nlmsg_build_hdr(buf, msg, NFPROTO_UNSPEC, NLM_F_DUMP, seq);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -errno;
	for (;;) {
		len = mnl_socket_recvfrom(nl, buf, NET_DUMP_BUF);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		r = mnl_cb_run(buf, (size_t)len, seq, portid, cb, d);
		if (r == MNL_CB_STOP)
			break;
		if (r < 0)
			return d->err ? d->err : -errno;
	}
	return d->err;
}

static int
net_expect(struct net_dump *want, const struct net_ruleset *rs, int kind)
{
	char s[NET_RENDER];
	int r;

	if (kind == 0) {
		net_render_table(rs->table, s, sizeof(s));
		net_dump_add(want, s);
	}
	for (size_t i = 0; kind == 1 && i < rs->nchain; i++) {
		net_render_chain(rs->chain[i], s, sizeof(s));
		net_dump_add(want, s);
	}
	for (size_t i = 0; kind == 2 && i < rs->nrule; i++) {
		if ((r = net_render_rule(rs->rule[i], s, sizeof(s))) < 0)
			return r;
		net_dump_add(want, s);
	}
	return want->err;
}

/*
 * Dump tables, chains and rules of every family and compare them, in
 * order, with rs.  Anything missing, extra or different is -EPROTO.
 */
static int
net_verify(struct mnl_socket *nl, const struct net_ruleset *rs)
{
	static const uint16_t msgs[] = {
	    NFT_MSG_GETTABLE, NFT_MSG_GETCHAIN, NFT_MSG_GETRULE};
	static const mnl_cb_t cbs[] = {net_table_cb, net_chain_cb, net_rule_cb};
	static const char *const kinds[] = {"table", "chain", "rule"};

	for (int k = 0; k < 3; k++) {
		struct net_dump got = {0}, want = {0};
		size_t i;
		int r;

		r = net_dump(nl, msgs[k], cbs[k], &got);
		if (r == 0)
			r = net_expect(&want, rs, k);
		if (r < 0) {
			net_dump_free(&got);
			net_dump_free(&want);
			return log_errno(r,
			    "nftables: cannot read back table "
			    "inet %s (%ss): %m",
			    NET_TABLE, kinds[k]);
		}
		for (i = 0; i < got.n && i < want.n; i++)
			if (strcmp(got.line[i], want.line[i]) != 0)
				break;
		if (i < got.n || i < want.n) {
			log_err("nftables: the ruleset read back differs from "
			        "what was sent: %s %zu: got '%s', want '%s'",
			    kinds[k], i + 1,
			    i < got.n ? got.line[i] : "(nothing)",
			    i < want.n ? want.line[i] : "(nothing)");
			net_dump_free(&got);
			net_dump_free(&want);
			return -EPROTO;
		}
		net_dump_free(&got);
		net_dump_free(&want);
	}
	return 0;
}

int
net_nft_verify(const struct aisb_policy *p)
{
	_cleanup_nl_ struct mnl_socket *nl = NULL;
	struct net_ruleset rs;
	int r;

	r = net_ruleset_build(&rs, p->net.transparent);
	if (r < 0) {
		net_ruleset_free(&rs);
		return log_errno(r, "nftables: cannot build the ruleset: %m");
	}
	nl = net_nl_open(NETLINK_NETFILTER);
	if (nl == NULL)
		r = log_errno(-errno, "nftables: netlink socket: %m");
	else
		r = net_verify(nl, &rs);
	net_ruleset_free(&rs);
	return r;
}

int
net_gated_setup(const struct aisb_policy *p)
{
	_cleanup_nl_ struct mnl_socket *nl = NULL;
	struct net_ruleset rs;
	int r;

	r = net_route_synth();
	if (r < 0)
		return r;
	r = net_ruleset_build(&rs, p->net.transparent);
	if (r < 0) {
		net_ruleset_free(&rs);
		return log_errno(r, "nftables: cannot build the ruleset: %m");
	}
	nl = net_nl_open(NETLINK_NETFILTER);
	if (nl == NULL)
		r = log_errno(-errno, "nftables: netlink socket: %m");
	else if ((r = net_nft_send(nl, &rs)) == 0)
		r = net_verify(nl, &rs);
	net_ruleset_free(&rs);
	return r;
}
