/*
 * pam_aisb.c: the optional PAM module of aisb (pam_aisb(8)).
 *
 * account: refuses a designated agent on a PAM service that is not in
 *   pam.services, when its login shell is not aisb-shell, or when the
 *   policy does not load.  Everyone else: PAM_IGNORE.  This is where
 *   refusals belong: sshd goes on with the login when a session module
 *   fails, but not when the account phase does.
 * session open (root): the agent's persistent home, /run/aisb/USER with
 *   a record of the session (peer, tty), a delegated cgroup for limits.
 * session close: kill whatever is left in that cgroup and remove it.
 *
 * aisb-shell never depends on this module: it loads and enforces the
 * policy itself.  The module only gates the ways in that skip the login
 * shell and prepares what rootless code cannot.
 *
 * Runs inside the host program (sshd, su, login, cron) as root: it never
 * exits, prints or touches signal dispositions, keeps no global state
 * (everything per handle goes through pam_set_data) and uses only
 * reentrant lookups.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "cgroup.h"
#include "loginshell.h"
#include "policy.h"
#include "pamlog.h"
#include "rundir.h"
#include "util.h"

#define RUN_DIR RUNDIR_ROOT
#define DATA_CGROUP "pam_aisb_cgroup" /* pam_set_data keys */
#define DATA_RECORD "pam_aisb_record"
#define KEY_LEN 256 /* >= cgroup.h's 128 */
#define MAX_ERR_LINES 8

struct args {
	bool debug;
	const char *conf; /* conf=PATH, or NULL for /etc/aisb/aisb.conf */
	const char *bad_conf; /* a conf= that is not an absolute path */
};

enum agent { AGENT_NO, AGENT_YES, AGENT_BROKEN };

/* One account, with the storage getpwnam_r needs. */
struct account {
	struct passwd pw;
	char *buf;
};

static void
args_parse(pam_handle_t *pamh, int argc, const char **argv, struct args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "debug") == 0)
			a->debug = true;
		else if (strncmp(argv[i], "conf=", 5) == 0 && argv[i][5] == '/')
			a->conf = argv[i] + 5;
		else if (strncmp(argv[i], "conf=", 5) == 0)
			/* Not the default file in its place: that would be
			 * a policy the administrator did not name. */
			a->bad_conf = argv[i] + 5;
		else
			/* PAM convention: an unknown option is not fatal. */
			pamlog(pamh, LOG_ERR, "unknown option '%s', ignoring",
			    argv[i]);
	}
}

static int
account_get(const char *user, struct account *acc)
{
	struct passwd *res = NULL;
	long sz = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t len = sz > 0 ? (size_t)sz : 16384;
	int r;

	memset(acc, 0, sizeof(*acc));
	for (;;) {
		acc->buf = malloc(len);
		if (!acc->buf)
			return -ENOMEM;
		/* &acc->pw makes the analyzer forget acc->buf: no leak. */
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		r = getpwnam_r(user, &acc->pw, acc->buf, len, &res);
		if (r != ERANGE || len >= 1024 * 1024)
			break;
		free(acc->buf);
		len *= 4;
	}
	if (r == 0 && !res)
		r = ENOENT;
	if (r != 0) {
		free(acc->buf);
		acc->buf = NULL;
		return -r;
	}
	return 0;
}

static void
log_errs(pam_handle_t *pamh, const struct policy_errs *e)
{
	for (size_t i = 0; i < e->n && i < MAX_ERR_LINES; i++)
		pamlog(pamh, LOG_ERR, "policy: %s", e->msg[i]);
	if (e->n > MAX_ERR_LINES)
		pamlog(pamh, LOG_ERR, "policy: (%zu more errors)",
		    e->n - MAX_ERR_LINES);
}

static int
load(const struct args *a, const struct passwd *pw, bool with_user,
    struct aisb_policy **ret, struct policy_errs *errs)
{
	struct policy_opts o = {
	    .user = pw->pw_name,
	    .home = pw->pw_dir,
	    /* users.d beside it (conf=/x/aisb.conf: /x/users.d). */
	    .conf_path = a->conf,
	    .system_only = !with_user,
	    .trusted_uid = (uid_t)-1,
	};

