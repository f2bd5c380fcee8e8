/*
 * policy_trust.c: trust before parse.  See policy_internal.h.
 *
 * The policy decides what an agent may do, so whoever can write it, or
 * swap a directory above it, owns the sandbox.  Like sshd's StrictModes
 * and doas, every directory from / down and the file itself must be
 * owned by root (or, for --config, the invoking user) and not writable
 * by group or other.  Each check is made on an fd that we opened with
 * O_NOFOLLOW relative to the previous one, so nothing can be swapped
 * between the check and the read: the bytes parsed are the bytes of
 * the file that was checked.  World-writable sticky directories (/tmp)
 * are refused as well: anybody can create a name there.
 */
#define _GNU_SOURCE /* asprintf, vasprintf */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy_internal.h"
#include "util.h"

void
policy_err(struct policy_errs *errs, const char *fmt, ...)
{
	va_list ap;
	char *m = NULL, **nv;

	if (errs == NULL || errs->n >= POLICY_MAX_ERRS)
		return;
	if (errs->n == POLICY_MAX_ERRS - 1) {
		m = strdup("too many errors; stopping here");
	} else {
		va_start(ap, fmt);
		if (vasprintf(&m, fmt, ap) < 0)
			m = NULL;
		va_end(ap);
	}
	if (m == NULL)
		return;
	/*
	 * Messages quote bits of the file and end up on terminals and in
	 * syslog: no control characters (escape sequences) get through.
	 */
	for (char *c = m; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	nv = realloc(errs->msg, (errs->n + 1) * sizeof(*nv));
	if (nv == NULL) {
		free(m);
		return;
	}
	errs->msg = nv;
	errs->msg[errs->n++] = m;
}

static bool
owner_ok(const struct stat *st, uid_t trusted_uid)
{
	return st->st_uid == 0 ||
	    (trusted_uid != (uid_t)-1 && st->st_uid == trusted_uid);
}

static int
check_node(const char *path, const char *what, const struct stat *st,
    uid_t trusted_uid, struct policy_errs *errs)
{
	bool dir = S_ISDIR(st->st_mode);

	if (!owner_ok(st, trusted_uid)) {
		policy_err(errs,
		    "%s: unsafe: %s%s is owned by uid %u (must "
		    "be root%s)",
		    path, dir ? "directory " : "", what, (unsigned)st->st_uid,
		    trusted_uid != (uid_t)-1 && trusted_uid != 0
		        ? " or the invoking user"
		        : "");
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		policy_err(errs,
		    "%s: unsafe: %s%s is writable by group or "
		    "other (mode %04o)%s",
		    path, dir ? "directory " : "", what,
		    (unsigned)(st->st_mode & 07777),
		    dir ? "; keep policy "
		          "files where only root can write"
		        : "; chmod go-w");
		return -EPERM;
	}
	return 0;
}

static int
read_bounded(
    int fd, const char *path, char **buf, size_t *len, struct policy_errs *errs)
{
	_cleanup_free_ char *b = NULL;
	size_t n = 0;

	b = malloc(POLICY_MAX_FILE + 2);
	if (b == NULL)
		return -ENOMEM;
	/* Read one byte past the limit to tell "too big" from "exact". */
	while (n <= POLICY_MAX_FILE) {
		ssize_t r = read(fd, b + n, POLICY_MAX_FILE + 1 - n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			policy_err(errs, "%s: read: %s", path, strerror(errno));
			return -errno;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > POLICY_MAX_FILE) {
		policy_err(errs, "%s: larger than %d bytes: not a policy file",
		    path, POLICY_MAX_FILE);
		return -EFBIG;
	}
	b[n] = '\0';
	*buf = TAKE_PTR(b);
	*len = n;
	return 0;
}

/*
 * Open path after the checks (see policy_trust_read): *ret_fd and its
 * stat *ret_st.  what names the file in messages ("policy file").  0, -ENOENT
 * when missing and missing_ok (nothing recorded), or -errno with the reason in
 * errs.
 */
static int
trust_open(const char *path, const char *what, uid_t trusted_uid,
    bool missing_ok, int *ret_fd, struct stat *ret_st, struct policy_errs *errs)
{
	_cleanup_close_ int dfd = -1, fd = -1;
	char comp[NAME_MAX + 1], sofar[PATH_MAX];
	const char *p, *slash;
	struct stat st;
	size_t n;
	int r;

	if (path == NULL || path[0] != '/' || strlen(path) >= PATH_MAX) {
		policy_err(errs, "%s: the %s must be an absolute path",
		    path ? path : "(null)", what);
		return -EINVAL;
	}
	dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		r = -errno;
		policy_err(errs, "%s: open /: %s", path, strerror(errno));
		return r;
	}
	if ((r = check_node(path, "/", &st, trusted_uid, errs)) < 0)
		return r;
	strcpy(sofar, "");
	p = path;
	for (;;) {
		while (*p == '/')
			p++;
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 0 || n > NAME_MAX) {
			policy_err(errs, "%s: not a file name", path);
			return -EINVAL;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (strcmp(comp, "..") == 0 || strcmp(comp, ".") == 0) {
			policy_err(errs,
			    "%s: '.' and '..' are not allowed in "
			    "the path of the %s",
			    path, what);
			return -EINVAL;
		}
		/* "a/b/" : the rest is only slashes, comp is the last. */
		if (slash && slash[strspn(slash, "/")] == '\0')
			slash = NULL;
		snprintf(sofar + strlen(sofar), sizeof(sofar) - strlen(sofar),
		    "/%s", comp);
		if (slash == NULL)
			break;
		fd = openat(
		    dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			if (errno == ENOENT && missing_ok)
				return -ENOENT;
			if (errno == ELOOP || errno == ENOTDIR)
				policy_err(errs,
				    "%s: unsafe: %s is a symlink or "
				    "not a directory",
				    path, sofar);
			else
				policy_err(errs, "%s: open %s: %s", path, sofar,
				    strerror(errno));
			return r;
		}
		if (fstat(fd, &st) < 0) {
			r = -errno;
			policy_err(errs, "%s: stat %s: %s", path, sofar,
			    strerror(errno));
			return r;
		}
		if ((r = check_node(path, sofar, &st, trusted_uid, errs)) < 0)
			return r;
		close(dfd);
		dfd = TAKE_FD(fd);
		p = slash;
	}
	/*
	 * O_NONBLOCK: a FIFO planted as the config must not hang the
	 * login; it is refused below as not a regular file.
	 */
	fd = openat(dfd, comp,
	    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (errno == ENOENT && missing_ok)
			return -ENOENT;
		if (errno == ELOOP)
			policy_err(errs, "%s: unsafe: the %s is a symlink",
			    path, what);
		else
			policy_err(
			    errs, "%s: cannot open: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		policy_err(errs, "%s: stat: %s", path, strerror(errno));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		policy_err(errs, "%s: unsafe: not a regular file", path);
		return -EPERM;
	}
	if ((r = check_node(path, "the file", &st, trusted_uid, errs)) < 0)
		return r;
	/* Back to blocking reads for a regular file. */
	(void)fcntl(fd, F_SETFL, 0);
	*ret_st = st;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int
policy_open_trusted(const char *path, int *ret_fd, struct policy_errs *errs)
{
	struct stat st;

	*ret_fd = -1;
	return trust_open(path, "file", (uid_t)-1, false, ret_fd, &st, errs);
}

int
policy_trust_read(const char *path, uid_t trusted_uid, bool missing_ok,
    char **buf, size_t *len, struct policy_errs *errs)
{
	_cleanup_close_ int fd = -1;
	struct stat st = {0};
	int r;

	*buf = NULL;
	*len = 0;
	r = trust_open(
	    path, "policy file", trusted_uid, missing_ok, &fd, &st, errs);
	if (r < 0)
		return r;
	if (st.st_size > POLICY_MAX_FILE) {
		policy_err(errs,
		    "%s: larger than %d bytes (%lld): not a policy "
		    "file",
		    path, POLICY_MAX_FILE, (long long)st.st_size);
		return -EFBIG;
	}
	return read_bounded(fd, path, buf, len, errs);
}
