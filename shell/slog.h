/*
 * slog.h: the session record in syslog (LOG_AUTHPRIV): one line at the
 * start, one at the end.  Values from the environment are sanitised;
 * no secret is ever part of a record.
 */
#ifndef AISB_SLOG_H
#define AISB_SLOG_H

#include <stdbool.h>
#include <stddef.h>
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
/* The caller's peer, "IP:PORT" from SSH_CONNECTION or "-", and its
 * terminal (ttyname of fd 0) or "-", reduced to safe characters. */
void slog_peer(char *buf, size_t len);
void slog_tty(char *buf, size_t len);
/* Logs peer and tty too. */
void slog_start(const struct slog_start *s);
/* ended: an administrator ended it (aisb-shell --end). */
void slog_end(const char *id, int status, double seconds, bool timed_out,
    bool oom, bool ended);

/*
 * With no syslog receiver (log_syslog_ok false): the session's log lines
 * go to AISB_REGISTRY_DIR/UID/ID.log too (0600, appended; the gate gets
 * the descriptor as its fd 5).  If that file cannot be made (no
 * registry), they are not kept: --doctor fails on such a host.
 */
void slog_fallback(const char *id, uid_t uid);

#endif
