/*
 * test_hostpat.c: host name canonicalisation, wildcard matching and IP
 * literal detection (lib/hostpat.c).
 */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "hostpat.h"

static const char *
canon(const char *in, bool wild, char *out)
{
	const char *why = NULL;

	if (hostpat_canon(in, strlen(in), wild, out, &why) < 0)
		return why ? "ERR" : "ERR(no why)";
	return out;
}

TEST(canonical)
{
	char out[HOST_MAX + 1];
	char big[300];

	is_str(canon("API.Anthropic.COM", false, out), "api.anthropic.com",
	    "lower-cased");
	is_str(canon("example.org.", false, out), "example.org",
	    "one trailing dot dropped");
	is_str(canon("example.org..", false, out), "ERR",
	    "two trailing dots refused");
	is_str(canon("*.github.com", true, out), "*.github.com",
	    "leading wildcard label kept");
	is_str(canon("*.GitHub.com.", true, out), "*.github.com",
	    "wildcard canonicalised");
	is_str(canon("*.github.com", false, out), "ERR",
	    "wildcard refused when not allowed");
	is_str(canon("api.*.github.com", true, out), "ERR",
	    "'*' in the middle refused");
	is_str(canon("a*.github.com", true, out), "ERR",
	    "'*' inside a label refused");
	is_str(canon("*", true, out), "ERR", "bare '*' refused");
	is_str(canon("*.", true, out), "ERR", "'*.' refused");
	is_str(canon("**.x.org", true, out), "ERR", "'**' refused");
	is_str(canon("github.*", true, out), "ERR", "trailing '*' refused");
	is_str(canon("", false, out), "ERR", "empty refused");
	is_str(canon(".", false, out), "ERR", "lone dot refused");
	is_str(canon(".example.org", false, out), "ERR", "leading dot refused");
	is_str(canon("a..b", false, out), "ERR", "empty label refused");
	is_str(canon("-a.org", false, out), "ERR", "leading '-' refused");
	is_str(canon("a-.org", false, out), "ERR", "trailing '-' refused");
	is_str(canon("a-b.org", false, out), "a-b.org", "inner '-' ok");
	is_str(canon("under_score.org", false, out), "ERR", "'_' refused");
	is_str(canon("sp ace.org", false, out), "ERR", "space refused");
	is_str(canon("host:443", false, out), "ERR", "':' refused");
	is_str(canon("xn--bcher-kva.example", false, out),
	    "xn--bcher-kva.example", "punycode ok");
	is_str(canon("b\xc3\xbc"
	             "cher.example",
	           false, out),
	    "ERR", "non-ASCII refused");
	memset(big, 'a', 63);
	memcpy(big + 63, ".org", sizeof(".org"));
	is_str(canon(big, false, out), big, "63-byte label ok");
	memset(big, 'a', 64);
	memcpy(big + 64, ".org", sizeof(".org"));
	is_str(canon(big, false, out), "ERR", "64-byte label refused");
	/* 4 x 63 + 3 dots = 255 > 253 */
	for (int i = 0; i < 4; i++) {
		memset(big + i * 64, 'a', 63);
		big[i * 64 + 63] = '.';
	}
	big[255] = '\0';
	is_str(canon(big, false, out), "ERR", "255-byte name refused");
	big[253 - 2] = '\0'; /* 251 bytes, last label 59 */
	ok(strcmp(canon(big, false, out), "ERR") != 0, "251-byte name ok");
	{
		const char nul[] = "a\0b.org";
		const char *why;

		is_int(hostpat_canon(nul, sizeof(nul) - 1, false, out, &why),
		    -EINVAL, "embedded NUL refused");
	}
}

TEST(no_literals)
{
	char out[HOST_MAX + 1];

	is_str(canon("127.0.0.1", false, out), "ERR", "dotted quad refused");
	is_str(canon("127.1", false, out), "ERR", "short form refused");
	is_str(canon("2130706433", false, out), "ERR", "decimal refused");
	is_str(canon("0x7f000001", false, out), "ERR", "hex refused");
	is_str(canon("0177.0.0.1", false, out), "ERR", "octal refused");
	is_str(canon("1.2.3.4.5", false, out), "ERR",
	    "numeric last label refused");
	is_str(canon("*.1.2.3", true, out), "ERR",
	    "wildcard over numbers refused");
	is_str(canon("[::1]", false, out), "ERR", "bracketed v6 refused");
	is_str(canon("1e100.net", false, out), "1e100.net",
	    "name starting with digits ok");
	is_str(canon("0xdead.example", false, out), "0xdead.example",
	    "hex-looking first label ok");
}

TEST(literals)
{
	static const char *yes[] = {
	    "127.0.0.1",
	    "127.1",
	    "127.0.1",
	    "2130706433",
	    "0x7f000001",
	    "0x7f.1",
	    "0177.0.0.1",
	    "017700000001",
	    "0X7F.0.0.1",
	    "127.0.0.1.",
	    "0",
	    "0x",
	    "::1",
	    "[::1]",
	    "[fe80::1%25eth0]",
	    "fe80::1%eth0",
	    "::ffff:127.0.0.1",
	    "2001:db8::1",
	    "127.0.0.1 trailing",
	    "4294967295",
	    "99999999999",
	    "1.2.3.",
	};
	static const char *no[] = {
	    "example.org",
	    "localhost",
	    "1e100.net",
	    "0xdead.example",
	    "1.2.3.4.5",
	    "a.1",
	    "",
	    ".",
	    "127..1",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		ok(hostpat_is_ip_literal(yes[i], strlen(yes[i])),
		    "'%s' is an IP literal", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(*no); i++)
		ok(!hostpat_is_ip_literal(no[i], strlen(no[i])),
		    "'%s' is not an IP literal", no[i]);
}

TEST(match)
{
	ok(hostpat_match("example.org", "example.org"), "exact match");
	ok(!hostpat_match("example.org", "www.example.org"),
	    "exact does not match subdomain");
	ok(!hostpat_match("example.org", "example.org.evil"),
	    "exact does not match longer");
	ok(hostpat_match("*.github.com", "api.github.com"),
	    "wildcard matches child");
	ok(hostpat_match("*.github.com", "a.b.github.com"),
	    "wildcard matches grandchild");
	ok(!hostpat_match("*.github.com", "github.com"),
	    "wildcard does not match the suffix itself");
	ok(!hostpat_match("*.github.com", "evilgithub.com"),
	    "wildcard needs a label boundary");
	ok(!hostpat_match("*.github.com", "github.com.evil.org"),
	    "wildcard is a suffix match");
	ok(!hostpat_match(NULL, "x"), "NULL pattern never matches");
}

int
main(void)
{
	RUN(canonical);
	RUN(no_literals);
	RUN(literals);
	RUN(match);
	return tap_done();
}
