/*
 * fuzz_redact.c: the redaction of env.secret values from relayed
 * streams (shell/redact.c).  The input's first byte chooses how the
 * rest is split into reads; for any input and any split the output must
 * be what one read of the whole gives, also when each read's first bytes
 * go out by redact_pass as the relay sends them, and no value may be
 * left in it (the markers hold none).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../shell/redact.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *const env[] = {
    "A=sk-live-0123456789",
    "B=sk-live-01234",
    "C=aaaaaaaaaa",
    "D=abababab",
    "E=url://sk-live-01234@h", /* B inside, not at its start */
    NULL,
};

static size_t
feed_all(struct redact *r, const char *in, size_t n, size_t step, char *out,
    bool pass)
{
	size_t o = 0, got, m;

	for (size_t i = 0; i < n; i += step) {
		size_t k = n - i < step ? n - i : step;

		m = pass ? redact_pass(r, in + i, k) : 0;
		memcpy(out + o, in + i, m);
		o += m;
		redact_feed(r, in + i + m, k - m, out + o, &got);
		o += got;
	}
	redact_flush(r, out + o, &got);
	return o + got;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct redact *r;
	const char *in = (const char *)data + 1;
	size_t n, step, a, b, c;
	char *x, *y, *z;

	if (size < 1 || size > 65536)
		return 0;
	if (r == NULL && (redact_new(env, &r) < 0 || r == NULL))
		abort();
	n = size - 1;
	step = (size_t)data[0] % 17 + 1;
	x = malloc(redact_room(r, n) + 64);
	y = malloc(redact_room(r, n) + 64);
	z = malloc(redact_room(r, n) + 64);
	if (x == NULL || y == NULL || z == NULL)
		abort();
	a = feed_all(r, in, n, n ? n : 1, x, false);
	b = feed_all(r, in, n, step, y, false);
	if (a != b || memcmp(x, y, a) != 0)
		abort(); /* the split changed the output */
	c = feed_all(r, in, n, step, z, true);
	if (a != c || memcmp(x, z, a) != 0)
		abort(); /* redact_pass changed it */
	for (size_t i = 0; env[i]; i++) {
		const char *v = strchr(env[i], '=') + 1;

		if (memmem(x, a, v, strlen(v)) != NULL)
			abort(); /* a value is left */
	}
	free(x);
	free(y);
	free(z);
	return 0;
}
