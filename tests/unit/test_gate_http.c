/*
 * test_gate_http.c: the gate's request-head parser and body framer
 * (gate/http.c).
 */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "gate.h"

static int
parse(const char *s, struct http_req *r, const char **why)
{
	return http_parse_head(s, strlen(s), r, why);
}

TEST(heads)
{
	struct http_req r;
	const char *why;
	char out[HTTP_HEAD_MAX + 1024];
	const char *get =
	    "GET http://Example.COM:8080/a?b=1 HTTP/1.1\r\n"
	    "Host: example.com:8080\r\nProxy-Connection: keep-alive\r\n"
	    "Proxy-Authorization: Basic eA==\r\nAccept: */*\r\n\r\nBODY";
	int n;

	n = parse(get, &r, &why);
	is_int(
	    n, (int)(strlen(get) - 4), "absolute-URI head parses to its end");
	is_str(r.host, "Example.COM", "host as written");
	is_int(r.port, 8080, "port");
	ok(!r.connect && r.minor == 1, "not CONNECT, HTTP/1.1");
	n = http_rewrite_head(get, &r, out, sizeof(out));
	ok(n > 0, "rewrite");
	out[n > 0 ? n : 0] = '\0';
	is_str(out,
	    "GET /a?b=1 HTTP/1.1\r\nHost: example.com:8080\r\n"
	    "Accept: */*\r\n\r\n",
	    "origin-form, proxy headers dropped");

	n = parse("GET http://a.test HTTP/1.0\r\n\r\n", &r, &why);
	ok(n > 0, "HTTP/1.0 without Host");
	n = http_rewrite_head(
	    "GET http://a.test HTTP/1.0\r\n\r\n", &r, out, sizeof(out));
	out[n > 0 ? n : 0] = '\0';
	is_str(out, "GET / HTTP/1.0\r\nHost: a.test\r\n\r\n",
	    "empty path becomes /, Host added");

	n = parse("CONNECT [::1]:443 HTTP/1.1\r\n\r\n", &r, &why);
	ok(n > 0 && r.connect && strcmp(r.host, "[::1]") == 0 && r.port == 443,
	    "CONNECT [v6]:port");
	is_int(parse("GET http://a.test/ HTTP/1.1\r\n", &r, &why), 0,
	    "incomplete head: need more");
	is_int(parse("GET http://a.test/ HTTP/1.1\r\nHost: b.test\r\n\r\n", &r,
	           &why),
	    -EINVAL, "Host disagrees with the URI");
	is_int(parse("GET http://a.test/ HTTP/1.1\r\nHost: A.test.\r\n\r\n", &r,
	           &why),
	    (int)strlen("GET http://a.test/ HTTP/1.1\r\nHost: "
	                "A.test.\r\n\r\n"),
	    "Host agrees after canonicalisation");
	is_int(parse("POST http://a.test/ HTTP/1.1\r\nContent-Length: 1\r\n"
	             "Transfer-Encoding: chunked\r\n\r\n",
	           &r, &why),
	    -EINVAL, "TE + CL refused");
	ok(strstr(why, "Transfer-Encoding") != NULL, "... saying why: %s", why);
	is_int(parse("GET http://a.test/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", &r,
	           &why),
	    -EINVAL, "obs-fold refused");
	is_int(parse("GET http://a.test/ HTTP/1.1\nX: a\n\n", &r, &why),
	    -EINVAL, "bare LF refused");
	is_int(parse("GET /a HTTP/1.1\r\nHost: a.test\r\n\r\n", &r, &why),
	    -EINVAL, "origin-form refused by a proxy");
	is_int(parse("GET http://u@a.test/ HTTP/1.1\r\n\r\n", &r, &why),
	    -EINVAL, "userinfo refused");
	is_int(parse("CONNECT a.test HTTP/1.1\r\n\r\n", &r, &why), -EINVAL,
	    "CONNECT without a port refused");
	{
		static char big[HTTP_HEAD_MAX + 10];

		memset(big, 'a', sizeof(big));
		memcpy(big, "GET http://a.test/ HTTP/1.1\r\nX: ", 32);
		is_int(http_parse_head(big, sizeof(big), &r, &why), -EINVAL,
		    "a head over 16 KiB is refused");
	}
}

TEST(bodies)
{
	struct http_req r;
	struct http_body b;
	const char *why;
	const char *chunked = "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n"
	                      "Trailer: x\r\n\r\nNEXT";
	size_t total = 0, len = strlen(chunked);
	ssize_t k;

	parse("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	      "\r\n",
	    &r, &why);
	http_body_start(&b, &r);
	/* Byte by byte: framing state must survive any split. */
	for (size_t i = 0; i < len && b.st != HB_DONE; i++) {
		k = http_body_feed(&b, chunked + i, 1);
		if (k < 0)
			break;
		total += (size_t)k;
	}
	is_int(b.st, HB_DONE, "chunked body ends at the empty trailer line");
	is_int(total, len - 4, "... and not a byte later");

	http_body_start(&b, &r);
	ok(http_body_feed(&b, "zz\r\n", 4) < 0, "bad chunk size refused");
	http_body_start(&b, &r);
	ok(http_body_feed(&b, "1\r\nab\r\n", 7) < 0,
	    "chunk longer than its size refused");
	http_body_start(&b, &r);
	ok(http_body_feed(&b, "ffffffffffffffffff\r\n", 20) < 0,
	    "absurd chunk size refused");

	parse("POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\n\r\n", &r,
	    &why);
	http_body_start(&b, &r);
	is_int(http_body_feed(&b, "abcdef", 6), 3,
	    "Content-Length body takes exactly its length");
	is_int(b.st, HB_DONE, "... and is done");
}

int
main(void)
{
	RUN(heads);
	RUN(bodies);
	return tap_done();
}
