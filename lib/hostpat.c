/*
 * hostpat.c: host names and host patterns.  See hostpat.h.
 *
 * The canonical form is what the policy stores and what the gate
 * compares: lower-case LDH, no trailing dot, "*." only as the whole
 * first label.  Anything that could be read as an IP address by any
 * resolver path (inet_aton's historic forms included) is refused here,
 * so that a name rule can never be satisfied by an address: addresses
 * go through network.allow_cidr only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "hostpat.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * The grammar inet_aton(3) accepts: one to four parts separated by '.',
 * each decimal, octal (leading 0) or hex (0x, possibly no digits).  We
 * do not check the value bounds: a string of this shape is never a
 * host name, whether or not a given libc would accept its value.
 */
static bool
looks_like_aton(const char *s, size_t len)
{
	size_t i = 0, parts = 0;

	if (len == 0)
		return false;
	while (i < len) {
		size_t start = i;

		if (s[i] == '0' && i + 1 < len &&
		    (s[i + 1] == 'x' || s[i + 1] == 'X')) {
			i += 2;
			while (i < len && is_xdigit(s[i]))
				i++;
		} else {
			while (i < len && is_digit(s[i]))
				i++;
			if (i == start)
				return false;
		}
		if (++parts > 4)
			return false;
		if (i == len)
			return true;
		if (s[i] != '.' || i + 1 == len)
			return false;
		i++;
	}
	return false;
}

bool
hostpat_is_ip_literal(const char *s, size_t len)
{
	char buf[64];
	struct in6_addr a6;
	struct in_addr a4;
	char *pct;

	if (s == NULL || len == 0)
		return false;
	/* "[...]" is an address form in every URL and proxy syntax. */
	if (s[0] == '[')
		return true;
	/* One trailing dot is dropped by resolvers: "127.0.0.1." too. */
	if (len > 1 && s[len - 1] == '.')
		len--;
	if (looks_like_aton(s, len))
		return true;
	if (len >= sizeof(buf) || memchr(s, '\0', len) != NULL)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* glibc's inet_aton also accepts trailing whitespace and junk. */
	if (inet_aton(buf, &a4) != 0)
		return true;
	/* v6 with a zone ("fe80::1%eth0") is still an address. */
	pct = strchr(buf, '%');
	if (pct != NULL)
		*pct = '\0';
	return inet_pton(AF_INET6, buf, &a6) == 1;
}

/*
 * Copy one label [s, s+n) into out in lower case, checking LDH rules.
 */
static int
copy_label(const char *s, size_t n, char *out, const char **why)
{
	size_t i;

	if (n == 0) {
		*why = "empty label (two dots in a row, or a leading dot)";
		return -EINVAL;
	}
	if (n > 63) {
		*why = "label longer than 63 bytes";
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c == '*') {
			*why = "'*' is allowed only as the whole first label "
			       "(\"*.example.org\")";
			return -EINVAL;
		}
		if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '-')) {
			*why = "invalid character (host names are letters, "
			       "digits, '-' and '.')";
			return -EINVAL;
		}
		out[i] = c;
	}
	if (s[0] == '-' || s[n - 1] == '-') {
		*why = "label starts or ends with '-'";
		return -EINVAL;
	}
	return 0;
}

int
hostpat_canon(
    const char *in, size_t len, bool allow_wild, char *out, const char **why)
{
	const char *dummy;
	size_t i, o = 0, lab, last_lab = 0;
	bool numeric_last;
	int r;

	if (why == NULL)
		why = &dummy;
	*why = NULL;
	if (in == NULL || len == 0) {
		*why = "empty host name";
		return -EINVAL;
	}
	if (memchr(in, '\0', len) != NULL) {
		*why = "NUL byte in host name";
		return -EINVAL;
	}
	if (hostpat_is_ip_literal(in, len)) {
		*why = "IP address literal (addresses belong in "
		       "network.allow_cidr)";
		return -EINVAL;
	}
	if (len > 1 && in[len - 1] == '.')
		len--;
	if (len > HOST_MAX) {
		*why = "name longer than 253 bytes";
		return -EINVAL;
	}
	i = 0;
	if (in[0] == '*') {
		if (!allow_wild) {
			*why = "wildcard not allowed here";
			return -EINVAL;
		}
		if (len < 3 || in[1] != '.') {
			*why = "'*' is allowed only as the whole first label "
			       "(\"*.example.org\")";
			return -EINVAL;
		}
		out[o++] = '*';
		out[o++] = '.';
		i = 2;
	}
	while (i <= len) {
		const char *dot = memchr(in + i, '.', len - i);

		lab = dot ? (size_t)(dot - in) - i : len - i;
		r = copy_label(in + i, lab, out + o, why);
		if (r < 0)
			return r;
		last_lab = o;
		o += lab;
		i += lab + 1;
		if (dot)
			out[o++] = '.';
		else
			break;
	}
	out[o] = '\0';
	/*
	 * An all-numeric last label is never a registrable name (RFC 3696
	 * 2) and is how "1.2.3.4"-like strings would slip past as names.
	 */
	numeric_last = true;
	for (i = last_lab; i < o; i++)
		if (!is_digit(out[i]))
			numeric_last = false;
	if (numeric_last) {
		*why = "the last label is all digits (an address, not a name)";
		return -EINVAL;
	}
	return 0;
}

bool
hostpat_match(const char *pattern, const char *host)
{
	size_t pl, hl;

	if (pattern == NULL || host == NULL)
		return false;
	if (pattern[0] != '*')
		return strcmp(pattern, host) == 0;
	/* "*.example.org": strictly below example.org, never itself. */
	pl = strlen(pattern + 1); /* ".example.org" */
	hl = strlen(host);
	return hl > pl && strcmp(host + hl - pl, pattern + 1) == 0;
}
