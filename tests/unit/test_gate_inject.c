/*
 * test_gate_inject.c: request heads inside a terminated TLS connection
 * (gate/inject.c, http_parse_origin_head in gate/http.c): the value in
 * its header only, for its hosts only; Host checked; the rest of the
 * head left as it came.
 */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "gate.h"
#include "injectcred.h"

#define PH "sk-test-PLACEHOLDERabcdefghij"
#define VAL "sk-test-REALVALUEzyxwvutsrqpo"

static const struct inject_cred creds[3] = {
    INJECT_CRED_BARE("api", "x-api-key", PH, VAL, true),
    INJECT_CRED_SCHEME("bearer", "Authorization", "Bearer",
        "PH2PH2PH2PH2PH2PH2", "VALUE2VALUE2VALUE2", true),
    INJECT_CRED_BARE("elsewhere", "x-other-key", "PH3PH3PH3PH3PH3PH3",
        "VALUE3VALUE3VALUE3", false),
};
static const struct inject_target tgt = {
    .host = "api.example.test", .port = 443, .creds = creds, .ncreds = 3};

static char out[HTTP_HEAD_MAX + 4096];

static int
run(const char *head, struct inject_result *res)
{
	int r = inject_head(&tgt, head, strlen(head), out, sizeof(out), res);

	out[r == INJ_OK ? res->out_len : 0] = '\0';
	return r;
}

TEST(replace)
{
	struct inject_result res;

	is_int(run("POST /v1/messages HTTP/1.1\r\nHost: api.example.test\r\n"
	           "X-Api-Key: " PH "\r\nContent-Length: 2\r\n\r\nhi",
	           &res),
	    INJ_OK, "a head with the placeholder");
	is_str(out,
	    "POST /v1/messages HTTP/1.1\r\nHost: api.example.test\r\n"
	    "X-Api-Key: " VAL "\r\nContent-Length: 2\r\n\r\n",
	    "the value in its header (the name as written), the rest as it "
	    "came");
	ok(res.injected == 1 && res.misplaced == 0 && res.foreign == 0,
	    "injected, nothing misplaced or foreign");
	ok(res.req.has_clen && res.req.clen == 2 &&
	        res.head_len == strlen(out) - strlen(VAL) + sizeof(PH) - 1,
	    "framing and the head's length");

	is_int(run("GET / HTTP/1.1\r\nHost: API.example.test:443\r\n"
	           "authorization: bearer   PH2PH2PH2PH2PH2PH2\r\n\r\n",
	           &res),
	    INJ_OK, "Bearer");
	ok(strstr(out, "authorization: Bearer VALUE2VALUE2VALUE2\r\n") != NULL,
	    "\"bearer\" in another case, spaces: still the header's form");
	ok(res.injected == 2, "the second credential");
}

TEST(left_alone)
{
	struct inject_result res;

	is_int(run("GET /q?k=" PH " HTTP/1.1\r\nHost: api.example.test\r\n"
	           "x-api-key: " PH "\r\nx-note: " PH "\r\n\r\n",
	           &res),
	    INJ_OK, "the placeholder in the path and another header too");
	ok(strncmp(out, "GET /q?k=" PH " HTTP", 9 + sizeof(PH) + 4) == 0,
	    "the path is left alone");
	ok(strstr(out, "x-note: " PH "\r\n") != NULL,
	    "the other header is left alone");
	ok(strstr(out, "x-api-key: " VAL "\r\n") != NULL,
	    "its own header is replaced");
	ok(res.misplaced == 1, "... and the misplacement is reported");

	is_int(run("GET / HTTP/1.1\r\nHost: api.example.test\r\n"
	           "x-api-key: prefix " PH "\r\n\r\n",
	           &res),
	    INJ_OK, "a header that is not exactly the placeholder");
	ok(strstr(out, "x-api-key: prefix " PH "\r\n") != NULL,
	    "... is left alone");
	ok(res.injected == 0 && res.misplaced == 1, "... and reported");

	is_int(run("GET / HTTP/1.1\r\nHost: api.example.test\r\n"
	           "x-other-key: PH3PH3PH3PH3PH3PH3\r\n\r\n",
	           &res),
	    INJ_OK, "a credential whose hosts do not include this one");
	ok(strstr(out, "x-other-key: PH3PH3PH3PH3PH3PH3\r\n") != NULL,
	    "... is not replaced");
	ok(res.foreign == 4 && res.injected == 0, "... and is a denied use");
	ok(strstr(out, "VALUE3") == NULL, "its value is nowhere");
}

