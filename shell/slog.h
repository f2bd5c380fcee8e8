/*
 * slog.h: the session record in syslog (LOG_AUTHPRIV): one line at the
 * start, one at the end.  Values from the environment are sanitised;
 * no secret is ever part of a record.
 */
#ifndef AISB_SLOG_H
#define AISB_SLOG_H

#include <stdbool.h>
#include <sys/types.h>

#define SLOG_ID_LEN 32 /* hex digits */

struct slog_start {
	const char *id;
	const char *user;
	uid_t uid;
	const char *project;
	const char *how; /* project selection */
	const char *policy_hash;
	const char *mode; /* shell form */
};

/* 16 random bytes as hex (getrandom).  0 or -errno. */
int slog_new_id(char out[SLOG_ID_LEN + 1]);
/* Logs peer (SSH_CONNECTION) and tty (ttyname of fd 0) too. */
void slog_start(const struct slog_start *s);
void slog_end(
    const char *id, int status, double seconds, bool timed_out, bool oom);

#endif
