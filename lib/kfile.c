/*
 * kfile.c: one write, one whole read of a kernel interface file.  See
 * kfile.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kfile.h"
#include "util.h"

int
kfile_write_at(int dfd, const char *file, const char *data)
{
	_cleanup_close_ int fd = -1;
	size_t len = strlen(data);
	ssize_t n;

	fd = openat(dfd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

ssize_t
kfile_read_at(int dfd, const char *file, char *buf, size_t size)
{
	_cleanup_close_ int fd = -1;
	size_t len = 0;
	ssize_t n;

	if (size == 0)
		return -EINVAL;
	fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}
