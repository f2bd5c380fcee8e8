/*
 * journal.c: the journal's native protocol, the sending side.  See
 * journal.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "journal.h"

static bool
key_ok(const char *key, size_t *len)
{
	size_t i;

	if (key == NULL || key[0] == '_' || (key[0] >= '0' && key[0] <= '9'))
		return false;
	for (i = 0; key[i]; i++)
		if (i >= JOURNAL_KEY_MAX ||
		    !((key[i] >= 'A' && key[i] <= 'Z') ||
		        (key[i] >= '0' && key[i] <= '9') || key[i] == '_'))
			return false;
	*len = i;
	return i > 0;
}

int
journal_add(struct journal_rec *r, const char *key, const char *val, size_t n)
{
	size_t klen, room, over;
	bool binary, cut = false;

	if (!key_ok(key, &klen))
		return -EINVAL;
	if (n > JOURNAL_VALUE_MAX) {
		n = JOURNAL_VALUE_MAX;
		cut = true;
	}
	binary = memchr(val, '\n', n) != NULL;
	/* KEY=VALUE\n, or KEY\n + 8 bytes of length + VALUE + \n. */
	over = klen + (binary ? 1 + 8 : 1) + 1;
	room = sizeof(r->buf) - r->len;
	if (over > room) {
		r->cut = true;
		return -E2BIG;
	}
	if (n > room - over) {
		n = room - over;
		cut = true;
		/* The cut may have taken every newline: the plain form is
		 * then shorter still. */
		binary = memchr(val, '\n', n) != NULL;
	}
	memcpy(r->buf + r->len, key, klen);
	r->len += klen;
	if (binary) {
		uint64_t le = 0;

		r->buf[r->len++] = '\n';
		for (int i = 0; i < 8; i++)
			((unsigned char *)&le)[i] =
			    (unsigned char)((uint64_t)n >> (8 * i));
		memcpy(r->buf + r->len, &le, 8);
		r->len += 8;
	} else {
		r->buf[r->len++] = '=';
	}
	memcpy(r->buf + r->len, val, n);
	r->len += n;
	r->buf[r->len++] = '\n';
	if (cut)
		r->cut = true;
	return cut ? 1 : 0;
}

int
journal_add_str(struct journal_rec *r, const char *key, const char *val)
{
	return val ? journal_add(r, key, val, strlen(val)) : 0;
}

int
journal_add_uint(struct journal_rec *r, const char *key, unsigned long v)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%lu", v);

	return journal_add(r, key, b, (size_t)n);
}

int
journal_add_head(struct journal_rec *r, int prio, const char *ident, int pid,
    const char *msg)
{
	int fac = LOG_FAC(prio) ? LOG_FAC(prio) : LOG_FAC(LOG_USER), e;

	if ((e = journal_add_uint(r, "PRIORITY", (unsigned)LOG_PRI(prio))) <
	        0 ||
	    (e = journal_add_uint(r, "SYSLOG_FACILITY", (unsigned)fac)) < 0 ||
	    (e = journal_add_str(r, "SYSLOG_IDENTIFIER", ident)) < 0 ||
	    (e = journal_add_uint(r, "SYSLOG_PID", (unsigned)pid)) < 0)
		return e;
	return journal_add_str(r, "MESSAGE", msg);
}

bool
journal_present(void)
{
	struct stat st;

	return stat(JOURNAL_SOCKET_PATH, &st) == 0 && S_ISSOCK(st.st_mode);
}

int
journal_connect(void)
{
	struct sockaddr_un sa = {
	    .sun_family = AF_UNIX, .sun_path = JOURNAL_SOCKET_PATH};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int
journal_send(int fd, const struct journal_rec *r)
{
	ssize_t n;

	if (fd < 0)
		return -EBADF;
	do
		n = send(fd, r->buf, r->len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == r->len ? 0 : -EMSGSIZE;
}
