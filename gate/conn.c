/*
 * conn.c: one proxied connection, from the proxy port (HTTP CONNECT and
 * absolute-URI requests) or from the capture port (nft-redirected TCP
 * to a synthetic address), through decide, lookup and connect, to the
 * relay.
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
#include <fcntl.h>
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

/*
 * Connection records: generous, but an agent looping over refused
 * connections must not flood syslog.
 */
static struct gate_rate rec_rate = {
    .rate = 200, .burst = 1000, .what = "connection"};
#define crecord(...)                                                           \
	do {                                                                   \
		if (gate_rate_ok(&rec_rate))                                   \
			gate_record(__VA_ARGS__);                              \
	} while (0)

#define OBUF_MAX (HTTP_HEAD_MAX + 1024)
#define LINGER_MS 2000
#define SPLICE_CHUNK (1 << 16) /* a default pipe's capacity */

enum conn_state {
	ST_HEAD, /* reading a request head (proxy) */
	ST_RESOLVE,
	ST_CONNECT,
	ST_TUNNEL, /* CONNECT or capture: splice both ways */
	ST_HTTP, /* absolute-URI requests to one origin */
	ST_DRAIN, /* next request waits for the origin to finish */
	ST_ERROR, /* writing an error response */
	ST_LINGER, /* response written; discard input until EOF */
};

struct conn {
	struct ev ev_c, ev_u;
	enum conn_state st;
	bool dead, capture, logged;
	int cfd, ufd;
	int p_cu[2], p_uc[2];
	size_t pipe_cu, pipe_uc;
	bool c_eof, u_eof, c_shut, u_shut;
	/*
	 * Edge-triggered bookkeeping: a read of the socket returned EAGAIN
	 * (dry) or a write to it could not take everything (full) since its
	 * last event.  New data or new room brings a new event, which
	 * clears them (conn_event); until then calling again would only
	 * return EAGAIN.
	 */
	bool c_dry, u_dry, c_full, u_full;
	/* GATE_BULK_PIPE pipes held (big_grow). */
	bool big_cu, big_uc;
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
	uint64_t deadline, t0;
	unsigned long long up, down;
	struct conn *next;
};

static struct conn *conns;
static size_t nconns;
static size_t max_conns = GATE_MAX_CONNS;
static unsigned nbig; /* pipes grown to GATE_BULK_PIPE, gate-wide */

static void conn_run(struct conn *c);
static void handle_request(struct conn *c);

