/*
 * test_seccomp_gen.c: the main seccomp filter compiled into aisb-shell
 * at build time ($(BUILD)/gen/seccomp_deny_bpf.h) is exactly the
 * program libseccomp builds now, on this machine, from the same rules
 * (shell/seccomp_deny_rules.h), instruction by instruction.  What the
 * program does is proven by test_lockdown and tests/escape; this test
 * proves the build did not go stale or drift from the rules.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>

#include "tap.h"
#include "seccomp_deny_rules.h"
#include "seccomp_deny_bpf.h"

int
main(void)
{
	struct sock_filter *now;
	size_t n, i, first_diff;
	int r;

	r = seccomp_deny_rules_bpf(&now, &n);
	ok(r == 0, "libseccomp builds the rules at run time (%s)",
	    r < 0 ? strerror(-r) : "ok");
	if (r < 0)
		return tap_done();
	ok(n == ELEMENTSOF(seccomp_deny_bpf),
	    "same length: %zu generated, %zu now", ELEMENTSOF(seccomp_deny_bpf),
	    n);
	first_diff = n;
	for (i = 0; i < n && i < ELEMENTSOF(seccomp_deny_bpf); i++)
		if (memcmp(&now[i], &seccomp_deny_bpf[i], sizeof(now[i])) !=
		    0) {
			first_diff = i;
			break;
		}
	ok(first_diff == n, "same instructions (first difference at %zu)",
	    first_diff);
	/* Not a trivial program: the architecture check first, the deny
	 * rules after (x86_64, i386 and x32 here). */
	ok(seccomp_deny_bpf[0].code == (BPF_LD | BPF_W | BPF_ABS) &&
	        seccomp_deny_bpf[0].k == offsetof(struct seccomp_data, arch),
	    "the program starts by loading the architecture");
	ok(ELEMENTSOF(seccomp_deny_bpf) > ELEMENTSOF(deny_nr),
	    "at least one instruction per denied syscall (%zu)",
	    ELEMENTSOF(seccomp_deny_bpf));
	ok(SECCOMP_DENY_ARCH_NATIVE == seccomp_arch_native(),
	    "native architecture 0x%x", SECCOMP_DENY_ARCH_NATIVE);
	free(now);
	return tap_done();
}
