/*
 * cidr.c: CIDR parsing and address classification.  See cidr.h.
 *
 * Only the strict textual forms are accepted (inet_pton: dotted quad
 * for v4, RFC 4291 text for v6): the policy never needs inet_aton's
 * historic shapes, and refusing them keeps one spelling per address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cidr.h"
#include "util.h"

#define CIDR_TEXT_MAX 64 /* longest v6 text + "/128", generously */

/* Does the first prefix bits of a equal those of b? */
static bool
prefix_eq(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
	unsigned full = prefix / 8, rest = prefix % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

int
cidr_parse(const char *s, struct aisb_cidr *out, const char **why)
{
	char buf[CIDR_TEXT_MAX];
	const char *dummy, *slash;
	size_t alen, i;
	unsigned max, prefix;

	if (why == NULL)
		why = &dummy;
	*why = NULL;
	if (s == NULL || *s == '\0') {
		*why = "empty address";
		return -EINVAL;
	}
	slash = strchr(s, '/');
	alen = slash ? (size_t)(slash - s) : strlen(s);
	if (alen == 0 || alen >= sizeof(buf)) {
		*why = "not an IPv4 or IPv6 address";
		return -EINVAL;
	}
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, buf, out->addr) == 1) {
		out->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, out->addr) == 1) {
		out->family = AF_INET6;
		max = 128;
	} else {
		*why = "not an IPv4 or IPv6 address";
		return -EINVAL;
	}
	prefix = max;
	if (slash) {
		const char *p = slash + 1;

		/* Decimal, no sign, no leading zeros, at most 3 digits. */
		if (*p == '\0' || strlen(p) > 3 || (p[0] == '0' && p[1])) {
			*why = "bad prefix length";
			return -EINVAL;
		}
		prefix = 0;
		for (i = 0; p[i]; i++) {
			if (p[i] < '0' || p[i] > '9') {
				*why = "bad prefix length";
				return -EINVAL;
			}
			prefix = prefix * 10 + (unsigned)(p[i] - '0');
		}
		if (prefix > max) {
			*why = out->family == AF_INET
			    ? "prefix length above 32"
			    : "prefix length above 128";
			return -EINVAL;
		}
	}
	/* Host bits must be zero: "10.1.2.3/8" is a typo, not a network. */
	for (i = 0; i < max; i++) {
		bool bit = (out->addr[i / 8] >> (7 - i % 8)) & 1;

		if (i >= prefix && bit) {
			*why = "host bits set after the prefix";
			return -EINVAL;
		}
	}
	out->prefix = prefix;
	return 0;
}

static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool
cidr_contains(const struct aisb_cidr *c, int family, const void *addr)
{
	const uint8_t *a = addr;

	if (c == NULL || addr == NULL)
		return false;
	if (c->family == family)
		return prefix_eq(c->addr, a, c->prefix);
	/*
	 * ::ffff:a.b.c.d is the v4 address a.b.c.d on the wire: a v4
	 * network covers it (and nothing else crosses families).
	 */
	if (c->family == AF_INET && family == AF_INET6 &&
	    memcmp(a, v4mapped, sizeof(v4mapped)) == 0)
		return prefix_eq(c->addr, a + 12, c->prefix);
	return false;
}

struct special {
	uint8_t addr[16];
	unsigned prefix;
	const char *name;
};

/*
 * IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates),
 * plus cloud metadata addresses.  Order matters: the first match names
 * the range, so the specific entries come first.
 */
