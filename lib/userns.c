/*
 * userns.c: the caller's own user namespace, mapped and read back.  See
 * userns.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kfile.h"
#include "userns.h"
#include "util.h"

/* The whole file into buf, NUL-terminated; -EBADMSG when it does not
 * fit (none of these files is that long when it is right). */
static int
read_at(int dfd, const char *file, char *buf, size_t size)
{
	ssize_t n = kfile_read_at(dfd, file, buf, size);

	if (n < 0)
		return (int)n;
	return (size_t)n == size - 1 ? -EBADMSG : 0;
}

/* Does the file hold data, give or take one trailing newline? */
static int
reads_back(int dfd, const char *file, const char *data)
{
	char buf[256];
	size_t len;
	int r;

	if ((r = read_at(dfd, file, buf, sizeof(buf))) < 0)
		return r;
	len = strlen(buf);
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return strcmp(buf, data) == 0 ? 0 : -EBADMSG;
}

/* Does the map hold exactly the one line "id id 1" (the kernel pads the
 * columns with spaces)? */
static int
map_reads_back(int dfd, const char *file, unsigned id)
{
	char buf[256];
	unsigned inside, outside, count;
	int r, end = -1;

	if ((r = read_at(dfd, file, buf, sizeof(buf))) < 0)
		return r;
	if (sscanf(buf, " %u %u %u %n", &inside, &outside, &count, &end) != 3 ||
	    end < 0 || buf[end] != '\0')
		return -EBADMSG;
	return inside == id && outside == id && count == 1 ? 0 : -EBADMSG;
}

static int
fail(int r, const char *what, const char **ret_what)
{
	if (ret_what)
		*ret_what = what;
	return r;
}

int
userns_map_at(int dfd, uid_t uid, gid_t gid, const char **ret_what)
{
	char map[64];
	int r;

	if ((r = kfile_write_at(dfd, "setgroups", "deny")) < 0)
		return fail(r, "setgroups deny", ret_what);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if ((r = kfile_write_at(dfd, "uid_map", map)) < 0)
		return fail(r, "uid_map", ret_what);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if ((r = kfile_write_at(dfd, "gid_map", map)) < 0)
		return fail(r, "gid_map", ret_what);
	if ((r = reads_back(dfd, "setgroups", "deny")) < 0)
		return fail(r, "setgroups deny (read back)", ret_what);
	if ((r = map_reads_back(dfd, "uid_map", (unsigned)uid)) < 0)
		return fail(r, "uid_map (read back)", ret_what);
	if ((r = map_reads_back(dfd, "gid_map", (unsigned)gid)) < 0)
		return fail(r, "gid_map (read back)", ret_what);
	return 0;
}

int
userns_map_self(uid_t uid, gid_t gid, const char **ret_what)
{
	_cleanup_close_ int dfd = -1;

	dfd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail(-errno, "/proc/self", ret_what);
	return userns_map_at(dfd, uid, gid, ret_what);
}

int
userns_limit_nested_at(int dfd, unsigned n)
{
	char v[16];
	int r;

	snprintf(v, sizeof(v), "%u", n);
	if ((r = kfile_write_at(dfd, "max_user_namespaces", v)) < 0)
		return r;
	return reads_back(dfd, "max_user_namespaces", v);
}

int
userns_limit_nested(unsigned n)
{
	_cleanup_close_ int dfd = -1;

	dfd = open("/proc/sys/user", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	return userns_limit_nested_at(dfd, n);
}