size_t
conn_count(void)
{
	return nconns;
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

static void
close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* Give a grown pipe's slot back (the pipe is closed or shrunk). */
static void
big_release(bool *big)
{
	if (*big) {
		*big = false;
		nbig--;
	}
}

static void
upstream_close(struct conn *c)
{
	big_release(&c->big_cu);
	big_release(&c->big_uc);
	close_fd(&c->ufd);
	close_fd(&c->p_cu[0]);
	close_fd(&c->p_cu[1]);
	close_fd(&c->p_uc[0]);
	close_fd(&c->p_uc[1]);
	c->pipe_cu = c->pipe_uc = 0;
	c->u_eof = c->u_shut = c->u_dry = c->u_full = false;
}

static void
log_close(struct conn *c)
{
	if (!c->logged)
		return;
	c->logged = false;
	crecord("close %s name=%s port=%u address=%s up=%llu down=%llu "
	        "duration=%llums",
	    kind(c), c->name, c->port, c->addr, c->up, c->down,
	    (unsigned long long)(loop_now() - c->t0));
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
	close_fd(&c->cfd);
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
	c->cfd = fd;
	c->ufd = -1;
	c->p_cu[0] = c->p_cu[1] = c->p_uc[0] = c->p_uc[1] = -1;
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

		(void)setsockopt(c->cfd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
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
	crecord("deny %s name=%s port=%u rule=%s reason=\"%s\"", kind(c),
	    c->name, c->port, rule, why);
	send_error(c, 403, rule, "aisb: denied: %s", why);
}

static void
fail502(struct conn *c, const char *why)
{
	crecord("unreachable %s name=%s port=%u reason=\"%s\"", kind(c),
	    c->name, c->port, why);
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
		c->ufd = fd;
		/* Nothing to read before an event says so (conn_event). */
		c->u_dry = true;
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
		crecord("refuse %s name=%s port=%u address=%s "
		        "reason=\"special-purpose range %s\"",
		    kind(c), c->name, c->port, a, range ? range : "?");
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

static void
handle_request(struct conn *c)
{
	struct verdict v;

	decide(loop_opts()->policy, c->req.host, c->req.port, &v);
	if (c->ufd >= 0) {
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
			crecord("allow %s name=%s port=%u address=%s "
			        "rule=\"%s\" (keep-alive)",
			    kind(c), c->name, c->port, c->addr, v.why);
			c->olen += (size_t)k;
			c->up += (unsigned long long)k;
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

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		err = errno;
	if (err == EINPROGRESS || err == EALREADY)
		return;
	if (err) {
		c->last_err = err;
		loop_del(c->ufd);
		close_fd(&c->ufd);
		c->ai++;
		connect_next(c);
		return;
	}
	crecord("allow %s name=%s port=%u address=%s rule=\"%s\"", kind(c),
	    c->name, c->port, c->addr, c->why);
	c->logged = true;
	c->t0 = loop_now();
	c->up = c->down = 0;
	c->deadline = 0;
	c->seen = 0;
	c->quiet_since = c->t0;
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
		c->up += (unsigned long long)k;
		memmove(c->ibuf, c->ibuf + c->req.head_len,
		    c->ilen - c->req.head_len);
		c->ilen -= c->req.head_len;
		http_body_start(&c->body, &c->req);
		c->st = ST_HTTP;
		c->deadline = loop_now() + GATE_IDLE_MS;
	}
}

/* One direction of a relay: src -> pipe -> dst. */
struct dir {
	int src, dst;
	int *p;
	size_t *inpipe;
	bool *src_eof, *src_dry, *dst_full;
	unsigned long long *count;
	bool *big;
};

/*
 * A direction that has carried GATE_BULK_AFTER bytes is a bulk transfer:
 * grow its pipe while a slot is free.  A refusal by the kernel (the
 * uid's pipe pages, fs.pipe-max-size) keeps the default pipe: slower,
 * never a failure.
 */
static void
big_grow(const struct dir *d)
{
	if (*d->big || nbig >= GATE_BULK_PIPES ||
	    *d->count + *d->inpipe < GATE_BULK_AFTER)
		return;
	if (fcntl(d->p[1], F_SETPIPE_SZ, GATE_BULK_PIPE) < 0)
		return;
	*d->big = true;
	nbig++;
}

/*
 * Move bytes until neither side can.  A splice from the socket that
 * returns EAGAIN marks it dry: nothing is there, or the pipe is full,
 * which only a write to dst changes, and that clears it here.  A write
 * to the socket that takes less than the pipe holds marks it full: the
 * kernel wakes the gate (EPOLLOUT) when there is room again.  (A short
 * read from the socket proves nothing: the pipe may have run out of
 * slots with bytes left in the socket, and no new edge would come.)
 */
static int
move(const struct dir *d, bool *progress)
{
	for (;;) {
		bool did = false;

		if (!*d->src_eof && !*d->src_dry) {
			ssize_t n = splice(d->src, NULL, d->p[1], NULL,
			    *d->big ? GATE_BULK_PIPE : SPLICE_CHUNK,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (n > 0) {
				*d->inpipe += (size_t)n;
				big_grow(d);
				did = true;
			} else if (n == 0) {
				*d->src_eof = true;
				did = true;
			} else if (errno == EAGAIN)
				*d->src_dry = true;
			else if (errno != EINTR)
				return -errno;
		}
		if (*d->inpipe > 0 && !*d->dst_full) {
			ssize_t m = splice(d->p[0], NULL, d->dst, NULL,
			    *d->inpipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (m > 0) {
				*d->inpipe -= (size_t)m;
				*d->count += (unsigned long long)m;
				*d->src_dry = false; /* room in the pipe */
				did = true;
			} else if (m < 0 && errno != EAGAIN && errno != EINTR)
				return -errno;
			if (*d->inpipe > 0 && !(m < 0 && errno == EINTR))
				*d->dst_full = true;
		}
		if (!did)
			return 0;
		*progress = true;
	}
}

/*
 * A direction's pipe is made when its source has bytes to read (or an
 * EOF to find), not when the connection opens, and conn_tick closes it
 * again once it is empty and quiet: an idle tunnel holds two
 * descriptors and no pipe pages (charged to the agent's uid).  The
 * connection limit still counts six descriptors per connection, so only
 * a host-wide shortage can refuse a pipe here, and that ends the
 * connection.
 */
static int
dir_pipe(struct conn *c, int p[2], bool nothing_to_read)
{
	if (p[0] >= 0 || nothing_to_read)
		return 0;
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0) {
		int e = errno;

		crecord("error %s name=%s port=%u: no pipe for the relay (%s)",
		    kind(c), c->name, c->port, strerror(e));
		return -e;
	}
	return 0;
}

static int
move_up(struct conn *c, bool *progress)
{
	struct dir d = {c->cfd, c->ufd, c->p_cu, &c->pipe_cu, &c->c_eof,
	    &c->c_dry, &c->u_full, &c->up, &c->big_cu};
	int r = dir_pipe(c, c->p_cu, c->c_eof || c->c_dry);

	return r < 0 ? r : c->p_cu[0] < 0 ? 0 : move(&d, progress);
}

static int
move_down(struct conn *c, bool *progress)
{
	struct dir d = {c->ufd, c->cfd, c->p_uc, &c->pipe_uc, &c->u_eof,
	    &c->u_dry, &c->c_full, &c->down, &c->big_uc};
	int r = dir_pipe(c, c->p_uc, c->u_eof || c->u_dry);

	return r < 0 ? r : c->p_uc[0] < 0 ? 0 : move(&d, progress);
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
	while (!c->c_eof && !c->c_dry && c->ilen < HTTP_HEAD_MAX) {
		ssize_t n = recv(c->cfd, c->ibuf + c->ilen,
		    HTTP_HEAD_MAX - c->ilen, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return false;
			c->c_dry = true;
			return true;
		}
		if (n == 0)
			c->c_eof = true;
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
		crecord("bad request %s: %s", kind(c), why);
		send_error(c, 400, "bad-request", "aisb: bad request: %s", why);
		return true;
	}
	if (r == 0) {
		if (c->c_eof)
			conn_close(c);
		return progress;
	}
	handle_request(c);
	return true;
}

static bool
step_tunnel(struct conn *c)
{
	bool progress = false;
	size_t ioff = 0;
	int r;

	/* Prefixes: the 200 line to the client, early bytes to the origin. */
	if (c->ooff < c->olen &&
	    flush(c->cfd, c->obuf, &c->ooff, c->olen, &progress) < 0)
		goto fail;
	if (c->ilen > 0) {
		if (flush(c->ufd, c->ibuf, &ioff, c->ilen, &progress) < 0)
			goto fail;
		c->up += ioff;
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
	if (c->ilen == 0) {
		r = move_up(c, &progress);
		if (r < 0)
			goto fail;
		if (c->c_eof && c->pipe_cu == 0 && !c->u_shut) {
			shutdown(c->ufd, SHUT_WR);
			c->u_shut = true;
		}
	}
	if (c->ooff >= c->olen) {
		r = move_down(c, &progress);
		if (r < 0)
			goto fail;
		if (c->u_eof && c->pipe_uc == 0 && !c->c_shut) {
			shutdown(c->cfd, SHUT_WR);
			c->c_shut = true;
		}
	}
	if (c->u_shut && c->c_shut) {
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
	if (move_down(c, progress) < 0) {
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
	if (c->u_eof && c->pipe_uc == 0) {
		/* The origin is done: so is this client connection. */
		conn_close(c);
		return false;
	}
	if (flush(c->ufd, c->obuf, &c->ooff, c->olen, &progress) < 0) {
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
			crecord("bad request %s name=%s: bad chunked body",
			    kind(c), c->name);
			conn_close(c);
			return false;
		}
		memcpy(c->obuf, c->ibuf, (size_t)k);
		c->olen = (size_t)k;
		memmove(c->ibuf, c->ibuf + k, c->ilen - (size_t)k);
		c->ilen -= (size_t)k;
		c->up += (unsigned long long)k;
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
	if (c->c_eof && c->ilen == 0 && c->body.st == HB_DONE && !c->u_shut) {
		shutdown(c->ufd, SHUT_WR);
		c->u_shut = true;
	}
	if (progress)
		c->deadline = loop_now() + GATE_IDLE_MS;
	return progress;
}

static bool
step_drain(struct conn *c)
{
	bool progress = false;

	if (flush(c->ufd, c->obuf, &c->ooff, c->olen, &progress) < 0) {
		conn_close(c);
		return false;
	}
	if (c->ooff < c->olen)
		goto down;
	c->ooff = c->olen = 0;
	if (!c->u_shut) {
		shutdown(c->ufd, SHUT_WR);
		c->u_shut = true;
	}
down:
	if (!http_down(c, &progress))
		return false;
	if (c->u_eof && c->pipe_uc == 0) {
		log_close(c);
		loop_del(c->ufd);
		upstream_close(c);
		if (c->pending_bad) {
			crecord("bad request %s: %s", kind(c), c->bad_why);
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
		if (flush(c->cfd, c->obuf, &c->ooff, c->olen, &progress) < 0) {
			conn_close(c);
			return false;
		}
		if (c->ooff < c->olen)
			return progress;
		/* Lingering close: a reset would destroy the response. */
		shutdown(c->cfd, SHUT_WR);
		c->st = ST_LINGER;
		c->deadline = loop_now() + LINGER_MS;
		progress = true;
	}
	for (;;) {
		ssize_t n = recv(c->cfd, junk, sizeof(junk), MSG_DONTWAIT);

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
	/*
	 * New bytes (or an end, or an error) to read, new room to write:
	 * the event's mask is the socket's state when it was reported, and
	 * any later change brings another event.
	 */
	bool in = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
	bool out = events & (EPOLLOUT | EPOLLHUP | EPOLLERR);

	if (upstream) {
		c->u_dry = c->u_dry && !in;
		c->u_full = c->u_full && !out;
	} else {
		c->c_dry = c->c_dry && !in;
		c->c_full = c->c_full && !out;
	}
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
	if (getsockopt(c->cfd, SOL_IP, SO_ORIGINAL_DST, &dst, &dl) < 0 ||
	    dst.sin_family != AF_INET) {
		crecord("deny capture: no original destination (%s)",
		    strerror(errno));
		conn_close(c);
		return;
	}
	c->port = ntohs(dst.sin_port);
	name = synth_name(ntohl(dst.sin_addr.s_addr));
	if (name == NULL) {
		inet_ntop(AF_INET, &dst.sin_addr, a, sizeof(a));
		snprintf(c->name, sizeof(c->name), "%s", a);
		crecord("deny capture name=%s port=%u rule=synthetic "
		        "reason=\"no name was given this address\"",
		    a, c->port);
		send_error(c, 403, "synthetic", "unknown");
		return;
	}
	decide(loop_opts()->policy, name, c->port, &v);
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
			static uint64_t last;

			if (loop_now() - last > 1000) {
				crecord("refusing connections: %zu open "
				        "(limit %zu)",
				    nconns, max_conns);
				last = loop_now();
			}
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

/*
 * A relay direction that has gone quiet: after GATE_BULK_IDLE_MS a grown
 * pipe shrinks back and gives its slot to the next bulk transfer; after
 * GATE_PIPE_IDLE_MS the pipe is closed (dir_pipe makes a new one when
 * bytes come).  A pipe still holding bytes is left alone.
 */
static void
pipe_idle(int p[2], size_t inpipe, bool *big, uint64_t quiet)
{
	if (p[0] < 0 || inpipe > 0)
		return;
	if (quiet >= GATE_PIPE_IDLE_MS) {
		big_release(big);
		close_fd(&p[0]);
		close_fd(&p[1]);
	} else if (*big && quiet >= GATE_BULK_IDLE_MS &&
	    fcntl(p[1], F_SETPIPE_SZ, SPLICE_CHUNK) >= 0)
		big_release(big);
}

static void
conn_sweep(struct conn *c, uint64_t now)
{
	unsigned long long bytes = c->up + c->down;

	if (c->st != ST_TUNNEL && c->st != ST_HTTP)
		return;
	if (bytes != c->seen) {
		c->seen = bytes;
		c->quiet_since = now;
		return;
	}
	pipe_idle(c->p_cu, c->pipe_cu, &c->big_cu, now - c->quiet_since);
	pipe_idle(c->p_uc, c->pipe_uc, &c->big_uc, now - c->quiet_since);
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
				loop_del(c->ufd);
				close_fd(&c->ufd);
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
