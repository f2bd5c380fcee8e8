/*
 * admin.c: the admin forms of aisb-shell (--print-policy, --check-config,
 * --version, --help).
 */
#include <stdio.h>

#include "aisb.h"
#include "args.h"

static const char usage[] =
    "usage: aisb-shell [-l | -i | -s | -c COMMAND [ARG...] | SCRIPT]\n"
    "       aisb-shell [--config FILE] [--user NAME] --print-policy [--json]\n"
    "       aisb-shell [--config FILE] [--user NAME] --check-config\n"
    "       aisb-shell [--config FILE] --doctor\n"
    "       aisb-shell --version | --help\n";

int
admin_main(const struct aisb_args *a)
{
	switch (a->action) {
	case ACT_VERSION:
		printf("aisb-shell %s\n", AISB_VERSION);
		return 0;
	case ACT_HELP:
		fputs(usage, stdout);
		return 0;
	default:
		fprintf(stderr, "aisb-shell: not implemented yet\n");
		return AISB_EX_HOST;
	}
}
