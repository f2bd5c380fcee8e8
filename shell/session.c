/*
 * session.c: a sandboxed session, stage by stage (docs/architecture.md).
 *
 * Three processes run this file: the outer aisb-shell (host namespaces),
 * init (PID 1 of the sandbox, cloned by ns_spawn) and the inner shell
 * (forked by init).  Every step returns 0 or -errno (-SESSION_EPOLICY
 * for a policy problem), after logging one line saying what; each
 * process turns that into its exit status in one place, with
 * session_exit_code (77: the host cannot enforce, 78: the policy is
 * invalid or unsafe): session_run, init_main and inner_main.  Nothing
 * ever runs unsandboxed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <net/if.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aisb.h"
#include "args.h"
#include "bwrite.h"
#include "callerenv.h"
#include "cred.h"
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
#include "redact.h"
#include "secret.h"
#include "session.h"
#include "sesslimits.h"
#include "sessrec.h"
#include "slog.h"
#include "sync.h"
#include "util.h"
#include "viewcheck.h"

struct session {
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
	int rec_fd; /* the gate's record socket, the outer's end */
	struct sessrec *rec;
	/* The credentials: values only until the gate has them. */
	struct cred_set creds;
	/*
	 * With env.secret values: what the outer relays to the caller is
	 * redacted (redact.c), the pty's output, or without a tty the
	 * inner's stdout and stderr, which then go through pipes to the
	 * outer (out[], err[]: read end, write end) instead of straight to
	 * the caller's descriptors.  Not for the file-transfer forms
	 * (form_is_transfer): their bytes pass untouched.
	 */
	struct redact *rd[2]; /* tty or stdout, stderr */
	int out[2], err[2];
};

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- the inner (stage 10) ------------------------------------------ */

/* Everything before the exec.  0 or -errno (logged). */
static int
inner_setup(struct session *s, int slave)
{
	int r;

	/* init made the memory we share non-dumpable; the inner needs its
	 * own /proc files (uid_map of its userns) and holds nothing that
	 * the sandbox may not see once it execs. */
	if (prctl(PR_SET_DUMPABLE, 1) < 0)
		return log_errno(-errno, "PR_SET_DUMPABLE: %m");
	if (slave >= 0 && (r = pty_attach(slave)) < 0)
		return log_errno(r, "pty: %m");
	/* Redacted: stdout and stderr are the pipes to the outer. */
	if (slave < 0 && s->out[1] >= 0 &&
	    (dup2(s->out[1], 1) < 0 || dup2(s->err[1], 2) < 0))
		return log_errno(-errno, "dup2: %m");
	if ((r = sesslimits_rlimits(s->pol)) < 0)
		return log_errno(r, "rlimits: %m");
	if (chdir(s->pol->project.target) < 0)
		return log_errno(
		    -errno, "chdir %s: %m", s->pol->project.target);
	/* Must be last: it closes every fd above 2 and drops everything. */
	log_close();
	return lockdown_inner();
}

