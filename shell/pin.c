/*
 * pin.c: holding paths of the project in place inside the view.
 * See pin.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "log.h"
#include "pin.h"
#include "session.h"
#include "util.h"
#include "viewfs.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1U << 0)
#endif

static uint64_t
mnt_id(int fd)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return 0;
	return sx.stx_mnt_id;
}

/* Is fd the root of a mount of its own (not on parent's mount)? */
static bool
is_mount_root(int fd, int parent)
{
	uint64_t a = mnt_id(fd), b = mnt_id(parent);

	return a && b && a != b;
}

static bool
is_ro(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && (sf.f_flags & ST_RDONLY);
}

static int
count_mount(struct pin *c, const char *what)
{
	if (++c->mounts > PIN_MAX_MOUNTS)
		return log_errno(-SESSION_EPOLICY,
		    "%s: more than %u paths of the project to hold read-only; "
		    "refusing",
		    what, PIN_MAX_MOUNTS);
	return 0;
}

/* Create name in dfd as a regular file holding content, atomically (a
 * concurrent reader sees no file or the whole content).  0, or -errno;
 * an existing name is left alone and is success. */
static int
mkfile(int dfd, const char *name, const char *content)
{
	static unsigned seq;
	size_t len = content ? strlen(content) : 0;
	char tmp[64];
	int fd, r = 0;

	if (len == 0) {
		fd = openat(dfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			return errno == EEXIST ? 0 : -errno;
		close(fd);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), ".aisb-pin.%ld.%u", (long)getpid(), seq++);
	fd = openat(dfd, tmp,
	    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, content, len) != (ssize_t)len)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat2(dfd, tmp, dfd, name, RENAME_NOREPLACE) < 0) {
		if (errno == EEXIST)
			r = 0;
		else if (errno == EINVAL &&
		    linkat(dfd, tmp, dfd, name, 0) < 0 && errno != EEXIST)
			r = -errno;
		else if (errno != EINVAL)
			r = -errno;
	}
	(void)unlinkat(dfd, tmp, 0);
	return r;
}

/* The open failure of a project path as what to return: the project's
 * own content decides these (the agent can cause them), so they refuse
 * the session as a policy problem; anything else is the host's. */
static int
open_err(int e)
{
	switch (e) {
	case EACCES:
	case ENOTDIR:
	case ELOOP:
	case ENAMETOOLONG:
		return -SESSION_EPOLICY;
	default:
		return -e;
	}
}

