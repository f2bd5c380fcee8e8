/*
 * sesslimits.c: resource limits of a session.  docs/limits.md explains the
 * mechanism of each limit; this file is the outer's and the inner's
 * side of it:
 *
 *   memory, pids, cpu  a per-session child of the delegated cgroup,
 *                      "session-<id>", that init is moved into before it
 *                      runs anything (v2 memory.max + memory.swap.max,
 *                      pids.max, cpu.max; v1 memory.limit_in_bytes +
 *                      memory.memsw.limit_in_bytes, pids.max,
 *                      cpu.cfs_quota_us/cfs_period_us);
 *   nofile, fsize      rlimits set by the inner just before exec, with
 *                      RLIMIT_CORE = 0 always;
 *   timeout            pty_outer_wait kills init; sesslimits_timeout_status
 *                      says so and gives the exit status.
 *
 * The delegated cgroup is found, never assumed: it is the topmost
 * ancestor of our own cgroup that belongs to our uid (pam_aisb and
 * systemd's Delegate= both chown it to the user).  When it is our own
 * cgroup (a systemd unit with Delegate= and no DelegateSubgroup=, which
 * systemd 252 lacks), v2 cannot give its children controllers while we
 * sit in it, so we first move ourselves into its child "login", the
 * shape pam_aisb and DelegateSubgroup=login make.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "sesslimits.h"
#include "log.h"
#include "util.h"

#define FIX_DELEGATE "add pam_aisb to the session stack of this service"
#define FIX_BEST "or set limits.enforce = \"best-effort\""

/* One cgroup hierarchy (v2: the only one; v1: one per mount). */
struct lim_cg {
	unsigned ctls; /* 1 << enum cgroup_ctl carried here */
	int dfd; /* the delegated cgroup */
	int sfd; /* our session cgroup in it */
	char *dpath; /* the delegated cgroup, for messages */
	char why[256]; /* why there is no session cgroup here */
	const char *fix;
};

struct sesslimits_state {
	struct cgroup_host host;
	struct lim_cg cg[CGROUP_NCTL];
	int n;
	char name[96]; /* "session-<id>" */
	bool strict;
	unsigned wanted; /* 1 << enum cgroup_ctl with a configured limit */
	enum aisb_notices notices;
	char unenforced[256]; /* "limits.memory = 4G, ..." (best-effort) */
	bool noticed; /* the one stderr line is out */
};

