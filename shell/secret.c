/*
 * secret.c: reading env.secret files.  See secret.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "log.h"
#include "secret.h"
#include "session.h"
#include "util.h"

static int
read_one(const struct aisb_secret *s, uid_t uid, char **ret)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t nlen = strlen(s->name), len = 0;
	char *buf;
	ssize_t n;

	fd = open(
	    s->file, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return log_errno(-SESSION_EPOLICY, "env.secret %s: %s: %s",
		    s->name, s->file, strerror(errno));
	if (fstat(fd, &st) < 0)
		return log_errno(
		    -errno, "env.secret %s: %s: %m", s->name, s->file);
	if (!S_ISREG(st.st_mode))
		return log_errno(-SESSION_EPOLICY,
		    "env.secret %s: %s is not "
		    "a regular file",
		    s->name, s->file);
	if (st.st_uid != 0 && st.st_uid != uid)
		return log_errno(-SESSION_EPOLICY,
		    "env.secret %s: %s must be "
		    "owned by root or the agent (uid %u)",
		    s->name, s->file, (unsigned)uid);
	if (st.st_mode & 0007)
		return log_errno(-SESSION_EPOLICY,
		    "env.secret %s: %s is "
		    "accessible by other (mode %04o); chmod o= it",
		    s->name, s->file, (unsigned)(st.st_mode & 07777));
	if (st.st_size > SECRET_MAX)
		return log_errno(-SESSION_EPOLICY,
		    "env.secret %s: %s is larger "
		    "than %d bytes",
		    s->name, s->file, SECRET_MAX);
	buf = malloc(nlen + 1 + SECRET_MAX + 2);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, s->name, nlen);
	buf[nlen] = '=';
	/* Read to EOF, one byte past the limit to notice a growing file. */
	while (len <= SECRET_MAX) {
		n = read(fd, buf + nlen + 1 + len, SECRET_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (n < 0 || len > SECRET_MAX || memchr(buf + nlen + 1, '\0', len)) {
		int e = n < 0 ? errno : 0;

		explicit_bzero(buf, nlen + 1 + SECRET_MAX + 2);
		free(buf);
		if (e)
			return log_errno(-e, "env.secret %s: %s: %s", s->name,
			    s->file, strerror(e));
		return log_errno(-SESSION_EPOLICY,
		    "env.secret %s: %s is too "
		    "large or contains a NUL byte",
		    s->name, s->file);
	}
	if (len > 0 && buf[nlen + len] == '\n')
		len--;
	if (len > 0 && buf[nlen + len] == '\r')
		len--;
	buf[nlen + 1 + len] = '\0';
	*ret = buf;
	return 0;
}

int
secret_read(const struct aisb_policy *p, uid_t uid, char ***ret)
{
	char **v;
	size_t i;
	int r;

	v = calloc(p->env.nsecrets + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->env.nsecrets; i++) {
		r = read_one(&p->env.secrets[i], uid, &v[i]);
		if (r < 0) {
			env_free(v);
			return r;
		}
	}
	*ret = v;
	return 0;
}
