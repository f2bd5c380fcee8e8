/*
 * conn.c: one proxied connection, from the proxy port (HTTP CONNECT and
 * absolute-URI requests) or from the capture port (nft-redirected TCP
 * to a synthetic address), through decide, lookup and connect, to the
 * relay (relay.c), with a record of each decision (record.c).  The file
 * holds one concern, a connection's life: its states, the HTTP requests
 * that steer it, and its end.
 *
 * Relay: CONNECT and captured connections splice() both ways through a
 * pipe per direction (zero copy, edge-triggered epoll, half-close
 * passed on).  Plain HTTP requests splice the origin's responses to the
 * client the same way; the client's side is read into a buffer because
 * each request head must be parsed and decided, and each body framed,
 * to know where the next head starts.  A later keep-alive request for a
 * different origin (or one refused) waits until the current origin has
 * finished answering (its write side is shut down first), so that the
 * gate never has to find response boundaries.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gate.h"

/* linux/netfilter_ipv4.h; its header does not build under every compiler. */
#ifndef SO_ORIGINAL_DST
#define SO_ORIGINAL_DST 80
#endif

#define OBUF_MAX (HTTP_HEAD_MAX + 1024)
#define LINGER_MS 2000

enum conn_state {
	ST_HEAD, /* reading a request head (proxy) */
	ST_RESOLVE,
	ST_CONNECT,
	ST_TUNNEL, /* CONNECT or capture: splice both ways */
	ST_TLS, /* CONNECT or capture to a credential's host (tls.c) */
	ST_HTTP, /* absolute-URI requests to one origin */
	ST_DRAIN, /* next request waits for the origin to finish */
	ST_ERROR, /* writing an error response */
	ST_LINGER, /* response written; discard input until EOF */
};

struct conn {
	struct ev ev_c, ev_u;
	enum conn_state st;
	bool dead, capture, logged;
	struct relay_sock cs, us; /* the client's and the origin's socket */
	/* Client -> origin and back; their bytes are the record's up, down. */
	struct relay_dir cu, uc;
	/* Bytes carried at the last sweep, and since when none (conn_tick). */
	unsigned long long seen;
	uint64_t quiet_since;
	bool pending_bad; /* DRAIN, then answer 400 */
	const char *bad_why;
	struct http_req req;
	struct http_body body;
	char *ibuf; /* client bytes not yet handled */
	size_t ilen;
	char *obuf; /* bytes for the origin (HTTP) or client */
	size_t olen, ooff;
	char name[HOST_MAX + 1];
	uint16_t port;
	const char *rule;
	char why[160]; /* the allow rule, for the record */
	struct dns_addr addrs[GATE_MAX_ADDRS];
	size_t naddrs, ai;
	int last_err;
	char addr[INET6_ADDRSTRLEN];
	struct resolv *rv;
	struct tls *tls; /* ST_TLS */
	uint64_t deadline, t0;
	struct conn *next;
};

static struct conn *conns;
static size_t nconns;
static size_t max_conns = GATE_MAX_CONNS;

static void conn_run(struct conn *c);
static void handle_request(struct conn *c);
static void terminate(struct conn *c);

size_t
conn_count(void)
{
	return nconns;
}

void
conn_totals(size_t *open, unsigned long long *up, unsigned long long *down)
{
	*open = 0;
	*up = *down = 0;
	for (const struct conn *c = conns; c; c = c->next)
		if (!c->dead && c->logged) {
			(*open)++;
			*up += c->cu.bytes;
			*down += c->uc.bytes;
		}
}

size_t
conn_set_nofile(unsigned long nofile)
{
	unsigned long n = nofile > GATE_FDS_RESERVED
	    ? (nofile - GATE_FDS_RESERVED) / GATE_CONN_FDS
	    : 1;

	max_conns = n < GATE_MAX_CONNS ? (n ? n : 1) : GATE_MAX_CONNS;
	return max_conns;
}

static const char *
kind(const struct conn *c)
{
	return c->capture ? "capture" : "proxy";
}

/* What c's records are about, for one call to record.c. */
#define SUBJECT(c)                                                             \
	(&(const struct record_conn){kind(c), (c)->name, (c)->port, (c)->addr})

