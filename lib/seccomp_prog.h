/*
 * seccomp_prog.h: the BPF program libseccomp builds from a filter
 * context, read back as the kernel gets it.  Build-time generators
 * (shell/gen, gate/gen) and the unit tests that check their output use
 * it; nothing that runs in a session does.
 */
#ifndef AISB_SECCOMP_PROG_H
#define AISB_SECCOMP_PROG_H

#include <errno.h>
#include <stdlib.h>
#include <linux/filter.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <seccomp.h>

#include "util.h"

/*
 * Export ctx (released here, whatever happens) into *prog (malloc'd) of
 * *n instructions.  0 or -errno.
 */
static inline int
seccomp_prog_export(scmp_filter_ctx ctx, struct sock_filter **prog, size_t *n)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	struct sock_filter *p;
	ssize_t got;
	int r;

	*prog = NULL;
	*n = 0;
	fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		seccomp_release(ctx);
		return r;
	}
	r = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0 || st.st_size % sizeof(*p) != 0 ||
	    st.st_size / sizeof(*p) > BPF_MAXINSNS)
		return -EINVAL;
	if ((p = malloc(st.st_size)) == NULL)
		return -ENOMEM;
	got = pread(fd, p, st.st_size, 0);
	if (got != st.st_size) {
		free(p);
		return got < 0 ? -errno : -EIO;
	}
	*prog = p;
	*n = st.st_size / sizeof(*p);
	return 0;
}

#endif