	/* Cleared first: the caller reads and frees errs on every failure. */
	memset(errs, 0, sizeof(*errs));
	return policy_load(&o, ret, errs);
}

/*
 * Is pw a designated agent?  The merged policy (aisb.conf plus
 * users.d/USER.conf) decides.  When it does not load, the system file
 * alone decides whether the user is an agent (then AGENT_BROKEN: an
 * agent with no valid policy is refused).  When not even that loads,
 * nobody can tell: an account whose login shell is aisb-shell is treated
 * as a broken agent, anybody else is left alone (so a typo in aisb.conf
 * does not lock root out of sshd).  On AGENT_YES, *ret holds the policy.
 */
static enum agent
classify(pam_handle_t *pamh, const struct args *a, const struct passwd *pw,
    struct aisb_policy **ret)
{
	struct aisb_policy *p = NULL;
	struct policy_errs errs;
	char why[512];
	bool agent;
	int r;

	*ret = NULL;
	if (a->bad_conf) {
		if (loginshell_check(pw->pw_shell, why, sizeof(why)) < 0)
			return AGENT_NO;
		pamlog(pamh, LOG_ERR,
		    "conf=%s is not an absolute path, so no policy is read; "
		    "'%s' has aisb-shell as login shell, so it is refused "
		    "(fix: conf=/etc/aisb/aisb.conf, or no conf=, in the "
		    "module's line in /etc/pam.d)",
		    a->bad_conf, pw->pw_name);
		return AGENT_BROKEN;
	}
	r = load(a, pw, true, &p, &errs);
	if (r >= 0) {
		policy_errs_free(&errs);
		if (policy_is_agent(p, pw->pw_name)) {
			*ret = p;
			return AGENT_YES;
		}
		policy_free(p);
		return AGENT_NO;
	}
	log_errs(pamh, &errs);
	policy_errs_free(&errs);

	r = load(a, pw, false, &p, &errs);
	if (r >= 0) {
		policy_errs_free(&errs);
		agent = policy_is_agent(p, pw->pw_name);
		policy_free(p);
		if (agent)
			pamlog(pamh, LOG_ERR,
			    "the policy for agent '%s' does not load (its "
			    "users.d file?)",
			    pw->pw_name);
		return agent ? AGENT_BROKEN : AGENT_NO;
	}
	policy_errs_free(&errs);
	if (loginshell_check(pw->pw_shell, why, sizeof(why)) == 0) {
		pamlog(pamh, LOG_ERR,
		    "the policy %s does not load; '%s' has aisb-shell as login "
		    "shell, so it is treated as an agent",
		    a->conf ? a->conf : AISB_CONF_PATH, pw->pw_name);
		return AGENT_BROKEN;
	}
	pamlog(pamh, LOG_ERR,
	    "the policy %s does not load; '%s' is not an aisb-shell account, "
	    "ignoring",
	    a->conf ? a->conf : AISB_CONF_PATH, pw->pw_name);
	return AGENT_NO;
}

static bool
strv_has(const struct aisb_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return true;
	return false;
}

/*
 * One line to whoever is logging in, through the application's
 * conversation (PAM_ERROR_MSG: su and login print it; sshd shows none
 * for a refused account, it closes the connection), unless PAM_SILENT:
 * that the account is an aisb agent and where the reason is.  Never the
 * reason itself: the caller may be the agent, and the log is the
 * administrator's.
 */
static void
tell(pam_handle_t *pamh, int flags, const char *what)
{
	if (flags & PAM_SILENT)
		return;
	(void)pam_error(pamh,
	    "aisb: this account is an aisb agent account: %s; the reason is "
	    "in the administrator's log (pam_aisb, authpriv)",
	    what);
}

#define TELL_REFUSED "this way in is refused"
#define TELL_SESSION "its session could not be set up"

/* A PAM item as a string, "" when unset. */
static const char *
item(pam_handle_t *pamh, int type)
{
	const void *v = NULL;

	if (pam_get_item(pamh, type, &v) != PAM_SUCCESS || !v)
		return "";
	return v;
}

