/*
 * test_journal.c: the journal's native protocol encoder (lib/journal.c):
 * plain and length-prefixed fields, the key rules, the value and record
 * caps, and one record as one datagram.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "journal.h"
#include "tap.h"

/* The value of key in rec (decoding both forms) into out; its length,
 * or -1 when absent or malformed. */
static long
field(const struct journal_rec *r, const char *key, char *out, size_t cap)
{
	size_t i = 0, klen = strlen(key);

	while (i < r->len) {
		const char *p = r->buf + i, *nl, *eq;
		size_t rest = r->len - i, n;

		nl = memchr(p, '\n', rest);
		if (nl == NULL)
			return -1;
		eq = memchr(p, '=', (size_t)(nl - p));
		if (eq) {
			n = (size_t)(nl - eq - 1);
			if ((size_t)(eq - p) == klen &&
			    memcmp(p, key, klen) == 0) {
				if (n >= cap)
					return -1;
				memcpy(out, eq + 1, n);
				out[n] = '\0';
				return (long)n;
			}
			i += (size_t)(nl - p) + 1;
			continue;
		}
		/* KEY\n, 8 bytes little-endian, the value, \n */
		{
			const unsigned char *lb = (const unsigned char *)nl + 1;
			uint64_t len = 0;
			size_t head = (size_t)(nl - p) + 1 + 8;

			if (rest < head)
				return -1;
			for (int b = 7; b >= 0; b--)
				len = len << 8 | lb[b];
			if (rest < head + len + 1 || p[head + len] != '\n')
				return -1;
			if ((size_t)(nl - p) == klen &&
			    memcmp(p, key, klen) == 0) {
				if (len >= cap)
					return -1;
				memcpy(out, p + head, len);
				out[len] = '\0';
				return (long)len;
			}
			i += head + len + 1;
		}
	}
	return -1;
}

TEST(plain)
{
	struct journal_rec r;
	char v[4096];

	journal_rec_init(&r);
	is_int(journal_add_str(&r, "MESSAGE", "session start id=1"), 0,
	    "a plain field is added whole");
	is_int(journal_add_uint(&r, "AISB_PORT", 443), 0, "a number");
	ok(r.len == strlen("MESSAGE=session start id=1\nAISB_PORT=443\n") &&
	        memcmp(r.buf, "MESSAGE=session start id=1\nAISB_PORT=443\n",
	            r.len) == 0,
	    "KEY=VALUE lines, each ending in a newline");
	is_int(field(&r, "AISB_PORT", v, sizeof(v)), 3, "read back");
	is_str(v, "443", "... the same value");
	is_int(journal_add_str(&r, "AISB_EMPTY", ""), 0, "an empty value");
	is_int(field(&r, "AISB_EMPTY", v, sizeof(v)), 0, "... read back empty");
	is_int(journal_add_str(&r, "AISB_NONE", NULL), 0,
	    "a NULL value adds nothing");
	is_int(field(&r, "AISB_NONE", v, sizeof(v)), -1, "... and is absent");
	ok(!r.cut, "nothing was cut");
}

TEST(binary)
{
	static const char val[] = "two\nlines=and an equals";
	struct journal_rec r;
	char v[256];
	uint64_t le;

	journal_rec_init(&r);
	is_int(journal_add_str(&r, "MESSAGE", val), 0,
	    "a value with a newline is added");
	ok(memcmp(r.buf, "MESSAGE\n", 8) == 0,
	    "its key ends in a newline, not '='");
	memcpy(&le, r.buf + 8, 8);
	ok(((const unsigned char *)r.buf)[8] == sizeof(val) - 1 &&
	        r.buf[9] == 0 && r.buf[15] == 0,
	    "then its length, 64 bits little-endian");
	is_int(r.len, 8 + 8 + sizeof(val) - 1 + 1,
	    "then the value and one newline");
	ok(r.buf[r.len - 1] == '\n', "... which ends the field");
	(void)journal_add_str(&r, "AISB_AFTER", "x");
	is_int(field(&r, "MESSAGE", v, sizeof(v)), (long)sizeof(val) - 1,
	    "decoded back whole");
	is_str(v, val, "... the same bytes");
	is_int(field(&r, "AISB_AFTER", v, sizeof(v)), 1,
	    "a field after it is still found");
	/* A value that would forge a field in the plain form cannot. */
	journal_rec_init(&r);
	(void)journal_add_str(&r, "AISB_HOST", "a.test\nAISB_RULE=allow");
	is_int(field(&r, "AISB_RULE", v, sizeof(v)), -1,
	    "a newline in a value forges no field");
}

