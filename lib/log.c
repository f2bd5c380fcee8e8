/*
 * log.c: the journal or syslog, plus optional stderr, and a fallback
 * file when no receiver listens.  See log.h.
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

#include "journal.h"
#include "log.h"

static int log_flags = LOG_TO_STDERR;
static bool log_debug_on;
static bool log_syslog_up;
static int log_fb_fd = -1;
static int log_jfd = -1;
static bool log_journal_on;
static char log_sess[65], log_user[65];
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
		/* Kept open: the gate has no filesystem after its lockdown. */
		log_jfd = journal_present() ? journal_connect() : -1;
		log_journal_on = log_jfd >= 0;
		log_syslog_up = log_journal_on || log_syslog_probe();
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
	}
}

void
log_close(void)
{
	if (log_jfd >= 0)
		close(log_jfd);
	log_jfd = -1;
	closelog();
}

const char *
log_sink(void)
{
	if (!(log_flags & LOG_TO_SYSLOG) || !log_syslog_up)
		return NULL;
	return log_journal_on ? "journal" : "syslog";
}

void
log_set_session(const char *session, const char *user)
{
	snprintf(log_sess, sizeof(log_sess), "%s", session ? session : "");
	snprintf(log_user, sizeof(log_user), "%s", user ? user : "");
}

/*
 * The line as a journal record: false when it did not reach journald
 * (the caller then uses syslog).  A failed send connects again once,
 * as syslog(3) does (journald restarted).
 */
static bool
log_journal(int prio, const char *msg, const struct log_field *f, size_t n)
{
	struct journal_rec rec;
	size_t i;

	if (!log_journal_on)
		return false;
	journal_rec_init(&rec);
	if (journal_add_head(
	        &rec, LOG_AUTHPRIV | prio, log_ident, (int)getpid(), msg) < 0)
		return false;
	if (log_sess[0])
		(void)journal_add_str(&rec, "AISB_SESSION", log_sess);
	if (log_user[0])
		(void)journal_add_str(&rec, "AISB_USER", log_user);
	for (i = 0; i < n; i++)
		(void)journal_add_str(&rec, f[i].key, f[i].val);
	if (log_jfd < 0)
		log_jfd = journal_connect();
	if (journal_send(log_jfd, &rec) == 0)
		return true;
	if (log_jfd >= 0)
		close(log_jfd);
	log_jfd = journal_connect();
	return journal_send(log_jfd, &rec) == 0;
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
log_v(int prio, bool to_stderr, const struct log_field *f, size_t nf,
    const char *fmt, va_list ap)
{
	char buf[2048];
	int saved = errno;

	if (prio == LOG_DEBUG && !log_debug_on)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if ((log_flags & LOG_TO_SYSLOG) && !log_journal(prio, buf, f, nf))
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
	log_v(prio, true, NULL, 0, fmt, ap);
	va_end(ap);
}

void
log_record(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(prio, false, NULL, 0, fmt, ap);
	va_end(ap);
}

void
log_event(int prio, const struct log_field *f, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(prio, false, f, n, fmt, ap);
	va_end(ap);
}

int
log_errno(int r, const char *fmt, ...)
{
	va_list ap;

	errno = r < 0 ? -r : r;
	va_start(ap, fmt);
	log_v(LOG_ERR, true, NULL, 0, fmt, ap);
	va_end(ap);
	return r;
}
