/*
 * egress.c: the session's egress record, kept by the gate.
 *
 * record.c hands every decision here as well as to syslog.  Per name
 * and port (port 0: DNS lookups of the name) the gate keeps the first
 * and last time, how many connections were allowed, refused or failed,
 * the last rule and its sentence, the connections open and the bytes
 * each way, and sends each changed entry to aisb-shell over fd 4 (a
 * SOCK_SEQPACKET socket aisb-shell gave it before the lockdown: the gate
 * has no file system), which keeps the session's file in the registry
 * (shell/sessrec.c, docs/architecture.md "The session registry").
 *
 * Bounded: at most GATE_EGRESS_MAX entries; a decision about a name and
 * port that no longer fits is only counted ("dropped"), so 100 000
 * refused names cost the same as 2048.  Nothing here ever blocks the
 * gate: a message aisb-shell has no room for stays queued (an entry
 * stays dirty and goes with the next tick).
 *
 * Notices: the first refusal of a name (proxy, capture or DNS), and the
 * first failed lookup of an allowed name, become one "notice" message,
 * which aisb-shell writes on the session's stderr.  Once per name, at
 * most NOTICE_BURST at once and then one every NOTICE_EVERY_MS; what the
 * limit holds back is counted and reported.  network.notices = false
 * turns them off (the record stays).
 *
 * Messages (lib/kvline.h), one per packet:
 *   egress name= port= via= rule= allowed= denied= failed= lookups=
 *          open= up= down= first= last= why=
 *   notice kind=deny|unresolved|unreachable name= port= rule= why=
 *   totals open= up= down= hidden=
 *   dropped denied= other=
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "kvline.h"

#define BUCKETS 4096 /* power of two, > GATE_EGRESS_MAX */
#define NOTICE_BURST 16
#define NOTICE_EVERY_MS 2000
#define NOTICE_QUEUE 32
#define TOTALS_EVERY_MS 1000
/* How long egress_finish() waits for room for each last message. */
#define FINISH_SEND_S 2
#define WHY_MAX 200
/* A rule's name ("network.suffix_names" is the longest), cut short. */
#define RULE_MAX 24

enum { VIA_PROXY = 1, VIA_CAPTURE = 2, VIA_DNS = 4 };

struct ent {
	struct ent *next; /* hash chain */
	struct ent *dnext; /* dirty list */
	time_t first, last;
	unsigned long long up, down;
	unsigned long allowed, denied, failed, lookups, open;
	uint16_t port;
	uint8_t via;
	bool dirty, noticed;
	char rule[RULE_MAX];
	char *why;
	char name[];
};

struct notice {
	const char *kind;
	char name[HOST_MAX + 1];
	uint16_t port;
	char rule[RULE_MAX];
	char why[WHY_MAX];
};

static int rec_fd = -1;
static bool notices_on;
static struct ent **tab;
static size_t nents;
static struct ent *dirty;
static struct notice queue[NOTICE_QUEUE];
static size_t qhead, qlen;
static double tokens = NOTICE_BURST;
static uint64_t tokens_at;
static unsigned long long hidden, drop_denied, drop_other;
static unsigned long long closed_up, closed_down;
static bool totals_dirty, drop_dirty;
static uint64_t totals_at;
static char sent_totals[256];

void
egress_open(int fd, bool notices)
{
	rec_fd = fd;
	notices_on = notices;
}

static uint32_t
hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* A name as the record keeps it: canonical when it is a host name, else
 * lower-case with anything but [a-z0-9._:-] as '?'. */
