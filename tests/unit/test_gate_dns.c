/*
 * test_gate_dns.c: DNS messages (gate/dns.c), the stub's answers
 * (gate/stub.c) and the policy decision (gate/decide.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "cidr.h"
#include "gate.h"

static struct aisb_hostrule allow[] = {
    {.host = "api.test"},
    {.host = "*.svc.test", .ports = (uint16_t[]){22, 443}, .nports = 2},
};
static struct aisb_hostrule deny[] = {{.host = "bad.svc.test"}};
static struct aisb_cidr cidrs[1];
static uint16_t default_ports[] = {80, 443};
static struct aisb_policy pol;

static void
setup(void)
{
	const char *why;

	pol.net.allow = allow;
	pol.net.nallow = 2;
	pol.net.deny = deny;
	pol.net.ndeny = 1;
	pol.net.ports = default_ports;
	pol.net.nports = 2;
	cidr_parse("203.0.113.0/24", &cidrs[0], &why);
	pol.net.allow_cidr = cidrs;
	pol.net.nallow_cidr = 1;
}

TEST(messages)
{
	uint8_t q[512], r[600];
	struct dns_query dq;
	struct dns_addr a[4];
	uint32_t ttl;
	int n, m, rcode;
	uint8_t addr[4] = {198, 51, 100, 7};

	n = dns_build_query("Api.Test", DNS_T_A, 0xbeef, q, sizeof(q));
	ok(n > 12, "query built");
	is_int(dns_parse_query(q, (size_t)n, &dq), 0, "and parses");
	is_str(dq.name, "Api.Test", "name read back");
	ok(dq.qtype == DNS_T_A && dq.qclass == DNS_C_IN && dq.name_ok,
	    "type, class");
	m = dns_build_reply(q, &dq, DNS_R_NOERROR, addr, 42, r, sizeof(r));
	ok(m == n + 16, "reply with one A record");
	is_int(dns_parse_answer(r, (size_t)m, 0xbeef, "api.test", DNS_T_A, a, 4,
	           &rcode, &ttl),
	    1, "the resolver side reads it back");
	ok(a[0].family == AF_INET && memcmp(a[0].a, addr, 4) == 0 && ttl == 42,
	    "address and TTL");
	is_int(dns_parse_answer(r, (size_t)m, 0xbeee, "api.test", DNS_T_A, a, 4,
	           &rcode, &ttl),
	    -EINVAL, "another id: not ours");
	is_int(dns_parse_answer(r, (size_t)m, 0xbeef, "other.test", DNS_T_A, a,
	           4, &rcode, &ttl),
	    -EINVAL, "another question: not ours");
	r[2] |= 0x02;
	is_int(dns_parse_answer(r, (size_t)m, 0xbeef, "api.test", DNS_T_A, a, 4,
	           &rcode, &ttl),
	    -EAGAIN, "truncated: retry over TCP");

	/* A compression pointer in a query is refused. */
	memcpy(q + 12, "\xc0\x0c\0\1\0\1", 6);
	ok(dns_parse_query(q, 18, &dq) < 0 && dq.rcode == DNS_R_FORMERR,
	    "compression in a query: FORMERR");
	/* A pointer loop in an answer is refused. */
	n = dns_build_query("a.test", DNS_T_A, 1, q, sizeof(q));
	memcpy(r, q, (size_t)n);
	r[2] = 0x81;
	r[7] = 1;
	memcpy(r + n, "\xc0\x0c\0\5\0\1\0\0\0\1\0\2\xc0\x00", 14);
	memcpy(r + n + 14, "\xc0\x00", 2);
	ok(dns_parse_answer(r, (size_t)n + 14, 1, "a.test", DNS_T_A, a, 4,
	       &rcode, &ttl) <= 0,
	    "a CNAME pointing at the header: no address");
}

