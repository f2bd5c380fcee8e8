/*
 * probe.h: one attempt per syscall the lockdown denies, and the
 * legitimate twins that must keep working.  Shared by the attack helper
 * (tests/helpers/aisb-try.c, run inside a session) and the unit test
 * (tests/unit/test_lockdown.c, run in a namespace it builds itself).
 *
 * Each probe returns 0 when the call succeeded, else its errno.
 * Arguments are chosen so that, without the filter, the kernel would
 * answer something other than EPERM where it can (EBADF, EFAULT,
 * ENOTTY, success): an EPERM then comes from seccomp.
 */
#ifndef AISB_PROBE_H
#define AISB_PROBE_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#define PROBE_HIBITS 0xdeadbeef00000000UL

static inline int
probe_ret(long r)
{
	return r < 0 ? errno : 0;
}

/* A success that made an fd: close it, report success. */
static inline int
probe_fd(long r)
{
	if (r < 0)
		return errno;
	close((int)r);
	return 0;
}

static const char *probe_arg; /* optional argument of the probe */

static inline int
probe_tiocsti(unsigned long hi)
{
	const char *s = probe_arg ? probe_arg : "x";

	for (; *s; s++)
		if (syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI | hi, s) < 0)
			return errno;
	return 0;
}

static inline int
p_tiocsti(void)
{
	return probe_tiocsti(0);
}
static inline int
p_tiocsti_hibits(void)
{
	return probe_tiocsti(PROBE_HIBITS);
}

static inline int
p_tioclinux(void)
{
	char sub = 6; /* TIOCL_GETSHIFTSTATE: harmless when allowed */

	return probe_ret(ioctl(0, TIOCLINUX, &sub));
}

static inline int
p_tioclinux_hibits(void)
{
	char sub = 6;

	return probe_ret(syscall(
	    SYS_ioctl, 0, (unsigned long)TIOCLINUX | PROBE_HIBITS, &sub));
}

/* A pty of one's own (the slave; *ret_master too), as any program may
 * open one: the probes of its line discipline use it. */
static inline int
probe_pty(int *ret_master)
{
	int m, sl;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0)
		return -errno;
	if (unlockpt(m) < 0 ||
	    (sl = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY)) < 0) {
		int e = errno;

		close(m);
		return -e;
	}
	*ret_master = m;
	return sl;
}

/*
 * TIOCSETD: a line discipline other than N_TTY (n_gsm, n_hdlc, ...) is
 * kernel code that the kernel may autoload as a module.  The probe asks
 * for N_TTY, which the pty already has: without the filter, success and
 * nothing changes.
 */
static inline int
probe_tiocsetd(unsigned long hi)
{
	int m, sl, ld = 0 /* N_TTY */, r;

	if ((sl = probe_pty(&m)) < 0)
		return -sl;
	r = probe_ret(
	    syscall(SYS_ioctl, sl, (unsigned long)TIOCSETD | hi, &ld));
	close(sl);
	close(m);
	return r;
}

static inline int
p_tiocsetd(void)
{
	return probe_tiocsetd(0);
}
static inline int
p_tiocsetd_hibits(void)
{
	return probe_tiocsetd(PROBE_HIBITS);
}

/* Twin: the other ioctls of a pty work (TIOCGETD, TCGETS, TIOCSWINSZ,
 * TIOCGWINSZ). */
static inline int
p_pty_ioctls(void)
{
	struct winsize ws = {.ws_row = 24, .ws_col = 80}, back;
	struct termios t;
	int m, sl, ld = -1, r = 0;

	if ((sl = probe_pty(&m)) < 0)
		return -sl;
	if (ioctl(sl, TIOCGETD, &ld) < 0 || tcgetattr(sl, &t) < 0 ||
	    ioctl(m, TIOCSWINSZ, &ws) < 0 || ioctl(sl, TIOCGWINSZ, &back) < 0)
		r = errno;
	else if (ld != 0 || back.ws_col != 80)
		r = EINVAL;
	close(sl);
	close(m);
	return r;
}

/* Twin: an ordinary ioctl (FIONREAD on a pipe) still works. */
static inline int
p_ioctl_fionread(void)
{
	int fds[2], n, r;

	if (pipe(fds) < 0)
		return errno;
	r = probe_ret(ioctl(fds[0], FIONREAD, &n));
	close(fds[0]);
	close(fds[1]);
	return r;
}

static inline int
p_io_uring_setup(void)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	return probe_fd(syscall(SYS_io_uring_setup, 1, &p));
}

static inline int
p_io_uring_enter(void)
{
	return probe_ret(syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0));
}

