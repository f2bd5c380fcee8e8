/*
 * http.c: the proxy's request-head parser and request-body framer.
 *
 * Deliberately strict (RFC 9112 with the smuggling advice of its
 * section 11): CRLF line ends only, no NUL or control bytes, no obs-fold,
 * no duplicate Host, Content-Length or Transfer-Encoding, never both
 * Transfer-Encoding and Content-Length, only "chunked" as a transfer
 * coding.  Anything else is a 400: a proxy that guesses differently from
 * the origin is how requests get smuggled past a policy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gate.h"

static bool
is_tchar(unsigned char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return true;
	return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool
is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int
http_split_authority(const char *s, size_t len, char *host, size_t hostlen,
    uint16_t *port, bool need_port)
{
	size_t hl, i;
	const char *p;
	unsigned long v = 0;

	if (len == 0)
		return -EINVAL;
	if (s[0] == '[') {
		p = memchr(s, ']', len);
		if (p == NULL)
			return -EINVAL;
		hl = (size_t)(p - s) + 1;
	} else {
		p = memchr(s, ':', len);
		hl = p ? (size_t)(p - s) : len;
		/* A second ':' means an unbracketed IPv6 literal. */
		if (p && memchr(p + 1, ':', len - hl - 1) != NULL)
			return -EINVAL;
	}
	if (hl == 0 || hl >= hostlen)
		return -EINVAL;
	for (i = 0; i < hl; i++) {
		unsigned char c = (unsigned char)s[i];

		/* No userinfo, paths or anything that is not a host byte. */
		if (c <= 0x20 || c >= 0x7f || c == '@' || c == '/' ||
		    c == '\\' || c == '?' || c == '#' || c == '%')
			return -EINVAL;
	}
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (hl == len) {
		if (need_port)
			return -EINVAL;
		*port = 80;
		return 0;
	}
	if (s[hl] != ':' || len - hl - 1 == 0 || len - hl - 1 > 5)
		return -EINVAL;
	for (i = hl + 1; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static bool
host_eq(const char *a, const char *b)
{
	char ca[HOST_MAX + 1], cb[HOST_MAX + 1];
	const char *why;

	if (hostpat_canon(a, strlen(a), false, ca, &why) == 0 &&
	    hostpat_canon(b, strlen(b), false, cb, &why) == 0)
		return strcmp(ca, cb) == 0;
	return strcasecmp(a, b) == 0;
}

static bool
name_is(const char *p, size_t n, const char *want)
{
	return strlen(want) == n && strncasecmp(p, want, n) == 0;
}

/* Hop-by-hop headers meant for us, never forwarded. */
static bool
is_dropped(const char *p, size_t n)
{
	return name_is(p, n, "proxy-connection") ||
	    name_is(p, n, "proxy-authorization");
}

static void
trim(const char **v, size_t *n)
{
	while (*n > 0 && (**v == ' ' || **v == '\t'))
		(*v)++, (*n)--;
	while (*n > 0 && ((*v)[*n - 1] == ' ' || (*v)[*n - 1] == '\t'))
		(*n)--;
}

/* Does the authority s[0..len) name a port ("host:port", "[v6]:port")? */
static bool
has_port(const char *s, size_t len)
{
	const char *e = len && s[0] == '[' ? memchr(s, ']', len) : s;

	return e != NULL && memchr(e, ':', len - (size_t)(e - s)) != NULL;
}

/*
 * The target of a request inside a terminated TLS connection: origin-form
 * ("/path"), "*" for OPTIONS, or absolute-form ("https://host/path"),
 * whose authority then has to agree with Host.
 */
static int
parse_origin_target(
    const char *t, size_t tl, struct http_req *r, const char **why)
{
	size_t i, skip;

	r->path_len = tl;
	if (r->connect) {
		*why = "CONNECT inside a TLS connection";
		return -EINVAL;
	}
	if (t[0] == '/')
		return 0;
	if (tl == 1 && t[0] == '*' && strcmp(r->method, "OPTIONS") == 0)
		return 0;
	if (tl >= 8 && strncasecmp(t, "https://", 8) == 0)
		skip = 8;
	else if (tl >= 7 && strncasecmp(t, "http://", 7) == 0)
		skip = 7;
	else {
		*why = "bad request target";
		return -EINVAL;
	}
	for (i = skip; i < tl && t[i] != '/' && t[i] != '?' && t[i] != '#'; i++)
		;
	if (http_split_authority(t + skip, i - skip, r->host, sizeof(r->host),
	        &r->port, false) < 0) {
		*why = "bad host in the request URI";
		return -EINVAL;
	}
	if (!has_port(t + skip, i - skip))
		r->port = skip == 8 ? 443 : 80;
	r->absolute = true;
	r->path_len = tl - i;
	return 0;
}

static int
parse_target(const char *t, size_t tl, struct http_req *r, const char **why)
{
	size_t i;

	if (r->origin)
		return parse_origin_target(t, tl, r, why);
	if (r->connect) {
		if (http_split_authority(
		        t, tl, r->host, sizeof(r->host), &r->port, true) < 0) {
			*why = "CONNECT needs host:port";
			return -EINVAL;
		}
		return 0;
	}
	if (tl >= 8 && strncasecmp(t, "https://", 8) == 0) {
		*why = "https:// request URIs are not proxied: use CONNECT";
		return -EINVAL;
	}
	if (tl < 7 || strncasecmp(t, "http://", 7) != 0) {
		*why =
		    "not a proxy request: the target must be http://host/...";
		return -EINVAL;
	}
	for (i = 7; i < tl && t[i] != '/' && t[i] != '?' && t[i] != '#'; i++)
		;
	if (http_split_authority(
	        t + 7, i - 7, r->host, sizeof(r->host), &r->port, false) < 0) {
		*why = "bad host in the request URI";
		return -EINVAL;
	}
	r->path_len = tl - i; /* path_off is set by the caller */
	return 0;
}

static int
parse_head(const char *buf, size_t len, struct http_req *r, const char **why,
    bool origin)
{
	size_t i, end = 0, max = len < HTTP_HEAD_MAX ? len : HTTP_HEAD_MAX;
	size_t mlen, tstart, tl, lines = 0;
	const char *line, *sp;
	bool has_te = false;

	memset(r, 0, sizeof(*r));
	r->origin = origin;
	*why = "malformed request";
	/* Bytes first: no NUL or controls, CR only before LF. */
	for (i = 0; i < max; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\r') {
			if (i + 1 < max && buf[i + 1] != '\n') {
				*why = "bare CR in the request head";
				return -EINVAL;
			}
		} else if (c == '\n') {
			if (i == 0 || buf[i - 1] != '\r') {
				*why = "bare LF in the request head";
				return -EINVAL;
			}
			if (i >= 3 && buf[i - 2] == '\n') {
				end = i + 1;
				break;
			}
		} else if (is_ctl(c) && c != '\t') {
			*why = "control byte in the request head";
			return -EINVAL;
		}
	}
	if (end == 0) {
		if (len >= HTTP_HEAD_MAX) {
			*why = "request head larger than 16 KiB";
			return -EINVAL;
		}
		return 0;
	}
	r->head_len = end;

	/* Request line: METHOD SP target SP HTTP/1.x CRLF */
	for (mlen = 0; mlen < end && is_tchar((unsigned char)buf[mlen]); mlen++)
		;
	if (mlen == 0 || mlen >= sizeof(r->method) || buf[mlen] != ' ') {
		*why = "bad request method";
		return -EINVAL;
	}
	memcpy(r->method, buf, mlen);
	r->method[mlen] = '\0';
	r->connect = strcmp(r->method, "CONNECT") == 0;
	tstart = mlen + 1;
	sp = memchr(buf + tstart, ' ', end - tstart);
	if (sp == NULL || sp == buf + tstart) {
		*why = "bad request target";
		return -EINVAL;
	}
	tl = (size_t)(sp - buf) - tstart;
	for (i = tstart; i < tstart + tl; i++)
		if ((unsigned char)buf[i] <= 0x20 ||
		    (unsigned char)buf[i] >= 0x7f) {
			*why = "bad byte in the request target";
			return -EINVAL;
		}
	i = tstart + tl + 1;
	if (end - i < 10 || memcmp(buf + i, "HTTP/1.", 7) != 0 ||
	    (buf[i + 7] != '0' && buf[i + 7] != '1') || buf[i + 8] != '\r') {
		*why = "only HTTP/1.0 and HTTP/1.1 are spoken here";
		return -EINVAL;
	}
	r->minor = buf[i + 7] - '0';
	if (parse_target(buf + tstart, tl, r, why) < 0)
		return -EINVAL;
	if (!r->connect || origin)
		r->path_off = tstart + tl - r->path_len;
	r->hdr_off = i + 10;

	/* Header lines. */
	for (line = buf + r->hdr_off; line < buf + end - 2;) {
		const char *eol =
		    memchr(line, '\r', (size_t)(buf + end - line));
		const char *colon, *v;
		size_t nl, vl;

		if (eol == NULL)
			return -EINVAL;
		if (++lines > HTTP_LINES_MAX) {
			*why = "more than 100 header lines";
			return -EINVAL;
		}
		if (*line == ' ' || *line == '\t') {
			*why = "obsolete line folding in a header";
			return -EINVAL;
		}
		colon = memchr(line, ':', (size_t)(eol - line));
		if (colon == NULL || colon == line) {
			*why = "header line without a name";
			return -EINVAL;
		}
		nl = (size_t)(colon - line);
		for (i = 0; i < nl; i++)
			if (!is_tchar((unsigned char)line[i])) {
				*why = "bad header name";
				return -EINVAL;
			}
		v = colon + 1;
		vl = (size_t)(eol - v);
		trim(&v, &vl);

		if (name_is(line, nl, "host")) {
			char h[HOST_MAX + 3];
			uint16_t port;

			if (r->has_host) {
				*why = "more than one Host header";
				return -EINVAL;
			}
			r->has_host = true;
			if (http_split_authority(
			        v, vl, h, sizeof(h), &port, false) < 0) {
				*why = "bad Host header";
				return -EINVAL;
			}
			if (origin && !has_port(v, vl))
				port = 443;
			if (origin && !r->absolute) {
				snprintf(r->host, sizeof(r->host), "%s", h);
				r->port = port;
			} else if (!r->connect &&
			    (port != r->port || !host_eq(h, r->host))) {
				*why = "the Host header does not agree with "
				       "the request URI";
				return -EINVAL;
			}
		} else if (origin && name_is(line, nl, "upgrade")) {
			r->upgrade = true;
		} else if (name_is(line, nl, "content-length")) {
			uint64_t n = 0;

			if (r->has_clen) {
				*why = "more than one Content-Length";
				return -EINVAL;
			}
			if (vl == 0 || vl > 18) {
				*why = "bad Content-Length";
				return -EINVAL;
			}
			for (i = 0; i < vl; i++) {
				if (v[i] < '0' || v[i] > '9') {
					*why = "bad Content-Length";
					return -EINVAL;
				}
				n = n * 10 + (uint64_t)(v[i] - '0');
			}
			r->has_clen = true;
			r->clen = n;
		} else if (name_is(line, nl, "transfer-encoding")) {
			if (has_te) {
				*why = "more than one Transfer-Encoding";
				return -EINVAL;
			}
			has_te = true;
			if (!name_is(v, vl, "chunked")) {
				*why = "only Transfer-Encoding: chunked is "
				       "supported";
				return -EINVAL;
			}
			r->chunked = true;
		}
		line = eol + 2;
	}
	if (has_te && r->has_clen) {
		*why = "both Transfer-Encoding and Content-Length";
		return -EINVAL;
	}
	if (has_te && r->minor == 0) {
		*why = "Transfer-Encoding in an HTTP/1.0 request";
		return -EINVAL;
	}
	if (r->connect && (has_te || (r->has_clen && r->clen > 0))) {
		*why = "CONNECT with a body";
		return -EINVAL;
	}
	if (origin && !r->has_host && !r->absolute && r->minor == 1) {
		*why = "an HTTP/1.1 request without Host";
		return -EINVAL;
	}
	return (int)end;
}

