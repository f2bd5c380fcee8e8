/*
 * test_cgroup.c: cgroup delegation (lib/cgroup.c) on this host's real
 * cgroups, as root.  A victim process is delegated to an unprivileged
 * uid, creates its own child cgroup as that uid (what aisb-shell does),
 * starts a setsid+nohup grandchild there, and cgroup_reap must kill both
 * and remove every directory.
 *
 * The host decides which half runs: v2 where /sys/fs/cgroup is cgroup2,
 * else v1.  On a v1 (hybrid) host the v2 code is still exercised for
 * what needs no controller (mkdir, delegation ownership, moving, kill,
 * rmdir) on the controller-less cgroup2 mount at /sys/fs/cgroup/unified;
 * enabling controllers and their limits are tested only on a v2 host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <linux/magic.h>

#include "tap.h"
#include "cgroup.h"
#include "util.h"

#define TUID 26901
#define TGID 26901
#define TUSER "tlimunit"

static char *
path_join(const char *a, const char *b, const char *c)
{
	char *p;

	if (asprintf(&p, "%s/%s%s%s", a, b, c ? "/" : "", c ? c : "") < 0)
		abort();
	return p;
}

static int
owner_is(const char *path, uid_t uid)
{
	struct stat st;

	return lstat(path, &st) == 0 && st.st_uid == uid;
}

static int
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Is pid's cgroup (hierarchy of c) exactly rel? */
static int
pid_in(
    const struct cgroup_host *h, enum cgroup_ctl c, pid_t pid, const char *rel)
{
	char *p = NULL;
	int r;

	if (cgroup_path_of(h, c, pid, &p) < 0)
		return 0;
	r = strcmp(p, rel) == 0;
	if (!r)
		printf("#   pid %d in '%s', want '%s'\n", (int)pid, p, rel);
	free(p);
	return r;
}

struct victim {
	pid_t pid, gc;
	int go, report;
};

/*
 * The victim waits for the key, then as the test uid makes "sess" in its
 * delegated cgroup (each v1 hierarchy, or the v2 delegated dir), moves
 * itself there, forks a setsid+nohup grandchild and reports its pid.
 */
static void
victim_main(const struct cgroup_host *h, int go, int report)
{
	char key[CGROUP_KEYLEN + 1] = "", pid[16];
	const char *name;
	pid_t gc;
	int c;

	if (read(go, key, CGROUP_KEYLEN) <= 0)
		_exit(2);
	name = key + 3; /* "aisb/NAME" */
	if (setresgid(TGID, TGID, TGID) < 0 || setresuid(TUID, TUID, TUID) < 0)
		_exit(3);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (c = 0; c < CGROUP_NCTL; c++) {
		const char *root =
		    h->mode == CGROUP_V2 ? h->root : h->v1root[c];
		char *d;
		int fd;

		if (!root || (h->mode == CGROUP_V2 && c > 0))
			continue;
		d = path_join(root, name, "sess");
		if (mkdir(d, 0755) < 0 && errno != EEXIST)
			_exit(4);
		fd = open(d, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || cgroup_write(fd, "cgroup.procs", pid) < 0)
			_exit(5);
		close(fd);
		free(d);
	}
	gc = fork();
	if (gc == 0) {
		setsid();
		signal(SIGHUP, SIG_IGN);
		for (;;)
			pause();
	}
	if (write(report, &gc, sizeof(gc)) != sizeof(gc))
		_exit(6);
	for (;;)
		pause();
}

static void
victim_start(const struct cgroup_host *h, struct victim *v)
{
	int go[2], rep[2];

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0)
		abort();
	v->pid = fork();
	if (v->pid == 0) {
		close(go[1]);
		close(rep[0]);
		victim_main(h, go[0], rep[1]);
	}
	close(go[0]);
	close(rep[1]);
	v->go = go[1];
	v->report = rep[0];
	v->gc = -1;
}

/* Send the key; 0 when the victim made its child cgroup and grandchild. */
static int
victim_go(struct victim *v, const char *key)
{
	if (write(v->go, key, strlen(key)) < 0)
		return -1;
	if (read(v->report, &v->gc, sizeof(v->gc)) != sizeof(v->gc))
		return -1;
	return 0;
}