static void
inner_main(struct session *s, int slave)
{
	int r;

	if ((r = inner_setup(s, slave)) < 0)
		_exit(session_exit_code(r));
	execve(s->pol->shell, s->form.argv, s->envp);
	dprintf(2, "aisb: cannot run the shell %s inside the sandbox: %s\n",
	    s->pol->shell, strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* ---- init: stages 4 to 10 ------------------------------------------ */

/*
 * Stage 4: a session of its own, the maps, the parent check; then not
 * dumpable and a cgroup namespace of its own.  Reads back: the ids
 * inside are the caller's, init leads its session, it is not dumpable.
 */
static int
stage_ids(struct session *s, int sync_fd)
{
	int r;

	/* Leave the caller's session: its terminal is no longer our
	 * controlling tty, so nothing inside can reach it (TIOCSTI). */
	if (setsid() < 0)
		return log_errno(-errno, "setsid: %m");
	if ((r = ns_init_begin(sync_fd, s->uid, s->gid)) < 0)
		return r;
	/*
	 * Not dumpable from here on: init's memory (the caller's whole
	 * environment, the secrets) and /proc/1/environ stay out of reach
	 * of the inner, which runs before lockdown_init().  Only after the
	 * maps: a non-dumpable task's /proc files belong to the host root.
	 */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		return log_errno(-errno, "PR_SET_DUMPABLE: %m");
	if (unshare(CLONE_NEWCGROUP) < 0)
		return log_errno(-errno, "cgroup namespace: %m");
	if (getuid() != s->uid || getgid() != s->gid)
		return log_errno(-EPERM, "init: ids %u:%u inside, want %u:%u",
		    (unsigned)getuid(), (unsigned)getgid(), (unsigned)s->uid,
		    (unsigned)s->gid);
	if (getsid(0) != getpid() || prctl(PR_GET_DUMPABLE) != 0)
		return log_errno(-EPERM,
		    "init: not its own session, or "
		    "still dumpable");
	return 0;
}

/* Is lo up?  0, or -errno. */
static int
lo_up(void)
{
	_cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = {.ifr_name = "lo"};

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	return ifr.ifr_flags & IFF_UP ? 0 : -ENETDOWN;
}

/*
 * Stage 5: lo; gated: the ruleset (net_gated_setup reads it back) and
 * the gate's sockets.  The gate then starts (exec, policy, its own
 * lockdown) while init builds the mounts; init waits for its "ready"
 * only before anything of the session runs (stage_gate).  Reads back:
 * lo is up.
 */
static int
stage_network(struct session *s)
{
	int r;

	if ((r = net_lo_up()) < 0)
		return r;
	if (s->pol->net.mode == AISB_NET_GATED &&
	    ((r = net_gated_setup(s->pol)) < 0 ||
	        (r = gatectl_hand_sockets(s->gate_fd, s->pol)) < 0))
		return r;
	if ((r = lo_up()) < 0)
		return log_errno(r, "lo is not up: %m");
	return 0;
}

/* Stage 6: the filesystem view (mount_setup), entered.  Reads back:
 * viewcheck.h. */
static int
stage_view(struct session *s)
{
	_cleanup_free_ char *passwd = NULL, *group = NULL, *hosts = NULL,
	                    *hostname = NULL, *resolv = NULL, *ca = NULL;
	_cleanup_close_ int pfd = -1;
	struct mount_opts mo;
	struct viewcheck vc;
	char ca_hash[9];
	int r;

	r = project_open(&s->proj, &pfd);
	if (r < 0)
		return r;
	r = viewcheck_expect(&vc, s->pol, pfd, s->home_in, s->home_host);
	if (r < 0)
		return r;
	/* The gate's session CA, for the trust bundles in /etc. */
	if (s->pol->ncreds > 0 &&
	    (r = gatectl_recv_ca(s->gate_fd, &ca, ca_hash)) < 0)
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
	    .ca_pem = ca,
	    .ca_hash = ca ? ca_hash : NULL,
	    .path = env_get(s->envp, "PATH"),
	};
	if ((r = mount_setup(&mo)) < 0)
		return r;
	if ((r = cred_check_hidden(s->pol, &s->creds)) < 0)
		return r;
	return viewcheck_run(&vc, "/");
}

/* Stage 7: the hostname, read back. */
static int
stage_uts(struct session *s)
{
	char name[HOST_NAME_MAX + 1] = "";

	if (sethostname(s->pol->hostname, strlen(s->pol->hostname)) < 0)
		return log_errno(-errno, "sethostname: %m");
	if (gethostname(name, sizeof(name)) < 0 ||
	    strcmp(name, s->pol->hostname) != 0)
		return log_errno(
		    -EPERM, "the hostname reads back as \"%s\"", name);
	return 0;
}

/* Gated: wait for the gate's "ready" (it has its sockets, its policy
 * and its own lockdown), then let go of its control socket. */
static int
stage_gate(struct session *s)
{
	int r;

	if (s->pol->net.mode != AISB_NET_GATED)
		return 0;
	if ((r = gatectl_wait_ready(s->gate_fd)) < 0)
		return r;
	close(s->gate_fd);
	s->gate_fd = -1;
	return 0;
}

/*
 * Stage 9: with a caller's terminal, a pty from the sandbox's devpts and
 * its master to the outer ("tty"); else "no tty".  From then on the
 * outer forwards signals, so init blocks them first (init.h).  Reads
 * back: the slave is a terminal of the sandbox's own devpts.
 */
static int
stage_tty(struct session *s, int sync_fd, int *ret_slave)
{
	_cleanup_close_ int master = -1, slave = -1;
	struct stat st, pts;
	int r;

	*ret_slave = -1;
	if ((r = init_prepare()) < 0)
		return r;
	if (!s->tty)
		return sync_send_notty(sync_fd);
	if ((r = pty_open(&master, &slave)) < 0)
		return r;
	if (!isatty(slave) || fstat(slave, &st) < 0 ||
	    stat("/dev/pts", &pts) < 0 || st.st_dev != pts.st_dev)
		return log_errno(-EPERM, "the pty is not the sandbox's own");
	if ((r = sync_send_tty(sync_fd, master)) < 0)
		return r;
	*ret_slave = TAKE_FD(slave);
	return 0;
}

/* Stage 10, init's half: fork the inner, then init's own lockdown. */
static int
stage_inner(struct session *s, int slave, pid_t *ret_inner)
{
	pid_t inner;
	int r;

	inner = fork();
	if (inner < 0)
		return log_errno(-errno, "fork: %m");
	if (inner == 0)
		inner_main(s, slave);
	if (slave >= 0)
		close(slave);
	for (int i = 0; i < 2; i++) {
		close_fd(&s->out[i]);
		close_fd(&s->err[i]);
	}
	env_free(s->envp); /* wiped: it may hold secrets */
	s->envp = NULL;
	if ((r = lockdown_init()) < 0) {
		kill(inner, SIGKILL);
		return r;
	}
	*ret_inner = inner;
	return 0;
}

/* PID 1 of the sandbox: the stages in order, then init_reap.  Returns
 * its exit status. */
static int
init_main(void *arg, int sync_fd)
{
	struct session *s = arg;
	int slave = -1, r;
	pid_t inner = -1;

	/* The gate's record and the fallback log go to the outer alone. */
	if (s->rec_fd >= 0)
		close(s->rec_fd);
	s->rec_fd = -1;
	/* The outer's ends of the output pipes, and its redactors. */
	close_fd(&s->out[0]);
	close_fd(&s->err[0]);
	for (size_t i = 0; i < ELEMENTSOF(s->rd); i++) {
		redact_free(s->rd[i]);
		s->rd[i] = NULL;
	}
	log_drop_fallback();
	if ((r = stage_ids(s, sync_fd)) < 0 || (r = stage_network(s)) < 0 ||
	    (r = stage_view(s)) < 0 || (r = stage_uts(s)) < 0 ||
	    (r = lockdown_limit_userns()) < 0 || (r = stage_gate(s)) < 0 ||
	    (r = stage_tty(s, sync_fd, &slave)) < 0)
		return session_exit_code(r);
	close(sync_fd);
	if ((r = stage_inner(s, slave, &inner)) < 0)
		return session_exit_code(r);
	return init_reap(inner);
}

/* ---- the outer ------------------------------------------------------ */

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
		return r == -ENOMEM ? -ENOMEM : -SESSION_EPOLICY;
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
	if (!s->home_in)
		return log_errno(-ENOMEM, "out of memory");
	return 0;
}