int
http_parse_head(
    const char *buf, size_t len, struct http_req *r, const char **why)
{
	return parse_head(buf, len, r, why, false);
}

int
http_parse_origin_head(
    const char *buf, size_t len, struct http_req *r, const char **why)
{
	return parse_head(buf, len, r, why, true);
}

int
http_rewrite_head(
    const char *buf, const struct http_req *r, char *out, size_t outlen)
{
	size_t o = 0, n;
	const char *line, *end = buf + r->head_len - 2;
	int k;

#define PUT(p, l)                                                              \
	do {                                                                   \
		if (o + (l) > outlen)                                          \
			return -ENOSPC;                                        \
		memcpy(out + o, (p), (l));                                     \
		o += (l);                                                      \
	} while (0)

	PUT(r->method, strlen(r->method));
	PUT(" ", 1);
	if (r->path_len == 0 || buf[r->path_off] != '/')
		PUT("/", 1);
	PUT(buf + r->path_off, r->path_len);
	k = snprintf(out + o, outlen - o, " HTTP/1.%d\r\n", r->minor);
	if (k < 0 || (size_t)k >= outlen - o)
		return -ENOSPC;
	o += (size_t)k;
	for (line = buf + r->hdr_off; line < end;) {
		const char *eol = memchr(line, '\r', (size_t)(end - line + 2));
		const char *colon = memchr(line, ':', (size_t)(eol - line));

		n = (size_t)(eol - line) + 2;
		if (!is_dropped(line, (size_t)(colon - line)))
			PUT(line, n);
		line += n;
	}
	if (!r->has_host) {
		if (r->port == 80)
			k = snprintf(
			    out + o, outlen - o, "Host: %s\r\n", r->host);
		else
			k = snprintf(out + o, outlen - o, "Host: %s:%u\r\n",
			    r->host, r->port);
		if (k < 0 || (size_t)k >= outlen - o)
			return -ENOSPC;
		o += (size_t)k;
	}
	PUT("\r\n", 2);
#undef PUT
	return (int)o;
}