TEST(refused)
{
	struct inject_result res;

	is_int(run("GET / HTTP/1.1\r\nHost: other.example.test\r\n"
	           "x-api-key: " PH "\r\n\r\n",
	           &res),
	    INJ_MISDIRECTED, "Host names another host: misdirected");
	is_int(
	    run("GET / HTTP/1.1\r\nHost: api.example.test:8443\r\n\r\n", &res),
	    INJ_MISDIRECTED, "... or another port");
	is_int(run("GET https://other.example.test/ HTTP/1.1\r\n"
	           "Host: other.example.test\r\n\r\n",
	           &res),
	    INJ_MISDIRECTED, "an absolute target for another host");
	is_int(run("GET https://api.example.test/ HTTP/1.1\r\n"
	           "Host: other.example.test\r\n\r\n",
	           &res),
	    INJ_BAD, "an absolute target that Host disagrees with");
	is_int(run("GET / HTTP/1.1\r\n\r\n", &res), INJ_BAD,
	    "HTTP/1.1 without Host");
	ok(run("GET / HTTP/1.0\r\n\r\n", &res) == INJ_OK,
	    "HTTP/1.0 without Host: the connection's host");
	is_int(run("GET / HTTP/1.1\r\nHost: api.example.test\r\n"
	           "x-api-key: " PH "\r\nX-API-KEY: " PH "\r\n\r\n",
	           &res),
	    INJ_BAD, "the credential's header twice");
	is_int(run("CONNECT api.example.test:443 HTTP/1.1\r\n"
	           "Host: api.example.test\r\n\r\n",
	           &res),
	    INJ_BAD, "CONNECT inside");
	is_int(run("GET / HTTP/1.1\r\nHost: api.example.test\r\n"
	           "Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
	           &res),
	    INJ_BAD, "Content-Length with chunked (the proxy's rules)");
	is_int(run("GET / HTTP/1.1\r\nHost: api.example.test\r\n", &res),
	    INJ_MORE, "an incomplete head");
	{
		struct inject_result r2;
		char small[40];
		const char *h = "GET / HTTP/1.1\r\nHost: api.example.test\r\n"
		                "x-api-key: " PH "\r\n\r\n";

		is_int(
		    inject_head(&tgt, h, strlen(h), small, sizeof(small), &r2),
		    INJ_BAD, "an output that does not fit is a refusal");
	}
}

TEST(origin_parser)
{
	struct http_req r;
	const char *why;
	const char *h = "OPTIONS * HTTP/1.1\r\nHost: a.test\r\n\r\n";

	ok(http_parse_origin_head(h, strlen(h), &r, &why) > 0 &&
	        r.port == 443 && strcmp(r.host, "a.test") == 0,
	    "OPTIONS *; Host without a port is 443");
	h = "GET * HTTP/1.1\r\nHost: a.test\r\n\r\n";
	is_int(http_parse_origin_head(h, strlen(h), &r, &why), -EINVAL,
	    "* only for OPTIONS");
	h = "GET http://a.test/x HTTP/1.1\r\nHost: a.test\r\n\r\n";
	ok(http_parse_origin_head(h, strlen(h), &r, &why) == -EINVAL,
	    "http:// (port 80) disagrees with Host's 443");
	h = "GET /x HTTP/1.1\r\nHost: a.test\r\nUpgrade: websocket\r\n\r\n";
	ok(http_parse_origin_head(h, strlen(h), &r, &why) > 0 && r.upgrade,
	    "Upgrade is noted");
	h = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n";
	ok(http_parse_head(h, strlen(h), &r, &why) > 0 && !r.origin,
	    "the proxy parser is unchanged");
}

int
main(void)
{
	RUN(replace);
	RUN(left_alone);
	RUN(refused);
	RUN(origin_parser);
	return tap_done();
}
