/*
 * test_redact.c: env.secret values out of relayed streams
 * (shell/redact.c).  Each value becomes its marker, every other byte
 * passes unchanged; the output is the same for every way the stream is
 * split into reads (a value split over two reads is found); random
 * binary data without a value passes byte for byte; short values are
 * left alone; a tail that only looks like a value's start comes out
 * with the next read or at the flush.  redact_pass, the relay's way of
 * sending the bytes before any value on without copying them, gives the
 * same output for every split, and stops before a value that begins
 * before one found first.  form_is_transfer (shell/form.c)
 * names the file-transfer forms that are never redacted, and nothing
 * else.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "form.h"
#include "redact.h"
#include "tap.h"
#include "util.h"

static char *const env[] = {
    "API_KEY=sk-live-0123456789abcdef",
    "TOKEN=ghp_tokentokentoken",
    "OVERLAP=sk-live-0123", /* a prefix of API_KEY */
    "SHORT=abc",
    NULL,
};

/* Feed s in pieces of `step` bytes (0: all at once), then flush. */
static char *
run(struct redact *r, const char *s, size_t n, size_t step, size_t *ret_len)
{
	char *out = malloc(redact_room(r, n) + n * 2 + 64);
	size_t o = 0, k;

	for (size_t i = 0; i < n; i += k) {
		k = step == 0 || n - i < step ? n - i : step;
		char *tmp = malloc(redact_room(r, k));
		size_t got = 0;

		redact_feed(r, s + i, k, tmp, &got);
		memcpy(out + o, tmp, got);
		o += got;
		free(tmp);
	}
	{
		char tmp[128];
		size_t got = 0;

		redact_flush(r, tmp, &got);
		memcpy(out + o, tmp, got);
		o += got;
	}
	out[o] = '\0';
	*ret_len = o;
	return out;
}

/*
 * As the relay reads a pipe: of each piece the bytes redact_pass gives
 * go out as they are, the rest is fed (from a copy).
 */
static char *
run_pass(
    struct redact *r, const char *s, size_t n, size_t step, size_t *ret_len)
{
	char *out = malloc(redact_room(r, n) + n * 2 + 64);
	size_t o = 0, k, m, got;

	for (size_t i = 0; i < n; i += k) {
		k = step == 0 || n - i < step ? n - i : step;
		m = redact_pass(r, s + i, k);
		memcpy(out + o, s + i, m);
		o += m;
		if (m < k) {
			char *tmp = malloc(redact_room(r, k - m));

			got = 0;
			redact_feed(r, s + i + m, k - m, tmp, &got);
			memcpy(out + o, tmp, got);
			o += got;
			free(tmp);
		}
	}
	{
		char tmp[128];

		got = 0;
		redact_flush(r, tmp, &got);
		memcpy(out + o, tmp, got);
		o += got;
	}
	out[o] = '\0';
	*ret_len = o;
	return out;
}

TEST(markers)
{
	struct redact *r = NULL;
	const char *in =
	    "key=sk-live-0123456789abcdef and ghp_tokentokentoken, "
	    "sk-live-0123 alone, abc stays";
	const char *want = "key=[aisb: redacted API_KEY] and [aisb: redacted "
	                   "TOKEN], [aisb: redacted OVERLAP] alone, abc stays";
	size_t n;
	char *out;

	is_int(redact_new(env, &r), 0, "a redactor");
	ok(r != NULL, "... with values long enough");
	out = run(r, in, strlen(in), 0, &n);
	is_str(out, want, "each value becomes its marker, the longest first");
	free(out);
	for (size_t step = 1; step <= strlen(in); step++) {
		out = run(r, in, strlen(in), step, &n);
		if (strcmp(out, want) != 0) {
			ok(0, "split into reads of %zu bytes: %s", step, out);
			free(out);
			break;
		}
		free(out);
		if (step == strlen(in))
			ok(1, "the same output for reads of 1 to %zu bytes",
			    step);
	}
	for (size_t step = 0; step <= strlen(in); step++) {
		out = run_pass(r, in, strlen(in), step, &n);
		if (strcmp(out, want) != 0) {
			ok(0, "redact_pass, reads of %zu bytes: %s", step, out);
			free(out);
			break;
		}
		free(out);
		if (step == strlen(in))
			ok(1,
			    "redact_pass: the same output for reads of 0 to "
			    "%zu bytes",
			    step);
	}
	redact_free(r);
}

