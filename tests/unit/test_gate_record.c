/*
 * test_gate_record.c: the gate's decision records (gate/record.c), line
 * by line as they reach syslog and --log-stderr, and their rate limits.
 * The expected lines are the formats the tests and the admin guide
 * read (tests/gate/, docs/architecture.md "Logging").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "gate.h"

static int out_fd = -1;
static char got[1 << 20];

/* Everything the records wrote to stderr since the last call. */
static const char *
taken(void)
{
	static off_t from;
	ssize_t n = pread(out_fd, got, sizeof(got) - 1, from);

	if (n < 0)
		n = 0;
	got[n] = '\0';
	from += n;
	return got;
}

static unsigned
count(const char *s, const char *what)
{
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

/* The sum of the "N connection log lines suppressed" reports in s. */
static unsigned
suppressed(const char *s)
{
	const char *tag = "aisb-gate: ",
	           *what = " connection log lines "
	                   "suppressed (rate limit)";
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, tag)) != NULL; p++) {
		char *end;
		unsigned long k = strtoul(p + strlen(tag), &end, 10);

		if (end != p + strlen(tag) &&
		    strncmp(end, what, strlen(what)) == 0)
			n += (unsigned)k;
	}
	return n;
}

TEST(lines)
{
	const struct record_conn proxy = {
	    "proxy", "a.test", 443, "198.51.100.7"};
	const struct record_conn capture = {"capture", "b.test", 22, ""};

	record_ready("s1", "agent", 2, 1);
	is_str(taken(),
	    "aisb-gate: gate ready: session s1, user agent, 2 allow and 1 "
	    "deny entries\n",
	    "ready");
	record_allow(&proxy, "network.allow entry a.test (f:3)", false);
	is_str(taken(),
	    "aisb-gate: allow proxy name=a.test port=443 "
	    "address=198.51.100.7 rule=\"network.allow entry a.test (f:3)\"\n",
	    "allow");
	record_allow(&proxy, "network.allow entry a.test (f:3)", true);
	is_str(taken(),
	    "aisb-gate: allow proxy name=a.test port=443 "
	    "address=198.51.100.7 rule=\"network.allow entry a.test (f:3)\" "
	    "(keep-alive)\n",
	    "allow, keep-alive");
	record_deny(&capture, "network.ports",
	    "port 22 of b.test is not allowed by network.allow");
	is_str(taken(),
	    "aisb-gate: deny capture name=b.test port=22 rule=network.ports "
	    "reason=\"port 22 of b.test is not allowed by network.allow\"\n",
	    "deny");
	record_deny_nodst(ENOENT);
	is_str(taken(),
	    "aisb-gate: deny capture: no original destination (No such "
	    "file or directory)\n",
	    "deny, no original destination");
	record_refuse(&capture, "127.0.0.1", "loopback");
	is_str(taken(),
	    "aisb-gate: refuse capture name=b.test port=22 address=127.0.0.1 "
	    "reason=\"special-purpose range loopback\"\n",
	    "refuse");
	record_unreachable(&proxy, "lookup failed: NXDOMAIN");
	is_str(taken(),
	    "aisb-gate: unreachable proxy name=a.test port=443 "
	    "reason=\"lookup failed: NXDOMAIN\"\n",
	    "unreachable");
	record_close(&proxy, 10, 20, 30);
	is_str(taken(),
	    "aisb-gate: close proxy name=a.test port=443 "
	    "address=198.51.100.7 up=10 down=20 duration=30ms\n",
	    "close");
	record_error(&proxy, "no pipe for the relay", EMFILE);
	is_str(taken(),
	    "aisb-gate: error proxy name=a.test port=443: no pipe for the "
	    "relay (Too many open files)\n",
	    "error");
	record_bad_request("proxy", NULL, "no Host header");
	is_str(taken(), "aisb-gate: bad request proxy: no Host header\n",
	    "bad request before a name");
	record_bad_request("proxy", "a.test", "bad chunked body");
	is_str(taken(),
	    "aisb-gate: bad request proxy name=a.test: bad chunked body\n",
	    "bad request with a name");
	record_refusing(1024, 1024);
	record_refusing(1024, 1024);
	is_str(taken(),
	    "aisb-gate: refusing connections: 1024 open (limit 1024)\n",
	    "refusing connections: once a second");
	record_dns("udp", "a.test", DNS_T_A, "allow", 0xc6120001);
	is_str(taken(),
	    "aisb-gate: dns udp query name=a.test type=A decision=allow "
	    "address=198.18.0.1\n",
	    "dns, a synthetic address");
	record_dns("tcp", "", 99, "deny (NXDOMAIN)", 0);
	is_str(taken(),
	    "aisb-gate: dns tcp query name=. type=TYPE99 "
	    "decision=deny (NXDOMAIN)\n",
	    "dns, the root name and a type without a name");
}