TEST(keys)
{
	static const char *bad[] = {"", "_PID", "1AISB", "aisb_x", "AISB-X",
	    "AISB X", "AISB=X",
	    "A234567890123456789012345678901234567890123456789012345678901234"
	    "5"};
	struct journal_rec r;

	journal_rec_init(&r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(journal_add_str(&r, bad[i], "v"), -EINVAL,
		    "key '%.20s' refused", bad[i]);
	is_int(r.len, 0, "... and nothing added");
	is_int(journal_add_str(&r,
	           "A23456789012345678901234567890123456789012345678901234567"
	           "8901234",
	           "v"),
	    0, "a 64-byte key is fine");
}

TEST(caps)
{
	static char big[3 * JOURNAL_VALUE_MAX];
	struct journal_rec r;
	char v[JOURNAL_REC_MAX];
	int rc, added = 0;

	memset(big, 'x', sizeof(big) - 1);
	journal_rec_init(&r);
	is_int(journal_add_str(&r, "MESSAGE", big), 1,
	    "a value over JOURNAL_VALUE_MAX is cut (1)");
	ok(r.cut, "... and the record says so");
	is_int(field(&r, "MESSAGE", v, sizeof(v)), JOURNAL_VALUE_MAX,
	    "... to JOURNAL_VALUE_MAX bytes");
	/* Fill the record: it never passes JOURNAL_REC_MAX. */
	while ((rc = journal_add_str(&r, "AISB_FILL", big)) >= 0 && added < 20)
		added++;
	is_int(rc, -E2BIG, "once full, a field is refused (-E2BIG)");
	ok(added >= 2 && added < 5, "after a few cut fields (%d)", added);
	ok(r.len <= JOURNAL_REC_MAX, "the record stays within %d bytes (%zu)",
	    JOURNAL_REC_MAX, r.len);
	ok(r.len >= JOURNAL_REC_MAX - 16, "... and uses it (%zu)", r.len);
	ok(r.buf[r.len - 1] == '\n', "the last field is whole");
	/* A binary value cut at the edge keeps its length right. */
	journal_rec_init(&r);
	memset(big, 'y', sizeof(big) - 1);
	big[10] = '\n';
	(void)journal_add(&r, "MESSAGE", big, JOURNAL_VALUE_MAX);
	(void)journal_add(&r, "AISB_A", big, JOURNAL_VALUE_MAX);
	(void)journal_add(&r, "AISB_B", big, JOURNAL_VALUE_MAX);
	rc = journal_add(&r, "AISB_C", big, JOURNAL_VALUE_MAX);
	is_int(rc, 1, "the last binary value that fits is cut");
	ok(field(&r, "AISB_C", v, sizeof(v)) > 0 &&
	        field(&r, "MESSAGE", v, sizeof(v)) == JOURNAL_VALUE_MAX,
	    "... and the record still decodes");
	ok(r.len <= JOURNAL_REC_MAX, "... within the cap (%zu)", r.len);
}

TEST(head)
{
	struct journal_rec r;
	char v[64];

	journal_rec_init(&r);
	is_int(journal_add_head(
	           &r, LOG_AUTHPRIV | LOG_WARNING, "aisb-shell", 42, "hello"),
	    0, "the head fields");
	is_int(field(&r, "PRIORITY", v, sizeof(v)), 1, "PRIORITY");
	is_str(v, "4", "... the level alone (warning)");
	(void)field(&r, "SYSLOG_FACILITY", v, sizeof(v));
	is_str(v, "10", "SYSLOG_FACILITY authpriv (10)");
	(void)field(&r, "SYSLOG_IDENTIFIER", v, sizeof(v));
	is_str(v, "aisb-shell", "SYSLOG_IDENTIFIER");
	(void)field(&r, "SYSLOG_PID", v, sizeof(v));
	is_str(v, "42", "SYSLOG_PID");
	(void)field(&r, "MESSAGE", v, sizeof(v));
	is_str(v, "hello", "MESSAGE");
	journal_rec_init(&r);
	(void)journal_add_head(&r, LOG_INFO, "x", 1, "m");
	(void)field(&r, "SYSLOG_FACILITY", v, sizeof(v));
	is_str(v, "1", "no facility given: user (1)");
}

TEST(send)
{
	struct journal_rec r;
	char got[JOURNAL_REC_MAX + 16];
	int sv[2];
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		ok(0, "socketpair: %s", strerror(errno));
		return;
	}
	journal_rec_init(&r);
	(void)journal_add_head(&r, LOG_AUTHPRIV | LOG_INFO, "aisb-gate", 7,
	    "deny proxy name=a.test");
	(void)journal_add_str(&r, "AISB_HOST", "a.test");
	is_int(journal_send(sv[0], &r), 0, "sent");
	n = recv(sv[1], got, sizeof(got), MSG_DONTWAIT);
	ok(n == (ssize_t)r.len && memcmp(got, r.buf, r.len) == 0,
	    "one datagram, the record exactly (%zd bytes)", n);
	n = recv(sv[1], got, sizeof(got), MSG_DONTWAIT);
	ok(n < 0 && errno == EAGAIN, "and nothing more");
	close(sv[1]);
	ok(journal_send(sv[0], &r) < 0, "a send to a closed peer fails");
	close(sv[0]);
	is_int(journal_send(-1, &r), -EBADF, "no socket: -EBADF");
}

int
main(void)
{
	RUN(plain);
	RUN(binary);
	RUN(keys);
	RUN(caps);
	RUN(head);
	RUN(send);
	return tap_done();
}
