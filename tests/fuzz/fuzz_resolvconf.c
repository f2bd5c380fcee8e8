/*
 * fuzz_resolvconf.c: the gate's reading of its upstream nameservers
 * (gate/resolv.c resolv_parse_conf): /etc/resolv.conf text, or the
 * policy's network.resolver (ADDR[:PORT], [V6]:PORT).  The input is
 * "OVERRIDE\0TEXT" (no NUL: all of it is the text).
 *
 * Never more than GATE_MAX_NS servers, at least one when it succeeds,
 * each an IPv4 or IPv6 address with a length that matches its family
 * and a port that is not 0.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage ss[GATE_MAX_NS];
	socklen_t len[GATE_MAX_NS];
	const char *override = NULL, *text;
	char *s;
	size_t ol;
	int n;

	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	ol = strlen(s);
	text = s;
	if (ol < size) {
		override = s;
		text = s + ol + 1;
	}
	n = resolv_parse_conf(text, override, ss, len);
	if (n > GATE_MAX_NS || n == 0)
		abort();
	for (int i = 0; i < n; i++) {
		if (ss[i].ss_family == AF_INET) {
			const struct sockaddr_in *a = (const void *)&ss[i];

			if (len[i] != sizeof(*a) || a->sin_port == 0)
				abort();
		} else if (ss[i].ss_family == AF_INET6) {
			const struct sockaddr_in6 *a = (const void *)&ss[i];

			if (len[i] != sizeof(*a) || a->sin6_port == 0)
				abort();
		} else
			abort();
	}
	free(s);
	return 0;
}
