/*
 * sha256.h: SHA-256 (FIPS 180-4), small and dependency-free.  Used for
 * the policy hash, which only needs to be stable, not secret.
 */
#ifndef AISB_SHA256_H
#define AISB_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	uint8_t buf[64];
	size_t nbuf;
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, uint8_t out[32]);
/* One call: hex digest (64 chars + NUL) of data. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
