/*
 * doctor.c: aisb-shell --doctor, host readiness (aisb-shell(8)).
 *
 * One line per check, "ok|warn|fail: CHECK: DETAIL", and for warn and
 * fail "; fix: WHAT TO DO".  Host checks first (user namespaces,
 * cgroups, /etc/shells, the PAM stacks), then for every agent it can
 * find (the users and @groups of `agents`, or only --user NAME): the
 * policy, the session's network as that policy sets it up (the gated
 * ruleset applied, read back and the capture tried, in a new netns),
 * the login shell, sshd's effective settings for that user,
 * cron.deny/at.deny, home and project.  Exit 1 when any check fails,
 * else 0.
 *
 * The host probes run the kernel features for real in forked children
 * that take the agent's uid, as aisb-shell would: a sysctl that looks
 * right proves nothing on a kernel with an LSM in the way (Ubuntu's
 * apparmor_restrict_unprivileged_userns).
 *
 * Environment (admin and tests only): AISB_SSHD_CONFIG names the sshd
 * config file to check instead of /etc/ssh/sshd_config.
 *
 * Issue 7 adds an in-session checker; it reuses report() and the
 * per-check functions below, which take no global state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "aisb.h"
#include "args.h"
#include "log.h"
#include "loginshell.h"
#include "net.h"
#include "nft.h"
#include "policy.h"
#include "userns.h"
#include "util.h"

#define SSHD_CONFIG "/etc/ssh/sshd_config"
#define PAM_DIR "/etc/pam.d"
#define MAX_AGENTS 1024
#define MAX_OUT (256 * 1024)
/* The capture probe's destination: any synthetic address will do. */
#define PROBE_ADDR "198.18.0.1"
#define PROBE_PORT 443
#define PROBE_CAPTURE_MS 2000
/* Above netlink.c's timeouts plus the capture wait. */
#define PROBE_TIMEOUT_MS 15000

#ifndef SO_ORIGINAL_DST
#define SO_ORIGINAL_DST 80 /* linux/netfilter_ipv4.h */
#endif

enum level { OK, WARN, FAIL };

struct doctor {
	unsigned n[3];
	const char *conf; /* --config FILE or NULL */
	const char *sshd_config;
	bool pam_session; /* pam_aisb in sshd's session stack */
	bool jailcheck; /* --doctor --jailcheck: a session per agent */
};

static void __attribute__((format(printf, 5, 6))) report(struct doctor *d,
    enum level l, const char *check, const char *fix, const char *fmt, ...)
{
	static const char *const name[] = {"ok", "warn", "fail"};
	va_list ap;

