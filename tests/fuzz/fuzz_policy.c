/*
 * fuzz_policy.c: libFuzzer target for the policy parser (the pre-scan,
 * libconfuse under our callbacks, validation and printing).  No file
 * trust checks here: policy_load_buf() parses a buffer as a config.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "policy.h"
#include "policy_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_errs errs = {0};
	struct aisb_policy *p = NULL;
	FILE *f;

	if (policy_load_buf("fuzz.conf", (const char *)data, size, "fuzz",
	        "/home/fuzz", &p, &errs) == 0) {
		if (p == NULL || errs.n != 0)
			abort();
		f = fopen("/dev/null", "w");
		if (f != NULL) {
			(void)policy_write(p, f, 0);
			(void)policy_write(p, f, 1);
			fclose(f);
		}
		(void)policy_is_agent(p, "fuzz");
		policy_free(p);
	} else if (errs.n == 0 || p != NULL) {
		abort(); /* a failure always says why */
	}
	policy_errs_free(&errs);
	return 0;
}