/* The origin's socket and both pipes; the client's socket stays. */
static void
upstream_close(struct conn *c)
{
	tls_free(c->tls);
	c->tls = NULL;
	relay_dir_close(&c->cu);
	relay_dir_close(&c->uc);
	relay_sock_close(&c->us);
}

static void
log_close(struct conn *c)
{
	if (!c->logged)
		return;
	c->logged = false;
	record_close(SUBJECT(c), c->cu.bytes, c->uc.bytes, loop_now() - c->t0);
}

static void
conn_close(struct conn *c)
{
	if (c->dead)
		return;
	log_close(c);
	c->dead = true;
	resolv_cancel(c->rv, c);
	c->rv = NULL;
	upstream_close(c);
	relay_sock_close(&c->cs);
	nconns--;
}

void
conn_close_all(void)
{
	for (struct conn *c = conns; c; c = c->next)
		conn_close(c);
}

static int
add_fd(struct conn *c, int fd, bool upstream)
{
	struct ev *ev = upstream ? &c->ev_u : &c->ev_c;

	ev->kind = upstream ? EV_UPSTREAM : EV_CLIENT;
	ev->obj = c;
	return loop_add(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, ev);
}

static struct conn *
conn_new(int fd, bool capture)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	relay_sock_init(&c->cs, fd);
	relay_sock_init(&c->us, -1);
	relay_dir_init(&c->cu, &c->cs, &c->us);
	relay_dir_init(&c->uc, &c->us, &c->cs);
	c->capture = capture;
	c->t0 = loop_now();
	if (!capture) {
		c->ibuf = malloc(HTTP_HEAD_MAX);
		c->obuf = malloc(OBUF_MAX);
		if (c->ibuf == NULL || c->obuf == NULL) {
			free(c->ibuf);
			free(c->obuf);
			free(c);
			return NULL;
		}
	}
	if (add_fd(c, fd, false) < 0) {
		free(c->ibuf);
		free(c->obuf);
		free(c);
		return NULL;
	}
	c->next = conns;
	conns = c;
	nconns++;
	return c;
}