TEST(pass)
{
	/* B is looked for first; A starts before B's match and ends after
	 * it: the scan replaces A, so only what is before A passes. */
	static char *const env2[] = {
	    "B=6789abcdefgh",
	    "A=0123456789",
	    NULL,
	};
	const char *in = "xx0123456789abcdefgh";
	struct redact *r = NULL;
	char out[256], *all;
	size_t n = 0;
	int bad = 0;

	redact_new(env, &r);
	is_int((int)redact_pass(r, "plain text\n", 11), 11,
	    "redact_pass: bytes without a value all pass");
	is_int((int)redact_pass(r, "prompt$ sk-li", 13), 8,
	    "... but a tail that may begin a value");
	is_int((int)redact_pass(r, "a ghp_tokentokentoken b", 23), 2,
	    "... up to the first value");
	is_int((int)redact_held(r), 0, "... and r is as it was");
	redact_feed(r, "prompt$ sk-li", 13, out, &n);
	is_int((int)redact_pass(r, "ve-0123 x", 9), 0,
	    "... none while bytes are held");
	redact_free(r);

	r = NULL;
	redact_new(env2, &r);
	is_int((int)redact_pass(r, in, strlen(in)), 2,
	    "... up to a value that starts before one found first");
	all = run_pass(r, in, strlen(in), 0, &n);
	is_str(all, "xx[aisb: redacted A]abcdefgh", "... and it is replaced");
	free(all);
	redact_free(r);

	/* Random bytes with values at every offset of a piece's end. */
	r = NULL;
	redact_new(env, &r);
	for (size_t at = 0; at < 40 && !bad; at++) {
		char buf[200];
		size_t a, b;
		char *x, *y;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)(i * 131 + 7);
		memcpy(buf + 100 - at, "sk-live-0123456789abcdef", 24);
		memcpy(buf + 150 - at / 2, "sk-live-0123", 12);
		for (size_t step = 1; step <= 64 && !bad; step++) {
			x = run(r, buf, sizeof(buf), step, &a);
			y = run_pass(r, buf, sizeof(buf), step, &b);
			if (a != b || memcmp(x, y, a) != 0)
				bad = 1;
			free(x);
			free(y);
		}
	}
	ok(!bad, "redact_pass and redact_feed agree for values across pieces");
	redact_free(r);
}

/*
 * A value inside a longer one (a password inside its URL): the longer
 * one is replaced whole, however the stream is split, also where a
 * read ends after the shorter one is complete; when the longer one
 * never completes, the shorter one alone is.
 */
TEST(nested)
{
	static char *const env3[] = {
	    "DB_PASS=S3cretPassw0rd",
	    "DB_URL=postgres://app:S3cretPassw0rd@db/x",
	    NULL,
	};
	const char *in = "u=postgres://app:S3cretPassw0rd@db/x;";
	const char *near = "u=postgres://app:S3cretPassw0rd@dz;";
	struct redact *r = NULL;
	size_t n = strlen(in), m = strlen(near), a, b;
	int bad_feed = 0, bad_pass = 0, bad_near = 0;
	char *x, *y;

	is_int(
	    redact_new(env3, &r), 0, "a redactor with a value inside another");
	for (size_t step = 0; step <= n; step++) {
		x = run(r, in, n, step, &a);
		y = run_pass(r, in, n, step, &b);
		if (strcmp(x, "u=[aisb: redacted DB_URL];") != 0) {
			if (!bad_feed)
				printf("# step %zu: %s\n", step, x);
			bad_feed = 1;
		}
		if (strcmp(y, "u=[aisb: redacted DB_URL];") != 0)
			bad_pass = 1;
		free(x);
		free(y);
		x = run(r, near, m, step, &a);
		y = run_pass(r, near, m, step, &b);
		if (strcmp(
		        x, "u=postgres://app:[aisb: redacted DB_PASS]@dz;") ||
		    strcmp(y, x) != 0)
			bad_near = 1;
		free(x);
		free(y);
	}
	ok(!bad_feed, "the longer value is replaced whole for every split");
	ok(!bad_pass, "... also through redact_pass");
	ok(!bad_near,
	    "one that never completes leaves the shorter one replaced");
	is_int((int)redact_pass(r, "x postgres://app:S3cretPassw0rd@d", 33), 2,
	    "redact_pass stops where the longer value may begin");
	redact_free(r);
}

TEST(held)
{
	struct redact *r = NULL;
	char out[256];
	size_t n = 0;

	redact_new(env, &r);
	redact_feed(r, "prompt$ sk-li", 13, out, &n);
	is_int((int)n, 8, "a tail that may begin a value is held back");
	is_int((int)redact_held(r), 5, "... 5 bytes of it");
	redact_feed(r, "ke", 2, out, &n);
	is_int((int)n, 7, "... and goes out once it cannot be one");
	ok(memcmp(out, "sk-like", 7) == 0, "... unchanged");
	redact_feed(r, "x sk-", 5, out, &n);
	redact_flush(r, out + n, &(size_t){0});
	ok(memcmp(out, "x sk-", 5) == 0,
	    "redact_flush gives the held bytes back");
	is_int((int)redact_held(r), 0, "... and holds nothing after");
	redact_feed(r, "x sk-live-0123", 14, out, &n);
	is_int(
	    (int)n, 2, "a value that may be the start of a longer one is held");
	redact_flush(r, out + n, &(size_t){0});
	out[2 + 24] = '\0';
	is_str(
	    out, "x [aisb: redacted OVERLAP]", "... and redacted at the flush");
	redact_free(r);
}

