/*
 * log.h: logging for the programs (aisb-shell, aisb-gate).
 *
 * Messages go to syslog (LOG_AUTHPRIV) and, when enabled, to stderr as
 * "aisb: message".  Library code that pam_aisb.so links never calls
 * these: it returns errors instead.
 *
 * syslog(3) drops every line without a word when nothing listens on
 * /dev/log.  log_open probes for a receiver (log_syslog_ok); a program
 * that finds none sets a fallback file (log_set_fallback: an O_APPEND
 * descriptor), which then gets every line too, "TIME IDENT[PID]: MSG"
 * (docs/admin-guide.md, "Where the records are").
 *
 * Where journald's native socket exists (a systemd host), every line
 * goes there instead, as a record with fields (journal.h): MESSAGE (the
 * syslog line's text), PRIORITY, SYSLOG_FACILITY (authpriv),
 * SYSLOG_IDENTIFIER, SYSLOG_PID, AISB_SESSION and AISB_USER once
 * log_set_session has named them, and what log_event adds.  When that
 * send fails the line goes to syslog(3) (and to the fallback file when
 * there is one), as without a journal.
 */
#ifndef AISB_LOG_H
#define AISB_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

enum {
	LOG_TO_SYSLOG = 1 << 0,
	LOG_TO_STDERR = 1 << 1,
};

#define LOG_SYSLOG_PATH "/dev/log"

void log_open(const char *ident, int flags);
/* Close the journal's and syslog's sockets (a child about to drop its
 * descriptors); the next line connects again. */
void log_close(void);
/* Where the lines go: "journal", "syslog" (a receiver on /dev/log) or
 * NULL (neither; before log_open too). */
const char *log_sink(void);
/* The session and user every later record carries (AISB_SESSION,
 * AISB_USER); copied, cut at 64 bytes.  NULL: none. */
void log_set_session(const char *session, const char *user);
/* Does a syslog receiver accept a connection on /dev/log now? */
bool log_syslog_probe(void);
/* What log_open's probe found (false before log_open). */
bool log_syslog_ok(void);
/* The fallback file's descriptor (kept, not dup'ed), or -1 for none;
 * log_drop_fallback closes it. */
void log_set_fallback(int fd);
int log_fallback_fd(void);
void log_drop_fallback(void);
void log_set_debug(bool on);
void log_msg(int prio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Syslog only, never stderr (session and decision records). */
void log_record(int prio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A record's own fields: key a journal field name (AISB_EVENT, ...),
 * val NULL to leave it out. */
struct log_field {
	const char *key;
	const char *val;
};

/* A record (syslog only, as log_record) with fields for the journal. */
void log_event(int prio, const struct log_field *f, size_t n, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

/*
 * The stderr lines ("aisb: message\n") go through w instead of a plain
 * write: aisb-shell bounds them in time (a caller that stops reading
 * cannot hold it).  NULL: a plain write.  The module never sets one.
 */
void log_set_stderr_writer(void (*w)(const char *line, size_t n));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)

/*
 * Log err and return it: "return log_errno(-errno, "open %s: %m", p);".
 * errno is set from r (negative) before formatting so %m works.
 */
int log_errno(int r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
