/*
 * aisb-try: attempt one syscall the sandbox must deny (or its twin that
 * must work) and report the result; the escape suite runs it inside a
 * session.
 *
 *	aisb-try NAME [ARG]	exit 0 when the call succeeded, 1 when it
 *				failed; prints "NAME ok" or "NAME EPERM ..."
 *	aisb-try all		every probe, one line each: "NAME ok|ERRNO"
 *
 * The probes are in probe.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "probe.h"

static void
usage(void)
{
	size_t i;

	fprintf(stderr, "usage: aisb-try NAME [ARG] | all\nprobes:");
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		fprintf(stderr, " %s", probes[i].name);
	fprintf(stderr, "\n");
}

static int
run(const struct probe *p)
{
	int e;

	fflush(stdout);
	e = p->fn();
	if (e == 0)
		printf("%s ok\n", p->name);
	else
		printf("%s %s %s\n", p->name,
		    strerrorname_np(e) ? strerrorname_np(e) : "E?",
		    strerror(e));
	fflush(stdout);
	return e == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const struct probe *p;
	size_t i;

	if (argc < 2 || argc > 3) {
		usage();
		return 2;
	}
	if (strcmp(argv[1], "all") == 0) {
		for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			run(&probes[i]);
		return 0;
	}
	if ((p = probe_find(argv[1])) == NULL) {
		usage();
		return 2;
	}
	probe_arg = argc == 3 ? argv[2] : NULL;
	return run(p);
}
