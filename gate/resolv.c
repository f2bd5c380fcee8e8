/*
 * resolv.c: the gate's own DNS client, so that no lookup ever blocks
 * the event loop (getaddrinfo would) and so that the addresses a
 * connection uses are exactly the ones it checked.
 *
 * One lookup per connection (connections that want the same name at
 * the same time share it and its answer): A and AAAA over one connected UDP
 * socket (random ids, random source port, the question must match), TCP when an
 * answer is truncated, retransmits at 1 s and 2.5 s, gives up at
 * GATE_RESOLVE_MS.  Answers are cached for their TTL (at most
 * GATE_CACHE_TTL_MAX); a connection never looks a name up twice.
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
	struct ev ev_udp, ev_tcp;
	struct conn **waiters; /* connections waiting for this lookup */
	size_t nwait, capwait;
	bool dead;
	char name[HOST_MAX + 1];
	int ufd, tfd;
	uint16_t id[2];
	bool done[2], want_tcp[2];
	bool refused; /* ICMP port unreachable seen */
	int tcp_idx; /* which query the TCP socket carries */
	struct dns_addr addrs[2][GATE_MAX_ADDRS];
	size_t n[2];
	int rcode[2];
	uint32_t ttl;
	uint64_t start, next_retx;
	int tries;
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

int
resolv_parse_conf(const char *text, const char *override,
    struct sockaddr_storage *ss, socklen_t *len)
{
	char buf[128];
	const char *line;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	unsigned long port = 53;

	memset(ss, 0, sizeof(*ss));
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
	} else {
		/* The first nameserver line; none means 127.0.0.1 (glibc). */
		snprintf(buf, sizeof(buf), "127.0.0.1");
		for (line = text; line && *line;) {
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
					break;
				}
			}
			line = eol ? eol + 1 : NULL;
		}
	}
	if (inet_pton(AF_INET, buf, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, buf, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
		return 0;
	}
	return -EINVAL;
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

static void
send_udp(struct resolv *r)
{
	uint8_t q[300];

	for (int i = 0; i < 2; i++) {
		int l;

		if (r->done[i] || r->want_tcp[i])
			continue;
		l = dns_build_query(r->name, qtypes[i], r->id[i], q, sizeof(q));
		/* A pending ICMP error is reported (once) by send or recv. */
		if (l > 0 && send(r->ufd, q, (size_t)l, MSG_DONTWAIT) < 0 &&
		    errno == ECONNREFUSED)
			r->refused = true;
	}
}

/* Close the sockets; the lookup is freed by the next tick. */
static void
stop(struct resolv *r)
{
	if (r->dead)
		return;
	r->dead = true;
	if (r->ufd >= 0)
		close(r->ufd);
	if (r->tfd >= 0)
		close(r->tfd);
	r->ufd = r->tfd = -1;
}

static void
finish(struct resolv *r, const char *err)
{
	struct dns_addr out[GATE_MAX_ADDRS];
	struct conn **w = r->waiters;
	size_t n = 0, nw = r->nwait;

	if (r->dead)
		return;
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < r->n[i] && n < GATE_MAX_ADDRS; k++)
			out[n++] = r->addrs[i][k];
	if (err == NULL && n == 0)
		err = r->rcode[0] == DNS_R_NXDOMAIN
		    ? "the name does not exist (NXDOMAIN)"
		    : "the name has no address";
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

static void
got_answer(struct resolv *r, int i, const uint8_t *p, size_t n, bool tcp)
{
	struct dns_addr a[GATE_MAX_ADDRS];
	uint32_t ttl = 0;
	int rcode = 0, k;

	k = dns_parse_answer(p, n, r->id[i], r->name, qtypes[i], a,
	    GATE_MAX_ADDRS, &rcode, &ttl);
	if (k == -EAGAIN && !tcp) {
		r->want_tcp[i] = true;
		return;
	}
	if (k < 0)
		return; /* not ours, or garbage: keep waiting */
	r->done[i] = true;
	r->rcode[i] = rcode;
	if (rcode == DNS_R_NOERROR && k > 0) {
		memcpy(r->addrs[i], a, (size_t)k * sizeof(*a));
		r->n[i] = (size_t)k;
		if (r->ttl == UINT32_MAX || ttl < r->ttl)
			r->ttl = ttl;
	}
}

static void
start_tcp(struct resolv *r)
{
	const struct gate_opts *o = loop_opts();
	int i, l, fd;

	if (r->tfd >= 0)
		return;
	for (i = 0; i < 2; i++)
		if (r->want_tcp[i] && !r->done[i])
			break;
	if (i == 2)
		return;
	l = dns_build_query(
	    r->name, qtypes[i], r->id[i], r->tq + 2, sizeof(r->tq) - 2);
	if (l < 0)
		return;
	r->tq[0] = (uint8_t)(l >> 8);
	r->tq[1] = (uint8_t)l;
	r->tqlen = (size_t)l + 2;
	r->tqsent = 0;
	r->thave = 0;
	r->tcp_idx = i;
	fd = socket(o->resolver.ss_family,
	    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (const struct sockaddr *)&o->resolver,
	        o->resolver_len) < 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		r->done[i] = true;
		return;
	}
	r->tfd = fd;
	r->ev_tcp.kind = EV_RESOLV_TCP;
	r->ev_tcp.obj = r;
	if (loop_add(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
	        &r->ev_tcp) < 0) {
		close(fd);
		r->tfd = -1;
		r->done[i] = true;
	}
}