int
pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct aisb_policy *p = NULL;
	struct account acc;
	const char *user = NULL, *service;
	struct args a;
	char why[512];
	int rc;

	pamlog_phase(pamh, "account");
	args_parse(pamh, argc, argv, &a);
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || !user || !*user)
		return PAM_IGNORE;
	if (account_get(user, &acc) < 0) {
		if (a.debug)
			pamlog(
			    pamh, LOG_DEBUG, "no account '%s', ignoring", user);
		return PAM_IGNORE;
	}
	service = item(pamh, PAM_SERVICE);

	switch (classify(pamh, &a, &acc.pw, &p)) {
	case AGENT_NO:
		if (a.debug)
			pamlog(pamh, LOG_DEBUG, "'%s' is not an agent", user);
		rc = PAM_IGNORE;
		break;
	case AGENT_BROKEN:
		pamlog_event(pamh, LOG_ERR, "refuse",
		    "refusing agent '%s' on service '%s': the policy does not "
		    "load",
		    user, service);
		rc = PAM_PERM_DENIED;
		break;
	default:
		if (!strv_has(&p->pam.services, service)) {
			pamlog_event(pamh, LOG_ERR, "refuse",
			    "refusing agent '%s' on service '%s': not in "
			    "pam.services",
			    user, service);
			rc = PAM_PERM_DENIED;
		} else if (loginshell_check(acc.pw.pw_shell, why, sizeof(why)) <
		    0) {
			pamlog_event(pamh, LOG_ERR, "refuse",
			    "refusing agent '%s' on service '%s': its login "
			    "shell is not aisb-shell: %s",
			    user, service, why);
			rc = PAM_PERM_DENIED;
		} else {
			if (a.debug)
				pamlog(pamh, LOG_DEBUG,
				    "agent '%s' allowed on service '%s'", user,
				    service);
			rc = PAM_SUCCESS;
		}
		break;
	}
	if (rc == PAM_PERM_DENIED)
		tell(pamh, flags, TELL_REFUSED);
	policy_free(p);
	free(acc.buf);
	return rc;
}

/*
 * Open the directory path, creating what is missing, without following
 * a symlink anywhere: every component is opened with O_NOFOLLOW relative
 * to the fd of its parent, so a path swapped underneath cannot redirect
 * us (the pam_namespace lesson).  Components above the last must be
 * root-owned directories that others cannot write (sticky ones such as
 * /tmp excepted); missing ones are made root:root 0755.  The last is made
 * uid:gid with mode, or must already be a directory owned by uid; with
 * reset, an existing one gets gid and mode again (a root-owned runtime
 * directory left by a deleted account of the same name).
 * Returns the fd of the last directory, or -errno with the offending
 * path in bad.
 */
static int
mkpath(const char *path, uid_t uid, gid_t gid, mode_t mode, bool reset,
    char *bad, size_t badlen)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_close_ int dfd = -1;
	char *save = NULL, *comp, *next;
	size_t done = 0;
	struct stat st;
	int fd;

	snprintf(bad, badlen, "%s", path);
	if (path[0] != '/')
		return -EINVAL;
	if (!(copy = strdup(path)))
		return -ENOMEM;
	dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -errno;
	comp = strtok_r(copy, "/", &save);
	if (!comp)
		return -EINVAL; /* "/" itself is nobody's home */
	for (; comp; comp = next) {
		bool last, made = false;

		next = strtok_r(NULL, "/", &save);
		last = next == NULL;
		done += strlen(comp) + 1;
		snprintf(bad, badlen, "%.*s", (int)done, path);
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			return -EINVAL;
		if (mkdirat(dfd, comp, last ? 0700 : 0755) == 0)
			made = true;
		else if (errno != EEXIST)
			return -errno;
		fd = openat(
		    dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			/* Say "symlink" only when it is one (ENOTDIR also
			 * comes for a plain file). */
			if (e == ENOTDIR &&
			    fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				e = ELOOP;
			return -e;
		}
		close(dfd);
		dfd = fd;
		if (fstat(dfd, &st) < 0)
			return -errno;
		if (made) {
			/* Explicit owner and mode: the caller's umask may be
			 * anything (a 077 would lock the agent out). */
			if (fchown(dfd, last ? uid : 0, last ? gid : 0) < 0 ||
			    fchmod(dfd, last ? mode : 0755) < 0)
				return -errno;
			continue;
		}
		if (last) {
			if (st.st_uid != uid)
				return -EPERM;
			if (reset &&
			    (fchown(dfd, uid, gid) < 0 ||
			        fchmod(dfd, mode) < 0))
				return -errno;
			continue;
		}
		if (st.st_uid != 0)
			return -EPERM;
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
		    !(st.st_mode & S_ISVTX))
			return -EPERM;
	}
	return TAKE_FD(dfd);
}

