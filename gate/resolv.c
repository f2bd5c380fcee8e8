/*
 * resolv.c: the gate's own DNS client, so that no lookup ever blocks
 * the event loop (getaddrinfo would) and so that the addresses a
 * connection uses are exactly the ones it checked.
 *
 * One lookup per connection (connections that want the same name at
 * the same time share it and its answer): A and AAAA over a connected UDP
 * socket per server (random ids, random source port, the question must
 * match), TCP when an answer is truncated, gives up at GATE_RESOLVE_MS.
 *
 * Servers: network.resolver, or the first GATE_MAX_NS nameservers of
 * resolv.conf, in order.  Each query starts on the first; it moves to
 * the next usable server when the one it waits on does not answer in
 * 1 s (1.5 s once asked before: round the list again, and with one
 * server plain retransmits at 1 s and 2.5 s), is port-unreachable,
 * answers SERVFAIL, REFUSED or NOTIMP, or truncates and then fails
 * over TCP (or is slow there while another server is left).  A late answer from
 * a server asked earlier still counts.  Answers are cached for their TTL (at
 * most GATE_CACHE_TTL_MAX); a connection never looks a name up twice.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "gate.h"

struct resolv {
	struct ev ev_udp[GATE_MAX_NS], ev_tcp;
	struct conn **waiters; /* connections waiting for this lookup */
	size_t nwait, capwait;
	bool dead;
	char name[HOST_MAX + 1];
	int ufd[GATE_MAX_NS], tfd; /* one connected UDP socket per server */
	uint16_t id[2];
	bool done[2], want_tcp[2];
	int srv[2]; /* the server query i waits on (UDP, or TCP if want_tcp) */
	unsigned sent[2]; /* servers asked query i (bit k: server k) */
	unsigned bad[2]; /* servers that failed query i */
	unsigned down; /* servers not to use: port unreachable, no socket */
	unsigned refused; /* ICMP port unreachable seen */
	int fail_rcode; /* the last SERVFAIL/REFUSED/NOTIMP seen */
	bool tcp_broke; /* a truncated answer whose TCP retry failed */
	int tcp_idx; /* which query the TCP socket carries */
	struct dns_addr addrs[2][GATE_MAX_ADDRS];
	size_t n[2];
	int rcode[2]; /* -1: no answer (yet) */
	uint32_t ttl;
	uint64_t start, next_retx[2];
	uint8_t tq[2 + 300];
	size_t tqlen, tqsent;
	uint8_t tbuf[2 + 16384];
	size_t thave;
	struct resolv *next;
};

struct cache_ent {
	char name[HOST_MAX + 1];
	struct dns_addr addrs[GATE_MAX_ADDRS];
	size_t n;
	uint64_t expires;
};

static const uint16_t qtypes[2] = {DNS_T_A, DNS_T_AAAA};
static struct resolv *all;
static struct cache_ent *cache;
static size_t ncache;

/* One address (v4 or v6 literal, no scope) with a port. */
static int
parse_addr(const char *s, unsigned long port, struct sockaddr_storage *ss,
    socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
		return 0;
	}
	return -EINVAL;
}

int
resolv_parse_conf(const char *text, const char *override,
    struct sockaddr_storage ss[GATE_MAX_NS], socklen_t len[GATE_MAX_NS])
{
	char buf[128];
	const char *line;
	unsigned long port = 53;
	int n = 0;

