/*
 * dns.c: DNS messages, the few shapes the gate needs (RFC 1035).
 *
 * Queries from the sandbox are parsed strictly: one question, no
 * compression pointers (a query never needs one, and refusing them
 * removes the pointer-loop class of bugs from the hostile side).
 * Answers from the host's resolver may compress; pointers there must
 * point backwards and are followed a bounded number of times.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gate.h"

#define DNS_QUERY_MAX 4096 /* bigger queries are dropped */
#define DNS_HOPS_MAX 32
#define DNS_CHAIN_MAX 8 /* CNAMEs followed */

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static bool
label_char_ok(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int
dns_parse_query(const uint8_t *p, size_t n, struct dns_query *q)
{
	size_t off = 12, tl = 0;
	uint16_t qd, an, ns, ar;

	memset(q, 0, sizeof(*q));
	q->rcode = DNS_R_FORMERR;
	if (n < 12 || n > DNS_QUERY_MAX)
		return -EINVAL;
	q->id = get16(p);
	q->flags = get16(p + 2);
	if (q->flags & 0x8000) /* a response: never answer those */
		return -EINVAL;
	q->qend = 12;
	if (((q->flags >> 11) & 0xf) != 0) {
		q->rcode = DNS_R_NOTIMP;
		return -EINVAL;
	}
	qd = get16(p + 4);
	an = get16(p + 6);
	ns = get16(p + 8);
	ar = get16(p + 10);
	if (qd != 1 || an != 0 || ns != 0 || ar > 1)
		return -EINVAL;
	q->name_ok = true;
	for (;;) {
		uint8_t len;

		if (off >= n)
			return -EINVAL;
		len = p[off++];
		if (len == 0)
			break;
		if (len & 0xc0) /* compression or extended label */
			return -EINVAL;
		if (off + len > n || tl + len + 1 > DNS_NAME_MAX)
			return -EINVAL;
		if (tl > 0)
			q->name[tl++] = '.';
		for (size_t i = 0; i < len; i++) {
			uint8_t c = p[off + i];

			if (!label_char_ok(c)) {
				q->name_ok = false;
				c = '?';
			}
			q->name[tl++] = (char)c;
		}
		off += len;
	}
	q->name[tl] = '\0';
	if (tl == 0)
		q->name_ok = false;
	if (off + 4 > n)
		return -EINVAL;
	q->qtype = get16(p + off);
	q->qclass = get16(p + off + 2);
	q->qend = off + 4;
	q->rcode = DNS_R_NOERROR;
	return 0;
}

int
dns_build_reply(const uint8_t *p, const struct dns_query *q, int rcode,
    const uint8_t *addr4, uint32_t ttl, uint8_t *out, size_t outlen)
{
	size_t need = q->qend + (addr4 ? 16 : 0);
	uint16_t flags;

	if (q->qend < 12 || need > outlen)
		return -ENOSPC;
	memcpy(out, p, q->qend);
	/* QR, the query's opcode and RD, AA, RA, rcode. */
	flags = (uint16_t)(0x8000 | (q->flags & 0x7900) | 0x0400 | 0x0080 |
	    (rcode & 0xf));
	put16(out + 2, flags);
	put16(out + 4, q->qend > 12 ? 1 : 0);
	put16(out + 6, addr4 ? 1 : 0);
	put16(out + 8, 0);
	put16(out + 10, 0);
	if (addr4) {
		uint8_t *a = out + q->qend;

		put16(a, 0xc00c); /* the question's name */
		put16(a + 2, DNS_T_A);
		put16(a + 4, DNS_C_IN);
		put32(a + 6, ttl);
		put16(a + 10, 4);
		memcpy(a + 12, addr4, 4);
	}
	return (int)need;
}

const char *
dns_type_name(uint16_t t, char *buf, size_t len)
{
	switch (t) {
	case DNS_T_A:
		return "A";
	case DNS_T_AAAA:
		return "AAAA";
	case DNS_T_CNAME:
		return "CNAME";
	case 12:
		return "PTR";
	case 15:
		return "MX";
	case 16:
		return "TXT";
	case 33:
		return "SRV";
	case 65:
		return "HTTPS";
	case 255:
		return "ANY";
	}
	snprintf(buf, len, "TYPE%u", t);
	return buf;
}

int
dns_build_query(
    const char *name, uint16_t type, uint16_t id, uint8_t *out, size_t outlen)
{
	size_t o = 12, nl = strlen(name);
	const char *s = name;

	if (nl == 0 || nl > 253 || outlen < 12 + nl + 2 + 4)
		return -EINVAL;
	memset(out, 0, 12);
	put16(out, id);
	put16(out + 2, 0x0100); /* RD */
	put16(out + 4, 1);
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);

		if (l == 0 || l > 63)
			return -EINVAL;
		out[o++] = (uint8_t)l;
		memcpy(out + o, s, l);
		o += l;
		s += l;
		if (*s == '.')
			s++;
	}
	out[o++] = 0;
	put16(out + o, type);
	put16(out + o + 2, DNS_C_IN);
	return (int)(o + 4);
}

