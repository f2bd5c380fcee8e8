/*
 * seccomp_deny.h: the inner's seccomp deny filter.
 *
 * (Not "seccomp.h": unit tests compile with -Ishell, and <seccomp.h>
 * must keep meaning libseccomp's header.)
 */
#ifndef AISB_SECCOMP_DENY_H
#define AISB_SECCOMP_DENY_H

/*
 * Load the deny filter into the calling thread: EPERM for the kernel
 * surfaces an agent never needs (mount and namespace calls, TIOCSTI and
 * TIOCLINUX with a 32-bit masked compare, io_uring, AF_VSOCK, bpf,
 * perf, kexec, modules, keyrings, clocks, ...), ENOSYS for clone3 (so
 * libc falls back to clone, whose flags are filterable), personality
 * limited to PER_LINUX/PER_LINUX32 with ADDR_NO_RANDOMIZE or UNAME26.
 * Every ABI the binary can be called with is covered (x86_64, i386 and
 * x32 on x86_64); other ABIs are killed.  no_new_privs must already be
 * set (libseccomp sets it too).  0 or -errno (not logged).
 */
int seccomp_deny_install(void);

#endif