/* Past the burst, lines are dropped and counted, then reported. */
TEST(rates)
{
	const struct record_conn s = {"proxy", "a.test", 80, ""};
	const char *t;
	unsigned lines, early;
	struct timespec t0, t1;
	long ms;

	/* The connection bucket: lines() used 12 of its 1000. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 1100; i++)
		record_unreachable(&s, "x");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000;
	t = taken();
	lines = count(t, "unreachable proxy");
	/* A slow loop (ASan, emulation) gets tokens back on the way: the
	 * drops before each are reported with the line it then shows. */
	early = suppressed(t);
	if (lines == 1100) {
		/* 1100 records took longer than the 200 a second refill
		 * needs to keep up (0.5 s): where each also goes to a real
		 * journal under emulation (the VM lane's fresh machine).
		 * Nothing was dropped, so there is nothing to count. */
		char why[160];

		snprintf(why, sizeof(why),
		    "the burst took %ld ms, slower than the bucket refills: "
		    "nothing dropped",
		    ms);
		tap_skip(why, "connection records: a burst, then dropped");
		tap_skip(why, "... the drop is reported with the next line");
		tap_skip(why, "... with the count");
		(void)taken();
		goto dns;
	}
	ok(lines >= 980 && lines < 1100,
	    "connection records: a burst of 1000, then dropped (%u shown)",
	    lines);
	usleep(20 * 1000); /* 200 a second: a few tokens back */
	record_unreachable(&s, "x");
	t = taken();
	ok(strstr(t, " connection log lines suppressed (rate limit)\n") &&
	        strstr(t, "unreachable proxy name=a.test port=80"),
	    "... the drop is reported with the next line");
	/*
	 * Every line not shown is counted, exactly, however many tokens
	 * came back while the loop ran: the reports on the way plus this
	 * one.
	 */
	ok(lines < 1100 && early + suppressed(t) == 1100 - lines,
	    "... with the count, %u (%u on the way, then %.60s)", 1100 - lines,
	    early, t);

dns:
	for (int i = 0; i < 150; i++)
		record_dns("udp", "a.test", DNS_T_AAAA, "allow (no data)", 0);
	lines = count(taken(), "dns udp query");
	ok(lines >= 95 && lines < 150,
	    "DNS records: a burst of 100, then dropped (%u shown)", lines);
	usleep(200 * 1000); /* 20 a second: a few tokens back */
	record_dns("udp", "a.test", DNS_T_AAAA, "allow (no data)", 0);
	t = taken();
	ok(strstr(t, " DNS query log lines suppressed (rate limit)\n") != NULL,
	    "... reported in a line of their own");
}

int
main(void)
{
	/* stderr into a file that the test reads back. */
	out_fd = memfd_create("records", MFD_CLOEXEC);
	if (out_fd < 0 || dup2(out_fd, 2) < 0) {
		printf("1..0 # SKIP no memfd\n");
		return 0;
	}
	record_open(true, "-", "-");
	RUN(lines);
	RUN(rates);
	return tap_done();
}