static void
fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t u = 1ULL << (10 * (i + 1));

		if (v >= u && v % u == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", v / u, units[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

/* "limits.memory = 4G" for messages. */
static void
fmt_limit(const struct aisb_policy *p, enum cgroup_ctl c, char *buf, size_t len)
{
	char v[32];

	switch (c) {
	case CGROUP_MEMORY:
		fmt_size(p->limits.memory, v, sizeof(v));
		break;
	case CGROUP_PIDS:
		snprintf(v, sizeof(v), "%" PRIu64, p->limits.pids);
		break;
	case CGROUP_CPU:
		snprintf(v, sizeof(v), "\"%u%%\"", p->limits.cpu);
		break;
	default:
		snprintf(v, sizeof(v), "?");
	}
	snprintf(buf, len, "limits.%s = %s", cgroup_ctl_name(c), v);
}

static bool
wanted(const struct aisb_policy *p, enum cgroup_ctl c)
{
	switch (c) {
	case CGROUP_MEMORY:
		return p->limits.memory != 0;
	case CGROUP_PIDS:
		return p->limits.pids != 0;
	case CGROUP_CPU:
		return p->limits.cpu != 0;
	default:
		return false;
	}
}

/* Best-effort: one more limit for the notice (a list, cut at its size). */
static void
unenforced(struct sesslimits_state *st, const char *what)
{
	size_t n = strlen(st->unenforced);

	snprintf(st->unenforced + n, sizeof(st->unenforced) - n, "%s%s",
	    n ? ", " : "", what);
}

/*
 * A configured limit that this host cannot enforce.  Strict: one line,
 * -EOPNOTSUPP (exit 77).  Best-effort: the reason in the session's
 * record (syslog, never stderr) and the limit on the list that notice()
 * shows; 0.
 */
static int
refuse(struct sesslimits_state *st, const struct aisb_policy *p,
    enum cgroup_ctl c, const char *why, const char *fix)
{
	char lim[64];

	fmt_limit(p, c, lim, sizeof(lim));
	if (st->strict) {
		log_err("%s cannot be enforced: %s (%s, %s)", lim, why, fix,
		    FIX_BEST);
		return -EOPNOTSUPP;
	}
	log_record(LOG_WARNING,
	    "%s: %s not enforced (limits.enforce = \"best-effort\"): %s (%s)",
	    st->name, lim, why, fix);
	unenforced(st, lim);
	return 0;
}

/*
 * Best-effort: at most one line on stderr for the whole session, and
 * only where limits.notices lets it: a terminal by default.  A harness
 * feeds stderr to its model, which can do nothing about the host; the
 * record (syslog) has every limit and its reason.
 */
static void
notice(struct sesslimits_state *st)
{
	if (st->noticed || !st->unenforced[0] ||
	    st->notices == AISB_NOTICES_NEVER ||
	    (st->notices == AISB_NOTICES_TERMINAL && !isatty(2)))
		return;
	st->noticed = true;
	dprintf(2,
	    "aisb: not enforced on this host (limits.enforce = "
	    "\"best-effort\"): %s; the system log says why\n",
	    st->unenforced);
}

/*
 * The topmost cgroup on the path from the hierarchy root to our own that
 * belongs to us, dir and cgroup.procs both.  Returns its fd (and its
 * path; *ret_own: it is our own cgroup), -ENOENT when none is ours.
 */
static int
find_delegated(const struct cgroup_host *h, enum cgroup_ctl c, char **ret_path,
    bool *ret_own)
{
	const char *root = h->mode == CGROUP_V2 ? h->root : h->v1root[c];
	_cleanup_free_ char *rel = NULL;
	_cleanup_close_ int cur = -1;
	char *comp, *save = NULL, *walk;
	uid_t uid = getuid();
	int r;

	r = cgroup_path_of(h, c, 0, &rel);
	if (r < 0)
		return r;
	cur = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	walk = strdupa(rel);
	for (comp = strtok_r(walk, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		struct stat sd, sp;
		int next;

		next = openat(
		    cur, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (next < 0)
			return -errno;
		close(cur);
		cur = next;
		if (fstat(cur, &sd) < 0 ||
		    fstatat(cur, "cgroup.procs", &sp, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if (sd.st_uid != uid || sp.st_uid != uid)
			continue;
		/* comp points into walk: its end tells how deep we are. */
		if (asprintf(ret_path, "%s/%.*s", root,
		        (int)(comp + strlen(comp) - walk), rel) < 0)
			return -ENOMEM;
		*ret_own = (size_t)(comp + strlen(comp) - walk) == strlen(rel);
		return TAKE_FD(cur);
	}
	return -ENOENT;
}

/* Is word in the space-separated list file of dfd? */
static bool
file_has(int dfd, const char *file, const char *word)
{
	char buf[512], *w, *save = NULL;

	if (cgroup_read(dfd, file, buf, sizeof(buf)) < 0)
		return false;
	for (w = strtok_r(buf, " \n", &save); w;
	     w = strtok_r(NULL, " \n", &save))
		if (strcmp(w, word) == 0)
			return true;
	return false;
}

/*
 * v2: controller c must be on in the delegated cgroup's subtree_control
 * for our session child to have its files.  Turn it on if it is only
 * available.  0, or -errno with the reason in why.
 */
static int
v2_enable(struct lim_cg *g, enum cgroup_ctl c, char *why, size_t len)
{
	const char *n = cgroup_ctl_name(c);
	char cmd[16];
	int r;

	if (file_has(g->dfd, "cgroup.subtree_control", n))
		return 0;
	if (!file_has(g->dfd, "cgroup.controllers", n)) {
		snprintf(why, len, "the %s controller is not delegated to %s",
		    n, g->dpath);
		return -EOPNOTSUPP;
	}
	snprintf(cmd, sizeof(cmd), "+%s", n);
	r = cgroup_write(g->dfd, "cgroup.subtree_control", cmd);
	if (r == -EBUSY)
		snprintf(why, len,
		    "%s holds processes, so v2 cannot give its "
		    "children the %s controller (only aisb-shell may run in "
		    "the delegated cgroup, which it leaves for %s/%s; run "
		    "nothing else in the unit)",
		    g->dpath, n, g->dpath, CGROUP_LEAF);
	else if (r < 0)
		snprintf(why, len,
		    "enabling %s in %s/cgroup.subtree_control: "
		    "%s",
		    n, g->dpath, strerror(-r));
	return r;
}

static bool
swap_active(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long long kb = 0;

	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SwapTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb > 0;
}

/* Write one limit file; on failure say which in why. */
static int
put(struct lim_cg *g, const char *file, const char *val, char *why, size_t len)
{
	int r = cgroup_write(g->sfd, file, val);

	if (r < 0)
		snprintf(why, len, "writing %s to %s/%s: %s", val, g->dpath,
		    file, strerror(-r));
	return r;
}

/* Write the limit of controller c into the session cgroup of g. */
static int
apply(struct sesslimits_state *st, struct lim_cg *g,
    const struct aisb_policy *p, enum cgroup_ctl c, char *why, size_t len)
{
	bool v2 = st->host.mode == CGROUP_V2;
	char val[64];
	int r;

	switch (c) {
	case CGROUP_MEMORY:
		snprintf(val, sizeof(val), "%" PRIu64, p->limits.memory);
		r = put(g, v2 ? "memory.max" : "memory.limit_in_bytes", val,
		    why, len);
		if (r < 0)
			return r;
		/*
		 * No swap beyond the limit.  Without swap accounting
		 * (v2 memory.swap.max, v1 memsw missing) the limit still
		 * caps RAM; v1 then gets swappiness 0 so the kernel does
		 * not swap this cgroup's memory out instead of killing.
		 */
		r = cgroup_write(g->sfd,
		    v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes",
		    v2 ? "0" : val);
		if (r == -ENOENT) {
			if (!v2)
				(void)cgroup_write(
				    g->sfd, "memory.swappiness", "0");
			if (swap_active())
				log_warn(
				    "limits.memory: this host has swap but "
				    "no swap accounting; the limit caps RAM, "
				    "swap use is not limited (boot with "
				    "swapaccount=1)");
			return 0;
		}
		if (r < 0)
			snprintf(why, len, "limiting swap in %s: %s", g->dpath,
			    strerror(-r));
		return r;
	case CGROUP_PIDS:
		snprintf(val, sizeof(val), "%" PRIu64, p->limits.pids);
		return put(g, "pids.max", val, why, len);
	case CGROUP_CPU:
		/* percent of one CPU: quota per 100 ms period */
		if (v2) {
			snprintf(val, sizeof(val), "%" PRIu64 " 100000",
			    (uint64_t)p->limits.cpu * 1000);
			return put(g, "cpu.max", val, why, len);
		}
		r = put(g, "cpu.cfs_period_us", "100000", why, len);
		if (r < 0)
			return r;
		snprintf(val, sizeof(val), "%" PRIu64,
		    (uint64_t)p->limits.cpu * 1000);
		return put(g, "cpu.cfs_quota_us", val, why, len);
	default:
		return 0;
	}
}

/*
 * v2, when the delegated cgroup is our own: move ourselves (the whole
 * process; nothing else of the session exists yet) into its child
 * CGROUP_LEAF, leaving it free to hand controllers to its children.
 */
static int
enter_leaf(struct lim_cg *g)
{
	_cleanup_close_ int lfd = -1;
	char pid[16];
	int r;

	if (mkdirat(g->dfd, CGROUP_LEAF, 0755) < 0 && errno != EEXIST)
		r = -errno;
	else if ((lfd = openat(g->dfd, CGROUP_LEAF,
	              O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		r = -errno;
	else {
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		r = cgroup_write(lfd, "cgroup.procs", pid);
	}
	if (r < 0)
		snprintf(g->why, sizeof(g->why),
		    "moving aisb-shell into %s/%s: %s", g->dpath, CGROUP_LEAF,
		    strerror(-r));
	return r;
}

/* Find the delegated cgroup of g's hierarchy and make our child there. */
static void
open_session(struct sesslimits_state *st, struct lim_cg *g, enum cgroup_ctl c)
{
	bool own = false;
	int r;

	g->fix = FIX_DELEGATE;
	r = find_delegated(&st->host, c, &g->dpath, &own);
	if (r < 0) {
		if (r == -ENOENT)
			snprintf(g->why, sizeof(g->why), "no delegated cgroup");
		else
			snprintf(g->why, sizeof(g->why),
			    "finding the "
			    "delegated cgroup: %s",
			    strerror(-r));
		return;
	}
	g->dfd = r;
	g->fix = "see docs/limits.md";
	if (own && st->host.mode == CGROUP_V2 && enter_leaf(g) < 0)
		return;
	if (mkdirat(g->dfd, st->name, 0755) < 0) {
		snprintf(g->why, sizeof(g->why), "mkdir %s/%s: %s", g->dpath,
		    st->name, strerror(errno));
		return;
	}
	g->sfd = openat(
	    g->dfd, st->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (g->sfd < 0) {
		snprintf(g->why, sizeof(g->why), "open %s/%s: %s", g->dpath,
		    st->name, strerror(errno));
		(void)unlinkat(g->dfd, st->name, AT_REMOVEDIR);
	}
}

int
sesslimits_setup(const struct aisb_policy *p, const char *session_id,
    struct sesslimits_state **ret)
{
	struct sesslimits_state *st;
	int c, i, r;

	st = calloc(1, sizeof(*st));
	if (!st)
		return log_errno(-ENOMEM, "limits: %m");
	st->strict = p->limits.enforce == AISB_ENFORCE_STRICT;
	st->notices = p->limits.notices;
	for (c = 0; c < CGROUP_NCTL; c++)
		if (wanted(p, (enum cgroup_ctl)c))
			st->wanted |= 1U << c;
	for (i = 0; i < CGROUP_NCTL; i++)
		st->cg[i].dfd = st->cg[i].sfd = -1;
	if (session_id && cgroup_name_ok(session_id))
		snprintf(st->name, sizeof(st->name), "session-%s", session_id);
	else
		snprintf(
		    st->name, sizeof(st->name), "session-%d", (int)getpid());

	r = cgroup_host_probe(&st->host);
	if (r < 0)
		log_warn("limits: probing cgroups: %s", strerror(-r));

	/* One lim_cg per hierarchy: v2 has one, v1 one per mount. */
	for (c = 0; c < CGROUP_NCTL && st->host.mode != CGROUP_NONE; c++) {
		struct lim_cg *g = NULL;

		if (st->host.mode == CGROUP_V2) {
			if (c == CGROUP_CPUACCT)
				continue; /* cpu.stat has the usage */
			g = &st->cg[0];
			st->n = 1;
		} else {
			if (!st->host.v1root[c])
				continue;
			for (i = 0; i < st->n; i++)
				if (strcmp(st->host.v1root[c],
				        st->host.v1root[__builtin_ctz(
				            st->cg[i].ctls)]) == 0)
					g = &st->cg[i];
			if (!g)
				g = &st->cg[st->n++];
		}
		if (g->ctls == 0)
			open_session(st, g, (enum cgroup_ctl)c);
		g->ctls |= 1U << c;
	}

	/* Each configured limit: enforce it or say why not. */
	for (c = 0; c < CGROUP_CPUACCT; c++) {
		struct lim_cg *g = NULL;
		char why[512];

		if (!wanted(p, (enum cgroup_ctl)c))
			continue;
		for (i = 0; i < st->n; i++)
			if (st->cg[i].ctls & (1U << c))
				g = &st->cg[i];
		if (st->host.mode == CGROUP_NONE)
			r = refuse(st, p, c, "this host has no cgroups",
			    "a kernel with cgroups is needed");
		else if (!g)
			r = refuse(st, p, c,
			    st->host.mode == CGROUP_V1
			        ? "its cgroup v1 controller is not mounted"
			        : "no cgroup hierarchy",
			    "mount it");
		else if (g->sfd < 0)
			r = refuse(st, p, c, g->why, g->fix);
		else if ((st->host.mode == CGROUP_V2 &&
		             v2_enable(g, c, why, sizeof(why)) < 0) ||
		    apply(st, g, p, c, why, sizeof(why)) < 0)
			r = refuse(st, p, c, why, "see docs/limits.md");
		else {
			r = 0;
			log_debug("limits: %s set in %s/%s", cgroup_ctl_name(c),
			    g->dpath, st->name);
		}
		if (r < 0) {
			sesslimits_teardown(st);
			return r;
		}
	}
	notice(st);
	*ret = st;
	return 0;
}

int
sesslimits_attach(struct sesslimits_state *st, pid_t pid)
{
	char val[16];
	int i, r;

	snprintf(val, sizeof(val), "%d", (int)pid);
	for (i = 0; i < st->n; i++) {
		struct lim_cg *g = &st->cg[i];

		if (g->sfd < 0)
			continue;
		r = cgroup_write(g->sfd, "cgroup.procs", val);
		/* Strict: a configured limit must hold.  The rest of the
		 * session cgroup only helps teardown; init's pid namespace
		 * dies with it anyway. */
		if (r < 0 && st->strict && (g->ctls & st->wanted))
			return log_errno(r,
			    "limits: moving the sandbox into "
			    "%s/%s: %m",
			    g->dpath, st->name);
		if (r < 0) {
			log_record(LOG_WARNING,
			    "%s: limits: moving the sandbox into %s/%s: %s "
			    "(best-effort: its limits do not apply)",
			    st->name, g->dpath, st->name, strerror(-r));
			if (g->ctls & st->wanted) {
				unenforced(st, "the session cgroup");
				notice(st);
			}
		}
	}
	return 0;
}

/* Lower (never raise) one rlimit to v: above the hard limit the hard
 * limit stays, which is stricter than asked, so never weaker. */
static int
cap_rlimit(int res, uint64_t v, const char *key)
{
	struct rlimit cur, r;

	if (getrlimit(res, &cur) < 0)
		return log_errno(-errno, "getrlimit %s: %m", key);
	if (cur.rlim_max != RLIM_INFINITY && v > cur.rlim_max)
		v = cur.rlim_max;
	r.rlim_cur = r.rlim_max = (rlim_t)v;
	if (setrlimit(res, &r) < 0)
		return log_errno(
		    -errno, "%s = %" PRIu64 ": setrlimit: %m", key, v);
	return 0;
}

int
sesslimits_rlimits(const struct aisb_policy *p)
{
	struct rlimit core = {0, 0};
	int r;

	if (setrlimit(RLIMIT_CORE, &core) < 0)
		return log_errno(-errno, "RLIMIT_CORE = 0: %m");
	if (p->limits.nofile &&
	    (r = cap_rlimit(RLIMIT_NOFILE, p->limits.nofile, "limits.nofile")) <
	        0)
		return r;
	if (p->limits.fsize &&
	    (r = cap_rlimit(RLIMIT_FSIZE, p->limits.fsize, "limits.fsize")) < 0)
		return r;
	return 0;
}

bool
sesslimits_oom_happened(struct sesslimits_state *st)
{
	unsigned long long n = 0;
	int i, r;

	if (!st)
		return false;
	for (i = 0; i < st->n; i++) {
		struct lim_cg *g = &st->cg[i];

		if (g->sfd < 0 || !(g->ctls & (1U << CGROUP_MEMORY)))
			continue;
		if (st->host.mode == CGROUP_V2)
			return cgroup_read_key(g->sfd, "memory.events",
			           "oom_kill", &n) == 0 &&
			    n > 0;
		r = cgroup_read_key(
		    g->sfd, "memory.oom_control", "oom_kill", &n);
		if (r == 0)
			return n > 0;
		/* before 4.13 v1 has no oom_kill count: the limit was hit
		 * and the cgroup is or was under OOM */
		return (cgroup_read_key(g->sfd, "memory.oom_control",
		            "under_oom", &n) == 0 &&
		    n > 0);
	}
	return false;
}

bool
sesslimits_oom_report(struct sesslimits_state *st, const struct aisb_policy *p)
{
	char v[32];

	if (!sesslimits_oom_happened(st))
		return false;
	fmt_size(p->limits.memory, v, sizeof(v));
	log_err("memory limit reached (limits.memory = %s): the kernel killed "
	        "a process of this session",
	    v);
	return true;
}

int
sesslimits_timeout_status(const struct aisb_policy *p)
{
	log_err("limits.timeout = %" PRIu64 " reached: the sandbox was "
	        "killed (exit status %d)",
	    p->limits.timeout, SESSLIMITS_EX_TIMEOUT);
	return SESSLIMITS_EX_TIMEOUT;
}

void
sesslimits_teardown(struct sesslimits_state *st)
{
	int i, r;

	if (!st)
		return;
	for (i = 0; i < st->n; i++) {
		struct lim_cg *g = &st->cg[i];

		if (g->sfd >= 0) {
			close(g->sfd);
			r = cgroup_kill_remove(g->dfd, st->name, st->host.mode);
			if (r < 0)
				log_warn("limits: removing %s/%s: %s", g->dpath,
				    st->name, strerror(-r));
		}
		if (g->dfd >= 0)
			close(g->dfd);
		free(g->dpath);
	}
	cgroup_host_free(&st->host);
	free(st);
}
