/*
 * main.c: aisb-shell entry point.  Dispatches to the admin forms or to
 * a sandboxed session; see aisb-shell(8).
 */
#include "aisb.h"
#include "args.h"

int
main(int argc, char **argv)
{
	struct aisb_args a;

	if (args_parse(argc, argv, &a) < 0)
		return 2;
	switch (a.action) {
	case ACT_SESSION:
		return session_main(&a);
	case ACT_DOCTOR:
		return doctor_main(&a);
	case ACT_JAILCHECK:
		return jailcheck_main();
	default:
		return admin_main(&a);
	}
}
