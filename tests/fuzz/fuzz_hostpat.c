/*
 * fuzz_hostpat.c: libFuzzer target for lib/hostpat.c.
 *
 * Properties checked beyond "no crash": a canonical name is a fixed
 * point of hostpat_canon, fits HOST_MAX, is never an IP literal, and a
 * canonical exact name matches itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostpat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[HOST_MAX + 1], again[HOST_MAX + 1];
	const char *why;
	int wild;

	(void)hostpat_is_ip_literal((const char *)data, size);
	for (wild = 0; wild <= 1; wild++) {
		if (hostpat_canon((const char *)data, size, wild, out, &why) <
		    0) {
			if (why == NULL)
				abort();
			continue;
		}
		if (strlen(out) > HOST_MAX)
			abort();
		if (hostpat_canon(out, strlen(out), wild, again, &why) < 0 ||
		    strcmp(out, again) != 0)
			abort();
		if (hostpat_is_ip_literal(out, strlen(out)))
			abort();
		if (out[0] != '*' && !hostpat_match(out, out))
			abort();
		if (out[0] == '*' && hostpat_match(out, out + 2))
			abort();
	}
	return 0;
}
