/*
 * session.c: a sandboxed session, stage by stage (docs/architecture.md).
 *
 * Three processes run this file: the outer aisb-shell (host namespaces),
 * init (PID 1 of the sandbox, cloned by ns_spawn) and the inner shell
 * (forked by init).  Any failing step ends the session with 77 (the
 * host cannot enforce) or 78 (the policy is invalid or unsafe), after
 * one line saying what; nothing ever runs unsandboxed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aisb.h"
#include "args.h"
#include "env.h"
#include "etc.h"
#include "form.h"
#include "gatectl.h"
#include "init.h"
#include "lockdown.h"
#include "log.h"
#include "mount.h"
#include "net.h"
#include "ns.h"
#include "policy.h"
#include "project.h"
#include "pty.h"
#include "secret.h"
#include "session.h"
#include "sesslimits.h"
#include "slog.h"
#include "util.h"

enum { MSG_TTY = 'T', MSG_NOTTY = 'N' };

struct session {
	const struct aisb_args *args;
	struct aisb_policy *pol;
	char id[SLOG_ID_LEN + 1];
	char *user;
	char *group;
	uid_t uid;
	gid_t gid;
	char *home_host; /* passwd home (hidden inside) */
	char *home_in; /* home inside */
	struct project_sel proj;
	struct form form;
	char **envp;
	bool tty;
	int gate_fd;
};

/* ---- init and inner ---------------------------------------------- */

