/*
 * stub.c: the DNS stub at 127.0.0.1:53 inside the sandbox (UDP and TCP).
 *
 * It never forwards anything: an allowed name gets a synthetic address
 * (synth.c), AAAA and other types of an allowed name get an empty
 * NOERROR answer, anything else NXDOMAIN (or REFUSED for classes other
 * than IN and when the synthetic table is full).  So a name that the
 * policy does not allow never leaves the host, whatever the labels
 * carry (DNS exfiltration).  Every query is recorded (record.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gate.h"

#define STUB_TTL 60
#define STUB_TCP_MS 10000

struct stub_tcp {
	struct ev ev;
	int fd;
	bool dead;
	uint64_t deadline;
	size_t have;
	uint8_t buf[2 + 4096];
	struct stub_tcp *next;
};

static struct stub_tcp *tcp_list;
static size_t tcp_count;

static int
answer(const struct aisb_policy *p, const uint8_t *pkt, size_t n, uint8_t *out,
    size_t outlen, struct dns_query *q, const char **decision, uint32_t *synth)
{
	char canon[HOST_MAX + 1];
	const char *why, *rule;
	uint8_t a4[4];
	int r;

	*synth = 0;
	if (dns_parse_query(pkt, n, q) < 0) {
		*decision = "malformed";
		if (q->qend < 12)
			return -EINVAL;
		return dns_build_reply(pkt, q, q->rcode, NULL, 0, out, outlen);
	}
	if (q->qclass != DNS_C_IN) {
		*decision = "refused (class)";
		return dns_build_reply(
		    pkt, q, DNS_R_REFUSED, NULL, 0, out, outlen);
	}
	if (!q->name_ok || hostpat_is_ip_literal(q->name, strlen(q->name)) ||
	    hostpat_canon(q->name, strlen(q->name), false, canon, &why) < 0 ||
	    !decide_name(p, canon, &rule)) {
		*decision = "deny (NXDOMAIN)";
		return dns_build_reply(
		    pkt, q, DNS_R_NXDOMAIN, NULL, 0, out, outlen);
	}
	if (q->qtype != DNS_T_A) {
		*decision = "allow (no data)";
		return dns_build_reply(
		    pkt, q, DNS_R_NOERROR, NULL, 0, out, outlen);
	}
	r = synth_assign(canon, synth);
	if (r < 0) {
		*decision = "refused (synthetic table full)";
		return dns_build_reply(
		    pkt, q, DNS_R_REFUSED, NULL, 0, out, outlen);
	}
	a4[0] = (uint8_t)(*synth >> 24);
	a4[1] = (uint8_t)(*synth >> 16);
	a4[2] = (uint8_t)(*synth >> 8);
	a4[3] = (uint8_t)*synth;
	*decision = "allow";
	return dns_build_reply(
	    pkt, q, DNS_R_NOERROR, a4, STUB_TTL, out, outlen);
}

int
stub_answer(const struct aisb_policy *p, const uint8_t *q, size_t n,
    uint8_t *out, size_t outlen)
{
	struct dns_query dq;
	const char *decision;
	uint32_t synth;

	return answer(p, q, n, out, outlen, &dq, &decision, &synth);
}

void
stub_udp_event(int fd)
{
	uint8_t in[4096], out[4096 + 64];
	struct sockaddr_storage from;

	for (;;) {
		socklen_t fl = sizeof(from);
		struct dns_query q;
		const char *decision;
		uint32_t synth;
		ssize_t n;
		int r;

		n = recvfrom(fd, in, sizeof(in), MSG_TRUNC,
		    (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if ((size_t)n > sizeof(in))
			continue; /* oversized: drop */
		r = answer(loop_opts()->policy, in, (size_t)n, out, sizeof(out),
		    &q, &decision, &synth);
		record_dns("udp", q.name, q.qtype, decision, synth);
		if (r > 0)
			(void)sendto(fd, out, (size_t)r, MSG_DONTWAIT,
			    (struct sockaddr *)&from, fl);
	}
}

static void
tcp_close(struct stub_tcp *t)
{
	if (t->dead)
		return;
	t->dead = true;
	close(t->fd);
	t->fd = -1;
	tcp_count--;
}

void
stub_tcp_accept(int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct stub_tcp *t;

		if (fd < 0)
			return;
		if (tcp_count >= GATE_MAX_DNS_TCP ||
		    (t = calloc(1, sizeof(*t))) == NULL) {
			close(fd);
			continue;
		}
		t->fd = fd;
		t->ev.kind = EV_DNS_TCP;
		t->ev.obj = t;
		t->deadline = loop_now() + STUB_TCP_MS;
		if (loop_add(fd, EPOLLIN | EPOLLRDHUP | EPOLLET, &t->ev) < 0) {
			close(fd);
			free(t);
			continue;
		}
		t->next = tcp_list;
		tcp_list = t;
		tcp_count++;
	}
}

void
stub_tcp_event(void *obj, uint32_t events)
{
	struct stub_tcp *t = obj;
	uint8_t out[2 + 4096 + 64];

	(void)events;
	while (!t->dead) {
		ssize_t n =
		    read(t->fd, t->buf + t->have, sizeof(t->buf) - t->have);
		size_t len;

		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
			tcp_close(t);
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		t->have += (size_t)n;
		while (t->have >= 2) {
			struct dns_query q;
			const char *decision;
			uint32_t synth;
			int r;

			len = (size_t)t->buf[0] << 8 | t->buf[1];
			if (len > sizeof(t->buf) - 2 || len < 12) {
				tcp_close(t);
				return;
			}
			if (t->have < 2 + len)
				break;
			r = answer(loop_opts()->policy, t->buf + 2, len,
			    out + 2, sizeof(out) - 2, &q, &decision, &synth);
			record_dns("tcp", q.name, q.qtype, decision, synth);
			if (r <= 0) {
				tcp_close(t);
				return;
			}
			out[0] = (uint8_t)(r >> 8);
			out[1] = (uint8_t)r;
			/* Small answers: one write or give up on the client. */
			if (write(t->fd, out, (size_t)r + 2) != r + 2) {
				tcp_close(t);
				return;
			}
			memmove(t->buf, t->buf + 2 + len, t->have - 2 - len);
			t->have -= 2 + len;
			t->deadline = loop_now() + STUB_TCP_MS;
		}
	}
}

void
stub_tick(uint64_t now)
{
	struct stub_tcp **pp = &tcp_list;

	while (*pp) {
		struct stub_tcp *t = *pp;

		if (!t->dead && now >= t->deadline)
			tcp_close(t);
		if (t->dead) {
			*pp = t->next;
			free(t); /* tick runs between event batches */
		} else
			pp = &t->next;
	}
}

void
stub_close_all(void)
{
	for (struct stub_tcp *t = tcp_list; t; t = t->next)
		tcp_close(t);
	stub_tick(0);
}
