/*
 * pamlog.c: pam_aisb's log lines, with a root-only file when syslog has
 * no receiver.  See pamlog.h.  Keeps no state between calls: the probe
 * and the file are opened per line (a login writes a handful).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "aisb.h"
#include "pamlog.h"

/* What syslog(3) tries: a datagram, then a stream socket on /dev/log. */
static bool
receiver(void)
{
	static const int types[] = {SOCK_DGRAM, SOCK_STREAM};
	struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "/dev/log"};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0), r;

		if (fd < 0)
			continue;
		r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
		if (r == 0)
			return true;
	}
	return false;
}

/* AISB_LOG_DIR/AISB_PAM_LOG for appending: the directory made if
 * missing, and both root's and writable by root alone; else -1. */
static int
open_file(void)
{
	struct stat st;
	int dfd, fd;

	if (mkdir(AISB_LOG_DIR, 0700) < 0 && errno != EEXIST)
		return -1;
	dfd =
	    open(AISB_LOG_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (fstat(dfd, &st) < 0 || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(dfd);
		return -1;
	}
	fd = openat(dfd, AISB_PAM_LOG,
	    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    st.st_nlink != 1) {
		close(fd);
		return -1;
	}
	return fd;
}

void
pamlog(pam_handle_t *pamh, int prio, const char *fmt, ...)
{
	const void *svc = NULL, *user = NULL;
	char msg[1024], head[160], ts[40];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;
	int fd, saved = errno;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pam_syslog(pamh, prio, "%s", msg);
	if (geteuid() != 0 || receiver() || (fd = open_file()) < 0) {
		errno = saved;
		return;
	}
	(void)pam_get_item(pamh, PAM_SERVICE, &svc);
	(void)pam_get_item(pamh, PAM_USER, &user);
	if (localtime_r(&now, &tm) == NULL ||
	    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S%z", &tm) == 0)
		ts[0] = '\0';
	/* Service and user are the caller's words: at most 64 bytes each,
	 * and no control character reaches the file (one line a record). */
	snprintf(head, sizeof(head),
	    "%s pam_aisb[%d] service=%.64s user=%.64s: ", ts, (int)getpid(),
	    svc ? (const char *)svc : "-", user ? (const char *)user : "-");
	for (char *p = head; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	(void)!writev(fd,
	    (struct iovec[]){
	        {.iov_base = head, .iov_len = strlen(head)},
	        {.iov_base = msg, .iov_len = strlen(msg)},
	        {.iov_base = (void *)(uintptr_t) "\n", .iov_len = 1},
	    },
	    3);
	close(fd);
	errno = saved;
}
