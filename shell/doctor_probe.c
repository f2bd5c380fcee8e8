/*
 * doctor_probe.c: the doctor's host probes.  See doctor.h.
 *
 * The kernel features run for real in forked children that take the
 * agent's uid, as aisb-shell would: a sysctl that looks right proves
 * nothing on a kernel with an LSM in the way (Ubuntu's
 * apparmor_restrict_unprivileged_userns).  The network probe sets up a
 * session's network in a new network namespace as init does, reads it
 * back, and tries the capture path.  The kernel check compares the
 * version with the oldest aisb runs on and mounts the /etc overlay the
 * way etcview.c does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "aisb.h"
#include "doctor.h"
#include "log.h"
#include "net.h"
#include "nft.h"
#include "userns.h"
#include "util.h"

/* The capture probe's destination: any synthetic address will do. */
#define PROBE_ADDR "198.18.0.1"
#define PROBE_PORT 443
#define PROBE_CAPTURE_MS 2000
/* Above netlink.c's timeouts plus the capture wait. */
#define PROBE_TIMEOUT_MS 15000

/* The oldest kernel aisb runs on (README, aisb-shell(8)): mount_setattr
 * is 5.12, overlayfs in a user namespace 5.11. */
#define KERNEL_MIN_MAJOR 5
#define KERNEL_MIN_MINOR 12
#define KERNEL_MIN "5.12"

#ifndef SO_ORIGINAL_DST
#define SO_ORIGINAL_DST 80 /* linux/netfilter_ipv4.h */
#endif

/* Child side: become uid/gid, enter a new userns (+ flags), map ourselves. */
static int
child_userns(uid_t uid, gid_t gid, int flags)
{
	if (getuid() == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			return -errno;
		/* The uid change made us non-dumpable, which makes our own
		 * /proc/self files root's: uid_map would be unwritable. */
		if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
			return -errno;
	}
	if (unshare(CLONE_NEWUSER | flags) < 0)
		return -errno;
	return userns_map_self(uid, gid, NULL);
}

/*
 * The capture path end to end, as the gate will use it: a TCP connect to
 * a synthetic address must land on 127.0.0.1:AISB_CAPTURE_PORT, and the
 * accepted socket must name the original destination (SO_ORIGINAL_DST,
 * which needs conntrack and nat).  Logs the one failure line.
 */
static int
child_capture(void)
{
	struct sockaddr_in lo = {.sin_family = AF_INET,
	                       .sin_port = htons(AISB_CAPTURE_PORT),
	                       .sin_addr.s_addr = htonl(INADDR_LOOPBACK)},
	                   dst = {.sin_family = AF_INET,
	                       .sin_port = htons(PROBE_PORT)},
	                   orig = {0};
	socklen_t len = sizeof(orig);
	_cleanup_close_ int l = -1, c = -1, a = -1;
	struct pollfd pfd;

	if (inet_pton(AF_INET, PROBE_ADDR, &dst.sin_addr) != 1)
		return -EINVAL;
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&lo, sizeof(lo)) < 0 ||
	    listen(l, 1) < 0)
		return log_errno(-errno,
		    "capture: cannot listen on 127.0.0.1:%d: %m",
		    AISB_CAPTURE_PORT);
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c < 0)
		return log_errno(-errno, "capture: socket: %m");
	if (connect(c, (struct sockaddr *)&dst, sizeof(dst)) < 0 &&
	    errno != EINPROGRESS)
		return log_errno(-errno,
		    "capture: connect to %s:%d was not redirected: %m",
		    PROBE_ADDR, PROBE_PORT);
	pfd = (struct pollfd){.fd = l, .events = POLLIN};
	if (poll(&pfd, 1, PROBE_CAPTURE_MS) != 1)
		return log_errno(-ETIMEDOUT,
		    "capture: a connect to %s:%d never reached "
		    "127.0.0.1:%d: %m",
		    PROBE_ADDR, PROBE_PORT, AISB_CAPTURE_PORT);
	a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (a < 0)
		return log_errno(-errno, "capture: accept: %m");
	if (getsockopt(a, SOL_IP, SO_ORIGINAL_DST, &orig, &len) < 0)
		return log_errno(-errno,
		    "capture: SO_ORIGINAL_DST on the redirected connection: "
		    "%m");
	if (orig.sin_addr.s_addr != dst.sin_addr.s_addr ||
	    orig.sin_port != dst.sin_port)
		return log_errno(-EPROTO,
		    "capture: SO_ORIGINAL_DST does not name %s:%d", PROBE_ADDR,
		    PROBE_PORT);
	return 0;
}

/*
 * What init does for the session's network, in the order it does it
 * (session.c): lo up, then for network.mode "gated" the synthetic route
 * and table inet aisb (applied in one batch and read back), then
 * nft_verify's read-back on a netlink socket of its own.  With
 * network.transparent the capture is tried for real too.
 */
