/*
 * sessions.c: aisb-shell --sessions [--json] and --end ID|USER (root;
 * aisb-shell(8)).
 *
 * --sessions lists every agent's live sessions.  A registry file only
 * says what a session was; whether it is live the kernel says
 * (registry_alive: the same boot, the outer's pid with its start time
 * and uid, running aisb-shell), so a session that crashed or was killed
 * is not shown, whatever its file claims.  And since an entry could be
 * missing (no registry on this host, a file removed), /proc is searched
 * too: an aisb-shell of a user whose child lives in another pid
 * namespace is an outer, and one without a file is listed as
 * unregistered, with what the kernel knows of it.
 *
 * --end sends SESSREC_SIG_END to the outer through a pidfd opened and
 * then checked (so a recycled pid cannot be hit), logs who asked, and
 * waits (at most END_WAIT_MS) for the outer to exit; the outer kills the
 * sandbox at once, as limits.timeout does.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "aisb.h"
#include "args.h"
#include "registry.h"
#include "report.h"
#include "sessrec.h"
#include "util.h"

#define END_WAIT_MS 3000

struct live {
	struct registry_session s;
	struct registry_live l;
	bool registered;
	bool cg; /* mem and pids known (limits on) */
	uint64_t mem, pids;
};

struct list {
	struct live *v;
	size_t n, cap;
	bool oom;
};

static struct live *
list_add(struct list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct live *v = reallocarray(l->v, cap, sizeof(*v));

		if (v == NULL) {
			l->oom = true;
			return NULL;
		}
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

static int
collect(const struct registry_rec *r, void *ctx)
{
	struct list *l = ctx;
	struct live *e;

	if (r->end.ended || !registry_alive(&r->s))
		return 0;
	e = list_add(l);
	if (e == NULL)
		return -ENOMEM;
	e->s = r->s;
	e->l = r->live;
	e->registered = true;
	return 0;
}

static int
read_file(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t have = 0;
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return errno > 0 ? -errno : -EIO;
	while (have + 1 < len && (n = read(fd, buf + have, len - 1 - have)) > 0)
		have += (size_t)n;
	buf[have] = '\0';
	return (int)have;
}

/* Is a child of pid in another pid namespace (the sandbox's init)? */
static pid_t
sandbox_child(pid_t pid)
{
	char path[64], b[4096], ns[64], cns[64];
	ssize_t k;
	char *p, *end;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	k = readlink(path, ns, sizeof(ns) - 1);
	if (k <= 0)
		return 0;
	ns[k] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	if (read_file(path, b, sizeof(b)) <= 0)
		return 0;
	for (p = b; *p; p = end) {
		long c = strtol(p, &end, 10);

		if (end == p)
			break;
		snprintf(path, sizeof(path), "/proc/%ld/ns/pid", c);
		k = readlink(path, cns, sizeof(cns) - 1);
		if (k > 0) {
			cns[k] = '\0';
			if (strcmp(cns, ns) != 0)
				return (pid_t)c;
		}
	}
	return 0;
}

/* A value of the caller's environment as the kernel kept it. */
static void
environ_peer(pid_t pid, char *peer, size_t len)
{
	static const char *const names[] = {
	    "SSH_CONNECTION=", "AISB_CALLER_SSH_CONNECTION="};
	char path[64], b[65536] = "";
	int n;

	snprintf(peer, len, "-");
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	n = read_file(path, b, sizeof(b));
	for (int i = 0; i < n;) {
		const char *v = b + i;
		size_t k = strlen(v);

		for (size_t j = 0; j < ELEMENTSOF(names); j++) {
			size_t m = strlen(names[j]);
			char tmp[128];
			size_t o = 0;
			int sp = 0;

			if (strncmp(v, names[j], m) != 0)
				continue;
			/* "IP PORT IP PORT": the first two, as IP:PORT. */
			for (const char *q = v + m; *q && o + 1 < sizeof(tmp);
			     q++) {
				if (*q == ' ' && ++sp == 2)
					break;
				tmp[o++] = *q == ' ' ? ':'
				    : isxdigit((unsigned char)*q) ||
				        *q == '.' || *q == ':'
				    ? *q
				    : '?';
			}
			tmp[o] = '\0';
			snprintf(peer, len, "%s", tmp);
		}
		i += (int)k + 1;
	}
}

static time_t
boot_time(void)
{
	char b[8192], *p;

	if (read_file("/proc/stat", b, sizeof(b)) < 0 ||
	    (p = strstr(b, "\nbtime ")) == NULL)
		return 0;
	return (time_t)strtoll(p + 7, NULL, 10);
}

/* Outers the registry does not know of. */
static void
unregistered(struct list *l)
{
	long tick = sysconf(_SC_CLK_TCK);
	time_t boot = boot_time();
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		uint64_t start;
		uid_t uid;
		pid_t init;
		struct passwd *pw;
		struct live *e;
		bool known = false;

		if (*end || pid < 2 ||
		    registry_proc_uid((pid_t)pid, &uid) < 0 || uid == 0 ||
		    registry_proc_stat((pid_t)pid, NULL, &start) < 0 ||
		    !registry_proc_is_shell((pid_t)pid, uid, start) ||
		    (init = sandbox_child((pid_t)pid)) == 0)
			continue;
		for (size_t i = 0; i < l->n; i++)
			known |= l->v[i].s.pid == (pid_t)pid;
		if (known || (e = list_add(l)) == NULL)
			continue;
		e->s.pid = (pid_t)pid;
		e->s.uid = uid;
		e->s.pstart = start;
		e->s.init = init;
		e->s.started =
		    boot + (time_t)(tick > 0 ? start / (uint64_t)tick : 0);
		pw = getpwuid(uid);
		snprintf(
		    e->s.user, sizeof(e->s.user), "%s", pw ? pw->pw_name : "?");
		snprintf(e->s.id, sizeof(e->s.id), "-");
		snprintf(e->s.tty, sizeof(e->s.tty), "?");
		snprintf(e->s.mode, sizeof(e->s.mode), "?");
		snprintf(e->s.project, sizeof(e->s.project), "?");
		environ_peer((pid_t)pid, e->s.peer, sizeof(e->s.peer));
	}
	closedir(d);
}

