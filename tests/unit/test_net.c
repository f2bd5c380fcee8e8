/*
 * test_net.c: shell/net.c and shell/nft.c in a real, rootless network
 * namespace.
 *
 * A child drops to nobody (when run as root), enters a new user and
 * network namespace (as init does), brings lo up and installs the gated
 * ruleset, then checks what the ruleset does with real sockets: the
 * capture redirect and SO_ORIGINAL_DST, loopback still working, and
 * everything else failing.  Then it tampers with the ruleset through
 * nft(8) and checks that nft_verify() notices.  Nothing leaves the
 * child's own netns: the only interfaces are lo and a dummy device.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cap-ng.h>
#include <linux/capability.h>

#include "tap.h"
#include "aisb.h"
#include "log.h"
#include "net.h"
#include "nft.h"
#include "policy.h"
#include "userns.h"

#ifndef SO_ORIGINAL_DST
#define SO_ORIGINAL_DST 80 /* linux/netfilter_ipv4.h */
#endif

#define NOBODY 65534
#define PORT_TWIN 24001 /* netnft test range 24000-24999 */

/*
 * unshare(NEWUSER|NEWNET) and map uid and gid to themselves, as init
 * does.  The nft(8) and ip(8) we run from here keep CAP_NET_ADMIN
 * through the ambient set (a non-root exec would drop it otherwise).
 */
static int
enter_userns(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return -errno;
	if (userns_map_self(uid, gid, NULL) < 0)
		return -EPERM;
	capng_get_caps_process();
	capng_update(CAPNG_ADD, CAPNG_INHERITABLE, CAP_NET_ADMIN);
	if (capng_apply(CAPNG_SELECT_CAPS) < 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN, 0, 0) <
	        0)
		return -EPERM;
	return 0;
}

static struct sockaddr_in
sin4(const char *addr, uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

	inet_pton(AF_INET, addr, &a.sin_addr);
	return a;
}

/* connect() with a 2 s bound: 0 or -errno. */
static int
tcp_connect(int family, const struct sockaddr *sa, socklen_t len, int *out)
{
	int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct pollfd pfd = {.fd = s, .events = POLLOUT};
	int err = 0;
	socklen_t el = sizeof(err);

	if (s < 0)
		return -errno;
	if (connect(s, sa, len) < 0) {
		if (errno != EINPROGRESS) {
			err = -errno;
			close(s);
			return err;
		}
		if (poll(&pfd, 1, 2000) != 1) {
			close(s);
			return -ETIMEDOUT;
		}
		getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err != 0) {
			close(s);
			return -err;
		}
	}
	if (out)
		*out = s;
	else
		close(s);
	return 0;
}

static int
listen_on(const char *addr, uint16_t port, int type)
{
	struct sockaddr_in a = sin4(addr, port);
	int one = 1, s = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -errno;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    (type == SOCK_STREAM && listen(s, 8) < 0)) {
		int e = -errno;
		close(s);
		return e;
	}
	return s;
}

static int
udp_send(
    int family, int type, int proto, const struct sockaddr *sa, socklen_t len)
{
	int s = socket(family, type | SOCK_CLOEXEC, proto), r = 0;
	/* An ICMP echo request, for raw and ping sockets. */
	unsigned char msg[8] = {8, 0, 0xf7, 0xff, 0, 0, 0, 0};

	if (s < 0)
		return -errno;
	if (sendto(s, msg, sizeof(msg), 0, sa, len) < 0)
		r = -errno;
	close(s);
	return r;
}

static void
show_ruleset(void)
{
	fflush(stdout);
	if (system("nft list ruleset 2>&1 | sed 's/^/# /'") != 0)
		printf("# nft list ruleset failed\n");
	fflush(stdout);
}

