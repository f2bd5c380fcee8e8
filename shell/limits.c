/*
 * limits.c: resource limits.  (Stub until the limits issue lands: only
 * rlimits; cgroup limits are refused in strict mode.)
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "limits.h"
#include "log.h"

struct limits_state {
	int unused;
};

int
limits_setup(const struct aisb_policy *p, const char *session_id,
    struct limits_state **ret)
{
	(void)session_id;
	if ((p->limits.memory || p->limits.pids || p->limits.cpu) &&
	    p->limits.enforce == AISB_ENFORCE_STRICT) {
		log_err("limits.memory/pids/cpu cannot be enforced by this "
		    "build; set them to 0 or limits.enforce = \"best-effort\"");
		return -EOPNOTSUPP;
	}
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

int
limits_attach(struct limits_state *st, pid_t pid)
{
	(void)st, (void)pid;
	return 0;
}

int
limits_rlimits(const struct aisb_policy *p)
{
	struct rlimit core = { 0, 0 };

	if (setrlimit(RLIMIT_CORE, &core) < 0)
		return -errno;
	if (p->limits.nofile) {
		struct rlimit r = { p->limits.nofile, p->limits.nofile };
		if (setrlimit(RLIMIT_NOFILE, &r) < 0)
			return -errno;
	}
	if (p->limits.fsize) {
		struct rlimit r = { p->limits.fsize, p->limits.fsize };
		if (setrlimit(RLIMIT_FSIZE, &r) < 0)
			return -errno;
	}
	return 0;
}

bool
limits_oom_happened(struct limits_state *st)
{
	(void)st;
	return false;
}

void
limits_teardown(struct limits_state *st)
{
	free(st);
}
