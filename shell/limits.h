/*
 * limits.h: resource limits of a session (cgroup + rlimits).
 */
#ifndef AISB_LIMITS_H
#define AISB_LIMITS_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy.h"

struct limits_state;

/*
 * Outer, before clone: create the per-session cgroup(s) under the
 * delegated one.  In strict mode a limit that cannot be enforced is an
 * error: returns -EOPNOTSUPP after logging one line naming the limit and
 * the fix (the session exits 77).  Best-effort: logs and returns 0.
 */
int	limits_setup(const struct aisb_policy *p, const char *session_id,
	    struct limits_state **ret);

/* Outer, after clone and before "go": move pid into the session cgroup. */
int	limits_attach(struct limits_state *st, pid_t pid);

/* Inner, before exec: RLIMIT_NOFILE, RLIMIT_FSIZE, RLIMIT_CORE=0. */
int	limits_rlimits(const struct aisb_policy *p);

/* Outer, after the session: did the memory limit kill something? */
bool	limits_oom_happened(struct limits_state *st);

/* Outer, at the end: kill what is left, remove the cgroup(s), free. */
void	limits_teardown(struct limits_state *st);

#endif
