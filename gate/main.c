/*
 * main.c: aisb-gate, the egress gate.  Started only by aisb-shell
 * (shell/gatectl.c), with fd 3 a SOCK_SEQPACKET socket to the session:
 *
 *   aisb-gate --user NAME [--config FILE] --session ID --hash POLICYHASH
 *
 * It loads the policy itself as the session does and refuses to run
 * (exit 78) if the hash differs from the one aisb-shell computed; reads
 * the resolver addresses (network.resolver, or up to three nameservers
 * from /etc/resolv.conf); locks itself down (harden.c); then receives the
 * four listening sockets that the sandbox's init created inside the
 * sandbox netns, checks them, answers "ready" and serves until SIGTERM
 * (a clean exit, status 0) or until aisb-shell dies (PDEATHSIG).
 *
 * fd 4, when it is a SOCK_SEQPACKET socket, goes to aisb-shell itself:
 * the session's egress record and its notices (egress.c).  Without it
 * (tests/helpers/gatedrv by default) the gate keeps no record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "aisb.h"
#include "gate.h"
#include "log.h"
#include "policy.h"
#include "util.h"

#define CTL_FD 3
#define RECV_TIMEOUT_S 60
/* Room for the session CA's certificate in PEM (its P-256 certificate
 * takes well under 2 KiB), and the head of the "ca" message: "ca" and
 * its 8-digit subject hash (shell/gatectl.h). */
#define CA_PEM_MAX 16384
#define CA_MSG_HEAD 10

static int
read_text(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t have = 0;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	while (have + 1 < len) {
		ssize_t n = read(fd, buf + have, len - have - 1);

		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		have += (size_t)n;
	}
	buf[have] = '\0';
	return 0;
}

/* fd, if it is an open SOCK_SEQPACKET socket; else -1. */
static int
seqpacket_fd(int fd)
{
	int v = 0;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 ||
	    v != SOCK_SEQPACKET)
		return -1;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* fd, if it is a regular file open for appending; else -1. */
static int
append_fd(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || !(fl & O_APPEND) || (fl & O_ACCMODE) == O_RDONLY ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* Is fd a listening/bound socket of the kind and port we expect? */
static int
check_sock(int fd, int type, uint16_t port)
{
	int v = 0;
	socklen_t l = sizeof(v);
	struct sockaddr_in a = {0};

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) < 0 || v != AF_INET)
		return -EPROTO;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 || v != type)
		return -EPROTO;
	if (type == SOCK_STREAM) {
		l = sizeof(v);
		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l) < 0 || !v)
			return -EPROTO;
	}
	l = sizeof(a);
	if (getsockname(fd, (struct sockaddr *)&a, &l) < 0 ||
	    a.sin_addr.s_addr != htonl(INADDR_LOOPBACK) ||
	    ntohs(a.sin_port) != port)
		return -EPROTO;
	return 0;
}

static int
recv_sockets(int ctl, const struct aisb_policy *p, int socks[GS_COUNT])
{
	char data[32];
	union {
		char buf[CMSG_SPACE(sizeof(int) * GS_COUNT)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {data, sizeof(data)};
	struct msghdr m = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf)};
	struct timeval tv = {RECV_TIMEOUT_S, 0};
	struct cmsghdr *c;
	ssize_t n;
	int r = 0;

	for (int i = 0; i < GS_COUNT; i++)
		socks[i] = -1;
	(void)setsockopt(ctl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recvmsg(ctl, &m, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return log_errno(-errno,
		    "waiting for the sandbox's sockets: "
		    "%m");
	if (n == 0)
		return log_errno(-EPIPE,
		    "the session closed before sending "
		    "the gate its sockets");
	c = CMSG_FIRSTHDR(&m);
	if (c == NULL || c->cmsg_level != SOL_SOCKET ||
	    c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int) * GS_COUNT) ||
	    (m.msg_flags & MSG_CTRUNC))
		r = -EPROTO;
	else
		memcpy(socks, CMSG_DATA(c), sizeof(int) * GS_COUNT);
	if (r == 0 && ((size_t)n != 7 || memcmp(data, "sockets", 7) != 0))
		r = -EPROTO;
	if (r == 0)
		r = check_sock(socks[GS_PROXY], SOCK_STREAM, p->net.proxy_port);
	if (r == 0)
		r = check_sock(socks[GS_DNS_UDP], SOCK_DGRAM, 53);
	if (r == 0)
		r = check_sock(socks[GS_DNS_TCP], SOCK_STREAM, 53);
	if (r == 0)
		r = check_sock(
		    socks[GS_CAPTURE], SOCK_STREAM, AISB_CAPTURE_PORT);
	if (r < 0)
		return log_errno(r,
		    "the sockets from the sandbox are not "
		    "what the gate expects");
	return 0;
}

