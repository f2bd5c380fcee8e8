/*
 * rundir.c: /run/aisb/USER (see rundir.h).
 *
 * The records in it say where an agent's sessions came from.  A
 * directory left behind by an account that is gone (or by an older
 * account of the same name) would show them to whoever gets that name or
 * that group next, so: the directory goes with the account's last
 * session, an existing one is taken over only when everything in it is
 * the current account's, and anything else is removed first.
 *
 * Every step works on file descriptors opened with O_NOFOLLOW below a
 * root-owned /run/aisb; the lock on the directory's fd orders a session
 * that opens against one that removes the directory as it ends (the
 * opener checks, under the lock, that the fd is still the directory at
 * that name).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir.h"
#include "util.h"

#define REC_PREFIX "session-"
#define STALE_PREFIX ".stale-"
#define TREE_DEPTH 16

/* /run/aisb: made root 0755 when missing; must be root's, not writable
 * by anybody else, not a symlink. */
static int
root_fd(void)
{
	struct stat st;
	int fd;

	if (mkdir(RUNDIR_ROOT, 0755) == 0) {
		if (chown(RUNDIR_ROOT, 0, 0) < 0 ||
		    chmod(RUNDIR_ROOT, 0755) < 0)
			return -errno;
	} else if (errno != EEXIST)
		return -errno;
	fd = open(RUNDIR_ROOT, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Remove name below dfd and everything in it, without following links. */
static int
remove_tree(int dfd, const char *name, int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) < 0 ? -errno : 0;
	if (depth >= TREE_DEPTH)
		return -ELOOP;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)) != NULL) {
		int e;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		e = remove_tree(dirfd(d), de->d_name, depth + 1);
		if (e < 0 && r == 0)
			r = e;
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && r == 0)
		r = -errno;
	return r;
}

/* Out of the way first (one rename), then removed. */
static int
discard(int rfd, const char *name)
{
	char tmp[NAME_MAX + 1];

	if (strncmp(name, STALE_PREFIX, strlen(STALE_PREFIX)) == 0)
		return remove_tree(rfd, name, 0);
	snprintf(
	    tmp, sizeof(tmp), STALE_PREFIX "%ld-%.200s", (long)getpid(), name);
	if (renameat(rfd, name, rfd, tmp) < 0)
		return remove_tree(rfd, name, 0);
	return remove_tree(rfd, tmp, 0);
}

/* "session-PID" -> PID, or 0 when the name is not a record's. */
static long
rec_pid(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, REC_PREFIX, strlen(REC_PREFIX)) != 0)
		return 0;
	errno = 0;
	pid = strtol(name + strlen(REC_PREFIX), &end, 10);
	if (errno || *end || pid <= 0)
		return 0;
	return pid;
}

static bool
pid_gone(long pid)
{
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* A record of pw: root's, pw's group, a regular file, and "uid=UID". */
static bool
rec_ours(int dfd, const char *name, const struct passwd *pw)
{
	_cleanup_close_ int fd = -1;
	char buf[2048], want[32];
	struct stat st;
	ssize_t n;

	if (rec_pid(name) == 0)
		return false;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return false;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_gid != pw->pw_gid)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	snprintf(want, sizeof(want), "\nuid=%u\n", (unsigned)pw->pw_uid);
	return strstr(buf, want) != NULL;
}

/*
 * Is the directory at dfd pw's to reuse?  Removes the records of ended
 * sessions on the way.  Returns true or false; *empty when no record of
 * a live session is left.
 */