TEST(binary)
{
	struct redact *r = NULL;
	size_t len = 1 << 20, n, bad = 0;
	char *in = malloc(len), *out;
	unsigned s = 12345;

	for (size_t i = 0; i < len; i++) {
		s = s * 1103515245 + 12345;
		in[i] = (char)(s >> 16);
	}
	redact_new(env, &r);
	out = run(r, in, len, 4093, &n);
	is_int((int)n, (int)len, "1 MiB of random bytes: the same length");
	ok(memcmp(in, out, len) == 0, "... byte for byte");
	free(out);
	memcpy(in + 1000, "sk-live-0123456789abcdef", 24);
	memcpy(in + len - 20, "ghp_tokentokentoken", 19);
	out = run(r, in, len, 65536, &n);
	ok(n ==
	        len - 24 - 19 + strlen("[aisb: redacted API_KEY]") +
	            strlen("[aisb: redacted TOKEN]"),
	    "with two values: only their bytes change");
	ok(memcmp(out, in, 1000) == 0 &&
	        memcmp(out + 1000, "[aisb: redacted API_KEY]", 24) == 0,
	    "... before and at the first");
	for (size_t i = 1024; i < len - 20; i++)
		bad += out[i] != in[i];
	is_int((int)bad, 0, "... and between them");
	free(out);
	free(in);
	redact_free(r);
}

TEST(nothing)
{
	struct redact *r = (struct redact *)1;
	char *const none[] = {"SHORT=abc", "EMPTY=", NULL};

	is_int(redact_new(none, &r), 0, "only short values");
	ok(r == NULL, "... no redactor: nothing to do");
	is_int(redact_new(NULL, &r), 0, "no secrets at all");
	ok(r == NULL, "... no redactor");
}

/* Is the form "bash ARGS..." a transfer? */
static bool
transfer(const char *a1, const char *a2)
{
	char w1[256], w2[256];
	char *argv[] = {w1, w2, NULL};
	struct form f = {0};
	int argc = a1 ? (a2 ? 2 : 1) : 0;
	bool t;

	snprintf(w1, sizeof(w1), "%s", a1 ? a1 : "");
	snprintf(w2, sizeof(w2), "%s", a2 ? a2 : "");
	if (form_build(false, argc, argv, "/bin/bash", &f) < 0)
		return false;
	t = form_is_transfer(&f);
	form_free(&f);
	return t;
}

TEST(transfer_forms)
{
	static const char *const yes[] = {
	    "/usr/lib/openssh/sftp-server",
	    "sftp-server -l INFO",
	    "scp -t /project/x",
	    "scp -v -d -f -- /project/x",
	    "rsync --server -logDtpre.iLsfxCIvu . /project/x",
	    "rsync --server --sender -vlogDtpre.iLsfxCIvu . /project/x",
	    "git-upload-pack '/project/repo.git'",
	    "git-receive-pack '/project/repo.git'",
	    "git-upload-archive '/project/repo.git'",
	    "  git upload-pack '/project/repo.git'",
	    "/usr/bin/git-receive-pack 'repo'",
	};
	static const char *const no[] = {
	    "echo $SECRET",
	    "scp a b",
	    "scp -tx",
	    "rsync -a a b",
	    "git log",
	    "gitupload-pack x",
	    "printenv; sftp-server",
	    "sftp-serverx",
	    "cat /project/x | git-upload-pack",
	    "",
	};

	for (size_t i = 0; i < ELEMENTSOF(yes); i++)
		ok(transfer("-c", yes[i]), "transfer form: -c \"%s\"", yes[i]);
	for (size_t i = 0; i < ELEMENTSOF(no); i++)
		ok(!transfer("-c", no[i]), "not a transfer: -c \"%s\"", no[i]);
	ok(!transfer("/usr/lib/openssh/sftp-server", NULL),
	    "not a transfer: a script named like one (not -c)");
	ok(!transfer("-s", NULL), "not a transfer: commands on stdin");
	ok(!transfer(NULL, NULL), "not a transfer: a plain shell");
}

TEST(room)
{
	struct redact *r = NULL;
	char out[4096];
	size_t n;

	redact_new(env, &r);
	redact_feed(r, "x sk-live-0123456789abcde", 25, out, &n);
	ok(redact_held(r) > 0, "a held tail");
	ok(redact_room_max(r, 100) >= redact_room(r, 100),
	    "redact_room_max bounds redact_room, whatever is held");
	redact_flush(r, out, &n);
	ok(redact_room_max(r, 100) >= redact_room(r, 100) + 23,
	    "... with room for the longest held tail");
	redact_free(r);
}

int
main(void)
{
	RUN(markers);
	RUN(held);
	RUN(pass);
	RUN(nested);
	RUN(binary);
	RUN(nothing);
	RUN(transfer_forms);
	RUN(room);
	return tap_done();
}
