/*
 * gatectl.c: the session's side of aisb-gate (docs/architecture.md,
 * "The gate").
 *
 * The outer starts the gate before the sandbox netns exists, so the
 * gate lives in the host netns (it must reach the internet) as the
 * agent's uid; init creates the listening sockets inside the sandbox
 * netns (so they are reachable only from there) and passes them over a
 * SOCK_SEQPACKET socketpair.  Nothing runs inside the sandbox on the
 * gate's behalf, and the gate is in another pid namespace and not
 * dumpable: the sandbox can neither signal nor ptrace it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aisb.h"
#include "gatectl.h"
#include "log.h"
#include "util.h"

#define READY_TIMEOUT_MS 10000
#define GATECTL_DRAIN_MS 3000

/* A descriptor at fd, not closed on exec (fd may be src already). */
static int
move_fd(int src, int fd)
{
	if (src == fd)
		return fcntl(fd, F_SETFD, 0);
	return dup2(src, fd) < 0 ? -1 : 0;
}

int
gatectl_spawn_rec(const char *path, const char *const argv[], pid_t *ret_pid,
    int *ret_fd, int *ret_rec)
{
	static char *const envp[] = {NULL};
	union {
		const char *const *c;
		char *const *m;
	} av = {.c = argv};
	int sv[2], rv[2] = {-1, -1};
	pid_t parent = getpid(), pid;

	if (access(path, X_OK) < 0)
		return log_errno(-errno,
		    "the egress gate %s: %m (is aisb "
		    "installed completely?)",
		    path);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return log_errno(-errno, "socketpair: %m");
	if (ret_rec &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, rv) < 0) {
		int r = -errno;

		close(sv[0]);
		close(sv[1]);
		return log_errno(r, "socketpair: %m");
	}
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		close(sv[0]);
		close(sv[1]);
		if (rv[0] >= 0) {
			close(rv[0]);
			close(rv[1]);
		}
		return log_errno(r, "fork: %m");
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		int ctl, rec = -1, logf = -1, first;

		/* Die with the session; mind a parent that is already gone. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(AISB_EX_HOST);
		/* Its own session: no terminal's ^C or hangup reaches it. */
		if (setsid() < 0)
			_exit(AISB_EX_HOST);
		/*
		 * stdin and stdout on /dev/null: the gate must not hold the
		 * caller's channel (an ssh session's pipe) open; stderr
		 * stays, so start-up errors reach the caller.
		 */
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
			_exit(AISB_EX_HOST);
		/* Out of the way of 3 to 5 first, then into place: fd 3
		 * the session's end, fd 4 the egress record's, fd 5 the
		 * session's fallback log (slog.h) when there is one. */
		ctl = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
		if (rv[1] >= 0)
			rec = fcntl(rv[1], F_DUPFD_CLOEXEC, 10);
		if (rec >= 0 && log_fallback_fd() >= 0)
			logf = fcntl(log_fallback_fd(), F_DUPFD_CLOEXEC, 10);
		if (ctl < 0 || (rv[1] >= 0 && rec < 0) || move_fd(ctl, 3) < 0 ||
		    (rec >= 0 && move_fd(rec, 4) < 0) ||
		    (logf >= 0 && move_fd(logf, 5) < 0))
			_exit(AISB_EX_HOST);
		first = logf >= 0 ? 6 : rec >= 0 ? 5 : 4;
		if (close_range((unsigned)first, ~0U, 0) < 0)
			for (int fd = first; fd < 65536; fd++)
				close(fd);
		execve(path, av.m, envp);
		dprintf(2, "aisb: exec %s: %s\n", path, strerror(errno));
		_exit(AISB_EX_HOST);
	}
	close(sv[1]);
	*ret_pid = pid;
	*ret_fd = sv[0];
	if (ret_rec) {
		close(rv[1]);
		*ret_rec = rv[0];
	}
	return 0;
}

int
gatectl_spawn_path(
    const char *path, const char *const argv[], pid_t *ret_pid, int *ret_fd)
{
	return gatectl_spawn_rec(path, argv, ret_pid, ret_fd, NULL);
}