static inline int
p_io_uring_register(void)
{
	return probe_ret(syscall(SYS_io_uring_register, -1, 0, NULL, 0));
}

static inline int
p_socket_vsock(void)
{
	return probe_fd(socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0));
}

static inline int
p_socket_vsock_hibits(void)
{
	return probe_fd(syscall(SYS_socket, AF_VSOCK | PROBE_HIBITS,
	    SOCK_STREAM | SOCK_CLOEXEC, 0));
}

static inline int
p_socketpair_vsock(void)
{
	int sv[2];

	if (socketpair(AF_VSOCK, SOCK_STREAM, 0, sv) < 0)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static inline int
p_socket_inet(void)
{
	return probe_fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
}

static inline int
p_socketpair_unix(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static inline int
p_unshare_user(void)
{
	return probe_ret(unshare(CLONE_NEWUSER));
}

static inline int
p_clone_user(void)
{
	long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

	if (r == 0)
		_exit(0);
	if (r < 0)
		return errno;
	waitpid((pid_t)r, NULL, 0);
	return 0;
}

static inline int
p_clone3(void)
{
	struct clone_args ca;
	long r;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWUSER;
	ca.exit_signal = SIGCHLD;
	r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0)
		_exit(0);
	if (r < 0)
		return errno;
	waitpid((pid_t)r, NULL, 0);
	return 0;
}

/* Twin: fork (clone without CLONE_NEWUSER) works. */
static inline int
p_fork(void)
{
	int st;
	pid_t p = fork();

	if (p == 0)
		_exit(7);
	if (p < 0)
		return errno;
	if (waitpid(p, &st, 0) < 0)
		return errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : ECHILD;
}

static inline int
p_setns(void)
{
	return probe_ret(syscall(SYS_setns, -1, 0));
}

static inline int
p_mount_tmpfs(void)
{
	const char *t = probe_arg ? probe_arg : "/tmp";

	if (mount("tmpfs", t, "tmpfs", 0, "size=1m") < 0)
		return errno;
	umount2(t, MNT_DETACH);
	return 0;
}

#define BOGUS(name, call)                                                      \
	static inline int p_##name(void)                                       \
	{                                                                      \
		return probe_ret(call);                                        \
	}

BOGUS(umount2, syscall(SYS_umount2, NULL, 0))
BOGUS(pivot_root, syscall(SYS_pivot_root, NULL, NULL))
BOGUS(chroot, syscall(SYS_chroot, NULL))
BOGUS(open_tree, syscall(SYS_open_tree, -1, NULL, 0))
BOGUS(move_mount, syscall(SYS_move_mount, -1, NULL, -1, NULL, 0))
BOGUS(fsopen, syscall(SYS_fsopen, NULL, 0))
BOGUS(fsconfig, syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0))
BOGUS(fsmount, syscall(SYS_fsmount, -1, 0, 0))
BOGUS(fspick, syscall(SYS_fspick, -1, NULL, 0))
BOGUS(mount_setattr, syscall(SYS_mount_setattr, -1, NULL, 0, NULL, 0))
BOGUS(kexec_load, syscall(SYS_kexec_load, 0, 0, NULL, 0xffffffffUL))
BOGUS(kexec_file_load,
    syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0xffffffffUL))
BOGUS(bpf, syscall(SYS_bpf, -1, NULL, 0))
BOGUS(perf_event_open, syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0))
BOGUS(userfaultfd, syscall(SYS_userfaultfd, -1))
BOGUS(keyctl, syscall(SYS_keyctl, -1, 0, 0, 0, 0))
BOGUS(add_key, syscall(SYS_add_key, NULL, NULL, NULL, 0, 0))
BOGUS(request_key, syscall(SYS_request_key, NULL, NULL, NULL, 0))
BOGUS(init_module, syscall(SYS_init_module, NULL, 0, NULL))
BOGUS(finit_module, syscall(SYS_finit_module, -1, NULL, 0))
BOGUS(delete_module, syscall(SYS_delete_module, NULL, 0))
BOGUS(acct, syscall(SYS_acct, (void *)1))
BOGUS(swapon, syscall(SYS_swapon, NULL, 0))
BOGUS(swapoff, syscall(SYS_swapoff, NULL))
BOGUS(reboot, syscall(SYS_reboot, 0, 0, 0, NULL))
BOGUS(settimeofday, syscall(SYS_settimeofday, (void *)1, (void *)1))
BOGUS(clock_settime, syscall(SYS_clock_settime, -1, NULL))
BOGUS(clock_adjtime, syscall(SYS_clock_adjtime, -1, NULL))
BOGUS(adjtimex, syscall(SYS_adjtimex, NULL))
BOGUS(quotactl, syscall(SYS_quotactl, 0, NULL, 0, NULL))
BOGUS(quotactl_fd, syscall(SYS_quotactl_fd, -1, 0, 0, NULL))
BOGUS(lookup_dcookie, syscall(SYS_lookup_dcookie, 0, NULL, 0))
BOGUS(vhangup, syscall(SYS_vhangup))
BOGUS(syslog, syscall(SYS_syslog, 3, NULL, -1))
BOGUS(open_tree_attr, syscall(467, -1, NULL, 0, NULL, 0))