/* Record values are PAM items (PAM_RHOST comes from DNS): keep them to
 * a harmless alphabet so a reader can split lines and fields. */
static void
clean(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		        (c >= '0' && c <= '9') || strchr("._:/@%+-", c)
		    ? c
		    : '_';
	}
	dst[i] = '\0';
}

static void
free_data(pam_handle_t *pamh, void *data, int status)
{
	(void)pamh, (void)status;
	free(data);
}

/*
 * /run/aisb/USER (root:agent-group 0750) and in it session-PID (0640),
 * PID being the process that opened the session (the sshd session
 * monitor, the su parent): aisb-shell finds its record by walking up its
 * parent chain.  Root owns both, so the agent can read but not forge the
 * peer it is said to have come from.
 */
static int
record_write(pam_handle_t *pamh, const struct passwd *pw, const char *key,
    char *ret_name, size_t namelen)
{
	_cleanup_close_ int dfd = -1, fd = -1;
	char buf[2048];
	char rhost[256], tty[256], ruser[256], service[256];
	ssize_t w;
	int n, replaced;

	clean(rhost, sizeof(rhost), item(pamh, PAM_RHOST));
	clean(tty, sizeof(tty), item(pamh, PAM_TTY));
	clean(ruser, sizeof(ruser), item(pamh, PAM_RUSER));
	clean(service, sizeof(service), item(pamh, PAM_SERVICE));
	dfd = rundir_open(pw, &replaced);
	if (dfd < 0)
		return dfd;
	if (replaced)
		pamlog(pamh, LOG_NOTICE,
		    "agent '%s': %s/%s held what was not this account's: "
		    "removed and made again",
		    pw->pw_name, RUN_DIR, pw->pw_name);
	snprintf(ret_name, namelen, "session-%ld", (long)getpid());
	n = snprintf(buf, sizeof(buf),
	    "user=%s\nuid=%u\nservice=%s\nrhost=%s\ntty=%s\nruser=%s\npid=%"
	    "ld\nstart=%lld\ncgroup=%s\n",
	    pw->pw_name, (unsigned)pw->pw_uid, service, rhost, tty, ruser,
	    (long)getpid(), (long long)time(NULL), key);
	/* A user name longer than the rest leaves room for: no record. */
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -ENAMETOOLONG;
	fd = openat(dfd, ret_name,
	    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	if (fchown(fd, 0, pw->pw_gid) < 0 || fchmod(fd, 0640) < 0)
		return -errno;
	w = write(fd, buf, (size_t)n);
	if (w < 0)
		return -errno;
	/* A short write sets no errno: a stale one must not be reported. */
	return w == n ? 0 : -EIO;
}

int
pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct aisb_policy *p = NULL;
	struct account acc;
	const char *user = NULL;
	char bad[PATH_MAX], rec[64] = "", *key = NULL;
	struct args a;
	int r, rc = PAM_SESSION_ERR;

	pamlog_phase(pamh, "session");
	args_parse(pamh, argc, argv, &a);
	if (pam_get_item(pamh, PAM_USER, (const void **)&user) != PAM_SUCCESS ||
	    !user || !*user)
		return PAM_IGNORE;
	/* The name becomes a path component below. */
	if (strchr(user, '/') || user[0] == '.')
		return PAM_IGNORE;
	if (account_get(user, &acc) < 0)
		return PAM_IGNORE;
	switch (classify(pamh, &a, &acc.pw, &p)) {
	case AGENT_NO:
		free(acc.buf);
		return PAM_IGNORE;
	case AGENT_BROKEN:
		pamlog(pamh, LOG_ERR,
		    "agent '%s': no session setup, the policy does not load",
		    user);
		goto out;
	default:
		break;
	}
	if (geteuid() != 0) {
		pamlog(pamh, LOG_ERR,
		    "agent '%s': session setup needs root (running as uid %u)",
		    user, (unsigned)geteuid());
		goto out;
	}

	if (!p->home.tmpfs && p->home.path) {
		r = mkpath(p->home.path, acc.pw.pw_uid, acc.pw.pw_gid, 0700,
		    false, bad, sizeof(bad));
		if (r < 0) {
			errno = -r;
			pamlog(pamh, LOG_ERR,
			    "agent '%s': cannot make home '%s': '%s': %m "
			    "(every directory above it must be root-owned and "
			    "not a symlink; the home itself the agent's)",
			    user, p->home.path, bad);
			goto out;
		}
		close(r);
	}

	if (!(key = calloc(1, KEY_LEN)))
		goto out;
	r = cgroup_delegate(
	    user, acc.pw.pw_uid, acc.pw.pw_gid, getpid(), key, KEY_LEN);
	if (r < 0) {
		/* Not fatal: aisb-shell refuses strict limits it cannot
		 * enforce, so enforcement never rests on this. */
		errno = -r;
		pamlog(pamh,
		    r == -ENOSYS || r == -EOPNOTSUPP ? LOG_NOTICE : LOG_ERR,
		    "agent '%s': no delegated cgroup: %m, ignoring", user);
		free(key);
		key = NULL;
	} else if (pam_set_data(pamh, DATA_CGROUP, key, free_data) !=
	    PAM_SUCCESS) {
		/* Reap now rather than leave a cgroup nobody will clean. */
		cgroup_reap(key);
		free(key);
		key = NULL;
		pamlog(pamh, LOG_ERR, "agent '%s': pam_set_data failed", user);
		goto out;
	}

	r = record_write(pamh, &acc.pw, key ? key : "", rec, sizeof(rec));
	if (r < 0) {
		errno = -r;
		pamlog(pamh, LOG_ERR,
		    "agent '%s': cannot write the session record under %s/%s: "
		    "%m, ignoring",
		    user, RUN_DIR, user);
	} else {
		char *name = strdup(rec);

		if (name &&
		    pam_set_data(pamh, DATA_RECORD, name, free_data) !=
		        PAM_SUCCESS)
			free(name);
	}
	pamlog_event(pamh, LOG_INFO, "session-open",
	    "session of agent '%s' on '%s' from '%s' tty '%s' cgroup '%s'",
	    user, item(pamh, PAM_SERVICE), item(pamh, PAM_RHOST),
	    item(pamh, PAM_TTY), key ? key : "none");
	rc = PAM_SUCCESS;
out:
	if (rc != PAM_SUCCESS)
		tell(pamh, flags, TELL_SESSION);
	policy_free(p);
	free(acc.buf);
	return rc;
}

