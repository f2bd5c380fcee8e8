/*
 * cgroup_kill.c: empty a cgroup tree and remove it (cgroup_kill_remove,
 * see cgroup.h), for root's reap of a login (cgroup.c) and for the
 * session's own teardown (shell/sesslimits.c).
 *
 * A process in the tree may fork while we kill, and a pid read from
 * cgroup.procs may be reused by an unrelated process before it is
 * signalled, so each pid is pinned with a pidfd and signalled only if
 * it is still listed after the pin; the rounds repeat until the tree is
 * empty (v2's cgroup.kill first, where the kernel has it), within a
 * bound.  As in cgroup.c, every path is walked with openat(O_NOFOLLOW)
 * from a directory fd: the tree may belong to the agent.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "cgroup.h"
#include "util.h"

#define KILL_ROUNDS 500 /* x 10 ms: the reap bound */

static int
pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * SIGKILL the processes of one cgroup.  A pid read from cgroup.procs may
 * exit and be reused by an unrelated process before we signal it, so
 * each one is pinned with a pidfd first and signalled only if it is
 * still listed after the pin.  Returns the number of processes found.
 */
static int
kill_procs(int dfd)
{
	_cleanup_free_ pid_t *before = NULL, *after = NULL;
	_cleanup_free_ int *pfd = NULL;
	int n, m, i;

	/* A count > 0 comes with the array: the NULL tests only say so to
	 * the analyzer, which does not know that -errno is negative. */
	n = cgroup_read_procs(dfd, &before);
	if (n <= 0 || before == NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return n;
	pfd = calloc((size_t)n, sizeof(*pfd));
	if (!pfd)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		pfd[i] = (int)syscall(SYS_pidfd_open, before[i], 0);
		if (pfd[i] < 0)
			pfd[i] = -errno;
	}
	m = cgroup_read_procs(dfd, &after);
	if (after == NULL)
		m = 0;
	if (m > 0)
		qsort(after, (size_t)m, sizeof(*after), pid_cmp);
	for (i = 0; i < n; i++) {
		bool listed = m > 0 &&
		    bsearch(
		        &before[i], after, (size_t)m, sizeof(*after), pid_cmp);

		if (pfd[i] >= 0) {
			if (listed)
				(void)syscall(SYS_pidfd_send_signal, pfd[i],
				    SIGKILL, NULL, 0);
			close(pfd[i]);
		} else if (pfd[i] == -ENOSYS && listed)
			(void)kill(before[i], SIGKILL); /* before 5.3 */
	}
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
	return n;
}

/* Kill in dfd and every descendant.  Processes found, or -errno. */
static int
kill_tree(int dfd, int depth)
{
	_cleanup_close_ int it = -1;
	struct dirent *de;
	DIR *d;
	int total, r;

	total = kill_procs(dfd);
	if (total < 0)
		return total;
	if (depth >= CGROUP_MAX_DEPTH)
		return total;
	it = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (it < 0)
		return -errno;
	d = fdopendir(it);
	if (!d)
		return -errno;
	(void)TAKE_FD(it); /* d owns it now */
	while ((de = readdir(d))) {
		_cleanup_close_ int sub = -1;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (sub < 0)
			continue;
		r = kill_tree(sub, depth + 1);
		if (r > 0)
			total += r;
	}
	closedir(d);
	return total;
}

/* rmdir name below pfd, children first. */
static int
rmdir_tree(int pfd, const char *name, int depth)
{
	_cleanup_close_ int fd = -1;
	struct dirent *de;
	DIR *d;
	int r = 0;

	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (depth < CGROUP_MAX_DEPTH) {
		d = fdopendir(fd);
		if (!d)
			return -errno;
		(void)TAKE_FD(fd); /* d owns it now */
		while ((de = readdir(d))) {
			int q;

			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			q = rmdir_tree(dirfd(d), de->d_name, depth + 1);
			if (q < 0 && q != -ENOENT && r == 0)
				r = q;
		}
		closedir(d);
	}
	if (unlinkat(pfd, name, AT_REMOVEDIR) < 0)
		return -errno;
	return r;
}

int
cgroup_kill_remove(int pfd, const char *name, enum cgroup_mode mode)
{
	const struct timespec tick = {0, 10 * 1000 * 1000};
	int round, r = -EBUSY;

	if (!cgroup_name_ok(name))
		return -EINVAL;
	for (round = 0; round < KILL_ROUNDS; round++) {
		_cleanup_close_ int fd = -1;
		int n;

		fd = openat(
		    pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return errno == ENOENT ? 0 : -errno;
		/*
		 * v2 (5.14+): cgroup.kill kills the whole subtree at once,
		 * racing no fork.  The pidfd rounds below still run: they
		 * are all v1 has, and they confirm the tree is empty.
		 */
		if (round == 0 && mode == CGROUP_V2)
			(void)cgroup_write(fd, "cgroup.kill", "1");
		n = kill_tree(fd, 0);
		if (n < 0)
			return n;
		if (n == 0) {
			r = rmdir_tree(pfd, name, 0);
			if (r == 0 || r == -ENOENT)
				return 0;
			if (r != -EBUSY)
				return r;
		}
		nanosleep(&tick, NULL);
	}
	return r;
}