static void
usage(void)
{
	dprintf(2,
	    "usage: aisb-gate --user NAME [--config FILE] --session ID "
	    "--hash POLICYHASH\n(started by aisb-shell with fd 3 set up; "
	    "not for direct use)\n");
}

#if defined(__SANITIZE_ADDRESS__)
/* Leak checking needs ptrace, which the lockdown forbids. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"user", required_argument, NULL, 'u'},
	    {"config", required_argument, NULL, 'c'},
	    {"session", required_argument, NULL, 's'},
	    {"hash", required_argument, NULL, 'H'},
	    {"log-stderr", no_argument, NULL, 'L'},
#ifdef AISB_GATE_TEST
	    /* Test builds only (harden_lockdown_no_seccomp). */
	    {"debug-no-seccomp", no_argument, NULL, 'N'},
#endif
	    {NULL, 0, NULL, 0},
	};
	const char *user = NULL, *config = NULL, *session = "-", *hash = NULL;
	struct policy_opts po = {0};
	struct policy_errs errs = {0};
	struct aisb_policy *p = NULL;
	struct gate_opts o = {0};
	struct passwd *pw;
	int socks[GS_COUNT];
	int (*lockdown)(void) = harden_lockdown;
	char rc[8192];
	int c, r, v, rec_fd, log_fd;
	socklen_t vl = sizeof(v);

	/* Before anything opens a descriptor that could take its number. */
	rec_fd = seqpacket_fd(GATE_REC_FD);
	log_fd = append_fd(GATE_LOG_FD);
	log_open("aisb-gate", LOG_TO_SYSLOG | LOG_TO_STDERR);
	/* No syslog receiver: the session's file instead (record.c). */
	if (log_fd >= 0 && !log_syslog_ok())
		log_set_fallback(log_fd);
	else if (log_fd >= 0)
		close(log_fd);
	if (harden_early() < 0)
		return AISB_EX_HOST;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'u':
			user = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 's':
			session = optarg;
			break;
		case 'H':
			hash = optarg;
			break;
		case 'L':
			o.log_stderr = true;
			break;
#ifdef AISB_GATE_TEST
		case 'N':
			lockdown = harden_lockdown_no_seccomp;
			break;
