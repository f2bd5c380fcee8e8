/*
 * log.c: syslog plus optional stderr, and a fallback file when no syslog
 * receiver listens.  See log.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int log_flags = LOG_TO_STDERR;
static bool log_debug_on;
static bool log_syslog_up;
static int log_fb_fd = -1;
static const char *log_ident = "aisb";
static void (*log_stderr_writer)(const char *line, size_t n);

bool
log_syslog_probe(void)
{
	static const int types[] = {SOCK_DGRAM, SOCK_STREAM};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t i;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", LOG_SYSLOG_PATH);
	/* What syslog(3) tries, in its order. */
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
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

void
log_open(const char *ident, int flags)
{
	log_flags = flags;
	log_ident = ident;
	if (flags & LOG_TO_SYSLOG) {
		log_syslog_up = log_syslog_probe();
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
	}
}

bool
log_syslog_ok(void)
{
	return log_syslog_up;
}

void
log_set_fallback(int fd)
{
	log_fb_fd = fd;
}

int
log_fallback_fd(void)
{
	return log_fb_fd;
}

void
log_drop_fallback(void)
{
	if (log_fb_fd >= 0)
		close(log_fb_fd);
	log_fb_fd = -1;
}

void
log_set_debug(bool on)
{
	log_debug_on = on;
}

void
log_set_stderr_writer(void (*w)(const char *line, size_t n))
{
	log_stderr_writer = w;
}

/* "2026-12-01T14:05:09+0000 IDENT[PID]: MSG\n", one write (O_APPEND). */
static void
log_fallback(const char *msg)
{
	char head[96];
	struct tm tm;
	time_t now = time(NULL);
	int n;

	if (localtime_r(&now, &tm) == NULL ||
	    strftime(head, sizeof(head), "%Y-%m-%dT%H:%M:%S%z ", &tm) == 0)
		head[0] = '\0';
	n = (int)strlen(head);
	snprintf(head + n, sizeof(head) - (size_t)n, "%.40s[%d]: ", log_ident,
	    (int)getpid());
	(void)!writev(log_fb_fd,
	    (struct iovec[]){
	        {.iov_base = head, .iov_len = strlen(head)},
	        {.iov_base = (void *)(uintptr_t)msg, .iov_len = strlen(msg)},
	        {.iov_base = (void *)(uintptr_t) "\n", .iov_len = 1},
	    },
	    3);
}

static void
log_v(int prio, bool to_stderr, const char *fmt, va_list ap)
{
	char buf[2048];
	int saved = errno;

	if (prio == LOG_DEBUG && !log_debug_on)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_flags & LOG_TO_SYSLOG)
		syslog(prio, "%s", buf);
	if (log_fb_fd >= 0)
		log_fallback(buf);
	if (to_stderr && (log_flags & LOG_TO_STDERR)) {
		if (log_stderr_writer) {
			char line[sizeof(buf) + 8];
			int n = snprintf(line, sizeof(line), "aisb: %s\n", buf);

			if (n > 0)
				log_stderr_writer(line,
				    (size_t)n < sizeof(line)
				        ? (size_t)n
				        : sizeof(line) - 1);
		} else {
			dprintf(2, "aisb: %s\n", buf);
		}
	}
	errno = saved;
}

void
log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(prio, true, fmt, ap);
	va_end(ap);
}

void
log_record(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(prio, false, fmt, ap);
	va_end(ap);
}

int
log_errno(int r, const char *fmt, ...)
{
	va_list ap;

	errno = r < 0 ? -r : r;
	va_start(ap, fmt);
	log_v(LOG_ERR, true, fmt, ap);
	va_end(ap);
	return r;
}