	d->n[l]++;
	printf("%s: %s: ", name[l], check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (l != OK && fix)
		printf("; fix: %s", fix);
	putchar('\n');
	fflush(stdout);
}

static int
read_small(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return (int)n;
}

/* ---- probes in a child with the agent's ids ------------------------- */

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
 * Fork, and in the child take uid/gid and enter a new user namespace;
 * with p, also a new network namespace where it sets the network up as
 * a session of p would.  The net code logs its one failure line to
 * stderr: the child's stderr is a pipe, and that line comes back in why
 * ("" when nothing was logged).  Returns 0 or the child's -errno.
 */
static int
probe(uid_t uid, gid_t gid, const struct aisb_policy *p, char *why, size_t n)
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
		r = child_userns(uid, gid, p ? CLONE_NEWNET : 0);
		if (r == 0 && p)
			r = child_net(p);
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

static void
check_userns(struct doctor *d, uid_t uid, gid_t gid, const char *who)
{
	char v[64], why[512];
	bool apparmor =
	    read_small("/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
	        v, sizeof(v)) > 0 &&
	    strcmp(v, "0") != 0;
	int r;

	if (read_small("/proc/sys/user/max_user_namespaces", v, sizeof(v)) >
	        0 &&
	    strcmp(v, "0") == 0) {
		report(d, FAIL, "userns",
		    "sysctl -w user.max_user_namespaces=15000 (and in "
		    "/etc/sysctl.d)",
		    "user.max_user_namespaces is 0");
		return;
	}
	if (read_small("/proc/sys/kernel/unprivileged_userns_clone", v,
	        sizeof(v)) > 0 &&
	    strcmp(v, "0") == 0) {
		report(d, FAIL, "userns",
		    "sysctl -w kernel.unprivileged_userns_clone=1 (and in "
		    "/etc/sysctl.d)",
		    "kernel.unprivileged_userns_clone is 0");
		return;
	}
	r = probe(uid, gid, NULL, why, sizeof(why));
	if (r == 0)
		report(d, OK, "userns", NULL,
		    "%s can create a user namespace%s", who,
		    apparmor ? " (AppArmor restriction allows aisb-shell)"
		             : "");
	else if (apparmor)
		report(d, FAIL, "userns",
		    "load the aisb AppArmor profile (etc/apparmor.d) that "
		    "grants userns to aisb-shell, or sysctl -w "
		    "kernel.apparmor_restrict_unprivileged_userns=0",
		    "%s cannot create a user namespace: %s "
		    "(kernel.apparmor_restrict_unprivileged_userns=1)",
		    who, strerror(-r));
	else
		report(d, FAIL, "userns",
		    "enable unprivileged user namespaces (kernel config "
		    "USER_NS, sysctls, container seccomp)",
		    "%s cannot create a user namespace: %s", who, strerror(-r));
}

/*
 * A session's network as agent who would get it under policy p (its real
 * one, or the full gated ruleset when no agent exists yet).
 */
static void
check_nft(struct doctor *d, uid_t uid, gid_t gid, const char *who,
    const char *check, const struct aisb_policy *p)
{
	char why[512];
	const char *fix;
	int r = probe(uid, gid, p, why, sizeof(why));

	if (r == 0 && p->net.mode != AISB_NET_GATED) {
		report(d, OK, check, NULL,
		    "network.mode is \"none\": no ruleset needed (%s brings "
		    "lo up in its own network namespace)",
		    who);
		return;
	}
	if (r == 0) {
		if (p->net.transparent)
			report(d, OK, check, NULL,
			    "the gated ruleset applies and reads back as %s "
			    "in a new network namespace (table inet aisb; a "
			    "connect to %s:%d is captured on 127.0.0.1:%d "
			    "and SO_ORIGINAL_DST names it)",
			    who, PROBE_ADDR, PROBE_PORT, AISB_CAPTURE_PORT);
		else
			report(d, OK, check, NULL,
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
	report(d, FAIL, check, fix,
	    "%s cannot set up a %s session's network in a new network "
	    "namespace: %s",
	    who, p->net.mode == AISB_NET_GATED ? "gated" : "network.mode none",
	    why[0] ? why : strerror(-r));
}

static bool
is_cgroup_mount(const char *path, long magic)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && (long)sf.f_type == magic;
}

static void
check_cgroup(struct doctor *d)
{
	static const char *const ctl[] = {"memory", "pids", "cpu"};
	char path[PATH_MAX], buf[512], missing[64] = "";
	bool v2 = is_cgroup_mount("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC);

	for (size_t i = 0; i < ELEMENTSOF(ctl); i++) {
		bool have;

		if (v2) {
			have = read_small("/sys/fs/cgroup/cgroup.controllers",
			           buf, sizeof(buf)) > 0;
			if (have) {
				char *s = buf, *tok, *save = NULL;

				have = false;
				while ((tok = strtok_r(s, " ", &save))) {
					s = NULL;
					have |= strcmp(tok, ctl[i]) == 0;
				}
			}
		} else {
			snprintf(
			    path, sizeof(path), "/sys/fs/cgroup/%s", ctl[i]);
			have = is_cgroup_mount(path, CGROUP_SUPER_MAGIC);
		}
		if (!have)
			snprintf(missing + strlen(missing),
			    sizeof(missing) - strlen(missing), " %s", ctl[i]);
	}
	if (missing[0])
		report(d, FAIL, "cgroup",
		    "mount the controllers (cgroup v2: enable them in "
		    "cgroup.subtree_control; v1: mount each hierarchy), or set "
		    "limits.enforce = \"best-effort\"",
		    "cgroup %s lacks:%s", v2 ? "v2" : "v1", missing);
	else
		report(d, OK, "cgroup", NULL,
		    "cgroup %s with memory, pids, cpu", v2 ? "v2" : "v1");
}

static void
check_shells(struct doctor *d)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/etc/shells", "re");
	bool bad = false;

	if (!f) {
		report(d, OK, "/etc/shells", NULL, "absent");
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		const char *base;

		line[strcspn(line, "\n")] = '\0';
		base = strrchr(line, '/');
		if (line[0] != '#' && base &&
		    strcmp(base + 1, LOGINSHELL_NAME) == 0) {
			report(d, FAIL, "/etc/shells",
			    "remove that line: a shell in /etc/shells lets "
			    "non-root callers pick another shell (su -s, chsh) "
			    "for the agent",
			    "lists '%s'", line);
			bad = true;
		}
	}
	fclose(f);
	if (!bad)
		report(d, OK, "/etc/shells", NULL, "aisb-shell not listed");
}

/* ---- PAM stacks ----------------------------------------------------- */

/*
 * Does a PAM control make PAM_PERM_DENIED fail the stack?  required and
 * requisite do; "[...]" does when perm_denied (or, without it, default)
 * maps to die or bad.
 */
static bool
control_refuses(const char *c)
{
	const char *act;

	if (strcmp(c, "required") == 0 || strcmp(c, "requisite") == 0)
		return true;
	if (c[0] != '[')
		return false;
	if ((act = strstr(c, "perm_denied=")))
		act += strlen("perm_denied=");
	else if ((act = strstr(c, "default=")))
		act += strlen("default=");
	else
		return false;
	return strncmp(act, "die", 3) == 0 || strncmp(act, "bad", 3) == 0;
}

/*
 * Does the stack of service have a line "TYPE CONTROL .../pam_aisb.so",
 * following "@include FILE" and "include"/"substack" controls?
 * *strong: its control refuses (required/requisite).
 */
static bool
pam_has(const char *service, const char *type, bool *strong, int depth)
{
	_cleanup_free_ char *line = NULL;
	char path[PATH_MAX];
	size_t cap = 0;
	bool found = false;
	FILE *f;

	if (depth > 8 || strchr(service, '/'))
		return false;
	snprintf(path, sizeof(path), "%s/%s", PAM_DIR, service);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *s = line, *t, *c, *m, *save = NULL;

		s[strcspn(s, "#\n")] = '\0';
		if (!(t = strtok_r(s, " \t", &save)))
			continue;
		if (strcmp(t, "@include") == 0) {
			if ((m = strtok_r(NULL, " \t", &save)))
				found = pam_has(m, type, strong, depth + 1);
			continue;
		}
		if (t[0] == '-')
			t++;
		if (strcmp(t, type) != 0)
			continue;
		/* The control: a word, or "[value=action ...]" with blanks. */
		s = save + strspn(save, " \t");
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (!end)
				continue;
			c = s;
			*end = '\0';
			save = end + 1;
		} else if (!(c = strtok_r(NULL, " \t", &save)))
			continue;
		if (!(m = strtok_r(NULL, " \t", &save)))
			continue;
		if (strcmp(c, "include") == 0 || strcmp(c, "substack") == 0) {
			found = pam_has(m, type, strong, depth + 1);
			continue;
		}
		t = strrchr(m, '/');
		if (strcmp(t ? t + 1 : m, "pam_aisb.so") == 0) {
			found = true;
			*strong = control_refuses(c);
		}
	}
	fclose(f);
	return found;
}