int
pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	const void *key = NULL, *rec = NULL;
	const char *user = NULL;
	struct args a;
	int r, rc = PAM_SUCCESS;

	(void)flags;
	pamlog_phase(pamh, "session");
	args_parse(pamh, argc, argv, &a);
	pam_get_item(pamh, PAM_USER, (const void **)&user);
	if (!user)
		user = "";
	if (pam_get_data(pamh, DATA_CGROUP, &key) != PAM_SUCCESS)
		key = NULL;
	if (pam_get_data(pamh, DATA_RECORD, &rec) != PAM_SUCCESS)
		rec = NULL;
	if (!key && !rec)
		return PAM_IGNORE; /* not a session we opened */
	if (key) {
		r = cgroup_reap(key);
		if (r < 0) {
			errno = -r;
			pamlog(pamh, LOG_ERR,
			    "agent '%s': cannot reap cgroup '%s': %m", user,
			    (const char *)key);
			rc = PAM_SESSION_ERR;
		} else if (a.debug)
			pamlog(pamh, LOG_DEBUG,
			    "agent '%s': cgroup '%s' reaped", user,
			    (const char *)key);
	}
	if (rec && *user && !strchr(user, '/')) {
		/* The record goes, and the directory with the account's
		 * last session. */
		r = rundir_leave(user, rec);
		if (r < 0) {
			errno = -r;
			pamlog(pamh, LOG_ERR,
			    "agent '%s': cannot remove the session record "
			    "under %s/%s: %m",
			    user, RUN_DIR, user);
		} else if (a.debug && r == 1)
			pamlog(pamh, LOG_DEBUG,
			    "agent '%s': last session: %s/%s removed", user,
			    RUN_DIR, user);
	}
	return rc;
}