int
pin_path(struct pin *c, const char *rel, unsigned flags, const char *content,
    const char *what, int *ret_fd)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_close_ int cur = -1;
	char *comp, *next, *sp = NULL;
	int r;

	if (ret_fd)
		*ret_fd = -1;
	copy = strdup(rel);
	cur = fcntl(c->pfd, F_DUPFD_CLOEXEC, 3);
	if (!copy || cur < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -ENOMEM;
	if (!*rel) {
		/* The project itself: the root of its own mount already. */
		if (ret_fd)
			*ret_fd = TAKE_FD(cur);
		return 0;
	}
	for (comp = strtok_r(copy, "/", &sp); comp; comp = next) {
		_cleanup_close_ int fd = -1;
		bool leaf, placeholder = false;
		struct stat st;

		next = strtok_r(NULL, "/", &sp);
		leaf = !next;
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			if (flags & PIN_OPTIONAL)
				return 0;
			if (leaf && (flags & PIN_FILE)) {
				if (!(flags & PIN_CREATE))
					return log_errno(-SESSION_EPOLICY,
					    "%s: %s is missing", what, rel);
				r = mkfile(cur, comp, content);
			} else {
				r = mkdirat(cur, comp, 0755) < 0 &&
				        errno != EEXIST
				    ? -errno
				    : 0;
			}
			if (r == -EROFS)
				/* The project's filesystem is read-only:
				 * nothing can be created there inside
				 * either. */
				return 0;
			if (r < 0)
				return log_errno(-SESSION_EPOLICY,
				    "%s: cannot create %s in the project to "
				    "hold it read-only: %s",
				    what, comp, strerror(-r));
			/* The first missing component is the read-only
			 * placeholder: nothing below it can be created. */
			placeholder = !leaf;
			leaf = true;
			fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0)
			return log_errno(open_err(errno), "%s: %s: %s", what,
			    comp, strerror(errno));
		if (fstat(fd, &st) < 0)
			return log_errno(-errno, "%s: %m", what);
		if (S_ISLNK(st.st_mode))
			return log_errno(-SESSION_EPOLICY,
			    "%s: %s in the project is a symlink; refusing "
			    "(the host would follow it; remove it, or drop "
			    "the entry)",
			    what, comp);
		if (!leaf) {
			if (!S_ISDIR(st.st_mode))
				return log_errno(-SESSION_EPOLICY,
				    "%s: %s in the project is not a directory; "
				    "cannot hold %s",
				    what, comp, rel);
			if (!is_mount_root(fd, cur)) {
				if ((r = count_mount(c, what)) < 0)
					return r;
				r = viewfs_bind(fd, "", true, 0, fd, "");
				if (r < 0)
					return log_errno(
					    r, "%s: hold %s: %m", what, comp);
				close(fd);
				/* Reopen: now the root of the new mount. */
				fd = openat(cur, comp,
				    O_PATH | O_NOFOLLOW | O_DIRECTORY |
				        O_CLOEXEC);
				if (fd < 0)
					return log_errno(
					    -errno, "%s: %m", what);
			}
			close(cur);
			cur = TAKE_FD(fd);
			continue;
		}
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
			return log_errno(-SESSION_EPOLICY,
			    "%s: %s in the project is neither a file nor a "
			    "directory; refusing",
			    what, rel);
		if (!placeholder && (flags & PIN_DIR) && !S_ISDIR(st.st_mode))
			return log_errno(-SESSION_EPOLICY,
			    "%s: %s in the project is not a directory", what,
			    rel);
		if (!placeholder && (flags & PIN_FILE) && !S_ISREG(st.st_mode))
			return log_errno(-SESSION_EPOLICY,
			    "%s: %s in the project is not a regular file", what,
			    rel);
		if (placeholder || (flags & PIN_RO)) {
			if (!is_mount_root(fd, cur) || !is_ro(fd)) {
				if ((r = count_mount(c, what)) < 0)
					return r;
				r = viewfs_bind(
				    fd, "", true, VIEWFS_RO, fd, "");
				if (r < 0)
					return log_errno(r, "%s: %m", what);
			}
		} else if (!is_mount_root(fd, cur)) {
			if ((r = count_mount(c, what)) < 0)
				return r;
			r = viewfs_bind(fd, "", true, 0, fd, "");
			if (r < 0)
				return log_errno(r, "%s: hold: %m", what);
			close(fd);
			fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				return log_errno(-errno, "%s: %m", what);
		}
		if (ret_fd && !placeholder)
			*ret_fd = TAKE_FD(fd);
		return 0;
	}
	return 0;
}

