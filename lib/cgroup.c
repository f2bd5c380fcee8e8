/*
 * cgroup.c: cgroup delegation and the small file helpers the session
 * cgroup is built with.  See cgroup.h for the layout and docs/limits.md
 * for why it looks like this.
 *
 * One concern: aisb's own cgroups on this host.  In order: naming and
 * finding the host's hierarchies (v2, or the v1 controllers from
 * mountinfo), the file primitives root and the session both use, root's
 * delegation of one login's cgroup (pam_aisb session open) and its reap
 * (session close), which parses the key the delegation wrote.  Emptying
 * and removing a tree, which the reap and the session's teardown share,
 * is cgroup_kill.c.
 *
 * Every path below a cgroup mount is walked with openat(O_NOFOLLOW) from
 * a directory fd, and every name we build or receive is one checked path
 * component: the delegated tree belongs to the agent, who may rename or
 * create entries in it while root works there.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <linux/magic.h>

#include "cgroup.h"
#include "kfile.h"
#include "util.h"

#define CGROUP_FS "/sys/fs/cgroup"

static const char *const ctl_names[CGROUP_NCTL] = {
    [CGROUP_MEMORY] = "memory",
    [CGROUP_PIDS] = "pids",
    [CGROUP_CPU] = "cpu",
    [CGROUP_CPUACCT] = "cpuacct",
};

const char *
cgroup_ctl_name(enum cgroup_ctl c)
{
	return c < CGROUP_NCTL ? ctl_names[c] : "?";
}

bool
cgroup_name_ok(const char *name)
{
	size_t i;

	if (!name || !*name || name[0] == '.' || strlen(name) > 200)
		return false;
	for (i = 0; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' &&
		    name[i] != '-' && name[i] != '.')
			return false;
	return true;
}

/* Does the comma-separated list contain word? */
static bool
list_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && strncmp(p, word, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo: undo in place. */
static void
unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 4;
		} else
			*d++ = *s++;
	}
	*d = '\0';
}

void
cgroup_host_free(struct cgroup_host *h)
{
	int c;

	if (!h)
		return;
	free(h->root);
	for (c = 0; c < CGROUP_NCTL; c++)
		free(h->v1root[c]);
	memset(h, 0, sizeof(*h));
}

/*
 * v1: which mount carries each controller.  Only mounts of the whole
 * hierarchy (mountinfo root "/") count: a bind mount of a sub-cgroup
 * would make /proc/PID/cgroup paths wrong.
 */
static int
probe_v1(struct cgroup_host *h)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int c, r = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *fields[12], *sep, *save = NULL, *tok;
		char *rest, *fstype, *opts;
		int n = 0;

		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		rest = sep + 3;
		for (tok = strtok_r(line, " ", &save); tok && n < 12;
		     tok = strtok_r(NULL, " ", &save))
			fields[n++] = tok;
		fstype = strtok_r(rest, " ", &save);
		(void)strtok_r(NULL, " ", &save); /* source */
		opts = strtok_r(NULL, " \n", &save);
		if (n < 5 || !fstype || !opts ||
		    strcmp(fstype, "cgroup") != 0 ||
		    strcmp(fields[3], "/") != 0)
			continue;
		for (c = 0; c < CGROUP_NCTL; c++) {
			if (h->v1root[c] || !list_has(opts, ctl_names[c]))
				continue;
			h->v1root[c] = strdup(fields[4]);
			if (!h->v1root[c]) {
				r = -ENOMEM;
				goto out;
			}
			unescape(h->v1root[c]);
		}
	}
out:
	free(line);
	fclose(f);
	return r;
}