static int
sh(const char *cmd)
{
	int st;

	fflush(stdout);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct aisb_policy pol;

TEST(setup)
{
	double t0 = now_ms(), t1;

	pol.net.mode = AISB_NET_GATED;
	pol.net.transparent = true;
	is_int(net_lo_up(), 0, "net_lo_up in a fresh netns");
	is_int(net_gated_setup(&pol), 0,
	    "net_gated_setup: route and one "
	    "nftables batch, every ACK read, read back");
	t1 = now_ms();
	printf("# lo up + gated setup took %.2f ms\n", t1 - t0);
	is_int(nft_verify(&pol), 0, "nft_verify: ruleset matches");
	show_ruleset();
	ok(sh("nft list chain inet aisb capture 2>/dev/null | "
	      "grep -q 'redirect to :3129'") == 0,
	    "nft(8) sees the capture redirect to :%d", AISB_CAPTURE_PORT);
	ok(sh("nft list chain inet aisb output 2>/dev/null | "
	      "grep -q 'policy drop'") == 0,
	    "nft(8) sees output policy drop");
	ok(sh("ip route show 198.18.0.0/15 | grep -q 'dev lo'") == 0,
	    "198.18.0.0/15 is routed to lo");
	is_int(net_gated_setup(&pol), -EEXIST,
	    "a second setup in the same netns is refused, not merged");
}

TEST(capture)
{
	struct sockaddr_in dst = sin4("198.18.0.5", 443), orig, peer = {0};
	socklen_t len = sizeof(orig), plen = sizeof(peer);
	int l = listen_on("127.0.0.1", AISB_CAPTURE_PORT, SOCK_STREAM);
	int c = -1, a = -1, r;
	struct pollfd pfd = {.fd = l, .events = POLLIN};
	char buf[32];

	ok(l >= 0, "listener on 127.0.0.1:%d", AISB_CAPTURE_PORT);
	r = tcp_connect(AF_INET, (struct sockaddr *)&dst, sizeof(dst), &c);
	is_int(r, 0, "TCP connect to 198.18.0.5:443 succeeds (captured)");
	if (r == 0 && poll(&pfd, 1, 2000) == 1)
		a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	ok(a >= 0, "the capture listener accepted it");
	memset(&orig, 0, sizeof(orig));
	r = a >= 0 ? getsockopt(a, SOL_IP, SO_ORIGINAL_DST, &orig, &len) : -1;
	is_int(r, 0, "SO_ORIGINAL_DST on the accepted socket");
	inet_ntop(AF_INET, &orig.sin_addr, buf, sizeof(buf));
	is_str(buf, "198.18.0.5", "original destination address");
	is_int(ntohs(orig.sin_port), 443, "original destination port");
	r = c >= 0 ? getpeername(c, (struct sockaddr *)&peer, &plen) : -1;
	ok(r == 0 && peer.sin_addr.s_addr == dst.sin_addr.s_addr &&
	        peer.sin_port == dst.sin_port,
	    "the client still sees 198.18.0.5:443 as its peer");
	ok(a >= 0 && c >= 0 && write(c, "ping", 4) == 4 &&
	        read(a, buf, sizeof(buf)) == 4 && memcmp(buf, "ping", 4) == 0,
	    "bytes flow through the redirected connection");
	if (a >= 0)
		close(a);
	if (c >= 0)
		close(c);
	if (l >= 0)
		close(l);
}

TEST(loopback_twin)
{
	struct sockaddr_in a = sin4("127.0.0.1", PORT_TWIN);
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6,
	    .sin6_port = htons(PORT_TWIN),
	    .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	int l = listen_on("127.0.0.1", PORT_TWIN, SOCK_STREAM);
	int u = listen_on("127.0.0.1", PORT_TWIN, SOCK_DGRAM);
	int l6 = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	char buf[8];

	is_int(tcp_connect(AF_INET, (struct sockaddr *)&a, sizeof(a), NULL), 0,
	    "legitimate twin: TCP to 127.0.0.1 works");
	ok(u >= 0 &&
	        udp_send(AF_INET, SOCK_DGRAM, 0, (struct sockaddr *)&a,
	            sizeof(a)) == 0 &&
	        recv(u, buf, sizeof(buf), MSG_DONTWAIT) > 0,
	    "legitimate twin: UDP to 127.0.0.1 works");
	setsockopt(l6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (l6 >= 0 && bind(l6, (struct sockaddr *)&a6, sizeof(a6)) == 0 &&
	    listen(l6, 4) == 0)
		is_int(tcp_connect(
		           AF_INET6, (struct sockaddr *)&a6, sizeof(a6), NULL),
		    0, "legitimate twin: TCP to [::1] works");
	else
		tap_skip("no IPv6 on lo", "TCP to [::1]");
	close(l);
	close(u);
	if (l6 >= 0)
		close(l6);
}

TEST(blocked)
{
	struct sockaddr_in out = sin4("198.51.100.1", 80);
	struct sockaddr_in dns = sin4("198.51.100.1", 53);
	struct sockaddr_in syn53 = sin4("198.18.0.5", 53);
	struct sockaddr_in6 out6 = {
	    .sin6_family = AF_INET6, .sin6_port = htons(80)};
	int r;

	inet_pton(AF_INET6, "2001:db8::1", &out6.sin6_addr);
	r = tcp_connect(AF_INET, (struct sockaddr *)&out, sizeof(out), NULL);
	ok(r < 0, "TCP to 198.51.100.1:80 fails (%s)", strerror(-r));
	r = udp_send(
	    AF_INET, SOCK_DGRAM, 0, (struct sockaddr *)&dns, sizeof(dns));
	ok(r < 0, "UDP to 198.51.100.1:53 fails (%s)", strerror(-r));
	r = udp_send(
	    AF_INET, SOCK_DGRAM, 0, (struct sockaddr *)&syn53, sizeof(syn53));
	is_int(r, -EPERM,
	    "UDP to the synthetic range is rejected by the "
	    "filter (EPERM)");
	r = udp_send(AF_INET, SOCK_DGRAM, IPPROTO_ICMP, (struct sockaddr *)&out,
	    sizeof(out));
	ok(r < 0, "ping socket to 198.51.100.1 fails (%s)", strerror(-r));
	r = udp_send(AF_INET, SOCK_RAW, IPPROTO_ICMP, (struct sockaddr *)&out,
	    sizeof(out));
	ok(r < 0, "raw ICMP to 198.51.100.1 fails (%s)", strerror(-r));
	r = udp_send(AF_INET, SOCK_RAW, IPPROTO_ICMP, (struct sockaddr *)&syn53,
	    sizeof(syn53));
	ok(r < 0, "raw ICMP to 198.18.0.5 fails (%s)", strerror(-r));
	r = tcp_connect(AF_INET6, (struct sockaddr *)&out6, sizeof(out6), NULL);
	ok(r < 0, "TCP to [2001:db8::1]:80 fails (%s)", strerror(-r));
}

/*
 * With a second interface and a route, only the filter stands between
 * a socket and the wire: it must still refuse (EPERM), v4 and v6.
 */
TEST(filter_with_route)
{
	struct sockaddr_in out = sin4("198.51.100.1", 80);
	struct sockaddr_in dns = sin4("198.51.100.1", 53);
	struct sockaddr_in6 out6 = {
	    .sin6_family = AF_INET6, .sin6_port = htons(80)};
	int r;

	inet_pton(AF_INET6, "2001:db8::1", &out6.sin6_addr);
	/* Both ends of the pair stay in this netns. */
	if (sh("ip link add aisbv0 type veth peer name aisbv1 && "
	       "ip addr add 198.51.100.10/24 dev aisbv0 && "
	       "ip -6 addr add 2001:db8::10/64 dev aisbv0 nodad && "
	       "ip link set aisbv1 up && ip link set aisbv0 up") != 0) {
		tap_skip("cannot create a veth pair", "filter with a route");
		return;
	}
	ok(sh("ip route get 198.51.100.1 | grep -q aisbv0") == 0,
	    "198.51.100.1 now has a route");
	r = tcp_connect(AF_INET, (struct sockaddr *)&out, sizeof(out), NULL);
	ok(r == -ETIMEDOUT || r == -EPERM,
	    "routed TCP to 198.51.100.1:80 dropped by the filter (%s)",
	    strerror(-r));
	r = udp_send(
	    AF_INET, SOCK_DGRAM, 0, (struct sockaddr *)&dns, sizeof(dns));
	is_int(
	    r, -EPERM, "routed UDP to 198.51.100.1:53 dropped by the filter");
	r = udp_send(
	    AF_INET6, SOCK_DGRAM, 0, (struct sockaddr *)&out6, sizeof(out6));
	is_int(
	    r, -EPERM, "routed UDP to [2001:db8::1]:80 dropped by the filter");
	sh("ip link del aisbv0");
}

/* Each tamper case in a netns of its own, built the same way. */
static void
tamper(const char *cmd, const char *what)
{
	char c[512];

	if (unshare(CLONE_NEWNET) < 0 || net_lo_up() < 0 ||
	    net_gated_setup(&pol) < 0) {
		ok(0, "fresh netns for tamper case: %s", what);
		return;
	}
	snprintf(c, sizeof(c), "nft %s", cmd);
	if (sh(c) != 0) {
		ok(0, "nft %s", cmd);
		return;
	}
	is_int(nft_verify(&pol), -EPROTO, "verify detects: %s", what);
}

TEST(tamper)
{
	tamper("add rule inet aisb output tcp dport 22 accept",
	    "an extra rule in our chain");
	show_ruleset();
	tamper("insert rule inet aisb output accept",
	    "an accept-all rule inserted first");
	tamper("add table ip evil", "an extra table");
	tamper("'add chain inet aisb output { policy accept; }'",
	    "the output policy changed to accept");
	tamper(
	    "'flush chain inet aisb capture; delete chain inet aisb capture'",
	    "the capture chain missing");
	tamper("add chain inet aisb extra", "an extra regular chain");

	if (unshare(CLONE_NEWNET) == 0 && net_lo_up() == 0)
		is_int(nft_verify(&pol), -EPROTO,
		    "verify detects: nothing installed at all");
	else
		ok(0, "fresh netns for the empty case");
}

TEST(not_transparent)
{
	struct aisb_policy p = pol;
	struct sockaddr_in dst = sin4("198.18.0.5", 443);
	int l, r;

	p.net.transparent = false;
	if (unshare(CLONE_NEWNET) < 0 || net_lo_up() < 0) {
		ok(0, "fresh netns for transparent = false");
		return;
	}
	is_int(net_gated_setup(&p), 0, "setup with transparent = false");
	is_int(nft_verify(&p), 0, "its read-back matches");
	is_int(nft_verify(&pol), -EPROTO,
	    "and differs from the transparent ruleset");
	ok(sh("nft list table inet aisb | grep -q redirect") != 0,
	    "no redirect rule");
	l = listen_on("127.0.0.1", AISB_CAPTURE_PORT, SOCK_STREAM);
	r = tcp_connect(AF_INET, (struct sockaddr *)&dst, sizeof(dst), NULL);
	is_int(r, -ECONNREFUSED,
	    "TCP to 198.18.0.5:443 rejected at once "
	    "(no capture)");
	if (l >= 0)
		close(l);
}

static int
child(void)
{
	int r;

	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	if (geteuid() == 0 &&
	    (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	        setresuid(NOBODY, NOBODY, NOBODY) < 0)) {
		printf(
		    "not ok 1 - drop to nobody: %s\n1..1\n", strerror(errno));
		return 1;
	}
	/* The uid change made us non-dumpable: /proc/self would be root's. */
	prctl(PR_SET_DUMPABLE, 1);
	r = enter_userns();
	if (r < 0) {
		printf("1..0 # SKIP no unprivileged user+net namespace (%s)\n",
		    strerror(-r));
		return 0;
	}
	if (access("/usr/sbin/nft", X_OK) != 0) {
		printf(
		    "1..0 # SKIP nft(8) missing (apt-get install nftables)\n");
		return 0;
	}
	log_open("test_net", LOG_TO_STDERR);
	RUN(setup);
	RUN(capture);
	RUN(loopback_twin);
	RUN(blocked);
	RUN(filter_with_route);
	RUN(not_transparent);
	RUN(tamper);
	return tap_done();
}

int
main(void)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		st = child();
		fflush(stdout);
		_exit(st);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st)) {
		printf("not ok 1 - test child died (%d)\n", st);
		return 1;
	}
	return WEXITSTATUS(st);
}