/*
 * The environment, with the secrets (wiped here once it holds them) and
 * the credentials' placeholders.  The credentials' values are read here
 * too, into s->creds, for the gate: they never enter the environment.
 */
static int
build_env(struct session *s)
{
	char **secrets = NULL, **creds = NULL;
	char bundle[PATH_MAX];
	int r;

	if ((r = secret_read(s->pol, s->uid, &secrets)) < 0)
		return r;
	if ((r = cred_read(s->pol, &s->creds)) < 0) {
		env_free(secrets);
		return r;
	}
	if ((r = cred_env(s->pol, &s->creds, &creds)) < 0) {
		env_free(secrets);
		return log_errno(r, "environment: %m");
	}
	for (size_t i = 0;
	     i < ELEMENTSOF(s->rd) && r >= 0 && !form_is_transfer(&s->form);
	     i++)
		r = redact_new(secrets, &s->rd[i]);
	if (r < 0) {
		env_free(secrets);
		env_free(creds);
		return log_errno(r, "redaction: %m");
	}
	r = env_build(
	    &(struct env_opts){
	        .pol = s->pol,
	        .caller = callerenv_all(),
	        .secrets = secrets,
	        .creds = creds,
	        .ca_bundle =
	            etc_ca_bundle(s->pol->fs.root, bundle, sizeof(bundle)),
	        .user = s->user,
	        .home = s->home_in,
	        .pwd = s->pol->project.target,
	        .session_id = s->id,
	    },
	    &s->envp);
	env_free(secrets);
	env_free(creds);
	if (r < 0)
		return log_errno(r, "environment: %m");
	return 0;
}

