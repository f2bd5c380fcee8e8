/*
 * record.c: the gate's records, the one place they are written.  Each
 * decision of the proxy, the capture port and the DNS stub is one call
 * here with what it is about (struct record_conn, the query); the line
 * is formatted once and goes to the journal with its fields where
 * journald runs, else to syslog (authpriv.info), and, with
 * --log-stderr, to stderr.  The second sink, the session's egress
 * record (egress.c), takes the same decisions from these functions,
 * before any rate limit: syslog may drop lines, the record counts all.
 *
 * Connection records are generous (200 lines a second after a burst of
 * 1000), DNS records less so (20 after 100): an agent looping over
 * refusals must not flood syslog.  What a rate limit drops is counted
 * and reported once lines flow again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "journal.h"
#include "log.h"

/* A token bucket: at most rate lines per second after a burst. */
struct rate {
	unsigned rate, burst;
	const char *what;
	double tokens;
	uint64_t last;
	unsigned long dropped;
	bool started;
};

static struct rate conn_rate = {
    .rate = 200, .burst = 1000, .what = "connection"};
static struct rate dns_rate = {.rate = 20, .burst = 100, .what = "DNS query"};

/*
 * Decision records, formatted once.  Where journald's native socket
 * exists (journal.h) each is a journal record: the fields every record
 * of this gate has (PRIORITY, SYSLOG_FACILITY, SYSLOG_IDENTIFIER,
 * SYSLOG_PID, AISB_SESSION, AISB_USER) are built once in rec_jhead,
 * the record's own (MESSAGE, AISB_EVENT, AISB_HOST, AISB_PORT,
 * AISB_RULE, ...) are added to a copy.  Otherwise, or when that send
 * fails: "<PRI>Mmm dd hh:mm:ss aisb-gate[PID]: " (what syslog(3) sends
 * with LOG_PID) is rebuilt once a second, the record is written after
 * it and sent on a datagram socket connected to /dev/log.  Both
 * sockets are connected before the lockdown.  syslog(3) would format
 * the line a second time (vfprintf, strftime), call getpid and check
 * its connection for every record.  When neither socket takes it, the
 * record goes through syslog(3), which keeps trying, and to the
 * session's fallback file when it has one (log.h).
 */
#define REC_PRI (LOG_AUTHPRIV | LOG_INFO)
#define REC_IDENT "aisb-gate"

static int rec_fd = -1, rec_jfd = -1;
static bool rec_stderr;
static pid_t rec_pid;
static time_t rec_sec = -1;
static size_t rec_plen;
static char rec_line[1100];
static struct journal_rec rec_jhead, rec_j;

/* What a record is about, for its journal fields. */
struct rec_about {
	const char *event; /* AISB_EVENT */
	const struct record_conn *c; /* AISB_KIND, _HOST, _PORT, _ADDRESS */
	const char *rule; /* AISB_RULE */
	const char *reason; /* AISB_REASON */
	const char *host; /* AISB_HOST without a connection */
	const char *decision; /* AISB_DECISION (DNS) */
};

static int
rec_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "/dev/log"};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

void
record_open(bool log_stderr, const char *session, const char *user)
{
	struct stat st;

	rec_pid = getpid();
	rec_fd = rec_connect();
	rec_jfd = journal_present() ? journal_connect() : -1;
	journal_rec_init(&rec_jhead);
	if (journal_add_uint(&rec_jhead, "PRIORITY", LOG_PRI(REC_PRI)) < 0 ||
	    journal_add_uint(&rec_jhead, "SYSLOG_FACILITY", LOG_FAC(REC_PRI)) <
	        0 ||
	    journal_add_str(&rec_jhead, "SYSLOG_IDENTIFIER", REC_IDENT) < 0 ||
	    journal_add_uint(&rec_jhead, "SYSLOG_PID", (unsigned long)rec_pid) <
	        0 ||
	    journal_add_str(&rec_jhead, "AISB_SESSION", session) < 0 ||
	    journal_add_str(&rec_jhead, "AISB_USER", user) < 0) {
		close(rec_jfd);
		rec_jfd = -1;
	}
	/* The copy for tests: not worth a write when it goes nowhere. */
	rec_stderr = log_stderr &&
	    !(fstat(2, &st) == 0 && S_ISCHR(st.st_mode) &&
	        st.st_rdev == makedev(1, 3));
}

/* The prefix in rec_line for the current second; its length. */
static size_t
rec_prefix(void)
{
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];
	int n;

	if (now == rec_sec)
		return rec_plen;
	localtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%h %e %T", &tm);
	n = snprintf(rec_line, sizeof(rec_line),
	    "<%d>%s " REC_IDENT "[%d]: ", REC_PRI, ts, (int)rec_pid);
	rec_plen = n > 0 && (size_t)n < 64 ? (size_t)n : 0;
	rec_sec = rec_plen ? now : -1;
	return rec_plen;
}

