/*
 * cidr.h: CIDR parsing and address classification.
 */
#ifndef AISB_CIDR_H
#define AISB_CIDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "policy.h"

/*
 * Parse "ADDR/PREFIX" or a bare address (full-length prefix), v4 or v6.
 * Host bits must be zero.  Returns 0 or -EINVAL with *why set.
 */
int cidr_parse(const char *s, struct aisb_cidr *out, const char **why);

/* Is addr (AF_INET: 4 bytes, AF_INET6: 16 bytes) inside c? */
bool cidr_contains(const struct aisb_cidr *c, int family, const void *addr);

/*
 * Is the address in an IANA special-purpose range the gate refuses by
 * default (loopback, private, link-local, CGNAT, multicast, reserved,
 * documentation, benchmarking, metadata, v4-mapped/compat forms of
 * these, ...)?  *range names the range for logs.
 */
bool cidr_is_special(int family, const void *addr, const char **range);

/* Format "ADDR/PREFIX" into buf (at least 64 bytes). */
void cidr_format(const struct aisb_cidr *c, char *buf, size_t len);

#endif