static void
check_pam(struct doctor *d)
{
	/*
	 * The first three start the login shell (account and session); the
	 * rest run commands without it and are refused only by the account
	 * line (ANCHORS.md section 3: cron, at, sudo, runuser, systemd --user).
	 */
	static const char *const svc[] = {"sshd", "su", "su-l", "cron", "atd",
	    "sudo", "runuser", "runuser-l", "systemd-user"};
	char check[64], fix[PATH_MAX + 200];

	for (size_t i = 0; i < ELEMENTSOF(svc); i++) {
		char path[PATH_MAX];
		bool strong = false;

		snprintf(path, sizeof(path), "%s/%s", PAM_DIR, svc[i]);
		if (access(path, F_OK) < 0)
			continue;
		snprintf(check, sizeof(check), "pam %s account", svc[i]);
		snprintf(fix, sizeof(fix),
		    "pam-auth-update --enable aisb, or add \"account required "
		    "pam_aisb.so\" to /etc/pam.d/common-account, or to %s if "
		    "it does not include that (see pam_aisb(8))",
		    path);
		if (!pam_has(svc[i], "account", &strong, 0))
			report(d, i < 3 ? FAIL : WARN, check, fix,
			    "%s has no pam_aisb account line", path);
		else if (!strong)
			report(d, FAIL, check,
			    "use \"account required pam_aisb.so\"",
			    "pam_aisb in %s cannot refuse (control is not "
			    "required/requisite)",
			    path);
		else
			report(d, OK, check, NULL,
			    "pam_aisb refuses agents on services not in "
			    "pam.services");
		if (i >= 3)
			continue;
		snprintf(check, sizeof(check), "pam %s session", svc[i]);
		if (pam_has(svc[i], "session", &strong, 0)) {
			report(d, OK, check, NULL,
			    "pam_aisb prepares home, /run/aisb and the session "
			    "cgroup");
			if (i == 0)
				d->pam_session = true;
		} else
			report(d, WARN, check,
			    "pam-auth-update --enable aisb, or add \"session "
			    "optional pam_aisb.so\" (see pam_aisb(8))",
			    "%s has no pam_aisb session line: no home made, no "
			    "delegated cgroup for limits",
			    path);
	}
}

