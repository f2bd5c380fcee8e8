/*
 * netlink.h: the netlink plumbing under init's network setup (net.c
 * talks rtnetlink, nft.c nfnetlink): a socket that cannot hang, request
 * sequence numbers, and reading back the ACK of every request sent.
 */
#ifndef AISB_NETLINK_H
#define AISB_NETLINK_H

#include <stdint.h>

#include <libmnl/libmnl.h>

/* The next request sequence number (seeded from the clock once). */
uint32_t netlink_seq(void);

/*
 * A bound netlink socket on bus (NETLINK_ROUTE, NETLINK_NETFILTER),
 * close-on-exec, whose reads time out, so a kernel that never answers
 * is an error rather than a hang.  NULL with errno set.
 */
struct mnl_socket *netlink_open(int bus);

void netlink_closep(struct mnl_socket **nl);
#define _cleanup_netlink_ __attribute__((cleanup(netlink_closep)))

/*
 * Read the ACKs for requests seq0 .. seq0+n-1 (each sent with
 * NLM_F_ACK).  Every one must arrive, exactly once, as NLMSG_ERROR.
 * An error for any sequence number in [seq0-1, seq0+n] (the batch
 * begin and end markers included) fails the call; its index relative
 * to seq0 goes to *bad.  After the first error the rest is drained
 * without waiting: the kernel queues all replies before sendmsg
 * returns.  Returns 0, the kernel's -errno, or -EPROTO/-ETIMEDOUT.
 */
int netlink_acks(struct mnl_socket *nl, uint32_t seq0, unsigned n, int *bad);

#endif