static void
tcp_event(struct resolv *r)
{
	int i = r->tcp_idx;

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
		got_answer(r, i, r->tbuf + 2, len, true);
		break;
	}
fail:
	r->done[i] = true; /* no answer over TCP counts as empty */
	loop_del(r->tfd);
	close(r->tfd);
	r->tfd = -1;
	start_tcp(r);
	maybe_finish(r);
}

int
resolv_start(struct conn *c, const char *name, struct dns_addr *addrs,
    size_t *n, struct resolv **ret)
{
	const struct gate_opts *o = loop_opts();
	struct cache_ent *e = cache_find(name);
	struct resolv *r;
	int fd;

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
	fd = socket(o->resolver.ss_family,
	    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		free(r);
		return -errno;
	}
	if (connect(fd, (const struct sockaddr *)&o->resolver,
	        o->resolver_len) < 0 ||
	    getrandom(r->id, sizeof(r->id), 0) != sizeof(r->id)) {
		int e2 = -errno;

		close(fd);
		free(r);
		return e2;
	}
	r->ufd = fd;
	r->tfd = -1;
	if (add_waiter(r, c) < 0) {
		close(fd);
		free(r);
		return -ENOMEM;
	}
	r->ttl = UINT32_MAX;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->ev_udp.kind = EV_RESOLV;
	r->ev_udp.obj = r;
	if (loop_add(fd, EPOLLIN | EPOLLET, &r->ev_udp) < 0) {
		close(fd);
		free(r->waiters);
		free(r);
		return -ENOMEM;
	}
	r->start = loop_now();
	r->next_retx = r->start + 1000;
	send_udp(r);
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
	for (;;) {
		ssize_t n = recv(r->ufd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && errno == ECONNREFUSED)
			r->refused = true;
		if (n < 0)
			break;
		for (int i = 0; i < 2; i++)
			if (!r->done[i] && !r->want_tcp[i])
				got_answer(r, i, buf, (size_t)n, false);
	}
	start_tcp(r);
	maybe_finish(r);
}

void
resolv_tick(uint64_t now)
{
	struct resolv **pp = &all;

	while (*pp) {
		struct resolv *r = *pp;

		if (!r->dead && r->refused && r->n[0] + r->n[1] == 0) {
			/* Nobody serves DNS there: say so now, not in 5 s. */
			finish(r,
			    "the resolver is not answering (port "
			    "unreachable)");
		} else if (!r->dead && now >= r->start + GATE_RESOLVE_MS) {
			if (r->n[0] + r->n[1] > 0)
				finish(r, NULL);
			else
				finish(
				    r, "the resolver did not answer in time");
		} else if (!r->dead && now >= r->next_retx) {
			r->tries++;
			r->next_retx = now + 1500;
			send_udp(r);
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
