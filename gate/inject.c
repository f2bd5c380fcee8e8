/*
 * inject.c: one request head inside a TLS connection the gate
 * terminates, read and rewritten for the credentials (gate.h,
 * inject_head).  Pure: bytes in, bytes out, no I/O, so that the fuzz
 * target drives it as tls.c does.
 *
 * The head is parsed by http.c (http_parse_origin_head: the proxy's
 * strictness, so the gate and the origin agree on where each request
 * ends).  Its Host must name the connection's own host and port: the
 * decision, the upstream certificate check and the credential's hosts
 * were all about that name, and a request for another name on the same
 * connection (domain fronting through a shared front end) must not
 * carry the credential there.  Then each header line whose name is a
 * credential's header and whose value is exactly that header's value
 * with the placeholder (the scheme word, "Bearer" or "Basic", in any
 * case) becomes the same line with the real value.  Nothing else is
 * changed: a placeholder in the path, in another header or in a body
 * stays as it is, and is reported (misplaced, or foreign when the
 * credential's hosts do not include this host).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "gate.h"

static bool
name_is(const char *p, size_t n, const char *want)
{
	return strlen(want) == n && strncasecmp(p, want, n) == 0;
}

static void
trim(const char **v, size_t *n)
{
	while (*n > 0 && (**v == ' ' || **v == '\t'))
		(*v)++, (*n)--;
	while (*n > 0 && ((*v)[*n - 1] == ' ' || (*v)[*n - 1] == '\t'))
		(*n)--;
}

/*
 * Is v[0..n) the placeholder header value of c?  The scheme word (the
 * first ci_len bytes of ph_hdr, ending in a space) in any case and
 * followed by one or more spaces, as RFC 9110 allows; the rest exactly.
 */
static bool
is_placeholder(const struct inject_cred *c, const char *v, size_t n)
{
	size_t w = c->ci_len;

	if (w > 0) {
		if (n < w || strncasecmp(v, c->ph_hdr, w - 1) != 0 ||
		    v[w - 1] != ' ')
			return false;
		while (w < n && v[w] == ' ')
			w++;
		v += w;
		n -= w;
	}
	return n == c->ph_len - c->ci_len &&
	    memcmp(v, c->ph_hdr + c->ci_len, n) == 0;
}

/* How many times p (pl bytes) occurs in b[0..n). */
static size_t
count(const char *b, size_t n, const char *p, size_t pl)
{
	size_t k = 0;
	const char *q;

	while (pl > 0 && (q = memmem(b, n, p, pl)) != NULL) {
		k++;
		n -= (size_t)(q - b) + pl;
		b = q + pl;
	}
	return k;
}

static bool
host_is(const char *a, const char *canon)
{
	char ca[HOST_MAX + 1];
	const char *why;

	return hostpat_canon(a, strlen(a), false, ca, &why) == 0 &&
	    strcmp(ca, canon) == 0;
}

int
inject_head(const struct inject_target *t, const char *buf, size_t len,
    char *out, size_t outlen, struct inject_result *res)
{
	const char *line, *end;
	size_t o, n, i;
	int k;

	memset(res, 0, sizeof(*res));
	k = http_parse_origin_head(buf, len, &res->req, &res->why);
	if (k == 0)
		return INJ_MORE;
	if (k < 0)
		return INJ_BAD;
	res->head_len = (size_t)k;
	if ((res->req.has_host || res->req.absolute) &&
	    (res->req.port != t->port || !host_is(res->req.host, t->host))) {
		res->why = "the request names another host than the "
		           "connection's";
		return INJ_MISDIRECTED;
	}
	/* A placeholder anywhere in the head: whose, and is it in place? */
	res->seen = inject_scan(t, buf, res->head_len);
	end = buf + res->head_len - 2;
	/* The request line as it came. */
	o = res->req.hdr_off;
	if (o > outlen)
		return INJ_BAD;
	memcpy(out, buf, o);
	for (line = buf + res->req.hdr_off; line < end; line += n) {
		const char *eol = memchr(line, '\r', (size_t)(end - line + 2));
		const char *colon = memchr(line, ':', (size_t)(eol - line));
		const char *v = colon + 1;
		size_t nl = (size_t)(colon - line), vl = (size_t)(eol - v);
		const struct inject_cred *c = NULL;

		n = (size_t)(eol - line) + 2;
		trim(&v, &vl);
		for (i = 0; i < t->ncreds; i++) {
			if (!name_is(line, nl, t->creds[i].hname))
				continue;
			if (res->hdr_seen & (1u << i)) {
				res->why = "a credential's header more than "
				           "once";
				return INJ_BAD;
			}
			res->hdr_seen |= 1u << i;
			if (t->creds[i].here &&
			    is_placeholder(&t->creds[i], v, vl))
				c = &t->creds[i];
			break;
		}
		if (c != NULL) {
			/* "Name: VALUE\r\n", the name as the client wrote it.
			 */
			if (o + nl + 2 + c->val_len + 2 > outlen)
				return INJ_BAD;
			memcpy(out + o, line, nl);
			memcpy(out + o + nl, ": ", 2);
			memcpy(out + o + nl + 2, c->val_hdr, c->val_len);
			memcpy(out + o + nl + 2 + c->val_len, "\r\n", 2);
			o += nl + 2 + c->val_len + 2;
			res->injected |= 1u << i;
			continue;
		}
		if (o + n > outlen)
			return INJ_BAD;
		memcpy(out + o, line, n);
		o += n;
	}
	if (o + 2 > outlen)
		return INJ_BAD;
	memcpy(out + o, "\r\n", 2);
	res->out_len = o + 2;
	for (i = 0; i < t->ncreds; i++) {
		const struct inject_cred *c = &t->creds[i];
		unsigned bit = 1u << i;
		/* The replaced line's own copy (in plain unless Basic). */
		size_t own = (res->injected & bit) && !c->basic ? 1 : 0;

		if (!(res->seen & bit))
			continue;
		if (!c->here)
			res->foreign |= bit;
		else if (count(buf, res->head_len, c->ph, c->ph_raw) > own)
			res->misplaced |= bit;
	}
	return INJ_OK;
}

unsigned
inject_scan(const struct inject_target *t, const char *buf, size_t len)
{
	unsigned seen = 0;

	for (size_t i = 0; i < t->ncreds; i++)
		if (memmem(buf, len, t->creds[i].ph, t->creds[i].ph_raw) !=
		    NULL)
			seen |= 1u << i;
	return seen;
}
