/*
 * fuzz_env.c: libFuzzer target for the session environment (shell/env.c)
 * and the shell form (shell/form.c), both fed by the caller: its
 * environment and argv.
 *
 * Input: NUL-separated words.  The first word is a list of env.pass
 * patterns separated by ','; the rest are the caller's "NAME=value"
 * entries (and, a second time, argv words for form_build).
 * Invariants: every result is NAME=value with a name that the policy
 * passes or one aisb sets itself; a glob never passes an unsafe name;
 * HOME, USER, SHELL, PWD and AISB_SESSION are always aisb's own; names
 * are unique; the inner argv is the input argv behind argv[0].
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../shell/env.c"
#include "../../shell/form.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const ours[] = {
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "PWD",
    "AISB_SESSION",
    "PATH",
};

static const char *
val(char **e, const char *name)
{
	size_t n = strlen(name);

	for (; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *p, *end, *words[64], *pats[16], **e = NULL;
	size_t nw = 0, np = 0, i, j;
	struct aisb_policy pol;
	struct env_opts o;
	struct form f;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf, end = buf + size; p <= end && nw < 63; p += strlen(p) + 1)
		words[nw++] = p;
	words[nw] = NULL;
	for (p = strtok(words[0], ","); p && np < 16; p = strtok(NULL, ","))
		pats[np++] = p;
	memset(&pol, 0, sizeof(pol));
	pol.shell = "/bin/bash";
	pol.env.pass.v = pats;
	pol.env.pass.n = np;
	pol.net.mode = AISB_NET_NONE;
	memset(&o, 0, sizeof(o));
	o.pol = &pol;
	o.caller = words + 1;
	o.user = "agent";
	o.home = "/home/agent";
	o.pwd = "/project";
	o.session_id = "00112233445566778899aabbccddeeff";
	if (env_build(&o, &e) == 0) {
		for (i = 0; e[i]; i++) {
			size_t n = name_len(e[i]);
			char name[256];
			bool set = false;

			if (n == 0 || e[i][n] != '=' || n >= sizeof(name))
				abort();
			memcpy(name, e[i], n);
			name[n] = '\0';
			for (j = 0; j < ELEMENTSOF(ours); j++)
				set |= strcmp(name, ours[j]) == 0;
			if (!set && !env_passes(&pol, name))
				abort();
			for (j = i + 1; e[j]; j++)
				if (name_len(e[j]) == n &&
				    strncmp(e[j], e[i], n) == 0)
					abort();
		}
		if (strcmp(val(e, "HOME"), "/home/agent") != 0 ||
		    strcmp(val(e, "SHELL"), "/bin/bash") != 0 ||
		    strcmp(val(e, "PWD"), "/project") != 0 ||
		    strcmp(val(e, "AISB_SESSION"), o.session_id) != 0)
			abort();
		env_free(e);
	}
	/* A glob never passes an unsafe name. */
	pats[0] = "*";
	pol.env.pass.n = 1;
	if (env_passes(&pol, "LD_PRELOAD") || env_passes(&pol, "BASH_ENV"))
		abort();
	if (form_build(nw & 1, (int)(nw - 1), words + 1, "/bin/bash", &f) ==
	    0) {
		for (i = 1; i < nw; i++)
			if (f.argv[i] != words[i])
				abort();
		if (f.argv[nw] != NULL)
			abort();
		form_free(&f);
	}
	free(buf);
	return 0;
}