/* personality: the query and the harmless personas work, the rest not. */
static inline int
probe_pers(unsigned long v)
{
	long old = syscall(SYS_personality, 0xffffffffUL);

	if (old < 0)
		return errno;
	if (syscall(SYS_personality, v) < 0)
		return errno;
	syscall(SYS_personality, (unsigned long)old);
	return 0;
}

static inline int
p_pers_query(void)
{
	return probe_pers(0xffffffffUL);
}
static inline int
p_pers_linux32(void)
{
	return probe_pers(PER_LINUX32);
}
static inline int
p_pers_norandom(void)
{
	return probe_pers(ADDR_NO_RANDOMIZE);
}
static inline int
p_pers_read_implies_exec(void)
{
	return probe_pers(READ_IMPLIES_EXEC);
}
static inline int
p_pers_mmap_page_zero(void)
{
	return probe_pers(MMAP_PAGE_ZERO);
}
static inline int
p_pers_hibits(void)
{
	return probe_pers(READ_IMPLIES_EXEC | PROBE_HIBITS);
}

static inline int
p_prctl_securebits(void)
{
	return probe_ret(prctl(PR_SET_SECUREBITS, 0, 0, 0, 0));
}

/* PID 1 is not dumpable: no ptrace, no memory reads. */
static inline int
p_ptrace_init(void)
{
	pid_t pid = probe_arg ? (pid_t)atoi(probe_arg) : 1;

	if (ptrace(PTRACE_ATTACH, pid, 0, 0) < 0)
		return errno;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

static inline int
p_vmread_init(void)
{
	pid_t pid = probe_arg ? (pid_t)atoi(probe_arg) : 1;
	char buf[8];
	struct iovec l = {buf, sizeof(buf)}, r = {(void *)0x400000, 8};

	if (process_vm_readv(pid, &l, 1, &r, 1, 0) < 0)
		return errno == EFAULT ? 0 : errno; /* reached it */
	return 0;
}

/* Twin: ptrace of one's own child works (agents debug their code). */
static inline int
p_ptrace_child(void)
{
	int st, r = 0;
	pid_t p = fork();

	if (p == 0) {
		pause();
		_exit(0);
	}
	if (p < 0)
		return errno;
	if (ptrace(PTRACE_ATTACH, p, 0, 0) < 0)
		r = errno;
	else
		waitpid(p, &st, 0);
	kill(p, SIGKILL);
	if (r == 0)
		ptrace(PTRACE_DETACH, p, 0, 0);
	waitpid(p, &st, 0);
	return r;
}

#if defined(__x86_64__)
/*
 * The other ABIs of an x86_64 kernel, reached from a 64-bit process:
 * "int $0x80" takes i386 numbers, "syscall" with bit 30 set takes x32
 * numbers.  Pointers must then fit in 32 bits: the probes use none.
 */
static inline long
probe_i386(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b), "d"(c)
	                 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static inline long
probe_x32(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(nr | 0x40000000L), "D"(a), "S"(b), "d"(c)
	                 : "memory", "rcx", "r11");
	return ret;
}

/* -errno as the raw ABI returns it, turned into a probe result. */
static inline int
probe_raw(long r)
{
	return r < 0 && r > -4096 ? (int)-r : 0;
}

/* i386: getpid 20, unshare 310, mount 21, ioctl 54, setns 346,
 * socket 359, personality 136.  x32: getpid 39, unshare 272,
 * ioctl 514, setns 308, socket 41, personality 135. */
