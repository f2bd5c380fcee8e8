/*
 * test_gate_egress.c: the gate's egress record (gate/egress.c) as
 * aisb-shell receives it: every message a valid record line that the
 * outer's own reader (shell/registry.c) accepts, one notice per name
 * whatever the path and port, the first lookup failure as "unresolved",
 * the rate limit on notices, and a table that stops at GATE_EGRESS_MAX
 * and counts the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"
#include "gate.h"
#include "kvline.h"
#include "registry.h"

#define like_str(s, sub, ...)                                                  \
	do {                                                                   \
		const char *_s = (s);                                          \
		if (!ok(_s && strstr(_s, sub), __VA_ARGS__))                   \
			printf("#   got '%s'\n", _s ? _s : "(null)");          \
	} while (0)

static int peer = -1;

/* Every message waiting, each checked; returns how many of type. */
static unsigned
drain(const char *type, const char *name_sub, char *last, size_t lastlen)
{
	char m[KVLINE_MAX + 1];
	unsigned n = 0;
	ssize_t k;

	while ((k = recv(peer, m, sizeof(m) - 1, MSG_DONTWAIT)) > 0) {
		struct kvline l;
		char copy[KVLINE_MAX + 1];

		m[k] = '\0';
		memcpy(copy, m, (size_t)k + 1);
		if (kvline_parse(copy, &l) < 0) {
			ok(0, "a message is a record line: %s", m);
			continue;
		}
		if (strcmp(l.type, "egress") == 0) {
			struct registry_egress e;

			if (registry_egress_from(&l, &e) < 0)
				ok(0, "the outer takes the entry: %s", m);
		}
		if (strcmp(l.type, type) == 0 &&
		    (name_sub == NULL || strstr(m, name_sub))) {
			n++;
			if (last && lastlen > 0) {
				size_t c = (size_t)k < lastlen - 1
				    ? (size_t)k
				    : lastlen - 1;

				memcpy(last, m, c);
				last[c] = '\0';
			}
		}
	}
	return n;
}

static char last_dropped[KVLINE_MAX + 1];

/* Count the notices and entries waiting (the last "dropped" kept);
 * returns how many messages. */
static unsigned
pending(unsigned *notices, unsigned *entries)
{
	char m[KVLINE_MAX + 1];
	unsigned n = 0;
	ssize_t k;

	while ((k = recv(peer, m, sizeof(m) - 1, MSG_DONTWAIT)) > 0) {
		m[k] = '\0';
		n++;
		if (strncmp(m, "notice ", 7) == 0 && strstr(m, "flood"))
			(*notices)++;
		if (strncmp(m, "egress ", 7) == 0 && strstr(m, "flood"))
			(*entries)++;
		if (strncmp(m, "dropped ", 8) == 0)
			memcpy(last_dropped, m, (size_t)k + 1);
	}
	return n;
}

static void
tick(void)
{
	egress_tick(loop_now());
}

TEST(notices_once_per_name)
{
	const struct record_conn p443 = {"proxy", "Evil.Example", 443, ""},
	                         p80 = {"proxy", "evil.example", 80, ""},
	                         cap = {"capture", "evil.example", 8080, ""};
	char last[KVLINE_MAX];

	for (int i = 0; i < 20; i++)
		record_deny(&p443, "network.allow",
		    "evil.example:443 is not in "
		    "network.allow");
	record_deny(&p80, "network.allow", "x");
	record_deny(&cap, "network.ports", "y");
	egress_dns(NULL, "EVIL.example.", false);
	tick();
	is_int(drain("notice", "name=evil.example ", last, sizeof(last)), 1,
	    "23 refusals of one name (two spellings, three ports, three "
	    "paths): one notice");
	(void)drain("egress", NULL, NULL, 0);
}

TEST(entries)
{
	const struct record_conn a = {"proxy", "api.example", 443, "192.0.2.1"};
	char last[KVLINE_MAX];

	record_allow(&a, "network.allow entry api.example (f:1)", false);
	record_allow(&a, "network.allow entry api.example (f:1)", true);
	record_close(&a, 100, 12345, 5);
	tick();
	is_int(
	    drain("egress", "name=api.example port=443 ", last, sizeof(last)),
	    1, "one message for the entry");
	like_str(last, "allowed=1 ", "one connection (keep-alive is not one)");
	like_str(last, "open=0 up=100 down=12345 ", "closed, with its bytes");
	like_str(last, "via=proxy ", "via the proxy");
	like_str(last, "why=network.allow%20entry%20api.example%20(f:1)",
	    "the rule's sentence, escaped");
	is_int(drain("notice", NULL, NULL, 0), 0, "an allowed name: no notice");
}

TEST(unresolved)
{
	const struct record_conn n = {"capture", "nx.example", 443, ""};
	char last[KVLINE_MAX];
	char why[200];

	snprintf(why, sizeof(why), "lookup failed: %s", RESOLV_NXDOMAIN);
	for (int i = 0; i < 5; i++)
		record_unreachable(&n, why);
	tick();
	is_int(drain("notice", "name=nx.example ", last, sizeof(last)), 1,
	    "5 failed lookups: one notice");
	like_str(
	    last, "kind=unresolved ", "... saying the name does not resolve");
	(void)drain("egress", NULL, NULL, 0);
}

TEST(bounded_and_rate_limited)
{
	char name[64];
	unsigned notices = 0, entries = 0;

	/* 3 x GATE_EGRESS_MAX new refused names at once. */
	for (int i = 0; i < 3 * GATE_EGRESS_MAX; i++) {
		snprintf(name, sizeof(name), "n%d.flood.example", i);
		egress_dns(NULL, name, false);
		if (i % 128 == 127)
			tick();
	}
	tick();
	while (pending(&notices, &entries) > 0)
		tick();
	ok(entries <= GATE_EGRESS_MAX, "at most %d entries (%u)",
	    GATE_EGRESS_MAX, entries);
	ok(entries > GATE_EGRESS_MAX - 16, "... the table filled (%u)",
	    entries);
	ok(notices <= 16, "at most the burst of notices at once (%u)", notices);
	egress_finish();
	/* egress_finish closed our peer's other end: what was left came. */
	(void)pending(&notices, &entries);
	like_str(last_dropped,
	    "dropped denied=", "the refusals that did not fit are counted");
	ok(strstr(last_dropped, "denied=") &&
	        strtoul(strstr(last_dropped, "denied=") + 7, NULL, 10) >=
	            2 * GATE_EGRESS_MAX,
	    "... all of them (%s)", last_dropped);
}

int
main(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
		return 1;
	/* Room for a whole table between ticks. */
	(void)setsockopt(
	    sv[0], SOL_SOCKET, SO_SNDBUF, &(int){8 << 20}, sizeof(int));
	peer = sv[1];
	record_open(false, "-", "-");
	egress_open(sv[0], true);
	RUN(notices_once_per_name);
	RUN(entries);
	RUN(unresolved);
	RUN(bounded_and_rate_limited);
	return tap_done();
}
