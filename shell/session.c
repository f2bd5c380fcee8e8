/*
 * session.c: a sandboxed session, stage by stage (docs/architecture.md).
 */
#include <stdio.h>

#include "aisb.h"
#include "args.h"

int
session_main(const struct aisb_args *a)
{
	(void)a;
	fprintf(stderr, "aisb: the sandbox is not built yet; refusing to run "
	    "anything unsandboxed\n");
	return AISB_EX_HOST;
}
