/*
 * hostpat.h: host names and host patterns, canonical form and matching.
 *
 * Canonical: lower-case LDH labels (1-63 bytes, no leading or trailing
 * '-'), total at most 253 bytes, one trailing dot dropped.  A pattern
 * may start with "*." (subdomains only, never the bare suffix); '*'
 * anywhere else is an error.  No IP literals here (see cidr.h).
 */
#ifndef AISB_HOSTPAT_H
#define AISB_HOSTPAT_H

#include <stdbool.h>
#include <stddef.h>

#define HOST_MAX 253

/*
 * Canonicalise in[0..len) into out (HOST_MAX + 1 bytes).  allow_wild:
 * accept a leading "*." label.  Returns 0 or -EINVAL; *why (static
 * text) says what is wrong.
 */
int hostpat_canon(
    const char *in, size_t len, bool allow_wild, char *out, const char **why);

/* Does canonical host match canonical pattern? */
bool hostpat_match(const char *pattern, const char *host);

/* Is s (len bytes) an IPv4 or IPv6 literal in any form inet_aton or
 * inet_pton accepts ("127.1", "2130706433", "[::1]" included)? */
bool hostpat_is_ip_literal(const char *s, size_t len);

#endif