static void
inner_main(struct session *s, int slave)
{
	int r;

	/* init made the memory we share non-dumpable; the inner needs its
	 * own /proc files (uid_map of its userns) and holds nothing that
	 * the sandbox may not see once it execs. */
	if (prctl(PR_SET_DUMPABLE, 1) < 0) {
		log_errno(-errno, "PR_SET_DUMPABLE: %m");
		_exit(AISB_EX_HOST);
	}
	if (slave >= 0 && (r = pty_attach(slave)) < 0) {
		log_errno(r, "pty: %m");
		_exit(AISB_EX_HOST);
	}
	if ((r = sesslimits_rlimits(s->pol)) < 0) {
		log_errno(r, "rlimits: %m");
		_exit(AISB_EX_HOST);
	}
	if (chdir(s->pol->project.target) < 0) {
		log_errno(-errno, "chdir %s: %m", s->pol->project.target);
		_exit(AISB_EX_HOST);
	}
	/* Must be last: it closes every fd above 2 and drops everything. */
	closelog();
	if (lockdown_inner() < 0)
		_exit(AISB_EX_HOST);
	execve(s->pol->shell, s->form.argv, s->envp);
	dprintf(2, "aisb: cannot run the shell %s inside the sandbox: %s\n",
	    s->pol->shell, strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static int
init_mounts(struct session *s)
{
	_cleanup_free_ char *passwd = NULL, *group = NULL, *hosts = NULL,
	                    *hostname = NULL, *resolv = NULL;
	_cleanup_close_ int pfd = -1;
	struct mount_opts mo;
	int r;

	r = project_open(&s->proj, &pfd);
	if (r < 0)
		return r;
	passwd = etc_passwd(s->user, s->uid, s->gid, s->home_in, s->pol->shell);
	group = etc_group(s->group, s->gid);
	hosts = etc_hosts(s->pol->hostname);
	hostname = etc_hostname(s->pol->hostname);
	resolv = etc_resolv(s->pol->net.mode == AISB_NET_GATED);
	if (!passwd || !group || !hosts || !hostname || !resolv)
		return log_errno(-ENOMEM, "out of memory");
	mo = (struct mount_opts){
	    .pol = s->pol,
	    .project_fd = pfd,
	    .uid = s->uid,
	    .home_in = s->home_in,
	    .home_host = s->home_host,
	    .passwd = passwd,
	    .group = group,
	    .hosts = hosts,
	    .hostname = hostname,
	    .resolv = resolv,
	};
	return mount_setup(&mo);
}

/* PID 1 of the sandbox.  Returns its exit status. */
static int
init_main(void *arg, int sync_fd)
{
	struct session *s = arg;
	int master = -1, slave = -1, r;
	pid_t inner;

	/* Leave the caller's session: its terminal is no longer our
	 * controlling tty, so nothing inside can reach it (TIOCSTI). */
	if (setsid() < 0)
		return log_errno(-errno, "setsid: %m"), AISB_EX_HOST;
	r = ns_init_begin(sync_fd, s->uid, s->gid);
	if (r == -EPIPE)
		return AISB_EX_HOST; /* the outer is gone */
	if (r < 0)
		return AISB_EX_HOST;
	/*
	 * Not dumpable from here on: init's memory (the caller's whole
	 * environment, the secrets) and /proc/1/environ stay out of reach
	 * of the inner, which runs before lockdown_init().  Only after the
	 * maps: a non-dumpable task's /proc files belong to the host root.
	 */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		return log_errno(-errno, "PR_SET_DUMPABLE: %m"), AISB_EX_HOST;
	if (unshare(CLONE_NEWCGROUP) < 0)
		return log_errno(-errno, "cgroup namespace: %m"), AISB_EX_HOST;
	if (net_lo_up() < 0)
		return AISB_EX_HOST;
	/*
	 * The gate gets its sockets now and starts (exec, policy, its own
	 * lockdown) while init builds the mounts; init waits for its
	 * "ready" only before anything of the session runs.
	 */
	if (s->pol->net.mode == AISB_NET_GATED &&
	    (net_gated_setup(s->pol) < 0 ||
	        gatectl_hand_sockets(s->gate_fd, s->pol) < 0))
		return AISB_EX_HOST;
	r = init_mounts(s);
	if (r < 0)
		return session_exit_code(r);
	if (sethostname(s->pol->hostname, strlen(s->pol->hostname)) < 0)
		return log_errno(-errno, "sethostname: %m"), AISB_EX_HOST;
	if (lockdown_limit_userns() < 0)
		return AISB_EX_HOST;
	if (s->pol->net.mode == AISB_NET_GATED) {
		if (gatectl_wait_ready(s->gate_fd) < 0)
			return AISB_EX_HOST;
		close(s->gate_fd);
		s->gate_fd = -1;
	}
	/* From "tty"/"no tty" on, the outer forwards signals to us: they
	 * must wait (blocked) until init_reap reads them; the inner
	 * inherits the mask and lockdown_inner clears it. */
	init_prepare();
	if (s->tty) {
		if (pty_open(&master, &slave) < 0)
			return AISB_EX_HOST;
		r = ns_send(sync_fd, MSG_TTY, master);
		close(master);
	} else
		r = ns_send(sync_fd, MSG_NOTTY, -1);
	if (r < 0)
		return AISB_EX_HOST;
	close(sync_fd);
	inner = fork();
	if (inner < 0)
		return log_errno(-errno, "fork: %m"), AISB_EX_HOST;
	if (inner == 0)
		inner_main(s, slave);
	if (slave >= 0)
		close(slave);
	env_free(s->envp); /* wiped: it may hold secrets */
	s->envp = NULL;
	if (lockdown_init() < 0) {
		kill(inner, SIGKILL);
		return AISB_EX_HOST;
	}
	return init_reap(inner);
}

/* ---- outer ------------------------------------------------------- */

static int
load_policy(struct session *s, const struct aisb_args *a)
{
	struct policy_errs errs = {0};
	struct policy_opts po = {
	    .user = s->user,
	    .home = s->home_host,
	    /* A session trusts root-owned policy only, --config too. */
	    .trusted_uid = (uid_t)-1,
	    /* users.d beside it, absolute only: the loader's rule. */
	    .conf_path = a->config,
	};
	size_t i;
	int r;

	r = policy_load(&po, &s->pol, &errs);
	if (r < 0) {
		for (i = 0; i < errs.n; i++)
			log_err("%s", errs.msg[i]);
		if (errs.n == 0)
			log_err("cannot load the policy: %s", strerror(-r));
		policy_errs_free(&errs);
		return r == -ENOMEM ? AISB_EX_HOST : AISB_EX_CONFIG;
	}
	policy_errs_free(&errs);
	return 0;
}

static int
whoami(struct session *s)
{
	struct passwd *pw;
	struct group *gr;

	errno = 0;
	pw = getpwuid(s->uid);
	if (!pw)
		return log_errno(-SESSION_EPOLICY, "uid %u has no passwd entry",
		    (unsigned)s->uid);
	s->user = strdup(pw->pw_name);
	s->home_host = strdup(pw->pw_dir ? pw->pw_dir : "");
	gr = getgrgid(s->gid);
	s->group = strdup(gr ? gr->gr_name : pw->pw_name);
	if (!s->user || !s->home_host || !s->group)
		return log_errno(-ENOMEM, "out of memory");
	return 0;
}

/*
 * The home inside keeps the passwd home path (HOME, and the home in the
 * generated passwd), so tools that read either agree; the real home
 * there is covered by home.path or the tmpfs, and /home shows nothing
 * but it.  A passwd home of "/" or a relative one becomes /home/USER.
 */
static int
home_inside(struct session *s)
{
	const char *h = s->home_host;

	if (h && h[0] == '/' && h[1])
		s->home_in = strdup(h);
	else if (asprintf(&s->home_in, "/home/%s", s->user) < 0)
		s->home_in = NULL;
	return s->home_in ? 0 : log_errno(-ENOMEM, "out of memory");
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Init failed before it could say more: its status says what. */
static int
reap_failed_init(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return AISB_EX_HOST;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		return WEXITSTATUS(st);
	return AISB_EX_HOST;
}

static int
session_run(struct session *s, const struct aisb_args *a)
{
	struct sesslimits_state *lim = NULL;
	char **secrets = NULL;
	int sync_fd = -1, master = -1, timed_out = 0, status, r;
	pid_t init = -1, gate = -1;
	double t0 = now();
	bool oom;
	char tag;

	/* A login shell owns no descriptor but 0, 1, 2: drop strays (an
	 * sshd or harness leftover) before anything can inherit them. */
	close_range(3, ~0U, 0);
	/* And 0, 1, 2 must be open, or the next fd we open would become
	 * the inner's stdin or stdout. */
	for (r = 0; r < 3; r++)
		if (fcntl(r, F_GETFD) < 0 && open("/dev/null", O_RDWR) != r)
			return AISB_EX_HOST;
	log_open("aisb-shell", LOG_TO_SYSLOG | LOG_TO_STDERR);
	s->uid = getuid();
	s->gid = getgid();
	if (s->uid == 0 || geteuid() == 0) {
		log_err(
		    "aisb-shell does not run sessions as root (uid 0): it "
		    "is the login shell of agent accounts; use --print-policy "
		    "or --doctor as root");
		return AISB_EX_CONFIG;
	}
	if (a->user) {
		log_err("--user is for the admin forms only");
		return 2;
	}
	if ((r = whoami(s)) < 0)
		return session_exit_code(r);
	if ((r = load_policy(s, a)) != 0)
		return r;
	if ((r = home_inside(s)) < 0)
		return session_exit_code(r);
	if ((r = slog_new_id(s->id)) < 0) {
		log_errno(r, "getrandom: %m");
		return AISB_EX_HOST;
	}
	if ((r = form_build(
	         a->login, a->argc, a->argv, s->pol->shell, &s->form)) < 0 ||
	    (r = project_select(s->pol, &s->proj)) < 0 ||
	    (r = secret_read(s->pol, s->uid, &secrets)) < 0)
		return session_exit_code(r);
	{
		struct env_opts eo = {
		    .pol = s->pol,
		    .caller = environ,
		    .secrets = secrets,
		    .user = s->user,
		    .home = s->home_in,
		    .pwd = s->pol->project.target,
		    .session_id = s->id,
		};

		r = env_build(&eo, &s->envp);
		env_free(secrets);
		if (r < 0)
			return log_errno(r, "environment: %m"), AISB_EX_HOST;
	}
	s->tty = isatty(0) && isatty(1);
	if (sesslimits_setup(s->pol, s->id, &lim) < 0)
		return AISB_EX_HOST;
	if (s->pol->net.mode == AISB_NET_GATED &&
	    gatectl_spawn(a, s->pol, s->id, &gate, &s->gate_fd) < 0) {
		sesslimits_teardown(lim);
		return AISB_EX_HOST;
	}
	slog_start(&(struct slog_start){
	    .id = s->id,
	    .user = s->user,
	    .uid = s->uid,
	    .project = s->proj.path,
	    .how = s->proj.how,
	    .policy_hash = s->pol->hash,
	    .mode = s->form.mode,
	});
	r = ns_spawn(init_main, s, &init, &sync_fd);
	env_free(s->envp); /* init has its copy; this one may hold secrets */
	s->envp = NULL;
	if (s->gate_fd >= 0)
		close(s->gate_fd);
	if (r < 0) {
		status = AISB_EX_HOST;
		goto done;
	}
	if (sesslimits_attach(lim, init) < 0) {
		kill(init, SIGKILL);
		reap_failed_init(init);
		status = AISB_EX_HOST;
		goto done;
	}
	r = ns_outer_go(sync_fd);
	if (r >= 0)
		r = ns_recv(sync_fd, &tag, &master);
	close(sync_fd);
	if (r < 0 || (tag == MSG_TTY) != (master >= 0)) {
		/* init failed and said why on stderr; or it was killed. */
		if (master >= 0)
			close(master);
		status = reap_failed_init(init);
		goto done;
	}
	status =
	    pty_outer_wait(init, master, s->pol->limits.timeout, &timed_out);
	if (master >= 0)
		close(master);
	if (timed_out)
		status = sesslimits_timeout_status(s->pol);
done:
	oom = lim && sesslimits_oom_report(lim, s->pol);
	/* Stops the gate; if it had died during the session, the session
	 * log says so (the sandbox then had no egress). */
	if (gate > 0)
		(void)gatectl_stop(gate);
	slog_end(s->id, status, now() - t0, timed_out, oom);
	sesslimits_teardown(lim);
	return status;
}

static void
session_free(struct session *s)
{
	free(s->user);
	free(s->group);
	free(s->home_host);
	free(s->home_in);
	project_sel_free(&s->proj);
	form_free(&s->form);
	env_free(s->envp);
	policy_free(s->pol);
}

int
session_main(const struct aisb_args *a)
{
	struct session s = {.args = a, .gate_fd = -1};
	int status;

	status = session_run(&s, a);
	session_free(&s);
	return status;
}