/* The record to journald: false when it did not get there. */
static bool
rec_journal(const char *msg, size_t len, const struct rec_about *a)
{
	const struct record_conn *c = a->c;

	if (rec_jfd < 0)
		return false;
	memcpy(rec_j.buf, rec_jhead.buf, rec_jhead.len);
	rec_j.len = rec_jhead.len;
	rec_j.cut = false;
	if (journal_add(&rec_j, "MESSAGE", msg, len) < 0)
		return false;
	(void)journal_add_str(&rec_j, "AISB_EVENT", a->event);
	if (c) {
		(void)journal_add_str(&rec_j, "AISB_KIND", c->kind);
		(void)journal_add_str(&rec_j, "AISB_HOST", c->name);
		(void)journal_add_uint(&rec_j, "AISB_PORT", c->port);
		if (c->addr && c->addr[0])
			(void)journal_add_str(&rec_j, "AISB_ADDRESS", c->addr);
	} else
		(void)journal_add_str(&rec_j, "AISB_HOST", a->host);
	(void)journal_add_str(&rec_j, "AISB_RULE", a->rule);
	(void)journal_add_str(&rec_j, "AISB_DECISION", a->decision);
	(void)journal_add_str(&rec_j, "AISB_REASON", a->reason);
	if (journal_send(rec_jfd, &rec_j) == 0)
		return true;
	/* journald restarted: connect again once (this may not work after
	 * the lockdown; /dev/log then takes the record). */
	close(rec_jfd);
	rec_jfd = journal_connect();
	return journal_send(rec_jfd, &rec_j) == 0;
}

