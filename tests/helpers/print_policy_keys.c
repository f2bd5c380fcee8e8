/*
 * print_policy_keys.c: print every key the policy parser knows, one per
 * line (policy_keys[] of lib/policy.h), for tests/package/30-keys.t:
 * each must be documented in aisb.conf(5) and in etc/aisb/aisb.conf.
 */
#include <stdio.h>

#include "policy.h"

int
main(void)
{
	size_t i;

	for (i = 0; policy_keys[i] != NULL; i++)
		if (puts(policy_keys[i]) == EOF)
			return 1;
	return fflush(stdout) == 0 ? 0 : 1;
}
