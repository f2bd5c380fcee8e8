/*
 * fuzz_cidr.c: libFuzzer target for lib/cidr.c.
 *
 * A parsed CIDR formats to text that parses back to the same network,
 * and contains its own network address; cidr_is_special never crashes
 * on any 4 or 16 bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aisb_cidr c, d;
	const char *why, *range;
	char *s, buf[64];
	uint8_t a[16];

	if (size >= 16) {
		memcpy(a, data, 16);
		(void)cidr_is_special(AF_INET6, a, &range);
		(void)cidr_is_special(AF_INET, a, &range);
	}
	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (cidr_parse(s, &c, &why) == 0) {
		if (c.prefix > (c.family == AF_INET ? 32u : 128u))
			abort();
		cidr_format(&c, buf, sizeof(buf));
		if (cidr_parse(buf, &d, &why) < 0 || d.family != c.family ||
		    d.prefix != c.prefix || memcmp(d.addr, c.addr, 16) != 0)
			abort();
		if (!cidr_contains(&c, c.family, c.addr))
			abort();
	} else if (why == NULL) {
		abort();
	}
	free(s);
	return 0;
}
