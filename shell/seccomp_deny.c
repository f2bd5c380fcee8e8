/*
 * seccomp_deny.c: the inner's seccomp deny filter (see seccomp_deny.h).
 *
 * Two stacked filters.  The main one is built with libseccomp: default
 * allow, EPERM for a list of kernel surfaces, every ABI of the machine
 * added so that an i386 "int $0x80" or an x32 syscall meets the same
 * rules.  The second is a few hand-written BPF instructions for what
 * libseccomp cannot say: "personality(x) unless x is the query value or
 * a harmless persona" needs two tests on one argument, and syscalls
 * newer than libseccomp's table need raw numbers.  The kernel runs both
 * and the most restrictive answer wins.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sched.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <seccomp.h>

#include "seccomp_deny.h"
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
main_filter_load(void)
{
	scmp_filter_ctx ctx;
	size_t i;
	int r;

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

	r = seccomp_load(ctx);
out:
	seccomp_release(ctx);
	return r < 0 ? r : 0;
}

/*
 * The hand-written filter.  A tiny assembler: jumps name a label,
 * patched once the program is complete.
 */
enum { L_NONE, L_ALLOW, L_DENY, L_PERS, L_NEXT, L_MAX };

struct prog {
	struct sock_filter f[64];
	int label[64][2]; /* [i] = {jt label, jf label} */
	int at[L_MAX]; /* instruction index of each label */
	int n;
};

static void
emit(struct prog *p, uint16_t code, uint32_t k, int lt, int lf)
{
	if (p->n >= (int)ELEMENTSOF(p->f)) {
		p->n = INT16_MAX; /* poisoned: caught at the end */
		return;
	}
	p->f[p->n] = (struct sock_filter)BPF_STMT(code, k);
	p->label[p->n][0] = lt;
	p->label[p->n][1] = lf;
	p->n++;
}

static void
mark(struct prog *p, int label)
{
	if (p->n < (int)ELEMENTSOF(p->f))
		p->at[label] = p->n;
}

/* Resolve the jumps of [from, n) whose labels are now placed. */
static int
patch(struct prog *p, int from, int label)
{
	int i, j, d;

	for (i = from; i < p->n; i++)
		for (j = 0; j < 2; j++) {
			if (p->label[i][j] != label)
				continue;
			d = p->at[label] - (i + 1);
			if (d < 0 || d > 255)
				return -E2BIG;
			if (j == 0)
				p->f[i].jt = (uint8_t)d;
			else
				p->f[i].jf = (uint8_t)d;
			p->label[i][j] = L_NONE;
		}
	return 0;
}

#define ARG0_LO                                                                \
	(offsetof(struct seccomp_data, args[0]) +                              \
	    (__BYTE_ORDER == __BIG_ENDIAN ? 4 : 0))

/*
 * personality(2): PER_LINUX or PER_LINUX32, with ADDR_NO_RANDOMIZE
 * (gdb, setarch -R) or UNAME26; 0xffffffff only queries.  Denied:
 * READ_IMPLIES_EXEC (makes every mapping executable), MMAP_PAGE_ZERO
 * (maps page 0 at exec, past vm.mmap_min_addr: kernel NULL-dereference
 * bugs become exploitable), the address-limit and other persona bits.
 */
#define PERS_OK (PER_LINUX32 | ADDR_NO_RANDOMIZE | UNAME26)

static void
emit_arch(struct prog *p, uint32_t pers_nr, const uint32_t *raw, size_t nraw)
{
	size_t i;

	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0,
	    0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, pers_nr, L_PERS, L_NONE);
	for (i = 0; i < nraw; i++)
		emit(p, BPF_JMP | BPF_JEQ | BPF_K, raw[i], L_DENY, L_NONE);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
}

static int
extra_filter_load(void)
{
	struct prog p = {.n = 0};
	struct sock_fprog fp;
	int start, r;
#if defined(__x86_64__)
	/* Newer than libseccomp 2.5's table: open_tree_attr (6.15). */
	static const uint32_t raw64[] = {467, 0x40000000 | 467};
	static const uint32_t raw32[] = {467};

	emit(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch),
	    0, 0);
	start = p.n;
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, L_NONE, L_NEXT);
	/* x32 shares the x86_64 audit arch; its numbers carry bit 30. */
	emit(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0,
	    0);
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, 0x40000000 | SYS_personality,
	    L_PERS, L_NONE);
	emit_arch(&p, SYS_personality, raw64, ELEMENTSOF(raw64));
	mark(&p, L_NEXT);
	if ((r = patch(&p, start, L_NEXT)) < 0)
		return r;
	/* i386: personality is 136 there. */
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, L_NONE, L_ALLOW);
	emit_arch(&p, 136, raw32, ELEMENTSOF(raw32));
#else
	/* Native ABI only; the main filter kills any other. */
	emit(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch),
	    0, 0);
	start = p.n;
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, seccomp_arch_native(), L_NONE,
	    L_ALLOW);
	emit_arch(&p, SYS_personality, NULL, 0);
#endif
	(void)start;
	mark(&p, L_PERS);
	emit(&p, BPF_LD | BPF_W | BPF_ABS, ARG0_LO, 0, 0);
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, L_ALLOW, L_NONE);
	emit(&p, BPF_ALU | BPF_AND | BPF_K, ~(uint32_t)PERS_OK, 0, 0);
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, 0, L_ALLOW, L_DENY);
	mark(&p, L_DENY);
	emit(&p, BPF_RET | BPF_K,
	    SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA), 0, 0);
	mark(&p, L_ALLOW);
	emit(&p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	if (p.n > (int)ELEMENTSOF(p.f))
		return -E2BIG;
	if ((r = patch(&p, 0, L_PERS)) < 0 || (r = patch(&p, 0, L_DENY)) < 0 ||
	    (r = patch(&p, 0, L_ALLOW)) < 0)
		return r;

	fp.len = (unsigned short)p.n;
	fp.filter = p.f;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) < 0)
		return -errno;
	return 0;
}

int
seccomp_deny_install(void)
{
	int r;

	/* Loading a filter without CAP_SYS_ADMIN needs no_new_privs. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	/* The personality filter first: the main one denies nothing it
	 * needs, and the order only matters for which one reports. */
	if ((r = extra_filter_load()) < 0)
		return r;
	return main_filter_load();
}