/* The session cgroup's memory and pids use, from where the kernel says
 * init is (only a session cgroup: limits on). */
static void
cg_usage(struct live *e)
{
	char path[PATH_MAX + 64], b[4096], v[64];
	const char *mem = NULL, *pids = NULL, *unified = NULL;
	pid_t ppid;

	if (e->s.init < 2 || registry_proc_stat(e->s.init, &ppid, NULL) < 0 ||
	    ppid != e->s.pid)
		return;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)e->s.init);
	if (read_file(path, b, sizeof(b)) <= 0)
		return;
	for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
		char *c1 = strchr(line, ':'),
		     *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2 == NULL)
			continue;
		*c2 = '\0';
		if (strcmp(c1 + 1, "") == 0)
			unified = c2 + 1;
		else if (strstr(c1 + 1, "memory"))
			mem = c2 + 1;
		else if (strstr(c1 + 1, "pids"))
			pids = c2 + 1;
	}
	if (mem && pids && strstr(mem, "/session-") &&
	    strstr(pids, "/session-")) {
		snprintf(path, sizeof(path),
		    "/sys/fs/cgroup/memory%s/memory.usage_in_bytes", mem);
		if (read_file(path, v, sizeof(v)) > 0)
			e->mem = strtoull(v, NULL, 10);
		snprintf(path, sizeof(path),
		    "/sys/fs/cgroup/pids%s/pids.current", pids);
		if (read_file(path, v, sizeof(v)) > 0)
			e->pids = strtoull(v, NULL, 10);
		e->cg = true;
	} else if (unified && strstr(unified, "/session-")) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current",
		    unified);
		if (read_file(path, v, sizeof(v)) > 0)
			e->mem = strtoull(v, NULL, 10);
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/pids.current",
		    unified);
		if (read_file(path, v, sizeof(v)) > 0)
			e->pids = strtoull(v, NULL, 10);
		e->cg = true;
	}
}

static int
by_start(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return x->s.started < y->s.started ? -1 : x->s.started > y->s.started;
}

