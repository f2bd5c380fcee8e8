/*
 * fuzz_http.c: the proxy's request-head parser, head rewriting and
 * body framing (gate/http.c) on arbitrary bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[HTTP_HEAD_MAX + 1024];
	struct http_req r;
	struct http_body b;
	const char *why, *p = (const char *)data;
	int n;

	n = http_parse_head(p, size, &r, &why);
	if (n <= 0)
		return 0;
	if (http_rewrite_head(p, &r, out, sizeof(out)) < 0)
		__builtin_trap(); /* a valid head always fits */
	http_body_start(&b, &r);
	/* Feed the rest in two uneven pieces: splits must not matter. */
	{
		size_t rest = size - (size_t)n, half = rest / 3;
		ssize_t k = http_body_feed(&b, p + n, half);

		if (k >= 0 && (size_t)k == half && b.st != HB_DONE)
			(void)http_body_feed(&b, p + n + half, rest - half);
	}
	return 0;
}