static void
record_name(const char *in, char out[HOST_MAX + 1])
{
	const char *why;
	size_t i;

	if (in[0] && hostpat_canon(in, strlen(in), false, out, &why) == 0)
		return;
	for (i = 0; i < HOST_MAX && in[i]; i++) {
		char c =
		    in[i] >= 'A' && in[i] <= 'Z' ? (char)(in[i] + 32) : in[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		        (c != '\0' && strchr("._:-", c))
		    ? c
		    : '?';
	}
	out[i] = '\0';
	if (i == 0)
		snprintf(out, HOST_MAX + 1, ".");
}

/* The entry for name and port, made when missing; NULL when the table
 * is full (or out of memory). */
static struct ent *
lookup(const char *name, uint16_t port, bool *noticed)
{
	uint32_t b = hash(name) & (BUCKETS - 1);
	struct ent *e, *found = NULL;
	size_t len;

	*noticed = false;
	if (tab == NULL && (tab = calloc(BUCKETS, sizeof(*tab))) == NULL)
		return NULL;
	/* The whole chain: a notice is once per name, whatever the port. */
	for (e = tab[b]; e; e = e->next) {
		if (strcmp(e->name, name) != 0)
			continue;
		*noticed |= e->noticed;
		if (e->port == port)
			found = e;
	}
	if (found)
		return found;
	if (nents >= GATE_EGRESS_MAX)
		return NULL;
	len = strlen(name);
	e = calloc(1, sizeof(*e) + len + 1);
	if (e == NULL)
		return NULL;
	memcpy(e->name, name, len + 1);
	e->port = port;
	e->first = time(NULL);
	e->next = tab[b];
	tab[b] = e;
	nents++;
	return e;
}

static void
touch(struct ent *e, uint8_t via, const char *rule, const char *why)
{
	e->last = time(NULL);
	e->via |= via;
	if (rule)
		snprintf(e->rule, sizeof(e->rule), "%s", rule);
	if (why && (e->why == NULL || strcmp(e->why, why) != 0)) {
		size_t n = strnlen(why, WHY_MAX - 1);
		char *w = realloc(e->why, n + 1);

		if (w) {
			memcpy(w, why, n);
			w[n] = '\0';
			e->why = w;
		}
	}
	if (!e->dirty) {
		e->dirty = true;
		e->dnext = dirty;
		dirty = e;
	}
	totals_dirty = true;
}

static uint8_t
via_of(const char *kind)
{
	return strcmp(kind, "capture") == 0 ? VIA_CAPTURE : VIA_PROXY;
}

/* ---- sending ---- */

/* One message; false when aisb-shell has no room now (or is gone). */
static bool
put(const char *msg)
{
	ssize_t n;

	if (rec_fd < 0)
		return false;
	n = send(rec_fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n >= 0)
		return true;
	if (errno != EAGAIN && errno != EINTR && errno != ENOBUFS) {
		/* aisb-shell is gone: nobody to tell any more. */
		close(rec_fd);
		rec_fd = -1;
	}
	return false;
}

static bool
send_ent(const struct ent *e)
{
	static const char *const vias[8] = {"", "proxy", "capture",
	    "proxy,capture", "dns", "proxy,dns", "capture,dns",
	    "proxy,capture,dns"};
	char m[KVLINE_MAX];

	snprintf(m, sizeof(m), "egress");
	if (!kvline_add(m, sizeof(m), "name", e->name) ||
	    !kvline_add_u64(m, sizeof(m), "port", e->port) ||
	    !kvline_add(m, sizeof(m), "via", vias[e->via & 7]) ||
	    !kvline_add(m, sizeof(m), "rule", e->rule) ||
	    !kvline_add_u64(m, sizeof(m), "allowed", e->allowed) ||
	    !kvline_add_u64(m, sizeof(m), "denied", e->denied) ||
	    !kvline_add_u64(m, sizeof(m), "failed", e->failed) ||
	    !kvline_add_u64(m, sizeof(m), "lookups", e->lookups) ||
	    !kvline_add_u64(m, sizeof(m), "open", e->open) ||
	    !kvline_add_u64(m, sizeof(m), "up", e->up) ||
	    !kvline_add_u64(m, sizeof(m), "down", e->down) ||
	    !kvline_add_u64(m, sizeof(m), "first", (uint64_t)e->first) ||
	    !kvline_add_u64(m, sizeof(m), "last", (uint64_t)e->last) ||
	    !kvline_add(m, sizeof(m), "why", e->why ? e->why : ""))
		return true; /* cannot happen (bounded fields): skip it */
	return put(m);
}

static bool
send_notice(const struct notice *n)
{
	char m[KVLINE_MAX];

	snprintf(m, sizeof(m), "notice");
	if (!kvline_add(m, sizeof(m), "kind", n->kind) ||
	    !kvline_add(m, sizeof(m), "name", n->name) ||
	    !kvline_add_u64(m, sizeof(m), "port", n->port) ||
	    !kvline_add(m, sizeof(m), "rule", n->rule) ||
	    !kvline_add(m, sizeof(m), "why", n->why))
		return true;
	return put(m);
}

static void
flush_notices(void)
{
	while (qlen > 0 && send_notice(&queue[qhead])) {
		qhead = (qhead + 1) % NOTICE_QUEUE;
		qlen--;
	}
}

static void
flush_entries(void)
{
	while (dirty && rec_fd >= 0) {
		struct ent *e = dirty;

		if (!send_ent(e))
			return;
		dirty = e->dnext;
		e->dnext = NULL;
		e->dirty = false;
	}
}

static void
flush_counts(bool force)
{
	char m[256];
	size_t open = 0;
	unsigned long long up = 0, down = 0;

	if (drop_dirty) {
		snprintf(m, sizeof(m), "dropped");
		if (kvline_add_u64(m, sizeof(m), "denied", drop_denied) &&
		    kvline_add_u64(m, sizeof(m), "other", drop_other) && put(m))
			drop_dirty = false;
	}
	if (!force && loop_now() - totals_at < TOTALS_EVERY_MS)
		return;
	conn_totals(&open, &up, &down);
	snprintf(m, sizeof(m), "totals");
	if (!kvline_add_u64(m, sizeof(m), "open", open) ||
	    !kvline_add_u64(m, sizeof(m), "up", closed_up + up) ||
	    !kvline_add_u64(m, sizeof(m), "down", closed_down + down) ||
	    !kvline_add_u64(m, sizeof(m), "hidden", hidden))
		return;
	/* Live bytes change without a decision: compare, not a flag. */
	if ((totals_dirty || strcmp(m, sent_totals) != 0) && put(m)) {
		snprintf(sent_totals, sizeof(sent_totals), "%s", m);
		totals_dirty = false;
	}
	totals_at = loop_now();
}

void
egress_tick(uint64_t now)
{
	(void)now;
	if (rec_fd < 0)
		return;
	flush_notices();
	flush_entries();
	flush_counts(false);
}

void
egress_finish(void)
{
	struct timeval tv = {FINISH_SEND_S, 0};
	int fl;

	if (rec_fd >= 0) {
		/* At the end aisb-shell reads until we close: wait for room
		 * (bounded), so that the whole record reaches it. */
		fl = fcntl(rec_fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(rec_fd, F_SETFL, fl & ~O_NONBLOCK);
		(void)setsockopt(
		    rec_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		flush_notices();
		flush_entries();
		flush_counts(true);
		close(rec_fd);
		rec_fd = -1;
	}
	if (tab) {
		for (size_t b = 0; b < BUCKETS; b++)
			while (tab[b]) {
				struct ent *e = tab[b];

				tab[b] = e->next;
				free(e->why);
				free(e);
			}
		free(tab);
		tab = NULL;
	}
	nents = 0;
	dirty = NULL;
}

/* ---- notices ---- */

static bool
notice_token(void)
{
	uint64_t now = loop_now();

	tokens += (double)(now - tokens_at) / NOTICE_EVERY_MS;
	tokens_at = now;
	if (tokens > NOTICE_BURST)
		tokens = NOTICE_BURST;
	if (tokens < 1)
		return false;
	tokens -= 1;
	return true;
}

/* The first notice about a name (e: its entry, NULL when the table is
 * full; noticed: the name had one already). */
static void
notice(struct ent *e, bool noticed, const char *kind, uint16_t port,
    const char *rule, const char *why)
{
	struct notice *n;

	if (!notices_on || noticed)
		return;
	if (e == NULL || qlen == NOTICE_QUEUE || !notice_token()) {
		hidden++;
		totals_dirty = true;
		return;
	}
	e->noticed = true;
	n = &queue[(qhead + qlen) % NOTICE_QUEUE];
	qlen++;
	n->kind = kind;
	snprintf(n->name, sizeof(n->name), "%s", e->name);
	n->port = port;
	snprintf(n->rule, sizeof(n->rule), "%s", rule ? rule : "");
	snprintf(n->why, sizeof(n->why), "%s", why ? why : "");
	flush_notices();
}

/* ---- what record.c hands over ---- */

/* The entry for the connection s (its name as the record keeps it, and
 * its port); NULL when the table is full, and then the decision is
 * counted in *dropped. */
static struct ent *
conn_ent(
    const struct record_conn *s, unsigned long long *dropped, bool *noticed)
{
	char name[HOST_MAX + 1];
	struct ent *e;

	record_name(s->name, name);
	e = lookup(name, (uint16_t)s->port, noticed);
	if (e == NULL) {
		(*dropped)++;
		drop_dirty = true;
	}
	return e;
}

void
egress_allow(const struct record_conn *s, const char *why, bool again)
{
	bool noticed;
	struct ent *e;

	e = conn_ent(s, &drop_other, &noticed);
	if (e == NULL)
		return;
	if (!again) {
		e->allowed++;
		e->open++;
	}
	touch(e, via_of(s->kind), "network.allow", why);
}

void
egress_deny(const struct record_conn *s, const char *rule, const char *why)
{
	bool noticed;
	struct ent *e;

	e = conn_ent(s, &drop_denied, &noticed);
	if (e == NULL) {
		notice(NULL, false, "deny", 0, rule, NULL);
		return;
	}
	e->denied++;
	touch(e, via_of(s->kind), rule, why);
	notice(e, noticed, "deny", (uint16_t)s->port, rule, why);
}

void
egress_unreachable(const struct record_conn *s, const char *why)
{
	bool noticed, unresolved;
	struct ent *e;

	e = conn_ent(s, &drop_other, &noticed);
	if (e == NULL) {
		notice(NULL, false, "unreachable", 0, NULL, NULL);
		return;
	}
	e->failed++;
	unresolved = strstr(why, RESOLV_NXDOMAIN) || strstr(why, RESOLV_NODATA);
	touch(
	    e, via_of(s->kind), unresolved ? "unresolved" : "unreachable", why);
	notice(e, noticed, unresolved ? "unresolved" : "unreachable",
	    (uint16_t)s->port, e->rule, why);
}

void
egress_close(
    const struct record_conn *s, unsigned long long up, unsigned long long down)
{
	char name[HOST_MAX + 1];
	bool noticed;
	struct ent *e;

	closed_up += up;
	closed_down += down;
	totals_dirty = true;
	record_name(s->name, name);
	e = lookup(name, (uint16_t)s->port, &noticed);
	if (e == NULL)
		return;
	if (e->open > 0)
		e->open--;
	e->up += up;
	e->down += down;
	touch(e, 0, NULL, NULL);
}

void
egress_dns(const struct aisb_policy *p, const char *qname, bool allowed)
{
	char name[HOST_MAX + 1];
	const char *rule = "network.allow";
	bool noticed;
	struct ent *e;

	record_name(qname, name);
	if (!allowed && p)
		(void)decide_name(p, name, &rule);
	if (!allowed && hostpat_is_ip_literal(qname, strlen(qname)))
		rule = "ip-literal";
	e = lookup(name, 0, &noticed);
	if (e == NULL) {
		if (allowed) {
			drop_other++;
		} else {
			drop_denied++;
			notice(NULL, false, "deny", 0, rule, NULL);
		}
		drop_dirty = true;
		return;
	}
	if (allowed)
		e->lookups++;
	else
		e->denied++;
	touch(e, VIA_DNS, allowed ? "network.allow" : rule, NULL);
	if (!allowed)
		notice(e, noticed, "deny", 0, rule, NULL);
}