static int
live_sessions(struct list *l)
{
	int r = registry_scan((uid_t)-1, collect, l);

	if (r < 0 && r != -ENOENT)
		fprintf(stderr, "aisb-shell: %s: %s\n", AISB_REGISTRY_DIR,
		    strerror(-r));
	unregistered(l);
	if (l->oom)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		cg_usage(&l->v[i]);
	if (l->n > 1) /* with none, l->v may be NULL: not for qsort */
		qsort(l->v, l->n, sizeof(*l->v), by_start);
	return 0;
}

static void
print_json(const struct list *l)
{
	printf("{\"sessions\": [");
	for (size_t i = 0; i < l->n; i++) {
		const struct live *e = &l->v[i];

		printf("%s\n  {\"id\": ", i ? "," : "");
		if (e->registered)
			report_json_str(stdout, e->s.id);
		else
			printf("null");
		printf(", \"registered\": %s, \"user\": ",
		    e->registered ? "true" : "false");
		report_json_str(stdout, e->s.user);
		printf(", \"uid\": %u, \"pid\": %d, \"init\": %d, \"started\": "
		       "%lld, \"project\": ",
		    (unsigned)e->s.uid, (int)e->s.pid, (int)e->s.init,
		    (long long)e->s.started);
		report_json_str(stdout, e->s.project);
		report_json_field(stdout, "peer", e->s.peer);
		report_json_field(stdout, "tty", e->s.tty);
		report_json_field(stdout, "network", e->s.mode);
		report_json_field(stdout, "form", e->s.form);
		printf(", \"connections\": %llu, \"up\": %llu, \"down\": %llu",
		    (unsigned long long)e->l.open, (unsigned long long)e->l.up,
		    (unsigned long long)e->l.down);
		if (e->cg)
			printf(", \"memory\": %llu, \"pids\": %llu",
			    (unsigned long long)e->mem,
			    (unsigned long long)e->pids);
		else
			printf(", \"memory\": null, \"pids\": null");
		printf("}");
	}
	printf("%s]}\n", l->n ? "\n" : "");
}

static void
print_text(const struct list *l)
{
	char t[32], up[16], down[16], mem[16], pids[24];

	if (l->n == 0) {
		printf("no live sessions\n");
		return;
	}
	printf("%-32s  %-12s %7s  %-19s  %-10s %-21s %-5s %5s %13s %8s %5s  "
	       "%s\n",
	    "SESSION", "USER", "PID", "STARTED", "TTY", "PEER", "NET", "CONNS",
	    "UP/DOWN", "MEM", "PIDS", "PROJECT");
	for (size_t i = 0; i < l->n; i++) {
		const struct live *e = &l->v[i];
		char ud[40];

		snprintf(ud, sizeof(ud), "%s/%s",
		    report_size(e->l.up, up, sizeof(up)),
		    report_size(e->l.down, down, sizeof(down)));
		if (e->cg) {
			report_size(e->mem, mem, sizeof(mem));
			snprintf(pids, sizeof(pids), "%llu",
			    (unsigned long long)e->pids);
		} else {
			snprintf(mem, sizeof(mem), "-");
			snprintf(pids, sizeof(pids), "-");
		}
		printf("%-32s  %-12s %7d  %-19s  %-10s %-21s %-5s %5llu %13s "
		       "%8s %5s  %s\n",
		    e->registered ? e->s.id : "(unregistered)", e->s.user,
		    (int)e->s.pid, report_time(e->s.started, t, sizeof(t)),
		    strncmp(e->s.tty, "/dev/", 5) == 0 ? e->s.tty + 5
		                                       : e->s.tty,
		    e->s.peer, e->s.mode, (unsigned long long)e->l.open, ud,
		    mem, pids, e->s.project);
	}
}

int
sessions_main(const struct aisb_args *a)
{
	struct list l = {0};

	if (!report_root("--sessions"))
		return 2;
	if (live_sessions(&l) < 0) {
		free(l.v);
		fprintf(stderr, "aisb-shell: out of memory\n");
		return 1;
	}
	if (a->json)
		print_json(&l);
	else
		print_text(&l);
	free(l.v);
	return 0;
}