long
pin_read(int fd, char *buf, size_t max)
{
	_cleanup_close_ int rfd = -1;
	char proc[64];
	struct stat st;
	size_t n = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rfd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	if (fstat(rfd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	for (;;) {
		ssize_t k = read(rfd, buf + n, max + 1 - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		n += (size_t)k;
		if (n > max)
			return -EFBIG;
	}
	buf[n] = '\0';
	return (long)n;
}

int
pin_join(const char *a, const char *b, char *out, size_t n)
{
	int k;

	if (!*a)
		k = snprintf(out, n, "%s", b);
	else if (!*b)
		k = snprintf(out, n, "%s", a);
	else
		k = snprintf(out, n, "%s/%s", a, b);
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

void
pin_dirname(const char *rel, char *out, size_t n)
{
	const char *slash = strrchr(rel, '/');
	size_t k = slash ? (size_t)(slash - rel) : 0;

	if (k >= n)
		k = n - 1;
	memmove(out, rel, k);
	out[k] = '\0';
}

/* The rest of path after root (a directory) when path is root or lies
 * lexically below it, else NULL. */
static const char *
under(const char *root, const char *path)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (!n || strncmp(path, root, n) != 0 ||
	    (path[n] != '/' && path[n] != '\0'))
		return NULL;
	path += n;
	while (*path == '/')
		path++;
	return path;
}

/*
 * An absolute path that does not name the project lexically: does the
 * host resolve it (or its deepest existing directory) into the project
 * anyway, through a symlink?  Then the agent could create what it names
 * without it being pinned.  A path the agent cannot look up counts as
 * elsewhere (it cannot create anything there either).
 */
static bool
reaches(const struct pin *c, const char *abs)
{
	char path[4096], real[4096], proc[64];

	if (snprintf(path, sizeof(path), "%s", abs) >= (int)sizeof(path))
		return false;
	for (;;) {
		int fd = open(path, O_PATH | O_CLOEXEC);
		char *slash;

		if (fd >= 0) {
			ssize_t k;

			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
			k = readlink(proc, real, sizeof(real) - 1);
			close(fd);
			if (k <= 0)
				return false;
			real[k] = '\0';
			return under(c->host, real) != NULL;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return false;
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			return false;
		*slash = '\0';
	}
}

/* Is stack (a path relative to the project) a directory reached without
 * a symlink?  0, or -SESSION_EPOLICY logged. */
static int
real_dir(const struct pin *c, const char *stack, const char *what)
{
	_cleanup_free_ char *copy = strdup(stack);
	_cleanup_close_ int cur = -1;
	char *comp, *sp = NULL;

	if (!copy)
		return -ENOMEM;
	cur = fcntl(c->pfd, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -errno;
	for (comp = strtok_r(copy, "/", &sp); comp;
	     comp = strtok_r(NULL, "/", &sp)) {
		int fd = openat(
		    cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			return log_errno(-SESSION_EPOLICY,
			    "%s: \"..\" after %s, which is %s; refusing", what,
			    stack,
			    errno == ENOENT ? "missing"
			                    : "not a directory (or a symlink)");
		close(cur);
		cur = fd;
	}
	return 0;
}

static int
resolve(struct pin *c, const char *base, const char *path, const char *what,
    char *out, size_t n, unsigned depth)
{
	_cleanup_free_ char *copy = NULL;
	char stack[4096];
	char *comp, *sp = NULL;
	size_t len;
	int r;

	if (n)
		out[0] = '\0';
	if (depth > 64)
		return log_errno(
		    -SESSION_EPOLICY, "%s: %s: too many \"..\"", what, path);
	if (path[0] == '/') {
		const char *rest = c->host[0] ? under(c->host, path) : NULL;

		if (!c->host[0])
			return log_errno(-SESSION_EPOLICY,
			    "%s: %s: the project's own path is unknown, so an "
			    "absolute path cannot be checked; refusing",
			    what, path);
		if (!rest) {
			if (reaches(c, path))
				return log_errno(-SESSION_EPOLICY,
				    "%s: %s reaches the project through a "
				    "symlink on the host; write it with the "
				    "project's path %s",
				    what, path, c->host);
			return 0;
		}
		return resolve(c, "", rest, what, out, n, depth + 1);
	}
	if (snprintf(stack, sizeof(stack), "%s", base) >= (int)sizeof(stack))
		return -ENAMETOOLONG;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
	for (comp = strtok_r(copy, "/", &sp); comp;
	     comp = strtok_r(NULL, "/", &sp)) {
		if (!strcmp(comp, "."))
			continue;
		if (strcmp(comp, "..") != 0) {
			len = strlen(stack);
			if (len + !!len + strlen(comp) >= sizeof(stack))
				return -ENAMETOOLONG;
			if (len)
				stack[len++] = '/';
			memcpy(stack + len, comp, strlen(comp) + 1);
			continue;
		}
		if (!stack[0]) {
			/* Above the project: what remains is a host path
			 * from the project's parent directory. */
			char abs[4096], parent[4096];
			const char *rest = sp ? sp : "";

			if (!c->host[0])
				return log_errno(-SESSION_EPOLICY,
				    "%s: %s leads out of the project and its "
				    "own path is unknown; refusing",
				    what, path);
			pin_dirname(c->host, parent, sizeof(parent));
			if (snprintf(abs, sizeof(abs), "%s/%s",
			        parent[0] ? parent : "",
			        rest) >= (int)sizeof(abs))
				return -ENAMETOOLONG;
			return resolve(c, "", abs, what, out, n, depth + 1);
		}
		/* ".." goes up from where the kernel is, not where the
		 * text is: only a real directory makes the two agree. */
		if ((r = real_dir(c, stack, what)) < 0)
			return r;
		pin_dirname(stack, stack, sizeof(stack));
	}
	if (snprintf(out, n, "%s", stack) >= (int)n)
		return -ENAMETOOLONG;
	return 1;
}

int
pin_resolve(struct pin *c, const char *base, const char *path, unsigned flags,
    const char *what, char *out, size_t n)
{
	if ((flags & PIN_R_CONFIG) &&
	    (path[0] == '~' || !strncmp(path, "%(prefix)/", 10)))
		return 0;
	if (!*path)
		return log_errno(-SESSION_EPOLICY, "%s: an empty path", what);
	return resolve(c, base, path, what, out, n, 0);
}
