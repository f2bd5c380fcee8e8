/*
 * fuzz_gitconf.c: the git configuration reader (lib/gitconf.c), which
 * reads repository configuration the agent may have shaped before it
 * was held read-only.  The input is the file's text.
 *
 * Every variable reported has a name git could have produced (one
 * without a section is a key of lower-case letters, digits and '-'
 * starting with a letter), and the parse ends in success or one of the
 * documented errors, with a line number for a syntax error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
check(const char *var, const char *value, void *data)
{
	const char *k;

	(void)value;
	(void)data;
	/* A subsection may hold a NUL, which ends the name for git's
	 * callers too: only a name without a dot is checked whole. */
	if (!*var)
		abort();
	if (strchr(var, '.'))
		return 0;
	if (!(*var >= 'a' && *var <= 'z'))
		abort();
	for (k = var; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') ||
		        *k == '-'))
			abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned line = 0;
	int r = gitconf_parse((const char *)data, size, check, NULL, &line);

	if (r != 0 && r != -EINVAL && r != -EFBIG && r != -ENOMEM)
		abort();
	if (r == -EINVAL && line == 0)
		abort();
	return 0;
}