/* ---- --end ---- */

static const char *
login_of(char *buf, size_t len)
{
	char b[32];
	const char *sudo = getenv("SUDO_USER");
	long lu = -1;

	if (read_file("/proc/self/loginuid", b, sizeof(b)) > 0)
		lu = strtol(b, NULL, 10);
	if (lu >= 0 && lu != 4294967295L) {
		struct passwd *pw = getpwuid((uid_t)lu);

		snprintf(
		    buf, len, "login uid %ld (%s)", lu, pw ? pw->pw_name : "?");
	} else if (sudo && *sudo)
		snprintf(buf, len, "sudo from %.64s", sudo);
	else
		snprintf(buf, len, "no login uid");
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return buf;
}

/* End one session; 0 when it is gone. */
static int
end_one(const struct live *e)
{
	int64_t t0, t1;
	struct timespec ts;
	struct pollfd pf;
	char who[160];
	int pfd, r;

	pfd = (int)syscall(SYS_pidfd_open, e->s.pid, 0);
	if (pfd < 0) {
		fprintf(stderr, "aisb-shell: session %s: pid %d: %s\n", e->s.id,
		    (int)e->s.pid, strerror(errno));
		return -errno;
	}
	/* The pid is held now: is it still the same process? */
	if (!registry_proc_is_shell(e->s.pid, e->s.uid, e->s.pstart)) {
		close(pfd);
		fprintf(
		    stderr, "aisb-shell: session %s has just ended\n", e->s.id);
		return 0;
	}
	openlog("aisb-shell", LOG_PID, LOG_AUTHPRIV);
	syslog(LOG_NOTICE,
	    "session end requested id=%s user=%s pid=%d by uid %u, %s", e->s.id,
	    e->s.user, (int)e->s.pid, (unsigned)getuid(),
	    login_of(who, sizeof(who)));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (syscall(SYS_pidfd_send_signal, pfd, SESSREC_SIG_END, NULL, 0) < 0) {
		r = -errno;
		close(pfd);
		fprintf(stderr, "aisb-shell: session %s: signal: %s\n", e->s.id,
		    strerror(-r));
		return r;
	}
	pf = (struct pollfd){.fd = pfd, .events = POLLIN};
	do
		r = poll(&pf, 1, END_WAIT_MS);
	while (r < 0 && errno == EINTR);
	close(pfd);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (r <= 0) {
		fprintf(stderr,
		    "aisb-shell: session %s (user %s, pid %d) did not end "
		    "within %d s\n",
		    e->s.id, e->s.user, (int)e->s.pid, END_WAIT_MS / 1000);
		return -ETIMEDOUT;
	}
	printf("ended session %s (user %s, pid %d) in %.2f s\n", e->s.id,
	    e->s.user, (int)e->s.pid, (double)(t1 - t0) / 1000);
	return 0;
}

int
sessions_end_main(const struct aisb_args *a)
{
	struct report_target t;
	struct list l = {0};
	size_t hits = 0;
	int rc = 0;

	if (!report_root("--end"))
		return 2;
	if (report_target(a->target, &t) < 0)
		return 2;
	if (live_sessions(&l) < 0) {
		free(l.v);
		return 1;
	}
	/* An unregistered outer has no id: it is ended by its user. */
	for (size_t i = 0; i < l.n; i++)
		hits += (l.v[i].registered || !t.by_id) &&
		    report_match(&t, &l.v[i].s);
	if (hits == 0) {
		fprintf(
		    stderr, "aisb-shell: no live session of %s\n", a->target);
		free(l.v);
		return 1;
	}
	if (t.by_id && hits > 1) {
		fprintf(stderr,
		    "aisb-shell: %s is the start of %zu live sessions' ids: "
		    "give more of it\n",
		    a->target, hits);
		free(l.v);
		return 2;
	}
	for (size_t i = 0; i < l.n; i++)
		if ((l.v[i].registered || !t.by_id) &&
		    report_match(&t, &l.v[i].s) && end_one(&l.v[i]) < 0)
			rc = 1;
	free(l.v);
	return rc;
}