	buf[0] = '\0';
	if (override && *override) {
		const char *c = strrchr(override, ':');

		if (override[0] == '[') {
			const char *e = strchr(override, ']');

			if (e == NULL || (size_t)(e - override) >= sizeof(buf))
				return -EINVAL;
			memcpy(buf, override + 1, (size_t)(e - override - 1));
			buf[e - override - 1] = '\0';
			c = e[1] == ':' ? e + 1 : NULL;
			if (e[1] != '\0' && c == NULL)
				return -EINVAL;
		} else if (c && strchr(override, ':') == c) {
			if ((size_t)(c - override) >= sizeof(buf))
				return -EINVAL;
			memcpy(buf, override, (size_t)(c - override));
			buf[c - override] = '\0';
		} else {
			snprintf(buf, sizeof(buf), "%s", override);
			c = NULL;
		}
		if (c) {
			char *end;

			port = strtoul(c + 1, &end, 10);
			if (*end || port == 0 || port > 65535)
				return -EINVAL;
		}
		/* One address: network.resolver names a single server. */
		return parse_addr(buf, port, &ss[0], &len[0]) < 0 ? -EINVAL : 1;
	}
	/*
	 * As glibc reads it: the first GATE_MAX_NS (MAXNS) nameserver lines
	 * that hold an address, in order; others are ignored; none means
	 * 127.0.0.1.
	 */
	for (line = text; line && *line && n < GATE_MAX_NS;) {
		const char *eol = strchr(line, '\n');
		size_t l = eol ? (size_t)(eol - line) : strlen(line);

		if (l > 11 && strncmp(line, "nameserver", 10) == 0 &&
		    (line[10] == ' ' || line[10] == '\t')) {
			const char *v = line + 11;
			size_t vl;

			while (*v == ' ' || *v == '\t')
				v++;
			vl = strcspn(v, " \t\n#;%");
			if (vl > 0 && vl < sizeof(buf)) {
				memcpy(buf, v, vl);
				buf[vl] = '\0';
				if (parse_addr(buf, 53, &ss[n], &len[n]) == 0)
					n++;
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	if (n == 0 && parse_addr("127.0.0.1", 53, &ss[0], &len[0]) == 0)
		n = 1;
	return n;
}

static struct cache_ent *
cache_find(const char *name)
{
	uint64_t now = loop_now();

	for (size_t i = 0; i < ncache; i++)
		if (cache[i].expires > now && strcmp(cache[i].name, name) == 0)
			return &cache[i];
	return NULL;
}

static void
cache_put(
    const char *name, const struct dns_addr *addrs, size_t n, uint32_t ttl)
{
	uint64_t now = loop_now();
	struct cache_ent *e = NULL;

	if (ttl == 0 || n == 0)
		return;
	if (ttl > GATE_CACHE_TTL_MAX)
		ttl = GATE_CACHE_TTL_MAX;
	if (cache == NULL &&
	    (cache = calloc(GATE_CACHE_MAX, sizeof(*cache))) == NULL)
		return;
	/* Reuse the same name's slot, an expired one, or the oldest. */
	for (size_t i = 0; i < ncache; i++)
		if (strcmp(cache[i].name, name) == 0 ||
		    cache[i].expires <= now) {
			e = &cache[i];
			break;
		}
	if (e == NULL && ncache < GATE_CACHE_MAX)
		e = &cache[ncache++];
	if (e == NULL) {
		e = &cache[0];
		for (size_t i = 1; i < ncache; i++)
			if (cache[i].expires < e->expires)
				e = &cache[i];
	}
	snprintf(e->name, sizeof(e->name), "%s", name);
	memcpy(e->addrs, addrs, n * sizeof(*addrs));
	e->n = n;
	e->expires = now + (uint64_t)ttl * 1000;
}

static size_t
nservers(void)
{
	return loop_opts()->nresolver;
}

/* This lookup's socket to server k, opened when first needed. */
static int
open_udp(struct resolv *r, int k)
{
	const struct gate_opts *o = loop_opts();
	int fd;

	if (r->ufd[k] >= 0)
		return 0;
	fd = socket(o->resolver[k].ss_family,
	    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Connected: the kernel drops datagrams from any other source. */
	if (connect(fd, (const struct sockaddr *)&o->resolver[k],
	        o->resolver_len[k]) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	r->ev_udp[k].kind = EV_RESOLV;
	r->ev_udp[k].obj = r;
	if (loop_add(fd, EPOLLIN | EPOLLET, &r->ev_udp[k]) < 0) {
		close(fd);
		return -ENOMEM;
	}
	r->ufd[k] = fd;
	return 0;
}

static void
server_refused(struct resolv *r, int k)
{
	r->refused |= 1u << k;
	r->down |= 1u << k;
}

static int
send_query(struct resolv *r, int i, int k)
{
	uint8_t q[300];
	int l, e;

	if ((e = open_udp(r, k)) < 0) {
		r->down |= 1u << k;
		return e;
	}
	l = dns_build_query(r->name, qtypes[i], r->id[i], q, sizeof(q));
	if (l < 0)
		return l;
	r->sent[i] |= 1u << k;
	/* A pending ICMP error is reported (once) by send or recv. */
	if (send(r->ufd[k], q, (size_t)l, MSG_DONTWAIT) < 0 &&
	    errno == ECONNREFUSED) {
		server_refused(r, k);
		return -ECONNREFUSED;
	}
	return 0;
}

/*
 * The server to ask query i after server 'from', in resolv.conf order,
 * wrapping around (to 'from' itself too when self); -1 when every
 * server is down or has failed this query.
 */
static int
next_srv(const struct resolv *r, int i, int from, bool self)
{
	size_t n = nservers();

	for (size_t s = 1; s <= n; s++) {
		int k = (int)(((size_t)from + s) % n);

		if (k == from && !self)
			break;
		if (!(r->down & 1u << k) && !(r->bad[i] & 1u << k))
			return k;
	}
	return -1;
}

/*
 * Send query i to server k, or to the next usable one when that fails;
 * with none left the query is done without an answer.
 */
static void
ask(struct resolv *r, int i, int k)
{
	bool again = false;

	while (k >= 0) {
		again = r->sent[i] & 1u << k;
		if (send_query(r, i, k) == 0)
			break;
		r->bad[i] |= 1u << k;
		k = next_srv(r, i, k, false);
	}
	if (k < 0) {
		r->done[i] = true;
		return;
	}
	r->srv[i] = k;
	/* 1 s for a server's first try, 1.5 s for a retransmit. */
	r->next_retx[i] = loop_now() + (again ? 1500 : 1000);
}

/* Queries waiting on a server that went down move to the next one. */
static void
reroute(struct resolv *r)
{
	bool again = true;

	while (again) {
		again = false;
		for (int i = 0; i < 2; i++)
			if (!r->done[i] && !r->want_tcp[i] &&
			    (r->down & 1u << r->srv[i])) {
				ask(r, i, next_srv(r, i, r->srv[i], false));
				again = true;
			}
	}
}

/* Close the sockets; the lookup is freed by the next tick. */
static void
stop(struct resolv *r)
{
	if (r->dead)
		return;
	r->dead = true;
	for (int k = 0; k < GATE_MAX_NS; k++)
		if (r->ufd[k] >= 0)
			close(r->ufd[k]);
	if (r->tfd >= 0)
		close(r->tfd);
	for (int k = 0; k < GATE_MAX_NS; k++)
		r->ufd[k] = -1;
	r->tfd = -1;
}

static unsigned
popcount(unsigned v)
{
	return (unsigned)__builtin_popcount(v);
}

/* Why a lookup that ended by itself has no address, for the 502. */
static const char *
why_empty(const struct resolv *r, char *buf, size_t len)
{
	unsigned asked = r->sent[0] | r->sent[1];
	const char *why;

	if (r->rcode[0] == DNS_R_NXDOMAIN || r->rcode[1] == DNS_R_NXDOMAIN)
		return RESOLV_NXDOMAIN;
	if (r->rcode[0] >= 0 || r->rcode[1] >= 0)
		return RESOLV_NODATA;
	if (asked != 0 && (asked & ~r->refused) == 0)
		why = "the resolver is not answering (port unreachable)";
	else if (r->fail_rcode == DNS_R_SERVFAIL)
		why = "the resolver failed to answer (SERVFAIL)";
	else if (r->fail_rcode == DNS_R_REFUSED)
		why = "the resolver refused to answer (REFUSED)";
	else if (r->fail_rcode == DNS_R_NOTIMP)
		why = "the resolver cannot answer (NOTIMP)";
	else if (r->tcp_broke)
		why = "the answer was truncated and the TCP retry failed";
	else
		why = "the resolver gave no usable answer";
	if (popcount(asked) < 2)
		return why;
	snprintf(buf, len, "%s (%u nameservers tried)", why, popcount(asked));
	return buf;
}

static void
finish(struct resolv *r, const char *err)
{
	struct dns_addr out[GATE_MAX_ADDRS];
	struct conn **w = r->waiters;
	size_t n = 0, nw = r->nwait;
	char buf[160];

	if (r->dead)
		return;
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < r->n[i] && n < GATE_MAX_ADDRS; k++)
			out[n++] = r->addrs[i][k];
	if (err == NULL && n == 0)
		err = why_empty(r, buf, sizeof(buf));
	if (err == NULL)
		cache_put(r->name, out, n, r->ttl);
	/* Every waiter gets the same checked answer: one lookup each. */
	r->waiters = NULL;
	r->nwait = r->capwait = 0;
	stop(r);
	for (size_t i = 0; i < nw; i++)
		conn_resolved(w[i], out, n, err);
	free(w);
}

static int
add_waiter(struct resolv *r, struct conn *c)
{
	if (r->nwait == r->capwait) {
		size_t cap = r->capwait ? r->capwait * 2 : 4;
		struct conn **w = reallocarray(r->waiters, cap, sizeof(*w));

		if (w == NULL)
			return -ENOMEM;
		r->waiters = w;
		r->capwait = cap;
	}
	r->waiters[r->nwait++] = c;
	return 0;
}

static void
maybe_finish(struct resolv *r)
{
	if (r->done[0] && r->done[1])
		finish(r, NULL);
}

/* A packet for query i from server k (over UDP, or TCP when tcp). */
static void
got_answer(struct resolv *r, int i, int k, const uint8_t *p, size_t n, bool tcp)
{
	struct dns_addr a[GATE_MAX_ADDRS];
	uint32_t ttl = 0;
	int rcode = 0, got;

	got = dns_parse_answer(p, n, r->id[i], r->name, qtypes[i], a,
	    GATE_MAX_ADDRS, &rcode, &ttl);
	if (got == -EAGAIN && !tcp) {
		/* The TCP retry goes to the server that truncated. */
		r->want_tcp[i] = true;
		r->srv[i] = k;
		return;
	}
	if (got < 0)
		return; /* not ours, or garbage: keep waiting */
	if (rcode == DNS_R_SERVFAIL || rcode == DNS_R_REFUSED ||
	    rcode == DNS_R_NOTIMP) {
		/* This server cannot answer; the next one may. */
		r->bad[i] |= 1u << k;
		r->fail_rcode = rcode;
		if (k == r->srv[i])
			ask(r, i, next_srv(r, i, k, false));
		return;
	}
	r->done[i] = true;
	r->rcode[i] = rcode;
	if (rcode == DNS_R_NOERROR && got > 0) {
		memcpy(r->addrs[i], a, (size_t)got * sizeof(*a));
		r->n[i] = (size_t)got;
		if (r->ttl == UINT32_MAX || ttl < r->ttl)
			r->ttl = ttl;
	}
}

/* The TCP retry of query i gave nothing usable: the next server. */
static void
tcp_failed(struct resolv *r, int i)
{
	int k = r->srv[i];

	r->want_tcp[i] = false;
	r->tcp_broke = true;
	r->bad[i] |= 1u << k;
	ask(r, i, next_srv(r, i, k, false));
}

static void
start_tcp(struct resolv *r)
{
	const struct gate_opts *o = loop_opts();
	int i, l, k, fd;

	while (r->tfd < 0) {
		for (i = 0; i < 2; i++)
			if (r->want_tcp[i] && !r->done[i])
				break;
		if (i == 2)
			return;
		k = r->srv[i];
		l = dns_build_query(
		    r->name, qtypes[i], r->id[i], r->tq + 2, sizeof(r->tq) - 2);
		if (l < 0) {
			tcp_failed(r, i);
			continue;
		}
		r->tq[0] = (uint8_t)(l >> 8);
		r->tq[1] = (uint8_t)l;
		r->tqlen = (size_t)l + 2;
		r->tqsent = 0;
		r->thave = 0;
		r->tcp_idx = i;
		fd = socket(o->resolver[k].ss_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			tcp_failed(r, i);
			continue;
		}
		if (connect(fd, (const struct sockaddr *)&o->resolver[k],
		        o->resolver_len[k]) < 0 &&
		    errno != EINPROGRESS) {
			close(fd);
			tcp_failed(r, i);
			continue;
		}
		r->ev_tcp.kind = EV_RESOLV_TCP;
		r->ev_tcp.obj = r;
		if (loop_add(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		        &r->ev_tcp) < 0) {
			close(fd);
			tcp_failed(r, i);
			continue;
		}
		r->tfd = fd;
		r->next_retx[i] = loop_now() + 1500;
	}
}

/* Close the TCP socket; p: the answer, or NULL when there is none. */
static void
tcp_end(struct resolv *r, const uint8_t *p, size_t n)
{
	int i = r->tcp_idx, k = r->srv[i];

	loop_del(r->tfd);
	close(r->tfd);
	r->tfd = -1;
	r->want_tcp[i] = false;
	if (p)
		got_answer(r, i, k, p, n, true);
	if (!r->done[i] && r->srv[i] == k)
		tcp_failed(r, i);
	reroute(r);
	start_tcp(r);
}

static void
tcp_event(struct resolv *r)
{
	while (r->tqsent < r->tqlen) {
		ssize_t w = send(r->tfd, r->tq + r->tqsent,
		    r->tqlen - r->tqsent, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0) {
			if (errno == EAGAIN || errno == EINPROGRESS)
				return;
			goto fail;
		}
		r->tqsent += (size_t)w;
	}
	for (;;) {
		ssize_t n = recv(r->tfd, r->tbuf + r->thave,
		    sizeof(r->tbuf) - r->thave, MSG_DONTWAIT);
		size_t len;

		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			goto fail;
		r->thave += (size_t)n;
		if (r->thave < 2)
			continue;
		len = (size_t)r->tbuf[0] << 8 | r->tbuf[1];
		if (len > sizeof(r->tbuf) - 2)
			goto fail;
		if (r->thave < len + 2) {
			if (r->thave == sizeof(r->tbuf))
				goto fail;
			continue;
		}
		tcp_end(r, r->tbuf + 2, len);
		maybe_finish(r);
		return;
	}
fail:
	tcp_end(r, NULL, 0); /* no answer over TCP: the next server */
	maybe_finish(r);
}

int
resolv_start(struct conn *c, const char *name, struct dns_addr *addrs,
    size_t *n, struct resolv **ret)
{
	struct cache_ent *e = cache_find(name);
	struct resolv *r;
	int err;

	if (e) {
		memcpy(addrs, e->addrs, e->n * sizeof(*addrs));
		*n = e->n;
		return 0;
	}
	/* The same name already on its way: wait for that answer. */
	for (r = all; r; r = r->next)
		if (!r->dead && strcmp(r->name, name) == 0) {
			if (add_waiter(r, c) < 0)
				return -ENOMEM;
			*ret = r;
			return 1;
		}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	for (int k = 0; k < GATE_MAX_NS; k++)
		r->ufd[k] = -1;
	r->tfd = -1;
	if (getrandom(r->id, sizeof(r->id), 0) != sizeof(r->id)) {
		free(r);
		return -EIO;
	}
	/* The first server's socket: failing here fails the lookup. */
	if ((err = open_udp(r, 0)) < 0) {
		free(r);
		return err;
	}
	if (add_waiter(r, c) < 0) {
		close(r->ufd[0]);
		free(r);
		return -ENOMEM;
	}
	r->ttl = UINT32_MAX;
	r->rcode[0] = r->rcode[1] = -1;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->start = loop_now();
	/* Never finishes here: conn_resolved comes from the loop. */
	for (int i = 0; i < 2; i++)
		ask(r, i, 0);
	reroute(r);
	r->next = all;
	all = r;
	*ret = r;
	return 1;
}

void
resolv_cancel(struct resolv *r, struct conn *c)
{
	if (r == NULL || r->dead)
		return;
	for (size_t i = 0; i < r->nwait; i++)
		if (r->waiters[i] == c) {
			r->waiters[i] = r->waiters[--r->nwait];
			break;
		}
	if (r->nwait == 0)
		stop(r);
}

void
resolv_event(struct resolv *r, bool tcp, uint32_t events)
{
	uint8_t buf[4096];

	(void)events;
	if (r->dead)
		return;
	if (tcp) {
		tcp_event(r);
		return;
	}
	/* Which socket woke us is not known: drain them all (at most 3). */
	for (int k = 0; k < GATE_MAX_NS; k++) {
		while (r->ufd[k] >= 0) {
			ssize_t n =
			    recv(r->ufd[k], buf, sizeof(buf), MSG_DONTWAIT);

			if (n < 0 && errno == ECONNREFUSED) {
				server_refused(r, k);
				continue; /* reported once; data may follow */
			}
			if (n < 0)
				break;
			for (int i = 0; i < 2; i++)
				if (!r->done[i] && !r->want_tcp[i] &&
				    (r->sent[i] & 1u << k))
					got_answer(
					    r, i, k, buf, (size_t)n, false);
		}
	}
	reroute(r);
	start_tcp(r);
	maybe_finish(r);
}

/* Retransmit, in order through the servers, each query that is due. */
static void
retransmit(struct resolv *r, uint64_t now)
{
	for (int i = 0; i < 2; i++) {
		if (r->done[i] || now < r->next_retx[i])
			continue;
		if (!r->want_tcp[i])
			ask(r, i, next_srv(r, i, r->srv[i], true));
		else if (r->tfd >= 0 && r->tcp_idx == i &&
		    next_srv(r, i, r->srv[i], false) >= 0)
			/* A slow TCP retry, and another server to ask. */
			tcp_end(r, NULL, 0);
	}
	reroute(r);
	start_tcp(r);
	maybe_finish(r);
}

void
resolv_tick(uint64_t now)
{
	struct resolv **pp = &all;

	while (*pp) {
		struct resolv *r = *pp;

		if (!r->dead && r->done[0] && r->done[1]) {
			finish(r, NULL);
		} else if (!r->dead && now >= r->start + GATE_RESOLVE_MS) {
			char buf[96];
			unsigned asked = popcount(r->sent[0] | r->sent[1]);

			if (asked > 1)
				snprintf(buf, sizeof(buf),
				    "the resolver did not answer in time "
				    "(%u nameservers tried)",
				    asked);
			else
				snprintf(buf, sizeof(buf),
				    "the resolver did not answer in time");
			/* Some addresses, or a final answer: use them. */
			finish(r,
			    r->n[0] + r->n[1] > 0 || r->rcode[0] >= 0 ||
			            r->rcode[1] >= 0
			        ? NULL
			        : buf);
		} else if (!r->dead) {
			retransmit(r, now);
		}
		if (r->dead) {
			*pp = r->next;
			free(r->waiters);
			free(r);
		} else
			pp = &r->next;
	}
}

void
resolv_reset(void)
{
	for (struct resolv *r = all; r; r = r->next)
		stop(r);
	resolv_tick(0);
	free(cache);
	cache = NULL;
	ncache = 0;
}
