/*
 * cgroup.h: cgroup delegation (root, from pam_aisb) and the helpers the
 * per-session cgroup (agent, from aisb-shell) is built with.  cgroup v2
 * where the host runs it (/sys/fs/cgroup is cgroup2fs), else the v1
 * memory, pids, cpu and cpuacct hierarchies.  Library code: no exit, no
 * printing, no signal dispositions.  docs/limits.md has the layout.
 *
 * Layout of a delegated cgroup (USER-ID: user name, login pid, random):
 *   v2: <base>/aisb/                 root, subtree_control +memory +pids +cpu
 *       <root>/aisb/USER-ID/          owned by the user (dir, cgroup.procs,
 *                                     cgroup.subtree_control, cgroup.threads);
 *                                     controllers enabled for its children
 *       <base>/aisb/USER-ID/login/    owned by the user; the pid lands here
 *                                     (v2 forbids processes in a cgroup
 *                                     whose children get controllers)
 *       <base> is the hierarchy root, or on a systemd host the caller's
 *       own cgroup when the caller is alone in it (the logind session
 *       scope pam_systemd just made for this login): then the session's
 *       processes stay in that scope, so logind still sees them and
 *       `loginctl terminate-session` or the scope's stop kills them all.
 *   v1: <ctl-root>/aisb/USER-ID/      for each mounted memory, pids, cpu,
 *                                     cpuacct hierarchy; owned by the user
 *                                     (dir, tasks, cgroup.procs); the pid
 *                                     lands here
 * The delegated cgroup's own limit files stay root's: an administrator may
 * cap the whole login there and the agent cannot raise it.
 */
#ifndef AISB_CGROUP_H
#define AISB_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CGROUP_TOP "aisb" /* our directory under each root */
#define CGROUP_LEAF "login" /* v2: where the login's pid sits */
#define CGROUP_KEYLEN 256
#define CGROUP_MAX_DEPTH 32 /* nesting we follow below a session */

enum cgroup_mode { CGROUP_NONE = 0, CGROUP_V1 = 1, CGROUP_V2 = 2 };

enum cgroup_ctl {
	CGROUP_MEMORY = 0,
	CGROUP_PIDS,
	CGROUP_CPU,
	CGROUP_CPUACCT, /* v1 only: the usage counter */
	CGROUP_NCTL
};

/*
 * What the host offers.  v2: root is the unified mount.  v1: v1root[c]
 * is the mount point of the hierarchy that carries controller c, NULL
 * when it is not mounted (cpu and cpuacct may share one mount).
 */
struct cgroup_host {
	enum cgroup_mode mode;
	char *root;
	char *v1root[CGROUP_NCTL];
	bool nest; /* v2: delegate below a lone caller's cgroup (systemd) */
};

/* Fill h from statfs(/sys/fs/cgroup) and /proc/self/mountinfo; nest is
 * set on a v2 host run by systemd (/run/systemd/system).  0 or -errno. */
int cgroup_host_probe(struct cgroup_host *h);
void cgroup_host_free(struct cgroup_host *h);

/* "memory", "pids", "cpu", "cpuacct". */
const char *cgroup_ctl_name(enum cgroup_ctl c);

/*
 * The cgroup of pid (0: self) in the hierarchy of controller c (v2: c is
 * ignored), as the path below the mount point without the leading '/'
 * ("" for the root).  Caller frees *ret.  0, -ENOENT when the process is
 * in no such hierarchy, or -errno.
 */
int cgroup_path_of(
    const struct cgroup_host *h, enum cgroup_ctl c, pid_t pid, char **ret);

/* Is name one safe path component ([A-Za-z0-9_.-], no leading '.')? */
bool cgroup_name_ok(const char *name);

/*
 * Write val (no newline needed) to file in the cgroup directory dfd, one
 * write(2): the kernel answers each write as a whole (kfile.h).  0 or
 * -errno (-EIO for a short write).
 */
int cgroup_write(int dfd, const char *file, const char *val);

/* Read file of dfd into buf (NUL-terminated, truncated).  Bytes or -errno. */
ssize_t cgroup_read(int dfd, const char *file, char *buf, size_t len);

/*
 * Read "KEY N" from a flat-keyed file (memory.events, memory.oom_control,
 * cpu.stat, cgroup.events).  0 and *ret, -ENOENT, or -errno.
 */
int cgroup_read_key(
    int dfd, const char *file, const char *key, unsigned long long *ret);

/*
 * The pids listed in cgroup.procs of the cgroup directory dfd, in the
 * file's order, at most 65536.  Caller frees *ret.  Count or -errno.
 */
int cgroup_read_procs(int dfd, pid_t **ret);

/*
 * cgroup_kill.c: kill every process in the cgroup named name below the
 * directory pfd and in its descendants (v2 with cgroup.kill: one write;
 * else SIGKILL through pidfds, round after round, until the tree is
 * empty), then remove the tree bottom-up.  Bounded: gives up with
 * -EBUSY after about five seconds.  The calling process must not be
 * inside.  0 or -errno.
 */
int cgroup_kill_remove(int pfd, const char *name, enum cgroup_mode mode);

/*
 * Root (pam_aisb session open): create the delegated cgroup of one login
 * session for user (uid, gid), owned by the user, with memory, pids and
 * cpu available where the host has them, and move pid into it.  Writes
 * an opaque key for cgroup_reap into key (keylen >= CGROUP_KEYLEN).
 * -EOPNOTSUPP when the host has no usable cgroup hierarchy.  On error
 * nothing is left behind and pid stays where it was.  0 or -errno.
 */
int cgroup_delegate(const char *user, uid_t uid, gid_t gid, pid_t pid,
    char *key, size_t keylen);

/*
 * Root (pam_aisb session close): kill every process in the delegated
 * cgroup named by key and its descendants, then remove them.  When the
 * calling process itself sits inside (the sshd session process that
 * opened the session), it first moves itself out so that it survives:
 * to the root cgroup of that hierarchy, or, when the delegation is below
 * a systemd scope, to a leaf <base>/aisb/reap-PID of its own, which
 * systemd removes with the scope once the caller exits.  The key is
 * validated: it comes from pam_get_data, but a malformed one must never
 * name another cgroup.
 * 0 or -errno (-EINVAL: bad key).
 */
int cgroup_reap(const char *key);

/* The same with an explicit host (tests use the hybrid cgroup2 mount). */
int cgroup_delegate_host(const struct cgroup_host *h, const char *user,
    uid_t uid, gid_t gid, pid_t pid, char *key, size_t keylen);
int cgroup_reap_host(const struct cgroup_host *h, const char *key);

#endif
