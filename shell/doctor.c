/*
 * doctor.c: aisb-shell --doctor, host readiness checks.
 */
#include <stdio.h>

#include "aisb.h"
#include "args.h"

int
doctor_main(const struct aisb_args *a)
{
	(void)a;
	fprintf(stderr, "aisb-shell: --doctor is not implemented yet\n");
	return 1;
}