TEST(stub)
{
	uint8_t q[512], r[600];
	int n, m;

	synth_reset();
	n = dns_build_query("x.svc.test", DNS_T_A, 7, q, sizeof(q));
	m = stub_answer(&pol, q, (size_t)n, r, sizeof(r));
	ok(m == n + 16 && (r[3] & 0xf) == 0, "allowed name: one A record");
	ok(r[m - 4] == 198 && r[m - 3] == 18, "from 198.18.0.0/15");
	ok(synth_name((uint32_t)r[m - 4] << 24 | (uint32_t)r[m - 3] << 16 |
	       (uint32_t)r[m - 2] << 8 | r[m - 1]) != NULL,
	    "the address maps back to the name");
	n = dns_build_query("bad.svc.test", DNS_T_A, 8, q, sizeof(q));
	m = stub_answer(&pol, q, (size_t)n, r, sizeof(r));
	ok(m == n && (r[3] & 0xf) == DNS_R_NXDOMAIN, "denied name: NXDOMAIN");
	n = dns_build_query("svc.test", DNS_T_A, 9, q, sizeof(q));
	m = stub_answer(&pol, q, (size_t)n, r, sizeof(r));
	ok(m == n && (r[3] & 0xf) == DNS_R_NXDOMAIN,
	    "*.suffix does not cover the suffix");
	n = dns_build_query("api.test", DNS_T_AAAA, 10, q, sizeof(q));
	m = stub_answer(&pol, q, (size_t)n, r, sizeof(r));
	ok(m == n && (r[3] & 0xf) == 0 && r[7] == 0,
	    "AAAA: NOERROR, no answer");
	synth_reset();
}

TEST(decide)
{
	struct verdict v;
	struct dns_addr a = {.family = AF_INET};
	const char *range;

	decide_target(&pol, "API.test.", 443, &v);
	ok(v.d == DEC_ALLOW_NAME && strcmp(v.name, "api.test") == 0,
	    "canonical name allowed on network.ports");
	decide_target(&pol, "api.test", 22, &v);
	ok(v.d == DEC_DENY && strcmp(v.rule, "network.ports") == 0,
	    "... not on another port");
	decide_target(&pol, "git.svc.test", 22, &v);
	ok(v.d == DEC_ALLOW_NAME, "entry ports: 22 allowed");
	decide_target(&pol, "bad.svc.test", 443, &v);
	ok(v.d == DEC_DENY && strcmp(v.rule, "network.deny") == 0, "deny wins");
	decide_target(&pol, "127.0.0.1", 80, &v);
	ok(v.d == DEC_DENY && strcmp(v.rule, "network.allow_cidr") == 0,
	    "IP literal refused");
	decide_target(&pol, "2130706433", 80, &v);
	ok(v.d == DEC_DENY, "decimal IP literal refused");
	decide_target(&pol, "[::1]", 80, &v);
	ok(v.d == DEC_DENY, "[::1] refused");
	decide_target(&pol, "203.0.113.9", 443, &v);
	ok(v.d == DEC_ALLOW_ADDR, "IP literal inside allow_cidr allowed");
	decide_target(&pol, "evil.test", 443, &v);
	ok(v.d == DEC_DENY && strstr(v.why, "not in network.allow"),
	    "unlisted name: %s", v.why);
	inet_pton(AF_INET, "169.254.169.254", a.a);
	ok(!decide_addr(&pol, &a, &range), "metadata address refused (%s)",
	    range);
	inet_pton(AF_INET, "203.0.113.9", a.a);
	ok(decide_addr(&pol, &a, &range),
	    "documentation range in allow_cidr "
	    "accepted");
	a.family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:127.0.0.1", a.a);
	ok(!decide_addr(&pol, &a, &range), "v4-mapped loopback refused");
}

/* A deny *.suffix beside an allow *.suffix; the bound on names below
 * a "*." allow entry (network.suffix_names), on the proxy's and the
 * stub's decision alike. */
TEST(suffix)
{
	struct aisb_hostrule al[] = {
	    {.host = "*.ex.test"}, {.host = "www.ex.test"}};
	struct aisb_hostrule dn[] = {{.host = "*.bad.ex.test"}};
	struct aisb_policy sp = pol;
	struct verdict v;
	const char *rule;

	sp.net.allow = al;
	sp.net.nallow = 2;
	sp.net.deny = dn;
	sp.net.ndeny = 1;
	sp.net.suffix_names = 2;
	decide_target(&sp, "x.bad.ex.test", 443, &v);
	ok(v.d == DEC_DENY && strcmp(v.rule, "network.deny") == 0,
	    "deny *.bad.ex.test refuses x.bad.ex.test beside allow *.ex.test");
	ok(!decide_name(&sp, "x.bad.ex.test", &rule) &&
	        strcmp(rule, "network.deny") == 0,
	    "... in the stub too");
	decide_target(&sp, "xbad.ex.test", 443, &v);
	ok(v.d == DEC_ALLOW_NAME, "xbad.ex.test is not below it (1 of 2)");
	ok(decide_name(&sp, "a.ex.test", &rule), "a.ex.test (2 of 2)");
	decide_target(&sp, "c.ex.test", 443, &v);
	ok(v.d == DEC_DENY && strcmp(v.rule, "network.suffix_names") == 0,
	    "a third name: refused by network.suffix_names (%s)", v.why);
	ok(!decide_name(&sp, "d.ex.test", &rule) &&
	        strcmp(rule, "network.suffix_names") == 0,
	    "... by the stub too");
	decide_target(&sp, "A.ex.test", 443, &v);
	ok(v.d == DEC_ALLOW_NAME, "a counted name stays allowed");
	ok(decide_name(&sp, "xbad.ex.test", &rule), "... in the stub too");
	decide_target(&sp, "www.ex.test", 443, &v);
	ok(v.d == DEC_ALLOW_NAME && strstr(v.why, "www.ex.test"),
	    "an exact entry is not counted: %s", v.why);
	sp.net.suffix_names = 0;
	decide_target(&sp, "e.ex.test", 443, &v);
	ok(v.d == DEC_ALLOW_NAME, "suffix_names = 0: no bound");
	suffix_reset();
}

