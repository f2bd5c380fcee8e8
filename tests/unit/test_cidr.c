/*
 * test_cidr.c: CIDR parsing, containment and the special-purpose
 * address registries (lib/cidr.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "cidr.h"

static const char *
roundtrip(const char *s, char *buf)
{
	struct aisb_cidr c;
	const char *why = NULL;

	if (cidr_parse(s, &c, &why) < 0)
		return why ? "ERR" : "ERR(no why)";
	cidr_format(&c, buf, 64);
	return buf;
}

TEST(parse)
{
	char b[64];
	static const char *bad[] = {
	    "",
	    "/8",
	    "10.0.0.0/",
	    "10.0.0.0/33",
	    "10.0.0.0/-1",
	    "10.0.0.0/+8",
	    "10.0.0.0/08",
	    "10.0.0.0/8/8",
	    "10.0.0.0/8 ",
	    "10.1.2.3/8",
	    "10/8",
	    "10.0.0/24",
	    "0x0a.0.0.0/8",
	    "010.0.0.0/8",
	    "example.org",
	    "::1/129",
	    "fe80::1/10",
	    "2001:db8::/1000",
	    "1.2.3.4/32x",
	    "::/",
	    "[::1]/128",
	    "10.0.0.0 /8",
	};
	size_t i;

	is_str(roundtrip("10.0.0.0/8", b), "10.0.0.0/8", "v4 network");
	is_str(
	    roundtrip("198.51.100.7", b), "198.51.100.7/32", "bare v4 is /32");
	is_str(roundtrip("0.0.0.0/0", b), "0.0.0.0/0", "v4 default");
	is_str(roundtrip("2001:DB8::/32", b), "2001:db8::/32", "v6 network");
	is_str(roundtrip("::1", b), "::1/128", "bare v6 is /128");
	is_str(roundtrip("::/0", b), "::/0", "v6 default");
	is_str(roundtrip("203.0.113.128/25", b), "203.0.113.128/25",
	    "non-octet prefix");
	is_str(roundtrip("::ffff:10.0.0.0/104", b), "::ffff:10.0.0.0/104",
	    "v4-mapped v6 network stays v6");
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		is_str(roundtrip(bad[i], b), "ERR", "'%s' refused", bad[i]);
}

static bool
contains(const char *net, const char *addr)
{
	struct aisb_cidr c;
	uint8_t a[16];
	const char *why;

	if (cidr_parse(net, &c, &why) < 0)
		return false;
	if (inet_pton(AF_INET, addr, a) == 1)
		return cidr_contains(&c, AF_INET, a);
	if (inet_pton(AF_INET6, addr, a) == 1)
		return cidr_contains(&c, AF_INET6, a);
	return false;
}

TEST(contains)
{
	ok(contains("198.51.100.0/24", "198.51.100.200"), "v4 inside");
	ok(!contains("198.51.100.0/24", "198.51.101.1"), "v4 outside");
	ok(contains("203.0.113.128/25", "203.0.113.129"), "/25 inside");
	ok(!contains("203.0.113.128/25", "203.0.113.127"), "/25 outside");
	ok(contains("0.0.0.0/0", "8.8.8.8"), "/0 covers all v4");
	ok(!contains("0.0.0.0/0", "::1"), "v4 /0 does not cover v6");
	ok(contains("198.51.100.0/24", "::ffff:198.51.100.9"),
	    "v4 network covers its v4-mapped form");
	ok(!contains("::/0", "10.0.0.1"), "v6 /0 does not cover v4");
	ok(contains("2001:db8::/32", "2001:db8:1::5"), "v6 inside");
	ok(!contains("2001:db8::/32", "2001:db9::5"), "v6 outside");
	ok(contains("198.51.100.7", "198.51.100.7"), "/32 itself");
	ok(!contains("198.51.100.7", "198.51.100.8"), "/32 only itself");
}

static bool
special(const char *addr, const char **range)
{
	uint8_t a[16];

	if (inet_pton(AF_INET, addr, a) == 1)
		return cidr_is_special(AF_INET, a, range);
	if (inet_pton(AF_INET6, addr, a) == 1)
		return cidr_is_special(AF_INET6, a, range);
	*range = "unparsable test input";
	return true;
}

TEST(special)
{
	static const char *yes[] = {
	    "0.0.0.0",
	    "0.255.1.1",
	    "10.1.2.3",
	    "100.64.0.1",
	    "100.127.255.255",
	    "127.0.0.1",
	    "127.255.0.9",
	    "169.254.169.254",
	    "169.254.0.1",
	    "172.16.0.1",
	    "172.31.255.255",
	    "192.0.0.8",
	    "192.0.2.1",
	    "192.88.99.1",
	    "192.168.1.1",
	    "198.18.0.1",
	    "198.19.255.255",
	    "198.51.100.1",
	    "203.0.113.9",
	    "224.0.0.1",
	    "239.255.255.250",
	    "240.0.0.1",
	    "255.255.255.255",
	    "::",
	    "::1",
	    "::ffff:127.0.0.1",
	    "::ffff:169.254.169.254",
	    "::ffff:10.0.0.1",
	    "::127.0.0.1",
	    "::8.8.8.8",
	    "64:ff9b::8.8.8.8",
	    "64:ff9b:1::1",
	    "100::1",
	    "2001::1",
	    "2001:1ff::1",
	    "2001:db8::1",
	    "2002:7f00:1::1",
	    "2002:a9fe:a9fe::",
	    "fc00::1",
	    "fd00:ec2::254",
	    "fd12::1",
	    "fe80::1",
	    "febf::1",
	    "fec0::1",
	    "ff02::1",
	    "3fff::1",
	    "5f00::1",
	};
	static const char *no[] = {
	    "8.8.8.8",
	    "1.1.1.1",
	    "100.63.255.255",
	    "100.128.0.0",
	    "126.255.255.255",
	    "128.0.0.1",
	    "169.253.255.255",
	    "172.15.255.255",
	    "172.32.0.0",
	    "192.0.1.255",
	    "192.0.3.0",
	    "192.88.98.1",
	    "192.169.0.1",
	    "198.17.255.255",
	    "198.20.0.0",
	    "198.51.99.1",
	    "203.0.112.1",
	    "223.255.255.255",
	    "::ffff:8.8.8.8",
	    "2606:4700::1111",
	    "2001:4860:4860::8888",
	    "2002:808:808::1",
	    "2001:200::1",
	};
	const char *r;
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		r = NULL;
		ok(special(yes[i], &r) && r != NULL, "%s is special (%s)",
		    yes[i], r ? r : "?");
	}
	for (i = 0; i < sizeof(no) / sizeof(*no); i++) {
		r = NULL;
		ok(!special(no[i], &r), "%s is not special%s%s", no[i],
		    r ? ": " : "", r ? r : "");
	}
	special("169.254.169.254", &r);
	ok(strstr(r, "metadata") != NULL, "169.254.169.254 is named metadata");
	special("fd00:ec2::254", &r);
	ok(strstr(r, "metadata") != NULL, "fd00:ec2::254 is named metadata");
	special("::ffff:127.0.0.1", &r);
	ok(strstr(r, "loopback") != NULL, "mapped loopback named loopback");
	ok(cidr_is_special(AF_UNIX, "xxxxxxxxxxxxxxxx", &r),
	    "unknown family is special (fail closed)");
}

int
main(void)
{
	RUN(parse);
	RUN(contains);
	RUN(special);
	return tap_done();
}