int
cgroup_host_probe(struct cgroup_host *h)
{
	struct statfs sf;
	int c, r;

	memset(h, 0, sizeof(*h));
	if (statfs(CGROUP_FS, &sf) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (sf.f_type == CGROUP2_SUPER_MAGIC) {
		h->mode = CGROUP_V2;
		/* systemd as PID 1 (sd_booted(3)): a login sits in a logind
		 * scope that must keep its processes (cgroup.h). */
		h->nest = access("/run/systemd/system", F_OK) == 0;
		h->root = strdup(CGROUP_FS);
		return h->root ? 0 : -ENOMEM;
	}
	/*
	 * Not unified: a v1 host, or systemd's hybrid mode whose cgroup2 at
	 * /sys/fs/cgroup/unified carries no controllers.  Use the v1
	 * controller hierarchies.
	 */
	r = probe_v1(h);
	if (r < 0) {
		cgroup_host_free(h);
		return r;
	}
	for (c = 0; c < CGROUP_NCTL; c++)
		if (h->v1root[c])
			h->mode = CGROUP_V1;
	return 0;
}

int
cgroup_path_of(
    const struct cgroup_host *h, enum cgroup_ctl c, pid_t pid, char **ret)
{
	char fn[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int r = -ENOENT;

	if (pid > 0)
		snprintf(fn, sizeof(fn), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(fn, sizeof(fn), "/proc/self/cgroup");
	f = fopen(fn, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *a = strchr(line, ':'), *b, *nl;

		if (!a || !(b = strchr(a + 1, ':')))
			continue;
		*b = '\0';
		if (h->mode == CGROUP_V2) {
			if (strncmp(line, "0:", 2) != 0 || a[1] != '\0')
				continue;
		} else if (strncmp(line, "0:", 2) == 0 ||
		    !list_has(a + 1, ctl_names[c]))
			continue;
		nl = strchr(b + 1, '\n');
		if (nl)
			*nl = '\0';
		if (b[1] != '/') {
			r = -EINVAL;
			break;
		}
		*ret = strdup(b + 2);
		r = *ret ? 0 : -ENOMEM;
		break;
	}
	free(line);
	fclose(f);
	return r;
}

int
cgroup_write(int dfd, const char *file, const char *val)
{
	return kfile_write_at(dfd, file, val);
}

ssize_t
cgroup_read(int dfd, const char *file, char *buf, size_t len)
{
	return kfile_read_at(dfd, file, buf, len);
}

int
cgroup_read_key(
    int dfd, const char *file, const char *key, unsigned long long *ret)
{
	char buf[4096], *line, *save = NULL;
	size_t klen = strlen(key);
	ssize_t n;

	n = cgroup_read(dfd, file, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end;

		if (strncmp(line, key, klen) != 0 || line[klen] != ' ')
			continue;
		errno = 0;
		*ret = strtoull(line + klen + 1, &end, 10);
		if (errno || end == line + klen + 1)
			return -EINVAL;
		return 0;
	}
	return -ENOENT;
}

/*
 * Delegation.
 */

/* "USER-PID-RAND", or "uidN-PID-RAND" when the user name is not a safe
 * path component: unique even when a leftover tree has our pid. */
static int
make_name(const char *user, uid_t uid, pid_t pid, char *buf, size_t len)
{
	uint32_t rnd;
	int n;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint32_t)time(NULL) ^ (uint32_t)pid;
	if (user && cgroup_name_ok(user) && strlen(user) <= 64)
		n = snprintf(buf, len, "%s-%d-%08" PRIx32, user, (int)pid, rnd);
	else
		n = snprintf(buf, len, "uid%u-%d-%08" PRIx32, (unsigned)uid,
		    (int)pid, rnd);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/*
 * Open (creating it if needed) the root-owned CGROUP_TOP directory of
 * one hierarchy.  *created tells whether this call made it.
 */
static int
open_top(int rootfd, bool *created)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	*created = false;
	if (mkdirat(rootfd, CGROUP_TOP, 0755) == 0)
		*created = true;
	else if (errno != EEXIST)
		return -errno;
	fd = openat(rootfd, CGROUP_TOP,
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* Only root can mkdir at a hierarchy root: anything else is odd. */
	if (st.st_uid != 0)
		return -EPERM;
	return TAKE_FD(fd);
}

/* Hand dfd and the delegation files in it to the user. */
static int
chown_set(int dfd, const char *const *files, uid_t uid, gid_t gid)
{
	if (fchown(dfd, uid, gid) < 0)
		return -errno;
	for (; *files; files++)
		if (fchownat(dfd, *files, uid, gid, AT_SYMLINK_NOFOLLOW) < 0 &&
		    errno != ENOENT)
			return -errno;
	return 0;
}

/* v2: enable each of memory, pids, cpu that dfd's cgroup.controllers
 * lists, for dfd's children.  Missing ones are left for sesslimits_setup to
 * report: a login must not fail because the host lacks one. */
static void
enable_controllers(int dfd)
{
	static const char *const want[] = {"memory", "pids", "cpu"};
	char avail[512], on[512], cmd[16];
	size_t i;

	if (cgroup_read(dfd, "cgroup.controllers", avail, sizeof(avail)) < 0)
		return;
	if (cgroup_read(dfd, "cgroup.subtree_control", on, sizeof(on)) < 0)
		on[0] = '\0';
	for (i = 0; i < ELEMENTSOF(want); i++) {
		char *a, *save = NULL, tmp[512];
		bool have = false, live = false;

		snprintf(tmp, sizeof(tmp), "%s", avail);
		for (a = strtok_r(tmp, " \n", &save); a;
		     a = strtok_r(NULL, " \n", &save))
			have |= strcmp(a, want[i]) == 0;
		snprintf(tmp, sizeof(tmp), "%s", on);
		save = NULL;
		for (a = strtok_r(tmp, " \n", &save); a;
		     a = strtok_r(NULL, " \n", &save))
			live |= strcmp(a, want[i]) == 0;
		if (!have || live)
			continue;
		snprintf(cmd, sizeof(cmd), "+%s", want[i]);
		(void)cgroup_write(dfd, "cgroup.subtree_control", cmd);
	}
}

/*
 * Open the cgroup rel ("" for the root) below rootfd, one checked
 * component at a time.  fd, or -errno (-EINVAL: a component is not a
 * safe name).
 */
static int
open_rel(int rootfd, const char *rel)
{
	_cleanup_free_ char *walk = strdup(rel);
	_cleanup_close_ int cur = -1;
	char *comp, *save = NULL;
	int depth = 0;

	if (!walk)
		return -ENOMEM;
	cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -errno;
	for (comp = strtok_r(walk, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		int next;

		if (!cgroup_name_ok(comp) || ++depth > CGROUP_MAX_DEPTH)
			return -EINVAL;
		next = openat(
		    cur, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (next < 0)
			return -errno;
		close(cur);
		cur = next;
	}
	return TAKE_FD(cur);
}

#define MAX_PIDS 65536 /* per cgroup.procs read */

int
cgroup_read_procs(int dfd, pid_t **ret)
{
	_cleanup_close_ int fd = -1;
	FILE *f;
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	long pid;

	fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f)
		return -errno;
	(void)TAKE_FD(fd); /* f owns it now */
	while (n < MAX_PIDS && fscanf(f, "%ld", &pid) == 1) {
		if (n == cap) {
			pid_t *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
		}
		if (pid > 0 && pid <= INT32_MAX)
			v[n++] = (pid_t)pid;
	}
	fclose(f);
	*ret = v;
	return (int)n;
}

/*
 * v2: where the delegation goes (cgroup.h: <base>).  On a systemd host,
 * a caller alone in a cgroup of safe names (pam_systemd has just moved
 * the login into its session scope) keeps its scope: the delegation is
 * made below it.  Anywhere else, or with company in that cgroup (su from
 * a shell of root's session), the hierarchy root.  *ret is "" for the
 * root; caller frees it.
 */
static int
pick_base(const struct cgroup_host *h, pid_t pid, char **ret)
{
	_cleanup_free_ char *rel = NULL;
	_cleanup_free_ pid_t *pids = NULL;
	_cleanup_close_ int rootfd = -1, fd = -1;

	*ret = NULL;
	if (h->nest && cgroup_path_of(h, CGROUP_MEMORY, pid, &rel) == 0 &&
	    *rel) {
		rootfd = open(h->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rootfd >= 0)
			fd = open_rel(rootfd, rel);
		if (fd >= 0 && cgroup_read_procs(fd, &pids) == 1 && pids &&
		    pids[0] == pid) {
			*ret = TAKE_PTR(rel);
			return 0;
		}
	}
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
	*ret = strdup("");
	return *ret ? 0 : -ENOMEM;
}

static int
delegate_v2(const struct cgroup_host *h, const char *base, const char *name,
    uid_t uid, gid_t gid, pid_t pid)
{
	static const char *const files[] = {
	    "cgroup.procs", "cgroup.subtree_control", "cgroup.threads", NULL};
	_cleanup_close_ int rootfd = -1, bfd = -1, top = -1;
	_cleanup_close_ int dfd = -1, lfd = -1;
	char pidstr[16];
	bool created;
	int r;

	rootfd = open(h->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	bfd = open_rel(rootfd, base);
	if (bfd < 0)
		return bfd;
	/* The root takes controllers while it holds processes; a base
	 * scope only once the login has left it for the leaf (below). */
	if (!*base)
		enable_controllers(bfd);
	top = open_top(bfd, &created);
	if (top < 0)
		return top;
	if (mkdirat(top, name, 0755) < 0) {
		r = -errno;
		goto fail;
	}
	dfd =
	    openat(top, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0) {
		r = -errno;
		goto fail;
	}
	if (mkdirat(dfd, CGROUP_LEAF, 0755) < 0) {
		r = -errno;
		goto fail;
	}
	lfd = openat(
	    dfd, CGROUP_LEAF, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (lfd < 0) {
		r = -errno;
		goto fail;
	}
	if ((r = chown_set(dfd, files, uid, gid)) < 0 ||
	    (r = chown_set(lfd, files, uid, gid)) < 0)
		goto fail;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	if ((r = cgroup_write(lfd, "cgroup.procs", pidstr)) < 0)
		goto fail;
	/*
	 * No cgroup on the way holds a process of its own now: hand the
	 * controllers down.  A base scope keeps them while the delegated
	 * cgroup below uses them: v2 refuses to take a controller from a
	 * cgroup whose child has it in its subtree_control (EBUSY), which
	 * is also what holds when systemd re-applies the scope's own
	 * (empty) controller set on a reload.
	 */
	if (*base)
		enable_controllers(bfd);
	enable_controllers(top);
	enable_controllers(dfd);
	return 0;
fail:
	if (dfd >= 0)
		(void)unlinkat(dfd, CGROUP_LEAF, AT_REMOVEDIR);
	(void)unlinkat(top, name, AT_REMOVEDIR);
	if (*base && created)
		(void)unlinkat(bfd, CGROUP_TOP, AT_REMOVEDIR);
	return r;
}

/* The distinct v1 hierarchies among our controllers (cpu and cpuacct
 * are often one mount).  Returns how many, their roots in roots[]. */
static int
v1_roots(const struct cgroup_host *h, const char *roots[CGROUP_NCTL],
    enum cgroup_ctl ctl[CGROUP_NCTL])
{
	int c, i, n = 0;

	for (c = 0; c < CGROUP_NCTL; c++) {
		if (!h->v1root[c])
			continue;
		for (i = 0; i < n; i++)
			if (strcmp(roots[i], h->v1root[c]) == 0)
				break;
		if (i < n)
			continue;
		roots[n] = h->v1root[c];
		ctl[n++] = (enum cgroup_ctl)c;
	}
	return n;
}

static int
delegate_v1(const struct cgroup_host *h, const char *name, uid_t uid, gid_t gid,
    pid_t pid)
{
	static const char *const files[] = {"tasks", "cgroup.procs", NULL};
	const char *roots[CGROUP_NCTL];
	enum cgroup_ctl ctl[CGROUP_NCTL];
	int top[CGROUP_NCTL], dfd[CGROUP_NCTL];
	char *orig[CGROUP_NCTL] = {NULL};
	char pidstr[16];
	int n, i, moved = 0, r = 0;

	n = v1_roots(h, roots, ctl);
	if (n == 0)
		return -EOPNOTSUPP;
	for (i = 0; i < n; i++)
		top[i] = dfd[i] = -1;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);

	/* Build every directory first: a failure then moves nothing. */
	for (i = 0; i < n; i++) {
		_cleanup_close_ int rootfd = -1;
		bool created;

		rootfd = open(roots[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rootfd < 0) {
			r = -errno;
			goto fail;
		}
		top[i] = open_top(rootfd, &created);
		if (top[i] < 0) {
			r = top[i];
			goto fail;
		}
		/* Old kernels: limits count for descendants only with
		 * use_hierarchy, which is settable before children exist. */
		if (created && ctl[i] == CGROUP_MEMORY)
			(void)cgroup_write(top[i], "memory.use_hierarchy", "1");
		if (mkdirat(top[i], name, 0755) < 0) {
			r = -errno;
			goto fail;
		}
		dfd[i] = openat(top[i], name,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (dfd[i] < 0) {
			r = -errno;
			goto fail;
		}
		if ((r = chown_set(dfd[i], files, uid, gid)) < 0)
			goto fail;
		r = cgroup_path_of(h, ctl[i], pid, &orig[i]);
		if (r < 0)
			goto fail;
	}
	for (moved = 0; moved < n; moved++)
		if ((r = cgroup_write(dfd[moved], "cgroup.procs", pidstr)) < 0)
			goto fail;
	r = 0;
	goto out;
fail:
	/* Put pid back where it was, then remove what we made. */
	for (i = 0; i < moved; i++) {
		_cleanup_close_ int back = -1;
		_cleanup_free_ char *p = NULL;

		if (asprintf(&p, "%s/%s", roots[i], orig[i]) < 0)
			continue;
		back = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (back >= 0)
			(void)cgroup_write(back, "cgroup.procs", pidstr);
	}
	for (i = 0; i < n; i++)
		if (top[i] >= 0)
			(void)unlinkat(top[i], name, AT_REMOVEDIR);
out:
	for (i = 0; i < n; i++) {
		if (dfd[i] >= 0)
			close(dfd[i]);
		if (top[i] >= 0)
			close(top[i]);
		free(orig[i]);
	}
	return r;
}

int
cgroup_delegate_host(const struct cgroup_host *h, const char *user, uid_t uid,
    gid_t gid, pid_t pid, char *key, size_t keylen)
{
	_cleanup_free_ char *base = NULL;
	char name[128];
	int n, r;

	if (pid <= 0 || keylen < CGROUP_KEYLEN)
		return -EINVAL;
	if (h->mode == CGROUP_NONE)
		return -EOPNOTSUPP;
	r = make_name(user, uid, pid, name, sizeof(name));
	if (r < 0)
		return r;
	if (h->mode == CGROUP_V1) {
		r = delegate_v1(h, name, uid, gid, pid);
		if (r < 0)
			return r;
		snprintf(key, keylen, "v1:%s/%s", CGROUP_TOP, name);
		return 0;
	}
	r = pick_base(h, pid, &base);
	if (r < 0)
		return r;
	n = snprintf(key, keylen, "v2:%s%s%s/%s", base, *base ? "/" : "",
	    CGROUP_TOP, name);
	if (n < 0 || (size_t)n >= keylen)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -ENAMETOOLONG;
	return delegate_v2(h, base, name, uid, gid, pid);
}

int
cgroup_delegate(
    const char *user, uid_t uid, gid_t gid, pid_t pid, char *key, size_t keylen)
{
	struct cgroup_host h;
	int r;

	r = cgroup_host_probe(&h);
	if (r < 0)
		return r;
	r = cgroup_delegate_host(&h, user, uid, gid, pid, key, keylen);
	cgroup_host_free(&h);
	return r;
}

/*
 * "v1:aisb/NAME" or "v2:[BASE/]aisb/NAME": *ret_base (BASE or "",
 * caller frees) and *ret_name (points into key), every component a safe
 * name.  0, or -EINVAL for a malformed key: it must never name any other
 * cgroup than one we made.
 */
static int
key_parse(const struct cgroup_host *h, const char *key, char **ret_base,
    const char **ret_name)
{
	const char *want = h->mode == CGROUP_V2 ? "v2:" : "v1:";
	size_t tl = strlen(CGROUP_TOP);
	const char *name, *top;
	char *base, *comp, *save = NULL, *walk;
	int depth = 0;

	if (!key || h->mode == CGROUP_NONE || strncmp(key, want, 3) != 0)
		return -EINVAL;
	key += 3;
	name = strrchr(key, '/');
	if (!name || !cgroup_name_ok(name + 1) || name - key < (long)tl)
		return -EINVAL;
	top = name - tl;
	if (strncmp(top, CGROUP_TOP, tl) != 0 || (top != key && top[-1] != '/'))
		return -EINVAL;
	if (top != key && h->mode != CGROUP_V2)
		return -EINVAL;
	base = strndup(key, top == key ? 0 : (size_t)(top - key - 1));
	if (!base)
		return -ENOMEM;
	if (top != key && !*base) {
		free(base);
		return -EINVAL;
	}
	walk = strdupa(base);
	for (comp = strtok_r(walk, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save))
		if (!cgroup_name_ok(comp) || ++depth > CGROUP_MAX_DEPTH) {
			free(base);
			return -EINVAL;
		}
	/* No empty component ("a//b", "/a", "a/"): the walk skips them. */
	if (*base &&
	    (base[0] == '/' || base[strlen(base) - 1] == '/' ||
	        strstr(base, "//"))) {
		free(base);
		return -EINVAL;
	}
	*ret_base = base;
	*ret_name = name + 1;
	return 0;
}

/* Is the calling process inside BASE/CGROUP_TOP/name of this hierarchy? */
static bool
self_inside(const struct cgroup_host *h, enum cgroup_ctl c, const char *base,
    const char *name)
{
	_cleanup_free_ char *p = NULL, *want = NULL;
	size_t wl;

	if (cgroup_path_of(h, c, 0, &p) < 0 || p == NULL ||
	    asprintf(&want, "%s%s%s/%s", base, *base ? "/" : "", CGROUP_TOP,
	        name) < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return false;
	wl = strlen(want);
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
	return strncmp(p, want, wl) == 0 && (p[wl] == '\0' || p[wl] == '/');
}

static int
reap_one(const struct cgroup_host *h, const char *root, enum cgroup_ctl c,
    const char *base, const char *name)
{
	_cleanup_close_ int rootfd = -1, bfd = -1, top = -1;
	char pidstr[16], leaf[32];

	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	bfd = open_rel(rootfd, base);
	if (bfd < 0)
		return bfd == -ENOENT ? 0 : bfd;
	top = openat(
	    bfd, CGROUP_TOP, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (top < 0)
		return errno == ENOENT ? 0 : -errno;
	if (self_inside(h, c, base, name)) {
		snprintf(pidstr, sizeof(pidstr), "%d", (int)getpid());
		if (!*base)
			(void)cgroup_write(rootfd, "cgroup.procs", pidstr);
		else {
			/* The scope has controllers on for its children, so
			 * v2 takes no process into it again: a leaf of ours,
			 * gone with the scope once we exit. */
			_cleanup_close_ int lfd = -1;

			snprintf(leaf, sizeof(leaf), "reap-%d", (int)getpid());
			if (mkdirat(top, leaf, 0755) < 0 && errno != EEXIST)
				return -errno;
			lfd = openat(top, leaf,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (lfd < 0)
				return -errno;
			(void)cgroup_write(lfd, "cgroup.procs", pidstr);
		}
	}
	return cgroup_kill_remove(top, name, h->mode);
}

int
cgroup_reap_host(const struct cgroup_host *h, const char *key)
{
	const char *roots[CGROUP_NCTL];
	enum cgroup_ctl ctl[CGROUP_NCTL];
	_cleanup_free_ char *base = NULL;
	const char *name;
	int i, n, r, q;

	r = key_parse(h, key, &base, &name);
	if (r < 0)
		return r;
	if (h->mode == CGROUP_V2)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return reap_one(h, h->root, CGROUP_MEMORY, base, name);
	n = v1_roots(h, roots, ctl);
	for (i = 0; i < n; i++) {
		q = reap_one(h, roots[i], ctl[i], base, name);
		if (q < 0 && r == 0)
			r = q;
	}
	return r;
}

int
cgroup_reap(const char *key)
{
	struct cgroup_host h;
	int r;

	r = cgroup_host_probe(&h);
	if (r < 0)
		return r;
	r = cgroup_reap_host(&h, key);
	cgroup_host_free(&h);
	return r;
}