int
gatectl_spawn(const struct aisb_args *a, const struct aisb_policy *p,
    const char *session_id, pid_t *ret_pid, int *ret_fd, int *ret_rec)
{
	char self[PATH_MAX], path[PATH_MAX + 64];
	const char *argv[12];
	int n = 0;

	if (realpath("/proc/self/exe", self) == NULL)
		return log_errno(-errno, "realpath /proc/self/exe: %m");
	/* aisb-shell-main and the gate share LIBEXECDIR/aisb (or the build
	 * tree's libexec/aisb). */
	snprintf(path, sizeof(path), "%s/aisb-gate", dirname(self));
	argv[n++] = "aisb-gate";
	argv[n++] = "--user";
	argv[n++] = p->user;
	if (a && a->config) {
		argv[n++] = "--config";
		argv[n++] = a->config;
	}
	argv[n++] = "--session";
	argv[n++] = session_id ? session_id : "-";
	argv[n++] = "--hash";
	argv[n++] = p->hash;
	argv[n] = NULL;
	return gatectl_spawn_rec(path, argv, ret_pid, ret_fd, ret_rec);
}

static int
listen_on(int type, uint16_t port, int *ret)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	    .sin_port = htons(port),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	_cleanup_close_ int fd =
	    socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -errno;
	if (type == SOCK_STREAM && listen(fd, 512) < 0)
		return -errno;
	*ret = TAKE_FD(fd);
	return 0;
}

int
gatectl_hand_sockets(int fd, const struct aisb_policy *p)
{
	/* Order: proxy, DNS UDP, DNS TCP, capture (gate/gate.h GS_*). */
	const struct {
		int type;
		uint16_t port;
		const char *what;
	} want[4] = {
	    {SOCK_STREAM, p->net.proxy_port, "the HTTP proxy"},
	    {SOCK_DGRAM, 53, "the DNS stub (UDP)"},
	    {SOCK_STREAM, 53, "the DNS stub (TCP)"},
	    {SOCK_STREAM, AISB_CAPTURE_PORT, "the capture port"},
	};
	int socks[4] = {-1, -1, -1, -1};
	union {
		char buf[CMSG_SPACE(sizeof(socks))];
		struct cmsghdr align;
	} u;
	char tag[] = "sockets";
	struct iovec iov = {tag, 7};
	struct msghdr m = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c;
	int r = 0;

	for (int i = 0; i < 4 && r == 0; i++) {
		r = listen_on(want[i].type, want[i].port, &socks[i]);
		if (r < 0)
			log_errno(r,
			    "%s on 127.0.0.1:%u inside the sandbox: "
			    "%m",
			    want[i].what, want[i].port);
	}
	if (r == 0) {
		memset(&u, 0, sizeof(u));
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(socks));
		memcpy(CMSG_DATA(c), socks, sizeof(socks));
		if (sendmsg(fd, &m, MSG_NOSIGNAL) < 0)
			r = log_errno(-errno,
			    "handing the sockets to the "
			    "egress gate: %m (did it die? see the log)");
	}
	/* The gate holds its own copies now. */
	for (int i = 0; i < 4; i++)
		if (socks[i] >= 0)
			close(socks[i]);
	return r;
}