static const struct special special4[] = {
    {{169, 254, 169, 254}, 32, "metadata (169.254.169.254)"},
    {{168, 63, 129, 16}, 32, "metadata (Azure wireserver)"},
    {{100, 100, 100, 200}, 32, "metadata (Alibaba)"},
    {{255, 255, 255, 255}, 32, "limited broadcast"},
    {{0}, 8, "this network (0.0.0.0/8)"},
    {{10}, 8, "private (10.0.0.0/8)"},
    {{100, 64}, 10, "shared CGNAT (100.64.0.0/10)"},
    {{127}, 8, "loopback (127.0.0.0/8)"},
    {{169, 254}, 16, "link-local (169.254.0.0/16)"},
    {{172, 16}, 12, "private (172.16.0.0/12)"},
    {{192, 0, 0}, 24, "IETF protocol assignments (192.0.0.0/24)"},
    {{192, 0, 2}, 24, "documentation (192.0.2.0/24)"},
    {{192, 88, 99}, 24, "6to4 relay anycast (192.88.99.0/24)"},
    {{192, 168}, 16, "private (192.168.0.0/16)"},
    {{198, 18}, 15, "benchmarking (198.18.0.0/15)"},
    {{198, 51, 100}, 24, "documentation (198.51.100.0/24)"},
    {{203, 0, 113}, 24, "documentation (203.0.113.0/24)"},
    {{224}, 4, "multicast (224.0.0.0/4)"},
    {{240}, 4, "reserved (240.0.0.0/4)"},
};

/*
 * IANA IPv6 Special-Purpose Address Registry, plus deprecated forms and
 * the AWS metadata address.  The v4-mapped and 6to4 ranges are judged by
 * the v4 address they carry (see cidr_is_special).
 */
static const struct special special6[] = {
    {{0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, [15] = 0x54}, 128,
        "metadata (fd00:ec2::254)"},
    {{0}, 128, "unspecified (::)"},
    {{[15] = 1}, 128, "loopback (::1)"},
    /* v4-compatible ::a.b.c.d (RFC 4291 2.5.5.1, deprecated). */
    {{0}, 96, "IPv4-compatible (::/96, deprecated)"},
    {{0x00, 0x64, 0xff, 0x9b}, 96, "NAT64 (64:ff9b::/96)"},
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, "local NAT64 (64:ff9b:1::/48)"},
    {{0x01}, 64, "discard-only (100::/64)"},
    {{0x20, 0x01, 0x0d, 0xb8}, 32, "documentation (2001:db8::/32)"},
    {{0x20, 0x01}, 23, "IETF protocol assignments (2001::/23)"},
    {{0x3f, 0xff}, 20, "documentation (3fff::/20)"},
    {{0x5f, 0x00}, 16, "segment routing SIDs (5f00::/16)"},
    {{0xfc}, 7, "unique local (fc00::/7)"},
    {{0xfe, 0x80}, 10, "link-local (fe80::/10)"},
    {{0xfe, 0xc0}, 10, "site-local (fec0::/10, deprecated)"},
    {{0xff}, 8, "multicast (ff00::/8)"},
};

static bool
lookup(const struct special *t, size_t n, const uint8_t *a, const char **range)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (prefix_eq(t[i].addr, a, t[i].prefix)) {
			*range = t[i].name;
			return true;
		}
	return false;
}

bool
cidr_is_special(int family, const void *addr, const char **range)
{
	const uint8_t *a = addr;
	const char *dummy;

	if (range == NULL)
		range = &dummy;
	*range = NULL;
	if (addr == NULL) {
		*range = "no address";
		return true;
	}
	if (family == AF_INET)
		return lookup(special4, ELEMENTSOF(special4), a, range);
	if (family != AF_INET6) {
		*range = "unknown address family";
		return true;
	}
	/* ::ffff:a.b.c.d reaches a.b.c.d: judge the v4 address. */
	if (memcmp(a, v4mapped, sizeof(v4mapped)) == 0)
		return lookup(special4, ELEMENTSOF(special4), a + 12, range);
	/* 6to4 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD. */
	if (a[0] == 0x20 && a[1] == 0x02)
		return lookup(special4, ELEMENTSOF(special4), a + 2, range);
	return lookup(special6, ELEMENTSOF(special6), a, range);
}

void
cidr_format(const struct aisb_cidr *c, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (len == 0)
		return;
	if (inet_ntop(c->family, c->addr, a, sizeof(a)) == NULL) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%s/%u", a, c->prefix);
}
