/*
 * test_cred.c: the credentials' placeholders (shell/cred.c): the value's
 * shape (a prefix up to a separator, the length, the character
 * classes), random for each call, never the value.  Reading the files
 * (ownership, modes: 78) is tested with real files in tests/net.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "cred.h"

static char ph[512], ph2[512];

static int
make(const char *v, char *out)
{
	return cred_placeholder(v, strlen(v), out, 512);
}

static bool
same_classes(const char *a, const char *b, size_t from)
{
	for (size_t i = from; a[i] && b[i]; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

		if (!!islower(x) != !!islower(y) ||
		    !!isupper(x) != !!isupper(y) ||
		    !!isdigit(x) != !!isdigit(y) || (!isalnum(x) && x != y))
			return false;
	}
	return true;
}

TEST(shapes)
{
	const char *ant =
	    "sk-ant-api03-Ab3dEfGh1jKlMn0pQrStUvWxYz-9876_aBcD"
	    "eFgHiJkLmNoPqRsTuVwXyZ012345678901234567890123456789";
	const char *gh = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
	const char *hex = "0f3a9c4d2e1b5a6f7c8d9e0a1b2c3d4e";
	int n;

	n = make(ant, ph);
	is_int(n, (int)strlen(ant), "the same length");
	ok(strncmp(ph, "sk-ant-api03-", 13) == 0, "the prefix is kept");
	ok(same_classes(ant, ph, 13), "each byte keeps its class");
	ok(strcmp(ph, ant) != 0, "not the value");
	make(ant, ph2);
	ok(strcmp(ph, ph2) != 0, "random: another one each time");

	n = make(gh, ph);
	ok(n == (int)strlen(gh) && strncmp(ph, "ghp_", 4) == 0 &&
	        same_classes(gh, ph, 4),
	    "ghp_ tokens");
	n = make(hex, ph);
	ok(n == 32 && strspn(ph, "0123456789abcdef") == 32,
	    "hexadecimal stays hexadecimal");
	n = make("12345678901234567890", ph);
	ok(n == 20 && strspn(ph, "0123456789") == 20, "digits stay digits");
	n = make("short", ph);
	ok(n >= 16 && strncmp(ph, "short", 5) != 0,
	    "a short value gets a longer placeholder (%d)", n);
	n = make("a_b-cdefghijklmnopqrstuvwxyzabcdefgh", ph);
	ok(n == 36 && strncmp(ph, "a_b-", 4) == 0,
	    "a prefix in the first third");
	is_int(cred_placeholder(gh, strlen(gh), ph, strlen(gh) + 1), -ENOSPC,
	    "an output too small is refused");
}

int
main(void)
{
	RUN(shapes);
	return tap_done();
}