static int
child_net(const struct aisb_policy *p)
{
	int r;

	if ((r = net_lo_up()) < 0 || p->net.mode != AISB_NET_GATED)
		return r;
	if ((r = net_gated_setup(p)) < 0 || (r = nft_verify(p)) < 0)
		return r;
	return p->net.transparent ? child_capture() : 0;
}

/*
 * The /etc view's overlay as etcview.c mounts it, in a new mount
 * namespace: three lower layers, an empty directory over a whiteout of
 * the same name over the host's /etc, with userxattr and no xattr.
 * Logs the one failure line.
 */
static int
child_overlay(void)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return log_errno(-errno, "overlay probe: private mounts: %m");
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
	        "size=64k,mode=0700") < 0)
		return log_errno(-errno, "overlay probe: tmpfs: %m");
	if (mkdir("/tmp/t", 0755) < 0 || mkdir("/tmp/t/d", 0755) < 0 ||
	    mkdir("/tmp/m", 0755) < 0 || mkdir("/tmp/o", 0755) < 0 ||
	    mknod("/tmp/m/d", S_IFCHR, 0) < 0)
		return log_errno(-errno, "overlay probe: its layers: %m");
	if (mount("overlay", "/tmp/o", "overlay", MS_RDONLY,
	        "lowerdir=/tmp/t:/tmp/m:/etc,userxattr") < 0)
		return log_errno(
		    -errno, "overlayfs does not mount in a user namespace: %m");
	if (access("/tmp/o/passwd", F_OK) < 0)
		return log_errno(
		    -errno, "the host's /etc does not show through it: %m");
	return 0;
}

/*
 * Fork, and in the child take uid/gid and enter a new user namespace;
 * with p, also a new network namespace where it sets the network up as
 * a session of p would; with etc (and no p), a new mount namespace where
 * it mounts the /etc overlay.  The child code logs its one failure line
 * to stderr: the child's stderr is a pipe, and that line comes back in
 * why ("" when nothing was logged).  Returns 0 or the child's -errno.
 */
static int
probe(uid_t uid, gid_t gid, const struct aisb_policy *p, bool etc, char *why,
    size_t n)
{
	char buf[512];
	int fds[2], st, r;
	size_t len = 0;
	bool hung = false;
	pid_t pid;

	why[0] = '\0';
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDERR_FILENO) < 0)
			_exit(EIO);
		r = child_userns(uid, gid,
		    p         ? CLONE_NEWNET
		        : etc ? CLONE_NEWNS
		              : 0);
		if (r == 0 && p)
			r = child_net(p);
		else if (r == 0 && etc)
			r = child_overlay();
		_exit(r < 0 ? (-r & 0xff) : 0);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
		ssize_t got;

		if (poll(&pfd, 1, PROBE_TIMEOUT_MS) != 1) {
			kill(pid, SIGKILL);
			hung = true;
			break;
		}
		got = read(fds[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		/* Keep what fits; drain the rest so the child never blocks. */
		if ((size_t)got > n - 1 - len)
			got = (ssize_t)(n - 1 - len);
		memcpy(why + len, buf, (size_t)got);
		len += (size_t)got;
	}
	close(fds[0]);
	why[len] = '\0';
	/* The first line, without log.c's "aisb: " prefix. */
	why[strcspn(why, "\n")] = '\0';
	if (strncmp(why, "aisb: ", 6) == 0)
		memmove(why, why + 6, strlen(why + 6) + 1);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (hung)
		return -ETIMEDOUT;
	if (!WIFEXITED(st))
		return -ECHILD;
	return -WEXITSTATUS(st);
}

void
doctor_probe_userns(struct doctor *d, uid_t uid, gid_t gid, const char *who)
{
	char v[64], why[512];
	bool apparmor =
	    doctor_read_small(
	        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns", v,
	        sizeof(v)) > 0 &&
	    strcmp(v, "0") != 0;
	int r;

	if (doctor_read_small(
	        "/proc/sys/user/max_user_namespaces", v, sizeof(v)) > 0 &&
	    strcmp(v, "0") == 0) {
		doctor_report(d, FAIL, "userns",
		    "sysctl -w user.max_user_namespaces=15000 (and in "
		    "/etc/sysctl.d)",
		    "user.max_user_namespaces is 0");
		return;
	}
	if (doctor_read_small("/proc/sys/kernel/unprivileged_userns_clone", v,
	        sizeof(v)) > 0 &&
	    strcmp(v, "0") == 0) {
		doctor_report(d, FAIL, "userns",
		    "sysctl -w kernel.unprivileged_userns_clone=1 (and in "
		    "/etc/sysctl.d)",
		    "kernel.unprivileged_userns_clone is 0");
		return;
	}
	r = probe(uid, gid, NULL, false, why, sizeof(why));
	if (r == 0)
		doctor_report(d, OK, "userns", NULL,
		    "%s can create a user namespace%s", who,
		    apparmor ? " (AppArmor restriction allows aisb-shell)"
		             : "");
	else if (apparmor)
		doctor_report(d, FAIL, "userns",
		    "load the aisb AppArmor profile (etc/apparmor.d) that "
		    "grants userns to aisb-shell, or sysctl -w "
		    "kernel.apparmor_restrict_unprivileged_userns=0",
		    "%s cannot create a user namespace: %s "
		    "(kernel.apparmor_restrict_unprivileged_userns=1)",
		    who, strerror(-r));
	else
		doctor_report(d, FAIL, "userns",
		    "enable unprivileged user namespaces (kernel config "
		    "USER_NS, sysctls, container seccomp)",
		    "%s cannot create a user namespace: %s", who, strerror(-r));
}

