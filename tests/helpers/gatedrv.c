/*
 * gatedrv.c: drive aisb-gate the way a session does, without the rest
 * of the sandbox (tests/gate/).
 *
 *   gatedrv --config FILE --user NAME --gate PATH [--no-seccomp]
 *           [--wrap PROG] [--nft] [--records FILE] [--ca-out FILE]
 *
 * Loads the policy, spawns the gate with gatectl_spawn_path() (so the
 * gate stays in this netns, the "host"), then enters a new network
 * namespace (and user namespace when not root) as init does, brings lo
 * up (--nft: net_gated_setup(), the session's own routing and nftables
 * capture), creates and hands over the listening sockets with
 * gatectl_send_sockets(), prints "ready GATEPID" and waits for SIGTERM,
 * which it passes on to the gate (as the session does at its end).
 * --records FILE: the gate gets its egress record socket (fd 4, as in
 * a session) and every message it sends is appended to FILE, one a line
 * (a child reads them until the gate closes the socket).
 * With credentials in the policy it reads them and hands them over
 * (shell/cred.c, gatectl_send_creds), prints "cred NAME PLACEHOLDER"
 * lines and writes the gate's session CA to --ca-out FILE.
 * Clients join its netns with nsenter --net=/proc/PID/ns/net.  If the
 * gate dies, gatedrv stays (the netns stays) and says so on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../shell/cred.c"
#include "../../shell/gatectl.c"
#include "../../shell/net.c"
#include "../../shell/netlink.c"
#include "../../shell/nft.c"

static int
lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int r = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		r = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (r == 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		r = -errno;
	close(fd);
	return r;
}

int
main(int argc, char **argv)
{
	const char *config = NULL, *user = NULL, *gate = NULL, *wrap = NULL,
	           *records = NULL, *ca_out = NULL;
	bool noseccomp = false, nft = false;
	struct policy_opts po = {0};
	struct policy_errs errs = {0};
	struct aisb_policy *p;
	const char *av[20];
	struct passwd *pw;
	sigset_t ss;
	pid_t pid = -1;
	int fd = -1, rec = -1, n = 0, r;
	bool alive = true;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			config = argv[++i];
		else if (strcmp(argv[i], "--user") == 0 && i + 1 < argc)
			user = argv[++i];
		else if (strcmp(argv[i], "--gate") == 0 && i + 1 < argc)
			gate = argv[++i];
		else if (strcmp(argv[i], "--wrap") == 0 && i + 1 < argc)
			wrap = argv[++i];
		else if (strcmp(argv[i], "--no-seccomp") == 0)
			noseccomp = true;
		else if (strcmp(argv[i], "--nft") == 0)
			nft = true;
		else if (strcmp(argv[i], "--records") == 0 && i + 1 < argc)
			records = argv[++i];
		else if (strcmp(argv[i], "--ca-out") == 0 && i + 1 < argc)
			ca_out = argv[++i];
		else {
			fprintf(stderr, "gatedrv: bad argument %s\n", argv[i]);
			return 2;
		}
	}
	if (config == NULL || user == NULL || gate == NULL) {
		fprintf(stderr,
		    "usage: gatedrv --config FILE --user NAME "
		    "--gate PATH [--no-seccomp] [--wrap PROG]\n");
		return 2;
	}
	log_open("gatedrv", LOG_TO_STDERR);
	pw = getpwnam(user);
	if (pw == NULL)
		return 2;
	/* As a session loads it: root-owned, users.d next to FILE. */
	po.user = user;
	po.home = pw->pw_dir;
	po.conf_path = config;
	po.trusted_uid = (uid_t)-1;
	if (policy_load(&po, &p, &errs) < 0) {
		for (size_t i = 0; i < errs.n; i++)
			fprintf(stderr, "gatedrv: %s\n", errs.msg[i]);
		return 78;
	}
	if (wrap)
		av[n++] = wrap;
	av[n++] = gate;
	av[n++] = "--user";
	av[n++] = user;
	av[n++] = "--config";
	av[n++] = config;
	av[n++] = "--session";
	av[n++] = "gatedrv";
	av[n++] = "--hash";
	av[n++] = p->hash;
	av[n++] = "--log-stderr";
	if (noseccomp)
		av[n++] = "--debug-no-seccomp";
	av[n] = NULL;
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0) {
		perror("gatedrv: sigprocmask");
		return 77;
	}
	{
		struct cred_set cs;

		if ((r = cred_read(p, &cs)) < 0)
			return r == -SESSION_EPOLICY ? 78 : 77;
		if (gatectl_spawn_rec(wrap ? wrap : gate, av, &pid, &fd,
		        records ? &rec : NULL) < 0) {
			cred_free(&cs);
			return 77;
		}
		r = gatectl_send_creds(fd, &cs);
		/* The placeholders, for the tests (never a value). */
		for (size_t i = 0; r == 0 && i < cs.n; i++)
			printf("cred %s %s\n", p->creds[i].name,
			    cs.v[i].placeholder);
		cred_free(&cs);
		if (r < 0)
			return 77;
	}
	if (p->ncreds > 0) {
		char *pem = NULL, hash[9];
		FILE *f;

		if (gatectl_recv_ca(fd, &pem, hash) < 0)
			return 77;
		if (ca_out &&
		    ((f = fopen(ca_out, "w")) == NULL || fputs(pem, f) < 0 ||
		        fclose(f) != 0)) {
			perror("gatedrv: --ca-out");
			return 77;
		}
		free(pem);
	}
	if (records) {
		int out = open(
		    records, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		pid_t rd;

		if (out < 0) {
			perror("gatedrv: --records");
			return 77;
		}
		rd = fork();
		if (rd == 0) {
			char m[4096];
			ssize_t k;

			while ((k = recv(rec, m, sizeof(m) - 1, 0)) > 0) {
				m[k] = '\n';
				if (write(out, m, (size_t)k + 1) < 0)
					_exit(1);
			}
			_exit(0);
		}
		close(out);
		close(rec);
	}
	if (unshare(CLONE_NEWNET | (geteuid() ? CLONE_NEWUSER : 0)) < 0) {
		perror("gatedrv: unshare");
		return 77;
	}
	if ((r = lo_up()) < 0) {
		fprintf(stderr, "gatedrv: lo up: %s\n", strerror(-r));
		return 77;
	}
	if (nft && net_gated_setup(p) < 0)
		return 77;
	if (gatectl_send_sockets(fd, p) < 0)
		return 77;
	close(fd); /* as init does: the gate must not need it now */
	printf("ready %d\n", pid);
	fflush(stdout);
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&ss, &si);

		if (sig == SIGCHLD) {
			int st;

			if (waitpid(pid, &st, WNOHANG) == pid) {
				alive = false;
				fprintf(stderr,
				    "gatedrv: the gate exited (%s %d)\n",
				    WIFSIGNALED(st) ? "signal" : "status",
				    WIFSIGNALED(st) ? WTERMSIG(st)
				                    : WEXITSTATUS(st));
			}
		} else if (sig == SIGTERM || sig == SIGINT)
			break;
	}
	if (alive) {
		int st;

		/* As the session does at its end: SIGTERM, then reap. */
		kill(pid, SIGTERM);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(st))
			fprintf(stderr, "gatedrv: the gate died of signal %d\n",
			    WTERMSIG(st));
		else if (WEXITSTATUS(st) != 0)
			fprintf(stderr, "gatedrv: the gate exited %d\n",
			    WEXITSTATUS(st));
		else
			fprintf(stderr, "gatedrv: the gate exited 0\n");
	}
	return 0;
}