/* ---- sshd ------------------------------------------------------------ */

/* Run argv, collect stdout (and stderr into err).  Exit status or -errno. */
static int
run_capture(char *const argv[], char **out, char *err, size_t errlen)
{
	int po[2], pe[2], st;
	size_t len = 0, cap = 65536;
	ssize_t n;
	pid_t pid;

	*out = NULL;
	err[0] = '\0';
	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]), close(po[1]);
		return -errno;
	}
	fflush(stdout);
	if ((pid = fork()) < 0)
		return -errno;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	*out = malloc(cap);
	while (*out && (n = read(po[0], *out + len, cap - len - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
		if (len + 1 >= cap) {
			char *nb =
			    cap < MAX_OUT ? realloc(*out, cap * 2) : NULL;

			if (!nb)
				break;
			*out = nb;
			cap *= 2;
		}
	}
	if (*out)
		(*out)[len] = '\0';
	close(po[0]);
	n = read(pe[0], err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	err[strcspn(err, "\n")] = '\0';
	close(pe[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Value of "key value" in sshd -T output, the n-th occurrence; NULL. */
static const char *
sshd_val(const char *out, const char *key, unsigned nth, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = out;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);

		if (ll > kl && strncmp(p, key, kl) == 0 && p[kl] == ' ' &&
		    nth-- == 0) {
			snprintf(
			    buf, len, "%.*s", (int)(ll - kl - 1), p + kl + 1);
			return buf;
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

static void
check_sshd(struct doctor *d, const struct passwd *pw)
{
	static const struct {
		const char *key, *want;
	} must[] = {
	    {"disableforwarding", "yes"},
	    {"allowtcpforwarding", "no"},
	    {"allowstreamlocalforwarding", "no"},
	    {"allowagentforwarding", "no"},
	    {"x11forwarding", "no"},
	    {"permittunnel", "no"},
	    {"permituserrc", "no"},
	    {"permitlisten", "none"},
	    {"permitopen", "none"},
	};
	char sshd[] = "/usr/sbin/sshd", opt_t[] = "-T", opt_f[] = "-f";
	char opt_c[] = "-C", conf[PATH_MAX];
	_cleanup_free_ char *out = NULL;
	char spec[512], err[512], check[300], v[1024], bad[8192] = "";
	char *argv[] = {sshd, opt_t, opt_f, conf, opt_c, spec, NULL};
	const char *fix =
	    "copy the shipped drop-in (packages: "
	    "/usr/share/aisb/sshd_config.d/aisb.conf; source tree: "
	    "etc/ssh/sshd_config.d/aisb.conf) to "
	    "/etc/ssh/sshd_config.d/aisb.conf and add the agent "
	    "to group ai-agents (usermod -aG ai-agents AGENT)";
	int r;

	if (access(sshd, X_OK) < 0) {
		snprintf(check, sizeof(check), "sshd[%s]", pw->pw_name);
		report(d, WARN, check, "re-run --doctor after installing sshd",
		    "%s not installed: not checked", sshd);
		return;
	}
	snprintf(spec, sizeof(spec), "user=%s,host=localhost,addr=127.0.0.1",
	    pw->pw_name);
	snprintf(conf, sizeof(conf), "%s", d->sshd_config);
	r = run_capture(argv, &out, err, sizeof(err));
	if (r != 0 || !out || !*out) {
		snprintf(check, sizeof(check), "sshd[%s]", pw->pw_name);
		report(d, FAIL, check,
		    strstr(err, "privilege separation")
		        ? "mkdir -p -m 0755 /run/sshd"
		        : "sshd -t -f CONFIG shows the error",
		    "sshd -T -f %s failed (%d): %s", d->sshd_config, r,
		    err[0] ? err : "no output");
		return;
	}

	/* Forwarding, tunnels, rc: the shell-less ways out of the sandbox. */
	snprintf(check, sizeof(check), "sshd forwarding[%s]", pw->pw_name);
	for (size_t i = 0; i < ELEMENTSOF(must); i++) {
		if (sshd_val(out, must[i].key, 0, v, sizeof(v)) &&
		    strcmp(v, must[i].want) == 0)
			continue;
		snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
		    "%s%s %s", bad[0] ? ", " : "", must[i].key,
		    sshd_val(out, must[i].key, 0, v, sizeof(v)) ? v
		                                                : "(unset)");
	}
	if (bad[0])
		report(d, FAIL, check, fix, "%s", bad);
	else
		report(d, OK, check, NULL,
		    "forwarding, tunnels and ~/.ssh/rc disabled");

	/* Subsystems: an in-process internal-sftp skips the login shell. */
	snprintf(check, sizeof(check), "sshd sftp[%s]", pw->pw_name);
	bad[0] = '\0';
	for (unsigned i = 0; sshd_val(out, "subsystem", i, v, sizeof(v)); i++)
		if (strstr(v, "internal-sftp"))
			snprintf(bad, sizeof(bad), "subsystem %s", v);
	if (sshd_val(out, "forcecommand", 0, v, sizeof(v)) &&
	    strstr(v, "internal-sftp"))
		snprintf(bad, sizeof(bad), "forcecommand %s", v);
	if (bad[0])
		report(d, FAIL, check,
		    "use \"Subsystem sftp /usr/lib/openssh/sftp-server\" (runs "
		    "as aisb-shell -c, inside the sandbox) and no ForceCommand "
		    "internal-sftp",
		    "%s runs inside sshd, outside the sandbox", bad);
	else
		report(d, OK, check, NULL,
		    "no internal-sftp: sftp and scp run through the login "
		    "shell");

	/* The environment reaches aisb-shell before its main(). */
	snprintf(check, sizeof(check), "sshd environment[%s]", pw->pw_name);
	bad[0] = '\0';
	if (!sshd_val(out, "permituserenvironment", 0, v, sizeof(v)) ||
	    strcmp(v, "no") != 0)
		snprintf(bad, sizeof(bad), "permituserenvironment %s", v);
	for (unsigned i = 0; sshd_val(out, "acceptenv", i, v, sizeof(v)); i++)
		if (strcmp(v, "LANG") != 0 && strcmp(v, "LC_*") != 0 &&
		    strncmp(v, "LC_", 3) != 0)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
			    "%sacceptenv %s", bad[0] ? ", " : "", v);
	if (bad[0])
		report(d, FAIL, check,
		    "in /etc/ssh/sshd_config: PermitUserEnvironment no, "
		    "AcceptEnv LANG LC_* only",
		    "%s", bad);
	else
		report(d, OK, check, NULL,
		    "no user environment, AcceptEnv LANG LC_* only");

	/* Keys the agent cannot write. */
	snprintf(check, sizeof(check), "sshd keys[%s]", pw->pw_name);
	bad[0] = '\0';
	if (sshd_val(out, "authorizedkeysfile", 0, v, sizeof(v))) {
		char *s = v, *tok, *save = NULL;

		while ((tok = strtok_r(s, " ", &save))) {
			char path[PATH_MAX];
			struct stat st;

			s = NULL;
			if (tok[0] != '/' || strstr(tok, "%h") ||
			    strstr(tok, "%U")) {
				snprintf(bad, sizeof(bad),
				    "'%s' is in the agent's home", tok);
				break;
			}
			/* %u and %% are the only other tokens we expect. */
			{
				size_t o = 0;

				for (const char *c = tok;
				     *c && o + 1 < sizeof(path); c++) {
					if (c[0] == '%' && c[1] == 'u') {
						o += (size_t)snprintf(path + o,
						    sizeof(path) - o, "%s",
						    pw->pw_name);
						c++;
					} else if (c[0] == '%' && c[1] == '%') {
						path[o++] = '%';
						c++;
					} else
						path[o++] = *c;
				}
				path[o < sizeof(path) ? o : sizeof(path) - 1] =
				    '\0';
			}
			if (stat(path, &st) == 0 &&
			    (st.st_uid != 0 || (st.st_mode & 022))) {
				snprintf(bad, sizeof(bad),
				    "'%s' is not root-owned or is writable by "
				    "others",
				    path);
				break;
			}
		}
	}
	if (bad[0])
		report(d, FAIL, check, fix, "%s", bad);
	else
		report(
		    d, OK, check, NULL, "authorized keys root-owned (%s)", v);

	snprintf(check, sizeof(check), "sshd pam[%s]", pw->pw_name);
	if (sshd_val(out, "usepam", 0, v, sizeof(v)) && strcmp(v, "yes") == 0)
		report(d, OK, check, NULL, "UsePAM yes");
	else
		report(d, WARN, check, "UsePAM yes in /etc/ssh/sshd_config",
		    "UsePAM is not yes: pam_aisb never runs for sshd logins");
}

/* ---- per agent ------------------------------------------------------- */

/* Is user in FILE (one name a line)?  -ENOENT when FILE is absent. */
static int
listed(const char *file, const char *user)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	int r = 0;
	FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	while (!r && getline(&line, &cap, f) > 0) {
		line[strcspn(line, " \t\r\n")] = '\0';
		r = strcmp(line, user) == 0;
	}
	fclose(f);
	return r;
}

static void
check_deny(struct doctor *d, const char *user, const char *what,
    const char *allow, const char *deny)
{
	char check[300], fix[300];

	snprintf(check, sizeof(check), "%s[%s]", what, user);
	snprintf(fix, sizeof(fix), "echo %s >> %s", user, deny);
	if (listed(allow, user) == 0) /* allow file exists, agent not in */
		report(d, OK, check, NULL,
		    "%s exists and does not list the agent", allow);
	else if (listed(allow, user) == 1)
		report(d, FAIL, check, "remove the agent from the allow file",
		    "%s lists the agent: its jobs run without aisb-shell",
		    allow);
	else if (listed(deny, user) == 1)
		report(d, OK, check, NULL, "listed in %s", deny);
	else
		report(d, FAIL, check, fix,
		    "not in %s: jobs run by /bin/sh, not by aisb-shell", deny);
}

/* Walk the directories above path: root-owned, not writable by others. */
static const char *
unsafe_parent(const char *path, char *buf, size_t len)
{
	char *slash;
	struct stat st;

	snprintf(buf, len, "%s", path);
	while ((slash = strrchr(buf, '/')) && slash != buf) {
		*slash = '\0';
		if (lstat(buf, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode) || st.st_uid != 0 ||
		    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
			return buf;
	}
	return NULL;
}

static void
check_dir(struct doctor *d, const struct passwd *pw, const char *what,
    const char *path, bool made_at_login)
{
	char check[300], fix[PATH_MAX + 100], pbuf[PATH_MAX];
	struct stat st;

	snprintf(check, sizeof(check), "%s[%s]", what, pw->pw_name);
	if (unsafe_parent(path, pbuf, sizeof(pbuf))) {
		report(d, FAIL, check,
		    "make every directory above it root-owned and not writable "
		    "by others",
		    "'%s' above %s is a symlink, not root-owned or writable by "
		    "others",
		    pbuf, path);
		return;
	}
	if (lstat(path, &st) < 0) {
		snprintf(fix, sizeof(fix), "install -d -o %s -g %u -m 0700 %s",
		    pw->pw_name, (unsigned)pw->pw_gid, path);
		if (made_at_login)
			report(d, WARN, check, fix,
			    "%s does not exist yet (pam_aisb makes it at the "
			    "first login)",
			    path);
		else
			report(d, FAIL, check, fix,
			    "%s does not exist (aisb-shell refuses the "
			    "session, exit 78)",
			    path);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		report(d, FAIL, check, "make it a directory",
		    "%s is not a directory", path);
	else if (st.st_uid != pw->pw_uid && st.st_uid != 0)
		report(d, FAIL, check, "chown it to the agent",
		    "%s is owned by uid %u", path, (unsigned)st.st_uid);
	else if (st.st_mode & 002)
		report(
		    d, FAIL, check, "chmod o-w", "%s is world-writable", path);
	else
		report(d, OK, check, NULL, "%s (uid %u, mode %04o)", path,
		    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
}

static int
load(const struct doctor *d, const struct passwd *pw, bool with_user,
    struct aisb_policy **ret, struct policy_errs *errs)
{
	struct policy_opts o = {
	    .user = pw->pw_name,
	    .home = pw->pw_dir,
	    .conf_path = d->conf, /* users.d beside it: the loader's rule */
	    .system_only = !with_user,
	    .trusted_uid = d->conf ? getuid() : (uid_t)-1,
	};

	/* Cleared first: the caller reads and frees errs on every failure. */
	memset(errs, 0, sizeof(*errs));
	return policy_load(&o, ret, errs);
}

/* ---- --doctor --jailcheck: the in-session audit, as each agent ------- */

/*
 * Run a real session as PW (aisb-shell [--config F] -c 'SELF
 * --jailcheck') and report its findings.  The binary must be visible
 * inside (an installed /usr/bin/aisb-shell is; a build tree under a
 * hidden directory is not: that is reported, not guessed around).
 */
static void
check_jailcheck(struct doctor *d, const struct passwd *pw)
{
	_cleanup_free_ char *self = realpath("/proc/self/exe", NULL);
	_cleanup_free_ char *out = NULL;
	char check[300], cmd[PATH_MAX + 32], env_home[PATH_MAX + 8],
	    env_user[300];
	int fds[2], st = 0, n = 0;
	size_t len = 0;
	pid_t pid;

	snprintf(check, sizeof(check), "jailcheck[%s]", pw->pw_name);
	if (!self || strchr(self, '\'') || !(out = malloc(MAX_OUT))) {
		report(d, FAIL, check, NULL, "cannot name this binary");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' --jailcheck", self);
	snprintf(env_home, sizeof(env_home), "HOME=%s", pw->pw_dir);
	snprintf(env_user, sizeof(env_user), "USER=%s", pw->pw_name);
	if (pipe2(fds, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		report(d, FAIL, check, NULL, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		char a0[] = "aisb-shell", a1[] = "--config", a3[] = "-c",
		     path[] = "PATH=/usr/local/bin:/usr/bin:/bin",
		     conf[PATH_MAX];
		char *argv[] = {a0, a1, conf, a3, cmd, NULL};
		char *envp[] = {path, env_home, env_user, NULL};
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 ||
		    dup2(fds[1], 2) < 0 ||
		    initgroups(pw->pw_name, pw->pw_gid) < 0 ||
		    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
			_exit(126);
		snprintf(conf, sizeof(conf), "%s", d->conf ? d->conf : "");
		if (!d->conf) {
			argv[1] = a3;
			argv[2] = cmd;
			argv[3] = NULL;
		}
		execve(self, argv, envp);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		ssize_t r;

		if (poll(&p, 1, 120 * 1000) != 1) {
			kill(pid, SIGKILL);
			break;
		}
		r = read(fds[0], out + len, MAX_OUT - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == MAX_OUT - 1)
			break;
	}
	out[len] = '\0';
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	    strstr(out, "jailcheck: clean")) {
		report(d, OK, check, NULL,
		    "a session of %s exposes nothing "
		    "unexpected",
		    pw->pw_name);
		return;
	}
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
		if (strstr(l, "FOUND") && n++ < 8)
			report(d, FAIL, check,
			    "tighten the policy "
			    "(filesystem.hide, fewer binds)",
			    "%s", l);
	if (n == 0)
		report(d, FAIL, check,
		    "run aisb-shell -c 'aisb-shell "
		    "--jailcheck' as the agent; the binary must be visible "
		    "inside",
		    "the check did not run (status %d)%s%.300s",
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
		    len ? ": " : "", out);
}

static void
check_agent(struct doctor *d, const struct passwd *pw)
{
	struct aisb_policy *p = NULL;
	struct policy_errs errs;
	char check[300], why[512], fix[PATH_MAX];

	snprintf(check, sizeof(check), "policy[%s]", pw->pw_name);
	if (load(d, pw, true, &p, &errs) < 0) {
		for (size_t i = 0; i < errs.n && i < 8; i++)
			report(d, FAIL, check,
			    "correct the file (aisb.conf(5)); aisb-shell "
			    "--check-config --user AGENT",
			    "%s", errs.msg[i]);
		if (errs.n == 0)
			report(d, FAIL, check, "aisb-shell --check-config",
			    "does not load");
		policy_errs_free(&errs);
	} else {
		policy_errs_free(&errs);
		report(d, OK, check, NULL, "loads (%s)",
		    d->conf ? d->conf : AISB_CONF_PATH);
		if (!policy_is_agent(p, pw->pw_name))
			report(d, WARN, check,
			    "list it in agents (or drop --user)",
			    "'%s' is not in agents", pw->pw_name);
	}

	snprintf(check, sizeof(check), "login shell[%s]", pw->pw_name);
	{
		/* Suggest the binary that is running: the installed one. */
		_cleanup_free_ char *self = realpath("/proc/self/exe", NULL);

		snprintf(fix, sizeof(fix), "usermod -s %s %s",
		    self ? self : "/usr/bin/aisb-shell", pw->pw_name);
	}
	if (loginshell_check(pw->pw_shell, why, sizeof(why)) == 0)
		report(d, OK, check, NULL, "%s", pw->pw_shell);
	else
		report(d, FAIL, check, fix, "%s", why);

	snprintf(check, sizeof(check), "nftables[%s]", pw->pw_name);
	snprintf(why, sizeof(why), "agent '%s'", pw->pw_name);
	if (p)
		check_nft(d, pw->pw_uid, pw->pw_gid, why, check, p);
	else
		report(d, WARN, check, "correct the policy first",
		    "not probed: the policy does not load");

	check_sshd(d, pw);
	check_deny(
	    d, pw->pw_name, "cron.deny", "/etc/cron.allow", "/etc/cron.deny");
	check_deny(d, pw->pw_name, "at.deny", "/etc/at.allow", "/etc/at.deny");
	if (p) {
		if (p->home.path && !p->home.tmpfs)
			check_dir(d, pw, "home", p->home.path, d->pam_session);
		if (p->project.path)
			check_dir(d, pw, "project", p->project.path, false);
	}
	policy_free(p);
	if (d->jailcheck)
		check_jailcheck(d, pw);
}

/* ---- finding the agents ---------------------------------------------- */

static bool
names_has(char **names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return true;
	return false;
}

static void
names_add(char **names, size_t *n, const char *s)
{
	if (*n < MAX_AGENTS && !names_has(names, *n, s))
		if ((names[*n] = strdup(s)))
			(*n)++;
}

/* Users named by agents: "name" and the members of "@group" (primary too). */
static size_t
find_agents(const struct aisb_policy *p, char **names)
{
	size_t n = 0;

	for (size_t i = 0; i < p->agents.n; i++) {
		const char *a = p->agents.v[i];
		struct group *g;
		struct passwd *pw;

		if (a[0] != '@') {
			names_add(names, &n, a);
			continue;
		}
		if (!(g = getgrnam(a + 1)))
			continue;
		for (char **m = g->gr_mem; *m; m++)
			names_add(names, &n, *m);
		setpwent();
		while ((pw = getpwent()))
			if (pw->pw_gid == g->gr_gid)
				names_add(names, &n, pw->pw_name);
		endpwent();
	}
	return n;
}

int
doctor_main(const struct aisb_args *a)
{
	struct doctor d = {.conf = a->config, .jailcheck = a->jailcheck};
	struct aisb_policy *p = NULL;
	struct policy_errs errs;
	struct passwd *pw, self;
	char *names[MAX_AGENTS];
	size_t n = 0;
	uid_t puid = 65534;
	gid_t pgid = 65534;
	char who[300] = "uid 65534";
	bool found = false;

	d.sshd_config = secure_getenv("AISB_SSHD_CONFIG");
	if (!d.sshd_config || d.sshd_config[0] != '/')
		d.sshd_config = SSHD_CONFIG;

	/* The agents: from the system policy, or --user. */
	if (!(pw = getpwuid(getuid()))) {
		fprintf(stderr, "aisb-shell: --doctor: who am I?\n");
		return 1;
	}
	self = *pw;
	self.pw_name = strdup(pw->pw_name);
	self.pw_dir = strdup(pw->pw_dir);
	if (load(&d, &self, false, &p, &errs) < 0) {
		for (size_t i = 0; i < errs.n && i < 8; i++)
			report(&d, FAIL, "policy",
			    "correct the file (aisb.conf(5))", "%s",
			    errs.msg[i]);
		if (errs.n == 0)
			report(&d, FAIL, "policy", "aisb-shell --check-config",
			    "%s does not load",
			    d.conf ? d.conf : AISB_CONF_PATH);
		policy_errs_free(&errs);
	} else {
		policy_errs_free(&errs);
		n = find_agents(p, names);
	}
	policy_free(p);
	free(self.pw_name);
	free(self.pw_dir);
	if (a->user) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		n = 0;
		names_add(names, &n, a->user);
	}
	if (n == 0)
		report(&d, WARN, "agents",
		    "list users or @groups in agents of aisb.conf",
		    "no agent account found");

	/* Probe as the first agent that exists (as aisb-shell would run). */
	for (size_t i = 0; i < n && !found; i++)
		if ((pw = getpwnam(names[i]))) {
			puid = pw->pw_uid;
			pgid = pw->pw_gid;
			snprintf(who, sizeof(who), "agent '%s'", pw->pw_name);
			found = true;
		}
	check_userns(&d, puid, pgid, who);
	/* Each agent's network is probed with its own policy below; with
	 * no agent yet, the most demanding one: gated, with the capture. */
	if (!found)
		check_nft(&d, puid, pgid, who, "nftables",
		    &(struct aisb_policy){
		        .net = {.mode = AISB_NET_GATED, .transparent = true}});
	check_cgroup(&d);
	check_shells(&d);
	check_pam(&d);

	for (size_t i = 0; i < n; i++) {
		struct passwd copy;

		if (!(pw = getpwnam(names[i]))) {
			char check[300];

			snprintf(check, sizeof(check), "account[%s]", names[i]);
			report(&d, a->user ? FAIL : WARN, check,
			    "useradd it or remove it from agents",
			    "no such user");
			free(names[i]);
			continue;
		}
		copy = *pw;
		copy.pw_name = strdup(pw->pw_name);
		copy.pw_dir = strdup(pw->pw_dir);
		copy.pw_shell = strdup(pw->pw_shell);
		if (copy.pw_name && copy.pw_dir && copy.pw_shell)
			check_agent(&d, &copy);
		free(copy.pw_name);
		free(copy.pw_dir);
		free(copy.pw_shell);
		free(names[i]);
	}
	printf("aisb doctor: %u ok, %u warn, %u fail\n", d.n[OK], d.n[WARN],
	    d.n[FAIL]);
	return d.n[FAIL] ? 1 : 0;
}
