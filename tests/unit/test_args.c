/*
 * test_args.c: aisb-shell's argv parsing (shell/args.c).
 */
#include <errno.h>

#include "tap.h"
#include "args.h"

TEST(forms)
{
	struct aisb_args a;
	char *v1[] = {"-aisb-shell", NULL};
	char *v2[] = {"aisb-shell", "-c", "echo hi", NULL};
	char *v3[] = {"aisb-shell", "--config", "/x.conf", "--print-policy",
	    "--json", NULL};
	char *v4[] = {"aisb-shell", "--bogus", NULL};
	char *v5[] = {"aisb-shell", "--json", NULL};
	char *v6[] = {"aisb-shell", "--version", "extra", NULL};
	char *v7[] = {"aisb-shell", "--config", NULL};

	is_int(args_parse(1, v1, &a), 0, "login form parses");
	ok(a.login && a.action == ACT_SESSION && a.argc == 0,
	    "argv[0] '-name' is a login session");
	is_int(args_parse(3, v2, &a), 0, "-c parses");
	ok(!a.login && a.argc == 2 && a.argv[0][1] == 'c',
	    "-c CMD is left for the session");
	is_int(args_parse(5, v3, &a), 0, "admin form parses");
	ok(a.action == ACT_PRINT_POLICY && a.json && a.config && a.argc == 0,
	    "--config FILE --print-policy --json");
	is_int(args_parse(2, v4, &a), -EINVAL, "unknown option refused");
	is_int(args_parse(2, v5, &a), -EINVAL, "--json alone refused");
	is_int(args_parse(3, v6, &a), -EINVAL, "admin form with extra arg");
	is_int(args_parse(2, v7, &a), -EINVAL, "--config without a file");
}

/* Found by fuzz_args: an empty argv gave a shell form of -1 words. */
TEST(empty_argv)
{
	struct aisb_args a;
	char *v[] = {NULL};

	is_int(args_parse(0, v, &a), 0, "an empty argv parses");
	ok(a.argc == 0 && a.argv == v && a.action == ACT_SESSION,
	    "an empty argv has an empty shell form");
}

int
main(void)
{
	RUN(forms);
	RUN(empty_argv);
	return tap_done();
}