/* Stage 1: descriptors, who calls, the policy, the project, the shell
 * form and the environment. */
static int
stage_prepare(struct session *s, const struct aisb_args *a)
{
	int r;

	/* A login shell owns no descriptor but 0, 1, 2: drop strays (an
	 * sshd or harness leftover) before anything can inherit them. */
	close_range(3, ~0U, 0);
	/* And 0, 1, 2 must be open, or the next fd we open would become
	 * the inner's stdin or stdout. */
	for (r = 0; r < 3; r++)
		if (fcntl(r, F_GETFD) < 0 && open("/dev/null", O_RDWR) != r)
			return -EBADF;
	log_open("aisb-shell", LOG_TO_SYSLOG | LOG_TO_STDERR);
	/* A caller that stops reading stderr cannot hold the outer. */
	log_set_stderr_writer(bwrite_stderr);
	s->uid = getuid();
	s->gid = getgid();
	if (s->uid == 0 || geteuid() == 0) {
		log_err(
		    "aisb-shell does not run sessions as root (uid 0): it "
		    "is the login shell of agent accounts; use --print-policy "
		    "or --doctor as root");
		return -SESSION_EPOLICY;
	}
	if (a->user) {
		log_err("--user is for the admin forms only");
		return -SESSION_EUSAGE;
	}
	if ((r = whoami(s)) < 0 || (r = load_policy(s, a)) < 0 ||
	    (r = home_inside(s)) < 0)
		return r;
	if ((r = slog_new_id(s->id)) < 0)
		return log_errno(r, "getrandom: %m");
	/* Every record from here on names the session (the journal's
	 * AISB_SESSION and AISB_USER). */
	log_set_session(s->id, s->user);
	/* No syslog receiver: a file of this session's lines instead. */
	slog_fallback(s->id, s->uid);
	if ((r = form_build(
	         a->login, a->argc, a->argv, s->pol->shell, &s->form)) < 0 ||
	    (r = project_select(s->pol, &s->proj)) < 0 ||
	    (r = build_env(s)) < 0)
		return r;
	s->tty = isatty(0) && isatty(1);
	return 0;
}

/* Init failed before it could say more: its status says what. */
static int
reap_failed_init(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		return WEXITSTATUS(st);
	return -ECHILD;
}

/*
 * Stages 4 to 11 from the outer: clone init, place it in the cgroup,
 * "go", then relay until it exits.  The session's status (>= 0), or
 * -errno.
 */
static int
stage_sandbox(struct session *s, struct sesslimits_state *lim, int *timed_out)
{
	int sync_fd = -1, master = -1, status, r;
	pid_t init = -1;

	/* Without a tty, redacted output goes through the outer. */
	if (!s->tty && s->rd[0] != NULL &&
	    (pipe2(s->out, O_CLOEXEC) < 0 || pipe2(s->err, O_CLOEXEC) < 0))
		return log_errno(-errno, "pipe: %m");
	r = ns_spawn(init_main, s, &init, &sync_fd);
	close_fd(&s->out[1]);
	close_fd(&s->err[1]);
	env_free(s->envp); /* init has its copy; this one may hold secrets */
	s->envp = NULL;
	if (s->gate_fd >= 0)
		close(s->gate_fd);
	s->gate_fd = -1;
	if (r < 0)
		return r;
	/* The registry entry, from now until the end (sessrec.h). */
	s->rec = sessrec_start(&(struct sessrec_info){
	    .id = s->id,
	    .user = s->user,
	    .uid = s->uid,
	    .init = init,
	    .project = s->proj.path,
	    .form = s->form.mode,
	    .gated = s->pol->net.mode == AISB_NET_GATED,
	    .gate_fd = s->rec_fd,
	});
	s->rec_fd = -1;
	if ((r = sesslimits_attach(lim, init)) < 0) {
		kill(init, SIGKILL);
		reap_failed_init(init);
		close(sync_fd);
		return r;
	}
	r = sync_recv_ready(sync_fd);
	if (r >= 0)
		r = sync_send_go(sync_fd);
	if (r >= 0)
		r = sync_recv_tty(sync_fd, &master);
	close(sync_fd);
	if (r < 0)
		/* init failed and said why on stderr; or it was killed. */
		return reap_failed_init(init);
	status = pty_outer_wait(init, master,
	    &(struct pty_wait){
	        .timeout_s = s->pol->limits.timeout,
	        .filter = s->pol->terminal.filter,
	        .rec = s->rec,
	        .rd_tty = s->rd[0],
	        .rd_out = s->rd[0],
	        .rd_err = s->rd[1],
	        .out = s->out[0],
	        .err = s->err[0],
	    },
	    timed_out);
	close_fd(&s->out[0]);
	close_fd(&s->err[0]);
	if (master >= 0)
		close(master);
	if (sessrec_was_ended(s->rec)) {
		log_err("an administrator ended the session (exit status %d)",
		    SESSREC_EX_ENDED);
		status = SESSREC_EX_ENDED;
	} else if (*timed_out)
		status = sesslimits_timeout_status(s->pol);
	return status;
}