/* Read a possibly compressed name at *off into out (dotted). */
static int
read_name(const uint8_t *p, size_t n, size_t *off, char *out)
{
	size_t o = *off, tl = 0, end = 0;
	unsigned hops = 0;
	bool jumped = false;

	for (;;) {
		uint8_t len;

		if (o >= n)
			return -EINVAL;
		len = p[o];
		if ((len & 0xc0) == 0xc0) {
			size_t ptr;

			if (o + 1 >= n || ++hops > DNS_HOPS_MAX)
				return -EINVAL;
			ptr = (size_t)(get16(p + o) & 0x3fff);
			/* Backwards only: no loops, no forward tricks. */
			if (ptr >= o)
				return -EINVAL;
			if (!jumped)
				end = o + 2;
			jumped = true;
			o = ptr;
			continue;
		}
		if (len & 0xc0)
			return -EINVAL;
		o++;
		if (len == 0)
			break;
		if (o + len > n || tl + len + 1 > DNS_NAME_MAX)
			return -EINVAL;
		if (tl > 0)
			out[tl++] = '.';
		memcpy(out + tl, p + o, len);
		tl += len;
		o += len;
	}
	out[tl] = '\0';
	*off = jumped ? end : o;
	return 0;
}

int
dns_parse_answer(const uint8_t *p, size_t n, uint16_t id, const char *name,
    uint16_t type, struct dns_addr *addrs, size_t max, int *rcode,
    uint32_t *ttl)
{
	char owner[DNS_NAME_MAX + 1];
	char chain[DNS_CHAIN_MAX + 1][DNS_NAME_MAX + 1];
	size_t nchain = 1, off = 12, found = 0;
	uint16_t flags, an;
	uint32_t minttl = UINT32_MAX;

	if (n < 12 || get16(p) != id)
		return -EINVAL;
	flags = get16(p + 2);
	if (!(flags & 0x8000) || ((flags >> 11) & 0xf) != 0)
		return -EINVAL;
	if (get16(p + 4) != 1)
		return -EINVAL;
	/* The question must be ours (RFC 5452: match id and question). */
	if (read_name(p, n, &off, owner) < 0 || strcasecmp(owner, name) != 0)
		return -EINVAL;
	if (off + 4 > n || get16(p + off) != type ||
	    get16(p + off + 2) != DNS_C_IN)
		return -EINVAL;
	off += 4;
	if (flags & 0x0200)
		return -EAGAIN;
	*rcode = flags & 0xf;
	an = get16(p + 6);
	memcpy(chain[0], owner, sizeof(owner)); /* == name but for case */
	for (uint16_t i = 0; i < an; i++) {
		uint16_t rtype, rclass, rdlen;
		uint32_t rttl;
		bool ours = false;

		if (read_name(p, n, &off, owner) < 0 || off + 10 > n)
			return -EINVAL;
		rtype = get16(p + off);
		rclass = get16(p + off + 2);
		rttl = get32(p + off + 4);
		rdlen = get16(p + off + 8);
		off += 10;
		if (off + rdlen > n)
			return -EINVAL;
		for (size_t k = 0; k < nchain; k++)
			if (strcasecmp(owner, chain[k]) == 0)
				ours = true;
		if (ours && rclass == DNS_C_IN) {
			if (rtype == DNS_T_CNAME && nchain <= DNS_CHAIN_MAX) {
				size_t o2 = off;

				if (read_name(
				        p, off + rdlen, &o2, chain[nchain]) < 0)
					return -EINVAL;
				nchain++;
				if (rttl < minttl)
					minttl = rttl;
			} else if (rtype == type && found < max &&
			    ((type == DNS_T_A && rdlen == 4) ||
			        (type == DNS_T_AAAA && rdlen == 16))) {
				addrs[found].family =
				    type == DNS_T_A ? AF_INET : AF_INET6;
				memset(addrs[found].a, 0, 16);
				memcpy(addrs[found].a, p + off, rdlen);
				found++;
				if (rttl < minttl)
					minttl = rttl;
			}
		}
		off += rdlen;
	}
	*ttl = minttl == UINT32_MAX ? 0 : minttl;
	return (int)found;
}