/* Queue an error response to the client and end the connection after. */
static void send_error(struct conn *c, int code, const char *rule,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
send_error(struct conn *c, int code, const char *rule, const char *fmt, ...)
{
	char body[1024];
	const char *text;
	va_list ap;
	int n;

	log_close(c);
	resolv_cancel(c->rv, c);
	c->rv = NULL;
	upstream_close(c);
	if (c->capture) {
		/* No HTTP on the capture port: a reset is the refusal. */
		struct linger l = {.l_onoff = 1, .l_linger = 0};

		(void)setsockopt(
		    c->cs.fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		conn_close(c);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	text = code == 403 ? "Forbidden"
	    : code == 502  ? "Bad Gateway"
	    : code == 503  ? "Service Unavailable"
	                   : "Bad Request";
	n = snprintf(c->obuf, OBUF_MAX,
	    "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n"
	    "X-Aisb-Reason: %s\r\n\r\n%s\n",
	    code, text, strlen(body) + 1, rule, body);
	c->olen = n > 0 && n < OBUF_MAX ? (size_t)n : 0;
	c->ooff = 0;
	c->st = ST_ERROR;
	c->deadline = loop_now() + LINGER_MS * 5;
}

static void
deny(struct conn *c, const char *rule, const char *why)
{
	record_deny(SUBJECT(c), rule, why);
	send_error(c, 403, rule, "aisb: denied: %s", why);
}

static void
fail502(struct conn *c, const char *why)
{
	record_unreachable(SUBJECT(c), why);
	send_error(c, 502, "unreachable", "aisb: cannot reach %s:%u: %s",
	    c->name, c->port, why);
}

static void
connect_next(struct conn *c)
{
	for (; c->ai < c->naddrs; c->ai++) {
		const struct dns_addr *a = &c->addrs[c->ai];
		struct sockaddr_storage ss;
		socklen_t sl;
		int fd;

		memset(&ss, 0, sizeof(ss));
		if (a->family == AF_INET) {
			struct sockaddr_in *s = (struct sockaddr_in *)&ss;

			s->sin_family = AF_INET;
			s->sin_port = htons(c->port);
			memcpy(&s->sin_addr, a->a, 4);
			sl = sizeof(*s);
		} else {
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

			s->sin6_family = AF_INET6;
			s->sin6_port = htons(c->port);
			memcpy(&s->sin6_addr, a->a, 16);
			sl = sizeof(*s);
		}
		decide_fmt_addr(a, c->addr, sizeof(c->addr));
		fd = socket(
		    a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			c->last_err = errno;
			continue;
		}
		if (connect(fd, (struct sockaddr *)&ss, sl) < 0 &&
		    errno != EINPROGRESS) {
			c->last_err = errno;
			close(fd);
			continue;
		}
		if (add_fd(c, fd, true) < 0) {
			c->last_err = ENOMEM;
			close(fd);
			continue;
		}
		relay_sock_init(&c->us, fd);
		/* Nothing to read before an event says so (conn_event). */
		c->us.dry = true;
		c->st = ST_CONNECT;
		c->deadline = loop_now() + GATE_CONNECT_MS;
		return;
	}
	{
		char why[160];

		snprintf(why, sizeof(why), "%s (%s)",
		    strerror(c->last_err ? c->last_err : ECONNREFUSED),
		    c->addr[0] ? c->addr : "no address");
		fail502(c, why);
	}
}

static void
use_addrs(struct conn *c, const struct dns_addr *addrs, size_t n)
{
	const char *range = NULL, *first_range = NULL;
	char a[INET6_ADDRSTRLEN], first[INET6_ADDRSTRLEN] = "";

	c->naddrs = 0;
	c->ai = 0;
	for (size_t i = 0; i < n; i++) {
		if (decide_addr(loop_opts()->policy, &addrs[i], &range)) {
			c->addrs[c->naddrs++] = addrs[i];
			continue;
		}
		decide_fmt_addr(&addrs[i], a, sizeof(a));
		record_refuse(SUBJECT(c), a, range ? range : "?");
		if (first_range == NULL) {
			first_range = range ? range : "?";
			snprintf(first, sizeof(first), "%s", a);
		}
	}
	if (c->naddrs == 0) {
		char why[768];

		snprintf(why, sizeof(why),
		    "%s resolves only to special-purpose "
		    "addresses (%s: %s) that network.allow_cidr does not "
		    "cover",
		    c->name, first, first_range ? first_range : "?");
		deny(c, "special-address", why);
		return;
	}
	connect_next(c);
}

void
conn_resolved(
    struct conn *c, const struct dns_addr *addrs, size_t n, const char *err)
{
	c->rv = NULL;
	if (c->dead)
		return;
	if (err) {
		char why[400];

		snprintf(why, sizeof(why), "lookup failed: %s", err);
		fail502(c, why);
	} else
		use_addrs(c, addrs, n);
	conn_run(c);
}

/* Decide and start the way to the target (no origin connection yet). */
static void
start_target(struct conn *c, const struct verdict *v)
{
	struct dns_addr a[GATE_MAX_ADDRS];
	size_t n = 0;
	int r;

	snprintf(c->name, sizeof(c->name), "%s", v->name);
	c->rule = v->rule;
	snprintf(c->why, sizeof(c->why), "%.150s", v->why);
	c->addr[0] = '\0';
	c->last_err = 0;
	if (v->d == DEC_DENY) {
		deny(c, v->rule, v->why);
		return;
	}
	if (v->d == DEC_ALLOW_ADDR) {
		c->addrs[0] = v->addr;
		c->naddrs = 1;
		c->ai = 0;
		connect_next(c);
		return;
	}
	r = resolv_start(c, v->name, a, &n, &c->rv);
	if (r < 0) {
		fail502(c, "cannot start a lookup");
		return;
	}
	if (r == 0) {
		use_addrs(c, a, n);
		return;
	}
	c->st = ST_RESOLVE;
	c->deadline = 0; /* the resolver has its own timeout */
}

/*
 * A credential's placeholder in a request the gate does not terminate
 * (plain HTTP, or the CONNECT head itself): it stays as it is, and the
 * record says so.
 */
static void
note_placeholders(const struct conn *c)
{
	struct inject_cred ic[POLICY_MAX_CREDS];
	struct inject_target t = {.creds = ic, .ncreds = vault_count()};
	const struct record_conn s = {kind(c), c->req.host, c->req.port, ""};
	unsigned seen;

	if (t.ncreds == 0 || t.ncreds > POLICY_MAX_CREDS)
		return;
	vault_target(NULL, 0, ic);
	seen = inject_scan(&t, c->ibuf, c->req.head_len);
	for (size_t i = 0; i < t.ncreds; i++)
		if (seen & (1u << i))
			record_cred_misuse(&s, ic[i].name,
			    c->req.connect
			        ? "its placeholder went in a CONNECT "
			          "head, not replaced"
			        : "its placeholder went in a plain "
			          "HTTP request, not replaced");
}

static void
handle_request(struct conn *c)
{
	struct verdict v;

	note_placeholders(c);
	decide_target(loop_opts()->policy, c->req.host, c->req.port, &v);
	if (c->us.fd >= 0) {
		/* Keep-alive: same origin goes straight on, else drain. */
		if (!c->req.connect && v.d != DEC_DENY &&
		    strcmp(v.name, c->name) == 0 && c->port == c->req.port) {
			int k = http_rewrite_head(c->ibuf, &c->req,
			    c->obuf + c->olen, OBUF_MAX - c->olen);

			if (k < 0) {
				c->st = ST_DRAIN;
				c->pending_bad = true;
				c->bad_why = "request head too large";
				return;
			}
			record_allow(SUBJECT(c), v.why, true);
			c->olen += (size_t)k;
			c->cu.bytes += (unsigned long long)k;
			memmove(c->ibuf, c->ibuf + c->req.head_len,
			    c->ilen - c->req.head_len);
			c->ilen -= c->req.head_len;
			http_body_start(&c->body, &c->req);
			c->st = ST_HTTP;
			return;
		}
		c->st = ST_DRAIN;
		return;
	}
	c->port = c->req.port;
	start_target(c, &v);
}

static void
connected(struct conn *c)
{
	int err = 0;
	socklen_t el = sizeof(err);

	if (getsockopt(c->us.fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		err = errno;
	if (err == EINPROGRESS || err == EALREADY)
		return;
	if (err) {
		c->last_err = err;
		loop_del(c->us.fd);
		relay_sock_close(&c->us);
		c->ai++;
		connect_next(c);
		return;
	}
	record_allow(SUBJECT(c), c->why, false);
	c->logged = true;
	c->t0 = loop_now();
	c->cu.bytes = c->uc.bytes = 0;
	c->deadline = 0;
	c->seen = 0;
	c->quiet_since = c->t0;
	if ((c->capture || c->req.connect) &&
	    vault_terminates(c->name, c->port)) {
		terminate(c);
		return;
	}
	if (c->capture || c->req.connect) {
		c->st = ST_TUNNEL;
		if (!c->capture) {
			/* Bytes the client sent after the head go first. */
			memmove(c->ibuf, c->ibuf + c->req.head_len,
			    c->ilen - c->req.head_len);
			c->ilen -= c->req.head_len;
			c->olen = (size_t)snprintf(c->obuf, OBUF_MAX,
			    "HTTP/1.1 200 Connection established\r\n\r\n");
			c->ooff = 0;
		}
		return;
	}
	{
		int k = http_rewrite_head(c->ibuf, &c->req, c->obuf, OBUF_MAX);

		if (k < 0) {
			send_error(c, 400, "bad-request",
			    "aisb: bad request: head too large");
			return;
		}
		c->olen = (size_t)k;
		c->ooff = 0;
		c->cu.bytes += (unsigned long long)k;
		memmove(c->ibuf, c->ibuf + c->req.head_len,
		    c->ilen - c->req.head_len);
		c->ilen -= c->req.head_len;
		http_body_start(&c->body, &c->req);
		c->st = ST_HTTP;
		c->deadline = loop_now() + GATE_IDLE_MS;
	}
}

/*
 * Relay one direction; a pipe that cannot be made (the host is out of
 * descriptors) ends the connection, with a record.
 */
static int
relay(struct conn *c, struct relay_dir *d, bool *progress)
{
	int r = relay_pipe(d);

	if (r < 0) {
		record_error(SUBJECT(c), "no pipe for the relay", -r);
		return r;
	}
	return relay_move(d, progress);
}

/* Write out[off..len) to fd; -errno on a hard error. */
static int
flush(int fd, const char *out, size_t *off, size_t len, bool *progress)
{
	while (*off < len) {
		ssize_t w = send(
		    fd, out + *off, len - *off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		*off += (size_t)w;
		*progress = true;
	}
	return 0;
}

/* Read client bytes into ibuf; false on a hard error. */
static bool
read_client(struct conn *c, bool *progress)
{
	while (!c->cs.eof && !c->cs.dry && c->ilen < HTTP_HEAD_MAX) {
		ssize_t n = recv(c->cs.fd, c->ibuf + c->ilen,
		    HTTP_HEAD_MAX - c->ilen, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return false;
			c->cs.dry = true;
			return true;
		}
		if (n == 0)
			c->cs.eof = true;
		c->ilen += (size_t)n;
		*progress = true;
	}
	return true;
}

static bool
step_head(struct conn *c)
{
	bool progress = false;
	const char *why;
	int r;

	if (!read_client(c, &progress)) {
		conn_close(c);
		return false;
	}
	r = http_parse_head(c->ibuf, c->ilen, &c->req, &why);
	if (r < 0) {
		snprintf(c->name, sizeof(c->name), "-");
		record_bad_request(kind(c), NULL, why);
		send_error(c, 400, "bad-request", "aisb: bad request: %s", why);
		return true;
	}
	if (r == 0) {
		if (c->cs.eof)
			conn_close(c);
		return progress;
	}
	handle_request(c);
	return true;
}

/*
 * A connection to a credential's host: the gate terminates its TLS
 * (tls.c) instead of splicing it.  On the proxy, the client may not send
 * before the 200 line (its TLS would be read by nobody).
 */
static void
terminate(struct conn *c)
{
	if (!c->capture && c->ilen > c->req.head_len) {
		send_error(c, 400, "bad-request",
		    "aisb: bad request: bytes after CONNECT before its 200");
		return;
	}
	c->ilen = 0;
	c->tls = tls_new(c->name, c->port, !c->capture, c->cs.fd, c->us.fd);
	if (c->tls == NULL) {
		record_error(SUBJECT(c), "cannot start TLS", ENOMEM);
		conn_close(c);
		return;
	}
	c->st = ST_TLS;
	c->deadline = loop_now() + GATE_HEAD_MS;
}

static bool
step_tls(struct conn *c)
{
	bool progress = false;
	int r = tls_step(c->tls, &c->cs, &c->us, SUBJECT(c), &c->cu.bytes,
	    &c->uc.bytes, &progress);

	switch (r) {
	case TLS_WAIT:
		if (tls_relaying(c->tls)) {
			/* Like a tunnel: no deadline (an event stream may
			 * be quiet for long); the head buffers go back. */
			c->deadline = 0;
			free(c->ibuf);
			free(c->obuf);
			c->ibuf = c->obuf = NULL;
		}
		return false;
	case TLS_EUPSTREAM: {
		char why[400];

		snprintf(why, sizeof(why), "%s", tls_why(c->tls));
		fail502(c, why);
		return true;
	}
	case TLS_ECLIENT:
		record_tls_client(SUBJECT(c), tls_why(c->tls));
		conn_close(c);
		return false;
	default:
		conn_close(c);
		return false;
	}
}

static bool
step_tunnel(struct conn *c)
{
	bool progress = false;
	size_t ioff = 0;
	int r;

	/* Prefixes: the 200 line to the client, early bytes to the origin. */
	if (c->ooff < c->olen &&
	    flush(c->cs.fd, c->obuf, &c->ooff, c->olen, &progress) < 0)
		goto fail;
	if (c->ilen > 0) {
		if (flush(c->us.fd, c->ibuf, &ioff, c->ilen, &progress) < 0)
			goto fail;
		c->cu.bytes += ioff;
		memmove(c->ibuf, c->ibuf + ioff, c->ilen - ioff);
		c->ilen -= ioff;
	}
	if (c->ibuf != NULL && c->ilen == 0 && c->ooff >= c->olen) {
		/* A tunnel never parses again: its head buffers go back. */
		free(c->ibuf);
		free(c->obuf);
		c->ibuf = c->obuf = NULL;
		c->olen = c->ooff = 0;
	}
	/* Each direction once its prefix is out; an end is passed on. */
	if (c->ilen == 0) {
		r = relay(c, &c->cu, &progress);
		if (r < 0)
			goto fail;
		if (relay_drained(&c->cu))
			relay_shut(&c->us);
	}
	if (c->ooff >= c->olen) {
		r = relay(c, &c->uc, &progress);
		if (r < 0)
			goto fail;
		if (relay_drained(&c->uc))
			relay_shut(&c->cs);
	}
	if (c->us.shut && c->cs.shut) {
		conn_close(c);
		return false;
	}
	return progress;
fail:
	conn_close(c);
	return false;
}

/* Origin -> client in HTTP mode; returns false when c was closed. */
static bool
http_down(struct conn *c, bool *progress)
{
	if (relay(c, &c->uc, progress) < 0) {
		conn_close(c);
		return false;
	}
	return true;
}

static bool
step_http(struct conn *c)
{
	bool progress = false;
	ssize_t k;
	const char *why;
	int r;

	if (!http_down(c, &progress))
		return false;
	if (relay_drained(&c->uc)) {
		/* The origin is done: so is this client connection. */
		conn_close(c);
		return false;
	}
	if (flush(c->us.fd, c->obuf, &c->ooff, c->olen, &progress) < 0) {
		conn_close(c);
		return false;
	}
	if (c->ooff < c->olen)
		return progress;
	c->ooff = c->olen = 0;
	if (!read_client(c, &progress)) {
		conn_close(c);
		return false;
	}
	if (c->body.st != HB_DONE && c->ilen > 0) {
		k = http_body_feed(&c->body, c->ibuf, c->ilen);
		if (k < 0) {
			record_bad_request(
			    kind(c), c->name, "bad chunked body");
			conn_close(c);
			return false;
		}
		memcpy(c->obuf, c->ibuf, (size_t)k);
		c->olen = (size_t)k;
		memmove(c->ibuf, c->ibuf + k, c->ilen - (size_t)k);
		c->ilen -= (size_t)k;
		c->cu.bytes += (unsigned long long)k;
		return true;
	}
	if (c->body.st == HB_DONE && c->ilen > 0) {
		r = http_parse_head(c->ibuf, c->ilen, &c->req, &why);
		if (r < 0) {
			c->st = ST_DRAIN;
			c->pending_bad = true;
			c->bad_why = why;
			return true;
		}
		if (r > 0) {
			handle_request(c);
			return true;
		}
	}
	if (c->cs.eof && c->ilen == 0 && c->body.st == HB_DONE)
		relay_shut(&c->us);
	if (progress)
		c->deadline = loop_now() + GATE_IDLE_MS;
	return progress;
}

static bool
step_drain(struct conn *c)
{
	bool progress = false;

	if (flush(c->us.fd, c->obuf, &c->ooff, c->olen, &progress) < 0) {
		conn_close(c);
		return false;
	}
	if (c->ooff < c->olen)
		goto down;
	c->ooff = c->olen = 0;
	relay_shut(&c->us);
down:
	if (!http_down(c, &progress))
		return false;
	if (relay_drained(&c->uc)) {
		log_close(c);
		loop_del(c->us.fd);
		upstream_close(c);
		if (c->pending_bad) {
			record_bad_request(kind(c), NULL, c->bad_why);
			send_error(c, 400, "bad-request",
			    "aisb: bad request: %s", c->bad_why);
		} else
			handle_request(c);
		return true;
	}
	return progress;
}

static bool
step_error(struct conn *c)
{
	bool progress = false;
	char junk[4096];

	if (c->st == ST_ERROR) {
		int r = flush(c->cs.fd, c->obuf, &c->ooff, c->olen, &progress);

		if (r < 0) {
			conn_close(c);
			return false;
		}
		if (c->ooff < c->olen)
			return progress;
		/* Lingering close: a reset would destroy the response. */
		shutdown(c->cs.fd, SHUT_WR);
		c->st = ST_LINGER;
		c->deadline = loop_now() + LINGER_MS;
		progress = true;
	}
	for (;;) {
		ssize_t n = recv(c->cs.fd, junk, sizeof(junk), MSG_DONTWAIT);

		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN)
			conn_close(c);
		return false;
	}
	return progress;
}

static void
conn_run(struct conn *c)
{
	bool more = true;

	while (more && !c->dead) {
		switch (c->st) {
		case ST_HEAD:
			more = step_head(c);
			break;
		case ST_RESOLVE:
		case ST_CONNECT:
			more = false;
			break;
		case ST_TUNNEL:
			more = step_tunnel(c);
			break;
		case ST_TLS:
			more = step_tls(c);
			break;
		case ST_HTTP:
			more = step_http(c);
			break;
		case ST_DRAIN:
			more = step_drain(c);
			break;
		case ST_ERROR:
		case ST_LINGER:
			more = step_error(c);
			break;
		}
	}
}

void
conn_event(struct conn *c, bool upstream, uint32_t events)
{
	if (c->dead)
		return;
	relay_sock_event(upstream ? &c->us : &c->cs, events);
	if (upstream && c->st == ST_CONNECT) {
		connected(c);
		if (c->dead)
			return;
	}
	conn_run(c);
}

static void
capture_start(struct conn *c)
{
	struct sockaddr_in dst;
	socklen_t dl = sizeof(dst);
	struct verdict v;
	const char *name;
	char a[INET_ADDRSTRLEN];

	c->st = ST_RESOLVE;
	if (getsockopt(c->cs.fd, SOL_IP, SO_ORIGINAL_DST, &dst, &dl) < 0 ||
	    dst.sin_family != AF_INET) {
		record_deny_nodst(errno);
		conn_close(c);
		return;
	}
	c->port = ntohs(dst.sin_port);
	name = synth_name(ntohl(dst.sin_addr.s_addr));
	if (name == NULL) {
		inet_ntop(AF_INET, &dst.sin_addr, a, sizeof(a));
		snprintf(c->name, sizeof(c->name), "%s", a);
		record_deny(
		    SUBJECT(c), "synthetic", "no name was given this address");
		send_error(c, 403, "synthetic", "unknown");
		return;
	}
	decide_target(loop_opts()->policy, name, c->port, &v);
	start_target(c, &v);
}

void
conn_accept(int lfd, bool capture)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0)
			return;
		if (nconns >= max_conns ||
		    (c = conn_new(fd, capture)) == NULL) {
			record_refusing(nconns, max_conns);
			close(fd);
			continue;
		}
		if (capture) {
			capture_start(c);
		} else {
			c->st = ST_HEAD;
			c->deadline = loop_now() + GATE_HEAD_MS;
		}
		if (!c->dead)
			conn_run(c);
	}
}

static void
conn_sweep(struct conn *c, uint64_t now)
{
	unsigned long long bytes = c->cu.bytes + c->uc.bytes;

	if (c->st != ST_TUNNEL && c->st != ST_HTTP)
		return;
	if (bytes != c->seen) {
		c->seen = bytes;
		c->quiet_since = now;
		return;
	}
	relay_idle(&c->cu, now - c->quiet_since);
	relay_idle(&c->uc, now - c->quiet_since);
}

void
conn_tick(uint64_t now)
{
	static uint64_t last_sweep;
	struct conn **pp = &conns;
	bool sweep = now - last_sweep >= GATE_SWEEP_MS;

	if (sweep)
		last_sweep = now;

	while (*pp) {
		struct conn *c = *pp;

		if (!c->dead && sweep)
			conn_sweep(c, now);
		if (!c->dead && c->deadline && now >= c->deadline) {
			if (c->st == ST_CONNECT) {
				c->last_err = ETIMEDOUT;
				loop_del(c->us.fd);
				relay_sock_close(&c->us);
				c->ai++;
				connect_next(c);
				conn_run(c);
			} else
				conn_close(c);
		}
		if (c->dead) {
			*pp = c->next;
			free(c->ibuf);
			free(c->obuf);
			free(c);
		} else
			pp = &c->next;
	}
}
