/*
 * nft.c: `table inet aisb`, the nftables ruleset of the sandbox's
 * network namespace (docs/architecture.md, "Network namespace and
 * nftables"): built with libnftnl, sent, and read back.
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
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "aisb.h"
#include "log.h"
#include "net.h"
#include "netlink.h"
#include "nft.h"
#include "util.h"

#define TABLE_NAME "aisb"
/* Hook priorities (NF_IP_PRI_NAT_DST, NF_IP_PRI_FILTER): nat first. */
#define PRIO_NAT (-100)
#define PRIO_FILTER 0
#define MAX_CHAINS 2
#define MAX_RULES 4
#define DUMP_BUF (64 * 1024)
#define RENDER_LEN 1024

/* The ruleset we send and expect to read back, in kernel dump order. */
struct nft_ruleset {
	struct nftnl_table *table;
	struct nftnl_chain *chain[MAX_CHAINS];
	size_t nchain;
	struct nftnl_rule *rule[MAX_RULES];
	size_t nrule;
};

/* One attribute of an expression: a u32, or len bytes at data. */
struct nft_attr {
	uint16_t type;
	uint32_t u32;
	const void *data;
	uint32_t len;
};
#define ATTR_U32(t, v) ((struct nft_attr){.type = (t), .u32 = (v)})
#define ATTR_DATA(t, p, n)                                                     \
	((struct nft_attr){.type = (t), .data = (p), .len = (n)})

/*
 * Append expression name with attributes a[0 .. n-1] to rule r.  The
 * builders below all load into and compare from register 1.
 */
static int
nft_expr(
    struct nftnl_rule *r, const char *name, const struct nft_attr *a, size_t n)
{
	struct nftnl_expr *e = nftnl_expr_alloc(name);

	if (e == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (a[i].data != NULL)
			nftnl_expr_set(e, a[i].type, a[i].data, a[i].len);
		else
			nftnl_expr_set_u32(e, a[i].type, a[i].u32);
	}
	nftnl_rule_add_expr(r, e);
	return 0;
}

static int
nft_meta(struct nftnl_rule *r, uint32_t key)
{
	const struct nft_attr a[] = {
	    ATTR_U32(NFTNL_EXPR_META_KEY, key),
	    ATTR_U32(NFTNL_EXPR_META_DREG, NFT_REG_1),
	};

	return nft_expr(r, "meta", a, ELEMENTSOF(a));
}

static int
nft_cmp_eq(struct nftnl_rule *r, const void *data, uint32_t len)
{
	const struct nft_attr a[] = {
	    ATTR_U32(NFTNL_EXPR_CMP_SREG, NFT_REG_1),
	    ATTR_U32(NFTNL_EXPR_CMP_OP, NFT_CMP_EQ),
	    ATTR_DATA(NFTNL_EXPR_CMP_DATA, data, len),
	};

	return nft_expr(r, "cmp", a, ELEMENTSOF(a));
}

/* ip daddr NET/PREFIX (with the nfproto ipv4 guard the inet family needs) */
static int
nft_ip_daddr_in(struct nftnl_rule *r, const char *net, unsigned prefix)
{
	struct in_addr a;
	uint32_t mask = htonl(prefix ? ~0U << (32 - prefix) : 0), zero = 0;
	uint8_t proto = NFPROTO_IPV4;
	const struct nft_attr payload[] = {
	    ATTR_U32(NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER),
	    ATTR_U32(NFTNL_EXPR_PAYLOAD_OFFSET, 16),
	    ATTR_U32(NFTNL_EXPR_PAYLOAD_LEN, 4),
	    ATTR_U32(NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1),
	};
	const struct nft_attr bitwise[] = {
	    ATTR_U32(NFTNL_EXPR_BITWISE_SREG, NFT_REG_1),
	    ATTR_U32(NFTNL_EXPR_BITWISE_DREG, NFT_REG_1),
	    ATTR_U32(NFTNL_EXPR_BITWISE_LEN, 4),
	    ATTR_DATA(NFTNL_EXPR_BITWISE_MASK, &mask, 4),
	    ATTR_DATA(NFTNL_EXPR_BITWISE_XOR, &zero, 4),
	};
	int rc;

	if (inet_pton(AF_INET, net, &a) != 1)
		return -EINVAL;
	a.s_addr &= mask;
	if ((rc = nft_meta(r, NFT_META_NFPROTO)) < 0 ||
	    (rc = nft_cmp_eq(r, &proto, sizeof(proto))) < 0 ||
	    (rc = nft_expr(r, "payload", payload, ELEMENTSOF(payload))) < 0 ||
	    (rc = nft_expr(r, "bitwise", bitwise, ELEMENTSOF(bitwise))) < 0)
		return rc;
	return nft_cmp_eq(r, &a.s_addr, 4);
}