static int
killed_by_sigkill(pid_t pid)
{
	int st = 0;

	if (pid <= 0 || waitpid(pid, &st, 0) != pid)
		return 0;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

static void
run_host(const struct cgroup_host *h, const char *what)
{
	char key[CGROUP_KEYLEN];
	struct victim v;
	const char *name;
	int c, r;

	victim_start(h, &v);
	r = cgroup_delegate_host(h, TUSER, TUID, TGID, v.pid, key, sizeof(key));
	is_int(r, 0, "%s: cgroup_delegate", what);
	if (r < 0) {
		kill(v.pid, SIGKILL);
		waitpid(v.pid, NULL, 0);
		return;
	}
	ok(strncmp(key,
	       h->mode == CGROUP_V2 ? "v2:aisb/tlimunit-" : "v1:aisb/tlimunit-",
	       17) == 0,
	    "%s: key '%s' names the user", what, key);
	name = key + 3;
	for (c = 0; c < CGROUP_NCTL; c++) {
		const char *root =
		    h->mode == CGROUP_V2 ? h->root : h->v1root[c];
		char *d, *f1, *f2, *top;
		char rel[CGROUP_KEYLEN + 16];

		if (!root || (h->mode == CGROUP_V2 && c > 0))
			continue;
		d = path_join(root, name, NULL);
		top = path_join(root, CGROUP_TOP, NULL);
		f1 = path_join(root, name, "cgroup.procs");
		f2 = path_join(root, name,
		    h->mode == CGROUP_V2 ? "cgroup.subtree_control" : "tasks");
		ok(owner_is(top, 0), "%s: %s stays root's", what, top);
		ok(owner_is(d, TUID) && owner_is(f1, TUID) &&
		        owner_is(f2, TUID),
		    "%s: %s and its delegation files belong to the user", what,
		    d);
		if (h->mode == CGROUP_V2) {
			char *l = path_join(root, name, CGROUP_LEAF);

			ok(owner_is(l, TUID), "%s: leaf %s belongs to the user",
			    what, l);
			free(l);
			snprintf(rel, sizeof(rel), "%s/%s", name, CGROUP_LEAF);
		} else {
			char *lim = path_join(root, name,
			    c == CGROUP_MEMORY ? "memory.limit_in_bytes"
			                       : "notify_on_release");

			ok(owner_is(lim, 0),
			    "%s %s: its limit files stay root's", what,
			    cgroup_ctl_name(c));
			free(lim);
			snprintf(rel, sizeof(rel), "%s", name);
		}
		ok(pid_in(h, c, v.pid, rel), "%s: pid moved into %s of %s",
		    what, rel, root);
		free(d);
		free(f1);
		free(f2);
		free(top);
	}

	r = victim_go(&v, key);
	ok(r == 0,
	    "%s: the user made and entered a child cgroup, forked a "
	    "setsid+nohup grandchild",
	    what);

	is_int(cgroup_reap_host(h, key), 0, "%s: cgroup_reap", what);
	ok(killed_by_sigkill(v.pid), "%s: the delegated process was killed",
	    what);
	close(v.go);
	close(v.report);
	/* The grandchild was orphaned to us (subreaper). */
	ok(killed_by_sigkill(v.gc),
	    "%s: the setsid+nohup grandchild was "
	    "killed",
	    what);
	for (c = 0; c < CGROUP_NCTL; c++) {
		const char *root =
		    h->mode == CGROUP_V2 ? h->root : h->v1root[c];
		char *d;

		if (!root || (h->mode == CGROUP_V2 && c > 0))
			continue;
		d = path_join(root, name, NULL);
		ok(!exists(d), "%s: %s removed", what, d);
		free(d);
	}
	is_int(
	    cgroup_reap_host(h, key), 0, "%s: reaping again is a no-op", what);
}

/* The PAM case: the caller itself sits in the cgroup it reaps. */
static void
run_self(const struct cgroup_host *h, const char *what)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		char key[CGROUP_KEYLEN];

		if (cgroup_delegate_host(
		        h, TUSER, TUID, TGID, getpid(), key, sizeof(key)) < 0)
			_exit(10);
		if (cgroup_reap_host(h, key) < 0)
			_exit(11);
		_exit(0);
	}
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "%s: a caller inside its own delegated "
	    "cgroup survives cgroup_reap (status %d)",
	    what, st);
}

/*
 * A systemd host (h->nest): a login alone in its cgroup (the logind
 * session scope) keeps it, and the delegation goes below it; with
 * company there it goes to the root as usual.  Here "tnest-PID" under
 * the v2 mount stands in for the scope.
 */
static char *
mkbase(const struct cgroup_host *h, const char *tag)
{
	char *b;

	if (asprintf(&b, "%s/tnest-%s-%d", h->root, tag, (int)getpid()) < 0)
		abort();
	if (mkdir(b, 0755) < 0 && errno != EEXIST)
		abort();
	return b;
}

static int
move_to(const char *dir, pid_t pid)
{
	char p[16];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	snprintf(p, sizeof(p), "%d", (int)pid);
	r = fd >= 0 ? cgroup_write(fd, "cgroup.procs", p) : -errno;
	if (fd >= 0)
		close(fd);
	return r;
}

