#!/bin/bash
# Kernel surfaces an agent never needs, attacked from inside a session:
# each syscall the lockdown denies must fail with EPERM (clone3: ENOSYS,
# so libc falls back to the filterable clone), through every ABI (the
# i386 "int $0x80" and x32 entries too), including the CVE-2019-10063
# form with garbage in the high 32 bits; each legitimate twin must still
# work.  The same probes run as the same user outside the sandbox: where
# the host answers something other than EPERM, the EPERM inside comes
# from the sandbox.  The probes are tests/helpers/probe.h.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" lck --helpers
exec </dev/null
sess_require
u=tlck1
sess_user "$u"
conf=$(sess_conf sys)

declare -A in host
while read -r name res _; do in[$name]=$res; done < <(sess "$u" "$conf" -c '/project/aisb-try all' 2>&1)
while read -r name res _; do host[$name]=$res; done < <(as "$u" "$SESS_TOP/$u/project/aisb-try" all 2>&1)
ok "the probes ran inside (${#in[@]} results)" [ "${#in[@]}" -ge 60 ]
ok "the probes ran on the host (${#host[@]} results)" [ "${#host[@]}" -ge 60 ]

denied="tiocsti tiocsti_hibits tioclinux tioclinux_hibits tiocsetd
	tiocsetd_hibits io_uring_setup
	io_uring_enter io_uring_register socket_vsock socket_vsock_hibits
	socketpair_vsock unshare_user clone_user setns mount_tmpfs umount2
	pivot_root chroot open_tree move_mount fsopen fsconfig fsmount fspick
	mount_setattr open_tree_attr kexec_load kexec_file_load bpf
	perf_event_open userfaultfd keyctl add_key request_key init_module
	finit_module delete_module acct swapon swapoff reboot settimeofday
	clock_settime clock_adjtime adjtimex quotactl quotactl_fd
	lookup_dcookie vhangup syslog pers_read_implies_exec
	pers_mmap_page_zero pers_hibits prctl_securebits"
twins="ioctl_fionread pty_ioctls socket_inet socketpair_unix fork pers_query
	pers_linux32 pers_norandom ptrace_child"
# Answered differently on the host by this user: the sandbox decides.
decisive="tiocsti tiocsti_hibits tioclinux tioclinux_hibits tiocsetd
	tiocsetd_hibits io_uring_setup
	io_uring_enter io_uring_register socket_vsock socket_vsock_hibits
	unshare_user setns umount2 chroot open_tree fsconfig mount_setattr bpf
	userfaultfd keyctl perf_event_open add_key request_key settimeofday
	clock_settime clock_adjtime adjtimex quotactl_fd open_tree_attr
	pers_read_implies_exec pers_mmap_page_zero pers_hibits"

for p in $denied; do
	is "${in[$p]:-missing}" EPERM "inside: $p is denied (EPERM)"
done
is "${in[clone3]:-missing}" ENOSYS "inside: clone3 answers ENOSYS (glibc falls back to clone)"
for p in $twins; do
	is "${in[$p]:-missing}" ok "inside, legitimate twin: $p works"
done
for p in $decisive; do
	if [ "${host[$p]}" = EPERM ]; then
		skip "host: $p is not EPERM without the sandbox" "the host denies it too"
	else
		ok "host: $p is ${host[$p]:-missing} without the sandbox (so the EPERM is the sandbox's)" \
		    [ -n "${host[$p]}" ]
	fi
done

# The other ABIs of the x86_64 kernel: same rules.
if [ "${host[i386_getpid]}" = ok ]; then
	is "${in[i386_getpid]}" ok "inside, i386 ABI twin: getpid via int \$0x80 works"
	for p in i386_unshare_user i386_mount i386_tiocsti i386_tiocsetd i386_setns \
	    i386_socket_vsock i386_personality; do
		is "${in[$p]:-missing}" EPERM "inside: $p (int \$0x80) is denied"
	done
	for p in i386_tiocsti i386_tiocsetd i386_setns i386_socket_vsock i386_personality; do
		ok "host: $p is ${host[$p]} without the sandbox" [ "${host[$p]}" != EPERM ]
	done
else
	skip "i386 ABI bypass" "kernel without IA32 emulation"
fi
# x32: the filter answers before the kernel's syscall table, so the
# calls are denied even where the kernel lacks x32 (then ENOSYS on the
# host).
for p in x32_unshare_user x32_tiocsti x32_tiocsetd x32_setns x32_socket_vsock \
    x32_personality; do
	is "${in[$p]:-missing}" EPERM "inside: $p (syscall | 0x40000000) is denied"
done

# The same attacks through the ordinary tools.
r() { sess "$u" "$conf" -c "$1" 2>&1; }
out=$(r 'unshare -U true; echo rc=$?')
like "$out" "$RC_FAILED" "inside: unshare -U (util-linux) fails"
out=$(r 'unshare -Ur true; echo rc=$?')
like "$out" "$RC_FAILED" "inside: unshare -Ur (root in a nested userns) fails"
ok "host twin: unshare -Ur works for this user outside" as "$u" unshare -Ur true
out=$(r 'mkdir -p /tmp/m && mount -t tmpfs none /tmp/m; echo rc=$?')
like "$out" "$RC_FAILED" "inside: mount -t tmpfs fails"
ok "host twin: the same user can mount a tmpfs in a namespace of its own" \
    as "$u" unshare -Urm sh -c 'mkdir -p /tmp/lckm$$ && mount -t tmpfs none /tmp/lckm$$ && umount /tmp/lckm$$; rmdir /tmp/lckm$$'
out=$(r 'nsenter -t 1 -m true; echo rc=$?')
like "$out" "$RC_FAILED" "inside: nsenter into init's namespaces fails"
out=$(r 'umount -l /project; echo rc=$?; ls /project/aisb-try')
like "$out" "$RC_FAILED" "inside: umount of the project fails"
like "$out" "/project/aisb-try" "the project is still mounted"
# chroot lives in /usr/sbin, off the session's PATH.
out=$(r "$(command -v chroot || echo chroot) / true; echo rc=\$?")
like "$out" "$RC_FAILED" "inside: chroot fails"
out=$(r 'setarch x86_64 -R true && echo norandom-ok; setarch x86_64 --read-implies-exec true; echo rc=$?; setarch linux32 uname -m')
like "$out" "norandom-ok" "inside, twin: setarch -R (ADDR_NO_RANDOMIZE, gdb) works"
like "$out" "$RC_FAILED" "inside: setarch --read-implies-exec fails"
like "$out" "i686" "inside, twin: linux32 (PER_LINUX32) works"
done_testing