/* The outer, stage by stage.  Returns the exit status. */
static int
session_run(struct session *s, const struct aisb_args *a)
{
	struct sesslimits_state *lim = NULL;
	int timed_out = 0, status, r;
	pid_t gate = -1;
	int64_t t0 = util_now_ms();
	bool started = false, oom;

	r = stage_prepare(s, a);
	/* Stage 2: the session cgroup. */
	if (r >= 0)
		r = sesslimits_setup(s->pol, s->id, &lim);
	/* Stage 3: the gate. */
	if (r >= 0 && s->pol->net.mode == AISB_NET_GATED &&
	    (r = gatectl_spawn(
	         a, s->pol, s->id, &gate, &s->gate_fd, &s->rec_fd)) >= 0)
		r = gatectl_send_creds(s->gate_fd, &s->creds);
	/*
	 * The credentials' values are the gate's now: wiped here before
	 * init is cloned, so neither init nor the inner ever holds them.
	 */
	cred_wipe(&s->creds);
	if (r >= 0) {
		slog_start(&(struct slog_start){
		    .id = s->id,
		    .user = s->user,
		    .uid = s->uid,
		    .project = s->proj.path,
		    .how = s->proj.how,
		    .policy_hash = s->pol->hash,
		    .mode = s->form.mode,
		});
		started = true;
		r = stage_sandbox(s, lim, &timed_out);
	}
	/* The one place an error becomes the outer's exit status. */
	status = r < 0 ? session_exit_code(r) : r;
	if (started) {
		oom = lim && sesslimits_oom_report(lim, s->pol);
		/* Stops the gate; if it had died during the session, the
		 * session log says so (the sandbox then had no egress). */
		if (gate > 0)
			(void)gatectl_stop(gate, sessrec_drain, s->rec);
		slog_end(s->id, status, (double)(util_now_ms() - t0) / 1000.0,
		    timed_out, oom, sessrec_was_ended(s->rec));
		sessrec_finish(s->rec, status,
		    sessrec_was_ended(s->rec) ? "ended"
		        : timed_out           ? "timeout"
		                              : "exit");
		s->rec = NULL;
	} else if (gate > 0)
		(void)gatectl_stop(gate, sessrec_drain, s->rec);
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
	cred_free(&s->creds);
	for (size_t i = 0; i < ELEMENTSOF(s->rd); i++)
		redact_free(s->rd[i]);
	for (int i = 0; i < 2; i++) {
		close_fd(&s->out[i]);
		close_fd(&s->err[i]);
	}
	policy_free(s->pol);
	if (s->gate_fd >= 0)
		close(s->gate_fd);
	if (s->rec_fd >= 0)
		close(s->rec_fd);
}

int
session_main(const struct aisb_args *a)
{
	struct session s = {
	    .gate_fd = -1, .rec_fd = -1, .out = {-1, -1}, .err = {-1, -1}};
	int status;

	status = session_run(&s, a);
	session_free(&s);
	return status;
}
