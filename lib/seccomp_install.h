/*
 * seccomp_install.h: load a classic-BPF seccomp program, as libseccomp's
 * seccomp_load() does (no flags; the caller has set no_new_privs).  The
 * session's deny filters, the gate's allowlist and their tests use it.
 */
#ifndef AISB_SECCOMP_INSTALL_H
#define AISB_SECCOMP_INSTALL_H

#include <errno.h>
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

/* 0 or -errno. */
static inline int
seccomp_install(struct sock_filter *prog, size_t n)
{
	struct sock_fprog fp = {.len = (unsigned short)n, .filter = prog};

	if (n == 0 || n > BPF_MAXINSNS)
		return -EINVAL;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) < 0)
		return -errno;
	return 0;
}

#endif