static inline int
p_i386_getpid(void)
{
	return probe_raw(probe_i386(20, 0, 0, 0));
}
static inline int
p_i386_unshare_user(void)
{
	return probe_raw(probe_i386(310, CLONE_NEWUSER, 0, 0));
}
static inline int
p_i386_mount(void)
{
	return probe_raw(probe_i386(21, 0, 0, 0));
}
static inline int
p_i386_tiocsti(void)
{
	return probe_raw(probe_i386(54, 0, TIOCSTI, 0));
}
static inline int
p_i386_tiocsetd(void)
{
	return probe_raw(probe_i386(54, -1, TIOCSETD, 0));
}
static inline int
p_i386_setns(void)
{
	return probe_raw(probe_i386(346, -1, 0, 0));
}
static inline int
p_i386_socket_vsock(void)
{
	return probe_raw(probe_i386(359, AF_VSOCK, SOCK_STREAM, 0));
}
static inline int
p_i386_personality(void)
{
	return probe_raw(probe_i386(136, READ_IMPLIES_EXEC, 0, 0));
}
static inline int
p_x32_getpid(void)
{
	return probe_raw(probe_x32(39, 0, 0, 0));
}
static inline int
p_x32_unshare_user(void)
{
	return probe_raw(probe_x32(272, CLONE_NEWUSER, 0, 0));
}
static inline int
p_x32_tiocsti(void)
{
	return probe_raw(probe_x32(514, 0, TIOCSTI, 0));
}
static inline int
p_x32_tiocsetd(void)
{
	return probe_raw(probe_x32(514, -1, TIOCSETD, 0));
}
static inline int
p_x32_setns(void)
{
	return probe_raw(probe_x32(308, -1, 0, 0));
}
static inline int
p_x32_socket_vsock(void)
{
	return probe_raw(probe_x32(41, AF_VSOCK, SOCK_STREAM, 0));
}
static inline int
p_x32_personality(void)
{
	return probe_raw(probe_x32(135, READ_IMPLIES_EXEC, 0, 0));
}
#endif

struct probe {
	const char *name;
	int (*fn)(void);
	int denied; /* 1: must fail under the lockdown */
};

#define P(n, d)                                                                \
	{                                                                      \
#n, p_##n, d                                                   \
	}
static const struct probe probes[] = {
    P(tiocsti, 1),
    P(tiocsti_hibits, 1),
    P(tioclinux, 1),
    P(tioclinux_hibits, 1),
    P(tiocsetd, 1),
    P(tiocsetd_hibits, 1),
    P(pty_ioctls, 0),
    P(ioctl_fionread, 0),
    P(io_uring_setup, 1),
    P(io_uring_enter, 1),
    P(io_uring_register, 1),
    P(socket_vsock, 1),
    P(socket_vsock_hibits, 1),
    P(socketpair_vsock, 1),
    P(socket_inet, 0),
    P(socketpair_unix, 0),
    P(unshare_user, 1),
    P(clone_user, 1),
    P(clone3, 1),
    P(fork, 0),
    P(setns, 1),
    P(mount_tmpfs, 1),
    P(umount2, 1),
    P(pivot_root, 1),
    P(chroot, 1),
    P(open_tree, 1),
    P(move_mount, 1),
    P(fsopen, 1),
    P(fsconfig, 1),
    P(fsmount, 1),
    P(fspick, 1),
    P(mount_setattr, 1),
    P(kexec_load, 1),
    P(kexec_file_load, 1),
    P(bpf, 1),
    P(perf_event_open, 1),
    P(userfaultfd, 1),
    P(keyctl, 1),
    P(add_key, 1),
    P(request_key, 1),
    P(init_module, 1),
    P(finit_module, 1),
    P(delete_module, 1),
    P(acct, 1),
    P(swapon, 1),
    P(swapoff, 1),
    P(reboot, 1),
    P(settimeofday, 1),
    P(clock_settime, 1),
    P(clock_adjtime, 1),
    P(adjtimex, 1),
    P(quotactl, 1),
    P(quotactl_fd, 1),
    P(lookup_dcookie, 1),
    P(vhangup, 1),
    P(syslog, 1),
    P(open_tree_attr, 1),
    P(pers_query, 0),
    P(pers_linux32, 0),
    P(pers_norandom, 0),
    P(pers_read_implies_exec, 1),
    P(pers_mmap_page_zero, 1),
    P(pers_hibits, 1),
    P(prctl_securebits, 1),
    P(ptrace_init, 1),
    P(vmread_init, 1),
    P(ptrace_child, 0),
#if defined(__x86_64__)
    P(i386_getpid, 0),
    P(i386_unshare_user, 1),
    P(i386_mount, 1),
    P(i386_tiocsti, 1),
    P(i386_tiocsetd, 1),
    P(i386_setns, 1),
    P(i386_socket_vsock, 1),
    P(i386_personality, 1),
    P(x32_getpid, 0),
    P(x32_unshare_user, 1),
    P(x32_tiocsti, 1),
    P(x32_tiocsetd, 1),
    P(x32_setns, 1),
    P(x32_socket_vsock, 1),
    P(x32_personality, 1),
#endif
};
#undef P

static inline const struct probe *
probe_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (strcmp(probes[i].name, name) == 0)
			return &probes[i];
	return NULL;
}

#endif
