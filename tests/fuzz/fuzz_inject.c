/*
 * fuzz_inject.c: the request heads inside a terminated TLS connection
 * (gate/inject.c over gate/http.c's http_parse_origin_head), with two
 * credentials as gate/vault.c sets them up (one for this host, one not;
 * one bare header, one Bearer), then the body framing of what follows.
 * Checks what must hold for any input: a head that parses fits the
 * output, the value appears in the output only in its own header and
 * only for the credential of this host, and never for a foreign one.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gate.h"
#include "../lib/injectcred.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PH "sk-test-PLACEHOLDER0123456789"
#define VAL "sk-test-REALVALUE99999999999"
#define PH2 "ghp_OTHERPLACEHOLDER000000000"
#define VAL2 "ghp_OTHERREALVALUE7777777777"

/* How many times s occurs in b[0..n). */
static size_t
count(const char *b, size_t n, const char *s)
{
	size_t k = 0, l = strlen(s);
	const char *q;

	while (n >= l && (q = memmem(b, n, s, l)) != NULL) {
		k++;
		n -= (size_t)(q - b) + l;
		b = q + l;
	}
	return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[HTTP_HEAD_MAX + 4096];
	static const struct inject_cred creds[2] = {
	    INJECT_CRED_BARE("api", "x-api-key", PH, VAL, true),
	    INJECT_CRED_SCHEME(
	        "gh", "authorization", "Bearer", PH2, VAL2, false),
	};
	const struct inject_target t = {.host = "api.example.test",
	    .port = 443,
	    .creds = creds,
	    .ncreds = 2};
	struct inject_result res;
	struct http_body b;
	const char *p = (const char *)data;
	int r;

	r = inject_head(&t, p, size, out, sizeof(out), &res);
	if (r != INJ_OK)
		return 0;
	if (res.out_len > sizeof(out) || res.head_len > size)
		__builtin_trap();
	/*
	 * A foreign credential's value is never added: it appears in the
	 * output no more often than the sandbox itself wrote it.
	 */
	if (count(out, res.out_len, VAL2) > count(p, size, VAL2))
		__builtin_trap();
	/*
	 * This host's value is added only when injected, and then once, in
	 * its header (where the input already held the value, the sandbox
	 * knew it and the position says nothing).
	 */
	{
		size_t in = count(p, size, VAL),
		       o = count(out, res.out_len, VAL);
		const char *v = memmem(out, res.out_len, VAL, sizeof(VAL) - 1);

		if (!(res.injected & 1) && o > in)
			__builtin_trap();
		if ((res.injected & 1) && o > in + 1)
			__builtin_trap();
		if (v != NULL && in == 0 &&
		    !(v - out >= 11 && memcmp(v - 2, ": ", 2) == 0 &&
		        memcmp(v + sizeof(VAL) - 1, "\r\n", 2) == 0))
			__builtin_trap();
	}
	http_body_start(&b, &res.req);
	{
		size_t rest = size - res.head_len, half = rest / 2;
		ssize_t k = http_body_feed(&b, p + res.head_len, half);

		if (k >= 0 && (size_t)k == half && b.st != HB_DONE)
			(void)http_body_feed(
			    &b, p + res.head_len + half, rest - half);
	}
	return 0;
}
