/*
 * fuzz_args.c: libFuzzer target for aisb-shell's command line
 * (args_parse in shell/args.c).  The caller of a login shell chooses
 * argv completely (sshd passes "-c CMD", su passes its own words).
 *
 * Input: NUL-separated words, argv[0] first.  Invariants: on success
 * the shell form is the tail of argv (never past its end), an admin form
 * carries no shell form, --json only with --print-policy, --config and
 * --user point at words of argv; on failure the result is not used.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../shell/args.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
in_argv(const char *s, char **argv, int argc)
{
	int i;

	for (i = 0; i < argc; i++)
		if (argv[i] == s)
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *p, *argv[65];
	struct aisb_args a;
	int argc = 0;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf; p < buf + size && argc < 64; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	/* args_parse writes its usage errors to stderr: keep runs quiet. */
	if (args_parse(argc, argv, &a) == 0) {
		if (a.argc < 0 || a.argc > argc ||
		    a.argv + a.argc != argv + argc)
			abort();
		if (a.argv0 == NULL || a.login != (a.argv0[0] == '-'))
			abort();
		if (a.action != ACT_SESSION && a.argc != 0)
			abort();
		if (a.json && a.action != ACT_PRINT_POLICY &&
		    a.action != ACT_SESSIONS && a.action != ACT_EGRESS)
			abort();
		if (a.since && a.action != ACT_EGRESS)
			abort();
		if (a.config && !in_argv(a.config, argv, argc))
			abort();
		if (a.user && !in_argv(a.user, argv, argc))
			abort();
	}
	free(buf);
	return 0;
}
