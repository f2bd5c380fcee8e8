/*
 * main.c: aisb-shell-main, started by aisb-shell's entry point (entry/,
 * lib/entry.h).  Takes the held environment, then dispatches to the
 * admin forms or to a sandboxed session; see aisb-shell(8).
 */
#include <stdio.h>

#include "aisb.h"
#include "args.h"
#include "callerenv.h"
#include "entry.h"

extern char **environ;

int
main(int argc, char **argv)
{
	static char *no_env[] = {NULL};
	struct aisb_args a;

	/*
	 * Started any other way, the loader and the C library have seen
	 * the caller's environment as configuration: nothing runs then.
	 */
	if (callerenv_take(environ) < 0) {
		fprintf(stderr,
		    "aisb-shell: %s was not started by its entry point: run "
		    "aisb-shell, not %s\n",
		    ENTRY_MAIN_NAME, ENTRY_MAIN_NAME);
		return AISB_EX_HOST;
	}
	/* A session keeps the caller's environment as data only. */
	environ = no_env;
	if (args_parse(argc, argv, &a) < 0)
		return 2;
	switch (a.action) {
	case ACT_SESSION:
		return session_main(&a);
	case ACT_DOCTOR:
		environ = callerenv_all();
		return doctor_main(&a);
	case ACT_JAILCHECK:
		environ = callerenv_all();
		return jailcheck_main();
	case ACT_SESSIONS:
		environ = callerenv_all();
		return sessions_main(&a);
	case ACT_END:
		environ = callerenv_all();
		return sessions_end_main(&a);
	case ACT_EGRESS:
		environ = callerenv_all();
		return egress_main(&a);
	default:
		environ = callerenv_all();
		return admin_main(&a);
	}
}
