/*
 * log.c: syslog plus optional stderr.  See log.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "log.h"

static int log_flags = LOG_TO_STDERR;
static bool log_debug_on;
static void (*log_stderr_writer)(const char *line, size_t n);

void
log_open(const char *ident, int flags)
{
	log_flags = flags;
	if (flags & LOG_TO_SYSLOG)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
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