static bool
dir_ours(int dfd, const struct passwd *pw, bool *empty)
{
	struct stat st;
	struct dirent *de;
	bool ok = true;
	DIR *d;
	int fd;

	*empty = true;
	if (fstat(dfd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    st.st_gid != pw->pw_gid || (st.st_mode & 07777) != 0750)
		return false;
	fd = dup(dfd);
	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	rewinddir(d);
	while (ok && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (!rec_ours(dfd, de->d_name, pw)) {
			ok = false;
			break;
		}
		if (pid_gone(rec_pid(de->d_name)))
			unlinkat(dfd, de->d_name, 0);
		else
			*empty = false;
	}
	closedir(d);
	return ok;
}

/* Directories of accounts that are gone (a lookup that says "no such
 * user", not one that failed), and leftovers of an interrupted discard. */
static void
sweep(int rfd)
{
	struct dirent *de;
	long sz = sysconf(_SC_GETPW_R_SIZE_MAX);
	char *buf;
	DIR *d;
	int fd;

	if (sz < 1024)
		sz = 16384;
	buf = malloc((size_t)sz);
	fd = dup(rfd);
	if (!buf || fd < 0 || !(d = fdopendir(fd))) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct passwd pwb, *res = NULL;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (strncmp(de->d_name, STALE_PREFIX, strlen(STALE_PREFIX)) ==
		    0) {
			remove_tree(rfd, de->d_name, 0);
			continue;
		}
		if (de->d_name[0] == '.')
			continue;
		if (getpwnam_r(de->d_name, &pwb, buf, (size_t)sz, &res) == 0 &&
		    res == NULL)
			discard(rfd, de->d_name);
	}
	closedir(d);
	free(buf);
}

/* Open and lock rfd/name; is the locked fd still what the name is? */
static int
open_locked(int rfd, const char *name)
{
	struct stat a, b;
	int fd;

	fd = openat(rfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (fstat(fd, &a) < 0 ||
	    fstatat(rfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		return -EAGAIN;
	}
	return fd;
}

int
rundir_open(const struct passwd *pw, int *replaced)
{
	_cleanup_close_ int rfd = -1;
	const char *name = pw->pw_name;

	*replaced = 0;
	if (!name[0] || strchr(name, '/') || name[0] == '.')
		return -EINVAL;
	rfd = root_fd();
	if (rfd < 0)
		return rfd;
	sweep(rfd);
	for (int tries = 0; tries < 8; tries++) {
		bool empty;
		int fd;

		if (mkdirat(rfd, name, 0700) == 0) {
			/* Made by us: owner, group, mode explicitly (the
			 * caller's umask may be anything). */
			fd = open_locked(rfd, name);
			if (fd == -EAGAIN || fd == -ENOENT)
				continue;
			if (fd < 0)
				return fd;
			if (fchown(fd, 0, pw->pw_gid) < 0 ||
			    fchmod(fd, 0750) < 0) {
				int e = errno;

				close(fd);
				return -e;
			}
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
		fd = open_locked(rfd, name);
		if (fd == -EAGAIN || fd == -ENOENT)
			continue;
		if (fd >= 0 && dir_ours(fd, pw, &empty))
			return fd;
		/* A symlink, a file, or a directory with anything in it
		 * that is not this account's: never reused. */
		if (fd >= 0)
			close(fd);
		*replaced = 1;
		if (discard(rfd, name) < 0)
			return -EPERM;
	}
	return -EAGAIN;
}

int
rundir_leave(const char *user, const char *rec)
{
	_cleanup_close_ int rfd = -1, fd = -1;
	struct dirent *de;
	bool empty = true;
	DIR *d;
	int dup_fd;

	if (!user[0] || strchr(user, '/') || user[0] == '.')
		return -EINVAL;
	rfd =
	    open(RUNDIR_ROOT, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	fd = open_locked(rfd, user);
	if (fd < 0)
		return fd == -ENOENT ? 1 : fd;
	if (rec && rec_pid(rec) != 0)
		unlinkat(fd, rec, 0);
	dup_fd = dup(fd);
	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return -errno;
	}
	while ((de = readdir(d)) != NULL) {
		long pid;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		pid = rec_pid(de->d_name);
		if (pid != 0 && pid_gone(pid) &&
		    unlinkat(fd, de->d_name, 0) == 0)
			continue;
		empty = false;
	}
	closedir(d);
	if (!empty)
		return 0;
	/* Under the lock: an opener that waits for it sees the name gone
	 * and makes the directory again. */
	return unlinkat(rfd, user, AT_REMOVEDIR) < 0 ? -errno : 1;
}