static int
nft_verdict(struct nftnl_rule *r, int verdict)
{
	const struct nft_attr a[] = {
	    ATTR_U32(NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT),
	    ATTR_U32(NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict),
	};

	return nft_expr(r, "immediate", a, ELEMENTSOF(a));
}

/*
 * reject with tcp reset (tcp) or icmpx admin-prohibited: the sender
 * learns at once (ECONNREFUSED for a connect, EPERM from sendmsg)
 * instead of waiting for SYN retransmits to time out.  A local TCP
 * sender ignores the ICMP form in SYN_SENT here, hence the reset.
 */
static int
nft_reject(struct nftnl_rule *r, bool tcp)
{
	uint8_t code = NFT_REJECT_ICMPX_ADMIN_PROHIBITED;
	const struct nft_attr rst[] = {
	    ATTR_U32(NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_TCP_RST),
	};
	const struct nft_attr icmpx[] = {
	    ATTR_U32(NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_ICMPX_UNREACH),
	    ATTR_DATA(NFTNL_EXPR_REJECT_CODE, &code, sizeof(code)),
	};

	return tcp ? nft_expr(r, "reject", rst, ELEMENTSOF(rst))
	           : nft_expr(r, "reject", icmpx, ELEMENTSOF(icmpx));
}

/* redirect to :port (port in register 1, as nft(8) does it) */
static int
nft_redirect(struct nftnl_rule *r, uint16_t port)
{
	uint16_t nport = htons(port);
	const struct nft_attr imm[] = {
	    ATTR_U32(NFTNL_EXPR_IMM_DREG, NFT_REG_1),
	    ATTR_DATA(NFTNL_EXPR_IMM_DATA, &nport, sizeof(nport)),
	};
	const struct nft_attr redir[] = {
	    ATTR_U32(NFTNL_EXPR_REDIR_REG_PROTO_MIN, NFT_REG_1),
	    ATTR_U32(NFTNL_EXPR_REDIR_REG_PROTO_MAX, NFT_REG_1),
	    ATTR_U32(NFTNL_EXPR_REDIR_FLAGS, NF_NAT_RANGE_PROTO_SPECIFIED),
	};
	int rc;

	if ((rc = nft_expr(r, "immediate", imm, ELEMENTSOF(imm))) < 0)
		return rc;
	return nft_expr(r, "redir", redir, ELEMENTSOF(redir));
}

static struct nftnl_chain *
nft_chain_new(const char *name, const char *type, int prio, uint32_t policy)
{
	struct nftnl_chain *c = nftnl_chain_alloc();

	if (c == NULL)
		return NULL;
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, NFPROTO_INET);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, TABLE_NAME);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, type);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_LOCAL_OUT);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, prio);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, policy);
	return c;
}

static struct nftnl_rule *
nft_rule_new(struct nft_ruleset *rs, const char *chain)
{
	struct nftnl_rule *r;

	if (rs->nrule == MAX_RULES || (r = nftnl_rule_alloc()) == NULL)
		return NULL;
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, TABLE_NAME);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	rs->rule[rs->nrule++] = r;
	return r;
}

