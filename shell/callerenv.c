/*
 * callerenv.c: the caller's environment, as the entry point held it.
 * See callerenv.h and lib/entry.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "callerenv.h"
#include "entry.h"

extern char **environ;

static char **caller;
static const char *entry;

int
callerenv_take(char **envp)
{
	size_t mlen = strlen(ENTRY_MARKER), plen = strlen(ENTRY_PREFIX);
	size_t n, i;
	char **v;

	if (!envp || !envp[0] || strncmp(envp[0], ENTRY_MARKER, mlen) != 0 ||
	    envp[0][mlen] != '/')
		return -EPERM;
	for (n = 1; envp[n]; n++)
		if (strncmp(envp[n], ENTRY_PREFIX, plen) != 0)
			return -EPERM;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* The strings stay where the kernel put them: no copy to wipe. */
	for (i = 1; i < n; i++)
		v[i - 1] = envp[i] + plen;
	free(caller);
	caller = v;
	entry = envp[0] + mlen;
	return 0;
}

char **
callerenv_all(void)
{
	return caller ? caller : environ;
}

const char *
callerenv_get(const char *name)
{
	char **v = callerenv_all();
	size_t n = strlen(name);

	for (; v && *v; v++)
		if (strncmp(*v, name, n) == 0 && (*v)[n] == '=')
			return *v + n + 1;
	return NULL;
}

const char *
callerenv_entry(void)
{
	return entry;
}
