/*
 * test_seccomp_gate_gen.c: the gate's seccomp allowlist compiled into
 * aisb-gate at build time ($(BUILD)/gen/seccomp_gate_bpf.h) is exactly
 * the program libseccomp builds now, on this machine, from the same
 * rules (gate/seccomp_gate_rules.h), instruction by instruction, for
 * both default actions.  Then the constant program is loaded into
 * children: the calls the gate makes pass, the ones it must never make
 * kill it (or, in the sanitizer flavour, fail with EPERM).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "tap.h"
#include "seccomp_install.h"
#include "seccomp_gate_rules.h"
#include "seccomp_gate_bpf.h"

static void
same(const char *what, uint32_t def, const struct sock_filter *gen, size_t ngen)
{
	struct sock_filter *now;
	size_t n, i, first_diff;
	int r;

	r = seccomp_gate_rules_bpf(def, &now, &n);
	ok(r == 0, "%s: libseccomp builds the rules at run time (%s)", what,
	    r < 0 ? strerror(-r) : "ok");
	if (r < 0)
		return;
	ok(n == ngen, "%s: same length: %zu generated, %zu now", what, ngen, n);
	first_diff = n;
	for (i = 0; i < n && i < ngen; i++)
		if (memcmp(&now[i], &gen[i], sizeof(now[i])) != 0) {
			first_diff = i;
			break;
		}
	ok(first_diff == n, "%s: same instructions (first difference at %zu)",
	    what, first_diff);
	/* Not a trivial program: the architecture check first, then at
	 * least one instruction per allowed syscall. */
	ok(gen[0].code == (BPF_LD | BPF_W | BPF_ABS) &&
	        gen[0].k == offsetof(struct seccomp_data, arch),
	    "%s: the program starts by loading the architecture", what);
	ok(ngen > ELEMENTSOF(allow_nr), "%s: %zu instructions for %zu calls",
	    what, ngen, ELEMENTSOF(allow_nr));
	free(now);
}

/* The calls a child makes once the filter is loaded. */
enum op {
	OP_GETPID,
	OP_INET,
	OP_UNIX,
	OP_MMAP,
	OP_OPENAT,
	OP_NETLINK,
	OP_MMAP_EXEC,
	OP_MPROTECT_EXEC
};

/* Raw syscalls only: libc or a sanitizer runtime must not add any. */
static long
op_run(enum op op)
{
	switch (op) {
	case OP_GETPID:
		return syscall(SYS_getpid);
	case OP_INET:
		return syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	case OP_UNIX:
		return syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	case OP_MMAP:
		return syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	case OP_OPENAT:
		return syscall(SYS_openat, AT_FDCWD, "/", O_RDONLY);
	case OP_NETLINK:
		return syscall(SYS_socket, AF_NETLINK, SOCK_RAW, 0);
	case OP_MMAP_EXEC:
		return syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	case OP_MPROTECT_EXEC:
		return syscall(
		    SYS_mprotect, (void *)&op_run, 4096, PROT_READ | PROT_EXEC);
	}
	return -1;
}

/*
 * Load prog in a child, make the call: the wait status.  The child
 * exits 0 when the call succeeded, 1 when it failed with EPERM, 2
 * otherwise, 3 when the filter did not load.
 */
static int
in_child(struct sock_filter *prog, size_t n, enum op op)
{
	int status = -1;
	pid_t pid;
	long r;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    seccomp_install(prog, n) < 0)
			syscall(SYS_exit_group, 3);
		r = op_run(op);
		syscall(SYS_exit_group, r >= 0 ? 0 : errno == EPERM ? 1 : 2);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return status;
}

static const struct {
	const char *name;
	enum op op;
	bool allowed;
} cases[] = {
    {"getpid", OP_GETPID, true},
    {"socket(AF_INET)", OP_INET, true},
    {"socket(AF_UNIX) (syslog)", OP_UNIX, true},
    {"mmap read-write", OP_MMAP, true},
    {"openat", OP_OPENAT, false},
    {"socket(AF_NETLINK)", OP_NETLINK, false},
    {"mmap PROT_EXEC", OP_MMAP_EXEC, false},
    {"mprotect PROT_EXEC", OP_MPROTECT_EXEC, false},
};

int
main(void)
{
	size_t i;
	int st;

	same("kill-process", SECCOMP_GATE_DEFAULT, seccomp_gate_bpf_kill,
	    ELEMENTSOF(seccomp_gate_bpf_kill));
	same("EPERM (sanitizer build)", SECCOMP_GATE_DEFAULT_SAN,
	    seccomp_gate_bpf_eperm, ELEMENTSOF(seccomp_gate_bpf_eperm));
	ok(SECCOMP_GATE_ARCH_NATIVE == seccomp_arch_native(),
	    "native architecture 0x%x", SECCOMP_GATE_ARCH_NATIVE);

	for (i = 0; i < ELEMENTSOF(cases); i++) {
		st = in_child(seccomp_gate_bpf_kill,
		    ELEMENTSOF(seccomp_gate_bpf_kill), cases[i].op);
		if (cases[i].allowed)
			ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			    "kill-process program: %s passes (status 0x%x)",
			    cases[i].name, st);
		else
			ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
			    "kill-process program: %s kills (status 0x%x)",
			    cases[i].name, st);
		st = in_child(seccomp_gate_bpf_eperm,
		    ELEMENTSOF(seccomp_gate_bpf_eperm), cases[i].op);
		ok(WIFEXITED(st) &&
		        WEXITSTATUS(st) == (cases[i].allowed ? 0 : 1),
		    "EPERM program: %s %s (status 0x%x)", cases[i].name,
		    cases[i].allowed ? "passes" : "fails with EPERM", st);
	}
	return tap_done();
}
