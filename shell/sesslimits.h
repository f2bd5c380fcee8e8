/*
 * sesslimits.h: resource limits of a session (cgroup + rlimits + timeout).
 * docs/limits.md: mechanism of each limit, v1/v2, strict/best-effort.
 */
#ifndef AISB_SESSLIMITS_H
#define AISB_SESSLIMITS_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy.h"

/* Exit status of a session killed by limits.timeout (as timeout(1)). */
#define SESSLIMITS_EX_TIMEOUT 124

struct sesslimits_state;

/*
 * Outer, before clone: find the delegated cgroup the outer sits in
 * (owned by our uid; pam_aisb or systemd Delegate= made it), create the
 * per-session child "session-<session_id>" in it (each v1 hierarchy) and
 * write limits.memory, pids and cpu there.  In strict mode a limit that
 * cannot be enforced is an error: returns -EOPNOTSUPP after logging one
 * line naming the limit and the fix (the session exits 77).
 * Best-effort: logs each limit not enforced and returns 0.  Without any
 * cgroup limit configured the session cgroup is still made when a
 * delegated one exists (it is how teardown finds every process).
 */
int sesslimits_setup(const struct aisb_policy *p, const char *session_id,
    struct sesslimits_state **ret);

/*
 * Outer, after clone and before "go": move pid (init) into the session
 * cgroup(s); its descendants inherit them.  0 or -errno (logged).
 */
int sesslimits_attach(struct sesslimits_state *st, pid_t pid);

/*
 * Inner, before exec: RLIMIT_CORE = 0 always, RLIMIT_NOFILE and
 * RLIMIT_FSIZE when set.  su and login reset rlimits, so PAM's are never
 * assumed.  0 or -errno (logged; strict: the session must not start).
 */
int sesslimits_rlimits(const struct aisb_policy *p);

/* Outer, after the session: did the memory limit kill something? */
bool sesslimits_oom_happened(struct sesslimits_state *st);

/*
 * Outer, after init was reaped: when the memory limit killed something,
 * log (syslog and stderr) one line "memory limit reached ...".  Returns
 * whether it did.
 */
bool sesslimits_oom_report(
    struct sesslimits_state *st, const struct aisb_policy *p);

/*
 * Outer, when pty_outer_wait reports timed_out: log the one line the
 * caller sees and return the exit status (SESSLIMITS_EX_TIMEOUT).
 */
int sesslimits_timeout_status(const struct aisb_policy *p);

/* Outer, at the end: kill what is left, remove the cgroup(s), free.
 * NULL is fine. */
void sesslimits_teardown(struct sesslimits_state *st);

#endif
