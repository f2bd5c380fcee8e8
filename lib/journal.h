/*
 * journal.h: records for systemd-journald in its native protocol, with
 * their fields (docs/admin-guide.md, "Where the records are").
 *
 * One record is one datagram on JOURNAL_SOCKET_PATH: lines KEY=VALUE,
 * or, for a value holding a newline, KEY, a newline, the value's length
 * as 64 bits little-endian, the value and a newline.  A record is built
 * in a struct journal_rec of its own (no state here: pam_aisb links
 * this too) and never grows past JOURNAL_REC_MAX bytes; a value is cut
 * at JOURNAL_VALUE_MAX bytes, and a field that no longer fits is left
 * out (cut set), so the fields added first (PRIORITY, the identifier,
 * MESSAGE) are the ones that stay.
 */
#ifndef AISB_JOURNAL_H
#define AISB_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#define JOURNAL_SOCKET_PATH "/run/systemd/journal/socket"
#define JOURNAL_REC_MAX 8192
#define JOURNAL_VALUE_MAX 2048
#define JOURNAL_KEY_MAX 64

struct journal_rec {
	size_t len;
	bool cut; /* a value was shortened or a field left out */
	char buf[JOURNAL_REC_MAX];
};

static inline void
journal_rec_init(struct journal_rec *r)
{
	r->len = 0;
	r->cut = false;
}

/*
 * Add KEY with the n bytes at val.  KEY: A-Z, 0-9 and '_', not starting
 * with '_' or a digit, at most JOURNAL_KEY_MAX; else -EINVAL and
 * nothing added.  0 when added whole, 1 when the value was cut, -E2BIG
 * when not even the key fits (nothing added; cut set).
 */
int journal_add(
    struct journal_rec *r, const char *key, const char *val, size_t n);
/* The same with a C string (NULL: nothing added, 0). */
int journal_add_str(struct journal_rec *r, const char *key, const char *val);
int journal_add_uint(struct journal_rec *r, const char *key, unsigned long v);
/* PRIORITY, SYSLOG_FACILITY (from prio's facility bits, LOG_USER when
 * none), SYSLOG_IDENTIFIER, SYSLOG_PID and MESSAGE, in that order. */
int journal_add_head(struct journal_rec *r, int prio, const char *ident,
    int pid, const char *msg);

/* Does JOURNAL_SOCKET_PATH exist as a socket? */
bool journal_present(void);
/* A datagram socket connected to JOURNAL_SOCKET_PATH (close-on-exec),
 * or -errno. */
int journal_connect(void);
/* The record as one datagram on fd: 0, or -errno (-EMSGSIZE for a
 * short send). */
int journal_send(int fd, const struct journal_rec *r);

#endif
