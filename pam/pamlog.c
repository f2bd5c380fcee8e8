/*
 * pamlog.c: pam_aisb's log lines: to the journal where its native
 * socket exists, else through pam_syslog, with a root-only file when
 * syslog has no receiver.  See pamlog.h.  Keeps no state between calls
 * but the phase (pam data): the sockets and the file are opened per
 * line (a login writes a handful).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "aisb.h"
#include "journal.h"
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

#define DATA_PHASE "pam_aisb_phase"

void
pamlog_phase(pam_handle_t *pamh, const char *phase)
{
	(void)pam_set_data(pamh, DATA_PHASE, (void *)(uintptr_t)phase, NULL);
}

static void
clean(char *dst, size_t n, const char *src)
{
	size_t i;

	for (i = 0; src && src[i] && i + 1 < n; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f
		    ? '?'
		    : src[i];
	dst[i] = '\0';
}

/* The program's name as syslog(3) would give it (sshd, su, login):
 * its comm, which prctl reads without the filesystem. */
static void
program(char out[17])
{
	memset(out, 0, 17);
	if (prctl(PR_GET_NAME, out, 0, 0, 0) < 0 || out[0] == '\0')
		snprintf(out, 17, "pam_aisb");
	for (char *p = out; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '[')
			*p = '?';
}

/*
 * The line as a journal record: pam_syslog's text ("pam_aisb(SERVICE:
 * PHASE): MSG") in MESSAGE, the program's identifier, authpriv, and the
 * user, service and event as fields.  false: it did not get there.
 */
static bool
to_journal(pam_handle_t *pamh, int prio, const char *event, const char *msg)
{
	const void *svc = NULL, *user = NULL, *phase = NULL;
	struct journal_rec *rec;
	char ident[17], u[65], sv[65], *text;
	bool sent = false;
	int fd;

	if (!journal_present() || (fd = journal_connect()) < 0)
		return false;
	rec = malloc(sizeof(*rec));
	text = malloc(JOURNAL_VALUE_MAX);
	if (rec == NULL || text == NULL)
		goto out;
	(void)pam_get_item(pamh, PAM_SERVICE, &svc);
	(void)pam_get_item(pamh, PAM_USER, &user);
	if (pam_get_data(pamh, DATA_PHASE, &phase) != PAM_SUCCESS)
		phase = NULL;
	program(ident);
	/* Service and user are the caller's words: at most 64 bytes, no
	 * control characters (as in the file below). */
	clean(u, sizeof(u), user);
	clean(sv, sizeof(sv), svc);
	snprintf(text, JOURNAL_VALUE_MAX, "pam_aisb(%s:%s): %s", sv,
	    phase ? (const char *)phase : "", msg);
	journal_rec_init(rec);
	if (journal_add_head(
	        rec, LOG_AUTHPRIV | prio, ident, (int)getpid(), text) < 0)
		goto out;
	(void)journal_add_str(rec, "AISB_PROGRAM", "pam_aisb");
	(void)journal_add_str(rec, "AISB_EVENT", event);
	if (u[0])
		(void)journal_add_str(rec, "AISB_USER", u);
	if (sv[0])
		(void)journal_add_str(rec, "AISB_SERVICE", sv);
	sent = journal_send(fd, rec) == 0;
out:
	free(rec);
	free(text);
	close(fd);
	return sent;
}

static void
pamlog_v(pam_handle_t *pamh, int prio, const char *event, const char *fmt,
    va_list ap)
{
	const void *svc = NULL, *user = NULL;
	char msg[1024], head[160], ts[40];
	time_t now = time(NULL);
	struct tm tm;
	int fd, saved = errno;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (to_journal(pamh, prio, event, msg)) {
		errno = saved;
		return;
	}
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

void
pamlog(pam_handle_t *pamh, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pamlog_v(pamh, prio, NULL, fmt, ap);
	va_end(ap);
}

void
pamlog_event(
    pam_handle_t *pamh, int prio, const char *event, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pamlog_v(pamh, prio, event, fmt, ap);
	va_end(ap);
}
