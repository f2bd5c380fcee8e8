/*
 * cgroup.c: cgroup delegation.  (Stub until the limits issue lands.)
 */
#include <errno.h>

#include "cgroup.h"

int
cgroup_delegate(const char *user, uid_t uid, gid_t gid, pid_t pid,
    char *key, size_t keylen)
{
	(void)user, (void)uid, (void)gid, (void)pid, (void)key, (void)keylen;
	return -ENOSYS;
}

int
cgroup_reap(const char *key)
{
	(void)key;
	return -ENOSYS;
}