static void
nft_ruleset_free(struct nft_ruleset *rs)
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
nft_ruleset_build(struct nft_ruleset *rs, bool transparent)
{
	struct nftnl_rule *r;
	uint8_t tcp = IPPROTO_TCP;
	uint32_t lo = NET_LO_IFINDEX;
	int rc;

	memset(rs, 0, sizeof(*rs));
	if ((rs->table = nftnl_table_alloc()) == NULL)
		return -ENOMEM;
	nftnl_table_set_u32(rs->table, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	nftnl_table_set_str(rs->table, NFTNL_TABLE_NAME, TABLE_NAME);
	nftnl_table_set_u32(rs->table, NFTNL_TABLE_FLAGS, 0);

	if (transparent) {
		if ((rs->chain[rs->nchain] = nft_chain_new(
		         "capture", "nat", PRIO_NAT, NF_ACCEPT)) == NULL)
			return -ENOMEM;
		rs->nchain++;
	}
	if ((rs->chain[rs->nchain] = nft_chain_new(
	         "output", "filter", PRIO_FILTER, NF_DROP)) == NULL)
		return -ENOMEM;
	rs->nchain++;

	if (transparent) {
		if ((r = nft_rule_new(rs, "capture")) == NULL)
			return -ENOMEM;
		if ((rc = nft_meta(r, NFT_META_L4PROTO)) < 0 ||
		    (rc = nft_cmp_eq(r, &tcp, sizeof(tcp))) < 0 ||
		    (rc = nft_ip_daddr_in(
		         r, AISB_SYNTH_NET, AISB_SYNTH_PREFIX)) < 0 ||
		    (rc = nft_redirect(r, AISB_CAPTURE_PORT)) < 0)
			return rc;
	}
	if ((r = nft_rule_new(rs, "output")) == NULL)
		return -ENOMEM;
	if ((rc = nft_meta(r, NFT_META_L4PROTO)) < 0 ||
	    (rc = nft_cmp_eq(r, &tcp, sizeof(tcp))) < 0 ||
	    (rc = nft_ip_daddr_in(r, AISB_SYNTH_NET, AISB_SYNTH_PREFIX)) < 0 ||
	    (rc = nft_reject(r, true)) < 0)
		return rc;
	if ((r = nft_rule_new(rs, "output")) == NULL)
		return -ENOMEM;
	if ((rc = nft_ip_daddr_in(r, AISB_SYNTH_NET, AISB_SYNTH_PREFIX)) < 0 ||
	    (rc = nft_reject(r, false)) < 0)
		return rc;
	if ((r = nft_rule_new(rs, "output")) == NULL)
		return -ENOMEM;
	if ((rc = nft_meta(r, NFT_META_OIF)) < 0 ||
	    (rc = nft_cmp_eq(r, &lo, sizeof(lo))) < 0 ||
	    (rc = nft_verdict(r, NF_ACCEPT)) < 0)
		return rc;
	return 0;
}

/* What was sent, for the one log line when the kernel refuses it. */
static void
nft_describe(const struct nft_ruleset *rs, int i, char *out, size_t n)
{
	size_t nc = rs->nchain;

	if (i == 0)
		snprintf(out, n, "table inet %s", TABLE_NAME);
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
nft_send(struct mnl_socket *nl, const struct nft_ruleset *rs)
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
	seq = netlink_seq();
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
	r = netlink_acks(nl, seq0, nobj, &bad);
	if (r < 0) {
		nft_describe(rs, bad, what, sizeof(what));
		return log_errno(r,
		    "nftables: the kernel refused %s of "
		    "table inet %s: %m",
		    what, TABLE_NAME);
	}
	return 0;
}

/* Read-back: each object rendered to one comparable line. */
struct nft_dump {
	char **line;
	size_t n, cap;
	int err;
};

static void
nft_dump_free(struct nft_dump *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->line[i]);
	free(d->line);
	memset(d, 0, sizeof(*d));
}

static void
nft_dump_add(struct nft_dump *d, const char *s)
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
nft_render_table(const struct nftnl_table *t, char *out, size_t n)
{
	snprintf(out, n, "table family %u name %s flags %u",
	    nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY),
	    nftnl_table_get_str(t, NFTNL_TABLE_NAME),
	    nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS));
}

static void
nft_render_chain(const struct nftnl_chain *c, char *out, size_t n)
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
nft_render_rule(struct nftnl_rule *r, char *out, size_t n)
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
nft_table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nft_dump *d = data;
	struct nftnl_table *t = nftnl_table_alloc();
	char s[RENDER_LEN];

	if (t == NULL || nftnl_table_nlmsg_parse(nlh, t) < 0) {
		d->err = t ? -EPROTO : -ENOMEM;
	} else {
		nft_render_table(t, s, sizeof(s));
		nft_dump_add(d, s);
	}
	if (t != NULL)
		nftnl_table_free(t);
	return d->err ? MNL_CB_ERROR : MNL_CB_OK;
}

