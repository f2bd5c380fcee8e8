/*
 * seccomp_deny_rules.h: the rules of the inner's main seccomp filter,
 * in libseccomp's terms.  Not compiled into aisb-shell: the build runs
 * them once (shell/gen/seccomp_deny_gen.c exports the BPF into
 * $(BUILD)/gen/seccomp_deny_bpf.h, which seccomp_deny.c installs), and
 * tests/unit/test_seccomp_gen.c runs them again to prove the generated
 * program is what libseccomp builds on this machine.  Every session
 * used to compile the same program with libseccomp: about 5% of a
 * session's CPU (docs/performance.md).
 *
 * Default allow, EPERM for a list of kernel surfaces, every ABI of the
 * machine added so that an i386 "int $0x80" or an x32 syscall meets
 * the same rules.
 */
#ifndef AISB_SECCOMP_DENY_RULES_H
#define AISB_SECCOMP_DENY_RULES_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <seccomp.h>

#include "seccomp_prog.h"
#include "util.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/*
 * Denied outright with EPERM.  Most need a capability the inner no
 * longer has; the filter is the second wall, and it also closes what
 * needs no capability: io_uring creates sockets and opens files without
 * the syscalls below it (codex seccomp.rs), userfaultfd and bpf widen
 * the kernel's exposure to exploit primitives, keyctl reaches the
 * user's session keyring.  Names missing from an ABI are skipped for
 * that ABI by libseccomp.
 */
static const int deny_nr[] = {
    SCMP_SYS(setns),
    SCMP_SYS(mount),
    SCMP_SYS(umount),
    SCMP_SYS(umount2),
    SCMP_SYS(pivot_root),
    SCMP_SYS(chroot),
    SCMP_SYS(open_tree),
    SCMP_SYS(move_mount),
    SCMP_SYS(fsopen),
    SCMP_SYS(fsconfig),
    SCMP_SYS(fsmount),
    SCMP_SYS(fspick),
    SCMP_SYS(mount_setattr),
    SCMP_SYS(open_by_handle_at),
    SCMP_SYS(kexec_load),
    SCMP_SYS(kexec_file_load),
    SCMP_SYS(bpf),
    SCMP_SYS(perf_event_open),
    SCMP_SYS(userfaultfd),
    SCMP_SYS(keyctl),
    SCMP_SYS(add_key),
    SCMP_SYS(request_key),
    SCMP_SYS(init_module),
    SCMP_SYS(finit_module),
    SCMP_SYS(delete_module),
    SCMP_SYS(acct),
    SCMP_SYS(swapon),
    SCMP_SYS(swapoff),
    SCMP_SYS(reboot),
    SCMP_SYS(settimeofday),
    SCMP_SYS(stime),
    SCMP_SYS(clock_settime),
    SCMP_SYS(clock_settime64),
    SCMP_SYS(clock_adjtime),
    SCMP_SYS(clock_adjtime64),
    SCMP_SYS(adjtimex),
    SCMP_SYS(quotactl),
    SCMP_SYS(quotactl_fd),
    SCMP_SYS(lookup_dcookie),
    SCMP_SYS(nfsservctl),
    SCMP_SYS(vhangup),
    SCMP_SYS(syslog),
    SCMP_SYS(iopl),
    SCMP_SYS(ioperm),
    SCMP_SYS(vm86),
    SCMP_SYS(vm86old),
    SCMP_SYS(io_uring_setup),
    SCMP_SYS(io_uring_enter),
    SCMP_SYS(io_uring_register),
};

/*
 * A rule on an int argument compares the low 32 bits only: the kernel
 * truncates ioctl's cmd, socket's family and personality's persona to
 * 32 bits, so a plain 64-bit compare is bypassed by garbage in the high
 * half (CVE-2019-10063, bubblewrap's "ioctl TIOCSTI CVE-2019-10063").
 */
#define LOW32(arg, v)                                                          \
	SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, 0xffffffffULL, (uint64_t)(v))
#define HASBIT(arg, b)                                                         \
	SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, (uint64_t)(b), (uint64_t)(b))

static int
seccomp_deny_rules_build(scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx;
	size_t i;
	int r;

	*out = NULL;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL)
		return -ENOMEM;
	/* An ABI the filter does not know is killed, not allowed. */
	r = seccomp_attr_set(
	    ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		goto out;
#if defined(__x86_64__)
	/*
	 * A 64-bit process can still make i386 syscalls (int $0x80) and,
	 * when the kernel has it, x32 ones (nr | 0x40000000): same rules
	 * for each (libseccomp maps the names per ABI).
	 */
	r = seccomp_arch_add(ctx, SCMP_ARCH_X86);
	if (r < 0 && r != -EEXIST)
		goto out;
	r = seccomp_arch_add(ctx, SCMP_ARCH_X32);
	if (r < 0 && r != -EEXIST)
		goto out;
#endif
	for (i = 0; i < ELEMENTSOF(deny_nr); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), deny_nr[i], 0);
		/* -EDOM etc.: a name no ABI of ours has (e.g. vm86 off x86). */
		if (r < 0 && r != -EDOM && r != -EFAULT && r != -EINVAL)
			goto out;
	}

	/* Terminal injection into whatever tty is reachable. */
	r = seccomp_rule_add(
	    ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1, LOW32(1, TIOCSTI));
	if (r < 0)
		goto out;
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    LOW32(1, TIOCLINUX));
	if (r < 0)
		goto out;
	/*
	 * Changing a tty's line discipline: any pty inside could be
	 * switched to n_gsm, n_hdlc, slip and others that the kernel
	 * autoloads as modules, kernel code no session needs and where
	 * exploitable bugs were found (CVE-2023-6546 n_gsm, CVE-2017-2636
	 * n_hdlc).  TIOCGETD and the other tty ioctls stay.
	 */
	r = seccomp_rule_add(
	    ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1, LOW32(1, TIOCSETD));
	if (r < 0)
		goto out;

	/*
	 * AF_VSOCK reaches the hypervisor and sibling VMs without the
	 * network namespace.  On i386 the socketcall multiplexer hides the
	 * family in memory: libseccomp then denies socketcall(SOCKET)
	 * whole, which only costs 32-bit programs built for it.
	 */
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
	    LOW32(0, AF_VSOCK));
	if (r < 0)
		goto out;
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair),
	    1, LOW32(0, AF_VSOCK));
	if (r < 0)
		goto out;

	/*
	 * Nested user namespaces: max_user_namespaces already stops them;
	 * this is the second wall.  clone3 passes its flags in memory, out
	 * of the filter's reach: ENOSYS makes glibc fall back to clone.
	 */
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
	    HASBIT(0, CLONE_NEWUSER));
	if (r < 0)
		goto out;
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
	    HASBIT(0, CLONE_NEWUSER));
	if (r < 0)
		goto out;
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (r < 0)
		goto out;

	*out = ctx;
	return 0;
out:
	seccomp_release(ctx);
	return r;
}

/*
 * The BPF program libseccomp builds from the rules, as the kernel gets
 * it: *prog (malloc'd) of *n instructions.  0 or -errno.
 */
static int
seccomp_deny_rules_bpf(struct sock_filter **prog, size_t *n)
{
	scmp_filter_ctx ctx;
	int r;

	*prog = NULL;
	*n = 0;
	if ((r = seccomp_deny_rules_build(&ctx)) < 0)
		return r;
	return seccomp_prog_export(ctx, prog, n);
}

#endif
