/*
 * slog.c: session records.  See slog.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "aisb.h"
#include "callerenv.h"
#include "log.h"
#include "registry.h"
#include "slog.h"

int
slog_new_id(char out[SLOG_ID_LEN + 1])
{
	unsigned char b[SLOG_ID_LEN / 2];
	ssize_t n;
	size_t i;

	while ((n = getrandom(b, sizeof(b), 0)) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(b))
		return n < 0 ? -errno : -EIO;
	for (i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

/* Copy what an address list may contain; anything else becomes '?'. */
static void
sanitize(char *dst, size_t n, const char *src, const char *allowed)
{
	size_t i;

	for (i = 0; src && src[i] && i + 1 < n; i++)
		dst[i] = strchr(allowed, src[i]) ? src[i] : '?';
	dst[i] = '\0';
}

/* Printable ASCII except quote and backslash; the rest becomes '?'. */
static void
printable(char *dst, size_t n, const char *src)
{
	size_t i;

	for (i = 0; src && src[i] && i + 1 < n; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c < 0x20 || c >= 0x7f || c == '\'' || c == '\\'
		    ? '?'
		    : (char)c;
	}
	dst[i] = '\0';
}

void
slog_peer(char *peer, size_t len)
{
	const char *conn = callerenv_get("SSH_CONNECTION");
	char tmp[128], *sp;

	snprintf(peer, len, "-");
	if (conn == NULL || *conn == '\0')
		return;
	/* "client_ip client_port server_ip server_port" */
	sanitize(tmp, sizeof(tmp), conn, "0123456789abcdefABCDEF.:% ");
	sp = strchr(tmp, ' ');
	if (sp && (sp = strchr(sp + 1, ' ')))
		*sp = '\0';
	for (sp = tmp; (sp = strchr(sp, ' '));)
		*sp = ':';
	snprintf(peer, len, "%s", tmp);
}

void
slog_tty(char *buf, size_t len)
{
	const char *tty = isatty(0) ? ttyname(0) : NULL;

	snprintf(buf, len, "-");
	if (tty)
		sanitize(
		    buf, len, tty, "abcdefghijklmnopqrstuvwxyz0123456789/");
}

void
slog_start(const struct slog_start *s)
{
	char proj[512], peer[128], ttyb[64];

	slog_peer(peer, sizeof(peer));
	slog_tty(ttyb, sizeof(ttyb));
	printable(proj, sizeof(proj), s->project);
	log_event(LOG_INFO,
	    (struct log_field[]){
	        {"AISB_EVENT", "start"},
	        {"AISB_PROJECT", proj},
	        {"AISB_FORM", s->mode},
	        {"AISB_PEER", peer},
	    },
	    4,
	    "session start id=%s user=%s uid=%u project='%s' "
	    "(%s) policy=%.16s peer=%s tty=%s form=%s",
	    s->id, s->user, (unsigned)s->uid, proj, s->how, s->policy_hash,
	    peer, ttyb, s->mode);
}

void
slog_end(const char *id, int status, double seconds, bool timed_out, bool oom,
    bool ended)
{
	char st[16];

	snprintf(st, sizeof(st), "%d", status);
	log_event(LOG_INFO,
	    (struct log_field[]){{"AISB_EVENT", "end"}, {"AISB_STATUS", st}}, 2,
	    "session end id=%s status=%d duration=%.3fs%s%s%s", id, status,
	    seconds, timed_out ? " timed-out" : "", oom ? " memory-limit" : "",
	    ended ? " ended-by-admin" : "");
}

void
slog_fallback(const char *id, uid_t uid)
{
	char name[SLOG_ID_LEN + 8];
	int dfd = -1, fd;

	if (log_syslog_ok())
		return;
	/*
	 * Without a registry there is nowhere to keep them: --doctor fails
	 * on such a host.  Not a word on the session's stderr: a harness
	 * feeds it to its model, and nobody inside can mend the host.
	 */
	if (registry_open_dir(uid, &dfd) < 0)
		return;
	snprintf(name, sizeof(name), "%s.log", id);
	fd = openat(dfd, name,
	    O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	close(dfd);
	if (fd >= 0)
		log_set_fallback(fd);
}
