/*
 * decide.c: the one policy decision, used by the proxy, the capture
 * port and the DNS stub alike, so the three paths cannot disagree.
 *
 * Order: IP literals (any form inet_aton or inet_pton reads) only via
 * network.allow_cidr; then the canonical name; network.deny wins; then
 * network.allow with the entry's ports or network.ports, exact entries
 * before "*." ones, and a "*." entry only within its bound of distinct
 * names (suffix.c, network.suffix_names).  Addresses a name resolves to
 * are checked separately (decide_addr) because they are only known
 * after the lookup.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cidr.h"
#include "gate.h"

static bool
port_in(const uint16_t *ports, size_t n, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

static bool
cidr_allowed(const struct aisb_policy *p, const struct dns_addr *a)
{
	for (size_t i = 0; i < p->net.nallow_cidr; i++)
		if (cidr_contains(&p->net.allow_cidr[i], a->family, a->a))
			return true;
	return false;
}

static int
parse_literal(const char *host, struct dns_addr *a)
{
	char buf[HOST_MAX + 3];
	size_t l = strlen(host);
	struct in_addr a4;

	memset(a, 0, sizeof(*a));
	if (host[0] == '[') {
		if (l < 3 || host[l - 1] != ']' || l - 2 >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, host + 1, l - 2);
		buf[l - 2] = '\0';
		a->family = AF_INET6;
		return inet_pton(AF_INET6, buf, a->a) == 1 ? 0 : -EINVAL;
	}
	if (strchr(host, ':')) {
		a->family = AF_INET6;
		return inet_pton(AF_INET6, host, a->a) == 1 ? 0 : -EINVAL;
	}
	/* inet_aton: "127.1", "2130706433", "0x7f.1", "0177.0.0.1". */
	if (inet_aton(host, &a4) == 0)
		return -EINVAL;
	a->family = AF_INET;
	memcpy(a->a, &a4, 4);
	return 0;
}

void
decide_fmt_addr(const struct dns_addr *a, char *buf, size_t len)
{
	if (inet_ntop(a->family, a->a, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

void
decide_target(const struct aisb_policy *p, const char *host, uint16_t port,
    struct verdict *v)
{
	const struct aisb_hostrule *bounded = NULL;
	const char *why;
	bool named = false;

	memset(v, 0, sizeof(*v));
	v->d = DEC_DENY;
	snprintf(v->name, sizeof(v->name), "%s", host);
	if (hostpat_is_ip_literal(host, strlen(host))) {
		char a[INET6_ADDRSTRLEN];

		v->rule = "network.allow_cidr";
		if (parse_literal(host, &v->addr) < 0) {
			snprintf(v->why, sizeof(v->why),
			    "%.200s:%u is an IP "
			    "literal that is not a valid address",
			    host, port);
			return;
		}
		decide_fmt_addr(&v->addr, a, sizeof(a));
		if (!cidr_allowed(p, &v->addr)) {
			snprintf(v->why, sizeof(v->why),
			    "IP literal %.200s "
			    "(%s) is not in network.allow_cidr",
			    host, a);
			return;
		}
		if (!port_in(p->net.ports, p->net.nports, port)) {
			v->rule = "network.ports";
			snprintf(v->why, sizeof(v->why),
			    "port %u of %s is "
			    "not in network.ports",
			    port, a);
			return;
		}
		snprintf(v->name, sizeof(v->name), "%s", a);
		snprintf(
		    v->why, sizeof(v->why), "%s is in network.allow_cidr", a);
		v->d = DEC_ALLOW_ADDR;
		return;
	}
	if (hostpat_canon(host, strlen(host), false, v->name, &why) < 0) {
		snprintf(v->name, sizeof(v->name), "%s", host);
		v->rule = "invalid-host";
		snprintf(v->why, sizeof(v->why),
		    "'%.200s' is not a valid host "
		    "name (%s)",
		    host, why);
		return;
	}
	for (size_t i = 0; i < p->net.ndeny; i++) {
		const struct aisb_hostrule *r = &p->net.deny[i];

		if (hostpat_match(r->host, v->name) &&
		    (r->nports == 0 || port_in(r->ports, r->nports, port))) {
			v->rule = "network.deny";
			snprintf(v->why, sizeof(v->why),
			    "%s:%u is denied by "
			    "network.deny entry %s (%s)",
			    v->name, port, r->host, r->src ? r->src : "?");
			return;
		}
	}
	/* Exact entries first: a name listed as itself never counts
	 * against a "*." entry's bound. */
	for (int wild = 0; wild < 2; wild++)
		for (size_t i = 0; i < p->net.nallow; i++) {
			const struct aisb_hostrule *r = &p->net.allow[i];

			if ((r->host[0] == '*') != wild ||
			    !hostpat_match(r->host, v->name))
				continue;
			named = true;
			if (!(r->nports ? port_in(r->ports, r->nports, port)
			                : port_in(p->net.ports, p->net.nports,
			                      port)))
				continue;
			if (!suffix_admit(p, i, v->name)) {
				bounded = r;
				continue;
			}
			v->d = DEC_ALLOW_NAME;
			v->rule = "network.allow";
			snprintf(v->why, sizeof(v->why),
			    "network.allow entry "
			    "%s (%s)",
			    r->host, r->src ? r->src : "?");
			return;
		}
	if (bounded) {
		v->rule = "network.suffix_names";
		snprintf(v->why, sizeof(v->why),
		    "%s is a new name below network.allow entry %s (%s), "
		    "which has had its %u distinct names this session "
		    "(network.suffix_names)",
		    v->name, bounded->host, bounded->src ? bounded->src : "?",
		    (unsigned)p->net.suffix_names);
	} else if (named) {
		v->rule = "network.ports";
		snprintf(v->why, sizeof(v->why),
		    "port %u of %s is not "
		    "allowed by network.allow",
		    port, v->name);
	} else {
		v->rule = "network.allow";
		snprintf(v->why, sizeof(v->why),
		    "%s:%u is not in "
		    "network.allow",
		    v->name, port);
	}
}

bool
decide_name(const struct aisb_policy *p, const char *canon, const char **rule)
{
	for (size_t i = 0; i < p->net.ndeny; i++)
		if (p->net.deny[i].nports == 0 &&
		    hostpat_match(p->net.deny[i].host, canon)) {
			*rule = "network.deny";
			return false;
		}
	*rule = "network.allow";
	for (int wild = 0; wild < 2; wild++)
		for (size_t i = 0; i < p->net.nallow; i++) {
			const char *h = p->net.allow[i].host;

			if ((h[0] == '*') != wild || !hostpat_match(h, canon))
				continue;
			if (suffix_admit(p, i, canon)) {
				*rule = "network.allow";
				return true;
			}
			*rule = "network.suffix_names";
		}
	return false;
}

bool
decide_addr(
    const struct aisb_policy *p, const struct dns_addr *a, const char **range)
{
	if (!cidr_is_special(a->family, a->a, range))
		return true;
	return cidr_allowed(p, a);
}
