/*
 * seccomp_deny.c: the inner's seccomp deny filter (see seccomp_deny.h).
 *
 * Two stacked filters.  The main one is built with libseccomp, once, at
 * build time (seccomp_deny_rules.h): default allow, EPERM for a list of
 * kernel surfaces, every ABI of the machine added so that an i386
 * "int $0x80" or an x32 syscall meets the same rules.  The second is a
 * few hand-written BPF instructions for what libseccomp cannot say:
 * "personality(x) unless x is the query value or a harmless persona"
 * needs two tests on one argument, and syscalls newer than libseccomp's
 * table need raw numbers.  The kernel runs both
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
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "seccomp_deny.h"
#include "seccomp_install.h"
#include "util.h"

/*
 * The main filter, built by libseccomp at build time from
 * seccomp_deny_rules.h (see there): seccomp_deny_bpf[] and
 * SECCOMP_DENY_ARCH_NATIVE.
 */
#include "seccomp_deny_bpf.h"

static int
main_filter_load(void)
{
	return seccomp_install(seccomp_deny_bpf, ELEMENTSOF(seccomp_deny_bpf));
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
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_DENY_ARCH_NATIVE, L_NONE,
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

	return seccomp_install(p.f, (size_t)p.n);
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
