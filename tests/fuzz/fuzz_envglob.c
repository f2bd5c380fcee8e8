/*
 * fuzz_envglob.c: libFuzzer target for env.pass matching alone
 * (env_passes in shell/env.c): the caller chooses the variable names,
 * the administrator the patterns, and a glob must never let an unsafe
 * name (LD_*, BASH_ENV, ...) through.  fuzz_env.c drives the whole
 * environment build; this one checks the matcher's contract exactly.
 *
 * Input: "PATTERN\0NAME".  Invariants: a literal pattern passes only the
 * identical name; a glob passes a name iff fnmatch does and the name is
 * not unsafe; an unsafe name passes only through its literal spelling.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../shell/env.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aisb_policy pol;
	char *buf, *pat, *name, *pats[1];
	bool got, want;

	if (size > 1024)
		return 0;
	buf = malloc(size + 2);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = '\0';
	pat = buf;
	name = buf + strlen(buf) + 1;
	if (name > buf + size)
		name = buf + size + 1;
	memset(&pol, 0, sizeof(pol));
	pats[0] = pat;
	pol.env.pass.v = pats;
	pol.env.pass.n = 1;
	got = env_passes(&pol, name);
	if (!is_glob(pat))
		want = strcmp(pat, name) == 0;
	else
		want = !is_unsafe(name) && fnmatch(pat, name, 0) == 0;
	if (got != want)
		abort();
	if (got && is_unsafe(name) && strcmp(pat, name) != 0)
		abort();
	/* The standard unsafe names, under a catch-all glob, never pass. */
	pats[0] = "*";
	if (env_passes(&pol, "LD_PRELOAD") || env_passes(&pol, "LD_AUDIT") ||
	    env_passes(&pol, "BASH_ENV"))
		abort();
	free(buf);
	return 0;
}
