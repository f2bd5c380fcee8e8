/*
 * seccomp_gate_rules.h: the rules of the gate's seccomp allowlist, in
 * libseccomp's terms.  Not compiled into aisb-gate: the build runs them
 * once (gate/gen/seccomp_gate_gen.c exports the BPF into
 * $(BUILD)/gen/seccomp_gate_bpf.h, which harden.c installs), and
 * tests/unit/test_seccomp_gate_gen.c runs them again to prove the
 * generated program is what libseccomp builds on this machine.  The
 * gate used to compile the same program with libseccomp at start-up,
 * in every session, and to carry libseccomp.so for it.
 *
 * The syscalls the event loop makes, nothing else: no open/openat/
 * openat2, execve, ptrace, clone or bind, so that where Landlock is
 * missing seccomp alone keeps the gate off the filesystem.  Native ABI
 * only: libseccomp's architecture check kills any other.
 */
#ifndef AISB_SECCOMP_GATE_RULES_H
#define AISB_SECCOMP_GATE_RULES_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/filter.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <seccomp.h>

#include "seccomp_prog.h"
#include "util.h"

/*
 * The default action for anything not listed, one program each: the
 * gate's, and the one of a sanitizer build, whose runtime makes calls
 * of its own (sigaltstack, reading /proc/self/maps on a report) and
 * gets EPERM so that a report still gets printed.  harden.c picks.
 */
#define SECCOMP_GATE_DEFAULT SCMP_ACT_KILL_PROCESS
#define SECCOMP_GATE_DEFAULT_SAN SCMP_ACT_ERRNO(EPERM)

static const int allow_nr[] = {
    SCMP_SYS(read),
    SCMP_SYS(write),
    SCMP_SYS(readv),
    SCMP_SYS(writev),
    SCMP_SYS(close),
    SCMP_SYS(epoll_wait),
    SCMP_SYS(epoll_pwait),
    SCMP_SYS(epoll_ctl),
    SCMP_SYS(accept4),
    SCMP_SYS(connect),
    SCMP_SYS(getsockopt),
    SCMP_SYS(setsockopt),
    SCMP_SYS(getsockname),
    SCMP_SYS(getpeername),
    SCMP_SYS(sendto),
    SCMP_SYS(recvfrom),
    SCMP_SYS(sendmsg),
    SCMP_SYS(recvmsg),
    SCMP_SYS(shutdown),
    SCMP_SYS(splice),
    SCMP_SYS(pipe2),
    SCMP_SYS(fcntl),
    SCMP_SYS(clock_gettime),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(time),
    SCMP_SYS(getpid),
    SCMP_SYS(getrandom),
    SCMP_SYS(brk),
    SCMP_SYS(munmap),
    SCMP_SYS(mremap),
    SCMP_SYS(madvise),
    SCMP_SYS(rt_sigreturn),
    SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(exit),
    SCMP_SYS(exit_group),
    SCMP_SYS(futex),
    SCMP_SYS(restart_syscall),
    SCMP_SYS(epoll_create1),
    SCMP_SYS(fstat),
    SCMP_SYS(newfstatat),
    SCMP_SYS(lseek),
};

static int
seccomp_gate_rules_build(uint32_t def, scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx;
	size_t i;
	int r = 0;

	*out = NULL;
	ctx = seccomp_init(def);
	if (ctx == NULL)
		return -ENOMEM;
	for (i = 0; i < ELEMENTSOF(allow_nr) && r == 0; i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allow_nr[i], 0);
	/* Sockets: TCP/UDP out, and syslog's unix datagram socket. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_EQ, AF_INET));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_EQ, AF_INET6));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	/* Memory, never executable. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r < 0) {
		seccomp_release(ctx);
		return r;
	}
	*out = ctx;
	return 0;
}

/*
 * The BPF program libseccomp builds from the rules with default action
 * def, as the kernel gets it: *prog (malloc'd) of *n instructions.
 * 0 or -errno.
 */
static int
seccomp_gate_rules_bpf(uint32_t def, struct sock_filter **prog, size_t *n)
{
	scmp_filter_ctx ctx;
	int r;

	*prog = NULL;
	*n = 0;
	if ((r = seccomp_gate_rules_build(def, &ctx)) < 0)
		return r;
	return seccomp_prog_export(ctx, prog, n);
}

#endif
