/*
 * test_gate_vault.c: the gate's credential vault (gate/vault.c) takes
 * every credential the policy allows over the control socket, up to the
 * largest value (POLICY_CRED_MAX bytes, the longest placeholder
 * shell/cred.c makes for it), bare and Basic, and builds the header
 * values inject.c replaces; a message that is not one refuses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"
#include "cred.h"
#include "gate.h"

/* shell/gatectl.h: "cred" I N PLEN VLEN, then the two strings. */
#define HEAD 10

/* "cred" I N PLEN VLEN PLACEHOLDER VALUE (shell/gatectl.h). */
static void
send_cred(int fd, unsigned i, unsigned n, const char *ph, size_t pl,
    const char *val, size_t vl)
{
	static char m[HEAD + 2 * POLICY_CRED_MAX + CRED_MIN_RANDOM];

	memcpy(m, "cred", 4);
	m[4] = (char)i;
	m[5] = (char)n;
	m[6] = (char)(pl >> 8);
	m[7] = (char)(pl & 0xff);
	m[8] = (char)(vl >> 8);
	m[9] = (char)(vl & 0xff);
	memcpy(m + HEAD, ph, pl);
	memcpy(m + HEAD + pl, val, vl);
	if (send(fd, m, HEAD + pl + vl, 0) != (ssize_t)(HEAD + pl + vl))
		abort();
}

/* One credential of format (basic or not) with a value of vl bytes and
 * a placeholder CRED_MIN_RANDOM bytes longer: vault_recv's result. */
static int
one(const char *format, bool basic, size_t vl)
{
	static char ph[POLICY_CRED_MAX + CRED_MIN_RANDOM], val[POLICY_CRED_MAX];
	char fmt[64];
	struct aisb_credential c = {.name = "api",
	    .hname = "Authorization",
	    .format = fmt,
	    .basic = basic};
	struct aisb_policy p = {.creds = &c, .ncreds = 1};
	size_t pl = vl + CRED_MIN_RANDOM;
	int sv[2], r;

	snprintf(fmt, sizeof(fmt), "%s", format);
	memset(ph, 'P', pl);
	memset(val, 'v', vl);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	send_cred(sv[1], 0, 1, ph, pl, val, vl);
	r = vault_recv(sv[0], &p);
	if (r == 0 &&
	    (vault_count() != 1 || vault_get(0)->value_len != vl ||
	        vault_get(0)->ph_len != pl))
		r = -EBADMSG;
	vault_wipe();
	close(sv[0]);
	close(sv[1]);
	return r;
}

TEST(sizes)
{
	is_int(one("Bearer %s", false, 40), 0, "a bearer token");
	is_int(one("alice:%s", true, 40), 0, "a Basic password");
	is_int(one("Bearer %s", false, POLICY_CRED_MAX), 0,
	    "a bearer token of the largest size");
	is_int(one("%s", true, POLICY_CRED_MAX), 0,
	    "a Basic credential of the largest size");
	is_int(one("alice:%s", true, POLICY_CRED_MAX), 0,
	    "a Basic password of the largest size, after a user name");
}

TEST(refused)
{
	struct aisb_credential c = {
	    .name = "api", .hname = "x-api-key", .format = "%s"};
	struct aisb_policy p = {.creds = &c, .ncreds = 1};
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	send_cred(sv[1], 1, 1, "PH", 2, "VALUE", 5);
	is_int(vault_recv(sv[0], &p), -EPROTO,
	    "a credential with another index refuses");
	vault_wipe();
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
	RUN(sizes);
	RUN(refused);
	return tap_done();
}