int
gatectl_send_creds(int fd, const struct cred_set *cs)
{
	/* "cred" I N PLEN VLEN, then the two strings. */
	char msg[10 + POLICY_CRED_MAX + CRED_MIN_RANDOM + POLICY_CRED_MAX];
	int r = 0;

	if (cs->n > POLICY_MAX_CREDS)
		return log_errno(-E2BIG, "too many credentials");
	for (size_t i = 0; i < cs->n && r == 0; i++) {
		const struct cred_value *v = &cs->v[i];
		size_t len = 10 + v->plen + v->vlen;

		if (v->plen > POLICY_CRED_MAX + CRED_MIN_RANDOM ||
		    v->vlen > POLICY_CRED_MAX)
			return log_errno(-E2BIG, "credential too large");
		memcpy(msg, "cred", 4);
		msg[4] = (char)i;
		msg[5] = (char)cs->n;
		msg[6] = (char)(v->plen >> 8);
		msg[7] = (char)(v->plen & 0xff);
		msg[8] = (char)(v->vlen >> 8);
		msg[9] = (char)(v->vlen & 0xff);
		memcpy(msg + 10, v->placeholder, v->plen);
		memcpy(msg + 10 + v->plen, v->value, v->vlen);
		if (send(fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len)
			r = log_errno(-errno,
			    "handing the credentials to the egress gate: %m "
			    "(did it die? see the log)");
	}
	explicit_bzero(msg, sizeof(msg));
	return r;
}

/* Wait for a message from the gate: 0 when one is there, or -errno. */
static int
wait_gate(int fd, const char *what)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int r;

	do
		r = poll(&pfd, 1, READY_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return log_errno(-errno, "waiting for the egress gate: %m");
	if (r == 0)
		return log_errno(-ETIMEDOUT,
		    "the egress gate did not send %s in %d s", what,
		    READY_TIMEOUT_MS / 1000);
	return 0;
}

int
gatectl_recv_ca(int fd, char **ret_pem, char hash[9])
{
	_cleanup_free_ char *buf = malloc(GATECTL_CA_MAX + 1);
	ssize_t n;
	int r;

	*ret_pem = NULL;
	if (buf == NULL)
		return -ENOMEM;
	if ((r = wait_gate(fd, "its certificate authority")) < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return r;
	n = recv(fd, buf, GATECTL_CA_MAX, MSG_DONTWAIT);
	if (n <= 0)
		return log_errno(-EPIPE,
		    "the egress gate exited before it sent its certificate "
		    "authority (see its message above or the log)");
	if (n < 10 + 27 || memcmp(buf, "ca", 2) != 0 ||
	    strspn(buf + 2, "0123456789abcdef") < 8)
		return log_errno(
		    -EPROTO, "the egress gate sent no certificate authority");
	buf[n] = '\0';
	if (memchr(buf + 10, '\0', (size_t)n - 10) != NULL ||
	    strncmp(buf + 10, "-----BEGIN CERTIFICATE-----\n", 28) != 0)
		return log_errno(-EPROTO,
		    "the egress gate's certificate authority is not PEM");
	memcpy(hash, buf + 2, 8);
	hash[8] = '\0';
	*ret_pem = strdup(buf + 10);
	return *ret_pem ? 0 : -ENOMEM;
}

int
gatectl_wait_ready(int fd)
{
	char reply[16];
	ssize_t n;
	int r;

	if ((r = wait_gate(fd, "\"ready\"")) < 0)
		return r;
	n = recv(fd, reply, sizeof(reply), 0);
	if (n == 5 && memcmp(reply, "ready", 5) == 0)
		return 0;
	if (n <= 0)
		return log_errno(-EPIPE,
		    "the egress gate exited before it "
		    "was ready (see its message above or the log)");
	return log_errno(-EPROTO, "the egress gate refused its sockets");
}

int
gatectl_send_sockets(int fd, const struct aisb_policy *p)
{
	int r;

	if ((r = gatectl_hand_sockets(fd, p)) < 0)
		return r;
	return gatectl_wait_ready(fd);
}

int
gatectl_check(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return -errno;
	if (si.si_pid == 0)
		return 0;
	if (si.si_code == CLD_EXITED)
		log_err("the egress gate (pid %d) exited with status %d: the "
		        "sandbox has no network egress",
		    pid, si.si_status);
	else
		log_err("the egress gate (pid %d) was killed by signal %d: "
		        "the sandbox has no network egress",
		    pid, si.si_status);
	return -ESRCH;
}

int
gatectl_stop(pid_t pid, void (*drain)(void *ctx, int ms), void *ctx)
{
	int st, r;

	if (pid <= 0)
		return 0;
	/* Dead before the end of the session: say so (it had no egress). */
	r = gatectl_check(pid);
	if (r == 0)
		(void)kill(pid, SIGTERM);
	/* Its last records come before its exit: read them meanwhile. */
	if (drain)
		drain(ctx, GATECTL_DRAIN_MS);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (r == 0 && (WIFSIGNALED(st) || WEXITSTATUS(st) != 0))
		log_warn("the egress gate ended with %s %d",
		    WIFSIGNALED(st) ? "signal" : "status",
		    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return r;
}