/* One line, formatted once; every record goes through here. */
static void line(const struct rec_about *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
line(const struct rec_about *a, const char *fmt, ...)
{
	size_t p = rec_fd >= 0 ? rec_prefix() : 0, len;
	char *msg = rec_line + p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(rec_line) - p, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len = (size_t)n < sizeof(rec_line) - p ? (size_t)n
	                                       : sizeof(rec_line) - p - 1;
	if (rec_journal(msg, len, a))
		;
	else if (rec_fd < 0 || p == 0)
		log_record(LOG_INFO, "%s", msg);
	else if (send(rec_fd, rec_line, p + len, MSG_NOSIGNAL) < 0 &&
	    errno != EINTR) {
		/* syslogd restarted: reconnect once, as syslog(3) does. */
		close(rec_fd);
		rec_fd = rec_connect();
		if (rec_fd < 0 ||
		    send(rec_fd, rec_line, p + len, MSG_NOSIGNAL) < 0)
			log_record(LOG_INFO, "%s", msg);
	}
	if (rec_stderr) {
		struct iovec iov[3] = {
		    {.iov_base = (void *)(uintptr_t)REC_IDENT ": ",
		        .iov_len = sizeof(REC_IDENT ": ") - 1},
		    {.iov_base = msg, .iov_len = len},
		    {.iov_base = (void *)(uintptr_t) "\n", .iov_len = 1},
		};

		(void)!writev(2, iov, 3);
	}
}

#define ABOUT(...) (&(const struct rec_about){__VA_ARGS__})

static bool
rate_ok(struct rate *r)
{
	uint64_t now = loop_now();

	if (!r->started) {
		r->started = true;
		r->tokens = r->burst;
		r->last = now;
	}
	r->tokens += (double)(now - r->last) * r->rate / 1000.0;
	if (r->tokens > r->burst)
		r->tokens = r->burst;
	r->last = now;
	if (r->tokens < 1) {
		r->dropped++;
		return false;
	}
	r->tokens -= 1;
	if (r->dropped) {
		line(ABOUT(.event = "suppressed"),
		    "%lu %s log lines suppressed (rate limit)", r->dropped,
		    r->what);
		r->dropped = 0;
	}
	return true;
}

void
record_ready(const char *session, const char *user, size_t nallow, size_t ndeny)
{
	line(ABOUT(.event = "ready"),
	    "gate ready: session %s, user %s, %zu allow and %zu deny "
	    "entries",
	    session, user, nallow, ndeny);
}

void
record_allow(const struct record_conn *s, const char *why, bool again)
{
	egress_allow(s, why, again);
	if (!rate_ok(&conn_rate))
		return;
	/* Two formats, not a "%s" suffix: one conversion less per record. */
	if (again)
		line(ABOUT(.event = "allow", .c = s, .rule = why),
		    "allow %s name=%s port=%u address=%s rule=\"%s\" "
		    "(keep-alive)",
		    s->kind, s->name, s->port, s->addr, why);
	else
		line(ABOUT(.event = "allow", .c = s, .rule = why),
		    "allow %s name=%s port=%u address=%s rule=\"%s\"", s->kind,
		    s->name, s->port, s->addr, why);
}

void
record_deny(const struct record_conn *s, const char *rule, const char *why)
{
	egress_deny(s, rule, why);
	if (rate_ok(&conn_rate))
		line(
		    ABOUT(.event = "deny", .c = s, .rule = rule, .reason = why),
		    "deny %s name=%s port=%u rule=%s reason=\"%s\"", s->kind,
		    s->name, s->port, rule, why);
}

void
record_deny_nodst(int err)
{
	if (rate_ok(&conn_rate))
		line(ABOUT(.event = "deny"),
		    "deny capture: no original destination (%s)",
		    strerror(err));
}

void
record_refuse(const struct record_conn *s, const char *addr, const char *range)
{
	if (rate_ok(&conn_rate))
		line(
		    ABOUT(.event = "refuse", .c = s, .rule = "special-purpose"),
		    "refuse %s name=%s port=%u address=%s "
		    "reason=\"special-purpose range %s\"",
		    s->kind, s->name, s->port, addr, range);
}

void
record_unreachable(const struct record_conn *s, const char *why)
{
	egress_unreachable(s, why);
	if (rate_ok(&conn_rate))
		line(ABOUT(.event = "unreachable", .c = s, .reason = why),
		    "unreachable %s name=%s port=%u reason=\"%s\"", s->kind,
		    s->name, s->port, why);
}

void
record_close(const struct record_conn *s, unsigned long long up,
    unsigned long long down, uint64_t ms)
{
	egress_close(s, up, down);
	if (rate_ok(&conn_rate))
		line(ABOUT(.event = "close", .c = s),
		    "close %s name=%s port=%u address=%s up=%llu down=%llu "
		    "duration=%llums",
		    s->kind, s->name, s->port, s->addr, up, down,
		    (unsigned long long)ms);
}

void
record_error(const struct record_conn *s, const char *what, int err)
{
	if (rate_ok(&conn_rate))
		line(ABOUT(.event = "error", .c = s, .reason = what),
		    "error %s name=%s port=%u: %s (%s)", s->kind, s->name,
		    s->port, what, strerror(err));
}

void
record_bad_request(const char *kind, const char *name, const char *why)
{
	if (!rate_ok(&conn_rate))
		return;
	if (name)
		line(ABOUT(.event = "bad-request", .host = name, .reason = why),
		    "bad request %s name=%s: %s", kind, name, why);
	else
		line(ABOUT(.event = "bad-request", .reason = why),
		    "bad request %s: %s", kind, why);
}

void
record_refusing(size_t open, size_t limit)
{
	static uint64_t last;

	if (loop_now() - last > 1000) {
		if (rate_ok(&conn_rate))
			line(ABOUT(.event = "refusing"),
			    "refusing connections: %zu open (limit %zu)", open,
			    limit);
		last = loop_now();
	}
}

void
record_suffix_bound(const char *entry, const char *src, unsigned limit)
{
	/* Once per entry and session (suffix.c): no rate limit needed. */
	line(ABOUT(.event = "suffix-bound", .rule = entry),
	    "suffix-bound entry=%s limit=%u: network.allow entry %s (%s) "
	    "has had %u distinct names this session; new names below it "
	    "are refused (network.suffix_names)",
	    entry, limit, entry, src ? src : "?", limit);
}

void
record_inject(const struct record_conn *s, const char *cred, const char *header)
{
	if (rate_ok(&conn_rate))
		line(ABOUT(.event = "inject", .c = s),
		    "inject %s name=%s port=%u credential=%s header=%s",
		    s->kind, s->name, s->port, cred, header);
}

void
record_cred_misuse(
    const struct record_conn *s, const char *cred, const char *why)
{
	if (rate_ok(&conn_rate))
		line(ABOUT(.event = "deny", .c = s, .rule = "credential",
		         .reason = why),
		    "deny %s name=%s port=%u credential=%s reason=\"%s\"",
		    s->kind, s->name, s->port, cred, why);
}

void
record_tls_client(const struct record_conn *s, const char *why)
{
	if (rate_ok(&conn_rate))
		line(ABOUT(.event = "error", .c = s, .reason = why),
		    "error %s name=%s port=%u: %s", s->kind, s->name, s->port,
		    why);
}

void
record_dns(const char *proto, const char *name, uint16_t type,
    const char *decision, uint32_t synth)
{
	char tb[16];

	/* The egress record counts every query, rate limit or not. */
	if (strncmp(decision, "allow", 5) == 0 ||
	    strncmp(decision, "deny", 4) == 0)
		egress_dns(loop_opts() ? loop_opts()->policy : NULL, name,
		    decision[0] == 'a');
	if (!rate_ok(&dns_rate))
		return;
	if (synth)
		line(ABOUT(.event = "dns", .host = name, .decision = decision),
		    "dns %s query name=%s type=%s decision=%s "
		    "address=%u.%u.%u.%u",
		    proto, name, dns_type_name(type, tb, sizeof(tb)), decision,
		    synth >> 24, (synth >> 16) & 0xff, (synth >> 8) & 0xff,
		    synth & 0xff);
	else
		line(ABOUT(.event = "dns", .host = name, .decision = decision),
		    "dns %s query name=%s type=%s decision=%s", proto,
		    name[0] ? name : ".", dns_type_name(type, tb, sizeof(tb)),
		    decision);
}
