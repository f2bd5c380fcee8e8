/*
 * nonft: run a command on what looks, to it and its children, like a
 * kernel without nf_tables.  A seccomp filter makes every
 * socket(AF_NETLINK, *, NETLINK_NETFILTER) fail with EPROTONOSUPPORT,
 * which is what such a kernel answers (no nfnetlink family).  Everything
 * else runs untouched: rtnetlink, namespaces, plain sockets.
 *
 *	nonft COMMAND [ARG...]
 *
 * The doctor test runs aisb-shell --doctor under it: the gated ruleset
 * must then fail to apply, and a network.mode "none" agent, which needs
 * no ruleset, must still pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/netlink.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int r;

	if (argc < 2) {
		fprintf(stderr, "usage: nonft COMMAND [ARG...]\n");
		return 2;
	}
	if (!(ctx = seccomp_init(SCMP_ACT_ALLOW))) {
		fprintf(stderr, "nonft: seccomp_init failed\n");
		return 1;
	}
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT),
	    SCMP_SYS(socket), 2, SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
	    SCMP_A2(SCMP_CMP_EQ, NETLINK_NETFILTER));
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0) {
		fprintf(stderr, "nonft: seccomp: %s\n", strerror(-r));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nonft: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