TEST(resolvconf)
{
	struct sockaddr_storage ss[GATE_MAX_NS];
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss[0];
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss[0];
	socklen_t l[GATE_MAX_NS];
	char a[64], b[64], c[64];

	is_int(resolv_parse_conf("# x\nsearch example\nnameserver 198.51.100.2 "
	                         "# c\nnameserver 198.51.100.3\n",
	           NULL, ss, l),
	    2, "resolv.conf: both nameservers");
	inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
	inet_ntop(
	    AF_INET, &((struct sockaddr_in *)&ss[1])->sin_addr, b, sizeof(b));
	ok(ss[0].ss_family == AF_INET && strcmp(a, "198.51.100.2") == 0 &&
	        ntohs(s4->sin_port) == 53 && strcmp(b, "198.51.100.3") == 0,
	    "... in order, port 53 (%s, %s)", a, b);
	is_int(resolv_parse_conf("nameserver 198.51.100.1\nnameserver bogus\n"
	                         "nameserver\t2001:db8::2\n"
	                         "nameserver 198.51.100.4\n"
	                         "nameserver 198.51.100.5\n",
	           NULL, ss, l),
	    GATE_MAX_NS,
	    "at most three (MAXNS), lines without an address skipped");
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss[1])->sin6_addr, b,
	    sizeof(b));
	inet_ntop(
	    AF_INET, &((struct sockaddr_in *)&ss[2])->sin_addr, c, sizeof(c));
	ok(ss[1].ss_family == AF_INET6 && strcmp(b, "2001:db8::2") == 0 &&
	        l[1] == sizeof(struct sockaddr_in6) &&
	        strcmp(c, "198.51.100.4") == 0,
	    "... v6 kept, the fourth one ignored (%s, %s)", b, c);
	is_int(resolv_parse_conf("", NULL, ss, l), 1, "no nameserver line");
	ok(s4->sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	    "... 127.0.0.1, as glibc does");
	is_int(resolv_parse_conf("nameserver x\n", NULL, ss, l), 1,
	    "no usable nameserver line");
	ok(s4->sin_addr.s_addr == htonl(INADDR_LOOPBACK), "... 127.0.0.1 too");
	is_int(resolv_parse_conf("nameserver 10.0.0.1\nnameserver 10.0.0.2\n",
	           "203.0.113.5:5353", ss, l),
	    1, "network.resolver ADDR:PORT wins, alone");
	ok(ntohs(s4->sin_port) == 5353, "... with its port");
	is_int(
	    resolv_parse_conf(NULL, "[2001:db8::1]:54", ss, l), 1, "[V6]:PORT");
	ok(ss[0].ss_family == AF_INET6 && ntohs(s6->sin6_port) == 54,
	    "... v6 and port");
	is_int(resolv_parse_conf(NULL, "2001:db8::1", ss, l), 1, "bare v6");
	is_int(resolv_parse_conf(NULL, "resolver.example", ss, l), -EINVAL,
	    "a name is not an address");
	is_int(resolv_parse_conf(NULL, "198.51.100.1,198.51.100.2", ss, l),
	    -EINVAL, "network.resolver is one address, not a list");
}

int
main(void)
{
	setup();
	RUN(messages);
	RUN(stub);
	RUN(decide);
	RUN(suffix);
	RUN(resolvconf);
	return tap_done();
}