/* A child that only waits to be killed. */
static pid_t
sleeper(void)
{
	pid_t p = fork();

	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

/* rmdir base and whatever the test left below it (no processes). */
static void
rm_base(const char *base)
{
	char *cmd;

	if (asprintf(&cmd,
	        "find '%s' -depth -type d -exec rmdir {} + 2>/dev/null",
	        base) < 0)
		abort();
	if (system(cmd) < 0)
		printf("#   cleanup of %s failed\n", base);
	free(cmd);
}

static void
run_nested(const struct cgroup_host *h0, const char *what)
{
	struct cgroup_host h = *h0;
	char key[CGROUP_KEYLEN], want[CGROUP_KEYLEN], rel[CGROUP_KEYLEN + 16];
	char *base, *top, *d, *l;
	const char *bname, *name;
	pid_t a, b;
	int st = 0;

	h.nest = true;
	/* Alone in its cgroup: the delegation goes below it. */
	base = mkbase(&h, "alone");
	bname = strrchr(base, '/') + 1;
	a = sleeper();
	ok(move_to(base, a) == 0, "%s: the login alone in %s", what, bname);
	is_int(cgroup_delegate_host(&h, TUSER, TUID, TGID, a, key, sizeof(key)),
	    0, "%s: cgroup_delegate below it", what);
	snprintf(want, sizeof(want), "v2:%s/%s/%s-", bname, CGROUP_TOP, TUSER);
	ok(strncmp(key, want, strlen(want)) == 0, "%s: key '%s' names it", what,
	    key);
	name = strrchr(key, '/') + 1;
	top = path_join(base, CGROUP_TOP, NULL);
	d = path_join(base, CGROUP_TOP, name);
	l = path_join(d, CGROUP_LEAF, NULL);
	ok(owner_is(top, 0) && owner_is(d, TUID) && owner_is(l, TUID),
	    "%s: %s/aisb root's, the delegated cgroup and its leaf the user's",
	    what, bname);
	snprintf(rel, sizeof(rel), "%s/%s/%s/%s", bname, CGROUP_TOP, name,
	    CGROUP_LEAF);
	ok(pid_in(&h, CGROUP_MEMORY, a, rel), "%s: the login moved into %s",
	    what, rel);
	is_int(cgroup_reap_host(&h, key), 0, "%s: cgroup_reap (nested)", what);
	ok(killed_by_sigkill(a), "%s: the delegated process was killed", what);
	ok(!exists(d) && exists(base), "%s: %s removed, %s kept", what, name,
	    bname);
	free(l);
	free(d);
	free(top);
	rm_base(base);
	free(base);

	/* With company: the root, as without systemd. */
	base = mkbase(&h, "shared");
	a = sleeper();
	b = sleeper();
	ok(move_to(base, a) == 0 && move_to(base, b) == 0,
	    "%s: two processes in one cgroup", what);
	is_int(cgroup_delegate_host(&h, TUSER, TUID, TGID, a, key, sizeof(key)),
	    0, "%s: cgroup_delegate with company", what);
	snprintf(want, sizeof(want), "v2:%s/%s-", CGROUP_TOP, TUSER);
	ok(strncmp(key, want, strlen(want)) == 0,
	    "%s: then the delegation is at the root (%s)", what, key);
	is_int(cgroup_reap_host(&h, key), 0, "%s: reaped", what);
	ok(killed_by_sigkill(a), "%s: the login was killed", what);
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	rm_base(base);
	free(base);

	/* The PAM case below a scope: the caller reaps its own cgroup. */
	base = mkbase(&h, "self");
	a = fork();
	if (a == 0) {
		char *p = NULL;
		int r;

		if (move_to(base, getpid()) < 0 ||
		    cgroup_delegate_host(
		        &h, TUSER, TUID, TGID, getpid(), key, sizeof(key)) < 0)
			_exit(10);
		if (cgroup_reap_host(&h, key) < 0)
			_exit(11);
		if (cgroup_path_of(&h, CGROUP_MEMORY, 0, &p) < 0)
			_exit(12);
		snprintf(rel, sizeof(rel), "%s/%s/reap-%d",
		    strrchr(base, '/') + 1, CGROUP_TOP, (int)getpid());
		r = strcmp(p, rel) == 0 ? 0 : 13;
		d = path_join(base, CGROUP_TOP, strrchr(key, '/') + 1);
		_exit(r ? r : exists(d) ? 14 : 0);
	}
	ok(waitpid(a, &st, 0) == a && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "%s: a caller inside its delegation below a scope survives the "
	    "reap in a leaf of its own, the delegation gone (status %d)",
	    what, st);
	rm_base(base);
	free(base);
}

static void
run_keys(const struct cgroup_host *h)
{
	static const char *const bad[] = {"", "v1", "v1:", "v2:", "v1:aisb",
	    "v1:aisb/", "v1:aisb/..", "v1:aisb/../x", "v1:aisb/a/b", "v1:/etc",
	    "v1:other/x", "v1:aisb/.x", "v2:aisb/x\n", "v1:aisb/x y",
	    "v9:aisb/x"};
	size_t i;
	int bad_ok = 1;

	for (i = 0; i < ELEMENTSOF(bad); i++) {
		char k[64];

		snprintf(k, sizeof(k), "%s", bad[i]);
		if (k[0] == 'v' && k[1] == '1' && h->mode == CGROUP_V2)
			k[1] = '2';
		if (cgroup_reap_host(h, k) != -EINVAL) {
			printf("#   key '%s' accepted\n", k);
			bad_ok = 0;
		}
	}
	ok(bad_ok, "malformed keys are refused with -EINVAL");
	if (h->mode == CGROUP_V2) {
		static const char *const nbad[] = {"v2:/aisb/x", "v2:a//aisb/x",
		    "v2:a/../aisb/x", "v2:a/aisb", "v2:a/xaisb/x",
		    "v2:a/aisb/x/y", "v2:a b/aisb/x", "v2:.a/aisb/x"};

		bad_ok = 1;
		for (i = 0; i < ELEMENTSOF(nbad); i++)
			if (cgroup_reap_host(h, nbad[i]) != -EINVAL) {
				printf("#   key '%s' accepted\n", nbad[i]);
				bad_ok = 0;
			}
		ok(bad_ok, "malformed nested keys are refused with -EINVAL");
		is_int(cgroup_reap_host(h, "v2:tnest-none/aisb/x"), 0,
		    "a well-formed nested key of nothing is a no-op");
	} else
		is_int(cgroup_reap_host(h, "v1:a/aisb/x"), -EINVAL,
		    "v1 keys have no base");
	is_int(cgroup_reap_host(h, NULL), -EINVAL, "NULL key refused");
	is_int(cgroup_reap_host(
	           h, h->mode == CGROUP_V2 ? "v1:aisb/x" : "v2:aisb/x"),
	    -EINVAL, "a key of the other cgroup version is refused");
	ok(cgroup_name_ok("tlim1-12-abc") && !cgroup_name_ok("..") &&
	        !cgroup_name_ok("a/b") && !cgroup_name_ok(""),
	    "cgroup_name_ok accepts one safe component only");
}

int
main(void)
{
	struct cgroup_host h;
	struct statfs sf;
	int r;

	r = cgroup_host_probe(&h);
	is_int(r, 0, "cgroup_host_probe");
	printf("# host cgroup mode: %s\n",
	    h.mode == CGROUP_V2       ? "v2"
	        : h.mode == CGROUP_V1 ? "v1"
	                              : "none");
	if (geteuid() != 0) {
		tap_skip("needs root", "delegation tests");
		return tap_done();
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		abort();
	if (h.mode == CGROUP_NONE) {
		tap_skip("this kernel has no cgroup hierarchy", "delegation");
	} else {
		if (h.mode == CGROUP_V1)
			ok(h.v1root[CGROUP_MEMORY] && h.v1root[CGROUP_PIDS] &&
			        h.v1root[CGROUP_CPU],
			    "v1: memory, pids and cpu "
			    "hierarchies found");
		run_keys(&h);
		run_host(&h, h.mode == CGROUP_V2 ? "v2" : "v1");
		run_self(&h, h.mode == CGROUP_V2 ? "v2" : "v1");
		if (h.mode == CGROUP_V2)
			run_nested(&h, "v2 (below a scope)");
	}
	if (h.mode != CGROUP_V2 && statfs("/sys/fs/cgroup/unified", &sf) == 0 &&
	    sf.f_type == CGROUP2_SUPER_MAGIC) {
		struct cgroup_host u = {
		    .mode = CGROUP_V2, .root = "/sys/fs/cgroup/unified"};

		run_host(&u, "v2 (hybrid mount, no controllers)");
		run_self(&u, "v2 (hybrid mount, no controllers)");
		run_keys(&u);
		run_nested(&u, "v2 (hybrid mount, below a scope)");
	} else if (h.mode != CGROUP_V2)
		tap_skip("no cgroup2 mount on this v1 host",
		    "v2 delegation structure");
	else
		tap_skip("v1 code paths need a v1 host; this one runs v2",
		    "v1 delegation");
	cgroup_host_free(&h);
	return tap_done();
}