void
http_body_start(struct http_body *b, const struct http_req *r)
{
	memset(b, 0, sizeof(*b));
	if (r->chunked)
		b->st = HB_CSIZE;
	else if (r->has_clen && r->clen > 0) {
		b->st = HB_CLEN;
		b->remain = r->clen;
	} else
		b->st = HB_DONE;
}

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

ssize_t
http_body_feed(struct http_body *b, const char *p, size_t n)
{
	size_t i = 0, take;
	int v;

	while (i < n && b->st != HB_DONE) {
		unsigned char c = (unsigned char)p[i];

		switch (b->st) {
		case HB_CLEN:
		case HB_CDATA:
			take = n - i;
			if (take > b->remain)
				take = (size_t)b->remain;
			i += take;
			b->remain -= take;
			if (b->remain == 0)
				b->st =
				    b->st == HB_CLEN ? HB_DONE : HB_CDATA_CR;
			continue;
		case HB_CSIZE:
			if ((v = hexval(c)) >= 0) {
				/* 15 hex digits: far beyond any real chunk. */
				if (++b->ndigits > 15)
					return -EINVAL;
				b->remain = b->remain * 16 + (uint64_t)v;
			} else if (b->ndigits == 0)
				return -EINVAL;
			else if (c == ';') {
				b->st = HB_CEXT;
				b->linelen = 0;
			} else if (c == '\r')
				b->st = HB_CSIZE_LF;
			else
				return -EINVAL;
			break;
		case HB_CEXT:
			if (c == '\r')
				b->st = HB_CSIZE_LF;
			else if ((is_ctl(c) && c != '\t') ||
			    ++b->linelen > 1024)
				return -EINVAL;
			break;
		case HB_CSIZE_LF:
			if (c != '\n')
				return -EINVAL;
			b->st = b->remain ? HB_CDATA : HB_TRAILER;
			b->linelen = 0;
			break;
		case HB_CDATA_CR:
			if (c != '\r')
				return -EINVAL;
			b->st = HB_CDATA_LF;
			break;
		case HB_CDATA_LF:
			if (c != '\n')
				return -EINVAL;
			b->st = HB_CSIZE;
			b->ndigits = 0;
			b->remain = 0;
			break;
		case HB_TRAILER:
			if (c == '\r')
				b->st = HB_TRAILER_LF;
			else if (is_ctl(c) || c == ' ' ||
			    ++b->ndigits > HTTP_LINES_MAX)
				return -EINVAL;
			else {
				b->st = HB_TLINE;
				b->linelen = 1;
			}
			break;
		case HB_TRAILER_LF:
			if (c != '\n')
				return -EINVAL;
			b->st = HB_DONE;
			break;
		case HB_TLINE:
			if (c == '\r')
				b->st = HB_TLINE_LF;
			else if ((is_ctl(c) && c != '\t') ||
			    ++b->linelen > 4096)
				return -EINVAL;
			break;
		case HB_TLINE_LF:
			if (c != '\n')
				return -EINVAL;
			b->st = HB_TRAILER;
			break;
		case HB_DONE:
			break;
		}
		i++;
	}
	return (ssize_t)i;
}