/*
 * A session's network as agent who would get it under policy p (its real
 * one, or the full gated ruleset when no agent exists yet).
 */
void
doctor_probe_nft(struct doctor *d, uid_t uid, gid_t gid, const char *who,
    const char *check, const struct aisb_policy *p)
{
	char why[512];
	const char *fix;
	int r = probe(uid, gid, p, false, why, sizeof(why));

	if (r == 0 && p->net.mode != AISB_NET_GATED) {
		doctor_report(d, OK, check, NULL,
		    "network.mode is \"none\": no ruleset needed (%s brings "
		    "lo up in its own network namespace)",
		    who);
		return;
	}
	if (r == 0) {
		if (p->net.transparent)
			doctor_report(d, OK, check, NULL,
			    "the gated ruleset applies and reads back as %s "
			    "in a new network namespace (table inet aisb; a "
			    "connect to %s:%d is captured on 127.0.0.1:%d "
			    "and SO_ORIGINAL_DST names it)",
			    who, PROBE_ADDR, PROBE_PORT, AISB_CAPTURE_PORT);
		else
			doctor_report(d, OK, check, NULL,
			    "the gated ruleset applies and reads back as %s "
			    "in a new network namespace (table inet aisb, "
			    "network.transparent off)",
			    who);
		return;
	}
	if (why[0] == '\0')
		fix = "enable unprivileged user and network namespaces (see "
		      "the userns check)";
	else if (strncmp(why, "network:", 8) == 0)
		fix = "allow rtnetlink in user namespaces (container seccomp, "
		      "LSM policy)";
	else if (strncmp(why, "capture:", 8) == 0)
		fix = "load conntrack and nat (modprobe nf_conntrack "
		      "nft_chain_nat nft_redirect), or set "
		      "network.transparent = false to use the proxy only";
	else
		fix = "load nftables with nat and reject (modprobe nf_tables "
		      "nft_chain_nat nft_redirect nft_reject_inet; kernel "
		      "NF_TABLES_INET, NFT_NAT, NFT_REDIR, NFT_REJECT_INET) "
		      "and allow nftables in user namespaces";
	doctor_report(d, FAIL, check, fix,
	    "%s cannot set up a %s session's network in a new network "
	    "namespace: %s",
	    who, p->net.mode == AISB_NET_GATED ? "gated" : "network.mode none",
	    why[0] ? why : strerror(-r));
}

/*
 * The kernel: not older than the oldest aisb runs on, and the /etc
 * overlay of a session mounts as agent who (a kernel built without
 * overlayfs, or an LSM that refuses it, passes the version and fails
 * here, as every session would).
 */
void
doctor_probe_kernel(struct doctor *d, uid_t uid, gid_t gid, const char *who)
{
	struct utsname u;
	unsigned major = 0, minor = 0;
	char why[512];
	int r;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2) {
		doctor_report(d, FAIL, "kernel",
		    "boot Linux " KERNEL_MIN " or later",
		    "cannot read the kernel's version");
		return;
	}
	if (major < KERNEL_MIN_MAJOR ||
	    (major == KERNEL_MIN_MAJOR && minor < KERNEL_MIN_MINOR)) {
		doctor_report(d, FAIL, "kernel",
		    "boot Linux " KERNEL_MIN " or later",
		    "Linux %s is older than " KERNEL_MIN ", the oldest aisb "
		    "runs on (mount_setattr; overlayfs in a user namespace)",
		    u.release);
		return;
	}
	r = probe(uid, gid, NULL, true, why, sizeof(why));
	if (r == 0)
		doctor_report(d, OK, "kernel", NULL,
		    "Linux %s (" KERNEL_MIN " or later); the /etc overlay "
		    "mounts as %s",
		    u.release, who);
	else
		doctor_report(d, FAIL, "kernel",
		    "a kernel with overlayfs (CONFIG_OVERLAY_FS) that mounts "
		    "in user namespaces, and no LSM rule against it",
		    "Linux %s: the /etc overlay of a session does not mount "
		    "as %s: %s",
		    u.release, who, why[0] ? why : strerror(-r));
}