static int
nft_chain_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nft_dump *d = data;
	struct nftnl_chain *c = nftnl_chain_alloc();
	char s[RENDER_LEN];

	if (c == NULL || nftnl_chain_nlmsg_parse(nlh, c) < 0) {
		d->err = c ? -EPROTO : -ENOMEM;
	} else {
		nft_render_chain(c, s, sizeof(s));
		nft_dump_add(d, s);
	}
	if (c != NULL)
		nftnl_chain_free(c);
	return d->err ? MNL_CB_ERROR : MNL_CB_OK;
}

static int
nft_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nft_dump *d = data;
	struct nftnl_rule *r = nftnl_rule_alloc();
	char s[RENDER_LEN];
	int rc;

	if (r == NULL || nftnl_rule_nlmsg_parse(nlh, r) < 0)
		d->err = r ? -EPROTO : -ENOMEM;
	else if ((rc = nft_render_rule(r, s, sizeof(s))) < 0)
		d->err = rc;
	else
		nft_dump_add(d, s);
	if (r != NULL)
		nftnl_rule_free(r);
	return d->err ? MNL_CB_ERROR : MNL_CB_OK;
}

/* Dump every object of one kind, all families, into d. */
static int
nft_dump(struct mnl_socket *nl, uint16_t msg, mnl_cb_t cb, struct nft_dump *d)
{
	_cleanup_free_ char *buf = malloc(DUMP_BUF);
	uint32_t seq = netlink_seq(), portid = mnl_socket_get_portid(nl);
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
		len = mnl_socket_recvfrom(nl, buf, DUMP_BUF);
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
nft_expect(struct nft_dump *want, const struct nft_ruleset *rs, int kind)
{
	char s[RENDER_LEN];
	int r;

	if (kind == 0) {
		nft_render_table(rs->table, s, sizeof(s));
		nft_dump_add(want, s);
	}
	for (size_t i = 0; kind == 1 && i < rs->nchain; i++) {
		nft_render_chain(rs->chain[i], s, sizeof(s));
		nft_dump_add(want, s);
	}
	for (size_t i = 0; kind == 2 && i < rs->nrule; i++) {
		if ((r = nft_render_rule(rs->rule[i], s, sizeof(s))) < 0)
			return r;
		nft_dump_add(want, s);
	}
	return want->err;
}

/*
 * Dump tables, chains and rules of every family and compare them, in
 * order, with rs.  Anything missing, extra or different is -EPROTO.
 */
static int
nft_readback(struct mnl_socket *nl, const struct nft_ruleset *rs)
{
	static const uint16_t msgs[] = {
	    NFT_MSG_GETTABLE, NFT_MSG_GETCHAIN, NFT_MSG_GETRULE};
	static const mnl_cb_t cbs[] = {nft_table_cb, nft_chain_cb, nft_rule_cb};
	static const char *const kinds[] = {"table", "chain", "rule"};

	for (int k = 0; k < 3; k++) {
		struct nft_dump got = {0}, want = {0};
		size_t i;
		int r;

		r = nft_dump(nl, msgs[k], cbs[k], &got);
		if (r == 0)
			r = nft_expect(&want, rs, k);
		if (r < 0) {
			nft_dump_free(&got);
			nft_dump_free(&want);
			return log_errno(r,
			    "nftables: cannot read back table "
			    "inet %s (%ss): %m",
			    TABLE_NAME, kinds[k]);
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
			nft_dump_free(&got);
			nft_dump_free(&want);
			return -EPROTO;
		}
		nft_dump_free(&got);
		nft_dump_free(&want);
	}
	return 0;
}

/* Build the ruleset for p, send it when install, then read it back. */
static int
nft_apply(const struct aisb_policy *p, bool install)
{
	_cleanup_netlink_ struct mnl_socket *nl = NULL;
	struct nft_ruleset rs;
	int r;

	r = nft_ruleset_build(&rs, p->net.transparent);
	if (r < 0) {
		nft_ruleset_free(&rs);
		return log_errno(r, "nftables: cannot build the ruleset: %m");
	}
	nl = netlink_open(NETLINK_NETFILTER);
	if (nl == NULL)
		r = log_errno(-errno, "nftables: netlink socket: %m");
	else if (!install || (r = nft_send(nl, &rs)) == 0)
		r = nft_readback(nl, &rs);
	nft_ruleset_free(&rs);
	return r;
}

int
nft_install(const struct aisb_policy *p)
{
	return nft_apply(p, true);
}

int
nft_verify(const struct aisb_policy *p)
{
	return nft_apply(p, false);
}