#endif
		default:
			usage();
			return 2;
		}
	}
	if (user == NULL || hash == NULL || optind != argc) {
		usage();
		return 2;
	}
	log_set_session(session, user);
	if (getsockopt(CTL_FD, SOL_SOCKET, SO_TYPE, &v, &vl) < 0 ||
	    v != SOCK_SEQPACKET) {
		log_err("aisb-gate: fd 3 is not the session's socket; it is "
		        "started by aisb-shell only");
		return 2;
	}
	pw = getpwnam(user);
	if (pw == NULL) {
		log_err("aisb-gate: no user '%s'", user);
		return AISB_EX_CONFIG;
	}
	/*
	 * Exactly as a session loads it (shell/session.c): root-owned files
	 * only, and with --config FILE the users.d next to FILE (which the
	 * loader derives).  The hash check below catches any difference.
	 */
	po.user = user;
	po.home = pw->pw_dir;
	po.trusted_uid = (uid_t)-1;
	po.conf_path = config;
	r = policy_load(&po, &p, &errs);
	if (r < 0) {
		for (size_t i = 0; i < errs.n; i++)
			log_err("%s", errs.msg[i]);
		policy_errs_free(&errs);
		return r == -EINVAL ? AISB_EX_CONFIG : AISB_EX_HOST;
	}
	if (strcmp(p->hash, hash) != 0) {
		log_err(
		    "aisb-gate: the policy changed between aisb-shell and "
		    "the gate (hash %.12s, expected %.12s); start the session "
		    "again",
		    p->hash, hash);
		return AISB_EX_CONFIG;
	}
	if (p->net.mode != AISB_NET_GATED) {
		log_err("aisb-gate: network.mode is not \"gated\"");
		return AISB_EX_CONFIG;
	}
	/*
	 * Credentials: their values from the session, the origins' trust
	 * and the session CA, all before the lockdown; the CA's
	 * certificate goes back for the sandbox's /etc view.
	 */
	if (p->ncreds > 0) {
		char ca[CA_PEM_MAX], cahash[9], msg[CA_MSG_HEAD + CA_PEM_MAX];
		int n;

		if (vault_recv(CTL_FD, p) < 0)
			return AISB_EX_HOST;
		r = tls_init(p);
		if (r < 0)
			return r == -EINVAL ? AISB_EX_CONFIG : AISB_EX_HOST;
		if (ca_init(p, session) < 0 ||
		    (n = ca_pem(ca, sizeof(ca), cahash)) < 0)
			return AISB_EX_HOST;
		memcpy(msg, "ca", 2);
		memcpy(msg + 2, cahash, 8);
		memcpy(msg + CA_MSG_HEAD, ca, (size_t)n);
		if (send(CTL_FD, msg, (size_t)n + CA_MSG_HEAD, MSG_NOSIGNAL) !=
		    (ssize_t)n + CA_MSG_HEAD) {
			log_err("aisb-gate: cannot hand the session CA over: "
			        "%m");
			return AISB_EX_HOST;
		}
	}
	if (p->net.resolver == NULL || p->net.resolver[0] == '\0')
		(void)read_text("/etc/resolv.conf", rc, sizeof(rc));
	else
		rc[0] = '\0';
	/* Read now: the lockdown below leaves no file system access. */
	r = resolv_parse_conf(rc, p->net.resolver, o.resolver, o.resolver_len);
	if (r < 0) {
		log_err("aisb-gate: network.resolver '%s' is not ADDR[:PORT]",
		    p->net.resolver ? p->net.resolver : "");
		return AISB_EX_CONFIG;
	}
	o.nresolver = (size_t)r;
	o.policy = p;
	o.ctl_fd = CTL_FD;
	{
		sigset_t ss;

		sigemptyset(&ss);
		sigaddset(&ss, SIGTERM);
		if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0 ||
		    (o.sig_fd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC)) <
		        0) {
			log_err("aisb-gate: signalfd: %m");
			return AISB_EX_HOST;
		}
	}
	record_open(o.log_stderr, session, user);
	egress_open(rec_fd, p->net.notices);
	if (lockdown() < 0)
		return AISB_EX_HOST;
	if (recv_sockets(CTL_FD, p, socks) < 0) {
		(void)send(CTL_FD, "error", 5, MSG_NOSIGNAL);
		return AISB_EX_HOST;
	}
	if (send(CTL_FD, "ready", 5, MSG_NOSIGNAL) != 5)
		return AISB_EX_HOST;
	record_ready(session, user, p->net.nallow, p->net.ndeny);
	/*
	 * The policy parse and the lockdown leave freed heap behind: give
	 * it back before the gate settles into its loop (about 50 KiB).
	 */
	malloc_trim(0);
	r = loop_run(&o, socks);
	for (int i = 0; i < GS_COUNT; i++)
		close(socks[i]);
	/* The rest of the record, then aisb-shell sees the end (EOF). */
	egress_finish();
	/* The credentials and the session CA's keys: wiped. */
	vault_wipe();
	tls_reset();
	ca_reset();
	policy_free(p);
	if (r < 0) {
		log_errno(r, "aisb-gate: event loop: %m");
		return AISB_EX_HOST;
	}
	return 0;
}
